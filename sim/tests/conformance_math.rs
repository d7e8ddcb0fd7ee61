//! Floating-point conformance kernels (sim/tests/kernels/src/math.cl and
//! fastdiv.cl, built by build.sh with clang-19 for gfx90a) run on the
//! interpreter and compared with Rust's IEEE 754 arithmetic bit for bit
//! (NaN compares as NaN whatever the payload). The inputs are every pair of
//! a set of edge values (zeros, denormals, the normal limits, infinities,
//! NaN, values around 1 and the overflow / underflow thresholds of the
//! quotient) plus pseudo-random bit patterns.

#![allow(unsafe_code)]

mod support;

use support::*;

const MATH: &str = "tests/kernels/math.co";
const FASTDIV: &str = "tests/kernels/fastdiv.co";

fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

/// Runs `kernel` of `path` over the inputs `a`, `b`, `c` of `size`-byte
/// elements (given as bits) and returns the output bits.
fn run3(path: &str, kernel: &str, size: usize, a: &[u64], b: &[u64], c: &[u64]) -> Vec<u64> {
    run_conv(path, kernel, size, size, a, b, c)
}

/// `run3` with `isize`-byte inputs and `osize`-byte outputs.
fn run_conv(
    path: &str,
    kernel: &str,
    isize: usize,
    osize: usize,
    a: &[u64],
    b: &[u64],
    c: &[u64],
) -> Vec<u64> {
    let size = isize.max(osize);
    let n = a.len();
    let padded = n.div_ceil(64) * 64;
    let cl = Client::new(2);
    let q = Queue::new(&cl, 0);
    let co = cl.load(path);
    let bufs: Vec<Buffer> = (0..4).map(|_| cl.buffer(padded * size)).collect();
    for (buf, v) in bufs.iter().zip([a, b, c]) {
        let mut bytes = Vec::with_capacity(padded * size);
        for k in 0..padded {
            let x = v.get(k).copied().unwrap_or(0);
            bytes.extend_from_slice(&x.to_le_bytes()[..isize]);
        }
        buf.write(0, &bytes);
    }
    let args: Vec<Arg> = bufs.iter().map(|b| Arg::Ptr(b.va)).collect();
    let out = dispatch(
        &cl,
        &q,
        &co.kernels[kernel],
        &args,
        Geometry::linear(padded as u32, 64),
    );
    assert!(matches!(out, Outcome::Done), "{kernel}: {out:?}");
    let bytes = bufs[3].read(0, n * osize);
    bytes
        .chunks(osize)
        .map(|ch| {
            let mut w = [0u8; 8];
            w[..osize].copy_from_slice(ch);
            u64::from_le_bytes(w)
        })
        .collect()
}

fn edges32() -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        3.0,
        -7.0,
        0.1,
        1.0 / 3.0,
        10.0,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::from_bits(0x8000_0001),
        f32::from_bits(0x007f_ffff),
        f32::from_bits(0x0040_0000),
        f32::MAX,
        -f32::MAX,
        f32::from_bits(0x7f00_0000),
        f32::from_bits(0x0080_0001),
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::EPSILON,
        1.0 + f32::EPSILON,
        2.0f32.powi(64),
        2.0f32.powi(-64),
        2.0f32.powi(100),
        2.0f32.powi(-100),
        2.0f32.powi(126),
        2.0f32.powi(127) * 1.5,
        2.0f32.powi(-125),
        16_777_215.0,
    ];
    let mut r = xorshift(7);
    for _ in 0..24 {
        v.push(f32::from_bits(r() as u32));
    }
    v
}

fn edges64() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        3.0,
        -7.0,
        0.1,
        1.0 / 3.0,
        2.5,
        -2.5,
        0.5,
        1.5,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        f64::from_bits(1),
        f64::from_bits(0x8000_0000_0000_0001),
        f64::from_bits(0x000f_ffff_ffff_ffff),
        f64::MAX,
        -f64::MAX,
        f64::from_bits(0x7fe0_0000_0000_0000),
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::EPSILON,
        1.0 + f64::EPSILON,
        2.0f64.powi(128),
        2.0f64.powi(-128),
        2.0f64.powi(800),
        2.0f64.powi(-800),
        2.0f64.powi(1022),
        2.0f64.powi(-1021),
        4_294_967_295.5,
        -2_147_483_648.7,
        1e300,
        1e-300,
    ];
    let mut r = xorshift(11);
    for _ in 0..20 {
        v.push(f64::from_bits(r()));
    }
    for _ in 0..8 {
        v.push((r() % 20001) as f64 / 8.0 - 1250.0);
    }
    v
}

