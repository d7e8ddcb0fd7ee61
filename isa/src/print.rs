//! `Display` of an [`Instruction`] in LLVM's syntax, as `llvm-objdump-19 -d`
//! prints it (AMDGPUInstPrinter's rules for constants, modifiers and
//! symbolic immediates).

use core::fmt::{self, Write};

use crate::decode::{Encoding, Instruction};
use crate::operand::{Operand, fmt_register};
use crate::table::{Field, Kind, Simm, Slot, Ty, mods};

/// LLVM's `formatHex` of a 64-bit value (lower-case, `0x` prefix).
struct Hex(u64);

impl fmt::Display for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

/// A signed value in LLVM's hexadecimal (`-0x1`).
struct SHex(i64);

impl fmt::Display for SHex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 < 0 {
            write!(f, "-{:#x}", self.0.unsigned_abs())
        } else {
            write!(f, "{:#x}", self.0)
        }
    }
}

fn float32_name(v: u32) -> Option<&'static str> {
    Some(match v {
        0x0000_0000 => "0.0",
        0x3f80_0000 => "1.0",
        0xbf80_0000 => "-1.0",
        0x3f00_0000 => "0.5",
        0xbf00_0000 => "-0.5",
        0x4000_0000 => "2.0",
        0xc000_0000 => "-2.0",
        0x4080_0000 => "4.0",
        0xc080_0000 => "-4.0",
        0x3e22_f983 => "0.15915494",
        _ => return None,
    })
}

fn float64_name(v: u64) -> Option<&'static str> {
    Some(match v {
        0 => "0.0",
        0x3ff0_0000_0000_0000 => "1.0",
        0xbff0_0000_0000_0000 => "-1.0",
        0x3fe0_0000_0000_0000 => "0.5",
        0xbfe0_0000_0000_0000 => "-0.5",
        0x4000_0000_0000_0000 => "2.0",
        0xc000_0000_0000_0000 => "-2.0",
        0x4010_0000_0000_0000 => "4.0",
        0xc010_0000_0000_0000 => "-4.0",
        0x3fc4_5f30_6dc9_c882 => "0.15915494309189532",
        _ => return None,
    })
}

fn float16_name(v: u16) -> Option<&'static str> {
    Some(match v {
        0x3c00 => "1.0",
        0xbc00 => "-1.0",
        0x3800 => "0.5",
        0xb800 => "-0.5",
        0x4000 => "2.0",
        0xc000 => "-2.0",
        0x4400 => "4.0",
        0xc400 => "-4.0",
        0x3118 => "0.15915494",
        _ => return None,
    })
}

/// printImmediate32.
fn imm32(f: &mut fmt::Formatter<'_>, v: u32) -> fmt::Result {
    let s = v as i32;
    if (-16..=64).contains(&s) {
        return write!(f, "{s}");
    }
    match float32_name(v) {
        Some(n) => f.write_str(n),
        None => write!(f, "{}", Hex(u64::from(v))),
    }
}

/// printImmediate64.
fn imm64(f: &mut fmt::Formatter<'_>, v: u64) -> fmt::Result {
    let s = v as i64;
    if (-16..=64).contains(&s) {
        return write!(f, "{s}");
    }
    match float64_name(v) {
        Some(n) => f.write_str(n),
        None => write!(f, "{}", Hex(v)),
    }
}

/// printImmediateInt16.
fn imm_int16(f: &mut fmt::Formatter<'_>, v: u16) -> fmt::Result {
    let s = v as i16;
    if (-16..=64).contains(&s) {
        write!(f, "{s}")
    } else {
        write!(f, "{}", Hex(u64::from(v)))
    }
}

/// printImmediate16.
fn imm16(f: &mut fmt::Formatter<'_>, v: u16) -> fmt::Result {
    let s = v as i16;
    if (-16..=64).contains(&s) {
        return write!(f, "{s}");
    }
    match float16_name(v) {
        Some(n) => f.write_str(n),
        None => write!(f, "{}", Hex(u64::from(v))),
    }
}

