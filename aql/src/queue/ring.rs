//! The AQL ring: packet slots over caller-provided memory, and its producer side.

use crate::doorbell::Doorbell;
use crate::error::QueueError;
use crate::header::{PacketHeader, PacketType};
use crate::packet::{AqlPacket, BarrierAndPacket, PACKET_WORDS, SignalHandle};
use crate::sync::{AtomicBool, AtomicU32, AtomicU64, Ordering, load_index, spin_loop, store_index};

/// Word 0 of a slot that holds no packet: header type INVALID, the rest 0.
pub(crate) const INVALID_WORD0: u32 = PacketHeader::INVALID.0 as u32;

/// One 64-byte packet slot of the ring.
///
/// The slot is shared with another agent, so every access is atomic. Word 0
/// (the header and the 16 bits after it) is the publication word: stored
/// with release by the producer, loaded with acquire by the packet
/// processor. The body is written before it and read after it, as one
/// 32-bit word (bytes 4-7) and seven 64-bit words (bytes 8-63), so that each
/// byte belongs to exactly one atomic of one size (no mixed-size access) and
/// a packet moves in 9 stores rather than 16.
#[repr(C, align(64))]
pub struct PacketSlot {
    word0: AtomicU32,
    word1: AtomicU32,
    body: [AtomicU64; BODY_QWORDS],
}

/// Bytes 8-63 of a packet as 64-bit words.
const BODY_QWORDS: usize = 7;

#[cfg(not(loom))]
const _: () = {
    assert!(core::mem::size_of::<PacketSlot>() == 64);
    assert!(core::mem::align_of::<PacketSlot>() == 64);
    assert!(core::mem::offset_of!(PacketSlot, word1) == 4);
    assert!(core::mem::offset_of!(PacketSlot, body) == 8);
};

/// Packet words 2+2i and 3+2i as body word i (little-endian, as in memory).
fn body_qword(words: &[u32; PACKET_WORDS], i: usize) -> u64 {
    u64::from(words[2 + 2 * i]) | u64::from(words[3 + 2 * i]) << 32
}

impl PacketSlot {
    /// An empty slot (header type `HSA_PACKET_TYPE_INVALID`, all else 0), as
    /// HSA requires of every slot of a new queue.
    #[cfg(not(loom))]
    pub const fn invalid() -> Self {
        Self {
            word0: AtomicU32::new(INVALID_WORD0),
            word1: AtomicU32::new(0),
            body: [const { AtomicU64::new(0) }; BODY_QWORDS],
        }
    }

    /// An empty slot (header type `HSA_PACKET_TYPE_INVALID`, all else 0).
    #[cfg(loom)]
    pub fn invalid() -> Self {
        Self {
            word0: AtomicU32::new(INVALID_WORD0),
            word1: AtomicU32::new(0),
            body: core::array::from_fn(|_| AtomicU64::new(0)),
        }
    }

    /// A slot holding `words` as they are (for tests, and for tools that
    /// rebuild a ring from a memory image).
    pub fn from_words(words: [u32; PACKET_WORDS]) -> Self {
        Self {
            word0: AtomicU32::new(words[0]),
            word1: AtomicU32::new(words[1]),
            body: core::array::from_fn(|i| AtomicU64::new(body_qword(&words, i))),
        }
    }

    /// The header, loaded with acquire (what a packet processor polls).
    pub fn header(&self) -> PacketHeader {
        PacketHeader(self.word0.load(Ordering::Acquire) as u16)
    }

    /// A snapshot of the 16 words: word 0 with acquire, then the body.
    ///
    /// For inspection (a hypervisor looking at a guest's queue): the body
    /// may be mid-rewrite if the slot is being reused, so decode the result
    /// with [`crate::Packet::decode`], which trusts nothing.
    pub fn load_words(&self) -> [u32; PACKET_WORDS] {
        self.read_body(self.word0.load(Ordering::Acquire))
    }

