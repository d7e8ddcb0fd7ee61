//! Kernel argument (kernarg) segments: the layout a kernel's metadata
//! declares, and the bytes of one dispatch.
//!
//! [`KernargLayout::from_metadata`] reads the `.args` of a code object v3+
//! kernel (AMDGPUUsage "Code Object V3 Kernel Argument Metadata Map", with
//! the hidden kinds of the V4 and V5 sections) into explicit arguments, the
//! ones the caller supplies, and hidden arguments, the ones the runtime
//! fills in; it checks that every argument lies inside the segment, has the
//! size its kind needs, is aligned and overlaps no other.
//!
//! [`build`] lays out one dispatch: the explicit values ([`ArgValue`]), the
//! hidden values computed from the dispatch [`Geometry`] or taken from
//! [`HiddenValues`], and the group segment (LDS) the `__local` pointer
//! arguments need.
//!
//! What each hidden argument holds (AMDGPUUsage, "Code Object V5 Metadata",
//! table "AMDHSA Code Object V5 Kernel Argument Metadata Map Additions and
//! Changes"; the V3 table for the older kinds):
//!
//! | kind | bytes | value |
//! |---|---|---|
//! | `hidden_global_offset_{x,y,z}` | 8 | OpenCL global offset |
//! | `hidden_none` | any | unused: left zero |
//! | `hidden_printf_buffer`, `hidden_hostcall_buffer`, `hidden_default_queue`, `hidden_completion_action`, `hidden_multigrid_sync_arg`, `hidden_heap_v1`, `hidden_queue_ptr` | 8 | a pointer, 0 when there is none |
//! | `hidden_block_count_{x,y,z}` | 4 | number of *full* work-groups: `grid / workgroup`, rounded down |
//! | `hidden_group_size_{x,y,z}` | 2 | work-group size (as in the AQL packet) |
//! | `hidden_remainder_{x,y,z}` | 2 | size of the partial last work-group, `grid % workgroup` (0 if none) |
//! | `hidden_grid_dims` | 2 | dimensions, 1 to 3 (as in the AQL packet) |
//! | `hidden_dynamic_lds_size` | 4 | group bytes beyond the static group segment |
//! | `hidden_private_base`, `hidden_shared_base` | 4 | high 32 bits of the flat aperture base |
//!
//! The block count is the full work-groups only: AMDGPUUsage says of
//! `hidden_block_count_x` "This count only includes the non-partial
//! work-group count", and the ROCm device library reads it so: ROCm-Device-
//! Libs 5.2.3 `ockl.bc` (`llvm-dis-19` of Debian's
//! `/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ockl.bc`), at ABI version 500,
//! computes `__ockl_get_num_groups(d)` as `block_count[d] + (remainder[d] != 0)`
//! and `__ockl_get_local_size(d)` as `group_id < block_count[d] ? group_size[d]
//! : remainder[d]`.
//!
//! `hidden_dynamic_lds_size` counts every group byte the dispatch adds to
//! the kernel's static group segment, the `__local` pointer arguments'
//! regions included: that is what AMD's OpenCL runtime (CLR) writes, the
//! dispatch's LDS end minus the static LDS size.

use loader_core::metadata::{AddressSpace, Kernel, ValueKind};
use std::fmt;

/// The kind of an explicit (caller-supplied) argument: `.value_kind` of the
/// non-hidden entries of `.args`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArgKind {
    /// `by_value`: the bytes are copied into the segment.
    ByValue,
    /// `global_buffer`: a 64-bit global (or constant, generic) pointer.
    GlobalBuffer,
    /// `dynamic_shared_pointer`: an OpenCL `__local` pointer, a 32-bit group
    /// segment offset the runtime allocates.
    DynamicSharedPointer,
    /// `image`: a pointer to an image descriptor (T#). Not buildable here.
    Image,
    /// `sampler`: a pointer to a sampler descriptor (S#). Not buildable here.
    Sampler,
    /// `pipe`: a pointer to an OpenCL pipe. Not buildable here.
    Pipe,
    /// `queue`: a pointer to an OpenCL device-enqueue queue. Not buildable
    /// here.
    Queue,
}

impl ArgKind {
    /// The `.value_kind` string.
    pub const fn as_str(self) -> &'static str {
        self.value_kind().as_str()
    }

    /// The metadata [`ValueKind`].
    pub const fn value_kind(self) -> ValueKind {
        match self {
            Self::ByValue => ValueKind::ByValue,
            Self::GlobalBuffer => ValueKind::GlobalBuffer,
            Self::DynamicSharedPointer => ValueKind::DynamicSharedPointer,
            Self::Image => ValueKind::Image,
            Self::Sampler => ValueKind::Sampler,
            Self::Pipe => ValueKind::Pipe,
            Self::Queue => ValueKind::Queue,
        }
    }

    /// The size an argument of this kind must have, `None` for `by_value`.
    /// Pointers are 64-bit on amdhsa; a group segment pointer is 32-bit
    /// (AMDGPUUsage "Memory Spaces": Local has a 32-bit address).
    pub const fn required_size(self) -> Option<u32> {
        match self {
            Self::ByValue => None,
            Self::DynamicSharedPointer => Some(4),
            Self::GlobalBuffer | Self::Image | Self::Sampler | Self::Pipe | Self::Queue => Some(8),
        }
    }
}

impl fmt::Display for ArgKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One explicit argument of a kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExplicitArg {
    /// Position among the explicit arguments (what the caller counts).
    pub index: u32,
    /// Position in the metadata's `.args` (hidden ones included).
    pub metadata_index: u32,
    /// `.name`, if the metadata has it.
    pub name: Option<String>,
    /// `.type_name`, if the metadata has it.
    pub type_name: Option<String>,
    /// `.offset` in the kernarg segment.
    pub offset: u32,
    /// `.size` in bytes.
    pub size: u32,
    /// `.value_kind`.
    pub kind: ArgKind,
    /// `.pointee_align` (dynamic shared pointers).
    pub pointee_align: Option<u32>,
    /// `.address_space` (pointers).
    pub address_space: Option<AddressSpace>,
}

impl ExplicitArg {
    /// `kernel argument 2 (n)`: the argument as messages name it.
    pub fn label(&self) -> String {
        match &self.name {
            Some(n) => format!("kernel argument {} ({n})", self.index),
            None => format!("kernel argument {}", self.index),
        }
    }

