//! Reset entry, the secondary core's entry, the exception vectors and the
//! MMU: everything that runs before Rust code may.
//!
//! QEMU `virt` without `-bios` starts core 0 at the ELF entry at EL1 (EL2
//! with `virtualization=on`); the other cores stay off until core 0 asks
//! QEMU's built-in PSCI to start them (`psci.rs`). Each core then:
//!
//! 1. drops from EL2 to EL1 if it started at EL2 (EL1 in AArch64, no FP or
//!    counter traps);
//! 2. enables FP/SIMD (`CPACR_EL1.FPEN`: Rust code uses the vector
//!    registers), installs the vectors, turns on the timer event stream
//!    (so `WFE` waits also end every 1024 counter ticks);
//! 3. turns on the MMU with identity-mapped tables (`L1_TABLE`): the first
//!    GiB (UART, GIC, flash) as Device-nGnRnE, RAM as Normal write-back
//!    inner-shareable memory. The two cores share the queue through
//!    load/store-exclusive atomics (Cortex-A72 has no LSE), and the
//!    Architecture Reference Manual leaves exclusives on Device memory (what
//!    every data access is with the MMU off) IMPLEMENTATION DEFINED and, for
//!    a global monitor, not guaranteed to exist; on Normal cacheable
//!    memory they are served by the coherent caches' local monitors;
//! 4. takes its stack (`__stacks_end - core * STACK_SIZE`, see `link.x`).
//!
//! Core 0 then zeroes `.bss` and enters `primary_main`; a started core
//! enters `secondary_main` with the PSCI context id (its index).
#![allow(unsafe_code)]

use crate::{exception, primary_main, secondary_main};

/// `MAIR_EL1`: attribute 0 Device-nGnRnE (0x00), attribute 1 Normal memory,
/// inner and outer write-back, read/write-allocate (0xff).
const MAIR: u64 = 0xff << 8;
const ATTR_DEVICE: u64 = 0;
const ATTR_NORMAL: u64 = 1;

/// `TCR_EL1`: 39-bit addresses from `TTBR0_EL1` (`T0SZ` 25, so a walk
/// starts at level 1 with 4 KiB granules), walks cached write-back and
/// inner-shareable (`IRGN0`/`ORGN0` 01, `SH0` 11), no `TTBR1_EL1` walks
/// (`EPD1`), 36-bit physical addresses (`IPS` 001).
const TCR: u64 = 25 | (1 << 8) | (1 << 10) | (3 << 12) | (1 << 23) | (1 << 32);

/// `SCTLR_EL1`: its RES1 bits plus `M` (MMU), `C` (data cache), `I`
/// (instruction cache).
const SCTLR: u64 = 0x30d0_0800 | (1 << 0) | (1 << 2) | (1 << 12);

/// `CNTKCTL_EL1`: event stream on (`EVNTEN`), on transitions of counter bit
/// 9 (`EVNTI`), an event every 1024 ticks (16 us at QEMU's 62.5 MHz).
const CNTKCTL: u64 = (1 << 2) | (9 << 4);

/// Stack bytes per core (`STACK_SIZE` in `link.x`).
const STACK_SIZE: u64 = 64 * 1024;

/// A level-1 block descriptor for the GiB at `base` (AArch64 VMSA, 4 KiB
/// granule): valid block, attribute index, access flag, EL1 read/write;
/// Normal memory inner-shareable, Device memory never executable.
const fn l1_block(base: u64, attr: u64) -> u64 {
    let common = base | 0b01 | (attr << 2) | (1 << 10);
    if attr == ATTR_NORMAL {
        common | (0b11 << 8)
    } else {
        common | (1 << 53) | (1 << 54)
    }
}

/// A 4 KiB translation table.
#[repr(C, align(4096))]
pub struct Table([u64; 512]);

