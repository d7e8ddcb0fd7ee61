//! AQL: the Architected Queuing Language of HSA, without a heap.
#![no_std]
#![deny(unsafe_code)]

#[macro_use]
#[allow(unused_macros)]
mod fmt;
