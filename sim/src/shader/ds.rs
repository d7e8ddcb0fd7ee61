//! LDS (DS encoding): reads and writes of every width (`read2`/`write2`
//! with their two offsets, `st64` forms), the LDS atomics with and without
//! return (integer, `cmpst`, `mskor`, `wrxchg`, float add/min/max), and
//! the cross-lane ones that use the LDS crossbar without touching memory:
//! `ds_swizzle_b32`, `ds_permute_b32`, `ds_bpermute_b32`.
//!
//! The address is the `addr` VGPR plus the instruction offset (GFX9 does
//! not range-check with M0): bytes past the work-group's allocation read 0
//! and are not written. The waves of a work-group run on one thread, so
//! LDS is plain memory and an atomic is one lane's read-modify-write, in
//! lane order. Lanes the crossbar reads from that EXEC disables give 0.

use isa::Opcode::{self, *};

use super::program::{Dst, ExecFn, Inst, Src};
use super::vf32::minmax;
use super::vmem::{f16_to_f32, f32_to_f16};
use super::wave::{LANES, Ty, Wave};
use super::{Ctx, Exec, Fault, Flow};

fn rd(lds: &[u8], at: u32, n: usize) -> u64 {
    let at = at as usize;
    match lds.get(at..at + n) {
        Some(b) => {
            let mut v = [0u8; 8];
            v[..n].copy_from_slice(b);
            u64::from_le_bytes(v)
        }
        None => 0,
    }
}

fn wr(lds: &mut [u8], at: u32, n: usize, v: u64) {
    let at = at as usize;
    if let Some(b) = lds.get_mut(at..at + n) {
        b.copy_from_slice(&v.to_le_bytes()[..n]);
    }
}

fn vreg(i: Src) -> Result<u16, Fault> {
    match i {
        Src::V(r) => Ok(r),
        _ => Err(Fault::Abort("DS operand is not a VGPR".into())),
    }
}

fn check(w: &Wave, r: u16, n: usize) -> Result<(), Fault> {
    if usize::from(r) + n > w.v.len() {
        return Err(Fault::Abort(format!("v{r} + {n} is past the wave's VGPRs")));
    }
    Ok(())
}

/// The per-lane addresses (addr VGPR + `extra`).
fn addresses(w: &Wave, i: &Inst, extra: u32) -> Result<[u32; LANES], Fault> {
    let a = w.read32(i.addr, Ty::B32)?;
    let mut out = [0u32; LANES];
    for l in 0..LANES {
        out[l] = a[l].wrapping_add(extra);
    }
    Ok(out)
}

/// Reads `dwords` dwords (or `bytes` < 4 with sign/half handling) per lane.
fn read(w: &mut Wave, i: &Inst, ctx: &Ctx<'_>, bytes: usize, kind: Read) -> Exec {
    let Dst::V(d) = i.vdst else {
        return Err(Box::new(Fault::Abort(
            "DS read without a destination".into(),
        )));
    };
    let dwords = bytes.div_ceil(4);
    check(w, d, dwords)?;
    let a = addresses(w, i, i.mods.offset as u32 & 0xffff)?;
    let exec = w.exec();
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let old = w.v[usize::from(d)][l];
        match kind {
            Read::Plain => {
                for k in 0..dwords {
                    w.v[usize::from(d) + k][l] = rd(ctx.lds, a[l] + 4 * k as u32, 4) as u32;
                }
            }
            Read::U8 => w.v[usize::from(d)][l] = rd(ctx.lds, a[l], 1) as u32,
            Read::I8 => w.v[usize::from(d)][l] = rd(ctx.lds, a[l], 1) as u8 as i8 as i32 as u32,
            Read::U16 => w.v[usize::from(d)][l] = rd(ctx.lds, a[l], 2) as u32,
            Read::I16 => w.v[usize::from(d)][l] = rd(ctx.lds, a[l], 2) as u16 as i16 as i32 as u32,
            Read::D16 { hi, signed, bytes } => {
                let v = rd(ctx.lds, a[l], bytes) as u16;
                let v = if signed && bytes == 1 {
                    v as u8 as i8 as i16 as u16
                } else {
                    v
                };
                w.v[usize::from(d)][l] = if hi {
                    (old & 0xffff) | (u32::from(v) << 16)
                } else {
                    (old & 0xffff_0000) | u32::from(v)
                };
            }
        }
    }
    Ok(Flow::Next)
}

