//! SDMA engine: packet encodings against the amdgpu SDMA v4 header, and
//! what each packet does to memory, through `FlatMemory`.
//!
//! No SDMA packet header is installed on this machine (Debian 12 ships
//! neither `vega10_sdma_pkt_open.h` nor ROCr's `sdma_registers.h`; `libdrm`'s
//! headers do not define SDMA packets), so no C probe can compile against
//! one. The bit positions are checked here against the kernel header's
//! macros, quoted (`drivers/gpu/drm/amd/amdgpu/vega10_sdma_pkt_open.h`), and
//! `sdma_rocr_oracle.rs` checks our encodings of ROCr's packets against the
//! machine code of the installed ROCr library.

use proptest::prelude::*;
use sim::sdma::engine::{RunState, SdmaEngine, SdmaHooks, SdmaQueue, SdmaRing, Wait};
use sim::sdma::error::{PacketError, SdmaError};
use sim::sdma::mem::{Access, FaultReason, FlatMemory, MemoryFault, SdmaMemory};
use sim::sdma::packet::*;
use sim::sdma::raw::*;

const RING: u64 = 0x1000_0000;
const RING_SIZE: u64 = 4096;
const DATA: u64 = 0x2000_0000;
const DATA_LEN: u64 = 1 << 20;
const RO: u64 = 0x3000_0000;
const RO_LEN: u64 = 4096;
const UNMAPPED: u64 = 0x5000_0000;

#[derive(Default)]
struct Hooks {
    clock: u64,
    traps: Vec<u32>,
}

impl SdmaHooks for Hooks {
    fn gpu_clock(&mut self) -> u64 {
        self.clock += 100;
        self.clock
    }

    fn trap(&mut self, int_context: u32) {
        self.traps.push(int_context);
    }
}

struct Dev {
    mem: FlatMemory,
    engine: SdmaEngine,
    hooks: Hooks,
    wptr: u64,
}

impl Dev {
    fn new() -> Self {
        Self::at(0)
    }

    /// A device whose ring pointers start at `start`.
    fn at(start: u64) -> Self {
        let mut mem = FlatMemory::new();
        mem.map(RING, RING_SIZE, true)
            .map(DATA, DATA_LEN, true)
            .map(RO, RO_LEN, false);
        Self {
            mem,
            engine: SdmaEngine::new(SdmaRing::new(RING, RING_SIZE).unwrap(), start),
            hooks: Hooks::default(),
            wptr: start,
        }
    }

    /// Writes dwords at the write pointer, wrapping, and advances it.
    fn push(&mut self, dw: &[u32]) -> &mut Self {
        for d in dw {
            let a = RING + (self.wptr & (RING_SIZE - 1));
            self.mem.write_bytes(a, &d.to_le_bytes()).unwrap();
            self.wptr = self.wptr.wrapping_add(4);
        }
        self
    }

    fn packet(&mut self, p: Packet) -> &mut Self {
        let dw = p.encode().unwrap();
        self.push(&dw)
    }

    fn run(&mut self) -> Result<sim::sdma::engine::Progress, SdmaError> {
        self.engine.run(&self.mem, &mut self.hooks, self.wptr, 1000)
    }

    fn fill_data(&self, base: u64, len: usize, seed: u8) {
        let v: Vec<u8> = (0..len)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect();
        self.mem.write_bytes(base, &v).unwrap();
    }

    fn read(&self, va: u64, len: usize) -> Vec<u8> {
        let mut v = vec![0; len];
        self.mem.read_bytes(va, &mut v).unwrap();
        v
    }

    fn snapshot(&self) -> Vec<u8> {
        self.read(DATA, DATA_LEN as usize)
    }
}

fn idle(executed: u32) -> impl Fn(&sim::sdma::engine::Progress) {
    move |p| {
        assert_eq!(p.state, RunState::Idle);
        assert_eq!(p.executed, executed);
    }
}

// ---------------------------------------------------------------------------
// Encodings

