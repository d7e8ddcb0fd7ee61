//! Copy and fill cases through the public API on the sim, shared by
//! `tests/copy.rs` (SDMA on) and `tests/copy_blit.rs` (SDMA off): the
//! runtime is a process-wide singleton, so each engine choice is its own
//! test binary.

#![allow(dead_code)]

use std::time::Duration;

use runtime::{Agent, CopyEngine, MemoryPool, PointerType, Runtime, Signal, Status};

/// A few seconds: how long a test waits for a completion before failing.
pub const DONE: Duration = Duration::from_secs(120);

/// The CPU agent, the first GPU agent, the system (fine) pool and the
/// GPU's VRAM pool.
pub struct Setup {
    pub rt: Runtime,
    pub cpu: Agent,
    pub gpu: Agent,
    pub sys: MemoryPool,
    pub vram: MemoryPool,
}

pub fn setup(rt: Runtime) -> Setup {
    let gpu = rt.gpu_agents().next().expect("a GPU agent");
    let cpu = rt
        .agents()
        .find(|a| !rt.agent(*a).unwrap().is_gpu())
        .expect("a CPU agent");
    let sys = rt.kernarg_pool().unwrap();
    let vram = rt
        .pools(gpu)
        .unwrap()
        .into_iter()
        .find(|p| rt.pool(*p).unwrap().kind == runtime::memory::PoolKind::Vram)
        .expect("a VRAM pool");
    Setup {
        rt,
        cpu,
        gpu,
        sys,
        vram,
    }
}

pub fn pattern(n: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}

/// Writes `bytes` at `p` (CPU-reachable memory).
pub fn poke(p: u64, bytes: &[u8]) {
    // SAFETY: the tests pass CPU-mapped allocations at least that long.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p as *mut u8, bytes.len()) };
}

/// Reads `n` bytes at `p` (CPU-reachable memory, no copy in flight).
pub fn peek(p: u64, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    // SAFETY: as `poke`.
    unsafe { std::ptr::copy_nonoverlapping(p as *const u8, v.as_mut_ptr(), n) };
    v
}

impl Setup {
    /// An async copy, waited for; returns the engine.
    pub fn copy(
        &self,
        dst: u64,
        dst_agent: Agent,
        src: u64,
        src_agent: Agent,
        size: u64,
    ) -> CopyEngine {
        let done = self.rt.create_signal(1).unwrap();
        // SAFETY: test buffers, nothing else uses them meanwhile.
        let e = unsafe {
            self.rt
                .memory_async_copy(dst, dst_agent, src, src_agent, size, &[], &done)
        }
        .unwrap();
        assert!(done.wait_zero(DONE).unwrap(), "copy of {size} bytes done");
        e
    }
}

/// The default engine for host<->device copies in this binary.
pub fn host_engine(sdma: bool) -> CopyEngine {
    if sdma {
        CopyEngine::Sdma
    } else {
        CopyEngine::BlitKernel
    }
}

/// host -> device -> device -> host, and host -> host, at unaligned
/// offsets and odd sizes (including more than two SDMA packets).
pub fn round_trips(s: &Setup, sdma: bool) {
    let sizes: [u64; 7] = [1, 3, 17, 4095, 4096 + 13, (1 << 20) + 7, 9 * (1 << 20) + 5];
    let offsets: [(u64, u64); 3] = [(0, 0), (1, 3), (5, 2)];
    let cap = 10 << 20;
    let h1 = s.rt.allocate(s.sys, cap).unwrap();
    let h2 = s.rt.allocate(s.sys, cap).unwrap();
    let d1 = s.rt.allocate(s.vram, cap).unwrap();
    let d2 = s.rt.allocate(s.vram, cap).unwrap();
    let mut seed = 1;
    for &size in &sizes {
        for &(so, doff) in &offsets {
            seed += 1;
            let data = pattern(size as usize, seed);
            poke(h2, &vec![0xee; (size + 16) as usize]);
            poke(h1 + so, &data);
            let e = s.copy(d1 + doff, s.gpu, h1 + so, s.cpu, size);
            assert_eq!(e, host_engine(sdma), "host->device");
            // Device to device: the blit kernel, as ROCr's BlitDevToDev.
            let e = s.copy(d2 + so, s.gpu, d1 + doff, s.gpu, size);
            assert_eq!(e, CopyEngine::BlitKernel, "device->device");
            let e = s.copy(h2 + doff, s.cpu, d2 + so, s.gpu, size);
            assert_eq!(e, host_engine(sdma), "device->host");
            let back = peek(h2, (size + 16) as usize);
            assert_eq!(
                &back[doff as usize..(doff + size) as usize],
                &data[..],
                "round trip of {size} bytes at +{so}/+{doff}"
            );
            assert!(
                back[..doff as usize].iter().all(|&b| b == 0xee),
                "head untouched"
            );
            assert!(
                back[(doff + size) as usize..].iter().all(|&b| b == 0xee),
                "tail untouched"
            );
            // Host to host: the first GPU copies.
            poke(h2, &vec![0xee; (size + 16) as usize]);
            let e = s.copy(h2 + doff, s.cpu, h1 + so, s.cpu, size);
            assert_eq!(e, host_engine(sdma), "host->host");
            assert_eq!(peek(h2 + doff, size as usize), data, "host->host {size}");
        }
    }
    for p in [h1, h2, d1, d2] {
        s.rt.free(p).unwrap();
    }
}

