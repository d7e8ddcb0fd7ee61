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

#![allow(unsafe_code)]

use core::ffi::c_int;
use core::num::NonZeroUsize;
use core::ptr::NonNull;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

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
        // SAFETY: a null hint lets the kernel choose an unused range, so no
        // existing Rust memory is replaced or aliased.
        let ptr = unsafe {
            rustix::mm::mmap(
                core::ptr::null_mut(),
                len.get(),
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
                &self.fd,
                offset,
            )
        }?;
        NonNull::new(ptr.cast::<u8>()).ok_or(Errno::FAULT)
    }

    unsafe fn munmap(&self, addr: NonNull<u8>, len: NonZeroUsize) -> Result<(), Errno> {
        // SAFETY: the caller passes a region our `mmap` returned and no
        // longer uses.
        unsafe { rustix::mm::munmap(addr.as_ptr().cast(), len.get()) }
    }
}
