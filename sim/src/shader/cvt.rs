//! Conversions between f32, f64, f16 and integers (VOP1/VOP3 `v_cvt_*`).
//! Float to integer truncates toward zero, saturates and turns NaN into 0
//! (what Rust's `as` does too); integer to float and narrowing float
//! conversions round to nearest even. f16 results go to the low half with
//! the high half zeroed (GFX9); `v_cvt_f32_f16` reads the half `op_sel`
//! selects.

use isa::Opcode::{self, *};

use super::program::{ExecFn, Inst};
use super::vf32::{Env, flush32, output};
use super::vmem::{f16_to_f32, f32_to_f16};
use super::wave::{LANES, Ty, Wave};
use super::{Exec, Flow};

fn f(x: ExecFn) -> Option<ExecFn> {
    Some(x)
}

/// f32 source 0 after `abs`/`neg` and the f32 input flush.
fn src_f32(x: u32, i: &Inst, env: Env) -> f32 {
    let mut x = x;
    if i.mods.abs & 1 != 0 {
        x &= 0x7fff_ffff;
    }
    if i.mods.neg & 1 != 0 {
        x ^= 0x8000_0000;
    }
    f32::from_bits(if env.flush_in { flush32(x) } else { x })
}

fn src_f64(x: u64, i: &Inst) -> f64 {
    let mut x = x;
    if i.mods.abs & 1 != 0 {
        x &= !(1 << 63);
    }
    if i.mods.neg & 1 != 0 {
        x ^= 1 << 63;
    }
    f64::from_bits(x)
}

/// 32 bits in, 32 bits out.
fn c32(w: &mut Wave, i: &Inst, ty: Ty, op: impl Fn(u32, &Inst) -> u32) -> Exec {
    let a = w.read32(i.src[0], ty)?;
    let mut d = [0u32; LANES];
    for l in 0..LANES {
        d[l] = op(a[l], i);
    }
    w.write32(i.vdst, &d)?;
    Ok(Flow::Next)
}

/// 64 bits in, 32 bits out.
fn c64_32(w: &mut Wave, i: &Inst, op: impl Fn(u64, &Inst) -> u32) -> Exec {
    let a = w.read64(i.src[0], Ty::F64)?;
    let mut d = [0u32; LANES];
    for l in 0..LANES {
        d[l] = op(a[l], i);
    }
    w.write32(i.vdst, &d)?;
    Ok(Flow::Next)
}

/// 32 bits in, 64 bits out.
fn c32_64(w: &mut Wave, i: &Inst, ty: Ty, op: impl Fn(u32, &Inst) -> u64) -> Exec {
    let a = w.read32(i.src[0], ty)?;
    let mut d = [0u64; LANES];
    for l in 0..LANES {
        d[l] = op(a[l], i);
    }
    w.write64(i.vdst, &d)?;
    Ok(Flow::Next)
}

fn f64_out(r: f64, i: &Inst) -> u64 {
    let mut r = r;
    match i.mods.omod {
        1 => r *= 2.0,
        2 => r *= 4.0,
        3 => r *= 0.5,
        _ => {}
    }
    if i.mods.clamp && !r.is_nan() {
        r = r.clamp(0.0, 1.0) + 0.0;
    }
    r.to_bits()
}

/// Two 32-bit sources packed into one result (`v_cvt_pk*`).
fn pack(w: &mut Wave, i: &Inst, op: impl Fn(u32, u32) -> u32) -> Exec {
    let a = w.read32(i.src[0], Ty::F32)?;
    let b = w.read32(i.src[1], Ty::F32)?;
    let mut d = [0u32; LANES];
    for l in 0..LANES {
        d[l] = op(a[l], b[l]);
    }
    w.write32(i.vdst, &d)?;
    Ok(Flow::Next)
}

/// f32 to f16 rounding toward zero (`v_cvt_pkrtz_f16_f32`).
fn f32_to_f16_rtz(x: f32) -> u16 {
    let h = f32_to_f16(x);
    if x.is_nan() || x.is_infinite() {
        return h;
    }
    // Step back one f16 ulp when rounding went away from zero.
    let back = f16_to_f32(h);
    if back.abs() > x.abs() {
        if h & 0x7fff == 0x7c00 {
            (h & 0x8000) | 0x7bff
        } else {
            h - 1
        }
    } else {
        h
    }
}

