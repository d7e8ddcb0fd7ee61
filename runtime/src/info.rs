//! Attributes: `hsa_system_get_info`, `hsa_agent_get_info` (HSA and AMD
//! attributes), `hsa_isa_get_info_alt`, `hsa_amd_memory_pool_get_info`,
//! `hsa_amd_agent_memory_pool_get_info` and `hsa_region_get_info`.
//!
//! Every value is computed as ROCr 5.2.3 computes it (`GpuAgent::GetInfo`,
//! `CpuAgent::GetInfo`, `Isa::GetInfo`, `MemoryRegion::GetInfo`/
//! `GetPoolInfo`/`GetAgentPoolInfo`, `Runtime::GetSystemInfo`), from the KFD
//! topology node the agent was built from (libhsakmt's `HsaNodeProperties`
//! fields are the topology's properties: `simd_count` is
//! `NumFComputeCores`, `array_count` is `NumShaderBanks`,
//! `simd_arrays_per_engine` is `NumArrays`, ...) or from ROCr's constants.
//! The attribute enums carry the C enumerator values of `hsa.h` and
//! `hsa_ext_amd.h`; an attribute a value does not name, or one this agent
//! kind does not answer, is `HSA_STATUS_ERROR_INVALID_ARGUMENT`, as in ROCr.
//!
//! [`InfoValue::to_bytes`] gives the bytes the C ABI copies to the caller's
//! buffer: the C type's size, native byte order.

use std::ffi::CStr;

use kfd::topology::{CacheType, HeapType, IoLinkFlags, IoLinkType, MemBank, Node};
use loader_core::processor::{FeatureSetting, Processor};
use loader_core::target::TargetId;

use crate::agent::{Agent, AgentRecord, DeviceType};
use crate::memory::{GRANULE, MemoryPool, PoolKind, PoolRecord};
use crate::status::{Error, Result, Status};
use crate::system::{Core, QUEUE_MAX_PACKETS, QUEUE_MIN_PACKETS, Runtime};

