//! A software AQL queue wired the way ROCr wires one: the queue's doorbell
//! is a signal (`aql`'s ring rings it with a release store, as
//! `hsa_signal_store_screlease(queue->doorbell_signal, id)` does), the
//! packet-processor thread sleeps on that signal when the ring is empty,
//! and each dispatch's completion signal (from a fixed `SignalPool`) is
//! decremented when the packet completes, waking the submitter. Every wait
//! blocks through `std-shim`'s futexes and carries a timeout, so a lost
//! wake-up fails the test instead of hanging it.

use std::thread;

use aql::doorbell::FnDoorbell;
use aql::queue::{PacketSlot, Poll, Ring};
use aql::{KernelDispatchPacket, Packet, SignalHandle};
use signal_core::*;
use std::sync::atomic::AtomicU64;
use std_shim::FutexHost;

const DISPATCHES: u64 = 2_000;
const BATCH: usize = 8;
const TEN_SECONDS: u64 = 10_000_000_000;

#[test]
fn software_queue_with_signal_doorbell_and_completion_signals() {
    static COMPLETIONS: SignalPool<BATCH> = SignalPool::new();
    let host = FutexHost::new();
    // ROCr's software queues start the doorbell signal at "nothing rung".
    let doorbell = SignalStorage::new(-1);
    let slots: [PacketSlot; 16] = [const { PacketSlot::invalid() }; 16];
    let (write_index, read_index) = (AtomicU64::new(0), AtomicU64::new(0));
    let ring = Ring::new(
        &slots,
        &write_index,
        &read_index,
        FnDoorbell(|id: u64| doorbell.bind(&host).store(id as i64, StoreOrder::Release)),
    )
    .unwrap();

    thread::scope(|sc| {
        sc.spawn(|| {
            let host = FutexHost::new();
            let mut pp = ring.packet_processor().unwrap();
            for expected_id in 0..DISPATCHES {
                let fetched = pp.next(|pp, seen| {
                    if let Poll::Empty = seen {
                        // Sleep until the doorbell says this packet is out.
                        let want = pp.read_index() as i64;
                        let r = doorbell.bind(&host).wait_with_policy(
                            Condition::Gte,
                            want,
                            TEN_SECONDS,
                            WaitState::Blocked,
                            LoadOrder::Acquire,
                            &WaitPolicy::BLOCK_AT_ONCE,
                        );
                        assert!(
                            matches!(r, Ok(WaitOutcome::Satisfied(_))),
                            "doorbell wait: {r:?}"
                        );
                    }
                });
                assert_eq!(fetched.id, expected_id);
                let Ok(Packet::KernelDispatch(p)) = fetched.packet else {
                    panic!("packet {expected_id}: {:?}", fetched.packet);
                };
                // The pool checks the handle is one of its allocated
                // signals: no `unsafe`, and a forged or freed one is an error.
                let completion = COMPLETIONS.lookup(p.completion_signal.handle).unwrap();
                completion.bind(&host).subtract(1, RmwOrder::Release);
                pp.complete(fetched.completion).unwrap();
            }
        });

        let mut submitted = 0u64;
        while submitted < DISPATCHES {
            let batch: Vec<_> = (0..BATCH)
                .map(|_| COMPLETIONS.allocate(1).unwrap())
                .collect();
            let mut res = ring.reserve(BATCH as u64, thread::yield_now).unwrap();
            for s in &batch {
                let mut p = KernelDispatchPacket::new(0x1000, submitted, [256, 1, 1], [64, 1, 1]);
                p.completion_signal = SignalHandle { handle: s.handle() };
                res.push(&p).unwrap();
                submitted += 1;
            }
            res.finish(); // rings the doorbell signal
            // Wait for the batch as HIP would: any completion, repeatedly.
            let mut pending: Vec<_> = batch.iter().map(|s| &**s).collect();
            while !pending.is_empty() {
                let entries: Vec<_> = pending
                    .iter()
                    .map(|&signal| WaitAnyEntry {
                        signal,
                        condition: Condition::Eq,
                        compare_value: 0,
                    })
                    .collect();
                let r = wait_any_with_policy(
                    &entries,
                    TEN_SECONDS,
                    WaitState::Blocked,
                    LoadOrder::Acquire,
                    &host,
                    &WaitPolicy::BLOCK_AT_ONCE,
                );
                let Ok(WaitAnyOutcome::Satisfied { index, value: 0 }) = r else {
                    panic!("completion wait after {submitted} dispatches: {r:?}");
                };
                pending.swap_remove(index);
            }
            drop(batch); // back to the pool
        }
    });
    assert_eq!(COMPLETIONS.in_use(), 0);
    assert_eq!(
        doorbell.bind(&host).load(LoadOrder::Acquire),
        DISPATCHES as i64 - 1
    );
    assert_eq!(doorbell.wake_state().waiters(), 0);
}
