//! VGPR shapes: a VGPR whose lanes are `base + stride * lane` (mod 2^32)
//! is kept as that pair ([`Affine`]), not as 64 lanes, and the integer
//! operations of index arithmetic work on the pair in O(1).
//!
//! Every wave of a dispatch computes the same affine sequences: the
//! work-item id (`v0 = x + lane` in a wave that lies in one row of X),
//! `id + group * size`, the byte offset `4 * id`, the 64-bit address
//! `base + offset`. Kept as shapes, those are a few integer operations a
//! wave instead of a 64-lane loop each, and a load or store at an address
//! of stride `4 * dwords` is one range check and one copy.
//!
//! The rules:
//!
//! - A tagged VGPR's value is its shape; its lanes in [`Wave::v`] are
//!   stale. [`Wave::reset`] tags the whole file uniform 0; the dispatch
//!   set-up tags the work-item ids of a wave that lies in one row.
//! - A handler here runs only with EXEC all ones and default modifiers
//!   (no `clamp`, `neg`, `abs`, `omod`; the install
//!   ([`handler`]) checks the modifiers once). It returns false, having
//!   changed nothing observable, whenever its sources are not shapes it
//!   can combine exactly; the ordinary handler then runs.
//! - Before an ordinary handler runs, the scheduler materialises what it
//!   may touch ([`Wave::materialize_for`]): the VGPRs a VALU instruction's
//!   operands name, every tagged VGPR for a memory instruction, nothing
//!   for a scalar one. Debug builds assert that no lane read or write of
//!   the ordinary path meets a tagged VGPR.
//!
//! Exactness. Wrapping arithmetic (add, subtract, multiply by a uniform,
//! shift left) maps a shape to a shape mod 2^32 directly. Carries,
//! compares, right shifts, masks and 64-bit values need the lanes as
//! exact integers: a shape is exact as unsigned (or signed) 32-bit values
//! when lane 0 and lane 63 both lie in range after taking the stride from
//! lanes 0 and 1. A linear sequence is monotone, so every lane between the
//! two ends lies in range too, and the exact sequence [`Lin`] (i128) is
//! congruent to the shape lane by lane. A 64-bit pair is exact when both
//! halves are; a 64-bit result splits into a pair of shapes when its
//! quotient by 2^64 is the same at both ends and its low dword never
//! wraps ([`pair_of`]). A carry, borrow or compare is a threshold on a
//! monotone sequence: the same at both ends means the same in every lane;
//! else the mask is computed lane by lane from the exact sequence.

use isa::{Encoding, Opcode};

use super::Ctx;
use super::program::{Dst, EXEC, FusedFn, Inst, ShapedFn, Src};
use super::setup::{PRIVATE_BASE, SHARED_BASE};
use super::wave::{LANES, Lanes, Ty, Wave};

/// Lanes `base + stride * lane`, mod 2^32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Affine {
    /// Lane 0.
    pub base: u32,
    /// The step from one lane to the next.
    pub stride: u32,
}

impl Affine {
    /// Every lane `v`.
    pub const fn uniform(v: u32) -> Self {
        Self { base: v, stride: 0 }
    }

    /// Lane `l`.
    #[inline]
    pub fn lane(self, l: usize) -> u32 {
        self.base.wrapping_add(self.stride.wrapping_mul(l as u32))
    }

    /// Lane `l` for any `l` (mod 2^32): a lane of a later wave of a
    /// work-group in lockstep.
    #[inline]
    pub fn lane_far(self, l: u32) -> u32 {
        self.base.wrapping_add(self.stride.wrapping_mul(l))
    }

    /// The 64 lanes.
    #[inline]
    pub fn lanes(self) -> Lanes {
        let mut out = [0u32; LANES];
        for (l, x) in out.iter_mut().enumerate() {
            *x = self.lane(l);
        }
        out
    }

    /// The value, when every lane has the same.
    #[inline]
    fn value(self) -> Option<u32> {
        (self.stride == 0).then_some(self.base)
    }

    #[inline]
    fn add(self, o: Affine) -> Affine {
        Affine {
            base: self.base.wrapping_add(o.base),
            stride: self.stride.wrapping_add(o.stride),
        }
    }

    #[inline]
    fn sub(self, o: Affine) -> Affine {
        Affine {
            base: self.base.wrapping_sub(o.base),
            stride: self.stride.wrapping_sub(o.stride),
        }
    }

    #[inline]
    fn mul(self, k: u32) -> Affine {
        Affine {
            base: self.base.wrapping_mul(k),
            stride: self.stride.wrapping_mul(k),
        }
    }

    /// Shift left by `k < 32`.
    #[inline]
    fn shl(self, k: u32) -> Affine {
        Affine {
            base: self.base << k,
            stride: self.stride << k,
        }
    }
}

/// A 64-bit VGPR pair (or a 64-bit scalar) as two shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pair {
    lo: Affine,
    hi: Affine,
}

