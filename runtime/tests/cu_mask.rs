//! `hsa_amd_queue_cu_set_mask` through the runtime on the sim: a kernel
//! that records each workgroup's `HW_REG_HW_ID` (as rocrtst's cu_masking
//! test) sees only the CUs of the queue's mask, and every one of them.
//!
//! On the sim's MI210 (8 shader engines of 13 CUs) mask bit `i` is SE
//! `i % 8`, CU `i / 8` (amdkfd's `mqd_symmetrically_map_cu_mask`).

#[path = "support/hw_id.rs"]
mod hw_id;

use std::collections::BTreeSet;

use hw_id::{cu_of_bit, cus_seen};

use runtime::driver;
use runtime::{QueueKind, Runtime};

const CUMASK: &[u8] = include_bytes!("../../sim/tests/kernels/cumask.co");
const CUS: u32 = 104;

fn bits_of(mask: &[u32]) -> BTreeSet<u32> {
    (0..CUS)
        .filter(|&i| {
            mask.get((i / 32) as usize)
                .is_some_and(|w| w & (1 << (i % 32)) != 0)
        })
        .map(cu_of_bit)
        .collect()
}

#[test]
fn queue_cu_masks_confine_workgroups_to_their_cus() {
    let rt = Runtime::init_with(driver::open_sim).unwrap();
    let gpu = rt.gpu_agents().next().unwrap();
    let exe = rt.load_executable(gpu, CUMASK).unwrap();
    let k = exe.kernel("hw_id").unwrap().clone();
    let q = rt
        .create_queue(gpu, 64, QueueKind::Multiple, None, 0)
        .unwrap();
    let all = [u32::MAX, u32::MAX, u32::MAX, 0xff];
    assert_eq!(
        q.cu_mask(5),
        [all[0], all[1], all[2], all[3], 0],
        "every CU at first"
    );
    assert_eq!(cus_seen(&rt, &q, &k, 2 * CUS), bits_of(&all));

    // One CU.
    assert!(!q.set_cu_mask(&[0, 1 << 9, 0, 0]).unwrap());
    assert_eq!(q.cu_mask(4), [0, 1 << 9, 0, 0]);
    assert_eq!(cus_seen(&rt, &q, &k, 32), [cu_of_bit(41)].into());

    // Alternate CUs, given in fewer words than the agent has.
    let alternate = [0x5555_5555, 0x5555_5555];
    assert!(!q.set_cu_mask(&alternate).unwrap());
    assert_eq!(q.cu_mask(4), [0x5555_5555, 0x5555_5555, 0, 0]);
    assert_eq!(cus_seen(&rt, &q, &k, 4 * CUS), bits_of(&alternate));

    // Bits past the agent's CUs are dropped, not reported (ROCr).
    assert!(!q.set_cu_mask(&[u32::MAX; 8]).unwrap());
    assert_eq!(q.cu_mask(4), all);
    assert_eq!(cus_seen(&rt, &q, &k, 2 * CUS), bits_of(&all));

    // An empty mask restores every CU.
    q.set_cu_mask(&[1]).unwrap();
    assert!(!q.set_cu_mask(&[]).unwrap());
    assert_eq!(q.cu_mask(4), all);
}
