//! Vector double-precision float operations (VOP1/VOP2/VOP3 f64 forms) and
//! the division helpers clang emits for correctly rounded `/` in f32 and
//! f64: `v_div_scale_*`, `v_div_fmas_*`, `v_div_fixup_*`.
//!
//! Per lane, as for f32 (see `vf32`): `abs`/`neg`, the input denormal
//! flush under MODE.FP_DENORM[3:2], the operation in IEEE
//! round-to-nearest-even (host f64), `omod`, `clamp` and the output flush.
//! `v_rcp_f64`, `v_rsq_f64` and `v_sqrt_f64` are documented by AMD as
//! approximations (1 ulp); here they are the correctly rounded host
//! results, so within the documented error, not bit-identical to hardware.
//!
//! Division (AMD MI200 ISA, `V_DIV_SCALE`, `V_DIV_FMAS`, `V_DIV_FIXUP`):
//! `v_div_scale` scales the numerator or the denominator by 2^±64 (f32) /
//! 2^±128 (f64) when the quotient, its reciprocal or the Newton residual
//! would leave the normal range, and sets the lane's bit in `sdst` (VCC)
//! when the final result must be scaled back; `v_div_fmas` is an FMA whose
//! result is scaled back by 2^+k when the scaled quotient estimate (`s2`)
//! is at least 2, else by 2^-k, with a single rounding; `v_div_fixup`
//! turns the special cases (NaN, zero, infinity operands) into the IEEE
//! result and otherwise gives the quotient with the sign of num ^ den.

use isa::Opcode::{self, *};

use super::program::{ExecFn, Inst};
use super::vf32::{Env, flush32};
use super::wave::{LANES, Ty, Wave};
use super::{Exec, Flow};

fn f(x: ExecFn) -> Option<ExecFn> {
    Some(x)
}

const SIGN: u64 = 1 << 63;

/// A denormal becomes a zero of the same sign.
fn flush64(x: u64) -> u64 {
    if x & 0x7ff0_0000_0000_0000 == 0 {
        x & SIGN
    } else {
        x
    }
}

/// Source `k` as f64 after `abs`/`neg` and the input flush.
fn input(x: u64, k: u8, i: &Inst, env: Env) -> f64 {
    let mut x = x;
    if i.mods.abs >> k & 1 != 0 {
        x &= !SIGN;
    }
    if i.mods.neg >> k & 1 != 0 {
        x ^= SIGN;
    }
    if env.flush_in {
        x = flush64(x);
    }
    f64::from_bits(x)
}

/// The result after `omod`, `clamp` and the output flush.
fn output(r: f64, i: &Inst, env: Env) -> u64 {
    let mut r = r;
    match i.mods.omod {
        1 => r *= 2.0,
        2 => r *= 4.0,
        3 => r *= 0.5,
        _ => {}
    }
    if i.mods.clamp {
        r = if r.is_nan() {
            if env.dx10 { 0.0 } else { r }
        } else {
            r.clamp(0.0, 1.0) + 0.0
        };
    }
    let bits = r.to_bits();
    if env.flush_out { flush64(bits) } else { bits }
}

fn vd1(w: &mut Wave, i: &Inst, op: impl Fn(f64) -> f64) -> Exec {
    let env = Env::f64(w);
    let a = w.read64(i.src[0], Ty::F64)?;
    let mut d = [0u64; LANES];
    for l in 0..LANES {
        d[l] = output(op(input(a[l], 0, i, env)), i, env);
    }
    w.write64(i.vdst, &d)?;
    Ok(Flow::Next)
}

fn vd2(w: &mut Wave, i: &Inst, op: impl Fn(f64, f64) -> f64) -> Exec {
    let env = Env::f64(w);
    let a = w.read64(i.src[0], Ty::F64)?;
    let b = w.read64(i.src[1], Ty::F64)?;
    let mut d = [0u64; LANES];
    for l in 0..LANES {
        d[l] = output(op(input(a[l], 0, i, env), input(b[l], 1, i, env)), i, env);
    }
    w.write64(i.vdst, &d)?;
    Ok(Flow::Next)
}

