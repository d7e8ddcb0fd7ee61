//! KFD events (`kfd_events.c`): signal events with their slots in the
//! event page, memory- and hardware-exception events, and the waits.
//!
//! The semantics are the driver's: `set_event` bumps the event's age and
//! leaves it signaled unless it auto-resets and a waiter consumed it; a
//! waiter is activated if the event was signaled when it started waiting,
//! if its age moved since, or if the age the caller passed (1.14
//! `last_event_age`) is stale; destroying an event a waiter holds makes
//! the wait fail (`EIO`).

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use kfd::ioctl::consts::*;
use kfd::ioctl::raw;
use rustix::io::Errno;

use crate::memory::HostView;

/// First id of the events that have no slot (`KFD_FIRST_NONSIGNAL_EVENT_ID`).
const FIRST_NONSIGNAL_EVENT_ID: u32 = 0x8000_0000;
/// A slot nobody signalled (`UNSIGNALED_EVENT_SLOT`).
pub(crate) const UNSIGNALED_EVENT_SLOT: u64 = u64::MAX;
/// `KFD_EVENT_TIMEOUT_IMMEDIATE` / `_INFINITE`.
const TIMEOUT_IMMEDIATE: u32 = 0;
const TIMEOUT_INFINITE: u32 = u32::MAX;

#[derive(Debug, Clone)]
struct Event {
    event_type: u32,
    auto_reset: bool,
    signaled: bool,
    age: u64,
    waiters: u32,
    memory_exception: raw::HsaMemoryExceptionData,
    hw_exception: raw::HsaHwExceptionData,
}

/// The process's signal page: the driver's own (mapped by the client
/// through `/dev/kfd`) or a buffer the client allocated (dGPUs).
#[derive(Debug, Clone)]
pub(crate) struct SignalPage {
    pub(crate) view: Arc<HostView>,
    /// Set when the page is a client buffer: its handle (FREE refuses it).
    pub(crate) bo_handle: Option<u64>,
}

#[derive(Debug, Default)]
struct Table {
    events: BTreeMap<u32, Event>,
    page: Option<SignalPage>,
    /// How many slots the client can see (`signal_mapped_size / 8`).
    mapped_slots: u32,
    signal_event_count: u32,
}

/// The event table of the process, and the condition waiters sleep on.
#[derive(Debug, Default)]
pub(crate) struct Events {
    table: Mutex<Table>,
    changed: Condvar,
}

