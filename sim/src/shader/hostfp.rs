//! Fused multiply-add over a wave's lanes with the host's FMA instruction
//! when the CPU has one (x86-64 FMA3, detected at run time), else
//! `f32::mul_add`/`f64::mul_add`, which without the instruction is a
//! software `fma` of several dozen instructions per lane. Both give the
//! IEEE fused result with one rounding: the choice changes speed only.

#![allow(unsafe_code)]

use super::Fault;
use super::program::Dst;
use super::program::Src;
use super::wave::{LANES, Ty, Wave};

/// Whether the host has AVX2 (cached by std after the first call): the
/// lane loops of [`Wave::map32`] are then compiled for it.
#[inline]
pub(crate) fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether the host has an FMA instruction (cached by std after the first
/// call).
#[inline]
fn has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[inline(always)]
fn fma64_loop(a: &[u64; LANES], b: &[u64; LANES], c: &[u64; LANES], d: &mut [u64; LANES]) {
    for l in 0..LANES {
        d[l] = f64::from_bits(a[l])
            .mul_add(f64::from_bits(b[l]), f64::from_bits(c[l]))
            .to_bits();
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn fma64_hw(a: &[u64; LANES], b: &[u64; LANES], c: &[u64; LANES], d: &mut [u64; LANES]) {
    fma64_loop(a, b, c, d)
}

/// `d = a * b + c` per lane (f64 bits), one rounding.
#[inline]
pub(crate) fn fma64(a: &[u64; LANES], b: &[u64; LANES], c: &[u64; LANES], d: &mut [u64; LANES]) {
    #[cfg(target_arch = "x86_64")]
    if has_fma() {
        // SAFETY: the CPU has the FMA instructions (checked just now).
        return unsafe { fma64_hw(a, b, c, d) };
    }
    fma64_loop(a, b, c, d)
}

#[inline(always)]
fn fma32_lane([a, b, c]: [u32; 3]) -> u32 {
    f32::from_bits(a)
        .mul_add(f32::from_bits(b), f32::from_bits(c))
        .to_bits()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn fma32_map_hw(w: &mut Wave, dst: Dst, s: [Src; 3]) -> Result<(), Fault> {
    // The body inlined here, so that the lane loop has FMA (and the AVX
    // it implies: 256-bit float vectors).
    w.map32_lanes(dst, s, Ty::F32, fma32_lane)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn fma32_group_hw(waves: &mut [Wave], dst: Dst, s: [Src; 3]) -> bool {
    Wave::map32_group_lanes(waves, dst, s, Ty::F32, fma32_lane)
}

/// [`fma32_map`] for the waves of a work-group in lockstep, all at once
/// ([`Wave::map32_group`]); false, having changed nothing, where that
/// does not apply.
#[inline]
pub(crate) fn fma32_group(waves: &mut [Wave], dst: Dst, s: [Src; 3]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if has_fma() {
        // SAFETY: the CPU has the FMA instructions (checked just now).
        return unsafe { fma32_group_hw(waves, dst, s) };
    }
    Wave::map32_group(waves, dst, s, Ty::F32, fma32_lane)
}

/// `dst = a * b + c` (f32 bits, one rounding) in the lanes EXEC enables,
/// written in place ([`Wave::map32`]), a chunk of lanes per host vector.
#[inline]
pub(crate) fn fma32_map(w: &mut Wave, dst: Dst, s: [Src; 3]) -> Result<(), Fault> {
    #[cfg(target_arch = "x86_64")]
    if has_fma() {
        // SAFETY: the CPU has the FMA instructions (checked just now).
        return unsafe { fma32_map_hw(w, dst, s) };
    }
    w.map32(dst, s, Ty::F32, fma32_lane)
}
