//! AQL user-mode queues (`hsa_queue_create`), created the way ROCr's
//! `AqlQueue` does on KFD: the ring and its `amd_queue_t` in system memory
//! every GPU can read, an end-of-pipe buffer and the context save/restore
//! (CWSR) area sized from the topology, `AMDKFD_IOC_CREATE_QUEUE`, then the
//! doorbell page mapped. Scratch follows ROCr's handshake: when a dispatch
//! needs more private memory than the queue has, the packet processor
//! stops the queue with code 1 (`INSUFFICIENT_SCRATCH`; bit 0x400 for a
//! wave32 dispatch) in its `queue_inactive_signal`, its read index still on
//! the stalled packet; the runtime's queue monitor reads that packet, sizes
//! the scratch for it ([`crate::scratch`]), gives the old scratch back to
//! the GPU's scratch cache, takes the new one, rewrites the queue's scratch
//! fields and stores 0, and the packet processor retries. Code 512 hands a
//! use-once (large) scratch back. Any other code is a queue error: the queue
//! stays stopped and its error callback hears ROCr's status for that code.

#![allow(unsafe_code)]

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, Weak};

use aql::doorbell::MmioDoorbell;
use aql::packet::KernelDispatchPacket;
use aql::queue::{AmdQueue, PacketSlot, Ring};
use aql::{PacketHeader, SignalHandle};
use kfd::QueueDesc;
use kfd::ioctl::{QueuePercentage, QueuePriority, QueueType};
use signal_core::raw::AmdSignal;
use signal_core::{Condition, LoadOrder, StoreOrder};

use crate::agent::Agent;
use crate::driver::Mapped;
use crate::memory::PoolKind;
use crate::scratch::{ScratchBlock, ScratchGeometry, ScratchRequest};
use crate::signal::{Signal, SignalKind};
use crate::status::{Error, Result, Status};
use crate::system::Core;

/// `hsa_queue_type_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueKind {
    /// `HSA_QUEUE_TYPE_MULTIPLE`: several producers.
    Multiple = 0,
    /// `HSA_QUEUE_TYPE_SINGLE`: one producer.
    Single = 1,
}

/// The callback a queue error reaches: the status (ROCr's, for the packet
/// processor's code) and the queue's id.
pub type ErrorCallback = Box<dyn Fn(Status, u64) + Send + Sync>;

/// Scratch per work-item the queue starts with, when the caller gives no
/// private segment hint: ROCr's default for a base-profile (dGPU) agent.
const DEFAULT_SCRATCH_LANE: u32 = 0;

/// `AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE` (`amd_hsa_queue.h`, bit 4).
const USE_SCRATCH_ONCE: u32 = 1 << 4;

/// The queue error codes of the scratch handshake.
mod scratch_code {
    /// Insufficient scratch for a wave64 dispatch.
    pub const INSUFFICIENT: u64 = 1;
    /// Insufficient scratch for a wave32 dispatch.
    pub const INSUFFICIENT_WAVE32: u64 = 0x400;
    /// The use-once scratch of the last dispatch is free again.
    pub const RECLAIM: u64 = 512;
}

/// The legacy queue error codes (`amd_aql_queue.cpp`) and the status ROCr
/// reports for each.
pub fn status_of_code(code: u64) -> Status {
    const TABLE: &[(u64, Status)] = &[
        (2, Status::IncompatibleArguments),
        (4, Status::InvalidAllocation),
        (8, Status::InvalidCodeObject),
        (32, Status::InvalidPacketFormat),
        (64, Status::InvalidArgument),
        (128, Status::InvalidIsa),
        (0x2000_0000, Status::MemoryApertureViolation),
        (0x4000_0000, Status::IllegalInstruction),
        (0x8000_0000, Status::Exception),
    ];
    TABLE
        .iter()
        .find(|(bit, _)| code & bit != 0)
        .map_or(Status::Error, |&(_, s)| s)
}

/// The queue's scratch: the block it holds and what it was sized for.
#[derive(Debug, Clone, Copy, Default)]
struct Scratch {
    block: ScratchBlock,
    size_per_thread: u64,
    lanes: u32,
}

pub(crate) struct QueueInner {
    pub(crate) core: Arc<Core>,
    pub(crate) agent: Agent,
    pub(crate) gpu_id: u32,
    pub(crate) queue_id: u32,
    /// The `amd_queue_t` (its `hsa_queue_t` first): the queue's handle.
    pub(crate) amd_va: u64,
    ring_va: u64,
    slots: u32,
    doorbell: Mapped,
    /// The doorbell id the trap handler finds the queue by.
    doorbell_id: u64,
    doorbell_signal: u64,
    eop_va: u64,
    cwsr_va: u64,
    scratch_geometry: ScratchGeometry,
    scratch: Mutex<Scratch>,
    /// The CU mask in effect (ROCr's `cu_mask_`; empty until first set).
    cu_mask: Mutex<Vec<u32>>,
    pub(crate) inactive: Signal,
    callback: Option<ErrorCallback>,
    pub(crate) error: Mutex<Option<Status>>,
    destroyed: std::sync::atomic::AtomicBool,
    /// `hsa_queue_inactivate` destroyed the KFD queue (its memory stays
    /// until the queue is destroyed).
    inactivated: std::sync::atomic::AtomicBool,
    /// The GPU reclaims scratch asynchronously: the queue set
    /// `AMD_QUEUE_CAPS_SW_ASYNC_RECLAIM` ([`aql::queue::v2`]).
    async_reclaim: bool,
    /// The KFD priority the queue runs at (ROCr's `priority_`), which the
    /// suspend and resume of an asynchronous reclaim keep.
    priority: std::sync::atomic::AtomicU32,
}

