//! Vector half-precision float operations (VOP1/VOP2/VOP3 scalar f16
//! forms, GFX9): `v_add/sub/subrev/mul/min/max/ldexp_f16`,
//! `v_mac/madak/madmk_f16`, `v_fma/mad_f16`, the rounding ops and the
//! transcendental ones.
//!
//! Each source is the low 16 bits of its dword, or the high ones when the
//! VOP3 `op_sel` bit of the source is set; the result goes to the low half
//! with the high half zeroed, or to the high half (low kept) when
//! `op_sel[3]` is set. Denormals follow MODE.FP_DENORM[3:2] (the f64/f16
//! field). Arithmetic is done in f32 and rounded to f16: add, sub, mul and
//! sqrt of f16 values are exact or correctly rounded that way (24 >= 2*11+2
//! bits); fma is computed in f64 with an exact error term and rounded to odd
//! before the f16 rounding, so it is correctly rounded too. The
//! transcendental ops (`v_rcp/rsq/log/exp/sin/cos_f16`) are within the
//! hardware's documented error, not bit-identical to it. `v_div_fixup_f16`
//! (and its legacy form) is `v_div_fixup` on f16 values; `v_fma_mix*`
//! (VOP3P mixed f16/f32 fma) rounds the fused result once. `v_mad_f16` and
//! `v_mac_f16` are unfused: the product rounds to f16 first.

use isa::Opcode::{self, *};

use super::program::{Dst, ExecFn, Inst};
use super::vf32::Env;
use super::vf64::odd64;
use super::vmem::{f16_to_f32, f32_to_f16};
use super::wave::{LANES, Ty, Wave};
use super::{Exec, Flow};

fn f(x: ExecFn) -> Option<ExecFn> {
    Some(x)
}

/// A denormal becomes a zero of the same sign.
fn flush16(x: u16) -> u16 {
    if x & 0x7c00 == 0 { x & 0x8000 } else { x }
}

/// Where the third operand comes from.
#[derive(Clone, Copy)]
enum C {
    None,
    Src2,
    Dst,
    Lit,
}

/// Source `k` as f32 (exact) after half select, `abs`/`neg` and the flush.
fn input(x: u32, k: u8, i: &Inst, env: Env) -> f32 {
    let mut h = if i.mods.op_sel >> k & 1 != 0 {
        (x >> 16) as u16
    } else {
        x as u16
    };
    if i.mods.abs >> k & 1 != 0 {
        h &= 0x7fff;
    }
    if i.mods.neg >> k & 1 != 0 {
        h ^= 0x8000;
    }
    if env.flush_in {
        h = flush16(h);
    }
    f16_to_f32(h)
}

/// The f16 result bits after `omod`, `clamp` and the output flush.
fn output(r: f32, i: &Inst, env: Env) -> u16 {
    let mut r = r;
    match i.mods.omod {
        1 => r *= 2.0,
        2 => r *= 4.0,
        3 => r *= 0.5,
        _ => {}
    }
    let mut h = f32_to_f16(r);
    if i.mods.clamp {
        let x = f16_to_f32(h);
        h = if x.is_nan() {
            if env.dx10 { 0 } else { h }
        } else {
            f32_to_f16(x.clamp(0.0, 1.0) + 0.0)
        };
    }
    if env.flush_out { flush16(h) } else { h }
}

/// `d = op(s0, s1, s2)` over f16 halves.
fn vh(w: &mut Wave, i: &Inst, c: C, env: Env, op: impl Fn(f32, f32, f32) -> f32) -> Exec {
    let a = w.read32(i.src[0], Ty::F16)?;
    let b = match i.src[1] {
        super::program::Src::None => [0; LANES],
        s => w.read32(s, Ty::F16)?,
    };
    let old = match i.vdst {
        Dst::V(r) => *w.vget(r)?,
        _ => [0; LANES],
    };
    let cv = match c {
        C::None => [0; LANES],
        C::Src2 => w.read32(i.src[2], Ty::F16)?,
        C::Dst => old,
        C::Lit => [i.lit & 0xffff; LANES],
    };
    let hi = i.mods.op_sel & 8 != 0;
    let mut d = [0u32; LANES];
    for l in 0..LANES {
        let r = output(
            op(
                input(a[l], 0, i, env),
                input(b[l], 1, i, env),
                input(cv[l], 2, i, env),
            ),
            i,
            env,
        );
        d[l] = if hi {
            (old[l] & 0xffff) | (u32::from(r) << 16)
        } else {
            u32::from(r)
        };
    }
    w.write32(i.vdst, &d)?;
    Ok(Flow::Next)
}

