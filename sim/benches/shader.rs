//! The shader core's figures (issue 10), each side by side with a named
//! alternative in the same run, as ratios:
//!
//! - (a) vector add and saxpy over 16M f32 elements: interpreted
//!   elements/s (one worker thread) vs a native Rust loop over the same
//!   buffers (one thread);
//! - (b) a compute-bound kernel, 256 dependent FMAs per work-item, vs the
//!   native loop (`f32::mul_add`, the host's FMA instruction when it has
//!   one), which is one chain at a time and so bound by the FMA latency;
//!   (b') the same against a native loop that runs 64 elements side by
//!   side (vectorised with AVX2), the stronger alternative;
//! - (c) the compute-bound kernel on 2 worker threads vs 1; beside it,
//!   (c') the native vectorised loop on 2 threads vs 1 right after each
//!   pair, each thread on its own CPU: what the machine itself gives two
//!   threads at that moment.
//!
//! (a) and (b) run both sides on one CPU: the bench pins its thread, and
//! so the threads of the device it then makes, to one CPU
//! (the VM's vCPUs need not be equally fast at a given moment, and a
//! thread that moves pays for it). (c)'s devices are made before the pin
//! and use every CPU.
//!
//! The kernels are OpenCL C built by clang-19 (sim/tests/kernels/src/bench.cl,
//! sim/tests/kernels/build.sh). The client waits for each dispatch as an
//! HSA client's blocking wait on an interrupt signal does: the completion
//! signal names a KFD event, which the CP raises, and the client sleeps in
//! `AMDKFD_IOC_WAIT_EVENTS` (the interpreted side's threads are the sim's
//! workers alone; a client that polled every 200 µs took a tenth of two
//! busy cores). Rounds alternate the two sides; the median
//! round of each is reported, and beside the ratio of the two medians the
//! median of the rounds' own ratios (the sides of a round run back to back:
//! a slow spell of the machine that spans both cancels), with the load
//! average before and after (the machine may be shared). Every interpreted result is checked against the
//! native one. `cargo bench -p sim --bench shader` measures; without
//! `--bench` (as `cargo test` runs it) it makes a short smoke pass over a
//! small grid and claims nothing.

#![allow(unsafe_code, missing_docs)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use sim::SimBuilder;
use support::*;

const BENCH_CO: &str = "tests/kernels/bench.co";

/// Back-to-back pairs of (c) runs (1 worker, then 2) a round.
const PAIRS: usize = 3;

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The median over rounds of each round's `sim / native` time: the two
/// sides of a round run back to back, so a slow spell of the machine that
/// spans both cancels (as the pairs of (c) do).
fn paired(sim: &[Duration], native: &[Duration]) -> f64 {
    let mut r: Vec<f64> = sim
        .iter()
        .zip(native)
        .map(|(s, n)| s.as_secs_f64() / n.as_secs_f64())
        .collect();
    r.sort_by(f64::total_cmp);
    r[r.len() / 2]
}

/// Pins the calling thread, and the threads it or they create from now
/// on (a device's CP thread, its dispatches' workers), to the first CPU
/// it may run on: the CPU it returns. The single-thread figures then run
/// both sides on one core (the VM's two vCPUs need not be equally fast at
/// a given moment); `None` if the host refuses.
fn pin_to_one_cpu() -> Option<usize> {
    use rustix::thread::{CpuSet, sched_getaffinity, sched_setaffinity};
    let allowed = sched_getaffinity(None).ok()?;
    let cpu = (0..CpuSet::MAX_CPU).find(|&c| allowed.is_set(c))?;
    let mut set = CpuSet::new();
    set.set(cpu);
    sched_setaffinity(None, &set).ok()?;
    Some(cpu)
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// Deterministic inputs in [-1, 1).
fn inputs(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s >> 8) as f32 / (1 << 23) as f32 - 1.0
        })
        .collect()
}

/// One device with `workers` worker threads, its queue and the kernels.
struct Bench {
    c: Client,
    q: Queue,
    co: CodeObject,
    /// The event the dispatches' completion signals raise.
    ev: CompletionEvent,
}

impl Bench {
    fn new(workers: usize) -> Self {
        let c = Client::with(SimBuilder::new().workers(workers).build());
        let q = Queue::new(&c, 0);
        let co = c.load(BENCH_CO);
        let ev = CompletionEvent::new(&c);
        Self { c, q, co, ev }
    }