/// `d = op(s0, s1, s2)`; `s2` is the destination for `v_fmac_f64`.
/// `d = op(s0, s1, s2)` (`s2` is the destination with `mac`); `fused`
/// says `op` is the fused multiply-add, which has a fast path.
fn vd3(w: &mut Wave, i: &Inst, mac: bool, fused: bool, op: impl Fn(f64, f64, f64) -> f64) -> Exec {
    let env = Env::f64(w);
    let a = w.read64(i.src[0], Ty::F64)?;
    let b = w.read64(i.src[1], Ty::F64)?;
    let c = if mac {
        match i.vdst {
            super::program::Dst::V(r) => {
                let (lo, hi) = (*w.vget(r)?, *w.vget(r + 1)?);
                let mut c = [0u64; LANES];
                for l in 0..LANES {
                    c[l] = u64::from(lo[l]) | (u64::from(hi[l]) << 32);
                }
                c
            }
            _ => [0; LANES],
        }
    } else {
        w.read64(i.src[2], Ty::F64)?
    };
    let mut d = [0u64; LANES];
    let m = &i.mods;
    if fused
        && m.abs == 0
        && m.neg == 0
        && m.omod == 0
        && !m.clamp
        && !env.flush_in
        && !env.flush_out
    {
        // The host's FMA over the lanes.
        super::hostfp::fma64(&a, &b, &c, &mut d);
        w.write64(i.vdst, &d)?;
        return Ok(Flow::Next);
    }
    for l in 0..LANES {
        d[l] = output(
            op(
                input(a[l], 0, i, env),
                input(b[l], 1, i, env),
                input(c[l], 2, i, env),
            ),
            i,
            env,
        );
    }
    w.write64(i.vdst, &d)?;
    Ok(Flow::Next)
}

fn is_snan(x: f64) -> bool {
    x.is_nan() && x.to_bits() & (1 << 51) == 0
}

fn quiet(x: f64) -> f64 {
    f64::from_bits(x.to_bits() | (1 << 51))
}

/// IEEE 754-2008 minNum/maxNum as `v_min_f64`/`v_max_f64` (see `vf32::minmax`).
fn minmax(a: f64, b: f64, max: bool, ieee: bool) -> f64 {
    if ieee && (is_snan(a) || is_snan(b)) {
        return quiet(if is_snan(a) { a } else { b });
    }
    if a.is_nan() {
        return if b.is_nan() { quiet(a) } else { b };
    }
    if b.is_nan() {
        return a;
    }
    let less = a < b || (a == b && a.is_sign_negative() && b.is_sign_positive());
    if less ^ max { a } else { b }
}

/// `x * 2^n` with one rounding (exact steps, then the last one rounds).
pub(crate) fn ldexp64(x: f64, n: i32) -> f64 {
    if x == 0.0 || x.is_nan() || x.is_infinite() {
        return x;
    }
    let mut n = n.clamp(-2200, 2200);
    let mut r = x;
    // Scale up/down in steps that stay exact until the last one.
    while n > 1000 {
        r *= f64::from_bits(0x7e70_0000_0000_0000); // 2^1000
        n -= 1000;
    }
    while n < -1000 {
        // Keep the value normal before the final rounding step.
        let e = ((r.to_bits() >> 52) & 0x7ff) as i32;
        if e - 1000 <= 1 {
            break;
        }
        r *= f64::from_bits(0x0170_0000_0000_0000); // 2^-1000
        n += 1000;
    }
    if n < -1000 {
        // One rounding: split the rest so only the last step is inexact.
        let half = n / 2;
        return r * 2f64.powi(half) * 2f64.powi(n - half);
    }
    r * 2f64.powi(n)
}

fn frexp(x: f64) -> (f64, i32) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        let (m, e) = frexp(x * f64::from_bits(0x4350_0000_0000_0000)); // 2^54
        return (m, e - 54);
    }
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (m, exp - 1022)
}

