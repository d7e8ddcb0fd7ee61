//! A zero-copy, allocation-free, non-recursive MessagePack reader.
//!
//! Built for the `NT_AMDGPU_METADATA` note (AMDGPUUsage "Code Object V3
//! Metadata": a MessagePack map), but it reads any MessagePack value
//! (msgpack spec, "Formats"). Nothing is copied: strings and binaries borrow
//! the input, and arrays and maps are lazy [`Array`] / [`Map`] handles over
//! their encoded bytes that are decoded again when iterated.
//!
//! Untrusted input cannot make it misbehave:
//! - nesting deeper than [`MAX_DEPTH`] is an [`ErrorKind::LimitExceeded`]
//!   error; skipping and walking use a fixed-size stack, never recursion;
//! - a container may hold at most [`MAX_CONTAINER_LEN`] entries, and since
//!   every element takes at least one byte, a count larger than the bytes
//!   left is rejected up front ("count exceeds the remaining
//!   input"): no loop runs longer than the input is long;
//! - every length is checked against the input before use.
//!
//! Reading a container checks its structure (lengths, counts, depth) and
//! steps over it without decoding; its items, and the UTF-8 of its strings,
//! are checked when they are decoded (iterating, or [`walk`]).
//!
//! [`walk`] visits a whole value depth-first with a [`Visitor`], which is
//! how tools print the map as JSON with the exact keys.
//!
//! ```
//! use loader_core::msgpack::{self, Position, Value, Visitor};
//! // {"a": [1, -2], "b": "x"}
//! let doc = [0x82, 0xa1, b'a', 0x92, 0x01, 0xfe, 0xa1, b'b', 0xa1, b'x'];
//! let map = msgpack::read_document(&doc)?.as_map().unwrap();
//! assert_eq!(map.get("b")?, Some(Value::Str("x")));
//! let a = map.get("a")?.and_then(|v| v.as_array()).unwrap();
//! let items: Vec<_> = a.iter().collect::<Result<_, _>>()?;
//! assert_eq!(items, [Value::UInt(1), Value::Int(-2)]);
//!
//! // Count the keys of every map, at any depth, without recursion.
//! struct Keys(u32);
//! impl<'a> Visitor<'a> for Keys {
//!     fn scalar(&mut self, pos: Position, _: Value<'a>) -> loader_core::Result<()> {
//!         if let Position::Key(_) = pos { self.0 += 1 }
//!         Ok(())
//!     }
//! }
//! let mut k = Keys(0);
//! msgpack::walk(&doc, &mut k)?;
//! assert_eq!(k.0, 2);
//! # Ok::<(), loader_core::Error>(())
//! ```
//!
//! [`ErrorKind::LimitExceeded`]: crate::ErrorKind::LimitExceeded

use crate::error::{Error, Location, Result};
use core::fmt;

/// Deepest nesting of arrays and maps accepted (the AMDGPU metadata map is
/// 4 levels deep: map, `amdhsa.kernels` array, kernel map, `.args` array,
/// argument map).
pub const MAX_DEPTH: usize = 32;

/// Most entries accepted in one array or map (16 Mi), whatever the input
/// size; a larger count is [`ErrorKind::LimitExceeded`]. Independently,
/// a count larger than the bytes left is always rejected.
///
/// [`ErrorKind::LimitExceeded`]: crate::ErrorKind::LimitExceeded
pub const MAX_CONTAINER_LEN: u32 = 1 << 24;

