//! Every HSA signal operation in every memory order the API names, the
//! interrupt-event side effects, doorbell signals, the pool and the
//! profiling timestamps, on the hosted `FutexHost`.

use std::ptr::NonNull;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use signal_core::raw::{AMD_SIGNAL_KIND_USER, AmdSignal};
use signal_core::*;
use std_shim::FutexHost;

/// Records every event raised, as KFD's event would see them.
#[derive(Default)]
struct Events(Mutex<Vec<u32>>);

impl EventNotifier for Events {
    fn notify_event(&self, event_id: u32) {
        self.0.lock().unwrap().push(event_id);
    }
}

#[test]
fn loads_and_stores_in_every_order() {
    let host = FutexHost::new();
    let storage = SignalStorage::new(5);
    let s = storage.bind(&host);
    for order in LoadOrder::ALL {
        assert_eq!(s.load(order), 5, "{order:?}");
    }
    for (i, order) in StoreOrder::ALL.into_iter().enumerate() {
        s.store(10 + i as i64, order);
        assert_eq!(s.load(LoadOrder::Acquire), 10 + i as i64, "store {order:?}");
        s.silent_store(-20 - i as i64, order);
        assert_eq!(
            s.load(LoadOrder::Relaxed),
            -20 - i as i64,
            "silent store {order:?}"
        );
    }
    // The value is the word the GPU reads, at offset 8 of amd_signal_t.
    assert_eq!(storage.amd_signal().value.load(Ordering::Relaxed), -21);
    assert_eq!(storage.amd_signal().raw_kind(), AMD_SIGNAL_KIND_USER);
}

#[test]
fn read_modify_writes_in_every_order() {
    let host = FutexHost::new();
    for order in RmwOrder::ALL {
        let storage = SignalStorage::new(0b1100);
        let s = storage.bind(&host);
        let m = format!("{order:?}");
        assert_eq!(s.exchange(0b1010, order), 0b1100, "exchange {m}");
        assert_eq!(s.load(LoadOrder::Relaxed), 0b1010);
        // CAS returns the observed value; success and failure.
        assert_eq!(s.cas(0b1010, 7, order), 0b1010, "cas success {m}");
        assert_eq!(s.load(LoadOrder::Relaxed), 7);
        assert_eq!(s.cas(99, 8, order), 7, "cas failure {m}");
        assert_eq!(s.load(LoadOrder::Relaxed), 7);
        assert_eq!(s.add(5, order), 7, "add {m}");
        assert_eq!(s.load(LoadOrder::Relaxed), 12);
        assert_eq!(s.subtract(20, order), 12, "subtract {m}");
        assert_eq!(s.load(LoadOrder::Relaxed), -8);
        assert_eq!(s.and(0xff, order), -8, "and {m}");
        assert_eq!(s.load(LoadOrder::Relaxed), 0xf8);
        assert_eq!(s.or(0x7, order), 0xf8, "or {m}");
        assert_eq!(s.load(LoadOrder::Relaxed), 0xff);
        assert_eq!(s.xor(0x0f, order), 0xff, "xor {m}");
        assert_eq!(s.load(LoadOrder::Relaxed), 0xf0);
        // Arithmetic wraps like the device's 64-bit atomics.
        s.store(i64::MAX, StoreOrder::Relaxed);
        assert_eq!(s.add(1, order), i64::MAX);
        assert_eq!(s.load(LoadOrder::Relaxed), i64::MIN);
    }
}

#[test]
fn release_orders_publish_to_acquire_loads() {
    // Message passing through the signal: data written before a release
    // operation is visible after an acquire load sees its value.
    let host = FutexHost::new();
    for order in [RmwOrder::Release, RmwOrder::AcqRel] {
        for _ in 0..50 {
            let storage = SignalStorage::new(0);
            let data = AtomicU64::new(0);
            std::thread::scope(|sc| {
                sc.spawn(|| {
                    data.store(42, Ordering::Relaxed);
                    storage.bind(&host).add(1, order);
                });
                let s = storage.bind(&host);
                while s.load(LoadOrder::Acquire) != 1 {
                    std::hint::spin_loop();
                }
                assert_eq!(data.load(Ordering::Relaxed), 42, "{order:?}");
            });
        }
    }
}