/// An attribute enum: C enumerator values, C names, conversion from the raw
/// value the C ABI passes.
macro_rules! attribute_enum {
    (
        $(#[$meta:meta])*
        $name:ident { $( $(#[$vmeta:meta])* $variant:ident = $value:expr, $cname:literal; )* }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u32)]
        pub enum $name {
            $( $(#[$vmeta])* $variant = $value, )*
        }

        impl $name {
            /// Every attribute, in header order.
            pub const ALL: &'static [Self] = &[$( Self::$variant ),*];

            /// The C enumerator's name.
            pub const fn c_name(self) -> &'static str {
                match self { $( Self::$variant => $cname, )* }
            }

            /// The attribute of a C enumerator value.
            pub fn from_raw(value: u32) -> Option<Self> {
                Self::ALL.iter().copied().find(|a| *a as u32 == value)
            }

            /// The C enumerator value.
            pub const fn raw(self) -> u32 {
                self as u32
            }
        }
    };
}

attribute_enum! {
    /// `hsa_system_info_t` (with the AMD values of the same C enum).
    SystemInfo {
        /// `uint16_t`: 1.
        VersionMajor = 0, "HSA_SYSTEM_INFO_VERSION_MAJOR";
        /// `uint16_t`: 1.
        VersionMinor = 1, "HSA_SYSTEM_INFO_VERSION_MINOR";
        /// `uint64_t`: the system clock now.
        Timestamp = 2, "HSA_SYSTEM_INFO_TIMESTAMP";
        /// `uint64_t`: its frequency in Hz.
        TimestampFrequency = 3, "HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY";
        /// `uint64_t`: the longest signal wait, in timestamp ticks.
        SignalMaxWait = 4, "HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT";
        /// `hsa_endianness_t`.
        Endianness = 5, "HSA_SYSTEM_INFO_ENDIANNESS";
        /// `hsa_machine_model_t`.
        MachineModel = 6, "HSA_SYSTEM_INFO_MACHINE_MODEL";
        /// `uint8_t[128]`: bit `e` set when extension `e` is supported.
        Extensions = 7, "HSA_SYSTEM_INFO_EXTENSIONS";
        /// `const char*`: the runtime's build identification.
        AmdBuildVersion = 0x200, "HSA_AMD_SYSTEM_INFO_BUILD_VERSION";
        /// `bool`: every GPU supports the SVM API.
        AmdSvmSupported = 0x201, "HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED";
        /// `bool`: every GPU reaches SVM memory by default (xnack on).
        AmdSvmAccessibleByDefault = 0x202, "HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT";
    }
}

attribute_enum! {
    /// `hsa_agent_info_t`.
    AgentInfo {
        /// `char[64]`.
        Name = 0, "HSA_AGENT_INFO_NAME";
        /// `char[64]`.
        VendorName = 1, "HSA_AGENT_INFO_VENDOR_NAME";
        /// `hsa_agent_feature_t`.
        Feature = 2, "HSA_AGENT_INFO_FEATURE";
        /// `hsa_machine_model_t`.
        MachineModel = 3, "HSA_AGENT_INFO_MACHINE_MODEL";
        /// `hsa_profile_t`.
        Profile = 4, "HSA_AGENT_INFO_PROFILE";
        /// `hsa_default_float_rounding_mode_t`.
        DefaultFloatRoundingMode = 5, "HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE";
        /// `hsa_default_float_rounding_mode_t`.
        BaseProfileDefaultFloatRoundingModes = 23, "HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES";
        /// `bool`.
        FastF16Operation = 24, "HSA_AGENT_INFO_FAST_F16_OPERATION";
        /// `uint32_t`.
        WavefrontSize = 6, "HSA_AGENT_INFO_WAVEFRONT_SIZE";
        /// `uint16_t[3]`.
        WorkgroupMaxDim = 7, "HSA_AGENT_INFO_WORKGROUP_MAX_DIM";
        /// `uint32_t`.
        WorkgroupMaxSize = 8, "HSA_AGENT_INFO_WORKGROUP_MAX_SIZE";
        /// `hsa_dim3_t`.
        GridMaxDim = 9, "HSA_AGENT_INFO_GRID_MAX_DIM";
        /// `uint32_t`.
        GridMaxSize = 10, "HSA_AGENT_INFO_GRID_MAX_SIZE";
        /// `uint32_t`.
        FbarrierMaxSize = 11, "HSA_AGENT_INFO_FBARRIER_MAX_SIZE";
        /// `uint32_t`.
        QueuesMax = 12, "HSA_AGENT_INFO_QUEUES_MAX";
        /// `uint32_t`.
        QueueMinSize = 13, "HSA_AGENT_INFO_QUEUE_MIN_SIZE";
        /// `uint32_t`.
        QueueMaxSize = 14, "HSA_AGENT_INFO_QUEUE_MAX_SIZE";
        /// `hsa_queue_type32_t`.
        QueueType = 15, "HSA_AGENT_INFO_QUEUE_TYPE";
        /// `uint32_t`.
        Node = 16, "HSA_AGENT_INFO_NODE";
        /// `hsa_device_type_t`.
        Device = 17, "HSA_AGENT_INFO_DEVICE";
        /// `uint32_t[4]`: bytes of the L1..L4 data caches.
        CacheSize = 18, "HSA_AGENT_INFO_CACHE_SIZE";
        /// `hsa_isa_t`.
        Isa = 19, "HSA_AGENT_INFO_ISA";
        /// `uint8_t[128]`.
        Extensions = 20, "HSA_AGENT_INFO_EXTENSIONS";
        /// `uint16_t`.
        VersionMajor = 21, "HSA_AGENT_INFO_VERSION_MAJOR";
        /// `uint16_t`.
        VersionMinor = 22, "HSA_AGENT_INFO_VERSION_MINOR";
    }
}

attribute_enum! {
    /// `hsa_amd_agent_info_t`.
    AmdAgentInfo {
        /// `uint32_t`: PCI device id.
        ChipId = 0xA000, "HSA_AMD_AGENT_INFO_CHIP_ID";
        /// `uint32_t`.
        CachelineSize = 0xA001, "HSA_AMD_AGENT_INFO_CACHELINE_SIZE";
        /// `uint32_t`.
        ComputeUnitCount = 0xA002, "HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT";
        /// `uint32_t`: MHz.
        MaxClockFrequency = 0xA003, "HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY";
        /// `uint32_t`: the KFD node id.
        DriverNodeId = 0xA004, "HSA_AMD_AGENT_INFO_DRIVER_NODE_ID";
        /// `uint32_t`.
        MaxAddressWatchPoints = 0xA005, "HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS";
        /// `uint32_t`: PCI bus/device/function (`location_id`).
        Bdfid = 0xA006, "HSA_AMD_AGENT_INFO_BDFID";
        /// `uint32_t`: bits.
        MemoryWidth = 0xA007, "HSA_AMD_AGENT_INFO_MEMORY_WIDTH";
        /// `uint32_t`: MHz.
        MemoryMaxFrequency = 0xA008, "HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY";
        /// `char[64]`: the marketing name.
        ProductName = 0xA009, "HSA_AMD_AGENT_INFO_PRODUCT_NAME";
        /// `uint32_t`.
        MaxWavesPerCu = 0xA00A, "HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU";
        /// `uint32_t`.
        NumSimdsPerCu = 0xA00B, "HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU";
        /// `uint32_t`.
        NumShaderEngines = 0xA00C, "HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES";
        /// `uint32_t`.
        NumShaderArraysPerSe = 0xA00D, "HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE";
        /// `hsa_amd_hdp_flush_t`.
        HdpFlush = 0xA00E, "HSA_AMD_AGENT_INFO_HDP_FLUSH";
        /// `uint32_t`: PCI domain.
        Domain = 0xA00F, "HSA_AMD_AGENT_INFO_DOMAIN";
        /// `bool`.
        CooperativeQueues = 0xA010, "HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES";
        /// `char[]`: `GPU-<16 hex digits>`.
        Uuid = 0xA011, "HSA_AMD_AGENT_INFO_UUID";
        /// `uint32_t`.
        AsicRevision = 0xA012, "HSA_AMD_AGENT_INFO_ASIC_REVISION";
        /// `bool`.
        SvmDirectHostAccess = 0xA013, "HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS";
        /// `uint32_t`.
        CooperativeComputeUnitCount = 0xA014, "HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT";
    }
}

attribute_enum! {
    /// `hsa_isa_info_t`.
    IsaInfo {
        /// `uint32_t`: the name's length including the NUL.
        NameLength = 0, "HSA_ISA_INFO_NAME_LENGTH";
        /// `char[NAME_LENGTH]`.
        Name = 1, "HSA_ISA_INFO_NAME";
        /// `uint32_t` (deprecated).
        CallConventionCount = 2, "HSA_ISA_INFO_CALL_CONVENTION_COUNT";
        /// `uint32_t` (deprecated).
        CallConventionInfoWavefrontSize = 3, "HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE";
        /// `uint32_t` (deprecated).
        CallConventionInfoWavefrontsPerComputeUnit = 4, "HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT";
        /// `bool[2]`, indexed by `hsa_machine_model_t`.
        MachineModels = 5, "HSA_ISA_INFO_MACHINE_MODELS";
        /// `bool[2]`, indexed by `hsa_profile_t`.
        Profiles = 6, "HSA_ISA_INFO_PROFILES";
        /// `bool[3]`, indexed by `hsa_default_float_rounding_mode_t`.
        DefaultFloatRoundingModes = 7, "HSA_ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES";
        /// `bool[3]`.
        BaseProfileDefaultFloatRoundingModes = 8, "HSA_ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES";
        /// `bool`.
        FastF16Operation = 9, "HSA_ISA_INFO_FAST_F16_OPERATION";
        /// `uint16_t[3]`.
        WorkgroupMaxDim = 12, "HSA_ISA_INFO_WORKGROUP_MAX_DIM";
        /// `uint32_t`.
        WorkgroupMaxSize = 13, "HSA_ISA_INFO_WORKGROUP_MAX_SIZE";
        /// `hsa_dim3_t`.
        GridMaxDim = 14, "HSA_ISA_INFO_GRID_MAX_DIM";
        /// `uint64_t`.
        GridMaxSize = 16, "HSA_ISA_INFO_GRID_MAX_SIZE";
        /// `uint32_t`.
        FbarrierMaxSize = 17, "HSA_ISA_INFO_FBARRIER_MAX_SIZE";
    }
}

attribute_enum! {
    /// `hsa_amd_memory_pool_info_t`.
    PoolInfo {
        /// `hsa_amd_segment_t`.
        Segment = 0, "HSA_AMD_MEMORY_POOL_INFO_SEGMENT";
        /// `uint32_t`: `HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_*`.
        GlobalFlags = 1, "HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS";
        /// `size_t`.
        Size = 2, "HSA_AMD_MEMORY_POOL_INFO_SIZE";
        /// `bool`.
        RuntimeAllocAllowed = 5, "HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED";
        /// `size_t`.
        RuntimeAllocGranule = 6, "HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE";
        /// `size_t`.
        RuntimeAllocAlignment = 7, "HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT";
        /// `bool`.
        AccessibleByAll = 15, "HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL";
        /// `size_t`.
        AllocMaxSize = 16, "HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE";
    }
}

attribute_enum! {
    /// `hsa_region_info_t` and `hsa_amd_region_info_t`.
    RegionInfo {
        /// `hsa_region_segment_t`.
        Segment = 0, "HSA_REGION_INFO_SEGMENT";
        /// `uint32_t`: `HSA_REGION_GLOBAL_FLAG_*`.
        GlobalFlags = 1, "HSA_REGION_INFO_GLOBAL_FLAGS";
        /// `size_t`.
        Size = 2, "HSA_REGION_INFO_SIZE";
        /// `size_t`.
        AllocMaxSize = 4, "HSA_REGION_INFO_ALLOC_MAX_SIZE";
        /// `uint32_t` (ROCr does not answer it).
        AllocMaxPrivateWorkgroupSize = 8, "HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE";
        /// `bool`.
        RuntimeAllocAllowed = 5, "HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED";
        /// `size_t`.
        RuntimeAllocGranule = 6, "HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE";
        /// `size_t`.
        RuntimeAllocAlignment = 7, "HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT";
        /// `bool`.
        AmdHostAccessible = 0xA000, "HSA_AMD_REGION_INFO_HOST_ACCESSIBLE";
        /// `void*`.
        AmdBase = 0xA001, "HSA_AMD_REGION_INFO_BASE";
        /// `uint32_t`.
        AmdBusWidth = 0xA002, "HSA_AMD_REGION_INFO_BUS_WIDTH";
        /// `uint32_t`: MHz.
        AmdMaxClockFrequency = 0xA003, "HSA_AMD_REGION_INFO_MAX_CLOCK_FREQUENCY";
    }
}

attribute_enum! {
    /// `hsa_amd_agent_memory_pool_info_t`.
    AgentMemoryPoolInfo {
        /// `hsa_amd_memory_pool_access_t`.
        Access = 0, "HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS";
        /// `uint32_t`.
        NumLinkHops = 1, "HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS";
        /// `hsa_amd_memory_pool_link_info_t` (one per hop; at most one here).
        LinkInfo = 2, "HSA_AMD_AGENT_MEMORY_POOL_INFO_LINK_INFO";
    }
}

/// An agent attribute: `hsa_agent_info_t` or `hsa_amd_agent_info_t` (the
/// C API takes both through `hsa_agent_get_info`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AgentAttribute {
    /// A core attribute.
    Hsa(AgentInfo),
    /// An AMD attribute.
    Amd(AmdAgentInfo),
}

impl From<AgentInfo> for AgentAttribute {
    fn from(a: AgentInfo) -> Self {
        Self::Hsa(a)
    }
}

impl From<AmdAgentInfo> for AgentAttribute {
    fn from(a: AmdAgentInfo) -> Self {
        Self::Amd(a)
    }
}

impl AgentAttribute {
    /// The attribute of a raw `hsa_agent_get_info` value.
    pub fn from_raw(value: u32) -> Option<Self> {
        AgentInfo::from_raw(value)
            .map(Self::Hsa)
            .or_else(|| AmdAgentInfo::from_raw(value).map(Self::Amd))
    }

    /// The C enumerator's name.
    pub const fn c_name(self) -> &'static str {
        match self {
            Self::Hsa(a) => a.c_name(),
            Self::Amd(a) => a.c_name(),
        }
    }
}

/// `HSA_AMD_LINK_INFO_TYPE_HYPERTRANSPORT` (`hsa_amd_link_info_type_t`).
pub const LINK_INFO_TYPE_HYPERTRANSPORT: u32 = 0;
/// `HSA_AMD_LINK_INFO_TYPE_QPI`.
pub const LINK_INFO_TYPE_QPI: u32 = 1;
/// `HSA_AMD_LINK_INFO_TYPE_PCIE`.
pub const LINK_INFO_TYPE_PCIE: u32 = 2;
/// `HSA_AMD_LINK_INFO_TYPE_INFINBAND` (the header's spelling).
pub const LINK_INFO_TYPE_INFINIBAND: u32 = 3;
/// `HSA_AMD_LINK_INFO_TYPE_XGMI`.
pub const LINK_INFO_TYPE_XGMI: u32 = 4;

/// `hsa_amd_memory_pool_link_info_t` (`hsa_ext_amd.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C)]
pub struct LinkInfo {
    /// Minimum latency (ns).
    pub min_latency: u32,
    /// Maximum latency (ns).
    pub max_latency: u32,
    /// Minimum bandwidth (MB/s).
    pub min_bandwidth: u32,
    /// Maximum bandwidth (MB/s).
    pub max_bandwidth: u32,
    /// 32-bit atomics work over the link.
    pub atomic_support_32bit: bool,
    /// 64-bit atomics work over the link.
    pub atomic_support_64bit: bool,
    /// The link is cache coherent.
    pub coherent_support: bool,
    /// `hsa_amd_link_info_type_t`.
    pub link_type: u32,
    /// The NUMA distance (the link's weight).
    pub numa_distance: u32,
}

const _: () = {
    assert!(core::mem::size_of::<LinkInfo>() == 28);
    assert!(core::mem::align_of::<LinkInfo>() == 4);
    assert!(core::mem::offset_of!(LinkInfo, min_latency) == 0);
    assert!(core::mem::offset_of!(LinkInfo, max_latency) == 4);
    assert!(core::mem::offset_of!(LinkInfo, min_bandwidth) == 8);
    assert!(core::mem::offset_of!(LinkInfo, max_bandwidth) == 12);
    assert!(core::mem::offset_of!(LinkInfo, atomic_support_32bit) == 16);
    assert!(core::mem::offset_of!(LinkInfo, atomic_support_64bit) == 17);
    assert!(core::mem::offset_of!(LinkInfo, coherent_support) == 18);
    assert!(core::mem::offset_of!(LinkInfo, link_type) == 20);
    assert!(core::mem::offset_of!(LinkInfo, numa_distance) == 24);
};

impl LinkInfo {
    /// The struct's bytes as C lays them out (padding zero).
    pub fn to_bytes(&self) -> [u8; 28] {
        let mut b = [0u8; 28];
        b[0..4].copy_from_slice(&self.min_latency.to_ne_bytes());
        b[4..8].copy_from_slice(&self.max_latency.to_ne_bytes());
        b[8..12].copy_from_slice(&self.min_bandwidth.to_ne_bytes());
        b[12..16].copy_from_slice(&self.max_bandwidth.to_ne_bytes());
        b[16] = u8::from(self.atomic_support_32bit);
        b[17] = u8::from(self.atomic_support_64bit);
        b[18] = u8::from(self.coherent_support);
        b[20..24].copy_from_slice(&self.link_type.to_ne_bytes());
        b[24..28].copy_from_slice(&self.numa_distance.to_ne_bytes());
        b
    }
}

/// An attribute's value, typed as the C API returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InfoValue {
    /// `uint16_t`.
    U16(u16),
    /// `uint32_t`, or a 32-bit C enum.
    U32(u32),
    /// `uint64_t` or `size_t`.
    U64(u64),
    /// `bool` (one byte in C).
    Bool(bool),
    /// `char[size]`: `text`, then NULs up to `size` bytes (`size` is more
    /// than `text.len()`).
    Str {
        /// The text (ASCII).
        text: String,
        /// Bytes the C API writes.
        size: usize,
    },
    /// A pointer to a static NUL-terminated string (`const char*`).
    StaticStr(&'static CStr),
    /// `uint16_t[3]`.
    U16x3([u16; 3]),
    /// `hsa_dim3_t`.
    Dim3([u32; 3]),
    /// `uint32_t[4]`.
    U32x4([u32; 4]),
    /// `bool[N]`.
    Bools(Vec<bool>),
    /// A byte array (`uint8_t[128]` extension masks).
    Bytes(Vec<u8>),
    /// `hsa_isa_t` (`None`: handle 0).
    Isa(Option<Isa>),
    /// `hsa_amd_hdp_flush_t`: the two register addresses (0: none).
    HdpFlush {
        /// `HDP_MEM_FLUSH_CNTL`.
        mem_flush_cntl: u64,
        /// `HDP_REG_FLUSH_CNTL`.
        reg_flush_cntl: u64,
    },
    /// `hsa_amd_memory_pool_link_info_t`.
    LinkInfo(LinkInfo),
    /// `void*`.
    Pointer(u64),
}

impl InfoValue {
    /// The bytes the C API writes to the caller's buffer.
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            Self::U16(v) => v.to_ne_bytes().to_vec(),
            Self::U32(v) => v.to_ne_bytes().to_vec(),
            Self::U64(v) | Self::Pointer(v) => v.to_ne_bytes().to_vec(),
            Self::Bool(v) => vec![u8::from(*v)],
            Self::Str { text, size } => {
                let mut b = text.as_bytes().to_vec();
                b.resize((*size).max(text.len() + 1), 0);
                b
            }
            Self::StaticStr(s) => (s.as_ptr() as u64).to_ne_bytes().to_vec(),
            Self::U16x3(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            Self::Dim3(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            Self::U32x4(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            Self::Bools(v) => v.iter().map(|&b| u8::from(b)).collect(),
            Self::Bytes(v) => v.clone(),
            Self::Isa(i) => i.map_or(0, Isa::handle).to_ne_bytes().to_vec(),
            Self::HdpFlush {
                mem_flush_cntl,
                reg_flush_cntl,
            } => mem_flush_cntl
                .to_ne_bytes()
                .into_iter()
                .chain(reg_flush_cntl.to_ne_bytes())
                .collect(),
            Self::LinkInfo(l) => l.to_bytes().to_vec(),
        }
    }

    /// The value as an unsigned number, when it is one (`bool` is 0 or 1).
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Self::U16(v) => Some(v.into()),
            Self::U32(v) => Some(v.into()),
            Self::U64(v) | Self::Pointer(v) => Some(v),
            Self::Bool(v) => Some(v.into()),
            _ => None,
        }
    }

    /// The text of a string value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::Str { text, .. } => Some(text),
            Self::StaticStr(s) => s.to_str().ok(),
            _ => None,
        }
    }
}

