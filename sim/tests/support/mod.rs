//! The sim's test client, shared by every test (and the `cp_roundtrip`
//! bench): a process that drives `Kfd<SimDevice>` as a runtime would
//! (buffers allocated and mapped through the ioctls, GPU VA == CPU VA,
//! render nodes, AQL queues with the buffers `kfd_queue_acquire_buffers`
//! wants, rung through the doorbell page), loads a code object with
//! `loader-core` into GPU memory, builds kernargs from the code object's
//! metadata (COv5 hidden arguments included), writes AQL packets, rings
//! the doorbell and waits on the completion signal. No runtime involved.

#![allow(dead_code, unsafe_code)]

use std::collections::HashMap;
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
use loader_core::load::{AgentMemory, MemoryError, MemoryOp};
use loader_core::metadata::ValueKind;
use rustix::io::Errno;
use sim::{DeviceMemory, Dispatch, Interpreter, ShaderCore, ShaderFault, SimBuilder, SimDevice};

/// What test buffers are allocated with: GTT, writable, executable.
pub const FLAGS: AllocMemFlags = AllocMemFlags::GTT
    .union(AllocMemFlags::WRITABLE)
    .union(AllocMemFlags::EXECUTABLE);

/// The private and shared apertures the sim reports (kfd GFX9 layout).
pub const PRIVATE_APERTURE: u64 = 0x2 << 48;
/// The shared (LDS) aperture.
pub const SHARED_APERTURE: u64 = 0x1 << 48;

/// A buffer: CPU mapping at its GPU VA.
pub struct Buffer {
    /// KFD handle.
    pub handle: u64,
    /// GPU (and CPU) address.
    pub va: u64,
    /// Size in bytes.
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

    /// Copies `data` to byte `at` of the buffer.
    pub fn write(&self, at: usize, data: &[u8]) {
        assert!(at + data.len() <= self.size, "write past the buffer");
        // SAFETY: inside our live mapping (checked); the GPU is not running
        // a kernel that touches these bytes while the test writes them.
        unsafe {
            std::ptr::copy_nonoverlapping(
                data.as_ptr(),
                (self.va as usize + at) as *mut u8,
                data.len(),
            )
        };
    }

    /// Reads `len` bytes at `at`.
    pub fn read(&self, at: usize, len: usize) -> Vec<u8> {
        assert!(at + len <= self.size, "read past the buffer");
        let mut v = vec![0u8; len];
        // SAFETY: inside our live mapping (checked); read after the kernel completed.
        unsafe {
            std::ptr::copy_nonoverlapping((self.va as usize + at) as *const u8, v.as_mut_ptr(), len)
        };
        v
    }

    /// Writes u32s at byte `at`.
    pub fn write_u32s(&self, at: usize, v: &[u32]) {
        let b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.write(at, &b);
    }

    /// Reads `n` u32s at byte `at`.
    pub fn read_u32s(&self, at: usize, n: usize) -> Vec<u32> {
        self.read(at, 4 * n)
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    /// Writes f32s at byte `at`.
    pub fn write_f32s(&self, at: usize, v: &[f32]) {
        self.write_u32s(at, &v.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    }

    /// Reads `n` f32s at byte `at`.
    pub fn read_f32s(&self, at: usize, n: usize) -> Vec<f32> {
        self.read_u32s(at, n)
            .into_iter()
            .map(f32::from_bits)
            .collect()
    }

    /// Writes u64s at byte `at`.
    pub fn write_u64s(&self, at: usize, v: &[u64]) {
        let b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.write(at, &b);
    }

    /// Reads `n` u64s at byte `at`.
    pub fn read_u64s(&self, at: usize, n: usize) -> Vec<u64> {
        self.read(at, 8 * n)
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
}

/// The `u64` at `va` (a live, 8-byte aligned buffer word).
pub fn atomic_u64(va: u64) -> &'static AtomicU64 {
    // SAFETY: the tests only pass addresses of live, 8-byte aligned buffer words.
    unsafe { &*(va as *const AtomicU64) }
}

/// The `u32` at `va` (a live, 4-byte aligned buffer word).
pub fn atomic_u32(va: u64) -> &'static AtomicU32 {
    // SAFETY: the tests only pass addresses of live, 4-byte aligned buffer words.
    unsafe { &*(va as *const AtomicU32) }
}

/// The client process.
pub struct Client {
    /// The device handle (shared by the clients of [`Client::all_gpus`]).
    pub kfd: Arc<Kfd<SimDevice>>,
    /// The GPU.
    pub gpu_id: u32,
    /// Every GPU of the device.
    pub gpu_ids: Vec<u32>,
    /// The GPU's render node (its VM acquired).
    pub node: RenderNode<SimDevice>,
}

impl Default for Client {
    /// A client of the first GPU of `SimDevice::default()`.
    fn default() -> Self {
        Self::with(SimDevice::default())
    }
}

impl Client {
    /// One MI210 with the default shader core (the interpreter), `workers` worker threads.
    pub fn new(workers: usize) -> Self {
        Self::with(SimBuilder::new().workers(workers).build())
    }

