//! Vector integer and bit operations (VOP1, VOP2, VOP3 integer forms):
//! add/sub with and without carry, 24-bit and 32-bit multiplies, the
//! 64-bit multiply-adds, shifts, bit-field ops, min/max/med3, the
//! three-operand fused forms, `v_cndmask_b32` and moves. Every lane is
//! computed, then EXEC selects what is written.

use isa::Opcode::{self, *};

use super::program::{ExecFn, Inst, Src};
use super::wave::{LANES, Lanes, Ty, Wave};
use super::{Exec, Fault, Flow};

fn f(x: ExecFn) -> Option<ExecFn> {
    Some(x)
}

/// `d = op(s0)`.
#[inline]
pub(crate) fn v1(w: &mut Wave, i: &Inst, op: impl Fn(u32) -> u32) -> Exec {
    w.map32(i.vdst, [i.src[0]], Ty::B32, |[a]| op(a))?;
    Ok(Flow::Next)
}

/// `d = op(s0, s1)`.
#[inline]
pub(crate) fn v2(w: &mut Wave, i: &Inst, op: impl Fn(u32, u32) -> u32) -> Exec {
    w.map32(i.vdst, [i.src[0], i.src[1]], Ty::B32, |[a, b]| op(a, b))?;
    Ok(Flow::Next)
}

/// `d = op(s0, s1, s2)`.
#[inline]
pub(crate) fn v3(w: &mut Wave, i: &Inst, op: impl Fn(u32, u32, u32) -> u32) -> Exec {
    w.map32(
        i.vdst,
        [i.src[0], i.src[1], i.src[2]],
        Ty::B32,
        |[a, b, c]| op(a, b, c),
    )?;
    Ok(Flow::Next)
}

/// Add/sub with carry: `(d, carry_out) = op(s0, s1, carry_in)`; the carry
/// in is `src2` (VCC for the VOP2 forms) when the operation has one. With
/// `clamp`, an unsigned overflow saturates.
#[inline]
fn vcarry(w: &mut Wave, i: &Inst, sat: u32, op: impl Fn(u32, u32, bool) -> (u32, bool)) -> Exec {
    let cin = match i.src[2] {
        Src::None => 0,
        s => w.scalar64(s, Ty::B64),
    };
    let [a, b] = w.read32_refs([i.src[0], i.src[1]], Ty::B32)?;
    let mut d = [0u32; LANES];
    // Carry bits one per lane first, packed after: both loops vectorise.
    let mut carry = [0u8; LANES];
    if cin == 0 {
        // No carry in (the `_co` forms, or a clear VCC): no per-lane bit
        // extraction.
        for l in 0..LANES {
            let (r, c) = op(a[l], b[l], false);
            d[l] = r;
            carry[l] = u8::from(c);
        }
    } else {
        for l in 0..LANES {
            let (r, c) = op(a[l], b[l], (cin >> l) & 1 != 0);
            d[l] = r;
            carry[l] = u8::from(c);
        }
    }
    if i.mods.clamp {
        for l in 0..LANES {
            if carry[l] != 0 {
                d[l] = sat;
            }
        }
    }
    let cout = pack_bits(&carry);
    w.write32(i.vdst, &d)?;
    w.write_mask(i.sdst, cout);
    Ok(Flow::Next)
}

/// The lane mask of 64 flags (each 0 or 1): eight lanes at a time, one
/// multiply gathering the low bit of each byte into the top byte.
#[inline]
pub(crate) fn pack_bits(flags: &[u8; LANES]) -> u64 {
    let mut mask = 0u64;
    for (k, eight) in flags.chunks_exact(8).enumerate() {
        let mut b = [0u8; 8];
        b.copy_from_slice(eight);
        // Byte j (bit 8j) times byte m of the constant (bit 7m + 7) lands
        // on bit 8j + 7m + 7: the top byte gets bit 56 + j from m = 7 - j,
        // and no two (j, m) pairs share a bit, so nothing carries.
        let x = (u64::from_le_bytes(b) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080);
        mask |= (x >> 56) << (8 * k);
    }
    mask
}

