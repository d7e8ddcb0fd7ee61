//! AMDHSA kernel descriptors: the 64-byte records (`<kernel>.kd`, `STT_OBJECT`
//! of size 64 in `.rodata`) that an AQL kernel-dispatch packet's
//! `kernel_object` points at.
//!
//! Layout and bit fields follow AMDGPUUsage, section "Kernel Descriptor"
//! (tables "Kernel Descriptor for GFX6-GFX12", "compute_pgm_rsrc1/2/3") and
//! LLVM's `AMDHSAKernelDescriptor.h`; see [`raw`] for the offsets and masks.
//!
//! [`KernelDescriptor::parse`] reads the raw fields from bytes (reserved bytes
//! must be zero); [`KernelDescriptor::decode`] interprets every bit for one
//! [`GpuFamily`], rejecting reserved bits, bits illegal on that family and
//! inconsistent values, and yields a [`DecodedKernelDescriptor`] whose
//! [`directives`](DecodedKernelDescriptor::directives) are the `.amdhsa_*`
//! lines `llvm-objdump --disassemble-symbols=<kernel>.kd` prints.
//!
//! ```
//! use loader_core::kernel_descriptor::{GpuFamily, KernelDescriptor};
//!
//! // A gfx90a descriptor: 8 VGPRs, accum_offset 4, kernarg pointer in s[4:5].
//! let mut bytes = [0u8; 64];
//! bytes[8..12].copy_from_slice(&16u32.to_le_bytes()); // kernarg_size
//! bytes[48..52].copy_from_slice(&0x00af_0000u32.to_le_bytes()); // rsrc1: denorm modes, dx10 clamp, ieee
//! bytes[52..56].copy_from_slice(&((6u32 << 1) | (1 << 7)).to_le_bytes()); // rsrc2: 6 user SGPRs, workgroup id x
//! bytes[56] = 0b1001; // private segment buffer + kernarg segment pointer
//! let kd = KernelDescriptor::parse(&bytes)?.decode(GpuFamily::Gfx90a)?;
//! assert_eq!(kd.next_free_vgpr, 8);
//! assert_eq!(kd.directives(5).get(".amdhsa_accum_offset"), Some(4));
//! assert_eq!(kd.directives(5).get(".amdhsa_user_sgpr_kernarg_segment_ptr"), Some(1));
//! # Ok::<(), loader_core::kernel_descriptor::KdError>(())
//! ```

mod directives;
pub mod raw;

use core::fmt;

pub use directives::{Directive, Directives};
use raw::*;

/// The GPU families whose kernel descriptors differ (AMDGPUUsage names the
/// family of every processor in its "AMDGPU Processors" table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum GpuFamily {
    /// GFX6 (gfx600-gfx602).
    Gfx6,
    /// GFX7 (gfx700-gfx705).
    Gfx7,
    /// GFX8 (gfx801-gfx810).
    Gfx8,
    /// GFX9 without the GFX90A instructions (gfx900-gfx90c, gfx9-generic).
    Gfx9,
    /// gfx90a: AccVGPRs in a unified register file, `compute_pgm_rsrc3` holds
    /// `accum_offset` and `tg_split`.
    Gfx90a,
    /// gfx940, gfx941, gfx942, gfx950, gfx9-4-generic: as gfx90a, plus
    /// architected flat scratch.
    Gfx94x,
    /// GFX10 (gfx1010-gfx1036, gfx10-1-generic, gfx10-3-generic).
    Gfx10,
    /// GFX11 (gfx1100-gfx1153, gfx11-generic).
    Gfx11,
    /// GFX12 (gfx1200, gfx1201, gfx12-generic).
    Gfx12,
}

impl GpuFamily {
    /// The family of a processor named as in a target ID (`gfx90a`,
    /// `gfx1100`, `gfx10-3-generic`), or `None` for a name LLVM does not use.
    pub fn from_processor(name: &str) -> Option<Self> {
        let rest = name.strip_prefix("gfx")?;
        if let Some(generic) = rest.strip_suffix("-generic") {
            return match generic {
                "9" => Some(Self::Gfx9),
                "9-4" => Some(Self::Gfx94x),
                "10-1" | "10-3" => Some(Self::Gfx10),
                "11" => Some(Self::Gfx11),
                "12" => Some(Self::Gfx12),
                _ => None,
            };
        }
        let b = rest.as_bytes();
        if !b.iter().all(u8::is_ascii_alphanumeric) {
            return None;
        }
        match b {
            [b'6', b'0', s] if s.is_ascii_digit() => Some(Self::Gfx6),
            [b'7', b'0', s] if s.is_ascii_digit() => Some(Self::Gfx7),
            [b'8', b'0' | b'1', s] if s.is_ascii_digit() => Some(Self::Gfx8),
            [b'9', b'0', b'a'] => Some(Self::Gfx90a),
            [b'9', b'4', s] if s.is_ascii_digit() => Some(Self::Gfx94x),
            [b'9', b'5', b'0'] => Some(Self::Gfx94x),
            [b'9', b'0', s] if s.is_ascii_hexdigit() => Some(Self::Gfx9),
            [b'1', b'0', b'1' | b'3', s] if s.is_ascii_digit() => Some(Self::Gfx10),
            [b'1', b'1', b'0' | b'5', s] if s.is_ascii_digit() => Some(Self::Gfx11),
            [b'1', b'2', b'0', s] if s.is_ascii_digit() => Some(Self::Gfx12),
            _ => None,
        }
    }

    /// GFX9 or later (`FP16_OVFL` exists).
    pub const fn is_gfx9_plus(self) -> bool {
        !matches!(self, Self::Gfx6 | Self::Gfx7 | Self::Gfx8)
    }

    /// Any GFX9 processor, gfx90a and gfx94x included.
    pub const fn is_gfx9(self) -> bool {
        matches!(self, Self::Gfx9 | Self::Gfx90a | Self::Gfx94x)
    }

    /// Has the GFX90A instructions: `compute_pgm_rsrc3` is
    /// `accum_offset`/`tg_split` and VGPRs are granted in blocks of 8.
    pub const fn has_gfx90a_insts(self) -> bool {
        matches!(self, Self::Gfx90a | Self::Gfx94x)
    }

    /// GFX10 or later.
    pub const fn is_gfx10_plus(self) -> bool {
        matches!(self, Self::Gfx10 | Self::Gfx11 | Self::Gfx12)
    }

    /// GFX11 or later.
    pub const fn is_gfx11_plus(self) -> bool {
        matches!(self, Self::Gfx11 | Self::Gfx12)
    }

    /// GFX12 or later.
    pub const fn is_gfx12_plus(self) -> bool {
        matches!(self, Self::Gfx12)
    }

    /// Scratch is addressed by hardware (no private-segment buffer or flat
    /// scratch init user SGPRs): gfx94x, GFX11, GFX12.
    pub const fn has_architected_flat_scratch(self) -> bool {
        matches!(self, Self::Gfx94x | Self::Gfx11 | Self::Gfx12)
    }

