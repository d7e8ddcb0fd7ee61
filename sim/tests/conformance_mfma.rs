//! MFMA and dot-product conformance kernels (sim/tests/kernels/src/mfma.cl,
//! built by build.sh with clang-19 for gfx90a) run on the interpreter and
//! compared bit for bit with Rust references.
//!
//! The matrix layouts of the references are AMD's Matrix Instruction
//! Calculator's for CDNA2 (`matrix_calculator.py -a cdna2 -i <op> -d`,
//! "Matrix element to register mapping"), written out here per matrix
//! size. The f32/f64 inputs are small dyadic rationals so that every
//! partial sum is exact: the result does not depend on the order of the
//! accumulation (which is not established for the hardware).

#![allow(unsafe_code)]
// Matrix and lane loops index several arrays by the same index: the ISA's notation.
#![allow(clippy::needless_range_loop)]

mod support;

use support::*;

const MFMA: &str = "tests/kernels/mfma.co";

fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

/// Input element type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    F32,
    F16,
    Bf16,
    I8,
    F64,
}

/// One MFMA: kernel name, M, N, K, blocks, input type, A/B registers.
#[derive(Clone, Copy, Debug)]
struct Op {
    name: &'static str,
    m: usize,
    n: usize,
    k: usize,
    blocks: usize,
    ty: Ty,
    a_regs: usize,
}

const fn op(
    name: &'static str,
    m: usize,
    n: usize,
    k: usize,
    blocks: usize,
    ty: Ty,
    a_regs: usize,
) -> Op {
    Op {
        name,
        m,
        n,
        k,
        blocks,
        ty,
        a_regs,
    }
}

const OPS: &[Op] = &[
    op("f32_32x32x1f32", 32, 32, 1, 2, Ty::F32, 1),
    op("f32_16x16x1f32", 16, 16, 1, 4, Ty::F32, 1),
    op("f32_4x4x1f32", 4, 4, 1, 16, Ty::F32, 1),
    op("f32_32x32x2f32", 32, 32, 2, 1, Ty::F32, 1),
    op("f32_16x16x4f32", 16, 16, 4, 1, Ty::F32, 1),
    op("f32_32x32x4f16", 32, 32, 4, 2, Ty::F16, 2),
    op("f32_16x16x4f16", 16, 16, 4, 4, Ty::F16, 2),
    op("f32_4x4x4f16", 4, 4, 4, 16, Ty::F16, 2),
    op("f32_32x32x8f16", 32, 32, 8, 1, Ty::F16, 2),
    op("f32_16x16x16f16", 16, 16, 16, 1, Ty::F16, 2),
    op("i32_32x32x4i8", 32, 32, 4, 2, Ty::I8, 1),
    op("i32_16x16x4i8", 16, 16, 4, 4, Ty::I8, 1),
    op("i32_4x4x4i8", 4, 4, 4, 16, Ty::I8, 1),
    op("i32_32x32x8i8", 32, 32, 8, 1, Ty::I8, 1),
    op("i32_16x16x16i8", 16, 16, 16, 1, Ty::I8, 1),
    op("f32_32x32x4bf16_1k", 32, 32, 4, 2, Ty::Bf16, 2),
    op("f32_16x16x4bf16_1k", 16, 16, 4, 4, Ty::Bf16, 2),
    op("f32_4x4x4bf16_1k", 4, 4, 4, 16, Ty::Bf16, 2),
    op("f32_32x32x8bf16_1k", 32, 32, 8, 1, Ty::Bf16, 2),
    op("f32_16x16x16bf16_1k", 16, 16, 16, 1, Ty::Bf16, 2),
    op("f32_32x32x2bf16", 32, 32, 2, 2, Ty::Bf16, 1),
    op("f32_16x16x2bf16", 16, 16, 2, 4, Ty::Bf16, 1),
    op("f32_4x4x2bf16", 4, 4, 2, 16, Ty::Bf16, 1),
    op("f32_32x32x4bf16", 32, 32, 4, 1, Ty::Bf16, 1),
    op("f32_16x16x8bf16", 16, 16, 8, 1, Ty::Bf16, 1),
    op("f64_16x16x4f64", 16, 16, 4, 1, Ty::F64, 2),
    op("f64_4x4x4f64", 4, 4, 4, 4, Ty::F64, 2),
];

