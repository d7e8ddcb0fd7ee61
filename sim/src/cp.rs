//! The command processor: one thread per GPU that notices doorbell stores,
//! consumes AQL packets with `aql`'s packet processor, and does what the
//! CP firmware does with them.
//!
//! **Doorbell detection.** An unmodified client only stores the write index
//! to its doorbell (a 64-bit word of the doorbell page it mmapped from the
//! device; the CP has its own view of the same memfd). The CP compares
//! each queue's doorbell with the value it last saw. While anything
//! happened recently it spins (a new packet is seen within a cache-line
//! transfer); after [`SPIN_WINDOW`] of quiet it yields, then sleeps with an
//! exponential backoff up to [`MAX_SLEEP`], so an idle device costs ten
//! wake-ups a second. Anything that suggests the client waits for the GPU
//! (WAIT_EVENTS, CREATE_QUEUE, UPDATE_QUEUE) unparks it at once.
//!
//! **Ownership and shutdown.** [`CommandProcessor`] owns the thread;
//! dropping the device sets the stop flag, unparks and joins. Destroying a
//! queue takes the queue's `busy` lock, which the CP holds while it works
//! on that queue, so DESTROY_QUEUE returns only once the CP let go.

#![allow(unsafe_code)]

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use aql::doorbell::NoDoorbell;
use aql::packet::{AgentDispatchPacket, KernelDispatchPacket};
use aql::queue::v2::{self, AmdQueueCaps};
use aql::queue::{
    AmdQueueProperties, Completion, LoadOrder, PacketProcessor, PacketSlot, Poll, Ring,
};
use aql::{Packet, PacketHeader, SignalHandle};
use kfd::ioctl::raw;

use crate::cu::{ComputeUnit, CuLayout};
use crate::device::Inner;
use crate::dispatch::{AgentCall, Dispatch, QueueScratch, ShaderFault, WaveInterrupt};
use crate::memory::{Access, AtomicOp, DeviceMemory, FaultReason, GpuMemory, MemoryFault, Pinned};
use crate::sdma::SdmaError;
use crate::sdma::engine::{RunState, SdmaHooks, SdmaQueue, SdmaRing};

/// Spin this long after the last activity before backing off.
pub const SPIN_WINDOW: Duration = Duration::from_micros(200);
/// The longest the CP sleeps between looks at idle doorbells.
///
/// The trade-off: an idle engine wakes 10 times a second (target: under
/// 1 ms of CPU a second), and a client that only stores to the doorbell
/// after a long idle, without any ioctl, sees its first packet picked up
/// within this time. Clients that wait for the GPU call WAIT_EVENTS (ROCr's
/// `hsa_signal_wait_*` after its spin), and WAIT_EVENTS, CREATE_QUEUE and
/// UPDATE_QUEUE wake the engine at once.
pub const MAX_SLEEP: Duration = Duration::from_millis(100);
/// The longest an engine sleeps while its doorbell page is armed (a client
/// store wakes it at once; this only bounds what a store through a mapping
/// the watch missed would wait).
pub const ARMED_SLEEP: Duration = Duration::from_secs(1);
/// VGPRs per lane of one SIMD (gfx90a, gfx942: the unified register file).
const VGPRS_PER_SIMD: u32 = 512;
/// SGPRs of one SIMD (GFX9).
const SGPRS_PER_SIMD: u32 = 800;
/// Packets taken from one queue before looking at the others.
const BATCH: usize = 64;

/// What a queue executes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum QueueKind {
    /// AQL packets (`KFD_IOC_QUEUE_TYPE_COMPUTE_AQL`).
    Aql,
    /// SDMA packets.
    Sdma,
}

const ACTIVE: u8 = 0;
const ERROR: u8 = 1;
const WAIT_SCRATCH: u8 = 2;
/// Stopped by KFD after a VM fault of another queue of the process.
const EVICTED: u8 = 3;

/// Why a queue stopped: the legacy `queue_inactive_signal` code ROCr's
/// `DynamicQueueEventsHandler` decodes, and what happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueError {
    /// The code written (with bit 63) to `queue_inactive_signal`; 0 for a
    /// memory fault, which is reported through the memory-exception event.
    pub code: u64,
    /// The packet id.
    pub packet_id: u64,
    /// What went wrong.
    pub what: String,
}

/// Legacy queue error codes (`amd_aql_queue.cpp`).
pub mod code {
    /// Not enough scratch for a wave64 dispatch: the runtime grows it.
    pub const INSUFFICIENT_SCRATCH: u64 = 1;
    /// The dispatch that ran on the queue's use-once scratch
    /// (`AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE`) ended: the runtime takes
    /// the scratch back and restarts the queue.
    pub const RECLAIM_SCRATCH: u64 = 512;
    /// Invalid dimensions.
    pub const INVALID_DIM: u64 = 2;
    /// Invalid group memory (LDS) size.
    pub const INVALID_GROUP_MEMORY: u64 = 4;
    /// Invalid (or null) code object.
    pub const INVALID_CODE: u64 = 8;
    /// Invalid packet format.
    pub const INVALID_FORMAT: u64 = 32;
    /// Workgroup too large.
    pub const GROUP_TOO_LARGE: u64 = 64;
    /// Out of registers.
    pub const OUT_OF_REGISTERS: u64 = 128;
    /// Unsupported vendor packet.
    pub const VENDOR_FORMAT: u64 = 256;
    /// Memory aperture violation (ROCr's trap handler's
    /// `SIGNAL_CODE_MEM_VIOL`).
    pub const MEMORY_APERTURE_VIOLATION: u64 = 0x2000_0000;
    /// Illegal instruction.
    pub const ILLEGAL_INSTRUCTION: u64 = 0x4000_0000;
    /// Debug trap / abort.
    pub const TRAP: u64 = 0x8000_0000;
}

/// The CP's record of a user queue (`struct queue` + its MQD).
#[derive(Debug)]
pub(crate) struct QueueState {
    pub(crate) id: u32,
    pub(crate) gpu_id: u32,
    pub(crate) kind: QueueKind,
    /// The SDMA engine that runs an SDMA queue.
    pub(crate) sdma_engine: Option<usize>,
    ring: Mutex<(u64, u32, u32, u32)>,
    rptr: u64,
    wptr: u64,
    doorbell_offset: usize,
    /// Handles of the BOs `kfd_queue_acquire_buffers` took a reference on
    /// (wptr, rptr, ring, then EOP and CWSR for compute queues).
    buffers: Mutex<Vec<u64>>,
    cu_mask: Mutex<Vec<u32>>,
    state: AtomicU8,
    removed: AtomicBool,
    busy: Mutex<()>,
    error: Mutex<Option<QueueError>>,
    completed: AtomicU64,
    _percent: AtomicU32,
    /// The queue was (re)connected (created, UPDATE_QUEUE, restarted after
    /// a scratch request) since the CP last read its `amd_queue_v2_t`
    /// fields: gfx94x firmware reads them only then (ROCr's
    /// `AsyncReclaimMainScratch`: "CP FW only updates its copy of
    /// amd_queue_ on queue_connect").
    reconnected: AtomicBool,
    /// The CP's copy of the queue's v2 fields: the runtime set
    /// `AMD_QUEUE_CAPS_SW_ASYNC_RECLAIM` (and the firmware supports it) ...
    async_reclaim: AtomicBool,
    /// ... and `scratch_max_use_index`, the last packet that may use the
    /// queue's scratch, ...
    scratch_max_use_index: AtomicU64,
    /// ... and the queue's scratch fields as they were then: such firmware
    /// runs dispatches on its copy, so scratch the runtime frees without
    /// reconnecting the queue would still be used (why ROCr suspends and
    /// resumes the queue around `scratch_max_use_index`).
    scratch_copy: Mutex<Option<QueueScratch>>,
}