    /// Kernel arguments can be preloaded into user SGPRs (gfx90a, gfx94x).
    pub const fn has_kernarg_preload(self) -> bool {
        self.has_gfx90a_insts()
    }

    /// Wave32 execution exists (GFX10+).
    pub const fn supports_wave32(self) -> bool {
        self.is_gfx10_plus()
    }

    /// VGPRs per granule of `GRANULATED_WORKITEM_VGPR_COUNT`
    /// (LLVM `IsaInfo::getVGPREncodingGranule`).
    pub const fn vgpr_encoding_granule(self, wave32: bool) -> u16 {
        if self.has_gfx90a_insts() || wave32 {
            8
        } else {
            4
        }
    }

    /// SGPRs per granule of `GRANULATED_WAVEFRONT_SGPR_COUNT`.
    pub const fn sgpr_encoding_granule(self) -> u16 {
        8
    }

    /// Most user SGPRs the CP can load (16 on GFX6-GFX12).
    pub const fn max_user_sgprs(self) -> u8 {
        16
    }
}

/// One of the registers packed in the descriptor, for error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum KdRegister {
    /// `compute_pgm_rsrc1`.
    ComputePgmRsrc1,
    /// `compute_pgm_rsrc2`.
    ComputePgmRsrc2,
    /// `compute_pgm_rsrc3`.
    ComputePgmRsrc3,
    /// `kernel_code_properties`.
    KernelCodeProperties,
    /// `kernarg_preload`.
    KernargPreload,
}

impl KdRegister {
    /// The name AMDGPUUsage and LLVM give it.
    pub const fn name(self) -> &'static str {
        match self {
            Self::ComputePgmRsrc1 => "COMPUTE_PGM_RSRC1",
            Self::ComputePgmRsrc2 => "COMPUTE_PGM_RSRC2",
            Self::ComputePgmRsrc3 => "COMPUTE_PGM_RSRC3",
            Self::KernelCodeProperties => "KERNEL_CODE_PROPERTIES",
            Self::KernargPreload => "KERNARG_PRELOAD",
        }
    }

    /// Byte offset of the register in the descriptor.
    pub const fn offset(self) -> usize {
        match self {
            Self::ComputePgmRsrc1 => COMPUTE_PGM_RSRC1_OFFSET,
            Self::ComputePgmRsrc2 => COMPUTE_PGM_RSRC2_OFFSET,
            Self::ComputePgmRsrc3 => COMPUTE_PGM_RSRC3_OFFSET,
            Self::KernelCodeProperties => KERNEL_CODE_PROPERTIES_OFFSET,
            Self::KernargPreload => KERNARG_PRELOAD_OFFSET,
        }
    }
}

/// What is wrong with a kernel descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum KdError {
    /// The descriptor is not exactly 64 bytes.
    WrongSize {
        /// Bytes given.
        len: usize,
    },
    /// A reserved byte range is not zero.
    ReservedBytesSet {
        /// Offset of the range in the descriptor.
        offset: u8,
        /// Length of the range.
        len: u8,
    },
    /// Bits that are reserved, or that the CP owns, or that do not exist on
    /// this family, are set.
    BitsSet {
        /// The register holding them.
        register: KdRegister,
        /// The offending bits, in place.
        mask: u32,
        /// The LLVM name of the field they belong to.
        field: &'static str,
        /// Why they must be zero ("reserved", "must be zero on gfx10+", ...).
        why: &'static str,
    },
    /// `ENABLE_VGPR_WORKITEM_ID` is 3, which names no set of work-item ids.
    WorkitemIdUndefined,
    /// `USER_SGPR_COUNT` is smaller than the user SGPRs the enabled
    /// `kernel_code_properties` and the kernarg preload need.
    UserSgprCountTooSmall {
        /// `USER_SGPR_COUNT`.
        declared: u8,
        /// What the enabled user SGPRs add up to.
        required: u8,
    },
    /// `USER_SGPR_COUNT` exceeds what the family can load.
    UserSgprCountTooLarge {
        /// `USER_SGPR_COUNT`.
        declared: u8,
        /// The family's limit.
        max: u8,
    },
    /// gfx90a/gfx94x: `accum_offset` lies past the VGPRs the descriptor allocates.
    AccumOffsetPastVgprs {
        /// `.amdhsa_accum_offset`, in VGPRs.
        accum_offset: u16,
        /// `.amdhsa_next_free_vgpr`, in VGPRs (AccVGPRs included).
        next_free_vgpr: u16,
    },
    /// A kernarg preload is set on a family without kernarg preloading.
    KernargPreloadUnsupported {
        /// The family.
        family: GpuFamily,
    },
    /// The kernarg preload is longer than the user SGPRs can hold.
    KernargPreloadTooLong {
        /// Preload length in SGPRs.
        length: u8,
        /// The family's limit.
        max: u8,
    },
    /// The preloaded kernargs end past `kernarg_size`.
    KernargPreloadPastKernargs {
        /// End of the preloaded range, in bytes.
        end: u32,
        /// `kernarg_size`.
        kernarg_size: u32,
    },
    /// GFX10/GFX11 wave64: the private VGPRs plus the shared VGPRs exceed
    /// the 256 a work-item can address (AMDGPUUsage `SHARED_VGPR_COUNT`:
    /// `(vgprs + 1) * 4 + shared_vgpr_count * 8` must not exceed 256).
    SharedVgprsPastLimit {
        /// `.amdhsa_next_free_vgpr`.
        next_free_vgpr: u16,
        /// Shared VGPRs (`SHARED_VGPR_COUNT * 8`).
        shared_vgprs: u16,
    },
}

impl fmt::Display for KdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("kernel descriptor: ")?;
        match *self {
            Self::WrongSize { len } => write!(f, "{len} bytes, a descriptor has 64"),
            Self::ReservedBytesSet { offset, len } => {
                let lo = u32::from(offset) * 8;
                let hi = (u32::from(offset) + u32::from(len)) * 8 - 1;
                write!(f, "reserved bits in range ({hi}:{lo}) set")
            }
            Self::BitsSet {
                register,
                mask,
                field,
                why,
            } => {
                let lo = mask.trailing_zeros();
                let hi = 31 - mask.leading_zeros();
                write!(
                    f,
                    "{} (byte {}) bits ({hi}:{lo}) of {field} set: {why}",
                    register.name(),
                    register.offset()
                )
            }
            Self::WorkitemIdUndefined => {
                f.write_str("COMPUTE_PGM_RSRC2 ENABLE_VGPR_WORKITEM_ID is 3 (undefined)")
            }
            Self::UserSgprCountTooSmall { declared, required } => write!(
                f,
                "COMPUTE_PGM_RSRC2 USER_SGPR_COUNT is {declared} but the enabled user SGPRs need {required}"
            ),
            Self::UserSgprCountTooLarge { declared, max } => write!(
                f,
                "COMPUTE_PGM_RSRC2 USER_SGPR_COUNT is {declared}, more than the {max} user SGPRs"
            ),
            Self::AccumOffsetPastVgprs {
                accum_offset,
                next_free_vgpr,
            } => write!(
                f,
                "accum_offset {accum_offset} is past the {next_free_vgpr} allocated VGPRs"
            ),
            Self::KernargPreloadUnsupported { family } => {
                write!(
                    f,
                    "kernarg preload set, but {family:?} cannot preload kernargs"
                )
            }
            Self::KernargPreloadTooLong { length, max } => write!(
                f,
                "kernarg preload of {length} SGPRs, more than the {max} user SGPRs"
            ),
            Self::SharedVgprsPastLimit {
                next_free_vgpr,
                shared_vgprs,
            } => write!(
                f,
                "{next_free_vgpr} VGPRs plus {shared_vgprs} shared VGPRs exceed 256"
            ),
            Self::KernargPreloadPastKernargs { end, kernarg_size } => write!(
                f,
                "kernarg preload ends at byte {end}, past kernarg_size {kernarg_size}"
            ),
        }
    }
}

