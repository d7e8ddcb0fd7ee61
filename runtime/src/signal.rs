//! Signals: `signal-core`'s [`SignalStorage`] (the 64-byte `amd_signal_t`
//! the GPU reads and decrements, then the host wake state) placed in
//! GPU-visible system memory, so that its handle (the `amd_signal_t`
//! address, as in ROCr) can be an AQL packet's completion signal.
//!
//! Two kinds, as ROCr has them:
//! - an **interrupt signal** (ROCr's `InterruptSignal`) owns a KFD signal
//!   event: its `amd_signal_t` names the event's mailbox slot and id, so a
//!   GPU that changes the value writes the mailbox and raises the event; the
//!   runtime's event thread ([`crate::events`]) then wakes the host waiters.
//!   Its blocked waits sleep until woken, with no polling.
//! - a **default signal** (ROCr's `DefaultSignal`) has no event: the GPU
//!   changes it silently, so its blocked waits sleep in slices of
//!   [`POLL_SLICE_NS`] and look again.
//!
//! Host operations on either kind wake the host waiters directly (the
//! `signal-core` wake protocol, a futex wake), with no driver call.
//!
//! Storage comes from slabs of fine-grained system memory mapped on every
//! GPU; a freed slot is reused. A slab stays mapped until the runtime
//! closes, so a stale handle never reaches unmapped memory.

#![allow(unsafe_code)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};

use signal_core::{
    Condition, LoadOrder, RmwOrder, SignalStorage, StoreOrder, WaitAnyEntry, WaitAnyOutcome,
    WaitOutcome, WaitPolicy, WaitState,
};
use std_shim::FutexHost;

use crate::agent::Agent;
use crate::status::{Error, Result, Status};
use crate::system::{Core, Runtime};

/// Slab size: 64 KiB of signals.
const SLAB_BYTES: u64 = 64 * 1024;

/// How long a blocked wait on a default signal (no interrupt event) sleeps
/// at most before it looks at the value again: the GPU writes such signals
/// without waking host futexes.
pub const POLL_SLICE_NS: u64 = 200_000;

/// Bytes per slot: the storage rounded to its 64-byte alignment.
const SLOT: u64 = (core::mem::size_of::<SignalStorage>() as u64).next_multiple_of(64);

/// The host side of every signal of the runtime: futexes and the HSA
/// system clock. Its event notifier is `()`: host waiters sleep on futexes,
/// not on KFD events, so a host store needs no `SET_EVENT` (see
/// `ARCHITECTURE.md`, "Signals and events").
pub(crate) static HOST: FutexHost = FutexHost::new();

/// The signal slabs of a runtime, and the table that turns a handle back
/// into a live signal.
#[derive(Debug, Default)]
pub(crate) struct SignalSlabs {
    inner: Mutex<SlabState>,
}

#[derive(Debug, Default)]
struct SlabState {
    free: Vec<u64>,
    /// Slots holding a signal (until its last reference is dropped).
    in_use: usize,
    /// Handles that name a signal not destroyed: what
    /// [`Runtime::signal_from_handle`] finds.
    live: HashMap<u64, Weak<SignalInner>>,
    /// Live signal groups by handle, and the last handle given.
    groups: HashMap<u64, Weak<GroupInner>>,
    last_group: u64,
}

