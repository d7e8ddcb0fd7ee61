//! Operands: registers, inline constants and literals, resolved from the
//! encoding's operand codes once, at decode time (AMDGPUAsmGFX90a.rst,
//! "Operands"; SIRegisterInfo.td for the register numbering).

use core::fmt;

/// A decoded operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// No operand (an unused slot).
    None,
    /// Scalar registers `s[index .. index + count]`.
    Sgpr {
        /// First register.
        index: u8,
        /// Number of dwords.
        count: u8,
    },
    /// Vector registers `v[index .. index + count]`.
    Vgpr {
        /// First register.
        index: u8,
        /// Number of dwords.
        count: u8,
    },
    /// Accumulation registers `a[index .. index + count]` (gfx908+).
    Agpr {
        /// First register.
        index: u8,
        /// Number of dwords.
        count: u8,
    },
    /// Trap temporaries `ttmp[index .. index + count]`.
    Ttmp {
        /// First register.
        index: u8,
        /// Number of dwords.
        count: u8,
    },
    /// A named special register; `count` 2 names the 64-bit pair
    /// (`vcc` rather than `vcc_lo`).
    Special {
        /// The register (the low half for pairs).
        reg: SpecialReg,
        /// Number of dwords.
        count: u8,
    },
    /// An inline integer constant, -16 to 64.
    Int(i8),
    /// An inline float constant.
    Float(FloatConst),
    /// A 32-bit literal constant that follows the instruction.
    Literal(u32),
    /// An immediate field (offsets, 16-bit immediates).
    Imm(u32),
}

/// Scalar operand codes with a name (SIRegisterInfo.td).
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SpecialReg {
    FlatScratchLo,
    FlatScratchHi,
    XnackMaskLo,
    XnackMaskHi,
    VccLo,
    VccHi,
    M0,
    Null,
    ExecLo,
    ExecHi,
    SharedBase,
    SharedLimit,
    PrivateBase,
    PrivateLimit,
    PopsExitingWaveId,
    Vccz,
    Execz,
    Scc,
    LdsDirect,
}

/// The inline float constants, by operand code 240..=248.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FloatConst {
    Half,
    MinusHalf,
    One,
    MinusOne,
    Two,
    MinusTwo,
    Four,
    MinusFour,
    /// 1 / (2 * pi).
    InvTwoPi,
}

impl FloatConst {
    /// The constant's f32 bits.
    pub fn f32_bits(self) -> u32 {
        match self {
            FloatConst::Half => 0x3f00_0000,
            FloatConst::MinusHalf => 0xbf00_0000,
            FloatConst::One => 0x3f80_0000,
            FloatConst::MinusOne => 0xbf80_0000,
            FloatConst::Two => 0x4000_0000,
            FloatConst::MinusTwo => 0xc000_0000,
            FloatConst::Four => 0x4080_0000,
            FloatConst::MinusFour => 0xc080_0000,
            FloatConst::InvTwoPi => 0x3e22_f983,
        }
    }

    /// The constant's f16 bits.
    pub fn f16_bits(self) -> u16 {
        match self {
            FloatConst::Half => 0x3800,
            FloatConst::MinusHalf => 0xb800,
            FloatConst::One => 0x3c00,
            FloatConst::MinusOne => 0xbc00,
            FloatConst::Two => 0x4000,
            FloatConst::MinusTwo => 0xc000,
            FloatConst::Four => 0x4400,
            FloatConst::MinusFour => 0xc400,
            FloatConst::InvTwoPi => 0x3118,
        }
    }

    /// The constant's f64 bits.
    pub fn f64_bits(self) -> u64 {
        match self {
            FloatConst::InvTwoPi => 0x3fc4_5f30_6dc9_c882,
            other => f64::from(f32::from_bits(other.f32_bits())).to_bits(),
        }
    }

    /// The text LLVM prints for the constant as a float operand.
    pub(crate) fn text(self, wide: bool) -> &'static str {
        match self {
            FloatConst::Half => "0.5",
            FloatConst::MinusHalf => "-0.5",
            FloatConst::One => "1.0",
            FloatConst::MinusOne => "-1.0",
            FloatConst::Two => "2.0",
            FloatConst::MinusTwo => "-2.0",
            FloatConst::Four => "4.0",
            FloatConst::MinusFour => "-4.0",
            FloatConst::InvTwoPi if wide => "0.15915494309189532",
            FloatConst::InvTwoPi => "0.15915494",
        }
    }
}

/// Operand code of a literal constant.
pub(crate) const LITERAL: u16 = 255;