impl Pair {
    fn uniform(v: u64) -> Pair {
        Pair {
            lo: Affine::uniform(v as u32),
            hi: Affine::uniform((v >> 32) as u32),
        }
    }
}

/// Lanes `b + s * lane` as exact integers (lanes 0 to `n`: 63 for a
/// wave, `64 * K - 1` for a work-group of K waves in lockstep, see
/// [`Wave::span_last`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Lin {
    b: i128,
    s: i128,
    n: i128,
}

const LAST: i128 = LANES as i128 - 1;
const P32: i128 = 1 << 32;
const P64: i128 = 1 << 64;

/// Bound on `|b|` and `|s|` of every [`Lin`]: the last lane (`b + n *
/// s`, `n < 2^11`) then never overflows, so lanes are computed without
/// overflow checks (an i128 checked multiply is a library call).
const BOUND: i128 = 1 << 115;

impl Lin {
    /// `b + s * lane` over lanes `0..=n`, when both lie within [`BOUND`].
    #[inline]
    fn new(b: i128, s: i128, n: i128) -> Option<Lin> {
        (b.unsigned_abs() < BOUND as u128 && s.unsigned_abs() < BOUND as u128).then_some(Lin {
            b,
            s,
            n,
        })
    }

    /// Lane `l` (`l <= n`).
    #[inline]
    fn at(self, l: i128) -> i128 {
        self.b + self.s * l
    }

    #[inline(always)]
    fn last(self) -> i128 {
        // A wave's last lane by a constant (a shift and a subtract, not
        // a 128-bit multiply).
        if self.n == LAST {
            self.at(LAST)
        } else {
            self.at(self.n)
        }
    }

    #[inline]
    fn add(self, o: Lin) -> Option<Lin> {
        Lin::new(self.b + o.b, self.s + o.s, self.n)
    }

    #[inline]
    fn sub(self, o: Lin) -> Option<Lin> {
        Lin::new(self.b - o.b, self.s - o.s, self.n)
    }

    #[inline]
    fn offset(self, k: i128) -> Option<Lin> {
        Lin::new(self.b.checked_add(k)?, self.s, self.n)
    }

    #[inline]
    fn scale(self, k: i128) -> Option<Lin> {
        // Factors below 2^60 make products below 2^120: no overflow check
        // (an i128 checked multiply is a library call).
        const SMALL: u128 = 1 << 60;
        if self.b.unsigned_abs() < SMALL
            && self.s.unsigned_abs() < SMALL
            && k.unsigned_abs() < SMALL
        {
            return Lin::new(self.b * k, self.s * k, self.n);
        }
        Lin::new(self.b.checked_mul(k)?, self.s.checked_mul(k)?, self.n)
    }

    /// Whether every lane lies in `[lo, hi)`.
    #[inline(always)]
    fn within(self, lo: i128, hi: i128) -> bool {
        (lo..hi).contains(&self.b) && (lo..hi).contains(&self.last())
    }

    /// The lanes mod 2^32.
    #[inline]
    fn low32(self) -> Affine {
        Affine {
            base: self.b as u32,
            stride: self.s as u32,
        }
    }

    /// `floor(x / 2^k)` lane by lane (`k < 64`): uniform when it is the
    /// same at both ends, linear when `2^k` divides the stride.
    fn shr(self, k: u32) -> Option<Lin> {
        let (b, e) = (self.b >> k, self.last() >> k);
        if b == e {
            Some(Lin { b, s: 0, n: self.n })
        } else if self.s % (1i128 << k) == 0 {
            Some(Lin {
                b,
                s: self.s >> k,
                n: self.n,
            })
        } else {
            None
        }
    }

    /// `x mod 2^k` lane by lane (`k < 64`), when every lane has the same
    /// quotient.
    fn low_bits(self, k: u32) -> Option<Lin> {
        let q = self.b >> k;
        (self.last() >> k == q).then(|| Lin {
            b: self.b - (q << k),
            s: self.s,
            n: self.n,
        })
    }
}

/// The lane mask where `pred` holds, `pred` a threshold on the values
/// (true on one side of a bound): all or none when both ends agree. Over
/// a work-group in lockstep (`x.n > 63`) a mask that is not all or none
/// differs between its waves: `None`.
#[inline(always)]
fn threshold_mask(x: Lin, pred: impl Fn(i128) -> bool) -> Option<u64> {
    let (a, e) = (pred(x.b), pred(x.last()));
    if a == e {
        return Some(if a { u64::MAX } else { 0 });
    }
    lane_mask(x, pred)
}

/// The lane mask where `pred` holds, lane by lane (`x.last()` known to
/// be in range, so no lane overflows); `None` over a work-group in
/// lockstep (`x.n > 63`: one mask cannot say it for every wave).
fn lane_mask(x: Lin, pred: impl Fn(i128) -> bool) -> Option<u64> {
    if x.n != LAST {
        return None;
    }
    Some((0..LANES).fold(0u64, |m, l| m | (u64::from(pred(x.at(l as i128))) << l)))
}

