//! A client that only stores to its doorbell wakes a sleeping engine at
//! once: the doorbell watch (`sim/src/doorbell.rs`, userfaultfd write
//! protection of the client's doorbell mappings).

mod support;

use std::sync::Arc;

use sim::{SimBuilder, SimDevice};
use support::*;

fn client(watch: bool) -> Client {
    let dev = SimBuilder::new().doorbell_watch(watch).build();
    dev.set_shader_core(Arc::new(Counter));
    Client::with(dev)
}

fn device(c: &Client) -> &SimDevice {
    c.kfd.device()
}

#[test]
fn a_doorbell_store_wakes_the_sleeping_engine() {
    let c = client(true);
    assert!(
        device(&c).doorbell_watch_active(),
        "userfaultfd write protection of shared memory (Linux 5.19+) is available on the test machines"
    );
    let q = Queue::no_scratch(&c, false);
    let data = c.buffer(4096);
    let kernel = c.buffer(4096);
    for round in 0..3u64 {
        // The CP goes to sleep and arms the doorbell page.
        wait_until("the CP armed the doorbell page", || {
            device(&c).doorbells_armed(c.gpu_id)
        });
        let wakes = device(&c).doorbell_wakes();
        let done = signal(&data, 64 + 64 * round, 1);
        q.submit(dispatch_words(kernel.va, data.va, done));
        // The store faulted, the watch released the page and kicked the CP
        // (counted before the store could complete).
        assert!(device(&c).doorbell_wakes() > wakes, "round {round}");
        wait_zero(done);
    }
    // Counter added one per workgroup of each dispatch (4 each).
    assert_eq!(
        data.u32_at(0).load(std::sync::atomic::Ordering::Acquire),
        12
    );
}

#[test]
fn stores_from_many_threads_to_an_armed_page_all_complete() {
    let c = client(true);
    let queues: Vec<Queue> = (0..4).map(|_| Queue::no_scratch(&c, false)).collect();
    let data = c.buffer(4096);
    let kernel = c.buffer(4096);
    wait_until("the CP armed the doorbell page", || {
        device(&c).doorbells_armed(c.gpu_id)
    });
    std::thread::scope(|s| {
        for (i, q) in queues.iter().enumerate() {
            let (data, kernel) = (&data, &kernel);
            s.spawn(move || {
                for k in 0..8u64 {
                    let done = signal(data, 64 + 64 * (i as u64 * 8 + k), 1);
                    q.submit(dispatch_words(kernel.va, data.va, done));
                    wait_zero(done);
                }
            });
        }
    });
    assert_eq!(
        data.u32_at(0).load(std::sync::atomic::Ordering::Acquire),
        4 * 8 * 4
    );
}

#[test]
fn without_the_watch_the_engine_polls_and_still_completes() {
    let c = client(false);
    assert!(!device(&c).doorbell_watch_active());
    let q = Queue::no_scratch(&c, false);
    let data = c.buffer(4096);
    let kernel = c.buffer(4096);
    // Past the spin window the engine sleeps with its backoff, unarmed.
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!device(&c).doorbells_armed(c.gpu_id));
    let done = signal(&data, 64, 1);
    q.submit(dispatch_words(kernel.va, data.va, done));
    wait_zero(done);
    assert_eq!(device(&c).doorbell_wakes(), 0);
}

#[test]
fn a_doorbell_page_unmapped_and_mapped_again_is_watched() {
    let c = client(true);
    let mut q = Queue::no_scratch(&c, false);
    let data = c.buffer(4096);
    let kernel = c.buffer(4096);
    let done = signal(&data, 64, 1);
    q.submit(dispatch_words(kernel.va, data.va, done));
    wait_zero(done);
    // A second mapping of the page replaces the first, which is unmapped.
    q.page = c
        .kfd
        .map_doorbell_page(q.info.doorbell_offset, 8192)
        .unwrap();
    wait_until("the CP armed the doorbell page", || {
        device(&c).doorbells_armed(c.gpu_id)
    });
    let wakes = device(&c).doorbell_wakes();
    let done = signal(&data, 128, 1);
    q.submit(dispatch_words(kernel.va, data.va, done));
    assert!(device(&c).doorbell_wakes() > wakes);
    wait_zero(done);
}
