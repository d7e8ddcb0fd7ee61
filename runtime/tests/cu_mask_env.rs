//! `HSA_CU_MASK` (ROCr's syntax, `runtime::cu_mask_env`): applied to every
//! queue the runtime creates on the GPU it names (not with
//! `HSA_CU_MASK_SKIP_INIT=1`), ANDed with masks set later; malformed,
//! `hsa_init` fails naming the set. One test: the
//! variable is read when the runtime opens, once per process-wide open.

use std::collections::BTreeSet;
use std::time::Duration;

use runtime::driver;
use runtime::{ArgValue, Geometry, QueueKind, Runtime, Status};

const CUMASK: &[u8] = include_bytes!("../../sim/tests/kernels/cumask.co");

/// HW_ID's CU_ID, SH_ID and SE_ID of mask bit `i` on the sim's MI210.
fn cu_of_bit(i: u32) -> u32 {
    ((i / 8) << 8) | ((i % 8) << 13)
}

fn set_env(v: &str) {
    // SAFETY: this binary's only test is the only thread touching the
    // environment, and no runtime is open while it changes it.
    unsafe { std::env::set_var("HSA_CU_MASK", v) };
}

/// The CUs (HW_ID's CU, SH and SE fields) `hw_id`'s `groups` work-groups
/// of 64 ran on, on `q`.
fn cus_seen(
    rt: &Runtime,
    q: &runtime::Queue,
    k: &runtime::KernelSymbol,
    out: u64,
    groups: u32,
) -> BTreeSet<u32> {
    rt.dispatch(
        q,
        k,
        &[ArgValue::Pointer(out)],
        &Geometry::linear(groups * 64, 64),
        Duration::from_secs(60),
    )
    .unwrap();
    let mut ids = vec![0u32; groups as usize];
    // SAFETY: an allocation of `groups` u32s; the kernel has completed.
    unsafe { std::ptr::copy_nonoverlapping(out as *const u32, ids.as_mut_ptr(), ids.len()) };
    ids.iter().map(|id| id & 0xff00).collect()
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
    let out = rt
        .allocate(rt.kernarg_pool().unwrap(), u64::from(groups) * 4)
        .unwrap();
    let seen = |q: &runtime::Queue| cus_seen(&rt, q, &k, out, groups);
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
    rt.free(out).unwrap();
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
    let out = rt
        .allocate(rt.kernarg_pool().unwrap(), u64::from(groups) * 4)
        .unwrap();
    let cus = cus_seen(&rt, &q, &k, out, groups);
    assert!(
        !cus.is_subset(&env_cus),
        "work-groups ran outside HSA_CU_MASK's CUs: {cus:x?}"
    );
    assert!(
        q.set_cu_mask(&[0xff]).unwrap(),
        "still ANDed: CU_MASK_REDUCED"
    );
    assert_eq!(q.cu_mask(4), [0xf, 0, 0, 0]);
    rt.free(out).unwrap();
}
