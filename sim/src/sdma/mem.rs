//! The SDMA engine's view of device memory.
//!
//! The engine reaches GPU-virtual memory only through [`SdmaMemory`]: every
//! access is checked by the implementation and fails with a
//! [`MemoryFault`] (address, read or write, reason), never with a raw
//! pointer the engine could misuse (the model is rust-vmm `vm-memory`'s
//! `Bytes`). The device's own memory map implements it; [`FlatMemory`] is a
//! small implementation over host allocations for tests and benchmarks.
//!
//! Concurrency contract. Words that another agent reads or writes while a
//! packet runs (signal values, the fence and poll targets, the ring's read
//! and write pointers) go through the atomic methods: loads acquire, stores
//! release, read-modify-writes are sequentially consistent. Payload bytes
//! (copy and fill ranges, the ring's packets) go through the bulk methods,
//! which may move them in any order and size: HSA forbids touching the
//! buffers of a copy in flight, and a client that writes a packet before
//! publishing the write pointer (release) is seen whole. An implementation
//! shared between threads must keep racing bulk accesses defined behaviour
//! (volatile or atomic-free raw copies of shared mappings, as `vm-memory`'s
//! `VolatileSlice` does); [`FlatMemory`] is single-threaded (`!Sync`).
//!
//! Relation to the device's own memory: [`Access`], [`FaultReason`] and
//! [`MemoryFault`] are the device's (`sim::memory`), and the device's
//! [`GpuMemory`] implements `SdmaMemory` by adapting its [`DeviceMemory`]
//! (loads acquire, stores release, `copy(src, dst, len)` to its
//! `copy(dst, src, len)`, fills of 1, 2 or 4 byte patterns to `fill_u32`).

use core::fmt;

use crate::memory::{DeviceMemory, GpuMemory};
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

pub use crate::memory::{Access, FaultReason, MemoryFault};

/// Device memory as the SDMA engine sees it (GPU virtual addresses).
///
/// Bulk methods have `memmove` semantics and may fault part-way; the engine
/// calls [`SdmaMemory::check`] on every range first, so a packet that would
/// fault writes nothing.
pub trait SdmaMemory {
    /// Checks that `len` bytes from `va` can be accessed as `access`.
    fn check(&self, va: u64, len: u64, access: Access) -> Result<(), MemoryFault>;

    /// Reads `buf.len()` bytes from `va`.
    fn read_bytes(&self, va: u64, buf: &mut [u8]) -> Result<(), MemoryFault>;

    /// Writes `data` at `va`.
    fn write_bytes(&self, va: u64, data: &[u8]) -> Result<(), MemoryFault>;

    /// Atomically loads the dword at `va` (acquire); `va` is 4-aligned.
    fn load_u32(&self, va: u64) -> Result<u32, MemoryFault>;

    /// Atomically loads the quadword at `va` (acquire); `va` is 8-aligned.
    fn load_u64(&self, va: u64) -> Result<u64, MemoryFault>;

    /// Atomically stores the dword at `va` (release).
    fn store_u32(&self, va: u64, value: u32) -> Result<(), MemoryFault>;

    /// Atomically stores the quadword at `va` (release).
    fn store_u64(&self, va: u64, value: u64) -> Result<(), MemoryFault>;

    /// Atomic compare-and-swap of the dword at `va`: `Ok(Ok(previous))` if
    /// it held `current` and now holds `new`, `Ok(Err(actual))` otherwise.
    fn compare_exchange_u32(
        &self,
        va: u64,
        current: u32,
        new: u32,
    ) -> Result<Result<u32, u32>, MemoryFault>;

    /// Atomic compare-and-swap of the quadword at `va`, as
    /// [`SdmaMemory::compare_exchange_u32`].
    fn compare_exchange_u64(
        &self,
        va: u64,
        current: u64,
        new: u64,
    ) -> Result<Result<u64, u64>, MemoryFault>;

