//! ROCr 6.1's asynchronous scratch reclaim (`amd_queue_v2_t`) on the
//! MI300X board (gfx942, CP firmware 192 ≥ 177): queues say the runtime
//! supports it (`AMD_QUEUE_CAPS_SW_ASYNC_RECLAIM`), the sim's CP answers
//! with `AMD_QUEUE_CAPS_CP_ASYNC_RECLAIM` and records the last packet that
//! used the scratch per XCC; scratch below 3 GiB per XCC stays bound to the
//! queue; a trim, `set_async_scratch_limit` and a failed VRAM allocation
//! take it back with the `scratch_max_use_index` handshake, waiting for a
//! dispatch that runs on it. `HSA_ENABLE_SCRATCH_ASYNC_RECLAIM=0`, and the
//! gfx90a boards, keep ROCr's older scheme. The steps share one process
//! runtime, so they run one after another in one test.

#[path = "support/host_buffers.rs"]
mod host_buffers;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use aql::SignalHandle;
use aql::packet::KernelDispatchPacket;
use aql::queue::v2;
use host_buffers::{read_u32s, u32s};
use runtime::agent::Agent;
use runtime::executable::{Executable, KernelSymbol};
use runtime::flags::Flags;
use runtime::{ArgValue, Geometry, InitOptions, Queue, QueueKind, Runtime, Status, driver};

const GFX942: &[u8] = include_bytes!("../../loader-core/corpus/co/gfx942-v5.co");
const LONG: Duration = Duration::from_secs(120);

fn flags(vars: &'static [(&'static str, &'static str)]) -> Flags {
    Flags::from_lookup(|n| {
        vars.iter()
            .find(|(k, _)| *k == n)
            .map(|(_, v)| (*v).to_owned())
    })
    .unwrap()
}

fn open(dev: sim::SimDevice, vars: &'static [(&'static str, &'static str)]) -> Runtime {
    Runtime::init_with_flags(
        || driver::open_sim_device(dev),
        InitOptions::default(),
        flags(vars),
    )
    .unwrap()
}

