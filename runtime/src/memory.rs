//! Memory: the agents' pools (`hsa_amd_memory_pool_t`, and the HSA regions
//! that name the same memory), and the allocations made from them.
//!
//! An allocation follows libhsakmt's sequence on a dGPU: reserve a range of
//! this process's address space (its GPU virtual address is its CPU
//! address), `AMDKFD_IOC_ALLOC_MEMORY_OF_GPU` at that address, map the
//! buffer for the CPU through the GPU's render node over the reservation
//! (`MAP_FIXED`), and `AMDKFD_IOC_MAP_MEMORY_TO_GPU` on every GPU that may
//! use it: all GPUs for system memory, the owner for VRAM (others through
//! [`allow_access`](crate::Runtime::allow_access)).
//!
//! Pools per agent, as ROCr 5.2 reports them (`rocminfo`; ROCr's
//! `CpuAgent::InitRegionList`, `GpuAgent::InitRegionList`):
//! - CPU agent: system memory fine grained, fine grained for kernel
//!   arguments, and coarse grained (not on a CPU node that also has SIMDs);
//! - GPU agent: its VRAM, coarse grained; its VRAM fine grained too when the
//!   GPU is in an XGMI hive (`hive_id` not 0); and the group segment (LDS),
//!   which cannot be allocated from.

#![allow(unsafe_code)]

use std::collections::BTreeMap;
use std::ptr::NonNull;
use std::sync::Mutex;

use kfd::ioctl::AllocMemFlags;
use kfd::topology::HeapType;

use crate::agent::{Agent, AgentRecord, DeviceType};
use crate::driver::{Driver, Mapped};
use crate::status::{Error, Result, Status};

/// The page size every allocation is rounded to (`HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE`).
pub const GRANULE: u64 = 4096;

/// `HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT` /
/// `HSA_REGION_GLOBAL_FLAG_KERNARG`.
pub const GLOBAL_FLAG_KERNARG: u32 = 1;
/// `HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED` /
/// `HSA_REGION_GLOBAL_FLAG_FINE_GRAINED`.
pub const GLOBAL_FLAG_FINE_GRAINED: u32 = 2;
/// `HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED` /
/// `HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED`.
pub const GLOBAL_FLAG_COARSE_GRAINED: u32 = 4;

/// `hsa_amd_segment_t` / `hsa_region_segment_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Segment {
    /// `HSA_AMD_SEGMENT_GLOBAL`.
    Global = 0,
    /// `HSA_AMD_SEGMENT_READONLY`.
    ReadOnly = 1,
    /// `HSA_AMD_SEGMENT_PRIVATE`.
    Private = 2,
    /// `HSA_AMD_SEGMENT_GROUP`.
    Group = 3,
}

/// What memory a pool hands out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PoolKind {
    /// System memory, fine grained.
    SystemFine,
    /// System memory, fine grained, for kernel arguments.
    SystemKernarg,
    /// System memory, coarse grained.
    SystemCoarse,
    /// A GPU's VRAM, coarse grained.
    Vram,
    /// A GPU's VRAM, fine grained (GPUs in an XGMI hive).
    VramFine,
    /// A GPU's group segment (LDS): reported, never allocated from.
    Group,
}

/// A pool handle (`hsa_amd_memory_pool_t`, and `hsa_region_t` for the same
/// memory).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MemoryPool(pub(crate) u32);

pub(crate) const POOL_TAG: u64 = 0x504f_4f4c << 32;

impl MemoryPool {
    /// The `handle` value.
    pub fn handle(self) -> u64 {
        POOL_TAG | u64::from(self.0)
    }

    /// The pool of a handle value, if it has the pool tag.
    pub fn from_handle(handle: u64) -> Option<Self> {
        (handle & !0xffff_ffff == POOL_TAG).then_some(MemoryPool(handle as u32))
    }