    /// `kernel argument 2 (n) is by_value u32`: the argument and what it
    /// takes, the start of every mismatch message.
    pub fn describe(&self) -> String {
        match &self.type_name {
            Some(t) => format!("{} is {} {t}", self.label(), self.kind),
            None => format!("{} is {}", self.label(), self.kind),
        }
    }
}

/// One hidden argument: filled in by [`build`], never by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HiddenArg {
    /// Position in the metadata's `.args`.
    pub metadata_index: u32,
    /// `.offset` in the kernarg segment.
    pub offset: u32,
    /// `.size` in bytes.
    pub size: u32,
    /// `.value_kind` (one of the `hidden_*` kinds).
    pub kind: ValueKind,
}

/// The size a hidden argument of `kind` must have; `None` for `hidden_none`
/// (any size: it only reserves space) and for kinds that are not hidden.
pub const fn hidden_size(kind: ValueKind) -> Option<u32> {
    use ValueKind as K;
    match kind {
        K::HiddenGlobalOffsetX | K::HiddenGlobalOffsetY | K::HiddenGlobalOffsetZ => Some(8),
        K::HiddenPrintfBuffer
        | K::HiddenHostcallBuffer
        | K::HiddenDefaultQueue
        | K::HiddenCompletionAction
        | K::HiddenMultigridSyncArg
        | K::HiddenHeapV1
        | K::HiddenQueuePtr => Some(8),
        K::HiddenBlockCountX | K::HiddenBlockCountY | K::HiddenBlockCountZ => Some(4),
        K::HiddenGroupSizeX | K::HiddenGroupSizeY | K::HiddenGroupSizeZ => Some(2),
        K::HiddenRemainderX | K::HiddenRemainderY | K::HiddenRemainderZ => Some(2),
        K::HiddenGridDims => Some(2),
        K::HiddenDynamicLdsSize => Some(4),
        K::HiddenPrivateBase | K::HiddenSharedBase => Some(4),
        K::HiddenNone
        | K::ByValue
        | K::GlobalBuffer
        | K::DynamicSharedPointer
        | K::Sampler
        | K::Image
        | K::Pipe
        | K::Queue => None,
    }
}

/// The kernarg layout of one kernel, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernargLayout {
    /// `.name` of the kernel.
    pub kernel: String,
    /// `.kernarg_segment_size`.
    pub segment_size: u32,
    /// `.kernarg_segment_align` (a power of two). The allocation must also
    /// be at least 16-byte aligned (AMDGPUUsage "Kernel Dispatch", step 3):
    /// see [`KernargLayout::allocation_align`].
    pub segment_align: u32,
    /// `.group_segment_fixed_size`: static LDS bytes per work-group.
    pub group_segment_fixed_size: u32,
    /// `.max_flat_workgroup_size`.
    pub max_flat_workgroup_size: u32,
    /// `.reqd_workgroup_size`, if the kernel has one.
    pub reqd_workgroup_size: Option<[u32; 3]>,
    /// `.uniform_work_group_size` is 1: the grid must be a multiple of the
    /// work-group size in every dimension.
    pub uniform_work_group_size: bool,
    /// The explicit arguments, in order.
    pub explicit: Vec<ExplicitArg>,
    /// The hidden arguments, in metadata order.
    pub hidden: Vec<HiddenArg>,
}

/// The explicit kind of `kind`, `None` for the hidden kinds.
fn explicit_kind(kind: ValueKind) -> Option<ArgKind> {
    use ValueKind as K;
    match kind {
        K::ByValue => Some(ArgKind::ByValue),
        K::GlobalBuffer => Some(ArgKind::GlobalBuffer),
        K::DynamicSharedPointer => Some(ArgKind::DynamicSharedPointer),
        K::Image => Some(ArgKind::Image),
        K::Sampler => Some(ArgKind::Sampler),
        K::Pipe => Some(ArgKind::Pipe),
        K::Queue => Some(ArgKind::Queue),
        K::HiddenGlobalOffsetX
        | K::HiddenGlobalOffsetY
        | K::HiddenGlobalOffsetZ
        | K::HiddenNone
        | K::HiddenPrintfBuffer
        | K::HiddenHostcallBuffer
        | K::HiddenDefaultQueue
        | K::HiddenCompletionAction
        | K::HiddenMultigridSyncArg
        | K::HiddenBlockCountX
        | K::HiddenBlockCountY
        | K::HiddenBlockCountZ
        | K::HiddenGroupSizeX
        | K::HiddenGroupSizeY
        | K::HiddenGroupSizeZ
        | K::HiddenRemainderX
        | K::HiddenRemainderY
        | K::HiddenRemainderZ
        | K::HiddenGridDims
        | K::HiddenHeapV1
        | K::HiddenDynamicLdsSize
        | K::HiddenPrivateBase
        | K::HiddenSharedBase
        | K::HiddenQueuePtr => None,
    }
}

/// Which dimension a hidden kind is about (0 = X), if it is per dimension.
fn dimension(kind: ValueKind) -> Option<usize> {
    use ValueKind as K;
    match kind {
        K::HiddenGlobalOffsetX
        | K::HiddenBlockCountX
        | K::HiddenGroupSizeX
        | K::HiddenRemainderX => Some(0),
        K::HiddenGlobalOffsetY
        | K::HiddenBlockCountY
        | K::HiddenGroupSizeY
        | K::HiddenRemainderY => Some(1),
        K::HiddenGlobalOffsetZ
        | K::HiddenBlockCountZ
        | K::HiddenGroupSizeZ
        | K::HiddenRemainderZ => Some(2),
        _ => None,
    }
}

