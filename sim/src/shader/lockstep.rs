//! Work-groups in lockstep: the waves of a work-group that start alike
//! run as one while they stay alike.
//!
//! The waves of a one-dimensional work-group start with the same scalar
//! file (the user SGPRs, the work-group id) and work-item ids that
//! continue one another: wave `k`'s `v0` is wave 0's moved on by `64 *
//! k` lanes. As VGPR shapes ([`super::shape`]) the group is then one wave
//! of `64 * K` lanes: the scalar instructions and the shape arithmetic of
//! the kernel's start (kernarg loads, the global id, addresses) are the
//! same for every wave, and run once on the first wave (the leader)
//! whose tagged shapes span the whole group ([`Wave::span_last`]).
//!
//! The rules:
//!
//! - A group starts in lockstep when its waves start alike (`eligible`):
//!   two or more waves, EXEC full in each, the same scalar file, SCC,
//!   MODE and TRAPSTS, every VGPR a shape, wave `k`'s wave 0's continued
//!   by `64 * k` lanes. That is so for a work-group of whole waves in one
//!   row when the launch gives no wave a scalar of its own
//!   (`Launch::same_scalars`); only its first wave is set up, the others
//!   take its state when the group splits.
//! - The leader runs an instruction once for the group ([`Kind`]): a
//!   scalar one that reads and writes nothing but the scalar file and
//!   memory it only loads (SALU, SMEM loads, branches, `s_endpgm`, and
//!   `s_barrier` and `s_sleep`, which every wave reaches at once); a VALU
//!   one over its shapes when the shape handler applies over the group's
//!   lanes (a lane mask it writes, VCC or a carry, must be the same in
//!   every wave, else the handler declines, as it does for shapes that
//!   are not exact over all the group's lanes), or else, when it writes
//!   nothing but VGPRs, on each wave's lanes in turn ([`run_lanes`]); a
//!   dword load or store whose address tiles one span over the group
//!   (`vmem::group_load`, `vmem::group_store`). A VGPR that is not a shape
//!   in the leader holds each wave's own lanes in that wave's file.
//! - Anything else (LDS, atomics, scattered addresses, `s_getreg`, a trap,
//!   a scalar result that would differ between waves) splits the group
//!   before it: every wave gets the leader's scalar file and its own
//!   slice of each shape ([`split`]), and runs on alone from that
//!   instruction.
//!
//! Each wave thus goes through the same states as it would alone; only
//! the order of different waves' memory accesses changes (every wave's
//! part of an access before the next instruction), which the GPU leaves
//! undefined between waves without a barrier or fence.

use isa::Encoding;
use isa::Opcode::{self, *};

use super::program::{Dst, Inst, TouchVgprs, is_valu};
use super::shape::Affine;
use super::wave::{LANES, Wave};
use super::{Ctx, Exec, Flow};

/// A handler for every wave of a group in lockstep at once, for an
/// operation whose ordinary handler maps lanes: the same result in each
/// wave as that handler's run on the wave alone, with the setup (operand
/// checks, scalar operands) done once. False, having changed nothing,
/// when it does not apply (then each wave runs the ordinary handler).
pub(crate) type GroupFn = fn(&mut [Wave], &Inst) -> bool;

/// How an instruction runs in lockstep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// On the leader, for every wave: it reads and writes the scalar file
    /// (and PC) only, or loads memory every wave would load alike.
    Scalar,
    /// A VALU instruction: on the leader's shapes, for every wave, when it
    /// has a shape handler (`shaped`) that applies over the group's lanes;
    /// else, when it writes VGPRs only (`lanes`: no scalar result, no
    /// EXEC, the VGPRs it touches named by its operands), on each wave's
    /// lanes in turn with the group's scalar file ([`run_lanes`]).
    Vector {
        /// It has a shape handler.
        shaped: bool,
        /// It may run on each wave's lanes in turn.
        lanes: bool,
    },
    /// A FLAT/GLOBAL dword load or store (`dwords` a lane) whose address
    /// tiles one span over the group (`vmem::group_load`,
    /// `vmem::group_store`).
    Memory {
        /// A store.
        store: bool,
        /// FLAT (else GLOBAL).
        flat: bool,
        /// Dwords a lane (1-4).
        dwords: u8,
    },
    /// Not in lockstep: the group splits before it.
    Split,
}

