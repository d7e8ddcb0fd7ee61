//! Reading a guest's AQL queue from outside: what a hypervisor (or a crash
//! dump tool) does with a guest memory image and the guest address of an
//! `amd_queue_t`.
//!
//! Every byte of guest memory is hostile: the guest (or a bug in it) may
//! hold any value in any field, and a running guest may change the memory
//! while we read it. So:
//!
//! - guest memory is reached only through [`GuestMemory`], which copies
//!   bytes out after a checked bounds test (no pointer or reference into
//!   guest memory is ever made: a live implementation copies with atomic
//!   or volatile loads);
//! - the queue descriptor is read twice and its fixed fields must be the
//!   same both times ([`QueueError::DescriptorChanged`]); the ring must lie
//!   inside the image, the size must be a power of two, the indices must be
//!   at most `size` apart ([`QueueError`]);
//! - each packet is read twice and must be the same both times, up to
//!   [`PACKET_READ_ATTEMPTS`] tries ([`SlotProblem::Changed`]); then the
//!   read index is read again, and packets the guest's packet processor
//!   consumed meanwhile are flagged ([`PacketRecord::consumed_while_read`]);
//! - a packet is decoded by `aql`'s own packet processor rules
//!   ([`aql::Packet::decode_bytes`]): a malformed packet is a typed
//!   [`aql::PacketError`], a slot that is still INVALID was reserved but
//!   not yet published.
//!
//! Nothing here panics on any input (`fuzz/fuzz_targets/hypervisor_image.rs`
//! and `tests/hostile.rs`).
#![deny(unsafe_code)]

pub mod memory;
pub mod queue;
pub mod report;
pub mod sample;

pub use memory::{GuestMemory, ImageMemory, ReadError};
pub use queue::{
    PACKET_READ_ATTEMPTS, PacketRecord, QueueError, QueueSnapshot, QueueState, SlotProblem,
    read_queue,
};

/// The fuzz target's input format, shared with the regression test that
/// replays its corpus (`tests/fuzz_corpus.rs`): bytes 0-7 the guest base
/// address, 8-15 the queue's offset from it (wrapping, so any address),
/// byte 16 the packet limit, the rest the image. Returns the report, or
/// the error as text; `None` when the input is too short.
pub fn read_fuzz_input(data: &[u8]) -> Option<String> {
    let (head, image) = data.split_at_checked(17)?;
    let base = u64::from_le_bytes(head[0..8].try_into().ok()?);
    let offset = u64::from_le_bytes(head[8..16].try_into().ok()?);
    let limit = usize::from(head[16]);
    let mem = ImageMemory::new(image, base);
    Some(match read_queue(&mem, base.wrapping_add(offset), limit) {
        Ok(s) => {
            assert!(s.packets.len() <= limit, "more packets than the limit");
            report::report(&s)
        }
        Err(e) => e.to_string(),
    })
}
