//! Buffer accesses through a V# beyond the plain loads and stores: the
//! typed (format) loads and stores of every GFX9 data/number format pair,
//! their `d16` forms, the V#'s DST_SEL swizzle, the MUBUF `lds` forms, and
//! the GDS/GWS faults. The kernels are GFX9 assembly
//! (sim/tests/kernels/src/tbuf.s, llvm-mc-19); the outputs are compared
//! with a Rust reference written from the format definitions (GFX9
//! `BUF_DATA_FORMAT_*` / `BUF_NUM_FORMAT_*`), not from the sim's code.

mod support;

use support::*;

const TBUF_CO: &str = "tests/kernels/tbuf.co";

/// DST_SEL X, Y, Z, W = the format's x, y, z, w (V# word 3 [11:0]).
const IDENTITY: u32 = 4 | 5 << 3 | 6 << 6 | 7 << 9;

/// A data format: its code, components, bits per component, packed into
/// one dword (each component's position the sum of the earlier bits), and
/// the number formats tested with it (0 UNORM, 1 SNORM, 2 USCALED,
/// 3 SSCALED, 4 UINT, 5 SINT, 7 FLOAT).
struct Format {
    dfmt: u32,
    bits: &'static [u32],
    packed: bool,
    nfmts: &'static [u8],
}

const fn plain(dfmt: u32, bits: &'static [u32], nfmts: &'static [u8]) -> Format {
    Format {
        dfmt,
        bits,
        packed: false,
        nfmts,
    }
}

const fn packed(dfmt: u32, bits: &'static [u32], nfmts: &'static [u8]) -> Format {
    Format {
        dfmt,
        bits,
        packed: true,
        nfmts,
    }
}

/// Names are most significant component first: 10_11_11 holds x in bits
/// [10:0] (Mesa maps R11G11B10_FLOAT to it), 2_10_10_10 x in [9:0]
/// (R10G10B10A2).
const FORMATS: &[Format] = &[
    plain(1, &[8], &[0, 1, 2, 3, 4, 5]),
    plain(2, &[16], &[0, 1, 2, 3, 4, 5, 7]),
    plain(3, &[8, 8], &[0, 1, 4, 5]),
    plain(4, &[32], &[0, 1, 4, 5, 7]),
    plain(5, &[16, 16], &[0, 1, 2, 3, 7]),
    packed(6, &[11, 11, 10], &[0, 1, 2, 3, 4, 5, 7]),
    packed(7, &[10, 11, 11], &[0, 1, 2, 3, 4, 5, 7]),
    packed(8, &[2, 10, 10, 10], &[0, 1, 2, 3, 4, 5]),
    packed(9, &[10, 10, 10, 2], &[0, 1, 2, 3, 4, 5]),
    plain(10, &[8, 8, 8, 8], &[0, 1, 2, 3, 4, 5]),
    plain(11, &[32, 32], &[4, 7]),
    plain(12, &[16, 16, 16, 16], &[0, 1, 5, 7]),
    plain(13, &[32, 32, 32], &[4, 7]),
    plain(14, &[32, 32, 32, 32], &[5, 7]),
];

impl Format {
    /// Bytes per element.
    fn stride(&self) -> usize {
        if self.packed {
            4
        } else {
            self.bits.iter().sum::<u32>() as usize / 8
        }
    }

    /// Component `c` of the element at `at` in `data`.
    fn component(&self, data: &[u8], at: usize, c: usize) -> u32 {
        if self.packed {
            let d = u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
            let shift: u32 = self.bits[..c].iter().sum();
            (d >> shift) & mask(self.bits[c])
        } else {
            let n = self.bits[c] as usize / 8;
            let mut b = [0u8; 4];
            b[..n].copy_from_slice(&data[at + c * n..at + (c + 1) * n]);
            u32::from_le_bytes(b)
        }
    }
}

fn mask(bits: u32) -> u32 {
    (u64::from(u32::MAX) >> (32 - bits)) as u32
}

