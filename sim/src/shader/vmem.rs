//! Vector memory through FLAT, GLOBAL and SCRATCH instructions: loads and
//! stores of every width (bytes, shorts with sign and `d16`/`d16_hi`
//! halves, 1-4 dwords), gfx94x's loads to LDS (`*_load_lds_*`) and the
//! atomics (32/64-bit integer ops with and
//! without return, `cmpswap`, gfx90a's float `add_f32`/`add_f64`/
//! `min_f64`/`max_f64`/`pk_add_f16`/`pk_add_bf16`).
//!
//! Addresses (AMDGPUUsage "Address Spaces", GFX9 ISA "Flat memory"):
//! GLOBAL is `saddr + zext(vaddr32) + offset` or `vaddr64 + offset`;
//! FLAT is `vaddr64 + offset`, routed by aperture: the shared aperture is
//! the work-group's LDS, the private aperture the wave's scratch, anything
//! else global memory; SCRATCH is an offset (`saddr`, `vaddr`, immediate)
//! into the wave's scratch. Scratch is swizzled as the hardware does for
//! flat scratch and for the scratch buffer resource ROCr builds
//! (`ADD_TID_ENABLE`, element size 4, index stride 64): dword `d` of lane
//! `l` lives at `FLAT_SCRATCH + (d * 64 + l) * 4`, so a multi-dword access
//! is split per dword. Every global access goes through [`GpuMemory`];
//! LDS accesses past the allocation read 0 and are dropped (as GFX9's LDS
//! range check does).
//!
//! Atomics run per lane in lane order, each a host atomic on the shared
//! memory (sequentially consistent); float atomics are compare-and-swap
//! loops.

use std::sync::atomic::{AtomicU32, Ordering};

use isa::Opcode;

use super::program::{Dst, ExecFn, FLAT_SCRATCH, Inst, ShapedFn, Src};
use super::setup::{PRIVATE_BASE, SHARED_BASE};
use super::wave::{LANES, Ty, Wave};
use super::{Ctx, Exec, Fault, Flow};
use crate::memory::{Access, AtomicOp, DeviceMemory, FaultReason, GpuMemory, MemoryFault};

const FLAT: u8 = 0;
const GLOBAL: u8 = 1;
const SCRATCH: u8 = 2;

/// Where one lane's access goes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Target {
    /// A GPU virtual address.
    Global(u64),
    /// A byte offset in the work-group's LDS.
    Lds(u32),
    /// A byte offset in the wave's scratch (swizzled per dword).
    Scratch(u32),
}

/// The swizzled address of scratch byte `offset` of `lane`.
#[inline]
pub(crate) fn scratch_address(base: u64, offset: u32, lane: usize) -> u64 {
    let dword = u64::from(offset / 4);
    base.wrapping_add((dword * LANES as u64 + lane as u64) * 4 + u64::from(offset % 4))
}

/// Each lane's target (lanes EXEC disables: unspecified).
fn targets<const SEG: u8>(w: &Wave, i: &Inst) -> Result<[Target; LANES], Fault> {
    let mut t = [Target::Global(0); LANES];
    let off = i.mods.offset as i64 as u64;
    match SEG {
        GLOBAL => match i.saddr {
            Src::S(_) => {
                let base = w.scalar64(i.saddr, Ty::B64);
                let v = w.read32(i.addr, Ty::B32)?;
                for l in 0..LANES {
                    t[l] = Target::Global(base.wrapping_add(u64::from(v[l])).wrapping_add(off));
                }
            }
            _ => {
                let v = w.read64(i.addr, Ty::B64)?;
                for l in 0..LANES {
                    t[l] = Target::Global(v[l].wrapping_add(off));
                }
            }
        },
        SCRATCH => {
            let s = match i.saddr {
                Src::None => 0,
                s => w.scalar32(s, Ty::B32),
            };
            let v = match i.addr {
                Src::V(_) => w.read32(i.addr, Ty::B32)?,
                _ => [0; LANES],
            };
            for l in 0..LANES {
                t[l] = Target::Scratch(s.wrapping_add(v[l]).wrapping_add(off as u32));
            }
        }
        _ => {
            let v = w.read64(i.addr, Ty::B64)?;
            for l in 0..LANES {
                let a = v[l].wrapping_add(off);
                t[l] = if a & !0xffff_ffff == SHARED_BASE {
                    Target::Lds(a as u32)
                } else if a & !0xffff_ffff == PRIVATE_BASE {
                    Target::Scratch(a as u32)
                } else {
                    Target::Global(a)
                };
            }
        }
    }
    Ok(t)
}

/// `a` when it is a global address: in the 48-bit canonical range (bits
/// 63:47 all equal). Anything else lies in the GFX9 address-space hole
/// outside every aperture: a memory violation the SQ raises to the wave
/// (TRAPSTS.MEM_VIOL), not a VM fault. The fast paths never see such an
/// address (no mapped range covers it), so the check costs the slow path
/// only.
#[inline]
fn in_aperture(a: u64, access: Access) -> Result<u64, Fault> {
    match a >> 47 {
        0 | 0x1_ffff => Ok(a),
        _ => Err(Fault::Memory(MemoryFault {
            address: a,
            access,
            reason: FaultReason::ApertureViolation,
        })),
    }
}