/// A decoded MessagePack value. Containers are lazy handles.
#[derive(Clone, Copy, PartialEq)]
pub enum Value<'a> {
    /// `nil`.
    Nil,
    /// `true` / `false`.
    Bool(bool),
    /// A non-negative integer of any width (positive fixint, uint 8-64, and
    /// int 8-64 encodings of non-negative values).
    UInt(u64),
    /// A negative integer (negative fixint, int 8-64).
    Int(i64),
    /// `float 32`.
    F32(f32),
    /// `float 64`.
    F64(f64),
    /// A string (checked to be UTF-8).
    Str(&'a str),
    /// A binary.
    Bin(&'a [u8]),
    /// An extension: type and data.
    Ext(i8, &'a [u8]),
    /// An array.
    Array(Array<'a>),
    /// A map.
    Map(Map<'a>),
}

impl fmt::Debug for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Nil => f.write_str("nil"),
            Self::Bool(b) => write!(f, "{b}"),
            Self::UInt(v) => write!(f, "{v}"),
            Self::Int(v) => write!(f, "{v}"),
            Self::F32(v) => write!(f, "{v}"),
            Self::F64(v) => write!(f, "{v}"),
            Self::Str(s) => write!(f, "{s:?}"),
            Self::Bin(b) => write!(f, "bin({})", b.len()),
            Self::Ext(t, b) => write!(f, "ext({t}, {})", b.len()),
            Self::Array(a) => write!(f, "array({})", a.len()),
            Self::Map(m) => write!(f, "map({})", m.len()),
        }
    }
}

impl<'a> Value<'a> {
    /// A short name of the value's type, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::Nil => "nil",
            Self::Bool(_) => "bool",
            Self::UInt(_) | Self::Int(_) => "integer",
            Self::F32(_) | Self::F64(_) => "float",
            Self::Str(_) => "string",
            Self::Bin(_) => "binary",
            Self::Ext(..) => "extension",
            Self::Array(_) => "array",
            Self::Map(_) => "map",
        }
    }

    /// The value as an unsigned integer (any non-negative integer).
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Self::UInt(v) => Some(v),
            _ => None,
        }
    }

    /// The value as a signed integer.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Self::UInt(v) => i64::try_from(v).ok(),
            Self::Int(v) => Some(v),
            _ => None,
        }
    }

    /// The value as a bool.
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Self::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The value as a string.
    pub fn as_str(&self) -> Option<&'a str> {
        match *self {
            Self::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value as an array.
    pub fn as_array(&self) -> Option<Array<'a>> {
        match *self {
            Self::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The value as a map.
    pub fn as_map(&self) -> Option<Map<'a>> {
        match *self {
            Self::Map(m) => Some(m),
            _ => None,
        }
    }
}

/// One encoded item as read from the input, before containers are skipped.
#[derive(Clone, Copy)]
enum Token<'a> {
    Scalar(Value<'a>),
    ArrayHead(u32),
    MapHead(u32),
}

/// A lazy array: `len` encoded values in `data`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Array<'a> {
    data: &'a [u8],
    len: u32,
    /// Offset of `data` in the document, for error locations.
    base: usize,
    /// Nesting depth of the elements.
    depth: u8,
}

/// A lazy map: `len` key/value pairs in `data`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Map<'a> {
    data: &'a [u8],
    len: u32,
    base: usize,
    depth: u8,
}

impl fmt::Debug for Array<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Array(len {}, offset {:#x})", self.len, self.base)
    }
}

impl fmt::Debug for Map<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Map(len {}, offset {:#x})", self.len, self.base)
    }
}

impl<'a> Array<'a> {
    /// Number of elements.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Offset of the first element in the document.
    pub fn offset(&self) -> usize {
        self.base
    }

    /// The elements, in order. Fused after the first error.
    pub fn iter(&self) -> ArrayIter<'a> {
        ArrayIter {
            cursor: Cursor::nested(self.data, self.base, self.depth),
            left: self.len,
            done: false,
        }
    }
}

impl<'a> IntoIterator for Array<'a> {
    type Item = Result<Value<'a>>;
    type IntoIter = ArrayIter<'a>;
    fn into_iter(self) -> ArrayIter<'a> {
        self.iter()
    }
}

impl<'a> Map<'a> {
    /// Number of key/value pairs.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether there are no pairs.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Offset of the first key in the document.
    pub fn offset(&self) -> usize {
        self.base
    }

    /// The pairs, in order. Fused after the first error.
    pub fn iter(&self) -> MapIter<'a> {
        MapIter {
            cursor: Cursor::nested(self.data, self.base, self.depth),
            left: self.len,
            done: false,
        }
    }

    /// The value of the first pair whose key is the string `key`; other
    /// keys (of any type) are skipped without being decoded.
    pub fn get(&self, key: &str) -> Result<Option<Value<'a>>> {
        let mut c = Cursor::nested(self.data, self.base, self.depth);
        for _ in 0..self.len {
            let matches = match c.token()? {
                Token::Scalar(Value::Str(k)) => k == key,
                Token::Scalar(_) => false,
                Token::ArrayHead(n) => {
                    c.skip_contents(n, 1)?;
                    false
                }
                Token::MapHead(n) => {
                    c.skip_contents(n, 2)?;
                    false
                }
            };
            if matches {
                return c.read().map(Some);
            }
            c.skip()?;
        }
        Ok(None)
    }
}

impl<'a> IntoIterator for Map<'a> {
    type Item = Result<(Value<'a>, Value<'a>)>;
    type IntoIter = MapIter<'a>;
    fn into_iter(self) -> MapIter<'a> {
        self.iter()
    }
}

/// Iterator over an [`Array`].
#[derive(Clone, Debug)]
pub struct ArrayIter<'a> {
    cursor: Cursor<'a>,
    left: u32,
    done: bool,
}

impl<'a> Iterator for ArrayIter<'a> {
    type Item = Result<Value<'a>>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.left == 0 {
            return None;
        }
        self.left -= 1;
        let r = self.cursor.read();
        self.done = r.is_err();
        Some(r)
    }
}

