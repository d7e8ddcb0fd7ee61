//! AMD vendor-specific packets (`hsa_ext_amd.h`): the vendor header, the
//! barrier-value packet, and the PM4-IB packet ROCr uses to run PM4
//! commands on a gfx9+ AQL queue.

use super::{SignalHandle, impl_aql_packet, reserved_zero};
use crate::error::PacketError;
use crate::header::{PacketHeader, PacketType};
use core::mem::{offset_of, size_of};

const C_NAME: &str = "hsa_amd_barrier_value_packet_t";

/// `hsa_amd_packet_type_t`: the AMD format of a vendor-specific packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum AmdPacketType {
    /// `AMD_AQL_FORMAT_PM4_IB`: a jump to an indirect buffer of PM4
    /// commands (ROCr's `AqlQueue::ExecutePM4` on gfx9 and later; not in
    /// `hsa_ext_amd.h`, the AQL microcode's format).
    Pm4Ib = 1,
    /// `HSA_AMD_PACKET_TYPE_BARRIER_VALUE`.
    BarrierValue = 2,
}

impl TryFrom<u8> for AmdPacketType {
    type Error = PacketError;

    fn try_from(raw: u8) -> Result<Self, PacketError> {
        match raw {
            1 => Ok(Self::Pm4Ib),
            2 => Ok(Self::BarrierValue),
            _ => Err(PacketError::UnknownVendorFormat(raw)),
        }
    }
}

/// `hsa_signal_condition_t` as the 32-bit `hsa_signal_condition32_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u32)]
pub enum SignalCondition {
    /// `HSA_SIGNAL_CONDITION_EQ`.
    Eq = 0,
    /// `HSA_SIGNAL_CONDITION_NE`.
    Ne = 1,
    /// `HSA_SIGNAL_CONDITION_LT`.
    Lt = 2,
    /// `HSA_SIGNAL_CONDITION_GTE`.
    Gte = 3,
}

impl SignalCondition {
    /// Whether `value` satisfies the condition against `compare`.
    pub const fn holds(self, value: i64, compare: i64) -> bool {
        match self {
            Self::Eq => value == compare,
            Self::Ne => value != compare,
            Self::Lt => value < compare,
            Self::Gte => value >= compare,
        }
    }
}

impl TryFrom<u32> for SignalCondition {
    type Error = PacketError;

    fn try_from(raw: u32) -> Result<Self, PacketError> {
        Ok(match raw {
            0 => Self::Eq,
            1 => Self::Ne,
            2 => Self::Lt,
            3 => Self::Gte,
            _ => return Err(PacketError::InvalidSignalCondition(raw)),
        })
    }
}

/// `hsa_amd_vendor_packet_header_t`: the HSA header (type
/// `HSA_PACKET_TYPE_VENDOR_SPECIFIC`) followed by the AMD format byte.
#[derive(
    Debug,
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
#[repr(C)]
pub struct AmdVendorPacketHeader {
    /// The HSA packet header.
    pub header: PacketHeader,
    /// `hsa_amd_packet_type8_t` (C field `AmdFormat`).
    pub amd_format: u8,
    /// Reserved, must be 0.
    pub reserved: u8,
}

const _: () = {
    type H = AmdVendorPacketHeader;
    assert!(size_of::<H>() == 4);
    assert!(offset_of!(H, header) == 0);
    assert!(offset_of!(H, amd_format) == 2);
    assert!(offset_of!(H, reserved) == 3);
};

/// `hsa_amd_barrier_value_packet_t`: halts packet processing until
/// `(value of signal & mask) cond value` holds.
#[derive(
    Debug,
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
#[repr(C)]
pub struct AmdBarrierValuePacket {
    /// The vendor header (`AmdFormat = HSA_AMD_PACKET_TYPE_BARRIER_VALUE`).
    pub header: AmdVendorPacketHeader,
    /// Reserved, must be 0.
    pub reserved0: u32,
    /// The signal whose value is compared (null is a satisfied dependency).
    pub signal: SignalHandle,
    /// Value to compare against (`hsa_signal_value_t`, 64-bit in the large model).
    pub value: i64,
    /// Mask ANDed with the signal's value before the comparison.
    pub mask: i64,
    /// `hsa_signal_condition32_t`.
    pub cond: u32,
    /// Reserved, must be 0.
    pub reserved1: u32,
    /// Reserved, must be 0.
    pub reserved2: u64,
    /// Reserved, must be 0.
    pub reserved3: u64,
    /// Signal decremented when the barrier completes (null for none).
    pub completion_signal: SignalHandle,
}

