//! Typed views of the `kfd_ioctl.h` constants: enums for closed sets of
//! values (checked with `TryFrom`), bitflags for masks.

use super::KfdVersion;
use super::consts::*;
use crate::error::UnknownValue;

/// Declares a `u32`-backed enum with `TryFrom<u32>` and `From<Self> for u32`.
macro_rules! kfd_enum {
    (
        $(#[$meta:meta])*
        $name:ident ($what:literal) {
            $($(#[$vmeta:meta])* $variant:ident = $value:expr,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u32)]
        pub enum $name {
            $($(#[$vmeta])* $variant = $value,)*
        }

        impl TryFrom<u32> for $name {
            type Error = UnknownValue;
            fn try_from(value: u32) -> Result<Self, UnknownValue> {
                $(if value == $value { return Ok(Self::$variant); })*
                Err(UnknownValue { what: $what, value: u64::from(value) })
            }
        }

        impl From<$name> for u32 {
            fn from(v: $name) -> u32 {
                v as u32
            }
        }
    };
}

kfd_enum! {
    /// `KFD_IOC_QUEUE_TYPE_*`: what a user-mode queue executes.
    QueueType ("queue type") {
        /// `KFD_IOC_QUEUE_TYPE_COMPUTE`: PM4 compute queue.
        Compute = KFD_IOC_QUEUE_TYPE_COMPUTE,
        /// `KFD_IOC_QUEUE_TYPE_SDMA`.
        Sdma = KFD_IOC_QUEUE_TYPE_SDMA,
        /// `KFD_IOC_QUEUE_TYPE_COMPUTE_AQL`: an HSA AQL queue.
        ComputeAql = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL,
        /// `KFD_IOC_QUEUE_TYPE_SDMA_XGMI`.
        SdmaXgmi = KFD_IOC_QUEUE_TYPE_SDMA_XGMI,
        /// `KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID` (1.17): SDMA on a chosen engine.
        SdmaByEngId = KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID,
    }
}

impl QueueType {
    /// The interface version that introduced this queue type.
    pub const fn since(self) -> KfdVersion {
        match self {
            Self::SdmaByEngId => KfdVersion::new(1, 17),
            _ => KfdVersion::new(1, 0),
        }
    }
}

/// Queue priority, `0..=KFD_MAX_QUEUE_PRIORITY` (15).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct QueuePriority(u8);

impl QueuePriority {
    /// The lowest priority.
    pub const MIN: Self = Self(0);
    /// ROCr's default ("normal") priority.
    pub const NORMAL: Self = Self(7);
    /// `KFD_MAX_QUEUE_PRIORITY`.
    pub const MAX: Self = Self(KFD_MAX_QUEUE_PRIORITY as u8);

    /// A priority; `None` above 15.
    pub const fn new(p: u32) -> Option<Self> {
        if p <= KFD_MAX_QUEUE_PRIORITY {
            Some(Self(p as u8))
        } else {
            None
        }
    }

    /// The value passed to KFD.
    pub const fn get(self) -> u32 {
        self.0 as u32
    }
}

/// Queue percentage, `0..=KFD_MAX_QUEUE_PERCENTAGE` (100); 0 deactivates the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct QueuePercentage(u8);

impl QueuePercentage {
    /// 100 %.
    pub const FULL: Self = Self(KFD_MAX_QUEUE_PERCENTAGE as u8);
    /// 0 %: the queue is deactivated (unmapped) until set higher again.
    pub const ZERO: Self = Self(0);

    /// A percentage; `None` above 100.
    pub const fn new(p: u32) -> Option<Self> {
        if p <= KFD_MAX_QUEUE_PERCENTAGE {
            Some(Self(p as u8))
        } else {
            None
        }
    }

    /// The value passed to KFD.
    pub const fn get(self) -> u32 {
        self.0 as u32
    }
}

impl Default for QueuePercentage {
    fn default() -> Self {
        Self::FULL
    }
}

kfd_enum! {
    /// `KFD_IOC_CACHE_POLICY_*`.
    CachePolicy ("cache policy") {
        /// `KFD_IOC_CACHE_POLICY_COHERENT`.
        Coherent = KFD_IOC_CACHE_POLICY_COHERENT,
        /// `KFD_IOC_CACHE_POLICY_NONCOHERENT`.
        NonCoherent = KFD_IOC_CACHE_POLICY_NONCOHERENT,
    }
}

bitflags::bitflags! {
    /// `KFD_PROC_FLAG_*`: `misc_process_flag` of `AMDKFD_IOC_SET_MEMORY_POLICY` (1.18).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ProcessFlags: u32 {
        /// `KFD_PROC_FLAG_MFMA_HIGH_PRECISION`.
        const MFMA_HIGH_PRECISION = KFD_PROC_FLAG_MFMA_HIGH_PRECISION;
    }
}

kfd_enum! {
    /// `KFD_IOC_EVENT_*`: event types (matching `HSA_EVENTTYPE`).
    EventType ("event type") {
        /// `KFD_IOC_EVENT_SIGNAL`.
        Signal = KFD_IOC_EVENT_SIGNAL,
        /// `KFD_IOC_EVENT_NODECHANGE`.
        NodeChange = KFD_IOC_EVENT_NODECHANGE,
        /// `KFD_IOC_EVENT_DEVICESTATECHANGE`.
        DeviceStateChange = KFD_IOC_EVENT_DEVICESTATECHANGE,
        /// `KFD_IOC_EVENT_HW_EXCEPTION`.
        HwException = KFD_IOC_EVENT_HW_EXCEPTION,
        /// `KFD_IOC_EVENT_SYSTEM_EVENT`.
        SystemEvent = KFD_IOC_EVENT_SYSTEM_EVENT,
        /// `KFD_IOC_EVENT_DEBUG_EVENT`.
        DebugEvent = KFD_IOC_EVENT_DEBUG_EVENT,
        /// `KFD_IOC_EVENT_PROFILE_EVENT`.
        ProfileEvent = KFD_IOC_EVENT_PROFILE_EVENT,
        /// `KFD_IOC_EVENT_QUEUE_EVENT`.
        QueueEvent = KFD_IOC_EVENT_QUEUE_EVENT,
        /// `KFD_IOC_EVENT_MEMORY`.
        Memory = KFD_IOC_EVENT_MEMORY,
    }
}

kfd_enum! {
    /// `KFD_IOC_WAIT_RESULT_*`.
    WaitResult ("wait result") {
        /// `KFD_IOC_WAIT_RESULT_COMPLETE`.
        Complete = KFD_IOC_WAIT_RESULT_COMPLETE,
        /// `KFD_IOC_WAIT_RESULT_TIMEOUT`.
        Timeout = KFD_IOC_WAIT_RESULT_TIMEOUT,
        /// `KFD_IOC_WAIT_RESULT_FAIL`.
        Fail = KFD_IOC_WAIT_RESULT_FAIL,
    }
}

bitflags::bitflags! {
    /// `KFD_IOC_ALLOC_MEM_FLAGS_*`: memory type and attributes of an allocation.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct AllocMemFlags: u32 {
        /// `KFD_IOC_ALLOC_MEM_FLAGS_VRAM`.
        const VRAM = KFD_IOC_ALLOC_MEM_FLAGS_VRAM;
        /// `KFD_IOC_ALLOC_MEM_FLAGS_GTT`.
        const GTT = KFD_IOC_ALLOC_MEM_FLAGS_GTT;
        /// `KFD_IOC_ALLOC_MEM_FLAGS_USERPTR`.
        const USERPTR = KFD_IOC_ALLOC_MEM_FLAGS_USERPTR;
        /// `KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL`.
        const DOORBELL = KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL;
        /// `KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP`.
        const MMIO_REMAP = KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP;
        /// `KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE`.
        const WRITABLE = KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE;
        /// `KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE`.
        const EXECUTABLE = KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE;
        /// `KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC`.
        const PUBLIC = KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC;
        /// `KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE`.
        const NO_SUBSTITUTE = KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE;
        /// `KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM`.
        const AQL_QUEUE_MEM = KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM;
        /// `KFD_IOC_ALLOC_MEM_FLAGS_COHERENT`.
        const COHERENT = KFD_IOC_ALLOC_MEM_FLAGS_COHERENT;
        /// `KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED`.
        const UNCACHED = KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED;
        /// `KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT`.
        const EXT_COHERENT = KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT;
        /// `KFD_IOC_ALLOC_MEM_FLAGS_CONTIGUOUS` (1.16).
        const CONTIGUOUS = KFD_IOC_ALLOC_MEM_FLAGS_CONTIGUOUS;
    }
}

impl AllocMemFlags {
    /// The memory-type bits; exactly one must be set for an allocation.
    pub const TYPE_MASK: Self = Self::VRAM
        .union(Self::GTT)
        .union(Self::USERPTR)
        .union(Self::DOORBELL)
        .union(Self::MMIO_REMAP);
}

kfd_enum! {
    /// `enum kfd_smi_event`: system-management events (`AMDKFD_IOC_SMI_EVENTS`, 1.3).
    SmiEvent ("SMI event") {
        /// `KFD_SMI_EVENT_VMFAULT`.
        VmFault = KFD_SMI_EVENT_VMFAULT,
        /// `KFD_SMI_EVENT_THERMAL_THROTTLE`.
        ThermalThrottle = KFD_SMI_EVENT_THERMAL_THROTTLE,
        /// `KFD_SMI_EVENT_GPU_PRE_RESET`.
        GpuPreReset = KFD_SMI_EVENT_GPU_PRE_RESET,
        /// `KFD_SMI_EVENT_GPU_POST_RESET`.
        GpuPostReset = KFD_SMI_EVENT_GPU_POST_RESET,
        /// `KFD_SMI_EVENT_MIGRATE_START`.
        MigrateStart = KFD_SMI_EVENT_MIGRATE_START,
        /// `KFD_SMI_EVENT_MIGRATE_END`.
        MigrateEnd = KFD_SMI_EVENT_MIGRATE_END,
        /// `KFD_SMI_EVENT_PAGE_FAULT_START`.
        PageFaultStart = KFD_SMI_EVENT_PAGE_FAULT_START,
        /// `KFD_SMI_EVENT_PAGE_FAULT_END`.
        PageFaultEnd = KFD_SMI_EVENT_PAGE_FAULT_END,
        /// `KFD_SMI_EVENT_QUEUE_EVICTION`.
        QueueEviction = KFD_SMI_EVENT_QUEUE_EVICTION,
        /// `KFD_SMI_EVENT_QUEUE_RESTORE`.
        QueueRestore = KFD_SMI_EVENT_QUEUE_RESTORE,
        /// `KFD_SMI_EVENT_UNMAP_FROM_GPU`.
        UnmapFromGpu = KFD_SMI_EVENT_UNMAP_FROM_GPU,
        /// `KFD_SMI_EVENT_PROCESS_START`.
        ProcessStart = KFD_SMI_EVENT_PROCESS_START,
        /// `KFD_SMI_EVENT_PROCESS_END`.
        ProcessEnd = KFD_SMI_EVENT_PROCESS_END,
        /// `KFD_SMI_EVENT_ALL_PROCESS`: as a mask bit, events of every process (needs root).
        AllProcess = KFD_SMI_EVENT_ALL_PROCESS,
    }
}

impl SmiEvent {
    /// `KFD_SMI_EVENT_MASK_FROM_INDEX(self)`: the bit to write to the SMI fd.
    pub const fn mask(self) -> u64 {
        kfd_smi_event_mask_from_index(self as u32)
    }
}

bitflags::bitflags! {
    /// `KFD_IOCTL_SVM_FLAG_*`: SVM range flags.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct SvmFlags: u32 {
        /// `KFD_IOCTL_SVM_FLAG_HOST_ACCESS`.
        const HOST_ACCESS = KFD_IOCTL_SVM_FLAG_HOST_ACCESS;
        /// `KFD_IOCTL_SVM_FLAG_COHERENT`.
        const COHERENT = KFD_IOCTL_SVM_FLAG_COHERENT;
        /// `KFD_IOCTL_SVM_FLAG_HIVE_LOCAL`.
        const HIVE_LOCAL = KFD_IOCTL_SVM_FLAG_HIVE_LOCAL;
        /// `KFD_IOCTL_SVM_FLAG_GPU_RO`.
        const GPU_RO = KFD_IOCTL_SVM_FLAG_GPU_RO;
        /// `KFD_IOCTL_SVM_FLAG_GPU_EXEC`.
        const GPU_EXEC = KFD_IOCTL_SVM_FLAG_GPU_EXEC;
        /// `KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY`.
        const GPU_READ_MOSTLY = KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY;
        /// `KFD_IOCTL_SVM_FLAG_GPU_ALWAYS_MAPPED`.
        const GPU_ALWAYS_MAPPED = KFD_IOCTL_SVM_FLAG_GPU_ALWAYS_MAPPED;
        /// `KFD_IOCTL_SVM_FLAG_EXT_COHERENT`.
        const EXT_COHERENT = KFD_IOCTL_SVM_FLAG_EXT_COHERENT;
    }
}

kfd_enum! {
    /// `enum kfd_ioctl_svm_attr_type`.
    SvmAttrType ("SVM attribute type") {
        /// `KFD_IOCTL_SVM_ATTR_PREFERRED_LOC`: gpu_id, or 0 for system memory.
        PreferredLoc = KFD_IOCTL_SVM_ATTR_PREFERRED_LOC,
        /// `KFD_IOCTL_SVM_ATTR_PREFETCH_LOC`: gpu_id, or 0; setting it migrates now.
        PrefetchLoc = KFD_IOCTL_SVM_ATTR_PREFETCH_LOC,
        /// `KFD_IOCTL_SVM_ATTR_ACCESS`: the gpu_id in the value may access.
        Access = KFD_IOCTL_SVM_ATTR_ACCESS,
        /// `KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE`.
        AccessInPlace = KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE,
        /// `KFD_IOCTL_SVM_ATTR_NO_ACCESS`.
        NoAccess = KFD_IOCTL_SVM_ATTR_NO_ACCESS,
        /// `KFD_IOCTL_SVM_ATTR_SET_FLAGS`: [`SvmFlags`] to set.
        SetFlags = KFD_IOCTL_SVM_ATTR_SET_FLAGS,
        /// `KFD_IOCTL_SVM_ATTR_CLR_FLAGS`: [`SvmFlags`] to clear.
        ClrFlags = KFD_IOCTL_SVM_ATTR_CLR_FLAGS,
        /// `KFD_IOCTL_SVM_ATTR_GRANULARITY`: log2 of the migration granule in pages.
        Granularity = KFD_IOCTL_SVM_ATTR_GRANULARITY,
    }
}

impl super::raw::SvmAttribute {
    /// An attribute pair.
    pub const fn new(type_: SvmAttrType, value: u32) -> Self {
        Self {
            type_: type_ as u32,
            value,
        }
    }
}

kfd_enum! {
    /// `enum kfd_criu_op`.
    CriuOp ("CRIU operation") {
        /// `KFD_CRIU_OP_PROCESS_INFO`.
        ProcessInfo = KFD_CRIU_OP_PROCESS_INFO,
        /// `KFD_CRIU_OP_CHECKPOINT`.
        Checkpoint = KFD_CRIU_OP_CHECKPOINT,
        /// `KFD_CRIU_OP_UNPAUSE`.
        Unpause = KFD_CRIU_OP_UNPAUSE,
        /// `KFD_CRIU_OP_RESTORE`.
        Restore = KFD_CRIU_OP_RESTORE,
        /// `KFD_CRIU_OP_RESUME`.
        Resume = KFD_CRIU_OP_RESUME,
    }
}

kfd_enum! {
    /// `enum kfd_dbg_trap_override_mode`.
    WaveLaunchOverrideMode ("wave launch override mode") {
        /// `KFD_DBG_TRAP_OVERRIDE_OR`.
        Or = KFD_DBG_TRAP_OVERRIDE_OR,
        /// `KFD_DBG_TRAP_OVERRIDE_REPLACE`.
        Replace = KFD_DBG_TRAP_OVERRIDE_REPLACE,
    }
}

bitflags::bitflags! {
    /// `enum kfd_dbg_trap_mask`: wave launch trap overrides.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct DbgTrapMask: u32 {
        /// `KFD_DBG_TRAP_MASK_FP_INVALID`.
        const FP_INVALID = KFD_DBG_TRAP_MASK_FP_INVALID;
        /// `KFD_DBG_TRAP_MASK_FP_INPUT_DENORMAL`.
        const FP_INPUT_DENORMAL = KFD_DBG_TRAP_MASK_FP_INPUT_DENORMAL;
        /// `KFD_DBG_TRAP_MASK_FP_DIVIDE_BY_ZERO`.
        const FP_DIVIDE_BY_ZERO = KFD_DBG_TRAP_MASK_FP_DIVIDE_BY_ZERO;
        /// `KFD_DBG_TRAP_MASK_FP_OVERFLOW`.
        const FP_OVERFLOW = KFD_DBG_TRAP_MASK_FP_OVERFLOW;
        /// `KFD_DBG_TRAP_MASK_FP_UNDERFLOW`.
        const FP_UNDERFLOW = KFD_DBG_TRAP_MASK_FP_UNDERFLOW;
        /// `KFD_DBG_TRAP_MASK_FP_INEXACT`.
        const FP_INEXACT = KFD_DBG_TRAP_MASK_FP_INEXACT;
        /// `KFD_DBG_TRAP_MASK_INT_DIVIDE_BY_ZERO`.
        const INT_DIVIDE_BY_ZERO = KFD_DBG_TRAP_MASK_INT_DIVIDE_BY_ZERO;
        /// `KFD_DBG_TRAP_MASK_DBG_ADDRESS_WATCH`.
        const DBG_ADDRESS_WATCH = KFD_DBG_TRAP_MASK_DBG_ADDRESS_WATCH;
        /// `KFD_DBG_TRAP_MASK_DBG_MEMORY_VIOLATION`.
        const DBG_MEMORY_VIOLATION = KFD_DBG_TRAP_MASK_DBG_MEMORY_VIOLATION;
        /// `KFD_DBG_TRAP_MASK_TRAP_ON_WAVE_START`.
        const TRAP_ON_WAVE_START = KFD_DBG_TRAP_MASK_TRAP_ON_WAVE_START;
        /// `KFD_DBG_TRAP_MASK_TRAP_ON_WAVE_END`.
        const TRAP_ON_WAVE_END = KFD_DBG_TRAP_MASK_TRAP_ON_WAVE_END;
    }
}

kfd_enum! {
    /// `enum kfd_dbg_trap_wave_launch_mode`.
    WaveLaunchMode ("wave launch mode") {
        /// `KFD_DBG_TRAP_WAVE_LAUNCH_MODE_NORMAL`.
        Normal = KFD_DBG_TRAP_WAVE_LAUNCH_MODE_NORMAL,
        /// `KFD_DBG_TRAP_WAVE_LAUNCH_MODE_HALT`.
        Halt = KFD_DBG_TRAP_WAVE_LAUNCH_MODE_HALT,
        /// `KFD_DBG_TRAP_WAVE_LAUNCH_MODE_DEBUG`.
        Debug = KFD_DBG_TRAP_WAVE_LAUNCH_MODE_DEBUG,
    }
}

kfd_enum! {
    /// `enum kfd_dbg_trap_address_watch_mode`.
    AddressWatchMode ("address watch mode") {
        /// `KFD_DBG_TRAP_ADDRESS_WATCH_MODE_READ`.
        Read = KFD_DBG_TRAP_ADDRESS_WATCH_MODE_READ,
        /// `KFD_DBG_TRAP_ADDRESS_WATCH_MODE_NONREAD`.
        NonRead = KFD_DBG_TRAP_ADDRESS_WATCH_MODE_NONREAD,
        /// `KFD_DBG_TRAP_ADDRESS_WATCH_MODE_ATOMIC`.
        Atomic = KFD_DBG_TRAP_ADDRESS_WATCH_MODE_ATOMIC,
        /// `KFD_DBG_TRAP_ADDRESS_WATCH_MODE_ALL`.
        All = KFD_DBG_TRAP_ADDRESS_WATCH_MODE_ALL,
    }
}

bitflags::bitflags! {
    /// `enum kfd_dbg_trap_flags`: extra wave settings.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct DbgTrapFlags: u32 {
        /// `KFD_DBG_TRAP_FLAG_SINGLE_MEM_OP`.
        const SINGLE_MEM_OP = KFD_DBG_TRAP_FLAG_SINGLE_MEM_OP;
        /// `KFD_DBG_TRAP_FLAG_SINGLE_ALU_OP`.
        const SINGLE_ALU_OP = KFD_DBG_TRAP_FLAG_SINGLE_ALU_OP;
    }
}

kfd_enum! {
    /// `enum kfd_dbg_trap_exception_code`.
    ExceptionCode ("exception code") {
        /// `EC_QUEUE_WAVE_ABORT`.
        QueueWaveAbort = EC_QUEUE_WAVE_ABORT,
        /// `EC_QUEUE_WAVE_TRAP`.
        QueueWaveTrap = EC_QUEUE_WAVE_TRAP,
        /// `EC_QUEUE_WAVE_MATH_ERROR`.
        QueueWaveMathError = EC_QUEUE_WAVE_MATH_ERROR,
        /// `EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION`.
        QueueWaveIllegalInstruction = EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION,
        /// `EC_QUEUE_WAVE_MEMORY_VIOLATION`.
        QueueWaveMemoryViolation = EC_QUEUE_WAVE_MEMORY_VIOLATION,
        /// `EC_QUEUE_WAVE_APERTURE_VIOLATION`.
        QueueWaveApertureViolation = EC_QUEUE_WAVE_APERTURE_VIOLATION,
        /// `EC_QUEUE_PACKET_DISPATCH_DIM_INVALID`.
        QueuePacketDispatchDimInvalid = EC_QUEUE_PACKET_DISPATCH_DIM_INVALID,
        /// `EC_QUEUE_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID`.
        QueuePacketDispatchGroupSegmentSizeInvalid = EC_QUEUE_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID,
        /// `EC_QUEUE_PACKET_DISPATCH_CODE_INVALID`.
        QueuePacketDispatchCodeInvalid = EC_QUEUE_PACKET_DISPATCH_CODE_INVALID,
        /// `EC_QUEUE_PACKET_RESERVED`.
        QueuePacketReserved = EC_QUEUE_PACKET_RESERVED,
        /// `EC_QUEUE_PACKET_UNSUPPORTED`.
        QueuePacketUnsupported = EC_QUEUE_PACKET_UNSUPPORTED,
        /// `EC_QUEUE_PACKET_DISPATCH_WORK_GROUP_SIZE_INVALID`.
        QueuePacketDispatchWorkGroupSizeInvalid = EC_QUEUE_PACKET_DISPATCH_WORK_GROUP_SIZE_INVALID,
        /// `EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID`.
        QueuePacketDispatchRegisterInvalid = EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID,
        /// `EC_QUEUE_PACKET_VENDOR_UNSUPPORTED`.
        QueuePacketVendorUnsupported = EC_QUEUE_PACKET_VENDOR_UNSUPPORTED,
        /// `EC_QUEUE_PREEMPTION_ERROR`.
        QueuePreemptionError = EC_QUEUE_PREEMPTION_ERROR,
        /// `EC_QUEUE_NEW`.
        QueueNew = EC_QUEUE_NEW,
        /// `EC_DEVICE_QUEUE_DELETE`.
        DeviceQueueDelete = EC_DEVICE_QUEUE_DELETE,
        /// `EC_DEVICE_MEMORY_VIOLATION`.
        DeviceMemoryViolation = EC_DEVICE_MEMORY_VIOLATION,
        /// `EC_DEVICE_RAS_ERROR`.
        DeviceRasError = EC_DEVICE_RAS_ERROR,
        /// `EC_DEVICE_FATAL_HALT`.
        DeviceFatalHalt = EC_DEVICE_FATAL_HALT,
        /// `EC_DEVICE_NEW`.
        DeviceNew = EC_DEVICE_NEW,
        /// `EC_PROCESS_RUNTIME`.
        ProcessRuntime = EC_PROCESS_RUNTIME,
        /// `EC_PROCESS_DEVICE_REMOVE`.
        ProcessDeviceRemove = EC_PROCESS_DEVICE_REMOVE,
    }
}

impl ExceptionCode {
    /// `KFD_EC_MASK(self)`: this exception's bit in an exception mask.
    pub const fn mask(self) -> u64 {
        kfd_ec_mask(self as u32)
    }

    /// `KFD_DBG_EC_TYPE_IS_QUEUE`.
    pub const fn is_queue(self) -> bool {
        self.mask() & KFD_EC_MASK_QUEUE != 0
    }

    /// `KFD_DBG_EC_TYPE_IS_DEVICE`.
    pub const fn is_device(self) -> bool {
        self.mask() & KFD_EC_MASK_DEVICE != 0
    }

    /// `KFD_DBG_EC_TYPE_IS_PROCESS`.
    pub const fn is_process(self) -> bool {
        self.mask() & KFD_EC_MASK_PROCESS != 0
    }

    /// `KFD_DBG_EC_TYPE_IS_PACKET`.
    pub const fn is_packet(self) -> bool {
        self.mask() & KFD_EC_MASK_PACKET != 0
    }
}

kfd_enum! {
    /// `enum kfd_dbg_runtime_state`.
    RuntimeState ("debug runtime state") {
        /// `DEBUG_RUNTIME_STATE_DISABLED`.
        Disabled = DEBUG_RUNTIME_STATE_DISABLED,
        /// `DEBUG_RUNTIME_STATE_ENABLED`.
        Enabled = DEBUG_RUNTIME_STATE_ENABLED,
        /// `DEBUG_RUNTIME_STATE_ENABLED_BUSY`.
        EnabledBusy = DEBUG_RUNTIME_STATE_ENABLED_BUSY,
        /// `DEBUG_RUNTIME_STATE_ENABLED_ERROR`.
        EnabledError = DEBUG_RUNTIME_STATE_ENABLED_ERROR,
    }
}

bitflags::bitflags! {
    /// `KFD_RUNTIME_ENABLE_MODE_*`: `mode_mask` of `AMDKFD_IOC_RUNTIME_ENABLE`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct RuntimeEnableMode: u32 {
        /// `KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK`: enable (else disable).
        const ENABLE = KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK;
        /// `KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK`: set up trap temporaries.
        const TTMP_SAVE = KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK;
    }
}