impl core::iter::FusedIterator for ArrayIter<'_> {}

/// Iterator over a [`Map`].
#[derive(Clone, Debug)]
pub struct MapIter<'a> {
    cursor: Cursor<'a>,
    left: u32,
    done: bool,
}

impl<'a> Iterator for MapIter<'a> {
    type Item = Result<(Value<'a>, Value<'a>)>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.left == 0 {
            return None;
        }
        self.left -= 1;
        let r = self
            .cursor
            .read()
            .and_then(|k| Ok((k, self.cursor.read()?)));
        self.done = r.is_err();
        Some(r)
    }
}

impl core::iter::FusedIterator for MapIter<'_> {}

/// One open container of a [`walk`]: values left, index of the next one,
/// and whether it is a map (values alternate key, value).
#[derive(Clone, Copy)]
struct Level {
    left: u32,
    index: u32,
    map: bool,
}

impl Level {
    const EMPTY: Self = Self {
        left: 0,
        index: 0,
        map: false,
    };
}

/// A position in a MessagePack document: decodes one value at a time.
#[derive(Clone, Debug)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    base: usize,
    depth: u8,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of a document.
    pub fn new(data: &'a [u8]) -> Self {
        Self {
            data,
            pos: 0,
            base: 0,
            depth: 0,
        }
    }

    fn nested(data: &'a [u8], base: usize, depth: u8) -> Self {
        Self {
            data,
            pos: 0,
            base,
            depth,
        }
    }

    /// Offset of the next value in the document.
    pub fn offset(&self) -> usize {
        self.base.saturating_add(self.pos)
    }

    /// Whether all input has been read.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    fn here(&self) -> Location {
        Location::Offset(self.offset() as u64)
    }

    /// The unread input (`pos <= data.len()` always holds: `pos` only
    /// moves forward by lengths checked against what is left).
    #[inline]
    fn rest(&self) -> &'a [u8] {
        self.data.get(self.pos..).unwrap_or(&[])
    }

    #[inline]
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        match self.rest().get(..n) {
            Some(s) => {
                // Cannot overflow: `n` fits in what is left.
                self.pos += n;
                Ok(s)
            }
            None => Err(self.short(n)),
        }
    }

    /// The error of a `take(n)` that does not fit; out of line, so the
    /// readers stay small (no location is computed on success).
    #[cold]
    #[inline(never)]
    fn short(&self, n: usize) -> Error {
        let at = self.here();
        if self.pos.checked_add(n).is_none() {
            Error::overflow("length overflows", at)
        } else {
            Error::truncated("value runs past the end of the input", at)
        }
    }

    #[inline]
    fn be<const N: usize>(&mut self) -> Result<[u8; N]> {
        match self.rest().first_chunk::<N>() {
            Some(a) => {
                // Cannot overflow: `N` bytes are left.
                self.pos += N;
                Ok(*a)
            }
            None => Err(self.short(N)),
        }
    }

    #[inline]
    fn byte(&mut self) -> Result<u8> {
        Ok(self.be::<1>()?[0])
    }

    #[inline]
    fn len8(&mut self) -> Result<usize> {
        Ok(usize::from(self.byte()?))
    }
    #[inline]
    fn len16(&mut self) -> Result<usize> {
        Ok(usize::from(u16::from_be_bytes(self.be()?)))
    }
    #[inline]
    fn len32(&mut self) -> Result<usize> {
        usize::try_from(u32::from_be_bytes(self.be()?))
            .map_err(|_| Error::overflow("length does not fit", self.here()))
    }

    #[inline]
    fn str(&mut self, n: usize) -> Result<Value<'a>> {
        let start = self.pos;
        let s = self.take(n)?;
        match core::str::from_utf8(s) {
            Ok(s) => Ok(Value::Str(s)),
            Err(_) => Err(self.not_utf8(start)),
        }
    }

    #[cold]
    #[inline(never)]
    fn not_utf8(&self, start: usize) -> Error {
        let at = Location::Offset(self.base.saturating_add(start) as u64);
        Error::malformed("string is not UTF-8", at)
    }

    fn ext(&mut self, n: usize) -> Result<Value<'a>> {
        let t = self.byte()? as i8;
        Ok(Value::Ext(t, self.take(n)?))
    }

    /// Reads one item header; container contents are left unread.
    #[inline]
    fn token(&mut self) -> Result<Token<'a>> {
        let b = self.byte()?;
        let v = match b {
            0x00..=0x7f => Value::UInt(u64::from(b)),
            0x80..=0x8f => return Ok(Token::MapHead(u32::from(b & 0x0f))),
            0x90..=0x9f => return Ok(Token::ArrayHead(u32::from(b & 0x0f))),
            0xa0..=0xbf => self.str(usize::from(b & 0x1f))?,
            0xc0 => Value::Nil,
            0xc1 => return Err(self.reserved()),
            0xc2 => Value::Bool(false),
            0xc3 => Value::Bool(true),
            0xc4 => {
                let n = self.len8()?;
                Value::Bin(self.take(n)?)
            }
            0xc5 => {
                let n = self.len16()?;
                Value::Bin(self.take(n)?)
            }
            0xc6 => {
                let n = self.len32()?;
                Value::Bin(self.take(n)?)
            }
            0xc7 => {
                let n = self.len8()?;
                self.ext(n)?
            }
            0xc8 => {
                let n = self.len16()?;
                self.ext(n)?
            }
            0xc9 => {
                let n = self.len32()?;
                self.ext(n)?
            }
            0xca => Value::F32(f32::from_be_bytes(self.be()?)),
            0xcb => Value::F64(f64::from_be_bytes(self.be()?)),
            0xcc => Value::UInt(u64::from(self.byte()?)),
            0xcd => Value::UInt(u64::from(u16::from_be_bytes(self.be()?))),
            0xce => Value::UInt(u64::from(u32::from_be_bytes(self.be()?))),
            0xcf => Value::UInt(u64::from_be_bytes(self.be()?)),
            0xd0 => int(i64::from(self.byte()? as i8)),
            0xd1 => int(i64::from(i16::from_be_bytes(self.be()?))),
            0xd2 => int(i64::from(i32::from_be_bytes(self.be()?))),
            0xd3 => int(i64::from_be_bytes(self.be()?)),
            0xd4 => self.ext(1)?,
            0xd5 => self.ext(2)?,
            0xd6 => self.ext(4)?,
            0xd7 => self.ext(8)?,
            0xd8 => self.ext(16)?,
            0xd9 => {
                let n = self.len8()?;
                self.str(n)?
            }
            0xda => {
                let n = self.len16()?;
                self.str(n)?
            }
            0xdb => {
                let n = self.len32()?;
                self.str(n)?
            }
            0xdc => return Ok(Token::ArrayHead(u32::from(u16::from_be_bytes(self.be()?)))),
            0xdd => return Ok(Token::ArrayHead(u32::from_be_bytes(self.be()?))),
            0xde => return Ok(Token::MapHead(u32::from(u16::from_be_bytes(self.be()?)))),
            0xdf => return Ok(Token::MapHead(u32::from_be_bytes(self.be()?))),
            0xe0..=0xff => Value::Int(i64::from(b as i8)),
        };
        Ok(Token::Scalar(v))
    }

    /// The error for the type byte 0xc1 just read.
    #[cold]
    #[inline(never)]
    fn reserved(&self) -> Error {
        let at = self.base.saturating_add(self.pos).saturating_sub(1);
        Error::malformed(
            "reserved MessagePack type byte 0xc1",
            Location::Offset(at as u64),
        )
    }

    /// Checks that `count` items of `per` values each can fit in what is
    /// left (each value takes at least one byte).
    fn check_count(&self, count: u32, per: u64) -> Result<()> {
        if count > MAX_CONTAINER_LEN {
            return Err(Error::limit(
                "container count exceeds MAX_CONTAINER_LEN (16 Mi)",
                self.here(),
            ));
        }
        let need = u64::from(count).saturating_mul(per);
        let left = (self.data.len() - self.pos.min(self.data.len())) as u64;
        if need > left {
            return Err(Error::limit(
                "container count exceeds the remaining input",
                self.here(),
            ));
        }
        Ok(())
    }

    /// Steps over one item without decoding it: returns the count and
    /// values-per-entry of a container whose header was read, or `None`
    /// after jumping over a scalar's payload. Strings are not checked for
    /// UTF-8 here; that happens when they are decoded.
    #[inline(never)]
    fn skip_token(&mut self) -> Result<Option<(u32, u64)>> {
        let b = self.byte()?;
        let payload = match b {
            0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => 0,
            0x80..=0x8f => return Ok(Some((u32::from(b & 0x0f), 2))),
            0x90..=0x9f => return Ok(Some((u32::from(b & 0x0f), 1))),
            0xa0..=0xbf => usize::from(b & 0x1f),
            0xc1 => return Err(self.reserved()),
            0xc4 | 0xd9 => self.len8()?,
            0xc5 | 0xda => self.len16()?,
            0xc6 | 0xdb => self.len32()?,
            0xc7 => self.len8()?.saturating_add(1),
            0xc8 => self.len16()?.saturating_add(1),
            0xc9 => self.len32()?.saturating_add(1),
            0xcc | 0xd0 => 1,
            0xcd | 0xd1 => 2,
            0xca | 0xce | 0xd2 => 4,
            0xcb | 0xcf | 0xd3 => 8,
            0xd4 => 2,
            0xd5 => 3,
            0xd6 => 5,
            0xd7 => 9,
            0xd8 => 17,
            0xdc => return Ok(Some((u32::from(u16::from_be_bytes(self.be()?)), 1))),
            0xdd => return Ok(Some((u32::from_be_bytes(self.be()?), 1))),
            0xde => return Ok(Some((u32::from(u16::from_be_bytes(self.be()?)), 2))),
            0xdf => return Ok(Some((u32::from_be_bytes(self.be()?), 2))),
        };
        self.take(payload)?;
        Ok(None)
    }

    /// Skips the contents of a container whose header was just read:
    /// `count` entries of `per` values each. Structure only (lengths,
    /// counts, depth); uses a fixed stack of remaining-value counts, no
    /// recursion.
    fn skip_contents(&mut self, count: u32, per: u64) -> Result<()> {
        // As in `walk_contents`: `left` belongs to the innermost open
        // container, `parents[..open - 1]` to those around it.
        let mut parents = [0u32; MAX_DEPTH];
        let mut open = 0usize;
        let mut left = self.enter(&mut open, count, per)?.left;
        loop {
            if left == 0 {
                open -= 1;
                match open.checked_sub(1).and_then(|i| parents.get(i)) {
                    Some(&l) => left = l,
                    None => return Ok(()),
                }
                continue;
            }
            left -= 1;
            // fixstr and positive fixint (most of the AMDGPU metadata), then
            // fixmap and fixarray, inline; the rest, and every error
            // (at the end of the input too: 0xc1 matches no fast case),
            // through `skip_token`. Each `pos += 1` steps over a byte that
            // is there.
            let b = self.rest().first().copied().unwrap_or(0xc1);
            let (n, per) = if b & 0xe0 == 0xa0 {
                self.pos += 1;
                self.take(usize::from(b & 0x1f))?;
                continue;
            } else if b < 0x80 {
                self.pos += 1;
                continue;
            } else if b & 0xf0 == 0x80 {
                self.pos += 1;
                (u32::from(b & 0x0f), 2)
            } else if b & 0xf0 == 0x90 {
                self.pos += 1;
                (u32::from(b & 0x0f), 1)
            } else {
                match self.skip_token()? {
                    Some(container) => container,
                    None => continue,
                }
            };
            let slot = open.checked_sub(1).and_then(|i| parents.get_mut(i));
            let child = self.enter(&mut open, n, per)?.left;
            if let Some(slot) = slot {
                *slot = left;
            }
            left = child;
        }
    }

    fn walk_contents<V: Visitor<'a> + ?Sized>(
        &mut self,
        count: u32,
        per: u64,
        v: &mut V,
    ) -> Result<()> {
        // The open container is `cur`; `parents[..open - 1]` are those it
        // sits in, outermost first. Counts fit in u32: `check_count` caps a
        // container at MAX_CONTAINER_LEN (2^24) entries of at most 2 values.
        let mut parents = [Level::EMPTY; MAX_DEPTH];
        let mut open = 0usize;
        let mut cur = self.enter(&mut open, count, per)?;
        loop {
            if cur.left == 0 {
                if cur.map {
                    v.end_map()?;
                } else {
                    v.end_array()?;
                }
                open -= 1;
                match open.checked_sub(1).and_then(|i| parents.get(i)) {
                    Some(&p) => cur = p,
                    None => return Ok(()),
                }
                continue;
            }
            cur.left -= 1;
            let i = cur.index;
            cur.index += 1;
            let pos = match (cur.map, i % 2) {
                (false, _) => Position::Element(i),
                (true, 0) => Position::Key(i / 2),
                (true, _) => Position::Value(i / 2),
            };
            // The type bytes of nearly every item of the AMDGPU metadata map
            // (fixint, fixstr, fixmap, fixarray) are decoded here, inline;
            // everything else, and every error, goes through `token`.
            let token = match self.rest().first() {
                Some(&b @ 0x00..=0x7f) => {
                    self.pos += 1;
                    Token::Scalar(Value::UInt(u64::from(b)))
                }
                Some(&b @ 0xa0..=0xbf) => {
                    self.pos += 1;
                    Token::Scalar(self.str(usize::from(b & 0x1f))?)
                }
                Some(&b @ 0x80..=0x8f) => {
                    self.pos += 1;
                    Token::MapHead(u32::from(b & 0x0f))
                }
                Some(&b @ 0x90..=0x9f) => {
                    self.pos += 1;
                    Token::ArrayHead(u32::from(b & 0x0f))
                }
                _ => self.token()?,
            };
            let (n, per) = match token {
                Token::Scalar(s) => {
                    v.scalar(pos, s)?;
                    continue;
                }
                Token::ArrayHead(n) => {
                    v.begin_array(pos, n)?;
                    (n, 1)
                }
                Token::MapHead(n) => {
                    v.begin_map(pos, n)?;
                    (n, 2)
                }
            };
            let slot = open.checked_sub(1).and_then(|i| parents.get_mut(i));
            let child = self.enter(&mut open, n, per)?;
            if let Some(slot) = slot {
                *slot = cur;
            }
            cur = child;
        }
    }

    /// Opens a container of `count` entries of `per` values whose header
    /// was just read, `open` containers deep in this walk: checks its count
    /// and the nesting depth.
    fn enter(&self, open: &mut usize, count: u32, per: u64) -> Result<Level> {
        self.check_count(count, per)?;
        let depth = usize::from(self.depth)
            .saturating_add(*open)
            .saturating_add(1);
        if depth > MAX_DEPTH {
            return Err(Error::limit(
                "MessagePack nesting is deeper than 32 levels",
                self.here(),
            ));
        }
        *open += 1;
        Ok(Level {
            // At most 2^25 (checked above).
            left: count.saturating_mul(if per == 2 { 2 } else { 1 }),
            index: 0,
            map: per == 2,
        })
    }

    /// Skips one value (containers entirely).
    pub fn skip(&mut self) -> Result<()> {
        match self.token()? {
            Token::Scalar(_) => Ok(()),
            Token::ArrayHead(n) => self.skip_contents(n, 1),
            Token::MapHead(n) => self.skip_contents(n, 2),
        }
    }

    /// Reads one value; a container is skipped over and returned as a lazy
    /// handle.
    pub fn read(&mut self) -> Result<Value<'a>> {
        // fixint and fixstr (most keys and values of the AMDGPU metadata)
        // inline, as in `walk_contents`.
        match self.rest().first() {
            Some(&b @ 0x00..=0x7f) => {
                self.pos += 1;
                return Ok(Value::UInt(u64::from(b)));
            }
            Some(&b @ 0xa0..=0xbf) => {
                self.pos += 1;
                return self.str(usize::from(b & 0x1f));
            }
            _ => {}
        }
        let t = self.token()?;
        let (n, per) = match t {
            Token::Scalar(v) => return Ok(v),
            Token::ArrayHead(n) => (n, 1),
            Token::MapHead(n) => (n, 2),
        };
        let depth = self.depth.saturating_add(1);
        if usize::from(depth) > MAX_DEPTH {
            return Err(Error::limit(
                "MessagePack nesting is deeper than 32 levels",
                self.here(),
            ));
        }
        let start = self.pos;
        let base = self.offset();
        self.skip_contents(n, per)?;
        let data = self.data.get(start..self.pos).unwrap_or(&[]);
        Ok(match t {
            Token::MapHead(_) => Value::Map(Map {
                data,
                len: n,
                base,
                depth,
            }),
            _ => Value::Array(Array {
                data,
                len: n,
                base,
                depth,
            }),
        })
    }

    /// Walks one value depth-first, calling `visitor` for every item.
    pub fn walk<V: Visitor<'a> + ?Sized>(&mut self, visitor: &mut V) -> Result<()> {
        match self.token()? {
            Token::Scalar(s) => visitor.scalar(Position::Root, s),
            Token::ArrayHead(n) => {
                visitor.begin_array(Position::Root, n)?;
                self.walk_contents(n, 1, visitor)
            }
            Token::MapHead(n) => {
                visitor.begin_map(Position::Root, n)?;
                self.walk_contents(n, 2, visitor)
            }
        }
    }
}