/// The runtime on `dev`, its GPU, gfx942's `private_scratch` loaded there
/// and a queue (the executable is returned to keep the kernel loaded).
fn setup(
    dev: sim::SimDevice,
    vars: &'static [(&'static str, &'static str)],
) -> (
    Runtime,
    Agent,
    Executable,
    std::sync::Arc<KernelSymbol>,
    Queue,
) {
    let rt = open(dev, vars);
    let gpu = rt.gpu_agents().next().unwrap();
    let exe = rt.load_executable(gpu, GFX942).unwrap();
    let k = exe.kernel("private_scratch").unwrap().clone();
    let q = rt
        .create_queue(gpu, 64, QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    (rt, gpu, exe, k, q)
}

fn u32_at(q: &Queue, offset: usize) -> u32 {
    // SAFETY: `offset` lies in the queue's live amd_queue_t allocation
    // (4 KiB, holding amd_queue_v2_t), read atomically as the CP writes it.
    unsafe { &*((q.address() + offset as u64) as *const std::sync::atomic::AtomicU32) }
        .load(Ordering::Acquire)
}

fn u64_at(q: &Queue, offset: usize) -> u64 {
    // SAFETY: as `u32_at`, 8-byte aligned.
    unsafe { &*((q.address() + offset as u64) as *const AtomicU64) }.load(Ordering::Acquire)
}

fn caps(q: &Queue) -> v2::AmdQueueCaps {
    v2::AmdQueueCaps::from_bits_retain(u32_at(q, v2::CAPS))
}

fn last_used(q: &Queue, xcc: usize) -> u64 {
    u64_at(q, v2::scratch_last_used_index(xcc).unwrap())
}

/// `private_scratch` over `n` items against the host: out[i] =
/// table[idx[i] & 511] with table[k] = k * local id.
fn run_private_scratch(rt: &Runtime, q: &Queue, k: &runtime::KernelSymbol, n: u32, wg: u16) {
    let idx: Vec<u32> = (0..n).map(|i| i.wrapping_mul(7) + 3).collect();
    let pi = u32s(rt, &idx);
    let po = u32s(rt, &vec![0; n as usize]);
    rt.dispatch(
        q,
        k,
        &[ArgValue::Pointer(pi), ArgValue::Pointer(po)],
        &Geometry::linear(n, wg),
        LONG,
    )
    .unwrap();
    let got = read_u32s(po, n as usize);
    for i in 0..n as usize {
        let lid = i as u32 % u32::from(wg);
        assert_eq!(got[i], (idx[i] & 511).wrapping_mul(lid), "out[{i}]");
    }
    rt.free(pi).unwrap();
    rt.free(po).unwrap();
}

fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(t.elapsed() < LONG, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn asynchronous_scratch_reclaim_on_the_gfx942_board() {
    kept_scratch_is_trimmed_and_granted_again();
    a_reclaim_waits_for_the_dispatch_that_runs_on_the_scratch();
    the_async_limit_makes_scratch_use_once();
    a_failed_vram_allocation_takes_queue_scratch_back();
    off_with_the_flag_and_on_gfx90a();
}

/// The queue's scratch stays after its dispatch (1.3 GB: use-once without
/// asynchronous reclaim, where the limit is 140 MiB), a trim takes it back,
/// and the next dispatch asks for scratch again (its private segment no
/// longer fits: code 1) and gets it.
fn kept_scratch_is_trimmed_and_granted_again() {
    let trace = std::env::temp_dir().join(format!("async-reclaim-{}.trace", std::process::id()));
    let _ = std::fs::remove_file(&trace);
    let dev = sim::SimBuilder::new()
        .board(sim::Board::Mi300x)
        .trace(&trace)
        .build();
    let (rt, gpu, _exe, k, q) = setup(dev, &[]);
    assert!(caps(&q).contains(v2::AmdQueueCaps::SW_ASYNC_RECLAIM));
    assert_eq!(u64_at(&q, v2::SCRATCH_MAX_USE_INDEX), u64::MAX);
    run_private_scratch(&rt, &q, &k, 1000, 256);
    assert!(
        caps(&q).contains(v2::AmdQueueCaps::CP_ASYNC_RECLAIM),
        "the firmware answers on connect"
    );
    // Packet 0 ran on the scratch, on every one of the 8 XCCs.
    for x in 0..8 {
        assert_eq!(last_used(&q, x), 0, "xcc {x}");
    }
    let held = q.scratch();
    assert!(!held.large, "below the 24 GiB async threshold: kept");
    assert!(held.bytes > 140 << 20, "{} bytes", held.bytes);
    assert_eq!(rt.scratch_usage(gpu).unwrap(), (held.bytes, 0));
    q.set_priority(kfd::ioctl::QueuePriority::MAX).unwrap();
    assert_eq!(rt.trim_scratch(gpu).unwrap(), held.bytes);
    // The reclaim suspended and resumed the queue at its priority.
    let updates: Vec<String> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .filter(|l| l.contains("AMDKFD_IOC_UPDATE_QUEUE"))
        .map(|l| l.split_once(" queue_id=").map_or(l, |(_, r)| r).to_owned())
        .collect();
    let id = q.kfd_queue_id();
    assert_eq!(
        updates,
        [
            format!("{id} ring_size=0x1000 pct=100 prio=15 -> 0"),
            format!("{id} ring_size=0x1000 pct=0 prio=15 -> 0"),
            format!("{id} ring_size=0x1000 pct=100 prio=15 -> 0"),
        ],
        "set_priority, then the reclaim's suspend and resume"
    );
    assert_eq!(q.scratch().bytes, 0);
    assert_eq!(rt.scratch_usage(gpu).unwrap(), (0, 0));
    assert_eq!(
        u64_at(&q, v2::SCRATCH_MAX_USE_INDEX),
        0,
        "barred after the last packet that used it"
    );
    run_private_scratch(&rt, &q, &k, 64, 64);
    assert_eq!(u64_at(&q, v2::SCRATCH_MAX_USE_INDEX), u64::MAX);
    for x in 0..8 {
        assert_eq!(last_used(&q, x), 1, "xcc {x}");
    }
    assert!(q.scratch().bytes > 0);
    assert_eq!(q.error(), None);
}

/// A shader core that holds packet 0 until released (the sim's CP has
/// made its scratch decisions by then), and runs nothing else.
struct Held {
    started: AtomicBool,
    release: AtomicBool,
    ran: AtomicU64,
}

impl sim::ShaderCore for Held {
    fn dispatch(&self, d: &sim::Dispatch<'_>) -> Result<(), sim::ShaderFault> {
        if d.packet_id == 0 {
            self.started.store(true, Ordering::Release);
            let t = Instant::now();
            while !self.release.load(Ordering::Acquire) && t.elapsed() < LONG {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        self.ran.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }
}

/// A trim while packet 0 runs on the scratch: the runtime bars later
/// packets (scratch_max_use_index = 0) and waits for packet 0 before it
/// frees the scratch; packet 1, submitted after, asks for scratch anew.
/// (Queued behind packet 0, packet 1's request could take the freed block
/// from the cache before the trim frees it, as in ROCr, where
/// HandleInsufficientScratch waits on the same lock: the trim's count
/// would then be 0.)
fn a_reclaim_waits_for_the_dispatch_that_runs_on_the_scratch() {
    let dev = sim::SimBuilder::new().board(sim::Board::Mi300x).build();
    let core = Arc::new(Held {
        started: AtomicBool::new(false),
        release: AtomicBool::new(false),
        ran: AtomicU64::new(0),
    });
    dev.set_shader_core(Arc::clone(&core) as Arc<dyn sim::ShaderCore>);
    let (rt, gpu, _exe, k, q) = setup(dev, &[]);
    let kernarg = rt
        .allocate(
            rt.kernarg_pool().unwrap(),
            u64::from(k.kernarg_segment_size.max(16)),
        )
        .unwrap();
    let signals: Vec<_> = (0..2).map(|_| rt.create_signal(1).unwrap()).collect();
    let submit = |s: &runtime::Signal| {
        let mut p = KernelDispatchPacket::new(k.kernel_object, kernarg, [256, 1, 1], [64, 1, 1]);
        p.completion_signal = SignalHandle { handle: s.handle() };
        p.private_segment_size = k.private_segment_size;
        q.submit(&zerocopy::transmute!(p)).unwrap();
    };
    submit(&signals[0]);
    wait_for("packet 0 to start", || core.started.load(Ordering::Acquire));
    let held = rt.scratch_usage(gpu).unwrap().0;
    assert!(held > 0);
    let trimmed = AtomicU64::new(u64::MAX);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            trimmed.store(rt.trim_scratch(gpu).unwrap(), Ordering::Release);
        });
        wait_for("the reclaim to bar later packets", || {
            u64_at(&q, v2::SCRATCH_MAX_USE_INDEX) == 0
        });
        std::thread::sleep(Duration::from_millis(50));
        let waiting = trimmed.load(Ordering::Acquire);
        let usage = rt.scratch_usage(gpu).unwrap();
        let read = q.load_read_index(Ordering::Acquire);
        core.release.store(true, Ordering::Release);
        assert_eq!(waiting, u64::MAX, "the trim waits for packet 0");
        assert_eq!(usage, (held, 0), "still bound");
        assert_eq!(read, 0, "packet 0 runs");
    });
    assert_eq!(trimmed.load(Ordering::Acquire), held);
    assert_eq!(rt.scratch_usage(gpu).unwrap(), (0, 0));
    submit(&signals[1]);
    for s in &signals {
        assert!(s.wait_zero(LONG).unwrap());
    }
    assert_eq!(core.ran.load(Ordering::Acquire), 2);
    assert_eq!(
        last_used(&q, 0),
        1,
        "packet 1 ran on the scratch granted anew"
    );
    assert_eq!(u64_at(&q, v2::SCRATCH_MAX_USE_INDEX), u64::MAX);
    assert!(q.scratch().bytes > 0);
    assert_eq!(q.error(), None);
    rt.free(kernarg).unwrap();
}