/// The copy waits for every dependent signal to be 0 (seven of them: two
/// barrier packets on the blit path), then decrements the completion.
pub fn dependent_signals(s: &Setup) {
    let n = 1 << 16;
    let src = s.rt.allocate(s.sys, n).unwrap();
    let dst = s.rt.allocate(s.sys, n).unwrap();
    let vram = s.rt.allocate(s.vram, n).unwrap();
    let data = pattern(n as usize, 99);
    poke(src, &data);
    poke(dst, &vec![0; n as usize]);
    let deps: Vec<Signal> = (0..7).map(|_| s.rt.create_signal(1).unwrap()).collect();
    // The completion starts at 3: a copy decrements it, to 2.
    let done = s.rt.create_signal(3).unwrap();
    let dep_refs: Vec<&Signal> = deps.iter().collect();
    for (dst, dst_agent, src, src_agent) in [(vram, s.gpu, src, s.cpu), (dst, s.cpu, vram, s.gpu)] {
        // SAFETY: test buffers.
        unsafe {
            s.rt.memory_async_copy(dst, dst_agent, src, src_agent, n, &dep_refs, &done)
        }
        .unwrap();
    }
    std::thread::scope(|t| {
        t.spawn(|| {
            for (i, d) in deps.iter().enumerate() {
                std::thread::sleep(Duration::from_millis(20));
                // Until the last dependency is 0, nothing was copied.
                assert_eq!(done.load(signal_core::LoadOrder::Acquire), 3, "dep {i}");
                assert!(peek(dst, n as usize).iter().all(|&b| b == 0), "dep {i}");
                d.store(0, signal_core::StoreOrder::Release);
            }
        });
    });
    let v = done
        .wait(
            signal_core::Condition::Eq,
            1,
            u64::MAX,
            signal_core::WaitState::Blocked,
            signal_core::LoadOrder::Acquire,
        )
        .unwrap();
    assert_eq!(v, 1, "each copy decremented the completion once");
    assert_eq!(peek(dst, n as usize), data);
    for p in [src, dst, vram] {
        s.rt.free(p).unwrap();
    }
}

/// A copy of 0 bytes still waits and completes.
pub fn empty_copy_completes(s: &Setup) {
    let h = s.rt.allocate(s.sys, 4096).unwrap();
    let d = s.rt.allocate(s.vram, 4096).unwrap();
    let done = s.rt.create_signal(1).unwrap();
    // SAFETY: test buffers.
    unsafe { s.rt.memory_async_copy(d, s.gpu, h, s.cpu, 0, &[], &done) }.unwrap();
    assert!(done.wait_zero(DONE).unwrap());
    s.rt.free(h).unwrap();
    s.rt.free(d).unwrap();
}

pub fn fills(s: &Setup) {
    let n = (3 << 20) + 12;
    let d = s.rt.allocate(s.vram, n).unwrap();
    let h = s.rt.allocate(s.sys, n).unwrap();
    poke(h, &vec![0x11; n as usize]);
    // SAFETY: test buffers (or rejected calls), nothing else uses them.
    let fill = |p: u64, v: u32, c: u64| unsafe { s.rt.memory_fill(p, v, c) };
    fill(d, 0xa1b2_c3d4, n / 4).unwrap();
    fill(h + 8, 0x0102_0304, 1001).unwrap();
    let back = peek(h, n as usize);
    assert_eq!(&back[..8], &[0x11; 8]);
    for i in 0..1001 {
        let at = 8 + 4 * i;
        assert_eq!(
            &back[at..at + 4],
            &0x0102_0304u32.to_le_bytes(),
            "dword {i}"
        );
    }
    assert!(back[8 + 4 * 1001..].iter().all(|&b| b == 0x11));
    s.copy(h, s.cpu, d, s.gpu, n);
    let back = peek(h, n as usize);
    for (i, c) in back.chunks(4).enumerate() {
        assert_eq!(c, &0xa1b2_c3d4u32.to_le_bytes(), "vram dword {i}");
    }
    let e = fill(d + 2, 0, 4).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument, "{e}");
    let e = fill(0, 0, 4).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument, "{e}");
    let e = fill(d, 0, n / 4 + 1).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument, "{e}");
    let local = [0u32; 4];
    let e = fill(local.as_ptr() as u64, 0, 4).unwrap_err();
    assert_eq!(e.status, Status::InvalidAllocation, "{e}");
    fill(d, 0, 0).unwrap();
    s.rt.free(d).unwrap();
    s.rt.free(h).unwrap();
}

