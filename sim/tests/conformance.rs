//! Conformance kernels (sim/tests/kernels/src, built by build.sh with
//! clang-19 for gfx90a, code object v5) run on the interpreter through
//! `Kfd<SimDevice>` and compared with Rust references bit for bit. NaN
//! results compare as NaN whatever the payload (OpenCL does not define it).

#![allow(unsafe_code)]

mod support;

use support::*;

const BASICS: &str = "tests/kernels/basics.co";

fn setup(workers: usize, scratch_waves: u32) -> (Client, Queue, CodeObject) {
    let c = Client::new(workers);
    let q = Queue::new(&c, scratch_waves);
    let co = c.load(BASICS);
    (c, q, co)
}

fn run(c: &Client, q: &Queue, co: &CodeObject, kernel: &str, args: &[Arg], g: Geometry) {
    let out = dispatch(c, q, &co.kernels[kernel], args, g);
    assert!(matches!(out, Outcome::Done), "{kernel}: {out:?}");
}

fn same_f32(got: u32, want: f32) -> bool {
    (want.is_nan() && f32::from_bits(got).is_nan()) || got == want.to_bits()
}

#[test]
fn lds_reduction_with_barriers() {
    let (c, q, co) = setup(2, 0);
    let groups = 7;
    let mut r = xorshift(9);
    let input: Vec<f32> = (0..groups * 256)
        .map(|_| (r() % 100_000) as f32 / 7.0)
        .collect();
    let (bi, bo) = (c.buffer(input.len() * 4), c.buffer(groups * 4));
    bi.write_f32s(0, &input);
    run(
        &c,
        &q,
        &co,
        "lds_reduce",
        &[Arg::Ptr(bi.va), Arg::Ptr(bo.va)],
        Geometry::linear(groups as u32 * 256, 256),
    );
    let got = bo.read_u32s(0, groups);
    for g in 0..groups {
        let mut t = input[g * 256..(g + 1) * 256].to_vec();
        let mut s = 128;
        while s > 0 {
            for l in 0..s {
                t[l] += t[l + s];
            }
            s >>= 1;
        }
        assert_eq!(got[g], t[0].to_bits(), "group {g}");
    }
}

#[test]
fn global_atomics_32() {
    let (c, q, co) = setup(2, 0);
    let n = 512u32;
    let (bc, bu, br) = (c.buffer(64), c.buffer(64), c.buffer(n as usize * 4));
    bc.write_u32s(0, &[0, 0, i32::MIN as u32, i32::MAX as u32, 1, 0]);
    bu.write_u32s(0, &[0, u32::MAX, 0, 0, u32::MAX, 0, 1000]);
    run(
        &c,
        &q,
        &co,
        "global_atomics",
        &[Arg::Ptr(bc.va), Arg::Ptr(bu.va), Arg::Ptr(br.va)],
        Geometry::linear(n, 64),
    );
    let cv = bc.read_u32s(0, 6);
    assert_eq!(cv[0], n);
    assert_eq!(cv[1] as i32, -2 * n as i32);
    assert_eq!(cv[2], n - 1);
    assert_eq!(cv[3] as i32, -(n as i32 - 1));
    assert_eq!(cv[4], (0..n).fold(1u32, |x, _| x.wrapping_mul(3)));
    assert_eq!(cv[5], 77);
    let uv = bu.read_u32s(0, 7);
    assert_eq!(uv[0], u32::MAX);
    assert_eq!(uv[1], 0);
    assert_eq!(
        uv[2],
        (0..n).fold(0, |x, i| x ^ i.wrapping_mul(2_654_435_761))
    );
    assert_eq!(uv[3], (n - 1) * 7);
    assert_eq!(uv[4], 5);
    assert_eq!(uv[5], n);
    assert_eq!(uv[6], 1000 - n);
    let mut ret = br.read_u32s(0, n as usize);
    ret.sort_unstable();
    assert_eq!(
        ret,
        (0..n).collect::<Vec<_>>(),
        "every old value returned once"
    );
}