    fn read_body(&self, word0: u32) -> [u32; PACKET_WORDS] {
        let mut words = [0u32; PACKET_WORDS];
        words[0] = word0;
        words[1] = self.word1.load(Ordering::Relaxed);
        for (i, q) in self.body.iter().enumerate() {
            let q = q.load(Ordering::Relaxed);
            words[2 + 2 * i] = q as u32;
            words[3 + 2 * i] = (q >> 32) as u32;
        }
        words
    }

    /// Writes the body (bytes 4-63), then publishes word 0 with one release
    /// store of 32 bits.
    pub(crate) fn publish(&self, words: &[u32; PACKET_WORDS]) {
        self.word1.store(words[1], Ordering::Relaxed);
        for (i, q) in self.body.iter().enumerate() {
            q.store(body_qword(words, i), Ordering::Relaxed);
        }
        self.word0.store(words[0], Ordering::Release);
    }

    /// Copies the body out after word 0 was seen (with acquire) to hold
    /// `word0`, then resets the slot to INVALID. The caller publishes the
    /// reset by advancing the read index with release.
    pub(crate) fn consume(&self, word0: u32) -> [u32; PACKET_WORDS] {
        let words = self.read_body(word0);
        self.word0.store(INVALID_WORD0, Ordering::Relaxed);
        words
    }

    pub(crate) fn load_word0(&self) -> u32 {
        self.word0.load(Ordering::Acquire)
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for PacketSlot {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(f, "PacketSlot {{ header: {} }}", self.header());
    }
}

#[cfg(feature = "defmt")]
impl<D> defmt::Format for Ring<'_, D> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "Ring {{ size: {=usize}, write_index: {=u64}, read_index: {=u64} }}",
            self.slots.len(),
            self.write_index.load(Ordering::Relaxed),
            self.read_index.load(Ordering::Relaxed)
        );
    }
}

impl core::fmt::Debug for PacketSlot {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PacketSlot")
            .field("header", &self.header())
            .finish_non_exhaustive()
    }
}

/// A view of an AQL ring: `size` packet slots (a power of two) plus the
/// write and read indices, all in memory the caller provides (for ROCr's
/// layout, `amd_queue_t::write_dispatch_id` and `read_dispatch_id`; see
/// [`Ring::from_amd_queue`]), and the queue's doorbell.
///
/// The producer side takes `&self` and may be used from any number of
/// threads (an `HSA_QUEUE_TYPE_MULTI` queue). The packet-processor side is
/// a [`PacketProcessor`](crate::queue::PacketProcessor), of which each ring
/// view hands out one.
pub struct Ring<'a, D> {
    slots: &'a [PacketSlot],
    mask: u64,
    write_index: &'a AtomicU64,
    read_index: &'a AtomicU64,
    doorbell: D,
    /// The last read index a producer of this view loaded, so producers
    /// need not touch the read index's cache line (which the packet
    /// processor writes for every packet) unless the ring looks full.
    /// Stored with release after the acquire load of the real index, and
    /// loaded with acquire, so it carries the same happens-before edge.
    read_index_cache: AtomicU64,
    processor_claimed: AtomicBool,
}

impl<D> core::fmt::Debug for Ring<'_, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ring")
            .field("size", &self.slots.len())
            .field("write_index", &self.write_index.load(Ordering::Relaxed))
            .field("read_index", &self.read_index.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

/// Which of the memory orders of the HSA queue-index API
/// (`hsa_queue_load_write_index_scacquire`, `..._relaxed`, ...) to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LoadOrder {
    /// `_relaxed`.
    Relaxed,
    /// `_scacquire`.
    Acquire,
}

/// Store orders of the HSA queue-index API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum StoreOrder {
    /// `_relaxed`.
    Relaxed,
    /// `_screlease`.
    Release,
}

/// Read-modify-write orders of the HSA queue-index API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RmwOrder {
    /// `_relaxed`.
    Relaxed,
    /// `_scacquire`.
    Acquire,
    /// `_screlease`.
    Release,
    /// `_scacq_screl`.
    AcqRel,
}

