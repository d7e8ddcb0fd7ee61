//! The SDMA engine: executes the packets of one ring from the read pointer
//! to the write pointer, through [`SdmaMemory`].
//!
//! The ring is as on gfx9 SDMA queues that ROCr creates (`BlitSdma`,
//! `amd_blit_sdma.cpp`): a power-of-two byte ring at a GPU virtual address,
//! and 64-bit byte read and write pointers that only grow (the position in
//! the ring is the pointer modulo the ring size). The client publishes the
//! write pointer (ROCr: `*queue_wptr_ = new_index`, then the doorbell) and
//! reads the read pointer back to reuse ring space (`CanWriteUpto`).
//!
//! The step API never blocks: [`SdmaEngine::run`] executes at most a given
//! number of packets and returns [`Progress`]: idle (read pointer reached
//! the write pointer), yielded (budget spent), or waiting (a POLL_REGMEM
//! whose condition does not hold yet, a looping compare-and-swap that
//! failed, or a packet the client has not finished publishing). The owner
//! thread comes back later; a waiting packet is re-evaluated first.
//!
//! Faults stop the queue: [`SdmaError`] names the packet's read pointer,
//! and the engine's read pointer stays on it. Every range a packet touches
//! is checked before the packet writes anything.

use super::error::{PacketError, QueuePointer, SdmaError};
use super::mem::{Access, MemoryFault, SdmaMemory};
use super::packet::{
    Atomic, AtomicOp, AtomicSize, ConstantFill, CopyLinearSubwin, Packet, PollRegmem, PollTarget,
    Timestamp, packet_dwords,
};
use super::raw::{MAX_PACKET_DWORDS, SDMA_OP_NOP, SDMA_PKT_HEADER_OP};

/// What the engine needs from the device besides memory.
pub trait SdmaHooks {
    /// The GPU clock counter (what `GET_CLOCK_COUNTERS` reports as the GPU
    /// clock), written by `TIMESTAMP_GET_GLOBAL`.
    fn gpu_clock(&mut self) -> u64;

    /// A TRAP packet executed: raise the SDMA interrupt with `int_context`
    /// (the device fires the KFD event whose id it carries).
    fn trap(&mut self, int_context: u32);
}

/// A ring: base address and power-of-two size in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SdmaRing {
    base: u64,
    size: u64,
}

/// Why a ring description was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RingError {
    /// The size is not a power of two of at least 256 bytes.
    Size(u64),
    /// The base is not dword aligned.
    Base(u64),
    /// The ring wraps the address space.
    Overflow,
}

impl core::fmt::Display for RingError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Size(s) => write!(f, "SDMA ring size {s:#x} is not a power of two >= 256"),
            Self::Base(b) => write!(f, "SDMA ring base {b:#x} is not dword aligned"),
            Self::Overflow => write!(f, "SDMA ring wraps the address space"),
        }
    }
}

impl std::error::Error for RingError {}

impl SdmaRing {
    /// A ring of `size` bytes at `base`.
    pub fn new(base: u64, size: u64) -> Result<Self, RingError> {
        if !size.is_power_of_two() || size < 256 {
            return Err(RingError::Size(size));
        }
        if base % 4 != 0 {
            return Err(RingError::Base(base));
        }
        base.checked_add(size).ok_or(RingError::Overflow)?;
        Ok(Self { base, size })
    }

    /// The ring's base address.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The ring's size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The address of the byte at pointer `ptr`.
    pub fn addr(&self, ptr: u64) -> u64 {
        self.base + (ptr & (self.size - 1))
    }
}

/// Why the engine stopped before the write pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// A POLL_REGMEM whose condition does not hold yet.
    Poll {
        /// The polled address.
        addr: u64,
        /// The packet's `interval`: how long the engine would wait before
        /// polling again.
        interval: u16,
    },
    /// A looping compare-and-swap whose compare failed.
    AtomicLoop {
        /// The atomic's address.
        addr: u64,
        /// The packet's `loop_interval`.
        interval: u16,
    },
    /// The write pointer ends inside the packet: the client has not
    /// published all of it.
    IncompletePacket {
        /// The packet's length in bytes.
        needed: u64,
        /// Bytes published from its start.
        available: u64,
    },
}

/// Where [`SdmaEngine::run`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunState {
    /// The read pointer reached the write pointer.
    Idle,
    /// The packet budget is spent; packets remain.
    Yielded,
    /// The packet at the read pointer cannot complete yet.
    Waiting(Wait),
}

