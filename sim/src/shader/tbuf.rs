//! Typed buffer memory: MUBUF `buffer_load_format_*` /
//! `buffer_store_format_*` (the format in the V#: NUM_FORMAT word 3
//! [14:12], DATA_FORMAT [18:15]) and MTBUF `tbuffer_load_format_*` /
//! `tbuffer_store_format_*` (the instruction's `dfmt`/`nfmt`), addressed as
//! the untyped MUBUF forms (`mubuf`), with their `d16` forms (two 16-bit
//! components per VGPR, `d16_hi_x` the high half) and the `lds` form of
//! `buffer_load_format_x` (`mubuf::lds_form`).
//!
//! Formats (GFX9 `BUF_DATA_FORMAT_*`): the per-component 8, 16, 8_8, 32,
//! 16_16, 8_8_8_8, 32_32, 16_16_16_16, 32_32_32, 32_32_32_32, each
//! component range-checked alone, and the packed one-dword ones, named
//! most significant component first (as Mesa's
//! `ac_translate_buffer_dataformat` maps R11G11B10_FLOAT to 10_11_11 and
//! R10G10B10A2 to 2_10_10_10): 10_11_11 (x [10:0], y [21:11], z [31:22]),
//! 11_11_10 (x [9:0], y [20:10], z [31:21]), 10_10_10_2 (x [1:0], y
//! [11:2], z [21:12], w [31:22]), 2_10_10_10 (x [9:0], y [19:10], z
//! [29:20], w [31:30]), range-checked as one 4-byte element. Number
//! formats (`BUF_NUM_FORMAT_*`) UNORM, SNORM, USCALED, SSCALED, UINT,
//! SINT with every data format; FLOAT with 16 and 32-bit components and
//! the 10/11-bit unsigned floats of 10_11_11 and 11_11_10 (5-bit exponent,
//! 5/6-bit mantissa, no sign, as R11G11B10_FLOAT). GFX9 defines no 8-bit
//! or 2-bit float: FLOAT with 8, 8_8, 8_8_8_8, 10_10_10_2 or 2_10_10_10,
//! and the reserved codes (data formats 0 and 15, number format 6) fault
//! as illegal instructions naming the format.
//!
//! Load conversions: UNORM `x / (2^b - 1)`, SNORM `max(x / (2^(b-1) - 1),
//! -1)`, U/SSCALED the integer as f32, U/SINT zero/sign extended, FLOAT
//! widened exactly or f32 as is; each correctly rounded from the exact
//! value (the hardware's rounding of the normalised forms is not
//! documented to the bit). `d16` loads give each component as 16 bits:
//! the same value rounded to f16 (nearest even) for the float-valued
//! formats, the low 16 bits of the integer for U/SINT; the high half of a
//! VGPR no component fills (`d16_x`, `d16_xyz`) and the low half under
//! `d16_hi_x` are kept. A component past the format's is 0 (x, y, z) or
//! 1 / 1.0 (w); a component out of the V#'s range is 0. The V#'s
//! DST_SEL_X/Y/Z/W (word 3 [2:0], [5:3], [8:6], [11:9]: 0 = 0, 1 = 1 /
//! 1.0, 4..7 = the format's x..w; 2 and 3 reserved, a fault) then pick
//! what each instruction component gets, for the MUBUF and MTBUF loads
//! alike (MTBUF overrides only the format). Stores do not swizzle.
//!
//! Store conversions: UNORM/SNORM clamp then scale and round to nearest
//! even, U/SSCALED float to integer with saturation, U/SINT the low bits,
//! FLOAT f32 to f16 / the 10/11-bit unsigned float (negative and -0 to 0,
//! NaN stays NaN, overflow to infinity) round to nearest even, or f32 as
//! is; `d16` stores take each component as f16 (float-valued formats) or
//! as a 16-bit integer zero/sign extended (U/SINT). Only the components
//! both the instruction and the format have are written; a packed format
//! is written as a whole dword, so storing fewer components than it has
//! faults (what the hardware writes for the others is not documented).

use isa::Opcode;

use super::program::{Dst, Inst, Src};
use super::vmem::{f16_to_f32, f32_to_f16};
use super::wave::{LANES, Wave};
use super::{Ctx, Exec, Fault, Flow};

/// Number formats.
const UNORM: u8 = 0;
const SNORM: u8 = 1;
const USCALED: u8 = 2;
const SSCALED: u8 = 3;
const UINT: u8 = 4;
const SINT: u8 = 5;
const FLOAT: u8 = 7;