fn int(v: i64) -> Value<'static> {
    match u64::try_from(v) {
        Ok(u) => Value::UInt(u),
        Err(_) => Value::Int(v),
    }
}

/// Reads a whole document: exactly one value covering all of `data`.
pub fn read_document(data: &[u8]) -> Result<Value<'_>> {
    let mut c = Cursor::new(data);
    let v = c.read()?;
    if !c.is_empty() {
        return Err(Error::malformed(
            "trailing bytes after the MessagePack value",
            c.here(),
        ));
    }
    Ok(v)
}

/// Where a visited item sits in its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// The document's top value.
    Root,
    /// Element `i` of an array.
    Element(u32),
    /// Key of pair `i` of a map.
    Key(u32),
    /// Value of pair `i` of a map.
    Value(u32),
}

/// Receives the items of a document from [`walk`], depth-first, in input
/// order. Every container is announced with its length and closed with an
/// `end_*` call. Returning an error stops the walk with that error.
pub trait Visitor<'a> {
    /// A scalar (never [`Value::Array`] or [`Value::Map`]).
    fn scalar(&mut self, pos: Position, value: Value<'a>) -> Result<()> {
        let _ = (pos, value);
        Ok(())
    }
    /// An array of `len` elements starts.
    fn begin_array(&mut self, pos: Position, len: u32) -> Result<()> {
        let _ = (pos, len);
        Ok(())
    }
    /// The innermost open array ends.
    fn end_array(&mut self) -> Result<()> {
        Ok(())
    }
    /// A map of `len` pairs starts.
    fn begin_map(&mut self, pos: Position, len: u32) -> Result<()> {
        let _ = (pos, len);
        Ok(())
    }
    /// The innermost open map ends.
    fn end_map(&mut self) -> Result<()> {
        Ok(())
    }
}

