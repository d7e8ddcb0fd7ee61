//! Work-groups on worker threads; the waves of a work-group on one thread.
//!
//! Workers take work-group numbers from one atomic counter (X fastest),
//! so any number of them share a dispatch without a queue. A work-group's
//! waves run round-robin on their worker: each runs until it ends, reaches
//! `s_barrier` (it waits until every wave of the group has arrived or
//! ended) or `s_sleep` (the others get a turn). The first fault stops every
//! worker at its next branch or work-group boundary, and is the dispatch's
//! result.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::coverage::{self, Counts};
use super::program::{Block, GPR_IDX_EN, Program};
use super::setup::Launch;
use super::tlb::Tlb;
use super::wave::{LANES, Wave, WaveState};
use super::{Ctx, Fault, Flow, control};
use crate::dispatch::{ShaderFault, WaveInterrupt};
use crate::memory::GpuMemory;

/// Most waves a work-group can have (1024 work-items).
const MAX_WAVES: u64 = 16;

/// Instructions between checks of the stop flag.
const CHECK_EVERY: u64 = 1 << 16;

struct Shared<'a> {
    launch: &'a Launch,
    program: &'a Program,
    memory: &'a GpuMemory,
    clock_origin: Instant,
    interrupt: Option<WaveInterrupt<'a>>,
    next: AtomicU64,
    stop: AtomicBool,
    fault: Mutex<Option<Fault>>,
    /// Instruction counts, when coverage is on.
    counts: Option<Mutex<&'a mut Counts>>,
}

/// Runs every work-group of the dispatch on up to `workers` threads.
pub(crate) fn run(
    launch: &Launch,
    program: &Program,
    memory: &GpuMemory,
    workers: usize,
    clock_origin: Instant,
    interrupt: Option<WaveInterrupt<'_>>,
    counts: Option<&mut Counts>,
) -> Result<(), Fault> {
    let shared = Shared {
        launch,
        program,
        memory,
        clock_origin,
        interrupt,
        next: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        fault: Mutex::new(None),
        counts: counts.map(Mutex::new),
    };
    let total = launch.group_count();
    let threads = (workers as u64).min(total).max(1) as usize;
    if threads == 1 {
        worker(&shared, 0);
    } else {
        std::thread::scope(|s| {
            for i in 0..threads {
                let shared = &shared;
                s.spawn(move || worker(shared, i));
            }
        });
    }
    match shared.fault.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(f) => Err(f),
        None => Ok(()),
    }
}

fn worker(shared: &Shared<'_>, index: usize) {
    let launch = shared.launch;
    let total = launch.group_count();
    let mut waves: Vec<Wave> = Vec::new();
    let mut lds = vec![0u8; launch.lds_bytes];
    let tlb = Tlb::new(shared.memory);
    let mut counts = shared.counts.as_ref().map(|_| coverage::counts());
    let mut blocks = Blocks::new();
    loop {
        if shared.stop.load(Ordering::Relaxed) {
            break;
        }
        let n = shared.next.fetch_add(1, Ordering::Relaxed);
        if n >= total {
            break;
        }
        if let Err(f) = run_group(
            shared,
            index,
            n,
            &mut waves,
            &mut lds,
            &tlb,
            counts.as_mut(),
            &mut blocks,
        ) {
            let mut slot = shared.fault.lock().unwrap_or_else(|e| e.into_inner());
            if slot.is_none() {
                *slot = Some(f);
            }
            shared.stop.store(true, Ordering::Relaxed);
            break;
        }
    }
    if let (Some(mine), Some(all)) = (&counts, &shared.counts) {
        coverage::merge(&mut all.lock().unwrap_or_else(|e| e.into_inner()), mine);
    }
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
    worker: usize,
    n: u64,
    waves: &mut Vec<Wave>,
    lds: &mut [u8],
    tlb: &Tlb<'_>,
    counts: Option<&mut Counts>,
    blocks: &mut Blocks,
) -> Result<(), Fault> {
    let launch = shared.launch;
    let id = launch.group_id(n);
    let size = launch.group_size(id);
    let items = u64::from(size[0]) * u64::from(size[1]) * u64::from(size[2]);
    let count = items.div_ceil(LANES as u64) as u32;
    while waves.len() < count as usize {
        waves.push(Wave::new(launch.vgprs));
    }
    let entry = blocks.get(launch.entry, shared)?;
    for k in 0..count {
        let w = &mut waves[k as usize];
        let slot = worker as u64 * MAX_WAVES + u64::from(k);
        launch
            .init_wave(w, id, size, k, count, slot)
            .map_err(setup_fault)?;
        w.hw_id = hw_id(worker, k, launch.queue_id);
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
        if shared.stop.load(Ordering::Relaxed) {
            return Ok(());
        }
    }
}

/// HW_ID (GFX9 `HW_REG_HW_ID`): wave id [3:0], SIMD [5:4], CU [11:8],
/// SE [14:13], queue [26:24]; the worker stands in for the CU.
fn hw_id(worker: usize, wave: u32, queue: u32) -> u32 {
    let cu = (worker % 16) as u32;
    let se = ((worker / 16) % 4) as u32;
    (wave / 4 % 16) | ((wave % 4) << 4) | (cu << 8) | (se << 13) | ((queue & 7) << 24)
}

/// A worker's view of the program's blocks: its own reference to each
/// block it has run, found by address without the program's lock, and
/// named by index in its waves, so that running and switching blocks
/// touches no reference count the other workers share.
pub(crate) struct Blocks {
    list: Vec<Arc<Block>>,
    by_pc: HashMap<u64, usize>,
}

impl Blocks {
    fn new() -> Self {
        Self {
            list: Vec::new(),
            by_pc: HashMap::new(),
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
    let mut budget = CHECK_EVERY;
    loop {
        let Some(block) = blocks.list.get(w.block) else {
            return Err(Fault::Abort("wave has no program".into()));
        };
        let insts = &block.insts;
        // Where the wave continues outside this block.
        let next = loop {
            let Some(inst) = insts.get(w.index) else {
                // Fell off the end of the block: continue after it.
                break block.end;
            };
            w.executed += 1;
            if let Some(c) = ctx.counts.as_deref_mut() {
                coverage::count(c, inst);
            }
            let r = if w.mode & GPR_IDX_EN != 0 && inst.valu {
                let x = inst.indexed(w.m0());
                (x.exec)(w, &x, ctx)
            } else {
                (inst.exec)(w, inst, ctx)
            };
            // An exception enters the trap handler, if there is one.
            let flow = match r {
                Ok(flow) => flow,
                Err(f) => Flow::Jump(control::exception(w, inst.pc, ctx, f)?),
            };
            match flow {
                Flow::Next => w.index += 1,
                Flow::Jump(target) => {
                    budget = budget.saturating_sub(1);
                    if budget == 0 {
                        budget = CHECK_EVERY;
                        if shared.stop.load(Ordering::Relaxed) {
                            w.state = WaveState::Done;
                            return Ok(());
                        }
                    }
                    match block.index_of(target) {
                        Some(i) => w.index = i,
                        None => break target,
                    }
                }
                Flow::End => {
                    w.state = WaveState::Done;
                    return Ok(());
                }
                Flow::Barrier => {
                    w.index += 1;
                    w.state = WaveState::Barrier;
                    return Ok(());
                }
                Flow::Yield => {
                    w.index += 1;
                    return Ok(());
                }
            }
        };
        w.block = blocks.get(next, shared)?;
        w.index = 0;
    }
}
