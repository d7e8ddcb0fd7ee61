//! HIP conformance kernels (sim/tests/kernels/src/hip.hip, built by
//! build.sh with Debian's hipcc 5.2.3 for gfx90a: code object v4) run on
//! the interpreter and compared bit for bit with Rust references.

#![allow(unsafe_code)]
// Matrix and lane loops index several arrays by the same index: the ISA's notation.
#![allow(clippy::needless_range_loop)]

mod support;

use support::*;

const HIP: &str = "tests/kernels/hip.co";

fn xorshift(seed: u64) -> impl FnMut() -> u32 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 16) as u32
    }
}

struct Hip {
    cl: Client,
    q: Queue,
    co: CodeObject,
}

impl Hip {
    fn new(scratch_waves: u32) -> Self {
        let cl = Client::new(2);
        let q = Queue::new(&cl, scratch_waves);
        let co = cl.load(HIP);
        Self { cl, q, co }
    }

    fn buf_u32(&self, v: &[u32]) -> Buffer {
        let b = self.cl.buffer(v.len() * 4);
        b.write_u32s(0, v);
        b
    }

    fn run(&self, kernel: &str, args: &[Arg], g: Geometry) {
        let k = &self.co.kernels[kernel];
        let out = dispatch(&self.cl, &self.q, k, args, g);
        assert!(matches!(out, Outcome::Done), "{kernel}: {out:?}");
    }
}

#[test]
fn code_object_is_v4() {
    let bytes =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/kernels/hip.co")).unwrap();
    // e_ident[EI_OSABI] = ELFOSABI_AMDGPU_HSA (64), EI_ABIVERSION 2 = code object v4.
    assert_eq!((bytes[7], bytes[8]), (64, 2));
}

#[test]
fn warp_shuffles() {
    let h = Hip::new(0);
    let n = 512usize;
    let mut r = xorshift(1);
    let input: Vec<u32> = (0..n).map(|_| r()).collect();
    let a = h.buf_u32(&input);
    let out = h.cl.buffer(4 * n * 4);
    h.run(
        "shuffles",
        &[Arg::Ptr(a.va), Arg::Ptr(out.va)],
        Geometry::linear(n as u32, 256),
    );
    let got = out.read_u32s(0, 4 * n);
    for i in 0..n {
        let wave = i & !63;
        let lane = i % 64;
        let at = |l: usize| input[wave + l];
        let down = if lane + 3 >= 64 { lane } else { lane + 3 };
        // __shfl_up with width 16: lanes below `delta` in their segment keep their value.
        let up = if lane % 16 < 7 { lane } else { lane - 7 };
        let want = [at((lane * 5 + 3) % 64), at(lane ^ 5), at(down), at(up)];
        assert_eq!(&got[4 * i..4 * i + 4], &want, "thread {i}");
    }
}

#[test]
fn ballot_any_all() {
    let h = Hip::new(0);
    let n = 512usize;
    let t = 100u32;
    let mut r = xorshift(2);
    let input: Vec<u32> = (0..n)
        .map(|i| match i / 64 {
            0 => 101 + r() % 1000, // every lane > t
            1 => r() % 101,        // no lane > t
            _ => r() % 200,
        })
        .collect();
    let a = h.buf_u32(&input);
    let ballots = h.cl.buffer(8 * n / 64);
    let flags = h.cl.buffer(4 * 2 * n / 64);
    h.run(
        "votes",
        &[
            Arg::Ptr(a.va),
            Arg::u32(t),
            Arg::Ptr(ballots.va),
            Arg::Ptr(flags.va),
        ],
        Geometry::linear(n as u32, 256),
    );
    let b = ballots.read_u64s(0, n / 64);
    let f = flags.read_u32s(0, 2 * n / 64);
    for w in 0..n / 64 {
        let lanes = &input[64 * w..64 * w + 64];
        let want: u64 = lanes
            .iter()
            .enumerate()
            .map(|(l, &x)| u64::from(x & 1) << l)
            .sum();
        assert_eq!(b[w], want, "ballot of wave {w}");
        let any = lanes.iter().any(|&x| x > t);
        let all = lanes.iter().all(|&x| x > t);
        assert_eq!(
            (f[2 * w] != 0, f[2 * w + 1] != 0),
            (any, all),
            "any/all of wave {w}"
        );
    }
    assert_eq!((f[0], f[1], f[2], f[3]), (1, 1, 0, 0));
}

