//! Kernel descriptors against LLVM's own assembler and disassembler.
//!
//! For every GPU family, many `.amdhsa_kernel` blocks with pseudo-random legal
//! directive values are assembled by clang-19; our decode of the 64 bytes must
//! print exactly what `llvm-objdump-19 --disassemble-symbols=<k>.kd` prints,
//! line by line. Then single bits LLVM's decoder rejects are flipped in the
//! assembled object: LLVM and we must both reject, and we must name the bit.

use loader_core::kernel_descriptor::{GpuFamily, KdError, KernelDescriptor};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn bit(&mut self) -> u64 {
        self.below(2)
    }
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("loader-core-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e} (install clang-19 / llvm-19)"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Assembles one kernel `k` with the given directives; returns the object path.
fn assemble(dir: &Path, cpu: &str, case: usize, directives: &str) -> PathBuf {
    let src = dir.join(format!("{cpu}-{case}.s"));
    let obj = dir.join(format!("{cpu}-{case}.o"));
    let text = format!(
        ".amdgcn_target \"amdgcn-amd-amdhsa--{cpu}\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_endpgm\n\
         .rodata\n.p2align 6\n.amdhsa_kernel k\n{directives}.end_amdhsa_kernel\n"
    );
    std::fs::write(&src, text).unwrap();
    run(Command::new("clang-19")
        .args([
            "-x",
            "assembler",
            "-target",
            "amdgcn-amd-amdhsa",
            &format!("-mcpu={cpu}"),
            "-c",
            "-o",
        ])
        .arg(&obj)
        .arg(&src));
    obj
}

/// File offset of `.rodata` (where the assembler put `k.kd`, at offset 0).
fn rodata_offset(obj: &Path) -> usize {
    let s = run(Command::new("llvm-readelf-19").arg("-S").arg(obj));
    let line = s
        .lines()
        .find(|l| l.contains(" .rodata "))
        .expect("no .rodata");
    let cols: Vec<&str> = line.split_whitespace().collect();
    let i = cols.iter().position(|c| *c == "PROGBITS").unwrap();
    usize::from_str_radix(cols[i + 2], 16).unwrap()
}

/// The lines llvm-objdump prints between `.amdhsa_kernel` and
/// `.end_amdhsa_kernel`, or the error line.
fn objdump(obj: &Path) -> Result<Vec<String>, String> {
    let s = run(Command::new("llvm-objdump-19")
        .args(["-D", "--disassemble-symbols=k.kd"])
        .arg(obj));
    if let Some(err) = s.lines().find(|l| l.starts_with("; error decoding")) {
        return Err(err.to_string());
    }
    let mut lines = s.lines().skip_while(|l| !l.starts_with(".amdhsa_kernel"));
    assert_eq!(
        lines.next(),
        Some(".amdhsa_kernel k"),
        "objdump output:\n{s}"
    );
    Ok(lines
        .take_while(|l| *l != ".end_amdhsa_kernel")
        .map(str::to_string)
        .collect())
}

fn ours(bytes: &[u8], family: GpuFamily, cov: u8) -> Result<Vec<String>, KdError> {
    let kd = KernelDescriptor::parse(bytes)?.decode(family)?;
    Ok(kd
        .directives(cov)
        .map(|d| {
            if d.comment {
                format!("\t; {} {}", d.name, d.value)
            } else {
                format!("\t{} {}", d.name, d.value)
            }
        })
        .collect())
}

/// Pseudo-random legal directives for `family`.
fn random_directives(rng: &mut Rng, family: GpuFamily) -> String {
    let mut s = String::new();
    let mut d = |name: &str, v: u64| writeln!(s, "  .amdhsa_{name} {v}").unwrap();
    d("group_segment_fixed_size", rng.below(65537));
    d("private_segment_fixed_size", rng.below(4096));
    d("kernarg_size", 256 + rng.below(1024));
    let wave32 = family.supports_wave32() && rng.bit() == 1;
    if family.supports_wave32() {
        d("wavefront_size32", u64::from(wave32));
    }
    let vgprs = 1 + rng.below(if family.has_gfx90a_insts() { 512 } else { 256 });
    d("next_free_vgpr", vgprs);
    if family.has_gfx90a_insts() {
        let max_accum = vgprs.div_ceil(4).min(64);
        d("accum_offset", 4 * (1 + rng.below(max_accum)));
        d("tg_split", rng.bit());
    }
    d(
        "next_free_sgpr",
        rng.below(if family.is_gfx10_plus() { 106 } else { 80 }),
    );
    d("reserve_vcc", rng.bit());
    if !family.has_architected_flat_scratch() {
        d("reserve_flat_scratch", rng.bit());
    }
    for f in [
        "float_round_mode_32",
        "float_round_mode_16_64",
        "float_denorm_mode_32",
        "float_denorm_mode_16_64",
    ] {
        d(f, rng.below(4));
    }
    if !family.is_gfx12_plus() {
        d("dx10_clamp", rng.bit());
        d("ieee_mode", rng.bit());
    }
    if family.is_gfx9_plus() {
        d("fp16_overflow", rng.bit());
    }
    if family.is_gfx10_plus() {
        d("workgroup_processor_mode", rng.bit());
        d("memory_ordered", rng.bit());
        d("forward_progress", rng.bit());
        if !family.is_gfx12_plus() && !wave32 && vgprs <= 128 {
            d(
                "shared_vgpr_count",
                rng.below(((256 - vgprs.div_ceil(4) * 4) / 8).min(15) + 1),
            );
        }
    }
    if family.is_gfx12_plus() {
        d("round_robin_scheduling", rng.bit());
    }
    if family.has_architected_flat_scratch() {
        d("enable_private_segment", rng.bit());
    } else {
        d("system_sgpr_private_segment_wavefront_offset", rng.bit());
    }
    for f in [
        "workgroup_id_x",
        "workgroup_id_y",
        "workgroup_id_z",
        "workgroup_info",
    ] {
        d(&format!("system_sgpr_{f}"), rng.bit());
    }
    d("system_vgpr_workitem_id", rng.below(3));
    for f in [
        "fp_ieee_invalid_op",
        "fp_denorm_src",
        "fp_ieee_div_zero",
        "fp_ieee_overflow",
        "fp_ieee_underflow",
        "fp_ieee_inexact",
        "int_div_zero",
    ] {
        d(&format!("exception_{f}"), rng.bit());
    }
    let mut user = 0;
    let mut u = |d: &mut dyn FnMut(&str, u64), name: &str, n: u64, rng: &mut Rng| {
        let on = rng.bit();
        d(&format!("user_sgpr_{name}"), on);
        user += on * n;
    };
    if !family.has_architected_flat_scratch() {
        u(&mut d, "private_segment_buffer", 4, rng);
    }
    u(&mut d, "dispatch_ptr", 2, rng);
    u(&mut d, "queue_ptr", 2, rng);
    u(&mut d, "kernarg_segment_ptr", 2, rng);
    u(&mut d, "dispatch_id", 2, rng);
    if !family.has_architected_flat_scratch() {
        u(&mut d, "flat_scratch_init", 2, rng);
    }
    u(&mut d, "private_segment_size", 1, rng);
    d("uses_dynamic_stack", rng.bit());
    if family.has_kernarg_preload() && user <= 14 && rng.bit() == 1 {
        let len = 1 + rng.below(16 - user);
        d("user_sgpr_kernarg_preload_length", len);
        d("user_sgpr_kernarg_preload_offset", rng.below(32));
    }
    s
}

const TARGETS: &[(&str, GpuFamily)] = &[
    ("gfx803", GpuFamily::Gfx8),
    ("gfx900", GpuFamily::Gfx9),
    ("gfx906", GpuFamily::Gfx9),
    ("gfx908", GpuFamily::Gfx9),
    ("gfx90a", GpuFamily::Gfx90a),
    ("gfx942", GpuFamily::Gfx94x),
    ("gfx1010", GpuFamily::Gfx10),
    ("gfx1030", GpuFamily::Gfx10),
    ("gfx1100", GpuFamily::Gfx11),
    ("gfx1151", GpuFamily::Gfx11),
    ("gfx1200", GpuFamily::Gfx12),
];

#[test]
fn family_of_every_tested_processor() {
    for (cpu, family) in TARGETS {
        assert_eq!(GpuFamily::from_processor(cpu), Some(*family), "{cpu}");
    }
    for bad in [
        "gfx",
        "gfx9",
        "gfx90",
        "gfx9000",
        "gfx13-generic",
        "gfx90a:xnack+",
        "sm_80",
        "gfx1300",
    ] {
        assert_eq!(GpuFamily::from_processor(bad), None, "{bad}");
    }
}

#[test]
fn decode_matches_llvm_objdump_on_assembled_descriptors() {
    let dir = tmpdir("kd-llvm");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut compared = 0;
    for (cpu, family) in TARGETS {
        for case in 0..6 {
            let directives = random_directives(&mut rng, *family);
            let obj = assemble(&dir, cpu, case, &directives);
            let data = std::fs::read(&obj).unwrap();
            let off = rodata_offset(&obj);
            let theirs = objdump(&obj)
                .unwrap_or_else(|e| panic!("{cpu} case {case}: LLVM rejects: {e}\n{directives}"));
            let ours = ours(&data[off..off + 64], *family, 5)
                .unwrap_or_else(|e| panic!("{cpu} case {case}: we reject: {e}\n{directives}"));
            assert_eq!(ours, theirs, "{cpu} case {case}, directives:\n{directives}");
            // The same descriptor found through its `k.kd` symbol of the
            // relocatable object.
            let elf = loader_core::elf::ElfFile::parse(&data).unwrap();
            let found: Vec<_> = loader_core::kernel_descriptor::descriptors(&elf)
                .map(|d| d.unwrap())
                .collect();
            assert_eq!(found.len(), 1);
            assert_eq!((found[0].name, found[0].vaddr), ("k", 0));
            assert_eq!(
                found[0].descriptor,
                KernelDescriptor::parse(&data[off..off + 64]).unwrap()
            );
            compared += 1;
        }
    }
    assert_eq!(compared, TARGETS.len() * 6);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn code_object_v4_has_no_dynamic_stack_directive() {
    let dir = tmpdir("kd-cov4");
    let src = dir.join("k.s");
    let obj = dir.join("k.o");
    std::fs::write(
        &src,
        ".amdgcn_target \"amdgcn-amd-amdhsa--gfx906\"\n.text\n.globl k\n.p2align 8\nk:\n s_endpgm\n.rodata\n.p2align 6\n\
         .amdhsa_kernel k\n .amdhsa_next_free_vgpr 9\n .amdhsa_next_free_sgpr 9\n.end_amdhsa_kernel\n",
    )
    .unwrap();
    run(Command::new("clang-19")
        .args([
            "-x",
            "assembler",
            "-target",
            "amdgcn-amd-amdhsa",
            "-mcpu=gfx906",
            "-mcode-object-version=4",
            "-c",
            "-o",
        ])
        .arg(&obj)
        .arg(&src));
    let data = std::fs::read(&obj).unwrap();
    let off = rodata_offset(&obj);
    assert_eq!(
        ours(&data[off..off + 64], GpuFamily::Gfx9, 4).unwrap(),
        objdump(&obj).unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Bits LLVM's decoder rejects, per family: (byte offset, bit).
fn rejected_bits(family: GpuFamily) -> Vec<(usize, u32)> {
    let mut v = vec![
        (12, 0),  // reserved0
        (30, 5),  // reserved1
        (62, 7),  // reserved3
        (48, 10), // rsrc1 PRIORITY
        (48, 11),
        (48, 20), // PRIV
        (48, 22), // DEBUG_MODE
        (48, 24), // BULKY
        (48, 25), // CDBG_USER
        (48, 27), // RESERVED1
        (48, 28),
        (52, 13), // rsrc2 ADDRESS_WATCH
        (52, 14), // MEMORY
        (52, 15), // GRANULATED_LDS_SIZE
        (52, 23),
        (52, 31), // RESERVED0
        (56, 7),  // kernel_code_properties RESERVED0
        (56, 9),
        (56, 12), // RESERVED1
        (56, 15),
    ];
    if !family.is_gfx9_plus() {
        v.push((48, 26));
    }
    if !family.is_gfx10_plus() {
        v.extend([(48, 29), (48, 30), (48, 31)]);
    }
    if family.is_gfx9() {
        v.push((56, 10)); // wave32
    }
    if family.has_gfx90a_insts() {
        v.extend([(44, 6), (44, 15), (44, 17), (44, 31)]);
    } else if family.is_gfx10_plus() {
        v.extend([(44, 12), (44, 14), (44, 30)]);
        match family {
            GpuFamily::Gfx10 => v.extend([(44, 4), (44, 11), (44, 13), (44, 31)]),
            GpuFamily::Gfx11 => v.push((44, 13)),
            _ => v.push((44, 0)),
        }
    } else {
        v.extend([(44, 0), (44, 16)]);
    }
    v
}

#[test]
fn bits_llvm_rejects_we_reject_too() {
    let dir = tmpdir("kd-reject");
    let mut checked = 0;
    for (cpu, family) in TARGETS {
        let mut directives =
            String::from("  .amdhsa_next_free_vgpr 8\n  .amdhsa_next_free_sgpr 8\n");
        if family.has_gfx90a_insts() {
            directives += "  .amdhsa_accum_offset 4\n";
        }
        let obj = assemble(&dir, cpu, 0, &directives);
        let data = std::fs::read(&obj).unwrap();
        let off = rodata_offset(&obj);
        assert!(ours(&data[off..off + 64], *family, 5).is_ok());
        for (byte, bit) in rejected_bits(*family) {
            let mut bad = data.clone();
            let at = off + byte + (bit / 8) as usize;
            bad[at] ^= 1 << (bit % 8);
            let patched = dir.join(format!("{cpu}-bad.o"));
            std::fs::write(&patched, &bad).unwrap();
            let theirs = objdump(&patched);
            assert!(theirs.is_err(), "{cpu}: LLVM accepts byte {byte} bit {bit}");
            let err =
                ours(&bad[off..off + 64], *family, 5).expect_err("we accept a bit LLVM rejects");
            match err {
                KdError::BitsSet { register, mask, .. } => {
                    assert_eq!(register.offset(), byte, "{cpu}: {err}");
                    assert_eq!(mask, 1 << bit, "{cpu}: {err}");
                }
                KdError::ReservedBytesSet { offset, len } => {
                    assert!(
                        (offset as usize..(offset + len) as usize)
                            .contains(&(byte + bit as usize / 8)),
                        "{err}"
                    )
                }
                other => panic!("{cpu} byte {byte} bit {bit}: unexpected {other}"),
            }
            checked += 1;
        }
    }
    assert!(checked > 200);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The one bit pattern LLVM 19's disassembler rejects that we accept:
/// GRANULATED_WAVEFRONT_SGPR_COUNT on GFX10+, reserved and ignored by the
/// hardware, but set by LLVM 19's own code generator (llvm-project#154666),
/// so a loader must take it.
#[test]
fn gfx10_plus_sgpr_count_field_is_accepted_as_llvm_19_emits_it() {
    let dir = tmpdir("kd-sgpr");
    for (cpu, family) in TARGETS.iter().filter(|(_, f)| f.is_gfx10_plus()) {
        let obj = assemble(
            &dir,
            cpu,
            0,
            "  .amdhsa_next_free_vgpr 8\n  .amdhsa_next_free_sgpr 8\n",
        );
        let mut data = std::fs::read(&obj).unwrap();
        let off = rodata_offset(&obj);
        data[off + 48] |= 1 << 6;
        let patched = dir.join(format!("{cpu}-sgpr.o"));
        std::fs::write(&patched, &data).unwrap();
        assert!(
            objdump(&patched)
                .unwrap_err()
                .contains("GRANULATED_WAVEFRONT_SGPR_COUNT")
        );
        let kd = KernelDescriptor::parse(&data[off..off + 64])
            .unwrap()
            .decode(*family)
            .unwrap();
        assert_eq!(kd.rsrc1.granulated_wavefront_sgpr_count, 1);
        // The reserved field does not count: the directives are objdump's
        // for the clean descriptor, `.amdhsa_next_free_sgpr 8` included.
        assert_eq!(kd.next_free_sgpr, 8);
        assert_eq!(
            ours(&data[off..off + 64], *family, 5).unwrap(),
            objdump(&obj).unwrap(),
            "{cpu}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn errors_say_what_and_where() {
    let mut kd = KernelDescriptor {
        compute_pgm_rsrc1: 1 << 10,
        ..Default::default()
    };
    let e = kd.decode(GpuFamily::Gfx9).unwrap_err();
    assert_eq!(
        e.to_string(),
        "kernel descriptor: COMPUTE_PGM_RSRC1 (byte 48) bits (10:10) of COMPUTE_PGM_RSRC1_PRIORITY set: must be zero, the CP sets it"
    );
    kd.compute_pgm_rsrc1 = 0;
    kd.kernel_code_properties = 1 << 3; // kernarg segment ptr: 2 user SGPRs
    assert_eq!(
        kd.decode(GpuFamily::Gfx11).unwrap_err(),
        KdError::UserSgprCountTooSmall {
            declared: 0,
            required: 2
        }
    );
    assert_eq!(
        KernelDescriptor::parse(&[0; 63]).unwrap_err(),
        KdError::WrongSize { len: 63 }
    );
    // gfx10 wave64: 256 private VGPRs (granulated 63) leave no room for shared ones.
    let shared = KernelDescriptor {
        compute_pgm_rsrc1: 63,
        compute_pgm_rsrc3: 1,
        ..Default::default()
    };
    assert_eq!(
        shared.decode(GpuFamily::Gfx10).unwrap_err(),
        KdError::SharedVgprsPastLimit {
            next_free_vgpr: 256,
            shared_vgprs: 8
        }
    );
    let e: loader_core::Error = shared.decode(GpuFamily::Gfx10).unwrap_err().into();
    assert_eq!(e.kind(), loader_core::ErrorKind::LimitExceeded);
    assert_eq!(
        e.to_string(),
        "`COMPUTE_PGM_RSRC3_GFX10_GFX11_SHARED_VGPR_COUNT`: private plus shared VGPRs exceed 256"
    );
    let fits = KernelDescriptor {
        compute_pgm_rsrc1: 61,
        compute_pgm_rsrc3: 1,
        ..Default::default()
    };
    assert!(fits.decode(GpuFamily::Gfx11).is_ok());
    let mut b = [0u8; 64];
    b[40] = 1;
    assert_eq!(
        KernelDescriptor::parse(&b).unwrap_err(),
        KdError::ReservedBytesSet {
            offset: 24,
            len: 20
        }
    );
    assert_eq!(
        KernelDescriptor::parse(&b).unwrap_err().to_string(),
        "kernel descriptor: reserved bits in range (351:192) set"
    );
    kd.kernel_code_properties = 0;
    kd.kernarg_preload = 2;
    assert_eq!(
        kd.decode(GpuFamily::Gfx10).unwrap_err(),
        KdError::KernargPreloadUnsupported {
            family: GpuFamily::Gfx10
        }
    );
}
