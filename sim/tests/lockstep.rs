//! Work-groups in lockstep (the interpreter's `lockstep` module): every
//! kernel leaves memory exactly as it does when each wave runs alone, and
//! counts the same instructions for coverage; groups that cannot start
//! alike (scratch offsets per wave, 2D groups, a compare that differs
//! between waves) still give the same results.

#![allow(unsafe_code)]

mod support;

use std::sync::Arc;

use support::*;

const BENCH: &str = "tests/kernels/bench.co";
const BASICS: &str = "tests/kernels/basics.co";
const INTS: &str = "tests/kernels/ints.co";
const MATH: &str = "tests/kernels/math.co";

/// One kernel run: its code object, name, buffers (initial bytes, each
/// passed as a pointer argument in order, then the scalars), grid.
struct Case {
    co: &'static str,
    kernel: &'static str,
    buffers: Vec<Vec<u8>>,
    scalars: Vec<Arg>,
    geometry: Geometry,
}

fn bytes_u32(v: impl IntoIterator<Item = u32>) -> Vec<u8> {
    v.into_iter().flat_map(u32::to_le_bytes).collect()
}

fn bytes_f32(v: impl IntoIterator<Item = f32>) -> Vec<u8> {
    v.into_iter().flat_map(f32::to_le_bytes).collect()
}

/// Deterministic words.
fn words(n: usize, seed: u32) -> Vec<u32> {
    let mut r = xorshift(seed);
    (0..n).map(|_| r()).collect()
}

fn floats(n: usize, seed: u32) -> Vec<f32> {
    words(n, seed)
        .into_iter()
        .map(|w| (w >> 8) as f32 / (1 << 20) as f32 - 8.0)
        .collect()
}

fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    // The streaming kernels, over whole groups, a cut inside a group's
    // last wave and a cut between two of a group's waves (the compare
    // `i < n` then differs between waves: the group splits there).
    for n in [4096u32, 1000, 4096 + 128] {
        let grid = n.next_multiple_of(256);
        let len = grid as usize;
        v.push(Case {
            co: BENCH,
            kernel: "bench_vadd",
            buffers: vec![
                bytes_f32(floats(len, 1)),
                bytes_f32(floats(len, 2)),
                vec![0; len * 4],
            ],
            scalars: vec![Arg::u32(n)],
            geometry: Geometry::linear(grid, 256),
        });
        v.push(Case {
            co: BENCH,
            kernel: "bench_saxpy",
            buffers: vec![bytes_f32(floats(len, 3)), bytes_f32(floats(len, 4))],
            scalars: vec![Arg::u32(n)],
            geometry: Geometry::linear(grid, 256),
        });
    }
    v.push(Case {
        co: BENCH,
        kernel: "bench_fma256",
        buffers: vec![bytes_f32(floats(2048, 5))],
        scalars: vec![Arg::f32(0.999), Arg::f32(0.001), Arg::u32(2000)],
        geometry: Geometry::linear(2048, 128),
    });
    // Element-wise conformance kernels (a, b, c, out): long lane
    // arithmetic between the loads and the store (32-bit division, 64-bit
    // rotates with two-dword loads and stores, f32 division, f64 fma).
    let n = 1024usize;
    let k3 = |co, kernel, bytes: usize, seed: u32, nonzero: bool| {
        let word = |k: u32| -> Vec<u8> {
            let w: Vec<u32> = words(n * bytes / 4, seed + k)
                .into_iter()
                .map(|w| if nonzero { w | 1 } else { w })
                .collect();
            bytes_u32(w)
        };
        Case {
            co,
            kernel,
            buffers: vec![word(0), word(1), word(2), vec![0; n * bytes]],
            scalars: vec![],
            geometry: Geometry::linear(n as u32, 256),
        }
    };
    v.push(k3(INTS, "u32_div", 4, 12, true));
    v.push(k3(INTS, "u64_rotate", 8, 13, false));
    v.push(k3(INTS, "u32_bitfield", 4, 14, false));
    let floats_case = |kernel, seed: u32, f64: bool| {
        let bytes = if f64 { 8 } else { 4 };
        let data = |k: u32| -> Vec<u8> {
            if f64 {
                floats(n, seed + k)
                    .into_iter()
                    .flat_map(|x| f64::from(x).to_le_bytes())
                    .collect()
            } else {
                bytes_f32(floats(n, seed + k))
            }
        };
        Case {
            co: MATH,
            kernel,
            buffers: vec![data(0), data(1), data(2), vec![0; n * bytes]],
            scalars: vec![],
            geometry: Geometry::linear(n as u32, 128),
        }
    };
    v.push(floats_case("f32_div", 15, false));
    v.push(floats_case("f64_fma", 16, true));
    // Conformance kernels: calls and recursion (a stack in scratch),
    // integer and float operators (the float ones in one-wave groups),
    // conversions, cross-lane builtins (readfirstlane and readlane differ
    // between waves), LDS with barriers, a private array (scratch), a 2D
    // grid (rows of 16).
    let groups = 4usize;
    v.push(Case {
        co: BASICS,
        kernel: "calls",
        buffers: vec![vec![0; 512 * 4], vec![0; 512 * 4]],
        scalars: vec![],
        geometry: Geometry::linear(512, 256),
    });
    v.push(Case {
        co: BASICS,
        kernel: "int_ops",
        buffers: vec![bytes_u32(words(2 * 512, 6)), vec![0; 24 * 512 * 4]],
        scalars: vec![],
        geometry: Geometry::linear(512, 128),
    });
    v.push(Case {
        co: BASICS,
        kernel: "float_ops",
        buffers: vec![bytes_f32(floats(2 * 512, 7)), vec![0; 16 * 512 * 4]],
        scalars: vec![],
        geometry: Geometry::linear(512, 64),
    });
    v.push(Case {
        co: BASICS,
        kernel: "conversions",
        buffers: vec![bytes_f32(floats(512, 8)), vec![0; 4 * 512 * 4]],
        scalars: vec![],
        geometry: Geometry::linear(512, 256),
    });
    v.push(Case {
        co: BASICS,
        kernel: "lanes",
        buffers: vec![bytes_u32(words(512, 9)), vec![0; 6 * 512 * 4]],
        scalars: vec![],
        geometry: Geometry::linear(512, 256),
    });
    v.push(Case {
        co: BASICS,
        kernel: "lds_reduce",
        buffers: vec![bytes_f32(floats(groups * 256, 10)), vec![0; groups * 4]],
        scalars: vec![],
        geometry: Geometry::linear(groups as u32 * 256, 256),
    });
    v.push(Case {
        co: BASICS,
        kernel: "private_array",
        buffers: vec![bytes_u32(words(512, 11)), vec![0; 512 * 4]],
        scalars: vec![],
        geometry: Geometry::linear(512, 256),
    });
    v.push(Case {
        co: BASICS,
        kernel: "grid2d",
        buffers: vec![vec![0; 48 * 40 * 4]],
        scalars: vec![Arg::u32(48)],
        geometry: Geometry {
            grid: [48, 40, 1],
            workgroup: [16, 16, 1],
            dynamic_lds: 0,
        },
    });
    v
}

