//! Extensions: `hsa_status_string`, the extension tables
//! (`hsa_system_get_major_extension_table`), the AMD loader extension
//! (`hsa_ven_amd_loader_1_03`), and the image and finalizer functions,
//! which answer as ROCr does when their libraries are not loaded
//! (`HSA_STATUS_ERROR_NOT_INITIALIZED`, its `hsa_ext_null`).

#![allow(unsafe_code)]
#![allow(non_camel_case_types)]
#![allow(clippy::missing_safety_doc)]
// Out-pointers of one C call are written under the one contract the call has.
#![allow(clippy::multiple_unsafe_ops_per_block)]

use core::ffi::{c_char, c_void};

use runtime::executable::CodeObjectReader;
use runtime::{Error, Status};

use crate::ffi::consts::*;
use crate::ffi::*;
use crate::state::{OK, ctx, guard, lock, null, put, put_bytes};

/// ROCr 5.2.3's `hsa_status_string` texts (`core/runtime/hsa.cpp`).
const STATUS_STRINGS: &[(u32, &core::ffi::CStr)] = &[
    (0x0, c"HSA_STATUS_SUCCESS: The function has been executed successfully."),
    (0x1, c"HSA_STATUS_INFO_BREAK: A traversal over a list of elements has been interrupted by the application before completing."),
    (0x1000, c"HSA_STATUS_ERROR: A generic error has occurred."),
    (0x1001, c"HSA_STATUS_ERROR_INVALID_ARGUMENT: One of the actual arguments does not meet a precondition stated in the documentation of the corresponding formal argument."),
    (0x1002, c"HSA_STATUS_ERROR_INVALID_QUEUE_CREATION: The requested queue creation is not valid."),
    (0x1003, c"HSA_STATUS_ERROR_INVALID_ALLOCATION: The requested allocation is not valid."),
    (0x1004, c"HSA_STATUS_ERROR_INVALID_AGENT: The agent is invalid."),
    (0x1005, c"HSA_STATUS_ERROR_INVALID_REGION: The memory region is invalid."),
    (0x1006, c"HSA_STATUS_ERROR_INVALID_SIGNAL: The signal is invalid."),
    (0x1007, c"HSA_STATUS_ERROR_INVALID_QUEUE: The queue is invalid."),
    (0x1008, c"HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. This error may also occur when the core runtime library needs to spawn threads or create internal OS-specific events."),
    (0x1009, c"HSA_STATUS_ERROR_INVALID_PACKET_FORMAT: The AQL packet is malformed."),
    (0x100A, c"HSA_STATUS_ERROR_RESOURCE_FREE: An error has been detected while releasing a resource."),
    (0x100B, c"HSA_STATUS_ERROR_NOT_INITIALIZED: An API other than hsa_init has been invoked while the reference count of the HSA runtime is zero."),
    (0x100C, c"HSA_STATUS_ERROR_REFCOUNT_OVERFLOW: The maximum reference count for the object has been reached."),
    (0x100D, c"HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS: The arguments passed to a functions are not compatible."),
    (0x100E, c"HSA_STATUS_ERROR_INVALID_INDEX: The index is invalid."),
    (0x100F, c"HSA_STATUS_ERROR_INVALID_ISA: The instruction set architecture is invalid."),
    (0x1017, c"HSA_STATUS_ERROR_INVALID_ISA_NAME: The instruction set architecture name is invalid."),
    (0x1010, c"HSA_STATUS_ERROR_INVALID_CODE_OBJECT: The code object is invalid."),
    (0x1011, c"HSA_STATUS_ERROR_INVALID_EXECUTABLE: The executable is invalid."),
    (0x1012, c"HSA_STATUS_ERROR_FROZEN_EXECUTABLE: The executable is frozen."),
    (0x1013, c"HSA_STATUS_ERROR_INVALID_SYMBOL_NAME: There is no symbol with the given name."),
    (0x1014, c"HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED: The variable is already defined."),
    (0x1015, c"HSA_STATUS_ERROR_VARIABLE_UNDEFINED: The variable is undefined."),
    (0x1016, c"HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception."),
    (0x1018, c"HSA_STATUS_ERROR_INVALID_CODE_SYMBOL: The code object symbol is invalid."),
    (0x1019, c"HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL: The executable symbol is invalid."),
    (0x1020, c"HSA_STATUS_ERROR_INVALID_FILE: The file descriptor is invalid."),
    (0x1021, c"HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER: The code object reader is invalid."),
    (0x1022, c"HSA_STATUS_ERROR_INVALID_CACHE: The cache is invalid."),
    (0x1023, c"HSA_STATUS_ERROR_INVALID_WAVEFRONT: The wavefront is invalid."),
    (0x1024, c"HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP: The signal group is invalid."),
    (0x1025, c"HSA_STATUS_ERROR_INVALID_RUNTIME_STATE: The HSA runtime is not in the configuration state."),
    (0x1026, c"HSA_STATUS_ERROR_FATAL: The queue received an error that may require process termination."),
    (41, c"HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal address."),
    (42, c"HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: The agent attempted to execute an illegal shader instruction."),
    (0x3000, c"HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED: Image format is not supported."),
    (0x3001, c"HSA_EXT_STATUS_ERROR_IMAGE_SIZE_UNSUPPORTED: Image size is not supported."),
    (0x3002, c"HSA_EXT_STATUS_ERROR_IMAGE_PITCH_UNSUPPORTED: Image pitch is not supported or invalid."),
    (0x3003, c"HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED: Sampler descriptor is not supported or invalid."),
    (0x2000, c"HSA_EXT_STATUS_ERROR_INVALID_PROGRAM: Invalid program"),
    (0x2001, c"HSA_EXT_STATUS_ERROR_INVALID_MODULE: Invalid module"),
    (0x2002, c"HSA_EXT_STATUS_ERROR_INCOMPATIBLE_MODULE: Incompatible module"),
    (0x2003, c"HSA_EXT_STATUS_ERROR_MODULE_ALREADY_INCLUDED: Module already included"),
    (0x2004, c"HSA_EXT_STATUS_ERROR_SYMBOL_MISMATCH: Symbol mismatch"),
    (0x2005, c"HSA_EXT_STATUS_ERROR_FINALIZATION_FAILED: Finalization failed"),
    (0x2006, c"HSA_EXT_STATUS_ERROR_DIRECTIVE_MISMATCH: Directive mismatch"),
    (43, c"HSA_STATUS_ERROR_MEMORY_FAULT: Agent attempted to access an inaccessible address."),
    (40, c"HSA_STATUS_ERROR_INVALID_MEMORY_POOL: The memory pool is invalid."),
    (44, c"HSA_STATUS_CU_MASK_REDUCED: The CU mask was successfully set but the mask attempted to enable a CU which was disabled for the process.  CUs disabled for the process remain disabled."),
];