/// `HSA_PUBLIC_NAME_SIZE`: the buffer of agent names.
pub const PUBLIC_NAME_SIZE: usize = 64;

/// `hsa_agent_feature_t` bits.
pub const AGENT_FEATURE_KERNEL_DISPATCH: u32 = 1;
/// `HSA_AGENT_FEATURE_AGENT_DISPATCH`.
pub const AGENT_FEATURE_AGENT_DISPATCH: u32 = 2;
/// `HSA_MACHINE_MODEL_SMALL`.
pub const MACHINE_MODEL_SMALL: u32 = 0;
/// `HSA_MACHINE_MODEL_LARGE`: ROCr on x86-64 Linux is built large.
pub const MACHINE_MODEL_LARGE: u32 = 1;
/// `HSA_PROFILE_BASE`.
pub const PROFILE_BASE: u32 = 0;
/// `HSA_PROFILE_FULL`.
pub const PROFILE_FULL: u32 = 1;
/// `HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR`.
pub const FLOAT_ROUNDING_MODE_NEAR: u32 = 2;
/// `HSA_QUEUE_TYPE_MULTI`.
pub const QUEUE_TYPE_MULTI: u32 = 0;
/// `HSA_ENDIANNESS_LITTLE`.
pub const ENDIANNESS_LITTLE: u32 = 0;
/// `HSA_ENDIANNESS_BIG`.
pub const ENDIANNESS_BIG: u32 = 1;
/// `HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED`.
pub const ACCESS_NEVER_ALLOWED: u32 = 0;
/// `HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT`.
pub const ACCESS_ALLOWED_BY_DEFAULT: u32 = 1;
/// `HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT`.
pub const ACCESS_DISALLOWED_BY_DEFAULT: u32 = 2;
/// `HSA_VERSION_MAJOR`/`HSA_VERSION_MINOR` of the HSA API implemented.
pub const HSA_VERSION: (u16, u16) = (1, 1);
/// `HSA_EXTENSION_*` values the runtime reports in the extension masks.
/// ROCr 5.2.3 sets `IMAGES`, `AMD_PROFILER` and (when the library loads)
/// `AMD_AQLPROFILE` (AMD's ROCr on the sim reports `IMAGES` and
/// `AMD_PROFILER`: tests/c/info_diff.c). `AMD_PROFILER` is the
/// `hsa_amd_profiling_*` API, which this runtime implements
/// ([`crate::profiling`]); there are no images and no aqlprofile here, so
/// those are not claimed.
pub const EXTENSIONS: &[u16] = &[0x200];

