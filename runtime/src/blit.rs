//! Blit kernels: the shader-engine copies of `hsa_amd_memory_async_copy`
//! (when SDMA is off, `HSA_ENABLE_SDMA=0`) and the dword fill of
//! `hsa_amd_memory_fill`, as ROCr's `BlitKernel` (`amd_blit_kernel.cpp`)
//! provides them.
//!
//! The kernels are OpenCL C (`runtime/blit/blit.cl`), built by
//! `runtime/blit/build.sh` with clang-19 into one code object v5 per
//! processor; this module embeds those objects, describes each kernel's
//! explicit arguments, and plans a dispatch: [`plan_copy`] and [`plan_fill`]
//! are pure functions from (addresses, size) to the kernel, its kernarg
//! bytes and the grid, which the runtime turns into an AQL kernel dispatch.
//!
//! ```
//! use runtime::blit::{plan_copy, plan_fill, BlitKernel, WORKGROUP_SIZE};
//! // Same residue mod 4: the 16-byte kernel.
//! let p = plan_copy(0x10_0003, 0x20_0007, 1 << 20, 64 * 1024).unwrap();
//! assert_eq!(p.kernel, BlitKernel::CopyAligned);
//! assert_eq!(p.workgroup_size, WORKGROUP_SIZE);
//! assert_eq!(p.grid_size, 64 * 1024);
//! assert_eq!(&p.kernarg[16..24], &(1u64 << 20).to_le_bytes());
//! // A fill of 10 dwords needs one work-group.
//! let f = plan_fill(0x1000, 0xdead_beef, 10, 64 * 1024).unwrap();
//! assert_eq!((f.kernel, f.grid_size), (BlitKernel::Fill, 256));
//! ```

use core::fmt;

/// Work-items per work-group of every blit kernel: the kernels are built
/// with `reqd_work_group_size(256, 1, 1)` and compute their flat id from it.
pub const WORKGROUP_SIZE: u16 = 256;

/// The largest copy or fill, in bytes (2^48, the GPU virtual address space).
pub const MAX_SIZE: u64 = 1 << 48;

/// Bytes of every blit kernel's kernarg segment (`.kernarg_segment_size`):
/// the explicit arguments only, the kernels read no hidden argument.
pub const KERNARG_SIZE: usize = 32;

/// Alignment of the kernarg segment (`.kernarg_segment_align`).
pub const KERNARG_ALIGN: usize = 8;

/// A `max_workitems` for an agent of `compute_units` CUs: 256 work-items
/// (one work-group) per CU, as ROCr sizes its copy grids (`BlitKernel`:
/// 64 * 4 work-items per CU), so every CU gets work and each work-item
/// loops over its share.
pub const fn max_workitems_for(compute_units: u32) -> u32 {
    let n = compute_units.saturating_mul(WORKGROUP_SIZE as u32);
    if n < WORKGROUP_SIZE as u32 {
        WORKGROUP_SIZE as u32
    } else {
        n - n % WORKGROUP_SIZE as u32
    }
}

/// The processors with a committed code object, in `build.sh` order.
pub const GPUS: [&str; 7] = [
    "gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100",
];

/// The code objects, one per entry of [`GPUS`].
static CODE_OBJECTS: [&[u8]; 7] = [
    include_bytes!("../blit/blit-gfx900.co"),
    include_bytes!("../blit/blit-gfx906.co"),
    include_bytes!("../blit/blit-gfx908.co"),
    include_bytes!("../blit/blit-gfx90a.co"),
    include_bytes!("../blit/blit-gfx942.co"),
    include_bytes!("../blit/blit-gfx1030.co"),
    include_bytes!("../blit/blit-gfx1100.co"),
];

/// The blit code object for a processor, by its LLVM name (`gfx90a`), also
/// written as an ISA name with target features
/// (`amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`): the objects are built with
/// xnack and sramecc "any", so they serve every setting. `None` for a
/// processor without a committed object (the runtime then has no blit
/// kernels for that agent).
pub fn code_object_for(processor_name: &str) -> Option<&'static [u8]> {
    let name = processor_name
        .strip_prefix("amdgcn-amd-amdhsa--")
        .unwrap_or(processor_name);
    let name = name.split(':').next().unwrap_or(name);
    GPUS.iter()
        .position(|g| *g == name)
        .map(|i| CODE_OBJECTS[i])
}

/// One explicit kernel argument: where it lies in the kernarg segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelArg {
    /// The parameter's name in `blit.cl`.
    pub name: &'static str,
    /// Byte offset in the kernarg segment.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
}

