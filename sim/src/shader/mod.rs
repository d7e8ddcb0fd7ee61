//! The shader core: a GFX9 (gfx90a, wave64) interpreter that runs
//! unmodified AMDGPU code objects, behind the CP's [`ShaderCore`] seam.
//!
//! - `setup`: a dispatch's initial state from the kernel descriptor
//!   (AMDGPUUsage, "Initial Kernel Execution State").
//! - `program`: decode once; blocks of pre-decoded instructions shared by
//!   the waves of every dispatch of a kernel.
//! - `wave`: a wave's registers and operand access.
//! - `scheduler`: workgroups on worker threads, waves of a workgroup on one
//!   thread switching at `s_barrier` / `s_sleep`.
//! - one module per instruction family: `salu` (SOP1/SOP2/SOPK/SOPC),
//!   `smem`, `control` (SOPP and the other program-flow and special
//!   instructions), `vint` (vector integer), `vf32`, `vcmp` (VOPC and
//!   its VOP3 form), `vmem` (FLAT/GLOBAL/SCRATCH), `lanes` (cross-lane:
//!   readlane/writelane/readfirstlane, mbcnt).
//!
//! Every memory access goes through [`GpuMemory`]; a fault stops the
//! dispatch with the faulting address. An operation no family implements
//! is an illegal-instruction fault naming the mnemonic, the kernel and the
//! offset: nothing is skipped silently.

// Lane loops index several `[_; 64]` arrays by the lane number: the form
// that vectorises, and the ISA's own notation.
#![allow(clippy::needless_range_loop)]

mod control;
mod coverage;
mod cvt;
mod dot;
mod dpp;
mod ds;
mod hostfp;
mod lanes;
mod lockstep;
mod mfma;
mod mubuf;
mod occupancy;
mod packed;
mod program;
mod salu;
mod scheduler;
mod sdwa;
mod setup;
mod shape;
mod smem;
mod tbuf;
#[cfg(test)]
mod testing;
mod tlb;
mod vcmp;
mod vf16;
mod vf32;
mod vf64;
mod vint;
mod vint16;
mod vmem;
mod wave;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use isa::{Decoder, Opcode, Processor};

use crate::dispatch::{Dispatch, ShaderCore, ShaderFault};
use crate::memory::{GpuMemory, MemoryFault};

pub use coverage::{Coverage, CoverageEntry, Fidelity};
use program::{ExecFn, Inst};
use wave::Wave;

/// What an instruction does to control flow. `repr(u64)`: [`Exec`] is
/// then a pair of 64-bit scalars (the flow or the niche of the error, and
/// the error's box), which the Rust ABI returns in two registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub(crate) enum Flow {
    /// Continue with the next instruction.
    Next,
    /// Continue at the address the handler left in [`Wave::jump`] (not
    /// carried here: a payload would put [`Exec`] on the stack).
    Jump,
    /// The wave ended.
    End,
    /// Wait at the workgroup barrier, then continue with the next.
    Barrier,
    /// Let the other waves of the workgroup run, then continue with the next.
    Yield,
}

/// What an instruction's handler returns: where control goes, or why
/// the wave stopped (boxed, and the jump target in the wave, so that the
/// result of every instruction's indirect call comes back in two
/// registers: a larger one goes through the stack and stalls the loop on
/// reading it back).
pub(crate) type Exec = Result<Flow, Box<Fault>>;

/// Why a wave stopped, inside the core (converted to a [`ShaderFault`]
/// with the kernel's name and the offset).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// A memory access faulted.
    Memory(MemoryFault),
    /// No semantics for the instruction at `pc`.
    Illegal {
        /// Mnemonic, or why the word did not decode.
        mnemonic: String,
        /// Its address.
        pc: u64,
    },
    /// `s_trap` at `pc` with no trap handler to run.
    Trap {
        /// The trap id.
        id: u16,
        /// Its address.
        pc: u64,
    },
    /// Anything else that stops a wave (register out of range, unaligned PC).
    Abort(String),
    /// The queue was unmapped ([`crate::dispatch::Dispatch::preempt`]).
    Preempted,
    /// The trap handler set `STATUS.HALT`; `pc` is where the wave trapped.
    Halted {
        /// The PC the handler would return to.
        pc: u64,
    },
}

/// Per-wave-slice context: what an instruction may reach besides its wave.
pub(crate) struct Ctx<'a> {
    /// The dispatch's constant state.
    pub launch: &'a setup::Launch,
    /// GPU memory.
    pub memory: &'a GpuMemory,
    /// The worker's translation cache over `memory` (plain loads and
    /// stores go through it; atomics use `memory`).
    pub mem: &'a tlb::Tlb<'a>,
    /// The worker's instruction counts, when coverage is on.
    pub counts: Option<&'a mut coverage::Counts>,
    /// The workgroup's LDS.
    pub lds: &'a mut [u8],
    /// The sim's clock origin (`s_memrealtime`, `s_memtime`).
    pub clock_origin: Instant,
    /// Where `s_sendmsg sendmsg(MSG_INTERRUPT)` goes.
    pub interrupt: Option<crate::dispatch::WaveInterrupt<'a>>,
}

