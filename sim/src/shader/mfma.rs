//! Matrix fused multiply-add (VOP3P-MAI `v_mfma_*`) of gfx90a (CDNA2).
//!
//! An MFMA computes, for each of its `blocks` independent blocks,
//! `D[i][j] = C[i][j] + sum_k A[i][k] * B[k][j]` with A `M x K`, B `K x N`
//! and C/D `M x N`, the matrices spread over the lanes and registers of the
//! wave. The register layouts are those of AMD's Matrix Instruction
//! Calculator for CDNA2 (`matrix_calculator.py -a cdna2 -i <op> -d`):
//!
//! - A: element `A[i][k]` of block `b` is in lane `M * g + i` with
//!   `g = (k / kpl) * blocks + b`, element `k % kpl` of that lane's source
//!   (`kpl` elements of 8, 16, 32 or 64 bits per lane, in one or two
//!   registers, lowest element in the lowest bits). B is the same with `j`
//!   for `i`.
//! - C/D with 32-bit elements: `D[i][j]` of block `b` is in register
//!   `4 * (q / (64 / N)) + i % 4`, lane `N * (q % (64 / N)) + j`, where
//!   `q = b * M / 4 + i / 4` (rows in runs of four per register group,
//!   groups of rows spread over the lane groups first, then registers).
//! - C/D of the f64 forms: `D[i][j]` of block `b` is in register pair
//!   `i / 4`, lane `16 * (i % 4) + N * b + j`.
//!
//! C and D are VGPRs or AGPRs (`acc_cd`); C may be an inline constant,
//! which then is every element of C. The results are written to the lanes
//! EXEC enables, like any VALU result (the hardware's treatment of EXEC for
//! MFMA is not established here; compilers run MFMA with a full EXEC).
//!
//! Accumulation order: the sim accumulates each element in `k` order,
//! starting from C: `acc = C; for k in 0..K { acc = fma(A[i][k], B[k][j], acc) }`
//! rounded to nearest-even after every step (f32 and f64; f16/bf16
//! products are exact in f32, so the step is `acc + a*b` rounded once).
//! The hardware's internal order and intermediate precision are not
//! documented in a form established here, so a result of the f32/f64
//! forms equals the hardware's only where every partial sum is exact;
//! integer (i8 -> i32) forms wrap modulo 2^32 and are exact in any order.
//! Denormals (MODE's denormal flags do not apply): the f16 and bf16 forms
//! flush denormal A/B elements and denormal f32 results to a zero of the
//! same sign; the f32, f64 forms keep them. AMD states the MI200 (gfx90a)
//! behaviour: "the FP16 and BF16 V_DOT2 and MFMA matrix instructions flush
//! input and output denormal values to zero", FP64 MFMA does not, and
//! OLCF's MI250X guide withdrew a claim that FP32 MFMA flushes
//! (onnxruntime PR 13352, olcf-user-docs PR 478). The f32 C elements of
//! the f16/bf16 forms are not flushed on input (a denormal C with zero
//! products still gives a flushed D).
//!
//! Modifiers (as the calculator's `--cbsz/--abid/--blgp` layouts give them):
//! - `cbsz`/`abid` (multi-block forms but f64): block `b` takes its A from
//!   block `(b >> cbsz << cbsz) + abid`, i.e. block `abid` of each group of
//!   `2^cbsz` blocks is broadcast to the group; `cbsz` at most
//!   `log2(blocks)` and `abid < 2^cbsz`;
//! - `blgp` (all forms but f64): lane `l` of B is read from lane
//!   `l` (0), `l % 32` (1), `32 + l % 32` (2), `(l + 16) % 64` (3) or
//!   `16 * (blgp - 4) + l % 16` (4-7).
//!
//! A modifier the form does not support (the calculator: single-block
//! forms have no `cbsz`/`abid`, the f64 forms on gfx90a neither those nor
//! `blgp`) or a value out of range is an illegal-instruction fault that
//! names it. The gfx90a non-`_1k` bf16 forms (`v_mfma_f32_*bf16` with two
//! bf16 per dword) are implemented with the same layout rules.

use isa::Opcode::{self, *};

