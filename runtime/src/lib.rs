//! The HSA runtime API, built on the `aql`, `signal-core`, `loader-core`,
//! `kfd` and `std-shim` crates, and the `hsa` command-line tool.
//!
//! The library side is being built up issue by issue; the `hsa` binary
//! (`src/bin/hsa`) is the project's command-line tool.
#![deny(unsafe_code)]

pub mod argspec;
pub mod kernarg;