/// Every bit field against `vega10_sdma_pkt_open.h`: (`_shift`, `_mask`).
#[test]
fn fields_match_the_kernel_header_macros() {
    let table: &[(&str, Field, u32, u32)] = &[
        // #define SDMA_PKT_HEADER_op_shift 0 / _mask 0x000000FF
        ("HEADER_op", SDMA_PKT_HEADER_OP, 0, 0xFF),
        // #define SDMA_PKT_HEADER_sub_op_shift 8 / _mask 0x000000FF
        ("HEADER_sub_op", SDMA_PKT_HEADER_SUB_OP, 8, 0xFF),
        // #define SDMA_PKT_NOP_HEADER_count_shift 16 / _mask 0x00003FFF
        ("NOP_HEADER_count", SDMA_PKT_NOP_HEADER_COUNT, 16, 0x3FFF),
        // #define SDMA_PKT_COPY_LINEAR_HEADER_encrypt_shift 16 / _mask 1
        (
            "COPY_LINEAR_HEADER_encrypt",
            SDMA_PKT_COPY_LINEAR_HEADER_ENCRYPT,
            16,
            1,
        ),
        // #define SDMA_PKT_COPY_LINEAR_HEADER_tmz_shift 18 / _mask 1
        (
            "COPY_LINEAR_HEADER_tmz",
            SDMA_PKT_COPY_LINEAR_HEADER_TMZ,
            18,
            1,
        ),
        // #define SDMA_PKT_COPY_LINEAR_HEADER_broadcast_shift 27 / _mask 1
        (
            "COPY_LINEAR_HEADER_broadcast",
            SDMA_PKT_COPY_LINEAR_HEADER_BROADCAST,
            27,
            1,
        ),
        // #define SDMA_PKT_COPY_LINEAR_COUNT_count_shift 0 / _mask 0x003FFFFF
        (
            "COPY_LINEAR_COUNT_count",
            SDMA_PKT_COPY_LINEAR_COUNT_COUNT,
            0,
            0x3FFFFF,
        ),
        // #define SDMA_PKT_COPY_LINEAR_PARAMETER_dst_sw_shift 16 / _mask 3
        (
            "COPY_LINEAR_PARAMETER_dst_sw",
            SDMA_PKT_COPY_LINEAR_PARAMETER_DST_SW,
            16,
            3,
        ),
        // #define SDMA_PKT_COPY_LINEAR_PARAMETER_src_sw_shift 24 / _mask 3
        (
            "COPY_LINEAR_PARAMETER_src_sw",
            SDMA_PKT_COPY_LINEAR_PARAMETER_SRC_SW,
            24,
            3,
        ),
        // #define SDMA_PKT_COPY_BROADCAST_LINEAR_PARAMETER_dst2_sw_shift 8
        (
            "COPY_BROADCAST_LINEAR_PARAMETER_dst2_sw",
            SDMA_PKT_COPY_BROADCAST_LINEAR_PARAMETER_DST2_SW,
            8,
            3,
        ),
        // #define SDMA_PKT_COPY_BROADCAST_LINEAR_PARAMETER_dst1_sw_shift 16
        (
            "COPY_BROADCAST_LINEAR_PARAMETER_dst1_sw",
            SDMA_PKT_COPY_BROADCAST_LINEAR_PARAMETER_DST1_SW,
            16,
            3,
        ),
        // #define SDMA_PKT_COPY_BROADCAST_LINEAR_PARAMETER_src_sw_shift 24
        (
            "COPY_BROADCAST_LINEAR_PARAMETER_src_sw",
            SDMA_PKT_COPY_BROADCAST_LINEAR_PARAMETER_SRC_SW,
            24,
            3,
        ),
        // #define SDMA_PKT_COPY_LINEAR_SUBWIN_HEADER_tmz_shift 18
        (
            "COPY_LINEAR_SUBWIN_HEADER_tmz",
            SDMA_PKT_COPY_LINEAR_SUBWIN_HEADER_TMZ,
            18,
            1,
        ),
        // #define SDMA_PKT_COPY_LINEAR_SUBWIN_HEADER_elementsize_shift 29 / _mask 7
        (
            "COPY_LINEAR_SUBWIN_HEADER_elementsize",
            SDMA_PKT_COPY_LINEAR_SUBWIN_HEADER_ELEMENTSIZE,
            29,
            7,
        ),
        // #define SDMA_PKT_COPY_LINEAR_SUBWIN_DW_3_src_x_shift 0 / _mask 0x3FFF
        (
            "COPY_LINEAR_SUBWIN_DW_3_src_x",
            SDMA_PKT_COPY_LINEAR_SUBWIN_X,
            0,
            0x3FFF,
        ),
        // #define SDMA_PKT_COPY_LINEAR_SUBWIN_DW_3_src_y_shift 16 / _mask 0x3FFF
        (
            "COPY_LINEAR_SUBWIN_DW_3_src_y",
            SDMA_PKT_COPY_LINEAR_SUBWIN_Y,
            16,
            0x3FFF,
        ),
        // #define SDMA_PKT_COPY_LINEAR_SUBWIN_DW_4_src_z_shift 0 / _mask 0x7FF
        (
            "COPY_LINEAR_SUBWIN_DW_4_src_z",
            SDMA_PKT_COPY_LINEAR_SUBWIN_Z,
            0,
            0x7FF,
        ),
        // #define SDMA_PKT_COPY_LINEAR_SUBWIN_DW_4_src_pitch_shift 13 / _mask 0x7FFFF
        (
            "COPY_LINEAR_SUBWIN_DW_4_src_pitch",
            SDMA_PKT_COPY_LINEAR_SUBWIN_PITCH,
            13,
            0x7FFFF,
        ),
        // #define SDMA_PKT_COPY_LINEAR_SUBWIN_DW_5_src_slice_pitch_shift 0 / _mask 0x0FFFFFFF
        (
            "COPY_LINEAR_SUBWIN_DW_5_src_slice_pitch",
            SDMA_PKT_COPY_LINEAR_SUBWIN_SLICE_PITCH,
            0,
            0x0FFF_FFFF,
        ),
        // #define SDMA_PKT_COPY_LINEAR_SUBWIN_DW_11_rect_x_shift 0 / _mask 0x3FFF
        (
            "COPY_LINEAR_SUBWIN_DW_11_rect_x",
            SDMA_PKT_COPY_LINEAR_SUBWIN_DW_11_RECT_X,
            0,
            0x3FFF,
        ),
        // #define SDMA_PKT_COPY_LINEAR_SUBWIN_DW_11_rect_y_shift 16 / _mask 0x3FFF
        (
            "COPY_LINEAR_SUBWIN_DW_11_rect_y",
            SDMA_PKT_COPY_LINEAR_SUBWIN_DW_11_RECT_Y,
            16,
            0x3FFF,
        ),
        // #define SDMA_PKT_COPY_LINEAR_SUBWIN_DW_12_rect_z_shift 0 / _mask 0x7FF
        (
            "COPY_LINEAR_SUBWIN_DW_12_rect_z",
            SDMA_PKT_COPY_LINEAR_SUBWIN_DW_12_RECT_Z,
            0,
            0x7FF,
        ),
        // #define SDMA_PKT_COPY_LINEAR_SUBWIN_DW_12_dst_sw_shift 16 / _mask 3
        (
            "COPY_LINEAR_SUBWIN_DW_12_dst_sw",
            SDMA_PKT_COPY_LINEAR_SUBWIN_DW_12_DST_SW,
            16,
            3,
        ),
        // #define SDMA_PKT_COPY_LINEAR_SUBWIN_DW_12_src_sw_shift 24 / _mask 3
        (
            "COPY_LINEAR_SUBWIN_DW_12_src_sw",
            SDMA_PKT_COPY_LINEAR_SUBWIN_DW_12_SRC_SW,
            24,
            3,
        ),
        // #define SDMA_PKT_TRAP_INT_CONTEXT_int_context_shift 0 / _mask 0x0FFFFFFF
        (
            "TRAP_INT_CONTEXT_int_context",
            SDMA_PKT_TRAP_INT_CONTEXT_INT_CONTEXT,
            0,
            0x0FFF_FFFF,
        ),
        // #define SDMA_PKT_POLL_REGMEM_HEADER_hdp_flush_shift 26 / _mask 1
        (
            "POLL_REGMEM_HEADER_hdp_flush",
            SDMA_PKT_POLL_REGMEM_HEADER_HDP_FLUSH,
            26,
            1,
        ),
        // #define SDMA_PKT_POLL_REGMEM_HEADER_func_shift 28 / _mask 7
        (
            "POLL_REGMEM_HEADER_func",
            SDMA_PKT_POLL_REGMEM_HEADER_FUNC,
            28,
            7,
        ),
        // #define SDMA_PKT_POLL_REGMEM_HEADER_mem_poll_shift 31 / _mask 1
        (
            "POLL_REGMEM_HEADER_mem_poll",
            SDMA_PKT_POLL_REGMEM_HEADER_MEM_POLL,
            31,
            1,
        ),
        // #define SDMA_PKT_POLL_REGMEM_DW5_interval_shift 0 / _mask 0xFFFF
        (
            "POLL_REGMEM_DW5_interval",
            SDMA_PKT_POLL_REGMEM_DW5_INTERVAL,
            0,
            0xFFFF,
        ),
        // #define SDMA_PKT_POLL_REGMEM_DW5_retry_count_shift 16 / _mask 0xFFF
        (
            "POLL_REGMEM_DW5_retry_count",
            SDMA_PKT_POLL_REGMEM_DW5_RETRY_COUNT,
            16,
            0xFFF,
        ),
        // #define SDMA_PKT_ATOMIC_HEADER_loop_shift 16 / _mask 1
        ("ATOMIC_HEADER_loop", SDMA_PKT_ATOMIC_HEADER_LOOP, 16, 1),
        // #define SDMA_PKT_ATOMIC_HEADER_tmz_shift 18 / _mask 1
        ("ATOMIC_HEADER_tmz", SDMA_PKT_ATOMIC_HEADER_TMZ, 18, 1),
        // #define SDMA_PKT_ATOMIC_HEADER_atomic_op_shift 25 / _mask 0x7F
        (
            "ATOMIC_HEADER_atomic_op",
            SDMA_PKT_ATOMIC_HEADER_ATOMIC_OP,
            25,
            0x7F,
        ),
        // #define SDMA_PKT_ATOMIC_LOOP_INTERVAL_loop_interval_shift 0 / _mask 0x1FFF
        (
            "ATOMIC_LOOP_INTERVAL_loop_interval",
            SDMA_PKT_ATOMIC_LOOP_INTERVAL_LOOP_INTERVAL,
            0,
            0x1FFF,
        ),
        // #define SDMA_PKT_CONSTANT_FILL_HEADER_sw_shift 16 / _mask 3
        (
            "CONSTANT_FILL_HEADER_sw",
            SDMA_PKT_CONSTANT_FILL_HEADER_SW,
            16,
            3,
        ),
        // #define SDMA_PKT_CONSTANT_FILL_HEADER_fillsize_shift 30 / _mask 3
        (
            "CONSTANT_FILL_HEADER_fillsize",
            SDMA_PKT_CONSTANT_FILL_HEADER_FILLSIZE,
            30,
            3,
        ),
        // #define SDMA_PKT_CONSTANT_FILL_COUNT_count_shift 0 / _mask 0x003FFFFF
        (
            "CONSTANT_FILL_COUNT_count",
            SDMA_PKT_CONSTANT_FILL_COUNT_COUNT,
            0,
            0x3FFFFF,
        ),
        // #define SDMA_PKT_TIMESTAMP_GET_GLOBAL_WRITE_ADDR_LO_write_addr_31_3_shift 3 / _mask 0x1FFFFFFF
        (
            "TIMESTAMP_GET_GLOBAL_WRITE_ADDR_LO_write_addr_31_3",
            SDMA_PKT_TIMESTAMP_GET_WRITE_ADDR_LO_WRITE_ADDR_31_3,
            3,
            0x1FFF_FFFF,
        ),
    ];
    for &(name, field, shift, mask) in table {
        assert_eq!((field.shift, field.mask()), (shift, mask), "{name}");
    }
    // Opcodes: #define SDMA_OP_NOP 0 ... SDMA_OP_DUMMY_TRAP 16.
    let ops = [
        (SDMA_OP_NOP, 0),
        (SDMA_OP_COPY, 1),
        (SDMA_OP_WRITE, 2),
        (SDMA_OP_INDIRECT, 4),
        (SDMA_OP_FENCE, 5),
        (SDMA_OP_TRAP, 6),
        (SDMA_OP_SEM, 7),
        (SDMA_OP_POLL_REGMEM, 8),
        (SDMA_OP_COND_EXE, 9),
        (SDMA_OP_ATOMIC, 10),
        (SDMA_OP_CONST_FILL, 11),
        (SDMA_OP_PTEPDE, 12),
        (SDMA_OP_TIMESTAMP, 13),
        (SDMA_OP_SRBM_WRITE, 14),
        (SDMA_OP_PRE_EXE, 15),
        (SDMA_OP_DUMMY_TRAP, 16),
    ];
    for (got, want) in ops {
        assert_eq!(got, want);
    }
    assert_eq!(SDMA_SUBOP_COPY_LINEAR_SUB_WIND, 4);
    assert_eq!(SDMA_SUBOP_TIMESTAMP_GET_GLOBAL, 2);
    // Word offsets (`_offset` macros): e.g. SDMA_PKT_COPY_LINEAR_DST_ADDR_HI_..._offset 6,
    // SDMA_PKT_ATOMIC_LOOP_INTERVAL_..._offset 7, SDMA_PKT_CONSTANT_FILL_COUNT_..._offset 4.
    assert_eq!(core::mem::offset_of!(SdmaPktCopyLinear, dst_addr_hi), 6 * 4);
    assert_eq!(core::mem::offset_of!(SdmaPktAtomic, loop_interval), 7 * 4);
    assert_eq!(core::mem::offset_of!(SdmaPktConstantFill, count), 4 * 4);
    assert_eq!(
        core::mem::offset_of!(SdmaPktCopyBroadcastLinear, dst2_addr_hi),
        8 * 4
    );
    assert_eq!(
        core::mem::offset_of!(SdmaPktCopyLinearSubwin, dw_12),
        12 * 4
    );
    assert_eq!(core::mem::offset_of!(SdmaPktPollRegmem, dw5), 5 * 4);
}