fn lock(m: &Mutex<Table>) -> MutexGuard<'_, Table> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Events {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// The handle of the client buffer used as event page.
    pub(crate) fn page_handle(&self) -> Option<u64> {
        lock(&self.table).page.as_ref().and_then(|p| p.bo_handle)
    }

    /// `kfd_kmap_event_page`: the client's buffer becomes the signal page.
    pub(crate) fn set_page(&self, page: SignalPage) -> Result<(), Errno> {
        let mut t = lock(&self.table);
        if t.page.is_some() {
            return Err(Errno::INVAL);
        }
        let slots = (page.view.len() / 8).min(KFD_SIGNAL_EVENT_LIMIT as usize) as u32;
        fill_unsignaled(&page.view);
        t.mapped_slots = slots;
        t.page = Some(page);
        Ok(())
    }

    /// The driver's own page, created on the first signal event.
    fn ensure_page(t: &mut Table) -> Result<(), Errno> {
        if t.page.is_some() {
            return Ok(());
        }
        let fd = rustix::fs::memfd_create("sim-kfd-events", rustix::fs::MemfdFlags::CLOEXEC)?;
        let size = KFD_SIGNAL_EVENT_LIMIT as usize * 8;
        rustix::fs::ftruncate(&fd, size as u64)?;
        let view = Arc::new(HostView::map_fd_keep(fd, size)?);
        fill_unsignaled(&view);
        t.page = Some(SignalPage {
            view,
            bo_handle: None,
        });
        // The driver lets the first 256 slots be used until the page is mmapped.
        t.mapped_slots = 256;
        Ok(())
    }

    /// The client mmapped the driver's page with `len` bytes (`kfd_event_mmap`).
    pub(crate) fn mapped(&self, len: usize) -> Result<Arc<HostView>, Errno> {
        let mut t = lock(&self.table);
        if len > KFD_SIGNAL_EVENT_LIMIT as usize * 8 {
            return Err(Errno::INVAL);
        }
        let page = t.page.clone().ok_or(Errno::INVAL)?;
        if page.bo_handle.is_some() {
            return Err(Errno::INVAL);
        }
        t.mapped_slots = (len / 8) as u32;
        Ok(page.view)
    }

    /// `kfd_event_create`.
    pub(crate) fn create(&self, a: &mut raw::CreateEventArgs) -> Result<(), Errno> {
        let mut t = lock(&self.table);
        if t.signal_event_count == 0 {
            // Id 0 is reserved (kfd_event_init_process).
            t.signal_event_count = 1;
        }
        let ev = Event {
            event_type: a.event_type,
            auto_reset: a.auto_reset != 0,
            signaled: false,
            age: 1,
            waiters: 0,
            memory_exception: Default::default(),
            hw_exception: Default::default(),
        };
        a.event_page_offset = 0;
        let id = match a.event_type {
            KFD_IOC_EVENT_SIGNAL | KFD_IOC_EVENT_DEBUG_EVENT => {
                Self::ensure_page(&mut t)?;
                if t.signal_event_count >= t.mapped_slots {
                    return Err(Errno::NOSPC);
                }
                let id = (1..t.mapped_slots)
                    .find(|id| !t.events.contains_key(id))
                    .ok_or(Errno::NOSPC)?;
                t.signal_event_count += 1;
                if let Some(p) = &t.page {
                    store_slot(&p.view, id, UNSIGNALED_EVENT_SLOT);
                }
                a.event_page_offset = crate::device::KFD_MMAP_TYPE_EVENTS;
                a.event_slot_index = id;
                id
            }
            _ => (FIRST_NONSIGNAL_EVENT_ID..=u32::MAX)
                .find(|id| !t.events.contains_key(id))
                .ok_or(Errno::NOSPC)?,
        };
        t.events.insert(id, ev);
        a.event_id = id;
        a.event_trigger_data = id;
        Ok(())
    }

    /// `kfd_event_destroy`.
    pub(crate) fn destroy(&self, id: u32) -> Result<(), Errno> {
        let mut t = lock(&self.table);
        let ev = t.events.remove(&id).ok_or(Errno::INVAL)?;
        if matches!(
            ev.event_type,
            KFD_IOC_EVENT_SIGNAL | KFD_IOC_EVENT_DEBUG_EVENT
        ) {
            t.signal_event_count -= 1;
        }
        drop(t);
        self.changed.notify_all();
        Ok(())
    }

    fn set_locked(ev: &mut Event) {
        ev.signaled = !ev.auto_reset || ev.waiters == 0;
        ev.age = ev.age.wrapping_add(1);
        if ev.age == 0 {
            ev.age = 2;
        }
    }

    /// `kfd_set_event` (CPU): signal events only.
    pub(crate) fn set(&self, id: u32) -> Result<(), Errno> {
        let mut t = lock(&self.table);
        let ev = t.events.get_mut(&id).ok_or(Errno::INVAL)?;
        if ev.event_type != KFD_IOC_EVENT_SIGNAL {
            return Err(Errno::INVAL);
        }
        Self::set_locked(ev);
        drop(t);
        self.changed.notify_all();
        Ok(())
    }

    /// `kfd_reset_event`.
    pub(crate) fn reset(&self, id: u32) -> Result<(), Errno> {
        let mut t = lock(&self.table);
        let ev = t.events.get_mut(&id).ok_or(Errno::INVAL)?;
        if ev.event_type != KFD_IOC_EVENT_SIGNAL {
            return Err(Errno::INVAL);
        }
        ev.signaled = false;
        Ok(())
    }

    /// `kfd_signal_event_interrupt`: the firmware wrote `partial_id` to a
    /// mailbox and raised an interrupt; the event whose slot is no longer
    /// unsignaled is set and its slot acknowledged. Returns whether a
    /// waiter blocked on a set event was woken.
    pub(crate) fn interrupt(&self, partial_id: u32) -> bool {
        let mut t = lock(&self.table);
        let Some(page) = t.page.clone() else {
            return false;
        };
        // Whether a set event has a waiter to wake (no futex syscall
        // for an interrupt nobody sleeps on).
        let mut wake = false;
        let mut raise = |t: &mut Table, id: u32| {
            if load_slot(&page.view, id) == UNSIGNALED_EVENT_SLOT {
                return;
            }
            if let Some(ev) = t.events.get_mut(&id) {
                if matches!(
                    ev.event_type,
                    KFD_IOC_EVENT_SIGNAL | KFD_IOC_EVENT_DEBUG_EVENT
                ) {
                    store_slot(&page.view, id, UNSIGNALED_EVENT_SLOT);
                    wake |= ev.waiters > 0;
                    Self::set_locked(ev);
                }
            }
        };
        // kfd_signal_event_interrupt: the event the id names when its slot
        // is signaled, else an exhaustive search of the signaled slots (a
        // trap handler's MSG_INTERRUPT carries data 0, no event id).
        if t.events.contains_key(&partial_id)
            && load_slot(&page.view, partial_id) != UNSIGNALED_EVENT_SLOT
        {
            raise(&mut t, partial_id);
        } else {
            // No exact id: scan the signal events (no allocation on the
            // common path above).
            let ids: Vec<u32> = t
                .events
                .range(..KFD_SIGNAL_EVENT_LIMIT)
                .map(|(k, _)| *k)
                .collect();
            for id in ids {
                raise(&mut t, id);
            }
        }
        drop(t);
        if wake {
            self.changed.notify_all();
        }
        wake
    }

    /// `kfd_signal_vm_fault_event`: every memory event gets `data`.
    pub(crate) fn memory_fault(&self, data: raw::HsaMemoryExceptionData) {
        let mut t = lock(&self.table);
        for ev in t.events.values_mut() {
            if ev.event_type == KFD_IOC_EVENT_MEMORY {
                ev.memory_exception = data;
                Self::set_locked(ev);
            }
        }
        drop(t);
        self.changed.notify_all();
    }

    /// `kfd_wait_on_events`. `events` is the caller's array (read, and
    /// written back for activated memory and age-enabled signal events).
    pub(crate) fn wait(
        &self,
        events: &mut [raw::EventData],
        all: bool,
        timeout_ms: u32,
    ) -> Result<u32, Errno> {
        struct Waiter {
            id: u32,
            start_age: u64,
            activated: bool,
            age_enabled: bool,
        }
        let mut t = lock(&self.table);
        let mut waiters: Vec<Waiter> = Vec::with_capacity(events.len());
        let undo = |t: &mut Table, waiters: &[Waiter]| {
            for w in waiters {
                if let Some(ev) = t.events.get_mut(&w.id) {
                    ev.waiters = ev.waiters.saturating_sub(1);
                }
            }
        };
        for e in events.iter() {
            let Some(ev) = t.events.get_mut(&e.event_id) else {
                undo(&mut t, &waiters);
                return Err(Errno::INVAL);
            };
            let mut activated = ev.signaled;
            ev.signaled = ev.signaled && !ev.auto_reset;
            let last_age = e.payload.signal_event_data().last_event_age;
            let age_enabled = ev.event_type == KFD_IOC_EVENT_SIGNAL && last_age != 0;
            if age_enabled && ev.age != last_age {
                activated = true;
            }
            ev.waiters += 1;
            waiters.push(Waiter {
                id: e.event_id,
                start_age: ev.age,
                activated,
                age_enabled,
            });
        }
        let deadline = match timeout_ms {
            TIMEOUT_IMMEDIATE => Some(Instant::now()),
            TIMEOUT_INFINITE => None,
            ms => Some(Instant::now() + Duration::from_millis(u64::from(ms.min(0x7fff_ffff)))),
        };
        let result = loop {
            let mut count = 0;
            let mut failed = false;
            let mut any = false;
            for w in waiters.iter_mut() {
                match t.events.get(&w.id) {
                    None => failed = true,
                    Some(ev) => {
                        if ev.age != w.start_age {
                            w.activated = true;
                        }
                        if w.activated {
                            count += 1;
                            any = true;
                        }
                    }
                }
            }
            if failed {
                break KFD_IOC_WAIT_RESULT_FAIL;
            }
            if (all && count == waiters.len()) || (!all && any) {
                break KFD_IOC_WAIT_RESULT_COMPLETE;
            }
            match deadline {
                None => {
                    t = self.changed.wait(t).unwrap_or_else(|e| e.into_inner());
                }
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        break KFD_IOC_WAIT_RESULT_TIMEOUT;
                    }
                    t = self
                        .changed
                        .wait_timeout(t, d - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
            }
        };
        if result == KFD_IOC_WAIT_RESULT_COMPLETE {
            for (w, e) in waiters.iter().zip(events.iter_mut()) {
                if !w.activated {
                    continue;
                }
                let Some(ev) = t.events.get(&w.id) else {
                    continue;
                };
                if ev.event_type == KFD_IOC_EVENT_MEMORY {
                    e.payload = payload_memory(ev.memory_exception);
                } else if ev.event_type == KFD_IOC_EVENT_HW_EXCEPTION {
                    e.payload = payload_hw(ev.hw_exception);
                } else if w.age_enabled {
                    e.payload = raw::EventDataPayload::from_signal(raw::HsaSignalEventData {
                        last_event_age: ev.age,
                    });
                }
            }
        }
        undo(&mut t, &waiters);
        if result == KFD_IOC_WAIT_RESULT_FAIL {
            return Err(Errno::IO);
        }
        Ok(result)
    }
}