    /// One MI210 with `core` as its shader core.
    pub fn with_core(workers: usize, core: Option<Arc<dyn sim::ShaderCore>>) -> Self {
        let dev = SimBuilder::new().workers(workers).build();
        if let Some(core) = core {
            dev.set_shader_core(core);
        }
        Self::with(dev)
    }

    /// A client of `dev`.
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

    /// A GPU buffer of `size` bytes aligned to `align` (a power of two >= 4096).
    pub fn buffer_aligned(&self, size: usize, align: usize) -> Buffer {
        self.buffer_with(size, align, FLAGS)
    }

    /// A GPU buffer of `size` bytes allocated with `flags`.
    pub fn buffer_flags(&self, size: usize, flags: AllocMemFlags) -> Buffer {
        self.buffer_with(size, 4096, flags)
    }

    /// Reserves VA, allocates, maps to the GPU, maps for the CPU at the
    /// same address.
    fn buffer_with(&self, size: usize, align: usize, flags: AllocMemFlags) -> Buffer {
        let size = size.max(1).next_multiple_of(4096);
        let align = align.max(4096);
        // Reserve size + align, then place the buffer at the aligned address.
        // SAFETY: a fresh PROT_NONE reservation the buffer then replaces.
        let res = unsafe {
            rustix::mm::mmap_anonymous(
                std::ptr::null_mut(),
                size + align,
                rustix::mm::ProtFlags::empty(),
                rustix::mm::MapFlags::PRIVATE | rustix::mm::MapFlags::NORESERVE,
            )
        }
        .unwrap() as u64;
        let va = res.next_multiple_of(align as u64);
        let a = self
            .kfd
            .alloc_memory_of_gpu(self.gpu_id, va, size as u64, flags)
            .unwrap();
        self.kfd
            .map_memory_to_gpu(a.handle, &[self.gpu_id])
            .unwrap();
        // SAFETY: inside our reservation, replaced by the buffer.
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

    /// A GPU buffer of `size` bytes.
    pub fn buffer(&self, size: usize) -> Buffer {
        self.buffer_aligned(size, 4096)
    }

    /// Unmaps from the GPU and frees (what a client does before dropping).
    pub fn release(&self, b: Buffer) {
        self.kfd
            .unmap_memory_from_gpu(b.handle, &[self.gpu_id])
            .unwrap();
        self.kfd.free_memory_of_gpu(b.handle).unwrap();
    }
}

/// Deterministic test words (xorshift32 from `seed`).
pub fn xorshift(seed: u32) -> impl FnMut() -> u32 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        s
    }
}

