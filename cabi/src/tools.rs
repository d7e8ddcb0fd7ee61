//! The API tables of `hsa_api_trace.h` (`HsaApiTable` and the core, AMD,
//! finalizer and image tables, in the header's order) and `HSA_TOOLS_LIB`.
//!
//! Every exported function whose name has a slot in a table jumps through
//! that slot (`exports.rs`); the deprecated `_acquire`/`_release`/`_acq_rel`
//! names go through their `sc` twin's slot, as in ROCr. At the first
//! `hsa_init` each library named in `HSA_TOOLS_LIB` (separated by spaces)
//! is loaded and its `OnLoad(HsaApiTable*, runtime_version,
//! failed_tool_count, failed_tool_names)` called: a tool that replaces a
//! slot intercepts every call of that function from then on. A tool whose
//! `OnLoad` returns false is unloaded. At the last `hsa_shut_down` each
//! tool's `OnUnload` runs (last loaded first) and the tables get their
//! own functions back.
//!
//! Generated from Debian's ROCr 5.2.3 `hsa_api_trace.h` (field order);
//! The C tools library of `cabi/tests/tools.rs`, built against that header,
//! checks every table's size and intercepts through a slot.

#![allow(unsafe_code)]
#![allow(non_camel_case_types, non_snake_case)]

use core::ffi::{c_char, c_int, c_void};
use core::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Mutex;

/// `ApiTableVersion`.
#[repr(C)]
#[derive(Debug)]
pub struct ApiTableVersion {
    /// `major_id`.
    pub major_id: u32,
    /// `minor_id`: the table's size in bytes.
    pub minor_id: u32,
    /// `step_id`.
    pub step_id: u32,
    /// `reserved`.
    pub reserved: u32,
}

/// One function pointer slot (C writes it as a plain pointer).
#[repr(transparent)]
#[derive(Debug)]
pub struct Slot(pub AtomicPtr<c_void>);

impl Slot {
    const fn new(f: *mut c_void) -> Self {
        Self(AtomicPtr::new(f))
    }
}

const fn version<T>() -> ApiTableVersion {
    ApiTableVersion {
        major_id: 1,
        minor_id: core::mem::size_of::<T>() as u32,
        step_id: 0,
        reserved: 0,
    }
}

/// `CoreApiTable`.
#[repr(C)]
#[derive(Debug)]
pub struct CoreApiTable {
    /// `version`.
    pub version: ApiTableVersion,
    /// `hsa_init_fn`.
    pub hsa_init_fn: Slot,
    /// `hsa_shut_down_fn`.
    pub hsa_shut_down_fn: Slot,
    /// `hsa_system_get_info_fn`.
    pub hsa_system_get_info_fn: Slot,
    /// `hsa_system_extension_supported_fn`.
    pub hsa_system_extension_supported_fn: Slot,
    /// `hsa_system_get_extension_table_fn`.
    pub hsa_system_get_extension_table_fn: Slot,
    /// `hsa_iterate_agents_fn`.
    pub hsa_iterate_agents_fn: Slot,
    /// `hsa_agent_get_info_fn`.
    pub hsa_agent_get_info_fn: Slot,
    /// `hsa_queue_create_fn`.
    pub hsa_queue_create_fn: Slot,
    /// `hsa_soft_queue_create_fn`.
    pub hsa_soft_queue_create_fn: Slot,
    /// `hsa_queue_destroy_fn`.
    pub hsa_queue_destroy_fn: Slot,
    /// `hsa_queue_inactivate_fn`.
    pub hsa_queue_inactivate_fn: Slot,
    /// `hsa_queue_load_read_index_scacquire_fn`.
    pub hsa_queue_load_read_index_scacquire_fn: Slot,
    /// `hsa_queue_load_read_index_relaxed_fn`.
    pub hsa_queue_load_read_index_relaxed_fn: Slot,
    /// `hsa_queue_load_write_index_scacquire_fn`.
    pub hsa_queue_load_write_index_scacquire_fn: Slot,
    /// `hsa_queue_load_write_index_relaxed_fn`.
    pub hsa_queue_load_write_index_relaxed_fn: Slot,
    /// `hsa_queue_store_write_index_relaxed_fn`.
    pub hsa_queue_store_write_index_relaxed_fn: Slot,
    /// `hsa_queue_store_write_index_screlease_fn`.
    pub hsa_queue_store_write_index_screlease_fn: Slot,
    /// `hsa_queue_cas_write_index_scacq_screl_fn`.
    pub hsa_queue_cas_write_index_scacq_screl_fn: Slot,
    /// `hsa_queue_cas_write_index_scacquire_fn`.
    pub hsa_queue_cas_write_index_scacquire_fn: Slot,
    /// `hsa_queue_cas_write_index_relaxed_fn`.
    pub hsa_queue_cas_write_index_relaxed_fn: Slot,
    /// `hsa_queue_cas_write_index_screlease_fn`.
    pub hsa_queue_cas_write_index_screlease_fn: Slot,
    /// `hsa_queue_add_write_index_scacq_screl_fn`.
    pub hsa_queue_add_write_index_scacq_screl_fn: Slot,
    /// `hsa_queue_add_write_index_scacquire_fn`.
    pub hsa_queue_add_write_index_scacquire_fn: Slot,
    /// `hsa_queue_add_write_index_relaxed_fn`.
    pub hsa_queue_add_write_index_relaxed_fn: Slot,
    /// `hsa_queue_add_write_index_screlease_fn`.
    pub hsa_queue_add_write_index_screlease_fn: Slot,
    /// `hsa_queue_store_read_index_relaxed_fn`.
    pub hsa_queue_store_read_index_relaxed_fn: Slot,
    /// `hsa_queue_store_read_index_screlease_fn`.
    pub hsa_queue_store_read_index_screlease_fn: Slot,
    /// `hsa_agent_iterate_regions_fn`.
    pub hsa_agent_iterate_regions_fn: Slot,
    /// `hsa_region_get_info_fn`.
    pub hsa_region_get_info_fn: Slot,
    /// `hsa_agent_get_exception_policies_fn`.
    pub hsa_agent_get_exception_policies_fn: Slot,
    /// `hsa_agent_extension_supported_fn`.
    pub hsa_agent_extension_supported_fn: Slot,
    /// `hsa_memory_register_fn`.
    pub hsa_memory_register_fn: Slot,
    /// `hsa_memory_deregister_fn`.
    pub hsa_memory_deregister_fn: Slot,
    /// `hsa_memory_allocate_fn`.
    pub hsa_memory_allocate_fn: Slot,
    /// `hsa_memory_free_fn`.
    pub hsa_memory_free_fn: Slot,
    /// `hsa_memory_copy_fn`.
    pub hsa_memory_copy_fn: Slot,
    /// `hsa_memory_assign_agent_fn`.
    pub hsa_memory_assign_agent_fn: Slot,
    /// `hsa_signal_create_fn`.
    pub hsa_signal_create_fn: Slot,
    /// `hsa_signal_destroy_fn`.
    pub hsa_signal_destroy_fn: Slot,
    /// `hsa_signal_load_relaxed_fn`.
    pub hsa_signal_load_relaxed_fn: Slot,
    /// `hsa_signal_load_scacquire_fn`.
    pub hsa_signal_load_scacquire_fn: Slot,
    /// `hsa_signal_store_relaxed_fn`.
    pub hsa_signal_store_relaxed_fn: Slot,
    /// `hsa_signal_store_screlease_fn`.
    pub hsa_signal_store_screlease_fn: Slot,
    /// `hsa_signal_wait_relaxed_fn`.
    pub hsa_signal_wait_relaxed_fn: Slot,
    /// `hsa_signal_wait_scacquire_fn`.
    pub hsa_signal_wait_scacquire_fn: Slot,
    /// `hsa_signal_and_relaxed_fn`.
    pub hsa_signal_and_relaxed_fn: Slot,
    /// `hsa_signal_and_scacquire_fn`.
    pub hsa_signal_and_scacquire_fn: Slot,
    /// `hsa_signal_and_screlease_fn`.
    pub hsa_signal_and_screlease_fn: Slot,
    /// `hsa_signal_and_scacq_screl_fn`.
    pub hsa_signal_and_scacq_screl_fn: Slot,
    /// `hsa_signal_or_relaxed_fn`.
    pub hsa_signal_or_relaxed_fn: Slot,
    /// `hsa_signal_or_scacquire_fn`.
    pub hsa_signal_or_scacquire_fn: Slot,
    /// `hsa_signal_or_screlease_fn`.
    pub hsa_signal_or_screlease_fn: Slot,
    /// `hsa_signal_or_scacq_screl_fn`.
    pub hsa_signal_or_scacq_screl_fn: Slot,
    /// `hsa_signal_xor_relaxed_fn`.
    pub hsa_signal_xor_relaxed_fn: Slot,
    /// `hsa_signal_xor_scacquire_fn`.
    pub hsa_signal_xor_scacquire_fn: Slot,
    /// `hsa_signal_xor_screlease_fn`.
    pub hsa_signal_xor_screlease_fn: Slot,
    /// `hsa_signal_xor_scacq_screl_fn`.
    pub hsa_signal_xor_scacq_screl_fn: Slot,
    /// `hsa_signal_exchange_relaxed_fn`.
    pub hsa_signal_exchange_relaxed_fn: Slot,
    /// `hsa_signal_exchange_scacquire_fn`.
    pub hsa_signal_exchange_scacquire_fn: Slot,
    /// `hsa_signal_exchange_screlease_fn`.
    pub hsa_signal_exchange_screlease_fn: Slot,
    /// `hsa_signal_exchange_scacq_screl_fn`.
    pub hsa_signal_exchange_scacq_screl_fn: Slot,
    /// `hsa_signal_add_relaxed_fn`.
    pub hsa_signal_add_relaxed_fn: Slot,
    /// `hsa_signal_add_scacquire_fn`.
    pub hsa_signal_add_scacquire_fn: Slot,
    /// `hsa_signal_add_screlease_fn`.
    pub hsa_signal_add_screlease_fn: Slot,
    /// `hsa_signal_add_scacq_screl_fn`.
    pub hsa_signal_add_scacq_screl_fn: Slot,
    /// `hsa_signal_subtract_relaxed_fn`.
    pub hsa_signal_subtract_relaxed_fn: Slot,
    /// `hsa_signal_subtract_scacquire_fn`.
    pub hsa_signal_subtract_scacquire_fn: Slot,
    /// `hsa_signal_subtract_screlease_fn`.
    pub hsa_signal_subtract_screlease_fn: Slot,
    /// `hsa_signal_subtract_scacq_screl_fn`.
    pub hsa_signal_subtract_scacq_screl_fn: Slot,
    /// `hsa_signal_cas_relaxed_fn`.
    pub hsa_signal_cas_relaxed_fn: Slot,
    /// `hsa_signal_cas_scacquire_fn`.
    pub hsa_signal_cas_scacquire_fn: Slot,
    /// `hsa_signal_cas_screlease_fn`.
    pub hsa_signal_cas_screlease_fn: Slot,
    /// `hsa_signal_cas_scacq_screl_fn`.
    pub hsa_signal_cas_scacq_screl_fn: Slot,
    /// `hsa_isa_from_name_fn`.
    pub hsa_isa_from_name_fn: Slot,
    /// `hsa_isa_get_info_fn`.
    pub hsa_isa_get_info_fn: Slot,
    /// `hsa_isa_compatible_fn`.
    pub hsa_isa_compatible_fn: Slot,
    /// `hsa_code_object_serialize_fn`.
    pub hsa_code_object_serialize_fn: Slot,
    /// `hsa_code_object_deserialize_fn`.
    pub hsa_code_object_deserialize_fn: Slot,
    /// `hsa_code_object_destroy_fn`.
    pub hsa_code_object_destroy_fn: Slot,
    /// `hsa_code_object_get_info_fn`.
    pub hsa_code_object_get_info_fn: Slot,
    /// `hsa_code_object_get_symbol_fn`.
    pub hsa_code_object_get_symbol_fn: Slot,
    /// `hsa_code_symbol_get_info_fn`.
    pub hsa_code_symbol_get_info_fn: Slot,
    /// `hsa_code_object_iterate_symbols_fn`.
    pub hsa_code_object_iterate_symbols_fn: Slot,
    /// `hsa_executable_create_fn`.
    pub hsa_executable_create_fn: Slot,
    /// `hsa_executable_destroy_fn`.
    pub hsa_executable_destroy_fn: Slot,
    /// `hsa_executable_load_code_object_fn`.
    pub hsa_executable_load_code_object_fn: Slot,
    /// `hsa_executable_freeze_fn`.
    pub hsa_executable_freeze_fn: Slot,
    /// `hsa_executable_get_info_fn`.
    pub hsa_executable_get_info_fn: Slot,
    /// `hsa_executable_global_variable_define_fn`.
    pub hsa_executable_global_variable_define_fn: Slot,
    /// `hsa_executable_agent_global_variable_define_fn`.
    pub hsa_executable_agent_global_variable_define_fn: Slot,
    /// `hsa_executable_readonly_variable_define_fn`.
    pub hsa_executable_readonly_variable_define_fn: Slot,
    /// `hsa_executable_validate_fn`.
    pub hsa_executable_validate_fn: Slot,
    /// `hsa_executable_get_symbol_fn`.
    pub hsa_executable_get_symbol_fn: Slot,
    /// `hsa_executable_symbol_get_info_fn`.
    pub hsa_executable_symbol_get_info_fn: Slot,
    /// `hsa_executable_iterate_symbols_fn`.
    pub hsa_executable_iterate_symbols_fn: Slot,
    /// `hsa_status_string_fn`.
    pub hsa_status_string_fn: Slot,
    /// `hsa_extension_get_name_fn`.
    pub hsa_extension_get_name_fn: Slot,
    /// `hsa_system_major_extension_supported_fn`.
    pub hsa_system_major_extension_supported_fn: Slot,
    /// `hsa_system_get_major_extension_table_fn`.
    pub hsa_system_get_major_extension_table_fn: Slot,
    /// `hsa_agent_major_extension_supported_fn`.
    pub hsa_agent_major_extension_supported_fn: Slot,
    /// `hsa_cache_get_info_fn`.
    pub hsa_cache_get_info_fn: Slot,
    /// `hsa_agent_iterate_caches_fn`.
    pub hsa_agent_iterate_caches_fn: Slot,
    /// `hsa_signal_silent_store_relaxed_fn`.
    pub hsa_signal_silent_store_relaxed_fn: Slot,
    /// `hsa_signal_silent_store_screlease_fn`.
    pub hsa_signal_silent_store_screlease_fn: Slot,
    /// `hsa_signal_group_create_fn`.
    pub hsa_signal_group_create_fn: Slot,
    /// `hsa_signal_group_destroy_fn`.
    pub hsa_signal_group_destroy_fn: Slot,
    /// `hsa_signal_group_wait_any_scacquire_fn`.
    pub hsa_signal_group_wait_any_scacquire_fn: Slot,
    /// `hsa_signal_group_wait_any_relaxed_fn`.
    pub hsa_signal_group_wait_any_relaxed_fn: Slot,
    /// `hsa_agent_iterate_isas_fn`.
    pub hsa_agent_iterate_isas_fn: Slot,
    /// `hsa_isa_get_info_alt_fn`.
    pub hsa_isa_get_info_alt_fn: Slot,
    /// `hsa_isa_get_exception_policies_fn`.
    pub hsa_isa_get_exception_policies_fn: Slot,
    /// `hsa_isa_get_round_method_fn`.
    pub hsa_isa_get_round_method_fn: Slot,
    /// `hsa_wavefront_get_info_fn`.
    pub hsa_wavefront_get_info_fn: Slot,
    /// `hsa_isa_iterate_wavefronts_fn`.
    pub hsa_isa_iterate_wavefronts_fn: Slot,
    /// `hsa_code_object_get_symbol_from_name_fn`.
    pub hsa_code_object_get_symbol_from_name_fn: Slot,
    /// `hsa_code_object_reader_create_from_file_fn`.
    pub hsa_code_object_reader_create_from_file_fn: Slot,
    /// `hsa_code_object_reader_create_from_memory_fn`.
    pub hsa_code_object_reader_create_from_memory_fn: Slot,
    /// `hsa_code_object_reader_destroy_fn`.
    pub hsa_code_object_reader_destroy_fn: Slot,
    /// `hsa_executable_create_alt_fn`.
    pub hsa_executable_create_alt_fn: Slot,
    /// `hsa_executable_load_program_code_object_fn`.
    pub hsa_executable_load_program_code_object_fn: Slot,
    /// `hsa_executable_load_agent_code_object_fn`.
    pub hsa_executable_load_agent_code_object_fn: Slot,
    /// `hsa_executable_validate_alt_fn`.
    pub hsa_executable_validate_alt_fn: Slot,
    /// `hsa_executable_get_symbol_by_name_fn`.
    pub hsa_executable_get_symbol_by_name_fn: Slot,
    /// `hsa_executable_iterate_agent_symbols_fn`.
    pub hsa_executable_iterate_agent_symbols_fn: Slot,
    /// `hsa_executable_iterate_program_symbols_fn`.
    pub hsa_executable_iterate_program_symbols_fn: Slot,
}