/// Host memory locked (USERPTR) as a copy source and destination, and its
/// pointer info.
pub fn locked_memory(s: &Setup) {
    let n = 100_000usize;
    let data = pattern(n, 7);
    let mut host = vec![0u8; n + 8192];
    // An unaligned pointer into the Vec.
    let off = (4096 - (host.as_ptr() as usize % 4096)) + 100;
    let p = host.as_mut_ptr() as u64 + off as u64;
    poke(p, &data);
    // SAFETY: `host` outlives the lock (unlocked below).
    let gpu_p = unsafe { s.rt.lock_host(p, n as u64) }.unwrap();
    assert_eq!(gpu_p, p);
    let info = s.rt.amd_pointer_info(p + 10);
    assert_eq!(info.kind, PointerType::Locked);
    assert_eq!(info.host_base_address, p);
    assert_eq!(info.agent_base_address, p);
    assert_eq!(info.size_in_bytes, n as u64);
    assert_eq!(info.agent_owner, Some(s.cpu));
    let d = s.rt.allocate(s.vram, n as u64).unwrap();
    s.copy(d, s.gpu, p, s.cpu, n as u64);
    poke(p, &vec![0; n]);
    s.copy(p, s.cpu, d, s.gpu, n as u64);
    assert_eq!(peek(p, n), data, "locked memory round trip");
    s.rt.unlock_host(p).unwrap();
    assert_eq!(s.rt.amd_pointer_info(p).kind, PointerType::Unknown);
    let e = s.rt.unlock_host(p).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    // Unlocked, it is no longer a valid async copy source.
    let done = s.rt.create_signal(1).unwrap();
    // SAFETY: rejected before any copy.
    let e = unsafe {
        s.rt.memory_async_copy(d, s.gpu, p, s.cpu, n as u64, &[], &done)
    }
    .unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument, "{e}");
    s.rt.free(d).unwrap();
    drop(host);
}

pub fn pointer_info(s: &Setup) {
    let h = s.rt.allocate(s.sys, 1000).unwrap();
    let d = s.rt.allocate(s.vram, 5000).unwrap();
    let i = s.rt.amd_pointer_info(h + 999);
    assert_eq!(i.kind, PointerType::Hsa);
    assert_eq!((i.agent_base_address, i.host_base_address), (h, h));
    assert_eq!(i.size_in_bytes, 1000);
    assert_eq!(i.agent_owner, Some(s.cpu));
    assert_eq!(i.global_flags, 2, "fine grained");
    assert_eq!(s.rt.amd_pointer_info(h + 1000).kind, PointerType::Unknown);
    let i = s.rt.amd_pointer_info(d + 4);
    assert_eq!(i.kind, PointerType::Hsa);
    assert_eq!(i.agent_base_address, d);
    assert_eq!(i.size_in_bytes, 5000);
    assert_eq!(i.agent_owner, Some(s.gpu));
    assert_eq!(i.global_flags, 4, "coarse grained");
    s.rt.free(h).unwrap();
    assert_eq!(s.rt.amd_pointer_info(h).kind, PointerType::Unknown);
    assert_eq!(s.rt.amd_pointer_info(0).kind, PointerType::Unknown);
    s.rt.free(d).unwrap();
}