/// `amd_queue_t` fields the tests touch (`amd_hsa_queue.h`).
pub mod amd_queue {
    /// `hsa_queue_t.size`.
    pub const SIZE: u64 = 24;
    /// `write_dispatch_id`: the write index.
    pub const WRITE_DISPATCH_ID: u64 = 56;
    /// `read_dispatch_id`: the read index.
    pub const READ_DISPATCH_ID: u64 = 128;
    /// `compute_tmpring_size`.
    pub const COMPUTE_TMPRING_SIZE: u64 = 140;
    /// `scratch_resource_descriptor`.
    pub const SCRATCH_RESOURCE_DESCRIPTOR: u64 = 144;
    /// `scratch_backing_memory_location`.
    pub const SCRATCH_BACKING_MEMORY_LOCATION: u64 = 160;
    /// `scratch_backing_memory_byte_size`.
    pub const SCRATCH_BACKING_MEMORY_BYTE_SIZE: u64 = 168;
    /// `scratch_wave64_lane_byte_size`.
    pub const SCRATCH_WAVE64_LANE_BYTE_SIZE: u64 = 176;
    /// `queue_properties`.
    pub const QUEUE_PROPERTIES: u64 = 180;
    /// `queue_inactive_signal`.
    pub const QUEUE_INACTIVE_SIGNAL: u64 = 192;
}

/// An AQL queue as ROCr makes one: ring, `amd_queue_t` (one page holding
/// the write and read dispatch ids), EOP buffer, CWSR area, and scratch
/// backing memory if asked.
pub struct Queue {
    /// KFD's answer.
    pub info: kfd::QueueInfo,
    /// The ring.
    pub ring: Buffer,
    /// The `amd_queue_t`.
    pub amd: Buffer,
    /// The EOP buffer.
    pub eop: Buffer,
    /// The context save/restore area.
    pub cwsr: Buffer,
    /// The scratch backing memory, if any.
    pub scratch: Option<Buffer>,
    /// Packet slots of the ring.
    pub slots: usize,
    /// The doorbell page.
    pub page: kfd::DoorbellPage<SimDevice>,
}

/// Scratch per lane the test queues offer.
pub const SCRATCH_LANE_BYTES: u32 = 4096;

impl Queue {
    /// A queue of 64 slots; with `scratch_waves` wave slots of
    /// [`SCRATCH_LANE_BYTES`] per lane of scratch backing memory.
    pub fn new(c: &Client, scratch_waves: u32) -> Self {
        Self::build(c, 64, false, scratch_waves)
    }

    /// A queue of 64 slots with no scratch; `profiling` sets the
    /// queue's profiling bit.
    pub fn no_scratch(c: &Client, profiling: bool) -> Self {
        Self::build(c, 64, profiling, 0)
    }

    /// [`Queue::no_scratch`] with `slots` packet slots.
    pub fn with_slots(c: &Client, profiling: bool, slots: usize) -> Self {
        Self::build(c, slots, profiling, 0)
    }