/// Reads `buf.len()` bytes of one lane's target.
#[inline]
fn read(ctx: &Ctx<'_>, w: &Wave, t: Target, lane: usize, buf: &mut [u8]) -> Result<(), Fault> {
    match t {
        Target::Global(a) => ctx
            .mem
            .read_bytes(in_aperture(a, Access::Read)?, buf)
            .map_err(Fault::Memory),
        Target::Lds(o) => {
            let o = o as usize;
            match ctx.lds.get(o..o + buf.len()) {
                Some(src) => buf.copy_from_slice(src),
                None => buf.fill(0),
            }
            Ok(())
        }
        Target::Scratch(o) => {
            let base = w.s64(FLAT_SCRATCH);
            // Whole dwords when aligned (the common case), else bytes.
            if o % 4 == 0 && buf.len() % 4 == 0 {
                for (k, d) in buf.chunks_mut(4).enumerate() {
                    ctx.mem
                        .read_bytes(scratch_address(base, o + 4 * k as u32, lane), d)
                        .map_err(Fault::Memory)?;
                }
                return Ok(());
            }
            for (k, b) in buf.iter_mut().enumerate() {
                let mut one = [0u8];
                ctx.mem
                    .read_bytes(
                        scratch_address(base, o.wrapping_add(k as u32), lane),
                        &mut one,
                    )
                    .map_err(Fault::Memory)?;
                *b = one[0];
            }
            Ok(())
        }
    }
}

/// Writes one lane's bytes.
#[inline]
fn write(ctx: &mut Ctx<'_>, w: &Wave, t: Target, lane: usize, data: &[u8]) -> Result<(), Fault> {
    match t {
        Target::Global(a) => ctx
            .mem
            .write_bytes(in_aperture(a, Access::Write)?, data)
            .map_err(Fault::Memory),
        Target::Lds(o) => {
            let o = o as usize;
            if let Some(dst) = ctx.lds.get_mut(o..o + data.len()) {
                dst.copy_from_slice(data);
            }
            Ok(())
        }
        Target::Scratch(o) => {
            let base = w.s64(FLAT_SCRATCH);
            // Whole dwords when aligned (the common case), else bytes.
            if o % 4 == 0 && data.len() % 4 == 0 {
                for (k, d) in data.chunks(4).enumerate() {
                    ctx.mem
                        .write_bytes(scratch_address(base, o + 4 * k as u32, lane), d)
                        .map_err(Fault::Memory)?;
                }
            } else {
                for (k, b) in data.iter().enumerate() {
                    ctx.mem
                        .write_bytes(scratch_address(base, o.wrapping_add(k as u32), lane), &[*b])
                        .map_err(Fault::Memory)?;
                }
            }
            Ok(())
        }
    }
}

/// Each lane's global address when every active lane's access is global
/// memory (GLOBAL always; FLAT when no active lane is in the LDS or
/// private aperture); None for SCRATCH and for FLAT accesses elsewhere.
#[inline]
fn global_addresses<const SEG: u8>(w: &Wave, i: &Inst, exec: u64) -> Option<[u64; LANES]> {
    let off = i.mods.offset as i64 as u64;
    let mut a = [0u64; LANES];
    match SEG {
        GLOBAL => match i.saddr {
            Src::S(_) => {
                let base = w.scalar64(i.saddr, Ty::B64).wrapping_add(off);
                let Src::V(r) = i.addr else { return None };
                let v = w.vget(r).ok()?;
                for l in 0..LANES {
                    a[l] = base.wrapping_add(u64::from(v[l]));
                }
            }
            _ => {
                let Src::V(r) = i.addr else { return None };
                let (lo, hi) = (w.vget(r).ok()?, w.vget(r + 1).ok()?);
                for l in 0..LANES {
                    a[l] = (u64::from(lo[l]) | (u64::from(hi[l]) << 32)).wrapping_add(off);
                }
            }
        },
        FLAT => {
            let Src::V(r) = i.addr else { return None };
            let (lo, hi) = (w.vget(r).ok()?, w.vget(r + 1).ok()?);
            let mut aperture = 0u64;
            for l in 0..LANES {
                a[l] = (u64::from(lo[l]) | (u64::from(hi[l]) << 32)).wrapping_add(off);
                let top = a[l] & !0xffff_ffff;
                let special = top == SHARED_BASE || top == PRIVATE_BASE;
                aperture |= u64::from(special) << l;
            }
            if aperture & exec != 0 {
                return None;
            }
        }
        _ => return None,
    }
    Some(a)
}

/// The first lane's address when every lane is active and lane `l`
/// accesses `dwords` dwords at `a[0] + 4 * dwords * l`, dword aligned
/// (the common `a[i]` with `i` the work-item id): the accesses tile one
/// span of `64 * dwords` dwords.
#[inline]
fn unit_stride(a: &[u64; LANES], exec: u64, dwords: usize) -> Option<u64> {
    if exec != u64::MAX || a[0] % 4 != 0 {
        return None;
    }
    let stride = 4 * dwords as u64;
    // Any lane off its place leaves a bit set (adds only: no 64-bit
    // multiply per lane).
    let (mut off, mut want) = (0u64, a[0]);
    for l in 0..LANES {
        off |= a[l] ^ want;
        want = want.wrapping_add(stride);
    }
    (off == 0 && a[0].checked_add(stride * LANES as u64).is_some()).then_some(a[0])
}

/// The span `[lo, lo + len)` of every active lane's access of `bytes`
/// bytes when all are dword aligned.
#[inline]
fn span(a: &[u64; LANES], exec: u64, bytes: u64) -> Option<(u64, u64)> {
    let (mut lo, mut hi, mut misaligned) = (u64::MAX, 0u64, 0u64);
    for l in 0..LANES {
        let on = exec >> l & 1 != 0;
        misaligned |= u64::from(on) & (a[l] % 4);
        if on {
            lo = lo.min(a[l]);
            hi = hi.max(a[l]);
        }
    }
    if lo > hi || misaligned != 0 {
        return None;
    }
    Some((lo, hi.checked_add(bytes)? - lo))
}

