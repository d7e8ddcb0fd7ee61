//! Loading code objects into host memory, checked against LLVM's tools:
//! segments as `llvm-readelf-19 -l` lists them, kernels and variables as its
//! `--dyn-syms` lists them, descriptors as `llvm-objdump-19` disassembles
//! them, dynamic relocations (`R_AMDGPU_ABS64`, `R_AMDGPU_RELATIVE64`) as
//! `llvm-readelf-19 -r` lists them, and the relocation arithmetic of every
//! type `ld.lld-19` implements against the bytes ld.lld itself writes.

use loader_core::ErrorKind;
use loader_core::elf::ElfFile;
use loader_core::kernel_descriptor::GpuFamily;
use loader_core::load::{
    AgentMemory, ImageLayout, LoadError, MemoryError, RelocationInputs, RelocationType,
    SliceMemory, load, relocation_value,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const BASE: u64 = 0x7f00_0000_0000;

fn corpus_objects() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/co");
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "co"))
        .collect();
    v.sort();
    assert!(v.len() >= 30, "corpus has {} code objects", v.len());
    v
}

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e} (install clang-19 / llvm-19 / lld-19)"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap()
}

/// `(vaddr, filesz, memsz, offset)` of every LOAD line of `llvm-readelf -l`.
fn readelf_loads(path: &Path) -> Vec<(u64, u64, u64, u64)> {
    run(Command::new("llvm-readelf-19").arg("-l").arg(path))
        .lines()
        .filter(|l| l.trim_start().starts_with("LOAD "))
        .map(|l| {
            let c: Vec<&str> = l.split_whitespace().collect();
            (hex(c[2]), hex(c[4]), hex(c[5]), hex(c[1]))
        })
        .collect()
}

/// `name -> (value, size, type)` of `.dynsym`.
fn readelf_dynsyms(path: &Path) -> BTreeMap<String, (u64, u64, String, String)> {
    run(Command::new("llvm-readelf-19").arg("--dyn-syms").arg(path))
        .lines()
        .filter_map(|l| {
            let c: Vec<&str> = l.split_whitespace().collect();
            (c.len() == 8 && c[0].ends_with(':') && c[0] != "Num:").then(|| {
                (
                    c[7].to_string(),
                    (
                        hex(c[1]),
                        c[2].parse().unwrap(),
                        c[3].to_string(),
                        c[6].to_string(),
                    ),
                )
            })
        })
        .collect()
}

/// The `.amdhsa_*` lines llvm-objdump prints for `<kernel>.kd`, or its
/// error line.
fn objdump_kd(path: &Path, kernel: &str) -> Result<Vec<String>, String> {
    let s = run(Command::new("llvm-objdump-19")
        .arg("-D")
        .arg(format!("--disassemble-symbols={kernel}.kd"))
        .arg(path));
    if let Some(e) = s.lines().find(|l| l.starts_with("; error decoding")) {
        return Err(e.to_string());
    }
    Ok(s.lines()
        .skip_while(|l| !l.starts_with(".amdhsa_kernel"))
        .skip(1)
        .take_while(|l| *l != ".end_amdhsa_kernel")
        .map(str::to_string)
        .collect())
}

/// What llvm-objdump prints for every `<kernel>.kd` of `path`, in one run.
fn objdump_all(path: &Path, kernels: &[&str]) -> BTreeMap<String, Result<Vec<String>, String>> {
    let list: Vec<String> = kernels.iter().map(|k| format!("{k}.kd")).collect();
    let s = run(Command::new("llvm-objdump-19")
        .arg("-D")
        .arg(format!("--disassemble-symbols={}", list.join(",")))
        .arg(path));
    let mut out = BTreeMap::new();
    let mut lines = s.lines();
    while let Some(l) = lines.next() {
        if let Some(name) = l.strip_prefix(".amdhsa_kernel ") {
            let block = lines
                .by_ref()
                .take_while(|l| *l != ".end_amdhsa_kernel")
                .map(str::to_string)
                .collect();
            out.insert(name.to_string(), Ok(block));
        } else if let Some(rest) = l.strip_prefix("; error decoding ") {
            let name = rest.split(".kd:").next().unwrap();
            out.insert(name.to_string(), Err(l.to_string()));
        }
    }
    out
}

