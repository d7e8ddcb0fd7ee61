//! The sim's CU model: workgroups run only on the CUs of the queue's CU
//! mask (SET_CU_MASK), as a kernel reading `HW_REG_HW_ID` sees (the
//! rocrtst cu_masking test's method), and waves take scratch slots from
//! the queue's `COMPUTE_TMPRING_SIZE.WAVES` only.
//!
//! The expected CUs follow amdkfd's `mqd_symmetrically_map_cu_mask`
//! examples for one shader array per engine: on an MI210 (8 engines of 13
//! CUs) mask bit `i` is SE `i % 8`, CU `i / 8`.

#![allow(unsafe_code)]

mod support;

use std::collections::BTreeSet;
use std::sync::atomic::Ordering;

use aql::{KernelDispatchPacket, SignalHandle};
use support::*;

const CUMASK: &str = "tests/kernels/cumask.co";
const BASICS: &str = "tests/kernels/basics.co";

/// MI210: 104 CUs on 8 shader engines.
const CUS: u32 = 104;
const ENGINES: u32 = 8;

/// HW_ID's CU_ID [11:8], SH_ID [12], SE_ID [15:13] of mask bit `i`.
fn cu_of_bit(i: u32) -> u32 {
    ((i / ENGINES) << 8) | ((i % ENGINES) << 13)
}

fn mask_of(bits: &[u32]) -> Vec<u32> {
    let mut m = vec![0u32; CUS.div_ceil(32) as usize];
    for &b in bits {
        m[(b / 32) as usize] |= 1 << (b % 32);
    }
    m
}

/// Every workgroup's HW_ID, for `groups` workgroups of 64.
fn hw_ids(c: &Client, q: &Queue, co: &CodeObject, groups: u32) -> Vec<u32> {
    let out = c.buffer(groups as usize * 4);
    let r = dispatch(
        c,
        q,
        &co.kernels["hw_id"],
        &[Arg::Ptr(out.va)],
        Geometry::linear(groups * 64, 64),
    );
    assert!(matches!(r, Outcome::Done), "{r:?}");
    out.read_u32s(0, groups as usize)
}

/// The CU fields of each HW_ID, after checking the wave fields.
fn cus_seen(ids: &[u32], queue_id: u32) -> BTreeSet<u32> {
    for &id in ids {
        assert!(id & 0xf < 8, "WAVE_ID {:#x}: 8 waves a SIMD", id);
        assert_eq!((id >> 24) & 7, queue_id & 7, "QUEUE_ID of {id:#x}");
        assert_eq!(id >> 30, 1, "ME_ID of {id:#x}: MEC1");
    }
    ids.iter().map(|id| id & 0xff00).collect()
}

fn check_mask(bits: &[u32], groups: u32) {
    let c = Client::new(3);
    let q = Queue::new(&c, 0);
    let co = c.load(CUMASK);
    c.kfd.set_cu_mask(q.info.queue_id, &mask_of(bits)).unwrap();
    let seen = cus_seen(&hw_ids(&c, &q, &co, groups), q.info.queue_id);
    let want: BTreeSet<u32> = bits.iter().map(|&b| cu_of_bit(b)).collect();
    assert_eq!(seen, want, "mask bits {bits:?}");
}

#[test]
fn one_cu() {
    check_mask(&[5], 40);
    check_mask(&[CUS - 1], 40);
}

#[test]
fn alternate_cus() {
    let bits: Vec<u32> = (0..CUS).step_by(2).collect();
    check_mask(&bits, 4 * CUS);
}

#[test]
fn every_cu() {
    let bits: Vec<u32> = (0..CUS).collect();
    check_mask(&bits, 4 * CUS);
    // A queue whose mask was never set runs on every CU too.
    let c = Client::new(2);
    let q = Queue::new(&c, 0);
    let co = c.load(CUMASK);
    let seen = cus_seen(&hw_ids(&c, &q, &co, 2 * CUS), q.info.queue_id);
    assert_eq!(seen, (0..CUS).map(cu_of_bit).collect());
}

#[test]
fn bits_past_the_cus_enable_nothing() {
    let c = Client::new(2);
    let q = Queue::new(&c, 0);
    let co = c.load(CUMASK);
    // Bit 3 and bits 104.. (past the MI210's CUs).
    c.kfd
        .set_cu_mask(q.info.queue_id, &[0b1000, 0, 0, 0xffff_ff00])
        .unwrap();
    let seen = cus_seen(&hw_ids(&c, &q, &co, 16), q.info.queue_id);
    assert_eq!(seen, [cu_of_bit(3)].into());
}

