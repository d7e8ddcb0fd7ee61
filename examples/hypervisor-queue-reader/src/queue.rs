//! The queue descriptor and the packets between the read and write index,
//! read with snapshot discipline and validated.

use crate::memory::{GuestMemory, ReadError};
use aql::queue::{
    AMD_QUEUE_PROPERTIES_RESERVED1, AmdQueue, AmdQueueProperties, HsaQueue, QueueFeatures,
};
use aql::{Packet, PacketError, PacketHeader, SignalHandle};
use core::fmt;
use core::mem::{offset_of, size_of};
use core::ops::Range;
use core::sync::atomic::Ordering::Relaxed;
use zerocopy::FromBytes;

/// Bytes of an `amd_queue_t`.
pub const AMD_QUEUE_BYTES: usize = size_of::<AmdQueue>();
/// Bytes of an AQL packet.
pub const PACKET_BYTES: u64 = aql::packet::PACKET_SIZE as u64;
/// How often a packet (or the descriptor) is read before a guest that keeps
/// changing it is reported.
pub const PACKET_READ_ATTEMPTS: u32 = 3;

/// The descriptor bytes other agents update while the queue runs: the two
/// indices and the legacy doorbell words. Everything else must stay put.
const MOVING_FIELDS: [Range<usize>; 3] = [
    offset_of!(AmdQueue, write_dispatch_id)..offset_of!(AmdQueue, write_dispatch_id) + 8,
    offset_of!(AmdQueue, max_legacy_doorbell_dispatch_id_plus_1)
        ..offset_of!(AmdQueue, legacy_doorbell_lock) + 4,
    offset_of!(AmdQueue, read_dispatch_id)..offset_of!(AmdQueue, read_dispatch_id) + 8,
];

/// Why the queue cannot be read at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueError {
    /// The `amd_queue_t` is not (wholly) in guest memory.
    Descriptor(ReadError),
    /// The `amd_queue_t` address is not 64-byte aligned (`amd_hsa_queue.h`
    /// declares it `AMD_HSA_QUEUE_ALIGN_BYTES` = 64).
    Misaligned {
        /// The address given.
        address: u64,
    },
    /// A field that must not change while the queue runs differed between
    /// two reads, [`PACKET_READ_ATTEMPTS`] times.
    DescriptorChanged {
        /// Byte offset in the `amd_queue_t` of the first difference.
        offset: usize,
    },
    /// `hsa_queue.size` is 0.
    SizeZero,
    /// `hsa_queue.size` is not a power of two.
    SizeNotPowerOfTwo(u32),
    /// `hsa_queue.base_address` is not 64-byte aligned.
    RingMisaligned {
        /// The address.
        base_address: u64,
    },
    /// The ring is not (wholly) in guest memory.
    Ring(ReadError),
    /// The write index is behind the read index, or more than `size`
    /// packets ahead of it.
    IndicesCorrupt {
        /// `read_dispatch_id`.
        read_index: u64,
        /// `write_dispatch_id`.
        write_index: u64,
        /// `hsa_queue.size`.
        size: u32,
    },
}

impl fmt::Display for QueueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Descriptor(e) => write!(f, "{e}"),
            Self::Misaligned { address } => {
                write!(f, "amd_queue_t at {address:#x} is not 64-byte aligned")
            }
            Self::DescriptorChanged { offset } => write!(
                f,
                "amd_queue_t byte {offset} changed between reads {PACKET_READ_ATTEMPTS} times (fields other than the indices must not change while the queue runs)"
            ),
            Self::SizeZero => write!(f, "hsa_queue.size is 0"),
            Self::SizeNotPowerOfTwo(s) => write!(f, "hsa_queue.size {s} is not a power of two"),
            Self::RingMisaligned { base_address } => write!(
                f,
                "hsa_queue.base_address {base_address:#x} is not 64-byte aligned"
            ),
            Self::Ring(e) => write!(f, "{e}"),
            Self::IndicesCorrupt {
                read_index,
                write_index,
                size,
            } => write!(
                f,
                "write_dispatch_id {write_index} and read_dispatch_id {read_index} are not 0..={size} packets apart"
            ),
        }
    }
}

