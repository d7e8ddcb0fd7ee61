//! The dispatch round trip through the runtime API against the sim-level
//! round trip of `sim/benches/cp_roundtrip.rs` (figure (a) of the sim's
//! issue), side by side in one run (BENCHMARKS.md "runtime"):
//!
//! - **sim level**: the sim's own test client (`sim/tests/support`, no
//!   runtime) writes a dispatch packet, rings the doorbell and spins on the
//!   completion signal, as `cp_roundtrip` (a) does;
//! - **runtime**: `Runtime::submit_dispatch` of the `empty` kernel (its
//!   kernarg segment built once by `build_kernarg`), the completion signal
//!   a default signal (`SignalKind::Default`) reset with `Signal::store`
//!   and spun on with `Signal::load`;
//! - and, for information, the same with an interrupt signal (the CP also
//!   raises its event), and `Runtime::dispatch` (which allocates the
//!   kernarg segment and a signal per call and waits with `wait_zero`).
//!
//! Both devices are the default sim with the same stand-in shader core
//! that returns at once, so the figure is the runtime's cost on top of the
//! command processor's. Rounds alternate the sides (and which goes first);
//! each timed run follows an untimed tenth that takes the command processor
//! out of its idle back-off; the median round of each is reported, with
//! the ratio (target <= 1.2). `DISPATCH_BENCH_SIDE=sim|runtime` runs one
//! side alone (for callgrind).
//!
//! `cargo bench -p runtime --bench dispatch`; under `cargo test` one short
//! round of each as a smoke test, claiming nothing.

#![allow(unsafe_code, missing_docs)]

#[path = "../../sim/tests/support/mod.rs"]
mod support;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use runtime::{Geometry, QueueKind, Runtime, SignalKind, driver};
use signal_core::{LoadOrder, StoreOrder};
use sim::SimDevice;
use support::{Buffer, Client, FnCore, Queue, atomic_u64, dispatch_words, signal};

const DEMO: &[u8] = include_bytes!("../kernels/demo.co");