/// The fast path of a dword load (1-4 dwords per lane): when every active
/// lane reads aligned global memory inside one mapped range, the range's
/// dwords are borrowed once and each lane's is one plain load. False
/// (having changed nothing) when it does not apply.
#[inline]
fn load_dwords<const SEG: u8>(
    w: &mut Wave,
    i: &Inst,
    ctx: &Ctx<'_>,
    exec: u64,
    d: usize,
    dwords: usize,
) -> bool {
    let Some(a) = global_addresses::<SEG>(w, i, exec) else {
        return false;
    };
    if let Some(lo) = unit_stride(&a, exec, dwords) {
        return load_span(w, ctx, i.pc, lo, d, dwords);
    }
    let Some((lo, len)) = span(&a, exec, 4 * dwords as u64) else {
        return false;
    };
    let Some(m) = ctx.mem.u32s(i.pc, lo, len, false) else {
        return false;
    };
    for k in 0..dwords {
        let dst = &mut w.v[d + k];
        for l in 0..LANES {
            if exec >> l & 1 != 0 {
                // In `m`: `span` covered every active lane's dwords.
                dst[l] = m[((a[l] - lo) / 4) as usize + k].load(Ordering::Relaxed);
            }
        }
    }
    true
}

/// The fast path of a dword store, as [`load_dwords`].
#[inline]
fn store_dwords<const SEG: u8>(
    w: &Wave,
    i: &Inst,
    ctx: &Ctx<'_>,
    exec: u64,
    s: usize,
    dwords: usize,
) -> bool {
    let Some(a) = global_addresses::<SEG>(w, i, exec) else {
        return false;
    };
    if let Some(lo) = unit_stride(&a, exec, dwords) {
        return store_span(w, ctx, i.pc, lo, s, dwords);
    }
    let Some((lo, len)) = span(&a, exec, 4 * dwords as u64) else {
        return false;
    };
    let Some(m) = ctx.mem.u32s(i.pc, lo, len, true) else {
        return false;
    };
    // Lane order, as the slow path (overlapping lanes: the last one wins).
    for l in 0..LANES {
        if exec >> l & 1 != 0 {
            for k in 0..dwords {
                m[((a[l] - lo) / 4) as usize + k].store(w.v[s + k][l], Ordering::Relaxed);
            }
        }
    }
    true
}

/// Every lane's `dwords` dwords from the span at `lo` (lane `l`'s at
/// `lo + 4 * dwords * l`) into VGPRs `d..d + dwords`, through one borrow
/// of the mapped range: no per-lane index or mask. False (having changed
/// nothing) when the span is not inside one mapped range.
#[inline]
fn load_span(w: &mut Wave, ctx: &Ctx<'_>, pc: u64, lo: u64, d: usize, dwords: usize) -> bool {
    let len = (LANES * 4 * dwords) as u64;
    let Some(m) = ctx.mem.u32s(pc, lo, len, false) else {
        return false;
    };
    copy_in(w, d, dwords, m);
    true
}

/// `dwords` dwords a lane from `m` (lane `l`'s at `dwords * l`) into
/// VGPRs `d..d + dwords`.
#[inline]
fn copy_in(w: &mut Wave, d: usize, dwords: usize, m: &[AtomicU32]) {
    if dwords == 1 {
        crate::bulk::load_u32s(m, &mut w.v[d]);
    } else {
        for (l, lane) in m.chunks_exact(dwords).take(LANES).enumerate() {
            for (k, word) in lane.iter().enumerate() {
                w.v[d + k][l] = word.load(Ordering::Relaxed);
            }
        }
    }
}

/// The store of [`load_span`]: VGPRs `s..s + dwords` to the span at `lo`
/// (lanes write disjoint dwords: their order is moot).
#[inline]
fn store_span(w: &Wave, ctx: &Ctx<'_>, pc: u64, lo: u64, s: usize, dwords: usize) -> bool {
    let len = (LANES * 4 * dwords) as u64;
    let Some(m) = ctx.mem.u32s(pc, lo, len, true) else {
        return false;
    };
    copy_out(w, s, dwords, m);
    true
}

/// VGPRs `s..s + dwords` to `m` (lane `l`'s at `dwords * l`).
#[inline]
fn copy_out(w: &Wave, s: usize, dwords: usize, m: &[AtomicU32]) {
    if dwords == 1 {
        crate::bulk::store_u32s(&w.v[s], m);
    } else {
        for (l, lane) in m.chunks_exact(dwords).take(LANES).enumerate() {
            for (k, word) in lane.iter().enumerate() {
                word.store(w.v[s + k][l], Ordering::Relaxed);
            }
        }
    }
}

/// A dword load (1-4 a lane) whose address is a shape of stride `4 *
/// dwords` ([`super::shape::unit_stride_address`]), EXEC all ones: one
/// copy of the span into the destination VGPRs, which are then
/// materialised (every lane written). false (nothing changed) when it
/// does not apply.
fn shaped_load<const SEG: u8, const KIND: u8>(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>) -> bool {
    let Dst::V(d) = i.vdst else { return false };
    let (d, dwords) = (usize::from(d), load_bytes(KIND) / 4);
    if w.exec() != u64::MAX || d + dwords > w.v.len() {
        return false;
    }
    let Some(lo) = super::shape::unit_stride_address(w, i, SEG == FLAT, dwords) else {
        return false;
    };
    if !load_span(w, ctx, i.pc, lo, d, dwords) {
        return false;
    }
    for k in d..d + dwords {
        w.untag(k);
    }
    true
}

