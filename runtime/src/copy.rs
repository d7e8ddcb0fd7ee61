//! Copies and fills: `hsa_amd_memory_async_copy`, `hsa_memory_copy`,
//! `hsa_amd_memory_fill`, and `hsa_amd_pointer_info`.
//!
//! Two engines move bytes, as in ROCr's `GpuAgent` blits:
//! - an SDMA queue per GPU agent ([`crate::sdma`], ROCr's `BlitSdma`), the
//!   default for copies to and from system memory on a dGPU;
//! - the blit kernels ([`crate::blit`], ROCr's `BlitKernel`) on an internal
//!   AQL queue per GPU agent: copies between two places of one GPU's VRAM
//!   (ROCr's `BlitDevToDev`), every copy when SDMA is off
//!   (`HSA_ENABLE_SDMA=0`, read when the runtime opens, or
//!   [`InitOptions::sdma`]), every fill, and `hsa_memory_copy`'s GPU copies
//!   (ROCr's `DmaCopy(dst, src, size)` is a `BlitDevToDev` copy).
//!
//! Both are made on first use, one per GPU agent, and shared under a lock.
//!
//! The GPU that copies is the source's agent if it is a GPU, else the
//! destination's (ROCr's `copy_agent`); when both are CPU agents, the first
//! GPU that has both ranges mapped. It must have both ranges mapped.
//!
//! Dependent signals: the SDMA command starts with POLL_REGMEM waits (see
//! [`crate::sdma`]); the blit path puts barrier-AND packets (five signals
//! each) before the dispatch. Neither blocks the caller. The completion
//! signal is decremented by the SDMA ATOMIC packet, or by the CP when the
//! dispatch (the last packet) ends.

#![allow(unsafe_code)]

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aql::SignalHandle;
use aql::packet::{BarrierAndPacket, KernelDispatchPacket};

use crate::agent::Agent;
use crate::blit::{self, BlitKernel, BlitPlan};
use crate::executable::{Executable, KernelSymbol};
use crate::memory::{BlockInfo, PoolKind};
use crate::queue::{Queue, QueueKind};
use crate::sdma::{self, SdmaQueue};
use crate::signal::Signal;
use crate::status::{Error, Result, Status};
use crate::system::{Core, Runtime};

/// Options of [`Runtime::init_with_options`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InitOptions {
    /// Whether copies may use SDMA queues; `None`: as `HSA_ENABLE_SDMA`
    /// says ([`crate::flags::Flags::sdma`]: `0` turns SDMA off).
    pub sdma: Option<bool>,
}

/// The engine that runs a copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyEngine {
    /// The GPU's SDMA queue.
    Sdma,
    /// A blit kernel on the GPU's internal AQL queue.
    BlitKernel,
}

/// `hsa_amd_pointer_type_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointerType {
    /// `HSA_EXT_POINTER_TYPE_UNKNOWN`: not memory of the runtime.
    Unknown = 0,
    /// `HSA_EXT_POINTER_TYPE_HSA`: a pool allocation.
    Hsa = 1,
    /// `HSA_EXT_POINTER_TYPE_LOCKED`: host memory locked with
    /// `hsa_amd_memory_lock`.
    Locked = 2,
    /// `HSA_EXT_POINTER_TYPE_GRAPHICS`: memory of a graphics API (never
    /// reported: there is no graphics interop).
    Graphics = 3,
    /// `HSA_EXT_POINTER_TYPE_IPC`: memory attached with
    /// `hsa_amd_ipc_memory_attach` (libhsakmt's `HSA_POINTER_REGISTERED_SHARED`,
    /// which ROCr reports as IPC).
    Ipc = 4,
}

/// `hsa_amd_pointer_info_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PointerInfo {
    /// `type`.
    pub kind: PointerType,
    /// `agentBaseAddress`: where GPUs reach the allocation (0: unknown).
    pub agent_base_address: u64,
    /// `hostBaseAddress`: where the CPU reaches it (0: it cannot, or
    /// unknown). For locked memory, the pointer given to the lock.
    pub host_base_address: u64,
    /// `sizeInBytes`: bytes asked for (locked: bytes locked).
    pub size_in_bytes: u64,
    /// `agentOwner`: the agent of the pool (locked memory: the CPU).
    pub agent_owner: Option<Agent>,
    /// `global_flags`: `HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED` (2) or
    /// `_COARSE_GRAINED` (4); 0 when unknown.
    pub global_flags: u32,
}

