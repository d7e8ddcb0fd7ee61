//! Program flow and special instructions: SOPP (branches, `s_endpgm`,
//! `s_waitcnt`, `s_barrier`, `s_sleep`, `s_trap`, hints), the PC
//! instructions (`s_getpc_b64`, `s_setpc_b64`, `s_swappc_b64`,
//! `s_call_b64`), the hardware registers (`s_getreg_b32`, `s_setreg_b32`,
//! `s_setreg_imm32_b32`; GFX9 `HW_REG_*` ids) and the clocks
//! (`s_memtime`, `s_memrealtime`).
//!
//! Memory operations complete before the instruction that issued them
//! ends, so `s_waitcnt` has nothing to wait for.

use isa::Opcode::{self, *};

use super::program::{Dst, EXEC, ExecFn, Inst, TTMP};
use super::setup::{PRIVATE_BASE, SHARED_BASE};
use super::wave::{Ty, Wave};
use super::{Ctx, Exec, Fault, Flow};
use crate::memory::FaultReason;

fn f(x: ExecFn) -> Option<ExecFn> {
    Some(x)
}

/// The target of a SOPP branch: the next instruction plus `simm16` dwords.
#[inline]
fn target(i: &Inst) -> u64 {
    (i.pc + 4).wrapping_add_signed(i64::from(i.imm as u16 as i16) * 4)
}

#[inline]
fn branch_if(w: &mut Wave, i: &Inst, taken: bool) -> Exec {
    Ok(if taken {
        jump(w, target(i))
    } else {
        Flow::Next
    })
}

/// Control continues at `to` ([`Flow::Jump`]).
#[inline(always)]
fn jump(w: &mut Wave, to: u64) -> Flow {
    w.jump = to;
    Flow::Jump
}

fn nop(_: &mut Wave, _: &Inst, _: &mut Ctx<'_>) -> Exec {
    Ok(Flow::Next)
}

/// The shader clock `s_memtime` counts (MI210's 1700 MHz peak engine clock).
const SHADER_CLOCK_HZ: u128 = 1_700_000_000;

/// GFX9 hardware register ids (`HW_REG_*`, SIDefines.h `Hwreg::Id`).
mod hwreg {
    pub const MODE: u32 = 1;
    pub const STATUS: u32 = 2;
    pub const TRAPSTS: u32 = 3;
    pub const HW_ID: u32 = 4;
    pub const GPR_ALLOC: u32 = 5;
    pub const LDS_ALLOC: u32 = 6;
    pub const IB_STS: u32 = 7;
    pub const SH_MEM_BASES: u32 = 15;
    pub const SQ_SHADER_TBA_LO: u32 = 16;
    pub const SQ_SHADER_TMA_LO: u32 = 18;
    pub const SQ_SHADER_TMA_HI: u32 = 19;
}

/// STATUS bits (GFX9 ISA "Status register").
mod status {
    /// STATUS.HALT: the wave issues no more instructions.
    pub const HALT: u32 = 1 << 13;
}

/// TRAPSTS.EXCP bits (GFX9 ISA "Trap status register"; ROCr's
/// `SQ_WAVE_TRAPSTS_*`).
mod trapsts {
    /// A memory violation (an address in no aperture).
    pub const MEM_VIOL: u32 = 1 << 8;
    /// An illegal instruction.
    pub const ILLEGAL_INST: u32 = 1 << 11;
}

/// `s_sendmsg` message ids (GFX9, `SIDefines.h` `SendMsg::Id`).
mod msg {
    /// An interrupt to the host with `m0[23:0]` as its data.
    pub const INTERRUPT: u32 = 1;
    /// The queue's doorbell id into `exec_lo` (bit 31 cleared when done).
    pub const GET_DOORBELL: u32 = 10;
}

/// `hwreg(id, offset, size)` from a SOPK immediate: id [5:0], offset
/// [10:6], size - 1 [15:11].
fn hwreg_field(imm: u32) -> (u32, u32, u32) {
    let id = imm & 0x3f;
    let offset = (imm >> 6) & 0x1f;
    let size = ((imm >> 11) & 0x1f) + 1;
    let mask = if size >= 32 {
        u32::MAX
    } else {
        (1 << size) - 1
    };
    (id, offset, mask)
}

