//! AMDGPU relocation types and their arithmetic (AMDGPUUsage "Relocation
//! Records"; numbers from LLVM's `BinaryFormat/ELFRelocs/AMDGPU.def`).
//!
//! Notation of the AMDGPUUsage table: `S` symbol address, `A` addend, `P`
//! address of the place being relocated, `B` the base address the object is
//! loaded at (load address minus the lowest `p_vaddr`), `G + GOT` the address
//! of the symbol's GOT entry.

use core::fmt;

/// An `R_AMDGPU_*` relocation type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u32)]
pub enum RelocationType {
    /// `R_AMDGPU_NONE`: nothing.
    None = 0,
    /// `R_AMDGPU_ABS32_LO`: `word32 = (S + A) & 0xFFFFFFFF`.
    Abs32Lo = 1,
    /// `R_AMDGPU_ABS32_HI`: `word32 = (S + A) >> 32`.
    Abs32Hi = 2,
    /// `R_AMDGPU_ABS64`: `word64 = S + A`.
    Abs64 = 3,
    /// `R_AMDGPU_REL32`: `word32 = S + A - P`.
    Rel32 = 4,
    /// `R_AMDGPU_REL64`: `word64 = S + A - P`.
    Rel64 = 5,
    /// `R_AMDGPU_ABS32`: `word32 = S + A`.
    Abs32 = 6,
    /// `R_AMDGPU_GOTPCREL`: `word32 = G + GOT + A - P`.
    GotPcRel = 7,
    /// `R_AMDGPU_GOTPCREL32_LO`: `word32 = (G + GOT + A - P) & 0xFFFFFFFF`.
    GotPcRel32Lo = 8,
    /// `R_AMDGPU_GOTPCREL32_HI`: `word32 = (G + GOT + A - P) >> 32`.
    GotPcRel32Hi = 9,
    /// `R_AMDGPU_REL32_LO`: `word32 = (S + A - P) & 0xFFFFFFFF`.
    Rel32Lo = 10,
    /// `R_AMDGPU_REL32_HI`: `word32 = (S + A - P) >> 32`.
    Rel32Hi = 11,
    /// `R_AMDGPU_RELATIVE64`: `word64 = B + A`.
    Relative64 = 13,
    /// `R_AMDGPU_REL16`: `word16 = ((S + A - P) - 4) / 4` (branch offsets).
    Rel16 = 14,
}

impl RelocationType {
    /// Every type, for tables and tests.
    pub const ALL: [Self; 14] = [
        Self::None,
        Self::Abs32Lo,
        Self::Abs32Hi,
        Self::Abs64,
        Self::Rel32,
        Self::Rel64,
        Self::Abs32,
        Self::GotPcRel,
        Self::GotPcRel32Lo,
        Self::GotPcRel32Hi,
        Self::Rel32Lo,
        Self::Rel32Hi,
        Self::Relative64,
        Self::Rel16,
    ];

    /// From `ELF64_R_TYPE(r_info)`.
    pub fn from_raw(raw: u32) -> Option<Self> {
        Self::ALL.iter().copied().find(|t| *t as u32 == raw)
    }

    /// The LLVM name (`R_AMDGPU_ABS64`).
    pub const fn name(self) -> &'static str {
        match self {
            Self::None => "R_AMDGPU_NONE",
            Self::Abs32Lo => "R_AMDGPU_ABS32_LO",
            Self::Abs32Hi => "R_AMDGPU_ABS32_HI",
            Self::Abs64 => "R_AMDGPU_ABS64",
            Self::Rel32 => "R_AMDGPU_REL32",
            Self::Rel64 => "R_AMDGPU_REL64",
            Self::Abs32 => "R_AMDGPU_ABS32",
            Self::GotPcRel => "R_AMDGPU_GOTPCREL",
            Self::GotPcRel32Lo => "R_AMDGPU_GOTPCREL32_LO",
            Self::GotPcRel32Hi => "R_AMDGPU_GOTPCREL32_HI",
            Self::Rel32Lo => "R_AMDGPU_REL32_LO",
            Self::Rel32Hi => "R_AMDGPU_REL32_HI",
            Self::Relative64 => "R_AMDGPU_RELATIVE64",
            Self::Rel16 => "R_AMDGPU_REL16",
        }
    }

    /// Bytes the relocation writes.
    pub const fn width(self) -> usize {
        match self {
            Self::None => 0,
            Self::Abs64 | Self::Rel64 | Self::Relative64 => 8,
            Self::Rel16 => 2,
            _ => 4,
        }
    }

    /// Whether the value depends on a symbol (`S`) rather than only on `B`.
    pub const fn uses_symbol(self) -> bool {
        !matches!(self, Self::None | Self::Relative64)
    }

    /// Whether the value needs a GOT entry (`G + GOT`): resolved by the static
    /// linker, never valid in a loaded object's dynamic relocations.
    pub const fn uses_got(self) -> bool {
        matches!(
            self,
            Self::GotPcRel | Self::GotPcRel32Lo | Self::GotPcRel32Hi
        )
    }
}