/// A source operand: registers by name, constants by the operand's type.
fn source(f: &mut fmt::Formatter<'_>, op: &Operand, ty: Ty) -> fmt::Result {
    match *op {
        Operand::Int(i) => write!(f, "{i}"),
        Operand::Float(c) => match ty {
            Ty::I16 | Ty::V2I16 => imm_int16(f, c.f16_bits()),
            Ty::I64 | Ty::F64 => f.write_str(c.text(true)),
            _ => f.write_str(c.text(false)),
        },
        Operand::Literal(v) => match ty {
            Ty::B32 => imm32(f, v),
            Ty::F16 | Ty::V2F16 => imm16(f, v as u16),
            Ty::I16 | Ty::V2I16 => imm_int16(f, v as u16),
            Ty::F64 => match float64_name(u64::from(v) << 32) {
                Some(n) => f.write_str(n),
                None => imm64(f, u64::from(v)),
            },
            Ty::I64 => imm64(f, u64::from(v)),
        },
        _ => fmt_register(op, f),
    }
}

fn is_constant(op: &Operand) -> bool {
    matches!(
        op,
        Operand::Int(_) | Operand::Float(_) | Operand::Literal(_)
    )
}

/// Which source (0..=2) a field is, for the per-source modifier bits.
fn source_index(field: Field) -> Option<u8> {
    match field {
        Field::Src0 | Field::Ssrc0 => Some(0),
        Field::Src1 | Field::Ssrc1 | Field::Vsrc1 => Some(1),
        Field::Src2 => Some(2),
        _ => None,
    }
}

/// `s_waitcnt`'s operand for GFX9 (vmcnt 6 bits split, expcnt 3, lgkmcnt 4).
fn waitcnt(f: &mut fmt::Formatter<'_>, v: u16) -> fmt::Result {
    let vm = (v & 0xf) | ((v >> 14) & 3) << 4;
    let exp = (v >> 4) & 7;
    let lgkm = (v >> 8) & 0xf;
    let all_default = vm == 0x3f && exp == 7 && lgkm == 0xf;
    let mut sep = "";
    if vm != 0x3f || all_default {
        write!(f, "vmcnt({vm})")?;
        sep = " ";
    }
    if exp != 7 || all_default {
        write!(f, "{sep}expcnt({exp})")?;
        sep = " ";
    }
    if lgkm != 0xf || all_default {
        write!(f, "{sep}lgkmcnt({lgkm})")?;
    }
    Ok(())
}

/// Hardware register names of GFX9 (`hwreg`), by id.
fn hwreg_name(id: u16, gfx940: bool) -> Option<&'static str> {
    Some(match id {
        1 => "HW_REG_MODE",
        2 => "HW_REG_STATUS",
        3 => "HW_REG_TRAPSTS",
        4 => "HW_REG_HW_ID",
        5 => "HW_REG_GPR_ALLOC",
        6 => "HW_REG_LDS_ALLOC",
        7 => "HW_REG_IB_STS",
        15 => "HW_REG_SH_MEM_BASES",
        16 => "HW_REG_TBA_LO",
        17 => "HW_REG_TBA_HI",
        18 => "HW_REG_TMA_LO",
        19 => "HW_REG_TMA_HI",
        20 if gfx940 => "HW_REG_XCC_ID",
        21 if gfx940 => "HW_REG_SQ_PERF_SNAPSHOT_DATA",
        22 if gfx940 => "HW_REG_SQ_PERF_SNAPSHOT_DATA1",
        23 if gfx940 => "HW_REG_SQ_PERF_SNAPSHOT_PC_LO",
        24 if gfx940 => "HW_REG_SQ_PERF_SNAPSHOT_PC_HI",
        _ => return None,
    })
}

fn hwreg(f: &mut fmt::Formatter<'_>, v: u16, gfx940: bool) -> fmt::Result {
    let id = v & 0x3f;
    let offset = (v >> 6) & 0x1f;
    let size = ((v >> 11) & 0x1f) + 1;
    f.write_str("hwreg(")?;
    match hwreg_name(id, gfx940) {
        Some(n) => f.write_str(n)?,
        None => write!(f, "{id}")?,
    }
    if offset != 0 || size != 32 {
        write!(f, ", {offset}, {size}")?;
    }
    f.write_str(")")
}