impl std::error::Error for QueueError {}

/// Something odd about the descriptor that does not stop the reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finding {
    /// `hsa_queue.type` is not an `hsa_queue_type_t`.
    UnknownQueueType(u32),
    /// `hsa_queue.features` has bits HSA does not define.
    UnknownFeatureBits(u32),
    /// A reserved field is not 0.
    ReservedNonZero(&'static str),
    /// `queue_properties` has reserved bits set.
    ReservedPropertyBits(u32),
    /// `read_dispatch_id_field_base_byte_offset` does not point at
    /// `read_dispatch_id` (128).
    ReadPointerOffset(u32),
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::UnknownQueueType(t) => write!(f, "hsa_queue.type {t} is no hsa_queue_type_t"),
            Self::UnknownFeatureBits(b) => write!(f, "hsa_queue.features has unknown bits {b:#x}"),
            Self::ReservedNonZero(field) => write!(f, "reserved field {field} is not 0"),
            Self::ReservedPropertyBits(b) => write!(f, "queue_properties has reserved bits {b:#x}"),
            Self::ReadPointerOffset(o) => write!(
                f,
                "read_dispatch_id_field_base_byte_offset is {o}, not {}",
                offset_of!(AmdQueue, read_dispatch_id)
            ),
        }
    }
}

/// The decoded `amd_queue_t`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueState {
    /// Guest address of the `amd_queue_t`.
    pub address: u64,
    /// The `hsa_queue_t` part.
    pub hsa_queue: HsaQueue,
    /// `write_dispatch_id`.
    pub write_dispatch_id: u64,
    /// `read_dispatch_id`.
    pub read_dispatch_id: u64,
    /// `max_cu_id`.
    pub max_cu_id: u32,
    /// `max_wave_id`.
    pub max_wave_id: u32,
    /// `compute_tmpring_size`.
    pub compute_tmpring_size: u32,
    /// `scratch_backing_memory_location`.
    pub scratch_backing_memory_location: u64,
    /// `scratch_backing_memory_byte_size`.
    pub scratch_backing_memory_byte_size: u64,
    /// `queue_properties`.
    pub properties: AmdQueueProperties,
    /// `queue_inactive_signal`.
    pub queue_inactive_signal: SignalHandle,
    /// Oddities that do not stop the reading.
    pub findings: Vec<Finding>,
}

/// Why a slot between the indices yields no packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotProblem {
    /// The slot is not in guest memory (cannot happen once the ring was
    /// checked, unless guest memory shrinks).
    Read(ReadError),
    /// The slot differed between two reads, [`PACKET_READ_ATTEMPTS`] times
    /// (a producer is writing it, or the guest is hostile).
    Changed,
    /// The header is still `HSA_PACKET_TYPE_INVALID`: the packet id is
    /// reserved but not yet published.
    NotPublished,
    /// The packet is malformed: `aql`'s validation says how.
    Invalid(PacketError),
}

impl fmt::Display for SlotProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Read(e) => write!(f, "{e}"),
            Self::Changed => write!(
                f,
                "the slot changed while it was read ({PACKET_READ_ATTEMPTS} attempts)"
            ),
            Self::NotPublished => write!(f, "reserved, not yet published (header INVALID)"),
            Self::Invalid(e) => write!(f, "invalid packet: {e}"),
        }
    }
}

/// One packet id between the read and the write index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PacketRecord {
    /// The packet id.
    pub id: u64,
    /// Guest address of its slot.
    pub address: u64,
    /// The 64 bytes as read (when a stable copy was obtained).
    pub bytes: Option<[u8; 64]>,
    /// The decoded packet, or why there is none.
    pub packet: Result<Packet, SlotProblem>,
    /// The read index moved past this id while we read: the guest's packet
    /// processor took it, and the slot may already hold a newer packet.
    pub consumed_while_read: bool,
}

