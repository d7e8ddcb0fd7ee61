//! The command processor as a client sees it: barriers, the barrier bit,
//! profiling timestamps, agent dispatch, the hardware's dispatch limits,
//! the scratch handshake, faults, and destroying a busy queue.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use aql::packet::{AgentDispatchPacket, BarrierAndPacket, BarrierOrPacket, KernelDispatchPacket};
use aql::{FenceScope, PacketHeader, PacketType, SignalHandle};
use kfd::ioctl::raw;
use kfd::ioctl::*;
use sim::{AgentCall, AgentHandler, Board, DeviceMemory, ShaderFault, SimBuilder, SimDevice, code};
use support::*;

fn with_core(core: impl sim::ShaderCore + 'static) -> Client {
    let dev = SimDevice::default();
    dev.set_shader_core(Arc::new(core));
    Client::with(dev)
}

fn with_barrier_bit(mut p: KernelDispatchPacket) -> KernelDispatchPacket {
    p.header = PacketHeader::with(
        PacketType::KernelDispatch,
        true,
        FenceScope::System,
        FenceScope::System,
    );
    p
}

#[test]
fn barrier_or_completes_when_any_dependency_does() {
    let c = with_core(Counter);
    let q1 = Queue::no_scratch(&c, false);
    let q2 = Queue::no_scratch(&c, false);
    let data = c.buffer(4096);
    let kernel = c.buffer(4096);
    let a = signal(&data, 256, 1);
    let b = signal(&data, 320, 1);
    let after = signal(&data, 384, 1);
    let n = SignalHandle::NULL;
    q1.submit(zerocopy::transmute!(BarrierOrPacket::new(
        [a, n, b, n, n],
        after
    )));
    // Nothing behind the barrier runs while it waits.
    let behind = signal(&data, 448, 1);
    q1.submit(dispatch_words(kernel.va, data.va + 16, behind));
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(signal_value(after), 1, "both dependencies still 1");
    assert_eq!(signal_value(behind), 1);
    // Not launched: the read index stays on the barrier (packet 0).
    assert_eq!(q1.read_index(), 0);
    // Queue 2 completes `b` only: OR is satisfied.
    q2.submit(dispatch_words(kernel.va, data.va, b));
    wait_zero(after);
    wait_zero(behind);
    assert_eq!(q1.read_index(), 2);
    assert_eq!(signal_value(a), 1, "the other dependency is untouched");
    // Only null dependencies: nothing to wait for.
    let free = signal(&data, 512, 1);
    q1.submit(zerocopy::transmute!(BarrierOrPacket::new([n; 5], free)));
    wait_zero(free);
}

#[test]
fn a_barrier_bit_packet_starts_after_the_packets_before_it_completed() {
    // The core runs packet 1 slowly; packet 2 (barrier bit) records whether
    // packet 1's completion signal was already 0 when it started.
    let seen = Arc::new(AtomicU32::new(u32::MAX));
    let s = Arc::clone(&seen);
    let c = with_core(FnCore(move |d: &sim::Dispatch<'_>| {
        if d.packet_id == 0 {
            std::thread::sleep(Duration::from_millis(5));
        } else {
            // kernarg: the first packet's completion signal handle.
            let first = d
                .memory
                .load_u64(d.kernarg_address, Ordering::Acquire)
                .unwrap();
            let v = d.memory.load_u64(first + 8, Ordering::Acquire).unwrap();
            s.store(v as u32, Ordering::Release);
        }
        Ok(())
    }));
    let q = Queue::no_scratch(&c, false);
    let data = c.buffer(4096);
    let kernel = c.buffer(4096);
    let first = signal(&data, 64, 1);
    let second = signal(&data, 128, 1);
    data.u64_at(0).store(first.handle, Ordering::Release);
    q.submit(dispatch_words(kernel.va, data.va, first));
    q.submit(zerocopy::transmute!(with_barrier_bit(dispatch_packet(
        kernel.va, data.va, second
    ))));
    wait_zero(second);
    assert_eq!(seen.load(Ordering::Acquire), 0, "packet 1 had completed");
}