/// Marketing names by PCI device id and revision, as libdrm's `amdgpu.ids`
/// lists them (libhsakmt takes the name from libdrm), for the software GPU,
/// which has no PCI revision to look up: only the boards it and the
/// topology fixtures imitate; unknown devices get an empty name, as with a
/// libdrm that does not know them. On `/dev/kfd` the system's table is read
/// as libdrm reads it.
const MARKETING_NAMES: &[(u32, u32, &str)] = &[
    (0x738C, 0x01, "AMD Instinct MI100"),
    (0x740C, 0x01, "AMD Instinct MI250X / MI250"),
    (0x740F, 0x02, "AMD Instinct MI210"),
    (0x74A1, 0x00, "AMD Instinct MI300X"),
    (0x744C, 0xC8, "AMD Radeon RX 7900 XTX"),
];

/// The marketing name of a GPU with PCI device id `device_id` from the
/// embedded table. The revision is not in the topology: a device id with
/// one entry is enough.
pub fn marketing_name(device_id: u32) -> &'static str {
    let mut it = MARKETING_NAMES.iter().filter(|e| e.0 == device_id);
    match (it.next(), it.next()) {
        (Some(e), None) => e.2,
        _ => "",
    }
}

/// Where libdrm keeps the table it names AMD GPUs from.
pub const AMDGPU_IDS: &str = "/usr/share/libdrm/amdgpu.ids";

/// libdrm's `amdgpu_get_marketing_name` on a real GPU: the entry of
/// [`AMDGPU_IDS`] for the device id and the PCI revision (read from the
/// render node's sysfs device), `""` when the table has none. `None` when
/// the table or the revision cannot be read.
fn libdrm_marketing_name(device_id: u32, render_minor: u32) -> Option<String> {
    let rev = std::fs::read_to_string(format!(
        "/sys/class/drm/renderD{render_minor}/device/revision"
    ))
    .ok()?;
    let rev = u32::from_str_radix(rev.trim().trim_start_matches("0x"), 16).ok()?;
    let table = std::fs::read_to_string(AMDGPU_IDS).ok()?;
    Some(libdrm_lookup(&table, device_id, rev).unwrap_or_default())
}

/// The name `amdgpu.ids` text gives `device_id` and `rev` (lines
/// `DEVID,\tREV,\tNAME`, hexadecimal; `#` comments; a version line).
fn libdrm_lookup(table: &str, device_id: u32, rev: u32) -> Option<String> {
    table.lines().find_map(|l| {
        if l.starts_with('#') {
            return None;
        }
        let mut f = l.splitn(3, ',');
        let did = u32::from_str_radix(f.next()?.trim(), 16).ok()?;
        let r = u32::from_str_radix(f.next()?.trim(), 16).ok()?;
        let name = f.next()?.trim();
        (did == device_id && r == rev).then(|| name.to_string())
    })
}

/// An ISA handle (`hsa_isa_t`): the target ID encoded in the handle, so any
/// ISA ROCr's registry knows has a handle without a table, and a handle
/// coming back from C is checked by decoding it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Isa(TargetId);

/// The tag in the upper half of every ISA handle (`ISA\0`).
const ISA_TAG: u64 = 0x4953_4100 << 32;

fn setting_code(s: FeatureSetting) -> u64 {
    match s {
        FeatureSetting::Unsupported => 0,
        FeatureSetting::Any => 1,
        FeatureSetting::Off => 2,
        FeatureSetting::On => 3,
    }
}

fn setting_of(code: u64) -> FeatureSetting {
    match code & 3 {
        0 => FeatureSetting::Unsupported,
        1 => FeatureSetting::Any,
        2 => FeatureSetting::Off,
        _ => FeatureSetting::On,
    }
}

/// Whether ROCr's ISA registry would hold `t`: a real (not generic, not
/// R600) processor the KFD names, its features set only where it has them.
fn registrable(t: &TargetId) -> bool {
    let p = t.processor;
    let ok = |s: FeatureSetting, supported: bool| supported != (s == FeatureSetting::Unsupported);
    p.gfx_target_version != 0
        && p.is_generic_of.is_none()
        && !p.is_r600()
        && ok(t.sramecc, p.sramecc_supported)
        && ok(t.xnack, p.xnack_supported)
}

impl Isa {
    /// The ISA of a target ID, if ROCr's registry could hold it.
    pub fn new(target: TargetId) -> Option<Self> {
        registrable(&target).then_some(Self(target))
    }

    /// The `hsa_isa_t.handle` value.
    pub fn handle(self) -> u64 {
        ISA_TAG
            | u64::from(self.0.processor.mach) << 8
            | setting_code(self.0.sramecc) << 4
            | setting_code(self.0.xnack)
    }

    /// The ISA of a handle value (`None`: not an ISA handle).
    pub fn from_handle(handle: u64) -> Option<Self> {
        if handle & !0xffff_ffff != ISA_TAG || handle & 0xffff_00cc != 0 {
            return None;
        }
        let processor = Processor::from_mach((handle >> 8) as u8)?;
        Self::new(TargetId {
            processor,
            sramecc: setting_of(handle >> 4),
            xnack: setting_of(handle),
        })
    }

    /// The target ID.
    pub fn target(self) -> TargetId {
        self.0
    }

    /// `amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`.
    pub fn name(self) -> String {
        self.0.to_string()
    }

    /// The processor (`gfx90a`).
    pub fn processor_name(self) -> &'static str {
        self.0.processor.name
    }

    /// `Isa::GetInfo`.
    pub fn info(self, attr: IsaInfo) -> InfoValue {
        let major = self.0.processor.gfx_target_version / 10000;
        match attr {
            IsaInfo::NameLength => InfoValue::U32(self.name().len() as u32 + 1),
            IsaInfo::Name => {
                let text = self.name();
                let size = text.len() + 1;
                InfoValue::Str { text, size }
            }
            IsaInfo::CallConventionCount => InfoValue::U32(1),
            IsaInfo::CallConventionInfoWavefrontSize => InfoValue::U32(64),
            IsaInfo::CallConventionInfoWavefrontsPerComputeUnit => InfoValue::U32(40),
            IsaInfo::MachineModels => InfoValue::Bools(vec![false, true]),
            IsaInfo::Profiles => {
                // gfx700 and gfx801 (the APUs) also have the full profile.
                let full = matches!(self.0.processor.gfx_target_version, 70000 | 80001);
                InfoValue::Bools(vec![true, full])
            }
            IsaInfo::DefaultFloatRoundingModes | IsaInfo::BaseProfileDefaultFloatRoundingModes => {
                InfoValue::Bools(vec![false, false, true])
            }
            IsaInfo::FastF16Operation => InfoValue::Bool(major >= 8),
            IsaInfo::WorkgroupMaxDim => InfoValue::U16x3([1024; 3]),
            IsaInfo::WorkgroupMaxSize => InfoValue::U32(1024),
            IsaInfo::GridMaxDim => InfoValue::Dim3([u32::MAX; 3]),
            IsaInfo::GridMaxSize => InfoValue::U64(u64::MAX),
            IsaInfo::FbarrierMaxSize => InfoValue::U32(32),
        }
    }
}