/// An AQL queue; destroyed when dropped (or by [`destroy`](Self::destroy)).
pub struct Queue {
    pub(crate) inner: Arc<QueueInner>,
}

impl core::fmt::Debug for Queue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Queue")
            .field("queue_id", &self.inner.queue_id)
            .field("size", &self.inner.slots)
            .finish_non_exhaustive()
    }
}

/// The CWSR sizes of a GPU node (`kfd_queue_ctx_save_restore_size`):
/// `(ctl_stack_size, cwsr_size, bytes of the area)`.
pub(crate) fn cwsr_sizes(node: &kfd::topology::Node) -> (u32, u32, u64) {
    let p = &node.properties;
    let align = |v: u32, a: u32| v.div_ceil(a) * a;
    let xcc = p.num_xcc.unwrap_or(1).max(1);
    let simd_per_cu = p.simd_per_cu.max(1);
    let cu_per_xcc = p.simd_count / simd_per_cu / xcc;
    let version = p.gfx_target_version.unwrap_or(0);
    // The driver's wave count: before GFX10.1, 40 per CU and at most 512
    // per shader array; from GFX10.1, 32 per CU (not the node's
    // max_waves_per_simd slots). libhsakmt computes the same.
    let waves = if version < 100100 {
        let arrays = p.array_count / p.simd_arrays_per_engine.max(1);
        (cu_per_xcc * 40).min(arrays * 512)
    } else {
        cu_per_xcc * 32
    };
    let bytes_per_wave = if version >= 100100 { 12 } else { 8 };
    let ctl = align(40 + waves * bytes_per_wave + 8, 4096);
    let vgpr = if matches!(version, 90010 | 90402 | 90008 | 90500) {
        0x8_0000
    } else {
        0x4_0000
    };
    let per_cu = vgpr + 0x4000 + 0x1_0000 + 0x1000;
    let cwsr = ctl + align(cu_per_xcc * per_cu, 4096);
    let debug = align(waves * 32, 64);
    let area = ((u64::from(cwsr) + u64::from(debug)) * u64::from(xcc)).next_multiple_of(4096);
    (ctl, cwsr, area)
}