#[test]
fn profiling_timestamps_are_ordered_across_packets() {
    let c = with_core(Counter);
    let q = Queue::no_scratch(&c, true);
    let data = c.buffer(4096);
    let kernel = c.buffer(4096);
    let before = c
        .kfd
        .get_clock_counters(c.gpu_id)
        .unwrap()
        .gpu_clock_counter;
    let signals: Vec<_> = (0..8).map(|i| signal(&data, 64 + 64 * i, 1)).collect();
    for s in &signals {
        q.submit(dispatch_words(kernel.va, data.va, *s));
    }
    for s in &signals {
        wait_zero(*s);
    }
    let after = c
        .kfd
        .get_clock_counters(c.gpu_id)
        .unwrap()
        .gpu_clock_counter;
    let mut last = before;
    for s in &signals {
        let start = atomic_u64(s.handle + 32).load(Ordering::Acquire);
        let end = atomic_u64(s.handle + 40).load(Ordering::Acquire);
        assert!(last <= start && start <= end, "{last} <= {start} <= {end}");
        last = end;
    }
    assert!(last <= after);
    // Without the profiling bit, no timestamps.
    let q2 = Queue::no_scratch(&c, false);
    let s = signal(&data, 1024, 1);
    q2.submit(dispatch_words(kernel.va, data.va, s));
    wait_zero(s);
    assert_eq!(atomic_u64(s.handle + 32).load(Ordering::Acquire), 0);
}

/// Barrier packets of a profiled queue get `start_ts`/`end_ts` too, in
/// order with the dispatches around them (HIP 5.2.3 times
/// `hipEventRecord`'s markers, barrier-AND packets, by them); without the
/// profiling bit they get none.
#[test]
fn profiling_timestamps_of_barrier_packets() {
    let c = with_core(Counter);
    let q = Queue::no_scratch(&c, true);
    let data = c.buffer(4096);
    let kernel = c.buffer(4096);
    let n = SignalHandle::NULL;
    let (d0, b, d1, o) = (
        signal(&data, 64, 1),
        signal(&data, 128, 1),
        signal(&data, 192, 1),
        signal(&data, 256, 1),
    );
    q.submit(dispatch_words(kernel.va, data.va, d0));
    q.submit(zerocopy::transmute!(BarrierAndPacket::new([n; 5], b)));
    q.submit(dispatch_words(kernel.va, data.va, d1));
    q.submit(zerocopy::transmute!(BarrierOrPacket::new([n; 5], o)));
    wait_zero(o);
    let ts = |s: SignalHandle| {
        (
            atomic_u64(s.handle + 32).load(Ordering::Acquire),
            atomic_u64(s.handle + 40).load(Ordering::Acquire),
        )
    };
    let mut last = 0;
    for s in [d0, b, d1, o] {
        let (start, end) = ts(s);
        assert!(
            start != 0 && last <= start && start <= end,
            "{last} <= {start} <= {end}"
        );
        last = end;
    }
    let q2 = Queue::no_scratch(&c, false);
    let s = signal(&data, 1024, 1);
    q2.submit(zerocopy::transmute!(BarrierAndPacket::new([n; 5], s)));
    wait_zero(s);
    assert_eq!(ts(s), (0, 0));
}

struct Recorder;

impl AgentHandler for Recorder {
    fn call(&self, call: &AgentCall<'_>) -> Result<(), ShaderFault> {
        let sum: u64 = call.args.iter().sum::<u64>() + u64::from(call.function);
        call.memory
            .store_u64(call.return_address, sum, Ordering::Release)
            .map_err(ShaderFault::Memory)
    }
}

#[test]
fn agent_dispatch_goes_to_the_registered_handler_or_fails_the_queue() {
    let dev = SimDevice::default();
    dev.set_agent_handler(Arc::new(Recorder));
    let c = Client::with(dev);
    let q = Queue::no_scratch(&c, false);
    let data = c.buffer(4096);
    let done = signal(&data, 64, 1);
    let mut p = AgentDispatchPacket::new(7, [1, 2, 3, 4], data.va + 256);
    p.completion_signal = done;
    q.submit(zerocopy::transmute!(p));
    wait_zero(done);
    assert_eq!(data.u64_at(256).load(Ordering::Acquire), 17);

    let c = Client::default();
    let q = Queue::no_scratch(&c, false);
    let data = c.buffer(4096);
    let inactive = q.inactive_signal(&data, 128);
    let done = signal(&data, 64, 1);
    let mut p = AgentDispatchPacket::new(7, [0; 4], data.va + 256);
    p.completion_signal = done;
    q.submit(zerocopy::transmute!(p));
    assert_eq!(wait_inactive(inactive), code::INVALID_FORMAT);
    assert_eq!(signal_value(done), 1);
    let e = c.kfd.device().queue_error(q.info.queue_id).unwrap();
    assert!(e.what.contains("no handler"), "{}", e.what);
}