    /// Position in the runtime's pool list.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// What the runtime knows of one pool.
#[derive(Debug, Clone)]
pub struct PoolRecord {
    /// The agent the pool belongs to.
    pub owner: Agent,
    /// Its memory.
    pub kind: PoolKind,
    /// Bytes.
    pub size: u64,
    /// The owner's KFD gpu_id (0 for system memory).
    pub gpu_id: u32,
}

impl PoolRecord {
    /// The pool's segment.
    pub fn segment(&self) -> Segment {
        match self.kind {
            PoolKind::Group => Segment::Group,
            _ => Segment::Global,
        }
    }

    /// Whether `hsa_amd_memory_pool_allocate` may allocate from it.
    pub fn runtime_alloc_allowed(&self) -> bool {
        self.kind != PoolKind::Group
    }

    /// `HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_*` bits: KERNARG_INIT 1,
    /// FINE_GRAINED 2, COARSE_GRAINED 4.
    pub fn global_flags(&self) -> u32 {
        match self.kind {
            PoolKind::SystemFine | PoolKind::VramFine => GLOBAL_FLAG_FINE_GRAINED,
            PoolKind::SystemKernarg => GLOBAL_FLAG_KERNARG | GLOBAL_FLAG_FINE_GRAINED,
            PoolKind::SystemCoarse | PoolKind::Vram => GLOBAL_FLAG_COARSE_GRAINED,
            PoolKind::Group => 0,
        }
    }

    /// Whether the memory is fine grained.
    pub fn fine_grained(&self) -> bool {
        matches!(
            self.kind,
            PoolKind::SystemFine | PoolKind::SystemKernarg | PoolKind::VramFine
        )
    }

    /// Whether the pool is system memory.
    pub fn is_system(&self) -> bool {
        matches!(
            self.kind,
            PoolKind::SystemFine | PoolKind::SystemKernarg | PoolKind::SystemCoarse
        )
    }

