//! Scalar memory (SMEM): `s_load_*`, `s_buffer_load_*`, `s_store_*`,
//! `s_buffer_store_*` and the scalar atomics. The address is the 64-bit
//! base (or a buffer resource's base) plus the immediate and SGPR offsets,
//! dword aligned as the hardware forces it; buffer accesses past
//! `num_records` read 0 and are not written (range checking).

use std::sync::atomic::Ordering;

use isa::Opcode::{self, *};

use super::program::{Dst, ExecFn, Inst, Src};
use super::wave::{Ty, Wave};
use super::{Ctx, Exec, Fault, Flow};
use crate::memory::{AtomicOp, DeviceMemory};

fn f(x: ExecFn) -> Option<ExecFn> {
    Some(x)
}

/// The byte offset: immediate plus the SGPR offset, if any.
fn offset(w: &Wave, i: &Inst) -> u64 {
    let imm = i.imm as i32 as i64 as u64;
    let sgpr = match i.soffset {
        Src::None => 0,
        s => u64::from(w.scalar32(s, Ty::B32)),
    };
    imm.wrapping_add(sgpr)
}

/// A buffer resource's base and `num_records`.
fn buffer(w: &Wave, i: &Inst) -> (u64, u64) {
    let Src::S(r) = i.saddr else { return (0, 0) };
    let r = usize::from(r);
    let base = u64::from(w.s[r]) | (u64::from(w.s[(r + 1) % 128] & 0xffff) << 32);
    (base, u64::from(w.s[(r + 2) % 128]))
}

fn load(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>, dwords: usize, buffered: bool) -> Exec {
    let Dst::S(d) = i.sdst else {
        return Ok(Flow::Next);
    };
    let d = usize::from(d);
    if d + dwords > 128 {
        return Err(Box::new(Fault::Abort(
            "SMEM destination past the scalar file".into(),
        )));
    }
    let off = offset(w, i) & !3;
    let mut buf = [0u8; 64];
    let bytes = &mut buf[..dwords * 4];
    if buffered {
        let (base, records) = buffer(w, i);
        for k in 0..dwords {
            let o = off + 4 * k as u64;
            if o + 4 <= records {
                ctx.mem
                    .read_bytes(base.wrapping_add(o), &mut bytes[k * 4..k * 4 + 4])
                    .map_err(Fault::Memory)?;
            }
        }
    } else {
        let base = w.scalar64(i.saddr, Ty::B64);
        let va = base.wrapping_add(off) & !3;
        let len = 4 * dwords as u64;
        // The common case: the dwords inside one mapped range, read as
        // dwords straight into the scalar file (no byte copy).
        if let Some(m) = ctx.mem.u32s(i.pc, va, len, false) {
            for (s, word) in w.s[d..d + dwords].iter_mut().zip(m) {
                *s = word.load(Ordering::Relaxed);
            }
            return Ok(Flow::Next);
        }
        ctx.mem.read_bytes(va, bytes).map_err(Fault::Memory)?;
    }
    for k in 0..dwords {
        w.s[d + k] = u32::from_le_bytes([
            bytes[4 * k],
            bytes[4 * k + 1],
            bytes[4 * k + 2],
            bytes[4 * k + 3],
        ]);
    }
    Ok(Flow::Next)
}

fn store(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>, dwords: usize, buffered: bool) -> Exec {
    let Src::S(s) = i.data else {
        return Ok(Flow::Next);
    };
    let s = usize::from(s);
    let mut buf = [0u8; 16];
    for k in 0..dwords {
        buf[4 * k..4 * k + 4].copy_from_slice(&w.s[(s + k) % 128].to_le_bytes());
    }
    let off = offset(w, i) & !3;
    if buffered {
        let (base, records) = buffer(w, i);
        for k in 0..dwords {
            let o = off + 4 * k as u64;
            if o + 4 <= records {
                ctx.mem
                    .write_bytes(base.wrapping_add(o), &buf[k * 4..k * 4 + 4])
                    .map_err(Fault::Memory)?;
            }
        }
    } else {
        let base = w.scalar64(i.saddr, Ty::B64);
        ctx.mem
            .write_bytes(base.wrapping_add(off) & !3, &buf[..dwords * 4])
            .map_err(Fault::Memory)?;
    }
    Ok(Flow::Next)
}

enum Atomic {
    Op(AtomicOp),
    CmpSwap,
}