#[test]
fn global_atomics_64_and_float() {
    let (c, q, co) = setup(2, 0);
    let n = 256u64;
    let (ba, bb, bf) = (c.buffer(64), c.buffer(64), c.buffer(64));
    ba.write_u64s(0, &[0, 0, 0]);
    bb.write_u64s(0, &[0]);
    bf.write_f32s(0, &[0.0, 0.0]);
    run(
        &c,
        &q,
        &co,
        "global_atomics_64",
        &[Arg::Ptr(ba.va), Arg::Ptr(bb.va), Arg::Ptr(bf.va)],
        Geometry::linear(n as u32, 64),
    );
    let a = ba.read_u64s(0, 3);
    assert_eq!(a[0], (0..n).fold(0u64, |s, i| s.wrapping_add(i << 33)));
    assert_eq!(a[1], (n - 1) * 0x1_0000_0001);
    assert_eq!(
        a[2],
        (0..n).fold(0, |s, i| s ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
    );
    assert_eq!(bb.read_u64s(0, 1)[0] as i64, -((n as i64 - 1) << 31));
    assert_eq!(bf.read_f32s(0, 2), vec![n as f32, (n * (n - 1) / 2) as f32]);
}

#[test]
fn lds_atomics() {
    let (c, q, co) = setup(2, 0);
    let groups = 3;
    let bo = c.buffer(groups * 32);
    run(
        &c,
        &q,
        &co,
        "local_atomics",
        &[Arg::Ptr(bo.va)],
        Geometry::linear(groups as u32 * 128, 128),
    );
    let got = bo.read_u32s(0, groups * 8);
    for g in 0..groups {
        let s = &got[g * 8..g * 8 + 8];
        assert_eq!(s[0], (0..128).sum::<u32>());
        assert_eq!(s[1], 127 * 3);
        assert_eq!(s[2], 10);
        assert_eq!(s[3], u32::MAX);
        assert_eq!(
            s[4],
            (0..128u32).fold(0, |x, l| x ^ l.wrapping_mul(0x0101_0101))
        );
        assert_eq!(s[5], 128);
        assert!((1..=128).contains(&s[6]), "last exchange {}", s[6]);
        assert_eq!(s[7], 1, "exactly one work-item saw the initial 0");
    }
}

#[test]
fn private_arrays_with_dynamic_indexing_use_scratch() {
    let (c, q, co) = setup(2, 64);
    let n = 300usize;
    let mut r = xorshift(5);
    let input: Vec<u32> = (0..64).map(|_| r()).collect();
    let (bi, bo) = (c.buffer(256), c.buffer(n * 4));
    bi.write_u32s(0, &input);
    run(
        &c,
        &q,
        &co,
        "private_array",
        &[Arg::Ptr(bi.va), Arg::Ptr(bo.va)],
        Geometry::linear(n as u32, 64),
    );
    let got = bo.read_u32s(0, n);
    for g in 0..n as u32 {
        let a: Vec<u32> = (0..48u32)
            .map(|k| input[((g + k) % 64) as usize] ^ k.wrapping_mul(0x9e37_79b9))
            .collect();
        let want = (0..48u32).fold(0u32, |acc, k| {
            acc.wrapping_mul(31)
                .wrapping_add(a[((k * 7 + g) % 48) as usize])
        });
        assert_eq!(got[g as usize], want, "work-item {g}");
    }
}

#[test]
fn function_calls_and_recursion() {
    let (c, q, co) = setup(2, 64);
    let n = 200usize;
    let (bo, bf) = (c.buffer(n * 4), c.buffer(n * 4));
    // LLVM 19 gives `calls` a 16-byte private segment (one frame of the
    // recursive `fib`) though fib(15) nests 15 frames of 16 bytes: it runs
    // here because this queue's wave slots hold SCRATCH_LANE_BYTES per
    // lane, whatever the packet asks (runtime/tests/run.rs gives it a
    // stack through the packet instead).
    assert_eq!(co.kernels["calls"].private_segment_size, 16);
    run(
        &c,
        &q,
        &co,
        "calls",
        &[Arg::Ptr(bo.va), Arg::Ptr(bf.va)],
        Geometry::linear(n as u32, 64),
    );
    fn fib(n: u32) -> u32 {
        if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
    }
    let got = bo.read_u32s(0, n);
    let fgot = bo_f32(&bf, n);
    for g in 0..n as u32 {
        assert_eq!(got[g as usize], fib(g % 16), "fib({})", g % 16);
        // Exact in f32 whether contracted into FMAs or not.
        assert_eq!(
            fgot[g as usize],
            g as f32 * 0.25 + (g * 3) as f32 * 0.5 + 1.5
        );
    }
}

fn bo_f32(b: &Buffer, n: usize) -> Vec<f32> {
    b.read_f32s(0, n)
}

fn int_edges() -> Vec<(i32, i32)> {
    let vals = [
        0,
        1,
        -1,
        2,
        -2,
        7,
        -7,
        31,
        32,
        33,
        63,
        64,
        i32::MAX,
        i32::MIN,
        i32::MIN + 1,
        0x1234_5678,
        -0x1234_5678,
        0x7fff,
        0x8000,
        0xffff,
    ];
    let mut v = Vec::new();
    for &a in &vals {
        for &b in &vals {
            v.push((a, b));
        }
    }
    v
}

#[test]
fn integer_operators_over_edge_values() {
    let (c, q, co) = setup(2, 0);
    let pairs = int_edges();
    let n = pairs.len();
    let (bi, bo) = (c.buffer(n * 8), c.buffer(n * 24 * 4));
    bi.write_u32s(
        0,
        &pairs
            .iter()
            .flat_map(|&(a, b)| [a as u32, b as u32])
            .collect::<Vec<_>>(),
    );
    run(
        &c,
        &q,
        &co,
        "int_ops",
        &[Arg::Ptr(bi.va), Arg::Ptr(bo.va)],
        Geometry::linear(n as u32, 64),
    );
    let got = bo.read_u32s(0, n * 24);
    for (g, &(a, b)) in pairs.iter().enumerate() {
        let (ua, ub) = (a as u32, b as u32);
        let div_ok = b != 0 && !(a == i32::MIN && b == -1);
        let (s, d) = (i64::from(a) + i64::from(b), i64::from(a) - i64::from(b));
        let sat = |x: i64| x.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
        let want: [i32; 24] = [
            ua.wrapping_add(ub) as i32,
            ua.wrapping_sub(ub) as i32,
            ua.wrapping_mul(ub) as i32,
            if div_ok { a / b } else { 0 },
            if div_ok { a % b } else { 0 },
            ua.checked_div(ub).unwrap_or(0) as i32,
            ua.checked_rem(ub).unwrap_or(0) as i32,
            (ua << (ub & 31)) as i32,
            a >> (b & 31),
            (ua >> (ub & 31)) as i32,
            ((i64::from(a) * i64::from(b)) >> 32) as i32,
            ((u64::from(ua) * u64::from(ub)) >> 32) as i32,
            a.min(b),
            a.max(b),
            ua.min(ub) as i32,
            ua.max(ub) as i32,
            ua.leading_zeros() as i32,
            ua.count_ones() as i32,
            ua.rotate_left(ub & 31) as i32,
            sat(s),
            sat(d),
            (if a < 0 { 0u32.wrapping_sub(ua) } else { ua }) as i32,
            i32::from(a < b) | (i32::from(a == b) << 1) | (i32::from(ua < ub) << 2),
            ((u64::from(ua) * u64::from(ub)) >> 7) as i32
                ^ ((i64::from(a) * i64::from(b)) >> 40) as i32,
        ];
        for (k, w) in want.iter().enumerate() {
            assert_eq!(got[g * 24 + k] as i32, *w, "op {k} of ({a}, {b})");
        }
    }
}

fn float_edges() -> Vec<(f32, f32)> {
    let vals = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        0.5,
        1.5,
        2.5,
        -2.5,
        3.7,
        -3.7,
        1e30,
        -1e30,
        1e-30,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        1e-40,
        -1e-40,
        16_777_217.0,
        8_388_608.5,
        33.0,
        -70.0,
    ];
    let mut v = Vec::new();
    for &a in &vals {
        for &b in &vals {
            v.push((a, b));
        }
    }
    v
}

