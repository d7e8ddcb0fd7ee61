//! The exported symbols: each `hsa_*` function of ROCr 5.2.3's
//! `libhsa-runtime64.so.1`, a global trampoline (one `jmp`) to the Rust
//! function of the same name, and the `_amdgpu_r_debug` data object.
//!
//! They are defined here in assembly, not with `#[no_mangle]`, so that
//! rustc's own version script (which lists `#[no_mangle]` items as
//! unversioned globals, and which lld lets win over ours) does not name
//! them: `rocr_1.map` then gives every one of them the version `ROCR_1`
//! and hides everything else. The list is Debian's export list
//! (`cabi/tests/exports.rs` diffs the two) plus ROCr 6.x's
//! `hsa_amd_vmem_*` calls (also `ROCR_1` in ROCr 6's `hsacore.so.def`).

#![allow(unsafe_code)]

macro_rules! direct {
    ($($module:ident :: $name:ident),* $(,)?) => {$(
        core::arch::global_asm!(
            concat!(
                ".pushsection .text.rocr_export.", stringify!($name), ",\"ax\",@progbits\n",
                ".globl ", stringify!($name), "\n",
                ".type ", stringify!($name), ",@function\n",
                ".p2align 4\n",
                stringify!($name), ":\n",
                "    jmp {f}\n",
                ".size ", stringify!($name), ", . - ", stringify!($name), "\n",
                ".popsection\n",
            ),
            f = sym crate::$module::$name,
        );
    )*};
}

/// Exports that jump through their API table slot (`tools.rs`), so that a
/// tools library that replaces the slot intercepts them.
macro_rules! through_table {
    ($($name:ident => $table:ident . $ty:ident . $slot:ident),* $(,)?) => {$(
        core::arch::global_asm!(
            concat!(
                ".pushsection .text.rocr_export.", stringify!($name), ",\"ax\",@progbits\n",
                ".globl ", stringify!($name), "\n",
                ".type ", stringify!($name), ",@function\n",
                ".p2align 4\n",
                stringify!($name), ":\n",
                "    jmp *({t} + {off})(%rip)\n",
                ".size ", stringify!($name), ", . - ", stringify!($name), "\n",
                ".popsection\n",
            ),
            t = sym crate::tools::$table,
            off = const core::mem::offset_of!(crate::tools::$ty, $slot),
            options(att_syntax),
        );
    )*};
}

direct! {
    ext::hsa_amd_image_get_info_max_dim,
}

// ROCr 6.x's virtual memory calls and asynchronous scratch limit: beyond
// 5.2.3's export list, and with no slot in its API table, so they jump to
// their functions directly.
direct! {
    amd_api::hsa_amd_agent_set_async_scratch_limit,
    vmem_api::hsa_amd_vmem_address_reserve,
    vmem_api::hsa_amd_vmem_address_reserve_align,
    vmem_api::hsa_amd_vmem_address_free,
    vmem_api::hsa_amd_vmem_handle_create,
    vmem_api::hsa_amd_vmem_handle_release,
    vmem_api::hsa_amd_vmem_map,
    vmem_api::hsa_amd_vmem_unmap,
    vmem_api::hsa_amd_vmem_set_access,
    vmem_api::hsa_amd_vmem_get_access,
    vmem_api::hsa_amd_vmem_export_shareable_handle,
    vmem_api::hsa_amd_vmem_import_shareable_handle,
    vmem_api::hsa_amd_vmem_retain_alloc_handle,
    vmem_api::hsa_amd_vmem_get_alloc_properties_from_handle,
}