/// ROCr's text for `status` (`None` for no status of ROCr's).
pub(crate) fn status_text(status: hsa_status_t) -> Option<&'static core::ffi::CStr> {
    STATUS_STRINGS
        .iter()
        .find(|(v, _)| *v == status)
        .map(|(_, s)| *s)
}

/// `hsa_status_string`: ROCr's text (callable before `hsa_init`, as in
/// ROCr); an unknown status is `INVALID_ARGUMENT`.
pub unsafe extern "C" fn hsa_status_string(
    status: hsa_status_t,
    string: *mut *const c_char,
) -> hsa_status_t {
    guard("hsa_status_string", || {
        if string.is_null() {
            return Err(null("status_string"));
        }
        let s = STATUS_STRINGS
            .iter()
            .find(|(v, _)| *v == status)
            .ok_or_else(|| Error::invalid_argument(format!("{status:#x} is no status")))?;
        // SAFETY: non-NULL.
        unsafe { put(string, s.1.as_ptr(), "status_string") }?;
        OK
    })
}

// -------------------------------------------------------------- tables

/// ROCr's `get_extension_table_length`: the size of the table named
/// `<ext>_<major>_<minor:02>_pfn_t`, 0 for an unknown one.
pub(crate) fn table_length(extension: u16, major: u16, minor: u16) -> usize {
    use core::mem::size_of;
    match (extension, major, minor) {
        (1, 1, 0) => size_of::<hsa_ext_images_1_00_pfn_t>(),
        (0, 1, 0) => size_of::<hsa_ext_finalizer_1_00_pfn_t>(),
        (0x201, 1, 0) => size_of::<hsa_ven_amd_loader_1_00_pfn_t>(),
        (0x201, 1, 1) => size_of::<hsa_ven_amd_loader_1_01_pfn_t>(),
        (0x201, 1, 2) => size_of::<hsa_ven_amd_loader_1_02_pfn_t>(),
        (0x201, 1, 3) => size_of::<hsa_ven_amd_loader_1_03_pfn_t>(),
        // hsa_ven_amd_aqlprofile_1_00_pfn_t: ten functions.
        (0x202, 1, 0) => 10 * size_of::<fn_ptr>(),
        _ => 0,
    }
}

