//! Scratch on the MI300X board (gfx942, 8 XCCs, architected flat scratch):
//! clang-19's `private_scratch` (loader-core's corpus, gfx942, code object
//! v5: a 2 KiB private array indexed per work-item) runs and its results
//! are the host's. It takes both of: the sim setting each wave's
//! FLAT_SCRATCH to the queue's scratch base plus the wave's offset (the
//! kernel has no flat scratch init SGPR and adds no offset itself; without
//! it the first scratch store faults at address 0), and the runtime sizing
//! the use-once scratch of a small grid as ROCr does, spread over every
//! shader engine (one wave split over 8 XCCs gave no XCC a wave slot).

#[path = "support/host_buffers.rs"]
mod host_buffers;

use std::time::Duration;

use host_buffers::{read_u32s, u32s};
use runtime::{ArgValue, Geometry, QueueKind, Runtime, driver};

const GFX942: &[u8] = include_bytes!("../../loader-core/corpus/co/gfx942-v5.co");

#[test]
fn private_scratch_runs_on_the_gfx942_board() {
    let dev = sim::SimBuilder::new().board(sim::Board::Mi300x).build();
    let rt = Runtime::init_with(|| driver::open_sim_device(dev)).unwrap();
    let gpu = rt.gpu_agents().next().unwrap();
    let exe = rt.load_executable(gpu, GFX942).unwrap();
    let k = exe.kernel("private_scratch").unwrap().clone();
    assert!(k.private_segment_size >= 2048, "{}", k.private_segment_size);
    let q = rt
        .create_queue(gpu, 64, QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    // out[i] = table[idx[i] & 511], table[k] = k * local id.
    for (n, wg) in [(64u32, 64u16), (1000, 256)] {
        let idx: Vec<u32> = (0..n).map(|i| i.wrapping_mul(7) + 3).collect();
        let pi = u32s(&rt, &idx);
        let po = u32s(&rt, &vec![0; n as usize]);
        rt.dispatch(
            &q,
            &k,
            &[ArgValue::Pointer(pi), ArgValue::Pointer(po)],
            &Geometry::linear(n, wg),
            Duration::from_secs(120),
        )
        .unwrap();
        let got = read_u32s(po, n as usize);
        for i in 0..n as usize {
            let lid = i as u32 % u32::from(wg);
            assert_eq!(
                got[i],
                (idx[i] & 511).wrapping_mul(lid),
                "grid {n}: out[{i}]"
            );
        }
        rt.free(pi).unwrap();
        rt.free(po).unwrap();
    }
}