    /// Copies `len` bytes from `src` to `dst` as `memmove` does.
    ///
    /// The default moves 64 KiB at a time through a bounce buffer;
    /// implementations that can should override it with one bulk copy.
    fn copy(&self, src: u64, dst: u64, len: u64) -> Result<(), MemoryFault> {
        const CHUNK: u64 = 64 * 1024;
        let mut bounce = vec![0u8; CHUNK.min(len) as usize];
        let backwards = dst > src && dst - src < len;
        let mut done = 0u64;
        while done < len {
            let n = CHUNK.min(len - done);
            let off = if backwards { len - done - n } else { done };
            let buf = &mut bounce[..n as usize];
            self.read_bytes(src.wrapping_add(off), buf)?;
            self.write_bytes(dst.wrapping_add(off), buf)?;
            done += n;
        }
        Ok(())
    }

    /// Writes `count` copies of `pattern` (1, 2 or 4 bytes) from `dst`.
    ///
    /// The default writes 64 KiB of the repeated pattern at a time.
    fn fill(&self, dst: u64, pattern: &[u8], count: u64) -> Result<(), MemoryFault> {
        const CHUNK: usize = 64 * 1024;
        let total = count.saturating_mul(pattern.len() as u64);
        if total == 0 || pattern.is_empty() {
            return Ok(());
        }
        let chunk_len = (total.min(CHUNK as u64) as usize) / pattern.len() * pattern.len();
        let mut chunk = vec![0u8; chunk_len.max(pattern.len())];
        for (i, b) in chunk.iter_mut().enumerate() {
            *b = pattern[i % pattern.len()];
        }
        let mut done = 0u64;
        while done < total {
            let n = (chunk.len() as u64).min(total - done);
            self.write_bytes(dst.wrapping_add(done), &chunk[..n as usize])?;
            done += n;
        }
        Ok(())
    }
}

/// One mapping of a [`FlatMemory`].
struct Region {
    base: u64,
    len: u64,
    writable: bool,
    /// Start of the host allocation (8-byte aligned: it was a `[u64]`).
    host: *mut u8,
    /// Quadwords allocated, to rebuild the `Box<[u64]>` on drop.
    words: usize,
}

/// Device memory made of host allocations placed at chosen GPU virtual
/// addresses, for tests and benchmarks of the engine.
///
/// Single-threaded by construction (`!Send`, `!Sync`: it holds raw
/// pointers), so its bulk copies are plain `memmove`s with no data race.
/// Unmapped addresses and writes to read-only mappings fault.
pub struct FlatMemory {
    regions: Vec<Region>,
}

impl fmt::Debug for FlatMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        for r in &self.regions {
            list.entry(&format_args!(
                "{:#x}..{:#x} {}",
                r.base,
                r.base + r.len,
                if r.writable { "rw" } else { "ro" }
            ));
        }
        list.finish()
    }
}

impl Default for FlatMemory {
    fn default() -> Self {
        Self::new()
    }
}

#[allow(unsafe_code)]
impl FlatMemory {
    /// No mappings.
    pub fn new() -> Self {
        Self {
            regions: Vec::new(),
        }
    }

    /// Maps `len` zeroed bytes at `base`, writable or read-only.
    ///
    /// # Panics
    /// If the range wraps the address space or overlaps another mapping (a
    /// test set-up error, not device input).
    pub fn map(&mut self, base: u64, len: u64, writable: bool) -> &mut Self {
        let end = base
            .checked_add(len)
            .expect("mapping wraps the address space");
        assert!(
            self.regions
                .iter()
                .all(|r| end <= r.base || base >= r.base + r.len),
            "mapping {base:#x}..{end:#x} overlaps another"
        );
        let words = usize::try_from(len.div_ceil(8)).expect("mapping too large for the host");
        // A `[u64]` so the host address is 8-aligned, like the GPU pages.
        let host = Box::into_raw(vec![0u64; words].into_boxed_slice()).cast::<u8>();
        self.regions.push(Region {
            base,
            len,
            writable,
            host,
            words,
        });
        self
    }

    /// The host pointer for `len` bytes at `va`, if one mapping covers them
    /// and allows `access`.
    fn host(&self, va: u64, len: u64, access: Access) -> Result<*mut u8, MemoryFault> {
        let fault = |address, reason| MemoryFault {
            address,
            access,
            reason,
        };
        let end = va
            .checked_add(len)
            .ok_or(fault(va, FaultReason::AddressOverflow))?;
        let Some(r) = self
            .regions
            .iter()
            .find(|r| va >= r.base && va < r.base + r.len.max(1))
        else {
            return Err(fault(va, FaultReason::NotPresent));
        };
        if end > r.base + r.len {
            return Err(fault(r.base + r.len, FaultReason::NotPresent));
        }
        if access == Access::Write && !r.writable {
            return Err(fault(va, FaultReason::ReadOnly));
        }
        // In bounds of the allocation: `va - r.base < r.len <= 8 * words`.
        let off = (va - r.base) as usize;
        // SAFETY: `off` is within the allocation of `r.len` bytes (checked
        // above), so the offset pointer stays inside it.
        Ok(unsafe { r.host.add(off) })
    }

