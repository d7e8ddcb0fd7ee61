//! AMDGPU processors: the `EF_AMDGPU_MACH_*` table and the `e_flags` layout
//! of each code-object version.
//!
//! The machine numbers, names and `gfx_target_version` values are LLVM's
//! (`llvm/include/llvm/BinaryFormat/ELF.h`, `EF_AMDGPU_MACH_*`, and the
//! "AMDGPU Processors" / "AMDGPU Generic Processors" tables of
//! `llvm/docs/AMDGPUUsage.rst`); which processors support xnack and sramecc
//! and which generic family each belongs to follows the same tables and
//! ROCr's ISA registry (`runtime/hsa-runtime/core/runtime/isa.cpp`).
//!
//! ```
//! use loader_core::elf::CodeObjectVersion;
//! use loader_core::processor::{EFlags, FeatureSetting};
//! // gfx90a, xnack on (0x300), sramecc any (0x400): a v5 code object.
//! let f = EFlags::decode(0x3f | 0x300 | 0x400, CodeObjectVersion::V5)?;
//! assert_eq!(f.processor.unwrap().name, "gfx90a");
//! assert_eq!((f.xnack, f.sramecc), (FeatureSetting::On, FeatureSetting::Any));
//! // The same bits mean something else in v3, where 0x400 is reserved.
//! assert!(EFlags::decode(0x3f | 0x300 | 0x400, CodeObjectVersion::V3).is_err());
//! # Ok::<(), loader_core::Error>(())
//! ```

use core::fmt;

/// `EF_AMDGPU_MACH`: the processor field of `e_flags` (all versions).
pub const EF_AMDGPU_MACH: u32 = 0x0ff;
/// `EF_AMDGPU_FEATURE_XNACK_V2`: xnack enabled (code object v2).
pub const EF_AMDGPU_FEATURE_XNACK_V2: u32 = 0x01;
/// `EF_AMDGPU_FEATURE_TRAP_HANDLER_V2`: trap handler enabled (code object v2).
pub const EF_AMDGPU_FEATURE_TRAP_HANDLER_V2: u32 = 0x02;
/// `EF_AMDGPU_FEATURE_XNACK_V3`: xnack enabled (code object v3).
pub const EF_AMDGPU_FEATURE_XNACK_V3: u32 = 0x100;
/// `EF_AMDGPU_FEATURE_SRAMECC_V3`: sramecc enabled (code object v3).
pub const EF_AMDGPU_FEATURE_SRAMECC_V3: u32 = 0x200;
/// `EF_AMDGPU_FEATURE_XNACK_V4`: the xnack selector mask (code object v4+).
pub const EF_AMDGPU_FEATURE_XNACK_V4: u32 = 0x300;
/// `EF_AMDGPU_FEATURE_SRAMECC_V4`: the sramecc selector mask (code object v4+).
pub const EF_AMDGPU_FEATURE_SRAMECC_V4: u32 = 0xc00;
/// `EF_AMDGPU_GENERIC_VERSION`: the generic-target version (code object v6+).
pub const EF_AMDGPU_GENERIC_VERSION: u32 = 0xff00_0000;
/// `EF_AMDGPU_GENERIC_VERSION_OFFSET`.
pub const EF_AMDGPU_GENERIC_VERSION_OFFSET: u32 = 24;

/// A family of processors that one generic code object serves
/// (AMDGPUUsage "AMDGPU Generic Processors").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum GenericFamily {
    /// `gfx9-generic`: gfx900, gfx902, gfx904, gfx906, gfx909, gfx90c.
    Gfx9,
    /// `gfx9-4-generic`: gfx940, gfx941, gfx942, gfx950.
    Gfx9_4,
    /// `gfx10-1-generic`: gfx1010 to gfx1013.
    Gfx10_1,
    /// `gfx10-3-generic`: gfx1030 to gfx1036.
    Gfx10_3,
    /// `gfx11-generic`: gfx1100 to gfx1103, gfx1150 to gfx1154.
    Gfx11,
    /// `gfx11-7-generic`: gfx1170 to gfx1172.
    Gfx11_7,
    /// `gfx12-generic`: gfx1200, gfx1201.
    Gfx12,
    /// `gfx12-5-generic`: gfx1250, gfx1251.
    Gfx12_5,
    /// `gfx13-generic`: gfx1310.
    Gfx13,
}

