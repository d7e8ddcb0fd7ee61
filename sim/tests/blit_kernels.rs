//! The runtime's blit kernels (`runtime/blit/blit.cl`, committed code
//! objects) run on the sim's shader core, dispatched exactly as the
//! runtime's planner (`runtime/src/blit.rs`, compiled in here) says: copies
//! of every source/destination alignment pair modulo 16 and many sizes, and
//! fills, compared with a host copy, and the bytes around the destination
//! (guards) checked untouched.
//!
//! Copies whose ranges overlap are outside the kernels' contract (like
//! `memcpy`; the planner refuses them), so none is tested here.

mod support;

// The planner is pure code over `core`; compiling it into this test checks
// the runtime's plans (kernel choice, kernarg bytes, grid) against the real
// kernels without the sim depending on the runtime crate.
#[allow(dead_code)]
#[path = "../../runtime/src/blit.rs"]
mod blit;

use blit::{BlitPlan, plan_copy, plan_fill};
use sim::{Board, SimBuilder};
use support::*;

const CO_GFX90A: &str = "../runtime/blit/blit-gfx90a.co";
const CO_GFX942: &str = "../runtime/blit/blit-gfx942.co";

/// Bytes checked on each side of a destination.
const GUARD: usize = 64;
/// Where the source and destination windows start in their buffers
/// (16-byte aligned: the alignment under test is added to it).
const BASE: usize = 256;

/// Deterministic bytes (xorshift64).
fn bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 32) as u8
        })
        .collect()
}

/// A device with a queue, the blit code object, and a source and a
/// destination buffer.
struct Rig {
    c: Client,
    q: Queue,
    co: CodeObject,
    mem: DispatchMemory,
    src: Buffer,
    dst: Buffer,
}

impl Rig {
    fn new(c: Client, co: &str, capacity: usize) -> Self {
        let q = Queue::new(&c, 0);
        let co = c.load(co);
        let src = c.buffer(capacity + 2 * BASE);
        let dst = c.buffer(capacity + 2 * BASE);
        let mem = DispatchMemory::new(&c);
        Self {
            c,
            q,
            co,
            mem,
            src,
            dst,
        }
    }

    /// Runs `plan` and waits for it.
    fn run(&self, plan: &BlitPlan, what: &str) {
        let k = &self.co.kernels[plan.kernel.name()];
        assert_eq!(k.kernarg_size as usize, blit::KERNARG_SIZE);
        // The explicit arguments, cut from the planned segment by the
        // descriptor (the client checks each size against the metadata).
        let args: Vec<Arg> = plan
            .kernel
            .args()
            .iter()
            .map(|a| {
                let (o, s) = (a.offset as usize, a.size as usize);
                Arg::Bytes(plan.kernarg[o..o + s].to_vec())
            })
            .collect();
        let g = Geometry::linear(plan.grid_size, plan.workgroup_size);
        let out = dispatch_in(&self.c, &self.q, k, &args, g, &self.mem);
        assert!(matches!(out, Outcome::Done), "{what}: {out:?}");
    }

    /// Copies `size` bytes from source offset `BASE + s` to destination
    /// offset `BASE + d` with at most `max_workitems` work-items and checks
    /// the destination window.
    fn check_copy(&self, d: usize, s: usize, size: usize, max_workitems: u32) {
        let what = format!("copy dst+{d} src+{s} size {size} max {max_workitems}");
        let seed = ((d as u64) << 40) ^ ((s as u64) << 32) ^ size as u64;
        let data = bytes(size, seed);
        self.src.write(BASE + s, &data);
        let start = BASE + d - GUARD;
        let mut want = bytes(size + 2 * GUARD, !seed);
        self.dst.write(start, &want);
        let plan = plan_copy(
            self.dst.va + (BASE + d) as u64,
            self.src.va + (BASE + s) as u64,
            size as u64,
            max_workitems,
        )
        .unwrap();
        let aligned = (d % 4) == (s % 4);
        assert_eq!(
            plan.kernel == blit::BlitKernel::CopyAligned,
            aligned,
            "{what}"
        );
        self.run(&plan, &what);
        want[GUARD..GUARD + size].copy_from_slice(&data);
        let got = self.dst.read(start, size + 2 * GUARD);
        if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
            let at = i as isize - GUARD as isize;
            panic!(
                "{what} ({}): byte {at} of the destination is {:#x}, want {:#x}",
                plan.kernel, got[i], want[i]
            );
        }
        assert!(
            self.src.read(BASE + s, size) == data,
            "{what}: the source changed"
        );
    }

    /// Fills `count` dwords at destination offset `BASE + 4 * d` and checks
    /// the destination window (guard dwords on both sides).
    fn check_fill(&self, d: usize, count: usize, value: u32, max_workitems: u32) {
        let what = format!("fill dst+{} count {count} max {max_workitems}", 4 * d);
        let g = GUARD / 4;
        let start = BASE + 4 * d - GUARD;
        let guard = bytes(4 * (count + 2 * g), u64::from(value) ^ count as u64);
        self.dst.write(start, &guard);
        let plan = plan_fill(
            self.dst.va + (BASE + 4 * d) as u64,
            value,
            count as u64,
            max_workitems,
        )
        .unwrap();
        self.run(&plan, &what);
        let got = self.dst.read_u32s(start, count + 2 * g);
        for (i, w) in got.iter().enumerate() {
            let want = if (g..g + count).contains(&i) {
                value
            } else {
                u32::from_le_bytes(guard[4 * i..4 * i + 4].try_into().unwrap())
            };
            assert_eq!(
                *w,
                want,
                "{what}: dword {} of the destination",
                i as isize - g as isize
            );
        }
    }
}