    fn aligned(va: u64, size: u64, access: Access) -> Result<(), MemoryFault> {
        if va % size == 0 {
            Ok(())
        } else {
            Err(MemoryFault {
                address: va,
                access,
                reason: FaultReason::Misaligned,
            })
        }
    }

    fn atomic_u32(&self, va: u64, access: Access) -> Result<&AtomicU32, MemoryFault> {
        Self::aligned(va, 4, access)?;
        let p = self.host(va, 4, access)?;
        Self::aligned(p as u64, 4, access).map_err(|f| MemoryFault { address: va, ..f })?;
        // SAFETY: `p` is 4 bytes inside a live allocation owned by `self`
        // (checked by `host`), 4-aligned (checked); the reference lives no
        // longer than `&self`; `FlatMemory` is `!Sync`, so no other thread
        // accesses the bytes.
        Ok(unsafe { AtomicU32::from_ptr(p.cast()) })
    }

    fn atomic_u64(&self, va: u64, access: Access) -> Result<&AtomicU64, MemoryFault> {
        Self::aligned(va, 8, access)?;
        let p = self.host(va, 8, access)?;
        Self::aligned(p as u64, 8, access).map_err(|f| MemoryFault { address: va, ..f })?;
        // SAFETY: `p` is 8 bytes inside a live allocation owned by `self`,
        // 8-aligned (checked); the reference lives no longer than `&self`;
        // `FlatMemory` is `!Sync`, so no other thread accesses the bytes.
        Ok(unsafe { AtomicU64::from_ptr(p.cast()) })
    }
}

#[allow(unsafe_code)]
impl Drop for FlatMemory {
    fn drop(&mut self) {
        for r in self.regions.drain(..) {
            let slice = core::ptr::slice_from_raw_parts_mut(r.host.cast::<u64>(), r.words);
            // SAFETY: `host` and `words` came from `Box::into_raw` of a
            // `Box<[u64]>` of `words` elements in `map`, freed only here.
            drop(unsafe { Box::from_raw(slice) });
        }
    }
}

#[allow(unsafe_code)]
impl SdmaMemory for FlatMemory {
    fn check(&self, va: u64, len: u64, access: Access) -> Result<(), MemoryFault> {
        if len == 0 {
            return Ok(());
        }
        self.host(va, len, access).map(|_| ())
    }

    fn read_bytes(&self, va: u64, buf: &mut [u8]) -> Result<(), MemoryFault> {
        if buf.is_empty() {
            return Ok(());
        }
        let p = self.host(va, buf.len() as u64, Access::Read)?;
        // SAFETY: `host` checked that `buf.len()` bytes from `p` are inside a
        // live allocation; `buf` is a distinct Rust slice, so they do not
        // overlap; single-threaded (`!Sync`), so no concurrent writer.
        unsafe { core::ptr::copy_nonoverlapping(p, buf.as_mut_ptr(), buf.len()) };
        Ok(())
    }