/// `set_async_scratch_limit`: a queue holding more gives it back at once,
/// and scratch above the new limit is use-once (handed back when its
/// dispatch ends); limits beyond 4 GiB per XCC are refused.
fn the_async_limit_makes_scratch_use_once() {
    let dev = sim::SimBuilder::new().board(sim::Board::Mi300x).build();
    let (rt, gpu, _exe, k, q) = setup(dev, &[]);
    run_private_scratch(&rt, &q, &k, 1000, 256);
    assert!(q.scratch().bytes > 1 << 20);
    let e = rt.set_async_scratch_limit(gpu, (8 << 32) + 1).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument, "{e}");
    let cpu = rt.agents().next().unwrap();
    let e = rt.set_async_scratch_limit(cpu, 1 << 20).unwrap_err();
    assert_eq!(e.status, Status::InvalidAgent, "{e}");
    rt.set_async_scratch_limit(gpu, 1 << 20).unwrap();
    assert_eq!(q.scratch().bytes, 0, "more than the new limit: reclaimed");
    assert_eq!(rt.scratch_usage(gpu).unwrap().0, 0);
    run_private_scratch(&rt, &q, &k, 1000, 256);
    wait_for("the use-once scratch to go back (code 512)", || {
        q.scratch().bytes == 0
    });
    assert_eq!(q.error(), None);
}