/// A data format's layout.
#[derive(Clone, Copy)]
struct Layout {
    /// Components.
    comps: usize,
    /// Bits of each component.
    bits: [u32; 4],
    /// One 4-byte element holding every component at `shift`, else each
    /// component `bits / 8` bytes after the previous one.
    packed: bool,
    /// Bit position of each component in a packed element.
    shift: [u32; 4],
}

/// The layout of a data format, if it has one.
fn layout(dfmt: u8) -> Option<Layout> {
    let plain = |comps, bits| Layout {
        comps,
        bits: [bits; 4],
        packed: false,
        shift: [0; 4],
    };
    let packed = |comps, bits: [u32; 4]| {
        let mut shift = [0; 4];
        for c in 1..4 {
            shift[c] = shift[c - 1] + bits[c - 1];
        }
        Layout {
            comps,
            bits,
            packed: true,
            shift,
        }
    };
    Some(match dfmt {
        1 => plain(1, 8),
        2 => plain(1, 16),
        3 => plain(2, 8),
        4 => plain(1, 32),
        5 => plain(2, 16),
        6 => packed(3, [11, 11, 10, 0]),
        7 => packed(3, [10, 11, 11, 0]),
        8 => packed(4, [2, 10, 10, 10]),
        9 => packed(4, [10, 10, 10, 2]),
        10 => plain(4, 8),
        11 => plain(2, 32),
        12 => plain(4, 16),
        13 => plain(3, 32),
        14 => plain(4, 32),
        _ => return None,
    })
}

/// Whether number format `nfmt` is defined for a component of `bits` bits.
fn valid(nfmt: u8, bits: u32) -> bool {
    match nfmt {
        UNORM | SNORM | USCALED | SSCALED | UINT | SINT => true,
        FLOAT => matches!(bits, 10 | 11 | 16 | 32),
        _ => false,
    }
}

/// An unsigned float of `bits` (10 or 11: 5-bit exponent, bias 15) as f32
/// (exact).
fn ufloat_to_f32(raw: u32, bits: u32) -> f32 {
    let mbits = bits - 5;
    let e = (raw >> mbits) & 0x1f;
    let m = raw & ((1 << mbits) - 1);
    match e {
        0 => m as f32 * 2f32.powi(-14 - mbits as i32),
        31 if m == 0 => f32::INFINITY,
        31 => f32::from_bits(0x7fc0_0000 | (m << (23 - mbits))),
        _ => (1.0 + m as f32 / (1 << mbits) as f32) * 2f32.powi(e as i32 - 15),
    }
}

/// f32 as an unsigned float of `bits` (10 or 11), round to nearest even:
/// negative values and -0 give 0, NaN a NaN, overflow infinity.
fn f32_to_ufloat(f: f32, bits: u32) -> u32 {
    let mbits = bits - 5;
    if f.is_nan() {
        return (0x1f << mbits) | (1 << (mbits - 1));
    }
    if f <= 0.0 {
        return 0;
    }
    // Through f16 (5-bit exponent, bias 15 too): f32 to f16 rounds at the
    // f16 mantissa, so round the f32 itself at `mbits` bits instead.
    let b = f.to_bits();
    let e = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let (m, shift) = if e >= 1 {
        ((b & 0x7f_ffff) | 0x80_0000, 23 - mbits)
    } else {
        // Subnormal in the target: the exponent is 1 - 15.
        let s = (23 - mbits) as i32 + 1 - e;
        if s > 25 {
            return 0;
        }
        ((b & 0x7f_ffff) | 0x80_0000, s as u32)
    };
    let half = 1u32 << (shift - 1);
    let rest = m & ((1u32 << shift) - 1);
    let mut r = m >> shift;
    if rest > half || (rest == half && r & 1 != 0) {
        r += 1;
    }
    let v = if e >= 1 {
        // r has the implicit bit at `mbits` (or at mbits + 1 after a carry).
        ((e as u32) << mbits) + (r - (1 << mbits))
    } else {
        r
    };
    v.min(0x1f << mbits)
}

/// f64 to f16 bits, round to nearest even (through the exact f64 value:
/// no double rounding, unlike f64 -> f32 -> f16).
fn f64_to_f16(x: f64) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    if a.is_nan() {
        return 0x7e00;
    }
    // 65520 is the tie between the largest f16 (odd) and 2^16: infinity.
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < 2f64.powi(-26) {
        return sign;
    }
    // The result's exponent (at least the subnormals' -14), and the value
    // in its ulps (an exact scaling), rounded once.
    let e = (((a.to_bits() >> 52) & 0x7ff) as i32 - 1023).max(-14);
    let q = (a / 2f64.powi(e - 10)).round_ties_even() as u32;
    let bits = if q < 1024 {
        q
    } else {
        // q = 2048 carries into the next exponent: the same formula.
        (((e + 15) as u32) << 10) + q - 1024
    };
    sign | bits as u16
}