fn read_hwreg(w: &Wave, ctx: &Ctx<'_>, id: u32) -> u32 {
    let l = ctx.launch;
    match id {
        hwreg::MODE => w.mode,
        hwreg::STATUS => {
            u32::from(w.scc)
                | (u32::from(w.privileged) << 5) // PRIV
                | (u32::from(l.trap.is_some()) << 6) // TRAP_EN
                | (u32::from(w.exec() == 0) << 9)
                | (u32::from(w.vcc() == 0) << 10)
                | (1 << 11) // IN_TG
        }
        hwreg::TRAPSTS => w.trapsts,
        hwreg::HW_ID => w.hw_id,
        hwreg::GPR_ALLOC => {
            let vgpr_blocks = (l.vgprs as u32).div_ceil(8).saturating_sub(1);
            let sgpr_blocks = u32::from(l.kd.next_free_sgpr)
                .div_ceil(16)
                .saturating_sub(1);
            ((vgpr_blocks & 0x3f) << 8) | ((sgpr_blocks & 0xf) << 24)
        }
        hwreg::LDS_ALLOC => ((l.lds_bytes as u32).div_ceil(512) & 0x1ff) << 12,
        hwreg::IB_STS => 0,
        hwreg::SH_MEM_BASES => ((PRIVATE_BASE >> 48) as u32) | (((SHARED_BASE >> 48) as u32) << 16),
        // TBA (16, 17) and TMA (18, 19) in 256-byte units, lo then hi,
        // readable by the trap handler only.
        hwreg::SQ_SHADER_TBA_LO..=hwreg::SQ_SHADER_TMA_HI if w.privileged => {
            let t = l
                .trap
                .unwrap_or(crate::dispatch::TrapHandler { tba: 0, tma: 0 });
            let v = if id < hwreg::SQ_SHADER_TMA_LO {
                t.tba
            } else {
                t.tma
            } >> 8;
            if id % 2 == 0 {
                v as u32
            } else {
                (v >> 32) as u32
            }
        }
        _ => 0,
    }
}

fn write_hwreg(
    w: &mut Wave,
    ctx: &Ctx<'_>,
    id: u32,
    offset: u32,
    mask: u32,
    value: u32,
) -> Result<(), Fault> {
    let field = |old: u32| (old & !(mask << offset)) | ((value & mask) << offset);
    match id {
        hwreg::MODE => w.mode = field(w.mode),
        hwreg::TRAPSTS => w.trapsts = field(w.trapsts),
        // A trap handler restores the wave's STATUS before `s_rfe_b64`
        // (SCC among it); setting HALT stops the wave there.
        hwreg::STATUS => {
            let new = field(read_hwreg(w, ctx, id));
            w.scc = new & 1 != 0;
            if new & status::HALT != 0 {
                return Err(Fault::Halted {
                    pc: w.s64(TTMP) & 0xffff_ffff_ffff,
                });
            }
        }
        // The other registers are read-only to a wave (or ignored by the sim).
        _ => {}
    }
    Ok(())
}

fn setreg(w: &mut Wave, i: &Inst, ctx: &Ctx<'_>, value: u32) -> Exec {
    let (id, offset, mask) = hwreg_field(i.imm);
    write_hwreg(w, ctx, id, offset, mask, value)?;
    Ok(Flow::Next)
}

/// `s_sendmsg`: the messages a compute wave's trap handler sends (the
/// graphics ones have no receiver here and are dropped).
fn sendmsg(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>) -> Exec {
    match i.imm & 0xf {
        msg::INTERRUPT => {
            if let Some(raise) = ctx.interrupt {
                (raise.0)(w.m0() & 0xff_ffff);
            }
        }
        msg::GET_DOORBELL => {
            w.s[usize::from(EXEC)] = ctx.launch.doorbell_id & 0x3ff;
        }
        _ => {}
    }
    Ok(Flow::Next)
}