/// Fused `a * b + c` of f16 values, rounded once: the product is exact in
/// f64, the sum's error comes from TwoSum, and round-to-odd into f32 keeps
/// the final f16 rounding single.
fn fma16(a: f32, b: f32, c: f32) -> f32 {
    let p = f64::from(a) * f64::from(b);
    let c = f64::from(c);
    let s = p + c;
    if !s.is_finite() {
        return s as f32;
    }
    let bb = s - p;
    let e = (p - (s - bb)) + (c - bb);
    let s = odd64(s, e);
    // Round-to-odd again into f32 (which then rounds to f16 once).
    let r = s as f32;
    if f64::from(r) == s || r.to_bits() & 1 != 0 || r.is_infinite() {
        r
    } else {
        let up = f64::from(r) < s;
        let toward = if up == (r > 0.0) {
            r.to_bits() + 1
        } else {
            r.to_bits() - 1
        };
        f32::from_bits(toward)
    }
}

/// Unfused: the product rounds to f16 (flushed) first.
fn mad16(a: f32, b: f32, c: f32) -> f32 {
    let p = f16_to_f32(flush16(f32_to_f16(a * b)));
    p + c
}

fn minmax(a: f32, b: f32, max: bool, ieee: bool) -> f32 {
    super::vf32::minmax(a, b, max, ieee)
}

/// `v_fma_mix_f32` / `v_fma_mixlo_f16` / `v_fma_mixhi_f16` (VOP3P): each
/// source is an f16 (`op_sel_hi[k]` set; its high half when `op_sel[k]`)
/// or an f32, with `neg` and `abs` (the `neg_hi` field); the fused result
/// is rounded once to f32, or to f16 into the low or high half (the other
/// half kept).
fn fma_mix(w: &mut Wave, i: &Inst, out: Mix) -> Exec {
    let m = i.mods;
    let mut srcs = [[0u32; LANES]; 3];
    for (k, s) in srcs.iter_mut().enumerate() {
        let ty = if m.op_sel_hi >> k & 1 != 0 {
            Ty::F16
        } else {
            Ty::F32
        };
        *s = w.read32(i.src[k], ty)?;
    }
    let old = match i.vdst {
        Dst::V(r) => *w.vget(r)?,
        _ => [0; LANES],
    };
    let val = |x: u32, k: usize| -> f32 {
        let mut v = if m.op_sel_hi >> k & 1 != 0 {
            let h = if m.op_sel >> k & 1 != 0 { x >> 16 } else { x };
            f16_to_f32(h as u16)
        } else {
            f32::from_bits(x)
        };
        if m.abs >> k & 1 != 0 {
            v = v.abs();
        }
        if m.neg >> k & 1 != 0 {
            v = -v;
        }
        v
    };
    let clamp = |r: f32| {
        if m.clamp {
            if r.is_nan() {
                0.0
            } else {
                r.clamp(0.0, 1.0) + 0.0
            }
        } else {
            r
        }
    };
    let mut d = [0u32; LANES];
    for l in 0..LANES {
        let (a, b, c) = (val(srcs[0][l], 0), val(srcs[1][l], 1), val(srcs[2][l], 2));
        d[l] = match out {
            Mix::F32 => clamp(a.mul_add(b, c)).to_bits(),
            Mix::Lo | Mix::Hi => {
                let h = f32_to_f16(fma16(a, b, c));
                let h = if m.clamp {
                    f32_to_f16(clamp(f16_to_f32(h)))
                } else {
                    h
                };
                if let Mix::Lo = out {
                    (old[l] & 0xffff_0000) | u32::from(h)
                } else {
                    (old[l] & 0xffff) | (u32::from(h) << 16)
                }
            }
        };
    }
    w.write32(i.vdst, &d)?;
    Ok(Flow::Next)
}

#[derive(Clone, Copy)]
enum Mix {
    F32,
    Lo,
    Hi,
}

