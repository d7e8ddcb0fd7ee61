//! Typed buffer memory: MUBUF `buffer_load_format_*` /
//! `buffer_store_format_*` (the format in the V#: NUM_FORMAT word 3
//! [14:12], DATA_FORMAT [18:15]) and MTBUF `tbuffer_load_format_*` /
//! `tbuffer_store_format_*` (the instruction's `dfmt`/`nfmt`), addressed as
//! the untyped MUBUF forms (`mubuf`), each component range-checked alone.
//!
//! Formats (GFX9 `BUF_DATA_FORMAT_*`): the per-component 8, 16, 8_8, 32,
//! 16_16, 8_8_8_8, 32_32, 16_16_16_16, 32_32_32, 32_32_32_32, with every
//! number format (`BUF_NUM_FORMAT_*` UNORM, SNORM, USCALED, SSCALED, UINT,
//! SINT, FLOAT; FLOAT for 16 and 32-bit components). The packed formats
//! (10_11_11, 11_11_10, 10_10_10_2, 2_10_10_10), FLOAT with 8-bit
//! components and the reserved codes fault as illegal instructions naming
//! the format.
//!
//! Load conversions: UNORM `x / (2^b - 1)`, SNORM `max(x / (2^(b-1) - 1),
//! -1)`, U/SSCALED the integer as f32, U/SINT zero/sign extended, FLOAT
//! f16 widened or f32 as is; each correctly rounded from the exact value
//! (the hardware's rounding of the normalised forms is not documented to
//! the bit). An instruction component past the format's is 0 (x, y, z) or
//! 1 / 1.0 (w). Store conversions: UNORM/SNORM clamp then scale and round
//! to nearest even, U/SSCALED float to integer with saturation, U/SINT the
//! low bits, FLOAT f32 to f16 round to nearest even or f32 as is; only the
//! components both the instruction and the format have are written. The
//! V#'s DST_SEL swizzle is not applied (loads give the components in
//! memory order).

use isa::Opcode;

use super::program::{Dst, Inst, Src};
use super::vmem::{f16_to_f32, f32_to_f16};
use super::wave::Wave;
use super::{Ctx, Fault, Flow};

/// Number formats.
const UNORM: u8 = 0;
const SNORM: u8 = 1;
const USCALED: u8 = 2;
const SSCALED: u8 = 3;
const UINT: u8 = 4;
const SINT: u8 = 5;
const FLOAT: u8 = 7;

/// (components, bytes per component) of a data format, if supported.
fn layout(dfmt: u8) -> Option<(usize, u64)> {
    Some(match dfmt {
        1 => (1, 1),
        2 => (1, 2),
        3 => (2, 1),
        4 => (1, 4),
        5 => (2, 2),
        10 => (4, 1),
        11 => (2, 4),
        12 => (4, 2),
        13 => (3, 4),
        14 => (4, 4),
        _ => return None,
    })
}

/// A component of `bits` bits, read as `nfmt`, as the dword a VGPR gets.
pub(crate) fn to_register(raw: u32, bits: u32, nfmt: u8) -> u32 {
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
        UNORM => ((f64::from(raw) / f64::from(max)) as f32).to_bits(),
        SNORM => {
            let m = (1i64 << (bits - 1)) - 1;
            ((signed() as f64 / m as f64).max(-1.0) as f32).to_bits()
        }
        USCALED => (raw as f32).to_bits(),
        SSCALED => (signed() as f32).to_bits(),
        UINT => raw,
        SINT => signed() as u32,
        _ => match bits {
            16 => f16_to_f32(raw as u16).to_bits(),
            _ => raw,
        },
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
            _ => v,
        },
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

/// Components the instruction names (`_x` 1 .. `_xyzw` 4).
fn components(op: Opcode) -> usize {
    let name = op.name();
    let tail = name.rsplit('_').next().unwrap_or("");
    tail.len().clamp(1, 4)
}

fn unsupported(w: &Wave, i: &Inst, dfmt: u8, nfmt: u8) -> Fault {
    let _ = w;
    Fault::Illegal {
        mnemonic: format!(
            "{} with data format {dfmt} and number format {nfmt}",
            i.mnemonic()
        ),
        pc: i.pc,
    }
}

/// The handler of a typed buffer load or store.
pub(crate) fn exec(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>) -> Result<Flow, Fault> {
    let name = i.op.name();
    if name.contains("_d16") {
        return super::illegal(w, i, ctx);
    }
    let (dfmt, nfmt) = format(w, i);
    let Some((comps, bytes)) = layout(dfmt) else {
        return Err(unsupported(w, i, dfmt, nfmt));
    };
    let bits = (bytes * 8) as u32;
    if !matches!(
        nfmt,
        UNORM | SNORM | USCALED | SSCALED | UINT | SINT | FLOAT
    ) || (nfmt == FLOAT && bits == 8)
    {
        return Err(unsupported(w, i, dfmt, nfmt));
    }
    let n = components(i.op);
    let store = name.contains("_store_");
    let reg = match (store, i.vdst, i.data) {
        (false, Dst::V(d), _) => d,
        (true, _, Src::V(s)) => s,
        _ => return Err(Fault::Abort("typed buffer access without its VGPRs".into())),
    };
    if usize::from(reg) + n > w.v.len() {
        return Err(Fault::Abort(format!(
            "v{reg} + {n} is past the wave's VGPRs"
        )));
    }
    let r = super::mubuf::rsrc_of(w, i);
    let so = super::mubuf::soffset_of(w, i);
    let (idx, off) = super::mubuf::index_offset_of(w, i)?;
    let exec = w.exec();
    let one = match nfmt {
        UINT | SINT => 1,
        _ => 1.0f32.to_bits(),
    };
    for l in 0..super::wave::LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        for c in 0..n {
            let at = off[l] + c as u64 * bytes;
            let reg_c = usize::from(reg) + c;
            if c >= comps {
                if !store {
                    w.v[reg_c][l] = if c == 3 { one } else { 0 };
                }
                continue;
            }
            let a = super::mubuf::address_of(&r, so, l, idx[l], at, bytes);
            if store {
                if let Some(a) = a {
                    let v = from_register(w.v[reg_c][l], bits, nfmt);
                    ctx.mem
                        .write_bytes(a, &v.to_le_bytes()[..bytes as usize])
                        .map_err(Fault::Memory)?;
                }
            } else {
                let raw = match a {
                    Some(a) => {
                        let mut b = [0u8; 4];
                        ctx.mem
                            .read_bytes(a, &mut b[..bytes as usize])
                            .map_err(Fault::Memory)?;
                        u32::from_le_bytes(b)
                    }
                    // Out of range: the component reads 0.
                    None => 0,
                };
                w.v[reg_c][l] = if a.is_some() {
                    to_register(raw, bits, nfmt)
                } else {
                    0
                };
            }
        }
    }
    Ok(Flow::Next)
}