/// `s_sendmsg`'s operand for GFX9.
fn sendmsg(f: &mut fmt::Formatter<'_>, v: u16) -> fmt::Result {
    let id = v & 0xf;
    let op = (v >> 4) & 7;
    let stream = (v >> 8) & 3;
    let name = match id {
        1 => Some("MSG_INTERRUPT"),
        2 => Some("MSG_GS"),
        3 => Some("MSG_GS_DONE"),
        4 => Some("MSG_SAVEWAVE"),
        5 => Some("MSG_STALL_WAVE_GEN"),
        6 => Some("MSG_HALT_WAVES"),
        7 => Some("MSG_ORDERED_PS_DONE"),
        8 => Some("MSG_EARLY_PRIM_DEALLOC"),
        9 => Some("MSG_GS_ALLOC_REQ"),
        10 => Some("MSG_GET_DOORBELL"),
        15 => Some("MSG_SYSMSG"),
        _ => None,
    };
    let gs = matches!(id, 2 | 3);
    let op_name = match (id, op) {
        (2 | 3, 0) if id == 3 => Some("GS_OP_NOP"),
        (2 | 3, 1) => Some("GS_OP_CUT"),
        (2 | 3, 2) => Some("GS_OP_EMIT"),
        (2 | 3, 3) => Some("GS_OP_EMIT_CUT"),
        (15, 1) => Some("SYSMSG_OP_ECC_ERR_INTERRUPT"),
        (15, 2) => Some("SYSMSG_OP_REG_RD"),
        (15, 3) => Some("SYSMSG_OP_HOST_TRAP_ACK"),
        (15, 4) => Some("SYSMSG_OP_TTRACE_PC"),
        _ => None,
    };
    let needs_op = gs || id == 15;
    let valid = match name {
        None => false,
        Some(_) if needs_op => op_name.is_some() && (gs && op != 0 || stream == 0),
        Some(_) => op == 0 && stream == 0,
    };
    // A named message ignores the bits outside its fields (decodeMsg masks
    // them); the numeric form only prints when it re-encodes to `v`.
    let known_bits = v & !0x37f == 0;
    match name {
        Some(n) if valid => {
            write!(f, "sendmsg({n}")?;
            if let Some(o) = op_name.filter(|_| needs_op) {
                write!(f, ", {o}")?;
                if gs && op != 0 {
                    write!(f, ", {stream}")?;
                }
            }
            f.write_str(")")
        }
        _ if known_bits => write!(f, "sendmsg({id}, {op}, {stream})"),
        _ => write!(f, "{v}"),
    }
}

/// `ds_swizzle_b32`'s offset (AMDGPUInstPrinter::printSwizzle's forms).
fn swizzle(f: &mut fmt::Formatter<'_>, v: u16) -> fmt::Result {
    if v & 0xff00 == 0x8000 {
        // QUAD_PERM (bits [15:8] = 0x80, as printSwizzle's QUAD_PERM_ENC
        // under its mask 0xff00): four 2-bit lane selects.
        return write!(
            f,
            "swizzle(QUAD_PERM,{},{},{},{})",
            v & 3,
            (v >> 2) & 3,
            (v >> 4) & 3,
            (v >> 6) & 3
        );
    }
    if v & 0x8000 != 0 {
        return write!(f, "{v}");
    }
    let and = v & 0x1f;
    let or = (v >> 5) & 0x1f;
    let xor = (v >> 10) & 0x1f;
    if and == 0x1f && or == 0 && xor.count_ones() == 1 {
        return write!(f, "swizzle(SWAP,{xor})");
    }
    if and == 0x1f && or == 0 && xor > 0 && (xor + 1).is_power_of_two() {
        return write!(f, "swizzle(REVERSE,{})", xor + 1);
    }
    let group = 0x1f - and + 1;
    if group > 1 && group.is_power_of_two() && or < group && xor == 0 {
        return write!(f, "swizzle(BROADCAST,{group},{or})");
    }
    f.write_str("swizzle(BITMASK_PERM,\"")?;
    for bit in (0..5).rev() {
        let m = 1 << bit;
        let p0 = or ^ xor;
        let p1 = ((0x1f & and) | or) ^ xor;
        let c = match (p0 & m != 0, p1 & m != 0) {
            (false, false) => '0',
            (true, true) => '1',
            (false, true) => 'p',
            (true, false) => 'i',
        };
        f.write_char(c)?;
    }
    f.write_str("\")")
}