    /// Whether the pool is a GPU's VRAM.
    pub fn is_vram(&self) -> bool {
        matches!(self.kind, PoolKind::Vram | PoolKind::VramFine)
    }
}

/// Builds every agent's pools, filling `agents[i].pools`.
pub(crate) fn discover_pools(
    agents: &mut [AgentRecord],
    flags: &crate::flags::Flags,
) -> Vec<PoolRecord> {
    let mut pools = Vec::new();
    let system: u64 = agents
        .iter()
        .filter(|a| a.device_type == DeviceType::Cpu)
        .map(|a| a.node.memory_of(HeapType::System))
        .sum();
    for (i, a) in agents.iter_mut().enumerate() {
        let owner = Agent(i as u32);
        let props = &a.node.properties;
        let kinds: &[PoolKind] = match a.device_type {
            // A CPU node with SIMDs (an old-style APU node) has no coarse pool.
            DeviceType::Cpu if props.simd_count > 0 => {
                &[PoolKind::SystemFine, PoolKind::SystemKernarg]
            }
            DeviceType::Cpu => &[
                PoolKind::SystemFine,
                PoolKind::SystemKernarg,
                PoolKind::SystemCoarse,
            ],
            // ROCr exposes VRAM fine grained over XGMI, or over PCIe when
            // `HSA_FORCE_FINE_GRAIN_PCIE=1`.
            _ if props.hive_id.unwrap_or(0) != 0 || flags.force_fine_grain_pcie => {
                &[PoolKind::Vram, PoolKind::VramFine, PoolKind::Group]
            }
            _ => &[PoolKind::Vram, PoolKind::Group],
        };
        for &kind in kinds {
            let size = match kind {
                PoolKind::SystemFine | PoolKind::SystemKernarg | PoolKind::SystemCoarse => {
                    let own = a.node.memory_of(HeapType::System);
                    if own == 0 { system } else { own }
                }
                PoolKind::Vram | PoolKind::VramFine => a.local_memory_bytes(),
                PoolKind::Group => u64::from(a.node.properties.lds_size_in_kb) * 1024,
            };
            if size == 0 && matches!(kind, PoolKind::Vram | PoolKind::VramFine) {
                continue; // an APU without carve-out: no VRAM pool.
            }
            a.pools.push(pools.len());
            pools.push(PoolRecord {
                owner,
                kind,
                size,
                gpu_id: a.gpu_id,
            });
        }
    }
    pools
}

/// One allocation.
#[derive(Debug)]
pub(crate) struct Block {
    pub size: u64,
    pub pool: Option<usize>,
    /// KFD buffer handle (none: plain host memory, no GPU).
    pub bo: Option<u64>,
    /// GPUs it is mapped on.
    pub mapped_on: Vec<u32>,
    /// The CPU mapping (none for memory the CPU cannot reach).
    pub cpu: Option<Mapped>,
    /// Bytes of the address-space reservation the memory is mapped over.
    pub reserved: usize,
    /// Bytes of guard pages reserved right after it (`HSA_SVM_GUARD_PAGES`):
    /// `PROT_NONE`, mapped for no GPU; given back with the block.
    pub guard: usize,
    /// A user pointer locked with [`lock`](crate::Runtime::lock_host): the
    /// GPU address aliases it, there is no reservation of ours.
    pub userptr: bool,
    /// Bytes asked for (locked memory: the locked length from `user_ptr`).
    pub requested: u64,
    /// Locked memory: the host pointer given to the lock (else 0).
    pub user_ptr: u64,
}

/// The allocations of a runtime.
#[derive(Debug, Default)]
pub(crate) struct Allocations {
    blocks: Mutex<BTreeMap<u64, Block>>,
    /// Guard pages after each pool allocation (`HSA_SVM_GUARD_PAGES`).
    guard_pages: std::sync::atomic::AtomicU32,
}

/// Reserves `size` bytes of address space aligned to `align` (a power of
/// two, at least a page): `PROT_NONE`, no swap reserved.
pub(crate) fn reserve(size: u64, align: u64) -> Result<u64> {
    let oom = || {
        Error::new(
            Status::OutOfResources,
            format!("no address space for {size} bytes"),
        )
    };
    let total = size.checked_add(align).ok_or_else(oom)?;
    let total_usize = usize::try_from(total).map_err(|_| oom())?;
    // SAFETY: a fresh anonymous mapping where the kernel chooses; nothing
    // of ours is replaced.
    let p = unsafe {
        rustix::mm::mmap_anonymous(
            std::ptr::null_mut(),
            total_usize,
            rustix::mm::ProtFlags::empty(),
            rustix::mm::MapFlags::PRIVATE | rustix::mm::MapFlags::NORESERVE,
        )
    }
    .map_err(|_| oom())? as u64;
    let start = p.next_multiple_of(align);
    let head = start - p;
    let tail = total - head - size;
    if head > 0 {
        // SAFETY: the unaligned head of our own fresh reservation.
        let _ = unsafe { rustix::mm::munmap(p as *mut _, head as usize) };
    }
    if tail > 0 {
        // SAFETY: the tail beyond the aligned range, ours too.
        let _ = unsafe { rustix::mm::munmap((start + size) as *mut _, tail as usize) };
    }
    Ok(start)
}

/// Gives back a reservation made by [`reserve`].
pub(crate) fn unreserve(start: u64, size: usize) {
    // SAFETY: `start..start + size` is a reservation of ours that nothing
    // uses any more (its mappings were dropped first).
    let _ = unsafe { rustix::mm::munmap(start as *mut _, size) };
}

/// Gives back the guard pages of a block at `va` mapped over `reserved`
/// bytes (nothing when `guard` is 0).
fn unreserve_guard(va: u64, reserved: usize, guard: usize) {
    if guard > 0 {
        unreserve(va + reserved as u64, guard);
    }
}

/// Rounds `size` up to the granule; `None` if it overflows.
fn granules(size: u64) -> Option<u64> {
    size.checked_next_multiple_of(GRANULE)
}

impl Allocations {
    /// Every later allocation is followed by `pages` guard pages of
    /// reserved, unmapped address space (libhsakmt's
    /// `HSA_SVM_GUARD_PAGES`, default 1): an access running past its end
    /// faults instead of reaching the next allocation.
    pub(crate) fn set_guard_pages(&self, pages: u32) {
        self.guard_pages
            .store(pages, std::sync::atomic::Ordering::Relaxed);
    }

