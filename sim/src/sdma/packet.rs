//! Typed SDMA packets: decoded from ring dwords through the raw views of
//! [`super::raw`], checked, and encoded back.
//!
//! Decoding reads the header's `op` / `sub_op` first ([`packet_dwords`]
//! gives the packet's length from the header alone, so the engine knows how
//! many dwords to fetch), then converts the raw view with `TryFrom` into a
//! typed packet or a [`PacketError`] naming the packet and the field.
//!
//! What is checked, and what is not:
//! - opcodes and sub-ops: only those ROCr's gfx9 blit emits decode; every
//!   other opcode of `vega10_sdma_pkt_open.h` is [`PacketError::Unsupported`],
//!   anything else [`PacketError::UnknownOpcode`] / `UnknownSubOp`;
//! - enumerations with reserved codes (POLL_REGMEM `func` 7, CONSTANT_FILL
//!   `fillsize` 3, sub-window `elementsize` above 4, atomic opcodes) and
//!   counts beyond the SDMA v4 field width are errors;
//! - addresses the engine accesses atomically or whose low bits are not part
//!   of the field (FENCE, POLL_REGMEM and 32-bit atomics: 4-byte; 64-bit
//!   atomics and TIMESTAMP: 8-byte) must be aligned, and fill destinations
//!   aligned to the fill size;
//! - features that change the data moved but are not modelled (endian swap,
//!   TMZ, encryption) are `Unsupported`, never ignored;
//! - bits that only steer caches (`mtype`, `gcc`, `sys`, `snp`, `gpa`,
//!   `l2_policy`, later engines' `scope` / `temporal_hint` / `npd`) mean
//!   nothing on a device without caches and are accepted as they are.

use zerocopy::{FromBytes, IntoBytes};

use super::error::PacketError;
use super::raw::*;

/// Names of the packets, as in the header, for errors.
mod name {
    pub const NOP: &str = "NOP";
    pub const COPY_LINEAR: &str = "COPY_LINEAR";
    pub const COPY_BROADCAST_LINEAR: &str = "COPY_BROADCAST_LINEAR";
    pub const COPY_LINEAR_SUBWIN: &str = "COPY_LINEAR_SUBWIN";
    pub const COPY: &str = "COPY";
    pub const FENCE: &str = "FENCE";
    pub const TRAP: &str = "TRAP";
    pub const POLL_REGMEM: &str = "POLL_REGMEM";
    pub const ATOMIC: &str = "ATOMIC";
    pub const CONSTANT_FILL: &str = "CONSTANT_FILL";
    pub const TIMESTAMP: &str = "TIMESTAMP";
}

const fn addr(lo: u32, hi: u32) -> u64 {
    (hi as u64) << 32 | lo as u64
}

const fn lo(a: u64) -> u32 {
    a as u32
}

const fn hi(a: u64) -> u32 {
    (a >> 32) as u32
}

fn header(op: u8, sub_op: u8) -> u32 {
    SDMA_PKT_HEADER_OP.put(op.into()) | SDMA_PKT_HEADER_SUB_OP.put(sub_op.into())
}

fn field_error(
    packet: &'static str,
    field: &'static str,
    value: u64,
    reason: &'static str,
) -> PacketError {
    PacketError::Field {
        packet,
        field,
        value,
        reason,
    }
}

fn aligned(
    packet: &'static str,
    field: &'static str,
    a: u64,
    align: u64,
) -> Result<u64, PacketError> {
    let reason = match align {
        4 => "not dword aligned",
        _ => "not quadword aligned",
    };
    aligned_to(packet, field, a, align, reason)
}

fn aligned_to(
    packet: &'static str,
    field: &'static str,
    a: u64,
    align: u64,
    reason: &'static str,
) -> Result<u64, PacketError> {
    if a % align == 0 {
        Ok(a)
    } else {
        Err(field_error(packet, field, a, reason))
    }
}

fn no_swap(packet: &'static str, field: &'static str, sw: u32) -> Result<(), PacketError> {
    if sw == 0 {
        Ok(())
    } else {
        Err(PacketError::Unsupported {
            packet,
            what: match field {
                "src_sw" => "source endian swap (src_sw)",
                "dst2_sw" => "second destination endian swap (dst2_sw)",
                "sw" => "endian swap (sw)",
                _ => "destination endian swap (dst_sw)",
            },
        })
    }
}