/// What one [`SdmaEngine::run`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Packets executed (NOPs included).
    pub executed: u32,
    /// The read pointer after them.
    pub rptr: u64,
    /// Why it stopped.
    pub state: RunState,
}

/// Evaluations left of the POLL_REGMEM at a read pointer.
#[derive(Clone, Copy, Debug)]
struct PendingPoll {
    rptr: u64,
    evaluations_left: u32,
}

/// One SDMA queue's engine state: the ring, the read pointer, the local
/// timestamp counter and a waiting poll's retries.
#[derive(Debug)]
pub struct SdmaEngine {
    ring: SdmaRing,
    rptr: u64,
    /// `local = gpu_clock + local_offset` (TIMESTAMP_SET / TIMESTAMP_GET).
    local_offset: u64,
    pending: Option<PendingPoll>,
}

/// COPY_LINEAR packets executed but whose bytes have not moved yet: one
/// bulk copy of non-overlapping ranges, starting with the packet at `rptr`.
#[derive(Clone, Copy, Debug)]
struct DeferredCopy {
    rptr: u64,
    src: u64,
    dst: u64,
    len: u64,
}

/// Whether `[src, src + len)` and `[dst, dst + len)` share a byte.
fn overlap(src: u64, dst: u64, len: u64) -> bool {
    src.abs_diff(dst) < len
}

/// A packet finished, or must be tried again later.
enum Outcome {
    Done,
    Wait(Wait),
}

impl SdmaEngine {
    /// An engine for `ring` whose read pointer starts at `rptr`.
    pub fn new(ring: SdmaRing, rptr: u64) -> Self {
        Self {
            ring,
            rptr,
            local_offset: 0,
            pending: None,
        }
    }

    /// The ring.
    pub fn ring(&self) -> SdmaRing {
        self.ring
    }

    /// The read pointer: the byte index of the next packet.
    pub fn rptr(&self) -> u64 {
        self.rptr
    }

    /// Executes packets from the read pointer towards `wptr`, at most
    /// `max_packets` of them.
    ///
    /// Consecutive COPY_LINEAR packets that continue one another (each
    /// source and destination starting where the previous ones ended, as
    /// ROCr splits one copy at `kMaxSize_`) and whose combined ranges do not
    /// overlap are moved as one bulk copy when the run ends or another
    /// packet needs memory: the result is the same, and a large copy moves
    /// at `memcpy` speed rather than in 4 MiB pieces. Each packet's ranges
    /// are still checked before any of them is copied.
    pub fn run<M, H>(
        &mut self,
        mem: &M,
        hooks: &mut H,
        wptr: u64,
        max_packets: u32,
    ) -> Result<Progress, SdmaError>
    where
        M: SdmaMemory + ?Sized,
        H: SdmaHooks + ?Sized,
    {
        if wptr % 4 != 0 || wptr.wrapping_sub(self.rptr) > self.ring.size {
            return Err(SdmaError::BadWritePointer {
                rptr: self.rptr,
                wptr,
            });
        }
        let mut deferred = None;
        let result = self.run_packets(mem, hooks, wptr, max_packets, &mut deferred);
        // The deferred copy precedes whatever stopped the run.
        self.flush(mem, &mut deferred)?;
        result
    }

