//! The sim driven as a client drives amdkfd: `Kfd<SimDevice>`, a render
//! node, buffers mapped at the VA the client chose, AQL queues rung through
//! the doorbell page. No runtime involved.

#![allow(unsafe_code)]

use std::os::fd::AsFd;
use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use aql::doorbell::MmioDoorbell;
use aql::packet::{BarrierAndPacket, KernelDispatchPacket};
use aql::queue::{PacketSlot, Ring};
use aql::{PacketHeader, SignalHandle};
use kfd::ioctl::raw;
use kfd::ioctl::*;
use kfd::topology::Topology;
use kfd::{BufferMapping, Error, Kfd, QueueDesc, RenderNode};
use rustix::io::Errno;
use sim::{DeviceMemory, Dispatch, ShaderCore, ShaderFault, SimDevice};

const FLAGS: AllocMemFlags = AllocMemFlags::GTT
    .union(AllocMemFlags::WRITABLE)
    .union(AllocMemFlags::EXECUTABLE);

struct Client {
    kfd: Kfd<SimDevice>,
    gpu_id: u32,
    node: RenderNode<SimDevice>,
    next_va: u64,
}

/// A buffer: CPU mapping at its GPU VA.
struct Buffer {
    handle: u64,
    va: u64,
    _map: BufferMapping<SimDevice>,
}

impl Client {
    fn new() -> Self {
        Self::with(SimDevice::default())
    }

    fn with(dev: SimDevice) -> Self {
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
            next_va: 0,
        }
    }

    /// Reserves VA, allocates, maps to the GPU, maps for the CPU at the same address.
    fn buffer(&mut self, size: usize) -> Buffer {
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
        self.next_va = va;
        let a = self
            .kfd
            .alloc_memory_of_gpu(self.gpu_id, va, size as u64, FLAGS)
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
            _map: map,
        }
    }
}

fn atomic_u64(va: u64) -> &'static AtomicU64 {
    // SAFETY: the tests only pass addresses of live, 8-byte aligned buffer words.
    unsafe { &*(va as *const AtomicU64) }
}

/// An `amd_signal_t` in a buffer: kind 1 (user), value `v`.
fn signal(buf: &Buffer, at: u64, v: i64) -> SignalHandle {
    atomic_u64(buf.va + at).store(1, Ordering::Relaxed);
    atomic_u64(buf.va + at + 8).store(v as u64, Ordering::Release);
    SignalHandle {
        handle: buf.va + at,
    }
}

struct Queue {
    info: kfd::QueueInfo,
    ring: Buffer,
    amd: Buffer,
    page: kfd::DoorbellPage<SimDevice>,
}

impl Queue {
    fn new(c: &mut Client, profiling: bool) -> Self {
        let ring = c.buffer(64 * 64);
        let amd = c.buffer(4096);
        let eop = c.buffer(4096);
        // amd_queue_t: size 64, scratch lane size 0, profiling bit.
        // SAFETY: a plain store into our fresh buffer.
        unsafe { ((amd.va + 24) as *mut u32).write(64) };
        // SAFETY: as above.
        unsafe { ((amd.va + 180) as *mut u32).write(if profiling { 1 << 3 } else { 0 }) };
        for i in 0..64 {
            // SAFETY: slot headers of our ring buffer.
            unsafe { ((ring.va + i * 64) as *mut u32).write(u32::from(PacketHeader::INVALID.0)) };
        }
        let desc = QueueDesc {
            gpu_id: c.gpu_id,
            queue_type: QueueType::ComputeAql,
            percentage: QueuePercentage::FULL,
            priority: QueuePriority::NORMAL,
            ring_base_address: ring.va,
            ring_size: 64 * 64,
            write_pointer_address: amd.va + 56,
            read_pointer_address: amd.va + 128,
            eop_buffer_address: eop.va,
            eop_buffer_size: 4096,
            ctx_save_restore_address: 0,
            ctx_save_restore_size: 0,
            ctl_stack_size: 0,
            sdma_engine_id: 0,
        };
        // SAFETY: every address is a live buffer mapped to the GPU.
        let info = unsafe { c.kfd.create_queue(&desc) }.unwrap();
        let page = c.kfd.map_doorbell_page(info.doorbell_offset, 8192).unwrap();
        std::mem::forget(eop);
        Self {
            info,
            ring,
            amd,
            page,
        }
    }

