//! The published reference algorithms of rocRAND's generators (Philox4x32-10,
//! XORWOW, MRG32k3a, Sobol32), written here from the papers and checked
//! against Random123's known answers and the published jump matrices by
//! `sim/tests/rocrand.rs`. Shared with `cabi/tests/rocrand_host.rs`, which
//! compares rocRAND's host API on the drop-in library with them.

#![allow(dead_code)]

/// Philox4x32 with R rounds (Salmon, Moraes, Dror, Shaw, "Parallel random
/// numbers: as easy as 1, 2, 3", SC'11): multipliers 0xD2511F53 and
/// 0xCD9E8D57, Weyl key increments 0x9E3779B9 and 0xBB67AE85.
pub fn philox4x32(rounds: u32, ctr: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (mut c, mut k) = (ctr, key);
    for r in 0..rounds {
        if r > 0 {
            k = [
                k[0].wrapping_add(0x9E37_79B9),
                k[1].wrapping_add(0xBB67_AE85),
            ];
        }
        let p0 = u64::from(0xD251_1F53u32) * u64::from(c[0]);
        let p1 = u64::from(0xCD9E_8D57u32) * u64::from(c[2]);
        c = [
            (p1 >> 32) as u32 ^ c[1] ^ k[0],
            p1 as u32,
            (p0 >> 32) as u32 ^ c[3] ^ k[1],
            p0 as u32,
        ];
    }
    c
}