impl LoadOrder {
    fn ordering(self) -> Ordering {
        match self {
            Self::Relaxed => Ordering::Relaxed,
            Self::Acquire => Ordering::Acquire,
        }
    }
}

impl StoreOrder {
    fn ordering(self) -> Ordering {
        match self {
            Self::Relaxed => Ordering::Relaxed,
            Self::Release => Ordering::Release,
        }
    }
}

impl RmwOrder {
    fn ordering(self) -> Ordering {
        match self {
            Self::Relaxed => Ordering::Relaxed,
            Self::Acquire => Ordering::Acquire,
            Self::Release => Ordering::Release,
            Self::AcqRel => Ordering::AcqRel,
        }
    }

    fn failure(self) -> Ordering {
        match self {
            Self::Relaxed | Self::Release => Ordering::Relaxed,
            Self::Acquire | Self::AcqRel => Ordering::Acquire,
        }
    }
}

impl<'a, D: Doorbell> Ring<'a, D> {
    /// A ring over `slots` with the given indices and doorbell.
    ///
    /// The slots must all be INVALID before the first packet is published
    /// (as [`PacketSlot::invalid`] makes them) and the indices equal; the
    /// number of slots must be a non-zero power of two that fits `u32`.
    pub fn new(
        slots: &'a [PacketSlot],
        write_index: &'a AtomicU64,
        read_index: &'a AtomicU64,
        doorbell: D,
    ) -> Result<Self, QueueError> {
        let size = slots.len();
        if !size.is_power_of_two() {
            return Err(QueueError::SizeNotPowerOfTwo(size));
        }
        if u32::try_from(size).is_err() {
            return Err(QueueError::SizeTooLarge(size));
        }
        Ok(Self {
            slots,
            mask: size as u64 - 1,
            write_index,
            read_index,
            doorbell,
            read_index_cache: AtomicU64::new(load_index(read_index, Ordering::Acquire)),
            processor_claimed: AtomicBool::new(false),
        })
    }

    /// The number of packet slots.
    pub fn size(&self) -> u64 {
        self.mask + 1
    }

    /// The slot that packet `packet_id` occupies.
    pub fn slot(&self, packet_id: u64) -> &PacketSlot {
        // `mask < slots.len()`, so the index is in bounds.
        &self.slots[(packet_id & self.mask) as usize]
    }

    /// The doorbell.
    pub fn doorbell(&self) -> &D {
        &self.doorbell
    }

    /// `hsa_queue_load_read_index_{relaxed,scacquire}`.
    pub fn load_read_index(&self, order: LoadOrder) -> u64 {
        load_index(self.read_index, order.ordering())
    }

    /// `hsa_queue_load_write_index_{relaxed,scacquire}`.
    pub fn load_write_index(&self, order: LoadOrder) -> u64 {
        load_index(self.write_index, order.ordering())
    }

    /// `hsa_queue_store_write_index_{relaxed,screlease}`: sets the write
    /// index outright. Only a single-producer queue may do this safely.
    pub fn store_write_index(&self, value: u64, order: StoreOrder) {
        store_index(self.write_index, value, order.ordering());
    }

    /// `hsa_queue_cas_write_index_*`: if the write index equals `expected`,
    /// replace it with `value`; returns the value seen either way.
    pub fn cas_write_index(&self, expected: u64, value: u64, order: RmwOrder) -> u64 {
        match self
            .write_index
            .compare_exchange(expected, value, order.ordering(), order.failure())
        {
            Ok(v) | Err(v) => v,
        }
    }

    /// `hsa_queue_add_write_index_*`: adds `value`, returns the previous index.
    pub fn add_write_index(&self, value: u64, order: RmwOrder) -> u64 {
        self.write_index.fetch_add(value, order.ordering())
    }

    fn check_count(&self, count: u64) -> Result<(), QueueError> {
        if count == 0 {
            return Err(QueueError::ZeroReservation);
        }
        if count > self.size() {
            return Err(QueueError::ReservationTooLarge {
                count,
                size: self.size(),
            });
        }
        Ok(())
    }

