//! The C types of ROCr 5.2.3's headers (`/usr/include/hsa/hsa.h`,
//! `hsa_ext_amd.h`, `hsa_ven_amd_loader.h`, `hsa_ext_image.h`) that the
//! exported functions take and return. Layouts are asserted at compile
//! time here and compared with the real headers by a C probe
//! (`cabi/tests/abi.rs`).

#![allow(non_camel_case_types, non_snake_case)]

use core::ffi::{c_char, c_int, c_void};

/// `hsa_status_t`.
pub type hsa_status_t = u32;
/// `hsa_signal_value_t` (64-bit model).
pub type hsa_signal_value_t = i64;
/// Every 32-bit C enum passed by value (`hsa_agent_info_t`, ...).
pub type c_enum = u32;

macro_rules! handles {
    ($($(#[$m:meta])* $name:ident;)*) => {$(
        $(#[$m])*
        #[repr(C)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name {
            /// The opaque handle.
            pub handle: u64,
        }
        const _: () = assert!(core::mem::size_of::<$name>() == 8);
    )*};
}

handles! {
    /// `hsa_agent_t`.
    hsa_agent_t;
    /// `hsa_signal_t`.
    hsa_signal_t;
    /// `hsa_signal_group_t`.
    hsa_signal_group_t;
    /// `hsa_region_t`.
    hsa_region_t;
    /// `hsa_cache_t`.
    hsa_cache_t;
    /// `hsa_isa_t`.
    hsa_isa_t;
    /// `hsa_wavefront_t`.
    hsa_wavefront_t;
    /// `hsa_code_object_reader_t`.
    hsa_code_object_reader_t;
    /// `hsa_executable_t`.
    hsa_executable_t;
    /// `hsa_loaded_code_object_t`.
    hsa_loaded_code_object_t;
    /// `hsa_executable_symbol_t`.
    hsa_executable_symbol_t;
    /// `hsa_code_object_t`.
    hsa_code_object_t;
    /// `hsa_callback_data_t`.
    hsa_callback_data_t;
    /// `hsa_code_symbol_t`.
    hsa_code_symbol_t;
    /// `hsa_amd_memory_pool_t`.
    hsa_amd_memory_pool_t;
    /// `hsa_ext_image_t`.
    hsa_ext_image_t;
    /// `hsa_ext_sampler_t`.
    hsa_ext_sampler_t;
    /// `hsa_ext_program_t`.
    hsa_ext_program_t;
}

/// `hsa_dim3_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct hsa_dim3_t {
    /// X.
    pub x: u32,
    /// Y.
    pub y: u32,
    /// Z.
    pub z: u32,
}

/// `hsa_pitched_ptr_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hsa_pitched_ptr_t {
    /// Base.
    pub base: *mut c_void,
    /// Bytes per row.
    pub pitch: usize,
    /// Bytes per slice.
    pub slice: usize,
}

/// `hsa_amd_pointer_info_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hsa_amd_pointer_info_t {
    /// Bytes of this struct the caller knows (in/out).
    pub size: u32,
    /// `hsa_amd_pointer_type_t`.
    pub type_: u32,
    /// `agentBaseAddress`.
    pub agentBaseAddress: *mut c_void,
    /// `hostBaseAddress`.
    pub hostBaseAddress: *mut c_void,
    /// `sizeInBytes`.
    pub sizeInBytes: usize,
    /// `userData`.
    pub userData: *mut c_void,
    /// `agentOwner`.
    pub agentOwner: hsa_agent_t,
    /// `global_flags`.
    pub global_flags: u32,
}

/// `hsa_amd_profiling_dispatch_time_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct hsa_amd_profiling_dispatch_time_t {
    /// Start tick.
    pub start: u64,
    /// End tick.
    pub end: u64,
}

/// `hsa_amd_profiling_async_copy_time_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct hsa_amd_profiling_async_copy_time_t {
    /// Start tick.
    pub start: u64,
    /// End tick.
    pub end: u64,
}

/// `hsa_amd_ipc_memory_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct hsa_amd_ipc_memory_t {
    /// The handle words.
    pub handle: [u32; 8],
}

/// `hsa_amd_ipc_signal_t` (the same layout).
pub type hsa_amd_ipc_signal_t = hsa_amd_ipc_memory_t;

/// `hsa_amd_svm_attribute_pair_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct hsa_amd_svm_attribute_pair_t {
    /// `hsa_amd_svm_attribute_t`.
    pub attribute: u64,
    /// Its value.
    pub value: u64,
}

/// `hsa_ven_amd_loader_segment_descriptor_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hsa_ven_amd_loader_segment_descriptor_t {
    /// `agent`.
    pub agent: hsa_agent_t,
    /// `executable`.
    pub executable: hsa_executable_t,
    /// `code_object_storage_type`.
    pub code_object_storage_type: u32,
    /// `code_object_storage_base`.
    pub code_object_storage_base: *const c_void,
    /// `code_object_storage_size`.
    pub code_object_storage_size: usize,
    /// `code_object_storage_offset`.
    pub code_object_storage_offset: usize,
    /// `segment_base`.
    pub segment_base: *const c_void,
    /// `segment_size`.
    pub segment_size: usize,
}

const _: () = {
    assert!(core::mem::size_of::<hsa_amd_pointer_info_t>() == 56);
    assert!(core::mem::offset_of!(hsa_amd_pointer_info_t, agentOwner) == 40);
    assert!(core::mem::size_of::<hsa_ven_amd_loader_segment_descriptor_t>() == 64);
    assert!(core::mem::size_of::<hsa_pitched_ptr_t>() == 24);
    assert!(core::mem::size_of::<hsa_amd_ipc_memory_t>() == 32);
};

/// `hsa_status_t (*)(hsa_agent_t, void*)` and the other one-handle iteration callbacks.
pub type iter_cb<H> = Option<unsafe extern "C" fn(H, *mut c_void) -> hsa_status_t>;

/// The `hsa_queue_create` error callback.
pub type queue_error_cb = Option<unsafe extern "C" fn(hsa_status_t, *mut c_void, *mut c_void)>;

/// `hsa_amd_signal_handler`.
pub type signal_handler = Option<unsafe extern "C" fn(hsa_signal_value_t, *mut c_void) -> bool>;

/// `hsa_amd_deallocation_callback_t`.
pub type deallocation_cb = Option<unsafe extern "C" fn(*mut c_void, *mut c_void)>;

/// `hsa_amd_system_event_callback_t`.
pub type system_event_cb = Option<unsafe extern "C" fn(*const c_void, *mut c_void) -> hsa_status_t>;

/// `void *(*alloc)(size_t)` of `hsa_amd_pointer_info`.
pub type alloc_fn = Option<unsafe extern "C" fn(usize) -> *mut c_void>;

/// `hsa_file_t`.
pub type hsa_file_t = c_int;

/// A C string argument.
pub type cstr = *const c_char;
