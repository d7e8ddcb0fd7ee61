//! Hosted implementations of the traits the `no_std` core crates ask of
//! their host: futex-based blocking and waking, a monotonic clock in HSA
//! timestamp units, and mapped memory.
//!
//! This crate needs `std` and carries no HSA policy of its own.
#![deny(unsafe_code)]