impl Op {
    fn bits(&self) -> usize {
        match self.ty {
            Ty::I8 => 8,
            Ty::F16 | Ty::Bf16 => 16,
            Ty::F32 => 32,
            Ty::F64 => 64,
        }
    }

    /// Elements per lane of A.
    fn kpl(&self) -> usize {
        32 * self.a_regs / self.bits()
    }

    /// Calculator: `A[i][k].block` lane and element (B: `j` for `i`).
    fn a_at(&self, i: usize, k: usize, b: usize) -> (usize, usize) {
        let kpl = self.kpl();
        if self.ty == Ty::F64 && self.blocks > 1 {
            // v_mfma_f64_4x4x4f64: 4 * block + 16 * k + i.
            (4 * b + 16 * k + i, 0)
        } else if self.blocks > 1 {
            // Every multi-block form has K == kpl: M * block + i.
            assert_eq!(self.k, kpl);
            (self.m * b + i, k)
        } else {
            // One block: M * floor(k / kpl) + i, element k % kpl.
            (self.m * (k / kpl) + i, k % kpl)
        }
    }

    /// Calculator: `C or D[i][j].block` register (first of the pair for
    /// f64) and lane.
    fn d_at(&self, i: usize, j: usize, b: usize) -> (usize, usize) {
        if self.ty == Ty::F64 {
            return match self.m {
                16 => (2 * (i / 4), 16 * (i % 4) + j),
                _ => (0, 16 * (i % 4) + 4 * b + j),
            };
        }
        match self.m {
            32 => (16 * b + 4 * (i / 8) + i % 4, (32 * (i / 4)) % 64 + j),
            16 => (4 * b + i % 4, 16 * (i / 4) + j),
            _ => (i, 4 * b + j),
        }
    }

    /// Dwords of D per lane.
    fn d_regs(&self) -> usize {
        let w = if self.ty == Ty::F64 { 2 } else { 1 };
        self.m * self.n * self.blocks * w / 64
    }
}

/// The f16 bits of `x`, a normal f16 value or zero (exact).
fn f16_bits(x: f32) -> u16 {
    if x == 0.0 {
        return if x.is_sign_negative() { 0x8000 } else { 0 };
    }
    let b = x.to_bits();
    let sign = ((b >> 31) as u16) << 15;
    let e = ((b >> 23) & 0xff) as i32 - 127;
    assert!((-14..=15).contains(&e), "{x} is not a normal f16");
    assert_eq!(b & 0x1fff, 0, "{x} is not exact in f16");
    sign | (((e + 15) as u16) << 10) | ((b >> 13) & 0x3ff) as u16
}

/// A small dyadic value `v / 4` of the element type, as (value, bits).
fn element(ty: Ty, r: &mut impl FnMut() -> u64) -> (f64, u64) {
    match ty {
        Ty::I8 => {
            let v = r() as u8 as i8;
            (f64::from(v), u64::from(v as u8))
        }
        _ => {
            let v = (r() % 65) as i32 - 32;
            let x = v as f32 / 4.0;
            let bits = match ty {
                Ty::F32 => u64::from(x.to_bits()),
                Ty::F16 => u64::from(f16_bits(x)),
                Ty::Bf16 => u64::from(x.to_bits() >> 16),
                _ => (x as f64).to_bits(),
            };
            (f64::from(x), bits)
        }
    }
}

/// Runs one MFMA kernel with random A, B, C; returns (A, B, C, D) as
/// matrices `[block][row][col]` of values and the kernel's D per register.
struct Case {
    a: Vec<Vec<Vec<f64>>>,
    b: Vec<Vec<Vec<f64>>>,
    c: Vec<Vec<Vec<f64>>>,
    /// D bits: register r of lane l at `[r][l]` (u64 per pair for f64).
    d: Vec<Vec<u64>>,
    /// The B operand's values by lane and element.
    b_lanes: Vec<Vec<f64>>,
}