/// Random123 `tests/kat_vectors`, the three `philox4x32 10` lines
/// (counter, key, expected).
pub const PHILOX_KAT: [([u32; 4], [u32; 2], [u32; 4]); 3] = [
    (
        [0, 0, 0, 0],
        [0, 0],
        [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8],
    ),
    (
        [0xffffffff; 4],
        [0xffffffff; 2],
        [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd],
    ),
    (
        [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
        [0xa4093822, 0x299f31d0],
        [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1],
    ),
];

/// The 128-bit counter as rocRAND's `philox4x32_10_state.counter` words.
pub fn philox_counter(c: u128) -> [u32; 4] {
    [
        c as u32,
        (c >> 32) as u32,
        (c >> 64) as u32,
        (c >> 96) as u32,
    ]
}

/// Value `i` of the Philox4x32-10 stream of `key` from counter `ctr0`:
/// word `i % 4` of the block of counter `ctr0 + i / 4`.
pub fn philox_stream(key: [u32; 2], ctr0: u128, i: u64) -> u32 {
    let c = ctr0.wrapping_add(u128::from(i / 4));
    philox4x32(10, philox_counter(c), key)[(i % 4) as usize]
}

/// The reference of the scheme above, for E = `e` engines: `first` is the
/// engine state of subsequence 0, `jump` moves a state one subsequence on,
/// `values(state, count)` gives the first `count` values from a state.
pub fn interleaved_reference<S: Copy>(
    e: u64,
    offset: u64,
    total: usize,
    first: S,
    jump: impl Fn(&mut S),
    values: impl Fn(S, usize) -> Vec<u32>,
) -> Vec<u32> {
    let last = offset + total as u64;
    let mut state = first;
    let per_engine: Vec<Vec<u32>> = (0..e)
        .map(|s| {
            if s > 0 {
                jump(&mut state);
            }
            values(state, (last / e + 1) as usize)
        })
        .collect();
    (offset..last)
        .map(|j| per_engine[(j % e) as usize][(j / e) as usize])
        .collect()
}

/// Marsaglia's xorshift step of xorwow ("Xorshift RNGs", J. Stat. Softw.
/// 8(14), 2003, p. 5): t = x ^ (x >> 2); x..v shift down;
/// v = (v ^ (v << 4)) ^ (t ^ (t << 1)).
pub fn xorshift160(x: [u32; 5]) -> [u32; 5] {
    let t = x[0] ^ (x[0] >> 2);
    [
        x[1],
        x[2],
        x[3],
        x[4],
        (x[4] ^ (x[4] << 4)) ^ (t ^ (t << 1)),
    ]
}

/// A GF(2)-linear map of the 160-bit xorshift state: the image of each
/// basis vector (bit b of word b / 32).
#[derive(Clone)]
pub struct Gf2Map(pub Vec<[u32; 5]>);

impl Gf2Map {
    pub fn step() -> Self {
        Self(
            (0..160)
                .map(|b| {
                    let mut v = [0u32; 5];
                    v[b / 32] = 1 << (b % 32);
                    xorshift160(v)
                })
                .collect(),
        )
    }

    pub fn apply(&self, v: [u32; 5]) -> [u32; 5] {
        let mut r = [0u32; 5];
        for (b, col) in self.0.iter().enumerate() {
            if v[b / 32] >> (b % 32) & 1 == 1 {
                for k in 0..5 {
                    r[k] ^= col[k];
                }
            }
        }
        r
    }

    /// self ∘ self.
    pub fn squared(&self) -> Self {
        Self(self.0.iter().map(|&c| self.apply(c)).collect())
    }
}

/// xorwow as rocRAND seeds it (rocrand_xorwow.h, `xorwow_engine`):
/// Marsaglia's initial x..v and d, mixed with the seed; subsequence s starts
/// s * 2^67 xorshift steps later (the Weyl counter d does not move).
#[derive(Clone, Copy)]
pub struct Xorwow {
    /// The xorshift state x..v.
    pub x: [u32; 5],
    /// The Weyl counter.
    pub d: u32,
}

impl Xorwow {
    pub fn seeded(seed: u64) -> Self {
        let mut x = [
            123_456_789u32,
            362_436_069,
            521_288_629,
            88_675_123,
            5_783_321,
        ];
        let mut d = 6_615_241u32;
        let s0 = (seed as u32) ^ 0x2c7f_967f;
        let s1 = ((seed >> 32) as u32) ^ 0xa036_97cb;
        let t0 = 1_228_688_033u32.wrapping_mul(s0);
        let t1 = 2_073_658_381u32.wrapping_mul(s1);
        x[0] = x[0].wrapping_add(t0);
        x[1] ^= t0;
        x[2] = x[2].wrapping_add(t1);
        x[3] ^= t1;
        x[4] = x[4].wrapping_add(t0);
        d = d.wrapping_add(t1.wrapping_add(t0));
        Self { x, d }
    }

    pub fn next(&mut self) -> u32 {
        self.x = xorshift160(self.x);
        self.d = self.d.wrapping_add(362_437);
        self.d.wrapping_add(self.x[4])
    }
}

/// L'Ecuyer, "Good parameters and implementations for combined multiple
/// recursive random number generators", Oper. Res. 47(1), 1999: MRG32k3a.
pub const M1: u64 = 4_294_967_087;

pub const M2: u64 = 4_294_944_443;

pub type Mat3 = [[u64; 3]; 3];

/// The state transition (x[n-3], x[n-2], x[n-1]) -> (x[n-2], x[n-1], x[n])
/// of component 1 (x[n] = 1403580 x[n-2] - 810728 x[n-3] mod m1) and
/// component 2 (x[n] = 527612 x[n-1] - 1370589 x[n-3] mod m2).
pub const A1: Mat3 = [[0, 1, 0], [0, 0, 1], [M1 - 810_728, 1_403_580, 0]];

pub const A2: Mat3 = [[0, 1, 0], [0, 0, 1], [M2 - 1_370_589, 0, 527_612]];

pub fn mat_mul(a: &Mat3, b: &Mat3, m: u64) -> Mat3 {
    let mut r = [[0u64; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            r[i][j] = ((0..3)
                .map(|k| u128::from(a[i][k]) * u128::from(b[k][j]))
                .sum::<u128>()
                % u128::from(m)) as u64;
        }
    }
    r
}

pub fn mat_vec(a: &Mat3, v: [u64; 3], m: u64) -> [u64; 3] {
    let mut r = [0u64; 3];
    for i in 0..3 {
        r[i] = ((0..3)
            .map(|k| u128::from(a[i][k]) * u128::from(v[k]))
            .sum::<u128>()
            % u128::from(m)) as u64;
    }
    r
}

/// a^(2^k) mod m.
pub fn mat_pow2(a: &Mat3, k: u32, m: u64) -> Mat3 {
    let mut r = *a;
    for _ in 0..k {
        r = mat_mul(&r, &r, m);
    }
    r
}

#[derive(Clone, Copy)]
pub struct Mrg32k3a {
    /// Component 1: the last three values.
    pub g1: [u64; 3],
    /// Component 2: the last three values.
    pub g2: [u64; 3],
}

impl Mrg32k3a {
    /// rocRAND's seeding (rocrand_mrg32k3a.h `seed`): seed 0 is 12345;
    /// x = low word ^ 0x55555555, y = high word ^ 0xAAAAAAAA; g1 = (x s, y s,
    /// x s) mod m1, g2 = (y s, x s, y s) mod m2. (rocRAND's `mod_mul_m1`
    /// reduces exactly for seeds below 2^32, the seeds used here.)
    pub fn seeded(seed: u64) -> Self {
        let s = if seed == 0 { 12345 } else { seed };
        assert!(s < 1 << 32, "the reference models seeds below 2^32");
        let x = u64::from((s as u32) ^ 0x5555_5555);
        let y = (s >> 32) ^ 0xAAAA_AAAA;
        let mm = |a: u64, m: u64| ((u128::from(a) * u128::from(s)) % u128::from(m)) as u64;
        Self {
            g1: [mm(x, M1), mm(y, M1), mm(x, M1)],
            g2: [mm(y, M2), mm(x, M2), mm(y, M2)],
        }
    }

    /// L'Ecuyer's output: z = (x1 - x2) mod m1, with m1 for 0 (rocRAND
    /// returns the integer in [1, m1]).
    pub fn next(&mut self) -> u32 {
        let p1 = mat_vec(&A1, self.g1, M1);
        let p2 = mat_vec(&A2, self.g2, M2);
        self.g1 = p1;
        self.g2 = p2;
        let z = p1[2] as i64 - p2[2] as i64;
        (if z <= 0 { z + M1 as i64 } else { z }) as u32
    }
}

/// rocRAND's `mrg_uniform_distribution_uint`: (v - 1) * (2^32 - 1) / (m1 - 1)
/// in double, truncated.
pub fn mrg_uniform_uint(v: u32) -> u32 {
    (f64::from(v - 1) * 1.000000048661607) as u32
}

/// Joe & Kuo, "Constructing Sobol sequences with better two-dimensional
/// projections", SIAM J. Sci. Comput. 30, 2008: the first rows (d, s, a,
/// m_i) of their direction numbers new-joe-kuo-6.21201.
pub const JOE_KUO: [(u32, u32, &[u32]); 8] = [
    (1, 0, &[1]),
    (2, 1, &[1, 3]),
    (3, 1, &[1, 3, 1]),
    (3, 2, &[1, 1, 1]),
    (4, 1, &[1, 1, 3, 3]),
    (4, 4, &[1, 3, 5, 13]),
    (5, 2, &[1, 1, 5, 5, 17]),
    (5, 4, &[1, 1, 5, 5, 5]),
];

/// The 32 direction vectors v_k = m_k / 2^(k+1) as 32-bit fractions of
/// dimension `dim` (0-based; dimension 0 is the van der Corput sequence),
/// by Joe & Kuo's recurrence.
pub fn sobol_directions(dim: usize) -> [u32; 32] {
    let mut v = [0u32; 32];
    if dim == 0 {
        for (k, x) in v.iter_mut().enumerate() {
            *x = 1 << (31 - k);
        }
        return v;
    }
    let (s, a, m) = JOE_KUO[dim - 1];
    let s = s as usize;
    for k in 0..32 {
        v[k] = if k < s {
            m[k] << (31 - k)
        } else {
            let mut x = v[k - s] ^ (v[k - s] >> s);
            for j in 1..s {
                if (a >> (s - 1 - j)) & 1 == 1 {
                    x ^= v[k - j];
                }
            }
            x
        };
    }
    v
}

/// Point `i` of a Sobol dimension in Gray-code order (Antonov & Saleev):
/// the XOR of the direction vectors at the set bits of i ^ (i >> 1).
pub fn sobol_point(v: &[u32; 32], i: u32) -> u32 {
    let g = i ^ (i >> 1);
    (0..32).filter(|k| g >> k & 1 == 1).fold(0, |x, k| x ^ v[k])
}
