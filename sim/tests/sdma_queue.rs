//! SDMA queues driven as ROCr's `BlitSdma` drives them: CREATE_QUEUE of
//! type SDMA, packets written to the byte ring, the write pointer
//! published, the doorbell rung. The engine thread notices on its own.

#![allow(unsafe_code)]

mod support;

use std::cell::Cell;
use std::sync::atomic::Ordering;

use kfd::ioctl::raw;
use kfd::ioctl::*;
use sim::sdma::packet::{Atomic, ConstantFill, CopyLinear, Fence, Packet, Timestamp, Trap};
use support::*;

struct SdmaQ {
    info: kfd::QueueInfo,
    ring: Buffer,
    /// Write pointer at +0, read pointer at +8 (bytes, only growing).
    ptrs: Buffer,
    page: kfd::DoorbellPage<sim::SimDevice>,
    wptr: Cell<u64>,
}

impl SdmaQ {
    fn new(c: &Client, queue_type: QueueType) -> Self {
        let ring = c.buffer(4096);
        let ptrs = c.buffer(4096);
        let desc = kfd::QueueDesc {
            gpu_id: c.gpu_id,
            queue_type,
            percentage: QueuePercentage::FULL,
            priority: QueuePriority::NORMAL,
            ring_base_address: ring.va,
            ring_size: 4096,
            write_pointer_address: ptrs.va,
            read_pointer_address: ptrs.va + 8,
            eop_buffer_address: 0,
            eop_buffer_size: 0,
            ctx_save_restore_address: 0,
            ctx_save_restore_size: 0,
            ctl_stack_size: 0,
            sdma_engine_id: 0,
        };
        // SAFETY: ring and pointers are live buffers mapped to the GPU.
        let info = unsafe { c.kfd.create_queue(&desc) }.unwrap();
        let page = c.kfd.map_doorbell_page(info.doorbell_offset, 8192).unwrap();
        Self {
            info,
            ring,
            ptrs,
            page,
            wptr: Cell::new(0),
        }
    }

    /// Writes the packets at the write pointer, publishes it, rings.
    fn submit(&self, packets: &[Packet]) {
        let mut w = self.wptr.get();
        for p in packets {
            for dw in p.encode().unwrap() {
                self.ring.u32_at(w % 4096).store(dw, Ordering::Relaxed);
                w += 4;
            }
        }
        self.wptr.set(w);
        self.ptrs.u64_at(0).store(w, Ordering::Release);
        // SAFETY: the doorbell lies in the live doorbell page.
        unsafe { self.page.doorbell().as_ptr().write_volatile(w) };
    }

    fn read_pointer(&self) -> u64 {
        self.ptrs.u64_at(8).load(Ordering::Acquire)
    }
}

#[test]
fn copy_fill_atomic_fence_and_timestamps_through_the_doorbell() {
    let c = Client::default();
    let q = SdmaQ::new(&c, QueueType::Sdma);
    let src = c.buffer(64 * 1024);
    let dst = c.buffer(64 * 1024);
    let misc = c.buffer(4096);
    for i in 0..(64 * 1024 / 4) {
        src.u32_at(i * 4)
            .store(i as u32 ^ 0x5a5a_0000, Ordering::Relaxed);
    }
    let done = signal(&misc, 64, 1);
    let before = c
        .kfd
        .get_clock_counters(c.gpu_id)
        .unwrap()
        .gpu_clock_counter;
    q.submit(&[
        Packet::Timestamp(Timestamp::GetGlobal {
            addr: misc.va + 256,
        }),
        Packet::CopyLinear(CopyLinear {
            byte_count: 40_000,
            src: src.va + 4,
            dst: dst.va + 8,
        }),
        Packet::ConstantFill(ConstantFill::rocr_dword_fill(
            dst.va + 48 * 1024,
            0xfeed_f00d,
            1024,
        )),
        Packet::Atomic(Atomic::rocr_signal_decrement(done.handle + 8)),
        Packet::Timestamp(Timestamp::GetGlobal {
            addr: misc.va + 264,
        }),
        Packet::Fence(Fence {
            addr: misc.va,
            data: 7,
        }),
    ]);
    wait_until("the fence", || misc.u32_at(0).load(Ordering::Acquire) == 7);
    let after = c
        .kfd
        .get_clock_counters(c.gpu_id)
        .unwrap()
        .gpu_clock_counter;
    assert_eq!(signal_value(done), 0, "ROCr's completion decrement");
    for i in 0..10_000u64 {
        assert_eq!(
            dst.u32_at(8 + i * 4).load(Ordering::Relaxed),
            src.u32_at(4 + i * 4).load(Ordering::Relaxed),
            "dword {i}"
        );
    }
    assert_eq!(dst.u32_at(4).load(Ordering::Relaxed), 0, "before the copy");
    for i in 0..1024u64 {
        assert_eq!(
            dst.u32_at(48 * 1024 + i * 4).load(Ordering::Relaxed),
            0xfeed_f00d
        );
    }
    let (t0, t1) = (
        misc.u64_at(256).load(Ordering::Acquire),
        misc.u64_at(264).load(Ordering::Acquire),
    );
    assert!(
        before <= t0 && t0 <= t1 && t1 <= after,
        "{before} {t0} {t1} {after}"
    );
    assert_eq!(
        q.read_pointer(),
        q.wptr.get(),
        "the engine consumed everything"
    );
    assert_eq!(c.kfd.device().queue_error(q.info.queue_id), None);

    // The ring wraps: keep going past 4 KiB.
    for round in 1..=100u32 {
        q.submit(&[Packet::Fence(Fence {
            addr: misc.va,
            data: 7 + round,
        })]);
    }
    wait_until("fence 107", || {
        misc.u32_at(0).load(Ordering::Acquire) == 107
    });
}