impl KernargLayout {
    /// Reads and checks the layout of `kernel`'s arguments.
    pub fn from_metadata(kernel: &Kernel<'_>) -> Result<Self, KernargError> {
        let segment_size = kernel.kernarg_segment_size;
        let segment_align = kernel.kernarg_segment_align;
        if !segment_align.is_power_of_two() {
            return Err(KernargError::SegmentAlign {
                align: segment_align,
            });
        }
        let mut explicit = Vec::new();
        let mut hidden = Vec::new();
        // (offset, size, label) of every argument, for the overlap check.
        let mut spans: Vec<(u32, u32, String)> = Vec::new();
        for arg in kernel.args() {
            let arg = arg.map_err(KernargError::Metadata)?;
            let kind = arg.value_kind;
            let (label, required, align) = match explicit_kind(kind) {
                None => {
                    let label = format!("hidden argument {} (.args[{}])", kind, arg.index);
                    let required = hidden_size(kind);
                    (label, required, required)
                }
                Some(kind) => {
                    let e = ExplicitArg {
                        index: u32::try_from(explicit.len()).unwrap_or(u32::MAX),
                        metadata_index: arg.index,
                        name: arg.name.map(str::to_owned),
                        type_name: arg.type_name.map(str::to_owned),
                        offset: arg.offset,
                        size: arg.size,
                        kind,
                        pointee_align: arg.pointee_align,
                        address_space: arg.address_space,
                    };
                    let label = e.label();
                    let required = kind.required_size();
                    explicit.push(e);
                    (label, required, required)
                }
            };
            if arg.size == 0 {
                return Err(KernargError::ZeroSize { arg: label });
            }
            if let Some(expected) = required {
                if arg.size != expected {
                    return Err(KernargError::ArgSize {
                        arg: label,
                        kind: kind.as_str(),
                        size: arg.size,
                        expected,
                    });
                }
            }
            let end = u64::from(arg.offset) + u64::from(arg.size);
            if end > u64::from(segment_size) {
                return Err(KernargError::OutsideSegment {
                    arg: label,
                    offset: arg.offset,
                    size: arg.size,
                    segment_size,
                });
            }
            // "The offset must be a multiple of the alignment required by the
            // argument" (AMDGPUUsage V3 argument map); known for every kind
            // but by_value, whose alignment the metadata does not give.
            if let Some(a) = align {
                if arg.offset % a != 0 {
                    return Err(KernargError::Misaligned {
                        arg: label,
                        offset: arg.offset,
                        align: a,
                    });
                }
            }
            if explicit_kind(kind).is_none() {
                hidden.push(HiddenArg {
                    metadata_index: arg.index,
                    offset: arg.offset,
                    size: arg.size,
                    kind,
                });
            }
            spans.push((arg.offset, arg.size, label));
        }
        spans.sort_by_key(|s| (s.0, s.1));
        for pair in spans.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            if u64::from(a.0) + u64::from(a.1) > u64::from(b.0) {
                return Err(KernargError::Overlap {
                    first: a.2.clone(),
                    second: b.2.clone(),
                });
            }
        }
        Ok(Self {
            kernel: kernel.name.to_owned(),
            segment_size,
            segment_align,
            group_segment_fixed_size: kernel.group_segment_fixed_size,
            max_flat_workgroup_size: kernel.max_flat_workgroup_size,
            reqd_workgroup_size: kernel.reqd_workgroup_size,
            uniform_work_group_size: kernel.uniform_work_group_size == Some(1),
            explicit,
            hidden,
        })
    }

    /// The layout of a kernel whose code object has no metadata (a stripped
    /// object): no arguments the runtime knows of, the segment size and
    /// alignment of the kernel descriptor, and the largest work-group
    /// AMDGPUUsage allows when `.max_flat_workgroup_size` is absent (1024).
    pub fn without_metadata(
        kernel: &str,
        segment_size: u32,
        segment_align: u32,
        group_segment_fixed_size: u32,
    ) -> Self {
        Self {
            kernel: kernel.to_owned(),
            segment_size,
            segment_align: if segment_align.is_power_of_two() {
                segment_align
            } else {
                16
            },
            group_segment_fixed_size,
            max_flat_workgroup_size: 1024,
            reqd_workgroup_size: None,
            uniform_work_group_size: false,
            explicit: Vec::new(),
            hidden: Vec::new(),
        }
    }

    /// The alignment the kernarg allocation needs: the metadata's, and at
    /// least 16 (AMDGPUUsage "Kernel Dispatch": "It must be at least 16-byte
    /// aligned").
    pub fn allocation_align(&self) -> u32 {
        self.segment_align.max(16)
    }

    /// Builds the segment of one dispatch; see [`build`].
    pub fn build(
        &self,
        args: &[ArgValue],
        geometry: &Geometry,
        hidden: &HiddenValues,
        static_group_segment_size: u32,
    ) -> Result<Kernarg, KernargError> {
        build(self, args, geometry, hidden, static_group_segment_size)
    }
}

/// The shape of one dispatch, as in the AQL kernel dispatch packet, plus
/// the dynamic group segment bytes it asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Dimensions, 1 to 3: the packet's `setup` field and
    /// `hidden_grid_dims`. The dimensions past it must have grid and
    /// work-group size 1 (HSA System Architecture, kernel dispatch packet).
    pub dims: u8,
    /// Grid size in work-items, per dimension (not work-groups).
    pub grid: [u32; 3],
    /// Work-group size in work-items, per dimension.
    pub workgroup: [u16; 3],
    /// Group segment bytes the dispatch adds after the static ones and the
    /// `__local` pointer arguments' (HIP's `extern __shared__`).
    pub dynamic_lds: u32,
    /// Private segment bytes per work-item the dispatch gives the kernel
    /// (the packet's `private_segment_size`) when that is more than its
    /// `.private_segment_fixed_size`; 0 gives the fixed size. Room for a
    /// stack the compiler could not size: recursion (LLVM 19 counts one
    /// frame of a recursive callee), calls through pointers,
    /// `.uses_dynamic_stack` (what HIP's `hipLimitStackSize` is for). A
    /// kernel that outgrows its private segment writes into other waves'
    /// scratch, on the GPU as in the sim.
    pub private_segment_size: u32,
}

impl Geometry {
    /// A 1D dispatch of `grid` work-items in work-groups of `workgroup`.
    pub fn linear(grid: u32, workgroup: u16) -> Self {
        Self::new([grid, 1, 1], [workgroup, 1, 1])
    }

    /// A geometry with the fewest dimensions that hold `grid` and
    /// `workgroup` (the last dimension whose grid or work-group size is not
    /// 1), and no dynamic LDS.
    pub fn new(grid: [u32; 3], workgroup: [u16; 3]) -> Self {
        let dims = if grid[2] != 1 || workgroup[2] != 1 {
            3
        } else if grid[1] != 1 || workgroup[1] != 1 {
            2
        } else {
            1
        };
        Self {
            dims,
            grid,
            workgroup,
            dynamic_lds: 0,
            private_segment_size: 0,
        }
    }

    /// The same geometry with `bytes` of dynamic LDS.
    #[must_use]
    pub fn with_dynamic_lds(self, bytes: u32) -> Self {
        Self {
            dynamic_lds: bytes,
            ..self
        }
    }

