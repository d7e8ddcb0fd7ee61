//! A fixed-capacity pool of signals for code without a heap.

use core::cell::UnsafeCell;
use core::ops::Deref;
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::signal::SignalStorage;

/// Every slot of a [`SignalPool`] is in use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PoolExhausted {
    /// The pool's capacity.
    pub capacity: usize,
}

impl core::fmt::Display for PoolExhausted {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "signal pool: all {} signals are in use", self.capacity)
    }
}

/// `N` signals in one block of memory (a `static` works: [`new`](Self::new)
/// is `const`); allocation claims a free slot with one compare-and-swap,
/// release returns it on drop. Lock-free, no allocator.
pub struct SignalPool<const N: usize> {
    slots: [UnsafeCell<SignalStorage>; N],
    in_use: [AtomicBool; N],
    next: AtomicUsize,
}

// SAFETY: a slot's `UnsafeCell` is written (reset) only by the thread whose
// compare-and-swap claimed it, before any shared reference to it exists;
// afterwards only shared references (whose contents are atomics) are
// handed out until the `PooledSignal` is dropped.
#[allow(unsafe_code)]
unsafe impl<const N: usize> Sync for SignalPool<N> {}

impl<const N: usize> SignalPool<N> {
    /// An empty pool.
    pub const fn new() -> Self {
        Self {
            slots: [const { UnsafeCell::new(SignalStorage::new(0)) }; N],
            in_use: [const { AtomicBool::new(false) }; N],
            next: AtomicUsize::new(0),
        }
    }

    /// The number of slots.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// The number of slots in use (a snapshot).
    pub fn in_use(&self) -> usize {
        self.in_use
            .iter()
            .filter(|u| u.load(Ordering::Relaxed))
            .count()
    }

    /// Claims a free slot and sets it up as a user signal holding
    /// `initial`, or says the pool is full.
    #[allow(unsafe_code)]
    pub fn allocate(&self, initial: i64) -> Result<PooledSignal<'_, N>, PoolExhausted> {
        let start = self.next.load(Ordering::Relaxed);
        for k in 0..N {
            let i = (start + k) % N;
            if self.in_use[i]
                .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
            {
                self.next.store((i + 1) % N, Ordering::Relaxed);
                // SAFETY: the compare-and-swap made this thread the slot's
                // only owner, and the previous owner's references ended when
                // its `PooledSignal` dropped (Release there, Acquire here).
                unsafe { (*self.slots[i].get()).reset(initial) };
                return Ok(PooledSignal {
                    pool: self,
                    index: i,
                });
            }
        }
        Err(PoolExhausted { capacity: N })
    }
}

impl<const N: usize> Default for SignalPool<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> core::fmt::Debug for SignalPool<N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SignalPool")
            .field("capacity", &N)
            .field("in_use", &self.in_use())
            .finish()
    }
}

/// A signal claimed from a [`SignalPool`]; dereferences to its
/// [`SignalStorage`] and returns the slot when dropped.
pub struct PooledSignal<'p, const N: usize> {
    pool: &'p SignalPool<N>,
    index: usize,
}

impl<const N: usize> PooledSignal<'_, N> {
    /// The slot index in the pool.
    pub fn index(&self) -> usize {
        self.index
    }
}

impl<const N: usize> Deref for PooledSignal<'_, N> {
    type Target = SignalStorage;
    #[allow(unsafe_code)]
    fn deref(&self) -> &SignalStorage {
        // SAFETY: this handle owns the slot; only shared references exist
        // while it lives (see the `Sync` impl).
        unsafe { &*self.pool.slots[self.index].get() }
    }
}

impl<const N: usize> Drop for PooledSignal<'_, N> {
    fn drop(&mut self) {
        self.pool.in_use[self.index].store(false, Ordering::Release);
    }
}

impl<const N: usize> core::fmt::Debug for PooledSignal<'_, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PooledSignal")
            .field("index", &self.index)
            .finish()
    }
}

impl core::error::Error for PoolExhausted {}