/// The lanes `0..=n` as exact unsigned 32-bit values.
#[inline(always)]
fn exact_u32(a: Affine, n: i128) -> Option<Lin> {
    let b = i128::from(a.base);
    let x = Lin {
        b,
        s: i128::from(a.lane(1)) - b,
        n,
    };
    x.within(0, P32).then_some(x)
}

/// The lanes `0..=n` as exact signed 32-bit values.
#[inline(always)]
fn exact_i32(a: Affine, n: i128) -> Option<Lin> {
    let b = i128::from(a.base as i32);
    let x = Lin {
        b,
        s: i128::from(a.lane(1) as i32) - b,
        n,
    };
    x.within(-(1 << 31), 1 << 31).then_some(x)
}

/// Lanes `b + s * lane` as exact integers that fit in i64 with room to
/// spare (32-bit values and their sums): the carries and compares of
/// 32-bit operations without i128 arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Small {
    b: i64,
    s: i64,
    /// The last lane ([`Lin`]'s `n`).
    n: i64,
}

impl Small {
    /// The lanes `0..=n` as exact unsigned (or signed) 32-bit values.
    #[inline(always)]
    fn exact(a: Affine, signed: bool, n: i128) -> Option<Small> {
        let (b, one) = if signed {
            (i64::from(a.base as i32), i64::from(a.lane(1) as i32))
        } else {
            (i64::from(a.base), i64::from(a.lane(1)))
        };
        let x = Small {
            b,
            s: one - b,
            n: n as i64,
        };
        let range = if signed {
            -(1i64 << 31)..1i64 << 31
        } else {
            0..1i64 << 32
        };
        (range.contains(&x.b) && range.contains(&x.last())).then_some(x)
    }

    #[inline(always)]
    fn last(self) -> i64 {
        if self.n == LAST as i64 {
            self.b + self.s * LAST as i64
        } else {
            self.b + self.s * self.n
        }
    }

    /// The lane mask where the threshold `pred` holds (as
    /// [`threshold_mask`]).
    #[inline(always)]
    fn mask(self, pred: impl Fn(i64) -> bool) -> Option<u64> {
        let (a, e) = (pred(self.b), pred(self.last()));
        if a == e {
            return Some(if a { u64::MAX } else { 0 });
        }
        self.lanes_where(pred)
    }

    /// The lane mask where `pred` holds, lane by lane (as [`lane_mask`]).
    fn lanes_where(self, pred: impl Fn(i64) -> bool) -> Option<u64> {
        if self.n != LAST as i64 {
            return None;
        }
        Some((0..LANES as i64).fold(0u64, |m, l| m | (u64::from(pred(self.b + self.s * l)) << l)))
    }

    #[inline]
    fn low32(self) -> Affine {
        Affine {
            base: self.b as u32,
            stride: self.s as u32,
        }
    }
}

/// The pair's lanes as exact unsigned 64-bit values.
#[inline(always)]
fn exact_u64(p: Pair, n: i128) -> Option<Lin> {
    let (lo, hi) = (exact_u32(p.lo, n)?, exact_u32(p.hi, n)?);
    Some(Lin {
        b: hi.b * P32 + lo.b,
        s: hi.s * P32 + lo.s,
        n,
    })
}

/// The pair's lanes as exact signed 64-bit values.
#[inline(always)]
fn exact_i64(p: Pair, n: i128) -> Option<Lin> {
    let x = exact_u64(p, n)?;
    if x.within(0, 1 << 63) {
        Some(x)
    } else if x.within(1 << 63, P64) {
        x.offset(-P64)
    } else {
        None
    }
}

/// The lanes mod 2^64 as a pair of shapes: when every lane has the same
/// quotient by 2^64 and the high dword of the remainder is linear with a
/// low dword that never wraps.
#[inline(always)]
fn pair_of(r: Lin) -> Option<Pair> {
    // `floor(x / 2^64)` as a shift (an i128 division is a library call).
    let k = r.b >> 64;
    if r.last() >> 64 != k {
        return None;
    }
    let r = r.offset(-k * P64)?;
    let hb = r.b >> 32;
    let hs = (r.at(1) >> 32) - hb;
    let lo = Lin {
        b: r.b - hb * P32,
        s: r.s - hs * P32,
        n: r.n,
    };
    lo.within(0, P32).then(|| Pair {
        lo: lo.low32(),
        hi: Lin {
            b: hb,
            s: hs,
            n: r.n,
        }
        .low32(),
    })
}

/// A 32-bit source's shape: a tagged VGPR's, or a scalar or constant
/// (uniform). `None` for a materialised VGPR.
#[inline(always)]
fn src32(w: &Wave, s: Src) -> Option<Affine> {
    match s {
        Src::V(r) => w.shape(r),
        Src::None | Src::Staged(_) => None,
        other => Some(Affine::uniform(w.scalar32(other, Ty::B32))),
    }
}

