//! The shader core running real code objects end to end through
//! `Kfd<SimDevice>`: clang-19 OpenCL C kernels of the loader-core corpus
//! (gfx90a, code object v5), compared bit for bit with a Rust reference.

mod support;

use std::sync::Arc;

use support::*;

const CORPUS_GFX90A: &str = "../loader-core/corpus/co/gfx90a-v5.co";

/// Deterministic test data (xorshift).
fn floats(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s as i32 as f32) / 65536.0
        })
        .collect()
}

#[test]
fn vector_add_runs_and_matches_the_host() {
    let c = Client::new(2);
    let q = Queue::new(&c, 0);
    let co = c.load(CORPUS_GFX90A);
    let k = &co.kernels["vector_add"];
    // A partial last work-group: 1000 = 3 * 256 + 232.
    let n = 1000usize;
    let a = floats(n, 1);
    let b = floats(n, 2);
    let (ba, bb, bc) = (c.buffer(n * 4), c.buffer(n * 4), c.buffer(n * 4 + 64));
    ba.write_f32s(0, &a);
    bb.write_f32s(0, &b);
    bc.write_u32s(0, &vec![0xdead_beef; n + 16]);
    let out = dispatch(
        &c,
        &q,
        k,
        &[
            Arg::Ptr(ba.va),
            Arg::Ptr(bb.va),
            Arg::Ptr(bc.va),
            Arg::u32(n as u32),
        ],
        Geometry::linear(1024, 256),
    );
    assert!(matches!(out, Outcome::Done), "{out:?}");
    let got = bc.read_u32s(0, n + 16);
    for i in 0..n {
        assert_eq!(got[i], (a[i] + b[i]).to_bits(), "c[{i}]");
    }
    // Work-items past n (the `if (i < n)`) stored nothing.
    assert!(got[n..].iter().all(|&v| v == 0xdead_beef));
}

#[test]
fn a_full_wave_store_running_past_its_buffer_faults_at_the_first_unmapped_dword() {
    // Full waves whose lanes store consecutive dwords take the unit-stride
    // path: one range check for the wave's 256 bytes. The wave at
    // elements 1024..1087 stores past the 4 KiB output buffer: the check
    // fails, and the access faults as lane by lane, at the first dword
    // past the buffer, after the waves before it stored their results.
    let c = Client::new(1);
    let q = Queue::new(&c, 0);
    let co = c.load(CORPUS_GFX90A);
    let k = &co.kernels["vector_add"];
    let n = 1088usize;
    let a = floats(n, 3);
    let b = floats(n, 4);
    let (ba, bb, bc) = (c.buffer(n * 4), c.buffer(n * 4), c.buffer(4096));
    ba.write_f32s(0, &a);
    bb.write_f32s(0, &b);
    let out = dispatch(
        &c,
        &q,
        k,
        &[
            Arg::Ptr(ba.va),
            Arg::Ptr(bb.va),
            Arg::Ptr(bc.va),
            Arg::u32(n as u32),
        ],
        Geometry::linear(1280, 256),
    );
    let Outcome::Error(_, what) = out else {
        panic!("{out:?}")
    };
    assert!(
        what.contains(&format!("{:#x}", bc.va + 4096)),
        "names the first address past the buffer: {what}"
    );
    assert!(what.contains("write"), "{what}");
    let got = bc.read_u32s(0, 1024);
    for i in 0..1024 {
        assert_eq!(got[i], (a[i] + b[i]).to_bits(), "c[{i}]");
    }
}