/// A VRAM allocation that fails while queues hold scratch trims the GPU
/// (taking the queues' scratch back) and is tried again (ROCr's
/// `KfdDriver::AllocateMemory`).
fn a_failed_vram_allocation_takes_queue_scratch_back() {
    let dev = sim::SimBuilder::new()
        .board(sim::Board::Mi300x)
        .vram(4 << 30)
        .build();
    let (rt, gpu, _exe, k, q) = setup(dev, &[]);
    run_private_scratch(&rt, &q, &k, 1000, 256);
    let held = q.scratch().bytes;
    assert!(held > 1 << 30, "{held}");
    let vram = rt
        .pools(gpu)
        .unwrap()
        .into_iter()
        .find(|p| rt.pool(*p).unwrap().kind == runtime::memory::PoolKind::Vram)
        .unwrap();
    let big = rt.allocate(vram, 3 << 30).unwrap();
    assert_eq!(q.scratch().bytes, 0, "the queue's scratch went back first");
    rt.free(big).unwrap();
    run_private_scratch(&rt, &q, &k, 64, 64);
}

/// `HSA_ENABLE_SCRATCH_ASYNC_RECLAIM=0` on the gfx942 board, and the MI210
/// (gfx90a, no asynchronous reclaim in ROCr): queues do not claim v2
/// support, 1.3 GB of scratch is use-once, the limit call is refused.
fn off_with_the_flag_and_on_gfx90a() {
    for (board, vars) in [
        (
            sim::Board::Mi300x,
            &[("HSA_ENABLE_SCRATCH_ASYNC_RECLAIM", "0")][..],
        ),
        (sim::Board::Mi210, &[][..]),
    ] {
        let dev = sim::SimBuilder::new().board(board).build();
        let rt = open(dev, vars);
        let gpu = rt.gpu_agents().next().unwrap();
        let q = rt
            .create_queue(gpu, 64, QueueKind::Multiple, None, u32::MAX)
            .unwrap();
        assert!(
            !caps(&q).contains(v2::AmdQueueCaps::SW_ASYNC_RECLAIM),
            "{board:?}"
        );
        let e = rt.set_async_scratch_limit(gpu, 1 << 20).unwrap_err();
        assert_eq!(e.status, Status::InvalidArgument, "{board:?}: {e}");
        if board == sim::Board::Mi300x {
            let exe = rt.load_executable(gpu, GFX942).unwrap();
            let k = exe.kernel("private_scratch").unwrap().clone();
            for _ in 0..2 {
                run_private_scratch(&rt, &q, &k, 1000, 256);
                wait_for("the use-once scratch to go back (code 512)", || {
                    q.scratch().bytes == 0
                });
            }
            assert_eq!(u64_at(&q, v2::SCRATCH_MAX_USE_INDEX), u64::MAX);
            assert_eq!(last_used(&q, 0), 0, "the firmware kept off the v2 fields");
        }
    }
}