const fn arg(name: &'static str, offset: u32, size: u32) -> KernelArg {
    KernelArg { name, offset, size }
}

/// `copy_aligned` and `copy_misaligned`: `(uchar *dst, const uchar *src,
/// ulong size, ulong workitems)`.
const COPY_ARGS: [KernelArg; 4] = [
    arg("dst", 0, 8),
    arg("src", 8, 8),
    arg("size", 16, 8),
    arg("workitems", 24, 8),
];

/// `fill`: `(uint *dst, uint value, ulong count, ulong workitems)`; 4 bytes
/// of padding after `value`.
const FILL_ARGS: [KernelArg; 4] = [
    arg("dst", 0, 8),
    arg("value", 8, 4),
    arg("count", 16, 8),
    arg("workitems", 24, 8),
];

/// A blit kernel of `blit.cl`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlitKernel {
    /// `copy_aligned(dst, src, size, workitems)`: a copy whose source and
    /// destination have the same address modulo 4; 16-byte units after a
    /// byte head that aligns the destination to 16, then a byte tail.
    CopyAligned,
    /// `copy_misaligned(dst, src, size, workitems)`: a copy of any
    /// alignment; dword stores, each assembled from two aligned source
    /// dwords, between a byte head and a byte tail.
    CopyMisaligned,
    /// `fill(dst, value, count, workitems)`: `count` dwords of `value` at a
    /// 4-byte aligned `dst`.
    Fill,
}

impl BlitKernel {
    /// Every blit kernel.
    pub const ALL: [BlitKernel; 3] = [Self::CopyAligned, Self::CopyMisaligned, Self::Fill];

    /// The kernel's name (`.name` in the code object metadata).
    pub const fn name(self) -> &'static str {
        match self {
            Self::CopyAligned => "copy_aligned",
            Self::CopyMisaligned => "copy_misaligned",
            Self::Fill => "fill",
        }
    }

    /// The kernel descriptor's symbol (`.symbol`, `<name>.kd`).
    pub const fn symbol(self) -> &'static str {
        match self {
            Self::CopyAligned => "copy_aligned.kd",
            Self::CopyMisaligned => "copy_misaligned.kd",
            Self::Fill => "fill.kd",
        }
    }

    /// The explicit arguments, in order.
    pub const fn args(self) -> &'static [KernelArg] {
        match self {
            Self::CopyAligned | Self::CopyMisaligned => &COPY_ARGS,
            Self::Fill => &FILL_ARGS,
        }
    }
}

impl fmt::Display for BlitKernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One blit dispatch: which kernel, its kernarg segment, the 1D grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlitPlan {
    /// The kernel to dispatch.
    pub kernel: BlitKernel,
    /// The whole kernarg segment ([`KERNARG_SIZE`] bytes, to be placed at a
    /// [`KERNARG_ALIGN`]-aligned address).
    pub kernarg: [u8; KERNARG_SIZE],
    /// `grid_size_x` in work-items: a multiple of `workgroup_size`, also
    /// passed to the kernel as `workitems`. Y and Z are 1.
    pub grid_size: u32,
    /// `workgroup_size_x`: always [`WORKGROUP_SIZE`]. Y and Z are 1.
    pub workgroup_size: u16,
}

/// The plan of a copy.
pub type CopyPlan = BlitPlan;
/// The plan of a fill.
pub type FillPlan = BlitPlan;

/// Why a blit cannot be planned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlitError {
    /// The copy or fill is larger than [`MAX_SIZE`] bytes.
    TooLarge {
        /// Bytes asked for.
        bytes: u128,
    },
    /// A range runs past the end of the address space.
    AddressOverflow {
        /// The range's start.
        address: u64,
        /// Its length in bytes.
        bytes: u64,
    },
    /// A null source or destination for a non-empty blit.
    NullAddress,
    /// The source and destination of a copy overlap (the kernels copy like
    /// `memcpy`, in no defined order).
    Overlap {
        /// Destination.
        dst: u64,
        /// Source.
        src: u64,
        /// Bytes.
        size: u64,
    },
    /// The destination of a fill is not 4-byte aligned.
    MisalignedFill {
        /// The destination.
        dst: u64,
    },
}

