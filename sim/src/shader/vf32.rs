//! Vector single-precision float operations (VOP1/VOP2/VOP3 f32 forms).
//!
//! Order per lane, as the ISA defines it: input modifiers (`abs` then
//! `neg`, VOP3 only), input denormal flush when MODE.FP_DENORM[1:0] asks for
//! it, the operation in IEEE round-to-nearest-even (host f32, which is
//! IEEE 754), then the output modifier (`omod`), `clamp` to [0, 1] (NaN to
//! 0 under DX10_CLAMP) and the output denormal flush. `v_mad_f32`,
//! `v_mac_f32`, `v_madmk_f32`, `v_madak_f32` are unfused and never keep
//! denormals; the transcendental ops (`v_rcp_f32`, `v_rsq_f32`,
//! `v_sqrt_f32`, `v_exp_f32`, `v_log_f32`, `v_sin_f32`, `v_cos_f32`)
//! flush denormals too and are computed in f64 then rounded: within the
//! hardware's documented 1 ulp, not bit-identical to it (the coverage
//! report calls them approximate).
//!
//! Round modes other than nearest-even are not modelled: the result is
//! rounded to nearest even whatever MODE.FP_ROUND says.

use isa::Opcode::{self, *};

use super::program::{ExecFn, Inst, Src};
use super::wave::{LANES, Ty, Wave};
use super::{Exec, Flow};

fn f(x: ExecFn) -> Option<ExecFn> {
    Some(x)
}

/// The float environment of one instruction.
#[derive(Clone, Copy)]
pub(crate) struct Env {
    /// Flush denormal inputs.
    pub flush_in: bool,
    /// Flush denormal results.
    pub flush_out: bool,
    /// DX10_CLAMP: clamp turns NaN into 0.
    pub dx10: bool,
    /// IEEE mode (min/max quiet signalling NaNs).
    pub ieee: bool,
}

impl Env {
    /// The f32 environment (MODE.FP_DENORM[1:0]).
    pub fn f32(w: &Wave) -> Self {
        Self::with_denorm(w, (w.mode >> 4) & 3)
    }

    /// The f64/f16 environment (MODE.FP_DENORM[3:2]).
    pub fn f64(w: &Wave) -> Self {
        Self::with_denorm(w, (w.mode >> 6) & 3)
    }

    fn with_denorm(w: &Wave, d: u32) -> Self {
        Self {
            flush_in: d == 0 || d == 2,
            flush_out: d == 0 || d == 1,
            dx10: w.mode & (1 << 8) != 0,
            ieee: w.mode & (1 << 9) != 0,
        }
    }

    /// Always flushing (the ops without denormal support).
    pub fn flushing(w: &Wave) -> Self {
        Self {
            flush_in: true,
            flush_out: true,
            ..Self::f32(w)
        }
    }
}

/// A denormal becomes a zero of the same sign.
#[inline]
pub(crate) fn flush32(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

/// The source `k` of `i` as f32 bits after `abs`/`neg` and the input flush.
#[inline]
fn input(x: u32, k: u8, i: &Inst, env: Env) -> f32 {
    let mut x = x;
    if i.mods.abs >> k & 1 != 0 {
        x &= 0x7fff_ffff;
    }
    if i.mods.neg >> k & 1 != 0 {
        x ^= 0x8000_0000;
    }
    if env.flush_in {
        x = flush32(x);
    }
    f32::from_bits(x)
}

/// The result after `omod`, `clamp` and the output flush.
#[inline]
pub(crate) fn output(r: f32, i: &Inst, env: Env) -> u32 {
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
            // -0 clamps to +0.
            r.clamp(0.0, 1.0) + 0.0
        };
    }
    let bits = r.to_bits();
    if env.flush_out { flush32(bits) } else { bits }
}

/// Whether the instruction has no modifiers, so the fast path applies.
#[inline]
fn plain(i: &Inst) -> bool {
    i.mods.abs == 0 && i.mods.neg == 0 && i.mods.omod == 0 && !i.mods.clamp
}

