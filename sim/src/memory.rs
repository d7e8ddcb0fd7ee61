//! GPU-virtual memory as the device sees it: the one door through which
//! every engine (command processor, SDMA, shader cores) reaches memory.
//!
//! The model is rust-vmm's `vm-memory` (`GuestMemory` + `Bytes`): a device
//! never holds a raw pointer into client memory. It asks [`DeviceMemory`]
//! for bytes or atomics at a GPU virtual address; the implementation
//! ([`GpuMemory`]) looks the address up in the GPU's VA map (only ranges
//! `AMDKFD_IOC_MAP_MEMORY_TO_GPU` mapped to *this* GPU), checks bounds and
//! permissions, and returns a typed [`MemoryFault`] (address, read or write,
//! reason) instead of touching anything it should not.
//!
//! The bytes are shared with the client, which reads and writes them at the
//! same time through its own CPU mapping (GPU VA == CPU VA), so every access
//! is volatile or atomic, never a Rust reference to plain data.

#![allow(unsafe_code)]

use std::collections::BTreeMap;
use std::fmt;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// What the faulting access tried to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// A load.
    Read,
    /// A store, or the write half of an atomic read-modify-write.
    Write,
}

impl Access {
    /// `read` or `write`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
        }
    }
}

/// Why an access faulted, as the GPU's VM fault status reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultReason {
    /// No range mapped to this GPU covers the address (a PTE not valid).
    NotPresent,
    /// The range is mapped without `KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE`.
    ReadOnly,
    /// An atomic access not aligned to its size.
    Misaligned,
    /// `address + length` overflows the 64-bit address space.
    AddressOverflow,
    /// A vector memory access to an address in no aperture: outside the
    /// 48-bit canonical range and not in the LDS or scratch aperture (the
    /// GFX9 address-space hole). The SQ reports it to the wave as
    /// `TRAPSTS.MEM_VIOL` (no VM fault: no page table is walked).
    ApertureViolation,
}

impl FaultReason {
    /// A short description.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::NotPresent => "page not present",
            Self::ReadOnly => "write to a read-only page",
            Self::Misaligned => "misaligned atomic",
            Self::AddressOverflow => "address range overflows",
            Self::ApertureViolation => "address in no aperture",
        }
    }
}

/// A device access that did not happen, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemoryFault {
    /// The first faulting GPU virtual address.
    pub address: u64,
    /// Read or write.
    pub access: Access,
    /// Why.
    pub reason: FaultReason,
}

impl fmt::Display for MemoryFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GPU memory fault: {} at {:#x}: {}",
            self.access.as_str(),
            self.address,
            self.reason.as_str()
        )
    }
}

impl std::error::Error for MemoryFault {}

/// The read-modify-write operations of the GFX9 `*_ATOMIC_*` instructions
/// (and SDMA's `ATOMIC` packet), besides compare-and-swap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// `SWAP`: store the operand.
    Swap,
    /// `ADD` (wrapping).
    Add,
    /// `SUB` (wrapping).
    Sub,
    /// `SMIN`: signed minimum.
    SMin,
    /// `UMIN`: unsigned minimum.
    UMin,
    /// `SMAX`: signed maximum.
    SMax,
    /// `UMAX`: unsigned maximum.
    UMax,
    /// `AND`.
    And,
    /// `OR`.
    Or,
    /// `XOR`.
    Xor,
    /// `INC`: `old >= operand ? 0 : old + 1`.
    Inc,
    /// `DEC`: `old == 0 || old > operand ? operand : old - 1`.
    Dec,
}

impl AtomicOp {
    /// The value the operation stores over `old` with operand `v`, both
    /// `bits` (32 or 64) wide in the low bits: the one definition of these
    /// operations, used by the shader core's and the SDMA engine's atomics.
    pub(crate) fn apply(self, old: u64, v: u64, bits: u32) -> u64 {
        let mask = u64::MAX >> (64 - bits);
        let signed = |x: u64| ((x << (64 - bits)) as i64) >> (64 - bits);
        let new = match self {
            Self::Swap => v,
            Self::Add => old.wrapping_add(v),
            Self::Sub => old.wrapping_sub(v),
            Self::SMin => {
                if signed(v) < signed(old) {
                    v
                } else {
                    old
                }
            }
            Self::UMin => old.min(v),
            Self::SMax => {
                if signed(v) > signed(old) {
                    v
                } else {
                    old
                }
            }
            Self::UMax => old.max(v),
            Self::And => old & v,
            Self::Or => old | v,
            Self::Xor => old ^ v,
            Self::Inc => {
                if old >= v {
                    0
                } else {
                    old + 1
                }
            }
            Self::Dec => {
                if old == 0 || old > v {
                    v
                } else {
                    old - 1
                }
            }
        };
        new & mask
    }

    fn apply_u32(self, old: u32, v: u32) -> u32 {
        self.apply(u64::from(old), u64::from(v), 32) as u32
    }

    fn apply_u64(self, old: u64, v: u64) -> u64 {
        self.apply(old, v, 64)
    }
}

/// Device-side access to GPU virtual memory. Every method checks the whole
/// range against the VA map first and fails with the first faulting
/// address; a failed access has no effect (a multi-range copy may have
/// written the part before the fault, as hardware would).
///
/// Atomic methods need natural alignment ([`FaultReason::Misaligned`]).
/// Read-modify-write operations are sequentially consistent (device scope,
/// system coherent: the client sees them at once).
pub trait DeviceMemory: Send + Sync {
    /// Copies `buf.len()` bytes at `va` into `buf`.
    fn read_bytes(&self, va: u64, buf: &mut [u8]) -> Result<(), MemoryFault>;

    /// Copies `data` to `va`.
    fn write_bytes(&self, va: u64, data: &[u8]) -> Result<(), MemoryFault>;

    /// An atomic 32-bit load.
    fn load_u32(&self, va: u64, order: Ordering) -> Result<u32, MemoryFault>;

    /// An atomic 64-bit load.
    fn load_u64(&self, va: u64, order: Ordering) -> Result<u64, MemoryFault>;

    /// An atomic 32-bit store.
    fn store_u32(&self, va: u64, value: u32, order: Ordering) -> Result<(), MemoryFault>;

    /// An atomic 64-bit store.
    fn store_u64(&self, va: u64, value: u64, order: Ordering) -> Result<(), MemoryFault>;

    /// Applies `op` with `operand` to the 32-bit word at `va`; returns the
    /// old value.
    fn atomic_u32(&self, va: u64, op: AtomicOp, operand: u32) -> Result<u32, MemoryFault>;

