//! Model checks of signals under every interleaving and weak-memory outcome
//! loom explores:
//! `RUSTFLAGS="--cfg loom" cargo test --release -p signal-core --test loom`.
//!
//! The threads run the shipped code: `Signal::store` / `add` (value change,
//! then `WakeState::notify`), `Signal::wait_with_policy` and
//! `wait_any_with_policy` (fast path, spin, back-off, register, snapshot,
//! test, block), compiled over loom's atomics (`signal_core`'s `sync`
//! module), with values written and read `Relaxed`, the weakest order a
//! user may choose. The host is a loom-capable `SignalHost`: a futex made
//! of a mutex and a condition variable. A lost wake-up leaves a waiter
//! blocked forever, which loom reports as a deadlock; the controls apply a
//! `LoomMutation` to the same code, leaving one fence out, and must
//! deadlock, which shows the model can see the bug each fence prevents.
#![cfg(loom)]

use loom::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use loom::sync::{Arc, Condvar, Mutex};
use loom::thread;
use signal_core::*;

/// Futex semantics from a mutex and a condition variable: the "word still
/// holds the expected value" check and going to sleep happen under the
/// lock that `wake_all` takes, as the kernel's hash-bucket lock does.
/// Events raised by interrupt signals are counted.
#[derive(Default)]
struct ModelHost {
    lock: Mutex<()>,
    cv: Condvar,
    events: AtomicU32,
}

impl Blocker for ModelHost {
    fn block(&self, word: &AtomicU32, expected: u32, _timeout_ns: Option<u64>) {
        let guard = self.lock.lock().unwrap();
        if word.load(Ordering::SeqCst) == expected {
            drop(self.cv.wait(guard).unwrap());
        }
    }

    fn block_any(&self, words: &[BlockOn<'_>], _timeout_ns: Option<u64>) {
        let guard = self.lock.lock().unwrap();
        if words
            .iter()
            .all(|w| w.word.load(Ordering::SeqCst) == w.expected)
        {
            drop(self.cv.wait(guard).unwrap());
        }
    }

    fn wake_all(&self, _word: &AtomicU32) {
        let _guard = self.lock.lock().unwrap();
        self.cv.notify_all();
    }

    fn yield_now(&self) {
        thread::yield_now();
    }
}

/// Timeouts are infinite in these models, so the clock is never read for
/// a deadline; it answers anyway.
impl Clock for ModelHost {
    fn now_ticks(&self) -> u64 {
        0
    }
    fn ticks_per_second(&self) -> u64 {
        1_000_000_000
    }
}

impl EventNotifier for ModelHost {
    fn notify_event(&self, _event_id: u32) {
        self.events.fetch_add(1, Ordering::Relaxed);
    }
}

/// What a waiter does once the value did not satisfy it at once: the
/// blocking path straight away.
const BLOCK: WaitPolicy = WaitPolicy::BLOCK_AT_ONCE;

/// `Signal::wait_with_policy`, value `Relaxed`, no timeout; must be
/// satisfied with `want`.
fn wait_eq(storage: &SignalStorage, host: &ModelHost, want: i64, policy: &WaitPolicy) {
    let outcome = storage.bind(host).wait_with_policy(
        Condition::Eq,
        want,
        TIMEOUT_INFINITE,
        WaitState::Blocked,
        LoadOrder::Relaxed,
        policy,
    );
    assert_eq!(outcome, Ok(WaitOutcome::Satisfied(want)));
}

fn store(storage: &SignalStorage, host: &ModelHost, value: i64) {
    storage.bind(host).store(value, StoreOrder::Relaxed);
}

/// Three-thread models are bounded to 4 preemptions (the unbounded space
/// does not finish in minutes); two-thread models are explored
/// exhaustively.
fn model_bounded<F: Fn() + Sync + Send + 'static>(f: F) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(4);
    builder.check(f);
}

/// One setter, one blocking waiter, over `signal`.
fn one_setter_one_waiter(signal: SignalStorage) {
    let host = Arc::new(ModelHost::default());
    let sig = Arc::new(signal);
    let (h, s) = (host.clone(), sig.clone());
    let setter = thread::spawn(move || store(&s, &h, 1));
    wait_eq(&sig, &host, 1, &BLOCK);
    setter.join().unwrap();
    assert_eq!(sig.wake_state().waiters(), 0);
}

