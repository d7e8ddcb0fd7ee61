//! The ELF view against what clang-19 emits and llvm-readelf-19 reads back.
//!
//! Each test compiles a tiny OpenCL kernel with clang-19 into a temporary
//! directory (clang-19 and llvm-readelf-19 are installed by `scripts/test`;
//! a missing tool is a failure with a message, never a skip), parses it with
//! `loader-core`, and compares with LLVM's own reading of the same bytes.

use loader_core::ErrorKind;
use loader_core::elf::{self, CodeObjectVersion, ElfFile, OsAbi};
use loader_core::processor::{FeatureSetting, Processor};
use std::path::PathBuf;
use std::process::Command;

const KERNEL: &str = r#"
__kernel void vadd(__global const float *a, __global const float *b, __global float *c, int n) {
  int i = __builtin_amdgcn_workitem_id_x() + __builtin_amdgcn_workgroup_id_x() * 64;
  if (i < n) c[i] = a[i] + b[i];
}
__kernel void fill(__global int *p, int v) { p[__builtin_amdgcn_workitem_id_x()] = v; }
"#;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("loader-parse-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(cmd: &mut Command) -> Vec<u8> {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e} (install clang-19 / llvm-19)"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Compiles `src` for `mcpu` (a target ID such as `gfx90a:xnack+`) and
/// links it into a shared object (what the HSA loader loads).
fn build(name: &str, src: &str, mcpu: &str, cov: u32) -> (Vec<u8>, PathBuf) {
    let d = tmp(name);
    let cl = d.join("k.cl");
    let obj = d.join("k.o");
    let so = d.join("k.so");
    std::fs::write(&cl, src).unwrap();
    run(Command::new("clang-19")
        .args(["-x", "cl", "-target", "amdgcn-amd-amdhsa", "-nogpulib"])
        .arg(format!("-mcpu={mcpu}"))
        .arg(format!("-mcode-object-version={cov}"))
        .arg("-c")
        .arg(&cl)
        .arg("-o")
        .arg(&obj));
    run(Command::new("clang-19")
        .args(["-target", "amdgcn-amd-amdhsa"])
        .arg(format!("-mcpu={mcpu}"))
        .arg(&obj)
        .arg("-o")
        .arg(&so));
    (std::fs::read(&so).unwrap(), so)
}

fn readelf(args: &[&str], path: &PathBuf) -> String {
    String::from_utf8(run(Command::new("llvm-readelf-19").args(args).arg(path))).unwrap()
}

#[test]
fn header_and_flags_match_llvm_readelf() {
    for (mcpu, cov, xnack, sramecc) in [
        ("gfx90a", 5, FeatureSetting::Any, FeatureSetting::Any),
        (
            "gfx90a:xnack+:sramecc-",
            5,
            FeatureSetting::On,
            FeatureSetting::Off,
        ),
        ("gfx906:xnack-", 4, FeatureSetting::Off, FeatureSetting::Any),
        (
            "gfx1030",
            5,
            FeatureSetting::Unsupported,
            FeatureSetting::Unsupported,
        ),
        (
            "gfx1100",
            4,
            FeatureSetting::Unsupported,
            FeatureSetting::Unsupported,
        ),
        (
            "gfx942:sramecc+",
            5,
            FeatureSetting::Any,
            FeatureSetting::On,
        ),
    ] {
        let (bytes, path) = build(&mcpu.replace(':', "_"), KERNEL, mcpu, cov);
        let f = ElfFile::parse(&bytes).unwrap();
        assert_eq!(f.os_abi(), OsAbi::Hsa);
        assert_eq!(f.code_object_version().unwrap().number(), cov);
        assert_eq!(f.header().e_type, elf::ET_DYN);
        let flags = f.flags().unwrap();
        let base = mcpu.split(':').next().unwrap();
        assert_eq!(flags.processor.unwrap().name, base);
        assert_eq!((flags.xnack, flags.sramecc), (xnack, sramecc), "{mcpu}");
        let text = readelf(&["-h"], &path);
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with("Flags:"))
            .unwrap();
        assert!(
            line.contains(&format!("{:#X}", f.header().e_flags).replace("0X", "0x")),
            "{line}"
        );
        assert!(line.contains(&format!(", {base}")), "{line}");
        assert!(text.contains(&format!("ABI Version:                       {}", cov - 2)));
    }
}

