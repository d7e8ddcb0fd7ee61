//! Virtual memory management (ROCr 6.x `hsa_amd_vmem_*`): address ranges
//! reserved apart from the memory behind them, physical allocations
//! ("handles") mapped into them, possibly at several places at once, and
//! access set per agent.
//!
//! Built over the same KFD requests as the rest of the runtime, the way
//! upstream KFD allows it (a buffer's GPU address is fixed when it is
//! allocated, so a handle cannot simply be re-pointed):
//! - a **reservation** is address space of ours (`mmap(PROT_NONE)`);
//! - a **handle** is a pool allocation (the physical memory; its own
//!   address is never handed out), or a dma-buf imported with
//!   [`Runtime::vmem_import_shareable_handle`];
//! - a **mapping** of a handle at `va` is the handle's dma-buf
//!   (`EXPORT_DMABUF`, once per handle) imported into the VM at `va`
//!   (`IMPORT_DMABUF`) and `mmap`ed there for the CPU with no access; the
//!   pages are the handle's, so two mappings of one handle alias;
//! - **access**: for a GPU agent `MAP_MEMORY_TO_GPU` / `UNMAP_MEMORY_FROM_GPU`
//!   of the mapping's buffer (read-write: KFD maps a buffer with the
//!   writability it was allocated with, so a read-only or write-only GPU
//!   mapping is refused with `INVALID_ARGUMENT` rather than granted as
//!   read-write); for the CPU agent `mprotect` (write-only is not a CPU
//!   protection Linux has and is refused likewise).
//!
//! Unmapping puts the reservation's `PROT_NONE` back over the range. A
//! released handle lives on until its last mapping is gone (ROCr's
//! behaviour). Errors name what was wrong; ranges must be whole pages.

#![allow(unsafe_code)]

use std::collections::{BTreeMap, HashMap};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::Mutex;

use crate::agent::Agent;
use crate::memory::{GRANULE, MemoryPool, reserve, unreserve};
use crate::status::{Error, Result, Status};
use crate::system::Runtime;

/// `hsa_amd_vmem_alloc_handle_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VmemHandle(pub u64);

/// `hsa_access_permission_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessPermission {
    /// `HSA_ACCESS_PERMISSION_NONE`.
    None = 0,
    /// `HSA_ACCESS_PERMISSION_RO`.
    ReadOnly = 1,
    /// `HSA_ACCESS_PERMISSION_WO`.
    WriteOnly = 2,
    /// `HSA_ACCESS_PERMISSION_RW`.
    ReadWrite = 3,
}

/// The physical memory of a handle.
#[derive(Debug)]
struct Physical {
    size: u64,
    /// The pool it came from (none: imported).
    pool: Option<MemoryPool>,
    /// The backing allocation's start (none: imported).
    backing: Option<u64>,
    /// Its dma-buf (exported on first map, or the imported one).
    dmabuf: Option<OwnedFd>,
    /// The handle was released: freed once `mappings` is 0.
    released: bool,
    mappings: u32,
    /// References taken by `retain_alloc_handle` (each needs a release).
    retains: u32,
}

#[derive(Debug)]
struct Mapping {
    size: u64,
    handle: u64,
    /// The buffer imported at the mapping's address.
    bo: u64,
    /// GPUs it is mapped on.
    gpus: Vec<u32>,
    cpu: AccessPermission,
}

#[derive(Debug)]
struct Reservation {
    size: u64,
    maps: BTreeMap<u64, Mapping>,
}

#[derive(Debug, Default)]
struct State {
    reservations: BTreeMap<u64, Reservation>,
    handles: HashMap<u64, Physical>,
    next: u64,
}

/// The virtual-memory state of a runtime.
#[derive(Debug, Default)]
pub(crate) struct Vmem {
    state: Mutex<State>,
}