#[test]
fn saxpy_runs_and_matches_the_host() {
    let c = Client::new(1);
    let q = Queue::new(&c, 0);
    let co = c.load(CORPUS_GFX90A);
    let k = &co.kernels["saxpy"];
    let n = 4096 + 77;
    let x = floats(n, 3);
    let y = floats(n, 4);
    let alpha = 1.7f32;
    let (bx, by) = (c.buffer(n * 4), c.buffer(n * 4));
    bx.write_f32s(0, &x);
    by.write_f32s(0, &y);
    let grid = (n as u32).next_multiple_of(256);
    let out = dispatch(
        &c,
        &q,
        k,
        &[
            Arg::f32(alpha),
            Arg::Ptr(bx.va),
            Arg::Ptr(by.va),
            Arg::i32(n as i32),
        ],
        Geometry::linear(grid, 256),
    );
    assert!(matches!(out, Outcome::Done), "{out:?}");
    let got = by.read_u32s(0, n);
    for i in 0..n {
        // v_fmac_f32: one rounding.
        assert_eq!(got[i], alpha.mul_add(x[i], y[i]).to_bits(), "y[{i}]");
    }
}

/// Finds the first instruction named `mnemonic` in the code at `entry`
/// (up to its `s_endpgm`), by llvm's names through the `isa` decoder.
fn find_instruction(entry: u64, mnemonic: &str) -> u64 {
    let d = isa::Decoder::new(isa::Processor::Gfx90a);
    let mut pc = entry;
    loop {
        let i = d.decode(&peek(pc, 12)).expect("the kernel decodes");
        if i.mnemonic() == mnemonic {
            return pc;
        }
        assert_ne!(i.mnemonic(), "s_endpgm", "no {mnemonic} in the kernel");
        pc += i.len() as u64;
    }
}

#[test]
fn decoded_code_is_reused_across_dispatches_and_redecoded_when_rewritten() {
    let core = Arc::new(sim::Interpreter::new(isa::Processor::Gfx90a, 1));
    let c = Client::with_core(1, Some(core.clone()));
    let q = Queue::new(&c, 0);
    let co = c.load(CORPUS_GFX90A);
    let k = &co.kernels["vector_add"];
    let n = 300usize;
    let a = floats(n, 5);
    let b = floats(n, 6);
    let (ba, bb, bc) = (c.buffer(n * 4), c.buffer(n * 4), c.buffer(n * 4));
    ba.write_f32s(0, &a);
    bb.write_f32s(0, &b);
    let args = [
        Arg::Ptr(ba.va),
        Arg::Ptr(bb.va),
        Arg::Ptr(bc.va),
        Arg::u32(n as u32),
    ];
    let run = |expect: &dyn Fn(f32, f32) -> f32| {
        bc.write_u32s(0, &vec![0; n]);
        let out = dispatch(&c, &q, k, &args, Geometry::linear(512, 256));
        assert!(matches!(out, Outcome::Done), "{out:?}");
        let got = bc.read_u32s(0, n);
        for i in 0..n {
            assert_eq!(got[i], expect(a[i], b[i]).to_bits(), "c[{i}]");
        }
    };
    run(&|x, y| x + y);
    let first = core.decode_stats();
    assert_eq!((first.programs_decoded, first.programs_reused), (1, 0));
    assert!(first.blocks_decoded > 0);
    // The same code again: the program is reused, nothing decoded.
    run(&|x, y| x + y);
    let second = core.decode_stats();
    assert_eq!((second.programs_decoded, second.programs_reused), (1, 1));
    assert_eq!(second.blocks_decoded, first.blocks_decoded);
    // The client rewrites the kernel's v_add_f32 into v_sub_f32 (VOP2
    // opcode 1 -> 2, bits 30:25) at the same address: the stale program is
    // dropped, the code decoded again, and the new code runs.
    let at = find_instruction(kernel_entry(k), "v_add_f32_e32");
    let word = u32::from_le_bytes(peek(at, 4).try_into().unwrap());
    let sub = (word & !(0x3f << 25)) | (2 << 25);
    poke(at, &sub.to_le_bytes());
    assert_eq!(find_instruction(at, "v_sub_f32_e32"), at);
    run(&|x, y| x - y);
    let third = core.decode_stats();
    assert_eq!(
        (
            third.programs_decoded,
            third.programs_reused,
            third.programs_stale
        ),
        (2, 1, 1)
    );
    assert!(third.blocks_decoded > second.blocks_decoded);
}