fn sext(raw: u32, bits: u32) -> i64 {
    (i64::from(raw) << (64 - bits)) >> (64 - bits)
}

/// A V# of `records` elements of `stride` bytes at `base`.
fn vsharp(base: u64, stride: u64, records: u32, dfmt: u32, nfmt: u32, sel: u32) -> Arg {
    let w = [
        base as u32,
        ((base >> 32) as u32 & 0xffff) | ((stride as u32 & 0x3fff) << 16),
        records,
        (dfmt << 15) | (nfmt << 12) | sel,
    ];
    Arg::Bytes(w.iter().flat_map(|x| x.to_le_bytes()).collect())
}

/// f16 bits widened to f32 (exact).
fn half_to_f32(h: u16) -> f32 {
    let sign = if h >> 15 != 0 { -1.0f32 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f32::from(h & 0x3ff);
    match e {
        0 => sign * m * 2f32.powi(-24),
        31 if m == 0.0 => sign * f32::INFINITY,
        // NaN: the payload moves up with the mantissa, quieted.
        31 => {
            f32::from_bits((u32::from(h >> 15) << 31) | 0x7fc0_0000 | (u32::from(h & 0x3ff) << 13))
        }
        _ => sign * (1.0 + m / 1024.0) * 2f32.powi(e - 15),
    }
}

/// An unsigned float of `bits` bits (5-bit exponent, bias 15, `bits - 5`
/// mantissa bits, no sign) as f32.
fn ufloat(raw: u32, bits: u32) -> f32 {
    let mb = bits - 5;
    let e = (raw >> mb) as i32;
    let m = (raw & mask(mb)) as f32 / (1u32 << mb) as f32;
    match e {
        0 => m * 2f32.powi(-14),
        31 if m == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        _ => (1.0 + m) * 2f32.powi(e - 15),
    }
}

/// The exact value of a `bits`-bit component `raw` of number format
/// `nfmt` (UINT/SINT: the integer).
fn exact(raw: u32, bits: u32, nfmt: u8) -> f64 {
    let smax = (1i64 << (bits - 1)) - 1;
    match nfmt {
        0 => f64::from(raw) / f64::from(mask(bits)),
        1 => (sext(raw, bits) as f64 / smax as f64).max(-1.0),
        2 | 4 => f64::from(raw),
        3 | 5 => sext(raw, bits) as f64,
        _ => match bits {
            16 => f64::from(half_to_f32(raw as u16)),
            10 | 11 => f64::from(ufloat(raw, bits)),
            _ => f64::from(f32::from_bits(raw)),
        },
    }
}

/// The dword a VGPR gets from a `bits`-bit component.
fn to_dword(raw: u32, bits: u32, nfmt: u8) -> u32 {
    match nfmt {
        4 => raw,
        5 => sext(raw, bits) as u32,
        7 if bits == 32 => raw,
        7 if bits != 16 && ufloat(raw, bits).is_nan() => f32::NAN.to_bits(),
        7 if bits == 16 => half_to_f32(raw as u16).to_bits(),
        _ => (exact(raw, bits, nfmt) as f32).to_bits(),
    }
}

/// The non-negative finite f16 values, by their bits (monotonic).
fn halves() -> Vec<f64> {
    (0..0x7c00u16).map(|h| f64::from(half_to_f32(h))).collect()
}

/// `x` rounded to the nearest f16 (ties to the even bits), by search.
fn nearest_half(table: &[f64], x: f64) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    let i = table.partition_point(|&v| v < a);
    if i == table.len() {
        // Past 65504: the f16 step there is 32, half of it 16.
        return sign | if a >= 65520.0 { 0x7c00 } else { 0x7bff };
    }
    let hi = i as u16;
    if i == 0 || table[i] == a {
        return sign | hi;
    }
    let lo = hi - 1;
    let (dl, dh) = (a - table[i - 1], table[i] - a);
    sign | match dl.partial_cmp(&dh).unwrap() {
        std::cmp::Ordering::Less => lo,
        std::cmp::Ordering::Greater => hi,
        std::cmp::Ordering::Equal if lo % 2 == 0 => lo,
        std::cmp::Ordering::Equal => hi,
    }
}

