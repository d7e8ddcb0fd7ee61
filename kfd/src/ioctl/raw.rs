//! The argument structs of `include/uapi/linux/kfd_ioctl.h`, bit for bit.
//!
//! Mirrored from the upstream Linux header at KFD interface version 1.18
//! ("Rename pad in set_memory_policy_args to misc_process_flag"). Each
//! struct names its C original in its doc comment and has compile-time
//! asserts of its size, alignment and every field offset right after it;
//! `tests/tests/kfd_abi.rs` also compares them with the system's
//! `linux/kfd_ioctl.h` through a C probe.
//!
//! Fields are plain integers, as in C: pointers travel as `u64` user
//! addresses and file descriptors as `u32`. The safe wrappers on
//! [`Kfd`](crate::Kfd) fill them from Rust slices and handles; use these
//! structs directly only with a [`KfdDevice`](crate::KfdDevice).
//!
//! The argument structs of the deprecated debugger ioctls 0x0D..=0x10
//! (`AMDKFD_IOC_DBG_*_DEPRECATED`) are kept for ABI completeness, but those
//! ioctls have no descriptor and no wrapper: every driver since KFD 1.13
//! rejects them; the debugger interface is [`DbgTrapArgs`].

use core::fmt;

/// Compile-time layout asserts for one struct: size, alignment, every field offset.
macro_rules! assert_layout {
    ($t:ty, size = $s:expr, align = $a:expr $(, $f:ident = $o:expr)* $(,)?) => {
        const _: () = {
            assert!(::core::mem::size_of::<$t>() == $s);
            assert!(::core::mem::align_of::<$t>() == $a);
            $(assert!(::core::mem::offset_of!($t, $f) == $o);)*
        };
    };
}

/// `struct kfd_ioctl_get_version_args` (`AMDKFD_IOC_GET_VERSION`).
#[doc(alias = "kfd_ioctl_get_version_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct GetVersionArgs {
    /// From KFD: `KFD_IOCTL_MAJOR_VERSION` of the driver.
    pub major_version: u32,
    /// From KFD: `KFD_IOCTL_MINOR_VERSION` of the driver.
    pub minor_version: u32,
}
assert_layout!(
    GetVersionArgs,
    size = 8,
    align = 4,
    major_version = 0,
    minor_version = 4
);

/// `struct kfd_ioctl_create_queue_args` (`AMDKFD_IOC_CREATE_QUEUE`).
///
/// KFD 1.17 appended `sdma_engine_id` and `pad`; an older driver copies only
/// the first 88 bytes and ignores the rest.
#[doc(alias = "kfd_ioctl_create_queue_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CreateQueueArgs {
    /// To KFD: GPU virtual address of the ring buffer.
    pub ring_base_address: u64,
    /// From KFD: address of the queue's write pointer.
    pub write_pointer_address: u64,
    /// From KFD: address of the queue's read pointer.
    pub read_pointer_address: u64,
    /// From KFD: mmap offset of the doorbell (page offset plus offset within).
    pub doorbell_offset: u64,
    /// To KFD: ring size in bytes.
    pub ring_size: u32,
    /// To KFD: the GPU (`gpu_id` from the topology).
    pub gpu_id: u32,
    /// To KFD: `KFD_IOC_QUEUE_TYPE_*`.
    pub queue_type: u32,
    /// To KFD: 0..=`KFD_MAX_QUEUE_PERCENTAGE`.
    pub queue_percentage: u32,
    /// To KFD: 0..=`KFD_MAX_QUEUE_PRIORITY`.
    pub queue_priority: u32,
    /// From KFD: the new queue's id.
    pub queue_id: u32,
    /// To KFD: end-of-pipe buffer address.
    pub eop_buffer_address: u64,
    /// To KFD: end-of-pipe buffer size.
    pub eop_buffer_size: u64,
    /// To KFD: context save/restore area address.
    pub ctx_save_restore_address: u64,
    /// To KFD: context save/restore area size.
    pub ctx_save_restore_size: u32,
    /// To KFD: control stack size.
    pub ctl_stack_size: u32,
    /// To KFD (1.17): SDMA engine for `KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID`.
    pub sdma_engine_id: u32,
    /// Padding (1.17).
    pub pad: u32,
}
assert_layout!(
    CreateQueueArgs,
    size = 96,
    align = 8,
    ring_base_address = 0,
    write_pointer_address = 8,
    read_pointer_address = 16,
    doorbell_offset = 24,
    ring_size = 32,
    gpu_id = 36,
    queue_type = 40,
    queue_percentage = 44,
    queue_priority = 48,
    queue_id = 52,
    eop_buffer_address = 56,
    eop_buffer_size = 64,
    ctx_save_restore_address = 72,
    ctx_save_restore_size = 80,
    ctl_stack_size = 84,
    sdma_engine_id = 88,
    pad = 92
);

/// `struct kfd_ioctl_destroy_queue_args` (`AMDKFD_IOC_DESTROY_QUEUE`).
#[doc(alias = "kfd_ioctl_destroy_queue_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DestroyQueueArgs {
    /// To KFD.
    pub queue_id: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(DestroyQueueArgs, size = 8, align = 4, queue_id = 0, pad = 4);

/// `struct kfd_ioctl_update_queue_args` (`AMDKFD_IOC_UPDATE_QUEUE`).
#[doc(alias = "kfd_ioctl_update_queue_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct UpdateQueueArgs {
    /// To KFD.
    pub ring_base_address: u64,
    /// To KFD.
    pub queue_id: u32,
    /// To KFD.
    pub ring_size: u32,
    /// To KFD.
    pub queue_percentage: u32,
    /// To KFD.
    pub queue_priority: u32,
}
assert_layout!(
    UpdateQueueArgs,
    size = 24,
    align = 8,
    ring_base_address = 0,
    queue_id = 8,
    ring_size = 12,
    queue_percentage = 16,
    queue_priority = 20
);

/// `struct kfd_ioctl_set_cu_mask_args` (`AMDKFD_IOC_SET_CU_MASK`).
#[doc(alias = "kfd_ioctl_set_cu_mask_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SetCuMaskArgs {
    /// To KFD.
    pub queue_id: u32,
    /// To KFD: number of mask bits (a multiple of 32).
    pub num_cu_mask: u32,
    /// To KFD: address of `num_cu_mask / 32` `u32` words.
    pub cu_mask_ptr: u64,
}
assert_layout!(
    SetCuMaskArgs,
    size = 16,
    align = 8,
    queue_id = 0,
    num_cu_mask = 4,
    cu_mask_ptr = 8
);

