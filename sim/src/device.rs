//! [`SimDevice`]: the simulated `/dev/kfd` of one process, its GPUs and
//! their render nodes. The ioctls answer as `kfd_chardev.c` does: the same
//! argument checks in the same order, the same errnos, the same fields
//! written back (also on failure: the driver copies the struct back for
//! every `_IOR`/`_IOWR` call).

#![allow(unsafe_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{c_int, c_void};
use std::num::NonZeroUsize;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Instant;

use kfd::ioctl::consts::*;
use kfd::ioctl::{Direction, Ioctl, Opcode, raw};
use kfd::{DrmRenderNode, KfdDevice};
use rustix::io::Errno;

use crate::cp::{CommandProcessor, QueueKind, QueueState};
use crate::dispatch::{AgentHandler, ShaderCore};
use crate::doorbell::DoorbellWatch;
use crate::events::{Events, SignalPage};
use crate::memory::{GpuMemory, HostView, VaRange};
use crate::topology::{
    Board, DOORBELL_PROCESS_SLICE, EOP_BUFFER_SIZE, GpuNode, SimTopology, TopologyConfig,
};

/// `KFD_MMAP_TYPE_*` (bits 62-63 of a `/dev/kfd` mmap offset).
pub(crate) const KFD_MMAP_TYPE_SHIFT: u32 = 62;
pub(crate) const KFD_MMAP_TYPE_MASK: u64 = 0x3 << KFD_MMAP_TYPE_SHIFT;
pub(crate) const KFD_MMAP_TYPE_DOORBELL: u64 = 0x3 << KFD_MMAP_TYPE_SHIFT;
pub(crate) const KFD_MMAP_TYPE_EVENTS: u64 = 0x2 << KFD_MMAP_TYPE_SHIFT;
pub(crate) const KFD_MMAP_TYPE_MMIO: u64 = 0x0 << KFD_MMAP_TYPE_SHIFT;
/// `KFD_MMAP_GPU_ID` (bits 46-61).
const KFD_MMAP_GPU_ID_SHIFT: u32 = 46;
const KFD_MMAP_GPU_ID_MASK: u64 = 0xffff << KFD_MMAP_GPU_ID_SHIFT;

fn mmap_gpu_id(gpu_id: u32) -> u64 {
    (u64::from(gpu_id) << KFD_MMAP_GPU_ID_SHIFT) & KFD_MMAP_GPU_ID_MASK
}

/// The kernel-internal `ENOTSUPP` (524), which `set_queue_properties_from_user`
/// returns for an unknown queue type and user space sees as is.
const ENOTSUPP: i32 = 524;
/// `KFD_MAX_NUM_OF_QUEUES_PER_PROCESS`.
const MAX_QUEUES: u32 = 1024;
/// The fixed GPU clock the sim reports and timestamps with: 100 MHz.
pub const GPU_CLOCK_HZ: u64 = 100_000_000;
/// First fake mmap offset of a buffer on a render node (above 4 GiB, as
/// amdgpu's `DRM_FILE_PAGE_OFFSET_START` keeps them clear of real offsets).
const BO_MMAP_OFFSET_BASE: u64 = 1 << 32;
/// The GPUVM aperture of a process (48-bit VA, the first 64 KiB reserved).
const GPUVM_BASE: u64 = 0x1_0000;
/// The page of SVM ranges (amdkfd keeps them in `PAGE_SHIFT` pages).
const SVM_PAGE: u64 = 4096;
const GPUVM_LIMIT: u64 = (1 << 47) - 1;
/// GFX9 LDS and scratch apertures (`MAKE_LDS_APP_BASE_V9`, `MAKE_SCRATCH_APP_BASE_V9`).
pub(crate) const LDS_BASE_V9: u64 = 0x1 << 48;
pub(crate) const SCRATCH_BASE_V9: u64 = 0x2 << 48;
/// `GB_ADDR_CONFIG` of gfx90a (the golden value of `gfx_v9_0.c`).
pub(crate) const GB_ADDR_CONFIG_GFX90A: u32 = 0x2a11_4042;

fn page_align(v: u64) -> Option<u64> {
    v.checked_add(4095).map(|v| v & !4095)
}

/// Builder of a [`SimDevice`]; [`SimBuilder::from_env`] reads the
/// environment variables documented in the README.
#[derive(Debug, Clone)]
pub struct SimBuilder {
    board: Board,
    gpus: Option<u32>,
    vram: Option<u64>,
    workers: usize,
    interpreter: bool,
    doorbell_watch: bool,
    trace: Option<std::path::PathBuf>,
}

impl Default for SimBuilder {
    fn default() -> Self {
        Self {
            board: Board::Mi210,
            gpus: None,
            vram: None,
            // One shader worker per host core.
            workers: std::thread::available_parallelism().map_or(1, |n| n.get()),
            interpreter: true,
            doorbell_watch: true,
            trace: None,
        }
    }
}

/// An environment variable with a value the sim does not understand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvError {
    /// The variable.
    pub variable: &'static str,
    /// Its value.
    pub value: String,
}

impl std::fmt::Display for EnvError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={:?} is not a valid value", self.variable, self.value)
    }
}

impl std::error::Error for EnvError {}

impl SimBuilder {
    /// One MI210.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads `SIM_BOARD` (`mi210`, `mi250x`, `mi300x`), `SIM_GPUS`,
    /// `SIM_VRAM_MIB`, `SIM_WORKERS` and `SIM_TRACE` over the defaults.
    pub fn from_env() -> Result<Self, EnvError> {
        let mut b = Self::new();
        let var = |name: &'static str| std::env::var(name).ok();
        let bad = |variable, value: String| EnvError { variable, value };
        if let Some(v) = var("SIM_BOARD") {
            b.board = Board::from_name(&v).ok_or_else(|| bad("SIM_BOARD", v))?;
        }
        if let Some(v) = var("SIM_GPUS") {
            b.gpus = Some(
                v.parse()
                    .ok()
                    .filter(|n| (1..=64).contains(n))
                    .ok_or_else(|| bad("SIM_GPUS", v))?,
            );
        }
        if let Some(v) = var("SIM_VRAM_MIB") {
            let mib: u64 = v
                .parse()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| bad("SIM_VRAM_MIB", v.clone()))?;
            b.vram = Some(
                mib.checked_mul(1 << 20)
                    .ok_or_else(|| bad("SIM_VRAM_MIB", v))?,
            );
        }
        if let Some(v) = var("SIM_DOORBELL_WATCH") {
            b.doorbell_watch = match v.as_str() {
                "0" => false,
                "1" => true,
                _ => return Err(bad("SIM_DOORBELL_WATCH", v)),
            };
        }
        if let Some(v) = std::env::var_os("SIM_TRACE") {
            b.trace = Some(v.into());
        }
        if let Some(v) = var("SIM_WORKERS") {
            b.workers = v
                .parse()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| bad("SIM_WORKERS", v))?;
        }
        Ok(b)
    }

    /// The board to imitate.
    pub fn board(mut self, board: Board) -> Self {
        self.board = board;
        self
    }

    /// How many GPUs (default: the board's).
    pub fn gpus(mut self, n: u32) -> Self {
        self.gpus = Some(n.max(1));
        self
    }

    /// VRAM per GPU in bytes.
    pub fn vram(mut self, bytes: u64) -> Self {
        self.vram = Some(bytes);
        self
    }

    /// Host threads that execute waves (handed to the shader core;
    /// default: one per host core).
    pub fn workers(mut self, n: usize) -> Self {
        self.workers = n.max(1);
        self
    }

    /// Whether sleeping engines are woken by the client's doorbell stores
    /// through userfaultfd write protection (default, where the kernel
    /// allows it), or poll with a bounded backoff (`sim/src/doorbell.rs`;
    /// `SIM_DOORBELL_WATCH=0|1`).
    pub fn doorbell_watch(mut self, on: bool) -> Self {
        self.doorbell_watch = on;
        self
    }

    /// Appends one line per ioctl, mmap and render-node open the device
    /// receives to `path` (`SIM_TRACE`; the format is `trace.rs`'s).
    pub fn trace(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.trace = Some(path.into());
        self
    }

    /// Builds the device without a shader core (every dispatch then fails
    /// through the queue's error path until one is installed with
    /// [`SimDevice::set_shader_core`]). By default the device runs kernels
    /// with the [`Interpreter`](crate::Interpreter).
    pub fn without_shader_core(mut self) -> Self {
        self.interpreter = false;
        self
    }

    /// Builds the device and starts one command processor per GPU.
    pub fn build(self) -> SimDevice {
        SimDevice::new(self)
    }
}

/// A buffer object.
#[derive(Debug)]
struct Bo {
    gpu_index: usize,
    size: u64,
    va: u64,
    flags: u32,
    view: Arc<HostView>,
    mmap_offset: u64,
    mapped_on: BTreeSet<usize>,
    /// Queues using the BO, per GPU VM (`bo_va->queue_refcount`).
    queue_refs: BTreeMap<usize, u32>,
    /// (st_dev, st_ino) of the memfd, for dma-buf import/info.
    file_id: Option<(u64, u64)>,
}

/// Per-GPU state of the process (`kfd_process_device`).
#[derive(Debug)]
pub(crate) struct Gpu {
    pub(crate) node: GpuNode,
    pub(crate) memory: GpuMemory,
    /// The process's doorbell page on this GPU.
    pub(crate) doorbells: Arc<HostView>,
    mmio: Arc<HostView>,
    vm: Mutex<Option<(u64, u64)>>,
    vram_used: AtomicU64,
    next_idr: AtomicU64,
    trap: Mutex<(u64, u64)>,
    scratch_backing_va: AtomicU64,
}

impl Gpu {
    /// The trap handler installed with SET_TRAP_HANDLER (none while the
    /// TBA is 0).
    pub(crate) fn trap_handler(&self) -> Option<crate::dispatch::TrapHandler> {
        let (tba, tma) = *self.trap.lock().unwrap_or_else(|e| e.into_inner());
        (tba != 0).then_some(crate::dispatch::TrapHandler { tba, tma })
    }
}

#[derive(Debug, Default)]
struct Process {
    bos: BTreeMap<u64, Bo>,
    offsets: BTreeMap<u64, u64>,
    next_offset: u64,
    queues: BTreeMap<u32, Arc<QueueState>>,
    xnack: bool,
    /// `AMDKFD_IOC_RUNTIME_ENABLE`'s record (amdkfd `kfd_runtime_info`).
    runtime: RuntimeInfo,
    svm: crate::svm::SvmRanges,
    /// SVM ranges (start) mapped on a GPU (index) because an access
    /// attribute names it.
    svm_mapped: BTreeSet<(u64, usize)>,
}