fn invalid_attribute(what: &str, raw: u32) -> Error {
    Error::invalid_argument(format!("{raw:#x} is no {what} attribute"))
}

fn str64(text: impl Into<String>) -> InfoValue {
    let mut text: String = text.into();
    // ROCr copies at most 63 characters and the NUL.
    while text.len() > PUBLIC_NAME_SIZE - 1 {
        text.pop();
    }
    InfoValue::Str {
        text,
        size: PUBLIC_NAME_SIZE,
    }
}

/// The node's first memory bank of `heap` with a size (libhsakmt order).
fn bank(node: &Node, heap: HeapType) -> Option<&MemBank> {
    node.mem_banks
        .iter()
        .find(|b| b.heap_type == heap && b.size_in_bytes > 0)
}

/// `memory_bus_width_` and `memory_max_frequency_` of a GPU agent
/// (`GpuAgent::InitRegionList`): the last frame-buffer bank's, or on an APU
/// node the system bank's.
fn gpu_memory_bank(node: &Node) -> (u32, u32) {
    let apu = node.properties.cpu_cores_count > 0;
    let mut out = (0, 0);
    for b in node.mem_banks.iter().filter(|b| b.size_in_bytes > 0) {
        let fb = matches!(
            b.heap_type,
            HeapType::FrameBufferPublic | HeapType::FrameBufferPrivate
        );
        if fb || (apu && b.heap_type == HeapType::System) {
            out = (b.width, b.mem_clk_max);
        }
    }
    out
}

/// `HSA_AGENT_INFO_CACHE_SIZE`: the L1..L4 data caches' bytes. GPUs keep
/// the first cache of each level that is an HSA CU data cache; CPUs keep
/// the last CPU data cache of each level.
fn cache_sizes(node: &Node, gpu: bool) -> [u32; 4] {
    let mut out = [0u32; 4];
    for c in &node.caches {
        let kind = if gpu {
            CacheType::HSACU
        } else {
            CacheType::CPU
        };
        if !c.cache_type.contains(kind) || c.cache_type.contains(CacheType::INSTRUCTION) {
            continue;
        }
        let Some(slot) = (c.level as usize)
            .checked_sub(1)
            .and_then(|i| out.get_mut(i))
        else {
            continue;
        };
        if !gpu || *slot == 0 {
            *slot = c.size_kib.saturating_mul(1024);
        }
    }
    out
}

/// `HSA_AGENT_INFO_CACHE_SIZE` of a CPU node the KFD lists no caches for:
/// libhsakmt then reads the host's caches from
/// `/sys/devices/system/node/node<N>/cpu*/cache/index*` (or
/// `/sys/devices/system/cpu` when there is no NUMA directory for node 0),
/// each shared cache once, its size in bytes; ROCr keeps the data caches
/// (a unified cache counts as instruction too, so it is dropped) and
/// multiplies the size by 1024 as if it were KiB (rocminfo's
/// `L1: 49152(0xc000) KB` for a 48 KiB L1).
fn host_cpu_cache_sizes(node: u32) -> [u32; 4] {
    let mut out = [0u32; 4];
    let mut dir = std::path::PathBuf::from(format!("/sys/devices/system/node/node{node}"));
    if !dir.is_dir() {
        if node != 0 {
            return out;
        }
        dir = "/sys/devices/system/cpu".into();
    }
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return out;
    };
    let read = |p: std::path::PathBuf| std::fs::read_to_string(p).unwrap_or_default();
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(cpu) = name
            .to_str()
            .and_then(|n| n.strip_prefix("cpu"))
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(indices) = std::fs::read_dir(e.path().join("cache")) else {
            continue;
        };
        for index in indices.flatten() {
            let p = index.path();
            if !index.file_name().to_string_lossy().starts_with("index") {
                continue;
            }
            let shared = read(p.join("shared_cpu_list"));
            let first = shared
                .trim()
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse::<u32>().ok());
            if first != Some(cpu) || read(p.join("type")).trim() != "Data" {
                continue;
            }
            let Ok(level) = read(p.join("level")).trim().parse::<usize>() else {
                continue;
            };
            let size = read(p.join("size"));
            let size = size.trim();
            let digits = size.trim_end_matches(|c: char| !c.is_ascii_digit());
            let Ok(n) = digits.parse::<u32>() else {
                continue;
            };
            let bytes = match &size[digits.len()..] {
                "" => n,
                "K" => n << 10,
                "M" => n << 20,
                "G" => n << 30,
                _ => continue,
            };
            if let Some(slot) = level.checked_sub(1).and_then(|i| out.get_mut(i)) {
                *slot = bytes.wrapping_mul(1024);
            }
        }
    }
    out
}

/// `Runtime::GetLinkInfo(from, to)`: the hop count (0 or 1) and the link,
/// from the `from` node's io links (and p2p links) as ROCr registers them
/// (a later link to the same node replaces an earlier one).
fn link_between(core: &Core, from: u32, to: u32) -> (u32, LinkInfo) {
    if from == to {
        return (0, LinkInfo::default());
    }
    let Some(node) = core.driver.topology().node(from) else {
        return (0, LinkInfo::default());
    };
    let mut out = (0, LinkInfo::default());
    for l in node.io_links.iter().chain(&node.p2p_links) {
        if l.node_from != from || l.node_to != to {
            continue;
        }
        let (link_type, defaults) = match l.link_type {
            IoLinkType::HyperTransport => (LINK_INFO_TYPE_HYPERTRANSPORT, true),
            IoLinkType::Qpi11 => (LINK_INFO_TYPE_QPI, true),
            IoLinkType::PciExpress => (LINK_INFO_TYPE_PCIE, true),
            IoLinkType::Infiniband => (LINK_INFO_TYPE_INFINIBAND, false),
            IoLinkType::Xgmi => (LINK_INFO_TYPE_XGMI, true),
            _ => (0, false),
        };
        let mut info = LinkInfo {
            link_type,
            atomic_support_32bit: defaults,
            atomic_support_64bit: defaults,
            coherent_support: defaults,
            ..LinkInfo::default()
        };
        if l.flags.contains(IoLinkFlags::ENABLED) {
            if l.flags.contains(IoLinkFlags::NO_PEER_TO_PEER_DMA) {
                continue;
            }
            info.atomic_support_32bit = !l.flags.contains(IoLinkFlags::NO_ATOMICS_32_BIT);
            info.atomic_support_64bit = !l.flags.contains(IoLinkFlags::NO_ATOMICS_64_BIT);
            info.coherent_support = !l.flags.contains(IoLinkFlags::NON_COHERENT);
        }
        info.max_bandwidth = l.max_bandwidth;
        info.max_latency = l.max_latency;
        info.min_bandwidth = l.min_bandwidth;
        info.min_latency = l.min_latency;
        info.numa_distance = l.weight;
        out = (l.weight.min(1), info);
    }
    out
}

fn hive_id(a: &AgentRecord) -> u64 {
    if a.is_gpu() {
        a.node.properties.hive_id.unwrap_or(0)
    } else {
        0
    }
}

fn page_align_down(v: u64) -> u64 {
    v - v % GRANULE
}