/// The CoreApiTable of this library: every slot its own function.
pub static CORE: CoreApiTable = CoreApiTable {
    version: version::<CoreApiTable>(),
    hsa_init_fn: Slot::new(crate::core_api::hsa_init as *mut c_void),
    hsa_shut_down_fn: Slot::new(crate::core_api::hsa_shut_down as *mut c_void),
    hsa_system_get_info_fn: Slot::new(crate::core_api::hsa_system_get_info as *mut c_void),
    hsa_system_extension_supported_fn: Slot::new(
        crate::core_api::hsa_system_extension_supported as *mut c_void,
    ),
    hsa_system_get_extension_table_fn: Slot::new(
        crate::core_api::hsa_system_get_extension_table as *mut c_void,
    ),
    hsa_iterate_agents_fn: Slot::new(crate::core_api::hsa_iterate_agents as *mut c_void),
    hsa_agent_get_info_fn: Slot::new(crate::core_api::hsa_agent_get_info as *mut c_void),
    hsa_queue_create_fn: Slot::new(crate::core_api::hsa_queue_create as *mut c_void),
    hsa_soft_queue_create_fn: Slot::new(crate::core_api::hsa_soft_queue_create as *mut c_void),
    hsa_queue_destroy_fn: Slot::new(crate::core_api::hsa_queue_destroy as *mut c_void),
    hsa_queue_inactivate_fn: Slot::new(crate::core_api::hsa_queue_inactivate as *mut c_void),
    hsa_queue_load_read_index_scacquire_fn: Slot::new(
        crate::core_api::hsa_queue_load_read_index_scacquire as *mut c_void,
    ),
    hsa_queue_load_read_index_relaxed_fn: Slot::new(
        crate::core_api::hsa_queue_load_read_index_relaxed as *mut c_void,
    ),
    hsa_queue_load_write_index_scacquire_fn: Slot::new(
        crate::core_api::hsa_queue_load_write_index_scacquire as *mut c_void,
    ),
    hsa_queue_load_write_index_relaxed_fn: Slot::new(
        crate::core_api::hsa_queue_load_write_index_relaxed as *mut c_void,
    ),
    hsa_queue_store_write_index_relaxed_fn: Slot::new(
        crate::core_api::hsa_queue_store_write_index_relaxed as *mut c_void,
    ),
    hsa_queue_store_write_index_screlease_fn: Slot::new(
        crate::core_api::hsa_queue_store_write_index_screlease as *mut c_void,
    ),
    hsa_queue_cas_write_index_scacq_screl_fn: Slot::new(
        crate::core_api::hsa_queue_cas_write_index_scacq_screl as *mut c_void,
    ),
    hsa_queue_cas_write_index_scacquire_fn: Slot::new(
        crate::core_api::hsa_queue_cas_write_index_scacquire as *mut c_void,
    ),
    hsa_queue_cas_write_index_relaxed_fn: Slot::new(
        crate::core_api::hsa_queue_cas_write_index_relaxed as *mut c_void,
    ),
    hsa_queue_cas_write_index_screlease_fn: Slot::new(
        crate::core_api::hsa_queue_cas_write_index_screlease as *mut c_void,
    ),
    hsa_queue_add_write_index_scacq_screl_fn: Slot::new(
        crate::core_api::hsa_queue_add_write_index_scacq_screl as *mut c_void,
    ),
    hsa_queue_add_write_index_scacquire_fn: Slot::new(
        crate::core_api::hsa_queue_add_write_index_scacquire as *mut c_void,
    ),
    hsa_queue_add_write_index_relaxed_fn: Slot::new(
        crate::core_api::hsa_queue_add_write_index_relaxed as *mut c_void,
    ),
    hsa_queue_add_write_index_screlease_fn: Slot::new(
        crate::core_api::hsa_queue_add_write_index_screlease as *mut c_void,
    ),
    hsa_queue_store_read_index_relaxed_fn: Slot::new(
        crate::core_api::hsa_queue_store_read_index_relaxed as *mut c_void,
    ),
    hsa_queue_store_read_index_screlease_fn: Slot::new(
        crate::core_api::hsa_queue_store_read_index_screlease as *mut c_void,
    ),
    hsa_agent_iterate_regions_fn: Slot::new(
        crate::core_api::hsa_agent_iterate_regions as *mut c_void,
    ),
    hsa_region_get_info_fn: Slot::new(crate::core_api::hsa_region_get_info as *mut c_void),
    hsa_agent_get_exception_policies_fn: Slot::new(
        crate::core_api::hsa_agent_get_exception_policies as *mut c_void,
    ),
    hsa_agent_extension_supported_fn: Slot::new(
        crate::core_api::hsa_agent_extension_supported as *mut c_void,
    ),
    hsa_memory_register_fn: Slot::new(crate::core_api::hsa_memory_register as *mut c_void),
    hsa_memory_deregister_fn: Slot::new(crate::core_api::hsa_memory_deregister as *mut c_void),
    hsa_memory_allocate_fn: Slot::new(crate::core_api::hsa_memory_allocate as *mut c_void),
    hsa_memory_free_fn: Slot::new(crate::core_api::hsa_memory_free as *mut c_void),
    hsa_memory_copy_fn: Slot::new(crate::core_api::hsa_memory_copy as *mut c_void),
    hsa_memory_assign_agent_fn: Slot::new(crate::core_api::hsa_memory_assign_agent as *mut c_void),
    hsa_signal_create_fn: Slot::new(crate::signal_api::hsa_signal_create as *mut c_void),
    hsa_signal_destroy_fn: Slot::new(crate::signal_api::hsa_signal_destroy as *mut c_void),
    hsa_signal_load_relaxed_fn: Slot::new(
        crate::signal_api::hsa_signal_load_relaxed as *mut c_void,
    ),
    hsa_signal_load_scacquire_fn: Slot::new(
        crate::signal_api::hsa_signal_load_scacquire as *mut c_void,
    ),
    hsa_signal_store_relaxed_fn: Slot::new(
        crate::signal_api::hsa_signal_store_relaxed as *mut c_void,
    ),
    hsa_signal_store_screlease_fn: Slot::new(
        crate::signal_api::hsa_signal_store_screlease as *mut c_void,
    ),
    hsa_signal_wait_relaxed_fn: Slot::new(
        crate::signal_api::hsa_signal_wait_relaxed as *mut c_void,
    ),
    hsa_signal_wait_scacquire_fn: Slot::new(
        crate::signal_api::hsa_signal_wait_scacquire as *mut c_void,
    ),
    hsa_signal_and_relaxed_fn: Slot::new(crate::signal_api::hsa_signal_and_relaxed as *mut c_void),
    hsa_signal_and_scacquire_fn: Slot::new(
        crate::signal_api::hsa_signal_and_scacquire as *mut c_void,
    ),
    hsa_signal_and_screlease_fn: Slot::new(
        crate::signal_api::hsa_signal_and_screlease as *mut c_void,
    ),
    hsa_signal_and_scacq_screl_fn: Slot::new(
        crate::signal_api::hsa_signal_and_scacq_screl as *mut c_void,
    ),
    hsa_signal_or_relaxed_fn: Slot::new(crate::signal_api::hsa_signal_or_relaxed as *mut c_void),
    hsa_signal_or_scacquire_fn: Slot::new(
        crate::signal_api::hsa_signal_or_scacquire as *mut c_void,
    ),
    hsa_signal_or_screlease_fn: Slot::new(
        crate::signal_api::hsa_signal_or_screlease as *mut c_void,
    ),
    hsa_signal_or_scacq_screl_fn: Slot::new(
        crate::signal_api::hsa_signal_or_scacq_screl as *mut c_void,
    ),
    hsa_signal_xor_relaxed_fn: Slot::new(crate::signal_api::hsa_signal_xor_relaxed as *mut c_void),
    hsa_signal_xor_scacquire_fn: Slot::new(
        crate::signal_api::hsa_signal_xor_scacquire as *mut c_void,
    ),
    hsa_signal_xor_screlease_fn: Slot::new(
        crate::signal_api::hsa_signal_xor_screlease as *mut c_void,
    ),
    hsa_signal_xor_scacq_screl_fn: Slot::new(
        crate::signal_api::hsa_signal_xor_scacq_screl as *mut c_void,
    ),
    hsa_signal_exchange_relaxed_fn: Slot::new(
        crate::signal_api::hsa_signal_exchange_relaxed as *mut c_void,
    ),
    hsa_signal_exchange_scacquire_fn: Slot::new(
        crate::signal_api::hsa_signal_exchange_scacquire as *mut c_void,
    ),
    hsa_signal_exchange_screlease_fn: Slot::new(
        crate::signal_api::hsa_signal_exchange_screlease as *mut c_void,
    ),
    hsa_signal_exchange_scacq_screl_fn: Slot::new(
        crate::signal_api::hsa_signal_exchange_scacq_screl as *mut c_void,
    ),
    hsa_signal_add_relaxed_fn: Slot::new(crate::signal_api::hsa_signal_add_relaxed as *mut c_void),
    hsa_signal_add_scacquire_fn: Slot::new(
        crate::signal_api::hsa_signal_add_scacquire as *mut c_void,
    ),
    hsa_signal_add_screlease_fn: Slot::new(
        crate::signal_api::hsa_signal_add_screlease as *mut c_void,
    ),
    hsa_signal_add_scacq_screl_fn: Slot::new(
        crate::signal_api::hsa_signal_add_scacq_screl as *mut c_void,
    ),
    hsa_signal_subtract_relaxed_fn: Slot::new(
        crate::signal_api::hsa_signal_subtract_relaxed as *mut c_void,
    ),
    hsa_signal_subtract_scacquire_fn: Slot::new(
        crate::signal_api::hsa_signal_subtract_scacquire as *mut c_void,
    ),
    hsa_signal_subtract_screlease_fn: Slot::new(
        crate::signal_api::hsa_signal_subtract_screlease as *mut c_void,
    ),
    hsa_signal_subtract_scacq_screl_fn: Slot::new(
        crate::signal_api::hsa_signal_subtract_scacq_screl as *mut c_void,
    ),
    hsa_signal_cas_relaxed_fn: Slot::new(crate::signal_api::hsa_signal_cas_relaxed as *mut c_void),
    hsa_signal_cas_scacquire_fn: Slot::new(
        crate::signal_api::hsa_signal_cas_scacquire as *mut c_void,
    ),
    hsa_signal_cas_screlease_fn: Slot::new(
        crate::signal_api::hsa_signal_cas_screlease as *mut c_void,
    ),
    hsa_signal_cas_scacq_screl_fn: Slot::new(
        crate::signal_api::hsa_signal_cas_scacq_screl as *mut c_void,
    ),
    hsa_isa_from_name_fn: Slot::new(crate::core_api::hsa_isa_from_name as *mut c_void),
    hsa_isa_get_info_fn: Slot::new(crate::core_api::hsa_isa_get_info as *mut c_void),
    hsa_isa_compatible_fn: Slot::new(crate::core_api::hsa_isa_compatible as *mut c_void),
    hsa_code_object_serialize_fn: Slot::new(
        crate::core_api::hsa_code_object_serialize as *mut c_void,
    ),
    hsa_code_object_deserialize_fn: Slot::new(
        crate::core_api::hsa_code_object_deserialize as *mut c_void,
    ),
    hsa_code_object_destroy_fn: Slot::new(crate::core_api::hsa_code_object_destroy as *mut c_void),
    hsa_code_object_get_info_fn: Slot::new(
        crate::core_api::hsa_code_object_get_info as *mut c_void,
    ),
    hsa_code_object_get_symbol_fn: Slot::new(
        crate::core_api::hsa_code_object_get_symbol as *mut c_void,
    ),
    hsa_code_symbol_get_info_fn: Slot::new(
        crate::core_api::hsa_code_symbol_get_info as *mut c_void,
    ),
    hsa_code_object_iterate_symbols_fn: Slot::new(
        crate::core_api::hsa_code_object_iterate_symbols as *mut c_void,
    ),
    hsa_executable_create_fn: Slot::new(crate::core_api::hsa_executable_create as *mut c_void),
    hsa_executable_destroy_fn: Slot::new(crate::core_api::hsa_executable_destroy as *mut c_void),
    hsa_executable_load_code_object_fn: Slot::new(
        crate::core_api::hsa_executable_load_code_object as *mut c_void,
    ),
    hsa_executable_freeze_fn: Slot::new(crate::core_api::hsa_executable_freeze as *mut c_void),
    hsa_executable_get_info_fn: Slot::new(crate::core_api::hsa_executable_get_info as *mut c_void),
    hsa_executable_global_variable_define_fn: Slot::new(
        crate::core_api::hsa_executable_global_variable_define as *mut c_void,
    ),
    hsa_executable_agent_global_variable_define_fn: Slot::new(
        crate::core_api::hsa_executable_agent_global_variable_define as *mut c_void,
    ),
    hsa_executable_readonly_variable_define_fn: Slot::new(
        crate::core_api::hsa_executable_readonly_variable_define as *mut c_void,
    ),
    hsa_executable_validate_fn: Slot::new(crate::core_api::hsa_executable_validate as *mut c_void),
    hsa_executable_get_symbol_fn: Slot::new(
        crate::core_api::hsa_executable_get_symbol as *mut c_void,
    ),
    hsa_executable_symbol_get_info_fn: Slot::new(
        crate::core_api::hsa_executable_symbol_get_info as *mut c_void,
    ),
    hsa_executable_iterate_symbols_fn: Slot::new(
        crate::core_api::hsa_executable_iterate_symbols as *mut c_void,
    ),
    hsa_status_string_fn: Slot::new(crate::ext::hsa_status_string as *mut c_void),
    hsa_extension_get_name_fn: Slot::new(crate::core_api::hsa_extension_get_name as *mut c_void),
    hsa_system_major_extension_supported_fn: Slot::new(
        crate::core_api::hsa_system_major_extension_supported as *mut c_void,
    ),
    hsa_system_get_major_extension_table_fn: Slot::new(
        crate::core_api::hsa_system_get_major_extension_table as *mut c_void,
    ),
    hsa_agent_major_extension_supported_fn: Slot::new(
        crate::core_api::hsa_agent_major_extension_supported as *mut c_void,
    ),
    hsa_cache_get_info_fn: Slot::new(crate::core_api::hsa_cache_get_info as *mut c_void),
    hsa_agent_iterate_caches_fn: Slot::new(
        crate::core_api::hsa_agent_iterate_caches as *mut c_void,
    ),
    hsa_signal_silent_store_relaxed_fn: Slot::new(
        crate::signal_api::hsa_signal_silent_store_relaxed as *mut c_void,
    ),
    hsa_signal_silent_store_screlease_fn: Slot::new(
        crate::signal_api::hsa_signal_silent_store_screlease as *mut c_void,
    ),
    hsa_signal_group_create_fn: Slot::new(
        crate::signal_api::hsa_signal_group_create as *mut c_void,
    ),
    hsa_signal_group_destroy_fn: Slot::new(
        crate::signal_api::hsa_signal_group_destroy as *mut c_void,
    ),
    hsa_signal_group_wait_any_scacquire_fn: Slot::new(
        crate::signal_api::hsa_signal_group_wait_any_scacquire as *mut c_void,
    ),
    hsa_signal_group_wait_any_relaxed_fn: Slot::new(
        crate::signal_api::hsa_signal_group_wait_any_relaxed as *mut c_void,
    ),
    hsa_agent_iterate_isas_fn: Slot::new(crate::core_api::hsa_agent_iterate_isas as *mut c_void),
    hsa_isa_get_info_alt_fn: Slot::new(crate::core_api::hsa_isa_get_info_alt as *mut c_void),
    hsa_isa_get_exception_policies_fn: Slot::new(
        crate::core_api::hsa_isa_get_exception_policies as *mut c_void,
    ),
    hsa_isa_get_round_method_fn: Slot::new(
        crate::core_api::hsa_isa_get_round_method as *mut c_void,
    ),
    hsa_wavefront_get_info_fn: Slot::new(crate::core_api::hsa_wavefront_get_info as *mut c_void),
    hsa_isa_iterate_wavefronts_fn: Slot::new(
        crate::core_api::hsa_isa_iterate_wavefronts as *mut c_void,
    ),
    hsa_code_object_get_symbol_from_name_fn: Slot::new(
        crate::core_api::hsa_code_object_get_symbol_from_name as *mut c_void,
    ),
    hsa_code_object_reader_create_from_file_fn: Slot::new(
        crate::core_api::hsa_code_object_reader_create_from_file as *mut c_void,
    ),
    hsa_code_object_reader_create_from_memory_fn: Slot::new(
        crate::core_api::hsa_code_object_reader_create_from_memory as *mut c_void,
    ),
    hsa_code_object_reader_destroy_fn: Slot::new(
        crate::core_api::hsa_code_object_reader_destroy as *mut c_void,
    ),
    hsa_executable_create_alt_fn: Slot::new(
        crate::core_api::hsa_executable_create_alt as *mut c_void,
    ),
    hsa_executable_load_program_code_object_fn: Slot::new(
        crate::core_api::hsa_executable_load_program_code_object as *mut c_void,
    ),
    hsa_executable_load_agent_code_object_fn: Slot::new(
        crate::core_api::hsa_executable_load_agent_code_object as *mut c_void,
    ),
    hsa_executable_validate_alt_fn: Slot::new(
        crate::core_api::hsa_executable_validate_alt as *mut c_void,
    ),
    hsa_executable_get_symbol_by_name_fn: Slot::new(
        crate::core_api::hsa_executable_get_symbol_by_name as *mut c_void,
    ),
    hsa_executable_iterate_agent_symbols_fn: Slot::new(
        crate::core_api::hsa_executable_iterate_agent_symbols as *mut c_void,
    ),
    hsa_executable_iterate_program_symbols_fn: Slot::new(
        crate::core_api::hsa_executable_iterate_program_symbols as *mut c_void,
    ),
};