impl core::error::Error for KdError {}

/// For callers that collect every failure as the crate's [`crate::Error`]:
/// the kind and a static message, located at the offending field (the
/// numbers stay in [`KdError`]'s `Display`).
impl From<KdError> for crate::Error {
    fn from(e: KdError) -> Self {
        use crate::error::{Error, Location};
        let kd = |f| Location::Field(f);
        match e {
            KdError::WrongSize { .. } => {
                Error::malformed("kernel descriptor is not 64 bytes", Location::Input)
            }
            KdError::ReservedBytesSet { .. } => {
                Error::malformed("kernel descriptor reserved bytes are set", Location::Input)
            }
            KdError::BitsSet { field, why, .. } => Error::malformed(why, kd(field)),
            KdError::WorkitemIdUndefined => Error::malformed(
                "ENABLE_VGPR_WORKITEM_ID is 3 (undefined)",
                kd("COMPUTE_PGM_RSRC2_ENABLE_VGPR_WORKITEM_ID"),
            ),
            KdError::UserSgprCountTooSmall { .. } => Error::inconsistent(
                "USER_SGPR_COUNT is smaller than the enabled user SGPRs need",
                kd("COMPUTE_PGM_RSRC2_USER_SGPR_COUNT"),
            ),
            KdError::UserSgprCountTooLarge { .. } => Error::limit(
                "USER_SGPR_COUNT exceeds the user SGPRs the family has",
                kd("COMPUTE_PGM_RSRC2_USER_SGPR_COUNT"),
            ),
            KdError::AccumOffsetPastVgprs { .. } => Error::inconsistent(
                "accum_offset is past the allocated VGPRs",
                kd("COMPUTE_PGM_RSRC3_GFX90A_ACCUM_OFFSET"),
            ),
            KdError::KernargPreloadUnsupported { .. } => Error::unsupported(
                "kernarg preload on a family without it",
                kd("KERNARG_PRELOAD_SPEC_LENGTH"),
            ),
            KdError::KernargPreloadTooLong { .. } => Error::limit(
                "kernarg preload is longer than the user SGPRs",
                kd("KERNARG_PRELOAD_SPEC_LENGTH"),
            ),
            KdError::KernargPreloadPastKernargs { .. } => Error::inconsistent(
                "kernarg preload ends past kernarg_size",
                kd("KERNARG_PRELOAD_SPEC_OFFSET"),
            ),
            KdError::SharedVgprsPastLimit { .. } => Error::limit(
                "private plus shared VGPRs exceed 256",
                kd("COMPUTE_PGM_RSRC3_GFX10_GFX11_SHARED_VGPR_COUNT"),
            ),
        }
    }
}

/// The raw fields of a kernel descriptor (`kernel_descriptor_t`), read from
/// little-endian bytes with the reserved bytes checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct KernelDescriptor {
    /// `group_segment_fixed_size`: LDS bytes, not counting dynamic LDS.
    pub group_segment_fixed_size: u32,
    /// `private_segment_fixed_size`: scratch bytes per work-item, not counting
    /// a dynamic stack.
    pub private_segment_fixed_size: u32,
    /// `kernarg_size`: bytes of the kernarg segment.
    pub kernarg_size: u32,
    /// `kernel_code_entry_byte_offset`: from the descriptor's address to the
    /// kernel's first instruction (256-byte aligned).
    pub kernel_code_entry_byte_offset: i64,
    /// `compute_pgm_rsrc3` (GFX90A+, GFX10+).
    pub compute_pgm_rsrc3: u32,
    /// `compute_pgm_rsrc1`.
    pub compute_pgm_rsrc1: u32,
    /// `compute_pgm_rsrc2`.
    pub compute_pgm_rsrc2: u32,
    /// `kernel_code_properties`.
    pub kernel_code_properties: u16,
    /// `kernarg_preload`.
    pub kernarg_preload: u16,
}

fn u16_at(b: &[u8; KERNEL_DESCRIPTOR_SIZE], off: usize) -> u16 {
    u16::from_le_bytes([b[off], b[off + 1]])
}

fn u32_at(b: &[u8; KERNEL_DESCRIPTOR_SIZE], off: usize) -> u32 {
    u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}

fn i64_at(b: &[u8; KERNEL_DESCRIPTOR_SIZE], off: usize) -> i64 {
    let mut v = [0u8; 8];
    v.copy_from_slice(&b[off..off + 8]);
    i64::from_le_bytes(v)
}

impl KernelDescriptor {
    /// Reads a descriptor from exactly 64 bytes; the reserved bytes must be
    /// zero.
    pub fn parse(bytes: &[u8]) -> Result<Self, KdError> {
        let b: &[u8; KERNEL_DESCRIPTOR_SIZE] = bytes
            .try_into()
            .map_err(|_| KdError::WrongSize { len: bytes.len() })?;
        for (offset, len) in [
            (RESERVED0_OFFSET, RESERVED0_SIZE),
            (RESERVED1_OFFSET, RESERVED1_SIZE),
            (RESERVED3_OFFSET, RESERVED3_SIZE),
        ] {
            if b[offset..offset + len].iter().any(|&x| x != 0) {
                return Err(KdError::ReservedBytesSet {
                    offset: offset as u8,
                    len: len as u8,
                });
            }
        }
        Ok(Self {
            group_segment_fixed_size: u32_at(b, GROUP_SEGMENT_FIXED_SIZE_OFFSET),
            private_segment_fixed_size: u32_at(b, PRIVATE_SEGMENT_FIXED_SIZE_OFFSET),
            kernarg_size: u32_at(b, KERNARG_SIZE_OFFSET),
            kernel_code_entry_byte_offset: i64_at(b, KERNEL_CODE_ENTRY_BYTE_OFFSET_OFFSET),
            compute_pgm_rsrc3: u32_at(b, COMPUTE_PGM_RSRC3_OFFSET),
            compute_pgm_rsrc1: u32_at(b, COMPUTE_PGM_RSRC1_OFFSET),
            compute_pgm_rsrc2: u32_at(b, COMPUTE_PGM_RSRC2_OFFSET),
            kernel_code_properties: u16_at(b, KERNEL_CODE_PROPERTIES_OFFSET),
            kernarg_preload: u16_at(b, KERNARG_PRELOAD_OFFSET),
        })
    }