/// The handler of a conversion.
pub(crate) fn handler(op: Opcode) -> Option<ExecFn> {
    match op {
        V_CVT_F32_I32 => f(|w, i, _| {
            let e = Env::f32(w);
            c32(w, i, Ty::B32, move |a, i| output(a as i32 as f32, i, e))
        }),
        V_CVT_F32_U32 => f(|w, i, _| {
            let e = Env::f32(w);
            c32(w, i, Ty::B32, move |a, i| output(a as f32, i, e))
        }),
        V_CVT_I32_F32 => f(|w, i, _| {
            let e = Env::f32(w);
            c32(w, i, Ty::F32, move |a, i| src_f32(a, i, e) as i32 as u32)
        }),
        V_CVT_U32_F32 => f(|w, i, _| {
            let e = Env::f32(w);
            c32(w, i, Ty::F32, move |a, i| src_f32(a, i, e) as u32)
        }),
        V_CVT_FLR_I32_F32 => f(|w, i, _| {
            let e = Env::f32(w);
            c32(w, i, Ty::F32, move |a, i| {
                src_f32(a, i, e).floor() as i32 as u32
            })
        }),
        V_CVT_RPI_I32_F32 => f(|w, i, _| {
            let e = Env::f32(w);
            c32(w, i, Ty::F32, move |a, i| {
                (src_f32(a, i, e) + 0.5).floor() as i32 as u32
            })
        }),
        V_CVT_F32_UBYTE0 => f(|w, i, _| {
            let e = Env::f32(w);
            c32(w, i, Ty::B32, move |a, i| output((a & 0xff) as f32, i, e))
        }),
        V_CVT_F32_UBYTE1 => f(|w, i, _| {
            let e = Env::f32(w);
            c32(w, i, Ty::B32, move |a, i| {
                output(((a >> 8) & 0xff) as f32, i, e)
            })
        }),
        V_CVT_F32_UBYTE2 => f(|w, i, _| {
            let e = Env::f32(w);
            c32(w, i, Ty::B32, move |a, i| {
                output(((a >> 16) & 0xff) as f32, i, e)
            })
        }),
        V_CVT_F32_UBYTE3 => f(|w, i, _| {
            let e = Env::f32(w);
            c32(w, i, Ty::B32, move |a, i| output((a >> 24) as f32, i, e))
        }),
        V_CVT_OFF_F32_I4 => f(|w, i, _| {
            let e = Env::f32(w);
            c32(w, i, Ty::B32, move |a, i| {
                output(((a as i32) << 28 >> 28) as f32 / 16.0, i, e)
            })
        }),
        V_CVT_F64_F32 => f(|w, i, _| {
            let e = Env::f32(w);
            c32_64(w, i, Ty::F32, move |a, i| {
                f64_out(f64::from(src_f32(a, i, e)), i)
            })
        }),
        V_CVT_F64_I32 => f(|w, i, _| c32_64(w, i, Ty::B32, |a, i| f64_out(f64::from(a as i32), i))),
        V_CVT_F64_U32 => f(|w, i, _| c32_64(w, i, Ty::B32, |a, i| f64_out(f64::from(a), i))),
        V_CVT_F32_F64 => f(|w, i, _| {
            let e = Env::f32(w);
            c64_32(w, i, move |a, i| output(src_f64(a, i) as f32, i, e))
        }),
        V_CVT_I32_F64 => f(|w, i, _| c64_32(w, i, |a, i| src_f64(a, i) as i32 as u32)),
        V_CVT_U32_F64 => f(|w, i, _| c64_32(w, i, |a, i| src_f64(a, i) as u32)),
        V_CVT_F16_F32 => f(|w, i, _| {
            let e = Env::f32(w);
            c32(w, i, Ty::F32, move |a, i| {
                u32::from(f32_to_f16(src_f32(a, i, e)))
            })
        }),
        V_CVT_F32_F16 => f(|w, i, _| {
            let e = Env::f32(w);
            c32(w, i, Ty::F16, move |a, i| {
                let h = if i.mods.op_sel & 1 != 0 { a >> 16 } else { a };
                let mut h = h as u16;
                if i.mods.abs & 1 != 0 {
                    h &= 0x7fff;
                }
                if i.mods.neg & 1 != 0 {
                    h ^= 0x8000;
                }
                output(f16_to_f32(h), i, e)
            })
        }),
        V_CVT_PKRTZ_F16_F32 => f(|w, i, _| {
            pack(w, i, |a, b| {
                u32::from(f32_to_f16_rtz(f32::from_bits(a)))
                    | (u32::from(f32_to_f16_rtz(f32::from_bits(b))) << 16)
            })
        }),
        V_CVT_PK_U16_U32 => f(|w, i, _| pack(w, i, |a, b| a.min(0xffff) | (b.min(0xffff) << 16))),
        V_CVT_PK_I16_I32 => f(|w, i, _| {
            pack(w, i, |a, b| {
                let s = |x: u32| u32::from((x as i32).clamp(-32768, 32767) as i16 as u16);
                s(a) | (s(b) << 16)
            })
        }),
        _ => None,
    }
}