/// objdump's view of a descriptor. LLVM 19's code generator sets
/// GRANULATED_WAVEFRONT_SGPR_COUNT on GFX10+, which its own disassembler then
/// rejects (llvm-project#154666); for those, objdump decodes a copy with the
/// field cleared, and our decoding of the original must equal it.
fn objdump_kd_lenient(
    path: &Path,
    data: &[u8],
    kernel: &str,
    kd_file_offset: usize,
    first: Result<Vec<String>, String>,
) -> (Vec<String>, bool) {
    match first {
        Ok(lines) => (lines, false),
        Err(e) if e.contains("GRANULATED_WAVEFRONT_SGPR_COUNT") => {
            let mut copy = data.to_vec();
            copy[kd_file_offset + 48] &= !0xc0;
            copy[kd_file_offset + 49] &= !0x03;
            let tmp = std::env::temp_dir()
                .join(format!("loader-core-kd-{}-{kernel}.co", std::process::id()));
            std::fs::write(&tmp, copy).unwrap();
            let lines =
                objdump_kd(&tmp, kernel).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let _ = std::fs::remove_file(&tmp);
            (lines, true)
        }
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

fn load_into<'a>(
    data: &'a [u8],
    buf: &mut Vec<u8>,
) -> (loader_core::load::LoadedCodeObject<'a>, Vec<u8>) {
    let layout = ImageLayout::of(&ElfFile::parse(data).unwrap()).unwrap();
    buf.clear();
    buf.resize(layout.size as usize + 0x10000, 0xAA); // garbage, so zeroing shows
    let mut mem = SliceMemory::new(buf, BASE);
    let loaded = load(data, &mut mem, |_| None).unwrap_or_else(|e| panic!("{e}"));
    let image = mem.bytes().to_vec();
    (loaded, image)
}

#[test]
fn corpus_objects_load_as_llvm_describes_them() {
    let mut buf = Vec::new();
    let mut kernels_seen = 0;
    let mut sgpr_quirks = 0;
    for path in corpus_objects() {
        let data = std::fs::read(&path).unwrap();
        let (loaded, image) = load_into(&data, &mut buf);
        let name = path.display();

        // Segments: copied to base + vaddr, the bss part zeroed.
        let loads = readelf_loads(&path);
        assert_eq!(loaded.layout().segments, loads.len(), "{name}");
        let lo = loads.iter().map(|l| l.0).min().unwrap();
        let hi = loads.iter().map(|l| l.0 + l.2).max().unwrap();
        assert_eq!(
            loaded.layout().base_vaddr,
            lo & !(loaded.layout().align - 1),
            "{name}"
        );
        assert_eq!(
            loaded.layout().size,
            hi - loaded.layout().base_vaddr,
            "{name}"
        );
        assert_eq!(loaded.address() % loaded.layout().align, 0);
        for &(vaddr, filesz, memsz, offset) in &loads {
            let at = (loaded.bias().wrapping_add(vaddr) - BASE) as usize;
            assert_eq!(
                &image[at..at + filesz as usize],
                &data[offset as usize..(offset + filesz) as usize],
                "{name}"
            );
            assert!(
                image[at + filesz as usize..at + memsz as usize]
                    .iter()
                    .all(|&b| b == 0),
                "{name}: bss"
            );
        }

        // Kernels: every `.kd` object of .dynsym, at base + st_value, entry at
        // the kernel function, descriptor as llvm-objdump decodes it.
        let syms = readelf_dynsyms(&path);
        let cov = ElfFile::parse(&data)
            .unwrap()
            .code_object_version()
            .unwrap()
            .number() as u8;
        let mut expected: Vec<&str> = syms
            .keys()
            .filter_map(|k| k.strip_suffix(".kd"))
            .filter(|k| syms[*k].2 == "FUNC")
            .collect();
        expected.sort();
        let mut got: Vec<&str> = Vec::new();
        let mut objdump = objdump_all(&path, &expected);
        for k in loaded.kernels() {
            let k = k.unwrap_or_else(|e| panic!("{name}: {e}"));
            got.push(k.name);
            let (kd_value, kd_size, kd_type, _) = &syms[&format!("{}.kd", k.name)];
            assert_eq!((*kd_size, kd_type.as_str()), (64, "OBJECT"));
            assert_eq!(
                k.kernel_object,
                loaded.bias() + kd_value,
                "{name} {}",
                k.name
            );
            assert_eq!(
                k.entry,
                loaded.bias() + syms[k.name].0,
                "{name} {}: entry is the kernel function",
                k.name
            );
            let (vaddr, seg_off) = loads
                .iter()
                .find(|l| *kd_value >= l.0 && *kd_value < l.0 + l.1)
                .map(|l| (l.0, l.3))
                .unwrap();
            let (theirs, sgpr_cleared) = objdump_kd_lenient(
                &path,
                &data,
                k.name,
                (kd_value - vaddr + seg_off) as usize,
                objdump.remove(k.name).unwrap(),
            );
            let ours: Vec<String> = k
                .descriptor
                .directives(cov)
                .map(|d| {
                    if d.comment {
                        format!("\t; {} {}", d.name, d.value)
                    } else {
                        format!("\t{} {}", d.name, d.value)
                    }
                })
                .collect();
            if sgpr_cleared {
                // Every line equal, `.amdhsa_next_free_sgpr` (8) included:
                // the reserved field LLVM 19 filled does not count.
                sgpr_quirks += 1;
            }
            assert_eq!(ours, theirs, "{name} {}", k.name);
            assert_eq!(
                u64::from(k.kernarg_segment_size),
                k.descriptor
                    .directives(cov)
                    .get(".amdhsa_kernarg_size")
                    .unwrap()
            );
            assert!(k.wavefront_size == 32 || k.wavefront_size == 64);
            let md = loaded.metadata().unwrap().kernel(k.name).unwrap().unwrap();
            assert_eq!(k.kernarg_segment_align, md.kernarg_segment_align.max(16));
            assert!(k.kernarg_segment_align.is_power_of_two());
            kernels_seen += 1;
        }
        // The same descriptors, read from the file without loading.
        let elf = ElfFile::parse(&data).unwrap();
        let family = loaded.family().unwrap();
        let from_file: Vec<_> = loader_core::kernel_descriptor::descriptors(&elf)
            .map(|d| {
                let d = d.unwrap();
                (
                    d.name,
                    d.vaddr + loaded.bias(),
                    d.descriptor.decode(family).unwrap(),
                )
            })
            .collect();
        let from_load: Vec<_> = loaded
            .kernels()
            .map(|k| k.unwrap())
            .map(|k| (k.name, k.kernel_object, k.descriptor))
            .collect();
        assert_eq!(from_file, from_load, "{name}");
        got.sort();
        assert_eq!(got, expected, "{name}");

        // Variables: the remaining OBJECT symbols.
        for v in loaded.variables() {
            let (value, size, ty, _) = &syms[v.name];
            assert_eq!(
                (v.address, v.size, ty.as_str()),
                (loaded.bias() + value, *size, "OBJECT")
            );
        }
        if name.to_string().contains("gfx942-v5-kernarg-preload") {
            assert!(
                loaded
                    .kernels()
                    .any(|k| k.unwrap().descriptor.kernarg_preload.length > 0),
                "{name}"
            );
        }
        assert_eq!(
            loaded.family(),
            GpuFamily::from_processor(
                ElfFile::parse(&data)
                    .unwrap()
                    .flags()
                    .unwrap()
                    .processor
                    .unwrap()
                    .name
            )
        );
    }
    assert!(kernels_seen > 300, "{kernels_seen} kernels");
    assert!(
        sgpr_quirks < kernels_seen / 2,
        "{sgpr_quirks} descriptors needed the GFX10+ SGPR workaround"
    );
}

const GLOBALS_CL: &str = r#"
__global int counter = 5;
__global int table[4] = {1, 2, 3, 4};
__global int* ptr = &table[2];
extern __global int ext_var;
__global int* extp = &ext_var;
__kernel void use(__global int* out) { out[0] = *ptr + counter + *extp + ext_var; }
"#;

/// Builds GLOBALS_CL with clang-19 for `cpu`; `visibility` default makes
/// ld.lld emit `R_AMDGPU_ABS64` against symbols, hidden `R_AMDGPU_RELATIVE64`.
fn build_globals(cpu: &str, visibility: &str, defined_ext: bool) -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!(
        "loader-core-load-{cpu}-{visibility}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("g.cl");
    let mut text = GLOBALS_CL.to_string();
    if defined_ext {
        text = text.replace("extern __global int ext_var;", "__global int ext_var = 9;");
    }
    std::fs::write(&src, text).unwrap();
    let out = dir.join("g.co");
    run(Command::new("clang-19")
        .args([
            "-x",
            "cl",
            "-cl-std=CL2.0",
            "-target",
            "amdgcn-amd-amdhsa",
            "-nogpulib",
            "-O2",
            "-Wl,-z,undefs",
        ])
        .arg(format!("-mcpu={cpu}"))
        .arg(format!("-fvisibility={visibility}"))
        .arg("-o")
        .arg(&out)
        .arg(&src));
    let data = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    data
}

/// `(offset, type, symbol, addend)` of `llvm-readelf -r` (`.rela.dyn`).
fn readelf_relocs(data: &[u8]) -> Vec<(u64, String, String, i64)> {
    let path = std::env::temp_dir().join(format!("loader-core-relocs-{}.co", std::process::id()));
    std::fs::write(&path, data).unwrap();
    let s = run(Command::new("llvm-readelf-19").arg("-r").arg(&path));
    let _ = std::fs::remove_file(&path);
    s.lines()
        .filter(|l| l.contains("R_AMDGPU_"))
        .map(|l| {
            let c: Vec<&str> = l.split_whitespace().collect();
            // offset info type [value name (+|-) addend] | [addend]
            if c.len() >= 7 {
                let a = hex(c[6]) as i64;
                (
                    hex(c[0]),
                    c[2].to_string(),
                    c[4].to_string(),
                    if c[5] == "-" { -a } else { a },
                )
            } else {
                (hex(c[0]), c[2].to_string(), String::new(), hex(c[3]) as i64)
            }
        })
        .collect()
}

fn word_at(image: &[u8], address: u64) -> u64 {
    let at = (address - BASE) as usize;
    u64::from_le_bytes(image[at..at + 8].try_into().unwrap())
}

#[test]
fn abs64_relocations_against_own_and_external_symbols() {
    let data = build_globals("gfx90a", "default", false);
    let relocs = readelf_relocs(&data);
    assert!(
        relocs.len() >= 5 && relocs.iter().all(|r| r.1 == "R_AMDGPU_ABS64"),
        "{relocs:?}"
    );
    assert!(relocs.iter().any(|r| r.2 == "ext_var"));

    let layout = ImageLayout::of(&ElfFile::parse(&data).unwrap()).unwrap();
    let mut buf = vec![0xAAu8; layout.size as usize + 0x1000];
    // Unresolved external: a typed error naming the symbol.
    let err = load(&data, &mut SliceMemory::new(&mut buf, BASE), |_| None).unwrap_err();
    assert!(
        matches!(
            err,
            LoadError::UnresolvedSymbol {
                name: "ext_var",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("`ext_var`"), "{err}");

    const EXT: u64 = 0x1234_5678_9abc_def0;
    let mut mem = SliceMemory::new(&mut buf, BASE);
    let mut asked = Vec::new();
    let loaded = load(&data, &mut mem, |name| {
        asked.push(name.to_string());
        (name == "ext_var").then_some(EXT)
    })
    .unwrap();
    assert!(asked.iter().all(|n| n == "ext_var") && !asked.is_empty());
    let image = mem.bytes().to_vec();
    for (offset, _, sym, addend) in &relocs {
        let s = if sym == "ext_var" {
            EXT
        } else {
            loaded.symbol(sym).unwrap()
        };
        assert_eq!(
            word_at(&image, loaded.bias() + offset),
            s.wrapping_add_signed(*addend),
            "{sym}+{addend}"
        );
    }
    // `ptr` points at table[2] in agent memory.
    let ptr = loaded.symbol("ptr").unwrap();
    assert_eq!(word_at(&image, ptr), loaded.symbol("table").unwrap() + 8);
    let vars: BTreeMap<&str, u64> = loaded.variables().map(|v| (v.name, v.size)).collect();
    assert_eq!(
        vars,
        BTreeMap::from([("counter", 4), ("extp", 8), ("ptr", 8), ("table", 16)])
    );
}

#[test]
fn relative64_relocations() {
    let data = build_globals("gfx1100", "hidden", true);
    let relocs = readelf_relocs(&data);
    assert!(
        !relocs.is_empty() && relocs.iter().all(|r| r.1 == "R_AMDGPU_RELATIVE64"),
        "{relocs:?}"
    );
    let layout = ImageLayout::of(&ElfFile::parse(&data).unwrap()).unwrap();
    let mut buf = vec![0xAAu8; layout.size as usize + 0x1000];
    let mut mem = SliceMemory::new(&mut buf, BASE + 0x100);
    let loaded = load(&data, &mut mem, |_| panic!("no external symbols")).unwrap();
    assert_eq!(
        loaded.address() % layout.align,
        0,
        "allocation honours the alignment"
    );
    let image = mem.bytes().to_vec();
    let mem_base = BASE + 0x100;
    for (offset, _, _, addend) in &relocs {
        let at = (loaded.bias() + offset - mem_base) as usize;
        let word = u64::from_le_bytes(image[at..at + 8].try_into().unwrap());
        assert_eq!(word, loaded.bias().wrapping_add_signed(*addend));
    }
    assert_eq!(loaded.kernels().count(), 1);
}

#[test]
fn relocation_targets_outside_segments_are_errors() {
    let data = build_globals("gfx90a", "default", true);
    let elf = ElfFile::parse(&data).unwrap();
    let rela = elf
        .sections()
        .find(|s| s.name().ok() == Some(b".rela.dyn".as_slice()))
        .unwrap();
    let off = rela.header().sh_offset as usize;
    let layout = ImageLayout::of(&elf).unwrap();
    for bad_offset in [
        u64::MAX - 3,
        layout.base_vaddr + layout.size - 4,
        0x10_0000_0000,
    ] {
        let mut bad = data.clone();
        bad[off..off + 8].copy_from_slice(&bad_offset.to_le_bytes());
        let mut buf = vec![0u8; layout.size as usize + 0x1000];
        let err = load(&bad, &mut SliceMemory::new(&mut buf, BASE), |_| Some(0)).unwrap_err();
        let LoadError::Object(e) = err else {
            panic!("{err}")
        };
        assert_eq!(e.kind(), ErrorKind::OutOfBounds, "{e}");
        assert_eq!(
            e.to_string(),
            "relocation 0: relocation target lies outside every PT_LOAD segment"
        );
    }
    // An unknown relocation type, and a symbol index past .dynsym.
    let mut bad = data.clone();
    bad[off + 8..off + 12].copy_from_slice(&12u32.to_le_bytes());
    let mut buf = vec![0u8; layout.size as usize + 0x1000];
    let err = load(&bad, &mut SliceMemory::new(&mut buf, BASE), |_| Some(0)).unwrap_err();
    assert!(
        matches!(err, LoadError::Object(e) if e.kind() == ErrorKind::Unsupported),
        "{err}"
    );
    let mut bad = data.clone();
    bad[off + 12..off + 16].copy_from_slice(&0xffffu32.to_le_bytes());
    let err = load(&bad, &mut SliceMemory::new(&mut buf, BASE), |_| Some(0)).unwrap_err();
    assert!(matches!(err, LoadError::Object(_)), "{err}");
}

#[test]
fn memory_failures_are_reported() {
    let data = std::fs::read(&corpus_objects()[0]).unwrap();
    let mut small = vec![0u8; 64];
    let err = load(&data, &mut SliceMemory::new(&mut small, BASE), |_| None).unwrap_err();
    assert!(
        matches!(err, LoadError::Memory(MemoryError { .. })),
        "{err}"
    );

    /// Memory whose writes fail after `budget` calls.
    struct Flaky(Vec<u8>, usize);
    impl AgentMemory for Flaky {
        fn allocate(&mut self, size: u64, _: u64) -> Result<u64, MemoryError> {
            self.0.resize(size as usize, 0);
            Ok(0x1000_0000)
        }
        fn write(&mut self, address: u64, bytes: &[u8]) -> Result<(), MemoryError> {
            if self.1 == 0 {
                return Err(MemoryError {
                    op: loader_core::load::MemoryOp::Write,
                    address,
                    len: bytes.len() as u64,
                });
            }
            self.1 -= 1;
            let at = (address - 0x1000_0000) as usize;
            self.0[at..at + bytes.len()].copy_from_slice(bytes);
            Ok(())
        }
        fn zero(&mut self, address: u64, len: u64) -> Result<(), MemoryError> {
            let at = (address - 0x1000_0000) as usize;
            self.0[at..at + len as usize].fill(0);
            Ok(())
        }
        fn read(&mut self, address: u64, out: &mut [u8]) -> Result<(), MemoryError> {
            let at = (address - 0x1000_0000) as usize;
            out.copy_from_slice(&self.0[at..at + out.len()]);
            Ok(())
        }
    }
    let err = load(&data, &mut Flaky(Vec::new(), 1), |_| None).unwrap_err();
    assert!(
        matches!(
            err,
            LoadError::Memory(MemoryError {
                op: loader_core::load::MemoryOp::Write,
                ..
            })
        ),
        "{err}"
    );
    let ok = load(&data, &mut Flaky(Vec::new(), 100), |_| None).unwrap();
    assert_eq!(ok.address(), 0x1000_0000);
}

/// The arithmetic of every relocation type ld.lld-19 implements, against
/// the bytes ld.lld writes when it resolves the same relocations statically.
#[test]
fn relocation_arithmetic_matches_ld_lld() {
    let dir = std::env::temp_dir().join(format!("loader-core-lld-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let asm = r#".amdgcn_target "amdgcn-amd-amdhsa--gfx900"
.text
.globl f
.hidden f
.p2align 8
.type f,@function
f:
  s_endpgm
  s_nop 0
.data
.p2align 3
.globl tgt
.hidden tgt
tgt: .quad 0
.quad 0
.p2align 3
place:
 .reloc ., R_AMDGPU_ABS64, tgt+8
 .quad 0
 .reloc ., R_AMDGPU_REL32, f+4
 .long 0
 .reloc ., R_AMDGPU_REL64, f-16
 .quad 0
 .reloc ., R_AMDGPU_ABS32, tgt
 .long 0
 .reloc ., R_AMDGPU_REL32_LO, tgt+100
 .long 0
 .reloc ., R_AMDGPU_REL32_HI, tgt+100
 .long 0
 .reloc ., R_AMDGPU_REL32_LO, f-0x1000
 .long 0
 .reloc ., R_AMDGPU_REL32_HI, f-0x1000
 .long 0
 .reloc ., R_AMDGPU_REL16, place+4
 .short 0
 .p2align 2
 .reloc ., R_AMDGPU_REL16, tgt
 .short 0
"#;
    let (s, o, exe) = (dir.join("rel.s"), dir.join("rel.o"), dir.join("rel.exe"));
    std::fs::write(&s, asm).unwrap();
    run(Command::new("clang-19")
        .args([
            "-x",
            "assembler",
            "-target",
            "amdgcn-amd-amdhsa",
            "-mcpu=gfx900",
            "-c",
            "-o",
        ])
        .arg(&o)
        .arg(&s));
    // ld.lld's default image base keeps ABS32 in range (ld.lld truncates
    // ABS32 silently; we refuse values that do not fit).
    run(Command::new("ld.lld-19").arg(&o).arg("-o").arg(&exe));
    let input = run(Command::new("llvm-readelf-19").arg("-r").arg(&o));
    let linked_syms = run(Command::new("llvm-readelf-19").arg("-s").arg(&exe));
    let sections = run(Command::new("llvm-readelf-19").arg("-S").arg(&exe));
    let linked = std::fs::read(&exe).unwrap();
    let _ = std::fs::remove_dir_all(&dir);

    let section = |name: &str| {
        let l = sections
            .lines()
            .find(|l| l.contains(&format!(" {name} ")))
            .unwrap();
        let c: Vec<&str> = l.split_whitespace().collect();
        let i = c.iter().position(|x| *x == "PROGBITS").unwrap();
        (hex(c[i + 1]), hex(c[i + 2]))
    };
    let symbol = |name: &str| {
        linked_syms
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .find(|c| c.len() == 8 && c[7] == name)
            .map(|c| hex(c[1]))
            .unwrap_or_else(|| section(name).0)
    };
    let (data_addr, data_off) = section(".data");
    let mut checked = 0;
    for l in input.lines().filter(|l| l.contains("R_AMDGPU_")) {
        let c: Vec<&str> = l.split_whitespace().collect();
        let kind = RelocationType::ALL
            .into_iter()
            .find(|t| t.name() == c[2])
            .unwrap();
        let a = hex(c[6]) as i64;
        let addend = if c[5] == "-" { -a } else { a };
        let offset = hex(c[0]);
        let inputs = RelocationInputs {
            symbol: symbol(c[4]),
            addend,
            place: data_addr + offset,
            base: 0,
            got_entry: None,
        };
        let ours = relocation_value(kind, inputs).unwrap();
        let at = (data_off + offset) as usize;
        assert_eq!(ours.as_bytes(), &linked[at..at + kind.width()], "{l}");
        checked += 1;
    }
    assert_eq!(checked, 10);
}

#[test]
fn relocation_arithmetic_edges() {
    let i = |symbol, addend, place| RelocationInputs {
        symbol,
        addend,
        place,
        base: 0x10_0000,
        got_entry: None,
    };
    let v = |k, x| relocation_value(k, x).map(|v| v.as_bytes().to_vec());
    // LO and HI are the two halves of the 64-bit value.
    let full = 0x1234_5678_9abc_def0u64;
    assert_eq!(
        v(RelocationType::Abs32Lo, i(full, 0, 0)).unwrap(),
        0x9abc_def0u32.to_le_bytes()
    );
    assert_eq!(
        v(RelocationType::Abs32Hi, i(full, 0, 0)).unwrap(),
        0x1234_5678u32.to_le_bytes()
    );
    assert_eq!(
        v(RelocationType::Abs64, i(full, -0x10, 0)).unwrap(),
        (full - 0x10).to_le_bytes()
    );
    assert_eq!(
        v(RelocationType::Relative64, i(0, 0x40, 0)).unwrap(),
        0x10_0040u64.to_le_bytes()
    );
    assert!(v(RelocationType::Abs32, i(full, 0, 0)).is_err());
    assert!(v(RelocationType::Rel32, i(full, 0, 0)).is_err());
    assert!(v(RelocationType::Rel16, i(0x100, 0, 0x0)).is_ok());
    assert!(
        v(RelocationType::Rel16, i(0x100, 1, 0x0)).is_err(),
        "misaligned"
    );
    assert!(
        v(RelocationType::Rel16, i(0x100_0000, 0, 0x0)).is_err(),
        "overflow"
    );
    assert!(v(RelocationType::GotPcRel, i(0, 0, 0)).is_err(), "no GOT");
    assert_eq!(
        v(
            RelocationType::GotPcRel32Hi,
            RelocationInputs {
                got_entry: Some(0x2_0000_0010),
                ..i(0, 0, 0x10)
            }
        )
        .unwrap(),
        2u32.to_le_bytes()
    );
    assert_eq!(
        v(RelocationType::None, i(1, 1, 1)).unwrap(),
        Vec::<u8>::new()
    );
}

/// Our relocation numbers are LLVM's (`BinaryFormat/ELFRelocs/AMDGPU.def`).
#[test]
fn relocation_numbers_match_llvm() {
    let def =
        std::fs::read_to_string("/usr/include/llvm-19/llvm/BinaryFormat/ELFRelocs/AMDGPU.def")
            .expect("install Debian package llvm-19-dev");
    let theirs: BTreeMap<String, u32> = def
        .lines()
        .filter_map(|l| l.strip_prefix("ELF_RELOC("))
        .map(|l| {
            let (n, v) = l.trim_end_matches(')').split_once(',').unwrap();
            (n.trim().to_string(), v.trim().parse().unwrap())
        })
        .collect();
    let ours: BTreeMap<String, u32> = RelocationType::ALL
        .iter()
        .map(|t| (t.name().to_string(), *t as u32))
        .collect();
    assert_eq!(ours, theirs);
    for t in RelocationType::ALL {
        assert_eq!(RelocationType::from_raw(t as u32), Some(t));
    }
    assert_eq!(RelocationType::from_raw(12), None);
}

#[test]
fn malformed_images_are_errors() {
    let data = std::fs::read(&corpus_objects()[3]).unwrap();
    let elf = ElfFile::parse(&data).unwrap();
    let phoff = elf.header().e_phoff as usize;
    let loads: Vec<usize> = elf
        .segments()
        .filter(|s| s.p_type() == 1)
        .map(|s| s.index())
        .collect();
    let mut buf = vec![0u8; 1 << 20];
    let field = |seg: usize, at: usize| phoff + seg * 56 + at;
    // Overlapping segments: the second PT_LOAD moved onto the first.
    let mut bad = data.clone();
    let first_vaddr = elf.segment(loads[0]).unwrap().header().p_vaddr;
    let second_offset = elf.segment(loads[1]).unwrap().header().p_offset;
    bad[field(loads[1], 16)..field(loads[1], 24)]
        .copy_from_slice(&(first_vaddr + second_offset % 0x1000).to_le_bytes());
    bad[field(loads[1], 48)..field(loads[1], 56)].copy_from_slice(&1u64.to_le_bytes());
    let err = load(&bad, &mut SliceMemory::new(&mut buf, BASE), |_| None).unwrap_err();
    assert!(
        matches!(err, LoadError::Object(e) if e.kind() == ErrorKind::Inconsistent),
        "{err}"
    );
    // filesz > memsz.
    let mut bad = data.clone();
    bad[field(loads[0], 40)..field(loads[0], 48)].copy_from_slice(&0u64.to_le_bytes());
    assert!(load(&bad, &mut SliceMemory::new(&mut buf, BASE), |_| None).is_err());
    // A segment past the end of the file.
    let mut bad = data.clone();
    bad[field(loads[0], 8)..field(loads[0], 16)]
        .copy_from_slice(&(data.len() as u64).to_le_bytes());
    assert!(load(&bad, &mut SliceMemory::new(&mut buf, BASE), |_| None).is_err());
    // Absurd program header counts are refused before any per-segment work.
    let mut bad = data.clone();
    bad[56..58].copy_from_slice(&300u16.to_le_bytes());
    assert!(
        ElfFile::parse(&bad).is_ok(),
        "300 program headers fit in the file"
    );
    let err = load(&bad, &mut SliceMemory::new(&mut buf, BASE), |_| None).unwrap_err();
    assert!(
        matches!(err, LoadError::Object(e) if e.kind() == ErrorKind::LimitExceeded),
        "{err}"
    );
    // Every truncation fails cleanly.
    for len in (0..data.len()).step_by(97) {
        assert!(
            load(&data[..len], &mut SliceMemory::new(&mut buf, BASE), |_| {
                None
            })
            .is_err(),
            "prefix {len}"
        );
    }
}

/// Every relocation type the loader applies, end to end through `.rela.dyn`:
/// the `R_AMDGPU_ABS64` entries ld.lld wrote are retyped one type at a time,
/// and the bytes at each place must follow AMDGPUUsage's formula, computed
/// here from `llvm-readelf -r`'s offsets, symbols and addends.
#[test]
fn every_relocation_type_through_rela_dyn() {
    let data = build_globals("gfx90a", "default", false);
    let relocs = readelf_relocs(&data);
    let elf = ElfFile::parse(&data).unwrap();
    let rela = elf
        .sections()
        .find(|s| s.name().ok() == Some(b".rela.dyn".as_slice()))
        .unwrap();
    let table = rela.header().sh_offset as usize;
    let layout = ImageLayout::of(&elf).unwrap();
    const EXT: u64 = 0x0123_4567_89ab_cdef;
    // Below 4 GiB, so that ABS32 of the object's own symbols fits.
    const LOW: u64 = 0x1000_0000;
    for kind in [
        RelocationType::Abs32Lo,
        RelocationType::Abs32Hi,
        RelocationType::Abs64,
        RelocationType::Rel32,
        RelocationType::Rel64,
        RelocationType::Abs32,
        RelocationType::Rel32Lo,
        RelocationType::Rel32Hi,
        RelocationType::Relative64,
    ] {
        let mut retyped = data.clone();
        for i in 0..relocs.len() {
            let at = table + i * 24 + 8;
            retyped[at..at + 4].copy_from_slice(&(kind as u32).to_le_bytes());
        }
        for base in [BASE, LOW] {
            let mut buf = vec![0xAAu8; layout.size as usize + 0x1000];
            let mut mem = SliceMemory::new(&mut buf, base);
            // Within reach of the 32-bit fields that must hold the value.
            let ext = match kind {
                RelocationType::Abs32 => 0x4000,
                RelocationType::Rel32 => base + 0x10_0000,
                _ => EXT,
            };
            let loaded = match load(&retyped, &mut mem, |n| (n == "ext_var").then_some(ext)) {
                Ok(l) => l,
                Err(LoadError::RelocationValue { kind: k, .. }) if k == kind && base == BASE => {
                    // ABS32 of an address above 4 GiB: refused, not truncated.
                    assert_eq!(kind, RelocationType::Abs32);
                    continue;
                }
                Err(e) => panic!("{kind} at {base:#x}: {e}"),
            };
            let b = loaded.bias();
            let image = mem.bytes();
            for (offset, _, sym, addend) in &relocs {
                let s = if sym == "ext_var" {
                    ext
                } else {
                    loaded.symbol(sym).unwrap()
                };
                let p = b + offset;
                let s_a = s.wrapping_add_signed(*addend);
                let expected: Vec<u8> = match kind {
                    RelocationType::Abs32Lo => (s_a as u32).to_le_bytes().to_vec(),
                    RelocationType::Abs32Hi => ((s_a >> 32) as u32).to_le_bytes().to_vec(),
                    RelocationType::Abs64 => s_a.to_le_bytes().to_vec(),
                    RelocationType::Rel32 => (s_a.wrapping_sub(p) as u32).to_le_bytes().to_vec(),
                    RelocationType::Rel64 => s_a.wrapping_sub(p).to_le_bytes().to_vec(),
                    RelocationType::Abs32 => (s_a as u32).to_le_bytes().to_vec(),
                    RelocationType::Rel32Lo => (s_a.wrapping_sub(p) as u32).to_le_bytes().to_vec(),
                    RelocationType::Rel32Hi => {
                        ((s_a.wrapping_sub(p) >> 32) as u32).to_le_bytes().to_vec()
                    }
                    RelocationType::Relative64 => {
                        b.wrapping_add_signed(*addend).to_le_bytes().to_vec()
                    }
                    _ => unreachable!(),
                };
                let at = (p - base) as usize;
                assert_eq!(
                    &image[at..at + expected.len()],
                    &expected[..],
                    "{kind} {sym}+{addend} at {base:#x}"
                );
            }
        }
    }
}

/// `load_for_agent` refuses an object the agent's ISA cannot run (ROCr's
/// rules, as `loader_core::target` implements them) before touching memory.
#[test]
fn load_for_agent_checks_the_isa() {
    use loader_core::load::load_for_agent;
    use loader_core::target::TargetId;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/co");
    let agent = |v: u32, xnack: bool| TargetId::for_agent(v, xnack, false).unwrap();
    let cases = [
        ("gfx90a-v5-xnack+.co", agent(90010, true), true),
        ("gfx90a-v5-xnack+.co", agent(90010, false), false),
        ("gfx90a-v5.co", agent(90010, false), true),
        ("gfx1030-v5.co", agent(110000, false), false),
        ("gfx11-generic-v6.co", agent(110000, false), true),
        ("gfx11-generic-v6.co", agent(100300, false), false),
    ];
    for (file, agent, ok) in cases {
        let data = std::fs::read(dir.join(file)).unwrap();
        let layout = ImageLayout::of(&ElfFile::parse(&data).unwrap()).unwrap();
        let mut buf = vec![0u8; layout.size as usize + 0x1000];
        let mut mem = SliceMemory::new(&mut buf, BASE);
        match load_for_agent(&data, &agent, &mut mem, |_| None) {
            Ok(loaded) => {
                assert!(ok, "{file} loaded for {}", agent.without_triple());
                assert!(loaded.kernels().count() > 0);
            }
            Err(LoadError::Object(e)) => {
                assert!(!ok, "{file}: {e}");
                assert_eq!(e.kind(), ErrorKind::Incompatible, "{file}: {e}");
                // Nothing was allocated.
                assert!(mem.bytes().iter().all(|&b| b == 0));
            }
            Err(e) => panic!("{file}: {e}"),
        }
    }
}