/// Everything the device, its render nodes and its command processors share.
pub(crate) struct Inner {
    pub(crate) topology: SimTopology,
    pub(crate) gpus: Vec<Gpu>,
    process: Mutex<Process>,
    pub(crate) events: Events,
    /// Wakes sleeping engines on a client's doorbell store.
    pub(crate) doorbell_watch: DoorbellWatch,
    pub(crate) clock_origin: Instant,
    pub(crate) shader_core: RwLock<Option<Arc<dyn ShaderCore>>>,
    pub(crate) agent_handler: RwLock<Option<Arc<dyn AgentHandler>>>,
    render_nodes: Mutex<Vec<(u32, u64, u64)>>,
    pub(crate) workers: usize,
    smi: Mutex<Vec<OwnedFd>>,
    pub(crate) shutdown: AtomicBool,
    /// The process enabled the runtime with
    /// `KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK`: the SPI sets up the trap
    /// temporaries of every wave it launches (amdkfd `runtime_enable`,
    /// `enable_debug_trap`).
    pub(crate) ttmp_setup: AtomicBool,
    trace: crate::trace::Trace,
}

/// What a process told the driver with `AMDKFD_IOC_RUNTIME_ENABLE`:
/// amdkfd's `struct kfd_runtime_info`, which `KFD_IOC_DBG_TRAP_ENABLE`
/// hands a debugger (`kfd_ioctl.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RuntimeInfo {
    /// `r_debug`: the runtime's `_amdgpu_r_debug` (0 while disabled).
    pub r_debug: u64,
    /// `runtime_state`: enabled (`DEBUG_RUNTIME_STATE_ENABLED`) or not.
    pub enabled: bool,
    /// `ttmp_setup`: waves launch with their trap temporaries set up.
    pub ttmp_setup: bool,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inner")
            .field("gpus", &self.gpus.len())
            .finish_non_exhaustive()
    }
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, Process> {
        self.process.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn gpu_index(&self, gpu_id: u32) -> Option<usize> {
        self.gpus.iter().position(|g| g.node.gpu_id == gpu_id)
    }

    /// What `svm_range_validate_and_map` does for the ranges of
    /// `[lo, hi)`: each is mapped on exactly the GPUs it gives `ACCESS` or
    /// `ACCESS_IN_PLACE` (system memory, in place: the GPU reads the
    /// client's own pages at the same address; read-only with
    /// `KFD_IOCTL_SVM_FLAG_GPU_RO`), unmapped from the others. With XNACK
    /// amdkfd maps on the GPU's first fault instead; the sim maps at once,
    /// which a kernel cannot tell apart. A range overlapping a buffer
    /// already mapped there is `EINVAL`.
    fn map_svm(&self, p: &mut Process, lo: u64, hi: u64) -> Result<(), Errno> {
        let d = self;
        let pieces: Vec<(u64, crate::svm::SvmRange)> =
            p.svm.overlapping(lo, hi).map(|(s, r)| (s, *r)).collect();
        for (gi, g) in d.gpus.iter().enumerate() {
            let mut map = g.memory.map().write().unwrap_or_else(|e| e.into_inner());
            let old: Vec<u64> = p
                .svm_mapped
                .range((lo, 0)..(hi, 0))
                .filter(|(_, i)| *i == gi)
                .map(|(s, _)| *s)
                .collect();
            for s in old {
                map.remove(s);
                p.svm_mapped.remove(&(s, gi));
            }
            for (start, r) in pieces.iter().filter(|(_, r)| r.reaches(gi)) {
                let ptr = NonNull::new(*start as usize as *mut u8).ok_or(Errno::INVAL)?;
                let len = usize::try_from(r.end - start).map_err(|_| Errno::INVAL)?;
                // SAFETY: the SVM contract as the sim models it: the range is
                // mapped memory of the client (checked by `svm`), which keeps
                // it mapped while a GPU has access (amdgpu follows unmaps with
                // an MMU notifier; the sim has none, as with USERPTR).
                let view = unsafe { HostView::borrowed(ptr, len) };
                let range = VaRange {
                    end: r.end,
                    view: Arc::new(view),
                    view_offset: 0,
                    writable: r.flags & KFD_IOCTL_SVM_FLAG_GPU_RO == 0,
                };
                if *start < GPUVM_BASE || !map.insert(*start, range) {
                    return Err(Errno::INVAL);
                }
                p.svm_mapped.insert((*start, gi));
            }
        }
        Ok(())
    }

    /// A GPU's page fault at `va` with XNACK on (`svm_range_restore_pages`):
    /// a page of the process that no SVM range covers gets a new range
    /// (`svm_range_create_unregistered_range`, here the one page), which
    /// with XNACK every GPU reaches, and is mapped; the access retries.
    /// A page a range covers keeps that range's access (none: the fault
    /// stands). True when the access can be retried.
    fn xnack_fault(&self, gpu: usize, va: u64) -> bool {
        let mut p = self.lock();
        if !p.xnack {
            return false;
        }
        let page = va & !(SVM_PAGE - 1);
        let Some(end) = page.checked_add(SVM_PAGE) else {
            return false;
        };
        if self.gpus[gpu].memory.is_mapped(va, 1) {
            // Another wave of the GPU mapped it meanwhile.
            return true;
        }
        if page < GPUVM_BASE || p.svm.overlapping(page, end).next().is_some() {
            return false;
        }
        // svm_range_is_valid: a mapped page of the process.
        // SAFETY: msync only inspects the mapping; an unmapped page is ENOMEM.
        let mapped = unsafe {
            rustix::mm::msync(
                page as usize as *mut c_void,
                SVM_PAGE as usize,
                rustix::mm::MsyncFlags::ASYNC,
            )
        };
        if mapped.is_err() {
            return false;
        }
        let all_gpus =
            (0..self.gpus.len()).fold(0u64, |m, i| m | 1u64.checked_shl(i as u32).unwrap_or(0));
        p.svm.set(page, end, &[], all_gpus, &|v| self.gpu_index(v));
        self.map_svm(&mut p, page, end).is_ok()
    }

    /// `kfd_bind_process_to_device`: the VM must have been acquired.
    fn bound(&self, i: usize) -> bool {
        self.gpus[i]
            .vm
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    /// Every queue of the process on GPU `gpu_id` (compute and SDMA).
    pub(crate) fn queues_of_gpu(&self, gpu_id: u32) -> Vec<Arc<QueueState>> {
        self.lock()
            .queues
            .values()
            .filter(|q| q.gpu_id == gpu_id)
            .cloned()
            .collect()
    }

    /// The GPU clock: a counter at [`GPU_CLOCK_HZ`] since the device started.
    pub(crate) fn gpu_clock(&self) -> u64 {
        let ns = self.clock_origin.elapsed().as_nanos();
        (ns * u128::from(GPU_CLOCK_HZ) / 1_000_000_000) as u64
    }
}

/// The simulated `/dev/kfd` of one process. Dropping it stops and joins
/// the command processors.
pub struct SimDevice {
    inner: Arc<Inner>,
    cps: Vec<CommandProcessor>,
    /// Per GPU, one thread per SDMA engine (PCIe engines, then XGMI ones).
    sdmas: Vec<Vec<CommandProcessor>>,
    /// SDMA queues created so far, to spread them over the engines.
    sdma_queues: AtomicU64,
}

impl std::fmt::Debug for SimDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimDevice")
            .field("gpus", &self.inner.gpus.len())
            .finish_non_exhaustive()
    }
}

impl Default for SimDevice {
    fn default() -> Self {
        SimBuilder::new().build()
    }
}

