//! What a signal needs from its host: blocking and waking a thread on a
//! 32-bit word, a clock in HSA system-timestamp ticks, and raising the
//! interrupt event of a signal that has an event mailbox.
//!
//! `std-shim` implements these with Linux futexes and `CLOCK_BOOTTIME`; a
//! kernel or firmware implements them with its own scheduler.

use crate::sync::AtomicU32;

/// Most words a single [`Blocker::block_any`] call waits on. Linux's
/// `futex_waitv` accepts at most 128 (`FUTEX_WAITV_MAX`); 64 keeps the
/// on-stack list of a wait-any at 1 KiB.
pub const MAX_BLOCK_ANY: usize = 64;

/// One word of a [`Blocker::block_any`] call: sleep while `word == expected`.
#[derive(Clone, Copy, Debug)]
pub struct BlockOn<'a> {
    /// The 32-bit word (a signal's wake sequence).
    pub word: &'a AtomicU32,
    /// The value the waiter last saw; the host must not sleep if the word
    /// no longer holds it.
    pub expected: u32,
}

/// Blocking a thread on a 32-bit word and waking it, with futex semantics.
///
/// Correctness of the signal wake protocol needs exactly this from an
/// implementation (a wrong one makes waits hang or spin, never unsound):
/// the check "`word` still holds `expected`" and the enqueueing of the
/// sleeper are atomic with respect to [`wake_all`](Blocker::wake_all) on the
/// same word, as `FUTEX_WAIT` guarantees. Spurious returns are allowed.
pub trait Blocker {
    /// Sleeps while `word` holds `expected`, until woken by
    /// [`wake_all`](Blocker::wake_all), or until `timeout_ns` nanoseconds
    /// have passed (`None`: no timeout). May return early for any reason.
    fn block(&self, word: &AtomicU32, expected: u32, timeout_ns: Option<u64>);

    /// Sleeps while every word holds its expected value (at most
    /// [`MAX_BLOCK_ANY`] words), until one of them is woken, or until
    /// `timeout_ns` has passed. May return early for any reason.
    fn block_any(&self, words: &[BlockOn<'_>], timeout_ns: Option<u64>);

    /// Wakes every thread blocked on `word`.
    fn wake_all(&self, word: &AtomicU32);

    /// Lets other threads run while a waiter backs off (a spin hint by
    /// default; a hosted implementation yields the CPU).
    fn yield_now(&self) {
        core::hint::spin_loop();
    }
}

/// The HSA system clock: a monotonic tick counter and its frequency
/// (`HSA_SYSTEM_INFO_TIMESTAMP` and `HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY`,
/// HSA runtime specification 1.2, section 2.2.1), the unit of wait
/// timeouts.
pub trait Clock {
    /// The current tick count; never decreases.
    fn now_ticks(&self) -> u64;
    /// Ticks per second (a zero frequency makes timed waits fail with an
    /// error instead of dividing by zero).
    fn ticks_per_second(&self) -> u64;
}

/// Raises the interrupt event of a signal that has an event mailbox (the
/// host side of what a GPU does with `s_sendmsg` after writing the event id
/// to the mailbox; ROCr calls `hsaKmtSetEvent`).
pub trait EventNotifier {
    /// Called after `event_id` was written to the signal's event mailbox.
    fn notify_event(&self, event_id: u32);
}

/// Hosts without interrupt events (no KFD): nothing to raise beyond the
/// mailbox write, which the signal layer already did.
impl EventNotifier for () {
    fn notify_event(&self, _event_id: u32) {}
}

/// Everything a signal operation may need from its host.
pub trait SignalHost: Blocker + Clock + EventNotifier {}

impl<T: Blocker + Clock + EventNotifier + ?Sized> SignalHost for T {}
