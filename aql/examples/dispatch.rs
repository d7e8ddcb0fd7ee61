//! The project's demo (`scripts/demo`): build real AQL packets for kernel
//! dispatches, submit them through a user-mode queue ring to a
//! packet-processor thread, and print what that thread processed.
//!
//! There is no GPU here, so the packet processor plays the agent: kernel
//! objects name host functions, kernel arguments live in a kernarg region,
//! buffers live in a "device memory" arena of atomics, and completion signals
//! are counters the processor decrements. Everything the queue sees is the
//! real thing: 64-byte AQL packets in an `amd_queue_t`-described ring,
//! published with one release store of the header, consumed in order with
//! the barrier bit honoured and every packet validated.

use aql::doorbell::AtomicDoorbell;
use aql::queue::{AmdQueue, PacketSlot, Poll, QueueFeatures, QueueType, Ring};
use aql::*;
use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, Ordering};

const QUEUE_SIZE: u32 = 16;
const N: u32 = 4096;

/// Kernel objects: in ROCr, the address of a kernel descriptor.
const KERNEL_VECTOR_ADD: u64 = 0x7f00_0000_1000;
const KERNEL_SAXPY: u64 = 0x7f00_0000_1040;

/// Device memory: a flat arena of 32-bit words; an "address" is a word index.
struct Memory(Vec<AtomicU32>);

impl Memory {
    fn load(&self, addr: u64) -> f32 {
        f32::from_bits(self.0[addr as usize].load(Ordering::Relaxed))
    }
    fn store(&self, addr: u64, v: f32) {
        self.0[addr as usize].store(v.to_bits(), Ordering::Relaxed);
    }
}

/// Completion signals: handle `h` is `signals[h - 1]` (handle 0 means none).
struct Signals(Vec<AtomicI64>);

impl Signals {
    fn get(&self, s: SignalHandle) -> Option<&AtomicI64> {
        (s.handle as usize)
            .checked_sub(1)
            .and_then(|i| self.0.get(i))
    }
}

fn kernel_name(object: u64) -> &'static str {
    match object {
        KERNEL_VECTOR_ADD => "vector_add",
        KERNEL_SAXPY => "saxpy",
        _ => "<unknown kernel object>",
    }
}

/// Runs one work-item of a dispatch. Kernel arguments are 64-bit words at
/// `kernarg_address` (a word index into `kernargs`).
fn run_work_item(p: &KernelDispatchPacket, kernargs: &[u64], mem: &Memory, gid: u64) {
    let args = &kernargs[p.kernarg_address as usize..];
    match p.kernel_object {
        KERNEL_VECTOR_ADD => mem.store(
            args[2] + gid,
            mem.load(args[0] + gid) + mem.load(args[1] + gid),
        ),
        KERNEL_SAXPY => {
            let alpha = f32::from_bits(args[0] as u32);
            mem.store(
                args[2] + gid,
                alpha * mem.load(args[1] + gid) + mem.load(args[2] + gid),
            );
        }
        _ => {}
    }
}

