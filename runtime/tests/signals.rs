//! Signals through the runtime's public API on the software GPU: every
//! operation in every memory order, blocked waits woken by host stores and
//! by GPU completions (through the KFD event thread), async handlers,
//! wait-any, signal groups, handle lookup, and many threads at once.
//!
//! The tests share one process-wide runtime, so they run one at a time
//! (`serial`), which also keeps the event counters they read their own.

use std::sync::mpsc;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use runtime::driver;
use runtime::{ArgValue, Geometry, QueueKind, Runtime, Signal, SignalKind, Status};
use signal_core::{Condition, LoadOrder, RmwOrder, StoreOrder, TIMEOUT_INFINITE, WaitState};

const DEMO: &[u8] = include_bytes!("../kernels/demo.co");

/// A bound for waits that must end; never reached when the code works.
const GENEROUS: Duration = Duration::from_secs(60);

fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn rt() -> Runtime {
    Runtime::init_with(driver::open_sim).expect("runtime on the sim")
}

/// Waits (yielding) until `n` threads sleep on `s`: they have left their
/// spin and back-off phases and are registered on its wake state.
fn until_waiters(s: &Signal, n: u32) {
    while s.waiters() < n {
        std::thread::yield_now();
    }
}

const KINDS: [SignalKind; 2] = [SignalKind::Interrupt, SignalKind::Default];

#[test]
fn every_operation_in_every_order() {
    let _g = serial();
    let rt = rt();
    for kind in KINDS {
        let s = rt.create_signal_of_kind(5, kind).unwrap();
        assert_eq!(s.kind(), kind);
        assert_eq!(s.event_id().is_some(), kind == SignalKind::Interrupt);
        for o in LoadOrder::ALL {
            assert_eq!(s.load(o), 5);
        }
        for o in StoreOrder::ALL {
            s.store(7, o);
            assert_eq!(s.load(LoadOrder::Acquire), 7);
            s.silent_store(8, o);
            assert_eq!(s.load(LoadOrder::Relaxed), 8);
        }
        for o in RmwOrder::ALL {
            s.store(0b1100, StoreOrder::Relaxed);
            assert_eq!(s.exchange(0b1010, o), 0b1100, "{kind:?} exchange {o:?}");
            assert_eq!(s.cas(0b1010, 3, o), 0b1010, "{kind:?} cas hit {o:?}");
            assert_eq!(s.cas(99, 4, o), 3, "{kind:?} cas miss {o:?}");
            assert_eq!(s.load(LoadOrder::Acquire), 3);
            assert_eq!(s.add(10, o), 3);
            assert_eq!(s.subtract(4, o), 13);
            assert_eq!(s.load(LoadOrder::Acquire), 9);
            assert_eq!(s.and(0b1100, o), 0b1001);
            assert_eq!(s.or(0b0011, o), 0b1000);
            assert_eq!(s.xor(0b0110, o), 0b1011);
            assert_eq!(s.load(LoadOrder::Acquire), 0b1101);
            // Wrapping, as HSA's signed 64-bit arithmetic.
            s.store(i64::MAX, StoreOrder::Relaxed);
            assert_eq!(s.add(1, o), i64::MAX);
            assert_eq!(s.load(LoadOrder::Relaxed), i64::MIN);
        }
    }
}