#[test]
fn interrupt_signal_writes_mailbox_and_raises_event_after_each_change() {
    const UNSIGNALED: u64 = u64::MAX; // KFD's UNSIGNALED_EVENT_SLOT
    let mailbox = AtomicU64::new(UNSIGNALED);
    let host = FutexHost::with_notifier(Events::default());
    // SAFETY: `mailbox` outlives `storage` (declared before it).
    let storage = unsafe { SignalStorage::new_interrupt(1, NonNull::from(&mailbox), 77) };
    assert_eq!(storage.event_id(), Some(77));
    let raw = storage.amd_signal();
    assert_eq!(
        raw.event_mailbox_ptr.load(Ordering::Relaxed),
        mailbox.as_ptr() as u64
    );
    assert_eq!(raw.event_id.load(Ordering::Relaxed), 77);

    let s = storage.bind(&host);
    let events = |host: &FutexHost<Events>| host.notifier().0.lock().unwrap().len();
    s.silent_store(3, StoreOrder::Release);
    assert_eq!(
        mailbox.load(Ordering::Relaxed),
        UNSIGNALED,
        "silent store must not signal"
    );
    assert_eq!(events(&host), 0);
    s.cas(1000, 0, RmwOrder::AcqRel); // fails: no change, no event
    assert_eq!(events(&host), 0);

    let ops: [(&str, &dyn Fn()); 9] = [
        ("store", &|| s.store(0, StoreOrder::Release)),
        ("exchange", &|| {
            let _ = s.exchange(1, RmwOrder::AcqRel);
        }),
        ("cas", &|| {
            let _ = s.cas(1, 2, RmwOrder::AcqRel);
        }),
        ("add", &|| {
            let _ = s.add(1, RmwOrder::Relaxed);
        }),
        ("subtract", &|| {
            let _ = s.subtract(1, RmwOrder::Release);
        }),
        ("and", &|| {
            let _ = s.and(1, RmwOrder::Acquire);
        }),
        ("or", &|| {
            let _ = s.or(4, RmwOrder::AcqRel);
        }),
        ("xor", &|| {
            let _ = s.xor(4, RmwOrder::Relaxed);
        }),
        ("store relaxed", &|| s.store(9, StoreOrder::Relaxed)),
    ];
    for (n, (name, op)) in ops.iter().enumerate() {
        mailbox.store(UNSIGNALED, Ordering::Relaxed);
        op();
        assert_eq!(
            mailbox.load(Ordering::Acquire),
            77,
            "{name}: event id in the mailbox"
        );
        assert_eq!(events(&host), n + 1, "{name}: one event raised");
    }
    assert!(host.notifier().0.lock().unwrap().iter().all(|&e| e == 77));
}

#[test]
fn doorbell_signal_store_rings_the_doorbell_not_the_value() {
    #[repr(align(8))]
    struct Page([u64; 2]);
    let mut page = Page([0, 0]);
    let doorbell = NonNull::from(&mut page.0[0]);
    for order in StoreOrder::ALL {
        let raw = AmdSignal::new_doorbell(doorbell, false);
        // SAFETY: `page` outlives `db` and is writable.
        let db = unsafe { DoorbellSignal::from_raw(&raw) }.unwrap();
        assert!(!db.is_legacy());
        db.store(0x1234_5678_9abc, order);
        // SAFETY: no other reference to `page` is live; reads through the
        // pointer the doorbell was given.
        let rung = unsafe { doorbell.as_ptr().read_volatile() };
        assert_eq!(rung, 0x1234_5678_9abc, "{order:?}");
        assert_eq!(
            raw.value.load(Ordering::Relaxed) as u64,
            doorbell.as_ptr() as u64,
            "value word keeps the pointer"
        );
    }
    // A legacy doorbell is 32-bit: only the low word is written.
    // SAFETY: as above.
    unsafe { doorbell.as_ptr().write_volatile(u64::MAX) };
    let raw = AmdSignal::new_doorbell(doorbell, true);
    // SAFETY: as above.
    let db = unsafe { DoorbellSignal::from_raw(&raw) }.unwrap();
    assert!(db.is_legacy());
    db.store(0x1_0000_0005, StoreOrder::Release);
    // SAFETY: as above.
    let rung = unsafe { doorbell.as_ptr().read_volatile() };
    assert_eq!(rung, 0xffff_ffff_0000_0005);
}

