//! Work-groups on worker threads; the waves of a work-group on one thread.
//!
//! Workers take work-group numbers from one atomic counter (X fastest),
//! so any number of them share a dispatch without a queue. Each work-group
//! is first made resident on a CU of the queue's CU mask, with a scratch
//! slot per wave ([`super::occupancy`]); it waits while none has room, and
//! gives its slots back when it ends. A work-group's
//! waves run round-robin on their worker: each runs until it ends, reaches
//! `s_barrier` (it waits until every wave of the group has arrived or
//! ended) or `s_sleep` (the others get a turn). The first fault stops every
//! worker at its next branch or work-group boundary, and is the dispatch's
//! result.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Instant;

use super::coverage::{self, Counts};
use super::lockstep::{self, Kind};
use super::occupancy::{Occupancy, Residency};
use super::program::{Block, GPR_IDX_EN, Inst, Program, TouchVgprs};
use super::setup::Launch;
use super::tlb::Tlb;
use super::vmem;
use super::wave::{LANES, Wave, WaveState};
use super::{Ctx, Fault, Flow, control};
use crate::dispatch::{ShaderFault, WaveInterrupt};
use crate::memory::GpuMemory;

/// Instructions between checks of the stop flag.
const CHECK_EVERY: u64 = 1 << 16;

struct Shared<'a> {
    launch: &'a Launch,
    program: &'a Program,
    memory: &'a GpuMemory,
    clock_origin: Instant,
    interrupt: Option<WaveInterrupt<'a>>,
    /// Set from outside when the queue is unmapped.
    preempt: Option<&'a AtomicBool>,
    /// Set by the first fault; [`Shared::stopped`] also sees `preempt`.
    stop: AtomicBool,
    fault: Mutex<Option<Fault>>,
    /// The CUs' and the scratch's free slots.
    occupancy: Mutex<Occupancy>,
    /// Signalled when a work-group gives its slots back (or the dispatch
    /// stops).
    freed: Condvar,
    /// Instruction counts, when coverage is on.
    counts: Option<Mutex<&'a mut Counts>>,
    /// Whether work-groups may start in lockstep ([`lockstep`]).
    lockstep: bool,
    /// Work-groups that ran in lockstep (the interpreter's count).
    lockstep_groups: Option<&'a AtomicU64>,
}

impl Shared<'_> {
    /// Whether the workers must stop: a fault, or the queue unmapped.
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.preempt.is_some_and(|p| p.load(Ordering::Relaxed))
    }
}

/// Runs every work-group of the dispatch on up to `workers` threads. A
/// fault is the result; else, if `preempt` was set, the waves stopped
/// where they were and the result is [`Fault::Preempted`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    launch: &Launch,
    program: &Program,
    memory: &GpuMemory,
    workers: usize,
    clock_origin: Instant,
    interrupt: Option<WaveInterrupt<'_>>,
    preempt: Option<&AtomicBool>,
    counts: Option<&mut Counts>,
    lockstep: Option<&AtomicU64>,
) -> Result<(), Fault> {
    let occupancy = Occupancy::new(
        &launch.compute_units,
        (launch.scratch_wave_bytes > 0).then_some(launch.scratch_slots),
    );
    let items: u32 = launch.workgroup_size.iter().product();
    let group_waves = items.div_ceil(LANES as u32);
    let lds = u32::try_from(launch.lds_bytes).unwrap_or(u32::MAX);
    if let Some(why) = occupancy.never_fits(group_waves, lds) {
        return Err(Fault::Abort(format!("no work-group can be placed: {why}")));
    }
    let shared = Shared {
        launch,
        program,
        memory,
        clock_origin,
        interrupt,
        preempt,
        stop: AtomicBool::new(false),
        fault: Mutex::new(None),
        occupancy: Mutex::new(occupancy),
        freed: Condvar::new(),
        counts: counts.map(Mutex::new),
        lockstep: lockstep.is_some(),
        lockstep_groups: lockstep,
    };
    let total = launch.group_count();
    let threads = (workers as u64).min(total).max(1) as usize;
    // The calling (CP) thread is one of the workers: it waits for the
    // dispatch anyway.
    std::thread::scope(|s| {
        for _ in 1..threads {
            let shared = &shared;
            s.spawn(move || worker(shared));
        }
        worker(&shared);
    });
    match shared.fault.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(f) => Err(f),
        None if preempt.is_some_and(|p| p.load(Ordering::Acquire)) => Err(Fault::Preempted),
        None => Ok(()),
    }
}

