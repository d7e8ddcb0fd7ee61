//! The queue ring, single-threaded: reservation rules, publication,
//! consumption, the barrier bit, doorbells, bad indices.

use aql::doorbell::{AtomicDoorbell, FnDoorbell, NoDoorbell};
use aql::queue::{AmdQueue, LoadOrder, PacketSlot, Poll, Ring, RmwOrder, StoreOrder};
use aql::*;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

fn slots<const N: usize>() -> [PacketSlot; N] {
    [const { PacketSlot::invalid() }; N]
}

fn dispatch(tag: u64) -> KernelDispatchPacket {
    KernelDispatchPacket::new(0x1000, tag, [64, 1, 1], [64, 1, 1])
}

fn expect_ready(p: Poll) -> aql::queue::Fetched {
    match p {
        Poll::Ready(f) => f,
        other => panic!("expected a packet, got {other:?}"),
    }
}

#[test]
fn ring_size_must_be_a_power_of_two() {
    let s: [PacketSlot; 6] = slots();
    let (w, r) = (AtomicU64::new(0), AtomicU64::new(0));
    assert_eq!(
        Ring::new(&s, &w, &r, NoDoorbell).unwrap_err(),
        QueueError::SizeNotPowerOfTwo(6)
    );
    assert_eq!(
        Ring::new(&s[..0], &w, &r, NoDoorbell).unwrap_err(),
        QueueError::SizeNotPowerOfTwo(0)
    );
    assert!(Ring::new(&s[..4], &w, &r, NoDoorbell).is_ok());
}

#[test]
fn publish_then_consume_in_order() {
    let s: [PacketSlot; 4] = slots();
    let (w, r, bell) = (
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(u64::MAX),
    );
    let ring = Ring::new(&s, &w, &r, AtomicDoorbell(&bell)).unwrap();
    let mut pp = ring.packet_processor().unwrap();
    assert!(
        ring.packet_processor().is_none(),
        "one packet processor per ring"
    );
    assert!(matches!(pp.poll(), Poll::Empty));

    let mut res = ring.try_reserve(3).unwrap();
    assert_eq!(res.first_id(), 0);
    assert_eq!(res.push(&dispatch(10)), Ok(0));
    assert_eq!(res.push(&dispatch(11)), Ok(1));
    assert_eq!(res.push(&dispatch(12)), Ok(2));
    assert_eq!(
        res.push(&dispatch(13)),
        Err(QueueError::ReservationExhausted { count: 3 })
    );
    assert_eq!(
        bell.load(Ordering::Relaxed),
        u64::MAX,
        "doorbell rings when the reservation ends"
    );
    assert_eq!(res.finish(), 2);
    assert_eq!(bell.load(Ordering::Relaxed), 2);
    assert_eq!(ring.load_write_index(LoadOrder::Acquire), 3);

    for i in 0..3 {
        let f = expect_ready(pp.poll());
        assert_eq!(f.id, i);
        assert_eq!(f.packet, Ok(Packet::KernelDispatch(dispatch(10 + i))));
        assert!(
            ring.slot(i).header().is_invalid(),
            "consumed slot is INVALID again"
        );
        assert_eq!(ring.load_read_index(LoadOrder::Acquire), i + 1);
        pp.complete(f.completion).unwrap();
    }
    assert!(matches!(pp.poll(), Poll::Empty));
}

#[test]
fn a_full_ring_is_never_overwritten() {
    let s: [PacketSlot; 4] = slots();
    let (w, r) = (AtomicU64::new(0), AtomicU64::new(0));
    let ring = Ring::new(&s, &w, &r, NoDoorbell).unwrap();
    let mut pp = ring.packet_processor().unwrap();
    let mut res = ring.try_reserve(4).unwrap();
    for i in 0..4 {
        res.push(&dispatch(i)).unwrap();
    }
    drop(res);
    assert_eq!(
        ring.try_reserve(1).err(),
        Some(QueueError::Full { count: 1, free: 0 })
    );
    assert_eq!(
        ring.try_reserve(5).err(),
        Some(QueueError::ReservationTooLarge { count: 5, size: 4 })
    );
    assert_eq!(ring.try_reserve(0).err(), Some(QueueError::ZeroReservation));
    assert_eq!(
        ring.load_write_index(LoadOrder::Relaxed),
        4,
        "a failed reservation changes nothing"
    );

    // The fetch-add style waits: it may only return once slot 4 (= slot 0) is free.
    let waited = RefCell::new(0);
    let consumed = RefCell::new(Vec::new());
    let res = ring
        .reserve(1, || {
            *waited.borrow_mut() += 1;
            if let Poll::Ready(f) = pp.poll() {
                consumed.borrow_mut().push(f.packet.unwrap());
                pp.complete(f.completion).unwrap();
            }
        })
        .unwrap();
    assert_eq!(res.first_id(), 4);
    assert_eq!(
        *waited.borrow(),
        1,
        "waited until exactly one packet was consumed"
    );
    assert_eq!(
        consumed.borrow().as_slice(),
        &[Packet::KernelDispatch(dispatch(0))]
    );
    drop(res);
}