/// The store of [`shaped_load`] (the data VGPRs materialised first).
fn shaped_store<const SEG: u8, const KIND: u8>(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>) -> bool {
    let Src::V(s) = i.data else { return false };
    let (s, dwords) = (usize::from(s), load_bytes(KIND) / 4);
    if w.exec() != u64::MAX || s + dwords > w.v.len() {
        return false;
    }
    let Some(lo) = super::shape::unit_stride_address(w, i, SEG == FLAT, dwords) else {
        return false;
    };
    w.materialize_range(s, dwords);
    store_span(w, ctx, i.pc, lo, s, dwords)
}

/// A FLAT/GLOBAL dword load or store (1-4 dwords) as a work-group in
/// lockstep runs it: `(store, flat, dwords)`.
pub(crate) fn group_form(op: Opcode) -> Option<(bool, bool, usize)> {
    let name = op.name();
    let (flat, rest) = if let Some(r) = name.strip_prefix("flat_") {
        (true, r)
    } else {
        (false, name.strip_prefix("global_")?)
    };
    let (kind, width) = rest.split_once('_')?;
    let store = match kind {
        "load" if !rest.starts_with("load_lds") => false,
        "store" => true,
        _ => return None,
    };
    let dwords = match width {
        "dword" => 1,
        "dwordx2" => 2,
        "dwordx3" => 3,
        "dwordx4" => 4,
        _ => return None,
    };
    Some((store, flat, dwords))
}

/// A dword load for a work-group in lockstep (`super::lockstep`): the
/// leader's address shape has stride `4 * dwords` over every wave's
/// lanes, so the group's accesses tile one span, which must lie in one
/// mapped range; each wave's part is copied into that wave's VGPRs, and
/// the leader's destination VGPRs are no longer shapes (each wave's lanes
/// are its own). false, having changed nothing, when that does not hold
/// (the group then splits and each wave loads alone).
pub(crate) fn group_load(
    waves: &mut [Wave],
    i: &Inst,
    ctx: &Ctx<'_>,
    flat: bool,
    dwords: usize,
) -> bool {
    let Dst::V(d) = i.vdst else { return false };
    let d = usize::from(d);
    let Some(m) = group_span(waves, i, ctx, flat, d, dwords, false) else {
        return false;
    };
    for (w, part) in waves.iter_mut().zip(m.chunks_exact(LANES * dwords)) {
        copy_in(w, d, dwords, part);
    }
    for r in d..d + dwords {
        waves[0].untag(r);
    }
    true
}

/// The span a group in lockstep accesses with VGPRs `r..r + dwords`,
/// borrowed once (writable if `write`): each wave's part is the next
/// `LANES * dwords` dwords. None when the leader's EXEC is not full,
/// those VGPRs are not in the file, the address does not tile one span
/// or the span is not inside one mapped range.
fn group_span<'m>(
    waves: &[Wave],
    i: &Inst,
    ctx: &Ctx<'m>,
    flat: bool,
    r: usize,
    dwords: usize,
    write: bool,
) -> Option<&'m [AtomicU32]> {
    let leader = waves.first()?;
    if leader.exec() != u64::MAX || r + dwords > leader.v.len() {
        return None;
    }
    let lo = super::shape::unit_stride_address(leader, i, flat, dwords)?;
    let len = (LANES * 4 * dwords * waves.len()) as u64;
    ctx.mem.u32s(i.pc, lo, len, write)
}

/// The store of [`group_load`]: the data VGPRs that are shapes are first
/// written out in every wave (its own slice), then each wave stores its
/// part of the group's span.
pub(crate) fn group_store(
    waves: &mut [Wave],
    i: &Inst,
    ctx: &Ctx<'_>,
    flat: bool,
    dwords: usize,
) -> bool {
    let Src::V(s) = i.data else { return false };
    let s = usize::from(s);
    let Some(m) = group_span(waves, i, ctx, flat, s, dwords, true) else {
        return false;
    };
    super::lockstep::materialize(waves, s, dwords);
    for (w, part) in waves.iter().zip(m.chunks_exact(LANES * dwords)) {
        copy_out(w, s, dwords, part);
    }
    true
}

/// The shape handler of a FLAT/GLOBAL dword load or store (1-4 dwords).
pub(crate) fn shaped(op: Opcode) -> Option<ShapedFn> {
    let (store, flat, dwords) = group_form(op)?;
    macro_rules! pick {
        ($f:ident) => {
            match (flat, dwords) {
                (true, 1) => $f::<FLAT, DWORD> as ShapedFn,
                (true, 2) => $f::<FLAT, X2>,
                (true, 3) => $f::<FLAT, X3>,
                (true, _) => $f::<FLAT, X4>,
                (false, 1) => $f::<GLOBAL, DWORD>,
                (false, 2) => $f::<GLOBAL, X2>,
                (false, 3) => $f::<GLOBAL, X3>,
                (false, _) => $f::<GLOBAL, X4>,
            }
        };
    }
    Some(if store {
        pick!(shaped_store)
    } else {
        pick!(shaped_load)
    })
}

// Load kinds.
const UBYTE: u8 = 0;
const SBYTE: u8 = 1;
const USHORT: u8 = 2;
const SSHORT: u8 = 3;
const DWORD: u8 = 4;
const X2: u8 = 5;
const X3: u8 = 6;
const X4: u8 = 7;
const UBYTE_D16: u8 = 8;
const UBYTE_D16_HI: u8 = 9;
const SBYTE_D16: u8 = 10;
const SBYTE_D16_HI: u8 = 11;
const SHORT_D16: u8 = 12;
const SHORT_D16_HI: u8 = 13;

fn load_bytes(kind: u8) -> usize {
    match kind {
        UBYTE | SBYTE | UBYTE_D16 | UBYTE_D16_HI | SBYTE_D16 | SBYTE_D16_HI => 1,
        USHORT | SSHORT | SHORT_D16 | SHORT_D16_HI => 2,
        DWORD => 4,
        X2 => 8,
        X3 => 12,
        _ => 16,
    }
}

