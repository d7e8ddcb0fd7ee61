//! Untyped buffer memory (MUBUF): `buffer_load_*`, `buffer_store_*` and
//! `buffer_atomic_*` through a buffer resource (V#), as gfx90a code uses
//! for the scratch V# (private segment buffer) and for raw buffers; the
//! cache-control ones (`buffer_wbinvl1*`, `buffer_wbl2`, `buffer_inv*`)
//! have nothing to do. The typed forms (`*_format_*`, MTBUF) are in
//! `tbuf`.
//!
//! Addressing (Vega ISA "Buffer Instructions"): V# base [47:0], stride
//! [61:48], `num_records` (word 2), SWIZZLE_ENABLE (word 1 bit 31),
//! ELEMENT_SIZE (word 3 [20:19]: 2/4/8/16 bytes), INDEX_STRIDE ([22:21]:
//! 8/16/32/64), ADD_TID_ENABLE ([23]). index = `idxen` VGPR + lane (if
//! ADD_TID); offset = `offen` VGPR + instruction offset; swizzled:
//! `base + soffset + (index / istride * stride + offset / esize * esize) *
//! istride + index % istride * esize + offset % esize`, else `base +
//! soffset + index * stride + offset`. Out of range (offset past
//! `num_records` bytes for stride 0, else index past `num_records`) loads
//! read 0 and stores are dropped. Every dword is addressed on its own.
//!
//! The `lds` forms (word 0 bit 16) address the work-group's LDS at
//! `M0[15:0] + inst_offset + lane * 4` (Vega / CDNA ISA "Memory Buffer
//! Load to LDS": `LDS_ADDR = LDSbase + LDS_offset + inst_offset + TID *
//! 4`, LDS_offset from M0) besides the plain form's memory address:
//! `buffer_load_{ubyte,sbyte,ushort,sshort,dword,format_x} ... lds` put
//! each enabled lane's dword there (the one the VGPR form would get: zero
//! or sign extended, converted, 0 out of range) instead of in a VGPR, and
//! `buffer_store_lds_dword` stores the dword found there. An LDS dword
//! past the work-group's allocation is dropped (reads 0), as for DS.

use isa::Opcode::{self, *};

use super::program::{Dst, ExecFn, Inst, Src};
use super::vmem::atomic_kind;
use super::wave::{LANES, Ty, Wave};
use super::{Ctx, Exec, Fault, Flow};
use crate::memory::{AtomicOp, DeviceMemory};

pub(crate) struct Rsrc {
    base: u64,
    stride: u64,
    records: u64,
    swizzle: bool,
    esize: u64,
    istride: u64,
    add_tid: bool,
}

fn rsrc(w: &Wave, i: &Inst) -> Rsrc {
    let Src::S(r) = i.saddr else {
        return Rsrc {
            base: 0,
            stride: 0,
            records: 0,
            swizzle: false,
            esize: 4,
            istride: 8,
            add_tid: false,
        };
    };
    let r = usize::from(r);
    let d = |k: usize| w.s[(r + k) % 128];
    Rsrc {
        base: u64::from(d(0)) | (u64::from(d(1) & 0xffff) << 32),
        stride: u64::from((d(1) >> 16) & 0x3fff),
        records: u64::from(d(2)),
        swizzle: d(1) >> 31 != 0,
        esize: 2 << ((d(3) >> 19) & 3),
        istride: 8 << ((d(3) >> 21) & 3),
        add_tid: (d(3) >> 23) & 1 != 0,
    }
}

