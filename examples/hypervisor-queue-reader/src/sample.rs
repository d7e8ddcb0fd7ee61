//! Real guest images to read: a queue built and driven through `aql`'s own
//! producer and packet-processor API, dumped as the bytes a guest's memory
//! would hold.
//!
//! The guest layout: the `amd_queue_t` at [`SAMPLE_BASE`], its 16-slot ring
//! right after it. The ring in host memory is what the producer API writes;
//! `hsa_queue.base_address` holds the guest address the image puts it at.
//! All addresses in the packets are constants, so the image is
//! deterministic.

use aql::doorbell::NoDoorbell;
use aql::queue::{
    AmdQueue, AmdQueueProperties, PacketSlot, Poll, QueueFeatures, QueueType, Ring, RmwOrder,
};
use aql::{
    AgentDispatchPacket, AmdBarrierValuePacket, AqlPacket, BarrierAndPacket, BarrierOrPacket,
    FenceScope, KernelDispatchPacket, SignalCondition, SignalHandle,
};
use core::mem::offset_of;
use core::sync::atomic::Ordering::Relaxed;
use zerocopy::IntoBytes;

/// Guest address of the image's first byte (and of its `amd_queue_t`).
pub const SAMPLE_BASE: u64 = 0x8_0000_0000;
/// Packets in the sample ring.
pub const SAMPLE_SLOTS: usize = 16;
/// Image offset of the ring.
pub const SAMPLE_RING_OFFSET: usize = 256;

/// A guest memory image and where its queue is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuestImage {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// Guest address of `bytes[0]`.
    pub base: u64,
    /// Guest address of the `amd_queue_t`.
    pub queue_address: u64,
}

/// A made-up signal address in the guest (the reader never follows it).
fn sig(n: u64) -> SignalHandle {
    SignalHandle {
        handle: 0x9_0000_0000 + 64 * n,
    }
}

/// The bytes of an `amd_queue_t`, field by field (its atomics are loaded).
pub fn amd_queue_bytes(q: &AmdQueue) -> [u8; 256] {
    let mut b = [0u8; 256];
    let mut put = |off: usize, bytes: &[u8]| b[off..off + bytes.len()].copy_from_slice(bytes);
    put(0, q.hsa_queue.as_bytes());
    put(offset_of!(AmdQueue, reserved1), q.reserved1.as_bytes());
    put(
        offset_of!(AmdQueue, write_dispatch_id),
        &q.write_dispatch_id.load(Relaxed).to_le_bytes(),
    );
    put(
        offset_of!(AmdQueue, group_segment_aperture_base_hi),
        &q.group_segment_aperture_base_hi.to_le_bytes(),
    );
    put(
        offset_of!(AmdQueue, private_segment_aperture_base_hi),
        &q.private_segment_aperture_base_hi.to_le_bytes(),
    );
    put(offset_of!(AmdQueue, max_cu_id), &q.max_cu_id.to_le_bytes());
    put(
        offset_of!(AmdQueue, max_wave_id),
        &q.max_wave_id.to_le_bytes(),
    );
    put(
        offset_of!(AmdQueue, max_legacy_doorbell_dispatch_id_plus_1),
        &q.max_legacy_doorbell_dispatch_id_plus_1
            .load(Relaxed)
            .to_le_bytes(),
    );
    put(
        offset_of!(AmdQueue, legacy_doorbell_lock),
        &q.legacy_doorbell_lock.load(Relaxed).to_le_bytes(),
    );
    put(offset_of!(AmdQueue, reserved2), q.reserved2.as_bytes());
    put(
        offset_of!(AmdQueue, read_dispatch_id),
        &q.read_dispatch_id.load(Relaxed).to_le_bytes(),
    );
    put(
        offset_of!(AmdQueue, read_dispatch_id_field_base_byte_offset),
        &q.read_dispatch_id_field_base_byte_offset.to_le_bytes(),
    );
    put(
        offset_of!(AmdQueue, compute_tmpring_size),
        &q.compute_tmpring_size.to_le_bytes(),
    );
    put(
        offset_of!(AmdQueue, scratch_resource_descriptor),
        q.scratch_resource_descriptor.as_bytes(),
    );
    put(
        offset_of!(AmdQueue, scratch_backing_memory_location),
        &q.scratch_backing_memory_location.to_le_bytes(),
    );
    put(
        offset_of!(AmdQueue, scratch_backing_memory_byte_size),
        &q.scratch_backing_memory_byte_size.to_le_bytes(),
    );
    put(
        offset_of!(AmdQueue, scratch_wave64_lane_byte_size),
        &q.scratch_wave64_lane_byte_size.to_le_bytes(),
    );
    put(
        offset_of!(AmdQueue, queue_properties),
        &q.queue_properties.to_le_bytes(),
    );
    put(offset_of!(AmdQueue, reserved3), q.reserved3.as_bytes());
    put(
        offset_of!(AmdQueue, queue_inactive_signal),
        q.queue_inactive_signal.as_bytes(),
    );
    put(offset_of!(AmdQueue, reserved4), q.reserved4.as_bytes());
    b
}

