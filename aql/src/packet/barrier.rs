//! `hsa_barrier_and_packet_t` and `hsa_barrier_or_packet_t` (`hsa.h`, HSA
//! Runtime 1.2 sections 2.9.8 and 2.9.9).

use super::{SignalHandle, impl_aql_packet, reserved_zero};
use crate::error::PacketError;
use crate::header::{PacketHeader, PacketType};
use core::mem::{offset_of, size_of};

macro_rules! barrier_packet {
    ($(#[$doc:meta])* $name:ident, $ty:expr, $c_name:literal) => {
        $(#[$doc])*
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
        pub struct $name {
            /// Packet header.
            pub header: PacketHeader,
            /// Reserved, must be 0.
            pub reserved0: u16,
            /// Reserved, must be 0.
            pub reserved1: u32,
            /// Dependency signals; a null handle is a satisfied dependency.
            pub dep_signal: [SignalHandle; 5],
            /// Reserved, must be 0.
            pub reserved2: u64,
            /// Signal decremented when the barrier completes (null for none).
            pub completion_signal: SignalHandle,
        }

        const _: () = {
            type P = $name;
            assert!(size_of::<P>() == 64);
            assert!(core::mem::align_of::<P>() == 8);
            assert!(offset_of!(P, header) == 0);
            assert!(offset_of!(P, reserved0) == 2);
            assert!(offset_of!(P, reserved1) == 4);
            assert!(offset_of!(P, dep_signal) == 8);
            assert!(offset_of!(P, reserved2) == 48);
            assert!(offset_of!(P, completion_signal) == 56);
        };

        impl $name {
            /// A barrier on `dep_signal` (null handles are satisfied) with
            /// the barrier bit set and system-scope fences.
            pub fn new(dep_signal: [SignalHandle; 5], completion_signal: SignalHandle) -> Self {
                Self {
                    header: PacketHeader::with(
                        $ty,
                        true,
                        crate::FenceScope::System,
                        crate::FenceScope::System,
                    ),
                    dep_signal,
                    completion_signal,
                    ..Self::default()
                }
            }

            /// The non-null dependency signals.
            pub fn dependencies(&self) -> impl Iterator<Item = SignalHandle> + '_ {
                self.dep_signal.iter().copied().filter(|s| !s.is_null())
            }

            /// Checks the header and that the reserved fields are zero.
            pub fn validate(&self) -> Result<(), PacketError> {
                self.header.validate_as($ty)?;
                reserved_zero(self.reserved0, $c_name, "reserved0")?;
                reserved_zero(self.reserved1, $c_name, "reserved1")?;
                reserved_zero(self.reserved2, $c_name, "reserved2")
            }
        }

        impl_aql_packet!($name, $ty);
    };
}

barrier_packet!(
    /// A barrier-AND packet: completes when every dependency signal is 0.
    BarrierAndPacket,
    PacketType::BarrierAnd,
    "hsa_barrier_and_packet_t"
);

barrier_packet!(
    /// A barrier-OR packet: completes when any dependency signal is 0.
    BarrierOrPacket,
    PacketType::BarrierOr,
    "hsa_barrier_or_packet_t"
);
