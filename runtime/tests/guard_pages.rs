//! `HSA_SVM_GUARD_PAGES` (libhsakmt's guard pages, default 1): every pool
//! allocation is followed by that many pages of reserved address space no
//! mapping covers, so a kernel running past a buffer's end faults there
//! instead of writing the next allocation. Its own process: the fault
//! evicts the GPU's queues.

use std::time::Duration;

use runtime::flags::Flags;
use runtime::{ArgValue, Geometry, InitOptions, QueueKind, Runtime, driver};

const FAULTS: &[u8] = include_bytes!("../kernels/faults.co");

/// Whether `addr` lies in a `PROT_NONE` mapping of this process.
fn in_prot_none(addr: u64) -> bool {
    std::fs::read_to_string("/proc/self/maps")
        .unwrap()
        .lines()
        .any(|l| {
            let mut f = l.split_whitespace();
            let (Some(range), Some(perms)) = (f.next(), f.next()) else {
                return false;
            };
            let Some((a, b)) = range.split_once('-') else {
                return false;
            };
            let (a, b) = (
                u64::from_str_radix(a, 16).unwrap(),
                u64::from_str_radix(b, 16).unwrap(),
            );
            perms.starts_with("---") && a <= addr && addr < b
        })
}

fn with_guard(pages: Option<&str>) -> Runtime {
    let flags = Flags::from_lookup(|n| {
        (n == "HSA_SVM_GUARD_PAGES")
            .then(|| pages.map(str::to_owned))
            .flatten()
    })
    .unwrap();
    Runtime::init_with_flags(driver::open_sim, InitOptions::default(), flags).unwrap()
}

#[test]
fn an_access_past_an_allocation_hits_its_guard_pages() {
    // Unset: one guard page, as libhsakmt.
    let rt = with_guard(None);
    let gpu = rt.gpu_agents().next().unwrap();
    let pool = rt.kernarg_pool().unwrap();
    let p = rt.allocate(pool, 4096).unwrap();
    let end = p + 4096;
    assert!(in_prot_none(end), "the page after the buffer is a guard");
    assert!(rt.pointer_info(end).is_none(), "no allocation there");
    let exe = rt.load_executable(gpu, FAULTS).unwrap();
    let k = exe.kernel("store_at").unwrap().clone();
    let q = rt
        .create_queue(gpu, 64, QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    let g = Geometry::linear(1, 1);
    // Inside the buffer: completes.
    rt.dispatch(
        &q,
        &k,
        &[ArgValue::Bytes((end - 4).to_le_bytes().to_vec())],
        &g,
        Duration::from_secs(60),
    )
    .unwrap();
    // One dword past its end: the guard page faults.
    let e = rt
        .dispatch(
            &q,
            &k,
            &[ArgValue::Bytes(end.to_le_bytes().to_vec())],
            &g,
            Duration::from_secs(60),
        )
        .unwrap_err();
    assert!(e.message.contains("stopped"), "a memory fault: {e:?}");
    drop(q);
    rt.free(p).unwrap();
    drop((exe, rt));

    // Three guard pages; 0: none of ours.
    let rt = with_guard(Some("3"));
    let pool = rt.kernarg_pool().unwrap();
    let p = rt.allocate(pool, 8192).unwrap();
    for page in 0..3 {
        assert!(in_prot_none(p + 8192 + page * 4096), "guard page {page}");
    }
    rt.free(p).unwrap();
    drop(rt);
    let rt = with_guard(Some("0"));
    assert_eq!(rt.flags().svm_guard_pages, Some(0));
    let pool = rt.kernarg_pool().unwrap();
    let p = rt.allocate(pool, 4096).unwrap();
    rt.free(p).unwrap();
}
