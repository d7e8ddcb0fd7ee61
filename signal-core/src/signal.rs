//! A waitable signal in caller-provided storage and every value operation
//! of the HSA signal API (HSA runtime specification 1.2, section 2.6).

use core::ptr::NonNull;

use crate::host::SignalHost;
use crate::protocol::WakeState;
use crate::raw::{AMD_SIGNAL_ALIGN_BYTES, AMD_SIGNAL_KIND_USER, AmdSignal, AmdSignalKind64};
use crate::sync::{AtomicI64, AtomicU64, Ordering};

/// The memory orders of the HSA load operations (`hsa_signal_load_relaxed`,
/// `hsa_signal_load_scacquire`) and of waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LoadOrder {
    /// `_relaxed`.
    Relaxed,
    /// `_scacquire`.
    Acquire,
}

/// The memory orders of the HSA store operations (`_relaxed`,
/// `_screlease`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum StoreOrder {
    /// `_relaxed`.
    Relaxed,
    /// `_screlease`.
    Release,
}

/// The memory orders of the HSA read-modify-write operations (exchange,
/// compare-and-swap, add, subtract, and, or, xor): `_relaxed`,
/// `_scacquire`, `_screlease`, `_scacq_screl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RmwOrder {
    /// `_relaxed`.
    Relaxed,
    /// `_scacquire`.
    Acquire,
    /// `_screlease`.
    Release,
    /// `_scacq_screl`.
    AcqRel,
}

impl LoadOrder {
    /// Every load order, for exhaustive tests and tables.
    pub const ALL: [Self; 2] = [Self::Relaxed, Self::Acquire];
    pub(crate) const fn ordering(self) -> Ordering {
        match self {
            Self::Relaxed => Ordering::Relaxed,
            Self::Acquire => Ordering::Acquire,
        }
    }
}

impl StoreOrder {
    /// Every store order.
    pub const ALL: [Self; 2] = [Self::Relaxed, Self::Release];
    pub(crate) const fn ordering(self) -> Ordering {
        match self {
            Self::Relaxed => Ordering::Relaxed,
            Self::Release => Ordering::Release,
        }
    }
}

impl RmwOrder {
    /// Every read-modify-write order.
    pub const ALL: [Self; 4] = [Self::Relaxed, Self::Acquire, Self::Release, Self::AcqRel];
    pub(crate) const fn ordering(self) -> Ordering {
        match self {
            Self::Relaxed => Ordering::Relaxed,
            Self::Acquire => Ordering::Acquire,
            Self::Release => Ordering::Release,
            Self::AcqRel => Ordering::AcqRel,
        }
    }
    /// The order of the load when a compare-and-swap fails (no store, so no
    /// release half).
    pub(crate) const fn failure_ordering(self) -> Ordering {
        match self {
            Self::Relaxed | Self::Release => Ordering::Relaxed,
            Self::Acquire | Self::AcqRel => Ordering::Acquire,
        }
    }
}

/// Why an `hsa_signal_t` handle names no waitable signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SignalHandleError {
    /// The handle is 0 (HSA's "no signal").
    Null,
    /// The handle is not 64-byte aligned, so it is no `amd_signal_t`.
    Misaligned {
        /// The handle.
        handle: u64,
    },
    /// The `amd_signal_t` is not of kind `AMD_SIGNAL_KIND_USER` (a
    /// doorbell signal, or not a signal at all).
    NotAUserSignal {
        /// The raw `kind` found.
        kind: AmdSignalKind64,
    },
}

impl core::fmt::Display for SignalHandleError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Null => f.write_str("hsa_signal_t: null handle"),
            Self::Misaligned { handle } => {
                write!(f, "hsa_signal_t {handle:#x}: not 64-byte aligned")
            }
            Self::NotAUserSignal { kind } => {
                write!(
                    f,
                    "hsa_signal_t: amd_signal_t.kind {kind} is not AMD_SIGNAL_KIND_USER"
                )
            }
        }
    }
}

impl core::error::Error for SignalHandleError {}

