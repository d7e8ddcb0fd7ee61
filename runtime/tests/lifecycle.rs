//! `hsa_init`/`hsa_shut_down` cycles: reference counting, re-init after the
//! last shut-down, inits and shut-downs from several threads at once, and
//! nothing left behind (descriptors, mappings, threads) once the runtime
//! closes. One test per process: the counts are of the
//! whole process.

use std::time::Duration;

use runtime::{ArgValue, Geometry, QueueKind, Runtime, driver};

const DEMO: &[u8] = include_bytes!("../kernels/demo.co");

fn count(dir: &str) -> usize {
    std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0)
}

fn maps() -> usize {
    std::fs::read_to_string("/proc/self/maps")
        .map(|s| s.lines().count())
        .unwrap_or(0)
}

#[derive(Debug, PartialEq, Eq, Clone, Copy)]
struct Usage {
    fds: usize,
    maps: usize,
    threads: usize,
}

fn usage() -> Usage {
    Usage {
        fds: count("/proc/self/fd"),
        maps: maps(),
        threads: count("/proc/self/task"),
    }
}

/// Everything a program does in one init: allocate, queue, signal, load,
/// dispatch.
fn work(rt: &Runtime) {
    let gpu = rt.gpu_agents().next().expect("a GPU agent");
    let exe = rt.load_executable(gpu, DEMO).unwrap();
    let k = exe.kernel("vector_add").unwrap().clone();
    let q = rt
        .create_queue(gpu, 128, QueueKind::Multiple, None, 0)
        .unwrap();
    let pool = rt.kernarg_pool().unwrap();
    let n = 64u32;
    let bufs: Vec<u64> = (0..3).map(|_| rt.allocate(pool, 4 * 64).unwrap()).collect();
    let s = rt.create_signal(7).unwrap();
    assert_eq!(s.load(signal_core::LoadOrder::Relaxed), 7);
    rt.dispatch(
        &q,
        &k,
        &[
            ArgValue::Pointer(bufs[0]),
            ArgValue::Pointer(bufs[1]),
            ArgValue::Pointer(bufs[2]),
            ArgValue::Bytes(n.to_le_bytes().to_vec()),
        ],
        &Geometry::linear(n, 64),
        Duration::from_secs(60),
    )
    .unwrap();
    for b in bufs {
        rt.free(b).unwrap();
    }
}

/// `M_ARENA_MAX` (`malloc.h`).
const M_ARENA_MAX: i32 = -8;

unsafe extern "C" {
    /// glibc's `mallopt`.
    fn mallopt(param: i32, value: i32) -> i32;
}

#[test]
fn init_shutdown_cycles_leave_nothing_behind() {
    // glibc gives threads malloc arenas of their own (a 64 MiB mapping
    // each) as it sees contention, and keeps them: which cycle creates one
    // depends on timing, not on the runtime (seen: one new arena after the
    // 5 cycles in about 1 run of 20). With one arena the mapping count
    // measures the runtime's own mappings exactly.
    // SAFETY: mallopt only changes glibc's allocator settings.
    let set = unsafe { mallopt(M_ARENA_MAX, 1) };
    assert_eq!(set, 1, "mallopt(M_ARENA_MAX, 1)");
    // A first cycle warms up what the process keeps for good (the test
    // harness's threads, std's lazily opened files).
    {
        let rt = Runtime::init_with(driver::open_sim).unwrap();
        work(&rt);
    }
    assert_eq!(Runtime::init_count(), 0);
    // Let threads of the closed runtime finish exiting.
    std::thread::sleep(Duration::from_millis(50));
    let before = usage();
    for cycle in 0..5 {
        let a = Runtime::init_with(driver::open_sim).unwrap();
        // A nested init shares the runtime; the driver is opened once.
        let b = Runtime::init_with(|| panic!("the runtime is open: no second device")).unwrap();
        assert_eq!(Runtime::init_count(), 2, "cycle {cycle}");
        work(&b);
        drop(b);
        assert_eq!(Runtime::init_count(), 1, "cycle {cycle}");
        work(&a);
        drop(a);
        assert_eq!(Runtime::init_count(), 0, "cycle {cycle}");
    }
    std::thread::sleep(Duration::from_millis(50));
    let after = usage();
    assert_eq!(
        before, after,
        "descriptors, mappings and threads after 5 cycles"
    );

    // Four threads init, work and shut down at once, three times each:
    // every init succeeds (sharing the open runtime or opening it again
    // after another thread's last shut-down), and nothing is left after.
    // glibc keeps the stacks of joined threads mapped for reuse (its stack
    // cache, seen: four guard + 2 MiB pairs more after this phase): four
    // threads first, beside an open runtime's own, so that the baseline
    // holds as many cached stacks as the phase's peak leaves.
    {
        let rt = Runtime::init_with(driver::open_sim).unwrap();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| work(&rt));
            }
        });
    }
    std::thread::sleep(Duration::from_millis(50));
    let before = usage();
    std::thread::scope(|s| {
        for t in 0..4 {
            s.spawn(move || {
                for i in 0..3 {
                    let rt = Runtime::init_with(driver::open_sim)
                        .unwrap_or_else(|e| panic!("thread {t}, init {i}: {e:?}"));
                    work(&rt);
                }
            });
        }
    });
    assert_eq!(Runtime::init_count(), 0);
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(
        before,
        usage(),
        "descriptors, mappings and threads after concurrent init and shut-down"
    );
}