/// Length in dwords of the packet whose first dword is `header`, from the
/// header alone; an error for an opcode or sub-op the engine does not run.
pub fn packet_dwords(header: u32) -> Result<usize, PacketError> {
    let op = SDMA_PKT_HEADER_OP.get(header) as u8;
    let sub_op = SDMA_PKT_HEADER_SUB_OP.get(header) as u8;
    let unsupported = |packet| {
        Err(PacketError::Unsupported {
            packet,
            what: "this packet",
        })
    };
    let unknown_sub = |packet| Err(PacketError::UnknownSubOp { packet, sub_op });
    match op {
        SDMA_OP_NOP => Ok(1 + SDMA_PKT_NOP_HEADER_COUNT.get(header) as usize),
        SDMA_OP_COPY => match sub_op {
            SDMA_SUBOP_COPY_LINEAR if SDMA_PKT_COPY_LINEAR_HEADER_BROADCAST.get(header) == 1 => {
                Ok(SdmaPktCopyBroadcastLinear::DWORDS)
            }
            SDMA_SUBOP_COPY_LINEAR => Ok(SdmaPktCopyLinear::DWORDS),
            SDMA_SUBOP_COPY_LINEAR_SUB_WIND => Ok(SdmaPktCopyLinearSubwin::DWORDS),
            SDMA_SUBOP_COPY_TILED => unsupported("COPY_TILED"),
            SDMA_SUBOP_COPY_SOA => unsupported("COPY_SOA"),
            SDMA_SUBOP_COPY_TILED_SUB_WIND => unsupported("COPY_TILED_SUBWIN"),
            SDMA_SUBOP_COPY_T2T_SUB_WIND => unsupported("COPY_T2T_SUB_WIND"),
            SDMA_SUBOP_COPY_DIRTY_PAGE => unsupported("COPY_DIRTY_PAGE"),
            SDMA_SUBOP_COPY_LINEAR_PHY => unsupported("COPY_PHYSICAL_LINEAR"),
            _ => unknown_sub(name::COPY),
        },
        SDMA_OP_FENCE if sub_op == 0 => Ok(SdmaPktFence::DWORDS),
        SDMA_OP_FENCE => unknown_sub(name::FENCE),
        SDMA_OP_TRAP if sub_op == 0 => Ok(SdmaPktTrap::DWORDS),
        SDMA_OP_TRAP => unknown_sub(name::TRAP),
        SDMA_OP_POLL_REGMEM => match sub_op {
            0 => Ok(SdmaPktPollRegmem::DWORDS),
            1 => unsupported("POLL_REG_WRITE_MEM"),
            2 => unsupported("POLL_DBIT_WRITE_MEM"),
            3 => unsupported("POLL_MEM_VERIFY"),
            _ => unknown_sub(name::POLL_REGMEM),
        },
        SDMA_OP_ATOMIC if sub_op == 0 => Ok(SdmaPktAtomic::DWORDS),
        SDMA_OP_ATOMIC => unknown_sub(name::ATOMIC),
        SDMA_OP_CONST_FILL => match sub_op {
            0 => Ok(SdmaPktConstantFill::DWORDS),
            1 => unsupported("DATA_FILL_MULTI"),
            _ => unknown_sub(name::CONSTANT_FILL),
        },
        SDMA_OP_TIMESTAMP => match sub_op {
            SDMA_SUBOP_TIMESTAMP_SET
            | SDMA_SUBOP_TIMESTAMP_GET
            | SDMA_SUBOP_TIMESTAMP_GET_GLOBAL => Ok(SdmaPktTimestamp::DWORDS),
            _ => unknown_sub(name::TIMESTAMP),
        },
        SDMA_OP_WRITE => unsupported("WRITE"),
        SDMA_OP_INDIRECT => unsupported("INDIRECT"),
        SDMA_OP_SEM => unsupported("SEMAPHORE"),
        SDMA_OP_COND_EXE => unsupported("COND_EXE"),
        SDMA_OP_PTEPDE => unsupported("PTEPDE"),
        SDMA_OP_SRBM_WRITE => unsupported("SRBM_WRITE"),
        SDMA_OP_PRE_EXE => unsupported("PRE_EXE"),
        SDMA_OP_DUMMY_TRAP => unsupported("DUMMY_TRAP"),
        SDMA_OP_GCR => unsupported("GCR_REQ"),
        _ => Err(PacketError::UnknownOpcode { op }),
    }
}

/// `SDMA_PKT_NOP`: `count` dwords of padding follow the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nop {
    /// Dwords after the header (0..=0x3fff).
    pub count: u16,
}

/// `SDMA_PKT_COPY_LINEAR`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyLinear {
    /// Bytes to copy, 1..=`1 << 22` (`count + 1`).
    pub byte_count: u32,
    /// Source address, any alignment.
    pub src: u64,
    /// Destination address, any alignment.
    pub dst: u64,
}

/// `SDMA_PKT_COPY_BROADCAST_LINEAR`: one source to two destinations.
///
/// The engine runs it as two forward copies, to `dst1` then `dst2`: a first
/// destination overlapping the source is what the second copy reads (ROCr
/// never overlaps them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyBroadcastLinear {
    /// Bytes to copy to each destination, 1..=`1 << 22`.
    pub byte_count: u32,
    /// Source address.
    pub src: u64,
    /// First destination.
    pub dst1: u64,
    /// Second destination.
    pub dst2: u64,
}

/// One side (source or destination) of a [`CopyLinearSubwin`]: a base
/// address and the window's start, in elements, within a 3-D surface of
/// `pitch` elements per row and `slice_pitch` elements per slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubwinSurface {
    /// Base address (dword aligned).
    pub addr: u64,
    /// Start element within a row (`*_x`, 14 bits).
    pub x: u32,
    /// Start row (`*_y`, 14 bits).
    pub y: u32,
    /// Start slice (`*_z`, 11 bits).
    pub z: u32,
    /// Elements per row, 1..=`1 << 19` (`*_pitch + 1`).
    pub pitch: u32,
    /// Elements per slice, 1..=`1 << 28` (`*_slice_pitch + 1`).
    pub slice_pitch: u32,
}

/// `SDMA_PKT_COPY_LINEAR_SUBWIN`: a `rect` of elements from one surface to
/// another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyLinearSubwin {
    /// log2 of the element size in bytes, 0..=4.
    pub element_size_log2: u8,
    /// The source window.
    pub src: SubwinSurface,
    /// The destination window.
    pub dst: SubwinSurface,
    /// Elements per row, rows, slices: 1..=`1 << 14`, `1 << 14`, `1 << 11`.
    pub rect: [u32; 3],
}

impl CopyLinearSubwin {
    /// The element size in bytes.
    pub fn element_size(&self) -> u64 {
        1 << self.element_size_log2
    }
}

/// `SDMA_PKT_FENCE`: write `data` to the dword at `addr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fence {
    /// Dword-aligned address.
    pub addr: u64,
    /// The value.
    pub data: u32,
}

/// `SDMA_PKT_TRAP`: interrupt with `int_context`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trap {
    /// The 28-bit interrupt context (ROCr: the KFD event id).
    pub int_context: u32,
}