    /// Writes the descriptor back to its 64-byte form (reserved bytes zero).
    pub fn to_bytes(&self) -> [u8; KERNEL_DESCRIPTOR_SIZE] {
        let mut b = [0u8; KERNEL_DESCRIPTOR_SIZE];
        let mut put = |off: usize, v: &[u8]| b[off..off + v.len()].copy_from_slice(v);
        put(
            GROUP_SEGMENT_FIXED_SIZE_OFFSET,
            &self.group_segment_fixed_size.to_le_bytes(),
        );
        put(
            PRIVATE_SEGMENT_FIXED_SIZE_OFFSET,
            &self.private_segment_fixed_size.to_le_bytes(),
        );
        put(KERNARG_SIZE_OFFSET, &self.kernarg_size.to_le_bytes());
        put(
            KERNEL_CODE_ENTRY_BYTE_OFFSET_OFFSET,
            &self.kernel_code_entry_byte_offset.to_le_bytes(),
        );
        put(
            COMPUTE_PGM_RSRC3_OFFSET,
            &self.compute_pgm_rsrc3.to_le_bytes(),
        );
        put(
            COMPUTE_PGM_RSRC1_OFFSET,
            &self.compute_pgm_rsrc1.to_le_bytes(),
        );
        put(
            COMPUTE_PGM_RSRC2_OFFSET,
            &self.compute_pgm_rsrc2.to_le_bytes(),
        );
        put(
            KERNEL_CODE_PROPERTIES_OFFSET,
            &self.kernel_code_properties.to_le_bytes(),
        );
        put(KERNARG_PRELOAD_OFFSET, &self.kernarg_preload.to_le_bytes());
        b
    }

    /// Whether `ENABLE_WAVEFRONT_SIZE32` is set (meaningful on GFX10+ only).
    pub const fn wave32_bit(&self) -> bool {
        KERNEL_CODE_PROPERTY_ENABLE_WAVEFRONT_SIZE32.any(self.kernel_code_properties as u32)
    }

    /// Decodes every field for `family` and checks the whole descriptor:
    /// reserved and CP-owned bits zero, no bit the family lacks, user SGPR
    /// count, kernarg preload and `accum_offset` consistent.
    pub fn decode(&self, family: GpuFamily) -> Result<DecodedKernelDescriptor, KdError> {
        let wave32 = self.wave32_bit();
        let rsrc1 = decode_rsrc1(self.compute_pgm_rsrc1, family)?;
        let rsrc2 = decode_rsrc2(self.compute_pgm_rsrc2, family)?;
        let rsrc3 = decode_rsrc3(self.compute_pgm_rsrc3, family, wave32)?;
        let properties = decode_properties(self.kernel_code_properties, family)?;
        let kernarg_preload = decode_preload(self.kernarg_preload, family)?;

        let next_free_vgpr = (u16::from(rsrc1.granulated_workitem_vgpr_count) + 1)
            * family.vgpr_encoding_granule(wave32);
        // On GFX10+ the SGPR count field is reserved and the encoding holds
        // no SGPR count: like LLVM's disassembler on a clean descriptor, the
        // directive is one granule, whatever LLVM 19 left in the field.
        let sgpr_blocks = if family.is_gfx10_plus() {
            0
        } else {
            u16::from(rsrc1.granulated_wavefront_sgpr_count)
        };
        let next_free_sgpr = (sgpr_blocks + 1) * family.sgpr_encoding_granule();
        if let Rsrc3::Gfx90a { accum_offset, .. } = rsrc3 {
            let accum_offset = (u16::from(accum_offset) + 1) * 4;
            if accum_offset > next_free_vgpr {
                return Err(KdError::AccumOffsetPastVgprs {
                    accum_offset,
                    next_free_vgpr,
                });
            }
        }
        if let Rsrc3::Gfx10 { shared_vgpr_count }
        | Rsrc3::Gfx11 {
            shared_vgpr_count, ..
        } = rsrc3
        {
            let shared_vgprs = u16::from(shared_vgpr_count) * 8;
            if !wave32 && next_free_vgpr + shared_vgprs > 256 {
                return Err(KdError::SharedVgprsPastLimit {
                    next_free_vgpr,
                    shared_vgprs,
                });
            }
        }

        let required = properties.user_sgprs() + kernarg_preload.length;
        let max = family.max_user_sgprs();
        if kernarg_preload.length > max {
            return Err(KdError::KernargPreloadTooLong {
                length: kernarg_preload.length,
                max,
            });
        }
        if rsrc2.user_sgpr_count > max {
            return Err(KdError::UserSgprCountTooLarge {
                declared: rsrc2.user_sgpr_count,
                max,
            });
        }
        if rsrc2.user_sgpr_count < required {
            return Err(KdError::UserSgprCountTooSmall {
                declared: rsrc2.user_sgpr_count,
                required,
            });
        }
        if kernarg_preload.length != 0 {
            let end = (u32::from(kernarg_preload.offset) + u32::from(kernarg_preload.length)) * 4;
            if end > self.kernarg_size {
                return Err(KdError::KernargPreloadPastKernargs {
                    end,
                    kernarg_size: self.kernarg_size,
                });
            }
        }

        Ok(DecodedKernelDescriptor {
            raw: *self,
            family,
            wavefront_size: if wave32 { 32 } else { 64 },
            next_free_vgpr,
            next_free_sgpr,
            rsrc1,
            rsrc2,
            rsrc3,
            properties,
            kernarg_preload,
        })
    }
}

/// Single- or half/double-precision round mode (`FLOAT_ROUND_MODE_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum FloatRoundMode {
    /// `FLOAT_ROUND_MODE_NEAR_EVEN`.
    NearEven = 0,
    /// `FLOAT_ROUND_MODE_PLUS_INFINITY`.
    PlusInfinity = 1,
    /// `FLOAT_ROUND_MODE_MINUS_INFINITY`.
    MinusInfinity = 2,
    /// `FLOAT_ROUND_MODE_ZERO`.
    Zero = 3,
}

impl FloatRoundMode {
    fn from_bits(v: u32) -> Self {
        match v & 3 {
            0 => Self::NearEven,
            1 => Self::PlusInfinity,
            2 => Self::MinusInfinity,
            _ => Self::Zero,
        }
    }
}

/// Denormal handling (`FLOAT_DENORM_MODE_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum FloatDenormMode {
    /// `FLOAT_DENORM_MODE_FLUSH_SRC_DST`.
    FlushSrcDst = 0,
    /// `FLOAT_DENORM_MODE_FLUSH_DST`.
    FlushDst = 1,
    /// `FLOAT_DENORM_MODE_FLUSH_SRC`.
    FlushSrc = 2,
    /// `FLOAT_DENORM_MODE_FLUSH_NONE`.
    FlushNone = 3,
}

impl FloatDenormMode {
    fn from_bits(v: u32) -> Self {
        match v & 3 {
            0 => Self::FlushSrcDst,
            1 => Self::FlushDst,
            2 => Self::FlushSrc,
            _ => Self::FlushNone,
        }
    }
}