/// The 64-bit interrupt event mailbox of a signal (a slot of the KFD event
/// page), kept host-side so that safe code rewriting the shared
/// `event_mailbox_ptr` word can never redirect our writes.
#[derive(Clone, Copy, Debug)]
struct EventMailbox {
    slot: NonNull<AtomicU64>,
    event_id: u32,
}

// SAFETY: the slot is only ever accessed through atomic operations, and the
// constructor of the signal that holds it (`SignalStorage::new_interrupt`)
// requires it to stay valid for as long as the signal exists, from any
// thread.
#[allow(unsafe_code)]
unsafe impl Send for EventMailbox {}
// SAFETY: as for `Send`: shared access is atomic stores only.
#[allow(unsafe_code)]
unsafe impl Sync for EventMailbox {}

/// The storage of one waitable signal: the 64-byte `amd_signal_t` the GPU
/// and the `hsa_signal_t` handle see, followed by the host-side wake state
/// (see [`protocol`](crate::protocol)) and the event mailbox, in memory the
/// caller provides (a `static`, a stack slot, a [`SignalPool`](crate::SignalPool),
/// or memory shared with a device).
#[repr(C, align(64))]
#[derive(Debug)]
pub struct SignalStorage {
    amd: AmdSignal,
    wake: WakeState,
    mailbox: Option<EventMailbox>,
}

const _: () = assert!(core::mem::offset_of!(SignalStorage, amd) == 0);

impl SignalStorage {
    const_unless_loom! {
    /// A user signal (`AMD_SIGNAL_KIND_USER`) holding `initial`.
    pub fn new(initial: i64) -> Self {
        Self {
            amd: AmdSignal::with(AMD_SIGNAL_KIND_USER, initial),
            wake: WakeState::new(),
            mailbox: None,
        }
    }
    }

    /// An interrupt signal: a user signal whose every value change also
    /// writes `event_id` (zero-extended, release) to the 64-bit event
    /// `mailbox` and calls [`EventNotifier::notify_event`](crate::EventNotifier),
    /// as a GPU does before `s_sendmsg`. The mailbox address and id are also
    /// published in `event_mailbox_ptr` / `event_id` for the GPU.
    ///
    /// # Safety
    ///
    /// `mailbox` must point to a 64-bit word, 8-byte aligned, valid for
    /// atomic writes from any thread for as long as the returned storage
    /// (or any move of it) exists.
    pub unsafe fn new_interrupt(initial: i64, mailbox: NonNull<AtomicU64>, event_id: u32) -> Self {
        let s = Self {
            amd: AmdSignal::with(AMD_SIGNAL_KIND_USER, initial),
            wake: WakeState::new(),
            mailbox: Some(EventMailbox {
                slot: mailbox,
                event_id,
            }),
        };
        s.amd
            .event_mailbox_ptr
            .store(mailbox.as_ptr() as u64, Ordering::Relaxed);
        s.amd.event_id.store(event_id, Ordering::Relaxed);
        s
    }

    /// The shared `amd_signal_t` (its address is the `hsa_signal_t` handle).
    pub fn amd_signal(&self) -> &AmdSignal {
        &self.amd
    }

    /// The `hsa_signal_t` handle: the address of the `amd_signal_t`, which
    /// is also the address of the whole storage (`amd` is at offset 0).
    /// The provenance of the whole storage is exposed, so
    /// [`from_handle`](Self::from_handle) may turn it back into a reference
    /// to all of it (exposing only the `amd` field's, as before, made that
    /// reference reach past what the exposed pointer may access, which
    /// Miri reports).
    pub fn handle(&self) -> u64 {
        core::ptr::from_ref(self).expose_provenance() as u64
    }