    /// Applies `op` with `operand` to the 64-bit word at `va`; returns the
    /// old value.
    fn atomic_u64(&self, va: u64, op: AtomicOp, operand: u64) -> Result<u64, MemoryFault>;

    /// `CMPSWAP`: stores `new` if the word holds `expected`; returns the old
    /// value either way.
    fn compare_exchange_u32(&self, va: u64, expected: u32, new: u32) -> Result<u32, MemoryFault>;

    /// 64-bit `CMPSWAP`.
    fn compare_exchange_u64(&self, va: u64, expected: u64, new: u64) -> Result<u64, MemoryFault>;

    /// Copies `len` bytes from `src` to `dst` (through a bounce buffer, so
    /// overlapping ranges behave like `memmove`).
    fn copy(&self, dst: u64, src: u64, len: u64) -> Result<(), MemoryFault> {
        bounce_copy(self, dst, src, len)
    }

    /// Fills `len` bytes at `va` with the little-endian 32-bit `pattern`
    /// repeated (SDMA `CONSTANT_FILL`); `len` need not be a multiple of 4.
    fn fill_u32(&self, va: u64, pattern: u32, len: u64) -> Result<(), MemoryFault> {
        const CHUNK: u64 = 64 * 1024;
        let chunk: Vec<u8> = pattern
            .to_le_bytes()
            .iter()
            .copied()
            .cycle()
            .take(CHUNK.min(len) as usize)
            .collect();
        let mut done = 0;
        while done < len {
            let n = CHUNK.min(len - done);
            self.write_bytes(add(va, done, Access::Write)?, &chunk[..n as usize])?;
            done += n;
        }
        Ok(())
    }
}

/// [`DeviceMemory::copy`]'s default: 64 KiB at a time through a bounce
/// buffer, backwards when the destination is above an overlapping source.
fn bounce_copy<M: DeviceMemory + ?Sized>(
    mem: &M,
    dst: u64,
    src: u64,
    len: u64,
) -> Result<(), MemoryFault> {
    const CHUNK: u64 = 64 * 1024;

    let mut bounce = vec![0u8; CHUNK.min(len) as usize];
    // Copy backwards when the destination is above an overlapping
    // source, so that each chunk reads bytes not yet overwritten.
    let backwards = dst > src && dst < src.saturating_add(len);
    let mut done = 0;
    while done < len {
        let n = CHUNK.min(len - done);
        let at = if backwards { len - done - n } else { done };
        let buf = &mut bounce[..n as usize];
        mem.read_bytes(add(src, at, Access::Read)?, buf)?;
        mem.write_bytes(add(dst, at, Access::Write)?, buf)?;
        done += n;
    }
    Ok(())
}

fn add(va: u64, offset: u64, access: Access) -> Result<u64, MemoryFault> {
    va.checked_add(offset).ok_or(MemoryFault {
        address: va,
        access,
        reason: FaultReason::AddressOverflow,
    })
}

/// A piece of host memory that backs a buffer object: the sim's own
/// mapping of a BO's memfd, or (for `USERPTR` BOs) the client's pages.
pub(crate) struct HostView {
    ptr: NonNull<u8>,
    len: usize,
    /// Whether `Drop` unmaps it (our own mmap) or leaves it (user pages).
    owned: bool,
    /// The memfd behind it, kept for the client's mmaps and dma-buf export.
    fd: Option<std::os::fd::OwnedFd>,
}

// SAFETY: the view is a plain range of shared memory; all accesses through
// it are volatile or atomic, so it may be used from any thread.
unsafe impl Send for HostView {}
// SAFETY: as above.
unsafe impl Sync for HostView {}

impl fmt::Debug for HostView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostView")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .field("owned", &self.owned)
            .finish()
    }
}

impl HostView {
    /// Maps `len` bytes of `fd` (a memfd) shared and read-write, for the sim's own use.
    pub(crate) fn map_fd(fd: std::os::fd::BorrowedFd<'_>, len: usize) -> rustix::io::Result<Self> {
        use rustix::mm::{MapFlags, ProtFlags, mmap};
        if len == 0 {
            return Err(rustix::io::Errno::INVAL);
        }
        // SAFETY: a null hint lets the kernel choose a fresh range, so no
        // existing memory is replaced; the result is owned by this view.
        let ptr = unsafe {
            mmap(
                core::ptr::null_mut(),
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
                fd,
                0,
            )
        }?;
        let ptr = NonNull::new(ptr.cast::<u8>()).ok_or(rustix::io::Errno::FAULT)?;
        Ok(Self {
            ptr,
            len,
            owned: true,
            fd: None,
        })
    }

    /// A new memfd-backed view of `len` bytes (zero-filled by the kernel).
    pub(crate) fn memfd(name: &str, len: usize) -> rustix::io::Result<Self> {
        let fd = rustix::fs::memfd_create(name, rustix::fs::MemfdFlags::CLOEXEC)?;
        rustix::fs::ftruncate(&fd, len as u64)?;
        Self::map_fd_keep(fd, len)
    }

    /// Maps `fd` as [`map_fd`](Self::map_fd) and keeps it.
    pub(crate) fn map_fd_keep(fd: std::os::fd::OwnedFd, len: usize) -> rustix::io::Result<Self> {
        let mut v = Self::map_fd(std::os::fd::AsFd::as_fd(&fd), len)?;
        v.fd = Some(fd);
        Ok(v)
    }

    /// The memfd behind the view, if it has one.
    pub(crate) fn fd(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        self.fd.as_ref().map(std::os::fd::AsFd::as_fd)
    }

    /// A view of client memory (a `USERPTR` buffer).
    ///
    /// # Safety
    ///
    /// `ptr..ptr + len` stays mapped, readable and writable for as long as
    /// the view lives (the client's promise to `alloc_userptr_memory_of_gpu`).
    pub(crate) unsafe fn borrowed(ptr: NonNull<u8>, len: usize) -> Self {
        Self {
            ptr,
            len,
            owned: false,
            fd: None,
        }
    }

