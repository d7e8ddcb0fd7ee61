//! The SDMA engine client, as ROCr's `BlitSdma` (`amd_blit_sdma.cpp`) on a
//! gfx9 dGPU: one KFD queue of type SDMA per GPU agent, its byte ring in
//! system memory (GTT), the 64-bit read and write pointers in host memory,
//! and a command per copy:
//!
//! 1. for every dependent signal, two `POLL_REGMEM` (memory, `func` =
//!    equal, reference 0, mask all ones, retry forever): first the high
//!    dword of the 64-bit signal value, then the low dword, as ROCr does.
//!    The engine polls 32-bit words, so the wait is "high half 0, then low
//!    half 0": exact for a value that only decreases to 0 (the way
//!    completion signals are used); a value that goes negative or jumps
//!    over 2^32 between the two polls can pass or stall differently from a
//!    64-bit compare, as on ROCr;
//! 2. `COPY_LINEAR` packets, split at [`MAX_COPY_BYTES`] (ROCr's
//!    `kMaxSize_`);
//! 3. an `ATOMIC` `TC_OP_ATOMIC_ADD_RTN_64` of -1 on the completion
//!    signal's value (`BuildAtomicDecrementCommand`); and when the signal
//!    carries an interrupt event (`event_mailbox_ptr` set), a `FENCE` that
//!    writes its event id to the mailbox, then a `TRAP` with that id.
//!
//! The ring pointers only grow (the position in the ring is the pointer
//! modulo the ring size); packets may straddle the ring's end (the engine
//! reads dwords modulo the ring). A command longer than the free space is
//! published in pieces: each piece is made visible (write pointer, then the
//! doorbell) when it is written, and the writer waits for the engine's read
//! pointer to free space for the next one.

#![allow(unsafe_code)]

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use kfd::QueueDesc;
use kfd::ioctl::{QueuePercentage, QueuePriority, QueueType};

use crate::driver::Mapped;
use crate::status::{Error, Result, Status};
use crate::system::Core;

/// Largest byte count of one `COPY_LINEAR` packet that ROCr emits
/// (`kMaxSize_ = 0x3fffe0`; the SDMA v4 count field holds up to 2^22).
pub const MAX_COPY_BYTES: u64 = 0x3f_ffe0;

/// Bytes of the ring (a power of two).
pub const RING_BYTES: u64 = 256 * 1024;

/// How long a writer waits for ring space before it reports the engine as
/// stuck: the engine waits for dependent signals without limit, so this
/// bounds only a submission, never a copy in flight.
const RING_SPACE_TIMEOUT: Duration = Duration::from_secs(600);

/// SDMA v4 opcodes (`vega10_sdma_pkt_open.h`).
mod op {
    pub const COPY: u32 = 1;
    pub const FENCE: u32 = 5;
    pub const TRAP: u32 = 6;
    pub const POLL_REGMEM: u32 = 8;
    pub const ATOMIC: u32 = 10;
    pub const TIMESTAMP: u32 = 13;
}

/// `SDMA_SUBOP_TIMESTAMP_GET_GLOBAL` (bits 15:8 of the header): the GPU
/// clock, what ROCr's `BuildGetGlobalTimestampCommand` emits.
const SUBOP_TIMESTAMP_GET_GLOBAL: u32 = 2;

/// `TC_OP_ATOMIC_ADD_RTN_64`: ROCr's `SDMA_ATOMIC_ADD64`.
const TC_OP_ATOMIC_ADD_RTN_64: u32 = 47;

const fn lo(a: u64) -> u32 {
    a as u32
}

const fn hi(a: u64) -> u32 {
    (a >> 32) as u32
}

/// `SDMA_PKT_COPY_LINEAR` of `bytes` (1..=2^22) from `src` to `dst`.
pub fn copy_linear(dst: u64, src: u64, bytes: u32) -> [u32; 7] {
    [
        op::COPY, // sub_op 0: linear
        (bytes - 1) & 0x3f_ffff,
        0,
        lo(src),
        hi(src),
        lo(dst),
        hi(dst),
    ]
}

/// `SDMA_PKT_POLL_REGMEM` on memory: wait until the dword at `addr` equals
/// `value` (mask all ones), polling every 4 cycles (ROCr's interval),
/// retrying forever (`retry_count` 0xfff).
pub fn poll_memory_equal(addr: u64, value: u32) -> [u32; 6] {
    let func_equal = 3u32;
    [
        op::POLL_REGMEM | (func_equal << 28) | (1 << 31),
        lo(addr),
        hi(addr),
        value,
        u32::MAX,
        4 | (0xfff << 16),
    ]
}