fn main() {
    // The queue: an amd_queue_t descriptor plus its ring of packet slots.
    let mut queue = AmdQueue::zeroed();
    queue.hsa_queue.type_ = QueueType::Multi as u32;
    queue.hsa_queue.features =
        (QueueFeatures::KERNEL_DISPATCH | QueueFeatures::AGENT_DISPATCH).bits();
    queue.hsa_queue.size = QUEUE_SIZE;
    queue.hsa_queue.id = 1;
    let slots: Vec<PacketSlot> = (0..QUEUE_SIZE).map(|_| PacketSlot::invalid()).collect();
    let doorbell = AtomicU64::new(u64::MAX);
    let ring = Ring::from_amd_queue(&queue, &slots, AtomicDoorbell(&doorbell)).expect("queue");

    // Device memory: a, b, c for vector_add, x for saxpy, d for a second vector_add.
    let n = u64::from(N);
    let (a, b, c, x, d) = (0, n, 2 * n, 3 * n, 4 * n);
    let mem = Memory((0..5 * N).map(|_| AtomicU32::new(0)).collect());
    for i in 0..u64::from(N) {
        mem.store(a + i, i as f32);
        mem.store(b + i, 2.0 * i as f32);
        mem.store(x + i, 1.0);
    }
    // Kernel arguments: vector_add(a, b, c) at word 0, saxpy at word 4,
    // vector_add(a, b, d) at word 8.
    let kernargs = vec![a, b, c, 0, u64::from(2.0f32.to_bits()), x, c, 0, a, b, d, 0];
    let signals = Signals((0..4).map(|_| AtomicI64::new(1)).collect());
    let sig = |h| SignalHandle { handle: h };

    println!("queue: amd_queue_t id 1, {QUEUE_SIZE} slots, type MULTI, kernel + agent dispatch");
    std::thread::scope(|s| {
        // The packet processor: what a GPU's command processor does.
        let processor = s.spawn(|| {
            let mut pp = ring.packet_processor().expect("one processor");
            let mut processed = 0;
            let mut rejected = 0;
            while processed + rejected < 6 {
                let f = pp.next(|_, poll| {
                    if let Poll::Empty = poll {
                        std::thread::yield_now();
                    }
                });
                let header = f.words[0] as u16;
                match &f.packet {
                    Ok(Packet::KernelDispatch(p)) => {
                        let [gx, gy, gz] = p.grid_size();
                        for gid in 0..u64::from(gx) * u64::from(gy) * u64::from(gz) {
                            run_work_item(p, &kernargs, &mem, gid);
                        }
                        println!(
                            "  processed packet {}: KERNEL_DISPATCH {} grid {:?} workgroup {:?} ({} workgroups, {} dims) kernarg @{} barrier={} header={header:#06x}",
                            f.id,
                            kernel_name(p.kernel_object),
                            p.grid_size(),
                            p.workgroup_size(),
                            p.workgroup_count().iter().product::<u32>(),
                            p.setup.dimensions().unwrap_or(0),
                            p.kernarg_address,
                            p.header.barrier(),
                        );
                    }
                    Ok(Packet::BarrierAnd(p)) => {
                        let deps: Vec<u64> = p.dependencies().map(|d| d.handle).collect();
                        for d in p.dependencies() {
                            let signal = signals.get(d).expect("known signal");
                            while signal.load(Ordering::Acquire) != 0 {
                                std::thread::yield_now();
                            }
                        }
                        println!("  processed packet {}: BARRIER_AND on signals {deps:?} (all 0)", f.id);
                    }
                    Ok(Packet::AgentDispatch(p)) => println!(
                        "  processed packet {}: AGENT_DISPATCH function {} args {:?} (no agent functions are registered; completed as a no-op)",
                        f.id, p.type_, p.arg
                    ),
                    Ok(other) => println!("  processed packet {}: {:?}", f.id, other.header().packet_type()),
                    Err(e) => {
                        rejected += 1;
                        println!(
                            "  rejected  packet {}: {e} (HSA status {:#x}, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT)",
                            f.id,
                            e.hsa_status()
                        );
                        pp.complete(f.completion).expect("a token of this packet processor");
                        continue;
                    }
                }
                if let Some(signal) = f.packet.as_ref().ok().and_then(|p| signals.get(p.completion_signal())) {
                    signal.fetch_sub(1, Ordering::Release);
                }
                pp.complete(f.completion).expect("a token of this packet processor");
                processed += 1;
            }
            (processed, rejected)
        });

        // The host: reserve slots, write packets, publish, ring the doorbell.
        let mut res = ring.reserve(3, std::thread::yield_now).expect("reserve");
        let add = KernelDispatchPacket {
            completion_signal: sig(1),
            ..KernelDispatchPacket::new(KERNEL_VECTOR_ADD, 0, [N, 1, 1], [256, 1, 1])
        };
        res.push(&add).unwrap();
        // saxpy reads c, so it must not start before vector_add completed.
        let mut saxpy = KernelDispatchPacket::new(KERNEL_SAXPY, 4, [N / 64, 64, 1], [16, 16, 1]);
        saxpy.header = saxpy.header.with_barrier(true);
        saxpy.completion_signal = sig(2);
        res.push(&saxpy).unwrap();
        let barrier = BarrierAndPacket::new(
            [
                sig(1),
                sig(2),
                SignalHandle::NULL,
                SignalHandle::NULL,
                SignalHandle::NULL,
            ],
            sig(3),
        );
        res.push(&barrier).unwrap();
        println!(
            "host: published packets {}..={}, ringing the doorbell",
            res.first_id(),
            res.first_id() + 2
        );
        res.finish();

        // A malformed dispatch (workgroup larger than the grid) and two more.
        let mut res = ring.try_reserve(3).expect("space");
        let bad = KernelDispatchPacket::new(KERNEL_VECTOR_ADD, 0, [32, 1, 1], [64, 1, 1]);
        res.push_words(&bad.to_words()).unwrap();
        let agent = AgentDispatchPacket::new(7, [1, 2, 3, 4], 0);
        res.push(&agent).unwrap();
        let tail = KernelDispatchPacket {
            completion_signal: sig(4),
            kernarg_address: 8,
            ..add
        };
        res.push(&tail).unwrap();
        res.finish();
        println!(
            "host: doorbell value is now {}",
            doorbell.load(Ordering::Acquire)
        );

        for h in 1..=4 {
            while signals.get(sig(h)).unwrap().load(Ordering::Acquire) != 0 {
                std::thread::yield_now();
            }
        }
        let (processed, rejected) = processor.join().expect("processor thread");
        println!(
            "host: all completion signals reached 0; {processed} packets processed, {rejected} rejected"
        );
    });

    // Check the results the "device" computed: c = 2x + (a + b) = 2 + 3i, d = a + b = 3i.
    let wrong_c = (0..n)
        .filter(|&i| mem.load(c + i) != 2.0 + 3.0 * i as f32)
        .count();
    let wrong_d = (0..n)
        .filter(|&i| mem.load(d + i) != 3.0 * i as f32)
        .count();
    let verdict = |w: usize| {
        if w == 0 {
            "all correct".to_owned()
        } else {
            format!("{w} wrong")
        }
    };
    println!(
        "result: c[i] = 2*x[i] + (a[i] + b[i]) for {N} elements: {}",
        verdict(wrong_c)
    );
    println!(
        "result: d[i] = a[i] + b[i] for {N} elements: {}",
        verdict(wrong_d)
    );
    let wrong = wrong_c + wrong_d;
    println!(
        "queue indices: write {}, read {}",
        queue.write_dispatch_id.load(Ordering::Acquire),
        queue.read_dispatch_id.load(Ordering::Acquire)
    );
    if wrong != 0 {
        std::process::exit(1);
    }
}
