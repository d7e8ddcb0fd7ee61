//! Real library kernels: the gfx90a code object of Debian's librocrand1
//! (rocRAND 5.3.3, built by hipcc; `scripts/fetch-rocrand` downloads and
//! unbundles it, `scripts/test` runs that first, `ROCRAND_DIR` overrides
//! where it lives) runs on the interpreter exactly as rocRAND's host code
//! launches it: the generator's state-init kernel where it has one, then its
//! `generate_kernel` for `unsigned int` output (and for float, and for
//! double where one exists, through rocRAND's uniform distributions). Each
//! output is compared with a Rust implementation of the published algorithm
//! written here:
//!
//! - Philox4x32-10 (Salmon et al., SC'11), itself checked against the three
//!   `philox4x32 10` known-answer vectors of Random123's `tests/kat_vectors`,
//!   which the library's kernel also reproduces;
//! - XORWOW (Marsaglia 2003, "Xorshift RNGs", xorwow with the Weyl
//!   sequence) with rocRAND's seeding, its 2^67-step subsequences computed
//!   here by GF(2) matrix powers of the xorshift step;
//! - MRG32k3a (L'Ecuyer 1999) with rocRAND's seeding, its subsequences
//!   L'Ecuyer's 2^76-step substreams, computed here by modular 3x3 matrix
//!   powers and checked against the published A1p76/A2p76;
//! - Sobol32 in Gray-code order (Bratley & Fox / Antonov & Saleev) with the
//!   Joe-Kuo direction numbers (new-joe-kuo-6.21201, first dimensions); the
//!   direction vectors handed to the kernel are the library's own, read from
//!   librocrand.so's .rodata as rocRAND's host code copies them;
//! - MTGP32 (Saito & Matsumoto) with the parameter set
//!   mtgp32dc_params_fast_11213 read from librocrand.so's .data, the state
//!   initialised as rocrand_make_state_mtgp32 does on the host.
//!
//! Grids: Sobol32 runs on the grid rocRAND's host code computes; Philox,
//! MRG32k3a and MTGP32 run on rocRAND's grid (1024 or 512 blocks of 256)
//! and on smaller ones; XORWOW on smaller ones (up to 64 blocks) and, in
//! release builds only (its 131072 subsequence jumps take a minute in a
//! debug build), on rocRAND's. rocRAND's kernels are written for any grid
//! (grid-stride loops; XORWOW and MRG32k3a need a power-of-two engine count,
//! MTGP32 one 256-thread block per engine), and the references model the
//! grid used.

#[path = "support/rocrand_reference.rs"]
mod reference;
mod support;

use reference::*;

use std::path::{Path, PathBuf};

use support::*;

/// The directory `scripts/fetch-rocrand` fills.
fn rocrand_dir() -> PathBuf {
    std::env::var_os("ROCRAND_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/rocrand"))
}

/// The gfx90a (xnack-) code object of librocrand1.
fn gfx90a_code_object() -> PathBuf {
    let dir = rocrand_dir();
    let entries = std::fs::read_to_string(dir.join("ENTRIES")).unwrap_or_else(|e| {
        panic!(
            "{}/ENTRIES: {e}: the rocRAND code objects are downloaded, not committed: run scripts/fetch-rocrand (scripts/test does)",
            dir.display()
        )
    });
    let line = entries
        .lines()
        .find(|l| l.ends_with("--gfx90a:xnack-"))
        .unwrap_or_else(|| panic!("{}/ENTRIES has no gfx90a:xnack- entry", dir.display()));
    dir.join(line.split_whitespace().next().unwrap())
}

/// librocrand.so's bytes (the host library `scripts/fetch-rocrand` extracted).
fn host_library() -> Vec<u8> {
    let lib = rocrand_dir().join("root/usr/lib/x86_64-linux-gnu");
    let so = std::fs::read_dir(&lib)
        .unwrap_or_else(|e| panic!("{}: {e}: run scripts/fetch-rocrand", lib.display()))
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("librocrand.so.") && !p.is_symlink())
        })
        .unwrap_or_else(|| panic!("no librocrand.so in {}", lib.display()));
    std::fs::read(&so).unwrap_or_else(|e| panic!("{}: {e}", so.display()))
}

/// A client, a queue and librocrand's gfx90a code object loaded.
fn setup() -> (Client, Queue, CodeObject) {
    let c = Client::new(2);
    let q = Queue::new(&c, 0);
    let path = gfx90a_code_object();
    let co = c.load(path.to_str().unwrap());
    (c, q, co)
}

fn run(c: &Client, q: &Queue, co: &CodeObject, kernel: &str, args: &[Arg], g: Geometry) {
    let k = co
        .kernels
        .get(kernel)
        .unwrap_or_else(|| panic!("no kernel {kernel} in librocrand's gfx90a code object"));
    let out = dispatch(c, q, k, args, g);
    assert!(matches!(out, Outcome::Done), "{kernel}: {out:?}");
}

/// The empty distribution functor rocRAND passes by value (one byte).
fn empty_functor() -> Arg {
    Arg::Bytes(vec![0])
}

/// A generate kernel and how its distribution turns one engine value into
/// the `words` 32-bit words of an output value.
struct Output<'a> {
    kernel: &'a str,
    words: usize,
    map: fn(u32) -> Vec<u32>,
}

/// The `unsigned int` output of `kernel`: the engine's values themselves.
fn uint_output(kernel: &str) -> Output<'_> {
    Output {
        kernel,
        words: 1,
        map: |v| vec![v],
    }
}

/// rocRAND's `uniform_distribution(unsigned int)` for float:
/// 2^-32 + v * 2^-32 in single precision (hipcc emits one FMA; the product
/// by 2^-32 is exact, so it rounds once either way).
fn uniform_float(v: u32) -> f32 {
    let k = 2.328_306_4e-10_f32;
    assert_eq!(k, 2f32.powi(-32));
    k + v as f32 * k
}

fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn assert_same(what: &str, got: &[u32], want: &[u32]) {
    assert_eq!(got.len(), want.len());
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!(
            "{what}: first difference at {i}: kernel {:#010x}, reference {:#010x} ({} of {} differ)",
            got[i],
            want[i],
            (0..got.len()).filter(|&i| got[i] != want[i]).count(),
            got.len()
        );
    }
}

// ---------------------------------------------------------------- Philox

/// `generate_kernel<unsigned int, uniform_distribution<unsigned int>>(philox4x32_10_device_engine, unsigned int*, size_t, uniform_distribution<unsigned int>)`.
const PHILOX_GENERATE: &str = "_ZN12rocrand_host6detailL15generate_kernelIj20uniform_distributionIjEEEvNS0_27philox4x32_10_device_engineEPT_mT0_";

#[test]
fn philox_reference_matches_random123_known_answers() {
    for (ctr, key, want) in PHILOX_KAT {
        assert_eq!(philox4x32(10, ctr, key), want, "ctr {ctr:x?} key {key:x?}");
    }
}

/// The 48-byte `philox4x32_10_state` the kernel takes by value (counter,
/// result, key, substate; rocRAND builds the library with
/// ROCRAND_DETAIL_PHILOX_BM_NOT_IN_STATE). `result` is what the host's
/// engine constructor leaves there: the block of `counter`.
fn philox_engine(counter: [u32; 4], key: [u32; 2], substate: u32) -> Arg {
    let result = philox4x32(10, counter, key);
    let mut w = Vec::new();
    w.extend_from_slice(&counter);
    w.extend_from_slice(&result);
    w.extend_from_slice(&key);
    w.extend_from_slice(&[substate, 0]);
    Arg::Bytes(bytes_of(&w))
}

/// The engine `rocrand_philox4x32_10::init` builds for `seed` and
/// `offset`: `philox4x32_10_engine(seed, 0, offset)`.
fn philox_host_engine(seed: u64, offset: u64) -> Arg {
    let key = [seed as u32, (seed >> 32) as u32];
    philox_engine(
        philox_counter(u128::from(offset / 4)),
        key,
        (offset % 4) as u32,
    )
}

/// Runs the generate kernel for `n` values written `skip` words into the
/// output buffer (rocRAND's unaligned-head path when `skip % 4 != 0`).
fn run_philox(engine: Arg, n: usize, skip: usize, g: Geometry) -> Vec<u32> {
    run_philox_as(PHILOX_GENERATE, 1, engine, n, skip, g)
}

/// Runs the Philox generate kernel `kernel`, whose output values are
/// `words` 32-bit words each, for `n` values written `skip` values into the
/// output buffer; returns the output's words.
fn run_philox_as(
    kernel: &str,
    words: usize,
    engine: Arg,
    n: usize,
    skip: usize,
    g: Geometry,
) -> Vec<u32> {
    let (c, q, co) = setup();
    let total = words * (n + skip + 4);
    let out = c.buffer(4 * total);
    out.write_u32s(0, &vec![0xdead_beef; total]);
    let data = out.va + (4 * words * skip) as u64;
    run(
        &c,
        &q,
        &co,
        kernel,
        &[engine, Arg::Ptr(data), Arg::u64(n as u64), empty_functor()],
        g,
    );
    let all = out.read_u32s(0, total);
    let (start, end) = (words * skip, words * (skip + n));
    assert!(
        all[..start].iter().all(|&w| w == 0xdead_beef),
        "wrote before the output"
    );
    assert!(
        all[end..].iter().all(|&w| w == 0xdead_beef),
        "wrote past the output"
    );
    all[start..end].to_vec()
}

/// The kernel run on an engine set to each Random123 known-answer counter
/// and key gives the known answer as its first four values. (The states are
/// written directly: the host generator itself always starts at subsequence
/// 0, so only the all-zero vector is reachable through its seed/offset.)
#[test]
fn philox_kernel_reproduces_random123_known_answers() {
    for (ctr, key, want) in PHILOX_KAT {
        // One thread: it recomputes `result` from counter and key itself
        // (engine.discard(0)), so a wrong `result` in the state would not hide
        // a wrong kernel.
        let got = run_philox(philox_engine(ctr, key, 0), 8, 0, Geometry::linear(64, 64));
        assert_eq!(got[..4], want, "ctr {ctr:x?} key {key:x?}");
        let next = philox4x32(
            10,
            philox_counter(u128::from_le_bytes(bytes_of(&ctr).try_into().unwrap()).wrapping_add(1)),
            key,
        );
        assert_eq!(got[4..], next, "block after ctr {ctr:x?}");
    }
}

/// `rocrand_generate` of a Philox4x32-10 generator, seeds and offsets as
/// `rocrand_set_seed`/`rocrand_set_offset` give them: 2 blocks of 64
/// threads (rocRAND: 1024 of 256; its grid-stride loop takes any grid).
#[test]
fn philox_generate_matches_reference_stream() {
    let g = Geometry {
        grid: [128, 1, 1],
        workgroup: [64, 1, 1],
        dynamic_lds: 0,
    };
    for (seed, offset, n, skip) in [
        (0u64, 0u64, 2048usize, 0usize),
        (0xdead_beef_1234_5678, 0, 1030, 0),
        (42, 7, 1029, 1),
        (0x0123_4567_89ab_cdef, (1 << 34) + 3, 777, 2),
    ] {
        let key = [seed as u32, (seed >> 32) as u32];
        let got = run_philox(philox_host_engine(seed, offset), n, skip, g);
        let want: Vec<u32> = (0..n as u64)
            .map(|i| philox_stream(key, 0, offset + i))
            .collect();
        assert_same(
            &format!("philox seed {seed:#x} offset {offset} n {n} skip {skip}"),
            &got,
            &want,
        );
    }
}