impl SimDevice {
    /// One MI210 ([`SimBuilder`] for more).
    pub fn new(b: SimBuilder) -> Self {
        let topology = SimTopology::generate(&TopologyConfig {
            board: b.board,
            gpus: b.gpus.unwrap_or(b.board.default_gpus()),
            vram: b.vram,
        });
        let gpus = topology
            .gpus
            .iter()
            .map(|node| Gpu {
                node: node.clone(),
                memory: GpuMemory::new(),
                doorbells: Arc::new(doorbell_page()),
                mmio: Arc::new(HostView::memfd("sim-mmio", 4096).expect("memfd for the MMIO page")),
                vm: Mutex::new(None),
                vram_used: AtomicU64::new(0),
                next_idr: AtomicU64::new(0),
                trap: Mutex::new((0, 0)),
                scratch_backing_va: AtomicU64::new(0),
            })
            .collect();
        let gpus_len = topology.gpus.len();
        let clock_origin = Instant::now();
        let shader_core: Option<Arc<dyn ShaderCore>> = b.interpreter.then(|| {
            let processor = match b.board {
                Board::Mi300x => isa::Processor::Gfx942,
                _ => isa::Processor::Gfx90a,
            };
            Arc::new(
                crate::shader::Interpreter::new(processor, b.workers)
                    .with_clock_origin(clock_origin),
            ) as Arc<dyn ShaderCore>
        });
        let inner = Arc::new(Inner {
            topology,
            gpus,
            process: Mutex::new(Process {
                next_offset: BO_MMAP_OFFSET_BASE,
                ..Process::default()
            }),
            events: Events::new(),
            doorbell_watch: DoorbellWatch::new(gpus_len, b.doorbell_watch),
            clock_origin,
            shader_core: RwLock::new(shader_core),
            ttmp_setup: AtomicBool::new(false),
            agent_handler: RwLock::new(None),
            render_nodes: Mutex::new(Vec::new()),
            workers: b.workers,
            smi: Mutex::new(Vec::new()),
            shutdown: AtomicBool::new(false),
            trace: crate::trace::Trace::open(b.trace.as_deref()),
        });
        // XNACK: a GPU's not-present fault may be recovered (`xnack_fault`).
        for (i, g) in inner.gpus.iter().enumerate() {
            let weak = Arc::downgrade(&inner);
            g.memory.set_fault_hook(Some(Arc::new(move |va| {
                weak.upgrade().is_some_and(|d| d.xnack_fault(i, va))
            })));
        }
        let cps: Vec<CommandProcessor> = (0..inner.gpus.len())
            .map(|i| CommandProcessor::start(Arc::clone(&inner), i, None))
            .collect();
        let sdmas = inner
            .gpus
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let n = g.node.spec.num_sdma_engines + g.node.spec.num_sdma_xgmi_engines;
                (0..n as usize)
                    .map(|e| CommandProcessor::start(Arc::clone(&inner), i, Some(e)))
                    .collect()
            })
            .collect::<Vec<Vec<CommandProcessor>>>();
        for (i, cp) in cps.iter().enumerate() {
            inner.doorbell_watch.add_waker(i, cp.waker());
        }
        for (i, engines) in sdmas.iter().enumerate() {
            for e in engines {
                inner.doorbell_watch.add_waker(i, e.waker());
            }
        }
        Self {
            inner,
            cps,
            sdmas,
            sdma_queues: AtomicU64::new(0),
        }
    }

    /// The topology tree (for [`kfd::topology::Topology::read`]).
    pub fn topology(&self) -> &SimTopology {
        &self.inner.topology
    }

    /// Installs the shader core that runs kernel dispatches.
    pub fn set_shader_core(&self, core: Arc<dyn ShaderCore>) {
        *self
            .inner
            .shader_core
            .write()
            .unwrap_or_else(|e| e.into_inner()) = Some(core);
    }

    /// Turns instruction coverage of the shader core on or off (see
    /// [`Coverage`](crate::Coverage)); false if the core keeps none.
    pub fn set_shader_coverage(&self, on: bool) -> bool {
        let core = self
            .inner
            .shader_core
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        core.is_some_and(|c| c.set_coverage(on))
    }

    /// What the shader core executed while coverage was on: every
    /// instruction with its count and fidelity (None if it keeps none).
    pub fn shader_coverage(&self) -> Option<crate::Coverage> {
        let core = self
            .inner
            .shader_core
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        core.and_then(|c| c.coverage())
    }

    /// Installs the handler of agent dispatch packets.
    pub fn set_agent_handler(&self, handler: Arc<dyn AgentHandler>) {
        *self
            .inner
            .agent_handler
            .write()
            .unwrap_or_else(|e| e.into_inner()) = Some(handler);
    }

    /// The GPU's view of memory (what its engines see), by `gpu_id`.
    pub fn gpu_memory(&self, gpu_id: u32) -> Option<GpuMemory> {
        let i = self.inner.gpu_index(gpu_id)?;
        Some(self.inner.gpus[i].memory.clone())
    }

    /// Why queue `queue_id` stopped, if it did (the CP's record; ROCr sees
    /// the code in `queue_inactive_signal`).
    pub fn queue_error(&self, queue_id: u32) -> Option<crate::cp::QueueError> {
        self.inner.lock().queues.get(&queue_id)?.last_error()
    }

    /// Packets queue `queue_id` completed so far.
    pub fn queue_completed(&self, queue_id: u32) -> Option<u64> {
        Some(self.inner.lock().queues.get(&queue_id)?.completed())
    }

    /// What the process last told the driver with
    /// `AMDKFD_IOC_RUNTIME_ENABLE` (what `KFD_IOC_DBG_TRAP_ENABLE` would
    /// report to a debugger).
    pub fn runtime_info(&self) -> RuntimeInfo {
        self.inner.lock().runtime
    }

    /// Host threads that execute waves.
    pub fn workers(&self) -> usize {
        self.inner.workers
    }

    /// The sizes CREATE_QUEUE checks for a compute queue of GPU `gpu_id`:
    /// `(ctl_stack_size, ctx_save_restore_size, bytes of the CWSR area)`.
    /// The first two are the node's `ctl_stack_size` and `cwsr_size`
    /// properties; the area adds `debug_memory_size` per XCC, page aligned
    /// (`kfd_queue_acquire_buffers`), as libhsakmt computes it.
    pub fn cwsr_sizes(&self, gpu_id: u32) -> Option<(u32, u32, u64)> {
        let spec = &self.inner.gpus[self.inner.gpu_index(gpu_id)?].node.spec;
        Some((
            spec.ctl_stack_size(),
            spec.cwsr_size(),
            spec.cwsr_area_size()?,
        ))
    }

    /// The thread that runs queue `q` of GPU `i`.
    fn engine_of(&self, i: usize, q: &QueueState) -> &CommandProcessor {
        match q.sdma_engine {
            Some(e) => &self.sdmas[i][e],
            None => &self.cps[i],
        }
    }

    /// CPU time all engine threads (command processors and SDMA engines)
    /// used so far.
    pub fn engines_cpu_time(&self) -> Option<std::time::Duration> {
        self.cps
            .iter()
            .chain(self.sdmas.iter().flatten())
            .map(CommandProcessor::cpu_time)
            .sum()
    }

    /// CPU time the command processor of GPU `index` used so far.
    pub fn cp_cpu_time(&self, index: usize) -> Option<std::time::Duration> {
        self.cps.get(index).and_then(CommandProcessor::cpu_time)
    }

    /// Issues a request by its raw code, as `ioctl(2)` on `/dev/kfd` would:
    /// the driver dispatches on the number alone, copies `_IOC_SIZE(code)`
    /// bytes in and out, and answers `ENOTTY` for a number it does not know.
    ///
    /// # Safety
    ///
    /// `arg` points to `_IOC_SIZE(code)` readable and writable bytes, and
    /// the user addresses inside the struct are valid as for
    /// [`KfdDevice::ioctl`].
    pub unsafe fn ioctl_raw(&self, code: Opcode, arg: *mut c_void) -> Result<c_int, Errno> {
        let t = &self.inner.trace;
        // SAFETY: our caller's contract: `_IOC_SIZE(code)` bytes at `arg`.
        let pre = unsafe { crate::trace::before(t, code, arg) };
        // SAFETY: forwarded.
        let r = unsafe { self.dispatch_raw(code, arg) };
        // SAFETY: as above.
        unsafe { crate::trace::after(t, crate::trace::Obj::Kfd, code, arg, pre, &r) };
        r
    }

    /// [`Self::ioctl_raw`] without the trace.
    ///
    /// # Safety
    ///
    /// As [`Self::ioctl_raw`].
    unsafe fn dispatch_raw(&self, code: Opcode, arg: *mut c_void) -> Result<c_int, Errno> {
        let nr = (code & 0xff) as u8;
        let usize_ = ((code >> 16) & 0x3fff) as usize;
        if (0x0d..=0x10).contains(&nr) {
            // The four deprecated debugger ioctls: kfd_ioctl_dbg_* return -EPERM.
            return Err(Errno::PERM);
        }
        let Some(info) = kfd::ioctl::by_number(nr) else {
            return Err(Errno::NOTTY);
        };
        let (copy_in, copy_out) = match info.direction {
            Direction::Read => (false, true),
            Direction::Write => (true, false),
            Direction::ReadWrite => (true, true),
        };
        // SAFETY: `arg` holds `_IOC_SIZE(code)` bytes (our caller's contract).
        let io = unsafe { Io::new(arg.cast(), usize_, copy_in, copy_out) };
        let d = &*self.inner;
        {
            match nr {
                0x01 => io.run(|a: &mut raw::GetVersionArgs| {
                    a.major_version = KFD_IOCTL_MAJOR_VERSION;
                    a.minor_version = KFD_IOCTL_MINOR_VERSION;
                    Ok(0)
                }),
                0x02 => io.run(|a| self.create_queue(a)),
                0x03 => io.run(|a: &mut raw::DestroyQueueArgs| self.destroy_queue(a.queue_id)),
                0x04 => io.run(|a| self.set_memory_policy(a)),
                0x05 => io.run(|a| {
                    self.clock_counters(a);
                    Ok(0)
                }),
                0x06 => io.run(|a| self.apertures_old(a)),
                0x07 => io.run(|a| self.update_queue(a)),
                0x08 => io.run(|a: &mut raw::CreateEventArgs| {
                    // dGPUs: the first signal event names the client's buffer
                    // that becomes the event page (kfd_kmap_event_page).
                    if a.event_page_offset != 0 {
                        self.event_page_from_bo(a.event_page_offset)?;
                    }
                    d.events.create(a).map(|()| 0)
                }),
                0x09 => {
                    io.run(|a: &mut raw::DestroyEventArgs| d.events.destroy(a.event_id).map(|()| 0))
                }
                0x0a => io.run(|a: &mut raw::SetEventArgs| d.events.set(a.event_id).map(|()| 0)),
                0x0b => {
                    io.run(|a: &mut raw::ResetEventArgs| d.events.reset(a.event_id).map(|()| 0))
                }
                0x0c => io.run(|a| self.wait_events(a)),
                0x11 => io.run(|a| self.set_scratch_backing_va(a)),
                0x12 => io.run(|a| self.tile_config(a)),
                0x13 => io.run(|a| self.set_trap_handler(a)),
                0x14 => io.run(|a| self.apertures_new(a)),
                0x15 => io.run(|a| self.acquire_vm(a)),
                0x16 => io.run(|a| self.alloc(a)),
                0x17 => io.run(|a: &mut raw::FreeMemoryOfGpuArgs| self.free(a.handle)),
                0x18 => io.run(|a| self.map_to_gpu(a)),
                0x19 => io.run(|a| self.unmap_from_gpu(a)),
                0x1a => io.run(|a| self.set_cu_mask(a)),
                0x1b => io.run(|a| self.wave_state(a)),
                0x1c => io.run(|a| self.dmabuf_info(a)),
                0x1d => io.run(|a| self.import_dmabuf(a)),
                0x1e => io.run(|a| self.alloc_queue_gws(a)),
                0x1f => io.run(|a| self.smi_events(a)),
                0x20 => io.run(|a| self.svm(a, arg.cast::<u8>())),
                0x21 => io.run(|a| self.set_xnack_mode(a)),
                // CRIU needs CAP_CHECKPOINT_RESTORE; the sim answers as to an
                // unprivileged process and checkpoints nothing.
                0x22 => Err(Errno::ACCESS),
                0x23 => io.run(|a| self.available_memory(a)),
                0x24 => io.run(|a| self.export_dmabuf(a)),
                0x25 => io.run(|a| self.runtime_enable(a)),
                0x26 => io.run(|a| self.dbg_trap(a)),
                _ => Err(Errno::NOTTY),
            }
        }
    }
}

impl Drop for SimDevice {
    fn drop(&mut self) {
        self.inner.shutdown.store(true, Ordering::Release);
        for cp in self.cps.drain(..) {
            cp.stop();
        }
        for engines in self.sdmas.drain(..) {
            for e in engines {
                e.stop();
            }
        }
    }
}

/// The caller's argument buffer and what the driver copies.
struct Io {
    arg: *mut u8,
    usize_: usize,
    copy_in: bool,
    copy_out: bool,
}

/// The plain-integer KFD argument structs: any bytes are a valid value.
///
/// # Safety
///
/// Implementation safety: `Self` is `repr(C)`, made of integers (and
/// unions of such structs), with no invalid bit pattern.
unsafe trait Pod: Copy + Default + 'static {}

