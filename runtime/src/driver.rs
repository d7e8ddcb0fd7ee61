//! The driver layer, as ROCr's `core::Driver`: everything the runtime asks
//! of the kernel-mode driver goes through one object-safe [`Driver`], and
//! [`KfdDriver`] implements it over the `kfd` crate's `Kfd<D>` for any
//! [`KfdDevice`]: the real `/dev/kfd`, or the software GPU (`sim`), which
//! sits below the same seam. The runtime above never knows which.
//!
//! [`open`] picks the device: `/dev/kfd` when it is a KFD, else the sim as
//! the embedded default (with a one-line notice on stderr). The
//! environment variable [`DRIVER_ENV`] forces either (`kfd` or `sim`).

#![allow(unsafe_code)]

use std::any::Any;
use std::os::fd::AsFd;
use std::ptr::NonNull;
use std::sync::Mutex;

use kfd::ioctl::{AllocMemFlags, WaitResult, raw};
use kfd::topology::Topology;
use kfd::{
    Allocation, ClockCounters, EventDesc, EventInfo, Kfd, KfdDevice, KfdVersion, QueueDesc,
    QueueInfo, RealDevice, RenderNode,
};

use crate::status::{Error, Result, Status};

/// The environment variable that forces the device: `kfd` (the real
/// `/dev/kfd`, an error if it cannot be opened) or `sim` (the software GPU).
pub const DRIVER_ENV: &str = "HSA_RS_DRIVER";

/// Which kind of device stands behind the driver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriverKind {
    /// The kernel's `/dev/kfd`.
    Kfd,
    /// The software GPU (`sim`).
    Sim,
}

impl DriverKind {
    /// `kfd` or `sim`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Kfd => "kfd",
            Self::Sim => "sim",
        }
    }
}

/// A region the driver mapped into this process (a buffer's CPU mapping,
/// a doorbell page, the event page); unmapped when dropped.
pub struct Mapped {
    ptr: NonNull<u8>,
    len: usize,
    _keep: Box<dyn Any + Send + Sync>,
    /// Gives up `_keep` without unmapping (see [`Mapped::disown`]); `None`
    /// for mappings that are never replaced in place.
    disown: Option<fn(Box<dyn Any + Send + Sync>)>,
}

impl Mapped {
    /// Gives the mapping up without unmapping it, because its range now
    /// holds another `MAP_FIXED` mapping (a migrated buffer's new pages):
    /// dropping it would unmap the newcomer. `Err(self)` for a mapping that
    /// cannot be given up so (doorbell and event pages).
    pub(crate) fn disown(mut self) -> core::result::Result<(), Self> {
        let Some(f) = self.disown.take() else {
            return Err(self);
        };
        let keep = core::mem::replace(&mut self._keep, Box::new(()));
        f(keep);
        Ok(())
    }