    /// Runs `kernel` over `n` work-items (work-groups of 256); its time.
    fn run(&self, kernel: &str, args: &[Arg], n: usize) -> Duration {
        let k = &self.co.kernels[kernel];
        let grid = (n as u32).next_multiple_of(256);
        let t = Instant::now();
        let out = dispatch_on_event(
            &self.c,
            &self.q,
            k,
            args,
            Geometry::linear(grid, 256),
            &self.ev,
        );
        let dt = t.elapsed();
        assert!(matches!(out, Outcome::Done), "{kernel}: {out:?}");
        dt
    }
}

/// A buffer holding `v`, in the device's memory (the native loops run over
/// host vectors of the same values).
fn buffer_of(c: &Client, v: &[f32]) -> Buffer {
    let b = c.buffer(v.len() * 4);
    b.write_f32s(0, v);
    b
}

/// Whether the buffer holds exactly `want` (bit for bit).
fn holds(b: &Buffer, want: &[f32]) -> bool {
    b.read_u32s(0, want.len())
        .iter()
        .zip(want)
        .all(|(g, w)| *g == w.to_bits())
}

#[inline(never)]
fn native_vadd(a: &[f32], b: &[f32], c: &mut [f32]) {
    for ((c, a), b) in c.iter_mut().zip(a).zip(b) {
        *c = a + b;
    }
}

