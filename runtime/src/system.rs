//! The runtime object: `hsa_init`/`hsa_shut_down` (reference counted,
//! thread safe; a new init after the last shut-down starts afresh), the
//! agents and pools found at init, and system information.

#![allow(unsafe_code)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::agent::{Agent, AgentRecord};
use crate::driver::{self, Driver};
use crate::memory::{Allocations, BlockInfo, MemoryPool, PoolKind, PoolRecord};
use crate::queue::{ErrorCallback, Queue, QueueInner, QueueKind, QueueList};
use crate::signal::SignalSlabs;
use crate::status::{Error, Result, Status};

/// Smallest queue, in packets (`HSA_AGENT_INFO_QUEUE_MIN_SIZE`).
pub const QUEUE_MIN_PACKETS: u32 = 64;
/// Largest queue, in packets (`HSA_AGENT_INFO_QUEUE_MAX_SIZE`).
pub const QUEUE_MAX_PACKETS: u32 = 1 << 17;
/// `HSA_AGENT_INFO_QUEUES_MAX`.
pub const QUEUES_MAX: u32 = 128;

/// The runtime's state, shared by every object it hands out.
pub(crate) struct Core {
    pub(crate) driver: Box<dyn Driver>,
    pub(crate) agents: Vec<AgentRecord>,
    pub(crate) pools: Vec<PoolRecord>,
    pub(crate) gpu_ids: Vec<u32>,
    pub(crate) allocations: Allocations,
    pub(crate) signals: SignalSlabs,
    pub(crate) queues: QueueList,
    /// Every GPU's scratch blocks (ROCr's per-agent `ScratchCache`).
    pub(crate) scratch: crate::scratch::ScratchCache,
    /// `HSA_CU_MASK`: the CUs each GPU's queues start with.
    pub(crate) cu_mask_env: crate::cu_mask_env::CuMaskEnv,
    /// The copy engines (SDMA queues, blit kernels), made on first use.
    pub(crate) copy: crate::copy::CopyEngines,
    queue_serial: AtomicU64,
    /// KFD events, the event thread and the async-handler thread.
    pub(crate) events: crate::events::Events,
    /// Clock samples and copy-profiling state (`hsa_amd_profiling_*`).
    pub(crate) profiling: crate::profiling::Profiling,
    /// IPC exports and imports (`hsa_amd_ipc_memory_*`).
    pub(crate) ipc: crate::ipc::Ipc,
    /// Reservations, handles and mappings (`hsa_amd_vmem_*`).
    pub(crate) vmem: crate::vmem::Vmem,
    /// Every GPU agent's `hsa_amd_coherency_type_t`.
    pub(crate) coherency: crate::coherency::Coherency,
    /// The environment flags read when the runtime opened.
    pub(crate) flags: crate::flags::Flags,
    /// The SVM prefetches in flight (`hsa_amd_svm_prefetch_async`).
    pub(crate) svm: crate::svm::Prefetches,
    /// The GPUs' trap handlers and doorbell-to-queue maps.
    pub(crate) trap: crate::trap::TrapHandlers,
    /// What RUNTIME_ENABLE did at open (undone when the core drops).
    pub(crate) runtime_enable: crate::rdebug::RuntimeEnable,
}

/// ROCr's `BindXnackMode` (`amd_topology.cpp`): `HSA_XNACK=1` or `0`
/// (read into [`crate::flags::Flags`]) asks the driver for that mode
/// (`SET_XNACK_MODE`); without it, or when the driver refuses, the mode is
/// the driver's answer to a query, and off when it cannot say (KFD before
/// 1.5). The GPU agents' ISAs carry it (`xnack+`/`xnack-`), and with it on
/// the driver lets the GPUs fault in memory no SVM range covers.
fn bind_xnack_mode(driver: &dyn Driver, want: Option<bool>) -> bool {
    if let Some(w) = want {
        if driver.set_xnack_mode(w).is_ok() {
            return w;
        }
    }
    driver.xnack_mode().unwrap_or(false)
}