#[test]
fn dropped_reservation_fills_holes_with_noops() {
    let s: [PacketSlot; 8] = slots();
    let (w, r) = (AtomicU64::new(0), AtomicU64::new(0));
    let rung = RefCell::new(Vec::new());
    let ring = Ring::new(&s, &w, &r, FnDoorbell(|id| rung.borrow_mut().push(id))).unwrap();
    let mut pp = ring.packet_processor().unwrap();
    let mut res = ring.reserve(3, || unreachable!()).unwrap();
    res.push(&dispatch(1)).unwrap();
    drop(res);
    assert_eq!(rung.borrow().as_slice(), &[2]);
    let first = expect_ready(pp.poll());
    assert!(matches!(first.packet, Ok(Packet::KernelDispatch(_))));
    for id in 1..3 {
        let f = expect_ready(pp.poll());
        assert_eq!(f.id, id);
        match f.packet {
            Ok(Packet::BarrierAnd(b)) => {
                assert_eq!(b.dependencies().count(), 0);
                assert!(!b.header.barrier());
                assert!(b.completion_signal.is_null());
            }
            other => panic!("expected a no-op barrier, got {other:?}"),
        }
        pp.complete(f.completion).unwrap();
    }
    pp.complete(first.completion).unwrap();
}

#[test]
fn barrier_bit_waits_for_earlier_packets() {
    let s: [PacketSlot; 8] = slots();
    let (w, r) = (AtomicU64::new(0), AtomicU64::new(0));
    let ring = Ring::new(&s, &w, &r, NoDoorbell).unwrap();
    let mut pp = ring.packet_processor().unwrap();
    let mut res = ring.try_reserve(4).unwrap();
    res.push(&dispatch(0)).unwrap();
    res.push(&dispatch(1)).unwrap();
    let mut with_barrier = dispatch(2);
    with_barrier.header = with_barrier.header.with_barrier(true);
    res.push(&with_barrier).unwrap();
    res.push(&dispatch(3)).unwrap();
    drop(res);

    let a = expect_ready(pp.poll());
    let b = expect_ready(pp.poll());
    assert!(matches!(pp.poll(), Poll::Barrier { in_flight: 2 }));
    pp.complete(b.completion).unwrap();
    assert!(matches!(pp.poll(), Poll::Barrier { in_flight: 1 }));
    assert_eq!(
        ring.load_read_index(LoadOrder::Relaxed),
        2,
        "the barrier packet is not consumed"
    );
    pp.complete(a.completion).unwrap();
    let c = expect_ready(pp.poll());
    assert_eq!(c.id, 2);
    // A packet without the barrier bit starts while the barrier packet runs.
    let d = expect_ready(pp.poll());
    assert_eq!(d.id, 3);
    assert_eq!(pp.in_flight(), 2);
    pp.complete(c.completion).unwrap();
    pp.complete(d.completion).unwrap();
}

#[test]
fn malformed_packets_are_handed_out_as_errors_and_consumed() {
    let s: [PacketSlot; 4] = slots();
    let (w, r) = (AtomicU64::new(0), AtomicU64::new(0));
    let ring = Ring::new(&s, &w, &r, NoDoorbell).unwrap();
    let mut pp = ring.packet_processor().unwrap();
    let mut res = ring.try_reserve(2).unwrap();
    let mut words = dispatch(0).to_words();
    words[0] = (words[0] & 0xffff_ff00) | 0x77;
    res.push_words(&words).unwrap();
    assert_eq!(
        res.push_words(&[1; 16]),
        Err(QueueError::PublishInvalid),
        "INVALID header refused"
    );
    res.push(&dispatch(1)).unwrap();
    drop(res);
    let bad = expect_ready(pp.poll());
    assert_eq!(bad.packet, Err(PacketError::UnknownPacketType(0x77)));
    assert_eq!(bad.words, words);
    pp.complete(bad.completion).unwrap();
    let good = expect_ready(pp.poll());
    assert!(good.packet.is_ok());
    pp.complete(good.completion).unwrap();
}

#[test]
fn corrupt_indices_are_reported_not_trusted() {
    let s: [PacketSlot; 4] = slots();
    let (w, r) = (AtomicU64::new(2), AtomicU64::new(9));
    let ring = Ring::new(&s, &w, &r, NoDoorbell).unwrap();
    assert_eq!(
        ring.try_reserve(1).err(),
        Some(QueueError::CorruptIndices {
            write_index: 2,
            read_index: 9
        })
    );
}

#[test]
fn hsa_index_api() {
    let s: [PacketSlot; 4] = slots();
    let (w, r) = (AtomicU64::new(0), AtomicU64::new(0));
    let ring = Ring::new(&s, &w, &r, NoDoorbell).unwrap();
    assert_eq!(ring.add_write_index(2, RmwOrder::AcqRel), 0);
    assert_eq!(ring.cas_write_index(2, 3, RmwOrder::Release), 2);
    assert_eq!(
        ring.cas_write_index(2, 9, RmwOrder::Acquire),
        3,
        "failed CAS returns the value seen"
    );
    ring.store_write_index(1, StoreOrder::Release);
    assert_eq!(ring.load_write_index(LoadOrder::Relaxed), 1);
    assert_eq!(ring.load_read_index(LoadOrder::Relaxed), 0);
}