macro_rules! pod {
    ($($t:ty),* $(,)?) => { $(
        // SAFETY: a `repr(C)` struct of integers from `kfd::ioctl::raw`.
        unsafe impl Pod for $t {}
    )* };
}

pod!(
    raw::GetVersionArgs,
    raw::CreateQueueArgs,
    raw::DestroyQueueArgs,
    raw::SetMemoryPolicyArgs,
    raw::GetClockCountersArgs,
    raw::GetProcessAperturesArgs,
    raw::UpdateQueueArgs,
    raw::CreateEventArgs,
    raw::DestroyEventArgs,
    raw::SetEventArgs,
    raw::ResetEventArgs,
    raw::WaitEventsArgs,
    raw::SetScratchBackingVaArgs,
    raw::GetTileConfigArgs,
    raw::SetTrapHandlerArgs,
    raw::GetProcessAperturesNewArgs,
    raw::AcquireVmArgs,
    raw::AllocMemoryOfGpuArgs,
    raw::FreeMemoryOfGpuArgs,
    raw::MapMemoryToGpuArgs,
    raw::UnmapMemoryFromGpuArgs,
    raw::SetCuMaskArgs,
    raw::GetQueueWaveStateArgs,
    raw::GetDmabufInfoArgs,
    raw::ImportDmabufArgs,
    raw::AllocQueueGwsArgs,
    raw::SmiEventsArgs,
    raw::SvmArgs,
    raw::SetXnackModeArgs,
    raw::GetAvailableMemoryArgs,
    raw::ExportDmabufArgs,
    raw::RuntimeEnableArgs,
    raw::DbgTrapArgs,
);

impl Io {
    /// # Safety
    ///
    /// `arg` holds `usize_` readable and writable bytes for the life of `Io`.
    unsafe fn new(arg: *mut u8, usize_: usize, copy_in: bool, copy_out: bool) -> Self {
        Self {
            arg,
            usize_,
            copy_in,
            copy_out,
        }
    }

    /// Copies the struct in (zero-extended, as the driver does for older,
    /// shorter structs), runs `f`, copies it back (also on failure).
    fn run<T: Pod>(&self, f: impl FnOnce(&mut T) -> Result<c_int, Errno>) -> Result<c_int, Errno> {
        let mut t = T::default();
        let n = self.usize_.min(std::mem::size_of::<T>());
        if self.copy_in {
            // SAFETY: `n` bytes are readable at `arg` (`Io::new`) and fit `t`.
            unsafe { std::ptr::copy_nonoverlapping(self.arg, (&raw mut t).cast::<u8>(), n) };
        }
        let r = f(&mut t);
        if self.copy_out {
            // SAFETY: `n` bytes are writable at `arg` (`Io::new`) and come from `t`.
            unsafe { std::ptr::copy_nonoverlapping((&raw const t).cast::<u8>(), self.arg, n) };
        }
        r
    }
}

fn fstat_id(fd: BorrowedFd<'_>) -> Result<(u64, u64), Errno> {
    let st = rustix::fs::fstat(fd)?;
    Ok((st.st_dev, st.st_ino))
}

/// A descriptor number from an ioctl argument, checked to be open
/// (the driver's `fget` fails otherwise).
fn user_fd(fd: u32) -> Option<BorrowedFd<'static>> {
    let raw = i32::try_from(fd).ok().filter(|f| *f >= 0)?;
    // SAFETY: the descriptor is only used for `fstat`/`dup` during this call;
    // a closed number makes those fail with EBADF, which we turn into EINVAL.
    let b = unsafe { BorrowedFd::borrow_raw(raw) };
    rustix::fs::fstat(b).ok().map(|_| b)
}

impl SimDevice {
    fn gpu(&self, gpu_id: u32) -> Result<usize, Errno> {
        self.inner.gpu_index(gpu_id).ok_or(Errno::INVAL)
    }

    fn create_queue(&self, a: &mut raw::CreateQueueArgs) -> Result<c_int, Errno> {
        let d = &*self.inner;
        if a.queue_percentage & 0xff > KFD_MAX_QUEUE_PERCENTAGE
            || a.queue_priority > KFD_MAX_QUEUE_PRIORITY
        {
            return Err(Errno::INVAL);
        }
        if !a.ring_size.is_power_of_two() && a.ring_size != 0 {
            return Err(Errno::INVAL);
        }
        if a.ring_size < KFD_MIN_QUEUE_RING_SIZE {
            a.ring_size = KFD_MIN_QUEUE_RING_SIZE;
        }
        let kind = match a.queue_type {
            KFD_IOC_QUEUE_TYPE_COMPUTE_AQL => QueueKind::Aql,
            KFD_IOC_QUEUE_TYPE_SDMA
            | KFD_IOC_QUEUE_TYPE_SDMA_XGMI
            | KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID => QueueKind::Sdma,
            // PM4 compute queues: the sim's CP speaks AQL only.
            KFD_IOC_QUEUE_TYPE_COMPUTE => return Err(Errno::from_raw_os_error(ENOTSUPP)),
            _ => return Err(Errno::from_raw_os_error(ENOTSUPP)),
        };
        let i = self.gpu(a.gpu_id)?;
        if !d.bound(i) {
            return Err(Errno::SRCH);
        }
        let gpu = &d.gpus[i];
        let spec = &gpu.node.spec;
        if a.queue_type == KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID
            && a.sdma_engine_id >= spec.num_sdma_engines + spec.num_sdma_xgmi_engines
        {
            return Err(Errno::INVAL);
        }
        let mut p = d.lock();
        // kfd_queue_acquire_buffers (kfd_queue.c): each buffer through
        // kfd_queue_buffer_get, in this order, every failure -EINVAL.
        let mut refs = Vec::new();
        let mut need = |va: u64, expected: u64| -> Result<(), Errno> {
            refs.push(queue_buffer(&p, i, va, expected).ok_or(Errno::INVAL)?);
            Ok(())
        };
        need(a.write_pointer_address, 4096)?;
        need(a.read_pointer_address, 4096)?;
        need(a.ring_base_address, u64::from(a.ring_size))?;
        // Only compute queues need the EOP buffer and the CWSR area.
        if kind == QueueKind::Aql {
            if a.eop_buffer_address != 0 {
                if a.eop_buffer_size != EOP_BUFFER_SIZE {
                    return Err(Errno::INVAL);
                }
                need(a.eop_buffer_address, a.eop_buffer_size)?;
            }
            // kfd_queue_acquire_buffers: the control stack exactly the
            // node's, the save area at least the node's ("not sufficient
            // for node cwsr size"), and the BO must span (the queue's save
            // area + debug memory) per XCC.
            if a.ctl_stack_size != spec.ctl_stack_size()
                || a.ctx_save_restore_size < spec.cwsr_size()
            {
                return Err(Errno::INVAL);
            }
            // The driver then tries an SVM range registered GPU_ALWAYS_MAPPED
            // (kfd_queue_buffer_svm_get); the sim keeps no such ranges.
            need(
                a.ctx_save_restore_address,
                spec.cwsr_area_size_for(a.ctx_save_restore_size)
                    .ok_or(Errno::INVAL)?,
            )?;
        }
        let qid = (0..MAX_QUEUES)
            .find(|q| !p.queues.contains_key(q))
            .ok_or(Errno::NOMEM)?;
        for h in &refs {
            if let Some(bo) = p.bos.get_mut(h) {
                *bo.queue_refs.entry(i).or_insert(0) += 1;
            }
        }
        // allocate_sdma_queue: PCIe engines for SDMA, XGMI engines (after
        // them) for SDMA_XGMI (none left: -ENOMEM), or the one named.
        let sdma_engine = if kind == QueueKind::Sdma {
            let n = self.sdma_queues.fetch_add(1, Ordering::Relaxed) as usize;
            let (pcie, xgmi) = (
                spec.num_sdma_engines as usize,
                spec.num_sdma_xgmi_engines as usize,
            );
            Some(match a.queue_type {
                KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID => a.sdma_engine_id as usize,
                KFD_IOC_QUEUE_TYPE_SDMA_XGMI if xgmi == 0 => return Err(Errno::NOMEM),
                KFD_IOC_QUEUE_TYPE_SDMA_XGMI => pcie + n % xgmi,
                _ if pcie == 0 => return Err(Errno::NOMEM),
                _ => n % pcie,
            })
        } else {
            None
        };
        let q = Arc::new(QueueState::new(
            qid,
            a.gpu_id,
            kind,
            sdma_engine,
            a,
            refs,
            // A process's doorbells: one 64-bit slot per queue id.
            qid as usize * 8,
        ));
        p.queues.insert(qid, Arc::clone(&q));
        drop(p);
        self.engine_of(i, &q).add_queue(Arc::clone(&q));
        a.queue_id = qid;
        a.doorbell_offset = KFD_MMAP_TYPE_DOORBELL | mmap_gpu_id(a.gpu_id) | (u64::from(qid) * 8);
        Ok(0)
    }

    fn destroy_queue(&self, qid: u32) -> Result<c_int, Errno> {
        let d = &*self.inner;
        let q = d.lock().queues.remove(&qid).ok_or(Errno::INVAL)?;
        let i = d.gpu_index(q.gpu_id).ok_or(Errno::INVAL)?;
        // Preempts the queue: returns once the CP no longer touches it.
        self.engine_of(i, &q).remove_queue(&q);
        let mut p = d.lock();
        for h in q.buffers() {
            unref_queue_buffer(&mut p, i, h);
        }
        Ok(0)
    }

    fn update_queue(&self, a: &mut raw::UpdateQueueArgs) -> Result<c_int, Errno> {
        if a.queue_percentage & 0xff > KFD_MAX_QUEUE_PERCENTAGE
            || a.queue_priority > KFD_MAX_QUEUE_PRIORITY
        {
            return Err(Errno::INVAL);
        }
        if !a.ring_size.is_power_of_two() && a.ring_size != 0 {
            return Err(Errno::INVAL);
        }
        if a.ring_size < KFD_MIN_QUEUE_RING_SIZE {
            a.ring_size = KFD_MIN_QUEUE_RING_SIZE;
        }
        let d = &*self.inner;
        let mut p = d.lock();
        // pqm_update_queue_properties: an unknown queue is -EFAULT.
        let q = p.queues.get(&a.queue_id).cloned().ok_or(Errno::FAULT)?;
        // A new ring must be a whole GPU mapping of `ring_size` bytes
        // (kfd_queue_buffer_get), else -EFAULT; the queue's reference moves
        // from the old ring BO to the new one. A null ring disables the queue.
        if a.ring_base_address != 0 && a.ring_size != 0 {
            let gi = d.gpu_index(q.gpu_id).ok_or(Errno::FAULT)?;
            let new = queue_buffer(&p, gi, a.ring_base_address, u64::from(a.ring_size))
                .ok_or(Errno::FAULT)?;
            if let Some(bo) = p.bos.get_mut(&new) {
                *bo.queue_refs.entry(gi).or_insert(0) += 1;
            }
            if let Some(old) = q.replace_ring_buffer(new) {
                unref_queue_buffer(&mut p, gi, old);
            }
        }
        drop(p);
        q.update(
            a.ring_base_address,
            a.ring_size,
            a.queue_percentage & 0xff,
            a.queue_priority,
        );
        // A queue (re)enabled with packets already behind its doorbell: the
        // engine may be in a long idle sleep, have it look now.
        if let Some(gi) = d.gpu_index(q.gpu_id) {
            self.engine_of(gi, &q).kick();
        }
        Ok(0)
    }