#[test]
fn doorbell_view_rejects_what_is_not_a_doorbell() {
    fn decode(kind: i64, word: i64) -> DoorbellError {
        let raw = AmdSignal::with(kind, word);
        // SAFETY: every case below fails a check before the address is
        // used, so no doorbell is ever written.
        unsafe { DoorbellSignal::from_raw(&raw) }.unwrap_err()
    }
    let err = decode(AMD_SIGNAL_KIND_USER, 0x1000);
    assert_eq!(err, DoorbellError::NotADoorbell(SignalKind::User));
    assert_eq!(
        err.to_string(),
        "doorbell signal: kind is User, not a doorbell kind"
    );
    assert_eq!(
        decode(7, 0x1000),
        DoorbellError::UnknownKind(UnknownSignalKind(7))
    );
    assert_eq!(decode(-1, 0), DoorbellError::NullDoorbell);
    assert_eq!(decode(-2, 0), DoorbellError::NullDoorbell);
    assert_eq!(
        decode(-1, 0x1004),
        DoorbellError::MisalignedDoorbell { address: 0x1004 }
    );
    assert_eq!(
        decode(-2, 0x1002),
        DoorbellError::MisalignedDoorbell { address: 0x1002 }
    );
    assert_eq!(SignalKind::try_from(3), Err(UnknownSignalKind(3)));
}

#[test]
fn pool_hands_out_each_slot_once_and_reuses_freed_ones() {
    static POOL: SignalPool<4> = SignalPool::new();
    let host = FutexHost::new();
    let held: Vec<_> = (0..4).map(|i| POOL.allocate(i).unwrap()).collect();
    let mut handles: Vec<u64> = held.iter().map(|s| s.handle()).collect();
    handles.sort();
    handles.dedup();
    assert_eq!(handles.len(), 4);
    for h in &handles {
        assert_eq!(h % 64, 0, "amd_signal_t is 64-byte aligned");
    }
    let err = POOL.allocate(0).unwrap_err();
    assert_eq!(err, PoolExhausted { capacity: 4 });
    assert_eq!(err.to_string(), "signal pool: all 4 signals are in use");
    held[2].bind(&host).store(-5, StoreOrder::Relaxed);
    let freed = held[2].index();
    drop(held);
    assert_eq!(POOL.in_use(), 0);
    // A reused slot is a fresh signal with the new initial value.
    let all: Vec<_> = (0..4).map(|_| POOL.allocate(9).unwrap()).collect();
    let again = all.iter().find(|s| s.index() == freed).unwrap();
    assert_eq!(again.bind(&host).load(LoadOrder::Acquire), 9);
    assert_eq!(again.wake_state().waiters(), 0);
}

#[test]
fn pool_allocation_is_exclusive_under_contention() {
    static POOL: SignalPool<8> = SignalPool::new();
    let host = FutexHost::new();
    std::thread::scope(|sc| {
        for t in 0..4i64 {
            let host = &host;
            sc.spawn(move || {
                for _ in 0..2000 {
                    if let Ok(s) = POOL.allocate(t) {
                        // While we own it, nobody else resets or writes it.
                        let sig = s.bind(host);
                        assert_eq!(sig.load(LoadOrder::Acquire), t);
                        sig.add(100, RmwOrder::AcqRel);
                        assert_eq!(sig.load(LoadOrder::Acquire), t + 100);
                    }
                }
            });
        }
    });
    assert_eq!(POOL.in_use(), 0);
}