impl GenericFamily {
    /// The generic processor of this family.
    pub fn processor(self) -> &'static Processor {
        let mach = match self {
            Self::Gfx9 => 0x51,
            Self::Gfx9_4 => 0x5f,
            Self::Gfx10_1 => 0x52,
            Self::Gfx10_3 => 0x53,
            Self::Gfx11 => 0x54,
            Self::Gfx11_7 => 0x62,
            Self::Gfx12 => 0x59,
            Self::Gfx12_5 => 0x5b,
            Self::Gfx13 => 0x63,
        };
        // Every family's generic mach is in the table (checked by a test).
        match Processor::from_mach(mach) {
            Some(p) => p,
            None => &PROCESSORS[0],
        }
    }

    /// The lowest generic version of this family that ROCr accepts
    /// (`IsaRegistry::GetSupportedGenericVersions`: 1 for every family).
    pub const fn min_generic_version(self) -> u8 {
        1
    }
}

/// One AMDGPU processor (`-mcpu`), real or generic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Processor {
    /// `EF_AMDGPU_MACH_*` value.
    pub mach: u8,
    /// LLVM's processor name (`gfx90a`, `gfx11-generic`, `r600`, ...).
    pub name: &'static str,
    /// `gfx_target_version` as KFD reports it (major*10000 + minor*100 +
    /// stepping, e.g. 90010 for gfx90a); 0 for generic and R600 processors.
    pub gfx_target_version: u32,
    /// Whether the processor has the xnack target feature.
    pub xnack_supported: bool,
    /// Whether its xnack can be fixed on or off (`xnack+`/`xnack-`); LLVM's
    /// `FEATURE_XNACK_ON_OFF_MODES`. gfx12.5 has xnack but only as `any`
    /// (always on in the hardware): LLVM rejects `gfx1250:xnack+`.
    pub xnack_on_off: bool,
    /// Whether the processor has the sramecc target feature.
    pub sramecc_supported: bool,
    /// For a generic processor, `None`; for a real one, the generic family it
    /// belongs to, if any.
    pub generic_family: Option<GenericFamily>,
    /// For a generic processor, its family.
    pub is_generic_of: Option<GenericFamily>,
}

impl Processor {
    /// Looks a processor up by its `EF_AMDGPU_MACH_*` value.
    pub fn from_mach(mach: u8) -> Option<&'static Processor> {
        PROCESSORS.iter().find(|p| p.mach == mach)
    }

    /// Looks a processor up by its LLVM name (`gfx90a`, `gfx9-4-generic`).
    pub fn from_name(name: &str) -> Option<&'static Processor> {
        PROCESSORS.iter().find(|p| p.name == name)
    }

    /// Looks a processor up by its `gfx_target_version` (as in the KFD
    /// topology's `gfx_target_version`); generic processors are never found.
    pub fn from_gfx_target_version(v: u32) -> Option<&'static Processor> {
        if v == 0 {
            return None;
        }
        PROCESSORS.iter().find(|p| p.gfx_target_version == v)
    }

    /// The processor of a v2 `NT_AMD_HSA_ISA_VERSION` note (major, minor,
    /// stepping: 9, 0, 6 for gfx906).
    pub fn from_isa_version(major: u32, minor: u32, stepping: u32) -> Option<&'static Processor> {
        if minor > 99 || stepping > 99 {
            return None;
        }
        let v = major
            .checked_mul(10000)?
            .checked_add(minor * 100 + stepping)?;
        Self::from_gfx_target_version(v)
    }

    /// Whether this is a generic processor (`gfx*-generic`).
    pub const fn is_generic(&self) -> bool {
        self.is_generic_of.is_some()
    }

    /// Whether this is an R600-family processor (not amdgcn).
    pub const fn is_r600(&self) -> bool {
        self.mach < 0x20
    }

    /// Major, minor and stepping of the ISA version, when it has one.
    pub const fn isa_version(&self) -> Option<(u32, u32, u32)> {
        let v = self.gfx_target_version;
        if v == 0 {
            return None;
        }
        Some((v / 10000, (v / 100) % 100, v % 100))
    }

    /// Every processor this crate knows, in `EF_AMDGPU_MACH` order.
    pub fn all() -> &'static [Processor] {
        PROCESSORS
    }
}