/// POLL_REGMEM `func`: how the masked value compares with the reference
/// (the encoding of the PM4 `WAIT_REG_MEM` function, which the amdgpu
/// driver's `sdma_v4_0_wait_reg_mem` passes through; ROCr's `0x3` is
/// "IsEqual").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PollFunction {
    /// 0: always true.
    Always,
    /// 1: `masked < value`.
    Less,
    /// 2: `masked <= value`.
    LessEqual,
    /// 3: `masked == value`.
    Equal,
    /// 4: `masked != value`.
    NotEqual,
    /// 5: `masked >= value`.
    GreaterEqual,
    /// 6: `masked > value`.
    Greater,
}

impl PollFunction {
    /// The `func` code.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// Whether `(polled & mask) func value` holds (unsigned compares).
    pub fn holds(self, polled: u32, mask: u32, value: u32) -> bool {
        let m = polled & mask;
        match self {
            Self::Always => true,
            Self::Less => m < value,
            Self::LessEqual => m <= value,
            Self::Equal => m == value,
            Self::NotEqual => m != value,
            Self::GreaterEqual => m >= value,
            Self::Greater => m > value,
        }
    }
}

impl TryFrom<u32> for PollFunction {
    type Error = u32;

    fn try_from(code: u32) -> Result<Self, u32> {
        Ok(match code {
            0 => Self::Always,
            1 => Self::Less,
            2 => Self::LessEqual,
            3 => Self::Equal,
            4 => Self::NotEqual,
            5 => Self::GreaterEqual,
            6 => Self::Greater,
            other => return Err(other),
        })
    }
}

/// What a POLL_REGMEM waits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PollTarget {
    /// `mem_poll = 1`: the dword at this (dword-aligned) address.
    Memory {
        /// The address.
        addr: u64,
    },
    /// `hdp_flush = 1`: flush the host data path, then poll its done
    /// register. The device has no HDP (host writes reach its memory at
    /// once), so the flush completes at once.
    HdpFlush,
    /// `mem_poll = 0`, `func = always`: a register read whose result does
    /// not matter. ROCr's `hdp_flush_cmd` (`{0x8, 0x0, 0x80000000, 0, 0, 0}`,
    /// gfx9 firmware 0x1A5+) is of this form.
    RegisterAlways {
        /// `ADDR_LO` (the register address in this form).
        addr_lo: u32,
        /// `ADDR_HI`.
        addr_hi: u32,
    },
}

/// `SDMA_PKT_POLL_REGMEM`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PollRegmem {
    /// What is polled.
    pub target: PollTarget,
    /// The comparison.
    pub function: PollFunction,
    /// `VALUE`: the reference.
    pub value: u32,
    /// `MASK`.
    pub mask: u32,
    /// `interval` between polls (engine clocks; advisory here).
    pub interval: u16,
    /// `retry_count`: polls after the first before giving up;
    /// [`PollRegmem::RETRY_FOREVER`] never gives up.
    pub retry_count: u16,
}

impl PollRegmem {
    /// `retry_count` that polls forever (ROCr's `0xfff`, "Retry forever").
    pub const RETRY_FOREVER: u16 = 0xfff;
}

/// The integer operation of an ATOMIC packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    /// `new = src`.
    Swap,
    /// `new = src` if `old == cmp`.
    CmpSwap,
    /// `new = old + src` (wrapping).
    Add,
    /// `new = old - src` (wrapping).
    Sub,
    /// Signed minimum.
    SMin,
    /// Unsigned minimum.
    UMin,
    /// Signed maximum.
    SMax,
    /// Unsigned maximum.
    UMax,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise xor.
    Xor,
    /// `new = old >= src ? 0 : old + 1`.
    Inc,
    /// `new = (old == 0 || old > src) ? src : old - 1`.
    Dec,
}

/// Width of an atomic access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicSize {
    /// A dword (`_32` opcodes).
    U32,
    /// A quadword (`_64` opcodes).
    U64,
}

/// The integer `TC_OP` codes an ATOMIC packet may carry (the `TC_OP` enum of
/// the gfx9 register headers, which ROCr's `SDMA_ATOMIC_ADD64 = 47` =
/// `TC_OP_ATOMIC_ADD_RTN_64` follows): offsets from the `_RTN_32` (0x00),
/// `_RTN_64` (0x20), `_32` (0x40) and `_64` (0x60) bases. The float
/// opcodes and the cache operations in the same enum are not atomics the
/// engine runs.
const ATOMIC_OP_OFFSETS: [(u32, AtomicOp); 13] = [
    (0x07, AtomicOp::Swap),
    (0x08, AtomicOp::CmpSwap),
    (0x0f, AtomicOp::Add),
    (0x10, AtomicOp::Sub),
    (0x11, AtomicOp::SMin),
    (0x12, AtomicOp::UMin),
    (0x13, AtomicOp::SMax),
    (0x14, AtomicOp::UMax),
    (0x15, AtomicOp::And),
    (0x16, AtomicOp::Or),
    (0x17, AtomicOp::Xor),
    (0x18, AtomicOp::Inc),
    (0x19, AtomicOp::Dec),
];

/// `TC_OP_ATOMIC_ADD_RTN_64`: ROCr's `SDMA_ATOMIC_ADD64`.
pub const TC_OP_ATOMIC_ADD_RTN_64: u8 = 0x2f;
/// `TC_OP_ATOMIC_CMPSWAP_RTN_64`.
pub const TC_OP_ATOMIC_CMPSWAP_RTN_64: u8 = 0x28;

