//! A decoder and disassembler for GFX9 AMDGPU machine code (gfx90a first;
//! gfx900, gfx906, gfx908 and gfx942 where their encodings agree), printing
//! LLVM's assembly syntax exactly as `llvm-objdump-19 -d` does.
//!
//! - [`Decoder`] turns bytes into [`Instruction`]s: a compact, `Copy`
//!   pre-decoded form (operation id, resolved [`Operand`]s, [`Modifiers`])
//!   that an interpreter runs without decoding again;
//! - `Display` of an [`Instruction`] is LLVM's text;
//! - [`listing`] prints a code object's kernel as llvm-objdump does.
//!
//! The decoder is table-driven: [`tables`] holds one table per encoding
//! class (opcode → mnemonic, operand slots with their kinds and widths,
//! bits that must be zero, modifiers, processors), generated once by
//! `isa/tools` from probes of LLVM 19's disassembler and checked against
//! llvm-objdump-19 and llvm-mc-19 by the tests. Bad words give a typed
//! [`DecodeError`]; nothing panics and nothing allocates.
#![no_std]
#![deny(unsafe_code)]

pub mod decode;
pub mod listing;
pub mod operand;
mod print;
pub mod processor;
pub mod table;
#[allow(clippy::all)]
pub mod tables;

pub use decode::{
    DecodeAll, DecodeError, DecodeErrorKind, Decoder, Encoding, Instruction, Modifiers, decode_all,
};
pub use operand::{FloatConst, Operand, SpecialReg};
pub use processor::Processor;
pub use table::Field;
pub use tables::Opcode;

impl Opcode {
    /// The operation's LLVM mnemonic without encoding suffix.
    pub fn name(self) -> &'static str {
        tables::OPCODE_NAMES[self as usize]
    }
}