/// `hsa_amd_memory_pool_global_flag_t` bits reported by pointer info.
const FLAG_FINE: u32 = crate::memory::GLOBAL_FLAG_FINE_GRAINED;
const FLAG_COARSE: u32 = crate::memory::GLOBAL_FLAG_COARSE_GRAINED;

/// Packets of the internal blit queue.
const BLIT_QUEUE_PACKETS: u32 = 256;

/// The blit kernels of one GPU agent, with their queue.
struct Blit {
    queue: Queue,
    _exe: Executable,
    /// Indexed like [`BlitKernel::ALL`].
    kernels: Vec<KernelSymbol>,
    /// `2 * BLIT_QUEUE_PACKETS` kernarg slots of [`blit::KERNARG_SIZE`]
    /// bytes: the dispatch of packet id `i` uses slot `i % (2 * packets)`.
    kernarg_va: u64,
    max_workitems: u32,
    /// Serialises writers (the kernarg slot follows the packet id).
    lock: Mutex<()>,
}

/// One GPU agent's engines.
#[derive(Default)]
struct GpuCopy {
    sdma: Mutex<Option<Arc<SdmaQueue>>>,
    blit: Mutex<Option<Arc<Blit>>>,
}

/// The copy engines of a runtime.
pub(crate) struct CopyEngines {
    sdma_enabled: bool,
    gpus: Mutex<Vec<(u32, Arc<GpuCopy>)>>,
}

impl CopyEngines {
    pub(crate) fn new(options: &InitOptions, flags: &crate::flags::Flags) -> Self {
        let sdma_enabled = options.sdma.unwrap_or_else(|| flags.sdma());
        Self {
            sdma_enabled,
            gpus: Mutex::new(Vec::new()),
        }
    }

    fn gpu(&self, gpu_id: u32) -> Arc<GpuCopy> {
        let mut g = self.gpus.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, c)) = g.iter().find(|(id, _)| *id == gpu_id) {
            return Arc::clone(c);
        }
        let c = Arc::new(GpuCopy::default());
        g.push((gpu_id, Arc::clone(&c)));
        c
    }

    /// Destroys every engine (the last `hsa_shut_down`).
    pub(crate) fn shut_down(&self, core: &Core) {
        let all = std::mem::take(&mut *self.gpus.lock().unwrap_or_else(|p| p.into_inner()));
        for (_, g) in all {
            let sdma = g.sdma.lock().unwrap_or_else(|p| p.into_inner()).take();
            if let Some(q) = sdma.and_then(|q| Arc::try_unwrap(q).ok()) {
                q.destroy(core);
            }
            let blit = g.blit.lock().unwrap_or_else(|p| p.into_inner()).take();
            if let Some(b) = blit {
                let _ = core.free(b.kernarg_va);
            }
        }
    }
}

impl Blit {
    fn kernel(&self, k: BlitKernel) -> &KernelSymbol {
        let i = BlitKernel::ALL.iter().position(|x| *x == k).unwrap_or(0);
        &self.kernels[i]
    }

