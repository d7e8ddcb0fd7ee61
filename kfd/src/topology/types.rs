//! The numbered vocabulary of the KFD topology: heap types, cache types, link
//! types, capability and flag bits.
//!
//! Every number comes from the kernel's uapi header `linux/kfd_sysfs.h`
//! (`HSA_CAP_*`, `HSA_MEM_HEAP_TYPE_*`, `HSA_MEM_FLAGS_*`, `HSA_CACHE_TYPE_*`,
//! `HSA_IOLINK_TYPE_*`, `HSA_IOLINK_FLAGS_*`); `kfd/tests/topology_uapi.rs`
//! compiles a C probe against the installed header and compares each one.

use core::fmt;

/// A bit set read from a topology file, with the names of its known bits.
macro_rules! flag_set {
    (
        $(#[$meta:meta])*
        $name:ident { $( $(#[$bmeta:meta])* $bit:ident = $value:expr, $cname:literal; )* }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name(pub u32);

        impl $name {
            $( $(#[$bmeta])* pub const $bit: u32 = $value; )*

            /// Every named single bit, with the name of its C macro.
            pub const NAMED_BITS: &'static [(&'static str, u32)] = &[$( ($cname, $value) ),*];

            /// Whether every bit of `mask` is set.
            pub const fn contains(self, mask: u32) -> bool {
                self.0 & mask == mask
            }

            /// The C macro names of the bits that are set, in bit order.
            pub fn names(self) -> impl Iterator<Item = &'static str> {
                Self::NAMED_BITS
                    .iter()
                    .filter(move |(_, bit)| bit.count_ones() == 1 && self.0 & bit != 0)
                    .map(|(name, _)| *name)
            }
        }
    };
}

flag_set! {
    /// `capability` of a GPU node (`HSA_CAP_*` in `linux/kfd_sysfs.h`).
    Capability {
        /// `HSA_CAP_HOT_PLUGGABLE`.
        HOT_PLUGGABLE = 0x0000_0001, "HOT_PLUGGABLE";
        /// `HSA_CAP_ATS_PRESENT`.
        ATS_PRESENT = 0x0000_0002, "ATS_PRESENT";
        /// `HSA_CAP_SHARED_WITH_GRAPHICS`.
        SHARED_WITH_GRAPHICS = 0x0000_0004, "SHARED_WITH_GRAPHICS";
        /// `HSA_CAP_QUEUE_SIZE_POW2`.
        QUEUE_SIZE_POW2 = 0x0000_0008, "QUEUE_SIZE_POW2";
        /// `HSA_CAP_QUEUE_SIZE_32BIT`.
        QUEUE_SIZE_32BIT = 0x0000_0010, "QUEUE_SIZE_32BIT";
        /// `HSA_CAP_QUEUE_IDLE_EVENT`.
        QUEUE_IDLE_EVENT = 0x0000_0020, "QUEUE_IDLE_EVENT";
        /// `HSA_CAP_VA_LIMIT`.
        VA_LIMIT = 0x0000_0040, "VA_LIMIT";
        /// `HSA_CAP_WATCH_POINTS_SUPPORTED`.
        WATCH_POINTS_SUPPORTED = 0x0000_0080, "WATCH_POINTS_SUPPORTED";
        /// `HSA_CAP_WATCH_POINTS_TOTALBITS_MASK` (a field, see
        /// [`Capability::watch_points_total_bits`]).
        WATCH_POINTS_TOTALBITS_MASK = 0x0000_0f00, "WATCH_POINTS_TOTALBITS_MASK";
        /// `HSA_CAP_DOORBELL_TYPE_TOTALBITS_MASK` (a field, see
        /// [`Capability::doorbell_type`]).
        DOORBELL_TYPE_TOTALBITS_MASK = 0x0000_3000, "DOORBELL_TYPE_TOTALBITS_MASK";
        /// `HSA_CAP_AQL_QUEUE_DOUBLE_MAP`.
        AQL_QUEUE_DOUBLE_MAP = 0x0000_4000, "AQL_QUEUE_DOUBLE_MAP";
        /// `HSA_CAP_RESERVED_WAS_SRAM_EDCSUPPORTED` (always 0: old user mode
        /// misread it).
        RESERVED_WAS_SRAM_EDCSUPPORTED = 0x0008_0000, "RESERVED_WAS_SRAM_EDCSUPPORTED";
        /// `HSA_CAP_MEM_EDCSUPPORTED`.
        MEM_EDCSUPPORTED = 0x0010_0000, "MEM_EDCSUPPORTED";
        /// `HSA_CAP_RASEVENTNOTIFY`.
        RASEVENTNOTIFY = 0x0020_0000, "RASEVENTNOTIFY";
        /// `HSA_CAP_ASIC_REVISION_MASK` (a field, see [`Capability::asic_revision`]).
        ASIC_REVISION_MASK = 0x03c0_0000, "ASIC_REVISION_MASK";
        /// `HSA_CAP_SRAM_EDCSUPPORTED`.
        SRAM_EDCSUPPORTED = 0x0400_0000, "SRAM_EDCSUPPORTED";
        /// `HSA_CAP_SVMAPI_SUPPORTED`.
        SVMAPI_SUPPORTED = 0x0800_0000, "SVMAPI_SUPPORTED";
        /// `HSA_CAP_FLAGS_COHERENTHOSTACCESS`.
        FLAGS_COHERENTHOSTACCESS = 0x1000_0000, "FLAGS_COHERENTHOSTACCESS";
        /// `HSA_CAP_RESERVED`: bits this header version leaves undefined
        /// (newer kernels give some of them a meaning; they are kept as read).
        RESERVED = 0xe00f_8000, "RESERVED";
    }
}

/// `HSA_CAP_WATCH_POINTS_TOTALBITS_SHIFT`.
pub const CAP_WATCH_POINTS_TOTALBITS_SHIFT: u32 = 8;
/// `HSA_CAP_DOORBELL_TYPE_TOTALBITS_SHIFT`.
pub const CAP_DOORBELL_TYPE_TOTALBITS_SHIFT: u32 = 12;
/// `HSA_CAP_ASIC_REVISION_SHIFT`.
pub const CAP_ASIC_REVISION_SHIFT: u32 = 22;

impl Capability {
    /// log2 of the number of address watch points (0 when not supported).
    pub const fn watch_points_total_bits(self) -> u32 {
        (self.0 & Self::WATCH_POINTS_TOTALBITS_MASK) >> CAP_WATCH_POINTS_TOTALBITS_SHIFT
    }

    /// The doorbell type: 0 pre-1.0, 1 HSA 1.0, 2 the 64-bit doorbells of
    /// gfx9 and later (`HSA_CAP_DOORBELL_TYPE_*`).
    pub const fn doorbell_type(self) -> u32 {
        (self.0 & Self::DOORBELL_TYPE_TOTALBITS_MASK) >> CAP_DOORBELL_TYPE_TOTALBITS_SHIFT
    }

    /// The ASIC revision the driver put in bits 22..26.
    pub const fn asic_revision(self) -> u32 {
        (self.0 & Self::ASIC_REVISION_MASK) >> CAP_ASIC_REVISION_SHIFT
    }
}

flag_set! {
    /// `flags` of a memory bank (`HSA_MEM_FLAGS_*`).
    MemFlags {
        /// `HSA_MEM_FLAGS_HOT_PLUGGABLE`.
        HOT_PLUGGABLE = 0x0000_0001, "HOT_PLUGGABLE";
        /// `HSA_MEM_FLAGS_NON_VOLATILE`.
        NON_VOLATILE = 0x0000_0002, "NON_VOLATILE";
        /// `HSA_MEM_FLAGS_RESERVED`.
        RESERVED = 0xffff_fffc, "RESERVED";
    }
}

flag_set! {
    /// `type` of a cache (`HSA_CACHE_TYPE_*`): a bit set, e.g. a GPU L1
    /// vector cache is `DATA | HSACU`.
    CacheType {
        /// `HSA_CACHE_TYPE_DATA`.
        DATA = 0x0000_0001, "DATA";
        /// `HSA_CACHE_TYPE_INSTRUCTION`.
        INSTRUCTION = 0x0000_0002, "INSTRUCTION";
        /// `HSA_CACHE_TYPE_CPU`.
        CPU = 0x0000_0004, "CPU";
        /// `HSA_CACHE_TYPE_HSACU`.
        HSACU = 0x0000_0008, "HSACU";
        /// `HSA_CACHE_TYPE_RESERVED`.
        RESERVED = 0xffff_fff0, "RESERVED";
    }
}

flag_set! {
    /// `flags` of an IO link (`HSA_IOLINK_FLAGS_*`).
    IoLinkFlags {
        /// `HSA_IOLINK_FLAGS_ENABLED`.
        ENABLED = 1 << 0, "ENABLED";
        /// `HSA_IOLINK_FLAGS_NON_COHERENT`.
        NON_COHERENT = 1 << 1, "NON_COHERENT";
        /// `HSA_IOLINK_FLAGS_NO_ATOMICS_32_BIT`.
        NO_ATOMICS_32_BIT = 1 << 2, "NO_ATOMICS_32_BIT";
        /// `HSA_IOLINK_FLAGS_NO_ATOMICS_64_BIT`.
        NO_ATOMICS_64_BIT = 1 << 3, "NO_ATOMICS_64_BIT";
        /// `HSA_IOLINK_FLAGS_NO_PEER_TO_PEER_DMA`.
        NO_PEER_TO_PEER_DMA = 1 << 4, "NO_PEER_TO_PEER_DMA";
        /// `HSA_IOLINK_FLAGS_RESERVED`.
        RESERVED = 0xffff_ffe0, "RESERVED";
    }
}

/// Defines a `#[repr(u32)]` enum decoded from a topology number with
/// `TryFrom<u32>`, and the C macro name of each value.
macro_rules! numbered_enum {
    (
        $(#[$meta:meta])*
        $name:ident { $( $(#[$vmeta:meta])* $variant:ident = $value:literal, $cname:literal; )* }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u32)]
        pub enum $name {
            $( $(#[$vmeta])* $variant = $value, )*
        }

        impl $name {
            /// Every value, in numeric order.
            pub const ALL: &'static [Self] = &[$( Self::$variant ),*];

            /// The C macro name of the value, without its prefix.
            pub const fn c_name(self) -> &'static str {
                match self { $( Self::$variant => $cname, )* }
            }
        }

        impl TryFrom<u32> for $name {
            type Error = u32;
            /// Decodes a raw number; an undefined one is returned as the error.
            fn try_from(raw: u32) -> Result<Self, u32> {
                match raw {
                    $( $value => Ok(Self::$variant), )*
                    other => Err(other),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.c_name())
            }
        }
    };
}

numbered_enum! {
    /// `heap_type` of a memory bank (`HSA_MEM_HEAP_TYPE_*`).
    HeapType {
        /// `HSA_MEM_HEAP_TYPE_SYSTEM`: system memory of a CPU (NUMA) node.
        System = 0, "SYSTEM";
        /// `HSA_MEM_HEAP_TYPE_FB_PUBLIC`: device memory the host can reach
        /// through the PCIe BAR (all of it with a large BAR).
        FrameBufferPublic = 1, "FB_PUBLIC";
        /// `HSA_MEM_HEAP_TYPE_FB_PRIVATE`: device memory beyond the BAR.
        FrameBufferPrivate = 2, "FB_PRIVATE";
        /// `HSA_MEM_HEAP_TYPE_GPU_GDS`.
        GpuGds = 3, "GPU_GDS";
        /// `HSA_MEM_HEAP_TYPE_GPU_LDS`.
        GpuLds = 4, "GPU_LDS";
        /// `HSA_MEM_HEAP_TYPE_GPU_SCRATCH`.
        GpuScratch = 5, "GPU_SCRATCH";
    }
}

numbered_enum! {
    /// `type` of an IO link (`HSA_IOLINK_TYPE_*`, the CRAT link types).
    IoLinkType {
        /// `HSA_IOLINK_TYPE_UNDEFINED`.
        Undefined = 0, "UNDEFINED";
        /// `HSA_IOLINK_TYPE_HYPERTRANSPORT`: the kernel's type for the link
        /// between two CPU nodes on AMD CPUs.
        HyperTransport = 1, "HYPERTRANSPORT";
        /// `HSA_IOLINK_TYPE_PCIEXPRESS`: a GPU's PCIe link to its CPU node.
        PciExpress = 2, "PCIEXPRESS";
        /// `HSA_IOLINK_TYPE_AMBA`.
        Amba = 3, "AMBA";
        /// `HSA_IOLINK_TYPE_MIPI`.
        Mipi = 4, "MIPI";
        /// `HSA_IOLINK_TYPE_QPI_1_1`: the kernel's type for the link between
        /// two CPU nodes on Intel CPUs (`kfd_fill_iolink_info_for_cpu`).
        Qpi11 = 5, "QPI_1_1";
        /// `HSA_IOLINK_TYPE_RESERVED1`.
        Reserved1 = 6, "RESERVED1";
        /// `HSA_IOLINK_TYPE_RESERVED2`.
        Reserved2 = 7, "RESERVED2";
        /// `HSA_IOLINK_TYPE_RAPID_IO`.
        RapidIo = 8, "RAPID_IO";
        /// `HSA_IOLINK_TYPE_INFINIBAND`.
        Infiniband = 9, "INFINIBAND";
        /// `HSA_IOLINK_TYPE_RESERVED3`.
        Reserved3 = 10, "RESERVED3";
        /// `HSA_IOLINK_TYPE_XGMI`: AMD Infinity Fabric between GPUs (or to
        /// the CPU on parts connected that way).
        Xgmi = 11, "XGMI";
        /// `HSA_IOLINK_TYPE_XGOP`.
        Xgop = 12, "XGOP";
        /// `HSA_IOLINK_TYPE_GZ`.
        Gz = 13, "GZ";
        /// `HSA_IOLINK_TYPE_ETHERNET_RDMA`.
        EthernetRdma = 14, "ETHERNET_RDMA";
        /// `HSA_IOLINK_TYPE_RDMA_OTHER`.
        RdmaOther = 15, "RDMA_OTHER";
        /// `HSA_IOLINK_TYPE_OTHER`.
        Other = 16, "OTHER";
    }
}

/// The GFX target of a GPU node, from its `gfx_target_version` property.
///
/// The kernel encodes it in decimal as `major * 10000 + minor * 100 +
/// stepping` (`gfx_target_version` in `kfd_device.c`); the LLVM target name
/// spells minor and stepping as one hex digit each: 90010 is `gfx90a`,
/// 110000 is `gfx1100`, 90402 is `gfx942`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GfxTargetVersion(pub u32);

impl GfxTargetVersion {
    /// The major version (9 for gfx90a).
    pub const fn major(self) -> u32 {
        self.0 / 10000
    }

    /// The minor version (0 for gfx90a).
    pub const fn minor(self) -> u32 {
        (self.0 / 100) % 100
    }

    /// The stepping (10 for gfx90a).
    pub const fn stepping(self) -> u32 {
        self.0 % 100
    }
}

impl fmt::Display for GfxTargetVersion {
    /// `gfx` + major + minor and stepping in hex, as LLVM names targets.
    /// Minor or stepping above 15 cannot be one hex digit; they are then
    /// written in hex in full, so no value is lost.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "gfx{}{:x}{:x}",
            self.major(),
            self.minor(),
            self.stepping()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gfx_names() {
        for (v, name) in [
            (90010, "gfx90a"),
            (110000, "gfx1100"),
            (90402, "gfx942"),
            (100300, "gfx1030"),
            (110501, "gfx1151"),
            (90000, "gfx900"),
        ] {
            assert_eq!(GfxTargetVersion(v).to_string(), name);
        }
    }

    #[test]
    fn capability_fields() {
        // Watch points 2^2, doorbell type 2, SVM API.
        let c = Capability(0x0000_2280 | 0x0800_0000);
        assert!(c.contains(Capability::WATCH_POINTS_SUPPORTED));
        assert_eq!(c.watch_points_total_bits(), 2);
        assert_eq!(c.doorbell_type(), 2);
    }

    #[test]
    fn enums_round_trip() {
        for t in IoLinkType::ALL {
            assert_eq!(IoLinkType::try_from(*t as u32), Ok(*t));
        }
        assert_eq!(HeapType::try_from(6), Err(6));
    }
}