/// `struct kfd_ioctl_get_queue_wave_state_args` (`AMDKFD_IOC_GET_QUEUE_WAVE_STATE`).
#[doc(alias = "kfd_ioctl_get_queue_wave_state_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct GetQueueWaveStateArgs {
    /// To KFD: where to copy the control stack.
    pub ctl_stack_address: u64,
    /// From KFD.
    pub ctl_stack_used_size: u32,
    /// From KFD.
    pub save_area_used_size: u32,
    /// To KFD.
    pub queue_id: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(
    GetQueueWaveStateArgs,
    size = 24,
    align = 8,
    ctl_stack_address = 0,
    ctl_stack_used_size = 8,
    save_area_used_size = 12,
    queue_id = 16,
    pad = 20
);

/// `struct kfd_ioctl_get_available_memory_args` (`AMDKFD_IOC_AVAILABLE_MEMORY`).
#[doc(alias = "kfd_ioctl_get_available_memory_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct GetAvailableMemoryArgs {
    /// From KFD: bytes.
    pub available: u64,
    /// To KFD.
    pub gpu_id: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(
    GetAvailableMemoryArgs,
    size = 16,
    align = 8,
    available = 0,
    gpu_id = 8,
    pad = 12
);

/// `struct kfd_dbg_device_info_entry`: one entry of a debugger device snapshot (1.13).
#[doc(alias = "kfd_dbg_device_info_entry")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DbgDeviceInfoEntry {
    /// Raised exceptions (`KFD_EC_MASK` bits).
    pub exception_status: u64,
    /// LDS aperture base.
    pub lds_base: u64,
    /// LDS aperture limit.
    pub lds_limit: u64,
    /// Scratch aperture base.
    pub scratch_base: u64,
    /// Scratch aperture limit.
    pub scratch_limit: u64,
    /// GPUVM aperture base.
    pub gpuvm_base: u64,
    /// GPUVM aperture limit.
    pub gpuvm_limit: u64,
    /// Topology gpu_id.
    pub gpu_id: u32,
    /// PCI location id.
    pub location_id: u32,
    /// PCI vendor id.
    pub vendor_id: u32,
    /// PCI device id.
    pub device_id: u32,
    /// PCI revision id.
    pub revision_id: u32,
    /// PCI subsystem vendor id.
    pub subsystem_vendor_id: u32,
    /// PCI subsystem device id.
    pub subsystem_device_id: u32,
    /// MEC firmware version.
    pub fw_version: u32,
    /// gfx target version (e.g. 90010).
    pub gfx_target_version: u32,
    /// SIMD count.
    pub simd_count: u32,
    /// Maximum waves per SIMD.
    pub max_waves_per_simd: u32,
    /// Shader array count.
    pub array_count: u32,
    /// Shader arrays per engine.
    pub simd_arrays_per_engine: u32,
    /// Number of XCCs.
    pub num_xcc: u32,
    /// Topology capability bits.
    pub capability: u32,
    /// Topology debug property bits.
    pub debug_prop: u32,
}
assert_layout!(
    DbgDeviceInfoEntry,
    size = 120,
    align = 8,
    exception_status = 0,
    lds_base = 8,
    lds_limit = 16,
    scratch_base = 24,
    scratch_limit = 32,
    gpuvm_base = 40,
    gpuvm_limit = 48,
    gpu_id = 56,
    location_id = 60,
    vendor_id = 64,
    device_id = 68,
    revision_id = 72,
    subsystem_vendor_id = 76,
    subsystem_device_id = 80,
    fw_version = 84,
    gfx_target_version = 88,
    simd_count = 92,
    max_waves_per_simd = 96,
    array_count = 100,
    simd_arrays_per_engine = 104,
    num_xcc = 108,
    capability = 112,
    debug_prop = 116
);

/// `struct kfd_ioctl_set_memory_policy_args` (`AMDKFD_IOC_SET_MEMORY_POLICY`).
///
/// Before 1.18 `misc_process_flag` was called `pad` and had to be zero.
#[doc(alias = "kfd_ioctl_set_memory_policy_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SetMemoryPolicyArgs {
    /// To KFD.
    pub alternate_aperture_base: u64,
    /// To KFD.
    pub alternate_aperture_size: u64,
    /// To KFD.
    pub gpu_id: u32,
    /// To KFD: `KFD_IOC_CACHE_POLICY_*`.
    pub default_policy: u32,
    /// To KFD: `KFD_IOC_CACHE_POLICY_*`.
    pub alternate_policy: u32,
    /// To KFD (1.18): `KFD_PROC_FLAG_*`.
    pub misc_process_flag: u32,
}
assert_layout!(
    SetMemoryPolicyArgs,
    size = 32,
    align = 8,
    alternate_aperture_base = 0,
    alternate_aperture_size = 8,
    gpu_id = 16,
    default_policy = 20,
    alternate_policy = 24,
    misc_process_flag = 28
);

/// `struct kfd_ioctl_get_clock_counters_args` (`AMDKFD_IOC_GET_CLOCK_COUNTERS`).
#[doc(alias = "kfd_ioctl_get_clock_counters_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct GetClockCountersArgs {
    /// From KFD.
    pub gpu_clock_counter: u64,
    /// From KFD.
    pub cpu_clock_counter: u64,
    /// From KFD.
    pub system_clock_counter: u64,
    /// From KFD: Hz.
    pub system_clock_freq: u64,
    /// To KFD.
    pub gpu_id: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(
    GetClockCountersArgs,
    size = 40,
    align = 8,
    gpu_clock_counter = 0,
    cpu_clock_counter = 8,
    system_clock_counter = 16,
    system_clock_freq = 24,
    gpu_id = 32,
    pad = 36
);

/// `struct kfd_process_device_apertures`: one GPU's apertures in this process.
#[doc(alias = "kfd_process_device_apertures")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ProcessDeviceApertures {
    /// From KFD.
    pub lds_base: u64,
    /// From KFD.
    pub lds_limit: u64,
    /// From KFD.
    pub scratch_base: u64,
    /// From KFD.
    pub scratch_limit: u64,
    /// From KFD.
    pub gpuvm_base: u64,
    /// From KFD.
    pub gpuvm_limit: u64,
    /// From KFD.
    pub gpu_id: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(
    ProcessDeviceApertures,
    size = 56,
    align = 8,
    lds_base = 0,
    lds_limit = 8,
    scratch_base = 16,
    scratch_limit = 24,
    gpuvm_base = 32,
    gpuvm_limit = 40,
    gpu_id = 48,
    pad = 52
);

/// `struct kfd_ioctl_get_process_apertures_args` (`AMDKFD_IOC_GET_PROCESS_APERTURES`,
/// deprecated upstream in favour of `AMDKFD_IOC_GET_PROCESS_APERTURES_NEW`).
#[doc(alias = "kfd_ioctl_get_process_apertures_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct GetProcessAperturesArgs {
    /// From KFD.
    pub process_apertures: [ProcessDeviceApertures; super::consts::NUM_OF_SUPPORTED_GPUS as usize],
    /// From KFD: 1..=`NUM_OF_SUPPORTED_GPUS`.
    pub num_of_nodes: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(
    GetProcessAperturesArgs,
    size = 400,
    align = 8,
    process_apertures = 0,
    num_of_nodes = 392,
    pad = 396
);