    fn submit(&self, words: [u32; 16]) {
        // SAFETY: the ring and indices are live buffers of this test.
        let slots = unsafe { std::slice::from_raw_parts(self.ring.va as *const PacketSlot, 64) };
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

fn wait_zero(s: SignalHandle) {
    let t = Instant::now();
    while atomic_u64(s.handle + 8).load(Ordering::Acquire) != 0 {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "signal never reached 0"
        );
        std::thread::yield_now();
    }
}

/// A stand-in shader core: adds 1 to the u32 at the kernarg address per workgroup.
struct Counter;

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

fn errno<T>(r: Result<T, Error>) -> Option<Errno> {
    r.err().and_then(|e| e.errno())
}

fn dispatch_words(kernel: u64, kernarg: u64, done: SignalHandle) -> [u32; 16] {
    let mut p = KernelDispatchPacket::new(kernel, kernarg, [256, 1, 1], [64, 1, 1]);
    p.completion_signal = done;
    zerocopy::transmute!(p)
}

#[test]
fn unknown_request_codes_are_enotty_and_the_deprecated_ones_eperm() {
    let dev = SimDevice::default();
    let mut buf = [0u8; 4096];
    for nr in 0u32..=0xff {
        if kfd::ioctl::by_number(nr as u8).is_some() {
            continue;
        }
        for size in [0u32, 8, 64] {
            let code = (3 << 30) | (size << 16) | (u32::from(b'K') << 8) | nr;
            // SAFETY: `buf` holds more than `size` bytes.
            let r = unsafe { dev.ioctl_raw(code, buf.as_mut_ptr().cast()) };
            if (0x0d..=0x10).contains(&nr) {
                assert_eq!(r, Err(Errno::PERM), "nr {nr:#x}");
            } else {
                assert_eq!(r, Err(Errno::NOTTY), "nr {nr:#x}");
            }
        }
    }
}

#[test]
fn version_apertures_clock_and_memory_accounting() {
    let mut c = Client::new();
    assert_eq!(c.kfd.version(), KfdVersion::new(1, 18));
    let ap = c.kfd.process_apertures().unwrap();
    assert_eq!(ap.len(), 1);
    assert_eq!(ap[0].gpu_id, c.gpu_id);
    assert!(ap[0].gpuvm_base < ap[0].gpuvm_limit);
    let a = c.kfd.get_clock_counters(c.gpu_id).unwrap();
    std::thread::sleep(Duration::from_millis(2));
    let b = c.kfd.get_clock_counters(c.gpu_id).unwrap();
    assert!(b.gpu_clock_counter > a.gpu_clock_counter);
    assert_eq!(a.system_clock_freq, 1_000_000_000);
    assert_eq!(
        c.kfd.get_clock_counters(0xdead).unwrap().gpu_clock_counter,
        0
    );

    let before = c.kfd.available_memory(c.gpu_id).unwrap();
    let v = c
        .kfd
        .alloc_memory_of_gpu(
            c.gpu_id,
            0x10_0000_0000,
            8 << 20,
            AllocMemFlags::VRAM | AllocMemFlags::WRITABLE,
        )
        .unwrap();
    assert_eq!(
        c.kfd.available_memory(c.gpu_id).unwrap(),
        before - (8 << 20)
    );
    c.kfd.free_memory_of_gpu(v.handle).unwrap();
    assert_eq!(c.kfd.available_memory(c.gpu_id).unwrap(), before);

    assert_eq!(errno(c.kfd.available_memory(7)), Some(Errno::INVAL));
    assert_eq!(
        errno(c.kfd.alloc_memory_of_gpu(c.gpu_id, 0x1000_0000, 0, FLAGS)),
        Some(Errno::INVAL),
        "size 0"
    );
    assert_eq!(
        errno(c.kfd.alloc_memory_of_gpu(7, 0x1000_0000, 4096, FLAGS)),
        Some(Errno::INVAL),
        "unknown gpu"
    );
    assert_eq!(
        errno(
            c.kfd
                .alloc_memory_of_gpu(c.gpu_id, 0x1000_0000, 4096, AllocMemFlags::WRITABLE)
        ),
        Some(Errno::INVAL),
        "no domain"
    );
    assert_eq!(
        errno(
            c.kfd
                .alloc_memory_of_gpu(c.gpu_id, 0x1000_0000, 1 << 50, AllocMemFlags::VRAM)
        ),
        Some(Errno::NOMEM),
        "beyond VRAM"
    );
    let b = c.buffer(4096);
    c.kfd
        .map_memory_to_gpu(b.handle, &[c.gpu_id])
        .expect("mapping twice succeeds");
    c.kfd.unmap_memory_from_gpu(b.handle, &[c.gpu_id]).unwrap();
    assert_eq!(
        errno(c.kfd.unmap_memory_from_gpu(b.handle, &[c.gpu_id])),
        Some(Errno::INVAL),
        "unmap what is not mapped"
    );
    assert_eq!(
        errno(c.kfd.map_memory_to_gpu(b.handle, &[7])),
        Some(Errno::INVAL)
    );
    assert_eq!(
        errno(c.kfd.map_memory_to_gpu(b.handle | 0xffff, &[c.gpu_id])),
        Some(Errno::NOMEM)
    );
    c.kfd.free_memory_of_gpu(b.handle).unwrap();
    assert_eq!(
        errno(c.kfd.free_memory_of_gpu(b.handle)),
        Some(Errno::INVAL),
        "double free"
    );
}

#[test]
fn without_acquire_vm_allocation_is_enodev_and_queues_esrch() {
    let kfd = Kfd::with_device(SimDevice::default()).unwrap();
    let topo = Topology::read(kfd.device().topology().reader()).unwrap();
    let gpu = topo.gpus().next().unwrap().gpu_id;
    let e = kfd
        .alloc_memory_of_gpu(gpu, 0x1000_0000, 4096, FLAGS)
        .unwrap_err();
    assert_eq!(e.errno(), Some(Errno::NODEV));
    // A descriptor that is not a render node.
    let other = rustix::fs::memfd_create("x", rustix::fs::MemfdFlags::CLOEXEC).unwrap();
    assert_eq!(
        kfd.acquire_vm(other.as_fd(), gpu).unwrap_err().errno(),
        Some(Errno::INVAL)
    );
    let n1 = kfd.open_render_node(128).unwrap();
    let n2 = kfd.open_render_node(128).unwrap();
    kfd.acquire_vm(n1.as_fd(), gpu).unwrap();
    kfd.acquire_vm(n1.as_fd(), gpu)
        .expect("the same file again is fine");
    assert_eq!(
        kfd.acquire_vm(n2.as_fd(), gpu).unwrap_err().errno(),
        Some(Errno::BUSY)
    );
    assert_eq!(
        kfd.open_render_node(200).unwrap_err().errno(),
        Some(Errno::NOENT)
    );
}

#[test]
fn dispatch_completes_through_the_doorbell_with_profiling_timestamps() {
    let dev = SimDevice::default();
    dev.set_shader_core(Arc::new(Counter));
    let mut c = Client::with(dev);
    let q = Queue::new(&mut c, true);
    let data = c.buffer(4096);
    let kernel = c.buffer(4096);
    let done = signal(&data, 64, 1);
    q.submit(dispatch_words(kernel.va, data.va, done));
    wait_zero(done);
    // SAFETY: the counter word of our buffer.
    let count = unsafe { &*(data.va as *const AtomicU32) }.load(Ordering::Acquire);
    assert_eq!(count, 4, "256 work-items in workgroups of 64");
    let start = atomic_u64(done.handle + 32).load(Ordering::Acquire);
    let end = atomic_u64(done.handle + 40).load(Ordering::Acquire);
    assert!(
        start > 0 && end >= start,
        "profiling timestamps {start} {end}"
    );
    assert_eq!(c.kfd.device().queue_completed(q.info.queue_id), Some(1));

    // Buffers the queue uses cannot be freed; destroying it releases them.
    let e = c.kfd.free_memory_of_gpu(q.ring.handle).unwrap_err();
    assert_eq!(e.errno(), Some(Errno::BUSY));
    c.kfd.destroy_queue(q.info.queue_id).unwrap();
    assert_eq!(
        c.kfd.destroy_queue(q.info.queue_id).unwrap_err().errno(),
        Some(Errno::INVAL)
    );
    c.kfd.free_memory_of_gpu(q.ring.handle).unwrap();
}

#[test]
fn without_a_shader_core_the_dispatch_fails_through_the_error_path() {
    let mut c = Client::with(sim::SimBuilder::new().without_shader_core().build());
    let q = Queue::new(&mut c, false);
    let data = c.buffer(4096);
    let kernel = c.buffer(4096);
    let inactive = signal(&data, 128, 0);
    atomic_u64(q.amd.va + 192).store(inactive.handle, Ordering::Release);
    let done = signal(&data, 64, 1);
    q.submit(dispatch_words(kernel.va, data.va, done));
    let t = Instant::now();
    while atomic_u64(inactive.handle + 8).load(Ordering::Acquire) == 0 {
        assert!(t.elapsed() < Duration::from_secs(10));
        std::thread::yield_now();
    }
    assert_eq!(
        atomic_u64(inactive.handle + 8).load(Ordering::Acquire),
        (1 << 63) | sim::code::INVALID_CODE
    );
    assert_eq!(
        atomic_u64(done.handle + 8).load(Ordering::Acquire),
        1,
        "never a silent success"
    );
    let err = c.kfd.device().queue_error(q.info.queue_id).unwrap();
    assert!(
        err.what.contains("no shader core installed"),
        "{}",
        err.what
    );
}

#[test]
fn an_interrupt_signal_wakes_a_wait_events_waiter() {
    let dev = SimDevice::default();
    dev.set_shader_core(Arc::new(Counter));
    let mut c = Client::with(dev);
    let q = Queue::new(&mut c, false);
    let data = c.buffer(4096);
    let kernel = c.buffer(4096);
    // dGPU style: the event page is a buffer of ours given to the first event.
    let events = c.buffer(kfd::EVENT_PAGE_SIZE);
    let ev = c
        .kfd
        .create_event(&kfd::EventDesc {
            event_type: EventType::Signal,
            auto_reset: true,
            node_id: 0,
            event_page_handle: Some(events.handle),
        })
        .unwrap();
    assert_eq!(
        c.kfd.free_memory_of_gpu(events.handle).unwrap_err().errno(),
        Some(Errno::PERM)
    );
    let done = signal(&data, 64, 1);
    atomic_u64(done.handle + 16).store(
        events.va + u64::from(ev.event_slot_index) * 8,
        Ordering::Relaxed,
    );
    // SAFETY: the event id field of our signal.
    unsafe { ((done.handle + 24) as *mut u32).write(ev.event_id) };
    q.submit(dispatch_words(kernel.va, data.va, done));
    let mut wait = [raw::EventData::new(ev.event_id)];
    let r = c.kfd.wait_events(&mut wait, false, 10_000).unwrap();
    assert_eq!(r, WaitResult::Complete);
    assert_eq!(atomic_u64(done.handle + 8).load(Ordering::Acquire), 0);
    // Auto-reset: a second wait times out.
    let r = c.kfd.wait_events(&mut wait, false, 10).unwrap();
    assert_eq!(r, WaitResult::Timeout);
    c.kfd.destroy_event(ev.event_id).unwrap();
    assert_eq!(
        c.kfd.set_event(ev.event_id).unwrap_err().errno(),
        Some(Errno::INVAL)
    );
}

#[test]
fn barrier_and_waits_for_another_queues_signal() {
    let dev = SimDevice::default();
    dev.set_shader_core(Arc::new(Counter));
    let mut c = Client::with(dev);
    let q1 = Queue::new(&mut c, false);
    let q2 = Queue::new(&mut c, false);
    let data = c.buffer(4096);
    let kernel = c.buffer(4096);
    let gate = signal(&data, 256, 1);
    let after = signal(&data, 320, 1);
    let mut b = BarrierAndPacket::new(
        [
            gate,
            SignalHandle::NULL,
            SignalHandle::NULL,
            SignalHandle::NULL,
            SignalHandle::NULL,
        ],
        after,
    );
    b.header = PacketHeader::with(
        aql::PacketType::BarrierAnd,
        true,
        aql::FenceScope::System,
        aql::FenceScope::System,
    );
    q1.submit(zerocopy::transmute!(b));
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(
        atomic_u64(after.handle + 8).load(Ordering::Acquire),
        1,
        "still blocked"
    );
    // Queue 2's dispatch completes the gate.
    q2.submit(dispatch_words(kernel.va, data.va, gate));
    wait_zero(after);
}

#[test]
fn an_invalid_packet_stops_the_queue_with_the_format_code() {
    let mut c = Client::new();
    let q = Queue::new(&mut c, false);
    let data = c.buffer(4096);
    let inactive = signal(&data, 128, 0);
    atomic_u64(q.amd.va + 192).store(inactive.handle, Ordering::Release);
    let mut words = dispatch_words(0x1000, 0, SignalHandle::NULL);
    words[1] = 0; // workgroup size x = 0 (and y): invalid
    q.submit(words);
    let t = Instant::now();
    while atomic_u64(inactive.handle + 8).load(Ordering::Acquire) == 0 {
        assert!(t.elapsed() < Duration::from_secs(10));
        std::thread::yield_now();
    }
    assert_eq!(
        atomic_u64(inactive.handle + 8).load(Ordering::Acquire),
        (1 << 63) | sim::code::INVALID_FORMAT
    );
}