// ------------------------------------------- engines with an init kernel

/// XORWOW's and MRG32k3a's host code (`rocrand_xorwow`, `rocrand_mrg32k3a`):
/// `init_engines_kernel(engines, start_engine_id, seed, offset / E)` sets up
/// E engines (engine e: subsequence e, offset advanced by one when
/// e < start_engine_id = offset % E), then
/// `generate_kernel(engines, start_engine_id, data, n, distribution)` writes
/// value k of engine (id + start_engine_id) mod E to data[id + k * E]; after
/// each call the host advances start_engine_id by n mod E. Together: output p
/// of a generator at offset O is value (O + p) / E of subsequence
/// (O + p) mod E, whatever E is, as long as E (the grid) is a power of two.
struct EngineGenerator<'a> {
    init: &'a str,
    generate: &'a str,
    engine_bytes: usize,
    /// 32-bit words per output value.
    out_words: usize,
}

/// Runs the init kernel once, then one generate call per entry of `sizes`,
/// on `blocks` blocks of `threads`; returns each call's output.
fn run_engine_generator(
    generator: &EngineGenerator<'_>,
    seed: u64,
    offset: u64,
    blocks: u32,
    threads: u16,
    sizes: &[usize],
) -> Vec<Vec<u32>> {
    let (c, q, co) = setup();
    let e = blocks * u32::from(threads);
    assert!(e.is_power_of_two());
    let g = Geometry::linear(e, threads);
    let engines = c.buffer(generator.engine_bytes * e as usize);
    let mut start = (offset % u64::from(e)) as u32;
    run(
        &c,
        &q,
        &co,
        generator.init,
        &[
            Arg::Ptr(engines.va),
            Arg::u32(start),
            Arg::u64(seed),
            Arg::u64(offset / u64::from(e)),
        ],
        g,
    );
    let mut outputs = Vec::new();
    // Buffers stay alive to the end: a dropped one's VA could be handed out
    // again while the GPU still maps it.
    let mut keep = Vec::new();
    for &n in sizes {
        let w = generator.out_words;
        let out = c.buffer(4 * w * (n + 1));
        out.write_u32s(0, &vec![0xdead_beef; w * (n + 1)]);
        run(
            &c,
            &q,
            &co,
            generator.generate,
            &[
                Arg::Ptr(engines.va),
                Arg::u32(start),
                Arg::Ptr(out.va),
                Arg::u64(n as u64),
                empty_functor(),
            ],
            g,
        );
        let all = out.read_u32s(0, w * (n + 1));
        assert_eq!(
            all[w * n],
            0xdead_beef,
            "{}: wrote past the output",
            generator.generate
        );
        outputs.push(all[..w * n].to_vec());
        keep.push(out);
        start = ((u64::from(start) + n as u64) % u64::from(e)) as u32;
    }
    outputs
}

// ---------------------------------------------------------------- XORWOW

const XORWOW_INIT: &str =
    "_ZN12rocrand_host6detailL19init_engines_kernelEPN14rocrand_device13xorwow_engineEjyy";
/// `generate_kernel<unsigned int, uniform_distribution<unsigned int>>(xorwow_engine*, unsigned int, unsigned int*, size_t, ...)`.
const XORWOW_GENERATE: &str = "_ZN12rocrand_host6detailL15generate_kernelIj20uniform_distributionIjEEEvPN14rocrand_device13xorwow_engineEjPT_mT0_";

#[test]
fn xorwow_reference_is_marsaglias_generator() {
    // Marsaglia's xorwow with his initial state: rocRAND's seeding of seed
    // s mixes s into it, so check the step against the paper directly.
    let mut g = Xorwow {
        x: [123_456_789, 362_436_069, 521_288_629, 88_675_123, 5_783_321],
        d: 6_615_241,
    };
    // The paper's C: t=(x^(x>>2)); x=y; y=z; z=w; w=v; v=(v^(v<<4))^(t^(t<<1)); return (d+=362437)+v;
    let (mut x, mut y, mut z, mut w, mut v, mut d) = (
        123_456_789u32,
        362_436_069u32,
        521_288_629u32,
        88_675_123u32,
        5_783_321u32,
        6_615_241u32,
    );
    for _ in 0..1000 {
        let t = x ^ (x >> 2);
        x = y;
        y = z;
        z = w;
        w = v;
        v = (v ^ (v << 4)) ^ (t ^ (t << 1));
        d = d.wrapping_add(362_437);
        assert_eq!(g.next(), d.wrapping_add(v));
    }
    // The jump map: 2^k steps by squaring equals 2^k single steps.
    let mut m = Gf2Map::step();
    for _ in 0..6 {
        m = m.squared();
    }
    let mut s = [1u32, 2, 3, 4, 5];
    let jumped = m.apply(s);
    for _ in 0..64 {
        s = xorshift160(s);
    }
    assert_eq!(jumped, s);
}

/// `rocrand_generate` of an XORWOW generator: init then one generate call
/// per entry of `sizes` on `blocks` blocks of `threads`, compared with the
/// interleaving of subsequences.
fn check_xorwow(cases: &[(u64, u64, &[usize])], blocks: u32, threads: u16) {
    check_xorwow_as(&uint_output(XORWOW_GENERATE), cases, blocks, threads);
}