/// `struct kfd_ioctl_get_process_apertures_new_args` (`AMDKFD_IOC_GET_PROCESS_APERTURES_NEW`).
#[doc(alias = "kfd_ioctl_get_process_apertures_new_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct GetProcessAperturesNewArgs {
    /// To KFD: address of a `ProcessDeviceApertures` array.
    pub kfd_process_device_apertures_ptr: u64,
    /// To KFD: array length; from KFD: entries filled (or needed, when 0 was passed).
    pub num_of_nodes: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(
    GetProcessAperturesNewArgs,
    size = 16,
    align = 8,
    kfd_process_device_apertures_ptr = 0,
    num_of_nodes = 8,
    pad = 12
);

/// `struct kfd_ioctl_dbg_register_args` (deprecated `AMDKFD_IOC_DBG_REGISTER`; no wrapper).
#[doc(alias = "kfd_ioctl_dbg_register_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DbgRegisterArgs {
    /// To KFD.
    pub gpu_id: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(DbgRegisterArgs, size = 8, align = 4, gpu_id = 0, pad = 4);

/// `struct kfd_ioctl_dbg_unregister_args` (deprecated `AMDKFD_IOC_DBG_UNREGISTER`; no wrapper).
#[doc(alias = "kfd_ioctl_dbg_unregister_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DbgUnregisterArgs {
    /// To KFD.
    pub gpu_id: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(DbgUnregisterArgs, size = 8, align = 4, gpu_id = 0, pad = 4);

/// `struct kfd_ioctl_dbg_address_watch_args` (deprecated `AMDKFD_IOC_DBG_ADDRESS_WATCH`; no wrapper).
#[doc(alias = "kfd_ioctl_dbg_address_watch_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DbgAddressWatchArgs {
    /// Address of the content.
    pub content_ptr: u64,
    /// To KFD.
    pub gpu_id: u32,
    /// Content size including `gpu_id` and this field.
    pub buf_size_in_bytes: u32,
}
assert_layout!(
    DbgAddressWatchArgs,
    size = 16,
    align = 8,
    content_ptr = 0,
    gpu_id = 8,
    buf_size_in_bytes = 12
);

/// `struct kfd_ioctl_dbg_wave_control_args` (deprecated `AMDKFD_IOC_DBG_WAVE_CONTROL`; no wrapper).
#[doc(alias = "kfd_ioctl_dbg_wave_control_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DbgWaveControlArgs {
    /// Address of the content.
    pub content_ptr: u64,
    /// To KFD.
    pub gpu_id: u32,
    /// Content size including `gpu_id` and this field.
    pub buf_size_in_bytes: u32,
}
assert_layout!(
    DbgWaveControlArgs,
    size = 16,
    align = 8,
    content_ptr = 0,
    gpu_id = 8,
    buf_size_in_bytes = 12
);

/// `struct kfd_ioctl_create_event_args` (`AMDKFD_IOC_CREATE_EVENT`).
#[doc(alias = "kfd_ioctl_create_event_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CreateEventArgs {
    /// From KFD: mmap offset of the event page (to KFD on dGPUs: the event page's buffer handle).
    pub event_page_offset: u64,
    /// From KFD: signal events only.
    pub event_trigger_data: u32,
    /// To KFD: `KFD_IOC_EVENT_*`.
    pub event_type: u32,
    /// To KFD: non-zero for auto-reset.
    pub auto_reset: u32,
    /// To KFD: only for some event types.
    pub node_id: u32,
    /// From KFD.
    pub event_id: u32,
    /// From KFD: slot in the event page.
    pub event_slot_index: u32,
}
assert_layout!(
    CreateEventArgs,
    size = 32,
    align = 8,
    event_page_offset = 0,
    event_trigger_data = 8,
    event_type = 12,
    auto_reset = 16,
    node_id = 20,
    event_id = 24,
    event_slot_index = 28
);

/// `struct kfd_ioctl_destroy_event_args` (`AMDKFD_IOC_DESTROY_EVENT`).
#[doc(alias = "kfd_ioctl_destroy_event_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DestroyEventArgs {
    /// To KFD.
    pub event_id: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(DestroyEventArgs, size = 8, align = 4, event_id = 0, pad = 4);

/// `struct kfd_ioctl_set_event_args` (`AMDKFD_IOC_SET_EVENT`).
#[doc(alias = "kfd_ioctl_set_event_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SetEventArgs {
    /// To KFD.
    pub event_id: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(SetEventArgs, size = 8, align = 4, event_id = 0, pad = 4);

/// `struct kfd_ioctl_reset_event_args` (`AMDKFD_IOC_RESET_EVENT`).
#[doc(alias = "kfd_ioctl_reset_event_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ResetEventArgs {
    /// To KFD.
    pub event_id: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(ResetEventArgs, size = 8, align = 4, event_id = 0, pad = 4);

/// `struct kfd_memory_exception_failure`.
#[doc(alias = "kfd_memory_exception_failure")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct MemoryExceptionFailure {
    /// C `NotPresent`: page not present or supervisor privilege.
    pub not_present: u32,
    /// C `ReadOnly`: write to a read-only page.
    pub read_only: u32,
    /// C `NoExecute`: execute of a page marked NX.
    pub no_execute: u32,
    /// The exact fault address is unknown.
    pub imprecise: u32,
}
assert_layout!(
    MemoryExceptionFailure,
    size = 16,
    align = 4,
    not_present = 0,
    read_only = 4,
    no_execute = 8,
    imprecise = 12
);

/// `struct kfd_hsa_memory_exception_data`.
#[doc(alias = "kfd_hsa_memory_exception_data")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct HsaMemoryExceptionData {
    /// What kind of fault.
    pub failure: MemoryExceptionFailure,
    /// Faulting virtual address.
    pub va: u64,
    /// Faulting GPU.
    pub gpu_id: u32,
    /// C `ErrorType`: `KFD_MEM_ERR_*`.
    pub error_type: u32,
}
assert_layout!(
    HsaMemoryExceptionData,
    size = 32,
    align = 8,
    failure = 0,
    va = 16,
    gpu_id = 24,
    error_type = 28
);

