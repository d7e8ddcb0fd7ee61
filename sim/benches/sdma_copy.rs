//! COPY_LINEAR throughput of the SDMA engine against `memcpy`.
//!
//! Both move the same 256 MiB between two buffers that were touched before
//! timing (no page faults measured):
//! - **SDMA**: ROCr's packet stream for one `hsa_amd_memory_async_copy` on
//!   gfx9 (64 COPY_LINEAR packets of 4 MiB, then the ATOMIC that decrements
//!   the completion signal) written to a ring and executed by
//!   `SdmaEngine::run` over `FlatMemory`, whose bulk copy is one `memmove`
//!   per packet; ring writes, decoding, range checks included.
//! - **memcpy**: `<[u8]>::copy_from_slice` of two `Vec<u8>`s.
//!
//! Rounds alternate the two so that load changes hit both alike; the best
//! and the median round of each are reported, with the ratio of
//! throughputs (SDMA / memcpy; the runtime's target for async copies is at
//! least 0.5).
//!
//! `cargo bench -p sim --bench sdma_copy` measures; without `--bench` (as
//! `cargo test` runs it) it makes a short smoke pass on 8 MiB and claims
//! nothing.

use std::hint::black_box;
use std::time::{Duration, Instant};

use sim::sdma::engine::{RunState, SdmaEngine, SdmaHooks, SdmaRing};
use sim::sdma::mem::{FlatMemory, SdmaMemory};
use sim::sdma::packet::{Atomic, CopyLinear, Packet};

const RING: u64 = 0x1000_0000;
const RING_SIZE: u64 = 64 * 1024;
const SIGNAL: u64 = 0x1800_0000;
const SRC: u64 = 0x1_0000_0000;
const DST: u64 = 0x2_0000_0000;
/// One COPY_LINEAR's largest count on SDMA v4 (22-bit `count + 1`).
const CHUNK: u64 = 1 << 22;

struct Hooks;

impl SdmaHooks for Hooks {
    fn gpu_clock(&mut self) -> u64 {
        0
    }

    fn trap(&mut self, _: u32) {}
}

fn sdma_copy(mem: &FlatMemory, engine: &mut SdmaEngine, bytes: u64) -> Duration {
    mem.store_u64(SIGNAL, 1).unwrap();
    let start = Instant::now();
    let mut wptr = engine.rptr();
    let mut push = |p: Packet| {
        for d in p.encode().unwrap() {
            mem.write_bytes(RING + (wptr & (RING_SIZE - 1)), &d.to_le_bytes())
                .unwrap();
            wptr += 4;
        }
    };
    let mut done = 0;
    while done < bytes {
        let n = CHUNK.min(bytes - done);
        push(Packet::CopyLinear(CopyLinear {
            byte_count: n as u32,
            src: SRC + done,
            dst: DST + done,
        }));
        done += n;
    }
    push(Packet::Atomic(Atomic::rocr_signal_decrement(SIGNAL)));
    let p = engine.run(mem, &mut Hooks, wptr, u32::MAX).unwrap();
    let t = start.elapsed();
    assert_eq!(p.state, RunState::Idle);
    assert_eq!(mem.load_u64(SIGNAL).unwrap(), 0);
    t
}

fn memcpy(src: &[u8], dst: &mut [u8]) -> Duration {
    let start = Instant::now();
    dst.copy_from_slice(black_box(src));
    black_box(&dst);
    start.elapsed()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let measuring = std::env::args().any(|a| a == "--bench");
    let (bytes, rounds) = if measuring {
        (256u64 << 20, 9)
    } else {
        (8 << 20, 2)
    };

    let mut mem = FlatMemory::new();
    mem.map(RING, RING_SIZE, true)
        .map(SIGNAL, 4096, true)
        .map(SRC, bytes, true)
        .map(DST, bytes, true);
    let pattern: Vec<u8> = (0..bytes).map(|i| (i % 251) as u8).collect();
    mem.write_bytes(SRC, &pattern).unwrap();
    mem.write_bytes(DST, &vec![0xee; bytes as usize]).unwrap();
    let src = pattern.clone();
    let mut dst = vec![0xeeu8; bytes as usize];
    let mut engine = SdmaEngine::new(SdmaRing::new(RING, RING_SIZE).unwrap(), 0);

    let (mut t_sdma, mut t_memcpy) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        t_sdma.push(sdma_copy(&mem, &mut engine, bytes));
        t_memcpy.push(memcpy(&src, &mut dst));
    }
    let mut out = vec![0u8; bytes as usize];
    mem.read_bytes(DST, &mut out).unwrap();
    assert!(out == pattern && dst == pattern, "a copy went wrong");

    if !measuring {
        println!(
            "sdma_copy: smoke pass done (run `cargo bench -p sim --bench sdma_copy` to measure)"
        );
        return;
    }
    let gibs = |d: Duration| bytes as f64 / d.as_secs_f64() / f64::from(1u32 << 30);
    let (sb, mb) = (
        *t_sdma.iter().min().unwrap(),
        *t_memcpy.iter().min().unwrap(),
    );
    let (sm, mm) = (median(t_sdma), median(t_memcpy));
    println!(
        "COPY_LINEAR of {} MiB, {rounds} alternating rounds:",
        bytes >> 20
    );
    println!(
        "  SDMA engine (64 x 4 MiB packets)  best {:6.2} GiB/s  median {:6.2} GiB/s",
        gibs(sb),
        gibs(sm)
    );
    println!(
        "  memcpy (copy_from_slice)          best {:6.2} GiB/s  median {:6.2} GiB/s",
        gibs(mb),
        gibs(mm)
    );
    println!(
        "  ratio SDMA / memcpy               best {:6.2}x       median {:6.2}x",
        gibs(sb) / gibs(mb),
        gibs(sm) / gibs(mm)
    );
}