fn load<const SEG: u8, const KIND: u8>(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>) -> Exec {
    let Dst::V(d) = i.vdst else {
        return Err(Box::new(Fault::Abort(
            "load without a destination VGPR".into(),
        )));
    };
    let exec = w.exec();
    let n = load_bytes(KIND);
    let dwords = n.div_ceil(4);
    if usize::from(d) + dwords > w.v.len() {
        return Err(Box::new(Fault::Abort(format!(
            "v{d} + {dwords} is past the wave's VGPRs"
        ))));
    }
    if (DWORD..=X4).contains(&KIND) && load_dwords::<SEG>(w, i, ctx, exec, usize::from(d), dwords) {
        return Ok(Flow::Next);
    }
    let t = targets::<SEG>(w, i)?;
    let mut buf = [0u8; 16];
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        read(ctx, w, t[l], l, &mut buf[..n])?;
        let b = &buf;
        let word =
            |k: usize| u32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]]);
        let old = w.v[usize::from(d)][l];
        let v = match KIND {
            UBYTE => u32::from(b[0]),
            SBYTE => b[0] as i8 as i32 as u32,
            USHORT => u32::from(u16::from_le_bytes([b[0], b[1]])),
            SSHORT => i16::from_le_bytes([b[0], b[1]]) as i32 as u32,
            UBYTE_D16 => (old & 0xffff_0000) | u32::from(b[0]),
            UBYTE_D16_HI => (old & 0xffff) | (u32::from(b[0]) << 16),
            SBYTE_D16 => (old & 0xffff_0000) | u32::from(b[0] as i8 as i16 as u16),
            SBYTE_D16_HI => (old & 0xffff) | (u32::from(b[0] as i8 as i16 as u16) << 16),
            SHORT_D16 => (old & 0xffff_0000) | u32::from(u16::from_le_bytes([b[0], b[1]])),
            SHORT_D16_HI => (old & 0xffff) | (u32::from(u16::from_le_bytes([b[0], b[1]])) << 16),
            _ => {
                for k in 1..dwords {
                    w.v[usize::from(d) + k][l] = word(k);
                }
                word(0)
            }
        };
        w.v[usize::from(d)][l] = v;
    }
    Ok(Flow::Next)
}

/// gfx94x's `global_load_lds_*` / `scratch_load_lds_*`: each enabled
/// lane's dword (the one the VGPR form would get, zero/sign extended) goes
/// to the work-group's LDS at `M0[15:0] + inst_offset + lane * 4`, as the
/// MUBUF `lds` forms (the immediate offset applies to both addresses, as
/// LLVM's `int_amdgcn_global_load_lds` documents); the memory address is
/// the plain load's. A dword past the LDS allocation is dropped.
fn load_lds<const SEG: u8, const KIND: u8>(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>) -> Exec {
    let exec = w.exec();
    let n = load_bytes(KIND);
    let t = targets::<SEG>(w, i)?;
    let base = (w.m0() & 0xffff).wrapping_add(i.mods.offset as u32);
    let mut buf = [0u8; 4];
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        read(ctx, w, t[l], l, &mut buf[..n])?;
        let v = match KIND {
            UBYTE => u32::from(buf[0]),
            SBYTE => buf[0] as i8 as i32 as u32,
            USHORT => u32::from(u16::from_le_bytes([buf[0], buf[1]])),
            SSHORT => i16::from_le_bytes([buf[0], buf[1]]) as i32 as u32,
            _ => u32::from_le_bytes(buf),
        };
        let at = base.wrapping_add(4 * l as u32) as usize;
        if let Some(dst) = ctx.lds.get_mut(at..at + 4) {
            dst.copy_from_slice(&v.to_le_bytes());
        }
    }
    Ok(Flow::Next)
}

// Store kinds.
const BYTE: u8 = 0;
const BYTE_D16_HI: u8 = 1;
const SHORT: u8 = 2;
const SHORT_HI: u8 = 3;

fn store<const SEG: u8, const KIND: u8>(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>) -> Exec {
    let Src::V(s) = i.data else {
        return Err(Box::new(Fault::Abort("store without a data VGPR".into())));
    };
    let exec = w.exec();
    let n: usize = match KIND {
        BYTE | BYTE_D16_HI => 1,
        SHORT | SHORT_HI => 2,
        DWORD => 4,
        X2 => 8,
        X3 => 12,
        _ => 16,
    };
    let dwords = n.div_ceil(4);
    if usize::from(s) + dwords > w.v.len() {
        return Err(Box::new(Fault::Abort(format!(
            "v{s} + {dwords} is past the wave's VGPRs"
        ))));
    }
    if (DWORD..=X4).contains(&KIND) && store_dwords::<SEG>(w, i, ctx, exec, usize::from(s), dwords)
    {
        return Ok(Flow::Next);
    }
    let t = targets::<SEG>(w, i)?;
    let mut buf = [0u8; 16];
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        for k in 0..dwords {
            let v = w.v[usize::from(s) + k][l];
            let v = if KIND == BYTE_D16_HI || KIND == SHORT_HI {
                v >> 16
            } else {
                v
            };
            buf[4 * k..4 * k + 4].copy_from_slice(&v.to_le_bytes());
        }
        write(ctx, w, t[l], l, &buf[..n])?;
    }
    Ok(Flow::Next)
}