/// Per lane: (index, offset) before the dword split.
fn index_offset(w: &Wave, i: &Inst) -> Result<([u64; LANES], [u64; LANES]), Fault> {
    let mut idx = [0u64; LANES];
    let mut off = [0u64; LANES];
    if let Src::V(v) = i.addr {
        match (i.mods.idxen, i.mods.offen) {
            (true, true) => {
                let a = w.vget(v)?;
                let b = w.vget(v + 1)?;
                for l in 0..LANES {
                    idx[l] = u64::from(a[l]);
                    off[l] = u64::from(b[l]);
                }
            }
            (true, false) => {
                let a = w.vget(v)?;
                for l in 0..LANES {
                    idx[l] = u64::from(a[l]);
                }
            }
            (false, true) => {
                let a = w.vget(v)?;
                for l in 0..LANES {
                    off[l] = u64::from(a[l]);
                }
            }
            _ => {}
        }
    }
    let imm = (i.mods.offset as u32 & 0xfff) as u64;
    for o in &mut off {
        *o = (*o + imm) & 0xffff_ffff;
    }
    Ok((idx, off))
}

/// The address of byte offset `offset` of lane `lane` with index `index`,
/// or `None` when out of range.
fn address(r: &Rsrc, soffset: u64, lane: usize, index: u64, offset: u64, size: u64) -> Option<u64> {
    let index = index + if r.add_tid { lane as u64 } else { 0 };
    let in_range = if r.stride == 0 {
        offset + size <= r.records
    } else {
        index < r.records
    };
    if !in_range {
        return None;
    }
    let a = if r.swizzle {
        let (imsb, ilsb) = (index / r.istride, index % r.istride);
        let (omsb, olsb) = (offset / r.esize, offset % r.esize);
        (imsb * r.stride + omsb * r.esize) * r.istride + ilsb * r.esize + olsb
    } else {
        index * r.stride + offset
    };
    Some(r.base.wrapping_add(soffset).wrapping_add(a))
}

fn soffset(w: &Wave, i: &Inst) -> u64 {
    match i.soffset {
        Src::None => 0,
        s => u64::from(w.scalar32(s, Ty::B32)),
    }
}

#[derive(Clone, Copy)]
enum Load {
    U8,
    I8,
    U16,
    I16,
    Dwords(usize),
    D16 { hi: bool, signed: bool, bytes: u64 },
}

fn load(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>, kind: Load) -> Exec {
    let Dst::V(d) = i.vdst else {
        return Err(Box::new(Fault::Abort(
            "buffer load without a destination".into(),
        )));
    };
    let r = rsrc(w, i);
    let so = soffset(w, i);
    let (idx, off) = index_offset(w, i)?;
    let exec = w.exec();
    let dwords = match kind {
        Load::Dwords(n) => n,
        _ => 1,
    };
    if usize::from(d) + dwords > w.v.len() {
        return Err(Box::new(Fault::Abort(format!(
            "v{d} + {dwords} is past the wave's VGPRs"
        ))));
    }
    let mem = ctx.mem;
    let read = |lane: usize, o: u64, n: u64| -> Result<u32, Fault> {
        let Some(a) = address(&r, so, lane, idx[lane], o, n) else {
            return Ok(0);
        };
        let mut b = [0u8; 4];
        mem.read_bytes(a, &mut b[..n as usize])
            .map_err(Fault::Memory)?;
        Ok(u32::from_le_bytes(b))
    };
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let old = w.v[usize::from(d)][l];
        let v = match kind {
            Load::U8 => read(l, off[l], 1)?,
            Load::I8 => read(l, off[l], 1)? as u8 as i8 as i32 as u32,
            Load::U16 => read(l, off[l], 2)?,
            Load::I16 => read(l, off[l], 2)? as u16 as i16 as i32 as u32,
            Load::D16 { hi, signed, bytes } => {
                let v = read(l, off[l], bytes)? as u16;
                let v = if signed && bytes == 1 {
                    v as u8 as i8 as i16 as u16
                } else {
                    v
                };
                if hi {
                    (old & 0xffff) | (u32::from(v) << 16)
                } else {
                    (old & 0xffff_0000) | u32::from(v)
                }
            }
            Load::Dwords(n) => {
                for k in 1..n {
                    w.v[usize::from(d) + k][l] = read(l, off[l] + 4 * k as u64, 4)?;
                }
                read(l, off[l], 4)?
            }
        };
        w.v[usize::from(d)][l] = v;
    }
    Ok(Flow::Next)
}