fn run(o: &Op, kernel: &str, seed: u64) -> Case {
    let mut r = xorshift(seed);
    let mut lanes_a = vec![0u64; 64];
    let mut lanes_b = vec![0u64; 64];
    let mut a = vec![vec![vec![0.0; o.k]; o.m]; o.blocks];
    let mut b = vec![vec![vec![0.0; o.n]; o.k]; o.blocks];
    let mut b_lanes = vec![vec![0.0; o.kpl()]; 64];
    for blk in 0..o.blocks {
        for i in 0..o.m {
            for k in 0..o.k {
                let (v, bits) = element(o.ty, &mut r);
                a[blk][i][k] = v;
                let (lane, e) = o.a_at(i, k, blk);
                lanes_a[lane] |= bits << (o.bits() * e);
            }
        }
        for j in 0..o.n {
            for k in 0..o.k {
                let (v, bits) = element(o.ty, &mut r);
                b[blk][k][j] = v;
                let (lane, e) = o.a_at(j, k, blk);
                b_lanes[lane][e] = v;
                lanes_b[lane] |= bits << (o.bits() * e);
            }
        }
    }
    let wide = o.ty == Ty::F64;
    let slots = if wide { o.d_regs() / 2 } else { o.d_regs() };
    let mut cbits = vec![vec![0u64; 64]; slots];
    let mut c = vec![vec![vec![0.0; o.n]; o.m]; o.blocks];
    for blk in 0..o.blocks {
        for i in 0..o.m {
            for j in 0..o.n {
                let v = (r() % 2001) as i64 - 1000;
                let (reg, lane) = o.d_at(i, j, blk);
                let slot = if wide { reg / 2 } else { reg };
                c[blk][i][j] = v as f64 / 8.0;
                cbits[slot][lane] = match o.ty {
                    Ty::F64 => (v as f64 / 8.0).to_bits(),
                    Ty::I8 => {
                        // Wide i32 accumulators exercise the wrap.
                        let w = (r() as u32) as i32;
                        c[blk][i][j] = f64::from(w);
                        u64::from(w as u32)
                    }
                    _ => u64::from((v as f32 / 8.0).to_bits()),
                };
            }
        }
    }
    let d = dispatch_mfma(o, kernel, &lanes_a, &lanes_b, &cbits);
    Case {
        a,
        b,
        c,
        d,
        b_lanes,
    }
}

/// Runs MFMA kernel `kernel` of shape `o` with the lanes' A and B operands
/// and C (`cbits[slot][lane]`, a u64 per register pair for f64); returns D
/// the same way (plus one more slot for the AGPR-move kernel).
fn dispatch_mfma(
    o: &Op,
    kernel: &str,
    lanes_a: &[u64],
    lanes_b: &[u64],
    cbits: &[Vec<u64>],
) -> Vec<Vec<u64>> {
    let wide = o.ty == Ty::F64;
    let slots = cbits.len();
    let cl = Client::new(1);
    let q = Queue::new(&cl, 0);
    let co = cl.load(MFMA);
    let words = |v: &[u64]| -> Vec<u32> {
        v.iter()
            .flat_map(|&x| {
                if o.a_regs == 2 {
                    vec![x as u32, (x >> 32) as u32]
                } else {
                    vec![x as u32]
                }
            })
            .collect()
    };
    let ba = cl.buffer(512);
    let bb = cl.buffer(512);
    let bc = cl.buffer(64 * 33 * 4);
    let bo = cl.buffer(64 * 33 * 4);
    ba.write_u32s(0, &words(lanes_a));
    bb.write_u32s(0, &words(lanes_b));
    let flat: Vec<u64> = cbits.iter().flatten().copied().collect();
    if wide {
        bc.write_u64s(0, &flat);
    } else {
        bc.write_u32s(0, &flat.iter().map(|&x| x as u32).collect::<Vec<_>>());
    }
    let args = [ba.va, bb.va, bc.va, bo.va].map(Arg::Ptr);
    let out = dispatch(
        &cl,
        &q,
        &co.kernels[kernel],
        &args,
        Geometry::linear(64, 64),
    );
    assert!(matches!(out, Outcome::Done), "{kernel}: {out:?}");
    if wide {
        let v = bo.read_u64s(0, slots * 64);
        v.chunks(64).map(|c| c.to_vec()).collect()
    } else {
        let v = bo.read_u32s(0, (slots + 1) * 64);
        v.chunks(64)
            .map(|c| c.iter().map(|&x| u64::from(x)).collect())
            .collect()
    }
}

