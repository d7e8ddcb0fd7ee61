//! IPC memory (`hsa_amd_ipc_memory_create` / `_attach` / `_detach`,
//! `hsa_ext_amd.h`): another process maps the same bytes.
//!
//! The mechanism of current ROCr on an upstream kernel (which has no KFD
//! IPC ioctls): the exporter asks KFD for a dma-buf of the allocation's
//! buffer (`EXPORT_DMABUF`) and keeps that descriptor open while the
//! allocation lives; the handle names the exporter's pid and the
//! descriptor's number. The importer takes a copy of the descriptor with
//! `pidfd_open` + `pidfd_getfd` (which needs ptrace access to the
//! exporter: the same user under Yama `ptrace_scope` 0, or
//! `CAP_SYS_PTRACE`), imports it into its own GPU VM at an address of its
//! own (`IMPORT_DMABUF`, then `MAP_MEMORY_TO_GPU` on the agents it names),
//! and maps it for the CPU by `mmap` of the dma-buf itself, at the same
//! address (GPU VA == CPU VA). On the software GPU the dma-buf is the
//! buffer's memfd, so both processes share the pages.
//!
//! The handle (`hsa_amd_ipc_memory_t`, eight `uint32_t`): the pid, the
//! descriptor, the dma-buf's inode (so a descriptor number reused after
//! the export ended is refused), the offset of the exported pointer in its
//! allocation (ROCr allows a pointer inside an allocation) and the length
//! (48 bits each), and a check word over the others. A forged or corrupted handle (bad magic or
//! check, a length past the buffer), one whose exporter has exited, or
//! whose allocation was freed (the descriptor is closed with it), is
//! `HSA_STATUS_ERROR_INVALID_ARGUMENT`, never a mapping of the wrong bytes:
//! the importer also checks the descriptor's size against the handle.

#![allow(unsafe_code)]

use std::collections::HashMap;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::ptr::NonNull;
use std::sync::Mutex;

use crate::agent::Agent;
use crate::driver::Mapped;
use crate::memory::{Block, reserve, unreserve};
use crate::signal::{Place, Signal};
use crate::status::{Error, Result, Status};
use crate::system::{Core, Runtime};

/// `hsa_amd_ipc_signal_t` (the same 32 bytes as a memory handle).
pub type IpcSignalHandle = IpcMemoryHandle;

/// Bytes of an IPC signal's page.
const SIGNAL_PAGE: u64 = 4096;

/// Detaches the attachment at `ptr` (an attached IPC signal's drop).
pub(crate) fn detach(core: &Core, ptr: u64) {
    let va = core
        .ipc
        .imports
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&ptr);
    if let Some(va) = va {
        let _ = core.allocations.free(&*core.driver, va);
    }
}

/// `hsa_amd_ipc_memory_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C)]
pub struct IpcMemoryHandle(pub [u32; 8]);

/// "RIPC": the seed of the check word, so that a handle of another
/// runtime (or zeros) fails the check.
const MAGIC: u32 = 0x4350_4952;
/// Offsets and lengths are 48-bit (256 TiB).
const MAX_48: u64 = (1 << 48) - 1;

fn check(w: &[u32; 8]) -> u32 {
    // FNV-1a over words 0..7, seeded with MAGIC: catches corruption, not
    // a forger (a handle is a capability, as ROCr's are).
    let mut h: u32 = 0x811c_9dc5 ^ MAGIC;
    for x in &w[..7] {
        for b in x.to_le_bytes() {
            h ^= u32::from(b);
            h = h.wrapping_mul(0x0100_0193);
        }
    }
    h
}

/// The fields of a handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fields {
    pid: u32,
    fd: u32,
    /// The dma-buf's inode: a descriptor number reused for another file
    /// after the export ended does not pass for it.
    ino: u64,
    offset: u64,
    len: u64,
}

