//! Bulk copies between shared device memory and a private buffer.
//!
//! Device memory is shared with the client and with the other workers
//! ([`crate::memory`]), so the sim reaches it only through atomics (a
//! plain Rust access there would be a data race). A loop of relaxed
//! atomic loads or stores is correct but moves one dword an instruction:
//! the compiler may not merge or vectorise atomics. A wave's unit-stride
//! load or store moves 256 bytes, which this module moves 64 bytes a loop
//! iteration with SSE2 (every x86-64 host has it) in an `asm!` block: its
//! accesses are the hardware's, outside Rust's memory model, with the
//! x86-64 model's guarantee for each aligned dword.
//!
//! What a racing access sees is what the GPU memory model gives a
//! non-atomic global access that races (AMDGPUUsage, "Memory Model"): some
//! value each dword held, with no order between dwords. Kernels that need
//! more use atomics, which never come here. Other hosts use the atomic
//! loop.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicU32, Ordering};

/// Bytes a loop iteration of the SSE2 copy moves.
#[cfg(target_arch = "x86_64")]
const BLOCK: usize = 64;

/// Copies `blocks` blocks of [`BLOCK`] bytes from `src` to `dst`, 16
/// bytes a move (`movdqu`), in an `asm!` block: the accesses are the
/// hardware's, outside Rust's memory model.
///
/// # Safety
///
/// `src` is readable and `dst` writable for `blocks * BLOCK` bytes, and
/// nothing Rust holds a reference to (other than through atomics or
/// `UnsafeCell`) overlaps `dst`; `blocks` is not zero.
#[cfg(target_arch = "x86_64")]
#[inline]
unsafe fn sse2_copy(src: *const u32, dst: *mut u32, blocks: usize) {
    // SAFETY: the caller's contract; the block uses no stack and changes
    // nothing but the named registers and the flags.
    unsafe {
        core::arch::asm!(
            "2:",
            "movdqu {a}, xmmword ptr [{s}]",
            "movdqu {b}, xmmword ptr [{s} + 16]",
            "movdqu {c}, xmmword ptr [{s} + 32]",
            "movdqu {d}, xmmword ptr [{s} + 48]",
            "movdqu xmmword ptr [{t}], {a}",
            "movdqu xmmword ptr [{t} + 16], {b}",
            "movdqu xmmword ptr [{t} + 32], {c}",
            "movdqu xmmword ptr [{t} + 48], {d}",
            "add {s}, 64",
            "add {t}, 64",
            "dec {n}",
            "jnz 2b",
            s = inout(reg) src => _,
            t = inout(reg) dst => _,
            n = inout(reg) blocks => _,
            a = out(xmm_reg) _,
            b = out(xmm_reg) _,
            c = out(xmm_reg) _,
            d = out(xmm_reg) _,
            options(nostack),
        );
    }
}

/// Copies `src` (shared memory) into `dst`, `min(src.len(), dst.len())`
/// dwords, each read once.
#[inline]
pub fn load_u32s(src: &[AtomicU32], dst: &mut [u32]) {
    let n = src.len().min(dst.len());
    #[allow(unused_mut)]
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    {
        let blocks = n * 4 / BLOCK;
        if blocks != 0 {
            // SAFETY: `src` holds `blocks * BLOCK` readable bytes (its
            // cells are read by the hardware's loads: no Rust access
            // races) and `dst` as many writable bytes under its unique
            // borrow (both are `n` dwords or more).
            unsafe { sse2_copy(src.as_ptr().cast(), dst.as_mut_ptr(), blocks) };
            done = blocks * BLOCK / 4;
        }
    }
    for (d, s) in dst[done..n].iter_mut().zip(&src[done..n]) {
        *d = s.load(Ordering::Relaxed);
    }
}

/// Copies `src` into `dst` (shared memory), `min(src.len(), dst.len())`
/// dwords, each written once.
#[inline]
pub fn store_u32s(src: &[u32], dst: &[AtomicU32]) {
    let n = src.len().min(dst.len());
    #[allow(unused_mut)]
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    {
        let blocks = n * 4 / BLOCK;
        if blocks != 0 {
            // SAFETY: `dst` holds `blocks * BLOCK` bytes of `AtomicU32`
            // cells, which any thread may write (interior mutability),
            // written here by the hardware's stores; `src` as many
            // readable bytes.
            unsafe { sse2_copy(src.as_ptr(), dst.as_ptr().cast_mut().cast(), blocks) };
            done = blocks * BLOCK / 4;
        }
    }
    for (d, s) in dst[done..n].iter().zip(&src[done..n]) {
        d.store(*s, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(n: usize, seed: u32) -> Vec<AtomicU32> {
        (0..n as u32)
            .map(|i| AtomicU32::new(i.wrapping_mul(0x9e37_79b9) ^ seed))
            .collect()
    }

    #[test]
    fn loads_copy_every_dword_of_every_length_and_offset() {
        let src = shared(200, 7);
        for start in 0..5 {
            for len in 0..(200 - start) {
                let s = &src[start..start + len];
                let mut dst = vec![0xdead_beef_u32; len + 3];
                load_u32s(s, &mut dst);
                for (k, d) in dst.iter().enumerate() {
                    let want = if k < len {
                        s[k].load(Ordering::Relaxed)
                    } else {
                        0xdead_beef
                    };
                    assert_eq!(*d, want, "start {start} len {len} dword {k}");
                }
            }
        }
    }

    #[test]
    fn stores_write_every_dword_and_nothing_past_the_shorter_side() {
        for start in 0..5 {
            for len in 0..(200 - start) {
                let dst = shared(200, 3);
                let before: Vec<u32> = dst.iter().map(|a| a.load(Ordering::Relaxed)).collect();
                let src: Vec<u32> = (0..len as u32).map(|i| !i).collect();
                store_u32s(&src, &dst[start..]);
                for (k, d) in dst.iter().enumerate() {
                    let want = if k >= start && k < start + len {
                        !((k - start) as u32)
                    } else {
                        before[k]
                    };
                    assert_eq!(
                        d.load(Ordering::Relaxed),
                        want,
                        "start {start} len {len} dword {k}"
                    );
                }
            }
        }
    }

    #[test]
    fn concurrent_copies_see_whole_dwords() {
        // Writers store values whose halves agree; a reader must never see
        // a dword torn between two of them.
        let mem: Vec<AtomicU32> = (0..256).map(|_| AtomicU32::new(0)).collect();
        std::thread::scope(|s| {
            s.spawn(|| {
                for v in 0..20_000u32 {
                    let x = (v & 0xffff) * 0x1_0001;
                    store_u32s(&[x; 256], &mem);
                }
            });
            let mut buf = [0u32; 256];
            for _ in 0..20_000 {
                load_u32s(&mem, &mut buf);
                for d in buf {
                    assert_eq!(d >> 16, d & 0xffff, "torn dword {d:#x}");
                }
            }
        });
    }
}