    /// The same geometry with at least `bytes` of private segment per
    /// work-item ([`Geometry::private_segment_size`]).
    #[must_use]
    pub fn with_private_segment_size(self, bytes: u32) -> Self {
        Self {
            private_segment_size: bytes,
            ..self
        }
    }

    /// The packet's `private_segment_size` for a kernel whose
    /// `.private_segment_fixed_size` is `fixed`: the larger of the two.
    pub fn private_segment_for(&self, fixed: u32) -> u32 {
        fixed.max(self.private_segment_size)
    }

    /// The same geometry with `dims` dimensions (e.g. an OpenCL 2D range
    /// whose second size is 1).
    #[must_use]
    pub fn with_dims(self, dims: u8) -> Self {
        Self { dims, ..self }
    }

    /// Full work-groups in dimension `d` (`hidden_block_count`).
    pub fn block_count(&self, d: usize) -> u32 {
        self.grid[d] / u32::from(self.workgroup[d].max(1))
    }

    /// Size of the partial last work-group in dimension `d`, 0 if there is
    /// none (`hidden_remainder`).
    pub fn remainder(&self, d: usize) -> u16 {
        // Less than the work-group size, so it fits.
        u16::try_from(self.grid[d] % u32::from(self.workgroup[d].max(1))).unwrap_or(u16::MAX)
    }

    /// Checks the geometry against the kernel: no zero size, dims 1 to 3
    /// with the unused dimensions 1, no grid size smaller than the
    /// work-group size (`hsa.h`, `hsa_kernel_dispatch_packet_t`: each grid
    /// size "Must not be smaller than" the work-group size), the work-group
    /// within `.max_flat_workgroup_size` and equal to `.reqd_workgroup_size`
    /// if the kernel has one, and the grid a multiple of the work-group when
    /// the kernel says `.uniform_work_group_size`. A grid that is not a
    /// multiple of the work-group is allowed otherwise (its last work-group
    /// is partial).
    pub fn check(&self, layout: &KernargLayout) -> Result<(), KernargError> {
        if !(1..=3).contains(&self.dims) {
            return Err(KernargError::Dims { dims: self.dims });
        }
        for d in 0..3 {
            if self.grid[d] == 0 {
                return Err(KernargError::ZeroGrid { dim: d });
            }
            if self.workgroup[d] == 0 {
                return Err(KernargError::ZeroWorkgroup { dim: d });
            }
            if self.grid[d] < u32::from(self.workgroup[d]) {
                return Err(KernargError::GridSmallerThanWorkgroup {
                    dim: d,
                    grid: self.grid[d],
                    workgroup: self.workgroup[d],
                });
            }
            if d >= usize::from(self.dims) && (self.grid[d] != 1 || self.workgroup[d] != 1) {
                return Err(KernargError::UnusedDimension {
                    dims: self.dims,
                    dim: d,
                    grid: self.grid[d],
                    workgroup: self.workgroup[d],
                });
            }
        }
        // Up to 65535^3: needs more than 32 bits.
        let flat: u64 = self.workgroup.iter().map(|&w| u64::from(w)).product();
        if flat > u64::from(layout.max_flat_workgroup_size) {
            return Err(KernargError::WorkgroupTooLarge {
                workgroup: self.workgroup,
                max: layout.max_flat_workgroup_size,
            });
        }
        if let Some(r) = layout.reqd_workgroup_size {
            if r != self.workgroup.map(u32::from) {
                return Err(KernargError::ReqdWorkgroupSize {
                    workgroup: self.workgroup,
                    required: r,
                });
            }
        }
        if layout.uniform_work_group_size {
            if let Some(d) = (0..3).find(|&d| self.remainder(d) != 0) {
                return Err(KernargError::NotUniform {
                    dim: d,
                    grid: self.grid[d],
                    workgroup: self.workgroup[d],
                });
            }
        }
        Ok(())
    }
}

/// Values of the hidden arguments that do not come from the geometry.
/// Each is 0 when there is none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HiddenValues {
    /// Address of the queue's `amd_queue_t` (`hidden_queue_ptr`).
    pub queue_ptr: u64,
    /// Private (scratch) flat aperture base; `hidden_private_base` holds its
    /// high 32 bits.
    pub private_base: u64,
    /// Shared (LDS) flat aperture base; `hidden_shared_base` holds its high
    /// 32 bits.
    pub shared_base: u64,
    /// `hidden_printf_buffer`.
    pub printf_buffer: u64,
    /// `hidden_hostcall_buffer`.
    pub hostcall_buffer: u64,
    /// `hidden_heap_v1`: the device malloc heap.
    pub heap_v1: u64,
    /// `hidden_default_queue`: OpenCL device-enqueue default queue.
    pub default_queue: u64,
    /// `hidden_completion_action`.
    pub completion_action: u64,
    /// `hidden_multigrid_sync_arg`.
    pub multigrid_sync_arg: u64,
    /// `hidden_global_offset_{x,y,z}`: OpenCL global work offset.
    pub global_offset: [u64; 3],
}

/// The value of one explicit argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgValue {
    /// A `by_value` argument's bytes (little-endian); exactly its size.
    Bytes(Vec<u8>),
    /// A `global_buffer` argument: the buffer's device address.
    Pointer(u64),
    /// A `dynamic_shared_pointer` argument: the bytes of group memory to
    /// allocate for it per work-group (at least 1).
    Lds(u32),
}

impl ArgValue {
    /// What was given, as mismatch messages say it.
    fn given(&self) -> String {
        match self {
            Self::Bytes(b) => format!("{} bytes by value", b.len()),
            Self::Pointer(_) => "buffer".to_owned(),
            Self::Lds(n) => format!("{n} bytes of LDS"),
        }
    }
}

/// A built kernarg segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernarg {
    /// The segment, `.kernarg_segment_size` bytes; copy it into kernarg
    /// memory aligned to [`KernargLayout::allocation_align`].
    pub bytes: Vec<u8>,
    /// The dispatch packet's `group_segment_size`: the static size, the
    /// `__local` pointer arguments' regions and the dynamic LDS.
    pub group_segment_size: u32,
}

/// The smallest group-region alignment of a `__local` pointer argument.
/// Each region is aligned to its `.pointee_align`, and to at least this:
/// OpenCL only promises the pointee type's alignment, and 16 is the
/// largest alignment of an OpenCL C built-in scalar or vector type up to
/// 4 components (a `long2`/`double2`), so common vector accesses stay
/// aligned even when the metadata says less.
pub const LDS_ARG_MIN_ALIGN: u32 = 16;

