//! KFD events and the two runtime threads built on them.
//!
//! - **The event page and signal events** (ROCr `InterruptSignal::CreateEvent`
//!   over libhsakmt `hsaKmtCreateEvent`): on a dGPU the event page is a
//!   buffer of ours, `KFD_SIGNAL_EVENT_LIMIT` 64-bit slots of system memory
//!   mapped on every GPU (the GPU writes the mailbox through its own page
//!   tables), whose handle goes with the first `CREATE_EVENT`; on an APU the
//!   driver's page is mapped through `/dev/kfd`. Each interrupt signal takes
//!   one auto-reset signal event; its mailbox is the event's slot. Events of
//!   destroyed signals are kept in a pool for the next signal (ROCr keeps an
//!   event pool too), so a dispatch's completion signal costs no ioctl.
//! - **The event thread** sleeps in `WAIT_EVENTS` (any) on every signal
//!   event, a control event (set to make it look at a changed list or stop),
//!   the memory-exception event and the hardware-exception event. A signal
//!   event that fired (its age moved, KFD 1.14 `last_event_age`) gets
//!   `WakeState::notify` on its signal: that wakes the host threads that
//!   sleep on it, which the GPU's write alone cannot. When the driver cannot
//!   say which event fired (no ages) and on every timeout
//!   ([`EVENT_WAIT_MS`]) it notifies every interrupt signal: a lost
//!   interrupt then costs at most that long, never a hang, and a notify
//!   costs a fence and a load for a signal nobody waits on.
//!   A memory fault (ROCr `Runtime::VMFaultHandler`) or a hardware exception
//!   (ROCr `HwExceptionHandler`) stops every queue of that GPU and reaches
//!   their error callbacks ([`FAULT_STATUS`], [`HW_EXCEPTION_STATUS`]).
//! - **The async-handler thread** (ROCr's `AsyncEventsLoop`,
//!   `hsa_amd_signal_async_handler`): one thread waits on all registered
//!   signals at once (`signal-core`'s wait-any) and calls each handler whose
//!   condition holds; a handler returning `true` stays registered. The queue
//!   monitor is one of its handlers: each queue's `queue_inactive_signal`
//!   is an interrupt signal with a handler on "not 0" (scratch requests,
//!   queue errors), as ROCr does.

#![allow(unsafe_code)]

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use kfd::EventDesc;
use kfd::ioctl::{EventType, WaitResult, raw};
use signal_core::{
    Condition, LoadOrder, RmwOrder, SignalStorage, TIMEOUT_INFINITE, WaitAnyEntry, WaitPolicy,
    WaitState,
};

use crate::driver::{Driver, Mapped};
use crate::signal::{HOST, POLL_SLICE_NS, Signal, SignalKind};
use crate::status::{Error, Result, Status};
use crate::system::{Core, Runtime};

/// Longest sleep of the event thread in one `WAIT_EVENTS`, in ms; after
/// it, every interrupt signal is notified (the safety net for a lost
/// interrupt).
pub const EVENT_WAIT_MS: u32 = 1000;

/// The status every queue of a GPU reports after a memory fault there
/// (`HSA_STATUS_ERROR_MEMORY_FAULT`, what ROCr's queues report, e.g. HIP's
/// "Queue error - HSA_STATUS_ERROR_MEMORY_FAULT").
pub const FAULT_STATUS: Status = Status::MemoryFault;

/// The status every queue of a GPU reports after a hardware exception
/// (a GPU reset): ROCr has no queue status for it (it raises
/// `HSA_AMD_GPU_HW_EXCEPTION_EVENT` and aborts); the queues are gone, so
/// `HSA_STATUS_ERROR_FATAL`.
pub const HW_EXCEPTION_STATUS: Status = Status::Fatal;

/// Bytes of the event page (`KFD_SIGNAL_EVENT_LIMIT` slots).
const EVENT_PAGE_BYTES: u64 = kfd::EVENT_PAGE_SIZE as u64;

/// A memory fault the driver reported (`HsaMemoryAccessFault`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryFault {
    /// The faulting GPU (KFD `gpu_id`).
    pub gpu_id: u32,
    /// The faulting address (page granular).
    pub address: u64,
    /// Page not present or supervisor privilege.
    pub not_present: bool,
    /// Write to a read-only page.
    pub read_only: bool,
    /// Execute of a non-executable page.
    pub no_execute: bool,
    /// The address is not exact.
    pub imprecise: bool,
    /// `KFD_MEM_ERR_*`: 0, or the RAS error behind the fault.
    pub error_type: u32,
}

