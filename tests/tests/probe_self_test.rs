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
        implicit_padding: false,
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

/// With implicit padding allowed, only the gaps C's alignment makes pass:
/// glibc's `struct r_debug` with `r_map` forgotten still shows a hole.
#[test]
fn implicit_padding_admits_alignment_gaps_only() {
    tests::require_header("/usr/include/link.h", "libc6-dev");
    let field = |c_field, offset, size| FieldLayout {
        c_field,
        offset,
        size,
    };
    let full = StructLayout {
        c_type: "struct r_debug",
        size: 40,
        align: 8,
        fields: vec![
            field("r_version", 0, 4),
            field("r_map", 8, 8),
            field("r_brk", 16, 8),
            field("r_state", 24, 4),
            field("r_ldbase", 32, 8),
        ],
        implicit_padding: true,
    };
    let includes = &["stddef.h", "link.h"];
    assert_eq!(
        compare_layouts("self_test_padding", includes, std::slice::from_ref(&full)),
        Vec::<String>::new()
    );
    let mut forgot = full.clone();
    forgot.fields.remove(1);
    assert_eq!(
        compare_layouts("self_test_padding_forgot", includes, &[forgot]),
        vec!["struct r_debug: bytes 4..16 (before `r_brk`) belong to no listed field".to_owned()]
    );
    // Without the allowance, the padding itself is a hole.
    let strict = StructLayout {
        implicit_padding: false,
        ..full
    };
    assert_eq!(
        compare_layouts("self_test_padding_strict", includes, &[strict]).len(),
        2
    );
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
