//! Integer, vector, builtin, LDS and atomic conformance kernels
//! (sim/tests/kernels/src/ints.cl, built by build.sh with clang-19 for
//! gfx90a) run on the interpreter and compared with Rust references bit
//! for bit.

#![allow(unsafe_code)]

mod support;

use support::*;

const INTS: &str = "tests/kernels/ints.co";

fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

/// Runs `kernel` over inputs of `size`-byte elements (as bits) with
/// work-groups of `wg`, and returns `outn` output elements.
#[allow(clippy::too_many_arguments)]
fn run3(
    kernel: &str,
    size: usize,
    a: &[u64],
    b: &[u64],
    c: &[u64],
    out: &[u64],
    wg: u16,
) -> Vec<u64> {
    let n = a.len();
    let padded = n.div_ceil(usize::from(wg)) * usize::from(wg);
    let cl = Client::new(2);
    let q = Queue::new(&cl, 0);
    let co = cl.load(INTS);
    let bufs: Vec<Buffer> = (0..4)
        .map(|_| cl.buffer(padded.max(out.len()) * size))
        .collect();
    for (buf, v) in bufs.iter().zip([a, b, c, out]) {
        let mut bytes = Vec::new();
        for k in 0..padded.max(out.len()) {
            let x = v.get(k).copied().unwrap_or(0);
            bytes.extend_from_slice(&x.to_le_bytes()[..size]);
        }
        buf.write(0, &bytes);
    }
    let args: Vec<Arg> = bufs.iter().map(|b| Arg::Ptr(b.va)).collect();
    let o = dispatch(
        &cl,
        &q,
        &co.kernels[kernel],
        &args,
        Geometry::linear(padded as u32, wg),
    );
    assert!(matches!(o, Outcome::Done), "{kernel}: {o:?}");
    let m = if out.is_empty() { n } else { out.len() };
    bufs[3]
        .read(0, m * size)
        .chunks(size)
        .map(|ch| {
            let mut w = [0u8; 8];
            w[..size].copy_from_slice(ch);
            u64::from_le_bytes(w)
        })
        .collect()
}

/// Inputs: edge values and random bits, `n` per operand.
fn inputs(seed: u64, n: usize, bits: u32) -> Vec<u64> {
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    let edges = [
        0u64,
        1,
        2,
        3,
        7,
        0x7f,
        0x80,
        0xff,
        0xffff,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0x8000_0000_0000_0000,
        0x7fff_ffff_ffff_ffff,
        u64::MAX,
        0x1_0000_0000,
        0xffff_fffe,
    ];
    let mut r = xorshift(seed);
    (0..n)
        .map(|k| {
            let v = match k % 4 {
                0 => edges[(r() % edges.len() as u64) as usize],
                1 => r() >> (r() % 64),
                _ => r(),
            };
            let v = v & mask;
            // Sign-extend 32-bit values into the 64-bit carrier for i32 use.
            v
        })
        .collect()
}

fn check(kernel: &str, size: usize, bits: u32, want: impl Fn(u64, u64, u64) -> u64) {
    check_with(kernel, size, bits, |_, y, _| y, want)
}

/// Like `check`, `fix` adjusting the second operand (e.g. away from 0).
fn check_with(
    kernel: &str,
    size: usize,
    bits: u32,
    fix: impl Fn(u64, u64, u64) -> u64,
    want: impl Fn(u64, u64, u64) -> u64,
) {
    let n = 2048;
    let a = inputs(1, n, bits);
    let b0 = inputs(2, n, bits);
    let c = inputs(3, n, bits);
    let b: Vec<u64> = (0..n).map(|k| fix(a[k], b0[k], c[k])).collect();
    let got = run3(kernel, size, &a, &b, &c, &[], 64);
    let mask = if size == 8 {
        u64::MAX
    } else {
        (1u64 << (size * 8)) - 1
    };
    for k in 0..n {
        let w = want(a[k], b[k], c[k]) & mask;
        assert_eq!(got[k], w, "{kernel}({:#x}, {:#x}, {:#x})", a[k], b[k], c[k]);
    }
}

fn i32v(x: u64) -> i32 {
    x as u32 as i32
}

/// A nonzero divisor that is not -1 when the dividend is the minimum.
fn divisor32(a: u64, b: u64, _: u64) -> u64 {
    let b = if b as u32 == 0 { 3 } else { b };
    if a as u32 == 0x8000_0000 && b as u32 == u32::MAX {
        5
    } else {
        b
    }
}

