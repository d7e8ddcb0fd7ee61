//! The seam between the [`Kfd`](crate::Kfd) handle and what stands behind
//! it: the real `/dev/kfd`, or a simulated device.
//!
//! Every ioctl and every mapping the handle makes goes through one
//! [`KfdDevice`]. The handle is generic over it (`Kfd<D: KfdDevice =
//! RealDevice>`), so for the real driver each wrapper compiles down to the
//! `ioctl(2)` syscall with no dynamic dispatch; a software GPU implements
//! the trait and receives the same typed calls. The method is generic over
//! the argument struct: a simulated device matches on
//! [`Ioctl::info`](crate::ioctl::Ioctl::info)`().nr` (or on
//! `TypeId::of::<T>()`) and casts `arg` to the `raw` struct of that ioctl.
//!
//! The real driver needs a second file besides `/dev/kfd`: the GPU's DRM
//! render node (`/dev/dri/renderD<minor>`, the topology's
//! `drm_render_minor`). `AMDKFD_IOC_ACQUIRE_VM` takes its descriptor, and
//! the CPU mapping of a buffer is an mmap of the render node at the offset
//! `AMDKFD_IOC_ALLOC_MEMORY_OF_GPU` returned, usually at the virtual address
//! the client chose for the GPU (`MAP_FIXED` over its own reservation). The
//! seam models it as [`KfdDevice::RenderNode`], a [`DrmRenderNode`], opened
//! through [`KfdDevice::open_render_node`]; for [`RealDevice`] it is the
//! file itself ([`RealRenderNode`]) with the real syscalls.

#![allow(unsafe_code)]

use core::ffi::c_int;
use core::num::NonZeroUsize;
use core::ptr::NonNull;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;
use rustix::ioctl::{Ioctl as RustixIoctl, IoctlOutput, Opcode};
use rustix::mm::{MapFlags, ProtFlags};

use crate::ioctl::Ioctl;

/// What the [`Kfd`](crate::Kfd) handle needs from a device: ioctls and
/// shared mappings.
///
/// # Safety
///
/// Implementation safety: an implementation must
/// - in [`ioctl`](Self::ioctl), access only the memory the KFD ABI of that
///   ioctl describes (the argument struct, and the arrays its address and
///   count fields describe), as the real driver does;
/// - in [`mmap`](Self::mmap), return the start of a region of exactly `len`
///   bytes, page aligned, readable and writable (through volatile or atomic
///   accesses; the device may change it at any time), that stays valid and
///   is not handed out again until [`munmap`](Self::munmap) is called on it.
pub unsafe trait KfdDevice: Send + Sync + 'static {
    /// Issues `ioctl` with `arg`; returns the ioctl's non-negative result.
    ///
    /// # Safety
    ///
    /// `arg` points to an initialised `T` that is valid for reads and writes
    /// for the duration of the call. Every user address in it, with its
    /// length or count field, describes memory valid for the accesses the
    /// ioctl makes (reads of "to KFD" arrays, writes of "from KFD" ones).
    /// For `AMDKFD_IOC_SVM`, `arg` is followed in the same allocation by the
    /// `nattr` attribute pairs.
    unsafe fn ioctl<T: 'static>(&self, ioctl: &Ioctl<T>, arg: *mut T) -> Result<c_int, Errno>;

    /// Maps `len` bytes of the device at mmap `offset`, shared, read-write.
    fn mmap(&self, len: NonZeroUsize, offset: u64) -> Result<NonNull<u8>, Errno>;

    /// Unmaps a region [`mmap`](Self::mmap) returned.
    ///
    /// # Safety
    ///
    /// `addr` and `len` are exactly a region this device's `mmap` returned
    /// and not yet unmapped, and nothing uses it any more.
    unsafe fn munmap(&self, addr: NonNull<u8>, len: NonZeroUsize) -> Result<(), Errno>;

    /// Maps `len` bytes of the device at mmap `offset`, shared, read-write,
    /// at exactly `addr` (`MAP_FIXED`), replacing whatever the caller had
    /// mapped there (libhsakmt maps GPU-visible doorbells and the MMIO
    /// page over its own reservation this way).
    ///
    /// # Safety
    ///
    /// `addr..addr + len` is page aligned and mapped by the caller (a
    /// reservation), and nothing else uses it: its old contents are
    /// replaced. The new mapping is released with [`munmap`](Self::munmap).
    unsafe fn mmap_fixed(
        &self,
        addr: NonNull<u8>,
        len: NonZeroUsize,
        offset: u64,
    ) -> Result<NonNull<u8>, Errno>;

    /// The GPU's DRM render node.
    type RenderNode: DrmRenderNode;

    /// Opens the render node `/dev/dri/renderD<minor>` (`minor` is the
    /// topology's `drm_render_minor`) read-write, close-on-exec.
    fn open_render_node(&self, minor: u32) -> Result<Self::RenderNode, Errno>;
}

