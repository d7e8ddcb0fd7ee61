//! The GFX9 processors the tables describe, and sets of them.

/// A GFX9 processor whose encodings the decoder knows.
///
/// The generic target `gfx9-generic` decodes as [`Processor::Gfx900`]: it
/// is the subset of gfx900 to gfx90c that every member runs
/// (AMDGPUUsage, "Generic processor code objects").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Processor {
    /// Vega 10 (GCN 5).
    Gfx900,
    /// Vega 20 (dot products, `v_fmac_f32`).
    Gfx906,
    /// MI100 (CDNA1: AGPRs, MFMA).
    Gfx908,
    /// MI200 (CDNA2: packed f32, f64 MFMA, unified VGPR/AGPR file).
    Gfx90a,
    /// MI300 (CDNA3: `sc0`/`sc1`/`nt` cache bits, fp8).
    Gfx942,
}

impl Processor {
    /// Every processor, in table-bit order.
    pub const ALL: [Processor; 5] = [
        Processor::Gfx900,
        Processor::Gfx906,
        Processor::Gfx908,
        Processor::Gfx90a,
        Processor::Gfx942,
    ];

    /// The processor for an LLVM processor name (`e_flags` `EF_AMDGPU_MACH`
    /// name, as `loader-core` reports it): `gfx900`, `gfx902`, `gfx904`,
    /// `gfx909`, `gfx90c` and `gfx9-generic` decode as gfx900; `gfx940`,
    /// `gfx941` and `gfx942` as gfx942. `None` for anything outside GFX9.
    pub fn from_name(name: &str) -> Option<Processor> {
        Some(match name {
            "gfx900" | "gfx902" | "gfx904" | "gfx909" | "gfx90c" | "gfx9-generic" => {
                Processor::Gfx900
            }
            "gfx906" => Processor::Gfx906,
            "gfx908" => Processor::Gfx908,
            "gfx90a" => Processor::Gfx90a,
            "gfx940" | "gfx941" | "gfx942" => Processor::Gfx942,
            _ => return None,
        })
    }

    /// The LLVM name of the processor.
    pub fn name(self) -> &'static str {
        match self {
            Processor::Gfx900 => "gfx900",
            Processor::Gfx906 => "gfx906",
            Processor::Gfx908 => "gfx908",
            Processor::Gfx90a => "gfx90a",
            Processor::Gfx942 => "gfx942",
        }
    }

    /// This processor's bit in a table entry's processor mask.
    pub(crate) fn bit(self) -> u8 {
        1 << (self as u8)
    }

    /// gfx90a and later: `scc` cache bit, `row_newbcast`, even-aligned
    /// 64-bit VGPRs.
    #[allow(dead_code)]
    pub(crate) fn is_gfx90a_plus(self) -> bool {
        matches!(self, Processor::Gfx90a | Processor::Gfx942)
    }
}