use super::program::Dst;
use super::program::{ExecFn, Inst, Src};
use super::vf32::flush32;
use super::vmem::f16_to_f32;
use super::wave::{LANES, Lanes, Ty, Wave};
use super::{Ctx, Exec, Fault, Flow};

/// The element type of A and B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum In {
    F32,
    F16,
    Bf16,
    I8,
    F64,
}

impl In {
    fn bits(self) -> u32 {
        match self {
            In::I8 => 8,
            In::F16 | In::Bf16 => 16,
            In::F32 => 32,
            In::F64 => 64,
        }
    }
}

/// One MFMA's shape: `M x N x K`, blocks, input type and source registers.
#[derive(Clone, Copy, Debug)]
struct Shape {
    m: usize,
    n: usize,
    k: usize,
    blocks: usize,
    ty: In,
    /// Registers of the A (and B) operand: 1 or 2.
    a_regs: usize,
}

impl Shape {
    const fn new(m: usize, n: usize, k: usize, blocks: usize, ty: In, a_regs: usize) -> Self {
        Self {
            m,
            n,
            k,
            blocks,
            ty,
            a_regs,
        }
    }

    /// Elements of A per lane.
    fn kpl(&self) -> usize {
        (32 * self.a_regs) / self.ty.bits() as usize
    }

    /// The lane and element of `A[i][k]` (or `B[k][j]` with `j` for `i`) of block `b`.
    fn a_at(&self, i: usize, k: usize, b: usize) -> (usize, usize) {
        let kpl = self.kpl();
        let g = (k / kpl) * self.blocks + b;
        (self.m * g + i, k % kpl)
    }

    /// Whether D has 64-bit elements.
    fn wide(&self) -> bool {
        self.ty == In::F64
    }

    /// Registers of C and D.
    fn d_regs(&self) -> usize {
        let words = if self.wide() { 2 } else { 1 };
        self.m * self.n * self.blocks * words / LANES
    }

    /// The register (first of a pair for f64) and lane of `D[i][j]` of block `b`.
    fn d_at(&self, i: usize, j: usize, b: usize) -> (usize, usize) {
        if self.wide() {
            (2 * (i / 4), 16 * (i % 4) + self.n * b + j)
        } else {
            let groups = LANES / self.n;
            let q = b * self.m / 4 + i / 4;
            (4 * (q / groups) + i % 4, self.n * (q % groups) + j)
        }
    }
}

/// The shape of `op`, if it is a gfx90a MFMA.
fn shape(op: Opcode) -> Option<Shape> {
    use In::*;
    Some(match op {
        V_MFMA_F32_32X32X1F32 => Shape::new(32, 32, 1, 2, F32, 1),
        V_MFMA_F32_16X16X1F32 => Shape::new(16, 16, 1, 4, F32, 1),
        V_MFMA_F32_4X4X1F32 => Shape::new(4, 4, 1, 16, F32, 1),
        V_MFMA_F32_32X32X2F32 => Shape::new(32, 32, 2, 1, F32, 1),
        V_MFMA_F32_16X16X4F32 => Shape::new(16, 16, 4, 1, F32, 1),
        V_MFMA_F32_32X32X4F16 => Shape::new(32, 32, 4, 2, F16, 2),
        V_MFMA_F32_16X16X4F16 => Shape::new(16, 16, 4, 4, F16, 2),
        V_MFMA_F32_4X4X4F16 => Shape::new(4, 4, 4, 16, F16, 2),
        V_MFMA_F32_32X32X8F16 => Shape::new(32, 32, 8, 1, F16, 2),
        V_MFMA_F32_16X16X16F16 => Shape::new(16, 16, 16, 1, F16, 2),
        V_MFMA_I32_32X32X4I8 => Shape::new(32, 32, 4, 2, I8, 1),
        V_MFMA_I32_16X16X4I8 => Shape::new(16, 16, 4, 4, I8, 1),
        V_MFMA_I32_4X4X4I8 => Shape::new(4, 4, 4, 16, I8, 1),
        V_MFMA_I32_32X32X8I8 => Shape::new(32, 32, 8, 1, I8, 1),
        V_MFMA_I32_16X16X16I8 => Shape::new(16, 16, 16, 1, I8, 1),
        V_MFMA_F32_32X32X4BF16_1K => Shape::new(32, 32, 4, 2, Bf16, 2),
        V_MFMA_F32_16X16X4BF16_1K => Shape::new(16, 16, 4, 4, Bf16, 2),
        V_MFMA_F32_4X4X4BF16_1K => Shape::new(4, 4, 4, 16, Bf16, 2),
        V_MFMA_F32_32X32X8BF16_1K => Shape::new(32, 32, 8, 1, Bf16, 2),
        V_MFMA_F32_16X16X16BF16_1K => Shape::new(16, 16, 16, 1, Bf16, 2),
        V_MFMA_F32_32X32X2BF16 => Shape::new(32, 32, 2, 2, Bf16, 1),
        V_MFMA_F32_16X16X2BF16 => Shape::new(16, 16, 2, 4, Bf16, 1),
        V_MFMA_F32_4X4X2BF16 => Shape::new(4, 4, 2, 16, Bf16, 1),
        V_MFMA_F32_32X32X4BF16 => Shape::new(32, 32, 4, 1, Bf16, 1),
        V_MFMA_F32_16X16X8BF16 => Shape::new(16, 16, 8, 1, Bf16, 1),
        V_MFMA_F64_16X16X4F64 => Shape::new(16, 16, 4, 1, F64, 2),
        V_MFMA_F64_4X4X4F64 => Shape::new(4, 4, 4, 4, F64, 2),
        _ => return None,
    })
}

