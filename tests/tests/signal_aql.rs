//! Signals across crates: AQL packets (`aql`) carry `hsa_signal_t`
//! completion handles made by `signal-core`; a packet-processor thread
//! turns each handle back into its signal, stamps the profiling timestamps
//! and decrements it, as the command processor does at completion; the
//! submitting thread blocks on it through `std-shim`'s futex host.

use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::thread;

use aql::{KernelDispatchPacket, SignalHandle};
use signal_core::raw::AMD_SIGNAL_KIND_DOORBELL;
use signal_core::*;
use std_shim::FutexHost;

const DISPATCHES: i64 = 64;

#[test]
fn completion_signals_in_packets_wake_the_submitter() {
    static POOL: SignalPool<4> = SignalPool::new();
    let host = FutexHost::new();
    let completion = POOL.allocate(DISPATCHES).unwrap();
    let (tx, rx) = mpsc::channel::<KernelDispatchPacket>();
    thread::scope(|sc| {
        // The packet processor: only the packet reaches it, not the signal.
        sc.spawn(|| {
            let host = FutexHost::new();
            let mut gpu_clock = 1_000u64;
            for packet in rx {
                let handle = packet.completion_signal.handle;
                // SAFETY: the handle came from `completion`, which the
                // submitting thread keeps alive until every dispatch is done.
                let storage = unsafe { SignalStorage::from_handle(handle) }.unwrap();
                let raw = storage.amd_signal();
                raw.start_ts.store(gpu_clock, Ordering::Relaxed);
                gpu_clock += 10;
                raw.end_ts.store(gpu_clock, Ordering::Relaxed);
                storage.bind(&host).subtract(1, RmwOrder::Release);
            }
        });
        for i in 0..DISPATCHES {
            let mut p =
                KernelDispatchPacket::new(0x1000, 0x2000, [64 * (i as u32 + 1), 1, 1], [64, 1, 1]);
            p.completion_signal = SignalHandle {
                handle: completion.handle(),
            };
            tx.send(p).unwrap();
        }
        drop(tx);
        let done = completion.bind(&host).wait_with_policy(
            Condition::Eq,
            0,
            10_000_000_000,
            WaitState::Blocked,
            LoadOrder::Acquire,
            &WaitPolicy::BLOCK_AT_ONCE,
        );
        assert_eq!(done, Ok(WaitOutcome::Satisfied(0)));
    });
    // The last dispatch's timestamps, in the system domain of a 100 MHz GPU
    // clock sampled at (1000, 5 ms) and (2000, 15 ms).
    let sync = ClockSync::new(
        ClockCounters {
            gpu: 1_000,
            system: 5_000_000,
        },
        ClockCounters {
            gpu: 2_000,
            system: 15_000_000,
        },
    )
    .unwrap();
    let t = completion.amd_signal().profiling_time(&sync).unwrap();
    let last_start = 1_000 + 10 * (DISPATCHES as u64 - 1);
    assert_eq!(t.start, 5_000_000 + (last_start - 1_000) * 10_000);
    assert_eq!(t.end - t.start, 100_000);
}

#[test]
fn handles_that_name_no_signal_are_typed_errors() {
    // SAFETY: null and misaligned handles are rejected before any access.
    let null = unsafe { SignalStorage::from_handle(SignalHandle::NULL.handle) };
    assert_eq!(null.unwrap_err(), SignalHandleError::Null);
    // SAFETY: as above.
    let odd = unsafe { SignalStorage::from_handle(0x1008) };
    assert_eq!(
        odd.unwrap_err(),
        SignalHandleError::Misaligned { handle: 0x1008 }
    );
    // A storage whose `kind` word was rewritten (the GPU or another process
    // can write it) is no longer a waitable signal.
    let storage = SignalStorage::new(0);
    storage
        .amd_signal()
        .kind
        .store(AMD_SIGNAL_KIND_DOORBELL, Ordering::Relaxed);
    // SAFETY: the handle is that of `storage`, alive for the call.
    let err = unsafe { SignalStorage::from_handle(storage.handle()) }.unwrap_err();
    assert_eq!(err, SignalHandleError::NotAUserSignal { kind: -1 });
    assert_eq!(
        err.to_string(),
        "hsa_signal_t: amd_signal_t.kind -1 is not AMD_SIGNAL_KIND_USER"
    );
}
