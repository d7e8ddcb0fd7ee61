//! Device memory mapped from `/dev/kfd`, owned and unmapped on drop
//! (the pattern of kvm-ioctls' `KvmRunWrapper`).

#![allow(unsafe_code)]

use core::num::NonZeroUsize;
use core::ptr::NonNull;
use std::sync::Arc;

use std::os::fd::{AsFd, BorrowedFd};

use crate::device::{DrmRenderNode, KfdDevice, RealDevice};
use crate::error::{Error, Result};
use crate::ioctl::consts::KFD_SIGNAL_EVENT_LIMIT;

/// A shared mapping of device memory; unmapped when dropped.
///
/// It hands out raw pointers only: the device reads and writes this memory
/// behind our back, so accesses go through volatile or atomic operations,
/// never through references.
#[derive(Debug)]
pub struct Mapping<D: KfdDevice = RealDevice> {
    ptr: NonNull<u8>,
    len: NonZeroUsize,
    device: Arc<D>,
}

// SAFETY: the mapping is plain shared memory of the device; the raw pointer
// is only handed out, never dereferenced here, and `D` is `Send + Sync`.
unsafe impl<D: KfdDevice> Send for Mapping<D> {}
// SAFETY: as above; `&Mapping` only exposes the address and length.
unsafe impl<D: KfdDevice> Sync for Mapping<D> {}

impl<D: KfdDevice> Mapping<D> {
    /// Takes ownership of a region `device.mmap` returned.
    pub(crate) fn new(ptr: NonNull<u8>, len: NonZeroUsize, device: Arc<D>) -> Self {
        Self { ptr, len, device }
    }

    /// Start of the mapping.
    pub fn as_ptr(&self) -> NonNull<u8> {
        self.ptr
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len.get()
    }

    /// Always `false`: mappings are never empty.
    pub fn is_empty(&self) -> bool {
        false
    }
}

