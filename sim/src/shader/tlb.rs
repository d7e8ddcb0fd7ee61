//! A worker's translation cache: the last few mapped ranges its waves
//! touched, so that a lane's load or store is a bounds check and a
//! volatile copy (or a borrow of the range's dwords as atomics) instead of
//! a walk of the VA map under its lock.
//!
//! The cache is used only while the VA map's change counter equals the
//! one its entries were translated at (one atomic load per access); any
//! change to the map (a buffer mapped or unmapped) empties it. An access
//! the cache cannot serve (not mapped, read-only, crossing into another
//! range) goes to [`GpuMemory`], which gives the same result and the same
//! fault as without the cache.
//!
//! The search runs over plain [`Span`]s (bounds and host address); the
//! [`RangeTranslation`]s behind them, which hold the backing views, are
//! kept until the cache is borrowed mutably ([`Tlb::release`], between
//! work-groups), even when an entry is replaced: so a borrow of a range's
//! atomics handed out through `&self` never outlives its memory. A
//! replaced translation whose view another kept one holds is dropped at
//! once, so the kept ones number at most the views a work-group touched.

use std::cell::{Cell, RefCell};
use std::sync::atomic::AtomicU32;

use crate::memory::{DeviceMemory, GpuMemory, MemoryFault, RangeTranslation, SharedAtomic, Span};

/// Ranges kept (a kernel's buffers, its code and kernargs, scratch).
const ENTRIES: usize = 8;

/// Entries of the per-instruction hint table ([`Tlb::u32s`]).
const HINTS: usize = 64;

/// The hint slot of the instruction at `pc` (a multiplicative hash: the
/// memory instructions of a kernel sit a few dwords apart).
#[inline(always)]
fn hint_slot(pc: u64) -> usize {
    ((pc >> 2).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58) as usize % HINTS
}

/// The cache of one worker.
pub(crate) struct Tlb<'a> {
    memory: &'a GpuMemory,
    /// The entries' spans, searched on every access.
    spans: [Cell<Span>; ENTRIES],
    /// The translations behind `spans` (same index).
    translations: RefCell<[Option<RangeTranslation>; ENTRIES]>,
    /// Translations replaced or flushed while spans of them may still be
    /// borrowed: dropped by [`Tlb::release`].
    retired: RefCell<Vec<RangeTranslation>>,
    /// The VA map's change counter every entry was translated at.
    generation: Cell<u64>,
    /// The entry that served the last access, tried first.
    last: Cell<usize>,
    /// The entry that served the last access of the instruction whose
    /// address hashes to each slot, tried first (an instruction's accesses
    /// mostly stay in one range, and a kernel's instructions alternate
    /// between ranges).
    hints: [Cell<u8>; HINTS],
    /// The entry the next miss replaces.
    next: Cell<usize>,
}

impl<'a> Tlb<'a> {
    /// An empty cache over `memory`.
    pub fn new(memory: &'a GpuMemory) -> Self {
        Self {
            memory,
            spans: std::array::from_fn(|_| Cell::new(Span::EMPTY)),
            translations: RefCell::new(Default::default()),
            retired: RefCell::new(Vec::new()),
            generation: Cell::new(memory.generation()),
            last: Cell::new(0),
            hints: std::array::from_fn(|_| Cell::new(0)),
            next: Cell::new(0),
        }
    }

    /// Drops the translations replaced since the last call (no borrow of
    /// the cache is alive: it is borrowed mutably).
    pub fn release(&mut self) {
        self.retired.get_mut().clear();
    }

    /// The `len / 4` dwords at `va` (4-byte aligned, inside one mapped
    /// range, writable if `write`) in place, as atomics (relaxed loads and
    /// stores are plain ones); None if not. `pc` is the accessing
    /// instruction's address: the entry it used last is tried first.
    #[inline]
    pub fn u32s(&self, pc: u64, va: u64, len: u64, write: bool) -> Option<&[AtomicU32]> {
        self.atomics(pc, va, len, write)
    }