/// `struct kfd_hsa_hw_exception_data`.
#[doc(alias = "kfd_hsa_hw_exception_data")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct HsaHwExceptionData {
    /// `KFD_HW_EXCEPTION_WHOLE_GPU_RESET` or `..._PER_ENGINE_RESET`.
    pub reset_type: u32,
    /// `KFD_HW_EXCEPTION_GPU_HANG` or `..._ECC`.
    pub reset_cause: u32,
    /// Non-zero if VRAM contents were lost.
    pub memory_lost: u32,
    /// The GPU.
    pub gpu_id: u32,
}
assert_layout!(
    HsaHwExceptionData,
    size = 16,
    align = 4,
    reset_type = 0,
    reset_cause = 4,
    memory_lost = 8,
    gpu_id = 12
);

/// `struct kfd_hsa_signal_event_data` (1.14).
#[doc(alias = "kfd_hsa_signal_event_data")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct HsaSignalEventData {
    /// To and from KFD: the age of the last signal seen.
    pub last_event_age: u64,
}
assert_layout!(HsaSignalEventData, size = 8, align = 8, last_event_age = 0);

/// The anonymous union at the start of `struct kfd_event_data`.
///
/// Its fields are private so that every value is built through
/// [`Default`] or a setter, which initialise all 32 bytes; that makes the
/// getters safe (every variant is plain integers, valid at any bit pattern).
#[repr(C)]
#[derive(Clone, Copy)]
pub union EventDataPayload {
    memory_exception_data: HsaMemoryExceptionData,
    hw_exception_data: HsaHwExceptionData,
    signal_event_data: HsaSignalEventData,
}
assert_layout!(EventDataPayload, size = 32, align = 8);

impl Default for EventDataPayload {
    fn default() -> Self {
        // The largest variant: all 32 bytes are initialised.
        Self {
            memory_exception_data: HsaMemoryExceptionData::default(),
        }
    }
}

#[allow(unsafe_code)]
impl EventDataPayload {
    /// A payload carrying `data` (the rest zero).
    pub fn from_signal(data: HsaSignalEventData) -> Self {
        let mut p = Self::default();
        p.signal_event_data = data;
        p
    }

    /// The payload read as memory-exception data (`KFD_IOC_EVENT_MEMORY`).
    pub fn memory_exception_data(&self) -> HsaMemoryExceptionData {
        // SAFETY: every constructor initialises all 32 bytes (the fields are
        // private) and each variant is plain integers, valid at any bit pattern.
        unsafe { self.memory_exception_data }
    }

    /// The payload read as hardware-exception data (`KFD_IOC_EVENT_HW_EXCEPTION`).
    pub fn hw_exception_data(&self) -> HsaHwExceptionData {
        // SAFETY: as in `memory_exception_data`.
        unsafe { self.hw_exception_data }
    }

    /// The payload read as signal-event data (`KFD_IOC_EVENT_SIGNAL`, 1.14).
    pub fn signal_event_data(&self) -> HsaSignalEventData {
        // SAFETY: as in `memory_exception_data`.
        unsafe { self.signal_event_data }
    }
}

impl fmt::Debug for EventDataPayload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventDataPayload")
            .field("as_memory_exception", &self.memory_exception_data())
            .finish()
    }
}

/// `struct kfd_event_data`: one entry of the `AMDKFD_IOC_WAIT_EVENTS` list.
#[doc(alias = "kfd_event_data")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct EventData {
    /// The anonymous union (from KFD; signal data to and from KFD since 1.14).
    pub payload: EventDataPayload,
    /// Address of an extension structure (unused by current drivers).
    pub kfd_event_data_ext: u64,
    /// To KFD: the event to wait on.
    pub event_id: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(
    EventData,
    size = 48,
    align = 8,
    payload = 0,
    kfd_event_data_ext = 32,
    event_id = 40,
    pad = 44
);

impl EventData {
    /// An entry waiting on `event_id`.
    pub fn new(event_id: u32) -> Self {
        Self {
            event_id,
            ..Self::default()
        }
    }
}

/// `struct kfd_ioctl_wait_events_args` (`AMDKFD_IOC_WAIT_EVENTS`).
#[doc(alias = "kfd_ioctl_wait_events_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct WaitEventsArgs {
    /// To KFD: address of an `EventData` array.
    pub events_ptr: u64,
    /// To KFD.
    pub num_events: u32,
    /// To KFD: non-zero to wait for all, else any.
    pub wait_for_all: u32,
    /// To KFD: milliseconds; `u32::MAX` waits forever.
    pub timeout: u32,
    /// From KFD: `KFD_IOC_WAIT_RESULT_*`.
    pub wait_result: u32,
}
assert_layout!(
    WaitEventsArgs,
    size = 24,
    align = 8,
    events_ptr = 0,
    num_events = 8,
    wait_for_all = 12,
    timeout = 16,
    wait_result = 20
);

/// `struct kfd_ioctl_set_scratch_backing_va_args` (`AMDKFD_IOC_SET_SCRATCH_BACKING_VA`).
#[doc(alias = "kfd_ioctl_set_scratch_backing_va_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SetScratchBackingVaArgs {
    /// To KFD.
    pub va_addr: u64,
    /// To KFD.
    pub gpu_id: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(
    SetScratchBackingVaArgs,
    size = 16,
    align = 8,
    va_addr = 0,
    gpu_id = 8,
    pad = 12
);

/// `struct kfd_ioctl_get_tile_config_args` (`AMDKFD_IOC_GET_TILE_CONFIG`).
#[doc(alias = "kfd_ioctl_get_tile_config_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct GetTileConfigArgs {
    /// To KFD: address of a `u32` array.
    pub tile_config_ptr: u64,
    /// To KFD: address of a `u32` array.
    pub macro_tile_config_ptr: u64,
    /// To KFD: array length; from KFD: entries filled.
    pub num_tile_configs: u32,
    /// To KFD: array length; from KFD: entries filled.
    pub num_macro_tile_configs: u32,
    /// To KFD.
    pub gpu_id: u32,
    /// From KFD.
    pub gb_addr_config: u32,
    /// From KFD.
    pub num_banks: u32,
    /// From KFD.
    pub num_ranks: u32,
}
assert_layout!(
    GetTileConfigArgs,
    size = 40,
    align = 8,
    tile_config_ptr = 0,
    macro_tile_config_ptr = 8,
    num_tile_configs = 16,
    num_macro_tile_configs = 20,
    gpu_id = 24,
    gb_addr_config = 28,
    num_banks = 32,
    num_ranks = 36
);

/// `struct kfd_ioctl_set_trap_handler_args` (`AMDKFD_IOC_SET_TRAP_HANDLER`).
#[doc(alias = "kfd_ioctl_set_trap_handler_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SetTrapHandlerArgs {
    /// To KFD: trap base address.
    pub tba_addr: u64,
    /// To KFD: trap memory address.
    pub tma_addr: u64,
    /// To KFD.
    pub gpu_id: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(
    SetTrapHandlerArgs,
    size = 24,
    align = 8,
    tba_addr = 0,
    tma_addr = 8,
    gpu_id = 16,
    pad = 20
);