/// Enters the trap handler `t` for the instruction at `pc` (trap id `id`,
/// 0 for an exception), as GFX9 does under KFD's first-level handler:
/// `ttmp1:ttmp0` = the PC (bits 47:0) with the trap id in `ttmp1[23:16]`,
/// `ttmp[2:3]` = TBA, `ttmp11[31:23]` = the saved IB_STS replay counts
/// and the debug-trap-enabled bit (0 here; the SPI's bits below kept),
/// `ttmp12` = the wave's STATUS, `ttmp[14:15]` = TMA (what the first level
/// hands the second, ROCr `trap_handler.s`), STATUS.PRIV set. Returns the
/// handler's address.
fn enter_trap(
    w: &mut Wave,
    ctx: &Ctx<'_>,
    t: crate::dispatch::TrapHandler,
    pc: u64,
    id: u32,
) -> Result<u64, Fault> {
    if t.tba % 4 != 0 {
        return Err(Fault::Abort(format!(
            "trap handler address {:#x} is not dword aligned",
            t.tba
        )));
    }
    let saved_status = read_hwreg(w, ctx, hwreg::STATUS);
    let t0 = TTMP as usize;
    w.s[t0] = pc as u32;
    w.s[t0 + 1] = ((pc >> 32) as u32 & 0xffff) | ((id & 0xff) << 16);
    w.set_s64(TTMP + 2, t.tba);
    // ttmp11[31:26]: the saved IB_STS replay state (none here); [23]: the
    // debug trap enabled flag KFD keeps in the first-level TMA (no
    // debugger attaches to the sim); [22:0] keep what the SPI set up.
    w.s[t0 + 11] &= 0x007f_ffff;
    w.s[t0 + 12] = saved_status;
    w.set_s64(TTMP + 14, t.tma);
    w.privileged = true;
    Ok(t.tba)
}

/// An exception `f` raised by the instruction at `pc`: with a trap handler
/// installed (and the wave not already in it), the TRAPSTS bit is set and
/// the handler entered with trap id 0; GFX9 raises illegal instructions
/// and memory violations to the handler whenever one is installed
/// (STATUS.TRAP_EN). Returns where the wave continues; without a handler,
/// or for a fault the handler never sees (a VM fault: the KFD interrupt
/// reports it), the fault itself.
pub(crate) fn exception(w: &mut Wave, pc: u64, ctx: &Ctx<'_>, f: Fault) -> Result<u64, Fault> {
    let Some(t) = ctx.launch.trap.filter(|_| !w.privileged) else {
        return Err(f);
    };
    let bit = match &f {
        Fault::Illegal { .. } => trapsts::ILLEGAL_INST,
        Fault::Memory(m) if m.reason == FaultReason::ApertureViolation => trapsts::MEM_VIOL,
        _ => return Err(f),
    };
    w.trapsts |= bit;
    enter_trap(w, ctx, t, pc, 0)
}

/// `s_trap`: with a trap handler installed, enter it ([`enter_trap`]);
/// it returns with `s_rfe_b64` (adding 4 to the saved PC to resume after
/// the `s_trap`). Without a handler, or an `s_trap` inside the handler,
/// the trap is reported as ROCr's handler reports one.
fn trap(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>) -> Exec {
    let id = i.imm & 0xff;
    let Some(t) = ctx.launch.trap.filter(|_| !w.privileged) else {
        return Err(Box::new(Fault::Trap {
            id: id as u16,
            pc: i.pc,
        }));
    };
    let to = enter_trap(w, ctx, t, i.pc, id)?;
    Ok(jump(w, to))
}

/// Whether `op` does nothing here: waits for counters that are always
/// zero (every access completes before the next instruction), cache and
/// priority hints, trace data.
pub(crate) fn is_nop(op: Opcode) -> bool {
    matches!(
        op,
        S_WAITCNT
            | S_NOP
            | S_SETPRIO
            | S_ICACHE_INV
            | S_DCACHE_INV
            | S_DCACHE_INV_VOL
            | S_DCACHE_WB
            | S_DCACHE_WB_VOL
            | S_INCPERFLEVEL
            | S_DECPERFLEVEL
            | S_TTRACEDATA
            | S_WAKEUP
    )
}