/// `d = op(s0)`.
#[inline]
pub(crate) fn vf1(w: &mut Wave, i: &Inst, env: Env, op: impl Fn(f32) -> f32) -> Exec {
    let a = w.read32(i.src[0], Ty::F32)?;
    let mut d = [0u32; LANES];
    for l in 0..LANES {
        d[l] = output(op(input(a[l], 0, i, env)), i, env);
    }
    w.write32(i.vdst, &d)?;
    Ok(Flow::Next)
}

/// `d = op(s0, s1)`.
#[inline]
pub(crate) fn vf2(w: &mut Wave, i: &Inst, env: Env, op: impl Fn(f32, f32) -> f32) -> Exec {
    if plain(i) && !env.flush_in && !env.flush_out {
        w.map32(i.vdst, [i.src[0], i.src[1]], Ty::F32, |[a, b]| {
            op(f32::from_bits(a), f32::from_bits(b)).to_bits()
        })?;
        return Ok(Flow::Next);
    }
    let [a, b] = w.read32_refs([i.src[0], i.src[1]], Ty::F32)?;
    let mut d = [0u32; LANES];
    {
        for l in 0..LANES {
            d[l] = output(op(input(a[l], 0, i, env), input(b[l], 1, i, env)), i, env);
        }
    }
    w.write32(i.vdst, &d)?;
    Ok(Flow::Next)
}

/// `d = op(s0, s1, s2)`; `s2` may be the destination (`v_mac`, `v_fmac`)
/// or the literal K (`v_madak`).
#[inline]
fn vf3(w: &mut Wave, i: &Inst, env: Env, c: C, op: impl Fn(f32, f32, f32) -> f32) -> Exec {
    let a = w.read32(i.src[0], Ty::F32)?;
    let b = w.read32(i.src[1], Ty::F32)?;
    let cv = match c {
        C::Src2 => w.read32(i.src[2], Ty::F32)?,
        C::Dst => match i.vdst {
            super::program::Dst::V(r) => *w.vget(r)?,
            _ => [0; LANES],
        },
    };
    let mut d = [0u32; LANES];
    if plain(i) && !env.flush_in && !env.flush_out {
        for l in 0..LANES {
            d[l] = op(
                f32::from_bits(a[l]),
                f32::from_bits(b[l]),
                f32::from_bits(cv[l]),
            )
            .to_bits();
        }
    } else {
        for l in 0..LANES {
            d[l] = output(
                op(
                    input(a[l], 0, i, env),
                    input(b[l], 1, i, env),
                    input(cv[l], 2, i, env),
                ),
                i,
                env,
            );
        }
    }
    w.write32(i.vdst, &d)?;
    Ok(Flow::Next)
}

/// `v_fma_f32` / `v_fmac_f32`: without modifiers or denormal flushing,
/// the host's fused multiply-add over the lanes ([`super::hostfp`]).
fn fma(w: &mut Wave, i: &Inst, c: C) -> Exec {
    let env = Env::f32(w);
    if !(plain(i) && !env.flush_in && !env.flush_out) {
        return vf3(w, i, env, c, f32::mul_add);
    }
    let c = match c {
        C::Src2 => i.src[2],
        C::Dst => match i.vdst {
            super::program::Dst::V(r) => Src::V(r),
            _ => Src::Zero,
        },
    };
    super::hostfp::fma32_map(w, i.vdst, [i.src[0], i.src[1], c])?;
    Ok(Flow::Next)
}

#[derive(Clone, Copy)]
enum C {
    Src2,
    Dst,
}