/// [`check_xorwow`] for the generate kernel and distribution of `output`.
fn check_xorwow_as(output: &Output<'_>, cases: &[(u64, u64, &[usize])], blocks: u32, threads: u16) {
    let generator = EngineGenerator {
        init: XORWOW_INIT,
        generate: output.kernel,
        engine_bytes: 24,
        out_words: output.words,
    };
    let mut jump67 = Gf2Map::step();
    for _ in 0..67 {
        jump67 = jump67.squared();
    }
    let e = u64::from(blocks) * u64::from(threads);
    for &(seed, offset, sizes) in cases {
        let outs = run_engine_generator(&generator, seed, offset, blocks, threads, sizes);
        let total: usize = sizes.iter().sum();
        let want = interleaved_reference(
            e,
            offset,
            total,
            Xorwow::seeded(seed),
            |g| g.x = jump67.apply(g.x),
            |mut g, n| (0..n).map(|_| g.next()).collect(),
        );
        let want: Vec<u32> = want.into_iter().flat_map(output.map).collect();
        let got: Vec<u32> = outs.concat();
        assert_same(
            &format!(
                "xorwow {} seed {seed:#x} offset {offset}, {e} engines",
                output.kernel
            ),
            &got,
            &want,
        );
    }
}

/// XORWOW on 2 blocks of 64 threads (rocRAND: 512 blocks of 256, i.e.
/// 131072 engines; any power-of-two count keeps the output the documented
/// interleaving of subsequences), two generate calls per generator.
#[test]
fn xorwow_generate_matches_reference() {
    check_xorwow(
        &[
            (0, 0, &[1000, 300]),
            (0xdead_beef_cafe_f00d, 1234, &[517, 128]),
        ],
        2,
        64,
    );
}

/// XORWOW on 64 blocks of 256 (16384 engines: subsequence jumps through
/// seven of rocRAND's jump matrices).
#[test]
fn xorwow_generate_on_64_blocks() {
    check_xorwow(&[(0x5eed, 40_000, &[20_000])], 64, 256);
}

/// XORWOW on rocRAND's own grid, 512 blocks of 256: the init kernel's
/// 131072 subsequence jumps take about a minute in a debug build, so this
/// runs in release builds only (`cargo test --release -p sim --test rocrand`).
#[test]
#[cfg_attr(debug_assertions, ignore = "needs release speed")]
fn xorwow_generate_on_rocrands_grid() {
    check_xorwow(&[(0x5eed, 200_000, &[1 << 16, 1000])], 512, 256);
}

// -------------------------------------------------------------- MRG32k3a

const MRG_INIT: &str =
    "_ZN12rocrand_host6detailL19init_engines_kernelEPN14rocrand_device15mrg32k3a_engineEjyy";
/// `generate_kernel<unsigned int, mrg_uniform_distribution<unsigned int>>(mrg32k3a_engine*, unsigned int, unsigned int*, size_t, ...)`.
const MRG_GENERATE: &str = "_ZN12rocrand_host6detailL15generate_kernelIj24mrg_uniform_distributionIjEEEvPN14rocrand_device15mrg32k3a_engineEjPT_mT0_";

#[test]
fn mrg32k3a_reference_is_lecuyers_recurrence() {
    // The recurrences by hand from all-12345 seeds (the RngStreams default):
    // x1 = 12345 (1403580 - 810728) mod m1 = 3023790853,
    // x2 = 12345 (527612 - 1370589) mod m2 = 2478282264, z = 545508589.
    let mut g = Mrg32k3a {
        g1: [12345; 3],
        g2: [12345; 3],
    };
    assert_eq!(g.next(), 545_508_589);
    assert_eq!((g.g1[2], g.g2[2]), (3_023_790_853, 2_478_282_264));
    // rocRAND's subsequences are L'Ecuyer's substreams (L'Ecuyer, Simard,
    // Chen, Kelton, "An object-oriented random-number package with many long
    // streams and substreams", Oper. Res. 50(6), 2002): 2^76 steps apart. Its
    // published jump matrices A1p76 and A2p76 are A1^(2^76) and A2^(2^76).
    assert_eq!(
        mat_pow2(&A1, 76, M1),
        [
            [82_758_667, 1_871_391_091, 4_127_413_238],
            [3_672_831_523, 69_195_019, 1_871_391_091],
            [3_672_091_415, 3_528_743_235, 69_195_019]
        ]
    );
    assert_eq!(
        mat_pow2(&A2, 76, M2),
        [
            [1_511_326_704, 3_759_209_742, 1_610_795_712],
            [4_292_754_251, 1_511_326_704, 3_889_917_532],
            [3_859_662_829, 4_292_754_251, 3_708_466_080]
        ]
    );
    // 2^6 steps by matrix power equal 64 single steps.
    let mut s = Mrg32k3a::seeded(7);
    let j1 = mat_pow2(&A1, 6, M1);
    let j2 = mat_pow2(&A2, 6, M2);
    let want = (mat_vec(&j1, s.g1, M1), mat_vec(&j2, s.g2, M2));
    for _ in 0..64 {
        s.next();
    }
    assert_eq!((s.g1, s.g2), want);
}

/// `rocrand_generate` of an MRG32k3a generator for unsigned int: init then
/// one generate call per entry of `sizes` on `blocks` blocks of `threads`;
/// subsequences are L'Ecuyer's substreams, 2^76 steps apart (rocRAND's
/// tables are named `A1P67`, but hold A^(2^76); A^(2^76) computed here).
fn check_mrg32k3a(cases: &[(u64, u64, &[usize])], blocks: u32, threads: u16) {
    let output = Output {
        kernel: MRG_GENERATE,
        words: 1,
        map: |v| vec![mrg_uniform_uint(v)],
    };
    check_mrg32k3a_as(&output, cases, blocks, threads);
}

