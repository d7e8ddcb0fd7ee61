//! Virtual memory (`hsa_amd_vmem_*`) through the public API on the sim:
//! a reservation, a physical handle mapped at two places (the mappings
//! alias), access set per agent (the CPU writes, a kernel on the GPU reads
//! through the mapping), retain/release, export and import of the handle,
//! and the errors for ranges, offsets and permissions KFD cannot give.

use std::time::Duration;

use runtime::vmem::AccessPermission as P;
use runtime::{ArgValue, Geometry, MemoryPool, QueueKind, Runtime, Status, driver};

const DEMO: &[u8] = include_bytes!("../kernels/demo.co");
const MIB: u64 = 1 << 20;
const N: usize = 1024;

fn vram(rt: &Runtime) -> MemoryPool {
    let gpu = rt.gpu_agents().next().unwrap();
    rt.pools(gpu)
        .unwrap()
        .into_iter()
        .find(|p| rt.pool(*p).unwrap().kind == runtime::memory::PoolKind::Vram)
        .unwrap()
}

fn put(p: u64, v: &[f32]) {
    // SAFETY: a CPU-writable mapping of at least v.len() f32s.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p as *mut f32, v.len()) };
}

fn get(p: u64, n: usize) -> Vec<f32> {
    let mut v = vec![0f32; n];
    // SAFETY: a CPU-readable mapping of at least n f32s.
    unsafe { std::ptr::copy_nonoverlapping(p as *const f32, v.as_mut_ptr(), n) };
    v
}

#[test]
fn a_handle_mapped_twice_aliases_and_the_gpu_reads_it() {
    let rt = Runtime::init_with(driver::open_sim).unwrap();
    let gpu = rt.gpu_agents().next().unwrap();
    let cpu = rt
        .agents()
        .find(|a| !rt.agent(*a).unwrap().is_gpu())
        .unwrap();
    // A signal first: its slab stays allocated while the runtime lives.
    drop(rt.create_signal(0).unwrap());
    let allocations = rt.allocation_count();
    let r = rt.vmem_address_reserve(4 * MIB, 2 * MIB).unwrap();
    assert_eq!(r % (2 * MIB), 0, "aligned as asked");
    let h = rt.vmem_handle_create(vram(&rt), MIB).unwrap();
    assert_eq!(
        rt.vmem_handle_properties(h).unwrap(),
        (Some(vram(&rt)), MIB)
    );
    let (m1, m2) = (r + MIB, r + 2 * MIB);
    rt.vmem_map(m1, MIB, 0, h).unwrap();
    assert_eq!(
        rt.vmem_get_access(m1, cpu).unwrap(),
        P::None,
        "no access after map"
    );
    assert_eq!(rt.vmem_get_access(m1, gpu).unwrap(), P::None);
    rt.vmem_set_access(m1, MIB, &[(cpu, P::ReadWrite), (gpu, P::ReadWrite)])
        .unwrap();
    assert_eq!(rt.vmem_get_access(m1 + 4096, gpu).unwrap(), P::ReadWrite);
    let a: Vec<f32> = (0..N).map(|i| i as f32).collect();
    put(m1, &a);
    // The second mapping sees the same pages.
    rt.vmem_map(m2, MIB, 0, h).unwrap();
    rt.vmem_set_access(m2, MIB, &[(cpu, P::ReadOnly)]).unwrap();
    assert_eq!(get(m2, N), a);
    assert_eq!(rt.vmem_get_access(m2, cpu).unwrap(), P::ReadOnly);

    // A kernel reads through the first mapping: c = a + a.
    let exe = rt.load_executable(gpu, DEMO).unwrap();
    let k = exe.kernel("vector_add").unwrap().clone();
    let q = rt
        .create_queue(gpu, 64, QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    let c = rt.allocate(vram(&rt), (N * 4) as u64).unwrap();
    rt.dispatch(
        &q,
        &k,
        &[
            ArgValue::Pointer(m1),
            ArgValue::Pointer(m1),
            ArgValue::Pointer(c),
            ArgValue::Bytes((N as u32).to_le_bytes().to_vec()),
        ],
        &Geometry::linear(N as u32, 64),
        Duration::from_secs(120),
    )
    .unwrap();
    assert_eq!(get(c, N), a.iter().map(|x| 2.0 * x).collect::<Vec<_>>());

    // Retain gives the mapped handle back, with a reference of its own.
    assert_eq!(rt.vmem_retain_alloc_handle(m2 + 123).unwrap(), h);
    rt.vmem_handle_release(h).unwrap();

    // Export, import, map the import: the same bytes once more.
    let fd = rt.vmem_export_shareable_handle(h).unwrap();
    let h2 = rt
        .vmem_import_shareable_handle(std::os::fd::AsFd::as_fd(&fd))
        .unwrap();
    drop(fd);
    assert_eq!(rt.vmem_handle_properties(h2).unwrap(), (None, MIB));
    let m3 = r + 3 * MIB;
    rt.vmem_map(m3, MIB, 0, h2).unwrap();
    rt.vmem_set_access(m3, MIB, &[(cpu, P::ReadWrite)]).unwrap();
    put(m3, &[42.0]);
    assert_eq!(get(m1, 1), vec![42.0], "the import aliases the handle");

    // Errors.
    let e = |r: runtime::Result<()>| r.unwrap_err().status;
    assert_eq!(
        e(rt.vmem_map(m1, MIB, 0, h)),
        Status::InvalidArgument,
        "overlap"
    );
    assert_eq!(
        e(rt.vmem_map(r, MIB, 4096, h)),
        Status::InvalidArgument,
        "offset"
    );
    assert_eq!(
        e(rt.vmem_map(r, 2 * MIB, 0, h)),
        Status::InvalidArgument,
        "size"
    );
    assert_eq!(
        e(rt.vmem_map(r + 4 * MIB, MIB, 0, h)),
        Status::InvalidArgument,
        "outside"
    );
    assert_eq!(
        e(rt.vmem_map(r + 1, MIB, 0, h)),
        Status::InvalidArgument,
        "unaligned"
    );
    assert_eq!(
        e(rt.vmem_set_access(m1, MIB, &[(gpu, P::ReadOnly)])),
        Status::InvalidArgument,
        "KFD maps read-write only"
    );
    assert_eq!(
        e(rt.vmem_set_access(m1, MIB, &[(cpu, P::WriteOnly)])),
        Status::InvalidArgument
    );
    assert_eq!(
        e(rt.vmem_address_free(r, 4 * MIB)),
        Status::ResourceFree,
        "still mapped"
    );
    assert_eq!(
        e(rt.vmem_address_free(r, MIB)),
        Status::InvalidArgument,
        "wrong size"
    );

    // Release while mapped: the memory stays until the last unmap.
    rt.vmem_handle_release(h).unwrap();
    assert_eq!(
        e(rt.vmem_handle_release(h)),
        Status::InvalidArgument,
        "twice"
    );
    assert_eq!(get(m2, 1), vec![42.0]);
    rt.vmem_unmap(m1, MIB).unwrap();
    rt.vmem_unmap(m2, MIB).unwrap();
    assert_eq!(
        e(rt.vmem_unmap(m2, MIB)),
        Status::InvalidArgument,
        "not mapped"
    );
    rt.vmem_unmap(m3, MIB).unwrap();
    rt.vmem_handle_release(h2).unwrap();
    rt.vmem_address_free(r, 4 * MIB).unwrap();
    rt.free(c).unwrap();
    q.destroy().unwrap();
    drop(exe);
    rt.trim_scratch(gpu).unwrap();
    assert_eq!(rt.allocation_count(), allocations, "everything given back");
}