impl SignalSlabs {
    fn lock(&self) -> std::sync::MutexGuard<'_, SlabState> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn take(&self, core: &Core) -> Result<u64> {
        let mut s = self.lock();
        if s.free.is_empty() {
            let base = core.allocate_system(SLAB_BYTES, true)?;
            let n = SLAB_BYTES / SLOT;
            s.free.extend((0..n).rev().map(|i| base + i * SLOT));
        }
        let slot = s.free.pop().expect("a slab was just added");
        s.in_use += 1;
        Ok(slot)
    }

    fn publish(&self, inner: &Arc<SignalInner>) {
        self.lock().live.insert(inner.handle, Arc::downgrade(inner));
    }

    fn unpublish(&self, handle: u64) {
        self.lock().live.remove(&handle);
    }

    fn give_back(&self, slot: u64) {
        let mut s = self.lock();
        s.live.remove(&slot);
        s.in_use -= 1;
        s.free.push(slot);
    }

    fn lookup(&self, handle: u64) -> Option<Arc<SignalInner>> {
        self.lock().live.get(&handle).and_then(Weak::upgrade)
    }

    /// Whether `handle` is a live (not destroyed) signal of this runtime.
    pub(crate) fn is_live(&self, handle: u64) -> bool {
        self.lookup(handle)
            .is_some_and(|s| !s.destroyed.load(Ordering::Acquire))
    }

    fn next_group_handle(&self) -> u64 {
        let mut s = self.lock();
        s.last_group += 1;
        s.last_group
    }

    fn publish_group(&self, g: &Arc<GroupInner>) {
        self.lock().groups.insert(g.handle, Arc::downgrade(g));
    }

    fn forget_group(&self, handle: u64) {
        self.lock().groups.remove(&handle);
    }

    fn lookup_group(&self, handle: u64) -> Option<Arc<GroupInner>> {
        self.lock().groups.get(&handle).and_then(Weak::upgrade)
    }

    /// Signals whose storage is in use.
    pub(crate) fn live_count(&self) -> usize {
        self.lock().in_use
    }
}

/// Which kind of signal (ROCr's class names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignalKind {
    /// `InterruptSignal`: backed by a KFD signal event.
    Interrupt,
    /// `DefaultSignal`: no event; blocked waits poll.
    Default,
}

pub(crate) struct SignalInner {
    pub(crate) core: Arc<Core>,
    pub(crate) handle: u64,
    /// The KFD event of an interrupt signal.
    pub(crate) event: Option<u32>,
    destroyed: AtomicBool,
    /// Where the storage lives when it is not a slab slot.
    pub(crate) place: Place,
}

/// Where a signal's storage lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// A slot of the signal slabs.
    Slab,
    /// Its own page of fine-grained system memory (an IPC-capable signal,
    /// `HSA_AMD_SIGNAL_IPC`), freed with it.
    IpcPage,
    /// Another process's IPC signal, attached at this address: detached
    /// with it.
    Attached,
}

impl SignalInner {
    pub(crate) fn storage(&self) -> &SignalStorage {
        // SAFETY: the slot holds a SignalStorage written in `create` and is
        // not reused until this SignalInner is dropped; the slab outlives it
        // (the core is kept alive by our Arc).
        unsafe { &*(self.handle as *const SignalStorage) }
    }
}

impl Drop for SignalInner {
    fn drop(&mut self) {
        // The event first: the event thread may touch the storage only
        // while the event maps to it (under its table lock).
        if let Some(id) = self.event {
            self.core
                .events
                .release_signal_event(&*self.core.driver, id);
        }
        match self.place {
            Place::Slab => self.core.signals.give_back(self.handle),
            Place::IpcPage => {
                self.core.signals.unpublish(self.handle);
                let _ = self.core.free(self.handle);
            }
            Place::Attached => {
                self.core.signals.unpublish(self.handle);
                crate::ipc::detach(&self.core, self.handle);
            }
        }
    }
}

/// A signal (`hsa_signal_t`). Clones share the signal; the storage is
/// released when the last clone is dropped. [`destroy`](Self::destroy)
/// (`hsa_signal_destroy`) also makes its handle unknown at once.
#[derive(Clone)]
pub struct Signal {
    pub(crate) inner: Arc<SignalInner>,
}

impl core::fmt::Debug for Signal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Signal")
            .field("handle", &format_args!("{:#x}", self.inner.handle))
            .field("kind", &self.kind())
            .field("value", &self.load(LoadOrder::Relaxed))
            .finish()
    }
}

