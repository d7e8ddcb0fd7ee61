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

/// A 64-bit index kept as two 32-bit words, as `aql::sync::load_index` and
/// `store_index` read and write it where 64-bit atomics are emulated
/// (thumbv7em, riscv32imac). The writer takes the index across a 2^32
/// boundary, the only step where the words can disagree.
struct SplitIndex {
    lo: aql::sync::AtomicU32,
    hi: aql::sync::AtomicU32,
}

const BEFORE: u64 = 0xffff_ffff;
const AFTER: u64 = 0x1_0000_0000;

/// `store_index`'s writer: `store_split_u64` with release stores.
fn split_writer(s: &SplitIndex) {
    aql::sync::store_split_u64(&s.lo, &s.hi, AFTER, aql::sync::Ordering::Release);
}

/// A writer whose word stores are relaxed (portable-atomic's lock-based
/// fallback writes its words so, ordered only by its lock).
fn relaxed_split_writer(s: &SplitIndex) {
    aql::sync::store_split_u64(&s.lo, &s.hi, AFTER, aql::sync::Ordering::Relaxed);
}

fn split_index() -> Arc<SplitIndex> {
    Arc::new(SplitIndex {
        lo: aql::sync::AtomicU32::new(BEFORE as u32),
        hi: aql::sync::AtomicU32::new((BEFORE >> 32) as u32),
    })
}

#[test]
fn high_low_high_never_reads_ahead_of_the_index() {
    builder().check(|| {
        let s = split_index();
        let w = {
            let s = s.clone();
            loom::thread::spawn(move || split_writer(&s))
        };
        let v = aql::sync::load_split_u64(&s.lo, &s.hi, aql::sync::Ordering::Acquire);
        // The old value, the new one, or the writer's own intermediate
        // (high word old, low word new): never more than the new value.
        assert!(v == BEFORE || v == AFTER || v == 0, "read {v:#x}");
        w.join().unwrap();
    });
}

/// Runs `read` against `writer` in every interleaving and says whether
/// any read came out ahead of the value written.
fn can_read_ahead(writer: fn(&SplitIndex), read: fn(&SplitIndex) -> u64) -> bool {
    use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
    static AHEAD: AtomicBool = AtomicBool::new(false);
    AHEAD.store(false, SeqCst);
    builder().check(move || {
        let s = split_index();
        let w = {
            let s = s.clone();
            loom::thread::spawn(move || writer(&s))
        };
        if read(&s) > AFTER {
            AHEAD.store(true, SeqCst);
        }
        w.join().unwrap();
    });
    AHEAD.load(SeqCst)
}

/// The controls: reading low then high once (portable-atomic's own order,
/// which only its lock validates, and another bus master does not take
/// it), or high-low-high against relaxed word stores, can return a value
/// 2^32 ahead. The model must find both, or it could not see the bugs the
/// protocol prevents.
#[test]
fn low_then_high_reads_and_relaxed_writers_can_run_ahead() {
    fn low_then_high(s: &SplitIndex) -> u64 {
        let lo = s.lo.load(aql::sync::Ordering::Acquire);
        let hi = s.hi.load(aql::sync::Ordering::Acquire);
        u64::from(hi) << 32 | u64::from(lo)
    }
    fn high_low_high(s: &SplitIndex) -> u64 {
        aql::sync::load_split_u64(&s.lo, &s.hi, aql::sync::Ordering::Acquire)
    }
    assert!(
        can_read_ahead(split_writer, low_then_high),
        "loom never saw the torn low-high read"
    );
    assert!(
        can_read_ahead(relaxed_split_writer, high_low_high),
        "loom never saw high-low-high torn by relaxed word stores"
    );
    assert!(!can_read_ahead(split_writer, high_low_high));
}