impl Vmem {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The runtime closes: every mapping and reservation goes (the
    /// handles' backing allocations go with the runtime's allocations).
    pub(crate) fn release_all(&self, driver: &dyn crate::driver::Driver) {
        let s = std::mem::take(&mut *self.state.lock().unwrap_or_else(|p| p.into_inner()));
        for (va, r) in s.reservations {
            for m in r.maps.values() {
                if !m.gpus.is_empty() {
                    let _ = driver.unmap_from_gpus(m.bo, &m.gpus);
                }
                let _ = driver.free(m.bo);
            }
            unreserve(va, r.size as usize);
        }
    }
}

fn pages(what: &str, v: u64) -> Result<()> {
    if v == 0 || v % GRANULE != 0 {
        return Err(Error::invalid_argument(format!(
            "{what} {v:#x} is not a nonzero multiple of {GRANULE} bytes"
        )));
    }
    Ok(())
}

fn prot(p: AccessPermission) -> Result<rustix::mm::MprotectFlags> {
    use rustix::mm::MprotectFlags as F;
    match p {
        AccessPermission::None => Ok(F::empty()),
        AccessPermission::ReadOnly => Ok(F::READ),
        AccessPermission::ReadWrite => Ok(F::READ | F::WRITE),
        AccessPermission::WriteOnly => Err(Error::invalid_argument(
            "write-only CPU access: Linux has no write-only protection",
        )),
    }
}

impl State {
    /// A new handle for `p`.
    fn insert(&mut self, p: Physical) -> VmemHandle {
        self.next += 1;
        self.handles.insert(self.next, p);
        VmemHandle(self.next)
    }

    /// The handle `h`, not released.
    fn live(&mut self, h: VmemHandle) -> Result<&mut Physical> {
        self.handles
            .get_mut(&h.0)
            .filter(|p| !p.released)
            .ok_or_else(|| Error::invalid_argument(format!("no vmem handle {}", h.0)))
    }

    /// The reservation holding `va..va + size`.
    fn reservation_of(&mut self, va: u64, size: u64) -> Result<(u64, &mut Reservation)> {
        let (&start, r) = self
            .reservations
            .range_mut(..=va)
            .next_back()
            .ok_or_else(|| Error::invalid_argument(format!("{va:#x} is in no reservation")))?;
        let end = va.saturating_add(size);
        if end > start + r.size {
            return Err(Error::invalid_argument(format!(
                "{size} bytes at {va:#x} run past the reservation at {start:#x} ({} bytes)",
                r.size
            )));
        }
        Ok((start, r))
    }
}

impl Runtime {
    /// `hsa_amd_vmem_address_reserve(_align)`: `size` bytes of address
    /// space, aligned to `align` (a power of two; 0: a page), mapping
    /// nothing.
    pub fn vmem_address_reserve(&self, size: u64, align: u64) -> Result<u64> {
        pages("reservation size", size)?;
        if align != 0 && !align.is_power_of_two() {
            return Err(Error::invalid_argument(format!(
                "alignment {align:#x} is not a power of two"
            )));
        }
        let va = reserve(size, align.max(GRANULE))?;
        let mut s = self.core.vmem.lock();
        s.reservations.insert(
            va,
            Reservation {
                size,
                maps: BTreeMap::new(),
            },
        );
        Ok(va)
    }

    /// `hsa_amd_vmem_address_free`: gives back a whole reservation with
    /// nothing mapped in it.
    pub fn vmem_address_free(&self, va: u64, size: u64) -> Result<()> {
        let mut s = self.core.vmem.lock();
        let r = s.reservations.get(&va).ok_or_else(|| {
            Error::invalid_argument(format!("{va:#x} is not the start of a reservation"))
        })?;
        if r.size != size {
            return Err(Error::invalid_argument(format!(
                "the reservation at {va:#x} is {} bytes, not {size}",
                r.size
            )));
        }
        if !r.maps.is_empty() {
            return Err(Error::new(
                Status::ResourceFree,
                format!(
                    "the reservation at {va:#x} still has {} mappings",
                    r.maps.len()
                ),
            ));
        }
        s.reservations.remove(&va);
        unreserve(va, size as usize);
        Ok(())
    }