    fn build(c: &Client, slots: usize, profiling: bool, scratch_waves: u32) -> Self {
        let ring = c.buffer(slots * 64);
        let amd = c.buffer(4096);
        let eop = c.buffer(4096);
        // The context save/restore area the driver requires (sizes from the topology).
        let (ctl_stack, cwsr_size, area) = c.kfd.device().cwsr_sizes(c.gpu_id).unwrap();
        let cwsr = c.buffer(area as usize);
        // amd_queue_t: hsa_queue_t.size, the profiling bit.
        amd.u32_at(amd_queue::SIZE)
            .store(slots as u32, Ordering::Relaxed);
        amd.u32_at(amd_queue::QUEUE_PROPERTIES)
            .store(if profiling { 1 << 3 } else { 0 }, Ordering::Relaxed);
        let scratch = (scratch_waves > 0).then(|| {
            let wave = u64::from(SCRATCH_LANE_BYTES) * 64;
            let bytes = wave * u64::from(scratch_waves);
            let s = c.buffer(bytes as usize);
            // The scratch V# as ROCr builds it for GFX9 (amd_aql_queue.cpp
            // InitScratchSRD): base, SWIZZLE_ENABLE, ADD_TID_ENABLE,
            // INDEX_STRIDE 64, ELEMENT_SIZE 4.
            let srd = [
                s.va as u32,
                ((s.va >> 32) as u32 & 0xffff) | (1 << 31),
                u32::MAX,
                (1 << 23) | (3 << 21) | (1 << 19) | 0x27fac,
            ];
            amd.write_u32s(amd_queue::SCRATCH_RESOURCE_DESCRIPTOR as usize, &srd);
            // compute_tmpring_size: WAVES [11:0], WAVESIZE [24:12] in KiB.
            let tmpring = (scratch_waves & 0xfff) | (((wave / 1024) as u32 & 0x1fff) << 12);
            amd.write_u32s(amd_queue::COMPUTE_TMPRING_SIZE as usize, &[tmpring]);
            amd.write_u64s(
                amd_queue::SCRATCH_BACKING_MEMORY_LOCATION as usize,
                &[s.va, bytes],
            );
            amd.write_u32s(
                amd_queue::SCRATCH_WAVE64_LANE_BYTE_SIZE as usize,
                &[SCRATCH_LANE_BYTES],
            );
            s
        });
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
            scratch,
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

    /// Reserves a slot (waiting for room), writes the packet, rings the
    /// doorbell; returns the packet id.
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

/// An `amd_signal_t` in a buffer: kind 1 (user), value `v`.
pub fn signal(buf: &Buffer, at: u64, v: i64) -> SignalHandle {
    buf.u64_at(at).store(1, Ordering::Relaxed);
    buf.u64_at(at + 8).store(v as u64, Ordering::Release);
    SignalHandle {
        handle: buf.va + at,
    }
}

/// The value of signal `s`.
pub fn signal_value(s: SignalHandle) -> i64 {
    atomic_u64(s.handle + 8).load(Ordering::Acquire) as i64
}

/// Spins (yielding) until `f` holds; panics after 10 s.
pub fn wait_until(what: &str, mut f: impl FnMut() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(t.elapsed() < Duration::from_secs(10), "never: {what}");
        std::thread::yield_now();
    }
}

/// Waits for `s` to reach 0.
pub fn wait_zero(s: SignalHandle) {
    wait_until("signal reached 0", || signal_value(s) == 0);
}

/// Waits for the queue's `queue_inactive_signal` to leave 0; returns the code.
pub fn wait_inactive(s: SignalHandle) -> u64 {
    wait_until("queue_inactive_signal set", || signal_value(s) != 0);
    let v = signal_value(s) as u64;
    assert_ne!(v & (1 << 63), 0, "bit 63 marks a queue error: {v:#x}");
    v & !(1 << 63)
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

/// The errno of a failed call.
pub fn errno<T>(r: Result<T, Error>) -> Option<Errno> {
    r.err().and_then(|e| e.errno())
}

/// A dispatch of 256 work-items in workgroups of 64.
pub fn dispatch_packet(kernel: u64, kernarg: u64, done: SignalHandle) -> KernelDispatchPacket {
    let mut p = KernelDispatchPacket::new(kernel, kernarg, [256, 1, 1], [64, 1, 1]);
    p.completion_signal = done;
    p
}

/// [`dispatch_packet`] as packet words.
pub fn dispatch_words(kernel: u64, kernarg: u64, done: SignalHandle) -> [u32; 16] {
    zerocopy::transmute!(dispatch_packet(kernel, kernarg, done))
}

/// A loaded code object: the image buffer and each kernel's facts.
pub struct CodeObject {
    _image: Vec<Buffer>,
    /// Kernels by name.
    pub kernels: HashMap<String, KernelInfo>,
}

/// What dispatching a kernel needs.
#[derive(Clone, Debug)]
pub struct KernelInfo {
    /// The AQL `kernel_object`.
    pub kernel_object: u64,
    /// Kernarg bytes.
    pub kernarg_size: u32,
    /// Kernarg alignment.
    pub kernarg_align: u32,
    /// Group segment bytes.
    pub group_segment_size: u32,
    /// Private bytes per work-item.
    pub private_segment_size: u32,
    /// Arguments: (offset, size, kind).
    pub args: Vec<(u32, u32, ValueKind)>,
}

struct SimAgentMemory<'c> {
    client: &'c Client,
    buffers: Vec<Buffer>,
}

impl AgentMemory for SimAgentMemory<'_> {
    fn allocate(&mut self, size: u64, align: u64) -> Result<u64, MemoryError> {
        let b = self.client.buffer_aligned(size as usize, align as usize);
        let va = b.va;
        self.buffers.push(b);
        Ok(va)
    }