fn gpr_idx(f: &mut fmt::Formatter<'_>, v: u32) -> fmt::Result {
    if v & !0xf != 0 {
        return write!(f, "{}", Hex(u64::from(v)));
    }
    f.write_str("gpr_idx(")?;
    let mut sep = "";
    for (bit, name) in ["SRC0", "SRC1", "SRC2", "DST"].iter().enumerate() {
        if v & (1 << bit) != 0 {
            write!(f, "{sep}{name}")?;
            sep = ",";
        }
    }
    f.write_str(")")
}

impl Instruction {
    fn slot(&self, f: &mut fmt::Formatter<'_>, slot: &Slot, op: &Operand) -> fmt::Result {
        let info = self.info();
        match slot.kind {
            Kind::Src(ty) => {
                let i = source_index(slot.field);
                let m = self.modifiers();
                let (neg, abs) = match i {
                    Some(i) => (
                        info.mods & (mods::NEG_0 << i) != 0 && m.neg & (1 << i) != 0,
                        info.mods & (mods::ABS_0 << i) != 0 && m.abs & (1 << i) != 0,
                    ),
                    None => (false, false),
                };
                let sext = i.is_some_and(|i| {
                    info.mods & (mods::SEXT_0 << i) != 0 && m.sext & (1 << i) != 0
                });
                if sext {
                    f.write_str("sext(")?;
                }
                let neg_fn = neg && !abs && is_constant(op);
                if neg_fn {
                    f.write_str("neg(")?;
                } else if neg {
                    f.write_str("-")?;
                }
                if abs {
                    f.write_str("|")?;
                }
                source(f, op, ty)?;
                if abs {
                    f.write_str("|")?;
                }
                if neg_fn || sext {
                    f.write_str(")")?;
                }
                Ok(())
            }
            Kind::Off => f.write_str("off"),
            Kind::Simm(style) => {
                let v = match *op {
                    Operand::Imm(v) => v,
                    _ => 0,
                };
                match style {
                    Simm::Imm => imm32(f, v),
                    Simm::Hex16 => write!(f, "{}", Hex(u64::from(v))),
                    Simm::Dec16 | Simm::EndpgmImm => write!(f, "{v}"),
                    Simm::Waitcnt => waitcnt(f, v as u16),
                    Simm::Sendmsg => sendmsg(f, v as u16),
                    Simm::Hwreg => hwreg(f, v as u16, self.decoder_processor_is_gfx940()),
                    Simm::GprIdx => gpr_idx(f, v),
                }
            }
            Kind::Lit => match *op {
                Operand::Imm(v) if v <= 0xffff => write!(f, "{}", Hex(u64::from(v))),
                Operand::Imm(v) => write!(f, "{}", Hex(u64::from(v))),
                _ => Ok(()),
            },
            Kind::SmemOffset => {
                let raw = self.raw();
                let imm = raw >> 17 & 1 != 0;
                let soe = raw >> 14 & 1 != 0;
                match (*op, imm, soe) {
                    (Operand::Imm(v), true, true) => {
                        let sgpr = crate::operand::scalar(((raw >> 57) & 0x7f) as u16, 1)
                            .unwrap_or(Operand::None);
                        fmt_register(&sgpr, f)?;
                        write!(f, " offset:{}", SHex(i64::from(v as i32)))
                    }
                    (Operand::Imm(v), _, _) => write!(f, "{}", SHex(i64::from(v as i32))),
                    (op, _, _) => fmt_register(&op, f),
                }
            }
            Kind::Dec => match *op {
                Operand::Imm(v) => imm32(f, v),
                _ => Ok(()),
            },
            Kind::Sgpr | Kind::Vgpr | Kind::Agpr | Kind::Vcc => fmt_register(op, f),
        }
    }

