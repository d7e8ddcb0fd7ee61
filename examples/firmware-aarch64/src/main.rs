//! AQL on bare metal: an `amd_queue_t`, its ring and its signals in static
//! memory, a producer on core 0 and the `aql` packet processor on core 1 of
//! QEMU's `virt` machine (two Cortex-A72), no heap, no OS.
//!
//! Core 0 boots (`boot.rs`), sets up the queue, starts core 1 with PSCI
//! `CPU_ON`, and submits kernel dispatches, a barrier-AND, a barrier-OR, an
//! AMD barrier-value packet that waits for a signal core 0 sets later, a
//! malformed packet, and a last dispatch, through a ring of 4 slots (so it
//! waits for core 1 to free slots). Core 1 processes them and decrements
//! their completion signals. Core 0 waits on the signals, checks what the
//! kernels computed, and ends the machine through semihosting with status
//! 0 (all correct), 1 (wrong results), 2 (a wait timed out), 3 (a CPU
//! exception), 4 (setup failed) or 101 (a panic).
//!
//! Run: `cd examples/firmware-aarch64 && cargo run --release` (the runner in
//! `.cargo/config.toml` starts `qemu-system-aarch64 -M virt -cpu cortex-a72
//! -smp 2 -semihosting`).
#![no_std]
#![no_main]
#![deny(unsafe_code)]

mod agent;
mod boot;
mod console;
mod host;
mod memory;
mod psci;
mod semihosting;

use aql::doorbell::FnDoorbell;
use aql::queue::{AmdQueue, AmdQueueProperties, QueueFeatures, QueueType, Ring};
use aql::{
    AmdBarrierValuePacket, AqlPacket, BarrierAndPacket, BarrierOrPacket, KernelDispatchPacket,
    SignalCondition, SignalHandle,
};
use core::sync::atomic::Ordering;
use host::{Firmware, counter_frequency};
use memory::{BUFFERS, DOORBELL, ELEMENTS, KERNARGS, QUEUE, QUEUE_SIZE, RING, SIGNALS};
use signal_core::{Condition, LoadOrder, StoreOrder, WaitOutcome, WaitState};

fn sig(i: usize) -> SignalHandle {
    SignalHandle {
        handle: SIGNALS[i].handle(),
    }
}

fn fail(status: u32, what: core::fmt::Arguments<'_>) -> ! {
    println!("core 0: {what}");
    semihosting::exit(status)
}