/// `struct kfd_ioctl_acquire_vm_args` (`AMDKFD_IOC_ACQUIRE_VM`).
#[doc(alias = "kfd_ioctl_acquire_vm_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct AcquireVmArgs {
    /// To KFD: a DRM render-node fd of the GPU.
    pub drm_fd: u32,
    /// To KFD.
    pub gpu_id: u32,
}
assert_layout!(AcquireVmArgs, size = 8, align = 4, drm_fd = 0, gpu_id = 4);

/// `struct kfd_ioctl_alloc_memory_of_gpu_args` (`AMDKFD_IOC_ALLOC_MEMORY_OF_GPU`).
#[doc(alias = "kfd_ioctl_alloc_memory_of_gpu_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct AllocMemoryOfGpuArgs {
    /// To KFD: GPU virtual address.
    pub va_addr: u64,
    /// To KFD: bytes.
    pub size: u64,
    /// From KFD: buffer handle.
    pub handle: u64,
    /// To KFD (userptr: the CPU address); from KFD: mmap offset on the render node.
    pub mmap_offset: u64,
    /// To KFD.
    pub gpu_id: u32,
    /// To KFD: `KFD_IOC_ALLOC_MEM_FLAGS_*`.
    pub flags: u32,
}
assert_layout!(
    AllocMemoryOfGpuArgs,
    size = 40,
    align = 8,
    va_addr = 0,
    size = 8,
    handle = 16,
    mmap_offset = 24,
    gpu_id = 32,
    flags = 36
);

/// `struct kfd_ioctl_free_memory_of_gpu_args` (`AMDKFD_IOC_FREE_MEMORY_OF_GPU`).
#[doc(alias = "kfd_ioctl_free_memory_of_gpu_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct FreeMemoryOfGpuArgs {
    /// To KFD.
    pub handle: u64,
}
assert_layout!(FreeMemoryOfGpuArgs, size = 8, align = 8, handle = 0);

/// `struct kfd_ioctl_map_memory_to_gpu_args` (`AMDKFD_IOC_MAP_MEMORY_TO_GPU`).
#[doc(alias = "kfd_ioctl_map_memory_to_gpu_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct MapMemoryToGpuArgs {
    /// To KFD.
    pub handle: u64,
    /// To KFD: address of a `u32` gpu_id array.
    pub device_ids_array_ptr: u64,
    /// To KFD.
    pub n_devices: u32,
    /// To and from KFD: devices done so far (a retry skips them).
    pub n_success: u32,
}
assert_layout!(
    MapMemoryToGpuArgs,
    size = 24,
    align = 8,
    handle = 0,
    device_ids_array_ptr = 8,
    n_devices = 16,
    n_success = 20
);

/// `struct kfd_ioctl_unmap_memory_from_gpu_args` (`AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU`).
#[doc(alias = "kfd_ioctl_unmap_memory_from_gpu_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct UnmapMemoryFromGpuArgs {
    /// To KFD.
    pub handle: u64,
    /// To KFD: address of a `u32` gpu_id array.
    pub device_ids_array_ptr: u64,
    /// To KFD.
    pub n_devices: u32,
    /// To and from KFD.
    pub n_success: u32,
}
assert_layout!(
    UnmapMemoryFromGpuArgs,
    size = 24,
    align = 8,
    handle = 0,
    device_ids_array_ptr = 8,
    n_devices = 16,
    n_success = 20
);

/// `struct kfd_ioctl_alloc_queue_gws_args` (`AMDKFD_IOC_ALLOC_QUEUE_GWS`).
#[doc(alias = "kfd_ioctl_alloc_queue_gws_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct AllocQueueGwsArgs {
    /// To KFD.
    pub queue_id: u32,
    /// To KFD.
    pub num_gws: u32,
    /// From KFD.
    pub first_gws: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(
    AllocQueueGwsArgs,
    size = 16,
    align = 4,
    queue_id = 0,
    num_gws = 4,
    first_gws = 8,
    pad = 12
);

/// `struct kfd_ioctl_get_dmabuf_info_args` (`AMDKFD_IOC_GET_DMABUF_INFO`).
#[doc(alias = "kfd_ioctl_get_dmabuf_info_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct GetDmabufInfoArgs {
    /// From KFD: bytes.
    pub size: u64,
    /// To KFD: address of a metadata buffer (0 for none).
    pub metadata_ptr: u64,
    /// To KFD: buffer size; from KFD: metadata size.
    pub metadata_size: u32,
    /// From KFD.
    pub gpu_id: u32,
    /// From KFD: `KFD_IOC_ALLOC_MEM_FLAGS_*`.
    pub flags: u32,
    /// To KFD.
    pub dmabuf_fd: u32,
}
assert_layout!(
    GetDmabufInfoArgs,
    size = 32,
    align = 8,
    size = 0,
    metadata_ptr = 8,
    metadata_size = 16,
    gpu_id = 20,
    flags = 24,
    dmabuf_fd = 28
);

/// `struct kfd_ioctl_import_dmabuf_args` (`AMDKFD_IOC_IMPORT_DMABUF`).
#[doc(alias = "kfd_ioctl_import_dmabuf_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ImportDmabufArgs {
    /// To KFD.
    pub va_addr: u64,
    /// From KFD.
    pub handle: u64,
    /// To KFD.
    pub gpu_id: u32,
    /// To KFD.
    pub dmabuf_fd: u32,
}
assert_layout!(
    ImportDmabufArgs,
    size = 24,
    align = 8,
    va_addr = 0,
    handle = 8,
    gpu_id = 16,
    dmabuf_fd = 20
);

/// `struct kfd_ioctl_export_dmabuf_args` (`AMDKFD_IOC_EXPORT_DMABUF`, 1.12).
#[doc(alias = "kfd_ioctl_export_dmabuf_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ExportDmabufArgs {
    /// To KFD.
    pub handle: u64,
    /// To KFD: `O_CLOEXEC`-style flags for the new fd.
    pub flags: u32,
    /// From KFD.
    pub dmabuf_fd: u32,
}
assert_layout!(
    ExportDmabufArgs,
    size = 16,
    align = 8,
    handle = 0,
    flags = 8,
    dmabuf_fd = 12
);

/// `struct kfd_ioctl_smi_events_args` (`AMDKFD_IOC_SMI_EVENTS`, 1.3).
#[doc(alias = "kfd_ioctl_smi_events_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SmiEventsArgs {
    /// To KFD.
    pub gpuid: u32,
    /// From KFD: an anonymous fd that delivers event lines.
    pub anon_fd: u32,
}
assert_layout!(SmiEventsArgs, size = 8, align = 4, gpuid = 0, anon_fd = 4);