#[test]
fn a_trap_fires_the_kfd_event_and_a_copy_fault_is_a_vm_fault() {
    let c = Client::default();
    let q = SdmaQ::new(&c, QueueType::Sdma);
    let page = c.buffer(kfd::EVENT_PAGE_SIZE);
    let ev = c
        .kfd
        .create_event(&kfd::EventDesc {
            event_type: EventType::Signal,
            auto_reset: true,
            node_id: 0,
            event_page_handle: Some(page.handle),
        })
        .unwrap();
    // As BlitSdma: a FENCE of the event id to the event's mailbox slot,
    // then the TRAP (KFD sets the events whose slot was written).
    q.submit(&[
        Packet::Fence(Fence {
            addr: page.va + 8 * u64::from(ev.event_slot_index),
            data: ev.event_id,
        }),
        Packet::Trap(Trap {
            int_context: ev.event_id,
        }),
    ]);
    let mut wait = [raw::EventData::new(ev.event_id)];
    assert_eq!(
        c.kfd.wait_events(&mut wait, false, 10_000).unwrap(),
        WaitResult::Complete
    );

    let mem_ev = c
        .kfd
        .create_event(&kfd::EventDesc {
            event_type: EventType::Memory,
            auto_reset: true,
            node_id: 0,
            event_page_handle: None,
        })
        .unwrap();
    let dst = c.buffer(4096);
    q.submit(&[Packet::CopyLinear(CopyLinear {
        byte_count: 64,
        src: 0xdead_0000_0000,
        dst: dst.va,
    })]);
    let mut wait = [raw::EventData::new(mem_ev.event_id)];
    assert_eq!(
        c.kfd.wait_events(&mut wait, false, 10_000).unwrap(),
        WaitResult::Complete
    );
    let m = wait[0].payload.memory_exception_data();
    assert_eq!((m.va, m.failure.not_present), (0xdead_0000_0000, 1));
    let e = c.kfd.device().queue_error(q.info.queue_id).unwrap();
    assert!(e.what.contains("0xdead00000000"), "{}", e.what);
    // The fault evicted the process's queues on the GPU (as any VM fault);
    // a queue created afterwards runs.
    let q2 = SdmaQ::new(&c, QueueType::Sdma);
    q2.submit(&[Packet::Fence(Fence {
        addr: dst.va,
        data: 9,
    })]);
    wait_until("the new queue's fence", || {
        dst.u32_at(0).load(Ordering::Acquire) == 9
    });
}

#[test]
fn sdma_queue_types_and_engines() {
    let c = Client::default();
    // MI210 (Aldebaran): two PCIe SDMA engines, three XGMI engines.
    let a = SdmaQ::new(&c, QueueType::Sdma);
    let b = SdmaQ::new(&c, QueueType::Sdma);
    let misc = c.buffer(4096);
    for (i, q) in [&a, &b].into_iter().enumerate() {
        q.submit(&[Packet::Fence(Fence {
            addr: misc.va + 4 * i as u64,
            data: 1,
        })]);
    }
    wait_until("both engines", || {
        misc.u32_at(0).load(Ordering::Acquire) == 1 && misc.u32_at(4).load(Ordering::Acquire) == 1
    });
    let ring = c.buffer(4096);
    let ptrs = c.buffer(4096);
    let desc = kfd::QueueDesc {
        gpu_id: c.gpu_id,
        queue_type: QueueType::SdmaXgmi,
        percentage: QueuePercentage::FULL,
        priority: QueuePriority::NORMAL,
        ring_base_address: ring.va,
        ring_size: 4096,
        write_pointer_address: ptrs.va,
        read_pointer_address: ptrs.va + 8,
        eop_buffer_address: 0,
        eop_buffer_size: 0,
        ctx_save_restore_address: 0,
        ctx_save_restore_size: 0,
        ctl_stack_size: 0,
        sdma_engine_id: 0,
    };
    // SAFETY: live buffers mapped to the GPU.
    let xgmi = unsafe { c.kfd.create_queue(&desc) }.unwrap();
    c.kfd.destroy_queue(xgmi.queue_id).unwrap();
    // SAFETY: as above.
    let r = unsafe {
        c.kfd.create_queue(&kfd::QueueDesc {
            queue_type: QueueType::SdmaByEngId,
            sdma_engine_id: 5,
            ..desc
        })
    };
    assert_eq!(
        errno(r),
        Some(rustix::io::Errno::INVAL),
        "engine 5 of 0..=4"
    );
    // SAFETY: as above.
    let by_id = unsafe {
        c.kfd.create_queue(&kfd::QueueDesc {
            queue_type: QueueType::SdmaByEngId,
            sdma_engine_id: 4,
            ..desc
        })
    };
    assert!(by_id.is_ok());
    // Destroying an SDMA queue stops its engine's work on it.
    c.kfd.destroy_queue(a.info.queue_id).unwrap();
    assert_eq!(c.kfd.device().queue_completed(a.info.queue_id), None);
}
