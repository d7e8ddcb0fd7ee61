//! Signals: `signal-core`'s [`SignalStorage`] (the 64-byte `amd_signal_t`
//! the GPU reads and decrements, then the host wake state) placed in
//! GPU-visible system memory, so that its handle (the `amd_signal_t`
//! address, as in ROCr) can be an AQL packet's completion signal.
//!
//! Storage comes from slabs of fine-grained system memory mapped on every
//! GPU; a freed slot is reused. Waits use `signal-core`'s wait with a
//! bounded sleep, because the GPU changes a signal's value without a host
//! futex wake.

#![allow(unsafe_code)]

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use signal_core::{
    Condition, LoadOrder, RmwOrder, SignalStorage, StoreOrder, WaitOutcome, WaitPolicy, WaitState,
};
use std_shim::FutexHost;

use crate::status::{Error, Result, Status};
use crate::system::Core;

/// Slab size: 64 KiB of signals.
const SLAB_BYTES: u64 = 64 * 1024;

/// How long a blocked wait sleeps at most before it looks at the value
/// again: the GPU writes signals without waking host futexes.
pub const POLL_SLICE_NS: u64 = 200_000;

/// Bytes per slot: the storage rounded to its 64-byte alignment.
const SLOT: u64 = (core::mem::size_of::<SignalStorage>() as u64).next_multiple_of(64);

/// The signal slabs of a runtime.
#[derive(Debug, Default)]
pub(crate) struct SignalSlabs {
    inner: Mutex<SlabState>,
}

#[derive(Debug, Default)]
struct SlabState {
    free: Vec<u64>,
    live: HashSet<u64>,
}

impl SignalSlabs {
    fn take(&self, core: &Core) -> Result<u64> {
        let mut s = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if s.free.is_empty() {
            let base = core.allocate_system(SLAB_BYTES, true)?;
            let n = SLAB_BYTES / SLOT;
            s.free.extend((0..n).rev().map(|i| base + i * SLOT));
        }
        let slot = s.free.pop().expect("a slab was just added");
        s.live.insert(slot);
        Ok(slot)
    }

    fn give_back(&self, slot: u64) {
        let mut s = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if s.live.remove(&slot) {
            s.free.push(slot);
        }
    }

    /// Whether `handle` is a live signal of this runtime.
    #[allow(dead_code)] // handle validation for the C ABI
    pub(crate) fn is_live(&self, handle: u64) -> bool {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .live
            .contains(&handle)
    }

    /// Live signals.
    pub(crate) fn live_count(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .live
            .len()
    }
}

/// A signal (`hsa_signal_t`): destroyed when dropped.
pub struct Signal {
    core: Arc<Core>,
    handle: u64,
}

impl core::fmt::Debug for Signal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Signal")
            .field("handle", &format_args!("{:#x}", self.handle))
            .field("value", &self.load(LoadOrder::Relaxed))
            .finish()
    }
}

static HOST: FutexHost = FutexHost::new();

impl Signal {
    pub(crate) fn create(core: &Arc<Core>, initial: i64) -> Result<Self> {
        let slot = core.signals.take(core)?;
        // SAFETY: `slot` is a free, 64-byte aligned slot of SLOT bytes in a
        // slab we own, mapped read-write for the CPU; nothing else refers
        // to it. Writing a fresh storage initialises it.
        unsafe { core::ptr::write(slot as *mut SignalStorage, SignalStorage::new(initial)) };
        Ok(Self {
            core: Arc::clone(core),
            handle: slot,
        })
    }

    fn storage(&self) -> &SignalStorage {
        // SAFETY: the slot holds a SignalStorage written in `create` and is
        // not reused until this Signal is dropped; the slab outlives it
        // (the core is kept alive by our Arc).
        unsafe { &*(self.handle as *const SignalStorage) }
    }

    /// The `hsa_signal_t.handle`: the address of its `amd_signal_t`.
    pub fn handle(&self) -> u64 {
        self.handle
    }

    /// `hsa_signal_load_*`.
    pub fn load(&self, order: LoadOrder) -> i64 {
        self.storage().bind(&HOST).load(order)
    }

    /// `hsa_signal_store_*`.
    pub fn store(&self, value: i64, order: StoreOrder) {
        self.storage().bind(&HOST).store(value, order)
    }

    /// `hsa_signal_silent_store_*`.
    pub fn silent_store(&self, value: i64, order: StoreOrder) {
        self.storage().bind(&HOST).silent_store(value, order)
    }

    /// `hsa_signal_exchange_*`.
    pub fn exchange(&self, value: i64, order: RmwOrder) -> i64 {
        self.storage().bind(&HOST).exchange(value, order)
    }

    /// `hsa_signal_cas_*`.
    pub fn cas(&self, expected: i64, desired: i64, order: RmwOrder) -> i64 {
        self.storage().bind(&HOST).cas(expected, desired, order)
    }

    /// `hsa_signal_add_*`.
    pub fn add(&self, value: i64, order: RmwOrder) -> i64 {
        self.storage().bind(&HOST).add(value, order)
    }

    /// `hsa_signal_subtract_*`.
    pub fn subtract(&self, value: i64, order: RmwOrder) -> i64 {
        self.storage().bind(&HOST).subtract(value, order)
    }

    /// `hsa_signal_wait_*`: until `condition` holds against `compare` or
    /// `timeout_ticks` (HSA system-clock ticks, `u64::MAX`: none) pass;
    /// returns the last value observed.
    pub fn wait(
        &self,
        condition: Condition,
        compare: i64,
        timeout_ticks: u64,
        wait_state: WaitState,
        order: LoadOrder,
    ) -> Result<i64> {
        let out = self
            .storage()
            .bind(&HOST)
            .wait_with_policy(
                condition,
                compare,
                timeout_ticks,
                wait_state,
                order,
                &WaitPolicy::polling(POLL_SLICE_NS),
            )
            .map_err(|e| Error::new(Status::InvalidSignal, format!("wait: {e}")))?;
        Ok(match out {
            WaitOutcome::Satisfied(v) | WaitOutcome::TimedOut(v) => v,
        })
    }

    /// Waits until the value is 0 (a completion signal), at most
    /// `timeout`; `Ok(true)` when it completed.
    pub fn wait_zero(&self, timeout: std::time::Duration) -> Result<bool> {
        let ticks = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        let v = self.wait(
            Condition::Eq,
            0,
            ticks,
            WaitState::Blocked,
            LoadOrder::Acquire,
        )?;
        Ok(v == 0)
    }
}

impl Drop for Signal {
    fn drop(&mut self) {
        self.core.signals.give_back(self.handle);
    }
}