/// Most kernels whose decoded programs the interpreter keeps (past it, the
/// cache starts afresh).
const MAX_PROGRAMS: usize = 256;

/// How often the interpreter decoded code and reused decoded code
/// ([`Interpreter::decode_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecodeStats {
    /// Dispatches that found no current decoded program for their kernel's
    /// code and started a new one.
    pub programs_decoded: u64,
    /// Dispatches that ran a program decoded by an earlier dispatch (its
    /// code bytes checked against memory first).
    pub programs_reused: u64,
    /// Decoded programs found stale (the code at the address changed, or
    /// was unmapped) and dropped.
    pub programs_stale: u64,
    /// Blocks of instructions decoded (a block is decoded from the address
    /// a wave first reaches up to where control cannot fall through).
    pub blocks_decoded: u64,
}

/// The interpreter: one per device. A kernel's code is decoded once into a
/// program kept across dispatches (keyed by the code's entry address,
/// checked against the bytes in memory before each reuse); each dispatch
/// runs its workgroups on up to `workers` threads.
#[derive(Debug)]
pub struct Interpreter {
    processor: Processor,
    workers: usize,
    clock_origin: Instant,
    programs: Mutex<HashMap<u64, Arc<program::Program>>>,
    stats: Mutex<DecodeStats>,
    blocks_decoded: Arc<AtomicU64>,
    coverage_on: AtomicBool,
    counts: Mutex<coverage::Counts>,
    /// Where the report goes when the interpreter is dropped
    /// (`SIM_COVERAGE`).
    coverage_file: Option<std::path::PathBuf>,
    /// Whether work-groups may start in lockstep (`lockstep`).
    lockstep: bool,
    /// Work-groups that ran in lockstep.
    lockstep_groups: Arc<AtomicU64>,
}