/// `AmdExtTable`.
#[repr(C)]
#[derive(Debug)]
pub struct AmdExtTable {
    /// `version`.
    pub version: ApiTableVersion,
    /// `hsa_amd_coherency_get_type_fn`.
    pub hsa_amd_coherency_get_type_fn: Slot,
    /// `hsa_amd_coherency_set_type_fn`.
    pub hsa_amd_coherency_set_type_fn: Slot,
    /// `hsa_amd_profiling_set_profiler_enabled_fn`.
    pub hsa_amd_profiling_set_profiler_enabled_fn: Slot,
    /// `hsa_amd_profiling_async_copy_enable_fn`.
    pub hsa_amd_profiling_async_copy_enable_fn: Slot,
    /// `hsa_amd_profiling_get_dispatch_time_fn`.
    pub hsa_amd_profiling_get_dispatch_time_fn: Slot,
    /// `hsa_amd_profiling_get_async_copy_time_fn`.
    pub hsa_amd_profiling_get_async_copy_time_fn: Slot,
    /// `hsa_amd_profiling_convert_tick_to_system_domain_fn`.
    pub hsa_amd_profiling_convert_tick_to_system_domain_fn: Slot,
    /// `hsa_amd_signal_async_handler_fn`.
    pub hsa_amd_signal_async_handler_fn: Slot,
    /// `hsa_amd_async_function_fn`.
    pub hsa_amd_async_function_fn: Slot,
    /// `hsa_amd_signal_wait_any_fn`.
    pub hsa_amd_signal_wait_any_fn: Slot,
    /// `hsa_amd_queue_cu_set_mask_fn`.
    pub hsa_amd_queue_cu_set_mask_fn: Slot,
    /// `hsa_amd_memory_pool_get_info_fn`.
    pub hsa_amd_memory_pool_get_info_fn: Slot,
    /// `hsa_amd_agent_iterate_memory_pools_fn`.
    pub hsa_amd_agent_iterate_memory_pools_fn: Slot,
    /// `hsa_amd_memory_pool_allocate_fn`.
    pub hsa_amd_memory_pool_allocate_fn: Slot,
    /// `hsa_amd_memory_pool_free_fn`.
    pub hsa_amd_memory_pool_free_fn: Slot,
    /// `hsa_amd_memory_async_copy_fn`.
    pub hsa_amd_memory_async_copy_fn: Slot,
    /// `hsa_amd_agent_memory_pool_get_info_fn`.
    pub hsa_amd_agent_memory_pool_get_info_fn: Slot,
    /// `hsa_amd_agents_allow_access_fn`.
    pub hsa_amd_agents_allow_access_fn: Slot,
    /// `hsa_amd_memory_pool_can_migrate_fn`.
    pub hsa_amd_memory_pool_can_migrate_fn: Slot,
    /// `hsa_amd_memory_migrate_fn`.
    pub hsa_amd_memory_migrate_fn: Slot,
    /// `hsa_amd_memory_lock_fn`.
    pub hsa_amd_memory_lock_fn: Slot,
    /// `hsa_amd_memory_unlock_fn`.
    pub hsa_amd_memory_unlock_fn: Slot,
    /// `hsa_amd_memory_fill_fn`.
    pub hsa_amd_memory_fill_fn: Slot,
    /// `hsa_amd_interop_map_buffer_fn`.
    pub hsa_amd_interop_map_buffer_fn: Slot,
    /// `hsa_amd_interop_unmap_buffer_fn`.
    pub hsa_amd_interop_unmap_buffer_fn: Slot,
    /// `hsa_amd_image_create_fn`.
    pub hsa_amd_image_create_fn: Slot,
    /// `hsa_amd_pointer_info_fn`.
    pub hsa_amd_pointer_info_fn: Slot,
    /// `hsa_amd_pointer_info_set_userdata_fn`.
    pub hsa_amd_pointer_info_set_userdata_fn: Slot,
    /// `hsa_amd_ipc_memory_create_fn`.
    pub hsa_amd_ipc_memory_create_fn: Slot,
    /// `hsa_amd_ipc_memory_attach_fn`.
    pub hsa_amd_ipc_memory_attach_fn: Slot,
    /// `hsa_amd_ipc_memory_detach_fn`.
    pub hsa_amd_ipc_memory_detach_fn: Slot,
    /// `hsa_amd_signal_create_fn`.
    pub hsa_amd_signal_create_fn: Slot,
    /// `hsa_amd_ipc_signal_create_fn`.
    pub hsa_amd_ipc_signal_create_fn: Slot,
    /// `hsa_amd_ipc_signal_attach_fn`.
    pub hsa_amd_ipc_signal_attach_fn: Slot,
    /// `hsa_amd_register_system_event_handler_fn`.
    pub hsa_amd_register_system_event_handler_fn: Slot,
    /// `hsa_amd_queue_intercept_create_fn`.
    pub hsa_amd_queue_intercept_create_fn: Slot,
    /// `hsa_amd_queue_intercept_register_fn`.
    pub hsa_amd_queue_intercept_register_fn: Slot,
    /// `hsa_amd_queue_set_priority_fn`.
    pub hsa_amd_queue_set_priority_fn: Slot,
    /// `hsa_amd_memory_async_copy_rect_fn`.
    pub hsa_amd_memory_async_copy_rect_fn: Slot,
    /// `hsa_amd_runtime_queue_create_register_fn`.
    pub hsa_amd_runtime_queue_create_register_fn: Slot,
    /// `hsa_amd_memory_lock_to_pool_fn`.
    pub hsa_amd_memory_lock_to_pool_fn: Slot,
    /// `hsa_amd_register_deallocation_callback_fn`.
    pub hsa_amd_register_deallocation_callback_fn: Slot,
    /// `hsa_amd_deregister_deallocation_callback_fn`.
    pub hsa_amd_deregister_deallocation_callback_fn: Slot,
    /// `hsa_amd_signal_value_pointer_fn`.
    pub hsa_amd_signal_value_pointer_fn: Slot,
    /// `hsa_amd_svm_attributes_set_fn`.
    pub hsa_amd_svm_attributes_set_fn: Slot,
    /// `hsa_amd_svm_attributes_get_fn`.
    pub hsa_amd_svm_attributes_get_fn: Slot,
    /// `hsa_amd_svm_prefetch_async_fn`.
    pub hsa_amd_svm_prefetch_async_fn: Slot,
    /// `hsa_amd_queue_cu_get_mask_fn`.
    pub hsa_amd_queue_cu_get_mask_fn: Slot,
}