/// A client's queue and code objects.
struct Loaded {
    q: Queue,
    cos: Vec<(&'static str, CodeObject)>,
}

impl Loaded {
    fn new(c: &Client) -> Self {
        Self {
            q: Queue::new(c, 64),
            cos: [BENCH, BASICS, INTS, MATH]
                .into_iter()
                .map(|p| (p, c.load(p)))
                .collect(),
        }
    }
}

/// Runs `case` on `c`; every buffer's bytes afterwards.
fn run(c: &Client, l: &Loaded, case: &Case) -> Vec<Vec<u8>> {
    let co = &l
        .cos
        .iter()
        .find(|(p, _)| *p == case.co)
        .expect("a loaded code object")
        .1;
    let bufs: Vec<Buffer> = case
        .buffers
        .iter()
        .map(|init| {
            let b = c.buffer(init.len().max(4));
            b.write(0, init);
            b
        })
        .collect();
    let mut args: Vec<Arg> = bufs.iter().map(|b| Arg::Ptr(b.va)).collect();
    args.extend(case.scalars.iter().cloned());
    // `bench_saxpy` takes alpha first.
    if case.kernel == "bench_saxpy" {
        args.insert(0, Arg::f32(1.25));
    }
    let out = dispatch(c, &l.q, &co.kernels[case.kernel], &args, case.geometry);
    assert!(matches!(out, Outcome::Done), "{}: {out:?}", case.kernel);
    let out = bufs
        .iter()
        .zip(&case.buffers)
        .map(|(b, init)| b.read(0, init.len()))
        .collect();
    for b in bufs {
        c.release(b);
    }
    out
}

/// A client whose shader core is an interpreter with lockstep on or off.
fn client(lockstep: bool, workers: usize) -> (Client, Arc<sim::Interpreter>) {
    let core =
        Arc::new(sim::Interpreter::new(isa::Processor::Gfx90a, workers).with_lockstep(lockstep));
    (Client::with_core(workers, Some(core.clone())), core)
}

#[test]
fn lockstep_leaves_memory_as_waves_alone_do() {
    let (on, on_core) = client(true, 2);
    let (off, off_core) = client(false, 2);
    let (lon, loff) = (Loaded::new(&on), Loaded::new(&off));
    let mut engaged = Vec::new();
    for case in cases() {
        let before = on_core.lockstep_groups();
        let a = run(&on, &lon, &case);
        let b = run(&off, &loff, &case);
        assert!(
            a == b,
            "{} over {:?}: memory differs with lockstep",
            case.kernel,
            case.geometry.grid
        );
        engaged.push((case.kernel, on_core.lockstep_groups() - before));
    }
    assert_eq!(off_core.lockstep_groups(), 0, "off means off");
    let groups = |k: &str| {
        engaged
            .iter()
            .filter(|(n, _)| *n == k)
            .map(|(_, g)| g)
            .sum::<u64>()
    };
    // The 1D kernels of several waves a group and no scratch start their
    // groups in lockstep; one-wave groups have nothing to share, a
    // scratch offset differs between waves (`calls` keeps its stack in
    // scratch), and rows of 16 work-items are not one run of lanes.
    for k in [
        "bench_vadd",
        "bench_saxpy",
        "bench_fma256",
        "u32_div",
        "u64_rotate",
        "u32_bitfield",
        "f32_div",
        "f64_fma",
        "int_ops",
        "conversions",
        "lanes",
        "lds_reduce",
    ] {
        assert!(groups(k) > 0, "{k}: no group in lockstep ({engaged:?})");
    }
    for k in ["calls", "float_ops", "private_array", "grid2d"] {
        assert_eq!(groups(k), 0, "{k}: in lockstep ({engaged:?})");
    }
}

#[test]
fn lockstep_counts_each_instruction_once_a_wave() {
    let (on, on_core) = client(true, 1);
    let (off, off_core) = client(false, 1);
    let (lon, loff) = (Loaded::new(&on), Loaded::new(&off));
    on_core.set_coverage(true);
    off_core.set_coverage(true);
    for case in cases() {
        run(&on, &lon, &case);
        run(&off, &loff, &case);
    }
    assert!(on_core.lockstep_groups() > 0);
    let (a, b) = (on_core.coverage(), off_core.coverage());
    assert!(a.executed() > 0);
    assert_eq!(
        a.to_string(),
        b.to_string(),
        "coverage differs with lockstep"
    );
}