/// The 16 bits a `d16` load gets from a `bits`-bit component.
fn to_half(table: &[f64], raw: u32, bits: u32, nfmt: u8) -> u16 {
    match nfmt {
        4 => raw as u16,
        5 => sext(raw, bits) as u16,
        7 if bits == 16 => raw as u16,
        _ => {
            let x = exact(raw, bits, nfmt);
            if x.is_nan() {
                0x7e00
            } else if x.is_infinite() {
                if x < 0.0 { 0xfc00 } else { 0x7c00 }
            } else {
                nearest_half(table, x)
            }
        }
    }
}

/// Whether f16 bits are a NaN.
fn half_is_nan(h: u16) -> bool {
    h & 0x7c00 == 0x7c00 && h & 0x3ff != 0
}

/// Checks that `stored` (a `bits`-bit component of `nfmt`) is the store
/// conversion of the register dword `v`.
fn check_store(stored: u32, bits: u32, nfmt: u8, v: u32, what: &str) {
    let f = f32::from_bits(v);
    let max = f64::from(mask(bits));
    let smax = ((1i64 << (bits - 1)) - 1) as f64;
    let signed = sext(stored, bits) as f64;
    match nfmt {
        0 => assert_eq!(
            f64::from(stored),
            (f64::from(f).clamp(0.0, 1.0) * max).round_ties_even(),
            "{what}: unorm store of {f}"
        ),
        1 => assert_eq!(
            signed,
            (f64::from(f).clamp(-1.0, 1.0) * smax).round_ties_even(),
            "{what}: snorm store of {f}"
        ),
        2 => assert_eq!(
            f64::from(stored),
            f64::from(f).clamp(0.0, max).trunc(),
            "{what}: uscaled store of {f}"
        ),
        3 => assert_eq!(
            signed,
            f64::from(f).clamp(-smax - 1.0, smax).trunc(),
            "{what}: sscaled store of {f}"
        ),
        4 | 5 => assert_eq!(stored, v & mask(bits), "{what}: integer store"),
        _ if bits == 32 => assert_eq!(stored, v, "{what}: f32 store"),
        _ if bits == 16 => {
            assert_eq!(half_to_f32(stored as u16), f, "{what}: f16 store of {f}")
        }
        // The sources of the 10/11-bit floats are representable, or
        // negative (stored as 0).
        _ => assert_eq!(
            ufloat(stored, bits),
            f.max(0.0),
            "{what}: ufloat store of {f}"
        ),
    }
}

/// Deterministic test data (xorshift).
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }
}

/// A store source dword for `nfmt` with `bits`-bit components: integers,
/// or floats each format represents exactly where it matters.
fn store_source(rng: &mut Rng, bits: u32, nfmt: u8, j: usize) -> u32 {
    match nfmt {
        4 | 5 => rng.next(),
        7 if bits == 16 => ((rng.next() % 257) as f32 / 4.0 - 32.0).to_bits(),
        // 6 significant bits at most, a negative one now and then.
        7 if bits < 16 => {
            let v = (rng.next() % 64) as f32 / 2.0;
            if j % 5 == 0 { -v - 1.0 } else { v }.to_bits()
        }
        _ => ((rng.next() % 2001) as f32 / 500.0 - 2.0 + (j % 3) as f32 * 100.0).to_bits(),
    }
}

/// The DST_SEL choice for instruction component `c`: 0, 1, or the
/// format's x..w (`mv`, with 0, 0, 0, 1 past the format's components).
fn select(sel: u32, c: usize, mv: &[u32; 4], one: u32) -> u32 {
    match (sel >> (3 * c)) & 7 {
        0 => 0,
        1 => one,
        s => mv[s as usize - 4],
    }
}

