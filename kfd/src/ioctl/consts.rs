//! The integer constants of `include/uapi/linux/kfd_ioctl.h` (KFD 1.18),
//! under their C names, for readers of the header and of the ROCr sources.
//!
//! The typed views ([`AllocMemFlags`](super::AllocMemFlags),
//! [`QueueType`](super::QueueType), ...) are built from these values.
//! Those of the deprecated debugger ioctls (`MAX_ALLOWED_*`) are left out.
#![allow(missing_docs)] // Each constant is documented by its C name and group comment.

/// `KFD_IOCTL_MAJOR_VERSION` of the header this crate mirrors.
pub const KFD_IOCTL_MAJOR_VERSION: u32 = 1;
/// `KFD_IOCTL_MINOR_VERSION` of the header this crate mirrors.
pub const KFD_IOCTL_MINOR_VERSION: u32 = 18;

// For kfd_ioctl_create_queue_args.queue_type.
pub const KFD_IOC_QUEUE_TYPE_COMPUTE: u32 = 0x0;
pub const KFD_IOC_QUEUE_TYPE_SDMA: u32 = 0x1;
pub const KFD_IOC_QUEUE_TYPE_COMPUTE_AQL: u32 = 0x2;
pub const KFD_IOC_QUEUE_TYPE_SDMA_XGMI: u32 = 0x3;
/// Since 1.17.
pub const KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID: u32 = 0x4;

pub const KFD_MAX_QUEUE_PERCENTAGE: u32 = 100;
pub const KFD_MAX_QUEUE_PRIORITY: u32 = 15;
pub const KFD_MIN_QUEUE_RING_SIZE: u32 = 1024;

// For kfd_ioctl_set_memory_policy_args.default_policy and alternate_policy.
pub const KFD_IOC_CACHE_POLICY_COHERENT: u32 = 0;
pub const KFD_IOC_CACHE_POLICY_NONCOHERENT: u32 = 1;

/// Misc. per-process flag (since 1.18).
pub const KFD_PROC_FLAG_MFMA_HIGH_PRECISION: u32 = 1 << 0;

pub const NUM_OF_SUPPORTED_GPUS: u32 = 7;

pub const KFD_INVALID_FD: u32 = 0xffff_ffff;

// Event types, matching HSA_EVENTTYPE.
pub const KFD_IOC_EVENT_SIGNAL: u32 = 0;
pub const KFD_IOC_EVENT_NODECHANGE: u32 = 1;
pub const KFD_IOC_EVENT_DEVICESTATECHANGE: u32 = 2;
pub const KFD_IOC_EVENT_HW_EXCEPTION: u32 = 3;
pub const KFD_IOC_EVENT_SYSTEM_EVENT: u32 = 4;
pub const KFD_IOC_EVENT_DEBUG_EVENT: u32 = 5;
pub const KFD_IOC_EVENT_PROFILE_EVENT: u32 = 6;
pub const KFD_IOC_EVENT_QUEUE_EVENT: u32 = 7;
pub const KFD_IOC_EVENT_MEMORY: u32 = 8;

pub const KFD_IOC_WAIT_RESULT_COMPLETE: u32 = 0;
pub const KFD_IOC_WAIT_RESULT_TIMEOUT: u32 = 1;
pub const KFD_IOC_WAIT_RESULT_FAIL: u32 = 2;

pub const KFD_SIGNAL_EVENT_LIMIT: u32 = 4096;

pub const KFD_HW_EXCEPTION_WHOLE_GPU_RESET: u32 = 0;
pub const KFD_HW_EXCEPTION_PER_ENGINE_RESET: u32 = 1;
pub const KFD_HW_EXCEPTION_GPU_HANG: u32 = 0;
pub const KFD_HW_EXCEPTION_ECC: u32 = 1;

pub const KFD_MEM_ERR_NO_RAS: u32 = 0;
pub const KFD_MEM_ERR_SRAM_ECC: u32 = 1;
pub const KFD_MEM_ERR_POISON_CONSUMED: u32 = 2;
pub const KFD_MEM_ERR_GPU_HANG: u32 = 3;

