//! `aql` on a Cortex-M4, which has no 64-bit atomics: with the
//! `portable-atomic` feature the queue indices are portable-atomic's
//! lock-based `AtomicU64`, and `aql::sync::load_index` / `store_index` read
//! and write their two 32-bit words directly (ARCHITECTURE.md, "Targets
//! without 64-bit atomics"). This program runs that path on the real
//! instruction set (QEMU mps2-an386): the words it writes must be what
//! portable-atomic reads, and the reverse, across a 2^32 crossing, and a
//! ring whose indices start just below 2^32 must carry packets across it
//! in order. Output and exit status through semihosting (0: all checks
//! passed; 1: a check failed; 101: a panic).
#![no_std]
#![no_main]

use aql::doorbell::NoDoorbell;
use aql::queue::{PacketSlot, Poll, Ring};
use aql::sync::{AtomicU64, INDEX_ATOMICS_ARE_EMULATED, Ordering, load_index, store_index};
use aql::{KernelDispatchPacket, Packet};
use core::fmt::Write;

mod rt {
    //! Reset, semihosting.
    #![allow(unsafe_code)]

    /// The reset vector (entry 1 of the vector table).
    #[unsafe(link_section = ".vector_table.reset")]
    #[unsafe(no_mangle)]
    static RESET_VECTOR: extern "C" fn() -> ! = reset;

    unsafe extern "C" {
        static mut __bss_start: u32;
        static mut __bss_end: u32;
    }

    /// Zeroes .bss, enables the FPU (the hard-float ABI may use its
    /// registers), runs `main`, exits with its status.
    #[unsafe(no_mangle)]
    pub extern "C" fn reset() -> ! {
        let mut p = &raw mut __bss_start;
        let end = &raw mut __bss_end;
        while p < end {
            // SAFETY: p is inside .bss (linker symbols), word aligned, and
            // nothing has used .bss yet.
            unsafe { p.write_volatile(0) };
            p = p.wrapping_add(1);
        }
        // CPACR: full access to CP10 and CP11.
        let cpacr = 0xe000_ed88 as *mut u32;
        // SAFETY: CPACR is a system register every Cortex-M4 has at this address.
        unsafe { cpacr.write_volatile(cpacr.read_volatile() | (0xf << 20)) };
        // SAFETY: barriers only.
        unsafe { core::arch::asm!("dsb", "isb") };
        exit(super::main())
    }

    fn call(op: u32, arg: u32) -> u32 {
        let ret;
        // SAFETY: the semihosting trap reads only the block `arg` points to,
        // which the callers keep alive across the call.
        unsafe {
            core::arch::asm!("bkpt 0xab", inout("r0") op => ret, in("r1") arg, options(nostack));
        }
        ret
    }

    /// `SYS_WRITE0` of a NUL-terminated string.
    pub fn write0(s: &core::ffi::CStr) {
        call(0x04, s.as_ptr() as u32);
    }

    /// `SYS_EXIT_EXTENDED` (`ADP_Stopped_ApplicationExit`, `status`).
    pub fn exit(status: u32) -> ! {
        let block = [0x20026u32, status];
        call(0x20, block.as_ptr() as u32);
        loop {
            core::hint::spin_loop();
        }
    }
}

struct Line {
    buf: [u8; 160],
    len: usize,
}

impl Write for Line {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        for &b in s.as_bytes() {
            if self.len + 1 < self.buf.len() {
                self.buf[self.len] = b;
                self.len += 1;
            }
        }
        Ok(())
    }
}

fn say(args: core::fmt::Arguments<'_>) {
    let mut l = Line {
        buf: [0; 160],
        len: 0,
    };
    let _ = l.write_fmt(args);
    let _ = l.write_str("\n");
    if let Ok(s) = core::ffi::CStr::from_bytes_until_nul(&l.buf[..=l.len]) {
        rt::write0(s);
    }
}

