//! The command processor's figures (issue 9), each side by side with a
//! named alternative in the same run:
//!
//! - (a) doorbell -> completion of a no-op dispatch (a stand-in shader core
//!   that returns at once), the client spinning on the completion signal,
//!   vs an atomic cache-line ping-pong between two threads;
//! - (b) the same with an interrupt signal, the client blocked in
//!   WAIT_EVENTS, vs a futex ping-pong between two threads;
//! - (c) CPU time of the engine threads over 1 s with one idle queue.
//!
//! Rounds alternate the two sides of (a) and (b); the median round of each
//! is reported with the ratio. `cargo bench -p sim --bench cp_roundtrip`
//! measures; without `--bench` (as `cargo test` runs it) it makes a short
//! smoke pass and claims nothing.

#![allow(unsafe_code, missing_docs)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use kfd::ioctl::raw;
use kfd::ioctl::*;
use sim::SimDevice;
use support::*;

struct Setup {
    c: Client,
    q: Queue,
    data: Buffer,
    kernel: Buffer,
}

fn setup() -> Setup {
    let dev = SimDevice::default();
    dev.set_shader_core(Arc::new(FnCore(|_: &sim::Dispatch<'_>| Ok(()))));
    let c = Client::with(dev);
    let q = Queue::with_slots(&c, false, 256);
    let data = c.buffer(4096);
    let kernel = c.buffer(4096);
    Setup { c, q, data, kernel }
}

/// Mean doorbell -> completion time over `n` dispatches, client spinning.
fn sim_spin(s: &Setup, n: u32) -> Duration {
    let done = signal(&s.data, 64, 0);
    let t = Instant::now();
    for _ in 0..n {
        atomic_u64(done.handle + 8).store(1, Ordering::Relaxed);
        s.q.submit(dispatch_words(s.kernel.va, s.data.va, done));
        while atomic_u64(done.handle + 8).load(Ordering::Acquire) != 0 {
            std::hint::spin_loop();
        }
    }
    t.elapsed() / n
}

/// Mean round trip of a value between two threads through one cache line.
fn atomic_ping_pong(n: u32) -> Duration {
    let line = Arc::new(AtomicU64::new(0));
    let other = Arc::clone(&line);
    let t = std::thread::spawn(move || {
        for i in 0..u64::from(n) {
            while other.load(Ordering::Acquire) != 2 * i + 1 {
                std::hint::spin_loop();
            }
            other.store(2 * i + 2, Ordering::Release);
        }
    });
    let start = Instant::now();
    for i in 0..u64::from(n) {
        line.store(2 * i + 1, Ordering::Release);
        while line.load(Ordering::Acquire) != 2 * i + 2 {
            std::hint::spin_loop();
        }
    }
    let d = start.elapsed() / n;
    t.join().unwrap();
    d
}

/// Mean doorbell -> WAIT_EVENTS return over `n` dispatches whose
/// completion signal carries an event mailbox.
fn sim_interrupt(s: &Setup, events: &Buffer, ev: &kfd::EventInfo, n: u32) -> Duration {
    let done = signal(&s.data, 128, 0);
    atomic_u64(done.handle + 16).store(
        events.va + 8 * u64::from(ev.event_slot_index),
        Ordering::Relaxed,
    );
    atomic_u32(done.handle + 24).store(ev.event_id, Ordering::Release);
    let mut wait = [raw::EventData::new(ev.event_id)];
    let t = Instant::now();
    for _ in 0..n {
        atomic_u64(done.handle + 8).store(1, Ordering::Relaxed);
        s.q.submit(dispatch_words(s.kernel.va, s.data.va, done));
        while atomic_u64(done.handle + 8).load(Ordering::Acquire) != 0 {
            let r = s.c.kfd.wait_events(&mut wait, false, 1000).unwrap();
            assert_eq!(r, WaitResult::Complete);
        }
    }
    t.elapsed() / n
}

fn futex_wait(word: &AtomicU32, value: u32) {
    use rustix::thread::futex;
    while word.load(Ordering::Acquire) == value {
        let _ = futex::wait(word, futex::Flags::PRIVATE, value, None);
    }
}

fn futex_wake(word: &AtomicU32) {
    use rustix::thread::futex;
    let _ = futex::wake(word, futex::Flags::PRIVATE, 1);
}

/// Mean round trip between two threads that block on futexes.
fn futex_ping_pong(n: u32) -> Duration {
    let words = Arc::new((AtomicU32::new(0), AtomicU32::new(0)));
    let w = Arc::clone(&words);
    let t = std::thread::spawn(move || {
        for i in 0..n {
            futex_wait(&w.0, i);
            w.1.store(i + 1, Ordering::Release);
            futex_wake(&w.1);
        }
    });
    let start = Instant::now();
    for i in 0..n {
        words.0.store(i + 1, Ordering::Release);
        futex_wake(&words.0);
        futex_wait(&words.1, i);
    }
    let d = start.elapsed() / n;
    t.join().unwrap();
    d
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let measure = std::env::args().any(|a| a == "--bench");
    let (rounds, n) = if measure { (7, 20_000) } else { (1, 200) };
    let s = setup();
    let events = s.c.buffer(kfd::EVENT_PAGE_SIZE);
    let ev =
        s.c.kfd
            .create_event(&kfd::EventDesc {
                event_type: EventType::Signal,
                auto_reset: true,
                node_id: 0,
                event_page_handle: Some(events.handle),
            })
            .unwrap();
    let (mut a_sim, mut a_alt, mut b_sim, mut b_alt) = (vec![], vec![], vec![], vec![]);
    for _ in 0..rounds {
        a_sim.push(sim_spin(&s, n));
        a_alt.push(atomic_ping_pong(n));
        b_sim.push(sim_interrupt(&s, &events, &ev, n / 4));
        b_alt.push(futex_ping_pong(n / 4));
    }
    // (c) Idle: the queue exists, nothing is submitted; let the CP back off
    // first (its spin window and sleeps ramp up within ~100 ms).
    std::thread::sleep(Duration::from_millis(if measure { 500 } else { 50 }));
    let window = Duration::from_millis(if measure { 1000 } else { 100 });
    let cp0 = s.c.kfd.device().cp_cpu_time(0).unwrap();
    let all0 = s.c.kfd.device().engines_cpu_time().unwrap();
    std::thread::sleep(window);
    let cp = s.c.kfd.device().cp_cpu_time(0).unwrap() - cp0;
    let all = s.c.kfd.device().engines_cpu_time().unwrap() - all0;

    let (a_s, a_a) = (median(&mut a_sim), median(&mut a_alt));
    let (b_s, b_a) = (median(&mut b_sim), median(&mut b_alt));
    if !measure {
        println!("cp_roundtrip smoke pass done (run with --bench to measure)");
        return;
    }
    println!(
        "median of {rounds} rounds, {n} round trips each ((b): {})",
        n / 4
    );
    println!(
        "(a) no-op dispatch, client spins: {:>8.2?}   atomic ping-pong: {:>8.2?}   ratio {:.2} (target <= 3)",
        a_s,
        a_a,
        a_s.as_secs_f64() / a_a.as_secs_f64()
    );
    println!(
        "(b) interrupt signal, WAIT_EVENTS: {:>8.2?}   futex ping-pong:  {:>8.2?}   ratio {:.2} (target <= 1.5)",
        b_s,
        b_a,
        b_s.as_secs_f64() / b_a.as_secs_f64()
    );
    println!(
        "(c) idle over {window:?}: CP thread {cp:?}, all engine threads (CP + SDMA) {all:?} (target < 1 ms)"
    );
}