    /// Barrier-AND packets for `deps`, then the dispatch of `plan` whose
    /// completion decrements `completion`. Returns the dispatch's packet id.
    fn submit(&self, deps: &[u64], plan: &BlitPlan, completion: u64) -> Result<u64> {
        let _g = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        for chunk in deps.chunks(5) {
            let mut h = [SignalHandle::NULL; 5];
            for (slot, &d) in h.iter_mut().zip(chunk) {
                *slot = SignalHandle { handle: d };
            }
            let p = BarrierAndPacket::new(h, SignalHandle::NULL);
            self.queue.submit(&zerocopy::transmute!(p))?;
        }
        let k = self.kernel(plan.kernel);
        let slots = u64::from(self.queue.size());
        let id = self.queue.load_write_index(Ordering::Acquire);
        // Room in the ring for this packet means packet id - slots + 1 has
        // started, so (barrier bits) packet id - 2 * slots has ended and its
        // kernarg slot is free.
        while id - self.queue.load_read_index(Ordering::Acquire) >= slots {
            if let Some(s) = self.queue.error() {
                return Err(Error::new(s, "the blit queue stopped after an error"));
            }
            std::thread::yield_now();
        }
        let kernarg = self.kernarg_va + (id % (2 * slots)) * blit::KERNARG_SIZE as u64;
        // SAFETY: a slot of our CPU-mapped kernarg buffer that no packet in
        // flight uses (see above).
        unsafe {
            core::ptr::copy_nonoverlapping(
                plan.kernarg.as_ptr(),
                kernarg as *mut u8,
                blit::KERNARG_SIZE,
            )
        };
        let mut p = KernelDispatchPacket::new(
            k.kernel_object,
            kernarg,
            [plan.grid_size, 1, 1],
            [plan.workgroup_size, 1, 1],
        );
        p.header = p.header.with_barrier(true);
        p.private_segment_size = k.private_segment_size;
        p.group_segment_size = k.group_segment_size;
        p.completion_signal = SignalHandle { handle: completion };
        self.queue.submit(&zerocopy::transmute!(p))
    }

    /// Waits until `signal` is 0, or the blit queue stops with an error.
    fn wait(&self, signal: &Signal) -> Result<()> {
        loop {
            if signal.wait_zero(Duration::from_millis(5))? {
                return Ok(());
            }
            if let Some(s) = self.queue.error() {
                return Err(Error::new(s, "the blit queue stopped after an error"));
            }
        }
    }
}

/// A side of a copy: its allocation.
struct Side {
    block: BlockInfo,
    kind: Option<PoolKind>,
}

impl Runtime {
    fn side(&self, what: &str, p: u64, size: u64) -> Result<Side> {
        let block = self.core.allocations.find(p).ok_or_else(|| {
            Error::invalid_argument(format!(
                "the {what} {p:#x} is not memory of this runtime (allocate it from a pool, or lock it)"
            ))
        })?;
        let end = p.checked_add(size).ok_or_else(|| {
            Error::invalid_argument(format!("the {what} range {p:#x}+{size} overflows"))
        })?;
        // The bytes asked for (locked memory: the range locked).
        let (base, len) = if block.userptr {
            (block.user_ptr, block.requested)
        } else {
            (block.start, block.requested)
        };
        if p < base || end > base + len {
            return Err(Error::invalid_argument(format!(
                "the {what} range {p:#x}+{size} runs past its allocation ({base:#x}+{len})"
            )));
        }
        let kind = block
            .pool
            .and_then(|i| self.core.pools.get(i))
            .map(|r| r.kind);
        Ok(Side { block, kind })
    }

    fn check_signal(&self, what: &str, s: &Signal) -> Result<()> {
        if self.core.signals.is_live(s.handle()) {
            Ok(())
        } else {
            Err(Error::new(
                Status::InvalidSignal,
                format!(
                    "the {what} signal {:#x} is not a signal of this runtime",
                    s.handle()
                ),
            ))
        }
    }

    fn first_gpu_with(&self, pred: impl Fn(u32) -> bool) -> Option<Agent> {
        self.gpu_agents()
            .find(|a| pred(self.core.agents[a.index()].gpu_id))
    }

    /// The engine ROCr would pick on `gpu` for a copy between `s` and `d`.
    fn engine_for(&self, gpu: Agent, s: &Side, d: &Side) -> CopyEngine {
        let rec = &self.core.agents[gpu.index()];
        let has_blit = rec
            .isa_name()
            .is_some_and(|n| blit::code_object_for(&n).is_some());
        if !self.core.copy.sdma_enabled {
            return CopyEngine::BlitKernel;
        }
        let vram_here = |x: &Side| {
            x.kind == Some(PoolKind::Vram)
                && x.block
                    .pool
                    .and_then(|i| self.core.pools.get(i))
                    .map(|p| p.gpu_id)
                    == Some(rec.gpu_id)
        };
        if has_blit && vram_here(s) && vram_here(d) {
            CopyEngine::BlitKernel
        } else {
            CopyEngine::Sdma
        }
    }

