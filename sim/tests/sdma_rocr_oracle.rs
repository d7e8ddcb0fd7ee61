//! Our encodings of ROCr's SDMA packets against the machine code of the
//! installed ROCr (Debian's `libhsa-runtime64-1`, ROCr 5.2.3, pulled in by
//! `libhsa-runtime-dev` from `scripts/lib.sh`'s `TEST_PACKAGES`).
//!
//! No SDMA packet header is installed to compile a C probe against, but the
//! library is `amd_blit_sdma.cpp` compiled: its `Build*Command` functions
//! fill the packets' bit fields after a `memset`, and the compiler folds
//! the constant fields of each dword into one immediate (`objdump -d` of the
//! library shows, for instance, `or $0xb0000008,%eax` then
//! `movabs $0xfff0004ffffffff,%rax` in `BuildPollCommand`). Each test below
//! encodes the packet the way ROCr builds it, with our encoder, and looks
//! for the same constant, in the same instruction form, in the library's
//! bytes. The constants are specific enough (a POLL_REGMEM header with
//! `mem_poll` and `func = 3`, a 64-bit mask-and-retry pair) that a match is
//! not chance, and a wrong bit position in our layouts would miss.
#![cfg(target_arch = "x86_64")]

use sim::sdma::packet::*;
use sim::sdma::raw::*;

const ROCR: &str = "/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1";

fn rocr() -> Vec<u8> {
    std::fs::read(ROCR).unwrap_or_else(|e| {
        panic!("{ROCR}: {e} (install libhsa-runtime-dev, see scripts/lib.sh TEST_PACKAGES)")
    })
}

/// `opcode imm32` for any of `prefixes` (an opcode and its ModRM bytes).
fn has_insn_imm32(lib: &[u8], prefixes: &[&[u8]], imm: u32) -> bool {
    let imm = imm.to_le_bytes();
    prefixes.iter().any(|p| {
        let mut pat = p.to_vec();
        pat.extend_from_slice(&imm);
        lib.windows(pat.len()).any(|w| w == pat.as_slice())
    })
}

/// `or $imm32, r32`: `0d imm32` (eax) or `81 /1 imm32` (ModRM c8..cf).
fn has_or_imm32(lib: &[u8], imm: u32) -> bool {
    let mut p: Vec<Vec<u8>> = vec![vec![0x0d]];
    p.extend((0xc8..=0xcf).map(|m| vec![0x81, m]));
    let p: Vec<&[u8]> = p.iter().map(Vec::as_slice).collect();
    has_insn_imm32(lib, &p, imm)
}

/// `and $imm32, r32`: `25 imm32` (eax) or `81 /4 imm32` (ModRM e0..e7).
fn has_and_imm32(lib: &[u8], imm: u32) -> bool {
    let mut p: Vec<Vec<u8>> = vec![vec![0x25]];
    p.extend((0xe0..=0xe7).map(|m| vec![0x81, m]));
    let p: Vec<&[u8]> = p.iter().map(Vec::as_slice).collect();
    has_insn_imm32(lib, &p, imm)
}

/// `mov $imm32, r32`: `b8+r imm32`.
fn has_mov_imm32(lib: &[u8], imm: u32) -> bool {
    let p: Vec<Vec<u8>> = (0xb8..=0xbf).map(|o| vec![o]).collect();
    let p: Vec<&[u8]> = p.iter().map(Vec::as_slice).collect();
    has_insn_imm32(lib, &p, imm)
}

/// `movabs $imm64, r64`: `48|49 b8+r imm64`.
fn has_movabs(lib: &[u8], imm: u64) -> bool {
    let imm = imm.to_le_bytes();
    lib.windows(10)
        .any(|w| (w[0] == 0x48 || w[0] == 0x49) && (0xb8..=0xbf).contains(&w[1]) && w[2..] == imm)
}

#[test]
fn poll_regmem_as_build_poll_command() {
    let lib = rocr();
    // BuildPollCommand(addr, reference): mem_poll 1, func 3, mask ~0,
    // interval 4, retry_count 0xfff.
    let dw = Packet::PollRegmem(PollRegmem {
        target: PollTarget::Memory { addr: 0x1000 },
        function: PollFunction::Equal,
        value: 0,
        mask: u32::MAX,
        interval: 4,
        retry_count: PollRegmem::RETRY_FOREVER,
    })
    .encode()
    .unwrap();
    assert!(has_or_imm32(&lib, dw[0]), "header {:#x}", dw[0]);
    let mask_dw5 = u64::from(dw[4]) | u64::from(dw[5]) << 32;
    assert!(has_movabs(&lib, mask_dw5), "MASK and DW5 {mask_dw5:#x}");
}

#[test]
fn atomic_as_build_atomic_decrement_command() {
    let lib = rocr();
    let dw = Packet::Atomic(Atomic::rocr_signal_decrement(0x1000))
        .encode()
        .unwrap();
    assert!(has_or_imm32(&lib, dw[0]), "header {:#x}", dw[0]);
}

#[test]
fn constant_fill_as_build_fill_command() {
    let lib = rocr();
    let dw = Packet::ConstantFill(ConstantFill::rocr_dword_fill(0x1000, 0, 16))
        .encode()
        .unwrap();
    assert!(has_or_imm32(&lib, dw[0]), "header {:#x}", dw[0]);
    // The count is masked to the 22-bit field, at dword granularity.
    let count_mask = SDMA_PKT_CONSTANT_FILL_COUNT_COUNT.mask() & !3;
    assert!(
        has_and_imm32(&lib, count_mask),
        "count mask {count_mask:#x}"
    );
}

#[test]
fn trap_as_build_trap_command() {
    let lib = rocr();
    let dw = Packet::Trap(Trap { int_context: 5 }).encode().unwrap();
    // int_ctx is masked to its 28 bits and shifted into the second dword;
    // the header dword is or-ed in as a 64-bit immediate: `or $0x6,%rdx`.
    let mask = SDMA_PKT_TRAP_INT_CONTEXT_INT_CONTEXT.mask();
    assert!(has_and_imm32(&lib, mask), "int_context mask {mask:#x}");
    let or_header = [0x48, 0x83, 0xca, dw[0] as u8];
    assert!(dw[0] < 0x80);
    assert!(
        lib.windows(4).any(|w| w == or_header),
        "or ${:#x},%rdx",
        dw[0]
    );
}

#[test]
fn copy_linear_split_size_fits_our_count_field() {
    let lib = rocr();
    // kMaxSize_ = 0x3fffe0: ROCr's largest COPY_LINEAR and CONSTANT_FILL.
    assert!(has_mov_imm32(&lib, 0x3f_ffe0));
    let dw = Packet::CopyLinear(CopyLinear {
        byte_count: 0x3f_ffe0,
        src: 0,
        dst: 0,
    })
    .encode()
    .unwrap();
    assert_eq!(SDMA_PKT_COPY_LINEAR_COUNT_COUNT.get(dw[1]), 0x3f_ffdf);
}
