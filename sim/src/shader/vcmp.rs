//! Vector compares (VOPC and their VOP3 forms): `v_cmp_*` writes a lane
//! mask to VCC (or the VOP3 `sdst`), `v_cmpx_*` also to EXEC; lanes EXEC
//! disables read 0. Float conditions are IEEE (ordered ones are false on
//! NaN, the `n*`/`u` ones true), after `abs`/`neg` and the input denormal
//! flush; `v_cmp_class_*` tests the class mask in `s1` (bit 0 signalling
//! NaN, 1 quiet NaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7
//! +denormal, 8 +normal, 9 +inf).
//!
//! One generic function per (type, condition, writes-EXEC), chosen by the
//! mnemonic once at decode.

use isa::Opcode;

use super::program::{EXEC, ExecFn, Inst};
use super::vf32::{Env, flush32};
use super::wave::{LANES, Ty, Wave};
use super::{Ctx, Exec, Flow};

const F16: u8 = 0;
const F32: u8 = 1;
const F64: u8 = 2;
const I16: u8 = 3;
const U16: u8 = 4;
const I32: u8 = 5;
const U32: u8 = 6;
const I64: u8 = 7;
const U64: u8 = 8;

/// Condition codes: float ones 0-15 (F, LT, EQ, LE, GT, LG, GE, O, U, NGE,
/// NLG, NGT, NLE, NEQ, NLT, TRU), integer ones 0-7 (F, LT, EQ, LE, GT, NE,
/// GE, T), class 16.
const CLASS: u8 = 16;

fn float_cond(c: u8, a: f64, b: f64) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let o = a.partial_cmp(&b);
    match c {
        0 => false,
        1 => o == Some(Less),
        2 => o == Some(Equal),
        3 => matches!(o, Some(Less | Equal)),
        4 => o == Some(Greater),
        5 => matches!(o, Some(Less | Greater)),
        6 => matches!(o, Some(Greater | Equal)),
        7 => o.is_some(),
        8 => o.is_none(),
        9 => !matches!(o, Some(Greater | Equal)),
        10 => !matches!(o, Some(Less | Greater)),
        11 => o != Some(Greater),
        12 => !matches!(o, Some(Less | Equal)),
        13 => o != Some(Equal),
        14 => o != Some(Less),
        _ => true,
    }
}

fn int_cond<T: Ord>(c: u8, a: T, b: T) -> bool {
    match c {
        0 => false,
        1 => a < b,
        2 => a == b,
        3 => a <= b,
        4 => a > b,
        5 => a != b,
        6 => a >= b,
        _ => true,
    }
}

/// The class bit of `x` (bits as in the module doc).
fn class_bit(x: f64, snan: bool) -> u32 {
    if x.is_nan() {
        return if snan { 0 } else { 1 };
    }
    let neg = x.is_sign_negative();
    let k = if x.is_infinite() {
        if neg { 2 } else { 9 }
    } else if x == 0.0 {
        if neg { 5 } else { 6 }
    } else if x.is_subnormal() {
        if neg { 4 } else { 7 }
    } else if neg {
        3
    } else {
        8
    };
    1 << k
}

fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f64::from(h & 0x3ff);
    match e {
        0 => sign * m * 2f64.powi(-24),
        31 => {
            if m == 0.0 {
                sign * f64::INFINITY
            } else {
                f64::NAN
            }
        }
        _ => sign * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

/// Applies `abs`/`neg` (bit `k`) to raw float bits of width `bits`.
fn modify(x: u64, k: u8, i: &Inst, bits: u32) -> u64 {
    let sign = 1u64 << (bits - 1);
    let mut x = x;
    if i.mods.abs >> k & 1 != 0 {
        x &= !sign;
    }
    if i.mods.neg >> k & 1 != 0 {
        x ^= sign;
    }
    x
}

fn cmp<const T: u8, const C: u8, const X: bool>(w: &mut Wave, i: &Inst, _: &mut Ctx<'_>) -> Exec {
    let mut mask = 0u64;
    match T {
        F32 | F16 => {
            let a = w.read32(i.src[0], if T == F16 { Ty::F16 } else { Ty::F32 })?;
            let b = w.read32(i.src[1], if T == F16 { Ty::F16 } else { Ty::F32 })?;
            let env = if T == F32 { Env::f32(w) } else { Env::f64(w) };
            for l in 0..LANES {
                let (x, snan) = if T == F32 {
                    let mut v = modify(u64::from(a[l]), 0, i, 32) as u32;
                    if env.flush_in {
                        v = flush32(v);
                    }
                    let f = f32::from_bits(v);
                    (f64::from(f), f.is_nan() && v & 0x0040_0000 == 0)
                } else {
                    let v = modify(u64::from(a[l] & 0xffff), 0, i, 16) as u16;
                    (
                        f16_to_f64(v),
                        v & 0x7c00 == 0x7c00 && v & 0x3ff != 0 && v & 0x200 == 0,
                    )
                };
                let hit = if C == CLASS {
                    class_bit(x, snan) & b[l] != 0
                } else {
                    let y = if T == F32 {
                        let mut v = modify(u64::from(b[l]), 1, i, 32) as u32;
                        if env.flush_in {
                            v = flush32(v);
                        }
                        f64::from(f32::from_bits(v))
                    } else {
                        f16_to_f64(modify(u64::from(b[l] & 0xffff), 1, i, 16) as u16)
                    };
                    float_cond(C, x, y)
                };
                mask |= u64::from(hit) << l;
            }
        }
        F64 => {
            let a = w.read64(i.src[0], Ty::F64)?;
            let env = Env::f64(w);
            let fl = |v: u64| {
                if env.flush_in && v & 0x7ff0_0000_0000_0000 == 0 {
                    v & (1 << 63)
                } else {
                    v
                }
            };
            if C == CLASS {
                let b = w.read32(i.src[1], Ty::B32)?;
                for l in 0..LANES {
                    let v = fl(modify(a[l], 0, i, 64));
                    let x = f64::from_bits(v);
                    let snan = x.is_nan() && v & (1 << 51) == 0;
                    mask |= u64::from(class_bit(x, snan) & b[l] != 0) << l;
                }
            } else {
                let b = w.read64(i.src[1], Ty::F64)?;
                for l in 0..LANES {
                    let x = f64::from_bits(fl(modify(a[l], 0, i, 64)));
                    let y = f64::from_bits(fl(modify(b[l], 1, i, 64)));
                    mask |= u64::from(float_cond(C, x, y)) << l;
                }
            }
        }
        I16 | U16 | I32 | U32 => {
            // Sources in place, one flag per lane, packed after: the
            // compare loop vectorises.
            let [a, b] = w.read32_refs([i.src[0], i.src[1]], Ty::B32)?;
            let mut hits = [0u8; LANES];
            for l in 0..LANES {
                let hit = match T {
                    I16 => int_cond(C, a[l] as i16, b[l] as i16),
                    U16 => int_cond(C, a[l] as u16, b[l] as u16),
                    I32 => int_cond(C, a[l] as i32, b[l] as i32),
                    _ => int_cond(C, a[l], b[l]),
                };
                hits[l] = u8::from(hit);
            }
            mask = super::vint::pack_bits(&hits);
        }
        _ => {
            let a = w.read64(i.src[0], Ty::B64)?;
            let b = w.read64(i.src[1], Ty::B64)?;
            for l in 0..LANES {
                let hit = if T == I64 {
                    int_cond(C, a[l] as i64, b[l] as i64)
                } else {
                    int_cond(C, a[l], b[l])
                };
                mask |= u64::from(hit) << l;
            }
        }
    }
    let mask = mask & w.exec();
    w.write_mask(i.sdst, mask);
    if X {
        w.set_s64(EXEC, mask);
    }
    Ok(Flow::Next)
}

fn pick<const T: u8, const X: bool>(c: u8) -> ExecFn {
    macro_rules! conds {
        ($($n:literal)*) => {
            match c {
                $($n => cmp::<T, $n, X>,)*
                _ => cmp::<T, CLASS, X>,
            }
        };
    }
    conds!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
}

/// A compare's mnemonic `v_cmp[x]_<cond>_<type>` as (writes EXEC,
/// condition, type).
pub(crate) fn split_name(op: Opcode) -> Option<(bool, &'static str, &'static str)> {
    let name = op.name();
    let (x, rest) = if let Some(r) = name.strip_prefix("v_cmpx_") {
        (true, r)
    } else {
        (false, name.strip_prefix("v_cmp_")?)
    };
    let (cond, ty) = rest.rsplit_once('_')?;
    Some((x, cond, ty))
}

/// The handler of a compare, from its mnemonic (`v_cmp[x]_<cond>_<type>`).
pub(crate) fn handler(op: Opcode) -> Option<ExecFn> {
    let (x, cond, ty) = split_name(op)?;
    let t = match ty {
        "f16" => F16,
        "f32" => F32,
        "f64" => F64,
        "i16" => I16,
        "u16" => U16,
        "i32" => I32,
        "u32" => U32,
        "i64" => I64,
        "u64" => U64,
        _ => return None,
    };
    let float = matches!(t, F16 | F32 | F64);
    let c = if cond == "class" {
        if !float {
            return None;
        }
        CLASS
    } else if float {
        [
            "f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq",
            "nlt", "tru",
        ]
        .iter()
        .position(|&n| n == cond)? as u8
    } else {
        ["f", "lt", "eq", "le", "gt", "ne", "ge", "t"]
            .iter()
            .position(|&n| n == cond)? as u8
    };
    macro_rules! types {
        ($($t:ident)*) => {
            match (t, x) {
                $(($t, false) => pick::<$t, false>(c), ($t, true) => pick::<$t, true>(c),)*
                _ => return None,
            }
        };
    }
    Some(types!(F16 F32 F64 I16 U16 I32 U32 I64 U64))
}