/// The queue and its pending packets, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueSnapshot {
    /// The descriptor.
    pub state: QueueState,
    /// Packets `read_dispatch_id..write_dispatch_id`, at most `limit`.
    pub packets: Vec<PacketRecord>,
    /// Pending packets not listed because of the limit.
    pub not_listed: u64,
    /// `read_dispatch_id` read again after the packets.
    pub read_index_after: u64,
}

impl QueueSnapshot {
    /// Listed packets that are malformed, changed while read or unreadable
    /// (a reserved, not yet published slot is a normal state, not counted).
    pub fn packets_with_errors(&self) -> usize {
        self.packets
            .iter()
            .filter(|p| matches!(p.packet, Err(ref e) if *e != SlotProblem::NotPublished))
            .count()
    }
}

fn read_descriptor(
    mem: &(impl GuestMemory + ?Sized),
    address: u64,
) -> Result<[u8; AMD_QUEUE_BYTES], QueueError> {
    let mut offset = 0;
    for _ in 0..PACKET_READ_ATTEMPTS {
        let mut first = [0u8; AMD_QUEUE_BYTES];
        let mut second = [0u8; AMD_QUEUE_BYTES];
        mem.read("amd_queue_t", address, &mut first)
            .map_err(QueueError::Descriptor)?;
        mem.read("amd_queue_t", address, &mut second)
            .map_err(QueueError::Descriptor)?;
        match (0..AMD_QUEUE_BYTES)
            .find(|&i| first[i] != second[i] && !MOVING_FIELDS.iter().any(|r| r.contains(&i)))
        {
            None => return Ok(second),
            Some(i) => offset = i,
        }
    }
    Err(QueueError::DescriptorChanged { offset })
}

