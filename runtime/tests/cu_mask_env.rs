//! `HSA_CU_MASK` (ROCr's syntax, `runtime::cu_mask_env`): applied to every
//! queue the runtime creates on the GPU it names (not with
//! `HSA_CU_MASK_SKIP_INIT=1`), ANDed with masks set later; malformed,
//! `hsa_init` fails naming the set. One test: the
//! variable is read when the runtime opens, once per process-wide open.

#[path = "support/hw_id.rs"]
mod hw_id;

use std::collections::BTreeSet;

use hw_id::{cu_of_bit, cus_seen};

use runtime::driver;
use runtime::{QueueKind, Runtime, Status};

const CUMASK: &[u8] = include_bytes!("../../sim/tests/kernels/cumask.co");

fn set_env(v: &str) {
    // SAFETY: this binary's only test is the only thread touching the
    // environment, and no runtime is open while it changes it.
    unsafe { std::env::set_var("HSA_CU_MASK", v) };
}

#[test]
fn hsa_cu_mask_restricts_every_queue_of_its_gpu() {
    // Malformed: an error at hsa_init naming the variable and the set.
    set_env("0:0-3; 0:4");
    let e = Runtime::init_with(driver::open_sim).unwrap_err();
    assert_eq!(e.status, Status::Error);
    let what = e.to_string();
    assert!(what.contains("HSA_CU_MASK: CU set 2"), "{what}");
    assert_eq!(Runtime::init_count(), 0);

    // ROCr's range syntax with spaces: CUs 0-3 and 8-11.
    set_env("0 : 8-11, 0-3");
    let rt = Runtime::init_with(driver::open_sim).unwrap();
    let gpu = rt.gpu_agents().next().unwrap();
    let exe = rt.load_executable(gpu, CUMASK).unwrap();
    let k = exe.kernel("hw_id").unwrap().clone();
    let q = rt
        .create_queue(gpu, 64, QueueKind::Multiple, None, 0)
        .unwrap();
    assert_eq!(q.cu_mask(4), [0xf0f, 0, 0, 0]);
    let groups = 64u32;
    let seen = |q: &runtime::Queue| cus_seen(&rt, q, &k, groups);
    let env_cus: BTreeSet<u32> = [0, 1, 2, 3, 8, 9, 10, 11].map(cu_of_bit).into();
    assert_eq!(seen(&q), env_cus);

    // A user mask is ANDed with it: asking for CUs 0-7 gets 0-3 and
    // reports the reduction.
    assert!(q.set_cu_mask(&[0xff]).unwrap(), "CU_MASK_REDUCED");
    assert_eq!(q.cu_mask(4), [0xf, 0, 0, 0]);
    assert_eq!(seen(&q), [0, 1, 2, 3].map(cu_of_bit).into());
    // Within the environment's mask: not reduced.
    assert!(!q.set_cu_mask(&[0x300]).unwrap());
    assert_eq!(seen(&q), [8, 9].map(cu_of_bit).into());
    // The reset asks for every CU: the environment's mask again, reduced.
    assert!(q.set_cu_mask(&[]).unwrap());
    assert_eq!(q.cu_mask(4), [0xf0f, 0, 0, 0]);

    // Another queue starts with the environment's mask too.
    let q2 = rt
        .create_queue(gpu, 64, QueueKind::Single, None, 0)
        .unwrap();
    assert_eq!(q2.cu_mask(4), [0xf0f, 0, 0, 0]);
    assert_eq!(seen(&q2), env_cus);
    drop((q, q2));
    drop((exe, rt));

    // HSA_CU_MASK_SKIP_INIT=1 (ROCr's `cu_mask_skip_init`): a new queue
    // gets no initial mask, so it runs on every CU and its mask reads 0s;
    // a mask set later is still ANDed with HSA_CU_MASK's.
    // SAFETY: as set_env.
    unsafe { std::env::set_var("HSA_CU_MASK_SKIP_INIT", "1") };
    let rt = Runtime::init_with(driver::open_sim).unwrap();
    // SAFETY: as set_env.
    unsafe { std::env::remove_var("HSA_CU_MASK_SKIP_INIT") };
    let gpu = rt.gpu_agents().next().unwrap();
    let exe = rt.load_executable(gpu, CUMASK).unwrap();
    let k = exe.kernel("hw_id").unwrap().clone();
    let q = rt
        .create_queue(gpu, 64, QueueKind::Multiple, None, 0)
        .unwrap();
    assert_eq!(q.cu_mask(4), [0, 0, 0, 0]);
    let cus = cus_seen(&rt, &q, &k, groups);
    assert!(
        !cus.is_subset(&env_cus),
        "work-groups ran outside HSA_CU_MASK's CUs: {cus:x?}"
    );
    assert!(
        q.set_cu_mask(&[0xff]).unwrap(),
        "still ANDed: CU_MASK_REDUCED"
    );
    assert_eq!(q.cu_mask(4), [0xf, 0, 0, 0]);
}