/// Which work-item ids the hardware loads into VGPRs (`SYSTEM_VGPR_WORKITEM_ID_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum WorkitemIdVgprs {
    /// X only.
    X = 0,
    /// X and Y.
    XY = 1,
    /// X, Y and Z.
    XYZ = 2,
}

/// `compute_pgm_rsrc1`, decoded. Fields a family lacks are `None`; fields
/// that must be zero (priority, priv, debug mode, bulky, cdbg user) are
/// checked, not stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Rsrc1 {
    /// `GRANULATED_WORKITEM_VGPR_COUNT`.
    pub granulated_workitem_vgpr_count: u8,
    /// `GRANULATED_WAVEFRONT_SGPR_COUNT`, as found. Reserved on GFX10+,
    /// where the hardware ignores it, but LLVM before 21 still sets it there
    /// (llvm-project#154666); it then does not count towards
    /// [`DecodedKernelDescriptor::next_free_sgpr`].
    pub granulated_wavefront_sgpr_count: u8,
    /// `FLOAT_ROUND_MODE_32`.
    pub float_round_mode_32: FloatRoundMode,
    /// `FLOAT_ROUND_MODE_16_64`.
    pub float_round_mode_16_64: FloatRoundMode,
    /// `FLOAT_DENORM_MODE_32`.
    pub float_denorm_mode_32: FloatDenormMode,
    /// `FLOAT_DENORM_MODE_16_64`.
    pub float_denorm_mode_16_64: FloatDenormMode,
    /// `ENABLE_DX10_CLAMP` (GFX6-GFX11).
    pub dx10_clamp: Option<bool>,
    /// `ENABLE_IEEE_MODE` (GFX6-GFX11).
    pub ieee_mode: Option<bool>,
    /// `FP16_OVFL` (GFX9+).
    pub fp16_overflow: Option<bool>,
    /// `WGP_MODE` (GFX10+).
    pub workgroup_processor_mode: Option<bool>,
    /// `MEM_ORDERED` (GFX10+).
    pub memory_ordered: Option<bool>,
    /// `FWD_PROGRESS` (GFX10+).
    pub forward_progress: Option<bool>,
    /// `ENABLE_WG_RR_EN` (GFX12+).
    pub round_robin_scheduling: Option<bool>,
}

/// `compute_pgm_rsrc2`, decoded. CP-owned fields (trap handler, address-watch
/// and memory exceptions, granulated LDS size) are checked to be zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Rsrc2 {
    /// `ENABLE_PRIVATE_SEGMENT` (the private segment wavefront offset SGPR
    /// before architected flat scratch).
    pub enable_private_segment: bool,
    /// `USER_SGPR_COUNT`.
    pub user_sgpr_count: u8,
    /// `ENABLE_SGPR_WORKGROUP_ID_X`.
    pub workgroup_id_x: bool,
    /// `ENABLE_SGPR_WORKGROUP_ID_Y`.
    pub workgroup_id_y: bool,
    /// `ENABLE_SGPR_WORKGROUP_ID_Z`.
    pub workgroup_id_z: bool,
    /// `ENABLE_SGPR_WORKGROUP_INFO`.
    pub workgroup_info: bool,
    /// `ENABLE_VGPR_WORKITEM_ID`.
    pub workitem_id: WorkitemIdVgprs,
    /// `ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION`.
    pub exception_fp_ieee_invalid_op: bool,
    /// `ENABLE_EXCEPTION_FP_DENORMAL_SOURCE`.
    pub exception_fp_denorm_src: bool,
    /// `ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO`.
    pub exception_fp_ieee_div_zero: bool,
    /// `ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW`.
    pub exception_fp_ieee_overflow: bool,
    /// `ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW`.
    pub exception_fp_ieee_underflow: bool,
    /// `ENABLE_EXCEPTION_IEEE_754_FP_INEXACT`.
    pub exception_fp_ieee_inexact: bool,
    /// `ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO`.
    pub exception_int_div_zero: bool,
}

/// `compute_pgm_rsrc3`, whose meaning depends on the family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Rsrc3 {
    /// GFX6-GFX9 (not gfx90a): the register does not exist and is zero.
    Absent,
    /// gfx90a, gfx94x.
    Gfx90a {
        /// `ACCUM_OFFSET`: first AccVGPR in units of 4, minus one.
        accum_offset: u8,
        /// `TG_SPLIT`.
        tg_split: bool,
    },
    /// GFX10.
    Gfx10 {
        /// `SHARED_VGPR_COUNT` (wave64 only).
        shared_vgpr_count: u8,
    },
    /// GFX11.
    Gfx11 {
        /// `SHARED_VGPR_COUNT` (wave64 only).
        shared_vgpr_count: u8,
        /// `INST_PREF_SIZE`.
        inst_pref_size: u8,
        /// `TRAP_ON_START`.
        trap_on_start: bool,
        /// `TRAP_ON_END`.
        trap_on_end: bool,
        /// `IMAGE_OP`.
        image_op: bool,
    },
    /// GFX12.
    Gfx12 {
        /// `INST_PREF_SIZE`.
        inst_pref_size: u8,
        /// `GLG_EN`.
        glg_en: bool,
        /// `IMAGE_OP`.
        image_op: bool,
    },
}

impl Rsrc3 {
    /// `.amdhsa_accum_offset` in VGPRs (gfx90a/gfx94x only).
    pub fn accum_offset(&self) -> Option<u16> {
        match *self {
            Self::Gfx90a { accum_offset, .. } => Some((u16::from(accum_offset) + 1) * 4),
            _ => None,
        }
    }
}

/// `kernel_code_properties`, decoded: the user SGPRs the CP loads, in this
/// order, and the wave size and dynamic-stack flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct KernelCodeProperties {
    /// `ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER` (4 SGPRs).
    pub private_segment_buffer: bool,
    /// `ENABLE_SGPR_DISPATCH_PTR` (2 SGPRs).
    pub dispatch_ptr: bool,
    /// `ENABLE_SGPR_QUEUE_PTR` (2 SGPRs).
    pub queue_ptr: bool,
    /// `ENABLE_SGPR_KERNARG_SEGMENT_PTR` (2 SGPRs).
    pub kernarg_segment_ptr: bool,
    /// `ENABLE_SGPR_DISPATCH_ID` (2 SGPRs).
    pub dispatch_id: bool,
    /// `ENABLE_SGPR_FLAT_SCRATCH_INIT` (2 SGPRs).
    pub flat_scratch_init: bool,
    /// `ENABLE_SGPR_PRIVATE_SEGMENT_SIZE` (1 SGPR).
    pub private_segment_size: bool,
    /// `ENABLE_WAVEFRONT_SIZE32`.
    pub wavefront_size32: bool,
    /// `USES_DYNAMIC_STACK`.
    pub uses_dynamic_stack: bool,
}