/// Runs `typed_buffer` for every format pair with DST_SEL `sel`: format
/// loads (MUBUF from the V#, MTBUF 16_16 FLOAT from the instruction) and
/// format stores, compared with the reference.
fn typed_buffer_with(sel: u32) {
    let c = Client::new(1);
    let q = Queue::new(&c, 0);
    let co = c.load(TBUF_CO);
    let k = &co.kernels["typed_buffer"];
    let (bin, bout, bst, bsrc) = (
        c.buffer(4096),
        c.buffer(4096),
        c.buffer(4096),
        c.buffer(4096),
    );
    let mut rng = Rng(0x1234_5678);
    let mut pairs = 0;
    for f in FORMATS {
        let comps = f.bits.len();
        let stride = f.stride();
        for &nfmt in f.nfmts {
            pairs += 1;
            let input: Vec<u8> = (0..4096).map(|_| rng.next() as u8).collect();
            bin.write(0, &input);
            bout.write_u32s(0, &[0xdead_beef; 1024]);
            bst.write(0, &[0xab; 4096]);
            let src: Vec<u32> = (0..256)
                .map(|j| store_source(&mut rng, f.bits[(j % 4).min(comps - 1)], nfmt, j))
                .collect();
            bsrc.write_u32s(0, &src);
            let n = u32::from(nfmt);
            let r = dispatch(
                &c,
                &q,
                k,
                &[
                    vsharp(bin.va, stride as u64, 64, f.dfmt, n, sel),
                    vsharp(bout.va, 0, 4096, 4, 4, IDENTITY),
                    vsharp(bst.va, stride as u64, 64, f.dfmt, n, sel),
                    vsharp(bsrc.va, 0, 4096, 4, 4, IDENTITY),
                ],
                Geometry::linear(64, 64),
            );
            let fmt = format!("format {}/{nfmt} sel {sel:#x}", f.dfmt);
            assert!(matches!(r, Outcome::Done), "{fmt}: {r:?}");
            let out = bout.read_u32s(0, 64 * 8);
            let st = bst.read(0, 4096);
            let one = if matches!(nfmt, 4 | 5) {
                1
            } else {
                1.0f32.to_bits()
            };
            for i in 0..64 {
                let what = format!("{fmt} lane {i}");
                let mut mv = [0, 0, 0, one];
                for (ch, m) in mv.iter_mut().enumerate().take(comps) {
                    *m = to_dword(f.component(&input, i * stride, ch), f.bits[ch], nfmt);
                }
                for ch in 0..4 {
                    let (got, want) = (out[i * 8 + ch], select(sel, ch, &mv, one));
                    // A 10/11-bit float NaN: a NaN (its payload in f32 is
                    // not documented).
                    if nfmt == 7 && f.packed && f32::from_bits(want).is_nan() {
                        assert!(f32::from_bits(got).is_nan(), "{what}: component {ch}");
                        continue;
                    }
                    assert_eq!(got, want, "{what}: buffer_load_format component {ch}");
                }
                // The MTBUF format (16_16 FLOAT) over the same bytes, with
                // the V#'s DST_SEL.
                let mut tv = [0, 0, 0, 1.0f32.to_bits()];
                for (ch, t) in tv.iter_mut().enumerate().take(2) {
                    let at = i * stride + ch * 2;
                    *t = half_to_f32(u16::from_le_bytes([input[at], input[at + 1]])).to_bits();
                }
                for ch in 0..2 {
                    assert_eq!(
                        out[i * 8 + 4 + ch],
                        select(sel, ch, &tv, 1.0f32.to_bits()),
                        "{what}: tbuffer 16_16 float component {ch}"
                    );
                }
                // Stores (not swizzled): each component of the format.
                for ch in 0..comps {
                    let stored = f.component(&st, i * stride, ch);
                    check_store(stored, f.bits[ch], nfmt, src[i * 4 + ch], &what);
                }
            }
            // Nothing past the 64 elements was written.
            assert!(st[64 * stride..].iter().all(|&b| b == 0xab), "{fmt}");
        }
    }
    assert_eq!(pairs, 69);
}

