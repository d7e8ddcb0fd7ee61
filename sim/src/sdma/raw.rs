//! Raw layouts of the SDMA packets, dword by dword.
//!
//! Formats of the amdgpu driver's SDMA v4 (gfx9: Vega, MI100, MI200) packet
//! header `drivers/gpu/drm/amd/amdgpu/vega10_sdma_pkt_open.h` (Linux), which
//! names every dword (`HEADER`, `COUNT`, `SRC_ADDR_LO`, ...) and gives each
//! bit field as an `_offset` (dword index), `_mask` and `_shift` macro.
//! ROCr's `runtime/hsa-runtime/core/inc/sdma_registers.h` declares the
//! same packets as C bit-field unions (`SDMA_PKT_COPY_LINEAR` ...), which
//! `amd_blit_sdma.cpp` fills; where the two differ it is for later SDMA
//! generations (gfx10+ `mtype`, gfx12.5 `scope` / `npd` bits), noted below.
//!
//! Each packet is a `#[repr(C)]` struct of `u32` words with the header's word
//! names, with compile-time asserts of its size and every word's offset; the
//! bit fields inside a word are [`Field`] constants named
//! `<PACKET>_<WORD>_<field>` as the header's macros are. These structs are
//! plain data (`zerocopy`): [`super::packet`] reads them from ring bytes and
//! converts them, checked, into typed packets.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// One bit field of a packet dword: where it starts and how wide it is (the
/// `_shift` and the width of the `_mask` of `vega10_sdma_pkt_open.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// Bit position of the field's least significant bit.
    pub shift: u32,
    /// Width in bits (1..=32).
    pub width: u32,
}

impl Field {
    /// A field of `width` bits at `shift`.
    pub const fn new(shift: u32, width: u32) -> Self {
        assert!(width >= 1 && shift + width <= 32);
        Self { shift, width }
    }

    /// The field's mask before shifting (the header's `_mask`).
    pub const fn mask(self) -> u32 {
        if self.width == 32 {
            u32::MAX
        } else {
            (1u32 << self.width) - 1
        }
    }

    /// The field's value in `dw`.
    pub const fn get(self, dw: u32) -> u32 {
        (dw >> self.shift) & self.mask()
    }

    /// Whether `value` fits the field.
    pub const fn fits(self, value: u32) -> bool {
        value & !self.mask() == 0
    }

    /// `value` placed in the field (the header's `SDMA_PKT_..._FIELD(x)`
    /// macro: bits above the width are dropped, so check [`Field::fits`]).
    pub const fn put(self, value: u32) -> u32 {
        (value & self.mask()) << self.shift
    }
}

// ---------------------------------------------------------------------------
// Opcodes (`SDMA_OP_*`, `SDMA_SUBOP_*` of vega10_sdma_pkt_open.h; GCR from
// navi10_sdma_pkt_open.h and ROCr's sdma_registers.h).

/// `SDMA_OP_NOP`: padding; the header's `count` dwords follow.
pub const SDMA_OP_NOP: u8 = 0;
/// `SDMA_OP_COPY`: copies (linear, broadcast, sub-window, tiled).
pub const SDMA_OP_COPY: u8 = 1;
/// `SDMA_OP_WRITE`: inline data write.
pub const SDMA_OP_WRITE: u8 = 2;
/// `SDMA_OP_INDIRECT`: indirect buffer.
pub const SDMA_OP_INDIRECT: u8 = 4;
/// `SDMA_OP_FENCE`: 32-bit memory write after all prior packets.
pub const SDMA_OP_FENCE: u8 = 5;
/// `SDMA_OP_TRAP`: interrupt with a 28-bit context.
pub const SDMA_OP_TRAP: u8 = 6;
/// `SDMA_OP_SEM`: semaphore.
pub const SDMA_OP_SEM: u8 = 7;
/// `SDMA_OP_POLL_REGMEM`: wait on a register or memory dword.
pub const SDMA_OP_POLL_REGMEM: u8 = 8;
/// `SDMA_OP_COND_EXE`: conditional execution.
pub const SDMA_OP_COND_EXE: u8 = 9;
/// `SDMA_OP_ATOMIC`: memory atomic (TC atomic opcodes).
pub const SDMA_OP_ATOMIC: u8 = 10;
/// `SDMA_OP_CONST_FILL`: constant fill.
pub const SDMA_OP_CONST_FILL: u8 = 11;
/// `SDMA_OP_PTEPDE`: page-table entry generation.
pub const SDMA_OP_PTEPDE: u8 = 12;
/// `SDMA_OP_TIMESTAMP`: set / get the local or global timestamp.
pub const SDMA_OP_TIMESTAMP: u8 = 13;
/// `SDMA_OP_SRBM_WRITE`: register write.
pub const SDMA_OP_SRBM_WRITE: u8 = 14;
/// `SDMA_OP_PRE_EXE`: pre-execution.
pub const SDMA_OP_PRE_EXE: u8 = 15;
/// `SDMA_OP_DUMMY_TRAP`: dummy trap.
pub const SDMA_OP_DUMMY_TRAP: u8 = 16;
/// `SDMA_OP_GCR` (SDMA v5+, `navi10_sdma_pkt_open.h`): cache control.
pub const SDMA_OP_GCR: u8 = 17;