/// An open DRM render node: its descriptor (for `AMDKFD_IOC_ACQUIRE_VM`,
/// through [`AsFd`]), its ioctls, and mmaps of buffer offsets.
///
/// # Safety
///
/// Implementation safety: as for [`KfdDevice`]: [`ioctl`](Self::ioctl)
/// accesses only what the DRM ABI of that request describes;
/// [`mmap`](Self::mmap) and [`mmap_fixed`](Self::mmap_fixed) return exactly
/// `len` bytes, page aligned, readable and writable through volatile or
/// atomic accesses, valid until [`munmap`](Self::munmap).
pub unsafe trait DrmRenderNode: AsFd + Send + Sync + 'static {
    /// Issues the DRM ioctl `code` with `arg`; returns its non-negative
    /// result.
    ///
    /// # Safety
    ///
    /// `arg` points to the argument of request `code`, valid for the reads
    /// and writes that request makes, as do the user addresses inside it.
    unsafe fn ioctl(&self, code: Opcode, arg: *mut core::ffi::c_void) -> Result<c_int, Errno>;

    /// Maps `len` bytes at mmap `offset` (a buffer's `mmap_offset`), shared,
    /// read-write, where the kernel chooses.
    fn mmap(&self, len: NonZeroUsize, offset: u64) -> Result<NonNull<u8>, Errno>;

    /// Maps `len` bytes at mmap `offset` at exactly `addr` (`MAP_FIXED`):
    /// how a client puts a buffer's CPU mapping at its GPU virtual address.
    ///
    /// # Safety
    ///
    /// As [`KfdDevice::mmap_fixed`].
    unsafe fn mmap_fixed(
        &self,
        addr: NonNull<u8>,
        len: NonZeroUsize,
        offset: u64,
    ) -> Result<NonNull<u8>, Errno>;

    /// Unmaps a region [`mmap`](Self::mmap) or [`mmap_fixed`](Self::mmap_fixed)
    /// returned.
    ///
    /// # Safety
    ///
    /// As [`KfdDevice::munmap`].
    unsafe fn munmap(&self, addr: NonNull<u8>, len: NonZeroUsize) -> Result<(), Errno>;
}

/// `mmap(2)` of `fd`, shared and read-write, where the kernel chooses.
fn mmap_shared(fd: BorrowedFd<'_>, len: NonZeroUsize, offset: u64) -> Result<NonNull<u8>, Errno> {
    // SAFETY: a null hint lets the kernel choose an unused range, so no
    // existing Rust memory is replaced or aliased.
    let ptr = unsafe {
        rustix::mm::mmap(
            core::ptr::null_mut(),
            len.get(),
            ProtFlags::READ | ProtFlags::WRITE,
            MapFlags::SHARED,
            fd,
            offset,
        )
    }?;
    NonNull::new(ptr.cast::<u8>()).ok_or(Errno::FAULT)
}

/// `mmap(2)` of `fd` with `MAP_FIXED` at `addr`.
///
/// # Safety
///
/// As [`KfdDevice::mmap_fixed`].
unsafe fn mmap_shared_fixed(
    fd: BorrowedFd<'_>,
    addr: NonNull<u8>,
    len: NonZeroUsize,
    offset: u64,
) -> Result<NonNull<u8>, Errno> {
    // SAFETY: the caller owns `addr..addr + len` and lets it be replaced.
    let ptr = unsafe {
        rustix::mm::mmap(
            addr.as_ptr().cast(),
            len.get(),
            ProtFlags::READ | ProtFlags::WRITE,
            MapFlags::SHARED | MapFlags::FIXED,
            fd,
            offset,
        )
    }?;
    NonNull::new(ptr.cast::<u8>()).ok_or(Errno::FAULT)
}

/// The real driver: an open `/dev/kfd` file descriptor.
#[derive(Debug)]
pub struct RealDevice {
    fd: OwnedFd,
}

impl RealDevice {
    /// Wraps an open file descriptor of `/dev/kfd`.
    pub fn new(fd: OwnedFd) -> Self {
        Self { fd }
    }

    /// Gives the descriptor back.
    pub fn into_fd(self) -> OwnedFd {
        self.fd
    }
}