    /// Allocates `size` bytes (rounded to pages) of `kind` memory owned by
    /// `owner_gpu` (system memory: any GPU, `gpus[0]`), maps it for the CPU
    /// when it can be, and on `gpus`.
    #[allow(clippy::too_many_arguments)] // one KFD request's worth of facts
    pub(crate) fn allocate(
        &self,
        driver: &dyn Driver,
        pool: Option<usize>,
        kind: PoolKind,
        owner_gpu: Option<u32>,
        gpus: &[u32],
        size: u64,
        align: u64,
    ) -> Result<u64> {
        self.allocate_mapping(driver, pool, kind, owner_gpu, gpus, size, align, true)
    }

    /// System memory allocated through `gpu` (the buffer's node) and mapped
    /// for the CPU only: no GPU may use it until
    /// [`allow_access`](Self::allow_access) maps it there (ROCr's
    /// `hsa_amd_memory_pool_allocate` of system memory, `AllocateRestrict`).
    pub(crate) fn allocate_cpu_only(
        &self,
        driver: &dyn Driver,
        pool: Option<usize>,
        kind: PoolKind,
        gpu: u32,
        size: u64,
    ) -> Result<u64> {
        self.allocate_mapping(driver, pool, kind, None, &[gpu], size, 4096, false)
    }

    #[allow(clippy::too_many_arguments)]
    fn allocate_mapping(
        &self,
        driver: &dyn Driver,
        pool: Option<usize>,
        kind: PoolKind,
        owner_gpu: Option<u32>,
        gpus: &[u32],
        size: u64,
        align: u64,
        map_on_gpus: bool,
    ) -> Result<u64> {
        if size == 0 {
            return Err(Error::invalid_argument("allocation size is 0"));
        }
        let requested = size;
        let size = granules(size)
            .ok_or_else(|| Error::new(Status::OutOfResources, "allocation size overflows"))?;
        let align = align.max(GRANULE).next_power_of_two();
        let guard_pages = self.guard_pages.load(std::sync::atomic::Ordering::Relaxed);
        let guard = u64::from(guard_pages)
            .checked_mul(GRANULE)
            .and_then(|g| size.checked_add(g).map(|t| (g, t)));
        let Some((guard, total)) = guard else {
            return Err(Error::new(
                Status::OutOfResources,
                format!("{size} bytes and {guard_pages} guard pages overflow"),
            ));
        };
        let va = reserve(total, align)?;
        let reserved = size as usize;
        let guard = guard as usize;
        let alloc_gpu = owner_gpu.or_else(|| gpus.first().copied());
        let Some(gpu) = alloc_gpu else {
            // No GPU at all: plain host memory.
            // SAFETY: replaces our own fresh reservation with read-write
            // anonymous memory.
            let r = unsafe {
                rustix::mm::mmap_anonymous(
                    va as *mut _,
                    reserved,
                    rustix::mm::ProtFlags::READ | rustix::mm::ProtFlags::WRITE,
                    rustix::mm::MapFlags::PRIVATE | rustix::mm::MapFlags::FIXED,
                )
            };
            if r.is_err() {
                unreserve(va, reserved + guard);
                return Err(Error::new(Status::OutOfResources, "host memory"));
            }
            self.insert(
                va,
                Block {
                    size,
                    pool,
                    bo: None,
                    mapped_on: Vec::new(),
                    cpu: None,
                    reserved,
                    guard,
                    userptr: false,
                    requested,
                    user_ptr: 0,
                },
            );
            return Ok(va);
        };
        let a = match driver.alloc(gpu, va, size, alloc_flags(kind)) {
            Ok(a) => a,
            Err(e) => {
                unreserve(va, reserved + guard);
                return Err(Error::driver("ALLOC_MEMORY_OF_GPU", e));
            }
        };
        let undo = |cpu: Option<Mapped>, mapped: &[u32]| {
            // A CPU mapping covers the whole reservation: dropping it gives
            // the range back, and a second munmap could hit a mapping
            // another thread made there meanwhile.
            let had_cpu = cpu.is_some();
            drop(cpu);
            if !mapped.is_empty() {
                let _ = driver.unmap_from_gpus(a.handle, mapped);
            }
            let _ = driver.free(a.handle);
            if !had_cpu {
                unreserve(va, reserved);
            }
            unreserve_guard(va, reserved, guard);
        };
        // SAFETY: `va..va + size` is our fresh reservation, page aligned,
        // used by nothing else.
        let cpu = match unsafe {
            driver.map_cpu_at(
                gpu,
                NonNull::new(va as *mut u8).expect("mmap never returns 0"),
                a.mmap_offset,
                reserved,
            )
        } {
            Ok(m) => Some(m),
            Err(e) => {
                undo(None, &[]);
                return Err(Error::driver("mmap of the render node", e));
            }
        };
        let mut on: Vec<u32> = Vec::new();
        if map_on_gpus {
            for &g in gpus.iter().chain(owner_gpu.iter()) {
                if !on.contains(&g) {
                    on.push(g);
                }
            }
        }
        if !on.is_empty()
            && let Err(e) = driver.map_to_gpus(a.handle, &on)
        {
            undo(cpu, &[]);
            return Err(Error::driver("MAP_MEMORY_TO_GPU", e));
        }
        self.insert(
            va,
            Block {
                size,
                pool,
                bo: Some(a.handle),
                mapped_on: on,
                cpu,
                reserved,
                guard,
                userptr: false,
                requested,
                user_ptr: 0,
            },
        );
        Ok(va)
    }

