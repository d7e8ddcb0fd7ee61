//! The 16-bit AQL packet header and the kernel-dispatch setup field.
//!
//! Layout from `hsa.h` (HSA Runtime 1.2, "Architected Queuing Language
//! packets"): `hsa_packet_header_t` gives the bit offsets, and
//! `hsa_packet_header_width_t` the widths:
//!
//! | bits  | field                              |
//! |-------|------------------------------------|
//! | 0-7   | packet type (`hsa_packet_type_t`)  |
//! | 8     | barrier                            |
//! | 9-10  | acquire (scacquire) fence scope    |
//! | 11-12 | release (screlease) fence scope    |
//! | 13-15 | reserved, must be 0                |

use crate::error::{FenceKind, PacketError};

/// `HSA_PACKET_HEADER_TYPE`: bit offset of the packet type.
pub const HEADER_TYPE_SHIFT: u16 = 0;
/// `HSA_PACKET_HEADER_WIDTH_TYPE`.
pub const HEADER_TYPE_WIDTH: u16 = 8;
/// `HSA_PACKET_HEADER_BARRIER`: bit offset of the barrier bit.
pub const HEADER_BARRIER_SHIFT: u16 = 8;
/// `HSA_PACKET_HEADER_WIDTH_BARRIER`.
pub const HEADER_BARRIER_WIDTH: u16 = 1;
/// `HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE` (`..._ACQUIRE_FENCE_SCOPE`).
pub const HEADER_ACQUIRE_FENCE_SCOPE_SHIFT: u16 = 9;
/// `HSA_PACKET_HEADER_WIDTH_SCACQUIRE_FENCE_SCOPE`.
pub const HEADER_ACQUIRE_FENCE_SCOPE_WIDTH: u16 = 2;
/// `HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE` (`..._RELEASE_FENCE_SCOPE`).
pub const HEADER_RELEASE_FENCE_SCOPE_SHIFT: u16 = 11;
/// `HSA_PACKET_HEADER_WIDTH_SCRELEASE_FENCE_SCOPE`.
pub const HEADER_RELEASE_FENCE_SCOPE_WIDTH: u16 = 2;
/// Bits 13-15 of the header, reserved by HSA (must be 0).
pub const HEADER_RESERVED_MASK: u16 = 0xe000;

/// `HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS`: bit offset of the dimensions.
pub const SETUP_DIMENSIONS_SHIFT: u16 = 0;
/// `HSA_KERNEL_DISPATCH_PACKET_SETUP_WIDTH_DIMENSIONS`.
pub const SETUP_DIMENSIONS_WIDTH: u16 = 2;
/// Bits 2-15 of the kernel-dispatch setup field, reserved (must be 0).
pub const SETUP_RESERVED_MASK: u16 = 0xfffc;

/// `hsa_packet_type_t`: the packet format in bits 0-7 of the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum PacketType {
    /// `HSA_PACKET_TYPE_VENDOR_SPECIFIC`: the format is given by the vendor
    /// header (for AMD, `hsa_amd_vendor_packet_header_t::AmdFormat`).
    VendorSpecific = 0,
    /// `HSA_PACKET_TYPE_INVALID`: the slot holds no packet.
    Invalid = 1,
    /// `HSA_PACKET_TYPE_KERNEL_DISPATCH`.
    KernelDispatch = 2,
    /// `HSA_PACKET_TYPE_BARRIER_AND`.
    BarrierAnd = 3,
    /// `HSA_PACKET_TYPE_AGENT_DISPATCH`.
    AgentDispatch = 4,
    /// `HSA_PACKET_TYPE_BARRIER_OR`.
    BarrierOr = 5,
}

impl TryFrom<u8> for PacketType {
    type Error = PacketError;

    fn try_from(raw: u8) -> Result<Self, PacketError> {
        Ok(match raw {
            0 => Self::VendorSpecific,
            1 => Self::Invalid,
            2 => Self::KernelDispatch,
            3 => Self::BarrierAnd,
            4 => Self::AgentDispatch,
            5 => Self::BarrierOr,
            _ => return Err(PacketError::UnknownPacketType(raw)),
        })
    }
}