fn worker(shared: &Shared<'_>) {
    let launch = shared.launch;
    let total = launch.group_count();
    let mut waves: Vec<Wave> = Vec::new();
    let mut lds = vec![0u8; launch.lds_bytes];
    let mut tlb = Tlb::new(shared.memory);
    let mut counts = shared.counts.as_ref().map(|_| coverage::counts());
    let mut blocks = Blocks::new();
    let mut resident = Residency::default();
    // Whether `resident` holds the slots of the group this worker ran
    // last: they are given back when it takes the next group, under the
    // same lock (one critical section a group for the workers to share).
    let mut held = false;
    let mut in_lockstep = 0u64;
    while let Some(n) = claim(shared, total, &mut resident, &mut held) {
        let id = launch.group_id(n);
        let r = run_group(
            shared,
            id,
            &resident,
            &mut waves,
            &mut lds,
            &tlb,
            counts.as_mut(),
            &mut blocks,
            &mut in_lockstep,
        );
        // Translations replaced while the group ran may go now.
        tlb.release();
        held = true;
        if let Err(f) = r {
            let mut slot = lock(&shared.fault);
            if slot.is_none() {
                *slot = Some(f);
            }
            drop(slot);
            shared.stop.store(true, Ordering::Relaxed);
            break;
        }
    }
    if held {
        lock(&shared.occupancy).release(&resident);
    }
    // Waiters look at `stop` and the slots under the occupancy lock, taken
    // (and so released) just now when this worker held slots; taken here
    // when it did not, so that none misses the wakeup.
    drop(lock(&shared.occupancy));
    shared.freed.notify_all();
    if let Some(n) = shared.lockstep_groups {
        n.fetch_add(in_lockstep, Ordering::Relaxed);
    }
    if let (Some(mine), Some(all)) = (&counts, &shared.counts) {
        coverage::merge(&mut all.lock().unwrap_or_else(|e| e.into_inner()), mine);
    }
}