/// `struct kfd_ioctl_criu_args` (`AMDKFD_IOC_CRIU_OP`, 1.7).
///
/// C pads this struct from 52 to 56 bytes; the Rust mirror names the tail
/// `tail_padding` so that every byte handed to the driver is initialised.
#[doc(alias = "kfd_ioctl_criu_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CriuArgs {
    /// Address of a `CriuDeviceBucket` array (CHECKPOINT, RESTORE).
    pub devices: u64,
    /// Address of a `CriuBoBucket` array (CHECKPOINT, RESTORE).
    pub bos: u64,
    /// Address of the private data blob (CHECKPOINT, RESTORE).
    pub priv_data: u64,
    /// Private data size in bytes (PROCESS_INFO, RESTORE).
    pub priv_data_size: u64,
    /// Number of devices (PROCESS_INFO, RESTORE).
    pub num_devices: u32,
    /// Number of buffer objects (PROCESS_INFO, RESTORE).
    pub num_bos: u32,
    /// Number of opaque objects (PROCESS_INFO, RESTORE).
    pub num_objects: u32,
    /// Process id (PROCESS_INFO, RESUME).
    pub pid: u32,
    /// `KFD_CRIU_OP_*`.
    pub op: u32,
    /// The implicit tail padding of the C struct.
    pub tail_padding: u32,
}
assert_layout!(
    CriuArgs,
    size = 56,
    align = 8,
    devices = 0,
    bos = 8,
    priv_data = 16,
    priv_data_size = 24,
    num_devices = 32,
    num_bos = 36,
    num_objects = 40,
    pid = 44,
    op = 48,
    tail_padding = 52
);

/// `struct kfd_criu_device_bucket`.
#[doc(alias = "kfd_criu_device_bucket")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CriuDeviceBucket {
    /// gpu_id the process saw at checkpoint.
    pub user_gpu_id: u32,
    /// gpu_id on the restoring machine.
    pub actual_gpu_id: u32,
    /// DRM render-node fd.
    pub drm_fd: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(
    CriuDeviceBucket,
    size = 16,
    align = 4,
    user_gpu_id = 0,
    actual_gpu_id = 4,
    drm_fd = 8,
    pad = 12
);

/// `struct kfd_criu_bo_bucket`.
#[doc(alias = "kfd_criu_bo_bucket")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CriuBoBucket {
    /// GPU virtual address.
    pub addr: u64,
    /// Bytes.
    pub size: u64,
    /// mmap offset.
    pub offset: u64,
    /// mmap offset after restore.
    pub restored_offset: u64,
    /// The user gpu_id.
    pub gpu_id: u32,
    /// `KFD_IOC_ALLOC_MEM_FLAGS_*`.
    pub alloc_flags: u32,
    /// dmabuf fd of the contents.
    pub dmabuf_fd: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(
    CriuBoBucket,
    size = 48,
    align = 8,
    addr = 0,
    size = 8,
    offset = 16,
    restored_offset = 24,
    gpu_id = 32,
    alloc_flags = 36,
    dmabuf_fd = 40,
    pad = 44
);

/// `struct kfd_ioctl_svm_attribute`: a (type, value) pair.
#[doc(alias = "kfd_ioctl_svm_attribute")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SvmAttribute {
    /// C `type`: `KFD_IOCTL_SVM_ATTR_*`.
    pub type_: u32,
    /// Meaning depends on `type_`.
    pub value: u32,
}
assert_layout!(SvmAttribute, size = 8, align = 4, type_ = 0, value = 4);

/// `struct kfd_ioctl_svm_args` (`AMDKFD_IOC_SVM`, 1.5), without its
/// flexible array member `attrs[]`, which follows it in memory.
#[doc(alias = "kfd_ioctl_svm_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SvmArgs {
    /// Start of the range (page aligned).
    pub start_addr: u64,
    /// Size of the range (page aligned).
    pub size: u64,
    /// `KFD_IOCTL_SVM_OP_*`.
    pub op: u32,
    /// Number of attributes after the header.
    pub nattr: u32,
}
assert_layout!(
    SvmArgs,
    size = 24,
    align = 8,
    start_addr = 0,
    size = 8,
    op = 16,
    nattr = 20
);

/// `struct kfd_ioctl_set_xnack_mode_args` (`AMDKFD_IOC_SET_XNACK_MODE`, 1.5).
#[doc(alias = "kfd_ioctl_set_xnack_mode_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SetXnackModeArgs {
    /// In: 0 off, positive on, negative query. Out: the current mode.
    pub xnack_enabled: i32,
}
assert_layout!(SetXnackModeArgs, size = 4, align = 4, xnack_enabled = 0);

/// `struct kfd_runtime_info` (1.13).
#[doc(alias = "kfd_runtime_info")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct RuntimeInfo {
    /// Address of the runtime's `r_debug`.
    pub r_debug: u64,
    /// `DEBUG_RUNTIME_STATE_*`.
    pub runtime_state: u32,
    /// Non-zero if trap temporaries are set up.
    pub ttmp_setup: u32,
}
assert_layout!(
    RuntimeInfo,
    size = 16,
    align = 8,
    r_debug = 0,
    runtime_state = 8,
    ttmp_setup = 12
);

/// `struct kfd_ioctl_runtime_enable_args` (`AMDKFD_IOC_RUNTIME_ENABLE`, 1.13).
#[doc(alias = "kfd_ioctl_runtime_enable_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct RuntimeEnableArgs {
    /// Address of the runtime's `r_debug`.
    pub r_debug: u64,
    /// `KFD_RUNTIME_ENABLE_MODE_*` bits.
    pub mode_mask: u32,
    /// From KFD: what the driver supports.
    pub capabilities_mask: u32,
}
assert_layout!(
    RuntimeEnableArgs,
    size = 16,
    align = 8,
    r_debug = 0,
    mode_mask = 8,
    capabilities_mask = 12
);

/// `struct kfd_queue_snapshot_entry` (1.13).
#[doc(alias = "kfd_queue_snapshot_entry")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct QueueSnapshotEntry {
    /// Raised exceptions.
    pub exception_status: u64,
    /// Ring base.
    pub ring_base_address: u64,
    /// Write pointer address.
    pub write_pointer_address: u64,
    /// Read pointer address.
    pub read_pointer_address: u64,
    /// Context save area address.
    pub ctx_save_restore_address: u64,
    /// Queue id.
    pub queue_id: u32,
    /// GPU.
    pub gpu_id: u32,
    /// Ring size.
    pub ring_size: u32,
    /// `KFD_IOC_QUEUE_TYPE_*`.
    pub queue_type: u32,
    /// Context save area size.
    pub ctx_save_restore_area_size: u32,
    /// Reserved.
    pub reserved: u32,
}
assert_layout!(
    QueueSnapshotEntry,
    size = 64,
    align = 8,
    exception_status = 0,
    ring_base_address = 8,
    write_pointer_address = 16,
    read_pointer_address = 24,
    ctx_save_restore_address = 32,
    queue_id = 40,
    gpu_id = 44,
    ring_size = 48,
    queue_type = 52,
    ctx_save_restore_area_size = 56,
    reserved = 60
);