impl Signal {
    /// A signal of `kind` holding `initial`. An interrupt signal falls back
    /// to a default one when the driver has no event left for it.
    pub(crate) fn create(core: &Arc<Core>, initial: i64, kind: SignalKind) -> Result<Self> {
        let slot = core.signals.take(core)?;
        let event = match kind {
            // HSA_ENABLE_INTERRUPT=0: every signal is a default signal.
            SignalKind::Interrupt if core.flags.enable_interrupt => {
                core.events.signal_event(core).ok()
            }
            SignalKind::Interrupt => None,
            SignalKind::Default => None,
        };
        let storage = match event {
            // SAFETY: the mailbox is a slot of the event page, 8-byte
            // aligned, mapped until the runtime closes, which is after
            // every signal is gone (signals hold the core).
            Some((id, mailbox)) => unsafe { SignalStorage::new_interrupt(initial, mailbox, id) },
            None => SignalStorage::new(initial),
        };
        // SAFETY: `slot` is a free, 64-byte aligned slot of SLOT bytes in a
        // slab we own, mapped read-write for the CPU; nothing else refers
        // to it (the event thread reaches it only once `bind` below maps
        // the event to it).
        unsafe { core::ptr::write(slot as *mut SignalStorage, storage) };
        let inner = Arc::new(SignalInner {
            core: Arc::clone(core),
            handle: slot,
            event: event.map(|(id, _)| id),
            destroyed: AtomicBool::new(false),
            place: Place::Slab,
        });
        if let Some((id, _)) = event {
            core.events.bind_signal_event(id, slot);
        }
        core.signals.publish(&inner);
        Ok(Self { inner })
    }

    pub(crate) fn storage(&self) -> &SignalStorage {
        self.inner.storage()
    }

    /// A signal whose storage is at `handle`, placed as `place` (IPC
    /// signals, `crate::ipc`); `init` writes fresh storage there first.
    ///
    /// # Safety
    ///
    /// `handle..handle + SLOT` is CPU-mapped memory of the runtime, 64-byte
    /// aligned, that lives until the returned signal's last clone is
    /// dropped and holds a `SignalStorage` (or gets one from `init`).
    pub(crate) unsafe fn at(
        core: &Arc<Core>,
        handle: u64,
        place: Place,
        init: Option<i64>,
    ) -> Self {
        if let Some(v) = init {
            // SAFETY: the caller's contract: ours, aligned, mapped.
            unsafe { core::ptr::write(handle as *mut SignalStorage, SignalStorage::new(v)) };
        }
        let inner = Arc::new(SignalInner {
            core: Arc::clone(core),
            handle,
            event: None,
            destroyed: AtomicBool::new(false),
            place,
        });
        core.signals.publish(&inner);
        Self { inner }
    }

    /// Whether this signal can be shared with another process
    /// (`hsa_amd_ipc_signal_create`).
    pub(crate) fn is_ipc(&self) -> bool {
        self.inner.place == Place::IpcPage
    }