impl Core {
    fn open(
        driver: Box<dyn Driver>,
        flags: crate::flags::Flags,
        options: &crate::copy::InitOptions,
    ) -> Result<Arc<Self>> {
        // ROCr's KfdDriver::Init, first of all: the driver learns of
        // _amdgpu_r_debug (and, with HSA_ENABLE_DEBUG=1, sets up the waves'
        // trap temporaries for a debugger).
        let runtime_enable = crate::rdebug::enable(&*driver, flags.enable_debug)?;
        if let (true, crate::rdebug::RuntimeEnable::NotSupported(why)) =
            (flags.enable_debug, runtime_enable)
        {
            eprintln!("hsa: HSA_ENABLE_DEBUG=1 has no effect: {why}");
        }
        // What can fail between RUNTIME_ENABLE and the core that disables
        // it when dropped: on an error the runtime is disabled here, or a
        // later hsa_init in this process would get EBUSY from the driver.
        let opened = (|| -> Result<_> {
            let xnack = bind_xnack_mode(&*driver, flags.xnack);
            let mut agents = crate::agent::discover(driver.topology(), &flags, xnack)?;
            let pools = crate::memory::discover_pools(&mut agents, &flags);
            let gpu_ids: Vec<u32> = agents
                .iter()
                .filter(|a| a.is_gpu())
                .map(|a| a.gpu_id)
                .collect();
            for a in agents.iter().filter(|a| a.is_gpu()) {
                driver
                    .acquire_vm(a.gpu_id, a.node.properties.drm_render_minor)
                    .map_err(|e| {
                        Error::driver(&format!("ACQUIRE_VM of GPU node {}", a.node.id), e)
                    })?;
            }
            // HSA_SCRATCH_SINGLE_LIMIT, HSA_NO_SCRATCH_RECLAIM and HSA_CU_MASK,
            // read with the other flags; HSA_CU_MASK's sets are checked here,
            // against the GPUs and CUs ROCr bounds them by. A malformed value is
            // HSA_STATUS_ERROR naming it, as for every flag (runtime::flags).
            let scratch = crate::scratch::ScratchConfig::from_flags(&flags);
            let cu_mask_env = match flags.cu_mask.as_deref() {
                Some(v) => {
                    // ROCr's limits: the GPU count and the largest CU count.
                    let max_cu = agents
                        .iter()
                        .filter(|a| a.is_gpu())
                        .map(|a| crate::scratch::ScratchGeometry::of(&a.node).cus)
                        .max()
                        .unwrap_or(0);
                    crate::cu_mask_env::CuMaskEnv::parse(v, gpu_ids.len() as u32, max_cu)
                        .map_err(|e| Error::new(Status::Error, format!("environment: {e}")))?
                }
                None => crate::cu_mask_env::CuMaskEnv::default(),
            };
            let profiling = crate::profiling::Profiling::open(&*driver, &gpu_ids)?;
            Ok((agents, pools, gpu_ids, cu_mask_env, scratch, profiling))
        })();
        let (agents, pools, gpu_ids, cu_mask_env, scratch, profiling) = match opened {
            Ok(v) => v,
            Err(e) => {
                crate::rdebug::disable(&*driver, runtime_enable);
                return Err(e);
            }
        };
        let scratch = crate::scratch::ScratchCache::new(scratch);
        for a in agents.iter().filter(|a| a.is_gpu()) {
            scratch.add_gpu(a.gpu_id, &a.node);
        }
        let core = Arc::new(Core {
            profiling,
            ipc: crate::ipc::Ipc::default(),
            vmem: crate::vmem::Vmem::default(),
            coherency: crate::coherency::Coherency::new(&agents),
            svm: crate::svm::Prefetches::default(),
            driver,
            agents,
            pools,
            gpu_ids,
            allocations: {
                let a = Allocations::default();
                // libhsakmt's default: one guard page after each allocation.
                a.set_guard_pages(flags.svm_guard_pages.unwrap_or(1));
                a
            },
            signals: SignalSlabs::default(),
            queues: QueueList::default(),
            scratch,
            cu_mask_env,
            copy: crate::copy::CopyEngines::new(options, &flags),
            flags,
            queue_serial: AtomicU64::new(0),
            events: crate::events::Events::default(),
            trap: crate::trap::TrapHandlers::default(),
            runtime_enable,
        });
        // ROCr binds the trap handler as it creates each GPU agent, before
        // any queue.
        crate::trap::TrapHandlers::install(&core)?;
        crate::events::Events::start(&core);
        Ok(core)
    }

