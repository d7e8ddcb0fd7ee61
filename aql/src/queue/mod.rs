//! User-mode queues: the `hsa_queue_t` / `amd_queue_t` layouts and the
//! lock-free AQL ring over caller-provided memory.
//!
//! The ring protocol (HSA Runtime 1.2 section 2.8, "Queues"; the details are
//! in `ARCHITECTURE.md`):
//!
//! - A producer reserves packet ids by advancing the write index (with a
//!   fetch-add, [`Ring::reserve`], or a compare-and-swap, [`Ring::try_reserve`]),
//!   never past `read index + size`, so a slot the packet processor has not
//!   consumed is never overwritten.
//! - It writes words 1-15 of the packet, then publishes words 0 (the 16-bit
//!   header and the 16 bits after it) with one release store of 32 bits, then
//!   rings the doorbell.
//! - The packet processor waits for the header of the slot at the read index
//!   to leave `HSA_PACKET_TYPE_INVALID` (acquire load), does not start a
//!   packet with the barrier bit before every earlier packet completed,
//!   copies the packet out, resets the slot to INVALID and advances the read
//!   index with a release store.

mod layout;
mod processor;
mod ring;
pub mod v2;

pub use layout::{
    AMD_QUEUE_PROPERTIES_RESERVED1, AmdQueue, AmdQueueProperties, HsaQueue, QueueFeatures,
    QueueType,
};
pub use processor::{Completion, Fetched, PacketProcessor, Poll};
pub use ring::{LoadOrder, PacketSlot, Reservation, Ring, RmwOrder, StoreOrder};
