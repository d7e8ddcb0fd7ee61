//! The kernel-descriptor layout and bit fields against LLVM's own header.
//!
//! Compiles a C++ probe with clang++-19 against the installed
//! `llvm-19/llvm/Support/AMDHSAKernelDescriptor.h` (Debian `llvm-19-dev`) and
//! compares every field offset, every bit field's shift, width and mask, and
//! the descriptor size with `loader_core::kernel_descriptor::raw`.

use loader_core::kernel_descriptor::raw;
use std::collections::BTreeMap;
use std::process::Command;

const HEADER: &str = "/usr/include/llvm-19/llvm/Support/AMDHSAKernelDescriptor.h";

fn probe(source: &str) -> BTreeMap<String, i128> {
    assert!(
        std::path::Path::new(HEADER).exists(),
        "{HEADER} is missing: install Debian package llvm-19-dev"
    );
    let dir = std::env::temp_dir().join(format!("loader-core-kd-probe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("probe.cpp");
    let exe = dir.join("probe");
    std::fs::write(&src, source).unwrap();
    let out = Command::new("clang++-19")
        .args(["-std=c++17", "-I/usr/include/llvm-19", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .expect("clang++-19 not found: install Debian package clang-19");
    assert!(
        out.status.success(),
        "probe did not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    assert!(run.status.success());
    let _ = std::fs::remove_dir_all(&dir);
    String::from_utf8(run.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (k, v) = l.split_once(' ').unwrap();
            (k.to_string(), v.parse().unwrap())
        })
        .collect()
}

#[test]
fn layout_and_bit_fields_match_llvm_header() {
    let offsets: &[(&str, usize)] = &[
        (
            "GROUP_SEGMENT_FIXED_SIZE_OFFSET",
            raw::GROUP_SEGMENT_FIXED_SIZE_OFFSET,
        ),
        (
            "PRIVATE_SEGMENT_FIXED_SIZE_OFFSET",
            raw::PRIVATE_SEGMENT_FIXED_SIZE_OFFSET,
        ),
        ("KERNARG_SIZE_OFFSET", raw::KERNARG_SIZE_OFFSET),
        ("RESERVED0_OFFSET", raw::RESERVED0_OFFSET),
        (
            "KERNEL_CODE_ENTRY_BYTE_OFFSET_OFFSET",
            raw::KERNEL_CODE_ENTRY_BYTE_OFFSET_OFFSET,
        ),
        ("RESERVED1_OFFSET", raw::RESERVED1_OFFSET),
        ("COMPUTE_PGM_RSRC3_OFFSET", raw::COMPUTE_PGM_RSRC3_OFFSET),
        ("COMPUTE_PGM_RSRC1_OFFSET", raw::COMPUTE_PGM_RSRC1_OFFSET),
        ("COMPUTE_PGM_RSRC2_OFFSET", raw::COMPUTE_PGM_RSRC2_OFFSET),
        (
            "KERNEL_CODE_PROPERTIES_OFFSET",
            raw::KERNEL_CODE_PROPERTIES_OFFSET,
        ),
        ("KERNARG_PRELOAD_OFFSET", raw::KERNARG_PRELOAD_OFFSET),
        ("RESERVED3_OFFSET", raw::RESERVED3_OFFSET),
    ];
    let mut src = String::from(
        "#include <cstdio>\n#include <cstddef>\n#include <llvm/Support/AMDHSAKernelDescriptor.h>\n\
         using namespace llvm::amdhsa;\nint main() {\n",
    );
    src += "printf(\"sizeof %zu\\n\", sizeof(kernel_descriptor_t));\n";
    for (name, _) in offsets {
        src += &format!("printf(\"{name} %lld\\n\", (long long){name});\n");
    }
    // Offsets of the struct members too, not only the enumerators.
    for (member, off) in [
        (
            "group_segment_fixed_size",
            raw::GROUP_SEGMENT_FIXED_SIZE_OFFSET,
        ),
        (
            "private_segment_fixed_size",
            raw::PRIVATE_SEGMENT_FIXED_SIZE_OFFSET,
        ),
        ("kernarg_size", raw::KERNARG_SIZE_OFFSET),
        ("reserved0", raw::RESERVED0_OFFSET),
        (
            "kernel_code_entry_byte_offset",
            raw::KERNEL_CODE_ENTRY_BYTE_OFFSET_OFFSET,
        ),
        ("reserved1", raw::RESERVED1_OFFSET),
        ("compute_pgm_rsrc3", raw::COMPUTE_PGM_RSRC3_OFFSET),
        ("compute_pgm_rsrc1", raw::COMPUTE_PGM_RSRC1_OFFSET),
        ("compute_pgm_rsrc2", raw::COMPUTE_PGM_RSRC2_OFFSET),
        ("kernel_code_properties", raw::KERNEL_CODE_PROPERTIES_OFFSET),
        ("kernarg_preload", raw::KERNARG_PRELOAD_OFFSET),
        ("reserved3", raw::RESERVED3_OFFSET),
    ] {
        let _ = off;
        src += &format!(
            "printf(\"member.{member} %zu\\n\", offsetof(kernel_descriptor_t, {member}));\n"
        );
    }
    for (member, size) in [
        ("reserved0", raw::RESERVED0_SIZE),
        ("reserved1", raw::RESERVED1_SIZE),
        ("reserved3", raw::RESERVED3_SIZE),
    ] {
        let _ = size;
        src += &format!(
            "printf(\"size.{member} %zu\\n\", sizeof(((kernel_descriptor_t*)0)->{member}));\n"
        );
    }
    for f in raw::ALL_BIT_FIELDS {
        let n = f.name;
        src += &format!(
            "printf(\"{n}_SHIFT %lld\\n{n}_WIDTH %lld\\n{n} %lld\\n\", (long long){n}_SHIFT, (long long){n}_WIDTH, (long long)(unsigned)({n}));\n"
        );
    }
    src += "return 0;\n}\n";
    let c = probe(&src);
    assert!(
        c.len() > 3 * raw::ALL_BIT_FIELDS.len() + 20,
        "probe printed too little: {c:?}"
    );

    let mut bad = Vec::new();
    let mut check = |key: String, ours: i128| match c.get(&key) {
        Some(&theirs) if theirs == ours => {}
        other => bad.push(format!("{key}: header {other:?}, ours {ours}")),
    };
    check("sizeof".into(), raw::KERNEL_DESCRIPTOR_SIZE as i128);
    for (name, off) in offsets {
        check((*name).into(), *off as i128);
    }
    for (member, off) in [
        (
            "group_segment_fixed_size",
            raw::GROUP_SEGMENT_FIXED_SIZE_OFFSET,
        ),
        (
            "private_segment_fixed_size",
            raw::PRIVATE_SEGMENT_FIXED_SIZE_OFFSET,
        ),
        ("kernarg_size", raw::KERNARG_SIZE_OFFSET),
        ("reserved0", raw::RESERVED0_OFFSET),
        (
            "kernel_code_entry_byte_offset",
            raw::KERNEL_CODE_ENTRY_BYTE_OFFSET_OFFSET,
        ),
        ("reserved1", raw::RESERVED1_OFFSET),
        ("compute_pgm_rsrc3", raw::COMPUTE_PGM_RSRC3_OFFSET),
        ("compute_pgm_rsrc1", raw::COMPUTE_PGM_RSRC1_OFFSET),
        ("compute_pgm_rsrc2", raw::COMPUTE_PGM_RSRC2_OFFSET),
        ("kernel_code_properties", raw::KERNEL_CODE_PROPERTIES_OFFSET),
        ("kernarg_preload", raw::KERNARG_PRELOAD_OFFSET),
        ("reserved3", raw::RESERVED3_OFFSET),
    ] {
        check(format!("member.{member}"), off as i128);
    }
    check("size.reserved0".into(), raw::RESERVED0_SIZE as i128);
    check("size.reserved1".into(), raw::RESERVED1_SIZE as i128);
    check("size.reserved3".into(), raw::RESERVED3_SIZE as i128);
    for f in raw::ALL_BIT_FIELDS {
        check(format!("{}_SHIFT", f.name), f.shift as i128);
        check(format!("{}_WIDTH", f.name), f.width as i128);
        check(f.name.to_string(), f.mask() as i128);
    }
    assert!(
        bad.is_empty(),
        "kernel descriptor differs from LLVM's header:\n{}",
        bad.join("\n")
    );
}
