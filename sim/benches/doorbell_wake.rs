//! The first packet after an idle spell (`sim/src/doorbell.rs`): a client
//! that only stores to its doorbell and spins on the completion signal,
//! after the engine went to sleep, with the doorbell watch (userfaultfd
//! write protection wakes the engine on the store) vs without it (the
//! engine's bounded polling backoff, `cp::MAX_SLEEP`). Rounds alternate
//! the two devices; the median of each is reported with the ratio.
//!
//! `cargo bench -p sim --bench doorbell_wake` measures; without `--bench`
//! (as `cargo test` runs it) it makes a short smoke pass and claims nothing.

#![allow(missing_docs)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use sim::SimBuilder;
use support::*;

struct Side {
    c: Client,
    q: Queue,
    data: Buffer,
    kernel: Buffer,
}

fn side(watch: bool) -> Side {
    let dev = SimBuilder::new().doorbell_watch(watch).build();
    dev.set_shader_core(Arc::new(FnCore(|_: &sim::Dispatch<'_>| Ok(()))));
    let c = Client::with(dev);
    let q = Queue::no_scratch(&c, false);
    let data = c.buffer(4096);
    let kernel = c.buffer(4096);
    Side { c, q, data, kernel }
}

/// Doorbell store -> completion of one no-op dispatch after `idle`.
fn first_packet(s: &Side, idle: Duration) -> Duration {
    let done = signal(&s.data, 64, 1);
    std::thread::sleep(idle);
    let t = Instant::now();
    s.q.submit(dispatch_words(s.kernel.va, s.data.va, done));
    while atomic_u64(done.handle + 8).load(Ordering::Acquire) != 0 {
        std::hint::spin_loop();
    }
    t.elapsed()
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let (rounds, idle) = if bench {
        (15, Duration::from_millis(400))
    } else {
        (2, Duration::from_millis(5))
    };
    let watched = side(true);
    let polled = side(false);
    assert!(
        !bench || watched.c.kfd.device().doorbell_watch_active(),
        "the doorbell watch is not available here (userfaultfd write protection of shared memory)"
    );
    let (mut w, mut p) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        w.push(first_packet(&watched, idle));
        p.push(first_packet(&polled, idle));
    }
    if !bench {
        println!("doorbell_wake: smoke pass ({rounds} rounds), no figures");
        return;
    }
    let (mw, mp) = (median(&mut w), median(&mut p));
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "first packet after {idle:?} idle: watch {mw:?}, polling {mp:?}: polling / watch = {:.0}x (load {})",
        mp.as_secs_f64() / mw.as_secs_f64(),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!("watch wakes: {}", watched.c.kfd.device().doorbell_wakes());
}