/// Walks the single value in `data` with `visitor`; trailing bytes are an
/// error (after the walk).
pub fn walk<'a, V: Visitor<'a> + ?Sized>(data: &'a [u8], visitor: &mut V) -> Result<()> {
    let mut c = Cursor::new(data);
    c.walk(visitor)?;
    if !c.is_empty() {
        return Err(Error::malformed(
            "trailing bytes after the MessagePack value",
            c.here(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ErrorKind, Location};

    #[test]
    fn scalars() {
        assert_eq!(read_document(&[0x05]).unwrap(), Value::UInt(5));
        assert_eq!(read_document(&[0xff]).unwrap(), Value::Int(-1));
        assert_eq!(
            read_document(&[0xcd, 0x01, 0x00]).unwrap(),
            Value::UInt(256)
        );
        assert_eq!(read_document(&[0xd0, 0x05]).unwrap(), Value::UInt(5));
        assert_eq!(read_document(&[0xd0, 0xfb]).unwrap(), Value::Int(-5));
        assert_eq!(
            read_document(&[0xa3, b'a', b'b', b'c']).unwrap(),
            Value::Str("abc")
        );
        assert_eq!(read_document(&[0xc3]).unwrap(), Value::Bool(true));
        assert_eq!(read_document(&[0xc0]).unwrap(), Value::Nil);
        assert_eq!(
            read_document(&[0xc1]).unwrap_err().kind(),
            ErrorKind::Malformed
        );
        assert_eq!(
            read_document(&[0xa3, b'a']).unwrap_err().kind(),
            ErrorKind::Truncated
        );
        assert_eq!(
            read_document(&[0xa1, 0xff]).unwrap_err().kind(),
            ErrorKind::Malformed
        );
        assert_eq!(
            read_document(&[0x01, 0x02]).unwrap_err().kind(),
            ErrorKind::Malformed
        );
    }

    #[test]
    fn map_get_and_iter() {
        // {"a": [1, 2], "b": {"c": nil}, "d": 7}
        let doc = [
            0x83, 0xa1, b'a', 0x92, 1, 2, 0xa1, b'b', 0x81, 0xa1, b'c', 0xc0, 0xa1, b'd', 7,
        ];
        let m = read_document(&doc).unwrap().as_map().unwrap();
        assert_eq!(m.len(), 3);
        assert_eq!(m.get("d").unwrap(), Some(Value::UInt(7)));
        assert_eq!(m.get("zz").unwrap(), None);
        let a = m.get("a").unwrap().unwrap().as_array().unwrap();
        let items: [Value; 2] = {
            let mut it = a.iter();
            [it.next().unwrap().unwrap(), it.next().unwrap().unwrap()]
        };
        assert_eq!(items, [Value::UInt(1), Value::UInt(2)]);
        let b = m.get("b").unwrap().unwrap().as_map().unwrap();
        assert_eq!(b.get("c").unwrap(), Some(Value::Nil));
        assert_eq!(m.iter().count(), 3);
    }

    #[test]
    fn huge_counts_and_deep_nesting_are_errors() {
        // array32 claiming 4 billion elements in 5 bytes.
        let e = read_document(&[0xdd, 0xff, 0xff, 0xff, 0xff]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded);
        // A count over MAX_CONTAINER_LEN, even with enough input behind it.
        extern crate std;
        let mut big = std::vec![0u8; 5 + (MAX_CONTAINER_LEN as usize) + 1];
        big[0] = 0xdd;
        big[1..5].copy_from_slice(&(MAX_CONTAINER_LEN + 1).to_be_bytes());
        let e = read_document(&big).unwrap_err();
        assert_eq!(
            e.what(),
            "container count exceeds MAX_CONTAINER_LEN (16 Mi)"
        );
        // map16 claiming 0xffff pairs.
        let e = read_document(&[0xde, 0xff, 0xff, 0, 0]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded);
        // 1000 nested one-element arrays.
        let mut deep = [0x91u8; 1001];
        deep[1000] = 0xc0;
        let e = read_document(&deep).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded);
        // Exactly MAX_DEPTH levels is fine.
        let mut ok = [0x91u8; MAX_DEPTH + 1];
        ok[MAX_DEPTH] = 0xc0;
        read_document(&ok).unwrap();
        let mut too = [0x91u8; MAX_DEPTH + 2];
        too[MAX_DEPTH + 1] = 0xc0;
        assert!(read_document(&too).is_err());
    }

    #[test]
    fn nested_strings_are_checked_when_decoded() {
        // [1, "\xff"]: reading the array checks structure only.
        let doc = [0x92, 0x01, 0xa1, 0xff];
        let a = read_document(&doc).unwrap().as_array().unwrap();
        let mut it = a.iter();
        assert_eq!(it.next().unwrap().unwrap(), Value::UInt(1));
        let e = it.next().unwrap().unwrap_err();
        assert_eq!(
            (e.kind(), e.location()),
            (ErrorKind::Malformed, Location::Offset(3))
        );
        assert!(it.next().is_none());
        struct Nop;
        impl Visitor<'_> for Nop {}
        assert!(walk(&doc, &mut Nop).is_err());
    }

    /// The inline fast paths of `walk` and of the structural skip must fail
    /// exactly as the general decoder does: same kind, same offset.
    #[test]
    fn fast_paths_fail_like_the_general_decoder() {
        struct Nop;
        impl Visitor<'_> for Nop {}
        let cases: [(&[u8], ErrorKind, u64); 8] = [
            // fixstr running past the end, inside a fixmap.
            (&[0x81, 0xa3, b'a'], ErrorKind::Truncated, 2),
            // fixstr that is not UTF-8, as a map value.
            (
                &[0x81, 0xa1, b'k', 0xa2, b'x', 0xff],
                ErrorKind::Malformed,
                4,
            ),
            // fixmap claiming more pairs than bytes are left.
            (&[0x91, 0x83, 0x01], ErrorKind::LimitExceeded, 2),
            // fixarray claiming more elements than bytes are left.
            (&[0x81, 0x01, 0x93, 0x01], ErrorKind::LimitExceeded, 3),
            // Input ends where an element is due.
            (&[0x92, 0x01], ErrorKind::LimitExceeded, 1),
            // Reserved type byte inside an array.
            (&[0x92, 0x01, 0xc1], ErrorKind::Malformed, 2),
            // str8 running past the end, inside an array.
            (&[0x91, 0xd9, 0x05, b'a'], ErrorKind::Truncated, 3),
            // array16 inside a map, claiming too much.
            (
                &[0x81, 0x01, 0xdc, 0x00, 0x09, 0x01],
                ErrorKind::LimitExceeded,
                5,
            ),
        ];
        for (doc, kind, offset) in cases {
            let e = walk(doc, &mut Nop).unwrap_err();
            assert_eq!(
                (e.kind(), e.location()),
                (kind, Location::Offset(offset)),
                "walk {doc:x?}"
            );
            // Reading the document skips nested items structurally: the
            // same errors, except the UTF-8 one, which waits for decoding.
            let r = read_document(doc);
            if kind == ErrorKind::Malformed && doc[doc.len() - 1] == 0xff {
                assert!(r.is_ok(), "read {doc:x?}");
            } else {
                let e = r.unwrap_err();
                assert_eq!(
                    (e.kind(), e.location()),
                    (kind, Location::Offset(offset)),
                    "read {doc:x?}"
                );
            }
        }
        // Nesting: 33 fixarrays deep is one too many for both.
        let mut deep = [0x91u8; MAX_DEPTH + 2];
        deep[MAX_DEPTH + 1] = 0xc0;
        assert_eq!(
            walk(&deep, &mut Nop).unwrap_err().kind(),
            ErrorKind::LimitExceeded
        );
        assert_eq!(
            read_document(&deep).unwrap_err().kind(),
            ErrorKind::LimitExceeded
        );
        let mut ok = [0x91u8; MAX_DEPTH + 1];
        ok[MAX_DEPTH] = 0xc0;
        walk(&ok, &mut Nop).unwrap();
    }

    #[test]
    fn walk_reports_positions() {
        struct Count(u32, u32, u32);
        impl<'a> Visitor<'a> for Count {
            fn scalar(&mut self, pos: Position, _: Value<'a>) -> Result<()> {
                match pos {
                    Position::Key(_) => self.0 += 1,
                    _ => self.1 += 1,
                }
                Ok(())
            }
            fn end_map(&mut self) -> Result<()> {
                self.2 += 1;
                Ok(())
            }
        }
        let doc = [
            0x82, 0xa1, b'a', 0x92, 1, 2, 0xa1, b'b', 0x81, 0xa1, b'c', 0xc0,
        ];
        let mut c = Count(0, 0, 0);
        walk(&doc, &mut c).unwrap();
        assert_eq!((c.0, c.1, c.2), (3, 3, 2));
    }
}
