//! A KFD client for the sim's tests: `Kfd<SimDevice>`, a render node,
//! buffers mapped at the VA the client chose (GPU VA == CPU VA), AQL queues
//! with the buffers `kfd_queue_acquire_buffers` wants, rung through the
//! doorbell page. No runtime involved.

#![allow(unsafe_code, dead_code)]

use std::os::fd::AsFd;
use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use aql::doorbell::MmioDoorbell;
use aql::packet::KernelDispatchPacket;
use aql::queue::{PacketSlot, Ring};
use aql::{PacketHeader, SignalHandle};
use kfd::ioctl::*;
use kfd::topology::Topology;
use kfd::{BufferMapping, Error, Kfd, QueueDesc, RenderNode};
use rustix::io::Errno;
use sim::{DeviceMemory, Dispatch, ShaderCore, ShaderFault, SimDevice};

pub const FLAGS: AllocMemFlags = AllocMemFlags::GTT
    .union(AllocMemFlags::WRITABLE)
    .union(AllocMemFlags::EXECUTABLE);

pub struct Client {
    pub kfd: Arc<Kfd<SimDevice>>,
    pub gpu_id: u32,
    pub gpu_ids: Vec<u32>,
    pub node: RenderNode<SimDevice>,
}

/// A buffer: CPU mapping at its GPU VA.
pub struct Buffer {
    pub handle: u64,
    pub va: u64,
    pub size: usize,
    _map: BufferMapping<SimDevice>,
}

impl Buffer {
    /// The `u32` at `offset`.
    pub fn u32_at(&self, offset: u64) -> &AtomicU32 {
        assert!(offset + 4 <= self.size as u64);
        // SAFETY: inside the live buffer, aligned by the callers.
        unsafe { &*((self.va + offset) as *const AtomicU32) }
    }

    /// The `u64` at `offset`.
    pub fn u64_at(&self, offset: u64) -> &AtomicU64 {
        assert!(offset + 8 <= self.size as u64);
        // SAFETY: inside the live buffer, aligned by the callers.
        unsafe { &*((self.va + offset) as *const AtomicU64) }
    }
}

impl Client {
    pub fn new() -> Self {
        Self::with(SimDevice::default())
    }

    pub fn with(dev: SimDevice) -> Self {
        let kfd = Kfd::with_device(dev).unwrap();
        let topo = Topology::read(kfd.device().topology().reader()).unwrap();
        let gpu = topo.gpus().next().unwrap();
        let node = kfd
            .open_render_node(gpu.properties.drm_render_minor)
            .unwrap();
        kfd.acquire_vm(node.as_fd(), gpu.gpu_id).unwrap();
        Self {
            gpu_id: gpu.gpu_id,
            gpu_ids: topo.gpus().map(|g| g.gpu_id).collect(),
            kfd: Arc::new(kfd),
            node,
        }
    }

    /// Every GPU of `dev`, each with its render node and acquired VM.
    pub fn all_gpus(dev: SimDevice) -> Vec<Self> {
        let kfd = Arc::new(Kfd::with_device(dev).unwrap());
        let topo = Topology::read(kfd.device().topology().reader()).unwrap();
        let ids: Vec<u32> = topo.gpus().map(|g| g.gpu_id).collect();
        topo.gpus()
            .map(|g| {
                let node = kfd.open_render_node(g.properties.drm_render_minor).unwrap();
                kfd.acquire_vm(node.as_fd(), g.gpu_id).unwrap();
                Self {
                    kfd: Arc::clone(&kfd),
                    gpu_id: g.gpu_id,
                    gpu_ids: ids.clone(),
                    node,
                }
            })
            .collect()
    }

    /// Reserves VA, allocates, maps to the GPU, maps for the CPU at the same address.
    pub fn buffer(&self, size: usize) -> Buffer {
        self.buffer_flags(size, FLAGS)
    }

    pub fn buffer_flags(&self, size: usize, flags: AllocMemFlags) -> Buffer {
        let size = size.next_multiple_of(4096);
        // SAFETY: a fresh PROT_NONE reservation the buffer then replaces.
        let va = unsafe {
            rustix::mm::mmap_anonymous(
                std::ptr::null_mut(),
                size,
                rustix::mm::ProtFlags::empty(),
                rustix::mm::MapFlags::PRIVATE | rustix::mm::MapFlags::NORESERVE,
            )
        }
        .unwrap() as u64;
        let a = self
            .kfd
            .alloc_memory_of_gpu(self.gpu_id, va, size as u64, flags)
            .unwrap();
        self.kfd
            .map_memory_to_gpu(a.handle, &[self.gpu_id])
            .unwrap();
        // SAFETY: our reservation, replaced by the buffer.
        let map = unsafe {
            self.node
                .map_at(NonNull::new(va as *mut u8).unwrap(), a.mmap_offset, size)
        }
        .unwrap();
        assert_eq!(map.as_ptr().as_ptr() as u64, va, "GPU VA == CPU VA");
        Buffer {
            handle: a.handle,
            va,
            size,
            _map: map,
        }
    }