/// A 64-bit source's shapes, as [`src32`].
#[inline(always)]
fn src64(w: &Wave, s: Src) -> Option<Pair> {
    match s {
        Src::V(r) => Some(Pair {
            lo: w.shape(r)?,
            hi: w.shape(r.checked_add(1)?)?,
        }),
        Src::None | Src::Staged(_) => None,
        other => Some(Pair::uniform(w.scalar64(other, Ty::B64))),
    }
}

/// A uniform 32-bit source's value.
#[inline(always)]
fn uniform32(w: &Wave, s: Src) -> Option<u32> {
    src32(w, s)?.value()
}

/// Whether `n` VGPRs from `d` can take a result (a null destination
/// discards it; an SGPR one is the ordinary handler's error).
#[inline(always)]
fn writable(w: &Wave, d: Dst, n: usize) -> bool {
    match d {
        Dst::V(r) => usize::from(r) + n <= w.v.len(),
        Dst::Null | Dst::None => true,
        Dst::S(_) => false,
    }
}

#[inline(always)]
fn put32(w: &mut Wave, d: Dst, a: Affine) -> Option<()> {
    if !writable(w, d, 1) {
        return None;
    }
    if let Dst::V(r) = d {
        w.tag(r, a);
    }
    Some(())
}

#[inline(always)]
fn put64(w: &mut Wave, d: Dst, p: Pair) -> Option<()> {
    if !writable(w, d, 2) {
        return None;
    }
    if let Dst::V(r) = d {
        w.tag(r, p.lo);
        w.tag(r + 1, p.hi);
    }
    Some(())
}

#[inline(always)]
fn mov(w: &mut Wave, i: &Inst) -> Option<()> {
    let a = src32(w, i.src[0])?;
    put32(w, i.vdst, a)
}

/// A two-source operation on shapes over lanes `0..=n`.
type Binary = fn(Affine, Affine, i128) -> Option<Affine>;

/// A three-source operation on shapes over lanes `0..=n`.
type Ternary = fn(Affine, Affine, Affine, i128) -> Option<Affine>;

#[inline(always)]
fn binary(w: &mut Wave, i: &Inst, op: Binary) -> Option<()> {
    let r = op(src32(w, i.src[0])?, src32(w, i.src[1])?, w.span_last())?;
    put32(w, i.vdst, r)
}

#[inline(always)]
fn ternary(w: &mut Wave, i: &Inst, op: Ternary) -> Option<()> {
    let r = op(
        src32(w, i.src[0])?,
        src32(w, i.src[1])?,
        src32(w, i.src[2])?,
        w.span_last(),
    )?;
    put32(w, i.vdst, r)
}

/// The carry-in of `v_addc`/`v_subb`: 0 or 1 in every lane, else `None`.
#[inline(always)]
fn carry_in(w: &Wave, i: &Inst) -> Option<i64> {
    match i.src[2] {
        Src::None => Some(0),
        s => match w.scalar64(s, Ty::B64) {
            0 => Some(0),
            u64::MAX => Some(1),
            _ => None,
        },
    }
}

#[derive(Clone, Copy)]
enum Carry {
    Add,
    Sub,
    SubRev,
}

/// `v_add_co`/`v_sub_co`/`v_subrev_co` and the carry-in forms: the sum
/// mod 2^32 to `vdst`, the carry (or borrow) mask to `sdst`.
#[inline(always)]
fn carry(w: &mut Wave, i: &Inst, kind: Carry, with_in: bool) -> Option<()> {
    let n = w.span_last();
    let a = Small::exact(src32(w, i.src[0])?, false, n)?;
    let b = Small::exact(src32(w, i.src[1])?, false, n)?;
    let c = if with_in { carry_in(w, i)? } else { 0 };
    // |values| < 2^34, |strides| < 2^33: no overflow.
    let (r, mask) = match kind {
        Carry::Add => {
            let r = Small {
                b: a.b + b.b + c,
                s: a.s + b.s,
                n: a.n,
            };
            (r, r.mask(|v| v >= 1 << 32)?)
        }
        Carry::Sub => {
            let r = Small {
                b: a.b - b.b - c,
                s: a.s - b.s,
                n: a.n,
            };
            (r, r.mask(|v| v < 0)?)
        }
        Carry::SubRev => {
            let r = Small {
                b: b.b - a.b - c,
                s: b.s - a.s,
                n: a.n,
            };
            (r, r.mask(|v| v < 0)?)
        }
    };
    put32(w, i.vdst, r.low32())?;
    w.write_mask(i.sdst, mask);
    Some(())
}

/// `a * b` with one of them uniform (`v_mul_lo_u32`).
fn mul_lo(a: Affine, b: Affine, _: i128) -> Option<Affine> {
    match (a.value(), b.value()) {
        (_, Some(k)) => Some(a.mul(k)),
        (Some(k), _) => Some(b.mul(k)),
        _ => None,
    }
}