/// Copies the first `len` bytes of `extension`'s table to `out` (ROCr's
/// `hsa_system_get_major_extension_table`).
///
/// # Safety
///
/// `out` holds `len` writable bytes.
pub(crate) unsafe fn copy_table(
    extension: u16,
    major: u16,
    len: usize,
    out: *mut c_void,
) -> Result<hsa_status_t, Error> {
    let unsupported = |what: &str| Err(Error::new(Status::Error, what.to_string()));
    let copy = |src: *const u8, size: usize| {
        // SAFETY: `src` is one of our tables of `size` bytes; `out` holds `len`.
        unsafe { core::ptr::copy_nonoverlapping(src, out.cast::<u8>(), size.min(len)) };
        OK
    };
    match extension {
        1 if major == 1 => {
            // In the order of `hsa_ext_images_1_pfn_t`.
            let t: [fn_ptr; 13] = [
                hsa_ext_image_get_capability as fn_ptr,
                hsa_ext_image_data_get_info as fn_ptr,
                hsa_ext_image_create as fn_ptr,
                hsa_ext_image_destroy as fn_ptr,
                hsa_ext_image_copy as fn_ptr,
                hsa_ext_image_import as fn_ptr,
                hsa_ext_image_export as fn_ptr,
                hsa_ext_image_clear as fn_ptr,
                hsa_ext_sampler_create as fn_ptr,
                hsa_ext_sampler_destroy as fn_ptr,
                hsa_ext_image_get_capability_with_layout as fn_ptr,
                hsa_ext_image_data_get_info_with_layout as fn_ptr,
                hsa_ext_image_create_with_layout as fn_ptr,
            ];
            copy(
                (&t as *const [fn_ptr; 13]).cast(),
                core::mem::size_of::<hsa_ext_images_1_pfn_t>(),
            )
        }
        0 if major == 1 => {
            // In the order of `hsa_ext_finalizer_1_00_pfn_t`.
            let t: [fn_ptr; 6] = [
                hsa_ext_program_create as fn_ptr,
                hsa_ext_program_destroy as fn_ptr,
                hsa_ext_program_add_module as fn_ptr,
                hsa_ext_program_iterate_modules as fn_ptr,
                hsa_ext_program_get_info as fn_ptr,
                hsa_ext_program_finalize as fn_ptr,
            ];
            copy(
                (&t as *const [fn_ptr; 6]).cast(),
                core::mem::size_of::<hsa_ext_finalizer_1_00_pfn_t>(),
            )
        }
        0x201 if major == 1 => {
            // In the order of `hsa_ven_amd_loader_1_03_pfn_t`.
            let t: [fn_ptr; 7] = [
                loader_query_host_address as fn_ptr,
                loader_query_segment_descriptors as fn_ptr,
                loader_query_executable as fn_ptr,
                loader_executable_iterate_loaded_code_objects as fn_ptr,
                loader_loaded_code_object_get_info as fn_ptr,
                loader_code_object_reader_create_from_file_with_offset_size as fn_ptr,
                loader_iterate_executables as fn_ptr,
            ];
            copy(
                (&t as *const [fn_ptr; 7]).cast(),
                core::mem::size_of::<hsa_ven_amd_loader_1_03_pfn_t>(),
            )
        }
        0x202 => unsupported("the aqlprofile extension (libhsa-amd-aqlprofile64) is not available"),
        _ => unsupported("no such extension table"),
    }
}