impl fmt::Display for Processor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// How a processor's xnack feature may be set (AMDGPUUsage "Target
/// Features"; LLVM's `FEATURE_XNACK` and `FEATURE_XNACK_ON_OFF_MODES`).
#[derive(Clone, Copy)]
enum Xnack {
    /// No xnack feature.
    No,
    /// xnack any, on or off.
    OnOff,
    /// xnack present but only `any` (gfx12.5).
    AnyOnly,
}

use Xnack::{AnyOnly, No as NoXnack, OnOff};

const fn p(
    mach: u8,
    name: &'static str,
    gfx_target_version: u32,
    xnack: Xnack,
    sramecc: bool,
    family: Option<GenericFamily>,
) -> Processor {
    Processor {
        mach,
        name,
        gfx_target_version,
        xnack_supported: !matches!(xnack, Xnack::No),
        xnack_on_off: matches!(xnack, Xnack::OnOff),
        sramecc_supported: sramecc,
        generic_family: family,
        is_generic_of: None,
    }
}

const fn g(
    mach: u8,
    name: &'static str,
    xnack: Xnack,
    sramecc: bool,
    family: GenericFamily,
) -> Processor {
    Processor {
        mach,
        name,
        gfx_target_version: 0,
        xnack_supported: !matches!(xnack, Xnack::No),
        xnack_on_off: matches!(xnack, Xnack::OnOff),
        sramecc_supported: sramecc,
        generic_family: None,
        is_generic_of: Some(family),
    }
}

use GenericFamily as F;