/// The handler for the waves of a work-group in lockstep, all at once
/// ([`super::lockstep::GroupFn`]), of the f32 operations whose ordinary
/// handler is one lane map when no modifier or denormal flushing applies
/// (`vf2`'s and `fma`'s fast paths): the same map over each wave's lanes.
pub(crate) fn group(op: Opcode) -> Option<super::lockstep::GroupFn> {
    fn g(x: super::lockstep::GroupFn) -> Option<super::lockstep::GroupFn> {
        Some(x)
    }
    match op {
        V_ADD_F32 => g(|ws, i| vf2_group(ws, i, |a, b| a + b)),
        V_SUB_F32 => g(|ws, i| vf2_group(ws, i, |a, b| a - b)),
        V_SUBREV_F32 => g(|ws, i| vf2_group(ws, i, |a, b| b - a)),
        V_MUL_F32 => g(|ws, i| vf2_group(ws, i, |a, b| a * b)),
        V_FMA_F32 => g(|ws, i| fma_group(ws, i, C::Src2)),
        V_FMAC_F32 => g(|ws, i| fma_group(ws, i, C::Dst)),
        _ => None,
    }
}

/// Whether the group's f32 operations run as plain host arithmetic: no
/// modifiers, no denormal flushing (the group shares its MODE).
#[inline]
fn plain_in(waves: &[Wave], i: &Inst) -> bool {
    waves.first().is_some_and(|w| {
        let env = Env::f32(w);
        plain(i) && !env.flush_in && !env.flush_out
    })
}

#[inline]
fn vf2_group(waves: &mut [Wave], i: &Inst, op: impl Fn(f32, f32) -> f32) -> bool {
    plain_in(waves, i)
        && Wave::map32_group(waves, i.vdst, [i.src[0], i.src[1]], Ty::F32, |[a, b]| {
            op(f32::from_bits(a), f32::from_bits(b)).to_bits()
        })
}

#[inline]
fn fma_group(waves: &mut [Wave], i: &Inst, c: C) -> bool {
    if !plain_in(waves, i) {
        return false;
    }
    let c = match (c, i.vdst) {
        (C::Src2, _) => i.src[2],
        (C::Dst, super::program::Dst::V(r)) => Src::V(r),
        (C::Dst, _) => return false,
    };
    super::hostfp::fma32_group(waves, i.vdst, [i.src[0], i.src[1], c])
}

/// `v_madmk_f32` (`s0 * K + s1`) and `v_madak_f32` (`s0 * s1 + K`), and
/// the fused `v_fmamk`/`v_fmaak`.
fn vk(w: &mut Wave, i: &Inst, env: Env, k_mul: bool, op: impl Fn(f32, f32, f32) -> f32) -> Exec {
    let a = w.read32(i.src[0], Ty::F32)?;
    let b = w.read32(i.src[1], Ty::F32)?;
    let k = f32::from_bits(if env.flush_in { flush32(i.lit) } else { i.lit });
    let mut d = [0u32; LANES];
    for l in 0..LANES {
        let x = input(a[l], 0, i, env);
        let y = input(b[l], 1, i, env);
        let r = if k_mul { op(x, k, y) } else { op(x, y, k) };
        d[l] = output(r, i, env);
    }
    w.write32(i.vdst, &d)?;
    Ok(Flow::Next)
}

/// Unfused multiply-add: the product is rounded (and flushed) first.
#[inline]
fn mad(a: f32, b: f32, c: f32) -> f32 {
    f32::from_bits(flush32((a * b).to_bits())) + c
}

fn is_snan(x: f32) -> bool {
    x.is_nan() && x.to_bits() & 0x0040_0000 == 0
}

fn quiet(x: f32) -> f32 {
    f32::from_bits(x.to_bits() | 0x0040_0000)
}