impl IpcMemoryHandle {
    /// Words: pid, fd, inode (2), offset and length (low 32 bits each,
    /// then their high 16 bits in one word), check.
    fn new(f: Fields) -> Self {
        let mut w = [
            f.pid,
            f.fd,
            f.ino as u32,
            (f.ino >> 32) as u32,
            f.offset as u32,
            f.len as u32,
            ((f.offset >> 32) as u32 & 0xffff) | (((f.len >> 32) as u32 & 0xffff) << 16),
            0,
        ];
        w[7] = check(&w);
        Self(w)
    }

    fn fields(&self) -> Result<Fields> {
        let w = &self.0;
        if w[7] != check(w) {
            return Err(Error::invalid_argument(
                "IPC memory handle: not a handle of this runtime (check word wrong)",
            ));
        }
        Ok(Fields {
            pid: w[0],
            fd: w[1],
            ino: u64::from(w[2]) | (u64::from(w[3]) << 32),
            offset: u64::from(w[4]) | (u64::from(w[6] & 0xffff) << 32),
            len: u64::from(w[5]) | (u64::from(w[6] >> 16) << 32),
        })
    }
}

/// The IPC state of a runtime.
#[derive(Debug, Default)]
pub(crate) struct Ipc {
    /// Exported allocations (by start) and their dma-buf descriptors.
    exports: Mutex<HashMap<u64, OwnedFd>>,
    /// Attached pointers and the start of the block that holds them.
    imports: Mutex<HashMap<u64, u64>>,
}

impl Ipc {
    /// Whether the allocation starting at `start` was made by an attach
    /// (`hsa_amd_pointer_info` reports it as IPC memory).
    pub(crate) fn is_attached_block(&self, start: u64) -> bool {
        self.imports
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .any(|&va| va == start)
    }

    /// The allocation at `va` is freed: its export (if any) ends, and an
    /// attachment that was it is gone.
    pub(crate) fn forget(&self, va: u64) {
        self.exports
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&va);
        self.imports
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|_, block| *block != va);
    }
}

fn bad_handle(what: String) -> Error {
    Error::invalid_argument(format!("IPC memory handle: {what}"))
}

impl Runtime {
    /// `hsa_amd_ipc_memory_create`: a handle another process can attach to
    /// see `len` bytes at `ptr`, which lie in one pool allocation (not
    /// locked host memory) of this runtime.
    ///
    /// Errors: a null pointer, a zero length, a range outside one
    /// allocation, locked memory: `INVALID_ARGUMENT`.
    pub fn ipc_memory_create(&self, ptr: u64, len: u64) -> Result<IpcMemoryHandle> {
        if ptr == 0 || len == 0 {
            return Err(Error::invalid_argument(
                "hsa_amd_ipc_memory_create of a null pointer or no bytes",
            ));
        }
        let block = self.core.allocations.find(ptr).ok_or_else(|| {
            Error::invalid_argument(format!("{ptr:#x} is not memory of this runtime"))
        })?;
        let offset = ptr - block.start;
        if offset.checked_add(len).is_none_or(|end| end > block.size) {
            return Err(Error::invalid_argument(format!(
                "{len} bytes at {ptr:#x} run past the allocation at {:#x} ({} bytes)",
                block.start, block.size
            )));
        }
        if offset > MAX_48 || len > MAX_48 {
            return Err(Error::invalid_argument(format!(
                "{len} bytes at offset {offset}: IPC handles carry 48-bit offsets and lengths"
            )));
        }
        let bo = block.bo.filter(|_| !block.userptr).ok_or_else(|| {
            Error::invalid_argument(format!(
                "{ptr:#x} is locked host memory or has no GPU buffer: it cannot be shared"
            ))
        })?;
        let mut exports = self
            .core
            .ipc
            .exports
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let fd = match exports.get(&block.start) {
            Some(fd) => fd,
            None => {
                let fd = self
                    .core
                    .driver
                    .export_dmabuf(bo)
                    .map_err(|e| Error::driver("EXPORT_DMABUF", e))?;
                exports.entry(block.start).or_insert(fd)
            }
        };
        let ino = rustix::fs::fstat(fd)
            .map_err(|e| Error::new(Status::Error, format!("fstat of the dma-buf: {e}")))?
            .st_ino;
        Ok(IpcMemoryHandle::new(Fields {
            pid: std::process::id(),
            fd: fd.as_raw_fd() as u32,
            ino,
            offset,
            len,
        }))
    }