/// `EF_AMDGPU_MACH_*` as LLVM main has them (`ELF.h`; features from
/// `AMDGPUTargetParser.def`), checked against a copy of LLVM's table in
/// `tests/data/llvm-amdgpu-processors.txt` by `tests/processor_table.rs`.
/// gfx940 (0x40) and gfx941 (0x4b) are kept because LLVM 19 still emits
/// them; LLVM main has since marked both values reserved.
static PROCESSORS: &[Processor] = &[
    p(0x01, "r600", 0, NoXnack, false, None),
    p(0x02, "r630", 0, NoXnack, false, None),
    p(0x03, "rs880", 0, NoXnack, false, None),
    p(0x04, "rv670", 0, NoXnack, false, None),
    p(0x05, "rv710", 0, NoXnack, false, None),
    p(0x06, "rv730", 0, NoXnack, false, None),
    p(0x07, "rv770", 0, NoXnack, false, None),
    p(0x08, "cedar", 0, NoXnack, false, None),
    p(0x09, "cypress", 0, NoXnack, false, None),
    p(0x0a, "juniper", 0, NoXnack, false, None),
    p(0x0b, "redwood", 0, NoXnack, false, None),
    p(0x0c, "sumo", 0, NoXnack, false, None),
    p(0x0d, "barts", 0, NoXnack, false, None),
    p(0x0e, "caicos", 0, NoXnack, false, None),
    p(0x0f, "cayman", 0, NoXnack, false, None),
    p(0x10, "turks", 0, NoXnack, false, None),
    p(0x20, "gfx600", 60000, NoXnack, false, None),
    p(0x21, "gfx601", 60001, NoXnack, false, None),
    p(0x22, "gfx700", 70000, NoXnack, false, None),
    p(0x23, "gfx701", 70001, NoXnack, false, None),
    p(0x24, "gfx702", 70002, NoXnack, false, None),
    p(0x25, "gfx703", 70003, NoXnack, false, None),
    p(0x26, "gfx704", 70004, NoXnack, false, None),
    p(0x28, "gfx801", 80001, OnOff, false, None),
    p(0x29, "gfx802", 80002, NoXnack, false, None),
    p(0x2a, "gfx803", 80003, NoXnack, false, None),
    p(0x2b, "gfx810", 80100, OnOff, false, None),
    p(0x2c, "gfx900", 90000, OnOff, false, Some(F::Gfx9)),
    p(0x2d, "gfx902", 90002, OnOff, false, Some(F::Gfx9)),
    p(0x2e, "gfx904", 90004, OnOff, false, Some(F::Gfx9)),
    p(0x2f, "gfx906", 90006, OnOff, true, Some(F::Gfx9)),
    p(0x30, "gfx908", 90008, OnOff, true, None),
    p(0x31, "gfx909", 90009, OnOff, false, Some(F::Gfx9)),
    p(0x32, "gfx90c", 90012, OnOff, false, Some(F::Gfx9)),
    p(0x33, "gfx1010", 100100, OnOff, false, Some(F::Gfx10_1)),
    p(0x34, "gfx1011", 100101, OnOff, false, Some(F::Gfx10_1)),
    p(0x35, "gfx1012", 100102, OnOff, false, Some(F::Gfx10_1)),
    p(0x36, "gfx1030", 100300, NoXnack, false, Some(F::Gfx10_3)),
    p(0x37, "gfx1031", 100301, NoXnack, false, Some(F::Gfx10_3)),
    p(0x38, "gfx1032", 100302, NoXnack, false, Some(F::Gfx10_3)),
    p(0x39, "gfx1033", 100303, NoXnack, false, Some(F::Gfx10_3)),
    p(0x3a, "gfx602", 60002, NoXnack, false, None),
    p(0x3b, "gfx705", 70005, NoXnack, false, None),
    p(0x3c, "gfx805", 80005, NoXnack, false, None),
    p(0x3d, "gfx1035", 100305, NoXnack, false, Some(F::Gfx10_3)),
    p(0x3e, "gfx1034", 100304, NoXnack, false, Some(F::Gfx10_3)),
    p(0x3f, "gfx90a", 90010, OnOff, true, None),
    p(0x40, "gfx940", 90400, OnOff, true, Some(F::Gfx9_4)),
    p(0x41, "gfx1100", 110000, NoXnack, false, Some(F::Gfx11)),
    p(0x42, "gfx1013", 100103, OnOff, false, Some(F::Gfx10_1)),
    p(0x43, "gfx1150", 110500, NoXnack, false, Some(F::Gfx11)),
    p(0x44, "gfx1103", 110003, NoXnack, false, Some(F::Gfx11)),
    p(0x45, "gfx1036", 100306, NoXnack, false, Some(F::Gfx10_3)),
    p(0x46, "gfx1101", 110001, NoXnack, false, Some(F::Gfx11)),
    p(0x47, "gfx1102", 110002, NoXnack, false, Some(F::Gfx11)),
    p(0x48, "gfx1200", 120000, NoXnack, false, Some(F::Gfx12)),
    p(0x49, "gfx1250", 120500, AnyOnly, true, Some(F::Gfx12_5)),
    p(0x4a, "gfx1151", 110501, NoXnack, false, Some(F::Gfx11)),
    p(0x4b, "gfx941", 90401, OnOff, true, Some(F::Gfx9_4)),
    p(0x4c, "gfx942", 90402, OnOff, true, Some(F::Gfx9_4)),
    p(0x4e, "gfx1201", 120001, NoXnack, false, Some(F::Gfx12)),
    p(0x4f, "gfx950", 90500, OnOff, true, Some(F::Gfx9_4)),
    p(0x50, "gfx1310", 130100, NoXnack, false, Some(F::Gfx13)),
    g(0x51, "gfx9-generic", OnOff, false, F::Gfx9),
    g(0x52, "gfx10-1-generic", OnOff, false, F::Gfx10_1),
    g(0x53, "gfx10-3-generic", NoXnack, false, F::Gfx10_3),
    g(0x54, "gfx11-generic", NoXnack, false, F::Gfx11),
    p(0x55, "gfx1152", 110502, NoXnack, false, Some(F::Gfx11)),
    p(0x57, "gfx1154", 110504, NoXnack, false, Some(F::Gfx11)),
    p(0x58, "gfx1153", 110503, NoXnack, false, Some(F::Gfx11)),
    g(0x59, "gfx12-generic", NoXnack, false, F::Gfx12),
    p(0x5a, "gfx1251", 120501, AnyOnly, true, Some(F::Gfx12_5)),
    g(0x5b, "gfx12-5-generic", AnyOnly, false, F::Gfx12_5),
    p(0x5c, "gfx1172", 110702, NoXnack, false, Some(F::Gfx11_7)),
    p(0x5d, "gfx1170", 110700, NoXnack, false, Some(F::Gfx11_7)),
    p(0x5e, "gfx1171", 110701, NoXnack, false, Some(F::Gfx11_7)),
    g(0x5f, "gfx9-4-generic", OnOff, true, F::Gfx9_4),
    g(0x62, "gfx11-7-generic", NoXnack, false, F::Gfx11_7),
    g(0x63, "gfx13-generic", NoXnack, false, F::Gfx13),
];