fn divisor64(a: u64, b: u64, _: u64) -> u64 {
    let b = if b == 0 { 3 } else { b };
    if a == 1 << 63 && b == u64::MAX { 5 } else { b }
}

#[test]
fn integer_division_and_remainder() {
    check_with("u32_div", 4, 32, divisor32, |x, y, _| {
        u64::from(x as u32 / y as u32)
    });
    check_with("u32_rem", 4, 32, divisor32, |x, y, _| {
        u64::from(x as u32 % y as u32)
    });
    check_with("i32_div", 4, 32, divisor32, |x, y, _| {
        (i32v(x) / i32v(y)) as u32 as u64
    });
    check_with("i32_rem", 4, 32, divisor32, |x, y, _| {
        (i32v(x) % i32v(y)) as u32 as u64
    });
    check_with("u64_div", 8, 64, divisor64, |x, y, _| x / y);
    check_with("u64_rem", 8, 64, divisor64, |x, y, _| x % y);
    check_with("i64_div", 8, 64, divisor64, |x, y, _| {
        (x as i64 / y as i64) as u64
    });
    check_with("i64_rem", 8, 64, divisor64, |x, y, _| {
        (x as i64 % y as i64) as u64
    });
}

#[test]
fn bit_counts_and_rotates() {
    check("u32_bits", 4, 32, |x, y, z| {
        let (x, y, z) = (x as u32, y as u32, z as u32);
        u64::from(x.count_ones() | (y.leading_zeros() << 8) | (z.trailing_zeros() << 16))
    });
    check("u64_bits", 8, 64, |x, y, z| {
        u64::from(x.count_ones())
            | (u64::from(y.leading_zeros()) << 8)
            | (u64::from(z.trailing_zeros()) << 16)
    });
    check("u32_rotate", 4, 32, |x, y, z| {
        let (x, y, z) = (x as u32, y as u32, z as u32);
        u64::from(x.rotate_left(y % 32) ^ z.rotate_right(y & 7))
    });
    check("u64_rotate", 8, 64, |x, y, z| {
        x.rotate_left((y % 64) as u32) ^ z.rotate_right((y & 7) as u32)
    });
    check("u32_bitfield", 4, 32, |x, y, z| {
        let (x, y, z) = (x as u32, y as u32, z as u32);
        u64::from(((x >> (y & 15)) & 0xfff) | (z << 20) | (x & !y))
    });
}

#[test]
fn mul_hi_mul24_mad24() {
    check("u32_mul_hi", 4, 32, |x, y, _| {
        (x as u32 as u64 * y as u32 as u64) >> 32
    });
    check("i32_mul_hi", 4, 32, |x, y, _| {
        ((i64::from(i32v(x)) * i64::from(i32v(y))) >> 32) as u32 as u64
    });
    check("u64_mul_hi", 8, 64, |x, y, _| {
        ((u128::from(x) * u128::from(y)) >> 64) as u64
    });
    check("u32_mad24", 4, 32, |x, y, z| {
        u64::from(
            (x as u32 & 0xff_ffff)
                .wrapping_mul(y as u32 & 0xff_ffff)
                .wrapping_add(z as u32),
        )
    });
    check("i32_mul24", 4, 32, |x, y, z| {
        let s = |v: u64| (v as u32 as i32) << 8 >> 8;
        s(x).wrapping_mul(s(y)).wrapping_add(i32v(z)) as u32 as u64
    });
    check("u64_mul", 8, 64, |x, y, z| {
        x.wrapping_mul(y).wrapping_add(z)
    });
}