/// Every (x, y) pair of `e`.
fn pairs<T: Copy>(e: &[T]) -> (Vec<T>, Vec<T>) {
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in e {
        for &y in e {
            a.push(x);
            b.push(y);
        }
    }
    (a, b)
}

fn same32(got: u64, want: f32) -> bool {
    (want.is_nan() && f32::from_bits(got as u32).is_nan()) || got as u32 == want.to_bits()
}

fn same64(got: u64, want: f64) -> bool {
    (want.is_nan() && f64::from_bits(got).is_nan()) || got == want.to_bits()
}

fn bits32(v: &[f32]) -> Vec<u64> {
    v.iter().map(|x| u64::from(x.to_bits())).collect()
}

fn bits64(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Random operand pairs whose quotients span the whole range, denormal and
/// overflowing results included: `(mantissa bits, exponent)` drawn freely.
fn wide_pairs32(n: usize) -> (Vec<f32>, Vec<f32>) {
    let mut r = xorshift(31);
    let mut one = || f32::from_bits((r() as u32 & !0x7f80_0000) | ((r() % 255) as u32) << 23);
    let a: Vec<f32> = (0..n).map(|_| one()).collect();
    let b: Vec<f32> = (0..n).map(|_| one()).collect();
    (a, b)
}

#[test]
fn f32_division_is_correctly_rounded() {
    let (mut a, mut b) = pairs(&edges32());
    let (wa, wb) = wide_pairs32(6000);
    a.extend(wa);
    b.extend(wb);
    let got = run3(MATH, "f32_div", 4, &bits32(&a), &bits32(&b), &bits32(&a));
    for k in 0..a.len() {
        let want = a[k] / b[k];
        assert!(
            same32(got[k], want),
            "{:e} / {:e}: got {:#x} want {:#x}",
            a[k],
            b[k],
            got[k],
            want.to_bits()
        );
    }
}

#[test]
fn f32_sqrt_is_correctly_rounded() {
    let mut e = edges32();
    let mut r = xorshift(3);
    for _ in 0..200 {
        e.push(f32::from_bits(r() as u32 & 0x7fff_ffff));
    }
    let got = run3(MATH, "f32_sqrt", 4, &bits32(&e), &bits32(&e), &bits32(&e));
    for k in 0..e.len() {
        let want = e[k].sqrt();
        assert!(
            same32(got[k], want),
            "sqrt({:e}): got {:#x} want {:#x}",
            e[k],
            got[k],
            want.to_bits()
        );
    }
}

/// ulp distance between two finite f32 of the same sign (or both zero).
fn ulps(a: f32, b: f32) -> u32 {
    let key = |x: f32| {
        let b = x.to_bits() as i32;
        if b < 0 { i32::MIN - b } else { b }
    };
    key(a).abs_diff(key(b))
}

#[test]
fn f32_default_division_is_within_2_5_ulp() {
    // OpenCL 2.0 section 7.4: x / y within 2.5 ulp; the special values
    // (infinities, NaN, zero operands) still have their IEEE results. The
    // fast path may flush denormal results, so those compare only within
    // the smallest normal.
    let (a, b) = pairs(&edges32());
    let got = run3(
        FASTDIV,
        "f32_div_default",
        4,
        &bits32(&a),
        &bits32(&b),
        &bits32(&a),
    );
    for k in 0..a.len() {
        let want = a[k] / b[k];
        let g = f32::from_bits(got[k] as u32);
        if want.is_nan() {
            assert!(g.is_nan(), "{:e} / {:e}: got {g:e}", a[k], b[k]);
        } else if want.is_infinite() || want == 0.0 || !a[k].is_finite() || !b[k].is_finite() {
            // Overflowing/underflowing quotients: the fast path scales,
            // so only closeness in value is required near the limits.
            if a[k].is_finite() && b[k].is_finite() && a[k] != 0.0 && b[k] != 0.0 {
                continue;
            }
            assert!(
                same32(got[k], want),
                "{:e} / {:e}: got {g:e} want {want:e}",
                a[k],
                b[k]
            );
        } else if want.abs() < f32::MIN_POSITIVE || want.abs() > 2.0f32.powi(126) {
            assert!(
                (g - want).abs() <= f32::MIN_POSITIVE * 2.0 || ulps(g, want) <= 3,
                "{:e} / {:e}: got {g:e} want {want:e}",
                a[k],
                b[k]
            );
        } else {
            assert!(
                ulps(g, want) <= 2,
                "{:e} / {:e}: got {g:e} want {want:e}: {} ulp",
                a[k],
                b[k],
                ulps(g, want)
            );
        }
    }
}

fn f64_binary(kernel: &str, op: impl Fn(f64, f64) -> f64) {
    let (a, b) = pairs(&edges64());
    let got = run3(MATH, kernel, 8, &bits64(&a), &bits64(&b), &bits64(&a));
    for k in 0..a.len() {
        let want = op(a[k], b[k]);
        assert!(
            same64(got[k], want),
            "{kernel}({:e}, {:e}): got {:#x} ({:e}) want {:#x} ({want:e})",
            a[k],
            b[k],
            got[k],
            f64::from_bits(got[k]),
            want.to_bits()
        );
    }
}

#[test]
fn f64_add_sub_mul_are_ieee() {
    f64_binary("f64_add", |a, b| a + b);
    f64_binary("f64_sub", |a, b| a - b);
    f64_binary("f64_mul", |a, b| a * b);
}

#[test]
fn f64_division_is_correctly_rounded() {
    f64_binary("f64_div", |a, b| a / b);
    // Random pairs over the whole exponent range (denormal and overflowing
    // quotients included).
    let mut r = xorshift(37);
    let mut one = || f64::from_bits(r() & !(0x7ff << 52) | ((r() % 2047) << 52));
    let a: Vec<f64> = (0..6000).map(|_| one()).collect();
    let b: Vec<f64> = (0..6000).map(|_| one()).collect();
    let got = run3(MATH, "f64_div", 8, &bits64(&a), &bits64(&b), &bits64(&a));
    for k in 0..a.len() {
        let want = a[k] / b[k];
        assert!(
            same64(got[k], want),
            "{:e} / {:e}: got {:e} want {want:e}",
            a[k],
            b[k],
            f64::from_bits(got[k])
        );
    }
}

#[test]
fn f64_fma_is_fused() {
    let e = edges64();
    let mut r = xorshift(5);
    let n = 4000;
    let pick = |r: &mut dyn FnMut() -> u64| e[(r() % e.len() as u64) as usize];
    let a: Vec<f64> = (0..n).map(|_| pick(&mut r)).collect();
    let b: Vec<f64> = (0..n).map(|_| pick(&mut r)).collect();
    let c: Vec<f64> = (0..n)
        .map(|k| {
            if k % 2 == 0 {
                pick(&mut r)
            } else {
                -(a[k] * b[k])
            }
        })
        .collect();
    let got = run3(MATH, "f64_fma", 8, &bits64(&a), &bits64(&b), &bits64(&c));
    for k in 0..n {
        let want = a[k].mul_add(b[k], c[k]);
        assert!(
            same64(got[k], want),
            "fma({:e}, {:e}, {:e}): got {:e} want {want:e}",
            a[k],
            b[k],
            c[k],
            f64::from_bits(got[k])
        );
    }
}

#[test]
fn f64_sqrt_is_correctly_rounded() {
    let mut e = edges64();
    let mut r = xorshift(13);
    for _ in 0..300 {
        e.push(f64::from_bits(r() & !(1 << 63)));
    }
    let got = run3(MATH, "f64_sqrt", 8, &bits64(&e), &bits64(&e), &bits64(&e));
    for k in 0..e.len() {
        let want = e[k].sqrt();
        assert!(
            same64(got[k], want),
            "sqrt({:e}): got {:e} want {want:e}",
            e[k],
            f64::from_bits(got[k])
        );
    }
}

/// IEEE minNum / maxNum: a NaN loses to a number.
fn fmin(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        b
    } else if b.is_nan() || a < b || (a == b && a.is_sign_negative()) {
        a
    } else {
        b
    }
}

