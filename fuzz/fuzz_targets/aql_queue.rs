//! A packet processor and a producer over a ring whose memory is arbitrary
//! bytes (what a hypervisor inspecting a guest's queue faces): nothing may
//! panic, every packet that decodes re-encodes to the words it came from,
//! and the processor never consumes past what it was shown.
#![no_main]

use aql::doorbell::NoDoorbell;
use aql::queue::{PacketSlot, Poll, Ring};
use aql::{KernelDispatchPacket, Packet, QueueError};
use libfuzzer_sys::fuzz_target;
use std::sync::atomic::AtomicU64;

fuzz_target!(|data: &[u8]| {
    if data.len() < 16 {
        return;
    }
    let (idx, body) = data.split_at(16);
    let write = u64::from_le_bytes(idx[..8].try_into().unwrap());
    let read = u64::from_le_bytes(idx[8..].try_into().unwrap());
    let slots: Vec<PacketSlot> = body
        .chunks_exact(64)
        .take(8)
        .map(|c| {
            let mut w = [0u32; 16];
            for (i, x) in c.chunks_exact(4).enumerate() {
                w[i] = u32::from_le_bytes(x.try_into().unwrap());
            }
            PacketSlot::from_words(w)
        })
        .collect();
    // The largest power of two that fits (a ring of 0 slots is refused).
    let n = match slots.len() {
        0 => 0,
        len => 1 << (usize::BITS - 1 - len.leading_zeros()),
    };
    let (w, r) = (AtomicU64::new(write), AtomicU64::new(read));
    let Ok(ring) = Ring::new(&slots[..n], &w, &r, NoDoorbell) else {
        return;
    };
    {
        let mut pp = ring.packet_processor().unwrap();
        for _ in 0..2 * n {
            match pp.poll() {
                Poll::Ready(f) => {
                    if let Ok(p) = &f.packet {
                        assert_eq!(p.to_words(), f.words);
                    }
                    let decoded: Result<Packet, _> = Packet::decode(&f.words);
                    assert_eq!(decoded, f.packet);
                    pp.complete(f.completion).unwrap();
                }
                Poll::Barrier { .. } | Poll::Empty => break,
            }
        }
    }
    match ring.try_reserve(1) {
        Ok(mut res) => {
            let id = res.next_id();
            assert_eq!(
                res.push(&KernelDispatchPacket::new(1, 2, [1, 1, 1], [1, 1, 1])),
                Ok(id)
            );
        }
        Err(QueueError::Full { .. } | QueueError::CorruptIndices { .. }) => {}
        Err(e) => panic!("unexpected {e}"),
    }
});