impl Queue {
    /// `hsa_queue_create` on `agent`: `size` packets (a power of two within
    /// the agent's limits), `private_segment_size` per work-item to start
    /// with (`u32::MAX`: the default), and the error callback.
    pub(crate) fn create(
        core: &Arc<Core>,
        agent: Agent,
        size: u32,
        kind: QueueKind,
        callback: Option<ErrorCallback>,
        private_segment_size: u32,
    ) -> Result<Self> {
        let rec = core.agent(agent)?;
        // ROCr's answers (checked against AMD's ROCr on the sim by
        // tests/c/status_diff.c): a CPU agent's QueueCreate fails with
        // HSA_STATUS_ERROR; GpuAgent::QueueCreate refuses a size that is no
        // power of two or below the minimum (INVALID_ARGUMENT) and one above
        // the maximum (OUT_OF_RESOURCES).
        if !rec.is_gpu() {
            return Err(Error::new(
                Status::Error,
                format!(
                    "agent {} is a CPU agent: it has no AQL queues",
                    agent.index()
                ),
            ));
        }
        let _ = kind;
        if !size.is_power_of_two() || size < crate::system::QUEUE_MIN_PACKETS {
            return Err(Error::invalid_argument(format!(
                "queue size {size}: must be a power of two of at least {} packets",
                crate::system::QUEUE_MIN_PACKETS
            )));
        }
        if size > crate::system::QUEUE_MAX_PACKETS {
            return Err(Error::new(
                Status::OutOfResources,
                format!(
                    "queue size {size}: above the agent's maximum of {} packets",
                    crate::system::QUEUE_MAX_PACKETS
                ),
            ));
        }
        let gpu_id = rec.gpu_id;
        let node = rec.node.clone();
        let async_reclaim = core.scratch.async_limit(gpu_id).is_some();
        let mut cleanup: Vec<u64> = Vec::new();
        let result = (|| {
            let ring_bytes = u64::from(size) * 64;
            let ring_va = core.allocate_system(ring_bytes.max(4096), true)?;
            cleanup.push(ring_va);
            let amd_va = core.allocate_system(4096, true)?;
            cleanup.push(amd_va);
            let eop_va = core.allocate_on(gpu_id, PoolKind::Vram, 4096)?;
            cleanup.push(eop_va);
            let (ctl, cwsr, area) = cwsr_sizes(&node);
            let cwsr_va = core.allocate_on(gpu_id, PoolKind::Vram, area)?;
            cleanup.push(cwsr_va);
            // Every slot starts INVALID: the packet processor waits on it.
            for i in 0..u64::from(size) {
                // SAFETY: inside the ring we just allocated, CPU-mapped.
                unsafe {
                    core::ptr::write_volatile(
                        (ring_va + i * 64) as *mut u16,
                        PacketHeader::INVALID.0,
                    )
                };
            }
            // An interrupt signal, as ROCr's: the packet processor's write
            // raises its event, and the async-handler thread wakes.
            let inactive = Signal::create(core, 0, SignalKind::Interrupt)?;
            let ap = core
                .driver
                .apertures()
                .iter()
                .find(|a| a.gpu_id == gpu_id)
                .copied()
                .unwrap_or_default();
            // SAFETY: `amd_va` is a fresh, zeroed, 4 KiB CPU-mapped
            // allocation, 64-byte aligned; the GPU does not know it yet.
            let amd = unsafe { &mut *(amd_va as *mut AmdQueue) };
            amd.hsa_queue.type_ = kind as u32;
            amd.hsa_queue.features = 1; // HSA_QUEUE_FEATURE_KERNEL_DISPATCH
            amd.hsa_queue.base_address = ring_va;
            amd.hsa_queue.size = size;
            amd.group_segment_aperture_base_hi = (ap.lds_base >> 32) as u32;
            amd.private_segment_aperture_base_hi = (ap.scratch_base >> 32) as u32;
            let p = &node.properties;
            amd.max_cu_id = (p.simd_count / p.simd_per_cu.max(1)).saturating_sub(1);
            amd.max_wave_id = (p.max_waves_per_simd * p.simd_per_cu).saturating_sub(1);
            amd.queue_inactive_signal = SignalHandle {
                handle: inactive.handle(),
            };
            // amd_queue_v2_t (ROCr's AqlQueue constructor): no packet is
            // barred from the queue's scratch yet, and where the GPU
            // reclaims scratch asynchronously the queue says the runtime
            // does too, so the firmware uses the v2 fields (the 4 KiB
            // allocation holds all 2304 bytes of them).
            const _: () = assert!(aql::queue::v2::AMD_QUEUE_V2_SIZE <= 4096);
            amd.reserved3 = [u32::MAX; 2];
            if async_reclaim {
                amd.reserved1[0] = aql::queue::v2::AmdQueueCaps::SW_ASYNC_RECLAIM.bits();
            }
            let desc = QueueDesc {
                gpu_id,
                queue_type: QueueType::ComputeAql,
                percentage: QueuePercentage::FULL,
                priority: QueuePriority::NORMAL,
                ring_base_address: ring_va,
                ring_size: size * 64,
                write_pointer_address: amd_va + 56,
                read_pointer_address: amd_va + 128,
                eop_buffer_address: eop_va,
                eop_buffer_size: 4096,
                ctx_save_restore_address: cwsr_va,
                ctx_save_restore_size: cwsr,
                ctl_stack_size: ctl,
                sdma_engine_id: 0,
            };
            // SAFETY: every address is an allocation of ours mapped on the
            // GPU, kept until the queue is destroyed (QueueInner's Drop).
            let info = unsafe { core.driver.create_queue(&desc) }.map_err(|e| {
                Error::new(Status::InvalidQueueCreation, format!("CREATE_QUEUE: {e}"))
            })?;
            let doorbell = match core.driver.map_doorbell(info.doorbell_offset, 8192) {
                Ok(d) => d,
                Err(e) => {
                    let _ = core.driver.destroy_queue(info.queue_id);
                    return Err(Error::driver("doorbell mmap", e));
                }
            };
            // The doorbell signal (kind DOORBELL, value = doorbell address).
            let doorbell_signal = core.allocate_system(4096, true)?;
            cleanup.push(doorbell_signal);
            let db = AmdSignal::new_doorbell(doorbell.as_ptr().cast(), false);
            db.queue_ptr.store(amd_va, Ordering::Relaxed);
            // SAFETY: a fresh CPU-mapped allocation, 64-byte aligned, that
            // nothing else refers to yet.
            unsafe { core::ptr::write(doorbell_signal as *mut AmdSignal, db) };
            amd.hsa_queue.doorbell_signal = SignalHandle {
                handle: doorbell_signal,
            };
            amd.hsa_queue.id = core.next_queue_serial();
            cleanup.clear();
            Ok(QueueInner {
                core: Arc::clone(core),
                agent,
                gpu_id,
                queue_id: info.queue_id,
                amd_va,
                ring_va,
                slots: size,
                doorbell,
                doorbell_id: crate::trap::doorbell_id(info.doorbell_offset),
                doorbell_signal,
                eop_va,
                cwsr_va,
                scratch_geometry: ScratchGeometry::of(&node),
                scratch: Mutex::new(Scratch::default()),
                cu_mask: Mutex::new(Vec::new()),
                inactive,
                callback,
                error: Mutex::new(None),
                destroyed: std::sync::atomic::AtomicBool::new(false),
                inactivated: std::sync::atomic::AtomicBool::new(false),
                async_reclaim,
                priority: std::sync::atomic::AtomicU32::new(QueuePriority::NORMAL.get()),
            })
        })();
        for va in cleanup {
            let _ = core.free(va);
        }
        let inner = Arc::new(result?);
        let want = if private_segment_size == u32::MAX {
            DEFAULT_SCRATCH_LANE
        } else {
            private_segment_size
        };
        if want > crate::scratch::MAX_PRIVATE_SEGMENT_HINT {
            return Err(Error::new(
                Status::OutOfResources,
                format!(
                    "private segment hint {want} bytes exceeds the {} a queue can start with",
                    crate::scratch::MAX_PRIVATE_SEGMENT_HINT
                ),
            ));
        }
        if want > 0 {
            // ROCr's queue-creation scratch: every slot of every CU.
            let g = inner.scratch_geometry;
            let slots = u64::from(g.cus) * u64::from(g.slots_per_cu);
            let req = ScratchRequest::new(&g, want, 64, Some(slots))?;
            inner.set_scratch(&req)?;
        }
        // ROCr's queue creation: `SetCUMasking(0, nullptr)`, which applies
        // HSA_CU_MASK's mask for this GPU (and sets no mask without one),
        // unless HSA_CU_MASK_SKIP_INIT=1 (then the mask stays empty and
        // reads as 0s, as ROCr's GetCUMasking copies none of it).
        if !core.flags.cu_mask_skip_init {
            inner.apply_cu_mask(&[])?;
        }
        core.register_queue(&inner);
        // The trap handler finds the queue's amd_queue_t by its doorbell.
        core.trap
            .register(inner.gpu_id, inner.doorbell_id, inner.amd_va);
        // The queue monitor (ROCr's `DynamicQueueEventsHandler`): runs on
        // the async-handler thread whenever the inactive signal leaves 0.
        let weak = Arc::downgrade(&inner);
        core.events.add_handler_for(
            inner.inactive.clone(),
            Condition::Ne,
            0,
            Box::new(move |_| weak.upgrade().is_some_and(|q| q.poll())),
        );
        Ok(Queue { inner })
    }