/// The AmdExtTable of this library: every slot its own function.
pub static AMD_EXT: AmdExtTable = AmdExtTable {
    version: version::<AmdExtTable>(),
    hsa_amd_coherency_get_type_fn: Slot::new(
        crate::amd_api::hsa_amd_coherency_get_type as *mut c_void,
    ),
    hsa_amd_coherency_set_type_fn: Slot::new(
        crate::amd_api::hsa_amd_coherency_set_type as *mut c_void,
    ),
    hsa_amd_profiling_set_profiler_enabled_fn: Slot::new(
        crate::amd_api::hsa_amd_profiling_set_profiler_enabled as *mut c_void,
    ),
    hsa_amd_profiling_async_copy_enable_fn: Slot::new(
        crate::amd_api::hsa_amd_profiling_async_copy_enable as *mut c_void,
    ),
    hsa_amd_profiling_get_dispatch_time_fn: Slot::new(
        crate::amd_api::hsa_amd_profiling_get_dispatch_time as *mut c_void,
    ),
    hsa_amd_profiling_get_async_copy_time_fn: Slot::new(
        crate::amd_api::hsa_amd_profiling_get_async_copy_time as *mut c_void,
    ),
    hsa_amd_profiling_convert_tick_to_system_domain_fn: Slot::new(
        crate::amd_api::hsa_amd_profiling_convert_tick_to_system_domain as *mut c_void,
    ),
    hsa_amd_signal_async_handler_fn: Slot::new(
        crate::signal_api::hsa_amd_signal_async_handler as *mut c_void,
    ),
    hsa_amd_async_function_fn: Slot::new(crate::signal_api::hsa_amd_async_function as *mut c_void),
    hsa_amd_signal_wait_any_fn: Slot::new(
        crate::signal_api::hsa_amd_signal_wait_any as *mut c_void,
    ),
    hsa_amd_queue_cu_set_mask_fn: Slot::new(
        crate::amd_api::hsa_amd_queue_cu_set_mask as *mut c_void,
    ),
    hsa_amd_memory_pool_get_info_fn: Slot::new(
        crate::amd_api::hsa_amd_memory_pool_get_info as *mut c_void,
    ),
    hsa_amd_agent_iterate_memory_pools_fn: Slot::new(
        crate::amd_api::hsa_amd_agent_iterate_memory_pools as *mut c_void,
    ),
    hsa_amd_memory_pool_allocate_fn: Slot::new(
        crate::amd_api::hsa_amd_memory_pool_allocate as *mut c_void,
    ),
    hsa_amd_memory_pool_free_fn: Slot::new(crate::amd_api::hsa_amd_memory_pool_free as *mut c_void),
    hsa_amd_memory_async_copy_fn: Slot::new(
        crate::amd_api::hsa_amd_memory_async_copy as *mut c_void,
    ),
    hsa_amd_agent_memory_pool_get_info_fn: Slot::new(
        crate::amd_api::hsa_amd_agent_memory_pool_get_info as *mut c_void,
    ),
    hsa_amd_agents_allow_access_fn: Slot::new(
        crate::amd_api::hsa_amd_agents_allow_access as *mut c_void,
    ),
    hsa_amd_memory_pool_can_migrate_fn: Slot::new(
        crate::amd_api::hsa_amd_memory_pool_can_migrate as *mut c_void,
    ),
    hsa_amd_memory_migrate_fn: Slot::new(crate::amd_api::hsa_amd_memory_migrate as *mut c_void),
    hsa_amd_memory_lock_fn: Slot::new(crate::amd_api::hsa_amd_memory_lock as *mut c_void),
    hsa_amd_memory_unlock_fn: Slot::new(crate::amd_api::hsa_amd_memory_unlock as *mut c_void),
    hsa_amd_memory_fill_fn: Slot::new(crate::amd_api::hsa_amd_memory_fill as *mut c_void),
    hsa_amd_interop_map_buffer_fn: Slot::new(
        crate::amd_api::hsa_amd_interop_map_buffer as *mut c_void,
    ),
    hsa_amd_interop_unmap_buffer_fn: Slot::new(
        crate::amd_api::hsa_amd_interop_unmap_buffer as *mut c_void,
    ),
    hsa_amd_image_create_fn: Slot::new(crate::ext::hsa_amd_image_create as *mut c_void),
    hsa_amd_pointer_info_fn: Slot::new(crate::amd_api::hsa_amd_pointer_info as *mut c_void),
    hsa_amd_pointer_info_set_userdata_fn: Slot::new(
        crate::amd_api::hsa_amd_pointer_info_set_userdata as *mut c_void,
    ),
    hsa_amd_ipc_memory_create_fn: Slot::new(
        crate::amd_api::hsa_amd_ipc_memory_create as *mut c_void,
    ),
    hsa_amd_ipc_memory_attach_fn: Slot::new(
        crate::amd_api::hsa_amd_ipc_memory_attach as *mut c_void,
    ),
    hsa_amd_ipc_memory_detach_fn: Slot::new(
        crate::amd_api::hsa_amd_ipc_memory_detach as *mut c_void,
    ),
    hsa_amd_signal_create_fn: Slot::new(crate::signal_api::hsa_amd_signal_create as *mut c_void),
    hsa_amd_ipc_signal_create_fn: Slot::new(
        crate::amd_api::hsa_amd_ipc_signal_create as *mut c_void,
    ),
    hsa_amd_ipc_signal_attach_fn: Slot::new(
        crate::amd_api::hsa_amd_ipc_signal_attach as *mut c_void,
    ),
    hsa_amd_register_system_event_handler_fn: Slot::new(
        crate::amd_api::hsa_amd_register_system_event_handler as *mut c_void,
    ),
    hsa_amd_queue_intercept_create_fn: Slot::new(
        crate::amd_api::hsa_amd_queue_intercept_create as *mut c_void,
    ),
    hsa_amd_queue_intercept_register_fn: Slot::new(
        crate::amd_api::hsa_amd_queue_intercept_register as *mut c_void,
    ),
    hsa_amd_queue_set_priority_fn: Slot::new(
        crate::amd_api::hsa_amd_queue_set_priority as *mut c_void,
    ),
    hsa_amd_memory_async_copy_rect_fn: Slot::new(
        crate::amd_api::hsa_amd_memory_async_copy_rect as *mut c_void,
    ),
    hsa_amd_runtime_queue_create_register_fn: Slot::new(
        crate::amd_api::hsa_amd_runtime_queue_create_register as *mut c_void,
    ),
    hsa_amd_memory_lock_to_pool_fn: Slot::new(
        crate::amd_api::hsa_amd_memory_lock_to_pool as *mut c_void,
    ),
    hsa_amd_register_deallocation_callback_fn: Slot::new(
        crate::amd_api::hsa_amd_register_deallocation_callback as *mut c_void,
    ),
    hsa_amd_deregister_deallocation_callback_fn: Slot::new(
        crate::amd_api::hsa_amd_deregister_deallocation_callback as *mut c_void,
    ),
    hsa_amd_signal_value_pointer_fn: Slot::new(
        crate::signal_api::hsa_amd_signal_value_pointer as *mut c_void,
    ),
    hsa_amd_svm_attributes_set_fn: Slot::new(
        crate::amd_api::hsa_amd_svm_attributes_set as *mut c_void,
    ),
    hsa_amd_svm_attributes_get_fn: Slot::new(
        crate::amd_api::hsa_amd_svm_attributes_get as *mut c_void,
    ),
    hsa_amd_svm_prefetch_async_fn: Slot::new(
        crate::amd_api::hsa_amd_svm_prefetch_async as *mut c_void,
    ),
    hsa_amd_queue_cu_get_mask_fn: Slot::new(
        crate::amd_api::hsa_amd_queue_cu_get_mask as *mut c_void,
    ),
};

