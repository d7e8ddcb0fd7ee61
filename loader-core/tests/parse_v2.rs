//! `amd_kernel_code_t` against LLVM's own encoder: llvm-mc-19 assembles
//! `.amd_kernel_code_t` blocks (still accepted for the PAL triple) with
//! pseudo-random field values, and [`AmdKernelCode::read`] must give back
//! every value the directive set. The object also exercises the PAL OS ABI
//! path of the ELF view.

use loader_core::elf::{ElfFile, OsAbi};
use loader_core::metadata::v2::AmdKernelCode;
use loader_core::processor::FeatureSetting;
use std::process::Command;

/// xorshift64*: deterministic values without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % bound
    }
}

/// Directive field, bound of its random value, and how to read it back.
type Field = (&'static str, u64, fn(&AmdKernelCode) -> u64);

// `max_scratch_backing_memory_byte_size` is left out: llvm-mc-19 accepts the
// field but always encodes 0 for it, so it cannot serve as an oracle there
// (the layout itself is checked against ROCr's header in tests/loader_abi.rs).
const FIELDS: &[Field] = &[
    ("amd_code_version_major", 1 << 31, |k| {
        k.amd_kernel_code_version_major.into()
    }),
    ("amd_code_version_minor", 1 << 31, |k| {
        k.amd_kernel_code_version_minor.into()
    }),
    ("amd_machine_kind", 1 << 15, |k| k.amd_machine_kind.into()),
    ("amd_machine_version_major", 1 << 15, |k| {
        k.amd_machine_version_major.into()
    }),
    ("amd_machine_version_minor", 1 << 15, |k| {
        k.amd_machine_version_minor.into()
    }),
    ("amd_machine_version_stepping", 1 << 15, |k| {
        k.amd_machine_version_stepping.into()
    }),
    ("kernel_code_entry_byte_offset", 1 << 40, |k| {
        k.kernel_code_entry_byte_offset as u64
    }),
    ("kernel_code_prefetch_byte_size", 1 << 40, |k| {
        k.kernel_code_prefetch_byte_size
    }),
    ("compute_pgm_rsrc1_vgprs", 64, |k| {
        (k.compute_pgm_rsrc1 & 0x3f).into()
    }),
    ("compute_pgm_rsrc1_sgprs", 16, |k| {
        ((k.compute_pgm_rsrc1 >> 6) & 0xf).into()
    }),
    ("compute_pgm_rsrc2_user_sgpr", 32, |k| {
        ((k.compute_pgm_rsrc2 >> 1) & 0x1f).into()
    }),
    ("compute_pgm_rsrc2_tgid_x_en", 2, |k| {
        ((k.compute_pgm_rsrc2 >> 7) & 1).into()
    }),
    ("enable_sgpr_dispatch_ptr", 2, |k| {
        ((k.kernel_code_properties >> 1) & 1).into()
    }),
    ("enable_sgpr_kernarg_segment_ptr", 2, |k| {
        ((k.kernel_code_properties >> 3) & 1).into()
    }),
    ("is_ptr64", 2, |k| {
        ((k.kernel_code_properties >> 19) & 1).into()
    }),
    ("is_dynamic_callstack", 2, |k| {
        ((k.kernel_code_properties >> 20) & 1).into()
    }),
    ("workitem_private_segment_byte_size", 1 << 31, |k| {
        k.workitem_private_segment_byte_size.into()
    }),
    ("workgroup_group_segment_byte_size", 1 << 31, |k| {
        k.workgroup_group_segment_byte_size.into()
    }),
    ("gds_segment_byte_size", 1 << 31, |k| {
        k.gds_segment_byte_size.into()
    }),
    ("kernarg_segment_byte_size", 1 << 40, |k| {
        k.kernarg_segment_byte_size
    }),
    ("workgroup_fbarrier_count", 1 << 31, |k| {
        k.workgroup_fbarrier_count.into()
    }),
    ("wavefront_sgpr_count", 1 << 15, |k| {
        k.wavefront_sgpr_count.into()
    }),
    ("workitem_vgpr_count", 1 << 15, |k| {
        k.workitem_vgpr_count.into()
    }),
    ("reserved_vgpr_first", 1 << 15, |k| {
        k.reserved_vgpr_first.into()
    }),
    ("reserved_vgpr_count", 1 << 15, |k| {
        k.reserved_vgpr_count.into()
    }),
    ("reserved_sgpr_first", 1 << 15, |k| {
        k.reserved_sgpr_first.into()
    }),
    ("reserved_sgpr_count", 1 << 15, |k| {
        k.reserved_sgpr_count.into()
    }),
    (
        "debug_wavefront_private_segment_offset_sgpr",
        1 << 15,
        |k| k.debug_wavefront_private_segment_offset_sgpr.into(),
    ),
    ("debug_private_segment_buffer_sgpr", 1 << 15, |k| {
        k.debug_private_segment_buffer_sgpr.into()
    }),
    ("kernarg_segment_alignment", 9, |k| {
        k.kernarg_segment_alignment.into()
    }),
    ("group_segment_alignment", 9, |k| {
        k.group_segment_alignment.into()
    }),
    ("private_segment_alignment", 9, |k| {
        k.private_segment_alignment.into()
    }),
    ("wavefront_size", 7, |k| k.wavefront_size.into()),
    ("call_convention", 1 << 30, |k| k.call_convention as u64),
    ("runtime_loader_kernel_symbol", 1 << 40, |k| {
        k.runtime_loader_kernel_symbol
    }),
];

#[test]
fn amd_kernel_code_t_round_trips_through_llvm_mc() {
    let dir = std::env::temp_dir().join(format!("loader-parse-akc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..8 {
        let values: Vec<u64> = FIELDS
            .iter()
            .map(|(_, bound, _)| rng.next(*bound))
            .collect();
        let mut src = String::from(".text\n.globl k\n.p2align 8\nk:\n.amd_kernel_code_t\n");
        for ((name, _, _), v) in FIELDS.iter().zip(&values) {
            src.push_str(&format!("  {name} = {v}\n"));
        }
        src.push_str(".end_amd_kernel_code_t\n  s_endpgm\n");
        let s = dir.join(format!("k{round}.s"));
        let o = dir.join(format!("k{round}.o"));
        std::fs::write(&s, &src).unwrap();
        let out = Command::new("llvm-mc-19")
            .args(["-triple=amdgcn-amd-amdpal", "-mcpu=gfx906", "-filetype=obj"])
            .arg(&s)
            .arg("-o")
            .arg(&o)
            .output()
            .expect("llvm-mc-19 (install llvm-19)");
        assert!(
            out.status.success(),
            "{}\n{src}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bytes = std::fs::read(&o).unwrap();
        let f = ElfFile::parse(&bytes).unwrap();
        assert_eq!(f.os_abi(), OsAbi::Pal);
        assert!(
            f.code_object_version().is_err(),
            "PAL has no HSA code-object version"
        );
        // PAL uses the v3 e_flags layout: llvm-readelf-19 reads this object's
        // flags as "gfx906, xnack, sramecc" (one bit each, set).
        let flags = f.flags().unwrap();
        assert_eq!(flags.processor.unwrap().name, "gfx906");
        assert_eq!(
            (flags.xnack, flags.sramecc),
            (FeatureSetting::On, FeatureSetting::On)
        );
        if round == 0 {
            let h = Command::new("llvm-readelf-19")
                .arg("-h")
                .arg(&o)
                .output()
                .unwrap();
            let h = String::from_utf8(h.stdout).unwrap();
            let line = h
                .lines()
                .find(|l| l.trim_start().starts_with("Flags:"))
                .unwrap();
            assert!(
                line.ends_with(
                    &format!("{:#X}, gfx906, xnack, sramecc", flags.raw).replace("0X", "0x")
                ),
                "{line}"
            );
        }
        let text = f.section_by_name(b".text").unwrap().data().unwrap();
        let k = AmdKernelCode::read(text).unwrap();
        for ((name, _, get), v) in FIELDS.iter().zip(&values) {
            assert_eq!(get(&k), *v, "round {round}: field {name}");
        }
    }
}