const _: () = {
    type P = AmdBarrierValuePacket;
    assert!(size_of::<P>() == 64);
    assert!(core::mem::align_of::<P>() == 8);
    assert!(offset_of!(P, header) == 0);
    assert!(offset_of!(P, reserved0) == 4);
    assert!(offset_of!(P, signal) == 8);
    assert!(offset_of!(P, value) == 16);
    assert!(offset_of!(P, mask) == 24);
    assert!(offset_of!(P, cond) == 32);
    assert!(offset_of!(P, reserved1) == 36);
    assert!(offset_of!(P, reserved2) == 40);
    assert!(offset_of!(P, reserved3) == 48);
    assert!(offset_of!(P, completion_signal) == 56);
};

impl AmdBarrierValuePacket {
    /// A barrier-value packet with the barrier bit set and system-scope fences.
    pub fn new(
        signal: SignalHandle,
        cond: SignalCondition,
        value: i64,
        mask: i64,
        completion_signal: SignalHandle,
    ) -> Self {
        Self {
            header: AmdVendorPacketHeader {
                header: PacketHeader::with(
                    PacketType::VendorSpecific,
                    true,
                    crate::FenceScope::System,
                    crate::FenceScope::System,
                ),
                amd_format: AmdPacketType::BarrierValue as u8,
                reserved: 0,
            },
            signal,
            value,
            mask,
            cond: cond as u32,
            completion_signal,
            ..Self::default()
        }
    }

    /// The comparison, range-checked.
    pub fn condition(&self) -> Result<SignalCondition, PacketError> {
        SignalCondition::try_from(self.cond)
    }

    /// Whether a signal value satisfies this barrier.
    pub fn satisfied_by(&self, signal_value: i64) -> Result<bool, PacketError> {
        Ok(self
            .condition()?
            .holds(signal_value & self.mask, self.value))
    }

    /// Checks the header, the AMD format, the condition and that the reserved
    /// fields are zero.
    pub fn validate(&self) -> Result<(), PacketError> {
        self.header.header.validate_as(PacketType::VendorSpecific)?;
        AmdPacketType::try_from(self.header.amd_format)?;
        self.condition()?;
        reserved_zero(
            self.header.reserved,
            "hsa_amd_vendor_packet_header_t",
            "reserved",
        )?;
        reserved_zero(self.reserved0, C_NAME, "reserved0")?;
        reserved_zero(self.reserved1, C_NAME, "reserved1")?;
        reserved_zero(self.reserved2, C_NAME, "reserved2")?;
        reserved_zero(self.reserved3, C_NAME, "reserved3")
    }
}

impl_aql_packet!(AmdBarrierValuePacket, PacketType::VendorSpecific);

/// The PM4-IB packet (`amd_aql_pm4_ib` in ROCr's `amd_aql_queue.cpp`):
/// a PM4 `INDIRECT_BUFFER` command in the slot, which the packet processor
/// executes as the CP would a PM4 queue's, then the completion signal.
#[derive(
    Debug,
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
#[repr(C)]
pub struct AmdPm4IbPacket {
    /// The vendor header (`AmdFormat = AMD_AQL_FORMAT_PM4_IB`).
    pub header: AmdVendorPacketHeader,
    /// The PM4 `INDIRECT_BUFFER` command: its type-3 header, the IB's
    /// address (low dword, 4-byte aligned; high 16 bits), its size in
    /// dwords with the valid bit (23).
    pub ib_jump_cmd: [u32; 4],
    /// Dwords of the slot left after the jump (ROCr writes 10).
    pub dw_cnt_remain: u32,
    /// Reserved.
    pub reserved: [u32; 8],
    /// Signal decremented when the IB has run (null for none).
    pub completion_signal: SignalHandle,
}

const _: () = {
    type P = AmdPm4IbPacket;
    assert!(size_of::<P>() == 64);
    assert!(offset_of!(P, ib_jump_cmd) == 4);
    assert!(offset_of!(P, dw_cnt_remain) == 20);
    assert!(offset_of!(P, reserved) == 24);
    assert!(offset_of!(P, completion_signal) == 56);
};

/// The PM4 type-3 opcode `IT_INDIRECT_BUFFER`.
pub const PM4_IT_INDIRECT_BUFFER: u8 = 0x3f;

impl AmdPm4IbPacket {
    /// The indirect buffer the packet jumps to: `(address, dwords)`, or
    /// `None` if the jump is not a valid type-3 `INDIRECT_BUFFER` of 4
    /// dwords.
    pub fn indirect_buffer(&self) -> Option<(u64, u32)> {
        let [h, lo, hi, size] = self.ib_jump_cmd;
        let is_ib = h >> 30 == 3
            && ((h >> 8) & 0xff) as u8 == PM4_IT_INDIRECT_BUFFER
            && ((h >> 16) & 0x3fff) == 2;
        let valid = size & (1 << 23) != 0;
        (is_ib && valid).then(|| {
            (
                u64::from(lo & !3) | (u64::from(hi & 0xffff) << 32),
                size & 0xf_ffff,
            )
        })
    }

    fn validate(&self) -> Result<(), PacketError> {
        Ok(())
    }
}

impl_aql_packet!(AmdPm4IbPacket, PacketType::VendorSpecific);