/// `SDMA_SUBOP_COPY_LINEAR`.
pub const SDMA_SUBOP_COPY_LINEAR: u8 = 0;
/// `SDMA_SUBOP_COPY_TILED`.
pub const SDMA_SUBOP_COPY_TILED: u8 = 1;
/// `SDMA_SUBOP_COPY_SOA`.
pub const SDMA_SUBOP_COPY_SOA: u8 = 3;
/// `SDMA_SUBOP_COPY_LINEAR_SUB_WIND` (ROCr: `SDMA_SUBOP_COPY_LINEAR_RECT`).
pub const SDMA_SUBOP_COPY_LINEAR_SUB_WIND: u8 = 4;
/// `SDMA_SUBOP_COPY_TILED_SUB_WIND`.
pub const SDMA_SUBOP_COPY_TILED_SUB_WIND: u8 = 5;
/// `SDMA_SUBOP_COPY_T2T_SUB_WIND`.
pub const SDMA_SUBOP_COPY_T2T_SUB_WIND: u8 = 6;
/// `SDMA_SUBOP_COPY_DIRTY_PAGE`.
pub const SDMA_SUBOP_COPY_DIRTY_PAGE: u8 = 7;
/// `SDMA_SUBOP_COPY_LINEAR_PHY`.
pub const SDMA_SUBOP_COPY_LINEAR_PHY: u8 = 8;
/// `SDMA_SUBOP_TIMESTAMP_SET`.
pub const SDMA_SUBOP_TIMESTAMP_SET: u8 = 0;
/// `SDMA_SUBOP_TIMESTAMP_GET` (the engine's local counter).
pub const SDMA_SUBOP_TIMESTAMP_GET: u8 = 1;
/// `SDMA_SUBOP_TIMESTAMP_GET_GLOBAL` (the GPU clock; what ROCr emits).
pub const SDMA_SUBOP_TIMESTAMP_GET_GLOBAL: u8 = 2;

/// `SDMA_PKT_HEADER_op`: bits 7:0 of every packet's first dword.
pub const SDMA_PKT_HEADER_OP: Field = Field::new(0, 8);
/// `SDMA_PKT_HEADER_sub_op`: bits 15:8 of every packet's first dword.
pub const SDMA_PKT_HEADER_SUB_OP: Field = Field::new(8, 8);

/// Asserts, at compile time, a raw packet's size in dwords and the dword
/// index of each of its words (the header's `_offset` values).
macro_rules! layout {
    ($ty:ty, $dwords:expr, { $($field:ident : $dw:expr),* $(,)? }) => {
        const _: () = {
            assert!(core::mem::size_of::<$ty>() == $dwords * 4);
            assert!(core::mem::align_of::<$ty>() == 4);
            $(assert!(core::mem::offset_of!($ty, $field) == $dw * 4);)*
        };
        impl $ty {
            /// Length of the packet in dwords.
            pub const DWORDS: usize = $dwords;

            /// The packet's dwords, in ring order.
            pub fn to_dwords(&self) -> Vec<u32> {
                self.as_bytes()
                    .chunks_exact(4)
                    .map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
                    .collect()
            }
        }
    };
}

