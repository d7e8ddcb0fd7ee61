//! `loom` model tests of the ring's publish / consume protocol.
//!
//! Run with `RUSTFLAGS="--cfg loom" cargo test --release -p aql --test loom`.
//! loom explores the interleavings (and the weak-memory outcomes of the
//! relaxed body writes) of producers and the packet processor, and checks
//! that every packet is consumed exactly once, in order, with the body its
//! producer wrote, and that a slot is never overwritten before it is consumed.
#![cfg(loom)]

use aql::doorbell::NoDoorbell;
use aql::queue::{PacketSlot, Poll, Ring};
use aql::sync::AtomicU64;
use aql::*;
use loom::sync::Arc;

struct Shared {
    slots: Vec<PacketSlot>,
    write: AtomicU64,
    read: AtomicU64,
}

impl Shared {
    fn new(size: usize) -> Arc<Self> {
        Arc::new(Self {
            slots: (0..size).map(|_| PacketSlot::invalid()).collect(),
            write: AtomicU64::new(0),
            read: AtomicU64::new(0),
        })
    }

    fn ring(&self) -> Ring<'_, NoDoorbell> {
        Ring::new(&self.slots, &self.write, &self.read, NoDoorbell).unwrap()
    }
}

fn packet(tag: u64) -> KernelDispatchPacket {
    KernelDispatchPacket::new(tag, tag.wrapping_mul(0x9e37_79b9), [1, 1, 1], [1, 1, 1])
}

fn tag_of(p: &Packet) -> u64 {
    match p {
        Packet::KernelDispatch(k) => {
            assert_eq!(*k, packet(k.kernel_object), "body torn or stale");
            k.kernel_object
        }
        other => panic!("unexpected packet {other:?}"),
    }
}

/// Consumes `n` packets, returning their tags in consumption order.
fn consume(shared: &Shared, n: usize) -> Vec<u64> {
    let ring = shared.ring();
    let mut pp = ring.packet_processor().unwrap();
    let mut tags = Vec::new();
    while tags.len() < n {
        match pp.poll() {
            Poll::Ready(f) => {
                tags.push(tag_of(&f.packet.expect("valid packet")));
                pp.complete(f.completion).unwrap();
            }
            Poll::Empty | Poll::Barrier { .. } => loom::thread::yield_now(),
        }
    }
    tags
}

fn builder() -> loom::model::Builder {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(2);
    }
    b
}

#[test]
fn single_producer_wraps_a_two_slot_ring() {
    builder().check(|| {
        let shared = Shared::new(2);
        let producer = {
            let shared = shared.clone();
            loom::thread::spawn(move || {
                let ring = shared.ring();
                for tag in 1..=3u64 {
                    // The third reservation must wait for slot 0 to be consumed.
                    let mut res = ring.reserve(1, loom::thread::yield_now).unwrap();
                    res.push(&packet(tag)).unwrap();
                }
            })
        };
        let tags = consume(&shared, 3);
        producer.join().unwrap();
        assert_eq!(tags, [1, 2, 3]);
    });
}

#[test]
fn two_producers_each_packet_exactly_once() {
    builder().check(|| {
        let shared = Shared::new(2);
        let producers: Vec<_> = [10u64, 20]
            .into_iter()
            .map(|tag| {
                let shared = shared.clone();
                loom::thread::spawn(move || {
                    let ring = shared.ring();
                    loop {
                        match ring.try_reserve(1) {
                            Ok(mut res) => {
                                res.push(&packet(tag)).unwrap();
                                return;
                            }
                            Err(QueueError::Full { .. }) => loom::thread::yield_now(),
                            Err(e) => panic!("{e}"),
                        }
                    }
                })
            })
            .collect();
        let mut tags = consume(&shared, 2);
        for p in producers {
            p.join().unwrap();
        }
        tags.sort();
        assert_eq!(tags, [10, 20]);
    });
}

#[test]
fn fetch_add_and_cas_producers_share_a_ring() {
    builder().check(|| {
        let shared = Shared::new(2);
        let a = {
            let shared = shared.clone();
            loom::thread::spawn(move || {
                let ring = shared.ring();
                let mut res = ring.reserve(1, loom::thread::yield_now).unwrap();
                res.push(&packet(1)).unwrap();
            })
        };
        let b = {
            let shared = shared.clone();
            loom::thread::spawn(move || {
                let ring = shared.ring();
                let mut res = ring.try_reserve(1).unwrap();
                res.push(&packet(2)).unwrap();
            })
        };
        let mut tags = consume(&shared, 2);
        a.join().unwrap();
        b.join().unwrap();
        tags.sort();
        assert_eq!(tags, [1, 2]);
    });
}