#[test]
fn float_operators_over_edge_values() {
    let (c, q, co) = setup(2, 0);
    let pairs = float_edges();
    let n = pairs.len();
    let (bi, bo) = (c.buffer(n * 8), c.buffer(n * 16 * 4));
    bi.write_f32s(
        0,
        &pairs.iter().flat_map(|&(a, b)| [a, b]).collect::<Vec<_>>(),
    );
    run(
        &c,
        &q,
        &co,
        "float_ops",
        &[Arg::Ptr(bi.va), Arg::Ptr(bo.va)],
        Geometry::linear(n as u32, 64),
    );
    let got = bo.read_u32s(0, n * 16);
    for (g, &(a, b)) in pairs.iter().enumerate() {
        let o = &got[g * 16..g * 16 + 16];
        // The descriptor keeps f32 denormals (FLOAT_DENORM_MODE_FLUSH_NONE), IEEE mode on.
        let want = [
            a + b,
            a - b,
            a * b,
            a.mul_add(b, 1.0),
            f32::NAN, // fmin: checked below
            f32::NAN, // fmax: checked below
            a.floor(),
            a.ceil(),
            a.trunc(),
            a.round_ties_even(),
            a.abs() * -b,
            a.copysign(b),
            (b as i32) as f32,
            (b as i32) as u32 as f32,
            if a < b { a } else { b },
            f32::NAN, // ldexp: below
        ];
        for k in (0..16).filter(|k| ![4, 5, 15].contains(k)) {
            assert!(
                same_f32(o[k], want[k]),
                "op {k} of ({a:e}, {b:e}): got {:e} want {:e}",
                f32::from_bits(o[k]),
                want[k]
            );
        }
        // fmin/fmax: IEEE minNum/maxNum; the sign of a zero result is not checked.
        for (k, max) in [(4, false), (5, true)] {
            let w = if a.is_nan() {
                b
            } else if b.is_nan() {
                a
            } else if max {
                a.max(b)
            } else {
                a.min(b)
            };
            let gv = f32::from_bits(o[k]);
            assert!(
                (w.is_nan() && gv.is_nan()) || gv == w,
                "f{} of ({a:e}, {b:e}): {gv:e}",
                if max { "max" } else { "min" }
            );
        }
        let e = (b as i32) % 64;
        let w = a * 2f32.powi(e);
        assert!(
            same_f32(o[15], w),
            "ldexp({a:e}, {e}): got {:e}",
            f32::from_bits(o[15])
        );
    }
}