// ---------------------------------------------------------------------------
// NOP

/// `SDMA_PKT_NOP`: a header whose `count` says how many dwords of padding
/// follow it. ROCr pads a submission with `(pad_size / 4 - 1) << 16`, and a
/// dword of zeros is a NOP of count 0 (its ring padding is `memset` to 0).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[repr(C)]
pub struct SdmaPktNop {
    /// `HEADER`: op, sub_op, count.
    pub header: u32,
}
layout!(SdmaPktNop, 1, { header: 0 });

/// `SDMA_PKT_NOP_HEADER_count`: bits 29:16, dwords of padding after the header.
pub const SDMA_PKT_NOP_HEADER_COUNT: Field = Field::new(16, 14);

// ---------------------------------------------------------------------------
// COPY_LINEAR

/// `SDMA_PKT_COPY_LINEAR`: copy `count + 1` bytes from `src` to `dst`, any
/// alignment. ROCr (`BuildCopyCommand`) splits larger copies at
/// `kMaxSize_ = 0x3fffe0` bytes per packet.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[repr(C)]
pub struct SdmaPktCopyLinear {
    /// `HEADER`: op, sub_op, encrypt, tmz, broadcast.
    pub header: u32,
    /// `COUNT`: byte count minus one.
    pub count: u32,
    /// `PARAMETER`: endian swap of source and destination.
    pub parameter: u32,
    /// `SRC_ADDR_LO`: source address bits 31:0.
    pub src_addr_lo: u32,
    /// `SRC_ADDR_HI`: source address bits 63:32.
    pub src_addr_hi: u32,
    /// `DST_ADDR_LO`: destination address bits 31:0.
    pub dst_addr_lo: u32,
    /// `DST_ADDR_HI`: destination address bits 63:32.
    pub dst_addr_hi: u32,
}
layout!(SdmaPktCopyLinear, 7, {
    header: 0, count: 1, parameter: 2, src_addr_lo: 3, src_addr_hi: 4, dst_addr_lo: 5, dst_addr_hi: 6,
});

/// `SDMA_PKT_COPY_LINEAR_HEADER_encrypt`: bit 16.
pub const SDMA_PKT_COPY_LINEAR_HEADER_ENCRYPT: Field = Field::new(16, 1);
/// `SDMA_PKT_COPY_LINEAR_HEADER_tmz`: bit 18 (trusted memory zone).
pub const SDMA_PKT_COPY_LINEAR_HEADER_TMZ: Field = Field::new(18, 1);
/// `SDMA_PKT_COPY_LINEAR_HEADER_broadcast`: bit 27; set, the packet is the
/// 9-dword [`SdmaPktCopyBroadcastLinear`].
pub const SDMA_PKT_COPY_LINEAR_HEADER_BROADCAST: Field = Field::new(27, 1);
/// `SDMA_PKT_COPY_LINEAR_COUNT_count`: bits 21:0 on SDMA v4 (ROCr's
/// `count_ext` of 30 bits is for later engines).
pub const SDMA_PKT_COPY_LINEAR_COUNT_COUNT: Field = Field::new(0, 22);
/// `SDMA_PKT_COPY_LINEAR_PARAMETER_dst_sw`: bits 17:16, destination endian swap.
pub const SDMA_PKT_COPY_LINEAR_PARAMETER_DST_SW: Field = Field::new(16, 2);
/// `SDMA_PKT_COPY_LINEAR_PARAMETER_src_sw`: bits 25:24, source endian swap.
pub const SDMA_PKT_COPY_LINEAR_PARAMETER_SRC_SW: Field = Field::new(24, 2);