/// `FinalizerExtTable`.
#[repr(C)]
#[derive(Debug)]
pub struct FinalizerExtTable {
    /// `version`.
    pub version: ApiTableVersion,
    /// `hsa_ext_program_create_fn`.
    pub hsa_ext_program_create_fn: Slot,
    /// `hsa_ext_program_destroy_fn`.
    pub hsa_ext_program_destroy_fn: Slot,
    /// `hsa_ext_program_add_module_fn`.
    pub hsa_ext_program_add_module_fn: Slot,
    /// `hsa_ext_program_iterate_modules_fn`.
    pub hsa_ext_program_iterate_modules_fn: Slot,
    /// `hsa_ext_program_get_info_fn`.
    pub hsa_ext_program_get_info_fn: Slot,
    /// `hsa_ext_program_finalize_fn`.
    pub hsa_ext_program_finalize_fn: Slot,
}

/// The FinalizerExtTable of this library: every slot its own function.
pub static FINALIZER_EXT: FinalizerExtTable = FinalizerExtTable {
    version: version::<FinalizerExtTable>(),
    hsa_ext_program_create_fn: Slot::new(crate::ext::hsa_ext_program_create as *mut c_void),
    hsa_ext_program_destroy_fn: Slot::new(crate::ext::hsa_ext_program_destroy as *mut c_void),
    hsa_ext_program_add_module_fn: Slot::new(crate::ext::hsa_ext_program_add_module as *mut c_void),
    hsa_ext_program_iterate_modules_fn: Slot::new(
        crate::ext::hsa_ext_program_iterate_modules as *mut c_void,
    ),
    hsa_ext_program_get_info_fn: Slot::new(crate::ext::hsa_ext_program_get_info as *mut c_void),
    hsa_ext_program_finalize_fn: Slot::new(crate::ext::hsa_ext_program_finalize as *mut c_void),
};

/// `ImageExtTable`.
#[repr(C)]
#[derive(Debug)]
pub struct ImageExtTable {
    /// `version`.
    pub version: ApiTableVersion,
    /// `hsa_ext_image_get_capability_fn`.
    pub hsa_ext_image_get_capability_fn: Slot,
    /// `hsa_ext_image_data_get_info_fn`.
    pub hsa_ext_image_data_get_info_fn: Slot,
    /// `hsa_ext_image_create_fn`.
    pub hsa_ext_image_create_fn: Slot,
    /// `hsa_ext_image_import_fn`.
    pub hsa_ext_image_import_fn: Slot,
    /// `hsa_ext_image_export_fn`.
    pub hsa_ext_image_export_fn: Slot,
    /// `hsa_ext_image_copy_fn`.
    pub hsa_ext_image_copy_fn: Slot,
    /// `hsa_ext_image_clear_fn`.
    pub hsa_ext_image_clear_fn: Slot,
    /// `hsa_ext_image_destroy_fn`.
    pub hsa_ext_image_destroy_fn: Slot,
    /// `hsa_ext_sampler_create_fn`.
    pub hsa_ext_sampler_create_fn: Slot,
    /// `hsa_ext_sampler_destroy_fn`.
    pub hsa_ext_sampler_destroy_fn: Slot,
    /// `hsa_ext_image_get_capability_with_layout_fn`.
    pub hsa_ext_image_get_capability_with_layout_fn: Slot,
    /// `hsa_ext_image_data_get_info_with_layout_fn`.
    pub hsa_ext_image_data_get_info_with_layout_fn: Slot,
    /// `hsa_ext_image_create_with_layout_fn`.
    pub hsa_ext_image_create_with_layout_fn: Slot,
}