fn fmax(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        b
    } else if b.is_nan() || a > b || (a == b && a.is_sign_positive()) {
        a
    } else {
        b
    }
}

#[test]
fn f64_min_max_rounding_and_conversions() {
    let e = edges64();
    let mut r = xorshift(17);
    let n = 3000;
    let pick = |r: &mut dyn FnMut() -> u64| e[(r() % e.len() as u64) as usize];
    let a: Vec<f64> = (0..n).map(|_| pick(&mut r)).collect();
    let b: Vec<f64> = (0..n).map(|_| pick(&mut r)).collect();
    let c: Vec<f64> = (0..n).map(|_| pick(&mut r)).collect();
    let check = |kernel: &str, want: &dyn Fn(f64, f64, f64) -> f64| {
        let got = run3(MATH, kernel, 8, &bits64(&a), &bits64(&b), &bits64(&c));
        for k in 0..n {
            let w = want(a[k], b[k], c[k]);
            assert!(
                same64(got[k], w),
                "{kernel}({:e}, {:e}, {:e}): got {:e} want {w:e}",
                a[k],
                b[k],
                c[k],
                f64::from_bits(got[k])
            );
        }
    };
    check("f64_minmax", &|x, y, z| fmin(x, y) + fmax(y, z));
    // OpenCL contracts a * b + c into fma (FP_CONTRACT on).
    check("f64_round", &|x, y, z| {
        z.trunc().mul_add(16.0, y.ceil().mul_add(4.0, x.floor()))
    });
    check("f64_rint", &|x, _, _| x.round_ties_even());
    check("f64_to_f32_and_back", &|x, _, _| f64::from(x as f32));
    check("f64_i32_round_trip", &|x, y, _| {
        f64::from(x as i32) + f64::from(y as u32)
    });
    check("f64_ldexp", &|x, y, _| {
        let n = y as i32;
        // x * 2^n with one rounding: exact steps, then the last rounds.
        let mut r = x;
        let mut n = n.clamp(-2200, 2200);
        while n > 1000 {
            r *= 2f64.powi(1000);
            n -= 1000;
        }
        while n < -1000 && r.abs() >= 2f64.powi(-20) {
            r *= 2f64.powi(-1000);
            n += 1000;
        }
        if n < -1000 {
            let h = n / 2;
            r * 2f64.powi(h) * 2f64.powi(n - h)
        } else {
            r * 2f64.powi(n)
        }
    });
    let frexp = |x: f64| -> (f64, i32) {
        if x == 0.0 || !x.is_finite() {
            return (x, 0);
        }
        let (x, bias) = if x.abs() < f64::MIN_POSITIVE {
            (x * 2f64.powi(54), 54)
        } else {
            (x, 0)
        };
        let e = ((x.to_bits() >> 52) & 0x7ff) as i32 - 1022;
        (
            f64::from_bits((x.to_bits() & !(0x7ff << 52)) | (1022 << 52)),
            e - bias,
        )
    };
    check("f64_frexp_mant", &|x, _, _| frexp(x).0);
    check("f64_frexp_exp", &|x, _, _| f64::from(frexp(x).1));
}

