//! Waiting on the hosted `FutexHost`: each condition, timeouts (a timed-out
//! wait returns in about the requested time), the wait-state hints,
//! wait-any, a stress test in which every wait must finish, and a blocked
//! waiter that burns no CPU.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use signal_core::*;
use std_shim::{FutexHost, thread_cpu_time_ns};

const MS: u64 = 1_000_000; // HSA system ticks (ns) per millisecond
const POLICIES: [WaitPolicy; 3] = [
    WaitPolicy::DEFAULT,
    WaitPolicy::BLOCK_AT_ONCE,
    WaitPolicy::polling(MS),
];

/// For each condition: a value that satisfies it and one that does not,
/// against the compare value 10.
const CASES: [(Condition, i64, i64); 4] = [
    (Condition::Eq, 10, 11),
    (Condition::Ne, 9, 10),
    (Condition::Lt, -3, 10),
    (Condition::Gte, 10, 9),
];

#[test]
fn each_condition_is_satisfied_at_once_or_after_a_store() {
    let host = FutexHost::new();
    for (cond, yes, no) in CASES {
        for state in [WaitState::Blocked, WaitState::Active] {
            for order in LoadOrder::ALL {
                let storage = SignalStorage::new(yes);
                let s = storage.bind(&host);
                assert_eq!(
                    s.wait(cond, 10, TIMEOUT_INFINITE, state, order),
                    Ok(WaitOutcome::Satisfied(yes))
                );
                for policy in &POLICIES {
                    s.store(no, StoreOrder::Relaxed);
                    let got = thread::scope(|sc| {
                        let w = sc.spawn(|| {
                            s.wait_with_policy(cond, 10, 5_000 * MS, state, order, policy)
                        });
                        thread::sleep(Duration::from_millis(2));
                        s.store(yes, StoreOrder::Release);
                        w.join().unwrap()
                    });
                    assert_eq!(
                        got,
                        Ok(WaitOutcome::Satisfied(yes)),
                        "{cond:?} {state:?} {order:?} {policy:?}"
                    );
                }
                assert_eq!(storage.wake_state().waiters(), 0);
            }
        }
    }
}

#[test]
fn timed_out_waits_return_the_observed_value_in_about_the_requested_time() {
    let host = FutexHost::new();
    for (cond, _, no) in CASES {
        for state in [WaitState::Blocked, WaitState::Active] {
            let storage = SignalStorage::new(no);
            let s = storage.bind(&host);
            let start = Instant::now();
            let got = s.wait(cond, 10, 30 * MS, state, LoadOrder::Acquire);
            let took = start.elapsed();
            assert_eq!(got, Ok(WaitOutcome::TimedOut(no)), "{cond:?} {state:?}");
            assert!(
                took >= Duration::from_millis(30),
                "{cond:?} {state:?}: returned early after {took:?}"
            );
            // Generous upper bound: 2 shared cores, other builds running.
            assert!(
                took < Duration::from_millis(30 + 70),
                "{cond:?} {state:?}: took {took:?}"
            );
        }
    }
    // A zero timeout checks once and returns.
    let storage = SignalStorage::new(1);
    let start = Instant::now();
    assert_eq!(
        storage
            .bind(&host)
            .wait(Condition::Eq, 0, 0, WaitState::Blocked, LoadOrder::Relaxed),
        Ok(WaitOutcome::TimedOut(1))
    );
    assert!(start.elapsed() < Duration::from_millis(20));
}

#[test]
fn silent_store_reaches_polling_and_active_waiters() {
    let host = FutexHost::new();
    for (state, policy) in [
        (WaitState::Active, WaitPolicy::DEFAULT),
        (WaitState::Blocked, WaitPolicy::polling(MS)),
    ] {
        let storage = SignalStorage::new(0);
        let s = storage.bind(&host);
        let got = thread::scope(|sc| {
            let w = sc.spawn(|| {
                s.wait_with_policy(
                    Condition::Eq,
                    1,
                    5_000 * MS,
                    state,
                    LoadOrder::Acquire,
                    &policy,
                )
            });
            thread::sleep(Duration::from_millis(5));
            s.silent_store(1, StoreOrder::Release);
            w.join().unwrap()
        });
        assert_eq!(got, Ok(WaitOutcome::Satisfied(1)), "{state:?}");
    }
}