fn store(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>, bytes: u64, hi: bool) -> Exec {
    let Src::V(s) = i.data else {
        return Err(Box::new(Fault::Abort("buffer store without data".into())));
    };
    let r = rsrc(w, i);
    let so = soffset(w, i);
    let (idx, off) = index_offset(w, i)?;
    let exec = w.exec();
    let dwords = bytes.div_ceil(4) as usize;
    if usize::from(s) + dwords > w.v.len() {
        return Err(Box::new(Fault::Abort(format!(
            "v{s} + {dwords} is past the wave's VGPRs"
        ))));
    }
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        if bytes < 4 {
            let v = w.v[usize::from(s)][l];
            let v = if hi { v >> 16 } else { v };
            if let Some(a) = address(&r, so, l, idx[l], off[l], bytes) {
                ctx.mem
                    .write_bytes(a, &v.to_le_bytes()[..bytes as usize])
                    .map_err(Fault::Memory)?;
            }
        } else {
            for k in 0..dwords {
                let v = w.v[usize::from(s) + k][l];
                if let Some(a) = address(&r, so, l, idx[l], off[l] + 4 * k as u64, 4) {
                    ctx.mem
                        .write_bytes(a, &v.to_le_bytes())
                        .map_err(Fault::Memory)?;
                }
            }
        }
    }
    Ok(Flow::Next)
}

fn atomic(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>) -> Exec {
    let name = i.op.name();
    let Some((kind, wide)) = name.strip_prefix("buffer_atomic_").and_then(atomic_kind) else {
        return super::illegal(w, i, ctx);
    };
    let Src::V(s) = i.data else {
        return Err(Box::new(Fault::Abort("buffer atomic without data".into())));
    };
    let wide = wide || name.ends_with("_f64");
    let cmpswap = name.starts_with("buffer_atomic_cmpswap");
    let n = if wide { 2 } else { 1 } * if cmpswap { 2 } else { 1 };
    if usize::from(s) + n > w.v.len() {
        return Err(Box::new(Fault::Abort(format!(
            "v{s} is past the wave's VGPRs"
        ))));
    }
    let r = rsrc(w, i);
    let so = soffset(w, i);
    let (idx, off) = index_offset(w, i)?;
    let exec = w.exec();
    let mem = ctx.memory;
    let ret = i.mods.cache & 1 != 0;
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let dv = |k: usize| u64::from(w.v[usize::from(s) + k][l]);
        let src = if wide { dv(0) | (dv(1) << 32) } else { dv(0) };
        let Some(a) = address(&r, so, l, idx[l], off[l], if wide { 8 } else { 4 }) else {
            continue;
        };
        let old = if cmpswap {
            if wide {
                mem.compare_exchange_u64(a, dv(2) | (dv(3) << 32), src)
            } else {
                mem.compare_exchange_u32(a, dv(1) as u32, src as u32)
                    .map(u64::from)
            }
        } else {
            let base = name
                .trim_start_matches("buffer_atomic_")
                .trim_end_matches("_x2");
            let op = match base {
                "swap" => AtomicOp::Swap,
                "add" => AtomicOp::Add,
                "sub" => AtomicOp::Sub,
                "smin" => AtomicOp::SMin,
                "umin" => AtomicOp::UMin,
                "smax" => AtomicOp::SMax,
                "umax" => AtomicOp::UMax,
                "and" => AtomicOp::And,
                "or" => AtomicOp::Or,
                "xor" => AtomicOp::Xor,
                "inc" => AtomicOp::Inc,
                "dec" => AtomicOp::Dec,
                "add_f32" => {
                    let old = super::vmem::cas_loop_u32(mem, a, |o| {
                        (f32::from_bits(o) + f32::from_bits(src as u32)).to_bits()
                    })
                    .map_err(Fault::Memory)?;
                    if ret {
                        w.v[usize::from(s)][l] = old;
                    }
                    continue;
                }
                _ => return super::illegal(w, i, ctx),
            };
            if wide {
                mem.atomic_u64(a, op, src)
            } else {
                mem.atomic_u32(a, op, src as u32).map(u64::from)
            }
        }
        .map_err(Fault::Memory)?;
        if ret {
            w.v[usize::from(s)][l] = old as u32;
            if wide {
                w.v[usize::from(s) + 1][l] = (old >> 32) as u32;
            }
        }
    }
    let _ = kind;
    Ok(Flow::Next)
}