/// Resolves a scalar operand code (SSRC / SDST, 0..=254, not the literal)
/// read as `width` dwords; `None` if the code names nothing of that width.
pub(crate) fn scalar(code: u16, width: u8) -> Option<Operand> {
    use SpecialReg::*;
    let pair = |reg, lo_code: u16| match width {
        1 => Some(Operand::Special { reg, count: 1 }),
        2 if code == lo_code => Some(Operand::Special { reg, count: 2 }),
        _ => None,
    };
    let single = |reg| (width == 1).then_some(Operand::Special { reg, count: 1 });
    let any = |reg| Some(Operand::Special { reg, count: width });
    let align = |i: u16| -> u16 {
        match width {
            1 => i,
            2 => i & !1,
            _ => i & !3,
        }
    };
    match code {
        0..=101 => {
            let index = align(code);
            (index + u16::from(width) <= 106).then_some(Operand::Sgpr {
                index: index as u8,
                count: width,
            })
        }
        102 => pair(FlatScratchLo, 102),
        103 => pair(FlatScratchHi, 102),
        104 => pair(XnackMaskLo, 104),
        105 => pair(XnackMaskHi, 104),
        106 => pair(VccLo, 106),
        107 => pair(VccHi, 106),
        108..=123 => {
            let index = align(code - 108);
            (index + u16::from(width) <= 16).then_some(Operand::Ttmp {
                index: index as u8,
                count: width,
            })
        }
        124 => single(M0),
        125 => any(Null),
        126 => pair(ExecLo, 126),
        127 => pair(ExecHi, 126),
        128..=192 => Some(Operand::Int((code - 128) as i8)),
        193..=208 => Some(Operand::Int(-((code - 192) as i8))),
        235 => any(SharedBase),
        236 => any(SharedLimit),
        237 => any(PrivateBase),
        238 => any(PrivateLimit),
        239 => any(PopsExitingWaveId),
        240..=248 => Some(Operand::Float(match code {
            240 => FloatConst::Half,
            241 => FloatConst::MinusHalf,
            242 => FloatConst::One,
            243 => FloatConst::MinusOne,
            244 => FloatConst::Two,
            245 => FloatConst::MinusTwo,
            246 => FloatConst::Four,
            247 => FloatConst::MinusFour,
            _ => FloatConst::InvTwoPi,
        })),
        251 => any(Vccz),
        252 => any(Execz),
        253 => any(Scc),
        254 => single(LdsDirect),
        _ => None,
    }
}

/// Resolves a 9-bit source operand code (not the literal) as `width` dwords.
pub(crate) fn source(code: u16, width: u8) -> Option<Operand> {
    if code >= 256 {
        vector(code - 256, width, false)
    } else {
        scalar(code, width)
    }
}

/// `width` VGPRs (or AGPRs) from `index`; `None` past register 255.
pub(crate) fn vector(index: u16, width: u8, agpr: bool) -> Option<Operand> {
    if index + u16::from(width) > 256 {
        return None;
    }
    let index = index as u8;
    Some(if agpr {
        Operand::Agpr {
            index,
            count: width,
        }
    } else {
        Operand::Vgpr {
            index,
            count: width,
        }
    })
}

fn range(f: &mut fmt::Formatter<'_>, prefix: &str, index: u8, count: u8) -> fmt::Result {
    if count == 1 {
        write!(f, "{prefix}{index}")
    } else {
        let last = u16::from(index) + u16::from(count) - 1;
        write!(f, "{prefix}[{index}:{last}]")
    }
}

impl SpecialReg {
    /// LLVM's name of the register, or of the pair it starts when `pair`.
    pub fn name(self, pair: bool) -> &'static str {
        use SpecialReg::*;
        match (self, pair) {
            (FlatScratchLo, true) => "flat_scratch",
            (FlatScratchLo, false) => "flat_scratch_lo",
            (FlatScratchHi, _) => "flat_scratch_hi",
            (XnackMaskLo, true) => "xnack_mask",
            (XnackMaskLo, false) => "xnack_mask_lo",
            (XnackMaskHi, _) => "xnack_mask_hi",
            (VccLo, true) => "vcc",
            (VccLo, false) => "vcc_lo",
            (VccHi, _) => "vcc_hi",
            (M0, _) => "m0",
            (Null, _) => "null",
            (ExecLo, true) => "exec",
            (ExecLo, false) => "exec_lo",
            (ExecHi, _) => "exec_hi",
            (SharedBase, _) => "src_shared_base",
            (SharedLimit, _) => "src_shared_limit",
            (PrivateBase, _) => "src_private_base",
            (PrivateLimit, _) => "src_private_limit",
            (PopsExitingWaveId, _) => "src_pops_exiting_wave_id",
            (Vccz, _) => "src_vccz",
            (Execz, _) => "src_execz",
            (Scc, _) => "src_scc",
            (LdsDirect, _) => "src_lds_direct",
        }
    }
}

/// Prints registers; constants print through [`crate::print`], which knows
/// the operand type.
pub(crate) fn fmt_register(op: &Operand, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match *op {
        Operand::Sgpr { index, count } => range(f, "s", index, count),
        Operand::Vgpr { index, count } => range(f, "v", index, count),
        Operand::Agpr { index, count } => range(f, "a", index, count),
        Operand::Ttmp { index, count } => range(f, "ttmp", index, count),
        Operand::Special { reg, count } => f.write_str(reg.name(count == 2)),
        _ => Ok(()),
    }
}