/// A kernel descriptor with `rsrc1` and a group segment of `lds` bytes.
fn kernel_descriptor(c: &Client, lds: u32, rsrc1: u32) -> Buffer {
    let k = c.buffer(4096);
    k.u32_at(0).store(lds, Ordering::Relaxed);
    k.u32_at(48).store(rsrc1, Ordering::Release);
    k
}

#[test]
fn dispatches_a_gfx90a_would_refuse_are_refused_with_rocr_codes() {
    let calls = Arc::new(AtomicU32::new(0));
    let n = Arc::clone(&calls);
    let c = with_core(FnCore(move |_: &sim::Dispatch<'_>| {
        n.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }));
    let data = c.buffer(4096);
    // rsrc1: VGPR granule (bits 0-5, 8 VGPRs each), SGPR granule (6-9, 8 each).
    let plain = kernel_descriptor(&c, 0, 0);
    let vgpr256 = kernel_descriptor(&c, 0, 31);
    let sgpr120 = kernel_descriptor(&c, 0, 14 << 6);
    // 112 SGPRs (the most a wave addresses) with 128 VGPRs.
    let limits = kernel_descriptor(&c, 0, 15 | (13 << 6));
    let lds_kd = kernel_descriptor(&c, 60 * 1024, 0);
    let cases: Vec<(&str, KernelDispatchPacket, u64)> = vec![
        (
            "workgroup of 1025 work-items",
            KernelDispatchPacket::new(plain.va, data.va, [1025, 1, 1], [1025, 1, 1]),
            code::GROUP_TOO_LARGE,
        ),
        (
            "1024 work-items x 256 VGPRs: 4 waves per SIMD do not fit 512",
            KernelDispatchPacket::new(vgpr256.va, data.va, [32, 32, 1], [32, 32, 1]),
            code::OUT_OF_REGISTERS,
        ),
        (
            "120 SGPRs",
            KernelDispatchPacket::new(sgpr120.va, data.va, [64, 1, 1], [64, 1, 1]),
            code::OUT_OF_REGISTERS,
        ),
        (
            "60 KiB in the descriptor, only 8 KiB in the packet",
            KernelDispatchPacket {
                group_segment_size: 8 * 1024,
                ..KernelDispatchPacket::new(lds_kd.va, data.va, [64, 1, 1], [64, 1, 1])
            },
            code::INVALID_GROUP_MEMORY,
        ),
        (
            "68 KiB in the packet",
            KernelDispatchPacket {
                group_segment_size: 68 * 1024,
                ..KernelDispatchPacket::new(lds_kd.va, data.va, [64, 1, 1], [64, 1, 1])
            },
            code::INVALID_GROUP_MEMORY,
        ),
        (
            "a grid of 2^33 work-items",
            KernelDispatchPacket::new(plain.va, data.va, [65536, 65536, 2], [64, 1, 1]),
            code::INVALID_DIM,
        ),
        (
            "a null kernel object",
            KernelDispatchPacket::new(0, data.va, [64, 1, 1], [64, 1, 1]),
            code::INVALID_CODE,
        ),
    ];
    let mut queues = Vec::new();
    for (i, (what, mut p, want)) in cases.into_iter().enumerate() {
        // Queues (and their buffers) stay alive: their GPU mappings do.
        queues.push(Queue::no_scratch(&c, false));
        let q = queues.last().unwrap();
        let inactive = q.inactive_signal(&data, 1024 + 128 * i as u64);
        let done = signal(&data, 1024 + 128 * i as u64 + 64, 1);
        p.completion_signal = done;
        q.submit(zerocopy::transmute!(p));
        assert_eq!(wait_inactive(inactive), want, "{what}");
        assert_eq!(signal_value(done), 1, "{what}: not completed");
        let e = c.kfd.device().queue_error(q.info.queue_id).unwrap();
        assert_eq!(e.code, want, "{what}: {}", e.what);
        assert_eq!(
            q.read_index(),
            0,
            "{what}: a refused packet is not launched"
        );
    }
    assert_eq!(calls.load(Ordering::Acquire), 0, "no refused dispatch ran");
    // The limits themselves pass: 1024 work-items of 128 VGPRs and 112
    // SGPRs, 64 KiB LDS.
    let q = Queue::no_scratch(&c, false);
    let done = signal(&data, 64, 1);
    let mut p = KernelDispatchPacket::new(limits.va, data.va, [2048, 1, 1], [1024, 1, 1]);
    p.group_segment_size = 64 * 1024;
    p.completion_signal = done;
    q.submit(zerocopy::transmute!(p));
    wait_zero(done);
    assert_eq!(calls.load(Ordering::Acquire), 1);
}