/// `SDMA_PKT_COPY_BROADCAST_LINEAR`: the same `count + 1` bytes from `src`
/// to two destinations (ROCr `SDMA_PKT_COPY_LINEAR_BROADCAST`, used on gfx90a
/// and gfx94x: `broadcast_supported_`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[repr(C)]
pub struct SdmaPktCopyBroadcastLinear {
    /// `HEADER`: op, sub_op, encrypt, tmz, broadcast (set).
    pub header: u32,
    /// `COUNT`: byte count minus one.
    pub count: u32,
    /// `PARAMETER`: endian swap of source and both destinations.
    pub parameter: u32,
    /// `SRC_ADDR_LO`.
    pub src_addr_lo: u32,
    /// `SRC_ADDR_HI`.
    pub src_addr_hi: u32,
    /// `DST1_ADDR_LO`.
    pub dst1_addr_lo: u32,
    /// `DST1_ADDR_HI`.
    pub dst1_addr_hi: u32,
    /// `DST2_ADDR_LO`.
    pub dst2_addr_lo: u32,
    /// `DST2_ADDR_HI`.
    pub dst2_addr_hi: u32,
}
layout!(SdmaPktCopyBroadcastLinear, 9, {
    header: 0, count: 1, parameter: 2, src_addr_lo: 3, src_addr_hi: 4,
    dst1_addr_lo: 5, dst1_addr_hi: 6, dst2_addr_lo: 7, dst2_addr_hi: 8,
});

/// `SDMA_PKT_COPY_BROADCAST_LINEAR_PARAMETER_dst2_sw`: bits 9:8.
pub const SDMA_PKT_COPY_BROADCAST_LINEAR_PARAMETER_DST2_SW: Field = Field::new(8, 2);
/// `SDMA_PKT_COPY_BROADCAST_LINEAR_PARAMETER_dst1_sw`: bits 17:16.
pub const SDMA_PKT_COPY_BROADCAST_LINEAR_PARAMETER_DST1_SW: Field = Field::new(16, 2);
/// `SDMA_PKT_COPY_BROADCAST_LINEAR_PARAMETER_src_sw`: bits 25:24.
pub const SDMA_PKT_COPY_BROADCAST_LINEAR_PARAMETER_SRC_SW: Field = Field::new(24, 2);

// ---------------------------------------------------------------------------
// COPY_LINEAR_SUBWIN (ROCr: SDMA_PKT_COPY_LINEAR_RECT, pre-gfx12 format)

/// `SDMA_PKT_COPY_LINEAR_SUBWIN`: a 3-D sub-window copy in elements of
/// `1 << elementsize` bytes; pitches and offsets count elements, and every
/// extent is stored minus one. ROCr (`BuildCopyRectCommand`) emits it for
/// `hsa_amd_memory_async_copy_rect`, with dword-aligned base addresses.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[repr(C)]
pub struct SdmaPktCopyLinearSubwin {
    /// `HEADER`: op, sub_op, tmz, elementsize.
    pub header: u32,
    /// `SRC_ADDR_LO`.
    pub src_addr_lo: u32,
    /// `SRC_ADDR_HI`.
    pub src_addr_hi: u32,
    /// `DW_3`: src_x, src_y.
    pub dw_3: u32,
    /// `DW_4`: src_z, src_pitch.
    pub dw_4: u32,
    /// `DW_5`: src_slice_pitch.
    pub dw_5: u32,
    /// `DST_ADDR_LO`.
    pub dst_addr_lo: u32,
    /// `DST_ADDR_HI`.
    pub dst_addr_hi: u32,
    /// `DW_8`: dst_x, dst_y.
    pub dw_8: u32,
    /// `DW_9`: dst_z, dst_pitch.
    pub dw_9: u32,
    /// `DW_10`: dst_slice_pitch.
    pub dw_10: u32,
    /// `DW_11`: rect_x, rect_y.
    pub dw_11: u32,
    /// `DW_12`: rect_z, dst_sw, src_sw.
    pub dw_12: u32,
}
layout!(SdmaPktCopyLinearSubwin, 13, {
    header: 0, src_addr_lo: 1, src_addr_hi: 2, dw_3: 3, dw_4: 4, dw_5: 5, dst_addr_lo: 6,
    dst_addr_hi: 7, dw_8: 8, dw_9: 9, dw_10: 10, dw_11: 11, dw_12: 12,
});