    /// The storage behind an `hsa_signal_t` handle (as found in an AQL
    /// packet's `completion_signal`), after checking that it is non-null,
    /// 64-byte aligned and that its `amd_signal_t` is of kind
    /// `AMD_SIGNAL_KIND_USER`.
    ///
    /// For signals of a [`SignalPool`](crate::SignalPool),
    /// [`SignalPool::lookup`](crate::SignalPool::lookup) and
    /// [`SignalPool::get`](crate::SignalPool::get) do the same without
    /// `unsafe` and also refuse a freed signal.
    ///
    /// # Safety
    ///
    /// A non-null, aligned `handle` must be the [`handle`](Self::handle) of
    /// a `SignalStorage` that is not moved, dropped, or written through a
    /// `&mut` during `'a`. A slot of a `SignalPool` qualifies for as long
    /// as the pool lives (reuse re-initialises it through `&`); the
    /// reference then names whatever signal the slot holds.
    pub unsafe fn from_handle<'a>(handle: u64) -> Result<&'a Self, SignalHandleError> {
        if handle == 0 {
            return Err(SignalHandleError::Null);
        }
        if handle % AMD_SIGNAL_ALIGN_BYTES as u64 != 0 {
            return Err(SignalHandleError::Misaligned { handle });
        }
        let address =
            usize::try_from(handle).map_err(|_| SignalHandleError::Misaligned { handle })?;
        let ptr = core::ptr::with_exposed_provenance::<Self>(address);
        // SAFETY: the caller guarantees a live, unmoved `SignalStorage`
        // at this address for 'a; `amd` is its first field, at offset 0.
        let storage = unsafe { &*ptr };
        match storage.amd.raw_kind() {
            AMD_SIGNAL_KIND_USER => Ok(storage),
            kind => Err(SignalHandleError::NotAUserSignal { kind }),
        }
    }

    /// Loom builds only: this signal with a fence of the wake protocol left
    /// out (see [`LoomMutation`](crate::protocol::LoomMutation)).
    #[cfg(loom)]
    pub fn with_mutation(mut self, mutation: crate::protocol::LoomMutation) -> Self {
        self.wake = self.wake.with_mutation(mutation);
        self
    }

    /// The host-side wake state.
    pub fn wake_state(&self) -> &WakeState {
        &self.wake
    }

    /// The event id of an interrupt signal.
    pub fn event_id(&self) -> Option<u32> {
        self.mailbox.map(|m| m.event_id)
    }

    /// Binds the signal to the host that blocks, wakes, tells time and
    /// raises events for it.
    pub fn bind<'a, H: SignalHost + ?Sized>(&'a self, host: &'a H) -> Signal<'a, H> {
        Signal {
            storage: self,
            host,
        }
    }

    /// Makes a user signal holding `initial` again, as [`new`](Self::new)
    /// does, with atomic stores through `&self` (a reused pool slot), so a
    /// reference another thread still holds to it stays sound.
    ///
    /// The wake state is kept: a waiter still registered from the previous
    /// life unregisters itself, and the wake sequence may hold any value.
    /// The host-side mailbox is not touched: pool slots are made by
    /// [`new`](Self::new) and never have one.
    #[cfg(not(loom))]
    pub(crate) fn reinitialize(&self, initial: i64) {
        let amd = &self.amd;
        amd.kind.store(AMD_SIGNAL_KIND_USER, Ordering::Relaxed);
        amd.value.store(initial, Ordering::Relaxed);
        amd.event_mailbox_ptr.store(0, Ordering::Relaxed);
        amd.event_id.store(0, Ordering::Relaxed);
        amd.reserved1.store(0, Ordering::Relaxed);
        amd.start_ts.store(0, Ordering::Relaxed);
        amd.end_ts.store(0, Ordering::Relaxed);
        amd.queue_ptr.store(0, Ordering::Relaxed);
        for word in &amd.reserved3 {
            word.store(0, Ordering::Relaxed);
        }
    }

    #[inline]
    pub(crate) fn value(&self) -> &AtomicI64 {
        &self.amd.value
    }
}

/// A signal bound to its host: the HSA signal operations.
///
/// Every operation that changes the value (all but the loads, the silent
/// stores and a compare-and-swap that fails) then writes the event mailbox
/// and raises the event of an interrupt signal, and wakes blocked waiters.
#[derive(Debug)]
pub struct Signal<'a, H: ?Sized> {
    pub(crate) storage: &'a SignalStorage,
    pub(crate) host: &'a H,
}