#[test]
fn global_atomics() {
    let h = Hip::new(0);
    let n = 1024usize;
    let mut r = xorshift(3);
    let input: Vec<u32> = (0..n).map(|_| r()).collect();
    let a = h.buf_u32(&input);
    let acc = h.buf_u32(&[0, i32::MIN as u32, i32::MAX as u32, 0, 0]);
    let old = h.cl.buffer(4 * n);
    h.run(
        "global_atomics",
        &[Arg::Ptr(a.va), Arg::Ptr(acc.va), Arg::Ptr(old.va)],
        Geometry::linear(n as u32, 256),
    );
    let got = acc.read_u32s(0, 5);
    let sum = input.iter().fold(0u32, |s, &x| s.wrapping_add(x));
    let max = input.iter().map(|&x| x as i32).max().unwrap();
    let min = input.iter().map(|&x| x as i32).min().unwrap();
    let squares = (0..n as u32).fold(0u32, |s, i| s.wrapping_add(i.wrapping_mul(i)));
    assert_eq!(
        got,
        [sum, max as u32, min as u32, 0x7fff_ffff, squares],
        "sum, max, min, or, CAS sum of squares"
    );
    // The values atomicAdd returned form one chain from 0 to the sum: the
    // multiset {old_i + x_i} + {0} equals {old_i} + {sum}.
    let olds = old.read_u32s(0, n);
    let mut after: Vec<u32> = olds
        .iter()
        .zip(&input)
        .map(|(&o, &x)| o.wrapping_add(x))
        .collect();
    after.push(0);
    let mut before = olds.clone();
    before.push(sum);
    after.sort_unstable();
    before.sort_unstable();
    assert_eq!(after, before, "atomicAdd return values");
}

#[test]
fn shared_atomics() {
    let h = Hip::new(0);
    let (n, wg) = (2048usize, 256usize);
    let mut r = xorshift(4);
    let input: Vec<u32> = (0..n).map(|_| r()).collect();
    let a = h.buf_u32(&input);
    let out = h.cl.buffer(4 * 3 * n / wg);
    h.run(
        "shared_atomics",
        &[Arg::Ptr(a.va), Arg::Ptr(out.va)],
        Geometry::linear(n as u32, wg as u16),
    );
    let got = out.read_u32s(0, 3 * n / wg);
    for (b, chunk) in input.chunks(wg).enumerate() {
        let sum = chunk.iter().fold(0u32, |s, &x| s.wrapping_add(x));
        let max = chunk.iter().map(|&x| x as i32).max().unwrap() as u32;
        let xor = chunk.iter().fold(0u32, |s, &x| s ^ x);
        assert_eq!(&got[3 * b..3 * b + 3], &[sum, max, xor], "block {b}");
    }
}

#[test]
fn dynamic_shared_memory() {
    let h = Hip::new(0);
    let (n, wg) = (1024usize, 128usize);
    let input: Vec<u32> = (0..n).map(|i| (i as f32 * 0.5).to_bits()).collect();
    let a = h.buf_u32(&input);
    let out = h.cl.buffer(4 * n);
    h.run(
        "dyn_reverse",
        &[Arg::Ptr(a.va), Arg::Ptr(out.va)],
        Geometry {
            grid: [n as u32, 1, 1],
            workgroup: [wg as u16, 1, 1],
            dynamic_lds: (wg * 4) as u32,
        },
    );
    let got = out.read_u32s(0, n);
    for i in 0..n {
        let block = i / wg;
        assert_eq!(got[i], input[block * wg + wg - 1 - i % wg], "element {i}");
    }
}