/// `SDMA_PKT_COPY_LINEAR_SUBWIN_HEADER_tmz`: bit 18.
pub const SDMA_PKT_COPY_LINEAR_SUBWIN_HEADER_TMZ: Field = Field::new(18, 1);
/// `SDMA_PKT_COPY_LINEAR_SUBWIN_HEADER_elementsize`: bits 31:29, log2 of
/// the element size in bytes (0..=4: 1 to 16 bytes).
pub const SDMA_PKT_COPY_LINEAR_SUBWIN_HEADER_ELEMENTSIZE: Field = Field::new(29, 3);
/// `..._DW_3_src_x` / `..._DW_8_dst_x`: bits 13:0.
pub const SDMA_PKT_COPY_LINEAR_SUBWIN_X: Field = Field::new(0, 14);
/// `..._DW_3_src_y` / `..._DW_8_dst_y`: bits 29:16.
pub const SDMA_PKT_COPY_LINEAR_SUBWIN_Y: Field = Field::new(16, 14);
/// `..._DW_4_src_z` / `..._DW_9_dst_z`: bits 10:0.
pub const SDMA_PKT_COPY_LINEAR_SUBWIN_Z: Field = Field::new(0, 11);
/// `..._DW_4_src_pitch` / `..._DW_9_dst_pitch`: bits 31:13, elements minus one.
pub const SDMA_PKT_COPY_LINEAR_SUBWIN_PITCH: Field = Field::new(13, 19);
/// `..._DW_5_src_slice_pitch` / `..._DW_10_dst_slice_pitch`: bits 27:0,
/// elements minus one.
pub const SDMA_PKT_COPY_LINEAR_SUBWIN_SLICE_PITCH: Field = Field::new(0, 28);
/// `SDMA_PKT_COPY_LINEAR_SUBWIN_DW_11_rect_x`: bits 13:0, elements minus one.
pub const SDMA_PKT_COPY_LINEAR_SUBWIN_DW_11_RECT_X: Field = Field::new(0, 14);
/// `SDMA_PKT_COPY_LINEAR_SUBWIN_DW_11_rect_y`: bits 29:16, rows minus one.
pub const SDMA_PKT_COPY_LINEAR_SUBWIN_DW_11_RECT_Y: Field = Field::new(16, 14);
/// `SDMA_PKT_COPY_LINEAR_SUBWIN_DW_12_rect_z`: bits 10:0, slices minus one.
pub const SDMA_PKT_COPY_LINEAR_SUBWIN_DW_12_RECT_Z: Field = Field::new(0, 11);
/// `SDMA_PKT_COPY_LINEAR_SUBWIN_DW_12_dst_sw`: bits 17:16.
pub const SDMA_PKT_COPY_LINEAR_SUBWIN_DW_12_DST_SW: Field = Field::new(16, 2);
/// `SDMA_PKT_COPY_LINEAR_SUBWIN_DW_12_src_sw`: bits 25:24.
pub const SDMA_PKT_COPY_LINEAR_SUBWIN_DW_12_SRC_SW: Field = Field::new(24, 2);

// ---------------------------------------------------------------------------
// FENCE

/// `SDMA_PKT_FENCE`: write `data` to the dword at `addr` once every earlier
/// packet is done. ROCr uses it for the event mailbox (before a TRAP) and,
/// without platform atomics, for the completion signal. Its header bits
/// 16-25 (`mtype`, `gcc`, `sys`, `snp`, `gpa`, `l2_policy` in ROCr's header)
/// only steer caches.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[repr(C)]
pub struct SdmaPktFence {
    /// `HEADER`: op, sub_op, cache controls.
    pub header: u32,
    /// `ADDR_LO`: address bits 31:0.
    pub addr_lo: u32,
    /// `ADDR_HI`: address bits 63:32.
    pub addr_hi: u32,
    /// `DATA`: the value written.
    pub data: u32,
}
layout!(SdmaPktFence, 4, { header: 0, addr_lo: 1, addr_hi: 2, data: 3 });

// ---------------------------------------------------------------------------
// TRAP

/// `SDMA_PKT_TRAP`: raise an interrupt carrying `int_context`; ROCr puts the
/// signal's KFD event id there after writing it to the event mailbox.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[repr(C)]
pub struct SdmaPktTrap {
    /// `HEADER`: op, sub_op.
    pub header: u32,
    /// `INT_CONTEXT`: the interrupt context.
    pub int_context: u32,
}
layout!(SdmaPktTrap, 2, { header: 0, int_context: 1 });