/// The xnack or sramecc setting of a code object or an agent (AMDGPUUsage
/// "Target Features").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FeatureSetting {
    /// The processor does not have the feature.
    Unsupported,
    /// Code that runs with the feature either on or off.
    Any,
    /// Feature off (`xnack-`).
    Off,
    /// Feature on (`xnack+`).
    On,
}

impl FeatureSetting {
    /// Decodes a v4+ two-bit selector (`EF_AMDGPU_FEATURE_*_V4 >> shift`).
    const fn from_v4_bits(bits: u32) -> Self {
        match bits & 3 {
            0 => Self::Unsupported,
            1 => Self::Any,
            2 => Self::Off,
            _ => Self::On,
        }
    }

    /// The suffix of a target ID (`+`, `-`), or `None` for any/unsupported.
    pub const fn suffix(self) -> Option<char> {
        match self {
            Self::On => Some('+'),
            Self::Off => Some('-'),
            _ => None,
        }
    }
}

/// `e_flags` of an AMDGPU code object, decoded for its code-object version
/// (AMDGPUUsage "ELF Header", table "AMDGPU ELF Header `e_flags`").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EFlags {
    /// The raw value.
    pub raw: u32,
    /// The processor (`EF_AMDGPU_MACH`), `None` for `EF_AMDGPU_MACH_NONE`.
    pub processor: Option<&'static Processor>,
    /// xnack setting. In v2 and v3 one bit says on or (when the processor has
    /// xnack) off; v4+ has four states.
    pub xnack: FeatureSetting,
    /// sramecc setting (v2/v3: one bit; v4+: four states; finalizer v2:
    /// unsupported).
    pub sramecc: FeatureSetting,
    /// `EF_AMDGPU_FEATURE_TRAP_HANDLER_V2` (finalizer-layout v2 only).
    pub trap_handler: bool,
    /// `EF_AMDGPU_GENERIC_VERSION` (v6+, generic processors; 0 otherwise).
    pub generic_version: u8,
}