/// The handler of a scalar f16 operation.
pub(crate) fn handler(op: Opcode) -> Option<ExecFn> {
    match op {
        V_ADD_F16 => f(|w, i, _| vh(w, i, C::None, Env::f64(w), |a, b, _| a + b)),
        V_SUB_F16 => f(|w, i, _| vh(w, i, C::None, Env::f64(w), |a, b, _| a - b)),
        V_SUBREV_F16 => f(|w, i, _| vh(w, i, C::None, Env::f64(w), |a, b, _| b - a)),
        V_MUL_F16 => f(|w, i, _| vh(w, i, C::None, Env::f64(w), |a, b, _| a * b)),
        V_MIN_F16 => f(|w, i, _| {
            let e = Env::f64(w);
            vh(w, i, C::None, e, move |a, b, _| minmax(a, b, false, e.ieee))
        }),
        V_MAX_F16 => f(|w, i, _| {
            let e = Env::f64(w);
            vh(w, i, C::None, e, move |a, b, _| minmax(a, b, true, e.ieee))
        }),
        V_FMA_F16 => f(|w, i, _| vh(w, i, C::Src2, Env::f64(w), fma16)),
        V_MAD_F16 => f(|w, i, _| vh(w, i, C::Src2, Env::flushing(w), mad16)),
        V_MAC_F16 => f(|w, i, _| vh(w, i, C::Dst, Env::flushing(w), mad16)),
        V_MADAK_F16 => f(|w, i, _| vh(w, i, C::Lit, Env::flushing(w), mad16)),
        V_MADMK_F16 => f(|w, i, _| {
            // s0 * K + s1: K is the literal.
            vh(w, i, C::Lit, Env::flushing(w), |a, b, k| mad16(a, k, b))
        }),
        V_LDEXP_F16 => f(|w, i, _| {
            let env = Env::f64(w);
            let a = w.read32(i.src[0], Ty::F16)?;
            let b = w.read32(i.src[1], Ty::B32)?;
            let mut d = [0u32; LANES];
            for l in 0..LANES {
                // The exponent is the low 16 bits, signed.
                let n = i32::from(b[l] as u16 as i16);
                d[l] = u32::from(output(
                    super::vf32::ldexp32(input(a[l], 0, i, env), n),
                    i,
                    env,
                ));
            }
            w.write32(i.vdst, &d)?;
            Ok(Flow::Next)
        }),
        V_FLOOR_F16 => f(|w, i, _| vh(w, i, C::None, Env::f64(w), |a, _, _| a.floor())),
        V_CEIL_F16 => f(|w, i, _| vh(w, i, C::None, Env::f64(w), |a, _, _| a.ceil())),
        V_TRUNC_F16 => f(|w, i, _| vh(w, i, C::None, Env::f64(w), |a, _, _| a.trunc())),
        V_RNDNE_F16 => f(|w, i, _| vh(w, i, C::None, Env::f64(w), |a, _, _| a.round_ties_even())),
        V_FRACT_F16 => f(|w, i, _| {
            vh(w, i, C::None, Env::f64(w), |a, _, _| {
                if a.is_infinite() {
                    f32::NAN
                } else {
                    // Below 1.0 in f16: 0x3bff.
                    (a - a.floor()).min(f16_to_f32(0x3bff))
                }
            })
        }),
        V_SQRT_F16 => f(|w, i, _| vh(w, i, C::None, Env::f64(w), |a, _, _| a.sqrt())),
        V_RCP_F16 => f(|w, i, _| vh(w, i, C::None, Env::f64(w), |a, _, _| 1.0 / a)),
        V_RSQ_F16 => f(|w, i, _| vh(w, i, C::None, Env::f64(w), |a, _, _| 1.0 / a.sqrt())),
        V_LOG_F16 => f(|w, i, _| vh(w, i, C::None, Env::f64(w), |a, _, _| a.log2())),
        V_FMA_MIX_F32 => f(|w, i, _| fma_mix(w, i, Mix::F32)),
        V_FMA_MIXLO_F16 => f(|w, i, _| fma_mix(w, i, Mix::Lo)),
        V_FMA_MIXHI_F16 => f(|w, i, _| fma_mix(w, i, Mix::Hi)),
        V_DIV_FIXUP_F16 | V_DIV_FIXUP_LEGACY_F16 => f(|w, i, _| {
            vh(w, i, C::Src2, Env::f64(w), |q, d, n| {
                super::vf64::div_fixup(f64::from(q), f64::from(d), f64::from(n), f64::INFINITY)
                    as f32
            })
        }),
        V_EXP_F16 => f(|w, i, _| vh(w, i, C::None, Env::f64(w), |a, _, _| a.exp2())),
        _ => None,
    }
}