fn align_up(x: u64, a: u32) -> u64 {
    let a = u64::from(a);
    x.div_ceil(a) * a
}

/// Lays out the kernarg segment of one dispatch of the kernel `layout`
/// describes.
///
/// - `args`: one value per explicit argument, in order: [`ArgValue::Bytes`]
///   of exactly the size for `by_value`, [`ArgValue::Pointer`] for
///   `global_buffer`, [`ArgValue::Lds`] for `dynamic_shared_pointer`.
///   Images, samplers, pipes and queues are an error.
/// - `geometry`: checked with [`Geometry::check`]; fills the block counts,
///   group sizes, remainders and grid dimensions.
/// - `hidden`: the pointers and apertures.
/// - `static_group_segment_size`: the kernel's static LDS bytes (its
///   `.group_segment_fixed_size` or the kernel descriptor's). Each `__local`
///   argument's region follows it, aligned to `max(.pointee_align,`
///   [`LDS_ARG_MIN_ALIGN`]`)`, and its group offset is the argument's value;
///   the dynamic LDS follows them.
///
/// Every hidden argument is written; `hidden_none` is left zero.
pub fn build(
    layout: &KernargLayout,
    args: &[ArgValue],
    geometry: &Geometry,
    hidden: &HiddenValues,
    static_group_segment_size: u32,
) -> Result<Kernarg, KernargError> {
    if args.len() != layout.explicit.len() {
        return Err(KernargError::ArgCount {
            expected: layout.explicit.len(),
            got: args.len(),
        });
    }
    geometry.check(layout)?;
    let size = usize::try_from(layout.segment_size).map_err(|_| KernargError::GroupOverflow)?;
    let mut bytes = vec![0u8; size];
    // Offsets and sizes were checked against the segment by from_metadata;
    // `put` still checks, so a hand-made layout cannot make it panic.
    let put = |bytes: &mut Vec<u8>, offset: u32, value: &[u8], what: &str| {
        let start = offset as usize;
        match bytes.get_mut(start..start.saturating_add(value.len())) {
            Some(dst) => {
                dst.copy_from_slice(value);
                Ok(())
            }
            None => Err(KernargError::OutsideSegment {
                arg: what.to_owned(),
                offset,
                size: u32::try_from(value.len()).unwrap_or(u32::MAX),
                segment_size: layout.segment_size,
            }),
        }
    };
    let mut group_end = u64::from(static_group_segment_size);
    for (arg, value) in layout.explicit.iter().zip(args) {
        let mismatch = || KernargError::KindMismatch {
            arg: arg.describe(),
            got: value.given(),
        };
        match arg.kind {
            ArgKind::ByValue => {
                let ArgValue::Bytes(b) = value else {
                    return Err(mismatch());
                };
                if b.len() != arg.size as usize {
                    return Err(KernargError::ValueSize {
                        arg: arg.describe(),
                        size: arg.size,
                        got: b.len(),
                    });
                }
                put(&mut bytes, arg.offset, b, &arg.label())?;
            }
            ArgKind::GlobalBuffer => {
                let ArgValue::Pointer(p) = value else {
                    return Err(mismatch());
                };
                put(&mut bytes, arg.offset, &p.to_le_bytes(), &arg.label())?;
            }
            ArgKind::DynamicSharedPointer => {
                let ArgValue::Lds(n) = value else {
                    return Err(mismatch());
                };
                if *n == 0 {
                    return Err(KernargError::EmptyLds { arg: arg.label() });
                }
                let align = arg.pointee_align.unwrap_or(1).max(LDS_ARG_MIN_ALIGN);
                let at = align_up(group_end, align);
                let offset = u32::try_from(at).map_err(|_| KernargError::GroupOverflow)?;
                group_end = at + u64::from(*n);
                put(&mut bytes, arg.offset, &offset.to_le_bytes(), &arg.label())?;
            }
            ArgKind::Image | ArgKind::Sampler | ArgKind::Pipe | ArgKind::Queue => {
                return Err(KernargError::UnsupportedKind {
                    arg: arg.describe(),
                    kind: arg.kind,
                });
            }
        }
    }
    let group_end = group_end + u64::from(geometry.dynamic_lds);
    let group_segment_size = u32::try_from(group_end).map_err(|_| KernargError::GroupOverflow)?;
    // Cannot underflow: group_end started at the static size.
    let dynamic_lds_size = group_segment_size.saturating_sub(static_group_segment_size);

    for h in &layout.hidden {
        use ValueKind as K;
        let label = format!("hidden argument {} (.args[{}])", h.kind, h.metadata_index);
        let d = dimension(h.kind).unwrap_or(0);
        let value: Vec<u8> = match h.kind {
            K::HiddenNone => continue,
            K::HiddenGlobalOffsetX | K::HiddenGlobalOffsetY | K::HiddenGlobalOffsetZ => {
                hidden.global_offset[d].to_le_bytes().to_vec()
            }
            K::HiddenPrintfBuffer => hidden.printf_buffer.to_le_bytes().to_vec(),
            K::HiddenHostcallBuffer => hidden.hostcall_buffer.to_le_bytes().to_vec(),
            K::HiddenDefaultQueue => hidden.default_queue.to_le_bytes().to_vec(),
            K::HiddenCompletionAction => hidden.completion_action.to_le_bytes().to_vec(),
            K::HiddenMultigridSyncArg => hidden.multigrid_sync_arg.to_le_bytes().to_vec(),
            K::HiddenHeapV1 => hidden.heap_v1.to_le_bytes().to_vec(),
            K::HiddenQueuePtr => hidden.queue_ptr.to_le_bytes().to_vec(),
            K::HiddenBlockCountX | K::HiddenBlockCountY | K::HiddenBlockCountZ => {
                geometry.block_count(d).to_le_bytes().to_vec()
            }
            K::HiddenGroupSizeX | K::HiddenGroupSizeY | K::HiddenGroupSizeZ => {
                geometry.workgroup[d].to_le_bytes().to_vec()
            }
            K::HiddenRemainderX | K::HiddenRemainderY | K::HiddenRemainderZ => {
                geometry.remainder(d).to_le_bytes().to_vec()
            }
            K::HiddenGridDims => u16::from(geometry.dims).to_le_bytes().to_vec(),
            K::HiddenDynamicLdsSize => dynamic_lds_size.to_le_bytes().to_vec(),
            // The aperture bases are 4 GiB aligned: the kernel rebuilds the
            // base from its high half.
            K::HiddenPrivateBase => ((hidden.private_base >> 32) as u32).to_le_bytes().to_vec(),
            K::HiddenSharedBase => ((hidden.shared_base >> 32) as u32).to_le_bytes().to_vec(),
            K::ByValue
            | K::GlobalBuffer
            | K::DynamicSharedPointer
            | K::Sampler
            | K::Image
            | K::Pipe
            | K::Queue => return Err(KernargError::UnknownHidden { arg: label }),
        };
        if value.len() != h.size as usize {
            return Err(KernargError::ArgSize {
                arg: label,
                kind: h.kind.as_str(),
                size: h.size,
                expected: u32::try_from(value.len()).unwrap_or(u32::MAX),
            });
        }
        put(&mut bytes, h.offset, &value, &label)?;
    }
    Ok(Kernarg {
        bytes,
        group_segment_size,
    })
}