/// The runtime's side of the scratch handshake (`AqlQueue::DynamicQueueEventsHandler`).
#[test]
fn insufficient_scratch_stops_the_queue_until_the_runtime_grows_it() {
    let seen = Arc::new(AtomicU32::new(0));
    let s = Arc::clone(&seen);
    let c = with_core(FnCore(move |d: &sim::Dispatch<'_>| {
        s.store(d.scratch.wave64_lane_byte_size, Ordering::Release);
        Ok(())
    }));
    let q = Queue::no_scratch(&c, false);
    let data = c.buffer(4096);
    let kernel = c.buffer(4096);
    let inactive = q.inactive_signal(&data, 128);
    // A packet with no private segment runs first, so the stalled one is
    // not packet 0.
    let first = signal(&data, 192, 1);
    q.submit(dispatch_words(kernel.va, data.va, first));
    wait_zero(first);
    let done = signal(&data, 64, 1);
    let mut p = dispatch_packet(kernel.va, data.va, done);
    p.private_segment_size = 256;
    let stalled = q.submit(zerocopy::transmute!(p));
    assert_eq!(stalled, 1);
    assert_eq!(wait_inactive(inactive), code::INSUFFICIENT_SCRATCH);
    assert_eq!(signal_value(done), 1, "the dispatch waits");
    // The read index stays on the packet the CP could not launch, and its
    // slot still holds it: ROCr's handler reads the private segment size
    // of the packet at read_dispatch_id.
    assert_eq!(q.read_index(), stalled);
    let slot = (stalled % q.slots as u64) * 64;
    assert_eq!(q.ring.u32_at(slot + 24).load(Ordering::Acquire), 256);
    // The runtime grows scratch, updates amd_queue_t, stores 0.
    let scratch = c.buffer(1 << 20);
    q.amd
        .u64_at(amd_queue::SCRATCH_BACKING_MEMORY_LOCATION)
        .store(scratch.va, Ordering::Relaxed);
    q.amd
        .u64_at(amd_queue::SCRATCH_BACKING_MEMORY_BYTE_SIZE)
        .store(1 << 20, Ordering::Relaxed);
    q.amd
        .u32_at(amd_queue::SCRATCH_WAVE64_LANE_BYTE_SIZE)
        .store(256, Ordering::Relaxed);
    atomic_u64(inactive.handle + 8).store(0, Ordering::Release);
    // The CP retries the same packet.
    wait_zero(done);
    assert_eq!(seen.load(Ordering::Acquire), 256);
    assert_eq!(q.read_index(), stalled + 1);
    assert_eq!(c.kfd.device().queue_error(q.info.queue_id), None);
    assert_eq!(c.kfd.device().queue_completed(q.info.queue_id), Some(2));
}

