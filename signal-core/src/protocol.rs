//! The wake protocol between the setters of a signal and its blocked
//! waiters, built so that a wake-up cannot be lost.
//!
//! HSA signal values are 64-bit, but a futex word is 32-bit, so the value
//! itself cannot be slept on. Beside each signal sits a [`WakeState`] of
//! two 32-bit words:
//! - `waiters`: how many threads are registered to block on this signal;
//! - `seq`: a wake sequence, the futex word. A setter that finds waiters
//!   bumps it and wakes every thread blocked on it.
//!
//! Setter (after any change of the value, in whatever memory order):
//! `fence(SeqCst)`; read `waiters`; if non-zero, `seq += 1` (release) and
//! wake all. Waiter: `waiters += 1`; then loop { read `seq` (acquire) as
//! `s`; `fence(SeqCst)`; read the value and test the condition; if not
//! satisfied, block while `seq == s` }; finally `waiters -= 1`.
//!
//! Why no wake is lost: the two `SeqCst` fences are totally ordered. If the
//! setter's fence comes first, the waiter's value read (after its fence)
//! sees the new value and it does not sleep. If the waiter's fence comes
//! first, the setter's `waiters` read (after its fence) sees the waiter's
//! registration, so the setter bumps `seq`; the waiter's `s` was read before
//! its fence and hence before that bump, so the futex check `seq == s`
//! fails or the sleeper is already queued when the wake comes. The
//! `loom` model in `tests/loom.rs` runs `Signal`'s real operations and
//! waits over these functions, and, with a [`LoomMutation`] (loom builds
//! only) that leaves a fence out, must find the lost wake-up.
//!
//! The sequence wraps after 2^32 wakes; a waiter would miss a wake only if
//! exactly 2^32 of them happened between its read of `seq` and the kernel's
//! check, which the protocol accepts.

use crate::host::{BlockOn, Blocker, MAX_BLOCK_ANY};
use crate::sync::{AtomicU32, Ordering, fence};

/// The host-side words that let threads block on a signal: a count of
/// registered waiters and the 32-bit wake sequence they sleep on.
#[derive(Debug)]
pub struct WakeState {
    waiters: AtomicU32,
    seq: AtomicU32,
    #[cfg(loom)]
    mutation: LoomMutation,
}

/// Loom builds only: a fence of the protocol to leave out, so the model
/// test can show that loom finds the lost wake-up each one prevents (a
/// mutation of the shipped code, not a re-implementation of it).
#[cfg(loom)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoomMutation {
    /// The protocol as shipped.
    None,
    /// [`WakeState::notify`] without its `SeqCst` fence.
    NoSetterFence,
    /// The waiter's snapshot without its `SeqCst` fence.
    NoWaiterFence,
}

impl WakeState {
    const_unless_loom! {
    /// No waiters, sequence zero.
    pub fn new() -> Self {
        Self {
            waiters: AtomicU32::new(0),
            seq: AtomicU32::new(0),
            #[cfg(loom)]
            mutation: LoomMutation::None,
        }
    }
    }

    /// The setter's half: call after every change of the signal value.
    /// Wakes the blocked waiters if there are any; costs a fence and a load
    /// when there are none.
    #[inline]
    pub fn notify<B: Blocker + ?Sized>(&self, host: &B) {
        self.setter_fence();
        if self.waiters.load(Ordering::Relaxed) != 0 {
            self.seq.fetch_add(1, Ordering::Release);
            host.wake_all(&self.seq);
        }
    }

