//! The decoder: encoding class from the first dword, the class table's
//! entry for the opcode, then the operands of the entry's slots.

use crate::operand::{self, Operand};
use crate::processor::Processor;
use crate::table::{self, Field, Kind, OpInfo};
use crate::tables;

/// The encoding classes of GFX9 (AMDGPUAsmGFX90a.rst, "Instructions").
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Encoding {
    Sop1,
    Sop2,
    Sopk,
    Sopc,
    Sopp,
    Smem,
    Vop1,
    Vop2,
    Vopc,
    /// VOP3 (a and b).
    Vop3,
    /// VOP3P, including MAI (MFMA, `v_accvgpr_*`).
    Vop3p,
    /// VOP1/VOP2/VOPC with the SDWA dword.
    Sdwa,
    /// VOP1/VOP2 with the DPP dword.
    Dpp,
    Ds,
    /// FLAT, GLOBAL and SCRATCH.
    Flat,
    Mubuf,
    Mtbuf,
    /// MIMG, EXP, VINTRP: graphics encodings this decoder does not handle.
    Graphics,
}

/// Why a position does not hold a valid instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DecodeErrorKind {
    /// Fewer bytes than the encoding needs.
    Truncated,
    /// No instruction has this opcode in this class on this processor.
    UnknownOpcode,
    /// Bits this opcode requires to be zero are set.
    ReservedBits,
    /// An operand field names nothing valid (for example `m0` read as 64 bits).
    InvalidOperand(crate::table::Field),
    /// An encoding class the decoder does not handle.
    UnsupportedEncoding,
}

/// A decoding failure: which encoding, which opcode, the words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DecodeError {
    /// The encoding class the first dword selects.
    pub encoding: Encoding,
    /// The opcode field's value.
    pub opcode: u16,
    /// The dwords read (zero past the input).
    pub words: [u32; 3],
    /// What was wrong.
    pub kind: DecodeErrorKind,
}

impl core::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{:?} opcode {:#x} [{:08X}",
            self.encoding, self.opcode, self.words[0]
        )?;
        if self.words[1] != 0 {
            write!(f, " {:08X}", self.words[1])?;
        }
        f.write_str("]: ")?;
        match self.kind {
            DecodeErrorKind::Truncated => f.write_str("instruction runs past the end of the code"),
            DecodeErrorKind::UnknownOpcode => f.write_str("no instruction has this opcode"),
            DecodeErrorKind::ReservedBits => f.write_str("bits that must be zero are set"),
            DecodeErrorKind::InvalidOperand(field) => write!(f, "invalid {field:?} operand"),
            DecodeErrorKind::UnsupportedEncoding => f.write_str("encoding class not supported"),
        }
    }
}

/// Output modifiers and the memory and data-parallel fields of an
/// instruction, decoded once (fields not in the encoding are zero).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Modifiers {
    /// Negate bit per source (bit i = source i); VOP3P: `neg_lo`.
    pub neg: u8,
    /// Absolute-value bit per source; VOP3P: `neg_hi`.
    pub abs: u8,
    /// Clamp the result.
    pub clamp: bool,
    /// Output modifier: 0 none, 1 `mul:2`, 2 `mul:4`, 3 `div:2`.
    pub omod: u8,
    /// `op_sel` bits (bit 3: destination).
    pub op_sel: u8,
    /// `op_sel_hi` bits.
    pub op_sel_hi: u8,
    /// Cache policy: bit 0 `glc`/`sc0`, bit 1 `slc`/`nt`, bit 2 `scc`/`sc1`.
    pub cache: u8,
    /// Memory offset: DS `offset0 | offset1 << 8`.
    pub offset: i32,
    /// DS `gds`.
    pub gds: bool,
    /// MUBUF/MTBUF `offen`: the address VGPR holds an offset.
    pub offen: bool,
    /// MUBUF/MTBUF `idxen`: the address VGPR holds an index.
    pub idxen: bool,
    /// MUBUF `tfe`.
    pub tfe: bool,
    /// MTBUF data format (`dfmt`, low 4 bits) and number format (`nfmt`,
    /// bits 4..7).
    pub format: u8,
    /// MAI `cbsz` (broadcast block size).
    pub cbsz: u8,
    /// MAI `abid` (broadcast block id).
    pub abid: u8,
    /// MAI `blgp` (B-matrix lane group pattern; `neg` on gfx940 f64 MFMA).
    pub blgp: u8,
    /// SDWA `dst_sel`, `dst_unused`, `src0_sel`, `src1_sel` (in that order).
    pub sdwa_sel: [u8; 4],
    /// SDWA sign extension per source (bit i = source i).
    pub sext: u8,
    /// DPP control (`quad_perm`, `row_shl`, ...).
    pub dpp_ctrl: u16,
    /// DPP `row_mask`.
    pub row_mask: u8,
    /// DPP `bank_mask`.
    pub bank_mask: u8,
    /// DPP `bound_ctrl`.
    pub bound_ctrl: bool,
}