// Allocation flags: memory types.
pub const KFD_IOC_ALLOC_MEM_FLAGS_VRAM: u32 = 1 << 0;
pub const KFD_IOC_ALLOC_MEM_FLAGS_GTT: u32 = 1 << 1;
pub const KFD_IOC_ALLOC_MEM_FLAGS_USERPTR: u32 = 1 << 2;
pub const KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL: u32 = 1 << 3;
pub const KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP: u32 = 1 << 4;
// Allocation flags: attributes and access options.
pub const KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE: u32 = 1 << 31;
pub const KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE: u32 = 1 << 30;
pub const KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC: u32 = 1 << 29;
pub const KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE: u32 = 1 << 28;
pub const KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM: u32 = 1 << 27;
pub const KFD_IOC_ALLOC_MEM_FLAGS_COHERENT: u32 = 1 << 26;
pub const KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED: u32 = 1 << 25;
pub const KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT: u32 = 1 << 24;
/// Since 1.16.
pub const KFD_IOC_ALLOC_MEM_FLAGS_CONTIGUOUS: u32 = 1 << 23;

// enum kfd_smi_event.
pub const KFD_SMI_EVENT_NONE: u32 = 0;
pub const KFD_SMI_EVENT_VMFAULT: u32 = 1;
pub const KFD_SMI_EVENT_THERMAL_THROTTLE: u32 = 2;
pub const KFD_SMI_EVENT_GPU_PRE_RESET: u32 = 3;
pub const KFD_SMI_EVENT_GPU_POST_RESET: u32 = 4;
pub const KFD_SMI_EVENT_MIGRATE_START: u32 = 5;
pub const KFD_SMI_EVENT_MIGRATE_END: u32 = 6;
pub const KFD_SMI_EVENT_PAGE_FAULT_START: u32 = 7;
pub const KFD_SMI_EVENT_PAGE_FAULT_END: u32 = 8;
pub const KFD_SMI_EVENT_QUEUE_EVICTION: u32 = 9;
pub const KFD_SMI_EVENT_QUEUE_RESTORE: u32 = 10;
pub const KFD_SMI_EVENT_UNMAP_FROM_GPU: u32 = 11;
pub const KFD_SMI_EVENT_PROCESS_START: u32 = 12;
pub const KFD_SMI_EVENT_PROCESS_END: u32 = 13;
pub const KFD_SMI_EVENT_ALL_PROCESS: u32 = 64;

// enum KFD_MIGRATE_TRIGGERS.
pub const KFD_MIGRATE_TRIGGER_PREFETCH: u32 = 0;
pub const KFD_MIGRATE_TRIGGER_PAGEFAULT_GPU: u32 = 1;
pub const KFD_MIGRATE_TRIGGER_PAGEFAULT_CPU: u32 = 2;
pub const KFD_MIGRATE_TRIGGER_TTM_EVICTION: u32 = 3;

// enum KFD_QUEUE_EVICTION_TRIGGERS.
pub const KFD_QUEUE_EVICTION_TRIGGER_SVM: u32 = 0;
pub const KFD_QUEUE_EVICTION_TRIGGER_USERPTR: u32 = 1;
pub const KFD_QUEUE_EVICTION_TRIGGER_TTM: u32 = 2;
pub const KFD_QUEUE_EVICTION_TRIGGER_SUSPEND: u32 = 3;
pub const KFD_QUEUE_EVICTION_CRIU_CHECKPOINT: u32 = 4;
pub const KFD_QUEUE_EVICTION_CRIU_RESTORE: u32 = 5;

// enum KFD_SVM_UNMAP_TRIGGERS.
pub const KFD_SVM_UNMAP_TRIGGER_MMU_NOTIFY: u32 = 0;
pub const KFD_SVM_UNMAP_TRIGGER_MMU_NOTIFY_MIGRATE: u32 = 1;
pub const KFD_SVM_UNMAP_TRIGGER_UNMAP_FROM_CPU: u32 = 2;

pub const KFD_SMI_EVENT_MSG_SIZE: u32 = 96;

/// `KFD_SMI_EVENT_MASK_FROM_INDEX(i)`: the mask bit of SMI event `i` (1..=64).
pub const fn kfd_smi_event_mask_from_index(i: u32) -> u64 {
    1u64 << (i.wrapping_sub(1) & 63)
}

