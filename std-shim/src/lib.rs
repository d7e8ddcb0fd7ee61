//! Hosted implementations of the traits the `no_std` core crates ask of
//! their host.
//!
//! - [`FutexHost`]: `signal-core`'s [`SignalHost`](signal_core::SignalHost):
//!   blocking and waking on Linux futexes (`FUTEX_WAIT`, `FUTEX_WAKE`,
//!   `futex_waitv` for wait-any), the HSA system clock from
//!   `CLOCK_BOOTTIME` in nanoseconds (1 GHz, the domain KFD's
//!   `AMDKFD_IOC_GET_CLOCK_COUNTERS` reports `system_clock_counter` in), and
//!   interrupt events through a pluggable [`EventNotifier`](signal_core::EventNotifier).
//! - [`thread_cpu_time_ns`]: the calling thread's CPU time, to show that a
//!   blocked waiter costs none.
//!
//! This crate needs `std` and carries no HSA policy of its own.
#![deny(unsafe_code)]

mod clock;
mod futex;

pub use clock::{HSA_SYSTEM_TIMESTAMP_FREQUENCY, system_timestamp, thread_cpu_time_ns};
pub use futex::FutexHost;