    /// Length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    fn check(&self, offset: usize, len: usize) -> bool {
        offset.checked_add(len).is_some_and(|end| end <= self.len)
    }

    /// Volatile copy out of the view. `offset..offset + buf.len()` must be
    /// inside it (checked; a bad range copies nothing and returns false).
    fn read(&self, offset: usize, buf: &mut [u8]) -> bool {
        if !self.check(offset, buf.len()) {
            return false;
        }
        // In range (checked above).
        let src = self.ptr.as_ptr().wrapping_add(offset);
        let mut i = 0;
        let n = buf.len();
        // Bytes up to 8-byte alignment of the source, then 8-byte volatile
        // words, then the tail: each shared byte is read exactly once, with
        // no reference to memory the client writes concurrently.
        while i < n && (src as usize + i) % 8 != 0 {
            // SAFETY: `i < n`, inside the checked range.
            buf[i] = unsafe { src.wrapping_add(i).read_volatile() };
            i += 1;
        }
        while i + 8 <= n {
            // SAFETY: 8 bytes inside the checked range, 8-byte aligned.
            let w = unsafe { src.wrapping_add(i).cast::<u64>().read_volatile() };
            buf[i..i + 8].copy_from_slice(&w.to_ne_bytes());
            i += 8;
        }
        while i < n {
            // SAFETY: `i < n`, inside the checked range.
            buf[i] = unsafe { src.wrapping_add(i).read_volatile() };
            i += 1;
        }
        true
    }

    /// Volatile copy into the view (checked as [`read`](Self::read)).
    fn write(&self, offset: usize, data: &[u8]) -> bool {
        if !self.check(offset, data.len()) {
            return false;
        }
        // In range (checked above).
        let dst = self.ptr.as_ptr().wrapping_add(offset);
        let mut i = 0;
        let n = data.len();
        while i < n && (dst as usize + i) % 8 != 0 {
            // SAFETY: `i < n`, inside the checked range.
            unsafe { dst.wrapping_add(i).write_volatile(data[i]) };
            i += 1;
        }
        while i + 8 <= n {
            let mut w = [0u8; 8];
            w.copy_from_slice(&data[i..i + 8]);
            // SAFETY: 8 bytes inside the checked range, 8-byte aligned.
            unsafe {
                dst.wrapping_add(i)
                    .cast::<u64>()
                    .write_volatile(u64::from_ne_bytes(w))
            };
            i += 8;
        }
        while i < n {
            // SAFETY: `i < n`, inside the checked range.
            unsafe { dst.wrapping_add(i).write_volatile(data[i]) };
            i += 1;
        }
        true
    }

    /// Copies `len` bytes from `src_off` of this view to `dst_off` of `dst`
    /// in one pass: volatile bytes up to an 8-byte aligned destination,
    /// then volatile 8-byte words, then bytes. Both addresses must agree
    /// modulo 8 and the two ranges must not overlap (the caller checks);
    /// a bad range copies nothing and returns false.
    fn copy_to(&self, src_off: usize, dst: &HostView, dst_off: usize, len: usize) -> bool {
        if !self.check(src_off, len) || !dst.check(dst_off, len) {
            return false;
        }
        // In range (checked above).
        let s = self.ptr.as_ptr().wrapping_add(src_off);
        let d = dst.ptr.as_ptr().wrapping_add(dst_off);
        if (s as usize ^ d as usize) % 8 != 0 {
            return false;
        }
        let mut i = 0;
        while i < len && (d as usize + i) % 8 != 0 {
            // SAFETY: `i < len`, inside the checked source range.
            let b = unsafe { s.wrapping_add(i).read_volatile() };
            // SAFETY: inside the checked destination range.
            unsafe { d.wrapping_add(i).write_volatile(b) };
            i += 1;
        }
        while i + 8 <= len {
            // SAFETY: 8 bytes inside both checked ranges, both 8-byte
            // aligned (same residue, destination aligned above).
            let w = unsafe { s.wrapping_add(i).cast::<u64>().read_volatile() };
            // SAFETY: as above.
            unsafe { d.wrapping_add(i).cast::<u64>().write_volatile(w) };
            i += 8;
        }
        while i < len {
            // SAFETY: `i < len`, inside the checked source range.
            let b = unsafe { s.wrapping_add(i).read_volatile() };
            // SAFETY: inside the checked destination range.
            unsafe { d.wrapping_add(i).write_volatile(b) };
            i += 1;
        }
        true
    }

    /// The 32-bit atomic at `offset` (in range and 4-byte aligned: checked).
    pub(crate) fn atomic_u32_at(&self, offset: usize) -> Option<&AtomicU32> {
        if !self.check(offset, 4) || (self.ptr.as_ptr() as usize + offset) % 4 != 0 {
            return None;
        }
        // SAFETY: in range and aligned (checked); the memory is shared and
        // only ever accessed atomically or volatilely, and lives as long as `self`.
        Some(unsafe { AtomicU32::from_ptr(self.ptr.as_ptr().wrapping_add(offset).cast()) })
    }

    /// The 64-bit atomic at `offset` (in range and 8-byte aligned: checked).
    pub(crate) fn atomic_u64_at(&self, offset: usize) -> Option<&AtomicU64> {
        if !self.check(offset, 8) || (self.ptr.as_ptr() as usize + offset) % 8 != 0 {
            return None;
        }
        // SAFETY: as for `atomic_u32`, with 8 bytes.
        Some(unsafe { AtomicU64::from_ptr(self.ptr.as_ptr().wrapping_add(offset).cast()) })
    }
}

impl Drop for HostView {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: `ptr`/`len` is our own mmap; the last `Arc` is gone, so
            // no access can be running.
            let r = unsafe { rustix::mm::munmap(self.ptr.as_ptr().cast(), self.len) };
            // munmap of a whole mapping we own fails only when the kernel
            // cannot split VMAs; nothing else can be done in drop.
            let _ = r;
        }
    }
}

/// One range of a GPU's VA map: `[start, end)` backed by `view` from
/// `view_offset`.
#[derive(Debug, Clone)]
pub(crate) struct VaRange {
    pub(crate) end: u64,
    pub(crate) view: Arc<HostView>,
    pub(crate) view_offset: usize,
    pub(crate) writable: bool,
}

/// A GPU's page table, at byte granularity: start address -> range.
#[derive(Debug, Default)]
pub(crate) struct VaMap {
    ranges: BTreeMap<u64, VaRange>,
    /// Bumped by every change, read without the lock by [`Pinned::is_current`].
    generation: Arc<AtomicU64>,
}

impl VaMap {
    /// Adds `[start, start + len)`; refuses an overlap (returns false).
    pub(crate) fn insert(&mut self, start: u64, range: VaRange) -> bool {
        if range.end <= start {
            return false;
        }
        if let Some((_, prev)) = self.ranges.range(..range.end).next_back() {
            if prev.end > start {
                return false;
            }
        }
        self.ranges.insert(start, range);
        self.generation.fetch_add(1, Ordering::Release);
        true
    }

    /// Removes the range that starts at `start`.
    pub(crate) fn remove(&mut self, start: u64) -> Option<VaRange> {
        let r = self.ranges.remove(&start);
        if r.is_some() {
            self.generation.fetch_add(1, Ordering::Release);
        }
        r
    }