/// `a * b` of 24-bit unsigned values, one of them uniform
/// (`v_mul_u32_u24`): exact below 2^24, the product mod 2^32.
fn mul_u24(a: Affine, b: Affine, n: i128) -> Option<Affine> {
    let small = |x: Affine| exact_u32(x, n).is_some_and(|l| l.within(0, 1 << 24));
    if !small(a) || !small(b) {
        return None;
    }
    mul_lo(a, b, n)
}

/// `b >> (a & 31)`.
fn lshr(a: Affine, b: Affine, n: i128) -> Option<Affine> {
    let k = a.value()? & 31;
    if let Some(v) = b.value() {
        return Some(Affine::uniform(v >> k));
    }
    Some(exact_u32(b, n)?.shr(k)?.low32())
}

/// `b >> (a & 31)`, arithmetic.
fn ashr(a: Affine, b: Affine, n: i128) -> Option<Affine> {
    let k = a.value()? & 31;
    if let Some(v) = b.value() {
        return Some(Affine::uniform(((v as i32) >> k) as u32));
    }
    Some(exact_i32(b, n)?.shr(k)?.low32())
}

/// `a & b`: both uniform, or one a mask of low bits (`2^k - 1`) or of
/// high bits (`!(2^k - 1)`) the other's lanes agree on.
fn and(a: Affine, b: Affine, n: i128) -> Option<Affine> {
    let (x, m) = match (a.value(), b.value()) {
        (Some(u), Some(v)) => return Some(Affine::uniform(u & v)),
        (Some(m), None) => (b, m),
        (None, Some(m)) => (a, m),
        (None, None) => return None,
    };
    if m == u32::MAX {
        return Some(x);
    }
    if m == 0 {
        return Some(Affine::uniform(0));
    }
    if m.wrapping_add(1).is_power_of_two() {
        // Low bits: the lanes share their quotient by 2^k.
        return Some(exact_u32(x, n)?.low_bits(m.trailing_ones())?.low32());
    }
    let low = !m;
    if low.wrapping_add(1).is_power_of_two() && x.stride & low == 0 {
        // High bits: every lane has the low bits of lane 0.
        return Some(Affine {
            base: x.base & m,
            stride: x.stride,
        });
    }
    None
}

fn or(a: Affine, b: Affine, _: i128) -> Option<Affine> {
    Some(Affine::uniform(a.value()? | b.value()?))
}

fn xor(a: Affine, b: Affine, _: i128) -> Option<Affine> {
    Some(Affine::uniform(a.value()? ^ b.value()?))
}

/// `v_bfe_u32`: `(a >> (b & 31)) & (2^(c & 31) - 1)`, offset and width
/// uniform.
fn bfe_u32(a: Affine, b: Affine, c: Affine, n: i128) -> Option<Affine> {
    let (off, width) = (b.value()? & 31, c.value()? & 31);
    if width == 0 {
        return Some(Affine::uniform(0));
    }
    if let Some(v) = a.value() {
        return Some(Affine::uniform((v >> off) & ((1 << width) - 1)));
    }
    Some(exact_u32(a, n)?.shr(off)?.low_bits(width)?.low32())
}

/// `v_lshl_add_u32`: `(a << (b & 31)) + c`.
fn lshl_add(a: Affine, b: Affine, c: Affine, _: i128) -> Option<Affine> {
    Some(a.shl(b.value()? & 31).add(c))
}

/// `v_add_lshl_u32`: `(a + b) << (c & 31)`.
fn add_lshl(a: Affine, b: Affine, c: Affine, _: i128) -> Option<Affine> {
    Some(a.add(b).shl(c.value()? & 31))
}

/// `v_lshl_or_b32`: `(a << (b & 31)) | c`, an add when `c` is uniform
/// and below `2^(b & 31)` (the shifted lanes' low bits are clear).
fn lshl_or(a: Affine, b: Affine, c: Affine, _: i128) -> Option<Affine> {
    let k = b.value()? & 31;
    let c = c.value()?;
    if u64::from(c) >= 1u64 << k {
        let s = a.shl(k).value()?;
        return Some(Affine::uniform(s | c));
    }
    Some(a.shl(k).add(Affine::uniform(c)))
}

/// `v_mad_u32_u24`: `a * b + c` of 24-bit unsigned `a`, `b`.
fn mad_u24(a: Affine, b: Affine, c: Affine, n: i128) -> Option<Affine> {
    Some(mul_u24(a, b, n)?.add(c))
}

/// 64-bit `src1` shifted by uniform `src0 & 63` (`v_*rev_b64`).
#[inline(always)]
fn shift64(w: &mut Wave, i: &Inst, kind: u8) -> Option<()> {
    let k = uniform32(w, i.src[0])? & 63;
    let p = src64(w, i.src[1])?;
    let n = w.span_last();
    let r = match kind {
        0 => exact_u64(p, n)?.scale(1i128 << k)?,
        1 => exact_u64(p, n)?.shr(k)?,
        _ => exact_i64(p, n)?.shr(k)?,
    };
    put64(w, i.vdst, pair_of(r)?)
}

