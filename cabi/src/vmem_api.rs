//! ROCr 6.x's virtual memory calls (`hsa_amd_vmem_*`, `hsa_ext_amd.h` of
//! ROCr 6; Debian's 5.2.3 header has no prototypes for them) over
//! `runtime::vmem`, with ROCr 6's argument checks (`hsa_ext_amd.cpp`:
//! NULL pointers and zero sizes are `INVALID_ARGUMENT`, a memory type other
//! than `MEMORY_TYPE_NONE`/`_PINNED` or a pool that is none is
//! `INVALID_ARGUMENT`).
//!
//! They are exports beyond ROCr 5.2.3's list, at version `ROCR_1` as ROCr
//! 6's `hsacore.so.def` has them, but with no slot in the API table: the
//! 5.2.3 layout of `tools.rs` stays as tools libraries built against it
//! expect, so `exports.rs` jumps to these functions directly and a tools
//! library cannot intercept them.

#![allow(unsafe_code)]
#![allow(clippy::missing_safety_doc)]

use core::ffi::{c_int, c_void};
use std::os::fd::{BorrowedFd, IntoRawFd};

use runtime::vmem::{AccessPermission, VmemHandle};
use runtime::{Error, Status};

use crate::core_api::{agent_of, pool_of};
use crate::ffi::*;
use crate::state::{OK, ctx, guard, lock, null, put, slice};

/// `MEMORY_TYPE_NONE` of `hsa_amd_memory_type_t`.
const MEMORY_TYPE_NONE: c_enum = 0;
/// `MEMORY_TYPE_PINNED`.
const MEMORY_TYPE_PINNED: c_enum = 1;

fn nonzero(size: usize, what: &str) -> Result<u64, Error> {
    if size == 0 {
        return Err(Error::invalid_argument(format!("{what} is 0")));
    }
    Ok(size as u64)
}

fn nonnull<T>(p: *const T, what: &str) -> Result<u64, Error> {
    if p.is_null() {
        return Err(null(what));
    }
    Ok(p as u64)
}

fn permission(v: c_enum) -> Result<AccessPermission, Error> {
    Ok(match v {
        0 => AccessPermission::None,
        1 => AccessPermission::ReadOnly,
        2 => AccessPermission::WriteOnly,
        3 => AccessPermission::ReadWrite,
        _ => {
            return Err(Error::invalid_argument(format!(
                "{v} is no hsa_access_permission_t"
            )));
        }
    })
}

/// `hsa_amd_vmem_address_reserve`: `size` bytes of address space; the
/// `address` hint is not honoured (the header allows another address),
/// `flags` are unsupported (as in ROCr).
pub unsafe extern "C" fn hsa_amd_vmem_address_reserve(
    va: *mut *mut c_void,
    size: usize,
    address: u64,
    flags: u64,
) -> hsa_status_t {
    // SAFETY: forwarded with the caller's arguments, alignment 0.
    unsafe { hsa_amd_vmem_address_reserve_align(va, size, address, 0, flags) }
}

/// `hsa_amd_vmem_address_reserve_align`: as
/// [`hsa_amd_vmem_address_reserve`], aligned to `alignment` (0: the
/// default; else a power of two).
pub unsafe extern "C" fn hsa_amd_vmem_address_reserve_align(
    va: *mut *mut c_void,
    size: usize,
    address: u64,
    alignment: u64,
    flags: u64,
) -> hsa_status_t {
    let _ = (address, flags);
    guard("hsa_amd_vmem_address_reserve", || {
        let c = ctx()?;
        let size = nonzero(size, "size")?;
        nonnull(va, "va")?;
        let at = c.rt.vmem_address_reserve(size, alignment)?;
        // SAFETY: `va` is the caller's out-pointer (checked non-NULL).
        unsafe { put(va, at as usize as *mut c_void, "va") }?;
        OK
    })
}

/// `hsa_amd_vmem_address_free`: a whole reservation with nothing mapped.
pub unsafe extern "C" fn hsa_amd_vmem_address_free(va: *mut c_void, size: usize) -> hsa_status_t {
    guard("hsa_amd_vmem_address_free", || {
        let c = ctx()?;
        let va = nonnull(va, "va")?;
        c.rt.vmem_address_free(va, nonzero(size, "size")?)?;
        OK
    })
}

