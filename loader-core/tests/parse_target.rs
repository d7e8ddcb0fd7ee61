//! Target IDs against what clang-19 writes: `amdhsa.target` in the
//! metadata and the `e_flags` of the same object must describe the same
//! target, and printing ours gives back clang's text exactly.

use loader_core::elf::ElfFile;
use loader_core::metadata::Metadata;
use loader_core::processor::Processor;
use loader_core::target::TargetId;
use std::process::Command;

fn build(mcpu: &str, cov: u32) -> Vec<u8> {
    let d = std::env::temp_dir().join(format!(
        "loader-parse-tid-{}-{}-{cov}",
        std::process::id(),
        mcpu.replace(':', "_")
    ));
    std::fs::create_dir_all(&d).unwrap();
    let cl = d.join("k.cl");
    std::fs::write(&cl, "__kernel void k(__global int *p) { p[0] = 1; }\n").unwrap();
    let obj = d.join("k.o");
    let out = Command::new("clang-19")
        .args(["-x", "cl", "-target", "amdgcn-amd-amdhsa", "-nogpulib"])
        .arg(format!("-mcpu={mcpu}"))
        .arg(format!("-mcode-object-version={cov}"))
        .arg("-c")
        .arg(&cl)
        .arg("-o")
        .arg(&obj)
        .output()
        .expect("clang-19 (install clang-19)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read(&obj).unwrap()
}

#[test]
fn metadata_target_equals_e_flags_target() {
    for (mcpu, canonical, cov) in [
        ("gfx90a", "gfx90a", 5),
        ("gfx90a:xnack+:sramecc-", "gfx90a:sramecc-:xnack+", 5),
        ("gfx906:xnack-", "gfx906:xnack-", 4),
        ("gfx908:sramecc+", "gfx908:sramecc+", 4),
        ("gfx942:xnack+", "gfx942:xnack+", 5),
        ("gfx1030", "gfx1030", 5),
        ("gfx1100", "gfx1100", 6),
        ("gfx1200", "gfx1200", 6),
        ("gfx9-generic:xnack-", "gfx9-generic:xnack-", 6),
        ("gfx11-generic", "gfx11-generic", 6),
    ] {
        let bytes = build(mcpu, cov);
        let f = ElfFile::parse(&bytes).unwrap();
        let flags = f.flags().unwrap();
        let from_flags = TargetId::from_flags(&flags).unwrap();
        let md = Metadata::from_elf(&f).unwrap().unwrap();
        let text = md.target().unwrap();
        assert_eq!(text, format!("amdgcn-amd-amdhsa--{canonical}"));
        let parsed = TargetId::parse(text).unwrap();
        assert_eq!(parsed, from_flags, "{mcpu}");
        assert_eq!(parsed.to_string(), text);
        assert_eq!(parsed.without_triple().to_string(), canonical);
        md.check_against(&f).unwrap();
        if parsed.processor.is_generic() {
            assert_eq!(flags.generic_version, 1, "{mcpu}");
        }
    }
}

#[test]
fn generic_code_objects_run_on_their_family_only() {
    let bytes = build("gfx10-3-generic", 6);
    let f = ElfFile::parse(&bytes).unwrap();
    let flags = f.flags().unwrap();
    let code = TargetId::from_flags(&flags).unwrap();
    for p in Processor::all()
        .iter()
        .filter(|p| !p.is_generic() && p.gfx_target_version != 0)
    {
        let agent = TargetId::for_agent(p.gfx_target_version, false, false).unwrap();
        let expected = p.name.starts_with("gfx103");
        assert_eq!(
            code.is_compatible(flags.generic_version, &agent),
            expected,
            "{}",
            p.name
        );
    }
}

#[test]
fn metadata_that_disagrees_with_e_flags_is_rejected() {
    let bytes = build("gfx90a:xnack+", 5);
    // e_flags: xnack on (0x300) -> off (0x200).
    let mut b = bytes.clone();
    let flags = u32::from_le_bytes(b[48..52].try_into().unwrap());
    assert_eq!(flags & 0x300, 0x300);
    b[48..52].copy_from_slice(&((flags & !0x300) | 0x200).to_le_bytes());
    let f = ElfFile::parse(&b).unwrap();
    let md = Metadata::from_elf(&f).unwrap().unwrap();
    let e = md.check_against(&f).unwrap_err();
    assert_eq!(
        e.to_string(),
        "`amdhsa.target`: target differs from the one e_flags give"
    );
    // ABI version v4 while the map says 1.2 (v5).
    let mut b = bytes.clone();
    b[8] = 2;
    let f = ElfFile::parse(&b).unwrap();
    let md = Metadata::from_elf(&f).unwrap().unwrap();
    assert_eq!(
        md.check_against(&f).unwrap_err().kind(),
        loader_core::ErrorKind::Inconsistent
    );
}