    /// Registers the calling thread as a waiter until the returned guard is
    /// dropped. Call before the first [`Registration::snapshot`].
    #[inline]
    pub fn register(&self) -> Registration<'_> {
        self.add_waiter();
        Registration { state: self }
    }

    /// Loom builds only: this wake state with `mutation` applied.
    #[cfg(loom)]
    pub fn with_mutation(mut self, mutation: LoomMutation) -> Self {
        self.mutation = mutation;
        self
    }

    /// The setter's fence, between the value change and the `waiters` read.
    #[inline]
    fn setter_fence(&self) {
        #[cfg(loom)]
        if self.mutation == LoomMutation::NoSetterFence {
            return;
        }
        fence(Ordering::SeqCst);
    }

    /// The waiter's fence, between the `seq` read and the value read.
    #[inline]
    fn waiter_fence(&self) {
        #[cfg(loom)]
        if self.mutation == LoomMutation::NoWaiterFence {
            return;
        }
        fence(Ordering::SeqCst);
    }

    /// The waiter count (diagnostics and tests).
    pub fn waiters(&self) -> u32 {
        self.waiters.load(Ordering::Relaxed)
    }

    /// The wake sequence, the word waiters block on.
    pub fn sequence_word(&self) -> &AtomicU32 {
        &self.seq
    }

    #[inline]
    fn add_waiter(&self) {
        // Saturation cannot happen with fewer than 2^32 threads; wrapping
        // would only cost spurious wakes, never a lost one.
        self.waiters.fetch_add(1, Ordering::Relaxed);
    }

    #[inline]
    fn remove_waiter(&self) {
        self.waiters.fetch_sub(1, Ordering::Relaxed);
    }

    /// Reads the wake sequence (acquire); the value test must follow a
    /// `SeqCst` fence after this read.
    #[inline]
    fn sequence(&self) -> u32 {
        self.seq.load(Ordering::Acquire)
    }
}

impl Default for WakeState {
    fn default() -> Self {
        Self::new()
    }
}

/// A registered waiter of one [`WakeState`]; unregisters on drop.
#[derive(Debug)]
pub struct Registration<'a> {
    state: &'a WakeState,
}

impl Registration<'_> {
    /// Reads the wake sequence and fences; test the value after this, and
    /// if the condition does not hold, block while the word (see
    /// [`word`](Self::word)) still holds the returned sequence.
    #[inline]
    pub fn snapshot(&self) -> u32 {
        let s = self.state.sequence();
        self.state.waiter_fence();
        s
    }

    /// The futex word to block on.
    #[inline]
    pub fn word(&self) -> &AtomicU32 {
        &self.state.seq
    }
}

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        self.state.remove_waiter();
    }
}

/// A waiter registered with several [`WakeState`]s at once (wait on any of
/// N signals); unregisters from all of them on drop. `state` projects an
/// item of the list to its wake state.
pub struct AnyRegistration<'e, T> {
    items: &'e [T],
    state: fn(&T) -> &WakeState,
}

impl<'e, T> AnyRegistration<'e, T> {
    /// Registers with the wake state of every item.
    pub fn new(items: &'e [T], state: fn(&T) -> &WakeState) -> Self {
        for item in items {
            state(item).add_waiter();
        }
        Self { items, state }
    }

    /// Reads the wake sequence of the first [`MAX_BLOCK_ANY`] items into
    /// `words` (replacing its contents), then fences; test every value
    /// after this, and if none satisfies, block on `words`.
    pub fn snapshot<'s>(&'s self, words: &mut heapless::Vec<BlockOn<'s>, MAX_BLOCK_ANY>) {
        words.clear();
        for item in self.items.iter().take(MAX_BLOCK_ANY) {
            let wake = (self.state)(item);
            // Cannot fail: at most MAX_BLOCK_ANY items are taken.
            let _ = words.push(BlockOn {
                word: &wake.seq,
                expected: wake.sequence(),
            });
        }
        // One fence for all the words (the first signal's, which a loom
        // mutation may leave out).
        match self.items.first() {
            Some(first) => (self.state)(first).waiter_fence(),
            None => fence(Ordering::SeqCst),
        }
    }
}

impl<T> Drop for AnyRegistration<'_, T> {
    fn drop(&mut self) {
        for item in self.items {
            (self.state)(item).remove_waiter();
        }
    }
}

impl<T> core::fmt::Debug for AnyRegistration<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AnyRegistration")
            .field("signals", &self.items.len())
            .finish()
    }
}
