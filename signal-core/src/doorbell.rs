//! Doorbell signals: `amd_signal_t`s of kind `AMD_SIGNAL_KIND_DOORBELL` or
//! `AMD_SIGNAL_KIND_LEGACY_DOORBELL`, whose union word holds the address of
//! a queue's hardware doorbell. A store to such a signal rings the
//! doorbell; it never touches a value (`hsa_queue_t.doorbell_signal`, HSA
//! runtime specification 1.2 section 2.8; ROCr `DoorbellSignal`).

use core::ptr::NonNull;
use core::sync::atomic::{Ordering, fence};

use volatile::VolatilePtr;

use crate::raw::{
    AMD_SIGNAL_KIND_DOORBELL, AMD_SIGNAL_KIND_LEGACY_DOORBELL, AmdSignal, SignalKind,
    UnknownSignalKind,
};
use crate::signal::StoreOrder;

/// Why an `amd_signal_t` cannot be used as a doorbell signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DoorbellError {
    /// `kind` is no `AMD_SIGNAL_KIND_*` value.
    UnknownKind(UnknownSignalKind),
    /// `kind` is a valid kind but not a doorbell one.
    NotADoorbell(SignalKind),
    /// The doorbell address in the union word is 0.
    NullDoorbell,
    /// The doorbell address is not aligned to the doorbell's width (4 or 8).
    MisalignedDoorbell {
        /// The address found.
        address: u64,
    },
}

impl core::fmt::Display for DoorbellError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::UnknownKind(k) => write!(f, "doorbell signal: {k}"),
            Self::NotADoorbell(k) => {
                write!(f, "doorbell signal: kind is {k:?}, not a doorbell kind")
            }
            Self::NullDoorbell => f.write_str("doorbell signal: hardware_doorbell_ptr is null"),
            Self::MisalignedDoorbell { address } => {
                write!(
                    f,
                    "doorbell signal: hardware_doorbell_ptr {address:#x} is misaligned"
                )
            }
        }
    }
}

impl AmdSignal {
    /// An `amd_signal_t` of kind `AMD_SIGNAL_KIND_DOORBELL` (64-bit
    /// doorbell) or, with `legacy`, `AMD_SIGNAL_KIND_LEGACY_DOORBELL`
    /// (32-bit doorbell), whose union word holds `doorbell`'s address.
    pub fn new_doorbell(doorbell: NonNull<u64>, legacy: bool) -> Self {
        let kind = if legacy {
            AMD_SIGNAL_KIND_LEGACY_DOORBELL
        } else {
            AMD_SIGNAL_KIND_DOORBELL
        };
        Self::with(kind, doorbell.as_ptr() as usize as i64)
    }
}

/// The typed view of a doorbell signal: the only operation is a store,
/// which writes the doorbell.
#[derive(Debug)]
pub struct DoorbellSignal<'a> {
    doorbell: NonNull<u64>,
    legacy: bool,
    _signal: &'a AmdSignal,
}

// SAFETY: the doorbell is only written through volatile stores of a
// doorbell-sized word, which the hardware accepts from any CPU; several
// producers ringing one queue's doorbell concurrently is how AQL queues
// are used (`from_raw`'s contract keeps the mapping valid for 'a).
#[allow(unsafe_code)]
unsafe impl Send for DoorbellSignal<'_> {}
// SAFETY: as for `Send`: `&DoorbellSignal` only allows `store`.
#[allow(unsafe_code)]
unsafe impl Sync for DoorbellSignal<'_> {}

impl<'a> DoorbellSignal<'a> {
    /// Decodes `signal` as a doorbell signal: checks the kind, then that
    /// the union word holds a non-null, aligned address.
    ///
    /// # Safety
    ///
    /// If the checks pass, the address in the union word must be a mapped
    /// doorbell (or memory standing in for one) valid for volatile writes
    /// of the doorbell's width for `'a`.
    #[allow(unsafe_code)]
    pub unsafe fn from_raw(signal: &'a AmdSignal) -> Result<Self, DoorbellError> {
        let kind = SignalKind::try_from(signal.raw_kind()).map_err(DoorbellError::UnknownKind)?;
        let legacy = match kind {
            SignalKind::Doorbell => false,
            SignalKind::LegacyDoorbell => true,
            other => return Err(DoorbellError::NotADoorbell(other)),
        };
        let address = signal.value.load(Ordering::Acquire) as u64;
        let align = if legacy { 4 } else { 8 };
        if address % align != 0 {
            return Err(DoorbellError::MisalignedDoorbell { address });
        }
        let ptr =
            usize::try_from(address).map_err(|_| DoorbellError::MisalignedDoorbell { address })?;
        let doorbell = NonNull::new(core::ptr::with_exposed_provenance_mut::<u64>(ptr))
            .ok_or(DoorbellError::NullDoorbell)?;
        Ok(Self {
            doorbell,
            legacy,
            _signal: signal,
        })
    }

    /// Whether this is a 32-bit legacy doorbell.
    pub fn is_legacy(&self) -> bool {
        self.legacy
    }

    /// `hsa_signal_store_{relaxed,screlease}` on a doorbell signal: writes
    /// `value` to the doorbell (its low 32 bits for a legacy doorbell, as
    /// ROCr does). With `Release`, every earlier write (the AQL packet) is
    /// ordered before the doorbell write.
    #[allow(unsafe_code)]
    pub fn store(&self, value: i64, order: StoreOrder) {
        if order == StoreOrder::Release {
            fence(Ordering::Release);
        }
        if self.legacy {
            // SAFETY: `from_raw`'s contract: a valid, 4-byte aligned
            // doorbell for 'a (alignment checked there).
            let db = unsafe { VolatilePtr::new(self.doorbell.cast::<u32>()) };
            db.write(value as u32);
        } else {
            // SAFETY: `from_raw`'s contract: a valid, 8-byte aligned
            // doorbell for 'a (alignment checked there).
            let db = unsafe { VolatilePtr::new(self.doorbell) };
            db.write(value as u64);
        }
    }
}

impl core::error::Error for DoorbellError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::UnknownKind(k) => Some(k),
            _ => None,
        }
    }
}
