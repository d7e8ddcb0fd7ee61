//! The C-level signature of every exported function, as the calling
//! convention sees it: each parameter's and the result's kind (integer,
//! `bool`, pointer, struct by value, nothing) and size.
//! `cabi/tests/c_abi.rs` compares them with the prototypes of Debian's
//! headers (a C++ probe prints the same for each declared function), so a
//! Rust signature that disagrees with the header in arity, kind or size is
//! found without calling it. The arities below come from the headers; the
//! compiler checks each against the Rust function when it coerces it.

use crate::ffi::*;

/// A C parameter or result type: its kind and size.
pub trait CType: Sized {
    /// `I` integer or enum, `B` bool, `P` pointer (functions too), `S`
    /// struct by value, `V` nothing.
    const KIND: char;
    /// `sizeof`.
    const SIZE: usize = core::mem::size_of::<Self>();
}

macro_rules! ctype {
    ($kind:literal: $($t:ty),*) => {$( impl CType for $t { const KIND: char = $kind; } )*};
}

ctype!('I': u8, u16, u32, u64, i8, i16, i32, i64, usize, isize);
ctype!('B': bool);
ctype!('S': hsa_agent_t, hsa_signal_t, hsa_signal_group_t, hsa_region_t, hsa_cache_t, hsa_isa_t,
    hsa_wavefront_t, hsa_code_object_reader_t, hsa_executable_t, hsa_loaded_code_object_t,
    hsa_executable_symbol_t, hsa_code_object_t, hsa_callback_data_t, hsa_code_symbol_t,
    hsa_amd_memory_pool_t, hsa_ext_image_t, hsa_ext_sampler_t, hsa_ext_program_t,
    hsa_ext_control_directives_t, hsa_amd_vmem_alloc_handle_t);

impl CType for () {
    const KIND: char = 'V';
    const SIZE: usize = 0;
}

impl<T> CType for *const T {
    const KIND: char = 'P';
}

impl<T> CType for *mut T {
    const KIND: char = 'P';
}

macro_rules! fn_ctype {
    ($($a:ident),*) => {
        impl<R $(, $a)*> CType for Option<unsafe extern "C" fn($($a),*) -> R> {
            const KIND: char = 'P';
        }
    };
}

fn_ctype!();
fn_ctype!(A);
fn_ctype!(A, B);
fn_ctype!(A, B, C);
fn_ctype!(A, B, C, D);
fn_ctype!(A, B, C, D, E);

/// A function pointer type's signature: `"<arity> <result> <params>..."`
/// (`3 I4 S8 I4 P8`), the C++ probe's format.
pub trait Sig {
    /// The signature.
    fn describe() -> String;
}

fn kind<T: CType>() -> String {
    format!(" {}{}", T::KIND, T::SIZE)
}

macro_rules! sig {
    ($n:literal $(, $a:ident)*) => {
        impl<R: CType $(, $a: CType)*> Sig for unsafe extern "C" fn($($a),*) -> R {
            fn describe() -> String {
                let mut s = format!("{}", $n);
                s += &kind::<R>();
                $( s += &kind::<$a>(); )*
                s
            }
        }
    };
}

sig!(0);
sig!(1, A);
sig!(2, A, B);
sig!(3, A, B, C);
sig!(4, A, B, C, D);
sig!(5, A, B, C, D, E);
sig!(6, A, B, C, D, E, F);
sig!(7, A, B, C, D, E, F, G);
sig!(8, A, B, C, D, E, F, G, H);
sig!(9, A, B, C, D, E, F, G, H, I);
sig!(10, A, B, C, D, E, F, G, H, I, J);

fn of<F: Sig>(_: F) -> String {
    F::describe()
}

