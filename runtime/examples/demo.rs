//! The project's main job: a real kernel, end to end, through the runtime
//! on the default GPU agent (the real /dev/kfd when there is one, else the
//! software GPU). Loads `vector_add` (OpenCL C built by clang-19:
//! `runtime/kernels/demo.cl`), allocates its buffers, dispatches it on an
//! AQL queue, waits for the completion signal, and checks every element on
//! the host.
//!
//! Usage: `cargo run --release -p runtime --example demo [ELEMENTS]`.

use std::process::ExitCode;
use std::time::Duration;

use runtime::{ArgValue, Geometry, QueueKind, Runtime};

const DEMO: &[u8] = include_bytes!("../kernels/demo.co");

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("demo: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<bool, Box<dyn std::error::Error>> {
    let n: u32 = match std::env::args().nth(1) {
        Some(s) => s
            .parse()
            .map_err(|_| format!("ELEMENTS: {s:?} is not a u32"))?,
        None => 1 << 20,
    };
    let rt = Runtime::init()?;
    let gpu = rt.gpu_agents().next().ok_or("no GPU agent")?;
    let agent = rt.agent(gpu)?;
    println!(
        "device:   {} ({} driver)",
        match rt.driver_kind() {
            runtime::driver::DriverKind::Kfd => "/dev/kfd",
            runtime::driver::DriverKind::Sim => "software GPU",
        },
        rt.driver_kind().name()
    );
    println!(
        "agent:    {} (node {}, {} compute units, isa {})",
        agent.name,
        agent.node.id,
        agent.node.properties.cu_count(),
        agent.isa_name().unwrap_or_default()
    );
    let exe = rt.load_executable(gpu, DEMO)?;
    let k = exe.kernel("vector_add")?.clone();
    println!(
        "kernel:   {} (kernel object {:#x}, {} kernarg bytes)",
        k.name, k.kernel_object, k.kernarg_segment_size
    );
    let pool = rt.kernarg_pool()?;
    let bytes = u64::from(n) * 4;
    let (a, b, c) = (
        rt.allocate(pool, bytes)?,
        rt.allocate(pool, bytes)?,
        rt.allocate(pool, bytes)?,
    );
    let host_a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let host_b: Vec<f32> = (0..n).map(|i| (n - i) as f32 * 0.25).collect();
    // SAFETY: a fresh CPU-mapped allocation of n f32s; no kernel runs yet.
    unsafe { rt.copy(a, host_a.as_ptr() as u64, bytes)? };
    // SAFETY: as above.
    unsafe { rt.copy(b, host_b.as_ptr() as u64, bytes)? };
    let q = rt.create_queue(gpu, 256, QueueKind::Single, None, 0)?;
    let wg = 256u16;
    let grid = n.div_ceil(u32::from(wg)) * u32::from(wg);
    let args = [
        ArgValue::Pointer(a),
        ArgValue::Pointer(b),
        ArgValue::Pointer(c),
        ArgValue::Bytes(n.to_le_bytes().to_vec()),
    ];
    let done = rt.dispatch(
        &q,
        &k,
        &args,
        &Geometry::linear(grid, wg),
        Duration::from_secs(600),
    )?;
    println!(
        "dispatch: grid {grid} work-items, workgroup {wg}, packet {} on queue {}, {:.3} ms from doorbell to completion signal",
        done.packet_id,
        q.id(),
        done.elapsed.as_secs_f64() * 1e3
    );
    let mut out = vec![0f32; n as usize];
    // SAFETY: `c` holds n f32s; the kernel has completed.
    unsafe { rt.copy(out.as_mut_ptr() as u64, c, bytes)? };
    let wrong = (0..n as usize)
        .filter(|&i| out[i] != host_a[i] + host_b[i])
        .count();
    println!(
        "check:    {} of {n} elements equal a[i] + b[i] computed on the host{}",
        n as usize - wrong,
        if wrong == 0 { "" } else { "  <-- MISMATCH" }
    );
    for p in [a, b, c] {
        rt.free(p)?;
    }
    Ok(wrong == 0)
}