/// `v_min_f32` / `v_max_f32`: IEEE 754-2008 minNum/maxNum (a quiet NaN
/// loses to a number; in IEEE mode a signalling NaN input gives a quiet
/// NaN); -0 orders below +0.
#[inline]
pub(crate) fn minmax(a: f32, b: f32, max: bool, ieee: bool) -> f32 {
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

/// `v_med3_f32`: with a NaN source, the minimum of the three; else the
/// median (AMD GCN3 ISA `V_MED3_F32`).
fn med3(a: f32, b: f32, c: f32, ieee: bool) -> f32 {
    if a.is_nan() || b.is_nan() || c.is_nan() {
        return minmax(minmax(a, b, false, ieee), c, false, ieee);
    }
    let m = minmax(minmax(a, b, true, ieee), c, true, ieee);
    if m.to_bits() == a.to_bits() {
        minmax(b, c, true, ieee)
    } else if m.to_bits() == b.to_bits() {
        minmax(a, c, true, ieee)
    } else {
        minmax(a, b, true, ieee)
    }
}

/// `v_fract_f32`: `x - floor(x)`, below 1.0; infinities give NaN.
fn fract(x: f32) -> f32 {
    if x.is_infinite() {
        return f32::NAN;
    }
    (x - x.floor()).min(f32::from_bits(0x3f7f_ffff))
}

/// `v_rndne_f32`: round to nearest, ties to even.
fn rndne(x: f32) -> f32 {
    x.round_ties_even()
}

/// `v_frexp_mant_f32`: the mantissa in [0.5, 1); NaN/inf pass through.
fn frexp_mant(x: f32) -> f32 {
    if x.is_nan() || x.is_infinite() || x == 0.0 {
        return x;
    }
    let (m, _) = frexp(f64::from(x));
    m as f32
}

fn frexp_exp(x: f32) -> u32 {
    if x.is_nan() || x.is_infinite() || x == 0.0 {
        return 0;
    }
    frexp(f64::from(x)).1 as u32
}

fn frexp(x: f64) -> (f64, i32) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        // Subnormal: scale up first.
        let (m, e) = frexp(x * f64::from_bits(0x4350_0000_0000_0000)); // 2^54
        return (m, e - 54);
    }
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (m, exp - 1022)
}

/// `v_ldexp_f32`: `x * 2^n`, rounded once.
pub(crate) fn ldexp32(x: f32, n: i32) -> f32 {
    if x == 0.0 || x.is_nan() || x.is_infinite() {
        return x;
    }
    let n = n.clamp(-400, 400);
    // Two exact steps in f64, then one rounding to f32.
    let r = f64::from(x) * 2f64.powi(n / 2) * 2f64.powi(n - n / 2);
    r as f32
}