fn exec_mubuf(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>) -> Exec {
    let d16 = |hi, signed, bytes| Load::D16 { hi, signed, bytes };
    match i.op {
        BUFFER_WBINVL1 | BUFFER_WBINVL1_VOL | BUFFER_WBL2 | BUFFER_INV | BUFFER_INVL2 => {
            Ok(Flow::Next)
        }
        BUFFER_LOAD_UBYTE => load(w, i, ctx, Load::U8),
        BUFFER_LOAD_SBYTE => load(w, i, ctx, Load::I8),
        BUFFER_LOAD_USHORT => load(w, i, ctx, Load::U16),
        BUFFER_LOAD_SSHORT => load(w, i, ctx, Load::I16),
        BUFFER_LOAD_DWORD => load(w, i, ctx, Load::Dwords(1)),
        BUFFER_LOAD_DWORDX2 => load(w, i, ctx, Load::Dwords(2)),
        BUFFER_LOAD_DWORDX3 => load(w, i, ctx, Load::Dwords(3)),
        BUFFER_LOAD_DWORDX4 => load(w, i, ctx, Load::Dwords(4)),
        BUFFER_LOAD_UBYTE_D16 => load(w, i, ctx, d16(false, false, 1)),
        BUFFER_LOAD_UBYTE_D16_HI => load(w, i, ctx, d16(true, false, 1)),
        BUFFER_LOAD_SBYTE_D16 => load(w, i, ctx, d16(false, true, 1)),
        BUFFER_LOAD_SBYTE_D16_HI => load(w, i, ctx, d16(true, true, 1)),
        BUFFER_LOAD_SHORT_D16 => load(w, i, ctx, d16(false, false, 2)),
        BUFFER_LOAD_SHORT_D16_HI => load(w, i, ctx, d16(true, false, 2)),
        BUFFER_STORE_BYTE => store(w, i, ctx, 1, false),
        BUFFER_STORE_BYTE_D16_HI => store(w, i, ctx, 1, true),
        BUFFER_STORE_SHORT => store(w, i, ctx, 2, false),
        BUFFER_STORE_SHORT_D16_HI => store(w, i, ctx, 2, true),
        BUFFER_STORE_DWORD => store(w, i, ctx, 4, false),
        BUFFER_STORE_DWORDX2 => store(w, i, ctx, 8, false),
        BUFFER_STORE_DWORDX3 => store(w, i, ctx, 12, false),
        BUFFER_STORE_DWORDX4 => store(w, i, ctx, 16, false),
        _ => atomic(w, i, ctx),
    }
}

/// The `lds` forms (`buffer_load_dword ... lds`, the module's doc): the
/// loaded dwords go to LDS at M0[15:0] + the instruction offset + 4 per
/// lane.
pub(crate) fn lds_form(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>) -> Exec {
    let kind = match i.op {
        BUFFER_LOAD_UBYTE => Load::U8,
        BUFFER_LOAD_SBYTE => Load::I8,
        BUFFER_LOAD_USHORT => Load::U16,
        BUFFER_LOAD_SSHORT => Load::I16,
        BUFFER_LOAD_DWORD => Load::Dwords(1),
        BUFFER_LOAD_FORMAT_X => {
            let base = lds_base(w, i);
            return super::tbuf::load_to_lds(w, i, ctx, base);
        }
        BUFFER_STORE_LDS_DWORD => return store_from_lds(w, i, ctx),
        // No other MUBUF opcode has an `lds` form (llvm-mc-19 rejects it).
        _ => {
            return Err(Box::new(Fault::Illegal {
                mnemonic: format!("{} (lds form)", i.mnemonic()),
                pc: i.pc,
            }));
        }
    };
    let base = lds_base(w, i);
    let r = rsrc(w, i);
    let so = soffset(w, i);
    let (idx, off) = index_offset(w, i)?;
    let exec = w.exec();
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let n = match kind {
            Load::U8 | Load::I8 => 1,
            Load::U16 | Load::I16 => 2,
            _ => 4,
        };
        let v = match address(&r, so, l, idx[l], off[l], n) {
            None => 0,
            Some(a) => {
                let mut b = [0u8; 4];
                ctx.mem
                    .read_bytes(a, &mut b[..n as usize])
                    .map_err(Fault::Memory)?;
                let v = u32::from_le_bytes(b);
                match kind {
                    Load::I8 => v as u8 as i8 as i32 as u32,
                    Load::I16 => v as u16 as i16 as i32 as u32,
                    _ => v,
                }
            }
        };
        let at = base as usize + 4 * l;
        // Past the work-group's allocation: dropped.
        if let Some(dst) = ctx.lds.get_mut(at..at + 4) {
            dst.copy_from_slice(&v.to_le_bytes());
        }
    }
    Ok(Flow::Next)
}