/// The dwords ROCr's `Build*Command` (gfx9, `BlitSdma<false, false>`)
/// produce, computed by hand from the header macros.
#[test]
fn rocr_packets_encode_bit_exact() {
    // BuildCopyCommand: op = SDMA_OP_COPY, sub_op = LINEAR, count = size - 1.
    let copy = Packet::CopyLinear(CopyLinear {
        byte_count: 100,
        src: 0x1122_3344_5566_7788,
        dst: 0x99aa_bbcc_ddee_ff00,
    });
    assert_eq!(
        copy.encode().unwrap(),
        [1, 99, 0, 0x5566_7788, 0x1122_3344, 0xddee_ff00, 0x99aa_bbcc]
    );
    // ROCr's largest single copy, kMaxSize_ = 0x3fffe0, fits the 22-bit count.
    let max = CopyLinear {
        byte_count: 0x3f_ffe0,
        src: DATA,
        dst: DATA,
    };
    assert_eq!(Packet::CopyLinear(max).encode().unwrap()[1], 0x3f_ffdf);
    // BuildBroadcastCopyCommand: broadcast = 1 (bit 27).
    let bc = Packet::CopyBroadcastLinear(CopyBroadcastLinear {
        byte_count: 64,
        src: 0x10,
        dst1: 0x20,
        dst2: 0x30,
    });
    assert_eq!(
        bc.encode().unwrap(),
        [0x0800_0001, 63, 0, 0x10, 0, 0x20, 0, 0x30, 0]
    );
    // BuildFenceCommand (gfx9: no mtype).
    let fence = Packet::Fence(Fence {
        addr: 0x7f00_1234_5678,
        data: 0xdead_beef,
    });
    assert_eq!(
        fence.encode().unwrap(),
        [5, 0x1234_5678, 0x7f00, 0xdead_beef]
    );
    // BuildTrapCommand: int_ctx = event_id.
    let trap = Packet::Trap(Trap {
        int_context: 0x0abc_def1,
    });
    assert_eq!(trap.encode().unwrap(), [6, 0x0abc_def1]);
    // BuildPollCommand: mem_poll = 1, func = 3 (IsEqual), mask ~0, interval 4,
    // retry_count 0xfff.
    let poll = Packet::PollRegmem(PollRegmem {
        target: PollTarget::Memory {
            addr: 0x7f00_0000_1004,
        },
        function: PollFunction::Equal,
        value: 0,
        mask: u32::MAX,
        interval: 4,
        retry_count: PollRegmem::RETRY_FOREVER,
    });
    assert_eq!(
        poll.encode().unwrap(),
        [0xb000_0008, 0x1004, 0x7f00, 0, 0xffff_ffff, 0x0fff_0004]
    );
    // BuildAtomicDecrementCommand: operation = SDMA_ATOMIC_ADD64 (47), src = -1.
    let atomic = Packet::Atomic(Atomic::rocr_signal_decrement(0x7f00_0000_2008));
    assert_eq!(
        atomic.encode().unwrap(),
        [0x5e00_000a, 0x2008, 0x7f00, u32::MAX, u32::MAX, 0, 0, 0]
    );
    assert_eq!(TC_OP_ATOMIC_ADD_RTN_64, 47);
    // BuildFillCommand: fillsize = 2, count = (dwords - 1) * 4.
    let fill = Packet::ConstantFill(ConstantFill::rocr_dword_fill(0x4000, 0x1234_5678, 16));
    assert_eq!(
        fill.encode().unwrap(),
        [0x8000_000b, 0x4000, 0, 0x1234_5678, 60]
    );
    // BuildGetGlobalTimestampCommand: op 13, sub_op 2.
    let ts = Packet::Timestamp(Timestamp::GetGlobal {
        addr: 0x7f00_0000_0040,
    });
    assert_eq!(ts.encode().unwrap(), [0x0000_020d, 0x40, 0x7f00]);
    // SubmitCommand's padding: one NOP of (pad_size / 4 - 1) dwords.
    let pad_size = 40u32;
    let nop = Packet::Nop(Nop {
        count: (pad_size / 4 - 1) as u16,
    });
    let dw = nop.encode().unwrap();
    assert_eq!(dw.len(), 10);
    assert_eq!(dw[0], (pad_size / 4 - 1) << 16);
    // BuildCopyRectCommand: op COPY, sub_op 4, element in bits 31:29.
    let rect = Packet::CopyLinearSubwin(CopyLinearSubwin {
        element_size_log2: 2,
        src: SubwinSurface {
            addr: 0x1000,
            x: 1,
            y: 2,
            z: 3,
            pitch: 16,
            slice_pitch: 256,
        },
        dst: SubwinSurface {
            addr: 0x2000,
            x: 0,
            y: 0,
            z: 0,
            pitch: 8,
            slice_pitch: 64,
        },
        rect: [4, 5, 6],
    });
    assert_eq!(
        rect.encode().unwrap(),
        [
            0x4000_0401,
            0x1000,
            0,
            1 | 2 << 16,
            3 | 15 << 13,
            255,
            0x2000,
            0,
            0,
            7 << 13,
            63,
            3 | 4 << 16,
            5
        ]
    );
}

#[test]
fn every_packet_round_trips_through_its_encoding() {
    let packets = [
        Packet::Nop(Nop { count: 0 }),
        Packet::Nop(Nop { count: 0x3fff }),
        Packet::CopyLinear(CopyLinear {
            byte_count: 1 << 22,
            src: u64::MAX - 10,
            dst: 3,
        }),
        Packet::Timestamp(Timestamp::Set { value: u64::MAX }),
        Packet::Timestamp(Timestamp::GetLocal { addr: 8 }),
        Packet::PollRegmem(PollRegmem {
            target: PollTarget::HdpFlush,
            function: PollFunction::Equal,
            value: 1,
            mask: 2,
            interval: 3,
            retry_count: 4,
        }),
        Packet::Atomic(Atomic {
            addr: 0x40,
            op: AtomicOp::CmpSwap,
            size: AtomicSize::U32,
            returns: false,
            src_data: 7,
            cmp_data: 9,
            loop_until_success: true,
            loop_interval: 0x1fff,
        }),
        Packet::ConstantFill(ConstantFill {
            dst: 0x11,
            data: 0xab,
            fill_size: FillSize::Byte,
            count: 0x3f_ffff,
        }),
    ];
    for p in packets {
        let dw = p.encode().unwrap();
        assert_eq!(packet_dwords(dw[0]).unwrap(), dw.len(), "{p:?}");
        assert_eq!(Packet::decode(&dw).unwrap(), p);
    }
    // Out-of-range fields are refused, not truncated.
    let bad = Packet::CopyLinear(CopyLinear {
        byte_count: (1 << 22) + 1,
        src: 0,
        dst: 0,
    });
    assert_eq!(
        bad.encode(),
        Err(PacketError::NotEncodable {
            packet: "COPY_LINEAR"
        })
    );
    let bad = Packet::Trap(Trap {
        int_context: 1 << 28,
    });
    assert!(bad.encode().is_err());
}

/// ROCr's `hdp_flush_cmd = {0x8, 0x0, 0x80000000, 0x0, 0x0, 0x0}`: a
/// register POLL_REGMEM with `func` = always, which completes at once.
#[test]
fn rocr_hdp_flush_literal_decodes_and_completes() {
    let literal = [0x8, 0x0, 0x8000_0000, 0x0, 0x0, 0x0];
    let p = Packet::decode(&literal).unwrap();
    assert_eq!(
        p,
        Packet::PollRegmem(PollRegmem {
            target: PollTarget::RegisterAlways {
                addr_lo: 0,
                addr_hi: 0x8000_0000
            },
            function: PollFunction::Always,
            value: 0,
            mask: 0,
            interval: 0,
            retry_count: 0,
        })
    );
    let mut dev = Dev::new();
    dev.push(&literal);
    // The kernel's form (sdma_v4_0_ring_emit_hdp_flush): hdp_flush = 1, func = 3.
    dev.push(&[
        SDMA_OP_POLL_REGMEM as u32 | 1 << 26 | 3 << 28,
        0x5400,
        0x5404,
        0,
        0,
        0x0fff_000a,
    ]);
    idle(2)(&dev.run().unwrap());
}

// ---------------------------------------------------------------------------
// COPY_LINEAR

fn copy(src: u64, dst: u64, n: u32) -> Packet {
    Packet::CopyLinear(CopyLinear {
        byte_count: n,
        src,
        dst,
    })
}

#[test]
fn copy_linear_any_size_and_alignment() {
    for &(soff, doff, n) in &[
        (0u64, 0x8_0000u64, 1u32),
        (1, 0x8_0003, 7),
        (3, 0x8_0001, 4096 + 13),
        (0, 0x8_0000, 0x3_ffff),
        (5, 0x8_0000, 0x8_0000 - 5),
    ] {
        let mut dev = Dev::new();
        dev.fill_data(DATA, 0x8_0000, soff as u8);
        let before = dev.snapshot();
        dev.packet(copy(DATA + soff, DATA + doff, n));
        idle(1)(&dev.run().unwrap());
        let mut want = before.clone();
        let (s, d, n) = (soff as usize, doff as usize, n as usize);
        want.copy_within(s..s + n, d);
        assert!(
            dev.snapshot() == want,
            "copy {soff:#x} -> {doff:#x}, {n} bytes"
        );
    }
}

#[test]
fn copy_linear_of_the_largest_count_moves_four_mebibytes() {
    let mut mem = FlatMemory::new();
    mem.map(RING, RING_SIZE, true).map(DATA, 9 << 20, true);
    let mut engine = SdmaEngine::new(SdmaRing::new(RING, RING_SIZE).unwrap(), 0);
    let src: Vec<u8> = (0..4u32 << 20).map(|i| (i % 251) as u8).collect();
    mem.write_bytes(DATA, &src).unwrap();
    let dw = copy(DATA, DATA + (5 << 20), 1 << 22).encode().unwrap();
    assert_eq!(dw[1], 0x3f_ffff);
    for (i, d) in dw.iter().enumerate() {
        mem.write_bytes(RING + 4 * i as u64, &d.to_le_bytes())
            .unwrap();
    }
    let p = engine.run(&mem, &mut Hooks::default(), 28, 10).unwrap();
    idle(1)(&p);
    let mut out = vec![0; 4 << 20];
    mem.read_bytes(DATA + (5 << 20), &mut out).unwrap();
    assert!(out == src);
}