/// `SDMA_PKT_TRAP_INT_CONTEXT_int_context`: bits 27:0.
pub const SDMA_PKT_TRAP_INT_CONTEXT_INT_CONTEXT: Field = Field::new(0, 28);

// ---------------------------------------------------------------------------
// POLL_REGMEM

/// `SDMA_PKT_POLL_REGMEM`: wait until `func((*addr & mask), value)` holds,
/// re-reading every `interval` for `retry_count` times (`0xfff`: forever).
/// ROCr polls a signal's dword for equality with 0 (`BuildPollCommand`) and
/// emits its HDP flush as a register poll (`hdp_flush_cmd`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[repr(C)]
pub struct SdmaPktPollRegmem {
    /// `HEADER`: op, sub_op, hdp_flush, func, mem_poll.
    pub header: u32,
    /// `ADDR_LO`: memory address bits 31:0 (or a register address).
    pub addr_lo: u32,
    /// `ADDR_HI`: memory address bits 63:32.
    pub addr_hi: u32,
    /// `VALUE`: the reference value.
    pub value: u32,
    /// `MASK`: applied to the polled dword before the comparison.
    pub mask: u32,
    /// `DW5`: interval, retry_count.
    pub dw5: u32,
}
layout!(SdmaPktPollRegmem, 6, {
    header: 0, addr_lo: 1, addr_hi: 2, value: 3, mask: 4, dw5: 5,
});

/// `SDMA_PKT_POLL_REGMEM_HEADER_hdp_flush`: bit 26.
pub const SDMA_PKT_POLL_REGMEM_HEADER_HDP_FLUSH: Field = Field::new(26, 1);
/// `SDMA_PKT_POLL_REGMEM_HEADER_func`: bits 30:28 (0 always, 1 <, 2 <=,
/// 3 ==, 4 !=, 5 >=, 6 >; 7 reserved).
pub const SDMA_PKT_POLL_REGMEM_HEADER_FUNC: Field = Field::new(28, 3);
/// `SDMA_PKT_POLL_REGMEM_HEADER_mem_poll`: bit 31 (1: memory, 0: register).
pub const SDMA_PKT_POLL_REGMEM_HEADER_MEM_POLL: Field = Field::new(31, 1);
/// `SDMA_PKT_POLL_REGMEM_DW5_interval`: bits 15:0.
pub const SDMA_PKT_POLL_REGMEM_DW5_INTERVAL: Field = Field::new(0, 16);
/// `SDMA_PKT_POLL_REGMEM_DW5_retry_count`: bits 27:16 (`0xfff`: retry
/// forever, ROCr's "Retry forever").
pub const SDMA_PKT_POLL_REGMEM_DW5_RETRY_COUNT: Field = Field::new(16, 12);

// ---------------------------------------------------------------------------
// ATOMIC

/// `SDMA_PKT_ATOMIC`: one TC atomic operation on `addr` with `src_data`
/// (and `cmp_data` for compare-and-swap); with `loop` set a compare-and-swap
/// is retried every `loop_interval` until it succeeds. ROCr decrements a
/// completion signal with `TC_OP_ATOMIC_ADD_RTN_64` (47) of `-1`
/// (`BuildAtomicDecrementCommand`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[repr(C)]
pub struct SdmaPktAtomic {
    /// `HEADER`: op, sub_op, loop, tmz, atomic_op.
    pub header: u32,
    /// `ADDR_LO`.
    pub addr_lo: u32,
    /// `ADDR_HI`.
    pub addr_hi: u32,
    /// `SRC_DATA_LO`.
    pub src_data_lo: u32,
    /// `SRC_DATA_HI`.
    pub src_data_hi: u32,
    /// `CMP_DATA_LO`.
    pub cmp_data_lo: u32,
    /// `CMP_DATA_HI`.
    pub cmp_data_hi: u32,
    /// `LOOP_INTERVAL`.
    pub loop_interval: u32,
}
layout!(SdmaPktAtomic, 8, {
    header: 0, addr_lo: 1, addr_hi: 2, src_data_lo: 3, src_data_hi: 4, cmp_data_lo: 5,
    cmp_data_hi: 6, loop_interval: 7,
});

