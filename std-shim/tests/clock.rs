//! The hosted HSA system clock is `CLOCK_BOOTTIME` in nanoseconds, the
//! domain of KFD's `system_clock_counter`: checked against the kernel's own
//! `/proc/uptime` (seconds since boot, suspend included) and against the
//! thread CPU clock's behaviour.

use signal_core::Clock;
use std_shim::{FutexHost, HSA_SYSTEM_TIMESTAMP_FREQUENCY, system_timestamp, thread_cpu_time_ns};

fn proc_uptime_s() -> f64 {
    let text = std::fs::read_to_string("/proc/uptime").expect("read /proc/uptime");
    text.split_whitespace()
        .next()
        .expect("uptime field")
        .parse()
        .expect("uptime is a number")
}

#[test]
fn system_timestamp_is_boottime_nanoseconds() {
    let before = proc_uptime_s();
    let ours = system_timestamp() as f64 / 1e9;
    let after = proc_uptime_s();
    // /proc/uptime has 10 ms resolution.
    assert!(
        ours >= before - 0.02 && ours <= after + 0.02,
        "{before} <= {ours} <= {after}"
    );
    let host = FutexHost::new();
    assert_eq!(host.ticks_per_second(), HSA_SYSTEM_TIMESTAMP_FREQUENCY);
    assert_eq!(HSA_SYSTEM_TIMESTAMP_FREQUENCY, 1_000_000_000);
    let a = host.now_ticks();
    let b = host.now_ticks();
    assert!(b >= a, "monotonic");
}

#[test]
fn thread_cpu_time_counts_work_not_sleep() {
    let t0 = thread_cpu_time_ns();
    std::thread::sleep(std::time::Duration::from_millis(50));
    let slept = thread_cpu_time_ns() - t0;
    let t1 = thread_cpu_time_ns();
    let mut x = 0u64;
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_millis(30) {
        x = std::hint::black_box(x.wrapping_add(1));
    }
    let worked = thread_cpu_time_ns() - t1;
    assert!(slept < 5_000_000, "sleeping 50 ms used {slept} ns of CPU");
    assert!(
        worked > slept,
        "busy 30 ms used {worked} ns, sleeping used {slept} ns"
    );
}