#[test]
fn a_copy_split_like_rocr_moves_as_one() {
    // ROCr splits at kMaxSize_ = 0x3fffe0; three packets, then a fence.
    let mut mem = FlatMemory::new();
    mem.map(RING, RING_SIZE, true).map(DATA, 20 << 20, true);
    let mut engine = SdmaEngine::new(SdmaRing::new(RING, RING_SIZE).unwrap(), 0);
    let total = 0x3f_ffe0 * 2 + 12345;
    let src: Vec<u8> = (0..total).map(|i| (i % 253) as u8).collect();
    mem.write_bytes(DATA + 1, &src).unwrap();
    let mut dw = Vec::new();
    let mut done = 0u64;
    while done < total {
        let n = 0x3f_ffe0.min(total - done);
        dw.extend(
            copy(DATA + 1 + done, DATA + (10 << 20) + done, n as u32)
                .encode()
                .unwrap(),
        );
        done += n;
    }
    dw.extend(
        Packet::Fence(Fence {
            addr: DATA + (19 << 20),
            data: 1,
        })
        .encode()
        .unwrap(),
    );
    for (i, d) in dw.iter().enumerate() {
        mem.write_bytes(RING + 4 * i as u64, &d.to_le_bytes())
            .unwrap();
    }
    let p = engine
        .run(&mem, &mut Hooks::default(), 4 * dw.len() as u64, 100)
        .unwrap();
    idle(4)(&p);
    let mut out = vec![0; total as usize];
    mem.read_bytes(DATA + (10 << 20), &mut out).unwrap();
    assert!(out == src);
    assert_eq!(mem.load_u32(DATA + (19 << 20)).unwrap(), 1);
}

#[test]
fn continuing_copies_that_overlap_together_run_one_after_the_other() {
    // Each packet alone does not overlap, but the second reads what the first
    // wrote: the result is that of two copies in order, not of one memmove.
    let mut dev = Dev::new();
    dev.fill_data(DATA, 300, 2);
    let mut want = dev.read(DATA, 300);
    want.copy_within(0..100, 100);
    want.copy_within(100..200, 200);
    dev.packet(copy(DATA, DATA + 100, 100))
        .packet(copy(DATA + 100, DATA + 200, 100));
    idle(2)(&dev.run().unwrap());
    assert_eq!(dev.read(DATA, 300), want);
}

#[test]
fn a_fault_in_a_run_of_copies_stops_at_that_packet() {
    let mut dev = Dev::new();
    dev.fill_data(DATA, 0x3000, 8);
    let before = dev.snapshot();
    let dst = DATA + DATA_LEN - 0x2000;
    dev.packet(copy(DATA, dst, 0x1000))
        .packet(copy(DATA + 0x1000, dst + 0x1000, 0x1000))
        .packet(copy(DATA + 0x2000, dst + 0x2000, 0x1000));
    let e = dev.run().unwrap_err();
    assert_eq!(
        e,
        SdmaError::Memory {
            offset: 56,
            packet: "COPY_LINEAR",
            fault: MemoryFault {
                address: DATA + DATA_LEN,
                access: Access::Write,
                reason: FaultReason::NotPresent
            }
        }
    );
    assert_eq!(dev.engine.rptr(), 56);
    // The two packets before it copied; the faulting one wrote nothing.
    let mut want = before;
    let d = (dst - DATA) as usize;
    want.copy_within(0..0x2000, d);
    assert!(dev.snapshot() == want);
}

/// Reference: the engine streams bytes in ascending order, so byte `i` of
/// the destination gets what byte `i` of the source holds when it is read.
fn bytewise_forward(mem: &mut [u8], src: usize, dst: usize, n: usize) {
    for i in 0..n {
        mem[dst + i] = mem[src + i];
    }
}

#[test]
fn overlapping_copies_run_forward() {
    for &(src, dst, n) in &[
        (0usize, 1usize, 100usize),
        (0, 3, 4096),
        (10, 17, 1000),
        (0, 4096, 10000),
        (100, 40, 5000),
        (7, 7, 64),
        (0, 64 * 1024 + 3, 200 * 1024),
    ] {
        let mut dev = Dev::new();
        dev.fill_data(DATA, 0x6_0000, 9);
        let mut want = dev.snapshot();
        bytewise_forward(&mut want, src, dst, n);
        dev.packet(copy(DATA + src as u64, DATA + dst as u64, n as u32));
        idle(1)(&dev.run().unwrap());
        assert!(dev.snapshot() == want, "overlap {src} -> {dst}, {n} bytes");
    }
}

#[test]
fn broadcast_copy_writes_both_destinations() {
    let mut dev = Dev::new();
    dev.fill_data(DATA, 5000, 1);
    dev.packet(Packet::CopyBroadcastLinear(CopyBroadcastLinear {
        byte_count: 5000,
        src: DATA,
        dst1: DATA + 0x1_0000,
        dst2: DATA + 0x2_0001,
    }));
    idle(1)(&dev.run().unwrap());
    let src = dev.read(DATA, 5000);
    assert_eq!(dev.read(DATA + 0x1_0000, 5000), src);
    assert_eq!(dev.read(DATA + 0x2_0001, 5000), src);
}

#[test]
fn copy_header_features_not_modelled_are_refused() {
    let mut dw = copy(DATA, DATA + 64, 64).encode().unwrap();
    dw[0] |= 1 << 18; // tmz
    let e = Packet::decode(&dw).unwrap_err();
    assert!(
        matches!(
            e,
            PacketError::Unsupported {
                packet: "COPY_LINEAR",
                ..
            }
        ),
        "{e}"
    );
    let mut dw = copy(DATA, DATA + 64, 64).encode().unwrap();
    dw[2] = 2 << 24; // src_sw
    assert!(matches!(
        Packet::decode(&dw).unwrap_err(),
        PacketError::Unsupported {
            what: "source endian swap (src_sw)",
            ..
        }
    ));
    let mut dw = copy(DATA, DATA + 64, 64).encode().unwrap();
    dw[1] = 1 << 22; // count beyond 22 bits (ROCr's 30-bit count_ext is a later engine)
    assert_eq!(
        Packet::decode(&dw).unwrap_err(),
        PacketError::Field {
            packet: "COPY_LINEAR",
            field: "count",
            value: 1 << 22,
            reason: "above the 22 bits of the SDMA v4 count field"
        }
    );
}

/// Device memory that only provides the required methods, so the engine
/// runs the trait's default (bounce-buffer) `copy` and `fill`.
struct PlainMemory(FlatMemory);

impl SdmaMemory for PlainMemory {
    fn check(&self, va: u64, len: u64, access: Access) -> Result<(), MemoryFault> {
        self.0.check(va, len, access)
    }
    fn read_bytes(&self, va: u64, buf: &mut [u8]) -> Result<(), MemoryFault> {
        self.0.read_bytes(va, buf)
    }
    fn write_bytes(&self, va: u64, data: &[u8]) -> Result<(), MemoryFault> {
        self.0.write_bytes(va, data)
    }
    fn load_u32(&self, va: u64) -> Result<u32, MemoryFault> {
        self.0.load_u32(va)
    }
    fn load_u64(&self, va: u64) -> Result<u64, MemoryFault> {
        self.0.load_u64(va)
    }
    fn store_u32(&self, va: u64, value: u32) -> Result<(), MemoryFault> {
        self.0.store_u32(va, value)
    }
    fn store_u64(&self, va: u64, value: u64) -> Result<(), MemoryFault> {
        self.0.store_u64(va, value)
    }
    fn compare_exchange_u32(
        &self,
        va: u64,
        c: u32,
        n: u32,
    ) -> Result<Result<u32, u32>, MemoryFault> {
        self.0.compare_exchange_u32(va, c, n)
    }
    fn compare_exchange_u64(
        &self,
        va: u64,
        c: u64,
        n: u64,
    ) -> Result<Result<u64, u64>, MemoryFault> {
        self.0.compare_exchange_u64(va, c, n)
    }
}

#[test]
fn the_default_bulk_methods_give_the_same_results() {
    let cases: &[(u64, u64, u32)] = &[
        (0, 0x4_0000, 200_000),
        (0, 100, 150_000),
        (100, 0, 150_000),
        (0, 0x1_0003, 0x2_0000),
    ];
    for &(src, dst, n) in cases {
        let mut flat = Dev::new();
        flat.fill_data(DATA, 0x8_0000, 6);
        let mut plain_mem = FlatMemory::new();
        plain_mem
            .map(RING, RING_SIZE, true)
            .map(DATA, DATA_LEN, true);
        let plain = PlainMemory(plain_mem);
        plain.write_bytes(DATA, &flat.read(DATA, 0x8_0000)).unwrap();
        let fill = Packet::ConstantFill(ConstantFill {
            dst: DATA + 0x9_0001,
            data: 0x1122_3344,
            fill_size: FillSize::Byte,
            count: 70_000,
        });
        flat.packet(copy(DATA + src, DATA + dst, n)).packet(fill);
        let dw: Vec<u32> = copy(DATA + src, DATA + dst, n)
            .encode()
            .unwrap()
            .into_iter()
            .chain(fill.encode().unwrap())
            .collect();
        for (i, d) in dw.iter().enumerate() {
            plain
                .write_bytes(RING + 4 * i as u64, &d.to_le_bytes())
                .unwrap();
        }
        idle(2)(&flat.run().unwrap());
        let mut engine = SdmaEngine::new(SdmaRing::new(RING, RING_SIZE).unwrap(), 0);
        idle(2)(
            &engine
                .run(&plain, &mut Hooks::default(), flat.wptr, 10)
                .unwrap(),
        );
        let mut out = vec![0; DATA_LEN as usize];
        plain.read_bytes(DATA, &mut out).unwrap();
        assert!(out == flat.snapshot(), "{src:#x} -> {dst:#x}, {n}");
    }
}

// ---------------------------------------------------------------------------
// COPY_LINEAR_SUBWIN