impl Core {
    fn agent_value(&self, a: &AgentRecord, attr: AgentAttribute) -> Result<InfoValue> {
        let p = &a.node.properties;
        let gpu = a.is_gpu();
        let cap = p.capability.unwrap_or_default();
        let v = match attr {
            AgentAttribute::Hsa(h) => match h {
                AgentInfo::Name => str64(a.name.clone()),
                AgentInfo::VendorName => str64(if gpu { "AMD" } else { "CPU" }),
                AgentInfo::Feature => InfoValue::U32(if gpu {
                    AGENT_FEATURE_KERNEL_DISPATCH
                } else {
                    0
                }),
                AgentInfo::MachineModel => InfoValue::U32(MACHINE_MODEL_LARGE),
                AgentInfo::Profile => InfoValue::U32(if !gpu || p.cpu_cores_count > 0 {
                    PROFILE_FULL
                } else {
                    PROFILE_BASE
                }),
                AgentInfo::DefaultFloatRoundingMode
                | AgentInfo::BaseProfileDefaultFloatRoundingModes => {
                    InfoValue::U32(FLOAT_ROUNDING_MODE_NEAR)
                }
                AgentInfo::FastF16Operation => InfoValue::Bool(
                    gpu && a
                        .isa
                        .is_some_and(|t| t.processor.gfx_target_version >= 80000),
                ),
                AgentInfo::WavefrontSize => InfoValue::U32(if gpu { p.wave_front_size } else { 0 }),
                AgentInfo::WorkgroupMaxDim => {
                    InfoValue::U16x3(if gpu { [1024; 3] } else { [0; 3] })
                }
                AgentInfo::WorkgroupMaxSize => InfoValue::U32(if gpu { 1024 } else { 0 }),
                AgentInfo::GridMaxDim => InfoValue::Dim3(if gpu { [u32::MAX; 3] } else { [0; 3] }),
                AgentInfo::GridMaxSize => InfoValue::U32(if gpu { u32::MAX } else { 0 }),
                AgentInfo::FbarrierMaxSize => InfoValue::U32(if gpu { 32 } else { 0 }),
                AgentInfo::QueuesMax => {
                    InfoValue::U32(if gpu { self.flags.queues_max() } else { 0 })
                }
                AgentInfo::QueueMinSize => InfoValue::U32(if gpu { QUEUE_MIN_PACKETS } else { 0 }),
                AgentInfo::QueueMaxSize => InfoValue::U32(if gpu { QUEUE_MAX_PACKETS } else { 0 }),
                AgentInfo::QueueType => InfoValue::U32(QUEUE_TYPE_MULTI),
                AgentInfo::Node => InfoValue::U32(a.node.id),
                AgentInfo::Device => InfoValue::U32(a.device_type as u32),
                AgentInfo::CacheSize => InfoValue::U32x4(if !gpu && a.node.caches.is_empty() {
                    host_cpu_cache_sizes(a.node.id)
                } else {
                    cache_sizes(&a.node, gpu)
                }),
                AgentInfo::Isa => InfoValue::Isa(a.isa.and_then(Isa::new)),
                AgentInfo::Extensions => InfoValue::Bytes(extension_mask(gpu)),
                AgentInfo::VersionMajor => InfoValue::U16(1),
                AgentInfo::VersionMinor => InfoValue::U16(1),
            },
            AgentAttribute::Amd(m) => match m {
                AmdAgentInfo::ChipId => InfoValue::U32(p.device_id),
                // ROCr 5.2.3's GPU branch looks for the L2 line size but
                // then always stores 64 (its `break` leaves only the loop).
                AmdAgentInfo::CachelineSize => InfoValue::U32(64),
                AmdAgentInfo::ComputeUnitCount => InfoValue::U32(if gpu {
                    p.simd_count.checked_div(p.simd_per_cu).unwrap_or(0)
                } else {
                    p.cpu_cores_count
                }),
                AmdAgentInfo::MaxClockFrequency => InfoValue::U32(if gpu {
                    p.max_engine_clk_fcompute.unwrap_or(0)
                } else {
                    p.max_engine_clk_ccompute
                }),
                AmdAgentInfo::DriverNodeId => InfoValue::U32(a.node.id),
                AmdAgentInfo::MaxAddressWatchPoints => {
                    InfoValue::U32(1u32 << cap.watch_points_total_bits())
                }
                AmdAgentInfo::Bdfid => InfoValue::U32(p.location_id),
                AmdAgentInfo::MemoryWidth if gpu => InfoValue::U32(gpu_memory_bank(&a.node).0),
                AmdAgentInfo::MemoryMaxFrequency if gpu => {
                    InfoValue::U32(gpu_memory_bank(&a.node).1)
                }
                AmdAgentInfo::ProductName => str64(if !gpu {
                    a.name.clone()
                } else if self.driver.kind() == crate::driver::DriverKind::Kfd {
                    libdrm_marketing_name(p.device_id, p.drm_render_minor)
                        .unwrap_or_else(|| marketing_name(p.device_id).to_string())
                } else {
                    marketing_name(p.device_id).to_string()
                }),
                AmdAgentInfo::MaxWavesPerCu => {
                    InfoValue::U32(p.simd_per_cu.wrapping_mul(p.max_waves_per_simd))
                }
                AmdAgentInfo::NumSimdsPerCu => InfoValue::U32(p.simd_per_cu),
                AmdAgentInfo::NumShaderEngines => InfoValue::U32(p.array_count),
                AmdAgentInfo::NumShaderArraysPerSe => InfoValue::U32(p.simd_arrays_per_engine),
                // The MMIO remap page is not mapped by this runtime (yet):
                // no HDP flush registers.
                AmdAgentInfo::HdpFlush => InfoValue::HdpFlush {
                    mem_flush_cntl: 0,
                    reg_flush_cntl: 0,
                },
                AmdAgentInfo::Domain => InfoValue::U32(p.domain.unwrap_or(0)),
                AmdAgentInfo::CooperativeQueues if gpu => {
                    InfoValue::Bool(p.num_gws.unwrap_or(0) != 0)
                }
                AmdAgentInfo::Uuid => {
                    let text = match (gpu, p.unique_id.unwrap_or(0)) {
                        (false, _) => "CPU-XX".to_string(),
                        (true, 0) => "GPU-XX".to_string(),
                        (true, u) => format!("GPU-{u:016x}"),
                    };
                    let size = text.len() + 1;
                    InfoValue::Str { text, size }
                }
                AmdAgentInfo::AsicRevision => InfoValue::U32(cap.asic_revision()),
                AmdAgentInfo::SvmDirectHostAccess if gpu => InfoValue::Bool(
                    cap.contains(kfd::topology::Capability::FLAGS_COHERENTHOSTACCESS),
                ),
                AmdAgentInfo::CooperativeComputeUnitCount if gpu => {
                    let cus = p.simd_count.checked_div(p.simd_per_cu).unwrap_or(0);
                    let gfx90a = a
                        .isa
                        .is_some_and(|t| t.processor.gfx_target_version == 90010);
                    let coop = self.flags.coop_cu_count;
                    InfoValue::U32(if coop && gfx90a {
                        (cus & !7).saturating_sub(8)
                    } else {
                        cus
                    })
                }
                _ => {
                    return Err(Error::invalid_argument(format!(
                        "{} is not an attribute of a CPU agent",
                        m.c_name()
                    )));
                }
            },
        };
        Ok(v)
    }

    /// `max_sysmem_alloc_size_`: every fine-grained system region's size
    /// (page aligned down), summed. ROCr counts the kernarg regions too, so
    /// system memory counts twice.
    fn max_sysmem_alloc_size(&self) -> u64 {
        self.pools
            .iter()
            .filter(|p| matches!(p.kind, PoolKind::SystemFine | PoolKind::SystemKernarg))
            .map(|p| page_align_down(p.size))
            .sum()
    }