/// The anonymous `wave_state` struct inside `struct kfd_context_save_area_header`.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ContextSaveAreaWaveState {
    /// Control stack offset.
    pub control_stack_offset: u32,
    /// Control stack size.
    pub control_stack_size: u32,
    /// Wave state offset.
    pub wave_state_offset: u32,
    /// Wave state size.
    pub wave_state_size: u32,
}
assert_layout!(
    ContextSaveAreaWaveState,
    size = 16,
    align = 4,
    control_stack_offset = 0,
    control_stack_size = 4,
    wave_state_offset = 8,
    wave_state_size = 12
);

/// `struct kfd_context_save_area_header` (1.13): written by KFD at the start
/// of a queue's context save area.
#[doc(alias = "kfd_context_save_area_header")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ContextSaveAreaHeader {
    /// Where the control stack and wave state are.
    pub wave_state: ContextSaveAreaWaveState,
    /// Debug area offset.
    pub debug_offset: u32,
    /// Debug area size.
    pub debug_size: u32,
    /// Address of the runtime's error payload.
    pub err_payload_addr: u64,
    /// Event signalled on error.
    pub err_event_id: u32,
    /// Reserved.
    pub reserved1: u32,
}
assert_layout!(
    ContextSaveAreaHeader,
    size = 40,
    align = 8,
    wave_state = 0,
    debug_offset = 16,
    debug_size = 20,
    err_payload_addr = 24,
    err_event_id = 32,
    reserved1 = 36
);

/// `struct kfd_ioctl_dbg_trap_enable_args` (`KFD_IOC_DBG_TRAP_ENABLE`).
#[doc(alias = "kfd_ioctl_dbg_trap_enable_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DbgTrapEnableArgs {
    /// Exceptions to raise to the debugger.
    pub exception_mask: u64,
    /// Address of a `RuntimeInfo` buffer.
    pub rinfo_ptr: u64,
    /// In: buffer size; out: size KFD saved.
    pub rinfo_size: u32,
    /// fd KFD notifies the debugger through.
    pub dbg_fd: u32,
}
assert_layout!(
    DbgTrapEnableArgs,
    size = 24,
    align = 8,
    exception_mask = 0,
    rinfo_ptr = 8,
    rinfo_size = 16,
    dbg_fd = 20
);

/// `struct kfd_ioctl_dbg_trap_send_runtime_event_args`.
#[doc(alias = "kfd_ioctl_dbg_trap_send_runtime_event_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DbgTrapSendRuntimeEventArgs {
    /// Exceptions to raise to the runtime.
    pub exception_mask: u64,
    /// Target GPU.
    pub gpu_id: u32,
    /// Target queue.
    pub queue_id: u32,
}
assert_layout!(
    DbgTrapSendRuntimeEventArgs,
    size = 16,
    align = 8,
    exception_mask = 0,
    gpu_id = 8,
    queue_id = 12
);

/// `struct kfd_ioctl_dbg_trap_set_exceptions_enabled_args`.
#[doc(alias = "kfd_ioctl_dbg_trap_set_exceptions_enabled_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DbgTrapSetExceptionsEnabledArgs {
    /// New exceptions to raise to the debugger.
    pub exception_mask: u64,
}
assert_layout!(
    DbgTrapSetExceptionsEnabledArgs,
    size = 8,
    align = 8,
    exception_mask = 0
);

/// `struct kfd_ioctl_dbg_trap_set_wave_launch_override_args`.
#[doc(alias = "kfd_ioctl_dbg_trap_set_wave_launch_override_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DbgTrapSetWaveLaunchOverrideArgs {
    /// `KFD_DBG_TRAP_OVERRIDE_*`.
    pub override_mode: u32,
    /// In: traps to enable; out: previous enablement.
    pub enable_mask: u32,
    /// In: traps to check; out: traps supported.
    pub support_request_mask: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(
    DbgTrapSetWaveLaunchOverrideArgs,
    size = 16,
    align = 4,
    override_mode = 0,
    enable_mask = 4,
    support_request_mask = 8,
    pad = 12
);

/// `struct kfd_ioctl_dbg_trap_set_wave_launch_mode_args`.
#[doc(alias = "kfd_ioctl_dbg_trap_set_wave_launch_mode_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DbgTrapSetWaveLaunchModeArgs {
    /// `KFD_DBG_TRAP_WAVE_LAUNCH_MODE_*`.
    pub launch_mode: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(
    DbgTrapSetWaveLaunchModeArgs,
    size = 8,
    align = 4,
    launch_mode = 0,
    pad = 4
);

/// `struct kfd_ioctl_dbg_trap_suspend_queues_args`.
#[doc(alias = "kfd_ioctl_dbg_trap_suspend_queues_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DbgTrapSuspendQueuesArgs {
    /// Raised exceptions to clear.
    pub exception_mask: u64,
    /// Address of a `u32` queue id array (each entry gets status bits back).
    pub queue_array_ptr: u64,
    /// Array length.
    pub num_queues: u32,
    /// Wave time allowance before preemption, in units of 1K GPU clocks.
    pub grace_period: u32,
}
assert_layout!(
    DbgTrapSuspendQueuesArgs,
    size = 24,
    align = 8,
    exception_mask = 0,
    queue_array_ptr = 8,
    num_queues = 16,
    grace_period = 20
);

/// `struct kfd_ioctl_dbg_trap_resume_queues_args`.
#[doc(alias = "kfd_ioctl_dbg_trap_resume_queues_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DbgTrapResumeQueuesArgs {
    /// Address of a `u32` queue id array (each entry gets status bits back).
    pub queue_array_ptr: u64,
    /// Array length.
    pub num_queues: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(
    DbgTrapResumeQueuesArgs,
    size = 16,
    align = 8,
    queue_array_ptr = 0,
    num_queues = 8,
    pad = 12
);

/// `struct kfd_ioctl_dbg_trap_set_node_address_watch_args`.
#[doc(alias = "kfd_ioctl_dbg_trap_set_node_address_watch_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DbgTrapSetNodeAddressWatchArgs {
    /// Watched address.
    pub address: u64,
    /// `KFD_DBG_TRAP_ADDRESS_WATCH_MODE_*`.
    pub mode: u32,
    /// Address mask.
    pub mask: u32,
    /// Target GPU.
    pub gpu_id: u32,
    /// From KFD: the watch id.
    pub id: u32,
}
assert_layout!(
    DbgTrapSetNodeAddressWatchArgs,
    size = 24,
    align = 8,
    address = 0,
    mode = 8,
    mask = 12,
    gpu_id = 16,
    id = 20
);