#[test]
fn min_max_clamp_select_compare() {
    check("i32_min_max_clamp", 4, 32, |x, y, z| {
        let (x, y, z) = (i32v(x), i32v(y), i32v(z));
        let (lo, hi) = (y.min(z), y.max(z));
        let cl = if x < lo {
            lo
        } else if x > hi {
            hi
        } else {
            x
        };
        (x.min(y) ^ y.max(z) ^ cl) as u32 as u64
    });
    check("u32_min_max", 4, 32, |x, y, z| {
        let (x, y, z) = (x as u32, y as u32, z as u32);
        u64::from(x.min(y).wrapping_add(y.max(z).wrapping_mul(3)))
    });
    check("i64_min_max", 8, 64, |x, y, z| {
        let (x, y, z) = (x as i64, y as i64, z as i64);
        x.min(y).wrapping_sub(y.max(z)) as u64
    });
    check("i32_select", 4, 32, |x, y, z| {
        let (xi, yi, zi) = (i32v(x), i32v(y), i32v(z));
        let v = i32::from(xi == yi)
            | i32::from(xi != zi) << 1
            | i32::from(xi < yi) << 2
            | i32::from(xi <= zi) << 3
            | i32::from(x as u32 > y as u32) << 4
            | (if xi >= 0 { zi } else { yi }).wrapping_shl(5);
        v as u32 as u64
    });
}

fn finputs(seed: u64, n: usize) -> Vec<f32> {
    let edges = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -2.5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MAX,
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        3.25,
        -1e10,
    ];
    let mut r = xorshift(seed);
    (0..n)
        .map(|k| {
            if k % 3 == 0 {
                edges[(r() % edges.len() as u64) as usize]
            } else {
                (r() % 20001) as f32 / 64.0 - 150.0
            }
        })
        .collect()
}

fn fcheck(kernel: &str, want: impl Fn(f32, f32, f32) -> f32) {
    let n = 2048;
    let (a, b, c) = (finputs(4, n), finputs(5, n), finputs(6, n));
    let bits = |v: &[f32]| v.iter().map(|x| u64::from(x.to_bits())).collect::<Vec<_>>();
    let got = run3(kernel, 4, &bits(&a), &bits(&b), &bits(&c), &[], 64);
    for k in 0..n {
        let w = want(a[k], b[k], c[k]);
        let g = f32::from_bits(got[k] as u32);
        assert!(
            (w.is_nan() && g.is_nan()) || w.to_bits() == g.to_bits(),
            "{kernel}({}, {}, {}): got {g} want {w}",
            a[k],
            b[k],
            c[k]
        );
    }
}

/// IEEE minNum / maxNum.
fn fmin(a: f32, b: f32) -> f32 {
    if a.is_nan() {
        b
    } else if b.is_nan() || a < b || (a == b && a.is_sign_negative()) {
        a
    } else {
        b
    }
}

fn fmax(a: f32, b: f32) -> f32 {
    if a.is_nan() {
        b
    } else if b.is_nan() || a > b || (a == b && a.is_sign_positive()) {
        a
    } else {
        b
    }
}

#[test]
fn float_min_max_clamp_compare_mad() {
    // OpenCL contracts a * b + c into fma (FP_CONTRACT on).
    fcheck("f32_min_max_clamp", |x, y, z| {
        fmin(fmax(x, -1.0), 1.0).mul_add(4.0, fmax(y, z).mul_add(2.0, fmin(x, y)))
    });
    fcheck("f32_compare", |x, y, z| {
        let v = u32::from(x < y)
            | u32::from(x <= z) << 1
            | u32::from(x == y) << 2
            | u32::from(x != z) << 3
            | u32::from(x > y) << 4
            | u32::from(x >= z) << 5
            | u32::from(x.is_nan()) << 6
            | u32::from(y.is_infinite()) << 7
            | u32::from(x.is_nan() || z.is_nan()) << 8
            | u32::from(z.is_finite()) << 9;
        v as f32
    });
    fcheck("f32_mad", |x, y, z| x.mul_add(y, z));
}