    /// `hsa_amd_memory_migrate`: moves the allocation that starts at `va`
    /// to `pool` (of `kind`, owned by GPU `owner` for VRAM, else mapped on
    /// `all_gpus` as system memory is), keeping its address and contents.
    /// The KFD sequence: the contents are copied out through the CPU
    /// mapping, a buffer of the new kind is allocated at the same GPU
    /// virtual address, its CPU mapping replaces the old one in place
    /// (`MAP_FIXED` over the range, never a hole another thread could map
    /// into), the contents are copied in, the old buffer is unmapped from
    /// the GPUs and the new one mapped on every GPU that had access (and
    /// the new owner), then the old buffer is freed. Until the old buffer
    /// is unmapped every failure puts everything back as it was. The
    /// caller guarantees that no agent accesses the memory meanwhile (as
    /// for any reallocation). The allocations' lock is held throughout, so
    /// a concurrent free or access change waits.
    #[allow(clippy::too_many_arguments)] // the target pool's facts
    pub(crate) fn migrate(
        &self,
        driver: &dyn Driver,
        va: u64,
        pool: usize,
        kind: PoolKind,
        owner: Option<u32>,
        all_gpus: &[u32],
    ) -> Result<()> {
        let mut blocks = self.lock();
        let b = blocks.get_mut(&va).ok_or_else(|| {
            Error::invalid_argument(format!(
                "{va:#x} is not the start of an allocation of this runtime"
            ))
        })?;
        if b.pool == Some(pool) {
            return Ok(());
        }
        let (Some(old_bo), Some(old_cpu), false) = (b.bo, b.cpu.as_ref(), b.userptr) else {
            return Err(Error::invalid_argument(format!(
                "the allocation at {va:#x} cannot be migrated: only memory pool allocations \
                 with a CPU mapping can (not locked or registered user memory)"
            )));
        };
        let mut on: Vec<u32> = b.mapped_on.clone();
        let targets: Vec<u32> = match owner {
            Some(g) => vec![g],
            None => all_gpus.to_vec(),
        };
        for g in &targets {
            if !on.contains(g) {
                on.push(*g);
            }
        }
        let Some(&gpu) = targets.first().or(on.first()) else {
            return Err(Error::invalid_argument(
                "no GPU to allocate the migrated buffer on",
            ));
        };
        let len = b.size as usize;
        let mut saved = Vec::new();
        saved
            .try_reserve_exact(len)
            .map_err(|_| Error::new(Status::OutOfResources, "no host memory to stage the copy"))?;
        // SAFETY: the CPU mapping covers `va..va + size` (the block's
        // mapping, alive while we hold the lock); `saved` has room for it.
        unsafe {
            core::ptr::copy_nonoverlapping(old_cpu.as_ptr().as_ptr(), saved.as_mut_ptr(), len)
        };
        // SAFETY: the `len` bytes were just written.
        unsafe { saved.set_len(len) };
        let new = driver
            .alloc(gpu, va, b.size, alloc_flags(kind))
            .map_err(|e| Error::driver("ALLOC_MEMORY_OF_GPU (migration)", e))?;
        // The GPUs first: the old buffer off them, the new one on.
        if !b.mapped_on.is_empty() {
            if let Err(e) = driver.unmap_from_gpus(old_bo, &b.mapped_on) {
                let _ = driver.free(new.handle);
                return Err(Error::driver("UNMAP_MEMORY_FROM_GPU (migration)", e));
            }
        }
        let back_on_gpus = |driver: &dyn Driver| {
            if !b.mapped_on.is_empty() {
                let _ = driver.map_to_gpus(old_bo, &b.mapped_on);
            }
            let _ = driver.free(new.handle);
        };
        if let Err(e) = driver.map_to_gpus(new.handle, &on) {
            back_on_gpus(driver);
            return Err(Error::driver("MAP_MEMORY_TO_GPU (migration)", e));
        }
        let addr = NonNull::new(va as *mut u8).expect("an allocation is never at 0");
        // SAFETY: `va..va + reserved` is this block's range, mapped by its
        // old buffer and used by nothing else; its pages are replaced in
        // place (MAP_FIXED), leaving no hole.
        let new_cpu = match unsafe { driver.map_cpu_at(gpu, addr, new.mmap_offset, b.reserved) } {
            Ok(m) => m,
            Err(e) => {
                let _ = driver.unmap_from_gpus(new.handle, &on);
                back_on_gpus(driver);
                return Err(Error::driver("mmap of the render node (migration)", e));
            }
        };
        // SAFETY: `new_cpu` maps `va..va + size`, written by nothing else
        // while we hold the lock; `saved` holds `len` bytes.
        unsafe { core::ptr::copy_nonoverlapping(saved.as_ptr(), new_cpu.as_ptr().as_ptr(), len) };
        let old = b.cpu.replace(new_cpu);
        if let Some(old) = old {
            // Its range now holds the new buffer's pages: give it up
            // without unmapping.
            let _ = old.disown();
        }
        b.bo = Some(new.handle);
        b.pool = Some(pool);
        b.mapped_on = on;
        drop(blocks);
        driver
            .free(old_bo)
            .map_err(|e| Error::driver("FREE_MEMORY_OF_GPU (the migrated buffer's old one)", e))
    }