impl<D: KfdDevice> Drop for Mapping<D> {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` came from `device.mmap` and this owner is the
        // only one; after drop nothing can reach the region.
        let result = unsafe { self.device.munmap(self.ptr, self.len) };
        // munmap of a region we own fails only if the kernel is out of
        // memory to split VMAs; nothing useful can be done in drop.
        let _ = result;
    }
}

/// A queue's doorbell page, mapped from the `doorbell_offset` that
/// `AMDKFD_IOC_CREATE_QUEUE` returned.
#[derive(Debug)]
pub struct DoorbellPage<D: KfdDevice = RealDevice> {
    pub(crate) mapping: Mapping<D>,
    pub(crate) offset_in_page: usize,
}

impl<D: KfdDevice> DoorbellPage<D> {
    /// The whole mapped doorbell region.
    pub fn mapping(&self) -> &Mapping<D> {
        &self.mapping
    }

    /// The queue's doorbell: a 64-bit MMIO register, to be written with a
    /// volatile store (for example through the `volatile` crate).
    ///
    /// On GFX9 and newer the driver's `doorbell_offset` points at the
    /// queue's doorbell inside the page. Older GPUs (32-bit doorbells) get
    /// the page itself (`offset_in_page` 0); their doorbell is at
    /// `queue_id * 4` in [`mapping`](Self::mapping).
    pub fn doorbell(&self) -> NonNull<u64> {
        // SAFETY: `offset_in_page` was checked to lie 8 bytes inside the
        // mapping, at 8-byte alignment, when the page was mapped.
        unsafe { self.mapping.ptr.add(self.offset_in_page) }.cast::<u64>()
    }

    /// Offset of the queue's doorbell inside the page.
    pub fn offset_in_page(&self) -> usize {
        self.offset_in_page
    }
}

/// Size of the event page: `KFD_SIGNAL_EVENT_LIMIT` 64-bit slots.
pub const EVENT_PAGE_SIZE: usize = KFD_SIGNAL_EVENT_LIMIT as usize * 8;

/// The signal-event page (`KFD_SIGNAL_EVENT_LIMIT` 64-bit slots), mapped
/// from the `event_page_offset` of the first signal event.
#[derive(Debug)]
pub struct EventPage<D: KfdDevice = RealDevice> {
    pub(crate) mapping: Mapping<D>,
}

impl<D: KfdDevice> EventPage<D> {
    /// The whole mapping.
    pub fn mapping(&self) -> &Mapping<D> {
        &self.mapping
    }

    /// The 64-bit slot of an event (`event_slot_index` from
    /// `AMDKFD_IOC_CREATE_EVENT`); `None` past `KFD_SIGNAL_EVENT_LIMIT`.
    pub fn slot(&self, event_slot_index: u32) -> Option<NonNull<u64>> {
        if event_slot_index >= KFD_SIGNAL_EVENT_LIMIT {
            return None;
        }
        let offset = usize::try_from(event_slot_index).ok()?.checked_mul(8)?;
        // SAFETY: the index is below the slot count, so the 8 bytes at
        // `offset` lie inside the `EVENT_PAGE_SIZE`-byte mapping.
        Some(unsafe { self.mapping.ptr.add(offset) }.cast::<u64>())
    }
}

/// A GPU's DRM render node, opened with
/// [`Kfd::open_render_node`](crate::Kfd::open_render_node): give
/// [`as_fd`](AsFd::as_fd) to [`Kfd::acquire_vm`](crate::Kfd::acquire_vm),
/// then map buffers at their `mmap_offset`.
#[derive(Debug)]
pub struct RenderNode<D: KfdDevice = RealDevice> {
    node: Arc<D::RenderNode>,
    minor: u32,
}

impl<D: KfdDevice> RenderNode<D> {
    pub(crate) fn new(node: D::RenderNode, minor: u32) -> Self {
        Self {
            node: Arc::new(node),
            minor,
        }
    }

    /// The render node's minor (`/dev/dri/renderD<minor>`).
    pub fn minor(&self) -> u32 {
        self.minor
    }

    /// The device's render node itself (for DRM ioctls).
    pub fn node(&self) -> &D::RenderNode {
        &self.node
    }

    /// Maps `len` bytes of the buffer at `mmap_offset` where the kernel
    /// chooses.
    pub fn map(&self, mmap_offset: u64, len: usize) -> Result<BufferMapping<D>> {
        let len = nonzero(len)?;
        let ptr = self
            .node
            .mmap(len, mmap_offset)
            .map_err(|errno| Error::RenderNodeMmap {
                offset: mmap_offset,
                errno,
            })?;
        Ok(BufferMapping {
            ptr,
            len,
            node: Arc::clone(&self.node),
        })
    }

    /// Maps `len` bytes of the buffer at `mmap_offset` at exactly `addr`
    /// (`MAP_FIXED`): a buffer's CPU mapping at its GPU virtual address.
    /// Dropping the mapping unmaps it, leaving a hole: a caller that keeps
    /// a reservation re-reserves the range itself.
    ///
    /// # Safety
    ///
    /// `addr..addr + len` is page aligned, mapped by the caller (its
    /// reservation) and used by nothing else: its contents are replaced.
    pub unsafe fn map_at(
        &self,
        addr: NonNull<u8>,
        mmap_offset: u64,
        len: usize,
    ) -> Result<BufferMapping<D>> {
        let len = nonzero(len)?;
        // SAFETY: forwarded to our caller.
        let ptr = unsafe { self.node.mmap_fixed(addr, len, mmap_offset) }.map_err(|errno| {
            Error::RenderNodeMmap {
                offset: mmap_offset,
                errno,
            }
        })?;
        Ok(BufferMapping {
            ptr,
            len,
            node: Arc::clone(&self.node),
        })
    }
}

impl<D: KfdDevice> AsFd for RenderNode<D> {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.node.as_fd()
    }
}

fn nonzero(len: usize) -> Result<NonZeroUsize> {
    NonZeroUsize::new(len).ok_or(Error::InvalidArgument {
        ioctl: "mmap",
        what: "length is zero",
    })
}

/// A buffer's CPU mapping through a render node; unmapped when dropped.
/// Like [`Mapping`], it hands out raw pointers only.
#[derive(Debug)]
pub struct BufferMapping<D: KfdDevice = RealDevice> {
    ptr: NonNull<u8>,
    len: NonZeroUsize,
    node: Arc<D::RenderNode>,
}

// SAFETY: plain shared memory; the pointer is only handed out.
unsafe impl<D: KfdDevice> Send for BufferMapping<D> {}
// SAFETY: as above; `&BufferMapping` only exposes the address and length.
unsafe impl<D: KfdDevice> Sync for BufferMapping<D> {}

impl<D: KfdDevice> BufferMapping<D> {
    /// Start of the mapping.
    pub fn as_ptr(&self) -> NonNull<u8> {
        self.ptr
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len.get()
    }

    /// Always `false`: mappings are never empty.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Gives up the mapping without unmapping it and returns its start:
    /// for a caller that replaced the pages with another `MAP_FIXED`
    /// mapping of the same range (the range is no longer this buffer's, so
    /// dropping would unmap the newcomer). The render node reference is
    /// released as in a drop.
    pub fn into_raw(self) -> NonNull<u8> {
        let me = core::mem::ManuallyDrop::new(self);
        // SAFETY: `me` is never used or dropped again; the node reference
        // is moved out once and dropped here.
        drop(unsafe { core::ptr::read(&me.node) });
        me.ptr
    }
}

impl<D: KfdDevice> Drop for BufferMapping<D> {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` came from this node's mmap and this owner is
        // the only one.
        let result = unsafe { self.node.munmap(self.ptr, self.len) };
        // As for `Mapping`: nothing useful can be done in drop.
        let _ = result;
    }
}
