//! ABI parity of `signal-core` with ROCr 5.2.3's real headers
//! (`/usr/include/hsa/amd_hsa_signal.h` and `hsa.h`, Debian's
//! `libhsa-runtime-dev`): a C probe prints the size, alignment and every
//! field's offset and size of `amd_signal_t`, and the values of the signal
//! kind, condition and wait-state constants; both are compared with the
//! Rust definitions.

use signal_core::raw::{
    AMD_SIGNAL_ALIGN_BYTES, AMD_SIGNAL_KIND_DOORBELL, AMD_SIGNAL_KIND_INVALID,
    AMD_SIGNAL_KIND_LEGACY_DOORBELL, AMD_SIGNAL_KIND_USER, AmdSignal,
};
use signal_core::*;
use tests::{compare_constants, compare_layouts, layout, require_header};

const HEADERS: &[&str] = &["hsa/hsa.h", "hsa/amd_hsa_signal.h"];

fn require_headers() {
    for h in HEADERS {
        require_header(&format!("/usr/include/{h}"), "libhsa-runtime-dev");
    }
}

#[test]
fn amd_signal_t_matches_rocr_header() {
    require_headers();
    // The anonymous unions are one field each in Rust; C names any member
    // of them, so `value` stands for value / hardware_doorbell_ptr /
    // legacy_hardware_doorbell_ptr, checked below to share its bytes.
    let layouts = vec![layout!("amd_signal_t", AmdSignal {
        kind => "kind",
        value => "value",
        event_mailbox_ptr => "event_mailbox_ptr",
        event_id => "event_id",
        reserved1 => "reserved1",
        start_ts => "start_ts",
        end_ts => "end_ts",
        queue_ptr => "queue_ptr",
        reserved3 => "reserved3",
    })];
    let errors = compare_layouts("signal_layout", HEADERS, &layouts);
    assert!(
        errors.is_empty(),
        "amd_signal_t differs from amd_hsa_signal.h:\n{}",
        errors.join("\n")
    );
}

#[test]
fn amd_signal_t_union_members_share_the_value_word() {
    require_headers();
    let value = core::mem::offset_of!(AmdSignal, value) as i128;
    let queue = core::mem::offset_of!(AmdSignal, queue_ptr) as i128;
    let errors = compare_constants(
        "signal_unions",
        HEADERS,
        &[
            ("offsetof(amd_signal_t, hardware_doorbell_ptr)", value),
            (
                "offsetof(amd_signal_t, legacy_hardware_doorbell_ptr)",
                value,
            ),
            ("sizeof(((amd_signal_t*)0)->hardware_doorbell_ptr)", 8),
            ("offsetof(amd_signal_t, reserved2)", queue),
            ("sizeof(((amd_signal_t*)0)->reserved2)", 8),
            ("sizeof(hsa_signal_value_t)", 8),
        ],
    );
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn signal_constants_match_rocr_headers() {
    require_headers();
    let consts: Vec<(&str, i128)> = vec![
        ("AMD_SIGNAL_KIND_INVALID", AMD_SIGNAL_KIND_INVALID.into()),
        ("AMD_SIGNAL_KIND_USER", AMD_SIGNAL_KIND_USER.into()),
        ("AMD_SIGNAL_KIND_DOORBELL", AMD_SIGNAL_KIND_DOORBELL.into()),
        (
            "AMD_SIGNAL_KIND_LEGACY_DOORBELL",
            AMD_SIGNAL_KIND_LEGACY_DOORBELL.into(),
        ),
        ("AMD_SIGNAL_ALIGN_BYTES", AMD_SIGNAL_ALIGN_BYTES as i128),
        ("HSA_SIGNAL_CONDITION_EQ", HSA_SIGNAL_CONDITION_EQ.into()),
        ("HSA_SIGNAL_CONDITION_NE", HSA_SIGNAL_CONDITION_NE.into()),
        ("HSA_SIGNAL_CONDITION_LT", HSA_SIGNAL_CONDITION_LT.into()),
        ("HSA_SIGNAL_CONDITION_GTE", HSA_SIGNAL_CONDITION_GTE.into()),
        ("HSA_WAIT_STATE_BLOCKED", HSA_WAIT_STATE_BLOCKED.into()),
        ("HSA_WAIT_STATE_ACTIVE", HSA_WAIT_STATE_ACTIVE.into()),
        ("sizeof(hsa_signal_condition_t)", 4),
        ("sizeof(hsa_wait_state_t)", 4),
    ];
    let errors = compare_constants("signal_consts", HEADERS, &consts);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    // The typed views decode exactly the header's values.
    for (raw, kind) in [
        (AMD_SIGNAL_KIND_INVALID, SignalKind::Invalid),
        (AMD_SIGNAL_KIND_USER, SignalKind::User),
        (AMD_SIGNAL_KIND_DOORBELL, SignalKind::Doorbell),
        (AMD_SIGNAL_KIND_LEGACY_DOORBELL, SignalKind::LegacyDoorbell),
    ] {
        assert_eq!(SignalKind::try_from(raw), Ok(kind));
        assert_eq!(kind.raw(), raw);
    }
}

#[test]
fn signal_storage_puts_amd_signal_t_first_and_aligned() {
    // The hsa_signal_t handle is the amd_signal_t address; the host-side
    // state must follow it, not precede it.
    assert_eq!(
        core::mem::align_of::<SignalStorage>(),
        AMD_SIGNAL_ALIGN_BYTES
    );
    let s = SignalStorage::new(7);
    assert_eq!(s.handle(), core::ptr::from_ref(s.amd_signal()) as u64);
    assert_eq!(s.handle() % AMD_SIGNAL_ALIGN_BYTES as u64, 0);
}