#[test]
fn subwindow_copy_matches_a_reference_loop() {
    let dev = Dev::new();
    dev.fill_data(DATA, 0x4_0000, 3);
    let before = dev.snapshot();
    for e in 0..=4u8 {
        let mut dev = Dev::new();
        dev.mem.write_bytes(DATA, &before).unwrap();
        let es = 1usize << e;
        let c = CopyLinearSubwin {
            element_size_log2: e,
            src: SubwinSurface {
                addr: DATA,
                x: 3,
                y: 2,
                z: 1,
                pitch: 40,
                slice_pitch: 40 * 20,
            },
            dst: SubwinSurface {
                addr: DATA + 0x2_0000,
                x: 1,
                y: 0,
                z: 2,
                pitch: 33,
                slice_pitch: 33 * 9,
            },
            rect: [17, 7, 3],
        };
        dev.packet(Packet::CopyLinearSubwin(c));
        idle(1)(&dev.run().unwrap());
        let mut want = before.clone();
        for z in 0..3usize {
            for y in 0..7usize {
                let s = ((1 + z) * 800 + (2 + y) * 40 + 3) * es;
                let d = 0x2_0000 + ((2 + z) * 297 + y * 33 + 1) * es;
                want.copy_within(s..s + 17 * es, d);
            }
        }
        assert!(dev.snapshot() == want, "element size {es}");
    }
}

#[test]
fn subwindow_with_one_row_out_of_range_writes_nothing() {
    let mut dev = Dev::new();
    dev.fill_data(DATA, DATA_LEN as usize, 5);
    let before = dev.snapshot();
    // The last row of the destination ends past the mapping.
    let c = CopyLinearSubwin {
        element_size_log2: 0,
        src: SubwinSurface {
            addr: DATA,
            x: 0,
            y: 0,
            z: 0,
            pitch: 64,
            slice_pitch: 64 * 64,
        },
        dst: SubwinSurface {
            addr: DATA + DATA_LEN - 64 * 4,
            x: 0,
            y: 0,
            z: 0,
            pitch: 64,
            slice_pitch: 64 * 64,
        },
        rect: [64, 5, 1],
    };
    dev.packet(Packet::CopyLinearSubwin(c));
    let e = dev.run().unwrap_err();
    assert_eq!(
        e,
        SdmaError::Memory {
            offset: 0,
            packet: "COPY_LINEAR_SUBWIN",
            fault: MemoryFault {
                address: DATA + DATA_LEN,
                access: Access::Write,
                reason: FaultReason::NotPresent
            }
        }
    );
    assert!(dev.snapshot() == before);
}

// ---------------------------------------------------------------------------
// CONSTANT_FILL

#[test]
fn constant_fill_in_bytes_words_and_dwords() {
    for (fill_size, count, want_bytes) in [
        (FillSize::Byte, 9u32, 10usize),
        (FillSize::Word, 9, 10),
        (FillSize::Dword, 15, 16),
        // The kernel's form: count = byte_count - 1 (sdma_v4_0_emit_fill_buffer).
        (FillSize::Dword, 4 * 7 - 1, 28),
        // ROCr's form: count = (dwords - 1) * 4.
        (FillSize::Dword, (7 - 1) * 4, 28),
    ] {
        let mut dev = Dev::new();
        let dst = DATA + 0x100;
        let p = ConstantFill {
            dst,
            data: 0xa1b2_c3d4,
            fill_size,
            count,
        };
        dev.packet(Packet::ConstantFill(p));
        idle(1)(&dev.run().unwrap());
        let got = dev.read(dst - 4, want_bytes + 8);
        let pattern = 0xa1b2_c3d4u32.to_le_bytes();
        let e = fill_size.bytes() as usize;
        assert_eq!(&got[..4], &[0; 4], "nothing below");
        for (i, b) in got[4..4 + want_bytes].iter().enumerate() {
            assert_eq!(*b, pattern[i % e], "{fill_size:?} byte {i}");
        }
        assert_eq!(&got[4 + want_bytes..], &[0; 4], "nothing above");
    }
}

#[test]
fn rocr_fill_of_the_largest_packet() {
    let mut dev = Dev::new();
    // kMaxSize_ = 0x3fffe0 bytes would pass the mapping; 0x4000 dwords fit.
    dev.packet(Packet::ConstantFill(ConstantFill::rocr_dword_fill(
        DATA,
        0x5a5a_5a5a,
        0x4000,
    )));
    idle(1)(&dev.run().unwrap());
    assert!(dev.read(DATA, 0x1_0000).iter().all(|b| *b == 0x5a));
    assert_eq!(dev.read(DATA + 0x1_0000, 4), [0; 4]);
    let big = ConstantFill::rocr_dword_fill(DATA, 0, 0x3f_ffe0 / 4);
    assert_eq!(big.elements(), 0xf_fff8);
    assert!(Packet::ConstantFill(big).encode().is_ok());
}

#[test]
fn fill_fields_are_range_checked() {
    let good = ConstantFill {
        dst: DATA,
        data: 0,
        fill_size: FillSize::Dword,
        count: 3,
    };
    let mut dw = Packet::ConstantFill(good).encode().unwrap();
    dw[0] |= 3 << 30;
    assert!(matches!(
        Packet::decode(&dw).unwrap_err(),
        PacketError::Field {
            field: "fillsize",
            value: 3,
            ..
        }
    ));
    let mut dw = Packet::ConstantFill(good).encode().unwrap();
    dw[1] += 2;
    assert!(matches!(
        Packet::decode(&dw).unwrap_err(),
        PacketError::Field {
            field: "dst_addr",
            reason: "not aligned to the fill size",
            ..
        }
    ));
}

// ---------------------------------------------------------------------------
// FENCE, TRAP, TIMESTAMP

#[test]
fn fence_trap_and_timestamps() {
    let mut dev = Dev::new();
    dev.packet(Packet::Fence(Fence {
        addr: DATA + 0x40,
        data: 0x1234_5678,
    }))
    .packet(Packet::Trap(Trap {
        int_context: 0x0765_4321,
    }))
    .packet(Packet::Timestamp(Timestamp::GetGlobal {
        addr: DATA + 0x80,
    }))
    .packet(Packet::Timestamp(Timestamp::Set { value: 1_000_000 }))
    .packet(Packet::Timestamp(Timestamp::GetLocal { addr: DATA + 0x88 }));
    idle(5)(&dev.run().unwrap());
    assert_eq!(dev.mem.load_u32(DATA + 0x40).unwrap(), 0x1234_5678);
    assert_eq!(dev.hooks.traps, [0x0765_4321]);
    // The hooks' clock reads 100, 200, 300: GET_GLOBAL saw 100; SET at 200
    // loaded 1_000_000; GET at 300 sees 1_000_100.
    assert_eq!(dev.mem.load_u64(DATA + 0x80).unwrap(), 100);
    assert_eq!(dev.mem.load_u64(DATA + 0x88).unwrap(), 1_000_100);
}

#[test]
fn misaligned_fence_and_timestamp_addresses_are_bad_packets() {
    let mut dw = Packet::Fence(Fence {
        addr: DATA,
        data: 0,
    })
    .encode()
    .unwrap();
    dw[1] |= 2;
    assert!(matches!(
        Packet::decode(&dw).unwrap_err(),
        PacketError::Field {
            packet: "FENCE",
            field: "addr",
            reason: "not dword aligned",
            ..
        }
    ));
    // write_addr_31_3: the low three bits are not part of the address.
    let mut dw = Packet::Timestamp(Timestamp::GetGlobal { addr: DATA })
        .encode()
        .unwrap();
    dw[1] |= 4;
    assert!(matches!(
        Packet::decode(&dw).unwrap_err(),
        PacketError::Field {
            packet: "TIMESTAMP",
            field: "write_addr",
            ..
        }
    ));
}

// ---------------------------------------------------------------------------
// ATOMIC

fn atomic(op: AtomicOp, size: AtomicSize, src: u64, cmp: u64) -> Atomic {
    Atomic {
        addr: DATA + 0x200,
        op,
        size,
        returns: true,
        src_data: src,
        cmp_data: cmp,
        loop_until_success: false,
        loop_interval: 0,
    }
}

#[test]
fn rocr_signal_decrement() {
    let mut dev = Dev::new();
    dev.mem.store_u64(DATA + 0x10, 3).unwrap();
    dev.packet(Packet::Atomic(Atomic::rocr_signal_decrement(DATA + 0x10)));
    dev.packet(Packet::Atomic(Atomic::rocr_signal_decrement(DATA + 0x10)));
    idle(2)(&dev.run().unwrap());
    assert_eq!(dev.mem.load_u64(DATA + 0x10).unwrap(), 1);
}

#[test]
fn every_integer_atomic_op() {
    use AtomicOp::*;
    use AtomicSize::*;
    // (op, size, old, src, cmp, new)
    let cases: &[(AtomicOp, AtomicSize, u64, u64, u64, u64)] = &[
        (Swap, U64, 5, 9, 0, 9),
        (CmpSwap, U64, 5, 9, 5, 9),
        (CmpSwap, U64, 5, 9, 4, 5),
        (Add, U64, u64::MAX, 2, 0, 1),
        (Sub, U64, 1, 2, 0, u64::MAX),
        (SMin, U64, 5, (-3i64) as u64, 0, (-3i64) as u64),
        (UMin, U64, 5, (-3i64) as u64, 0, 5),
        (SMax, U64, 5, (-3i64) as u64, 0, 5),
        (UMax, U64, 5, (-3i64) as u64, 0, (-3i64) as u64),
        (And, U64, 0b1100, 0b1010, 0, 0b1000),
        (Or, U64, 0b1100, 0b1010, 0, 0b1110),
        (Xor, U64, 0b1100, 0b1010, 0, 0b0110),
        (Inc, U64, 4, 5, 0, 5),
        (Inc, U64, 5, 5, 0, 0),
        (Dec, U64, 3, 5, 0, 2),
        (Dec, U64, 0, 5, 0, 5),
        (Dec, U64, 9, 5, 0, 5),
        (Add, U32, 0xffff_ffff, 1, 0, 0),
        (SMin, U32, 1, 0xffff_fffe, 0, 0xffff_fffe),
        (UMax, U32, 1, 0xffff_fffe, 0, 0xffff_fffe),
        (CmpSwap, U32, 7, 1, 7, 1),
    ];
    for &(op, size, old, src, cmp, new) in cases {
        let mut dev = Dev::new();
        let a = atomic(op, size, src, cmp);
        // Neighbouring dword guards a 32-bit op against writing 64 bits.
        dev.mem
            .store_u64(a.addr, 0xdead_beef_0000_0000 | old)
            .unwrap();
        if size == U64 {
            dev.mem.store_u64(a.addr, old).unwrap();
        }
        for returns in [true, false] {
            let mut a = a;
            a.returns = returns;
            let dw = Packet::Atomic(a).encode().unwrap();
            assert_eq!(Packet::decode(&dw).unwrap(), Packet::Atomic(a));
        }
        dev.packet(Packet::Atomic(a));
        idle(1)(&dev.run().unwrap());
        match size {
            U64 => assert_eq!(dev.mem.load_u64(a.addr).unwrap(), new, "{op:?} {size:?}"),
            U32 => {
                assert_eq!(
                    u64::from(dev.mem.load_u32(a.addr).unwrap()),
                    new,
                    "{op:?} {size:?}"
                );
                assert_eq!(dev.mem.load_u32(a.addr + 4).unwrap(), 0xdead_beef);
            }
        }
    }
}

