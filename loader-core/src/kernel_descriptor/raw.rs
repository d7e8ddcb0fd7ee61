//! Raw layout of the AMDHSA kernel descriptor: byte offsets of its fields and
//! the bit fields of `compute_pgm_rsrc1/2/3`, `kernel_code_properties` and
//! `kernarg_preload`.
//!
//! Names, shifts and widths are those of LLVM's
//! `llvm/Support/AMDHSAKernelDescriptor.h` (`llvm::amdhsa`, LLVM 19) and of the
//! "Kernel Descriptor" tables of AMDGPUUsage; the `kd_header` test compiles a
//! probe against the installed LLVM 19 header and compares every value here.

/// Size of a kernel descriptor in bytes (`sizeof(kernel_descriptor_t)`).
pub const KERNEL_DESCRIPTOR_SIZE: usize = 64;
/// Required alignment of a kernel descriptor in bytes (the CP microcode
/// fetches it as one 64-byte line).
pub const KERNEL_DESCRIPTOR_ALIGN: u64 = 64;

/// `GROUP_SEGMENT_FIXED_SIZE_OFFSET`: `uint32_t group_segment_fixed_size`.
pub const GROUP_SEGMENT_FIXED_SIZE_OFFSET: usize = 0;
/// `PRIVATE_SEGMENT_FIXED_SIZE_OFFSET`: `uint32_t private_segment_fixed_size`.
pub const PRIVATE_SEGMENT_FIXED_SIZE_OFFSET: usize = 4;
/// `KERNARG_SIZE_OFFSET`: `uint32_t kernarg_size`.
pub const KERNARG_SIZE_OFFSET: usize = 8;
/// `RESERVED0_OFFSET`: `uint8_t reserved0[4]`, must be zero.
pub const RESERVED0_OFFSET: usize = 12;
/// Size of `reserved0`.
pub const RESERVED0_SIZE: usize = 4;
/// `KERNEL_CODE_ENTRY_BYTE_OFFSET_OFFSET`: `int64_t kernel_code_entry_byte_offset`.
pub const KERNEL_CODE_ENTRY_BYTE_OFFSET_OFFSET: usize = 16;
/// `RESERVED1_OFFSET`: `uint8_t reserved1[20]`, must be zero.
pub const RESERVED1_OFFSET: usize = 24;
/// Size of `reserved1`.
pub const RESERVED1_SIZE: usize = 20;
/// `COMPUTE_PGM_RSRC3_OFFSET`: `uint32_t compute_pgm_rsrc3` (GFX90A+, GFX10+).
pub const COMPUTE_PGM_RSRC3_OFFSET: usize = 44;
/// `COMPUTE_PGM_RSRC1_OFFSET`: `uint32_t compute_pgm_rsrc1`.
pub const COMPUTE_PGM_RSRC1_OFFSET: usize = 48;
/// `COMPUTE_PGM_RSRC2_OFFSET`: `uint32_t compute_pgm_rsrc2`.
pub const COMPUTE_PGM_RSRC2_OFFSET: usize = 52;
/// `KERNEL_CODE_PROPERTIES_OFFSET`: `uint16_t kernel_code_properties`.
pub const KERNEL_CODE_PROPERTIES_OFFSET: usize = 56;
/// `KERNARG_PRELOAD_OFFSET`: `uint16_t kernarg_preload`.
pub const KERNARG_PRELOAD_OFFSET: usize = 58;
/// `RESERVED3_OFFSET`: `uint8_t reserved3[4]`, must be zero.
pub const RESERVED3_OFFSET: usize = 60;
/// Size of `reserved3`.
pub const RESERVED3_SIZE: usize = 4;

/// A bit field of one of the descriptor's registers: `(value >> shift) & ((1 << width) - 1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BitField {
    /// The LLVM enumerator name without the `_SHIFT`/`_WIDTH` suffix.
    pub name: &'static str,
    /// Position of the lowest bit.
    pub shift: u32,
    /// Number of bits.
    pub width: u32,
}