fn decode_state(address: u64, bytes: &[u8; AMD_QUEUE_BYTES]) -> QueueState {
    // `AmdQueue` is `FromBytes`: any 256 bytes are a value of it, so this
    // is a copy, not a trust decision; its atomics are ours alone.
    let q = AmdQueue::read_from_bytes(bytes).unwrap_or_else(|_| AmdQueue::zeroed());
    let mut findings = Vec::new();
    if let Err(t) = q.hsa_queue.queue_type() {
        findings.push(Finding::UnknownQueueType(t));
    }
    let unknown = q.hsa_queue.features & !QueueFeatures::all().bits();
    if unknown != 0 {
        findings.push(Finding::UnknownFeatureBits(unknown));
    }
    let reserved: [(&'static str, bool); 5] = [
        ("hsa_queue.reserved1", q.hsa_queue.reserved1 != 0),
        ("reserved1", q.reserved1 != [0; 4]),
        ("reserved2", q.reserved2 != [0; 9]),
        ("reserved3", q.reserved3 != [0; 2]),
        ("reserved4", q.reserved4 != [0; 14]),
    ];
    findings.extend(
        reserved
            .iter()
            .filter(|(_, set)| *set)
            .map(|(f, _)| Finding::ReservedNonZero(f)),
    );
    if q.queue_properties & AMD_QUEUE_PROPERTIES_RESERVED1 != 0 {
        findings.push(Finding::ReservedPropertyBits(
            q.queue_properties & AMD_QUEUE_PROPERTIES_RESERVED1,
        ));
    }
    let rp = q.read_dispatch_id_field_base_byte_offset;
    if rp != offset_of!(AmdQueue, read_dispatch_id) as u32 {
        findings.push(Finding::ReadPointerOffset(rp));
    }
    QueueState {
        address,
        hsa_queue: q.hsa_queue,
        write_dispatch_id: q.write_dispatch_id.load(Relaxed),
        read_dispatch_id: q.read_dispatch_id.load(Relaxed),
        max_cu_id: q.max_cu_id,
        max_wave_id: q.max_wave_id,
        compute_tmpring_size: q.compute_tmpring_size,
        scratch_backing_memory_location: q.scratch_backing_memory_location,
        scratch_backing_memory_byte_size: q.scratch_backing_memory_byte_size,
        properties: q.properties(),
        queue_inactive_signal: q.queue_inactive_signal,
        findings,
    }
}

/// Reads one slot twice until both copies agree.
fn read_slot(mem: &(impl GuestMemory + ?Sized), address: u64) -> Result<[u8; 64], SlotProblem> {
    for _ in 0..PACKET_READ_ATTEMPTS {
        let mut first = [0u8; 64];
        let mut second = [0u8; 64];
        mem.read("packet slot", address, &mut first)
            .map_err(SlotProblem::Read)?;
        mem.read("packet slot", address, &mut second)
            .map_err(SlotProblem::Read)?;
        if first == second {
            return Ok(first);
        }
    }
    Err(SlotProblem::Changed)
}

/// Reads the `amd_queue_t` at guest address `queue_address` and the packets
/// between its read and write index (at most `limit` of them).
pub fn read_queue(
    mem: &(impl GuestMemory + ?Sized),
    queue_address: u64,
    limit: usize,
) -> Result<QueueSnapshot, QueueError> {
    if queue_address % 64 != 0 {
        return Err(QueueError::Misaligned {
            address: queue_address,
        });
    }
    let bytes = read_descriptor(mem, queue_address)?;
    let state = decode_state(queue_address, &bytes);
    let size = state.hsa_queue.size;
    if size == 0 {
        return Err(QueueError::SizeZero);
    }
    if !size.is_power_of_two() {
        return Err(QueueError::SizeNotPowerOfTwo(size));
    }
    let base = state.hsa_queue.base_address;
    if base % 64 != 0 {
        return Err(QueueError::RingMisaligned { base_address: base });
    }
    mem.check("ring", base, u64::from(size) * PACKET_BYTES)
        .map_err(QueueError::Ring)?;
    let (read, write) = (state.read_dispatch_id, state.write_dispatch_id);
    let pending = write.wrapping_sub(read);
    if pending > u64::from(size) {
        return Err(QueueError::IndicesCorrupt {
            read_index: read,
            write_index: write,
            size,
        });
    }
    let listed = pending.min(limit as u64);
    let mask = u64::from(size) - 1;
    let mut packets = Vec::with_capacity(listed as usize);
    for k in 0..listed {
        let id = read.wrapping_add(k);
        // (id & mask) < size and the ring was checked: no overflow.
        let address = base + (id & mask) * PACKET_BYTES;
        let (bytes, packet) = match read_slot(mem, address) {
            Ok(b) => {
                let header = PacketHeader(u16::from_le_bytes([b[0], b[1]]));
                let packet = if header.is_invalid() {
                    Err(SlotProblem::NotPublished)
                } else {
                    Packet::decode_bytes(&b).map_err(SlotProblem::Invalid)
                };
                (Some(b), packet)
            }
            Err(e) => (None, Err(e)),
        };
        packets.push(PacketRecord {
            id,
            address,
            bytes,
            packet,
            consumed_while_read: false,
        });
    }
    // Ids the guest consumed while we read may show a reused slot.
    let read_index_after = mem
        .read_u64(
            "read_dispatch_id",
            queue_address + offset_of!(AmdQueue, read_dispatch_id) as u64,
        )
        .unwrap_or(read);
    for p in &mut packets {
        p.consumed_while_read = read_index_after.wrapping_sub(read) > p.id.wrapping_sub(read);
    }
    Ok(QueueSnapshot {
        state,
        packets,
        not_listed: pending - listed,
        read_index_after,
    })
}