    /// The range holding `va`, with its start.
    fn find(&self, va: u64) -> Option<(u64, &VaRange)> {
        let (start, r) = self.ranges.range(..=va).next_back()?;
        (va < r.end).then_some((*start, r))
    }
}

/// One GPU's view of the process's memory: what `MAP_MEMORY_TO_GPU` made
/// visible to it. Cheap to clone (a shared handle on the live map); the map
/// changes under it as the client maps and unmaps.
#[derive(Clone)]
pub struct GpuMemory {
    map: Arc<RwLock<VaMap>>,
    /// The map's change counter (the same `Arc` as `VaMap::generation`).
    generation: Arc<AtomicU64>,
    /// What the GPU does on a not-present fault it may recover from
    /// (XNACK replay), shared by every clone.
    fault_hook: Arc<RwLock<Option<FaultHook>>>,
}

/// Called with the faulting address of a not-present access; true when the
/// device mapped it, and the access is tried once more (XNACK's retry).
pub(crate) type FaultHook = Arc<dyn Fn(u64) -> bool + Send + Sync>;

impl core::fmt::Debug for GpuMemory {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GpuMemory")
            .field("map", &self.map)
            .finish_non_exhaustive()
    }
}

impl Default for GpuMemory {
    fn default() -> Self {
        let map = VaMap::default();
        let generation = Arc::clone(&map.generation);
        Self {
            map: Arc::new(RwLock::new(map)),
            generation,
            fault_hook: Arc::default(),
        }
    }
}

/// `count` values of `T` borrowed in place from a GPU's memory beyond one
/// access (the CP's cached translation of a queue's ring and pointers).
/// It holds the backing view, so the bytes stay alive even if the client
/// unmaps them; [`Pinned::is_current`] says whether the VA map has changed
/// since, after which the holder must translate again.
#[derive(Debug)]
pub(crate) struct Pinned<T> {
    view: Arc<HostView>,
    ptr: NonNull<T>,
    count: usize,
    generation: u64,
    map_generation: Arc<AtomicU64>,
}

// SAFETY: `T: SharedAtomic` is `Sync` and made of atomics only; the pointer
// is into `view`, which is `Send + Sync` (a shared mapping).
unsafe impl<T: SharedAtomic> Send for Pinned<T> {}
// SAFETY: as above: only shared references to atomics are handed out.
unsafe impl<T: SharedAtomic> Sync for Pinned<T> {}

impl<T: SharedAtomic> Pinned<T> {
    /// The values, in place.
    pub(crate) fn get(&self) -> &[T] {
        let _ = &self.view;
        // SAFETY: checked at creation as in `with_atomics`: `count` aligned
        // values inside `view`, which this struct keeps alive; `T` is made
        // of atomics only, so shared references to shared bytes are sound.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.count) }
    }

    /// No mapping was added or removed since the translation.
    pub(crate) fn is_current(&self) -> bool {
        self.map_generation.load(Ordering::Acquire) == self.generation
    }
}

/// The piece of one access that falls in one range.
struct Piece {
    view: Arc<HostView>,
    offset: usize,
    len: usize,
}

impl GpuMemory {
    /// An empty address space (every access faults with `NotPresent`).
    pub fn new() -> Self {
        Self::default()
    }

    pub(crate) fn map(&self) -> &Arc<RwLock<VaMap>> {
        &self.map
    }

    /// Whether `[va, va + len)` is entirely mapped (for checks that do not
    /// access, such as CREATE_QUEUE's).
    pub fn is_mapped(&self, va: u64, len: u64) -> bool {
        let Some(end) = va.checked_add(len) else {
            return false;
        };
        let map = self.map.read().unwrap_or_else(|e| e.into_inner());
        let mut at = va;
        while at < end {
            match map.find(at) {
                Some((_, r)) => at = r.end,
                None => return false,
            }
        }
        true
    }

    /// Installs (or removes) the recoverable-fault hook.
    pub(crate) fn set_fault_hook(&self, hook: Option<FaultHook>) {
        *self.fault_hook.write().unwrap_or_else(|e| e.into_inner()) = hook;
    }

    /// Asks the hook (called with no lock of the map held) to map `va`.
    fn recover(&self, va: u64) -> bool {
        let hook = self
            .fault_hook
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        hook.is_some_and(|h| h(va))
    }

    /// The piece of `[va, va + len)` in the range holding `va`; a
    /// not-present fault the hook recovers from is tried once more.
    fn piece(&self, va: u64, len: u64, access: Access) -> Result<Piece, MemoryFault> {
        match self.piece_once(va, len, access) {
            Err(f) if f.reason == FaultReason::NotPresent && self.recover(va) => {
                self.piece_once(va, len, access)
            }
            r => r,
        }
    }

    fn piece_once(&self, va: u64, len: u64, access: Access) -> Result<Piece, MemoryFault> {
        let fault = |reason| MemoryFault {
            address: va,
            access,
            reason,
        };
        let map = self.map.read().unwrap_or_else(|e| e.into_inner());
        let (start, r) = map.find(va).ok_or(fault(FaultReason::NotPresent))?;
        if access == Access::Write && !r.writable {
            return Err(fault(FaultReason::ReadOnly));
        }
        let in_range = (r.end - va).min(len);
        let offset = usize::try_from(va - start)
            .ok()
            .and_then(|o| o.checked_add(r.view_offset))
            .ok_or(fault(FaultReason::NotPresent))?;
        Ok(Piece {
            view: Arc::clone(&r.view),
            offset,
            len: in_range as usize,
        })
    }

    /// Checks that all of `[va, va + len)` can be accessed as `access`
    /// (before a multi-piece access, so that a fault anywhere leaves memory
    /// untouched); the error names the first faulting address.
    pub fn check(&self, va: u64, len: u64, access: Access) -> Result<(), MemoryFault> {
        va.checked_add(len).ok_or(MemoryFault {
            address: va,
            access,
            reason: FaultReason::AddressOverflow,
        })?;
        let mut at = va;
        let mut left = len;
        while left > 0 {
            let p = self.piece(at, left, access)?;
            at += p.len as u64;
            left -= p.len as u64;
        }
        Ok(())
    }

    fn atomic_piece(&self, va: u64, size: u64, access: Access) -> Result<Piece, MemoryFault> {
        if va % size != 0 {
            return Err(MemoryFault {
                address: va,
                access,
                reason: FaultReason::Misaligned,
            });
        }
        let p = self.piece(va, size, access)?;
        if p.len as u64 != size {
            // Straddles the end of a range: the next byte is the fault.
            return Err(MemoryFault {
                address: va + p.len as u64,
                access,
                reason: FaultReason::NotPresent,
            });
        }
        Ok(p)
    }