/// `SDMA_PKT_ATOMIC` adding -1 to the 64-bit word at `addr` (8-byte
/// aligned).
pub fn atomic_decrement(addr: u64) -> [u32; 8] {
    [
        op::ATOMIC | (TC_OP_ATOMIC_ADD_RTN_64 << 25),
        lo(addr),
        hi(addr),
        u32::MAX,
        u32::MAX,
        0,
        0,
        0,
    ]
}

/// `SDMA_PKT_FENCE`: write `data` to the dword at `addr`.
pub fn fence(addr: u64, data: u32) -> [u32; 4] {
    [op::FENCE, lo(addr), hi(addr), data]
}

/// `SDMA_PKT_TIMESTAMP_GET_GLOBAL`: write the GPU clock to the 64-bit word
/// at `addr` (8-byte aligned).
pub fn timestamp(addr: u64) -> [u32; 3] {
    [
        op::TIMESTAMP | (SUBOP_TIMESTAMP_GET_GLOBAL << 8),
        lo(addr),
        hi(addr),
    ]
}

/// `SDMA_PKT_TRAP` with the 28-bit interrupt context (the KFD event id).
pub fn trap(int_context: u32) -> [u32; 2] {
    [op::TRAP, int_context & 0x0fff_ffff]
}

/// The dwords of a copy command (see the module documentation): waits on
/// the dependent signals `deps` (their handles, the `amd_signal_t`
/// addresses), the copy in pieces, the completion signal's decrement and,
/// when `event` is `Some((mailbox, event_id))`, the event's fence and trap.
/// With `profile`, the copy is bracketed by GPU timestamps into the
/// completion signal's `start_ts` (+32) and `end_ts` (+40), the end written
/// before the decrement, as ROCr's `BlitSdma` does with profiling on.
pub fn copy_command(
    dst: u64,
    src: u64,
    size: u64,
    deps: &[u64],
    completion: u64,
    event: Option<(u64, u32)>,
    profile: bool,
) -> Vec<u32> {
    let pieces = size.div_ceil(MAX_COPY_BYTES) as usize;
    let mut out = Vec::with_capacity(deps.len() * 12 + pieces * 7 + 20);
    for &d in deps {
        let value = d + 8;
        out.extend_from_slice(&poll_memory_equal(value + 4, 0));
        out.extend_from_slice(&poll_memory_equal(value, 0));
    }
    if profile {
        out.extend_from_slice(&timestamp(completion + 32));
    }
    let mut done = 0;
    while done < size {
        let n = (size - done).min(MAX_COPY_BYTES);
        out.extend_from_slice(&copy_linear(dst + done, src + done, n as u32));
        done += n;
    }
    if profile {
        out.extend_from_slice(&timestamp(completion + 40));
    }
    out.extend_from_slice(&atomic_decrement(completion + 8));
    if let Some((mailbox, id)) = event {
        out.extend_from_slice(&fence(mailbox, id));
        out.extend_from_slice(&trap(id));
    }
    out
}

/// One SDMA queue: the ring, the pointers, the doorbell.
pub(crate) struct SdmaQueue {
    gpu_id: u32,
    queue_id: u32,
    ring_va: u64,
    /// The write pointer at +0, the read pointer at +8 (bytes).
    ptrs_va: u64,
    doorbell: Mapped,
    /// The write pointer as this writer knows it; the lock serialises
    /// writers.
    wptr: Mutex<u64>,
}

impl core::fmt::Debug for SdmaQueue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SdmaQueue")
            .field("gpu_id", &self.gpu_id)
            .field("queue_id", &self.queue_id)
            .finish_non_exhaustive()
    }
}