#[test]
fn ring_over_an_amd_queue_uses_its_dispatch_ids() {
    let s: [PacketSlot; 8] = slots();
    let mut q = AmdQueue::zeroed();
    q.hsa_queue.size = 8;
    assert_eq!(
        Ring::from_amd_queue(&q, &s[..4], NoDoorbell).err(),
        Some(QueueError::SizeMismatch {
            slots: 4,
            queue_size: 8
        })
    );
    let ring = Ring::from_amd_queue(&q, &s, NoDoorbell).unwrap();
    let mut pp = ring.packet_processor().unwrap();
    drop(ring.try_reserve(1).unwrap());
    let f = expect_ready(pp.poll());
    pp.complete(f.completion).unwrap();
    drop(pp);
    assert_eq!(q.write_dispatch_id.load(Ordering::Relaxed), 1);
    assert_eq!(q.read_dispatch_id.load(Ordering::Relaxed), 1);
}

/// A completion token names the packet processor that handed it out: given
/// to another processor (of another ring, or a later processor of the same
/// ring) it is refused with a typed error, and the other processor's
/// in-flight count, which its barrier packets wait on, is untouched.
#[test]
fn a_completion_token_of_another_processor_is_refused() {
    let (s1, s2): ([PacketSlot; 4], [PacketSlot; 4]) = (slots(), slots());
    let (w1, r1) = (AtomicU64::new(0), AtomicU64::new(0));
    let (w2, r2) = (AtomicU64::new(0), AtomicU64::new(0));
    let ring1 = Ring::new(&s1, &w1, &r1, NoDoorbell).unwrap();
    let ring2 = Ring::new(&s2, &w2, &r2, NoDoorbell).unwrap();
    let mut with_barrier = dispatch(1);
    with_barrier.header = with_barrier.header.with_barrier(true);
    {
        let mut res = ring2.try_reserve(2).unwrap();
        res.push(&dispatch(0)).unwrap();
        res.push(&with_barrier).unwrap();
    }
    ring1.try_reserve(1).unwrap().push(&dispatch(7)).unwrap();

    let mut pp1 = ring1.packet_processor().unwrap();
    let mut pp2 = ring2.packet_processor().unwrap();
    assert_ne!(pp1.processor_id(), pp2.processor_id());
    let own = expect_ready(pp2.poll());
    let foreign = expect_ready(pp1.poll());
    assert!(matches!(pp2.poll(), Poll::Barrier { in_flight: 1 }));

    let r = pp2.complete(foreign.completion);
    // The barrier packet must still wait for packet 0 of ring 2.
    assert!(matches!(pp2.poll(), Poll::Barrier { in_flight: 1 }));
    assert_eq!(pp2.in_flight(), 1);
    assert_eq!(pp1.in_flight(), 1, "the token went nowhere");
    let err = r.unwrap_err();
    assert_eq!(
        err,
        aql::error::CompletionError::ForeignToken {
            packet_id: 0,
            token_processor: pp1.processor_id(),
            processor: pp2.processor_id(),
        }
    );
    let msg = err.to_string();
    assert!(
        msg.contains("packet 0") && msg.contains("another packet processor"),
        "{msg}"
    );

    assert_eq!(pp2.complete(own.completion), Ok(()));
    let barrier = expect_ready(pp2.poll());
    assert_eq!(barrier.id, 1);
    assert_eq!(pp2.complete(barrier.completion), Ok(()));
}

/// A token outliving its processor does not complete a packet of the next
/// processor of the same ring.
#[test]
fn a_token_of_an_earlier_processor_of_the_same_ring_is_refused() {
    let s: [PacketSlot; 4] = slots();
    let (w, r) = (AtomicU64::new(0), AtomicU64::new(0));
    let ring = Ring::new(&s, &w, &r, NoDoorbell).unwrap();
    let mut with_barrier = dispatch(2);
    with_barrier.header = with_barrier.header.with_barrier(true);
    {
        let mut res = ring.try_reserve(3).unwrap();
        res.push(&dispatch(0)).unwrap();
        res.push(&dispatch(1)).unwrap();
        res.push(&with_barrier).unwrap();
    }
    let (old_id, stale) = {
        let mut first = ring.packet_processor().unwrap();
        (first.processor_id(), expect_ready(first.poll()).completion)
    };
    let mut second = ring.packet_processor().unwrap();
    assert_ne!(second.processor_id(), old_id);
    let one = expect_ready(second.poll());
    assert_eq!(one.id, 1);
    assert!(matches!(second.poll(), Poll::Barrier { in_flight: 1 }));
    assert_eq!(
        second.complete(stale),
        Err(aql::error::CompletionError::ForeignToken {
            packet_id: 0,
            token_processor: old_id,
            processor: second.processor_id(),
        })
    );
    assert!(matches!(second.poll(), Poll::Barrier { in_flight: 1 }));
    second.complete(one.completion).unwrap();
    assert_eq!(expect_ready(second.poll()).id, 2);
}