/// `v_mad_u64_u32` / `v_mad_i64_i32`: `src0 * src1 + src2` (one of the
/// factors uniform), the carry (or signed overflow) to `sdst`.
#[inline(always)]
fn mad64(w: &mut Wave, i: &Inst, signed: bool) -> Option<()> {
    let (a, b) = (src32(w, i.src[0])?, src32(w, i.src[1])?);
    let c = src64(w, i.src[2])?;
    let n = w.span_last();
    let exact = if signed { exact_i32 } else { exact_u32 };
    let (x, k) = match (a.value(), b.value()) {
        (_, Some(_)) => (exact(a, n)?, exact(b, n)?.b),
        (Some(_), _) => (exact(b, n)?, exact(a, n)?.b),
        _ => return None,
    };
    let c = if signed {
        exact_i64(c, n)?
    } else {
        exact_u64(c, n)?
    };
    let r = x.scale(k)?.add(c)?;
    let p = pair_of(r)?;
    let mask = if signed {
        let out = |v: i128| !(-(1i128 << 63)..(1i128 << 63)).contains(&v);
        if !out(r.b) && !out(r.last()) {
            0
        } else {
            lane_mask(r, out)?
        }
    } else {
        threshold_mask(r, |v| v >= P64)?
    };
    put64(w, i.vdst, p)?;
    w.write_mask(i.sdst, mask);
    Some(())
}

/// `v_cndmask_b32` with a mask of none or all lanes.
#[inline(always)]
fn cndmask(w: &mut Wave, i: &Inst) -> Option<()> {
    let r = match w.scalar64(i.src[2], Ty::B64) {
        0 => src32(w, i.src[0])?,
        u64::MAX => src32(w, i.src[1])?,
        _ => return None,
    };
    put32(w, i.vdst, r)
}

/// `v_readlane_b32` / `v_readfirstlane_b32` of a tagged VGPR (EXEC is all
/// ones: the first lane is 0).
fn readlane(w: &mut Wave, i: &Inst, first: bool) -> Option<()> {
    let Src::V(r) = i.src[0] else { return None };
    let a = w.shape(r)?;
    if w.span_last() != LAST && a.stride != 0 {
        // A work-group in lockstep: each wave reads its own lane.
        return None;
    }
    let lane = if first {
        0
    } else {
        (w.scalar32(i.src[1], Ty::B32) & 63) as usize
    };
    w.write_s32(i.sdst, a.lane(lane));
    Some(())
}

/// Compare types.
const U32: u8 = 0;
const I32: u8 = 1;
const U64: u8 = 2;
const I64: u8 = 3;

/// `v_cmp[x]_<cond>_<type>` of integers: conditions as [`super::vcmp`]'s
/// (0 F, 1 LT, 2 EQ, 3 LE, 4 GT, 5 NE, 6 GE, 7 T).
fn cmp<const T: u8, const C: u8, const X: bool>(w: &mut Wave, i: &Inst) -> Option<()> {
    if T == U32 || T == I32 {
        let signed = T == I32;
        let n = w.span_last();
        let a = Small::exact(src32(w, i.src[0])?, signed, n)?;
        let b = Small::exact(src32(w, i.src[1])?, signed, n)?;
        let d = Small {
            b: a.b - b.b,
            s: a.s - b.s,
            n: a.n,
        };
        let mask = match C {
            0 => 0,
            1 => d.mask(|v| v < 0)?,
            2 if d.s == 0 => u64::MAX * u64::from(d.b == 0),
            2 => d.lanes_where(|v| v == 0)?,
            3 => d.mask(|v| v <= 0)?,
            4 => d.mask(|v| v > 0)?,
            5 if d.s == 0 => u64::MAX * u64::from(d.b != 0),
            5 => d.lanes_where(|v| v != 0)?,
            6 => d.mask(|v| v >= 0)?,
            _ => u64::MAX,
        };
        w.write_mask(i.sdst, mask);
        if X {
            w.set_s64(EXEC, mask);
        }
        return Some(());
    }
    let n = w.span_last();
    let (a, b) = if T == U64 {
        (
            exact_u64(src64(w, i.src[0])?, n)?,
            exact_u64(src64(w, i.src[1])?, n)?,
        )
    } else {
        (
            exact_i64(src64(w, i.src[0])?, n)?,
            exact_i64(src64(w, i.src[1])?, n)?,
        )
    };
    let d = a.sub(b)?;
    let mask = match C {
        0 => 0,
        1 => threshold_mask(d, |v| v < 0)?,
        2 if d.s == 0 => u64::MAX * u64::from(d.b == 0),
        2 => lane_mask(d, |v| v == 0)?,
        3 => threshold_mask(d, |v| v <= 0)?,
        4 => threshold_mask(d, |v| v > 0)?,
        5 if d.s == 0 => u64::MAX * u64::from(d.b != 0),
        5 => lane_mask(d, |v| v != 0)?,
        6 => threshold_mask(d, |v| v >= 0)?,
        _ => u64::MAX,
    };
    w.write_mask(i.sdst, mask);
    if X {
        w.set_s64(EXEC, mask);
    }
    Some(())
}