#[test]
fn conversions_between_f32_and_integers() {
    let (c, q, co) = setup(1, 0);
    let mut r = xorshift(77);
    let mut input: Vec<f32> = vec![
        0.0,
        -0.0,
        0.49,
        0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        1e-40,
        1999.999,
        -1999.999,
        16_777_216.0,
    ];
    while input.len() < 256 {
        input.push((r() as i32 as f32) / 2048.0);
    }
    let n = input.len();
    let (bi, bo) = (c.buffer(n * 4), c.buffer(n * 16));
    bi.write_f32s(0, &input);
    run(
        &c,
        &q,
        &co,
        "conversions",
        &[Arg::Ptr(bi.va), Arg::Ptr(bo.va)],
        Geometry::linear(n as u32, 64),
    );
    let got = bo.read_u32s(0, n * 4);
    for (g, &a) in input.iter().enumerate() {
        let want = [
            a as i32,
            a.abs() as u32 as i32,
            a.floor() as i32,
            ((((a * 1000.0) as i32) >> 3) as f32).to_bits() as i32
                ^ ((g as u32).wrapping_mul(2_654_435_761) as f32).to_bits() as i32,
        ];
        for k in 0..4 {
            assert_eq!(got[g * 4 + k] as i32, want[k], "conversion {k} of {a:e}");
        }
    }
}

#[test]
fn cross_lane_builtins() {
    let (c, q, co) = setup(1, 0);
    let n = 128usize;
    let mut r = xorshift(3);
    let input: Vec<u32> = (0..n).map(|_| r()).collect();
    let (bi, bo) = (c.buffer(n * 4), c.buffer(n * 24));
    bi.write_u32s(0, &input);
    run(
        &c,
        &q,
        &co,
        "lanes",
        &[Arg::Ptr(bi.va), Arg::Ptr(bo.va)],
        Geometry::linear(n as u32, 128),
    );
    let got = bo.read_u32s(0, n * 6);
    for g in 0..n {
        let (wave, lane) = (g / 64 * 64, g % 64);
        let want = [
            input[wave],
            input[wave + ((lane ^ 5) & 63)],
            input[wave + (lane ^ 1)],
            lane as u32,
            input[wave + ((lane + 63) & 63)],
            input[wave + 17],
        ];
        assert_eq!(&got[g * 6..g * 6 + 6], &want, "work-item {g}");
    }
}