    fn sdma_queue(&self, gpu: Agent) -> Result<Arc<SdmaQueue>> {
        let gpu_id = self.core.agent(gpu)?.gpu_id;
        let g = self.core.copy.gpu(gpu_id);
        let mut slot = g.sdma.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(q) = slot.as_ref() {
            return Ok(Arc::clone(q));
        }
        let q = Arc::new(SdmaQueue::create(&self.core, gpu_id)?);
        *slot = Some(Arc::clone(&q));
        Ok(q)
    }

    fn blit(&self, gpu: Agent) -> Result<Arc<Blit>> {
        let rec = self.core.agent(gpu)?;
        let gpu_id = rec.gpu_id;
        let g = self.core.copy.gpu(gpu_id);
        let mut slot = g.blit.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(b) = slot.as_ref() {
            return Ok(Arc::clone(b));
        }
        let isa = rec.isa_name().unwrap_or_default();
        let co = blit::code_object_for(&isa).ok_or_else(|| {
            Error::new(
                Status::Error,
                format!(
                    "no blit kernels for {isa} (runtime/blit/build.sh builds them per processor)"
                ),
            )
        })?;
        let p = &rec.node.properties;
        let cus = p.simd_count / p.simd_per_cu.max(1);
        let exe = self.load_executable(gpu, co)?;
        let kernels = BlitKernel::ALL
            .iter()
            .map(|k| exe.kernel(k.name()).map(|s| (*s).clone()))
            .collect::<Result<Vec<_>>>()?;
        let queue = self.create_queue(gpu, BLIT_QUEUE_PACKETS, QueueKind::Multiple, None, 0)?;
        let kernarg_va = self.allocate(
            self.kernarg_pool()?,
            2 * u64::from(BLIT_QUEUE_PACKETS) * blit::KERNARG_SIZE as u64,
        )?;
        let b = Arc::new(Blit {
            queue,
            _exe: exe,
            kernels,
            kernarg_va,
            max_workitems: blit::max_workitems_for(cus),
            lock: Mutex::new(()),
        });
        *slot = Some(Arc::clone(&b));
        Ok(b)
    }

