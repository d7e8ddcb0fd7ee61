//! The scalar ALU: SOP2, SOP1, SOPK and SOPC (AMD "Vega" ISA reference,
//! chapter 5; AMDGPUAsmGFX90a.rst). SCC rules per operation as the ISA
//! states them: carry/borrow for unsigned add/sub, signed overflow for
//! signed add/sub, "result != 0" for logic, shifts, bit counts and BFE.
//! The EXEC-modifying `s_*_saveexec_b64` family is here too (SOP1).

use isa::Opcode::{self, *};

use super::program::{Dst, EXEC, ExecFn, GPR_IDX_EN, Inst, M0};
use super::wave::{Ty, Wave};
use super::{Exec, Fault, Flow};

fn f(x: ExecFn) -> Option<ExecFn> {
    Some(x)
}

#[inline]
fn a32(w: &Wave, i: &Inst) -> u32 {
    w.scalar32(i.src[0], Ty::B32)
}

#[inline]
fn b32(w: &Wave, i: &Inst) -> u32 {
    w.scalar32(i.src[1], Ty::B32)
}

#[inline]
fn a64(w: &Wave, i: &Inst) -> u64 {
    w.scalar64(i.src[0], Ty::B64)
}

#[inline]
fn b64(w: &Wave, i: &Inst) -> u64 {
    w.scalar64(i.src[1], Ty::B64)
}

/// SOP2 on 32 bits: `op(s0, s1, scc) -> (d, new scc)`.
#[inline]
fn sop2(w: &mut Wave, i: &Inst, op: impl Fn(u32, u32, bool) -> (u32, Option<bool>)) -> Exec {
    let (d, scc) = op(a32(w, i), b32(w, i), w.scc);
    w.write_s32(i.sdst, d);
    if let Some(c) = scc {
        w.scc = c;
    }
    Ok(Flow::Next)
}

/// SOP2 on 64 bits (the shift amount or second operand read as `b`).
#[inline]
fn sop2_64(w: &mut Wave, i: &Inst, op: impl Fn(u64, u64) -> u64, scc: bool) -> Exec {
    let d = op(a64(w, i), b64(w, i));
    w.write_s64(i.sdst, d);
    if scc {
        w.scc = d != 0;
    }
    Ok(Flow::Next)
}

/// SOP2 with a 64-bit first operand and a 32-bit second (shifts, BFE).
#[inline]
fn sop2_64_32(w: &mut Wave, i: &Inst, op: impl Fn(u64, u32) -> u64) -> Exec {
    let d = op(a64(w, i), b32(w, i));
    w.write_s64(i.sdst, d);
    w.scc = d != 0;
    Ok(Flow::Next)
}

/// SOP1 on 32 bits.
#[inline]
fn sop1(w: &mut Wave, i: &Inst, op: impl Fn(u32) -> u32, scc: bool) -> Exec {
    let d = op(a32(w, i));
    w.write_s32(i.sdst, d);
    if scc {
        w.scc = d != 0;
    }
    Ok(Flow::Next)
}

/// SOP1 from 64 bits to 64 bits.
#[inline]
fn sop1_64(w: &mut Wave, i: &Inst, op: impl Fn(u64) -> u64, scc: bool) -> Exec {
    let d = op(a64(w, i));
    w.write_s64(i.sdst, d);
    if scc {
        w.scc = d != 0;
    }
    Ok(Flow::Next)
}

/// SOP1 from 64 bits to 32 bits (bit counts, find-first).
#[inline]
fn sop1_64_32(w: &mut Wave, i: &Inst, op: impl Fn(u64) -> u32, scc: bool) -> Exec {
    let d = op(a64(w, i));
    w.write_s32(i.sdst, d);
    if scc {
        w.scc = d != 0;
    }
    Ok(Flow::Next)
}

/// SOPC: SCC = `op(s0, s1)`.
#[inline]
fn sopc(w: &mut Wave, i: &Inst, op: impl Fn(u32, u32) -> bool) -> Exec {
    w.scc = op(a32(w, i), b32(w, i));
    Ok(Flow::Next)
}

