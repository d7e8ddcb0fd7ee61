//! [`FutexHost`]: signal blocking and waking on Linux futexes.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use rustix::io::Errno;
use rustix::thread::futex::{self, Flags, Wait, WaitFlags, WaitPtr, WaitvFlags};
use rustix::time::ClockId;
use signal_core::{BlockOn, Blocker, Clock, EventNotifier, MAX_BLOCK_ANY};

use crate::clock::{
    HSA_SYSTEM_TIMESTAMP_FREQUENCY, add_ns, monotonic, system_timestamp, timespec_from_ns,
};

/// How long a wait-any sleeps at most when the kernel has no
/// `futex_waitv` (before 5.16) and it can sleep on one word only.
const NO_WAITV_SLICE_NS: u64 = 1_000_000;

/// The hosted [`SignalHost`](signal_core::SignalHost): futexes, the
/// `CLOCK_BOOTTIME` HSA system clock and an event notifier `N` (`()` when
/// there are no interrupt events to raise, as without KFD).
#[derive(Debug)]
pub struct FutexHost<N = ()> {
    notifier: N,
    shared: bool,
    no_waitv: AtomicBool,
}

impl FutexHost<()> {
    /// Futexes private to this process (the fast path), no event notifier.
    pub const fn new() -> Self {
        Self::with_notifier(())
    }
}

impl Default for FutexHost<()> {
    fn default() -> Self {
        Self::new()
    }
}

impl<N> FutexHost<N> {
    /// Private futexes and `notifier` for the events of interrupt signals.
    pub const fn with_notifier(notifier: N) -> Self {
        Self {
            notifier,
            shared: false,
            no_waitv: AtomicBool::new(false),
        }
    }

    /// Process-shared futexes, for signals in memory shared between
    /// processes (IPC signals); a little slower than private ones.
    pub const fn process_shared(notifier: N) -> Self {
        Self {
            notifier,
            shared: true,
            no_waitv: AtomicBool::new(false),
        }
    }

    /// The event notifier.
    pub fn notifier(&self) -> &N {
        &self.notifier
    }

    fn flags(&self) -> Flags {
        if self.shared {
            Flags::empty()
        } else {
            Flags::PRIVATE
        }
    }

    fn waitv_flags(&self) -> WaitFlags {
        if self.shared {
            WaitFlags::SIZE_U32
        } else {
            WaitFlags::SIZE_U32 | WaitFlags::PRIVATE
        }
    }
}

impl<N> Blocker for FutexHost<N> {
    fn block(&self, word: &AtomicU32, expected: u32, timeout_ns: Option<u64>) {
        let timeout = timeout_ns.map(timespec_from_ns);
        // EAGAIN (the word changed), ETIMEDOUT and EINTR all mean "look
        // again"; the caller re-checks the value and the deadline.
        let _ = futex::wait(word, self.flags(), expected, timeout.as_ref());
    }

    fn block_any(&self, words: &[BlockOn<'_>], timeout_ns: Option<u64>) {
        let Some(first) = words.first() else { return };
        if !self.no_waitv.load(Ordering::Relaxed) {
            let mut waits = [Wait::new(); MAX_BLOCK_ANY];
            let n = words.len().min(MAX_BLOCK_ANY);
            for (w, b) in waits.iter_mut().zip(words) {
                w.val = u64::from(b.expected);
                w.uaddr = WaitPtr::new(b.word.as_ptr().cast());
                w.flags = self.waitv_flags();
            }
            // futex_waitv takes an absolute CLOCK_MONOTONIC deadline.
            let deadline = timeout_ns.map(|ns| add_ns(monotonic(), ns));
            match futex::waitv(
                &waits[..n],
                WaitvFlags::empty(),
                deadline.as_ref(),
                ClockId::Monotonic,
            ) {
                Err(Errno::NOSYS) => self.no_waitv.store(true, Ordering::Relaxed),
                // Woken, changed (EAGAIN), timed out or interrupted.
                _ => return,
            }
        }
        let slice = timeout_ns.map_or(NO_WAITV_SLICE_NS, |t| t.min(NO_WAITV_SLICE_NS));
        self.block(first.word, first.expected, Some(slice));
    }

    fn wake_all(&self, word: &AtomicU32) {
        // i32::MAX: every waiter (FUTEX_WAKE's count is an int).
        let _ = futex::wake(word, self.flags(), i32::MAX as u32);
    }

    fn yield_now(&self) {
        std::thread::yield_now();
    }
}

impl<N> Clock for FutexHost<N> {
    fn now_ticks(&self) -> u64 {
        system_timestamp()
    }

    fn ticks_per_second(&self) -> u64 {
        HSA_SYSTEM_TIMESTAMP_FREQUENCY
    }
}

impl<N: EventNotifier> EventNotifier for FutexHost<N> {
    fn notify_event(&self, event_id: u32) {
        self.notifier.notify_event(event_id);
    }
}
