//! Every AQL packet format: the HSA 1.2 packets of `hsa.h` and the AMD
//! vendor-specific packets of `hsa_ext_amd.h`.
//!
//! Each packet is a 64-byte `#[repr(C)]` struct, bit-exact with its C
//! counterpart (compile-time asserts beside each struct, and a C probe in
//! `tests/tests/aql_abi.rs` against the real headers). Pointers that the C
//! structs hold (`kernarg_address`, `return_address`) are `u64` addresses in
//! the agent's address space, as HSA's large model lays them out.
//!
//! Decoding goes through the raw header first: [`Packet::decode`] reads the
//! type byte, range-checks it, then validates the whole packet the way a
//! packet processor must.

mod agent_dispatch;
mod barrier;
mod kernel_dispatch;
mod vendor;

pub use agent_dispatch::AgentDispatchPacket;
pub use barrier::{BarrierAndPacket, BarrierOrPacket};
pub use kernel_dispatch::KernelDispatchPacket;
pub use vendor::{
    AmdBarrierValuePacket, AmdPacketType, AmdPm4IbPacket, AmdVendorPacketHeader,
    PM4_IT_INDIRECT_BUFFER, SignalCondition,
};

use crate::error::PacketError;
use crate::header::{PacketHeader, PacketType};
use zerocopy::{FromBytes, IntoBytes};

/// Size of every AQL packet in bytes (`sizeof(hsa_kernel_dispatch_packet_t)`).
pub const PACKET_SIZE: usize = 64;
/// Size of every AQL packet in 32-bit words, the unit the queue ring moves.
pub const PACKET_WORDS: usize = PACKET_SIZE / 4;

/// `hsa_signal_t`: an opaque signal handle (`hsa.h`). Handle 0 means "no
/// signal" in a packet's `completion_signal` or `dep_signal` fields.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Default,
    PartialOrd,
    Ord,
    zerocopy::FromBytes,
    zerocopy::IntoBytes,
    zerocopy::Immutable,
    zerocopy::KnownLayout,
)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(C)]
pub struct SignalHandle {
    /// The opaque handle; for ROCr, the address of the `amd_signal_t`.
    pub handle: u64,
}

impl SignalHandle {
    /// The null handle: no signal.
    pub const NULL: Self = Self { handle: 0 };

    /// Whether this is the null handle.
    pub const fn is_null(self) -> bool {
        self.handle == 0
    }
}

const _: () = assert!(core::mem::size_of::<SignalHandle>() == 8);

/// Conversions every packet type shares.
///
/// A packet is 64 bytes; the queue ring moves it as 16 little-endian 32-bit
/// words, of which word 0 (header and setup) is published last.
pub trait AqlPacket:
    FromBytes + IntoBytes + zerocopy::Immutable + zerocopy::KnownLayout + Copy
{
    /// The header type this packet carries.
    const PACKET_TYPE: PacketType;

    /// The packet as 16 words (word 0 is the header and the 16 bits after it).
    fn to_words(&self) -> [u32; PACKET_WORDS];

    /// Reads the packet from 16 words without checking anything.
    fn from_words_unchecked(words: &[u32; PACKET_WORDS]) -> Self;

    /// The packet as its 64 bytes.
    fn to_bytes(&self) -> [u8; PACKET_SIZE] {
        let mut bytes = [0u8; PACKET_SIZE];
        bytes.copy_from_slice(self.as_bytes());
        bytes
    }

    /// Decodes and validates: the header must carry [`Self::PACKET_TYPE`]
    /// and every field must pass [`AqlPacket::validate`].
    fn decode(words: &[u32; PACKET_WORDS]) -> Result<Self, PacketError> {
        let header = PacketHeader(words[0] as u16);
        if header.packet_type_raw() != Self::PACKET_TYPE as u8 {
            return Err(PacketError::UnexpectedPacketType {
                expected: Self::PACKET_TYPE,
                found: header.packet_type_raw(),
            });
        }
        let p = Self::from_words_unchecked(words);
        p.validate()?;
        Ok(p)
    }

    /// Checks the packet as a packet processor must before launching it.
    fn validate(&self) -> Result<(), PacketError>;
}

/// Any AQL packet, decoded from a slot by its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Packet {
    /// `HSA_PACKET_TYPE_KERNEL_DISPATCH`.
    KernelDispatch(KernelDispatchPacket),
    /// `HSA_PACKET_TYPE_AGENT_DISPATCH`.
    AgentDispatch(AgentDispatchPacket),
    /// `HSA_PACKET_TYPE_BARRIER_AND`.
    BarrierAnd(BarrierAndPacket),
    /// `HSA_PACKET_TYPE_BARRIER_OR`.
    BarrierOr(BarrierOrPacket),
    /// `HSA_PACKET_TYPE_VENDOR_SPECIFIC` with `AmdFormat =
    /// HSA_AMD_PACKET_TYPE_BARRIER_VALUE`.
    AmdBarrierValue(AmdBarrierValuePacket),
    /// `HSA_PACKET_TYPE_VENDOR_SPECIFIC` with `AmdFormat =
    /// AMD_AQL_FORMAT_PM4_IB`.
    AmdPm4Ib(AmdPm4IbPacket),
}