const TRAP_CO: &str = "tests/kernels/trap.co";

#[test]
fn s_trap_enters_the_installed_trap_handler_which_returns_with_s_rfe() {
    let c = Client::new(1);
    let q = Queue::new(&c, 0);
    let co = c.load(TRAP_CO);
    let k = &co.kernels["trap_kernel"];
    let entry = kernel_entry(k);
    // trap_handler sits at the kernel's entry + 0x100 (build.sh checks it);
    // its first instruction is `s_store_dword ttmp1, ttmp[14:15], 0x0 glc`.
    let tba = entry + 0x100;
    let first = isa::Decoder::new(isa::Processor::Gfx90a)
        .decode(&peek(tba, 12))
        .unwrap();
    assert_eq!(first.mnemonic(), "s_store_dword");
    let tma = c.buffer(4096);
    c.kfd.set_trap_handler(c.gpu_id, tba, tma.va).unwrap();
    let out = c.buffer(4096);
    // Two work-groups of two waves: every wave traps once.
    let r = dispatch(&c, &q, k, &[Arg::Ptr(out.va)], Geometry::linear(256, 128));
    assert!(matches!(r, Outcome::Done), "{r:?}");
    // The waves resumed after the s_trap with their registers.
    assert_eq!(out.read_u32s(0, 1)[0], 0x1234);
    let rec = tma.read_u32s(0, 3);
    let trap_pc = find_instruction(entry, "s_trap");
    // ttmp1 = PC[47:32] | trap id << 16; ttmp0 = PC[31:0].
    assert_eq!(rec[0], ((trap_pc >> 32) as u32 & 0xffff) | (2 << 16));
    assert_eq!(rec[1], trap_pc as u32);
    assert_eq!(rec[2], 4, "one trap per wave");
}

#[test]
fn s_trap_without_a_trap_handler_is_reported_as_a_trap() {
    let c = Client::new(1);
    let q = Queue::new(&c, 0);
    let co = c.load(TRAP_CO);
    let k = &co.kernels["trap_kernel"];
    let out = c.buffer(4096);
    let r = dispatch(&c, &q, k, &[Arg::Ptr(out.va)], Geometry::linear(64, 64));
    let Outcome::Error(code, what) = r else {
        panic!("{r:?}")
    };
    assert_eq!(code, (1 << 63) | sim::code::TRAP, "{what}");
    assert!(
        what.contains("s_trap 2 in kernel trap_kernel at +0x14"),
        "{what}"
    );
    assert_eq!(out.read_u32s(0, 1)[0], 0, "nothing ran past the trap");
}

/// Runs trap_kernel (one `s_trap 2` per wave) twice on a fresh queue (grid
/// 128 x 3 in work-groups of 128: three groups of two waves) with trap.s's
/// ttmp_handler installed and the runtime enabled in `mode`, and returns
/// what ttmp_handler recorded per trap, sorted: (ttmp6, ttmp8, ttmp9,
/// ttmp10, ttmp11).
fn recorded_ttmps(mode: Option<kfd::ioctl::RuntimeEnableMode>) -> Vec<[u32; 5]> {
    let c = Client::new(1);
    if let Some(m) = mode {
        c.kfd.runtime_enable(0x7000_1000, m).unwrap();
    }
    let q = Queue::new(&c, 0);
    let co = c.load(TRAP_CO);
    let k = &co.kernels["trap_kernel"];
    let tba = kernel_entry(k) + 0x200;
    let first = isa::Decoder::new(isa::Processor::Gfx90a)
        .decode(&peek(tba, 12))
        .unwrap();
    assert_eq!(
        first.mnemonic(),
        "s_mov_b32",
        "ttmp_handler at the entry + 0x200"
    );
    let tma = c.buffer(4096);
    c.kfd.set_trap_handler(c.gpu_id, tba, tma.va).unwrap();
    let out = c.buffer(4096);
    let g = Geometry {
        grid: [128, 3, 1],
        workgroup: [128, 1, 1],
        dynamic_lds: 0,
    };
    for _ in 0..2 {
        let r = dispatch(&c, &q, k, &[Arg::Ptr(out.va)], g);
        assert!(matches!(r, Outcome::Done), "{r:?}");
    }
    let n = tma.read_u32s(0, 1)[0] as usize;
    assert_eq!(n, 12, "one trap per wave: 2 dispatches of 6 waves");
    let words = tma.read_u32s(16, n * 5);
    let mut recs: Vec<[u32; 5]> = words
        .chunks(5)
        .map(|c| [c[0], c[1], c[2], c[3], c[4]])
        .collect();
    recs.sort();
    recs
}