    pub(crate) fn insert(&self, va: u64, b: Block) {
        self.lock().insert(va, b);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Block>> {
        self.blocks.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Frees the allocation that starts at `va`.
    pub(crate) fn free(&self, driver: &dyn Driver, va: u64) -> Result<()> {
        let b = self.lock().remove(&va).ok_or_else(|| {
            Error::new(
                Status::InvalidAllocation,
                format!("{va:#x} is not the start of an allocation of this runtime"),
            )
        })?;
        Self::release(driver, va, b)
    }

    fn release(driver: &dyn Driver, va: u64, b: Block) -> Result<()> {
        let mut first_err = None;
        let mut unmapped = false;
        if let Some(bo) = b.bo {
            if !b.mapped_on.is_empty() {
                if let Err(e) = driver.unmap_from_gpus(bo, &b.mapped_on) {
                    first_err.get_or_insert(Error::driver("UNMAP_MEMORY_FROM_GPU", e));
                }
            }
            // The CPU mapping covers the whole reservation (map_cpu_at of
            // `reserved` bytes at `va`): its munmap gives the range back.
            // Unmapping the range again afterwards raced with other threads
            // (and the software GPU) mapping memory there in between.
            if b.cpu.is_some() {
                unmapped = true;
            }
            drop(b.cpu);
            if let Err(e) = driver.free(bo) {
                first_err.get_or_insert(Error::driver("FREE_MEMORY_OF_GPU", e));
            }
        }
        if !b.userptr && !unmapped {
            unreserve(va, b.reserved);
        }
        unreserve_guard(va, b.reserved, b.guard);
        first_err.map_or(Ok(()), Err)
    }

    /// Forgets the allocation at `va` without asking the driver to free it
    /// (the event page, which KFD keeps as the process's signal BO and
    /// refuses to free, `kfd_ioctl_free_memory_of_gpu` -> `EPERM`; ROCr never
    /// frees it either: it goes when the process closes the device). Only
    /// our CPU mapping (our address space) is given back.
    pub(crate) fn abandon(&self, va: u64) {
        if let Some(b) = self.lock().remove(&va) {
            let had_cpu = b.cpu.is_some();
            drop(b.cpu);
            if !had_cpu && !b.userptr {
                unreserve(va, b.reserved);
            }
            unreserve_guard(va, b.reserved, b.guard);
        }
    }

    /// Frees everything (runtime shutdown).
    pub(crate) fn free_all(&self, driver: &dyn Driver) {
        let all = std::mem::take(&mut *self.lock());
        for (va, b) in all {
            let _ = Self::release(driver, va, b);
        }
    }

    /// The allocation holding `addr`: (start, size, pool, host-accessible).
    pub(crate) fn find(&self, addr: u64) -> Option<BlockInfo> {
        let blocks = self.lock();
        let (&start, b) = blocks.range(..=addr).next_back()?;
        (addr < start + b.size).then(|| BlockInfo {
            start,
            size: b.size,
            pool: b.pool,
            bo: b.bo,
            mapped_on: b.mapped_on.clone(),
            host_accessible: b.cpu.is_some() || b.bo.is_none() || b.userptr,
            userptr: b.userptr,
            requested: b.requested,
            user_ptr: b.user_ptr,
        })
    }

    /// Whether any allocation overlaps `start..end`.
    fn overlaps(&self, start: u64, end: u64) -> bool {
        let blocks = self.lock();
        blocks
            .range(..end)
            .next_back()
            .is_some_and(|(&s, b)| s + b.size > start)
    }

    /// Maps the allocation at `va` on `gpus` too.
    pub(crate) fn allow_access(&self, driver: &dyn Driver, va: u64, gpus: &[u32]) -> Result<()> {
        let mut blocks = self.lock();
        let b = blocks.get_mut(&va).ok_or_else(|| {
            Error::invalid_argument(format!(
                "{va:#x} is not the start of an allocation of this runtime"
            ))
        })?;
        let Some(bo) = b.bo else { return Ok(()) };
        let new: Vec<u32> = gpus
            .iter()
            .copied()
            .filter(|g| !b.mapped_on.contains(g))
            .collect();
        if new.is_empty() {
            return Ok(());
        }
        driver
            .map_to_gpus(bo, &new)
            .map_err(|e| Error::driver("MAP_MEMORY_TO_GPU", e))?;
        b.mapped_on.extend(new);
        Ok(())
    }

    /// Registers `ptr..ptr + size` of host memory with the GPUs (USERPTR):
    /// the GPU address equals the host address.
    ///
    /// # Safety
    ///
    /// The range stays mapped until [`unlock`](Self::unlock).
    pub(crate) unsafe fn lock_host(
        &self,
        driver: &dyn Driver,
        ptr: u64,
        size: u64,
        gpus: &[u32],
    ) -> Result<u64> {
        if size == 0 || ptr == 0 {
            return Err(Error::invalid_argument(
                "lock of a null pointer or zero bytes",
            ));
        }
        let start = ptr & !(GRANULE - 1);
        let end = ptr
            .checked_add(size)
            .and_then(granules)
            .ok_or_else(|| Error::invalid_argument("locked range overflows"))?;
        let len = end - start;
        let Some(&gpu) = gpus.first() else {
            return Ok(ptr);
        };
        if self.overlaps(start, end) {
            return Err(Error::invalid_argument(format!(
                "{ptr:#x}+{size} overlaps memory already registered with the runtime"
            )));
        }
        let flags = AllocMemFlags::WRITABLE | AllocMemFlags::EXECUTABLE | AllocMemFlags::COHERENT;
        // SAFETY: the caller keeps the range mapped until unlock.
        let a = unsafe {
            driver.alloc_userptr(
                gpu,
                start,
                NonNull::new(start as *mut u8).expect("ptr != 0"),
                len,
                flags,
            )
        }
        .map_err(|e| Error::driver("ALLOC_MEMORY_OF_GPU (USERPTR)", e))?;
        if let Err(e) = driver.map_to_gpus(a.handle, gpus) {
            let _ = driver.free(a.handle);
            return Err(Error::driver("MAP_MEMORY_TO_GPU", e));
        }
        self.insert(
            start,
            Block {
                size: len,
                pool: None,
                bo: Some(a.handle),
                mapped_on: gpus.to_vec(),
                cpu: None,
                reserved: 0,
                guard: 0,
                userptr: true,
                requested: size,
                user_ptr: ptr,
            },
        );
        Ok(ptr)
    }

    /// Undoes [`lock_host`](Self::lock_host) of `ptr`.
    pub(crate) fn unlock(&self, driver: &dyn Driver, ptr: u64) -> Result<()> {
        let start = ptr & !(GRANULE - 1);
        let userptr = self.lock().get(&start).map(|b| b.userptr);
        match userptr {
            Some(true) => self.free(driver, start),
            _ => Err(Error::invalid_argument(format!(
                "{ptr:#x} is not locked host memory"
            ))),
        }
    }

    /// Number of live allocations.
    pub(crate) fn count(&self) -> usize {
        self.lock().len()
    }
}

/// What [`Allocations::find`] reports.
#[derive(Debug, Clone)]
pub struct BlockInfo {
    /// Start address.
    pub start: u64,
    /// Bytes.
    pub size: u64,
    /// The pool it came from.
    pub pool: Option<usize>,
    /// KFD handle.
    pub bo: Option<u64>,
    /// GPUs it is mapped on.
    pub mapped_on: Vec<u32>,
    /// Whether the CPU can read and write it.
    pub host_accessible: bool,
    /// Locked host memory.
    pub userptr: bool,
    /// Bytes asked for (locked memory: bytes locked from `user_ptr`).
    pub requested: u64,
    /// Locked memory: the host pointer given to the lock (else 0).
    pub user_ptr: u64,
}

/// The KFD allocation flags of a pool kind's buffers (ROCr's
/// `MemoryRegion` flags: VRAM public, fine-grained coherent, system memory
/// in GTT).
fn alloc_flags(kind: PoolKind) -> AllocMemFlags {
    let mut flags =
        AllocMemFlags::WRITABLE | AllocMemFlags::EXECUTABLE | AllocMemFlags::NO_SUBSTITUTE;
    match kind {
        PoolKind::Vram => flags |= AllocMemFlags::VRAM | AllocMemFlags::PUBLIC,
        PoolKind::VramFine => {
            flags |= AllocMemFlags::VRAM | AllocMemFlags::PUBLIC | AllocMemFlags::COHERENT
        }
        PoolKind::SystemFine | PoolKind::SystemKernarg => {
            flags |= AllocMemFlags::GTT | AllocMemFlags::COHERENT
        }
        _ => flags |= AllocMemFlags::GTT,
    }
    flags
}