/// `SDMA_PKT_ATOMIC`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Atomic {
    /// Address, aligned to the access size.
    pub addr: u64,
    /// The operation.
    pub op: AtomicOp,
    /// Its width.
    pub size: AtomicSize,
    /// Whether the opcode is a returning (`_RTN`) one; the SDMA packet has
    /// nowhere to return to, so both behave alike.
    pub returns: bool,
    /// `SRC_DATA` (low dword only for 32-bit operations).
    pub src_data: u64,
    /// `CMP_DATA` (compare-and-swap).
    pub cmp_data: u64,
    /// `loop`: retry a failing compare-and-swap every `loop_interval`.
    pub loop_until_success: bool,
    /// `loop_interval` (13 bits).
    pub loop_interval: u16,
}

impl Atomic {
    /// The packet's `TC_OP` code.
    pub fn tc_op(&self) -> u8 {
        let base = match (self.returns, self.size) {
            (true, AtomicSize::U32) => 0x00,
            (true, AtomicSize::U64) => 0x20,
            (false, AtomicSize::U32) => 0x40,
            (false, AtomicSize::U64) => 0x60,
        };
        let offset = ATOMIC_OP_OFFSETS
            .iter()
            .find(|(_, op)| *op == self.op)
            .map_or(0, |(o, _)| *o);
        (base + offset) as u8
    }

    /// ROCr's completion-signal decrement (`BuildAtomicDecrementCommand`):
    /// `TC_OP_ATOMIC_ADD_RTN_64` of `-1` on the signal value at `addr`.
    pub fn rocr_signal_decrement(addr: u64) -> Self {
        Self {
            addr,
            op: AtomicOp::Add,
            size: AtomicSize::U64,
            returns: true,
            src_data: u64::MAX,
            cmp_data: 0,
            loop_until_success: false,
            loop_interval: 0,
        }
    }
}

/// CONSTANT_FILL `fillsize`: the element written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FillSize {
    /// 0: bytes (the pattern's low byte).
    Byte,
    /// 1: 16-bit words (the pattern's low half).
    Word,
    /// 2: dwords (ROCr's "DW fill").
    Dword,
}

impl FillSize {
    /// log2 of the element size: the `fillsize` code.
    pub fn log2(self) -> u32 {
        self as u32
    }

    /// The element size in bytes.
    pub fn bytes(self) -> u64 {
        1 << self.log2()
    }
}

/// `SDMA_PKT_CONSTANT_FILL`.
///
/// `count` is the byte count minus one, and the engine writes
/// `(count >> fillsize) + 1` elements: this is what makes the two real
/// clients agree, the amdgpu driver (`sdma_v4_0_emit_fill_buffer`: `count =
/// byte_count - 1`, dword fill) and ROCr (`BuildFillCommand`: `count =
/// (dwords - 1) * 4`), which differ in the bits below the element size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConstantFill {
    /// Destination, aligned to the element size.
    pub dst: u64,
    /// `src_data_31_0`: the pattern (little-endian; its low bytes for
    /// byte and word fills).
    pub data: u32,
    /// The element size.
    pub fill_size: FillSize,
    /// `COUNT` (22 bits): byte count minus one.
    pub count: u32,
}

impl ConstantFill {
    /// Elements written.
    pub fn elements(&self) -> u64 {
        u64::from(self.count >> self.fill_size.log2()) + 1
    }

    /// ROCr's dword fill of `dwords` (1..=0xffff8) dwords at `dst`.
    pub fn rocr_dword_fill(dst: u64, value: u32, dwords: u32) -> Self {
        Self {
            dst,
            data: value,
            fill_size: FillSize::Dword,
            count: dwords.saturating_sub(1) * 4,
        }
    }
}

/// `SDMA_PKT_TIMESTAMP_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timestamp {
    /// `TIMESTAMP_SET`: load the engine's local counter.
    Set {
        /// `init_data`.
        value: u64,
    },
    /// `TIMESTAMP_GET`: write the local counter to the quadword at `addr`.
    GetLocal {
        /// Quadword-aligned address.
        addr: u64,
    },
    /// `TIMESTAMP_GET_GLOBAL`: write the GPU clock to the quadword at `addr`.
    GetGlobal {
        /// Quadword-aligned address.
        addr: u64,
    },
}

/// A decoded SDMA packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packet {
    /// Padding.
    Nop(Nop),
    /// Linear copy.
    CopyLinear(CopyLinear),
    /// Linear copy to two destinations.
    CopyBroadcastLinear(CopyBroadcastLinear),
    /// Sub-window (rectangle) copy.
    CopyLinearSubwin(CopyLinearSubwin),
    /// Dword write after all earlier packets.
    Fence(Fence),
    /// Interrupt.
    Trap(Trap),
    /// Wait on memory (or an HDP flush).
    PollRegmem(PollRegmem),
    /// Memory atomic.
    Atomic(Atomic),
    /// Constant fill.
    ConstantFill(ConstantFill),
    /// Timestamp.
    Timestamp(Timestamp),
}

/// Reads a raw view from the first dwords of `dw` (the caller checked the
/// length with [`packet_dwords`]).
fn view<T: FromBytes>(dw: &[u32]) -> Result<T, PacketError> {
    T::read_from_prefix(dw.as_bytes())
        .map(|(v, _)| v)
        .map_err(|_| PacketError::Field {
            packet: "packet",
            field: "length",
            value: dw.len() as u64,
            reason: "fewer dwords than the packet needs",
        })
}