/// `hsa_amd_vmem_handle_create`: `size` bytes of `pool`'s memory.
pub unsafe extern "C" fn hsa_amd_vmem_handle_create(
    pool: hsa_amd_memory_pool_t,
    size: usize,
    type_: c_enum,
    flags: u64,
    memory_handle: *mut hsa_amd_vmem_alloc_handle_t,
) -> hsa_status_t {
    let _ = flags;
    guard("hsa_amd_vmem_handle_create", || {
        let c = ctx()?;
        let size = nonzero(size, "size")?;
        if type_ != MEMORY_TYPE_NONE && type_ != MEMORY_TYPE_PINNED {
            return Err(Error::invalid_argument(format!(
                "{type_} is no hsa_amd_memory_type_t"
            )));
        }
        nonnull(memory_handle, "memory_handle")?;
        let p = pool_of(&c, pool.handle, Status::InvalidArgument)?;
        let h = c.rt.vmem_handle_create(p, size)?;
        lock(&c.vmem_types).insert(h.0, type_);
        // SAFETY: the caller's out-pointer (checked non-NULL).
        unsafe {
            put(
                memory_handle,
                hsa_amd_vmem_alloc_handle_t { handle: h.0 },
                "memory_handle",
            )
        }?;
        OK
    })
}

/// `hsa_amd_vmem_handle_release`.
pub unsafe extern "C" fn hsa_amd_vmem_handle_release(
    memory_handle: hsa_amd_vmem_alloc_handle_t,
) -> hsa_status_t {
    guard("hsa_amd_vmem_handle_release", || {
        let c = ctx()?;
        let h = VmemHandle(memory_handle.handle);
        c.rt.vmem_handle_release(h)?;
        if c.rt.vmem_handle_properties(h).is_err() {
            // Gone (not mapped, no retains left): forget its type.
            lock(&c.vmem_types).remove(&h.0);
        }
        OK
    })
}

/// `hsa_amd_vmem_map`: all of a handle at `va` in a reservation
/// (`in_offset` must be 0; `flags` are unsupported).
pub unsafe extern "C" fn hsa_amd_vmem_map(
    va: *mut c_void,
    size: usize,
    in_offset: usize,
    memory_handle: hsa_amd_vmem_alloc_handle_t,
    flags: u64,
) -> hsa_status_t {
    let _ = flags;
    guard("hsa_amd_vmem_map", || {
        let c = ctx()?;
        let va = nonnull(va, "va")?;
        let size = nonzero(size, "size")?;
        c.rt.vmem_map(va, size, in_offset as u64, VmemHandle(memory_handle.handle))?;
        OK
    })
}

/// `hsa_amd_vmem_unmap`.
pub unsafe extern "C" fn hsa_amd_vmem_unmap(va: *mut c_void, size: usize) -> hsa_status_t {
    guard("hsa_amd_vmem_unmap", || {
        let c = ctx()?;
        let va = nonnull(va, "va")?;
        c.rt.vmem_unmap(va, nonzero(size, "size")?)?;
        OK
    })
}

/// `hsa_amd_vmem_set_access`: each descriptor's permission for its agent.
pub unsafe extern "C" fn hsa_amd_vmem_set_access(
    va: *mut c_void,
    size: usize,
    desc: *const hsa_amd_memory_access_desc_t,
    desc_cnt: usize,
) -> hsa_status_t {
    guard("hsa_amd_vmem_set_access", || {
        let c = ctx()?;
        let va = nonnull(va, "va")?;
        let size = nonzero(size, "size")?;
        nonnull(desc, "desc")?;
        nonzero(desc_cnt, "desc_cnt")?;
        // SAFETY: the caller's array of desc_cnt descriptors.
        let list = unsafe { slice(desc, desc_cnt, "desc") }?;
        let access = list
            .iter()
            .map(|d| Ok((agent_of(&c, d.agent_handle)?, permission(d.permissions)?)))
            .collect::<Result<Vec<_>, Error>>()?;
        c.rt.vmem_set_access(va, size, &access)?;
        OK
    })
}

/// `hsa_amd_vmem_get_access`: `agent_handle`'s permission on the mapping
/// holding `va`.
pub unsafe extern "C" fn hsa_amd_vmem_get_access(
    va: *mut c_void,
    perms: *mut c_enum,
    agent_handle: hsa_agent_t,
) -> hsa_status_t {
    guard("hsa_amd_vmem_get_access", || {
        let c = ctx()?;
        let va = nonnull(va, "va")?;
        nonnull(perms, "perms")?;
        let p = c.rt.vmem_get_access(va, agent_of(&c, agent_handle)?)?;
        // SAFETY: the caller's out-pointer (checked non-NULL).
        unsafe { put(perms, p as c_enum, "perms") }?;
        OK
    })
}

