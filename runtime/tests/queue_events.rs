//! Queue events on the software GPU, through the public API: the scratch
//! handshake (the queue's inactive signal is an interrupt signal watched by
//! an async handler) and a memory fault (the KFD memory-exception event
//! reaches the queue's error callback as `HSA_STATUS_ERROR_MEMORY_FAULT`).
//!
//! A fault stops every queue of the GPU, so these tests run one at a time.

use std::sync::mpsc;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use runtime::driver;
use runtime::{ArgValue, Geometry, QueueKind, Runtime, Status};

const DEMO: &[u8] = include_bytes!("../kernels/demo.co");
const BASICS: &[u8] = include_bytes!("../../sim/tests/kernels/basics.co");

/// A bound for waits that must end; never reached when the code works.
const GENEROUS: Duration = Duration::from_secs(60);

fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn rt() -> Runtime {
    Runtime::init_with(driver::open_sim).expect("runtime on the sim")
}

fn u32s(rt: &Runtime, v: &[u32]) -> u64 {
    let p = rt
        .allocate(rt.kernarg_pool().unwrap(), (v.len() * 4) as u64)
        .unwrap();
    // SAFETY: a fresh CPU-mapped allocation of v.len() u32s.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p as *mut u32, v.len()) };
    p
}

#[test]
fn a_kernel_needing_scratch_runs_after_the_handshake() {
    let _g = serial();
    let rt = rt();
    let gpu = rt.gpu_agents().next().unwrap();
    let exe = rt.load_executable(gpu, DEMO).unwrap();
    let k = exe.kernel("private_scratch").unwrap().clone();
    assert!(k.private_segment_size > 0, "the kernel needs scratch");
    let (tx, rx) = mpsc::channel();
    let cb: runtime::queue::ErrorCallback = Box::new(move |s, _| {
        let _ = tx.send(s);
    });
    // No scratch at creation: the first dispatch stops the queue with
    // INSUFFICIENT_SCRATCH and the handler grows it.
    let q = rt
        .create_queue(gpu, 64, QueueKind::Multiple, Some(cb), 0)
        .unwrap();
    let calls = rt.event_stats().handler_calls;
    let n = 128u32;
    let input: Vec<u32> = (0..n).map(|i| i * 7 + 3).collect();
    let pin = u32s(&rt, &input);
    let pout = u32s(&rt, &vec![0; n as usize]);
    rt.dispatch(
        &q,
        &k,
        &[ArgValue::Pointer(pin), ArgValue::Pointer(pout)],
        &Geometry::linear(n, 64),
        GENEROUS,
    )
    .unwrap();
    let mut out = vec![0u32; n as usize];
    // SAFETY: an allocation of n u32s; the kernel completed.
    unsafe { std::ptr::copy_nonoverlapping(pout as *const u32, out.as_mut_ptr(), out.len()) };
    for (i, (&x, &y)) in input.iter().zip(&out).enumerate() {
        assert_eq!(y, x.wrapping_mul(x & 255), "out[{i}]");
    }
    assert!(
        rt.event_stats().handler_calls > calls,
        "the scratch request went through the async handler"
    );
    assert!(q.error().is_none());
    assert!(rx.try_recv().is_err(), "no error was reported");
    // A second dispatch finds the scratch in place.
    rt.dispatch(
        &q,
        &k,
        &[ArgValue::Pointer(pin), ArgValue::Pointer(pout)],
        &Geometry::linear(n, 64),
        GENEROUS,
    )
    .unwrap();
}

#[test]
fn a_memory_fault_reaches_the_error_callback() {
    let _g = serial();
    let rt = rt();
    let gpu = rt.gpu_agents().next().unwrap();
    let gpu_id = rt.agent(gpu).unwrap().gpu_id;
    let exe = rt.load_executable(gpu, DEMO).unwrap();
    let k = exe.kernel("store_to").unwrap().clone();
    let (tx, rx) = mpsc::channel();
    let cb: runtime::queue::ErrorCallback = Box::new(move |s, id| {
        let _ = tx.send((s, id));
    });
    let q = rt
        .create_queue(gpu, 64, QueueKind::Multiple, Some(cb), u32::MAX)
        .unwrap();
    let faults = rt.event_stats().memory_faults;
    // An address no allocation covers.
    let bad = 0x7e00_0000_0000u64;
    assert!(rt.pointer_info(bad).is_none());
    let err = rt
        .dispatch(
            &q,
            &k,
            &[ArgValue::Pointer(bad)],
            &Geometry::linear(64, 64),
            GENEROUS,
        )
        .unwrap_err();
    assert_eq!(err.status, Status::MemoryFault, "{err}");
    let (status, queue_id) = rx.recv_timeout(GENEROUS).unwrap();
    assert_eq!(status, Status::MemoryFault);
    assert_eq!(queue_id, q.id());
    assert_eq!(q.error(), Some(Status::MemoryFault));
    assert_eq!(rt.event_stats().memory_faults, faults + 1);
    let f = rt.last_memory_fault().expect("the fault was recorded");
    assert_eq!(f.gpu_id, gpu_id);
    assert_eq!(f.address, bad & !4095);
    assert!(f.not_present);
    // The callback is called once; the queue refuses new work.
    assert!(rx.try_recv().is_err());
    assert_eq!(q.submit(&[0; 16]).unwrap_err().status, Status::MemoryFault);
}