#[test]
fn every_processor_llc_knows_decodes_like_llvm() {
    // llc-19 lists the processors LLVM 19 knows; each must be in our table
    // under the same EF_AMDGPU_MACH that llvm-readelf prints for it.
    let help = String::from_utf8(
        Command::new("llc-19")
            .args(["-march=amdgcn", "-mcpu=help"])
            .output()
            .expect("llc-19")
            .stderr,
    )
    .unwrap();
    let mut help = help;
    if !help.contains("gfx900") {
        help = String::from_utf8(
            Command::new("llc-19")
                .args(["-march=amdgcn", "-mcpu=help"])
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
    }
    let cpus: Vec<&str> = help
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Available features"))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.starts_with("gfx"))
        .collect();
    assert!(cpus.len() > 40, "llc-19 -mcpu=help listed {cpus:?}");
    let d = tmp("allcpus");
    let s = d.join("e.s");
    std::fs::write(&s, "").unwrap();
    for cpu in cpus {
        let o = d.join(format!("{cpu}.o"));
        // v6 so that generic processors are accepted too.
        run(Command::new("llvm-mc-19")
            .args([
                "--triple=amdgcn-amd-amdhsa",
                "-filetype=obj",
                "--amdhsa-code-object-version=6",
            ])
            .arg(format!("-mcpu={cpu}"))
            .arg(&s)
            .arg("-o")
            .arg(&o));
        let bytes = std::fs::read(&o).unwrap();
        let f = ElfFile::parse(&bytes).unwrap();
        assert_eq!(f.code_object_version().unwrap(), CodeObjectVersion::V6);
        let flags = f.flags().unwrap_or_else(|e| panic!("{cpu}: {e}"));
        let p = flags.processor.unwrap();
        assert_eq!(p.name, cpu);
        assert_eq!(Processor::from_name(cpu), Some(p));
        let text = readelf(&["-h"], &o);
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with("Flags:"))
            .unwrap();
        assert!(line.contains(&format!(", {cpu}")), "{cpu}: {line}");
        if p.is_generic() {
            assert!(
                line.contains(&format!("generic_v{}", flags.generic_version)),
                "{cpu}: {line}"
            );
        }
        // llvm-readelf names xnack/sramecc only when the processor has them.
        assert_eq!(line.contains("xnack"), p.xnack_supported, "{cpu}: {line}");
        assert_eq!(
            line.contains("sramecc"),
            p.sramecc_supported,
            "{cpu}: {line}"
        );
    }
}

#[test]
fn sections_and_symbols_match_llvm_readelf() {
    let (bytes, path) = build("sections", KERNEL, "gfx90a", 5);
    let f = ElfFile::parse(&bytes).unwrap();
    let text = readelf(&["-S", "-W"], &path);
    let mut seen = 0;
    for s in f.sections().skip(1) {
        let name = s.name_str().unwrap();
        let h = s.header();
        let row = format!("] {name:<17}");
        let line = text
            .lines()
            .find(|l| l.contains(&row))
            .unwrap_or_else(|| panic!("{name} not in\n{text}"));
        assert!(
            line.contains(&format!(
                "{:016x} {:06x} {:06x}",
                h.sh_addr, h.sh_offset, h.sh_size
            )),
            "{name}: {line}"
        );
        seen += 1;
    }
    assert_eq!(seen, f.section_count() - 1);

    let dynsym = f.dynamic_symbols().unwrap().unwrap();
    let text = readelf(&["--dyn-syms", "-W"], &path);
    let mut names = Vec::new();
    for sym in dynsym.iter().skip(1) {
        let sym = sym.unwrap();
        let name = sym.name_str().unwrap();
        let line = text
            .lines()
            .find(|l| l.ends_with(&format!(" {name}")))
            .unwrap();
        assert!(
            line.contains(&format!("{:016x} {:>5}", sym.value(), sym.size())),
            "{name}: {line}"
        );
        names.push(name.to_owned());
    }
    names.sort();
    assert_eq!(names, ["fill", "fill.kd", "vadd", "vadd.kd"]);
    let kd = dynsym.find(b"vadd.kd").unwrap();
    assert_eq!(kd.kind(), elf::STT_OBJECT);
    assert_eq!(kd.size(), 64);
    assert!(f.symbols().unwrap().is_some());

    let loads = f.segments().filter(|s| s.p_type() == elf::PT_LOAD).count();
    let text = readelf(&["-l", "-W"], &path);
    assert_eq!(
        loads,
        text.lines()
            .filter(|l| l.trim_start().starts_with("LOAD"))
            .count()
    );
    for s in f.segments().filter(|s| s.p_type() == elf::PT_LOAD) {
        s.check_loadable().unwrap();
    }
}