#[inline(always)]
fn saxpy_loop(alpha: f32, x: &[f32], y: &mut [f32]) {
    for (y, x) in y.iter_mut().zip(x) {
        *y = alpha.mul_add(*x, *y);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
unsafe fn saxpy_fma(alpha: f32, x: &[f32], y: &mut [f32]) {
    saxpy_loop(alpha, x, y)
}

/// The host's FMA instruction when it has one (else `fmaf` in software).
#[inline(never)]
fn native_saxpy(alpha: f32, x: &[f32], y: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has FMA (checked just now).
        return unsafe { saxpy_fma(alpha, x, y) };
    }
    saxpy_loop(alpha, x, y)
}

#[inline(always)]
fn fma256_loop(x: &mut [f32], a: f32, b: f32) {
    for v in x.iter_mut() {
        let mut t = *v;
        for _ in 0..256 {
            t = t.mul_add(a, b);
        }
        *v = t;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
unsafe fn fma256_fma(x: &mut [f32], a: f32, b: f32) {
    fma256_loop(x, a, b)
}

#[inline(never)]
fn native_fma256(x: &mut [f32], a: f32, b: f32) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has FMA (checked just now).
        return unsafe { fma256_fma(x, a, b) };
    }
    fma256_loop(x, a, b)
}

/// The same work 64 elements at a time, so that the 64 chains run side by
/// side (what the compiler vectorises; the interpreter runs a wave's 64
/// lanes the same way).
#[inline(always)]
fn fma256_wide_loop(x: &mut [f32], a: f32, b: f32) {
    for c in x.chunks_mut(64) {
        let mut t = [0f32; 64];
        t[..c.len()].copy_from_slice(c);
        for _ in 0..256 {
            for v in t.iter_mut() {
                *v = v.mul_add(a, b);
            }
        }
        let n = c.len();
        c.copy_from_slice(&t[..n]);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn fma256_wide_fma(x: &mut [f32], a: f32, b: f32) {
    fma256_wide_loop(x, a, b)
}

#[inline(never)]
fn native_fma256_wide(x: &mut [f32], a: f32, b: f32) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 and FMA (checked just now).
        return unsafe { fma256_wide_fma(x, a, b) };
    }
    fma256_wide_loop(x, a, b)
}

/// The machine's own scaling, printed beside (c): the native vectorised
/// loop over `x` (16 passes) on 2 threads, a half each, each pinned to
/// its own CPU of `cpus` (a new thread starts on its creator's CPU and,
/// on this VM, stays there for tens of milliseconds), vs 1 thread on the
/// first. Each side's time includes starting its threads.
fn native_scaling(x: &mut [f32], a: f32, b: f32, cpus: Option<&rustix::thread::CpuSet>) -> f64 {
    use rustix::thread::{CpuSet, sched_setaffinity};
    let ids: Vec<usize> = cpus.map_or(Vec::new(), |set| {
        (0..CpuSet::MAX_CPU).filter(|&c| set.is_set(c)).collect()
    });
    let on = |k: usize| {
        if let Some(&cpu) = ids.get(k % ids.len().max(1)) {
            let mut set = CpuSet::new();
            set.set(cpu);
            let _ = sched_setaffinity(None, &set);
        }
    };
    let passes = |x: &mut [f32]| {
        for _ in 0..16 {
            native_fma256_wide(x, a, b);
        }
    };
    let one = time(|| {
        std::thread::scope(|s| {
            s.spawn(|| {
                on(0);
                passes(x)
            });
        })
    });
    let (l, r) = x.split_at_mut(x.len() / 2);
    let two = time(|| {
        std::thread::scope(|s| {
            s.spawn(|| {
                on(0);
                passes(l)
            });
            s.spawn(|| {
                on(1);
                passes(r)
            });
        })
    });
    one.as_secs_f64() / two.as_secs_f64()
}

fn time(f: impl FnOnce()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

fn rate(n: usize, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}

fn main() {
    let measure = std::env::args().any(|a| a == "--bench");
    let (rounds, mut n, mut n_fma) = if measure {
        (5, 16 << 20, 1 << 20)
    } else {
        (1, 4096 + 17, 1024 + 3)
    };
    // For a profile (valgrind --tool=callgrind) of a smoke pass.
    if let Some(e) = std::env::var("SHADER_BENCH_ELEMENTS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        (n, n_fma) = (e, e / 16);
    }
    // `SHADER_BENCH_ONLY=a` runs (a) alone (for a profile of the
    // streaming kernels).
    // `SHADER_BENCH_ONLY=c` runs (b) and (c) alone (the scaling).
    let only = std::env::var("SHADER_BENCH_ONLY").unwrap_or_default();
    let (only_a, only_c) = (only == "a", only == "c");
    // `SHADER_BENCH_ROUNDS=N`: N rounds instead of 5 (a median over more
    // rounds on a noisy machine).
    let rounds = std::env::var("SHADER_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&r| r > 0 && measure)
        .unwrap_or(rounds);
    let load_before = loadavg();
    // (c) runs on devices made before the pin: their threads may use
    // every CPU. The single-thread figures' device is made after it.
    let one_c = Bench::new(1);
    let two = Bench::new(2);
    let all_cpus = rustix::thread::sched_getaffinity(None).ok();
    let pinned = pin_to_one_cpu();
    let one = Bench::new(1);
    let a = inputs(n, 1);
    let b = inputs(n, 2);
    let (ba, bb, bc) = (
        buffer_of(&one.c, &a),
        buffer_of(&one.c, &b),
        buffer_of(&one.c, &vec![0.0; n]),
    );
    let mut want = vec![0.0f32; n];
    let alpha = 1.25f32;
    let (fa, fb) = (0.999f32, 0.001f32);
    let bx = buffer_of(&one.c, &a[..n_fma]);
    let bx1 = buffer_of(&one_c.c, &a[..n_fma]);
    let bx2 = buffer_of(&two.c, &a[..n_fma]);
    let (mut vadd, mut vadd_n) = (vec![], vec![]);
    let (mut saxpy, mut saxpy_n) = (vec![], vec![]);
    let (mut fma, mut fma_n, mut fma_w, mut fma2) = (vec![], vec![], vec![], vec![]);
    let mut fma_b = vec![];
    // (c): each back-to-back pair's 1-worker / 2-worker time.
    let mut pairs: Vec<f64> = vec![];
    // (c'): the native loop's 2-thread / 1-thread scaling after each pair.
    let mut native_pairs: Vec<f64> = vec![];
    let mut scratch = a[..n_fma].to_vec();
    for _ in 0..rounds {
        if !only_c {
            // (a) vector add.
            vadd_n.push(time(|| native_vadd(&a, &b, &mut want)));
            vadd.push(one.run(
                "bench_vadd",
                &[
                    Arg::Ptr(ba.va),
                    Arg::Ptr(bb.va),
                    Arg::Ptr(bc.va),
                    Arg::u32(n as u32),
                ],
                n,
            ));
            assert!(holds(&bc, &want), "bench_vadd result");
            // (a) saxpy, y = b each round.
            bc.write_f32s(0, &b);
            want.copy_from_slice(&b);
            saxpy_n.push(time(|| native_saxpy(alpha, &a, &mut want)));
            saxpy.push(one.run(
                "bench_saxpy",
                &[
                    Arg::f32(alpha),
                    Arg::Ptr(ba.va),
                    Arg::Ptr(bc.va),
                    Arg::u32(n as u32),
                ],
                n,
            ));
            assert!(holds(&bc, &want), "bench_saxpy result");
        }
        if only_a {
            continue;
        }
        // (b) 256 dependent FMAs, (c) on 1 and 2 workers.
        let want = &mut want[..n_fma];
        want.copy_from_slice(&a[..n_fma]);
        fma_n.push(time(|| native_fma256(want, fa, fb)));
        let mut wide = a[..n_fma].to_vec();
        fma_w.push(time(|| native_fma256_wide(&mut wide, fa, fb)));
        assert!(wide == *want, "native loops agree");
        // (b): one worker on the native loops' core.
        let run_fma = |bench: &Bench, buf: &Buffer| {
            buf.write_f32s(0, &a[..n_fma]);
            let t = bench.run(
                "bench_fma256",
                &[
                    Arg::Ptr(buf.va),
                    Arg::f32(fa),
                    Arg::f32(fb),
                    Arg::u32(n_fma as u32),
                ],
                n_fma,
            );
            assert!(holds(buf, want), "bench_fma256 result");
            t
        };
        fma_b.push(run_fma(&one, &bx));
        // (c): PAIRS back-to-back pairs of runs on 1 and 2 workers a
        // round (each pair's ratio is taken in the same few hundred
        // milliseconds of the machine's load).
        for _ in 0..PAIRS {
            let pair = [run_fma(&one_c, &bx1), run_fma(&two, &bx2)];
            fma.push(pair[0]);
            fma2.push(pair[1]);
            pairs.push(pair[0].as_secs_f64() / pair[1].as_secs_f64());
            native_pairs.push(native_scaling(&mut scratch, fa, fb, all_cpus.as_ref()));
        }
    }
    if !measure {
        println!("shader smoke pass done (run with --bench to measure)");
        return;
    }
    let load_after = loadavg();
    println!(
        "median of {rounds} rounds; load average before {load_before}, after {load_after} \
         (the machine may be shared: a load above the core count slows the sim's side)"
    );
    match pinned {
        Some(cpu) => {
            println!("(a) and (b): both sides on CPU {cpu}; (c): on every CPU the process may use")
        }
        None => println!("(a) and (b): not pinned (the host refused); the OS places the threads"),
    }
    // The spread of the interpreted side's rounds (the machine is a VM:
    // rounds of one run differ by tens of percent).
    let spread = |v: &[Duration]| {
        let ms: Vec<String> = v
            .iter()
            .map(|d| format!("{:.0}", d.as_secs_f64() * 1e3))
            .collect();
        println!("  interpreted rounds, sorted (ms): {}", ms.join(" "));
    };
    // A figure's line: the ratio of the two sides' medians, and the
    // median of the rounds' own ratios.
    let row = |name: &str, n: usize, sim: Duration, native: Duration, own: f64| {
        let (s, x) = (rate(n, sim), rate(n, native));
        println!(
            "{name}: interpreted {:.1} M elem/s ({:.1} ms), native {:.1} M elem/s ({:.1} ms), \
             ratio 1/{:.1} (the rounds' own ratios: median 1/{own:.1})",
            s / 1e6,
            sim.as_secs_f64() * 1e3,
            x / 1e6,
            native.as_secs_f64() * 1e3,
            x / s
        );
    };
    if !only_c {
        let own = paired(&vadd, &vadd_n);
        row(
            "(a) vector add, 16M",
            n,
            median(&mut vadd),
            median(&mut vadd_n),
            own,
        );
        spread(&vadd);
        let own = paired(&saxpy, &saxpy_n);
        row(
            "(a) saxpy, 16M",
            n,
            median(&mut saxpy),
            median(&mut saxpy_n),
            own,
        );
        spread(&saxpy);
    }
    if only_a {
        return;
    }
    let (own_b, own_w) = (paired(&fma_b, &fma_n), paired(&fma_b, &fma_w));
    let fb1 = median(&mut fma_b);
    row(
        "(b) 256 dependent FMAs, 1M",
        n_fma,
        fb1,
        median(&mut fma_n),
        own_b,
    );
    row(
        "(b') the same vs native 64 elements side by side (vectorised)",
        n_fma,
        fb1,
        median(&mut fma_w),
        own_w,
    );
    let (f1, f2) = (median(&mut fma), median(&mut fma2));
    pairs.sort_by(f64::total_cmp);
    println!(
        "(c) 256 dependent FMAs, 1M, 2 workers vs 1: {:.2}x (median of {} back-to-back pairs' \
         ratios; medians {:.1} ms vs {:.1} ms, {:.2}x)",
        pairs[pairs.len() / 2],
        pairs.len(),
        f2.as_secs_f64() * 1e3,
        f1.as_secs_f64() * 1e3,
        f1.as_secs_f64() / f2.as_secs_f64()
    );
    let ratios: Vec<String> = pairs.iter().map(|r| format!("{r:.2}")).collect();
    println!("  pairs' ratios, sorted: {}", ratios.join(" "));
    native_pairs.sort_by(f64::total_cmp);
    println!(
        "(c') the machine's own: the native vectorised loop on 2 threads vs 1, after each pair: \
         {:.2}x (median of {})",
        native_pairs[native_pairs.len() / 2],
        native_pairs.len()
    );
    if only_c {
        spread(&fma);
        spread(&fma2);
    }
}