/// The handler of a program-flow or special instruction.
pub(crate) fn handler(op: Opcode) -> Option<ExecFn> {
    match op {
        S_ENDPGM | S_ENDPGM_SAVED => f(|_, _, _| Ok(Flow::End)),
        S_BRANCH => f(|w, i, _| Ok(jump(w, target(i)))),
        S_CBRANCH_SCC0 => f(|w, i, _| branch_if(w, i, !w.scc)),
        S_CBRANCH_SCC1 => f(|w, i, _| branch_if(w, i, w.scc)),
        S_CBRANCH_VCCZ => f(|w, i, _| branch_if(w, i, w.vcc() == 0)),
        S_CBRANCH_VCCNZ => f(|w, i, _| branch_if(w, i, w.vcc() != 0)),
        S_CBRANCH_EXECZ => f(|w, i, _| branch_if(w, i, w.exec() == 0)),
        S_CBRANCH_EXECNZ => f(|w, i, _| branch_if(w, i, w.exec() != 0)),
        // No debugger: the conditional debug branches are never taken.
        S_CBRANCH_CDBGSYS
        | S_CBRANCH_CDBGUSER
        | S_CBRANCH_CDBGSYS_OR_USER
        | S_CBRANCH_CDBGSYS_AND_USER => f(nop),
        S_GETPC_B64 => f(|w, i, _| {
            w.write_s64(i.sdst, i.pc + 4);
            Ok(Flow::Next)
        }),
        S_SETPC_B64 => f(|w, i, _| {
            let to = w.scalar64(i.src[0], Ty::B64);
            Ok(jump(w, to))
        }),
        S_SWAPPC_B64 => f(|w, i, _| {
            let to = w.scalar64(i.src[0], Ty::B64);
            w.write_s64(i.sdst, i.pc + 4);
            Ok(jump(w, to))
        }),
        S_CALL_B64 => f(|w, i, _| {
            w.write_s64(i.sdst, i.pc + 4);
            Ok(jump(w, target(i)))
        }),
        op if is_nop(op) => f(nop),
        S_SENDMSG => f(sendmsg),
        S_BARRIER => f(|_, _, _| Ok(Flow::Barrier)),
        S_SLEEP => f(|_, _, _| Ok(Flow::Yield)),
        S_TRAP => f(trap),
        S_RFE_B64 => f(|w, i, _| {
            if !w.privileged {
                return Err(Box::new(Fault::Abort(format!(
                    "s_rfe_b64 at {:#x} outside a trap handler",
                    i.pc
                ))));
            }
            w.privileged = false;
            // The return PC is 48 bits (ttmp1[31:16] hold trap state).
            let to = w.scalar64(i.src[0], Ty::B64) & 0xffff_ffff_ffff;
            Ok(jump(w, to))
        }),
        S_SETHALT => f(|_, i, _| {
            if i.imm & 1 != 0 {
                Err(Box::new(Fault::Abort(format!(
                    "wave halted (s_sethalt) at {:#x}",
                    i.pc
                ))))
            } else {
                Ok(Flow::Next)
            }
        }),
        S_SENDMSGHALT => f(|_, i, _| {
            Err(Box::new(Fault::Abort(format!(
                "wave halted (s_sendmsghalt) at {:#x}",
                i.pc
            ))))
        }),
        S_GETREG_B32 => f(|w, i, ctx| {
            let (id, offset, mask) = hwreg_field(i.imm);
            let v = (read_hwreg(w, ctx, id) >> offset) & mask;
            w.write_s32(i.sdst, v);
            Ok(Flow::Next)
        }),
        S_SETREG_B32 => f(|w, i, ctx| {
            let v = match i.sdst {
                Dst::S(r) => w.s[usize::from(r)],
                _ => 0,
            };
            setreg(w, i, ctx, v)
        }),
        S_SETREG_IMM32_B32 => f(|w, i, ctx| setreg(w, i, ctx, i.lit)),
        S_MEMTIME => f(|w, i, ctx| {
            let ns = ctx.clock_origin.elapsed().as_nanos();
            w.write_s64(i.sdst, (ns * SHADER_CLOCK_HZ / 1_000_000_000) as u64);
            Ok(Flow::Next)
        }),
        S_MEMREALTIME => f(|w, i, ctx| {
            let ns = ctx.clock_origin.elapsed().as_nanos();
            w.write_s64(
                i.sdst,
                (ns * u128::from(crate::GPU_CLOCK_HZ) / 1_000_000_000) as u64,
            );
            Ok(Flow::Next)
        }),
        _ => None,
    }
}