#[test]
fn a_mask_with_no_cu_holds_the_dispatch_until_it_changes() {
    let c = Client::new(2);
    let q = Queue::new(&c, 0);
    let co = c.load(CUMASK);
    c.kfd.set_cu_mask(q.info.queue_id, &[0; 4]).unwrap();
    let k = &co.kernels["hw_id"];
    let g = Geometry::linear(8 * 64, 64);
    let out = c.buffer(8 * 4);
    let kernarg = kernargs(k, &[Arg::Ptr(out.va)], g, &q);
    let karg = c.buffer(kernarg.len());
    karg.write(0, &kernarg);
    let sig = c.buffer(4096);
    sig.write_u64s(0, &[1, 1]);
    let mut p = KernelDispatchPacket::new(k.kernel_object, karg.va, g.grid, g.workgroup);
    p.completion_signal = SignalHandle { handle: sig.va };
    q.submit(zerocopy::transmute!(p));
    // Not launched: the read index stays at the packet.
    assert_eq!(q.read_index(), 0);
    assert_eq!(atomic_u64(sig.va + 8).load(Ordering::Acquire), 1);
    c.kfd.set_cu_mask(q.info.queue_id, &mask_of(&[9])).unwrap();
    wait_zero(p.completion_signal);
    let seen = cus_seen(&out.read_u32s(0, 8), q.info.queue_id);
    assert_eq!(seen, [cu_of_bit(9)].into());
}

/// `private_array` (basics.cl) with its reference result.
fn private_array_reference(input: &[u32], g: u32) -> u32 {
    let a: Vec<u32> = (0..48u32)
        .map(|k| input[((g + k) % 64) as usize] ^ k.wrapping_mul(0x9e37_79b9))
        .collect();
    (0..48u32).fold(0u32, |acc, k| {
        acc.wrapping_mul(31)
            .wrapping_add(a[((k * 7 + g) % 48) as usize])
    })
}

#[test]
fn workgroups_outnumbering_the_scratch_slots_wait_for_them() {
    // Five scratch wave slots, four workers, workgroups of four waves: one
    // workgroup holds scratch at a time; sharing a slot would mix results.
    let c = Client::new(4);
    let q = Queue::new(&c, 5);
    let co = c.load(BASICS);
    let groups = 24u32;
    let n = (groups * 256) as usize;
    let input: Vec<u32> = (0..64u32)
        .map(|i| i.wrapping_mul(0x0101_0101) ^ 0x5a5a)
        .collect();
    let (bi, bo) = (c.buffer(256), c.buffer(n * 4));
    bi.write_u32s(0, &input);
    let r = dispatch(
        &c,
        &q,
        &co.kernels["private_array"],
        &[Arg::Ptr(bi.va), Arg::Ptr(bo.va)],
        Geometry::linear(n as u32, 256),
    );
    assert!(matches!(r, Outcome::Done), "{r:?}");
    let got = bo.read_u32s(0, n);
    for g in 0..n as u32 {
        assert_eq!(
            got[g as usize],
            private_array_reference(&input, g),
            "work-item {g}"
        );
    }
}

#[test]
fn a_workgroup_needing_more_scratch_slots_than_the_queue_has_is_an_error() {
    let c = Client::new(2);
    let q = Queue::new(&c, 3);
    let co = c.load(BASICS);
    let (bi, bo) = (c.buffer(256), c.buffer(256 * 4));
    let r = dispatch(
        &c,
        &q,
        &co.kernels["private_array"],
        &[Arg::Ptr(bi.va), Arg::Ptr(bo.va)],
        Geometry::linear(256, 256),
    );
    match r {
        Outcome::Error(_, what) => assert!(
            what.contains("scratch holds 3 waves") && what.contains("a workgroup has 4"),
            "{what}"
        ),
        Outcome::Done => panic!("a 4-wave workgroup ran in 3 scratch slots"),
    }
}

#[test]
fn a_harvested_gcd_maps_its_last_bits_to_the_arrays_with_a_14th_cu() {
    // MI250X GCD: 110 CUs on 8 engines of up to 14; bits 0-103 cover CUs
    // 0-12 of every engine, bits 104-109 the 14th CU (CU 13) of engines
    // 0-5, the arrays that have one.
    let c = Client::with(
        sim::SimBuilder::new()
            .board(sim::Board::Mi250x)
            .gpus(1)
            .workers(2)
            .build(),
    );
    let q = Queue::new(&c, 0);
    let co = c.load(CUMASK);
    let bits: Vec<u32> = (100..110).collect();
    c.kfd.set_cu_mask(q.info.queue_id, &mask_of(&bits)).unwrap();
    let seen = cus_seen(&hw_ids(&c, &q, &co, 40), q.info.queue_id);
    let want: BTreeSet<u32> = (4..8)
        .map(|se| (12 << 8) | (se << 13))
        .chain((0..6).map(|se| (13 << 8) | (se << 13)))
        .collect();
    assert_eq!(seen, want);
}
