//! `HSA_SCRATCH_SINGLE_LIMIT` and `HSA_NO_SCRATCH_RECLAIM` (ROCr's
//! `flag.h`), read when the runtime opens: one test, since the environment
//! is the process's.

use std::time::Duration;

use runtime::driver;
use runtime::{ArgValue, Geometry, QueueKind, Runtime, Status};

const DEMO: &[u8] = include_bytes!("../kernels/demo.co");

fn set(k: &str, v: Option<&str>) {
    match v {
        // SAFETY: this binary's only test is the only thread touching the
        // environment, and no runtime is open while it changes it.
        Some(v) => unsafe { std::env::set_var(k, v) },
        // SAFETY: as above.
        None => unsafe { std::env::remove_var(k) },
    }
}

/// Runs `private_scratch` once; returns the queue's scratch block after.
fn run_once() -> (runtime::scratch::ScratchBlock, u64) {
    let rt = Runtime::init_with(driver::open_sim).unwrap();
    let gpu = rt.gpu_agents().next().unwrap();
    let exe = rt.load_executable(gpu, DEMO).unwrap();
    let k = exe.kernel("private_scratch").unwrap().clone();
    let q = rt
        .create_queue(gpu, 64, QueueKind::Single, None, u32::MAX)
        .unwrap();
    let n = 256usize;
    let p = rt
        .allocate(rt.kernarg_pool().unwrap(), (n * 8) as u64)
        .unwrap();
    rt.dispatch(
        &q,
        &k,
        &[ArgValue::Pointer(p), ArgValue::Pointer(p + n as u64 * 4)],
        &Geometry::linear(n as u32, 64),
        Duration::from_secs(60),
    )
    .unwrap();
    let lane = u64::from(k.private_segment_size.next_multiple_of(16));
    (q.scratch(), lane * 64 * 3328)
}

#[test]
fn scratch_variables_choose_small_or_use_once_scratch() {
    // Malformed values fail hsa_init, naming the variable.
    for (k, v) in [
        ("HSA_SCRATCH_SINGLE_LIMIT", "140M"),
        ("HSA_NO_SCRATCH_RECLAIM", "true"),
    ] {
        set(k, Some(v));
        let e = Runtime::init_with(driver::open_sim).unwrap_err();
        assert_eq!(e.status, Status::Error);
        assert!(e.to_string().contains(k), "{e}");
        set(k, None);
    }
    // HSA_NO_SCRATCH_RECLAIM=1: small scratch for every slot of the
    // MI210 (lane bytes * 64 lanes * 3328 slots), kept after the dispatch.
    set("HSA_NO_SCRATCH_RECLAIM", Some("1"));
    let (b, device) = run_once();
    assert!(device > runtime::scratch::SINGLE_LIMIT);
    assert_eq!((b.large, b.bytes), (false, device));
    set("HSA_NO_SCRATCH_RECLAIM", None);
    // A single limit above the device-wide size: small as well.
    set("HSA_SCRATCH_SINGLE_LIMIT", Some("1000000000"));
    let (b, device) = run_once();
    assert_eq!((b.large, b.bytes), (false, device));
}