const FAULTS: &[u8] = include_bytes!("../kernels/faults.co");

/// A queue whose error callback sends what it hears.
fn queue_with_callback(
    rt: &Runtime,
    gpu: runtime::Agent,
) -> (runtime::Queue, mpsc::Receiver<(Status, u64)>) {
    let (tx, rx) = mpsc::channel();
    let cb: runtime::queue::ErrorCallback = Box::new(move |s, id| {
        let _ = tx.send((s, id));
    });
    let q = rt
        .create_queue(gpu, 64, QueueKind::Multiple, Some(cb), u32::MAX)
        .unwrap();
    (q, rx)
}

/// The packet processor's codes reach the callback as ROCr's statuses
/// (`queue::status_of_code`), through the inactive signal's event and the
/// async handler; the callback runs once and the queue refuses new work.
#[test]
fn queue_errors_reach_the_callback_with_rocr_statuses() {
    let _g = serial();
    let rt = rt();
    let gpu = rt.gpu_agents().next().unwrap();
    let exe = rt.load_executable(gpu, FAULTS).unwrap();
    // An address in the hole between the 48-bit halves: in no aperture.
    let hole = [ArgValue::Bytes(
        0x0000_8000_0000_0000u64.to_le_bytes().to_vec(),
    )];
    for (kernel, args, want) in [
        ("trap_now", &[][..], Status::Exception),
        ("illegal", &[][..], Status::IllegalInstruction),
        ("store_at", &hole[..], Status::MemoryApertureViolation),
    ] {
        let (q, rx) = queue_with_callback(&rt, gpu);
        let k = exe.kernel(kernel).unwrap().clone();
        let err = rt
            .dispatch(&q, &k, args, &Geometry::linear(64, 64), GENEROUS)
            .unwrap_err();
        assert_eq!(err.status, want, "{kernel}: {err}");
        assert_eq!(
            rx.recv_timeout(GENEROUS).unwrap(),
            (want, q.id()),
            "{kernel}"
        );
        assert_eq!(q.error(), Some(want));
        assert!(rx.try_recv().is_err(), "{kernel}: one callback");
        assert_eq!(q.submit(&[0; 16]).unwrap_err().status, want);
    }
    // A packet of no AQL type (6): INVALID_PACKET_FORMAT.
    let (q, rx) = queue_with_callback(&rt, gpu);
    let mut words = [0u32; 16];
    words[0] = 6;
    q.submit(&words).unwrap();
    assert_eq!(
        rx.recv_timeout(GENEROUS).unwrap(),
        (Status::InvalidPacketFormat, q.id())
    );
    assert_eq!(q.error(), Some(Status::InvalidPacketFormat));
}

/// The runtime installs its trap handler on every GPU at init: the code is
/// the committed handler, the trap memory a zeroed doorbell-to-queue map
/// in which each queue's `amd_queue_t` appears at its doorbell id.
#[test]
fn the_trap_handler_is_installed_on_every_gpu_and_maps_queues() {
    let _g = serial();
    let rt = rt();
    for gpu in rt.gpu_agents() {
        let v = rt.agent(gpu).unwrap().node.properties.gfx_target_version;
        let gfx90 = v.is_some_and(|v| v / 10000 == 9 && !matches!(v / 100 % 100, 4 | 5));
        let Some((tba, tma)) = rt.trap_handler(gpu).unwrap() else {
            assert!(!gfx90, "a GFX9.0 GPU ({v:?}) has a handler");
            continue;
        };
        assert!(gfx90, "only GFX9.0 GPUs get a handler, not {v:?}");
        let code = runtime::trap::TRAP_HANDLER_GFX9;
        // SAFETY: the handler's code: CPU-mapped system memory of its length.
        let installed = unsafe { std::slice::from_raw_parts(tba as *const u8, code.len()) };
        assert_eq!(installed, code);
        let q = rt
            .create_queue(gpu, 64, QueueKind::Multiple, None, u32::MAX)
            .unwrap();
        // SAFETY: the map: CPU-mapped system memory of 1024 u64s.
        let map = unsafe { std::slice::from_raw_parts(tma as *const u64, 1024) };
        let entries: Vec<u64> = map.iter().copied().filter(|&e| e != 0).collect();
        assert!(entries.contains(&q.address()), "{entries:x?}");
        let amd = q.address();
        drop(q);
        assert!(!map.contains(&amd), "a destroyed queue leaves the map");
    }
}

