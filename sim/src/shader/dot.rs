//! Dot products of gfx90a: the VOP3P `v_dot2_f32_f16`, `v_dot2_i32_i16`,
//! `v_dot2_u32_u16`, `v_dot4_i32_i8`, `v_dot4_u32_u8`, `v_dot8_i32_i4`,
//! `v_dot8_u32_u4` (`D = sum of the lane's element products + S2`) and
//! the VOP2 accumulating forms `v_dot2c_f32_f16`, `v_dot2c_i32_i16`,
//! `v_dot4c_i32_i8`, `v_dot8c_i32_i4` (`D = sum + D`; their VOP3 `_e64`
//! and `_dpp` encodings too).
//!
//! Elements are packed from the low bits up (element 0 in bits 7:0 of a
//! dword of i8, ...). For the 16-bit VOP3P forms, `op_sel` / `op_sel_hi`
//! pick the half that feeds element 0 / element 1 of sources 0 and 1, and
//! for `v_dot2_f32_f16` `neg_lo` / `neg_hi` negate those f16 elements;
//! `neg_lo` of source 2 negates the f32 addend. `op_sel` of the 8-bit and
//! 4-bit forms is ignored.
//!
//! Integer sums are formed exactly (in i64/u64); without `clamp` the result
//! wraps modulo 2^32, with `clamp` it saturates to the i32 (signed forms) or
//! u32 (unsigned forms) range. `v_dot2_f32_f16` forms the products and their
//! sum with the addend in f64 and rounds once to f32 (each f16 product is
//! exact in f64; the sum is exact, so the result is the correctly rounded
//! dot product, whenever the three terms lie within about 29 binades of each other),
//! f16 denormal inputs and a denormal f32 result are flushed to a zero of
//! the same sign whatever MODE says (AMD: on MI200 "the FP16 and BF16 V_DOT2
//! and MFMA matrix instructions flush input and output denormal values to
//! zero", onnxruntime PR 13352); the f32 addend is not flushed on input;
//! `clamp` clamps to [0, 1] like other f32 results. Whether the hardware rounds
//! the intermediate sum is not established here; the tests use values whose
//! sums are exact.
//!
//! The VOP2/VOP3/DPP `c` forms take no source modifiers here: a `neg` or
//! `abs` bit on them is an illegal-instruction fault naming the mnemonic
//! (`clamp` and `omod` of their VOP3 form apply as above).

use isa::Opcode::{self, *};

use super::program::{Dst, ExecFn, Inst};
use super::vf32::{Env, output};
use super::vmem::f16_to_f32;
use super::wave::{LANES, Lanes, Ty, Wave};
use super::{Ctx, Exec, Fault, Flow};

/// An integer dot product's element width and signedness.
#[derive(Clone, Copy)]
struct IntDot {
    bits: u32,
    signed: bool,
}

impl IntDot {
    fn elem(self, x: u32, e: u32) -> i64 {
        let v = (x >> (self.bits * e)) & ((1u32 << self.bits) - 1);
        if self.signed {
            let sh = 32 - self.bits;
            i64::from(((v << sh) as i32) >> sh)
        } else {
            i64::from(v)
        }
    }

    /// `a . b + c` of one lane, wrapped or (clamp) saturated to 32 bits.
    fn dot(self, a: u32, b: u32, c: u32, clamp: bool) -> u32 {
        let n = 32 / self.bits;
        let mut s: i64 = if self.signed {
            i64::from(c as i32)
        } else {
            i64::from(c)
        };
        for e in 0..n {
            s += self.elem(a, e) * self.elem(b, e);
        }
        if !clamp {
            s as u32
        } else if self.signed {
            s.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32 as u32
        } else {
            s.clamp(0, i64::from(u32::MAX)) as u32
        }
    }
}

/// Sources 0 and 1 of a 16-bit VOP3P dot with `op_sel`/`op_sel_hi`
/// applied: element 0 in the low half, element 1 in the high half.
fn select16(x: u32, k: u8, i: &Inst) -> u32 {
    let m = i.mods;
    let half = |sel: u8| (x >> if sel >> k & 1 != 0 { 16 } else { 0 }) & 0xffff;
    half(m.op_sel) | (half(m.op_sel_hi) << 16)
}

fn read2(w: &Wave, i: &Inst, ty: Ty) -> Result<[Lanes; 2], Fault> {
    Ok([w.read32(i.src[0], ty)?, w.read32(i.src[1], ty)?])
}

