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
    /// `hsa_amd_vmem_alloc_handle_t` (ROCr 6.x `hsa_ext_amd.h`).
    hsa_amd_vmem_alloc_handle_t;
}

/// `hsa_amd_memory_access_desc_t` (ROCr 6.x `hsa_ext_amd.h`): an
/// `hsa_access_permission_t` for one agent.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hsa_amd_memory_access_desc_t {
    /// `hsa_access_permission_t`.
    pub permissions: c_enum,
    /// The agent.
    pub agent_handle: hsa_agent_t,
}

const _: () = {
    assert!(core::mem::size_of::<hsa_amd_memory_access_desc_t>() == 16);
    assert!(core::mem::align_of::<hsa_amd_memory_access_desc_t>() == 8);
    assert!(core::mem::offset_of!(hsa_amd_memory_access_desc_t, permissions) == 0);
    assert!(core::mem::offset_of!(hsa_amd_memory_access_desc_t, agent_handle) == 8);
};

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

/// `hsa_amd_hdp_flush_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hsa_amd_hdp_flush_t {
    /// `HDP_MEM_FLUSH_CNTL`.
    pub HDP_MEM_FLUSH_CNTL: *mut u32,
    /// `HDP_REG_FLUSH_CNTL`.
    pub HDP_REG_FLUSH_CNTL: *mut u32,
}

/// `hsa_amd_image_descriptor_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hsa_amd_image_descriptor_t {
    /// `version`.
    pub version: u32,
    /// `deviceID`.
    pub deviceID: u32,
    /// `data` (vendor data starts here).
    pub data: [u32; 1],
}

/// `hsa_amd_gpu_memory_fault_info_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hsa_amd_gpu_memory_fault_info_t {
    /// `agent`.
    pub agent: hsa_agent_t,
    /// `virtual_address`.
    pub virtual_address: u64,
    /// `fault_reason_mask`.
    pub fault_reason_mask: u32,
}

/// `hsa_amd_event_t` (its anonymous union has one member).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hsa_amd_event_t {
    /// `event_type`.
    pub event_type: u32,
    /// `memory_fault` (the union's member).
    pub memory_fault: hsa_amd_gpu_memory_fault_info_t,
}

/// `hsa_ext_image_format_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hsa_ext_image_format_t {
    /// `channel_type`.
    pub channel_type: u32,
    /// `channel_order`.
    pub channel_order: u32,
}

/// `hsa_ext_image_descriptor_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hsa_ext_image_descriptor_t {
    /// `geometry`.
    pub geometry: u32,
    /// `width`.
    pub width: usize,
    /// `height`.
    pub height: usize,
    /// `depth`.
    pub depth: usize,
    /// `array_size`.
    pub array_size: usize,
    /// `format`.
    pub format: hsa_ext_image_format_t,
}

/// `hsa_ext_image_data_info_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hsa_ext_image_data_info_t {
    /// `size`.
    pub size: usize,
    /// `alignment`.
    pub alignment: usize,
}

/// `hsa_ext_image_region_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hsa_ext_image_region_t {
    /// `offset`.
    pub offset: hsa_dim3_t,
    /// `range`.
    pub range: hsa_dim3_t,
}

/// `hsa_ext_sampler_descriptor_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hsa_ext_sampler_descriptor_t {
    /// `coordinate_mode`.
    pub coordinate_mode: u32,
    /// `filter_mode`.
    pub filter_mode: u32,
    /// `address_mode`.
    pub address_mode: u32,
}

/// A function pointer slot of an extension table.
pub type fn_ptr = *const c_void;