impl QueueState {
    pub(crate) fn new(
        id: u32,
        gpu_id: u32,
        kind: QueueKind,
        sdma_engine: Option<usize>,
        a: &raw::CreateQueueArgs,
        buffers: Vec<u64>,
        doorbell_offset: usize,
    ) -> Self {
        Self {
            id,
            gpu_id,
            kind,
            sdma_engine,
            ring: Mutex::new((
                a.ring_base_address,
                a.ring_size,
                a.queue_percentage & 0xff,
                a.queue_priority,
            )),
            rptr: a.read_pointer_address,
            wptr: a.write_pointer_address,
            doorbell_offset,
            buffers: Mutex::new(buffers),
            cu_mask: Mutex::new(Vec::new()),
            state: AtomicU8::new(ACTIVE),
            removed: AtomicBool::new(false),
            busy: Mutex::new(()),
            error: Mutex::new(None),
            completed: AtomicU64::new(0),
            _percent: AtomicU32::new(a.queue_percentage & 0xff),
            reconnected: AtomicBool::new(true),
            async_reclaim: AtomicBool::new(false),
            scratch_max_use_index: AtomicU64::new(u64::MAX),
            scratch_copy: Mutex::new(None),
        }
    }

    pub(crate) fn buffers(&self) -> Vec<u64> {
        lock(&self.buffers).clone()
    }

    /// UPDATE_QUEUE moved the ring to `new`: returns the old ring's handle.
    pub(crate) fn replace_ring_buffer(&self, new: u64) -> Option<u64> {
        let mut b = lock(&self.buffers);
        b.get_mut(2).map(|h| std::mem::replace(h, new))
    }

    fn ring(&self) -> (u64, u32, u32, u32) {
        *lock(&self.ring)
    }

    /// UPDATE_QUEUE: amdkfd unmaps and maps the queue again, so the
    /// firmware reads its `amd_queue_v2_t` fields anew.
    pub(crate) fn update(&self, base: u64, size: u32, percent: u32, priority: u32) {
        *lock(&self.ring) = (base, size, percent, priority);
        self.reconnected.store(true, Ordering::Release);
    }

    pub(crate) fn set_cu_mask(&self, mask: Vec<u32>) {
        *lock(&self.cu_mask) = mask;
    }

    /// `QUEUE_IS_ACTIVE`: a ring, a share of the GPU, and no error.
    pub(crate) fn is_active(&self) -> bool {
        let (base, size, percent, _) = self.ring();
        base != 0 && size != 0 && percent != 0 && self.state.load(Ordering::Acquire) == ACTIVE
    }

    pub(crate) fn last_error(&self) -> Option<QueueError> {
        lock(&self.error).clone()
    }