fn noop_device() -> SimDevice {
    let dev = SimDevice::default();
    dev.set_shader_core(Arc::new(FnCore(|_: &sim::Dispatch<'_>| Ok(()))));
    dev
}

struct SimSide {
    _c: Client,
    q: Queue,
    data: Buffer,
    kernel: Buffer,
}

/// `cp_roundtrip`'s `sim_spin`: mean doorbell -> completion over `n`.
fn sim_spin(s: &SimSide, n: u32) -> Duration {
    let done = signal(&s.data, 64, 0);
    let mut t = Instant::now();
    // The first tenth warms the command processor up (out of its idle
    // back-off), untimed.
    for i in 0..n + n / 10 {
        if i == n / 10 {
            t = Instant::now();
        }
        atomic_u64(done.handle + 8).store(1, Ordering::Relaxed);
        s.q.submit(dispatch_words(s.kernel.va, s.data.va, done));
        while atomic_u64(done.handle + 8).load(Ordering::Acquire) != 0 {
            std::hint::spin_loop();
        }
    }
    t.elapsed() / n
}

struct RtSide {
    rt: Runtime,
    q: runtime::Queue,
    k: Arc<runtime::KernelSymbol>,
    kernarg: u64,
    group: u32,
    g: Geometry,
    _exe: runtime::Executable,
}

/// Mean submit -> completion through the runtime, spinning on a signal of
/// `kind`.
fn runtime_spin(s: &RtSide, kind: SignalKind, n: u32) -> Duration {
    let done = s.rt.create_signal_of_kind(0, kind).unwrap();
    let mut t = Instant::now();
    for i in 0..n + n / 10 {
        if i == n / 10 {
            t = Instant::now();
        }
        done.store(1, StoreOrder::Relaxed);
        s.rt.submit_dispatch(&s.q, &s.k, s.kernarg, &s.g, s.group, &done)
            .unwrap();
        while done.load(LoadOrder::Acquire) != 0 {
            std::hint::spin_loop();
        }
    }
    t.elapsed() / n
}

/// Mean `Runtime::dispatch` (allocation, signal, wait_zero) over `n`.
fn runtime_dispatch(s: &RtSide, n: u32) -> Duration {
    let t = Instant::now();
    for _ in 0..n {
        s.rt.dispatch(&s.q, &s.k, &[], &s.g, Duration::from_secs(60))
            .unwrap();
    }
    t.elapsed() / n
}

fn runtime_side() -> RtSide {
    let rt = Runtime::init_with(|| driver::open_sim_device(noop_device())).unwrap();
    let gpu = rt.gpu_agents().next().unwrap();
    let exe = rt.load_executable(gpu, DEMO).unwrap();
    let k = exe.kernel("empty").unwrap();
    let q = rt
        .create_queue(gpu, 256, QueueKind::Single, None, 0)
        .unwrap();
    let g = Geometry::linear(256, 64);
    let seg = rt.build_kernarg(&q, &k, &[], &g).unwrap();
    let kernarg = rt
        .allocate(rt.kernarg_pool().unwrap(), seg.bytes.len().max(16) as u64)
        .unwrap();
    // SAFETY: a fresh CPU-mapped allocation of at least seg.bytes.len() bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(seg.bytes.as_ptr(), kernarg as *mut u8, seg.bytes.len())
    };
    RtSide {
        q,
        k,
        kernarg,
        group: seg.group_segment_size,
        g,
        _exe: exe,
        rt,
    }
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let measure = std::env::args().any(|a| a == "--bench");
    let (rounds, n) = if measure { (31, 4_000) } else { (1, 200) };
    // DISPATCH_BENCH_SIDE=sim|runtime N: only that side, N round trips, no
    // report (for counting instructions with callgrind).
    if let Ok(side) = std::env::var("DISPATCH_BENCH_SIDE") {
        let n: u32 = std::env::var("DISPATCH_BENCH_N")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1000);
        if side == "sim" {
            let c = Client::with(noop_device());
            let s = SimSide {
                q: Queue::with_slots(&c, false, 256),
                data: c.buffer(4096),
                kernel: c.buffer(4096),
                _c: c,
            };
            std::hint::black_box(sim_spin(&s, n));
        } else {
            let s = runtime_side();
            std::hint::black_box(runtime_spin(&s, SignalKind::Default, n));
        }
        return;
    }

    let c = Client::with(noop_device());
    let sim_side = SimSide {
        q: Queue::with_slots(&c, false, 256),
        data: c.buffer(4096),
        kernel: c.buffer(4096),
        _c: c,
    };

    let rt_side = runtime_side();

    let (mut a_sim, mut a_rt, mut a_irq, mut a_full) = (vec![], vec![], vec![], vec![]);
    for round in 0..rounds {
        // Alternate which side goes first.
        if round % 2 == 0 {
            a_sim.push(sim_spin(&sim_side, n));
            a_rt.push(runtime_spin(&rt_side, SignalKind::Default, n));
        } else {
            a_rt.push(runtime_spin(&rt_side, SignalKind::Default, n));
            a_sim.push(sim_spin(&sim_side, n));
        }
        a_irq.push(runtime_spin(&rt_side, SignalKind::Interrupt, n / 4));
        a_full.push(runtime_dispatch(&rt_side, n / 4));
    }
    let (s, r) = (median(&mut a_sim), median(&mut a_rt));
    let (i, f) = (median(&mut a_irq), median(&mut a_full));
    if !measure {
        println!("dispatch smoke pass done (run with --bench to measure)");
        return;
    }
    println!(
        "median of {rounds} rounds, {n} round trips each (interrupt, dispatch: {})",
        n / 4
    );
    println!(
        "no-op dispatch, client spins: runtime {:>8.2?}   sim level {:>8.2?}   ratio {:.2} (target <= 1.2)",
        r,
        s,
        r.as_secs_f64() / s.as_secs_f64()
    );
    println!(
        "  (runtime, interrupt signal spun on: {i:>8.2?}; Runtime::dispatch with allocation and wait_zero: {f:>8.2?})"
    );
}
