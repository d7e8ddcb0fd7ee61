//! The GPU's scratch pool and ROCr's occupancy reduction on the sim's
//! MI210: `HSA_SCRATCH_MEM` sizes the pool all queue scratch lies in (32
//! waves × 64 lanes × 104 CUs × bytes per work-item, × `HSA_MAX_QUEUES`);
//! a dispatch whose use-once scratch does not fit gets whole waves of every
//! CU that do, and the packet processor runs only that many waves at once
//! (its results stay the host's); `HSA_NO_SCRATCH_THREAD_LIMITER=1` makes
//! the same dispatch a queue error (`OUT_OF_RESOURCES`, ROCr's "out of
//! scratch"). AMD's ROCr 5.2.3 over the sim, given the same dispatch and
//! pool (`tests/c/cu_mask_scratch.c pool`, `scripts/test-rocr-on-sim`),
//! prints "Failed to map requested scratch (17039360) - reducing queue
//! occupancy. 6922240 scratch mapped": the sizes asserted here. Its own
//! binary: one process runtime, opened three times.

#[path = "support/host_buffers.rs"]
mod host_buffers;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use host_buffers::{read_u32s, u32s};
use runtime::flags::Flags;
use runtime::{ArgValue, Geometry, InitOptions, QueueKind, Runtime, Status, driver};

const DEMO: &[u8] = include_bytes!("../kernels/demo.co");
const CUS: u64 = 104;

fn open(vars: &'static [(&'static str, &'static str)]) -> Runtime {
    let flags = Flags::from_lookup(|n| {
        vars.iter()
            .find(|(k, _)| *k == n)
            .map(|(_, v)| (*v).to_owned())
    })
    .unwrap();
    Runtime::init_with_flags(driver::open_sim, InitOptions::default(), flags).unwrap()
}

/// `private_scratch` over 16384 work-items in groups of 64: 256 waves,
/// each with its own scratch. Returns the dispatch's result (its outputs
/// checked against the host), the queue's error, and the scratch block
/// the cache holds once the use-once block is back.
fn run(
    vars: &'static [(&'static str, &'static str)],
) -> (Result<(), Status>, Option<Status>, u64, u64) {
    let errors = Arc::new(Mutex::new(Vec::new()));
    let rt = open(vars);
    let gpu = rt.gpu_agents().next().unwrap();
    let exe = rt.load_executable(gpu, DEMO).unwrap();
    let k = exe.kernel("private_scratch").unwrap().clone();
    let seen = Arc::clone(&errors);
    let q = rt
        .create_queue(
            gpu,
            64,
            QueueKind::Single,
            Some(Box::new(move |s, _| seen.lock().unwrap().push(s))),
            u32::MAX,
        )
        .unwrap();
    let per_wave =
        (u64::from(k.private_segment_size.next_multiple_of(16)) * 64).next_multiple_of(1024);
    let n = 16384usize;
    let input: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761) >> 5)
        .collect();
    let pin = u32s(&rt, &input);
    let pout = u32s(&rt, &vec![0; n]);
    let r = rt
        .dispatch(
            &q,
            &k,
            &[ArgValue::Pointer(pin), ArgValue::Pointer(pout)],
            &Geometry::linear(n as u32, 64),
            Duration::from_secs(120),
        )
        .map(|_| {
            let out = read_u32s(pout, n);
            for i in 0..n {
                assert_eq!(out[i], input[i].wrapping_mul(input[i] & 255), "out[{i}]");
            }
        })
        .map_err(|e| e.status);
    let t = Instant::now();
    while r.is_ok() && q.scratch().bytes != 0 {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the use-once block never came back"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    let (_, cached) = rt.scratch_usage(gpu).unwrap();
    let error = errors.lock().unwrap().first().copied();
    (r, error, cached, per_wave)
}

#[test]
fn the_scratch_pool_bounds_scratch_and_the_wave_limiter_fits_a_dispatch_in_it() {
    // The default pool: the dispatch's 256 waves get their use-once block.
    let (r, error, cached, per_wave) = run(&[]);
    assert_eq!((r, error), (Ok(()), None));
    assert_eq!(cached, (256 * per_wave).next_multiple_of(4096));

    // A 13 MiB pool (64 bytes a work-item, one queue): the 256 waves do
    // not fit; two waves a CU do not either; one wave a CU does, and the
    // dispatch runs (its outputs checked) with 104 waves at a time.
    let pool = 32 * 64 * CUS * 64;
    assert_eq!(
        runtime::scratch::scratch_pool_bytes(CUS, 1, 64, 1),
        pool,
        "32 x 64 x CUs x HSA_SCRATCH_MEM"
    );
    assert!(256 * per_wave > pool && 2 * CUS * per_wave > pool && CUS * per_wave <= pool);
    let small = &[("HSA_SCRATCH_MEM", "64"), ("HSA_MAX_QUEUES", "1")];
    let (r, error, cached, _) = run(small);
    assert_eq!((r, error), (Ok(()), None));
    assert_eq!(cached, CUS * per_wave, "one wave of scratch for each CU");

    // Without the limiter the same dispatch is out of scratch.
    let off = &[
        ("HSA_SCRATCH_MEM", "64"),
        ("HSA_MAX_QUEUES", "1"),
        ("HSA_NO_SCRATCH_THREAD_LIMITER", "1"),
    ];
    let (r, error, cached, _) = run(off);
    assert!(r.is_err(), "{r:?}");
    assert_eq!(error, Some(Status::OutOfResources));
    assert_eq!(cached, 0);
}