/// How `i` (decoded as `encoding`) runs in lockstep.
pub(crate) fn kind(i: &Inst, encoding: Encoding) -> Kind {
    match encoding {
        Encoding::Sop1 | Encoding::Sop2 | Encoding::Sopc | Encoding::Sopk
            if super::salu::handler(i.op).is_some() =>
        {
            Kind::Scalar
        }
        Encoding::Sopp if scalar_control(i.op) => Kind::Scalar,
        Encoding::Smem if smem_load(i.op) => Kind::Scalar,
        e if is_valu(e) => {
            // Lane by lane only what writes nothing but VGPRs the
            // operands name (no scalar result: a VOPC, a carry-out or a
            // readlane would differ between waves).
            let lanes = encoding != Encoding::Vopc
                && matches!(i.sdst, Dst::None | Dst::Null)
                && matches!(i.touch, TouchVgprs::Low(_) | TouchVgprs::Ranges(..))
                && !matches!(i.op, V_WRITELANE_B32 | V_READLANE_B32 | V_READFIRSTLANE_B32);
            let shaped = i.shaped.is_some();
            if shaped || lanes {
                Kind::Vector { shaped, lanes }
            } else {
                Kind::Split
            }
        }
        Encoding::Flat => match super::vmem::group_form(i.op) {
            Some((store, flat, dwords)) => Kind::Memory {
                store,
                flat,
                dwords: dwords as u8,
            },
            None => Kind::Split,
        },
        _ => Kind::Split,
    }
}

/// Program-flow instructions that read only the scalar file and PC (and
/// the barrier and sleep, which the waves of a group in lockstep reach
/// together).
fn scalar_control(op: Opcode) -> bool {
    matches!(
        op,
        S_ENDPGM
            | S_BRANCH
            | S_CBRANCH_SCC0
            | S_CBRANCH_SCC1
            | S_CBRANCH_VCCZ
            | S_CBRANCH_VCCNZ
            | S_CBRANCH_EXECZ
            | S_CBRANCH_EXECNZ
            | S_BARRIER
            | S_SLEEP
    ) || super::control::is_nop(op)
}

/// Scalar memory loads (no stores, no atomics: those a wave does once
/// each).
fn smem_load(op: Opcode) -> bool {
    let name = op.name();
    name.starts_with("s_load_") || name.starts_with("s_buffer_load_")
}

/// Whether a work-group's waves, each set up, may start in lockstep. The
/// scheduler does not set up the others to ask: a work-group of whole
/// waves in one row of a launch whose waves share their scalar file
/// ([`super::setup::Launch::same_scalars`]) is one, by construction (the
/// tests check this rule against the set-up waves).
#[cfg(test)]
pub(crate) fn eligible(waves: &[Wave]) -> bool {
    let Some((first, rest)) = waves.split_first() else {
        return false;
    };
    if rest.is_empty() || first.exec() != u64::MAX || !first.all_tagged() {
        return false;
    }
    rest.iter().enumerate().all(|(k, w)| {
        w.exec() == u64::MAX
            && w.s == first.s
            && w.scc == first.scc
            && w.mode == first.mode
            && w.trapsts == first.trapsts
            && w.privileged == first.privileged
            && w.all_tagged()
            && w.continues(first, (k as u32 + 1) * LANES as u32)
    })
}