impl Interpreter {
    /// An interpreter for `processor` (gfx90a is the target; the other GFX9
    /// processors run where the ISA agrees) on `workers` threads.
    ///
    /// With `SIM_COVERAGE=FILE` in the environment, coverage is on and its
    /// report is written to FILE when the interpreter is dropped.
    pub fn new(processor: Processor, workers: usize) -> Self {
        let coverage_file = std::env::var_os("SIM_COVERAGE")
            .filter(|v| !v.is_empty())
            .map(std::path::PathBuf::from);
        Self {
            processor,
            workers: workers.max(1),
            clock_origin: Instant::now(),
            programs: Mutex::new(HashMap::new()),
            stats: Mutex::new(DecodeStats::default()),
            blocks_decoded: Arc::new(AtomicU64::new(0)),
            coverage_on: AtomicBool::new(coverage_file.is_some()),
            counts: Mutex::new(coverage::counts()),
            coverage_file,
            lockstep: true,
            lockstep_groups: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Lets work-groups start in lockstep, or not (on by default): the
    /// waves of a work-group that start alike run the kernel's scalar
    /// instructions and shape arithmetic once for all until they differ.
    /// Results are the same either way; off, every wave runs every
    /// instruction itself.
    pub fn with_lockstep(mut self, on: bool) -> Self {
        self.lockstep = on;
        self
    }

    /// How many work-groups started in lockstep so far.
    pub fn lockstep_groups(&self) -> u64 {
        self.lockstep_groups.load(Ordering::Relaxed)
    }

    /// Turns instruction coverage on or off (counts so far are kept).
    pub fn set_coverage(&self, on: bool) {
        self.coverage_on.store(on, Ordering::Relaxed);
    }

    /// Every instruction executed while coverage was on, with its count and
    /// [`Fidelity`], most executed first.
    pub fn coverage(&self) -> Coverage {
        coverage::report(&self.counts.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// How often dispatches decoded and reused code so far.
    pub fn decode_stats(&self) -> DecodeStats {
        DecodeStats {
            blocks_decoded: self.blocks_decoded.load(Ordering::Relaxed),
            ..*self.stats.lock().unwrap_or_else(|e| e.into_inner())
        }
    }

    /// The program for code at `entry` lowered with `resolve`: the one an
    /// earlier dispatch decoded if memory still holds the bytes it was
    /// decoded from, else a new (empty) one, which replaces it.
    fn program(
        &self,
        entry: u64,
        resolve: program::Resolve,
        memory: &GpuMemory,
    ) -> Arc<program::Program> {
        let cached = self
            .programs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&entry)
            .cloned();
        let mut stats = DecodeStats::default();
        if let Some(p) = cached {
            // The check reads memory: outside the cache lock.
            if *p.resolve() == resolve && p.is_current(memory) {
                stats.programs_reused = 1;
                self.count(stats);
                return p;
            }
            stats.programs_stale = 1;
        }
        stats.programs_decoded = 1;
        self.count(stats);
        let p = Arc::new(program::Program::new(
            Decoder::new(self.processor),
            resolve,
            Arc::clone(&self.blocks_decoded),
        ));
        let mut map = self.programs.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= MAX_PROGRAMS {
            map.clear();
        }
        map.insert(entry, Arc::clone(&p));
        p
    }

    fn count(&self, d: DecodeStats) {
        let mut s = self.stats.lock().unwrap_or_else(|e| e.into_inner());
        s.programs_decoded += d.programs_decoded;
        s.programs_reused += d.programs_reused;
        s.programs_stale += d.programs_stale;
    }

    /// Uses `origin` as time zero of `s_memtime` / `s_memrealtime` (the
    /// device's clock, so that shader timestamps and the CP's agree).
    pub fn with_clock_origin(mut self, origin: Instant) -> Self {
        self.clock_origin = origin;
        self
    }

    /// Worker threads.
    pub fn workers(&self) -> usize {
        self.workers
    }
}

impl ShaderCore for Interpreter {
    fn set_coverage(&self, on: bool) -> bool {
        Interpreter::set_coverage(self, on);
        true
    }

    fn coverage(&self) -> Option<Coverage> {
        Some(Interpreter::coverage(self))
    }

    fn dispatch(&self, d: &Dispatch<'_>) -> Result<(), ShaderFault> {
        let launch = setup::Launch::new(d, self.processor)?;
        let program = self.program(launch.entry, launch.resolve, d.memory);
        let mut counts = self
            .coverage_on
            .load(Ordering::Relaxed)
            .then(coverage::counts);
        let r = scheduler::run(
            &launch,
            &program,
            d.memory,
            self.workers,
            self.clock_origin,
            d.interrupt,
            d.preempt,
            counts.as_mut(),
            self.lockstep.then_some(&*self.lockstep_groups),
        );
        if let Some(c) = &counts {
            coverage::merge(
                &mut self.counts.lock().unwrap_or_else(|e| e.into_inner()),
                c,
            );
        }
        r.map_err(|f| match f {
            Fault::Memory(m) => ShaderFault::Memory(m),
            Fault::Illegal { mnemonic, pc } => ShaderFault::IllegalInstruction {
                mnemonic,
                kernel: setup::kernel_name(d.memory, d.kernel_object),
                offset: pc.wrapping_sub(launch.entry),
            },
            Fault::Trap { id, pc } => ShaderFault::Trap {
                trap_id: id,
                kernel: setup::kernel_name(d.memory, d.kernel_object),
                offset: pc.wrapping_sub(launch.entry),
            },
            Fault::Abort(why) => ShaderFault::Abort(why),
            Fault::Preempted => ShaderFault::Preempted,
            Fault::Halted { pc } => ShaderFault::Halted {
                kernel: setup::kernel_name(d.memory, d.kernel_object),
                offset: pc.wrapping_sub(launch.entry),
            },
        })
    }
}

impl Drop for Interpreter {
    /// Writes the coverage report to `SIM_COVERAGE`'s file, if set (a
    /// failure is reported on stderr: a drop cannot return it).
    fn drop(&mut self) {
        if let Some(path) = &self.coverage_file {
            let report = self.coverage().to_string();
            if let Err(e) = std::fs::write(path, report) {
                eprintln!("sim: SIM_COVERAGE: cannot write {}: {e}", path.display());
            }
        }
    }
}

/// The handler of `op`: the family that implements it, if any.
pub(crate) fn handler(op: Opcode) -> Option<ExecFn> {
    salu::handler(op)
        .or_else(|| control::handler(op))
        .or_else(|| smem::handler(op))
        .or_else(|| vint::handler(op))
        .or_else(|| vint16::handler(op))
        .or_else(|| vf32::handler(op))
        .or_else(|| vf64::handler(op))
        .or_else(|| vf16::handler(op))
        .or_else(|| vcmp::handler(op))
        .or_else(|| lanes::handler(op))
        .or_else(|| vmem::handler(op))
        .or_else(|| mubuf::handler(op))
        .or_else(|| ds::handler(op))
        .or_else(|| cvt::handler(op))
        .or_else(|| packed::handler(op))
        .or_else(|| mfma::handler(op))
        .or_else(|| dot::handler(op))
}

/// A faster handler than the operation's for `inst`'s operand forms, if
/// a family has one (the same semantics: it falls back to the general
/// handler for whatever it does not cover).
pub(crate) fn specialized(inst: &Inst) -> Option<ExecFn> {
    smem::specialized(inst)
}

/// The handler of operations no family implements.
pub(crate) fn illegal(_: &mut Wave, inst: &Inst, _: &mut Ctx<'_>) -> Exec {
    Err(Box::new(Fault::Illegal {
        mnemonic: inst.mnemonic(),
        pc: inst.pc,
    }))
}

/// The handler of words that do not decode.
pub(crate) fn undecodable(_: &mut Wave, inst: &Inst, _: &mut Ctx<'_>) -> Exec {
    Err(Box::new(Fault::Illegal {
        mnemonic: inst.mnemonic(),
        pc: inst.pc,
    }))
}