    /// Reserves `count` consecutive packet ids with a compare-and-swap on the
    /// write index, only if that many slots are free now; otherwise
    /// [`QueueError::Full`] and nothing changes.
    pub fn try_reserve(&self, count: u64) -> Result<Reservation<'_, 'a, D>, QueueError> {
        self.check_count(count)?;
        let size = self.size();
        let mut write = load_index(self.write_index, Ordering::Relaxed);
        let mut read = self.read_index_cache.load(Ordering::Acquire);
        let mut fresh_read = false;
        loop {
            let used = write.wrapping_sub(read);
            if used > u64::MAX / 2 || size - used.min(size) < count {
                if !fresh_read {
                    // The cached read index may be stale: load the real one.
                    // Acquire: the packet processor's reads of the slots we
                    // are about to reuse, and its reset of them to INVALID,
                    // happen before our writes.
                    read = self.refresh_read_index();
                    fresh_read = true;
                    continue;
                }
                if used > u64::MAX / 2 {
                    // The read index is ahead of the write index. `write`
                    // may just be stale: re-read once before calling it
                    // corrupt.
                    let fresh = load_index(self.write_index, Ordering::Relaxed);
                    if fresh != write {
                        write = fresh;
                        continue;
                    }
                    return Err(QueueError::CorruptIndices {
                        write_index: write,
                        read_index: read,
                    });
                }
                // More than `size` in use is legitimate: fetch-add producers
                // ([`Ring::reserve`]) reserve ahead and wait for their slots.
                return Err(QueueError::Full {
                    count,
                    free: size - used.min(size),
                });
            }
            match self.write_index.compare_exchange_weak(
                write,
                write.wrapping_add(count),
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Ok(Reservation::new(self, write, count)),
                Err(seen) => {
                    write = seen;
                    spin_loop();
                }
            }
        }
    }

    /// Loads the real read index (acquire) and publishes it to the cache.
    fn refresh_read_index(&self) -> u64 {
        let read = load_index(self.read_index, Ordering::Acquire);
        // Release: a producer that acquires the cache inherits our
        // happens-before edge with the packet processor.
        self.read_index_cache
            .fetch_max(read, Ordering::AcqRel)
            .max(read)
    }

    /// Reserves `count` consecutive packet ids with a fetch-add on the write
    /// index, then waits (calling `wait` between checks) until the packet
    /// processor has freed every reserved slot, so that nothing it has not
    /// consumed is ever overwritten.
    ///
    /// This is the `hsa_queue_add_write_index` pattern of HSA programs: it
    /// cannot fail for lack of space, only wait.
    pub fn reserve(
        &self,
        count: u64,
        mut wait: impl FnMut(),
    ) -> Result<Reservation<'_, 'a, D>, QueueError> {
        self.check_count(count)?;
        let first = self.write_index.fetch_add(count, Ordering::Relaxed);
        let last = first.wrapping_add(count - 1);
        // Slot `last` is free once the read index is past `last - size`.
        // Acquire (of the cache or the real index): see `try_reserve`.
        let mut read = self.read_index_cache.load(Ordering::Acquire);
        while last.wrapping_sub(read) >= self.size() {
            let fresh = self.refresh_read_index();
            if fresh == read {
                wait();
            }
            read = fresh;
        }
        Ok(Reservation::new(self, first, count))
    }

    /// Claims the packet-processor side of this ring view; `None` if it was
    /// already claimed. There must be one packet processor per queue.
    pub fn packet_processor(&self) -> Option<crate::queue::PacketProcessor<'_, 'a, D>> {
        if self.processor_claimed.swap(true, Ordering::AcqRel) {
            return None;
        }
        Some(crate::queue::PacketProcessor::new(
            self,
            load_index(self.read_index, Ordering::Acquire),
        ))
    }

    pub(crate) fn read_index_atomic(&self) -> &AtomicU64 {
        self.read_index
    }

    pub(crate) fn release_processor(&self) {
        self.processor_claimed.store(false, Ordering::Release);
    }
}