impl AsFd for RealDevice {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// An `ioctl(2)` call with a request code known at run time (from a
/// descriptor) that returns the syscall's non-negative result, which
/// `AMDKFD_IOC_DBG_TRAP` uses; rustix's `Updater` fixes the code at the
/// type level and drops the result.
struct RawCall<T> {
    code: Opcode,
    arg: *mut T,
}

// SAFETY: `opcode` is a KFD request code whose argument type is `T` (it
// comes from an `Ioctl<T>` descriptor), `as_ptr` hands the kernel the caller's
// `*mut T`, the call may write through it (`IS_MUTATING`), and the output is
// only the integer result.
unsafe impl<T> RustixIoctl for RawCall<T> {
    type Output = c_int;
    const IS_MUTATING: bool = true;

    fn opcode(&self) -> Opcode {
        self.code
    }

    fn as_ptr(&mut self) -> *mut core::ffi::c_void {
        self.arg.cast()
    }

    unsafe fn output_from_ptr(
        out: IoctlOutput,
        _extract_output: *mut core::ffi::c_void,
    ) -> rustix::io::Result<c_int> {
        Ok(out)
    }
}

// SAFETY: `ioctl` passes the caller's pointer to the kernel driver, which
// accesses exactly what the KFD ABI says; `mmap` returns a fresh shared
// mapping of `len` bytes chosen by the kernel, and `munmap` releases it.
unsafe impl KfdDevice for RealDevice {
    #[inline]
    unsafe fn ioctl<T: 'static>(&self, ioctl: &Ioctl<T>, arg: *mut T) -> Result<c_int, Errno> {
        let call = RawCall {
            code: ioctl.code(),
            arg,
        };
        // SAFETY: the request code matches `T` (same descriptor) and the
        // caller guarantees `arg` and the memory it describes are valid.
        unsafe { rustix::ioctl::ioctl(&self.fd, call) }
    }

    fn mmap(&self, len: NonZeroUsize, offset: u64) -> Result<NonNull<u8>, Errno> {
        mmap_shared(self.fd.as_fd(), len, offset)
    }

    unsafe fn munmap(&self, addr: NonNull<u8>, len: NonZeroUsize) -> Result<(), Errno> {
        // SAFETY: the caller passes a region our `mmap` returned and no
        // longer uses.
        unsafe { rustix::mm::munmap(addr.as_ptr().cast(), len.get()) }
    }

    unsafe fn mmap_fixed(
        &self,
        addr: NonNull<u8>,
        len: NonZeroUsize,
        offset: u64,
    ) -> Result<NonNull<u8>, Errno> {
        // SAFETY: forwarded to our caller.
        unsafe { mmap_shared_fixed(self.fd.as_fd(), addr, len, offset) }
    }

    type RenderNode = RealRenderNode;

    fn open_render_node(&self, minor: u32) -> Result<RealRenderNode, Errno> {
        let path = format!("/dev/dri/renderD{minor}");
        let fd = rustix::fs::open(path, OFlags::RDWR | OFlags::CLOEXEC, Mode::empty())?;
        Ok(RealRenderNode { fd })
    }
}

/// The real render node: an open `/dev/dri/renderD<minor>`.
#[derive(Debug)]
pub struct RealRenderNode {
    fd: OwnedFd,
}

impl RealRenderNode {
    /// Wraps an open render-node descriptor.
    pub fn new(fd: OwnedFd) -> Self {
        Self { fd }
    }
}

impl AsFd for RealRenderNode {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

// SAFETY: every call is the syscall on the render node's descriptor; the
// kernel accesses what the DRM ABI says, and mappings are the kernel's.
unsafe impl DrmRenderNode for RealRenderNode {
    #[inline]
    unsafe fn ioctl(&self, code: Opcode, arg: *mut core::ffi::c_void) -> Result<c_int, Errno> {
        let call = RawCall { code, arg };
        // SAFETY: the caller guarantees `arg` matches `code`.
        unsafe { rustix::ioctl::ioctl(&self.fd, call) }
    }

    fn mmap(&self, len: NonZeroUsize, offset: u64) -> Result<NonNull<u8>, Errno> {
        mmap_shared(self.fd.as_fd(), len, offset)
    }

    unsafe fn mmap_fixed(
        &self,
        addr: NonNull<u8>,
        len: NonZeroUsize,
        offset: u64,
    ) -> Result<NonNull<u8>, Errno> {
        // SAFETY: forwarded to our caller.
        unsafe { mmap_shared_fixed(self.fd.as_fd(), addr, len, offset) }
    }

    unsafe fn munmap(&self, addr: NonNull<u8>, len: NonZeroUsize) -> Result<(), Errno> {
        // SAFETY: forwarded to our caller.
        unsafe { rustix::mm::munmap(addr.as_ptr().cast(), len.get()) }
    }
}