    fn set_cu_mask(&self, a: &mut raw::SetCuMaskArgs) -> Result<c_int, Errno> {
        if a.num_cu_mask % 32 != 0 || a.num_cu_mask == 0 {
            return Err(Errno::INVAL);
        }
        let bits = a.num_cu_mask.min(1024);
        let words = bits as usize / 32;
        let mut mask = vec![0u32; words];
        if a.cu_mask_ptr == 0 {
            return Err(Errno::FAULT);
        }
        // SAFETY: the caller's contract: `num_cu_mask / 32` words at `cu_mask_ptr`.
        unsafe {
            std::ptr::copy_nonoverlapping(a.cu_mask_ptr as *const u32, mask.as_mut_ptr(), words)
        };
        let q = self
            .inner
            .lock()
            .queues
            .get(&a.queue_id)
            .cloned()
            .ok_or(Errno::FAULT)?;
        q.set_cu_mask(mask);
        // A dispatch waiting for a CU may run now.
        if let Some(gi) = self.inner.gpu_index(q.gpu_id) {
            self.engine_of(gi, &q).kick();
        }
        Ok(0)
    }

    fn wave_state(&self, a: &mut raw::GetQueueWaveStateArgs) -> Result<c_int, Errno> {
        let q = self
            .inner
            .lock()
            .queues
            .get(&a.queue_id)
            .cloned()
            .ok_or(Errno::FAULT)?;
        // dqm get_wave_state: compute queues only, and not while active.
        if q.kind != QueueKind::Aql || q.is_active() {
            return Err(Errno::INVAL);
        }
        // Waves run to completion in the sim: nothing was saved.
        a.ctl_stack_used_size = 0;
        a.save_area_used_size = 0;
        Ok(0)
    }

    fn alloc_queue_gws(&self, a: &mut raw::AllocQueueGwsArgs) -> Result<c_int, Errno> {
        if !self.inner.lock().queues.contains_key(&a.queue_id) {
            return Err(Errno::INVAL);
        }
        a.first_gws = 0;
        Ok(0)
    }

    fn set_memory_policy(&self, a: &mut raw::SetMemoryPolicyArgs) -> Result<c_int, Errno> {
        let ok = |p| p == KFD_IOC_CACHE_POLICY_COHERENT || p == KFD_IOC_CACHE_POLICY_NONCOHERENT;
        if !ok(a.default_policy) || !ok(a.alternate_policy) {
            return Err(Errno::INVAL);
        }
        let i = self.gpu(a.gpu_id)?;
        if !self.inner.bound(i) {
            return Err(Errno::SRCH);
        }
        Ok(0)
    }

    fn clock_counters(&self, a: &mut raw::GetClockCountersArgs) {
        let d = &*self.inner;
        a.gpu_clock_counter = if d.gpu_index(a.gpu_id).is_some() {
            d.gpu_clock()
        } else {
            0
        };
        let ts = |id| {
            let t = rustix::time::clock_gettime(id);
            (t.tv_sec as u64)
                .wrapping_mul(1_000_000_000)
                .wrapping_add(t.tv_nsec as u64)
        };
        a.cpu_clock_counter = ts(rustix::time::ClockId::MonotonicRaw);
        a.system_clock_counter = ts(rustix::time::ClockId::Boottime);
        a.system_clock_freq = 1_000_000_000;
    }

    fn aperture(&self, i: usize) -> raw::ProcessDeviceApertures {
        let g = &self.inner.gpus[i];
        raw::ProcessDeviceApertures {
            lds_base: LDS_BASE_V9,
            lds_limit: LDS_BASE_V9 | 0xffff_ffff,
            scratch_base: SCRATCH_BASE_V9,
            scratch_limit: SCRATCH_BASE_V9 | 0xffff_ffff,
            gpuvm_base: GPUVM_BASE,
            gpuvm_limit: GPUVM_LIMIT,
            gpu_id: g.node.gpu_id,
            pad: 0,
        }
    }

    fn apertures_old(&self, a: &mut raw::GetProcessAperturesArgs) -> Result<c_int, Errno> {
        a.num_of_nodes = 0;
        for i in 0..self.inner.gpus.len().min(NUM_OF_SUPPORTED_GPUS as usize) {
            a.process_apertures[i] = self.aperture(i);
            a.num_of_nodes += 1;
        }
        Ok(0)
    }

    fn apertures_new(&self, a: &mut raw::GetProcessAperturesNewArgs) -> Result<c_int, Errno> {
        let n = self.inner.gpus.len() as u32;
        if a.num_of_nodes == 0 {
            a.num_of_nodes = n;
            return Ok(0);
        }
        let count = n.min(a.num_of_nodes);
        let out = a.kfd_process_device_apertures_ptr as *mut raw::ProcessDeviceApertures;
        if out.is_null() {
            return Err(Errno::FAULT);
        }
        for i in 0..count as usize {
            let entry = out.wrapping_add(i);
            // SAFETY: the caller's array holds `num_of_nodes >= count` entries.
            unsafe { entry.write_unaligned(self.aperture(i)) };
        }
        a.num_of_nodes = count;
        Ok(0)
    }

    fn set_scratch_backing_va(&self, a: &mut raw::SetScratchBackingVaArgs) -> Result<c_int, Errno> {
        let i = self.gpu(a.gpu_id)?;
        if !self.inner.bound(i) {
            return Err(Errno::NODEV);
        }
        self.inner.gpus[i]
            .scratch_backing_va
            .store(a.va_addr, Ordering::Relaxed);
        Ok(0)
    }

    fn set_trap_handler(&self, a: &mut raw::SetTrapHandlerArgs) -> Result<c_int, Errno> {
        // Dispatches read it back through `Gpu::trap_handler`.
        let i = self.gpu(a.gpu_id)?;
        if !self.inner.bound(i) {
            return Err(Errno::SRCH);
        }
        *self.inner.gpus[i]
            .trap
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = (a.tba_addr, a.tma_addr);
        Ok(0)
    }

    fn tile_config(&self, a: &mut raw::GetTileConfigArgs) -> Result<c_int, Errno> {
        self.gpu(a.gpu_id)?;
        // GFX9 has no tiling tables: 32 and 16 zero entries (amdgpu's arrays).
        a.gb_addr_config = GB_ADDR_CONFIG_GFX90A;
        a.num_banks = 16;
        a.num_ranks = 1;
        a.num_tile_configs = a.num_tile_configs.min(32);
        a.num_macro_tile_configs = a.num_macro_tile_configs.min(16);
        // kfd_ioctl_get_tile_config: a failed copy zeroes that count, -EFAULT.
        for macro_ in [false, true] {
            let (ptr, n) = if macro_ {
                (a.macro_tile_config_ptr, &mut a.num_macro_tile_configs)
            } else {
                (a.tile_config_ptr, &mut a.num_tile_configs)
            };
            if *n > 0 {
                if ptr == 0 {
                    *n = 0;
                    return Err(Errno::FAULT);
                }
                // SAFETY: the caller's arrays hold at least the counts it passed.
                unsafe { std::ptr::write_bytes(ptr as *mut u32, 0, *n as usize) };
            }
        }
        Ok(0)
    }