/// `s_trap 3` (llvm.debugtrap) with no debugger: the trap handler steps
/// over it and the kernel completes; a queue stopped by a trap leaves the
/// other queues working.
#[test]
fn a_debugtrap_resumes_and_other_queues_survive_a_trap() {
    let _g = serial();
    let rt = rt();
    let gpu = rt.gpu_agents().next().unwrap();
    let exe = rt.load_executable(gpu, FAULTS).unwrap();
    let (bad, rx) = queue_with_callback(&rt, gpu);
    let (good, good_rx) = queue_with_callback(&rt, gpu);
    let trap = exe.kernel("trap_now").unwrap().clone();
    let err = rt
        .dispatch(&bad, &trap, &[], &Geometry::linear(64, 64), GENEROUS)
        .unwrap_err();
    assert_eq!(err.status, Status::Exception, "{err}");
    assert_eq!(
        rx.recv_timeout(GENEROUS).unwrap(),
        (Status::Exception, bad.id())
    );
    let k = exe.kernel("debugtrap_then_store").unwrap().clone();
    let n = 256u32;
    let out = u32s(&rt, &vec![0; n as usize]);
    rt.dispatch(
        &good,
        &k,
        &[ArgValue::Pointer(out)],
        &Geometry::linear(n, 64),
        GENEROUS,
    )
    .unwrap();
    // SAFETY: `out` holds n u32s, CPU-mapped; the dispatch has completed.
    let got = unsafe { std::slice::from_raw_parts(out as *const u32, n as usize) };
    let want: Vec<u32> = (1..=n).collect();
    assert_eq!(got, &want[..]);
    assert_eq!(good.error(), None);
    assert!(good_rx.try_recv().is_err());
}

/// Scratch is sized and cached as ROCr's `HandleInsufficientScratch` and
/// `ScratchCache` do: the stalled packet's private segment size rounded to
/// the wave granule's share of a lane (1024 / 64 = 16 bytes on GFX9), for
/// every scratch slot of the device (`max_slots_scratch_cu` per CU, CUs
/// rounded up to whole shader engines); a destroyed queue's scratch stays
/// cached, the next queue asking for the same size gets the same block,
/// and a trim frees it.
#[test]
fn scratch_is_sized_for_every_slot_and_cached_as_rocr_does() {
    let _g = serial();
    let rt = rt();
    let gpu = rt.gpu_agents().next().unwrap();
    let p = rt.agent(gpu).unwrap().node.properties.clone();
    // A kernel whose scratch for every slot stays under the 140 MiB
    // single limit, so that it is small (kept and cached); demo.co's
    // private_scratch would be use-once (runtime/tests/scratch.rs).
    let exe = rt.load_executable(gpu, BASICS).unwrap();
    let k = exe.kernel("private_array").unwrap().clone();
    let cus = p.simd_count / p.simd_per_cu;
    let engines = p.array_count / p.simd_arrays_per_engine;
    let slots = u64::from(cus.div_ceil(engines) * engines) * u64::from(p.max_slots_scratch_cu);
    let per_thread = u64::from(k.private_segment_size).div_ceil(16) * 16;
    let expected = (per_thread * 64 * slots).div_ceil(4096) * 4096;
    assert!(expected <= runtime::scratch::SINGLE_LIMIT);
    let (in_use0, _) = rt.scratch_usage(gpu).unwrap();

    let run = |q: &runtime::Queue| {
        let n = 64u32;
        let pin = u32s(&rt, &vec![5; n as usize]);
        let pout = u32s(&rt, &vec![0; n as usize]);
        rt.dispatch(
            q,
            &k,
            &[ArgValue::Pointer(pin), ArgValue::Pointer(pout)],
            &Geometry::linear(n, 64),
            GENEROUS,
        )
        .unwrap();
    };
    let q = rt
        .create_queue(gpu, 64, QueueKind::Multiple, None, 0)
        .unwrap();
    assert_eq!(q.scratch().bytes, 0, "no scratch before the first dispatch");
    run(&q);
    let first = q.scratch();
    assert_eq!(
        first.bytes, expected,
        "{per_thread} bytes x 64 lanes x {slots} slots"
    );
    assert!(!first.large);
    assert_eq!(rt.scratch_usage(gpu).unwrap().0, in_use0 + expected);
    q.destroy().unwrap();
    let (in_use, cached) = rt.scratch_usage(gpu).unwrap();
    assert_eq!(in_use, in_use0, "the destroyed queue's scratch is released");
    assert!(cached >= expected, "and stays cached");

    let q2 = rt
        .create_queue(gpu, 64, QueueKind::Multiple, None, 0)
        .unwrap();
    run(&q2);
    assert_eq!(q2.scratch().va, first.va, "the cached block is reused");
    q2.destroy().unwrap();
    assert!(rt.trim_scratch(gpu).unwrap() >= expected);
    assert_eq!(rt.scratch_usage(gpu).unwrap().1, 0, "trimmed");

    // A private segment hint at creation: every slot of every CU, and
    // ROCr's limit on the hint.
    let q3 = rt
        .create_queue(gpu, 64, QueueKind::Multiple, None, 1000)
        .unwrap();
    let at_create = 1008 * 64 * u64::from(cus) * u64::from(p.max_slots_scratch_cu);
    assert_eq!(q3.scratch().bytes, at_create.div_ceil(4096) * 4096);
    drop(q3);
    assert_eq!(
        rt.create_queue(gpu, 64, QueueKind::Multiple, None, 262_129)
            .unwrap_err()
            .status,
        Status::OutOfResources
    );
}
