//! `hsa_queue_t` (`hsa.h`) and `amd_queue_t` (`amd_hsa_queue.h`, ROCr 5.2.3).

use crate::packet::SignalHandle;
use core::mem::{align_of, offset_of, size_of};
use core::sync::atomic::AtomicU32;
// The C layout's atomics: `core`'s (also under loom, whose atomics have no C
// layout), portable-atomic's where 64-bit atomics are not native (see
// `crate::sync`: read and write the indices with `load_index` /
// `store_index` there).
#[cfg(target_has_atomic = "64")]
use core::sync::atomic::AtomicU64;
#[cfg(all(not(target_has_atomic = "64"), feature = "portable-atomic"))]
use portable_atomic::AtomicU64;

/// `hsa_queue_type_t` (stored as `hsa_queue_type32_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u32)]
pub enum QueueType {
    /// `HSA_QUEUE_TYPE_MULTI`: several producers may submit.
    Multi = 0,
    /// `HSA_QUEUE_TYPE_SINGLE`: one producer.
    Single = 1,
    /// `HSA_QUEUE_TYPE_COOPERATIVE`: a queue shared by cooperative dispatches.
    Cooperative = 2,
}

impl TryFrom<u32> for QueueType {
    type Error = u32;

    /// Decodes the raw type; the error is the unknown value.
    fn try_from(raw: u32) -> Result<Self, u32> {
        Ok(match raw {
            0 => Self::Multi,
            1 => Self::Single,
            2 => Self::Cooperative,
            other => return Err(other),
        })
    }
}

bitflags::bitflags! {
    /// `hsa_queue_feature_t`: the packet kinds a queue accepts.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct QueueFeatures: u32 {
        /// `HSA_QUEUE_FEATURE_KERNEL_DISPATCH`.
        const KERNEL_DISPATCH = 1;
        /// `HSA_QUEUE_FEATURE_AGENT_DISPATCH`.
        const AGENT_DISPATCH = 2;
    }
}

bitflags::bitflags! {
    /// `amd_queue_properties_t` (`amd_hsa_queue.h`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct AmdQueueProperties: u32 {
        /// `AMD_QUEUE_PROPERTIES_ENABLE_TRAP_HANDLER` (bit 0).
        const ENABLE_TRAP_HANDLER = 1 << 0;
        /// `AMD_QUEUE_PROPERTIES_IS_PTR64` (bit 1).
        const IS_PTR64 = 1 << 1;
        /// `AMD_QUEUE_PROPERTIES_ENABLE_TRAP_HANDLER_DEBUG_SGPRS` (bit 2).
        const ENABLE_TRAP_HANDLER_DEBUG_SGPRS = 1 << 2;
        /// `AMD_QUEUE_PROPERTIES_ENABLE_PROFILING` (bit 3).
        const ENABLE_PROFILING = 1 << 3;
        /// `AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE` (bit 4).
        const USE_SCRATCH_ONCE = 1 << 4;
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for QueueFeatures {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(f, "QueueFeatures({=u32:#x})", self.bits());
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for AmdQueueProperties {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(f, "AmdQueueProperties({=u32:#x})", self.bits());
    }
}

/// `AMD_QUEUE_PROPERTIES_RESERVED1`: bits 5-31 of `queue_properties`.
pub const AMD_QUEUE_PROPERTIES_RESERVED1: u32 = !0x1f;

/// `hsa_queue_t`: the part of a queue every HSA agent understands.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    zerocopy::FromBytes,
    zerocopy::IntoBytes,
    zerocopy::Immutable,
    zerocopy::KnownLayout,
)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(C)]
pub struct HsaQueue {
    /// `hsa_queue_type32_t` (C field `type`); see [`HsaQueue::queue_type`].
    pub type_: u32,
    /// `hsa_queue_feature_t` bits; see [`HsaQueue::queue_features`].
    pub features: u32,
    /// Address of the ring of `size` packets (`void*` in the large model).
    pub base_address: u64,
    /// The doorbell signal producers store packet ids to.
    pub doorbell_signal: SignalHandle,
    /// Ring size in packets, a power of two.
    pub size: u32,
    /// Reserved, must be 0.
    pub reserved1: u32,
    /// Queue id, unique in the process.
    pub id: u64,
}