/// Runs a shape handler of a VALU operation (EXEC all ones only).
macro_rules! alu {
    ($f:expr) => {
        Some(|w: &mut Wave, i: &Inst, _: &mut Ctx<'_>| -> bool {
            let f: fn(&mut Wave, &Inst) -> Option<()> = $f;
            w.exec() == u64::MAX && f(w, i).is_some()
        })
    };
}

/// The shape handler of an integer compare, from its mnemonic.
fn compare(op: Opcode) -> Option<ShapedFn> {
    let (x, cond, ty) = super::vcmp::split_name(op)?;
    let t = match ty {
        "u32" => U32,
        "i32" => I32,
        "u64" => U64,
        "i64" => I64,
        _ => return None,
    };
    let c = ["f", "lt", "eq", "le", "gt", "ne", "ge", "t"]
        .iter()
        .position(|&n| n == cond)? as u8;
    macro_rules! pick {
        (@c $t:ident, $x:literal) => {
            match c {
                0 => alu!(cmp::<$t, 0, $x>),
                1 => alu!(cmp::<$t, 1, $x>),
                2 => alu!(cmp::<$t, 2, $x>),
                3 => alu!(cmp::<$t, 3, $x>),
                4 => alu!(cmp::<$t, 4, $x>),
                5 => alu!(cmp::<$t, 5, $x>),
                6 => alu!(cmp::<$t, 6, $x>),
                _ => alu!(cmp::<$t, 7, $x>),
            }
        };
        ($($t:ident)*) => {
            match (t, x) {
                $(
                    ($t, false) => pick!(@c $t, false),
                    ($t, true) => pick!(@c $t, true),
                )*
                _ => None,
            }
        };
    }
    pick!(U32 I32 U64 I64)
}

/// The shape handler of a VALU operation.
fn valu(op: Opcode) -> Option<ShapedFn> {
    use Opcode::*;
    match op {
        V_MOV_B32 => alu!(mov),
        V_ADD_U32 | V_ADD_I32 => alu!(|w, i| binary(w, i, |a, b, _| Some(a.add(b)))),
        V_SUB_U32 | V_SUB_I32 => alu!(|w, i| binary(w, i, |a, b, _| Some(a.sub(b)))),
        V_SUBREV_U32 => alu!(|w, i| binary(w, i, |a, b, _| Some(b.sub(a)))),
        V_ADD_CO_U32 => alu!(|w, i| carry(w, i, Carry::Add, false)),
        V_SUB_CO_U32 => alu!(|w, i| carry(w, i, Carry::Sub, false)),
        V_SUBREV_CO_U32 => alu!(|w, i| carry(w, i, Carry::SubRev, false)),
        V_ADDC_CO_U32 => alu!(|w, i| carry(w, i, Carry::Add, true)),
        V_SUBB_CO_U32 => alu!(|w, i| carry(w, i, Carry::Sub, true)),
        V_SUBBREV_CO_U32 => alu!(|w, i| carry(w, i, Carry::SubRev, true)),
        V_MUL_LO_U32 => alu!(|w, i| binary(w, i, mul_lo)),
        V_MUL_U32_U24 => alu!(|w, i| binary(w, i, mul_u24)),
        V_MAD_U32_U24 => alu!(|w, i| ternary(w, i, mad_u24)),
        V_LSHLREV_B32 => alu!(|w, i| binary(w, i, |a, b, _| Some(b.shl(a.value()? & 31)))),
        V_LSHRREV_B32 => alu!(|w, i| binary(w, i, lshr)),
        V_ASHRREV_I32 => alu!(|w, i| binary(w, i, ashr)),
        V_AND_B32 => alu!(|w, i| binary(w, i, and)),
        V_OR_B32 => alu!(|w, i| binary(w, i, or)),
        V_XOR_B32 => alu!(|w, i| binary(w, i, xor)),
        V_BFE_U32 => alu!(|w, i| ternary(w, i, bfe_u32)),
        V_LSHL_ADD_U32 => alu!(|w, i| ternary(w, i, lshl_add)),
        V_ADD_LSHL_U32 => alu!(|w, i| ternary(w, i, add_lshl)),
        V_ADD3_U32 => alu!(|w, i| ternary(w, i, |a, b, c, _| Some(a.add(b).add(c)))),
        V_LSHL_OR_B32 => alu!(|w, i| ternary(w, i, lshl_or)),
        V_LSHLREV_B64 => alu!(|w, i| shift64(w, i, 0)),
        V_LSHRREV_B64 => alu!(|w, i| shift64(w, i, 1)),
        V_ASHRREV_I64 => alu!(|w, i| shift64(w, i, 2)),
        V_MAD_U64_U32 => alu!(|w, i| mad64(w, i, false)),
        V_MAD_I64_I32 => alu!(|w, i| mad64(w, i, true)),
        V_CNDMASK_B32 => alu!(cndmask),
        V_READLANE_B32 => alu!(|w, i| readlane(w, i, false)),
        V_READFIRSTLANE_B32 => alu!(|w, i| readlane(w, i, true)),
        _ => compare(op),
    }
}