    fn with_u32<R>(
        &self,
        va: u64,
        access: Access,
        f: impl FnOnce(&AtomicU32) -> R,
    ) -> Result<R, MemoryFault> {
        let p = self.atomic_piece(va, 4, access)?;
        let a = p.view.atomic_u32_at(p.offset).ok_or(MemoryFault {
            address: va,
            access,
            reason: FaultReason::Misaligned,
        })?;
        Ok(f(a))
    }

    fn with_u64<R>(
        &self,
        va: u64,
        access: Access,
        f: impl FnOnce(&AtomicU64) -> R,
    ) -> Result<R, MemoryFault> {
        let p = self.atomic_piece(va, 8, access)?;
        let a = p.view.atomic_u64_at(p.offset).ok_or(MemoryFault {
            address: va,
            access,
            reason: FaultReason::Misaligned,
        })?;
        Ok(f(a))
    }
}

/// One mapped range of a GPU's VA map, translated once for repeated
/// accesses while the map is unchanged (the shader core's per-worker
/// translation cache). It holds the backing view, so its bytes stay alive
/// even if the client unmaps them; [`RangeTranslation::is_current`] says
/// whether the VA map has changed since, after which it must not be used.
#[derive(Debug)]
pub(crate) struct RangeTranslation {
    start: u64,
    end: u64,
    writable: bool,
    view: Arc<HostView>,
    view_offset: usize,
    generation: u64,
}

impl RangeTranslation {
    /// Whether `[va, va + len)` lies in the range.
    #[inline]
    pub(crate) fn contains(&self, va: u64, len: usize) -> bool {
        va >= self.start && va.checked_add(len as u64).is_some_and(|e| e <= self.end)
    }

    /// The generation of the map the translation was made from.
    #[inline]
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// Volatile copy of `buf.len()` bytes at `va` (inside the range:
    /// [`RangeTranslation::contains`]); false if not.
    #[inline]
    pub(crate) fn read(&self, va: u64, buf: &mut [u8]) -> bool {
        self.contains(va, buf.len())
            && self
                .view
                .read(self.view_offset + (va - self.start) as usize, buf)
    }

    /// Whether `other` holds the same backing view (keeping either keeps
    /// the other's memory alive).
    #[inline]
    pub(crate) fn same_view(&self, other: &RangeTranslation) -> bool {
        Arc::ptr_eq(&self.view, &other.view)
    }

    /// The range's bounds and host address as plain data, for a cache's
    /// search ([`Span`]); valid while this translation lives.
    #[inline]
    pub(crate) fn span(&self) -> Span {
        Span {
            start: self.start,
            end: self.end,
            // In the view: the whole range lies in it (checked when
            // translated).
            host: self.view.ptr.as_ptr().wrapping_add(self.view_offset),
            writable: self.writable,
        }
    }

    /// Volatile copy of `data` to `va` (inside a writable range); false if
    /// not.
    #[inline]
    pub(crate) fn write(&self, va: u64, data: &[u8]) -> bool {
        self.writable
            && self.contains(va, data.len())
            && self
                .view
                .write(self.view_offset + (va - self.start) as usize, data)
    }
}

/// A translated range as plain data: its VAs `[start, end)` are the
/// host bytes from `host`. It borrows nothing: it is valid only while the
/// [`RangeTranslation`] it came from (which holds the backing view) lives,
/// which its user guarantees (the shader core's translation cache keeps
/// every translation it handed spans of until it is borrowed mutably).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Span {
    start: u64,
    end: u64,
    host: *mut u8,
    writable: bool,
}

impl Span {
    /// A span that holds nothing.
    pub(crate) const EMPTY: Span = Span {
        start: 1,
        end: 0,
        host: std::ptr::null_mut(),
        writable: false,
    };

    /// Whether `[va, va + len)` lies in the span (and it is writable if
    /// `write`).
    #[inline(always)]
    pub(crate) fn holds(&self, va: u64, len: u64, write: bool) -> bool {
        va >= self.start && va <= self.end && len <= self.end - va && (self.writable || !write)
    }

    /// The `len / size_of::<T>()` atomics at `va` (aligned for `T`, inside
    /// the span) in place.
    ///
    /// # Safety
    ///
    /// The translation the span came from lives for `'a`.
    #[inline(always)]
    pub(crate) unsafe fn atomics<'a, T: SharedAtomic>(&self, va: u64, len: u64) -> Option<&'a [T]> {
        let size = std::mem::size_of::<T>() as u64;
        if va % size != 0 || !self.holds(va, len, false) {
            return None;
        }
        let ptr = self.host.wrapping_add((va - self.start) as usize);
        if ptr as usize % std::mem::align_of::<T>() != 0 {
            return None;
        }
        // SAFETY: `len / size` values of `T` inside the span (checked),
        // which lies in the live view of its translation (alive for `'a`:
        // the caller's contract); aligned (checked); `T` is made only of
        // atomics (`SharedAtomic`) and the memory is shared and only ever
        // accessed atomically or volatilely.
        Some(unsafe { std::slice::from_raw_parts(ptr.cast::<T>(), (len / size) as usize) })
    }
}

impl GpuMemory {
    /// The VA map's change counter now (compare with
    /// [`RangeTranslation::generation`]).
    #[inline]
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The mapped range holding `va`, translated (None if `va` is not
    /// mapped, after the fault hook had its chance).
    pub(crate) fn translate_range(&self, va: u64) -> Option<RangeTranslation> {
        self.translate_range_once(va)
            .or_else(|| self.recover(va).then(|| self.translate_range_once(va))?)
    }

    fn translate_range_once(&self, va: u64) -> Option<RangeTranslation> {
        // Read the generation first: a change after it makes the translation stale.
        let generation = self.generation.load(Ordering::Acquire);
        let map = self.map.read().unwrap_or_else(|e| e.into_inner());
        let (start, r) = map.find(va)?;
        // The whole range must lie in its view.
        let len = usize::try_from(r.end - start).ok()?;
        if !r.view.check(r.view_offset, len) {
            return None;
        }
        Some(RangeTranslation {
            start,
            end: r.end,
            writable: r.writable,
            view: Arc::clone(&r.view),
            view_offset: r.view_offset,
            generation,
        })
    }
}

/// Types made only of atomics, which may be borrowed in place from shared
/// memory (the client and other engines access the same bytes only
/// atomically too).
///
/// # Safety
///
/// Implementation safety: every byte of `Self` belongs to an atomic, every
/// bit pattern is a valid value, and `Self` has no drop glue.
pub unsafe trait SharedAtomic: Sync {}

// SAFETY: an atomic integer: all bit patterns valid, no drop.
unsafe impl SharedAtomic for AtomicU32 {}
// SAFETY: as above.
unsafe impl SharedAtomic for AtomicU64 {}
// SAFETY: a packet slot is one AtomicU32, one AtomicU32 and seven AtomicU64 (aql's layout asserts).
unsafe impl SharedAtomic for aql::queue::PacketSlot {}

impl GpuMemory {
    /// Translates `count` values of `T` at `va` once, for repeated use while
    /// [`Pinned::is_current`]; the same checks and faults as
    /// [`GpuMemory::with_atomics`].
    pub(crate) fn pin<T: SharedAtomic>(
        &self,
        va: u64,
        count: usize,
        access: Access,
    ) -> Result<Pinned<T>, MemoryFault> {
        // Read the generation first: a change after it makes the pin stale.
        let generation = self.generation.load(Ordering::Acquire);
        let (view, ptr) = self.translate::<T>(va, count, access)?;
        Ok(Pinned {
            view,
            ptr,
            count,
            generation,
            map_generation: Arc::clone(&self.generation),
        })
    }