impl BitField {
    /// The mask of the field in place (`NAME` in LLVM's header).
    pub const fn mask(self) -> u32 {
        (((1u64 << self.width) - 1) << self.shift) as u32
    }

    /// Extracts the field from a register value.
    pub const fn get(self, value: u32) -> u32 {
        (value & self.mask()) >> self.shift
    }

    /// Whether any bit of the field is set in `value`.
    pub const fn any(self, value: u32) -> bool {
        value & self.mask() != 0
    }
}

macro_rules! bit_fields {
    ($( $(#[$doc:meta])* $name:ident = ($shift:expr, $width:expr); )*) => {
        $(
            $(#[$doc])*
            pub const $name: BitField = BitField { name: stringify!($name), shift: $shift, width: $width };
        )*
        /// Every bit field defined in this module, for the header parity test.
        pub const ALL_BIT_FIELDS: &[BitField] = &[$($name),*];
    };
}

bit_fields! {
    // compute_pgm_rsrc1 (AMDGPUUsage "compute_pgm_rsrc1 for GFX6-GFX12").
    /// Granulated number of VGPRs minus one (granule depends on family and wave size).
    COMPUTE_PGM_RSRC1_GRANULATED_WORKITEM_VGPR_COUNT = (0, 6);
    /// Granulated number of SGPRs minus one (granule 8); zero on GFX10+.
    COMPUTE_PGM_RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT = (6, 4);
    /// Wavefront priority; must be 0 (the CP sets it).
    COMPUTE_PGM_RSRC1_PRIORITY = (10, 2);
    /// Single-precision round mode.
    COMPUTE_PGM_RSRC1_FLOAT_ROUND_MODE_32 = (12, 2);
    /// Half/double-precision round mode.
    COMPUTE_PGM_RSRC1_FLOAT_ROUND_MODE_16_64 = (14, 2);
    /// Single-precision denormal mode.
    COMPUTE_PGM_RSRC1_FLOAT_DENORM_MODE_32 = (16, 2);
    /// Half/double-precision denormal mode.
    COMPUTE_PGM_RSRC1_FLOAT_DENORM_MODE_16_64 = (18, 2);
    /// Privileged mode; must be 0 (the CP sets it).
    COMPUTE_PGM_RSRC1_PRIV = (20, 1);
    /// DX10 clamp mode (GFX6-GFX11).
    COMPUTE_PGM_RSRC1_GFX6_GFX11_ENABLE_DX10_CLAMP = (21, 1);
    /// Workgroup round-robin scheduling (GFX12+).
    COMPUTE_PGM_RSRC1_GFX12_PLUS_ENABLE_WG_RR_EN = (21, 1);
    /// Debug mode; must be 0 (the CP sets it).
    COMPUTE_PGM_RSRC1_DEBUG_MODE = (22, 1);
    /// IEEE mode (GFX6-GFX11).
    COMPUTE_PGM_RSRC1_GFX6_GFX11_ENABLE_IEEE_MODE = (23, 1);
    /// Disable performance counters (GFX12+); must be 0.
    COMPUTE_PGM_RSRC1_GFX12_PLUS_DISABLE_PERF = (23, 1);
    /// Bulky; must be 0.
    COMPUTE_PGM_RSRC1_BULKY = (24, 1);
    /// Debugger user bit; must be 0.
    COMPUTE_PGM_RSRC1_CDBG_USER = (25, 1);
    /// Reserved on GFX6-GFX8.
    COMPUTE_PGM_RSRC1_GFX6_GFX8_RESERVED0 = (26, 1);
    /// FP16 overflow clamping (GFX9+).
    COMPUTE_PGM_RSRC1_GFX9_PLUS_FP16_OVFL = (26, 1);
    /// Reserved on every family.
    COMPUTE_PGM_RSRC1_RESERVED1 = (27, 2);
    /// Reserved on GFX6-GFX9.
    COMPUTE_PGM_RSRC1_GFX6_GFX9_RESERVED2 = (29, 3);
    /// Workgroup-processor mode (GFX10+).
    COMPUTE_PGM_RSRC1_GFX10_PLUS_WGP_MODE = (29, 1);
    /// Memory-ordered returns (GFX10+).
    COMPUTE_PGM_RSRC1_GFX10_PLUS_MEM_ORDERED = (30, 1);
    /// Forward-progress guarantee (GFX10+).
    COMPUTE_PGM_RSRC1_GFX10_PLUS_FWD_PROGRESS = (31, 1);

    // compute_pgm_rsrc2 (AMDGPUUsage "compute_pgm_rsrc2 for GFX6-GFX12").
    /// Private segment wavefront offset SGPR / private segment enable.
    COMPUTE_PGM_RSRC2_ENABLE_PRIVATE_SEGMENT = (0, 1);
    /// Number of user SGPRs the CP loads.
    COMPUTE_PGM_RSRC2_USER_SGPR_COUNT = (1, 5);
    /// Trap handler enable (GFX6-GFX11); must be 0 (the CP sets it).
    COMPUTE_PGM_RSRC2_GFX6_GFX11_ENABLE_TRAP_HANDLER = (6, 1);
    /// Reserved on GFX12 (LLVM 19).
    COMPUTE_PGM_RSRC2_GFX12_PLUS_RESERVED1 = (6, 1);
    /// Work-group id X in a system SGPR.
    COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_X = (7, 1);
    /// Work-group id Y in a system SGPR.
    COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Y = (8, 1);
    /// Work-group id Z in a system SGPR.
    COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Z = (9, 1);
    /// Work-group info in a system SGPR.
    COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_INFO = (10, 1);
    /// Which work-item ids are loaded into VGPRs (0 = X, 1 = X,Y, 2 = X,Y,Z).
    COMPUTE_PGM_RSRC2_ENABLE_VGPR_WORKITEM_ID = (11, 2);
    /// Address-watch exceptions; must be 0 (the CP sets it).
    COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_ADDRESS_WATCH = (13, 1);
    /// Memory-violation exceptions; must be 0 (the CP sets it).
    COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_MEMORY = (14, 1);
    /// Granulated LDS size; must be 0 (the CP computes it from the dispatch).
    COMPUTE_PGM_RSRC2_GRANULATED_LDS_SIZE = (15, 9);
    /// IEEE 754 invalid-operation exception.
    COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION = (24, 1);
    /// Denormal-source exception.
    COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_FP_DENORMAL_SOURCE = (25, 1);
    /// IEEE 754 division-by-zero exception.
    COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO = (26, 1);
    /// IEEE 754 overflow exception.
    COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW = (27, 1);
    /// IEEE 754 underflow exception.
    COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW = (28, 1);
    /// IEEE 754 inexact exception.
    COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_IEEE_754_FP_INEXACT = (29, 1);
    /// Integer division-by-zero exception.
    COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO = (30, 1);
    /// Reserved.
    COMPUTE_PGM_RSRC2_RESERVED0 = (31, 1);

    // compute_pgm_rsrc3 for GFX90A / GFX94x.
    /// AccVGPR offset in units of 4 VGPRs, minus one.
    COMPUTE_PGM_RSRC3_GFX90A_ACCUM_OFFSET = (0, 6);
    /// Reserved on GFX90A.
    COMPUTE_PGM_RSRC3_GFX90A_RESERVED0 = (6, 10);
    /// Thread-group split mode.
    COMPUTE_PGM_RSRC3_GFX90A_TG_SPLIT = (16, 1);
    /// Reserved on GFX90A.
    COMPUTE_PGM_RSRC3_GFX90A_RESERVED1 = (17, 15);

    // compute_pgm_rsrc3 for GFX10-GFX12.
    /// Shared VGPRs in wave64 mode, in blocks of 8 (GFX10-GFX11).
    COMPUTE_PGM_RSRC3_GFX10_GFX11_SHARED_VGPR_COUNT = (0, 4);
    /// Reserved on GFX12.
    COMPUTE_PGM_RSRC3_GFX12_PLUS_RESERVED0 = (0, 4);
    /// Reserved on GFX10.
    COMPUTE_PGM_RSRC3_GFX10_RESERVED1 = (4, 8);
    /// Instruction prefetch size in cache lines (GFX11).
    COMPUTE_PGM_RSRC3_GFX11_INST_PREF_SIZE = (4, 6);
    /// Trap on wave start (GFX11); must be 0 (the CP sets it).
    COMPUTE_PGM_RSRC3_GFX11_TRAP_ON_START = (10, 1);
    /// Trap on wave end (GFX11); must be 0 (the CP sets it).
    COMPUTE_PGM_RSRC3_GFX11_TRAP_ON_END = (11, 1);
    /// Instruction prefetch size in cache lines (GFX12).
    COMPUTE_PGM_RSRC3_GFX12_PLUS_INST_PREF_SIZE = (4, 8);
    /// Reserved on GFX10+.
    COMPUTE_PGM_RSRC3_GFX10_PLUS_RESERVED2 = (12, 1);
    /// Reserved on GFX10-GFX11.
    COMPUTE_PGM_RSRC3_GFX10_GFX11_RESERVED3 = (13, 1);
    /// Global-launch-group enable (GFX12).
    COMPUTE_PGM_RSRC3_GFX12_PLUS_GLG_EN = (13, 1);
    /// Reserved on GFX10+.
    COMPUTE_PGM_RSRC3_GFX10_PLUS_RESERVED4 = (14, 17);
    /// Reserved on GFX10.
    COMPUTE_PGM_RSRC3_GFX10_RESERVED5 = (31, 1);
    /// The kernel uses image instructions (GFX11+).
    COMPUTE_PGM_RSRC3_GFX11_PLUS_IMAGE_OP = (31, 1);

    // kernel_code_properties (AMDGPUUsage "Kernel Descriptor").
    /// User SGPRs 0-3 hold the private segment buffer descriptor.
    KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER = (0, 1);
    /// User SGPR pair holds the dispatch packet address.
    KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_PTR = (1, 1);
    /// User SGPR pair holds the queue address.
    KERNEL_CODE_PROPERTY_ENABLE_SGPR_QUEUE_PTR = (2, 1);
    /// User SGPR pair holds the kernarg segment address.
    KERNEL_CODE_PROPERTY_ENABLE_SGPR_KERNARG_SEGMENT_PTR = (3, 1);
    /// User SGPR pair holds the dispatch id.
    KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_ID = (4, 1);
    /// User SGPR pair holds the flat scratch initialisation.
    KERNEL_CODE_PROPERTY_ENABLE_SGPR_FLAT_SCRATCH_INIT = (5, 1);
    /// User SGPR holds the private segment size.
    KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_SIZE = (6, 1);
    /// Reserved.
    KERNEL_CODE_PROPERTY_RESERVED0 = (7, 3);
    /// Wave32 execution (GFX10+).
    KERNEL_CODE_PROPERTY_ENABLE_WAVEFRONT_SIZE32 = (10, 1);
    /// The kernel uses a dynamically sized stack.
    KERNEL_CODE_PROPERTY_USES_DYNAMIC_STACK = (11, 1);
    /// Reserved.
    KERNEL_CODE_PROPERTY_RESERVED1 = (12, 4);

    // kernarg_preload.
    /// Number of kernarg dwords preloaded into user SGPRs.
    KERNARG_PRELOAD_SPEC_LENGTH = (0, 7);
    /// Offset in dwords of the first preloaded kernarg.
    KERNARG_PRELOAD_SPEC_OFFSET = (7, 9);
}
