//! `hsa_agent_dispatch_packet_t` (`hsa.h`, HSA Runtime 1.2 section 2.9.7).

use super::{SignalHandle, impl_aql_packet, reserved_zero};
use crate::error::PacketError;
use crate::header::{PacketHeader, PacketType};
use core::mem::{offset_of, size_of};

const C_NAME: &str = "hsa_agent_dispatch_packet_t";

/// An agent dispatch packet: ask the agent to run the built-in function
/// `type_` with up to four arguments, writing its result to `return_address`.
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
pub struct AgentDispatchPacket {
    /// Packet header (type `HSA_PACKET_TYPE_AGENT_DISPATCH`).
    pub header: PacketHeader,
    /// The application-defined function to run (C field `type`).
    pub type_: u16,
    /// Reserved, must be 0.
    pub reserved0: u32,
    /// Where the function's result goes (`void*` in the large model).
    pub return_address: u64,
    /// Function arguments.
    pub arg: [u64; 4],
    /// Reserved, must be 0.
    pub reserved2: u64,
    /// Signal decremented when the function completes (null for none).
    pub completion_signal: SignalHandle,
}

const _: () = {
    type P = AgentDispatchPacket;
    assert!(size_of::<P>() == 64);
    assert!(core::mem::align_of::<P>() == 8);
    assert!(offset_of!(P, header) == 0);
    assert!(offset_of!(P, type_) == 2);
    assert!(offset_of!(P, reserved0) == 4);
    assert!(offset_of!(P, return_address) == 8);
    assert!(offset_of!(P, arg) == 16);
    assert!(offset_of!(P, reserved2) == 48);
    assert!(offset_of!(P, completion_signal) == 56);
};

impl AgentDispatchPacket {
    /// An agent dispatch of function `type_` with `arg`, no barrier and
    /// system-scope fences.
    pub fn new(type_: u16, arg: [u64; 4], return_address: u64) -> Self {
        Self {
            header: PacketHeader::with(
                PacketType::AgentDispatch,
                false,
                crate::FenceScope::System,
                crate::FenceScope::System,
            ),
            type_,
            return_address,
            arg,
            ..Self::default()
        }
    }

    /// Checks the header and that the reserved fields are zero.
    pub fn validate(&self) -> Result<(), PacketError> {
        self.header.validate_as(PacketType::AgentDispatch)?;
        reserved_zero(self.reserved0, C_NAME, "reserved0")?;
        reserved_zero(self.reserved2, C_NAME, "reserved2")
    }
}

impl_aql_packet!(AgentDispatchPacket, PacketType::AgentDispatch);