/// `SDMA_PKT_ATOMIC_HEADER_loop`: bit 16 (ROCr's `l`).
pub const SDMA_PKT_ATOMIC_HEADER_LOOP: Field = Field::new(16, 1);
/// `SDMA_PKT_ATOMIC_HEADER_tmz`: bit 18.
pub const SDMA_PKT_ATOMIC_HEADER_TMZ: Field = Field::new(18, 1);
/// `SDMA_PKT_ATOMIC_HEADER_atomic_op`: bits 31:25 (ROCr's `operation`), a
/// `TC_OP` code.
pub const SDMA_PKT_ATOMIC_HEADER_ATOMIC_OP: Field = Field::new(25, 7);
/// `SDMA_PKT_ATOMIC_LOOP_INTERVAL_loop_interval`: bits 12:0.
pub const SDMA_PKT_ATOMIC_LOOP_INTERVAL_LOOP_INTERVAL: Field = Field::new(0, 13);

// ---------------------------------------------------------------------------
// CONSTANT_FILL

/// `SDMA_PKT_CONSTANT_FILL`: fill from `dst` with `src_data` in elements of
/// `1 << fillsize` bytes. ROCr (`BuildFillCommand`) fills dwords
/// (`fillsize = 2`) and splits at `kMaxSize_ = 0x3fffe0` bytes.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[repr(C)]
pub struct SdmaPktConstantFill {
    /// `HEADER`: op, sub_op, sw, fillsize.
    pub header: u32,
    /// `DST_ADDR_LO`.
    pub dst_addr_lo: u32,
    /// `DST_ADDR_HI`.
    pub dst_addr_hi: u32,
    /// `DATA`: src_data_31_0, the fill pattern.
    pub data: u32,
    /// `COUNT`: byte count minus one.
    pub count: u32,
}
layout!(SdmaPktConstantFill, 5, {
    header: 0, dst_addr_lo: 1, dst_addr_hi: 2, data: 3, count: 4,
});

/// `SDMA_PKT_CONSTANT_FILL_HEADER_sw`: bits 17:16, endian swap.
pub const SDMA_PKT_CONSTANT_FILL_HEADER_SW: Field = Field::new(16, 2);
/// `SDMA_PKT_CONSTANT_FILL_HEADER_fillsize`: bits 31:30 (0: byte, 1: word,
/// 2: dword).
pub const SDMA_PKT_CONSTANT_FILL_HEADER_FILLSIZE: Field = Field::new(30, 2);
/// `SDMA_PKT_CONSTANT_FILL_COUNT_count`: bits 21:0.
pub const SDMA_PKT_CONSTANT_FILL_COUNT_COUNT: Field = Field::new(0, 22);

// ---------------------------------------------------------------------------
// TIMESTAMP

/// `SDMA_PKT_TIMESTAMP_SET` / `_GET` / `_GET_GLOBAL` (one layout, three
/// sub-ops): GET and GET_GLOBAL write a 64-bit counter to the quadword at
/// the address (`write_addr_31_3`: the low three bits are not part of the
/// address); SET loads the local counter with `init_data`. ROCr writes the
/// global timestamp into a signal's `start_ts` / `end_ts`
/// (`BuildGetGlobalTimestampCommand`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[repr(C)]
pub struct SdmaPktTimestamp {
    /// `HEADER`: op, sub_op.
    pub header: u32,
    /// `WRITE_ADDR_LO` (GET) or `INIT_DATA_LO` (SET).
    pub addr_lo: u32,
    /// `WRITE_ADDR_HI` (GET) or `INIT_DATA_HI` (SET).
    pub addr_hi: u32,
}
layout!(SdmaPktTimestamp, 3, { header: 0, addr_lo: 1, addr_hi: 2 });

/// `SDMA_PKT_TIMESTAMP_GET_GLOBAL_WRITE_ADDR_LO_write_addr_31_3`: bits 31:3.
pub const SDMA_PKT_TIMESTAMP_GET_WRITE_ADDR_LO_WRITE_ADDR_31_3: Field = Field::new(3, 29);

/// The longest fixed-size packet, in dwords (COPY_LINEAR_SUBWIN).
pub const MAX_PACKET_DWORDS: usize = SdmaPktCopyLinearSubwin::DWORDS;