/// `hsa_fence_scope_t`: how far the acquire or release fence of a packet reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum FenceScope {
    /// `HSA_FENCE_SCOPE_NONE`: no fence.
    None = 0,
    /// `HSA_FENCE_SCOPE_AGENT`: the agent executing the packet.
    Agent = 1,
    /// `HSA_FENCE_SCOPE_SYSTEM`: the whole system.
    System = 2,
}

impl FenceScope {
    /// Decodes the 2-bit scope; `3` is not a scope HSA defines.
    pub const fn from_bits(raw: u8, which: FenceKind) -> Result<Self, PacketError> {
        match raw {
            0 => Ok(Self::None),
            1 => Ok(Self::Agent),
            2 => Ok(Self::System),
            _ => Err(PacketError::InvalidFenceScope { which, raw }),
        }
    }
}

/// The 16-bit AQL packet header, exactly as stored in bytes 0-1 of a packet.
///
/// The raw bits are kept as they are; the typed accessors decode and
/// range-check them, so a header written by another agent is never trusted.
#[derive(
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Default,
    zerocopy::FromBytes,
    zerocopy::IntoBytes,
    zerocopy::Immutable,
    zerocopy::KnownLayout,
)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(transparent)]
pub struct PacketHeader(pub u16);

impl PacketHeader {
    /// The header of a slot that holds no packet (`HSA_PACKET_TYPE_INVALID`,
    /// no barrier, no fences).
    pub const INVALID: Self = Self::new(PacketType::Invalid);

    /// A header of `packet_type` with no barrier and both fence scopes `None`.
    pub const fn new(packet_type: PacketType) -> Self {
        Self((packet_type as u16) << HEADER_TYPE_SHIFT)
    }

    /// Builds a complete header.
    pub const fn with(
        packet_type: PacketType,
        barrier: bool,
        acquire: FenceScope,
        release: FenceScope,
    ) -> Self {
        Self::new(packet_type)
            .with_barrier(barrier)
            .with_acquire_fence_scope(acquire)
            .with_release_fence_scope(release)
    }

    /// Sets or clears the barrier bit.
    #[must_use]
    pub const fn with_barrier(self, barrier: bool) -> Self {
        let bit = 1 << HEADER_BARRIER_SHIFT;
        Self(if barrier { self.0 | bit } else { self.0 & !bit })
    }

    /// Sets the acquire (scacquire) fence scope.
    #[must_use]
    pub const fn with_acquire_fence_scope(self, scope: FenceScope) -> Self {
        let mask =
            ((1 << HEADER_ACQUIRE_FENCE_SCOPE_WIDTH) - 1) << HEADER_ACQUIRE_FENCE_SCOPE_SHIFT;
        Self((self.0 & !mask) | ((scope as u16) << HEADER_ACQUIRE_FENCE_SCOPE_SHIFT))
    }

    /// Sets the release (screlease) fence scope.
    #[must_use]
    pub const fn with_release_fence_scope(self, scope: FenceScope) -> Self {
        let mask =
            ((1 << HEADER_RELEASE_FENCE_SCOPE_WIDTH) - 1) << HEADER_RELEASE_FENCE_SCOPE_SHIFT;
        Self((self.0 & !mask) | ((scope as u16) << HEADER_RELEASE_FENCE_SCOPE_SHIFT))
    }

    /// The raw packet-type byte (bits 0-7), unchecked.
    pub const fn packet_type_raw(self) -> u8 {
        (self.0 >> HEADER_TYPE_SHIFT) as u8
    }

    /// The packet type, or an error if the byte is not an HSA packet type.
    pub fn packet_type(self) -> Result<PacketType, PacketError> {
        PacketType::try_from(self.packet_type_raw())
    }

    /// Whether the slot holds no packet (type `HSA_PACKET_TYPE_INVALID`).
    pub const fn is_invalid(self) -> bool {
        self.packet_type_raw() == PacketType::Invalid as u8
    }