    /// `hsa_amd_vmem_handle_create`: `size` bytes of `pool`'s memory
    /// (whole pages), not mapped anywhere yet.
    pub fn vmem_handle_create(&self, pool: MemoryPool, size: u64) -> Result<VmemHandle> {
        pages("handle size", size)?;
        let backing = self.allocate(pool, size)?;
        let mut s = self.core.vmem.lock();
        Ok(s.insert(Physical {
            size,
            pool: Some(pool),
            backing: Some(backing),
            dmabuf: None,
            released: false,
            mappings: 0,
            retains: 0,
        }))
    }

    /// `hsa_amd_vmem_handle_release`: the memory goes once no mapping
    /// uses it.
    pub fn vmem_handle_release(&self, h: VmemHandle) -> Result<()> {
        let mut s = self.core.vmem.lock();
        let p = s.live(h)?;
        if p.retains > 0 {
            p.retains -= 1;
            return Ok(());
        }
        p.released = true;
        let free = p.mappings == 0;
        if free {
            let p = s.handles.remove(&h.0).expect("just found");
            drop(s);
            if let Some(b) = p.backing {
                self.free(b)?;
            }
        }
        Ok(())
    }

    /// The handle's dma-buf (exported on first use).
    fn dmabuf<'a>(&self, p: &'a mut Physical) -> Result<BorrowedFd<'a>> {
        if p.dmabuf.is_none() {
            let backing = p
                .backing
                .ok_or_else(|| Error::new(Status::Error, "no dma-buf"))?;
            let bo = self
                .core
                .allocations
                .find(backing)
                .and_then(|b| b.bo)
                .ok_or_else(|| Error::new(Status::Error, "the handle's buffer is gone"))?;
            let fd = self
                .core
                .driver
                .export_dmabuf(bo)
                .map_err(|e| Error::driver("EXPORT_DMABUF", e))?;
            p.dmabuf = Some(fd);
        }
        Ok(p.dmabuf.as_ref().expect("set above").as_fd())
    }

    /// `hsa_amd_vmem_map`: maps all of handle `h` (`offset` must be 0 and
    /// `size` its size) at `va`, inside a reservation and over nothing
    /// else; no agent has access until [`vmem_set_access`].
    ///
    /// [`vmem_set_access`]: Self::vmem_set_access
    pub fn vmem_map(&self, va: u64, size: u64, offset: u64, h: VmemHandle) -> Result<()> {
        pages("mapping address", va)?;
        pages("mapping size", size)?;
        if offset != 0 {
            return Err(Error::invalid_argument(
                "vmem_map at an offset into the handle: only whole handles are mapped",
            ));
        }
        let owner = *self
            .core
            .gpu_ids
            .first()
            .ok_or_else(|| Error::new(Status::Error, "no GPU: nothing to map memory for"))?;
        let mut s = self.core.vmem.lock();
        let hsize = s.live(h)?.size;
        if size != hsize {
            return Err(Error::invalid_argument(format!(
                "{size} bytes mapped of a {hsize}-byte handle"
            )));
        }
        {
            let (_, r) = s.reservation_of(va, size)?;
            let end = va + size;
            if r.maps.iter().any(|(&m, mm)| m < end && va < m + mm.size) {
                return Err(Error::invalid_argument(format!(
                    "{size} bytes at {va:#x} overlap a mapping"
                )));
            }
        }
        let p = s.handles.get_mut(&h.0).expect("checked above");
        let fd = self.dmabuf(p)?;
        let bo = self
            .core
            .driver
            .import_dmabuf(fd, owner, va)
            .map_err(|e| Error::driver("IMPORT_DMABUF", e))?;
        // SAFETY: `va..va + size` lies in our reservation and overlaps no
        // mapping (checked above): it is PROT_NONE address space of ours,
        // replaced by the dma-buf's pages, with no access yet.
        let r = unsafe {
            rustix::mm::mmap(
                va as *mut _,
                size as usize,
                rustix::mm::ProtFlags::empty(),
                rustix::mm::MapFlags::SHARED | rustix::mm::MapFlags::FIXED,
                fd,
                0,
            )
        };
        if let Err(e) = r {
            let _ = self.core.driver.free(bo);
            return Err(Error::new(
                Status::OutOfResources,
                format!("mmap of the handle's dma-buf: {e}"),
            ));
        }
        p.mappings += 1;
        let (_, res) = s.reservation_of(va, size)?;
        res.maps.insert(
            va,
            Mapping {
                size,
                handle: h.0,
                bo,
                gpus: Vec::new(),
                cpu: AccessPermission::None,
            },
        );
        Ok(())
    }

    /// `hsa_amd_vmem_unmap`: undoes [`vmem_map`](Self::vmem_map) of exactly
    /// `va..va + size`.
    pub fn vmem_unmap(&self, va: u64, size: u64) -> Result<()> {
        let mut s = self.core.vmem.lock();
        let (_, r) = s.reservation_of(va, size)?;
        if r.maps.get(&va).is_none_or(|m| m.size != size) {
            return Err(Error::invalid_argument(format!(
                "no mapping of {size} bytes at {va:#x}"
            )));
        }
        let m = r.maps.remove(&va).expect("just found");
        if !m.gpus.is_empty() {
            let _ = self.core.driver.unmap_from_gpus(m.bo, &m.gpus);
        }
        let _ = self.core.driver.free(m.bo);
        // SAFETY: the range is our mapping, replaced by PROT_NONE address
        // space again (the reservation keeps it).
        let _ = unsafe {
            rustix::mm::mmap_anonymous(
                va as *mut _,
                size as usize,
                rustix::mm::ProtFlags::empty(),
                rustix::mm::MapFlags::PRIVATE
                    | rustix::mm::MapFlags::FIXED
                    | rustix::mm::MapFlags::NORESERVE,
            )
        };
        let p = s
            .handles
            .get_mut(&m.handle)
            .expect("a mapped handle is known");
        p.mappings -= 1;
        if p.released && p.mappings == 0 {
            let p = s.handles.remove(&m.handle).expect("just found");
            drop(s);
            if let Some(b) = p.backing {
                self.free(b)?;
            }
        }
        Ok(())
    }

    /// `hsa_amd_vmem_set_access`: each `(agent, permission)` for the
    /// mapping at exactly `va..va + size`.
    pub fn vmem_set_access(
        &self,
        va: u64,
        size: u64,
        access: &[(Agent, AccessPermission)],
    ) -> Result<()> {
        let mut s = self.core.vmem.lock();
        let (_, r) = s.reservation_of(va, size)?;
        let m = r
            .maps
            .get_mut(&va)
            .filter(|m| m.size == size)
            .ok_or_else(|| {
                Error::invalid_argument(format!("no mapping of {size} bytes at {va:#x}"))
            })?;
        for &(agent, perm) in access {
            let rec = self.core.agent(agent)?;
            if !rec.is_gpu() {
                let flags = prot(perm)?;
                // SAFETY: the range is our mapping of the handle; changing
                // its protection affects nothing else.
                unsafe { rustix::mm::mprotect(va as *mut _, size as usize, flags) }
                    .map_err(|e| Error::new(Status::Error, format!("mprotect: {e}")))?;
                m.cpu = perm;
                continue;
            }
            let g = rec.gpu_id;
            match perm {
                AccessPermission::ReadWrite if !m.gpus.contains(&g) => {
                    self.core
                        .driver
                        .map_to_gpus(m.bo, &[g])
                        .map_err(|e| Error::driver("MAP_MEMORY_TO_GPU", e))?;
                    m.gpus.push(g);
                }
                AccessPermission::ReadWrite => {}
                AccessPermission::None => {
                    if m.gpus.contains(&g) {
                        self.core
                            .driver
                            .unmap_from_gpus(m.bo, &[g])
                            .map_err(|e| Error::driver("UNMAP_MEMORY_FROM_GPU", e))?;
                        m.gpus.retain(|x| *x != g);
                    }
                }
                AccessPermission::ReadOnly | AccessPermission::WriteOnly => {
                    return Err(Error::invalid_argument(format!(
                        "{perm:?} for GPU agent {}: KFD maps buffers read-write only",
                        agent.index()
                    )));
                }
            }
        }
        Ok(())
    }

    /// `hsa_amd_vmem_get_access`: `agent`'s access to the mapping that
    /// holds `va`.
    pub fn vmem_get_access(&self, va: u64, agent: Agent) -> Result<AccessPermission> {
        let rec = self.core.agent(agent)?;
        let mut s = self.core.vmem.lock();
        let (_, r) = s.reservation_of(va, 1)?;
        let m = r
            .maps
            .range(..=va)
            .next_back()
            .filter(|(start, m)| va < **start + m.size)
            .map(|(_, m)| m)
            .ok_or_else(|| Error::invalid_argument(format!("{va:#x} is not mapped")))?;
        Ok(if !rec.is_gpu() {
            m.cpu
        } else if m.gpus.contains(&rec.gpu_id) {
            AccessPermission::ReadWrite
        } else {
            AccessPermission::None
        })
    }

    /// `hsa_amd_vmem_retain_alloc_handle`: the handle mapped at `va`, with
    /// a reference the caller releases.
    pub fn vmem_retain_alloc_handle(&self, va: u64) -> Result<VmemHandle> {
        let mut s = self.core.vmem.lock();
        let (_, r) = s.reservation_of(va, 1)?;
        let h = r
            .maps
            .range(..=va)
            .next_back()
            .filter(|(start, m)| va < **start + m.size)
            .map(|(_, m)| m.handle)
            .ok_or_else(|| Error::invalid_argument(format!("{va:#x} is not mapped")))?;
        s.handles
            .get_mut(&h)
            .expect("a mapped handle is known")
            .retains += 1;
        Ok(VmemHandle(h))
    }

    /// `hsa_amd_vmem_get_alloc_properties_from_handle`: the pool of a
    /// handle (none for an imported one) and its size.
    pub fn vmem_handle_properties(&self, h: VmemHandle) -> Result<(Option<MemoryPool>, u64)> {
        let mut s = self.core.vmem.lock();
        s.live(h).map(|p| (p.pool, p.size))
    }

    /// `hsa_amd_vmem_export_shareable_handle`: a dma-buf descriptor of the
    /// handle's memory (the caller owns it).
    pub fn vmem_export_shareable_handle(&self, h: VmemHandle) -> Result<OwnedFd> {
        let mut s = self.core.vmem.lock();
        let p = s.live(h)?;
        let fd = self.dmabuf(p)?;
        fd.try_clone_to_owned()
            .map_err(|e| Error::new(Status::OutOfResources, format!("dup of the dma-buf: {e}")))
    }

    /// `hsa_amd_vmem_import_shareable_handle`: a handle for the memory of
    /// dma-buf `fd` (from [`vmem_export_shareable_handle`], maybe of
    /// another process); the runtime keeps its own copy of the descriptor.
    ///
    /// [`vmem_export_shareable_handle`]: Self::vmem_export_shareable_handle
    pub fn vmem_import_shareable_handle(&self, fd: BorrowedFd<'_>) -> Result<VmemHandle> {
        let st = rustix::fs::fstat(fd)
            .map_err(|e| Error::invalid_argument(format!("not a dma-buf descriptor: {e}")))?;
        let size = st.st_size as u64;
        pages("dma-buf size", size)?;
        let own = fd
            .try_clone_to_owned()
            .map_err(|e| Error::new(Status::OutOfResources, format!("dup of the dma-buf: {e}")))?;
        let mut s = self.core.vmem.lock();
        Ok(s.insert(Physical {
            size,
            pool: None,
            backing: None,
            dmabuf: Some(own),
            released: false,
            mappings: 0,
            retains: 0,
        }))
    }
}