/// `hsa_memory_copy` between plain host memory, system and device memory.
pub fn memory_copy(s: &Setup) {
    let n = 300_001usize;
    let data = pattern(n, 3);
    let d = s.rt.allocate(s.vram, n as u64 + 64).unwrap();
    let d2 = s.rt.allocate(s.vram, n as u64 + 64).unwrap();
    let mut back = vec![0u8; n];
    let h = s.rt.allocate(s.sys, n as u64).unwrap();
    // SAFETY: live, non-overlapping buffers of at least `len` bytes (or
    // calls rejected before any copy).
    let copy = |dst: u64, src: u64, len: u64| unsafe { s.rt.copy(dst, src, len) };
    copy(d + 3, data.as_ptr() as u64, n as u64).unwrap();
    copy(d2 + 1, d + 3, n as u64).unwrap();
    copy(back.as_mut_ptr() as u64, d2 + 1, n as u64).unwrap();
    assert_eq!(back, data);
    copy(h, d + 3, n as u64).unwrap();
    let e = copy(h, d + 3, n as u64 + 4096 * 2).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument, "{e}");
    let e = copy(0, d, 1).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument, "{e}");
    assert_eq!(peek(h, n), data);
    for p in [d, d2, h] {
        s.rt.free(p).unwrap();
    }
    for p in [data.as_ptr() as u64, back.as_ptr() as u64] {
        assert_eq!(
            s.rt.amd_pointer_info(p).kind,
            PointerType::Unknown,
            "temporary locks released"
        );
    }
}

pub fn argument_errors(s: &Setup) {
    let h = s.rt.allocate(s.sys, 8192).unwrap();
    let d = s.rt.allocate(s.vram, 8192).unwrap();
    let done = s.rt.create_signal(1).unwrap();
    let bogus = Agent::from_handle(s.gpu.handle() + 1000).unwrap();
    let local = [0u8; 64];
    let cases: Vec<(u64, Agent, u64, Agent, u64, Status, &str)> = vec![
        (0, s.gpu, h, s.cpu, 4, Status::InvalidArgument, "null dst"),
        (d, s.gpu, 0, s.cpu, 4, Status::InvalidArgument, "null src"),
        (
            d,
            bogus,
            h,
            s.cpu,
            4,
            Status::InvalidAgent,
            "unknown dst agent",
        ),
        (
            d,
            s.gpu,
            h,
            bogus,
            4,
            Status::InvalidAgent,
            "unknown src agent",
        ),
        (
            d,
            s.gpu,
            h,
            s.cpu,
            8193,
            Status::InvalidArgument,
            "past the source",
        ),
        (
            d + 8000,
            s.gpu,
            h,
            s.cpu,
            200,
            Status::InvalidArgument,
            "past the destination",
        ),
        (
            h + 8,
            s.cpu,
            h,
            s.cpu,
            100,
            Status::InvalidArgument,
            "overlap",
        ),
        (
            d,
            s.gpu,
            local.as_ptr() as u64,
            s.cpu,
            64,
            Status::InvalidArgument,
            "unregistered host memory",
        ),
    ];
    for (dst, da, src, sa, n, want, what) in cases {
        // SAFETY: every case is rejected before any copy.
        let e = unsafe { s.rt.memory_async_copy(dst, da, src, sa, n, &[], &done) }.expect_err(what);
        assert_eq!(e.status, want, "{what}: {e}");
    }
    assert_eq!(done.load(signal_core::LoadOrder::Acquire), 1);
    s.rt.free(h).unwrap();
    s.rt.free(d).unwrap();
}

/// The test functions of one engine choice: `copy_tests!(true)` for SDMA
/// on, `copy_tests!(false)` for the blit kernels. Each test binary is its
/// own process, as the runtime is a process-wide singleton.
#[macro_export]
macro_rules! copy_tests {
    ($sdma:expr) => {
        const SDMA: bool = $sdma;

        fn setup() -> $crate::cases::Setup {
            let rt = Runtime::init_with_options(driver::open_sim, InitOptions { sdma: Some(SDMA) })
                .expect("runtime on the sim");
            assert_eq!(rt.sdma_enabled(), SDMA);
            $crate::cases::setup(rt)
        }

        #[test]
        fn round_trips_at_odd_offsets_and_sizes() {
            $crate::cases::round_trips(&setup(), SDMA);
        }

        #[test]
        fn copies_wait_for_dependent_signals_and_decrement_the_completion() {
            $crate::cases::dependent_signals(&setup());
        }

        #[test]
        fn an_empty_copy_completes() {
            $crate::cases::empty_copy_completes(&setup());
        }

        #[test]
        fn fills_use_the_fill_kernel() {
            $crate::cases::fills(&setup());
        }

        #[test]
        fn locked_host_memory_is_a_copy_source_and_destination() {
            $crate::cases::locked_memory(&setup());
        }

        #[test]
        fn pointer_info_reports_allocations() {
            $crate::cases::pointer_info(&setup());
        }

        #[test]
        fn hsa_memory_copy_goes_through_the_gpu_for_device_memory() {
            $crate::cases::memory_copy(&setup());
        }

        #[test]
        fn argument_errors_have_hsa_statuses() {
            $crate::cases::argument_errors(&setup());
        }
    };
}
