//! `hsa run --arg SPEC`: one explicit kernel argument, as text.
//!
//! | form | meaning |
//! |---|---|
//! | `TYPE:VALUE` | a by-value scalar: `i8 u8 i16 u16 i32 u32 i64 u64 f16 f32 f64` |
//! | `buf:TYPE:COUNT=INIT` | a global buffer of `COUNT` elements of `TYPE` |
//! | `lds:BYTES` | a `__local` pointer argument with `BYTES` of group memory |
//!
//! Integers are decimal (`-` allowed for the signed types) or `0x` hex;
//! both are range-checked against the type, and hex is the bit pattern
//! (`i8:0xff` is -1). Floats are what Rust's `f64::from_str` reads (`1.5`,
//! `-2e-3`, `inf`, `nan`), rounded once to the type (to-nearest-even; `f16`
//! by [`f64_to_f16_bits`], no dependency).
//!
//! Buffer `INIT`s: `zero`; `iota` (element `i` is `i` in `TYPE`, integers
//! wrapping, floats rounded); `fill:V` (every element `V`, parsed as a
//! scalar of `TYPE`); `file:PATH` (raw little-endian bytes). A file is
//! checked at parse time (it must exist and be exactly `COUNT * sizeof(TYPE)`
//! bytes) and read, and checked again, by [`ArgSpec::buffer_contents`].

use crate::kernarg::{ArgKind, ArgValue, KernargLayout};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The element or scalar type of a spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// `i8`
    I8,
    /// `u8`
    U8,
    /// `i16`
    I16,
    /// `u16`
    U16,
    /// `i32`
    I32,
    /// `u32`
    U32,
    /// `i64`
    I64,
    /// `u64`
    U64,
    /// `f16` (IEEE binary16)
    F16,
    /// `f32`
    F32,
    /// `f64`
    F64,
}

impl ScalarType {
    /// Every type, in the order of the spec grammar.
    pub const ALL: [Self; 11] = [
        Self::I8,
        Self::U8,
        Self::I16,
        Self::U16,
        Self::I32,
        Self::U32,
        Self::I64,
        Self::U64,
        Self::F16,
        Self::F32,
        Self::F64,
    ];

    /// The name in a spec.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::I8 => "i8",
            Self::U8 => "u8",
            Self::I16 => "i16",
            Self::U16 => "u16",
            Self::I32 => "i32",
            Self::U32 => "u32",
            Self::I64 => "i64",
            Self::U64 => "u64",
            Self::F16 => "f16",
            Self::F32 => "f32",
            Self::F64 => "f64",
        }
    }

    /// The type named `s`.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// Size in bytes.
    pub const fn size(self) -> u32 {
        match self {
            Self::I8 | Self::U8 => 1,
            Self::I16 | Self::U16 | Self::F16 => 2,
            Self::I32 | Self::U32 | Self::F32 => 4,
            Self::I64 | Self::U64 | Self::F64 => 8,
        }
    }

    const fn bits(self) -> u32 {
        self.size() * 8
    }

    const fn is_float(self) -> bool {
        matches!(self, Self::F16 | Self::F32 | Self::F64)
    }

    const fn is_signed(self) -> bool {
        matches!(self, Self::I8 | Self::I16 | Self::I32 | Self::I64)
    }

    /// Parses `text` as a value of this type: its little-endian bit
    /// pattern in the low [`ScalarType::size`] bytes.
    pub fn parse_value(self, text: &str) -> Result<u64, ParseReason> {
        if self.is_float() {
            let bad = || ParseReason::BadFloat {
                ty: self,
                text: text.to_owned(),
            };
            // Each rounds the decimal once, to nearest-even.
            return match self {
                Self::F32 => Ok(u64::from(text.parse::<f32>().map_err(|_| bad())?.to_bits())),
                Self::F16 => Ok(u64::from(parse_f16(text).ok_or_else(bad)?)),
                _ => Ok(text.parse::<f64>().map_err(|_| bad())?.to_bits()),
            };
        }
        let bits = self.bits();
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let bad = || ParseReason::BadInteger {
            ty: self,
            text: text.to_owned(),
        };
        let out_of_range = || ParseReason::OutOfRange {
            ty: self,
            text: text.to_owned(),
        };
        if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
            if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad());
            }
            let v = u64::from_str_radix(hex, 16).map_err(|_| out_of_range())?;
            return if v & !mask != 0 {
                Err(out_of_range())
            } else {
                Ok(v)
            };
        }
        let digits = text.strip_prefix('-').unwrap_or(text);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let v: i128 = text.parse().map_err(|_| out_of_range())?;
        let (min, max) = if self.is_signed() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        if v < min || v > max {
            return Err(out_of_range());
        }
        // Two's complement, truncated to the width.
        Ok((v as u64) & mask)
    }

    /// The bits of `v` in this type: rounded to nearest-even for the float
    /// types, wrapped (two's complement) for the integer ones.
    fn float_bits(self, v: f64) -> u64 {
        match self {
            Self::F16 => u64::from(f64_to_f16_bits(v)),
            Self::F32 => u64::from((v as f32).to_bits()),
            Self::F64 => v.to_bits(),
            _ => 0,
        }
    }

    /// Element `i` of an `iota` buffer.
    fn iota_bits(self, i: u64) -> u64 {
        if self.is_float() {
            self.float_bits(i as f64)
        } else if self.bits() == 64 {
            i
        } else {
            i & ((1u64 << self.bits()) - 1)
        }
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// IEEE binary16 bits of `x`, rounded to nearest, ties to even (the IEEE
/// 754 default): overflow goes to infinity, underflow through the
/// subnormals to signed zero, and a NaN stays a NaN (quiet, with the top
/// payload bits kept).
pub fn f64_to_f16_bits(x: f64) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 48) & 0x8000) as u16;
    let exp = ((b >> 52) & 0x7ff) as i32;
    let man = b & ((1u64 << 52) - 1);
    if exp == 0x7ff {
        return if man == 0 {
            sign | 0x7c00
        } else {
            sign | 0x7e00 | ((man >> 42) as u16 & 0x1ff)
        };
    }
    if exp == 0 {
        // Zero, or an f64 subnormal: far below half the smallest f16
        // subnormal (2^-25).
        return sign;
    }
    let e = exp - 1023;
    if e > 15 {
        return sign | 0x7c00;
    }
    let sig = man | (1u64 << 52);
    // Keep 11 significant bits for a normal result, fewer for a subnormal
    // (whose unit is 2^-24).
    let shift = if e >= -14 { 42 } else { 42 + (-14 - e) } as u32;
    if shift > 53 {
        // Less than half of 2^-24 (the largest such sig is 2^53 - 1 < 2^shift-1).
        return sign;
    }
    let mut q = sig >> shift;
    let rem = sig & ((1u64 << shift) - 1);
    let half = 1u64 << (shift - 1);
    if rem > half || (rem == half && q & 1 == 1) {
        q += 1;
    }
    let bits = if e >= -14 {
        // q is 1024..=2048; 2048 carries into the exponent.
        (((e + 15) as u64) << 10) + (q - 1024)
    } else {
        // q is 0..=1024; 1024 is the smallest normal, 0x0400.
        q
    };
    if bits >= 0x7c00 {
        sign | 0x7c00
    } else {
        sign | bits as u16
    }
}

