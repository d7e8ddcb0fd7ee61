//! What the signal layer asks of its host, observed through a fake host
//! (a manual clock and a recording blocker): timeouts converted from HSA
//! ticks at the host's frequency, sleeps bounded by the policy's slice,
//! wakes issued only when a waiter is registered, and the condition
//! semantics of `hsa_signal_condition_t` at the extremes of `i64`.
#![cfg(not(loom))]

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use signal_core::*;

/// A clock that only moves when a waiter "sleeps", and records every call.
struct FakeHost {
    ticks: AtomicU64,
    ticks_per_second: u64,
    blocks: Mutex<Vec<Option<u64>>>,
    wakes: AtomicU64,
}

impl FakeHost {
    fn new(ticks_per_second: u64) -> Self {
        Self {
            ticks: AtomicU64::new(1_000),
            ticks_per_second,
            blocks: Mutex::new(Vec::new()),
            wakes: AtomicU64::new(0),
        }
    }
    fn blocks(&self) -> Vec<Option<u64>> {
        self.blocks.lock().unwrap().clone()
    }
}

impl Blocker for FakeHost {
    fn block(&self, _word: &AtomicU32, _expected: u32, timeout_ns: Option<u64>) {
        self.blocks.lock().unwrap().push(timeout_ns);
        // Sleep the whole timeout: advance the clock by it, in ticks.
        let ns = timeout_ns.expect("the fake host only takes timed sleeps");
        let ticks = (u128::from(ns) * u128::from(self.ticks_per_second)) / 1_000_000_000;
        self.ticks.fetch_add(ticks as u64, Ordering::SeqCst);
    }
    fn block_any(&self, words: &[BlockOn<'_>], timeout_ns: Option<u64>) {
        self.block(words[0].word, words[0].expected, timeout_ns)
    }
    fn wake_all(&self, _word: &AtomicU32) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
    }
}

impl Clock for FakeHost {
    fn now_ticks(&self) -> u64 {
        self.ticks.load(Ordering::SeqCst)
    }
    fn ticks_per_second(&self) -> u64 {
        self.ticks_per_second
    }
}

impl EventNotifier for FakeHost {
    fn notify_event(&self, _: u32) {}
}

#[test]
fn timeouts_are_converted_from_ticks_at_the_host_frequency() {
    // 100 MHz: one tick is 10 ns; 1000 ticks are 10 us.
    let host = FakeHost::new(100_000_000);
    let storage = SignalStorage::new(0);
    let got = storage.bind(&host).wait_with_policy(
        Condition::Eq,
        1,
        1_000,
        WaitState::Blocked,
        LoadOrder::Acquire,
        &WaitPolicy::BLOCK_AT_ONCE,
    );
    assert_eq!(got, Ok(WaitOutcome::TimedOut(0)));
    assert_eq!(host.blocks(), vec![Some(10_000)]);
    assert_eq!(
        storage.wake_state().waiters(),
        0,
        "unregistered after the timeout"
    );

    // 3 Hz: one tick is 333333333.3 ns, rounded up so a sleep never ends
    // before the deadline.
    let host = FakeHost::new(3);
    let got = storage.bind(&host).wait_with_policy(
        Condition::Eq,
        1,
        1,
        WaitState::Blocked,
        LoadOrder::Acquire,
        &WaitPolicy::BLOCK_AT_ONCE,
    );
    assert_eq!(got, Ok(WaitOutcome::TimedOut(0)));
    assert_eq!(host.blocks(), vec![Some(333_333_334)]);
}

#[test]
fn sleeps_are_bounded_by_the_policy_slice() {
    let host = FakeHost::new(1_000_000_000);
    let storage = SignalStorage::new(0);
    let policy = WaitPolicy {
        block_slice_ns: Some(3_000),
        ..WaitPolicy::BLOCK_AT_ONCE
    };
    let got = storage.bind(&host).wait_with_policy(
        Condition::Ne,
        0,
        10_000,
        WaitState::Blocked,
        LoadOrder::Relaxed,
        &policy,
    );
    assert_eq!(got, Ok(WaitOutcome::TimedOut(0)));
    assert_eq!(
        host.blocks(),
        vec![Some(3_000), Some(3_000), Some(3_000), Some(1_000)]
    );
}

#[test]
fn an_active_wait_never_blocks() {
    let host = FakeHost::new(1_000_000_000);
    let storage = SignalStorage::new(0);
    // The fake clock only moves when told to: a helper thread advances it
    // until the wait is over.
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|sc| {
        sc.spawn(|| {
            while !done.load(Ordering::SeqCst) {
                host.ticks.fetch_add(100, Ordering::SeqCst);
                std::thread::yield_now();
            }
        });
        let got = storage.bind(&host).wait(
            Condition::Eq,
            1,
            50_000,
            WaitState::Active,
            LoadOrder::Acquire,
        );
        done.store(true, Ordering::SeqCst);
        assert_eq!(got, Ok(WaitOutcome::TimedOut(0)));
    });
    assert!(host.blocks().is_empty());
}