#[test]
fn notes_hold_the_metadata() {
    let (bytes, _) = build("notes", KERNEL, "gfx1100", 5);
    let f = ElfFile::parse(&bytes).unwrap();
    let notes: Vec<_> = f.notes().collect::<Result<_, _>>().unwrap();
    assert_eq!(notes.iter().filter(|n| n.is_amdgpu_metadata()).count(), 1);
}

#[test]
fn bad_headers_are_typed_errors() {
    let (bytes, _) = build("bad", KERNEL, "gfx90a", 5);
    let e = ElfFile::parse(&bytes[..63]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Truncated);
    let mut b = bytes.clone();
    b[4] = 1;
    assert_eq!(
        ElfFile::parse(&b).unwrap_err().kind(),
        ErrorKind::Unsupported
    );
    let mut b = bytes.clone();
    b[18] = 62; // EM_X86_64
    assert_eq!(
        ElfFile::parse(&b).unwrap_err().to_string(),
        "offset 0x12: e_machine is not EM_AMDGPU"
    );
    let mut b = bytes.clone();
    b[40..48].copy_from_slice(&(bytes.len() as u64 - 10).to_le_bytes());
    assert_eq!(
        ElfFile::parse(&b).unwrap_err().kind(),
        ErrorKind::OutOfBounds
    );
    let mut b = bytes.clone();
    b[8] = 9;
    let f = ElfFile::parse(&b).unwrap();
    assert_eq!(
        f.code_object_version().unwrap_err().kind(),
        ErrorKind::Unsupported
    );
    // Every truncation of a real object either parses or errors; none panics.
    for n in 0..bytes.len() {
        if let Ok(f) = ElfFile::parse(&bytes[..n]) {
            for s in f.sections() {
                let _ = s.name();
                let _ = s.data();
            }
            for n in f.notes() {
                let _ = n;
            }
            if let Ok(Some(t)) = f.dynamic_symbols() {
                for s in t.iter() {
                    let _ = s.and_then(|s| s.name());
                }
            }
        }
    }
}

/// `.gnu.hash` and `.hash` as ld.lld writes them: every `.dynsym` entry is
/// found through each table exactly where a scan finds it, and names that
/// are not there are not found.
#[test]
fn hash_tables_written_by_lld_find_every_symbol() {
    let mut src = String::new();
    for i in 0..300 {
        src.push_str(&format!(
            "__kernel void k{i}(__global int *p) {{ p[{i}] = {i}; }}\n"
        ));
    }
    for style in ["gnu", "sysv", "both"] {
        let d = tmp(&format!("hash-{style}"));
        let cl = d.join("k.cl");
        let obj = d.join("k.o");
        let so = d.join("k.so");
        std::fs::write(&cl, &src).unwrap();
        run(Command::new("clang-19")
            .args([
                "-x",
                "cl",
                "-target",
                "amdgcn-amd-amdhsa",
                "-nogpulib",
                "-mcpu=gfx90a",
                "-c",
            ])
            .arg(&cl)
            .arg("-o")
            .arg(&obj));
        run(Command::new("clang-19")
            .args(["-target", "amdgcn-amd-amdhsa", "-mcpu=gfx90a"])
            .arg(format!("-Wl,--hash-style={style}"))
            .arg(&obj)
            .arg("-o")
            .arg(&so));
        let bytes = std::fs::read(&so).unwrap();
        let f = ElfFile::parse(&bytes).unwrap();
        let t = f.dynamic_symbols().unwrap().unwrap();
        let h = t.hash_table().expect("lld writes a hash table");
        match (style, h) {
            ("sysv", elf::hash::HashTable::Sysv { .. }) => {}
            ("gnu" | "both", elf::hash::HashTable::Gnu { .. }) => {}
            (s, h) => panic!("{s}: unexpected {h:?}"),
        }
        assert_eq!(t.len(), 601);
        for sym in t.iter().skip(1) {
            let sym = sym.unwrap();
            let name = sym.name().unwrap();
            let found = t
                .lookup(name)
                .unwrap()
                .unwrap_or_else(|| panic!("{style}: {:?} not found", sym.name_str()));
            assert_eq!(found.index(), sym.index());
        }
        for missing in [&b"k300"[..], b"k1.k", b"", b"vadd", b"k299.kd.kd"] {
            assert!(t.lookup(missing).unwrap().is_none(), "{style}: {missing:?}");
        }
    }
}