/// `C + A B` of block `blk` at (i, j), exact in f64 (or wrapped i32).
fn reference(o: &Op, cs: &Case, blk: usize, i: usize, j: usize) -> u64 {
    if o.ty == Ty::I8 {
        let mut s = cs.c[blk][i][j] as i64;
        for k in 0..o.k {
            s += (cs.a[blk][i][k] * cs.b[blk][k][j]) as i64;
        }
        return u64::from(s as u32);
    }
    let mut s = cs.c[blk][i][j];
    for k in 0..o.k {
        s += cs.a[blk][i][k] * cs.b[blk][k][j];
    }
    if o.ty == Ty::F64 {
        s.to_bits()
    } else {
        u64::from((s as f32).to_bits())
    }
}

fn check(o: &Op) {
    let cs = run(o, o.name, 0x9e37 + o.m as u64 * 7 + o.k as u64);
    for blk in 0..o.blocks {
        for i in 0..o.m {
            for j in 0..o.n {
                let (reg, lane) = o.d_at(i, j, blk);
                let slot = if o.ty == Ty::F64 { reg / 2 } else { reg };
                let want = reference(o, &cs, blk, i, j);
                assert_eq!(
                    cs.d[slot][lane], want,
                    "{}: D[{i}][{j}] of block {blk} (register {reg}, lane {lane})",
                    o.name
                );
            }
        }
    }
}

#[test]
fn mfma_f32_forms() {
    for o in OPS.iter().filter(|o| o.ty == Ty::F32) {
        check(o);
    }
}

#[test]
fn mfma_f16_forms() {
    for o in OPS.iter().filter(|o| o.ty == Ty::F16) {
        check(o);
    }
}

#[test]
fn mfma_bf16_forms() {
    for o in OPS.iter().filter(|o| o.ty == Ty::Bf16) {
        check(o);
    }
}

#[test]
fn mfma_i8_forms() {
    for o in OPS.iter().filter(|o| o.ty == Ty::I8) {
        check(o);
    }
}

#[test]
fn mfma_f64_forms() {
    for o in OPS.iter().filter(|o| o.ty == Ty::F64) {
        check(o);
    }
}

/// The lane B's lane `l` is read from under `blgp` (the calculator's
/// `--blgp` layouts: 1, 2 broadcast a half, 3 rotates by 16 lanes, 4-7
/// broadcast a quarter).
fn blgp_lane(blgp: usize, l: usize) -> usize {
    [
        l,
        l % 32,
        32 + l % 32,
        (l + 16) % 64,
        l % 16,
        16 + l % 16,
        32 + l % 16,
        48 + l % 16,
    ][blgp]
}

/// Runs `kernel` (MFMA `o` with `cbsz`, `abid`, `blgp`) and checks D:
/// block `b` multiplies A of block `(b >> cbsz << cbsz) + abid` by the B
/// the `blgp` lane pattern reads.
fn check_mods(o: &Op, kernel: &str, cbsz: usize, abid: usize, blgp: usize) {
    let cs = run(o, kernel, 0x51 + cbsz as u64 * 8 + blgp as u64);
    for blk in 0..o.blocks {
        let ablk = if cbsz > 0 {
            ((blk >> cbsz) << cbsz) + abid
        } else {
            blk
        };
        for i in 0..o.m {
            for j in 0..o.n {
                let mut s = cs.c[blk][i][j];
                let mut si = s as i64;
                for k in 0..o.k {
                    let (lane, e) = o.a_at(j, k, blk);
                    let bv = cs.b_lanes[blgp_lane(blgp, lane)][e];
                    s += cs.a[ablk][i][k] * bv;
                    si += (cs.a[ablk][i][k] * bv) as i64;
                }
                let want = if o.ty == Ty::I8 {
                    u64::from(si as u32)
                } else {
                    u64::from((s as f32).to_bits())
                };
                let (reg, lane) = o.d_at(i, j, blk);
                assert_eq!(
                    cs.d[reg][lane], want,
                    "{kernel}: D[{i}][{j}] of block {blk} (register {reg}, lane {lane})"
                );
            }
        }
    }
}