/// [`check_mrg32k3a`] for the generate kernel and distribution of `output`
/// (its `map` takes the engine's integer in [1, m1]).
fn check_mrg32k3a_as(
    output: &Output<'_>,
    cases: &[(u64, u64, &[usize])],
    blocks: u32,
    threads: u16,
) {
    let generator = EngineGenerator {
        init: MRG_INIT,
        generate: output.kernel,
        engine_bytes: 24,
        out_words: output.words,
    };
    let j1 = mat_pow2(&A1, 76, M1);
    let j2 = mat_pow2(&A2, 76, M2);
    let e = u64::from(blocks) * u64::from(threads);
    for &(seed, offset, sizes) in cases {
        let outs = run_engine_generator(&generator, seed, offset, blocks, threads, sizes);
        let total: usize = sizes.iter().sum();
        let want = interleaved_reference(
            e,
            offset,
            total,
            Mrg32k3a::seeded(seed),
            |g| {
                g.g1 = mat_vec(&j1, g.g1, M1);
                g.g2 = mat_vec(&j2, g.g2, M2);
            },
            |mut g, n| (0..n).map(|_| g.next()).collect(),
        );
        let want: Vec<u32> = want.into_iter().flat_map(output.map).collect();
        let got: Vec<u32> = outs.concat();
        assert_same(
            &format!(
                "mrg32k3a {} seed {seed:#x} offset {offset}, {e} engines",
                output.kernel
            ),
            &got,
            &want,
        );
    }
}

/// MRG32k3a on 2 blocks of 64 threads (rocRAND: 512 of 256), two generate
/// calls per generator.
#[test]
fn mrg32k3a_generate_matches_reference() {
    check_mrg32k3a(
        &[(0, 0, &[1000, 300]), (0xcafe_f00d, 999, &[517, 128])],
        2,
        64,
    );
}

/// MRG32k3a on rocRAND's own grid, 512 blocks of 256 (131072 engines).
#[test]
fn mrg32k3a_generate_on_rocrands_grid() {
    check_mrg32k3a(&[(0x5eed, 300_001, &[1 << 16])], 512, 256);
}

// --------------------------------------------------- librocrand.so's data

/// The bytes of section `name` of the ELF64 little-endian file `elf`.
fn elf_section<'a>(elf: &'a [u8], name: &str) -> &'a [u8] {
    let u16_at = |o: usize| u16::from_le_bytes(elf[o..o + 2].try_into().unwrap()) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(elf[o..o + 4].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap()) as usize;
    assert_eq!(&elf[..6], b"\x7fELF\x02\x01", "librocrand.so: not ELF64 LE");
    let (shoff, shentsize, shnum, shstrndx) =
        (u64_at(0x28), u16_at(0x3a), u16_at(0x3c), u16_at(0x3e));
    let sh = |i: usize| shoff + i * shentsize;
    let strtab = u64_at(sh(shstrndx) + 0x18);
    (0..shnum)
        .find_map(|i| {
            let n = strtab + u32_at(sh(i));
            let end = n + elf[n..].iter().position(|&b| b == 0).unwrap();
            (&elf[n..end] == name.as_bytes()).then(|| {
                let (off, size) = (u64_at(sh(i) + 0x18), u64_at(sh(i) + 0x20));
                &elf[off..off + size]
            })
        })
        .unwrap_or_else(|| panic!("librocrand.so has no {name}"))
}

fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

// ---------------------------------------------------------------- Sobol32

/// `generate_kernel<1u, unsigned int, sobol_uniform_distribution<unsigned int>>(unsigned int*, size_t, const unsigned int*, unsigned int, ...)`.
const SOBOL_GENERATE: &str = "_ZN12rocrand_host6detailL15generate_kernelILj1Ej26sobol_uniform_distributionIjEEEvPT0_mPKjjT1_";

/// The direction vectors rocRAND's host code copies to the device
/// (`h_sobol32_direction_vectors`, 32 per dimension, dimension 0 first):
/// found in librocrand.so's .rodata by dimension 0's vectors
/// (1 << 31, ..., 1 << 0), which occur there once.
fn library_sobol32_vectors(so: &[u8], dims: usize) -> Vec<u32> {
    let rodata = elf_section(so, ".rodata");
    let first: Vec<u8> = bytes_of(&sobol_directions(0));
    let at = (0..rodata.len() - first.len())
        .step_by(4)
        .filter(|&o| rodata[o..o + first.len()] == first[..])
        .collect::<Vec<_>>();
    assert_eq!(
        at.len(),
        1,
        "dimension 0's direction vectors in .rodata at {at:x?}"
    );
    u32s(&rodata[at[0]..at[0] + 4 * 32 * dims])
}

#[test]
fn sobol32_library_direction_vectors_are_joe_kuos() {
    let so = host_library();
    let lib = library_sobol32_vectors(&so, JOE_KUO.len() + 1);
    for d in 0..=JOE_KUO.len() {
        assert_eq!(
            lib[32 * d..32 * d + 32],
            sobol_directions(d),
            "dimension {d}"
        );
    }
}

/// `rocrand_generate` of a Sobol32 generator with `dims` dimensions at
/// `offset`: rocRAND's own launch (256-thread blocks, blocks_x the power of
/// two covering size / 256 / dims, blocks_y = dims), with the library's
/// direction vectors; value j of dimension d lands at data[d * size + j].
#[test]
fn sobol32_generate_matches_reference() {
    check_sobol32(SOBOL_GENERATE, |v| v);
}