#[test]
fn profiling_timestamps_translate_like_rocr() {
    let raw = AmdSignal::zeroed();
    assert_eq!(raw.raw_timestamps(), Err(TimestampError::NotRecorded));
    // GPU at 100 MHz, system clock at 1 GHz: 10 system ticks per GPU tick.
    let sync = ClockSync::new(
        ClockCounters {
            gpu: 1_000,
            system: 5_000_000,
        },
        ClockCounters {
            gpu: 2_000,
            system: 5_010_000,
        },
    )
    .unwrap();
    raw.start_ts.store(1_500, Ordering::Relaxed);
    raw.end_ts.store(2_600, Ordering::Release);
    assert_eq!(raw.raw_timestamps(), Ok((1_500, 2_600)));
    let t = raw.profiling_time(&sync).unwrap();
    // Interpolated (1500) and extrapolated past t1 (2600).
    assert_eq!(
        t,
        ProfilingTime {
            start: 5_005_000,
            end: 5_016_000
        }
    );
    // Rounds to the nearest system tick: 3 system ticks per 7 GPU ticks.
    let odd = ClockSync::new(
        ClockCounters { gpu: 0, system: 0 },
        ClockCounters { gpu: 7, system: 3 },
    )
    .unwrap();
    assert_eq!(odd.gpu_to_system(2), Ok(1)); // 0.857
    assert_eq!(odd.gpu_to_system(1), Ok(0)); // 0.428
    raw.end_ts.store(1_000, Ordering::Relaxed);
    assert_eq!(
        raw.raw_timestamps(),
        Err(TimestampError::EndBeforeStart {
            start: 1_500,
            end: 1_000
        })
    );
    assert_eq!(
        ClockSync::new(
            ClockCounters { gpu: 5, system: 1 },
            ClockCounters { gpu: 5, system: 2 }
        ),
        Err(TimestampError::DegenerateClockSamples)
    );
    // Before the system clock's zero: a typed error, not a wrap.
    assert_eq!(sync.gpu_to_system(0), Ok(4_990_000));
    let steep = ClockSync::new(
        ClockCounters {
            gpu: 1_000_000,
            system: 10,
        },
        ClockCounters {
            gpu: 1_000_001,
            system: 20,
        },
    )
    .unwrap();
    assert_eq!(
        steep.gpu_to_system(0),
        Err(TimestampError::OutOfRange { gpu_tick: 0 })
    );
    assert_eq!(
        steep.gpu_to_system(u64::MAX),
        Err(TimestampError::OutOfRange { gpu_tick: u64::MAX })
    );
    // The widest possible spans: the i128 product overflows, still a typed
    // error and never a panic or a wrap.
    let widest = ClockSync::new(
        ClockCounters { gpu: 0, system: 0 },
        ClockCounters {
            gpu: 1,
            system: u64::MAX,
        },
    )
    .unwrap();
    assert_eq!(
        widest.gpu_to_system(u64::MAX),
        Err(TimestampError::OutOfRange { gpu_tick: u64::MAX })
    );
    assert_eq!(widest.gpu_to_system(1), Ok(u64::MAX));
    assert_eq!(widest.gpu_to_system(0), Ok(0));
}

#[test]
fn raw_enumerators_decode_or_fail_typed() {
    assert_eq!(
        Condition::try_from(HSA_SIGNAL_CONDITION_GTE),
        Ok(Condition::Gte)
    );
    assert_eq!(Condition::try_from(4), Err(UnknownEnumerator::Condition(4)));
    assert_eq!(
        WaitState::try_from(HSA_WAIT_STATE_ACTIVE),
        Ok(WaitState::Active)
    );
    assert_eq!(WaitState::try_from(2), Err(UnknownEnumerator::WaitState(2)));
    assert_eq!(
        UnknownEnumerator::Condition(4).to_string(),
        "hsa_signal_condition_t 4 is no HSA_SIGNAL_CONDITION_* value"
    );
}

/// ROCr's `GpuAgent::TranslateTime` in doubles, for comparison.
fn rocr_translate(t0: ClockCounters, t1: ClockCounters, tick: u64) -> f64 {
    (t0.system.wrapping_sub(t1.system) as i64 as f64 / t0.gpu.wrapping_sub(t1.gpu) as i64 as f64)
        * tick.wrapping_sub(t1.gpu) as i64 as f64
        + t1.system as f64
}

#[test]
fn clock_translation_agrees_with_rocrs_floating_point_formula() {
    // xorshift64*: deterministic cases without a dependency.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    for _ in 0..20_000 {
        // Realistic ranges: GPU counters at 25-100 MHz, system ns since
        // boot up to ~36 years, samples up to minutes apart.
        let gpu0 = next() % (1 << 50);
        let sys0 = next() % (1 << 60);
        let gpu_span = 1 + next() % 10_000_000_000;
        let ratio = 10 + next() % 31; // system ns per GPU tick
        let t0 = ClockCounters {
            gpu: gpu0,
            system: sys0,
        };
        let t1 = ClockCounters {
            gpu: gpu0 + gpu_span,
            system: sys0 + gpu_span * ratio,
        };
        let sync = ClockSync::new(t0, t1).unwrap();
        let tick = gpu0 + next() % (2 * gpu_span);
        let ours = sync.gpu_to_system(tick).unwrap() as f64;
        let theirs = rocr_translate(t0, t1, tick);
        // Doubles carry 53 bits; beyond that only their rounding differs.
        let tolerance = (theirs.abs() * 2f64.powi(-50)).max(1.0);
        assert!(
            (ours - theirs).abs() <= tolerance,
            "t0 {t0:?} t1 {t1:?} tick {tick}: ours {ours} ROCr {theirs}"
        );
    }
}