fn frexp_mant(x: f64) -> f64 {
    if x.is_nan() || x.is_infinite() || x == 0.0 {
        return x;
    }
    frexp(x).0
}

/// `v_fract_f64`: `x - floor(x)`, below 1.0; infinities give NaN.
fn fract(x: f64) -> f64 {
    if x.is_infinite() {
        return f64::NAN;
    }
    (x - x.floor()).min(f64::from_bits(0x3fef_ffff_ffff_ffff))
}

/// The biased exponent field of an f32.
fn exp32(x: f32) -> i32 {
    ((x.to_bits() >> 23) & 0xff) as i32
}

/// The biased exponent field of an f64.
fn exp64(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7ff) as i32
}

/// Whether `x` (an f64 holding a value of the format, computed from
/// nonzero finite operands) is below the format's smallest normal; a
/// quotient that underflowed to zero counts.
fn tiny(x: f64, min_normal: f64) -> bool {
    x.abs() < min_normal
}

/// `v_div_scale`: `(d, vcc)` for `s0` (the value to scale: the numerator or
/// the denominator), `s1` the denominator, `s2` the numerator. Generic over
/// the format: `emax_gap` the exponent gap that risks overflow (96 / 768),
/// `k` the scale exponent (64 / 128), `mant` the mantissa width (23 / 52),
/// `min_normal` the smallest normal, `ex` the biased exponent.
#[allow(clippy::too_many_arguments)]
fn div_scale(
    s0: f64,
    s1: f64,
    s2: f64,
    emax_gap: i32,
    k: i32,
    mant: i32,
    min_normal: f64,
    ex: impl Fn(f64) -> i32,
    scale: impl Fn(f64, i32) -> f64,
) -> (f64, bool) {
    if s2 == 0.0 || s1 == 0.0 || s0.is_nan() || s1.is_nan() || s2.is_nan() {
        return (f64::NAN, false);
    }
    if s1.is_infinite() || s2.is_infinite() {
        // div_fixup gives the result; nothing to scale.
        return (s0, false);
    }
    let is_den = s0.to_bits() == s1.to_bits();
    let is_num = s0.to_bits() == s2.to_bits();
    let rcp_tiny = tiny(1.0 / s1, min_normal);
    let q_tiny = tiny(s2 / s1, min_normal);
    if ex(s2) - ex(s1) >= emax_gap {
        // The quotient is near the largest value: scale the denominator up.
        (if is_den { scale(s0, k) } else { s0 }, true)
    } else if tiny(s1, min_normal) {
        (scale(s0, k), false)
    } else if rcp_tiny && q_tiny {
        // Huge denominator, tiny quotient: scale the denominator down.
        (if is_den { scale(s0, -k) } else { s0 }, true)
    } else if rcp_tiny {
        (scale(s0, -k), false)
    } else if q_tiny {
        // The quotient is denormal: scale the numerator up.
        (if is_num && !is_den { scale(s0, k) } else { s0 }, true)
    } else if ex(s2) <= mant {
        // The numerator is tiny: scale both so the residual stays normal.
        (scale(s0, k), false)
    } else {
        (s0, false)
    }
}

fn div_scale32(s0: f32, s1: f32, s2: f32) -> (f32, bool) {
    let (d, vcc) = div_scale(
        f64::from(s0),
        f64::from(s1),
        f64::from(s2),
        96,
        64,
        23,
        f64::from(f32::MIN_POSITIVE),
        |x| exp32(x as f32),
        |x, n| f64::from(super::vf32::ldexp32(x as f32, n)),
    );
    (d as f32, vcc)
}

fn div_scale64(s0: f64, s1: f64, s2: f64) -> (f64, bool) {
    div_scale(s0, s1, s2, 768, 128, 52, f64::MIN_POSITIVE, exp64, ldexp64)
}

/// `s + e` (an exact unevaluated sum, `s` its f64 rounding) rounded once
/// to f32: `s` is first made round-to-odd (a nonzero `e` moves an even `s`
/// one f64 ulp toward it), which never lands on an f32 tie, so the f32
/// rounding of it is the rounding of the exact sum.
pub(crate) fn round_f32(s: f64, e: f64) -> f32 {
    odd64(s, e) as f32
}