#[test]
fn a_memory_fault_reports_address_and_reason_and_evicts_only_that_gpus_queues() {
    let dev = SimBuilder::new().board(Board::Mi250x).build();
    let core = FnCore(|d: &sim::Dispatch<'_>| {
        // kernarg[0] = where to write.
        let target = d
            .memory
            .load_u64(d.kernarg_address, Ordering::Acquire)
            .unwrap();
        d.memory
            .store_u32(target, 1, Ordering::Release)
            .map_err(ShaderFault::Memory)
    });
    dev.set_shader_core(Arc::new(core));
    let mut clients = Client::all_gpus(dev).into_iter();
    let (c, c1) = (clients.next().unwrap(), clients.next().unwrap());
    let ev = c
        .kfd
        .create_event(&kfd::EventDesc {
            event_type: EventType::Memory,
            auto_reset: true,
            node_id: 0,
            event_page_handle: None,
        })
        .unwrap();
    let faulting = Queue::no_scratch(&c, false);
    let bystander = Queue::no_scratch(&c, false);
    let data = c.buffer(4096);
    let kernel = c.buffer(4096);
    let read_only = c.buffer_flags(4096, AllocMemFlags::GTT);
    let inactive = faulting.inactive_signal(&data, 512);
    // First a write to a read-only page, then (other test below) unmapped.
    data.u64_at(0).store(read_only.va + 12, Ordering::Release);
    let done = signal(&data, 64, 1);
    faulting.submit(dispatch_words(kernel.va, data.va, done));
    let mut wait = [raw::EventData::new(ev.event_id)];
    assert_eq!(
        c.kfd.wait_events(&mut wait, false, 10_000).unwrap(),
        WaitResult::Complete
    );
    let m = wait[0].payload.memory_exception_data();
    assert_eq!(m.va, read_only.va, "the page of the fault");
    assert_eq!(m.gpu_id, c.gpu_id);
    assert_eq!((m.failure.read_only, m.failure.not_present), (1, 0));
    assert_eq!(signal_value(done), 1);
    assert_eq!(
        signal_value(inactive),
        0,
        "reported by the event, not the signal"
    );
    let e = c.kfd.device().queue_error(faulting.info.queue_id).unwrap();
    assert!(e.what.contains("read-only"), "{}", e.what);
    assert_eq!(
        faulting.read_index(),
        0,
        "the faulted dispatch keeps the read index"
    );
    assert_eq!(
        read_only.u32_at(12).load(Ordering::Acquire),
        0,
        "nothing written"
    );
    // KFD evicts the process's other queues on that GPU ...
    let e = c.kfd.device().queue_error(bystander.info.queue_id).unwrap();
    assert!(e.what.contains("evicted"), "{}", e.what);
    let stuck = signal(&data, 128, 1);
    data.u64_at(8).store(data.va + 2048, Ordering::Release);
    bystander.submit(dispatch_words(kernel.va, data.va + 8, stuck));
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(signal_value(stuck), 1);

    // ... and the other GPU runs on: an unmapped address faults there with
    // "not present", after a dispatch that completes.
    let q = Queue::no_scratch(&c1, false);
    let d1 = c1.buffer(4096);
    let k1 = c1.buffer(4096);
    d1.u64_at(0).store(d1.va + 100, Ordering::Release);
    let ok = signal(&d1, 64, 1);
    q.submit(dispatch_words(k1.va, d1.va, ok));
    wait_zero(ok);
    assert_eq!(d1.u32_at(100).load(Ordering::Acquire), 1);
    d1.u64_at(8).store(0xdead_0000_1234, Ordering::Release);
    let bad = signal(&d1, 128, 1);
    q.submit(dispatch_words(k1.va, d1.va + 8, bad));
    assert_eq!(
        c.kfd.wait_events(&mut wait, false, 10_000).unwrap(),
        WaitResult::Complete
    );
    let m = wait[0].payload.memory_exception_data();
    assert_eq!((m.va, m.gpu_id), (0xdead_0000_1000, c1.gpu_id));
    assert_eq!((m.failure.read_only, m.failure.not_present), (0, 1));
    assert_eq!(signal_value(bad), 1);
}

#[test]
fn destroying_a_busy_queue_waits_for_the_cp_and_disturbs_nothing_else() {
    let started = Arc::new(AtomicBool::new(false));
    let release = Arc::new(AtomicBool::new(false));
    let (st, rel) = (Arc::clone(&started), Arc::clone(&release));
    let c = with_core(FnCore(move |d: &sim::Dispatch<'_>| {
        if d.kernarg_address & 1 == 0 {
            st.store(true, Ordering::Release);
            while !rel.load(Ordering::Acquire) {
                std::thread::yield_now();
            }
        }
        Ok(())
    }));
    let c = Arc::new(c);
    let busy = Queue::no_scratch(&c, false);
    let other = Queue::no_scratch(&c, false);
    let data = c.buffer(4096);
    let kernel = c.buffer(4096);
    let s1 = signal(&data, 64, 1);
    let s2 = signal(&data, 128, 1);
    busy.submit(dispatch_words(kernel.va, data.va, s1));
    busy.submit(dispatch_words(kernel.va, data.va, s2));
    wait_until("the dispatch started", || started.load(Ordering::Acquire));
    let destroyed = Arc::new(AtomicBool::new(false));
    let id = busy.info.queue_id;
    let t = {
        let (c, destroyed) = (Arc::clone(&c), Arc::clone(&destroyed));
        std::thread::spawn(move || {
            c.kfd.destroy_queue(id).unwrap();
            destroyed.store(true, Ordering::Release);
        })
    };
    std::thread::sleep(Duration::from_millis(20));
    assert!(
        !destroyed.load(Ordering::Acquire),
        "DESTROY_QUEUE returns only once the CP let go"
    );
    release.store(true, Ordering::Release);
    t.join().unwrap();
    // The packet behind never runs; the queue's buffers are free again.
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(signal_value(s2), 1);
    assert_eq!(c.kfd.device().queue_completed(id), None, "gone");
    c.kfd
        .unmap_memory_from_gpu(busy.ring.handle, &[c.gpu_id])
        .unwrap();
    c.kfd.free_memory_of_gpu(busy.ring.handle).unwrap();
    assert_eq!(
        errno(c.kfd.free_memory_of_gpu(busy.ring.handle)),
        Some(rustix::io::Errno::INVAL),
        "double free"
    );
    // The other queue was not disturbed.
    let s3 = signal(&data, 192, 1);
    other.submit(dispatch_words(kernel.va, data.va | 1, s3));
    wait_zero(s3);
}