impl SdmaQueue {
    /// Creates an SDMA queue on GPU `gpu_id` (`AMDKFD_IOC_CREATE_QUEUE`
    /// with `KFD_IOC_QUEUE_TYPE_SDMA`; the driver picks the engine).
    pub(crate) fn create(core: &Core, gpu_id: u32) -> Result<Self> {
        let ring_va = core.allocate_system(RING_BYTES, false)?;
        let ptrs_va = match core.allocate_system(4096, true) {
            Ok(v) => v,
            Err(e) => {
                let _ = core.free(ring_va);
                return Err(e);
            }
        };
        let undo = || {
            let _ = core.free(ring_va);
            let _ = core.free(ptrs_va);
        };
        let desc = QueueDesc {
            gpu_id,
            queue_type: QueueType::Sdma,
            percentage: QueuePercentage::FULL,
            priority: QueuePriority::NORMAL,
            ring_base_address: ring_va,
            ring_size: RING_BYTES as u32,
            write_pointer_address: ptrs_va,
            read_pointer_address: ptrs_va + 8,
            eop_buffer_address: 0,
            eop_buffer_size: 0,
            ctx_save_restore_address: 0,
            ctx_save_restore_size: 0,
            ctl_stack_size: 0,
            sdma_engine_id: 0,
        };
        // SAFETY: the ring and the pointers are allocations of ours mapped
        // on every GPU, freed only after DESTROY_QUEUE (`destroy`).
        let info = match unsafe { core.driver.create_queue(&desc) } {
            Ok(i) => i,
            Err(e) => {
                undo();
                return Err(Error::new(
                    Status::OutOfResources,
                    format!("CREATE_QUEUE (SDMA) on GPU {gpu_id}: {e}"),
                ));
            }
        };
        let doorbell = match core.driver.map_doorbell(info.doorbell_offset, 8192) {
            Ok(d) => d,
            Err(e) => {
                let _ = core.driver.destroy_queue(info.queue_id);
                undo();
                return Err(Error::driver("SDMA doorbell mmap", e));
            }
        };
        Ok(Self {
            gpu_id,
            queue_id: info.queue_id,
            ring_va,
            ptrs_va,
            doorbell,
            wptr: Mutex::new(0),
        })
    }

    fn pointer(&self, offset: u64) -> &AtomicU64 {
        // SAFETY: `ptrs_va` is a live, CPU-mapped, 8-byte aligned
        // allocation of ours (freed in `destroy`, which takes `self`).
        unsafe { &*((self.ptrs_va + offset) as *const AtomicU64) }
    }

    fn read_pointer(&self) -> u64 {
        self.pointer(8).load(Ordering::Acquire)
    }

    /// Writes `dwords` to the ring and hands them to the engine: in pieces
    /// as space frees up, each piece published (write pointer, doorbell).
    pub(crate) fn submit(&self, dwords: &[u32]) -> Result<()> {
        let mut wptr = self.wptr.lock().unwrap_or_else(|p| p.into_inner());
        let mut rest = dwords;
        let mut waited_since: Option<Instant> = None;
        while !rest.is_empty() {
            let used = wptr.wrapping_sub(self.read_pointer());
            let free_dwords = ((RING_BYTES.saturating_sub(used)) / 4) as usize;
            if free_dwords == 0 {
                let since = *waited_since.get_or_insert_with(Instant::now);
                if since.elapsed() > RING_SPACE_TIMEOUT {
                    return Err(Error::new(
                        Status::Error,
                        format!(
                            "SDMA queue {} of GPU {}: the engine consumed nothing for {RING_SPACE_TIMEOUT:?}",
                            self.queue_id, self.gpu_id
                        ),
                    ));
                }
                std::thread::yield_now();
                continue;
            }
            waited_since = None;
            let n = free_dwords.min(rest.len());
            for (i, dw) in rest[..n].iter().enumerate() {
                let at = self.ring_va + ((*wptr + 4 * i as u64) & (RING_BYTES - 1));
                // SAFETY: inside our CPU-mapped ring; the engine does not
                // read past the published write pointer.
                unsafe { core::ptr::write_volatile(at as *mut u32, *dw) };
            }
            *wptr += 4 * n as u64;
            rest = &rest[n..];
            self.pointer(0).store(*wptr, Ordering::Release);
            // SAFETY: the doorbell register in our mapped doorbell page.
            unsafe {
                core::ptr::write_volatile(self.doorbell.as_ptr().cast::<u64>().as_ptr(), *wptr)
            };
        }
        Ok(())
    }