/// The magnitude of the binary16 `bits` (sign ignored); the infinity
/// pattern counts as 65536, the value the rounding boundary at 65520 is the
/// midpoint to.
fn f16_magnitude(bits: u16) -> f64 {
    let exp = i32::from((bits >> 10) & 0x1f);
    let man = f64::from(bits & 0x3ff);
    match exp {
        0 => man * 2f64.powi(-24),
        31 => 65536.0,
        e => (1024.0 + man) * 2f64.powi(e - 25),
    }
}

/// Reads a decimal as binary16, rounded once: the decimal is read as an
/// f64 (Rust, correctly rounded) and converted; only when that f64 lies
/// exactly halfway between two binary16 values can the first rounding have
/// moved the decimal across the midpoint, and then the decimal itself is
/// compared with the midpoint.
fn parse_f16(text: &str) -> Option<u16> {
    let v: f64 = text.parse().ok()?;
    let h = f64_to_f16_bits(v);
    if !v.is_finite() {
        return Some(h);
    }
    let sign = h & 0x8000;
    let mag = h & 0x7fff;
    let a = v.abs();
    let hv = f16_magnitude(mag);
    if hv == a {
        return Some(h);
    }
    // The other candidate, on the far side of `a`.
    let other = if hv > a { mag - 1 } else { mag + 1 };
    // The sum of two binary16 values is exact in f64.
    if (hv + f16_magnitude(other)) / 2.0 != a {
        return Some(h);
    }
    let (lo, hi) = if hv > a { (other, mag) } else { (mag, other) };
    Some(
        sign | match cmp_decimal_magnitude(text, a) {
            core::cmp::Ordering::Less => lo,
            core::cmp::Ordering::Greater => hi,
            core::cmp::Ordering::Equal => mag,
        },
    )
}

/// A decimal's magnitude as (digits without leading or trailing zeros,
/// exponent) with value `0.DIGITS * 10^exponent`; `None` if it is not a
/// plain decimal (`inf`, `nan`) or the exponent is absurd.
fn decimal_parts(text: &str) -> Option<(String, i64)> {
    let t = text.trim_start_matches(['+', '-']);
    let (mantissa, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i64>().ok()?),
        None => (t, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = format!("{int}{frac}");
    let lead = digits.len() - digits.trim_start_matches('0').len();
    let digits = digits.trim_start_matches('0').trim_end_matches('0');
    let point = exp
        .checked_add(i64::try_from(int.len()).ok()?)?
        .checked_sub(i64::try_from(lead).ok()?)?;
    Some((digits.to_owned(), point))
}

/// Compares the magnitude of the decimal `text` with `a` (finite, > 0),
/// exactly.
fn cmp_decimal_magnitude(text: &str, a: f64) -> core::cmp::Ordering {
    use core::cmp::Ordering;
    // Exact: a binary16 midpoint has at most 12 significant bits, so at most
    // 30 significant decimal digits; Rust prints the exact expansion.
    let exact = format!("{a:.80e}");
    let (Some(x), Some(y)) = (decimal_parts(text), decimal_parts(&exact)) else {
        return Ordering::Equal;
    };
    match (x.0.is_empty(), y.0.is_empty()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        // Both normalised to 0.D × 10^p with D starting with a non-zero
        // digit: the exponent decides, then the digits (a prefix is smaller).
        (false, false) => x.1.cmp(&y.1).then_with(|| x.0.cmp(&y.0)),
    }
}

/// IEEE binary16 bits of `x`, rounded to nearest-even ([`f64_to_f16_bits`];
/// widening to `f64` is exact, so this rounds once).
pub fn f32_to_f16_bits(x: f32) -> u16 {
    f64_to_f16_bits(f64::from(x))
}

/// How a buffer's elements start out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BufferInit {
    /// All zero bytes.
    Zero,
    /// Element `i` is `i`.
    Iota,
    /// Every element is this value (bits in the low bytes).
    Fill(u64),
    /// The bytes of a file, exactly the buffer's size.
    File(PathBuf),
}

