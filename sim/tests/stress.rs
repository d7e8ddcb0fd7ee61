//! Stress: 4 queues, two producer threads each, many packets; every
//! completion is seen exactly once.

mod support;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use sim::SimDevice;
use support::*;

const QUEUES: usize = 4;
const THREADS_PER_QUEUE: usize = 2;
const PACKETS_PER_THREAD: usize = 4000;

#[test]
fn four_queues_many_packets_from_several_threads_complete_exactly_once() {
    let dev = SimDevice::default();
    dev.set_shader_core(Arc::new(Counter));
    let c = Client::with(dev);
    let queues: Vec<Queue> = (0..QUEUES)
        .map(|_| Queue::with_slots(&c, false, 256))
        .collect();
    let kernel = c.buffer(4096);
    // One workgroup counter per queue, one `amd_signal_t` (64 bytes) per packet.
    let counters = c.buffer(4096);
    let per_queue = THREADS_PER_QUEUE * PACKETS_PER_THREAD;
    let signals = c.buffer(QUEUES * per_queue * 64);
    std::thread::scope(|s| {
        for (qi, q) in queues.iter().enumerate() {
            for t in 0..THREADS_PER_QUEUE {
                let (kernel, counters, signals) = (&kernel, &counters, &signals);
                s.spawn(move || {
                    for i in 0..PACKETS_PER_THREAD {
                        let n = (qi * per_queue + t * PACKETS_PER_THREAD + i) as u64;
                        let done = signal(signals, n * 64, 1);
                        let mut p = dispatch_packet(kernel.va, counters.va + 64 * qi as u64, done);
                        p.grid_size_x = 64;
                        q.submit(zerocopy::transmute!(p));
                    }
                });
            }
        }
    });
    for (qi, q) in queues.iter().enumerate() {
        wait_until("every packet of the queue ran", || {
            c.kfd.device().queue_completed(q.info.queue_id) == Some(per_queue as u64)
        });
        assert_eq!(
            counters.u32_at(64 * qi as u64).load(Ordering::Acquire),
            per_queue as u32,
            "queue {qi}: one workgroup per packet"
        );
        assert_eq!(q.read_index(), per_queue as u64);
    }
    for n in 0..(QUEUES * per_queue) as u64 {
        // 1 -> 0 exactly once: a second decrement would leave -1.
        assert_eq!(
            signals.u64_at(n * 64 + 8).load(Ordering::Acquire),
            0,
            "signal {n}"
        );
    }
    for q in &queues {
        assert_eq!(c.kfd.device().queue_error(q.info.queue_id), None);
    }
}