#[cfg(not(loom))]
impl<'a, D: Doorbell> Ring<'a, D> {
    /// A ring over the slots of an `amd_queue_t`, using its
    /// `write_dispatch_id` and `read_dispatch_id` as the indices.
    ///
    /// `slots` must be the queue's ring (`hsa_queue.base_address`, as this
    /// address space sees it) and hold exactly `hsa_queue.size` packets.
    pub fn from_amd_queue(
        queue: &'a crate::queue::AmdQueue,
        slots: &'a [PacketSlot],
        doorbell: D,
    ) -> Result<Self, QueueError> {
        if slots.len() != queue.hsa_queue.size as usize {
            return Err(QueueError::SizeMismatch {
                slots: slots.len(),
                queue_size: queue.hsa_queue.size,
            });
        }
        Self::new(
            slots,
            &queue.write_dispatch_id,
            &queue.read_dispatch_id,
            doorbell,
        )
    }
}

/// Packet ids reserved by one producer: publish them in order with
/// [`Reservation::push`]. When the reservation ends (dropped or
/// [`Reservation::finish`]ed), any id left unpublished is filled with a
/// no-op barrier-AND packet, so the packet processor, which consumes in
/// order, never stalls behind a hole; then the doorbell is rung once with
/// the last id.
#[must_use = "a reservation publishes no-op packets for whatever is not pushed"]
pub struct Reservation<'r, 'a, D: Doorbell> {
    ring: &'r Ring<'a, D>,
    first: u64,
    count: u64,
    published: u64,
}

impl<'r, 'a, D: Doorbell> Reservation<'r, 'a, D> {
    fn new(ring: &'r Ring<'a, D>, first: u64, count: u64) -> Self {
        Self {
            ring,
            first,
            count,
            published: 0,
        }
    }

    /// The first reserved packet id.
    pub fn first_id(&self) -> u64 {
        self.first
    }

    /// The id the next [`Reservation::push`] publishes.
    pub fn next_id(&self) -> u64 {
        self.first.wrapping_add(self.published)
    }

    /// The number of reserved ids.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Publishes `packet` in the next reserved slot and returns its id.
    pub fn push<P: AqlPacket>(&mut self, packet: &P) -> Result<u64, QueueError> {
        self.push_words(&packet.to_words())
    }

    /// Publishes 16 raw words (word 0 = header | the next 16 bits << 16) in
    /// the next reserved slot and returns its id. The words are not
    /// validated (the packet processor does that), so tests and tools can
    /// submit malformed packets; only an INVALID header is refused, since it
    /// would never be consumed.
    pub fn push_words(&mut self, words: &[u32; PACKET_WORDS]) -> Result<u64, QueueError> {
        if self.published == self.count {
            return Err(QueueError::ReservationExhausted { count: self.count });
        }
        if PacketHeader(words[0] as u16).is_invalid() {
            return Err(QueueError::PublishInvalid);
        }
        let id = self.first.wrapping_add(self.published);
        self.ring.slot(id).publish(words);
        self.published += 1;
        Ok(id)
    }

    /// Ends the reservation: fills unpublished ids with no-ops and rings the
    /// doorbell with the last id. Returns that id.
    pub fn finish(self) -> u64 {
        // `Drop` fills and rings; this only names the last id.
        self.first.wrapping_add(self.count - 1)
    }
}

impl<D: Doorbell> Drop for Reservation<'_, '_, D> {
    fn drop(&mut self) {
        if self.published < self.count {
            let mut noop = BarrierAndPacket::new([SignalHandle::NULL; 5], SignalHandle::NULL);
            noop.header = PacketHeader::new(PacketType::BarrierAnd);
            let words = noop.to_words();
            while self.published < self.count {
                let id = self.first.wrapping_add(self.published);
                self.ring.slot(id).publish(&words);
                self.published += 1;
            }
            warn!("reservation dropped with unpublished packets; filled them with no-op barriers");
        }
        self.ring
            .doorbell
            .ring(self.first.wrapping_add(self.count - 1));
    }
}