/// What a spec asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpecValue {
    /// A by-value scalar.
    Scalar {
        /// Its type.
        ty: ScalarType,
        /// Its bits, in the low `ty.size()` bytes.
        bits: u64,
    },
    /// A global buffer.
    Buffer {
        /// Element type.
        ty: ScalarType,
        /// Number of elements (at least 1).
        count: u64,
        /// Initial contents.
        init: BufferInit,
    },
    /// A `__local` pointer argument's group memory.
    Lds {
        /// Bytes per work-group (at least 1).
        bytes: u32,
    },
}

/// One parsed `--arg`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgSpec {
    text: String,
    value: SpecValue,
}

impl ArgSpec {
    /// Parses one `--arg` string.
    pub fn parse(text: &str) -> Result<Self, ArgSpecError> {
        let err = |reason| ArgSpecError::Parse {
            spec: text.to_owned(),
            reason,
        };
        let value = if let Some(rest) = text.strip_prefix("buf:") {
            let (ty, rest) = rest.split_once(':').ok_or(err(ParseReason::Form))?;
            let ty =
                ScalarType::from_name(ty).ok_or(err(ParseReason::UnknownType(ty.to_owned())))?;
            let (count, init) = rest.split_once('=').ok_or(err(ParseReason::Form))?;
            let count = parse_count(count).map_err(err)?;
            let size = count
                .checked_mul(u64::from(ty.size()))
                .filter(|&s| usize::try_from(s).is_ok())
                .ok_or(err(ParseReason::TooLarge { count, ty }))?;
            let init = match init {
                "zero" => BufferInit::Zero,
                "iota" => BufferInit::Iota,
                _ => {
                    if let Some(v) = init.strip_prefix("fill:") {
                        BufferInit::Fill(ty.parse_value(v).map_err(err)?)
                    } else if let Some(path) = init.strip_prefix("file:") {
                        let path = PathBuf::from(path);
                        check_file(&path, size).map_err(err)?;
                        BufferInit::File(path)
                    } else {
                        return Err(err(ParseReason::UnknownInit(init.to_owned())));
                    }
                }
            };
            SpecValue::Buffer { ty, count, init }
        } else if let Some(bytes) = text.strip_prefix("lds:") {
            let n = parse_count(bytes).map_err(err)?;
            let bytes = u32::try_from(n).map_err(|_| err(ParseReason::LdsTooLarge(n)))?;
            SpecValue::Lds { bytes }
        } else {
            let (ty, v) = text.split_once(':').ok_or(err(ParseReason::Form))?;
            let ty =
                ScalarType::from_name(ty).ok_or(err(ParseReason::UnknownType(ty.to_owned())))?;
            SpecValue::Scalar {
                ty,
                bits: ty.parse_value(v).map_err(err)?,
            }
        };
        Ok(Self {
            text: text.to_owned(),
            value,
        })
    }

    /// The spec as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// What it asks for.
    pub fn value(&self) -> &SpecValue {
        &self.value
    }

    /// A scalar's little-endian bytes (its type's size); `None` for a
    /// buffer or LDS.
    pub fn scalar_bytes(&self) -> Option<Vec<u8>> {
        match self.value {
            SpecValue::Scalar { ty, bits } => {
                Some(bits.to_le_bytes()[..ty.size() as usize].to_vec())
            }
            _ => None,
        }
    }

    /// The kernarg value for this spec: a scalar's bytes, an LDS size, or
    /// for a buffer `Pointer(buffer_address)`, the device address where the
    /// caller placed [`ArgSpec::buffer_contents`] (ignored otherwise).
    pub fn arg_value(&self, buffer_address: u64) -> ArgValue {
        match self.value {
            SpecValue::Scalar { ty, bits } => {
                ArgValue::Bytes(bits.to_le_bytes()[..ty.size() as usize].to_vec())
            }
            SpecValue::Buffer { .. } => ArgValue::Pointer(buffer_address),
            SpecValue::Lds { bytes } => ArgValue::Lds(bytes),
        }
    }

    /// A buffer's size in bytes; `None` for a scalar or LDS.
    pub fn buffer_size(&self) -> Option<u64> {
        match self.value {
            // Checked at parse: no overflow.
            SpecValue::Buffer { ty, count, .. } => Some(count * u64::from(ty.size())),
            _ => None,
        }
    }