// Atomic kinds (32-bit unless `_X2`/`F64`).
const A_SWAP: u8 = 0;
const A_CMPSWAP: u8 = 1;
const A_ADD: u8 = 2;
const A_SUB: u8 = 3;
const A_SMIN: u8 = 4;
const A_UMIN: u8 = 5;
const A_SMAX: u8 = 6;
const A_UMAX: u8 = 7;
const A_AND: u8 = 8;
const A_OR: u8 = 9;
const A_XOR: u8 = 10;
const A_INC: u8 = 11;
const A_DEC: u8 = 12;
const A_ADD_F32: u8 = 13;
const A_ADD_F64: u8 = 14;
const A_MIN_F64: u8 = 15;
const A_MAX_F64: u8 = 16;
const A_PK_ADD_F16: u8 = 17;
const A_PK_ADD_BF16: u8 = 18;

fn int_op(kind: u8) -> AtomicOp {
    match kind {
        A_SWAP => AtomicOp::Swap,
        A_ADD => AtomicOp::Add,
        A_SUB => AtomicOp::Sub,
        A_SMIN => AtomicOp::SMin,
        A_UMIN => AtomicOp::UMin,
        A_SMAX => AtomicOp::SMax,
        A_UMAX => AtomicOp::UMax,
        A_AND => AtomicOp::And,
        A_OR => AtomicOp::Or,
        A_XOR => AtomicOp::Xor,
        A_INC => AtomicOp::Inc,
        _ => AtomicOp::Dec,
    }
}

/// A read-modify-write of a 32-bit word by `f(old) -> new` with CAS.
pub(crate) fn cas_loop_u32(
    mem: &GpuMemory,
    va: u64,
    f: impl Fn(u32) -> u32,
) -> Result<u32, MemoryFault> {
    let mut old = mem.load_u32(va, std::sync::atomic::Ordering::Relaxed)?;
    loop {
        let seen = mem.compare_exchange_u32(va, old, f(old))?;
        if seen == old {
            return Ok(old);
        }
        old = seen;
    }
}

fn cas_loop_u64(mem: &GpuMemory, va: u64, f: impl Fn(u64) -> u64) -> Result<u64, MemoryFault> {
    let mut old = mem.load_u64(va, std::sync::atomic::Ordering::Relaxed)?;
    loop {
        let seen = mem.compare_exchange_u64(va, old, f(old))?;
        if seen == old {
            return Ok(old);
        }
        old = seen;
    }
}

/// f16 bits to f32 (exact).
pub(crate) fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let e = u32::from((h >> 10) & 0x1f);
    let m = u32::from(h & 0x3ff);
    let bits = match (e, m) {
        (0, 0) => sign,
        (0, _) => {
            // Subnormal: normalise.
            let shift = m.leading_zeros() - 21;
            let m = (m << shift) & 0x3ff;
            sign | ((113 - shift) << 23) | (m << 13)
        }
        (31, 0) => sign | 0x7f80_0000,
        (31, _) => sign | 0x7fc0_0000 | (m << 13),
        _ => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// f32 to f16 bits, round to nearest even.
pub(crate) fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let e = ((b >> 23) & 0xff) as i32;
    let m = b & 0x7f_ffff;
    if e == 255 {
        return sign | 0x7c00 | if m != 0 { 0x200 | (m >> 13) as u16 } else { 0 };
    }
    let e16 = e - 127 + 15;
    if e16 >= 31 {
        return sign | 0x7c00;
    }
    if e16 <= 0 {
        if e16 < -10 {
            return sign;
        }
        let m = m | 0x80_0000;
        let shift = (14 - e16) as u32;
        let half = 1u32 << (shift - 1);
        let rest = m & ((1 << shift) - 1);
        let mut r = m >> shift;
        if rest > half || (rest == half && r & 1 != 0) {
            r += 1;
        }
        return sign | r as u16;
    }
    let rest = m & 0x1fff;
    let mut r = ((e16 as u32) << 10) | (m >> 13);
    if rest > 0x1000 || (rest == 0x1000 && r & 1 != 0) {
        r += 1;
    }
    sign | r as u16
}

fn bf16_add(a: u16, b: u16) -> u16 {
    let s = f32::from_bits(u32::from(a) << 16) + f32::from_bits(u32::from(b) << 16);
    let bits = s.to_bits();
    if s.is_nan() {
        return ((bits >> 16) | 0x40) as u16;
    }
    let round = 0x7fff + ((bits >> 16) & 1);
    (bits.wrapping_add(round) >> 16) as u16
}