    fn write_bytes(&self, va: u64, data: &[u8]) -> Result<(), MemoryFault> {
        if data.is_empty() {
            return Ok(());
        }
        let p = self.host(va, data.len() as u64, Access::Write)?;
        // SAFETY: as in `read_bytes`, with `data` as the source.
        unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len()) };
        Ok(())
    }

    fn load_u32(&self, va: u64) -> Result<u32, MemoryFault> {
        Ok(self.atomic_u32(va, Access::Read)?.load(Ordering::Acquire))
    }

    fn load_u64(&self, va: u64) -> Result<u64, MemoryFault> {
        Ok(self.atomic_u64(va, Access::Read)?.load(Ordering::Acquire))
    }

    fn store_u32(&self, va: u64, value: u32) -> Result<(), MemoryFault> {
        self.atomic_u32(va, Access::Write)?
            .store(value, Ordering::Release);
        Ok(())
    }

    fn store_u64(&self, va: u64, value: u64) -> Result<(), MemoryFault> {
        self.atomic_u64(va, Access::Write)?
            .store(value, Ordering::Release);
        Ok(())
    }

    fn compare_exchange_u32(
        &self,
        va: u64,
        current: u32,
        new: u32,
    ) -> Result<Result<u32, u32>, MemoryFault> {
        Ok(self.atomic_u32(va, Access::Write)?.compare_exchange(
            current,
            new,
            Ordering::SeqCst,
            Ordering::SeqCst,
        ))
    }

    fn compare_exchange_u64(
        &self,
        va: u64,
        current: u64,
        new: u64,
    ) -> Result<Result<u64, u64>, MemoryFault> {
        Ok(self.atomic_u64(va, Access::Write)?.compare_exchange(
            current,
            new,
            Ordering::SeqCst,
            Ordering::SeqCst,
        ))
    }

    fn copy(&self, src: u64, dst: u64, len: u64) -> Result<(), MemoryFault> {
        if len == 0 {
            return Ok(());
        }
        let s = self.host(src, len, Access::Read)?;
        let d = self.host(dst, len, Access::Write)?;
        // SAFETY: `host` checked both ranges lie inside live allocations
        // (`len` fits `usize`: it is at most a mapping's length, which was
        // allocated); `ptr::copy` allows overlap (memmove); single-threaded.
        unsafe { core::ptr::copy(s, d, len as usize) };
        Ok(())
    }
}

/// The device's memory map, as SDMA queues of the simulated GPU see it.
impl SdmaMemory for GpuMemory {
    fn check(&self, va: u64, len: u64, access: Access) -> Result<(), MemoryFault> {
        GpuMemory::check(self, va, len, access)
    }

    fn read_bytes(&self, va: u64, buf: &mut [u8]) -> Result<(), MemoryFault> {
        DeviceMemory::read_bytes(self, va, buf)
    }

    fn write_bytes(&self, va: u64, data: &[u8]) -> Result<(), MemoryFault> {
        DeviceMemory::write_bytes(self, va, data)
    }

    fn load_u32(&self, va: u64) -> Result<u32, MemoryFault> {
        DeviceMemory::load_u32(self, va, Ordering::Acquire)
    }

    fn load_u64(&self, va: u64) -> Result<u64, MemoryFault> {
        DeviceMemory::load_u64(self, va, Ordering::Acquire)
    }

    fn store_u32(&self, va: u64, value: u32) -> Result<(), MemoryFault> {
        DeviceMemory::store_u32(self, va, value, Ordering::Release)
    }

    fn store_u64(&self, va: u64, value: u64) -> Result<(), MemoryFault> {
        DeviceMemory::store_u64(self, va, value, Ordering::Release)
    }

    fn compare_exchange_u32(
        &self,
        va: u64,
        current: u32,
        new: u32,
    ) -> Result<Result<u32, u32>, MemoryFault> {
        let old = DeviceMemory::compare_exchange_u32(self, va, current, new)?;
        Ok(if old == current { Ok(old) } else { Err(old) })
    }

    fn compare_exchange_u64(
        &self,
        va: u64,
        current: u64,
        new: u64,
    ) -> Result<Result<u64, u64>, MemoryFault> {
        let old = DeviceMemory::compare_exchange_u64(self, va, current, new)?;
        Ok(if old == current { Ok(old) } else { Err(old) })
    }

    fn copy(&self, src: u64, dst: u64, len: u64) -> Result<(), MemoryFault> {
        DeviceMemory::copy(self, dst, src, len)
    }

    fn fill(&self, dst: u64, pattern: &[u8], count: u64) -> Result<(), MemoryFault> {
        // A 1- or 2-byte pattern repeated to a dword fills the same bytes.
        let word = match *pattern {
            [b] => u32::from_le_bytes([b; 4]),
            [a, b] => u32::from_le_bytes([a, b, a, b]),
            [a, b, c, d] => u32::from_le_bytes([a, b, c, d]),
            _ => {
                return Err(MemoryFault {
                    address: dst,
                    access: Access::Write,
                    reason: FaultReason::Misaligned,
                });
            }
        };
        let len = count.saturating_mul(pattern.len() as u64);
        DeviceMemory::fill_u32(self, dst, word, len)
    }
}
