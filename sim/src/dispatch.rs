//! The seam between the command processor and whatever executes kernels:
//! a [`ShaderCore`] receives one [`Dispatch`] per kernel-dispatch packet
//! that passed the hardware's checks, and returns `Ok` or a typed
//! [`ShaderFault`]. The interpreter (issue 10) implements it; tests install
//! stand-ins. With none installed, every dispatch fails with
//! [`ShaderFault::NoShaderCore`] through the queue's error path.
//!
//! Agent dispatch packets go to a registered [`AgentHandler`] likewise.

use std::fmt;
use std::sync::atomic::AtomicBool;

use crate::memory::{GpuMemory, MemoryFault};

/// The scratch fields of the queue's `amd_queue_t`, as the CP read them
/// for this dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QueueScratch {
    /// `scratch_backing_memory_location`.
    pub backing_memory_location: u64,
    /// `scratch_backing_memory_byte_size`.
    pub backing_memory_byte_size: u64,
    /// `scratch_wave64_lane_byte_size`.
    pub wave64_lane_byte_size: u32,
    /// `compute_tmpring_size`.
    pub compute_tmpring_size: u32,
    /// `scratch_resource_descriptor` (the scratch V#).
    pub resource_descriptor: [u32; 4],
}

/// The trap handler the client installed on the GPU with
/// `AMDKFD_IOC_SET_TRAP_HANDLER` (KFD's second-level handler: the code a
/// wave runs on `s_trap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrapHandler {
    /// Trap base address: the handler's first instruction.
    pub tba: u64,
    /// Trap memory address: the handler's data (handed to it in
    /// `ttmp[14:15]`).
    pub tma: u64,
}

/// The interrupt a wave raises with `s_sendmsg sendmsg(MSG_INTERRUPT)`:
/// the SQ's interrupt with the message data (`m0[23:0]`), which KFD
/// (`kfd_int_process_v9.c`) hands to `kfd_signal_event_interrupt` as a
/// partial event id.
#[derive(Clone, Copy)]
pub struct WaveInterrupt<'a>(pub &'a (dyn Fn(u32) + Sync));

impl fmt::Debug for WaveInterrupt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WaveInterrupt")
    }
}

/// One kernel dispatch, as the CP hands it to a shader core.
#[derive(Debug)]
pub struct Dispatch<'a> {
    /// The GPU (`gpu_id`).
    pub gpu_id: u32,
    /// The queue (`queue_id`).
    pub queue_id: u32,
    /// The packet id in the queue (the dispatch id the CP loads into the
    /// Dispatch Id SGPRs).
    pub packet_id: u64,
    /// GPU address of the AQL packet (the Dispatch Ptr SGPRs).
    pub packet_address: u64,
    /// GPU address of the queue's `amd_queue_t` (the Queue Ptr SGPRs), 0
    /// when the queue has none.
    pub queue_address: u64,
    /// Grid dimensions used (1-3).
    pub dimensions: u8,
    /// Workgroup size in work-items per dimension.
    pub workgroup_size: [u32; 3],
    /// Grid size in work-items per dimension.
    pub grid_size: [u32; 3],
    /// GPU address of the kernel descriptor.
    pub kernel_object: u64,
    /// The kernel descriptor's 64 bytes, as read by the CP.
    pub kernel_descriptor: [u8; 64],
    /// GPU address of the kernel arguments.
    pub kernarg_address: u64,
    /// Private bytes per work-item (packet).
    pub private_segment_size: u32,
    /// Group (LDS) bytes per workgroup (packet plus descriptor's fixed size).
    pub group_segment_size: u32,
    /// The queue's scratch.
    pub scratch: QueueScratch,
    /// The GPU's trap handler, if the client installed one (a TBA of 0 is
    /// none).
    pub trap_handler: Option<TrapHandler>,
    /// The queue's doorbell id, as `s_sendmsg sendmsg(MSG_GET_DOORBELL)`
    /// returns it (the doorbell's 64-bit slot in the process's doorbell
    /// page, 10 bits).
    pub doorbell_id: u32,
    /// The SPI sets up each wave's trap temporaries (the process enabled
    /// the runtime with `KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK`): on gfx9
    /// (not gfx94x) `ttmp6[24:0]` = the dispatch packet's index in the
    /// queue, `ttmp8..ttmp10` = the work-group id X/Y/Z, `ttmp11[5:0]` =
    /// the wave's position in its work-group (ROCdbgapi `architecture.cpp`,
    /// gfx9's `dispatch_packet_address`, `group_ids`,
    /// `position_in_group`; ROCr `trap_handler.s`'s first-to-second level
    /// ABI). Otherwise they start at 0.
    pub ttmp_setup: bool,
    /// The packet's index in the queue's ring: `packet_id` modulo the ring's
    /// packet count (what the SPI puts in `ttmp6[24:0]`).
    pub dispatch_packet_index: u32,
    /// Where a wave's `MSG_INTERRUPT` goes (none: dropped).
    pub interrupt: Option<WaveInterrupt<'a>>,
    /// Set when the queue is destroyed while the dispatch runs: amdkfd's
    /// `destroy_queue_cpsch` unmaps the queue from the hardware (the HIQ's
    /// `UNMAP_QUEUES`, a reset of its waves when they do not drain). A
    /// core stops the waves at their next branch and returns
    /// [`ShaderFault::Preempted`]; `None`: the dispatch cannot be preempted.
    pub preempt: Option<&'a AtomicBool>,
    /// The CUs the queue's CU mask enables, in mask-bit order (never
    /// empty: the CP does not launch a dispatch on a queue with none).
    pub compute_units: Vec<crate::cu::ComputeUnit>,
    /// The GPU's view of memory: every access of the kernel goes through it.
    pub memory: &'a GpuMemory,
}

