//! Shared client code for the shader-core tests: a process that drives
//! `Kfd<SimDevice>` as a runtime would (buffers allocated and mapped
//! through the ioctls, GPU VA == CPU VA), loads a code object with
//! `loader-core` into GPU memory, builds kernargs from the code object's
//! metadata (COv5 hidden arguments included), writes AQL packets, rings
//! the doorbell and waits on the completion signal.

#![allow(dead_code, unsafe_code)]

use std::collections::HashMap;
use std::os::fd::AsFd;
use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use aql::doorbell::MmioDoorbell;
use aql::packet::KernelDispatchPacket;
use aql::queue::{PacketSlot, Ring};
use aql::{PacketHeader, SignalHandle};
use kfd::ioctl::*;
use kfd::topology::Topology;
use kfd::{BufferMapping, Kfd, QueueDesc, RenderNode};
use loader_core::load::{AgentMemory, MemoryError, MemoryOp};
use loader_core::metadata::ValueKind;
use sim::{Interpreter, SimBuilder, SimDevice};

const FLAGS: AllocMemFlags = AllocMemFlags::GTT
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

fn atomic_u64(va: u64) -> &'static AtomicU64 {
    // SAFETY: the tests only pass addresses of live, 8-byte aligned buffer words.
    unsafe { &*(va as *const AtomicU64) }
}

/// The client process.
pub struct Client {
    /// The device handle.
    pub kfd: Kfd<SimDevice>,
    /// The GPU.
    pub gpu_id: u32,
    node: RenderNode<SimDevice>,
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
            kfd,
            node,
        }
    }

    /// A GPU buffer of `size` bytes aligned to `align` (a power of two >= 4096).
    pub fn buffer_aligned(&self, size: usize, align: usize) -> Buffer {
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
            .alloc_memory_of_gpu(self.gpu_id, va, size as u64, FLAGS)
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
}

/// An AQL queue with its `amd_queue_t`, and scratch if asked.
pub struct Queue {
    /// KFD's answer.
    pub info: kfd::QueueInfo,
    ring: Buffer,
    /// The `amd_queue_t`.
    pub amd: Buffer,
    _eop: Buffer,
    _cwsr: Buffer,
    _scratch: Option<Buffer>,
    page: kfd::DoorbellPage<SimDevice>,
    slots: u64,
}

/// Scratch per lane the test queues offer.
pub const SCRATCH_LANE_BYTES: u32 = 4096;

impl Queue {
    /// A queue of 64 slots; with `scratch_waves` wave slots of
    /// [`SCRATCH_LANE_BYTES`] per lane of scratch backing memory.
    pub fn new(c: &Client, scratch_waves: u32) -> Self {
        let slots = 64u64;
        let ring = c.buffer(slots as usize * 64);
        let amd = c.buffer(4096);
        let eop = c.buffer(4096);
        // The context save/restore area the driver requires (sizes from the topology).
        let (ctl_stack, cwsr_size, area) = c.kfd.device().cwsr_sizes(c.gpu_id).unwrap();
        let cwsr = c.buffer(area as usize);
        // amd_queue_t (amd_hsa_queue.h): hsa_queue_t.size at 24.
        amd.write_u32s(24, &[slots as u32]);
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
            amd.write_u32s(144, &srd);
            // compute_tmpring_size: WAVES [11:0], WAVESIZE [24:12] in KiB.
            let tmpring = (scratch_waves & 0xfff) | (((wave / 1024) as u32 & 0x1fff) << 12);
            amd.write_u32s(140, &[tmpring]);
            amd.write_u64s(160, &[s.va, bytes]);
            amd.write_u32s(176, &[SCRATCH_LANE_BYTES]);
            s
        });
        for i in 0..slots {
            ring.write_u32s(i as usize * 64, &[u32::from(PacketHeader::INVALID.0)]);
        }
        let desc = QueueDesc {
            gpu_id: c.gpu_id,
            queue_type: QueueType::ComputeAql,
            percentage: QueuePercentage::FULL,
            priority: QueuePriority::NORMAL,
            ring_base_address: ring.va,
            ring_size: (slots * 64) as u32,
            write_pointer_address: amd.va + 56,
            read_pointer_address: amd.va + 128,
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
            _eop: eop,
            _cwsr: cwsr,
            _scratch: scratch,
            page,
            slots,
        }
    }

    /// Writes a packet and rings the doorbell.
    pub fn submit(&self, words: [u32; 16]) {
        // SAFETY: the ring and indices are live buffers of this queue.
        let slots = unsafe {
            std::slice::from_raw_parts(self.ring.va as *const PacketSlot, self.slots as usize)
        };
        // SAFETY: the doorbell lies in the live doorbell page.
        let db = unsafe { MmioDoorbell::new(self.page.doorbell()) };
        let ring = Ring::new(
            slots,
            atomic_u64(self.amd.va + 56),
            atomic_u64(self.amd.va + 128),
            db,
        )
        .unwrap();
        let mut r = ring.try_reserve(1).unwrap();
        r.push_words(&words).unwrap();
        r.finish();
    }
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

fn dispatch_with(
    c: &Client,
    q: &Queue,
    k: &KernelInfo,
    kernarg: &[u8],
    g: Geometry,
    karg: &Buffer,
    sig: &Buffer,
) -> Outcome {
    karg.write(0, kernarg);
    // amd_signal_t: kind 1 (user), value 1; queue_inactive_signal 0.
    sig.write_u64s(0, &[1, 1]);
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
        std::thread::yield_now();
    }
}

/// The interpreter for gfx90a on `workers` threads.
pub fn interpreter(workers: usize) -> Arc<dyn sim::ShaderCore> {
    Arc::new(Interpreter::new(isa::Processor::Gfx90a, workers))
}