    /// A buffer's initial bytes (reading a `file:` now); `None` for a
    /// scalar or LDS.
    pub fn buffer_contents(&self) -> Result<Option<Vec<u8>>, ArgSpecError> {
        let SpecValue::Buffer { ty, count, init } = &self.value else {
            return Ok(None);
        };
        let err = |reason| ArgSpecError::Parse {
            spec: self.text.clone(),
            reason,
        };
        let elem = ty.size() as usize;
        // Checked at parse: fits usize.
        let size = usize::try_from(count * u64::from(ty.size())).map_err(|_| {
            err(ParseReason::TooLarge {
                count: *count,
                ty: *ty,
            })
        })?;
        let pattern = |f: &dyn Fn(u64) -> u64| {
            let mut out = Vec::with_capacity(size);
            for i in 0..*count {
                out.extend_from_slice(&f(i).to_le_bytes()[..elem]);
            }
            out
        };
        Ok(Some(match init {
            BufferInit::Zero => vec![0; size],
            BufferInit::Iota => pattern(&|i| ty.iota_bits(i)),
            BufferInit::Fill(bits) => pattern(&|_| *bits),
            BufferInit::File(path) => {
                let data = std::fs::read(path).map_err(|e| {
                    err(ParseReason::File {
                        path: path.clone(),
                        problem: e.to_string(),
                    })
                })?;
                if data.len() != size {
                    return Err(err(ParseReason::FileLength {
                        path: path.clone(),
                        len: data.len() as u64,
                        expected: size as u64,
                    }));
                }
                data
            }
        }))
    }

    /// Checks that this spec, given as `--arg` number `index`, fits the
    /// kernel's explicit argument `index`: a scalar of exactly the size of
    /// a `by_value` argument, a buffer for a `global_buffer`, `lds:` for a
    /// `dynamic_shared_pointer`.
    pub fn check_against(&self, layout: &KernargLayout, index: usize) -> Result<(), ArgSpecError> {
        let arg = layout.explicit.get(index).ok_or(ArgSpecError::Count {
            expected: layout.explicit.len(),
            got: index + 1,
        })?;
        let (fits, sizes) = match (&self.value, arg.kind) {
            (SpecValue::Scalar { ty, .. }, ArgKind::ByValue) => {
                (ty.size() == arg.size, Some((arg.size, ty.size())))
            }
            (SpecValue::Buffer { .. }, ArgKind::GlobalBuffer) => (true, None),
            (SpecValue::Lds { .. }, ArgKind::DynamicSharedPointer) => (true, None),
            _ => (false, None),
        };
        if fits {
            Ok(())
        } else {
            Err(ArgSpecError::Mismatch {
                position: index,
                arg: arg.describe(),
                sizes,
                spec: self.text.clone(),
                form: spec_form(arg),
            })
        }
    }
}

/// The scalar type a C/OpenCL/HIP type name stands for (as the metadata's
/// `.type_name` writes it), if one of ours.
fn scalar_of_type_name(name: &str) -> Option<ScalarType> {
    use ScalarType as T;
    Some(match name.trim() {
        "char" | "signed char" | "int8_t" => T::I8,
        "uchar" | "unsigned char" | "uint8_t" | "bool" | "_Bool" => T::U8,
        "short" | "int16_t" => T::I16,
        "ushort" | "unsigned short" | "uint16_t" => T::U16,
        "int" | "int32_t" => T::I32,
        "uint" | "unsigned int" | "unsigned" | "uint32_t" => T::U32,
        "long" | "long long" | "int64_t" | "ptrdiff_t" | "intptr_t" => T::I64,
        "ulong" | "unsigned long" | "unsigned long long" | "uint64_t" | "size_t" | "uintptr_t" => {
            T::U64
        }
        "half" | "_Float16" | "__fp16" | "__half" => T::F16,
        "float" => T::F32,
        "double" => T::F64,
        _ => return None,
    })
}

/// The unsigned scalar type of `bytes` bytes, if one.
fn scalar_of_size(bytes: u32) -> Option<ScalarType> {
    match bytes {
        1 => Some(ScalarType::U8),
        2 => Some(ScalarType::U16),
        4 => Some(ScalarType::U32),
        8 => Some(ScalarType::U64),
        _ => None,
    }
}

/// The `--arg` form that fits explicit argument `arg`: `u32:VALUE` for a
/// `by_value uint`, `buf:f32:COUNT=INIT` for a `global_buffer float*`,
/// `lds:BYTES` for a dynamic shared pointer (the scalar type from the
/// metadata's type name, else from the size; words for what no spec
/// gives): `Err` says why no spec fits.
pub fn spec_form(arg: &crate::kernarg::ExplicitArg) -> Result<String, String> {
    let type_name = arg.type_name.as_deref().unwrap_or("");
    match arg.kind {
        ArgKind::ByValue => {
            match scalar_of_type_name(type_name)
                .filter(|t| t.size() == arg.size)
                .or_else(|| scalar_of_size(arg.size))
            {
                Some(t) => Ok(format!("{t}:VALUE")),
                None => Err(format!(
                    "a {}-byte value, and the scalar types are 1, 2, 4 or 8 bytes",
                    arg.size
                )),
            }
        }
        ArgKind::GlobalBuffer => {
            let pointee = type_name
                .trim_end_matches('*')
                .split_whitespace()
                .filter(|w| {
                    !matches!(
                        *w,
                        "global" | "__global" | "const" | "restrict" | "__restrict" | "volatile"
                    )
                })
                .collect::<Vec<_>>()
                .join(" ");
            let t = scalar_of_type_name(&pointee).unwrap_or(ScalarType::U8);
            Ok(format!("buf:{t}:COUNT=INIT"))
        }
        ArgKind::DynamicSharedPointer => Ok("lds:BYTES".to_owned()),
        other => Err(format!("a {other} argument")),
    }
}