/// `struct kfd_ioctl_dbg_trap_clear_node_address_watch_args`.
#[doc(alias = "kfd_ioctl_dbg_trap_clear_node_address_watch_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DbgTrapClearNodeAddressWatchArgs {
    /// Target GPU.
    pub gpu_id: u32,
    /// Watch id.
    pub id: u32,
}
assert_layout!(
    DbgTrapClearNodeAddressWatchArgs,
    size = 8,
    align = 4,
    gpu_id = 0,
    id = 4
);

/// `struct kfd_ioctl_dbg_trap_set_flags_args`.
#[doc(alias = "kfd_ioctl_dbg_trap_set_flags_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DbgTrapSetFlagsArgs {
    /// In: `KFD_DBG_TRAP_FLAG_*` to enable; out: previous flags.
    pub flags: u32,
    /// Padding.
    pub pad: u32,
}
assert_layout!(DbgTrapSetFlagsArgs, size = 8, align = 4, flags = 0, pad = 4);

/// `struct kfd_ioctl_dbg_trap_query_debug_event_args`.
#[doc(alias = "kfd_ioctl_dbg_trap_query_debug_event_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DbgTrapQueryDebugEventArgs {
    /// In: exceptions to clear; out: raised exceptions.
    pub exception_mask: u64,
    /// From KFD.
    pub gpu_id: u32,
    /// From KFD.
    pub queue_id: u32,
}
assert_layout!(
    DbgTrapQueryDebugEventArgs,
    size = 16,
    align = 8,
    exception_mask = 0,
    gpu_id = 8,
    queue_id = 12
);

/// `struct kfd_ioctl_dbg_trap_query_exception_info_args`.
#[doc(alias = "kfd_ioctl_dbg_trap_query_exception_info_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DbgTrapQueryExceptionInfoArgs {
    /// Address of the info buffer.
    pub info_ptr: u64,
    /// In: buffer size; out: size needed.
    pub info_size: u32,
    /// GPU or queue id.
    pub source_id: u32,
    /// `EC_*`.
    pub exception_code: u32,
    /// 1 to clear the exception.
    pub clear_exception: u32,
}
assert_layout!(
    DbgTrapQueryExceptionInfoArgs,
    size = 24,
    align = 8,
    info_ptr = 0,
    info_size = 8,
    source_id = 12,
    exception_code = 16,
    clear_exception = 20
);

/// `struct kfd_ioctl_dbg_trap_queue_snapshot_args`.
#[doc(alias = "kfd_ioctl_dbg_trap_queue_snapshot_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DbgTrapQueueSnapshotArgs {
    /// Raised exceptions to clear.
    pub exception_mask: u64,
    /// Address of a `QueueSnapshotEntry` array.
    pub snapshot_buf_ptr: u64,
    /// In: array length; out: queues that exist.
    pub num_queues: u32,
    /// In: our entry size; out: bytes KFD fills per entry.
    pub entry_size: u32,
}
assert_layout!(
    DbgTrapQueueSnapshotArgs,
    size = 24,
    align = 8,
    exception_mask = 0,
    snapshot_buf_ptr = 8,
    num_queues = 16,
    entry_size = 20
);

/// `struct kfd_ioctl_dbg_trap_device_snapshot_args`.
#[doc(alias = "kfd_ioctl_dbg_trap_device_snapshot_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DbgTrapDeviceSnapshotArgs {
    /// Raised exceptions to clear.
    pub exception_mask: u64,
    /// Address of a `DbgDeviceInfoEntry` array.
    pub snapshot_buf_ptr: u64,
    /// In: array length; out: devices that exist.
    pub num_devices: u32,
    /// In: our entry size; out: bytes KFD fills per entry.
    pub entry_size: u32,
}
assert_layout!(
    DbgTrapDeviceSnapshotArgs,
    size = 24,
    align = 8,
    exception_mask = 0,
    snapshot_buf_ptr = 8,
    num_devices = 16,
    entry_size = 20
);

/// The anonymous union of `struct kfd_ioctl_dbg_trap_args`, one member per
/// `KFD_IOC_DBG_TRAP_*` operation.
///
/// Writing a member is safe; build values with [`Default`] first (it
/// initialises all 24 bytes) so that any member can then be read. Reading
/// needs `unsafe` because a caller could have built the union from a
/// smaller member.
#[repr(C)]
#[derive(Clone, Copy)]
#[allow(missing_docs)]
pub union DbgTrapOpArgs {
    pub enable: DbgTrapEnableArgs,
    pub send_runtime_event: DbgTrapSendRuntimeEventArgs,
    pub set_exceptions_enabled: DbgTrapSetExceptionsEnabledArgs,
    pub launch_override: DbgTrapSetWaveLaunchOverrideArgs,
    pub launch_mode: DbgTrapSetWaveLaunchModeArgs,
    pub suspend_queues: DbgTrapSuspendQueuesArgs,
    pub resume_queues: DbgTrapResumeQueuesArgs,
    pub set_node_address_watch: DbgTrapSetNodeAddressWatchArgs,
    pub clear_node_address_watch: DbgTrapClearNodeAddressWatchArgs,
    pub set_flags: DbgTrapSetFlagsArgs,
    pub query_debug_event: DbgTrapQueryDebugEventArgs,
    pub query_exception_info: DbgTrapQueryExceptionInfoArgs,
    pub queue_snapshot: DbgTrapQueueSnapshotArgs,
    pub device_snapshot: DbgTrapDeviceSnapshotArgs,
}
assert_layout!(DbgTrapOpArgs, size = 24, align = 8);

impl Default for DbgTrapOpArgs {
    fn default() -> Self {
        // A 24-byte member: every byte of the union is initialised.
        Self {
            enable: DbgTrapEnableArgs::default(),
        }
    }
}

impl fmt::Debug for DbgTrapOpArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DbgTrapOpArgs { .. }")
    }
}

/// `struct kfd_ioctl_dbg_trap_args` (`AMDKFD_IOC_DBG_TRAP`, 1.13).
#[doc(alias = "kfd_ioctl_dbg_trap_args")]
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct DbgTrapArgs {
    /// Target process.
    pub pid: u32,
    /// `KFD_IOC_DBG_TRAP_*`.
    pub op: u32,
    /// The operation's arguments (the anonymous union in C).
    pub op_args: DbgTrapOpArgs,
}
assert_layout!(
    DbgTrapArgs,
    size = 32,
    align = 8,
    pid = 0,
    op = 4,
    op_args = 8
);
