//! The CUs a dispatch ran on, as `sim/tests/kernels/cumask.co`'s `hw_id`
//! kernel records them (each work-group's `HW_REG_HW_ID`, as rocrtst's
//! cu_masking test), on the sim's MI210 (8 shader engines of 13 CUs).

#![allow(dead_code)] // each test file uses some of them

use std::collections::BTreeSet;
use std::time::Duration;

use runtime::{ArgValue, Geometry, Runtime};

/// HW_ID's CU_ID, SH_ID and SE_ID (bits 15:8) of CU mask bit `i`: SE
/// `i % 8`, CU `i / 8` (amdkfd's `mqd_symmetrically_map_cu_mask`).
pub fn cu_of_bit(i: u32) -> u32 {
    ((i / 8) << 8) | ((i % 8) << 13)
}

/// The CUs (HW_ID bits 15:8) `hw_id`'s `groups` work-groups of 64 ran on,
/// dispatched on `q`.
pub fn cus_seen(
    rt: &Runtime,
    q: &runtime::Queue,
    k: &runtime::executable::KernelSymbol,
    groups: u32,
) -> BTreeSet<u32> {
    let out = rt
        .allocate(rt.kernarg_pool().unwrap(), u64::from(groups) * 4)
        .unwrap();
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
    rt.free(out).unwrap();
    ids.iter().map(|id| id & 0xff00).collect()
}