    /// The `hsa_queue_t *` (its `amd_queue_t` address).
    pub fn address(&self) -> u64 {
        self.inner.amd_va
    }

    /// `hsa_queue_t.id`.
    pub fn id(&self) -> u64 {
        self.amd().hsa_queue.id
    }

    /// `hsa_amd_queue_cu_set_mask` (ROCr's `AqlQueue::SetCUMasking`):
    /// bit `i` of word `i / 32` enables CU `i`; an empty `mask` enables
    /// every CU. The mask is cut to the agent's CUs and ANDed with
    /// `HSA_CU_MASK`'s mask for the GPU; returns true
    /// (`HSA_STATUS_CU_MASK_REDUCED`) when that disabled a CU `mask` asked
    /// for (CUs past the agent's count are dropped silently, as in ROCr).
    pub fn set_cu_mask(&self, mask: &[u32]) -> Result<bool> {
        self.inner.apply_cu_mask(mask)
    }

    /// `hsa_amd_queue_cu_get_mask`: the mask in effect, `words` words (0
    /// past the mask's end).
    pub fn cu_mask(&self, words: usize) -> Vec<u32> {
        let m = self.inner.cu_mask.lock().unwrap_or_else(|p| p.into_inner());
        (0..words).map(|i| m.get(i).copied().unwrap_or(0)).collect()
    }

    /// The KFD queue id.
    pub fn kfd_queue_id(&self) -> u32 {
        self.inner.queue_id
    }

    /// The agent the queue belongs to.
    pub fn agent(&self) -> Agent {
        self.inner.agent
    }

    /// Packets in the ring.
    pub fn size(&self) -> u32 {
        self.inner.slots
    }

    /// The ring's address.
    pub fn base_address(&self) -> u64 {
        self.inner.ring_va
    }

    /// The doorbell signal's handle.
    pub fn doorbell_signal(&self) -> u64 {
        self.inner.doorbell_signal
    }

    fn amd(&self) -> &AmdQueue {
        self.inner.amd()
    }

    /// `hsa_queue_load_read_index_*`.
    pub fn load_read_index(&self, order: Ordering) -> u64 {
        self.amd().read_dispatch_id.load(order)
    }

    /// `hsa_queue_load_write_index_*`.
    pub fn load_write_index(&self, order: Ordering) -> u64 {
        self.amd().write_dispatch_id.load(order)
    }

    /// `hsa_queue_store_write_index_*`.
    pub fn store_write_index(&self, value: u64, order: Ordering) {
        self.amd().write_dispatch_id.store(value, order)
    }

    /// `hsa_queue_cas_write_index_*`: returns the previous value.
    pub fn cas_write_index(&self, expected: u64, value: u64, order: Ordering) -> u64 {
        let failure = match order {
            Ordering::Release | Ordering::Relaxed => Ordering::Relaxed,
            Ordering::AcqRel | Ordering::Acquire => Ordering::Acquire,
            _ => Ordering::SeqCst,
        };
        match self
            .amd()
            .write_dispatch_id
            .compare_exchange(expected, value, order, failure)
        {
            Ok(v) | Err(v) => v,
        }
    }

    /// `hsa_queue_add_write_index_*`: returns the previous value.
    pub fn add_write_index(&self, value: u64, order: Ordering) -> u64 {
        self.amd().write_dispatch_id.fetch_add(value, order)
    }

    /// Rings the doorbell with packet id `index` (`hsa_signal_store_*` on
    /// the doorbell signal).
    pub fn ring_doorbell(&self, index: u64) {
        self.inner.ring_doorbell(index)
    }

    /// Writes one packet (16 words, header last with release) at the next
    /// write index, waiting for room, and rings the doorbell. Returns the
    /// packet id.
    pub fn submit(&self, words: &[u32; 16]) -> Result<u64> {
        self.inner.check_usable()?;
        let inner = &*self.inner;
        // SAFETY: the ring holds `slots` packet slots, CPU-mapped, alive as
        // long as `inner`.
        let slots = unsafe {
            std::slice::from_raw_parts(inner.ring_va as *const PacketSlot, inner.slots as usize)
        };
        // SAFETY: the doorbell lies in the mapped doorbell page, alive as
        // long as `inner`; any packet id written there is harmless.
        let db = unsafe { MmioDoorbell::new(inner.doorbell.as_ptr().cast()) };
        let ring = Ring::from_amd_queue(inner.amd(), slots, db)
            .map_err(|e| Error::new(Status::InvalidQueue, format!("queue ring: {e}")))?;
        loop {
            match ring.try_reserve(1) {
                Ok(mut r) => {
                    let id = r
                        .push_words(words)
                        .map_err(|e| Error::new(Status::InvalidPacketFormat, format!("{e}")))?;
                    r.finish();
                    return Ok(id);
                }
                Err(_) => {
                    inner.check_usable()?;
                    std::thread::yield_now();
                }
            }
        }
    }