    pub(crate) fn agent(&self, agent: Agent) -> Result<&AgentRecord> {
        self.agents
            .get(agent.index())
            .ok_or_else(|| Error::new(Status::InvalidAgent, format!("no agent {}", agent.index())))
    }

    pub(crate) fn pool(&self, pool: MemoryPool) -> Result<&PoolRecord> {
        self.pools.get(pool.index()).ok_or_else(|| {
            Error::new(
                Status::InvalidMemoryPool,
                format!("no memory pool {}", pool.index()),
            )
        })
    }

    /// System memory mapped on every GPU (fine grained if `fine`).
    pub(crate) fn allocate_system(&self, size: u64, fine: bool) -> Result<u64> {
        let kind = if fine {
            PoolKind::SystemFine
        } else {
            PoolKind::SystemCoarse
        };
        self.allocations
            .allocate(&*self.driver, None, kind, None, &self.gpu_ids, size, 4096)
    }

    /// Memory of `kind` owned by GPU `gpu_id`, mapped there only.
    pub(crate) fn allocate_on(&self, gpu_id: u32, kind: PoolKind, size: u64) -> Result<u64> {
        self.allocations
            .allocate(&*self.driver, None, kind, Some(gpu_id), &[], size, 4096)
    }

    pub(crate) fn free(&self, va: u64) -> Result<()> {
        let r = self.allocations.free(&*self.driver, va);
        if r.is_ok() {
            // Its IPC export (the dma-buf kept open for importers) ends.
            self.ipc.forget(va);
        }
        r
    }

    pub(crate) fn next_queue_serial(&self) -> u64 {
        self.queue_serial.fetch_add(1, Ordering::Relaxed)
    }

    /// The live queues of GPU `gpu_id`.
    pub(crate) fn queues_of_gpu(&self, gpu_id: u32) -> Vec<Arc<QueueInner>> {
        self.queues
            .list
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter_map(std::sync::Weak::upgrade)
            .filter(|q| q.gpu_id == gpu_id)
            .collect()
    }

    pub(crate) fn register_queue(&self, q: &Arc<QueueInner>) {
        self.queues
            .list
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Arc::downgrade(q));
    }
}

impl Drop for Core {
    fn drop(&mut self) {
        // The threads hold the core, so they stopped before this runs
        // (`Events::shut_down` at the last `hsa_shut_down`).
        self.events.shut_down(&*self.driver);
        self.events.destroy_all(&*self.driver);
        if let Some(page) = self.events.page_buffer() {
            self.allocations.abandon(page);
        }
        self.vmem.release_all(&*self.driver);
        self.allocations.free_all(&*self.driver);
        crate::rdebug::disable(&*self.driver, self.runtime_enable);
    }
}

/// The process-wide `hsa_init` count and the runtime it opened.
static GLOBAL: Mutex<Option<(u32, Arc<Core>)>> = Mutex::new(None);

/// A handle on the initialised runtime (`hsa_init` succeeded). Dropping
/// it is `hsa_shut_down`: the last one closes the runtime.
pub struct Runtime {
    pub(crate) core: Arc<Core>,
}