/// A decoded instruction: the operation, its operands in print order and
/// its modifiers. Compact (`Copy`, no references but the static table
/// entry) so a code object is decoded once and run from these.
#[derive(Clone, Copy, Debug)]
pub struct Instruction {
    info: &'static OpInfo,
    processor: Processor,
    encoding: Encoding,
    len: u8,
    operands: [Operand; 6],
    mods: Modifiers,
    /// The encoding's first two dwords (class-specific fields).
    raw: u64,
    /// The literal or third dword, if any.
    extra: u32,
}

impl Instruction {
    /// The operation.
    pub fn opcode(&self) -> tables::Opcode {
        self.info.op
    }

    /// The mnemonic as printed (with the encoding suffix where LLVM prints one).
    pub fn mnemonic(&self) -> &'static str {
        self.info.name
    }

    /// The encoding class.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Size in bytes (4, 8 or 12).
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Never true: an instruction has at least one dword.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The operands in print order, with the field each comes from.
    pub fn operands(&self) -> impl Iterator<Item = (Field, Operand)> + '_ {
        self.info
            .slots
            .iter()
            .zip(self.operands.iter())
            .map(|(s, o)| (s.field, *o))
    }

    /// The operand of `field`, if the instruction has it.
    pub fn operand(&self, field: Field) -> Option<Operand> {
        self.operands().find(|(f, _)| *f == field).map(|(_, o)| o)
    }

    /// The modifiers.
    pub fn modifiers(&self) -> &Modifiers {
        &self.mods
    }

    /// The encoding's first 64 bits (little-endian dwords).
    pub fn raw(&self) -> u64 {
        self.raw
    }

    /// The processor the instruction was decoded for.
    pub fn processor(&self) -> Processor {
        self.processor
    }

    pub(crate) fn operands_raw(&self) -> &[Operand; 6] {
        &self.operands
    }

    pub(crate) fn info(&self) -> &'static OpInfo {
        self.info
    }

    #[allow(dead_code)]
    pub(crate) fn extra(&self) -> u32 {
        self.extra
    }
}

/// Decodes GFX9 machine code for one processor.
#[derive(Clone, Copy, Debug)]
pub struct Decoder {
    processor: Processor,
}

fn bits(v: u64, lo: u32, width: u32) -> u16 {
    ((v >> lo) & ((1 << width) - 1)) as u16
}

impl Decoder {
    /// A decoder for `processor`'s encodings.
    pub fn new(processor: Processor) -> Decoder {
        Decoder { processor }
    }

    /// The processor.
    pub fn processor(&self) -> Processor {
        self.processor
    }