impl fmt::Display for RelocationType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The inputs of one relocation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RelocationInputs {
    /// `S`: the symbol's address.
    pub symbol: u64,
    /// `A`: the addend.
    pub addend: i64,
    /// `P`: the address of the place.
    pub place: u64,
    /// `B`: the load bias.
    pub base: u64,
    /// `G + GOT`: the address of the symbol's GOT entry, when there is one.
    pub got_entry: Option<u64>,
}

/// Why a relocation value cannot be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RelocationValueError {
    /// A 32- or 16-bit field cannot hold the value.
    Overflow,
    /// `R_AMDGPU_REL16`: the offset is not a multiple of 4.
    Misaligned,
    /// A GOT-relative type without a GOT entry.
    NoGotEntry,
}

/// The bytes one relocation writes (little-endian, `len` of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelocationValue {
    bytes: [u8; 8],
    len: usize,
}

impl RelocationValue {
    fn new(value: u64, len: usize) -> Self {
        Self {
            bytes: value.to_le_bytes(),
            len,
        }
    }

    /// The bytes to write at `P`.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// Computes what relocation `kind` writes, with AMDGPUUsage's formula.
/// 64-bit arithmetic wraps, as in the hardware's address space; the 32-bit
/// `ABS32` and `REL32`, and `REL16`, reject values their field cannot hold
/// (as `ld.lld` does), while the `_LO`/`_HI` halves take the bits they name.
pub fn relocation_value(
    kind: RelocationType,
    i: RelocationInputs,
) -> Result<RelocationValue, RelocationValueError> {
    let s_a = i.symbol.wrapping_add_signed(i.addend);
    let s_a_p = s_a.wrapping_sub(i.place);
    let got = || {
        i.got_entry
            .map(|g| g.wrapping_add_signed(i.addend).wrapping_sub(i.place))
            .ok_or(RelocationValueError::NoGotEntry)
    };
    let fits_u32 = |v: u64| {
        // ABS32 accepts any value that is a u32 or a sign-extended i32.
        if u32::try_from(v).is_ok() || i32::try_from(v as i64).is_ok() {
            Ok(RelocationValue::new(v & 0xffff_ffff, 4))
        } else {
            Err(RelocationValueError::Overflow)
        }
    };
    let fits_i32 = |v: u64| {
        i32::try_from(v as i64)
            .map(|x| RelocationValue::new(u64::from(x as u32), 4))
            .map_err(|_| RelocationValueError::Overflow)
    };
    Ok(match kind {
        RelocationType::None => RelocationValue::new(0, 0),
        RelocationType::Abs32Lo => RelocationValue::new(s_a & 0xffff_ffff, 4),
        RelocationType::Abs32Hi => RelocationValue::new(s_a >> 32, 4),
        RelocationType::Abs64 => RelocationValue::new(s_a, 8),
        RelocationType::Rel32 => fits_i32(s_a_p)?,
        RelocationType::Rel64 => RelocationValue::new(s_a_p, 8),
        RelocationType::Abs32 => fits_u32(s_a)?,
        RelocationType::GotPcRel => fits_i32(got()?)?,
        RelocationType::GotPcRel32Lo => RelocationValue::new(got()? & 0xffff_ffff, 4),
        RelocationType::GotPcRel32Hi => RelocationValue::new(got()? >> 32, 4),
        RelocationType::Rel32Lo => RelocationValue::new(s_a_p & 0xffff_ffff, 4),
        RelocationType::Rel32Hi => RelocationValue::new(s_a_p >> 32, 4),
        RelocationType::Relative64 => RelocationValue::new(i.base.wrapping_add_signed(i.addend), 8),
        RelocationType::Rel16 => {
            let off = (s_a_p as i64).wrapping_sub(4);
            if off % 4 != 0 {
                return Err(RelocationValueError::Misaligned);
            }
            let words = i16::try_from(off / 4).map_err(|_| RelocationValueError::Overflow)?;
            RelocationValue::new(u64::from(words as u16), 2)
        }
    })
}