impl EFlags {
    /// Decodes `raw` for code-object `version` (2 to 6; v6 adds the
    /// generic version). Unknown machine values and set reserved bits are
    /// errors, so a code object from a future LLVM is rejected rather than
    /// misread.
    ///
    /// Code object v2 comes in two layouts. LLVM writes v2 `e_flags` exactly
    /// as v3 (`getEFlagsV3` serves both, and llvm-readelf decodes ABI
    /// version 0 that way): processor in the low byte, xnack 0x100, sramecc
    /// 0x200. The HSAIL finalizer's layout (`EF_AMDGPU_FEATURE_XNACK_V2` =
    /// 0x01, `EF_AMDGPU_FEATURE_TRAP_HANDLER_V2` = 0x02 in ROCr's
    /// `amd_hsa_elf.h`) has no processor field; the processor is then in the
    /// `NT_AMD_HSA_ISA_VERSION` note (see
    /// [`Processor::from_isa_version`]). The two cannot collide for HSA:
    /// low-byte values 1 to 3 would be R600 processors, which have no HSA
    /// code objects, so they are read as finalizer flags and `processor` is
    /// `None`.
    pub fn decode(raw: u32, version: crate::elf::CodeObjectVersion) -> crate::Result<Self> {
        use crate::elf::CodeObjectVersion as V;
        use crate::{Error, Location};
        let at = Location::Field("e_flags");
        let mach = (raw & EF_AMDGPU_MACH) as u8;
        if version == V::V2 && mach <= 3 {
            let known = EF_AMDGPU_FEATURE_XNACK_V2 | EF_AMDGPU_FEATURE_TRAP_HANDLER_V2;
            if raw & !known != 0 {
                return Err(Error::malformed("reserved e_flags bits are set", at));
            }
            let xnack = if raw & EF_AMDGPU_FEATURE_XNACK_V2 != 0 {
                FeatureSetting::On
            } else {
                FeatureSetting::Off
            };
            return Ok(Self {
                raw,
                processor: None,
                xnack,
                sramecc: FeatureSetting::Unsupported,
                trap_handler: raw & EF_AMDGPU_FEATURE_TRAP_HANDLER_V2 != 0,
                generic_version: 0,
            });
        }
        let processor = if mach == 0 {
            None
        } else {
            // The number goes into the error: a processor newer than this
            // table is reported as what it is, an unknown machine value.
            Some(Processor::from_mach(mach).ok_or(Error::unsupported(
                "unknown processor (not in this EF_AMDGPU_MACH table)",
                Location::Value("e_flags EF_AMDGPU_MACH", mach as u64),
            ))?)
        };
        let xs = processor.is_some_and(|p| p.xnack_supported);
        let ss = processor.is_some_and(|p| p.sramecc_supported);
        let bit = |set: bool, supported: bool| match (set, supported) {
            (true, _) => FeatureSetting::On,
            (false, true) => FeatureSetting::Off,
            (false, false) => FeatureSetting::Unsupported,
        };
        // One v2/v3 bit cannot say `any`; a clear bit on a processor whose
        // xnack is only ever `any` (gfx12.5) means just that.
        let xnack_bit = |set: bool| match (set, processor.is_some_and(|p| p.xnack_on_off)) {
            (false, false) if xs => FeatureSetting::Any,
            (set, _) => bit(set, xs),
        };
        let (xnack, sramecc, trap_handler, used) = match version {
            V::V2 | V::V3 => (
                xnack_bit(raw & EF_AMDGPU_FEATURE_XNACK_V3 != 0),
                bit(raw & EF_AMDGPU_FEATURE_SRAMECC_V3 != 0, ss),
                false,
                EF_AMDGPU_MACH | EF_AMDGPU_FEATURE_XNACK_V3 | EF_AMDGPU_FEATURE_SRAMECC_V3,
            ),
            V::V4 | V::V5 | V::V6 => (
                FeatureSetting::from_v4_bits(raw >> 8),
                FeatureSetting::from_v4_bits(raw >> 10),
                false,
                EF_AMDGPU_MACH
                    | EF_AMDGPU_FEATURE_XNACK_V4
                    | EF_AMDGPU_FEATURE_SRAMECC_V4
                    | if matches!(version, V::V6) {
                        EF_AMDGPU_GENERIC_VERSION
                    } else {
                        0
                    },
            ),
        };
        if raw & !used != 0 {
            return Err(Error::malformed("reserved e_flags bits are set", at));
        }
        // A setting for a feature the processor lacks names no ISA ROCr knows
        // (its registry has no `gfx1030:xnack+`); LLVM never writes one.
        if processor.is_some() {
            if !xs && xnack != FeatureSetting::Unsupported {
                return Err(Error::inconsistent(
                    "xnack setting on a processor without xnack",
                    at,
                ));
            }
            let fixed = matches!(xnack, FeatureSetting::On | FeatureSetting::Off);
            if xs && fixed && !processor.is_some_and(|p| p.xnack_on_off) {
                return Err(Error::inconsistent(
                    "xnack fixed on or off on a processor whose xnack can only be any",
                    at,
                ));
            }
            if !ss && sramecc != FeatureSetting::Unsupported {
                return Err(Error::inconsistent(
                    "sramecc setting on a processor without sramecc",
                    at,
                ));
            }
        }
        let generic_version = (raw >> EF_AMDGPU_GENERIC_VERSION_OFFSET) as u8;
        if let Some(p) = processor {
            if p.is_generic() && matches!(version, V::V6) && generic_version == 0 {
                return Err(Error::malformed(
                    "generic processor without EF_AMDGPU_GENERIC_VERSION",
                    at,
                ));
            }
            if p.is_generic() && !matches!(version, V::V6) {
                return Err(Error::inconsistent(
                    "generic processor needs code object v6",
                    at,
                ));
            }
            if !p.is_generic() && generic_version != 0 {
                return Err(Error::inconsistent(
                    "EF_AMDGPU_GENERIC_VERSION on a non-generic processor",
                    at,
                ));
            }
        }
        Ok(Self {
            raw,
            processor,
            xnack,
            sramecc,
            trap_handler,
            generic_version,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elf::CodeObjectVersion as V;

    #[test]
    fn table_is_consistent() {
        for (i, a) in PROCESSORS.iter().enumerate() {
            for b in &PROCESSORS[i + 1..] {
                assert!(a.mach < b.mach, "{} / {}", a.name, b.name);
                assert_ne!(a.name, b.name);
                if a.gfx_target_version != 0 {
                    assert_ne!(a.gfx_target_version, b.gfx_target_version);
                }
            }
            if let Some(f) = a.generic_family {
                assert_eq!(f.processor().is_generic_of, Some(f), "{}", a.name);
            }
        }
        for f in [
            F::Gfx9,
            F::Gfx9_4,
            F::Gfx10_1,
            F::Gfx10_3,
            F::Gfx11,
            F::Gfx11_7,
            F::Gfx12,
            F::Gfx12_5,
            F::Gfx13,
        ] {
            assert_eq!(f.processor().is_generic_of, Some(f));
        }
    }

    #[test]
    fn decode_v4_settings() {
        let f = EFlags::decode(0x3f | 0x300 | 0x400, V::V5).unwrap();
        assert_eq!(f.processor.unwrap().name, "gfx90a");
        assert_eq!(f.xnack, FeatureSetting::On);
        assert_eq!(f.sramecc, FeatureSetting::Any);
        assert!(EFlags::decode(0x3f | 0x1000, V::V5).is_err());
        assert!(EFlags::decode(0x27, V::V5).is_err());
        // Generic needs v6 and a version.
        assert!(EFlags::decode(0x51, V::V5).is_err());
        assert!(EFlags::decode(0x51, V::V6).is_err());
        let g = EFlags::decode(0x0100_0051, V::V6).unwrap();
        assert_eq!(g.generic_version, 1);
        assert!(g.processor.unwrap().is_generic());
    }

    #[test]
    fn decode_v2_v3_bits() {
        // Finalizer-layout v2: no processor field.
        let f = EFlags::decode(0x1 | 0x2, V::V2).unwrap();
        assert_eq!(
            (f.processor, f.xnack, f.trap_handler),
            (None, FeatureSetting::On, true)
        );
        assert!(EFlags::decode(0x1 | 0x8000_0000, V::V2).is_err());
        // LLVM-layout v2 is v3's.
        let f = EFlags::decode(0x2c | 0x100, V::V2).unwrap();
        assert_eq!(f.processor.unwrap().name, "gfx900");
        assert_eq!(f.xnack, FeatureSetting::On);
        let f = EFlags::decode(0x2f | 0x200, V::V3).unwrap();
        assert_eq!(f.xnack, FeatureSetting::Off);
        assert_eq!(f.sramecc, FeatureSetting::On);
        let f = EFlags::decode(0x36, V::V3).unwrap();
        assert_eq!(f.xnack, FeatureSetting::Unsupported);
        // Settings for features the processor lacks.
        assert!(EFlags::decode(0x36 | 0x100, V::V3).is_err());
        assert!(EFlags::decode(0x36 | 0x100, V::V5).is_err());
        assert!(EFlags::decode(0x2c | 0x400, V::V5).is_err());
        assert!(EFlags::decode(0x29 | 0x100, V::V2).is_err());
    }

    #[test]
    fn gfx12_5_xnack_is_any_only() {
        // LLVM main writes gfx1250 as 0x549: xnack any, sramecc any.
        let f = EFlags::decode(0x549, V::V5).unwrap();
        assert_eq!(f.processor.unwrap().name, "gfx1250");
        assert_eq!(
            (f.xnack, f.sramecc),
            (FeatureSetting::Any, FeatureSetting::Any)
        );
        let f = EFlags::decode(0x0100_015b, V::V6).unwrap();
        assert_eq!(f.processor.unwrap().name, "gfx12-5-generic");
        assert_eq!(f.sramecc, FeatureSetting::Unsupported);
        // xnack fixed on or off is refused with its own message.
        let e = EFlags::decode(0x349, V::V5).unwrap_err();
        assert!(e.what().contains("can only be any"), "{e}");
        assert!(EFlags::decode(0x249, V::V5).is_err());
        // sramecc on is fine on gfx1251.
        assert_eq!(
            EFlags::decode(0x5a | 0x100 | 0xc00, V::V5).unwrap().sramecc,
            FeatureSetting::On
        );
    }

    #[test]
    fn unknown_machine_is_reported_with_its_number() {
        let e = EFlags::decode(0x70 | 0x100, V::V5).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Unsupported);
        assert_eq!(
            e.location(),
            crate::Location::Value("e_flags EF_AMDGPU_MACH", 0x70)
        );
    }
}