#[test]
fn typed_buffer_loads_and_stores_convert_every_format_pair() {
    typed_buffer_with(IDENTITY);
}

#[test]
fn typed_buffer_loads_apply_the_dst_sel_swizzle() {
    // X = w, Y = 1, Z = x, W = 0; then X = z, Y = y, Z = 0, W = x.
    typed_buffer_with(7 | 1 << 3 | 4 << 6);
    typed_buffer_with(6 | 5 << 3 | 4 << 9);
}

#[test]
fn typed_d16_loads_and_stores_convert_to_and_from_16_bits() {
    let c = Client::new(1);
    let q = Queue::new(&c, 0);
    let co = c.load(TBUF_CO);
    let k = &co.kernels["typed_d16"];
    let (bin, bout, bst, bsrc) = (
        c.buffer(4096),
        c.buffer(4096),
        c.buffer(4096),
        c.buffer(4096),
    );
    let table = halves();
    let mut rng = Rng(0x9e37_79b9);
    for f in FORMATS {
        let comps = f.bits.len();
        let stride = f.stride();
        for &nfmt in f.nfmts {
            let input: Vec<u8> = (0..4096).map(|_| rng.next() as u8).collect();
            bin.write(0, &input);
            bout.write_u32s(0, &[0xdead_beef; 1024]);
            bst.write(0, &[0xab; 4096]);
            // Halves: integers, or floats below 2^6 in magnitude.
            let src: Vec<u32> = (0..128)
                .map(|_| {
                    let h = |r: u32| match nfmt {
                        4 | 5 => r & 0xffff,
                        _ => (r & 0x83ff) | ((r >> 16) % 21) << 10,
                    };
                    h(rng.next()) | h(rng.next()) << 16
                })
                .collect();
            bsrc.write_u32s(0, &src);
            let n = u32::from(nfmt);
            // The packed formats' loads only: their stores go to a
            // 16_16_16_16 FLOAT V# (a d16_hi_x store of one component of a
            // packed dword faults, and a fault ends the queue).
            let (sd, sn) = if f.packed { (12, 7) } else { (f.dfmt, n) };
            let r = dispatch(
                &c,
                &q,
                k,
                &[
                    vsharp(bin.va, stride as u64, 64, f.dfmt, n, IDENTITY),
                    vsharp(bout.va, 0, 4096, 4, 4, IDENTITY),
                    vsharp(bst.va, stride as u64, 128, sd, sn, IDENTITY),
                    vsharp(bsrc.va, 0, 4096, 4, 4, IDENTITY),
                ],
                Geometry::linear(64, 64),
            );
            let fmt = format!("d16 format {}/{nfmt}", f.dfmt);
            assert!(matches!(r, Outcome::Done), "{fmt}: {r:?}");
            let out = bout.read_u32s(0, 64 * 8);
            let st = bst.read(0, 4096);
            let one = if matches!(nfmt, 4 | 5) { 1 } else { 0x3c00 };
            for i in 0..64 {
                let what = format!("{fmt} lane {i}");
                let mut mv = [0u16, 0, 0, one];
                for (ch, m) in mv.iter_mut().enumerate().take(comps) {
                    *m = to_half(
                        &table,
                        f.component(&input, i * stride, ch),
                        f.bits[ch],
                        nfmt,
                    );
                }
                let check = |got: u16, want: u16, part: &str| {
                    if nfmt == 7 && half_is_nan(want) {
                        assert!(half_is_nan(got), "{what}: {part}: {got:#x} is not a NaN");
                    } else {
                        assert_eq!(got, want, "{what}: {part}");
                    }
                };
                let o = &out[i * 8..i * 8 + 8];
                for ch in 0..4 {
                    let got = (o[ch / 2] >> (16 * (ch % 2))) as u16;
                    check(got, mv[ch], &format!("d16_xyzw component {ch}"));
                }
                check((o[2] >> 16) as u16, mv[0], "d16_hi_x");
                assert_eq!(o[2] & 0xffff, 0x1234, "{what}: d16_hi_x keeps the low half");
                check(o[3] as u16, mv[0], "d16_x");
                assert_eq!(o[3] >> 16, 0xabcd, "{what}: d16_x keeps the high half");
                for ch in 0..3 {
                    let got = (o[4 + ch / 2] >> (16 * (ch % 2))) as u16;
                    check(got, mv[ch], &format!("d16_xyz component {ch}"));
                }
                assert_eq!(
                    o[5] >> 16,
                    0x7777,
                    "{what}: d16_xyz keeps the last high half"
                );
                // tbuffer d16 16_16 FLOAT: the raw halves.
                let at = i * stride;
                let raw =
                    u32::from_le_bytes([input[at], input[at + 1], input[at + 2], input[at + 3]]);
                assert_eq!(o[6], raw, "{what}: tbuffer_load_format_d16_xy");
                if f.packed {
                    continue;
                }
                // Stores: component c from half c of src[i * 2 ..].
                let half = |c: usize| (src[i * 2 + c / 2] >> (16 * (c % 2))) as u16;
                let as_dword = |h: u16| match nfmt {
                    4 => u32::from(h),
                    5 => h as i16 as i32 as u32,
                    _ => half_to_f32(h).to_bits(),
                };
                for ch in 0..comps {
                    let stored = f.component(&st, i * stride, ch);
                    check_store(stored, f.bits[ch], nfmt, as_dword(half(ch)), &what);
                }
                // d16_hi_x at index i + 64: x from the high half of the
                // first source dword, the other components untouched.
                let e = (64 + i) * stride;
                check_store(
                    f.component(&st, e, 0),
                    f.bits[0],
                    nfmt,
                    as_dword(half(1)),
                    &format!("{what} d16_hi_x store"),
                );
                let xb = f.bits[0] as usize / 8;
                assert!(
                    st[e + xb..e + stride].iter().all(|&b| b == 0xab),
                    "{what}: d16_hi_x wrote only x"
                );
            }
            if !f.packed {
                assert!(st[128 * stride..].iter().all(|&b| b == 0xab), "{fmt}");
            }
        }
    }
}

