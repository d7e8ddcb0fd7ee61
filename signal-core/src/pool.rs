//! A fixed-capacity pool of signals for code without a heap.
//!
//! A slot is never written through `&mut` once the pool exists: a reused
//! slot is re-initialised with atomic stores through `&`, so a reference to
//! a slot stays sound for the pool's whole life, whatever happens to the
//! signal it named. Each slot also counts its frees (its generation), so a
//! [`PoolHandle`] kept past the free of its signal is refused with
//! [`PoolHandleError::Stale`] instead of naming the slot's next signal. See
//! `ARCHITECTURE.md`, "Signals", for why the handle carries the generation
//! and the `hsa_signal_t` cannot.

use crate::sync::AtomicU64;
use core::ops::Deref;
use core::sync::atomic::{AtomicUsize, Ordering};

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

/// A pool signal named by its `hsa_signal_t` and the generation of its
/// slot when it was allocated: what [`SignalPool::get`] checks.
///
/// The `hsa_signal_t` alone cannot say which allocation of a slot it meant,
/// because it must stay the address of the `amd_signal_t` (a GPU follows
/// it); keep this pair on the host side instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PoolHandle {
    /// The `hsa_signal_t` handle (the address of the `amd_signal_t`).
    pub signal: u64,
    /// How many times the slot had been freed when this signal was
    /// allocated.
    pub generation: u64,
}

/// Why [`SignalPool::get`] or [`SignalPool::lookup`] refused a handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PoolHandleError {
    /// The handle is not the `hsa_signal_t` of a slot of this pool.
    NotInPool {
        /// The handle.
        signal: u64,
    },
    /// The slot holds no signal now.
    Free {
        /// The handle.
        signal: u64,
        /// The slot.
        index: usize,
    },
    /// The signal the handle named was freed; the slot is free or holds a
    /// later signal.
    Stale {
        /// The handle.
        signal: u64,
        /// The slot.
        index: usize,
        /// The generation the handle carries.
        generation: u64,
        /// The slot's generation now.
        current: u64,
    },
}

impl core::fmt::Display for PoolHandleError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::NotInPool { signal } => {
                write!(f, "hsa_signal_t {signal:#x} is no signal of this pool")
            }
            Self::Free { signal, index } => {
                write!(
                    f,
                    "hsa_signal_t {signal:#x} (pool slot {index}) is not allocated"
                )
            }
            Self::Stale {
                signal,
                index,
                generation,
                current,
            } => write!(
                f,
                "hsa_signal_t {signal:#x} (pool slot {index}) of generation {generation} was \
                 freed; the slot is at generation {current}"
            ),
        }
    }
}

impl core::error::Error for PoolHandleError {}

/// Bit 0 of a slot's state word: allocated. The bits above: the
/// generation, the number of frees of the slot.
const IN_USE: u64 = 1;

/// `N` signals in one block of memory (a `static` works: [`new`](Self::new)
/// is `const`); allocation claims a free slot with one compare-and-swap,
/// release returns it on drop. Lock-free, no allocator, no `unsafe`.
pub struct SignalPool<const N: usize> {
    slots: [SignalStorage; N],
    /// Per slot: `generation << 1 | IN_USE`.
    state: [AtomicU64; N],
    next: AtomicUsize,
}

impl<const N: usize> SignalPool<N> {
    /// An empty pool.
    pub const fn new() -> Self {
        Self {
            slots: [const { SignalStorage::new(0) }; N],
            state: [const { AtomicU64::new(0) }; N],
            next: AtomicUsize::new(0),
        }
    }

    /// The number of slots.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// The number of slots in use (a snapshot).
    pub fn in_use(&self) -> usize {
        self.state
            .iter()
            .filter(|s| s.load(Ordering::Relaxed) & IN_USE != 0)
            .count()
    }

