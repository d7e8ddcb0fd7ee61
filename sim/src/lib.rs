//! A software AMD GPU below the [`kfd`] seam.
//!
//! `sim` answers the KFD and DRM contract (ioctls, mmaps, what the firmware
//! does with a queue) so that the runtime's real KFD code path is the path
//! that runs without a GPU. It is hardware: it knows nothing of the runtime.
//!
//! - [`SimDevice`] implements [`kfd::KfdDevice`]: drive it with
//!   `kfd::Kfd::with_device(SimDevice::default())`.
//! - [`memory`]: GPU virtual memory as the device sees it, through one
//!   bounds-checked type ([`GpuMemory`], trait [`DeviceMemory`]).
//! - [`topology`]: the sysfs tree the `kfd` parser reads.
//! - [`dispatch`]: the seam a shader core plugs into.
//! - [`shader`]: the shader core, a GFX9 interpreter ([`Interpreter`]).
//! - `cp`: the command processor and SDMA engine threads.
//! - [`sdma`]: the SDMA packets ROCr's SDMA blit emits (formats of the
//!   amdgpu driver's SDMA v4 headers), their decoder, and the engine that
//!   executes a ring of them against device memory.
#![deny(unsafe_code)]

mod bulk;
mod cp;
pub mod cu;
mod device;
pub mod dispatch;
pub mod doorbell;
mod drm;
mod events;
pub mod memory;
pub mod sdma;
pub mod shader;
mod svm;
pub mod topology;
mod trace;

pub use cp::{MAX_SLEEP, QueueError, SPIN_WINDOW, code};
pub use device::{EnvError, GPU_CLOCK_HZ, RuntimeInfo, SimBuilder, SimDevice, SimRenderNode};
pub use dispatch::{
    AgentCall, AgentHandler, Dispatch, QueueScratch, ShaderCore, ShaderFault, TrapHandler,
    WaveInterrupt,
};
pub use memory::{
    Access, AtomicOp, DeviceMemory, FaultReason, GpuMemory, MemoryFault, SharedAtomic,
};
pub use shader::{Coverage, CoverageEntry, DecodeStats, Fidelity, Interpreter};
pub use topology::{Board, SimTopology, TopologyConfig};