/// Counters of the event machinery (diagnostics and tests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EventStats {
    /// `WAIT_EVENTS` calls that returned with an event.
    pub wakes: u64,
    /// Signals notified because their own event fired.
    pub signals_notified: u64,
    /// `WAIT_EVENTS` calls that timed out (every signal notified).
    pub timeouts: u64,
    /// Async handler calls.
    pub handler_calls: u64,
    /// Memory faults reported.
    pub memory_faults: u64,
    /// Hardware exceptions reported.
    pub hw_exceptions: u64,
}

#[derive(Debug, Default)]
struct Counters {
    wakes: AtomicU64,
    signals_notified: AtomicU64,
    timeouts: AtomicU64,
    handler_calls: AtomicU64,
    memory_faults: AtomicU64,
    hw_exceptions: AtomicU64,
}

/// One signal event.
#[derive(Debug, Clone, Copy)]
struct SignalEvent {
    /// The interrupt signal it serves (`None`: pooled or the control event).
    handle: Option<u64>,
    /// The age last seen (KFD 1.14 `last_event_age`).
    age: u64,
    mailbox: NonNull<u64>,
}

#[derive(Debug, Default)]
struct Table {
    /// Base of the event page (CPU address = GPU address).
    page: Option<u64>,
    /// The driver's page mapped for us (APUs).
    _mapped: Option<Mapped>,
    signal: HashMap<u32, SignalEvent>,
    pool: Vec<u32>,
    control: Option<u32>,
    memory: Option<u32>,
    hw: Option<u32>,
    /// Why events are unavailable, once known.
    broken: Option<String>,
}

// SAFETY: the mailbox pointers name slots of the event page, which stays
// mapped for the runtime's life and is only accessed atomically.
unsafe impl Send for Table {}

type Callback = Box<dyn FnMut(i64) -> bool + Send>;

struct Handler {
    signal: Signal,
    condition: Condition,
    value: i64,
    callback: Callback,
}

/// The KFD events of a runtime, its event thread and its async-handler
/// thread.
pub(crate) struct Events {
    table: Mutex<Table>,
    stop: AtomicBool,
    /// A kick was sent and the event thread has not re-read its list since:
    /// later kicks can be skipped.
    kick_pending: AtomicBool,
    threads: Mutex<Vec<JoinHandle<()>>>,
    counters: Counters,
    last_fault: Mutex<Option<MemoryFault>>,
    /// `hsa_amd_register_system_event_handler`'s handlers.
    pub(crate) system: crate::system_events::SystemEvents,
    pending: Mutex<Vec<Handler>>,
    /// Bumped to wake the async-handler thread (new handler, stop).
    control: Box<SignalStorage>,
}

impl core::fmt::Debug for Events {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Events").finish_non_exhaustive()
    }
}