impl fmt::Display for BlitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::TooLarge { bytes } => {
                write!(f, "blit of {bytes} bytes is larger than 2^48 bytes")
            }
            Self::AddressOverflow { address, bytes } => write!(
                f,
                "range of {bytes} bytes at {address:#x} runs past the address space"
            ),
            Self::NullAddress => f.write_str("null address for a non-empty blit"),
            Self::Overlap { dst, src, size } => write!(
                f,
                "copy of {size} bytes from {src:#x} to {dst:#x}: the ranges overlap"
            ),
            Self::MisalignedFill { dst } => {
                write!(f, "fill destination {dst:#x} is not 4-byte aligned")
            }
        }
    }
}

impl core::error::Error for BlitError {}

/// The grid for `units` grid-stride iterations with at most `max_workitems`
/// work-items: one work-item per unit up to the limit, whole work-groups,
/// at least one work-group (the head and tail phases need 16 work-items).
fn grid_for(units: u64, max_workitems: u32) -> u32 {
    let wg = u64::from(WORKGROUP_SIZE);
    let cap = (u64::from(max_workitems) / wg).max(1) * wg;
    let want = units.div_ceil(wg).max(1) * wg;
    // cap <= 2^32 - 256, so the minimum fits (the fallback is never taken).
    u32::try_from(want.min(cap)).unwrap_or(u32::MAX - (u32::MAX % 256))
}

fn check_range(address: u64, bytes: u64) -> Result<(), BlitError> {
    if bytes > 0 && address == 0 {
        return Err(BlitError::NullAddress);
    }
    match address.checked_add(bytes) {
        Some(_) => Ok(()),
        None => Err(BlitError::AddressOverflow { address, bytes }),
    }
}

/// The kernarg segment: each value little-endian at its argument's offset,
/// truncated to the argument's size (the `fill` value is a u32).
fn kernarg(values: [u64; 4], args: &[KernelArg]) -> [u8; KERNARG_SIZE] {
    let mut k = [0u8; KERNARG_SIZE];
    for (value, a) in values.iter().zip(args) {
        let (off, size) = (a.offset as usize, a.size as usize);
        k[off..off + size].copy_from_slice(&value.to_le_bytes()[..size]);
    }
    k
}

/// Plans a copy of `size` bytes from `src` to `dst` on at most
/// `max_workitems` work-items (rounded down to whole work-groups, at least
/// one). Picks `copy_aligned` when `dst` and `src` agree modulo 4, else
/// `copy_misaligned`. The ranges must not overlap. A copy of 0 bytes is a
/// valid plan (one work-group that writes nothing).
pub fn plan_copy(dst: u64, src: u64, size: u64, max_workitems: u32) -> Result<CopyPlan, BlitError> {
    if size > MAX_SIZE {
        return Err(BlitError::TooLarge {
            bytes: u128::from(size),
        });
    }
    check_range(dst, size)?;
    check_range(src, size)?;
    // Both ranges end below 2^64 (checked): half-open intervals intersect.
    if size > 0 && dst < src + size && src < dst + size {
        return Err(BlitError::Overlap { dst, src, size });
    }
    let (kernel, units) = if (dst ^ src) & 3 == 0 {
        (BlitKernel::CopyAligned, size.div_ceil(16))
    } else {
        (BlitKernel::CopyMisaligned, size.div_ceil(4))
    };
    let grid_size = grid_for(units, max_workitems);
    let values = [dst, src, size, u64::from(grid_size)];
    Ok(BlitPlan {
        kernel,
        kernarg: kernarg(values, kernel.args()),
        grid_size,
        workgroup_size: WORKGROUP_SIZE,
    })
}

