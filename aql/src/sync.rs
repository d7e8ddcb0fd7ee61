//! The atomic types the queue ring is built on: `core`'s, or `loom`'s when
//! the crate is compiled with `RUSTFLAGS="--cfg loom"` for the model tests.

#[cfg(loom)]
pub use loom::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

#[cfg(not(loom))]
pub use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// A hint inside a busy-wait loop (under loom, a yield to the model's scheduler).
#[inline]
pub fn spin_loop() {
    #[cfg(loom)]
    loom::thread::yield_now();
    #[cfg(not(loom))]
    core::hint::spin_loop();
}