impl KernelCodeProperties {
    /// User SGPRs the enabled fields occupy.
    pub fn user_sgprs(&self) -> u8 {
        4 * u8::from(self.private_segment_buffer)
            + 2 * u8::from(self.dispatch_ptr)
            + 2 * u8::from(self.queue_ptr)
            + 2 * u8::from(self.kernarg_segment_ptr)
            + 2 * u8::from(self.dispatch_id)
            + 2 * u8::from(self.flat_scratch_init)
            + u8::from(self.private_segment_size)
    }
}

/// `kernarg_preload`: kernel arguments the CP loads into user SGPRs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct KernargPreload {
    /// `KERNARG_PRELOAD_SPEC_LENGTH`: dwords (SGPRs) preloaded.
    pub length: u8,
    /// `KERNARG_PRELOAD_SPEC_OFFSET`: first preloaded dword of the kernargs.
    pub offset: u16,
}

/// A checked kernel descriptor with every field decoded for its family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DecodedKernelDescriptor {
    /// The raw fields.
    pub raw: KernelDescriptor,
    /// The family it was decoded for.
    pub family: GpuFamily,
    /// 32 or 64.
    pub wavefront_size: u8,
    /// `.amdhsa_next_free_vgpr` as the encoding gives it back (a multiple of
    /// the VGPR granule; AccVGPRs included on gfx90a/gfx94x).
    pub next_free_vgpr: u16,
    /// `.amdhsa_next_free_sgpr` as the encoding gives it back (VCC, flat
    /// scratch and XNACK mask included). Always 8 on GFX10+, where the SGPR
    /// count field is reserved and the hardware allocates its full SGPR
    /// file: as `llvm-objdump` prints it, even when LLVM 19 left a value in
    /// the reserved field ([`Rsrc1::granulated_wavefront_sgpr_count`] keeps
    /// it; the metadata's `.sgpr_count` says what the kernel uses).
    pub next_free_sgpr: u16,
    /// `compute_pgm_rsrc1`.
    pub rsrc1: Rsrc1,
    /// `compute_pgm_rsrc2`.
    pub rsrc2: Rsrc2,
    /// `compute_pgm_rsrc3`.
    pub rsrc3: Rsrc3,
    /// `kernel_code_properties`.
    pub properties: KernelCodeProperties,
    /// `kernarg_preload`.
    pub kernarg_preload: KernargPreload,
}

fn bits_set(
    register: KdRegister,
    value: u32,
    field: BitField,
    why: &'static str,
) -> Result<(), KdError> {
    let mask = value & field.mask();
    if mask != 0 {
        return Err(KdError::BitsSet {
            register,
            mask,
            field: field.name,
            why,
        });
    }
    Ok(())
}

fn flag(value: u32, field: BitField) -> bool {
    field.any(value)
}

fn decode_rsrc1(v: u32, family: GpuFamily) -> Result<Rsrc1, KdError> {
    let r = KdRegister::ComputePgmRsrc1;
    // GRANULATED_WAVEFRONT_SGPR_COUNT is reserved on GFX10+ and the hardware
    // ignores it, but LLVM before 21 still fills it in (llvm-project#154666),
    // so real code objects carry it: accepted and kept in `Rsrc1`, but it
    // does not make `next_free_sgpr` (see `decode`).
    bits_set(
        r,
        v,
        COMPUTE_PGM_RSRC1_PRIORITY,
        "must be zero, the CP sets it",
    )?;
    bits_set(r, v, COMPUTE_PGM_RSRC1_PRIV, "must be zero, the CP sets it")?;
    bits_set(
        r,
        v,
        COMPUTE_PGM_RSRC1_DEBUG_MODE,
        "must be zero, the CP sets it",
    )?;
    if family.is_gfx12_plus() {
        bits_set(
            r,
            v,
            COMPUTE_PGM_RSRC1_GFX12_PLUS_DISABLE_PERF,
            "must be zero",
        )?;
    }
    bits_set(r, v, COMPUTE_PGM_RSRC1_BULKY, "must be zero")?;
    bits_set(r, v, COMPUTE_PGM_RSRC1_CDBG_USER, "must be zero")?;
    if !family.is_gfx9_plus() {
        bits_set(
            r,
            v,
            COMPUTE_PGM_RSRC1_GFX6_GFX8_RESERVED0,
            "must be zero pre-gfx9",
        )?;
    }
    bits_set(r, v, COMPUTE_PGM_RSRC1_RESERVED1, "reserved")?;
    if !family.is_gfx10_plus() {
        bits_set(
            r,
            v,
            COMPUTE_PGM_RSRC1_GFX6_GFX9_RESERVED2,
            "must be zero pre-gfx10",
        )?;
    }
    let pre12 = |f: BitField| (!family.is_gfx12_plus()).then(|| flag(v, f));
    let gfx10 = |f: BitField| family.is_gfx10_plus().then(|| flag(v, f));
    Ok(Rsrc1 {
        granulated_workitem_vgpr_count: COMPUTE_PGM_RSRC1_GRANULATED_WORKITEM_VGPR_COUNT.get(v)
            as u8,
        granulated_wavefront_sgpr_count: COMPUTE_PGM_RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT.get(v)
            as u8,
        float_round_mode_32: FloatRoundMode::from_bits(
            COMPUTE_PGM_RSRC1_FLOAT_ROUND_MODE_32.get(v),
        ),
        float_round_mode_16_64: FloatRoundMode::from_bits(
            COMPUTE_PGM_RSRC1_FLOAT_ROUND_MODE_16_64.get(v),
        ),
        float_denorm_mode_32: FloatDenormMode::from_bits(
            COMPUTE_PGM_RSRC1_FLOAT_DENORM_MODE_32.get(v),
        ),
        float_denorm_mode_16_64: FloatDenormMode::from_bits(
            COMPUTE_PGM_RSRC1_FLOAT_DENORM_MODE_16_64.get(v),
        ),
        dx10_clamp: pre12(COMPUTE_PGM_RSRC1_GFX6_GFX11_ENABLE_DX10_CLAMP),
        ieee_mode: pre12(COMPUTE_PGM_RSRC1_GFX6_GFX11_ENABLE_IEEE_MODE),
        fp16_overflow: family
            .is_gfx9_plus()
            .then(|| flag(v, COMPUTE_PGM_RSRC1_GFX9_PLUS_FP16_OVFL)),
        workgroup_processor_mode: gfx10(COMPUTE_PGM_RSRC1_GFX10_PLUS_WGP_MODE),
        memory_ordered: gfx10(COMPUTE_PGM_RSRC1_GFX10_PLUS_MEM_ORDERED),
        forward_progress: gfx10(COMPUTE_PGM_RSRC1_GFX10_PLUS_FWD_PROGRESS),
        round_robin_scheduling: family
            .is_gfx12_plus()
            .then(|| flag(v, COMPUTE_PGM_RSRC1_GFX12_PLUS_ENABLE_WG_RR_EN)),
    })
}