#[test]
fn looping_compare_and_swap_waits_until_it_succeeds() {
    let mut dev = Dev::new();
    let mut a = atomic(AtomicOp::CmpSwap, AtomicSize::U64, 1, 0);
    a.loop_until_success = true;
    a.loop_interval = 128;
    dev.mem.store_u64(a.addr, 7).unwrap();
    dev.packet(Packet::Atomic(a)).packet(Packet::Fence(Fence {
        addr: DATA,
        data: 1,
    }));
    let p = dev.run().unwrap();
    assert_eq!(
        p.state,
        RunState::Waiting(Wait::AtomicLoop {
            addr: a.addr,
            interval: 128
        })
    );
    assert_eq!((p.executed, p.rptr), (0, 0));
    assert_eq!(dev.mem.load_u32(DATA).unwrap(), 0, "the fence waits too");
    dev.mem.store_u64(a.addr, 0).unwrap();
    idle(2)(&dev.run().unwrap());
    assert_eq!(dev.mem.load_u64(a.addr).unwrap(), 1);
    assert_eq!(dev.mem.load_u32(DATA).unwrap(), 1);
}

#[test]
fn atomic_opcodes_that_are_not_integer_atomics_are_refused() {
    // TC_OP_ATOMIC_FCMPSWAP_RTN_64 (0x21), TC_OP_WRITE (0x20), TC_OP_WBINVL2 (0x60).
    for code in [0x21u32, 0x20, 0x60, 0x7b] {
        let mut dw = Packet::Atomic(Atomic::rocr_signal_decrement(DATA))
            .encode()
            .unwrap();
        dw[0] = (dw[0] & 0x01ff_ffff) | code << 25;
        assert_eq!(
            Packet::decode(&dw).unwrap_err(),
            PacketError::Field {
                packet: "ATOMIC",
                field: "atomic_op",
                value: code.into(),
                reason: "not an integer TC atomic opcode"
            }
        );
    }
    // A 64-bit atomic needs a quadword-aligned address.
    let mut dw = Packet::Atomic(Atomic::rocr_signal_decrement(DATA))
        .encode()
        .unwrap();
    dw[1] |= 4;
    assert!(matches!(
        Packet::decode(&dw).unwrap_err(),
        PacketError::Field {
            packet: "ATOMIC",
            field: "addr",
            reason: "not quadword aligned",
            ..
        }
    ));
}

// ---------------------------------------------------------------------------
// POLL_REGMEM

fn poll(function: PollFunction, value: u32, mask: u32, retry_count: u16) -> Packet {
    Packet::PollRegmem(PollRegmem {
        target: PollTarget::Memory { addr: DATA + 0x300 },
        function,
        value,
        mask,
        interval: 4,
        retry_count,
    })
}

#[test]
fn poll_functions_with_mask() {
    use PollFunction::*;
    // (function, memory, value, mask, holds)
    let cases = [
        (Always, 5, 0, 0, true),
        (Less, 0x105, 6, 0xff, true),
        (Less, 0x106, 6, 0xff, false),
        (LessEqual, 6, 6, !0, true),
        (Equal, 0xff00_0000, 0, 0x00ff_ffff, true),
        (Equal, 1, 0, !0, false),
        (NotEqual, 1, 0, !0, true),
        (GreaterEqual, 6, 7, !0, false),
        (Greater, 8, 7, !0, true),
    ];
    for (f, memory, value, mask, holds) in cases {
        let mut dev = Dev::new();
        dev.mem.store_u32(DATA + 0x300, memory).unwrap();
        dev.packet(poll(f, value, mask, PollRegmem::RETRY_FOREVER));
        let p = dev.run().unwrap();
        if holds {
            idle(1)(&p);
        } else {
            assert_eq!(
                p.state,
                RunState::Waiting(Wait::Poll {
                    addr: DATA + 0x300,
                    interval: 4
                }),
                "{f:?}"
            );
        }
    }
    let mut dw = poll(Equal, 0, 0, 0).encode().unwrap();
    dw[0] |= 7 << 28;
    assert!(matches!(
        Packet::decode(&dw).unwrap_err(),
        PacketError::Field {
            packet: "POLL_REGMEM",
            field: "func",
            value: 7,
            ..
        }
    ));
}

#[test]
fn poll_waits_without_blocking_then_continues() {
    let mut dev = Dev::new();
    dev.mem.store_u32(DATA + 0x300, 1).unwrap();
    dev.packet(Packet::Fence(Fence {
        addr: DATA,
        data: 1,
    }))
    .packet(poll(PollFunction::Equal, 0, !0, PollRegmem::RETRY_FOREVER))
    .packet(Packet::Fence(Fence {
        addr: DATA + 4,
        data: 2,
    }));
    for _ in 0..100 {
        let p = dev.run().unwrap();
        assert!(matches!(p.state, RunState::Waiting(Wait::Poll { .. })));
        assert_eq!(dev.engine.rptr(), 16, "the read pointer stays on the poll");
    }
    assert_eq!(dev.mem.load_u32(DATA + 4).unwrap(), 0);
    dev.mem.store_u32(DATA + 0x300, 0).unwrap();
    idle(2)(&dev.run().unwrap());
    assert_eq!(dev.mem.load_u32(DATA + 4).unwrap(), 2);
}

#[test]
fn poll_with_finite_retries_times_out() {
    let mut dev = Dev::new();
    dev.mem.store_u32(DATA + 0x300, 1).unwrap();
    dev.packet(Packet::Fence(Fence {
        addr: DATA,
        data: 1,
    }))
    .packet(poll(PollFunction::Equal, 0, !0, 3));
    // The first poll and two retries wait; the third retry fails for good.
    for _ in 0..3 {
        assert!(matches!(dev.run().unwrap().state, RunState::Waiting(_)));
    }
    assert_eq!(
        dev.run().unwrap_err(),
        SdmaError::PollTimeout {
            offset: 16,
            addr: DATA + 0x300
        }
    );
}

#[test]
fn register_polls_other_than_hdp_flush_are_not_modelled() {
    let dw = [SDMA_OP_POLL_REGMEM as u32 | 3 << 28, 0x1234, 0, 0, !0, 0];
    assert!(matches!(
        Packet::decode(&dw).unwrap_err(),
        PacketError::Unsupported {
            packet: "POLL_REGMEM",
            ..
        }
    ));
}

// ---------------------------------------------------------------------------
// NOP, ring wrap, pointers

#[test]
fn nops_are_skipped_including_zeroed_padding() {
    let mut dev = Dev::new();
    dev.push(&[0, 0, 0])
        .push(&[3 << 16, 0xffff_ffff, 0xeeee_eeee, 0x1234_5678])
        .packet(Packet::Fence(Fence {
            addr: DATA,
            data: 9,
        }));
    idle(5)(&dev.run().unwrap());
    assert_eq!(dev.mem.load_u32(DATA).unwrap(), 9);
}

#[test]
fn packets_wrap_around_the_ring_end() {
    // Start 8 bytes before the end: a 7-dword copy and a 4-dword fence both
    // straddle or follow the wrap.
    for start in [
        RING_SIZE - 8,
        RING_SIZE - 4,
        3 * RING_SIZE - 12,
        (1 << 40) - 20,
    ] {
        let mut dev = Dev::at(start);
        dev.fill_data(DATA, 64, 7);
        dev.packet(copy(DATA, DATA + 0x1000, 64))
            .packet(Packet::Fence(Fence {
                addr: DATA + 0x2000,
                data: 0xfeed,
            }))
            .packet(Packet::Nop(Nop { count: 2 }));
        let p = dev.run().unwrap();
        idle(3)(&p);
        assert_eq!(p.rptr, start.wrapping_add(28 + 16 + 12));
        assert_eq!(dev.read(DATA + 0x1000, 64), dev.read(DATA, 64));
        assert_eq!(dev.mem.load_u32(DATA + 0x2000).unwrap(), 0xfeed);
    }
}

#[test]
fn a_ring_of_packets_many_times_over() {
    let mut dev = Dev::new();
    dev.mem.store_u64(DATA, 1_000).unwrap();
    for _ in 0..1000 {
        dev.packet(Packet::Atomic(Atomic::rocr_signal_decrement(DATA)));
        idle(1)(&dev.run().unwrap());
    }
    assert_eq!(dev.mem.load_u64(DATA).unwrap(), 0);
    assert_eq!(dev.engine.rptr(), 1000 * 32);
}