/// `buffer_store_lds_dword ... lds`: each enabled lane's LDS dword at
/// M0[15:0] + the instruction offset + 4 * lane (0 past the allocation)
/// is stored at the lane's buffer address (Vega ISA: "store one DWORD
/// from LDS memory to system memory without utilizing VGPRs").
fn store_from_lds(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>) -> Exec {
    let base = lds_base(w, i);
    let r = rsrc(w, i);
    let so = soffset(w, i);
    let (idx, off) = index_offset(w, i)?;
    let exec = w.exec();
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let at = base as usize + 4 * l;
        let mut v = [0u8; 4];
        if let Some(src) = ctx.lds.get(at..at + 4) {
            v.copy_from_slice(src);
        }
        if let Some(a) = address(&r, so, l, idx[l], off[l], 4) {
            ctx.mem.write_bytes(a, &v).map_err(Fault::Memory)?;
        }
    }
    Ok(Flow::Next)
}

/// The LDS address of lane 0 of an `lds` form: M0[15:0] (LDS_offset) +
/// the instruction offset.
fn lds_base(w: &Wave, i: &Inst) -> u32 {
    (w.m0() & 0xffff) + (i.mods.offset as u32 & 0xfff)
}

/// The V# of `i` (for the typed forms, `tbuf`).
pub(crate) fn rsrc_of(w: &Wave, i: &Inst) -> Rsrc {
    rsrc(w, i)
}

/// The `soffset` of `i`.
pub(crate) fn soffset_of(w: &Wave, i: &Inst) -> u64 {
    soffset(w, i)
}

/// Per lane (index, offset) of `i`.
pub(crate) fn index_offset_of(w: &Wave, i: &Inst) -> Result<([u64; LANES], [u64; LANES]), Fault> {
    index_offset(w, i)
}

/// The address of a component (None: out of range).
pub(crate) fn address_of(
    r: &Rsrc,
    soffset: u64,
    lane: usize,
    index: u64,
    offset: u64,
    size: u64,
) -> Option<u64> {
    address(r, soffset, lane, index, offset, size)
}

/// The handler of a MUBUF operation.
pub(crate) fn handler(op: Opcode) -> Option<ExecFn> {
    let name = op.name();
    if (name.starts_with("buffer_") || name.starts_with("tbuffer_")) && name.contains("_format_") {
        return Some(super::tbuf::exec);
    }
    if op == BUFFER_STORE_LDS_DWORD {
        // Always with the lds bit, which `lower` routes to `lds_form`.
        return Some(lds_form);
    }
    if !name.starts_with("buffer_") || name.contains("_lds_") {
        return None;
    }
    if name.starts_with("buffer_atomic_")
        && atomic_kind(&name["buffer_atomic_".len()..]).is_none_or(|(k, _)| k > 13)
    {
        // Only the integer, cmpswap and add_f32 atomics.
        return None;
    }
    Some(exec_mubuf)
}