fn decode_rsrc2(v: u32, family: GpuFamily) -> Result<Rsrc2, KdError> {
    let r = KdRegister::ComputePgmRsrc2;
    if family.is_gfx12_plus() {
        bits_set(
            r,
            v,
            COMPUTE_PGM_RSRC2_GFX12_PLUS_RESERVED1,
            "reserved on gfx12",
        )?;
    } else {
        bits_set(
            r,
            v,
            COMPUTE_PGM_RSRC2_GFX6_GFX11_ENABLE_TRAP_HANDLER,
            "must be zero, the CP sets it",
        )?;
    }
    bits_set(
        r,
        v,
        COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_ADDRESS_WATCH,
        "must be zero, the CP sets it",
    )?;
    bits_set(
        r,
        v,
        COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_MEMORY,
        "must be zero, the CP sets it",
    )?;
    bits_set(
        r,
        v,
        COMPUTE_PGM_RSRC2_GRANULATED_LDS_SIZE,
        "must be zero, the CP sets it",
    )?;
    bits_set(r, v, COMPUTE_PGM_RSRC2_RESERVED0, "reserved")?;
    let workitem_id = match COMPUTE_PGM_RSRC2_ENABLE_VGPR_WORKITEM_ID.get(v) {
        0 => WorkitemIdVgprs::X,
        1 => WorkitemIdVgprs::XY,
        2 => WorkitemIdVgprs::XYZ,
        _ => return Err(KdError::WorkitemIdUndefined),
    };
    Ok(Rsrc2 {
        enable_private_segment: flag(v, COMPUTE_PGM_RSRC2_ENABLE_PRIVATE_SEGMENT),
        user_sgpr_count: COMPUTE_PGM_RSRC2_USER_SGPR_COUNT.get(v) as u8,
        workgroup_id_x: flag(v, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_X),
        workgroup_id_y: flag(v, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Y),
        workgroup_id_z: flag(v, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Z),
        workgroup_info: flag(v, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_INFO),
        workitem_id,
        exception_fp_ieee_invalid_op: flag(
            v,
            COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION,
        ),
        exception_fp_denorm_src: flag(v, COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_FP_DENORMAL_SOURCE),
        exception_fp_ieee_div_zero: flag(
            v,
            COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO,
        ),
        exception_fp_ieee_overflow: flag(
            v,
            COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW,
        ),
        exception_fp_ieee_underflow: flag(
            v,
            COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW,
        ),
        exception_fp_ieee_inexact: flag(v, COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_IEEE_754_FP_INEXACT),
        exception_int_div_zero: flag(v, COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO),
    })
}

fn decode_rsrc3(v: u32, family: GpuFamily, wave32: bool) -> Result<Rsrc3, KdError> {
    let r = KdRegister::ComputePgmRsrc3;
    if family.has_gfx90a_insts() {
        bits_set(
            r,
            v,
            COMPUTE_PGM_RSRC3_GFX90A_RESERVED0,
            "must be zero on gfx90a",
        )?;
        bits_set(
            r,
            v,
            COMPUTE_PGM_RSRC3_GFX90A_RESERVED1,
            "must be zero on gfx90a",
        )?;
        return Ok(Rsrc3::Gfx90a {
            accum_offset: COMPUTE_PGM_RSRC3_GFX90A_ACCUM_OFFSET.get(v) as u8,
            tg_split: flag(v, COMPUTE_PGM_RSRC3_GFX90A_TG_SPLIT),
        });
    }
    if !family.is_gfx10_plus() {
        if v != 0 {
            return Err(KdError::BitsSet {
                register: r,
                mask: v,
                field: "COMPUTE_PGM_RSRC3",
                why: "must be all zero before gfx90a and gfx10",
            });
        }
        return Ok(Rsrc3::Absent);
    }
    bits_set(
        r,
        v,
        COMPUTE_PGM_RSRC3_GFX10_PLUS_RESERVED2,
        "must be zero on gfx10+",
    )?;
    bits_set(
        r,
        v,
        COMPUTE_PGM_RSRC3_GFX10_PLUS_RESERVED4,
        "must be zero on gfx10+",
    )?;
    let shared_vgpr_count = COMPUTE_PGM_RSRC3_GFX10_GFX11_SHARED_VGPR_COUNT.get(v) as u8;
    // Shared VGPRs are a wave64 feature: AMDGPUUsage "SHARED_VGPR_COUNT ... wave64 only".
    if wave32 && !family.is_gfx12_plus() && shared_vgpr_count != 0 {
        bits_set(
            r,
            v,
            COMPUTE_PGM_RSRC3_GFX10_GFX11_SHARED_VGPR_COUNT,
            "shared VGPRs need wave64",
        )?;
    }
    match family {
        GpuFamily::Gfx10 => {
            bits_set(
                r,
                v,
                COMPUTE_PGM_RSRC3_GFX10_RESERVED1,
                "must be zero on gfx10",
            )?;
            bits_set(
                r,
                v,
                COMPUTE_PGM_RSRC3_GFX10_GFX11_RESERVED3,
                "must be zero on gfx10 or gfx11",
            )?;
            bits_set(
                r,
                v,
                COMPUTE_PGM_RSRC3_GFX10_RESERVED5,
                "must be zero on gfx10",
            )?;
            Ok(Rsrc3::Gfx10 { shared_vgpr_count })
        }
        GpuFamily::Gfx11 => {
            bits_set(
                r,
                v,
                COMPUTE_PGM_RSRC3_GFX10_GFX11_RESERVED3,
                "must be zero on gfx10 or gfx11",
            )?;
            Ok(Rsrc3::Gfx11 {
                shared_vgpr_count,
                inst_pref_size: COMPUTE_PGM_RSRC3_GFX11_INST_PREF_SIZE.get(v) as u8,
                trap_on_start: flag(v, COMPUTE_PGM_RSRC3_GFX11_TRAP_ON_START),
                trap_on_end: flag(v, COMPUTE_PGM_RSRC3_GFX11_TRAP_ON_END),
                image_op: flag(v, COMPUTE_PGM_RSRC3_GFX11_PLUS_IMAGE_OP),
            })
        }
        _ => {
            bits_set(
                r,
                v,
                COMPUTE_PGM_RSRC3_GFX12_PLUS_RESERVED0,
                "must be zero on gfx12+",
            )?;
            Ok(Rsrc3::Gfx12 {
                inst_pref_size: COMPUTE_PGM_RSRC3_GFX12_PLUS_INST_PREF_SIZE.get(v) as u8,
                glg_en: flag(v, COMPUTE_PGM_RSRC3_GFX12_PLUS_GLG_EN),
                image_op: flag(v, COMPUTE_PGM_RSRC3_GFX11_PLUS_IMAGE_OP),
            })
        }
    }
}