#[test]
fn an_unpublished_packet_tail_waits() {
    let mut dev = Dev::new();
    let dw = copy(DATA, DATA + 64, 8).encode().unwrap();
    dev.push(&dw[..3]);
    let p = dev.run().unwrap();
    assert_eq!(
        p.state,
        RunState::Waiting(Wait::IncompletePacket {
            needed: 28,
            available: 12
        })
    );
    dev.push(&dw[3..]);
    idle(1)(&dev.run().unwrap());
}

#[test]
fn budget_yields() {
    let mut dev = Dev::new();
    for i in 0..10 {
        dev.packet(Packet::Fence(Fence {
            addr: DATA + 4 * i,
            data: 1,
        }));
    }
    let p = dev
        .engine
        .run(&dev.mem, &mut dev.hooks, dev.wptr, 4)
        .unwrap();
    assert_eq!((p.executed, p.rptr, p.state), (4, 64, RunState::Yielded));
    idle(6)(&dev.run().unwrap());
}

#[test]
fn bad_write_pointers() {
    let mut dev = Dev::new();
    assert_eq!(
        dev.engine.run(&dev.mem, &mut dev.hooks, 6, 10),
        Err(SdmaError::BadWritePointer { rptr: 0, wptr: 6 })
    );
    assert_eq!(
        dev.engine.run(&dev.mem, &mut dev.hooks, RING_SIZE + 4, 10),
        Err(SdmaError::BadWritePointer {
            rptr: 0,
            wptr: RING_SIZE + 4
        })
    );
    let mut dev = Dev::at(64);
    assert!(dev.engine.run(&dev.mem, &mut dev.hooks, 32, 10).is_err());
}

#[test]
fn ring_geometry_is_checked() {
    assert!(SdmaRing::new(RING, 4000).is_err());
    assert!(SdmaRing::new(RING, 128).is_err());
    assert!(SdmaRing::new(RING + 2, 4096).is_err());
    assert!(SdmaRing::new(u64::MAX - 4095, 4096).is_err());
}

// ---------------------------------------------------------------------------
// Faults and bad packets: typed errors, nothing written

#[test]
fn faults_name_the_address_and_write_nothing() {
    type Case = (Packet, &'static str, MemoryFault);
    let fault = |address, access, reason| MemoryFault {
        address,
        access,
        reason,
    };
    let cases: Vec<Case> = vec![
        (
            copy(DATA, DATA + DATA_LEN - 10, 20),
            "COPY_LINEAR",
            fault(DATA + DATA_LEN, Access::Write, FaultReason::NotPresent),
        ),
        (
            copy(UNMAPPED, DATA, 20),
            "COPY_LINEAR",
            fault(UNMAPPED, Access::Read, FaultReason::NotPresent),
        ),
        (
            copy(DATA, RO, 20),
            "COPY_LINEAR",
            fault(RO, Access::Write, FaultReason::ReadOnly),
        ),
        (
            Packet::CopyBroadcastLinear(CopyBroadcastLinear {
                byte_count: 16,
                src: DATA,
                dst1: DATA + 64,
                dst2: UNMAPPED,
            }),
            "COPY_BROADCAST_LINEAR",
            fault(UNMAPPED, Access::Write, FaultReason::NotPresent),
        ),
        (
            Packet::ConstantFill(ConstantFill::rocr_dword_fill(RO, 1, 4)),
            "CONSTANT_FILL",
            fault(RO, Access::Write, FaultReason::ReadOnly),
        ),
        (
            Packet::Fence(Fence {
                addr: UNMAPPED,
                data: 1,
            }),
            "FENCE",
            fault(UNMAPPED, Access::Write, FaultReason::NotPresent),
        ),
        (
            Packet::Atomic(Atomic::rocr_signal_decrement(RO)),
            "ATOMIC",
            fault(RO, Access::Write, FaultReason::ReadOnly),
        ),
        (
            Packet::Timestamp(Timestamp::GetGlobal { addr: UNMAPPED }),
            "TIMESTAMP",
            fault(UNMAPPED, Access::Write, FaultReason::NotPresent),
        ),
        (
            Packet::PollRegmem(PollRegmem {
                target: PollTarget::Memory { addr: UNMAPPED },
                function: PollFunction::Equal,
                value: 0,
                mask: !0,
                interval: 4,
                retry_count: PollRegmem::RETRY_FOREVER,
            }),
            "POLL_REGMEM",
            fault(UNMAPPED, Access::Read, FaultReason::NotPresent),
        ),
    ];
    for (packet, name, want) in cases {
        let mut dev = Dev::new();
        dev.fill_data(DATA, DATA_LEN as usize, 1);
        // One good packet first: the error names the second's read pointer.
        dev.packet(Packet::Nop(Nop { count: 1 })).packet(packet);
        let before = dev.snapshot();
        let e = dev.run().unwrap_err();
        assert_eq!(
            e,
            SdmaError::Memory {
                offset: 8,
                packet: name,
                fault: want
            }
        );
        assert_eq!(
            dev.engine.rptr(),
            8,
            "the read pointer stays on the faulting packet"
        );
        assert!(
            dev.snapshot() == before,
            "{name} wrote something before faulting"
        );
        assert!(!e.to_string().is_empty());
        // It faults again, the same way: the queue stays on its error path.
        assert_eq!(dev.run().unwrap_err(), e);
    }
}

#[test]
fn a_ring_outside_memory_faults_as_ring() {
    let mem = FlatMemory::new();
    let mut engine = SdmaEngine::new(SdmaRing::new(RING, RING_SIZE).unwrap(), 0);
    assert_eq!(
        engine.run(&mem, &mut Hooks::default(), 8, 10),
        Err(SdmaError::Memory {
            offset: 0,
            packet: "ring",
            fault: MemoryFault {
                address: RING,
                access: Access::Read,
                reason: FaultReason::NotPresent
            }
        })
    );
}

#[test]
fn unknown_and_unmodelled_packets_are_typed_errors_with_their_offset() {
    let cases: &[(u32, PacketError)] = &[
        (0x7f, PacketError::UnknownOpcode { op: 0x7f }),
        (3, PacketError::UnknownOpcode { op: 3 }),
        (
            SDMA_OP_COPY as u32 | 2 << 8,
            PacketError::UnknownSubOp {
                packet: "COPY",
                sub_op: 2,
            },
        ),
        (
            SDMA_OP_FENCE as u32 | 2 << 8,
            PacketError::UnknownSubOp {
                packet: "FENCE",
                sub_op: 2,
            },
        ),
        (
            SDMA_OP_WRITE as u32,
            PacketError::Unsupported {
                packet: "WRITE",
                what: "this packet",
            },
        ),
        (
            SDMA_OP_COND_EXE as u32,
            PacketError::Unsupported {
                packet: "COND_EXE",
                what: "this packet",
            },
        ),
        (
            SDMA_OP_GCR as u32 | 1 << 8,
            PacketError::Unsupported {
                packet: "GCR_REQ",
                what: "this packet",
            },
        ),
        (
            SDMA_OP_COPY as u32 | 1 << 8,
            PacketError::Unsupported {
                packet: "COPY_TILED",
                what: "this packet",
            },
        ),
    ];
    for (header, want) in cases {
        let mut dev = Dev::new();
        dev.packet(Packet::Fence(Fence {
            addr: DATA,
            data: 1,
        }))
        .packet(Packet::Fence(Fence {
            addr: DATA + 4,
            data: 2,
        }))
        .push(&[*header, 0, 0, 0, 0, 0, 0, 0]);
        let e = dev.run().unwrap_err();
        assert_eq!(
            e,
            SdmaError::Packet {
                offset: 32,
                error: *want
            },
            "{header:#x}"
        );
        assert!(e.to_string().contains("0x20"), "{e}");
        // The packets before it ran.
        assert_eq!(dev.mem.load_u32(DATA + 4).unwrap(), 2);
    }
}

#[test]
fn a_nop_longer_than_the_ring_is_an_error() {
    let mut mem = FlatMemory::new();
    mem.map(RING, 256, true);
    let mut engine = SdmaEngine::new(SdmaRing::new(RING, 256).unwrap(), 0);
    mem.write_bytes(RING, &(0x100u32 << 16).to_le_bytes())
        .unwrap();
    assert_eq!(
        engine.run(&mem, &mut Hooks::default(), 8, 10),
        Err(SdmaError::PacketLongerThanRing {
            offset: 0,
            bytes: 0x101 * 4
        })
    );
}

// ---------------------------------------------------------------------------
// A whole ROCr submission through memory-resident queue pointers

#[test]
fn rocr_shaped_submission_through_queue_pointers() {
    let mut dev = Dev::new();
    let (rptr_va, wptr_va) = (DATA + 0xf_0000, DATA + 0xf_0008);
    let signal = DATA + 0xe_0000; // amd_signal_t: value at +8, start_ts / end_ts later
    let (value, start_ts, end_ts, mailbox, dep) = (
        signal + 8,
        signal + 0x20,
        signal + 0x28,
        DATA + 0xd_0000,
        DATA + 0xc_0000,
    );
    dev.mem.store_u64(value, 1).unwrap();
    dev.mem.store_u64(dep, 0).unwrap();
    dev.fill_data(DATA, 10_000, 4);
    let mut q = SdmaQueue::new(&dev.mem, dev.engine.ring(), rptr_va, wptr_va).unwrap();
    // SubmitCommand's order: polls, start timestamp, HDP flush, the command,
    // end timestamp, signal decrement, mailbox fence, trap, NOP padding.
    dev.packet(Packet::PollRegmem(PollRegmem {
        target: PollTarget::Memory { addr: dep },
        function: PollFunction::Equal,
        value: 0,
        mask: !0,
        interval: 4,
        retry_count: PollRegmem::RETRY_FOREVER,
    }))
    .packet(Packet::Timestamp(Timestamp::GetGlobal { addr: start_ts }))
    .push(&[0x8, 0x0, 0x8000_0000, 0x0, 0x0, 0x0])
    .packet(copy(DATA, DATA + 0x8_0000, 10_000))
    .packet(Packet::Timestamp(Timestamp::GetGlobal { addr: end_ts }))
    .packet(Packet::Atomic(Atomic::rocr_signal_decrement(value)))
    .packet(Packet::Fence(Fence {
        addr: mailbox,
        data: 42,
    }))
    .packet(Packet::Trap(Trap { int_context: 42 }));
    let pad = 256 - (dev.wptr % 256);
    dev.packet(Packet::Nop(Nop {
        count: (pad / 4 - 1) as u16,
    }));
    dev.mem.store_u64(wptr_va, dev.wptr).unwrap();
    let p = q.process(&dev.mem, &mut dev.hooks, 100).unwrap();
    idle(9)(&p);
    assert_eq!(dev.mem.load_u64(rptr_va).unwrap(), 256);
    assert_eq!(dev.mem.load_u64(value).unwrap(), 0);
    assert_eq!(dev.mem.load_u32(mailbox).unwrap(), 42);
    assert_eq!(dev.hooks.traps, [42]);
    let (s, e) = (
        dev.mem.load_u64(start_ts).unwrap(),
        dev.mem.load_u64(end_ts).unwrap(),
    );
    assert!(0 < s && s < e, "timestamps {s} {e}");
    assert_eq!(dev.read(DATA + 0x8_0000, 10_000), dev.read(DATA, 10_000));
}

#[test]
fn queue_pointer_faults_are_typed() {
    let dev = Dev::new();
    assert!(matches!(
        SdmaQueue::new(&dev.mem, dev.engine.ring(), UNMAPPED, DATA),
        Err(SdmaError::QueuePointer { .. })
    ));
    let mut q = SdmaQueue::new(&dev.mem, dev.engine.ring(), DATA, UNMAPPED).unwrap();
    assert!(matches!(
        q.process(&dev.mem, &mut Hooks::default(), 10),
        Err(SdmaError::QueuePointer { .. })
    ));
}

// ---------------------------------------------------------------------------
// Property: random ring contents never panic

/// A header dword biased towards the opcodes the engine decodes.
fn header_strategy() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        (0u32..18, any::<u32>()).prop_map(|(op, rest)| (rest & !0xff) | op),
        (0u32..18, 0u32..10, any::<u32>())
            .prop_map(|(op, sub, rest)| (rest & !0xffff) | sub << 8 | op),
    ]
}