    fn bound(&self) -> signal_core::Signal<'_, FutexHost> {
        self.storage().bind(&HOST)
    }

    /// The `hsa_signal_t.handle`: the address of its `amd_signal_t`.
    pub fn handle(&self) -> u64 {
        self.inner.handle
    }

    /// Interrupt or default signal.
    pub fn kind(&self) -> SignalKind {
        if self.inner.event.is_some() {
            SignalKind::Interrupt
        } else {
            SignalKind::Default
        }
    }

    /// The KFD event of an interrupt signal.
    pub fn event_id(&self) -> Option<u32> {
        self.inner.event
    }

    /// Host threads registered to sleep on this signal right now
    /// (diagnostics and tests: a waiter counted here has left its spin
    /// and back-off phases).
    pub fn waiters(&self) -> u32 {
        self.storage().wake_state().waiters()
    }

    /// `hsa_signal_destroy`: the handle becomes unknown to
    /// [`Runtime::signal_from_handle`] at once; the storage is released when
    /// the last clone is dropped.
    pub fn destroy(self) {
        self.inner.destroyed.store(true, Ordering::Release);
        self.inner.core.signals.unpublish(self.inner.handle);
        // Async handlers on it let go at the handler thread's next look.
        self.inner.core.events.wake_handlers();
    }

    /// Whether [`destroy`](Self::destroy) was called on a clone.
    pub fn is_destroyed(&self) -> bool {
        self.inner.destroyed.load(Ordering::Acquire)
    }

    /// `hsa_signal_load_{relaxed,scacquire}`.
    pub fn load(&self, order: LoadOrder) -> i64 {
        self.bound().load(order)
    }

    /// `hsa_signal_store_{relaxed,screlease}`: sets the value and wakes
    /// the waiters.
    pub fn store(&self, value: i64, order: StoreOrder) {
        self.bound().store(value, order)
    }

    /// `hsa_signal_silent_store_{relaxed,screlease}`: sets the value and
    /// wakes nobody (a blocked waiter sees it at its next look).
    pub fn silent_store(&self, value: i64, order: StoreOrder) {
        self.bound().silent_store(value, order)
    }

    /// `hsa_signal_exchange_*`: returns the previous value.
    pub fn exchange(&self, value: i64, order: RmwOrder) -> i64 {
        self.bound().exchange(value, order)
    }

    /// `hsa_signal_cas_*`: returns the value observed (`expected` when the
    /// swap happened).
    pub fn cas(&self, expected: i64, desired: i64, order: RmwOrder) -> i64 {
        self.bound().cas(expected, desired, order)
    }

    /// `hsa_signal_add_*`: returns the previous value.
    pub fn add(&self, value: i64, order: RmwOrder) -> i64 {
        self.bound().add(value, order)
    }

    /// `hsa_signal_subtract_*`: returns the previous value.
    pub fn subtract(&self, value: i64, order: RmwOrder) -> i64 {
        self.bound().subtract(value, order)
    }

    /// `hsa_signal_and_*`: returns the previous value.
    pub fn and(&self, value: i64, order: RmwOrder) -> i64 {
        self.bound().and(value, order)
    }

    /// `hsa_signal_or_*`: returns the previous value.
    pub fn or(&self, value: i64, order: RmwOrder) -> i64 {
        self.bound().or(value, order)
    }

    /// `hsa_signal_xor_*`: returns the previous value.
    pub fn xor(&self, value: i64, order: RmwOrder) -> i64 {
        self.bound().xor(value, order)
    }

    /// The wait policy for this kind: an interrupt signal sleeps until
    /// woken, a default one in slices.
    pub(crate) fn policy(&self) -> WaitPolicy {
        match self.kind() {
            SignalKind::Interrupt => WaitPolicy::DEFAULT,
            SignalKind::Default => WaitPolicy::polling(POLL_SLICE_NS),
        }
    }

    /// `hsa_signal_wait_*`: until `condition` holds against `compare` or
    /// `timeout_ticks` (HSA system-clock ticks, `u64::MAX`: none) pass;
    /// returns the last value observed (as HSA does, for both outcomes).
    pub fn wait(
        &self,
        condition: Condition,
        compare: i64,
        timeout_ticks: u64,
        wait_state: WaitState,
        order: LoadOrder,
    ) -> Result<i64> {
        self.wait_outcome(condition, compare, timeout_ticks, wait_state, order)
            .map(WaitOutcome::value)
    }

    /// [`wait`](Self::wait), saying whether the condition held or the
    /// timeout passed.
    pub fn wait_outcome(
        &self,
        condition: Condition,
        compare: i64,
        timeout_ticks: u64,
        wait_state: WaitState,
        order: LoadOrder,
    ) -> Result<WaitOutcome> {
        self.bound()
            .wait_with_policy(
                condition,
                compare,
                timeout_ticks,
                wait_state,
                order,
                &self.policy(),
            )
            .map_err(|e| Error::new(Status::InvalidSignal, format!("wait: {e}")))
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

/// Waits on any of several signals: the policy that fits them all (a
/// sleep slice as soon as one of them has no event).
pub(crate) fn wait_any_of(
    signals: &[(&Signal, Condition, i64)],
    timeout_ticks: u64,
    wait_state: WaitState,
    order: LoadOrder,
) -> Result<Option<(usize, i64)>> {
    let entries: Vec<WaitAnyEntry<'_>> = signals
        .iter()
        .map(|(s, c, v)| WaitAnyEntry {
            signal: s.storage(),
            condition: *c,
            compare_value: *v,
        })
        .collect();
    let policy = if signals
        .iter()
        .all(|(s, _, _)| s.kind() == SignalKind::Interrupt)
    {
        WaitPolicy::DEFAULT
    } else {
        WaitPolicy::polling(POLL_SLICE_NS)
    };
    let out = signal_core::wait_any_with_policy(
        &entries,
        timeout_ticks,
        wait_state,
        order,
        &HOST,
        &policy,
    )
    .map_err(|e| Error::new(Status::InvalidArgument, format!("wait any: {e}")))?;
    Ok(match out {
        WaitAnyOutcome::Satisfied { index, value } => Some((index, value)),
        WaitAnyOutcome::TimedOut => None,
    })
}

/// A signal group (`hsa_signal_group_t`): a fixed set of signals waited on
/// together. The group holds its signals (clones); clones of the group
/// share it, and [`Runtime::signal_group_from_handle`] finds it by handle
/// until [`destroy`](Self::destroy) or the last clone is dropped.
#[derive(Debug, Clone)]
pub struct SignalGroup {
    inner: Arc<GroupInner>,
}

struct GroupInner {
    core: Arc<Core>,
    handle: u64,
    signals: Vec<Signal>,
}

impl Drop for GroupInner {
    fn drop(&mut self) {
        self.core.signals.forget_group(self.handle);
    }
}

impl core::fmt::Debug for GroupInner {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SignalGroup")
            .field("handle", &self.handle)
            .field("signals", &self.signals)
            .finish()
    }
}