    /// Unmaps from the GPU and frees (what a client does before dropping).
    pub fn release(&self, b: Buffer) {
        self.kfd
            .unmap_memory_from_gpu(b.handle, &[self.gpu_id])
            .unwrap();
        self.kfd.free_memory_of_gpu(b.handle).unwrap();
    }
}

pub fn atomic_u64(va: u64) -> &'static AtomicU64 {
    // SAFETY: the tests only pass addresses of live, 8-byte aligned buffer words.
    unsafe { &*(va as *const AtomicU64) }
}

pub fn atomic_u32(va: u64) -> &'static AtomicU32 {
    // SAFETY: the tests only pass addresses of live, 4-byte aligned buffer words.
    unsafe { &*(va as *const AtomicU32) }
}

/// An `amd_signal_t` in a buffer: kind 1 (user), value `v`.
pub fn signal(buf: &Buffer, at: u64, v: i64) -> SignalHandle {
    buf.u64_at(at).store(1, Ordering::Relaxed);
    buf.u64_at(at + 8).store(v as u64, Ordering::Release);
    SignalHandle {
        handle: buf.va + at,
    }
}

pub fn signal_value(s: SignalHandle) -> i64 {
    atomic_u64(s.handle + 8).load(Ordering::Acquire) as i64
}

/// `amd_queue_t` fields the tests touch.
pub mod amd_queue {
    pub const WRITE_DISPATCH_ID: u64 = 56;
    pub const READ_DISPATCH_ID: u64 = 128;
    pub const COMPUTE_TMPRING_SIZE: u64 = 140;
    pub const SCRATCH_BACKING_MEMORY_LOCATION: u64 = 160;
    pub const SCRATCH_BACKING_MEMORY_BYTE_SIZE: u64 = 168;
    pub const SCRATCH_WAVE64_LANE_BYTE_SIZE: u64 = 176;
    pub const QUEUE_PROPERTIES: u64 = 180;
    pub const QUEUE_INACTIVE_SIGNAL: u64 = 192;
}

pub struct Queue {
    pub info: kfd::QueueInfo,
    pub ring: Buffer,
    pub amd: Buffer,
    pub eop: Buffer,
    pub cwsr: Buffer,
    pub slots: usize,
    pub page: kfd::DoorbellPage<SimDevice>,
}

impl Queue {
    pub fn new(c: &Client, profiling: bool) -> Self {
        Self::with_slots(c, profiling, 64)
    }

    /// A compute AQL queue as ROCr makes one: ring, `amd_queue_t` (one page
    /// holding the write and read dispatch ids), EOP buffer, CWSR area.
    pub fn with_slots(c: &Client, profiling: bool, slots: usize) -> Self {
        let ring = c.buffer(slots * 64);
        let amd = c.buffer(4096);
        let eop = c.buffer(4096);
        let (ctl_stack, cwsr_size, area) = c.kfd.device().cwsr_sizes(c.gpu_id).unwrap();
        let cwsr = c.buffer(area as usize);
        // amd_queue_t: hsa_queue_t.size, the profiling bit.
        amd.u32_at(24).store(slots as u32, Ordering::Relaxed);
        amd.u32_at(amd_queue::QUEUE_PROPERTIES)
            .store(if profiling { 1 << 3 } else { 0 }, Ordering::Relaxed);
        for i in 0..slots as u64 {
            ring.u32_at(i * 64)
                .store(u32::from(PacketHeader::INVALID.0), Ordering::Relaxed);
        }
        let desc = QueueDesc {
            gpu_id: c.gpu_id,
            queue_type: QueueType::ComputeAql,
            percentage: QueuePercentage::FULL,
            priority: QueuePriority::NORMAL,
            ring_base_address: ring.va,
            ring_size: (slots * 64) as u32,
            write_pointer_address: amd.va + amd_queue::WRITE_DISPATCH_ID,
            read_pointer_address: amd.va + amd_queue::READ_DISPATCH_ID,
            eop_buffer_address: eop.va,
            eop_buffer_size: 4096,
            ctx_save_restore_address: cwsr.va,
            ctx_save_restore_size: cwsr_size,
            ctl_stack_size: ctl_stack,
            sdma_engine_id: 0,
        };
        // SAFETY: every address is a live buffer mapped to the GPU.
        let info = unsafe { c.kfd.create_queue(&desc) }.unwrap();
        let page = c.kfd.map_doorbell_page(info.doorbell_offset, 8192).unwrap();
        Self {
            info,
            ring,
            amd,
            eop,
            cwsr,
            slots,
            page,
        }
    }