/// `s` made round-to-odd given the sign of the rest `e`.
pub(crate) fn odd64(s: f64, e: f64) -> f64 {
    if e == 0.0 || !s.is_finite() || s.to_bits() & 1 != 0 {
        s
    } else if (e > 0.0) == (s > 0.0) {
        f64::from_bits(s.to_bits() + 1)
    } else {
        f64::from_bits(s.to_bits() - 1)
    }
}

/// `v_div_fmas_f32`: `fma(a, b, c)`, scaled back by 2^±64 under VCC, one rounding.
fn div_fmas32(a: f32, b: f32, c: f32, vcc: bool) -> f32 {
    if !vcc {
        return a.mul_add(b, c);
    }
    let k = if exp32(c) > 127 { 64 } else { -64 };
    let p = f64::from(a) * f64::from(b); // exact
    let c = f64::from(c);
    let s = p + c;
    if !s.is_finite() {
        return (s * 2f64.powi(k)) as f32;
    }
    // TwoSum: the exact rounding error of p + c.
    let bb = s - p;
    let e = (p - (s - bb)) + (c - bb);
    let sc = 2f64.powi(k);
    round_f32(s * sc, e * sc)
}

/// `v_div_fmas_f64`: `fma(a, b, c)` scaled back by 2^±128 under VCC with
/// one rounding. Scaling down to a denormal rounds the 53-bit fma result a
/// second time; that second rounding is wrong only when the fma result sits
/// exactly halfway between two denormals, which the sign of the fma's exact
/// remainder (product error from an fma, sum error from TwoSum) resolves.
fn div_fmas64(a: f64, b: f64, c: f64, vcc: bool) -> f64 {
    let r = a.mul_add(b, c);
    if !vcc {
        return r;
    }
    let k = if exp64(c) > 1023 { 128 } else { -128 };
    let t = ldexp64(r, k);
    if k > 0 || !r.is_finite() || !t.is_subnormal() && t != 0.0 {
        return t;
    }
    // The distance from r to the value t stands for, in r's scale.
    let diff = r - ldexp64(t, -k);
    let half = f64::from_bits(1) * 2f64.powi(-k) / 2.0; // exact: 2^(-1075+128)
    if diff.abs() != half {
        return t;
    }
    let ph = a * b;
    let pl = a.mul_add(b, -ph);
    let s = ph + c;
    let bb = s - ph;
    let e = (ph - (s - bb)) + (c - bb);
    let rem = (s - r) + (e + pl);
    if rem != 0.0 && (rem > 0.0) == (diff > 0.0) {
        // The exact value is past the tie, on r's side of it: step toward it.
        let step = f64::from_bits(1);
        if diff > 0.0 { t + step } else { t - step }
    } else {
        // Short of the tie (or exactly on it): t is the nearest.
        t
    }
}

/// `v_div_fixup`: `s0` the quotient, `s1` the denominator, `s2` the numerator.
pub(crate) fn div_fixup(s0: f64, s1: f64, s2: f64, inf: f64) -> f64 {
    let neg = s1.is_sign_negative() != s2.is_sign_negative();
    let signed = |x: f64| if neg { -x } else { x };
    if s2.is_nan() {
        quiet(s2)
    } else if s1.is_nan() {
        quiet(s1)
    } else if (s1 == 0.0 && s2 == 0.0) || (s1.is_infinite() && s2.is_infinite()) {
        f64::NAN
    } else if s1 == 0.0 || s2.is_infinite() {
        signed(inf)
    } else if s1.is_infinite() || s2 == 0.0 {
        signed(0.0)
    } else if s0.is_nan() {
        signed(inf)
    } else {
        signed(s0.abs())
    }
}