/// `s_*_saveexec_b64` / `*_wrexec`: D = old EXEC (or the new one for
/// `wrexec`), EXEC = `op(s0, exec)`, SCC = EXEC != 0.
#[inline]
fn saveexec(w: &mut Wave, i: &Inst, op: impl Fn(u64, u64) -> u64, wrexec: bool) -> Exec {
    let s0 = a64(w, i);
    let old = w.exec();
    let new = op(s0, old);
    w.set_s64(EXEC, new);
    w.write_s64(i.sdst, if wrexec { new } else { old });
    w.scc = new != 0;
    Ok(Flow::Next)
}

/// The register an SOPK instruction names in its `sdst` field, as a source.
#[inline]
fn k_reg(w: &Wave, i: &Inst) -> u32 {
    match i.sdst {
        Dst::S(r) => w.s[usize::from(r)],
        _ => 0,
    }
}

/// SOPK compare: SCC = `op(reg, simm16)`; `signed` sign-extends the immediate.
#[inline]
fn sopk_cmp(w: &mut Wave, i: &Inst, signed: bool, op: impl Fn(u32, u32) -> bool) -> Exec {
    let imm = if signed {
        i.imm as u16 as i16 as i32 as u32
    } else {
        i.imm & 0xffff
    };
    w.scc = op(k_reg(w, i), imm);
    Ok(Flow::Next)
}

fn simm(i: &Inst) -> u32 {
    i.imm as u16 as i16 as i32 as u32
}

/// Bit-field extract (`s_bfe_*`): offset `s1[5:0]` (`[4:0]` for 32 bits),
/// width `s1[22:16]`.
fn bfe_u32(v: u32, s1: u32) -> u32 {
    let off = s1 & 31;
    let width = (s1 >> 16) & 0x7f;
    if width == 0 {
        return 0;
    }
    let x = v >> off;
    if width >= 32 {
        x
    } else {
        x & ((1u32 << width) - 1)
    }
}

fn bfe_i32(v: u32, s1: u32) -> u32 {
    let off = s1 & 31;
    let width = (s1 >> 16) & 0x7f;
    if width == 0 {
        return 0;
    }
    let x = (v >> off) as i32;
    if width >= 32 {
        x as u32
    } else {
        ((x << (32 - width)) >> (32 - width)) as u32
    }
}

fn bfe_u64(v: u64, s1: u32) -> u64 {
    let off = s1 & 63;
    let width = (s1 >> 16) & 0x7f;
    if width == 0 {
        return 0;
    }
    let x = v >> off;
    if width >= 64 {
        x
    } else {
        x & ((1u64 << width) - 1)
    }
}

fn bfe_i64(v: u64, s1: u32) -> u64 {
    let off = s1 & 63;
    let width = (s1 >> 16) & 0x7f;
    if width == 0 {
        return 0;
    }
    let x = (v >> off) as i64;
    if width >= 64 {
        x as u64
    } else {
        ((x << (64 - width)) >> (64 - width)) as u64
    }
}

/// First bit from the MSB that differs from the sign (`s_flbit_i32`):
/// -1 when all bits equal the sign.
fn flbit_i32(v: u32) -> u32 {
    let v = v as i32;
    let x = if v < 0 { !v } else { v } as u32;
    if x == 0 { u32::MAX } else { x.leading_zeros() }
}

fn flbit_i64(v: u64) -> u32 {
    let v = v as i64;
    let x = if v < 0 { !v } else { v } as u64;
    if x == 0 { u32::MAX } else { x.leading_zeros() }
}

fn ff(v: u64) -> u32 {
    if v == 0 { u32::MAX } else { v.trailing_zeros() }
}

fn flbit(v: u64, bits: u32) -> u32 {
    if v == 0 {
        u32::MAX
    } else {
        v.leading_zeros() - (64 - bits)
    }
}

fn quadmask(v: u64, quads: u32) -> u64 {
    (0..quads).fold(0, |d, q| d | (u64::from((v >> (4 * q)) & 0xf != 0) << q))
}

fn wqm(v: u64) -> u64 {
    (0..16).fold(0, |d, q| {
        if (v >> (4 * q)) & 0xf != 0 {
            d | (0xf << (4 * q))
        } else {
            d
        }
    })
}

