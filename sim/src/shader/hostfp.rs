//! Fused multiply-add over a wave's lanes with the host's FMA instruction
//! when the CPU has one (x86-64 FMA3, detected at run time), else
//! `f32::mul_add`/`f64::mul_add`, which without the instruction is a
//! software `fma` of several dozen instructions per lane. Both give the
//! IEEE fused result with one rounding: the choice changes speed only.

#![allow(unsafe_code)]

use super::wave::{LANES, Lanes};

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
fn fma32_loop(a: &Lanes, b: &Lanes, c: &Lanes, d: &mut Lanes) {
    for l in 0..LANES {
        d[l] = f32::from_bits(a[l])
            .mul_add(f32::from_bits(b[l]), f32::from_bits(c[l]))
            .to_bits();
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
fn fma32_hw(a: &Lanes, b: &Lanes, c: &Lanes, d: &mut Lanes) {
    fma32_loop(a, b, c, d)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn fma64_hw(a: &[u64; LANES], b: &[u64; LANES], c: &[u64; LANES], d: &mut [u64; LANES]) {
    fma64_loop(a, b, c, d)
}

/// `d = a * b + c` per lane (f32 bits), one rounding.
#[inline]
pub(crate) fn fma32(a: &Lanes, b: &Lanes, c: &Lanes, d: &mut Lanes) {
    #[cfg(target_arch = "x86_64")]
    if has_fma() {
        // SAFETY: the CPU has the FMA instructions (checked just now).
        return unsafe { fma32_hw(a, b, c, d) };
    }
    let _ = has_fma;
    fma32_loop(a, b, c, d)
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
