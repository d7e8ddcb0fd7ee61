//! A software AMD GPU below the [`kfd`] seam.
//!
//! `sim` answers the KFD and DRM contract (ioctls, mmaps, what the firmware
//! does with a queue) so that the runtime's real KFD code path is the path
//! that runs without a GPU. It is hardware: it knows nothing of the runtime.
//!
//! - [`memory`]: GPU virtual memory as the device sees it, through one
//!   bounds-checked type ([`GpuMemory`], trait [`DeviceMemory`]).
#![deny(unsafe_code)]

pub mod memory;
pub mod topology;

pub use memory::{Access, AtomicOp, DeviceMemory, FaultReason, GpuMemory, MemoryFault};