/// With KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK (HSA_ENABLE_DEBUG=1 in
/// ROCr) the SPI sets up each wave's trap temporaries as a debugger reads
/// them on gfx9 (ROCdbgapi architecture.cpp): ttmp6[24:0] the dispatch
/// packet's index in the queue, ttmp8..10 the work-group id, ttmp11[5:0]
/// the wave's position in its group; the trap handler sees them.
#[test]
fn ttmp_setup_gives_each_wave_its_dispatch_index_group_id_and_position() {
    let got = recorded_ttmps(Some(
        kfd::ioctl::RuntimeEnableMode::ENABLE | kfd::ioctl::RuntimeEnableMode::TTMP_SAVE,
    ));
    let mut want = Vec::new();
    for packet in 0..2 {
        for y in 0..3 {
            for wave in 0..2 {
                want.push([packet, 0, y, 0, wave]);
            }
        }
    }
    want.sort();
    assert_eq!(got, want);
}

/// Without TTMP_SAVE (the runtime enabled only, or never) the trap
/// temporaries are not set up: the handler sees them as the wave started,
/// zero.
#[test]
fn without_ttmp_setup_the_trap_temporaries_are_not_set_up() {
    for mode in [Some(kfd::ioctl::RuntimeEnableMode::ENABLE), None] {
        assert_eq!(recorded_ttmps(mode), vec![[0; 5]; 12], "{mode:?}");
    }
}

/// The runtime's GFX9 trap handler (runtime/trap/trap_handler.s, the bytes
/// the runtime installs) and the runtime's fault kernels.
const RUNTIME_TRAP_HANDLER: &[u8] = include_bytes!("../../runtime/trap/trap_handler_gfx9.bin");
const FAULTS_CO: &str = "../runtime/kernels/faults.co";

/// Installs the runtime's handler with an empty doorbell-to-queue map (as
/// the runtime does); returns the code and the map.
fn install_runtime_handler(c: &Client) -> (Buffer, Buffer) {
    let code = c.buffer(4096);
    code.write(0, RUNTIME_TRAP_HANDLER);
    let map = c.buffer(8192);
    c.kfd.set_trap_handler(c.gpu_id, code.va, map.va).unwrap();
    (code, map)
}

/// Enters `q` in the map: map[doorbell id] = its amd_queue_t.
fn map_queue(map: &Buffer, q: &Queue) {
    let id = ((q.info.doorbell_offset & 8191) >> 3) & 0x3ff;
    map.write_u64s(id as usize * 8, &[q.amd.va]);
}

/// An address in the hole between the 48-bit halves: in no aperture.
const HOLE: u64 = 0x0000_8000_0000_0000;