    fn write(&mut self, address: u64, bytes: &[u8]) -> Result<(), MemoryError> {
        let b = self.find(address, bytes.len(), MemoryOp::Write)?;
        b.write((address - b.va) as usize, bytes);
        Ok(())
    }

    fn zero(&mut self, address: u64, len: u64) -> Result<(), MemoryError> {
        let b = self.find(address, len as usize, MemoryOp::Zero)?;
        b.write((address - b.va) as usize, &vec![0u8; len as usize]);
        Ok(())
    }

    fn read(&mut self, address: u64, out: &mut [u8]) -> Result<(), MemoryError> {
        let b = self.find(address, out.len(), MemoryOp::Read)?;
        out.copy_from_slice(&b.read((address - b.va) as usize, out.len()));
        Ok(())
    }
}

impl SimAgentMemory<'_> {
    fn find(&self, address: u64, len: usize, op: MemoryOp) -> Result<&Buffer, MemoryError> {
        self.buffers
            .iter()
            .find(|b| address >= b.va && address + len as u64 <= b.va + b.size as u64)
            .ok_or(MemoryError {
                op,
                address,
                len: len as u64,
            })
    }
}

impl Client {
    /// Loads the code object at `path` (relative to the sim crate) into GPU memory.
    pub fn load(&self, path: &str) -> CodeObject {
        let bytes = std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        let mut mem = SimAgentMemory {
            client: self,
            buffers: Vec::new(),
        };
        let loaded = loader_core::load::load(bytes, &mut mem, |_| None).unwrap();
        let md = loaded.metadata().expect("code object v3+ has metadata");
        let mut kernels = HashMap::new();
        for k in loaded.kernels() {
            let k = k.unwrap();
            let mk = md.kernel(k.name).unwrap().expect("kernel in metadata");
            let args = mk
                .args()
                .map(|a| {
                    let a = a.unwrap();
                    (a.offset, a.size, a.value_kind)
                })
                .collect();
            kernels.insert(
                k.name.to_string(),
                KernelInfo {
                    kernel_object: k.kernel_object,
                    kernarg_size: k.kernarg_segment_size,
                    kernarg_align: k.kernarg_segment_align,
                    group_segment_size: k.group_segment_size,
                    private_segment_size: k.private_segment_size,
                    args,
                },
            );
        }
        CodeObject {
            _image: mem.buffers,
            kernels,
        }
    }
}

/// An explicit kernel argument.
#[derive(Clone, Debug)]
pub enum Arg {
    /// Raw bytes (scalars, structs), written at the argument's offset.
    Bytes(Vec<u8>),
    /// A pointer.
    Ptr(u64),
}

impl Arg {
    /// A u32 by value.
    pub fn u32(v: u32) -> Self {
        Arg::Bytes(v.to_le_bytes().to_vec())
    }

    /// An i32 by value.
    pub fn i32(v: i32) -> Self {
        Arg::Bytes(v.to_le_bytes().to_vec())
    }

    /// An f32 by value.
    pub fn f32(v: f32) -> Self {
        Arg::Bytes(v.to_le_bytes().to_vec())
    }

    /// A u64 by value.
    pub fn u64(v: u64) -> Self {
        Arg::Bytes(v.to_le_bytes().to_vec())
    }
}

/// Grid geometry of a dispatch.
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    /// Grid size in work-items.
    pub grid: [u32; 3],
    /// Work-group size.
    pub workgroup: [u16; 3],
    /// Dynamic LDS bytes.
    pub dynamic_lds: u32,
}