#[test]
fn mfma_broadcast_and_lane_pattern_modifiers() {
    for (kernel, op, cbsz, abid, blgp) in [
        ("mods_f32_16x16x1f32", "f32_16x16x1f32", 2, 3, 3),
        ("mods_f32_4x4x1f32", "f32_4x4x1f32", 3, 5, 4),
        ("mods_f32_4x4x4f16", "f32_4x4x4f16", 4, 9, 5),
        ("mods_f32_32x32x8f16", "f32_32x32x8f16", 0, 0, 1),
        ("mods_f32_16x16x16bf16_1k", "f32_16x16x16bf16_1k", 0, 0, 7),
        ("mods_f32_4x4x2bf16", "f32_4x4x2bf16", 0, 0, 6),
        ("mods_i32_32x32x4i8", "i32_32x32x4i8", 1, 0, 2),
    ] {
        check_mods(&op_named(op), kernel, cbsz, abid, blgp);
    }
}

/// Denormals on gfx90a (AMD: "the FP16 and BF16 V_DOT2 and MFMA matrix
/// instructions flush input and output denormal values to zero"; FP32 and
/// FP64 MFMA keep them). A[0][0] is the smallest positive denormal of the
/// input type, A[1][0] its negative, A[2][0] = 1; B[0][j] is a large
/// power of two that would make the denormal products normal f32 values;
/// C[3][j] = +-(5 * 2^-149) (an f32 denormal), C[4][j] = 1.
fn denormal_case(name: &str, tiny: u64, one: u64, big: u64, big_value: f32, flush: bool) {
    let o = op_named(name);
    let mut lanes_a = vec![0u64; 64];
    let mut lanes_b = vec![0u64; 64];
    let w = o.bits();
    for (i, v) in [(0, tiny), (1, tiny | (1 << (w - 1))), (2, one)] {
        let (lane, e) = o.a_at(i, 0, 0);
        lanes_a[lane] |= v << (w * e);
    }
    for j in 0..o.n {
        let (lane, e) = o.a_at(j, 0, 0);
        lanes_b[lane] |= big << (w * e);
    }
    let mut cbits = vec![vec![0u64; 64]; o.d_regs()];
    for j in 0..o.n {
        let (r, lane) = o.d_at(3, j, 0);
        cbits[r][lane] = if j % 2 == 0 { 5 } else { 0x8000_0005 };
        let (r, lane) = o.d_at(4, j, 0);
        cbits[r][lane] = u64::from(1f32.to_bits());
    }
    let d = dispatch_mfma(&o, name, &lanes_a, &lanes_b, &cbits);
    let tiny_product = match o.ty {
        Ty::F16 => 2f32.powi(-24) * big_value,
        Ty::Bf16 => f32::from_bits(1 << 16) * big_value,
        _ => f32::from_bits(1) * big_value,
    };
    for j in 0..o.n {
        let want = |i: usize| -> u32 {
            match i {
                0 if !flush => tiny_product.to_bits(),
                1 if !flush => (-tiny_product).to_bits(),
                2 => big_value.to_bits(),
                3 if flush && j % 2 == 0 => 0,
                3 if flush => 0x8000_0000,
                3 if j % 2 == 0 => 5,
                3 => 0x8000_0005,
                4 => 1f32.to_bits(),
                _ => 0,
            }
        };
        for i in 0..o.m {
            let (r, lane) = o.d_at(i, j, 0);
            assert_eq!(
                d[r][lane] as u32,
                want(i),
                "{name}: D[{i}][{j}] (flush {flush})"
            );
        }
    }
}

#[test]
fn mfma_denormals() {
    // f16: 0x0001 = 2^-24, 1.0 = 0x3c00, 32768 = 0x7800.
    denormal_case("f32_16x16x16f16", 0x0001, 0x3c00, 0x7800, 32768.0, true);
    // bf16: 0x0001 = 2^-133, 1.0 = 0x3f80, 2^100 = 0x7180.
    denormal_case(
        "f32_16x16x16bf16_1k",
        0x0001,
        0x3f80,
        0x7180,
        2f32.powi(100),
        true,
    );
    // f32 keeps them: 2^-149 * 2^100.
    denormal_case(
        "f32_16x16x4f32",
        0x0000_0001,
        u64::from(1f32.to_bits()),
        u64::from(2f32.powi(100).to_bits()),
        2f32.powi(100),
        false,
    );
}

