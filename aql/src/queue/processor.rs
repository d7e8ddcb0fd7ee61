//! The packet-processor side of the ring: what a GPU's command processor, a
//! software agent's thread or a hypervisor runs.

use super::ring::Ring;
use crate::doorbell::Doorbell;
use crate::error::{CompletionError, PacketError};
use crate::header::PacketHeader;
use crate::packet::{PACKET_WORDS, Packet};
use crate::sync::{Ordering, spin_loop, store_index};

/// The consumer of one ring. Packets come out in packet-id order.
///
/// A packet with the barrier bit set is not handed out while any packet
/// handed out before it is still in flight: each [`Fetched`] packet carries
/// a [`Completion`] token that goes back to [`PacketProcessor::complete`]
/// when the packet has completed. The token names the processor that
/// handed it out ([`processor_id`](Self::processor_id)); another processor
/// refuses it with [`CompletionError::ForeignToken`].
#[derive(Debug)]
pub struct PacketProcessor<'r, 'a, D: Doorbell> {
    ring: &'r Ring<'a, D>,
    read_index: u64,
    in_flight: u64,
    id: u64,
}

/// The source of [`PacketProcessor::processor_id`]s: unique in the process
/// (a 64-bit counter does not wrap). `core`'s atomic even under loom: it only
/// names processors, it orders nothing.
static NEXT_PROCESSOR_ID: ProcessorIds = ProcessorIds::new(1);

/// The counter behind processor ids: a plain 64-bit atomic of this CPU
/// (never shared with another agent, so even the emulated one is atomic
/// for every user of it).
#[cfg(target_has_atomic = "64")]
type ProcessorIds = core::sync::atomic::AtomicU64;
#[cfg(all(not(target_has_atomic = "64"), feature = "portable-atomic"))]
type ProcessorIds = portable_atomic::AtomicU64;

/// What [`PacketProcessor::poll`] found.
#[derive(Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[must_use]
pub enum Poll {
    /// The slot at the read index is still INVALID: nothing published.
    Empty,
    /// The next packet has the barrier bit and `in_flight` earlier packets
    /// have not completed.
    Barrier {
        /// Packets handed out and not yet completed.
        in_flight: u64,
    },
    /// A packet, consumed from the ring.
    Ready(Fetched),
}

/// A packet taken out of the ring. Its slot is already INVALID again and the
/// read index is past it.
#[derive(Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[must_use = "return the completion token to the packet processor when the packet completes"]
pub struct Fetched {
    /// The packet id (its write index).
    pub id: u64,
    /// The 16 words as they were in the slot.
    pub words: [u32; PACKET_WORDS],
    /// The decoded, validated packet, or why it must be rejected with
    /// `HSA_STATUS_ERROR_INVALID_PACKET_FORMAT`.
    pub packet: Result<Packet, PacketError>,
    /// Give this back to [`PacketProcessor::complete`] when the packet
    /// completes (rejected packets too).
    pub completion: Completion,
}

/// Proof that a fetched packet is in flight; consumed by
/// [`PacketProcessor::complete`].
#[derive(Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[must_use = "a packet never completed blocks every later barrier packet"]
pub struct Completion {
    id: u64,
    processor: u64,
}

impl Completion {
    /// The packet id this token completes.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The [`PacketProcessor::processor_id`] of the processor that handed
    /// the token out.
    pub fn processor_id(&self) -> u64 {
        self.processor
    }
}

impl<'r, 'a, D: Doorbell> PacketProcessor<'r, 'a, D> {
    pub(crate) fn new(ring: &'r Ring<'a, D>, read_index: u64) -> Self {
        Self {
            ring,
            read_index,
            in_flight: 0,
            id: NEXT_PROCESSOR_ID.fetch_add(1, crate::sync::Ordering::Relaxed),
        }
    }

    /// This processor's id, unique in the process: every [`Completion`] it
    /// hands out carries it, so a token cannot complete a packet of another
    /// processor (of another ring, or a later processor of the same ring).
    pub fn processor_id(&self) -> u64 {
        self.id
    }

    /// The id of the next packet to consume.
    pub fn read_index(&self) -> u64 {
        self.read_index
    }

    /// Packets handed out and not yet completed.
    pub fn in_flight(&self) -> u64 {
        self.in_flight
    }

    /// Looks at the slot at the read index once, without waiting.
    pub fn poll(&mut self) -> Poll {
        let id = self.read_index;
        let slot = self.ring.slot(id);
        // Acquire: pairs with the producer's release store of word 0, so the
        // body words it wrote before are visible below.
        let word0 = slot.load_word0();
        let header = PacketHeader(word0 as u16);
        if header.is_invalid() {
            return Poll::Empty;
        }
        if header.barrier() && self.in_flight > 0 {
            return Poll::Barrier {
                in_flight: self.in_flight,
            };
        }
        let words = slot.consume(word0);
        self.read_index = id.wrapping_add(1);
        // Release: our reads of the slot and its reset to INVALID happen
        // before any producer that sees this index reuses the slot.
        store_index(
            self.ring.read_index_atomic(),
            self.read_index,
            Ordering::Release,
        );
        self.in_flight += 1;
        let packet = Packet::decode(&words);
        if let Err(e) = &packet {
            debug!("packet {} rejected: {}", id, e);
        }
        Poll::Ready(Fetched {
            id,
            words,
            packet,
            completion: Completion {
                id,
                processor: self.id,
            },
        })
    }

    /// Waits for the next packet that may start. Between polls it calls
    /// `idle` with what it saw ([`Poll::Empty`] or [`Poll::Barrier`]), which
    /// may spin, yield, sleep on the doorbell, or complete packets that are
    /// in flight (through the `&mut Self` it is given).
    pub fn next(&mut self, mut idle: impl FnMut(&mut Self, &Poll)) -> Fetched {
        loop {
            match self.poll() {
                Poll::Ready(f) => return f,
                other => {
                    idle(self, &other);
                    spin_loop();
                }
            }
        }
    }

    /// Marks a fetched packet as completed.
    ///
    /// Refuses, with [`CompletionError::ForeignToken`] and without changing
    /// anything, a token this processor did not hand out: counting it would
    /// let a barrier packet start while a packet of this processor is still
    /// in flight.
    pub fn complete(&mut self, completion: Completion) -> Result<(), CompletionError> {
        if completion.processor != self.id {
            return Err(CompletionError::ForeignToken {
                packet_id: completion.id,
                token_processor: completion.processor,
                processor: self.id,
            });
        }
        // Only the count matters for the barrier bit. Every token of this
        // processor was counted once by `poll` and is consumed here (it is
        // neither `Clone` nor constructible elsewhere), so the count is at
        // least 1 and the subtraction cannot wrap.
        self.in_flight -= 1;
        Ok(())
    }

    /// Whether the slot at the read index holds a published packet.
    pub fn has_pending(&self) -> bool {
        !PacketHeader(self.ring.slot(self.read_index).load_word0() as u16).is_invalid()
    }
}

#[cfg(feature = "defmt")]
impl<D: Doorbell> defmt::Format for PacketProcessor<'_, '_, D> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "PacketProcessor {{ id: {=u64}, read_index: {=u64}, in_flight: {=u64} }}",
            self.id,
            self.read_index,
            self.in_flight
        );
    }
}

impl<D: Doorbell> Drop for PacketProcessor<'_, '_, D> {
    fn drop(&mut self) {
        self.ring.release_processor();
    }
}