/// A PM4-IB packet (`AMD_AQL_FORMAT_PM4_IB`) as ROCr 5.2.3's
/// `AqlQueue::ExecutePM4` writes it for `GpuAgent::InvalidateCodeCaches`:
/// the IB's ACQUIRE_MEM runs, the read index moves past the packet, the
/// completion signal (when there is one) is decremented; an opcode the CP
/// does not execute stops the queue with INVALID_FORMAT, naming it.
#[test]
fn pm4_ib_packets_run_their_indirect_buffer() {
    let c = Client::default();
    let q = Queue::no_scratch(&c, false);
    let data = c.buffer(4096);
    let ib = c.buffer(4096);
    let pm4 = |opcode: u32, dwords: u32| (3 << 30) | ((dwords - 2) << 16) | (opcode << 8);
    // ACQUIRE_MEM of ROCr's InvalidateCodeCaches (gfx9): 7 dwords.
    let coher_cntl = (1 << 29) | (1 << 27) | (1 << 23) | (1 << 18);
    ib.write_u32s(0, &[pm4(0x58, 7), coher_cntl, 0xffff_ffff, 0xff, 0, 0, 0]);
    // A NOP of 3 dwords after it.
    ib.write_u32s(28, &[pm4(0x10, 3), 0, 0]);
    let packet = |size_dw: u32, done: SignalHandle| {
        let mut w = [0u32; 16];
        w[0] = 1 << 16; // VENDOR_SPECIFIC, AmdFormat 1
        w[1] = pm4(0x3f, 4);
        w[2] = ib.va as u32 & !3;
        w[3] = (ib.va >> 32) as u32 & 0xffff;
        w[4] = size_dw | (1 << 23);
        w[5] = 0xa;
        w[14] = done.handle as u32;
        w[15] = (done.handle >> 32) as u32;
        w
    };
    let id = q.submit(packet(10, SignalHandle::NULL));
    wait_until("the PM4-IB packet is consumed", || q.read_index() > id);
    let done = signal(&data, 64, 1);
    q.submit(packet(10, done));
    wait_zero(done);
    assert_eq!(c.kfd.device().queue_error(q.info.queue_id), None);

    // An opcode the sim does not execute (WRITE_DATA, 0x37).
    ib.write_u32s(0, &[pm4(0x37, 5), 0, 0, 0, 0]);
    let inactive = q.inactive_signal(&data, 128);
    let done = signal(&data, 192, 1);
    q.submit(packet(5, done));
    assert_eq!(wait_inactive(inactive), code::INVALID_FORMAT);
    assert_eq!(signal_value(done), 1);
    let e = c.kfd.device().queue_error(q.info.queue_id).unwrap();
    assert!(e.what.contains("opcode 0x37"), "{}", e.what);
}