/// Under one hold of the occupancy lock: gives back the slots of the
/// worker's last group (`held`), takes the dispatch's next work-group and
/// waits until it is resident on a CU (its slots in `r`). The group's
/// index in the launch, or `None` when none is left or the dispatch
/// stopped.
fn claim(shared: &Shared<'_>, total: u64, r: &mut Residency, held: &mut bool) -> Option<u64> {
    let mut occ = lock(&shared.occupancy);
    if std::mem::take(held) {
        occ.release(r);
        if occ.waiting > 0 {
            shared.freed.notify_all();
        }
    }
    if shared.stopped() {
        return None;
    }
    let n = occ.next_group;
    if n >= total {
        return None;
    }
    occ.next_group += 1;
    let launch = shared.launch;
    let size = launch.group_size(launch.group_id(n));
    let items = u64::from(size[0]) * u64::from(size[1]) * u64::from(size[2]);
    let waves = items.div_ceil(LANES as u64) as u32;
    let lds = u32::try_from(launch.lds_bytes).unwrap_or(u32::MAX);
    loop {
        if shared.stopped() {
            return None;
        }
        if occ.place(waves, lds, r) {
            return Some(n);
        }
        occ.waiting += 1;
        occ = shared.freed.wait(occ).unwrap_or_else(|e| e.into_inner());
        occ.waiting -= 1;
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn setup_fault(f: ShaderFault) -> Fault {
    match f {
        ShaderFault::Memory(m) => Fault::Memory(m),
        other => Fault::Abort(other.to_string()),
    }
}

// The worker's pieces of state are passed apart so that the context can
// borrow some while the waves and blocks are borrowed mutably.
#[allow(clippy::too_many_arguments)]
fn run_group(
    shared: &Shared<'_>,
    id: [u32; 3],
    resident: &Residency,
    waves: &mut Vec<Wave>,
    lds: &mut [u8],
    tlb: &Tlb<'_>,
    counts: Option<&mut Counts>,
    blocks: &mut Blocks,
    in_lockstep_count: &mut u64,
) -> Result<(), Fault> {
    let launch = shared.launch;
    let size = launch.group_size(id);
    let items = u64::from(size[0]) * u64::from(size[1]) * u64::from(size[2]);
    let count = items.div_ceil(LANES as u64) as u32;
    while waves.len() < count as usize {
        waves.push(Wave::new(launch.vgprs));
    }
    let entry = match blocks.entry {
        Some(k) => k,
        None => {
            let k = blocks.get(launch.entry, shared)?;
            blocks.entry = Some(k);
            k
        }
    };
    // Whether the group starts in lockstep (`lockstep`): its waves start
    // alike when they share one scalar file and their work-item ids run
    // on from one wave to the next (one row of whole waves). Then only
    // the first is set up; the others take its state when the group
    // splits.
    let in_lockstep = shared.lockstep
        && count >= 2
        && launch.same_scalars
        && size[1] == 1
        && size[2] == 1
        && size[0] % LANES as u32 == 0;
    for k in 0..count {
        let w = &mut waves[k as usize];
        let slot = resident
            .scratch
            .get(k as usize)
            .map_or(0, |&s| u64::from(s));
        if k == 0 || !in_lockstep {
            launch
                .init_wave(w, id, size, k, count, slot)
                .map_err(setup_fault)?;
        } else {
            w.id_in_group = k;
        }
        let (simd, wave_id) = resident.waves.get(k as usize).copied().unwrap_or((0, 0));
        w.hw_id = hw_id(resident, simd.into(), wave_id.into(), launch.queue_id);
        w.block = entry;
        w.index = 0;
    }
    if launch.lds_bytes > 0 {
        lds.fill(0);
    }
    let mut ctx = Ctx {
        launch,
        memory: shared.memory,
        mem: tlb,
        counts,
        lds,
        clock_origin: shared.clock_origin,
        interrupt: shared.interrupt,
    };
    let waves = &mut waves[..count as usize];
    if in_lockstep {
        *in_lockstep_count += 1;
        let ended = if ctx.counts.is_some() {
            run_lockstep::<true>(waves, &mut ctx, shared, blocks)?
        } else {
            run_lockstep::<false>(waves, &mut ctx, shared, blocks)?
        };
        if ended {
            return Ok(());
        }
    }
    loop {
        let mut progressed = false;
        let mut live = 0;
        for w in waves.iter_mut() {
            if w.state == WaveState::Ready {
                run_wave(w, &mut ctx, shared, blocks)?;
                progressed = true;
            }
            if w.state != WaveState::Done {
                live += 1;
            }
        }
        if live == 0 {
            return Ok(());
        }
        // Everyone still alive waits at the barrier: release them.
        if waves
            .iter()
            .all(|w| matches!(w.state, WaveState::Barrier | WaveState::Done))
        {
            for w in waves.iter_mut() {
                if w.state == WaveState::Barrier {
                    w.state = WaveState::Ready;
                }
            }
        } else if !progressed {
            return Err(Fault::Abort("work-group made no progress".into()));
        }
        if shared.stopped() {
            return Ok(());
        }
    }
}

/// HW_ID (GFX9 `HW_REG_HW_ID`, LLVM `SIDefines.h`): WAVE_ID [3:0],
/// SIMD_ID [5:4], PIPE_ID [7:6], CU_ID [11:8], SH_ID [12], SE_ID [15:13],
/// TG_ID [19:16], VM_ID [23:20] (0 here), QUEUE_ID [26:24], STATE_ID
/// [29:27] (0), ME_ID [31:30]. The queue's hardware queue slot is modelled
/// as MEC1 (ME 1), pipe `queue / 8 % 4`, queue `queue % 8`.
fn hw_id(r: &Residency, simd: u32, wave_id: u32, queue: u32) -> u32 {
    (wave_id & 0xf)
        | ((simd & 3) << 4)
        | (((queue >> 3) & 3) << 6)
        | r.unit.hw_id_bits()
        | ((r.group_slot & 0xf) << 16)
        | ((queue & 7) << 24)
        | (1 << 30)
}

/// A worker's view of the program's blocks: its own reference to each
/// block it has run, found by address without the program's lock, and
/// named by index in its waves, so that running and switching blocks
/// touches no reference count the other workers share.
pub(crate) struct Blocks {
    list: Vec<Arc<Block>>,
    by_pc: HashMap<u64, usize>,
    /// The kernel entry's block, once found.
    entry: Option<usize>,
}

impl Blocks {
    fn new() -> Self {
        Self {
            list: Vec::new(),
            by_pc: HashMap::new(),
            entry: None,
        }
    }

    /// The index of the block at `pc`, decoding it on first use.
    fn get(&mut self, pc: u64, shared: &Shared<'_>) -> Result<usize, Fault> {
        if let Some(&k) = self.by_pc.get(&pc) {
            return Ok(k);
        }
        let b = shared.program.block(pc, shared.memory)?;
        self.list.push(b);
        let k = self.list.len() - 1;
        self.by_pc.insert(pc, k);
        Ok(k)
    }
}

/// Runs `w` until it ends, waits at a barrier or yields.
fn run_wave(
    w: &mut Wave,
    ctx: &mut Ctx<'_>,
    shared: &Shared<'_>,
    blocks: &mut Blocks,
) -> Result<(), Fault> {
    // The loop twice: with the coverage count in every step, and without
    // (no test in every step).
    if ctx.counts.is_some() {
        run_wave_as::<true>(w, ctx, shared, blocks)
    } else {
        run_wave_as::<false>(w, ctx, shared, blocks)
    }
}

/// Runs a work-group's waves (just set up, [`lockstep::eligible`]) in
/// lockstep on the first: true when they all ended, false when they
/// split (each continues alone where the leader stopped). Each
/// instruction counts once a wave for coverage if `COUNT`.
fn run_lockstep<const COUNT: bool>(
    waves: &mut [Wave],
    ctx: &mut Ctx<'_>,
    shared: &Shared<'_>,
    blocks: &mut Blocks,
) -> Result<bool, Fault> {
    lockstep::lead(waves);
    let k = waves.len();
    let mut budget = CHECK_EVERY;
    loop {
        let Some(block) = blocks.list.get(waves[0].block) else {
            return Err(Fault::Abort("wave has no program".into()));
        };
        let insts = &block.insts;
        let mut index = waves[0].index;
        let next = loop {
            let Some(inst) = insts.get(index) else {
                break block.end;
            };
            let leader = &mut waves[0];
            // How many instructions ran for the group (0: none, split).
            let ran = match inst.lockstep {
                Kind::Scalar => match (inst.exec)(leader, inst, ctx) {
                    Ok(Flow::Next | Flow::Barrier | Flow::Yield) => 1,
                    Ok(Flow::End) => {
                        count_group::<COUNT>(ctx, &insts[index..=index], k);
                        for w in waves.iter_mut() {
                            w.state = WaveState::Done;
                        }
                        return Ok(true);
                    }
                    Ok(Flow::Jump) => {
                        count_group::<COUNT>(ctx, &insts[index..=index], k);
                        let target = leader.jump;
                        budget = budget.saturating_sub(1);
                        if budget == 0 {
                            budget = CHECK_EVERY;
                            if shared.stopped() {
                                for w in waves.iter_mut() {
                                    w.state = WaveState::Done;
                                }
                                return Ok(true);
                            }
                        }
                        match block.index_of(target) {
                            Some(i) => {
                                index = i;
                                continue;
                            }
                            None => break target,
                        }
                    }
                    // A fault: each wave meets it alone (its trap handler,
                    // its report), the scalar file as it was before.
                    Err(_) => 0,
                },
                Kind::Vector { shaped, lanes } if leader.mode & GPR_IDX_EN == 0 => {
                    // Over the group's shapes when they apply (a run of
                    // instructions when one handler takes them)...
                    let mut ran = match (shaped, inst.fused) {
                        (true, Some(f)) => f(leader, &insts[index..], ctx),
                        (true, None) => {
                            usize::from(inst.shaped.is_some_and(|f| f(leader, inst, ctx)))
                        }
                        (false, _) => 0,
                    };
                    // ...else on each wave's lanes in turn.
                    if ran == 0 && lanes {
                        match lockstep::run_lanes(waves, inst, ctx) {
                            Ok(r) => ran = usize::from(r),
                            Err(r) => {
                                return Err(Fault::Abort(format!(
                                    "{} at {:#x} ran differently in the waves of a group in lockstep: {r:?}",
                                    inst.mnemonic(),
                                    inst.pc
                                )));
                            }
                        }
                    }
                    ran
                }
                Kind::Memory {
                    store,
                    flat,
                    dwords,
                } => {
                    let dwords = usize::from(dwords);
                    usize::from(if store {
                        vmem::group_store(waves, inst, ctx, flat, dwords)
                    } else {
                        vmem::group_load(waves, inst, ctx, flat, dwords)
                    })
                }
                _ => 0,
            };
            if ran == 0 {
                lockstep::split(waves, index);
                return Ok(false);
            }
            let last = index + ran - 1;
            let nops = usize::from(insts[last].nops_after);
            count_group::<COUNT>(ctx, &insts[index..=last + nops], k);
            index = last + 1 + nops;
        };
        let leader = &mut waves[0];
        leader.block = blocks.get(next, shared)?;
        leader.index = 0;
    }
}

/// Counts `insts` once for each of a group's `k` waves, if `COUNT`.
#[inline(always)]
fn count_group<const COUNT: bool>(ctx: &mut Ctx<'_>, insts: &[Inst], k: usize) {
    if COUNT {
        if let Some(c) = ctx.counts.as_deref_mut() {
            for inst in insts {
                for _ in 0..k {
                    coverage::count(c, inst);
                }
            }
        }
    }
}

/// [`run_wave`], counting each instruction for coverage if `COUNT`.
fn run_wave_as<const COUNT: bool>(
    w: &mut Wave,
    ctx: &mut Ctx<'_>,
    shared: &Shared<'_>,
    blocks: &mut Blocks,
) -> Result<(), Fault> {
    let mut budget = CHECK_EVERY;
    loop {
        let Some(block) = blocks.list.get(w.block) else {
            return Err(Fault::Abort("wave has no program".into()));
        };
        let insts = &block.insts;
        // The wave's index in the block, kept here (no handler reads it)
        // and stored back whenever the wave leaves the loop.
        let mut index = w.index;
        // Where the wave continues outside this block.
        let next = loop {
            let Some(inst) = insts.get(index) else {
                // Fell off the end of the block: continue after it.
                break block.end;
            };
            if COUNT {
                if let Some(c) = ctx.counts.as_deref_mut() {
                    coverage::count(c, inst);
                }
            }
            let r = if w.mode & GPR_IDX_EN != 0 && inst.valu {
                // M0 moves the operands: any VGPR may be one.
                w.materialize_all();
                let x = inst.indexed(w.m0());
                (x.exec)(w, &x, ctx)
            } else {
                // A common run of instructions by one handler, over VGPR
                // shapes, when it applies.
                if let Some(f) = inst.fused {
                    let n = f(w, &insts[index..], ctx);
                    if n > 0 {
                        let last = index + n - 1;
                        if COUNT {
                            if let Some(c) = ctx.counts.as_deref_mut() {
                                for inst in &insts[index + 1..=last] {
                                    coverage::count(c, inst);
                                }
                            }
                        }
                        index = last + step::<COUNT>(insts, last, &insts[last], ctx);
                        continue;
                    }
                }
                // Over VGPR shapes when the operation has a handler for
                // them and it applies; else on materialised lanes.
                if inst.shaped.is_some_and(|f| f(w, inst, ctx)) {
                    index += step::<COUNT>(insts, index, inst, ctx);
                    continue;
                }
                if w.has_tags() && inst.touch != TouchVgprs::None {
                    if inst.whole != 0 && w.exec() == u64::MAX {
                        // The destinations it overwrites whole are not
                        // written out; they get their shapes back if it
                        // fails.
                        w.materialize_reads(inst);
                        let kept = w.untag_low(inst.whole);
                        let r = (inst.exec)(w, inst, ctx);
                        if r.is_err() {
                            w.retag_low(kept);
                        }
                        r
                    } else {
                        w.materialize_for(inst);
                        (inst.exec)(w, inst, ctx)
                    }
                } else {
                    (inst.exec)(w, inst, ctx)
                }
            };
            // An exception enters the trap handler, if there is one.
            let flow = match r {
                Ok(flow) => flow,
                Err(f) => {
                    w.jump = control::exception(w, inst.pc, ctx, *f)?;
                    Flow::Jump
                }
            };
            match flow {
                Flow::Next => index += step::<COUNT>(insts, index, inst, ctx),
                Flow::Jump => {
                    let target = w.jump;
                    budget = budget.saturating_sub(1);
                    if budget == 0 {
                        budget = CHECK_EVERY;
                        if shared.stopped() {
                            w.state = WaveState::Done;
                            return Ok(());
                        }
                    }
                    match block.index_of(target) {
                        Some(i) => index = i,
                        None => break target,
                    }
                }
                Flow::End => {
                    w.state = WaveState::Done;
                    return Ok(());
                }
                Flow::Barrier => {
                    w.index = index + 1;
                    w.state = WaveState::Barrier;
                    return Ok(());
                }
                Flow::Yield => {
                    w.index = index + 1;
                    return Ok(());
                }
            }
        };
        w.block = blocks.get(next, shared)?;
        w.index = 0;
    }
}

/// How far the wave moves on after instruction `index` (`inst`) continues
/// with the next: past the no-ops that follow it ([`Inst::nops_after`]),
/// counted for coverage if `COUNT` (as far as anyone can tell, they ran).
#[inline(always)]
fn step<const COUNT: bool>(insts: &[Inst], index: usize, inst: &Inst, ctx: &mut Ctx<'_>) -> usize {
    let n = usize::from(inst.nops_after);
    if COUNT && n > 0 {
        if let Some(c) = ctx.counts.as_deref_mut() {
            for inst in insts.iter().skip(index + 1).take(n) {
                coverage::count(c, inst);
            }
        }
    }
    1 + n
}