    /// The scratch block the queue holds now (address 0 and size 0 when
    /// it has none).
    pub fn scratch(&self) -> ScratchBlock {
        self.inner.scratch_block()
    }

    /// The error the queue stopped with, if any.
    pub fn error(&self) -> Option<Status> {
        *self.inner.error.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `hsa_queue_destroy`.
    pub fn destroy(self) -> Result<()> {
        crate::trace::api_call!("hsa_queue_destroy", { self.inner.destroy() })
    }

    /// `hsa_amd_queue_set_priority`'s driver half: the queue runs at KFD
    /// `priority` (`UPDATE_QUEUE` on its unchanged ring, at full
    /// percentage, as ROCr's `AqlQueue::SetPriority`); kept for the
    /// queue's later suspends and resumes. A driver failure is
    /// `OUT_OF_RESOURCES` (ROCr's answer), the old priority kept.
    pub fn set_priority(&self, priority: QueuePriority) -> Result<()> {
        self.inner.set_priority(priority)
    }

    /// `hsa_queue_inactivate`: the packet processor stops (ROCr's
    /// `AqlQueue::Inactivate` destroys the KFD queue and keeps its memory);
    /// packets not yet processed never are, and [`submit`](Self::submit)
    /// refuses new ones. The queue must still be destroyed. Inactivating
    /// twice does nothing more.
    pub fn inactivate(&self) -> Result<()> {
        self.inner.inactivate()
    }
}

impl QueueInner {
    pub(crate) fn amd(&self) -> &AmdQueue {
        // SAFETY: `amd_va` holds the AmdQueue written at creation, alive
        // (its allocation is freed only in `destroy`, after which no one
        // reaches it: `destroy` runs once, from Drop or explicitly).
        unsafe { &*(self.amd_va as *const AmdQueue) }
    }

    fn ring_doorbell(&self, index: u64) {
        // SAFETY: the doorbell register in our mapped page.
        unsafe { core::ptr::write_volatile(self.doorbell.as_ptr().cast::<u64>().as_ptr(), index) };
    }

    fn check_usable(&self) -> Result<()> {
        if self.destroyed.load(Ordering::Acquire) {
            return Err(Error::new(Status::InvalidQueue, "the queue was destroyed"));
        }
        if self.inactivated.load(Ordering::Acquire) {
            return Err(Error::new(
                Status::InvalidQueue,
                "the queue was inactivated: its packet processor is stopped",
            ));
        }
        if let Some(s) = *self.error.lock().unwrap_or_else(|p| p.into_inner()) {
            return Err(Error::new(s, "the queue stopped after an error"));
        }
        Ok(())
    }

    /// Gives the queue the scratch `req` asks for: the old block goes back
    /// to the GPU's cache, a new one is taken from it (or allocated), and
    /// the queue's scratch fields are written as ROCr's `InitScratchSRD`
    /// does for GFX9. A large block sets the queue's `USE_SCRATCH_ONCE`.
    pub(crate) fn set_scratch(&self, req: &ScratchRequest) -> Result<()> {
        let mut s = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
        let cache = &self.core.scratch;
        cache.release(&s.block);
        *s = Scratch::default();
        let block = match cache.acquire(&self.core, self.gpu_id, &self.scratch_geometry, req) {
            Ok(b) => b,
            Err(e) => {
                self.write_scratch_fields(&s);
                return Err(e);
            }
        };
        *s = Scratch {
            block,
            size_per_thread: req.size_per_thread,
            lanes: req.lanes,
        };
        self.write_scratch_fields(&s);
        // ROCr's HandleInsufficientScratch: any dispatch may use the new
        // scratch until a reclaim bars it again.
        self.scratch_max_use_index()
            .store(u64::MAX, Ordering::Release);
        if block.large {
            self.queue_properties()
                .fetch_or(USE_SCRATCH_ONCE, Ordering::AcqRel);
        } else {
            self.queue_properties()
                .fetch_and(!USE_SCRATCH_ONCE, Ordering::AcqRel);
        }
        Ok(())
    }

    /// `UPDATE_QUEUE` on the queue's ring at `percentage` and its
    /// priority (ROCr's `AqlQueue::Suspend` at 0 % and `Resume` at 100 %).
    fn update_queue(&self, percentage: QueuePercentage) -> Result<()> {
        let priority = QueuePriority::new(self.priority.load(Ordering::Acquire))
            .unwrap_or(QueuePriority::NORMAL);
        // SAFETY: the queue's own ring, alive until the queue is destroyed.
        unsafe {
            self.core.driver.update_queue(
                self.queue_id,
                self.ring_va,
                self.slots * 64,
                percentage,
                priority,
            )
        }
        .map_err(|e| Error::new(Status::OutOfResources, format!("UPDATE_QUEUE: {e}")))
    }