    /// `DESTROY_QUEUE`, then frees the ring and the pointers.
    pub(crate) fn destroy(self, core: &Core) {
        let _ = core.driver.destroy_queue(self.queue_id);
        drop(self.doorbell);
        let _ = core.free(self.ring_va);
        let _ = core.free(self.ptrs_va);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::sdma::packet::{
        Atomic, CopyLinear, Fence, Packet, PollFunction, PollRegmem, PollTarget, Trap,
    };

    // Our encoder against the software GPU's decoder (whose encodings
    // sim/tests/sdma_rocr_oracle.rs checks against the installed ROCr's
    // machine code).

    #[test]
    fn copy_linear_decodes_as_the_engine_reads_it() {
        let dw = copy_linear(0x7f00_1234_5679, 0x10_0000_0003, MAX_COPY_BYTES as u32);
        assert_eq!(
            Packet::decode(&dw).unwrap(),
            Packet::CopyLinear(CopyLinear {
                byte_count: MAX_COPY_BYTES as u32,
                src: 0x10_0000_0003,
                dst: 0x7f00_1234_5679,
            })
        );
        assert_eq!(
            Packet::decode(&copy_linear(8, 16, 1)).unwrap(),
            Packet::CopyLinear(CopyLinear {
                byte_count: 1,
                src: 16,
                dst: 8
            })
        );
    }

    #[test]
    fn poll_atomic_fence_trap_decode_as_rocr_builds_them() {
        assert_eq!(
            Packet::decode(&poll_memory_equal(0x1_0000_100c, 0)).unwrap(),
            Packet::PollRegmem(PollRegmem {
                target: PollTarget::Memory {
                    addr: 0x1_0000_100c
                },
                function: PollFunction::Equal,
                value: 0,
                mask: u32::MAX,
                interval: 4,
                retry_count: PollRegmem::RETRY_FOREVER,
            })
        );
        assert_eq!(
            Packet::decode(&atomic_decrement(0x2_0000_0008)).unwrap(),
            Packet::Atomic(Atomic::rocr_signal_decrement(0x2_0000_0008))
        );
        assert_eq!(
            Packet::decode(&fence(0x3000, 77)).unwrap(),
            Packet::Fence(Fence {
                addr: 0x3000,
                data: 77
            })
        );
        assert_eq!(
            Packet::decode(&trap(77)).unwrap(),
            Packet::Trap(Trap { int_context: 77 })
        );
    }

    #[test]
    fn a_command_waits_copies_in_pieces_and_decrements() {
        let size = 2 * MAX_COPY_BYTES + 5;
        let cmd = copy_command(0x10_0000, 0x90_0000, size, &[0x5000], 0x6000, None, false);
        let mut at = 0;
        let mut packets = Vec::new();
        while at < cmd.len() {
            let n = sim::sdma::packet::packet_dwords(cmd[at]).unwrap();
            packets.push(Packet::decode(&cmd[at..at + n]).unwrap());
            at += n;
        }
        let poll = |addr| {
            Packet::PollRegmem(PollRegmem {
                target: PollTarget::Memory { addr },
                function: PollFunction::Equal,
                value: 0,
                mask: u32::MAX,
                interval: 4,
                retry_count: PollRegmem::RETRY_FOREVER,
            })
        };
        let copy = |off: u64, n: u64| {
            Packet::CopyLinear(CopyLinear {
                byte_count: n as u32,
                src: 0x90_0000 + off,
                dst: 0x10_0000 + off,
            })
        };
        assert_eq!(
            packets,
            vec![
                poll(0x500c),
                poll(0x5008),
                copy(0, MAX_COPY_BYTES),
                copy(MAX_COPY_BYTES, MAX_COPY_BYTES),
                copy(2 * MAX_COPY_BYTES, 5),
                Packet::Atomic(Atomic::rocr_signal_decrement(0x6008)),
            ]
        );
        let with_event = copy_command(1, 2, 0, &[], 0x6000, Some((0x7000, 3)), false);
        assert_eq!(with_event.len(), 8 + 4 + 2);
    }

    #[test]
    fn a_profiled_command_brackets_the_copy_with_global_timestamps() {
        use sim::sdma::packet::Timestamp;
        let cmd = copy_command(0x10_0000, 0x90_0000, 64, &[], 0x6000, None, true);
        let mut at = 0;
        let mut packets = Vec::new();
        while at < cmd.len() {
            let n = sim::sdma::packet::packet_dwords(cmd[at]).unwrap();
            packets.push(Packet::decode(&cmd[at..at + n]).unwrap());
            at += n;
        }
        assert_eq!(
            packets,
            vec![
                Packet::Timestamp(Timestamp::GetGlobal { addr: 0x6020 }),
                Packet::CopyLinear(CopyLinear {
                    byte_count: 64,
                    src: 0x90_0000,
                    dst: 0x10_0000,
                }),
                Packet::Timestamp(Timestamp::GetGlobal { addr: 0x6028 }),
                Packet::Atomic(Atomic::rocr_signal_decrement(0x6008)),
            ]
        );
    }
}