/// Checks a whole `--arg` list against the kernel: one spec per explicit
/// argument, each fitting ([`ArgSpec::check_against`]).
pub fn check_all(specs: &[ArgSpec], layout: &KernargLayout) -> Result<(), ArgSpecError> {
    if specs.len() != layout.explicit.len() {
        return Err(ArgSpecError::Count {
            expected: layout.explicit.len(),
            got: specs.len(),
        });
    }
    for (i, s) in specs.iter().enumerate() {
        s.check_against(layout, i)?;
    }
    Ok(())
}

impl FromStr for ArgSpec {
    type Err = ArgSpecError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl fmt::Display for ArgSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn parse_count(s: &str) -> Result<u64, ParseReason> {
    let v = if let Some(hex) = s.strip_prefix("0x") {
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(ParseReason::BadCount(s.to_owned()));
        }
        u64::from_str_radix(hex, 16)
    } else {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ParseReason::BadCount(s.to_owned()));
        }
        s.parse()
    }
    .map_err(|_| ParseReason::BadCount(s.to_owned()))?;
    if v == 0 {
        return Err(ParseReason::ZeroCount);
    }
    Ok(v)
}

fn check_file(path: &Path, size: u64) -> Result<(), ParseReason> {
    let meta = std::fs::metadata(path).map_err(|e| ParseReason::File {
        path: path.to_owned(),
        problem: e.to_string(),
    })?;
    if !meta.is_file() {
        return Err(ParseReason::File {
            path: path.to_owned(),
            problem: "not a regular file".to_owned(),
        });
    }
    if meta.len() != size {
        return Err(ParseReason::FileLength {
            path: path.to_owned(),
            len: meta.len(),
            expected: size,
        });
    }
    Ok(())
}

/// Why a spec did not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseReason {
    /// Not `TYPE:VALUE`, `buf:TYPE:COUNT=INIT` or `lds:BYTES`.
    Form,
    /// Not one of the scalar types.
    UnknownType(String),
    /// Not a decimal or `0x` integer.
    BadInteger {
        /// The type.
        ty: ScalarType,
        /// The text.
        text: String,
    },
    /// An integer outside the type's range.
    OutOfRange {
        /// The type.
        ty: ScalarType,
        /// The text.
        text: String,
    },
    /// Not a float.
    BadFloat {
        /// The type.
        ty: ScalarType,
        /// The text.
        text: String,
    },
    /// A count or byte size that is not a number.
    BadCount(String),
    /// A count or byte size of 0.
    ZeroCount,
    /// `COUNT * sizeof(TYPE)` does not fit in memory.
    TooLarge {
        /// The count.
        count: u64,
        /// The type.
        ty: ScalarType,
    },
    /// An LDS size above 4 GiB.
    LdsTooLarge(u64),
    /// Not `zero`, `iota`, `fill:V` or `file:PATH`.
    UnknownInit(String),
    /// The file cannot be read.
    File {
        /// The path.
        path: PathBuf,
        /// What the OS said.
        problem: String,
    },
    /// The file is not the buffer's size.
    FileLength {
        /// The path.
        path: PathBuf,
        /// Its length.
        len: u64,
        /// `COUNT * sizeof(TYPE)`.
        expected: u64,
    },
}

impl fmt::Display for ParseReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Form => f.write_str("expected TYPE:VALUE, buf:TYPE:COUNT=INIT or lds:BYTES"),
            Self::UnknownType(t) => write!(
                f,
                "unknown type {t:?} (i8, u8, i16, u16, i32, u32, i64, u64, f16, f32, f64)"
            ),
            Self::BadInteger { ty, text } => {
                write!(f, "{text:?} is not a decimal or 0x integer ({ty})")
            }
            Self::OutOfRange { ty, text } => write!(f, "{text} is out of range for {ty}"),
            Self::BadFloat { ty, text } => write!(f, "{text:?} is not a number ({ty})"),
            Self::BadCount(s) => write!(f, "{s:?} is not a count"),
            Self::ZeroCount => f.write_str("the count must be at least 1"),
            Self::TooLarge { count, ty } => write!(f, "{count} elements of {ty} is too large"),
            Self::LdsTooLarge(n) => write!(f, "{n} bytes of LDS is more than 4 GiB"),
            Self::UnknownInit(s) => write!(
                f,
                "unknown initializer {s:?} (zero, iota, fill:VALUE, file:PATH)"
            ),
            Self::File { path, problem } => write!(f, "{}: {problem}", path.display()),
            Self::FileLength {
                path,
                len,
                expected,
            } => write!(
                f,
                "{} is {len} bytes, the buffer is {expected}",
                path.display()
            ),
        }
    }
}

/// A `--arg` that does not parse or does not fit the kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgSpecError {
    /// The spec does not parse (or its file is wrong).
    Parse {
        /// The spec as written.
        spec: String,
        /// Why.
        reason: ParseReason,
    },
    /// The spec does not fit the kernel argument at its position.
    Mismatch {
        /// The position in the `--arg` list (= the explicit argument index).
        position: usize,
        /// [`crate::kernarg::ExplicitArg::describe`].
        arg: String,
        /// For a scalar of the wrong size: the argument's size and the
        /// scalar's.
        sizes: Option<(u32, u32)>,
        /// The spec as written.
        spec: String,
        /// The form that fits, or why none does ([`spec_form`]).
        form: Result<String, String>,
    },
    /// Not one spec per explicit argument.
    Count {
        /// Explicit arguments of the kernel.
        expected: usize,
        /// Specs given.
        got: usize,
    },
}