fn atomic(
    w: &mut Wave,
    i: &Inst,
    ctx: &mut Ctx<'_>,
    a: Atomic,
    wide: bool,
    buffered: bool,
) -> Exec {
    let Src::S(s) = i.data else {
        return Ok(Flow::Next);
    };
    let off = offset(w, i);
    let va = if buffered {
        buffer(w, i).0.wrapping_add(off)
    } else {
        w.scalar64(i.saddr, Ty::B64).wrapping_add(off)
    };
    let mem = ctx.memory;
    let old = match (a, wide) {
        (Atomic::Op(op), false) => u64::from(
            mem.atomic_u32(va, op, w.s[usize::from(s)])
                .map_err(Fault::Memory)?,
        ),
        (Atomic::Op(op), true) => mem.atomic_u64(va, op, w.s64(s)).map_err(Fault::Memory)?,
        // CMPSWAP data: source in the low half, compare value in the high half.
        (Atomic::CmpSwap, false) => {
            let new = w.s[usize::from(s)];
            let cmp = w.s[usize::from(s) + 1];
            u64::from(
                mem.compare_exchange_u32(va, cmp, new)
                    .map_err(Fault::Memory)?,
            )
        }
        (Atomic::CmpSwap, true) => {
            let new = w.s64(s);
            let cmp = w.s64(s + 2);
            mem.compare_exchange_u64(va, cmp, new)
                .map_err(Fault::Memory)?
        }
    };
    // glc: return the pre-op value.
    if i.mods.cache & 1 != 0 {
        if wide {
            w.set_s64(s, old);
        } else {
            w.s[usize::from(s)] = old as u32;
        }
    }
    Ok(Flow::Next)
}

macro_rules! atomics {
    ($op:expr, $($plain:ident, $plain64:ident, $buf:ident, $buf64:ident => $a:expr),* $(,)?) => {
        match $op {
            $(
                $plain => return f(|w, i, c| atomic(w, i, c, $a, false, false)),
                $plain64 => return f(|w, i, c| atomic(w, i, c, $a, true, false)),
                $buf => return f(|w, i, c| atomic(w, i, c, $a, false, true)),
                $buf64 => return f(|w, i, c| atomic(w, i, c, $a, true, true)),
            )*
            _ => {}
        }
    };
}

/// `s_load_dword*` from an SGPR-pair base plus an immediate offset (how
/// compilers read kernarguments and the dispatch packet): the address
/// and the destination known to be SGPRs, one span lookup, the dwords
/// straight into the scalar file. Anything else (an unmapped address, a
/// range crossing) goes to the general [`load`], which faults as usual.
fn load_base_imm<const N: usize>(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>) -> Exec {
    if let (Src::S(b), Dst::S(d)) = (i.saddr, i.sdst) {
        let base = w.s64(b);
        let va = base.wrapping_add(i.imm as i32 as i64 as u64) & !3;
        if let (Some(m), Some(dst)) = (
            ctx.mem.u32s(i.pc, va, 4 * N as u64, false),
            w.s.get_mut(usize::from(d)..usize::from(d) + N),
        ) {
            for (s, word) in dst.iter_mut().zip(m) {
                *s = word.load(Ordering::Relaxed);
            }
            return Ok(Flow::Next);
        }
    }
    load(w, i, ctx, N, false)
}

/// A faster handler for `i`'s operand forms than its operation's, if
/// there is one (chosen once, when the instruction is decoded).
pub(crate) fn specialized(i: &Inst) -> Option<ExecFn> {
    if !matches!(
        (i.saddr, i.sdst, i.soffset),
        (Src::S(_), Dst::S(_), Src::None)
    ) {
        return None;
    }
    match i.op {
        S_LOAD_DWORD => f(load_base_imm::<1>),
        S_LOAD_DWORDX2 => f(load_base_imm::<2>),
        S_LOAD_DWORDX4 => f(load_base_imm::<4>),
        S_LOAD_DWORDX8 => f(load_base_imm::<8>),
        S_LOAD_DWORDX16 => f(load_base_imm::<16>),
        _ => None,
    }
}