fn atomic<const SEG: u8, const KIND: u8, const WIDE: bool>(
    w: &mut Wave,
    i: &Inst,
    ctx: &mut Ctx<'_>,
) -> Exec {
    let Src::V(s) = i.data else {
        return Err(Box::new(Fault::Abort("atomic without a data VGPR".into())));
    };
    let t = targets::<SEG>(w, i)?;
    let exec = w.exec();
    let wide = WIDE || matches!(KIND, A_ADD_F64 | A_MIN_F64 | A_MAX_F64);
    let data_dwords = if wide { 2 } else { 1 } * if KIND == A_CMPSWAP { 2 } else { 1 };
    if usize::from(s) + data_dwords > w.v.len() {
        return Err(Box::new(Fault::Abort(format!(
            "v{s} is past the wave's VGPRs"
        ))));
    }
    let mut old = [0u64; LANES];
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let dv = |k: usize| w.v[usize::from(s) + k][l];
        let src = if wide {
            u64::from(dv(0)) | (u64::from(dv(1)) << 32)
        } else {
            u64::from(dv(0))
        };
        let cmp = match (KIND == A_CMPSWAP, wide) {
            (true, false) => u64::from(dv(1)),
            (true, true) => u64::from(dv(2)) | (u64::from(dv(3)) << 32),
            _ => 0,
        };
        let va = match t[l] {
            Target::Global(a) => in_aperture(a, Access::Write)?,
            Target::Scratch(o) => {
                // Private atomics act on the swizzled dword(s).
                scratch_address(w.s64(FLAT_SCRATCH), o, l)
            }
            Target::Lds(o) => {
                old[l] = lds_atomic(ctx.lds, o, KIND, wide, src, cmp);
                continue;
            }
        };
        let mem = ctx.memory;
        let r = match KIND {
            A_CMPSWAP if wide => mem.compare_exchange_u64(va, cmp, src),
            A_CMPSWAP => mem
                .compare_exchange_u32(va, cmp as u32, src as u32)
                .map(u64::from),
            A_ADD_F32 => cas_loop_u32(mem, va, |o| {
                (f32::from_bits(o) + f32::from_bits(src as u32)).to_bits()
            })
            .map(u64::from),
            A_ADD_F64 => cas_loop_u64(mem, va, |o| {
                (f64::from_bits(o) + f64::from_bits(src)).to_bits()
            }),
            A_MIN_F64 => cas_loop_u64(mem, va, |o| {
                f64::from_bits(o).min(f64::from_bits(src)).to_bits()
            }),
            A_MAX_F64 => cas_loop_u64(mem, va, |o| {
                f64::from_bits(o).max(f64::from_bits(src)).to_bits()
            }),
            A_PK_ADD_F16 => cas_loop_u32(mem, va, |o| pk_f16(o, src as u32)).map(u64::from),
            A_PK_ADD_BF16 => cas_loop_u32(mem, va, |o| {
                u32::from(bf16_add(o as u16, src as u16))
                    | (u32::from(bf16_add((o >> 16) as u16, (src >> 16) as u16)) << 16)
            })
            .map(u64::from),
            k if wide => mem.atomic_u64(va, int_op(k), src),
            k => mem.atomic_u32(va, int_op(k), src as u32).map(u64::from),
        };
        old[l] = r.map_err(Fault::Memory)?;
    }
    // The returning forms (glc) name a destination.
    if let Dst::V(d) = i.vdst {
        let n = w.v.len();
        if usize::from(d) + usize::from(wide) >= n {
            return Err(Box::new(Fault::Abort(format!(
                "v{d} is past the wave's VGPRs"
            ))));
        }
        for l in 0..LANES {
            if exec >> l & 1 != 0 {
                w.v[usize::from(d)][l] = old[l] as u32;
                if wide {
                    w.v[usize::from(d) + 1][l] = (old[l] >> 32) as u32;
                }
            }
        }
    }
    Ok(Flow::Next)
}

fn pk_f16(a: u32, b: u32) -> u32 {
    let lo = f32_to_f16(f16_to_f32(a as u16) + f16_to_f32(b as u16));
    let hi = f32_to_f16(f16_to_f32((a >> 16) as u16) + f16_to_f32((b >> 16) as u16));
    u32::from(lo) | (u32::from(hi) << 16)
}

/// An atomic on LDS (single-threaded per work-group, so plain reads and
/// writes); out of range: no effect, returns 0.
pub(crate) fn lds_atomic(lds: &mut [u8], o: u32, kind: u8, wide: bool, src: u64, cmp: u64) -> u64 {
    let o = o as usize;
    let n = if wide { 8 } else { 4 };
    let Some(bytes) = lds.get_mut(o..o + n) else {
        return 0;
    };
    let mut b = [0u8; 8];
    b[..n].copy_from_slice(bytes);
    let old = u64::from_le_bytes(b);
    let new = match kind {
        A_CMPSWAP => {
            if old == cmp {
                src
            } else {
                old
            }
        }
        A_ADD_F32 => u64::from((f32::from_bits(old as u32) + f32::from_bits(src as u32)).to_bits()),
        A_ADD_F64 => (f64::from_bits(old) + f64::from_bits(src)).to_bits(),
        A_MIN_F64 => f64::from_bits(old).min(f64::from_bits(src)).to_bits(),
        A_MAX_F64 => f64::from_bits(old).max(f64::from_bits(src)).to_bits(),
        A_PK_ADD_F16 => u64::from(pk_f16(old as u32, src as u32)),
        k if wide => apply64(int_op(k), old, src),
        k => u64::from(apply32(int_op(k), old as u32, src as u32)),
    };
    bytes.copy_from_slice(&new.to_le_bytes()[..n]);
    old
}

fn apply32(op: AtomicOp, old: u32, v: u32) -> u32 {
    apply64_as(op, u64::from(old), u64::from(v), 32) as u32
}

fn apply64(op: AtomicOp, old: u64, v: u64) -> u64 {
    apply64_as(op, old, v, 64)
}

fn apply64_as(op: AtomicOp, old: u64, v: u64, bits: u32) -> u64 {
    let sx = |x: u64| {
        if bits == 32 {
            i64::from(x as u32 as i32)
        } else {
            x as i64
        }
    };
    match op {
        AtomicOp::Swap => v,
        AtomicOp::Add => old.wrapping_add(v),
        AtomicOp::Sub => old.wrapping_sub(v),
        AtomicOp::SMin => {
            if sx(old) <= sx(v) {
                old
            } else {
                v
            }
        }
        AtomicOp::UMin => old.min(v),
        AtomicOp::SMax => {
            if sx(old) >= sx(v) {
                old
            } else {
                v
            }
        }
        AtomicOp::UMax => old.max(v),
        AtomicOp::And => old & v,
        AtomicOp::Or => old | v,
        AtomicOp::Xor => old ^ v,
        AtomicOp::Inc => {
            if old >= v {
                0
            } else {
                old + 1
            }
        }
        AtomicOp::Dec => {
            if old == 0 || old > v {
                v
            } else {
                old - 1
            }
        }
    }
}