/// Why a dispatch did not complete, as the hardware reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShaderFault {
    /// No shader core is installed in this device.
    NoShaderCore,
    /// A memory access faulted.
    Memory(MemoryFault),
    /// An instruction the ISA does not define (or the core does not know).
    IllegalInstruction {
        /// The mnemonic or the raw encoding as text.
        mnemonic: String,
        /// The kernel: its symbol name when the code object's image in GPU
        /// memory names it, else its kernel object address.
        kernel: String,
        /// Byte offset of the instruction from the kernel's entry.
        offset: u64,
    },
    /// `s_trap` (or a debug trap).
    Trap {
        /// The trap id.
        trap_id: u16,
        /// The kernel (as for `IllegalInstruction`).
        kernel: String,
        /// Byte offset of the instruction from the kernel's entry.
        offset: u64,
    },
    /// A wave aborted (`s_sethalt`-style fatal halt, watchdog).
    Abort(String),
    /// The queue was unmapped while the dispatch ran ([`Dispatch::preempt`]):
    /// its waves were stopped where they were and the packet never
    /// completes.
    Preempted,
    /// The trap handler halted a wave (it set `STATUS.HALT`): the handler
    /// has reported the error itself (the queue's inactive signal and its
    /// event), so the dispatch never completes and the queue stops.
    Halted {
        /// The kernel (as for `IllegalInstruction`).
        kernel: String,
        /// Byte offset of the instruction that trapped, from the kernel's entry.
        offset: u64,
    },
}

impl fmt::Display for ShaderFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoShaderCore => write!(f, "no shader core installed in the simulated GPU"),
            Self::Memory(m) => write!(f, "{m}"),
            Self::IllegalInstruction {
                mnemonic,
                kernel,
                offset,
            } => write!(
                f,
                "illegal instruction {mnemonic} in kernel {kernel} at +{offset:#x}"
            ),
            Self::Trap {
                trap_id,
                kernel,
                offset,
            } => write!(f, "s_trap {trap_id} in kernel {kernel} at +{offset:#x}"),
            Self::Abort(why) => write!(f, "wave aborted: {why}"),
            Self::Preempted => write!(f, "the queue was unmapped while the dispatch ran"),
            Self::Halted { kernel, offset } => write!(
                f,
                "wave halted by the trap handler in kernel {kernel} at +{offset:#x}"
            ),
        }
    }
}

impl std::error::Error for ShaderFault {}

/// What executes kernels.
pub trait ShaderCore: Send + Sync {
    /// Runs every workgroup of `dispatch`; returns when all have ended.
    fn dispatch(&self, dispatch: &Dispatch<'_>) -> Result<(), ShaderFault>;

    /// Turns instruction coverage on or off; false if the core keeps none.
    fn set_coverage(&self, on: bool) -> bool {
        let _ = on;
        false
    }

    /// The instructions executed while coverage was on (None if the core
    /// keeps no coverage).
    fn coverage(&self) -> Option<crate::Coverage> {
        None
    }
}

/// An agent dispatch packet, as the CP hands it to a handler.
#[derive(Debug)]
pub struct AgentCall<'a> {
    /// The GPU.
    pub gpu_id: u32,
    /// The function (`type`).
    pub function: u16,
    /// The arguments.
    pub args: [u64; 4],
    /// Where the result goes.
    pub return_address: u64,
    /// The GPU's view of memory.
    pub memory: &'a GpuMemory,
}

/// A handler for agent dispatch packets.
pub trait AgentHandler: Send + Sync {
    /// Runs the function; an error puts the queue in its error path.
    fn call(&self, call: &AgentCall<'_>) -> Result<(), ShaderFault>;
}