impl core::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Runtime")
            .field("driver", &self.core.driver.kind())
            .field("agents", &self.core.agents.len())
            .finish_non_exhaustive()
    }
}

impl Runtime {
    /// `hsa_init`: opens the runtime on the device [`driver::open`] picks,
    /// or takes another reference on the open one.
    pub fn init() -> Result<Self> {
        Self::init_with(driver::open)
    }

    /// `hsa_init` with the device `open` gives, when this is the first
    /// reference (else `open` is not called).
    pub fn init_with(open: impl FnOnce() -> Result<Box<dyn Driver>>) -> Result<Self> {
        Self::init_with_options(open, crate::copy::InitOptions::default())
    }

    /// [`init_with`](Self::init_with) with `options` (used only when this
    /// call opens the runtime).
    pub fn init_with_options(
        open: impl FnOnce() -> Result<Box<dyn Driver>>,
        options: crate::copy::InitOptions,
    ) -> Result<Self> {
        Self::open_with(open, options, crate::flags::Flags::from_env)
    }

    /// [`init_with_options`](Self::init_with_options) with `flags`
    /// instead of the environment's (used only when this call opens the
    /// runtime).
    pub fn init_with_flags(
        open: impl FnOnce() -> Result<Box<dyn Driver>>,
        options: crate::copy::InitOptions,
        flags: crate::flags::Flags,
    ) -> Result<Self> {
        Self::open_with(open, options, || Ok(flags))
    }

    fn open_with(
        open: impl FnOnce() -> Result<Box<dyn Driver>>,
        options: crate::copy::InitOptions,
        flags: impl FnOnce() -> Result<crate::flags::Flags>,
    ) -> Result<Self> {
        crate::trace::api_call!("hsa_init", {
            let mut g = GLOBAL.lock().unwrap_or_else(|p| p.into_inner());
            if let Some((count, core)) = g.as_mut() {
                *count = count.checked_add(1).ok_or_else(|| {
                    Error::new(Status::RefcountOverflow, "hsa_init called 2^32 times")
                })?;
                return Ok(Runtime {
                    core: Arc::clone(core),
                });
            }
            // The environment is checked before the device is opened: a
            // malformed flag fails hsa_init without touching the driver.
            let flags = flags()?;
            let core = Core::open(open()?, flags, &options)?;
            *g = Some((1, Arc::clone(&core)));
            Ok(Runtime { core })
        })
    }

    /// The number of outstanding `hsa_init`s (0: closed).
    pub fn init_count() -> u32 {
        GLOBAL
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map_or(0, |(c, _)| *c)
    }

    /// `hsa_shut_down` (the same as dropping the handle).
    pub fn shut_down(self) {}

    /// The environment flags read when the runtime opened
    /// ([`crate::flags`]).
    pub fn flags(&self) -> &crate::flags::Flags {
        &self.core.flags
    }

    /// Which device the runtime drives.
    pub fn driver_kind(&self) -> driver::DriverKind {
        self.core.driver.kind()
    }

    /// The driver.
    pub fn driver(&self) -> &dyn Driver {
        &*self.core.driver
    }