/// Through the runtime's handler: s_trap 2, an illegal word and a store to
/// an address in no aperture leave ROCr's codes in the queue's inactive
/// signal (written by the handler, not the CP: no bit 63) and halt the
/// wave; s_trap 3 is stepped over and the kernel completes.
#[test]
fn the_runtimes_trap_handler_reports_traps_and_exceptions() {
    let c = Client::new(2);
    let (_code, map) = install_runtime_handler(&c);
    let co = c.load(FAULTS_CO);
    let g = Geometry::linear(128, 64);
    let mut queues = Vec::new();
    for (kernel, args, want) in [
        ("trap_now", vec![], sim::code::TRAP),
        ("illegal", vec![], sim::code::ILLEGAL_INSTRUCTION),
        (
            "store_at",
            vec![Arg::Bytes(HOLE.to_le_bytes().to_vec())],
            sim::code::MEMORY_APERTURE_VIOLATION,
        ),
    ] {
        // Each on its own queue, kept (a stopped queue's buffers stay mapped).
        queues.push(Queue::new(&c, 0));
        let q = queues.last().unwrap();
        map_queue(&map, q);
        let r = dispatch(&c, q, &co.kernels[kernel], &args, g);
        let Outcome::Error(code, what) = r else {
            panic!("{kernel}: {r:?}")
        };
        assert_eq!(code, want, "{kernel}: {what}");
        assert!(
            what.contains("halted by the trap handler"),
            "{kernel}: {what}"
        );
    }
    let q = Queue::new(&c, 0);
    map_queue(&map, &q);
    let out = c.buffer(4096);
    let r = dispatch(
        &c,
        &q,
        &co.kernels["debugtrap_then_store"],
        &[Arg::Ptr(out.va)],
        g,
    );
    assert!(matches!(r, Outcome::Done), "{r:?}");
    let want: Vec<u32> = (1..=128).collect();
    assert_eq!(out.read_u32s(0, 128), want);
}

/// Without a trap handler the CP reports an aperture violation itself,
/// with the code ROCr's handler would have written.
#[test]
fn an_aperture_violation_without_a_trap_handler_is_reported_by_the_cp() {
    let c = Client::new(1);
    let q = Queue::new(&c, 0);
    let co = c.load(FAULTS_CO);
    let r = dispatch(
        &c,
        &q,
        &co.kernels["store_at"],
        &[Arg::Bytes(HOLE.to_le_bytes().to_vec())],
        Geometry::linear(64, 64),
    );
    let Outcome::Error(code, what) = r else {
        panic!("{r:?}")
    };
    assert_eq!(
        code,
        (1 << 63) | sim::code::MEMORY_APERTURE_VIOLATION,
        "{what}"
    );
    assert!(what.contains("address in no aperture"), "{what}");
}

#[test]
fn vgpr_indexing_mode_reads_and_writes_the_indexed_vgpr() {
    let c = Client::new(1);
    let q = Queue::new(&c, 0);
    let co = c.load("tests/kernels/gpridx.co");
    let k = &co.kernels["gpridx_uniform"];
    let n = 128usize;
    let out = c.buffer(n * 4);
    // The clang-19 code: s_set_gpr_idx_on s3, gpr_idx(DST) for the write,
    // s_set_gpr_idx_on s2, gpr_idx(SRC0) for the read.
    let mut pc = kernel_entry(k);
    let d = isa::Decoder::new(isa::Processor::Gfx90a);
    let mut seen = 0;
    loop {
        let i = d.decode(&peek(pc, 12)).unwrap();
        seen += usize::from(i.mnemonic() == "s_set_gpr_idx_on");
        if i.mnemonic() == "s_endpgm" {
            break;
        }
        pc += i.len() as u64;
    }
    assert_eq!(seen, 2, "the kernel uses VGPR indexing mode");
    for (kk, jj) in [(0, 0), (3, 3), (5, 9), (15, 2), (7, 0), (17, 33)] {
        out.write_u32s(0, &vec![0; n]);
        let r = dispatch(
            &c,
            &q,
            k,
            &[Arg::Ptr(out.va), Arg::i32(kk), Arg::i32(jj)],
            Geometry::linear(n as u32, 64),
        );
        assert!(matches!(r, Outcome::Done), "{r:?}");
        for (i, got) in out.read_f32s(0, n).into_iter().enumerate() {
            let mut v: Vec<f32> = (0..16).map(|t| (i * 16 + t) as f32).collect();
            v[(jj & 15) as usize] = -1.0;
            assert_eq!(got, v[(kk & 15) as usize], "out[{i}] k={kk} j={jj}");
        }
    }
}