// enum kfd_criu_op.
pub const KFD_CRIU_OP_PROCESS_INFO: u32 = 0;
pub const KFD_CRIU_OP_CHECKPOINT: u32 = 1;
pub const KFD_CRIU_OP_UNPAUSE: u32 = 2;
pub const KFD_CRIU_OP_RESTORE: u32 = 3;
pub const KFD_CRIU_OP_RESUME: u32 = 4;

// enum kfd_mmio_remap: register offsets inside the remapped MMIO page.
pub const KFD_MMIO_REMAP_HDP_MEM_FLUSH_CNTL: u32 = 0;
pub const KFD_MMIO_REMAP_HDP_REG_FLUSH_CNTL: u32 = 4;

// SVM range flags.
pub const KFD_IOCTL_SVM_FLAG_HOST_ACCESS: u32 = 0x0000_0001;
pub const KFD_IOCTL_SVM_FLAG_COHERENT: u32 = 0x0000_0002;
pub const KFD_IOCTL_SVM_FLAG_HIVE_LOCAL: u32 = 0x0000_0004;
pub const KFD_IOCTL_SVM_FLAG_GPU_RO: u32 = 0x0000_0008;
pub const KFD_IOCTL_SVM_FLAG_GPU_EXEC: u32 = 0x0000_0010;
pub const KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY: u32 = 0x0000_0020;
pub const KFD_IOCTL_SVM_FLAG_GPU_ALWAYS_MAPPED: u32 = 0x0000_0040;
pub const KFD_IOCTL_SVM_FLAG_EXT_COHERENT: u32 = 0x0000_0080;

// enum kfd_ioctl_svm_op.
pub const KFD_IOCTL_SVM_OP_SET_ATTR: u32 = 0;
pub const KFD_IOCTL_SVM_OP_GET_ATTR: u32 = 1;

// enum kfd_ioctl_svm_location.
pub const KFD_IOCTL_SVM_LOCATION_SYSMEM: u32 = 0;
pub const KFD_IOCTL_SVM_LOCATION_UNDEFINED: u32 = 0xffff_ffff;

// enum kfd_ioctl_svm_attr_type.
pub const KFD_IOCTL_SVM_ATTR_PREFERRED_LOC: u32 = 0;
pub const KFD_IOCTL_SVM_ATTR_PREFETCH_LOC: u32 = 1;
pub const KFD_IOCTL_SVM_ATTR_ACCESS: u32 = 2;
pub const KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE: u32 = 3;
pub const KFD_IOCTL_SVM_ATTR_NO_ACCESS: u32 = 4;
pub const KFD_IOCTL_SVM_ATTR_SET_FLAGS: u32 = 5;
pub const KFD_IOCTL_SVM_ATTR_CLR_FLAGS: u32 = 6;
pub const KFD_IOCTL_SVM_ATTR_GRANULARITY: u32 = 7;

// enum kfd_dbg_trap_override_mode.
pub const KFD_DBG_TRAP_OVERRIDE_OR: u32 = 0;
pub const KFD_DBG_TRAP_OVERRIDE_REPLACE: u32 = 1;

// enum kfd_dbg_trap_mask.
pub const KFD_DBG_TRAP_MASK_FP_INVALID: u32 = 1;
pub const KFD_DBG_TRAP_MASK_FP_INPUT_DENORMAL: u32 = 2;
pub const KFD_DBG_TRAP_MASK_FP_DIVIDE_BY_ZERO: u32 = 4;
pub const KFD_DBG_TRAP_MASK_FP_OVERFLOW: u32 = 8;
pub const KFD_DBG_TRAP_MASK_FP_UNDERFLOW: u32 = 16;
pub const KFD_DBG_TRAP_MASK_FP_INEXACT: u32 = 32;
pub const KFD_DBG_TRAP_MASK_INT_DIVIDE_BY_ZERO: u32 = 64;
pub const KFD_DBG_TRAP_MASK_DBG_ADDRESS_WATCH: u32 = 128;
pub const KFD_DBG_TRAP_MASK_DBG_MEMORY_VIOLATION: u32 = 256;
pub const KFD_DBG_TRAP_MASK_TRAP_ON_WAVE_START: u32 = 1 << 30;
pub const KFD_DBG_TRAP_MASK_TRAP_ON_WAVE_END: u32 = 1 << 31;