    /// Installs a `queue_inactive_signal` (value 0) in `buf` at `at`.
    pub fn inactive_signal(&self, buf: &Buffer, at: u64) -> SignalHandle {
        let s = signal(buf, at, 0);
        self.amd
            .u64_at(amd_queue::QUEUE_INACTIVE_SIGNAL)
            .store(s.handle, Ordering::Release);
        s
    }

    fn ring(&self) -> Ring<'_, MmioDoorbell<'_>> {
        // SAFETY: the ring is a live buffer of this queue.
        let slots =
            unsafe { std::slice::from_raw_parts(self.ring.va as *const PacketSlot, self.slots) };
        // SAFETY: the doorbell lies in the live doorbell page.
        let db = unsafe { MmioDoorbell::new(self.page.doorbell()) };
        Ring::new(
            slots,
            self.amd.u64_at(amd_queue::WRITE_DISPATCH_ID),
            self.amd.u64_at(amd_queue::READ_DISPATCH_ID),
            db,
        )
        .unwrap()
    }

    /// Reserves a slot (waiting for room), writes the packet, rings the doorbell.
    pub fn submit(&self, words: [u32; 16]) -> u64 {
        let ring = self.ring();
        let t = Instant::now();
        loop {
            if let Ok(mut r) = ring.try_reserve(1) {
                let id = r.first_id();
                r.push_words(&words).unwrap();
                r.finish();
                return id;
            }
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "ring never drained: read {} write {} header at read {:#x}",
                self.read_index(),
                self.amd
                    .u64_at(amd_queue::WRITE_DISPATCH_ID)
                    .load(Ordering::Acquire),
                self.ring
                    .u32_at((self.read_index() % self.slots as u64) * 64)
                    .load(Ordering::Acquire)
            );
            std::thread::yield_now();
        }
    }

    /// The CP's read index.
    pub fn read_index(&self) -> u64 {
        self.amd
            .u64_at(amd_queue::READ_DISPATCH_ID)
            .load(Ordering::Acquire)
    }
}

/// Spins (yielding) until `f` holds; panics after 10 s.
pub fn wait_until(what: &str, mut f: impl FnMut() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(t.elapsed() < Duration::from_secs(10), "never: {what}");
        std::thread::yield_now();
    }
}

pub fn wait_zero(s: SignalHandle) {
    wait_until("signal reached 0", || signal_value(s) == 0);
}

/// A stand-in shader core: adds the number of workgroups to the u32 at the
/// kernarg address.
pub struct Counter;

impl ShaderCore for Counter {
    fn dispatch(&self, d: &Dispatch<'_>) -> Result<(), ShaderFault> {
        let groups: u32 = (0..3)
            .map(|i| d.grid_size[i].div_ceil(d.workgroup_size[i]))
            .product();
        d.memory
            .atomic_u32(d.kernarg_address, sim::AtomicOp::Add, groups)
            .map_err(ShaderFault::Memory)?;
        Ok(())
    }
}

pub fn errno<T>(r: Result<T, Error>) -> Option<Errno> {
    r.err().and_then(|e| e.errno())
}

pub fn dispatch_packet(kernel: u64, kernarg: u64, done: SignalHandle) -> KernelDispatchPacket {
    let mut p = KernelDispatchPacket::new(kernel, kernarg, [256, 1, 1], [64, 1, 1]);
    p.completion_signal = done;
    p
}

pub fn dispatch_words(kernel: u64, kernarg: u64, done: SignalHandle) -> [u32; 16] {
    zerocopy::transmute!(dispatch_packet(kernel, kernarg, done))
}

/// A shader core made of a closure.
pub struct FnCore<F>(pub F);

impl<F> ShaderCore for FnCore<F>
where
    F: Fn(&Dispatch<'_>) -> Result<(), ShaderFault> + Send + Sync,
{
    fn dispatch(&self, d: &Dispatch<'_>) -> Result<(), ShaderFault> {
        (self.0)(d)
    }
}

/// Waits for the queue's `queue_inactive_signal` to leave 0; returns the code.
pub fn wait_inactive(s: SignalHandle) -> u64 {
    wait_until("queue_inactive_signal set", || signal_value(s) != 0);
    let v = signal_value(s) as u64;
    assert_ne!(v & (1 << 63), 0, "bit 63 marks a queue error: {v:#x}");
    v & !(1 << 63)
}
