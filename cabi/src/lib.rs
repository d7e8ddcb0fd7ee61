//! `libhsa-runtime64.so.1`: the C ABI of ROCr 5.2.3 over the Rust runtime,
//! a drop-in for AMD's library (same SONAME, every export at symbol
//! version `ROCR_1`, the same 224 functions and `_amdgpu_r_debug`).
//!
//! Every function runs in the call guard (`state::guard`): before `hsa_init` it answers
//! `HSA_STATUS_ERROR_NOT_INITIALIZED`, a panic becomes `HSA_STATUS_ERROR`
//! (never unwinding into C), handles are looked up in the library's
//! tables (unknown or destroyed: the `INVALID_*` status), NULL out-pointers
//! are `INVALID_ARGUMENT`. Set `HSA_RS_CABI_LOG=1` to see each failed
//! call's reason on stderr. What is not implemented returns the status
//! listed in ARCHITECTURE.md ("The C ABI library").
#![deny(unsafe_code)]

pub mod abi;
pub mod amd_api;
pub mod core_api;
mod exports;
pub mod ext;
pub mod ffi;
pub mod signal_api;
mod state;
mod tools;
mod trace;
pub mod vmem_api;