/// Why a layout could not be read or a segment built. Arguments are named
/// as `kernel argument 2 (n)` (explicit) or
/// `hidden argument hidden_grid_dims (.args[14])`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernargError {
    /// The metadata itself is malformed.
    Metadata(loader_core::Error),
    /// `.kernarg_segment_align` is not a power of two.
    SegmentAlign {
        /// The alignment.
        align: u32,
    },
    /// An argument has size 0.
    ZeroSize {
        /// The argument.
        arg: String,
    },
    /// An argument's size is not the one its kind has.
    ArgSize {
        /// The argument.
        arg: String,
        /// Its `.value_kind`.
        kind: &'static str,
        /// Its `.size`.
        size: u32,
        /// The size of that kind.
        expected: u32,
    },
    /// An argument runs past the end of the segment.
    OutsideSegment {
        /// The argument.
        arg: String,
        /// Its `.offset`.
        offset: u32,
        /// Its `.size`.
        size: u32,
        /// `.kernarg_segment_size`.
        segment_size: u32,
    },
    /// An argument's offset is not a multiple of its alignment.
    Misaligned {
        /// The argument.
        arg: String,
        /// Its `.offset`.
        offset: u32,
        /// The alignment it needs.
        align: u32,
    },
    /// Two arguments share bytes.
    Overlap {
        /// The one at the lower offset.
        first: String,
        /// The other.
        second: String,
    },
    /// A hidden kind the builder cannot fill (none today: every hidden kind
    /// of code object v3 to v6 is filled).
    UnknownHidden {
        /// The argument.
        arg: String,
    },
    /// Not one value per explicit argument.
    ArgCount {
        /// Explicit arguments of the kernel.
        expected: usize,
        /// Values given.
        got: usize,
    },
    /// The value's kind does not fit the argument's.
    KindMismatch {
        /// [`ExplicitArg::describe`].
        arg: String,
        /// What was given.
        got: String,
    },
    /// A by-value argument of the wrong size.
    ValueSize {
        /// [`ExplicitArg::describe`].
        arg: String,
        /// The argument's size.
        size: u32,
        /// Bytes given.
        got: usize,
    },
    /// An argument kind this builder does not set up.
    UnsupportedKind {
        /// [`ExplicitArg::describe`].
        arg: String,
        /// Its kind.
        kind: ArgKind,
    },
    /// A `__local` argument of 0 bytes.
    EmptyLds {
        /// The argument.
        arg: String,
    },
    /// The group segment would exceed 4 GiB.
    GroupOverflow,
    /// Dimensions not 1, 2 or 3.
    Dims {
        /// The dimensions given.
        dims: u8,
    },
    /// A grid size of 0.
    ZeroGrid {
        /// The dimension (0 = X).
        dim: usize,
    },
    /// A work-group size of 0.
    ZeroWorkgroup {
        /// The dimension (0 = X).
        dim: usize,
    },
    /// A grid size smaller than the work-group size.
    GridSmallerThanWorkgroup {
        /// The dimension (0 = X).
        dim: usize,
        /// Its grid size.
        grid: u32,
        /// Its work-group size.
        workgroup: u16,
    },
    /// A dimension past `dims` whose grid or work-group size is not 1.
    UnusedDimension {
        /// The dimensions.
        dims: u8,
        /// The dimension (0 = X).
        dim: usize,
        /// Its grid size.
        grid: u32,
        /// Its work-group size.
        workgroup: u16,
    },
    /// The work-group has more work-items than `.max_flat_workgroup_size`.
    WorkgroupTooLarge {
        /// The work-group size.
        workgroup: [u16; 3],
        /// `.max_flat_workgroup_size`.
        max: u32,
    },
    /// The work-group size is not the kernel's `.reqd_workgroup_size`.
    ReqdWorkgroupSize {
        /// The work-group size.
        workgroup: [u16; 3],
        /// `.reqd_workgroup_size`.
        required: [u32; 3],
    },
    /// The kernel needs a uniform grid and this one has a partial
    /// work-group.
    NotUniform {
        /// The dimension (0 = X).
        dim: usize,
        /// Its grid size.
        grid: u32,
        /// Its work-group size.
        workgroup: u16,
    },
}

const DIM: [char; 3] = ['x', 'y', 'z'];

