//! Model checks of the signal wake protocol (`signal_core::protocol`) under
//! every interleaving and weak-memory outcome loom explores:
//! `RUSTFLAGS="--cfg loom" cargo test --release -p signal-core --test loom`.
//!
//! The threads run exactly the protocol calls `Signal` and `wait_any` make
//! (value change then `WakeState::notify`; `register`/`AnyRegistration`,
//! `snapshot`, test the value, block), with the value written `Relaxed`,
//! the weakest order a user may choose. A lost wake-up leaves a waiter
//! blocked forever, which loom reports as a deadlock.
#![cfg(loom)]

use loom::sync::atomic::{AtomicI64, AtomicU32, Ordering};
use loom::sync::{Arc, Condvar, Mutex};
use loom::thread;
use signal_core::{AnyRegistration, BlockOn, Blocker, MAX_BLOCK_ANY, WakeState};

/// Futex semantics from a mutex and a condition variable: the "word still
/// holds the expected value" check and going to sleep happen under the
/// lock that `wake_all` takes, as the kernel's hash-bucket lock does.
#[derive(Default)]
struct ModelFutex {
    lock: Mutex<()>,
    cv: Condvar,
}

impl Blocker for ModelFutex {
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
}

struct ModelSignal {
    value: AtomicI64,
    wake: WakeState,
}

impl ModelSignal {
    fn new(v: i64) -> Self {
        Self {
            value: AtomicI64::new(v),
            wake: WakeState::new(),
        }
    }

    /// What every notifying `Signal` operation does.
    fn add(&self, host: &ModelFutex, d: i64) {
        self.value.fetch_add(d, Ordering::Relaxed);
        self.wake.notify(host);
    }

    fn store(&self, host: &ModelFutex, v: i64) {
        self.value.store(v, Ordering::Relaxed);
        self.wake.notify(host);
    }

    /// What `Signal::wait_with_policy` does once it decides to block.
    fn wait_until(&self, host: &ModelFutex, want: i64) {
        let registration = self.wake.register();
        loop {
            let seen = registration.snapshot();
            if self.value.load(Ordering::Relaxed) == want {
                return;
            }
            host.block(registration.word(), seen, None);
        }
    }
}

/// Three-thread models are bounded to 4 preemptions (about 15 s;
/// the unbounded space does not finish in minutes); two-thread models are
/// explored exhaustively.
fn model_bounded<F: Fn() + Sync + Send + 'static>(f: F) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(4);
    builder.check(f);
}

#[test]
fn one_setter_one_waiter_never_loses_the_wake() {
    loom::model(|| {
        let host = Arc::new(ModelFutex::default());
        let sig = Arc::new(ModelSignal::new(0));
        let (h, s) = (host.clone(), sig.clone());
        let setter = thread::spawn(move || s.store(&h, 1));
        sig.wait_until(&host, 1);
        setter.join().unwrap();
        assert_eq!(sig.wake.waiters(), 0);
    });
}

#[test]
fn two_setters_one_waiter_sees_both_changes() {
    model_bounded(|| {
        let host = Arc::new(ModelFutex::default());
        let sig = Arc::new(ModelSignal::new(0));
        let setters: Vec<_> = (0..2)
            .map(|_| {
                let (h, s) = (host.clone(), sig.clone());
                thread::spawn(move || s.add(&h, 1))
            })
            .collect();
        sig.wait_until(&host, 2);
        for t in setters {
            t.join().unwrap();
        }
    });
}

#[test]
fn one_setter_two_waiters_both_wake() {
    model_bounded(|| {
        let host = Arc::new(ModelFutex::default());
        let sig = Arc::new(ModelSignal::new(0));
        let (h, s) = (host.clone(), sig.clone());
        let other = thread::spawn(move || s.wait_until(&h, 1));
        let (h, s) = (host.clone(), sig.clone());
        let setter = thread::spawn(move || s.store(&h, 1));
        sig.wait_until(&host, 1);
        other.join().unwrap();
        setter.join().unwrap();
    });
}

#[test]
fn wait_any_never_loses_the_wake_of_either_signal() {
    loom::model(|| {
        let host = Arc::new(ModelFutex::default());
        let sigs = Arc::new([ModelSignal::new(0), ModelSignal::new(0)]);
        let (h, s) = (host.clone(), sigs.clone());
        let setter = thread::spawn(move || s[1].store(&h, 1));
        {
            // What `wait_any_with_policy` does once it decides to block.
            let registration = AnyRegistration::new(&sigs[..], |s| &s.wake);
            let mut words = heapless::Vec::<BlockOn<'_>, MAX_BLOCK_ANY>::new();
            loop {
                registration.snapshot(&mut words);
                if sigs.iter().any(|s| s.value.load(Ordering::Relaxed) == 1) {
                    break;
                }
                host.block_any(&words, None);
            }
        }
        setter.join().unwrap();
        assert_eq!(sigs[0].wake.waiters() + sigs[1].wake.waiters(), 0);
    });
}

/// The control: the registration ROCr users get bitten by, without the two
/// `SeqCst` fences (setter: store value, read "is anyone waiting?";
/// waiter: announce itself, read value). Loom must find the interleaving
/// in which the setter skips the wake and the waiter sleeps forever, which
/// shows the model above can see a lost wake-up when there is one.
#[test]
#[should_panic(expected = "deadlock")]
fn control_without_fences_loses_the_wake() {
    loom::model(|| {
        let host = Arc::new(ModelFutex::default());
        let value = Arc::new(AtomicI64::new(0));
        let waiting = Arc::new(AtomicU32::new(0));
        let seq = Arc::new(AtomicU32::new(0));
        let (h, v, w, q) = (host.clone(), value.clone(), waiting.clone(), seq.clone());
        let setter = thread::spawn(move || {
            v.store(1, Ordering::Release);
            if w.load(Ordering::Acquire) != 0 {
                q.fetch_add(1, Ordering::Release);
                h.wake_all(&q);
            }
        });
        waiting.fetch_add(1, Ordering::AcqRel);
        loop {
            let s = seq.load(Ordering::Acquire);
            if value.load(Ordering::Acquire) == 1 {
                break;
            }
            host.block(&seq, s, None);
        }
        setter.join().unwrap();
    });
}