impl fmt::Display for ArgSpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Parse { spec, reason } => write!(f, "--arg {spec}: {reason}"),
            Self::Mismatch {
                position,
                arg,
                sizes: None,
                spec,
                form,
            } => write!(f, "--arg {position}: {arg}, got {spec}{}", hint(form)),
            Self::Mismatch {
                position,
                arg,
                sizes: Some((want, got)),
                spec,
                form,
            } => write!(
                f,
                "--arg {position}: {arg} of {want} bytes, got {spec} of {got} bytes{}",
                hint(form)
            ),
            Self::Count { expected, got } => {
                write!(f, "kernel takes {expected} explicit arguments, got {got}")
            }
        }
    }
}

/// ` (give FORM)`, or ` (no --arg form fits: WHY)`.
fn hint(form: &Result<String, String>) -> String {
    match form {
        Ok(f) => format!(" (give {f})"),
        Err(why) => format!(" (no --arg form fits: {why})"),
    }
}

impl std::error::Error for ArgSpecError {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of binary16 `bits` (exact in f64).
    fn f16_value(bits: u16) -> f64 {
        let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
        let exp = i32::from((bits >> 10) & 0x1f);
        let man = f64::from(bits & 0x3ff);
        match exp {
            0 => sign * man * 2f64.powi(-24),
            31 if man == 0.0 => sign * f64::INFINITY,
            31 => f64::NAN,
            e => sign * (1024.0 + man) * 2f64.powi(e - 25),
        }
    }

    #[test]
    fn f16_known_bit_patterns() {
        for (x, bits) in [
            (0.0, 0x0000),
            (-0.0, 0x8000),
            (1.0, 0x3c00),
            (-2.0, 0xc000),
            (0.5, 0x3800),
            (65504.0, 0x7bff),  // largest finite
            (65519.99, 0x7bff), // below the rounding midpoint to infinity
            (65520.0, 0x7c00),  // the midpoint: ties to even, which is infinity
            (1e6, 0x7c00),
            (-1e6, 0xfc00),
            (2f64.powi(-14), 0x0400),          // smallest normal
            (1023.0 * 2f64.powi(-24), 0x03ff), // largest subnormal
            (2f64.powi(-24), 0x0001),          // smallest subnormal
            (2f64.powi(-25), 0x0000),          // half of it: ties to even (0)
            (3.0 * 2f64.powi(-25), 0x0002),    // 1.5 units: ties to even (2)
            (1.5 * 2f64.powi(-24) * 0.999, 0x0001),
            (2f64.powi(-26), 0x0000),
            (-(2f64.powi(-26)), 0x8000),
            (1e-300, 0x0000),
            (0.1, 0x2e66),
            (1.0 / 3.0, 0x3555),
            (core::f64::consts::PI, 0x4248),
            (1.0 + 2f64.powi(-11), 0x3c00), // tie between 0x3c00 and 0x3c01: even
            (1.0 + 3.0 * 2f64.powi(-11), 0x3c02), // tie between 0x3c01 and 0x3c02: even
            (2047.5, 0x6800),               // 2048 after rounding: exponent carry
            (f64::INFINITY, 0x7c00),
            (f64::NEG_INFINITY, 0xfc00),
        ] {
            assert_eq!(f64_to_f16_bits(x), bits, "{x:e}");
        }
        assert_eq!(f64_to_f16_bits(f64::NAN) & 0x7e00, 0x7e00);
        assert_eq!(f32_to_f16_bits(f32::NAN) & 0x7e00, 0x7e00);
        assert_eq!(f32_to_f16_bits(1.0), 0x3c00);
        assert_eq!(f32_to_f16_bits(f32::from_bits(1)), 0x0000);
    }

    #[test]
    fn f16_round_trips_and_midpoints() {
        for bits in 0..=u16::MAX {
            let v = f16_value(bits);
            if v.is_nan() {
                assert_eq!(f64_to_f16_bits(v) & 0x7e00, 0x7e00);
                continue;
            }
            assert_eq!(f64_to_f16_bits(v), bits, "{bits:#06x}");
            // The midpoint to the next value up in magnitude rounds to the
            // even one of the two; a hair either side rounds to the nearer.
            let next = bits.wrapping_add(1);
            if bits & 0x7fff >= 0x7bff {
                continue;
            }
            let (a, b) = (v, f16_value(next));
            let mid = (a + b) / 2.0;
            let even = if bits & 1 == 0 { bits } else { next };
            assert_eq!(f64_to_f16_bits(mid), even, "midpoint after {bits:#06x}");
            let eps = (b - a).abs() / 1024.0;
            let toward_b = if b > a { mid + eps } else { mid - eps };
            let toward_a = if b > a { mid - eps } else { mid + eps };
            assert_eq!(f64_to_f16_bits(toward_b), next, "above {bits:#06x}");
            assert_eq!(f64_to_f16_bits(toward_a), bits, "below {bits:#06x}");
        }
    }