/// Plans a fill of `count` dwords of `value` at `dst` (4-byte aligned), as
/// `hsa_amd_memory_fill`, on at most `max_workitems` work-items (rounded
/// down to whole work-groups, at least one).
pub fn plan_fill(
    dst: u64,
    value: u32,
    count_dwords: u64,
    max_workitems: u32,
) -> Result<FillPlan, BlitError> {
    let bytes = u128::from(count_dwords) * 4;
    if bytes > u128::from(MAX_SIZE) {
        return Err(BlitError::TooLarge { bytes });
    }
    if dst & 3 != 0 {
        return Err(BlitError::MisalignedFill { dst });
    }
    // At most 2^48 (checked above).
    check_range(dst, count_dwords * 4)?;
    let kernel = BlitKernel::Fill;
    let grid_size = grid_for(count_dwords.div_ceil(4), max_workitems);
    let values = [dst, u64::from(value), count_dwords, u64::from(grid_size)];
    Ok(BlitPlan {
        kernel,
        kernarg: kernarg(values, kernel.args()),
        grid_size,
        workgroup_size: WORKGROUP_SIZE,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use loader_core::elf::ElfFile;
    use loader_core::metadata::{Metadata, ValueKind};

    fn u64_at(k: &[u8; KERNARG_SIZE], off: usize) -> u64 {
        let mut b = [0u8; 8];
        b.copy_from_slice(&k[off..off + 8]);
        u64::from_le_bytes(b)
    }

    #[test]
    fn copy_picks_the_kernel_by_the_residue_mod_4() {
        for d in 0..16u64 {
            for s in 0..16u64 {
                let p = plan_copy(0x10_0000 + d, 0x20_0000 + s, 100, 1 << 16).unwrap();
                let want = if d % 4 == s % 4 {
                    BlitKernel::CopyAligned
                } else {
                    BlitKernel::CopyMisaligned
                };
                assert_eq!(p.kernel, want, "dst+{d} src+{s}");
            }
        }
    }

    #[test]
    fn copy_kernarg_is_dst_src_size_workitems() {
        let p = plan_copy(0x7000_0001, 0x9000_0002, 12345, 4096).unwrap();
        assert_eq!(p.kernel, BlitKernel::CopyMisaligned);
        assert_eq!(u64_at(&p.kernarg, 0), 0x7000_0001);
        assert_eq!(u64_at(&p.kernarg, 8), 0x9000_0002);
        assert_eq!(u64_at(&p.kernarg, 16), 12345);
        assert_eq!(u64_at(&p.kernarg, 24), u64::from(p.grid_size));
        // 12345 bytes = 3087 dwords: 13 work-groups, capped at 16.
        assert_eq!(p.grid_size, 13 * 256);
        assert_eq!(p.workgroup_size, 256);
    }

    #[test]
    fn fill_kernarg_is_dst_value_count_workitems() {
        let p = plan_fill(0x5000_0004, 0xa1b2_c3d4, 1 << 40, 1 << 20).unwrap();
        assert_eq!(p.kernel, BlitKernel::Fill);
        assert_eq!(u64_at(&p.kernarg, 0), 0x5000_0004);
        assert_eq!(&p.kernarg[8..16], &[0xd4, 0xc3, 0xb2, 0xa1, 0, 0, 0, 0]);
        assert_eq!(u64_at(&p.kernarg, 16), 1 << 40);
        assert_eq!(p.grid_size, 1 << 20);
        assert_eq!(u64_at(&p.kernarg, 24), 1 << 20);
    }

    #[test]
    fn grid_is_whole_workgroups_bounded_and_at_least_one() {
        // Empty and tiny blits: one work-group.
        assert_eq!(
            plan_copy(0x1000, 0x2000, 0, 1 << 20).unwrap().grid_size,
            256
        );
        assert_eq!(
            plan_copy(0x1000, 0x2000, 1, 1 << 20).unwrap().grid_size,
            256
        );
        assert_eq!(plan_fill(0x1000, 0, 0, 1 << 20).unwrap().grid_size, 256);
        // One 16-byte unit per work-item: 4097 units need 17 work-groups.
        let p = plan_copy(0x1000, 0x10_0000, 4097 * 16, 1 << 20).unwrap();
        assert_eq!(p.grid_size, 17 * 256);
        // The limit is rounded down to whole work-groups, and never below one.
        assert_eq!(
            plan_copy(0x1000, 1 << 40, 1 << 30, 1000).unwrap().grid_size,
            768
        );
        assert_eq!(
            plan_copy(0x1000, 1 << 40, 1 << 30, 0).unwrap().grid_size,
            256
        );
        assert_eq!(
            plan_copy(0x1000, 1 << 40, 1 << 30, 255).unwrap().grid_size,
            256
        );
        let p = plan_copy(0x1000, 1 << 49, MAX_SIZE, u32::MAX).unwrap();
        assert_eq!(p.grid_size, u32::MAX - 255);
        assert_eq!(p.grid_size % 256, 0);
    }

    #[test]
    fn max_workitems_is_a_workgroup_per_cu() {
        assert_eq!(max_workitems_for(104), 104 * 256);
        assert_eq!(max_workitems_for(0), 256);
        assert_eq!(max_workitems_for(u32::MAX), u32::MAX - 255);
        let p = plan_copy(0x1000, 1 << 40, 1 << 30, max_workitems_for(110)).unwrap();
        assert_eq!(p.grid_size, 110 * 256);
    }

    #[test]
    fn bad_blits_are_typed_errors() {
        assert_eq!(
            plan_copy(0x1000, 1 << 50, MAX_SIZE + 1, 256),
            Err(BlitError::TooLarge {
                bytes: u128::from(MAX_SIZE + 1)
            })
        );
        assert_eq!(
            plan_fill(0x1000, 0, (MAX_SIZE / 4) + 1, 256),
            Err(BlitError::TooLarge {
                bytes: u128::from(MAX_SIZE + 4)
            })
        );
        assert!(plan_fill(0x1000, 0, u64::MAX, 256).is_err());
        assert_eq!(plan_copy(0, 0x1000, 1, 256), Err(BlitError::NullAddress));
        assert_eq!(plan_copy(0x1000, 0, 1, 256), Err(BlitError::NullAddress));
        assert!(plan_copy(0, 0, 0, 256).is_ok());
        assert_eq!(
            plan_copy(u64::MAX - 3, 0x1000, 8, 256),
            Err(BlitError::AddressOverflow {
                address: u64::MAX - 3,
                bytes: 8
            })
        );
        assert_eq!(
            plan_fill(0x1002, 0, 1, 256),
            Err(BlitError::MisalignedFill { dst: 0x1002 })
        );
        assert!(plan_fill(u64::MAX - 3, 0, 2, 256).is_err());
    }

    #[test]
    fn overlapping_copies_are_refused_adjacent_ones_are_not() {
        let o = |dst, src, size| plan_copy(dst, src, size, 256);
        assert!(matches!(
            o(0x1000, 0x1000, 1),
            Err(BlitError::Overlap { .. })
        ));
        assert!(matches!(
            o(0x1000, 0x1010, 0x11),
            Err(BlitError::Overlap { .. })
        ));
        assert!(matches!(
            o(0x1010, 0x1000, 0x11),
            Err(BlitError::Overlap { .. })
        ));
        assert!(o(0x1000, 0x1010, 0x10).is_ok());
        assert!(o(0x1010, 0x1000, 0x10).is_ok());
        assert!(o(0x1000, 0x1000, 0).is_ok());
    }

    #[test]
    fn code_object_for_takes_names_and_isa_names() {
        for g in GPUS {
            assert!(code_object_for(g).is_some(), "{g}");
        }
        assert_eq!(
            code_object_for("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"),
            code_object_for("gfx90a")
        );
        assert_eq!(code_object_for("gfx942:xnack+"), code_object_for("gfx942"));
        assert_ne!(code_object_for("gfx90a"), code_object_for("gfx942"));
        assert_eq!(code_object_for("gfx1031"), None);
        assert_eq!(code_object_for(""), None);
    }

    /// The committed objects say what this module says: their processor,
    /// the kernels, each explicit argument's offset and size, no hidden
    /// argument, the kernarg size and the required work-group size.
    #[test]
    fn descriptors_match_every_code_object() {
        for g in GPUS {
            let co = code_object_for(g).unwrap();
            let elf = ElfFile::parse(co).unwrap();
            let md = Metadata::from_elf(&elf).unwrap().unwrap();
            assert_eq!(
                md.target(),
                Some(format!("amdgcn-amd-amdhsa--{g}").as_str())
            );
            assert_eq!(md.kernel_count(), 3, "{g}");
            for k in BlitKernel::ALL {
                let mk = md.kernel(k.name()).unwrap().unwrap();
                assert_eq!(mk.symbol, k.symbol());
                assert_eq!(mk.kernarg_segment_size as usize, KERNARG_SIZE, "{g} {k}");
                assert_eq!(mk.kernarg_segment_align as usize, KERNARG_ALIGN, "{g} {k}");
                assert_eq!(mk.private_segment_fixed_size, 0, "{g} {k}");
                assert_eq!(mk.group_segment_fixed_size, 0, "{g} {k}");
                assert_eq!(mk.sgpr_spill_count, Some(0), "{g} {k}");
                assert_eq!(mk.vgpr_spill_count, Some(0), "{g} {k}");
                assert_eq!(mk.uses_dynamic_stack, Some(false), "{g} {k}");
                assert_eq!(
                    mk.reqd_workgroup_size,
                    Some([u32::from(WORKGROUP_SIZE), 1, 1]),
                    "{g} {k}"
                );
                let args: Vec<_> = mk.args().map(|a| a.unwrap()).collect();
                assert_eq!(args.len(), k.args().len(), "{g} {k}");
                for (a, d) in args.iter().zip(k.args()) {
                    assert!(!a.value_kind.is_hidden(), "{g} {k} {}", d.name);
                    assert_ne!(a.value_kind, ValueKind::DynamicSharedPointer);
                    assert_eq!((a.offset, a.size), (d.offset, d.size), "{g} {k} {}", d.name);
                }
            }
        }
    }
}