/// A dword that is often an address inside the data mapping.
fn word_strategy() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        (0u32..(DATA_LEN as u32)).prop_map(|o| (DATA as u32).wrapping_add(o)),
        Just(0u32),
        0u32..64,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_rings_never_panic(
        packets in proptest::collection::vec(
            (header_strategy(), proptest::collection::vec(word_strategy(), 12)),
            1..24,
        ),
        start in prop_oneof![any::<u64>(), u64::MAX - 4096..=u64::MAX, 0u64..4096],
        extra in 0u64..64,
    ) {
        let start = start & !3;
        let mut dev = Dev::at(start);
        for (h, rest) in &packets {
            // High dwords of addresses are zero: DATA fits 32 bits.
            let mut dw = vec![*h];
            for (i, w) in rest.iter().enumerate() {
                dw.push(if i % 2 == 1 && (*w as u64) < 0x1_0000 { 0 } else { *w });
            }
            if dev.wptr.wrapping_sub(start) + 4 * dw.len() as u64 > RING_SIZE - 64 {
                break;
            }
            dev.push(&dw);
        }
        let wptr = start.wrapping_add((dev.wptr.wrapping_sub(start) + extra * 4).min(RING_SIZE));
        for _ in 0..4 {
            match dev.engine.run(&dev.mem, &mut dev.hooks, wptr, 16) {
                Ok(p) => {
                    prop_assert!(p.rptr.wrapping_sub(start) <= wptr.wrapping_sub(start));
                    if p.state == RunState::Idle { break; }
                }
                Err(e) => {
                    prop_assert!(!e.to_string().is_empty());
                    break;
                }
            }
        }
    }

    #[test]
    fn random_dwords_decode_without_panicking(dw in proptest::collection::vec(any::<u32>(), 0..20)) {
        let _ = Packet::decode(&dw);
        if let Some(h) = dw.first() {
            if let Ok(n) = packet_dwords(*h) {
                prop_assert!((1..=0x4000).contains(&n));
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Property: valid packet streams against a reference interpreter

/// A packet the reference model understands, on offsets into a small window
/// of the data mapping.
#[derive(Clone, Debug)]
enum Op {
    /// One copy of `len` bytes, or the same split into `pieces` continuing
    /// COPY_LINEAR packets (as ROCr splits large copies).
    Copy {
        src: u64,
        dst: u64,
        len: u64,
        pieces: u64,
    },
    Fill {
        dst: u64,
        size: FillSize,
        data: u32,
        elements: u32,
    },
    Fence {
        dst: u64,
        data: u32,
    },
    Add {
        dst: u64,
        value: u64,
    },
    Nop(u16),
}

const WINDOW: u64 = 16 * 1024;

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..WINDOW, 0..WINDOW, 1u64..3000, 1u64..5).prop_map(|(src, dst, len, pieces)| {
            let len = len.min(WINDOW - src).min(WINDOW - dst).max(1);
            let (src, dst) = if src + len > WINDOW || dst + len > WINDOW { (0, 0) } else { (src, dst) };
            Op::Copy { src, dst, len, pieces: pieces.min(len) }
        }),
        2 => (0..WINDOW, 0u32..3, any::<u32>(), 1u32..500).prop_map(|(dst, size, data, elements)| {
            let size = [FillSize::Byte, FillSize::Word, FillSize::Dword][size as usize];
            let e = size.bytes();
            let elements = u64::from(elements).min((WINDOW - dst) / e).max(1) as u32;
            let dst = if dst / e * e + u64::from(elements) * e > WINDOW { 0 } else { dst / e * e };
            Op::Fill { dst, size, data, elements }
        }),
        1 => (0..WINDOW / 4, any::<u32>()).prop_map(|(d, data)| Op::Fence { dst: d * 4, data }),
        1 => (0..WINDOW / 8, any::<u64>()).prop_map(|(d, value)| Op::Add { dst: d * 8, value }),
        1 => (0u16..8).prop_map(Op::Nop),
    ]
}

fn reference(mem: &mut [u8], op: &Op) {
    match *op {
        Op::Copy { src, dst, len, .. } => {
            // Pieces in order, each streamed forward: the same bytes as one
            // forward stream of the whole range.
            bytewise_forward(mem, src as usize, dst as usize, len as usize);
        }
        Op::Fill {
            dst,
            size,
            data,
            elements,
        } => {
            let e = size.bytes() as usize;
            let pattern = data.to_le_bytes();
            for i in 0..elements as usize * e {
                mem[dst as usize + i] = pattern[i % e];
            }
        }
        Op::Fence { dst, data } => {
            mem[dst as usize..dst as usize + 4].copy_from_slice(&data.to_le_bytes());
        }
        Op::Add { dst, value } => {
            let d = dst as usize;
            let old = u64::from_le_bytes(mem[d..d + 8].try_into().unwrap());
            mem[d..d + 8].copy_from_slice(&old.wrapping_add(value).to_le_bytes());
        }
        Op::Nop(_) => {}
    }
}

fn packets(op: &Op) -> Vec<Packet> {
    match *op {
        Op::Copy {
            src,
            dst,
            len,
            pieces,
        } => {
            let step = len.div_ceil(pieces);
            let mut out = Vec::new();
            let mut done = 0;
            while done < len {
                let n = step.min(len - done);
                out.push(copy(DATA + src + done, DATA + dst + done, n as u32));
                done += n;
            }
            out
        }
        Op::Fill {
            dst,
            size,
            data,
            elements,
        } => vec![Packet::ConstantFill(ConstantFill {
            dst: DATA + dst,
            data,
            fill_size: size,
            count: ((elements - 1) << size.log2()) | (size.bytes() as u32 - 1),
        })],
        Op::Fence { dst, data } => vec![Packet::Fence(Fence {
            addr: DATA + dst,
            data,
        })],
        Op::Add { dst, value } => {
            let mut a = Atomic::rocr_signal_decrement(DATA + dst);
            a.src_data = value;
            vec![Packet::Atomic(a)]
        }
        Op::Nop(count) => vec![Packet::Nop(Nop { count })],
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn valid_streams_match_a_reference_interpreter(
        ops in proptest::collection::vec(op_strategy(), 1..40),
        budget in 1u32..12,
    ) {
        let mut dev = Dev::new();
        dev.fill_data(DATA, WINDOW as usize, 77);
        let mut want = dev.read(DATA, WINDOW as usize);
        let (mut published, mut executed) = (0, 0);
        for op in &ops {
            reference(&mut want, op);
            for p in packets(op) {
                let dw = p.encode().unwrap();
                // Keep the unread part of the ring within one ring length.
                if dev.wptr + 4 * dw.len() as u64 - dev.engine.rptr() > RING_SIZE {
                    while dev.engine.rptr() != dev.wptr {
                        executed += dev.engine.run(&dev.mem, &mut dev.hooks, dev.wptr, budget).unwrap().executed;
                    }
                }
                dev.push(&dw);
                published += 1;
            }
        }
        loop {
            let p = dev.engine.run(&dev.mem, &mut dev.hooks, dev.wptr, budget).unwrap();
            executed += p.executed;
            if p.state == RunState::Idle { break; }
            prop_assert_eq!(p.state, RunState::Yielded);
        }
        prop_assert_eq!(executed, published, "every packet runs once");
        prop_assert!(dev.read(DATA, WINDOW as usize) == want);
    }
}