#[test]
fn syncthreads_reduction() {
    let h = Hip::new(0);
    let n = 16 * 256usize;
    let mut r = xorshift(5);
    let input: Vec<u32> = (0..n).map(|_| r()).collect();
    let a = h.buf_u32(&input);
    let out = h.cl.buffer(4 * 16);
    h.run(
        "block_sum",
        &[Arg::Ptr(a.va), Arg::Ptr(out.va)],
        Geometry::linear(n as u32, 256),
    );
    let got = out.read_u32s(0, 16);
    for (b, chunk) in input.chunks(256).enumerate() {
        let s = chunk.iter().fold(0u32, |s, &x| s.wrapping_add(x));
        assert_eq!(got[b], s, "block {b}");
    }
}

fn collatz(n: u32, depth: u32) -> u32 {
    if n <= 1 || depth >= 200 {
        return n;
    }
    let next = if n & 1 != 0 {
        n.wrapping_mul(3).wrapping_add(1)
    } else {
        n / 2
    };
    collatz(next, depth + 1).wrapping_mul(31).wrapping_add(n)
}

#[test]
fn recursive_device_function() {
    let h = Hip::new(64);
    let n = 256usize;
    let mut r = xorshift(6);
    let input: Vec<u32> = (0..n)
        .map(|i| match i {
            0 => 0,
            1 => 1,
            2 => 871, // 178 steps: the deepest below 1000
            3 => 0xffff_fff1,
            _ => 1 + r() % 1000,
        })
        .collect();
    let a = h.buf_u32(&input);
    let out = h.cl.buffer(4 * n);
    let mut k = h.co.kernels["recursion"].clone();
    // A dynamic stack: the metadata's 16400 bytes per lane are more than the
    // test queue's scratch; 200 levels of 16 bytes fit in it.
    assert!(k.private_segment_size > 0);
    k.private_segment_size = SCRATCH_LANE_BYTES;
    let o = dispatch(
        &h.cl,
        &h.q,
        &k,
        &[Arg::Ptr(a.va), Arg::Ptr(out.va)],
        Geometry::linear(n as u32, 64),
    );
    assert!(matches!(o, Outcome::Done), "recursion: {o:?}");
    let got = out.read_u32s(0, n);
    for i in 0..n {
        assert_eq!(got[i], collatz(input[i], 0), "collatz({})", input[i]);
    }
}

/// HIP's way: whole blocks, the kernel checks the bounds of a 100x37 image.
#[test]
fn grid_2d_bounds_checked_blocks() {
    let h = Hip::new(0);
    let (w, hh) = (100u32, 37u32);
    let (bx, by) = (16u32, 8u32);
    let (gx, gy) = (w.div_ceil(bx), hh.div_ceil(by));
    let out = h.cl.buffer((w * hh * 4) as usize);
    out.write_u32s(0, &vec![0xdead_beef; (w * hh) as usize]);
    h.run(
        "grid2d",
        &[Arg::i32(w as i32), Arg::i32(hh as i32), Arg::Ptr(out.va)],
        Geometry {
            grid: [gx * bx, gy * by, 1],
            workgroup: [bx as u16, by as u16, 1],
            dynamic_lds: 0,
        },
    );
    let got = out.read_u32s(0, (w * hh) as usize);
    for y in 0..hh {
        for x in 0..w {
            let want = (x * 65536 + y)
                ^ ((x / bx) << 24)
                ^ ((y / by) << 28)
                ^ (gx << 20)
                ^ (gy << 12)
                ^ (bx * by);
            assert_eq!(got[(y * w + x) as usize], want, "({x}, {y})");
        }
    }
}