#[test]
fn setters_wake_only_when_someone_is_registered() {
    let host = FakeHost::new(1_000_000_000);
    let storage = SignalStorage::new(0);
    let s = storage.bind(&host);
    s.store(1, StoreOrder::Release);
    s.add(1, RmwOrder::AcqRel);
    assert_eq!(
        host.wakes.load(Ordering::SeqCst),
        0,
        "no waiter, no wake system call"
    );
    let seq0 = storage.wake_state().sequence_word().load(Ordering::SeqCst);
    {
        let _waiter = storage.wake_state().register();
        s.store(2, StoreOrder::Relaxed);
        assert_eq!(s.cas(5, 6, RmwOrder::AcqRel), 2, "failed CAS: no change");
        s.silent_store(3, StoreOrder::Relaxed);
        s.xor(1, RmwOrder::Relaxed);
    }
    // One wake for the store, one for the xor; none for the failed CAS or
    // the silent store; the sequence moved once per wake.
    assert_eq!(host.wakes.load(Ordering::SeqCst), 2);
    assert_eq!(
        storage.wake_state().sequence_word().load(Ordering::SeqCst),
        seq0.wrapping_add(2)
    );
    s.store(0, StoreOrder::Release);
    assert_eq!(host.wakes.load(Ordering::SeqCst), 2, "unregistered again");
}

#[test]
fn conditions_follow_signed_64_bit_comparison() {
    let values = [i64::MIN, -1, 0, 1, i64::MAX];
    for &v in &values {
        for &c in &values {
            assert_eq!(Condition::Eq.holds(v, c), v == c);
            assert_eq!(Condition::Ne.holds(v, c), v != c);
            assert_eq!(Condition::Lt.holds(v, c), v < c);
            assert_eq!(Condition::Gte.holds(v, c), v >= c);
        }
    }
    // Exactly one of LT / GTE, and of EQ / NE, holds for any pair.
    for &v in &values {
        for &c in &values {
            assert!(Condition::Lt.holds(v, c) ^ Condition::Gte.holds(v, c));
            assert!(Condition::Eq.holds(v, c) ^ Condition::Ne.holds(v, c));
        }
    }
}

#[test]
fn an_infinite_timeout_sleeps_without_a_deadline() {
    struct Once(FakeHost, AtomicU64);
    impl Blocker for Once {
        fn block(&self, _: &AtomicU32, _: u32, timeout_ns: Option<u64>) {
            assert_eq!(timeout_ns, None, "no deadline for TIMEOUT_INFINITE");
            // Play the setter while "asleep".
            self.1.fetch_add(1, Ordering::SeqCst);
        }
        fn block_any(&self, _: &[BlockOn<'_>], _: Option<u64>) {}
        fn wake_all(&self, _: &AtomicU32) {}
    }
    impl Clock for Once {
        fn now_ticks(&self) -> u64 {
            self.0.now_ticks()
        }
        fn ticks_per_second(&self) -> u64 {
            0 // never consulted for an infinite timeout
        }
    }
    impl EventNotifier for Once {
        fn notify_event(&self, _: u32) {}
    }
    let host = Once(FakeHost::new(1), AtomicU64::new(0));
    let storage = SignalStorage::new(0);
    let s = storage.bind(&host);
    std::thread::scope(|sc| {
        let w = sc.spawn(|| {
            s.wait_with_policy(
                Condition::Eq,
                1,
                TIMEOUT_INFINITE,
                WaitState::Blocked,
                LoadOrder::Acquire,
                &WaitPolicy::BLOCK_AT_ONCE,
            )
        });
        while host.1.load(Ordering::SeqCst) == 0 {
            std::thread::yield_now();
        }
        s.store(1, StoreOrder::Release);
        assert_eq!(w.join().unwrap(), Ok(WaitOutcome::Satisfied(1)));
    });
}

#[test]
fn clock_translation_never_panics_on_extreme_samples() {
    // Debug builds trap on overflow: every combination of edge values must
    // come back as a value or a typed error.
    let edges = [
        0,
        1,
        2,
        1 << 32,
        i64::MAX as u64 - 1,
        i64::MAX as u64,
        1 << 63,
        u64::MAX - 1,
        u64::MAX,
    ];
    let mut translated = 0;
    for &g0 in &edges {
        for &s0 in &edges {
            for &g1 in &edges {
                for &s1 in &edges {
                    let Ok(sync) = ClockSync::new(
                        ClockCounters {
                            gpu: g0,
                            system: s0,
                        },
                        ClockCounters {
                            gpu: g1,
                            system: s1,
                        },
                    ) else {
                        assert!(g1 <= g0 || s1 < s0);
                        continue;
                    };
                    for &tick in &edges {
                        if let Ok(t) = sync.gpu_to_system(tick) {
                            translated += 1;
                            // Exact at the sample points.
                            if tick == g1 {
                                assert_eq!(t, s1);
                            }
                            if tick == g0 {
                                assert_eq!(t, s0);
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(translated > 0);
}