/// Runs `kernel` (`typed_buffer` or `typed_d16`) with the same V# in
/// every argument; its fault text.
fn typed_fault(kernel: &str, w3: u32) -> String {
    let c = Client::new(1);
    let q = Queue::new(&c, 0);
    let co = c.load(TBUF_CO);
    let b = c.buffer(4096);
    let w = [b.va as u32, (b.va >> 32) as u32 | (4 << 16), 64, w3];
    let v: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    let r = dispatch(
        &c,
        &q,
        &co.kernels[kernel],
        &[
            Arg::Bytes(v.clone()),
            Arg::Bytes(v.clone()),
            Arg::Bytes(v.clone()),
            Arg::Bytes(v),
        ],
        Geometry::linear(64, 64),
    );
    let Outcome::Error(_, what) = r else {
        panic!("{r:?}")
    };
    what
}

#[test]
fn undefined_typed_formats_and_dst_sels_are_illegal_instructions_naming_them() {
    // FLOAT with 2_10_10_10 (no 2-bit float); the reserved data format 15;
    // FLOAT with 8_8_8_8 (no 8-bit float); number format 6.
    for (dfmt, nfmt) in [(9, 7), (15, 0), (10, 7), (4, 6)] {
        let what = typed_fault("typed_buffer", dfmt << 15 | nfmt << 12 | IDENTITY);
        assert!(
            what.contains(&format!(
                "illegal instruction buffer_load_format_xyzw with data format {dfmt} and number format {nfmt} in kernel typed_buffer at +0xc"
            )),
            "{what}"
        );
    }
    // DST_SEL_Z = 2 (reserved).
    let what = typed_fault(
        "typed_buffer",
        4 << 15 | 4 << 12 | 4 | 5 << 3 | 2 << 6 | 7 << 9,
    );
    assert!(
        what.contains("illegal instruction buffer_load_format_xyzw with the reserved DST_SEL 0xeac (V# word 3 [11:0]) in kernel typed_buffer at +0xc"),
        "{what}"
    );
    // One component of a packed dword (10_11_11 UNORM): typed_d16's
    // buffer_store_format_d16_hi_x, after its loads and d16_xyzw store.
    let what = typed_fault("typed_d16", 6 << 15 | IDENTITY);
    assert!(
        what.contains("illegal instruction buffer_store_format_d16_hi_x storing 1 of the 3 components of packed data format 6 in kernel typed_d16 at +0x80"),
        "{what}"
    );
}