    /// Every agent, CPUs first, then GPUs in topology order.
    pub fn agents(&self) -> impl Iterator<Item = Agent> + '_ {
        (0..self.core.agents.len() as u32).map(Agent)
    }

    /// The GPU agents.
    pub fn gpu_agents(&self) -> impl Iterator<Item = Agent> + '_ {
        self.agents()
            .filter(|a| self.core.agents[a.index()].is_gpu())
    }

    /// What the runtime knows of `agent`.
    pub fn agent(&self, agent: Agent) -> Result<&AgentRecord> {
        self.core.agent(agent)
    }

    /// The trap handler installed on GPU `agent`: its code (TBA) and its
    /// doorbell-to-queue map (TMA) addresses; none on a GPU that has none.
    pub fn trap_handler(&self, agent: Agent) -> Result<Option<(u64, u64)>> {
        let a = self.core.agent(agent)?;
        Ok(self.core.trap.addresses(a.gpu_id))
    }

    /// What `AMDKFD_IOC_RUNTIME_ENABLE` did when the runtime opened
    /// ([`crate::rdebug`]).
    pub fn runtime_enable(&self) -> crate::rdebug::RuntimeEnable {
        self.core.runtime_enable
    }

    /// The agent's memory pools.
    pub fn pools(&self, agent: Agent) -> Result<Vec<MemoryPool>> {
        Ok(self
            .core
            .agent(agent)?
            .pools
            .iter()
            .map(|&i| MemoryPool(i as u32))
            .collect())
    }

    /// What the runtime knows of `pool`.
    pub fn pool(&self, pool: MemoryPool) -> Result<&PoolRecord> {
        self.core.pool(pool)
    }

    /// The CPU agent's kernarg pool (fine-grained system memory for kernel arguments).
    pub fn kernarg_pool(&self) -> Result<MemoryPool> {
        self.core
            .pools
            .iter()
            .position(|p| p.kind == PoolKind::SystemKernarg)
            .map(|i| MemoryPool(i as u32))
            .ok_or_else(|| Error::new(Status::Error, "no kernarg system pool"))
    }

    /// `hsa_amd_memory_pool_allocate` for Rust callers: system memory is
    /// mapped on every GPU at once (which the runtime's own users of it,
    /// and most of its tests, rely on); VRAM on its GPU.
    pub fn allocate(&self, pool: MemoryPool, size: u64) -> Result<u64> {
        self.allocate_in(pool, size, false)
    }

    /// `hsa_amd_memory_pool_allocate` as ROCr does it for a C caller: like
    /// [`allocate`](Self::allocate), except that system memory is mapped
    /// for the CPU only, and a GPU may use it once
    /// [`allow_access`](Self::allow_access) gave it access (the access
    /// `HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS` reports:
    /// `DISALLOWED_BY_DEFAULT`; ROCr's `AllocateRestrict`). VRAM is mapped
    /// on its GPU in both.
    pub fn allocate_restricted(&self, pool: MemoryPool, size: u64) -> Result<u64> {
        self.allocate_in(pool, size, true)
    }

    /// The checks of both, then the allocation; `cpu_only` system memory is
    /// mapped on no GPU (on a machine without GPUs there is nothing to
    /// restrict).
    fn allocate_in(&self, pool: MemoryPool, size: u64, cpu_only: bool) -> Result<u64> {
        crate::trace::api_call!(
            "hsa_amd_memory_pool_allocate",
            pool = pool.handle(),
            size = size,
            {
                let p = self.core.pool(pool)?.clone();
                if !p.runtime_alloc_allowed() {
                    return Err(Error::new(
                        Status::InvalidAllocation,
                        format!(
                            "pool {} ({:?}) does not allow runtime allocation",
                            pool.index(),
                            p.kind
                        ),
                    ));
                }
                if size == 0 {
                    return Err(Error::invalid_argument("allocation of 0 bytes"));
                }
                if size > p.size {
                    return Err(Error::new(
                        Status::InvalidAllocation,
                        format!(
                            "{size} bytes exceed pool {} ({} bytes)",
                            pool.index(),
                            p.size
                        ),
                    ));
                }
                let a = &self.core.allocations;
                let driver = &*self.core.driver;
                let index = Some(pool.index());
                match (p.kind, self.core.gpu_ids.first()) {
                    (PoolKind::Vram | PoolKind::VramFine, _) => {
                        let vram =
                            || a.allocate(driver, index, p.kind, Some(p.gpu_id), &[], size, 4096);
                        // ROCr's KfdDriver::AllocateMemory: a failed
                        // allocation trims the GPU (its cached scratch, and
                        // where reclaim is asynchronous the queues' scratch)
                        // and is tried once more.
                        vram().or_else(|e| match self.core.trim_scratch(p.gpu_id) {
                            Ok(freed) if freed > 0 => vram(),
                            _ => Err(e),
                        })
                    }
                    (_, Some(&gpu)) if cpu_only => {
                        a.allocate_cpu_only(driver, index, p.kind, gpu, size)
                    }
                    _ => a.allocate(driver, index, p.kind, None, &self.core.gpu_ids, size, 4096),
                }
            }
        )
    }

    /// `hsa_amd_memory_pool_can_migrate`: whether an allocation of `src`
    /// may be moved to `dst` with [`migrate`](Self::migrate): both are
    /// global pools the runtime allocates from (ROCr itself answers
    /// `OUT_OF_RESOURCES` to every migration: `MemoryRegion::CanMigrate` is
    /// "not implemented yet" there).
    pub fn can_migrate(&self, src: MemoryPool, dst: MemoryPool) -> Result<bool> {
        let (s, d) = (self.core.pool(src)?, self.core.pool(dst)?);
        let movable = |p: &crate::memory::PoolRecord| {
            p.segment() == crate::memory::Segment::Global && p.runtime_alloc_allowed()
        };
        Ok(movable(s) && movable(d))
    }

    /// `hsa_amd_memory_migrate`: moves the allocation that starts at `ptr`
    /// into `pool`, keeping its address, its contents and every agent's
    /// access (plus the new owner's, for a VRAM pool): the KFD sequence of
    /// [`crate::memory`]'s `Allocations::migrate`. Already in `pool`:
    /// nothing to do. No agent may access the memory while it moves (as
    /// for any reallocation). ROCr has no implementation (it answers
    /// `OUT_OF_RESOURCES`); this is the call's documented meaning.
    pub fn migrate(&self, ptr: u64, pool: MemoryPool) -> Result<()> {
        crate::trace::api_call!("hsa_amd_memory_migrate", ptr = ptr, pool = pool.handle(), {
            let p = self.core.pool(pool)?.clone();
            if p.segment() != crate::memory::Segment::Global || !p.runtime_alloc_allowed() {
                return Err(Error::new(
                    Status::InvalidMemoryPool,
                    format!(
                        "pool {} ({:?}) takes no allocations to migrate into",
                        pool.index(),
                        p.kind
                    ),
                ));
            }
            let block = self
                .core
                .allocations
                .find(ptr)
                .filter(|b| b.start == ptr)
                .ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "{ptr:#x} is not the start of an allocation of this runtime"
                    ))
                })?;
            if block.size > p.size {
                return Err(Error::new(
                    Status::OutOfResources,
                    format!(
                        "{} bytes exceed pool {} ({} bytes)",
                        block.size,
                        pool.index(),
                        p.size
                    ),
                ));
            }
            let owner = matches!(p.kind, PoolKind::Vram | PoolKind::VramFine).then_some(p.gpu_id);
            self.core.allocations.migrate(
                &*self.core.driver,
                ptr,
                pool.index(),
                p.kind,
                owner,
                &self.core.gpu_ids,
            )
        })
    }

    /// `hsa_amd_memory_pool_free`.
    pub fn free(&self, ptr: u64) -> Result<()> {
        crate::trace::api_call!("hsa_amd_memory_pool_free", ptr = ptr, {
            self.core.free(ptr)
        })
    }

    /// `hsa_amd_agents_allow_access`: `agents` may use the allocation at `ptr`.
    pub fn allow_access(&self, agents: &[Agent], ptr: u64) -> Result<()> {
        crate::trace::api_call!(
            "hsa_amd_agents_allow_access",
            agents = agents.len(),
            ptr = ptr,
            {
                // hsa_ext_amd.h: num_agents 0 is INVALID_ARGUMENT.
                if agents.is_empty() {
                    return Err(Error::invalid_argument(
                        "hsa_amd_agents_allow_access: no agents",
                    ));
                }
                let mut gpus = Vec::new();
                for &a in agents {
                    let r = self.core.agent(a)?;
                    if r.is_gpu() {
                        gpus.push(r.gpu_id);
                    }
                }
                self.core
                    .allocations
                    .allow_access(&*self.core.driver, ptr, &gpus)
            }
        )
    }

    /// The allocation holding `ptr` (`hsa_amd_pointer_info`).
    pub fn pointer_info(&self, ptr: u64) -> Option<BlockInfo> {
        self.core.allocations.find(ptr)
    }

    /// `hsa_amd_memory_lock`: makes `size` bytes of host memory at `ptr`
    /// usable by every GPU; returns the GPU address.
    ///
    /// # Safety
    ///
    /// The range is memory of this process that stays mapped until
    /// [`unlock_host`](Self::unlock_host).
    pub unsafe fn lock_host(&self, ptr: u64, size: u64) -> Result<u64> {
        // SAFETY: forwarded to our caller.
        unsafe {
            self.core
                .allocations
                .lock_host(&*self.core.driver, ptr, size, &self.core.gpu_ids)
        }
    }

    /// `hsa_amd_memory_unlock`.
    pub fn unlock_host(&self, ptr: u64) -> Result<()> {
        self.core.allocations.unlock(&*self.core.driver, ptr)
    }

    /// `hsa_memory_copy`: copies `size` bytes and returns when they are
    /// copied. Between system memory (allocations of system pools, locked
    /// or plain host memory) the CPU copies; when a side is device memory
    /// (a VRAM pool, or memory the CPU cannot reach) the GPU copies, as
    /// ROCr does: see [`copy`](crate::copy).
    ///
    /// # Safety
    ///
    /// `src..src + size` and `dst..dst + size` are valid, non-overlapping
    /// memory of this process (or allocations of this runtime), not in use
    /// by a running kernel.
    pub unsafe fn copy(&self, dst: u64, src: u64, size: u64) -> Result<()> {
        // SAFETY: forwarded to our caller.
        unsafe { self.memory_copy(dst, src, size) }
    }

    /// `hsa_queue_create`.
    pub fn create_queue(
        &self,
        agent: Agent,
        size: u32,
        kind: QueueKind,
        callback: Option<ErrorCallback>,
        private_segment_size: u32,
    ) -> Result<Queue> {
        crate::trace::api_call!("hsa_queue_create", agent = agent.handle(), size = size, {
            Queue::create(
                &self.core,
                agent,
                size,
                kind,
                callback,
                private_segment_size,
            )
        })
    }

    /// Live allocations (for leak checks).
    pub fn allocation_count(&self) -> usize {
        self.core.allocations.count()
    }

    /// Live signals (for leak checks).
    pub fn signal_count(&self) -> usize {
        self.core.signals.live_count()
    }

    /// `HSA_SYSTEM_INFO_TIMESTAMP`: the HSA system clock (ns).
    pub fn timestamp(&self) -> u64 {
        std_shim::system_timestamp()
    }

    /// `HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY`.
    pub fn timestamp_frequency(&self) -> u64 {
        std_shim::HSA_SYSTEM_TIMESTAMP_FREQUENCY
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        #[cfg(feature = "tracing")]
        let _span = tracing::info_span!("hsa_shut_down").entered();
        let mut g = GLOBAL.lock().unwrap_or_else(|p| p.into_inner());
        let last = match g.as_mut() {
            Some((count, core)) if Arc::ptr_eq(core, &self.core) => {
                *count -= 1;
                *count == 0
            }
            _ => false,
        };
        if last {
            // The copy engines hold queues and executables, which hold the
            // core: release them so that the core closes.
            self.core.copy.shut_down(&self.core);
            *g = None;
        }
        drop(g);
        if last {
            // The event and handler threads hold the core: stop them, so it
            // can close once the caller's signals and queues are gone.
            self.core.events.shut_down(&*self.core.driver);
        }
    }
}
