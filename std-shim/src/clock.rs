//! Clocks: the HSA system timestamp and thread CPU time.

use rustix::time::{ClockId, Timespec, clock_gettime};

/// Ticks per second of [`system_timestamp`]: nanoseconds.
pub const HSA_SYSTEM_TIMESTAMP_FREQUENCY: u64 = 1_000_000_000;

fn timespec_ns(t: Timespec) -> u64 {
    // Both fields are non-negative for these clocks; a negative one would
    // be a kernel bug, read as 0 rather than wrapped.
    let secs = u64::try_from(t.tv_sec).unwrap_or(0);
    let nsecs = u64::try_from(t.tv_nsec).unwrap_or(0);
    secs.saturating_mul(1_000_000_000).saturating_add(nsecs)
}

/// The HSA system timestamp (`HSA_SYSTEM_INFO_TIMESTAMP`): `CLOCK_BOOTTIME`
/// in nanoseconds, the clock KFD samples as `system_clock_counter` so GPU
/// timestamps translate into this domain.
pub fn system_timestamp() -> u64 {
    timespec_ns(clock_gettime(ClockId::Boottime))
}

/// The calling thread's consumed CPU time (`CLOCK_THREAD_CPUTIME_ID`), in
/// nanoseconds.
pub fn thread_cpu_time_ns() -> u64 {
    timespec_ns(clock_gettime(ClockId::ThreadCPUTime))
}

pub(crate) fn monotonic() -> Timespec {
    clock_gettime(ClockId::Monotonic)
}

pub(crate) fn timespec_from_ns(ns: u64) -> Timespec {
    Timespec {
        tv_sec: i64::try_from(ns / 1_000_000_000).unwrap_or(i64::MAX),
        tv_nsec: (ns % 1_000_000_000) as _,
    }
}

pub(crate) fn add_ns(t: Timespec, ns: u64) -> Timespec {
    let total = u128::from(u64::try_from(t.tv_nsec).unwrap_or(0)) + u128::from(ns);
    let secs = i64::try_from(total / 1_000_000_000).unwrap_or(i64::MAX);
    Timespec {
        tv_sec: t.tv_sec.saturating_add(secs),
        tv_nsec: (total % 1_000_000_000) as _,
    }
}