#[derive(Clone, Copy)]
enum Read {
    Plain,
    U8,
    I8,
    U16,
    I16,
    D16 {
        hi: bool,
        signed: bool,
        bytes: usize,
    },
}

fn write(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>, bytes: usize, hi: bool) -> Exec {
    let s = vreg(i.data)?;
    let dwords = bytes.div_ceil(4);
    check(w, s, dwords)?;
    let a = addresses(w, i, i.mods.offset as u32 & 0xffff)?;
    let exec = w.exec();
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        if bytes < 4 {
            let v = w.v[usize::from(s)][l];
            let v = if hi { v >> 16 } else { v };
            wr(ctx.lds, a[l], bytes, u64::from(v));
        } else {
            for k in 0..dwords {
                let v = w.v[usize::from(s) + k][l];
                wr(ctx.lds, a[l] + 4 * k as u32, 4, u64::from(v));
            }
        }
    }
    Ok(Flow::Next)
}

/// `read2`/`write2`: two elements of `size` bytes at `offset0 * stride`
/// and `offset1 * stride` (stride = size, times 64 for `st64`).
fn read2(w: &mut Wave, i: &Inst, ctx: &Ctx<'_>, size: usize, st64: bool) -> Exec {
    let Dst::V(d) = i.vdst else {
        return Err(Box::new(Fault::Abort(
            "DS read2 without a destination".into(),
        )));
    };
    let per = size / 4;
    check(w, d, 2 * per)?;
    let stride = (size * if st64 { 64 } else { 1 }) as u32;
    let (o0, o1) = (
        i.mods.offset as u32 & 0xff,
        (i.mods.offset as u32 >> 8) & 0xff,
    );
    let a = addresses(w, i, 0)?;
    let exec = w.exec();
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        for (e, o) in [o0, o1].into_iter().enumerate() {
            for k in 0..per {
                let at = a[l].wrapping_add(o * stride).wrapping_add(4 * k as u32);
                w.v[usize::from(d) + e * per + k][l] = rd(ctx.lds, at, 4) as u32;
            }
        }
    }
    Ok(Flow::Next)
}

fn write2(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>, size: usize, st64: bool) -> Exec {
    let (s0, s1) = (vreg(i.data)?, vreg(i.data1)?);
    let per = size / 4;
    check(w, s0, per)?;
    check(w, s1, per)?;
    let stride = (size * if st64 { 64 } else { 1 }) as u32;
    let (o0, o1) = (
        i.mods.offset as u32 & 0xff,
        (i.mods.offset as u32 >> 8) & 0xff,
    );
    let a = addresses(w, i, 0)?;
    let exec = w.exec();
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        for (s, o) in [(s0, o0), (s1, o1)] {
            for k in 0..per {
                let at = a[l].wrapping_add(o * stride).wrapping_add(4 * k as u32);
                wr(ctx.lds, at, 4, u64::from(w.v[usize::from(s) + k][l]));
            }
        }
    }
    Ok(Flow::Next)
}

#[derive(Clone, Copy)]
enum Rmw {
    Add,
    Sub,
    Rsub,
    Inc,
    Dec,
    MinI,
    MaxI,
    MinU,
    MaxU,
    And,
    Or,
    Xor,
    Mskor,
    Swap,
    Cmpst,
    AddF,
    MinF,
    MaxF,
    PkAddF16,
    PkAddBf16,
}

