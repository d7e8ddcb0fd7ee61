//! Host-side buffer helpers shared by the dispatch tests: the runtime on
//! the sim, and f32/u32 arrays copied into and out of CPU-mapped
//! allocations.

#![allow(dead_code)] // each test file uses some of them

use runtime::{Runtime, driver};

/// The runtime on the software GPU.
pub fn rt() -> Runtime {
    Runtime::init_with(driver::open_sim).expect("runtime on the sim")
}

/// A fresh kernarg-pool allocation (fine-grained system memory, on every
/// GPU) holding `v`.
pub fn f32s(rt: &Runtime, v: &[f32]) -> u64 {
    let p = rt
        .allocate(rt.kernarg_pool().unwrap(), (v.len() * 4).max(4) as u64)
        .unwrap();
    write_f32s(p, v);
    p
}

/// [`f32s`] for `u32`s.
pub fn u32s(rt: &Runtime, v: &[u32]) -> u64 {
    let p = rt
        .allocate(rt.kernarg_pool().unwrap(), (v.len() * 4).max(4) as u64)
        .unwrap();
    // SAFETY: a fresh CPU-mapped allocation of at least v.len() u32s.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p as *mut u32, v.len()) };
    p
}

/// Writes `v` at `p`: a CPU-mapped allocation of at least `v.len()` f32s
/// that no agent is using.
pub fn write_f32s(p: u64, v: &[f32]) {
    // SAFETY: as the caller promises.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p as *mut f32, v.len()) };
}

/// `n` f32s at `p`: a CPU-mapped allocation no kernel is writing.
pub fn read_f32s(p: u64, n: usize) -> Vec<f32> {
    let mut out = vec![0f32; n];
    // SAFETY: as the caller promises.
    unsafe { std::ptr::copy_nonoverlapping(p as *const f32, out.as_mut_ptr(), n) };
    out
}

/// [`read_f32s`] for `u32`s.
pub fn read_u32s(p: u64, n: usize) -> Vec<u32> {
    let mut out = vec![0u32; n];
    // SAFETY: as for read_f32s.
    unsafe { std::ptr::copy_nonoverlapping(p as *const u32, out.as_mut_ptr(), n) };
    out
}