/// A clock that reports no frequency.
struct BrokenClock(FutexHost);
impl Blocker for BrokenClock {
    fn block(&self, w: &AtomicU32, e: u32, t: Option<u64>) {
        self.0.block(w, e, t)
    }
    fn block_any(&self, w: &[BlockOn<'_>], t: Option<u64>) {
        self.0.block_any(w, t)
    }
    fn wake_all(&self, w: &AtomicU32) {
        self.0.wake_all(w)
    }
}
impl Clock for BrokenClock {
    fn now_ticks(&self) -> u64 {
        0
    }
    fn ticks_per_second(&self) -> u64 {
        0
    }
}
impl EventNotifier for BrokenClock {
    fn notify_event(&self, _: u32) {}
}

#[test]
fn bad_wait_arguments_are_typed_errors() {
    let host = FutexHost::new();
    assert_eq!(
        wait_any(
            &[],
            TIMEOUT_INFINITE,
            WaitState::Blocked,
            LoadOrder::Acquire,
            &host
        ),
        Err(WaitError::NoSignals)
    );
    let broken = BrokenClock(FutexHost::new());
    let storage = SignalStorage::new(0);
    let s = storage.bind(&broken);
    assert_eq!(
        s.wait(Condition::Eq, 1, 10, WaitState::Blocked, LoadOrder::Acquire),
        Err(WaitError::ZeroClockFrequency)
    );
    // An infinite timeout needs no clock.
    assert_eq!(
        s.wait(
            Condition::Eq,
            0,
            TIMEOUT_INFINITE,
            WaitState::Blocked,
            LoadOrder::Acquire
        ),
        Ok(WaitOutcome::Satisfied(0))
    );
    assert_eq!(
        WaitError::ZeroClockFrequency.to_string(),
        "timed wait: the host clock reports 0 ticks per second"
    );
}

#[test]
fn wait_any_reports_the_signal_whose_own_condition_holds() {
    let host = FutexHost::new();
    let signals: Vec<SignalStorage> = (0..4).map(|_| SignalStorage::new(0)).collect();
    let entries: Vec<WaitAnyEntry<'_>> = CASES
        .iter()
        .zip(&signals)
        .map(|(&(condition, _, no), signal)| {
            signal.bind(&host).store(no, StoreOrder::Relaxed);
            WaitAnyEntry {
                signal,
                condition,
                compare_value: 10,
            }
        })
        .collect();
    for state in [WaitState::Blocked, WaitState::Active] {
        // None holds: times out.
        let start = Instant::now();
        assert_eq!(
            wait_any(&entries, 20 * MS, state, LoadOrder::Acquire, &host),
            Ok(WaitAnyOutcome::TimedOut)
        );
        let took = start.elapsed();
        assert!(
            took >= Duration::from_millis(20) && took < Duration::from_millis(90),
            "{took:?}"
        );
    }
    for (index, &(_, yes, no)) in CASES.iter().enumerate() {
        for policy in &POLICIES {
            let got = thread::scope(|sc| {
                let w = sc.spawn(|| {
                    wait_any_with_policy(
                        &entries,
                        5_000 * MS,
                        WaitState::Blocked,
                        LoadOrder::Acquire,
                        &host,
                        policy,
                    )
                });
                thread::sleep(Duration::from_millis(2));
                signals[index].bind(&host).store(yes, StoreOrder::Release);
                w.join().unwrap()
            });
            assert_eq!(
                got,
                Ok(WaitAnyOutcome::Satisfied { index, value: yes }),
                "{policy:?}"
            );
            signals[index].bind(&host).store(no, StoreOrder::Relaxed);
        }
    }
    assert!(signals.iter().all(|s| s.wake_state().waiters() == 0));
}

#[test]
fn wait_any_over_more_signals_than_one_futex_waitv_still_wakes() {
    let host = FutexHost::new();
    let n = MAX_BLOCK_ANY + 36;
    let signals: Vec<SignalStorage> = (0..n).map(|_| SignalStorage::new(0)).collect();
    let entries: Vec<_> = signals
        .iter()
        .map(|signal| WaitAnyEntry {
            signal,
            condition: Condition::Ne,
            compare_value: 0,
        })
        .collect();
    for target in [3, n - 1] {
        let got = thread::scope(|sc| {
            let w = sc.spawn(|| {
                wait_any_with_policy(
                    &entries,
                    5_000 * MS,
                    WaitState::Blocked,
                    LoadOrder::Acquire,
                    &host,
                    &WaitPolicy::BLOCK_AT_ONCE,
                )
            });
            thread::sleep(Duration::from_millis(3));
            signals[target].bind(&host).store(1, StoreOrder::Release);
            w.join().unwrap()
        });
        assert_eq!(
            got,
            Ok(WaitAnyOutcome::Satisfied {
                index: target,
                value: 1
            })
        );
        signals[target].bind(&host).store(0, StoreOrder::Relaxed);
    }
}

/// Many waiters and setters over a few signals, every wait blocking at
/// once; a lost wake-up shows as a wait that times out (10 s), so the test
/// is bounded and names the failure.
#[test]
fn stress_every_wait_finishes() {
    const WAITERS: usize = 6;
    const SETTERS: i64 = 3;
    const ROUNDS: i64 = 10_000;
    let host = Counting::default();
    let round = SignalStorage::new(0); // bumped by setters, waited on by waiters
    let acks = SignalStorage::new(0); // each waiter adds 1 per round
    let any_a = SignalStorage::new(0);
    let any_b = SignalStorage::new(0);
    let start = Instant::now();
    thread::scope(|sc| {
        for w in 0..WAITERS {
            let (host, round, acks, any_a, any_b) = (&host, &round, &acks, &any_a, &any_b);
            sc.spawn(move || {
                let policy = if w % 2 == 0 {
                    WaitPolicy::BLOCK_AT_ONCE
                } else {
                    WaitPolicy::DEFAULT
                };
                for r in 1..=ROUNDS {
                    let target = r * SETTERS;
                    let got = round.bind(host).wait_with_policy(
                        Condition::Gte,
                        target,
                        10_000 * MS,
                        WaitState::Blocked,
                        LoadOrder::Acquire,
                        &policy,
                    );
                    assert!(
                        matches!(got, Ok(WaitOutcome::Satisfied(v)) if v >= target),
                        "waiter {w} round {r}: {got:?}"
                    );
                    let entries = [
                        WaitAnyEntry {
                            signal: any_a,
                            condition: Condition::Gte,
                            compare_value: r,
                        },
                        WaitAnyEntry {
                            signal: any_b,
                            condition: Condition::Gte,
                            compare_value: r,
                        },
                    ];
                    let got = wait_any_with_policy(
                        &entries,
                        10_000 * MS,
                        WaitState::Blocked,
                        LoadOrder::Acquire,
                        host,
                        &policy,
                    );
                    assert!(
                        matches!(got, Ok(WaitAnyOutcome::Satisfied { .. })),
                        "waiter {w} any round {r}: {got:?}"
                    );
                    acks.bind(host).add(1, RmwOrder::Release);
                }
            });
        }
        for k in 0..SETTERS {
            let (host, round, acks, any_a, any_b) = (&host, &round, &acks, &any_a, &any_b);
            sc.spawn(move || {
                for r in 1..=ROUNDS {
                    round.bind(host).add(1, RmwOrder::AcqRel);
                    // One setter per round feeds the wait-any signals.
                    if r % SETTERS == k {
                        let s = if r % 2 == 0 { any_a } else { any_b };
                        s.bind(host).store(r, StoreOrder::Release);
                    }
                    let all = r * WAITERS as i64;
                    let got = acks.bind(host).wait_with_policy(
                        Condition::Gte,
                        all,
                        10_000 * MS,
                        WaitState::Blocked,
                        LoadOrder::Acquire,
                        &WaitPolicy::BLOCK_AT_ONCE,
                    );
                    assert!(
                        matches!(got, Ok(WaitOutcome::Satisfied(_))),
                        "setter {k} round {r}: {got:?}"
                    );
                }
            });
        }
    });
    assert_eq!(
        acks.bind(&host).load(LoadOrder::Acquire),
        ROUNDS * WAITERS as i64
    );
    for s in [&round, &acks, &any_a, &any_b] {
        assert_eq!(s.wake_state().waiters(), 0);
    }
    let (blocks, wakes) = (
        host.blocks.load(Ordering::Relaxed),
        host.wakes.load(Ordering::Relaxed),
    );
    eprintln!(
        "stress: {} waits in {:?}, {blocks} futex sleeps, {wakes} wakes",
        ROUNDS as usize * (WAITERS * 2 + SETTERS as usize),
        start.elapsed()
    );
    // The blocking path, where a wake can be lost, was really exercised.
    assert!(
        blocks > 1_000,
        "only {blocks} sleeps: the stress did not block"
    );
}

/// `FutexHost` with counts of sleeps and wakes.
#[derive(Default)]
struct Counting {
    inner: FutexHost,
    blocks: AtomicU64,
    wakes: AtomicU64,
}
impl Blocker for Counting {
    fn block(&self, w: &AtomicU32, e: u32, t: Option<u64>) {
        self.blocks.fetch_add(1, Ordering::Relaxed);
        self.inner.block(w, e, t)
    }
    fn block_any(&self, w: &[BlockOn<'_>], t: Option<u64>) {
        self.blocks.fetch_add(1, Ordering::Relaxed);
        self.inner.block_any(w, t)
    }
    fn wake_all(&self, w: &AtomicU32) {
        self.wakes.fetch_add(1, Ordering::Relaxed);
        self.inner.wake_all(w)
    }
    fn yield_now(&self) {
        self.inner.yield_now()
    }
}
impl Clock for Counting {
    fn now_ticks(&self) -> u64 {
        self.inner.now_ticks()
    }
    fn ticks_per_second(&self) -> u64 {
        self.inner.ticks_per_second()
    }
}
impl EventNotifier for Counting {
    fn notify_event(&self, _: u32) {}
}

#[test]
fn a_blocked_waiter_uses_no_cpu() {
    const WAIT: Duration = Duration::from_millis(400);
    let host = FutexHost::new();
    let storage = SignalStorage::new(0);
    let started = std::sync::Barrier::new(2);
    let (cpu_ns, wall) = thread::scope(|sc| {
        let waiter = sc.spawn(|| {
            let cpu0 = thread_cpu_time_ns();
            let t0 = Instant::now();
            started.wait();
            let got = storage.bind(&host).wait(
                Condition::Eq,
                1,
                TIMEOUT_INFINITE,
                WaitState::Blocked,
                LoadOrder::Acquire,
            );
            assert_eq!(got, Ok(WaitOutcome::Satisfied(1)));
            (thread_cpu_time_ns() - cpu0, t0.elapsed())
        });
        // The clock starts before the waiter is released, so the wait
        // lasts at least WAIT.
        started.wait();
        thread::sleep(WAIT);
        storage.bind(&host).store(1, StoreOrder::Release);
        waiter.join().unwrap()
    });
    assert!(wall >= WAIT, "woke before the store: {wall:?}");
    // The default policy spins 128 checks and yields twice before
    // sleeping: well under a millisecond of CPU; 5 ms leaves room for
    // scheduler noise, still 1% of the wait.
    assert!(
        cpu_ns < 5_000_000,
        "blocked waiter used {cpu_ns} ns of CPU over {wall:?}"
    );
    eprintln!("blocked waiter: {cpu_ns} ns CPU over {wall:?}");
}

#[test]
fn process_shared_futexes_block_and_wake_too() {
    // Shared (non-private) futexes are keyed by the physical page, for
    // signals in memory mapped into several processes; same protocol.
    let host = FutexHost::process_shared(());
    let a = SignalStorage::new(0);
    let b = SignalStorage::new(0);
    let never = SignalStorage::new(0);
    let any_of = [
        WaitAnyEntry {
            signal: &never,
            condition: Condition::Eq,
            compare_value: 1,
        },
        WaitAnyEntry {
            signal: &b,
            condition: Condition::Eq,
            compare_value: 1,
        },
    ];
    let entries = [
        WaitAnyEntry {
            signal: &a,
            condition: Condition::Eq,
            compare_value: 1,
        },
        WaitAnyEntry {
            signal: &b,
            condition: Condition::Eq,
            compare_value: 1,
        },
    ];
    let (one, any) = thread::scope(|sc| {
        let one = sc.spawn(|| {
            a.bind(&host).wait_with_policy(
                Condition::Eq,
                1,
                5_000 * MS,
                WaitState::Blocked,
                LoadOrder::Acquire,
                &WaitPolicy::BLOCK_AT_ONCE,
            )
        });
        let any = sc.spawn(|| {
            wait_any_with_policy(
                &any_of,
                5_000 * MS,
                WaitState::Blocked,
                LoadOrder::Acquire,
                &host,
                &WaitPolicy::BLOCK_AT_ONCE,
            )
        });
        thread::sleep(Duration::from_millis(3));
        a.bind(&host).store(1, StoreOrder::Release);
        b.bind(&host).store(1, StoreOrder::Release);
        (one.join().unwrap(), any.join().unwrap())
    });
    assert_eq!(one, Ok(WaitOutcome::Satisfied(1)));
    assert_eq!(any, Ok(WaitAnyOutcome::Satisfied { index: 1, value: 1 }));
    let both = wait_any(&entries, 0, WaitState::Blocked, LoadOrder::Acquire, &host);
    assert_eq!(
        both,
        Ok(WaitAnyOutcome::Satisfied { index: 0, value: 1 }),
        "lowest index wins"
    );
}