/// [`sobol32_generate_matches_reference`] for `generate_kernel<1u, T, D>`
/// `kernel`, `map` its distribution (from the Sobol point's 32 bits to the
/// output's).
fn check_sobol32(kernel: &str, map: fn(u32) -> u32) {
    let so = host_library();
    let dims = JOE_KUO.len() + 1;
    let vectors = library_sobol32_vectors(&so, dims);
    let (c, q, co) = setup();
    let dv = c.buffer(4 * vectors.len());
    dv.write_u32s(0, &vectors);
    // Buffers stay alive to the end: a dropped one's VA could be handed out
    // again while the GPU still maps it.
    let mut keep = Vec::new();
    // (dimensions, values per dimension, offset): grids (work-items) of 256 x 1,
    // 256 x 9, 512 x 3 and 4096 x 2.
    for (d, size, offset) in [
        (1usize, 700usize, 0u32),
        (dims, 300, 0),
        (3, 1100, 12345),
        (2, 7000, 77),
    ] {
        let n = d * size;
        let out = c.buffer(4 * (n + 1));
        out.write_u32s(0, &vec![0xdead_beef; n + 1]);
        let blocks = size.div_ceil(256).min(4096) as u32;
        let blocks_x = blocks.div_ceil(d as u32).next_power_of_two();
        let g = Geometry {
            grid: [256 * blocks_x, d as u32, 1],
            workgroup: [256, 1, 1],
            dynamic_lds: 0,
        };
        run(
            &c,
            &q,
            &co,
            kernel,
            &[
                Arg::Ptr(out.va),
                Arg::u64(size as u64),
                Arg::Ptr(dv.va),
                Arg::u32(offset),
                empty_functor(),
            ],
            g,
        );
        let got = out.read_u32s(0, n + 1);
        assert_eq!(got[n], 0xdead_beef, "wrote past the output");
        let want: Vec<u32> = (0..d)
            .flat_map(|dim| {
                let v = sobol_directions(dim);
                (0..size as u32).map(move |j| map(sobol_point(&v, offset + j)))
            })
            .collect();
        assert_same(
            &format!("sobol32 {kernel}: {d} dims, size {size}, offset {offset}"),
            &got[..n],
            &want,
        );
        keep.push(out);
    }
}

// ----------------------------------------------------------------- MTGP32

/// `generate_kernel<256u, unsigned int, uniform_distribution<unsigned int>>(mtgp32_engine*, unsigned int*, size_t, ...)`.
const MTGP_GENERATE: &str = "_ZN12rocrand_host6detailL15generate_kernelILj256Ej20uniform_distributionIjEEEvPN14rocrand_device13mtgp32_engineEPT0_mT1_";

/// MTGP32 for Mersenne exponent 11213 (Saito & Matsumoto, "Variants of
/// Mersenne Twister suitable for graphic processors", ACM TOMS 39(2), 2013):
/// N = 351 words, the recursion x[i+N] = rec(x[i], x[i+1], x[i+pos]),
/// output temper(x[i+N], x[i+pos-1]).
const MTGP_N: usize = 351;

/// One `mtgp32_params_fast_t` (mexp, pos, sh1, sh2, tbl[16], tmp_tbl[16],
/// flt_tmp_tbl[16], mask, poly_sha1[21]: 236 bytes).
#[derive(Clone)]
struct MtgpParams {
    pos: usize,
    sh1: u32,
    sh2: u32,
    tbl: [u32; 16],
    tmp_tbl: [u32; 16],
    flt_tmp_tbl: [u32; 16],
    mask: u32,
}

/// mtgp32dc_params_fast_11213 from librocrand.so's .data: 512 entries of
/// 236 bytes, each starting with mexp = 11213; found as the one run of 512
/// such entries.
fn library_mtgp_params(so: &[u8]) -> Vec<MtgpParams> {
    const SIZE: usize = 236;
    const COUNT: usize = 512;
    let data = elf_section(so, ".data");
    let mexp = 11213u32.to_le_bytes();
    let is_entry = |o: usize| o + SIZE <= data.len() && data[o..o + 4] == mexp;
    let starts: Vec<usize> = (0..data.len())
        .step_by(4)
        .filter(|&o| {
            (0..COUNT).all(|i| is_entry(o + i * SIZE)) && (o < SIZE || !is_entry(o - SIZE))
        })
        .collect();
    assert_eq!(
        starts.len(),
        1,
        "mtgp32dc_params_fast_11213 in .data at {starts:x?}"
    );
    (0..COUNT)
        .map(|i| {
            let w = u32s(&data[starts[0] + i * SIZE..starts[0] + i * SIZE + 212]);
            let t = |at: usize| -> [u32; 16] { w[at..at + 16].try_into().unwrap() };
            MtgpParams {
                pos: w[1] as usize,
                sh1: w[2],
                sh2: w[3],
                tbl: t(4),
                tmp_tbl: t(20),
                flt_tmp_tbl: t(36),
                mask: w[52],
            }
        })
        .collect()
}

/// A sequential MTGP32 (the reference implementation's
/// `mtgp32_genrand_uint32`): the state as a ring of N words.
struct Mtgp32 {
    p: MtgpParams,
    x: std::collections::VecDeque<u32>,
}