fn op_named(name: &str) -> Op {
    *OPS.iter().find(|o| o.name == name).unwrap()
}

/// Two MFMAs accumulate: D = (C + A B) + B A.
#[test]
fn mfma_chained_accumulation() {
    let o = op_named("f32_32x32x2f32");
    let cs = run(&o, "chain_f32_32x32x2f32", 77);
    for i in 0..32 {
        for j in 0..32 {
            let mut s = cs.c[0][i][j];
            for k in 0..2 {
                s += cs.a[0][i][k] * cs.b[0][k][j];
            }
            // The second product has B's lanes as A and A's as B: the
            // element (i, k) of "A" is B[k][i] (same lane formula).
            for k in 0..2 {
                s += cs.b[0][k][i] * cs.a[0][j][k];
            }
            let (reg, lane) = o.d_at(i, j, 0);
            assert_eq!(
                cs.d[reg][lane],
                u64::from((s as f32).to_bits()),
                "D[{i}][{j}]"
            );
        }
    }
}

/// An inline constant 0 as C.
#[test]
fn mfma_inline_constant_c() {
    let o = op_named("f32_16x16x4f32");
    let cs = run(&o, "zero_f32_16x16x4f32", 78);
    for i in 0..16 {
        for j in 0..16 {
            let mut s = 0.0;
            for k in 0..4 {
                s += cs.a[0][i][k] * cs.b[0][k][j];
            }
            let (reg, lane) = o.d_at(i, j, 0);
            assert_eq!(
                cs.d[reg][lane],
                u64::from((s as f32).to_bits()),
                "D[{i}][{j}]"
            );
        }
    }
}

/// B and C in AGPRs (v_accvgpr_write), D in AGPRs, v_accvgpr_mov and
/// v_accvgpr_read of D[0].
#[test]
fn mfma_agprs_and_accvgpr_moves() {
    let o = op_named("f32_16x16x4f32");
    let cs = run(&o, "agpr_f32_16x16x4f32", 79);
    for i in 0..16 {
        for j in 0..16 {
            let (reg, lane) = o.d_at(i, j, 0);
            let want = reference(&o, &cs, 0, i, j);
            assert_eq!(cs.d[reg][lane], want, "D[{i}][{j}]");
            if reg == 0 {
                assert_eq!(cs.d[4][lane], want, "moved D[{i}][{j}]");
            }
        }
    }
}

/// cbsz on a single-block form (none in the calculator's CDNA2 tables):
/// an illegal-instruction fault that names it, never a silent result.
#[test]
fn mfma_unsupported_modifier_faults() {
    let cl = Client::new(1);
    let q = Queue::new(&cl, 0);
    let co = cl.load(MFMA);
    let bufs: Vec<Buffer> = (0..4).map(|_| cl.buffer(64 * 32 * 4)).collect();
    let args: Vec<Arg> = bufs.iter().map(|b| Arg::Ptr(b.va)).collect();
    let out = dispatch(
        &cl,
        &q,
        &co.kernels["bad_cbsz_f32_32x32x8f16"],
        &args,
        Geometry::linear(64, 64),
    );
    match out {
        Outcome::Error(_, what) => assert!(
            what.contains("v_mfma_f32_32x32x8f16") && what.contains("cbsz:1"),
            "{what}"
        ),
        Outcome::Done => panic!("cbsz:1 on a single-block MFMA ran"),
    }
}

// ---- dot products ----

