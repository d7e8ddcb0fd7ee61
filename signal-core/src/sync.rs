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
pub use core::sync::atomic::{AtomicU32, Ordering, fence};

#[cfg(all(not(loom), target_has_atomic = "64"))]
pub use core::sync::atomic::{AtomicI64, AtomicU64};

// Targets without native 64-bit atomics (thumbv7em, riscv32imac): the
// `portable-atomic` feature's lock-based fallback, atomic among this CPU's
// threads but not with respect to a GPU or host sharing the memory
// (ARCHITECTURE.md, "Targets without 64-bit atomics").
#[cfg(all(not(loom), not(target_has_atomic = "64"), feature = "portable-atomic"))]
pub use portable_atomic::{AtomicI64, AtomicU64};

#[cfg(all(
    not(loom),
    not(target_has_atomic = "64"),
    not(feature = "portable-atomic")
))]
compile_error!(
    "this target has no native 64-bit atomics: enable signal-core's `portable-atomic` feature (see ARCHITECTURE.md, \"Targets without 64-bit atomics\")"
);

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
