//! The atomics the wake protocol is built on: `core`'s normally, `loom`'s
//! under `--cfg loom` so the model checker can explore every interleaving.

#[cfg(loom)]
pub use loom::sync::atomic::{AtomicU32, Ordering, fence};

#[cfg(not(loom))]
pub use core::sync::atomic::{AtomicU32, Ordering, fence};