    /// `hsa_amd_queue_set_priority`'s `UPDATE_QUEUE` (ROCr's
    /// `AqlQueue::SetPriority`), remembered for later suspends and resumes.
    pub(crate) fn set_priority(&self, priority: QueuePriority) -> Result<()> {
        let old = self.priority.swap(priority.get(), Ordering::AcqRel);
        let r = self.update_queue(QueuePercentage::FULL);
        if r.is_err() {
            self.priority.store(old, Ordering::Release);
        }
        r
    }

    /// `amd_queue_v2_t.scratch_max_use_index`.
    fn scratch_max_use_index(&self) -> &std::sync::atomic::AtomicU64 {
        // SAFETY: bytes 184..192 of our live, 64-byte aligned amd_queue_t
        // allocation (4 KiB, which holds amd_queue_v2_t) are the u64
        // scratch_max_use_index (aql::queue::v2 asserts the offset),
        // shared with the packet processor, so reached only atomically.
        unsafe {
            std::sync::atomic::AtomicU64::from_ptr(
                (self.amd_va + aql::queue::v2::SCRATCH_MAX_USE_INDEX as u64) as *mut u64,
            )
        }
    }

    /// The largest `scratch_last_used_index[xcc].main` over the GPU's XCCs:
    /// the last packet that ran on the queue's scratch.
    fn scratch_last_used_index(&self) -> u64 {
        let xcc = (self.scratch_geometry.xcc as usize).clamp(1, aql::queue::v2::MAX_NUM_XCC);
        (0..xcc)
            .filter_map(aql::queue::v2::scratch_last_used_index)
            .map(|o| {
                // SAFETY: `o` is inside amd_queue_v2_t (at most byte 2304 of
                // our 4 KiB allocation), 8-byte aligned: the u64 `main` of an
                // entry the packet processor writes, read atomically.
                unsafe {
                    std::sync::atomic::AtomicU64::from_ptr((self.amd_va + o as u64) as *mut u64)
                }
                .load(Ordering::Acquire)
            })
            .max()
            .unwrap_or(0)
    }

    /// ROCr's `AqlQueue::AsyncReclaimMainScratch`: takes the queue's
    /// scratch back while the queue runs. Under the scratch lock (a
    /// scratch request waits), the queue is suspended, so the firmware
    /// reads the new `scratch_max_use_index` when it is resumed: the last
    /// packet that used the scratch, so no later one does (it asks for
    /// scratch instead); once the read index has passed that packet (AMD's
    /// CP retires a dispatch at the read index when its waves end) the
    /// scratch goes back to the GPU's cache. A queue that has stopped (an
    /// error, inactivated, destroyed) runs no waves, so its scratch goes
    /// back at once. Returns the bytes given back (0: nothing to reclaim,
    /// or the GPU does not reclaim asynchronously).
    pub(crate) fn reclaim_scratch_async(&self) -> Result<u64> {
        if !self.async_reclaim {
            return Ok(0);
        }
        let mut s = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
        if s.block.bytes == 0 {
            return Ok(0);
        }
        let stopped = || {
            self.destroyed.load(Ordering::Acquire)
                || self.inactivated.load(Ordering::Acquire)
                || self
                    .error
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .is_some()
        };
        if !stopped() {
            self.update_queue(QueuePercentage::ZERO)?;
            let last = self.scratch_last_used_index();
            self.scratch_max_use_index().store(last, Ordering::Release);
            self.update_queue(QueuePercentage::FULL)?;
            // The packet `last` is running while the read index is not
            // past it; a queue whose packets never used the scratch (`last`
            // 0 and nothing written) has none to wait for.
            // ROCr yields in a loop; the wait can last as long as that
            // dispatch runs, so after a few yields this sleeps, backing off
            // to 1 ms, and leaves the CPU to the GPU's threads.
            let amd = self.amd();
            let mut round = 0u32;
            while amd.read_dispatch_id.load(Ordering::Acquire) <= last
                && amd.write_dispatch_id.load(Ordering::Acquire) > last
                && !stopped()
            {
                if round < 64 {
                    std::thread::yield_now();
                } else {
                    let us = 10u64 << ((round - 64) / 8).min(7);
                    std::thread::sleep(std::time::Duration::from_micros(us.min(1000)));
                }
                round = round.saturating_add(1);
            }
        }
        let bytes = s.block.bytes;
        self.core.scratch.release(&s.block);
        *s = Scratch::default();
        self.write_scratch_fields(&s);
        Ok(bytes)
    }

    /// The queue's scratch bytes (ROCr's `main_size`).
    pub(crate) fn scratch_bytes(&self) -> u64 {
        self.scratch_block().bytes
    }

    /// ROCr's `SetCUMasking` for `given` (empty: every CU).
    fn apply_cu_mask(&self, given: &[u32]) -> Result<bool> {
        let cus = self.scratch_geometry.cus;
        let dwords = cus.div_ceil(32) as usize;
        let tail = (1u32 << (cus % 32)).wrapping_sub(1);
        let index = self.core.gpu_ids.iter().position(|&g| g == self.gpu_id);
        let global = index.and_then(|i| self.core.cu_mask_env.mask(i as u32));
        let mut mask = if given.is_empty() {
            vec![u32::MAX; dwords]
        } else {
            given.to_vec()
        };
        let mut clipped = false;
        match global {
            Some(g) => {
                let limit = g.len().min(mask.len()).min(dwords);
                clipped = mask[limit..].iter().any(|&w| w != 0);
                mask.truncate(limit);
                for (m, g) in mask.iter_mut().zip(g) {
                    clipped |= *m & !g != 0;
                    *m &= g;
                }
            }
            None => mask.resize(mask.len().min(dwords), 0),
        }
        if mask.len() == dwords && tail != 0 {
            if let Some(last) = mask.last_mut() {
                *last &= tail;
            }
        }
        let mut current = self.cu_mask.lock().unwrap_or_else(|p| p.into_inner());
        // The default mask at queue creation needs no SET_CU_MASK.
        if !current.is_empty() || !given.is_empty() || global.is_some() {
            self.core
                .driver
                .set_cu_mask(self.queue_id, &mask)
                .map_err(|e| Error::driver("SET_CU_MASK", e))?;
        }
        *current = mask;
        Ok(clipped)
    }

