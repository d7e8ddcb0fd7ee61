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
//! - The leader runs an instruction for the group when it is a scalar
//!   one that reads and writes nothing but the scalar file and memory
//!   it only loads ([`Kind::Scalar`]: SALU, SMEM loads, branches,
//!   `s_endpgm`, `s_barrier` and `s_sleep`, which every wave reaches at
//!   once), or a VALU one whose shape handler applies over the group's
//!   lanes ([`Kind::Shape`]): a lane mask it writes (VCC, a carry) must be
//!   the same in every wave, else the handler declines, as it does for
//!   shapes that are not exact over all the group's lanes.
//! - Anything else (memory, lane arithmetic, `s_getreg`, a trap, a
//!   handler that declines) splits the group before it: every wave gets
//!   the leader's scalar file and its own slice of each shape
//!   ([`split`]), and runs on alone from that instruction.
//!
//! Each wave thus goes through the same states as it would alone; the
//! group's instructions run once instead of once a wave.

use isa::Encoding;
use isa::Opcode::{self, *};

use super::program::Inst;
use super::wave::{LANES, Wave};

/// How an instruction runs in lockstep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// On the leader, for every wave: it reads and writes the scalar file
    /// (and PC) only, or loads memory every wave would load alike.
    Scalar,
    /// On the leader's shapes, for every wave, when its shape handler
    /// applies over the group's lanes.
    Shape,
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
        Encoding::Vop1 | Encoding::Vop2 | Encoding::Vopc | Encoding::Vop3 if i.shaped.is_some() => {
            Kind::Shape
        }
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
/// every wave's lanes.
pub(crate) fn lead(waves: &mut [Wave]) {
    let lanes = (waves.len() * LANES) as u32;
    if let Some(w) = waves.first_mut() {
        w.set_span(lanes);
    }
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