    fn decoder_processor_is_gfx940(&self) -> bool {
        self.processor() == crate::Processor::Gfx942
    }

    fn modifiers_text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.encoding() {
            Encoding::Flat | Encoding::Mubuf | Encoding::Mtbuf => return self.memory_modifiers(f),
            Encoding::Vop3p => return self.vop3p_modifiers(f),
            Encoding::Sdwa => return self.sdwa_modifiers(f),
            Encoding::Dpp => return self.dpp_modifiers(f),
            _ => {}
        }
        let info = self.info();
        let m = self.modifiers();
        if info.mods & mods::OP_SEL != 0 {
            // One entry per source of the operation and one for the destination.
            let nsrc = info
                .slots
                .iter()
                .filter(|s| matches!(s.field, Field::Src0 | Field::Src1 | Field::Src2))
                .count()
                + usize::from(info.mods & mods::OP_SEL_SRC2 != 0);
            let bits = m.op_sel;
            let mut used = bits & ((1 << nsrc) - 1);
            if bits & 8 != 0 {
                used |= 8;
            }
            if used != 0 {
                f.write_str(" op_sel:[")?;
                for i in 0..nsrc {
                    if i != 0 {
                        f.write_char(',')?;
                    }
                    write!(f, "{}", (bits >> i) & 1)?;
                }
                write!(f, ",{}]", (bits >> 3) & 1)?;
            }
        }
        if info.mods & mods::CLAMP != 0 && m.clamp {
            f.write_str(" clamp")?;
        }
        if info.mods & mods::OMOD != 0 {
            match m.omod {
                1 => f.write_str(" mul:2")?,
                2 => f.write_str(" mul:4")?,
                3 => f.write_str(" div:2")?,
                _ => {}
            }
        }
        if info.mods & mods::OFFSET != 0 && m.offset != 0 {
            if info.op == crate::Opcode::DS_SWIZZLE_B32 {
                f.write_str(" offset:")?;
                swizzle(f, m.offset as u16)?;
            } else {
                write!(f, " offset:{}", m.offset)?;
            }
        }
        if info.mods & mods::OFFSET01 != 0 {
            if m.offset & 0xff != 0 {
                write!(f, " offset0:{}", m.offset & 0xff)?;
            }
            if m.offset >> 8 != 0 {
                write!(f, " offset1:{}", m.offset >> 8)?;
            }
        }
        if info.mods & mods::GDS != 0 && m.gds {
            f.write_str(" gds")?;
        }
        if info.mods & mods::GLC != 0 && m.cache & 1 != 0 {
            f.write_str(" glc")?;
        }
        Ok(())
    }
}

/// MTBUF data format names (`BUF_DATA_FORMAT_*`), by `dfmt`.
const DFMT: [&str; 16] = [
    "INVALID",
    "8",
    "16",
    "8_8",
    "32",
    "16_16",
    "10_11_11",
    "11_11_10",
    "10_10_10_2",
    "2_10_10_10",
    "8_8_8_8",
    "32_32",
    "16_16_16_16",
    "32_32_32",
    "32_32_32_32",
    "RESERVED_15",
];

/// MTBUF number format names (`BUF_NUM_FORMAT_*`), by `nfmt`.
const NFMT: [&str; 8] = [
    "UNORM",
    "SNORM",
    "USCALED",
    "SSCALED",
    "UINT",
    "SINT",
    "RESERVED_6",
    "FLOAT",
];

/// SDWA operand select names.
const SDWA_SEL: [&str; 7] = [
    "BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD",
];

/// SDWA `dst_unused` names.
const DST_UNUSED: [&str; 3] = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"];

/// A VOP3P packed modifier list (`op_sel:[..]`, ...), printed unless every
/// source has the default bit (AMDGPUInstPrinter::printPackedModifier).
fn packed(f: &mut fmt::Formatter<'_>, name: &str, bits: u8, n: usize, default: u8) -> fmt::Result {
    let all_default = (0..n).all(|i| (bits >> i) & 1 == default);
    if all_default {
        return Ok(());
    }
    write!(f, " {name}:[")?;
    for i in 0..n {
        if i != 0 {
            f.write_char(',')?;
        }
        write!(f, "{}", (bits >> i) & 1)?;
    }
    f.write_char(']')
}