#[test]
fn waits_end_on_conditions_and_timeouts() {
    let _g = serial();
    let rt = rt();
    for kind in KINDS {
        let s = rt.create_signal_of_kind(3, kind).unwrap();
        for (c, v, holds) in [
            (Condition::Eq, 3, true),
            (Condition::Ne, 4, true),
            (Condition::Lt, 4, true),
            (Condition::Gte, 3, true),
            (Condition::Eq, 4, false),
            (Condition::Gte, 4, false),
        ] {
            for ws in [WaitState::Blocked, WaitState::Active] {
                for o in LoadOrder::ALL {
                    // 1000 ticks (1 µs): a wait whose condition does not
                    // hold ends by its timeout, with the value seen.
                    let out = s.wait_outcome(c, v, 1000, ws, o).unwrap();
                    assert_eq!(out.value(), 3);
                    assert_eq!(
                        matches!(out, signal_core::WaitOutcome::Satisfied(_)),
                        holds,
                        "{kind:?} {c:?} {v} {ws:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn host_stores_wake_blocked_waiters() {
    let _g = serial();
    let rt = rt();
    for kind in KINDS {
        let s = rt.create_signal_of_kind(0, kind).unwrap();
        let w = {
            let s = s.clone();
            std::thread::spawn(move || {
                s.wait(
                    Condition::Eq,
                    1,
                    TIMEOUT_INFINITE,
                    WaitState::Blocked,
                    LoadOrder::Acquire,
                )
                .unwrap()
            })
        };
        // The waiter sleeps (an interrupt signal's wait has no sleep
        // slice: only a wake ends it).
        until_waiters(&s, 1);
        s.store(1, StoreOrder::Release);
        assert_eq!(w.join().unwrap(), 1);
        assert_eq!(s.waiters(), 0);
    }
}

#[test]
fn many_threads_wait_and_store_at_once() {
    let _g = serial();
    let rt = rt();
    const ADDERS: i64 = 8;
    const ADDS: i64 = 2000;
    let s = rt.create_signal(0).unwrap();
    let done = rt.create_signal(0).unwrap();
    let waiters: Vec<_> = (0..4)
        .map(|i| {
            let (s, done) = (s.clone(), done.clone());
            std::thread::spawn(move || {
                // Each waits for a different share of the total.
                let target = ADDERS * ADDS * (i + 1) / 4;
                let v = s
                    .wait(
                        Condition::Gte,
                        target,
                        TIMEOUT_INFINITE,
                        WaitState::Blocked,
                        LoadOrder::Acquire,
                    )
                    .unwrap();
                assert!(v >= target);
                done.add(1, RmwOrder::AcqRel);
            })
        })
        .collect();
    let adders: Vec<_> = (0..ADDERS)
        .map(|_| {
            let s = s.clone();
            std::thread::spawn(move || {
                for _ in 0..ADDS {
                    s.add(1, RmwOrder::Release);
                }
            })
        })
        .collect();
    for a in adders {
        a.join().unwrap();
    }
    let all = done
        .wait(
            Condition::Eq,
            4,
            TIMEOUT_INFINITE,
            WaitState::Blocked,
            LoadOrder::Acquire,
        )
        .unwrap();
    assert_eq!(all, 4);
    for w in waiters {
        w.join().unwrap();
    }
    assert_eq!(s.load(LoadOrder::Acquire), ADDERS * ADDS);
}

#[test]
fn wait_any_returns_the_signal_that_changed() {
    let _g = serial();
    let rt = rt();
    let sigs: Vec<Signal> = (0..3).map(|_| rt.create_signal(0).unwrap()).collect();
    let setter = {
        let s = sigs[2].clone();
        std::thread::spawn(move || {
            until_waiters(&s, 1);
            s.store(42, StoreOrder::Release);
        })
    };
    let list: Vec<_> = sigs.iter().map(|s| (s, Condition::Ne, 0)).collect();
    let hit = rt
        .wait_any(
            &list,
            TIMEOUT_INFINITE,
            WaitState::Blocked,
            LoadOrder::Acquire,
        )
        .unwrap();
    assert_eq!(hit, Some((2, 42)));
    setter.join().unwrap();
    // Nothing holds: the timeout ends it.
    let list: Vec<_> = sigs.iter().map(|s| (s, Condition::Eq, 7)).collect();
    assert_eq!(
        rt.wait_any(&list, 1000, WaitState::Blocked, LoadOrder::Relaxed)
            .unwrap(),
        None
    );
    let err = rt
        .wait_any(&[], 1000, WaitState::Blocked, LoadOrder::Relaxed)
        .unwrap_err();
    assert_eq!(err.status, Status::InvalidArgument);
    // Mixed kinds: the default one (no event) is polled.
    let d = rt.create_signal_of_kind(0, SignalKind::Default).unwrap();
    let setter = {
        let d = d.clone();
        std::thread::spawn(move || {
            until_waiters(&d, 1);
            d.silent_store(5, StoreOrder::Release);
        })
    };
    let list = [(&sigs[0], Condition::Eq, 1), (&d, Condition::Eq, 5)];
    assert_eq!(
        rt.wait_any(
            &list,
            TIMEOUT_INFINITE,
            WaitState::Blocked,
            LoadOrder::Acquire
        )
        .unwrap(),
        Some((1, 5))
    );
    setter.join().unwrap();
}

#[test]
fn signal_groups_wait_on_any_member() {
    let _g = serial();
    let rt = rt();
    let a = rt.create_signal(1).unwrap();
    let b = rt.create_signal(1).unwrap();
    let cpu = rt.agents().next().unwrap();
    let g = rt.create_signal_group(&[&a, &b], &[cpu]).unwrap();
    assert_eq!(g.signals().len(), 2);
    let setter = {
        let b = b.clone();
        std::thread::spawn(move || {
            until_waiters(&b, 1);
            b.subtract(1, RmwOrder::Release);
        })
    };
    let hit = g
        .wait_any(
            &[Condition::Eq, Condition::Eq],
            &[0, 0],
            WaitState::Blocked,
            LoadOrder::Acquire,
        )
        .unwrap();
    assert_eq!(hit, (1, 0));
    setter.join().unwrap();
    assert_eq!(
        g.wait_any(
            &[Condition::Eq],
            &[0],
            WaitState::Blocked,
            LoadOrder::Acquire
        )
        .unwrap_err()
        .status,
        Status::InvalidArgument
    );
    assert_eq!(
        rt.create_signal_group(&[], &[]).unwrap_err().status,
        Status::InvalidArgument
    );
    // Handles: found while live, refused after destroy or the last drop.
    let h = g.handle();
    assert_ne!(h, 0);
    let again = rt.signal_group_from_handle(h).unwrap();
    assert_eq!(again.signals()[1].handle(), b.handle());
    g.destroy();
    assert_eq!(
        rt.signal_group_from_handle(h).unwrap_err().status,
        Status::InvalidSignalGroup
    );
    assert_eq!(again.signals().len(), 2, "a clone outlives destroy");
    let g2 = rt.create_signal_group(&[&a], &[]).unwrap();
    let h2 = g2.handle();
    assert_ne!(h2, h, "handles are not reused");
    drop(g2);
    assert_eq!(
        rt.signal_group_from_handle(h2).unwrap_err().status,
        Status::InvalidSignalGroup
    );
    assert_eq!(
        rt.signal_group_from_handle(0).unwrap_err().status,
        Status::InvalidSignalGroup
    );
    assert_eq!(
        rt.create_signal_group(&[&a, &a], &[]).unwrap_err().status,
        Status::InvalidArgument
    );
}

#[test]
fn handles_are_looked_up_and_destroyed_ones_refused() {
    let _g = serial();
    let rt = rt();
    let s = rt.create_signal(9).unwrap();
    let h = s.handle();
    assert!(rt.is_signal(h));
    let again = rt.signal_from_handle(h).unwrap();
    assert_eq!(again.load(LoadOrder::Acquire), 9);
    again.store(10, StoreOrder::Relaxed);
    assert_eq!(s.load(LoadOrder::Acquire), 10);
    for bad in [0, 1, h + 64 * 1000, 0xdead_0000] {
        assert_eq!(
            rt.signal_from_handle(bad).unwrap_err().status,
            Status::InvalidSignal,
            "{bad:#x}"
        );
    }
    // Destroyed while a clone is still held: the handle is refused at
    // once, the clone keeps working.
    s.destroy();
    assert!(!rt.is_signal(h));
    assert_eq!(
        rt.signal_from_handle(h).unwrap_err().status,
        Status::InvalidSignal
    );
    assert!(again.is_destroyed());
    assert_eq!(again.load(LoadOrder::Relaxed), 10);
    assert_eq!(
        rt.async_handler(&again, Condition::Eq, 0, |_| false)
            .unwrap_err()
            .status,
        Status::InvalidSignal
    );
    drop(again);
    assert!(!rt.is_signal(h));
}

#[test]
fn destroying_a_signal_drops_its_async_handlers() {
    let _g = serial();
    let rt = rt();
    let base = rt.signal_count();
    let s = rt.create_signal(0).unwrap();
    let (tx, rx) = mpsc::channel::<i64>();
    rt.async_handler(&s, Condition::Eq, 1, move |v| {
        tx.send(v).unwrap();
        true
    })
    .unwrap();
    s.destroy();
    // The handler's clone was the last: once the handler thread drops it,
    // the storage is released, and the handler never ran (its sender is
    // gone without a value).
    assert_eq!(
        rx.recv_timeout(GENEROUS),
        Err(mpsc::RecvTimeoutError::Disconnected)
    );
    while rt.signal_count() != base {
        std::thread::yield_now();
    }
}

#[test]
fn consumers_choose_the_kind_as_rocr_does() {
    let _g = serial();
    let rt = rt();
    let cpu = rt.agents().next().unwrap();
    let gpu = rt.gpu_agents().next().unwrap();
    let kind = |c: &[runtime::Agent]| rt.create_signal_for(0, c).unwrap().kind();
    assert_eq!(kind(&[]), SignalKind::Interrupt);
    assert_eq!(kind(&[cpu]), SignalKind::Interrupt);
    assert_eq!(kind(&[gpu, cpu]), SignalKind::Interrupt);
    assert_eq!(kind(&[gpu]), SignalKind::Default);
    assert_eq!(
        rt.create_signal_for(0, &[gpu, gpu]).unwrap_err().status,
        Status::InvalidArgument
    );
}

#[test]
fn async_handler_runs_until_it_returns_false() {
    let _g = serial();
    let rt = rt();
    let s = rt.create_signal(0).unwrap();
    let (tx, rx) = mpsc::channel();
    let calls_before = rt.event_stats().handler_calls;
    {
        let s2 = s.clone();
        rt.async_handler(&s, Condition::Gte, 1, move |v| {
            tx.send(v).unwrap();
            // Re-arm: the condition no longer holds until the next store.
            s2.store(0, StoreOrder::Release);
            v < 3
        })
        .unwrap();
    }
    for v in 1..=3 {
        s.store(v, StoreOrder::Release);
        assert_eq!(rx.recv_timeout(GENEROUS).unwrap(), v);
        s.wait(
            Condition::Eq,
            0,
            TIMEOUT_INFINITE,
            WaitState::Blocked,
            LoadOrder::Acquire,
        )
        .unwrap();
    }
    // The handler returned false at 3: a later store reaches nobody. A
    // second handler, already satisfied, runs in the same pass of the
    // handler thread that would have run the first one again.
    s.store(5, StoreOrder::Release);
    let marker = rt.create_signal(1).unwrap();
    let (mtx, mrx) = mpsc::channel();
    rt.async_handler(&marker, Condition::Eq, 1, move |v| {
        mtx.send(v).unwrap();
        false
    })
    .unwrap();
    assert_eq!(mrx.recv_timeout(GENEROUS).unwrap(), 1);
    assert!(rx.try_recv().is_err(), "the dropped handler ran again");
    assert_eq!(s.load(LoadOrder::Acquire), 5);
    assert_eq!(rt.event_stats().handler_calls - calls_before, 4);
}

/// Submits `name` from the demo kernels on `q` with `completion` as its
/// completion signal, without waiting.
fn submit(
    rt: &Runtime,
    q: &runtime::Queue,
    exe: &runtime::Executable,
    name: &str,
    args: &[ArgValue],
    g: &Geometry,
    completion: &Signal,
) -> u64 {
    let k = exe.kernel(name).unwrap();
    let seg = rt.build_kernarg(q, &k, args, g).unwrap();
    let kernarg = rt
        .allocate(rt.kernarg_pool().unwrap(), seg.bytes.len().max(16) as u64)
        .unwrap();
    // SAFETY: a fresh CPU-mapped allocation of at least seg.bytes.len()
    // bytes (kept until the runtime closes: the test does not free it).
    unsafe {
        std::ptr::copy_nonoverlapping(seg.bytes.as_ptr(), kernarg as *mut u8, seg.bytes.len())
    };
    rt.submit_dispatch(q, &k, kernarg, g, seg.group_segment_size, completion)
        .unwrap()
}

#[test]
fn a_gpu_completion_wakes_an_interrupt_signal_waiter() {
    let _g = serial();
    let rt = rt();
    let gpu = rt.gpu_agents().next().unwrap();
    let exe = rt.load_executable(gpu, DEMO).unwrap();
    let q = rt
        .create_queue(gpu, 64, QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    let done = rt.create_signal(1).unwrap();
    assert_eq!(done.kind(), SignalKind::Interrupt);
    let waiter = {
        let done = done.clone();
        std::thread::spawn(move || {
            done.wait(
                Condition::Eq,
                0,
                TIMEOUT_INFINITE,
                WaitState::Blocked,
                LoadOrder::Acquire,
            )
            .unwrap()
        })
    };
    until_waiters(&done, 1);
    let before = rt.event_stats();
    submit(
        &rt,
        &q,
        &exe,
        "empty",
        &[],
        &Geometry::linear(64, 64),
        &done,
    );
    assert_eq!(waiter.join().unwrap(), 0);
    // The GPU's decrement wakes no futex: the event thread must have seen
    // this signal's event and notified it (counted before the wake; the
    // waiter may also have seen 0 just before it would have slept, so the
    // count is awaited rather than read once).
    let deadline = std::time::Instant::now() + GENEROUS;
    while rt.event_stats().signals_notified == before.signals_notified {
        assert!(
            std::time::Instant::now() < deadline,
            "no event notified the signal"
        );
        std::thread::yield_now();
    }
    assert!(rt.event_stats().wakes > before.wakes);
    // An async handler sees GPU completions the same way.
    let (tx, rx) = mpsc::channel();
    let done2 = rt.create_signal(1).unwrap();
    rt.async_handler(&done2, Condition::Eq, 0, move |v| {
        tx.send(v).unwrap();
        false
    })
    .unwrap();
    submit(
        &rt,
        &q,
        &exe,
        "empty",
        &[],
        &Geometry::linear(64, 64),
        &done2,
    );
    assert_eq!(rx.recv_timeout(GENEROUS).unwrap(), 0);
}

#[test]
fn every_signal_is_released() {
    let _g = serial();
    let rt = rt();
    let base = rt.signal_count();
    let sigs: Vec<Signal> = (0..300).map(|i| rt.create_signal(i).unwrap()).collect();
    assert_eq!(rt.signal_count(), base + 300);
    let events: std::collections::HashSet<u32> = sigs.iter().filter_map(Signal::event_id).collect();
    assert_eq!(
        events.len(),
        300,
        "every interrupt signal has its own event"
    );
    drop(sigs);
    assert_eq!(rt.signal_count(), base);
    // Pooled events serve the next signals.
    let again: Vec<Signal> = (0..300).map(|i| rt.create_signal(i).unwrap()).collect();
    assert!(again.iter().all(|s| s.kind() == SignalKind::Interrupt));
    assert!(
        again
            .iter()
            .all(|s| events.contains(&s.event_id().unwrap()))
    );
}

#[test]
fn interrupt_signals_fall_back_to_default_ones_when_events_run_out() {
    let _g = serial();
    let rt = rt();
    // KFD_SIGNAL_EVENT_LIMIT slots, one of them the runtime's control
    // event (and slot 0 is reserved): at most 4094 interrupt signals.
    let mut sigs = Vec::new();
    while sigs.len() < 5000 {
        let s = rt.create_signal(0).unwrap();
        let kind = s.kind();
        sigs.push(s);
        if kind == SignalKind::Default {
            break;
        }
    }
    let interrupts = sigs.len() - 1;
    assert_eq!(sigs.last().unwrap().kind(), SignalKind::Default);
    assert!(interrupts <= 4094, "{interrupts}");
    assert!(interrupts > 4000, "{interrupts}");
    // The fallback works as a signal.
    let d = sigs.last().unwrap().clone();
    let w = {
        let d = d.clone();
        std::thread::spawn(move || {
            d.wait(
                Condition::Eq,
                3,
                TIMEOUT_INFINITE,
                WaitState::Blocked,
                LoadOrder::Acquire,
            )
            .unwrap()
        })
    };
    until_waiters(&d, 1);
    d.store(3, StoreOrder::Release);
    assert_eq!(w.join().unwrap(), 3);
    drop(d);
    sigs.truncate(interrupts - 1);
    assert_eq!(rt.create_signal(0).unwrap().kind(), SignalKind::Interrupt);
}