    fn translate<T: SharedAtomic>(
        &self,
        va: u64,
        count: usize,
        access: Access,
    ) -> Result<(Arc<HostView>, NonNull<T>), MemoryFault> {
        let fault = |address, reason| MemoryFault {
            address,
            access,
            reason,
        };
        let size = count
            .checked_mul(std::mem::size_of::<T>())
            .ok_or(fault(va, FaultReason::AddressOverflow))?;
        if va % std::mem::align_of::<T>() as u64 != 0 {
            return Err(fault(va, FaultReason::Misaligned));
        }
        let p = self.piece(va, size as u64, access)?;
        if p.len != size {
            return Err(fault(va + p.len as u64, FaultReason::NotPresent));
        }
        if !p.view.check(p.offset, size) {
            return Err(fault(va, FaultReason::NotPresent));
        }
        let ptr = p.view.ptr.as_ptr().wrapping_add(p.offset);
        if ptr as usize % std::mem::align_of::<T>() != 0 {
            return Err(fault(va, FaultReason::Misaligned));
        }
        let ptr = NonNull::new(ptr.cast::<T>()).ok_or(fault(va, FaultReason::NotPresent))?;
        Ok((p.view, ptr))
    }

    /// Lends `count` values of `T` at `va` to `f`, in place. The range must
    /// lie in one mapped range (writable when `access` is `Write`) and be
    /// aligned for `T`. The borrow cannot outlive `f`, and the backing
    /// memory stays alive until it returns even if the client unmaps it.
    pub fn with_atomics<T: SharedAtomic, R>(
        &self,
        va: u64,
        count: usize,
        access: Access,
        f: impl FnOnce(&[T]) -> R,
    ) -> Result<R, MemoryFault> {
        let (view, ptr) = self.translate::<T>(va, count, access)?;
        // SAFETY: `count` values of `T` lie inside the live view (checked by
        // `translate`), aligned (checked); `T` is made of atomics only
        // (`SharedAtomic`), so a shared reference to bytes others access
        // atomically is sound; the view (`view`) outlives the call.
        let slice = unsafe { std::slice::from_raw_parts(ptr.as_ptr(), count) };
        let r = f(slice);
        drop(view);
        Ok(r)
    }
}

fn load_order(order: Ordering) -> Ordering {
    match order {
        Ordering::Release | Ordering::Relaxed => Ordering::Relaxed,
        Ordering::AcqRel | Ordering::Acquire => Ordering::Acquire,
        _ => Ordering::SeqCst,
    }
}

fn store_order(order: Ordering) -> Ordering {
    match order {
        Ordering::Acquire | Ordering::Relaxed => Ordering::Relaxed,
        Ordering::AcqRel | Ordering::Release => Ordering::Release,
        _ => Ordering::SeqCst,
    }
}

impl DeviceMemory for GpuMemory {
    /// One pass from view to view when the ranges do not overlap and agree
    /// modulo 8 (every piece pair); the bounce-buffer copy otherwise.
    fn copy(&self, dst: u64, src: u64, len: u64) -> Result<(), MemoryFault> {
        let overlap = dst < src.saturating_add(len) && src < dst.saturating_add(len);
        if len == 0 || overlap || (dst ^ src) % 8 != 0 {
            return bounce_copy(self, dst, src, len);
        }
        self.check(src, len, Access::Read)?;
        self.check(dst, len, Access::Write)?;
        let mut done = 0u64;
        while done < len {
            let at = src + done;
            let sp = self.piece(at, len - done, Access::Read)?;
            let dp = self.piece(dst + done, sp.len as u64, Access::Write)?;
            let n = dp.len;
            // Two VAs of one buffer: the pieces may overlap in the view.
            let aliased = Arc::ptr_eq(&sp.view, &dp.view)
                && sp.offset < dp.offset + n
                && dp.offset < sp.offset + n;
            let copied = !aliased && sp.view.copy_to(sp.offset, &dp.view, dp.offset, n);
            if !copied {
                bounce_copy(self, dst + done, at, n as u64)?;
            }
            done += n as u64;
        }
        Ok(())
    }

    fn read_bytes(&self, va: u64, buf: &mut [u8]) -> Result<(), MemoryFault> {
        let len = buf.len() as u64;
        self.check(va, len, Access::Read)?;
        let mut done = 0usize;
        while done < buf.len() {
            let at = va + done as u64;
            let p = self.piece(at, len - done as u64, Access::Read)?;
            if !p.view.read(p.offset, &mut buf[done..done + p.len]) {
                return Err(MemoryFault {
                    address: at,
                    access: Access::Read,
                    reason: FaultReason::NotPresent,
                });
            }
            done += p.len;
        }
        Ok(())
    }

    fn write_bytes(&self, va: u64, data: &[u8]) -> Result<(), MemoryFault> {
        let len = data.len() as u64;
        self.check(va, len, Access::Write)?;
        let mut done = 0usize;
        while done < data.len() {
            let at = va + done as u64;
            let p = self.piece(at, len - done as u64, Access::Write)?;
            if !p.view.write(p.offset, &data[done..done + p.len]) {
                return Err(MemoryFault {
                    address: at,
                    access: Access::Write,
                    reason: FaultReason::NotPresent,
                });
            }
            done += p.len;
        }
        Ok(())
    }

    fn load_u32(&self, va: u64, order: Ordering) -> Result<u32, MemoryFault> {
        self.with_u32(va, Access::Read, |a| a.load(load_order(order)))
    }