#[test]
fn vector_types() {
    // float4: each lane of 4 consecutive floats.
    let n = 1024;
    let (a, b, c) = (finputs(7, n * 4), finputs(8, n * 4), finputs(9, n * 4));
    let bits = |v: &[f32]| -> Vec<u64> {
        v.chunks(2)
            .map(|p| u64::from(p[0].to_bits()) | u64::from(p[1].to_bits()) << 32)
            .collect()
    };
    // Run with 16-byte elements by passing pairs: 2 u64 per float4.
    let got = run_vec("f32x4_ops", &bits(&a), &bits(&b), &bits(&c), n);
    for k in 0..n * 4 {
        let e = k / 4 * 4;
        let rev = a[e + 3 - k % 4];
        let w = a[k].mul_add(b[k], c[k]) - rev;
        let g = f32::from_bits((got[k / 2] >> (32 * (k % 2))) as u32);
        assert!(
            (w.is_nan() && g.is_nan()) || w.to_bits() == g.to_bits(),
            "f32x4_ops[{k}]: got {g} want {w}"
        );
    }
    let ia: Vec<u64> = inputs(10, n * 2, 64);
    let ib: Vec<u64> = inputs(11, n * 2, 64);
    let ic: Vec<u64> = inputs(12, n * 2, 64);
    let lane = |v: &[u64], k: usize| (v[k / 2] >> (32 * (k % 2))) as u32;
    let got = run_vec("i32x4_ops", &ia, &ib, &ic, n);
    for k in 0..n * 4 {
        let (x, y, z) = (
            lane(&ia, k) as i32,
            lane(&ib, k) as i32,
            lane(&ic, k) as i32,
        );
        let w = (x.wrapping_add(y).wrapping_mul(z))
            ^ (x >> 3)
            ^ (y.wrapping_shl(2))
            ^ -i32::from(x < y)
            ^ -i32::from(x == z);
        assert_eq!(lane(&got, k) as i32, w, "i32x4_ops[{k}]");
    }
    let got = run_vec("u32x4_ops", &ia, &ib, &ic, n);
    for k in 0..n * 4 {
        let (x, y, z) = (lane(&ia, k), lane(&ib, k), lane(&ic, k));
        let e = k / 4 * 4;
        let rot = lane(&ia, e + (k % 4 + 1) % 4);
        let w = (x / (y | 1)).wrapping_add(x % (z | 1)).wrapping_add(rot);
        assert_eq!(lane(&got, k), w, "u32x4_ops[{k}]");
    }
}

/// A vector kernel over `n` 16-byte elements given as u64 pairs.
fn run_vec(kernel: &str, a: &[u64], b: &[u64], c: &[u64], n: usize) -> Vec<u64> {
    let cl = Client::new(2);
    let q = Queue::new(&cl, 0);
    let co = cl.load(INTS);
    let bufs: Vec<Buffer> = (0..4).map(|_| cl.buffer(n * 16)).collect();
    for (buf, v) in bufs.iter().zip([a, b, c]) {
        buf.write_u64s(0, v);
    }
    let args: Vec<Arg> = bufs.iter().map(|b| Arg::Ptr(b.va)).collect();
    let o = dispatch(
        &cl,
        &q,
        &co.kernels[kernel],
        &args,
        Geometry::linear(n as u32, 64),
    );
    assert!(matches!(o, Outcome::Done), "{kernel}: {o:?}");
    bufs[3].read_u64s(0, n * 2)
}

#[test]
fn lds_prefix_scan_with_barriers() {
    let n = 256 * 5;
    let mut r = xorshift(41);
    let a: Vec<u64> = (0..n).map(|_| r() % 100_000).collect();
    let got = run3("lds_scan", 4, &a, &a, &a, &[], 256);
    for g in 0..5 {
        let mut s = 0u32;
        for l in 0..256 {
            s = s.wrapping_add(a[g * 256 + l] as u32);
            assert_eq!(got[g * 256 + l] as u32, s, "group {g} item {l}");
        }
    }
}

#[test]
fn lds_matrix_transpose() {
    let mut r = xorshift(43);
    let a: Vec<u64> = (0..4096).map(|_| r() & 0xffff_ffff).collect();
    let got = run3("lds_transpose", 4, &a, &a, &a, &[], 256);
    for i in 0..64 {
        for j in 0..64 {
            assert_eq!(got[j * 64 + i], a[i * 64 + j], "({i}, {j})");
        }
    }
}