impl Default for Events {
    fn default() -> Self {
        Self {
            table: Mutex::default(),
            stop: AtomicBool::new(false),
            kick_pending: AtomicBool::new(false),
            threads: Mutex::default(),
            counters: Counters::default(),
            last_fault: Mutex::default(),
            system: Default::default(),
            pending: Mutex::default(),
            control: Box::new(SignalStorage::new(0)),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Events {
    /// Creates the control, memory and hardware-exception events and
    /// starts both threads. Without usable events the runtime still works:
    /// signals are default signals, faults go unreported (said on stderr).
    pub(crate) fn start(core: &Arc<Core>) {
        let ev = &core.events;
        match ev.create_signal_event(core) {
            Ok(id) => lock(&ev.table).control = Some(id),
            Err(e) => {
                eprintln!(
                    "hsa: no KFD signal events ({}); signals will poll",
                    e.message
                );
                lock(&ev.table).broken = Some(e.message);
            }
        }
        for (ty, what) in [
            (EventType::Memory, "memory"),
            (EventType::HwException, "hw"),
        ] {
            // Auto-reset, unlike ROCr's manual-reset memory event: ROCr
            // stops waiting on it after the first fault (and aborts); our
            // thread keeps waiting, and a manual-reset event would keep
            // firing. A fault raised while the thread is not waiting stays
            // signaled until its next wait.
            let desc = EventDesc {
                event_type: ty,
                auto_reset: true,
                node_id: 0,
                event_page_handle: None,
            };
            match core.driver.create_event(&desc) {
                Ok(info) => {
                    let mut t = lock(&ev.table);
                    if what == "memory" {
                        t.memory = Some(info.event_id);
                    } else {
                        t.hw = Some(info.event_id);
                    }
                }
                Err(e) => eprintln!("hsa: no KFD {what} exception event: {e}"),
            }
        }
        let mut threads = lock(&ev.threads);
        let c = Arc::clone(core);
        if let Ok(h) = std::thread::Builder::new()
            .name("hsa-events".into())
            .spawn(move || event_loop(&c))
        {
            threads.push(h);
        }
        let c = Arc::clone(core);
        if let Ok(h) = std::thread::Builder::new()
            .name("hsa-async-handlers".into())
            .spawn(move || handler_loop(&c))
        {
            threads.push(h);
        }
    }

    /// Stops both threads (they hold the core) and drops every async
    /// handler: `hsa_shut_down` of the last reference.
    pub(crate) fn shut_down(&self, driver: &dyn Driver) {
        self.stop.store(true, Ordering::Release);
        let control = lock(&self.table).control;
        if let Some(id) = control {
            let _ = driver.set_event(id);
        }
        self.wake_handlers();
        let threads = std::mem::take(&mut *lock(&self.threads));
        for h in threads {
            if h.thread().id() != std::thread::current().id() {
                let _ = h.join();
            }
        }
        let pending = std::mem::take(&mut *lock(&self.pending));
        drop(pending);
    }

    /// The event page's buffer, when it is ours (a dGPU): the driver keeps
    /// it as the process's signal BO from the first `CREATE_EVENT` on.
    pub(crate) fn page_buffer(&self) -> Option<u64> {
        let t = lock(&self.table);
        t.page.filter(|_| t._mapped.is_none())
    }

    /// Destroys every event (runtime close; the threads are stopped).
    pub(crate) fn destroy_all(&self, driver: &dyn Driver) {
        let mut t = lock(&self.table);
        let ids: Vec<u32> = t
            .signal
            .keys()
            .copied()
            .chain(t.memory)
            .chain(t.hw)
            .collect();
        t.signal.clear();
        t.pool.clear();
        t.control = None;
        t.memory = None;
        t.hw = None;
        drop(t);
        for id in ids {
            let _ = driver.destroy_event(id);
        }
    }

    /// Makes the event thread look at its list again. One kick serves
    /// every change made before the thread re-reads the list (it clears
    /// `kick_pending` before reading it, so a change after that read finds
    /// the flag clear and kicks again).
    fn kick(&self, driver: &dyn Driver) {
        if self.kick_pending.swap(true, Ordering::SeqCst) {
            return;
        }
        let control = lock(&self.table).control;
        if let Some(id) = control {
            let _ = driver.set_event(id);
        }
    }

    /// Sets up the event page before the first signal event: a buffer of
    /// ours on a dGPU (its handle goes with that first `CREATE_EVENT`).
    fn page_handle_for_first(&self, core: &Core, t: &mut Table) -> Result<Option<u64>> {
        if t.page.is_some() {
            return Ok(None);
        }
        let dgpu = core
            .agents
            .iter()
            .any(|a| a.is_gpu() && a.node.properties.cpu_cores_count == 0);
        if !dgpu {
            return Ok(None);
        }
        let va = core.allocate_system(EVENT_PAGE_BYTES, true)?;
        let bo = core.allocations.find(va).and_then(|b| b.bo);
        match bo {
            Some(bo) => {
                t.page = Some(va);
                Ok(Some(bo))
            }
            None => {
                let _ = core.free(va);
                Ok(None)
            }
        }
    }

    /// `CREATE_EVENT` of an auto-reset signal event, mapping the event
    /// page on the first.
    fn create_signal_event(&self, core: &Core) -> Result<u32> {
        let mut t = lock(&self.table);
        if let Some(why) = &t.broken {
            return Err(Error::new(Status::OutOfResources, why.clone()));
        }
        let page_handle = self.page_handle_for_first(core, &mut t)?;
        let mut desc = EventDesc {
            event_type: EventType::Signal,
            auto_reset: true,
            node_id: 0,
            event_page_handle: page_handle,
        };
        let info = match core.driver.create_event(&desc) {
            Ok(i) => i,
            // A driver that already has a page for this process (a second
            // runtime in it) refuses a new one: use its page.
            Err(_) if page_handle.is_some() => {
                desc.event_page_handle = None;
                if let Some(va) = t.page.take() {
                    let _ = core.free(va);
                }
                core.driver
                    .create_event(&desc)
                    .map_err(|e| Error::driver("CREATE_EVENT (signal)", e))?
            }
            Err(e) => return Err(Error::driver("CREATE_EVENT (signal)", e)),
        };
        if t.page.is_none() {
            match core.driver.map_event_page(info.event_page_offset) {
                Ok(m) => {
                    t.page = Some(m.as_ptr().as_ptr() as u64);
                    t._mapped = Some(m);
                }
                Err(e) => {
                    let _ = core.driver.destroy_event(info.event_id);
                    return Err(Error::driver("mmap of the event page", e));
                }
            }
        }
        let base = t.page.unwrap_or_default();
        let slot = u64::from(info.event_slot_index);
        if slot >= u64::from(kfd::ioctl::consts::KFD_SIGNAL_EVENT_LIMIT) || base == 0 {
            let _ = core.driver.destroy_event(info.event_id);
            return Err(Error::new(
                Status::OutOfResources,
                format!(
                    "CREATE_EVENT gave slot {slot}, outside the event page of {} slots",
                    kfd::ioctl::consts::KFD_SIGNAL_EVENT_LIMIT
                ),
            ));
        }
        let mailbox = NonNull::new((base + slot * 8) as *mut u64).expect("base is non-zero");
        t.signal.insert(
            info.event_id,
            SignalEvent {
                handle: None,
                age: 1,
                mailbox,
            },
        );
        Ok(info.event_id)
    }

    /// A signal event for a new interrupt signal (pooled, else created)
    /// and its mailbox.
    pub(crate) fn signal_event(&self, core: &Core) -> Result<(u32, NonNull<AtomicU64Alias>)> {
        let pooled = {
            let mut t = lock(&self.table);
            t.pool
                .pop()
                .and_then(|id| t.signal.get(&id).map(|e| (id, e.mailbox)))
        };
        let (id, mailbox) = match pooled {
            Some(p) => p,
            None => {
                let id = self.create_signal_event(core)?;
                // The event thread waits on the old list: show it the new one.
                self.kick(&*core.driver);
                let t = lock(&self.table);
                (id, t.signal[&id].mailbox)
            }
        };
        Ok((id, mailbox.cast()))
    }

    /// Maps the event to its interrupt signal's storage (after the storage
    /// is written).
    pub(crate) fn bind_signal_event(&self, id: u32, handle: u64) {
        if let Some(e) = lock(&self.table).signal.get_mut(&id) {
            e.handle = Some(handle);
        }
    }

    /// The interrupt signal is gone: its event goes back to the pool.
    pub(crate) fn release_signal_event(&self, driver: &dyn Driver, id: u32) {
        let mut t = lock(&self.table);
        if let Some(e) = t.signal.get_mut(&id) {
            e.handle = None;
            t.pool.push(id);
        } else {
            drop(t);
            let _ = driver.destroy_event(id);
        }
    }

    fn stats(&self) -> EventStats {
        let c = &self.counters;
        let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
        EventStats {
            wakes: l(&c.wakes),
            signals_notified: l(&c.signals_notified),
            timeouts: l(&c.timeouts),
            handler_calls: l(&c.handler_calls),
            memory_faults: l(&c.memory_faults),
            hw_exceptions: l(&c.hw_exceptions),
        }
    }

    /// Registers an async handler and wakes the handler thread.
    fn add_handler(&self, h: Handler) {
        lock(&self.pending).push(h);
        self.wake_handlers();
    }

    /// Makes the handler thread look at every handler again.
    pub(crate) fn wake_handlers(&self) {
        self.control.bind(&HOST).add(1, RmwOrder::Release);
    }

    /// Registers `callback` for `signal` (the queue monitor's way in).
    pub(crate) fn add_handler_for(
        &self,
        signal: Signal,
        condition: Condition,
        value: i64,
        callback: Callback,
    ) {
        self.add_handler(Handler {
            signal,
            condition,
            value,
            callback,
        });
    }
}

/// The mailbox type `signal-core` takes.
pub(crate) type AtomicU64Alias = std::sync::atomic::AtomicU64;

/// Wakes the host waiters of the signal at `handle`.
///
/// Called with the table lock held, which keeps the slot's storage from
/// being rewritten (a signal releases its event under that lock before
/// its slot is reused).
fn notify(handle: u64) {
    // SAFETY: `handle` is the slot of a live interrupt signal (the table
    // maps its event to it only between `bind_signal_event` and
    // `release_signal_event`, and we hold the table lock); slabs stay
    // mapped until the runtime closes, after this thread stopped.
    let storage = unsafe { &*(handle as *const SignalStorage) };
    storage.wake_state().notify(&HOST);
}

/// Notifies every interrupt signal; adds each to `count` (if given)
/// before waking it, so a woken thread that reads the counter sees it.
fn notify_all(t: &Table, count: Option<&AtomicU64>) {
    for e in t.signal.values() {
        if let Some(h) = e.handle {
            if let Some(c) = count {
                c.fetch_add(1, Ordering::Relaxed);
            }
            notify(h);
        }
    }
}

fn event_loop(core: &Arc<Core>) {
    let ev = &core.events;
    let mut failures = 0u32;
    while !ev.stop.load(Ordering::Acquire) {
        ev.kick_pending.store(false, Ordering::SeqCst);
        let (mut list, memory, hw) = {
            let t = lock(&ev.table);
            let mut list: Vec<raw::EventData> = Vec::with_capacity(t.signal.len() + 2);
            for (&id, e) in &t.signal {
                let mut d = raw::EventData::new(id);
                d.payload = raw::EventDataPayload::from_signal(raw::HsaSignalEventData {
                    last_event_age: e.age,
                });
                list.push(d);
            }
            list.extend(t.memory.map(raw::EventData::new));
            list.extend(t.hw.map(raw::EventData::new));
            (list, t.memory, t.hw)
        };
        if list.is_empty() {
            // No events at all: nothing to wait for but the stop flag.
            std::thread::sleep(std::time::Duration::from_millis(u64::from(EVENT_WAIT_MS)));
            continue;
        }
        match core.driver.wait_events(&mut list, false, EVENT_WAIT_MS) {
            Ok(WaitResult::Complete) => {
                failures = 0;
                ev.counters.wakes.fetch_add(1, Ordering::Relaxed);
                handle_fired(core, &list, memory, hw);
            }
            Ok(WaitResult::Timeout) => {
                failures = 0;
                ev.counters.timeouts.fetch_add(1, Ordering::Relaxed);
                notify_all(&lock(&ev.table), None);
            }
            // An event destroyed under the wait (EIO), or a failure: wake
            // everyone and look again; back off if it keeps failing.
            Ok(WaitResult::Fail) | Err(_) => {
                failures = failures.saturating_add(1);
                notify_all(&lock(&ev.table), None);
                if failures > 3 {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
            }
        }
    }
}

fn handle_fired(core: &Arc<Core>, list: &[raw::EventData], memory: Option<u32>, hw: Option<u32>) {
    let ev = &core.events;
    let mut known = false;
    let mut fault = None;
    let mut hw_fault = None;
    {
        let mut t = lock(&ev.table);
        let control = t.control;
        let notified = &ev.counters.signals_notified;
        for d in list {
            if Some(d.event_id) == memory {
                let m = d.payload.memory_exception_data();
                if m.gpu_id != 0 {
                    known = true;
                    fault = Some(MemoryFault {
                        gpu_id: m.gpu_id,
                        address: m.va,
                        not_present: m.failure.not_present != 0,
                        read_only: m.failure.read_only != 0,
                        no_execute: m.failure.no_execute != 0,
                        imprecise: m.failure.imprecise != 0,
                        error_type: m.error_type,
                    });
                }
                continue;
            }
            if Some(d.event_id) == hw {
                let h = d.payload.hw_exception_data();
                if h.gpu_id != 0 {
                    known = true;
                    hw_fault = Some(h.gpu_id);
                }
                continue;
            }
            let age = d.payload.signal_event_data().last_event_age;
            let Some(e) = t.signal.get_mut(&d.event_id) else {
                continue;
            };
            if age == e.age {
                continue;
            }
            e.age = age;
            known = true;
            if Some(d.event_id) == control {
                continue;
            }
            if let Some(h) = e.handle {
                // Counted first: the woken thread may read the counter.
                notified.fetch_add(1, Ordering::Relaxed);
                notify(h);
            }
        }
        if !known {
            // The driver did not say which event fired (no event ages).
            notify_all(&t, Some(notified));
        }
    }
    if let Some(f) = fault {
        ev.counters.memory_faults.fetch_add(1, Ordering::Relaxed);
        *lock(&ev.last_fault) = Some(f);
        // ROCr's VMFaultHandler: the system event handlers, else its
        // message (and, for the C drop-in, abort).
        crate::system_events::memory_fault(core, &f);
        fault_queues(core, f.gpu_id, FAULT_STATUS);
    }
    if let Some(gpu_id) = hw_fault {
        ev.counters.hw_exceptions.fetch_add(1, Ordering::Relaxed);
        fault_queues(core, gpu_id, HW_EXCEPTION_STATUS);
    }
}

/// Every live queue of GPU `gpu_id` stops with `status` (its callback
/// runs on this thread, with no lock of ours held).
fn fault_queues(core: &Core, gpu_id: u32, status: Status) {
    for q in core.queues_of_gpu(gpu_id) {
        q.fault(status);
    }
}

fn handler_loop(core: &Arc<Core>) {
    let ev = &core.events;
    let control = ev.control.bind(&HOST);
    let mut active: Vec<Handler> = Vec::new();
    while !ev.stop.load(Ordering::Acquire) {
        let seen = control.load(LoadOrder::Acquire);
        active.append(&mut lock(&ev.pending));
        let mut fired = false;
        active.retain_mut(|h| {
            if h.signal.is_destroyed() {
                return false;
            }
            let v = h.signal.load(LoadOrder::Acquire);
            if !h.condition.holds(v, h.value) {
                return true;
            }
            fired = true;
            ev.counters.handler_calls.fetch_add(1, Ordering::Relaxed);
            // A panicking handler is dropped, never the thread.
            std::panic::catch_unwind(AssertUnwindSafe(|| (h.callback)(v))).unwrap_or(false)
        });
        if fired {
            // A handler kept whose condition still holds runs again, as in
            // ROCr; new values are looked at before sleeping.
            continue;
        }
        let mut entries: Vec<WaitAnyEntry<'_>> = Vec::with_capacity(active.len() + 1);
        entries.push(WaitAnyEntry {
            signal: &ev.control,
            condition: Condition::Ne,
            compare_value: seen,
        });
        for h in &active {
            entries.push(WaitAnyEntry {
                signal: h.signal.storage(),
                condition: h.condition,
                compare_value: h.value,
            });
        }
        let policy = if active
            .iter()
            .all(|h| h.signal.kind() == SignalKind::Interrupt)
        {
            WaitPolicy::DEFAULT
        } else {
            WaitPolicy::polling(POLL_SLICE_NS)
        };
        let _ = signal_core::wait_any_with_policy(
            &entries,
            TIMEOUT_INFINITE,
            WaitState::Blocked,
            LoadOrder::Acquire,
            &HOST,
            &policy,
        );
    }
}

impl Runtime {
    /// `hsa_amd_signal_async_handler`: calls `callback` with the value on
    /// the runtime's handler thread once `signal` satisfies `condition`
    /// against `value`; the callback returns `true` to be called again the
    /// next time (at once if the condition still holds), `false` to be
    /// dropped. A destroyed signal drops its handlers.
    pub fn async_handler(
        &self,
        signal: &Signal,
        condition: Condition,
        value: i64,
        callback: impl FnMut(i64) -> bool + Send + 'static,
    ) -> Result<()> {
        if signal.is_destroyed() {
            return Err(Error::new(
                Status::InvalidSignal,
                format!(
                    "hsa_amd_signal_async_handler: signal {:#x} was destroyed",
                    signal.handle()
                ),
            ));
        }
        self.core.events.add_handler(Handler {
            signal: signal.clone(),
            condition,
            value,
            callback: Box::new(callback),
        });
        Ok(())
    }

    /// Counters of the event thread and the handler thread.
    pub fn event_stats(&self) -> EventStats {
        self.core.events.stats()
    }

    /// The last memory fault the driver reported, if any.
    pub fn last_memory_fault(&self) -> Option<MemoryFault> {
        *lock(&self.core.events.last_fault)
    }
}