/// The lane B's lane `l` is read from under `blgp`.
fn blgp_lane(blgp: u8, l: usize) -> usize {
    match blgp {
        1 => l % 32,
        2 => 32 + l % 32,
        3 => (l + 16) % 64,
        4..=7 => 16 * usize::from(blgp - 4) + l % 16,
        _ => l,
    }
}

/// The A or B operand: `a_regs` dwords per lane as one u64.
fn operand(w: &Wave, s: Src, sh: &Shape) -> Result<[u64; LANES], Fault> {
    if sh.a_regs == 2 {
        w.read64(s, if sh.ty == In::F64 { Ty::F64 } else { Ty::B64 })
    } else {
        let ty = if sh.ty == In::F32 { Ty::F32 } else { Ty::B32 };
        let v = w.read32(s, ty)?;
        Ok(v.map(u64::from))
    }
}

/// Element `e` of a lane's operand bits as a value of the input type.
#[derive(Clone, Copy)]
enum Val {
    F(f32),
    D(f64),
    I(i32),
}

fn element(bits: u64, e: usize, ty: In) -> Val {
    let w = ty.bits() as usize;
    let x = if w == 64 {
        bits
    } else {
        (bits >> (w * e)) & ((1u64 << w) - 1)
    };
    match ty {
        In::F32 => Val::F(f32::from_bits(x as u32)),
        // gfx90a flushes f16/bf16 MFMA input denormals (see above).
        In::F16 => Val::F(f16_to_f32(if x & 0x7c00 == 0 {
            x as u16 & 0x8000
        } else {
            x as u16
        })),
        In::Bf16 => Val::F(f32::from_bits(flush32((x as u32) << 16))),
        In::I8 => Val::I(i32::from(x as u8 as i8)),
        In::F64 => Val::D(f64::from_bits(x)),
    }
}

/// The C operand as `d_regs` registers.
fn accumulator(w: &Wave, s: Src, sh: &Shape) -> Result<Vec<Lanes>, Fault> {
    let n = sh.d_regs();
    match s {
        Src::V(base) => (0..n as u16).map(|r| Ok(*w.vget(base + r)?)).collect(),
        other => {
            if sh.wide() {
                let v = w.scalar64(other, Ty::F64);
                Ok((0..n)
                    .map(|r| {
                        [if r % 2 == 0 {
                            v as u32
                        } else {
                            (v >> 32) as u32
                        }; LANES]
                    })
                    .collect())
            } else {
                let ty = if sh.ty == In::I8 { Ty::B32 } else { Ty::F32 };
                Ok(vec![[w.scalar32(other, ty); LANES]; n])
            }
        }
    }
}