/// A component of `bits` bits read as `nfmt`, as its exact value (the
/// float-valued formats) or integer (U/SINT, as the dword).
enum Value {
    Real(f64),
    Int(u32),
    /// A float's own bits (FLOAT 32: the dword as is, NaN payloads kept).
    F32(u32),
}

fn value(raw: u32, bits: u32, nfmt: u8) -> Value {
    let max = if bits == 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    };
    let raw = raw & max;
    let signed = || -> i64 {
        let s = 64 - bits;
        ((u64::from(raw) << s) as i64) >> s
    };
    match nfmt {
        UNORM => Value::Real(f64::from(raw) / f64::from(max)),
        SNORM => {
            let m = (1i64 << (bits - 1)) - 1;
            Value::Real((signed() as f64 / m as f64).max(-1.0))
        }
        USCALED => Value::Real(f64::from(raw)),
        SSCALED => Value::Real(signed() as f64),
        UINT => Value::Int(raw),
        SINT => Value::Int(signed() as u32),
        _ => match bits {
            16 => Value::F32(f16_to_f32(raw as u16).to_bits()),
            10 | 11 => Value::F32(ufloat_to_f32(raw, bits).to_bits()),
            _ => Value::F32(raw),
        },
    }
}

/// A component of `bits` bits, read as `nfmt`, as the dword a VGPR gets.
pub(crate) fn to_register(raw: u32, bits: u32, nfmt: u8) -> u32 {
    match value(raw, bits, nfmt) {
        Value::Real(x) => (x as f32).to_bits(),
        Value::Int(v) | Value::F32(v) => v,
    }
}

/// A component of `bits` bits, read as `nfmt`, as the 16 bits a `d16`
/// load gives.
pub(crate) fn to_half(raw: u32, bits: u32, nfmt: u8) -> u16 {
    match value(raw, bits, nfmt) {
        Value::Real(x) => f64_to_f16(x),
        Value::Int(v) => v as u16,
        Value::F32(_) if bits == 16 => raw as u16,
        Value::F32(v) => f32_to_f16(f32::from_bits(v)),
    }
}

/// A VGPR dword stored as a component of `bits` bits in `nfmt`.
pub(crate) fn from_register(v: u32, bits: u32, nfmt: u8) -> u32 {
    let max = if bits == 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    };
    let f = f32::from_bits(v);
    match nfmt {
        UNORM => {
            let x = if f.is_nan() {
                0.0
            } else {
                f64::from(f).clamp(0.0, 1.0)
            };
            (x * f64::from(max)).round_ties_even() as u32
        }
        SNORM => {
            let m = ((1i64 << (bits - 1)) - 1) as f64;
            let x = if f.is_nan() {
                0.0
            } else {
                f64::from(f).clamp(-1.0, 1.0)
            };
            ((x * m).round_ties_even() as i64 as u32) & max
        }
        USCALED => {
            let x = if f.is_nan() { 0.0 } else { f64::from(f) };
            (x.clamp(0.0, f64::from(max)) as u64 as u32) & max
        }
        SSCALED => {
            let lim = ((1i64 << (bits - 1)) - 1) as f64;
            let x = if f.is_nan() { 0.0 } else { f64::from(f) };
            (x.clamp(-lim - 1.0, lim) as i64 as u32) & max
        }
        UINT | SINT => v & max,
        _ => match bits {
            16 => u32::from(f32_to_f16(f)),
            10 | 11 => f32_to_ufloat(f, bits),
            _ => v,
        },
    }
}

/// A `d16` store's 16-bit component as the dword `from_register` takes:
/// f16 widened for the float-valued formats, the integer zero/sign
/// extended for U/SINT.
fn half_to_register(h: u16, nfmt: u8) -> u32 {
    match nfmt {
        UINT => u32::from(h),
        SINT => h as i16 as i32 as u32,
        _ => f16_to_f32(h).to_bits(),
    }
}

/// `(dfmt, nfmt)` of the instruction: the MTBUF fields or the V#'s.
fn format(w: &Wave, i: &Inst) -> (u8, u8) {
    if i.op.name().starts_with("tbuffer_") {
        return (i.mods.format & 0xf, i.mods.format >> 4);
    }
    let Src::S(r) = i.saddr else { return (0, 0) };
    let d3 = w.s[(usize::from(r) + 3) % 128];
    (((d3 >> 15) & 0xf) as u8, ((d3 >> 12) & 7) as u8)
}