#[test]
fn two_dimensional_grid_with_partial_workgroups() {
    let (c, q, co) = setup(2, 0);
    let (w, h) = (100u32, 37u32);
    let bo = c.buffer((w * h) as usize * 4 + 64);
    bo.write_u32s(0, &vec![u32::MAX; (w * h) as usize + 16]);
    let g = Geometry {
        grid: [w, h, 1],
        workgroup: [16, 8, 1],
        dynamic_lds: 0,
    };
    run(&c, &q, &co, "grid2d", &[Arg::Ptr(bo.va), Arg::u32(w)], g);
    let got = bo.read_u32s(0, (w * h) as usize + 16);
    for y in 0..h {
        for x in 0..w {
            assert_eq!(
                got[(y * w + x) as usize],
                (y << 16) | x | ((y % 8) << 28),
                "({x}, {y})"
            );
        }
    }
    assert!(got[(w * h) as usize..].iter().all(|&v| v == u32::MAX));
}

#[test]
fn clocks_and_hardware_registers() {
    let (c, q, co) = setup(1, 0);
    let bo = c.buffer(64);
    run(
        &c,
        &q,
        &co,
        "clocks",
        &[Arg::Ptr(bo.va)],
        Geometry::linear(64, 64),
    );
    let v = bo.read_u64s(0, 5);
    assert!(v[1] >= v[0], "s_memtime is monotonic: {} {}", v[0], v[1]);
    assert!(v[2] > 0, "s_memrealtime runs");
    // HW_ID: wave 0 of its group, queue id in [26:24].
    assert_eq!(v[3] & 0xf, 0);
    // MODE from the descriptor: rsrc1 0x00af0040 = round-nearest, no
    // flushing (denorm 3/3), DX10_CLAMP, IEEE.
    assert_eq!(v[4] & 0x3ff, 0xf0 | (1 << 8) | (1 << 9));
}

#[test]
fn s_trap_is_reported_with_the_kernel_and_offset() {
    let (c, q, co) = setup(1, 0);
    let bo = c.buffer(64);
    let out = dispatch(
        &c,
        &q,
        &co.kernels["trap"],
        &[Arg::Ptr(bo.va)],
        Geometry::linear(64, 64),
    );
    let Outcome::Error(code, what) = out else {
        panic!("{out:?}")
    };
    assert_eq!(code, (1 << 63) | sim::code::TRAP, "{what}");
    assert!(what.contains("s_trap 2 in kernel trap at +0x"), "{what}");
    assert_eq!(
        bo.read_u32s(0, 1)[0],
        1,
        "the store before the trap happened"
    );
}

#[test]
fn an_out_of_bounds_store_is_a_memory_fault() {
    let (c, q, co) = setup(1, 0);
    let bo = c.buffer(4096);
    // Work-item 1 stores 4 KiB past the buffer's start: outside it.
    let out = dispatch(
        &c,
        &q,
        &co.kernels["store_to"],
        &[Arg::Ptr(bo.va)],
        Geometry::linear(2, 2),
    );
    let Outcome::Error(_, what) = out else {
        panic!("{out:?}")
    };
    assert!(
        what.contains(&format!("{:#x}", bo.va + 4096)),
        "names the address: {what}"
    );
    assert!(what.contains("write"), "{what}");
}

#[test]
fn an_unknown_opcode_is_an_illegal_instruction_fault_naming_kernel_and_offset() {
    let (c, q, co) = setup(1, 0);
    let k = &co.kernels["store_to"];
    // The kernel's first instruction (kernel_code_entry_byte_offset at 16 of
    // the descriptor) overwritten with SOPP opcode 0x7f, which no GFX9 has.
    // SAFETY: the descriptor lies in the loaded image, mapped and ours.
    let entry_off = unsafe { ((k.kernel_object + 16) as *const i64).read_unaligned() };
    let entry = k.kernel_object.wrapping_add_signed(entry_off);
    // SAFETY: the entry lies in the loaded, writable image; no kernel runs.
    unsafe { ((entry + 8) as *mut u32).write_unaligned(0xbfff_0000) };
    let bo = c.buffer(4096);
    let out = dispatch(&c, &q, k, &[Arg::Ptr(bo.va)], Geometry::linear(64, 64));
    let Outcome::Error(code, what) = out else {
        panic!("{out:?}")
    };
    assert_eq!(code, (1 << 63) | sim::code::ILLEGAL_INSTRUCTION, "{what}");
    assert!(what.contains("illegal instruction"), "{what}");
    assert!(what.contains("in kernel store_to at +0x8"), "{what}");
}
