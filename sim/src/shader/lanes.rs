//! Cross-lane operations: `v_readlane_b32`, `v_writelane_b32`,
//! `v_readfirstlane_b32` (lane 0 when EXEC is empty), and the lane-count
//! `v_mbcnt_lo_u32_b32` / `v_mbcnt_hi_u32_b32` (popcount of the mask bits
//! below the lane, plus `s1`).

use isa::Opcode::{self, *};

use super::program::{Dst, ExecFn, Src};
use super::wave::{LANES, Ty};
use super::{Fault, Flow};

fn f(x: ExecFn) -> Option<ExecFn> {
    Some(x)
}

/// The handler of a cross-lane operation.
pub(crate) fn handler(op: Opcode) -> Option<ExecFn> {
    match op {
        V_READLANE_B32 => f(|w, i, _| {
            let Src::V(r) = i.src[0] else {
                return Err(Box::new(Fault::Abort("v_readlane_b32 reads a VGPR".into())));
            };
            let lane = (w.scalar32(i.src[1], Ty::B32) & 63) as usize;
            let v = w.vget(r)?[lane];
            w.write_s32(i.sdst, v);
            Ok(Flow::Next)
        }),
        V_READFIRSTLANE_B32 => f(|w, i, _| {
            let exec = w.exec();
            let lane = if exec == 0 {
                0
            } else {
                exec.trailing_zeros() as usize
            };
            let v = match i.src[0] {
                Src::V(r) => w.vget(r)?[lane],
                s => w.scalar32(s, Ty::B32),
            };
            w.write_s32(i.sdst, v);
            Ok(Flow::Next)
        }),
        V_WRITELANE_B32 => f(|w, i, _| {
            let v = w.scalar32(i.src[0], Ty::B32);
            let lane = (w.scalar32(i.src[1], Ty::B32) & 63) as usize;
            let Dst::V(r) = i.vdst else {
                return Err(Box::new(Fault::Abort(
                    "v_writelane_b32 writes a VGPR".into(),
                )));
            };
            w.vreg_mut(r)?[lane] = v;
            Ok(Flow::Next)
        }),
        V_MBCNT_LO_U32_B32 => f(|w, i, _| {
            let a = w.read32(i.src[0], Ty::B32)?;
            let b = w.read32(i.src[1], Ty::B32)?;
            let mut d = [0u32; LANES];
            for l in 0..LANES {
                let below = if l >= 32 { u32::MAX } else { (1u32 << l) - 1 };
                d[l] = (a[l] & below).count_ones().wrapping_add(b[l]);
            }
            w.write32(i.vdst, &d)?;
            Ok(Flow::Next)
        }),
        V_MBCNT_HI_U32_B32 => f(|w, i, _| {
            let a = w.read32(i.src[0], Ty::B32)?;
            let b = w.read32(i.src[1], Ty::B32)?;
            let mut d = [0u32; LANES];
            for l in 0..LANES {
                let below = if l <= 32 { 0 } else { (1u32 << (l - 32)) - 1 };
                d[l] = (a[l] & below).count_ones().wrapping_add(b[l]);
            }
            w.write32(i.vdst, &d)?;
            Ok(Flow::Next)
        }),
        _ => None,
    }
}