/// The f32 form of the division helpers: 32-bit sources, f32 environment.
fn div32(w: &mut Wave, i: &Inst, which: Div) -> Exec {
    let env = Env::f32(w);
    let src = |w: &Wave, k: usize| w.read32(i.src[k], Ty::F32);
    let (a, b, c) = (src(w, 0)?, src(w, 1)?, src(w, 2)?);
    let inp = |x: u32, k: u8| {
        let mut x = x;
        if i.mods.abs >> k & 1 != 0 {
            x &= 0x7fff_ffff;
        }
        if i.mods.neg >> k & 1 != 0 {
            x ^= 0x8000_0000;
        }
        f32::from_bits(if env.flush_in { flush32(x) } else { x })
    };
    let vcc_in = w.vcc();
    let mut d = [0u32; LANES];
    let mut mask = 0u64;
    for l in 0..LANES {
        let (x, y, z) = (inp(a[l], 0), inp(b[l], 1), inp(c[l], 2));
        let r = match which {
            Div::Scale => {
                let (r, v) = div_scale32(x, y, z);
                mask |= u64::from(v) << l;
                r
            }
            Div::Fmas => div_fmas32(x, y, z, vcc_in >> l & 1 != 0),
            Div::Fixup => div_fixup(f64::from(x), f64::from(y), f64::from(z), f64::INFINITY) as f32,
        };
        d[l] = super::vf32::output(r, i, env);
    }
    w.write32(i.vdst, &d)?;
    if let Div::Scale = which {
        w.write_mask(i.sdst, mask);
    }
    Ok(Flow::Next)
}

/// The f64 form of the division helpers.
fn div64(w: &mut Wave, i: &Inst, which: Div) -> Exec {
    let env = Env::f64(w);
    let a = w.read64(i.src[0], Ty::F64)?;
    let b = w.read64(i.src[1], Ty::F64)?;
    let c = w.read64(i.src[2], Ty::F64)?;
    let vcc_in = w.vcc();
    let mut d = [0u64; LANES];
    let mut mask = 0u64;
    for l in 0..LANES {
        let (x, y, z) = (
            input(a[l], 0, i, env),
            input(b[l], 1, i, env),
            input(c[l], 2, i, env),
        );
        let r = match which {
            Div::Scale => {
                let (r, v) = div_scale64(x, y, z);
                mask |= u64::from(v) << l;
                r
            }
            Div::Fmas => div_fmas64(x, y, z, vcc_in >> l & 1 != 0),
            Div::Fixup => div_fixup(x, y, z, f64::INFINITY),
        };
        d[l] = output(r, i, env);
    }
    w.write64(i.vdst, &d)?;
    if let Div::Scale = which {
        w.write_mask(i.sdst, mask);
    }
    Ok(Flow::Next)
}

#[derive(Clone, Copy)]
enum Div {
    Scale,
    Fmas,
    Fixup,
}

/// 2/π to 1201 fraction bits (b1200 first), left-aligned in 19 words: the
/// table `v_trig_preop_f64` reads (computed from Machin's formula; the
/// same digits as the Payne-Hanek tables of fdlibm).
const TWO_OVER_PI: [u64; 19] = [
    0xa2f9_836e_4e44_1529,
    0xfc27_57d1_f534_ddc0,
    0xdb62_9599_3c43_9041,
    0xfe51_63ab_debb_c561,
    0xb724_6e3a_424d_d2e0,
    0x0649_2eea_09d1_921c,
    0xfe1d_eb1c_b129_a73e,
    0xe882_35f5_2ebb_4484,
    0xe99c_7026_b45f_7e41,
    0x3991_d639_8353_39f4,
    0x9c84_5f8b_bdf9_283b,
    0x1ff8_97ff_de05_980f,
    0xef2f_118b_5a0a_6d1f,
    0x6d36_7ecf_27cb_09b7,
    0x4f46_3f66_9e5f_ea2d,
    0x7527_bac7_ebe5_f17b,
    0x3d07_39f7_8a52_92ea,
    0x6bfb_5fb1_1f8d_5d08,
    0x5603_3046_fc7b_0000,
];