/// The V#'s DST_SEL_X..W (word 3 [11:0]).
fn dst_sel(w: &Wave, i: &Inst) -> u32 {
    let Src::S(r) = i.saddr else { return 0 };
    w.s[(usize::from(r) + 3) % 128] & 0xfff
}

/// Components the instruction names (`_x` 1 .. `_xyzw` 4).
fn components(op: Opcode) -> usize {
    let name = op.name();
    let tail = name.rsplit('_').next().unwrap_or("");
    tail.len().clamp(1, 4)
}

fn unsupported(i: &Inst, dfmt: u8, nfmt: u8) -> Fault {
    Fault::Illegal {
        mnemonic: format!(
            "{} with data format {dfmt} and number format {nfmt}",
            i.mnemonic()
        ),
        pc: i.pc,
    }
}

/// Where a load's components go.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sink {
    /// VGPRs from `reg`: 32 bits each, or 16 (`d16`, `hi`: `d16_hi_x`).
    Vgprs { reg: u16, d16: bool, hi: bool },
    /// LDS (`buffer_load_format_x ... lds`): the x dword of lane `l` at
    /// `base + 4 * l`.
    Lds { base: u32 },
}

/// The handler of a typed buffer load or store.
pub(crate) fn exec(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>) -> Exec {
    let name = i.op.name();
    let d16 = name.contains("_d16");
    let hi = name.contains("_d16_hi");
    if name.contains("_store_") {
        let Src::V(s) = i.data else {
            return Err(Box::new(Fault::Abort(
                "typed buffer store without data".into(),
            )));
        };
        return store(w, i, ctx, s, d16, hi);
    }
    let Dst::V(d) = i.vdst else {
        return Err(Box::new(Fault::Abort(
            "typed buffer load without a destination".into(),
        )));
    };
    load(w, i, ctx, Sink::Vgprs { reg: d, d16, hi })
}

/// `buffer_load_format_x ... lds`: the converted x component of each lane
/// goes to LDS at `base + 4 * lane` (`mubuf::lds_form`).
pub(crate) fn load_to_lds(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>, base: u32) -> Exec {
    load(w, i, ctx, Sink::Lds { base })
}

fn checked(w: &Wave, i: &Inst) -> Result<(u8, u8, Layout), Fault> {
    let (dfmt, nfmt) = format(w, i);
    let Some(lay) = layout(dfmt) else {
        return Err(unsupported(i, dfmt, nfmt));
    };
    if !lay.bits[..lay.comps].iter().all(|&b| valid(nfmt, b)) {
        return Err(unsupported(i, dfmt, nfmt));
    }
    Ok((dfmt, nfmt, lay))
}

/// The raw components of lane `l`'s element (`None`: out of range).
fn fetch(
    ctx: &Ctx<'_>,
    lay: &Layout,
    at: impl Fn(u64, u64) -> Option<u64>,
    off: u64,
) -> Result<[Option<u32>; 4], Fault> {
    let mut raw = [None; 4];
    let read = |a: u64, n: u64| -> Result<u32, Fault> {
        let mut b = [0u8; 4];
        ctx.mem
            .read_bytes(a, &mut b[..n as usize])
            .map_err(Fault::Memory)?;
        Ok(u32::from_le_bytes(b))
    };
    if lay.packed {
        if let Some(a) = at(off, 4) {
            let d = read(a, 4)?;
            for c in 0..lay.comps {
                raw[c] = Some((d >> lay.shift[c]) & ((1 << lay.bits[c]) - 1));
            }
        }
    } else {
        let bytes = u64::from(lay.bits[0] / 8);
        for c in 0..lay.comps {
            if let Some(a) = at(off + c as u64 * bytes, bytes) {
                raw[c] = Some(read(a, bytes)?);
            }
        }
    }
    Ok(raw)
}

