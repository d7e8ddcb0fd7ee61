//! `SignalPool` reuse: a handle kept past the free of its signal is a typed
//! error, and a reference kept past it is not undefined behaviour.
//!
//! Also run under Miri (`cargo +nightly miri test -p signal-core --test
//! pool`): before slots were re-initialised through `&`, the reference kept
//! in `a_reference_kept_across_free_and_reuse_stays_sound` was invalidated
//! by the `&mut` of the reset, which Miri reported as undefined behaviour.

#![cfg(not(loom))]

use core::sync::atomic::{AtomicU32, Ordering};
use signal_core::raw::AMD_SIGNAL_KIND_USER;
use signal_core::*;

/// A host that never sleeps (nothing here blocks).
struct Spin;
impl Blocker for Spin {
    fn block(&self, _: &AtomicU32, _: u32, _: Option<u64>) {}
    fn block_any(&self, _: &[BlockOn<'_>], _: Option<u64>) {}
    fn wake_all(&self, _: &AtomicU32) {}
}
impl Clock for Spin {
    fn now_ticks(&self) -> u64 {
        0
    }
    fn ticks_per_second(&self) -> u64 {
        1_000_000_000
    }
}
impl EventNotifier for Spin {
    fn notify_event(&self, _: u32) {}
}

#[test]
fn a_stale_pool_handle_after_free_and_reuse_is_a_typed_error() {
    static POOL: SignalPool<1> = SignalPool::new();
    let first = POOL.allocate(1).unwrap();
    let old = first.pool_handle();
    assert_eq!(old.generation, 0);
    assert_eq!(old.signal, first.handle());
    assert_eq!(POOL.get(old).unwrap().handle(), old.signal);
    drop(first);

    let freed = POOL.get(old).unwrap_err();
    assert_eq!(
        freed,
        PoolHandleError::Stale {
            signal: old.signal,
            index: 0,
            generation: 0,
            current: 1
        }
    );
    assert_eq!(
        POOL.lookup(old.signal).unwrap_err(),
        PoolHandleError::Free {
            signal: old.signal,
            index: 0
        }
    );

    // The only slot is reused: the same hsa_signal_t, a new generation.
    let second = POOL.allocate(2).unwrap();
    assert_eq!(second.handle(), old.signal);
    assert_eq!(second.generation(), 1);
    let err = POOL.get(old).unwrap_err();
    assert_eq!(err, freed);
    let msg = err.to_string();
    assert!(
        msg.contains("pool slot 0") && msg.contains("generation 0 was freed"),
        "{msg}"
    );
    let current = POOL.get(second.pool_handle()).unwrap();
    assert_eq!(current.bind(&Spin).load(LoadOrder::Acquire), 2);
    // The bare hsa_signal_t cannot tell the two allocations apart.
    assert_eq!(POOL.lookup(old.signal).unwrap().handle(), old.signal);
}

#[test]
fn a_reference_kept_across_free_and_reuse_stays_sound() {
    static POOL: SignalPool<1> = SignalPool::new();
    let first = POOL.allocate(1).unwrap();
    // What `SignalStorage::from_handle` hands out for a packet's completion
    // signal: a reference whose lifetime the pool signal does not bound.
    // SAFETY: the pool is a `static` whose slots are never moved, dropped or
    // written through `&mut`, which is all `from_handle`'s contract asks.
    let kept: &'static SignalStorage =
        unsafe { SignalStorage::from_handle(first.handle()) }.unwrap();
    // The same with the exact provenance of the slot, which Miri tracks
    // precisely (`from_handle`'s exposed provenance it checks only loosely).
    // SAFETY: as above.
    let exact: &'static SignalStorage = unsafe { &*core::ptr::from_ref::<SignalStorage>(&*first) };
    drop(first);
    let second = POOL.allocate(2).unwrap();
    // Both now see the slot's second signal: a logic error for a caller
    // that meant the first, but defined behaviour.
    for r in [kept, exact] {
        assert_eq!(r.bind(&Spin).load(LoadOrder::Acquire), 2);
        assert_eq!(r.event_id(), None);
        assert_eq!(r.amd_signal().event_mailbox_ptr.load(Ordering::Relaxed), 0);
    }
    exact.bind(&Spin).store(5, StoreOrder::Release);
    assert_eq!(second.bind(&Spin).load(LoadOrder::Acquire), 5);
}

#[test]
fn a_reused_slot_is_a_fresh_user_signal() {
    static POOL: SignalPool<1> = SignalPool::new();
    let first = POOL.allocate(1).unwrap();
    let amd = first.amd_signal();
    for word in [&amd.start_ts, &amd.end_ts, &amd.queue_ptr] {
        word.store(77, Ordering::Relaxed);
    }
    amd.reserved1.store(3, Ordering::Relaxed);
    drop(first);
    let second = POOL.allocate(-4).unwrap();
    let amd = second.amd_signal();
    assert_eq!(amd.raw_kind(), AMD_SIGNAL_KIND_USER);
    assert_eq!(amd.value.load(Ordering::Relaxed), -4);
    for word in [&amd.start_ts, &amd.end_ts, &amd.queue_ptr] {
        assert_eq!(word.load(Ordering::Relaxed), 0);
    }
    assert_eq!(amd.reserved1.load(Ordering::Relaxed), 0);
    assert_eq!(second.wake_state().waiters(), 0);
}

#[test]
fn handles_that_name_no_slot_of_the_pool_are_refused() {
    static POOL: SignalPool<2> = SignalPool::new();
    static OTHER: SignalPool<1> = SignalPool::new();
    let a = POOL.allocate(0).unwrap();
    let b = POOL.allocate(0).unwrap();
    let elsewhere = OTHER.allocate(0).unwrap();
    let not_in_pool = |signal| PoolHandleError::NotInPool { signal };
    let base = a.handle().min(b.handle());
    let size = core::mem::size_of::<SignalStorage>() as u64;
    for signal in [
        0,
        base + 8,
        base + 64,
        base - size,
        base + 2 * size,
        u64::MAX,
        elsewhere.handle(),
    ] {
        assert_eq!(POOL.lookup(signal).unwrap_err(), not_in_pool(signal));
        let handle = PoolHandle {
            signal,
            generation: 0,
        };
        assert_eq!(POOL.get(handle).unwrap_err(), not_in_pool(signal));
    }
    assert_eq!(
        POOL.lookup(elsewhere.handle()).unwrap_err().to_string(),
        format!(
            "hsa_signal_t {:#x} is no signal of this pool",
            elsewhere.handle()
        )
    );
    // A forged handle with the current generation of a free slot.
    let index = b.index();
    let signal = b.handle();
    let generation = b.generation();
    drop(b);
    let forged = PoolHandle {
        signal,
        generation: generation + 1,
    };
    assert_eq!(
        POOL.get(forged).unwrap_err(),
        PoolHandleError::Free { signal, index }
    );
    assert!(POOL.get(a.pool_handle()).is_ok());
}

#[test]
fn every_allocation_of_a_slot_has_its_own_generation() {
    static POOL: SignalPool<2> = SignalPool::new();
    let mut seen = std::collections::BTreeSet::new();
    for round in 0..10u64 {
        let a = POOL.allocate(0).unwrap();
        let b = POOL.allocate(0).unwrap();
        for s in [&a, &b] {
            assert!(seen.insert((s.index(), s.generation())), "round {round}");
            assert_eq!(s.generation(), round);
        }
    }
}