/// The 53 bits of 2/π starting `start` bits after the binary point
/// (zeros past the table's 1201 bits).
fn two_over_pi_bits(start: u32) -> u64 {
    let w = (start / 64) as usize;
    let word = |k: usize| u128::from(TWO_OVER_PI.get(k).copied().unwrap_or(0));
    let window = (word(w) << 64) | word(w + 1);
    ((window << (start % 64)) >> (128 - 53)) as u64
}

/// `v_trig_preop_f64` (AMD MI200 ISA): the 53-bit segment `seg` of 2/π
/// aligned for range reduction of `x`: bits from `seg * 53` (plus the
/// amount `x`'s exponent exceeds 1077 by), scaled by 2^-(53 + shift)
/// (2^128 more when the exponent is >= 1968), rounded toward zero.
fn trig_preop(x: f64, seg: u32) -> f64 {
    let e = exp64(x) as u32;
    let mut shift = (seg & 31) * 53;
    if e > 1077 {
        shift += e - 1077;
    }
    let r = two_over_pi_bits(shift) as f64; // exact: 53 bits
    let mut scale = -53 - shift as i32;
    if e >= 1968 {
        scale += 128;
    }
    let t = ldexp64(r, scale);
    // Toward zero: undo a rounding up (only possible below the normal range).
    if t != 0.0 && ldexp64(t, -scale) > r {
        f64::from_bits(t.to_bits() - 1)
    } else {
        t
    }
}