    fn load_u64(&self, va: u64, order: Ordering) -> Result<u64, MemoryFault> {
        self.with_u64(va, Access::Read, |a| a.load(load_order(order)))
    }

    fn store_u32(&self, va: u64, value: u32, order: Ordering) -> Result<(), MemoryFault> {
        self.with_u32(va, Access::Write, |a| a.store(value, store_order(order)))
    }

    fn store_u64(&self, va: u64, value: u64, order: Ordering) -> Result<(), MemoryFault> {
        self.with_u64(va, Access::Write, |a| a.store(value, store_order(order)))
    }

    fn atomic_u32(&self, va: u64, op: AtomicOp, operand: u32) -> Result<u32, MemoryFault> {
        self.with_u32(va, Access::Write, |a| match op {
            AtomicOp::Swap => a.swap(operand, Ordering::SeqCst),
            AtomicOp::Add => a.fetch_add(operand, Ordering::SeqCst),
            AtomicOp::Sub => a.fetch_sub(operand, Ordering::SeqCst),
            AtomicOp::And => a.fetch_and(operand, Ordering::SeqCst),
            AtomicOp::Or => a.fetch_or(operand, Ordering::SeqCst),
            AtomicOp::Xor => a.fetch_xor(operand, Ordering::SeqCst),
            AtomicOp::UMin => a.fetch_min(operand, Ordering::SeqCst),
            AtomicOp::UMax => a.fetch_max(operand, Ordering::SeqCst),
            _ => match a.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |old| {
                Some(op.apply_u32(old, operand))
            }) {
                Ok(old) | Err(old) => old,
            },
        })
    }