// enum kfd_dbg_trap_wave_launch_mode.
pub const KFD_DBG_TRAP_WAVE_LAUNCH_MODE_NORMAL: u32 = 0;
pub const KFD_DBG_TRAP_WAVE_LAUNCH_MODE_HALT: u32 = 1;
pub const KFD_DBG_TRAP_WAVE_LAUNCH_MODE_DEBUG: u32 = 3;

// enum kfd_dbg_trap_address_watch_mode.
pub const KFD_DBG_TRAP_ADDRESS_WATCH_MODE_READ: u32 = 0;
pub const KFD_DBG_TRAP_ADDRESS_WATCH_MODE_NONREAD: u32 = 1;
pub const KFD_DBG_TRAP_ADDRESS_WATCH_MODE_ATOMIC: u32 = 2;
pub const KFD_DBG_TRAP_ADDRESS_WATCH_MODE_ALL: u32 = 3;

// enum kfd_dbg_trap_flags.
pub const KFD_DBG_TRAP_FLAG_SINGLE_MEM_OP: u32 = 1;
pub const KFD_DBG_TRAP_FLAG_SINGLE_ALU_OP: u32 = 2;

// enum kfd_dbg_trap_exception_code.
pub const EC_NONE: u32 = 0;
pub const EC_QUEUE_WAVE_ABORT: u32 = 1;
pub const EC_QUEUE_WAVE_TRAP: u32 = 2;
pub const EC_QUEUE_WAVE_MATH_ERROR: u32 = 3;
pub const EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION: u32 = 4;
pub const EC_QUEUE_WAVE_MEMORY_VIOLATION: u32 = 5;
pub const EC_QUEUE_WAVE_APERTURE_VIOLATION: u32 = 6;
pub const EC_QUEUE_PACKET_DISPATCH_DIM_INVALID: u32 = 16;
pub const EC_QUEUE_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID: u32 = 17;
pub const EC_QUEUE_PACKET_DISPATCH_CODE_INVALID: u32 = 18;
pub const EC_QUEUE_PACKET_RESERVED: u32 = 19;
pub const EC_QUEUE_PACKET_UNSUPPORTED: u32 = 20;
pub const EC_QUEUE_PACKET_DISPATCH_WORK_GROUP_SIZE_INVALID: u32 = 21;
pub const EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID: u32 = 22;
pub const EC_QUEUE_PACKET_VENDOR_UNSUPPORTED: u32 = 23;
pub const EC_QUEUE_PREEMPTION_ERROR: u32 = 30;
pub const EC_QUEUE_NEW: u32 = 31;
pub const EC_DEVICE_QUEUE_DELETE: u32 = 32;
pub const EC_DEVICE_MEMORY_VIOLATION: u32 = 33;
pub const EC_DEVICE_RAS_ERROR: u32 = 34;
pub const EC_DEVICE_FATAL_HALT: u32 = 35;
pub const EC_DEVICE_NEW: u32 = 36;
pub const EC_PROCESS_RUNTIME: u32 = 48;
pub const EC_PROCESS_DEVICE_REMOVE: u32 = 49;
pub const EC_MAX: u32 = 50;

/// `KFD_EC_MASK(ecode)`: the exception-mask bit of exception code `ecode` (1..=64).
pub const fn kfd_ec_mask(ecode: u32) -> u64 {
    1u64 << (ecode.wrapping_sub(1) & 63)
}

/// `KFD_EC_MASK_QUEUE`.
pub const KFD_EC_MASK_QUEUE: u64 = kfd_ec_mask(EC_QUEUE_WAVE_ABORT)
    | kfd_ec_mask(EC_QUEUE_WAVE_TRAP)
    | kfd_ec_mask(EC_QUEUE_WAVE_MATH_ERROR)
    | kfd_ec_mask(EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION)
    | kfd_ec_mask(EC_QUEUE_WAVE_MEMORY_VIOLATION)
    | kfd_ec_mask(EC_QUEUE_WAVE_APERTURE_VIOLATION)
    | KFD_EC_MASK_PACKET
    | kfd_ec_mask(EC_QUEUE_PREEMPTION_ERROR)
    | kfd_ec_mask(EC_QUEUE_NEW);
