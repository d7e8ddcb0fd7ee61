//! The raw shared-memory layout of a signal, `amd_signal_t` from ROCr's
//! `amd_hsa_signal.h`, and its constants.
//!
//! Every word a GPU, the packet processor or another process may touch
//! while we hold the signal is an atomic; the typed views in the crate root
//! decide what each word means.

use crate::sync::{AtomicI64, AtomicU32, AtomicU64, Ordering};

/// `amd_signal_kind64_t`: the kind of a signal, `AMD_SIGNAL_KIND_*`.
pub type AmdSignalKind64 = i64;

/// `AMD_SIGNAL_KIND_INVALID`: not a signal (zeroed memory).
pub const AMD_SIGNAL_KIND_INVALID: AmdSignalKind64 = 0;
/// `AMD_SIGNAL_KIND_USER`: the value lives in the `value` word.
pub const AMD_SIGNAL_KIND_USER: AmdSignalKind64 = 1;
/// `AMD_SIGNAL_KIND_DOORBELL`: the union holds `hardware_doorbell_ptr` (a
/// 64-bit doorbell).
pub const AMD_SIGNAL_KIND_DOORBELL: AmdSignalKind64 = -1;
/// `AMD_SIGNAL_KIND_LEGACY_DOORBELL`: the union holds
/// `legacy_hardware_doorbell_ptr` (a 32-bit doorbell of pre-GFX9 parts).
pub const AMD_SIGNAL_KIND_LEGACY_DOORBELL: AmdSignalKind64 = -2;

/// `AMD_SIGNAL_ALIGN_BYTES`: an `amd_signal_t` is 64-byte aligned.
pub const AMD_SIGNAL_ALIGN_BYTES: usize = 64;

/// `amd_signal_t` (`amd_hsa_signal.h`, ROCr): the memory an
/// `hsa_signal_t` handle points at, shared with the GPU and the packet
/// processor.
///
/// The anonymous unions of the C struct are one word each here: `value`
/// also holds `hardware_doorbell_ptr` / `legacy_hardware_doorbell_ptr` for
/// doorbell kinds, and `queue_ptr` also reads as `reserved2`.
#[repr(C, align(64))]
#[derive(Debug)]
pub struct AmdSignal {
    /// `kind`: an `AMD_SIGNAL_KIND_*` value.
    pub kind: AtomicI64,
    /// `value` (or, for doorbell kinds, the doorbell address): the signal
    /// value the GPU decrements at offset 8.
    pub value: AtomicI64,
    /// `event_mailbox_ptr`: address of the 64-bit interrupt event mailbox,
    /// or 0.
    pub event_mailbox_ptr: AtomicU64,
    /// `event_id`: the KFD event id written to the mailbox.
    pub event_id: AtomicU32,
    /// `reserved1`.
    pub reserved1: AtomicU32,
    /// `start_ts`: the packet processor's start timestamp (GPU clock).
    pub start_ts: AtomicU64,
    /// `end_ts`: the packet processor's end timestamp (GPU clock).
    pub end_ts: AtomicU64,
    /// `queue_ptr` / `reserved2`: the `amd_queue_t` of a doorbell signal.
    pub queue_ptr: AtomicU64,
    /// `reserved3[2]`.
    pub reserved3: [AtomicU32; 2],
}

// The layout of `amd_signal_t` (not under loom, whose atomics are bigger).
#[cfg(not(loom))]
const _: () = {
    use core::mem::{align_of, offset_of, size_of};
    assert!(size_of::<AmdSignal>() == 64);
    assert!(align_of::<AmdSignal>() == AMD_SIGNAL_ALIGN_BYTES);
    assert!(offset_of!(AmdSignal, kind) == 0);
    assert!(offset_of!(AmdSignal, value) == 8);
    assert!(offset_of!(AmdSignal, event_mailbox_ptr) == 16);
    assert!(offset_of!(AmdSignal, event_id) == 24);
    assert!(offset_of!(AmdSignal, reserved1) == 28);
    assert!(offset_of!(AmdSignal, start_ts) == 32);
    assert!(offset_of!(AmdSignal, end_ts) == 40);
    assert!(offset_of!(AmdSignal, queue_ptr) == 48);
    assert!(offset_of!(AmdSignal, reserved3) == 56);
};

impl AmdSignal {
    const_unless_loom! {
    /// A signal with every word zero (`AMD_SIGNAL_KIND_INVALID`).
    pub fn zeroed() -> Self {
        Self::with(AMD_SIGNAL_KIND_INVALID, 0)
    }
    }

    const_unless_loom! {
    /// A signal of `kind` whose value word holds `value`, everything else 0.
    pub fn with(kind: AmdSignalKind64, value: i64) -> Self {
        Self {
            kind: AtomicI64::new(kind),
            value: AtomicI64::new(value),
            event_mailbox_ptr: AtomicU64::new(0),
            event_id: AtomicU32::new(0),
            reserved1: AtomicU32::new(0),
            start_ts: AtomicU64::new(0),
            end_ts: AtomicU64::new(0),
            queue_ptr: AtomicU64::new(0),
            reserved3: [AtomicU32::new(0), AtomicU32::new(0)],
        }
    }
    }

    /// The raw kind word, for decoding with [`SignalKind::try_from`].
    pub fn raw_kind(&self) -> AmdSignalKind64 {
        self.kind.load(Ordering::Acquire)
    }
}

/// The kind of a signal, decoded from the raw `kind` word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SignalKind {
    /// `AMD_SIGNAL_KIND_INVALID`.
    Invalid,
    /// `AMD_SIGNAL_KIND_USER`: a value signal.
    User,
    /// `AMD_SIGNAL_KIND_DOORBELL`: stores go to a 64-bit doorbell.
    Doorbell,
    /// `AMD_SIGNAL_KIND_LEGACY_DOORBELL`: stores go to a 32-bit doorbell.
    LegacyDoorbell,
}

impl SignalKind {
    /// The `AMD_SIGNAL_KIND_*` value.
    pub const fn raw(self) -> AmdSignalKind64 {
        match self {
            Self::Invalid => AMD_SIGNAL_KIND_INVALID,
            Self::User => AMD_SIGNAL_KIND_USER,
            Self::Doorbell => AMD_SIGNAL_KIND_DOORBELL,
            Self::LegacyDoorbell => AMD_SIGNAL_KIND_LEGACY_DOORBELL,
        }
    }
}

/// A `kind` word that is none of the `AMD_SIGNAL_KIND_*` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct UnknownSignalKind(pub AmdSignalKind64);

impl core::fmt::Display for UnknownSignalKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "amd_signal_t.kind {} is no AMD_SIGNAL_KIND_* value",
            self.0
        )
    }
}

impl TryFrom<AmdSignalKind64> for SignalKind {
    type Error = UnknownSignalKind;

    fn try_from(raw: AmdSignalKind64) -> Result<Self, Self::Error> {
        match raw {
            AMD_SIGNAL_KIND_INVALID => Ok(Self::Invalid),
            AMD_SIGNAL_KIND_USER => Ok(Self::User),
            AMD_SIGNAL_KIND_DOORBELL => Ok(Self::Doorbell),
            AMD_SIGNAL_KIND_LEGACY_DOORBELL => Ok(Self::LegacyDoorbell),
            other => Err(UnknownSignalKind(other)),
        }
    }
}

impl core::error::Error for UnknownSignalKind {}
