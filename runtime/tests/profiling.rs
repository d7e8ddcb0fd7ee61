//! Profiling through the public API on the sim (`hsa_amd_profiling_*`):
//! dispatch and async-copy times written by the GPU (the packet processor,
//! the SDMA engine, the blit kernel's dispatch) come back ordered and
//! inside the host's own clock readings around the work, in the HSA system
//! clock; what was not profiled is an error, never a made-up time.

#[path = "support/copy_cases.rs"]
mod copy_cases;

use std::time::Duration;

use aql::SignalHandle;
use aql::packet::KernelDispatchPacket;
use copy_cases::{DONE, peek, poke, setup};
use runtime::{CopyEngine, Queue, QueueKind, Runtime, Signal, Status, driver};

const DEMO: &[u8] = include_bytes!("../kernels/demo.co");

/// `vector_add` over no elements (n = 0 in a zeroed kernarg segment: the
/// kernel only checks the bound), completing `done`.
fn dispatch(rt: &Runtime, q: &Queue, k: &runtime::KernelSymbol, done: &Signal) {
    let size = u64::from(k.kernarg_segment_size.max(16));
    let kernarg = rt.allocate(rt.kernarg_pool().unwrap(), size).unwrap();
    poke(kernarg, &vec![0; size as usize]);
    let mut p = KernelDispatchPacket::new(k.kernel_object, kernarg, [256, 1, 1], [64, 1, 1]);
    p.completion_signal = SignalHandle {
        handle: done.handle(),
    };
    p.private_segment_size = k.private_segment_size;
    p.group_segment_size = k.group_segment_size;
    q.submit(&zerocopy::transmute!(p)).unwrap();
    assert!(done.wait_zero(DONE).unwrap(), "dispatch completed");
    rt.free(kernarg).unwrap();
}

#[test]
fn dispatch_and_copy_times_are_ordered_and_within_the_host_clock() {
    let s = setup(Runtime::init_with(driver::open_sim).unwrap());
    let rt = &s.rt;
    let exe = rt.load_executable(s.gpu, DEMO).unwrap();
    let k = exe.kernel("vector_add").unwrap().clone();
    let q = rt
        .create_queue(s.gpu, 256, QueueKind::Multiple, None, u32::MAX)
        .unwrap();

    // Without profiling the packet processor writes no times.
    let done = rt.create_signal(1).unwrap();
    dispatch(rt, &q, &k, &done);
    let e = rt.dispatch_time(s.gpu, &done).unwrap_err();
    assert_eq!(e.status, Status::Error, "{e}");

    rt.set_profiler_enabled(&q, true).unwrap();
    let mut last_end = 0;
    for _ in 0..4 {
        let done = rt.create_signal(1).unwrap();
        let before = rt.timestamp();
        dispatch(rt, &q, &k, &done);
        let after = rt.timestamp();
        let t = rt.dispatch_time(s.gpu, &done).unwrap();
        assert!(
            before <= t.start && t.start <= t.end && t.end <= after,
            "host {before} <= start {} <= end {} <= host {after}",
            t.start,
            t.end
        );
        assert!(last_end <= t.start, "dispatches in queue order");
        last_end = t.end;
        // The same signal through a CPU agent: not a GPU agent.
        let e = rt.dispatch_time(s.cpu, &done).unwrap_err();
        assert_eq!(e.status, Status::InvalidAgent);
    }
    rt.set_profiler_enabled(&q, false).unwrap();
    let done = rt.create_signal(1).unwrap();
    dispatch(rt, &q, &k, &done);
    assert!(
        rt.dispatch_time(s.gpu, &done).is_err(),
        "profiling off again"
    );

    // GPU ticks translate monotonically; a CPU agent has no GPU clock.
    let a = rt.tick_to_system(s.gpu, 1_000).unwrap();
    let b = rt.tick_to_system(s.gpu, 1_000_000).unwrap();
    assert!(a < b);
    assert_eq!(
        rt.tick_to_system(s.cpu, 1).unwrap_err().status,
        Status::InvalidAgent
    );

    // Async copies: host -> device (SDMA) and device -> device (the blit
    // kernel), 1 MiB each.
    let n = 1 << 20;
    let h = rt.allocate(s.sys, n).unwrap();
    let d1 = rt.allocate(s.vram, n).unwrap();
    let d2 = rt.allocate(s.vram, n).unwrap();
    poke(h, &vec![0x5a; n as usize]);
    let copy = |dst, dst_agent, src, src_agent| {
        let done = rt.create_signal(1).unwrap();
        let before = rt.timestamp();
        // SAFETY: test buffers, nothing else uses them meanwhile.
        let e =
            unsafe { rt.memory_async_copy(dst, dst_agent, src, src_agent, n, &[], &done) }.unwrap();
        assert!(done.wait_zero(DONE).unwrap());
        (e, done, before, rt.timestamp())
    };
    let (e, unprofiled, ..) = copy(d1, s.gpu, h, s.cpu);
    assert_eq!(e, CopyEngine::Sdma);
    assert_eq!(
        rt.async_copy_time(&unprofiled).unwrap_err().status,
        Status::Error,
        "copy profiling is off"
    );
    rt.set_async_copy_profiling(true);
    for (dst, dst_agent, src, src_agent, engine) in [
        (d1, s.gpu, h, s.cpu, CopyEngine::Sdma),
        (d2, s.gpu, d1, s.gpu, CopyEngine::BlitKernel),
    ] {
        let (e, done, before, after) = copy(dst, dst_agent, src, src_agent);
        assert_eq!(e, engine);
        let t = rt.async_copy_time(&done).unwrap();
        assert!(
            before <= t.start && t.start <= t.end && t.end <= after,
            "{engine:?}: host {before} <= start {} <= end {} <= host {after}",
            t.start,
            t.end
        );
    }
    assert_eq!(peek(d2, 16), vec![0x5a; 16]);
    rt.set_async_copy_profiling(false);
    // A signal no copy completed.
    let never = rt.create_signal(0).unwrap();
    assert_eq!(
        rt.async_copy_time(&never).unwrap_err().status,
        Status::Error
    );
    std::thread::sleep(Duration::from_millis(1));
    q.destroy().unwrap();
}