/// A grid that is not a multiple of the work-group (100x37 of 16x8): the
/// last blocks are partial work-groups, where HIP's blockDim (code object
/// v4: from the dispatch packet) is the partial size; gridDim rounds up.
#[test]
fn grid_2d_partial_workgroups() {
    let h = Hip::new(0);
    let (w, hh) = (100u32, 37u32);
    let out = h.cl.buffer((w * hh * 4) as usize);
    out.write_u32s(0, &vec![0xdead_beef; (w * hh) as usize]);
    h.run(
        "block_dims",
        &[Arg::i32(w as i32), Arg::i32(hh as i32), Arg::Ptr(out.va)],
        Geometry {
            grid: [w, hh, 1],
            workgroup: [16, 8, 1],
            dynamic_lds: 0,
        },
    );
    let got = out.read_u32s(0, (w * hh) as usize);
    for y in 0..hh {
        for x in 0..w {
            let bdx = if x / 16 == w / 16 { w % 16 } else { 16 };
            let bdy = if y / 8 == hh / 8 { hh % 8 } else { 8 };
            let want = bdx | (bdy << 8) | (w.div_ceil(16) << 16) | (hh.div_ceil(8) << 24);
            assert_eq!(got[(y * w + x) as usize], want, "({x}, {y})");
        }
    }
}

#[test]
fn mfma_sgemm_16x16x16() {
    let h = Hip::new(0);
    let mut r = xorshift(7);
    // Small integers: every partial sum is exact.
    let a: Vec<f32> = (0..256).map(|_| (r() % 17) as f32 - 8.0).collect();
    let b: Vec<f32> = (0..256).map(|_| (r() % 17) as f32 - 8.0).collect();
    let ba = h.cl.buffer(1024);
    let bb = h.cl.buffer(1024);
    let bc = h.cl.buffer(1024);
    ba.write_f32s(0, &a);
    bb.write_f32s(0, &b);
    h.run(
        "sgemm16",
        &[Arg::Ptr(ba.va), Arg::Ptr(bb.va), Arg::Ptr(bc.va)],
        Geometry::linear(64, 64),
    );
    let c = bc.read_f32s(0, 256);
    for i in 0..16 {
        for j in 0..16 {
            let s: f32 = (0..16).map(|k| a[i * 16 + k] * b[k * 16 + j]).sum();
            assert_eq!(c[i * 16 + j].to_bits(), s.to_bits(), "C[{i}][{j}]");
        }
    }
}

#[test]
fn mfma_outer_products_32x32x1() {
    let h = Hip::new(0);
    let mut r = xorshift(8);
    let x: Vec<f32> = (0..64).map(|_| (r() % 33) as f32 / 4.0 - 4.0).collect();
    let y: Vec<f32> = (0..64).map(|_| (r() % 33) as f32 / 4.0 - 4.0).collect();
    let c: Vec<f32> = (0..32 * 64).map(|_| (r() % 2001) as f32 - 1000.0).collect();
    let bx = h.cl.buffer(256);
    let by = h.cl.buffer(256);
    let bc = h.cl.buffer(32 * 64 * 4);
    let bo = h.cl.buffer(32 * 64 * 4);
    bx.write_f32s(0, &x);
    by.write_f32s(0, &y);
    bc.write_f32s(0, &c);
    h.run(
        "outer32",
        &[
            Arg::Ptr(bx.va),
            Arg::Ptr(by.va),
            Arg::Ptr(bc.va),
            Arg::Ptr(bo.va),
        ],
        Geometry::linear(64, 64),
    );
    let d = bo.read_f32s(0, 32 * 64);
    // The calculator's register-to-element mapping of v_mfma_f32_32x32x1f32:
    // i = (8 * (r / 4)) % 32 + 4 * (lane / 32) + r % 4, j = lane % 32, block = r / 16.
    for reg in 0..32 {
        for lane in 0..64 {
            let i = (8 * (reg / 4)) % 32 + 4 * (lane / 32) + reg % 4;
            let j = lane % 32;
            let blk = reg / 16;
            let want = c[reg * 64 + lane] + x[32 * blk + i] * y[32 * blk + j];
            assert_eq!(
                d[reg * 64 + lane].to_bits(),
                want.to_bits(),
                "register {reg} lane {lane} (block {blk}, D[{i}][{j}])"
            );
        }
    }
}