fn add_c(a: u32, b: u32, c: bool) -> (u32, bool) {
    let s = u64::from(a) + u64::from(b) + u64::from(c);
    (s as u32, s >> 32 != 0)
}

fn sub_c(a: u32, b: u32, c: bool) -> (u32, bool) {
    (
        a.wrapping_sub(b).wrapping_sub(u32::from(c)),
        u64::from(b) + u64::from(c) > u64::from(a),
    )
}

/// A 64-bit result from 64-bit `s1` shifted by `s0` (`v_*rev_b64`).
fn shift64(w: &mut Wave, i: &Inst, op: impl Fn(u64, u32) -> u64) -> Exec {
    let a = w.read32(i.src[0], Ty::B32)?;
    let b = w.read64(i.src[1], Ty::B64)?;
    let mut d = [0u64; LANES];
    for l in 0..LANES {
        d[l] = op(b[l], a[l] & 63);
    }
    w.write64(i.vdst, &d)?;
    Ok(Flow::Next)
}

/// `v_mad_u64_u32` / `v_mad_i64_i32`: 64-bit `s0 * s1 + s2`, carry out to `sdst`.
fn mad64(w: &mut Wave, i: &Inst, signed: bool) -> Exec {
    let c = w.read64(i.src[2], Ty::B64)?;
    let [a, b] = w.read32_refs([i.src[0], i.src[1]], Ty::B32)?;
    let mut d = [0u64; LANES];
    let mut carry = [0u8; LANES];
    // A 32 x 32-bit product fits in 64 bits exactly: the 64-bit add's
    // carry (unsigned) or overflow (signed) is the 65-bit result's.
    if signed {
        for l in 0..LANES {
            let p = i64::from(a[l] as i32) * i64::from(b[l] as i32);
            let (r, o) = p.overflowing_add(c[l] as i64);
            d[l] = r as u64;
            carry[l] = u8::from(o);
        }
    } else {
        for l in 0..LANES {
            let (r, o) = (u64::from(a[l]) * u64::from(b[l])).overflowing_add(c[l]);
            d[l] = r;
            carry[l] = u8::from(o);
        }
    }
    w.write64(i.vdst, &d)?;
    w.write_mask(i.sdst, pack_bits(&carry));
    Ok(Flow::Next)
}

fn bfe_u(v: u32, off: u32, width: u32) -> u32 {
    let (off, width) = (off & 31, width & 31);
    if width == 0 {
        0
    } else {
        (v >> off) & ((1u32 << width) - 1)
    }
}

fn bfe_i(v: u32, off: u32, width: u32) -> u32 {
    let (off, width) = (off & 31, width & 31);
    if width == 0 {
        0
    } else if off + width < 32 {
        (((v << (32 - off - width)) as i32) >> (32 - width)) as u32
    } else {
        ((v as i32) >> off) as u32
    }
}

fn med3<T: Ord + Copy>(a: T, b: T, c: T) -> T {
    a.max(b).min(a.min(b).max(c))
}

fn ffbh_i32(v: u32) -> u32 {
    let x = if (v as i32) < 0 { !v } else { v };
    if x == 0 { u32::MAX } else { x.leading_zeros() }
}

/// `v_perm_b32`: bytes of `{s0, s1}` (s1 low) chosen by each selector byte of `s2`.
fn perm(s0: u32, s1: u32, sel: u32) -> u32 {
    let data = (u64::from(s0) << 32) | u64::from(s1);
    let byte = |s: u32| -> u32 {
        match s {
            0..=7 => ((data >> (8 * s)) & 0xff) as u32,
            8..=11 => {
                let sign_bit = 16 * (s - 8) + 15;
                if (data >> sign_bit) & 1 != 0 { 0xff } else { 0 }
            }
            12 => 0,
            _ => 0xff,
        }
    };
    (0..4).fold(0, |d, k| d | (byte((sel >> (8 * k)) & 0xff) << (8 * k)))
}

fn i24(v: u32) -> i64 {
    i64::from(((v << 8) as i32) >> 8)
}