/// f16 bits to f64 (exact), and back from f64 with round-to-nearest-even.
fn h2f(h: u16) -> f64 {
    let s = if h >> 15 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f64::from(h & 0x3ff);
    match e {
        0 => s * m * 2f64.powi(-24),
        31 if m == 0.0 => s * f64::INFINITY,
        31 => f64::NAN,
        _ => s * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

/// Round an f64 to f16 bits, nearest even (an independent reference: by
/// search over the f16 values, not by the simulator's conversion code).
fn f2h(x: f64) -> u16 {
    if x.is_nan() {
        return 0x7e00;
    }
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    // The largest magnitude f16 <= a, by binary search over 0..0x7c00.
    let (mut lo, mut hi) = (0u16, 0x7bff);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if h2f(mid) <= a {
            lo = mid
        } else {
            hi = mid - 1
        }
    }
    let down = lo;
    let r = if h2f(down) == a || down == 0x7bff {
        down
    } else {
        let up = down + 1;
        let (dd, du) = (a - h2f(down), h2f(up) - a);
        if dd < du || (dd == du && down & 1 == 0) {
            down
        } else {
            up
        }
    };
    sign | r
}

fn edges16() -> Vec<u16> {
    let mut v = vec![
        0x0000, 0x8000, 0x3c00, 0xbc00, 0x4200, 0x3555, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff,
        0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x1400, 0x5bff, 0x3c01, 0x4900, 0xc880,
    ];
    let mut r = xorshift(23);
    for _ in 0..30 {
        v.push(r() as u16);
    }
    v
}

#[test]
fn f16_arithmetic_is_ieee() {
    let e = edges16();
    let mut r = xorshift(29);
    let n = 4000;
    let a: Vec<u16> = (0..n).map(|_| e[(r() % e.len() as u64) as usize]).collect();
    let b: Vec<u16> = (0..n).map(|_| e[(r() % e.len() as u64) as usize]).collect();
    let c: Vec<u16> = (0..n).map(|_| e[(r() % e.len() as u64) as usize]).collect();
    let w = |v: &[u16]| v.iter().map(|&x| u64::from(x)).collect::<Vec<_>>();
    let check = |kernel: &str, want: &dyn Fn(f64, f64, f64) -> u16| {
        let got = run3(MATH, kernel, 2, &w(&a), &w(&b), &w(&c));
        for k in 0..n {
            let (x, y, z) = (h2f(a[k]), h2f(b[k]), h2f(c[k]));
            let wnt = want(x, y, z);
            let g = got[k] as u16;
            let nan = |h: u16| h & 0x7c00 == 0x7c00 && h & 0x3ff != 0;
            assert!(
                g == wnt || (nan(g) && nan(wnt)),
                "{kernel}({:#x}, {:#x}, {:#x}): got {g:#x} want {wnt:#x}",
                a[k],
                b[k],
                c[k]
            );
        }
    };
    // Sums and products of two f16 are exact in f64.
    check("h_add", &|x, y, _| f2h(x + y));
    check("h_sub", &|x, y, _| f2h(x - y));
    check("h_mul", &|x, y, _| f2h(x * y));
    check("h_minmax", &|x, y, _| f2h(fmin(x, y)));
    // x * y is exact in f64; x * y + z is exact as long as the exponent span fits
    // 53 bits, which for f16 (2^-48 .. 2^32) it does.
    check("h_fma", &|x, y, z| f2h(x.mul_add(y, z)));
    check("h_mad", &|x, y, z| f2h(x.mul_add(y, z)));
}

#[test]
fn f16_rounding_sqrt_ldexp_and_conversions() {
    let e = edges16();
    let mut r = xorshift(61);
    let n = 3000;
    let a: Vec<u16> = (0..n)
        .map(|k| {
            if k % 2 == 0 {
                e[(r() % e.len() as u64) as usize]
            } else {
                r() as u16
            }
        })
        .collect();
    let b: Vec<u16> = (0..n).map(|_| e[(r() % e.len() as u64) as usize]).collect();
    let w = |v: &[u16]| v.iter().map(|&x| u64::from(x)).collect::<Vec<_>>();
    let nan = |h: u16| h & 0x7c00 == 0x7c00 && h & 0x3ff != 0;
    let check = |kernel: &str, want: &dyn Fn(f64, f64) -> u16| {
        let got = run3(MATH, kernel, 2, &w(&a), &w(&b), &w(&a));
        for k in 0..n {
            let wnt = want(h2f(a[k]), h2f(b[k]));
            let g = got[k] as u16;
            assert!(
                g == wnt || (nan(g) && nan(wnt)),
                "{kernel}({:#x}, {:#x}): got {g:#x} want {wnt:#x}",
                a[k],
                b[k]
            );
        }
    };
    check("h_floor", &|x, _| f2h(x.floor()));
    check("h_ceil", &|x, _| f2h(x.ceil()));
    check("h_trunc", &|x, _| f2h(x.trunc()));
    check("h_rint", &|x, _| f2h(x.round_ties_even()));
    // sqrt of an f16 rounded once to f16 (f64 holds it to far more bits
    // than a double rounding could disturb: 53 >= 2 * 11 + 2).
    check("h_sqrt", &|x, _| f2h(x.sqrt()));
    check("h_ldexp", &|x, y| {
        let n = (y as i32).clamp(-100, 100);
        if x == 0.0 || !x.is_finite() {
            f2h(x)
        } else {
            f2h(x * 2f64.powi(n))
        }
    });
    let got = run_conv(MATH, "h_to_f32", 2, 4, &w(&a), &w(&b), &w(&a));
    for k in 0..n {
        let want = h2f(a[k]) as f32;
        assert!(
            same32(got[k], want),
            "h_to_f32({:#x}): got {:#x}",
            a[k],
            got[k]
        );
    }
    let f = edges32();
    let fb = bits32(&f);
    let got = run_conv(MATH, "f32_to_h", 4, 2, &fb, &fb, &fb);
    for k in 0..f.len() {
        let want = f2h(f64::from(f[k]));
        let g = got[k] as u16;
        assert!(
            g == want || (nan(g) && nan(want)),
            "f32_to_h({:e}): got {g:#x} want {want:#x}",
            f[k]
        );
    }
}

#[test]
fn f32_rounding_and_ldexp() {
    let (a, b) = pairs(&edges32());
    let check = |kernel: &str, want: &dyn Fn(f32, f32) -> f32| {
        let got = run3(MATH, kernel, 4, &bits32(&a), &bits32(&b), &bits32(&a));
        for k in 0..a.len() {
            let w = want(a[k], b[k]);
            assert!(
                same32(got[k], w),
                "{kernel}({:e}, {:e}): got {:#x} want {:#x}",
                a[k],
                b[k],
                got[k],
                w.to_bits()
            );
        }
    };
    check("f32_floor", &|x, _| x.floor());
    check("f32_ceil", &|x, _| x.ceil());
    check("f32_trunc", &|x, _| x.trunc());
    check("f32_rint", &|x, _| x.round_ties_even());
    check("f32_ldexp", &|x, y| {
        let n = (y as i32).clamp(-400, 400);
        if x == 0.0 || !x.is_finite() {
            x
        } else {
            (f64::from(x) * 2f64.powi(n / 2) * 2f64.powi(n - n / 2)) as f32
        }
    });
}

#[test]
fn integer_float_conversions() {
    let mut r = xorshift(67);
    let f = edges32();
    let fb = bits32(&f);
    let conv = |kernel: &str, isz: usize, osz: usize, input: &[u64], want: &dyn Fn(u64) -> u64| {
        let got = run_conv(MATH, kernel, isz, osz, input, input, input);
        for k in 0..input.len() {
            let w = want(input[k]);
            assert_eq!(got[k], w, "{kernel}({:#x})", input[k]);
        }
    };
    // Out-of-range float to int is undefined in OpenCL C; the hardware
    // (and Rust's `as`) saturate and give 0 for NaN.
    conv("f32_to_i32", 4, 4, &fb, &|x| {
        u64::from(f32::from_bits(x as u32) as i32 as u32)
    });
    conv("f32_to_u32", 4, 4, &fb, &|x| {
        u64::from(f32::from_bits(x as u32) as u32)
    });
    let ints: Vec<u64> = (0..3000)
        .map(|k| match k % 3 {
            0 => [
                0u64,
                1,
                u64::MAX,
                1 << 63,
                (1 << 63) - 1,
                0xffff_ffff,
                1 << 24,
                (1 << 24) + 1,
                (1 << 53) + 1,
                0x8000_0080_0000_0001,
            ][k / 3 % 10],
            1 => r() >> (r() % 64),
            _ => r(),
        })
        .collect();
    let low: Vec<u64> = ints.iter().map(|&x| x & 0xffff_ffff).collect();
    conv("i32_to_f32", 4, 4, &low, &|x| {
        u64::from((x as u32 as i32 as f32).to_bits())
    });
    conv("u32_to_f32", 4, 4, &low, &|x| {
        u64::from((x as u32 as f32).to_bits())
    });
    conv("i64_to_f32", 8, 4, &ints, &|x| {
        u64::from((x as i64 as f32).to_bits())
    });
    conv("u64_to_f32", 8, 4, &ints, &|x| {
        u64::from((x as f32).to_bits())
    });
    conv("i64_to_f64", 8, 8, &ints, &|x| (x as i64 as f64).to_bits());
    conv("u64_to_f64", 8, 8, &ints, &|x| (x as f64).to_bits());
    conv("f32_to_f64", 4, 8, &fb, &|x| {
        f64::from(f32::from_bits(x as u32)).to_bits()
    });
    // f64 to 64-bit integers: in range only (out of range is undefined and
    // the expansion clang emits does not saturate).
    let d: Vec<u64> = ints
        .iter()
        .map(|&x| {
            let v = (x as i64 as f64) * 0.75;
            v.to_bits()
        })
        .collect();
    conv("f64_to_i64", 8, 8, &d, &|x| f64::from_bits(x) as i64 as u64);
    let du: Vec<u64> = ints
        .iter()
        .map(|&x| ((x as f64) * 0.75).to_bits())
        .collect();
    conv("f64_to_u64", 8, 8, &du, &|x| f64::from_bits(x) as u64);
}

/// A denormal f32 becomes a zero of the same sign.
fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

#[test]
fn f32_division_and_sqrt_with_denormals_flushed() {
    // -cl-denorms-are-zero: denormal inputs read as zero, denormal results
    // are flushed (after rounding); clang turns denormals on around the
    // scaling steps with s_setreg.
    const FTZ: &str = "tests/kernels/ftz.co";
    let (mut a, mut b) = pairs(&edges32());
    let (wa, wb) = wide_pairs32(4000);
    a.extend(wa);
    b.extend(wb);
    let got = run3(FTZ, "f32_div_ftz", 4, &bits32(&a), &bits32(&b), &bits32(&a));
    for k in 0..a.len() {
        let want = ftz(ftz(a[k]) / ftz(b[k]));
        assert!(
            same32(got[k], want),
            "{:e} / {:e}: got {:#x} want {:#x}",
            a[k],
            b[k],
            got[k],
            want.to_bits()
        );
    }
    let got = run3(
        FTZ,
        "f32_sqrt_ftz",
        4,
        &bits32(&a),
        &bits32(&b),
        &bits32(&a),
    );
    for k in 0..a.len() {
        let want = ftz(ftz(a[k]).sqrt());
        assert!(
            same32(got[k], want),
            "sqrt({:e}): got {:#x} want {:#x}",
            a[k],
            got[k],
            want.to_bits()
        );
    }
}

#[test]
fn f16_division() {
    // clang: f32 reciprocal, v_fma_mixlo_f16 (x * rcp rounded once to f16),
    // v_div_fixup_f16. OpenCL (cl_khr_fp16) allows 1 ulp for half
    // division; the special cases are exact.
    let e = edges16();
    let (a, b) = pairs(&e);
    let w = |v: &[u16]| v.iter().map(|&x| u64::from(x)).collect::<Vec<_>>();
    let got = run3(MATH, "h_div", 2, &w(&a), &w(&b), &w(&a));
    let nan = |h: u16| h & 0x7c00 == 0x7c00 && h & 0x3ff != 0;
    let mut exact = 0;
    for k in 0..a.len() {
        let want = f2h(h2f(a[k]) / h2f(b[k]));
        let g = got[k] as u16;
        if nan(want) {
            assert!(nan(g), "{:#x} / {:#x}: got {g:#x}", a[k], b[k]);
            exact += 1;
            continue;
        }
        // Same sign, at most one f16 ulp apart (inf and the largest finite
        // are adjacent).
        assert_eq!(
            g & 0x8000,
            want & 0x8000,
            "{:#x} / {:#x}: got {g:#x} want {want:#x}",
            a[k],
            b[k]
        );
        assert!(
            (g & 0x7fff).abs_diff(want & 0x7fff) <= 1,
            "{:#x} / {:#x}: got {g:#x} want {want:#x}",
            a[k],
            b[k]
        );
        exact += usize::from(g == want);
    }
    // The f32 reciprocal is within 1 ulp of f32, far below f16's: nearly
    // every quotient is the correctly rounded one.
    assert!(exact * 100 >= a.len() * 99, "{exact} of {} exact", a.len());
}