    pub(crate) fn completed(&self) -> u64 {
        self.completed.load(Ordering::Acquire)
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[derive(Debug, Default)]
struct Shared {
    queues: Mutex<Vec<Arc<QueueState>>>,
    generation: AtomicU64,
    stop: AtomicBool,
    tid: AtomicU32,
    /// The engine announced a backoff sleep: [`CommandProcessor::kick`]
    /// must unpark it (and clears this).
    sleeping: AtomicBool,
}

/// One GPU's command processor thread.
#[derive(Debug)]
pub(crate) struct CommandProcessor {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl CommandProcessor {
    /// The command processor of GPU `gpu`, or with `sdma_engine` its SDMA
    /// engine of that index: the same doorbell watching and shutdown, a
    /// different packet format.
    pub(crate) fn start(inner: Arc<Inner>, gpu: usize, sdma_engine: Option<usize>) -> Self {
        let shared = Arc::new(Shared::default());
        let s = Arc::clone(&shared);
        let name = match sdma_engine {
            None => format!("sim-cp{gpu}"),
            Some(e) => format!("sim-sdma{gpu}.{e}"),
        };
        let thread = std::thread::Builder::new()
            .name(name)
            .spawn(move || Worker::new(inner, gpu, s).run())
            .expect("spawn an engine thread of the simulated GPU");
        Self {
            shared,
            thread: Some(thread),
        }
    }

    /// Makes the engine look at its queues soon: wakes it from a backoff
    /// sleep. A spinning engine, or one with no queue (parked until
    /// [`CommandProcessor::add_queue`]), costs no syscall.
    pub(crate) fn kick(&self) {
        if self.shared.sleeping.swap(false, Ordering::AcqRel) {
            self.unpark();
        }
    }

    /// What the doorbell watch calls to kick this engine.
    pub(crate) fn waker(&self) -> crate::doorbell::Waker {
        let shared = Arc::clone(&self.shared);
        let thread = self.thread.as_ref().map(|t| t.thread().clone());
        Box::new(move || {
            if shared.sleeping.swap(false, Ordering::AcqRel) {
                if let Some(t) = &thread {
                    t.unpark();
                }
            }
        })
    }

    fn unpark(&self) {
        if let Some(t) = &self.thread {
            t.thread().unpark();
        }
    }

    pub(crate) fn add_queue(&self, q: Arc<QueueState>) {
        lock(&self.shared.queues).push(q);
        self.shared.generation.fetch_add(1, Ordering::AcqRel);
        self.unpark();
    }

    /// Removes `q`; returns once the CP no longer works on it. A dispatch
    /// running on it is preempted ([`Dispatch::preempt`]): its waves stop
    /// at their next branch, so a kernel that never ends does not keep
    /// DESTROY_QUEUE waiting.
    pub(crate) fn remove_queue(&self, q: &Arc<QueueState>) {
        q.removed.store(true, Ordering::Release);
        lock(&self.shared.queues).retain(|x| !Arc::ptr_eq(x, q));
        self.shared.generation.fetch_add(1, Ordering::AcqRel);
        drop(lock(&q.busy));
    }

    /// The thread's CPU time so far (`/proc/self/task/TID/schedstat`).
    pub(crate) fn cpu_time(&self) -> Option<Duration> {
        let tid = self.shared.tid.load(Ordering::Acquire);
        let s = std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat")).ok()?;
        let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
        Some(Duration::from_nanos(ns))
    }

    pub(crate) fn stop(mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

impl Drop for CommandProcessor {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

/// The packet at the read index the CP is working on: looked at, and not
/// yet launched (a barrier waiting for its dependencies, a dispatch waiting
/// for scratch) or launched and not finished.
#[derive(Debug, Clone)]
struct Pending {
    id: u64,
    packet: Packet,
}

/// What the CP leaves in a doorbell it has consumed.
pub(crate) const DOORBELL_IDLE: u64 = u64::MAX;

#[derive(Debug, Default)]
struct Local {
    pending: Option<Pending>,
    /// The ring may hold more than one batch.
    more: bool,
}

struct Worker {
    inner: Arc<Inner>,
    gpu: usize,
    shared: Arc<Shared>,
    queues: Vec<Arc<QueueState>>,
    local: HashMap<u32, Local>,
    sdma: HashMap<u32, SdmaLocal>,
    /// Each AQL queue's translations, kept between fetches.
    pins: RefCell<HashMap<u32, QueuePins>>,
    /// Per-packet translations (signals, mailboxes, kernel descriptors).
    tlb: RefCell<Tlb>,
    /// An interrupt of this pass woke a client blocked in WAIT_EVENTS.
    woke: std::cell::Cell<bool>,
    generation: u64,
}

/// Entries of [`Tlb`].
const TLB_ENTRIES: usize = 8;

/// A few translations the CP makes per packet, kept while the VA map does
/// not change: the completion signal (`amd_signal_t`, 6 words), its event
/// mailbox, the kernel descriptor. A lookup that cannot be pinned (not
/// mapped, misaligned, read-only for a write) is left to the uncached
/// access, which faults as before.
#[derive(Default)]
struct Tlb {
    entries: Vec<(u64, usize, Access, Pinned<AtomicU64>)>,
    /// The entry the next miss replaces once the table is full.
    next: usize,
}

impl Tlb {
    /// `count` words at `va` for `access`, translated once.
    fn get(
        &mut self,
        mem: &GpuMemory,
        va: u64,
        count: usize,
        access: Access,
    ) -> Option<&Pinned<AtomicU64>> {
        let hit = self
            .entries
            .iter()
            .position(|(v, c, a, p)| *v == va && *c == count && *a == access && p.is_current());
        let i = match hit {
            Some(i) => i,
            None => {
                let pin = mem.pin::<AtomicU64>(va, count, access).ok()?;
                if self.entries.len() < TLB_ENTRIES {
                    self.entries.push((va, count, access, pin));
                    self.entries.len() - 1
                } else {
                    let i = self.next;
                    self.next = (i + 1) % TLB_ENTRIES;
                    self.entries[i] = (va, count, access, pin);
                    i
                }
            }
        };
        self.entries.get(i).map(|e| &e.3)
    }
}

/// An AQL queue's ring, write and read index, and `amd_queue_t`, translated
/// once and reused until the ring moves (UPDATE_QUEUE) or the VA map
/// changes (any map or unmap: [`Pinned::is_current`]), instead of a VA-map
/// lookup under the map's lock per access.
struct QueuePins {
    /// The ring `(base, size)` and the read and write index addresses the
    /// pins are for (a queue id can be reused by a new queue on the same
    /// ring with other indices, with no VA-map change in between).
    key: (u64, u32, u64, u64),
    ring: Pinned<PacketSlot>,
    wptr: Pinned<AtomicU64>,
    rptr: Pinned<AtomicU64>,
    /// The first [`AMD_QUEUE_WORDS`] words of `amd_queue_t`, if the queue's
    /// pointers locate one and it is mapped (else each read faults as usual).
    amd_queue: Option<Pinned<AtomicU64>>,
}

/// `amd_signal_t` up to and including `end_ts` (offset 40).
const AMD_SIGNAL_WORDS: usize = 6;

/// `amd_queue_t` up to and including `queue_inactive_signal` (offset 192).
const AMD_QUEUE_WORDS: usize = 25;

/// An SDMA queue's engine state, kept between looks at its doorbell.
struct SdmaLocal {
    queue: SdmaQueue,
    ring: (u64, u32),
    /// The ring holds more than one batch, or a POLL_REGMEM waits.
    again: bool,
}

/// What the SDMA engine needs from the device: the GPU clock, the trap
/// interrupt (the KFD event whose id the packet's `int_context` carries,
/// as `kfd_signal_event_interrupt` for an SDMA trap).
struct SdmaDevice<'a>(&'a Inner);

impl SdmaHooks for SdmaDevice<'_> {
    fn gpu_clock(&mut self) -> u64 {
        self.0.gpu_clock()
    }

    fn trap(&mut self, int_context: u32) {
        self.0.events.interrupt(int_context);
    }
}

/// What a dispatch that ran asks of the CP afterwards.
struct Ran {
    /// The queue has `ENABLE_PROFILING`: the completion signal gets
    /// timestamps.
    profiling: bool,
    /// It ran on use-once scratch, to be handed back (code 512).
    reclaim: bool,
}

/// An error that ends the packet: memory fault or a queue error code.
enum Stop {
    Fault(MemoryFault),
    Code(u64, String),
    Scratch,
    /// The trap handler halted a wave after reporting the error itself.
    Halted(String),
    /// DESTROY_QUEUE stopped the running dispatch: nothing is reported
    /// (the queue is gone).
    Preempted,
}

impl From<MemoryFault> for Stop {
    fn from(m: MemoryFault) -> Self {
        Stop::Fault(m)
    }
}

impl Worker {
    fn new(inner: Arc<Inner>, gpu: usize, shared: Arc<Shared>) -> Self {
        Self {
            inner,
            gpu,
            shared,
            queues: Vec::new(),
            local: HashMap::new(),
            sdma: HashMap::new(),
            pins: RefCell::new(HashMap::new()),
            tlb: RefCell::new(Tlb::default()),
            woke: std::cell::Cell::new(false),
            generation: u64::MAX,
        }
    }

    fn memory(&self) -> &GpuMemory {
        &self.inner.gpus[self.gpu].memory
    }

    fn run(mut self) {
        self.shared.tid.store(
            rustix::thread::gettid().as_raw_nonzero().get() as u32,
            Ordering::Release,
        );
        let mut last_work = Instant::now();
        let mut sleep = Duration::from_micros(50);
        let mut yield_spin = false;
        let mut armed = false;
        while !self.shared.stop.load(Ordering::Acquire) {
            let g = self.shared.generation.load(Ordering::Acquire);
            if g != self.generation {
                self.generation = g;
                let old = std::mem::replace(&mut self.queues, lock(&self.shared.queues).clone());
                // State survives only for a queue that is still the same
                // object: an id freed by DESTROY_QUEUE and reused by a new
                // CREATE_QUEUE between two looks is a new queue, and must not
                // inherit the old one's pending packet. (`old` still holds the
                // destroyed queue, so the new one cannot share its address.)
                let kept: Vec<u32> = self
                    .queues
                    .iter()
                    .filter(|q| old.iter().any(|o| Arc::ptr_eq(o, q)))
                    .map(|q| q.id)
                    .collect();
                drop(old);
                self.local.retain(|k, _| kept.contains(k));
                self.sdma.retain(|k, _| kept.contains(k));
                self.pins.get_mut().retain(|k, _| kept.contains(k));
            }
            let mut worked = false;
            // Taken out for the pass (no per-pass allocation): `service`
            // does not look at the list.
            let queues = std::mem::take(&mut self.queues);
            for q in &queues {
                worked |= self.service(q);
            }
            self.queues = queues;
            if worked {
                self.shared.sleeping.store(false, Ordering::Release);
                last_work = Instant::now();
                sleep = Duration::from_micros(50);
                yield_spin = self.woke.replace(false);
                continue;
            }
            let quiet = last_work.elapsed();
            if self.queues.is_empty() {
                std::thread::park();
            } else if quiet < SPIN_WINDOW && !yield_spin {
                std::hint::spin_loop();
            } else if quiet < SPIN_WINDOW * 4 {
                // After an interrupt that woke a client blocked in
                // WAIT_EVENTS, the window is spent yielding: the woken
                // thread often lands on the CP's core (the waker's), and a
                // spinning CP would hold that core until preempted.
                std::thread::yield_now();
            } else if !self.shared.sleeping.swap(true, Ordering::AcqRel) {
                // Announced, and the doorbell page armed (a client store
                // now faults and kicks us): look at every queue once more
                // before parking, so a kick or a store that came before
                // either is not lost.
                armed = self.inner.doorbell_watch.arm(self.gpu);
                continue;
            } else {
                if armed {
                    std::thread::park_timeout(ARMED_SLEEP);
                } else {
                    std::thread::park_timeout(sleep);
                    sleep = (sleep * 2).min(MAX_SLEEP);
                }
                if !self.shared.sleeping.load(Ordering::Acquire) {
                    // Kicked (a doorbell store that faulted, WAIT_EVENTS,
                    // UPDATE_QUEUE): work is on its way. Stay awake a
                    // window, yielding, so that the client thread that
                    // kicked us (its faulting store is retried only once it
                    // runs again) gets a core, rather than re-arming at once
                    // and faulting the same store again.
                    last_work = Instant::now();
                    yield_spin = true;
                }
            }
        }
    }

    /// Works on one queue; true if anything happened.
    fn service(&mut self, q: &Arc<QueueState>) -> bool {
        let _busy = lock(&q.busy);
        if q.removed.load(Ordering::Acquire) {
            return false;
        }
        let state = q.state.load(Ordering::Acquire);
        if state == ERROR || state == EVICTED || !self.ring_usable(q) {
            return false;
        }
        // A doorbell is write-only for the client (MMIO): the CP consumes
        // each store by putting the sentinel back, so a store of the same
        // value as before (packet id 0 on a fresh queue) is noticed too.
        let rung = self.inner.gpus[self.gpu]
            .doorbells
            .atomic_u64_at(q.doorbell_offset)
            .is_some_and(|d| {
                d.load(Ordering::Relaxed) != DOORBELL_IDLE
                    && d.swap(DOORBELL_IDLE, Ordering::AcqRel) != DOORBELL_IDLE
            });
        if q.kind == QueueKind::Sdma {
            return self.service_sdma(q, rung);
        }
        // The idle poll's fast path: nothing rang, nothing left over.
        if !rung
            && state != WAIT_SCRATCH
            && self
                .local
                .get(&q.id)
                .is_none_or(|l| l.pending.is_none() && !l.more)
        {
            return false;
        }
        let mut local = self.local.remove(&q.id).unwrap_or_default();
        if state == WAIT_SCRATCH {
            let worked = self.scratch_retry(q, &mut local);
            self.local.insert(q.id, local);
            return worked;
        }
        let worked = self.drain(q, &mut local);
        self.local.insert(q.id, local);
        worked
    }

    /// Runs an SDMA queue's packets from its read pointer towards the write
    /// pointer the client published, a batch at a time.
    fn service_sdma(&mut self, q: &Arc<QueueState>, rung: bool) -> bool {
        let (base, size, _, _) = q.ring();
        let fresh = self.sdma.get(&q.id).is_none_or(|l| l.ring != (base, size));
        if !rung && !fresh && !self.sdma.get(&q.id).is_some_and(|l| l.again) {
            return false;
        }
        let mem = &self.inner.gpus[self.gpu].memory;
        if fresh {
            let ring = match SdmaRing::new(base, u64::from(size)) {
                Ok(r) => r,
                Err(e) => {
                    q.state.store(ERROR, Ordering::Release);
                    *lock(&q.error) = Some(QueueError {
                        code: 0,
                        packet_id: 0,
                        what: e.to_string(),
                    });
                    return true;
                }
            };
            let created = SdmaQueue::new(mem, ring, q.rptr, q.wptr);
            match created {
                Ok(queue) => {
                    self.sdma.insert(
                        q.id,
                        SdmaLocal {
                            queue,
                            ring: (base, size),
                            again: false,
                        },
                    );
                }
                Err(e) => {
                    self.sdma_error(q, e);
                    return true;
                }
            }
        }
        let Some(local) = self.sdma.get_mut(&q.id) else {
            return false;
        };
        let mut device = SdmaDevice(&self.inner);
        match local.queue.process(mem, &mut device, BATCH as u32) {
            Ok(p) => {
                local.again = !matches!(p.state, RunState::Idle);
                q.completed
                    .fetch_add(u64::from(p.executed), Ordering::AcqRel);
                p.executed > 0
            }
            Err(e) => {
                self.sdma_error(q, e);
                true
            }
        }
    }

    /// An SDMA queue stops: a memory fault goes the VM-fault way (memory
    /// event, eviction); anything else is recorded on the queue.
    fn sdma_error(&mut self, q: &QueueState, e: SdmaError) {
        self.sdma.remove(&q.id);
        match e {
            SdmaError::Memory { offset, fault, .. } => self.fault(q, offset, fault),
            SdmaError::QueuePointer { fault, .. } => self.fault(q, 0, fault),
            other => {
                q.state.store(ERROR, Ordering::Release);
                *lock(&q.error) = Some(QueueError {
                    code: 0,
                    packet_id: sdma_offset(&other),
                    what: other.to_string(),
                });
            }
        }
    }

    fn ring_usable(&self, q: &QueueState) -> bool {
        let (base, size, percent, _) = q.ring();
        base != 0 && size != 0 && percent != 0
    }

    /// Runs packets until the ring is empty, a barrier waits, or the batch ends.
    fn drain(&self, q: &QueueState, local: &mut Local) -> bool {
        let mut worked = false;
        local.more = false;
        for _ in 0..BATCH {
            // DESTROY_QUEUE preempts the queue at a packet boundary.
            if q.removed.load(Ordering::Acquire) {
                return worked;
            }
            if let Some(p) = local.pending.take() {
                match self.execute(q, &p) {
                    Ok(true) => {
                        worked = true;
                        q.completed.fetch_add(1, Ordering::AcqRel);
                        if q.state.load(Ordering::Acquire) == WAIT_SCRATCH {
                            return worked;
                        }
                    }
                    Ok(false) => {
                        local.pending = Some(p);
                        return worked;
                    }
                    Err(stop) => {
                        self.stop_queue(q, &p, stop, local);
                        return true;
                    }
                }
            }
            match self.peek(q) {
                Ok(None) => return worked,
                Ok(Some(Ok(p))) => {
                    worked = true;
                    local.pending = Some(p);
                }
                Ok(Some(Err((id, e)))) => {
                    let code = if e.contains("vendor") {
                        code::VENDOR_FORMAT
                    } else {
                        code::INVALID_FORMAT
                    };
                    self.error(q, id, code, format!("invalid packet: {e}"));
                    return true;
                }
                Err(f) => {
                    self.fault(q, 0, f);
                    return true;
                }
            }
        }
        local.more = true;
        worked
    }

    /// Makes the queue's ring, index and `amd_queue_t` translations current
    /// (see [`QueuePins`]).
    fn pin_queue(&self, q: &QueueState) -> Result<(), MemoryFault> {
        let (base, size, _, _) = q.ring();
        let mut pins = self.pins.borrow_mut();
        let stale = pins
            .get(&q.id)
            .is_none_or(|p| p.key != (base, size, q.rptr, q.wptr) || !p.ring.is_current());
        if stale {
            pins.remove(&q.id);
            let mem = self.memory();
            let ring = mem.pin::<PacketSlot>(base, size as usize / 64, Access::Write)?;
            let wptr = mem.pin::<AtomicU64>(q.wptr, 1, Access::Read)?;
            let rptr = mem.pin::<AtomicU64>(q.rptr, 1, Access::Write)?;
            let amd_queue = self
                .amd_queue(q)
                .and_then(|b| mem.pin::<AtomicU64>(b, AMD_QUEUE_WORDS, Access::Read).ok());
            pins.insert(
                q.id,
                QueuePins {
                    key: (base, size, q.rptr, q.wptr),
                    ring,
                    wptr,
                    rptr,
                    amd_queue,
                },
            );
        }
        Ok(())
    }

    /// Looks at the packet at the read index without consuming it: the read
    /// index stays on a packet until the CP launches it ([`Self::launch`]),
    /// as the HSA Runtime Programmer's Reference Manual 1.0 defines the read
    /// index (section "Queues": "the number of packets that have been
    /// processed and released by the queue's packet processor (i.e., the
    /// identifier of the next packet to be released)"), and as ROCr's
    /// scratch handler relies on (`DynamicQueueEventsHandler` reads the
    /// stalled dispatch at `read_dispatch_id`).
    #[allow(clippy::type_complexity)]
    fn peek(&self, q: &QueueState) -> Result<Option<Result<Pending, (u64, String)>>, MemoryFault> {
        self.pin_queue(q)?;
        let pins = self.pins.borrow();
        let Some(p) = pins.get(&q.id) else {
            return Ok(None);
        };
        let Ok(ring) = Ring::new(p.ring.get(), &p.wptr.get()[0], &p.rptr.get()[0], NoDoorbell)
        else {
            return Ok(None);
        };
        let id = ring.load_read_index(LoadOrder::Acquire);
        // Acquire on word 0 (the producer's release store publishes the
        // body words read after it).
        let words = ring.slot(id).load_words();
        if PacketHeader(words[0] as u16).is_invalid() {
            return Ok(None);
        }
        Ok(Some(match Packet::decode(&words) {
            Ok(packet) => Ok(Pending { id, packet }),
            Err(e) => Err((id, e.to_string())),
        }))
    }

    /// Launches packet `id`, the one [`Self::peek`] returned: `aql`'s
    /// packet processor consumes its slot (INVALID again) and moves the read
    /// index past it with release. Called once the packet passed every
    /// launch check (a dispatch about to run, a barrier whose dependencies
    /// are met), so a packet the CP cannot launch keeps the read index.
    fn launch(&self, q: &QueueState, id: u64) -> Result<(), Stop> {
        self.pin_queue(q)?;
        let pins = self.pins.borrow();
        let moved = |what: &str| {
            Stop::Code(
                code::INVALID_FORMAT,
                format!("packet {id} could not be launched: {what}"),
            )
        };
        let Some(p) = pins.get(&q.id) else {
            return Err(moved("the ring is gone"));
        };
        let Ok(ring) = Ring::new(p.ring.get(), &p.wptr.get()[0], &p.rptr.get()[0], NoDoorbell)
        else {
            return Err(moved("the ring is not a power of two of packets"));
        };
        let Some(mut pp) = ring.packet_processor() else {
            return Err(moved("the ring has another packet processor"));
        };
        if pp.read_index() != id {
            return Err(moved("the read index moved under the packet processor"));
        }
        match pp.poll() {
            Poll::Ready(f) => {
                // In-order execution: the packet completes before the next
                // is looked at, so the barrier bit holds.
                release(&mut pp, f.completion);
                Ok(())
            }
            _ => Err(moved("its slot no longer holds a packet")),
        }
    }

    /// Runs one packet: `Ok(true)` done, `Ok(false)` waits (a barrier).
    ///
    /// The packet is launched (its slot released, the read index moved past
    /// it) only once it can run: a barrier-AND/OR or barrier-value packet
    /// when its dependencies are met (HSA Runtime Programmer's Reference
    /// Manual 1.0, "Barrier-AND and barrier-OR packets": "The packet
    /// processor will not launch any further packets in that queue until
    /// the barrier-AND packet is complete"; "Packet states": a packet in
    /// the launch state "is being parsed, but it has not started
    /// execution", errors there are launch errors), a dispatch after the
    /// checks a launch makes (scratch included), an agent dispatch once a
    /// handler takes it. A packet that fails a launch check, or waits,
    /// keeps the read index. A kernel dispatch moves it when its waves
    /// have ended (AMD's CP retires a dispatch at the read index: see
    /// [`Self::dispatch`]), so one that faults keeps it too.
    fn execute(&self, q: &QueueState, p: &Pending) -> Result<bool, Stop> {
        let mem = self.memory();
        match &p.packet {
            Packet::BarrierAnd(b) => {
                for s in b.dependencies() {
                    if signal_value(mem, s)? != 0 {
                        return Ok(false);
                    }
                }
                let start = self.inner.gpu_clock();
                self.launch(q, p.id)?;
                self.complete(b.completion_signal, self.profiled(q).then_some(start))?;
            }
            Packet::BarrierOr(b) => {
                let mut any = false;
                let mut all_null = true;
                for s in b.dependencies() {
                    all_null = false;
                    if signal_value(mem, s)? == 0 {
                        any = true;
                        break;
                    }
                }
                if !any && !all_null {
                    return Ok(false);
                }
                let start = self.inner.gpu_clock();
                self.launch(q, p.id)?;
                self.complete(b.completion_signal, self.profiled(q).then_some(start))?;
            }
            Packet::AmdBarrierValue(b) => {
                if !b.signal.is_null() {
                    let v = signal_value(mem, b.signal)?;
                    match b.satisfied_by(v) {
                        Ok(true) => {}
                        Ok(false) => return Ok(false),
                        Err(e) => return Err(Stop::Code(code::VENDOR_FORMAT, e.to_string())),
                    }
                }
                let start = self.inner.gpu_clock();
                self.launch(q, p.id)?;
                self.complete(b.completion_signal, self.profiled(q).then_some(start))?;
            }
            Packet::KernelDispatch(k) => {
                // A CU mask that enables no CU: no workgroup can be placed,
                // the dispatch waits (amdkfd accepts such a mask; the queue
                // then hangs until the mask changes).
                let compute_units = self.enabled_cus(q);
                if compute_units.is_empty() {
                    return Ok(false);
                }
                let start = self.inner.gpu_clock();
                let ran = self.dispatch(q, p.id, k, compute_units)?;
                self.complete(k.completion_signal, ran.profiling.then_some(start))?;
                if ran.reclaim {
                    // The queue waits, as for more scratch, until the
                    // runtime has taken the scratch back and stored 0
                    // (ROCr's DynamicQueueEventsHandler, code 512).
                    q.state.store(WAIT_SCRATCH, Ordering::Release);
                    self.signal_reclaim(q)?;
                }
            }
            Packet::AgentDispatch(a) => {
                self.agent(q, p.id, a)?;
                self.complete(a.completion_signal, None)?;
            }
            Packet::AmdPm4Ib(b) => {
                // The IB runs before the read index moves past the packet:
                // ROCr's ExecutePM4 waits for the read index, not a signal.
                self.pm4_ib(b)?;
                self.launch(q, p.id)?;
                self.complete(b.completion_signal, None)?;
            }
        }
        Ok(true)
    }

    /// Runs the indirect buffer of a PM4-IB packet, as the AQL microcode
    /// does: type-3 packets in order (type-2 fillers skipped). What ROCr
    /// 5.2.3 sends this way is `GpuAgent::InvalidateCodeCaches` (after a
    /// code object is loaded): one `ACQUIRE_MEM` that invalidates the
    /// instruction, scalar and L2 caches; the sim's memory is coherent and
    /// it has no caches, so `ACQUIRE_MEM` and `NOP` complete at once. Any
    /// other opcode stops the queue with `INVALID_FORMAT`, naming it.
    fn pm4_ib(&self, b: &aql::AmdPm4IbPacket) -> Result<(), Stop> {
        const PM4_NOP: u32 = 0x10;
        const PM4_ACQUIRE_MEM: u32 = 0x58;
        let bad = |what: String| Stop::Code(code::INVALID_FORMAT, format!("PM4-IB packet: {what}"));
        let Some((va, dwords)) = b.indirect_buffer() else {
            return Err(bad(format!(
                "the jump {:08x?} is not a valid 4-dword INDIRECT_BUFFER",
                b.ib_jump_cmd
            )));
        };
        let mut bytes = vec![0u8; dwords as usize * 4];
        self.memory().read_bytes(va, &mut bytes)?;
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let mut i = 0;
        while i < words.len() {
            let h = words[i];
            match h >> 30 {
                2 => {
                    i += 1;
                    continue;
                }
                3 => {}
                t => {
                    return Err(bad(format!(
                        "IB {va:#x} dword {i}: type-{t} header {h:#010x} (the sim executes type-3 packets)"
                    )));
                }
            }
            let len = ((h >> 16) & 0x3fff) as usize + 2;
            let op = (h >> 8) & 0xff;
            if i + len > words.len() {
                return Err(bad(format!(
                    "IB {va:#x} dword {i}: opcode {op:#x} of {len} dwords runs past the IB's {} dwords",
                    words.len()
                )));
            }
            match op {
                PM4_NOP | PM4_ACQUIRE_MEM => {}
                _ => {
                    return Err(bad(format!(
                        "IB {va:#x} dword {i}: PM4 opcode {op:#x} is not executed by the sim"
                    )));
                }
            }
            i += len;
        }
        Ok(())
    }

    /// Whether the queue has `AMD_QUEUE_PROPERTIES_ENABLE_PROFILING` set: a
    /// profiled queue's barrier packets get `start_ts` / `end_ts` as its
    /// dispatches do (ROCclr times HIP events with barrier markers).
    fn profiled(&self, q: &QueueState) -> bool {
        self.scratch(q)
            .is_ok_and(|(_, p)| p.contains(AmdQueueProperties::ENABLE_PROFILING))
    }

    /// The CUs the queue's CU mask (SET_CU_MASK) enables on this GPU.
    fn enabled_cus(&self, q: &QueueState) -> Vec<ComputeUnit> {
        CuLayout::of(&self.inner.gpus[self.gpu].node.spec).enabled(&lock(&q.cu_mask))
    }

    fn amd_queue(&self, q: &QueueState) -> Option<u64> {
        // ROCr's rptr/wptr are amd_queue_t.read_dispatch_id (offset 128) and
        // write_dispatch_id (56): the CP finds the descriptor from them.
        let base = q.rptr.checked_sub(128)?;
        (q.wptr == base + 56).then_some(base)
    }

    /// Whether this GPU's firmware reclaims scratch asynchronously: what
    /// ROCr's `GpuAgent::AsyncScratchReclaimEnabled` requires of it, MEC
    /// firmware 177 or later on gfx94x, 24 or later on gfx95x.
    fn firmware_async_reclaim(&self) -> bool {
        let spec = &self.inner.gpus[self.gpu].node.spec;
        let (major, minor) = (
            spec.gfx_target_version / 10000,
            spec.gfx_target_version / 100 % 100,
        );
        major == 9
            && ((minor == 4 && spec.fw_version >= 177) || (minor == 5 && spec.fw_version >= 24))
    }

    /// The queue connect's part of asynchronous scratch reclaim
    /// (`amd_hsa_queue.h`, `amd_queue_v2_t`): firmware that supports it sets
    /// `AMD_QUEUE_CAPS_CP_ASYNC_RECLAIM` in `caps`, and, when the runtime set
    /// `AMD_QUEUE_CAPS_SW_ASYNC_RECLAIM`, copies `scratch_max_use_index`.
    fn connect_v2(&self, q: &QueueState) -> Result<(), MemoryFault> {
        if !q.reconnected.swap(false, Ordering::AcqRel) || !self.firmware_async_reclaim() {
            return Ok(());
        }
        let Some(base) = self.amd_queue(q) else {
            return Ok(());
        };
        let mem = self.memory();
        let caps_va = base + v2::CAPS as u64;
        let caps = AmdQueueCaps::from_bits_retain(mem.load_u32(caps_va, Ordering::Acquire)?);
        if !caps.contains(AmdQueueCaps::CP_ASYNC_RECLAIM) {
            mem.atomic_u32(caps_va, AtomicOp::Or, AmdQueueCaps::CP_ASYNC_RECLAIM.bits())?;
        }
        let sw = caps.contains(AmdQueueCaps::SW_ASYNC_RECLAIM);
        let max_use = if sw {
            mem.load_u64(base + v2::SCRATCH_MAX_USE_INDEX as u64, Ordering::Acquire)?
        } else {
            u64::MAX
        };
        q.scratch_max_use_index.store(max_use, Ordering::Release);
        *lock(&q.scratch_copy) = if sw { Some(self.scratch(q)?.0) } else { None };
        q.async_reclaim.store(sw, Ordering::Release);
        Ok(())
    }

    /// A dispatch `id` that needs scratch, and fits the queue's, on a queue
    /// with asynchronous reclaim: it may use it only up to the connect's
    /// `scratch_max_use_index` (else it asks for scratch, code 1), and the
    /// packet id goes to `scratch_last_used_index[xcc].main` of every XCC
    /// (each XCC's CP runs its part of every dispatch). ROCr's
    /// `AsyncReclaimMainScratch` pseudocode of the firmware.
    fn use_main_scratch(&self, q: &QueueState, id: u64) -> Result<(), Stop> {
        if id > q.scratch_max_use_index.load(Ordering::Acquire) {
            return Err(Stop::Scratch);
        }
        let Some(base) = self.amd_queue(q) else {
            return Ok(());
        };
        let xcc = self.inner.gpus[self.gpu].node.spec.num_xcc.max(1) as usize;
        let mem = self.memory();
        for x in 0..xcc.min(v2::MAX_NUM_XCC) {
            if let Some(o) = v2::scratch_last_used_index(x) {
                mem.store_u64(base + o as u64, id, Ordering::Release)?;
            }
        }
        Ok(())
    }

    fn scratch(&self, q: &QueueState) -> Result<(QueueScratch, AmdQueueProperties), MemoryFault> {
        let Some(base) = self.amd_queue(q) else {
            return Ok((QueueScratch::default(), AmdQueueProperties::empty()));
        };
        if let Some(words) = self
            .pins
            .borrow()
            .get(&q.id)
            .and_then(|p| p.amd_queue.as_ref())
            .filter(|a| a.is_current())
        {
            // The same fields from the cached translation (little-endian
            // halves of the 8-byte words at 136..184).
            let w = words.get();
            let at = |off: usize| w[off / 8].load(Ordering::Acquire);
            let lo = |v: u64| v as u32;
            let hi = |v: u64| (v >> 32) as u32;
            let (d0, d1) = (at(144), at(152));
            let last = at(176);
            return Ok((
                QueueScratch {
                    compute_tmpring_size: hi(at(136)),
                    resource_descriptor: [lo(d0), hi(d0), lo(d1), hi(d1)],
                    backing_memory_location: at(160),
                    backing_memory_byte_size: at(168),
                    wave64_lane_byte_size: lo(last),
                },
                AmdQueueProperties::from_bits_retain(hi(last)),
            ));
        }
        let mem = self.memory();
        let mut desc = [0u8; 16];
        mem.read_bytes(base + 144, &mut desc)?;
        let w = |i: usize| u32::from_le_bytes([desc[i], desc[i + 1], desc[i + 2], desc[i + 3]]);
        let props = mem.load_u32(base + 180, Ordering::Acquire)?;
        Ok((
            QueueScratch {
                compute_tmpring_size: mem.load_u32(base + 140, Ordering::Acquire)?,
                resource_descriptor: [w(0), w(4), w(8), w(12)],
                backing_memory_location: mem.load_u64(base + 160, Ordering::Acquire)?,
                backing_memory_byte_size: mem.load_u64(base + 168, Ordering::Acquire)?,
                wave64_lane_byte_size: mem.load_u32(base + 176, Ordering::Acquire)?,
            },
            AmdQueueProperties::from_bits_retain(props),
        ))
    }

    /// The checks a gfx90a CP makes, then the shader core; returns whether
    /// the queue has profiling enabled.
    fn dispatch(
        &self,
        q: &QueueState,
        id: u64,
        k: &KernelDispatchPacket,
        compute_units: Vec<ComputeUnit>,
    ) -> Result<Ran, Stop> {
        let mem = self.memory();
        let wg = k.workgroup_size().map(u32::from);
        let grid = k.grid_size();
        let dims = k.setup.dimensions().unwrap_or(3);
        if wg.iter().map(|v| u64::from(*v)).product::<u64>() > 1024 {
            return Err(Stop::Code(
                code::GROUP_TOO_LARGE,
                format!("workgroup {wg:?} exceeds 1024 work-items"),
            ));
        }
        if grid.iter().map(|v| u64::from(*v)).product::<u64>() > u64::from(u32::MAX) {
            return Err(Stop::Code(
                code::INVALID_DIM,
                format!("grid {grid:?} too large"),
            ));
        }
        if k.kernel_object == 0 {
            return Err(Stop::Code(code::INVALID_CODE, "null kernel object".into()));
        }
        let mut kd = [0u8; 64];
        let cached = self
            .tlb
            .borrow_mut()
            .get(mem, k.kernel_object, 8, Access::Read)
            .map(|pin| {
                for (i, w) in pin.get().iter().enumerate() {
                    kd[i * 8..i * 8 + 8].copy_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
                }
            })
            .is_some();
        let read = if cached {
            Ok(())
        } else {
            mem.read_bytes(k.kernel_object, &mut kd)
        };
        if let Err(f) = read {
            return Err(Stop::Code(
                code::INVALID_CODE,
                format!("kernel descriptor unreadable: {f}"),
            ));
        }
        let u32_at = |o: usize| u32::from_le_bytes([kd[o], kd[o + 1], kd[o + 2], kd[o + 3]]);
        // The LDS a workgroup gets is the packet's group_segment_size: the
        // kernel's fixed group memory plus whatever the dispatch adds
        // (AMDGPUUsage: COMPUTE_PGM_RSRC2.GRANULATED_LDS_SIZE "must be 0:
        // CP uses the rounded value from the dispatch packet"; hsa.h: it
        // "must not be less than the sum of the group memory used by the
        // kernel" and the dynamic allocations). A packet asking for less
        // than the descriptor's group_segment_fixed_size is refused rather
        // than run with LDS accesses out of range.
        let group = k.group_segment_size;
        let fixed = u32_at(0);
        if group < fixed {
            return Err(Stop::Code(
                code::INVALID_GROUP_MEMORY,
                format!(
                    "the packet's group segment ({group} bytes) is smaller than the kernel's fixed group segment ({fixed} bytes)"
                ),
            ));
        }
        if group > crate::topology::LDS_SIZE_KIB * 1024 {
            return Err(Stop::Code(
                code::INVALID_GROUP_MEMORY,
                format!("group segment {group} bytes exceeds 64 KiB"),
            ));
        }
        let rsrc1 = u32_at(48);
        // GRANULATED_WAVEFRONT_SGPR_COUNT counts SGPRs (VCC/FLAT/XNACK
        // included) in granules of 8 on GFX6-GFX9 (llvm-mc-19 for gfx90a:
        // `.amdhsa_next_free_sgpr 58` + 6 reserved = 64 encodes 7, 74 + 6
        // encodes 9); 102 SGPRs + VCC/FLAT/XNACK = 112 addressable.
        let sgprs = (((rsrc1 >> 6) & 0xf) + 1) * 8;
        if sgprs > 112 {
            return Err(Stop::Code(
                code::OUT_OF_REGISTERS,
                format!("{sgprs} SGPRs exceed the register file"),
            ));
        }
        // The workgroup must fit one CU: its wave64s spread over 4 SIMDs,
        // each with 512 VGPRs per lane (gfx90a/gfx942: arch + acc VGPRs,
        // granule 8) and 800 SGPRs. A workgroup the descriptor's register
        // use cannot place would never launch on hardware.
        let items: u32 = wg.iter().product();
        let per_simd = items.div_ceil(64).div_ceil(4);
        let vgprs = ((rsrc1 & 0x3f) + 1) * 8;
        if per_simd * vgprs > VGPRS_PER_SIMD || per_simd * sgprs > SGPRS_PER_SIMD {
            return Err(Stop::Code(
                code::OUT_OF_REGISTERS,
                format!(
                    "workgroup {wg:?} needs {per_simd} waves per SIMD of {vgprs} VGPRs and \
                     {sgprs} SGPRs: more than a SIMD's {VGPRS_PER_SIMD} VGPRs / {SGPRS_PER_SIMD} SGPRs"
                ),
            ));
        }
        self.connect_v2(q)?;
        let (mut scratch, props) = self.scratch(q)?;
        let async_reclaim = q.async_reclaim.load(Ordering::Acquire);
        if async_reclaim {
            if let Some(copy) = *lock(&q.scratch_copy) {
                scratch = copy;
            }
        }
        if k.private_segment_size > scratch.wave64_lane_byte_size {
            return Err(Stop::Scratch);
        }
        if k.private_segment_size > 0 && async_reclaim {
            self.use_main_scratch(q, id)?;
        }
        let profiling = props.contains(AmdQueueProperties::ENABLE_PROFILING);
        // A use-once (large) scratch is this dispatch's only: handed back
        // with code 512 once it ends.
        let reclaim = props.contains(AmdQueueProperties::USE_SCRATCH_ONCE)
            && scratch.backing_memory_byte_size != 0;
        let core = self
            .inner
            .shader_core
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let Some(core) = core else {
            return Err(Stop::Code(
                code::INVALID_CODE,
                ShaderFault::NoShaderCore.to_string(),
            ));
        };
        // A wave's s_sendmsg(MSG_INTERRUPT): the SQ interrupt KFD turns into
        // kfd_signal_event_interrupt(pasid, data, 24).
        let events = &self.inner.events;
        let interrupt = move |data: u32| {
            events.interrupt(data & 0xff_ffff);
        };
        let d = Dispatch {
            gpu_id: q.gpu_id,
            queue_id: q.id,
            packet_id: id,
            packet_address: {
                let (base, size, _, _) = q.ring();
                base + (id.wrapping_mul(64) % u64::from(size.max(64)))
            },
            queue_address: self.amd_queue(q).unwrap_or(0),
            dimensions: dims,
            workgroup_size: wg,
            grid_size: grid,
            kernel_object: k.kernel_object,
            kernel_descriptor: kd,
            kernarg_address: k.kernarg_address,
            private_segment_size: k.private_segment_size,
            group_segment_size: group,
            scratch,
            trap_handler: self.inner.gpus[self.gpu].trap_handler(),
            doorbell_id: ((q.doorbell_offset / 8) & 0x3ff) as u32,
            ttmp_setup: self.inner.ttmp_setup.load(Ordering::Acquire),
            dispatch_packet_index: {
                let (_, size, _, _) = q.ring();
                (id % (u64::from(size) / 64).max(1)) as u32
            },
            interrupt: Some(WaveInterrupt(&interrupt)),
            preempt: Some(&q.removed),
            compute_units,
            memory: mem,
        };
        // The read index stays on the dispatch while its waves run and
        // moves past it when the last wave ends, as AMD's CP retires a
        // dispatch: ROCdbgapi (`aql_queue_t::get_os_queue_packet_id`)
        // holds a resident wave's dispatch outside
        // [read_dispatch_id, write_dispatch_id) to be an error, and ROCr's
        // scratch reclaim frees scratch once read_dispatch_id has passed
        // the last dispatch that used it. A dispatch that faults keeps it.
        core.dispatch(&d).map_err(fault_stop)?;
        self.launch(q, id)?;
        Ok(Ran { profiling, reclaim })
    }

    fn agent(&self, q: &QueueState, id: u64, a: &AgentDispatchPacket) -> Result<(), Stop> {
        let handler = self
            .inner
            .agent_handler
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let Some(h) = handler else {
            return Err(Stop::Code(
                code::INVALID_FORMAT,
                format!("agent dispatch {} with no handler registered", a.type_),
            ));
        };
        self.launch(q, id)?;
        h.call(&AgentCall {
            gpu_id: self.inner.gpus[self.gpu].node.gpu_id,
            function: a.type_,
            args: a.arg,
            return_address: a.return_address,
            memory: self.memory(),
        })
        .map_err(fault_stop)
    }

    /// Profiling timestamps (`start` of a profiled dispatch), the
    /// decrement, the interrupt (`amd_signal_t`).
    fn complete(&self, signal: SignalHandle, start: Option<u64>) -> Result<(), Stop> {
        if signal.is_null() {
            return Ok(());
        }
        let mem = self.memory();
        let s = signal.handle;
        let mailbox = {
            let mut tlb = self.tlb.borrow_mut();
            match tlb.get(mem, s, AMD_SIGNAL_WORDS, Access::Write) {
                Some(pin) => {
                    // amd_signal_t: value 8, event_mailbox_ptr 16, event_id
                    // 24 (low half of the word), start_ts 32, end_ts 40.
                    let w = pin.get();
                    if let Some(start) = start {
                        w[4].store(start, Ordering::Relaxed);
                        w[5].store(self.inner.gpu_clock(), Ordering::Relaxed);
                    }
                    w[1].fetch_sub(1, Ordering::SeqCst);
                    let mailbox = w[2].load(Ordering::Acquire);
                    Some((mailbox, w[3].load(Ordering::Acquire) as u32))
                }
                None => None,
            }
        };
        match mailbox {
            Some((0, _)) => {}
            Some((mailbox, id)) => self.raise(mailbox, id)?,
            None => {
                if let Some(start) = start {
                    mem.store_u64(s + 32, start, Ordering::Relaxed)?;
                    mem.store_u64(s + 40, self.inner.gpu_clock(), Ordering::Relaxed)?;
                }
                mem.atomic_u64(s + 8, AtomicOp::Sub, 1)?;
                self.interrupt(s)?;
            }
        }
        Ok(())
    }

    /// The firmware's interrupt: write the event id to the mailbox, raise it.
    fn interrupt(&self, signal: u64) -> Result<(), MemoryFault> {
        let mem = self.memory();
        let mailbox = mem.load_u64(signal + 16, Ordering::Acquire)?;
        if mailbox != 0 {
            let id = mem.load_u32(signal + 24, Ordering::Acquire)?;
            self.raise(mailbox, id)?;
        }
        Ok(())
    }

    /// Event `id` to the mailbox at `mailbox`, then the interrupt.
    fn raise(&self, mailbox: u64, id: u32) -> Result<(), MemoryFault> {
        let mem = self.memory();
        let cached = self
            .tlb
            .borrow_mut()
            .get(mem, mailbox, 1, Access::Write)
            .map(|pin| pin.get()[0].store(u64::from(id), Ordering::Release))
            .is_some();
        if !cached {
            mem.store_u64(mailbox, u64::from(id), Ordering::Release)?;
        }
        if self.inner.events.interrupt(id) {
            self.woke.set(true);
        }
        Ok(())
    }

    fn stop_queue(&self, q: &QueueState, p: &Pending, stop: Stop, local: &mut Local) {
        match stop {
            Stop::Fault(f) => self.fault(q, p.id, f),
            Stop::Code(c, what) => self.error(q, p.id, c, what),
            Stop::Halted(what) => self.halted(q, p.id, what),
            Stop::Preempted => {}
            Stop::Scratch => {
                // The handshake: queue inactive, code 1; ROCr grows scratch,
                // stores 0 to queue_inactive_signal, and the CP retries.
                local.pending = Some(p.clone());
                q.state.store(WAIT_SCRATCH, Ordering::Release);
                *lock(&q.error) = Some(QueueError {
                    code: code::INSUFFICIENT_SCRATCH,
                    packet_id: p.id,
                    what: "private segment exceeds the queue's scratch".into(),
                });
                if let Err(f) = self.signal_inactive(q, code::INSUFFICIENT_SCRATCH) {
                    self.fault(q, p.id, f);
                }
            }
        }
    }

    fn scratch_retry(&self, q: &QueueState, local: &mut Local) -> bool {
        let Some(base) = self.amd_queue(q) else {
            return false;
        };
        let mem = self.memory();
        let Ok(handle) = mem.load_u64(base + 192, Ordering::Acquire) else {
            return false;
        };
        if handle == 0 || mem.load_u64(handle + 8, Ordering::Acquire) != Ok(0) {
            return false;
        }
        q.state.store(ACTIVE, Ordering::Release);
        *lock(&q.error) = None;
        // The runtime rewrote the queue's scratch fields (and, with
        // asynchronous reclaim, scratch_max_use_index) before the restart.
        q.reconnected.store(true, Ordering::Release);
        self.drain(q, local)
    }

    fn signal_inactive(&self, q: &QueueState, c: u64) -> Result<(), MemoryFault> {
        let Some(base) = self.amd_queue(q) else {
            return Ok(());
        };
        let mem = self.memory();
        let handle = mem.load_u64(base + 192, Ordering::Acquire)?;
        if handle == 0 {
            return Ok(());
        }
        mem.store_u64(handle + 8, (1 << 63) | c, Ordering::Release)?;
        self.interrupt(handle)
    }

    /// A wave halted by the trap handler: the queue stops where it is (the
    /// dispatch never completes); the handler has already stored its code
    /// in `queue_inactive_signal` and raised the event, so the CP only
    /// records it.
    fn halted(&self, q: &QueueState, id: u64, what: String) {
        q.state.store(ERROR, Ordering::Release);
        let code = self
            .amd_queue(q)
            .and_then(|base| {
                let mem = self.memory();
                let handle = mem.load_u64(base + 192, Ordering::Acquire).ok()?;
                (handle != 0).then(|| mem.load_u64(handle + 8, Ordering::Acquire).ok())?
            })
            .unwrap_or(0);
        *lock(&q.error) = Some(QueueError {
            code: code & !(1 << 63),
            packet_id: id,
            what,
        });
    }

    /// Code 512 in `queue_inactive_signal`, without the error bit 63 the
    /// other codes carry: ROCr 5.2.3's `DynamicScratchHandler` tests
    /// `error_code == 512` on the raw value (and asserts on an unknown
    /// code otherwise).
    fn signal_reclaim(&self, q: &QueueState) -> Result<(), MemoryFault> {
        let Some(base) = self.amd_queue(q) else {
            return Ok(());
        };
        let mem = self.memory();
        let handle = mem.load_u64(base + 192, Ordering::Acquire)?;
        if handle == 0 {
            return Ok(());
        }
        mem.store_u64(handle + 8, code::RECLAIM_SCRATCH, Ordering::Release)?;
        self.interrupt(handle)
    }

    fn error(&self, q: &QueueState, id: u64, c: u64, what: String) {
        q.state.store(ERROR, Ordering::Release);
        *lock(&q.error) = Some(QueueError {
            code: c,
            packet_id: id,
            what,
        });
        if let Err(f) = self.signal_inactive(q, c) {
            self.fault(q, id, f);
        }
    }

    /// A VM fault: the queue stops, every memory event learns the address,
    /// and, as KFD's interrupt handler does (`kfd_dqm_evict_pasid` /
    /// `kfd_evict_process_device` before `kfd_signal_vm_fault_event`), every
    /// other queue of the process on this GPU is evicted. Other GPUs run on.
    fn fault(&self, q: &QueueState, id: u64, f: MemoryFault) {
        let gpu_id = self.inner.gpus[self.gpu].node.gpu_id;
        for other in self
            .inner
            .queues_of_gpu(gpu_id)
            .iter()
            .filter(|o| o.id != q.id)
        {
            let evict = |from| {
                other
                    .state
                    .compare_exchange(from, EVICTED, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
            };
            if evict(ACTIVE) || evict(WAIT_SCRATCH) {
                *lock(&other.error) = Some(QueueError {
                    code: 0,
                    packet_id: 0,
                    what: format!("evicted: GPU memory fault on queue {}", q.id),
                });
            }
        }
        q.state.store(ERROR, Ordering::Release);
        *lock(&q.error) = Some(QueueError {
            code: 0,
            packet_id: id,
            what: f.to_string(),
        });
        self.inner.events.memory_fault(raw::HsaMemoryExceptionData {
            failure: raw::MemoryExceptionFailure {
                not_present: u32::from(f.reason == FaultReason::NotPresent),
                read_only: u32::from(f.reason == FaultReason::ReadOnly),
                no_execute: 0,
                imprecise: 0,
            },
            va: f.address & !4095,
            gpu_id,
            error_type: 0,
        });
    }
}

/// Hands a packet's completion token back to the processor that fetched it.
///
/// The ring lives in client memory and is borrowed through
/// [`GpuMemory::with_atomics`] only for one access, so each fetch builds a
/// processor over the ring's current read index and completes the packet on
/// that same processor; the CP runs packets in order, so nothing is ever in
/// flight across fetches and the barrier bit holds by construction.
#[allow(clippy::let_unit_value, clippy::ignored_unit_patterns)]
fn release(pp: &mut PacketProcessor<'_, '_, NoDoorbell>, token: Completion) {
    // Cannot fail: the token comes from `pp` itself.
    let _ = pp.complete(token);
}

/// The ring offset an SDMA error names, if any.
fn sdma_offset(e: &SdmaError) -> u64 {
    match *e {
        SdmaError::Packet { offset, .. }
        | SdmaError::Memory { offset, .. }
        | SdmaError::PollTimeout { offset, .. }
        | SdmaError::PacketLongerThanRing { offset, .. } => offset,
        SdmaError::BadWritePointer { rptr, .. } => rptr,
        SdmaError::QueuePointer { .. } => 0,
    }
}

fn fault_stop(f: ShaderFault) -> Stop {
    match f {
        // No trap handler to report it: the CP reports it as the handler would.
        ShaderFault::Memory(m) if m.reason == FaultReason::ApertureViolation => {
            Stop::Code(code::MEMORY_APERTURE_VIOLATION, f.to_string())
        }
        ShaderFault::Memory(m) => Stop::Fault(m),
        ShaderFault::Halted { .. } => Stop::Halted(f.to_string()),
        ShaderFault::Preempted => Stop::Preempted,
        ShaderFault::IllegalInstruction { .. } => {
            Stop::Code(code::ILLEGAL_INSTRUCTION, f.to_string())
        }
        ShaderFault::Trap { .. } | ShaderFault::Abort(_) => Stop::Code(code::TRAP, f.to_string()),
        ShaderFault::NoShaderCore => Stop::Code(code::INVALID_CODE, f.to_string()),
    }
}

fn signal_value(mem: &GpuMemory, s: SignalHandle) -> Result<i64, MemoryFault> {
    if s.is_null() {
        return Ok(0);
    }
    Ok(mem.load_u64(s.handle + 8, Ordering::Acquire)? as i64)
}