through_table! {
    hsa_agent_extension_supported => CORE.CoreApiTable.hsa_agent_extension_supported_fn,
    hsa_agent_get_exception_policies => CORE.CoreApiTable.hsa_agent_get_exception_policies_fn,
    hsa_agent_get_info => CORE.CoreApiTable.hsa_agent_get_info_fn,
    hsa_agent_iterate_caches => CORE.CoreApiTable.hsa_agent_iterate_caches_fn,
    hsa_agent_iterate_isas => CORE.CoreApiTable.hsa_agent_iterate_isas_fn,
    hsa_agent_iterate_regions => CORE.CoreApiTable.hsa_agent_iterate_regions_fn,
    hsa_agent_major_extension_supported => CORE.CoreApiTable.hsa_agent_major_extension_supported_fn,
    hsa_amd_agent_iterate_memory_pools => AMD_EXT.AmdExtTable.hsa_amd_agent_iterate_memory_pools_fn,
    hsa_amd_agent_memory_pool_get_info => AMD_EXT.AmdExtTable.hsa_amd_agent_memory_pool_get_info_fn,
    hsa_amd_agents_allow_access => AMD_EXT.AmdExtTable.hsa_amd_agents_allow_access_fn,
    hsa_amd_async_function => AMD_EXT.AmdExtTable.hsa_amd_async_function_fn,
    hsa_amd_coherency_get_type => AMD_EXT.AmdExtTable.hsa_amd_coherency_get_type_fn,
    hsa_amd_coherency_set_type => AMD_EXT.AmdExtTable.hsa_amd_coherency_set_type_fn,
    hsa_amd_deregister_deallocation_callback => AMD_EXT.AmdExtTable.hsa_amd_deregister_deallocation_callback_fn,
    hsa_amd_image_create => AMD_EXT.AmdExtTable.hsa_amd_image_create_fn,
    hsa_amd_interop_map_buffer => AMD_EXT.AmdExtTable.hsa_amd_interop_map_buffer_fn,
    hsa_amd_interop_unmap_buffer => AMD_EXT.AmdExtTable.hsa_amd_interop_unmap_buffer_fn,
    hsa_amd_ipc_memory_attach => AMD_EXT.AmdExtTable.hsa_amd_ipc_memory_attach_fn,
    hsa_amd_ipc_memory_create => AMD_EXT.AmdExtTable.hsa_amd_ipc_memory_create_fn,
    hsa_amd_ipc_memory_detach => AMD_EXT.AmdExtTable.hsa_amd_ipc_memory_detach_fn,
    hsa_amd_ipc_signal_attach => AMD_EXT.AmdExtTable.hsa_amd_ipc_signal_attach_fn,
    hsa_amd_ipc_signal_create => AMD_EXT.AmdExtTable.hsa_amd_ipc_signal_create_fn,
    hsa_amd_memory_async_copy => AMD_EXT.AmdExtTable.hsa_amd_memory_async_copy_fn,
    hsa_amd_memory_async_copy_rect => AMD_EXT.AmdExtTable.hsa_amd_memory_async_copy_rect_fn,
    hsa_amd_memory_fill => AMD_EXT.AmdExtTable.hsa_amd_memory_fill_fn,
    hsa_amd_memory_lock => AMD_EXT.AmdExtTable.hsa_amd_memory_lock_fn,
    hsa_amd_memory_lock_to_pool => AMD_EXT.AmdExtTable.hsa_amd_memory_lock_to_pool_fn,
    hsa_amd_memory_migrate => AMD_EXT.AmdExtTable.hsa_amd_memory_migrate_fn,
    hsa_amd_memory_pool_allocate => AMD_EXT.AmdExtTable.hsa_amd_memory_pool_allocate_fn,
    hsa_amd_memory_pool_can_migrate => AMD_EXT.AmdExtTable.hsa_amd_memory_pool_can_migrate_fn,
    hsa_amd_memory_pool_free => AMD_EXT.AmdExtTable.hsa_amd_memory_pool_free_fn,
    hsa_amd_memory_pool_get_info => AMD_EXT.AmdExtTable.hsa_amd_memory_pool_get_info_fn,
    hsa_amd_memory_unlock => AMD_EXT.AmdExtTable.hsa_amd_memory_unlock_fn,
    hsa_amd_pointer_info => AMD_EXT.AmdExtTable.hsa_amd_pointer_info_fn,
    hsa_amd_pointer_info_set_userdata => AMD_EXT.AmdExtTable.hsa_amd_pointer_info_set_userdata_fn,
    hsa_amd_profiling_async_copy_enable => AMD_EXT.AmdExtTable.hsa_amd_profiling_async_copy_enable_fn,
    hsa_amd_profiling_convert_tick_to_system_domain => AMD_EXT.AmdExtTable.hsa_amd_profiling_convert_tick_to_system_domain_fn,
    hsa_amd_profiling_get_async_copy_time => AMD_EXT.AmdExtTable.hsa_amd_profiling_get_async_copy_time_fn,
    hsa_amd_profiling_get_dispatch_time => AMD_EXT.AmdExtTable.hsa_amd_profiling_get_dispatch_time_fn,
    hsa_amd_profiling_set_profiler_enabled => AMD_EXT.AmdExtTable.hsa_amd_profiling_set_profiler_enabled_fn,
    hsa_amd_queue_cu_get_mask => AMD_EXT.AmdExtTable.hsa_amd_queue_cu_get_mask_fn,
    hsa_amd_queue_cu_set_mask => AMD_EXT.AmdExtTable.hsa_amd_queue_cu_set_mask_fn,
    hsa_amd_queue_set_priority => AMD_EXT.AmdExtTable.hsa_amd_queue_set_priority_fn,
    hsa_amd_register_deallocation_callback => AMD_EXT.AmdExtTable.hsa_amd_register_deallocation_callback_fn,
    hsa_amd_register_system_event_handler => AMD_EXT.AmdExtTable.hsa_amd_register_system_event_handler_fn,
    hsa_amd_signal_async_handler => AMD_EXT.AmdExtTable.hsa_amd_signal_async_handler_fn,
    hsa_amd_signal_create => AMD_EXT.AmdExtTable.hsa_amd_signal_create_fn,
    hsa_amd_signal_value_pointer => AMD_EXT.AmdExtTable.hsa_amd_signal_value_pointer_fn,
    hsa_amd_signal_wait_any => AMD_EXT.AmdExtTable.hsa_amd_signal_wait_any_fn,
    hsa_amd_svm_attributes_get => AMD_EXT.AmdExtTable.hsa_amd_svm_attributes_get_fn,
    hsa_amd_svm_attributes_set => AMD_EXT.AmdExtTable.hsa_amd_svm_attributes_set_fn,
    hsa_amd_svm_prefetch_async => AMD_EXT.AmdExtTable.hsa_amd_svm_prefetch_async_fn,
    hsa_cache_get_info => CORE.CoreApiTable.hsa_cache_get_info_fn,
    hsa_code_object_deserialize => CORE.CoreApiTable.hsa_code_object_deserialize_fn,
    hsa_code_object_destroy => CORE.CoreApiTable.hsa_code_object_destroy_fn,
    hsa_code_object_get_info => CORE.CoreApiTable.hsa_code_object_get_info_fn,
    hsa_code_object_get_symbol => CORE.CoreApiTable.hsa_code_object_get_symbol_fn,
    hsa_code_object_get_symbol_from_name => CORE.CoreApiTable.hsa_code_object_get_symbol_from_name_fn,
    hsa_code_object_iterate_symbols => CORE.CoreApiTable.hsa_code_object_iterate_symbols_fn,
    hsa_code_object_reader_create_from_file => CORE.CoreApiTable.hsa_code_object_reader_create_from_file_fn,
    hsa_code_object_reader_create_from_memory => CORE.CoreApiTable.hsa_code_object_reader_create_from_memory_fn,
    hsa_code_object_reader_destroy => CORE.CoreApiTable.hsa_code_object_reader_destroy_fn,
    hsa_code_object_serialize => CORE.CoreApiTable.hsa_code_object_serialize_fn,
    hsa_code_symbol_get_info => CORE.CoreApiTable.hsa_code_symbol_get_info_fn,
    hsa_executable_agent_global_variable_define => CORE.CoreApiTable.hsa_executable_agent_global_variable_define_fn,
    hsa_executable_create => CORE.CoreApiTable.hsa_executable_create_fn,
    hsa_executable_create_alt => CORE.CoreApiTable.hsa_executable_create_alt_fn,
    hsa_executable_destroy => CORE.CoreApiTable.hsa_executable_destroy_fn,
    hsa_executable_freeze => CORE.CoreApiTable.hsa_executable_freeze_fn,
    hsa_executable_get_info => CORE.CoreApiTable.hsa_executable_get_info_fn,
    hsa_executable_get_symbol => CORE.CoreApiTable.hsa_executable_get_symbol_fn,
    hsa_executable_get_symbol_by_name => CORE.CoreApiTable.hsa_executable_get_symbol_by_name_fn,
    hsa_executable_global_variable_define => CORE.CoreApiTable.hsa_executable_global_variable_define_fn,
    hsa_executable_iterate_agent_symbols => CORE.CoreApiTable.hsa_executable_iterate_agent_symbols_fn,
    hsa_executable_iterate_program_symbols => CORE.CoreApiTable.hsa_executable_iterate_program_symbols_fn,
    hsa_executable_iterate_symbols => CORE.CoreApiTable.hsa_executable_iterate_symbols_fn,
    hsa_executable_load_agent_code_object => CORE.CoreApiTable.hsa_executable_load_agent_code_object_fn,
    hsa_executable_load_code_object => CORE.CoreApiTable.hsa_executable_load_code_object_fn,
    hsa_executable_load_program_code_object => CORE.CoreApiTable.hsa_executable_load_program_code_object_fn,
    hsa_executable_readonly_variable_define => CORE.CoreApiTable.hsa_executable_readonly_variable_define_fn,
    hsa_executable_symbol_get_info => CORE.CoreApiTable.hsa_executable_symbol_get_info_fn,
    hsa_executable_validate => CORE.CoreApiTable.hsa_executable_validate_fn,
    hsa_executable_validate_alt => CORE.CoreApiTable.hsa_executable_validate_alt_fn,
    hsa_ext_image_clear => IMAGE_EXT.ImageExtTable.hsa_ext_image_clear_fn,
    hsa_ext_image_copy => IMAGE_EXT.ImageExtTable.hsa_ext_image_copy_fn,
    hsa_ext_image_create => IMAGE_EXT.ImageExtTable.hsa_ext_image_create_fn,
    hsa_ext_image_create_with_layout => IMAGE_EXT.ImageExtTable.hsa_ext_image_create_with_layout_fn,
    hsa_ext_image_data_get_info => IMAGE_EXT.ImageExtTable.hsa_ext_image_data_get_info_fn,
    hsa_ext_image_data_get_info_with_layout => IMAGE_EXT.ImageExtTable.hsa_ext_image_data_get_info_with_layout_fn,
    hsa_ext_image_destroy => IMAGE_EXT.ImageExtTable.hsa_ext_image_destroy_fn,
    hsa_ext_image_export => IMAGE_EXT.ImageExtTable.hsa_ext_image_export_fn,
    hsa_ext_image_get_capability => IMAGE_EXT.ImageExtTable.hsa_ext_image_get_capability_fn,
    hsa_ext_image_get_capability_with_layout => IMAGE_EXT.ImageExtTable.hsa_ext_image_get_capability_with_layout_fn,
    hsa_ext_image_import => IMAGE_EXT.ImageExtTable.hsa_ext_image_import_fn,
    hsa_ext_program_add_module => FINALIZER_EXT.FinalizerExtTable.hsa_ext_program_add_module_fn,
    hsa_ext_program_create => FINALIZER_EXT.FinalizerExtTable.hsa_ext_program_create_fn,
    hsa_ext_program_destroy => FINALIZER_EXT.FinalizerExtTable.hsa_ext_program_destroy_fn,
    hsa_ext_program_finalize => FINALIZER_EXT.FinalizerExtTable.hsa_ext_program_finalize_fn,
    hsa_ext_program_get_info => FINALIZER_EXT.FinalizerExtTable.hsa_ext_program_get_info_fn,
    hsa_ext_program_iterate_modules => FINALIZER_EXT.FinalizerExtTable.hsa_ext_program_iterate_modules_fn,
    hsa_ext_sampler_create => IMAGE_EXT.ImageExtTable.hsa_ext_sampler_create_fn,
    hsa_ext_sampler_destroy => IMAGE_EXT.ImageExtTable.hsa_ext_sampler_destroy_fn,
    hsa_extension_get_name => CORE.CoreApiTable.hsa_extension_get_name_fn,
    hsa_init => CORE.CoreApiTable.hsa_init_fn,
    hsa_isa_compatible => CORE.CoreApiTable.hsa_isa_compatible_fn,
    hsa_isa_from_name => CORE.CoreApiTable.hsa_isa_from_name_fn,
    hsa_isa_get_exception_policies => CORE.CoreApiTable.hsa_isa_get_exception_policies_fn,
    hsa_isa_get_info => CORE.CoreApiTable.hsa_isa_get_info_fn,
    hsa_isa_get_info_alt => CORE.CoreApiTable.hsa_isa_get_info_alt_fn,
    hsa_isa_get_round_method => CORE.CoreApiTable.hsa_isa_get_round_method_fn,
    hsa_isa_iterate_wavefronts => CORE.CoreApiTable.hsa_isa_iterate_wavefronts_fn,
    hsa_iterate_agents => CORE.CoreApiTable.hsa_iterate_agents_fn,
    hsa_memory_allocate => CORE.CoreApiTable.hsa_memory_allocate_fn,
    hsa_memory_assign_agent => CORE.CoreApiTable.hsa_memory_assign_agent_fn,
    hsa_memory_copy => CORE.CoreApiTable.hsa_memory_copy_fn,
    hsa_memory_deregister => CORE.CoreApiTable.hsa_memory_deregister_fn,
    hsa_memory_free => CORE.CoreApiTable.hsa_memory_free_fn,
    hsa_memory_register => CORE.CoreApiTable.hsa_memory_register_fn,
    hsa_queue_add_write_index_acq_rel => CORE.CoreApiTable.hsa_queue_add_write_index_scacq_screl_fn,
    hsa_queue_add_write_index_acquire => CORE.CoreApiTable.hsa_queue_add_write_index_scacquire_fn,
    hsa_queue_add_write_index_relaxed => CORE.CoreApiTable.hsa_queue_add_write_index_relaxed_fn,
    hsa_queue_add_write_index_release => CORE.CoreApiTable.hsa_queue_add_write_index_screlease_fn,
    hsa_queue_add_write_index_scacq_screl => CORE.CoreApiTable.hsa_queue_add_write_index_scacq_screl_fn,
    hsa_queue_add_write_index_scacquire => CORE.CoreApiTable.hsa_queue_add_write_index_scacquire_fn,
    hsa_queue_add_write_index_screlease => CORE.CoreApiTable.hsa_queue_add_write_index_screlease_fn,
    hsa_queue_cas_write_index_acq_rel => CORE.CoreApiTable.hsa_queue_cas_write_index_scacq_screl_fn,
    hsa_queue_cas_write_index_acquire => CORE.CoreApiTable.hsa_queue_cas_write_index_scacquire_fn,
    hsa_queue_cas_write_index_relaxed => CORE.CoreApiTable.hsa_queue_cas_write_index_relaxed_fn,
    hsa_queue_cas_write_index_release => CORE.CoreApiTable.hsa_queue_cas_write_index_screlease_fn,
    hsa_queue_cas_write_index_scacq_screl => CORE.CoreApiTable.hsa_queue_cas_write_index_scacq_screl_fn,
    hsa_queue_cas_write_index_scacquire => CORE.CoreApiTable.hsa_queue_cas_write_index_scacquire_fn,
    hsa_queue_cas_write_index_screlease => CORE.CoreApiTable.hsa_queue_cas_write_index_screlease_fn,
    hsa_queue_create => CORE.CoreApiTable.hsa_queue_create_fn,
    hsa_queue_destroy => CORE.CoreApiTable.hsa_queue_destroy_fn,
    hsa_queue_inactivate => CORE.CoreApiTable.hsa_queue_inactivate_fn,
    hsa_queue_load_read_index_acquire => CORE.CoreApiTable.hsa_queue_load_read_index_scacquire_fn,
    hsa_queue_load_read_index_relaxed => CORE.CoreApiTable.hsa_queue_load_read_index_relaxed_fn,
    hsa_queue_load_read_index_scacquire => CORE.CoreApiTable.hsa_queue_load_read_index_scacquire_fn,
    hsa_queue_load_write_index_acquire => CORE.CoreApiTable.hsa_queue_load_write_index_scacquire_fn,
    hsa_queue_load_write_index_relaxed => CORE.CoreApiTable.hsa_queue_load_write_index_relaxed_fn,
    hsa_queue_load_write_index_scacquire => CORE.CoreApiTable.hsa_queue_load_write_index_scacquire_fn,
    hsa_queue_store_read_index_relaxed => CORE.CoreApiTable.hsa_queue_store_read_index_relaxed_fn,
    hsa_queue_store_read_index_release => CORE.CoreApiTable.hsa_queue_store_read_index_screlease_fn,
    hsa_queue_store_read_index_screlease => CORE.CoreApiTable.hsa_queue_store_read_index_screlease_fn,
    hsa_queue_store_write_index_relaxed => CORE.CoreApiTable.hsa_queue_store_write_index_relaxed_fn,
    hsa_queue_store_write_index_release => CORE.CoreApiTable.hsa_queue_store_write_index_screlease_fn,
    hsa_queue_store_write_index_screlease => CORE.CoreApiTable.hsa_queue_store_write_index_screlease_fn,
    hsa_region_get_info => CORE.CoreApiTable.hsa_region_get_info_fn,
    hsa_shut_down => CORE.CoreApiTable.hsa_shut_down_fn,
    hsa_signal_add_acq_rel => CORE.CoreApiTable.hsa_signal_add_scacq_screl_fn,
    hsa_signal_add_acquire => CORE.CoreApiTable.hsa_signal_add_scacquire_fn,
    hsa_signal_add_relaxed => CORE.CoreApiTable.hsa_signal_add_relaxed_fn,
    hsa_signal_add_release => CORE.CoreApiTable.hsa_signal_add_screlease_fn,
    hsa_signal_add_scacq_screl => CORE.CoreApiTable.hsa_signal_add_scacq_screl_fn,
    hsa_signal_add_scacquire => CORE.CoreApiTable.hsa_signal_add_scacquire_fn,
    hsa_signal_add_screlease => CORE.CoreApiTable.hsa_signal_add_screlease_fn,
    hsa_signal_and_acq_rel => CORE.CoreApiTable.hsa_signal_and_scacq_screl_fn,
    hsa_signal_and_acquire => CORE.CoreApiTable.hsa_signal_and_scacquire_fn,
    hsa_signal_and_relaxed => CORE.CoreApiTable.hsa_signal_and_relaxed_fn,
    hsa_signal_and_release => CORE.CoreApiTable.hsa_signal_and_screlease_fn,
    hsa_signal_and_scacq_screl => CORE.CoreApiTable.hsa_signal_and_scacq_screl_fn,
    hsa_signal_and_scacquire => CORE.CoreApiTable.hsa_signal_and_scacquire_fn,
    hsa_signal_and_screlease => CORE.CoreApiTable.hsa_signal_and_screlease_fn,
    hsa_signal_cas_acq_rel => CORE.CoreApiTable.hsa_signal_cas_scacq_screl_fn,
    hsa_signal_cas_acquire => CORE.CoreApiTable.hsa_signal_cas_scacquire_fn,
    hsa_signal_cas_relaxed => CORE.CoreApiTable.hsa_signal_cas_relaxed_fn,
    hsa_signal_cas_release => CORE.CoreApiTable.hsa_signal_cas_screlease_fn,
    hsa_signal_cas_scacq_screl => CORE.CoreApiTable.hsa_signal_cas_scacq_screl_fn,
    hsa_signal_cas_scacquire => CORE.CoreApiTable.hsa_signal_cas_scacquire_fn,
    hsa_signal_cas_screlease => CORE.CoreApiTable.hsa_signal_cas_screlease_fn,
    hsa_signal_create => CORE.CoreApiTable.hsa_signal_create_fn,
    hsa_signal_destroy => CORE.CoreApiTable.hsa_signal_destroy_fn,
    hsa_signal_exchange_acq_rel => CORE.CoreApiTable.hsa_signal_exchange_scacq_screl_fn,
    hsa_signal_exchange_acquire => CORE.CoreApiTable.hsa_signal_exchange_scacquire_fn,
    hsa_signal_exchange_relaxed => CORE.CoreApiTable.hsa_signal_exchange_relaxed_fn,
    hsa_signal_exchange_release => CORE.CoreApiTable.hsa_signal_exchange_screlease_fn,
    hsa_signal_exchange_scacq_screl => CORE.CoreApiTable.hsa_signal_exchange_scacq_screl_fn,
    hsa_signal_exchange_scacquire => CORE.CoreApiTable.hsa_signal_exchange_scacquire_fn,
    hsa_signal_exchange_screlease => CORE.CoreApiTable.hsa_signal_exchange_screlease_fn,
    hsa_signal_group_create => CORE.CoreApiTable.hsa_signal_group_create_fn,
    hsa_signal_group_destroy => CORE.CoreApiTable.hsa_signal_group_destroy_fn,
    hsa_signal_group_wait_any_relaxed => CORE.CoreApiTable.hsa_signal_group_wait_any_relaxed_fn,
    hsa_signal_group_wait_any_scacquire => CORE.CoreApiTable.hsa_signal_group_wait_any_scacquire_fn,
    hsa_signal_load_acquire => CORE.CoreApiTable.hsa_signal_load_scacquire_fn,
    hsa_signal_load_relaxed => CORE.CoreApiTable.hsa_signal_load_relaxed_fn,
    hsa_signal_load_scacquire => CORE.CoreApiTable.hsa_signal_load_scacquire_fn,
    hsa_signal_or_acq_rel => CORE.CoreApiTable.hsa_signal_or_scacq_screl_fn,
    hsa_signal_or_acquire => CORE.CoreApiTable.hsa_signal_or_scacquire_fn,
    hsa_signal_or_relaxed => CORE.CoreApiTable.hsa_signal_or_relaxed_fn,
    hsa_signal_or_release => CORE.CoreApiTable.hsa_signal_or_screlease_fn,
    hsa_signal_or_scacq_screl => CORE.CoreApiTable.hsa_signal_or_scacq_screl_fn,
    hsa_signal_or_scacquire => CORE.CoreApiTable.hsa_signal_or_scacquire_fn,
    hsa_signal_or_screlease => CORE.CoreApiTable.hsa_signal_or_screlease_fn,
    hsa_signal_silent_store_relaxed => CORE.CoreApiTable.hsa_signal_silent_store_relaxed_fn,
    hsa_signal_silent_store_screlease => CORE.CoreApiTable.hsa_signal_silent_store_screlease_fn,
    hsa_signal_store_relaxed => CORE.CoreApiTable.hsa_signal_store_relaxed_fn,
    hsa_signal_store_release => CORE.CoreApiTable.hsa_signal_store_screlease_fn,
    hsa_signal_store_screlease => CORE.CoreApiTable.hsa_signal_store_screlease_fn,
    hsa_signal_subtract_acq_rel => CORE.CoreApiTable.hsa_signal_subtract_scacq_screl_fn,
    hsa_signal_subtract_acquire => CORE.CoreApiTable.hsa_signal_subtract_scacquire_fn,
    hsa_signal_subtract_relaxed => CORE.CoreApiTable.hsa_signal_subtract_relaxed_fn,
    hsa_signal_subtract_release => CORE.CoreApiTable.hsa_signal_subtract_screlease_fn,
    hsa_signal_subtract_scacq_screl => CORE.CoreApiTable.hsa_signal_subtract_scacq_screl_fn,
    hsa_signal_subtract_scacquire => CORE.CoreApiTable.hsa_signal_subtract_scacquire_fn,
    hsa_signal_subtract_screlease => CORE.CoreApiTable.hsa_signal_subtract_screlease_fn,
    hsa_signal_wait_acquire => CORE.CoreApiTable.hsa_signal_wait_scacquire_fn,
    hsa_signal_wait_relaxed => CORE.CoreApiTable.hsa_signal_wait_relaxed_fn,
    hsa_signal_wait_scacquire => CORE.CoreApiTable.hsa_signal_wait_scacquire_fn,
    hsa_signal_xor_acq_rel => CORE.CoreApiTable.hsa_signal_xor_scacq_screl_fn,
    hsa_signal_xor_acquire => CORE.CoreApiTable.hsa_signal_xor_scacquire_fn,
    hsa_signal_xor_relaxed => CORE.CoreApiTable.hsa_signal_xor_relaxed_fn,
    hsa_signal_xor_release => CORE.CoreApiTable.hsa_signal_xor_screlease_fn,
    hsa_signal_xor_scacq_screl => CORE.CoreApiTable.hsa_signal_xor_scacq_screl_fn,
    hsa_signal_xor_scacquire => CORE.CoreApiTable.hsa_signal_xor_scacquire_fn,
    hsa_signal_xor_screlease => CORE.CoreApiTable.hsa_signal_xor_screlease_fn,
    hsa_soft_queue_create => CORE.CoreApiTable.hsa_soft_queue_create_fn,
    hsa_status_string => CORE.CoreApiTable.hsa_status_string_fn,
    hsa_system_extension_supported => CORE.CoreApiTable.hsa_system_extension_supported_fn,
    hsa_system_get_extension_table => CORE.CoreApiTable.hsa_system_get_extension_table_fn,
    hsa_system_get_info => CORE.CoreApiTable.hsa_system_get_info_fn,
    hsa_system_get_major_extension_table => CORE.CoreApiTable.hsa_system_get_major_extension_table_fn,
    hsa_system_major_extension_supported => CORE.CoreApiTable.hsa_system_major_extension_supported_fn,
    hsa_wavefront_get_info => CORE.CoreApiTable.hsa_wavefront_get_info_fn,
}

