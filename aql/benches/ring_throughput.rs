//! Packets per second through the AQL ring, side by side with crossbeam's
//! `ArrayQueue<[u8; 64]>` doing the same transfer, in the same run.
//!
//! `cargo bench -p aql --bench ring_throughput` prints a table with both
//! rates and their ratio for 1, 2 and 4 producers and one consumer thread.
//! Without `--bench` (as `cargo test --all-targets` runs it) it does a tiny
//! smoke pass and makes no timing claims.

use aql::doorbell::AtomicDoorbell;
use aql::queue::{AmdQueue, PacketSlot, Poll, Ring};
use aql::{AqlPacket, KernelDispatchPacket, Packet};
use crossbeam_queue::ArrayQueue;
use std::hint::black_box;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

const CAPACITY: usize = 256;

#[repr(align(64))]
struct Padded<T>(T);

/// Spin briefly, then yield: the same back-off for both queues.
struct Backoff(u32);
impl Backoff {
    fn snooze(&mut self) {
        if self.0 < 64 {
            std::hint::spin_loop();
            self.0 += 1;
        } else {
            std::thread::yield_now();
        }
    }
}

fn packet(i: u64) -> KernelDispatchPacket {
    KernelDispatchPacket::new(0x1000, i, [256, 1, 1], [64, 1, 1])
}

fn run_ring(producers: u64, per_producer: u64, fetch_add: bool) -> Duration {
    let slots: Vec<PacketSlot> = (0..CAPACITY).map(|_| PacketSlot::invalid()).collect();
    // ROCr's layout: the write and read indices on separate cache lines of
    // an amd_queue_t, the doorbell on its own line (a signal's value).
    let mut queue = AmdQueue::zeroed();
    queue.hsa_queue.size = CAPACITY as u32;
    let bell = Padded(AtomicU64::new(0));
    let ring = Ring::from_amd_queue(&queue, &slots, AtomicDoorbell(&bell.0)).unwrap();
    let total = producers * per_producer;
    let start = Instant::now();
    std::thread::scope(|s| {
        for p in 0..producers {
            let ring = &ring;
            s.spawn(move || {
                for i in 0..per_producer {
                    let mut b = Backoff(0);
                    let mut res = if fetch_add {
                        ring.reserve(1, || b.snooze()).unwrap()
                    } else {
                        loop {
                            match ring.try_reserve(1) {
                                Ok(res) => break res,
                                Err(_) => b.snooze(),
                            }
                        }
                    };
                    res.push(&packet(p << 40 | i)).unwrap();
                    res.finish();
                }
            });
        }
        let mut pp = ring.packet_processor().unwrap();
        let mut sum = 0u64;
        let mut got = 0;
        let mut b = Backoff(0);
        while got < total {
            match pp.poll() {
                Poll::Ready(f) => {
                    if let Ok(Packet::KernelDispatch(k)) = f.packet {
                        sum = sum.wrapping_add(k.kernarg_address);
                    }
                    pp.complete(f.completion).unwrap();
                    got += 1;
                    b = Backoff(0);
                }
                _ => b.snooze(),
            }
        }
        black_box(sum);
    });
    start.elapsed()
}

fn run_array_queue(producers: u64, per_producer: u64) -> Duration {
    let q: ArrayQueue<[u8; 64]> = ArrayQueue::new(CAPACITY);
    let total = producers * per_producer;
    let start = Instant::now();
    std::thread::scope(|s| {
        for p in 0..producers {
            let q = &q;
            s.spawn(move || {
                for i in 0..per_producer {
                    let mut item = packet(p << 40 | i).to_bytes();
                    let mut b = Backoff(0);
                    while let Err(back) = q.push(item) {
                        item = back;
                        b.snooze();
                    }
                }
            });
        }
        let mut sum = 0u64;
        let mut got = 0;
        let mut b = Backoff(0);
        while got < total {
            match q.pop() {
                Some(bytes) => {
                    if let Ok(Packet::KernelDispatch(k)) = Packet::decode_bytes(&bytes) {
                        sum = sum.wrapping_add(k.kernarg_address);
                    }
                    got += 1;
                    b = Backoff(0);
                }
                None => b.snooze(),
            }
        }
        black_box(sum);
    });
    start.elapsed()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let (total, rounds) = if bench { (2_000_000u64, 7) } else { (2_000, 1) };
    println!(
        "AQL ring vs crossbeam ArrayQueue<[u8; 64]>: {total} packets of 64 bytes, capacity {CAPACITY}, one consumer thread"
    );
    println!(
        "{:>9} | {:>14} | {:>14} | {:>14} | {:>15} | {:>15}",
        "producers",
        "ring CAS Mpkt/s",
        "ring f-a Mpkt/s",
        "ArrayQueue",
        "ratio CAS/AQ",
        "ratio f-a/AQ"
    );
    for producers in [1u64, 2, 4] {
        let per = total / producers;
        // Interleave the three in each round so all see the same machine state.
        let (mut cas, mut fa, mut aq) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            cas.push(run_ring(producers, per, false));
            fa.push(run_ring(producers, per, true));
            aq.push(run_array_queue(producers, per));
        }
        let n = (per * producers) as f64;
        let rate = |v: Vec<Duration>| n / median(v).as_secs_f64() / 1e6;
        let (cas, fa, aq) = (rate(cas), rate(fa), rate(aq));
        if bench {
            println!(
                "{producers:>9} | {cas:>15.2} | {fa:>15.2} | {aq:>14.2} | {:>15.2} | {:>15.2}",
                cas / aq,
                fa / aq
            );
        } else {
            println!("{producers:>9} | smoke pass done (run with `cargo bench` for figures)");
        }
    }
}
