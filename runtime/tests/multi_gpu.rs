//! Two GPUs (the MI250X-like board: two GCDs joined by XGMI) through the
//! public API on the sim: async copies between their VRAM, peer access
//! granted with `allow_access` (a kernel on one GPU reads and writes the
//! other's memory), and a kernel faulting on the other's memory when
//! access was not granted, as on hardware (the buffer is not in its VM).

use std::time::Duration;

use runtime::{Agent, ArgValue, CopyEngine, Geometry, MemoryPool, QueueKind, Runtime, Status};
use sim::{Board, SimBuilder};

const DEMO: &[u8] = include_bytes!("../kernels/demo.co");
const N: usize = 4096;
const GENEROUS: Duration = Duration::from_secs(120);

fn vram(rt: &Runtime, gpu: Agent) -> MemoryPool {
    rt.pools(gpu)
        .unwrap()
        .into_iter()
        .find(|p| rt.pool(*p).unwrap().kind == runtime::memory::PoolKind::Vram)
        .unwrap()
}

fn put_f32s(p: u64, v: &[f32]) {
    // SAFETY: CPU-mapped memory of at least v.len() f32s, nothing else
    // uses it now.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p as *mut f32, v.len()) };
}

fn f32s_at(p: u64, n: usize) -> Vec<f32> {
    let mut v = vec![0f32; n];
    // SAFETY: as above.
    unsafe { std::ptr::copy_nonoverlapping(p as *const f32, v.as_mut_ptr(), n) };
    v
}

#[test]
fn two_gpus_copy_share_with_access_and_fault_without() {
    let rt = Runtime::init_with(|| {
        runtime::driver::open_sim_device(SimBuilder::new().board(Board::Mi250x).build())
    })
    .unwrap();
    let gpus: Vec<Agent> = rt.gpu_agents().collect();
    assert_eq!(gpus.len(), 2, "the MI250X board has two GCDs");
    let (g0, g1) = (gpus[0], gpus[1]);
    let a0 = rt.allocate(vram(&rt, g0), (N * 4) as u64).unwrap();
    let b1 = rt.allocate(vram(&rt, g1), (N * 4) as u64).unwrap();
    let data: Vec<f32> = (0..N).map(|i| i as f32 * 0.5).collect();
    put_f32s(a0, &data);

    // Peer copy GPU0 VRAM -> GPU1 VRAM: the source's GPU copies and must
    // reach the destination.
    let done = rt.create_signal(1).unwrap();
    // SAFETY: test buffers, nothing else uses them meanwhile.
    let e = unsafe { rt.memory_async_copy(b1, g1, a0, g0, (N * 4) as u64, &[], &done) };
    assert_eq!(
        e.unwrap_err().status,
        Status::InvalidArgument,
        "GPU0 may not touch GPU1's VRAM before allow_access"
    );
    rt.allow_access(&[g0], b1).unwrap();
    // SAFETY: as above.
    let e = unsafe { rt.memory_async_copy(b1, g1, a0, g0, (N * 4) as u64, &[], &done) }.unwrap();
    // Between two GPUs ROCr uses an SDMA engine (GpuAgent::GetXgmiBlit /
    // GetPcieBlit), not the device-to-device blit kernel.
    assert_eq!(e, CopyEngine::Sdma);
    assert!(done.wait_zero(GENEROUS).unwrap());
    assert_eq!(f32s_at(b1, N), data, "the copy arrived in GPU1's VRAM");

    // A kernel on GPU1 reading GPU0's VRAM: c1 = a0 + b1, once GPU1 may
    // reach a0.
    let exe = rt.load_executable(g1, DEMO).unwrap();
    let k = exe.kernel("vector_add").unwrap().clone();
    let q1 = rt
        .create_queue(g1, 64, QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    let c1 = rt.allocate(vram(&rt, g1), (N * 4) as u64).unwrap();
    let args = [
        ArgValue::Pointer(a0),
        ArgValue::Pointer(b1),
        ArgValue::Pointer(c1),
        ArgValue::Bytes((N as u32).to_le_bytes().to_vec()),
    ];
    rt.allow_access(&[g1], a0).unwrap();
    rt.dispatch(&q1, &k, &args, &Geometry::linear(N as u32, 64), GENEROUS)
        .unwrap();
    let want: Vec<f32> = data.iter().map(|x| 2.0 * x).collect();
    assert_eq!(f32s_at(c1, N), want, "GPU1 read GPU0's memory");

    // Without access: a buffer of GPU0 that GPU1 was never given faults
    // there, and only GPU1's queues stop.
    let x0 = rt.allocate(vram(&rt, g0), (N * 4) as u64).unwrap();
    let args = [
        ArgValue::Pointer(x0),
        ArgValue::Pointer(b1),
        ArgValue::Pointer(c1),
        ArgValue::Bytes((N as u32).to_le_bytes().to_vec()),
    ];
    let err = rt
        .dispatch(&q1, &k, &args, &Geometry::linear(N as u32, 64), GENEROUS)
        .unwrap_err();
    assert_eq!(err.status, Status::MemoryFault, "{err}");
    let f = rt.last_memory_fault().expect("the fault was recorded");
    assert_eq!(f.gpu_id, rt.agent(g1).unwrap().gpu_id);
    assert_eq!(f.address, x0 & !4095);
    // GPU0 still works.
    let exe0 = rt.load_executable(g0, DEMO).unwrap();
    let k0 = exe0.kernel("vector_add").unwrap().clone();
    let q0 = rt
        .create_queue(g0, 64, QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    let c0 = rt.allocate(vram(&rt, g0), (N * 4) as u64).unwrap();
    let args = [
        ArgValue::Pointer(a0),
        ArgValue::Pointer(a0),
        ArgValue::Pointer(c0),
        ArgValue::Bytes((N as u32).to_le_bytes().to_vec()),
    ];
    rt.dispatch(&q0, &k0, &args, &Geometry::linear(N as u32, 64), GENEROUS)
        .unwrap();
    assert_eq!(f32s_at(c0, N), want);
}