    /// `hsa_amd_ipc_memory_attach`: maps the memory `handle` names (`len`
    /// bytes of it) into this process, accessible to the GPU `agents` (at
    /// least one), and returns its address here.
    ///
    /// Errors: a forged, corrupted or stale handle (its exporter exited or
    /// freed the memory), `len` beyond the handle's, no GPU among `agents`:
    /// `INVALID_ARGUMENT`; an unknown agent: `INVALID_AGENT`.
    pub fn ipc_memory_attach(
        &self,
        handle: &IpcMemoryHandle,
        len: u64,
        agents: &[Agent],
    ) -> Result<u64> {
        let f = handle.fields()?;
        if len == 0 || len > f.len {
            return Err(bad_handle(format!(
                "{len} bytes asked of a handle for {} bytes",
                f.len
            )));
        }
        let mut gpus = Vec::new();
        for &a in agents {
            let r = self.core.agent(a)?;
            if r.is_gpu() && !gpus.contains(&r.gpu_id) {
                gpus.push(r.gpu_id);
            }
        }
        let Some(&owner) = gpus.first() else {
            return Err(Error::invalid_argument(
                "hsa_amd_ipc_memory_attach needs at least one GPU agent",
            ));
        };
        let pid = rustix::process::Pid::from_raw(f.pid as i32)
            .ok_or_else(|| bad_handle(format!("pid {} is not a process", f.pid)))?;
        let pidfd = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty())
            .map_err(|e| bad_handle(format!("exporter (pid {}) is gone: {e}", f.pid)))?;
        let fd = rustix::process::pidfd_getfd(
            &pidfd,
            f.fd as i32,
            rustix::process::PidfdGetfdFlags::empty(),
        )
        .map_err(|e| {
            bad_handle(format!(
                "descriptor {} of pid {} is not to be had (freed, or no ptrace access): {e}",
                f.fd, f.pid
            ))
        })?;
        let st =
            rustix::fs::fstat(&fd).map_err(|e| bad_handle(format!("fstat of the dma-buf: {e}")))?;
        if st.st_ino != f.ino {
            return Err(bad_handle(format!(
                "descriptor {} of pid {} is another file now (the export ended)",
                f.fd, f.pid
            )));
        }
        let size = st.st_size as u64;
        if f.offset.checked_add(f.len).is_none_or(|end| end > size) {
            return Err(bad_handle(format!(
                "offset {} + {} bytes past the {size}-byte buffer it names",
                f.offset, f.len
            )));
        }
        let reserved = usize::try_from(size).map_err(|_| {
            Error::new(
                Status::OutOfResources,
                "buffer larger than the address space",
            )
        })?;
        let va = reserve(size, 4096)?;
        let bo = match self.core.driver.import_dmabuf(fd.as_fd(), owner, va) {
            Ok(h) => h,
            Err(e) => {
                unreserve(va, reserved);
                return Err(bad_handle(format!("IMPORT_DMABUF: {e}")));
            }
        };
        // SAFETY: `va..va + size` is our fresh reservation, replaced by a
        // shared mapping of the dma-buf (the buffer's pages).
        let mapped = unsafe {
            rustix::mm::mmap(
                va as *mut _,
                reserved,
                rustix::mm::ProtFlags::READ | rustix::mm::ProtFlags::WRITE,
                rustix::mm::MapFlags::SHARED | rustix::mm::MapFlags::FIXED,
                &fd,
                0,
            )
        };
        if let Err(e) = mapped {
            let _ = self.core.driver.free(bo);
            unreserve(va, reserved);
            return Err(Error::new(
                Status::OutOfResources,
                format!("mmap of the dma-buf: {e}"),
            ));
        }
        // SAFETY: the mapping just made, owned by the block from now on.
        let cpu =
            unsafe { Mapped::own(NonNull::new(va as *mut u8).expect("mmap gave 0"), reserved) };
        if let Err(e) = self.core.driver.map_to_gpus(bo, &gpus) {
            drop(cpu);
            let _ = self.core.driver.free(bo);
            return Err(Error::driver("MAP_MEMORY_TO_GPU", e));
        }
        self.core.allocations.insert(
            va,
            Block {
                size,
                pool: None,
                bo: Some(bo),
                mapped_on: gpus,
                cpu: Some(cpu),
                reserved,
                guard: 0,
                userptr: false,
                requested: size,
                user_ptr: 0,
            },
        );
        let ptr = va + f.offset;
        self.core
            .ipc
            .imports
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(ptr, va);
        Ok(ptr)
    }

    /// `hsa_amd_ipc_memory_detach`: unmaps memory [`ipc_memory_attach`]
    /// returned.
    ///
    /// [`ipc_memory_attach`]: Self::ipc_memory_attach
    ///
    /// Errors: a pointer no attach returned: `INVALID_ARGUMENT`.
    pub fn ipc_memory_detach(&self, ptr: u64) -> Result<()> {
        let va = self
            .core
            .ipc
            .imports
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&ptr)
            .ok_or_else(|| {
                Error::invalid_argument(format!("{ptr:#x} is not attached IPC memory"))
            })?;
        self.core.allocations.free(&*self.core.driver, va)
    }
}