#[test]
fn coverage_counts_every_executed_instruction_with_its_fidelity() {
    let c = Client::new(1);
    let dev = c.kfd.device();
    assert_eq!(dev.shader_coverage().map(|v| v.executed()), Some(0));
    let q = Queue::new(&c, 0);
    let co = c.load(CORPUS_GFX90A);
    let k = &co.kernels["vector_add"];
    let (ba, bb, bc) = (c.buffer(4096), c.buffer(4096), c.buffer(4096));
    let args = [
        Arg::Ptr(ba.va),
        Arg::Ptr(bb.va),
        Arg::Ptr(bc.va),
        Arg::u32(1000),
    ];
    // Off: nothing counted.
    assert!(matches!(
        dispatch(&c, &q, k, &args, Geometry::linear(1024, 256)),
        Outcome::Done
    ));
    assert_eq!(dev.shader_coverage().unwrap().executed(), 0);
    assert!(dev.set_shader_coverage(true));
    assert!(matches!(
        dispatch(&c, &q, k, &args, Geometry::linear(1024, 256)),
        Outcome::Done
    ));
    let cov = dev.shader_coverage().unwrap();
    // 16 waves, each runs the kernel to its end once (all have lanes < 1000).
    for m in [
        "v_add_f32",
        "global_store_dword",
        "s_endpgm",
        "s_and_saveexec_b64",
    ] {
        let e = cov.get(m).unwrap_or_else(|| panic!("{m} in {cov}"));
        assert_eq!(e.count, 16, "{m}");
        assert_eq!(e.fidelity, sim::Fidelity::Exact, "{m}");
    }
    assert_eq!(cov.get("global_load_dword").unwrap().count, 32);
    // Every instruction of the kernel, run by 16 waves.
    let mut pc = kernel_entry(k);
    let d = isa::Decoder::new(isa::Processor::Gfx90a);
    let mut per_wave = 0;
    loop {
        let i = d.decode(&peek(pc, 12)).unwrap();
        per_wave += 1;
        if i.mnemonic() == "s_endpgm" {
            break;
        }
        pc += i.len() as u64;
    }
    assert_eq!(cov.executed(), 16 * per_wave, "{cov}");
    // An approximate one, with its bound: v_sqrt_f32 in the f32 sqrt
    // expansion of math.co.
    let math = c.load("tests/kernels/math.co");
    let buf = c.buffer(4096);
    let r = dispatch(
        &c,
        &q,
        &math.kernels["f32_sqrt"],
        &[
            Arg::Ptr(buf.va),
            Arg::Ptr(buf.va),
            Arg::Ptr(buf.va),
            Arg::Ptr(buf.va),
        ],
        Geometry::linear(64, 64),
    );
    assert!(matches!(r, Outcome::Done), "{r:?}");
    let cov = dev.shader_coverage().unwrap();
    let sqrt = cov.get("v_sqrt_f32").unwrap();
    assert_eq!(sqrt.count, 1);
    assert!(matches!(sqrt.fidelity, sim::Fidelity::Approximate(b) if b.contains("1 ulp")));
    // The report names each with its count and fidelity.
    let text = cov.to_string();
    assert!(text.contains("\tapproximate\tv_sqrt_f32\t"), "{text}");
    assert!(
        text.lines().any(|l| l == "16\texact\tv_add_f32\t"),
        "{text}"
    );
    assert!(dev.set_shader_coverage(false));
}