macro_rules! check {
    ($ok:expr, $($what:tt)*) => {
        if !$ok {
            say(format_args!("FAILED: {}", format_args!($($what)*)));
            return 1;
        }
    };
}

/// Just below 2^32: the ring's indices cross it.
const START: u64 = (1 << 32) - 3;

static SLOTS: [PacketSlot; 4] = [const { PacketSlot::invalid() }; 4];
static WRITE: AtomicU64 = AtomicU64::new(START);
static READ: AtomicU64 = AtomicU64::new(START);
static SCRATCH: AtomicU64 = AtomicU64::new(0);

fn main() -> u32 {
    say(format_args!(
        "cortex-m4: 64-bit atomics emulated: {INDEX_ATOMICS_ARE_EMULATED}"
    ));
    check!(
        INDEX_ATOMICS_ARE_EMULATED,
        "thumbv7em should have no native 64-bit atomics"
    );

    // The word-level path and portable-atomic agree, both ways.
    for v in [0u64, 0xffff_ffff, 1 << 32, 0x1234_5678_9abc_def0, u64::MAX] {
        store_index(&SCRATCH, v, Ordering::Release);
        let pa = SCRATCH.load(Ordering::Acquire);
        check!(
            pa == v,
            "store_index({v:#x}) then portable-atomic load: {pa:#x}"
        );
        SCRATCH.store(v.rotate_left(16), Ordering::Release);
        let li = load_index(&SCRATCH, Ordering::Acquire);
        check!(
            li == v.rotate_left(16),
            "portable-atomic store then load_index: {li:#x}"
        );
    }
    say(format_args!(
        "cortex-m4: load_index/store_index agree with portable-atomic"
    ));

    let ring = match Ring::new(&SLOTS, &WRITE, &READ, NoDoorbell) {
        Ok(r) => r,
        Err(e) => {
            say(format_args!("FAILED: ring: {e}"));
            return 1;
        }
    };
    let Some(mut pp) = ring.packet_processor() else {
        say(format_args!("FAILED: no packet processor"));
        return 1;
    };
    // 10 packets, 2 per reservation, through a 4-slot ring, across 2^32.
    let mut next_tag = 0u64;
    let mut consumed = 0u64;
    for _ in 0..5 {
        let mut res = match ring.try_reserve(2) {
            Ok(r) => r,
            Err(e) => {
                say(format_args!("FAILED: reserve: {e}"));
                return 1;
            }
        };
        for _ in 0..2 {
            let p = KernelDispatchPacket::new(0x1000 + next_tag, 0, [1, 1, 1], [1, 1, 1]);
            check!(res.push(&p).is_ok(), "push");
            next_tag += 1;
        }
        res.finish();
        for _ in 0..2 {
            let Poll::Ready(f) = pp.poll() else {
                say(format_args!("FAILED: a published packet was not ready"));
                return 1;
            };
            let tag = match &f.packet {
                Ok(Packet::KernelDispatch(k)) => k.kernel_object - 0x1000,
                _ => u64::MAX,
            };
            check!(
                f.id == START + consumed && tag == consumed,
                "packet {:#x} carried tag {tag}, expected id {:#x} tag {consumed}",
                f.id,
                START + consumed
            );
            consumed += 1;
            check!(pp.complete(f.completion).is_ok(), "complete");
        }
    }
    let (w, r) = (
        ring.load_write_index(aql::queue::LoadOrder::Acquire),
        ring.load_read_index(aql::queue::LoadOrder::Acquire),
    );
    check!(w == START + 10 && r == START + 10, "indices {w:#x} {r:#x}");
    check!(
        READ.load(Ordering::Acquire) == START + 10,
        "portable-atomic sees the read index"
    );
    say(format_args!(
        "cortex-m4: 10 packets through a 4-slot ring, indices {START:#x} -> {w:#x} across 2^32: in order"
    ));
    0
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    say(format_args!("panic: {info}"));
    rt::exit(101)
}
