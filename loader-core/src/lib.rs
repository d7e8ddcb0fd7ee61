//! The AMDGPU code-object loader core: parse, check and load ELF code objects
//! from untrusted bytes without allocating and without panicking.
//!
//! This crate is `no_std` and never allocates in its default build.
//!
//! # Parsing
//!
//! - [`elf::ElfFile`]: the ELF64 view — identification, OS ABI and
//!   code-object version ([`elf::CodeObjectVersion`]), `e_flags`
//!   ([`processor::EFlags`]: processor, xnack, sramecc, generic version),
//!   program and section headers, `.symtab` / `.dynsym` with lookups
//!   through `.gnu.hash` / `.hash` ([`elf::SymbolTable::lookup`]), notes.
//! - [`processor`]: every `EF_AMDGPU_MACH_*` processor LLVM knows, with its
//!   `gfx_target_version`, xnack/sramecc support and generic family.
//! - [`note`]: the note iterator and the `NT_AMD*` note types.
//! - [`msgpack`]: a zero-copy, non-recursive MessagePack reader with depth
//!   and count limits, and a [`msgpack::Visitor`] walk.
//! - [`metadata`]: typed views of the v3+ `NT_AMDGPU_METADATA` map and of the
//!   v2 notes and `amd_kernel_code_t`.
//! - [`target`]: target IDs (`amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`),
//!   and whether a code object can run on an agent ISA (ROCr's rules).
//! - [`Error`]: the small `Copy` error every function returns: what went
//!   wrong, and where.
#![no_std]
#![deny(unsafe_code)]

#[cfg(any(feature = "decompress", feature = "loader"))]
extern crate alloc;

#[macro_use]
mod fmt;

pub mod bundle;
pub mod bytes;
pub mod elf;
pub mod error;
#[cfg(feature = "loader")]
pub mod goblin_view;
pub mod kernel_descriptor;
pub mod load;
pub mod metadata;
pub mod msgpack;
pub mod note;
pub mod processor;
pub mod target;

pub use error::{Error, ErrorKind, Location, Result};