const _: () = {
    assert!(core::mem::size_of::<hsa_ext_images_1_pfn_t>() == 13 * core::mem::size_of::<fn_ptr>());
    assert!(
        core::mem::size_of::<hsa_ext_finalizer_1_00_pfn_t>() == 6 * core::mem::size_of::<fn_ptr>()
    );
    assert!(
        core::mem::size_of::<hsa_ven_amd_loader_1_03_pfn_t>() == 7 * core::mem::size_of::<fn_ptr>()
    );
};

// ------------------------------------------------------- images, finalizer

macro_rules! not_loaded {
    ($($(#[$m:meta])* fn $name:ident($($a:ident: $t:ty),* $(,)?);)*) => {$(
        $(#[$m])*
        pub unsafe extern "C" fn $name($($a: $t),*) -> hsa_status_t {
            $(let _ = $a;)*
            Status::NotInitialized as hsa_status_t
        }
    )*};
}

not_loaded! {
    /// `hsa_ext_image_get_capability`: no image support (`NOT_INITIALIZED`, as ROCr without it).
    fn hsa_ext_image_get_capability(agent: hsa_agent_t, geometry: c_enum, format: *const c_void, capability_mask: *mut u32);
    /// `hsa_ext_image_get_capability_with_layout`: no image support (`NOT_INITIALIZED`).
    fn hsa_ext_image_get_capability_with_layout(agent: hsa_agent_t, geometry: c_enum, format: *const c_void, layout: c_enum, capability_mask: *mut u32);
    /// `hsa_ext_image_data_get_info`: no image support (`NOT_INITIALIZED`).
    fn hsa_ext_image_data_get_info(agent: hsa_agent_t, descriptor: *const c_void, access: c_enum, info: *mut c_void);
    /// `hsa_ext_image_data_get_info_with_layout`: no image support (`NOT_INITIALIZED`).
    fn hsa_ext_image_data_get_info_with_layout(agent: hsa_agent_t, descriptor: *const c_void, access: c_enum, layout: c_enum, row_pitch: usize, slice_pitch: usize, info: *mut c_void);
    /// `hsa_ext_image_create`: no image support (`NOT_INITIALIZED`).
    fn hsa_ext_image_create(agent: hsa_agent_t, descriptor: *const c_void, data: *const c_void, access: c_enum, image: *mut hsa_ext_image_t);
    /// `hsa_ext_image_create_with_layout`: no image support (`NOT_INITIALIZED`).
    fn hsa_ext_image_create_with_layout(agent: hsa_agent_t, descriptor: *const c_void, data: *const c_void, access: c_enum, layout: c_enum, row_pitch: usize, slice_pitch: usize, image: *mut hsa_ext_image_t);
    /// `hsa_ext_image_destroy`: no image support (`NOT_INITIALIZED`).
    fn hsa_ext_image_destroy(agent: hsa_agent_t, image: hsa_ext_image_t);
    /// `hsa_ext_image_copy`: no image support (`NOT_INITIALIZED`).
    fn hsa_ext_image_copy(agent: hsa_agent_t, src: hsa_ext_image_t, src_offset: *const hsa_dim3_t, dst: hsa_ext_image_t, dst_offset: *const hsa_dim3_t, range: *const hsa_dim3_t);
    /// `hsa_ext_image_import`: no image support (`NOT_INITIALIZED`).
    fn hsa_ext_image_import(agent: hsa_agent_t, src: *const c_void, row_pitch: usize, slice_pitch: usize, dst: hsa_ext_image_t, region: *const c_void);
    /// `hsa_ext_image_export`: no image support (`NOT_INITIALIZED`).
    fn hsa_ext_image_export(agent: hsa_agent_t, src: hsa_ext_image_t, dst: *mut c_void, row_pitch: usize, slice_pitch: usize, region: *const c_void);
    /// `hsa_ext_image_clear`: no image support (`NOT_INITIALIZED`).
    fn hsa_ext_image_clear(agent: hsa_agent_t, image: hsa_ext_image_t, data: *const c_void, region: *const c_void);
    /// `hsa_ext_sampler_create`: no image support (`NOT_INITIALIZED`).
    fn hsa_ext_sampler_create(agent: hsa_agent_t, descriptor: *const c_void, sampler: *mut hsa_ext_sampler_t);
    /// `hsa_ext_sampler_destroy`: no image support (`NOT_INITIALIZED`).
    fn hsa_ext_sampler_destroy(agent: hsa_agent_t, sampler: hsa_ext_sampler_t);
    /// `hsa_amd_image_create`: no image support (`NOT_INITIALIZED`).
    fn hsa_amd_image_create(agent: hsa_agent_t, descriptor: *const c_void, layout: *const c_void, data: *const c_void, access: c_enum, image: *mut hsa_ext_image_t);
    /// `hsa_amd_image_get_info_max_dim`: no image support (`NOT_INITIALIZED`).
    fn hsa_amd_image_get_info_max_dim(agent: hsa_agent_t, attribute: c_enum, value: *mut c_void);
    /// `hsa_ext_program_create`: no finalizer (`NOT_INITIALIZED`, as ROCr without it).
    fn hsa_ext_program_create(machine_model: c_enum, profile: c_enum, rounding: c_enum, options: *const c_char, program: *mut hsa_ext_program_t);
    /// `hsa_ext_program_destroy`: no finalizer (`NOT_INITIALIZED`).
    fn hsa_ext_program_destroy(program: hsa_ext_program_t);
    /// `hsa_ext_program_add_module`: no finalizer (`NOT_INITIALIZED`).
    fn hsa_ext_program_add_module(program: hsa_ext_program_t, module: *mut c_void);
    /// `hsa_ext_program_iterate_modules`: no finalizer (`NOT_INITIALIZED`).
    fn hsa_ext_program_iterate_modules(program: hsa_ext_program_t, callback: *const c_void, data: *mut c_void);
    /// `hsa_ext_program_get_info`: no finalizer (`NOT_INITIALIZED`).
    fn hsa_ext_program_get_info(program: hsa_ext_program_t, attribute: c_enum, value: *mut c_void);
    /// `hsa_ext_program_finalize`: no finalizer (`NOT_INITIALIZED`).
    fn hsa_ext_program_finalize(program: hsa_ext_program_t, isa: hsa_isa_t, call_convention: i32, control_directives: hsa_ext_control_directives_t, options: *const c_char, code_object_type: c_enum, code_object: *mut hsa_code_object_t);
}

// ----------------------------------------------------------- AMD loader

/// Every loaded code object of the C API: (handle, executable, record, bytes).
fn loaded_objects(
    c: &crate::state::Ctx,
) -> Vec<(
    u64,
    u64,
    runtime::executable::LoadedCodeObject,
    CodeObjectReader,
)> {
    let loaded = lock(&c.loaded);
    let mut out = Vec::new();
    for (&h, l) in loaded.iter() {
        if let Ok(e) = c.executable(l.executable)
            && let Some(rec) = e.loaded_code_objects().get(l.index).cloned()
        {
            out.push((h, l.executable, rec, l.reader.clone()));
        }
    }
    out.sort_by_key(|(h, ..)| *h);
    out
}

/// `hsa_ven_amd_loader_query_host_address`: the host address of a device
/// address inside a loaded code object (the same address: segments live in
/// memory the host reaches), else `INVALID_ARGUMENT`.
unsafe extern "C" fn loader_query_host_address(
    device_address: *const c_void,
    host_address: *mut *const c_void,
) -> hsa_status_t {
    guard("hsa_ven_amd_loader_query_host_address", || {
        let c = ctx()?;
        if device_address.is_null() || host_address.is_null() {
            return Err(null("device_address or host_address"));
        }
        let a = device_address as u64;
        let inside = loaded_objects(&c)
            .iter()
            .any(|(_, _, r, _)| (r.load_base..r.load_base + r.load_size).contains(&a));
        let host = c.rt.pointer_info(a).is_some_and(|b| b.host_accessible);
        if !inside || !host {
            return Err(Error::invalid_argument(format!(
                "{a:#x} is in no host-visible loaded segment"
            )));
        }
        // SAFETY: non-NULL.
        unsafe { put(host_address, device_address, "host_address") }?;
        OK
    })
}

/// `hsa_ven_amd_loader_query_segment_descriptors`: one descriptor per
/// loaded code object (its image). `*num == 0` or NULL descriptors: the count.
unsafe extern "C" fn loader_query_segment_descriptors(
    descriptors: *mut hsa_ven_amd_loader_segment_descriptor_t,
    num: *mut usize,
) -> hsa_status_t {
    guard("hsa_ven_amd_loader_query_segment_descriptors", || {
        let c = ctx()?;
        if num.is_null() {
            return Err(null("num_segment_descriptors"));
        }
        let all = loaded_objects(&c);
        // SAFETY: non-NULL.
        let have = unsafe { num.read() };
        if descriptors.is_null() || have == 0 {
            // SAFETY: non-NULL.
            unsafe { put(num, all.len(), "num") }?;
            return OK;
        }
        if have < all.len() {
            return Err(Error::new(
                Status::IncompatibleArguments,
                format!("{have} descriptors for {} segments", all.len()),
            ));
        }
        for (i, (_, exe, r, bytes)) in all.iter().enumerate() {
            let d = hsa_ven_amd_loader_segment_descriptor_t {
                agent: hsa_agent_t {
                    handle: r.agent.handle(),
                },
                executable: hsa_executable_t { handle: *exe },
                code_object_storage_type: HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY,
                code_object_storage_base: bytes.bytes().as_ptr().cast(),
                code_object_storage_size: bytes.bytes().len(),
                code_object_storage_offset: 0,
                segment_base: r.load_base as fn_ptr,
                segment_size: r.load_size as usize,
            };
            // SAFETY: the caller's array holds `have` >= all.len() descriptors.
            unsafe { descriptors.add(i).write_unaligned(d) };
        }
        // SAFETY: non-NULL.
        unsafe { put(num, all.len(), "num") }?;
        OK
    })
}

/// `hsa_ven_amd_loader_query_executable`: the executable a device address
/// is loaded in.
unsafe extern "C" fn loader_query_executable(
    device_address: *const c_void,
    executable: *mut hsa_executable_t,
) -> hsa_status_t {
    guard("hsa_ven_amd_loader_query_executable", || {
        let c = ctx()?;
        if device_address.is_null() || executable.is_null() {
            return Err(null("device_address or executable"));
        }
        let a = device_address as u64;
        let e = loaded_objects(&c)
            .into_iter()
            .find(|(_, _, r, _)| (r.load_base..r.load_base + r.load_size).contains(&a))
            .ok_or_else(|| Error::invalid_argument(format!("{a:#x} is in no executable")))?;
        // SAFETY: non-NULL.
        unsafe { put(executable, hsa_executable_t { handle: e.1 }, "executable") }?;
        OK
    })
}

type loaded_cb = Option<
    unsafe extern "C" fn(hsa_executable_t, hsa_loaded_code_object_t, *mut c_void) -> hsa_status_t,
>;

/// `hsa_ven_amd_loader_executable_iterate_loaded_code_objects`.
unsafe extern "C" fn loader_executable_iterate_loaded_code_objects(
    executable: hsa_executable_t,
    cb: loaded_cb,
    data: *mut c_void,
) -> hsa_status_t {
    guard(
        "hsa_ven_amd_loader_executable_iterate_loaded_code_objects",
        || {
            let c = ctx()?;
            c.executable(executable.handle)?;
            let cb = cb.ok_or_else(|| null("callback"))?;
            let list: Vec<u64> = loaded_objects(&c)
                .into_iter()
                .filter(|(_, e, ..)| *e == executable.handle)
                .map(|(h, ..)| h)
                .collect();
            drop(c);
            for h in list {
                // SAFETY: the caller's callback.
                let s = unsafe { cb(executable, hsa_loaded_code_object_t { handle: h }, data) };
                if s != 0 {
                    return Ok(s);
                }
            }
            OK
        },
    )
}

/// `hsa_ven_amd_loader_loaded_code_object_get_info`.
unsafe extern "C" fn loader_loaded_code_object_get_info(
    loaded: hsa_loaded_code_object_t,
    attribute: c_enum,
    value: *mut c_void,
) -> hsa_status_t {
    guard("hsa_ven_amd_loader_loaded_code_object_get_info", || {
        let c = ctx()?;
        if value.is_null() {
            return Err(null("value"));
        }
        let (_, exe, r, bytes) = loaded_objects(&c)
            .into_iter()
            .find(|(h, ..)| *h == loaded.handle)
            .ok_or_else(|| Error::invalid_argument("no such loaded code object"))?;
        let b: Vec<u8> = match attribute {
            LCO_EXECUTABLE => exe.to_ne_bytes().to_vec(),
            LCO_KIND => HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_KIND_AGENT
                .to_ne_bytes()
                .to_vec(),
            LCO_AGENT => r.agent.handle().to_ne_bytes().to_vec(),
            LCO_STORAGE_TYPE => HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY
                .to_ne_bytes()
                .to_vec(),
            LCO_STORAGE_MEMORY_BASE => (bytes.bytes().as_ptr() as u64).to_ne_bytes().to_vec(),
            LCO_STORAGE_MEMORY_SIZE => (bytes.bytes().len() as u64).to_ne_bytes().to_vec(),
            LCO_LOAD_DELTA => r.load_delta.to_ne_bytes().to_vec(),
            LCO_LOAD_BASE => r.load_base.to_ne_bytes().to_vec(),
            LCO_LOAD_SIZE => r.load_size.to_ne_bytes().to_vec(),
            LCO_URI_LENGTH => (r.uri.len() as u32).to_ne_bytes().to_vec(),
            LCO_URI => r.uri.clone().into_bytes(),
            // The storage is memory, not a file.
            LCO_STORAGE_FILE => {
                return Err(Error::invalid_argument("the code object storage is memory"));
            }
            _ => {
                return Err(Error::invalid_argument(format!(
                    "{attribute:#x} is no loaded code object attribute"
                )));
            }
        };
        // SAFETY: the caller's buffer holds the attribute's type (the URI:
        // URI_LENGTH bytes).
        unsafe { put_bytes(value, &b) }?;
        OK
    })
}

/// `hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size`.
unsafe extern "C" fn loader_code_object_reader_create_from_file_with_offset_size(
    file: hsa_file_t,
    offset: usize,
    size: usize,
    reader: *mut hsa_code_object_reader_t,
) -> hsa_status_t {
    guard(
        "hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size",
        || {
            let c = ctx()?;
            if reader.is_null() {
                return Err(null("code_object_reader"));
            }
            if file < 0 {
                return Err(Error::new(Status::InvalidFile, format!("fd {file}")));
            }
            // SAFETY: the caller's open descriptor, borrowed for this call.
            let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(file) };
            let r = CodeObjectReader::from_fd_range(fd, offset as u64, size as u64)?;
            let h = c.new_handle();
            lock(&c.readers).insert(h, r);
            // SAFETY: non-NULL.
            unsafe { put(reader, hsa_code_object_reader_t { handle: h }, "reader") }?;
            OK
        },
    )
}

/// `hsa_ven_amd_loader_iterate_executables`.
unsafe extern "C" fn loader_iterate_executables(
    cb: iter_cb<hsa_executable_t>,
    data: *mut c_void,
) -> hsa_status_t {
    guard("hsa_ven_amd_loader_iterate_executables", || {
        let c = ctx()?;
        let cb = cb.ok_or_else(|| null("callback"))?;
        let mut list: Vec<u64> = lock(&c.executables).keys().copied().collect();
        list.sort_unstable();
        drop(c);
        for h in list {
            // SAFETY: the caller's callback.
            let s = unsafe { cb(hsa_executable_t { handle: h }, data) };
            if s != 0 {
                return Ok(s);
            }
        }
        OK
    })
}