    fn pool_value(&self, index: usize, p: &PoolRecord, attr: RegionInfo) -> Result<InfoValue> {
        let alloc = p.runtime_alloc_allowed();
        let v = match attr {
            RegionInfo::Segment => InfoValue::U32(p.segment() as u32),
            RegionInfo::GlobalFlags => InfoValue::U32(p.global_flags()),
            RegionInfo::Size => InfoValue::U64(p.size),
            RegionInfo::AllocMaxSize => InfoValue::U64(if p.is_system() {
                self.max_sysmem_alloc_size()
            } else if p.is_vram() {
                page_align_down(p.size)
            } else {
                0
            }),
            RegionInfo::RuntimeAllocAllowed => InfoValue::Bool(alloc),
            RegionInfo::RuntimeAllocGranule | RegionInfo::RuntimeAllocAlignment => {
                InfoValue::U64(if alloc { GRANULE } else { 0 })
            }
            RegionInfo::AmdHostAccessible => InfoValue::Bool(p.is_system()),
            RegionInfo::AmdBase => {
                // dGPU VRAM and system memory report base 0; the group
                // segment its LDS aperture.
                let base = if p.kind == PoolKind::Group {
                    self.driver
                        .apertures()
                        .iter()
                        .find(|a| a.gpu_id == p.gpu_id)
                        .map_or(0, |a| a.lds_base)
                } else {
                    0
                };
                InfoValue::Pointer(base)
            }
            RegionInfo::AmdBusWidth | RegionInfo::AmdMaxClockFrequency => {
                let owner = self.agent(p.owner)?;
                let heap = if p.is_system() {
                    Some(HeapType::System)
                } else if p.is_vram() {
                    owner
                        .node
                        .mem_banks
                        .iter()
                        .find(|b| {
                            b.size_in_bytes > 0
                                && matches!(
                                    b.heap_type,
                                    HeapType::FrameBufferPublic | HeapType::FrameBufferPrivate
                                )
                        })
                        .map(|b| b.heap_type)
                } else {
                    None
                };
                let b = heap.and_then(|h| bank(&owner.node, h));
                InfoValue::U32(match (attr, b) {
                    (_, None) => 0,
                    (RegionInfo::AmdBusWidth, Some(b)) => b.width,
                    (_, Some(b)) => b.mem_clk_max,
                })
            }
            RegionInfo::AllocMaxPrivateWorkgroupSize => {
                return Err(Error::invalid_argument(format!(
                    "region {index}: {} is not answered",
                    attr.c_name()
                )));
            }
        };
        Ok(v)
    }

    fn access(
        &self,
        agent: Agent,
        a: &AgentRecord,
        p: &PoolRecord,
    ) -> Result<(u32, u32, LinkInfo)> {
        if p.owner == agent {
            return Ok((ACCESS_ALLOWED_BY_DEFAULT, 0, LinkInfo::default()));
        }
        let owner = self.agent(p.owner)?;
        let (hops, link) = link_between(self, a.node.id, owner.node.id);
        let access = if hops < 1 {
            ACCESS_NEVER_ALLOWED
        } else if p.is_system() {
            if a.is_gpu() {
                ACCESS_DISALLOWED_BY_DEFAULT
            } else {
                ACCESS_ALLOWED_BY_DEFAULT
            }
        } else if p.is_vram() {
            if !p.fine_grained() || self.flags.force_fine_grain_pcie || hive_id(a) == hive_id(owner)
            {
                ACCESS_DISALLOWED_BY_DEFAULT
            } else {
                ACCESS_NEVER_ALLOWED
            }
        } else {
            ACCESS_NEVER_ALLOWED
        };
        Ok((access, hops, link))
    }
}

/// The extension mask (`uint8_t[128]`) of [`EXTENSIONS`]; CPU agents
/// report none.
fn extension_mask(any: bool) -> Vec<u8> {
    let mut mask = vec![0u8; 128];
    if any {
        for &e in EXTENSIONS {
            if let Some(b) = mask.get_mut(usize::from(e / 8)) {
                *b |= 1 << (e % 8);
            }
        }
    }
    mask
}

/// The build identification `HSA_AMD_SYSTEM_INFO_BUILD_VERSION` points to.
const BUILD_VERSION: &CStr = match CStr::from_bytes_with_nul(
    concat!("rocr-rs ", env!("CARGO_PKG_VERSION"), "\0").as_bytes(),
) {
    Ok(s) => s,
    Err(_) => panic!("the build version has no interior NUL"),
};

impl Runtime {
    /// `hsa_system_get_info`.
    pub fn system_info(&self, attr: SystemInfo) -> Result<InfoValue> {
        let gpus = || self.core.agents.iter().filter(|a| a.is_gpu());
        Ok(match attr {
            SystemInfo::VersionMajor => InfoValue::U16(HSA_VERSION.0),
            SystemInfo::VersionMinor => InfoValue::U16(HSA_VERSION.1),
            SystemInfo::Timestamp => InfoValue::U64(self.timestamp()),
            SystemInfo::TimestampFrequency => InfoValue::U64(self.timestamp_frequency()),
            SystemInfo::SignalMaxWait => InfoValue::U64(u64::MAX),
            SystemInfo::Endianness => InfoValue::U32(if cfg!(target_endian = "little") {
                ENDIANNESS_LITTLE
            } else {
                ENDIANNESS_BIG
            }),
            SystemInfo::MachineModel => InfoValue::U32(MACHINE_MODEL_LARGE),
            SystemInfo::Extensions => InfoValue::Bytes(extension_mask(true)),
            SystemInfo::AmdBuildVersion => InfoValue::StaticStr(BUILD_VERSION),
            SystemInfo::AmdSvmSupported => InfoValue::Bool(gpus().all(|a| {
                a.node
                    .properties
                    .capability
                    .is_some_and(|c| c.contains(kfd::topology::Capability::SVMAPI_SUPPORTED))
            })),
            SystemInfo::AmdSvmAccessibleByDefault => InfoValue::Bool(
                gpus().all(|a| a.isa.is_some_and(|t| t.xnack == FeatureSetting::On)),
            ),
        })
    }

    /// `hsa_system_get_info` with the C enumerator value.
    pub fn system_info_raw(&self, attr: u32) -> Result<InfoValue> {
        let a = SystemInfo::from_raw(attr).ok_or_else(|| invalid_attribute("system", attr))?;
        self.system_info(a)
    }

    /// `hsa_agent_get_info` (core and AMD attributes).
    pub fn agent_info(&self, agent: Agent, attr: impl Into<AgentAttribute>) -> Result<InfoValue> {
        let a = self.core.agent(agent)?;
        self.core.agent_value(a, attr.into())
    }

    /// `hsa_agent_get_info` with the C enumerator value.
    pub fn agent_info_raw(&self, agent: Agent, attr: u32) -> Result<InfoValue> {
        let a = self.core.agent(agent)?;
        let attr =
            AgentAttribute::from_raw(attr).ok_or_else(|| invalid_attribute("agent", attr))?;
        self.core.agent_value(a, attr)
    }

    /// `hsa_agent_iterate_isas`: the agent's ISA (none for a CPU).
    pub fn agent_isas(&self, agent: Agent) -> Result<Vec<Isa>> {
        Ok(self
            .core
            .agent(agent)?
            .isa
            .and_then(Isa::new)
            .into_iter()
            .collect())
    }

    /// `hsa_isa_get_info_alt`.
    pub fn isa_info(&self, isa: Isa, attr: IsaInfo) -> Result<InfoValue> {
        Ok(isa.info(attr))
    }

    /// `hsa_isa_get_info_alt` with the raw handle and enumerator value.
    pub fn isa_info_raw(&self, isa: u64, attr: u32) -> Result<InfoValue> {
        let isa = Isa::from_handle(isa)
            .ok_or_else(|| Error::new(Status::InvalidIsa, format!("{isa:#x} is no ISA handle")))?;
        let a = IsaInfo::from_raw(attr).ok_or_else(|| invalid_attribute("ISA", attr))?;
        Ok(isa.info(a))
    }

    /// `hsa_isa_from_name`: `amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`
    /// (features left out mean `any`).
    pub fn isa_from_name(&self, name: &str) -> Result<Isa> {
        let bad = |why: &str| {
            Error::new(
                Status::InvalidIsaName,
                format!("`{name}` is no ISA name: {why}"),
            )
        };
        if !name.starts_with(loader_core::target::HSA_TRIPLE_PREFIX) {
            return Err(bad("it does not start with amdgcn-amd-amdhsa--"));
        }
        let t = TargetId::parse(name).map_err(|e| bad(&e.to_string()))?;
        Isa::new(t).ok_or_else(|| bad("not a processor the runtime knows"))
    }

