//! Multi-producer stress: several threads push hundreds of thousands of
//! packets through a small ring (so it wraps and fills constantly), with both
//! reservation styles, random batch sizes and random barrier bits; one
//! packet-processor thread checks that every packet arrives exactly once,
//! in the slot it reserved, in reservation (packet-id) order.

use aql::doorbell::AtomicDoorbell;
use aql::queue::{PacketSlot, Poll, Ring};
use aql::*;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

const PRODUCERS: u64 = 4;
const PER_PRODUCER: u64 = 75_000;
const RING: usize = 8;

/// A tiny deterministic generator (xorshift) per producer.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn packet(producer: u64, seq: u64, id: u64, barrier: bool) -> KernelDispatchPacket {
    let mut p = KernelDispatchPacket::new(producer << 32 | seq, id, [128, 2, 1], [64, 2, 1]);
    p.header = p.header.with_barrier(barrier);
    p.private_segment_size = (seq as u32).wrapping_mul(2_654_435_761);
    p
}

#[test]
fn every_packet_arrives_exactly_once_in_reservation_order() {
    let slots: Vec<PacketSlot> = (0..RING).map(|_| PacketSlot::invalid()).collect();
    let (w, r, bell) = (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
    let ring = Ring::new(&slots, &w, &r, AtomicDoorbell(&bell)).unwrap();
    let total = PRODUCERS * PER_PRODUCER;

    std::thread::scope(|s| {
        for producer in 0..PRODUCERS {
            let ring = &ring;
            s.spawn(move || {
                let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (producer + 1));
                let mut seq = 0;
                while seq < PER_PRODUCER {
                    let batch = (1 + rng.next() % 3).min(PER_PRODUCER - seq);
                    let mut res = if producer % 2 == 0 {
                        ring.reserve(batch, std::thread::yield_now).unwrap()
                    } else {
                        loop {
                            match ring.try_reserve(batch) {
                                Ok(res) => break res,
                                Err(QueueError::Full { .. }) => std::thread::yield_now(),
                                Err(e) => panic!("unexpected {e}"),
                            }
                        }
                    };
                    for _ in 0..batch {
                        let barrier = rng.next() % 16 == 0;
                        let id = res.next_id();
                        assert_eq!(res.push(&packet(producer, seq, id, barrier)), Ok(id));
                        seq += 1;
                    }
                    res.finish();
                }
            });
        }

        // The packet processor.
        let mut pp = ring.packet_processor().unwrap();
        let mut next_seq = [0u64; PRODUCERS as usize];
        let mut in_flight = VecDeque::new();
        let mut expected_id = 0;
        let mut barriers_held = 0u64;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
        while expected_id < total {
            assert!(
                std::time::Instant::now() < deadline,
                "stalled at packet {expected_id}: write index {}, read index {}",
                ring.load_write_index(aql::queue::LoadOrder::Relaxed),
                ring.load_read_index(aql::queue::LoadOrder::Relaxed)
            );
            match pp.poll() {
                Poll::Empty => std::thread::yield_now(),
                Poll::Barrier { in_flight: n } => {
                    assert_eq!(n, in_flight.len() as u64);
                    barriers_held += 1;
                    while let Some(c) = in_flight.pop_front() {
                        pp.complete(c).unwrap();
                    }
                }
                Poll::Ready(f) => {
                    assert_eq!(f.id, expected_id, "packets come out in packet-id order");
                    let p = match f.packet {
                        Ok(Packet::KernelDispatch(p)) => p,
                        other => panic!("packet {} decoded as {other:?}", f.id),
                    };
                    assert_eq!(
                        p.kernarg_address, f.id,
                        "packet landed in the slot it reserved"
                    );
                    let (producer, seq) = (p.kernel_object >> 32, p.kernel_object & 0xffff_ffff);
                    assert_eq!(
                        seq, next_seq[producer as usize],
                        "producer {producer}: lost or repeated packet"
                    );
                    assert_eq!(
                        p,
                        packet(producer, seq, f.id, p.header.barrier()),
                        "body intact"
                    );
                    next_seq[producer as usize] += 1;
                    expected_id += 1;
                    in_flight.push_back(f.completion);
                    if in_flight.len() > 3 {
                        pp.complete(in_flight.pop_front().unwrap()).unwrap();
                    }
                }
            }
        }
        while let Some(c) = in_flight.pop_front() {
            pp.complete(c).unwrap();
        }
        assert_eq!(next_seq, [PER_PRODUCER; PRODUCERS as usize]);
        assert!(barriers_held > 0, "the barrier path was exercised");
        assert!(
            matches!(pp.poll(), Poll::Empty),
            "nothing beyond the last packet"
        );
    });
    assert_eq!(w.load(Ordering::Relaxed), total);
    assert_eq!(r.load(Ordering::Relaxed), total);
    assert!(bell.load(Ordering::Relaxed) < total);
}