impl Geometry {
    /// A 1D grid.
    pub fn linear(grid: u32, workgroup: u16) -> Self {
        Self {
            grid: [grid, 1, 1],
            workgroup: [workgroup, 1, 1],
            dynamic_lds: 0,
        }
    }
}

/// The kernarg segment for `k`: explicit `args` in order, hidden arguments
/// as a COv5 runtime fills them (AMDGPUUsage "Code Object V5 Metadata").
pub fn kernargs(k: &KernelInfo, args: &[Arg], g: Geometry, queue: &Queue) -> Vec<u8> {
    let mut seg = vec![0u8; k.kernarg_size.max(16) as usize];
    let mut explicit = args.iter();
    let put = |seg: &mut Vec<u8>, off: u32, b: &[u8]| {
        let off = off as usize;
        seg[off..off + b.len()].copy_from_slice(b);
    };
    let dims = if g.grid[2] > 1 || g.workgroup[2] > 1 {
        3u16
    } else if g.grid[1] > 1 || g.workgroup[1] > 1 {
        2
    } else {
        1
    };
    for &(off, size, kind) in &k.args {
        let i = |d: usize| d;
        match kind {
            ValueKind::ByValue | ValueKind::GlobalBuffer | ValueKind::DynamicSharedPointer => {
                match explicit
                    .next()
                    .expect("an argument per explicit kernel argument")
                {
                    Arg::Bytes(b) => {
                        assert_eq!(b.len(), size as usize, "argument at {off} has {size} bytes");
                        put(&mut seg, off, b)
                    }
                    Arg::Ptr(p) => put(&mut seg, off, &p.to_le_bytes()[..size as usize]),
                }
            }
            ValueKind::HiddenBlockCountX
            | ValueKind::HiddenBlockCountY
            | ValueKind::HiddenBlockCountZ => {
                let d = i(match kind {
                    ValueKind::HiddenBlockCountX => 0,
                    ValueKind::HiddenBlockCountY => 1,
                    _ => 2,
                });
                put(
                    &mut seg,
                    off,
                    &(g.grid[d] / u32::from(g.workgroup[d])).to_le_bytes(),
                );
            }
            ValueKind::HiddenGroupSizeX
            | ValueKind::HiddenGroupSizeY
            | ValueKind::HiddenGroupSizeZ => {
                let d = match kind {
                    ValueKind::HiddenGroupSizeX => 0,
                    ValueKind::HiddenGroupSizeY => 1,
                    _ => 2,
                };
                put(&mut seg, off, &g.workgroup[d].to_le_bytes());
            }
            ValueKind::HiddenRemainderX
            | ValueKind::HiddenRemainderY
            | ValueKind::HiddenRemainderZ => {
                let d = match kind {
                    ValueKind::HiddenRemainderX => 0,
                    ValueKind::HiddenRemainderY => 1,
                    _ => 2,
                };
                put(
                    &mut seg,
                    off,
                    &((g.grid[d] % u32::from(g.workgroup[d])) as u16).to_le_bytes(),
                );
            }
            ValueKind::HiddenGridDims => put(&mut seg, off, &dims.to_le_bytes()),
            ValueKind::HiddenDynamicLdsSize => put(&mut seg, off, &g.dynamic_lds.to_le_bytes()),
            ValueKind::HiddenPrivateBase => put(
                &mut seg,
                off,
                &((PRIVATE_APERTURE >> 32) as u32).to_le_bytes(),
            ),
            ValueKind::HiddenSharedBase => put(
                &mut seg,
                off,
                &((SHARED_APERTURE >> 32) as u32).to_le_bytes(),
            ),
            ValueKind::HiddenQueuePtr => put(&mut seg, off, &queue.amd.va.to_le_bytes()),
            // Global offsets 0; no printf/hostcall/heap/default queue/completion action.
            _ => {}
        }
    }
    assert!(
        explicit.next().is_none(),
        "more arguments than the kernel has"
    );
    seg
}

