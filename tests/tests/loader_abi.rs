//! ABI parity of `loader-core` with ROCr 5.2.3's real headers (Debian's
//! `libhsa-runtime-dev`): `amd_kernel_code_t` / `amd_control_directives_t`
//! from `hsa/amd_hsa_kernel_code.h`, and the ELF constants of
//! `hsa/amd_hsa_elf.h` — including every `EF_AMDGPU_MACH_AMDGCN_*` value
//! that header names, checked against our processor table.

use loader_core::elf::{self, CodeObjectVersion};
use loader_core::metadata::v2::{
    AMD_KERNEL_CODE_PROPERTIES_IS_DYNAMIC_CALLSTACK, AMD_KERNEL_CODE_PROPERTIES_IS_PTR64,
    AMD_KERNEL_CODE_PROPERTIES_IS_XNACK_ENABLED, AMD_MACHINE_KIND_AMDGPU, AmdControlDirectives,
    AmdKernelCode,
};
use loader_core::note;
use loader_core::processor::{self, Processor};
use std::fmt::Write as _;
use std::process::Command;
use tests::{compare_constants, compare_layouts, layout, require_header};

/// `amd_hsa_elf.h` is C++ (its enums live in `namespace ELF`), so its
/// constants are read by a C++ probe compiled with clang++-19; each
/// `(expression, rust value)` pair is printed and compared. Returns the
/// mismatches as readable lines.
fn compare_cxx_constants(probe: &str, consts: &[(String, i128)]) -> Vec<String> {
    let dir =
        std::env::temp_dir().join(format!("rocr-rs-cxx-probe-{}-{probe}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut src = String::from(
        "#include <cstdio>\n#include <cstdint>\n#include <elf.h>\n#include <hsa/amd_hsa_elf.h>\nint main() {\n",
    );
    for (i, (expr, _)) in consts.iter().enumerate() {
        let _ = writeln!(src, "  std::printf(\"{i} %lld\\n\", (long long)({expr}));");
    }
    src.push_str("  return 0;\n}\n");
    let cpp = dir.join(format!("{probe}.cpp"));
    let exe = dir.join(probe);
    std::fs::write(&cpp, &src).unwrap();
    let out = Command::new("clang++-19")
        .args(["-std=c++17", "-Wall", "-Werror", "-o"])
        .arg(&exe)
        .arg(&cpp)
        .output()
        .expect("clang++-19 not found: install the Debian package clang-19");
    assert!(
        out.status.success(),
        "C++ probe {probe} did not compile:\n{}\n{src}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().expect("run C++ probe");
    assert!(run.status.success());
    let text = String::from_utf8(run.stdout).unwrap();
    let mut errors = Vec::new();
    let mut seen = 0;
    for line in text.lines() {
        let (i, v) = line.split_once(' ').unwrap();
        let (i, v): (usize, i128) = (i.parse().unwrap(), v.parse().unwrap());
        let (expr, rust) = &consts[i];
        if v != *rust {
            errors.push(format!("{expr}: C++ {v} != Rust {rust}"));
        }
        seen += 1;
    }
    assert_eq!(
        seen,
        consts.len(),
        "probe printed {seen} of {} values",
        consts.len()
    );
    errors
}

const KERNEL_CODE_H: &str = "/usr/include/hsa/amd_hsa_kernel_code.h";
const ELF_H: &str = "/usr/include/hsa/amd_hsa_elf.h";

#[test]
fn amd_kernel_code_t_matches_rocr_header() {
    require_header(KERNEL_CODE_H, "libhsa-runtime-dev");
    let layouts = vec![
        layout!("amd_control_directives_t", AmdControlDirectives {
            enabled_control_directives => "enabled_control_directives",
            enable_break_exceptions => "enable_break_exceptions",
            enable_detect_exceptions => "enable_detect_exceptions",
            max_dynamic_group_size => "max_dynamic_group_size",
            max_flat_grid_size => "max_flat_grid_size",
            max_flat_workgroup_size => "max_flat_workgroup_size",
            required_dim => "required_dim",
            reserved1 => "reserved1",
            required_grid_size => "required_grid_size",
            required_workgroup_size => "required_workgroup_size",
            reserved2 => "reserved2",
        }),
        layout!("amd_kernel_code_t", AmdKernelCode {
            amd_kernel_code_version_major => "amd_kernel_code_version_major",
            amd_kernel_code_version_minor => "amd_kernel_code_version_minor",
            amd_machine_kind => "amd_machine_kind",
            amd_machine_version_major => "amd_machine_version_major",
            amd_machine_version_minor => "amd_machine_version_minor",
            amd_machine_version_stepping => "amd_machine_version_stepping",
            kernel_code_entry_byte_offset => "kernel_code_entry_byte_offset",
            kernel_code_prefetch_byte_offset => "kernel_code_prefetch_byte_offset",
            kernel_code_prefetch_byte_size => "kernel_code_prefetch_byte_size",
            max_scratch_backing_memory_byte_size => "max_scratch_backing_memory_byte_size",
            compute_pgm_rsrc1 => "compute_pgm_rsrc1",
            compute_pgm_rsrc2 => "compute_pgm_rsrc2",
            kernel_code_properties => "kernel_code_properties",
            workitem_private_segment_byte_size => "workitem_private_segment_byte_size",
            workgroup_group_segment_byte_size => "workgroup_group_segment_byte_size",
            gds_segment_byte_size => "gds_segment_byte_size",
            kernarg_segment_byte_size => "kernarg_segment_byte_size",
            workgroup_fbarrier_count => "workgroup_fbarrier_count",
            wavefront_sgpr_count => "wavefront_sgpr_count",
            workitem_vgpr_count => "workitem_vgpr_count",
            reserved_vgpr_first => "reserved_vgpr_first",
            reserved_vgpr_count => "reserved_vgpr_count",
            reserved_sgpr_first => "reserved_sgpr_first",
            reserved_sgpr_count => "reserved_sgpr_count",
            debug_wavefront_private_segment_offset_sgpr => "debug_wavefront_private_segment_offset_sgpr",
            debug_private_segment_buffer_sgpr => "debug_private_segment_buffer_sgpr",
            kernarg_segment_alignment => "kernarg_segment_alignment",
            group_segment_alignment => "group_segment_alignment",
            private_segment_alignment => "private_segment_alignment",
            wavefront_size => "wavefront_size",
            call_convention => "call_convention",
            reserved1 => "reserved1",
            runtime_loader_kernel_symbol => "runtime_loader_kernel_symbol",
            control_directives => "control_directives",
        }),
    ];
    let errors = compare_layouts(
        "loader_kernel_code",
        &["stdint.h", "hsa/amd_hsa_kernel_code.h"],
        &layouts,
    );
    assert!(
        errors.is_empty(),
        "amd_kernel_code_t mismatches:\n{}",
        errors.join("\n")
    );

    let consts = [
        (
            "AMD_MACHINE_KIND_AMDGPU",
            i128::from(AMD_MACHINE_KIND_AMDGPU),
        ),
        (
            "AMD_KERNEL_CODE_PROPERTIES_IS_XNACK_ENABLED",
            i128::from(AMD_KERNEL_CODE_PROPERTIES_IS_XNACK_ENABLED),
        ),
        (
            "AMD_KERNEL_CODE_PROPERTIES_IS_DYNAMIC_CALLSTACK",
            i128::from(AMD_KERNEL_CODE_PROPERTIES_IS_DYNAMIC_CALLSTACK),
        ),
        (
            "AMD_KERNEL_CODE_PROPERTIES_IS_PTR64",
            i128::from(AMD_KERNEL_CODE_PROPERTIES_IS_PTR64),
        ),
        ("sizeof(amd_kernel_code_t)", AmdKernelCode::SIZE as i128),
    ];
    let errors = compare_constants(
        "loader_kernel_code_consts",
        &["stdint.h", "hsa/amd_hsa_kernel_code.h"],
        &consts,
    );
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn elf_constants_match_rocr_header() {
    require_header(ELF_H, "libhsa-runtime-dev");
    let v = |c: CodeObjectVersion| i128::from(c.abi_version());
    let consts = [
        ("EM_AMDGPU", i128::from(elf::EM_AMDGPU)),
        ("ELFOSABI_AMDGPU_HSA", i128::from(elf::ELFOSABI_AMDGPU_HSA)),
        ("ELFABIVERSION_AMDGPU_HSA_V2", v(CodeObjectVersion::V2)),
        ("ELFABIVERSION_AMDGPU_HSA_V3", v(CodeObjectVersion::V3)),
        ("ELFABIVERSION_AMDGPU_HSA_V4", v(CodeObjectVersion::V4)),
        ("ELFABIVERSION_AMDGPU_HSA_V5", v(CodeObjectVersion::V5)),
        ("EF_AMDGPU_MACH", i128::from(processor::EF_AMDGPU_MACH)),
        (
            "EF_AMDGPU_FEATURE_XNACK_V2",
            i128::from(processor::EF_AMDGPU_FEATURE_XNACK_V2),
        ),
        (
            "EF_AMDGPU_FEATURE_TRAP_HANDLER_V2",
            i128::from(processor::EF_AMDGPU_FEATURE_TRAP_HANDLER_V2),
        ),
        (
            "EF_AMDGPU_FEATURE_XNACK_V3",
            i128::from(processor::EF_AMDGPU_FEATURE_XNACK_V3),
        ),
        (
            "EF_AMDGPU_FEATURE_SRAMECC_V3",
            i128::from(processor::EF_AMDGPU_FEATURE_SRAMECC_V3),
        ),
        (
            "EF_AMDGPU_FEATURE_XNACK_V4",
            i128::from(processor::EF_AMDGPU_FEATURE_XNACK_V4),
        ),
        (
            "EF_AMDGPU_FEATURE_SRAMECC_V4",
            i128::from(processor::EF_AMDGPU_FEATURE_SRAMECC_V4),
        ),
        (
            "STT_AMDGPU_HSA_KERNEL",
            i128::from(elf::STT_AMDGPU_HSA_KERNEL),
        ),
        (
            "NT_AMD_HSA_CODE_OBJECT_VERSION",
            i128::from(note::NT_AMD_HSA_CODE_OBJECT_VERSION),
        ),
        ("NT_AMD_HSA_HSAIL", i128::from(note::NT_AMD_HSA_HSAIL)),
        (
            "NT_AMD_HSA_ISA_VERSION",
            i128::from(note::NT_AMD_HSA_ISA_VERSION),
        ),
        ("NT_AMD_HSA_PRODUCER", i128::from(note::NT_AMD_HSA_PRODUCER)),
        (
            "NT_AMD_HSA_PRODUCER_OPTIONS",
            i128::from(note::NT_AMD_HSA_PRODUCER_OPTIONS),
        ),
        (
            "NT_AMD_HSA_EXTENSION",
            i128::from(note::NT_AMD_HSA_EXTENSION),
        ),
        ("NT_AMD_HSA_ISA_NAME", i128::from(note::NT_AMD_HSA_ISA_NAME)),
    ];
    let consts: Vec<(String, i128)> = consts
        .iter()
        .map(|(n, v)| {
            // Enumerators are in `namespace ELF`; macros (STT_*, NT_*) are global.
            let expr = if n.starts_with("STT_") || n.starts_with("NT_") {
                n.to_string()
            } else {
                format!("ELF::{n}")
            };
            (expr, *v)
        })
        .collect();
    let errors = compare_cxx_constants("loader_elf_consts", &consts);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

/// Every processor ROCr's header names has the same `EF_AMDGPU_MACH` value
/// in our table (the names are read from the header text itself, so a
/// processor we lack is a failure, not a silent skip).
#[test]
fn every_rocr_mach_value_is_in_our_table() {
    require_header(ELF_H, "libhsa-runtime-dev");
    let text = std::fs::read_to_string(ELF_H).unwrap();
    let names: Vec<&str> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("EF_AMDGPU_MACH_AMDGCN_GFX"))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert!(names.len() > 30, "found only {names:?} in {ELF_H}");
    let consts: Vec<(String, i128)> = names
        .iter()
        .map(|n| {
            let proc_name = n
                .trim_start_matches("EF_AMDGPU_MACH_AMDGCN_")
                .to_ascii_lowercase()
                .replace('_', "-");
            let p = Processor::from_name(&proc_name)
                .unwrap_or_else(|| panic!("{n}: no processor {proc_name}"));
            (format!("ELF::{n}"), i128::from(p.mach))
        })
        .collect();
    let errors = compare_cxx_constants("loader_mach_consts", &consts);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}
