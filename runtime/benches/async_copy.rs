//! `hsa_amd_memory_async_copy` of 256 MiB host -> device on the sim (SDMA,
//! the dGPU default) against `memcpy` of the same bytes, in one run.
//!
//! `cargo bench -p runtime --bench async_copy` prints both times (best of
//! the runs) and the ratio memcpy time / async copy time (1.0: as fast as
//! memcpy). `ASYNC_COPY_MIB` and `ASYNC_COPY_RUNS` change the size and the
//! number of runs; `ASYNC_COPY_SDMA=0` measures the blit kernels instead.

use std::time::{Duration, Instant};

use runtime::memory::PoolKind;
use runtime::{InitOptions, Runtime, driver};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let mib = env_u64("ASYNC_COPY_MIB", 256);
    let runs = env_u64("ASYNC_COPY_RUNS", 5).max(1);
    let sdma = std::env::var("ASYNC_COPY_SDMA").map_or(true, |v| v != "0");
    let size = mib << 20;
    let rt = Runtime::init_with_options(driver::open_sim, InitOptions { sdma: Some(sdma) })
        .expect("runtime on the sim");
    let gpu = rt.gpu_agents().next().expect("a GPU");
    let cpu = rt
        .agents()
        .find(|a| !rt.agent(*a).unwrap().is_gpu())
        .expect("a CPU");
    let vram = rt
        .pools(gpu)
        .unwrap()
        .into_iter()
        .find(|p| rt.pool(*p).unwrap().kind == PoolKind::Vram)
        .expect("VRAM");
    let sys = rt.kernarg_pool().unwrap();
    let src = rt.allocate(sys, size).unwrap();
    let host_dst = rt.allocate(sys, size).unwrap();
    let dev_dst = rt.allocate(vram, size).unwrap();
    // Touch every page of all three buffers first (no first-touch faults
    // in either measurement).
    for p in [src, host_dst] {
        // SAFETY: CPU-mapped allocations of `size` bytes.
        unsafe { std::ptr::write_bytes(p as *mut u8, 0x5a, size as usize) };
    }
    let warm = rt.create_signal(1).unwrap();
    // SAFETY: our buffers, nothing else uses them.
    unsafe { rt.memory_async_copy(dev_dst, gpu, src, cpu, size, &[], &warm) }.unwrap();
    assert!(warm.wait_zero(Duration::from_secs(600)).unwrap());

    let mut best_memcpy = Duration::MAX;
    let mut best_async = Duration::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        // SAFETY: two CPU-mapped, non-overlapping allocations of `size`.
        unsafe {
            std::ptr::copy_nonoverlapping(src as *const u8, host_dst as *mut u8, size as usize)
        };
        best_memcpy = best_memcpy.min(t.elapsed());

        let done = rt.create_signal(1).unwrap();
        let t = Instant::now();
        // SAFETY: as above.
        let engine =
            unsafe { rt.memory_async_copy(dev_dst, gpu, src, cpu, size, &[], &done) }.unwrap();
        assert!(done.wait_zero(Duration::from_secs(600)).unwrap());
        best_async = best_async.min(t.elapsed());
        std::hint::black_box(engine);
    }
    let gib_s = |d: Duration| size as f64 / d.as_secs_f64() / f64::from(1u32 << 30);
    println!(
        "memcpy            {mib} MiB: {:>9.3} ms ({:.2} GiB/s)",
        best_memcpy.as_secs_f64() * 1e3,
        gib_s(best_memcpy)
    );
    println!(
        "async copy h->d   {mib} MiB: {:>9.3} ms ({:.2} GiB/s) on {}",
        best_async.as_secs_f64() * 1e3,
        gib_s(best_async),
        if sdma { "SDMA" } else { "blit kernels" }
    );
    println!(
        "ratio (memcpy time / async copy time): {:.2}x  (best of {runs})",
        best_memcpy.as_secs_f64() / best_async.as_secs_f64()
    );
    for p in [src, host_dst, dev_dst] {
        rt.free(p).unwrap();
    }
}