/// How a dispatch ended.
#[derive(Debug)]
pub enum Outcome {
    /// The completion signal reached 0.
    Done,
    /// The queue went into its error path: (code written to
    /// `queue_inactive_signal`, 0 for a memory fault; what the sim says).
    Error(u64, String),
}

/// Kernarg and signal memory that [`dispatch_in`] reuses, for a test that
/// runs more dispatches than fresh buffers per dispatch would allow.
pub struct DispatchMemory {
    karg: Buffer,
    sig: Buffer,
}

impl DispatchMemory {
    /// A page of kernarg memory and a signal page.
    pub fn new(c: &Client) -> Self {
        Self {
            karg: c.buffer(4096),
            sig: c.buffer(4096),
        }
    }
}

/// Dispatches `k` with `args` on `q` and waits for it (up to 120 s).
pub fn dispatch(c: &Client, q: &Queue, k: &KernelInfo, args: &[Arg], g: Geometry) -> Outcome {
    let kernarg = kernargs(k, args, g, q);
    let karg = c.buffer(kernarg.len());
    let sig = c.buffer(4096);
    dispatch_with(c, q, k, &kernarg, g, &karg, &sig)
}

/// [`dispatch`] with kernarg and signal memory of `mem` (the previous
/// dispatch on it must have ended).
pub fn dispatch_in(
    c: &Client,
    q: &Queue,
    k: &KernelInfo,
    args: &[Arg],
    g: Geometry,
    mem: &DispatchMemory,
) -> Outcome {
    let kernarg = kernargs(k, args, g, q);
    dispatch_with(c, q, k, &kernarg, g, &mem.karg, &mem.sig)
}

/// A KFD signal event that a completion signal names (ROCr's interrupt
/// signals: `event_mailbox_ptr` and `event_id` of `amd_signal_t`), so
/// that the CP raises it when the signal completes and a waiter sleeps in
/// `AMDKFD_IOC_WAIT_EVENTS` until then.
pub struct CompletionEvent {
    /// The event's id.
    pub id: u32,
    /// Its slot in the event page: the signal's `event_mailbox_ptr`.
    pub mailbox: u64,
    /// The event page (dGPU style: a buffer of the client's, given to its
    /// first event).
    _page: Buffer,
}

impl CompletionEvent {
    /// The client's first event, auto-reset.
    pub fn new(c: &Client) -> Self {
        let page = c.buffer(kfd::EVENT_PAGE_SIZE);
        let ev = c
            .kfd
            .create_event(&kfd::EventDesc {
                event_type: EventType::Signal,
                auto_reset: true,
                node_id: 0,
                event_page_handle: Some(page.handle),
            })
            .expect("AMDKFD_IOC_CREATE_EVENT");
        Self {
            id: ev.event_id,
            mailbox: page.va + u64::from(ev.event_slot_index) * 8,
            _page: page,
        }
    }
}

/// [`dispatch`] whose wait sleeps on `ev` (checking the signal and the
/// queue's error between waits of at most 100 ms), as an HSA client's
/// blocking wait on an interrupt signal does: the waiting thread takes no
/// CPU while the sim's workers run (the shader bench: a client that woke
/// every 200 µs cost two workers on two cores a tenth of their time).
pub fn dispatch_on_event(
    c: &Client,
    q: &Queue,
    k: &KernelInfo,
    args: &[Arg],
    g: Geometry,
    ev: &CompletionEvent,
) -> Outcome {
    let kernarg = kernargs(k, args, g, q);
    let karg = c.buffer(kernarg.len());
    let sig = c.buffer(4096);
    dispatch_wait(c, q, k, &kernarg, g, &karg, &sig, Wait::Event(ev))
}

/// How [`dispatch_wait`] waits for the completion signal.
#[derive(Clone, Copy)]
enum Wait<'a> {
    /// Spinning, yielding the CPU between looks.
    Spin,
    /// Sleeping on the event the signal names.
    Event(&'a CompletionEvent),
}