/// The identity map: GiB 0 (devices) and GiB 1 (QEMU `virt` RAM, up to
/// 1 GiB of it). Constant, so it is in the image and never written.
#[unsafe(no_mangle)]
static L1_TABLE: Table = {
    let mut t = [0u64; 512];
    t[0] = l1_block(0, ATTR_DEVICE);
    t[1] = l1_block(1 << 30, ATTR_NORMAL);
    Table(t)
};

unsafe extern "C" {
    /// Where a core started by PSCI `CPU_ON` begins (x0 = context id).
    pub fn secondary_start();
}

core::arch::global_asm!(
    r#"
    .section .text.boot, "ax"
    .global _start
_start:
    mrs     x1, mpidr_el1
    and     x1, x1, #0xff
    cbnz    x1, 9f                  // only core 0 boots; the others wait for CPU_ON
    bl      drop_to_el1             // x20 = the EL we started at
    mov     x0, #0
    bl      el1_setup
    adrp    x1, __bss_start
    add     x1, x1, :lo12:__bss_start
    adrp    x2, __bss_end
    add     x2, x2, :lo12:__bss_end
1:  cmp     x1, x2
    b.hs    2f
    stp     xzr, xzr, [x1], #16
    b       1b
2:  mov     x0, x20
    bl      {primary_main}
9:  wfe
    b       9b

    .global secondary_start
secondary_start:
    mov     x19, x0                 // PSCI context id: the core index
    bl      drop_to_el1
    mov     x0, x19
    bl      el1_setup
    mov     x0, x19
    mov     x1, x20
    bl      {secondary_main}
3:  wfe
    b       3b

// Leaves x20 = CurrentEL (1 or 2) and returns at EL1. Clobbers x1.
drop_to_el1:
    mrs     x20, CurrentEL
    lsr     x20, x20, #2
    cmp     x20, #2
    b.ne    1f
    mov     x1, #(1 << 31)          // HCR_EL2.RW: EL1 is AArch64
    msr     hcr_el2, x1
    mov     x1, #0x33ff             // CPTR_EL2: RES1 bits, no FP trap
    msr     cptr_el2, x1
    mov     x1, #3                  // CNTHCTL_EL2: EL1 may read the counters
    msr     cnthctl_el2, x1
    msr     cntvoff_el2, xzr
    mov     x1, #0x3c5              // SPSR: EL1h, D/A/I/F masked
    msr     spsr_el2, x1
    msr     elr_el2, x30            // "return" to the caller, at EL1
    eret
1:  ret

// x0 = core index. Clobbers x1, x2.
el1_setup:
    mov     x1, #(3 << 20)
    msr     cpacr_el1, x1
    adrp    x1, vectors
    add     x1, x1, :lo12:vectors
    msr     vbar_el1, x1
    ldr     x1, ={cntkctl}
    msr     cntkctl_el1, x1
    ldr     x1, ={mair}
    msr     mair_el1, x1
    ldr     x1, ={tcr}
    msr     tcr_el1, x1
    adrp    x1, {l1}
    add     x1, x1, :lo12:{l1}
    msr     ttbr0_el1, x1
    isb
    tlbi    vmalle1
    dsb     nsh
    isb
    ldr     x1, ={sctlr}
    msr     sctlr_el1, x1
    isb
    adrp    x1, __stacks_end
    add     x1, x1, :lo12:__stacks_end
    ldr     x2, ={stack_size}
    msub    x1, x0, x2, x1
    mov     sp, x1
    ret

    .section .text.vectors, "ax"
    .balign 2048
vectors:
    .irp    kind, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    .balign 128
    mov     x0, #\kind
    b       vector_common
    .endr
vector_common:
    mrs     x1, esr_el1
    mrs     x2, elr_el1
    mrs     x3, far_el1
    bl      {exception}
4:  b       4b
"#,
    primary_main = sym primary_main,
    secondary_main = sym secondary_main,
    exception = sym exception,
    l1 = sym L1_TABLE,
    mair = const MAIR,
    tcr = const TCR,
    sctlr = const SCTLR,
    cntkctl = const CNTKCTL,
    stack_size = const STACK_SIZE,
);