    fn acquire_vm(&self, a: &mut raw::AcquireVmArgs) -> Result<c_int, Errno> {
        let d = &*self.inner;
        let fd = user_fd(a.drm_fd).ok_or(Errno::INVAL)?;
        let i = self.gpu(a.gpu_id)?;
        let id = fstat_id(fd).map_err(|_| Errno::INVAL)?;
        let minor = d
            .render_nodes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|(_, dev, ino)| (*dev, *ino) == id)
            .map(|(m, _, _)| *m);
        let _acquire = d.render_nodes.lock().unwrap_or_else(|e| e.into_inner());
        let vm_of = |g: &Gpu| *g.vm.lock().unwrap_or_else(|e| e.into_inner());
        // kfd_ioctl_acquire_vm: a VM already acquired is 0 for the same file,
        // -EBUSY for another.
        if let Some(have) = vm_of(&d.gpus[i]) {
            return if have == id { Ok(0) } else { Err(Errno::BUSY) };
        }
        // amdgpu_file_to_fpriv: not an amdgpu DRM file, -EINVAL. The driver
        // does not check which GPU the render node belongs to.
        if minor.is_none() {
            return Err(Errno::INVAL);
        }
        // amdgpu_amdkfd_gpuvm_acquire_process_vm: "Already a compute VM?"
        // (the file's VM was acquired for another GPU) -EINVAL.
        if d.gpus.iter().any(|g| vm_of(g) == Some(id)) {
            return Err(Errno::INVAL);
        }
        *d.gpus[i].vm.lock().unwrap_or_else(|e| e.into_inner()) = Some(id);
        Ok(0)
    }

    fn available_memory(&self, a: &mut raw::GetAvailableMemoryArgs) -> Result<c_int, Errno> {
        let i = self.gpu(a.gpu_id)?;
        let g = &self.inner.gpus[i];
        let free = g
            .node
            .spec
            .vram
            .saturating_sub(g.vram_used.load(Ordering::Relaxed));
        // amdgpu_amdkfd_get_available_memory rounds down to 2 MiB.
        a.available = free & !((1 << 21) - 1);
        Ok(0)
    }

    fn alloc(&self, a: &mut raw::AllocMemoryOfGpuArgs) -> Result<c_int, Errno> {
        let d = &*self.inner;
        if a.size == 0 {
            return Err(Errno::INVAL);
        }
        let flags = a.flags;
        let i = self.gpu(a.gpu_id)?;
        if !d.bound(i) {
            return Err(Errno::NODEV);
        }
        let g = &d.gpus[i];
        let size = page_align(a.size).ok_or(Errno::INVAL)?;
        let mut offset = a.mmap_offset;
        let (view, file_id) = if flags & KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL != 0 {
            if a.size != DOORBELL_PROCESS_SLICE as u64 {
                return Err(Errno::INVAL);
            }
            offset = KFD_MMAP_TYPE_DOORBELL | mmap_gpu_id(a.gpu_id);
            (Arc::clone(&g.doorbells), None)
        } else if flags & KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP != 0 {
            if a.size != 4096 {
                return Err(Errno::INVAL);
            }
            (Arc::clone(&g.mmio), None)
        } else if flags & KFD_IOC_ALLOC_MEM_FLAGS_USERPTR != 0 {
            if offset == 0 || offset % 4096 != 0 {
                return Err(Errno::INVAL);
            }
            let ptr = NonNull::new(offset as usize as *mut u8).ok_or(Errno::INVAL)?;
            // SAFETY: `alloc_userptr_memory_of_gpu`'s contract: the client keeps
            // these pages mapped and shared with the GPU until the BO is freed.
            let v = unsafe { HostView::borrowed(ptr, size as usize) };
            (Arc::new(v), None)
        } else if flags & (KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_GTT) != 0 {
            if flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM != 0 {
                let charge = if flags & KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM != 0 {
                    page_align(a.size >> 1).ok_or(Errno::INVAL)?
                } else {
                    size
                };
                let used = g.vram_used.fetch_add(charge, Ordering::Relaxed);
                if used.saturating_add(charge) > g.node.spec.vram {
                    g.vram_used.fetch_sub(charge, Ordering::Relaxed);
                    return Err(Errno::NOMEM);
                }
            }
            let len = usize::try_from(size).map_err(|_| Errno::NOMEM)?;
            let v = HostView::memfd("sim-bo", len).map_err(|_| Errno::NOMEM)?;
            let id = v.fd().map(fstat_id).transpose()?;
            (Arc::new(v), id)
        } else {
            return Err(Errno::INVAL);
        };
        let mut p = d.lock();
        if flags & (KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_GTT) != 0 {
            offset = p.next_offset;
            p.next_offset = p.next_offset.saturating_add(size);
        }
        let idr = g.next_idr.fetch_add(1, Ordering::Relaxed);
        let handle = (u64::from(a.gpu_id) << 32) | (idr & 0xffff_ffff);
        p.offsets.insert(offset, handle);
        p.bos.insert(
            handle,
            Bo {
                gpu_index: i,
                size,
                va: a.va_addr,
                flags,
                view,
                mmap_offset: offset,
                mapped_on: BTreeSet::new(),
                queue_refs: BTreeMap::new(),
                file_id,
            },
        );
        a.handle = handle;
        a.mmap_offset = if flags & KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP != 0 {
            KFD_MMAP_TYPE_MMIO | mmap_gpu_id(a.gpu_id)
        } else {
            offset
        };
        Ok(0)
    }

    fn free(&self, handle: u64) -> Result<c_int, Errno> {
        let d = &*self.inner;
        if d.events.page_handle() == Some(handle) {
            return Err(Errno::PERM);
        }
        self.gpu((handle >> 32) as u32)?;
        let mut p = d.lock();
        let bo = p.bos.get(&handle).ok_or(Errno::INVAL)?;
        // amdgpu_amdkfd_gpuvm_free_memory_of_gpu: a BO still mapped to any
        // GPU is -EBUSY (one a queue uses cannot be unmapped, so it stays).
        if !bo.mapped_on.is_empty() {
            return Err(Errno::BUSY);
        }
        let bo = p.bos.remove(&handle).ok_or(Errno::INVAL)?;
        if p.offsets.get(&bo.mmap_offset) == Some(&handle) {
            p.offsets.remove(&bo.mmap_offset);
        }
        drop(p);
        if bo.flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM != 0 {
            let charge = if bo.flags & KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM != 0 {
                page_align(bo.size >> 1).unwrap_or(bo.size)
            } else {
                bo.size
            };
            d.gpus[bo.gpu_index]
                .vram_used
                .fetch_sub(charge, Ordering::Relaxed);
        }
        Ok(0)
    }

    fn device_ids(ptr: u64, n: u32) -> Result<Vec<u32>, Errno> {
        if ptr == 0 {
            return Err(Errno::FAULT);
        }
        let mut ids = vec![0u32; n as usize];
        // SAFETY: the caller's contract: `n` ids at `ptr`.
        unsafe { std::ptr::copy_nonoverlapping(ptr as *const u32, ids.as_mut_ptr(), ids.len()) };
        Ok(ids)
    }

    fn map_to_gpu(&self, a: &mut raw::MapMemoryToGpuArgs) -> Result<c_int, Errno> {
        let d = &*self.inner;
        if a.n_devices == 0 || a.n_success > a.n_devices {
            return Err(Errno::INVAL);
        }
        let ids = Self::device_ids(a.device_ids_array_ptr, a.n_devices)?;
        let owner = self.gpu((a.handle >> 32) as u32)?;
        if !d.bound(owner) {
            return Err(Errno::NODEV);
        }
        let mut p = d.lock();
        if !p.bos.contains_key(&a.handle) {
            return Err(Errno::NOMEM);
        }
        for (k, id) in ids.iter().enumerate().skip(a.n_success as usize) {
            let gi = d.gpu_index(*id).ok_or(Errno::INVAL)?;
            if !d.bound(gi) {
                return Err(Errno::NODEV);
            }
            let bo = p.bos.get_mut(&a.handle).ok_or(Errno::NOMEM)?;
            // amdgpu_amdkfd_gpuvm_map_memory_to_gpu skips an attachment
            // that is already mapped: mapping twice succeeds.
            if !bo.mapped_on.contains(&gi) {
                map_bo(&d.gpus[gi].memory, bo)?;
                bo.mapped_on.insert(gi);
            }
            a.n_success = k as u32 + 1;
        }
        Ok(0)
    }

    fn unmap_from_gpu(&self, a: &mut raw::UnmapMemoryFromGpuArgs) -> Result<c_int, Errno> {
        let d = &*self.inner;
        if a.n_devices == 0 || a.n_success > a.n_devices {
            return Err(Errno::INVAL);
        }
        let ids = Self::device_ids(a.device_ids_array_ptr, a.n_devices)?;
        self.gpu((a.handle >> 32) as u32)?;
        let mut p = d.lock();
        if !p.bos.contains_key(&a.handle) {
            return Err(Errno::NOMEM);
        }
        for (k, id) in ids.iter().enumerate().skip(a.n_success as usize) {
            let gi = d.gpu_index(*id).ok_or(Errno::INVAL)?;
            let bo = p.bos.get_mut(&a.handle).ok_or(Errno::NOMEM)?;
            // amdgpu_amdkfd_gpuvm_unmap_memory_from_gpu: not mapped in that
            // VM is -EINVAL; a mapping a queue uses (queue_refcount) -EBUSY.
            if !bo.mapped_on.contains(&gi) {
                return Err(Errno::INVAL);
            }
            if bo.queue_refs.get(&gi).is_some_and(|n| *n > 0) {
                return Err(Errno::BUSY);
            }
            bo.mapped_on.remove(&gi);
            unmap_bo(&d.gpus[gi].memory, bo);
            a.n_success = k as u32 + 1;
        }
        Ok(0)
    }

    fn export_dmabuf(&self, a: &mut raw::ExportDmabufArgs) -> Result<c_int, Errno> {
        self.gpu((a.handle >> 32) as u32)?;
        let p = self.inner.lock();
        let bo = p.bos.get(&a.handle).ok_or(Errno::INVAL)?;
        // amdgpu_gem_prime_export refuses userptr BOs with -EPERM.
        if bo.flags & KFD_IOC_ALLOC_MEM_FLAGS_USERPTR != 0 {
            return Err(Errno::PERM);
        }
        // The sim has no dma-buf for the doorbell and MMIO pages: -EINVAL.
        let fd = bo
            .view
            .fd()
            .filter(|_| bo.file_id.is_some())
            .ok_or(Errno::INVAL)?;
        let new = if a.flags & rustix::fs::OFlags::CLOEXEC.bits() != 0 {
            rustix::io::fcntl_dupfd_cloexec(fd, 0)?
        } else {
            rustix::io::dup(fd)?
        };
        a.dmabuf_fd = new.as_raw_fd() as u32;
        std::mem::forget(new);
        Ok(0)
    }

    /// The BO an exported descriptor refers to, by its file identity.
    fn bo_by_file(&self, p: &Process, id: (u64, u64)) -> Option<u64> {
        p.bos
            .iter()
            .find(|(_, b)| b.file_id == Some(id))
            .map(|(h, _)| *h)
    }

    fn dmabuf_info(&self, a: &mut raw::GetDmabufInfoArgs) -> Result<c_int, Errno> {
        let d = &*self.inner;
        if d.gpus.is_empty() {
            return Err(Errno::INVAL);
        }
        let fd = user_fd(a.dmabuf_fd).ok_or(Errno::BADF)?;
        let id = fstat_id(fd)?;
        let p = d.lock();
        if let Some(h) = self.bo_by_file(&p, id) {
            let bo = &p.bos[&h];
            a.size = bo.size;
            a.gpu_id = d.gpus[bo.gpu_index].node.gpu_id;
            a.flags = bo.flags;
        } else {
            // A dma-buf from elsewhere (another process's sim): a memfd.
            rustix::fs::fcntl_get_seals(fd).map_err(|_| Errno::INVAL)?;
            a.size = rustix::fs::fstat(fd)?.st_size as u64;
            a.gpu_id = d.gpus[0].node.gpu_id;
            a.flags = KFD_IOC_ALLOC_MEM_FLAGS_GTT | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE;
        }
        // No metadata is attached to sim buffers.
        a.metadata_size = 0;
        Ok(0)
    }

    fn import_dmabuf(&self, a: &mut raw::ImportDmabufArgs) -> Result<c_int, Errno> {
        let d = &*self.inner;
        let i = self.gpu(a.gpu_id)?;
        if !d.bound(i) {
            return Err(Errno::NODEV);
        }
        let fd = user_fd(a.dmabuf_fd).ok_or(Errno::BADF)?;
        let id = fstat_id(fd)?;
        let mut p = d.lock();
        let (view, size, flags) = match self.bo_by_file(&p, id) {
            Some(h) => {
                let bo = &p.bos[&h];
                (Arc::clone(&bo.view), bo.size, bo.flags)
            }
            None => {
                rustix::fs::fcntl_get_seals(fd).map_err(|_| Errno::INVAL)?;
                let size = rustix::fs::fstat(fd)?.st_size as u64;
                let len = usize::try_from(size)
                    .ok()
                    .filter(|l| *l > 0)
                    .ok_or(Errno::INVAL)?;
                let own = rustix::io::fcntl_dupfd_cloexec(fd, 0)?;
                let v = HostView::map_fd_keep(own, len).map_err(|_| Errno::INVAL)?;
                (
                    Arc::new(v),
                    size,
                    KFD_IOC_ALLOC_MEM_FLAGS_GTT | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE,
                )
            }
        };
        let offset = p.next_offset;
        p.next_offset = p.next_offset.saturating_add(size);
        let idr = d.gpus[i].next_idr.fetch_add(1, Ordering::Relaxed);
        let handle = (u64::from(a.gpu_id) << 32) | (idr & 0xffff_ffff);
        p.offsets.insert(offset, handle);
        p.bos.insert(
            handle,
            Bo {
                gpu_index: i,
                size,
                va: a.va_addr,
                flags: flags & !KFD_IOC_ALLOC_MEM_FLAGS_VRAM,
                view,
                mmap_offset: offset,
                mapped_on: BTreeSet::new(),
                queue_refs: BTreeMap::new(),
                file_id: None,
            },
        );
        a.handle = handle;
        Ok(0)
    }

    fn smi_events(&self, a: &mut raw::SmiEventsArgs) -> Result<c_int, Errno> {
        self.gpu(a.gpuid)?;
        let (ours, theirs) = rustix::net::socketpair(
            rustix::net::AddressFamily::UNIX,
            rustix::net::SocketType::STREAM,
            rustix::net::SocketFlags::CLOEXEC,
            None,
        )?;
        self.inner
            .smi
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(ours);
        a.anon_fd = theirs.as_raw_fd() as u32;
        std::mem::forget(theirs);
        Ok(0)
    }

    /// `kfd_ioctl_svm`: `SET_ATTR` and `GET_ATTR` over the process's SVM
    /// range list (`crate::svm`), `KFD_IOCTL_SVM_ATTR_PREFETCH_LOC`
    /// recorded (the pages stay where they are: the sim's VRAM and system
    /// memory are both host memory, so a migration has nothing to move).
    fn svm(&self, a: &mut raw::SvmArgs, arg: *mut u8) -> Result<c_int, Errno> {
        if a.start_addr % 4096 != 0 || a.size % 4096 != 0 || a.start_addr == 0 || a.size == 0 {
            return Err(Errno::INVAL);
        }
        let end = a.start_addr.checked_add(a.size).ok_or(Errno::INVAL)?;
        let n = a.nattr as usize;
        if arg.is_null() {
            return Err(Errno::FAULT);
        }
        let first = arg
            .wrapping_add(std::mem::size_of::<raw::SvmArgs>())
            .cast::<raw::SvmAttribute>();
        // SAFETY: the caller's contract: `nattr` pairs follow the header.
        let attrs = unsafe { std::slice::from_raw_parts_mut(first, n) };
        let d = &*self.inner;
        let gpu_index = |v: u32| d.gpu_index(v);
        if a.op == KFD_IOCTL_SVM_OP_SET_ATTR {
            crate::svm::check_attrs(attrs, &gpu_index)?;
        }
        // svm_range_is_valid: the range must be mapped memory of the process.
        // SAFETY: msync only inspects the mapping; an unmapped range is ENOMEM.
        let mapped = unsafe {
            rustix::mm::msync(
                a.start_addr as usize as *mut c_void,
                a.size as usize,
                rustix::mm::MsyncFlags::ASYNC,
            )
        };
        if mapped.is_err() {
            return Err(Errno::FAULT);
        }
        let all_gpus =
            (0..d.gpus.len()).fold(0u64, |m, i| m | 1u64.checked_shl(i as u32).unwrap_or(0));
        let mut p = d.lock();
        // svm_range_new: with XNACK every GPU reaches a new range.
        let default_access = if p.xnack { all_gpus } else { 0 };
        match a.op {
            KFD_IOCTL_SVM_OP_SET_ATTR => {
                let (lo, hi) = p.svm.span(a.start_addr, end);
                p.svm
                    .set(a.start_addr, end, attrs, default_access, &gpu_index);
                d.map_svm(&mut p, lo, hi)?;
                Ok(0)
            }
            KFD_IOCTL_SVM_OP_GET_ATTR => {
                p.svm.get(
                    a.start_addr,
                    end,
                    attrs,
                    default_access,
                    all_gpus,
                    &gpu_index,
                )?;
                Ok(0)
            }
            _ => Err(Errno::INVAL),
        }
    }

    fn set_xnack_mode(&self, a: &mut raw::SetXnackModeArgs) -> Result<c_int, Errno> {
        let mut p = self.inner.lock();
        if a.xnack_enabled >= 0 {
            if !p.queues.is_empty() {
                return Err(Errno::BUSY);
            }
            p.xnack = a.xnack_enabled != 0;
        } else {
            a.xnack_enabled = i32::from(p.xnack);
        }
        Ok(0)
    }

    fn runtime_enable(&self, a: &mut raw::RuntimeEnableArgs) -> Result<c_int, Errno> {
        let mut p = self.inner.lock();
        // kfd_ioctl_runtime_enable -> runtime_enable: -EBUSY unless disabled,
        // -EEXIST if the process has queues; the r_debug address and the
        // TTMP setup are recorded; runtime_disable always succeeds and
        // clears them.
        if a.mode_mask & KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK != 0 {
            if p.runtime.enabled {
                return Err(Errno::BUSY);
            }
            if !p.queues.is_empty() {
                return Err(Errno::EXIST);
            }
            let ttmp_setup = a.mode_mask & KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK != 0;
            p.runtime = RuntimeInfo {
                r_debug: a.r_debug,
                enabled: true,
                ttmp_setup,
            };
            self.inner.ttmp_setup.store(ttmp_setup, Ordering::Release);
        } else {
            p.runtime = RuntimeInfo::default();
            self.inner.ttmp_setup.store(false, Ordering::Release);
        }
        // No core dumps (HSA_RUNTIME_ENABLE_CAPS_SUPPORTS_CORE_DUMP_MASK).
        a.capabilities_mask = 0;
        Ok(0)
    }

    fn dbg_trap(&self, a: &mut raw::DbgTrapArgs) -> Result<c_int, Errno> {
        if a.pid != std::process::id() {
            // Not our process, and nothing ptraces: no target to debug.
            return Err(Errno::SRCH);
        }
        if a.op != KFD_IOC_DBG_TRAP_ENABLE {
            // "not debug enabled for op".
            return Err(Errno::INVAL);
        }
        // The sim has no debugger support (trap handler, wave control).
        Err(Errno::PERM)
    }

    fn wait_events(&self, a: &mut raw::WaitEventsArgs) -> Result<c_int, Errno> {
        // The client blocks on the GPU: make sure the CPs are looking.
        for cp in self.cps.iter().chain(self.sdmas.iter().flatten()) {
            cp.kick();
        }
        let n = a.num_events as usize;
        // SAFETY: the caller's contract: `num_events` entries at `events_ptr`,
        // exclusively ours for the call.
        let events =
            unsafe { std::slice::from_raw_parts_mut(a.events_ptr as *mut raw::EventData, n) };
        match self
            .inner
            .events
            .wait(events, a.wait_for_all != 0, a.timeout)
        {
            Ok(r) => {
                a.wait_result = r;
                Ok(0)
            }
            Err(e) => {
                a.wait_result = KFD_IOC_WAIT_RESULT_FAIL;
                Err(e)
            }
        }
    }
}