    /// `hsa_amd_memory_pool_get_info`.
    pub fn pool_info(&self, pool: MemoryPool, attr: PoolInfo) -> Result<InfoValue> {
        let p = self.core.pool(pool)?;
        let region_attr = match attr {
            PoolInfo::Segment => RegionInfo::Segment,
            PoolInfo::GlobalFlags => RegionInfo::GlobalFlags,
            PoolInfo::Size => RegionInfo::Size,
            PoolInfo::RuntimeAllocAllowed => RegionInfo::RuntimeAllocAllowed,
            PoolInfo::RuntimeAllocGranule => RegionInfo::RuntimeAllocGranule,
            PoolInfo::RuntimeAllocAlignment => RegionInfo::RuntimeAllocAlignment,
            PoolInfo::AccessibleByAll => return Ok(InfoValue::Bool(p.is_system())),
            PoolInfo::AllocMaxSize => RegionInfo::AllocMaxSize,
        };
        self.core.pool_value(pool.index(), p, region_attr)
    }

    /// `hsa_amd_memory_pool_get_info` with the C enumerator value.
    pub fn pool_info_raw(&self, pool: MemoryPool, attr: u32) -> Result<InfoValue> {
        self.core.pool(pool)?;
        let a = PoolInfo::from_raw(attr).ok_or_else(|| invalid_attribute("memory pool", attr))?;
        self.pool_info(pool, a)
    }

    /// `hsa_amd_agent_memory_pool_get_info`: how `agent` may reach `pool`.
    pub fn agent_pool_info(
        &self,
        agent: Agent,
        pool: MemoryPool,
        attr: AgentMemoryPoolInfo,
    ) -> Result<InfoValue> {
        let a = self.core.agent(agent)?;
        let p = self.core.pool(pool)?;
        let (access, hops, link) = self.core.access(agent, a, p)?;
        let reachable = access != ACCESS_NEVER_ALLOWED;
        Ok(match attr {
            AgentMemoryPoolInfo::Access => InfoValue::U32(access),
            AgentMemoryPoolInfo::NumLinkHops => InfoValue::U32(if reachable { hops } else { 0 }),
            AgentMemoryPoolInfo::LinkInfo => InfoValue::LinkInfo(if reachable && hops > 0 {
                link
            } else {
                LinkInfo::default()
            }),
        })
    }

    /// `hsa_amd_agent_memory_pool_get_info` with the C enumerator value.
    pub fn agent_pool_info_raw(
        &self,
        agent: Agent,
        pool: MemoryPool,
        attr: u32,
    ) -> Result<InfoValue> {
        let a = AgentMemoryPoolInfo::from_raw(attr)
            .ok_or_else(|| invalid_attribute("agent memory pool", attr))?;
        self.agent_pool_info(agent, pool, a)
    }

    /// `hsa_region_get_info`: a region is the pool with the same handle
    /// (as in ROCr, where both are the same object).
    pub fn region_info(&self, region: MemoryPool, attr: RegionInfo) -> Result<InfoValue> {
        let p = self.core.pool(region).map_err(|_| {
            Error::new(
                Status::InvalidRegion,
                format!("no region {}", region.index()),
            )
        })?;
        self.core.pool_value(region.index(), p, attr)
    }

    /// `hsa_region_get_info` with the C enumerator value.
    pub fn region_info_raw(&self, region: MemoryPool, attr: u32) -> Result<InfoValue> {
        let a = RegionInfo::from_raw(attr).ok_or_else(|| invalid_attribute("region", attr))?;
        self.region_info(region, a)
    }

    /// `hsa_agent_iterate_regions`, in ROCr's order: a CPU agent sees every
    /// CPU's fine-grained system regions, then the coarse-grained ones; a
    /// GPU agent its own regions if it is the first GPU, then the same
    /// system regions.
    pub fn agent_regions(&self, agent: Agent) -> Result<Vec<MemoryPool>> {
        let a = self.core.agent(agent)?;
        let mut out = Vec::new();
        if a.device_type == DeviceType::Gpu {
            let first_gpu = self.core.agents.iter().position(AgentRecord::is_gpu);
            if first_gpu == Some(agent.index()) {
                out.extend(a.pools.iter().map(|&i| MemoryPool(i as u32)));
            }
        }
        let system = |fine: bool| {
            self.core
                .pools
                .iter()
                .enumerate()
                .filter(move |(_, p)| p.is_system() && p.fine_grained() == fine)
                .map(|(i, _)| MemoryPool(i as u32))
        };
        out.extend(system(true));
        out.extend(system(false));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_values_round_trip() {
        for a in AgentInfo::ALL {
            assert_eq!(AgentInfo::from_raw(a.raw()), Some(*a));
        }
        for a in AmdAgentInfo::ALL {
            assert_eq!(
                AgentAttribute::from_raw(a.raw()),
                Some(AgentAttribute::Amd(*a))
            );
        }
        assert_eq!(AgentAttribute::from_raw(0x9fff), None);
        assert_eq!(
            SystemInfo::from_raw(0x202),
            Some(SystemInfo::AmdSvmAccessibleByDefault)
        );
        assert_eq!(IsaInfo::from_raw(10), None);
    }

    #[test]
    fn isa_handles_round_trip_and_reject_forgeries() {
        for v in [90010, 90402, 80003, 110000] {
            for (x, s) in [(false, false), (true, true)] {
                let t = TargetId::for_agent(v, x, s).unwrap();
                let isa = Isa::new(t).unwrap();
                assert_eq!(Isa::from_handle(isa.handle()), Some(isa));
            }
        }
        let isa = Isa::new(TargetId::for_agent(90010, false, true).unwrap()).unwrap();
        assert_eq!(isa.name(), "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-");
        assert_eq!(Isa::from_handle(0), None);
        assert_eq!(Isa::from_handle(isa.handle() | 0x4), None);
        assert_eq!(Isa::from_handle(isa.handle() ^ (1 << 40)), None);
        // gfx803 has neither feature: a handle that claims xnack is forged.
        let gfx803 = Isa::new(TargetId::for_agent(80003, false, false).unwrap()).unwrap();
        assert_eq!(Isa::from_handle(gfx803.handle() | 3), None);
    }

    #[test]
    fn c_sizes() {
        assert_eq!(str64("gfx90a").to_bytes().len(), 64);
        assert_eq!(InfoValue::Dim3([1; 3]).to_bytes().len(), 12);
        assert_eq!(InfoValue::U16x3([1; 3]).to_bytes().len(), 6);
        assert_eq!(
            InfoValue::LinkInfo(LinkInfo::default()).to_bytes().len(),
            28
        );
        assert_eq!(
            InfoValue::HdpFlush {
                mem_flush_cntl: 0,
                reg_flush_cntl: 0
            }
            .to_bytes()
            .len(),
            16
        );
        assert_eq!(extension_mask(true).len(), 128);
        assert_eq!(marketing_name(0x740f), "AMD Instinct MI210");
        assert_eq!(marketing_name(0x1234), "");
        let ids = "# List of AMDGPU IDs\n\n1.0.0\n740C,\t01,\tAMD Instinct MI250X / MI250\n740F,\t02,\tAMD Instinct MI210\n";
        assert_eq!(
            libdrm_lookup(ids, 0x740f, 2).as_deref(),
            Some("AMD Instinct MI210")
        );
        assert_eq!(libdrm_lookup(ids, 0x740f, 1), None);
        // The embedded table agrees with the system's libdrm where both know a device.
        if let Ok(system) = std::fs::read_to_string(AMDGPU_IDS) {
            for &(did, rev, name) in MARKETING_NAMES {
                if let Some(n) = libdrm_lookup(&system, did, rev) {
                    assert_eq!(n, name, "{did:#x}");
                }
            }
        }
    }
}
