//! ROCr's use-once ("large") scratch on the sim: a dispatch whose scratch
//! for every slot of the device exceeds `HSA_SCRATCH_SINGLE_LIMIT` (140
//! MiB by default) gets a block sized for its own waves only, the packet
//! processor keeps its waves within the block's `COMPUTE_TMPRING_SIZE.WAVES`
//! slots, and hands the block back with code 512 when it ends. Its own
//! binary: the scratch cache's figures are the process's.

use std::time::{Duration, Instant};

use runtime::driver;
use runtime::{ArgValue, Geometry, QueueKind, Runtime};

const DEMO: &[u8] = include_bytes!("../kernels/demo.co");

fn u32s(rt: &Runtime, v: &[u32]) -> u64 {
    let p = rt
        .allocate(rt.kernarg_pool().unwrap(), (v.len() * 4) as u64)
        .unwrap();
    // SAFETY: a fresh CPU-mapped allocation of v.len() u32s.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p as *mut u32, v.len()) };
    p
}

fn read_u32s(p: u64, n: usize) -> Vec<u32> {
    let mut out = vec![0u32; n];
    // SAFETY: an allocation of at least n u32s, the kernel has completed.
    unsafe { std::ptr::copy_nonoverlapping(p as *const u32, out.as_mut_ptr(), n) };
    out
}

/// Waits (at most a minute, a hang guard) for `f`.
fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "{what} never happened"
        );
        std::thread::yield_now();
    }
}

#[test]
fn a_dispatch_too_big_for_small_scratch_runs_on_use_once_scratch() {
    const { assert!(runtime::scratch::USE_ONCE) };
    let rt = Runtime::init_with(driver::open_sim).unwrap();
    let gpu = rt.gpu_agents().next().unwrap();
    let exe = rt.load_executable(gpu, DEMO).unwrap();
    let k = exe.kernel("private_scratch").unwrap().clone();
    // Over 1 KiB a work-item, rounded to the granule's share of a lane
    // (1024 / 64): every slot of the MI210 (104 CUs * 32) would be more
    // than the 140 MiB single limit.
    let lane = u64::from(k.private_segment_size.next_multiple_of(16));
    assert!(lane * 64 * 3328 > runtime::scratch::SINGLE_LIMIT, "{lane}");
    let q = rt
        .create_queue(gpu, 64, QueueKind::Single, None, u32::MAX)
        .unwrap();
    assert_eq!(q.scratch().bytes, 0);
    for round in 0..3u32 {
        // 40 workgroups of 128 work-items: 80 waves, as many slots.
        let n = 40 * 128usize;
        let input: Vec<u32> = (0..n as u32)
            .map(|i| (i ^ round).wrapping_mul(2654435761) >> 3)
            .collect();
        let pin = u32s(&rt, &input);
        let pout = u32s(&rt, &vec![0; n]);
        rt.dispatch(
            &q,
            &k,
            &[ArgValue::Pointer(pin), ArgValue::Pointer(pout)],
            &Geometry::linear(n as u32, 128),
            Duration::from_secs(60),
        )
        .unwrap();
        let out = read_u32s(pout, n);
        for i in 0..n {
            assert_eq!(
                out[i],
                input[i].wrapping_mul(input[i] & 255),
                "round {round} out[{i}]"
            );
        }
        // Code 512: the block goes back to the cache, the queue has none.
        wait_for("the use-once scratch's reclaim", || q.scratch().bytes == 0);
        let (in_use, free) = rt.scratch_usage(gpu).unwrap();
        assert_eq!(in_use, 0);
        assert_eq!(
            free,
            (80 * 64 * lane).next_multiple_of(4096),
            "a block of the dispatch's 80 waves"
        );
        rt.free(pin).unwrap();
        rt.free(pout).unwrap();
    }
}
