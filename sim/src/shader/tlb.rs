//! A worker's translation cache: the last few mapped ranges its waves
//! touched, so that a lane's load or store is a bounds check and a
//! volatile copy instead of a walk of the VA map under its lock.
//!
//! An entry is used only while the VA map's change counter equals the one
//! it was translated at (one atomic load per access); any change to the
//! map (a buffer mapped or unmapped) empties the cache. An access the
//! cache cannot serve (not mapped, read-only, crossing into another range)
//! goes to [`GpuMemory`], which gives the same result and the same fault
//! as without the cache.

use std::cell::{Cell, Ref, RefCell};

use crate::memory::{DeviceMemory, GpuMemory, MemoryFault, RangeTranslation};

/// Ranges kept (a kernel's buffers, its code and kernargs, scratch).
const ENTRIES: usize = 8;

/// The cache of one worker.
pub(crate) struct Tlb<'a> {
    memory: &'a GpuMemory,
    entries: RefCell<[Option<RangeTranslation>; ENTRIES]>,
    /// The entry the next miss replaces.
    next: Cell<usize>,
}

impl<'a> Tlb<'a> {
    /// An empty cache over `memory`.
    pub fn new(memory: &'a GpuMemory) -> Self {
        Self {
            memory,
            entries: RefCell::new(Default::default()),
            next: Cell::new(0),
        }
    }

    /// Copies `buf.len()` bytes at `va` into `buf` (as
    /// [`DeviceMemory::read_bytes`]).
    #[inline]
    pub fn read_bytes(&self, va: u64, buf: &mut [u8]) -> Result<(), MemoryFault> {
        let g = self.memory.generation();
        {
            let e = self.entries.borrow();
            for t in e.iter().flatten() {
                if t.generation() == g && t.read(va, buf) {
                    return Ok(());
                }
            }
        }
        match self.fill(va, buf.len(), g) {
            Some(k)
                if self.entries.borrow()[k]
                    .as_ref()
                    .is_some_and(|t| t.read(va, buf)) =>
            {
                Ok(())
            }
            _ => self.memory.read_bytes(va, buf),
        }
    }

    /// Copies `data` to `va` (as [`DeviceMemory::write_bytes`]).
    #[inline]
    pub fn write_bytes(&self, va: u64, data: &[u8]) -> Result<(), MemoryFault> {
        let g = self.memory.generation();
        {
            let e = self.entries.borrow();
            for t in e.iter().flatten() {
                if t.generation() == g && t.write(va, data) {
                    return Ok(());
                }
            }
        }
        match self.fill(va, data.len(), g) {
            Some(k)
                if self.entries.borrow()[k]
                    .as_ref()
                    .is_some_and(|t| t.write(va, data)) =>
            {
                Ok(())
            }
            _ => self.memory.write_bytes(va, data),
        }
    }

    /// The translation of the one mapped range holding all of
    /// `[va, va + len)` (writable if `write`), if there is one.
    #[inline]
    pub fn range(&self, va: u64, len: u64, write: bool) -> Option<Ref<'_, RangeTranslation>> {
        let len = usize::try_from(len).ok()?;
        let g = self.memory.generation();
        let hit = |e: &[Option<RangeTranslation>; ENTRIES]| {
            e.iter().position(|t| {
                t.as_ref().is_some_and(|t| {
                    t.generation() == g && t.contains(va, len) && (!write || t.writable())
                })
            })
        };
        let found = hit(&self.entries.borrow());
        let k = match found {
            Some(k) => k,
            None => self.fill(va, len, g)?,
        };
        let r = Ref::filter_map(self.entries.borrow(), |e| e[k].as_ref()).ok()?;
        (!write || r.writable()).then_some(r)
    }

    /// Translates the range holding `va` into an entry (emptying the cache
    /// first if the map changed); the entry's index, if `va..va + len` lies
    /// in one mapped range.
    #[cold]
    fn fill(&self, va: u64, len: usize, g: u64) -> Option<usize> {
        let mut e = self.entries.borrow_mut();
        if e.iter().flatten().any(|t| t.generation() != g) {
            *e = Default::default();
        }
        let t = self.memory.translate_range(va)?;
        if !t.contains(va, len) {
            return None;
        }
        let k = self.next.get();
        self.next.set((k + 1) % ENTRIES);
        e[k] = Some(t);
        Some(k)
    }
}