macro_rules! kinds {
    ($f:ident, $seg:expr, $k:expr, $($n:ident)*) => {
        match $k {
            $($n => Some($f::<{ $seg }, $n> as ExecFn),)*
            _ => None,
        }
    };
}

fn seg_load<const SEG: u8>(k: u8) -> Option<ExecFn> {
    kinds!(load, SEG, k, UBYTE SBYTE USHORT SSHORT DWORD X2 X3 X4 UBYTE_D16 UBYTE_D16_HI SBYTE_D16 SBYTE_D16_HI SHORT_D16 SHORT_D16_HI)
}

fn seg_store<const SEG: u8>(k: u8) -> Option<ExecFn> {
    kinds!(store, SEG, k, BYTE BYTE_D16_HI SHORT SHORT_HI DWORD X2 X3 X4)
}

fn seg_atomic<const SEG: u8, const WIDE: bool>(k: u8) -> Option<ExecFn> {
    macro_rules! atoms {
        ($($n:ident)*) => {
            match k {
                $($n => Some(atomic::<SEG, $n, WIDE> as ExecFn),)*
                _ => None,
            }
        };
    }
    atoms!(A_SWAP A_CMPSWAP A_ADD A_SUB A_SMIN A_UMIN A_SMAX A_UMAX A_AND A_OR A_XOR A_INC A_DEC A_ADD_F32 A_ADD_F64 A_MIN_F64 A_MAX_F64 A_PK_ADD_F16 A_PK_ADD_BF16)
}

/// The atomic kind of an operation name suffix (`add`, `cmpswap_x2`, ...).
pub(crate) fn atomic_kind(name: &str) -> Option<(u8, bool)> {
    let (base, wide) = match name.strip_suffix("_x2") {
        Some(b) => (b, true),
        None => (name, false),
    };
    let k = match base {
        "swap" => A_SWAP,
        "cmpswap" => A_CMPSWAP,
        "add" => A_ADD,
        "sub" => A_SUB,
        "smin" => A_SMIN,
        "umin" => A_UMIN,
        "smax" => A_SMAX,
        "umax" => A_UMAX,
        "and" => A_AND,
        "or" => A_OR,
        "xor" => A_XOR,
        "inc" => A_INC,
        "dec" => A_DEC,
        "add_f32" => A_ADD_F32,
        "add_f64" => A_ADD_F64,
        "min_f64" => A_MIN_F64,
        "max_f64" => A_MAX_F64,
        "pk_add_f16" => A_PK_ADD_F16,
        "pk_add_bf16" => A_PK_ADD_BF16,
        _ => return None,
    };
    Some((k, wide))
}

/// The handler of a FLAT/GLOBAL/SCRATCH operation, from its mnemonic.
pub(crate) fn handler(op: Opcode) -> Option<ExecFn> {
    let name = op.name();
    let (seg, rest) = if let Some(r) = name.strip_prefix("flat_") {
        (FLAT, r)
    } else if let Some(r) = name.strip_prefix("global_") {
        (GLOBAL, r)
    } else if let Some(r) = name.strip_prefix("scratch_") {
        (SCRATCH, r)
    } else {
        return None;
    };
    if let Some(k) = rest.strip_prefix("load_lds_") {
        let kind = match k {
            "ubyte" => UBYTE,
            "sbyte" => SBYTE,
            "ushort" => USHORT,
            "sshort" => SSHORT,
            "dword" => DWORD,
            _ => return None,
        };
        return match seg {
            GLOBAL => kinds!(load_lds, GLOBAL, kind, UBYTE SBYTE USHORT SSHORT DWORD),
            SCRATCH => kinds!(load_lds, SCRATCH, kind, UBYTE SBYTE USHORT SSHORT DWORD),
            _ => None,
        };
    }
    if let Some(k) = rest.strip_prefix("load_") {
        let kind = match k {
            "ubyte" => UBYTE,
            "sbyte" => SBYTE,
            "ushort" => USHORT,
            "sshort" => SSHORT,
            "dword" => DWORD,
            "dwordx2" => X2,
            "dwordx3" => X3,
            "dwordx4" => X4,
            "ubyte_d16" => UBYTE_D16,
            "ubyte_d16_hi" => UBYTE_D16_HI,
            "sbyte_d16" => SBYTE_D16,
            "sbyte_d16_hi" => SBYTE_D16_HI,
            "short_d16" => SHORT_D16,
            "short_d16_hi" => SHORT_D16_HI,
            _ => return None,
        };
        return match seg {
            FLAT => seg_load::<FLAT>(kind),
            GLOBAL => seg_load::<GLOBAL>(kind),
            _ => seg_load::<SCRATCH>(kind),
        };
    }
    if let Some(k) = rest.strip_prefix("store_") {
        let kind = match k {
            "byte" => BYTE,
            "byte_d16_hi" => BYTE_D16_HI,
            "short" => SHORT,
            "short_d16_hi" => SHORT_HI,
            "dword" => DWORD,
            "dwordx2" => X2,
            "dwordx3" => X3,
            "dwordx4" => X4,
            _ => return None,
        };
        return match seg {
            FLAT => seg_store::<FLAT>(kind),
            GLOBAL => seg_store::<GLOBAL>(kind),
            _ => seg_store::<SCRATCH>(kind),
        };
    }
    let (kind, wide) = atomic_kind(rest.strip_prefix("atomic_")?)?;
    match (seg, wide) {
        (FLAT, false) => seg_atomic::<FLAT, false>(kind),
        (FLAT, true) => seg_atomic::<FLAT, true>(kind),
        (GLOBAL, false) => seg_atomic::<GLOBAL, false>(kind),
        (GLOBAL, true) => seg_atomic::<GLOBAL, true>(kind),
        _ => None,
    }
}
