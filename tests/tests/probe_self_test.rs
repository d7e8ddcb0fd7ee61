//! The ABI checker must itself catch what it exists to catch: a wrong
//! offset, a wrong size, a forgotten field, a wrong constant.

use tests::{FieldLayout, StructLayout, compare_constants, compare_layouts};

#[test]
fn checker_reports_wrong_offsets_sizes_and_forgotten_fields() {
    tests::require_header("/usr/include/hsa/hsa.h", "libhsa-runtime-dev");
    // hsa_queue_t with `features` forgotten and `size` at a wrong offset.
    let l = StructLayout {
        c_type: "hsa_queue_t",
        size: 40,
        align: 8,
        fields: vec![
            FieldLayout {
                c_field: "type",
                offset: 0,
                size: 4,
            },
            FieldLayout {
                c_field: "base_address",
                offset: 8,
                size: 8,
            },
            FieldLayout {
                c_field: "doorbell_signal",
                offset: 16,
                size: 8,
            },
            FieldLayout {
                c_field: "size",
                offset: 28,
                size: 4,
            },
            FieldLayout {
                c_field: "reserved1",
                offset: 28,
                size: 8,
            },
            FieldLayout {
                c_field: "id",
                offset: 32,
                size: 8,
            },
        ],
    };
    let errors = compare_layouts("self_test_layout", &["hsa/hsa.h"], &[l]);
    let text = errors.join("\n");
    assert!(
        text.contains("hsa_queue_t: bytes 4..8 (before `base_address`) belong to no listed field"),
        "{text}"
    );
    assert!(
        text.contains("hsa_queue_t.size: offset C 24 != Rust 28"),
        "{text}"
    );
    assert!(
        text.contains("hsa_queue_t.reserved1: size C 4 != Rust 8"),
        "{text}"
    );
    assert_eq!(errors.len(), 3, "{text}");
}

#[test]
fn checker_reports_wrong_constants() {
    tests::require_header("/usr/include/hsa/hsa.h", "libhsa-runtime-dev");
    let errors = compare_constants(
        "self_test_consts",
        &["hsa/hsa.h"],
        &[
            ("HSA_PACKET_TYPE_BARRIER_OR", 5),
            ("HSA_FENCE_SCOPE_SYSTEM", 3),
        ],
    );
    assert_eq!(
        errors,
        vec!["HSA_FENCE_SCOPE_SYSTEM: C Some(2) != Rust 3".to_owned()]
    );
}