bitflags::bitflags! {
    /// `KFD_DBG_QUEUE_*_MASK`: status bits KFD writes into a queue id array
    /// entry on suspend/resume.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct DbgQueueStatus: u32 {
        /// `KFD_DBG_QUEUE_ERROR_MASK`: hardware failure.
        const ERROR = KFD_DBG_QUEUE_ERROR_MASK;
        /// `KFD_DBG_QUEUE_INVALID_MASK`: no such queue, new, or being destroyed.
        const INVALID = KFD_DBG_QUEUE_INVALID_MASK;
    }
}

/// The process's XNACK (recoverable GPU page fault) mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum XnackMode {
    /// Page faults are fatal; SVM memory stays mapped.
    Disabled,
    /// Page faults are retried, enabling on-demand migration.
    Enabled,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every raw value either decodes to a variant that encodes back to it,
    /// or is refused with its value; `count` values are accepted in all.
    fn round_trip<E>(count: usize)
    where
        E: TryFrom<u32, Error = UnknownValue> + Into<u32> + Copy,
    {
        let mut accepted = 0;
        for v in (0..=300u32).chain([0x7fff_ffff, 0xffff_fffe, u32::MAX]) {
            match E::try_from(v) {
                Ok(e) => {
                    assert_eq!(e.into(), v);
                    accepted += 1;
                }
                Err(err) => assert_eq!(err.value, u64::from(v)),
            }
        }
        assert_eq!(accepted, count);
    }

    #[test]
    fn enums_round_trip_and_refuse_the_rest() {
        round_trip::<QueueType>(5);
        round_trip::<CachePolicy>(2);
        round_trip::<EventType>(9);
        round_trip::<WaitResult>(3);
        round_trip::<SmiEvent>(14);
        round_trip::<SvmAttrType>(8);
        round_trip::<CriuOp>(5);
        round_trip::<WaveLaunchOverrideMode>(2);
        round_trip::<WaveLaunchMode>(3);
        round_trip::<AddressWatchMode>(4);
        round_trip::<ExceptionCode>(23);
        round_trip::<RuntimeState>(4);
    }

    #[test]
    fn exception_classes_follow_the_header_masks() {
        assert!(
            ExceptionCode::QueueWaveTrap.is_queue() && !ExceptionCode::QueueWaveTrap.is_packet()
        );
        assert!(
            ExceptionCode::QueuePacketReserved.is_queue()
                && ExceptionCode::QueuePacketReserved.is_packet()
        );
        assert!(ExceptionCode::DeviceMemoryViolation.is_device());
        assert!(
            ExceptionCode::ProcessRuntime.is_process() && !ExceptionCode::ProcessRuntime.is_queue()
        );
        assert_eq!(ExceptionCode::QueueWaveAbort.mask(), 1);
        assert_eq!(SmiEvent::AllProcess.mask(), 1 << 63);
        assert_eq!(QueuePriority::new(15), Some(QueuePriority::MAX));
        assert_eq!(QueuePercentage::new(100), Some(QueuePercentage::FULL));
    }

    #[test]
    fn errors_stay_small() {
        assert!(core::mem::size_of::<crate::Error>() <= 48);
    }
}