/// Runs a one-element-per-lane kernel over `a`, `b`, `c`.
fn run_dot(kernel: &str, a: &[u32], b: &[u32], c: &[u32]) -> Vec<u32> {
    let n = a.len();
    let cl = Client::new(2);
    let q = Queue::new(&cl, 0);
    let co = cl.load(MFMA);
    let bufs: Vec<Buffer> = (0..4).map(|_| cl.buffer(n * 4)).collect();
    for (buf, v) in bufs.iter().zip([a, b, c]) {
        buf.write_u32s(0, v);
    }
    let args: Vec<Arg> = bufs.iter().map(|b| Arg::Ptr(b.va)).collect();
    let out = dispatch(
        &cl,
        &q,
        &co.kernels[kernel],
        &args,
        Geometry::linear(n as u32, 64),
    );
    assert!(matches!(out, Outcome::Done), "{kernel}: {out:?}");
    bufs[3].read_u32s(0, n)
}

const N: usize = 1024;

fn int_inputs(seed: u64) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut r = xorshift(seed);
    let edges = [
        0u32,
        1,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0x7fff_0000,
        0x8000_8000,
        0x7f7f_7f7f,
        0x8080_8080,
        0x7777_7777,
        0x8888_8888,
        0xffff_0000,
        0x7fff_fff0,
        0x8000_0010,
    ];
    let mut pick = |k: usize| -> u32 {
        if k % 3 == 0 {
            edges[(r() % edges.len() as u64) as usize]
        } else {
            r() as u32
        }
    };
    let a = (0..N).map(&mut pick).collect();
    let b = (0..N).map(|k| pick(k + 1)).collect();
    let c = (0..N).map(|k| pick(k + 2)).collect();
    (a, b, c)
}

/// `a . b + c` over `32 / bits` elements, wrapped or saturated.
fn int_dot(a: u32, b: u32, c: u32, bits: u32, signed: bool, clamp: bool) -> u32 {
    let el = |x: u32, e: u32| -> i64 {
        let v = (x >> (bits * e)) & ((1 << bits) - 1);
        if signed && v >> (bits - 1) != 0 {
            i64::from(v) - (1i64 << bits)
        } else {
            i64::from(v)
        }
    };
    let mut s = if signed {
        i64::from(c as i32)
    } else {
        i64::from(c)
    };
    for e in 0..32 / bits {
        s += el(a, e) * el(b, e);
    }
    match (clamp, signed) {
        (false, _) => s as u32,
        (true, true) => s.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32 as u32,
        (true, false) => s.clamp(0, i64::from(u32::MAX)) as u32,
    }
}

#[test]
fn dot_integer_forms() {
    let (a, b, c) = int_inputs(5);
    for (kernel, bits, signed, clamp) in [
        ("sdot2", 16, true, false),
        ("sdot2_clamp", 16, true, true),
        ("udot2", 16, false, false),
        ("udot2_clamp", 16, false, true),
        ("sdot4", 8, true, false),
        ("sdot4_clamp", 8, true, true),
        ("udot4", 8, false, false),
        ("udot4_clamp", 8, false, true),
        ("sdot8", 4, true, false),
        ("sdot8_clamp", 4, true, true),
        ("udot8", 4, false, false),
        ("udot8_clamp", 4, false, true),
        ("dot2c_i32_i16", 16, true, false),
        ("dot4c_i32_i8", 8, true, false),
        ("dot8c_i32_i4", 4, true, false),
        ("dot4c_e64_clamp", 8, true, true),
    ] {
        let got = run_dot(kernel, &a, &b, &c);
        let mut saturated = 0;
        for k in 0..N {
            let want = int_dot(a[k], b[k], c[k], bits, signed, clamp);
            if clamp && want != int_dot(a[k], b[k], c[k], bits, signed, false) {
                saturated += 1;
            }
            assert_eq!(
                got[k], want,
                "{kernel}({:#x}, {:#x}, {:#x})",
                a[k], b[k], c[k]
            );
        }
        if clamp {
            assert!(saturated > 0, "{kernel}: no input saturates");
        }
    }
}

#[test]
fn dot4c_dpp_quad_perm() {
    let (a, b, c) = int_inputs(6);
    let got = run_dot("dot4c_dpp", &a, &b, &c);
    for k in 0..N {
        assert_eq!(
            got[k],
            int_dot(a[k ^ 1], b[k], c[k], 8, true, false),
            "lane {k}"
        );
    }
}