/// The handler of an f32 operation.
pub(crate) fn handler(op: Opcode) -> Option<ExecFn> {
    match op {
        V_ADD_F32 => f(|w, i, _| vf2(w, i, Env::f32(w), |a, b| a + b)),
        V_SUB_F32 => f(|w, i, _| vf2(w, i, Env::f32(w), |a, b| a - b)),
        V_SUBREV_F32 => f(|w, i, _| vf2(w, i, Env::f32(w), |a, b| b - a)),
        V_MUL_F32 => f(|w, i, _| vf2(w, i, Env::f32(w), |a, b| a * b)),
        V_MUL_LEGACY_F32 => f(|w, i, _| {
            vf2(w, i, Env::f32(w), |a, b| {
                if a == 0.0 || b == 0.0 { 0.0 } else { a * b }
            })
        }),
        V_MIN_F32 => f(|w, i, _| {
            let e = Env::f32(w);
            vf2(w, i, e, move |a, b| minmax(a, b, false, e.ieee))
        }),
        V_MAX_F32 => f(|w, i, _| {
            let e = Env::f32(w);
            vf2(w, i, e, move |a, b| minmax(a, b, true, e.ieee))
        }),
        V_MIN3_F32 => f(|w, i, _| {
            let e = Env::f32(w);
            vf3(w, i, e, C::Src2, move |a, b, c| {
                minmax(minmax(a, b, false, e.ieee), c, false, e.ieee)
            })
        }),
        V_MAX3_F32 => f(|w, i, _| {
            let e = Env::f32(w);
            vf3(w, i, e, C::Src2, move |a, b, c| {
                minmax(minmax(a, b, true, e.ieee), c, true, e.ieee)
            })
        }),
        V_MED3_F32 => f(|w, i, _| {
            let e = Env::f32(w);
            vf3(w, i, e, C::Src2, move |a, b, c| med3(a, b, c, e.ieee))
        }),
        V_FMA_F32 => f(|w, i, _| fma(w, i, C::Src2)),
        V_FMAC_F32 => f(|w, i, _| fma(w, i, C::Dst)),
        V_MAD_F32 => f(|w, i, _| vf3(w, i, Env::flushing(w), C::Src2, mad)),
        V_MAC_F32 => f(|w, i, _| vf3(w, i, Env::flushing(w), C::Dst, mad)),
        V_MADMK_F32 => f(|w, i, _| vk(w, i, Env::flushing(w), true, mad)),
        V_MADAK_F32 => f(|w, i, _| vk(w, i, Env::flushing(w), false, mad)),
        V_FMAMK_F32 => f(|w, i, _| vk(w, i, Env::f32(w), true, f32::mul_add)),
        V_FMAAK_F32 => f(|w, i, _| vk(w, i, Env::f32(w), false, f32::mul_add)),
        V_FLOOR_F32 => f(|w, i, _| vf1(w, i, Env::f32(w), f32::floor)),
        V_CEIL_F32 => f(|w, i, _| vf1(w, i, Env::f32(w), f32::ceil)),
        V_TRUNC_F32 => f(|w, i, _| vf1(w, i, Env::f32(w), f32::trunc)),
        V_RNDNE_F32 => f(|w, i, _| vf1(w, i, Env::f32(w), rndne)),
        V_FRACT_F32 => f(|w, i, _| vf1(w, i, Env::f32(w), fract)),
        V_FREXP_MANT_F32 => f(|w, i, _| vf1(w, i, Env::f32(w), frexp_mant)),
        V_FREXP_EXP_I32_F32 => f(|w, i, _| {
            let e = Env::f32(w);
            let a = w.read32(i.src[0], Ty::F32)?;
            let mut d = [0u32; LANES];
            for l in 0..LANES {
                d[l] = frexp_exp(input(a[l], 0, i, e));
            }
            w.write32(i.vdst, &d)?;
            Ok(Flow::Next)
        }),
        V_LDEXP_F32 => f(|w, i, _| {
            let e = Env::f32(w);
            let a = w.read32(i.src[0], Ty::F32)?;
            let b = w.read32(i.src[1], Ty::B32)?;
            let mut d = [0u32; LANES];
            for l in 0..LANES {
                d[l] = output(ldexp32(input(a[l], 0, i, e), b[l] as i32), i, e);
            }
            w.write32(i.vdst, &d)?;
            Ok(Flow::Next)
        }),
        V_RCP_F32 | V_RCP_IFLAG_F32 => {
            f(|w, i, _| vf1(w, i, Env::flushing(w), |a| (1.0 / f64::from(a)) as f32))
        }
        V_RSQ_F32 => f(|w, i, _| {
            vf1(w, i, Env::flushing(w), |a| {
                (1.0 / f64::from(a).sqrt()) as f32
            })
        }),
        V_SQRT_F32 => f(|w, i, _| vf1(w, i, Env::flushing(w), f32::sqrt)),
        V_EXP_F32 => f(|w, i, _| vf1(w, i, Env::flushing(w), |a| f64::from(a).exp2() as f32)),
        V_LOG_F32 => f(|w, i, _| vf1(w, i, Env::flushing(w), |a| f64::from(a).log2() as f32)),
        V_SIN_F32 => f(|w, i, _| {
            vf1(w, i, Env::flushing(w), |a| {
                (f64::from(a) * std::f64::consts::TAU).sin() as f32
            })
        }),
        V_COS_F32 => f(|w, i, _| {
            vf1(w, i, Env::flushing(w), |a| {
                (f64::from(a) * std::f64::consts::TAU).cos() as f32
            })
        }),
        _ => None,
    }
}
