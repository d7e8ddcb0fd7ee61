//! Packed math (VOP3P): gfx90a's packed f32 (`v_pk_add_f32`,
//! `v_pk_mul_f32`, `v_pk_fma_f32`, `v_pk_mov_b32`) on VGPR pairs, and
//! the packed 16-bit integer and f16 operations on the two halves of a
//! dword, plus the AccVGPR moves (`v_accvgpr_read/write/mov_b32`).
//!
//! Each half of the result takes its operands from the half `op_sel`
//! (low result) or `op_sel_hi` (high result) selects, negated by `neg_lo`
//! / `neg_hi` for float operations. An inline constant or SGPR that is 32
//! bits wide feeds both halves of a packed f32 operand.

use isa::Opcode::{self, *};

use super::program::{ExecFn, Inst, Src};
use super::vf32::{Env, flush32};
use super::vmem::{f16_to_f32, f32_to_f16};
use super::wave::{LANES, Ty, Wave};
use super::{Exec, Fault, Flow};

fn f(x: ExecFn) -> Option<ExecFn> {
    Some(x)
}

/// A packed-f32 operand: (low dword, high dword) per lane.
fn pair(w: &Wave, s: Src) -> Result<[u64; LANES], Fault> {
    match s {
        Src::V(_) | Src::S(_) => w.read64(s, Ty::B64),
        other => {
            let v = u64::from(w.scalar32(other, Ty::F32));
            Ok([v | (v << 32); LANES])
        }
    }
}

fn half(v: u64, hi: bool) -> u32 {
    if hi { (v >> 32) as u32 } else { v as u32 }
}

/// Packed f32: each result half is `op` of the selected operand halves.
fn pk_f32(w: &mut Wave, i: &Inst, n: usize, op: impl Fn(f32, f32, f32) -> f32) -> Exec {
    let env = Env::f32(w);
    let srcs = [
        pair(w, i.src[0])?,
        if n > 1 {
            pair(w, i.src[1])?
        } else {
            [0; LANES]
        },
        if n > 2 {
            pair(w, i.src[2])?
        } else {
            [0; LANES]
        },
    ];
    let m = i.mods;
    let mut d = [0u64; LANES];
    for l in 0..LANES {
        let mut out = [0u32; 2];
        for (h, o) in out.iter_mut().enumerate() {
            let sel = if h == 0 { m.op_sel } else { m.op_sel_hi };
            let neg = if h == 0 { m.neg } else { m.abs };
            let x = |k: usize| {
                let mut v = half(srcs[k][l], sel >> k & 1 != 0);
                if neg >> k & 1 != 0 {
                    v ^= 0x8000_0000;
                }
                f32::from_bits(if env.flush_in { flush32(v) } else { v })
            };
            let r = op(x(0), x(1), x(2));
            let r = if m.clamp && !r.is_nan() {
                r.clamp(0.0, 1.0) + 0.0
            } else {
                r
            };
            *o = if env.flush_out {
                flush32(r.to_bits())
            } else {
                r.to_bits()
            };
        }
        d[l] = u64::from(out[0]) | (u64::from(out[1]) << 32);
    }
    w.write64(i.vdst, &d)?;
    Ok(Flow::Next)
}

/// Packed 16-bit: each result half is `op` of the selected 16-bit halves
/// (`neg` applies to f16 operations only).
fn pk16(w: &mut Wave, i: &Inst, n: usize, float: bool, op: impl Fn(u16, u16, u16) -> u16) -> Exec {
    let ty = if float { Ty::F16 } else { Ty::B32 };
    let srcs = [
        w.read32(i.src[0], ty)?,
        if n > 1 {
            w.read32(i.src[1], ty)?
        } else {
            [0; LANES]
        },
        if n > 2 {
            w.read32(i.src[2], ty)?
        } else {
            [0; LANES]
        },
    ];
    let m = i.mods;
    let mut d = [0u32; LANES];
    for l in 0..LANES {
        let mut out = 0u32;
        for h in 0..2 {
            let sel = if h == 0 { m.op_sel } else { m.op_sel_hi };
            let neg = if h == 0 { m.neg } else { m.abs };
            let x = |k: usize| {
                let v = (srcs[k][l] >> if sel >> k & 1 != 0 { 16 } else { 0 }) as u16;
                if float && neg >> k & 1 != 0 {
                    v ^ 0x8000
                } else {
                    v
                }
            };
            out |= u32::from(op(x(0), x(1), x(2))) << (16 * h);
        }
        d[l] = out;
    }
    w.write32(i.vdst, &d)?;
    Ok(Flow::Next)
}