/// f16 values with exponents in [-6, 6] and f32 addends in [2^-10, 2^10]:
/// the exact sum fits f64, so the result is the correctly rounded sum.
fn f16_inputs(seed: u64) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut r = xorshift(seed);
    let mut h = || -> u32 {
        let e = (r() % 13) as u32 + 15 - 6;
        let s = (r() & 1) as u32;
        (s << 15) | (e << 10) | (r() as u32 & 0x3ff)
    };
    let a = (0..N).map(|_| h() | (h() << 16)).collect();
    let b = (0..N).map(|_| h() | (h() << 16)).collect();
    let mut r2 = xorshift(seed + 1);
    let c = (0..N)
        .map(|_| {
            let e = (r2() % 21) as u32 + 127 - 10;
            ((r2() & 1) as u32) << 31 | e << 23 | (r2() as u32 & 0x7f_ffff)
        })
        .collect();
    (a, b, c)
}

fn h2f(h: u32) -> f64 {
    let h = h & 0xffff;
    let s = if h >> 15 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = f64::from(h & 0x3ff);
    s * (1.0 + m / 1024.0) * 2f64.powi(e - 15)
}

fn fdot(x0: f64, y0: f64, x1: f64, y1: f64, c: u32, clamp: bool) -> u32 {
    let s = x0 * y0 + x1 * y1 + f64::from(f32::from_bits(c));
    let r = s as f32;
    if clamp {
        (r.clamp(0.0, 1.0) + 0.0).to_bits()
    } else {
        r.to_bits()
    }
}

#[test]
fn dot2_f32_f16_forms() {
    let (a, b, c) = f16_inputs(9);
    for (kernel, clamp) in [
        ("fdot2", false),
        ("fdot2_clamp", true),
        ("dot2c_f32_f16", false),
        ("dot2c_e64_clamp", true),
    ] {
        let got = run_dot(kernel, &a, &b, &c);
        for k in 0..N {
            let want = fdot(
                h2f(a[k]),
                h2f(b[k]),
                h2f(a[k] >> 16),
                h2f(b[k] >> 16),
                c[k],
                clamp,
            );
            assert_eq!(
                got[k], want,
                "{kernel}({:#x}, {:#x}, {:#x})",
                a[k], b[k], c[k]
            );
        }
    }
}

/// `op_sel:[1,0,0] op_sel_hi:[0,1,0] neg_lo:[0,1,0]`:
/// `x.hi * -y.lo + x.lo * y.hi + z`.
#[test]
fn dot2_f32_f16_op_sel_neg() {
    let (a, b, c) = f16_inputs(10);
    let got = run_dot("fdot2_mods", &a, &b, &c);
    for k in 0..N {
        let want = fdot(
            h2f(a[k] >> 16),
            -h2f(b[k]),
            h2f(a[k]),
            h2f(b[k] >> 16),
            c[k],
            false,
        );
        assert_eq!(got[k], want, "lane {k}");
    }
}

/// f16 denormal inputs and a denormal f32 result of v_dot2_f32_f16 (and
/// its VOP2 `c` form) are flushed on gfx90a; the f32 addend is not.
#[test]
fn dot2_f32_f16_denormals() {
    // x = (2^-24, 1), y = (32768, 1), z = 0: 1 (flushed) not 1 + 2^-9;
    // x = 0, z = +-(5 * 2^-149): the denormal result flushes to a signed zero;
    // x = (1, 0), y = (2^-24, 0), z = 2^-10: the denormal y flushes, z stays.
    let a = vec![0x3c00_0001, 0, 0, 0x0000_3c00];
    let b = vec![0x3c00_7800, 0, 0, 0x0000_0001];
    let c = vec![0, 5, 0x8000_0005, 2f32.powi(-10).to_bits()];
    let want = [1f32.to_bits(), 0, 0x8000_0000, 2f32.powi(-10).to_bits()];
    for kernel in ["fdot2", "dot2c_f32_f16"] {
        let mut aa = a.clone();
        let mut bb = b.clone();
        let mut cc = c.clone();
        aa.resize(64, 0);
        bb.resize(64, 0);
        cc.resize(64, 0);
        let got = run_dot(kernel, &aa, &bb, &cc);
        assert_eq!(&got[..4], &want, "{kernel}");
    }
}
