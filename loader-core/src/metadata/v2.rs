//! Code object v2: the `NT_AMD_HSA_*` notes and `amd_kernel_code_t`.
//!
//! Note layouts are AMDGPUUsage "Code Object V2 Note Records" and ROCr's
//! `amd_hsa_elf.h` (`amdgpu_hsa_note_*_t`); `amd_kernel_code_t` is
//! `amd_hsa_kernel_code.h` (256 bytes, 64-byte aligned), which a C probe in
//! `tests/tests/loader_abi.rs` compares with [`AmdKernelCode`] field by
//! field.

use crate::bytes;
use crate::error::{Error, Location, Result};
use crate::note::{
    NT_AMD_HSA_CODE_OBJECT_VERSION, NT_AMD_HSA_HSAIL, NT_AMD_HSA_ISA_NAME, NT_AMD_HSA_ISA_VERSION,
    NT_AMD_HSA_METADATA, NT_AMD_HSA_PRODUCER, NT_AMD_HSA_PRODUCER_OPTIONS, Note,
};

/// A decoded v2 note (owner `"AMD"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum V2Note<'a> {
    /// `NT_AMD_HSA_CODE_OBJECT_VERSION`: major, minor (2.x for v2).
    CodeObjectVersion {
        /// `major_version`.
        major: u32,
        /// `minor_version`.
        minor: u32,
    },
    /// `NT_AMD_HSA_HSAIL`.
    Hsail {
        /// `hsail_major_version`.
        major: u32,
        /// `hsail_minor_version`.
        minor: u32,
        /// `profile` (`hsa_profile_t`: 0 base, 1 full).
        profile: u8,
        /// `machine_model` (`hsa_machine_model_t`: 0 small, 1 large).
        machine_model: u8,
        /// `default_float_round` (`hsa_default_float_rounding_mode_t`).
        default_float_round: u8,
    },
    /// `NT_AMD_HSA_ISA_VERSION`: vendor `"AMD"`, architecture `"AMDGPU"`,
    /// and the gfx version.
    IsaVersion {
        /// Vendor name.
        vendor: &'a str,
        /// Architecture name.
        architecture: &'a str,
        /// Major version (9 for gfx90a).
        major: u32,
        /// Minor version.
        minor: u32,
        /// Stepping.
        stepping: u32,
    },
    /// `NT_AMD_HSA_PRODUCER`.
    Producer {
        /// Producer name.
        name: &'a str,
        /// Major version.
        major: u32,
        /// Minor version.
        minor: u32,
    },
    /// `NT_AMD_HSA_PRODUCER_OPTIONS`.
    ProducerOptions(&'a str),
    /// `NT_AMD_HSA_METADATA`: runtime metadata as YAML text.
    RuntimeMetadata(&'a str),
    /// `NT_AMD_HSA_ISA_NAME`: the target ID text.
    IsaName(&'a str),
    /// Any other `"AMD"` note type.
    Other(u32, &'a [u8]),
}

fn text(b: &[u8], at: Location) -> Result<&str> {
    // Strings in v2 notes may carry their NUL; strip trailing NULs.
    let end = b.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
    core::str::from_utf8(&b[..end]).map_err(|_| Error::malformed("note text is not UTF-8", at))
}

impl<'a> V2Note<'a> {
    /// Decodes an `"AMD"` note; `None` for other owners.
    pub fn decode(note: &Note<'a>) -> Option<Result<Self>> {
        if !note.is_amd() {
            return None;
        }
        Some(Self::decode_desc(note.n_type, note.desc).map_err(|e| e.within("note", note.index)))
    }

    /// Decodes the descriptor of an `"AMD"` note of type `n_type`.
    pub fn decode_desc(n_type: u32, d: &'a [u8]) -> Result<Self> {
        let at = Location::Input;
        let short = Error::truncated("note descriptor is shorter than its fixed fields", at);
        let u16_ = |o| bytes::u16_at(d, o).ok_or(short);
        let u32_ = |o| bytes::u32_at(d, o).ok_or(short);
        Ok(match n_type {
            NT_AMD_HSA_CODE_OBJECT_VERSION => Self::CodeObjectVersion {
                major: u32_(0)?,
                minor: u32_(4)?,
            },
            NT_AMD_HSA_HSAIL => Self::Hsail {
                major: u32_(0)?,
                minor: u32_(4)?,
                profile: *d.get(8).ok_or(short)?,
                machine_model: *d.get(9).ok_or(short)?,
                default_float_round: *d.get(10).ok_or(short)?,
            },
            NT_AMD_HSA_ISA_VERSION => {
                let vendor_size = usize::from(u16_(0)?);
                let arch_size = usize::from(u16_(2)?);
                let names = d.get(16..).ok_or(short)?;
                let vendor = names.get(..vendor_size).ok_or(Error::out_of_bounds(
                    "vendor name runs past the note descriptor",
                    at,
                ))?;
                let arch =
                    names
                        .get(vendor_size..vendor_size + arch_size)
                        .ok_or(Error::out_of_bounds(
                            "architecture name runs past the note descriptor",
                            at,
                        ))?;
                Self::IsaVersion {
                    vendor: text(vendor, at)?,
                    architecture: text(arch, at)?,
                    major: u32_(4)?,
                    minor: u32_(8)?,
                    stepping: u32_(12)?,
                }
            }
            NT_AMD_HSA_PRODUCER => {
                let size = usize::from(u16_(0)?);
                let name = d
                    .get(12..)
                    .and_then(|n| n.get(..size))
                    .ok_or(Error::out_of_bounds(
                        "producer name runs past the note descriptor",
                        at,
                    ))?;
                Self::Producer {
                    name: text(name, at)?,
                    major: u32_(4)?,
                    minor: u32_(8)?,
                }
            }
            NT_AMD_HSA_PRODUCER_OPTIONS => {
                let size = usize::from(u16_(0)?);
                let o = d
                    .get(2..)
                    .and_then(|n| n.get(..size))
                    .ok_or(Error::out_of_bounds(
                        "producer options run past the note descriptor",
                        at,
                    ))?;
                Self::ProducerOptions(text(o, at)?)
            }
            NT_AMD_HSA_METADATA => Self::RuntimeMetadata(text(d, at)?),
            NT_AMD_HSA_ISA_NAME => Self::IsaName(text(d, at)?),
            other => Self::Other(other, d),
        })
    }
}

/// `amd_control_directives_t` (`amd_hsa_kernel_code.h`; 128 bytes,
/// 64-byte aligned).
#[repr(C, align(64))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AmdControlDirectives {
    /// `enabled_control_directives` (`AMD_ENABLED_CONTROL_DIRECTIVE_*` bits).
    pub enabled_control_directives: u64,
    /// `enable_break_exceptions` (`AMD_EXCEPTION_KIND_*` bits).
    pub enable_break_exceptions: u16,
    /// `enable_detect_exceptions`.
    pub enable_detect_exceptions: u16,
    /// `max_dynamic_group_size`.
    pub max_dynamic_group_size: u32,
    /// `max_flat_grid_size`.
    pub max_flat_grid_size: u64,
    /// `max_flat_workgroup_size`.
    pub max_flat_workgroup_size: u32,
    /// `required_dim`.
    pub required_dim: u8,
    /// `reserved1`.
    pub reserved1: [u8; 3],
    /// `required_grid_size`.
    pub required_grid_size: [u64; 3],
    /// `required_workgroup_size`.
    pub required_workgroup_size: [u32; 3],
    /// `reserved2`.
    pub reserved2: [u8; 60],
}

const _: () = {
    use core::mem::{align_of, offset_of, size_of};
    assert!(size_of::<AmdControlDirectives>() == 128);
    assert!(align_of::<AmdControlDirectives>() == 64);
    assert!(offset_of!(AmdControlDirectives, enable_break_exceptions) == 8);
    assert!(offset_of!(AmdControlDirectives, enable_detect_exceptions) == 10);
    assert!(offset_of!(AmdControlDirectives, max_dynamic_group_size) == 12);
    assert!(offset_of!(AmdControlDirectives, max_flat_grid_size) == 16);
    assert!(offset_of!(AmdControlDirectives, max_flat_workgroup_size) == 24);
    assert!(offset_of!(AmdControlDirectives, required_dim) == 28);
    assert!(offset_of!(AmdControlDirectives, reserved1) == 29);
    assert!(offset_of!(AmdControlDirectives, required_grid_size) == 32);
    assert!(offset_of!(AmdControlDirectives, required_workgroup_size) == 56);
    assert!(offset_of!(AmdControlDirectives, reserved2) == 68);
};

/// `amd_kernel_code_t` (`amd_hsa_kernel_code.h`): the v2 kernel object,
/// 256 bytes, 64-byte aligned; what a v2 `STT_AMDGPU_HSA_KERNEL` symbol
/// points at.
#[repr(C, align(64))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AmdKernelCode {
    /// `amd_kernel_code_version_major` (1).
    pub amd_kernel_code_version_major: u32,
    /// `amd_kernel_code_version_minor`.
    pub amd_kernel_code_version_minor: u32,
    /// `amd_machine_kind` (`AMD_MACHINE_KIND_AMDGPU` = 1).
    pub amd_machine_kind: u16,
    /// `amd_machine_version_major`.
    pub amd_machine_version_major: u16,
    /// `amd_machine_version_minor`.
    pub amd_machine_version_minor: u16,
    /// `amd_machine_version_stepping`.
    pub amd_machine_version_stepping: u16,
    /// `kernel_code_entry_byte_offset`: from this struct to the code.
    pub kernel_code_entry_byte_offset: i64,
    /// `kernel_code_prefetch_byte_offset`.
    pub kernel_code_prefetch_byte_offset: i64,
    /// `kernel_code_prefetch_byte_size`.
    pub kernel_code_prefetch_byte_size: u64,
    /// `max_scratch_backing_memory_byte_size`.
    pub max_scratch_backing_memory_byte_size: u64,
    /// `compute_pgm_rsrc1` (`AMD_COMPUTE_PGM_RSRC_ONE_*`).
    pub compute_pgm_rsrc1: u32,
    /// `compute_pgm_rsrc2` (`AMD_COMPUTE_PGM_RSRC_TWO_*`).
    pub compute_pgm_rsrc2: u32,
    /// `kernel_code_properties` (`AMD_KERNEL_CODE_PROPERTIES_*`).
    pub kernel_code_properties: u32,
    /// `workitem_private_segment_byte_size`.
    pub workitem_private_segment_byte_size: u32,
    /// `workgroup_group_segment_byte_size`.
    pub workgroup_group_segment_byte_size: u32,
    /// `gds_segment_byte_size`.
    pub gds_segment_byte_size: u32,
    /// `kernarg_segment_byte_size`.
    pub kernarg_segment_byte_size: u64,
    /// `workgroup_fbarrier_count`.
    pub workgroup_fbarrier_count: u32,
    /// `wavefront_sgpr_count`.
    pub wavefront_sgpr_count: u16,
    /// `workitem_vgpr_count`.
    pub workitem_vgpr_count: u16,
    /// `reserved_vgpr_first`.
    pub reserved_vgpr_first: u16,
    /// `reserved_vgpr_count`.
    pub reserved_vgpr_count: u16,
    /// `reserved_sgpr_first`.
    pub reserved_sgpr_first: u16,
    /// `reserved_sgpr_count`.
    pub reserved_sgpr_count: u16,
    /// `debug_wavefront_private_segment_offset_sgpr`.
    pub debug_wavefront_private_segment_offset_sgpr: u16,
    /// `debug_private_segment_buffer_sgpr`.
    pub debug_private_segment_buffer_sgpr: u16,
    /// `kernarg_segment_alignment` (log2, `amd_powertwo8_t`).
    pub kernarg_segment_alignment: u8,
    /// `group_segment_alignment` (log2).
    pub group_segment_alignment: u8,
    /// `private_segment_alignment` (log2).
    pub private_segment_alignment: u8,
    /// `wavefront_size` (log2: 6 for 64 lanes).
    pub wavefront_size: u8,
    /// `call_convention`.
    pub call_convention: i32,
    /// `reserved1`.
    pub reserved1: [u8; 12],
    /// `runtime_loader_kernel_symbol`.
    pub runtime_loader_kernel_symbol: u64,
    /// `control_directives`.
    pub control_directives: AmdControlDirectives,
}

const _: () = {
    use core::mem::{align_of, offset_of, size_of};
    assert!(size_of::<AmdKernelCode>() == 256);
    assert!(align_of::<AmdKernelCode>() == 64);
    assert!(offset_of!(AmdKernelCode, amd_kernel_code_version_minor) == 4);
    assert!(offset_of!(AmdKernelCode, amd_machine_kind) == 8);
    assert!(offset_of!(AmdKernelCode, amd_machine_version_major) == 10);
    assert!(offset_of!(AmdKernelCode, amd_machine_version_minor) == 12);
    assert!(offset_of!(AmdKernelCode, amd_machine_version_stepping) == 14);
    assert!(offset_of!(AmdKernelCode, kernel_code_entry_byte_offset) == 16);
    assert!(offset_of!(AmdKernelCode, kernel_code_prefetch_byte_offset) == 24);
    assert!(offset_of!(AmdKernelCode, kernel_code_prefetch_byte_size) == 32);
    assert!(offset_of!(AmdKernelCode, max_scratch_backing_memory_byte_size) == 40);
    assert!(offset_of!(AmdKernelCode, compute_pgm_rsrc1) == 48);
    assert!(offset_of!(AmdKernelCode, compute_pgm_rsrc2) == 52);
    assert!(offset_of!(AmdKernelCode, kernel_code_properties) == 56);
    assert!(offset_of!(AmdKernelCode, workitem_private_segment_byte_size) == 60);
    assert!(offset_of!(AmdKernelCode, workgroup_group_segment_byte_size) == 64);
    assert!(offset_of!(AmdKernelCode, gds_segment_byte_size) == 68);
    assert!(offset_of!(AmdKernelCode, kernarg_segment_byte_size) == 72);
    assert!(offset_of!(AmdKernelCode, workgroup_fbarrier_count) == 80);
    assert!(offset_of!(AmdKernelCode, wavefront_sgpr_count) == 84);
    assert!(offset_of!(AmdKernelCode, workitem_vgpr_count) == 86);
    assert!(offset_of!(AmdKernelCode, reserved_vgpr_first) == 88);
    assert!(offset_of!(AmdKernelCode, reserved_vgpr_count) == 90);
    assert!(offset_of!(AmdKernelCode, reserved_sgpr_first) == 92);
    assert!(offset_of!(AmdKernelCode, reserved_sgpr_count) == 94);
    assert!(offset_of!(AmdKernelCode, debug_wavefront_private_segment_offset_sgpr) == 96);
    assert!(offset_of!(AmdKernelCode, debug_private_segment_buffer_sgpr) == 98);
    assert!(offset_of!(AmdKernelCode, kernarg_segment_alignment) == 100);
    assert!(offset_of!(AmdKernelCode, group_segment_alignment) == 101);
    assert!(offset_of!(AmdKernelCode, private_segment_alignment) == 102);
    assert!(offset_of!(AmdKernelCode, wavefront_size) == 103);
    assert!(offset_of!(AmdKernelCode, call_convention) == 104);
    assert!(offset_of!(AmdKernelCode, reserved1) == 108);
    assert!(offset_of!(AmdKernelCode, runtime_loader_kernel_symbol) == 120);
    assert!(offset_of!(AmdKernelCode, control_directives) == 128);
};

/// `AMD_MACHINE_KIND_AMDGPU`.
pub const AMD_MACHINE_KIND_AMDGPU: u16 = 1;
/// `AMD_KERNEL_CODE_PROPERTIES_IS_XNACK_ENABLED` (bit 22).
pub const AMD_KERNEL_CODE_PROPERTIES_IS_XNACK_ENABLED: u32 = 1 << 22;
/// `AMD_KERNEL_CODE_PROPERTIES_IS_DYNAMIC_CALLSTACK` (bit 20).
pub const AMD_KERNEL_CODE_PROPERTIES_IS_DYNAMIC_CALLSTACK: u32 = 1 << 20;
/// `AMD_KERNEL_CODE_PROPERTIES_IS_PTR64` (bit 19).
pub const AMD_KERNEL_CODE_PROPERTIES_IS_PTR64: u32 = 1 << 19;

impl AmdKernelCode {
    /// Size in bytes.
    pub const SIZE: usize = 256;

    /// Reads the 256 little-endian bytes at the start of `b`.
    pub fn read(b: &[u8]) -> Result<Self> {
        let b = b.get(..Self::SIZE).ok_or(Error::truncated(
            "shorter than the 256-byte amd_kernel_code_t",
            Location::Input,
        ))?;
        // `b` is exactly 256 bytes, so every fixed-offset read below succeeds.
        let u8_ = |o: usize| b.get(o).copied().unwrap_or(0);
        let u16_ = |o| bytes::u16_at(b, o).unwrap_or(0);
        let u32_ = |o| bytes::u32_at(b, o).unwrap_or(0);
        let u64_ = |o| bytes::u64_at(b, o).unwrap_or(0);
        let i64_ = |o| bytes::i64_at(b, o).unwrap_or(0);
        let arr = |o: usize| -> [u8; 12] { bytes::array(b, o).unwrap_or([0; 12]) };
        let cd = 128;
        let k = Self {
            amd_kernel_code_version_major: u32_(0),
            amd_kernel_code_version_minor: u32_(4),
            amd_machine_kind: u16_(8),
            amd_machine_version_major: u16_(10),
            amd_machine_version_minor: u16_(12),
            amd_machine_version_stepping: u16_(14),
            kernel_code_entry_byte_offset: i64_(16),
            kernel_code_prefetch_byte_offset: i64_(24),
            kernel_code_prefetch_byte_size: u64_(32),
            max_scratch_backing_memory_byte_size: u64_(40),
            compute_pgm_rsrc1: u32_(48),
            compute_pgm_rsrc2: u32_(52),
            kernel_code_properties: u32_(56),
            workitem_private_segment_byte_size: u32_(60),
            workgroup_group_segment_byte_size: u32_(64),
            gds_segment_byte_size: u32_(68),
            kernarg_segment_byte_size: u64_(72),
            workgroup_fbarrier_count: u32_(80),
            wavefront_sgpr_count: u16_(84),
            workitem_vgpr_count: u16_(86),
            reserved_vgpr_first: u16_(88),
            reserved_vgpr_count: u16_(90),
            reserved_sgpr_first: u16_(92),
            reserved_sgpr_count: u16_(94),
            debug_wavefront_private_segment_offset_sgpr: u16_(96),
            debug_private_segment_buffer_sgpr: u16_(98),
            kernarg_segment_alignment: u8_(100),
            group_segment_alignment: u8_(101),
            private_segment_alignment: u8_(102),
            wavefront_size: u8_(103),
            call_convention: u32_(104) as i32,
            reserved1: arr(108),
            runtime_loader_kernel_symbol: u64_(120),
            control_directives: AmdControlDirectives {
                enabled_control_directives: u64_(cd),
                enable_break_exceptions: u16_(cd + 8),
                enable_detect_exceptions: u16_(cd + 10),
                max_dynamic_group_size: u32_(cd + 12),
                max_flat_grid_size: u64_(cd + 16),
                max_flat_workgroup_size: u32_(cd + 24),
                required_dim: u8_(cd + 28),
                reserved1: [u8_(cd + 29), u8_(cd + 30), u8_(cd + 31)],
                required_grid_size: [u64_(cd + 32), u64_(cd + 40), u64_(cd + 48)],
                required_workgroup_size: [u32_(cd + 56), u32_(cd + 60), u32_(cd + 64)],
                reserved2: bytes::array(b, cd + 68).unwrap_or([0; 60]),
            },
        };
        Ok(k)
    }

    /// Checks the fields a v2 loader relies on: version 1, machine kind
    /// AMDGPU, power-of-two alignments no larger than 256 bytes, and a
    /// wavefront size of 32 or 64.
    pub fn check(&self) -> Result<()> {
        let f = Location::Field;
        if self.amd_kernel_code_version_major != 1 {
            return Err(Error::unsupported(
                "amd_kernel_code_t major version is not 1",
                f("amd_kernel_code_version_major"),
            ));
        }
        if self.amd_machine_kind != AMD_MACHINE_KIND_AMDGPU {
            return Err(Error::unsupported(
                "machine kind is not AMDGPU",
                f("amd_machine_kind"),
            ));
        }
        for (v, name) in [
            (self.kernarg_segment_alignment, "kernarg_segment_alignment"),
            (self.group_segment_alignment, "group_segment_alignment"),
            (self.private_segment_alignment, "private_segment_alignment"),
        ] {
            if v > 8 {
                return Err(Error::malformed(
                    "alignment above AMD_POWERTWO_256",
                    f(name),
                ));
            }
        }
        if self.wavefront_size != 5 && self.wavefront_size != 6 {
            return Err(Error::unsupported(
                "wavefront size is neither 32 nor 64 lanes",
                f("wavefront_size"),
            ));
        }
        Ok(())
    }

    /// `kernarg_segment_alignment` in bytes.
    pub fn kernarg_alignment_bytes(&self) -> u64 {
        1u64 << (self.kernarg_segment_alignment & 63)
    }

    /// `wavefront_size` in lanes.
    pub fn wavefront_lanes(&self) -> u32 {
        1u32 << (self.wavefront_size & 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_isa_version_note() {
        let mut d = [0u8; 16 + 4 + 7];
        d[0..2].copy_from_slice(&4u16.to_le_bytes());
        d[2..4].copy_from_slice(&7u16.to_le_bytes());
        d[4..8].copy_from_slice(&9u32.to_le_bytes());
        d[8..12].copy_from_slice(&0u32.to_le_bytes());
        d[12..16].copy_from_slice(&6u32.to_le_bytes());
        d[16..20].copy_from_slice(b"AMD\0");
        d[20..27].copy_from_slice(b"AMDGPU\0");
        let n = V2Note::decode_desc(NT_AMD_HSA_ISA_VERSION, &d).unwrap();
        assert_eq!(
            n,
            V2Note::IsaVersion {
                vendor: "AMD",
                architecture: "AMDGPU",
                major: 9,
                minor: 0,
                stepping: 6
            }
        );
        // Names that claim more than the descriptor holds.
        d[2..4].copy_from_slice(&200u16.to_le_bytes());
        assert!(V2Note::decode_desc(NT_AMD_HSA_ISA_VERSION, &d).is_err());
        assert!(V2Note::decode_desc(NT_AMD_HSA_CODE_OBJECT_VERSION, &d[..7]).is_err());
    }

    #[test]
    fn reads_kernel_code() {
        let mut b = [0u8; 256];
        b[0] = 1;
        b[8] = 1;
        b[16..24].copy_from_slice(&256i64.to_le_bytes());
        b[72..80].copy_from_slice(&40u64.to_le_bytes());
        b[100] = 4;
        b[103] = 6;
        b[128 + 56..128 + 60].copy_from_slice(&64u32.to_le_bytes());
        let k = AmdKernelCode::read(&b).unwrap();
        k.check().unwrap();
        assert_eq!(k.kernel_code_entry_byte_offset, 256);
        assert_eq!(k.kernarg_segment_byte_size, 40);
        assert_eq!(k.kernarg_alignment_bytes(), 16);
        assert_eq!(k.wavefront_lanes(), 64);
        assert_eq!(k.control_directives.required_workgroup_size, [64, 0, 0]);
        assert!(AmdKernelCode::read(&b[..255]).is_err());
    }
}