// `_amdgpu_r_debug`: a glibc `struct r_debug` (40 bytes), ROCr's list of
// loaded GPU code objects for debuggers, in `runtime::rdebug::RDebug`'s
// layout and `RDebug::new()`'s values (`r_version` 1, no map, `r_brk` the
// runtime's `loader_debug_state`, `RT_CONSISTENT`). `hsa_init` hands it to
// the runtime ([`r_debug`]), which keeps the list there.
core::arch::global_asm!(
    ".pushsection .data.rocr_export._amdgpu_r_debug,\"aw\",@progbits",
    ".globl _amdgpu_r_debug",
    ".type _amdgpu_r_debug,@object",
    ".p2align 3",
    "_amdgpu_r_debug:",
    "    .long {r_version}",
    "    .long 0",
    "    .quad 0",
    "    .quad {r_brk}",
    "    .long {rt_consistent}",
    "    .long 0",
    "    .quad 0",
    ".size _amdgpu_r_debug, 40",
    ".popsection",
    r_version = const runtime::rdebug::R_VERSION,
    r_brk = sym runtime::rdebug::loader_debug_state,
    rt_consistent = const runtime::rdebug::RT_CONSISTENT,
);

unsafe extern "C" {
    /// The object defined above.
    static _amdgpu_r_debug: runtime::rdebug::RDebug;
}

/// The exported `_amdgpu_r_debug`.
pub(crate) fn r_debug() -> &'static runtime::rdebug::RDebug {
    // SAFETY: `_amdgpu_r_debug` is defined above, 8-aligned, with
    // `RDebug`'s layout (its size and offsets are asserted next to the
    // type) and valid values for every field, and lives as long as the
    // library; the runtime changes only its atomic fields.
    unsafe { &*core::ptr::addr_of!(_amdgpu_r_debug) }
}

// `ROCR_1`: GNU ld emits the version's name as an absolute symbol (value
// 0) in the dynamic symbol table, as Debian's library has it; lld does not,
// so it is defined here.
core::arch::global_asm!(".globl ROCR_1", ".set ROCR_1, 0");