/// `kfd_queue_buffer_get`: the handle of the BO whose mapping on GPU `gi`
/// holds `va`, if that mapping starts on `va`'s GPU page and, for an
/// `expected` size of a page or more, spans exactly `expected` bytes.
fn queue_buffer(p: &Process, gi: usize, va: u64, expected: u64) -> Option<u64> {
    let (h, b) = p
        .bos
        .iter()
        .find(|(_, b)| b.mapped_on.contains(&gi) && b.va <= va && va - b.va < b.size)?;
    let (start, last) = (b.va >> 12, (b.va + b.size - 1) >> 12);
    let pages = expected >> 12;
    (va >> 12 == start && (pages == 0 || start + pages - 1 == last)).then_some(*h)
}

/// `kfd_queue_unref_bo_va`: a queue lets go of a BO on GPU `gi`.
fn unref_queue_buffer(p: &mut Process, gi: usize, h: u64) {
    if let Some(n) = p.bos.get_mut(&h).and_then(|bo| bo.queue_refs.get_mut(&gi)) {
        *n = n.saturating_sub(1);
    }
}

fn map_bo(mem: &GpuMemory, bo: &Bo) -> Result<(), Errno> {
    let mut map = mem.map().write().unwrap_or_else(|e| e.into_inner());
    let copies = if bo.flags & KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM != 0 {
        2
    } else {
        1
    };
    let writable = bo.flags & KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE != 0;
    let len = (bo.view.len() as u64).min(bo.size);
    for c in 0..copies {
        let start = bo.va.checked_add(bo.size * c).ok_or(Errno::INVAL)?;
        let end = start.checked_add(len).ok_or(Errno::INVAL)?;
        if start < GPUVM_BASE
            || end > GPUVM_LIMIT + 1
            || !map.insert(
                start,
                VaRange {
                    end,
                    view: Arc::clone(&bo.view),
                    view_offset: 0,
                    writable,
                },
            )
        {
            if c == 1 {
                map.remove(bo.va);
            }
            // amdgpu_vm_bo_map: outside the VM or overlapping another mapping.
            return Err(Errno::INVAL);
        }
    }
    Ok(())
}

fn unmap_bo(mem: &GpuMemory, bo: &Bo) {
    let mut map = mem.map().write().unwrap_or_else(|e| e.into_inner());
    map.remove(bo.va);
    if bo.flags & KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM != 0 {
        map.remove(bo.va + bo.size);
    }
}