fn load(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>, sink: Sink) -> Exec {
    let (_, nfmt, lay) = checked(w, i)?;
    let n = components(i.op);
    let sel = dst_sel(w, i);
    for c in 0..n {
        if matches!((sel >> (3 * c)) & 7, 2 | 3) {
            return Err(Box::new(Fault::Illegal {
                mnemonic: format!(
                    "{} with the reserved DST_SEL {:#05x} (V# word 3 [11:0])",
                    i.mnemonic(),
                    sel
                ),
                pc: i.pc,
            }));
        }
    }
    if let Sink::Vgprs { reg, d16, .. } = sink {
        let regs = if d16 { n.div_ceil(2) } else { n };
        if usize::from(reg) + regs > w.v.len() {
            return Err(Box::new(Fault::Abort(format!(
                "v{reg} + {regs} is past the wave's VGPRs"
            ))));
        }
    }
    let r = super::mubuf::rsrc_of(w, i);
    let so = super::mubuf::soffset_of(w, i);
    let (idx, off) = super::mubuf::index_offset_of(w, i)?;
    let exec = w.exec();
    let half = matches!(sink, Sink::Vgprs { d16: true, .. });
    let one = match (nfmt, half) {
        (UINT | SINT, _) => 1,
        (_, true) => 0x3c00,
        (_, false) => 1.0f32.to_bits(),
    };
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let at = |o: u64, size: u64| super::mubuf::address_of(&r, so, l, idx[l], o, size);
        let raw = fetch(ctx, &lay, at, off[l])?;
        // The format's components as the register values, past its
        // components 0, 0, 0, 1.
        let mut mv = [0, 0, 0, one];
        for c in 0..lay.comps {
            mv[c] = match raw[c] {
                None => 0,
                Some(x) if half => u32::from(to_half(x, lay.bits[c], nfmt)),
                Some(x) => to_register(x, lay.bits[c], nfmt),
            };
        }
        let mut out = [0u32; 4];
        for (c, o) in out.iter_mut().enumerate().take(n) {
            *o = match (sel >> (3 * c)) & 7 {
                0 => 0,
                1 => one,
                s => mv[(s - 4) as usize],
            };
        }
        match sink {
            Sink::Lds { base } => {
                let a = base as usize + 4 * l;
                // Past the work-group's allocation: dropped, as a DS
                // write there.
                if let Some(dst) = ctx.lds.get_mut(a..a + 4) {
                    dst.copy_from_slice(&out[0].to_le_bytes());
                }
            }
            Sink::Vgprs {
                reg, d16: false, ..
            } => {
                for (c, &o) in out.iter().enumerate().take(n) {
                    w.v[usize::from(reg) + c][l] = o;
                }
            }
            Sink::Vgprs { reg, d16: true, hi } => {
                for c in 0..n {
                    let v = &mut w.v[usize::from(reg) + c / 2][l];
                    let high = hi || c % 2 == 1;
                    *v = if high {
                        (*v & 0xffff) | (out[c] << 16)
                    } else {
                        (*v & 0xffff_0000) | (out[c] & 0xffff)
                    };
                }
            }
        }
    }
    Ok(Flow::Next)
}

fn store(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>, reg: u16, d16: bool, hi: bool) -> Exec {
    let (dfmt, nfmt, lay) = checked(w, i)?;
    let n = components(i.op);
    if lay.packed && n < lay.comps {
        return Err(Box::new(Fault::Illegal {
            mnemonic: format!(
                "{} storing {n} of the {} components of packed data format {dfmt}",
                i.mnemonic(),
                lay.comps
            ),
            pc: i.pc,
        }));
    }
    let regs = if d16 { n.div_ceil(2) } else { n };
    if usize::from(reg) + regs > w.v.len() {
        return Err(Box::new(Fault::Abort(format!(
            "v{reg} + {regs} is past the wave's VGPRs"
        ))));
    }
    let r = super::mubuf::rsrc_of(w, i);
    let so = super::mubuf::soffset_of(w, i);
    let (idx, off) = super::mubuf::index_offset_of(w, i)?;
    let exec = w.exec();
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let comp = |c: usize| -> u32 {
            if d16 {
                let v = w.v[usize::from(reg) + c / 2][l];
                let h = if hi || c % 2 == 1 { v >> 16 } else { v } as u16;
                half_to_register(h, nfmt)
            } else {
                w.v[usize::from(reg) + c][l]
            }
        };
        let at = |o: u64, size: u64| super::mubuf::address_of(&r, so, l, idx[l], o, size);
        if lay.packed {
            let mut d = 0u32;
            for c in 0..lay.comps {
                d |= from_register(comp(c), lay.bits[c], nfmt) << lay.shift[c];
            }
            if let Some(a) = at(off[l], 4) {
                ctx.mem
                    .write_bytes(a, &d.to_le_bytes())
                    .map_err(Fault::Memory)?;
            }
            continue;
        }
        let bytes = u64::from(lay.bits[0] / 8);
        for c in 0..n.min(lay.comps) {
            if let Some(a) = at(off[l] + c as u64 * bytes, bytes) {
                let v = from_register(comp(c), lay.bits[c], nfmt);
                ctx.mem
                    .write_bytes(a, &v.to_le_bytes()[..bytes as usize])
                    .map_err(Fault::Memory)?;
            }
        }
    }
    Ok(Flow::Next)
}