/// The ImageExtTable of this library: every slot its own function.
pub static IMAGE_EXT: ImageExtTable = ImageExtTable {
    version: version::<ImageExtTable>(),
    hsa_ext_image_get_capability_fn: Slot::new(
        crate::ext::hsa_ext_image_get_capability as *mut c_void,
    ),
    hsa_ext_image_data_get_info_fn: Slot::new(
        crate::ext::hsa_ext_image_data_get_info as *mut c_void,
    ),
    hsa_ext_image_create_fn: Slot::new(crate::ext::hsa_ext_image_create as *mut c_void),
    hsa_ext_image_import_fn: Slot::new(crate::ext::hsa_ext_image_import as *mut c_void),
    hsa_ext_image_export_fn: Slot::new(crate::ext::hsa_ext_image_export as *mut c_void),
    hsa_ext_image_copy_fn: Slot::new(crate::ext::hsa_ext_image_copy as *mut c_void),
    hsa_ext_image_clear_fn: Slot::new(crate::ext::hsa_ext_image_clear as *mut c_void),
    hsa_ext_image_destroy_fn: Slot::new(crate::ext::hsa_ext_image_destroy as *mut c_void),
    hsa_ext_sampler_create_fn: Slot::new(crate::ext::hsa_ext_sampler_create as *mut c_void),
    hsa_ext_sampler_destroy_fn: Slot::new(crate::ext::hsa_ext_sampler_destroy as *mut c_void),
    hsa_ext_image_get_capability_with_layout_fn: Slot::new(
        crate::ext::hsa_ext_image_get_capability_with_layout as *mut c_void,
    ),
    hsa_ext_image_data_get_info_with_layout_fn: Slot::new(
        crate::ext::hsa_ext_image_data_get_info_with_layout as *mut c_void,
    ),
    hsa_ext_image_create_with_layout_fn: Slot::new(
        crate::ext::hsa_ext_image_create_with_layout as *mut c_void,
    ),
};

/// `HsaApiTable`: the root a tool receives.
#[repr(C)]
#[derive(Debug)]
pub struct HsaApiTable {
    /// `version`.
    pub version: ApiTableVersion,
    /// `core_`.
    pub core_: AtomicPtr<CoreApiTable>,
    /// `amd_ext_`.
    pub amd_ext_: AtomicPtr<AmdExtTable>,
    /// `finalizer_ext_`.
    pub finalizer_ext_: AtomicPtr<FinalizerExtTable>,
    /// `image_ext_`.
    pub image_ext_: AtomicPtr<ImageExtTable>,
}

/// The root table.
pub static ROOT: HsaApiTable = HsaApiTable {
    version: version::<HsaApiTable>(),
    core_: AtomicPtr::new(&CORE as *const CoreApiTable as *mut CoreApiTable),
    amd_ext_: AtomicPtr::new(&AMD_EXT as *const AmdExtTable as *mut AmdExtTable),
    finalizer_ext_: AtomicPtr::new(
        &FINALIZER_EXT as *const FinalizerExtTable as *mut FinalizerExtTable,
    ),
    image_ext_: AtomicPtr::new(&IMAGE_EXT as *const ImageExtTable as *mut ImageExtTable),
};

/// The function slots of one table: every field after its `version`
/// (the tables are `repr(C)` structs of an `ApiTableVersion` and `Slot`s,
/// as `hsa_api_trace.h` has them).
macro_rules! slots_of {
    ($t:ident: $ty:ty) => {{
        const HEADER: usize = core::mem::size_of::<ApiTableVersion>();
        const N: usize = (core::mem::size_of::<$ty>() - HEADER) / core::mem::size_of::<Slot>();
        const _: () =
            assert!(HEADER + N * core::mem::size_of::<Slot>() == core::mem::size_of::<$ty>());
        const _: () = assert!(HEADER % core::mem::align_of::<Slot>() == 0);
        // SAFETY: the table lives for the process; after its 16-byte
        // version come exactly `N` `Slot` fields (a repr(C) struct of
        // them: no padding, asserted above), so they form a `[Slot; N]`.
        unsafe {
            core::slice::from_raw_parts(
                (&$t as *const $ty).cast::<u8>().add(HEADER).cast::<Slot>(),
                N,
            )
        }
    }};
}

/// Every function slot of the core, AMD, finalizer and image tables.
pub(crate) fn slots() -> impl Iterator<Item = &'static Slot> {
    let core: &'static [Slot] = slots_of!(CORE: CoreApiTable);
    let amd: &'static [Slot] = slots_of!(AMD_EXT: AmdExtTable);
    let finalizer: &'static [Slot] = slots_of!(FINALIZER_EXT: FinalizerExtTable);
    let image: &'static [Slot] = slots_of!(IMAGE_EXT: ImageExtTable);
    [core, amd, finalizer, image].into_iter().flatten()
}