impl Mtgp32 {
    /// `mtgp32_init_state` of the MTGP reference code, as rocRAND's
    /// `rocrand_mtgp32_init_state` copies it.
    fn new(p: &MtgpParams, seed: u32) -> Self {
        let hidden = p.tbl[4] ^ (p.tbl[8] << 16);
        let mut t = hidden;
        t = t.wrapping_add(t >> 16);
        t = t.wrapping_add(t >> 8);
        let fill = (t & 0xff) * 0x0101_0101;
        let mut a = vec![fill; MTGP_N];
        a[0] = seed;
        a[1] = hidden;
        for i in 1..MTGP_N {
            a[i] ^= 1_812_433_253u32
                .wrapping_mul(a[i - 1] ^ (a[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        Self {
            p: p.clone(),
            x: a.into(),
        }
    }

    fn next(&mut self) -> u32 {
        let p = &self.p;
        let (x1, x2, y) = (self.x[0], self.x[1], self.x[p.pos]);
        // para_rec
        let mut x = (x1 & p.mask) ^ x2;
        x ^= x << p.sh1;
        let y = x ^ (y >> p.sh2);
        let r = y ^ p.tbl[(y & 0xf) as usize];
        // temper with x[i + pos - 1]
        let mut t = self.x[p.pos - 1];
        t ^= t >> 16;
        t ^= t >> 8;
        let o = r ^ p.tmp_tbl[(t & 0xf) as usize];
        self.x.pop_front();
        self.x.push_back(r);
        o
    }
}

/// The 4312-byte `mtgp32_engine` rocrand_make_state_mtgp32 builds on the
/// host for engine `i` (offset, id, status[1024], pos_tbl, param_tbl[16],
/// temper_tbl[16], sh1_tbl, sh2_tbl, single_temper_tbl[16], mask). Status
/// words past the N the seeding sets are whatever malloc gave: a pattern
/// here, never read by a correct kernel.
fn mtgp_engine(params: &[MtgpParams], i: usize, seed: u64) -> Vec<u32> {
    let p = &params[i];
    let seed = seed ^ (seed >> 32);
    let state = Mtgp32::new(p, (seed as u32).wrapping_add(i as u32 + 1));
    let mut w = vec![0u32, i as u32];
    let mut status = vec![0x5a5a_5a5a; 1024];
    for (k, &x) in state.x.iter().enumerate() {
        status[k] = x;
    }
    w.extend_from_slice(&status);
    w.push(p.pos as u32);
    w.extend_from_slice(&p.tbl);
    w.extend_from_slice(&p.tmp_tbl);
    w.extend_from_slice(&[p.sh1, p.sh2]);
    w.extend_from_slice(&p.flt_tmp_tbl);
    w.push(params[0].mask);
    assert_eq!(w.len() * 4, 4312);
    w
}

/// `rocrand_generate` of an MTGP32 generator for unsigned int, one call
/// per entry of `sizes`, with `blocks` engines, so `blocks` blocks of 256
/// (rocRAND: 512 of each; the kernel needs 256-thread blocks, one engine per
/// block). The reference models the kernel's per-block walk: block b steps
/// its engine (256 values, value t to thread t) while its 256 indices
/// b*256 + k*stride lie below n rounded down to 256, and once more for the
/// partial last 256 if that is its.
fn check_mtgp32(cases: &[(u64, &[usize])], blocks: usize) {
    check_mtgp32_as(MTGP_GENERATE, |v| v, cases, blocks);
}

/// [`check_mtgp32`] for `generate_kernel<256u, T, D>` `kernel`, `map` its
/// distribution of one engine value.
fn check_mtgp32_as(kernel: &str, map: fn(u32) -> u32, cases: &[(u64, &[usize])], blocks: usize) {
    let so = host_library();
    let params = library_mtgp_params(&so);
    assert!(
        params
            .iter()
            .all(|p| p.mask == 0xfff8_0000 && p.pos < MTGP_N - 256)
    );
    let (c, q, co) = setup();
    let stride = 256 * blocks;
    // Buffers stay alive to the end: a dropped one's VA could be handed out
    // again while the GPU still maps it.
    let mut keep = Vec::new();
    for &(seed, sizes) in cases {
        let engines = c.buffer(4312 * blocks);
        for b in 0..blocks {
            engines.write_u32s(4312 * b, &mtgp_engine(&params, b, seed));
        }
        let seed32 = (seed ^ (seed >> 32)) as u32;
        let mut refs: Vec<Mtgp32> = (0..blocks)
            .map(|b| Mtgp32::new(&params[b], seed32.wrapping_add(b as u32 + 1)))
            .collect();
        for &n in sizes {
            let out = c.buffer(4 * (n + 1));
            out.write_u32s(0, &vec![0xdead_beef; n + 1]);
            run(
                &c,
                &q,
                &co,
                kernel,
                &[
                    Arg::Ptr(engines.va),
                    Arg::Ptr(out.va),
                    Arg::u64(n as u64),
                    empty_functor(),
                ],
                Geometry::linear(stride as u32, 256),
            );
            let got = out.read_u32s(0, n + 1);
            assert_eq!(got[n], 0xdead_beef, "wrote past the output");
            let mut want = vec![None; n];
            let down = n - n % 256;
            let up = n.next_multiple_of(256);
            for (b, r) in refs.iter_mut().enumerate() {
                let mut base = b * 256;
                while base < down || base < up {
                    let last = base >= down;
                    for t in 0..256 {
                        let v = r.next();
                        if base + t < n {
                            want[base + t] = Some(map(v));
                        }
                    }
                    base += stride;
                    if last {
                        break;
                    }
                }
            }
            let want: Vec<u32> = want
                .into_iter()
                .map(|w| w.expect("the reference covers every index"))
                .collect();
            assert_same(
                &format!("mtgp32 {kernel} seed {seed:#x} n {n}"),
                &got[..n],
                &want,
            );
            keep.push(out);
        }
        keep.push(engines);
    }
}

/// rocRAND's own Philox launch, 1024 blocks of 256 threads, for 2^16
/// values.
#[test]
fn philox_generate_on_rocrands_grid() {
    let (seed, offset, n) = (0x5eed_u64, 3u64, 1usize << 16);
    let got = run_philox(
        philox_host_engine(seed, offset),
        n,
        0,
        Geometry::linear(1024 * 256, 256),
    );
    let key = [seed as u32, 0];
    let want: Vec<u32> = (0..n as u64)
        .map(|i| philox_stream(key, 0, offset + i))
        .collect();
    assert_same("philox on rocRAND's grid", &got, &want);
}

/// MTGP32 with 2 engines (2 blocks), two generate calls per generator.
#[test]
fn mtgp32_generate_matches_reference() {
    check_mtgp32(
        &[(0, &[1000, 777]), (0x1234_5678_9abc_def0, &[2048, 256])],
        2,
    );
}

/// MTGP32 on rocRAND's own grid: 512 engines, 512 blocks of 256.
#[test]
fn mtgp32_generate_on_rocrands_grid() {
    check_mtgp32(&[(0x5eed, &[512 * 256 + 1000])], 512);
}

// ------------------------------------------------- float and double output

const PHILOX_GENERATE_F32: &str = "_ZN12rocrand_host6detailL15generate_kernelIf20uniform_distributionIfEEEvNS0_27philox4x32_10_device_engineEPT_mT0_";
const PHILOX_GENERATE_F64: &str = "_ZN12rocrand_host6detailL15generate_kernelId20uniform_distributionIdEEEvNS0_27philox4x32_10_device_engineEPT_mT0_";
const XORWOW_GENERATE_F32: &str = "_ZN12rocrand_host6detailL15generate_kernelIf20uniform_distributionIfEEEvPN14rocrand_device13xorwow_engineEjPT_mT0_";
const MRG_GENERATE_F32: &str = "_ZN12rocrand_host6detailL15generate_kernelIf24mrg_uniform_distributionIfEEEvPN14rocrand_device15mrg32k3a_engineEjPT_mT0_";
const MRG_GENERATE_F64: &str = "_ZN12rocrand_host6detailL15generate_kernelId24mrg_uniform_distributionIdEEEvPN14rocrand_device15mrg32k3a_engineEjPT_mT0_";
const SOBOL_GENERATE_F32: &str = "_ZN12rocrand_host6detailL15generate_kernelILj1Ef26sobol_uniform_distributionIfEEEvPT0_mPKjjT1_";
const MTGP_GENERATE_F32: &str = "_ZN12rocrand_host6detailL15generate_kernelILj256Ef20uniform_distributionIfEEEvPN14rocrand_device13mtgp32_engineEPT0_mT1_";

/// rocRAND's `uniform_distribution_double(v1, v2)`: the 53-bit integer
/// v1 | (v2 >> 11) << 32, times 2^-53, plus 2^-53 (exact product: one
/// rounding however it is contracted).
fn uniform_double(v1: u32, v2: u32) -> f64 {
    let k = 1.110_223_024_625_156_5e-16_f64;
    assert_eq!(k, 2f64.powi(-53));
    let x = u64::from(v1) | u64::from(v2 >> 11) << 32;
    k + x as f64 * k
}

/// rocRAND's `mrg_uniform_distribution_double`: v / m1 as v * 2.3283065498378288e-10.
// rocRAND's ROCRAND_MRG32K3A_NORM_DOUBLE as it writes it.
#[allow(clippy::excessive_precision)]
fn mrg_uniform_double(v: u32) -> f64 {
    f64::from(v) * 2.328_306_549_837_828_8e-10
}

fn f64_words(x: f64) -> Vec<u32> {
    let b = x.to_bits();
    vec![b as u32, (b >> 32) as u32]
}

/// The float kernels of each generator: `uniform_distribution<float>`
/// (`sobol_uniform_distribution<float>`, `mrg_uniform_distribution<float>`)
/// of the same engine values.
#[test]
fn float_outputs_match_reference() {
    let g = Geometry::linear(128, 64);
    let (seed, offset, n) = (0xfeed_u64, 5u64, 1001usize);
    let key = [seed as u32, 0];
    let got = run_philox_as(
        PHILOX_GENERATE_F32,
        1,
        philox_host_engine(seed, offset),
        n,
        1,
        g,
    );
    let want: Vec<u32> = (0..n as u64)
        .map(|i| uniform_float(philox_stream(key, 0, offset + i)).to_bits())
        .collect();
    assert_same("philox float", &got, &want);

    let float_output = |kernel| Output {
        kernel,
        words: 1,
        map: |v| vec![uniform_float(v).to_bits()],
    };
    check_xorwow_as(
        &float_output(XORWOW_GENERATE_F32),
        &[(9, 77, &[600, 100])],
        2,
        64,
    );
    let mrg_float = Output {
        kernel: MRG_GENERATE_F32,
        words: 1,
        map: |v| vec![(mrg_uniform_double(v) as f32).to_bits()],
    };
    check_mrg32k3a_as(&mrg_float, &[(9, 77, &[600, 100])], 2, 64);
    check_sobol32(SOBOL_GENERATE_F32, |v| uniform_float(v).to_bits());
    check_mtgp32_as(
        MTGP_GENERATE_F32,
        |v| uniform_float(v).to_bits(),
        &[(9, &[1000, 300])],
        2,
    );
}

/// The double kernels of Philox (two engine values per double) and
/// MRG32k3a (one).
#[test]
fn double_outputs_match_reference() {
    let (seed, offset, n) = (0xfeed_u64, 6u64, 1001usize);
    let key = [seed as u32, 0];
    // An aligned output: with a misaligned one, rocRAND 5.3.3 moves the
    // engines of threads other than 0 on by head_size engine values where
    // its head used 2 * head_size, so its output is not the plain stream
    // (tried: it then matches that shifted model, not the stream).
    let got = run_philox_as(
        PHILOX_GENERATE_F64,
        2,
        philox_host_engine(seed, offset),
        n,
        0,
        Geometry::linear(128, 64),
    );
    let want: Vec<u32> = (0..n as u64)
        .flat_map(|i| {
            f64_words(uniform_double(
                philox_stream(key, 0, offset + 2 * i),
                philox_stream(key, 0, offset + 2 * i + 1),
            ))
        })
        .collect();
    assert_same("philox double", &got, &want);

    let mrg_double = Output {
        kernel: MRG_GENERATE_F64,
        words: 2,
        map: |v| f64_words(mrg_uniform_double(v)),
    };
    check_mrg32k3a_as(&mrg_double, &[(9, 77, &[600, 100])], 2, 64);
}