fn rmw(op: Rmw, old: u64, a: u64, b: u64, wide: bool) -> u64 {
    let mask = if wide { u64::MAX } else { 0xffff_ffff };
    let sx = |x: u64| {
        if wide {
            x as i64
        } else {
            i64::from(x as u32 as i32)
        }
    };
    let r = match op {
        Rmw::Add => old.wrapping_add(a),
        Rmw::Sub => old.wrapping_sub(a),
        Rmw::Rsub => a.wrapping_sub(old),
        Rmw::Inc => {
            if old >= a {
                0
            } else {
                old + 1
            }
        }
        Rmw::Dec => {
            if old == 0 || old > a {
                a
            } else {
                old - 1
            }
        }
        Rmw::MinI => {
            if sx(old) <= sx(a) {
                old
            } else {
                a
            }
        }
        Rmw::MaxI => {
            if sx(old) >= sx(a) {
                old
            } else {
                a
            }
        }
        Rmw::MinU => old.min(a),
        Rmw::MaxU => old.max(a),
        Rmw::And => old & a,
        Rmw::Or => old | a,
        Rmw::Xor => old ^ a,
        Rmw::Mskor => (old & !a) | b,
        Rmw::Swap => a,
        // DATA is the compare value, DATA2 the new one (DS_CMPST_*).
        Rmw::Cmpst => {
            if old == a {
                b
            } else {
                old
            }
        }
        Rmw::AddF => {
            if wide {
                (f64::from_bits(old) + f64::from_bits(a)).to_bits()
            } else {
                u64::from((f32::from_bits(old as u32) + f32::from_bits(a as u32)).to_bits())
            }
        }
        Rmw::MinF | Rmw::MaxF => {
            let max = matches!(op, Rmw::MaxF);
            if wide {
                let (x, y) = (f64::from_bits(old), f64::from_bits(a));
                // minNum/maxNum: a NaN loses to a number.
                let keep_x = !x.is_nan() && (y.is_nan() || (x < y) ^ max);
                let r = if keep_x { x } else { y };
                r.to_bits()
            } else {
                u64::from(
                    minmax(
                        f32::from_bits(old as u32),
                        f32::from_bits(a as u32),
                        max,
                        true,
                    )
                    .to_bits(),
                )
            }
        }
        Rmw::PkAddF16 => {
            let h = |x: u64, s: u32| f16_to_f32((x >> s) as u16);
            u64::from(f32_to_f16(h(old, 0) + h(a, 0)))
                | (u64::from(f32_to_f16(h(old, 16) + h(a, 16))) << 16)
        }
        Rmw::PkAddBf16 => {
            let h = |x: u64, s: u32| f32::from_bits((((x >> s) & 0xffff) as u32) << 16);
            let b16 = |f: f32| {
                let bits = f.to_bits();
                u64::from((bits.wrapping_add(0x7fff + ((bits >> 16) & 1))) >> 16)
            };
            b16(h(old, 0) + h(a, 0)) | (b16(h(old, 16) + h(a, 16)) << 16)
        }
    };
    r & mask
}

fn atomic(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>, op: Rmw, wide: bool, ret: bool) -> Exec {
    let n = if wide { 2 } else { 1 };
    let s0 = vreg(i.data)?;
    check(w, s0, n)?;
    let s1 = match i.data1 {
        Src::V(r) => {
            check(w, r, n)?;
            Some(r)
        }
        _ => None,
    };
    let d = match (ret, i.vdst) {
        (true, Dst::V(d)) => {
            check(w, d, n)?;
            Some(d)
        }
        _ => None,
    };
    let a = addresses(w, i, i.mods.offset as u32 & 0xffff)?;
    let exec = w.exec();
    let get = |w: &Wave, r: u16, l: usize| {
        let lo = u64::from(w.v[usize::from(r)][l]);
        if wide {
            lo | (u64::from(w.v[usize::from(r) + 1][l]) << 32)
        } else {
            lo
        }
    };
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let x = get(w, s0, l);
        let y = s1.map_or(0, |r| get(w, r, l));
        let bytes = 4 * n;
        let old = rd(ctx.lds, a[l], bytes);
        let in_range = (a[l] as usize + bytes) <= ctx.lds.len();
        if in_range {
            wr(ctx.lds, a[l], bytes, rmw(op, old, x, y, wide));
        }
        if let Some(d) = d {
            w.v[usize::from(d)][l] = old as u32;
            if wide {
                w.v[usize::from(d) + 1][l] = (old >> 32) as u32;
            }
        }
    }
    Ok(Flow::Next)
}