/// A payload holding memory-exception data (the union's first member).
fn payload_memory(d: raw::HsaMemoryExceptionData) -> raw::EventDataPayload {
    let mut p = raw::EventDataPayload::default();
    // The default payload is the memory-exception member; rebuild it from bytes.
    let bytes = as_bytes(&d);
    set_payload_bytes(&mut p, &bytes);
    p
}

fn payload_hw(d: raw::HsaHwExceptionData) -> raw::EventDataPayload {
    let mut p = raw::EventDataPayload::default();
    let bytes = as_bytes(&d);
    set_payload_bytes(&mut p, &bytes);
    p
}

#[allow(unsafe_code)]
fn as_bytes<T: Copy>(v: &T) -> Vec<u8> {
    let mut out = vec![0u8; std::mem::size_of::<T>()];
    // SAFETY: `T` is one of the plain-integer KFD structs (no padding is
    // read as anything but bytes); the copy is within both buffers.
    unsafe {
        std::ptr::copy_nonoverlapping((v as *const T).cast::<u8>(), out.as_mut_ptr(), out.len())
    };
    out
}

#[allow(unsafe_code)]
fn set_payload_bytes(p: &mut raw::EventDataPayload, bytes: &[u8]) {
    let n = bytes
        .len()
        .min(std::mem::size_of::<raw::EventDataPayload>());
    // SAFETY: the payload is a `repr(C)` union of plain-integer structs;
    // any bytes are a valid value of each member; `n` fits both.
    unsafe {
        std::ptr::copy_nonoverlapping(
            bytes.as_ptr(),
            (p as *mut raw::EventDataPayload).cast::<u8>(),
            n,
        )
    };
}

fn fill_unsignaled(view: &HostView) {
    let slots = view.len() / 8;
    for i in 0..slots {
        store_slot(view, i as u32, UNSIGNALED_EVENT_SLOT);
    }
}

fn store_slot(view: &HostView, id: u32, v: u64) {
    if let Some(a) = view.atomic_u64_at(id as usize * 8) {
        a.store(v, Ordering::Release);
    }
}

fn load_slot(view: &HostView, id: u32) -> u64 {
    view.atomic_u64_at(id as usize * 8)
        .map_or(UNSIGNALED_EVENT_SLOT, |a| a.load(Ordering::Acquire))
}