    /// Code 512: the packet processor is done with the use-once scratch.
    /// ROCr's `DynamicQueueEventsHandler`: release it, clear the fields,
    /// restart the queue, clear `USE_SCRATCH_ONCE`.
    fn reclaim_scratch(&self) {
        let mut s = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
        self.core.scratch.release(&s.block);
        *s = Scratch::default();
        self.write_scratch_fields(&s);
        drop(s);
        self.inactive.store(0, StoreOrder::Relaxed);
        self.queue_properties()
            .fetch_and(!USE_SCRATCH_ONCE, Ordering::Release);
    }

    /// `amd_queue_t.queue_properties`, which the packet processor reads.
    fn queue_properties(&self) -> &std::sync::atomic::AtomicU32 {
        // SAFETY: byte 180 of our live, 64-byte aligned amd_queue_t is the
        // u32 `queue_properties` (aql's layout asserts the offset); shared
        // with the packet processor, so reached only atomically here.
        unsafe { std::sync::atomic::AtomicU32::from_ptr((self.amd_va + 180) as *mut u32) }
    }

    /// The scratch fields of the `amd_queue_t` for `s` (all 0 without
    /// scratch): the scratch V#, `compute_tmpring_size`, the backing
    /// memory and the wave64 lane size.
    fn write_scratch_fields(&self, s: &Scratch) {
        let g = &self.scratch_geometry;
        let va = s.block.va;
        let per_xcc = s.block.bytes / u64::from(g.xcc);
        let granule = u64::from(g.granule);
        // COMPUTE_TMPRING_SIZE: WAVESIZE [24:12] in granules, WAVES [11:0]
        // the waves the memory holds, at most every slot.
        let wave_granules = (u64::from(s.lanes) * s.size_per_thread).div_ceil(granule);
        let tmpring = if s.block.bytes == 0 || wave_granules == 0 {
            0
        } else {
            let waves = (per_xcc / (wave_granules * granule))
                .min(u64::from(g.cus) * u64::from(g.slots_per_cu))
                .min(0xfff);
            (waves as u32) | ((wave_granules as u32 & 0x1fff) << 12)
        };
        let srd = [
            va as u32,
            // BASE_ADDRESS_HI, SWIZZLE_ENABLE.
            ((va >> 32) as u32 & 0xffff) | (1 << 31),
            // NUM_RECORDS: the bytes per XCC.
            u32::try_from(per_xcc).unwrap_or(u32::MAX),
            // DST_SEL_XYZW, NUM_FORMAT UINT, DATA_FORMAT 32, ELEMENT_SIZE
            // 4, INDEX_STRIDE 64, ADD_TID_ENABLE, TYPE buffer.
            (1 << 23) | (3 << 21) | (1 << 19) | 0x27fac,
        ];
        let lane = u32::try_from(s.size_per_thread * u64::from(s.lanes) / 64).unwrap_or(u32::MAX);
        let base = self.amd_va;
        let put = |offset: u64, bytes: &[u8]| {
            // SAFETY: `offset..offset + bytes.len()` lies inside our live
            // amd_queue_t (at most byte 180 of 256); the packet processor
            // reads these words only between dispatches (the queue is idle
            // or stopped for scratch).
            unsafe {
                core::ptr::copy_nonoverlapping(
                    bytes.as_ptr(),
                    (base + offset) as *mut u8,
                    bytes.len(),
                )
            }
        };
        put(140, &tmpring.to_le_bytes());
        for (i, w) in srd.iter().enumerate() {
            put(144 + 4 * i as u64, &w.to_le_bytes());
        }
        put(160, &va.to_le_bytes());
        put(168, &per_xcc.to_le_bytes());
        put(176, &lane.to_le_bytes());
        std::sync::atomic::fence(Ordering::SeqCst);
    }

    /// Looks at the queue's inactive signal: handles a scratch request, or
    /// records and reports an error. Returns whether to keep watching: false
    /// once the queue is gone or stopped with an error.
    pub(crate) fn poll(&self) -> bool {
        if self.destroyed.load(Ordering::Acquire) {
            return false;
        }
        let v = self.inactive.load(LoadOrder::Acquire);
        if v == 0 {
            return true;
        }
        let code = (v as u64) & !(1 << 63);
        let mut err = self.error.lock().unwrap_or_else(|p| p.into_inner());
        if err.is_some() {
            return false;
        }
        if code == scratch_code::RECLAIM {
            drop(err);
            self.reclaim_scratch();
            return true;
        }
        if code & (scratch_code::INSUFFICIENT | scratch_code::INSUFFICIENT_WAVE32) != 0 {
            drop(err);
            return match self.scratch_for_stalled_dispatch(code) {
                Ok(()) => {
                    self.inactive.store(0, StoreOrder::Release);
                    true
                }
                Err(e) => {
                    self.fault(e.status);
                    false
                }
            };
        }
        let status = status_of_code(code);
        *err = Some(status);
        drop(err);
        self.report(status);
        false
    }