impl fmt::Display for KernargError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Metadata(e) => write!(f, "kernel metadata: {e}"),
            Self::SegmentAlign { align } => {
                write!(f, ".kernarg_segment_align {align} is not a power of two")
            }
            Self::ZeroSize { arg } => write!(f, "{arg} has size 0"),
            Self::ArgSize {
                arg,
                kind,
                size,
                expected,
            } => write!(
                f,
                "{arg} has size {size}, but a {kind} argument is {expected} bytes"
            ),
            Self::OutsideSegment {
                arg,
                offset,
                size,
                segment_size,
            } => write!(
                f,
                "{arg} (offset {offset}, size {size}) runs past the {segment_size}-byte kernarg segment"
            ),
            Self::Misaligned { arg, offset, align } => {
                write!(f, "{arg} at offset {offset} is not {align}-byte aligned")
            }
            Self::Overlap { first, second } => write!(f, "{first} overlaps {second}"),
            Self::UnknownHidden { arg } => write!(f, "{arg}: the runtime cannot fill this kind"),
            Self::ArgCount { expected, got } => {
                write!(f, "kernel takes {expected} explicit arguments, got {got}")
            }
            Self::KindMismatch { arg, got } => write!(f, "{arg}, got {got}"),
            Self::ValueSize { arg, size, got } => {
                write!(f, "{arg} of {size} bytes, got {got} bytes")
            }
            Self::UnsupportedKind { arg, kind } => {
                write!(f, "{arg}: unsupported argument kind {kind}")
            }
            Self::EmptyLds { arg } => write!(f, "{arg}: a __local argument needs at least 1 byte"),
            Self::GroupOverflow => f.write_str("the group segment size exceeds 4 GiB"),
            Self::Dims { dims } => write!(f, "a dispatch has 1 to 3 dimensions, not {dims}"),
            Self::ZeroGrid { dim } => write!(f, "grid size {} is 0", DIM[*dim % 3]),
            Self::ZeroWorkgroup { dim } => write!(f, "work-group size {} is 0", DIM[*dim % 3]),
            Self::GridSmallerThanWorkgroup {
                dim,
                grid,
                workgroup,
            } => write!(
                f,
                "grid size {} ({grid}) is smaller than the work-group size ({workgroup})",
                DIM[*dim % 3]
            ),
            Self::UnusedDimension {
                dims,
                dim,
                grid,
                workgroup,
            } => write!(
                f,
                "a {dims}-dimensional dispatch needs grid and work-group size {} of 1, got {grid} and {workgroup}",
                DIM[*dim % 3]
            ),
            Self::WorkgroupTooLarge { workgroup, max } => write!(
                f,
                "work-group {}x{}x{} exceeds the kernel's .max_flat_workgroup_size {max}",
                workgroup[0], workgroup[1], workgroup[2]
            ),
            Self::ReqdWorkgroupSize {
                workgroup,
                required,
            } => write!(
                f,
                "work-group {}x{}x{} is not the kernel's .reqd_workgroup_size {}x{}x{}",
                workgroup[0], workgroup[1], workgroup[2], required[0], required[1], required[2]
            ),
            Self::NotUniform {
                dim,
                grid,
                workgroup,
            } => write!(
                f,
                "the kernel needs a uniform work-group size, but grid size {} ({grid}) is not a multiple of the work-group size ({workgroup})",
                DIM[*dim % 3]
            ),
        }
    }
}