const _: () = {
    type Q = HsaQueue;
    assert!(size_of::<Q>() == 40);
    assert!(align_of::<Q>() == 8);
    assert!(offset_of!(Q, type_) == 0);
    assert!(offset_of!(Q, features) == 4);
    assert!(offset_of!(Q, base_address) == 8);
    assert!(offset_of!(Q, doorbell_signal) == 16);
    assert!(offset_of!(Q, size) == 24);
    assert!(offset_of!(Q, reserved1) == 28);
    assert!(offset_of!(Q, id) == 32);
};

impl HsaQueue {
    /// The queue type, or the raw value if it is not one HSA defines.
    pub fn queue_type(&self) -> Result<QueueType, u32> {
        QueueType::try_from(self.type_)
    }

    /// The feature bits (unknown bits kept).
    pub const fn queue_features(&self) -> QueueFeatures {
        QueueFeatures::from_bits_retain(self.features)
    }
}

/// `amd_queue_t`: ROCr's queue descriptor, shared with the GPU's command
/// processor (64-byte aligned, 256 bytes).
///
/// The words other agents update while the queue runs (the dispatch ids and
/// the legacy doorbell lock) are atomics; the rest is written once when the
/// queue is created and must not change while the queue is shared.
///
/// Where 64-bit atomics are emulated (`portable-atomic`), portable-atomic's
/// `AtomicU64` is not `zerocopy::FromBytes`, so neither is this struct
/// there; [`AmdQueue::zeroed`] is available everywhere.
#[cfg_attr(
    target_has_atomic = "64",
    derive(zerocopy::FromBytes, zerocopy::KnownLayout)
)]
#[repr(C, align(64))]
pub struct AmdQueue {
    /// The HSA part of the queue.
    pub hsa_queue: HsaQueue,
    /// Reserved (word 0 is `amd_queue_v2_t`'s `caps`: [`super::v2::CAPS`]).
    pub reserved1: [u32; 4],
    /// The write index: the id of the next packet a producer reserves.
    pub write_dispatch_id: AtomicU64,
    /// High 32 bits of the group (LDS) aperture base.
    pub group_segment_aperture_base_hi: u32,
    /// High 32 bits of the private (scratch) aperture base.
    pub private_segment_aperture_base_hi: u32,
    /// Highest compute-unit id.
    pub max_cu_id: u32,
    /// Highest wave id per compute unit.
    pub max_wave_id: u32,
    /// Legacy doorbell protocol: highest dispatch id rung, plus one.
    pub max_legacy_doorbell_dispatch_id_plus_1: AtomicU64,
    /// Legacy doorbell protocol lock.
    pub legacy_doorbell_lock: AtomicU32,
    /// Reserved.
    pub reserved2: [u32; 9],
    /// The read index: the id of the next packet the packet processor consumes.
    pub read_dispatch_id: AtomicU64,
    /// Byte offset of `read_dispatch_id` from the queue's base, for the CP.
    pub read_dispatch_id_field_base_byte_offset: u32,
    /// `COMPUTE_TMPRING_SIZE` register value for scratch.
    pub compute_tmpring_size: u32,
    /// The scratch buffer resource descriptor (V#).
    pub scratch_resource_descriptor: [u32; 4],
    /// Address of the scratch backing memory.
    pub scratch_backing_memory_location: u64,
    /// Size of the scratch backing memory in bytes.
    pub scratch_backing_memory_byte_size: u64,
    /// Scratch bytes per lane of a wave64.
    pub scratch_wave64_lane_byte_size: u32,
    /// `amd_queue_properties_t` bits; see [`AmdQueue::properties`].
    pub queue_properties: u32,
    /// Reserved (`amd_queue_v2_t`'s `scratch_max_use_index`:
    /// [`super::v2::SCRATCH_MAX_USE_INDEX`]).
    pub reserved3: [u32; 2],
    /// Signal set when the queue becomes inactive (error or destroyed).
    pub queue_inactive_signal: SignalHandle,
    /// Reserved (`amd_queue_v2_t`'s alternate scratch fields: [`super::v2`]).
    pub reserved4: [u32; 14],
}