#[test]
fn lds_atomics_every_op() {
    let groups = 3;
    let mut r = xorshift(47);
    let a: Vec<u64> = (0..groups * 128).map(|_| r() & 0xffff_ffff).collect();
    let got = run3("lds_atomics_all", 4, &a, &a, &a, &vec![0; groups * 12], 128);
    for g in 0..groups {
        let v: Vec<u32> = a[g * 128..(g + 1) * 128]
            .iter()
            .map(|&x| x as u32)
            .collect();
        let s = &got[g * 12..(g + 1) * 12];
        let s: Vec<u32> = s.iter().map(|&x| x as u32).collect();
        assert_eq!(s[0], v.iter().fold(0u32, |t, &x| t.wrapping_add(x)), "add");
        assert_eq!(s[1], 1, "exactly one exchange saw the initial 0");
        let and = (0..128u32).fold(0xffff_ffffu32, |t, l| {
            t & (!(1 << (l & 31)) | (v[l as usize] & 0x8000_0000))
        });
        assert_eq!(s[2], and, "and");
        assert_eq!(s[3], 1000u32.wrapping_sub((0..128).sum::<u32>()), "sub");
        assert_eq!(s[4], v.iter().fold(0, |t, &x| t | (x & 0xff)), "or");
        assert_eq!(
            s[5] as i32,
            v.iter().map(|&x| x as i32).fold(i32::MAX, i32::min),
            "min_i32"
        );
        assert_eq!(
            s[6] as i32,
            v.iter().map(|&x| x as i32).fold(0, i32::max),
            "max_i32"
        );
        assert_eq!(s[7], v.iter().fold(0, |t, &x| t ^ x), "xor");
        // inc wraps to 0 past 15; dec from 0 wraps to 7: 128 steps each.
        assert_eq!(
            s[8],
            (0..128).fold(0u32, |t, _| if t >= 15 { 0 } else { t + 1 }),
            "inc"
        );
        assert_eq!(
            s[9],
            (0..128).fold(0u32, |t, _| if t == 0 || t > 7 { 7 } else { t - 1 }),
            "dec"
        );
        assert_eq!(s[10], 50 + (1..=128).sum::<u32>(), "cmpxchg loop");
        assert!((1..=128).contains(&s[11]), "last exchange {}", s[11]);
    }
}

#[test]
fn global_atomics_64_every_op() {
    let n = 256usize;
    let mut r = xorshift(53);
    let a: Vec<u64> = (0..n).map(|_| r()).collect();
    let init = [u64::MAX, u64::MAX, 0, i64::MIN as u64, u64::MAX, 0, 0, 1];
    let got = run3("global_atomics_64_more", 8, &a, &a, &a, &init, 64);
    assert_eq!(
        got[0],
        a.iter().fold(u64::MAX, |t, &x| t.wrapping_sub(x)),
        "sub"
    );
    assert_eq!(got[1], 0, "and");
    assert_eq!(got[2], u64::MAX, "or");
    assert_eq!(
        got[3] as i64,
        a.iter().map(|&x| x as i64).max().unwrap(),
        "max_i64"
    );
    assert_eq!(got[4], *a.iter().min().unwrap(), "min_u64");
    assert!((1..=n as u64).contains(&got[5]), "exchange {}", got[5]);
    assert_eq!(got[6], 1, "exactly one exchange saw the initial 0");
    assert_eq!(
        got[7],
        (0..n).fold(1u64, |t, _| t.wrapping_mul(3).wrapping_add(1)),
        "cmpxchg loop"
    );
}

#[test]
fn dpp_lane_moves() {
    // Every lane active (grid of whole waves); the reference follows the
    // Vega ISA's DPP description (rows of 16 lanes, banks of 4).
    let n = 128usize;
    let mut r = xorshift(59);
    let a: Vec<u64> = (0..n).map(|_| r() & 0xffff_ffff).collect();
    let got = run3("dpp_moves", 4, &a, &a, &a, &vec![0; n * 8], 64);
    for i in 0..n {
        let (wave, l) = (i / 64 * 64, i % 64);
        let x = |s: usize| a[wave + s] as u32;
        let old = (i as u32) * 1000 + 7;
        let row = l & !15;
        let rl = l & 15;
        let want: [u32; 8] = [
            x((l & !3) | (3 - (l & 3))),
            if rl < 15 { x(l + 1) } else { old },
            if rl > 0 { x(l - 1) } else { 0 },
            x(row + ((rl + 12) & 15)),
            x(row + 15 - rl),
            if (l >> 2) & 1 == 0 {
                x((l & !7) + 7 - (l & 7))
            } else {
                old
            },
            if (l / 16) % 2 == 1 { x(row - 1) } else { old },
            if l > 0 { x(l - 1) } else { old },
        ];
        for k in 0..8 {
            assert_eq!(got[i * 8 + k] as u32, want[k], "lane {i} control {k}");
        }
    }
}