/// `ds_wrxchg2[st64]_rtn_b32/b64`: two swaps at the two offsets.
fn wrxchg2(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>, size: usize, st64: bool) -> Exec {
    let (s0, s1) = (vreg(i.data)?, vreg(i.data1)?);
    let Dst::V(d) = i.vdst else {
        return Err(Box::new(Fault::Abort(
            "ds_wrxchg2 without a destination".into(),
        )));
    };
    let per = size / 4;
    check(w, d, 2 * per)?;
    check(w, s0, per)?;
    check(w, s1, per)?;
    let stride = (size * if st64 { 64 } else { 1 }) as u32;
    let (o0, o1) = (
        i.mods.offset as u32 & 0xff,
        (i.mods.offset as u32 >> 8) & 0xff,
    );
    let a = addresses(w, i, 0)?;
    let exec = w.exec();
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        for (e, (s, o)) in [(s0, o0), (s1, o1)].into_iter().enumerate() {
            for k in 0..per {
                let at = a[l].wrapping_add(o * stride).wrapping_add(4 * k as u32);
                let old = rd(ctx.lds, at, 4) as u32;
                wr(ctx.lds, at, 4, u64::from(w.v[usize::from(s) + k][l]));
                w.v[usize::from(d) + e * per + k][l] = old;
            }
        }
    }
    Ok(Flow::Next)
}

/// `ds_swizzle_b32`: offset[15] set selects quad-permute mode (lane `4q +
/// i` reads lane `4q + offset[2i+1:2i]`); clear, the bit-mask mode within
/// each 32 lanes: `((lane & and) | or) ^ xor` with and/or/xor = offset
/// [4:0]/[9:5]/[14:10] (GCN3 ISA "DS_SWIZZLE_B32").
fn swizzle(w: &mut Wave, i: &Inst) -> Exec {
    // The source is the instruction's `addr` VGPR.
    let src = w.read32(i.addr, Ty::B32)?;
    let exec = w.exec();
    let off = i.mods.offset as u32 & 0xffff;
    let mut d = [0u32; LANES];
    for l in 0..LANES {
        let from = if off & 0x8000 != 0 {
            (l & !3) | ((off >> (2 * (l & 3))) & 3) as usize
        } else {
            let (and, or, xor) = (off & 0x1f, (off >> 5) & 0x1f, (off >> 10) & 0x1f);
            (l & 0x20) | ((((l as u32 & and) | or) ^ xor) & 0x1f) as usize
        };
        d[l] = if exec >> from & 1 != 0 { src[from] } else { 0 };
    }
    w.write32(i.vdst, &d)?;
    Ok(Flow::Next)
}

/// `ds_permute_b32` (push: lane `addr/4` receives this lane's data) and
/// `ds_bpermute_b32` (pull: this lane reads lane `addr/4`), addresses
/// plus the offset, modulo 64 lanes.
fn permute(w: &mut Wave, i: &Inst, backward: bool) -> Exec {
    let a = addresses(w, i, i.mods.offset as u32 & 0xffff)?;
    let src = w.read32(i.data, Ty::B32)?;
    let exec = w.exec();
    let mut d = [0u32; LANES];
    for l in 0..LANES {
        let lane = ((a[l] / 4) & 63) as usize;
        if backward {
            d[l] = if exec >> lane & 1 != 0 { src[lane] } else { 0 };
        } else if exec >> l & 1 != 0 {
            d[lane] = src[l];
        }
    }
    w.write32(i.vdst, &d)?;
    Ok(Flow::Next)
}