    /// `hsa_amd_memory_async_copy`: copies `size` bytes from `src` to `dst`
    /// once every signal of `deps` is 0, then decrements `completion`;
    /// returns once the work is queued.
    ///
    /// Both ranges must lie in memory of this runtime (pool allocations, or
    /// host memory locked with [`lock_host`](Self::lock_host)) mapped on the
    /// GPU that copies (see the [module](crate::copy) documentation), and
    /// must not overlap. A copy of 0 bytes still waits for `deps` and
    /// decrements `completion`.
    ///
    /// Errors: null pointers, ranges outside or past an allocation, memory
    /// the copying GPU cannot reach, overlapping ranges:
    /// `INVALID_ARGUMENT`; an unknown agent: `INVALID_AGENT`; a signal of
    /// another runtime: `INVALID_SIGNAL`.
    ///
    /// # Safety
    ///
    /// Until `completion` is decremented, nothing else uses `dst..dst +
    /// size` and nothing writes `src..src + size`.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn memory_async_copy(
        &self,
        dst: u64,
        dst_agent: Agent,
        src: u64,
        src_agent: Agent,
        size: u64,
        deps: &[&Signal],
        completion: &Signal,
    ) -> Result<CopyEngine> {
        crate::trace::api_call!("hsa_amd_memory_async_copy", {
            if dst == 0 || src == 0 {
                return Err(Error::invalid_argument(
                    "hsa_amd_memory_async_copy of a null pointer",
                ));
            }
            let dst_rec = self.core.agent(dst_agent)?;
            let src_rec = self.core.agent(src_agent)?;
            self.check_signal("completion", completion)?;
            for d in deps {
                self.check_signal("dependent", d)?;
            }
            if size > blit::MAX_SIZE {
                return Err(Error::invalid_argument(format!(
                    "copy of {size} bytes: larger than 2^48"
                )));
            }
            let d = self.side("destination", dst, size)?;
            let s = self.side("source", src, size)?;
            if size > 0 && dst < src + size && src < dst + size {
                return Err(Error::invalid_argument(format!(
                    "copy of {size} bytes from {src:#x} to {dst:#x}: the ranges overlap"
                )));
            }
            let reaches = |gpu_id: u32| {
                s.block.mapped_on.contains(&gpu_id) && d.block.mapped_on.contains(&gpu_id)
            };
            let gpu = if src_rec.is_gpu() {
                src_agent
            } else if dst_rec.is_gpu() {
                dst_agent
            } else {
                self.first_gpu_with(reaches).ok_or_else(|| {
                    Error::invalid_argument(format!("no GPU reaches both {src:#x} and {dst:#x}"))
                })?
            };
            let gpu_id = self.core.agents[gpu.index()].gpu_id;
            if !reaches(gpu_id) {
                return Err(Error::invalid_argument(format!(
                    "GPU agent {} (the copy agent) cannot reach {} (hsa_amd_agents_allow_access)",
                    gpu.index(),
                    if s.block.mapped_on.contains(&gpu_id) {
                        format!("the destination {dst:#x}")
                    } else {
                        format!("the source {src:#x}")
                    }
                )));
            }
            let engine = self.engine_for(gpu, &s, &d);
            let deps: Vec<u64> = deps.iter().map(|d| d.handle()).collect();
            self.core.profiling.copied_by(completion.handle(), gpu);
            self.submit_copy(engine, gpu, dst, src, size, &deps, completion)?;
            Ok(engine)
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn submit_copy(
        &self,
        engine: CopyEngine,
        gpu: Agent,
        dst: u64,
        src: u64,
        size: u64,
        deps: &[u64],
        completion: &Signal,
    ) -> Result<Option<Arc<Blit>>> {
        match engine {
            CopyEngine::Sdma => {
                let q = self.sdma_queue(gpu)?;
                let h = completion.handle();
                // SAFETY: the signal's amd_signal_t, alive while `completion`
                // is: its event mailbox pointer at +16.
                let mailbox = unsafe { core::ptr::read_volatile((h + 16) as *const u64) };
                // SAFETY: as above, its event id at +24.
                let id = unsafe { core::ptr::read_volatile((h + 24) as *const u32) };
                let event = (mailbox != 0).then_some((mailbox, id));
                let profile = self.core.profiling.async_copy_enabled();
                q.submit(&sdma::copy_command(dst, src, size, deps, h, event, profile))?;
                Ok(None)
            }
            CopyEngine::BlitKernel => {
                let b = self.blit(gpu)?;
                let plan = blit::plan_copy(dst, src, size, b.max_workitems)
                    .map_err(|e| Error::invalid_argument(e.to_string()))?;
                // The packet processor writes the copy kernel's start and
                // end into the completion signal when the internal queue
                // profiles (ROCr's BlitKernel with profiling on).
                self.set_profiler_enabled(&b.queue, self.core.profiling.async_copy_enabled())?;
                b.submit(deps, &plan, completion.handle())?;
                Ok(Some(b))
            }
        }
    }

    /// `hsa_amd_memory_fill`: sets `count` dwords at `ptr` to `value` with
    /// the fill kernel (always, as ROCr) of the GPU that owns the memory
    /// (system memory: the first GPU it is mapped on); returns when done.
    ///
    /// Errors: a null or misaligned `ptr`, a range past its allocation:
    /// `INVALID_ARGUMENT`; memory that is not of this runtime:
    /// `INVALID_ALLOCATION`.
    ///
    /// # Safety
    ///
    /// Nothing else uses `ptr..ptr + 4 * count` meanwhile.
    pub unsafe fn memory_fill(&self, ptr: u64, value: u32, count: u64) -> Result<()> {
        if ptr == 0 || ptr % 4 != 0 {
            return Err(Error::invalid_argument(format!(
                "hsa_amd_memory_fill at {ptr:#x}: null or not 4-byte aligned"
            )));
        }
        let bytes = count
            .checked_mul(4)
            .filter(|&b| b <= blit::MAX_SIZE)
            .ok_or_else(|| Error::invalid_argument(format!("fill of {count} dwords: too large")))?;
        if self.core.allocations.find(ptr).is_none() {
            return Err(Error::new(
                Status::InvalidAllocation,
                format!("hsa_amd_memory_fill at {ptr:#x}: not memory of this runtime"),
            ));
        }
        let side = self.side("fill destination", ptr, bytes)?;
        if count == 0 {
            return Ok(());
        }
        let owner = side
            .block
            .pool
            .and_then(|i| self.core.pools.get(i))
            .map(|p| p.owner)
            .filter(|a| self.core.agents[a.index()].is_gpu());
        let gpu = match owner {
            Some(a) => a,
            None => self
                .first_gpu_with(|g| side.block.mapped_on.contains(&g))
                .ok_or_else(|| Error::invalid_argument(format!("no GPU reaches {ptr:#x}")))?,
        };
        let b = self.blit(gpu)?;
        let plan = blit::plan_fill(ptr, value, count, b.max_workitems)
            .map_err(|e| Error::invalid_argument(e.to_string()))?;
        let done = self.create_signal(1)?;
        b.submit(&[], &plan, done.handle())?;
        b.wait(&done)
    }

    /// `hsa_memory_copy` (see [`Runtime::copy`]), as ROCr's
    /// `Runtime::CopyMemory`: a side that lies in no allocation is host
    /// memory, locked for the copy when the GPU copies; system to system is
    /// a CPU copy; otherwise the GPU that owns the device side copies with
    /// its blit kernel (its SDMA queue when it has no blit kernels), and
    /// between two GPUs through a system-memory buffer.
    pub(crate) unsafe fn memory_copy(&self, dst: u64, src: u64, size: u64) -> Result<()> {
        if dst == 0 || src == 0 {
            return Err(Error::invalid_argument("hsa_memory_copy of a null pointer"));
        }
        if size == 0 {
            return Ok(());
        }
        // Some(side): in an allocation; None: plain host memory.
        let classify = |what: &str, p: u64| -> Result<Option<Side>> {
            match self.core.allocations.find(p) {
                Some(_) => self.side(what, p, size).map(Some),
                None => Ok(None),
            }
        };
        let d = classify("destination", dst)?;
        let s = classify("source", src)?;
        // The GPU that owns a side, if it is device memory.
        let device_of = |x: &Option<Side>| -> Option<Agent> {
            let x = x.as_ref()?;
            let pool = x.block.pool.and_then(|i| self.core.pools.get(i));
            match pool {
                Some(p) if p.kind == PoolKind::Vram => Some(p.owner),
                _ if !x.block.host_accessible => {
                    self.first_gpu_with(|g| x.block.mapped_on.contains(&g))
                }
                _ => None,
            }
        };
        let (dg, sg) = (device_of(&d), device_of(&s));
        if dg.is_none() && sg.is_none() {
            // SAFETY: the caller's promise; both ranges are host memory.
            unsafe {
                core::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, size as usize)
            };
            return Ok(());
        }
        if let (Some(a), Some(b)) = (dg, sg) {
            if a != b {
                let tmp = self.core.allocate_system(size, false)?;
                // SAFETY: `tmp` is a fresh system allocation of `size` bytes.
                let r = unsafe { self.memory_copy(tmp, src, size) }
                    // SAFETY: as above.
                    .and_then(|()| unsafe { self.memory_copy(dst, tmp, size) });
                let _ = self.core.free(tmp);
                return r;
            }
        }
        let gpu = sg.or(dg).expect("one side is device memory");
        // Lock plain host memory for the copy.
        let mut locked = Vec::new();
        for (side, p) in [(&d, dst), (&s, src)] {
            if side.is_none() {
                // SAFETY: the caller's promise: the range is memory of this
                // process, alive during the copy; unlocked below.
                match unsafe { self.lock_host(p, size) } {
                    Ok(_) => locked.push(p),
                    Err(e) => {
                        for &l in &locked {
                            let _ = self.unlock_host(l);
                        }
                        return Err(e);
                    }
                }
            }
        }
        let r = (|| {
            let s = self.side("source", src, size)?;
            let d = self.side("destination", dst, size)?;
            let gpu_id = self.core.agents[gpu.index()].gpu_id;
            for (x, what, p) in [(&s, "source", src), (&d, "destination", dst)] {
                if !x.block.mapped_on.contains(&gpu_id) {
                    return Err(Error::invalid_argument(format!(
                        "hsa_memory_copy: GPU agent {} cannot reach the {what} {p:#x}",
                        gpu.index()
                    )));
                }
            }
            let isa = self.core.agents[gpu.index()].isa_name().unwrap_or_default();
            let engine = if blit::code_object_for(&isa).is_some() {
                CopyEngine::BlitKernel
            } else {
                CopyEngine::Sdma
            };
            let done = self.create_signal(1)?;
            let b = self.submit_copy(engine, gpu, dst, src, size, &[], &done)?;
            match b {
                Some(b) => b.wait(&done),
                None => {
                    while !done.wait_zero(Duration::from_secs(1))? {}
                    Ok(())
                }
            }
        })();
        for &l in &locked {
            let _ = self.unlock_host(l);
        }
        r
    }

    /// `hsa_amd_pointer_info` of `ptr`.
    pub fn amd_pointer_info(&self, ptr: u64) -> PointerInfo {
        let unknown = PointerInfo {
            kind: PointerType::Unknown,
            agent_base_address: 0,
            host_base_address: 0,
            size_in_bytes: 0,
            agent_owner: None,
            global_flags: 0,
        };
        let Some(b) = self.core.allocations.find(ptr) else {
            return unknown;
        };
        let cpu = self
            .agents()
            .find(|a| !self.core.agents[a.index()].is_gpu());
        if b.userptr {
            if ptr < b.user_ptr || ptr >= b.user_ptr + b.requested {
                return unknown;
            }
            return PointerInfo {
                kind: PointerType::Locked,
                agent_base_address: b.user_ptr,
                host_base_address: b.user_ptr,
                size_in_bytes: b.requested,
                agent_owner: cpu,
                global_flags: FLAG_FINE,
            };
        }
        if ptr >= b.start + b.requested {
            // In the page rounding, past what was asked for.
            return unknown;
        }
        let pool = b.pool.and_then(|i| self.core.pools.get(i));
        PointerInfo {
            kind: if self.core.ipc.is_attached_block(b.start) {
                PointerType::Ipc
            } else {
                PointerType::Hsa
            },
            agent_base_address: b.start,
            host_base_address: if b.host_accessible { b.start } else { 0 },
            size_in_bytes: b.requested,
            agent_owner: pool.map(|p| p.owner).or(cpu),
            global_flags: match pool {
                Some(p) if p.fine_grained() => FLAG_FINE,
                Some(_) => FLAG_COARSE,
                None => 0,
            },
        }
    }

    /// The engine copies use by default: SDMA unless it was turned off.
    pub fn sdma_enabled(&self) -> bool {
        self.core.copy.sdma_enabled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hsa_enable_sdma_0_turns_sdma_off() {
        use crate::flags::Flags;
        let flags = |v: Option<&str>| {
            Flags::from_lookup(|n| {
                (n == "HSA_ENABLE_SDMA")
                    .then(|| v.map(str::to_owned))
                    .flatten()
            })
            .unwrap()
        };
        let none = InitOptions { sdma: None };
        assert!(CopyEngines::new(&none, &flags(None)).sdma_enabled);
        assert!(CopyEngines::new(&none, &flags(Some("1"))).sdma_enabled);
        assert!(!CopyEngines::new(&none, &flags(Some("0"))).sdma_enabled);
        // An explicit option wins over the environment.
        let on = InitOptions { sdma: Some(true) };
        assert!(CopyEngines::new(&on, &flags(Some("0"))).sdma_enabled);
        let off = InitOptions { sdma: Some(false) };
        assert!(!CopyEngines::new(&off, &Flags::default()).sdma_enabled);
    }
}