#[test]
fn byte_and_short_arithmetic_sdwa() {
    check("i8_i16_mix", 4, 32, |x, y, z| {
        let (x, y, z) = (i32v(x), i32v(y), i32v(z));
        let v = i32::from((x >> 8) as i8)
            .wrapping_mul(i32::from((y >> 16) as i16))
            .wrapping_add(i32::from((z >> 24) as u8))
            .wrapping_sub(i32::from(x as i16))
            .wrapping_add(((x & 0xff00) >> 8).wrapping_mul(y >> 24));
        v as u32 as u64
    });
    check("u16_pack", 4, 32, |x, y, z| {
        let (x, y, z) = (x as u32, y as u32, z as u32);
        let lo = u32::from((x as u16).wrapping_add((y >> 16) as u16));
        let hi = u32::from(((x >> 8) as u8).wrapping_mul(z as u8));
        u64::from(lo | hi << 16)
    });
}

#[test]
fn f64_atomics_global_and_local() {
    // Halves of small integers: every partial sum is exact, so the sums do
    // not depend on the order the atomics (and the wave-level reduction
    // clang emits before them) run in.
    let n = 512usize;
    let mut r = xorshift(71);
    let a: Vec<f64> = (0..n).map(|_| (r() % 4001) as f64 * 0.5 - 1000.0).collect();
    let bits: Vec<u64> = a.iter().map(|x| x.to_bits()).collect();
    let init = [0.0f64, f64::INFINITY, f64::NEG_INFINITY, 0.0].map(f64::to_bits);
    let got = run3("f64_atomics", 8, &bits, &bits, &bits, &init, 64);
    let sum: f64 = a.iter().sum();
    assert_eq!(f64::from_bits(got[0]), sum, "global add");
    assert_eq!(
        f64::from_bits(got[1]),
        a.iter().copied().fold(f64::INFINITY, f64::min),
        "global min"
    );
    assert_eq!(
        f64::from_bits(got[2]),
        a.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        "global max"
    );
    assert_eq!(f64::from_bits(got[3]), sum, "sum of the groups' LDS sums");
}

#[test]
fn small_integer_vectors() {
    check("u8x4_ops", 4, 32, |x, y, z| {
        let b = |v: u64, k: u32| (v >> (8 * k)) as u8;
        let mut out = 0u64;
        for k in 0..4 {
            let r = b(x, k)
                .wrapping_add(b(y, k).wrapping_mul(b(z, k)))
                .wrapping_sub(b(x, k) >> (k + 1));
            out |= u64::from(r) << (8 * k);
        }
        out
    });
    check("i16x2_ops", 4, 32, |x, y, z| {
        let h = |v: u64, k: u32| (v >> (16 * k)) as u16 as i16;
        let mut out = 0u64;
        for k in 0..2 {
            let (a, b, c) = (h(x, k), h(y, k), h(z, k));
            let sh = if k == 0 { 3 } else { 1 };
            let r = a
                .wrapping_mul(b)
                .wrapping_add(c >> sh)
                .wrapping_sub(a.max(c));
            out |= u64::from(r as u16) << (16 * k);
        }
        out
    });
}

#[test]
fn sixteen_bit_scalars() {
    check("u16_ops", 2, 16, |x, y, z| {
        let (x, y, z) = (x as u16, y as u16, z as u16);
        u64::from(x.wrapping_mul(y).wrapping_add(z) ^ (x >> (y & 15)) ^ (z << (x & 15)) ^ x.max(y))
    });
    check("i16_ops", 2, 16, |x, y, z| {
        let (x, y, z) = (x as i16, y as i16, z as i16);
        let v = x.wrapping_mul(y).wrapping_sub(z) ^ (x >> (y & 15)) ^ x.min(z);
        u64::from(v as u16)
    });
}

#[test]
fn undefined_integer_division_does_not_fault() {
    // OpenCL C leaves x / 0 and INT_MIN / -1 undefined; the kernels must
    // still complete (no fault, no hang) whatever they store.
    let a = [0x8000_0000u64, 5, 0, 0xffff_ffff];
    let b = [0xffff_ffffu64, 0, 0, 0];
    for k in ["u32_div", "u32_rem", "i32_div", "i32_rem"] {
        run3(k, 4, &a, &b, &a, &[], 64);
    }
    let a = [1u64 << 63, 5, 0, u64::MAX];
    let b = [u64::MAX, 0, 0, 0];
    for k in ["u64_div", "u64_rem", "i64_div", "i64_rem"] {
        run3(k, 8, &a, &b, &a, &[], 64);
    }
}