impl Packet {
    /// The packet's name in the SDMA headers.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Nop(_) => name::NOP,
            Self::CopyLinear(_) => name::COPY_LINEAR,
            Self::CopyBroadcastLinear(_) => name::COPY_BROADCAST_LINEAR,
            Self::CopyLinearSubwin(_) => name::COPY_LINEAR_SUBWIN,
            Self::Fence(_) => name::FENCE,
            Self::Trap(_) => name::TRAP,
            Self::PollRegmem(_) => name::POLL_REGMEM,
            Self::Atomic(_) => name::ATOMIC,
            Self::ConstantFill(_) => name::CONSTANT_FILL,
            Self::Timestamp(_) => name::TIMESTAMP,
        }
    }

    /// Decodes the packet at the start of `dw` (at least
    /// [`packet_dwords`] of its header; a NOP needs only its header).
    pub fn decode(dw: &[u32]) -> Result<Self, PacketError> {
        let Some(&h) = dw.first() else {
            return Err(PacketError::Field {
                packet: "packet",
                field: "length",
                value: 0,
                reason: "no header dword",
            });
        };
        let len = packet_dwords(h)?;
        let op = SDMA_PKT_HEADER_OP.get(h) as u8;
        if op == SDMA_OP_NOP {
            return Ok(Self::Nop(Nop {
                count: SDMA_PKT_NOP_HEADER_COUNT.get(h) as u16,
            }));
        }
        if dw.len() < len {
            return Err(PacketError::Field {
                packet: "packet",
                field: "length",
                value: dw.len() as u64,
                reason: "fewer dwords than the packet needs",
            });
        }
        let sub_op = SDMA_PKT_HEADER_SUB_OP.get(h) as u8;
        Ok(match (op, sub_op) {
            (SDMA_OP_COPY, SDMA_SUBOP_COPY_LINEAR) if len == SdmaPktCopyBroadcastLinear::DWORDS => {
                Self::CopyBroadcastLinear((&view::<SdmaPktCopyBroadcastLinear>(dw)?).try_into()?)
            }
            (SDMA_OP_COPY, SDMA_SUBOP_COPY_LINEAR) => {
                Self::CopyLinear((&view::<SdmaPktCopyLinear>(dw)?).try_into()?)
            }
            (SDMA_OP_COPY, _) => {
                Self::CopyLinearSubwin((&view::<SdmaPktCopyLinearSubwin>(dw)?).try_into()?)
            }
            (SDMA_OP_FENCE, _) => Self::Fence((&view::<SdmaPktFence>(dw)?).try_into()?),
            (SDMA_OP_TRAP, _) => Self::Trap((&view::<SdmaPktTrap>(dw)?).try_into()?),
            (SDMA_OP_POLL_REGMEM, _) => {
                Self::PollRegmem((&view::<SdmaPktPollRegmem>(dw)?).try_into()?)
            }
            (SDMA_OP_ATOMIC, _) => Self::Atomic((&view::<SdmaPktAtomic>(dw)?).try_into()?),
            (SDMA_OP_CONST_FILL, _) => {
                Self::ConstantFill((&view::<SdmaPktConstantFill>(dw)?).try_into()?)
            }
            (SDMA_OP_TIMESTAMP, _) => Self::Timestamp((&view::<SdmaPktTimestamp>(dw)?).try_into()?),
            // `packet_dwords` accepted nothing else.
            _ => return Err(PacketError::UnknownOpcode { op }),
        })
    }

    /// Encodes the packet (with every field the engine ignores zero), as
    /// ROCr's `Build*Command` do; an error if a field is out of range.
    pub fn encode(&self) -> Result<Vec<u32>, PacketError> {
        let dw = self.encode_unchecked();
        match Self::decode(&dw) {
            Ok(p) if p == *self => Ok(dw),
            _ => Err(PacketError::NotEncodable {
                packet: self.name(),
            }),
        }
    }

    fn encode_unchecked(&self) -> Vec<u32> {
        match *self {
            Self::Nop(n) => {
                let mut v = vec![0; 1 + usize::from(n.count)];
                v[0] = header(SDMA_OP_NOP, 0) | SDMA_PKT_NOP_HEADER_COUNT.put(n.count.into());
                v
            }
            Self::CopyLinear(c) => SdmaPktCopyLinear {
                header: header(SDMA_OP_COPY, SDMA_SUBOP_COPY_LINEAR),
                count: SDMA_PKT_COPY_LINEAR_COUNT_COUNT.put(c.byte_count.wrapping_sub(1)),
                parameter: 0,
                src_addr_lo: lo(c.src),
                src_addr_hi: hi(c.src),
                dst_addr_lo: lo(c.dst),
                dst_addr_hi: hi(c.dst),
            }
            .to_dwords(),
            Self::CopyBroadcastLinear(c) => SdmaPktCopyBroadcastLinear {
                header: header(SDMA_OP_COPY, SDMA_SUBOP_COPY_LINEAR)
                    | SDMA_PKT_COPY_LINEAR_HEADER_BROADCAST.put(1),
                count: SDMA_PKT_COPY_LINEAR_COUNT_COUNT.put(c.byte_count.wrapping_sub(1)),
                parameter: 0,
                src_addr_lo: lo(c.src),
                src_addr_hi: hi(c.src),
                dst1_addr_lo: lo(c.dst1),
                dst1_addr_hi: hi(c.dst1),
                dst2_addr_lo: lo(c.dst2),
                dst2_addr_hi: hi(c.dst2),
            }
            .to_dwords(),
            Self::CopyLinearSubwin(c) => {
                let xy = |s: &SubwinSurface| {
                    SDMA_PKT_COPY_LINEAR_SUBWIN_X.put(s.x) | SDMA_PKT_COPY_LINEAR_SUBWIN_Y.put(s.y)
                };
                let zp = |s: &SubwinSurface| {
                    SDMA_PKT_COPY_LINEAR_SUBWIN_Z.put(s.z)
                        | SDMA_PKT_COPY_LINEAR_SUBWIN_PITCH.put(s.pitch.wrapping_sub(1))
                };
                let sp = |s: &SubwinSurface| {
                    SDMA_PKT_COPY_LINEAR_SUBWIN_SLICE_PITCH.put(s.slice_pitch.wrapping_sub(1))
                };
                SdmaPktCopyLinearSubwin {
                    header: header(SDMA_OP_COPY, SDMA_SUBOP_COPY_LINEAR_SUB_WIND)
                        | SDMA_PKT_COPY_LINEAR_SUBWIN_HEADER_ELEMENTSIZE
                            .put(c.element_size_log2.into()),
                    src_addr_lo: lo(c.src.addr),
                    src_addr_hi: hi(c.src.addr),
                    dw_3: xy(&c.src),
                    dw_4: zp(&c.src),
                    dw_5: sp(&c.src),
                    dst_addr_lo: lo(c.dst.addr),
                    dst_addr_hi: hi(c.dst.addr),
                    dw_8: xy(&c.dst),
                    dw_9: zp(&c.dst),
                    dw_10: sp(&c.dst),
                    dw_11: SDMA_PKT_COPY_LINEAR_SUBWIN_DW_11_RECT_X.put(c.rect[0].wrapping_sub(1))
                        | SDMA_PKT_COPY_LINEAR_SUBWIN_DW_11_RECT_Y.put(c.rect[1].wrapping_sub(1)),
                    dw_12: SDMA_PKT_COPY_LINEAR_SUBWIN_DW_12_RECT_Z.put(c.rect[2].wrapping_sub(1)),
                }
                .to_dwords()
            }
            Self::Fence(f) => SdmaPktFence {
                header: header(SDMA_OP_FENCE, 0),
                addr_lo: lo(f.addr),
                addr_hi: hi(f.addr),
                data: f.data,
            }
            .to_dwords(),
            Self::Trap(t) => SdmaPktTrap {
                header: header(SDMA_OP_TRAP, 0),
                int_context: SDMA_PKT_TRAP_INT_CONTEXT_INT_CONTEXT.put(t.int_context),
            }
            .to_dwords(),
            Self::PollRegmem(p) => {
                let (mem_poll, hdp, a_lo, a_hi) = match p.target {
                    PollTarget::Memory { addr } => (1, 0, lo(addr), hi(addr)),
                    PollTarget::HdpFlush => (0, 1, 0, 0),
                    PollTarget::RegisterAlways { addr_lo, addr_hi } => (0, 0, addr_lo, addr_hi),
                };
                SdmaPktPollRegmem {
                    header: header(SDMA_OP_POLL_REGMEM, 0)
                        | SDMA_PKT_POLL_REGMEM_HEADER_HDP_FLUSH.put(hdp)
                        | SDMA_PKT_POLL_REGMEM_HEADER_FUNC.put(p.function.code())
                        | SDMA_PKT_POLL_REGMEM_HEADER_MEM_POLL.put(mem_poll),
                    addr_lo: a_lo,
                    addr_hi: a_hi,
                    value: p.value,
                    mask: p.mask,
                    dw5: SDMA_PKT_POLL_REGMEM_DW5_INTERVAL.put(p.interval.into())
                        | SDMA_PKT_POLL_REGMEM_DW5_RETRY_COUNT.put(p.retry_count.into()),
                }
                .to_dwords()
            }
            Self::Atomic(a) => SdmaPktAtomic {
                header: header(SDMA_OP_ATOMIC, 0)
                    | SDMA_PKT_ATOMIC_HEADER_LOOP.put(a.loop_until_success.into())
                    | SDMA_PKT_ATOMIC_HEADER_ATOMIC_OP.put(a.tc_op().into()),
                addr_lo: lo(a.addr),
                addr_hi: hi(a.addr),
                src_data_lo: lo(a.src_data),
                src_data_hi: hi(a.src_data),
                cmp_data_lo: lo(a.cmp_data),
                cmp_data_hi: hi(a.cmp_data),
                loop_interval: SDMA_PKT_ATOMIC_LOOP_INTERVAL_LOOP_INTERVAL
                    .put(a.loop_interval.into()),
            }
            .to_dwords(),
            Self::ConstantFill(c) => SdmaPktConstantFill {
                header: header(SDMA_OP_CONST_FILL, 0)
                    | SDMA_PKT_CONSTANT_FILL_HEADER_FILLSIZE.put(c.fill_size.log2()),
                dst_addr_lo: lo(c.dst),
                dst_addr_hi: hi(c.dst),
                data: c.data,
                count: SDMA_PKT_CONSTANT_FILL_COUNT_COUNT.put(c.count),
            }
            .to_dwords(),
            Self::Timestamp(t) => {
                let (sub_op, v) = match t {
                    Timestamp::Set { value } => (SDMA_SUBOP_TIMESTAMP_SET, value),
                    Timestamp::GetLocal { addr } => (SDMA_SUBOP_TIMESTAMP_GET, addr),
                    Timestamp::GetGlobal { addr } => (SDMA_SUBOP_TIMESTAMP_GET_GLOBAL, addr),
                };
                SdmaPktTimestamp {
                    header: header(SDMA_OP_TIMESTAMP, sub_op),
                    addr_lo: lo(v),
                    addr_hi: hi(v),
                }
                .to_dwords()
            }
        }
    }
}

