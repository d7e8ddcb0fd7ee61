//! The atomic types the queue ring is built on: `core`'s, `loom`'s when the
//! crate is compiled with `RUSTFLAGS="--cfg loom"` for the model tests, and
//! on targets without native 64-bit atomics (`thumbv7em-none-eabihf`,
//! `riscv32imac-unknown-none-elf`) with the `portable-atomic` feature,
//! portable-atomic's `AtomicU64`.
//!
//! That `AtomicU64` is a lock-based fallback: its value is two 32-bit
//! words, written low word first under a seqlock kept in this CPU's memory.
//! The lock makes it atomic among the CPUs that run this code; a GPU or a
//! host sharing the memory does not take it. So the 64-bit queue indices
//! are read and written through [`load_index`] and [`store_index`], which
//! keep what another bus master sees, and what we see of its writes, from
//! tearing into a value ahead of the truth (ARCHITECTURE.md, "Targets
//! without 64-bit atomics").
#![allow(unsafe_code)]

#[cfg(loom)]
pub use loom::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering, fence};

#[cfg(not(loom))]
pub use core::sync::atomic::{AtomicBool, AtomicU32, Ordering, fence};

#[cfg(all(not(loom), target_has_atomic = "64"))]
pub use core::sync::atomic::AtomicU64;

#[cfg(all(not(loom), not(target_has_atomic = "64"), feature = "portable-atomic"))]
pub use portable_atomic::AtomicU64;

#[cfg(all(
    not(loom),
    not(target_has_atomic = "64"),
    not(feature = "portable-atomic")
))]
compile_error!(
    "this target has no native 64-bit atomics: enable aql's `portable-atomic` feature (see ARCHITECTURE.md, \"Targets without 64-bit atomics\")"
);

/// Whether [`AtomicU64`] is the lock-based fallback, atomic only among the
/// CPUs that run this code and not with respect to another bus master.
pub const INDEX_ATOMICS_ARE_EMULATED: bool = cfg!(all(not(loom), not(target_has_atomic = "64")));

/// A hint inside a busy-wait loop (under loom, a yield to the model's scheduler).
#[inline]
pub fn spin_loop() {
    #[cfg(loom)]
    loom::thread::yield_now();
    #[cfg(not(loom))]
    core::hint::spin_loop();
}

/// Reads a 64-bit value kept as two 32-bit words (`lo` at the lower
/// address on a little-endian machine) that only grows, and that another
/// agent may be writing: high word, low word, high word again, until both
/// high words agree.
///
/// The high word of a growing value never decreases, so if it read the
/// same before and after the low word, it held that value when the low
/// word was read: the result is what memory held at that moment, never a
/// mix of an old high and a new low word (or the reverse) up to 2^32 ahead
/// of the truth. That needs the three loads in program order (`order`
/// `Acquire` gives it) and a writer whose words become visible low before
/// high: a 64-bit single-copy-atomic store (a GPU's, a 64-bit host's), or
/// [`store_index`]'s two release stores.
pub fn load_split_u64(lo: &AtomicU32, hi: &AtomicU32, order: Ordering) -> u64 {
    let mut high = hi.load(order);
    loop {
        let low = lo.load(order);
        let again = hi.load(order);
        if again == high {
            return u64::from(high) << 32 | u64::from(low);
        }
        high = again;
        spin_loop();
    }
}

/// Stores `value` as two 32-bit words, low then high, each with `order`
/// (release, so that a reader whose acquire load sees the high word also
/// sees the low word).
pub fn store_split_u64(lo: &AtomicU32, hi: &AtomicU32, value: u64, order: Ordering) {
    lo.store(value as u32, order);
    hi.store((value >> 32) as u32, order);
}

/// Loads a queue index (`write_dispatch_id`, `read_dispatch_id`) that
/// another agent may write: one 64-bit atomic load where 64-bit atomics are
/// native; where they are emulated, [`load_split_u64`] over its two 32-bit
/// words (with `Acquire` word loads, whatever `order` says), so a 64-bit
/// store of another bus master, which the emulation's lock does not stop,
/// cannot tear the value.
#[inline]
pub fn load_index(index: &AtomicU64, order: Ordering) -> u64 {
    #[cfg(all(not(loom), not(target_has_atomic = "64"), target_endian = "little"))]
    {
        let _ = order;
        let (lo, hi) = emulated::halves(index);
        load_split_u64(lo, hi, Ordering::Acquire)
    }
    #[cfg(not(all(not(loom), not(target_has_atomic = "64"), target_endian = "little")))]
    {
        index.load(order)
    }
}

/// Stores a queue index that has one writer (the packet processor's read
/// index; the write index of a single-producer queue): one 64-bit atomic
/// store where 64-bit atomics are native; where they are emulated,
/// [`store_split_u64`] with release stores (bypassing the emulation's lock,
/// which is why there must be one writer), so [`load_index`] readers never
/// see the high word before the low word. Another bus master reading in
/// between the two stores sees the low word new and the high word old:
/// the exact value, except when the index crosses a multiple of 2^32,
/// where it is up to 2^32 behind, never ahead.
#[inline]
pub fn store_index(index: &AtomicU64, value: u64, order: Ordering) {
    #[cfg(all(not(loom), not(target_has_atomic = "64"), target_endian = "little"))]
    {
        let _ = order;
        let (lo, hi) = emulated::halves(index);
        store_split_u64(lo, hi, value, Ordering::Release);
    }
    #[cfg(not(all(not(loom), not(target_has_atomic = "64"), target_endian = "little")))]
    {
        index.store(value, order);
    }
}

#[cfg(all(not(loom), not(target_has_atomic = "64"), target_endian = "little"))]
mod emulated {
    use super::{AtomicU32, AtomicU64};

    // portable-atomic's `AtomicU64` has the in-memory representation of a
    // `u64`, and without fast 64-bit atomics its fallback reads and writes
    // that `u64` as two `AtomicU32` "chunks" (`imp/fallback`,
    // `AtomicChunk = AtomicU32` when the pointer width is 32), so loading
    // the same words as `AtomicU32`s is an access of the same size to the
    // same atomic objects, not a mixed-size access.
    const _: () = assert!(core::mem::size_of::<AtomicU64>() == 8);
    const _: () = assert!(core::mem::align_of::<AtomicU64>() == 8);
    const _: () = assert!(usize::BITS == 32);

    /// The low and high 32-bit words of `index`.
    pub(super) fn halves(index: &AtomicU64) -> (&AtomicU32, &AtomicU32) {
        let lo = index.as_ptr().cast::<AtomicU32>();
        let hi = lo.wrapping_add(1);
        // SAFETY: `lo` points to the first 4 bytes of a live, 8-byte
        // aligned `AtomicU64` for as long as `index` is borrowed, which
        // every other user accesses atomically as `AtomicU32`s (see above).
        // Little-endian: that is the low word.
        let lo = unsafe { &*lo };
        // SAFETY: as above, for its last 4 bytes, the high word.
        let hi = unsafe { &*hi };
        (lo, hi)
    }
}
