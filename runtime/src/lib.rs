//! The HSA runtime in Rust: what ROCr's `core/runtime` does, over the
//! `kfd` crate's `Kfd<D>`, so that the code that drives the software GPU
//! here is the code that drives a real AMD GPU.
//!
//! - [`system`]: `hsa_init`/`hsa_shut_down` ([`Runtime`]), system info;
//! - [`driver`]: the driver layer (ROCr's `core::Driver`) and the choice of
//!   device (`/dev/kfd`, else the software GPU);
//! - [`agent`]: CPU and GPU agents from the topology;
//! - [`info`]: the attributes of the system, agents, ISAs, pools and regions;
//! - [`memory`]: pools, allocation, access, copies;
//! - [`ipc`]: memory shared with another process;
//! - [`vmem`]: reserved address ranges, physical handles, mappings;
//! - [`signal`]: signals in GPU-visible memory (interrupt and default);
//! - [`events`]: KFD events, the event thread, async signal handlers;
//! - [`system_events`]: GPU memory faults to system event handlers;
//! - [`queue`]: AQL queues, scratch, queue errors;
//! - [`scratch`]: queue scratch sizing and the per-GPU scratch cache;
//! - [`executable`]: code objects loaded for an agent, symbols;
//! - [`rdebug`]: `_amdgpu_r_debug`, the loaded code objects for debuggers;
//! - [`dispatch`]: kernarg segments and kernel dispatch;
//! - [`kernarg`]: kernarg layouts from the metadata, every hidden argument;
//! - [`argspec`]: the `hsa run --arg` syntax;
//! - [`blit`]: the copy and fill kernels (OpenCL C, `runtime/blit/`);
//! - [`copy`]: async copies, `hsa_memory_copy`, fills, pointer info;
//! - [`sdma`]: the SDMA queue client;
//! - [`profiling`]: dispatch and async-copy timestamps in the system clock.
//!
//! The `hsa` binary (`src/bin/hsa`) is the project's command-line tool.
#![deny(unsafe_code)]

pub mod agent;
pub mod argspec;
pub mod blit;
pub mod coherency;
pub mod copy;
pub mod cu_mask_env;
pub mod dispatch;
pub mod driver;
pub mod events;
pub mod executable;
pub mod flags;
pub mod info;
pub mod ipc;
pub mod kernarg;
pub mod memory;
pub mod profiling;
pub mod queue;
pub mod rdebug;
pub mod scratch;
pub mod sdma;
pub mod signal;
pub mod status;
pub mod svm;
pub mod system;
pub mod system_events;
mod trace;
pub mod trap;
pub mod uri;
pub mod vmem;

pub use agent::{Agent, AgentRecord, DeviceType};
pub use copy::{CopyEngine, InitOptions, PointerInfo, PointerType};
pub use dispatch::{ArgValue, Completion, Geometry};
pub use events::{EventStats, MemoryFault};
pub use executable::{Executable, KernelSymbol};
pub use info::{InfoValue, Isa};
pub use memory::MemoryPool;
pub use queue::{Queue, QueueKind};
pub use signal::{Signal, SignalGroup, SignalKind};
pub use status::{Error, Result, Status};
pub use system::Runtime;