/// Makes `waves[0]` the leader of the group in lockstep: its shapes span
/// every wave's lanes; the others' VGPR files are sized as its (a VGPR
/// that is not a shape in the leader has its lanes in each wave's file).
pub(crate) fn lead(waves: &mut [Wave]) {
    let lanes = (waves.len() * LANES) as u32;
    let Some((leader, rest)) = waves.split_first_mut() else {
        return;
    };
    leader.set_span(lanes);
    for w in rest {
        w.size_like(leader);
    }
}

/// Writes out VGPRs `r..r + n` that are shapes in the leader: each wave
/// gets its slice's lanes in its own file, and the leader's shape tags go
/// (those VGPRs then hold each wave's own lanes).
pub(crate) fn materialize(waves: &mut [Wave], r: usize, n: usize) {
    let Some((leader, rest)) = waves.split_first_mut() else {
        return;
    };
    for v in r..(r + n).min(leader.v.len()) {
        let Some(a) = leader.shape(v as u16) else {
            continue;
        };
        for (k, w) in rest.iter_mut().enumerate() {
            let lanes = (k as u32 + 1) * LANES as u32;
            w.v[v] = Affine {
                base: a.lane_far(lanes),
                stride: a.stride,
            }
            .lanes();
        }
        leader.materialize(v);
    }
}

/// Runs `i` (a [`Kind::Vector`] with `lanes`) on each wave's lanes in
/// turn, with the group's scalar file: the VGPRs it touches are written
/// out first ([`materialize`]; not those it overwrites whole, with EXEC
/// full: [`Inst::whole`]), then the leader runs it once with each
/// wave's VGPR file in place of its own. `Ok(false)` when the first run
/// did not continue with the next instruction (nothing ran: the group
/// splits before `i`).
pub(crate) fn run_lanes(waves: &mut [Wave], i: &Inst, ctx: &mut Ctx<'_>) -> Result<bool, Exec> {
    // With EXEC full, the VGPRs it overwrites whole are not written out:
    // the leader drops their tags once every wave has run it.
    let whole = match waves.first() {
        Some(leader) if leader.exec() == u64::MAX => i.whole,
        _ => 0,
    };
    match &i.touch {
        TouchVgprs::Low(bits) => {
            let mut bits = *bits & !whole;
            while bits != 0 {
                let r = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                materialize(waves, r, 1);
            }
        }
        TouchVgprs::Ranges(list, len) => {
            for &(r, n) in &list[..usize::from(*len)] {
                materialize(waves, usize::from(r), usize::from(n));
            }
        }
        TouchVgprs::None | TouchVgprs::All => return Ok(false),
    }
    let Some(leader) = waves.first_mut() else {
        return Ok(false);
    };
    // Untagged, not written out; tagged again if it does not run.
    let kept = leader.untag_low(whole);
    if i.group.is_some_and(|g| g(waves, i)) {
        return Ok(true);
    }
    let Some((leader, rest)) = waves.split_first_mut() else {
        return Ok(false);
    };
    match (i.exec)(leader, i, ctx) {
        Ok(Flow::Next) => {}
        // Nothing written (an operand the handler refuses): split.
        Err(_) => {
            leader.retag_low(kept);
            return Ok(false);
        }
        other => return Err(other),
    }
    for w in rest {
        std::mem::swap(&mut leader.v, &mut w.v);
        let r = (i.exec)(leader, i, ctx);
        std::mem::swap(&mut leader.v, &mut w.v);
        // The same operands as the first run's, which continued.
        if r != Ok(Flow::Next) {
            return Err(r);
        }
    }
    Ok(true)
}

/// Ends lockstep: every wave takes the leader's state (scalar file, PC,
/// modes) and its own slice of the leader's shapes, and continues alone
/// at the leader's block and `index`.
pub(crate) fn split(waves: &mut [Wave], index: usize) {
    let Some((leader, rest)) = waves.split_first_mut() else {
        return;
    };
    leader.set_span(LANES as u32);
    leader.index = index;
    for (k, w) in rest.iter_mut().enumerate() {
        w.follow(leader, (k as u32 + 1) * LANES as u32);
    }
}

#[cfg(test)]
mod tests;