    /// Decodes the instruction at the start of `code`.
    pub fn decode(&self, code: &[u8]) -> Result<Instruction, DecodeError> {
        let word = |i: usize| -> Option<u32> {
            let b = code.get(i * 4..i * 4 + 4)?;
            Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let words = [
            word(0).unwrap_or(0),
            word(1).unwrap_or(0),
            word(2).unwrap_or(0),
        ];
        let w0 = match word(0) {
            Some(w) => w,
            None => {
                return Err(DecodeError {
                    encoding: Encoding::Sopp,
                    opcode: 0,
                    words,
                    kind: DecodeErrorKind::Truncated,
                });
            }
        };
        let (encoding, table, code_field, dwords): (Encoding, &'static [OpInfo], u16, usize) =
            match w0 >> 26 {
                0x2F if w0 >> 23 == 0x17D => {
                    (Encoding::Sop1, &tables::SOP1, bits(w0.into(), 8, 8), 1)
                }
                0x2F if w0 >> 23 == 0x17E => {
                    (Encoding::Sopc, &tables::SOPC, bits(w0.into(), 16, 7), 1)
                }
                0x2F if w0 >> 23 == 0x17F => {
                    (Encoding::Sopp, &tables::SOPP, bits(w0.into(), 16, 7), 1)
                }
                0x2C..=0x2F => (Encoding::Sopk, &tables::SOPK, bits(w0.into(), 23, 5), 1),
                0x20..=0x2B => (Encoding::Sop2, &tables::SOP2, bits(w0.into(), 23, 7), 1),
                0x30 => (Encoding::Smem, &tables::SMEM, bits(w0.into(), 18, 8), 2),
                0x1F if w0 >> 25 == 0x3F => {
                    (Encoding::Vop1, &tables::VOP1, bits(w0.into(), 9, 8), 1)
                }
                0x1F if w0 >> 25 == 0x3E => {
                    (Encoding::Vopc, &tables::VOPC, bits(w0.into(), 17, 8), 1)
                }
                0x00..=0x1F => (Encoding::Vop2, &tables::VOP2, bits(w0.into(), 25, 6), 1),
                0x34 if w0 >> 23 == 0x1A7 => {
                    (Encoding::Vop3p, &tables::VOP3P, bits(w0.into(), 16, 7), 2)
                }
                0x34 => (Encoding::Vop3, &tables::VOP3, bits(w0.into(), 16, 10), 2),
                0x36 => (Encoding::Ds, &tables::DS, bits(w0.into(), 17, 8), 2),
                // FLAT/GLOBAL/SCRATCH: the table variant is the segment, bit
                // 13 (lds, or gfx940 scratch `sve`), `saddr` = off, and glc
                // (it selects the returning atomics).
                0x37 => {
                    let w = u64::from(w0) | (u64::from(words[1]) << 32);
                    let variant = bits(w, 14, 2)
                        | bits(w, 13, 1) << 2
                        | u16::from(bits(w, 48, 7) == 0x7F) << 3
                        | bits(w, 16, 1) << 4;
                    let code = bits(w, 18, 7) | variant << 10;
                    (Encoding::Flat, &tables::FLAT, code, 2)
                }
                // MUBUF: offen, idxen and lds select the form.
                0x38 => {
                    let w = u64::from(w0);
                    let variant = bits(w, 12, 1) | bits(w, 13, 1) << 1 | bits(w, 16, 1) << 2;
                    (
                        Encoding::Mubuf,
                        &tables::MUBUF,
                        bits(w, 18, 7) | variant << 10,
                        2,
                    )
                }
                0x3A => {
                    let w = u64::from(w0);
                    let variant = bits(w, 12, 1) | bits(w, 13, 1) << 1;
                    (
                        Encoding::Mtbuf,
                        &tables::MTBUF,
                        bits(w, 15, 4) | variant << 10,
                        2,
                    )
                }
                _ => {
                    return Err(self.error(
                        Encoding::Graphics,
                        0,
                        words,
                        DecodeErrorKind::UnsupportedEncoding,
                    ));
                }
            };
        // VOP1/VOP2/VOPC with src0 selecting the SDWA or DPP dword: the
        // extension's table, variant by the VOP encoding it extends.
        let (encoding, table, code_field, dwords) =
            if matches!(encoding, Encoding::Vop1 | Encoding::Vop2 | Encoding::Vopc)
                && matches!(w0 & 0x1FF, 249 | 250)
            {
                let variant: u16 = match encoding {
                    Encoding::Vop1 => 0,
                    Encoding::Vop2 => 1,
                    _ => 2,
                };
                if w0 & 0x1FF == 249 {
                    (
                        Encoding::Sdwa,
                        &tables::SDWA[..],
                        code_field | variant << 10,
                        2,
                    )
                } else {
                    (
                        Encoding::Dpp,
                        &tables::DPP[..],
                        code_field | variant << 10,
                        2,
                    )
                }
            } else {
                (encoding, table, code_field, dwords)
            };
        let err = |kind| self.error(encoding, code_field & 0x3FF, words, kind);
        if dwords == 2 && word(1).is_none() {
            return Err(err(DecodeErrorKind::Truncated));
        }
        let info = table::lookup(table, code_field, self.processor.bit())
            .ok_or_else(|| err(DecodeErrorKind::UnknownOpcode))?;
        let raw = if dwords == 2 {
            u64::from(w0) | (u64::from(words[1]) << 32)
        } else {
            u64::from(w0)
        };
        if raw & info.must_zero != 0 {
            return Err(err(DecodeErrorKind::ReservedBits));
        }
        let mut inst = Instruction {
            info,
            processor: self.processor,
            encoding,
            len: (dwords * 4) as u8,
            operands: [Operand::None; 6],
            mods: Modifiers::default(),
            raw,
            extra: 0,
        };
        let mut literal = false;
        let tfe = info.mods & table::mods::TFE != 0 && bits(raw, 55, 1) != 0;
        for (i, slot) in info.slots.iter().enumerate() {
            let w = slot.width;
            let op = match (encoding, slot.field) {
                (_, Field::Fixed) if slot.kind == Kind::Off => Some(Operand::None),
                (_, Field::Fixed) => Some(Operand::Special {
                    reg: operand::SpecialReg::VccLo,
                    count: 2,
                }),
                (_, Field::Literal) => {
                    literal = true;
                    Some(Operand::Imm(0))
                }
                (Encoding::Sop2 | Encoding::Sopk | Encoding::Sop1, Field::Sdst) => {
                    operand::scalar(bits(raw, 16, 7), w)
                }
                (Encoding::Sop2 | Encoding::Sop1 | Encoding::Sopc, Field::Ssrc0) => {
                    self.src_or_literal(bits(raw, 0, 8), w, &mut literal)
                }
                (Encoding::Sopc, Field::Ssrc1) if matches!(slot.kind, Kind::Simm(_)) => {
                    Some(Operand::Imm(u32::from(bits(raw, 8, 8))))
                }
                (Encoding::Sop2 | Encoding::Sopc, Field::Ssrc1) => {
                    self.src_or_literal(bits(raw, 8, 8), w, &mut literal)
                }
                (Encoding::Sopk | Encoding::Sopp, Field::Simm16) => {
                    Some(Operand::Imm(u32::from(bits(raw, 0, 16))))
                }
                (Encoding::Smem, Field::Sdata) if slot.kind == Kind::Dec => {
                    Some(Operand::Imm(u32::from(bits(raw, 6, 7))))
                }
                (Encoding::Smem, Field::Sdata) => operand::scalar(bits(raw, 6, 7), w),
                (Encoding::Smem, Field::Sbase) => operand::scalar(bits(raw, 0, 6) * 2, w),
                (Encoding::Smem, Field::SmemOffset) => self.smem_offset(raw),
                (Encoding::Vop1 | Encoding::Vop2, Field::Vdst) => {
                    self.vdst(slot.kind, bits(raw, 17, 8), w)
                }
                (Encoding::Vop2 | Encoding::Vopc, Field::Vsrc1) => {
                    operand::vector(bits(raw, 9, 8), w, false)
                }
                // `v_accvgpr_mov_b32`: src0 names an AGPR (codes 256-511).
                (Encoding::Vop1, Field::Src0) if slot.kind == Kind::Agpr => {
                    let code = bits(raw, 0, 9);
                    if code >= 256 {
                        operand::vector(code - 256, w, true)
                    } else {
                        None
                    }
                }
                (Encoding::Vop1 | Encoding::Vop2 | Encoding::Vopc, Field::Src0) => {
                    self.src_or_literal(bits(raw, 0, 9), w, &mut literal)
                }
                (Encoding::Ds, Field::Vdst) => operand::vector(bits(raw, 56, 8), w, false),
                (Encoding::Ds, Field::Addr) => operand::vector(bits(raw, 32, 8), w, false),
                (Encoding::Ds, Field::Data0) => operand::vector(bits(raw, 40, 8), w, false),
                (Encoding::Ds, Field::Data1) => operand::vector(bits(raw, 48, 8), w, false),
                (Encoding::Flat | Encoding::Mubuf | Encoding::Mtbuf, Field::Vaddr) => {
                    operand::vector(bits(raw, 32, 8), w, false)
                }
                // `tfe` returns one more dword.
                (Encoding::Flat | Encoding::Mubuf | Encoding::Mtbuf, Field::Vdata) => {
                    operand::vector(bits(raw, 40, 8), w + u8::from(tfe), false)
                }
                (Encoding::Flat, Field::Vdst) => operand::vector(bits(raw, 56, 8), w, false),
                (Encoding::Flat, Field::Saddr) => operand::scalar(bits(raw, 48, 7), w),
                (Encoding::Mubuf | Encoding::Mtbuf, Field::Srsrc) => {
                    operand::scalar(bits(raw, 48, 5) * 4, w)
                }
                (Encoding::Mubuf | Encoding::Mtbuf, Field::Soffset) => {
                    operand::scalar(bits(raw, 56, 8), w)
                }
                (Encoding::Vop3p, Field::Vdst) => self.vdst(slot.kind, bits(raw, 0, 8), w),
                (Encoding::Vop3p, Field::Src0 | Field::Src1 | Field::Src2) => {
                    let lo = match slot.field {
                        Field::Src0 => 32,
                        Field::Src1 => 41,
                        _ => 50,
                    };
                    let code = bits(raw, lo, 9);
                    match slot.kind {
                        Kind::Agpr if code >= 256 => operand::vector(code - 256, w, true),
                        Kind::Agpr => None,
                        _ => operand::source(code, w),
                    }
                }
                (Encoding::Sdwa | Encoding::Dpp, Field::Vdst) => {
                    operand::vector(bits(raw, 17, 8), w, false)
                }
                // SDWA `s0`/`s1`: the source is an SGPR or constant code.
                (Encoding::Sdwa, Field::Src0) if bits(raw, 55, 1) != 0 => {
                    operand::scalar(bits(raw, 32, 8), w)
                }
                (Encoding::Sdwa | Encoding::Dpp, Field::Src0) => {
                    operand::vector(bits(raw, 32, 8), w, false)
                }
                (Encoding::Sdwa, Field::Vsrc1) if bits(raw, 63, 1) != 0 => {
                    operand::scalar(bits(raw, 9, 8), w)
                }
                (Encoding::Sdwa | Encoding::Dpp, Field::Vsrc1) => {
                    operand::vector(bits(raw, 9, 8), w, false)
                }
                // SDWA VOPC: `sd` selects an SGPR destination over vcc.
                (Encoding::Sdwa, Field::Sdst) if bits(raw, 47, 1) != 0 => {
                    operand::scalar(bits(raw, 40, 7), w)
                }
                (Encoding::Sdwa, Field::Sdst) => Some(Operand::Special {
                    reg: operand::SpecialReg::VccLo,
                    count: 2,
                }),
                (Encoding::Vop3, Field::Vdst) => self.vdst(slot.kind, bits(raw, 0, 8), w),
                (Encoding::Vop3, Field::Sdst) => operand::scalar(bits(raw, 8, 7), w),
                (Encoding::Vop3, Field::Src0) => operand::source(bits(raw, 32, 9), w),
                (Encoding::Vop3, Field::Src1) => operand::source(bits(raw, 41, 9), w),
                (Encoding::Vop3, Field::Src2) => operand::source(bits(raw, 50, 9), w),
                _ => None,
            };
            let mut op = op.ok_or_else(|| err(DecodeErrorKind::InvalidOperand(slot.field)))?;
            // gfx90a `acc` bits: data/destination (DS, FLAT, MUBUF, MTBUF),
            // MAI `acc_cd` and A/B `acc` name AGPRs instead of VGPRs.
            if slot.acc != 0 && bits(raw, u32::from(slot.acc), 1) != 0 {
                if let Operand::Vgpr { index, count } = op {
                    op = Operand::Agpr { index, count };
                }
            }
            inst.operands[i] = op;
        }
        if literal {
            let at = usize::from(inst.len) / 4;
            let lit = word(at).ok_or_else(|| err(DecodeErrorKind::Truncated))?;
            inst.extra = lit;
            inst.len += 4;
            for (slot, op) in info.slots.iter().zip(inst.operands.iter_mut()) {
                match (slot.field, op) {
                    (Field::Literal, op) => *op = Operand::Imm(lit),
                    (_, op @ Operand::Literal(_)) => *op = Operand::Literal(lit),
                    _ => {}
                }
            }
        }
        if encoding == Encoding::Vop3 {
            inst.mods = Modifiers {
                neg: bits(raw, 61, 3) as u8,
                abs: if info.slots.iter().any(|s| s.field == Field::Sdst) {
                    0
                } else {
                    bits(raw, 8, 3) as u8
                },
                clamp: bits(raw, 15, 1) != 0,
                omod: bits(raw, 59, 2) as u8,
                op_sel: bits(raw, 11, 4) as u8,
                op_sel_hi: 0,
                ..Modifiers::default()
            };
        } else if encoding == Encoding::Ds {
            inst.mods.offset = i32::from(bits(raw, 0, 16));
            inst.mods.gds = bits(raw, 16, 1) != 0;
        } else if encoding == Encoding::Smem {
            inst.mods.cache = bits(raw, 16, 1) as u8;
        } else {
            self.class_modifiers(&mut inst, raw).map_err(err)?;
        }
        Ok(inst)
    }

    /// Modifiers of VOP3P, SDWA, DPP and the memory classes.
    fn class_modifiers(&self, inst: &mut Instruction, raw: u64) -> Result<(), DecodeErrorKind> {
        let info = inst.info;
        let m = &mut inst.mods;
        let cache = |glc: u32, slc: u32, scc: u32| {
            (bits(raw, glc, 1) | bits(raw, slc, 1) << 1 | bits(raw, scc, 1) << 2) as u8
        };
        match inst.encoding {
            Encoding::Flat => {
                let off = bits(raw, 0, 13);
                m.offset = if info.mods & table::mods::OFFSET_SIGNED != 0 {
                    i32::from(((off << 3) as i16) >> 3)
                } else {
                    i32::from(off)
                };
                m.cache = cache(16, 17, 25);
            }
            Encoding::Mubuf | Encoding::Mtbuf => {
                m.offset = i32::from(bits(raw, 0, 12));
                m.offen = bits(raw, 12, 1) != 0;
                m.idxen = bits(raw, 13, 1) != 0;
                m.tfe = info.mods & table::mods::TFE != 0 && bits(raw, 55, 1) != 0;
                if inst.encoding == Encoding::Mubuf {
                    m.cache = cache(14, 17, 15);
                } else {
                    m.cache = cache(14, 54, 53);
                    m.format = (bits(raw, 19, 4) | bits(raw, 23, 3) << 4) as u8;
                }
            }
            Encoding::Vop3p => {
                m.neg = bits(raw, 61, 3) as u8;
                m.abs = bits(raw, 8, 3) as u8;
                m.op_sel = bits(raw, 11, 3) as u8;
                m.op_sel_hi = (bits(raw, 59, 2) | bits(raw, 14, 1) << 2) as u8;
                m.clamp = info.mods & table::mods::CLAMP != 0 && bits(raw, 15, 1) != 0;
                m.cbsz = bits(raw, 8, 3) as u8;
                m.abid = bits(raw, 11, 4) as u8;
                m.blgp = bits(raw, 61, 3) as u8;
            }
            Encoding::Sdwa => {
                m.sdwa_sel = [
                    bits(raw, 40, 3) as u8,
                    bits(raw, 43, 2) as u8,
                    bits(raw, 48, 3) as u8,
                    bits(raw, 56, 3) as u8,
                ];
                let sel_ok = |s: u8| s <= 6;
                let vopc = info.slots.iter().any(|s| s.field == Field::Sdst);
                if !vopc && (!sel_ok(m.sdwa_sel[0]) || m.sdwa_sel[1] > 2) {
                    return Err(DecodeErrorKind::InvalidOperand(Field::Vdst));
                }
                if !sel_ok(m.sdwa_sel[2]) || !sel_ok(m.sdwa_sel[3]) {
                    return Err(DecodeErrorKind::InvalidOperand(Field::Src0));
                }
                if !vopc {
                    m.clamp = bits(raw, 45, 1) != 0;
                    m.omod = bits(raw, 46, 2) as u8;
                }
                m.sext = (bits(raw, 51, 1) | bits(raw, 59, 1) << 1) as u8;
                m.neg = (bits(raw, 52, 1) | bits(raw, 60, 1) << 1) as u8;
                m.abs = (bits(raw, 53, 1) | bits(raw, 61, 1) << 1) as u8;
            }
            Encoding::Dpp => {
                m.dpp_ctrl = bits(raw, 40, 9);
                m.bound_ctrl = bits(raw, 51, 1) != 0;
                m.neg = (bits(raw, 52, 1) | bits(raw, 54, 1) << 1) as u8;
                m.abs = (bits(raw, 53, 1) | bits(raw, 55, 1) << 1) as u8;
                m.bank_mask = bits(raw, 56, 4) as u8;
                m.row_mask = bits(raw, 60, 4) as u8;
            }
            _ => {}
        }
        Ok(())
    }

    fn error(
        &self,
        encoding: Encoding,
        opcode: u16,
        words: [u32; 3],
        kind: DecodeErrorKind,
    ) -> DecodeError {
        DecodeError {
            encoding,
            opcode,
            words,
            kind,
        }
    }

    /// A source that may be the literal: the value is filled in once the
    /// literal dword is read.
    fn src_or_literal(&self, code: u16, width: u8, literal: &mut bool) -> Option<Operand> {
        if code == operand::LITERAL {
            *literal = true;
            return Some(Operand::Literal(0));
        }
        operand::source(code, width)
    }

    fn vdst(&self, kind: Kind, code: u16, width: u8) -> Option<Operand> {
        match kind {
            Kind::Sgpr => operand::scalar(code, width),
            Kind::Agpr => operand::vector(code, width, true),
            _ => operand::vector(code, width, false),
        }
    }

    /// SMEM offset (gfx9): `imm` selects an immediate, `soe` an SGPR in the
    /// high bits; with neither, the offset field names an SGPR.
    fn smem_offset(&self, raw: u64) -> Option<Operand> {
        let imm = bits(raw, 17, 1) != 0;
        let soe = bits(raw, 14, 1) != 0;
        match (imm, soe) {
            (true, _) => Some(Operand::Imm(
                ((((raw >> 32) as u32) << 11) as i32 >> 11) as u32,
            )),
            (false, true) => operand::scalar(bits(raw, 57, 7), 1),
            (false, false) => operand::scalar(bits(raw, 32, 7), 1),
        }
    }

    /// Decodes every instruction of `code` in order. After an invalid
    /// word the walk resumes at the next dword, as llvm-objdump does.
    pub fn decode_all<'a>(&self, code: &'a [u8]) -> DecodeAll<'a> {
        DecodeAll {
            decoder: *self,
            code,
            offset: 0,
        }
    }
}

/// Iterator of [`Decoder::decode_all`]: `(byte offset, result)`.
#[derive(Clone, Debug)]
pub struct DecodeAll<'a> {
    decoder: Decoder,
    code: &'a [u8],
    offset: usize,
}

impl Iterator for DecodeAll<'_> {
    type Item = (usize, Result<Instruction, DecodeError>);

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.code.get(self.offset..)?;
        if rest.is_empty() {
            return None;
        }
        let at = self.offset;
        let r = self.decoder.decode(rest);
        self.offset += match &r {
            Ok(i) => i.len(),
            Err(_) => 4.min(rest.len()),
        };
        Some((at, r))
    }
}

/// Decodes every instruction of `code` for `processor`.
pub fn decode_all(processor: Processor, code: &[u8]) -> DecodeAll<'_> {
    Decoder::new(processor).decode_all(code)
}
