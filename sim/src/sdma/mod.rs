//! The System DMA (SDMA) engine of the software GPU.
//!
//! ROCr moves memory with SDMA queues (`BlitSdma`,
//! `runtime/hsa-runtime/core/runtime/amd_blit_sdma.cpp`): for each copy or
//! fill it writes a run of SDMA packets to a byte ring, publishes the write
//! pointer and rings the doorbell. This module executes those packets, with
//! the formats of the amdgpu driver's SDMA v4 headers (gfx9).
//!
//! What ROCr's gfx9 blit emits (`BlitSdma<false, false>`, "BlitSdmaV4"), and
//! what this engine runs:
//!
//! | packet | ROCr's use | module |
//! |---|---|---|
//! | COPY_LINEAR | copies, split at `0x3fffe0` bytes | [`packet::CopyLinear`] |
//! | COPY_LINEAR with `broadcast` (gfx90a, gfx94x) | one source, two destinations | [`packet::CopyBroadcastLinear`] |
//! | COPY_LINEAR_SUBWIN | `hsa_amd_memory_async_copy_rect` | [`packet::CopyLinearSubwin`] |
//! | CONSTANT_FILL | `hsa_amd_memory_fill` (dword fill) | [`packet::ConstantFill`] |
//! | POLL_REGMEM (memory, `func` = equal) | wait for dependency signals | [`packet::PollRegmem`] |
//! | POLL_REGMEM (register, `func` = always) | HDP flush (`hdp_flush_cmd`) | [`packet::PollTarget`] |
//! | ATOMIC `TC_OP_ATOMIC_ADD_RTN_64` of -1 | decrement the completion signal | [`packet::Atomic`] |
//! | FENCE | event mailbox; signal without platform atomics | [`packet::Fence`] |
//! | TRAP | interrupt for an interrupt signal | [`packet::Trap`] |
//! | TIMESTAMP_GET_GLOBAL | profiling `start_ts` / `end_ts` | [`packet::Timestamp`] |
//! | NOP | padding (`(pad / 4 - 1) << 16`, zeroed ring tail) | [`packet::Nop`] |
//!
//! GCR (gfx10+), the gfx12.5 wait/signal copies and the 64-bit fence and
//! poll are not SDMA v4 packets; they, and the v4 packets ROCr does not use
//! (WRITE, INDIRECT, SEMAPHORE, COND_EXE, PTEPDE, SRBM_WRITE, tiled copies,
//! ...), decode to a typed [`error::PacketError::Unsupported`].
//!
//! - [`raw`]: the packets' dword layouts and bit fields;
//! - [`packet`]: typed packets, their checked decoding and their encoding;
//! - [`mem`]: the engine's view of device memory;
//! - [`engine`]: the ring walker and packet execution;
//! - [`error`]: typed errors.

pub mod engine;
pub mod error;
pub mod mem;
pub mod packet;
pub mod raw;

pub use engine::{Progress, RunState, SdmaEngine, SdmaHooks, SdmaQueue, SdmaRing, Wait};
pub use error::{PacketError, SdmaError};
pub use mem::{Access, FaultReason, FlatMemory, MemoryFault, SdmaMemory};
pub use packet::Packet;