/// The accumulator: source 2 (VOP3P forms) or the destination (`c` forms).
fn addend(w: &Wave, i: &Inst, c_form: bool, ty: Ty) -> Result<Lanes, Fault> {
    if c_form {
        match i.vdst {
            Dst::V(r) => Ok(*w.vget(r)?),
            _ => Err(Fault::Abort(format!(
                "{}: the destination is not a VGPR",
                i.mnemonic()
            ))),
        }
    } else {
        w.read32(i.src[2], ty)
    }
}

fn no_mods(i: &Inst) -> Result<(), Fault> {
    if i.mods.neg != 0 || i.mods.abs != 0 {
        return Err(Fault::Illegal {
            mnemonic: format!("{} with source modifiers (not implemented)", i.mnemonic()),
            pc: i.pc,
        });
    }
    Ok(())
}

fn int_dot(w: &mut Wave, i: &Inst, d: IntDot, c_form: bool) -> Exec {
    if c_form {
        no_mods(i)?;
    }
    let [mut a, mut b] = read2(w, i, Ty::B32)?;
    if d.bits == 16 && !c_form {
        for l in 0..LANES {
            a[l] = select16(a[l], 0, i);
            b[l] = select16(b[l], 1, i);
        }
    }
    let c = addend(w, i, c_form, Ty::B32)?;
    let clamp = i.mods.clamp;
    let mut out = [0u32; LANES];
    for l in 0..LANES {
        out[l] = d.dot(a[l], b[l], c[l], clamp);
    }
    w.write32(i.vdst, &out)?;
    Ok(Flow::Next)
}

fn dot2_f16(w: &mut Wave, i: &Inst, c_form: bool) -> Exec {
    if c_form {
        no_mods(i)?;
    }
    let [a, b] = read2(w, i, Ty::F16)?;
    let c = addend(w, i, c_form, Ty::F32)?;
    let env = Env {
        flush_out: true,
        ..Env::f32(w)
    };
    let m = i.mods;
    let mut out = [0u32; LANES];
    for l in 0..LANES {
        let (mut x, mut y) = (a[l], b[l]);
        if !c_form {
            x = select16(x, 0, i);
            y = select16(y, 1, i);
        }
        let el = |v: u32, k: u8, e: u32| {
            let mut h = (v >> (16 * e)) as u16;
            if h & 0x7c00 == 0 {
                h &= 0x8000;
            }
            let neg = if e == 0 { m.neg } else { m.abs };
            if !c_form && neg >> k & 1 != 0 {
                h ^= 0x8000;
            }
            f64::from(f16_to_f32(h))
        };
        let mut cf = f64::from(f32::from_bits(c[l]));
        if !c_form && m.neg & 4 != 0 {
            cf = -cf;
        }
        let s = el(x, 0, 0) * el(y, 1, 0) + el(x, 0, 1) * el(y, 1, 1) + cf;
        let r = s as f32;
        out[l] = output(r, i, env);
    }
    w.write32(i.vdst, &out)?;
    Ok(Flow::Next)
}

const fn id(bits: u32, signed: bool) -> IntDot {
    IntDot { bits, signed }
}

/// The handler of a dot-product operation.
pub(crate) fn handler(op: Opcode) -> Option<ExecFn> {
    let f: ExecFn = match op {
        V_DOT2_F32_F16 => |w, i, _: &mut Ctx<'_>| dot2_f16(w, i, false),
        V_DOT2C_F32_F16 => |w, i, _: &mut Ctx<'_>| dot2_f16(w, i, true),
        V_DOT2_I32_I16 => |w, i, _: &mut Ctx<'_>| int_dot(w, i, id(16, true), false),
        V_DOT2_U32_U16 => |w, i, _: &mut Ctx<'_>| int_dot(w, i, id(16, false), false),
        V_DOT2C_I32_I16 => |w, i, _: &mut Ctx<'_>| int_dot(w, i, id(16, true), true),
        V_DOT4_I32_I8 => |w, i, _: &mut Ctx<'_>| int_dot(w, i, id(8, true), false),
        V_DOT4_U32_U8 => |w, i, _: &mut Ctx<'_>| int_dot(w, i, id(8, false), false),
        V_DOT4C_I32_I8 => |w, i, _: &mut Ctx<'_>| int_dot(w, i, id(8, true), true),
        V_DOT8_I32_I4 => |w, i, _: &mut Ctx<'_>| int_dot(w, i, id(4, true), false),
        V_DOT8_U32_U4 => |w, i, _: &mut Ctx<'_>| int_dot(w, i, id(4, false), false),
        V_DOT8C_I32_I4 => |w, i, _: &mut Ctx<'_>| int_dot(w, i, id(4, true), true),
        _ => return None,
    };
    Some(f)
}