fn exec_ds(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>) -> Exec {
    use Rmw::*;
    if i.mods.gds {
        return Err(Box::new(gds_fault(i)));
    }
    let at = |w: &mut Wave, ctx: &mut Ctx<'_>, op, wide, ret| atomic(w, i, ctx, op, wide, ret);
    match i.op {
        DS_NOP => Ok(Flow::Next),
        DS_READ_B32 => read(w, i, ctx, 4, Read::Plain),
        DS_READ_B64 => read(w, i, ctx, 8, Read::Plain),
        DS_READ_B96 => read(w, i, ctx, 12, Read::Plain),
        DS_READ_B128 => read(w, i, ctx, 16, Read::Plain),
        DS_READ_U8 => read(w, i, ctx, 1, Read::U8),
        DS_READ_I8 => read(w, i, ctx, 1, Read::I8),
        DS_READ_U16 => read(w, i, ctx, 2, Read::U16),
        DS_READ_I16 => read(w, i, ctx, 2, Read::I16),
        DS_READ_U8_D16 => read(
            w,
            i,
            ctx,
            1,
            Read::D16 {
                hi: false,
                signed: false,
                bytes: 1,
            },
        ),
        DS_READ_U8_D16_HI => read(
            w,
            i,
            ctx,
            1,
            Read::D16 {
                hi: true,
                signed: false,
                bytes: 1,
            },
        ),
        DS_READ_I8_D16 => read(
            w,
            i,
            ctx,
            1,
            Read::D16 {
                hi: false,
                signed: true,
                bytes: 1,
            },
        ),
        DS_READ_I8_D16_HI => read(
            w,
            i,
            ctx,
            1,
            Read::D16 {
                hi: true,
                signed: true,
                bytes: 1,
            },
        ),
        DS_READ_U16_D16 => read(
            w,
            i,
            ctx,
            2,
            Read::D16 {
                hi: false,
                signed: false,
                bytes: 2,
            },
        ),
        DS_READ_U16_D16_HI => read(
            w,
            i,
            ctx,
            2,
            Read::D16 {
                hi: true,
                signed: false,
                bytes: 2,
            },
        ),
        DS_READ2_B32 => read2(w, i, ctx, 4, false),
        DS_READ2_B64 => read2(w, i, ctx, 8, false),
        DS_READ2ST64_B32 => read2(w, i, ctx, 4, true),
        DS_READ2ST64_B64 => read2(w, i, ctx, 8, true),
        DS_WRITE_B8 => write(w, i, ctx, 1, false),
        DS_WRITE_B8_D16_HI => write(w, i, ctx, 1, true),
        DS_WRITE_B16 => write(w, i, ctx, 2, false),
        DS_WRITE_B16_D16_HI => write(w, i, ctx, 2, true),
        DS_WRITE_B32 => write(w, i, ctx, 4, false),
        DS_WRITE_B64 => write(w, i, ctx, 8, false),
        DS_WRITE_B96 => write(w, i, ctx, 12, false),
        DS_WRITE_B128 => write(w, i, ctx, 16, false),
        DS_WRITE2_B32 => write2(w, i, ctx, 4, false),
        DS_WRITE2_B64 => write2(w, i, ctx, 8, false),
        DS_WRITE2ST64_B32 => write2(w, i, ctx, 4, true),
        DS_WRITE2ST64_B64 => write2(w, i, ctx, 8, true),
        DS_WRXCHG2_RTN_B32 => wrxchg2(w, i, ctx, 4, false),
        DS_WRXCHG2_RTN_B64 => wrxchg2(w, i, ctx, 8, false),
        DS_WRXCHG2ST64_RTN_B32 => wrxchg2(w, i, ctx, 4, true),
        DS_WRXCHG2ST64_RTN_B64 => wrxchg2(w, i, ctx, 8, true),
        DS_SWIZZLE_B32 => swizzle(w, i),
        DS_PERMUTE_B32 => permute(w, i, false),
        DS_BPERMUTE_B32 => permute(w, i, true),
        DS_ADD_U32 => at(w, ctx, Add, false, false),
        DS_ADD_RTN_U32 => at(w, ctx, Add, false, true),
        DS_ADD_U64 => at(w, ctx, Add, true, false),
        DS_ADD_RTN_U64 => at(w, ctx, Add, true, true),
        DS_SUB_U32 => at(w, ctx, Sub, false, false),
        DS_SUB_RTN_U32 => at(w, ctx, Sub, false, true),
        DS_SUB_U64 => at(w, ctx, Sub, true, false),
        DS_SUB_RTN_U64 => at(w, ctx, Sub, true, true),
        DS_RSUB_U32 => at(w, ctx, Rsub, false, false),
        DS_RSUB_RTN_U32 => at(w, ctx, Rsub, false, true),
        DS_RSUB_U64 => at(w, ctx, Rsub, true, false),
        DS_RSUB_RTN_U64 => at(w, ctx, Rsub, true, true),
        DS_INC_U32 => at(w, ctx, Inc, false, false),
        DS_INC_RTN_U32 => at(w, ctx, Inc, false, true),
        DS_INC_U64 => at(w, ctx, Inc, true, false),
        DS_INC_RTN_U64 => at(w, ctx, Inc, true, true),
        DS_DEC_U32 => at(w, ctx, Dec, false, false),
        DS_DEC_RTN_U32 => at(w, ctx, Dec, false, true),
        DS_DEC_U64 => at(w, ctx, Dec, true, false),
        DS_DEC_RTN_U64 => at(w, ctx, Dec, true, true),
        DS_MIN_I32 => at(w, ctx, MinI, false, false),
        DS_MIN_RTN_I32 => at(w, ctx, MinI, false, true),
        DS_MIN_I64 => at(w, ctx, MinI, true, false),
        DS_MIN_RTN_I64 => at(w, ctx, MinI, true, true),
        DS_MAX_I32 => at(w, ctx, MaxI, false, false),
        DS_MAX_RTN_I32 => at(w, ctx, MaxI, false, true),
        DS_MAX_I64 => at(w, ctx, MaxI, true, false),
        DS_MAX_RTN_I64 => at(w, ctx, MaxI, true, true),
        DS_MIN_U32 => at(w, ctx, MinU, false, false),
        DS_MIN_RTN_U32 => at(w, ctx, MinU, false, true),
        DS_MIN_U64 => at(w, ctx, MinU, true, false),
        DS_MIN_RTN_U64 => at(w, ctx, MinU, true, true),
        DS_MAX_U32 => at(w, ctx, MaxU, false, false),
        DS_MAX_RTN_U32 => at(w, ctx, MaxU, false, true),
        DS_MAX_U64 => at(w, ctx, MaxU, true, false),
        DS_MAX_RTN_U64 => at(w, ctx, MaxU, true, true),
        DS_AND_B32 => at(w, ctx, And, false, false),
        DS_AND_RTN_B32 => at(w, ctx, And, false, true),
        DS_AND_B64 => at(w, ctx, And, true, false),
        DS_AND_RTN_B64 => at(w, ctx, And, true, true),
        DS_OR_B32 => at(w, ctx, Or, false, false),
        DS_OR_RTN_B32 => at(w, ctx, Or, false, true),
        DS_OR_B64 => at(w, ctx, Or, true, false),
        DS_OR_RTN_B64 => at(w, ctx, Or, true, true),
        DS_XOR_B32 => at(w, ctx, Xor, false, false),
        DS_XOR_RTN_B32 => at(w, ctx, Xor, false, true),
        DS_XOR_B64 => at(w, ctx, Xor, true, false),
        DS_XOR_RTN_B64 => at(w, ctx, Xor, true, true),
        DS_MSKOR_B32 => at(w, ctx, Mskor, false, false),
        DS_MSKOR_RTN_B32 => at(w, ctx, Mskor, false, true),
        DS_MSKOR_B64 => at(w, ctx, Mskor, true, false),
        DS_MSKOR_RTN_B64 => at(w, ctx, Mskor, true, true),
        DS_WRXCHG_RTN_B32 => at(w, ctx, Swap, false, true),
        DS_WRXCHG_RTN_B64 => at(w, ctx, Swap, true, true),
        DS_CMPST_B32 | DS_CMPST_F32 => at(w, ctx, Cmpst, false, false),
        DS_CMPST_RTN_B32 | DS_CMPST_RTN_F32 => at(w, ctx, Cmpst, false, true),
        DS_CMPST_B64 | DS_CMPST_F64 => at(w, ctx, Cmpst, true, false),
        DS_CMPST_RTN_B64 | DS_CMPST_RTN_F64 => at(w, ctx, Cmpst, true, true),
        DS_ADD_F32 => at(w, ctx, AddF, false, false),
        DS_ADD_RTN_F32 => at(w, ctx, AddF, false, true),
        DS_ADD_F64 => at(w, ctx, AddF, true, false),
        DS_ADD_RTN_F64 => at(w, ctx, AddF, true, true),
        DS_MIN_F32 => at(w, ctx, MinF, false, false),
        DS_MIN_RTN_F32 => at(w, ctx, MinF, false, true),
        DS_MIN_F64 => at(w, ctx, MinF, true, false),
        DS_MIN_RTN_F64 => at(w, ctx, MinF, true, true),
        DS_MAX_F32 => at(w, ctx, MaxF, false, false),
        DS_MAX_RTN_F32 => at(w, ctx, MaxF, false, true),
        DS_MAX_F64 => at(w, ctx, MaxF, true, false),
        DS_MAX_RTN_F64 => at(w, ctx, MaxF, true, true),
        DS_PK_ADD_F16 => at(w, ctx, PkAddF16, false, false),
        DS_PK_ADD_RTN_F16 => at(w, ctx, PkAddF16, false, true),
        DS_PK_ADD_BF16 => at(w, ctx, PkAddBf16, false, false),
        DS_PK_ADD_RTN_BF16 => at(w, ctx, PkAddBf16, false, true),
        _ => super::illegal(w, i, ctx),
    }
}