// SAFETY: `ioctl` accesses the argument struct and the arrays its fields
// describe, as the driver does (via `ioctl_raw`, which copies exactly
// `_IOC_SIZE` bytes); mappings are real `mmap`s of memfds the device owns,
// exactly `len` bytes, valid until `munmap`.
unsafe impl KfdDevice for SimDevice {
    unsafe fn ioctl<T: 'static>(&self, ioctl: &Ioctl<T>, arg: *mut T) -> Result<c_int, Errno> {
        // SAFETY: the descriptor's code carries `size_of::<T>()`, and `arg`
        // is a valid `T` (our caller's contract).
        unsafe { self.ioctl_raw(ioctl.code(), arg.cast()) }
    }

    fn mmap(&self, len: NonZeroUsize, offset: u64) -> Result<NonNull<u8>, Errno> {
        let r = self
            .kfd_mmap_target(len.get(), offset)
            .and_then(|view| map_view(&view, len, None));
        if let Ok(p) = r {
            self.watch_doorbells(offset, p, len);
        }
        self.inner
            .trace
            .mmap(crate::trace::Obj::Kfd, false, len, offset, &r);
        r
    }

    unsafe fn munmap(&self, addr: NonNull<u8>, len: NonZeroUsize) -> Result<(), Errno> {
        self.inner.doorbell_watch.unregister(addr.as_ptr() as u64);
        // SAFETY: the caller passes a mapping we made and no longer uses.
        unsafe { rustix::mm::munmap(addr.as_ptr().cast(), len.get()) }
    }

    unsafe fn mmap_fixed(
        &self,
        addr: NonNull<u8>,
        len: NonZeroUsize,
        offset: u64,
    ) -> Result<NonNull<u8>, Errno> {
        self.inner.doorbell_watch.unregister(addr.as_ptr() as u64);
        let r = self
            .kfd_mmap_target(len.get(), offset)
            .and_then(|view| map_view(&view, len, Some(addr)));
        if let Ok(p) = r {
            self.watch_doorbells(offset, p, len);
        }
        self.inner
            .trace
            .mmap(crate::trace::Obj::Kfd, true, len, offset, &r);
        r
    }

    type RenderNode = SimRenderNode;

    fn open_render_node(&self, minor: u32) -> Result<SimRenderNode, Errno> {
        let r = self.open_render_node_untraced(minor);
        self.inner
            .trace
            .open_render_node(minor, r.as_ref().map(|_| ()));
        r
    }
}

impl SimDevice {
    fn open_render_node_untraced(&self, minor: u32) -> Result<SimRenderNode, Errno> {
        let gpu = self
            .inner
            .gpus
            .iter()
            .position(|g| g.node.drm_render_minor == minor)
            .ok_or(Errno::NOENT)?;
        let fd = rustix::fs::memfd_create(
            format!("sim-renderD{minor}"),
            rustix::fs::MemfdFlags::CLOEXEC,
        )?;
        let id = fstat_id(fd.as_fd())?;
        self.inner
            .render_nodes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((minor, id.0, id.1));
        Ok(SimRenderNode {
            fd,
            inner: Arc::clone(&self.inner),
            gpu,
        })
    }
}

impl SimDevice {
    /// A client mapping of a doorbell page is watched for stores
    /// (`doorbell.rs`).
    fn watch_doorbells(&self, offset: u64, p: NonNull<u8>, len: NonZeroUsize) {
        if offset & KFD_MMAP_TYPE_MASK == KFD_MMAP_TYPE_DOORBELL {
            let gpu_id = ((offset & KFD_MMAP_GPU_ID_MASK) >> KFD_MMAP_GPU_ID_SHIFT) as u32;
            if let Some(i) = self.inner.gpu_index(gpu_id) {
                self.inner
                    .doorbell_watch
                    .register(i, p.as_ptr() as u64, len.get() as u64);
            }
        }
    }

    /// Doorbell stores that woke sleeping engines through the doorbell
    /// watch (userfaultfd write protection) so far.
    pub fn doorbell_wakes(&self) -> u64 {
        self.inner.doorbell_watch.wakes()
    }

    /// Whether sleeping engines are woken by doorbell stores (the watch
    /// is on and available here), or poll with a bounded backoff.
    pub fn doorbell_watch_active(&self) -> bool {
        self.inner.doorbell_watch.is_active()
    }

    /// Whether the doorbell page of GPU `gpu_id` is write-protected now
    /// (its engines sleep, and the next doorbell store wakes them).
    pub fn doorbells_armed(&self, gpu_id: u32) -> bool {
        self.inner
            .gpu_index(gpu_id)
            .is_some_and(|i| self.inner.doorbell_watch.is_armed(i))
    }

    /// What a `/dev/kfd` mmap offset refers to (`kfd_mmap`).
    fn kfd_mmap_target(&self, len: usize, offset: u64) -> Result<Arc<HostView>, Errno> {
        let d = &*self.inner;
        let gpu_id = ((offset & KFD_MMAP_GPU_ID_MASK) >> KFD_MMAP_GPU_ID_SHIFT) as u32;
        match offset & KFD_MMAP_TYPE_MASK {
            // kfd_mmap: doorbell, reserved and MMIO pages of an unknown GPU
            // are -ENODEV.
            KFD_MMAP_TYPE_DOORBELL => {
                let i = d.gpu_index(gpu_id).ok_or(Errno::NODEV)?;
                if len != DOORBELL_PROCESS_SLICE {
                    return Err(Errno::INVAL);
                }
                Ok(Arc::clone(&d.gpus[i].doorbells))
            }
            KFD_MMAP_TYPE_EVENTS => d.events.mapped(len),
            KFD_MMAP_TYPE_MMIO => {
                let i = d.gpu_index(gpu_id).ok_or(Errno::NODEV)?;
                if len != 4096 {
                    return Err(Errno::INVAL);
                }
                Ok(Arc::clone(&d.gpus[i].mmio))
            }
            // KFD_MMAP_TYPE_RESERVED_MEM: the sim reserves no memory.
            _ => {
                d.gpu_index(gpu_id).ok_or(Errno::NODEV)?;
                Err(Errno::INVAL)
            }
        }
    }

    /// `kfd_kmap_event_page` for a client buffer given to CREATE_EVENT.
    pub(crate) fn event_page_from_bo(&self, handle: u64) -> Result<(), Errno> {
        let p = self.inner.lock();
        let bo = p.bos.get(&handle).ok_or(Errno::INVAL)?;
        let page = SignalPage {
            view: Arc::clone(&bo.view),
            bo_handle: Some(handle),
        };
        drop(p);
        self.inner.events.set_page(page)
    }
}

/// A process doorbell page with every doorbell idle.
fn doorbell_page() -> HostView {
    let v = HostView::memfd("sim-doorbells", DOORBELL_PROCESS_SLICE)
        .expect("memfd for the doorbell page");
    for i in 0..DOORBELL_PROCESS_SLICE / 8 {
        if let Some(d) = v.atomic_u64_at(i * 8) {
            d.store(crate::cp::DOORBELL_IDLE, Ordering::Relaxed);
        }
    }
    v
}

/// Maps `len` bytes of `view`'s memfd, shared (at `at` with `MAP_FIXED`).
fn map_view(
    view: &HostView,
    len: NonZeroUsize,
    at: Option<NonNull<u8>>,
) -> Result<NonNull<u8>, Errno> {
    use rustix::mm::{MapFlags, ProtFlags, mmap};
    let fd = view.fd().ok_or(Errno::INVAL)?;
    if len.get() > view.len() {
        return Err(Errno::INVAL);
    }
    let (hint, flags) = match at {
        Some(a) => (a.as_ptr().cast(), MapFlags::SHARED | MapFlags::FIXED),
        None => (std::ptr::null_mut(), MapFlags::SHARED),
    };
    // SAFETY: without `at` the kernel picks a fresh range; with it, the
    // caller of `mmap_fixed` owns the range and lets it be replaced.
    let p = unsafe {
        mmap(
            hint,
            len.get(),
            ProtFlags::READ | ProtFlags::WRITE,
            flags,
            fd,
            0,
        )
    }?;
    NonNull::new(p.cast::<u8>()).ok_or(Errno::FAULT)
}

/// The simulated render node `/dev/dri/renderD<minor>`: a memfd stands in
/// for the file, so its descriptor is a real number ACQUIRE_VM can check;
/// mmaps of a buffer's offset map the buffer's memfd.
pub struct SimRenderNode {
    fd: OwnedFd,
    inner: Arc<Inner>,
    /// The GPU (index into `inner.gpus`) whose node this is.
    gpu: usize,
}

impl std::fmt::Debug for SimRenderNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimRenderNode")
            .field("fd", &self.fd)
            .finish()
    }
}

impl AsFd for SimRenderNode {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl SimRenderNode {
    fn target(&self, len: usize, offset: u64) -> Result<Arc<HostView>, Errno> {
        let p = self.inner.lock();
        let h = p.offsets.get(&offset).ok_or(Errno::INVAL)?;
        let bo = p.bos.get(h).ok_or(Errno::INVAL)?;
        if len as u64 > bo.size {
            return Err(Errno::INVAL);
        }
        Ok(Arc::clone(&bo.view))
    }
}

// SAFETY: the DRM ioctls (`drm.rs`) access the argument struct and the
// user buffers its fields describe, as the driver does; mappings are real
// mmaps of a buffer's memfd, exactly `len` bytes, valid until munmap.
unsafe impl DrmRenderNode for SimRenderNode {
    unsafe fn ioctl(&self, code: Opcode, arg: *mut c_void) -> Result<c_int, Errno> {
        // DRM_IOCTL_VERSION and AMDGPU_INFO, what libdrm_amdgpu's
        // amdgpu_device_initialize asks; everything else ENOTTY.
        let t = &self.inner.trace;
        // SAFETY: our caller's contract: the request's struct at `arg`.
        let pre = unsafe { crate::trace::before(t, code, arg) };
        // SAFETY: our caller's contract.
        let r = unsafe { crate::drm::ioctl(&self.inner.gpus[self.gpu].node.spec, code, arg) };
        // SAFETY: as above.
        unsafe { crate::trace::after(t, crate::trace::Obj::Render, code, arg, pre, &r) };
        r
    }

    fn mmap(&self, len: NonZeroUsize, offset: u64) -> Result<NonNull<u8>, Errno> {
        let r = self
            .target(len.get(), offset)
            .and_then(|view| map_view(&view, len, None));
        self.inner
            .trace
            .mmap(crate::trace::Obj::Render, false, len, offset, &r);
        r
    }

    unsafe fn mmap_fixed(
        &self,
        addr: NonNull<u8>,
        len: NonZeroUsize,
        offset: u64,
    ) -> Result<NonNull<u8>, Errno> {
        let r = self
            .target(len.get(), offset)
            .and_then(|view| map_view(&view, len, Some(addr)));
        self.inner
            .trace
            .mmap(crate::trace::Obj::Render, true, len, offset, &r);
        r
    }

    unsafe fn munmap(&self, addr: NonNull<u8>, len: NonZeroUsize) -> Result<(), Errno> {
        // SAFETY: the caller passes a mapping we made and no longer uses.
        unsafe { rustix::mm::munmap(addr.as_ptr().cast(), len.get()) }
    }
}