fn dispatch_with(
    c: &Client,
    q: &Queue,
    k: &KernelInfo,
    kernarg: &[u8],
    g: Geometry,
    karg: &Buffer,
    sig: &Buffer,
) -> Outcome {
    dispatch_wait(c, q, k, kernarg, g, karg, sig, Wait::Spin)
}

#[allow(clippy::too_many_arguments)]
fn dispatch_wait(
    c: &Client,
    q: &Queue,
    k: &KernelInfo,
    kernarg: &[u8],
    g: Geometry,
    karg: &Buffer,
    sig: &Buffer,
    wait: Wait<'_>,
) -> Outcome {
    karg.write(0, kernarg);
    // amd_signal_t: kind 1 (user), value 1, the event's mailbox and id if
    // any; queue_inactive_signal 0.
    sig.write_u64s(0, &[1, 1, 0, 0]);
    if let Wait::Event(ev) = wait {
        sig.write_u64s(16, &[ev.mailbox, u64::from(ev.id)]);
    }
    sig.write_u64s(128, &[1, 0]);
    q.amd.write_u64s(192, &[sig.va + 128]);
    let mut p = KernelDispatchPacket::new(k.kernel_object, karg.va, g.grid, g.workgroup);
    p.completion_signal = SignalHandle { handle: sig.va };
    p.private_segment_size = k.private_segment_size;
    // hsa.h: the packet's group segment is the kernel's fixed group
    // memory plus the dynamic part.
    p.group_segment_size = k.group_segment_size + g.dynamic_lds;
    q.submit(zerocopy::transmute!(p));
    let t = Instant::now();
    loop {
        if atomic_u64(sig.va + 8).load(Ordering::Acquire) == 0 {
            return Outcome::Done;
        }
        // The error path: a code in queue_inactive_signal, or (a memory
        // fault) the queue stopped with the fault recorded and the
        // memory-exception event set.
        let inactive = atomic_u64(sig.va + 128 + 8).load(Ordering::Acquire);
        if let Some(e) = c.kfd.device().queue_error(q.info.queue_id) {
            if inactive != 0 || e.code == 0 {
                return Outcome::Error(inactive, e.what);
            }
        }
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "dispatch never completed"
        );
        match wait {
            Wait::Spin => std::thread::yield_now(),
            Wait::Event(ev) => {
                // Auto-reset: a completion between the look above and
                // this wait leaves the event set, and the wait returns.
                let mut data = [raw::EventData::new(ev.id)];
                c.kfd
                    .wait_events(&mut data, false, 100)
                    .expect("AMDKFD_IOC_WAIT_EVENTS");
            }
        }
    }
}

/// The interpreter for gfx90a on `workers` threads.
pub fn interpreter(workers: usize) -> Arc<dyn sim::ShaderCore> {
    Arc::new(Interpreter::new(isa::Processor::Gfx90a, workers))
}

/// Copies `bytes` to client memory at `va` (a live mapping of a buffer or
/// a loaded code object, GPU VA == CPU VA), as a client rewriting code
/// between dispatches does.
pub fn poke(va: u64, bytes: &[u8]) {
    // SAFETY: the tests only pass ranges inside live mappings they own,
    // while no dispatch runs.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), va as *mut u8, bytes.len()) };
}

/// Reads `len` bytes of client memory at `va` (a live mapping).
pub fn peek(va: u64, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    // SAFETY: as for `poke`.
    unsafe { std::ptr::copy_nonoverlapping(va as *const u8, v.as_mut_ptr(), len) };
    v
}

/// The GPU address of a kernel's first instruction: the descriptor's
/// `kernel_code_entry_byte_offset` (an i64 at byte 16) from its address.
pub fn kernel_entry(k: &KernelInfo) -> u64 {
    let off = i64::from_le_bytes(peek(k.kernel_object + 16, 8).try_into().unwrap());
    k.kernel_object.wrapping_add(off as u64)
}