impl Packet {
    /// Decodes and validates the packet in `words`.
    ///
    /// A slot whose header says `HSA_PACKET_TYPE_INVALID` holds no packet:
    /// that is [`PacketError::UnexpectedPacketType`] here, since a packet
    /// processor only decodes slots it saw leave INVALID.
    pub fn decode(words: &[u32; PACKET_WORDS]) -> Result<Self, PacketError> {
        let header = PacketHeader(words[0] as u16);
        Ok(match header.packet_type()? {
            PacketType::KernelDispatch => Self::KernelDispatch(AqlPacket::decode(words)?),
            PacketType::AgentDispatch => Self::AgentDispatch(AqlPacket::decode(words)?),
            PacketType::BarrierAnd => Self::BarrierAnd(AqlPacket::decode(words)?),
            PacketType::BarrierOr => Self::BarrierOr(AqlPacket::decode(words)?),
            PacketType::VendorSpecific => {
                let format = (words[0] >> 16) as u8;
                match AmdPacketType::try_from(format)? {
                    AmdPacketType::BarrierValue => Self::AmdBarrierValue(AqlPacket::decode(words)?),
                    AmdPacketType::Pm4Ib => Self::AmdPm4Ib(AqlPacket::decode(words)?),
                }
            }
            PacketType::Invalid => {
                return Err(PacketError::UnexpectedPacketType {
                    expected: PacketType::Invalid,
                    found: PacketType::Invalid as u8,
                });
            }
        })
    }

    /// Decodes and validates 64 bytes.
    pub fn decode_bytes(bytes: &[u8; PACKET_SIZE]) -> Result<Self, PacketError> {
        let mut words = [0u32; PACKET_WORDS];
        words.as_mut_bytes().copy_from_slice(bytes);
        Self::decode(&words)
    }

    /// The packet's header.
    pub fn header(&self) -> PacketHeader {
        match self {
            Self::KernelDispatch(p) => p.header,
            Self::AgentDispatch(p) => p.header,
            Self::BarrierAnd(p) => p.header,
            Self::BarrierOr(p) => p.header,
            Self::AmdBarrierValue(p) => p.header.header,
            Self::AmdPm4Ib(p) => p.header.header,
        }
    }

    /// The packet's completion signal (null for none).
    pub fn completion_signal(&self) -> SignalHandle {
        match self {
            Self::KernelDispatch(p) => p.completion_signal,
            Self::AgentDispatch(p) => p.completion_signal,
            Self::BarrierAnd(p) => p.completion_signal,
            Self::BarrierOr(p) => p.completion_signal,
            Self::AmdBarrierValue(p) => p.completion_signal,
            Self::AmdPm4Ib(p) => p.completion_signal,
        }
    }

    /// The packet as 16 words.
    pub fn to_words(&self) -> [u32; PACKET_WORDS] {
        match self {
            Self::KernelDispatch(p) => p.to_words(),
            Self::AgentDispatch(p) => p.to_words(),
            Self::BarrierAnd(p) => p.to_words(),
            Self::BarrierOr(p) => p.to_words(),
            Self::AmdBarrierValue(p) => p.to_words(),
            Self::AmdPm4Ib(p) => p.to_words(),
        }
    }
}

/// Implements [`AqlPacket`] for a 64-byte packet struct; the conversions are
/// `zerocopy::transmute!`, whose size equality is checked at compile time.
macro_rules! impl_aql_packet {
    ($ty:ty, $packet_type:expr) => {
        impl $crate::packet::AqlPacket for $ty {
            const PACKET_TYPE: $crate::header::PacketType = $packet_type;

            fn to_words(&self) -> [u32; $crate::packet::PACKET_WORDS] {
                zerocopy::transmute!(*self)
            }

            fn from_words_unchecked(words: &[u32; $crate::packet::PACKET_WORDS]) -> Self {
                zerocopy::transmute!(*words)
            }

            fn validate(&self) -> Result<(), $crate::error::PacketError> {
                <$ty>::validate(self)
            }
        }
    };
}
pub(crate) use impl_aql_packet;

/// Checks that a reserved field is zero.
pub(crate) fn reserved_zero<T: PartialEq + Default>(
    value: T,
    packet: &'static str,
    field: &'static str,
) -> Result<(), PacketError> {
    if value == T::default() {
        Ok(())
    } else {
        Err(PacketError::ReservedField { packet, field })
    }
}