/// The shape handler of `inst`, if its operation has one in this
/// encoding with these modifiers.
pub(crate) fn handler(inst: &Inst, encoding: Encoding) -> Option<ShapedFn> {
    match encoding {
        Encoding::Flat => return super::vmem::shaped(inst.op),
        Encoding::Vop1 | Encoding::Vop2 | Encoding::Vopc | Encoding::Vop3 => {}
        _ => return None,
    }
    // `op_sel` selects 16-bit halves, of which these operations have
    // none (in VOP3b its bits are the `sdst` field).
    let m = &inst.mods;
    if m.neg != 0 || m.abs != 0 || m.clamp || m.omod != 0 {
        return None;
    }
    valu(inst.op)
}

/// A run of instructions starting at `insts[0]` that one handler runs
/// ([`FusedFn`]), if it is one compilers emit often:
///
/// - `v_mov_b32 vH, x; v_add_co_u32 vL, vcc, a, b; v_addc_co_u32 vH,
///   vcc, c, d, vcc`: a 64-bit add (of a scalar pair, or a constant, to a
///   VGPR pair: an address), three dispatches as one.
///
/// The handler runs the instructions in order, each exactly as its own
/// shape handler (the same rules, the same fallback: it stops before the
/// first one whose shapes do not apply), so the pattern decides only
/// when it is used, never what it computes.
pub(crate) fn idiom(insts: &[Inst]) -> Option<FusedFn> {
    use Opcode::*;
    let [a, b, c, ..] = insts else { return None };
    let shaped = |i: &Inst| i.shaped.is_some();
    if a.op == V_MOV_B32
        && b.op == V_ADD_CO_U32
        && c.op == V_ADDC_CO_U32
        && shaped(a)
        && shaped(b)
        && shaped(c)
        && a.nops_after == 0
        && b.nops_after == 0
    {
        return Some(add64);
    }
    None
}

/// [`idiom`]'s 64-bit add: `v_mov_b32`, `v_add_co_u32`, `v_addc_co_u32`.
fn add64(w: &mut Wave, insts: &[Inst], _: &mut Ctx<'_>) -> usize {
    let [a, b, c, ..] = insts else { return 0 };
    if w.exec() != u64::MAX {
        return 0;
    }
    if mov(w, a).is_none() {
        return 0;
    }
    if carry(w, b, Carry::Add, false).is_none() {
        return 1;
    }
    if carry(w, c, Carry::Add, true).is_none() {
        return 2;
    }
    3
}

/// The address of lane 0 of a FLAT/GLOBAL access of `dwords` dwords a
/// lane whose address shapes give lane `l` the address `lane0 + 4 *
/// dwords * l` (dword aligned, no wrap past 2^64, and for FLAT no lane in
/// the LDS or private aperture) over every lane the shapes span (a
/// wave's, or a work-group's in lockstep): the accesses tile one span.
/// `None` when the addresses are not shapes of that form.
pub(crate) fn unit_stride_address(w: &Wave, i: &Inst, flat: bool, dwords: usize) -> Option<u64> {
    let Src::V(r) = i.addr else { return None };
    // The last lane: 63, or the group's in lockstep (the accesses of all
    // its waves then tile one span).
    let n = w.span_last();
    let bytes = 4 * dwords as u64;
    // The low dword's lanes exact (no wrap) with stride `bytes`: then the
    // addresses step by `bytes` exactly when the high dword (if any) is
    // uniform (a varying exact high dword would step by 2^32 or more).
    let lo = w.shape(r)?;
    if u64::from(lo.stride) != bytes || u64::from(lo.base) + n as u64 * bytes >= 1 << 32 {
        return None;
    }
    let base = match (flat, i.saddr) {
        (false, Src::S(_)) => i128::from(w.scalar64(i.saddr, Ty::B64)),
        _ => {
            let hi = w.shape(r.checked_add(1)?)?;
            if hi.stride != 0 {
                return None;
            }
            i128::from(hi.base) << 32
        }
    };
    let b = base + i128::from(lo.base) + i128::from(i.mods.offset);
    let last = b + n * bytes as i128;
    if b % 4 != 0 || b < 0 || last >= P64 - bytes as i128 {
        return None;
    }
    if flat {
        let special = |v: i128| {
            let top = (v as u64) & !0xffff_ffff;
            top == SHARED_BASE || top == PRIVATE_BASE
        };
        if special(b) || special(last) {
            return None;
        }
    }
    Some(b as u64)
}

#[cfg(test)]
mod encodings;
#[cfg(test)]
mod tests;