impl<H: ?Sized> Clone for Signal<'_, H> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<H: ?Sized> Copy for Signal<'_, H> {}

impl<'a, H: SignalHost + ?Sized> Signal<'a, H> {
    /// The storage this handle operates on.
    pub fn storage(&self) -> &'a SignalStorage {
        self.storage
    }

    /// `hsa_signal_load_{relaxed,scacquire}`: the current value.
    #[inline]
    pub fn load(&self, order: LoadOrder) -> i64 {
        self.storage.value().load(order.ordering())
    }

    /// `hsa_signal_store_{relaxed,screlease}`: sets the value and wakes
    /// waiters.
    #[inline]
    pub fn store(&self, value: i64, order: StoreOrder) {
        self.storage.value().store(value, order.ordering());
        self.changed();
    }

    /// `hsa_signal_silent_store_{relaxed,screlease}`: sets the value
    /// without notifying anyone; blocked waiters may keep sleeping (as the
    /// specification allows) until a later notifying operation or their
    /// timeout, spinning waiters see it.
    #[inline]
    pub fn silent_store(&self, value: i64, order: StoreOrder) {
        self.storage.value().store(value, order.ordering());
    }

    /// `hsa_signal_exchange_*`: sets the value, returns the previous one.
    #[inline]
    pub fn exchange(&self, value: i64, order: RmwOrder) -> i64 {
        let old = self.storage.value().swap(value, order.ordering());
        self.changed();
        old
    }

    /// `hsa_signal_cas_*`: sets the value to `desired` if it is `expected`;
    /// returns the value observed (equal to `expected` on success).
    #[inline]
    pub fn cas(&self, expected: i64, desired: i64, order: RmwOrder) -> i64 {
        match self.storage.value().compare_exchange(
            expected,
            desired,
            order.ordering(),
            order.failure_ordering(),
        ) {
            Ok(old) => {
                self.changed();
                old
            }
            Err(observed) => observed,
        }
    }

    /// `hsa_signal_add_*` (wrapping); returns the previous value.
    #[inline]
    pub fn add(&self, value: i64, order: RmwOrder) -> i64 {
        let old = self.storage.value().fetch_add(value, order.ordering());
        self.changed();
        old
    }

    /// `hsa_signal_subtract_*` (wrapping); returns the previous value.
    #[inline]
    pub fn subtract(&self, value: i64, order: RmwOrder) -> i64 {
        let old = self.storage.value().fetch_sub(value, order.ordering());
        self.changed();
        old
    }

    /// `hsa_signal_and_*`; returns the previous value.
    #[inline]
    pub fn and(&self, value: i64, order: RmwOrder) -> i64 {
        let old = self.storage.value().fetch_and(value, order.ordering());
        self.changed();
        old
    }

    /// `hsa_signal_or_*`; returns the previous value.
    #[inline]
    pub fn or(&self, value: i64, order: RmwOrder) -> i64 {
        let old = self.storage.value().fetch_or(value, order.ordering());
        self.changed();
        old
    }

    /// `hsa_signal_xor_*`; returns the previous value.
    #[inline]
    pub fn xor(&self, value: i64, order: RmwOrder) -> i64 {
        let old = self.storage.value().fetch_xor(value, order.ordering());
        self.changed();
        old
    }

    /// After a value change: the interrupt event, then the host waiters.
    #[inline]
    fn changed(&self) {
        if let Some(mailbox) = self.storage.mailbox {
            self.raise_event(mailbox);
        }
        self.storage.wake.notify(self.host);
    }

    #[cold]
    #[allow(unsafe_code)]
    fn raise_event(&self, mailbox: EventMailbox) {
        // SAFETY: `new_interrupt`'s contract keeps the slot a valid,
        // aligned 64-bit atomic for the storage's whole life.
        let slot = unsafe { mailbox.slot.as_ref() };
        slot.store(u64::from(mailbox.event_id), Ordering::Release);
        trace!("signal event {} raised", mailbox.event_id);
        self.host.notify_event(mailbox.event_id);
    }
}
