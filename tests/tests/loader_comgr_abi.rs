//! The `amd_comgr` declarations of the metadata benchmark
//! (`tests/benches/metadata/comgr.rs`) against the real header,
//! `/usr/include/amd_comgr.h` from Debian's `libamd-comgr-dev`: handle
//! layouts and every enum value the benchmark uses, via a C probe.

#[path = "../benches/metadata/comgr.rs"]
mod comgr;

use tests::{compare_constants, compare_layouts, layout, require_header};

#[test]
fn comgr_declarations_match_amd_comgr_h() {
    require_header("/usr/include/amd_comgr.h", "libamd-comgr-dev");
    let mut diffs = compare_layouts(
        "comgr_layouts",
        &["amd_comgr.h"],
        &[
            layout!("amd_comgr_data_t", comgr::amd_comgr_data_t { handle => "handle" }),
            layout!("amd_comgr_metadata_node_t", comgr::amd_comgr_metadata_node_t { handle => "handle" }),
        ],
    );
    diffs.extend(compare_constants(
        "comgr_constants",
        &["amd_comgr.h"],
        &[
            (
                "sizeof(amd_comgr_status_t)",
                std::mem::size_of::<comgr::amd_comgr_status_t>() as i128,
            ),
            (
                "AMD_COMGR_STATUS_SUCCESS",
                comgr::AMD_COMGR_STATUS_SUCCESS.into(),
            ),
            (
                "AMD_COMGR_DATA_KIND_EXECUTABLE",
                comgr::AMD_COMGR_DATA_KIND_EXECUTABLE.into(),
            ),
            (
                "sizeof(amd_comgr_data_kind_t)",
                std::mem::size_of::<std::ffi::c_int>() as i128,
            ),
            (
                "AMD_COMGR_METADATA_KIND_NULL",
                comgr::AMD_COMGR_METADATA_KIND_NULL.into(),
            ),
            (
                "AMD_COMGR_METADATA_KIND_STRING",
                comgr::AMD_COMGR_METADATA_KIND_STRING.into(),
            ),
            (
                "AMD_COMGR_METADATA_KIND_MAP",
                comgr::AMD_COMGR_METADATA_KIND_MAP.into(),
            ),
            (
                "AMD_COMGR_METADATA_KIND_LIST",
                comgr::AMD_COMGR_METADATA_KIND_LIST.into(),
            ),
            (
                "sizeof(amd_comgr_metadata_kind_t)",
                std::mem::size_of::<std::ffi::c_int>() as i128,
            ),
        ],
    ));
    assert!(
        diffs.is_empty(),
        "amd_comgr.h disagrees:\n{}",
        diffs.join("\n")
    );
}
