//! Arm semihosting (the "Semihosting for AArch32 and AArch64" specification):
//! a `HLT #0xF000` with the operation in `w0` and its argument in `x1`,
//! which QEMU answers when started with `-semihosting`.
#![allow(unsafe_code)]

use core::ffi::CStr;

/// `SYS_WRITE0`: write a NUL-terminated string to the debug console.
const SYS_WRITE0: u64 = 0x04;
/// `SYS_EXIT`: on AArch64 its argument is a block of two words, the reason
/// and, for `ADP_Stopped_ApplicationExit`, the exit status (the meaning
/// `SYS_EXIT_EXTENDED` has on AArch32); QEMU exits with that status.
const SYS_EXIT: u64 = 0x18;
/// `ADP_Stopped_ApplicationExit`.
const ADP_STOPPED_APPLICATION_EXIT: u64 = 0x20026;

fn call(op: u64, arg: u64) -> u64 {
    let ret;
    // SAFETY: the semihosting trap reads only the memory `arg` points to
    // (a NUL-terminated string or a two-word block that the callers keep
    // alive across the call) and writes only x0.
    unsafe {
        core::arch::asm!("hlt #0xf000", inout("x0") op => ret, in("x1") arg, options(nostack));
    }
    ret
}

/// Writes `s` to the host's console.
pub fn write0(s: &CStr) {
    call(SYS_WRITE0, s.as_ptr() as u64);
}

/// Stops the machine; QEMU exits with `status`.
pub fn exit(status: u32) -> ! {
    let block = [ADP_STOPPED_APPLICATION_EXIT, u64::from(status)];
    call(SYS_EXIT, block.as_ptr() as u64);
    // Only reached without a semihosting host.
    loop {
        core::hint::spin_loop();
    }
}