impl Instruction {
    fn cache_policy(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let info = self.info();
        let c = self.modifiers().cache;
        let gfx940 = self.decoder_processor_is_gfx940();
        if info.mods & mods::GLC != 0 && c & 1 != 0 {
            f.write_str(if gfx940 { " sc0" } else { " glc" })?;
        }
        if info.mods & mods::SLC != 0 && c & 2 != 0 {
            f.write_str(if gfx940 { " nt" } else { " slc" })?;
        }
        if info.mods & mods::SCC != 0 && c & 4 != 0 {
            f.write_str(if gfx940 { " sc1" } else { " scc" })?;
        }
        Ok(())
    }

    /// FLAT, MUBUF and MTBUF: `format`, `idxen`, `offen`, `offset`, the
    /// cache policy, `lds`, `tfe`, in LLVM's order.
    fn memory_modifiers(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let info = self.info();
        let m = self.modifiers();
        if info.mods & mods::FORMAT != 0 && m.format != 1 {
            let (dfmt, nfmt) = (usize::from(m.format & 0xf), usize::from(m.format >> 4));
            f.write_str(" format:[")?;
            if dfmt != 1 {
                write!(f, "BUF_DATA_FORMAT_{}", DFMT[dfmt])?;
                if nfmt != 0 {
                    f.write_char(',')?;
                }
            }
            if nfmt != 0 {
                write!(f, "BUF_NUM_FORMAT_{}", NFMT[nfmt])?;
            }
            f.write_char(']')?;
        }
        if matches!(self.encoding(), Encoding::Mubuf | Encoding::Mtbuf) {
            if m.idxen {
                f.write_str(" idxen")?;
            }
            if m.offen {
                f.write_str(" offen")?;
            }
        }
        if info.mods & mods::OFFSET != 0 && m.offset != 0 {
            write!(f, " offset:{}", m.offset)?;
        }
        self.cache_policy(f)?;
        if info.mods & mods::LDS != 0 {
            f.write_str(" lds")?;
        }
        if m.tfe {
            f.write_str(" tfe")?;
        }
        Ok(())
    }

    fn vop3p_modifiers(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let info = self.info();
        let m = self.modifiers();
        let n = info
            .slots
            .iter()
            .filter(|s| matches!(s.field, Field::Src0 | Field::Src1 | Field::Src2))
            .count();
        if info.mods & mods::OP_SEL != 0 {
            packed(f, "op_sel", m.op_sel, n, 0)?;
        }
        if info.mods & mods::OP_SEL_HI != 0 {
            let default = u8::from(info.mods & mods::PACKED != 0);
            packed(f, "op_sel_hi", m.op_sel_hi, n, default)?;
        }
        if info.mods & mods::NEG_LO != 0 {
            packed(f, "neg_lo", m.neg, n, 0)?;
        }
        if info.mods & mods::NEG_HI != 0 {
            packed(f, "neg_hi", m.abs, n, 0)?;
        }
        if info.mods & mods::CLAMP != 0 && m.clamp {
            f.write_str(" clamp")?;
        }
        if info.mods & mods::CBSZ != 0 && m.cbsz != 0 {
            write!(f, " cbsz:{}", m.cbsz)?;
        }
        if info.mods & mods::ABID != 0 && m.abid != 0 {
            write!(f, " abid:{}", m.abid)?;
        }
        if info.mods & mods::BLGP != 0 && m.blgp != 0 {
            write!(f, " blgp:{}", m.blgp)?;
        }
        if info.mods & mods::NEG_MAI != 0 {
            packed(f, "neg", m.blgp, 3, 0)?;
        }
        Ok(())
    }