/// The guest image of a queue that ran for a while: 12 packets submitted
/// and consumed (so the ring has wrapped), then 7 published through one
/// reservation (a 3-D dispatch with the barrier bit, a barrier-AND, a
/// barrier-OR, an AMD barrier-value, an agent dispatch, a malformed
/// dispatch pushed as raw words, a 1-D dispatch), then one packet id
/// reserved with `add_write_index` and not yet written.
pub fn sample_image() -> GuestImage {
    let mut queue = AmdQueue::zeroed();
    queue.hsa_queue.type_ = QueueType::Multi as u32;
    queue.hsa_queue.features =
        (QueueFeatures::KERNEL_DISPATCH | QueueFeatures::AGENT_DISPATCH).bits();
    queue.hsa_queue.base_address = SAMPLE_BASE + SAMPLE_RING_OFFSET as u64;
    queue.hsa_queue.doorbell_signal = sig(0);
    queue.hsa_queue.size = SAMPLE_SLOTS as u32;
    queue.hsa_queue.id = 7;
    queue.max_cu_id = 103;
    queue.max_wave_id = 31;
    queue.read_dispatch_id_field_base_byte_offset = offset_of!(AmdQueue, read_dispatch_id) as u32;
    queue.queue_properties = AmdQueueProperties::IS_PTR64.bits();
    let slots: Vec<PacketSlot> = (0..SAMPLE_SLOTS).map(|_| PacketSlot::invalid()).collect();
    {
        let ring = Ring::from_amd_queue(&queue, &slots, NoDoorbell).expect("a 16-slot ring");
        // 12 packets, consumed and completed by a packet processor.
        let mut res = ring.try_reserve(12).expect("an empty ring has 16 slots");
        for i in 0..12u32 {
            let p = KernelDispatchPacket::new(
                0x7f00_0000_0000,
                0x7f10_0000_0000 + 64 * u64::from(i),
                [64 * (i + 1), 1, 1],
                [64, 1, 1],
            );
            res.push(&p).expect("reserved");
        }
        res.finish();
        let mut pp = ring.packet_processor().expect("one processor");
        for _ in 0..12 {
            match pp.poll() {
                Poll::Ready(f) => pp
                    .complete(f.completion)
                    .expect("the token of this processor"),
                other => panic!("sample ring: {other:?}"),
            }
        }
        drop(pp);

        let mut res = ring.try_reserve(7).expect("12 of 16 slots are free again");
        let mut d3 =
            KernelDispatchPacket::new(0x7f00_0000_0100, 0x7f20_0000_0000, [256, 16, 4], [16, 4, 2]);
        d3.header = d3
            .header
            .with_barrier(true)
            .with_acquire_fence_scope(FenceScope::Agent);
        d3.private_segment_size = 256;
        d3.group_segment_size = 4096;
        d3.completion_signal = sig(1);
        res.push(&d3).expect("reserved");
        let null = SignalHandle::NULL;
        res.push(&BarrierAndPacket::new(
            [sig(1), sig(2), null, null, sig(3)],
            sig(4),
        ))
        .expect("reserved");
        res.push(&BarrierOrPacket::new(
            [sig(4), null, null, null, null],
            sig(5),
        ))
        .expect("reserved");
        res.push(&AmdBarrierValuePacket::new(
            sig(5),
            SignalCondition::Lt,
            10,
            0xffff,
            sig(6),
        ))
        .expect("reserved");
        res.push(&AgentDispatchPacket::new(
            0x8001,
            [1, 2, 3, 4],
            0x7f30_0000_0000,
        ))
        .expect("reserved");
        // Workgroup larger than the grid: the packet processor rejects it.
        let bad =
            KernelDispatchPacket::new(0x7f00_0000_0000, 0x7f20_0000_0040, [32, 1, 1], [64, 1, 1]);
        res.push_words(&bad.to_words()).expect("reserved");
        let d1 = KernelDispatchPacket {
            completion_signal: sig(7),
            ..KernelDispatchPacket::new(
                0x7f00_0000_0000,
                0x7f20_0000_0080,
                [1 << 20, 1, 1],
                [256, 1, 1],
            )
        };
        res.push(&d1).expect("reserved");
        res.finish();
        // A producer that reserved an id and has not written it yet.
        ring.add_write_index(1, RmwOrder::Relaxed);
    }
    let mut bytes = Vec::with_capacity(SAMPLE_RING_OFFSET + SAMPLE_SLOTS * 64);
    bytes.extend_from_slice(&amd_queue_bytes(&queue));
    for slot in &slots {
        bytes.extend_from_slice(slot.load_words().as_bytes());
    }
    GuestImage {
        bytes,
        base: SAMPLE_BASE,
        queue_address: SAMPLE_BASE,
    }
}