#[test]
fn mubuf_lds_forms_write_lds_at_m0_plus_the_offset_per_lane() {
    let c = Client::new(1);
    let q = Queue::new(&c, 0);
    let co = c.load(TBUF_CO);
    let (bin, bout, bfmt) = (c.buffer(4096), c.buffer(4096), c.buffer(4096));
    let mut rng = Rng(0x0bad_cafe);
    let input: Vec<u8> = (0..4096).map(|_| rng.next() as u8).collect();
    bin.write(0, &input);
    bfmt.write(0, &input);
    bout.write_u32s(0, &[0x5555_5555; 1024]);
    // rin: 200 bytes (lanes 50.. of the dword load are out of range);
    // rfmt: 8_8_8_8 UNORM elements of 4 bytes.
    let r = dispatch(
        &c,
        &q,
        &co.kernels["lds_forms"],
        &[
            vsharp(bin.va, 0, 200, 4, 4, IDENTITY),
            vsharp(bout.va, 0, 4096, 4, 4, IDENTITY),
            vsharp(bfmt.va, 4, 64, 10, 0, IDENTITY),
        ],
        Geometry::linear(64, 64),
    );
    assert!(matches!(r, Outcome::Done), "{r:?}");
    let lds = bout.read_u32s(0, 256);
    let word = |a: usize| u32::from_le_bytes(input[a..a + 4].try_into().unwrap());
    for l in 0..64 {
        // buffer_load_dword: 0 out of range.
        let want = if 4 * l + 4 <= 200 { word(4 * l) } else { 0 };
        assert_eq!(lds[l], want, "dword lds lane {l}");
        // buffer_load_ubyte: M0 0xf8 + offset 8, memory 4l + 8, zero
        // extended; disabled lanes leave the LDS alone.
        let want = if (16..32).contains(&l) {
            0xdead_beef
        } else if 4 * l + 8 < 200 {
            u32::from(input[4 * l + 8])
        } else {
            0
        };
        assert_eq!(lds[64 + l], want, "ubyte lds lane {l}");
        // buffer_load_sshort: sign extended.
        let s = i16::from_le_bytes([input[2 * l], input[2 * l + 1]]);
        assert_eq!(lds[128 + l], s as i32 as u32, "sshort lds lane {l}");
    }
    // buffer_load_format_x at 0x340: LDS dwords 0xc0..0xd0 untouched, lanes
    // 0..48 the UNORM x of element l, lanes past the 1 KiB dropped.
    assert!(
        lds[0xc0..0xd0].iter().all(|&v| v == 0xdead_beef),
        "LDS dwords 0xc0..0xd0: {:x?}",
        &lds[0xc0..0xd0]
    );
    for l in 0..48 {
        let want = (f64::from(input[4 * l]) / 255.0) as f32;
        assert_eq!(lds[0xd0 + l], want.to_bits(), "format_x lds lane {l}");
    }
    // The copy-out ran for every lane, nothing else written.
    assert!(bout.read_u32s(1024, 768).iter().all(|&v| v == 0x5555_5555));
}

fn fault_of(kernel: &str) -> String {
    let c = Client::new(1);
    let q = Queue::new(&c, 0);
    let co = c.load(TBUF_CO);
    let r = dispatch(&c, &q, &co.kernels[kernel], &[], Geometry::linear(64, 64));
    let Outcome::Error(_, what) = r else {
        panic!("{kernel}: {r:?}")
    };
    what
}