macro_rules! signatures {
    ($($module:ident :: $name:ident / [$($p:tt)*];)*) => {
        signatures!(
            /// `(name, signature)` of every exported function of ROCr
            /// 5.2.3's list.
            signatures; $($module :: $name / [$($p)*];)*
        );
    };
    ($(#[$m:meta])* $fn_name:ident; $($module:ident :: $name:ident / [$($p:tt)*];)*) => {
        $(#[$m])*
        pub fn $fn_name() -> Vec<(&'static str, String)> {
            vec![$(
                (stringify!($name), of(crate::$module::$name as unsafe extern "C" fn($($p)*) -> _)),
            )*]
        }
    };
}

/// Calls `$callback!` with every exported function, as
/// `module::name / [_, ...];` (Debian's export list; the arities are the
/// headers'): the signatures here, the API trace wrappers (`trace.rs`).
macro_rules! exported_functions {
    ($callback:ident) => {
        $callback! {
        core_api::hsa_agent_extension_supported / [_, _, _, _, _];
        core_api::hsa_agent_get_exception_policies / [_, _, _];
        core_api::hsa_agent_get_info / [_, _, _];
        core_api::hsa_agent_iterate_caches / [_, _, _];
        core_api::hsa_agent_iterate_isas / [_, _, _];
        core_api::hsa_agent_iterate_regions / [_, _, _];
        core_api::hsa_agent_major_extension_supported / [_, _, _, _, _];
        amd_api::hsa_amd_agent_iterate_memory_pools / [_, _, _];
        amd_api::hsa_amd_agent_memory_pool_get_info / [_, _, _, _];
        amd_api::hsa_amd_agents_allow_access / [_, _, _, _];
        signal_api::hsa_amd_async_function / [_, _];
        amd_api::hsa_amd_coherency_get_type / [_, _];
        amd_api::hsa_amd_coherency_set_type / [_, _];
        amd_api::hsa_amd_deregister_deallocation_callback / [_, _];
        ext::hsa_amd_image_create / [_, _, _, _, _, _];
        ext::hsa_amd_image_get_info_max_dim / [_, _, _];
        amd_api::hsa_amd_interop_map_buffer / [_, _, _, _, _, _, _, _];
        amd_api::hsa_amd_interop_unmap_buffer / [_];
        amd_api::hsa_amd_ipc_memory_attach / [_, _, _, _, _];
        amd_api::hsa_amd_ipc_memory_create / [_, _, _];
        amd_api::hsa_amd_ipc_memory_detach / [_];
        amd_api::hsa_amd_ipc_signal_attach / [_, _];
        amd_api::hsa_amd_ipc_signal_create / [_, _];
        amd_api::hsa_amd_memory_async_copy / [_, _, _, _, _, _, _, _];
        amd_api::hsa_amd_memory_async_copy_rect / [_, _, _, _, _, _, _, _, _, _];
        amd_api::hsa_amd_memory_fill / [_, _, _];
        amd_api::hsa_amd_memory_lock / [_, _, _, _, _];
        amd_api::hsa_amd_memory_lock_to_pool / [_, _, _, _, _, _, _];
        amd_api::hsa_amd_memory_migrate / [_, _, _];
        amd_api::hsa_amd_memory_pool_allocate / [_, _, _, _];
        amd_api::hsa_amd_memory_pool_can_migrate / [_, _, _];
        amd_api::hsa_amd_memory_pool_free / [_];
        amd_api::hsa_amd_memory_pool_get_info / [_, _, _];
        amd_api::hsa_amd_memory_unlock / [_];
        amd_api::hsa_amd_pointer_info / [_, _, _, _, _];
        amd_api::hsa_amd_pointer_info_set_userdata / [_, _];
        amd_api::hsa_amd_profiling_async_copy_enable / [_];
        amd_api::hsa_amd_profiling_convert_tick_to_system_domain / [_, _, _];
        amd_api::hsa_amd_profiling_get_async_copy_time / [_, _];
        amd_api::hsa_amd_profiling_get_dispatch_time / [_, _, _];
        amd_api::hsa_amd_profiling_set_profiler_enabled / [_, _];
        amd_api::hsa_amd_queue_cu_get_mask / [_, _, _];
        amd_api::hsa_amd_queue_cu_set_mask / [_, _, _];
        amd_api::hsa_amd_queue_set_priority / [_, _];
        amd_api::hsa_amd_register_deallocation_callback / [_, _, _];
        amd_api::hsa_amd_register_system_event_handler / [_, _];
        signal_api::hsa_amd_signal_async_handler / [_, _, _, _, _];
        signal_api::hsa_amd_signal_create / [_, _, _, _, _];
        signal_api::hsa_amd_signal_value_pointer / [_, _];
        signal_api::hsa_amd_signal_wait_any / [_, _, _, _, _, _, _];
        amd_api::hsa_amd_svm_attributes_get / [_, _, _, _];
        amd_api::hsa_amd_svm_attributes_set / [_, _, _, _];
        amd_api::hsa_amd_svm_prefetch_async / [_, _, _, _, _, _];
        core_api::hsa_cache_get_info / [_, _, _];
        core_api::hsa_code_object_deserialize / [_, _, _, _];
        core_api::hsa_code_object_destroy / [_];
        core_api::hsa_code_object_get_info / [_, _, _];
        core_api::hsa_code_object_get_symbol / [_, _, _];
        core_api::hsa_code_object_get_symbol_from_name / [_, _, _, _];
        core_api::hsa_code_object_iterate_symbols / [_, _, _];
        core_api::hsa_code_object_reader_create_from_file / [_, _];
        core_api::hsa_code_object_reader_create_from_memory / [_, _, _];
        core_api::hsa_code_object_reader_destroy / [_];
        core_api::hsa_code_object_serialize / [_, _, _, _, _, _];
        core_api::hsa_code_symbol_get_info / [_, _, _];
        core_api::hsa_executable_agent_global_variable_define / [_, _, _, _];
        core_api::hsa_executable_create / [_, _, _, _];
        core_api::hsa_executable_create_alt / [_, _, _, _];
        core_api::hsa_executable_destroy / [_];
        core_api::hsa_executable_freeze / [_, _];
        core_api::hsa_executable_get_info / [_, _, _];
        core_api::hsa_executable_get_symbol / [_, _, _, _, _, _];
        core_api::hsa_executable_get_symbol_by_name / [_, _, _, _];
        core_api::hsa_executable_global_variable_define / [_, _, _];
        core_api::hsa_executable_iterate_agent_symbols / [_, _, _, _];
        core_api::hsa_executable_iterate_program_symbols / [_, _, _];
        core_api::hsa_executable_iterate_symbols / [_, _, _];
        core_api::hsa_executable_load_agent_code_object / [_, _, _, _, _];
        core_api::hsa_executable_load_code_object / [_, _, _, _];
        core_api::hsa_executable_load_program_code_object / [_, _, _, _];
        core_api::hsa_executable_readonly_variable_define / [_, _, _, _];
        core_api::hsa_executable_symbol_get_info / [_, _, _];
        core_api::hsa_executable_validate / [_, _];
        core_api::hsa_executable_validate_alt / [_, _, _];
        ext::hsa_ext_image_clear / [_, _, _, _];
        ext::hsa_ext_image_copy / [_, _, _, _, _, _];
        ext::hsa_ext_image_create / [_, _, _, _, _];
        ext::hsa_ext_image_create_with_layout / [_, _, _, _, _, _, _, _];
        ext::hsa_ext_image_data_get_info / [_, _, _, _];
        ext::hsa_ext_image_data_get_info_with_layout / [_, _, _, _, _, _, _];
        ext::hsa_ext_image_destroy / [_, _];
        ext::hsa_ext_image_export / [_, _, _, _, _, _];
        ext::hsa_ext_image_get_capability / [_, _, _, _];
        ext::hsa_ext_image_get_capability_with_layout / [_, _, _, _, _];
        ext::hsa_ext_image_import / [_, _, _, _, _, _];
        ext::hsa_ext_program_add_module / [_, _];
        ext::hsa_ext_program_create / [_, _, _, _, _];
        ext::hsa_ext_program_destroy / [_];
        ext::hsa_ext_program_finalize / [_, _, _, _, _, _, _];
        ext::hsa_ext_program_get_info / [_, _, _];
        ext::hsa_ext_program_iterate_modules / [_, _, _];
        ext::hsa_ext_sampler_create / [_, _, _];
        ext::hsa_ext_sampler_destroy / [_, _];
        core_api::hsa_extension_get_name / [_, _];
        core_api::hsa_init / [];
        core_api::hsa_isa_compatible / [_, _, _];
        core_api::hsa_isa_from_name / [_, _];
        core_api::hsa_isa_get_exception_policies / [_, _, _];
        core_api::hsa_isa_get_info / [_, _, _, _];
        core_api::hsa_isa_get_info_alt / [_, _, _];
        core_api::hsa_isa_get_round_method / [_, _, _, _];
        core_api::hsa_isa_iterate_wavefronts / [_, _, _];
        core_api::hsa_iterate_agents / [_, _];
        core_api::hsa_memory_allocate / [_, _, _];
        core_api::hsa_memory_assign_agent / [_, _, _];
        core_api::hsa_memory_copy / [_, _, _];
        core_api::hsa_memory_deregister / [_, _];
        core_api::hsa_memory_free / [_];
        core_api::hsa_memory_register / [_, _];
        core_api::hsa_queue_add_write_index_acq_rel / [_, _];
        core_api::hsa_queue_add_write_index_acquire / [_, _];
        core_api::hsa_queue_add_write_index_relaxed / [_, _];
        core_api::hsa_queue_add_write_index_release / [_, _];
        core_api::hsa_queue_add_write_index_scacq_screl / [_, _];
        core_api::hsa_queue_add_write_index_scacquire / [_, _];
        core_api::hsa_queue_add_write_index_screlease / [_, _];
        core_api::hsa_queue_cas_write_index_acq_rel / [_, _, _];
        core_api::hsa_queue_cas_write_index_acquire / [_, _, _];
        core_api::hsa_queue_cas_write_index_relaxed / [_, _, _];
        core_api::hsa_queue_cas_write_index_release / [_, _, _];
        core_api::hsa_queue_cas_write_index_scacq_screl / [_, _, _];
        core_api::hsa_queue_cas_write_index_scacquire / [_, _, _];
        core_api::hsa_queue_cas_write_index_screlease / [_, _, _];
        core_api::hsa_queue_create / [_, _, _, _, _, _, _, _];
        core_api::hsa_queue_destroy / [_];
        core_api::hsa_queue_inactivate / [_];
        core_api::hsa_queue_load_read_index_acquire / [_];
        core_api::hsa_queue_load_read_index_relaxed / [_];
        core_api::hsa_queue_load_read_index_scacquire / [_];
        core_api::hsa_queue_load_write_index_acquire / [_];
        core_api::hsa_queue_load_write_index_relaxed / [_];
        core_api::hsa_queue_load_write_index_scacquire / [_];
        core_api::hsa_queue_store_read_index_relaxed / [_, _];
        core_api::hsa_queue_store_read_index_release / [_, _];
        core_api::hsa_queue_store_read_index_screlease / [_, _];
        core_api::hsa_queue_store_write_index_relaxed / [_, _];
        core_api::hsa_queue_store_write_index_release / [_, _];
        core_api::hsa_queue_store_write_index_screlease / [_, _];
        core_api::hsa_region_get_info / [_, _, _];
        core_api::hsa_shut_down / [];
        signal_api::hsa_signal_add_acq_rel / [_, _];
        signal_api::hsa_signal_add_acquire / [_, _];
        signal_api::hsa_signal_add_relaxed / [_, _];
        signal_api::hsa_signal_add_release / [_, _];
        signal_api::hsa_signal_add_scacq_screl / [_, _];
        signal_api::hsa_signal_add_scacquire / [_, _];
        signal_api::hsa_signal_add_screlease / [_, _];
        signal_api::hsa_signal_and_acq_rel / [_, _];
        signal_api::hsa_signal_and_acquire / [_, _];
        signal_api::hsa_signal_and_relaxed / [_, _];
        signal_api::hsa_signal_and_release / [_, _];
        signal_api::hsa_signal_and_scacq_screl / [_, _];
        signal_api::hsa_signal_and_scacquire / [_, _];
        signal_api::hsa_signal_and_screlease / [_, _];
        signal_api::hsa_signal_cas_acq_rel / [_, _, _];
        signal_api::hsa_signal_cas_acquire / [_, _, _];
        signal_api::hsa_signal_cas_relaxed / [_, _, _];
        signal_api::hsa_signal_cas_release / [_, _, _];
        signal_api::hsa_signal_cas_scacq_screl / [_, _, _];
        signal_api::hsa_signal_cas_scacquire / [_, _, _];
        signal_api::hsa_signal_cas_screlease / [_, _, _];
        signal_api::hsa_signal_create / [_, _, _, _];
        signal_api::hsa_signal_destroy / [_];
        signal_api::hsa_signal_exchange_acq_rel / [_, _];
        signal_api::hsa_signal_exchange_acquire / [_, _];
        signal_api::hsa_signal_exchange_relaxed / [_, _];
        signal_api::hsa_signal_exchange_release / [_, _];
        signal_api::hsa_signal_exchange_scacq_screl / [_, _];
        signal_api::hsa_signal_exchange_scacquire / [_, _];
        signal_api::hsa_signal_exchange_screlease / [_, _];
        signal_api::hsa_signal_group_create / [_, _, _, _, _];
        signal_api::hsa_signal_group_destroy / [_];
        signal_api::hsa_signal_group_wait_any_relaxed / [_, _, _, _, _, _];
        signal_api::hsa_signal_group_wait_any_scacquire / [_, _, _, _, _, _];
        signal_api::hsa_signal_load_acquire / [_];
        signal_api::hsa_signal_load_relaxed / [_];
        signal_api::hsa_signal_load_scacquire / [_];
        signal_api::hsa_signal_or_acq_rel / [_, _];
        signal_api::hsa_signal_or_acquire / [_, _];
        signal_api::hsa_signal_or_relaxed / [_, _];
        signal_api::hsa_signal_or_release / [_, _];
        signal_api::hsa_signal_or_scacq_screl / [_, _];
        signal_api::hsa_signal_or_scacquire / [_, _];
        signal_api::hsa_signal_or_screlease / [_, _];
        signal_api::hsa_signal_silent_store_relaxed / [_, _];
        signal_api::hsa_signal_silent_store_screlease / [_, _];
        signal_api::hsa_signal_store_relaxed / [_, _];
        signal_api::hsa_signal_store_release / [_, _];
        signal_api::hsa_signal_store_screlease / [_, _];
        signal_api::hsa_signal_subtract_acq_rel / [_, _];
        signal_api::hsa_signal_subtract_acquire / [_, _];
        signal_api::hsa_signal_subtract_relaxed / [_, _];
        signal_api::hsa_signal_subtract_release / [_, _];
        signal_api::hsa_signal_subtract_scacq_screl / [_, _];
        signal_api::hsa_signal_subtract_scacquire / [_, _];
        signal_api::hsa_signal_subtract_screlease / [_, _];
        signal_api::hsa_signal_wait_acquire / [_, _, _, _, _];
        signal_api::hsa_signal_wait_relaxed / [_, _, _, _, _];
        signal_api::hsa_signal_wait_scacquire / [_, _, _, _, _];
        signal_api::hsa_signal_xor_acq_rel / [_, _];
        signal_api::hsa_signal_xor_acquire / [_, _];
        signal_api::hsa_signal_xor_relaxed / [_, _];
        signal_api::hsa_signal_xor_release / [_, _];
        signal_api::hsa_signal_xor_scacq_screl / [_, _];
        signal_api::hsa_signal_xor_scacquire / [_, _];
        signal_api::hsa_signal_xor_screlease / [_, _];
        core_api::hsa_soft_queue_create / [_, _, _, _, _, _];
        ext::hsa_status_string / [_, _];
        core_api::hsa_system_extension_supported / [_, _, _, _];
        core_api::hsa_system_get_extension_table / [_, _, _, _];
        core_api::hsa_system_get_info / [_, _];
        core_api::hsa_system_get_major_extension_table / [_, _, _, _];
        core_api::hsa_system_major_extension_supported / [_, _, _, _];
        core_api::hsa_wavefront_get_info / [_, _, _];
            }
    };
}

pub(crate) use exported_functions;

exported_functions!(signatures);

signatures! {
    /// `(name, signature)` of the ROCr 6.x exports beyond 5.2.3's list:
    /// the `hsa_amd_vmem_*` calls and `hsa_amd_agent_set_async_scratch_limit`
    /// (`cabi/tests/c_abi.rs` compares them with `tests/c/rocr6.h`, the
    /// prototypes of ROCr 6's header).
    rocr6_signatures;
    amd_api::hsa_amd_agent_set_async_scratch_limit / [_, _];
    vmem_api::hsa_amd_vmem_address_reserve / [_, _, _, _];
    vmem_api::hsa_amd_vmem_address_reserve_align / [_, _, _, _, _];
    vmem_api::hsa_amd_vmem_address_free / [_, _];
    vmem_api::hsa_amd_vmem_handle_create / [_, _, _, _, _];
    vmem_api::hsa_amd_vmem_handle_release / [_];
    vmem_api::hsa_amd_vmem_map / [_, _, _, _, _];
    vmem_api::hsa_amd_vmem_unmap / [_, _];
    vmem_api::hsa_amd_vmem_set_access / [_, _, _, _];
    vmem_api::hsa_amd_vmem_get_access / [_, _, _];
    vmem_api::hsa_amd_vmem_export_shareable_handle / [_, _, _];
    vmem_api::hsa_amd_vmem_import_shareable_handle / [_, _];
    vmem_api::hsa_amd_vmem_retain_alloc_handle / [_, _];
    vmem_api::hsa_amd_vmem_get_alloc_properties_from_handle / [_, _, _];
}
