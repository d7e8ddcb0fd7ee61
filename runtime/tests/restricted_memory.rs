//! `Runtime::allocate_restricted` (the C `hsa_amd_memory_pool_allocate`):
//! system memory for the CPU only until `allow_access`. Its own process:
//! the memory fault it provokes evicts every queue of the GPU, as amdkfd
//! does, which would stop other tests' dispatches.

use std::time::Duration;

#[path = "support/host_buffers.rs"]
mod host_buffers;

use host_buffers::{f32s, read_f32s, rt};
use runtime::{ArgValue, Geometry, QueueKind};

const DEMO: &[u8] = include_bytes!("../kernels/demo.co");

/// `allocate_restricted` (the C `hsa_amd_memory_pool_allocate`) maps
/// system memory for the CPU only, as ROCr's `AllocateRestrict`: a kernel
/// writing it faults until `allow_access` gives its GPU access; the memory
/// is the CPU's meanwhile.
#[test]
fn restricted_system_memory_is_the_gpus_only_after_allow_access() {
    let rt = rt();
    let gpu = rt.gpu_agents().next().expect("a GPU agent");
    let exe = rt.load_executable(gpu, DEMO).unwrap();
    let k = exe.kernel("vector_add").unwrap().clone();
    let pool = rt.kernarg_pool().unwrap();
    let n = 64u32;
    let a = f32s(&rt, &[1.0; 64]);
    let b = f32s(&rt, &[2.0; 64]);
    let c = rt.allocate_restricted(pool, 256).unwrap();
    // SAFETY: 64 f32s of a live CPU-mapped allocation.
    unsafe { std::ptr::write_bytes(c as *mut f32, 0, 64) };
    assert!(
        rt.pointer_info(c).unwrap().mapped_on.is_empty(),
        "on no GPU"
    );
    let args = [
        ArgValue::Pointer(a),
        ArgValue::Pointer(b),
        ArgValue::Pointer(c),
        ArgValue::Bytes(n.to_le_bytes().to_vec()),
    ];
    let g = Geometry::linear(64, 64);
    let q = rt
        .create_queue(gpu, 64, QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    let e = rt
        .dispatch(&q, &k, &args, &g, Duration::from_secs(60))
        .unwrap_err();
    assert!(e.message.contains("stopped"), "a memory fault: {e:?}");
    drop(q);
    rt.allow_access(&[gpu], c).unwrap();
    let q = rt
        .create_queue(gpu, 64, QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    rt.dispatch(&q, &k, &args, &g, Duration::from_secs(60))
        .unwrap();
    assert_eq!(read_f32s(c, 64), vec![3.0; 64]);
}