    /// The barrier bit: the packet does not launch before every preceding
    /// packet of the queue has completed.
    pub const fn barrier(self) -> bool {
        self.0 & (1 << HEADER_BARRIER_SHIFT) != 0
    }

    /// The raw 2-bit acquire fence scope.
    pub const fn acquire_fence_scope_raw(self) -> u8 {
        ((self.0 >> HEADER_ACQUIRE_FENCE_SCOPE_SHIFT) & 0b11) as u8
    }

    /// The raw 2-bit release fence scope.
    pub const fn release_fence_scope_raw(self) -> u8 {
        ((self.0 >> HEADER_RELEASE_FENCE_SCOPE_SHIFT) & 0b11) as u8
    }

    /// The acquire (scacquire) fence scope.
    pub const fn acquire_fence_scope(self) -> Result<FenceScope, PacketError> {
        FenceScope::from_bits(self.acquire_fence_scope_raw(), FenceKind::Acquire)
    }

    /// The release (screlease) fence scope.
    pub const fn release_fence_scope(self) -> Result<FenceScope, PacketError> {
        FenceScope::from_bits(self.release_fence_scope_raw(), FenceKind::Release)
    }

    /// Checks every field of the header as a packet processor must: a known
    /// packet type, legal fence scopes, reserved bits 13-15 clear.
    pub fn validate(self) -> Result<PacketType, PacketError> {
        let ty = self.packet_type()?;
        self.acquire_fence_scope()?;
        self.release_fence_scope()?;
        if self.0 & HEADER_RESERVED_MASK != 0 {
            return Err(PacketError::ReservedHeaderBits(
                self.0 & HEADER_RESERVED_MASK,
            ));
        }
        Ok(ty)
    }
}

impl PacketHeader {
    /// [`PacketHeader::validate`], then checks that the type is `expected`
    /// (what each packet struct's own `validate` needs).
    pub fn validate_as(self, expected: PacketType) -> Result<(), PacketError> {
        let ty = self.validate()?;
        if ty != expected {
            return Err(PacketError::UnexpectedPacketType {
                expected,
                found: ty as u8,
            });
        }
        Ok(())
    }
}

impl core::fmt::Debug for PacketHeader {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PacketHeader")
            .field("raw", &format_args!("{:#06x}", self.0))
            .field("packet_type", &self.packet_type())
            .field("barrier", &self.barrier())
            .field("acquire_fence_scope", &self.acquire_fence_scope())
            .field("release_fence_scope", &self.release_fence_scope())
            .finish()
    }
}

/// The `setup` field of a kernel-dispatch packet (`hsa_kernel_dispatch_packet_setup_t`).
#[derive(
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Default,
    Debug,
    zerocopy::FromBytes,
    zerocopy::IntoBytes,
    zerocopy::Immutable,
    zerocopy::KnownLayout,
)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(transparent)]
pub struct KernelDispatchSetup(pub u16);

impl KernelDispatchSetup {
    /// A setup field giving `dimensions` (1 to 3) and nothing else.
    ///
    /// Values outside 1..=3 are stored as given (masked to the field width)
    /// so that invalid packets can be built for tests; [`Self::dimensions`]
    /// rejects them.
    pub const fn with_dimensions(dimensions: u8) -> Self {
        Self(((dimensions as u16) & ((1 << SETUP_DIMENSIONS_WIDTH) - 1)) << SETUP_DIMENSIONS_SHIFT)
    }

    /// The raw 2-bit dimensions field.
    pub const fn dimensions_raw(self) -> u8 {
        ((self.0 >> SETUP_DIMENSIONS_SHIFT) & ((1 << SETUP_DIMENSIONS_WIDTH) - 1)) as u8
    }

    /// The number of dimensions of the grid, 1 to 3, with reserved bits clear.
    pub const fn dimensions(self) -> Result<u8, PacketError> {
        if self.0 & SETUP_RESERVED_MASK != 0 {
            return Err(PacketError::ReservedSetupBits(self.0 & SETUP_RESERVED_MASK));
        }
        match self.dimensions_raw() {
            d @ 1..=3 => Ok(d),
            d => Err(PacketError::InvalidDimensions(d)),
        }
    }
}
