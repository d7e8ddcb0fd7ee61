//! The part of `/usr/include/amd_comgr.h` (amd_comgr 2.4, Debian's
//! libamd-comgr-dev) the metadata benchmark uses, declared here. Handles are
//! `struct { uint64_t handle; }`, statuses and kinds are C enums (`int`).
//! `tests/tests/loader_comgr_abi.rs` checks these against the header.
#![allow(non_camel_case_types, dead_code)]
use std::ffi::{c_char, c_int, c_void};

#[repr(C)]
#[derive(Clone, Copy)]
pub struct amd_comgr_data_t {
    pub handle: u64,
}
#[repr(C)]
#[derive(Clone, Copy)]
pub struct amd_comgr_metadata_node_t {
    pub handle: u64,
}
pub type amd_comgr_status_t = c_int;
pub const AMD_COMGR_STATUS_SUCCESS: amd_comgr_status_t = 0;
pub const AMD_COMGR_DATA_KIND_EXECUTABLE: c_int = 0x8;
pub const AMD_COMGR_METADATA_KIND_NULL: c_int = 0x0;
pub const AMD_COMGR_METADATA_KIND_STRING: c_int = 0x1;
pub const AMD_COMGR_METADATA_KIND_MAP: c_int = 0x2;
pub const AMD_COMGR_METADATA_KIND_LIST: c_int = 0x3;

pub type MapCallback = unsafe extern "C" fn(
    key: amd_comgr_metadata_node_t,
    value: amd_comgr_metadata_node_t,
    user_data: *mut c_void,
) -> amd_comgr_status_t;

#[link(name = "amd_comgr")]
unsafe extern "C" {
    pub fn amd_comgr_create_data(kind: c_int, data: *mut amd_comgr_data_t) -> amd_comgr_status_t;
    pub fn amd_comgr_release_data(data: amd_comgr_data_t) -> amd_comgr_status_t;
    pub fn amd_comgr_set_data(
        data: amd_comgr_data_t,
        size: usize,
        bytes: *const c_char,
    ) -> amd_comgr_status_t;
    pub fn amd_comgr_get_data_metadata(
        data: amd_comgr_data_t,
        metadata: *mut amd_comgr_metadata_node_t,
    ) -> amd_comgr_status_t;
    pub fn amd_comgr_destroy_metadata(metadata: amd_comgr_metadata_node_t) -> amd_comgr_status_t;
    pub fn amd_comgr_get_metadata_kind(
        metadata: amd_comgr_metadata_node_t,
        kind: *mut c_int,
    ) -> amd_comgr_status_t;
    pub fn amd_comgr_get_metadata_string(
        metadata: amd_comgr_metadata_node_t,
        size: *mut usize,
        string: *mut c_char,
    ) -> amd_comgr_status_t;
    pub fn amd_comgr_iterate_map_metadata(
        metadata: amd_comgr_metadata_node_t,
        callback: MapCallback,
        user_data: *mut c_void,
    ) -> amd_comgr_status_t;
    pub fn amd_comgr_get_metadata_list_size(
        metadata: amd_comgr_metadata_node_t,
        size: *mut usize,
    ) -> amd_comgr_status_t;
    pub fn amd_comgr_index_list_metadata(
        metadata: amd_comgr_metadata_node_t,
        index: usize,
        value: *mut amd_comgr_metadata_node_t,
    ) -> amd_comgr_status_t;
}