/// The handler of a vector integer operation.
pub(crate) fn handler(op: Opcode) -> Option<ExecFn> {
    match op {
        V_NOP => f(|_, _, _| Ok(Flow::Next)),
        V_MOV_B32 => f(|w, i, _| v1(w, i, |a| a)),
        V_MOV_B64 => f(|w, i, _| {
            let a = w.read64(i.src[0], Ty::B64)?;
            w.write64(i.vdst, &a)?;
            Ok(Flow::Next)
        }),
        V_NOT_B32 => f(|w, i, _| v1(w, i, |a| !a)),
        V_BFREV_B32 => f(|w, i, _| v1(w, i, u32::reverse_bits)),
        V_FFBH_U32 => f(|w, i, _| v1(w, i, |a| if a == 0 { u32::MAX } else { a.leading_zeros() })),
        V_FFBL_B32 => f(|w, i, _| v1(w, i, |a| if a == 0 { u32::MAX } else { a.trailing_zeros() })),
        V_FFBH_I32 => f(|w, i, _| v1(w, i, ffbh_i32)),
        V_CNDMASK_B32 => f(|w, i, _| {
            let a = w.read32(i.src[0], Ty::B32)?;
            let b = w.read32(i.src[1], Ty::B32)?;
            let m = w.scalar64(i.src[2], Ty::B64);
            // VOP3 abs/neg on the sources (float selects) flip/clear bit 31.
            let fix = |v: u32, k: u8| {
                let v = if i.mods.abs >> k & 1 != 0 {
                    v & 0x7fff_ffff
                } else {
                    v
                };
                if i.mods.neg >> k & 1 != 0 {
                    v ^ 0x8000_0000
                } else {
                    v
                }
            };
            let mut d = [0u32; LANES];
            for l in 0..LANES {
                d[l] = if (m >> l) & 1 != 0 {
                    fix(b[l], 1)
                } else {
                    fix(a[l], 0)
                };
            }
            w.write32(i.vdst, &d)?;
            Ok(Flow::Next)
        }),
        V_ADD_U32 => f(|w, i, _| {
            let clamp = i.mods.clamp;
            v2(w, i, move |a, b| {
                if clamp {
                    a.saturating_add(b)
                } else {
                    a.wrapping_add(b)
                }
            })
        }),
        V_SUB_U32 => f(|w, i, _| {
            let clamp = i.mods.clamp;
            v2(w, i, move |a, b| {
                if clamp {
                    a.saturating_sub(b)
                } else {
                    a.wrapping_sub(b)
                }
            })
        }),
        V_SUBREV_U32 => f(|w, i, _| {
            let clamp = i.mods.clamp;
            v2(w, i, move |a, b| {
                if clamp {
                    b.saturating_sub(a)
                } else {
                    b.wrapping_sub(a)
                }
            })
        }),
        V_ADD_I32 => f(|w, i, _| {
            let clamp = i.mods.clamp;
            v2(w, i, move |a, b| {
                if clamp {
                    (a as i32).saturating_add(b as i32) as u32
                } else {
                    a.wrapping_add(b)
                }
            })
        }),
        V_SUB_I32 => f(|w, i, _| {
            let clamp = i.mods.clamp;
            v2(w, i, move |a, b| {
                if clamp {
                    (a as i32).saturating_sub(b as i32) as u32
                } else {
                    a.wrapping_sub(b)
                }
            })
        }),
        V_ADD_CO_U32 => f(|w, i, _| vcarry(w, i, u32::MAX, |a, b, _| add_c(a, b, false))),
        V_SUB_CO_U32 => f(|w, i, _| vcarry(w, i, 0, |a, b, _| sub_c(a, b, false))),
        V_SUBREV_CO_U32 => f(|w, i, _| vcarry(w, i, 0, |a, b, _| sub_c(b, a, false))),
        V_ADDC_CO_U32 => f(|w, i, _| vcarry(w, i, u32::MAX, add_c)),
        V_SUBB_CO_U32 => f(|w, i, _| vcarry(w, i, 0, sub_c)),
        V_SUBBREV_CO_U32 => f(|w, i, _| vcarry(w, i, 0, |a, b, c| sub_c(b, a, c))),
        V_MUL_I32_I24 => f(|w, i, _| v2(w, i, |a, b| (i24(a) * i24(b)) as u32)),
        V_MUL_HI_I32_I24 => f(|w, i, _| v2(w, i, |a, b| ((i24(a) * i24(b)) >> 32) as u32)),
        V_MUL_U32_U24 => f(|w, i, _| {
            v2(w, i, |a, b| {
                (u64::from(a & 0xff_ffff) * u64::from(b & 0xff_ffff)) as u32
            })
        }),
        V_MUL_HI_U32_U24 => f(|w, i, _| {
            v2(w, i, |a, b| {
                ((u64::from(a & 0xff_ffff) * u64::from(b & 0xff_ffff)) >> 32) as u32
            })
        }),
        V_MUL_LO_U32 => f(|w, i, _| v2(w, i, u32::wrapping_mul)),
        V_MUL_HI_U32 => f(|w, i, _| v2(w, i, |a, b| ((u64::from(a) * u64::from(b)) >> 32) as u32)),
        V_MUL_HI_I32 => f(|w, i, _| {
            v2(w, i, |a, b| {
                ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32
            })
        }),
        V_MAD_U32_U24 => f(|w, i, _| {
            v3(w, i, |a, b, c| {
                ((u64::from(a & 0xff_ffff) * u64::from(b & 0xff_ffff)) as u32).wrapping_add(c)
            })
        }),
        V_MAD_I32_I24 => {
            f(|w, i, _| v3(w, i, |a, b, c| ((i24(a) * i24(b)) as u32).wrapping_add(c)))
        }
        V_MAD_U64_U32 => f(|w, i, _| mad64(w, i, false)),
        V_MAD_I64_I32 => f(|w, i, _| mad64(w, i, true)),
        V_MIN_I32 => f(|w, i, _| v2(w, i, |a, b| (a as i32).min(b as i32) as u32)),
        V_MAX_I32 => f(|w, i, _| v2(w, i, |a, b| (a as i32).max(b as i32) as u32)),
        V_MIN_U32 => f(|w, i, _| v2(w, i, u32::min)),
        V_MAX_U32 => f(|w, i, _| v2(w, i, u32::max)),
        V_MIN3_I32 => f(|w, i, _| {
            v3(w, i, |a, b, c| {
                (a as i32).min(b as i32).min(c as i32) as u32
            })
        }),
        V_MAX3_I32 => f(|w, i, _| {
            v3(w, i, |a, b, c| {
                (a as i32).max(b as i32).max(c as i32) as u32
            })
        }),
        V_MED3_I32 => f(|w, i, _| v3(w, i, |a, b, c| med3(a as i32, b as i32, c as i32) as u32)),
        V_MIN3_U32 => f(|w, i, _| v3(w, i, |a, b, c| a.min(b).min(c))),
        V_MAX3_U32 => f(|w, i, _| v3(w, i, |a, b, c| a.max(b).max(c))),
        V_MED3_U32 => f(|w, i, _| v3(w, i, med3)),
        V_LSHRREV_B32 => f(|w, i, _| v2(w, i, |a, b| b >> (a & 31))),
        V_ASHRREV_I32 => f(|w, i, _| v2(w, i, |a, b| ((b as i32) >> (a & 31)) as u32)),
        V_LSHLREV_B32 => f(|w, i, _| v2(w, i, |a, b| b << (a & 31))),
        V_LSHLREV_B64 => f(|w, i, _| shift64(w, i, |v, s| v << s)),
        V_LSHRREV_B64 => f(|w, i, _| shift64(w, i, |v, s| v >> s)),
        V_ASHRREV_I64 => f(|w, i, _| shift64(w, i, |v, s| ((v as i64) >> s) as u64)),
        V_AND_B32 => f(|w, i, _| v2(w, i, |a, b| a & b)),
        V_OR_B32 => f(|w, i, _| v2(w, i, |a, b| a | b)),
        V_XOR_B32 => f(|w, i, _| v2(w, i, |a, b| a ^ b)),
        V_XNOR_B32 => f(|w, i, _| v2(w, i, |a, b| !(a ^ b))),
        V_BCNT_U32_B32 => f(|w, i, _| v2(w, i, |a, b| a.count_ones().wrapping_add(b))),
        V_BFM_B32 => f(|w, i, _| v2(w, i, |a, b| (((1u64 << (a & 31)) - 1) as u32) << (b & 31))),
        V_BFE_U32 => f(|w, i, _| v3(w, i, bfe_u)),
        V_BFE_I32 => f(|w, i, _| v3(w, i, bfe_i)),
        V_BFI_B32 => f(|w, i, _| v3(w, i, |a, b, c| (a & b) | (!a & c))),
        V_ALIGNBIT_B32 => f(|w, i, _| {
            v3(w, i, |a, b, c| {
                ((((u64::from(a)) << 32) | u64::from(b)) >> (c & 31)) as u32
            })
        }),
        V_ALIGNBYTE_B32 => f(|w, i, _| {
            v3(w, i, |a, b, c| {
                ((((u64::from(a)) << 32) | u64::from(b)) >> (8 * (c & 3))) as u32
            })
        }),
        V_LSHL_ADD_U32 => f(|w, i, _| v3(w, i, |a, b, c| (a << (b & 31)).wrapping_add(c))),
        V_ADD_LSHL_U32 => f(|w, i, _| v3(w, i, |a, b, c| a.wrapping_add(b) << (c & 31))),
        V_ADD3_U32 => f(|w, i, _| v3(w, i, |a, b, c| a.wrapping_add(b).wrapping_add(c))),
        V_LSHL_OR_B32 => f(|w, i, _| v3(w, i, |a, b, c| (a << (b & 31)) | c)),
        V_AND_OR_B32 => f(|w, i, _| v3(w, i, |a, b, c| (a & b) | c)),
        V_OR3_B32 => f(|w, i, _| v3(w, i, |a, b, c| a | b | c)),
        V_XAD_U32 => f(|w, i, _| v3(w, i, |a, b, c| (a ^ b).wrapping_add(c))),
        V_PERM_B32 => f(|w, i, _| v3(w, i, perm)),
        V_LSHL_ADD_U64 => f(|w, i, _| {
            let a = w.read64(i.src[0], Ty::B64)?;
            let b = w.read32(i.src[1], Ty::B32)?;
            let c = w.read64(i.src[2], Ty::B64)?;
            let mut d = [0u64; LANES];
            for l in 0..LANES {
                d[l] = (a[l] << (b[l] & 7)).wrapping_add(c[l]);
            }
            w.write64(i.vdst, &d)?;
            Ok(Flow::Next)
        }),
        V_SAD_U32 => f(|w, i, _| v3(w, i, |a, b, c| a.abs_diff(b).wrapping_add(c))),
        V_SWAP_B32 => f(|w, i, _| {
            // vdst <-> src0 (both VGPRs), in the enabled lanes.
            let (Some(x), Src::V(y)) = (vdst_index(i), i.src[0]) else {
                return Err(Box::new(Fault::Abort("v_swap_b32 needs two VGPRs".into())));
            };
            let exec = w.exec();
            let a: Lanes = *w.vget(x)?;
            let b: Lanes = *w.vget(y)?;
            let ra = w.vreg_mut(x)?;
            for l in 0..LANES {
                if exec >> l & 1 != 0 {
                    ra[l] = b[l];
                }
            }
            let rb = w.vreg_mut(y)?;
            for l in 0..LANES {
                if exec >> l & 1 != 0 {
                    rb[l] = a[l];
                }
            }
            Ok(Flow::Next)
        }),
        _ => None,
    }
}

fn vdst_index(i: &Inst) -> Option<u16> {
    match i.vdst {
        super::program::Dst::V(v) => Some(v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `pack_bits` agrees with the bit-by-bit mask for single lanes, all
    /// lanes and a scattered pattern.
    #[test]
    fn pack_bits_matches_the_serial_mask() {
        let serial = |f: &[u8; LANES]| (0..LANES).fold(0u64, |m, l| m | (u64::from(f[l]) << l));
        let mut patterns = vec![[0u8; LANES], [1u8; LANES]];
        for l in 0..LANES {
            let mut f = [0u8; LANES];
            f[l] = 1;
            patterns.push(f);
        }
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..64 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            patterns.push(std::array::from_fn(|l| (s >> l & 1) as u8));
        }
        for f in &patterns {
            assert_eq!(pack_bits(f), serial(f), "{f:?}");
        }
    }
}
