//! AQL: the Architected Queuing Language of HSA, without a heap.
//!
//! - [`packet`]: every AQL packet format, bit-exact with `hsa.h` and
//!   `hsa_ext_amd.h`, with the validation a packet processor performs;
//! - [`header`]: the 16-bit packet header and the dispatch setup field;
//! - [`queue`]: `hsa_queue_t` and `amd_queue_t` (`amd_hsa_queue.h`) and the
//!   lock-free user-mode queue ring over caller-provided memory, with its
//!   producer side (reserve, write, publish, ring the doorbell) and its
//!   packet-processor side (wait, honour the barrier bit, consume);
//! - [`doorbell`]: how a producer tells the packet processor that packets
//!   are ready (an MMIO write or a store to a signal's value).
//!
//! The crate is `no_std`, never allocates and never panics on bad input:
//! packets read from shared memory are decoded through their raw header and
//! validated into typed errors ([`PacketError`]).
#![no_std]
#![deny(unsafe_code)]

#[macro_use]
#[allow(unused_macros)]
mod fmt;

pub mod doorbell;
pub mod error;
pub mod header;
pub mod packet;
pub mod queue;
pub mod sync;

pub use doorbell::Doorbell;
pub use error::{CompletionError, PacketError, QueueError};
pub use header::{FenceScope, KernelDispatchSetup, PacketHeader, PacketType};
pub use packet::{
    AgentDispatchPacket, AmdBarrierValuePacket, AmdPacketType, AmdPm4IbPacket, AqlPacket,
    BarrierAndPacket, BarrierOrPacket, KernelDispatchPacket, Packet, SignalCondition, SignalHandle,
};