/// Gives every slot its own function back.
fn reset() {
    CORE.hsa_init_fn
        .0
        .store(crate::core_api::hsa_init as *mut c_void, Ordering::Release);
    CORE.hsa_shut_down_fn.0.store(
        crate::core_api::hsa_shut_down as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_system_get_info_fn.0.store(
        crate::core_api::hsa_system_get_info as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_system_extension_supported_fn.0.store(
        crate::core_api::hsa_system_extension_supported as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_system_get_extension_table_fn.0.store(
        crate::core_api::hsa_system_get_extension_table as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_iterate_agents_fn.0.store(
        crate::core_api::hsa_iterate_agents as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_agent_get_info_fn.0.store(
        crate::core_api::hsa_agent_get_info as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_queue_create_fn.0.store(
        crate::core_api::hsa_queue_create as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_soft_queue_create_fn.0.store(
        crate::core_api::hsa_soft_queue_create as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_queue_destroy_fn.0.store(
        crate::core_api::hsa_queue_destroy as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_queue_inactivate_fn.0.store(
        crate::core_api::hsa_queue_inactivate as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_queue_load_read_index_scacquire_fn.0.store(
        crate::core_api::hsa_queue_load_read_index_scacquire as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_queue_load_read_index_relaxed_fn.0.store(
        crate::core_api::hsa_queue_load_read_index_relaxed as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_queue_load_write_index_scacquire_fn.0.store(
        crate::core_api::hsa_queue_load_write_index_scacquire as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_queue_load_write_index_relaxed_fn.0.store(
        crate::core_api::hsa_queue_load_write_index_relaxed as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_queue_store_write_index_relaxed_fn.0.store(
        crate::core_api::hsa_queue_store_write_index_relaxed as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_queue_store_write_index_screlease_fn.0.store(
        crate::core_api::hsa_queue_store_write_index_screlease as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_queue_cas_write_index_scacq_screl_fn.0.store(
        crate::core_api::hsa_queue_cas_write_index_scacq_screl as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_queue_cas_write_index_scacquire_fn.0.store(
        crate::core_api::hsa_queue_cas_write_index_scacquire as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_queue_cas_write_index_relaxed_fn.0.store(
        crate::core_api::hsa_queue_cas_write_index_relaxed as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_queue_cas_write_index_screlease_fn.0.store(
        crate::core_api::hsa_queue_cas_write_index_screlease as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_queue_add_write_index_scacq_screl_fn.0.store(
        crate::core_api::hsa_queue_add_write_index_scacq_screl as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_queue_add_write_index_scacquire_fn.0.store(
        crate::core_api::hsa_queue_add_write_index_scacquire as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_queue_add_write_index_relaxed_fn.0.store(
        crate::core_api::hsa_queue_add_write_index_relaxed as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_queue_add_write_index_screlease_fn.0.store(
        crate::core_api::hsa_queue_add_write_index_screlease as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_queue_store_read_index_relaxed_fn.0.store(
        crate::core_api::hsa_queue_store_read_index_relaxed as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_queue_store_read_index_screlease_fn.0.store(
        crate::core_api::hsa_queue_store_read_index_screlease as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_agent_iterate_regions_fn.0.store(
        crate::core_api::hsa_agent_iterate_regions as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_region_get_info_fn.0.store(
        crate::core_api::hsa_region_get_info as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_agent_get_exception_policies_fn.0.store(
        crate::core_api::hsa_agent_get_exception_policies as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_agent_extension_supported_fn.0.store(
        crate::core_api::hsa_agent_extension_supported as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_memory_register_fn.0.store(
        crate::core_api::hsa_memory_register as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_memory_deregister_fn.0.store(
        crate::core_api::hsa_memory_deregister as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_memory_allocate_fn.0.store(
        crate::core_api::hsa_memory_allocate as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_memory_free_fn.0.store(
        crate::core_api::hsa_memory_free as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_memory_copy_fn.0.store(
        crate::core_api::hsa_memory_copy as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_memory_assign_agent_fn.0.store(
        crate::core_api::hsa_memory_assign_agent as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_create_fn.0.store(
        crate::signal_api::hsa_signal_create as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_destroy_fn.0.store(
        crate::signal_api::hsa_signal_destroy as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_load_relaxed_fn.0.store(
        crate::signal_api::hsa_signal_load_relaxed as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_load_scacquire_fn.0.store(
        crate::signal_api::hsa_signal_load_scacquire as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_store_relaxed_fn.0.store(
        crate::signal_api::hsa_signal_store_relaxed as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_store_screlease_fn.0.store(
        crate::signal_api::hsa_signal_store_screlease as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_wait_relaxed_fn.0.store(
        crate::signal_api::hsa_signal_wait_relaxed as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_wait_scacquire_fn.0.store(
        crate::signal_api::hsa_signal_wait_scacquire as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_and_relaxed_fn.0.store(
        crate::signal_api::hsa_signal_and_relaxed as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_and_scacquire_fn.0.store(
        crate::signal_api::hsa_signal_and_scacquire as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_and_screlease_fn.0.store(
        crate::signal_api::hsa_signal_and_screlease as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_and_scacq_screl_fn.0.store(
        crate::signal_api::hsa_signal_and_scacq_screl as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_or_relaxed_fn.0.store(
        crate::signal_api::hsa_signal_or_relaxed as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_or_scacquire_fn.0.store(
        crate::signal_api::hsa_signal_or_scacquire as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_or_screlease_fn.0.store(
        crate::signal_api::hsa_signal_or_screlease as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_or_scacq_screl_fn.0.store(
        crate::signal_api::hsa_signal_or_scacq_screl as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_xor_relaxed_fn.0.store(
        crate::signal_api::hsa_signal_xor_relaxed as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_xor_scacquire_fn.0.store(
        crate::signal_api::hsa_signal_xor_scacquire as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_xor_screlease_fn.0.store(
        crate::signal_api::hsa_signal_xor_screlease as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_xor_scacq_screl_fn.0.store(
        crate::signal_api::hsa_signal_xor_scacq_screl as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_exchange_relaxed_fn.0.store(
        crate::signal_api::hsa_signal_exchange_relaxed as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_exchange_scacquire_fn.0.store(
        crate::signal_api::hsa_signal_exchange_scacquire as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_exchange_screlease_fn.0.store(
        crate::signal_api::hsa_signal_exchange_screlease as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_exchange_scacq_screl_fn.0.store(
        crate::signal_api::hsa_signal_exchange_scacq_screl as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_add_relaxed_fn.0.store(
        crate::signal_api::hsa_signal_add_relaxed as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_add_scacquire_fn.0.store(
        crate::signal_api::hsa_signal_add_scacquire as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_add_screlease_fn.0.store(
        crate::signal_api::hsa_signal_add_screlease as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_add_scacq_screl_fn.0.store(
        crate::signal_api::hsa_signal_add_scacq_screl as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_subtract_relaxed_fn.0.store(
        crate::signal_api::hsa_signal_subtract_relaxed as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_subtract_scacquire_fn.0.store(
        crate::signal_api::hsa_signal_subtract_scacquire as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_subtract_screlease_fn.0.store(
        crate::signal_api::hsa_signal_subtract_screlease as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_subtract_scacq_screl_fn.0.store(
        crate::signal_api::hsa_signal_subtract_scacq_screl as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_cas_relaxed_fn.0.store(
        crate::signal_api::hsa_signal_cas_relaxed as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_cas_scacquire_fn.0.store(
        crate::signal_api::hsa_signal_cas_scacquire as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_cas_screlease_fn.0.store(
        crate::signal_api::hsa_signal_cas_screlease as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_cas_scacq_screl_fn.0.store(
        crate::signal_api::hsa_signal_cas_scacq_screl as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_isa_from_name_fn.0.store(
        crate::core_api::hsa_isa_from_name as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_isa_get_info_fn.0.store(
        crate::core_api::hsa_isa_get_info as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_isa_compatible_fn.0.store(
        crate::core_api::hsa_isa_compatible as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_code_object_serialize_fn.0.store(
        crate::core_api::hsa_code_object_serialize as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_code_object_deserialize_fn.0.store(
        crate::core_api::hsa_code_object_deserialize as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_code_object_destroy_fn.0.store(
        crate::core_api::hsa_code_object_destroy as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_code_object_get_info_fn.0.store(
        crate::core_api::hsa_code_object_get_info as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_code_object_get_symbol_fn.0.store(
        crate::core_api::hsa_code_object_get_symbol as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_code_symbol_get_info_fn.0.store(
        crate::core_api::hsa_code_symbol_get_info as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_code_object_iterate_symbols_fn.0.store(
        crate::core_api::hsa_code_object_iterate_symbols as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_executable_create_fn.0.store(
        crate::core_api::hsa_executable_create as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_executable_destroy_fn.0.store(
        crate::core_api::hsa_executable_destroy as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_executable_load_code_object_fn.0.store(
        crate::core_api::hsa_executable_load_code_object as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_executable_freeze_fn.0.store(
        crate::core_api::hsa_executable_freeze as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_executable_get_info_fn.0.store(
        crate::core_api::hsa_executable_get_info as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_executable_global_variable_define_fn.0.store(
        crate::core_api::hsa_executable_global_variable_define as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_executable_agent_global_variable_define_fn.0.store(
        crate::core_api::hsa_executable_agent_global_variable_define as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_executable_readonly_variable_define_fn.0.store(
        crate::core_api::hsa_executable_readonly_variable_define as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_executable_validate_fn.0.store(
        crate::core_api::hsa_executable_validate as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_executable_get_symbol_fn.0.store(
        crate::core_api::hsa_executable_get_symbol as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_executable_symbol_get_info_fn.0.store(
        crate::core_api::hsa_executable_symbol_get_info as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_executable_iterate_symbols_fn.0.store(
        crate::core_api::hsa_executable_iterate_symbols as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_status_string_fn.0.store(
        crate::ext::hsa_status_string as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_extension_get_name_fn.0.store(
        crate::core_api::hsa_extension_get_name as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_system_major_extension_supported_fn.0.store(
        crate::core_api::hsa_system_major_extension_supported as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_system_get_major_extension_table_fn.0.store(
        crate::core_api::hsa_system_get_major_extension_table as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_agent_major_extension_supported_fn.0.store(
        crate::core_api::hsa_agent_major_extension_supported as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_cache_get_info_fn.0.store(
        crate::core_api::hsa_cache_get_info as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_agent_iterate_caches_fn.0.store(
        crate::core_api::hsa_agent_iterate_caches as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_silent_store_relaxed_fn.0.store(
        crate::signal_api::hsa_signal_silent_store_relaxed as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_silent_store_screlease_fn.0.store(
        crate::signal_api::hsa_signal_silent_store_screlease as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_group_create_fn.0.store(
        crate::signal_api::hsa_signal_group_create as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_group_destroy_fn.0.store(
        crate::signal_api::hsa_signal_group_destroy as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_group_wait_any_scacquire_fn.0.store(
        crate::signal_api::hsa_signal_group_wait_any_scacquire as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_signal_group_wait_any_relaxed_fn.0.store(
        crate::signal_api::hsa_signal_group_wait_any_relaxed as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_agent_iterate_isas_fn.0.store(
        crate::core_api::hsa_agent_iterate_isas as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_isa_get_info_alt_fn.0.store(
        crate::core_api::hsa_isa_get_info_alt as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_isa_get_exception_policies_fn.0.store(
        crate::core_api::hsa_isa_get_exception_policies as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_isa_get_round_method_fn.0.store(
        crate::core_api::hsa_isa_get_round_method as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_wavefront_get_info_fn.0.store(
        crate::core_api::hsa_wavefront_get_info as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_isa_iterate_wavefronts_fn.0.store(
        crate::core_api::hsa_isa_iterate_wavefronts as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_code_object_get_symbol_from_name_fn.0.store(
        crate::core_api::hsa_code_object_get_symbol_from_name as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_code_object_reader_create_from_file_fn.0.store(
        crate::core_api::hsa_code_object_reader_create_from_file as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_code_object_reader_create_from_memory_fn.0.store(
        crate::core_api::hsa_code_object_reader_create_from_memory as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_code_object_reader_destroy_fn.0.store(
        crate::core_api::hsa_code_object_reader_destroy as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_executable_create_alt_fn.0.store(
        crate::core_api::hsa_executable_create_alt as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_executable_load_program_code_object_fn.0.store(
        crate::core_api::hsa_executable_load_program_code_object as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_executable_load_agent_code_object_fn.0.store(
        crate::core_api::hsa_executable_load_agent_code_object as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_executable_validate_alt_fn.0.store(
        crate::core_api::hsa_executable_validate_alt as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_executable_get_symbol_by_name_fn.0.store(
        crate::core_api::hsa_executable_get_symbol_by_name as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_executable_iterate_agent_symbols_fn.0.store(
        crate::core_api::hsa_executable_iterate_agent_symbols as *mut c_void,
        Ordering::Release,
    );
    CORE.hsa_executable_iterate_program_symbols_fn.0.store(
        crate::core_api::hsa_executable_iterate_program_symbols as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_coherency_get_type_fn.0.store(
        crate::amd_api::hsa_amd_coherency_get_type as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_coherency_set_type_fn.0.store(
        crate::amd_api::hsa_amd_coherency_set_type as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_profiling_set_profiler_enabled_fn.0.store(
        crate::amd_api::hsa_amd_profiling_set_profiler_enabled as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_profiling_async_copy_enable_fn.0.store(
        crate::amd_api::hsa_amd_profiling_async_copy_enable as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_profiling_get_dispatch_time_fn.0.store(
        crate::amd_api::hsa_amd_profiling_get_dispatch_time as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_profiling_get_async_copy_time_fn.0.store(
        crate::amd_api::hsa_amd_profiling_get_async_copy_time as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT
        .hsa_amd_profiling_convert_tick_to_system_domain_fn
        .0
        .store(
            crate::amd_api::hsa_amd_profiling_convert_tick_to_system_domain as *mut c_void,
            Ordering::Release,
        );
    AMD_EXT.hsa_amd_signal_async_handler_fn.0.store(
        crate::signal_api::hsa_amd_signal_async_handler as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_async_function_fn.0.store(
        crate::signal_api::hsa_amd_async_function as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_signal_wait_any_fn.0.store(
        crate::signal_api::hsa_amd_signal_wait_any as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_queue_cu_set_mask_fn.0.store(
        crate::amd_api::hsa_amd_queue_cu_set_mask as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_memory_pool_get_info_fn.0.store(
        crate::amd_api::hsa_amd_memory_pool_get_info as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_agent_iterate_memory_pools_fn.0.store(
        crate::amd_api::hsa_amd_agent_iterate_memory_pools as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_memory_pool_allocate_fn.0.store(
        crate::amd_api::hsa_amd_memory_pool_allocate as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_memory_pool_free_fn.0.store(
        crate::amd_api::hsa_amd_memory_pool_free as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_memory_async_copy_fn.0.store(
        crate::amd_api::hsa_amd_memory_async_copy as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_agent_memory_pool_get_info_fn.0.store(
        crate::amd_api::hsa_amd_agent_memory_pool_get_info as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_agents_allow_access_fn.0.store(
        crate::amd_api::hsa_amd_agents_allow_access as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_memory_pool_can_migrate_fn.0.store(
        crate::amd_api::hsa_amd_memory_pool_can_migrate as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_memory_migrate_fn.0.store(
        crate::amd_api::hsa_amd_memory_migrate as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_memory_lock_fn.0.store(
        crate::amd_api::hsa_amd_memory_lock as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_memory_unlock_fn.0.store(
        crate::amd_api::hsa_amd_memory_unlock as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_memory_fill_fn.0.store(
        crate::amd_api::hsa_amd_memory_fill as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_interop_map_buffer_fn.0.store(
        crate::amd_api::hsa_amd_interop_map_buffer as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_interop_unmap_buffer_fn.0.store(
        crate::amd_api::hsa_amd_interop_unmap_buffer as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_image_create_fn.0.store(
        crate::ext::hsa_amd_image_create as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_pointer_info_fn.0.store(
        crate::amd_api::hsa_amd_pointer_info as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_pointer_info_set_userdata_fn.0.store(
        crate::amd_api::hsa_amd_pointer_info_set_userdata as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_ipc_memory_create_fn.0.store(
        crate::amd_api::hsa_amd_ipc_memory_create as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_ipc_memory_attach_fn.0.store(
        crate::amd_api::hsa_amd_ipc_memory_attach as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_ipc_memory_detach_fn.0.store(
        crate::amd_api::hsa_amd_ipc_memory_detach as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_signal_create_fn.0.store(
        crate::signal_api::hsa_amd_signal_create as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_ipc_signal_create_fn.0.store(
        crate::amd_api::hsa_amd_ipc_signal_create as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_ipc_signal_attach_fn.0.store(
        crate::amd_api::hsa_amd_ipc_signal_attach as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_register_system_event_handler_fn.0.store(
        crate::amd_api::hsa_amd_register_system_event_handler as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_queue_intercept_create_fn.0.store(
        crate::amd_api::hsa_amd_queue_intercept_create as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_queue_intercept_register_fn.0.store(
        crate::amd_api::hsa_amd_queue_intercept_register as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_queue_set_priority_fn.0.store(
        crate::amd_api::hsa_amd_queue_set_priority as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_memory_async_copy_rect_fn.0.store(
        crate::amd_api::hsa_amd_memory_async_copy_rect as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_runtime_queue_create_register_fn.0.store(
        crate::amd_api::hsa_amd_runtime_queue_create_register as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_memory_lock_to_pool_fn.0.store(
        crate::amd_api::hsa_amd_memory_lock_to_pool as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_register_deallocation_callback_fn.0.store(
        crate::amd_api::hsa_amd_register_deallocation_callback as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_deregister_deallocation_callback_fn.0.store(
        crate::amd_api::hsa_amd_deregister_deallocation_callback as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_signal_value_pointer_fn.0.store(
        crate::signal_api::hsa_amd_signal_value_pointer as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_svm_attributes_set_fn.0.store(
        crate::amd_api::hsa_amd_svm_attributes_set as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_svm_attributes_get_fn.0.store(
        crate::amd_api::hsa_amd_svm_attributes_get as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_svm_prefetch_async_fn.0.store(
        crate::amd_api::hsa_amd_svm_prefetch_async as *mut c_void,
        Ordering::Release,
    );
    AMD_EXT.hsa_amd_queue_cu_get_mask_fn.0.store(
        crate::amd_api::hsa_amd_queue_cu_get_mask as *mut c_void,
        Ordering::Release,
    );
    FINALIZER_EXT.hsa_ext_program_create_fn.0.store(
        crate::ext::hsa_ext_program_create as *mut c_void,
        Ordering::Release,
    );
    FINALIZER_EXT.hsa_ext_program_destroy_fn.0.store(
        crate::ext::hsa_ext_program_destroy as *mut c_void,
        Ordering::Release,
    );
    FINALIZER_EXT.hsa_ext_program_add_module_fn.0.store(
        crate::ext::hsa_ext_program_add_module as *mut c_void,
        Ordering::Release,
    );
    FINALIZER_EXT.hsa_ext_program_iterate_modules_fn.0.store(
        crate::ext::hsa_ext_program_iterate_modules as *mut c_void,
        Ordering::Release,
    );
    FINALIZER_EXT.hsa_ext_program_get_info_fn.0.store(
        crate::ext::hsa_ext_program_get_info as *mut c_void,
        Ordering::Release,
    );
    FINALIZER_EXT.hsa_ext_program_finalize_fn.0.store(
        crate::ext::hsa_ext_program_finalize as *mut c_void,
        Ordering::Release,
    );
    IMAGE_EXT.hsa_ext_image_get_capability_fn.0.store(
        crate::ext::hsa_ext_image_get_capability as *mut c_void,
        Ordering::Release,
    );
    IMAGE_EXT.hsa_ext_image_data_get_info_fn.0.store(
        crate::ext::hsa_ext_image_data_get_info as *mut c_void,
        Ordering::Release,
    );
    IMAGE_EXT.hsa_ext_image_create_fn.0.store(
        crate::ext::hsa_ext_image_create as *mut c_void,
        Ordering::Release,
    );
    IMAGE_EXT.hsa_ext_image_import_fn.0.store(
        crate::ext::hsa_ext_image_import as *mut c_void,
        Ordering::Release,
    );
    IMAGE_EXT.hsa_ext_image_export_fn.0.store(
        crate::ext::hsa_ext_image_export as *mut c_void,
        Ordering::Release,
    );
    IMAGE_EXT.hsa_ext_image_copy_fn.0.store(
        crate::ext::hsa_ext_image_copy as *mut c_void,
        Ordering::Release,
    );
    IMAGE_EXT.hsa_ext_image_clear_fn.0.store(
        crate::ext::hsa_ext_image_clear as *mut c_void,
        Ordering::Release,
    );
    IMAGE_EXT.hsa_ext_image_destroy_fn.0.store(
        crate::ext::hsa_ext_image_destroy as *mut c_void,
        Ordering::Release,
    );
    IMAGE_EXT.hsa_ext_sampler_create_fn.0.store(
        crate::ext::hsa_ext_sampler_create as *mut c_void,
        Ordering::Release,
    );
    IMAGE_EXT.hsa_ext_sampler_destroy_fn.0.store(
        crate::ext::hsa_ext_sampler_destroy as *mut c_void,
        Ordering::Release,
    );
    IMAGE_EXT
        .hsa_ext_image_get_capability_with_layout_fn
        .0
        .store(
            crate::ext::hsa_ext_image_get_capability_with_layout as *mut c_void,
            Ordering::Release,
        );
    IMAGE_EXT
        .hsa_ext_image_data_get_info_with_layout_fn
        .0
        .store(
            crate::ext::hsa_ext_image_data_get_info_with_layout as *mut c_void,
            Ordering::Release,
        );
    IMAGE_EXT.hsa_ext_image_create_with_layout_fn.0.store(
        crate::ext::hsa_ext_image_create_with_layout as *mut c_void,
        Ordering::Release,
    );
    ROOT.core_.store(
        &CORE as *const CoreApiTable as *mut CoreApiTable,
        Ordering::Release,
    );
    ROOT.amd_ext_.store(
        &AMD_EXT as *const AmdExtTable as *mut AmdExtTable,
        Ordering::Release,
    );
    ROOT.finalizer_ext_.store(
        &FINALIZER_EXT as *const FinalizerExtTable as *mut FinalizerExtTable,
        Ordering::Release,
    );
    ROOT.image_ext_.store(
        &IMAGE_EXT as *const ImageExtTable as *mut ImageExtTable,
        Ordering::Release,
    );
}

unsafe extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlclose(handle: *mut c_void) -> c_int;
    fn dlerror() -> *mut c_char;
}

const RTLD_NOW: c_int = 2;

/// The tools loaded, in load order.
static TOOLS: Mutex<Vec<usize>> = Mutex::new(Vec::new());

type OnLoad = unsafe extern "C" fn(*mut HsaApiTable, u64, u64, *const *const c_char) -> bool;
type OnUnload = unsafe extern "C" fn();

fn dl_error() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated string.
    let e = unsafe { dlerror() };
    if e.is_null() {
        "unknown error".into()
    } else {
        // SAFETY: non-NULL, NUL-terminated.
        unsafe { core::ffi::CStr::from_ptr(e) }
            .to_string_lossy()
            .into_owned()
    }
}

/// Loads `HSA_TOOLS_LIB`'s libraries and calls their `OnLoad` (the first
/// `hsa_init`).
pub(crate) fn load(flags: &runtime::flags::Flags) {
    let Some(names) = flags.tools_lib.clone() else {
        return;
    };
    let mut tools = crate::state::lock(&TOOLS);
    let mut failed: Vec<std::ffi::CString> = Vec::new();
    for name in names.split_whitespace() {
        let Ok(c) = std::ffi::CString::new(name) else {
            continue;
        };
        // SAFETY: a NUL-terminated path; the library's constructors run,
        // as with ROCr's LoadLib.
        let lib = unsafe { dlopen(c.as_ptr(), RTLD_NOW) };
        if lib.is_null() {
            if flags.tools_report_load_failure {
                eprintln!("Tool lib \"{name}\" failed to load: {}", dl_error());
            }
            continue;
        }
        // SAFETY: a live handle and a NUL-terminated name.
        let on_load = unsafe { dlsym(lib, c"OnLoad".as_ptr()) };
        if !on_load.is_null() {
            // SAFETY: `OnLoad` has the signature of hsa_api_trace.h's loader.
            let f: OnLoad = unsafe { core::mem::transmute::<*mut c_void, OnLoad>(on_load) };
            let ptrs: Vec<*const c_char> = failed.iter().map(|s| s.as_ptr()).collect();
            // SAFETY: the root table lives for the process; the failed
            // names outlive the call.
            let ok = unsafe {
                f(
                    &ROOT as *const HsaApiTable as *mut HsaApiTable,
                    u64::from(ROOT.version.major_id),
                    ptrs.len() as u64,
                    ptrs.as_ptr(),
                )
            };
            if !ok {
                failed.push(c);
                // SAFETY: our handle, no longer used.
                unsafe { dlclose(lib) };
                continue;
            }
        }
        tools.push(lib as usize);
    }
}

/// Calls each tool's `OnUnload` (last loaded first), unloads them and
/// resets the tables (the last `hsa_shut_down`).
pub(crate) fn unload() {
    let tools: Vec<usize> = std::mem::take(&mut *crate::state::lock(&TOOLS));
    for &lib in tools.iter().rev() {
        // SAFETY: a live handle and a NUL-terminated name.
        let f = unsafe { dlsym(lib as *mut c_void, c"OnUnload".as_ptr()) };
        if !f.is_null() {
            // SAFETY: `OnUnload` is `void (void)` in the tools ABI.
            let f: OnUnload = unsafe { core::mem::transmute::<*mut c_void, OnUnload>(f) };
            // SAFETY: the tool's own function.
            unsafe { f() };
        }
    }
    reset();
    crate::trace::install();
    for lib in tools.into_iter().rev() {
        // SAFETY: our handle; nothing points into the tool any more.
        unsafe { dlclose(lib as *mut c_void) };
    }
}
