//! Kernels dispatched through the runtime's public API on the software GPU.

use std::time::Duration;

use runtime::driver;
use runtime::{ArgValue, Geometry, QueueKind, Runtime};

const DEMO: &[u8] = include_bytes!("../kernels/demo.co");

fn rt() -> Runtime {
    Runtime::init_with(driver::open_sim).expect("runtime on the sim")
}

fn f32s(rt: &Runtime, v: &[f32]) -> u64 {
    let p = rt
        .allocate(rt.kernarg_pool().unwrap(), (v.len() * 4) as u64)
        .unwrap();
    // SAFETY: a fresh CPU-mapped allocation of v.len() f32s.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p as *mut f32, v.len()) };
    p
}

fn read_f32s(p: u64, n: usize) -> Vec<f32> {
    let mut out = vec![0f32; n];
    // SAFETY: an allocation of at least n f32s, the kernel has completed.
    unsafe { std::ptr::copy_nonoverlapping(p as *const f32, out.as_mut_ptr(), n) };
    out
}

#[test]
fn vector_add_on_the_default_gpu() {
    let rt = rt();
    let gpu = rt.gpu_agents().next().expect("a GPU agent");
    let exe = rt.load_executable(gpu, DEMO).unwrap();
    let k = exe.kernel("vector_add").unwrap().clone();
    let q = rt
        .create_queue(gpu, 256, QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    let n = 1000u32;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (2 * i) as f32 + 0.5).collect();
    let (pa, pb) = (f32s(&rt, &a), f32s(&rt, &b));
    let pc = f32s(&rt, &vec![0.0; n as usize]);
    let args = [
        ArgValue::Pointer(pa),
        ArgValue::Pointer(pb),
        ArgValue::Pointer(pc),
        ArgValue::Bytes(n.to_le_bytes().to_vec()),
    ];
    rt.dispatch(
        &q,
        &k,
        &args,
        &Geometry::linear(1024, 64),
        Duration::from_secs(60),
    )
    .unwrap();
    let c = read_f32s(pc, n as usize);
    for i in 0..n as usize {
        assert_eq!(c[i], a[i] + b[i], "c[{i}]");
    }
}