const _: () = {
    type Q = AmdQueue;
    assert!(size_of::<Q>() == 256);
    assert!(align_of::<Q>() == 64);
    assert!(offset_of!(Q, hsa_queue) == 0);
    assert!(offset_of!(Q, reserved1) == 40);
    assert!(offset_of!(Q, write_dispatch_id) == 56);
    assert!(offset_of!(Q, group_segment_aperture_base_hi) == 64);
    assert!(offset_of!(Q, private_segment_aperture_base_hi) == 68);
    assert!(offset_of!(Q, max_cu_id) == 72);
    assert!(offset_of!(Q, max_wave_id) == 76);
    assert!(offset_of!(Q, max_legacy_doorbell_dispatch_id_plus_1) == 80);
    assert!(offset_of!(Q, legacy_doorbell_lock) == 88);
    assert!(offset_of!(Q, reserved2) == 92);
    assert!(offset_of!(Q, read_dispatch_id) == 128);
    assert!(offset_of!(Q, read_dispatch_id_field_base_byte_offset) == 136);
    assert!(offset_of!(Q, compute_tmpring_size) == 140);
    assert!(offset_of!(Q, scratch_resource_descriptor) == 144);
    assert!(offset_of!(Q, scratch_backing_memory_location) == 160);
    assert!(offset_of!(Q, scratch_backing_memory_byte_size) == 168);
    assert!(offset_of!(Q, scratch_wave64_lane_byte_size) == 176);
    assert!(offset_of!(Q, queue_properties) == 180);
    assert!(offset_of!(Q, reserved3) == 184);
    assert!(offset_of!(Q, queue_inactive_signal) == 192);
    assert!(offset_of!(Q, reserved4) == 200);
};

impl AmdQueue {
    /// A queue descriptor with every field zero.
    #[cfg(target_has_atomic = "64")]
    pub fn zeroed() -> Self {
        zerocopy::FromZeros::new_zeroed()
    }

    /// A queue descriptor with every field zero.
    #[cfg(all(not(target_has_atomic = "64"), feature = "portable-atomic"))]
    pub fn zeroed() -> Self {
        Self {
            hsa_queue: HsaQueue::default(),
            reserved1: [0; 4],
            write_dispatch_id: AtomicU64::new(0),
            group_segment_aperture_base_hi: 0,
            private_segment_aperture_base_hi: 0,
            max_cu_id: 0,
            max_wave_id: 0,
            max_legacy_doorbell_dispatch_id_plus_1: AtomicU64::new(0),
            legacy_doorbell_lock: AtomicU32::new(0),
            reserved2: [0; 9],
            read_dispatch_id: AtomicU64::new(0),
            read_dispatch_id_field_base_byte_offset: 0,
            compute_tmpring_size: 0,
            scratch_resource_descriptor: [0; 4],
            scratch_backing_memory_location: 0,
            scratch_backing_memory_byte_size: 0,
            scratch_wave64_lane_byte_size: 0,
            queue_properties: 0,
            reserved3: [0; 2],
            queue_inactive_signal: SignalHandle::NULL,
            reserved4: [0; 14],
        }
    }

    /// The AMD queue properties (unknown bits kept).
    pub const fn properties(&self) -> AmdQueueProperties {
        AmdQueueProperties::from_bits_retain(self.queue_properties)
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for AmdQueue {
    fn format(&self, f: defmt::Formatter<'_>) {
        use core::sync::atomic::Ordering::Relaxed;
        defmt::write!(
            f,
            "AmdQueue {{ hsa_queue: {}, write_dispatch_id: {=u64}, read_dispatch_id: {=u64}, queue_properties: {} }}",
            self.hsa_queue,
            self.write_dispatch_id.load(Relaxed),
            self.read_dispatch_id.load(Relaxed),
            self.properties()
        );
    }
}

impl core::fmt::Debug for AmdQueue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        use core::sync::atomic::Ordering::Relaxed;
        f.debug_struct("AmdQueue")
            .field("hsa_queue", &self.hsa_queue)
            .field("write_dispatch_id", &self.write_dispatch_id.load(Relaxed))
            .field("read_dispatch_id", &self.read_dispatch_id.load(Relaxed))
            .field("max_cu_id", &self.max_cu_id)
            .field("max_wave_id", &self.max_wave_id)
            .field("compute_tmpring_size", &self.compute_tmpring_size)
            .field(
                "scratch_backing_memory_location",
                &self.scratch_backing_memory_location,
            )
            .field(
                "scratch_backing_memory_byte_size",
                &self.scratch_backing_memory_byte_size,
            )
            .field(
                "scratch_wave64_lane_byte_size",
                &self.scratch_wave64_lane_byte_size,
            )
            .field("queue_properties", &self.properties())
            .field("queue_inactive_signal", &self.queue_inactive_signal)
            .finish_non_exhaustive()
    }
}