fn hf(op: impl Fn(f32, f32, f32) -> f32) -> impl Fn(u16, u16, u16) -> u16 {
    move |a, b, c| f32_to_f16(op(f16_to_f32(a), f16_to_f32(b), f16_to_f32(c)))
}

/// The handler of a packed or AccVGPR-move operation.
pub(crate) fn handler(op: Opcode) -> Option<ExecFn> {
    match op {
        V_PK_ADD_F32 => f(|w, i, _| pk_f32(w, i, 2, |a, b, _| a + b)),
        V_PK_MUL_F32 => f(|w, i, _| pk_f32(w, i, 2, |a, b, _| a * b)),
        V_PK_FMA_F32 => f(|w, i, _| pk_f32(w, i, 3, f32::mul_add)),
        V_PK_MOV_B32 => f(|w, i, _| {
            let a = pair(w, i.src[0])?;
            let b = pair(w, i.src[1])?;
            let s = i.mods.op_sel;
            let mut d = [0u64; LANES];
            for l in 0..LANES {
                d[l] =
                    u64::from(half(a[l], s & 1 != 0)) | (u64::from(half(b[l], s & 2 != 0)) << 32);
            }
            w.write64(i.vdst, &d)?;
            Ok(Flow::Next)
        }),
        V_PK_ADD_U16 | V_PK_ADD_I16 => {
            f(|w, i, _| pk16(w, i, 2, false, |a, b, _| a.wrapping_add(b)))
        }
        V_PK_SUB_U16 | V_PK_SUB_I16 => {
            f(|w, i, _| pk16(w, i, 2, false, |a, b, _| a.wrapping_sub(b)))
        }
        V_PK_MUL_LO_U16 => f(|w, i, _| pk16(w, i, 2, false, |a, b, _| a.wrapping_mul(b))),
        V_PK_MAD_U16 => {
            f(|w, i, _| pk16(w, i, 3, false, |a, b, c| a.wrapping_mul(b).wrapping_add(c)))
        }
        V_PK_MAD_I16 => {
            f(|w, i, _| pk16(w, i, 3, false, |a, b, c| a.wrapping_mul(b).wrapping_add(c)))
        }
        V_PK_LSHLREV_B16 => f(|w, i, _| pk16(w, i, 2, false, |a, b, _| b << (a & 15))),
        V_PK_LSHRREV_B16 => f(|w, i, _| pk16(w, i, 2, false, |a, b, _| b >> (a & 15))),
        V_PK_ASHRREV_I16 => {
            f(|w, i, _| pk16(w, i, 2, false, |a, b, _| ((b as i16) >> (a & 15)) as u16))
        }
        V_PK_MAX_U16 => f(|w, i, _| pk16(w, i, 2, false, |a, b, _| a.max(b))),
        V_PK_MIN_U16 => f(|w, i, _| pk16(w, i, 2, false, |a, b, _| a.min(b))),
        V_PK_MAX_I16 => {
            f(|w, i, _| pk16(w, i, 2, false, |a, b, _| (a as i16).max(b as i16) as u16))
        }
        V_PK_MIN_I16 => {
            f(|w, i, _| pk16(w, i, 2, false, |a, b, _| (a as i16).min(b as i16) as u16))
        }
        V_PK_ADD_F16 => f(|w, i, _| pk16(w, i, 2, true, hf(|a, b, _| a + b))),
        V_PK_MUL_F16 => f(|w, i, _| pk16(w, i, 2, true, hf(|a, b, _| a * b))),
        // f16 fma through f64 is exact before the one rounding to f16
        // (the f32 product of two f16 is exact; the sum is rounded once).
        V_PK_FMA_F16 => f(|w, i, _| {
            pk16(w, i, 3, true, |a, b, c| {
                let r =
                    f64::from(f16_to_f32(a)) * f64::from(f16_to_f32(b)) + f64::from(f16_to_f32(c));
                f32_to_f16(r as f32)
            })
        }),
        V_PK_MAX_F16 => f(|w, i, _| {
            pk16(
                w,
                i,
                2,
                true,
                hf(|a, b, _| super::vf32::minmax(a, b, true, true)),
            )
        }),
        V_PK_MIN_F16 => f(|w, i, _| {
            pk16(
                w,
                i,
                2,
                true,
                hf(|a, b, _| super::vf32::minmax(a, b, false, true)),
            )
        }),
        V_ACCVGPR_READ_B32 | V_ACCVGPR_WRITE_B32 | V_ACCVGPR_MOV_B32 => f(|w, i, _| {
            let a = w.read32(i.src[0], Ty::B32)?;
            w.write32(i.vdst, &a)?;
            Ok(Flow::Next)
        }),
        _ => None,
    }
}