    /// Claims a free slot and sets it up as a user signal holding
    /// `initial`, or says the pool is full.
    pub fn allocate(&self, initial: i64) -> Result<PooledSignal<'_, N>, PoolExhausted> {
        let start = self.next.load(Ordering::Relaxed);
        for k in 0..N {
            let i = (start + k) % N;
            let state = self.state[i].load(Ordering::Relaxed);
            if state & IN_USE != 0 {
                continue;
            }
            // Acquire: the previous owner's accesses happen before our
            // re-initialisation (its free stored the state with release).
            if self.state[i]
                .compare_exchange(state, state | IN_USE, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
            {
                self.next.store((i + 1) % N, Ordering::Relaxed);
                self.slots[i].reinitialize(initial);
                return Ok(PooledSignal {
                    pool: self,
                    index: i,
                    generation: state >> 1,
                });
            }
        }
        Err(PoolExhausted { capacity: N })
    }

    /// The signal `handle` names, if it is still allocated: the slot must
    /// be this pool's, allocated, and at the handle's generation.
    ///
    /// The check is a snapshot: the signal may be freed right after it. The
    /// reference stays sound regardless (a slot is never written through
    /// `&mut`), but names the slot's next signal after a reuse; keep the
    /// [`PooledSignal`] alive for as long as the signal is in use.
    pub fn get(&self, handle: PoolHandle) -> Result<&SignalStorage, PoolHandleError> {
        let index = self.slot_of(handle.signal)?;
        let state = self.state[index].load(Ordering::Acquire);
        let current = state >> 1;
        if current != handle.generation {
            return Err(PoolHandleError::Stale {
                signal: handle.signal,
                index,
                generation: handle.generation,
                current,
            });
        }
        if state & IN_USE == 0 {
            return Err(PoolHandleError::Free {
                signal: handle.signal,
                index,
            });
        }
        Ok(&self.slots[index])
    }

    /// The allocated signal behind an `hsa_signal_t` (an AQL packet's
    /// `completion_signal`), without `unsafe`: the handle must be the
    /// address of a slot of this pool that is allocated now. Which
    /// allocation it meant cannot be told from the `hsa_signal_t` alone
    /// (see [`get`](Self::get) for that); the same snapshot caveat applies.
    pub fn lookup(&self, signal: u64) -> Result<&SignalStorage, PoolHandleError> {
        let index = self.slot_of(signal)?;
        if self.state[index].load(Ordering::Acquire) & IN_USE == 0 {
            return Err(PoolHandleError::Free { signal, index });
        }
        Ok(&self.slots[index])
    }

    /// The slot whose `hsa_signal_t` is `signal`, by address arithmetic
    /// only (no pointer is made from the integer).
    fn slot_of(&self, signal: u64) -> Result<usize, PoolHandleError> {
        let base = self.slots.as_ptr().addr() as u64;
        let size = core::mem::size_of::<SignalStorage>() as u64;
        let offset = signal.wrapping_sub(base);
        let index = offset / size;
        if offset % size != 0 || index >= N as u64 {
            return Err(PoolHandleError::NotInPool { signal });
        }
        // `index < N`, a `usize`.
        Ok(index as usize)
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
    generation: u64,
}

impl<const N: usize> PooledSignal<'_, N> {
    /// The slot index in the pool.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The slot's generation for this allocation (how many times the slot
    /// was freed before).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The handle [`SignalPool::get`] checks: this signal's `hsa_signal_t`
    /// and generation.
    pub fn pool_handle(&self) -> PoolHandle {
        PoolHandle {
            signal: self.handle(),
            generation: self.generation,
        }
    }
}

impl<const N: usize> Deref for PooledSignal<'_, N> {
    type Target = SignalStorage;
    fn deref(&self) -> &SignalStorage {
        &self.pool.slots[self.index]
    }
}

impl<const N: usize> Drop for PooledSignal<'_, N> {
    fn drop(&mut self) {
        // Release: our accesses happen before the next owner's
        // re-initialisation. The generation counts this free, so handles of
        // this allocation become stale. 2^63 frees of one slot do not happen.
        self.pool.state[self.index].store((self.generation + 1) << 1, Ordering::Release);
    }
}

impl<const N: usize> core::fmt::Debug for PooledSignal<'_, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PooledSignal")
            .field("index", &self.index)
            .field("generation", &self.generation)
            .finish()
    }
}

impl core::error::Error for PoolExhausted {}