/// A wait-any over two signals, the second of which is set.
fn wait_any_of_two(signals: [SignalStorage; 2]) {
    let host = Arc::new(ModelHost::default());
    let sigs = Arc::new(signals);
    let (h, s) = (host.clone(), sigs.clone());
    let setter = thread::spawn(move || store(&s[1], &h, 1));
    let entries = [0, 1].map(|i| WaitAnyEntry {
        signal: &sigs[i],
        condition: Condition::Eq,
        compare_value: 1,
    });
    let outcome = wait_any_with_policy(
        &entries,
        TIMEOUT_INFINITE,
        WaitState::Blocked,
        LoadOrder::Relaxed,
        &*host,
        &BLOCK,
    );
    assert_eq!(
        outcome,
        Ok(WaitAnyOutcome::Satisfied { index: 1, value: 1 })
    );
    setter.join().unwrap();
    assert_eq!(
        sigs[0].wake_state().waiters() + sigs[1].wake_state().waiters(),
        0
    );
}

#[test]
fn one_setter_one_waiter_never_loses_the_wake() {
    loom::model(|| one_setter_one_waiter(SignalStorage::new(0)));
}

#[test]
fn every_phase_of_the_wait_spin_back_off_block() {
    // One check of each phase before blocking, as the default policy does
    // with 128 and 2.
    let policy = WaitPolicy {
        spin_checks: 1,
        yield_checks: 1,
        block_slice_ns: None,
    };
    loom::model(move || {
        let host = Arc::new(ModelHost::default());
        let sig = Arc::new(SignalStorage::new(0));
        let (h, s) = (host.clone(), sig.clone());
        let setter = thread::spawn(move || store(&s, &h, 1));
        wait_eq(&sig, &host, 1, &policy);
        setter.join().unwrap();
    });
}

#[test]
fn two_setters_one_waiter_sees_both_changes() {
    model_bounded(|| {
        let host = Arc::new(ModelHost::default());
        let sig = Arc::new(SignalStorage::new(0));
        let setters: Vec<_> = (0..2)
            .map(|_| {
                let (h, s) = (host.clone(), sig.clone());
                thread::spawn(move || {
                    s.bind(&*h).add(1, RmwOrder::Relaxed);
                })
            })
            .collect();
        wait_eq(&sig, &host, 2, &BLOCK);
        for t in setters {
            t.join().unwrap();
        }
    });
}

#[test]
fn one_setter_two_waiters_both_wake() {
    model_bounded(|| {
        let host = Arc::new(ModelHost::default());
        let sig = Arc::new(SignalStorage::new(0));
        let (h, s) = (host.clone(), sig.clone());
        let other = thread::spawn(move || wait_eq(&s, &h, 1, &BLOCK));
        let (h, s) = (host.clone(), sig.clone());
        let setter = thread::spawn(move || store(&s, &h, 1));
        wait_eq(&sig, &host, 1, &BLOCK);
        other.join().unwrap();
        setter.join().unwrap();
    });
}

#[test]
fn wait_any_never_loses_the_wake_of_either_signal() {
    loom::model(|| wait_any_of_two([SignalStorage::new(0), SignalStorage::new(0)]));
}

#[test]
fn an_interrupt_signal_writes_its_mailbox_and_wakes_the_waiter() {
    loom::model(|| {
        let host = Arc::new(ModelHost::default());
        let mailbox = Arc::new(AtomicU64::new(0));
        let slot = core::ptr::NonNull::from(&*mailbox);
        // SAFETY: the mailbox is an aligned 64-bit atomic kept alive by the
        // `Arc` until after the signal (dropped first, below).
        let sig = Arc::new(unsafe { SignalStorage::new_interrupt(0, slot, 7) });
        let (h, s) = (host.clone(), sig.clone());
        let setter = thread::spawn(move || store(&s, &h, 1));
        wait_eq(&sig, &host, 1, &BLOCK);
        setter.join().unwrap();
        assert_eq!(mailbox.load(Ordering::Acquire), 7);
        assert_eq!(host.events.load(Ordering::Relaxed), 1);
        drop(sig);
    });
}

/// The controls: the same code with one fence of the protocol left out.
/// Loom must find the interleaving in which the setter's `waiters` read
/// misses the registration and the waiter's value read misses the store
/// (store buffering), so the setter skips the wake and the waiter sleeps
/// forever.
#[test]
#[should_panic(expected = "deadlock")]
fn control_without_the_setter_fence_loses_the_wake() {
    loom::model(|| {
        one_setter_one_waiter(SignalStorage::new(0).with_mutation(LoomMutation::NoSetterFence))
    });
}

#[test]
#[should_panic(expected = "deadlock")]
fn control_without_the_waiter_fence_loses_the_wake() {
    loom::model(|| {
        one_setter_one_waiter(SignalStorage::new(0).with_mutation(LoomMutation::NoWaiterFence))
    });
}

#[test]
#[should_panic(expected = "deadlock")]
fn control_wait_any_without_the_waiter_fence_loses_the_wake() {
    loom::model(|| {
        wait_any_of_two([
            SignalStorage::new(0).with_mutation(LoomMutation::NoWaiterFence),
            SignalStorage::new(0).with_mutation(LoomMutation::NoWaiterFence),
        ])
    });
}