/// Core 0 after `boot.rs`: the producer. `booted_el` is the exception level
/// QEMU started us at.
extern "C" fn primary_main(booted_el: u64) -> ! {
    let conduit = psci::Conduit::for_boot_el(booted_el);
    println!(
        "core 0: booted at EL{booted_el}, MMU on (identity map, RAM normal write-back), counter {} Hz",
        counter_frequency()
    );

    // Inputs: a[i] = i, b[i] = 2i.
    for (i, (a, b)) in BUFFERS[0].iter().zip(&BUFFERS[1]).enumerate() {
        a.store(i as u32, Ordering::Relaxed);
        b.store(2 * i as u32, Ordering::Relaxed);
    }
    let args = |k: usize, words: [u64; 4]| {
        for (w, v) in KERNARGS[k].iter().zip(words) {
            w.store(v, Ordering::Relaxed);
        }
    };
    let buf = memory::buffer_address;
    args(0, [buf(0), buf(1), buf(2), 0]); // c = a + b
    args(1, [buf(2), 0, buf(3), 3]); // d = 3c
    args(2, [buf(2), buf(3), buf(4), 0]); // e = c + d

    // The queue descriptor, as ROCr fills it for a user-mode queue.
    let mut q = AmdQueue::zeroed();
    q.hsa_queue.type_ = QueueType::Single as u32;
    q.hsa_queue.features = QueueFeatures::KERNEL_DISPATCH.bits();
    q.hsa_queue.base_address = RING.as_ptr().addr() as u64;
    q.hsa_queue.doorbell_signal = SignalHandle {
        handle: DOORBELL.handle(),
    };
    q.hsa_queue.size = QUEUE_SIZE as u32;
    q.hsa_queue.id = 1;
    q.read_dispatch_id_field_base_byte_offset =
        core::mem::offset_of!(AmdQueue, read_dispatch_id) as u32;
    q.queue_properties = AmdQueueProperties::IS_PTR64.bits();
    let Some(queue) = QUEUE.init(q) else {
        fail(4, format_args!("queue set up twice"))
    };
    println!(
        "core 0: amd_queue_t at {:#x}, ring of {QUEUE_SIZE} packets at {:#x}",
        core::ptr::from_ref(queue).addr(),
        queue.hsa_queue.base_address
    );

    let entry = boot::secondary_start as *const () as usize as u64;
    if let Err(e) = psci::cpu_on(conduit, 1, entry, 1) {
        fail(
            4,
            format_args!(
                "PSCI CPU_ON core 1 via {} failed: {} ({})",
                conduit.name(),
                e.name(),
                e.0
            ),
        );
    }
    println!("core 0: PSCI CPU_ON core 1 via {}: SUCCESS", conduit.name());

    let doorbell = DOORBELL.bind(&Firmware);
    let ring = match Ring::from_amd_queue(
        queue,
        &RING,
        FnDoorbell(|id: u64| doorbell.store(id as i64, StoreOrder::Release)),
    ) {
        Ok(r) => r,
        Err(e) => fail(4, format_args!("bad queue: {e}")),
    };
    let kernel = memory::kernel_object;
    let kernarg = memory::kernarg_address;
    let wait = || host::wait_for_event();

    // Packets 0-3 fill the ring.
    let mut res = match ring.reserve(4, wait) {
        Ok(r) => r,
        Err(e) => fail(4, format_args!("reserve: {e}")),
    };
    let add = KernelDispatchPacket {
        completion_signal: sig(0),
        ..KernelDispatchPacket::new(
            kernel(memory::VECTOR_ADD),
            kernarg(0),
            [ELEMENTS as u32, 1, 1],
            [64, 1, 1],
        )
    };
    let mut scale = KernelDispatchPacket::new(
        kernel(memory::SCALE),
        kernarg(1),
        [ELEMENTS as u32, 1, 1],
        [32, 1, 1],
    );
    scale.header = scale.header.with_barrier(true); // reads c: after packet 0
    scale.completion_signal = sig(1);
    let null = SignalHandle::NULL;
    let and = BarrierAndPacket::new([sig(0), sig(1), null, null, null], sig(2));
    let or = BarrierOrPacket::new([sig(3), sig(2), null, null, null], sig(4));
    for r in [
        res.push(&add),
        res.push(&scale),
        res.push(&and),
        res.push(&or),
    ] {
        if let Err(e) = r {
            fail(4, format_args!("push: {e}"));
        }
    }
    let last = res.finish();
    println!(
        "core 0: published packets 0..={last} (2 dispatches, barrier-AND, barrier-OR), rang the doorbell"
    );

    // Packet 4 waits for S5 & 0xff == 42, which only core 0 sets, later;
    // packet 5 is malformed; packet 6 runs after the barrier-value.
    let value = AmdBarrierValuePacket::new(sig(5), SignalCondition::Eq, 42, 0xff, sig(6));
    let mut bad = KernelDispatchPacket::new(
        kernel(memory::VECTOR_ADD),
        kernarg(0),
        [32, 1, 1],
        [64, 1, 1],
    );
    bad.completion_signal = sig(7);
    let last_add = KernelDispatchPacket {
        completion_signal: sig(7),
        ..KernelDispatchPacket::new(
            kernel(memory::VECTOR_ADD),
            kernarg(2),
            [ELEMENTS as u32, 1, 1],
            [64, 1, 1],
        )
    };
    let mut res = match ring.reserve(3, wait) {
        Ok(r) => r,
        Err(e) => fail(4, format_args!("reserve: {e}")),
    };
    let first = res.first_id();
    for r in [
        res.push(&value),
        res.push_words(&bad.to_words()),
        res.push(&last_add),
    ] {
        if let Err(e) = r {
            fail(4, format_args!("push: {e}"));
        }
    }
    let last = res.finish();
    println!(
        "core 0: published packets {first}..={last} (barrier-value on S5, a malformed dispatch, a dispatch) once core 1 had freed their slots"
    );

    let timeout = 5 * counter_frequency();
    let wait_zero = |i: usize| match SIGNALS[i].bind(&Firmware).wait(
        Condition::Eq,
        0,
        timeout,
        WaitState::Blocked,
        LoadOrder::Acquire,
    ) {
        Ok(WaitOutcome::Satisfied(_)) => {}
        Ok(other) => fail(2, format_args!("waiting for S{i} == 0: {other:?}")),
        Err(e) => fail(2, format_args!("waiting for S{i} == 0: {e}")),
    };
    wait_zero(4);
    // Core 1 has taken packet 4 out of the ring once the read index is past
    // it: it is then waiting on S5, which only this store satisfies.
    while ring.load_read_index(aql::queue::LoadOrder::Acquire) <= first {
        host::wait_for_event();
    }
    println!(
        "core 0: S4 is 0 (barrier-OR completed), read index {}: core 1 holds packet {first}; storing 0x12a to S5",
        ring.load_read_index(aql::queue::LoadOrder::Acquire)
    );
    SIGNALS[5].bind(&Firmware).store(0x12a, StoreOrder::Release);
    wait_zero(6);
    wait_zero(7);

    let mut wrong = 0;
    for (n, expected) in [(2, 3), (3, 9), (4, 12)] {
        for (i, v) in BUFFERS[n].iter().enumerate() {
            wrong += usize::from(v.load(Ordering::Relaxed) != expected * i as u32);
        }
    }
    let processed = agent::PROCESSED.load(Ordering::Relaxed);
    let rejected = agent::REJECTED.load(Ordering::Relaxed);
    println!(
        "core 0: queue write index {}, read index {}; {processed} packets processed, {rejected} rejected",
        queue.write_dispatch_id.load(Ordering::Acquire),
        queue.read_dispatch_id.load(Ordering::Acquire)
    );
    if wrong != 0 {
        fail(1, format_args!("results: {wrong} wrong elements"));
    }
    println!("core 0: results: c = a + b, d = 3c, e = c + d correct for all {ELEMENTS} elements");
    println!("core 0: exit 0");
    semihosting::exit(0)
}

/// A core started by PSCI (`context_id` is its index) at `started_el`: the
/// packet processor.
extern "C" fn secondary_main(core: u64, started_el: u64) -> ! {
    println!("core {core}: started by PSCI at EL{started_el}, MMU on");
    agent::run()
}

/// Any CPU exception: say which and stop with status 3.
extern "C" fn exception(kind: u64, esr: u64, elr: u64, far: u64) -> ! {
    println!("exception: vector {kind}, ESR_EL1 {esr:#x}, ELR_EL1 {elr:#x}, FAR_EL1 {far:#x}");
    semihosting::exit(3)
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    println!("panic: {info}");
    semihosting::exit(101)
}