/// The fault of a GDS or GWS operation (ARCHITECTURE.md, shader core,
/// "GDS and GWS"). gfx90a and gfx94x have no GDS memory (amdgpu
/// `gfx_v9_0_set_gds_init`, `gfx_v9_4_3_set_gds_init`: "removed all the
/// GDS internal memory, only support GWS opcode"; LLVM 19 has no `gds` bit
/// on them), so a DS operation with the bit set is not an instruction of
/// theirs; on the older GFX9 parts amdgpu gives every VMID no GDS
/// (`gfx_v9_0_init_gds_vmid`) and amdkfd allocates none to a compute
/// queue, so no KFD kernel has GDS to access either. The `ds_gws_*` global wave sync operations are: their
/// resources are the queue's only when amdkfd allocated them
/// (AMDKFD_IOC_ALLOC_QUEUE_GWS; every VMID starts with none), and the sim
/// does not model them (a barrier across work-groups needs them all
/// resident, the sim runs work-groups one after the other per worker).
fn gds_fault(i: &Inst) -> Fault {
    let why = if i.op.name().starts_with("ds_gws_") {
        "global wave sync is not modelled by the sim"
    } else {
        "GDS access: no GDS memory (none on gfx90a/gfx94x, none allocated to KFD queues \
         on the others)"
    };
    Fault::Illegal {
        mnemonic: format!("{} gds ({why})", i.mnemonic()),
        pc: i.pc,
    }
}

/// The handler of a DS operation (the `src2`, `append`/`consume`, `addtid`
/// and `condxchg` forms are not implemented; GDS and GWS fault, `gds_fault`).
pub(crate) fn handler(op: Opcode) -> Option<ExecFn> {
    let name = op.name();
    if name.starts_with("ds_gws_") {
        return Some(|_, i, _| Err(Box::new(gds_fault(i))));
    }
    if !name.starts_with("ds_")
        || name.contains("_src2_")
        || matches!(
            op,
            DS_APPEND
                | DS_CONSUME
                | DS_READ_ADDTID_B32
                | DS_WRITE_ADDTID_B32
                | DS_CONDXCHG32_RTN_B64
                | DS_WRAP_RTN_B32
        )
    {
        return None;
    }
    Some(exec_ds)
}