    fn run_packets<M, H>(
        &mut self,
        mem: &M,
        hooks: &mut H,
        wptr: u64,
        max_packets: u32,
        deferred: &mut Option<DeferredCopy>,
    ) -> Result<Progress, SdmaError>
    where
        M: SdmaMemory + ?Sized,
        H: SdmaHooks + ?Sized,
    {
        let mut executed = 0u32;
        let mut buf = [0u32; MAX_PACKET_DWORDS];
        loop {
            let progress = |executed, rptr, state| Progress {
                executed,
                rptr,
                state,
            };
            if self.rptr == wptr {
                return Ok(progress(executed, self.rptr, RunState::Idle));
            }
            if executed >= max_packets {
                return Ok(progress(executed, self.rptr, RunState::Yielded));
            }
            let offset = self.rptr;
            let ring_fault = |fault| SdmaError::Memory {
                offset,
                packet: "ring",
                fault,
            };
            self.read_dwords(mem, offset, &mut buf[..1])
                .map_err(ring_fault)?;
            let dwords =
                packet_dwords(buf[0]).map_err(|error| SdmaError::Packet { offset, error })?;
            let bytes = dwords as u64 * 4;
            if bytes > self.ring.size {
                return Err(SdmaError::PacketLongerThanRing { offset, bytes });
            }
            let available = wptr.wrapping_sub(offset);
            if bytes > available {
                return Ok(progress(
                    executed,
                    offset,
                    RunState::Waiting(Wait::IncompletePacket {
                        needed: bytes,
                        available,
                    }),
                ));
            }
            let outcome = if SDMA_PKT_HEADER_OP.get(buf[0]) as u8 == SDMA_OP_NOP {
                // The padding is skipped unread; it touches no memory.
                Outcome::Done
            } else {
                self.read_dwords(mem, offset.wrapping_add(4), &mut buf[1..dwords])
                    .map_err(ring_fault)?;
                let packet = Packet::decode(&buf[..dwords])
                    .map_err(|error| SdmaError::Packet { offset, error })?;
                self.execute(mem, hooks, offset, &packet, deferred)?
            };
            match outcome {
                Outcome::Done => {
                    self.pending = None;
                    self.rptr = offset.wrapping_add(bytes);
                    executed += 1;
                }
                Outcome::Wait(w) => {
                    return Ok(progress(executed, offset, RunState::Waiting(w)));
                }
            }
        }
    }

    /// A COPY_LINEAR at `offset`: checked now, copied now or joined to the
    /// deferred copy it continues.
    fn copy_linear<M: SdmaMemory + ?Sized>(
        &mut self,
        mem: &M,
        offset: u64,
        src: u64,
        dst: u64,
        len: u64,
        deferred: &mut Option<DeferredCopy>,
    ) -> Result<(), SdmaError> {
        let fault = |fault| SdmaError::Memory {
            offset,
            packet: "COPY_LINEAR",
            fault,
        };
        mem.check(src, len, Access::Read).map_err(fault)?;
        mem.check(dst, len, Access::Write).map_err(fault)?;
        if let Some(d) = deferred {
            let continues = d.src.checked_add(d.len) == Some(src)
                && d.dst.checked_add(d.len) == Some(dst)
                && !overlap(d.src, d.dst, d.len.saturating_add(len));
            if continues {
                d.len += len;
                return Ok(());
            }
        }
        self.flush(mem, deferred)?;
        if overlap(src, dst, len) {
            forward_copy(mem, src, dst, len).map_err(fault)
        } else {
            *deferred = Some(DeferredCopy {
                rptr: offset,
                src,
                dst,
                len,
            });
            Ok(())
        }
    }

    /// Performs the deferred copy. Its ranges were checked; should the
    /// memory still fault (a mapping removed meanwhile), the read pointer
    /// goes back to its first packet.
    fn flush<M: SdmaMemory + ?Sized>(
        &mut self,
        mem: &M,
        deferred: &mut Option<DeferredCopy>,
    ) -> Result<(), SdmaError> {
        let Some(d) = deferred.take() else {
            return Ok(());
        };
        mem.copy(d.src, d.dst, d.len).map_err(|fault| {
            self.rptr = d.rptr;
            SdmaError::Memory {
                offset: d.rptr,
                packet: "COPY_LINEAR",
                fault,
            }
        })
    }