/// The handler of a scalar memory operation.
pub(crate) fn handler(op: Opcode) -> Option<ExecFn> {
    atomics!(op,
        S_ATOMIC_SWAP, S_ATOMIC_SWAP_X2, S_BUFFER_ATOMIC_SWAP, S_BUFFER_ATOMIC_SWAP_X2 => Atomic::Op(AtomicOp::Swap),
        S_ATOMIC_ADD, S_ATOMIC_ADD_X2, S_BUFFER_ATOMIC_ADD, S_BUFFER_ATOMIC_ADD_X2 => Atomic::Op(AtomicOp::Add),
        S_ATOMIC_SUB, S_ATOMIC_SUB_X2, S_BUFFER_ATOMIC_SUB, S_BUFFER_ATOMIC_SUB_X2 => Atomic::Op(AtomicOp::Sub),
        S_ATOMIC_SMIN, S_ATOMIC_SMIN_X2, S_BUFFER_ATOMIC_SMIN, S_BUFFER_ATOMIC_SMIN_X2 => Atomic::Op(AtomicOp::SMin),
        S_ATOMIC_UMIN, S_ATOMIC_UMIN_X2, S_BUFFER_ATOMIC_UMIN, S_BUFFER_ATOMIC_UMIN_X2 => Atomic::Op(AtomicOp::UMin),
        S_ATOMIC_SMAX, S_ATOMIC_SMAX_X2, S_BUFFER_ATOMIC_SMAX, S_BUFFER_ATOMIC_SMAX_X2 => Atomic::Op(AtomicOp::SMax),
        S_ATOMIC_UMAX, S_ATOMIC_UMAX_X2, S_BUFFER_ATOMIC_UMAX, S_BUFFER_ATOMIC_UMAX_X2 => Atomic::Op(AtomicOp::UMax),
        S_ATOMIC_AND, S_ATOMIC_AND_X2, S_BUFFER_ATOMIC_AND, S_BUFFER_ATOMIC_AND_X2 => Atomic::Op(AtomicOp::And),
        S_ATOMIC_OR, S_ATOMIC_OR_X2, S_BUFFER_ATOMIC_OR, S_BUFFER_ATOMIC_OR_X2 => Atomic::Op(AtomicOp::Or),
        S_ATOMIC_XOR, S_ATOMIC_XOR_X2, S_BUFFER_ATOMIC_XOR, S_BUFFER_ATOMIC_XOR_X2 => Atomic::Op(AtomicOp::Xor),
        S_ATOMIC_INC, S_ATOMIC_INC_X2, S_BUFFER_ATOMIC_INC, S_BUFFER_ATOMIC_INC_X2 => Atomic::Op(AtomicOp::Inc),
        S_ATOMIC_DEC, S_ATOMIC_DEC_X2, S_BUFFER_ATOMIC_DEC, S_BUFFER_ATOMIC_DEC_X2 => Atomic::Op(AtomicOp::Dec),
        S_ATOMIC_CMPSWAP, S_ATOMIC_CMPSWAP_X2, S_BUFFER_ATOMIC_CMPSWAP, S_BUFFER_ATOMIC_CMPSWAP_X2 => Atomic::CmpSwap,
    );
    match op {
        S_LOAD_DWORD => f(|w, i, c| load(w, i, c, 1, false)),
        S_LOAD_DWORDX2 => f(|w, i, c| load(w, i, c, 2, false)),
        S_LOAD_DWORDX4 => f(|w, i, c| load(w, i, c, 4, false)),
        S_LOAD_DWORDX8 => f(|w, i, c| load(w, i, c, 8, false)),
        S_LOAD_DWORDX16 => f(|w, i, c| load(w, i, c, 16, false)),
        S_BUFFER_LOAD_DWORD => f(|w, i, c| load(w, i, c, 1, true)),
        S_BUFFER_LOAD_DWORDX2 => f(|w, i, c| load(w, i, c, 2, true)),
        S_BUFFER_LOAD_DWORDX4 => f(|w, i, c| load(w, i, c, 4, true)),
        S_BUFFER_LOAD_DWORDX8 => f(|w, i, c| load(w, i, c, 8, true)),
        S_BUFFER_LOAD_DWORDX16 => f(|w, i, c| load(w, i, c, 16, true)),
        S_STORE_DWORD => f(|w, i, c| store(w, i, c, 1, false)),
        S_STORE_DWORDX2 => f(|w, i, c| store(w, i, c, 2, false)),
        S_STORE_DWORDX4 => f(|w, i, c| store(w, i, c, 4, false)),
        S_BUFFER_STORE_DWORD => f(|w, i, c| store(w, i, c, 1, true)),
        S_BUFFER_STORE_DWORDX2 => f(|w, i, c| store(w, i, c, 2, true)),
        S_BUFFER_STORE_DWORDX4 => f(|w, i, c| store(w, i, c, 4, true)),
        _ => None,
    }
}
