//! `hsa_kernel_dispatch_packet_t` (`hsa.h`, HSA Runtime 1.2 section 2.9.6).

use super::{SignalHandle, impl_aql_packet, reserved_zero};
use crate::error::{Axis, PacketError};
use crate::header::{KernelDispatchSetup, PacketHeader, PacketType};
use core::mem::{offset_of, size_of};

const C_NAME: &str = "hsa_kernel_dispatch_packet_t";

/// A kernel dispatch packet: launch `kernel_object` over a 1-3 dimensional
/// grid of work-items grouped in workgroups.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Default,
    zerocopy::FromBytes,
    zerocopy::IntoBytes,
    zerocopy::Immutable,
    zerocopy::KnownLayout,
)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(C)]
pub struct KernelDispatchPacket {
    /// Packet header (type `HSA_PACKET_TYPE_KERNEL_DISPATCH`).
    pub header: PacketHeader,
    /// Dispatch setup: the number of grid dimensions.
    pub setup: KernelDispatchSetup,
    /// Workgroup size in `x`, in work-items.
    pub workgroup_size_x: u16,
    /// Workgroup size in `y` (1 if unused).
    pub workgroup_size_y: u16,
    /// Workgroup size in `z` (1 if unused).
    pub workgroup_size_z: u16,
    /// Reserved, must be 0.
    pub reserved0: u16,
    /// Grid size in `x`, in work-items.
    pub grid_size_x: u32,
    /// Grid size in `y` (1 if unused).
    pub grid_size_y: u32,
    /// Grid size in `z` (1 if unused).
    pub grid_size_z: u32,
    /// Private (scratch) bytes per work-item.
    pub private_segment_size: u32,
    /// Group (LDS) bytes per workgroup.
    pub group_segment_size: u32,
    /// Address of the kernel object (for AMD, the kernel descriptor).
    pub kernel_object: u64,
    /// Address of the kernel arguments (`void*` in the large model).
    pub kernarg_address: u64,
    /// Reserved, must be 0.
    pub reserved2: u64,
    /// Signal decremented when the kernel completes (null for none).
    pub completion_signal: SignalHandle,
}

const _: () = {
    type P = KernelDispatchPacket;
    assert!(size_of::<P>() == 64);
    assert!(core::mem::align_of::<P>() == 8);
    assert!(offset_of!(P, header) == 0);
    assert!(offset_of!(P, setup) == 2);
    assert!(offset_of!(P, workgroup_size_x) == 4);
    assert!(offset_of!(P, workgroup_size_y) == 6);
    assert!(offset_of!(P, workgroup_size_z) == 8);
    assert!(offset_of!(P, reserved0) == 10);
    assert!(offset_of!(P, grid_size_x) == 12);
    assert!(offset_of!(P, grid_size_y) == 16);
    assert!(offset_of!(P, grid_size_z) == 20);
    assert!(offset_of!(P, private_segment_size) == 24);
    assert!(offset_of!(P, group_segment_size) == 28);
    assert!(offset_of!(P, kernel_object) == 32);
    assert!(offset_of!(P, kernarg_address) == 40);
    assert!(offset_of!(P, reserved2) == 48);
    assert!(offset_of!(P, completion_signal) == 56);
};

impl KernelDispatchPacket {
    /// A dispatch of `kernel_object` over `grid` work-items in workgroups of
    /// `workgroup` work-items; the number of dimensions is the number of
    /// leading entries of `grid` that are used (trailing 1s in both `grid`
    /// and `workgroup` count as unused, but at least one dimension is used).
    ///
    /// The header has no barrier and system-scope acquire and release fences,
    /// as `hsa_queue_*` users commonly write it; change it with
    /// [`PacketHeader`]'s builders.
    pub fn new(
        kernel_object: u64,
        kernarg_address: u64,
        grid: [u32; 3],
        workgroup: [u16; 3],
    ) -> Self {
        let dims = if grid[2] != 1 || workgroup[2] != 1 {
            3
        } else if grid[1] != 1 || workgroup[1] != 1 {
            2
        } else {
            1
        };
        Self {
            header: PacketHeader::with(
                PacketType::KernelDispatch,
                false,
                crate::FenceScope::System,
                crate::FenceScope::System,
            ),
            setup: KernelDispatchSetup::with_dimensions(dims),
            workgroup_size_x: workgroup[0],
            workgroup_size_y: workgroup[1],
            workgroup_size_z: workgroup[2],
            grid_size_x: grid[0],
            grid_size_y: grid[1],
            grid_size_z: grid[2],
            kernel_object,
            kernarg_address,
            ..Self::default()
        }
    }

    /// Workgroup sizes in `x`, `y`, `z`.
    pub const fn workgroup_size(&self) -> [u16; 3] {
        [
            self.workgroup_size_x,
            self.workgroup_size_y,
            self.workgroup_size_z,
        ]
    }

    /// Grid sizes in `x`, `y`, `z`.
    pub const fn grid_size(&self) -> [u32; 3] {
        [self.grid_size_x, self.grid_size_y, self.grid_size_z]
    }

    /// Number of workgroups in each dimension (partial workgroups count).
    pub fn workgroup_count(&self) -> [u32; 3] {
        let g = self.grid_size();
        let w = self.workgroup_size();
        core::array::from_fn(|i| g[i].div_ceil(u32::from(w[i]).max(1)))
    }

    /// Checks the packet as a packet processor must (HSA 1.2 section 2.9.6):
    /// the header, dimensions 1 to 3 with reserved setup bits clear,
    /// workgroup and grid sizes non-zero in used dimensions and 1 in unused
    /// ones, the grid at least one workgroup large, reserved fields zero.
    pub fn validate(&self) -> Result<(), PacketError> {
        self.header.validate_as(PacketType::KernelDispatch)?;
        let dims = usize::from(self.setup.dimensions()?);
        let wg = self.workgroup_size();
        let grid = self.grid_size();
        for (i, axis) in Axis::ALL.into_iter().enumerate() {
            if i < dims {
                if wg[i] == 0 {
                    return Err(PacketError::ZeroWorkgroupSize(axis));
                }
                if grid[i] == 0 {
                    return Err(PacketError::ZeroGridSize(axis));
                }
                if grid[i] < u32::from(wg[i]) {
                    return Err(PacketError::GridSmallerThanWorkgroup {
                        axis,
                        grid: grid[i],
                        workgroup: wg[i],
                    });
                }
            } else {
                if wg[i] != 1 {
                    return Err(PacketError::UnusedWorkgroupDimension { axis, size: wg[i] });
                }
                if grid[i] != 1 {
                    return Err(PacketError::UnusedGridDimension {
                        axis,
                        size: grid[i],
                    });
                }
            }
        }
        reserved_zero(self.reserved0, C_NAME, "reserved0")?;
        reserved_zero(self.reserved2, C_NAME, "reserved2")
    }
}

impl_aql_packet!(KernelDispatchPacket, PacketType::KernelDispatch);