/// `s_movrels` / `s_movreld`: the SGPR index plus M0, in range.
fn rel(w: &Wave, base: u8, count: u32) -> Result<usize, Fault> {
    let i = u32::from(base) + w.m0();
    if i + count > 102 {
        return Err(Fault::Abort(format!("s_movrel index s{i} is out of range")));
    }
    Ok(i as usize)
}

/// The handler of a scalar ALU operation.
pub(crate) fn handler(op: Opcode) -> Option<ExecFn> {
    match op {
        // ---- SOP2
        S_ADD_U32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let (d, c) = a.overflowing_add(b);
                (d, Some(c))
            })
        }),
        S_SUB_U32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let (d, c) = a.overflowing_sub(b);
                (d, Some(c))
            })
        }),
        S_ADD_I32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let (d, o) = (a as i32).overflowing_add(b as i32);
                (d as u32, Some(o))
            })
        }),
        S_SUB_I32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let (d, o) = (a as i32).overflowing_sub(b as i32);
                (d as u32, Some(o))
            })
        }),
        S_ADDC_U32 => f(|w, i, _| {
            sop2(w, i, |a, b, c| {
                let s = u64::from(a) + u64::from(b) + u64::from(c);
                (s as u32, Some(s >> 32 != 0))
            })
        }),
        S_SUBB_U32 => f(|w, i, _| {
            sop2(w, i, |a, b, c| {
                let d = a.wrapping_sub(b).wrapping_sub(u32::from(c));
                (d, Some(u64::from(b) + u64::from(c) > u64::from(a)))
            })
        }),
        S_MIN_I32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let s = (a as i32) < (b as i32);
                (if s { a } else { b }, Some(s))
            })
        }),
        S_MIN_U32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let s = a < b;
                (if s { a } else { b }, Some(s))
            })
        }),
        S_MAX_I32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let s = (a as i32) > (b as i32);
                (if s { a } else { b }, Some(s))
            })
        }),
        S_MAX_U32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let s = a > b;
                (if s { a } else { b }, Some(s))
            })
        }),
        S_CSELECT_B32 => f(|w, i, _| sop2(w, i, |a, b, c| (if c { a } else { b }, None))),
        S_CSELECT_B64 => f(|w, i, _| {
            let d = if w.scc { a64(w, i) } else { b64(w, i) };
            w.write_s64(i.sdst, d);
            Ok(Flow::Next)
        }),
        S_AND_B32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let d = a & b;
                (d, Some(d != 0))
            })
        }),
        S_OR_B32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let d = a | b;
                (d, Some(d != 0))
            })
        }),
        S_XOR_B32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let d = a ^ b;
                (d, Some(d != 0))
            })
        }),
        S_ANDN2_B32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let d = a & !b;
                (d, Some(d != 0))
            })
        }),
        S_ORN2_B32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let d = a | !b;
                (d, Some(d != 0))
            })
        }),
        S_NAND_B32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let d = !(a & b);
                (d, Some(d != 0))
            })
        }),
        S_NOR_B32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let d = !(a | b);
                (d, Some(d != 0))
            })
        }),
        S_XNOR_B32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let d = !(a ^ b);
                (d, Some(d != 0))
            })
        }),
        S_AND_B64 => f(|w, i, _| sop2_64(w, i, |a, b| a & b, true)),
        S_OR_B64 => f(|w, i, _| sop2_64(w, i, |a, b| a | b, true)),
        S_XOR_B64 => f(|w, i, _| sop2_64(w, i, |a, b| a ^ b, true)),
        S_ANDN2_B64 => f(|w, i, _| sop2_64(w, i, |a, b| a & !b, true)),
        S_ORN2_B64 => f(|w, i, _| sop2_64(w, i, |a, b| a | !b, true)),
        S_NAND_B64 => f(|w, i, _| sop2_64(w, i, |a, b| !(a & b), true)),
        S_NOR_B64 => f(|w, i, _| sop2_64(w, i, |a, b| !(a | b), true)),
        S_XNOR_B64 => f(|w, i, _| sop2_64(w, i, |a, b| !(a ^ b), true)),
        S_LSHL_B32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let d = a << (b & 31);
                (d, Some(d != 0))
            })
        }),
        S_LSHR_B32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let d = a >> (b & 31);
                (d, Some(d != 0))
            })
        }),
        S_ASHR_I32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let d = ((a as i32) >> (b & 31)) as u32;
                (d, Some(d != 0))
            })
        }),
        S_LSHL_B64 => f(|w, i, _| sop2_64_32(w, i, |a, b| a << (b & 63))),
        S_LSHR_B64 => f(|w, i, _| sop2_64_32(w, i, |a, b| a >> (b & 63))),
        S_ASHR_I64 => f(|w, i, _| sop2_64_32(w, i, |a, b| ((a as i64) >> (b & 63)) as u64)),
        S_BFM_B32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                ((((1u64 << (a & 31)) - 1) as u32) << (b & 31), None)
            })
        }),
        S_BFM_B64 => f(|w, i, _| {
            let (a, b) = (a32(w, i), b32(w, i));
            let m = if a & 63 == 0 {
                0
            } else {
                u64::MAX >> (64 - (a & 63))
            };
            w.write_s64(i.sdst, m << (b & 63));
            Ok(Flow::Next)
        }),
        S_MUL_I32 => f(|w, i, _| sop2(w, i, |a, b, _| (a.wrapping_mul(b), None))),
        S_MUL_HI_U32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                (((u64::from(a) * u64::from(b)) >> 32) as u32, None)
            })
        }),
        S_MUL_HI_I32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                (
                    ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32,
                    None,
                )
            })
        }),
        S_BFE_U32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let d = bfe_u32(a, b);
                (d, Some(d != 0))
            })
        }),
        S_BFE_I32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let d = bfe_i32(a, b);
                (d, Some(d != 0))
            })
        }),
        S_BFE_U64 => f(|w, i, _| sop2_64_32(w, i, bfe_u64)),
        S_BFE_I64 => f(|w, i, _| sop2_64_32(w, i, bfe_i64)),
        S_ABSDIFF_I32 => f(|w, i, _| {
            sop2(w, i, |a, b, _| {
                let d = (a as i32).wrapping_sub(b as i32).wrapping_abs() as u32;
                (d, Some(d != 0))
            })
        }),
        S_LSHL1_ADD_U32 => f(|w, i, _| sop2(w, i, |a, b, _| lshl_add(a, b, 1))),
        S_LSHL2_ADD_U32 => f(|w, i, _| sop2(w, i, |a, b, _| lshl_add(a, b, 2))),
        S_LSHL3_ADD_U32 => f(|w, i, _| sop2(w, i, |a, b, _| lshl_add(a, b, 3))),
        S_LSHL4_ADD_U32 => f(|w, i, _| sop2(w, i, |a, b, _| lshl_add(a, b, 4))),
        S_PACK_LL_B32_B16 => f(|w, i, _| sop2(w, i, |a, b, _| ((a & 0xffff) | (b << 16), None))),
        S_PACK_LH_B32_B16 => {
            f(|w, i, _| sop2(w, i, |a, b, _| ((a & 0xffff) | (b & 0xffff_0000), None)))
        }
        S_PACK_HH_B32_B16 => {
            f(|w, i, _| sop2(w, i, |a, b, _| ((a >> 16) | (b & 0xffff_0000), None)))
        }

        // ---- SOP1
        S_MOV_B32 => f(|w, i, _| sop1(w, i, |a| a, false)),
        S_MOV_B64 => f(|w, i, _| sop1_64(w, i, |a| a, false)),
        S_CMOV_B32 => f(|w, i, _| {
            if w.scc {
                let a = a32(w, i);
                w.write_s32(i.sdst, a);
            }
            Ok(Flow::Next)
        }),
        S_CMOV_B64 => f(|w, i, _| {
            if w.scc {
                let a = a64(w, i);
                w.write_s64(i.sdst, a);
            }
            Ok(Flow::Next)
        }),
        S_NOT_B32 => f(|w, i, _| sop1(w, i, |a| !a, true)),
        S_NOT_B64 => f(|w, i, _| sop1_64(w, i, |a| !a, true)),
        S_WQM_B32 => f(|w, i, _| sop1(w, i, |a| wqm(u64::from(a)) as u32, true)),
        S_WQM_B64 => f(|w, i, _| sop1_64(w, i, wqm, true)),
        S_BREV_B32 => f(|w, i, _| sop1(w, i, u32::reverse_bits, false)),
        S_BREV_B64 => f(|w, i, _| sop1_64(w, i, u64::reverse_bits, false)),
        S_BCNT0_I32_B32 => f(|w, i, _| sop1(w, i, |a| a.count_zeros(), true)),
        S_BCNT0_I32_B64 => f(|w, i, _| sop1_64_32(w, i, |a| a.count_zeros(), true)),
        S_BCNT1_I32_B32 => f(|w, i, _| sop1(w, i, |a| a.count_ones(), true)),
        S_BCNT1_I32_B64 => f(|w, i, _| sop1_64_32(w, i, |a| a.count_ones(), true)),
        S_FF0_I32_B32 => f(|w, i, _| sop1(w, i, |a| ff(u64::from(!a)), false)),
        S_FF0_I32_B64 => f(|w, i, _| sop1_64_32(w, i, |a| ff(!a), false)),
        S_FF1_I32_B32 => f(|w, i, _| sop1(w, i, |a| ff(u64::from(a)), false)),
        S_FF1_I32_B64 => f(|w, i, _| sop1_64_32(w, i, ff, false)),
        S_FLBIT_I32_B32 => f(|w, i, _| sop1(w, i, |a| flbit(u64::from(a), 32), false)),
        S_FLBIT_I32_B64 => f(|w, i, _| sop1_64_32(w, i, |a| flbit(a, 64), false)),
        S_FLBIT_I32 => f(|w, i, _| sop1(w, i, flbit_i32, false)),
        S_FLBIT_I32_I64 => f(|w, i, _| sop1_64_32(w, i, flbit_i64, false)),
        S_SEXT_I32_I8 => f(|w, i, _| sop1(w, i, |a| a as i8 as i32 as u32, false)),
        S_SEXT_I32_I16 => f(|w, i, _| sop1(w, i, |a| a as i16 as i32 as u32, false)),
        S_BITSET0_B32 => f(|w, i, _| bitset(w, i, false, 32)),
        S_BITSET1_B32 => f(|w, i, _| bitset(w, i, true, 32)),
        S_BITSET0_B64 => f(|w, i, _| bitset(w, i, false, 64)),
        S_BITSET1_B64 => f(|w, i, _| bitset(w, i, true, 64)),
        S_ABS_I32 => f(|w, i, _| sop1(w, i, |a| (a as i32).wrapping_abs() as u32, true)),
        S_QUADMASK_B32 => f(|w, i, _| sop1(w, i, |a| quadmask(u64::from(a), 8) as u32, true)),
        S_QUADMASK_B64 => f(|w, i, _| sop1_64(w, i, |a| quadmask(a, 16), true)),
        S_BITREPLICATE_B64_B32 => f(|w, i, _| {
            let a = a32(w, i);
            let d = (0..32).fold(0u64, |d, b| d | (u64::from((a >> b) & 1) * 3) << (2 * b));
            w.write_s64(i.sdst, d);
            Ok(Flow::Next)
        }),
        S_AND_SAVEEXEC_B64 => f(|w, i, _| saveexec(w, i, |s, e| s & e, false)),
        S_OR_SAVEEXEC_B64 => f(|w, i, _| saveexec(w, i, |s, e| s | e, false)),
        S_XOR_SAVEEXEC_B64 => f(|w, i, _| saveexec(w, i, |s, e| s ^ e, false)),
        S_ANDN2_SAVEEXEC_B64 => f(|w, i, _| saveexec(w, i, |s, e| s & !e, false)),
        S_ORN2_SAVEEXEC_B64 => f(|w, i, _| saveexec(w, i, |s, e| s | !e, false)),
        S_NAND_SAVEEXEC_B64 => f(|w, i, _| saveexec(w, i, |s, e| !(s & e), false)),
        S_NOR_SAVEEXEC_B64 => f(|w, i, _| saveexec(w, i, |s, e| !(s | e), false)),
        S_XNOR_SAVEEXEC_B64 => f(|w, i, _| saveexec(w, i, |s, e| !(s ^ e), false)),
        S_ANDN1_SAVEEXEC_B64 => f(|w, i, _| saveexec(w, i, |s, e| !s & e, false)),
        S_ORN1_SAVEEXEC_B64 => f(|w, i, _| saveexec(w, i, |s, e| !s | e, false)),
        S_ANDN1_WREXEC_B64 => f(|w, i, _| saveexec(w, i, |s, e| !s & e, true)),
        S_ANDN2_WREXEC_B64 => f(|w, i, _| saveexec(w, i, |s, e| s & !e, true)),
        S_MOVRELS_B32 => f(|w, i, _| {
            let Some(base) = scalar_index(i.src[0]) else {
                return Ok(Flow::Next);
            };
            let s = rel(w, base, 1)?;
            let v = w.s[s];
            w.write_s32(i.sdst, v);
            Ok(Flow::Next)
        }),
        S_MOVRELS_B64 => f(|w, i, _| {
            let Some(base) = scalar_index(i.src[0]) else {
                return Ok(Flow::Next);
            };
            let s = rel(w, base, 2)?;
            let v = w.s64(s as u8);
            w.write_s64(i.sdst, v);
            Ok(Flow::Next)
        }),
        S_MOVRELD_B32 => f(|w, i, _| {
            let Dst::S(base) = i.sdst else {
                return Ok(Flow::Next);
            };
            let d = rel(w, base, 1)?;
            w.s[d] = a32(w, i);
            Ok(Flow::Next)
        }),
        S_MOVRELD_B64 => f(|w, i, _| {
            let Dst::S(base) = i.sdst else {
                return Ok(Flow::Next);
            };
            let d = rel(w, base, 2)?;
            let v = a64(w, i);
            w.set_s64(d as u8, v);
            Ok(Flow::Next)
        }),
        S_SET_GPR_IDX_ON => f(|w, i, _| {
            let m0 = w.m0();
            let idx = a32(w, i) & 0xff;
            w.s[M0 as usize] = (m0 & !0xf0ff) | idx | ((i.imm & 0xf) << 12);
            w.mode |= GPR_IDX_EN;
            Ok(Flow::Next)
        }),
        S_SET_GPR_IDX_OFF => f(|w, _, _| {
            w.mode &= !GPR_IDX_EN;
            Ok(Flow::Next)
        }),
        S_SET_GPR_IDX_MODE => f(|w, i, _| {
            let m0 = w.m0();
            w.s[M0 as usize] = (m0 & !0xf000) | ((i.imm & 0xf) << 12);
            Ok(Flow::Next)
        }),
        S_SET_GPR_IDX_IDX => f(|w, i, _| {
            let m0 = w.m0();
            w.s[M0 as usize] = (m0 & !0xff) | (a32(w, i) & 0xff);
            Ok(Flow::Next)
        }),

        // ---- SOPK
        S_MOVK_I32 => f(|w, i, _| {
            w.write_s32(i.sdst, simm(i));
            Ok(Flow::Next)
        }),
        S_CMOVK_I32 => f(|w, i, _| {
            if w.scc {
                w.write_s32(i.sdst, simm(i));
            }
            Ok(Flow::Next)
        }),
        S_ADDK_I32 => f(|w, i, _| {
            let (d, o) = (k_reg(w, i) as i32).overflowing_add(simm(i) as i32);
            w.write_s32(i.sdst, d as u32);
            w.scc = o;
            Ok(Flow::Next)
        }),
        S_MULK_I32 => f(|w, i, _| {
            let d = k_reg(w, i).wrapping_mul(simm(i));
            w.write_s32(i.sdst, d);
            Ok(Flow::Next)
        }),
        S_CMPK_EQ_I32 => f(|w, i, _| sopk_cmp(w, i, true, |a, b| a == b)),
        S_CMPK_LG_I32 => f(|w, i, _| sopk_cmp(w, i, true, |a, b| a != b)),
        S_CMPK_GT_I32 => f(|w, i, _| sopk_cmp(w, i, true, |a, b| (a as i32) > (b as i32))),
        S_CMPK_GE_I32 => f(|w, i, _| sopk_cmp(w, i, true, |a, b| (a as i32) >= (b as i32))),
        S_CMPK_LT_I32 => f(|w, i, _| sopk_cmp(w, i, true, |a, b| (a as i32) < (b as i32))),
        S_CMPK_LE_I32 => f(|w, i, _| sopk_cmp(w, i, true, |a, b| (a as i32) <= (b as i32))),
        S_CMPK_EQ_U32 => f(|w, i, _| sopk_cmp(w, i, false, |a, b| a == b)),
        S_CMPK_LG_U32 => f(|w, i, _| sopk_cmp(w, i, false, |a, b| a != b)),
        S_CMPK_GT_U32 => f(|w, i, _| sopk_cmp(w, i, false, |a, b| a > b)),
        S_CMPK_GE_U32 => f(|w, i, _| sopk_cmp(w, i, false, |a, b| a >= b)),
        S_CMPK_LT_U32 => f(|w, i, _| sopk_cmp(w, i, false, |a, b| a < b)),
        S_CMPK_LE_U32 => f(|w, i, _| sopk_cmp(w, i, false, |a, b| a <= b)),

        // ---- SOPC
        S_CMP_EQ_I32 | S_CMP_EQ_U32 => f(|w, i, _| sopc(w, i, |a, b| a == b)),
        S_CMP_LG_I32 | S_CMP_LG_U32 => f(|w, i, _| sopc(w, i, |a, b| a != b)),
        S_CMP_GT_I32 => f(|w, i, _| sopc(w, i, |a, b| (a as i32) > (b as i32))),
        S_CMP_GE_I32 => f(|w, i, _| sopc(w, i, |a, b| (a as i32) >= (b as i32))),
        S_CMP_LT_I32 => f(|w, i, _| sopc(w, i, |a, b| (a as i32) < (b as i32))),
        S_CMP_LE_I32 => f(|w, i, _| sopc(w, i, |a, b| (a as i32) <= (b as i32))),
        S_CMP_GT_U32 => f(|w, i, _| sopc(w, i, |a, b| a > b)),
        S_CMP_GE_U32 => f(|w, i, _| sopc(w, i, |a, b| a >= b)),
        S_CMP_LT_U32 => f(|w, i, _| sopc(w, i, |a, b| a < b)),
        S_CMP_LE_U32 => f(|w, i, _| sopc(w, i, |a, b| a <= b)),
        S_CMP_EQ_U64 => f(|w, i, _| {
            w.scc = a64(w, i) == b64(w, i);
            Ok(Flow::Next)
        }),
        S_CMP_LG_U64 => f(|w, i, _| {
            w.scc = a64(w, i) != b64(w, i);
            Ok(Flow::Next)
        }),
        S_BITCMP0_B32 => f(|w, i, _| sopc(w, i, |a, b| (a >> (b & 31)) & 1 == 0)),
        S_BITCMP1_B32 => f(|w, i, _| sopc(w, i, |a, b| (a >> (b & 31)) & 1 == 1)),
        S_BITCMP0_B64 => f(|w, i, _| {
            w.scc = (a64(w, i) >> (b32(w, i) & 63)) & 1 == 0;
            Ok(Flow::Next)
        }),
        S_BITCMP1_B64 => f(|w, i, _| {
            w.scc = (a64(w, i) >> (b32(w, i) & 63)) & 1 == 1;
            Ok(Flow::Next)
        }),
        _ => None,
    }
}

fn lshl_add(a: u32, b: u32, n: u32) -> (u32, Option<bool>) {
    let s = (u64::from(a) << n) + u64::from(b);
    (s as u32, Some(s >> 32 != 0))
}

fn bitset(w: &mut Wave, i: &Inst, one: bool, bits: u32) -> Exec {
    let bit = a32(w, i) & (bits - 1);
    let Dst::S(r) = i.sdst else {
        return Ok(Flow::Next);
    };
    if bits == 32 {
        let v = &mut w.s[usize::from(r)];
        *v = if one {
            *v | (1 << bit)
        } else {
            *v & !(1 << bit)
        };
    } else {
        let v = w.s64(r);
        let v = if one { v | (1 << bit) } else { v & !(1 << bit) };
        w.set_s64(r, v);
    }
    Ok(Flow::Next)
}

fn scalar_index(s: super::program::Src) -> Option<u8> {
    match s {
        super::program::Src::S(i) => Some(i),
        _ => None,
    }
}
