//! The atomics signals are built on: `core`'s normally, `loom`'s under
//! `--cfg loom`, so that the model checker explores the very code that
//! ships (`Signal`'s operations and waits, the wake protocol), as `aql`'s
//! `sync` module does for the queue ring.
//!
//! Under loom the raw `amd_signal_t` is made of loom's atomics, so its C
//! layout (and the asserts that pin it) hold only in normal builds, and
//! constructors cannot be `const` ([`const_unless_loom!`]).

#[cfg(loom)]
pub use loom::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, Ordering, fence};

#[cfg(not(loom))]
pub use core::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, Ordering, fence};

/// A hint inside a busy-wait loop (under loom, a yield to the model's
/// scheduler, which a spinning thread must give).
#[inline]
pub fn spin_loop() {
    #[cfg(loom)]
    loom::thread::yield_now();
    #[cfg(not(loom))]
    core::hint::spin_loop();
}

/// Defines a function that is `const` in normal builds and not under loom,
/// whose atomics have no `const` constructor.
macro_rules! const_unless_loom {
    ($(#[$attr:meta])* $vis:vis fn $($rest:tt)*) => {
        #[cfg(not(loom))]
        $(#[$attr])*
        $vis const fn $($rest)*

        #[cfg(loom)]
        $(#[$attr])*
        $vis fn $($rest)*
    };
}