    /// Reads `out.len()` dwords of the ring from pointer `ptr`, wrapping.
    fn read_dwords<M: SdmaMemory + ?Sized>(
        &self,
        mem: &M,
        ptr: u64,
        out: &mut [u32],
    ) -> Result<(), MemoryFault> {
        let mut bytes = [0u8; MAX_PACKET_DWORDS * 4];
        let total = out.len() * 4;
        let start = ptr & (self.ring.size - 1);
        let first = (self.ring.size - start).min(total as u64) as usize;
        mem.read_bytes(self.ring.base + start, &mut bytes[..first])?;
        if first < total {
            mem.read_bytes(self.ring.base, &mut bytes[first..total])?;
        }
        for (d, b) in out.iter_mut().zip(bytes.chunks_exact(4)) {
            *d = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        Ok(())
    }

    fn execute<M, H>(
        &mut self,
        mem: &M,
        hooks: &mut H,
        offset: u64,
        packet: &Packet,
        deferred: &mut Option<DeferredCopy>,
    ) -> Result<Outcome, SdmaError>
    where
        M: SdmaMemory + ?Sized,
        H: SdmaHooks + ?Sized,
    {
        let name = packet.name();
        // A deferred copy precedes every packet but the COPY_LINEAR that
        // may continue it.
        if !matches!(packet, Packet::CopyLinear(_)) {
            self.flush(mem, deferred)?;
        }
        let fault = |fault| SdmaError::Memory {
            offset,
            packet: name,
            fault,
        };
        match *packet {
            Packet::Nop(_) => Ok(Outcome::Done),
            Packet::CopyLinear(c) => {
                self.copy_linear(mem, offset, c.src, c.dst, c.byte_count.into(), deferred)?;
                Ok(Outcome::Done)
            }
            Packet::CopyBroadcastLinear(c) => {
                let len = u64::from(c.byte_count);
                mem.check(c.src, len, Access::Read).map_err(fault)?;
                mem.check(c.dst1, len, Access::Write).map_err(fault)?;
                mem.check(c.dst2, len, Access::Write).map_err(fault)?;
                forward_copy(mem, c.src, c.dst1, len).map_err(fault)?;
                forward_copy(mem, c.src, c.dst2, len).map_err(fault)?;
                Ok(Outcome::Done)
            }
            Packet::CopyLinearSubwin(c) => {
                subwin_copy(mem, &c).map_err(|e| match e {
                    SubwinError::Fault(f) => fault(f),
                    SubwinError::Overflow(field) => SdmaError::Packet {
                        offset,
                        error: PacketError::Field {
                            packet: name,
                            field,
                            value: 0,
                            reason: "the window's addresses overflow 64 bits",
                        },
                    },
                })?;
                Ok(Outcome::Done)
            }
            Packet::Fence(f) => {
                mem.check(f.addr, 4, Access::Write).map_err(fault)?;
                mem.store_u32(f.addr, f.data).map_err(fault)?;
                Ok(Outcome::Done)
            }
            Packet::Trap(t) => {
                hooks.trap(t.int_context);
                Ok(Outcome::Done)
            }
            Packet::PollRegmem(p) => self.poll(mem, offset, &p).map_err(|e| match e {
                PollError::Fault(f) => fault(f),
                PollError::Timeout(addr) => SdmaError::PollTimeout { offset, addr },
            }),
            Packet::Atomic(a) => atomic(mem, &a).map_err(fault),
            Packet::ConstantFill(c) => {
                constant_fill(mem, &c).map_err(fault)?;
                Ok(Outcome::Done)
            }
            Packet::Timestamp(t) => {
                match t {
                    Timestamp::Set { value } => {
                        self.local_offset = value.wrapping_sub(hooks.gpu_clock());
                    }
                    Timestamp::GetLocal { addr } => {
                        mem.check(addr, 8, Access::Write).map_err(fault)?;
                        let local = hooks.gpu_clock().wrapping_add(self.local_offset);
                        mem.store_u64(addr, local).map_err(fault)?;
                    }
                    Timestamp::GetGlobal { addr } => {
                        mem.check(addr, 8, Access::Write).map_err(fault)?;
                        mem.store_u64(addr, hooks.gpu_clock()).map_err(fault)?;
                    }
                }
                Ok(Outcome::Done)
            }
        }
    }

    fn poll<M: SdmaMemory + ?Sized>(
        &mut self,
        mem: &M,
        offset: u64,
        p: &PollRegmem,
    ) -> Result<Outcome, PollError> {
        let addr = match p.target {
            PollTarget::HdpFlush | PollTarget::RegisterAlways { .. } => return Ok(Outcome::Done),
            PollTarget::Memory { addr } => addr,
        };
        mem.check(addr, 4, Access::Read).map_err(PollError::Fault)?;
        let polled = mem.load_u32(addr).map_err(PollError::Fault)?;
        if p.function.holds(polled, p.mask, p.value) {
            return Ok(Outcome::Done);
        }
        if p.retry_count != PollRegmem::RETRY_FOREVER {
            // Evaluations left, this one included: the first poll and
            // `retry_count` retries.
            let left = match self.pending {
                Some(pending) if pending.rptr == offset => pending.evaluations_left,
                _ => u32::from(p.retry_count) + 1,
            };
            if left <= 1 {
                self.pending = None;
                return Err(PollError::Timeout(addr));
            }
            self.pending = Some(PendingPoll {
                rptr: offset,
                evaluations_left: left - 1,
            });
        }
        Ok(Outcome::Wait(Wait::Poll {
            addr,
            interval: p.interval,
        }))
    }
}

enum PollError {
    Fault(MemoryFault),
    Timeout(u64),
}

/// Copies `len` bytes from `src` to `dst` in ascending address order, as a
/// DMA engine streams them: byte `i` of the destination gets what byte `i`
/// of the source holds when the engine reads it. For ranges that do not
/// overlap, or a destination below the source, that is `memmove`, done as
/// one bulk copy. For a destination above an overlapping source, the bytes
/// already written are read again: the first `dst - src` source bytes
/// repeat through the destination. That case moves in chunks that double
/// (each reads bytes whose final value is already in place), so it stays
/// `O(log len)` bulk copies.
pub fn forward_copy<M: SdmaMemory + ?Sized>(
    mem: &M,
    src: u64,
    dst: u64,
    len: u64,
) -> Result<(), MemoryFault> {
    let period = dst.wrapping_sub(src);
    if dst <= src || period >= len {
        return mem.copy(src, dst, len);
    }
    // Invariant: bytes src + j for j < period + done hold P[j % period],
    // P being the first `period` source bytes, and dst = src + period.
    let mut done = 0u64;
    while done < len {
        let phase = done % period;
        let n = (len - done).min(period + done - phase);
        // Reads [src + phase, +n) and writes [dst + done, +n): disjoint,
        // since src + phase + n <= src + period + done = dst + done.
        mem.copy(src + phase, dst + done, n)?;
        done += n;
    }
    Ok(())
}

enum SubwinError {
    Fault(MemoryFault),
    Overflow(&'static str),
}

/// The address of element `(x, y, z)` of a sub-window surface.
fn subwin_addr(s: &super::packet::SubwinSurface, e: u64, dx: u64, dy: u64, dz: u64) -> Option<u64> {
    let x = u64::from(s.x).checked_add(dx)?;
    let y = u64::from(s.y).checked_add(dy)?;
    let z = u64::from(s.z).checked_add(dz)?;
    let elements = z
        .checked_mul(s.slice_pitch.into())?
        .checked_add(y.checked_mul(s.pitch.into())?)?
        .checked_add(x)?;
    s.addr.checked_add(elements.checked_mul(e)?)
}

fn subwin_copy<M: SdmaMemory + ?Sized>(mem: &M, c: &CopyLinearSubwin) -> Result<(), SubwinError> {
    let e = c.element_size();
    let row = u64::from(c.rect[0]) * e;
    let rows = || {
        (0..u64::from(c.rect[2])).flat_map(move |z| (0..u64::from(c.rect[1])).map(move |y| (y, z)))
    };
    // Check every row of both windows before writing any.
    for (y, z) in rows() {
        let s = subwin_addr(&c.src, e, 0, y, z).ok_or(SubwinError::Overflow("src_addr"))?;
        let d = subwin_addr(&c.dst, e, 0, y, z).ok_or(SubwinError::Overflow("dst_addr"))?;
        mem.check(s, row, Access::Read)
            .map_err(SubwinError::Fault)?;
        mem.check(d, row, Access::Write)
            .map_err(SubwinError::Fault)?;
    }
    for (y, z) in rows() {
        // Checked above.
        let s = subwin_addr(&c.src, e, 0, y, z).ok_or(SubwinError::Overflow("src_addr"))?;
        let d = subwin_addr(&c.dst, e, 0, y, z).ok_or(SubwinError::Overflow("dst_addr"))?;
        forward_copy(mem, s, d, row).map_err(SubwinError::Fault)?;
    }
    Ok(())
}

fn constant_fill<M: SdmaMemory + ?Sized>(mem: &M, c: &ConstantFill) -> Result<(), MemoryFault> {
    let size = c.fill_size.bytes();
    let elements = c.elements();
    mem.check(c.dst, elements * size, Access::Write)?;
    let pattern = c.data.to_le_bytes();
    mem.fill(c.dst, &pattern[..size as usize], elements)
}

/// The value an atomic stores over `old`, or `None` to store nothing (a
/// compare-and-swap whose compare failed).
fn atomic_result(op: AtomicOp, size: AtomicSize, old: u64, src: u64, cmp: u64) -> Option<u64> {
    use crate::memory::AtomicOp as Op;
    let bits = match size {
        AtomicSize::U32 => 32,
        AtomicSize::U64 => 64,
    };
    let op = match op {
        AtomicOp::CmpSwap => return (old == cmp).then_some(src & (u64::MAX >> (64 - bits))),
        AtomicOp::Swap => Op::Swap,
        AtomicOp::Add => Op::Add,
        AtomicOp::Sub => Op::Sub,
        AtomicOp::SMin => Op::SMin,
        AtomicOp::UMin => Op::UMin,
        AtomicOp::SMax => Op::SMax,
        AtomicOp::UMax => Op::UMax,
        AtomicOp::And => Op::And,
        AtomicOp::Or => Op::Or,
        AtomicOp::Xor => Op::Xor,
        AtomicOp::Inc => Op::Inc,
        AtomicOp::Dec => Op::Dec,
    };
    Some(op.apply(old, src, bits))
}

fn atomic<M: SdmaMemory + ?Sized>(mem: &M, a: &Atomic) -> Result<Outcome, MemoryFault> {
    let width = match a.size {
        AtomicSize::U32 => 4,
        AtomicSize::U64 => 8,
    };
    mem.check(a.addr, width, Access::Write)?;
    let load = |addr| match a.size {
        AtomicSize::U32 => mem.load_u32(addr).map(u64::from),
        AtomicSize::U64 => mem.load_u64(addr),
    };
    let mut old = load(a.addr)?;
    loop {
        let Some(new) = atomic_result(a.op, a.size, old, a.src_data, a.cmp_data) else {
            return Ok(if a.loop_until_success {
                Outcome::Wait(Wait::AtomicLoop {
                    addr: a.addr,
                    interval: a.loop_interval,
                })
            } else {
                Outcome::Done
            });
        };
        let swapped = match a.size {
            AtomicSize::U32 => mem
                .compare_exchange_u32(a.addr, old as u32, new as u32)?
                .map(u64::from)
                .map_err(u64::from),
            AtomicSize::U64 => mem.compare_exchange_u64(a.addr, old, new)?,
        };
        match swapped {
            Ok(_) => return Ok(Outcome::Done),
            // Another agent changed the word: recompute from what it holds.
            Err(actual) => old = actual,
        }
    }
}

/// An SDMA queue whose read and write pointers live in memory, as KFD
/// creates them for ROCr (`queue_resource_.Queue_read_ptr` /
/// `Queue_write_ptr`: 64-bit byte indices).
#[derive(Debug)]
pub struct SdmaQueue {
    engine: SdmaEngine,
    rptr_addr: u64,
    wptr_addr: u64,
}

impl SdmaQueue {
    /// A queue over `ring`, with its read pointer at `rptr_addr` (written
    /// by the engine) and its write pointer at `wptr_addr` (written by the
    /// client). The engine starts at the read pointer found in memory.
    pub fn new<M: SdmaMemory + ?Sized>(
        mem: &M,
        ring: SdmaRing,
        rptr_addr: u64,
        wptr_addr: u64,
    ) -> Result<Self, SdmaError> {
        let rptr = mem
            .load_u64(rptr_addr)
            .map_err(|fault| SdmaError::QueuePointer {
                which: QueuePointer::Read,
                fault,
            })?;
        Ok(Self {
            engine: SdmaEngine::new(ring, rptr),
            rptr_addr,
            wptr_addr,
        })
    }

    /// The engine.
    pub fn engine(&self) -> &SdmaEngine {
        &self.engine
    }

    /// Reads the write pointer (acquire: the packets before it are
    /// visible), runs at most `max_packets`, and publishes the read pointer
    /// (release), also when a packet faulted (it then points at that
    /// packet).
    pub fn process<M, H>(
        &mut self,
        mem: &M,
        hooks: &mut H,
        max_packets: u32,
    ) -> Result<Progress, SdmaError>
    where
        M: SdmaMemory + ?Sized,
        H: SdmaHooks + ?Sized,
    {
        let wptr = mem
            .load_u64(self.wptr_addr)
            .map_err(|fault| SdmaError::QueuePointer {
                which: QueuePointer::Write,
                fault,
            })?;
        let result = self.engine.run(mem, hooks, wptr, max_packets);
        mem.store_u64(self.rptr_addr, self.engine.rptr())
            .map_err(|fault| SdmaError::QueuePointer {
                which: QueuePointer::Read,
                fault,
            })?;
        result
    }
}
