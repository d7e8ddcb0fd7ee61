//! `hsa_init` to the first GPU agent on the software GPU, in a fresh
//! process, against the start of a process that does nothing (BENCHMARKS.md
//! "runtime"). The bench re-executes itself: with `INIT_PROBE=noop` the
//! child exits at once, with `INIT_PROBE=init` it initialises the runtime
//! on the sim, finds the first GPU agent and exits. The figure is the
//! difference of the medians.
//!
//! `cargo bench -p runtime --bench init` (under `cargo test` it does one
//! round of each as a smoke test).

use std::process::Command;
use std::time::{Duration, Instant};

fn probe() -> bool {
    match std::env::var("INIT_PROBE").as_deref() {
        Ok("noop") => true,
        Ok("init") => {
            let rt =
                runtime::Runtime::init_with(runtime::driver::open_sim).expect("init on the sim");
            let gpu = rt.gpu_agents().next().expect("a GPU agent");
            std::hint::black_box(gpu);
            true
        }
        _ => false,
    }
}

fn run(mode: &str) -> Duration {
    let exe = std::env::current_exe().expect("own path");
    let t = Instant::now();
    let status = Command::new(exe)
        .env("INIT_PROBE", mode)
        .status()
        .expect("spawn the probe");
    let d = t.elapsed();
    assert!(status.success(), "probe {mode} failed");
    d
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    if probe() {
        return;
    }
    let bench = std::env::args().any(|a| a == "--bench");
    let rounds = if bench { 41 } else { 1 };
    let (mut noop, mut init) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        noop.push(run("noop"));
        init.push(run("init"));
    }
    let (n, i) = (median(noop), median(init));
    let cost = i.saturating_sub(n);
    println!(
        "process start alone: {:.3} ms; with hsa_init to the first GPU agent (sim): {:.3} ms; hsa_init costs {:.3} ms (target < 5 ms), medians of {rounds}",
        n.as_secs_f64() * 1e3,
        i.as_secs_f64() * 1e3,
        cost.as_secs_f64() * 1e3
    );
}