    fn sdwa_modifiers(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let info = self.info();
        let m = self.modifiers();
        if info.mods & mods::CLAMP != 0 && m.clamp {
            f.write_str(" clamp")?;
        }
        if info.mods & mods::OMOD != 0 {
            match m.omod {
                1 => f.write_str(" mul:2")?,
                2 => f.write_str(" mul:4")?,
                3 => f.write_str(" div:2")?,
                _ => {}
            }
        }
        let sel = |i: usize| {
            SDWA_SEL
                .get(usize::from(m.sdwa_sel[i]))
                .copied()
                .unwrap_or("?")
        };
        if info.mods & mods::DST_SEL != 0 {
            write!(f, " dst_sel:{}", sel(0))?;
        }
        if info.mods & mods::DST_UNUSED != 0 {
            let u = DST_UNUSED
                .get(usize::from(m.sdwa_sel[1]))
                .copied()
                .unwrap_or("?");
            write!(f, " dst_unused:{u}")?;
        }
        if info.mods & mods::SRC0_SEL != 0 {
            write!(f, " src0_sel:{}", sel(2))?;
        }
        if info.mods & mods::SRC1_SEL != 0 {
            write!(f, " src1_sel:{}", sel(3))?;
        }
        Ok(())
    }

    /// AMDGPUInstPrinter::printDPPCtrl for GFX9, then the masks.
    fn dpp_modifiers(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let info = self.info();
        let m = self.modifiers();
        if info.mods & mods::DPP_CTRL == 0 {
            return Ok(());
        }
        let c = m.dpp_ctrl;
        let gfx90a = self.processor().is_gfx90a_plus();
        // 64-bit (DP ALU) DPP takes only row_newbcast.
        let dp_alu = info
            .slots
            .iter()
            .any(|s| s.width == 2 && matches!(s.field, Field::Vdst | Field::Src0));
        f.write_char(' ')?;
        if dp_alu && !(gfx90a && (0x150..=0x15f).contains(&c)) {
            f.write_str(" /* DP ALU dpp only supports row_newbcast */")?;
        } else {
            match c {
                0..=0xff => write!(
                    f,
                    "quad_perm:[{},{},{},{}]",
                    c & 3,
                    (c >> 2) & 3,
                    (c >> 4) & 3,
                    (c >> 6) & 3
                )?,
                0x101..=0x10f => write!(f, "row_shl:{}", c - 0x100)?,
                0x111..=0x11f => write!(f, "row_shr:{}", c - 0x110)?,
                0x121..=0x12f => write!(f, "row_ror:{}", c - 0x120)?,
                0x130 => f.write_str("wave_shl:1")?,
                0x134 => f.write_str("wave_rol:1")?,
                0x138 => f.write_str("wave_shr:1")?,
                0x13c => f.write_str("wave_ror:1")?,
                0x140 => f.write_str("row_mirror")?,
                0x141 => f.write_str("row_half_mirror")?,
                0x142 => f.write_str("row_bcast:15")?,
                0x143 => f.write_str("row_bcast:31")?,
                0x150..=0x15f if gfx90a => write!(f, "row_newbcast:{}", c - 0x150)?,
                0x150..=0x15f => f.write_str(
                    " /* row_newbcast/row_share is not supported on ASICs earlier than GFX90A/GFX10 */",
                )?,
                0x160..=0x16f => {
                    f.write_str("/* row_xmask is not supported on ASICs earlier than GFX10 */")?
                }
                _ => f.write_str("/* Invalid dpp_ctrl value */")?,
            }
        }
        write!(
            f,
            " row_mask:{:#x} bank_mask:{:#x}",
            m.row_mask, m.bank_mask
        )?;
        if info.mods & mods::BOUND_CTRL != 0 && m.bound_ctrl {
            f.write_str(" bound_ctrl:1")?;
        }
        Ok(())
    }
}

impl fmt::Display for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let info = self.info();
        f.write_str(info.name)?;
        let mut first = true;
        for (slot, op) in info.slots.iter().zip(self.operands_raw().iter()) {
            if slot.kind == Kind::Simm(Simm::EndpgmImm) && *op == Operand::Imm(0) {
                continue;
            }
            f.write_str(if first { " " } else { ", " })?;
            first = false;
            self.slot(f, slot, op)?;
        }
        self.modifiers_text(f)
    }
}