/// `hsa_amd_vmem_export_shareable_handle`: a dma-buf descriptor the
/// caller owns (`flags` are unsupported).
pub unsafe extern "C" fn hsa_amd_vmem_export_shareable_handle(
    dmabuf_fd: *mut c_int,
    handle: hsa_amd_vmem_alloc_handle_t,
    flags: u64,
) -> hsa_status_t {
    let _ = flags;
    guard("hsa_amd_vmem_export_shareable_handle", || {
        let c = ctx()?;
        nonnull(dmabuf_fd, "dmabuf_fd")?;
        let fd =
            c.rt.vmem_export_shareable_handle(VmemHandle(handle.handle))?;
        // SAFETY: the caller's out-pointer (checked non-NULL); the
        // descriptor becomes the caller's.
        unsafe { put(dmabuf_fd, fd.into_raw_fd(), "dmabuf_fd") }?;
        OK
    })
}

/// `hsa_amd_vmem_import_shareable_handle`: a handle for a dma-buf (the
/// caller keeps its descriptor; the runtime holds a copy).
pub unsafe extern "C" fn hsa_amd_vmem_import_shareable_handle(
    dmabuf_fd: c_int,
    handle: *mut hsa_amd_vmem_alloc_handle_t,
) -> hsa_status_t {
    guard("hsa_amd_vmem_import_shareable_handle", || {
        let c = ctx()?;
        nonnull(handle, "handle")?;
        if dmabuf_fd < 0 {
            return Err(Error::invalid_argument(format!(
                "{dmabuf_fd} is no file descriptor"
            )));
        }
        // SAFETY: a descriptor of the caller's for the call; fstat checks it
        // is open (EBADF otherwise) before anything else uses it.
        let fd = unsafe { BorrowedFd::borrow_raw(dmabuf_fd) };
        let h = c.rt.vmem_import_shareable_handle(fd)?;
        lock(&c.vmem_types).insert(h.0, MEMORY_TYPE_NONE);
        // SAFETY: the caller's out-pointer (checked non-NULL).
        unsafe {
            put(
                handle,
                hsa_amd_vmem_alloc_handle_t { handle: h.0 },
                "handle",
            )
        }?;
        OK
    })
}

/// `hsa_amd_vmem_retain_alloc_handle`: the handle mapped at `addr`, with
/// a reference to release.
pub unsafe extern "C" fn hsa_amd_vmem_retain_alloc_handle(
    memory_handle: *mut hsa_amd_vmem_alloc_handle_t,
    addr: *mut c_void,
) -> hsa_status_t {
    guard("hsa_amd_vmem_retain_alloc_handle", || {
        let c = ctx()?;
        let addr = nonnull(addr, "addr")?;
        nonnull(memory_handle, "memory_handle")?;
        let h = c.rt.vmem_retain_alloc_handle(addr)?;
        // SAFETY: the caller's out-pointer (checked non-NULL).
        unsafe {
            put(
                memory_handle,
                hsa_amd_vmem_alloc_handle_t { handle: h.0 },
                "memory_handle",
            )
        }?;
        OK
    })
}

/// `hsa_amd_vmem_get_alloc_properties_from_handle`: the pool (handle 0
/// for an imported dma-buf) and memory type of a handle.
pub unsafe extern "C" fn hsa_amd_vmem_get_alloc_properties_from_handle(
    memory_handle: hsa_amd_vmem_alloc_handle_t,
    pool: *mut hsa_amd_memory_pool_t,
    type_: *mut c_enum,
) -> hsa_status_t {
    guard("hsa_amd_vmem_get_alloc_properties_from_handle", || {
        let c = ctx()?;
        nonnull(pool, "pool")?;
        nonnull(type_, "type")?;
        let (p, _) =
            c.rt.vmem_handle_properties(VmemHandle(memory_handle.handle))?;
        let t = lock(&c.vmem_types)
            .get(&memory_handle.handle)
            .copied()
            .unwrap_or(MEMORY_TYPE_NONE);
        let p = hsa_amd_memory_pool_t {
            handle: p.map_or(0, |p| p.handle()),
        };
        // SAFETY: the caller's out-pointers (checked non-NULL).
        unsafe { put(pool, p, "pool") }?;
        // SAFETY: as above.
        unsafe { put(type_, t, "type") }?;
        OK
    })
}