    /// ROCr's `HandleInsufficientScratch`: the packet at the read index is
    /// the stalled dispatch (the packet processor has not moved past it);
    /// size the scratch for its private segment, its waves (wave32 when
    /// the code has bit 0x400) and the device's slots.
    fn scratch_for_stalled_dispatch(&self, code: u64) -> Result<()> {
        let read = self.amd().read_dispatch_id.load(Ordering::Acquire);
        let slot = self.ring_va + (read % u64::from(self.slots)) * 64;
        // SAFETY: a packet slot of our ring, CPU-mapped while the queue
        // lives; the packet processor does not write it while stalled.
        let packet: [u32; 16] = unsafe { core::ptr::read_volatile(slot as *const [u32; 16]) };
        let p: KernelDispatchPacket = zerocopy::transmute!(packet);
        // Packet type: bits 0..8 of the header; 2 is KERNEL_DISPATCH.
        if p.header.0 & 0xff != 2 {
            return Err(Error::new(
                Status::InvalidPacketFormat,
                format!("scratch requested for packet {read}, which is not a kernel dispatch"),
            ));
        }
        let lanes = if code & scratch_code::INSUFFICIENT_WAVE32 != 0 {
            32
        } else {
            64
        };
        let grid = [p.grid_size_x, p.grid_size_y, p.grid_size_z];
        let wg = [p.workgroup_size_x, p.workgroup_size_y, p.workgroup_size_z];
        let waves = crate::scratch::dispatch_waves(&self.scratch_geometry, grid, wg, lanes);
        let items = wg.iter().map(|&w| u64::from(w.max(1))).product();
        let req = ScratchRequest::new(
            &self.scratch_geometry,
            p.private_segment_size,
            lanes,
            Some(waves),
        )?
        .for_groups_of(items);
        self.set_scratch(&req)
    }

    fn scratch_block(&self) -> ScratchBlock {
        self.scratch.lock().unwrap_or_else(|p| p.into_inner()).block
    }

    /// Records a fault the driver reported for this queue's GPU.
    #[allow(dead_code)] // the KFD event thread's (memory-exception events)
    pub(crate) fn fault(&self, status: Status) {
        let mut err = self.error.lock().unwrap_or_else(|p| p.into_inner());
        if err.is_some() {
            return;
        }
        *err = Some(status);
        drop(err);
        self.report(status);
    }

    fn report(&self, status: Status) {
        if let Some(cb) = &self.callback {
            cb(status, self.amd().hsa_queue.id);
        }
    }

    fn inactivate(&self) -> Result<()> {
        if self.destroyed.load(Ordering::Acquire) {
            return Err(Error::new(Status::InvalidQueue, "the queue was destroyed"));
        }
        if self.inactivated.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        self.core
            .driver
            .destroy_queue(self.queue_id)
            .map_err(|e| Error::driver("DESTROY_QUEUE", e))
    }

    pub(crate) fn destroy(&self) -> Result<()> {
        if self.destroyed.swap(true, Ordering::AcqRel) {
            return Err(Error::new(
                Status::InvalidQueue,
                "the queue was already destroyed",
            ));
        }
        // An inactivated queue's KFD queue is gone already.
        let r = if self.inactivated.swap(true, Ordering::AcqRel) {
            Ok(())
        } else {
            self.core
                .driver
                .destroy_queue(self.queue_id)
                .map_err(|e| Error::driver("DESTROY_QUEUE", e))
        };
        self.core
            .trap
            .unregister(self.gpu_id, self.doorbell_id, self.amd_va);
        for va in [
            self.ring_va,
            self.amd_va,
            self.eop_va,
            self.cwsr_va,
            self.doorbell_signal,
        ] {
            let _ = self.core.free(va);
        }
        // The scratch goes back to the GPU's cache (ROCr's
        // `ReleaseQueueMainScratch`), for the next queue to take.
        let mut s = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
        self.core.scratch.release(&s.block);
        *s = Scratch::default();
        drop(s);
        // Wake the queue's handler so it sees the queue gone and lets go
        // of the inactive signal (ROCr stores to it on destroy as well).
        self.inactive.store(i64::MIN, StoreOrder::Release);
        r
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        if !self.inner.destroyed.load(Ordering::Acquire) {
            let _ = self.inner.destroy();
        }
    }
}

/// The registry of a runtime's queues, for the queue monitor.
#[derive(Default)]
pub(crate) struct QueueList {
    pub(crate) list: Mutex<Vec<Weak<QueueInner>>>,
}

#[cfg(test)]
mod tests {
    use super::cwsr_sizes;

    /// The runtime's save-area figures, from the topology alone, are the
    /// device's own (the sim checks CREATE_QUEUE against them), on every
    /// board, as libhsakmt's are on the real driver.
    #[test]
    fn cwsr_sizes_are_the_devices() {
        for board in [sim::Board::Mi210, sim::Board::Mi250x, sim::Board::Mi300x] {
            let dev = sim::SimBuilder::new()
                .board(board)
                .without_shader_core()
                .build();
            let topo = kfd::topology::Topology::read(dev.topology().reader()).unwrap();
            for node in topo.gpus() {
                assert_eq!(
                    Some(cwsr_sizes(node)),
                    dev.cwsr_sizes(node.gpu_id),
                    "{board:?} node {}",
                    node.id
                );
            }
        }
    }
}