#[test]
fn gds_and_gws_operations_fault_naming_why() {
    let what = fault_of("gds_add");
    assert!(
        what.contains("illegal instruction ds_add_u32 gds (GDS access: no GDS memory"),
        "{what}"
    );
    assert!(what.contains("in kernel gds_add at +0x8"), "{what}");
    let what = fault_of("gws_init");
    assert!(
        what.contains(
            "illegal instruction ds_gws_init gds (global wave sync is not modelled by the sim) in kernel gws_init at +0x8"
        ),
        "{what}"
    );
}

#[test]
fn gfx942_global_load_lds_writes_lds_at_m0_plus_the_offset_per_lane() {
    let dev = sim::SimBuilder::new()
        .board(sim::Board::Mi300x)
        .gpus(1)
        .workers(1)
        .build();
    let c = Client::with(dev);
    let q = Queue::new(&c, 0);
    let co = c.load("tests/kernels/lds_gfx942.co");
    let (bin, bout) = (c.buffer(4096), c.buffer(4096));
    let mut rng = Rng(0x5eed_1234);
    let input: Vec<u8> = (0..4096).map(|_| rng.next() as u8).collect();
    bin.write(0, &input);
    bout.write_u32s(0, &[0x5555_5555; 1024]);
    let r = dispatch(
        &c,
        &q,
        &co.kernels["global_lds"],
        &[Arg::Ptr(bin.va), Arg::Ptr(bout.va)],
        Geometry::linear(64, 64),
    );
    assert!(matches!(r, Outcome::Done), "{r:?}");
    let lds = bout.read_u32s(0, 256);
    let word = |a: usize| u32::from_le_bytes(input[a..a + 4].try_into().unwrap());
    let short = |l: usize| u16::from_le_bytes([input[2 * l], input[2 * l + 1]]);
    for l in 0..64 {
        assert_eq!(lds[l], word(4 * l), "dword lane {l}");
        let want = if (16..32).contains(&l) {
            0xdead_beef
        } else {
            u32::from(input[4 * l + 8])
        };
        assert_eq!(lds[64 + l], want, "ubyte lane {l}");
        assert_eq!(
            lds[128 + l],
            short(l) as i16 as i32 as u32,
            "sshort lane {l}"
        );
    }
    assert!(lds[0xc0..0xd0].iter().all(|&v| v == 0xdead_beef));
    for l in 0..48 {
        assert_eq!(lds[0xd0 + l], u32::from(short(l)), "ushort lane {l}");
    }
    assert!(bout.read_u32s(1024, 768).iter().all(|&v| v == 0x5555_5555));
}

#[test]
fn buffer_store_lds_dword_stores_the_lds_dword_of_each_lane() {
    let c = Client::new(1);
    let q = Queue::new(&c, 0);
    let co = c.load(TBUF_CO);
    let out = c.buffer(4096);
    out.write_u32s(0, &[0x5555_5555; 1024]);
    // ADD_TID_ENABLE (word 3 bit 23), stride 4, 64 records.
    let w = [
        out.va as u32,
        ((out.va >> 32) as u32 & 0xffff) | (4 << 16),
        64,
        IDENTITY | 4 << 15 | 4 << 12 | 1 << 23,
    ];
    let r = dispatch(
        &c,
        &q,
        &co.kernels["lds_store"],
        &[Arg::Bytes(w.iter().flat_map(|x| x.to_le_bytes()).collect())],
        Geometry::linear(64, 64),
    );
    assert!(matches!(r, Outcome::Done), "{r:?}");
    let got = out.read_u32s(0, 80);
    assert_eq!(got[0], 0x5555_5555);
    for l in 0..64 {
        // LDS byte 0x44 + 4l is dword 0x11 + l.
        assert_eq!(got[1 + l], (0x11 + l as u32) * 3 + 7, "lane {l}");
    }
    assert!(got[65..].iter().all(|&v| v == 0x5555_5555));
}