fn copy_count(packet: &'static str, count: u32) -> Result<u32, PacketError> {
    if SDMA_PKT_COPY_LINEAR_COUNT_COUNT.fits(count) {
        Ok(count + 1)
    } else {
        Err(field_error(
            packet,
            "count",
            count.into(),
            "above the 22 bits of the SDMA v4 count field",
        ))
    }
}

fn copy_header(packet: &'static str, h: u32) -> Result<(), PacketError> {
    if SDMA_PKT_COPY_LINEAR_HEADER_TMZ.get(h) != 0 {
        return Err(PacketError::Unsupported {
            packet,
            what: "trusted memory (tmz)",
        });
    }
    if SDMA_PKT_COPY_LINEAR_HEADER_ENCRYPT.get(h) != 0 {
        return Err(PacketError::Unsupported {
            packet,
            what: "encryption (encrypt)",
        });
    }
    Ok(())
}

impl TryFrom<&SdmaPktCopyLinear> for CopyLinear {
    type Error = PacketError;

    fn try_from(p: &SdmaPktCopyLinear) -> Result<Self, PacketError> {
        let n = name::COPY_LINEAR;
        copy_header(n, p.header)?;
        no_swap(
            n,
            "dst_sw",
            SDMA_PKT_COPY_LINEAR_PARAMETER_DST_SW.get(p.parameter),
        )?;
        no_swap(
            n,
            "src_sw",
            SDMA_PKT_COPY_LINEAR_PARAMETER_SRC_SW.get(p.parameter),
        )?;
        Ok(Self {
            byte_count: copy_count(n, p.count)?,
            src: addr(p.src_addr_lo, p.src_addr_hi),
            dst: addr(p.dst_addr_lo, p.dst_addr_hi),
        })
    }
}