macro_rules! table {
    ($(#[$m:meta])* $name:ident { $($f:ident),* $(,)? }) => {
        $(#[$m])*
        #[repr(C)]
        #[derive(Debug, Clone, Copy)]
        pub struct $name {
            $(
                #[doc = concat!("`", stringify!($f), "`.")]
                pub $f: fn_ptr,
            )*
        }
    };
}

table! {
    /// `hsa_ven_amd_loader_1_00_pfn_t`.
    hsa_ven_amd_loader_1_00_pfn_t {
        hsa_ven_amd_loader_query_host_address,
        hsa_ven_amd_loader_query_segment_descriptors,
        hsa_ven_amd_loader_query_executable,
    }
}
table! {
    /// `hsa_ven_amd_loader_1_01_pfn_t`.
    hsa_ven_amd_loader_1_01_pfn_t {
        hsa_ven_amd_loader_query_host_address,
        hsa_ven_amd_loader_query_segment_descriptors,
        hsa_ven_amd_loader_query_executable,
        hsa_ven_amd_loader_executable_iterate_loaded_code_objects,
        hsa_ven_amd_loader_loaded_code_object_get_info,
    }
}
table! {
    /// `hsa_ven_amd_loader_1_02_pfn_t`.
    hsa_ven_amd_loader_1_02_pfn_t {
        hsa_ven_amd_loader_query_host_address,
        hsa_ven_amd_loader_query_segment_descriptors,
        hsa_ven_amd_loader_query_executable,
        hsa_ven_amd_loader_executable_iterate_loaded_code_objects,
        hsa_ven_amd_loader_loaded_code_object_get_info,
        hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size,
    }
}
table! {
    /// `hsa_ven_amd_loader_1_03_pfn_t`.
    hsa_ven_amd_loader_1_03_pfn_t {
        hsa_ven_amd_loader_query_host_address,
        hsa_ven_amd_loader_query_segment_descriptors,
        hsa_ven_amd_loader_query_executable,
        hsa_ven_amd_loader_executable_iterate_loaded_code_objects,
        hsa_ven_amd_loader_loaded_code_object_get_info,
        hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size,
        hsa_ven_amd_loader_iterate_executables,
    }
}
table! {
    /// `hsa_ext_images_1_00_pfn_t`.
    hsa_ext_images_1_00_pfn_t {
        hsa_ext_image_get_capability,
        hsa_ext_image_data_get_info,
        hsa_ext_image_create,
        hsa_ext_image_destroy,
        hsa_ext_image_copy,
        hsa_ext_image_import,
        hsa_ext_image_export,
        hsa_ext_image_clear,
        hsa_ext_sampler_create,
        hsa_ext_sampler_destroy,
    }
}
table! {
    /// `hsa_ext_images_1_pfn_t`.
    hsa_ext_images_1_pfn_t {
        hsa_ext_image_get_capability,
        hsa_ext_image_data_get_info,
        hsa_ext_image_create,
        hsa_ext_image_destroy,
        hsa_ext_image_copy,
        hsa_ext_image_import,
        hsa_ext_image_export,
        hsa_ext_image_clear,
        hsa_ext_sampler_create,
        hsa_ext_sampler_destroy,
        hsa_ext_image_get_capability_with_layout,
        hsa_ext_image_data_get_info_with_layout,
        hsa_ext_image_create_with_layout,
    }
}
table! {
    /// `hsa_ext_finalizer_1_00_pfn_t` (`hsa_ext_finalize.h`).
    hsa_ext_finalizer_1_00_pfn_t {
        hsa_ext_program_create,
        hsa_ext_program_destroy,
        hsa_ext_program_add_module,
        hsa_ext_program_iterate_modules,
        hsa_ext_program_get_info,
        hsa_ext_program_finalize,
    }
}

const _: () = {
    assert!(core::mem::size_of::<hsa_amd_event_t>() == 32);
    assert!(core::mem::size_of::<hsa_ext_image_descriptor_t>() == 48);
    assert!(core::mem::size_of::<hsa_ven_amd_loader_1_03_pfn_t>() == 56);
    assert!(core::mem::size_of::<hsa_ext_images_1_pfn_t>() == 104);
};

/// Enumerators the library's code uses by value (checked against the
/// headers by `tests/tests/cabi_abi.rs`).
pub mod consts {
    /// `HSA_EXTENSION_FINALIZER`.
    pub const HSA_EXTENSION_FINALIZER: u16 = 0;
    /// `HSA_EXTENSION_IMAGES`.
    pub const HSA_EXTENSION_IMAGES: u16 = 1;
    /// `HSA_EXTENSION_PERFORMANCE_COUNTERS`.
    pub const HSA_EXTENSION_PERFORMANCE_COUNTERS: u16 = 2;
    /// `HSA_EXTENSION_PROFILING_EVENTS`.
    pub const HSA_EXTENSION_PROFILING_EVENTS: u16 = 3;
    /// `HSA_EXTENSION_STD_LAST`.
    pub const HSA_EXTENSION_STD_LAST: u16 = 3;
    /// `HSA_AMD_FIRST_EXTENSION`.
    pub const HSA_AMD_FIRST_EXTENSION: u16 = 0x200;
    /// `HSA_EXTENSION_AMD_PROFILER`.
    pub const HSA_EXTENSION_AMD_PROFILER: u16 = 0x200;
    /// `HSA_EXTENSION_AMD_LOADER`.
    pub const HSA_EXTENSION_AMD_LOADER: u16 = 0x201;
    /// `HSA_EXTENSION_AMD_AQLPROFILE`.
    pub const HSA_EXTENSION_AMD_AQLPROFILE: u16 = 0x202;
    /// `HSA_AMD_LAST_EXTENSION`.
    pub const HSA_AMD_LAST_EXTENSION: u16 = 0x202;
    /// `HSA_CACHE_INFO_NAME_LENGTH`.
    pub const HSA_CACHE_INFO_NAME_LENGTH: u32 = 0;
    /// `HSA_CACHE_INFO_NAME`.
    pub const HSA_CACHE_INFO_NAME: u32 = 1;
    /// `HSA_CACHE_INFO_LEVEL`.
    pub const HSA_CACHE_INFO_LEVEL: u32 = 2;
    /// `HSA_CACHE_INFO_SIZE`.
    pub const HSA_CACHE_INFO_SIZE: u32 = 3;
    /// `HSA_WAVEFRONT_INFO_SIZE`.
    pub const HSA_WAVEFRONT_INFO_SIZE: u32 = 0;
    /// `HSA_QUEUE_TYPE_MULTI`.
    pub const HSA_QUEUE_TYPE_MULTI: u32 = 0;
    /// `HSA_QUEUE_TYPE_SINGLE`.
    pub const HSA_QUEUE_TYPE_SINGLE: u32 = 1;
    /// `HSA_QUEUE_TYPE_COOPERATIVE`.
    pub const HSA_QUEUE_TYPE_COOPERATIVE: u32 = 2;
    /// `HSA_ACCESS_PERMISSION_RO`.
    pub const HSA_ACCESS_PERMISSION_RO: u32 = 1;
    /// `HSA_ACCESS_PERMISSION_RW`.
    pub const HSA_ACCESS_PERMISSION_RW: u32 = 3;
    /// `HSA_ROUND_METHOD_SINGLE`.
    pub const HSA_ROUND_METHOD_SINGLE: u32 = 1;
    /// `HSA_AMD_COHERENCY_TYPE_COHERENT`.
    pub const HSA_AMD_COHERENCY_TYPE_COHERENT: u32 = 0;
    /// `HSA_AMD_SIGNAL_AMD_GPU_ONLY`.
    pub const HSA_AMD_SIGNAL_AMD_GPU_ONLY: u64 = 1;
    /// `HSA_AMD_SIGNAL_IPC`.
    pub const HSA_AMD_SIGNAL_IPC: u64 = 2;
    /// `HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY`.
    pub const HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY: u32 = 2;
    /// `HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_KIND_AGENT`.
    pub const HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_KIND_AGENT: u32 = 2;
    /// `HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_EXECUTABLE`.
    pub const LCO_EXECUTABLE: u32 = 1;
    /// `HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_KIND`.
    pub const LCO_KIND: u32 = 2;
    /// `HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_AGENT`.
    pub const LCO_AGENT: u32 = 3;
    /// `HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_TYPE`.
    pub const LCO_STORAGE_TYPE: u32 = 4;
    /// `HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_BASE`.
    pub const LCO_STORAGE_MEMORY_BASE: u32 = 5;
    /// `HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_SIZE`.
    pub const LCO_STORAGE_MEMORY_SIZE: u32 = 6;
    /// `HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_FILE`.
    pub const LCO_STORAGE_FILE: u32 = 7;
    /// `HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_DELTA`.
    pub const LCO_LOAD_DELTA: u32 = 8;
    /// `HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_BASE`.
    pub const LCO_LOAD_BASE: u32 = 9;
    /// `HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_SIZE`.
    pub const LCO_LOAD_SIZE: u32 = 10;
    /// `HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI_LENGTH`.
    pub const LCO_URI_LENGTH: u32 = 11;
    /// `HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI`.
    pub const LCO_URI: u32 = 12;

    /// `hsaHostToHost` (`hsa_amd_copy_direction_t`).
    pub const HSA_HOST_TO_HOST: u32 = 0;
    /// `hsaHostToDevice`.
    pub const HSA_HOST_TO_DEVICE: u32 = 1;
    /// `hsaDeviceToHost`.
    pub const HSA_DEVICE_TO_HOST: u32 = 2;
    /// `hsaDeviceToDevice`.
    pub const HSA_DEVICE_TO_DEVICE: u32 = 3;
    /// `HSA_FP_TYPE_16`.
    pub const HSA_FP_TYPE_16: u32 = 1;
    /// `HSA_FP_TYPE_64`.
    pub const HSA_FP_TYPE_64: u32 = 4;
    /// `HSA_FLUSH_MODE_FTZ`.
    pub const HSA_FLUSH_MODE_FTZ: u32 = 1;
    /// `HSA_FLUSH_MODE_NON_FTZ`.
    pub const HSA_FLUSH_MODE_NON_FTZ: u32 = 2;
    /// `HSA_CODE_OBJECT_INFO_VERSION`.
    pub const HSA_CODE_OBJECT_INFO_VERSION: u32 = 0;
    /// `HSA_CODE_OBJECT_INFO_TYPE`.
    pub const HSA_CODE_OBJECT_INFO_TYPE: u32 = 1;
    /// `HSA_CODE_OBJECT_INFO_ISA`.
    pub const HSA_CODE_OBJECT_INFO_ISA: u32 = 2;
    /// `HSA_CODE_OBJECT_INFO_MACHINE_MODEL`.
    pub const HSA_CODE_OBJECT_INFO_MACHINE_MODEL: u32 = 3;
    /// `HSA_CODE_OBJECT_INFO_PROFILE`.
    pub const HSA_CODE_OBJECT_INFO_PROFILE: u32 = 4;
    /// `HSA_CODE_OBJECT_INFO_DEFAULT_FLOAT_ROUNDING_MODE`.
    pub const HSA_CODE_OBJECT_INFO_DEFAULT_FLOAT_ROUNDING_MODE: u32 = 5;
    /// `HSA_EXT_POINTER_TYPE_UNKNOWN`.
    pub const HSA_EXT_POINTER_TYPE_UNKNOWN: u32 = 0;
    /// `HSA_EXT_POINTER_TYPE_HSA`.
    pub const HSA_EXT_POINTER_TYPE_HSA: u32 = 1;
    /// `HSA_EXT_POINTER_TYPE_LOCKED`.
    pub const HSA_EXT_POINTER_TYPE_LOCKED: u32 = 2;
    /// `HSA_FP_TYPE_32`.
    pub const HSA_FP_TYPE_32: u32 = 2;
    /// `HSA_AMD_QUEUE_PRIORITY_LOW`.
    pub const HSA_AMD_QUEUE_PRIORITY_LOW: u32 = 0;
    /// `HSA_AMD_QUEUE_PRIORITY_NORMAL`.
    pub const HSA_AMD_QUEUE_PRIORITY_NORMAL: u32 = 1;
    /// `HSA_AMD_QUEUE_PRIORITY_HIGH`.
    pub const HSA_AMD_QUEUE_PRIORITY_HIGH: u32 = 2;
    /// `HSA_AMD_GPU_MEMORY_FAULT_EVENT` (`hsa_amd_event_type_t`).
    pub const HSA_AMD_GPU_MEMORY_FAULT_EVENT: u32 = 0;
    /// `HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED`.
    pub const HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED: u64 = 0;
    /// `HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED`.
    pub const HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED: u64 = 1;
    /// `HSA_AMD_SVM_GLOBAL_FLAG_INDETERMINATE`.
    pub const HSA_AMD_SVM_GLOBAL_FLAG_INDETERMINATE: u64 = 2;
    /// `HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG` (`hsa_amd_svm_attribute_t`).
    pub const HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG: u64 = 0;
    /// `HSA_AMD_SVM_ATTRIB_READ_ONLY`.
    pub const HSA_AMD_SVM_ATTRIB_READ_ONLY: u64 = 1;
    /// `HSA_AMD_SVM_ATTRIB_HIVE_LOCAL`.
    pub const HSA_AMD_SVM_ATTRIB_HIVE_LOCAL: u64 = 2;
    /// `HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY`.
    pub const HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY: u64 = 3;
    /// `HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION`.
    pub const HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION: u64 = 4;
    /// `HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION`.
    pub const HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION: u64 = 5;
    /// `HSA_AMD_SVM_ATTRIB_READ_MOSTLY`.
    pub const HSA_AMD_SVM_ATTRIB_READ_MOSTLY: u64 = 6;
    /// `HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE`.
    pub const HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE: u64 = 0x200;
    /// `HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE`.
    pub const HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE: u64 = 0x201;
    /// `HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS`.
    pub const HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS: u64 = 0x202;
    /// `HSA_AMD_SVM_ATTRIB_ACCESS_QUERY`.
    pub const HSA_AMD_SVM_ATTRIB_ACCESS_QUERY: u64 = 0x203;
    /// `HSA_AMD_COHERENCY_TYPE_NONCOHERENT`.
    pub const HSA_AMD_COHERENCY_TYPE_NONCOHERENT: u32 = 1;

    /// The C name of each constant above and its value.
    pub const ALL: &[(&str, i128)] = &[
        ("HSA_FP_TYPE_32", HSA_FP_TYPE_32 as i128),
        (
            "HSA_AMD_QUEUE_PRIORITY_LOW",
            HSA_AMD_QUEUE_PRIORITY_LOW as i128,
        ),
        (
            "HSA_AMD_QUEUE_PRIORITY_NORMAL",
            HSA_AMD_QUEUE_PRIORITY_NORMAL as i128,
        ),
        (
            "HSA_AMD_GPU_MEMORY_FAULT_EVENT",
            HSA_AMD_GPU_MEMORY_FAULT_EVENT as i128,
        ),
        (
            "HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED",
            HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED as i128,
        ),
        (
            "HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED",
            HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED as i128,
        ),
        (
            "HSA_AMD_SVM_GLOBAL_FLAG_INDETERMINATE",
            HSA_AMD_SVM_GLOBAL_FLAG_INDETERMINATE as i128,
        ),
        (
            "HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG",
            HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG as i128,
        ),
        (
            "HSA_AMD_SVM_ATTRIB_READ_ONLY",
            HSA_AMD_SVM_ATTRIB_READ_ONLY as i128,
        ),
        (
            "HSA_AMD_SVM_ATTRIB_HIVE_LOCAL",
            HSA_AMD_SVM_ATTRIB_HIVE_LOCAL as i128,
        ),
        (
            "HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY",
            HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY as i128,
        ),
        (
            "HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION",
            HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION as i128,
        ),
        (
            "HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION",
            HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION as i128,
        ),
        (
            "HSA_AMD_SVM_ATTRIB_READ_MOSTLY",
            HSA_AMD_SVM_ATTRIB_READ_MOSTLY as i128,
        ),
        (
            "HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE",
            HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE as i128,
        ),
        (
            "HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE",
            HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE as i128,
        ),
        (
            "HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS",
            HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS as i128,
        ),
        (
            "HSA_AMD_SVM_ATTRIB_ACCESS_QUERY",
            HSA_AMD_SVM_ATTRIB_ACCESS_QUERY as i128,
        ),
        ("hsaHostToHost", HSA_HOST_TO_HOST as i128),
        ("hsaHostToDevice", HSA_HOST_TO_DEVICE as i128),
        ("hsaDeviceToHost", HSA_DEVICE_TO_HOST as i128),
        ("hsaDeviceToDevice", HSA_DEVICE_TO_DEVICE as i128),
        ("HSA_FP_TYPE_16", HSA_FP_TYPE_16 as i128),
        ("HSA_FP_TYPE_64", HSA_FP_TYPE_64 as i128),
        ("HSA_FLUSH_MODE_FTZ", HSA_FLUSH_MODE_FTZ as i128),
        ("HSA_FLUSH_MODE_NON_FTZ", HSA_FLUSH_MODE_NON_FTZ as i128),
        (
            "HSA_CODE_OBJECT_INFO_VERSION",
            HSA_CODE_OBJECT_INFO_VERSION as i128,
        ),
        (
            "HSA_CODE_OBJECT_INFO_TYPE",
            HSA_CODE_OBJECT_INFO_TYPE as i128,
        ),
        ("HSA_CODE_OBJECT_INFO_ISA", HSA_CODE_OBJECT_INFO_ISA as i128),
        (
            "HSA_CODE_OBJECT_INFO_MACHINE_MODEL",
            HSA_CODE_OBJECT_INFO_MACHINE_MODEL as i128,
        ),
        (
            "HSA_CODE_OBJECT_INFO_PROFILE",
            HSA_CODE_OBJECT_INFO_PROFILE as i128,
        ),
        (
            "HSA_CODE_OBJECT_INFO_DEFAULT_FLOAT_ROUNDING_MODE",
            HSA_CODE_OBJECT_INFO_DEFAULT_FLOAT_ROUNDING_MODE as i128,
        ),
        (
            "HSA_EXT_POINTER_TYPE_UNKNOWN",
            HSA_EXT_POINTER_TYPE_UNKNOWN as i128,
        ),
        ("HSA_EXT_POINTER_TYPE_HSA", HSA_EXT_POINTER_TYPE_HSA as i128),
        (
            "HSA_EXT_POINTER_TYPE_LOCKED",
            HSA_EXT_POINTER_TYPE_LOCKED as i128,
        ),
        (
            "HSA_AMD_QUEUE_PRIORITY_HIGH",
            HSA_AMD_QUEUE_PRIORITY_HIGH as i128,
        ),
        (
            "HSA_AMD_COHERENCY_TYPE_NONCOHERENT",
            HSA_AMD_COHERENCY_TYPE_NONCOHERENT as i128,
        ),
        ("HSA_EXTENSION_FINALIZER", HSA_EXTENSION_FINALIZER as i128),
        ("HSA_EXTENSION_IMAGES", HSA_EXTENSION_IMAGES as i128),
        (
            "HSA_EXTENSION_PERFORMANCE_COUNTERS",
            HSA_EXTENSION_PERFORMANCE_COUNTERS as i128,
        ),
        (
            "HSA_EXTENSION_PROFILING_EVENTS",
            HSA_EXTENSION_PROFILING_EVENTS as i128,
        ),
        ("HSA_EXTENSION_STD_LAST", HSA_EXTENSION_STD_LAST as i128),
        ("HSA_AMD_FIRST_EXTENSION", HSA_AMD_FIRST_EXTENSION as i128),
        (
            "HSA_EXTENSION_AMD_PROFILER",
            HSA_EXTENSION_AMD_PROFILER as i128,
        ),
        ("HSA_EXTENSION_AMD_LOADER", HSA_EXTENSION_AMD_LOADER as i128),
        (
            "HSA_EXTENSION_AMD_AQLPROFILE",
            HSA_EXTENSION_AMD_AQLPROFILE as i128,
        ),
        ("HSA_AMD_LAST_EXTENSION", HSA_AMD_LAST_EXTENSION as i128),
        (
            "HSA_CACHE_INFO_NAME_LENGTH",
            HSA_CACHE_INFO_NAME_LENGTH as i128,
        ),
        ("HSA_CACHE_INFO_NAME", HSA_CACHE_INFO_NAME as i128),
        ("HSA_CACHE_INFO_LEVEL", HSA_CACHE_INFO_LEVEL as i128),
        ("HSA_CACHE_INFO_SIZE", HSA_CACHE_INFO_SIZE as i128),
        ("HSA_WAVEFRONT_INFO_SIZE", HSA_WAVEFRONT_INFO_SIZE as i128),
        ("HSA_QUEUE_TYPE_MULTI", HSA_QUEUE_TYPE_MULTI as i128),
        ("HSA_QUEUE_TYPE_SINGLE", HSA_QUEUE_TYPE_SINGLE as i128),
        (
            "HSA_QUEUE_TYPE_COOPERATIVE",
            HSA_QUEUE_TYPE_COOPERATIVE as i128,
        ),
        ("HSA_ACCESS_PERMISSION_RO", HSA_ACCESS_PERMISSION_RO as i128),
        ("HSA_ACCESS_PERMISSION_RW", HSA_ACCESS_PERMISSION_RW as i128),
        ("HSA_ROUND_METHOD_SINGLE", HSA_ROUND_METHOD_SINGLE as i128),
        (
            "HSA_AMD_COHERENCY_TYPE_COHERENT",
            HSA_AMD_COHERENCY_TYPE_COHERENT as i128,
        ),
        (
            "HSA_AMD_SIGNAL_AMD_GPU_ONLY",
            HSA_AMD_SIGNAL_AMD_GPU_ONLY as i128,
        ),
        ("HSA_AMD_SIGNAL_IPC", HSA_AMD_SIGNAL_IPC as i128),
        (
            "HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY",
            HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY as i128,
        ),
        (
            "HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_KIND_AGENT",
            HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_KIND_AGENT as i128,
        ),
        (
            "HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_EXECUTABLE",
            LCO_EXECUTABLE as i128,
        ),
        (
            "HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_KIND",
            LCO_KIND as i128,
        ),
        (
            "HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_AGENT",
            LCO_AGENT as i128,
        ),
        (
            "HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_TYPE",
            LCO_STORAGE_TYPE as i128,
        ),
        (
            "HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_BASE",
            LCO_STORAGE_MEMORY_BASE as i128,
        ),
        (
            "HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_SIZE",
            LCO_STORAGE_MEMORY_SIZE as i128,
        ),
        (
            "HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_FILE",
            LCO_STORAGE_FILE as i128,
        ),
        (
            "HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_DELTA",
            LCO_LOAD_DELTA as i128,
        ),
        (
            "HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_BASE",
            LCO_LOAD_BASE as i128,
        ),
        (
            "HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_SIZE",
            LCO_LOAD_SIZE as i128,
        ),
        (
            "HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI_LENGTH",
            LCO_URI_LENGTH as i128,
        ),
        (
            "HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI",
            LCO_URI as i128,
        ),
    ];
}

/// `hsa_ext_control_directives_t` (`hsa_ext_finalize.h`; passed by value
/// to `hsa_ext_program_finalize`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hsa_ext_control_directives_t {
    /// `control_directives_mask`.
    pub control_directives_mask: u64,
    /// `break_exceptions_mask`.
    pub break_exceptions_mask: u16,
    /// `detect_exceptions_mask`.
    pub detect_exceptions_mask: u16,
    /// `max_dynamic_group_size`.
    pub max_dynamic_group_size: u32,
    /// `max_flat_grid_size`.
    pub max_flat_grid_size: u64,
    /// `max_flat_workgroup_size`.
    pub max_flat_workgroup_size: u32,
    /// `reserved1`.
    pub reserved1: u32,
    /// `required_grid_size`.
    pub required_grid_size: [u64; 3],
    /// `required_workgroup_size`.
    pub required_workgroup_size: hsa_dim3_t,
    /// `required_dim`.
    pub required_dim: u8,
    /// `reserved2`.
    pub reserved2: [u8; 75],
}

const _: () = assert!(core::mem::size_of::<hsa_ext_control_directives_t>() == 144);