impl SignalGroup {
    /// The signals, in creation order.
    pub fn signals(&self) -> &[Signal] {
        &self.inner.signals
    }

    /// The `hsa_signal_group_t.handle` (never 0, never reused).
    pub fn handle(&self) -> u64 {
        self.inner.handle
    }

    /// `hsa_signal_group_destroy`: the handle is unknown from now on; the
    /// group lives on in clones still held.
    pub fn destroy(self) {
        self.inner.core.signals.forget_group(self.inner.handle);
    }

    /// `hsa_signal_group_wait_any_{scacquire,relaxed}`: waits until one
    /// signal satisfies its condition (`conditions[i]` against
    /// `compare_values[i]`, one per signal); returns its index and value.
    /// HSA gives this wait no timeout.
    pub fn wait_any(
        &self,
        conditions: &[Condition],
        compare_values: &[i64],
        wait_state: WaitState,
        order: LoadOrder,
    ) -> Result<(usize, i64)> {
        let signals = &self.inner.signals;
        if conditions.len() != signals.len() || compare_values.len() != signals.len() {
            return Err(Error::invalid_argument(format!(
                "signal group of {} signals given {} conditions and {} compare values",
                signals.len(),
                conditions.len(),
                compare_values.len()
            )));
        }
        let list: Vec<(&Signal, Condition, i64)> = signals
            .iter()
            .zip(conditions.iter().zip(compare_values))
            .map(|(s, (c, v))| (s, *c, *v))
            .collect();
        wait_any_of(&list, u64::MAX, wait_state, order)?.ok_or_else(|| {
            Error::new(
                Status::Error,
                "signal group wait ended without a satisfied signal",
            )
        })
    }
}

impl Runtime {
    /// `hsa_signal_create` with no consumer list: an interrupt signal, as
    /// ROCr makes one whenever the host may wait on it (a default signal if
    /// the driver has no event left).
    pub fn create_signal(&self, initial: i64) -> Result<Signal> {
        crate::trace::api_call!("hsa_signal_create", initial = initial, {
            Signal::create(&self.core, initial, SignalKind::Interrupt)
        })
    }

    /// `hsa_signal_create` with `consumers`: ROCr's rule, an interrupt
    /// signal when the list is empty or names a CPU agent (the host may
    /// block on it), else a default signal (only GPUs consume it, nobody
    /// needs its interrupts). Duplicates or unknown agents are
    /// `INVALID_ARGUMENT` / `INVALID_AGENT`.
    pub fn create_signal_for(&self, initial: i64, consumers: &[Agent]) -> Result<Signal> {
        crate::trace::api_call!(
            "hsa_signal_create",
            initial = initial,
            consumers = consumers.len(),
            {
                let mut uses_host = consumers.is_empty();
                for (i, &a) in consumers.iter().enumerate() {
                    if consumers[..i].contains(&a) {
                        return Err(Error::invalid_argument(format!(
                            "hsa_signal_create: agent {} is listed twice among the consumers",
                            a.index()
                        )));
                    }
                    uses_host |= !self.core.agent(a)?.is_gpu();
                }
                let kind = if uses_host {
                    SignalKind::Interrupt
                } else {
                    SignalKind::Default
                };
                Signal::create(&self.core, initial, kind)
            }
        )
    }

