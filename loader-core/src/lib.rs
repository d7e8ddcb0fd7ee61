//! The AMDGPU code-object loader core: parse, check and load ELF code objects
//! from untrusted bytes without allocating and without panicking.
//!
//! This crate is `no_std` and never allocates in its default build. It will
//! hold the ELF64 AMDGPU reader, the `NT_AMDGPU_METADATA` MessagePack views,
//! kernel-descriptor decoding, target IDs, clang offload bundles and the
//! loader that places segments into caller-provided memory.
#![no_std]
#![deny(unsafe_code)]

#[macro_use]
#[allow(unused_macros)]
mod fmt;