/// The handler of an f64 operation or a division helper.
pub(crate) fn handler(op: Opcode) -> Option<ExecFn> {
    match op {
        V_ADD_F64 => f(|w, i, _| vd2(w, i, |a, b| a + b)),
        V_MUL_F64 => f(|w, i, _| vd2(w, i, |a, b| a * b)),
        V_MIN_F64 => f(|w, i, _| {
            let ieee = Env::f64(w).ieee;
            vd2(w, i, move |a, b| minmax(a, b, false, ieee))
        }),
        V_MAX_F64 => f(|w, i, _| {
            let ieee = Env::f64(w).ieee;
            vd2(w, i, move |a, b| minmax(a, b, true, ieee))
        }),
        V_FMA_F64 => f(|w, i, _| vd3(w, i, false, true, f64::mul_add)),
        V_FMAC_F64 => f(|w, i, _| vd3(w, i, true, true, f64::mul_add)),
        V_LDEXP_F64 => f(|w, i, _| {
            let env = Env::f64(w);
            let a = w.read64(i.src[0], Ty::F64)?;
            let b = w.read32(i.src[1], Ty::B32)?;
            let mut d = [0u64; LANES];
            for l in 0..LANES {
                d[l] = output(ldexp64(input(a[l], 0, i, env), b[l] as i32), i, env);
            }
            w.write64(i.vdst, &d)?;
            Ok(Flow::Next)
        }),
        V_FREXP_EXP_I32_F64 => f(|w, i, _| {
            let env = Env::f64(w);
            let a = w.read64(i.src[0], Ty::F64)?;
            let mut d = [0u32; LANES];
            for l in 0..LANES {
                let x = input(a[l], 0, i, env);
                d[l] = if x.is_nan() || x.is_infinite() || x == 0.0 {
                    0
                } else {
                    frexp(x).1 as u32
                };
            }
            w.write32(i.vdst, &d)?;
            Ok(Flow::Next)
        }),
        V_FREXP_MANT_F64 => f(|w, i, _| vd1(w, i, frexp_mant)),
        V_FRACT_F64 => f(|w, i, _| vd1(w, i, fract)),
        V_TRUNC_F64 => f(|w, i, _| vd1(w, i, f64::trunc)),
        V_CEIL_F64 => f(|w, i, _| vd1(w, i, f64::ceil)),
        V_FLOOR_F64 => f(|w, i, _| vd1(w, i, f64::floor)),
        V_RNDNE_F64 => f(|w, i, _| vd1(w, i, f64::round_ties_even)),
        V_RCP_F64 => f(|w, i, _| vd1(w, i, |a| 1.0 / a)),
        V_RSQ_F64 => f(|w, i, _| vd1(w, i, |a| 1.0 / a.sqrt())),
        V_SQRT_F64 => f(|w, i, _| vd1(w, i, f64::sqrt)),
        V_TRIG_PREOP_F64 => f(|w, i, _| {
            let env = Env::f64(w);
            let a = w.read64(i.src[0], Ty::F64)?;
            let b = w.read32(i.src[1], Ty::B32)?;
            let mut d = [0u64; LANES];
            for l in 0..LANES {
                d[l] = output(trig_preop(input(a[l], 0, i, env), b[l]), i, env);
            }
            w.write64(i.vdst, &d)?;
            Ok(Flow::Next)
        }),
        V_DIV_SCALE_F32 => f(|w, i, _| div32(w, i, Div::Scale)),
        V_DIV_FMAS_F32 => f(|w, i, _| div32(w, i, Div::Fmas)),
        V_DIV_FIXUP_F32 => f(|w, i, _| div32(w, i, Div::Fixup)),
        V_DIV_SCALE_F64 => f(|w, i, _| div64(w, i, Div::Scale)),
        V_DIV_FMAS_F64 => f(|w, i, _| div64(w, i, Div::Fmas)),
        V_DIV_FIXUP_F64 => f(|w, i, _| div64(w, i, Div::Fixup)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The f64 division sequence LLVM's AMDGPU backend emits (SIISelLowering
    /// `LowerFDIV64`), with the host's correctly rounded reciprocal.
    fn div_seq(x: f64, y: f64) -> f64 {
        let (d0, _) = div_scale64(y, y, x);
        let nd = -d0;
        let rcp = 1.0 / d0;
        let fma0 = nd.mul_add(rcp, 1.0);
        let fma1 = rcp.mul_add(fma0, rcp);
        let fma2 = nd.mul_add(fma1, 1.0);
        let (d1, vcc) = div_scale64(x, y, x);
        let fma3 = fma1.mul_add(fma2, fma1);
        let mul = d1 * fma3;
        let fma4 = nd.mul_add(mul, d1);
        let fmas = div_fmas64(fma4, fma3, mul, vcc);
        div_fixup(fmas, y, x, f64::INFINITY)
    }

    #[test]
    fn trig_preop_segments() {
        // Segment 0 is 2/π truncated to 53 bits (the nearest f64 is
        // 0x3fe45f306dc9c883; the dropped bits are 0x529 of 11).
        assert_eq!(trig_preop(1.0, 0).to_bits(), 0x3fe4_5f30_6dc9_c882);
        // Segments 0..2 add up to 2/π within 2^-159: compare with the
        // next 53 bits of the table, read independently.
        let s1 = trig_preop(1.0, 1);
        assert_eq!(
            s1,
            (((0x529u64) << 42) | (0xfc27_57d1_f534_ddc0 >> 22)) as f64 * 2f64.powi(-106)
        );
        // A large argument (exponent 1100) shifts the window by 23 bits.
        let big = f64::from_bits(1100u64 << 52);
        assert_eq!(
            trig_preop(big, 0),
            two_over_pi_bits(23) as f64 * 2f64.powi(-76)
        );
        assert_eq!(
            two_over_pi_bits(1200) >> 52,
            0,
            "b0 of the table is 0 (...fc7b6 -> 0110)"
        );
        assert_eq!(two_over_pi_bits(1300), 0);
    }

    #[test]
    fn f64_division_sequence_rounds_correctly() {
        let v = [
            (f64::MIN_POSITIVE, 1.5),
            (1.0, 3.0),
            (f64::MAX, 0.5),
            (f64::from_bits(1), 3.0),
            (1e-300, 1e300),
            (1e300, 1e-300),
            (5.0, f64::MAX),
        ];
        for (x, y) in v {
            let got = div_seq(x, y);
            assert_eq!(got.to_bits(), (x / y).to_bits(), "{x:e} / {y:e}");
        }
    }
}
