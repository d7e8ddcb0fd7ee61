//! What `signal-core` needs from the machine: blocking is `WFE` (woken by
//! the `SEV` of a waker or by the timer event stream `boot.rs` turns on),
//! time is the generic timer's virtual counter.
#![allow(unsafe_code)]

use core::sync::atomic::{AtomicU32, Ordering};
use signal_core::{BlockOn, Blocker, Clock, EventNotifier};

/// The bare-metal signal host shared by both cores.
#[derive(Debug, Clone, Copy)]
pub struct Firmware;

/// Waits for an event: a `SEV` from another core or the event stream.
pub fn wait_for_event() {
    // SAFETY: WFE only pauses this core until an event; no memory effects.
    unsafe { core::arch::asm!("wfe", options(nomem, nostack, preserves_flags)) };
}

/// Signals an event to every core, after making earlier stores visible.
pub fn send_event() {
    // SAFETY: DSB orders this core's memory accesses and SEV sets every
    // core's event register; neither touches memory.
    unsafe { core::arch::asm!("dsb ish", "sev", options(nostack, preserves_flags)) };
}

/// `CNTVCT_EL0`, the virtual count.
pub fn counter() -> u64 {
    let v: u64;
    // SAFETY: reading the counter (after an ISB, so it is not read early)
    // has no side effects; EL1 may always read it.
    unsafe { core::arch::asm!("isb", "mrs {}, cntvct_el0", out(reg) v, options(nomem, nostack)) };
    v
}

/// `CNTFRQ_EL0`, the counter's frequency in Hz.
pub fn counter_frequency() -> u64 {
    let v: u64;
    // SAFETY: reading the frequency register has no side effects.
    unsafe { core::arch::asm!("mrs {}, cntfrq_el0", out(reg) v, options(nomem, nostack)) };
    v
}

impl Firmware {
    fn deadline(&self, timeout_ns: Option<u64>) -> Option<u64> {
        timeout_ns.map(|ns| {
            let ticks = u128::from(ns) * u128::from(counter_frequency()) / 1_000_000_000;
            counter().saturating_add(u64::try_from(ticks).unwrap_or(u64::MAX))
        })
    }
}

impl Blocker for Firmware {
    fn block(&self, word: &AtomicU32, expected: u32, timeout_ns: Option<u64>) {
        let deadline = self.deadline(timeout_ns);
        // A SEV between the check and the WFE leaves the event register
        // set, so the WFE returns at once: no wake is lost.
        while word.load(Ordering::Acquire) == expected {
            if deadline.is_some_and(|d| counter() >= d) {
                return;
            }
            wait_for_event();
        }
    }

    fn block_any(&self, words: &[BlockOn<'_>], timeout_ns: Option<u64>) {
        let deadline = self.deadline(timeout_ns);
        while words
            .iter()
            .all(|w| w.word.load(Ordering::Acquire) == w.expected)
        {
            if deadline.is_some_and(|d| counter() >= d) {
                return;
            }
            wait_for_event();
        }
    }

    fn wake_all(&self, _word: &AtomicU32) {
        send_event();
    }
}

impl Clock for Firmware {
    fn now_ticks(&self) -> u64 {
        counter()
    }

    fn ticks_per_second(&self) -> u64 {
        counter_frequency()
    }
}

impl EventNotifier for Firmware {
    /// No interrupt signals here: nothing to raise.
    fn notify_event(&self, _event_id: u32) {}
}