    #[inline(always)]
    #[allow(unsafe_code)]
    fn atomics<T: SharedAtomic>(&self, pc: u64, va: u64, len: u64, write: bool) -> Option<&[T]> {
        if self.memory.generation() != self.generation.get() {
            self.flush();
        }
        let hint = &self.hints[hint_slot(pc)];
        let mut span = self.spans[usize::from(hint.get()) % ENTRIES].get();
        if !span.holds(va, len, write) {
            let k = self.search(va, len, write)?;
            hint.set(k as u8);
            span = self.spans[k].get();
        }
        // SAFETY: the span's translation is in `translations` or
        // `retired`, which keep it until `release` borrows the cache
        // mutably: it outlives this shared borrow.
        unsafe { span.atomics(va, len) }
    }

    /// Copies `buf.len()` bytes at `va` into `buf` (as
    /// [`DeviceMemory::read_bytes`]).
    #[inline]
    pub fn read_bytes(&self, va: u64, buf: &mut [u8]) -> Result<(), MemoryFault> {
        if let Some(k) = self.entry(va, buf.len() as u64, false) {
            if let Some(t) = &self.translations.borrow()[k] {
                if t.read(va, buf) {
                    return Ok(());
                }
            }
        }
        self.memory.read_bytes(va, buf)
    }

    /// Copies `data` to `va` (as [`DeviceMemory::write_bytes`]).
    #[inline]
    pub fn write_bytes(&self, va: u64, data: &[u8]) -> Result<(), MemoryFault> {
        if let Some(k) = self.entry(va, data.len() as u64, true) {
            if let Some(t) = &self.translations.borrow()[k] {
                if t.write(va, data) {
                    return Ok(());
                }
            }
        }
        self.memory.write_bytes(va, data)
    }

    /// The index of the entry holding `[va, va + len)`: the last one used
    /// if it does, else a search, else a new translation.
    #[inline(always)]
    fn entry(&self, va: u64, len: u64, write: bool) -> Option<usize> {
        if self.memory.generation() != self.generation.get() {
            self.flush();
        }
        let last = self.last.get();
        if self.spans[last].get().holds(va, len, write) {
            return Some(last);
        }
        self.search(va, len, write)
    }

    fn search(&self, va: u64, len: u64, write: bool) -> Option<usize> {
        let k = match self
            .spans
            .iter()
            .position(|s| s.get().holds(va, len, write))
        {
            Some(k) => k,
            None => self.fill(va, len, write)?,
        };
        self.last.set(k);
        Some(k)
    }

    /// Empties the cache (the VA map changed): its translations are
    /// retired, and the cache takes the new generation.
    #[cold]
    fn flush(&self) {
        // Read the generation first: a change after it is seen next time.
        let g = self.memory.generation();
        let mut t = self.translations.borrow_mut();
        let mut retired = self.retired.borrow_mut();
        for (span, slot) in self.spans.iter().zip(t.iter_mut()) {
            span.set(Span::EMPTY);
            if let Some(old) = slot.take() {
                retire(&mut retired, old);
            }
        }
        self.generation.set(g);
    }

    /// Translates the range holding `va` into an entry; the entry's index,
    /// if `[va, va + len)` lies in that one range (writable if `write`).
    #[cold]
    fn fill(&self, va: u64, len: u64, write: bool) -> Option<usize> {
        let t = self.memory.translate_range(va)?;
        if t.generation() != self.generation.get() {
            // The map changed since the check: the next access flushes and
            // translates afresh.
            return None;
        }
        let span = t.span();
        if !span.holds(va, len, write) {
            return None;
        }
        let k = self.next.get();
        self.next.set((k + 1) % ENTRIES);
        let mut translations = self.translations.borrow_mut();
        if let Some(old) = translations[k].replace(t) {
            // Dropped at once if a kept translation holds its view.
            if !translations.iter().flatten().any(|t| t.same_view(&old)) {
                retire(&mut self.retired.borrow_mut(), old);
            }
        }
        self.spans[k].set(span);
        Some(k)
    }
}

/// Keeps `old` until the next [`Tlb::release`], unless a kept translation
/// already holds its view.
fn retire(retired: &mut Vec<RangeTranslation>, old: RangeTranslation) {
    if !retired.iter().any(|t| t.same_view(&old)) {
        retired.push(old);
    }
}