    /// A signal of the given kind (for tests and for callers that know
    /// which they want).
    pub fn create_signal_of_kind(&self, initial: i64, kind: SignalKind) -> Result<Signal> {
        crate::trace::api_call!("hsa_signal_create", initial = initial, {
            Signal::create(&self.core, initial, kind)
        })
    }

    /// The signal behind an `hsa_signal_t` handle: `INVALID_SIGNAL` for a
    /// handle that names no signal of this runtime, or a destroyed one.
    pub fn signal_from_handle(&self, handle: u64) -> Result<Signal> {
        match self.core.signals.lookup(handle) {
            Some(inner) if !inner.destroyed.load(Ordering::Acquire) => Ok(Signal { inner }),
            Some(_) => Err(Error::new(
                Status::InvalidSignal,
                format!("hsa_signal_t {handle:#x} was destroyed"),
            )),
            None => Err(Error::new(
                Status::InvalidSignal,
                format!("hsa_signal_t {handle:#x} is no signal of this runtime"),
            )),
        }
    }

    /// Whether `handle` names a live signal of this runtime.
    pub fn is_signal(&self, handle: u64) -> bool {
        self.core.signals.is_live(handle)
    }

    /// `hsa_amd_signal_wait_any`: waits until one of `signals` satisfies its
    /// own condition against its compare value, or `timeout_ticks` pass.
    /// `Some((index, value))` for the lowest satisfied index, `None` on
    /// timeout.
    pub fn wait_any(
        &self,
        signals: &[(&Signal, Condition, i64)],
        timeout_ticks: u64,
        wait_state: WaitState,
        order: LoadOrder,
    ) -> Result<Option<(usize, i64)>> {
        wait_any_of(signals, timeout_ticks, wait_state, order)
    }

    /// `hsa_signal_group_create`: a group of `signals` (at least one, no
    /// duplicates, none destroyed). Consumers are accepted as HSA has them
    /// and checked, but change nothing.
    pub fn create_signal_group(
        &self,
        signals: &[&Signal],
        consumers: &[Agent],
    ) -> Result<SignalGroup> {
        if signals.is_empty() {
            return Err(Error::invalid_argument(
                "hsa_signal_group_create: no signals",
            ));
        }
        for &a in consumers {
            self.core.agent(a)?;
        }
        for (i, s) in signals.iter().enumerate() {
            if s.is_destroyed() {
                return Err(Error::new(
                    Status::InvalidSignal,
                    format!("hsa_signal_group_create: signal {i} was destroyed"),
                ));
            }
            if signals[..i].iter().any(|o| o.handle() == s.handle()) {
                return Err(Error::invalid_argument(format!(
                    "hsa_signal_group_create: signal {i} ({:#x}) is listed twice",
                    s.handle()
                )));
            }
        }
        let inner = Arc::new(GroupInner {
            core: Arc::clone(&self.core),
            handle: self.core.signals.next_group_handle(),
            signals: signals.iter().map(|s| (*s).clone()).collect(),
        });
        self.core.signals.publish_group(&inner);
        Ok(SignalGroup { inner })
    }

    /// The signal group behind an `hsa_signal_group_t` handle:
    /// `INVALID_SIGNAL_GROUP` for an unknown or destroyed one.
    pub fn signal_group_from_handle(&self, handle: u64) -> Result<SignalGroup> {
        self.core
            .signals
            .lookup_group(handle)
            .map(|inner| SignalGroup { inner })
            .ok_or_else(|| {
                Error::new(
                    Status::InvalidSignalGroup,
                    format!("hsa_signal_group_t {handle:#x} is no live signal group"),
                )
            })
    }
}