impl std::error::Error for KernargError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Metadata(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loader_core::metadata::Metadata;

    /// A MessagePack value, enough to write kernel metadata by hand.
    enum Mp<'a> {
        U(u32),
        S(&'a str),
        A(Vec<Mp<'a>>),
        M(Vec<(&'a str, Mp<'a>)>),
    }

    fn encode(v: &Mp<'_>, out: &mut Vec<u8>) {
        match v {
            Mp::U(n) => {
                out.push(0xce);
                out.extend_from_slice(&n.to_be_bytes());
            }
            Mp::S(s) => {
                out.push(0xd9);
                out.push(u8::try_from(s.len()).unwrap());
                out.extend_from_slice(s.as_bytes());
            }
            Mp::A(items) => {
                out.push(0xdc);
                out.extend_from_slice(&u16::try_from(items.len()).unwrap().to_be_bytes());
                for i in items {
                    encode(i, out);
                }
            }
            Mp::M(entries) => {
                out.push(0xde);
                out.extend_from_slice(&u16::try_from(entries.len()).unwrap().to_be_bytes());
                for (k, v) in entries {
                    encode(&Mp::S(k), out);
                    encode(v, out);
                }
            }
        }
    }

    /// An argument: (name, offset, size, value kind, extra entries).
    type Arg<'a> = (&'a str, u32, u32, &'a str, Vec<(&'a str, Mp<'a>)>);

    /// The metadata document of one kernel `k` with `args`.
    fn doc(
        segment_size: u32,
        align: u32,
        extra: Vec<(&str, Mp<'_>)>,
        args: Vec<Arg<'_>>,
    ) -> Vec<u8> {
        let args = args
            .into_iter()
            .map(|(name, offset, size, kind, more)| {
                let mut m = vec![
                    (".offset", Mp::U(offset)),
                    (".size", Mp::U(size)),
                    (".value_kind", Mp::S(kind)),
                ];
                if !name.is_empty() {
                    m.push((".name", Mp::S(name)));
                }
                m.extend(more);
                Mp::M(m)
            })
            .collect();
        let mut kernel = vec![
            (".name", Mp::S("k")),
            (".symbol", Mp::S("k.kd")),
            (".kernarg_segment_size", Mp::U(segment_size)),
            (".kernarg_segment_align", Mp::U(align)),
            (".group_segment_fixed_size", Mp::U(0)),
            (".private_segment_fixed_size", Mp::U(0)),
            (".wavefront_size", Mp::U(64)),
            (".sgpr_count", Mp::U(8)),
            (".vgpr_count", Mp::U(8)),
            (".max_flat_workgroup_size", Mp::U(256)),
            (".args", Mp::A(args)),
        ];
        kernel.extend(extra);
        let top = Mp::M(vec![
            ("amdhsa.version", Mp::A(vec![Mp::U(1), Mp::U(2)])),
            ("amdhsa.kernels", Mp::A(vec![Mp::M(kernel)])),
        ]);
        let mut out = Vec::new();
        encode(&top, &mut out);
        out
    }

    fn layout(doc: &[u8]) -> Result<KernargLayout, KernargError> {
        let md = Metadata::parse(doc).unwrap();
        let k = md.kernel("k").unwrap().unwrap();
        KernargLayout::from_metadata(&k)
    }

    fn err(doc: &[u8]) -> String {
        layout(doc).unwrap_err().to_string()
    }

    #[test]
    fn layout_checks_name_the_argument() {
        let by_value = |name, offset, size| (name, offset, size, "by_value", vec![]);
        assert_eq!(
            err(&doc(
                16,
                8,
                vec![],
                vec![by_value("a", 0, 8), by_value("b", 4, 4)]
            )),
            "kernel argument 0 (a) overlaps kernel argument 1 (b)"
        );
        assert_eq!(
            err(&doc(
                16,
                8,
                vec![],
                vec![by_value("a", 0, 4), ("p", 4, 8, "global_buffer", vec![])]
            )),
            "kernel argument 1 (p) at offset 4 is not 8-byte aligned"
        );
        assert_eq!(
            err(&doc(
                16,
                8,
                vec![],
                vec![("p", 0, 4, "global_buffer", vec![])]
            )),
            "kernel argument 0 (p) has size 4, but a global_buffer argument is 8 bytes"
        );
        assert_eq!(
            err(&doc(16, 8, vec![], vec![by_value("", 0, 0)])),
            "kernel argument 0 has size 0"
        );
        assert_eq!(
            err(&doc(
                32,
                8,
                vec![],
                vec![
                    by_value("a", 0, 4),
                    ("", 8, 8, "hidden_block_count_x", vec![])
                ]
            )),
            "hidden argument hidden_block_count_x (.args[1]) has size 8, but a hidden_block_count_x argument is 4 bytes"
        );
        assert_eq!(
            err(&doc(
                32,
                8,
                vec![],
                vec![
                    ("", 8, 4, "hidden_block_count_x", vec![]),
                    ("", 10, 2, "hidden_group_size_x", vec![])
                ]
            )),
            "hidden argument hidden_block_count_x (.args[0]) overlaps hidden argument hidden_group_size_x (.args[1])"
        );
        // A segment alignment that is not a power of two: loader-core's
        // reader already refuses the kernel.
        let d = doc(16, 6, vec![], vec![by_value("a", 0, 4)]);
        assert!(Metadata::parse(&d).unwrap().kernel("k").is_err());
        // Past the end: loader-core's reader already refuses it.
        assert!(matches!(
            layout(&doc(8, 8, vec![], vec![by_value("a", 4, 8)])),
            Err(KernargError::Metadata(_))
        ));
        // hidden_none only reserves space: any size.
        let l = layout(&doc(
            40,
            8,
            vec![],
            vec![by_value("a", 0, 4), ("", 8, 24, "hidden_none", vec![])],
        ))
        .unwrap();
        assert_eq!(l.hidden[0].kind, ValueKind::HiddenNone);
        assert_eq!(l.explicit[0].index, 0);
        assert_eq!(l.allocation_align(), 16);
    }

    #[test]
    fn printf_buffer_and_lds_alignment() {
        // COv4-style printf kernel (clang-19 with the device libraries uses
        // hostcall instead, so no real code object here has this kind).
        let d = doc(
            64,
            8,
            vec![],
            vec![
                (
                    "l1",
                    0,
                    4,
                    "dynamic_shared_pointer",
                    vec![(".pointee_align", Mp::U(64))],
                ),
                ("l2", 4, 4, "dynamic_shared_pointer", vec![]),
                ("", 8, 8, "hidden_global_offset_x", vec![]),
                ("", 16, 8, "hidden_global_offset_y", vec![]),
                ("", 24, 8, "hidden_global_offset_z", vec![]),
                ("", 32, 8, "hidden_printf_buffer", vec![]),
                ("", 40, 4, "hidden_dynamic_lds_size", vec![]),
            ],
        );
        let l = layout(&d).unwrap();
        let h = HiddenValues {
            printf_buffer: 0x1122_3344_5566_7788,
            global_offset: [1, 2, 3],
            ..HiddenValues::default()
        };
        let g = Geometry::new([64, 1, 1], [64, 1, 1]).with_dynamic_lds(8);
        let k = build(&l, &[ArgValue::Lds(10), ArgValue::Lds(3)], &g, &h, 100).unwrap();
        let b = &k.bytes;
        // l1 aligned to its pointee alignment 64 after 100 static bytes; l2
        // to the minimum 16 after l1's 10 bytes.
        assert_eq!(b[0..4], 128u32.to_le_bytes());
        assert_eq!(b[4..8], 144u32.to_le_bytes());
        assert_eq!(b[8..16], 1u64.to_le_bytes());
        assert_eq!(b[16..24], 2u64.to_le_bytes());
        assert_eq!(b[24..32], 3u64.to_le_bytes());
        assert_eq!(b[32..40], 0x1122_3344_5566_7788u64.to_le_bytes());
        // 147 after l2, then 8 dynamic bytes.
        assert_eq!(k.group_segment_size, 155);
        assert_eq!(b[40..44], 55u32.to_le_bytes());
    }

    #[test]
    fn kernel_geometry_attributes() {
        let d = doc(
            8,
            8,
            vec![
                (
                    ".reqd_workgroup_size",
                    Mp::A(vec![Mp::U(8), Mp::U(4), Mp::U(1)]),
                ),
                (".uniform_work_group_size", Mp::U(1)),
            ],
            vec![("p", 0, 8, "global_buffer", vec![])],
        );
        let l = layout(&d).unwrap();
        let run = |grid, wg| {
            build(
                &l,
                &[ArgValue::Pointer(0)],
                &Geometry::new(grid, wg),
                &HiddenValues::default(),
                0,
            )
            .map(|_| ())
            .map_err(|e| e.to_string())
        };
        run([16, 8, 1], [8, 4, 1]).unwrap();
        assert_eq!(
            run([16, 8, 1], [4, 8, 1]).unwrap_err(),
            "work-group 4x8x1 is not the kernel's .reqd_workgroup_size 8x4x1"
        );
        assert_eq!(
            run([16, 6, 1], [8, 4, 1]).unwrap_err(),
            "the kernel needs a uniform work-group size, but grid size y (6) is not a multiple of the work-group size (4)"
        );
    }

    #[test]
    fn geometry_values() {
        let g = Geometry::new([1000, 7, 1], [64, 4, 1]);
        assert_eq!(g.dims, 2);
        assert_eq!((g.block_count(0), g.remainder(0)), (15, 40));
        assert_eq!((g.block_count(1), g.remainder(1)), (1, 3));
        assert_eq!((g.block_count(2), g.remainder(2)), (1, 0));
        assert_eq!(Geometry::new([1, 1, 5], [1, 1, 1]).dims, 3);
        assert_eq!(Geometry::new([9, 1, 1], [3, 1, 1]).dims, 1);
        // A work-group of 65535^3 work-items is refused, not overflowed.
        let d = doc(8, 8, vec![], vec![("p", 0, 8, "global_buffer", vec![])]);
        let l = layout(&d).unwrap();
        let big = Geometry::new([u32::MAX; 3], [u16::MAX; 3]);
        assert!(matches!(
            big.check(&l),
            Err(KernargError::WorkgroupTooLarge { max: 256, .. })
        ));
        // Maximum sizes do not overflow.
        let g = Geometry::new([u32::MAX, 1, 1], [u16::MAX, 1, 1]);
        assert_eq!(g.block_count(0), u32::MAX / 65535);
        assert_eq!(u32::from(g.remainder(0)), u32::MAX % 65535);
    }
}