impl Runtime {
    /// A default signal that can be shared with other processes
    /// (`hsa_amd_signal_create` with `HSA_AMD_SIGNAL_IPC`): its storage is
    /// a page of fine-grained system memory of its own. It has no KFD event
    /// (events are per process): its blocked waits look at the value every
    /// `POLL_SLICE_NS`, so a store in another process wakes them within
    /// that time.
    pub fn create_ipc_signal(&self, initial: i64) -> Result<Signal> {
        let page = self.core.allocate_system(SIGNAL_PAGE, true)?;
        // SAFETY: a fresh, page-aligned, CPU-mapped allocation of ours,
        // freed only by the signal's drop.
        Ok(unsafe { Signal::at(&self.core, page, Place::IpcPage, Some(initial)) })
    }

    /// `hsa_amd_ipc_signal_create`: a handle another process attaches to
    /// share `signal`.
    ///
    /// Errors: a signal not made by [`create_ipc_signal`] (or destroyed):
    /// `INVALID_SIGNAL`.
    ///
    /// [`create_ipc_signal`]: Self::create_ipc_signal
    pub fn ipc_signal_create(&self, signal: &Signal) -> Result<IpcSignalHandle> {
        if !signal.is_ipc() || !self.is_signal(signal.handle()) {
            return Err(Error::new(
                Status::InvalidSignal,
                "not an IPC signal of this runtime (create it with the IPC attribute)",
            ));
        }
        self.ipc_memory_create(signal.handle(), SIGNAL_PAGE)
    }

    /// `hsa_amd_ipc_signal_attach`: the signal another process shared, as
    /// a signal of this one (its value, waits and stores are the same
    /// `amd_signal_t`). Dropping the last clone detaches it.
    ///
    /// Errors: as [`ipc_memory_attach`](Self::ipc_memory_attach).
    pub fn ipc_signal_attach(&self, handle: &IpcSignalHandle) -> Result<Signal> {
        let gpus: Vec<Agent> = self.gpu_agents().collect();
        let ptr = self.ipc_memory_attach(handle, SIGNAL_PAGE, &gpus)?;
        if ptr % 64 != 0 {
            detach(&self.core, ptr);
            return Err(bad_handle(format!(
                "{ptr:#x} is not a signal (not 64-byte aligned)"
            )));
        }
        // SAFETY: the attached page (CPU-mapped, aligned, ours until the
        // signal's drop detaches it) holds the exporter's SignalStorage.
        Ok(unsafe { Signal::at(&self.core, ptr, Place::Attached, None) })
    }
}