fn mfma(w: &mut Wave, i: &Inst, _: &mut Ctx<'_>) -> Exec {
    let Some(sh) = shape(i.op) else {
        return Err(Box::new(Fault::Illegal {
            mnemonic: i.mnemonic(),
            pc: i.pc,
        }));
    };
    let m = i.mods;
    let multi = sh.blocks > 1 && !sh.wide();
    let max_cbsz = sh.blocks.trailing_zeros() as u8;
    let bad = if (m.cbsz != 0 || m.abid != 0) && !multi {
        Some("this form has no cbsz/abid")
    } else if m.cbsz > max_cbsz || usize::from(m.abid) >= 1 << m.cbsz {
        Some("cbsz/abid out of range")
    } else if m.blgp != 0 && sh.wide() {
        Some("the f64 forms have no blgp on gfx90a")
    } else {
        None
    };
    if let Some(why) = bad {
        return Err(Box::new(Fault::Illegal {
            mnemonic: format!(
                "{} with cbsz:{} abid:{} blgp:{} ({why})",
                i.mnemonic(),
                m.cbsz,
                m.abid,
                m.blgp
            ),
            pc: i.pc,
        }));
    }
    let mut a = operand(w, i.src[0], &sh)?;
    let mut b = operand(w, i.src[1], &sh)?;
    if m.cbsz != 0 {
        // Multi-block forms have one lane group per block: lane M*b + i.
        let src = a;
        for l in 0..LANES {
            let blk = l / sh.m;
            let from = ((blk >> m.cbsz) << m.cbsz) + usize::from(m.abid);
            a[l] = src[sh.m * from + l % sh.m];
        }
    }
    if m.blgp != 0 {
        let src = b;
        for l in 0..LANES {
            b[l] = src[blgp_lane(m.blgp, l)];
        }
    }
    let mut d = accumulator(w, i.src[2], &sh)?;
    let flush_out = matches!(sh.ty, In::F16 | In::Bf16);
    for blk in 0..sh.blocks {
        for row in 0..sh.m {
            for col in 0..sh.n {
                let (r, lane) = sh.d_at(row, col, blk);
                let c = if sh.wide() {
                    u64::from(d[r][lane]) | (u64::from(d[r + 1][lane]) << 32)
                } else {
                    u64::from(d[r][lane])
                };
                let mut acc = match sh.ty {
                    In::F64 => Val::D(f64::from_bits(c)),
                    In::I8 => Val::I(c as u32 as i32),
                    _ => Val::F(f32::from_bits(c as u32)),
                };
                for k in 0..sh.k {
                    let (la, ea) = sh.a_at(row, k, blk);
                    let (lb, eb) = sh.a_at(col, k, blk);
                    let x = element(a[la], ea, sh.ty);
                    let y = element(b[lb], eb, sh.ty);
                    acc = match (acc, x, y) {
                        (Val::F(s), Val::F(x), Val::F(y)) => Val::F(x.mul_add(y, s)),
                        (Val::D(s), Val::D(x), Val::D(y)) => Val::D(x.mul_add(y, s)),
                        (Val::I(s), Val::I(x), Val::I(y)) => {
                            Val::I(s.wrapping_add(x.wrapping_mul(y)))
                        }
                        _ => {
                            return Err(Box::new(Fault::Abort(
                                "MFMA element types disagree".into(),
                            )));
                        }
                    };
                }
                match acc {
                    Val::F(v) if flush_out => d[r][lane] = flush32(v.to_bits()),
                    Val::F(v) => d[r][lane] = v.to_bits(),
                    Val::I(v) => d[r][lane] = v as u32,
                    Val::D(v) => {
                        let bits = v.to_bits();
                        d[r][lane] = bits as u32;
                        d[r + 1][lane] = (bits >> 32) as u32;
                    }
                }
            }
        }
    }
    let Dst::V(base) = i.vdst else {
        return Err(Box::new(Fault::Abort(format!(
            "{}: the MFMA result is not a register range",
            i.mnemonic()
        ))));
    };
    for (r, val) in d.iter().enumerate() {
        w.write32(Dst::V(base + r as u16), val)?;
    }
    Ok(Flow::Next)
}

/// The handler of an MFMA operation.
pub(crate) fn handler(op: Opcode) -> Option<ExecFn> {
    shape(op).map(|_| mfma as ExecFn)
}
