//! Vector 16-bit integer operations (VOP2/VOP3 `_u16`/`_i16`/`_b16`, GFX9).
//!
//! Sources are the low 16 bits of their dword, or the high ones when the
//! VOP3 `op_sel` bit of the source is set; the result goes to the low half
//! with the high half zeroed, or to the high half (low kept) with
//! `op_sel[3]`. `clamp` saturates add/sub/mad to the type's range. The
//! mixed forms `v_mad_u32_u16`, `v_mad_i32_i16` and `v_sad_u16` take a
//! 32-bit `src2` and write 32 bits.

use isa::Opcode::{self, *};

use super::program::{Dst, ExecFn, Inst, Src};
use super::wave::{LANES, Ty, Wave};
use super::{Exec, Flow};

fn f(x: ExecFn) -> Option<ExecFn> {
    Some(x)
}

/// The 16-bit source `k` (zero-extended).
fn half(x: u32, k: u8, i: &Inst) -> u32 {
    if i.mods.op_sel >> k & 1 != 0 {
        x >> 16
    } else {
        x & 0xffff
    }
}

fn s16(x: u32) -> i32 {
    i32::from(x as u16 as i16)
}

/// Saturation of a wide result to u16 / i16 under `clamp`, else wrapping.
fn fit(r: i64, signed: bool, clamp: bool) -> u32 {
    if !clamp {
        return (r as u32) & 0xffff;
    }
    if signed {
        (r.clamp(-32768, 32767) as i32 as u32) & 0xffff
    } else {
        r.clamp(0, 65535) as u32
    }
}

/// `d = op(s0, s1, s2)`; `wide` ops read a 32-bit `s2` and write 32 bits.
fn v16(w: &mut Wave, i: &Inst, wide: bool, op: impl Fn(u32, u32, u32, bool) -> u32) -> Exec {
    let a = w.read32(i.src[0], Ty::B32)?;
    let b = w.read32(i.src[1], Ty::B32)?;
    let c = match i.src[2] {
        Src::None => [0; LANES],
        s => w.read32(s, Ty::B32)?,
    };
    let old = match i.vdst {
        Dst::V(r) => *w.vget(r)?,
        _ => [0; LANES],
    };
    let hi = !wide && i.mods.op_sel & 8 != 0;
    let mut d = [0u32; LANES];
    for l in 0..LANES {
        let z = if wide { c[l] } else { half(c[l], 2, i) };
        let r = op(half(a[l], 0, i), half(b[l], 1, i), z, i.mods.clamp);
        d[l] = if wide {
            r
        } else if hi {
            (old[l] & 0xffff) | (r << 16)
        } else {
            r & 0xffff
        };
    }
    w.write32(i.vdst, &d)?;
    Ok(Flow::Next)
}

fn med3<T: Ord + Copy>(a: T, b: T, c: T) -> T {
    a.max(b).min(a.min(b).max(c))
}

/// The handler of a 16-bit integer operation.
pub(crate) fn handler(op: Opcode) -> Option<ExecFn> {
    match op {
        V_ADD_U16 => f(|w, i, _| {
            v16(w, i, false, |a, b, _, cl| {
                fit(i64::from(a) + i64::from(b), false, cl)
            })
        }),
        V_SUB_U16 => f(|w, i, _| {
            v16(w, i, false, |a, b, _, cl| {
                fit(i64::from(a) - i64::from(b), false, cl)
            })
        }),
        V_SUBREV_U16 => f(|w, i, _| {
            v16(w, i, false, |a, b, _, cl| {
                fit(i64::from(b) - i64::from(a), false, cl)
            })
        }),
        V_ADD_I16 => f(|w, i, _| {
            v16(w, i, false, |a, b, _, cl| {
                fit(i64::from(s16(a) + s16(b)), true, cl)
            })
        }),
        V_SUB_I16 => f(|w, i, _| {
            v16(w, i, false, |a, b, _, cl| {
                fit(i64::from(s16(a) - s16(b)), true, cl)
            })
        }),
        V_MUL_LO_U16 => f(|w, i, _| v16(w, i, false, |a, b, _, _| a.wrapping_mul(b))),
        V_LSHLREV_B16 => f(|w, i, _| v16(w, i, false, |a, b, _, _| b << (a & 15))),
        V_LSHRREV_B16 => f(|w, i, _| v16(w, i, false, |a, b, _, _| b >> (a & 15))),
        V_ASHRREV_I16 => f(|w, i, _| v16(w, i, false, |a, b, _, _| (s16(b) >> (a & 15)) as u32)),
        V_MAX_U16 => f(|w, i, _| v16(w, i, false, |a, b, _, _| a.max(b))),
        V_MIN_U16 => f(|w, i, _| v16(w, i, false, |a, b, _, _| a.min(b))),
        V_MAX_I16 => f(|w, i, _| v16(w, i, false, |a, b, _, _| s16(a).max(s16(b)) as u32)),
        V_MIN_I16 => f(|w, i, _| v16(w, i, false, |a, b, _, _| s16(a).min(s16(b)) as u32)),
        V_MAX3_U16 => f(|w, i, _| v16(w, i, false, |a, b, c, _| a.max(b).max(c))),
        V_MIN3_U16 => f(|w, i, _| v16(w, i, false, |a, b, c, _| a.min(b).min(c))),
        V_MED3_U16 => f(|w, i, _| v16(w, i, false, |a, b, c, _| med3(a, b, c))),
        V_MAX3_I16 => f(|w, i, _| {
            v16(w, i, false, |a, b, c, _| {
                s16(a).max(s16(b)).max(s16(c)) as u32
            })
        }),
        V_MIN3_I16 => f(|w, i, _| {
            v16(w, i, false, |a, b, c, _| {
                s16(a).min(s16(b)).min(s16(c)) as u32
            })
        }),
        V_MED3_I16 => f(|w, i, _| {
            v16(w, i, false, |a, b, c, _| {
                med3(s16(a), s16(b), s16(c)) as u32
            })
        }),
        V_MAD_U16 | V_MAD_LEGACY_U16 => f(|w, i, _| {
            v16(w, i, false, |a, b, c, cl| {
                fit(i64::from(a) * i64::from(b) + i64::from(c), false, cl)
            })
        }),
        V_MAD_I16 | V_MAD_LEGACY_I16 => f(|w, i, _| {
            v16(w, i, false, |a, b, c, cl| {
                fit(
                    i64::from(s16(a)) * i64::from(s16(b)) + i64::from(s16(c)),
                    true,
                    cl,
                )
            })
        }),
        V_MAD_U32_U16 => f(|w, i, _| v16(w, i, true, |a, b, c, _| (a * b).wrapping_add(c))),
        V_MAD_I32_I16 => f(|w, i, _| {
            v16(w, i, true, |a, b, c, _| {
                (s16(a) * s16(b)).wrapping_add(c as i32) as u32
            })
        }),
        V_SAD_U16 => f(|w, i, _| v16(w, i, true, |a, b, c, _| a.abs_diff(b).wrapping_add(c))),
        _ => None,
    }
}
