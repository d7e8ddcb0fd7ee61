//! `amd_queue_v2_t`: the fields ROCr 6.1 and gfx94x/gfx95x CP firmware add
//! after and inside [`AmdQueue`] for asynchronous scratch reclaim
//! (`amd_hsa_queue.h` of ROCr 6.1 and later; the 5.2.3 header has only
//! `amd_queue_t`).
//!
//! The v2 structure is `amd_queue_t` with some reserved words given a
//! meaning, followed by one [`ScratchLastUsedIndex`] per XCC
//! ([`MAX_NUM_XCC`] of them), 2304 bytes in all. Firmware reads past the
//! first 256 bytes only when the runtime set
//! [`AmdQueueCaps::SW_ASYNC_RECLAIM`]; firmware that can reclaim sets
//! [`AmdQueueCaps::CP_ASYNC_RECLAIM`] when the queue is connected.
//!
//! The handshake (ROCr's `AqlQueue::AsyncReclaimMainScratch`): the
//! runtime starts with [`SCRATCH_MAX_USE_INDEX`] at `u64::MAX`. The packet
//! processor lets a dispatch that needs scratch use the queue's scratch only
//! if its private segment fits and its packet id is at most
//! `scratch_max_use_index`, and records that id in its XCC's
//! `scratch_last_used_index[xcc].main`; otherwise it asks for scratch
//! (queue inactive code 1) as before. To take the scratch back, the runtime
//! suspends the queue (firmware reads these fields when a queue is
//! connected), sets `scratch_max_use_index` to the largest
//! `scratch_last_used_index[..].main`, resumes it, waits until the read
//! index has passed that id, and frees the scratch.
//!
//! The byte offsets are given as constants for code that reaches the
//! structure through a pointer (firmware, a packet processor), with
//! compile-time checks that they are the reserved words of [`AmdQueue`].

use core::mem::{offset_of, size_of};
#[cfg(target_has_atomic = "64")]
use core::sync::atomic::AtomicU64;
#[cfg(all(not(target_has_atomic = "64"), feature = "portable-atomic"))]
use portable_atomic::AtomicU64;

use super::layout::AmdQueue;

/// `MAX_NUM_XCC`: entries of `scratch_last_used_index`.
pub const MAX_NUM_XCC: usize = 128;

/// `sizeof(amd_queue_v2_t)`.
pub const AMD_QUEUE_V2_SIZE: usize = 256 + MAX_NUM_XCC * 16;

/// Byte offset of `caps` (`amd_queue_capabilities32_t`, `amd_queue_t`'s
/// first reserved word).
pub const CAPS: usize = 40;

/// Byte offset of `scratch_max_use_index` (`u64`): the last packet id that
/// may use the queue's (main) scratch.
pub const SCRATCH_MAX_USE_INDEX: usize = 184;

/// Byte offset of `alt_scratch_max_use_index` (`u64`).
pub const ALT_SCRATCH_MAX_USE_INDEX: usize = 200;

/// Byte offset of `alt_scratch_resource_descriptor` (4 × `u32`).
pub const ALT_SCRATCH_RESOURCE_DESCRIPTOR: usize = 208;

/// Byte offset of `alt_scratch_backing_memory_location` (`u64`).
pub const ALT_SCRATCH_BACKING_MEMORY_LOCATION: usize = 224;

/// Byte offset of `alt_scratch_dispatch_limit_x`, `_y`, `_z` (3 × `u32`).
pub const ALT_SCRATCH_DISPATCH_LIMIT: usize = 232;

/// Byte offset of `alt_scratch_wave64_lane_byte_size` (`u32`).
pub const ALT_SCRATCH_WAVE64_LANE_BYTE_SIZE: usize = 244;

/// Byte offset of `alt_compute_tmpring_size` (`u32`).
pub const ALT_COMPUTE_TMPRING_SIZE: usize = 248;

/// Byte offset of `scratch_last_used_index[0]`.
pub const SCRATCH_LAST_USED_INDEX: usize = 256;

/// Byte offset of `scratch_last_used_index[xcc]` (`None` past
/// [`MAX_NUM_XCC`]).
pub const fn scratch_last_used_index(xcc: usize) -> Option<usize> {
    if xcc < MAX_NUM_XCC {
        Some(SCRATCH_LAST_USED_INDEX + xcc * size_of::<ScratchLastUsedIndex>())
    } else {
        None
    }
}

bitflags::bitflags! {
    /// `amd_queue_capabilities_t`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct AmdQueueCaps: u32 {
        /// `AMD_QUEUE_CAPS_CP_ASYNC_RECLAIM` (bit 0): the firmware supports
        /// asynchronous scratch reclaim (set by the firmware on connect).
        const CP_ASYNC_RECLAIM = 1 << 0;
        /// `AMD_QUEUE_CAPS_SW_ASYNC_RECLAIM` (bit 1): the runtime supports
        /// it, and the firmware may use the v2 fields.
        const SW_ASYNC_RECLAIM = 1 << 1;
    }
}

/// `scratch_last_used_index_xcc_t`: the last packet id that used each
/// scratch on one XCC.
#[cfg_attr(
    target_has_atomic = "64",
    derive(zerocopy::FromBytes, zerocopy::KnownLayout)
)]
#[repr(C)]
#[derive(Debug, Default)]
pub struct ScratchLastUsedIndex {
    /// `main`: the queue's scratch.
    pub main: AtomicU64,
    /// `alt`: the alternate scratch.
    pub alt: AtomicU64,
}

const _: () = {
    // The v2 fields are amd_queue_t's reserved words.
    assert!(offset_of!(AmdQueue, reserved1) == CAPS);
    assert!(offset_of!(AmdQueue, queue_properties) + 4 == SCRATCH_MAX_USE_INDEX);
    assert!(offset_of!(AmdQueue, reserved3) == SCRATCH_MAX_USE_INDEX);
    assert!(offset_of!(AmdQueue, queue_inactive_signal) + 8 == ALT_SCRATCH_MAX_USE_INDEX);
    assert!(offset_of!(AmdQueue, reserved4) == ALT_SCRATCH_MAX_USE_INDEX);
    assert!(ALT_COMPUTE_TMPRING_SIZE + 8 == SCRATCH_LAST_USED_INDEX);
    assert!(size_of::<AmdQueue>() == SCRATCH_LAST_USED_INDEX);
    assert!(size_of::<ScratchLastUsedIndex>() == 16);
    assert!(AMD_QUEUE_V2_SIZE == 2304);
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_used_index_entries() {
        assert_eq!(scratch_last_used_index(0), Some(256));
        assert_eq!(scratch_last_used_index(7), Some(256 + 7 * 16));
        assert_eq!(scratch_last_used_index(127), Some(AMD_QUEUE_V2_SIZE - 16));
        assert_eq!(scratch_last_used_index(128), None);
    }
}