    #[test]
    fn integers() {
        use ScalarType as T;
        assert_eq!(T::U8.parse_value("255"), Ok(255));
        assert_eq!(T::I8.parse_value("-128"), Ok(0x80));
        assert_eq!(T::I8.parse_value("0xff"), Ok(0xff));
        assert_eq!(T::I32.parse_value("-1"), Ok(0xffff_ffff));
        assert_eq!(T::I64.parse_value("-9223372036854775808"), Ok(1 << 63));
        assert_eq!(T::U64.parse_value("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(T::U64.parse_value("0xFFFFFFFFFFFFFFFF"), Ok(u64::MAX));
        assert_eq!(T::U16.parse_value("0X1234"), Ok(0x1234));
        for (ty, text) in [
            (T::U8, "256"),
            (T::U8, "-1"),
            (T::I8, "128"),
            (T::I8, "-129"),
            (T::I8, "0x100"),
            (T::U64, "18446744073709551616"),
            (T::U64, "0x10000000000000000"),
            (T::I64, "9223372036854775808"),
            (T::U32, "99999999999999999999999999999999999999999"),
        ] {
            assert_eq!(
                ty.parse_value(text),
                Err(ParseReason::OutOfRange {
                    ty,
                    text: text.to_owned()
                }),
                "{ty}:{text}"
            );
        }
        for text in ["", "-", "1.0", "0x", "0xg", "+1", " 1", "1e3", "--1"] {
            assert!(
                matches!(
                    T::I32.parse_value(text),
                    Err(ParseReason::BadInteger { .. })
                ),
                "{text:?}"
            );
        }
    }

    #[test]
    fn floats() {
        use ScalarType as T;
        assert_eq!(T::F32.parse_value("1.5"), Ok(u64::from(1.5f32.to_bits())));
        assert_eq!(T::F64.parse_value("-2e-3"), Ok((-2e-3f64).to_bits()));
        assert_eq!(T::F16.parse_value("0.1"), Ok(0x2e66));
        assert_eq!(T::F16.parse_value("-inf"), Ok(0xfc00));
        assert_eq!(T::F32.parse_value("inf"), Ok(0x7f80_0000));
        assert!(matches!(
            T::F32.parse_value("one"),
            Err(ParseReason::BadFloat { .. })
        ));
        // f32 from the decimal directly (one rounding), not via f64 first:
        // Rust's `as f32` of the f64 would round twice, so the f32 path of
        // a decimal that sits near an f32 midpoint is checked here.
        let t = "1.00000005960464477539062500000000001";
        assert_eq!(T::F32.parse_value(t), Ok(0x3f80_0001));
        // The same for f16: 1 + 2^-11 is the midpoint between 0x3c00 and
        // 0x3c01; a decimal a hair above or below it reads as that f64, but
        // must round up or down, and exactly it ties to even.
        assert_eq!(T::F16.parse_value("1.00048828125"), Ok(0x3c00));
        assert_eq!(T::F16.parse_value("1.00048828125000000000001"), Ok(0x3c01));
        assert_eq!(T::F16.parse_value("1.00048828124999999999999"), Ok(0x3c00));
        assert_eq!(T::F16.parse_value("-1.00048828125000000000001"), Ok(0xbc01));
        assert_eq!(
            T::F16.parse_value("100048828125000000000001e-23"),
            Ok(0x3c01)
        );
        // 1 + 3 * 2^-11: midpoint between 0x3c01 and 0x3c02, ties to 0x3c02.
        assert_eq!(T::F16.parse_value("1.00146484375"), Ok(0x3c02));
        assert_eq!(T::F16.parse_value("1.00146484374999999999999"), Ok(0x3c01));
        // 65520, the midpoint to infinity.
        assert_eq!(T::F16.parse_value("65520"), Ok(0x7c00));
        assert_eq!(T::F16.parse_value("65519.9999999999999999999"), Ok(0x7bff));
        // 2^-25, the midpoint between 0 and the smallest subnormal.
        assert_eq!(T::F16.parse_value("2.98023223876953125e-8"), Ok(0));
        assert_eq!(
            T::F16.parse_value("2.980232238769531250000000001e-8"),
            Ok(1)
        );
    }

    #[test]
    fn specs() {
        let p = |s: &str| ArgSpec::parse(s).unwrap();
        assert_eq!(
            p("u32:7").value(),
            &SpecValue::Scalar {
                ty: ScalarType::U32,
                bits: 7
            }
        );
        assert_eq!(p("i16:-2").scalar_bytes(), Some(vec![0xfe, 0xff]));
        assert_eq!(p("f16:1").scalar_bytes(), Some(vec![0x00, 0x3c]));
        assert_eq!(p("lds:256").value(), &SpecValue::Lds { bytes: 256 });
        assert_eq!(p("lds:0x100").value(), &SpecValue::Lds { bytes: 256 });
        let b = p("buf:u16:4=iota");
        assert_eq!(b.buffer_size(), Some(8));
        assert_eq!(
            b.buffer_contents().unwrap(),
            Some(vec![0, 0, 1, 0, 2, 0, 3, 0])
        );
        assert_eq!(
            p("buf:u8:3=zero").buffer_contents().unwrap(),
            Some(vec![0; 3])
        );
        assert_eq!(
            p("buf:i16:3=fill:-2").buffer_contents().unwrap(),
            Some(vec![0xfe, 0xff, 0xfe, 0xff, 0xfe, 0xff])
        );
        assert_eq!(
            p("buf:f32:3=iota").buffer_contents().unwrap(),
            Some(
                [0.0f32, 1.0, 2.0]
                    .iter()
                    .flat_map(|f| f.to_le_bytes())
                    .collect()
            )
        );
        assert_eq!(
            p("buf:f16:2=fill:0.5").buffer_contents().unwrap(),
            Some(vec![0x00, 0x38, 0x00, 0x38])
        );
        // iota wraps in the type.
        let c = p("buf:u8:258=iota").buffer_contents().unwrap().unwrap();
        assert_eq!((c[255], c[256], c[257]), (255, 0, 1));
        assert_eq!(p("u32:7").buffer_contents().unwrap(), None);
        assert_eq!(p("u32:7").to_string(), "u32:7");
        assert_eq!(p("u16:0x102").arg_value(0), ArgValue::Bytes(vec![2, 1]));
        assert_eq!(
            p("buf:u8:1=zero").arg_value(0x1000),
            ArgValue::Pointer(0x1000)
        );
        assert_eq!(p("lds:64").arg_value(0), ArgValue::Lds(64));
        assert_eq!("lds:4".parse::<ArgSpec>().unwrap().text(), "lds:4");
    }

    #[test]
    fn parse_errors_name_the_spec() {
        for (spec, msg) in [
            ("u8:300", "--arg u8:300: 300 is out of range for u8"),
            (
                "x32:1",
                "--arg x32:1: unknown type \"x32\" (i8, u8, i16, u16, i32, u32, i64, u64, f16, f32, f64)",
            ),
            (
                "7",
                "--arg 7: expected TYPE:VALUE, buf:TYPE:COUNT=INIT or lds:BYTES",
            ),
            (
                "buf:u32:16",
                "--arg buf:u32:16: expected TYPE:VALUE, buf:TYPE:COUNT=INIT or lds:BYTES",
            ),
            (
                "buf:u32:0=zero",
                "--arg buf:u32:0=zero: the count must be at least 1",
            ),
            (
                "buf:u32:x=zero",
                "--arg buf:u32:x=zero: \"x\" is not a count",
            ),
            (
                "buf:u32:4=ones",
                "--arg buf:u32:4=ones: unknown initializer \"ones\" (zero, iota, fill:VALUE, file:PATH)",
            ),
            (
                "buf:u8:4=fill:256",
                "--arg buf:u8:4=fill:256: 256 is out of range for u8",
            ),
            (
                "buf:u64:0x2000000000000000=zero",
                "--arg buf:u64:0x2000000000000000=zero: 2305843009213693952 elements of u64 is too large",
            ),
            ("lds:0", "--arg lds:0: the count must be at least 1"),
            (
                "lds:4294967296",
                "--arg lds:4294967296: 4294967296 bytes of LDS is more than 4 GiB",
            ),
            ("f32:x", "--arg f32:x: \"x\" is not a number (f32)"),
            (
                "i32:1.5",
                "--arg i32:1.5: \"1.5\" is not a decimal or 0x integer (i32)",
            ),
        ] {
            assert_eq!(ArgSpec::parse(spec).unwrap_err().to_string(), msg);
        }
    }

    /// Random strings over the grammar's alphabet, and random prefixes
    /// glued to valid specs: parse returns a spec or an error, never panics.
    #[test]
    fn random_specs_never_panic() {
        let mut st = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            st ^= st >> 12;
            st ^= st << 25;
            st ^= st >> 27;
            st.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        let alphabet = b"0123456789abcdefxXiu816324:-+.=eEbufldsziorpatnNIF/ ";
        let starts = [
            "",
            "u8:",
            "i64:",
            "f16:",
            "f32:",
            "buf:u32:",
            "buf:f16:3=",
            "lds:",
            "buf:i8:2=fill:",
        ];
        let mut ok = 0;
        for _ in 0..50_000 {
            let mut t = starts[next() as usize % starts.len()].to_owned();
            for _ in 0..next() % 24 {
                t.push(alphabet[next() as usize % alphabet.len()] as char);
            }
            if let Ok(spec) = ArgSpec::parse(&t) {
                ok += 1;
                assert_eq!(spec.text(), t);
                if let Some(b) = spec.scalar_bytes() {
                    assert!(matches!(b.len(), 1 | 2 | 4 | 8));
                }
            }
        }
        assert!(ok > 100, "{ok}");
    }

    #[test]
    fn file_buffers() {
        let dir = std::env::temp_dir().join(format!("argspec-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("data.bin");
        std::fs::write(&f, [1u8, 0, 0, 0, 2, 0, 0, 0]).unwrap();
        let ok = format!("buf:u32:2=file:{}", f.display());
        let s = ArgSpec::parse(&ok).unwrap();
        assert_eq!(
            s.buffer_contents().unwrap(),
            Some(vec![1, 0, 0, 0, 2, 0, 0, 0])
        );
        let short = format!("buf:u32:3=file:{}", f.display());
        assert_eq!(
            ArgSpec::parse(&short).unwrap_err().to_string(),
            format!(
                "--arg {short}: {} is 8 bytes, the buffer is 12",
                f.display()
            )
        );
        // Changed after parsing: read and checked again.
        std::fs::write(&f, [0u8; 4]).unwrap();
        assert!(matches!(
            s.buffer_contents(),
            Err(ArgSpecError::Parse {
                reason: ParseReason::FileLength {
                    len: 4,
                    expected: 8,
                    ..
                },
                ..
            })
        ));
        let missing = dir.join("missing.bin");
        let m = format!("buf:u8:1=file:{}", missing.display());
        assert!(matches!(
            ArgSpec::parse(&m),
            Err(ArgSpecError::Parse {
                reason: ParseReason::File { .. },
                ..
            })
        ));
        let d = format!("buf:u8:1=file:{}", dir.display());
        assert!(matches!(
            ArgSpec::parse(&d),
            Err(ArgSpecError::Parse {
                reason: ParseReason::File { .. },
                ..
            })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
