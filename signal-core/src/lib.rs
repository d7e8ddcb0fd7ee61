//! HSA signals without a heap: the `amd_signal_t` layout, every signal
//! operation of the HSA API and the wait logic.
//!
//! This crate is `no_std` and never allocates. It will hold:
//! - `amd_signal_t`, bit-exact with ROCr's `amd_hsa_signal.h`;
//! - load, store, exchange, compare-and-swap and the arithmetic and bitwise
//!   read-modify-write operations in each memory order the HSA API names;
//! - the wait conditions and a spin / back-off / block strategy whose
//!   blocking is delegated to a host trait (implemented by `std-shim`).
#![no_std]
#![deny(unsafe_code)]

#[macro_use]
#[allow(unused_macros)]
mod fmt;