    fn atomic_u64(&self, va: u64, op: AtomicOp, operand: u64) -> Result<u64, MemoryFault> {
        self.with_u64(va, Access::Write, |a| match op {
            AtomicOp::Swap => a.swap(operand, Ordering::SeqCst),
            AtomicOp::Add => a.fetch_add(operand, Ordering::SeqCst),
            AtomicOp::Sub => a.fetch_sub(operand, Ordering::SeqCst),
            AtomicOp::And => a.fetch_and(operand, Ordering::SeqCst),
            AtomicOp::Or => a.fetch_or(operand, Ordering::SeqCst),
            AtomicOp::Xor => a.fetch_xor(operand, Ordering::SeqCst),
            AtomicOp::UMin => a.fetch_min(operand, Ordering::SeqCst),
            AtomicOp::UMax => a.fetch_max(operand, Ordering::SeqCst),
            _ => match a.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |old| {
                Some(op.apply_u64(old, operand))
            }) {
                Ok(old) | Err(old) => old,
            },
        })
    }

    fn compare_exchange_u32(&self, va: u64, expected: u32, new: u32) -> Result<u32, MemoryFault> {
        self.with_u32(va, Access::Write, |a| {
            match a.compare_exchange(expected, new, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(old) | Err(old) => old,
            }
        })
    }

    fn compare_exchange_u64(&self, va: u64, expected: u64, new: u64) -> Result<u64, MemoryFault> {
        self.with_u64(va, Access::Write, |a| {
            match a.compare_exchange(expected, new, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(old) | Err(old) => old,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memfd_view(len: usize) -> Arc<HostView> {
        let fd = rustix::fs::memfd_create("sim-test", rustix::fs::MemfdFlags::CLOEXEC).unwrap();
        rustix::fs::ftruncate(&fd, len as u64).unwrap();
        Arc::new(HostView::map_fd(std::os::fd::AsFd::as_fd(&fd), len).unwrap())
    }

    fn space() -> GpuMemory {
        let mem = GpuMemory::new();
        let mut map = mem.map().write().unwrap();
        assert!(map.insert(
            0x1000,
            VaRange {
                end: 0x3000,
                view: memfd_view(0x2000),
                view_offset: 0,
                writable: true,
            }
        ));
        // Adjacent second range, read-only.
        assert!(map.insert(
            0x3000,
            VaRange {
                end: 0x4000,
                view: memfd_view(0x1000),
                view_offset: 0,
                writable: false,
            }
        ));
        // Overlaps are refused.
        assert!(!map.insert(
            0x2fff,
            VaRange {
                end: 0x3001,
                view: memfd_view(0x1000),
                view_offset: 0,
                writable: true,
            }
        ));
        drop(map);
        mem
    }

    #[test]
    fn a_pin_sees_the_same_bytes_until_the_map_changes() {
        let mem = space();
        // The same checks as `with_atomics`.
        assert_eq!(
            mem.pin::<AtomicU64>(0x1004, 1, Access::Read)
                .unwrap_err()
                .reason,
            FaultReason::Misaligned
        );
        assert_eq!(
            mem.pin::<AtomicU64>(0x3000, 1, Access::Write)
                .unwrap_err()
                .reason,
            FaultReason::ReadOnly
        );
        let f = mem.pin::<AtomicU64>(0x2ff8, 2, Access::Read).unwrap_err();
        assert_eq!((f.address, f.reason), (0x3000, FaultReason::NotPresent));
        let pin = mem.pin::<AtomicU64>(0x1010, 2, Access::Write).unwrap();
        assert!(pin.is_current());
        pin.get()[1].store(7, Ordering::Release);
        assert_eq!(mem.load_u64(0x1018, Ordering::Acquire), Ok(7));
        mem.store_u64(0x1010, 9, Ordering::Release).unwrap();
        assert_eq!(pin.get()[0].load(Ordering::Acquire), 9);
        // A failed insert (overlap) changes nothing.
        let mut map = mem.map().write().unwrap();
        assert!(!map.insert(
            0x1000,
            VaRange {
                end: 0x2000,
                view: memfd_view(0x1000),
                view_offset: 0,
                writable: true,
            }
        ));
        drop(map);
        assert!(pin.is_current());
        // Any map or unmap makes it stale; the bytes stay readable.
        let removed = mem.map().write().unwrap().remove(0x1000);
        assert!(removed.is_some());
        assert!(!pin.is_current());
        assert_eq!(pin.get()[1].load(Ordering::Acquire), 7);
        assert!(mem.map().write().unwrap().remove(0x1000).is_none());
        assert_eq!(
            mem.pin::<AtomicU64>(0x1010, 1, Access::Read)
                .unwrap_err()
                .reason,
            FaultReason::NotPresent
        );
        let again = mem.pin::<AtomicU64>(0x3000, 1, Access::Read).unwrap();
        assert!(again.is_current());
        assert!(mem.map().write().unwrap().insert(
            0x8000,
            VaRange {
                end: 0x9000,
                view: memfd_view(0x1000),
                view_offset: 0,
                writable: true,
            },
        ));
        assert!(!again.is_current());
    }

    #[test]
    fn bytes_round_trip_and_faults_name_the_address() {
        let mem = space();
        let data: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        mem.write_bytes(0x1003, &data).unwrap();
        let mut back = vec![0u8; 1000];
        mem.read_bytes(0x1003, &mut back).unwrap();
        assert_eq!(back, data);
        // Across the two ranges: reading works, writing hits the read-only one.
        let mut two = [0u8; 16];
        mem.read_bytes(0x2ff8, &mut two).unwrap();
        assert_eq!(
            mem.write_bytes(0x2ff8, &two),
            Err(MemoryFault {
                address: 0x3000,
                access: Access::Write,
                reason: FaultReason::ReadOnly
            })
        );
        assert_eq!(
            mem.read_bytes(0x3ff0, &mut [0u8; 32]),
            Err(MemoryFault {
                address: 0x4000,
                access: Access::Read,
                reason: FaultReason::NotPresent
            })
        );
        assert_eq!(
            mem.read_bytes(u64::MAX - 3, &mut [0u8; 8])
                .unwrap_err()
                .reason,
            FaultReason::AddressOverflow
        );
        assert_eq!(
            mem.load_u32(0x0ffc, Ordering::Relaxed).unwrap_err().reason,
            FaultReason::NotPresent
        );
    }

    #[test]
    fn atomics_check_alignment_and_compute_like_the_isa() {
        let mem = space();
        assert_eq!(
            mem.load_u64(0x1004, Ordering::Acquire).unwrap_err().reason,
            FaultReason::Misaligned
        );
        mem.store_u64(0x1008, 5, Ordering::Release).unwrap();
        assert_eq!(mem.atomic_u64(0x1008, AtomicOp::Add, 3).unwrap(), 5);
        assert_eq!(mem.compare_exchange_u64(0x1008, 8, 1).unwrap(), 8);
        assert_eq!(mem.compare_exchange_u64(0x1008, 8, 2).unwrap(), 1);
        assert_eq!(mem.load_u64(0x1008, Ordering::Acquire).unwrap(), 1);
        mem.store_u32(0x1010, 7, Ordering::Relaxed).unwrap();
        assert_eq!(mem.atomic_u32(0x1010, AtomicOp::Inc, 7).unwrap(), 7);
        assert_eq!(mem.load_u32(0x1010, Ordering::Relaxed).unwrap(), 0);
        assert_eq!(mem.atomic_u32(0x1010, AtomicOp::Dec, 9).unwrap(), 0);
        assert_eq!(mem.load_u32(0x1010, Ordering::Relaxed).unwrap(), 9);
        assert_eq!(
            mem.atomic_u32(0x1010, AtomicOp::SMin, -1i32 as u32)
                .unwrap(),
            9
        );
        assert_eq!(mem.load_u32(0x1010, Ordering::Relaxed).unwrap(), u32::MAX);
        assert_eq!(
            mem.atomic_u32(0x3000, AtomicOp::Add, 1).unwrap_err().reason,
            FaultReason::ReadOnly
        );
    }

    #[test]
    fn copy_overlapping_and_fill() {
        let mem = space();
        let data: Vec<u8> = (0..100u8).collect();
        mem.write_bytes(0x1000, &data).unwrap();
        mem.copy(0x1010, 0x1000, 100).unwrap();
        let mut back = vec![0u8; 100];
        mem.read_bytes(0x1010, &mut back).unwrap();
        assert_eq!(back, data);
        mem.fill_u32(0x2000, 0xdead_beef, 6).unwrap();
        let mut f = [0u8; 8];
        mem.read_bytes(0x2000, &mut f).unwrap();
        assert_eq!(f, [0xef, 0xbe, 0xad, 0xde, 0xef, 0xbe, 0, 0]);
    }

    #[test]
    fn one_pass_copies_match_the_bounce_copy() {
        // Three writable ranges: 0x10000.. (two views back to back) and an
        // alias of the first view at 0x40000.
        let mem = GpuMemory::new();
        let a = memfd_view(0x3000);
        let b = memfd_view(0x2000);
        {
            let mut map = mem.map().write().unwrap();
            for (start, end, view) in [
                (0x10000, 0x13000, &a),
                (0x13000, 0x15000, &b),
                (0x40000, 0x43000, &a),
            ] {
                assert!(map.insert(
                    start,
                    VaRange {
                        end,
                        view: Arc::clone(view),
                        view_offset: 0,
                        writable: true,
                    }
                ));
            }
        }
        let pattern: Vec<u8> = (0..0x5000u32).map(|i| (i * 7 + i / 251) as u8).collect();
        let cases: [(u64, u64, u64); 6] = [
            // Across the two views, aligned and same residue mod 8.
            (0x12800, 0x10000, 0x2000),
            (0x10003, 0x12803, 0x17f9),
            // Different residue: the bounce path.
            (0x10001, 0x12804, 0x1000),
            // Overlapping (memmove).
            (0x10008, 0x10000, 0x1000),
            // Through the alias: the same bytes of one view, overlapping.
            (0x40010, 0x10000, 0x800),
            // Disjoint in the view through the alias.
            (0x41000, 0x10000, 0x800),
        ];
        for (dst, src, len) in cases {
            mem.write_bytes(0x10000, &pattern[..0x3000]).unwrap();
            mem.write_bytes(0x13000, &pattern[0x3000..]).unwrap();
            // Expected: the flat 0x10000..0x15000 space, memmove semantics,
            // with 0x40000.. the same bytes as 0x10000..
            let flat = |va: u64| if va >= 0x40000 { va - 0x30000 } else { va };
            let mut want = pattern.clone();
            let s = (flat(src) - 0x10000) as usize;
            let d = (flat(dst) - 0x10000) as usize;
            want.copy_within(s..s + len as usize, d);
            mem.copy(dst, src, len).unwrap();
            let mut got = vec![0u8; 0x5000];
            mem.read_bytes(0x10000, &mut got).unwrap();
            assert!(got == want, "copy {src:#x} -> {dst:#x} of {len:#x}");
        }
        // A fault anywhere leaves memory untouched.
        mem.write_bytes(0x10000, &pattern[..0x3000]).unwrap();
        let e = mem.copy(0x14800, 0x10000, 0x1000).unwrap_err();
        assert_eq!(e.address, 0x15000);
        let mut got = vec![0u8; 0x800];
        mem.read_bytes(0x14800, &mut got).unwrap();
        assert_eq!(got, pattern[0x4800..]);
    }
}