/// A kernel that runs a known time: `spin_until_released` spins until the
/// host stores to its flag, 100 ms after the kernel raised its own. The
/// dispatch's start and end, in the system clock, lie around the host's
/// readings and are at least the 100 ms apart the host held it.
#[test]
fn a_kernel_held_a_known_time_is_timed_that_long() {
    let s = setup(Runtime::init_with(driver::open_sim).unwrap());
    let rt = &s.rt;
    let spin = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../sim/tests/kernels/spin.co"
    ))
    .unwrap();
    let exe = rt.load_executable(s.gpu, &spin).unwrap();
    let k = exe.kernel("spin_until_released").unwrap().clone();
    let q = rt
        .create_queue(s.gpu, 64, QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    rt.set_profiler_enabled(&q, true).unwrap();
    let pool = rt.kernarg_pool().unwrap();
    let flags = rt.allocate(pool, 8).unwrap();
    poke(flags, &[0; 8]);
    let kernarg = rt.allocate(pool, 16).unwrap();
    poke(kernarg, &flags.to_le_bytes());
    let done = rt.create_signal(1).unwrap();
    let mut p = KernelDispatchPacket::new(k.kernel_object, kernarg, [64, 1, 1], [64, 1, 1]);
    p.completion_signal = SignalHandle {
        handle: done.handle(),
    };
    let before = rt.timestamp();
    q.submit(&zerocopy::transmute!(p)).unwrap();
    let t0 = std::time::Instant::now();
    while peek(flags, 4) != [1, 0, 0, 0] {
        assert!(t0.elapsed() < DONE, "the kernel never started");
        std::thread::yield_now();
    }
    let raised = rt.timestamp();
    std::thread::sleep(Duration::from_millis(100));
    let released = rt.timestamp();
    poke(flags + 4, &1u32.to_le_bytes());
    assert!(done.wait_zero(DONE).unwrap(), "dispatch completed");
    let after = rt.timestamp();
    let t = rt.dispatch_time(s.gpu, &done).unwrap();
    let hz = rt.timestamp_frequency();
    assert!(
        before <= t.start && t.start <= raised,
        "started between the submit ({before}) and the flag ({raised}): {}",
        t.start
    );
    assert!(
        released <= t.end && t.end <= after,
        "ended between the release ({released}) and the wait's end ({after}): {}",
        t.end
    );
    let held = (t.end - t.start) as f64 / hz as f64;
    assert!(held >= 0.1, "timed {held} s, held 0.1 s");
    rt.free(kernarg).unwrap();
    rt.free(flags).unwrap();
}
