//! The sim driven as a client drives amdkfd: `Kfd<SimDevice>`, a render
//! node, buffers mapped at the VA the client chose, AQL queues rung through
//! the doorbell page. No runtime involved.

#![allow(unsafe_code)]

mod support;

use std::os::fd::AsFd;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use aql::packet::BarrierAndPacket;
use aql::{PacketHeader, SignalHandle};
use kfd::Kfd;
use kfd::ioctl::raw;
use kfd::ioctl::*;
use kfd::topology::Topology;
use rustix::io::Errno;
use sim::SimDevice;
use support::*;

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
    let c = Client::default();
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
    let c = Client::with(dev);
    let q = Queue::no_scratch(&c, true);
    let data = c.buffer(4096);
    let kernel = c.buffer(4096);
    let done = signal(&data, 64, 1);
    q.submit(dispatch_words(kernel.va, data.va, done));
    wait_zero(done);
    let count = data.u32_at(0).load(Ordering::Acquire);
    assert_eq!(count, 4, "256 work-items in workgroups of 64");
    let start = atomic_u64(done.handle + 32).load(Ordering::Acquire);
    let end = atomic_u64(done.handle + 40).load(Ordering::Acquire);
    assert!(
        start > 0 && end >= start,
        "profiling timestamps {start} {end}"
    );
    assert_eq!(c.kfd.device().queue_completed(q.info.queue_id), Some(1));

    // Buffers the queue uses cannot be unmapped (so not freed either);
    // destroying the queue releases them.
    assert_eq!(
        errno(c.kfd.unmap_memory_from_gpu(q.ring.handle, &[c.gpu_id])),
        Some(Errno::BUSY)
    );
    assert_eq!(
        errno(c.kfd.free_memory_of_gpu(q.ring.handle)),
        Some(Errno::BUSY)
    );
    c.kfd.destroy_queue(q.info.queue_id).unwrap();
    assert_eq!(
        c.kfd.destroy_queue(q.info.queue_id).unwrap_err().errno(),
        Some(Errno::INVAL)
    );
    c.kfd
        .unmap_memory_from_gpu(q.ring.handle, &[c.gpu_id])
        .unwrap();
    c.kfd.free_memory_of_gpu(q.ring.handle).unwrap();
}

#[test]
fn without_a_shader_core_the_dispatch_fails_through_the_error_path() {
    let c = Client::with(sim::SimBuilder::new().without_shader_core().build());
    let q = Queue::no_scratch(&c, false);
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
    let c = Client::with(dev);
    let q = Queue::no_scratch(&c, false);
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
    let c = Client::with(dev);
    let q1 = Queue::no_scratch(&c, false);
    let q2 = Queue::no_scratch(&c, false);
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
    let c = Client::default();
    let q = Queue::no_scratch(&c, false);
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