#[test]
fn dot_builtins() {
    let h = Hip::new(0);
    let n = 512usize;
    let mut r = xorshift(9);
    // f16 halves with exponents in [-6, 6]; f32 addends in [2^-10, 2^10].
    let f16 = |r: &mut dyn FnMut() -> u32| -> u32 {
        let e = r() % 13 + 15 - 6;
        ((r() & 1) << 15) | (e << 10) | (r() & 0x3ff)
    };
    let mut a = Vec::new();
    let mut b = Vec::new();
    let mut c = Vec::new();
    for _ in 0..n {
        a.push(f16(&mut r) | (f16(&mut r) << 16));
        b.push(f16(&mut r) | (f16(&mut r) << 16));
        let e = r() % 21 + 127 - 10;
        c.push(((r() & 1) << 31) | (e << 23) | (r() & 0x7f_ffff));
    }
    let (ba, bb, bc) = (h.buf_u32(&a), h.buf_u32(&b), h.buf_u32(&c));
    let out = h.cl.buffer(16 * n);
    h.run(
        "dots",
        &[
            Arg::Ptr(ba.va),
            Arg::Ptr(bb.va),
            Arg::Ptr(bc.va),
            Arg::Ptr(out.va),
        ],
        Geometry::linear(n as u32, 64),
    );
    let got = out.read_u32s(0, 4 * n);
    let h2f = |h: u32| -> f64 {
        let h = h & 0xffff;
        let s = if h >> 15 != 0 { -1.0 } else { 1.0 };
        s * (1.0 + f64::from(h & 0x3ff) / 1024.0) * 2f64.powi(((h >> 10) & 0x1f) as i32 - 15)
    };
    for i in 0..n {
        let (x, y, z) = (a[i], b[i], c[i]);
        let sb = |v: u32, e: u32| i64::from((v >> (8 * e)) as u8 as i8);
        let ub = |v: u32, e: u32| i64::from((v >> (8 * e)) as u8);
        let sh = |v: u32, e: u32| i64::from((v >> (16 * e)) as u16 as i16);
        let sdot4 = (0..4).fold(i64::from(z as i32), |s, e| s + sb(x, e) * sb(y, e)) as u32;
        let udot4 = (0..4)
            .fold(i64::from(z), |s, e| s + ub(x, e) * ub(y, e))
            .min(i64::from(u32::MAX)) as u32;
        let sdot2 = (0..2).fold(i64::from(z as i32), |s, e| s + sh(x, e) * sh(y, e)) as u32;
        let fdot2 =
            (h2f(x) * h2f(y) + h2f(x >> 16) * h2f(y >> 16) + f64::from(f32::from_bits(z))) as f32;
        assert_eq!(
            &got[4 * i..4 * i + 4],
            &[sdot4, udot4, sdot2, fdot2.to_bits()],
            "element {i}: {x:#x} {y:#x} {z:#x}"
        );
    }
}

#[test]
fn code_object_v4_hidden_arguments() {
    let h = Hip::new(0);
    let k = &h.co.kernels["implicit_args"];
    let kinds: Vec<_> = k.args.iter().map(|a| a.2).collect();
    use loader_core::metadata::ValueKind::*;
    assert_eq!(
        kinds,
        [
            GlobalBuffer,
            HiddenGlobalOffsetX,
            HiddenGlobalOffsetY,
            HiddenGlobalOffsetZ,
            HiddenHostcallBuffer,
            HiddenNone,
            HiddenNone,
            HiddenMultigridSyncArg
        ]
    );
    let out = h.cl.buffer(9 * 8);
    out.write_u64s(0, &[u64::MAX; 9]);
    h.run(
        "implicit_args",
        &[Arg::Ptr(out.va)],
        Geometry::linear(64, 64),
    );
    // Global offsets 0 (HIP has none), no hostcall buffer, no multigrid.
    assert_eq!(out.read_u64s(0, 9), [0, 0, 0, 0, 0, 0, 0, 0, out.va]);
}