    /// Start of the mapping.
    pub fn as_ptr(&self) -> NonNull<u8> {
        self.ptr
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the mapping is empty (never, in practice).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Unmaps a mapping the runtime made itself when dropped.
struct Munmap(NonNull<u8>, usize);

impl Drop for Munmap {
    fn drop(&mut self) {
        // SAFETY: the mapping `Mapped::own` was given, which nothing uses
        // once its `Mapped` is dropped.
        let _ = unsafe { rustix::mm::munmap(self.0.as_ptr().cast(), self.1) };
    }
}

// SAFETY: only the address and length, used once in `drop`.
unsafe impl Send for Munmap {}
// SAFETY: as for `Send`.
unsafe impl Sync for Munmap {}

impl Mapped {
    /// A mapping of `len` bytes at `ptr` that the runtime made itself (an
    /// `mmap` of a dma-buf), unmapped when dropped.
    ///
    /// # Safety
    ///
    /// `ptr..ptr + len` is a mapping of the caller's that nothing else
    /// unmaps.
    pub(crate) unsafe fn own(ptr: NonNull<u8>, len: usize) -> Self {
        Self {
            ptr,
            len,
            _keep: Box::new(Munmap(ptr, len)),
            disown: Some(|keep| {
                if let Ok(m) = keep.downcast::<Munmap>() {
                    core::mem::forget(*m);
                }
            }),
        }
    }
}

impl core::fmt::Debug for Mapped {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Mapped")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

// SAFETY: `Mapped` hands out only the raw pointer; the kept mapping object
// is `Send + Sync` (its bound).
unsafe impl Send for Mapped {}
// SAFETY: as for `Send`.
unsafe impl Sync for Mapped {}

/// What the runtime needs of a kernel-mode driver (ROCr's `core::Driver`).
///
/// Every method is one KFD request or mapping; argument checking beyond
/// the ioctl's own is the caller's.
pub trait Driver: Send + Sync + 'static {
    /// Which device this is.
    fn kind(&self) -> DriverKind;
    /// The KFD interface version.
    fn version(&self) -> KfdVersion;
    /// The topology (`/sys/devices/virtual/kfd/kfd/topology`, or the sim's).
    fn topology(&self) -> &Topology;
    /// The process apertures of every GPU (`GET_PROCESS_APERTURES_NEW`).
    fn apertures(&self) -> &[raw::ProcessDeviceApertures];
    /// Opens the GPU's render node and binds its VM (`ACQUIRE_VM`).
    fn acquire_vm(&self, gpu_id: u32, drm_render_minor: u32) -> kfd::Result<()>;
    /// `ALLOC_MEMORY_OF_GPU` (not USERPTR).
    fn alloc(
        &self,
        gpu_id: u32,
        va: u64,
        size: u64,
        flags: AllocMemFlags,
    ) -> kfd::Result<Allocation>;
    /// `ALLOC_MEMORY_OF_GPU` with USERPTR: `cpu..cpu + size` becomes GPU
    /// memory at `va`.
    ///
    /// # Safety
    ///
    /// As [`Kfd::alloc_userptr_memory_of_gpu`].
    unsafe fn alloc_userptr(
        &self,
        gpu_id: u32,
        va: u64,
        cpu: NonNull<u8>,
        size: u64,
        flags: AllocMemFlags,
    ) -> kfd::Result<Allocation>;
    /// `FREE_MEMORY_OF_GPU`.
    fn free(&self, handle: u64) -> kfd::Result<()>;
    /// `MAP_MEMORY_TO_GPU`.
    fn map_to_gpus(&self, handle: u64, gpu_ids: &[u32]) -> kfd::Result<()>;
    /// `UNMAP_MEMORY_FROM_GPU`.
    fn unmap_from_gpus(&self, handle: u64, gpu_ids: &[u32]) -> kfd::Result<()>;
    /// `AMDKFD_IOC_SVM` `SET_ATTR` of the page-aligned range.
    fn svm_set_attr(&self, start: u64, size: u64, attrs: &[raw::SvmAttribute]) -> kfd::Result<()>;
    /// `SET_XNACK_MODE` of the process (only while it has no queues).
    fn set_xnack_mode(&self, enabled: bool) -> kfd::Result<()>;
    /// The process's XNACK mode (`SET_XNACK_MODE` with -1).
    fn xnack_mode(&self) -> kfd::Result<bool>;
    /// `AMDKFD_IOC_SVM` `GET_ATTR`: the driver overwrites each pair.
    fn svm_get_attr(
        &self,
        start: u64,
        size: u64,
        attrs: &mut [raw::SvmAttribute],
    ) -> kfd::Result<()>;
    /// Maps a buffer for the CPU at exactly `addr` through the render node
    /// of `gpu_id` (acquired first).
    ///
    /// # Safety
    ///
    /// As [`RenderNode::map_at`]: `addr..addr + len` is page aligned, a
    /// reservation of the caller, used by nothing else.
    unsafe fn map_cpu_at(
        &self,
        gpu_id: u32,
        addr: NonNull<u8>,
        mmap_offset: u64,
        len: usize,
    ) -> kfd::Result<Mapped>;
    /// `CREATE_QUEUE`.
    ///
    /// # Safety
    ///
    /// As [`Kfd::create_queue`]: every address in `desc` is live memory
    /// mapped to the GPU, kept until the queue is destroyed.
    unsafe fn create_queue(&self, desc: &QueueDesc) -> kfd::Result<QueueInfo>;
    /// `DESTROY_QUEUE`.
    fn destroy_queue(&self, queue_id: u32) -> kfd::Result<()>;
    /// Maps the doorbell page holding `doorbell_offset`; the pointer of the
    /// result is the doorbell itself.
    fn map_doorbell(&self, doorbell_offset: u64, page_size: usize) -> kfd::Result<Mapped>;
    /// `CREATE_EVENT`.
    fn create_event(&self, desc: &EventDesc) -> kfd::Result<EventInfo>;
    /// `DESTROY_EVENT`.
    fn destroy_event(&self, event_id: u32) -> kfd::Result<()>;
    /// `SET_EVENT`.
    fn set_event(&self, event_id: u32) -> kfd::Result<()>;
    /// `RESET_EVENT`.
    fn reset_event(&self, event_id: u32) -> kfd::Result<()>;
    /// `WAIT_EVENTS`.
    fn wait_events(
        &self,
        events: &mut [raw::EventData],
        wait_for_all: bool,
        timeout_ms: u32,
    ) -> kfd::Result<WaitResult>;
    /// Maps the signal-event page (the mailbox slots).
    fn map_event_page(&self, event_page_offset: u64) -> kfd::Result<Mapped>;
    /// `GET_CLOCK_COUNTERS`.
    fn clock_counters(&self, gpu_id: u32) -> kfd::Result<ClockCounters>;
    /// `SET_TRAP_HANDLER`: the second-level trap handler (code at `tba`,
    /// its memory at `tma`) for this process's waves on GPU `gpu_id`.
    fn set_trap_handler(&self, gpu_id: u32, tba: u64, tma: u64) -> kfd::Result<()>;
    /// `RUNTIME_ENABLE` (1.13): the runtime's `_amdgpu_r_debug` at
    /// `r_debug` and `mode` (empty: disable); returns the driver's
    /// `capabilities_mask`.
    fn runtime_enable(&self, r_debug: u64, mode: kfd::ioctl::RuntimeEnableMode)
    -> kfd::Result<u32>;
    /// `AVAILABLE_MEMORY`.
    fn available_memory(&self, gpu_id: u32) -> kfd::Result<u64>;
    /// `SET_CU_MASK`.
    fn set_cu_mask(&self, queue_id: u32, mask: &[u32]) -> kfd::Result<()>;
    /// `EXPORT_DMABUF`: a dma-buf descriptor of buffer `handle`.
    fn export_dmabuf(&self, handle: u64) -> kfd::Result<std::os::fd::OwnedFd>;
    /// `IMPORT_DMABUF`: the dma-buf `fd` as a buffer of GPU `gpu_id` at
    /// `va`; returns its handle.
    fn import_dmabuf(
        &self,
        fd: std::os::fd::BorrowedFd<'_>,
        gpu_id: u32,
        va: u64,
    ) -> kfd::Result<u64>;
    /// `UPDATE_QUEUE`: the queue's ring (unchanged: the same base and
    /// size), percentage and priority.
    ///
    /// # Safety
    ///
    /// As [`Kfd::update_queue`]: the ring is the queue's live ring.
    unsafe fn update_queue(
        &self,
        queue_id: u32,
        ring_base_address: u64,
        ring_size: u32,
        percentage: kfd::ioctl::QueuePercentage,
        priority: kfd::ioctl::QueuePriority,
    ) -> kfd::Result<()>;
}

/// [`Driver`] over `Kfd<D>`.
pub struct KfdDriver<D: KfdDevice> {
    kind: DriverKind,
    kfd: Kfd<D>,
    topology: Topology,
    apertures: Vec<raw::ProcessDeviceApertures>,
    nodes: Mutex<Vec<(u32, std::sync::Arc<RenderNode<D>>)>>,
}

impl<D: KfdDevice> KfdDriver<D> {
    /// A driver over `kfd` whose topology is `topology`.
    pub fn new(kind: DriverKind, kfd: Kfd<D>, topology: Topology) -> kfd::Result<Self> {
        let apertures = kfd.process_apertures()?;
        Ok(Self {
            kind,
            kfd,
            topology,
            apertures,
            nodes: Mutex::new(Vec::new()),
        })
    }

    /// The `Kfd` handle.
    pub fn kfd(&self) -> &Kfd<D> {
        &self.kfd
    }

    fn node(&self, gpu_id: u32) -> kfd::Result<std::sync::Arc<RenderNode<D>>> {
        let nodes = self.nodes.lock().unwrap_or_else(|p| p.into_inner());
        nodes
            .iter()
            .find(|(g, _)| *g == gpu_id)
            .map(|(_, n)| std::sync::Arc::clone(n))
            .ok_or(kfd::Error::InvalidArgument {
                ioctl: "mmap",
                what: "the GPU's VM was not acquired (no render node)",
            })
    }
}

impl<D: KfdDevice> Driver for KfdDriver<D> {
    fn kind(&self) -> DriverKind {
        self.kind
    }

    fn version(&self) -> KfdVersion {
        self.kfd.version()
    }

    fn topology(&self) -> &Topology {
        &self.topology
    }

    fn apertures(&self) -> &[raw::ProcessDeviceApertures] {
        &self.apertures
    }

    fn acquire_vm(&self, gpu_id: u32, drm_render_minor: u32) -> kfd::Result<()> {
        let mut nodes = self.nodes.lock().unwrap_or_else(|p| p.into_inner());
        if nodes.iter().any(|(g, _)| *g == gpu_id) {
            return Ok(());
        }
        let node = self.kfd.open_render_node(drm_render_minor)?;
        self.kfd.acquire_vm(node.as_fd(), gpu_id)?;
        nodes.push((gpu_id, std::sync::Arc::new(node)));
        Ok(())
    }

    fn alloc(
        &self,
        gpu_id: u32,
        va: u64,
        size: u64,
        flags: AllocMemFlags,
    ) -> kfd::Result<Allocation> {
        self.kfd.alloc_memory_of_gpu(gpu_id, va, size, flags)
    }

    unsafe fn alloc_userptr(
        &self,
        gpu_id: u32,
        va: u64,
        cpu: NonNull<u8>,
        size: u64,
        flags: AllocMemFlags,
    ) -> kfd::Result<Allocation> {
        // SAFETY: forwarded to our caller.
        unsafe {
            self.kfd
                .alloc_userptr_memory_of_gpu(gpu_id, va, cpu, size, flags)
        }
    }

    fn free(&self, handle: u64) -> kfd::Result<()> {
        self.kfd.free_memory_of_gpu(handle)
    }

    fn map_to_gpus(&self, handle: u64, gpu_ids: &[u32]) -> kfd::Result<()> {
        self.kfd.map_memory_to_gpu(handle, gpu_ids)
    }

    fn unmap_from_gpus(&self, handle: u64, gpu_ids: &[u32]) -> kfd::Result<()> {
        self.kfd.unmap_memory_from_gpu(handle, gpu_ids)
    }

    fn svm_set_attr(&self, start: u64, size: u64, attrs: &[raw::SvmAttribute]) -> kfd::Result<()> {
        self.kfd.svm_set_attr(start, size, attrs)
    }

    fn svm_get_attr(
        &self,
        start: u64,
        size: u64,
        attrs: &mut [raw::SvmAttribute],
    ) -> kfd::Result<()> {
        self.kfd.svm_get_attr(start, size, attrs)
    }

    fn set_xnack_mode(&self, enabled: bool) -> kfd::Result<()> {
        self.kfd.set_xnack_mode(if enabled {
            kfd::ioctl::XnackMode::Enabled
        } else {
            kfd::ioctl::XnackMode::Disabled
        })
    }

    fn xnack_mode(&self) -> kfd::Result<bool> {
        Ok(self.kfd.xnack_mode()? == kfd::ioctl::XnackMode::Enabled)
    }

    unsafe fn map_cpu_at(
        &self,
        gpu_id: u32,
        addr: NonNull<u8>,
        mmap_offset: u64,
        len: usize,
    ) -> kfd::Result<Mapped> {
        let node = self.node(gpu_id)?;
        // SAFETY: forwarded to our caller.
        let m = unsafe { node.map_at(addr, mmap_offset, len) }?;
        Ok(Mapped {
            ptr: m.as_ptr(),
            len: m.len(),
            _keep: Box::new(m),
            disown: Some(|keep| {
                if let Ok(m) = keep.downcast::<kfd::BufferMapping<D>>() {
                    m.into_raw();
                }
            }),
        })
    }

    unsafe fn create_queue(&self, desc: &QueueDesc) -> kfd::Result<QueueInfo> {
        // SAFETY: forwarded to our caller.
        unsafe { self.kfd.create_queue(desc) }
    }

    fn destroy_queue(&self, queue_id: u32) -> kfd::Result<()> {
        self.kfd.destroy_queue(queue_id)
    }

    fn map_doorbell(&self, doorbell_offset: u64, page_size: usize) -> kfd::Result<Mapped> {
        let page = self.kfd.map_doorbell_page(doorbell_offset, page_size)?;
        let ptr = page.doorbell().cast::<u8>();
        Ok(Mapped {
            ptr,
            len: 8,
            _keep: Box::new(page),
            disown: None,
        })
    }

    fn create_event(&self, desc: &EventDesc) -> kfd::Result<EventInfo> {
        self.kfd.create_event(desc)
    }

    fn destroy_event(&self, event_id: u32) -> kfd::Result<()> {
        self.kfd.destroy_event(event_id)
    }

    fn set_event(&self, event_id: u32) -> kfd::Result<()> {
        self.kfd.set_event(event_id)
    }

    fn reset_event(&self, event_id: u32) -> kfd::Result<()> {
        self.kfd.reset_event(event_id)
    }

    fn wait_events(
        &self,
        events: &mut [raw::EventData],
        wait_for_all: bool,
        timeout_ms: u32,
    ) -> kfd::Result<WaitResult> {
        self.kfd.wait_events(events, wait_for_all, timeout_ms)
    }

    fn map_event_page(&self, event_page_offset: u64) -> kfd::Result<Mapped> {
        let page = self.kfd.map_event_page(event_page_offset)?;
        let m = page.mapping();
        let (ptr, len) = (m.as_ptr(), m.len());
        Ok(Mapped {
            ptr,
            len,
            _keep: Box::new(page),
            disown: None,
        })
    }

    fn set_trap_handler(&self, gpu_id: u32, tba: u64, tma: u64) -> kfd::Result<()> {
        self.kfd.set_trap_handler(gpu_id, tba, tma)
    }

    fn clock_counters(&self, gpu_id: u32) -> kfd::Result<ClockCounters> {
        self.kfd.get_clock_counters(gpu_id)
    }

    fn runtime_enable(
        &self,
        r_debug: u64,
        mode: kfd::ioctl::RuntimeEnableMode,
    ) -> kfd::Result<u32> {
        self.kfd.runtime_enable(r_debug, mode)
    }

    fn available_memory(&self, gpu_id: u32) -> kfd::Result<u64> {
        self.kfd.available_memory(gpu_id)
    }

    fn export_dmabuf(&self, handle: u64) -> kfd::Result<std::os::fd::OwnedFd> {
        self.kfd.export_dmabuf(handle)
    }

    fn import_dmabuf(
        &self,
        fd: std::os::fd::BorrowedFd<'_>,
        gpu_id: u32,
        va: u64,
    ) -> kfd::Result<u64> {
        self.kfd.import_dmabuf(fd, gpu_id, va)
    }

    fn set_cu_mask(&self, queue_id: u32, mask: &[u32]) -> kfd::Result<()> {
        self.kfd.set_cu_mask(queue_id, mask)
    }

    unsafe fn update_queue(
        &self,
        queue_id: u32,
        ring_base_address: u64,
        ring_size: u32,
        percentage: kfd::ioctl::QueuePercentage,
        priority: kfd::ioctl::QueuePriority,
    ) -> kfd::Result<()> {
        // SAFETY: forwarded to our caller.
        unsafe {
            self.kfd
                .update_queue(queue_id, ring_base_address, ring_size, percentage, priority)
        }
    }
}

/// Opens the real `/dev/kfd` with the system topology.
pub fn open_kfd() -> Result<Box<dyn Driver>> {
    let kfd = Kfd::<RealDevice>::open().map_err(|e| Error::driver("/dev/kfd", e))?;
    let topology = Topology::read_system().map_err(|e| {
        Error::new(
            Status::Error,
            format!("/dev/kfd is open but its topology is unreadable: {e}"),
        )
    })?;
    let d = KfdDriver::new(DriverKind::Kfd, kfd, topology)
        .map_err(|e| Error::driver("GET_PROCESS_APERTURES_NEW", e))?;
    Ok(Box::new(d))
}

/// Builds the software GPU from its environment (`SIM_BOARD`, `SIM_GPUS`,
/// `SIM_VRAM_MIB`, `SIM_WORKERS`).
pub fn open_sim() -> Result<Box<dyn Driver>> {
    let builder = sim::SimBuilder::from_env()
        .map_err(|e| Error::new(Status::Error, format!("software GPU: {e}")))?;
    open_sim_device(builder.build())
}

/// A driver over the given software GPU.
pub fn open_sim_device(dev: sim::SimDevice) -> Result<Box<dyn Driver>> {
    let topology = Topology::read(dev.topology().reader()).map_err(|e| {
        Error::new(
            Status::Error,
            format!("software GPU: its topology does not parse: {e}"),
        )
    })?;
    let kfd = Kfd::with_device(dev).map_err(|e| Error::driver("software GPU", e))?;
    let d = KfdDriver::new(DriverKind::Sim, kfd, topology)
        .map_err(|e| Error::driver("software GPU: GET_PROCESS_APERTURES_NEW", e))?;
    Ok(Box::new(d))
}

/// Opens the device: as [`DRIVER_ENV`] says, else `/dev/kfd` when it is a
/// KFD, else the software GPU with a one-line notice on stderr.
pub fn open() -> Result<Box<dyn Driver>> {
    use crate::flags::DriverChoice;
    match crate::flags::Flags::from_env()?.driver {
        Some(DriverChoice::Kfd) => open_kfd(),
        Some(DriverChoice::Sim) => open_sim(),
        None => match open_kfd() {
            Ok(d) => Ok(d),
            Err(e) => {
                eprintln!(
                    "hsa: no usable /dev/kfd ({}); using the software GPU",
                    e.message
                );
                open_sim()
            }
        },
    }
}