fn mi210() -> Client {
    Client::new(2)
}

/// Every alignment pair modulo 16 with every size 0..=100: the head, body
/// and tail phases of both copy kernels in every combination. One
/// work-group (the planner's minimum), so the grid-stride loops run as they
/// would for any grid.
#[test]
fn copies_of_every_alignment_and_small_size() {
    let rig = Rig::new(mi210(), CO_GFX90A, 4096);
    for d in 0..16 {
        for s in 0..16 {
            for size in 0..=100 {
                rig.check_copy(d, s, size, 256);
            }
        }
    }
}

/// Page-sized and larger copies: every alignment pair at sizes around a
/// page and at 64 KiB + 1, and 1 MiB + 3 at every destination alignment
/// (with a source alignment of each residue case), with grids that leave
/// many grid-stride iterations per work-item.
#[test]
fn copies_of_larger_sizes() {
    const BIG: usize = (1 << 20) + 3;
    let rig = Rig::new(mi210(), CO_GFX90A, BIG + 64);
    for d in 0..16 {
        for s in 0..16 {
            for size in [4095, 4096, 4097, 65537] {
                rig.check_copy(d, s, size, 1024);
            }
        }
    }
    // 1 MiB + 3: up to 64 iterations per work-item with one work-group
    // (misaligned kernel), 4 with 64 of them.
    for d in 0..16 {
        let max = if d % 2 == 0 { 256 } else { 1 << 16 };
        rig.check_copy(d, (d * 7 + 3) % 16, BIG, max);
        rig.check_copy(d, d, BIG, max);
    }
}

/// Random (alignment, size, grid) triples from a fixed seed.
#[test]
fn copies_of_seeded_random_shapes() {
    let rig = Rig::new(mi210(), CO_GFX90A, 20_000);
    let mut s = 0x0123_4567_89ab_cdefu64;
    let mut next = |m: u64| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % m
    };
    for _ in 0..200 {
        let d = next(16) as usize;
        let src = next(16) as usize;
        let size = next(20_000) as usize;
        let max = 256 * (1 + next(8) as u32);
        rig.check_copy(d, src, size, max);
    }
}

/// Fills of several sizes and destination alignments (dword-aligned,
/// 0..3 dwords off a 16-byte boundary), guard dwords untouched.
#[test]
fn fills_of_several_sizes() {
    let rig = Rig::new(mi210(), CO_GFX90A, 1 << 20);
    for d in 0..4 {
        for count in [0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 63, 64, 65, 1023, 1025] {
            rig.check_fill(d, count, 0xa5c3_0f1e ^ count as u32, 256);
        }
    }
    // Many grid-stride iterations, and a grid large enough for the range.
    rig.check_fill(1, (1 << 18) - 3, 0xdead_beef, 256);
    rig.check_fill(2, (1 << 18) - 5, 0x0102_0304, 1 << 16);
}

/// The gfx942 object on an MI300X: a few copies of each kernel and a fill.
#[test]
fn gfx942_copies_and_fills() {
    let dev = SimBuilder::new()
        .board(Board::Mi300x)
        .gpus(1)
        .workers(2)
        .build();
    let rig = Rig::new(Client::with(dev), CO_GFX942, 1 << 16);
    for &(d, s) in &[(0, 0), (3, 3), (1, 6), (13, 2)] {
        for size in [0, 1, 17, 100, 4099, 65536] {
            rig.check_copy(d, s, size, 1024);
        }
    }
    for d in 0..4 {
        rig.check_fill(d, 4097, 0x1234_5678, 1024);
    }
}