impl TryFrom<&SdmaPktCopyBroadcastLinear> for CopyBroadcastLinear {
    type Error = PacketError;

    fn try_from(p: &SdmaPktCopyBroadcastLinear) -> Result<Self, PacketError> {
        let n = name::COPY_BROADCAST_LINEAR;
        copy_header(n, p.header)?;
        no_swap(
            n,
            "dst_sw",
            SDMA_PKT_COPY_BROADCAST_LINEAR_PARAMETER_DST1_SW.get(p.parameter),
        )?;
        no_swap(
            n,
            "dst2_sw",
            SDMA_PKT_COPY_BROADCAST_LINEAR_PARAMETER_DST2_SW.get(p.parameter),
        )?;
        no_swap(
            n,
            "src_sw",
            SDMA_PKT_COPY_BROADCAST_LINEAR_PARAMETER_SRC_SW.get(p.parameter),
        )?;
        Ok(Self {
            byte_count: copy_count(n, p.count)?,
            src: addr(p.src_addr_lo, p.src_addr_hi),
            dst1: addr(p.dst1_addr_lo, p.dst1_addr_hi),
            dst2: addr(p.dst2_addr_lo, p.dst2_addr_hi),
        })
    }
}

impl TryFrom<&SdmaPktCopyLinearSubwin> for CopyLinearSubwin {
    type Error = PacketError;

    fn try_from(p: &SdmaPktCopyLinearSubwin) -> Result<Self, PacketError> {
        let n = name::COPY_LINEAR_SUBWIN;
        if SDMA_PKT_COPY_LINEAR_SUBWIN_HEADER_TMZ.get(p.header) != 0 {
            return Err(PacketError::Unsupported {
                packet: n,
                what: "trusted memory (tmz)",
            });
        }
        no_swap(
            n,
            "dst_sw",
            SDMA_PKT_COPY_LINEAR_SUBWIN_DW_12_DST_SW.get(p.dw_12),
        )?;
        no_swap(
            n,
            "src_sw",
            SDMA_PKT_COPY_LINEAR_SUBWIN_DW_12_SRC_SW.get(p.dw_12),
        )?;
        let e = SDMA_PKT_COPY_LINEAR_SUBWIN_HEADER_ELEMENTSIZE.get(p.header);
        if e > 4 {
            return Err(field_error(
                n,
                "elementsize",
                e.into(),
                "above 4 (16-byte elements)",
            ));
        }
        let surface = |field: &'static str, lo: u32, hi: u32, xy: u32, zp: u32, sp: u32| {
            Ok::<_, PacketError>(SubwinSurface {
                addr: aligned(n, field, addr(lo, hi), 4)?,
                x: SDMA_PKT_COPY_LINEAR_SUBWIN_X.get(xy),
                y: SDMA_PKT_COPY_LINEAR_SUBWIN_Y.get(xy),
                z: SDMA_PKT_COPY_LINEAR_SUBWIN_Z.get(zp),
                pitch: SDMA_PKT_COPY_LINEAR_SUBWIN_PITCH.get(zp) + 1,
                slice_pitch: SDMA_PKT_COPY_LINEAR_SUBWIN_SLICE_PITCH.get(sp) + 1,
            })
        };
        Ok(Self {
            element_size_log2: e as u8,
            src: surface(
                "src_addr",
                p.src_addr_lo,
                p.src_addr_hi,
                p.dw_3,
                p.dw_4,
                p.dw_5,
            )?,
            dst: surface(
                "dst_addr",
                p.dst_addr_lo,
                p.dst_addr_hi,
                p.dw_8,
                p.dw_9,
                p.dw_10,
            )?,
            rect: [
                SDMA_PKT_COPY_LINEAR_SUBWIN_DW_11_RECT_X.get(p.dw_11) + 1,
                SDMA_PKT_COPY_LINEAR_SUBWIN_DW_11_RECT_Y.get(p.dw_11) + 1,
                SDMA_PKT_COPY_LINEAR_SUBWIN_DW_12_RECT_Z.get(p.dw_12) + 1,
            ],
        })
    }
}

impl TryFrom<&SdmaPktFence> for Fence {
    type Error = PacketError;

    fn try_from(p: &SdmaPktFence) -> Result<Self, PacketError> {
        Ok(Self {
            addr: aligned(name::FENCE, "addr", addr(p.addr_lo, p.addr_hi), 4)?,
            data: p.data,
        })
    }
}

impl TryFrom<&SdmaPktTrap> for Trap {
    type Error = PacketError;

    fn try_from(p: &SdmaPktTrap) -> Result<Self, PacketError> {
        Ok(Self {
            int_context: SDMA_PKT_TRAP_INT_CONTEXT_INT_CONTEXT.get(p.int_context),
        })
    }
}

impl TryFrom<&SdmaPktPollRegmem> for PollRegmem {
    type Error = PacketError;