/// AMD's CP retires a kernel dispatch at the read index: the index stays
/// on the dispatch while its waves run and moves past it when they end
/// (ROCdbgapi's `get_os_queue_packet_id` relies on it; ROCr's asynchronous
/// scratch reclaim waits on it). The packet behind it, and a barrier
/// packet, move it as they complete.
#[test]
fn the_read_index_stays_on_a_running_dispatch_until_its_waves_end() {
    let c = Client::new(2);
    let co = c.load("tests/kernels/spin.co");
    let k = co.kernels["spin_until_released"].clone();
    let flags = c.buffer(4096);
    let sig = c.buffer(4096);
    let q = Queue::no_scratch(&c, false);
    let g = Geometry::linear(256, 64);
    let kernarg = kernargs(&k, &[Arg::Ptr(flags.va)], g, &q);
    let karg = c.buffer(kernarg.len());
    karg.write(0, &kernarg);
    let mut p = KernelDispatchPacket::new(k.kernel_object, karg.va, g.grid, g.workgroup);
    let running = signal(&sig, 0, 1);
    p.completion_signal = running;
    q.submit(zerocopy::transmute!(p));
    let after = signal(&sig, 64, 1);
    let n = SignalHandle::NULL;
    q.submit(zerocopy::transmute!(BarrierAndPacket::new([n; 5], after)));
    // Let the kernel go however this test ends, so a failed assertion is
    // reported rather than the device's drop waiting on a spinning wave.
    struct Release<'a>(&'a Buffer);
    impl Drop for Release<'_> {
        fn drop(&mut self) {
            self.0.u32_at(4).store(1, Ordering::Release);
        }
    }
    let release = Release(&flags);
    wait_until("the kernel started", || {
        flags.u32_at(0).load(Ordering::Acquire) == 1
    });
    std::thread::sleep(Duration::from_millis(20));
    let seen = (q.read_index(), signal_value(running), signal_value(after));
    drop(release);
    assert_eq!(seen.0, 0, "the running dispatch holds the read index");
    assert_eq!((seen.1, seen.2), (1, 1), "nothing completed while it ran");
    wait_zero(running);
    wait_zero(after);
    assert_eq!(q.read_index(), 2);
    assert_eq!(c.kfd.device().queue_error(q.info.queue_id), None);
}

/// DESTROY_QUEUE preempts a dispatch that would never end, as amdkfd's
/// `destroy_queue_cpsch` unmaps the queue from the hardware and resets
/// its waves: the ioctl returns, the packet never completes, no error is
/// reported for the gone queue, and the GPU runs on.
#[test]
fn destroying_a_queue_preempts_a_kernel_that_never_ends() {
    let c = Arc::new(Client::new(2));
    let co = c.load("tests/kernels/spin.co");
    let k = co.kernels["spin_until_released"].clone();
    let flags = c.buffer(4096);
    let sig = c.buffer(4096);
    let spin = |q: &Queue, s: SignalHandle| {
        let g = Geometry::linear(256, 64);
        let kernarg = kernargs(&k, &[Arg::Ptr(flags.va)], g, q);
        let karg = c.buffer(kernarg.len());
        karg.write(0, &kernarg);
        let mut p = KernelDispatchPacket::new(k.kernel_object, karg.va, g.grid, g.workgroup);
        p.completion_signal = s;
        q.submit(zerocopy::transmute!(p));
        karg
    };
    let busy = Queue::no_scratch(&c, false);
    let s1 = signal(&sig, 0, 1);
    let _karg = spin(&busy, s1);
    wait_until("the kernel started", || {
        flags.u32_at(0).load(Ordering::Acquire) == 1
    });
    let id = busy.info.queue_id;
    let (tx, rx) = std::sync::mpsc::channel();
    {
        let c = Arc::clone(&c);
        std::thread::spawn(move || {
            let _ = tx.send(c.kfd.destroy_queue(id));
        });
    }
    rx.recv_timeout(Duration::from_secs(60))
        .expect("DESTROY_QUEUE did not return: it waited for a kernel that never ends")
        .unwrap();
    assert_eq!(flags.u32_at(4).load(Ordering::Acquire), 0, "never released");
    assert_eq!(signal_value(s1), 1, "the preempted packet never completes");
    assert_eq!(c.kfd.device().queue_completed(id), None, "gone");
    // The GPU runs on: the same kernel on another queue, released, ends.
    let other = Queue::no_scratch(&c, false);
    flags.u32_at(0).store(0, Ordering::Release);
    let s2 = signal(&sig, 64, 1);
    let _karg = spin(&other, s2);
    wait_until("the second kernel started", || {
        flags.u32_at(0).load(Ordering::Acquire) == 1
    });
    flags.u32_at(4).store(1, Ordering::Release);
    wait_zero(s2);
    assert_eq!(c.kfd.device().queue_error(other.info.queue_id), None);
}
