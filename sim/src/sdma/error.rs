//! Typed errors of the SDMA decoder and engine: what was wrong and where.

use core::fmt;

use super::mem::MemoryFault;

/// Why the dwords of one packet do not form a packet the engine executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketError {
    /// The header's `op` is no SDMA v4 opcode.
    UnknownOpcode {
        /// The `op` field (header bits 7:0).
        op: u8,
    },
    /// The header's `sub_op` is not defined for this opcode.
    UnknownSubOp {
        /// The packet the opcode names.
        packet: &'static str,
        /// The `sub_op` field (header bits 15:8).
        sub_op: u8,
    },
    /// A packet or feature the SDMA v4 headers define but this engine does
    /// not model (ROCr's blit never emits it); executing it as anything else
    /// would be a silent lie.
    Unsupported {
        /// The packet.
        packet: &'static str,
        /// What is not modelled.
        what: &'static str,
    },
    /// A field holds a value the packet does not allow.
    Field {
        /// The packet.
        packet: &'static str,
        /// The field, named as in the header.
        field: &'static str,
        /// The value found.
        value: u64,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A typed packet whose fields do not fit the packet format.
    NotEncodable {
        /// The packet.
        packet: &'static str,
    },
}

impl fmt::Display for PacketError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::UnknownOpcode { op } => write!(f, "unknown SDMA opcode {op}"),
            Self::UnknownSubOp { packet, sub_op } => {
                write!(f, "{packet}: unknown sub-op {sub_op}")
            }
            Self::Unsupported { packet, what } => write!(f, "{packet}: {what} is not modelled"),
            Self::Field {
                packet,
                field,
                value,
                reason,
            } => write!(f, "{packet}: field {field} = {value:#x}: {reason}"),
            Self::NotEncodable { packet } => {
                write!(
                    f,
                    "{packet}: a field is out of its range, the packet cannot be encoded"
                )
            }
        }
    }
}

impl std::error::Error for PacketError {}

/// Which queue pointer a [`SdmaError::QueuePointer`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueuePointer {
    /// The read pointer (written by the engine).
    Read,
    /// The write pointer (written by the client).
    Write,
}

/// Why the engine stopped on a queue: the queue's error path.
///
/// `offset` is the read pointer (the 64-bit byte index, not wrapped) of the
/// packet that failed; the packets before it have executed, it has not, and
/// the engine's read pointer stays on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SdmaError {
    /// A malformed, unknown or unmodelled packet.
    Packet {
        /// Read pointer of the packet.
        offset: u64,
        /// What is wrong with it.
        error: PacketError,
    },
    /// A packet touched memory it may not (the ring itself included).
    Memory {
        /// Read pointer of the packet.
        offset: u64,
        /// The packet (`"ring"` when reading the packet itself faulted).
        packet: &'static str,
        /// The fault.
        fault: MemoryFault,
    },
    /// A POLL_REGMEM with a finite `retry_count` ran out of retries.
    PollTimeout {
        /// Read pointer of the packet.
        offset: u64,
        /// The polled address.
        addr: u64,
    },
    /// The write pointer is not a dword-aligned position within one ring
    /// length ahead of the read pointer.
    BadWritePointer {
        /// The engine's read pointer.
        rptr: u64,
        /// The write pointer the client published.
        wptr: u64,
    },
    /// A packet longer than the whole ring (a NOP with a huge count).
    PacketLongerThanRing {
        /// Read pointer of the packet.
        offset: u64,
        /// Its length in bytes.
        bytes: u64,
    },
    /// The queue's read or write pointer location faulted.
    QueuePointer {
        /// Which pointer.
        which: QueuePointer,
        /// The fault.
        fault: MemoryFault,
    },
}

impl fmt::Display for SdmaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Packet { offset, error } => write!(f, "SDMA packet at rptr {offset:#x}: {error}"),
            Self::Memory {
                offset,
                packet,
                fault,
            } => write!(f, "SDMA {packet} at rptr {offset:#x}: {fault}"),
            Self::PollTimeout { offset, addr } => write!(
                f,
                "SDMA POLL_REGMEM at rptr {offset:#x}: retries exhausted polling {addr:#x}"
            ),
            Self::BadWritePointer { rptr, wptr } => write!(
                f,
                "SDMA write pointer {wptr:#x} is not a dword position within one ring of the read pointer {rptr:#x}"
            ),
            Self::PacketLongerThanRing { offset, bytes } => write!(
                f,
                "SDMA packet at rptr {offset:#x} is {bytes} bytes, longer than the ring"
            ),
            Self::QueuePointer { which, fault } => {
                let which = match which {
                    QueuePointer::Read => "read",
                    QueuePointer::Write => "write",
                };
                write!(f, "SDMA queue {which} pointer: {fault}")
            }
        }
    }
}

impl std::error::Error for SdmaError {}