/// `KFD_EC_MASK_DEVICE`.
pub const KFD_EC_MASK_DEVICE: u64 = kfd_ec_mask(EC_DEVICE_QUEUE_DELETE)
    | kfd_ec_mask(EC_DEVICE_RAS_ERROR)
    | kfd_ec_mask(EC_DEVICE_FATAL_HALT)
    | kfd_ec_mask(EC_DEVICE_MEMORY_VIOLATION)
    | kfd_ec_mask(EC_DEVICE_NEW);
/// `KFD_EC_MASK_PROCESS`.
pub const KFD_EC_MASK_PROCESS: u64 =
    kfd_ec_mask(EC_PROCESS_RUNTIME) | kfd_ec_mask(EC_PROCESS_DEVICE_REMOVE);
/// `KFD_EC_MASK_PACKET`.
pub const KFD_EC_MASK_PACKET: u64 = kfd_ec_mask(EC_QUEUE_PACKET_DISPATCH_DIM_INVALID)
    | kfd_ec_mask(EC_QUEUE_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID)
    | kfd_ec_mask(EC_QUEUE_PACKET_DISPATCH_CODE_INVALID)
    | kfd_ec_mask(EC_QUEUE_PACKET_RESERVED)
    | kfd_ec_mask(EC_QUEUE_PACKET_UNSUPPORTED)
    | kfd_ec_mask(EC_QUEUE_PACKET_DISPATCH_WORK_GROUP_SIZE_INVALID)
    | kfd_ec_mask(EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID)
    | kfd_ec_mask(EC_QUEUE_PACKET_VENDOR_UNSUPPORTED);

// enum kfd_dbg_runtime_state.
pub const DEBUG_RUNTIME_STATE_DISABLED: u32 = 0;
pub const DEBUG_RUNTIME_STATE_ENABLED: u32 = 1;
pub const DEBUG_RUNTIME_STATE_ENABLED_BUSY: u32 = 2;
pub const DEBUG_RUNTIME_STATE_ENABLED_ERROR: u32 = 3;

pub const KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK: u32 = 1;
pub const KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK: u32 = 2;

// Queue status bits returned per queue id by suspend/resume.
pub const KFD_DBG_QUEUE_ERROR_BIT: u32 = 30;
pub const KFD_DBG_QUEUE_INVALID_BIT: u32 = 31;
pub const KFD_DBG_QUEUE_ERROR_MASK: u32 = 1 << KFD_DBG_QUEUE_ERROR_BIT;
pub const KFD_DBG_QUEUE_INVALID_MASK: u32 = 1 << KFD_DBG_QUEUE_INVALID_BIT;

// enum kfd_dbg_trap_operations.
pub const KFD_IOC_DBG_TRAP_ENABLE: u32 = 0;
pub const KFD_IOC_DBG_TRAP_DISABLE: u32 = 1;
pub const KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT: u32 = 2;
pub const KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED: u32 = 3;
pub const KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE: u32 = 4;
pub const KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE: u32 = 5;
pub const KFD_IOC_DBG_TRAP_SUSPEND_QUEUES: u32 = 6;
pub const KFD_IOC_DBG_TRAP_RESUME_QUEUES: u32 = 7;
pub const KFD_IOC_DBG_TRAP_SET_NODE_ADDRESS_WATCH: u32 = 8;
pub const KFD_IOC_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH: u32 = 9;
pub const KFD_IOC_DBG_TRAP_SET_FLAGS: u32 = 10;
pub const KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT: u32 = 11;
pub const KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO: u32 = 12;
pub const KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT: u32 = 13;
pub const KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT: u32 = 14;

/// `AMDKFD_IOCTL_BASE`: the ioctl group, `'K'`.
pub const AMDKFD_IOCTL_BASE: u8 = b'K';
/// `AMDKFD_COMMAND_START`: first ioctl number.
pub const AMDKFD_COMMAND_START: u8 = 0x01;
/// `AMDKFD_COMMAND_END`: one past the last ioctl number.
pub const AMDKFD_COMMAND_END: u8 = 0x27;