fn decode_properties(v16: u16, family: GpuFamily) -> Result<KernelCodeProperties, KdError> {
    let v = u32::from(v16);
    let r = KdRegister::KernelCodeProperties;
    bits_set(r, v, KERNEL_CODE_PROPERTY_RESERVED0, "reserved")?;
    bits_set(r, v, KERNEL_CODE_PROPERTY_RESERVED1, "reserved")?;
    if !family.supports_wave32() {
        bits_set(
            r,
            v,
            KERNEL_CODE_PROPERTY_ENABLE_WAVEFRONT_SIZE32,
            "wave32 needs gfx10+",
        )?;
    }
    if family.has_architected_flat_scratch() {
        let why = "not supported with architected flat scratch";
        bits_set(
            r,
            v,
            KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER,
            why,
        )?;
        bits_set(
            r,
            v,
            KERNEL_CODE_PROPERTY_ENABLE_SGPR_FLAT_SCRATCH_INIT,
            why,
        )?;
    }
    Ok(KernelCodeProperties {
        private_segment_buffer: flag(v, KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER),
        dispatch_ptr: flag(v, KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_PTR),
        queue_ptr: flag(v, KERNEL_CODE_PROPERTY_ENABLE_SGPR_QUEUE_PTR),
        kernarg_segment_ptr: flag(v, KERNEL_CODE_PROPERTY_ENABLE_SGPR_KERNARG_SEGMENT_PTR),
        dispatch_id: flag(v, KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_ID),
        flat_scratch_init: flag(v, KERNEL_CODE_PROPERTY_ENABLE_SGPR_FLAT_SCRATCH_INIT),
        private_segment_size: flag(v, KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_SIZE),
        wavefront_size32: flag(v, KERNEL_CODE_PROPERTY_ENABLE_WAVEFRONT_SIZE32),
        uses_dynamic_stack: flag(v, KERNEL_CODE_PROPERTY_USES_DYNAMIC_STACK),
    })
}

fn decode_preload(v16: u16, family: GpuFamily) -> Result<KernargPreload, KdError> {
    let v = u32::from(v16);
    if v != 0 && !family.has_kernarg_preload() {
        return Err(KdError::KernargPreloadUnsupported { family });
    }
    Ok(KernargPreload {
        length: KERNARG_PRELOAD_SPEC_LENGTH.get(v) as u8,
        offset: KERNARG_PRELOAD_SPEC_OFFSET.get(v) as u16,
    })
}

/// A kernel descriptor found in a code object file: its `<name>.kd`
/// symbol and the 64 bytes the file holds for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileKernelDescriptor<'a> {
    /// The kernel name (the symbol without `.kd`).
    pub name: &'a str,
    /// `st_value`: the descriptor's virtual address (in a relocatable
    /// object, its offset in its section).
    pub vaddr: u64,
    /// The descriptor's fields (reserved bytes checked).
    pub descriptor: KernelDescriptor,
}

/// The kernel descriptors of a code object, straight from the file (no
/// loading): every defined `STT_OBJECT` symbol named `<kernel>.kd` in
/// `.dynsym` (or `.symtab` when there is no `.dynsym`), which must have size
/// 64, be 64-byte aligned and lie in the file part of a `PT_LOAD` segment
/// (in a relocatable object, `ET_REL`: inside its section, `vaddr` being
/// then the offset in that section).
/// Yields an error once, then stops.
pub fn descriptors<'a>(elf: &crate::elf::ElfFile<'a>) -> FileKernelDescriptors<'a> {
    let table = match elf.dynamic_symbols() {
        Ok(Some(t)) => Ok(Some(t)),
        Ok(None) => elf.symbols(),
        Err(e) => Err(e),
    };
    FileKernelDescriptors {
        elf: *elf,
        table,
        next: 0,
    }
}

/// Iterator returned by [`descriptors`].
#[derive(Clone, Debug)]
pub struct FileKernelDescriptors<'a> {
    elf: crate::elf::ElfFile<'a>,
    table: crate::Result<Option<crate::elf::SymbolTable<'a>>>,
    next: usize,
}

impl<'a> FileKernelDescriptors<'a> {
    fn read(
        &self,
        sym: &crate::elf::Symbol<'a>,
        name: &'a str,
    ) -> crate::Result<FileKernelDescriptor<'a>> {
        use crate::error::{Error, Location, index};
        let at = Location::Item("symbol", index(sym.index()));
        let e = sym.entry();
        if e.st_size != KERNEL_DESCRIPTOR_SIZE as u64 {
            return Err(Error::malformed(
                "kernel descriptor symbol size is not 64",
                at,
            ));
        }
        if e.st_value % KERNEL_DESCRIPTOR_ALIGN != 0 {
            return Err(Error::malformed(
                "kernel descriptor is not 64-byte aligned",
                at,
            ));
        }
        for seg in self
            .elf
            .segments()
            .filter(|s| s.p_type() == crate::elf::PT_LOAD)
        {
            let h = seg.header();
            let Some(in_seg) = e.st_value.checked_sub(h.p_vaddr) else {
                continue;
            };
            if in_seg >= h.p_memsz {
                continue;
            }
            let bytes = crate::bytes::slice(seg.data()?, in_seg, KERNEL_DESCRIPTOR_SIZE as u64)
                .ok_or(Error::out_of_bounds(
                    "kernel descriptor is not backed by file bytes of its segment",
                    at,
                ))?;
            let descriptor = KernelDescriptor::parse(bytes)
                .map_err(|_| Error::malformed("kernel descriptor reserved bytes are set", at))?;
            return Ok(FileKernelDescriptor {
                name,
                vaddr: e.st_value,
                descriptor,
            });
        }
        // A relocatable object (what the assembler writes) has no segments:
        // the symbol's section holds the bytes, at `st_value` from its start.
        if self.elf.header().e_type == crate::elf::ET_REL {
            let sec = self.elf.section(usize::from(e.st_shndx)).map_err(|_| {
                Error::out_of_bounds("kernel descriptor symbol's section does not exist", at)
            })?;
            let bytes =
                crate::bytes::slice(sec.data()?, e.st_value, KERNEL_DESCRIPTOR_SIZE as u64).ok_or(
                    Error::out_of_bounds("kernel descriptor runs past the end of its section", at),
                )?;
            let descriptor = KernelDescriptor::parse(bytes)
                .map_err(|_| Error::malformed("kernel descriptor reserved bytes are set", at))?;
            return Ok(FileKernelDescriptor {
                name,
                vaddr: e.st_value,
                descriptor,
            });
        }
        Err(Error::out_of_bounds(
            "kernel descriptor lies outside every PT_LOAD segment",
            at,
        ))
    }
}

impl<'a> Iterator for FileKernelDescriptors<'a> {
    type Item = crate::Result<FileKernelDescriptor<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        let table = match &self.table {
            Ok(Some(t)) => *t,
            Ok(None) => return None,
            Err(e) => {
                let e = *e;
                self.table = Ok(None);
                return Some(Err(e));
            }
        };
        while self.next < table.len() {
            let i = self.next;
            self.next += 1;
            let sym = match table.get(i) {
                Ok(s) => s,
                Err(e) => {
                    self.next = table.len();
                    return Some(Err(e));
                }
            };
            if sym.kind() != crate::elf::STT_OBJECT || sym.is_undefined() {
                continue;
            }
            let Some(name) = sym.name_str().ok().and_then(|n| n.strip_suffix(".kd")) else {
                continue;
            };
            let r = self.read(&sym, name);
            if r.is_err() {
                self.next = table.len();
            }
            return Some(r);
        }
        None
    }
}