    fn try_from(p: &SdmaPktPollRegmem) -> Result<Self, PacketError> {
        let n = name::POLL_REGMEM;
        let func = SDMA_PKT_POLL_REGMEM_HEADER_FUNC.get(p.header);
        let function = PollFunction::try_from(func)
            .map_err(|v| field_error(n, "func", v.into(), "reserved function code"))?;
        let target = if SDMA_PKT_POLL_REGMEM_HEADER_HDP_FLUSH.get(p.header) == 1 {
            PollTarget::HdpFlush
        } else if SDMA_PKT_POLL_REGMEM_HEADER_MEM_POLL.get(p.header) == 1 {
            PollTarget::Memory {
                addr: aligned(n, "addr", addr(p.addr_lo, p.addr_hi), 4)?,
            }
        } else if function == PollFunction::Always {
            PollTarget::RegisterAlways {
                addr_lo: p.addr_lo,
                addr_hi: p.addr_hi,
            }
        } else {
            return Err(PacketError::Unsupported {
                packet: n,
                what: "a register poll (mem_poll = 0) other than an HDP flush",
            });
        };
        Ok(Self {
            target,
            function,
            value: p.value,
            mask: p.mask,
            interval: SDMA_PKT_POLL_REGMEM_DW5_INTERVAL.get(p.dw5) as u16,
            retry_count: SDMA_PKT_POLL_REGMEM_DW5_RETRY_COUNT.get(p.dw5) as u16,
        })
    }
}

impl TryFrom<&SdmaPktAtomic> for Atomic {
    type Error = PacketError;

    fn try_from(p: &SdmaPktAtomic) -> Result<Self, PacketError> {
        let n = name::ATOMIC;
        if SDMA_PKT_ATOMIC_HEADER_TMZ.get(p.header) != 0 {
            return Err(PacketError::Unsupported {
                packet: n,
                what: "trusted memory (tmz)",
            });
        }
        let code = SDMA_PKT_ATOMIC_HEADER_ATOMIC_OP.get(p.header);
        let (returns, size) = match code >> 5 {
            0 => (true, AtomicSize::U32),
            1 => (true, AtomicSize::U64),
            2 => (false, AtomicSize::U32),
            _ => (false, AtomicSize::U64),
        };
        let op = ATOMIC_OP_OFFSETS
            .iter()
            .find(|(o, _)| *o == code & 0x1f)
            .map(|(_, op)| *op)
            .ok_or(field_error(
                n,
                "atomic_op",
                code.into(),
                "not an integer TC atomic opcode",
            ))?;
        let width = match size {
            AtomicSize::U32 => 4,
            AtomicSize::U64 => 8,
        };
        Ok(Self {
            addr: aligned(n, "addr", addr(p.addr_lo, p.addr_hi), width)?,
            op,
            size,
            returns,
            src_data: match size {
                AtomicSize::U32 => p.src_data_lo.into(),
                AtomicSize::U64 => addr(p.src_data_lo, p.src_data_hi),
            },
            cmp_data: match size {
                AtomicSize::U32 => p.cmp_data_lo.into(),
                AtomicSize::U64 => addr(p.cmp_data_lo, p.cmp_data_hi),
            },
            loop_until_success: SDMA_PKT_ATOMIC_HEADER_LOOP.get(p.header) == 1,
            loop_interval: SDMA_PKT_ATOMIC_LOOP_INTERVAL_LOOP_INTERVAL.get(p.loop_interval) as u16,
        })
    }
}

impl TryFrom<&SdmaPktConstantFill> for ConstantFill {
    type Error = PacketError;

    fn try_from(p: &SdmaPktConstantFill) -> Result<Self, PacketError> {
        let n = name::CONSTANT_FILL;
        no_swap(n, "sw", SDMA_PKT_CONSTANT_FILL_HEADER_SW.get(p.header))?;
        let fill_size = match SDMA_PKT_CONSTANT_FILL_HEADER_FILLSIZE.get(p.header) {
            0 => FillSize::Byte,
            1 => FillSize::Word,
            2 => FillSize::Dword,
            other => {
                return Err(field_error(
                    n,
                    "fillsize",
                    other.into(),
                    "reserved on SDMA v4 (1, 2 or 4 bytes)",
                ));
            }
        };
        if !SDMA_PKT_CONSTANT_FILL_COUNT_COUNT.fits(p.count) {
            return Err(field_error(
                n,
                "count",
                p.count.into(),
                "above the 22 bits of the SDMA v4 count field",
            ));
        }
        Ok(Self {
            dst: aligned_to(
                n,
                "dst_addr",
                addr(p.dst_addr_lo, p.dst_addr_hi),
                fill_size.bytes(),
                "not aligned to the fill size",
            )?,
            data: p.data,
            fill_size,
            count: p.count,
        })
    }
}

impl TryFrom<&SdmaPktTimestamp> for Timestamp {
    type Error = PacketError;

    fn try_from(p: &SdmaPktTimestamp) -> Result<Self, PacketError> {
        let v = addr(p.addr_lo, p.addr_hi);
        Ok(match SDMA_PKT_HEADER_SUB_OP.get(p.header) as u8 {
            SDMA_SUBOP_TIMESTAMP_SET => Self::Set { value: v },
            SDMA_SUBOP_TIMESTAMP_GET => Self::GetLocal {
                addr: aligned(name::TIMESTAMP, "write_addr", v, 8)?,
            },
            SDMA_SUBOP_TIMESTAMP_GET_GLOBAL => Self::GetGlobal {
                addr: aligned(name::TIMESTAMP, "write_addr", v, 8)?,
            },
            other => {
                return Err(PacketError::UnknownSubOp {
                    packet: name::TIMESTAMP,
                    sub_op: other,
                });
            }
        })
    }
}
