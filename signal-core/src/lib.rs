//! HSA signals without a heap: the `amd_signal_t` layout, every signal
//! operation of the HSA API, waiting on one or many signals, and the wake
//! protocol that lets a host block waiters without ever losing a wake-up.
//!
//! - [`raw`]: `amd_signal_t`, bit-exact with ROCr's `amd_hsa_signal.h`.
//! - [`SignalStorage`] / [`Signal`]: a waitable signal in caller-provided
//!   memory and the load, store, silent store, exchange, compare-and-swap,
//!   add, subtract, and, or, xor operations in each HSA memory order;
//!   interrupt signals write their event mailbox and raise their event.
//! - [`Signal::wait`], [`wait_any`]: the four conditions, timeout and
//!   wait-state hints, spin / back-off / block.
//! - [`protocol`]: the waiter registration that makes lost wake-ups
//!   impossible (see `ARCHITECTURE.md`, "Signals").
//! - [`DoorbellSignal`], [`SignalPool`], [`ClockSync`] (profiling
//!   timestamps).
//!
//! The host (blocking, waking, time, events) is the [`SignalHost`] trait;
//! `std-shim` implements it with Linux futexes.
//!
//! ```
//! use core::sync::atomic::AtomicU32;
//! use signal_core::*;
//!
//! /// A host that never sleeps (a real one blocks: `std_shim::FutexHost`).
//! struct Spin;
//! impl Blocker for Spin {
//!     fn block(&self, _: &AtomicU32, _: u32, _: Option<u64>) {}
//!     fn block_any(&self, _: &[BlockOn<'_>], _: Option<u64>) {}
//!     fn wake_all(&self, _: &AtomicU32) {}
//! }
//! impl Clock for Spin {
//!     fn now_ticks(&self) -> u64 { 0 }
//!     fn ticks_per_second(&self) -> u64 { 1_000_000_000 }
//! }
//! impl EventNotifier for Spin {
//!     fn notify_event(&self, _: u32) {}
//! }
//!
//! static POOL: SignalPool<16> = SignalPool::new();
//! let completion = POOL.allocate(1)?; // a dispatch's completion signal
//! let signal = completion.bind(&Spin);
//! signal.subtract(1, RmwOrder::Release); // what the packet processor does
//! let done = signal.wait(Condition::Eq, 0, TIMEOUT_INFINITE, WaitState::Blocked, LoadOrder::Acquire)?;
//! assert_eq!(done, WaitOutcome::Satisfied(0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![no_std]
#![deny(unsafe_code)]

#[macro_use]
mod fmt;

#[macro_use]
mod sync;

pub mod host;
pub mod protocol;

#[cfg(not(loom))]
mod doorbell;
#[cfg(not(loom))]
mod pool;
pub mod raw;
#[allow(unsafe_code)]
mod signal;
mod timestamp;
mod wait;

pub use host::{BlockOn, Blocker, Clock, EventNotifier, MAX_BLOCK_ANY, SignalHost};
#[cfg(loom)]
pub use protocol::LoomMutation;
pub use protocol::{AnyRegistration, Registration, WakeState};

#[cfg(not(loom))]
pub use doorbell::{DoorbellError, DoorbellSignal};
#[cfg(not(loom))]
pub use pool::{PoolExhausted, PoolHandle, PoolHandleError, PooledSignal, SignalPool};
pub use raw::{AmdSignal, SignalKind, UnknownSignalKind};
pub use signal::{LoadOrder, RmwOrder, Signal, SignalHandleError, SignalStorage, StoreOrder};
pub use timestamp::{ClockCounters, ClockSync, ProfilingTime, TimestampError};
pub use wait::{
    Condition, HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_GTE, HSA_SIGNAL_CONDITION_LT,
    HSA_SIGNAL_CONDITION_NE, HSA_WAIT_STATE_ACTIVE, HSA_WAIT_STATE_BLOCKED, TIMEOUT_INFINITE,
    UnknownEnumerator, WAIT_ANY_OVERFLOW_SLICE_NS, WaitAnyEntry, WaitAnyOutcome, WaitError,
    WaitOutcome, WaitPolicy, WaitState, wait_any, wait_any_with_policy,
};
