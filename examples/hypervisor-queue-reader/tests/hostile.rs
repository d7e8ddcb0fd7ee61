//! Guest memory that lies: corrupt indices, a ring outside the image,
//! sizes that are no power of two, a packet or a descriptor that changes
//! while it is read, and random bytes. Every case is a typed error or a
//! flagged packet, never a panic.

use aql::queue::AmdQueue;
use core::cell::Cell;
use core::mem::offset_of;
use hypervisor_queue_reader::queue::{Finding, SlotProblem};
use hypervisor_queue_reader::sample::{SAMPLE_BASE, sample_image};
use hypervisor_queue_reader::{
    GuestMemory, ImageMemory, QueueError, ReadError, read_queue, report,
};
use proptest::prelude::*;

fn sample_with(edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut b = sample_image().bytes;
    edit(&mut b);
    b
}

fn put_u64(b: &mut [u8], off: usize, v: u64) {
    b[off..off + 8].copy_from_slice(&v.to_le_bytes());
}

fn put_u32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_le_bytes());
}

const WRITE: usize = offset_of!(AmdQueue, write_dispatch_id);
const READ: usize = offset_of!(AmdQueue, read_dispatch_id);
const BASE_ADDRESS: usize = 8;
const SIZE: usize = 24;

fn read(bytes: &[u8]) -> Result<hypervisor_queue_reader::QueueSnapshot, QueueError> {
    read_queue(&ImageMemory::new(bytes, SAMPLE_BASE), SAMPLE_BASE, 4096)
}

#[test]
fn write_index_behind_read_index() {
    let b = sample_with(|b| put_u64(b, WRITE, 11));
    assert_eq!(
        read(&b).unwrap_err(),
        QueueError::IndicesCorrupt {
            read_index: 12,
            write_index: 11,
            size: 16
        }
    );
}

#[test]
fn write_index_more_than_a_ring_ahead() {
    let b = sample_with(|b| put_u64(b, WRITE, 12 + 17));
    assert!(matches!(
        read(&b),
        Err(QueueError::IndicesCorrupt {
            write_index: 29,
            ..
        })
    ));
    // Exactly a full ring is legal.
    let b = sample_with(|b| put_u64(b, WRITE, 12 + 16));
    assert_eq!(read(&b).expect("a full ring").packets.len(), 16);
}

#[test]
fn indices_near_u64_max_wrap_like_the_ring_does() {
    let b = sample_with(|b| {
        put_u64(b, READ, u64::MAX - 1);
        put_u64(b, WRITE, 2);
    });
    let s = read(&b).expect("4 pending across the wrap");
    let ids: Vec<u64> = s.packets.iter().map(|p| p.id).collect();
    assert_eq!(ids, [u64::MAX - 1, u64::MAX, 0, 1]);
}

#[test]
fn ring_outside_the_image() {
    let b = sample_with(|b| put_u64(b, BASE_ADDRESS, SAMPLE_BASE + 1280));
    assert!(matches!(
        read(&b),
        Err(QueueError::Ring(ReadError::OutOfImage { what: "ring", .. }))
    ));
    let b = sample_with(|b| put_u64(b, BASE_ADDRESS, SAMPLE_BASE - 64));
    assert!(matches!(
        read(&b),
        Err(QueueError::Ring(ReadError::OutOfImage { .. }))
    ));
    // Straddling the end: a ring of 32 packets does not fit.
    let b = sample_with(|b| put_u32(b, SIZE, 32));
    assert!(matches!(
        read(&b),
        Err(QueueError::Ring(ReadError::OutOfImage { len: 2048, .. }))
    ));
    let b = sample_with(|b| put_u64(b, BASE_ADDRESS, u64::MAX - 63));
    assert!(matches!(
        read(&b),
        Err(QueueError::Ring(ReadError::AddressOverflow { .. }))
    ));
    let b = sample_with(|b| put_u64(b, BASE_ADDRESS, SAMPLE_BASE + 257));
    assert_eq!(
        read(&b).unwrap_err(),
        QueueError::RingMisaligned {
            base_address: SAMPLE_BASE + 257
        }
    );
}

#[test]
fn sizes() {
    let b = sample_with(|b| put_u32(b, SIZE, 0));
    assert_eq!(read(&b).unwrap_err(), QueueError::SizeZero);
    let b = sample_with(|b| put_u32(b, SIZE, 12));
    assert_eq!(read(&b).unwrap_err(), QueueError::SizeNotPowerOfTwo(12));
    let b = sample_with(|b| put_u32(b, SIZE, 1 << 31));
    assert!(matches!(read(&b), Err(QueueError::Ring(_))));
}

#[test]
fn queue_address_outside_misaligned_or_straddling() {
    let b = sample_image().bytes;
    let mem = ImageMemory::new(&b, SAMPLE_BASE);
    assert_eq!(
        read_queue(&mem, SAMPLE_BASE + 8, 16).unwrap_err(),
        QueueError::Misaligned {
            address: SAMPLE_BASE + 8
        }
    );
    assert!(matches!(
        read_queue(&mem, SAMPLE_BASE - 64, 16),
        Err(QueueError::Descriptor(ReadError::OutOfImage { .. }))
    ));
    assert!(matches!(
        read_queue(&mem, SAMPLE_BASE + 1280 - 192, 16),
        Err(QueueError::Descriptor(ReadError::OutOfImage { .. }))
    ));
    assert!(matches!(
        read_queue(&mem, u64::MAX - 63, 16),
        Err(QueueError::Descriptor(ReadError::AddressOverflow { .. }))
    ));
    assert!(matches!(
        read_queue(&ImageMemory::new(&[], 0), 0, 16),
        Err(QueueError::Descriptor(ReadError::OutOfImage { .. }))
    ));
}

#[test]
fn odd_but_readable_descriptors_give_findings() {
    let b = sample_with(|b| {
        put_u32(b, 0, 9);
        put_u32(b, 4, 0x10 | 1);
        put_u32(b, offset_of!(AmdQueue, queue_properties), 1 << 7);
        put_u32(
            b,
            offset_of!(AmdQueue, read_dispatch_id_field_base_byte_offset),
            0,
        );
        b[offset_of!(AmdQueue, reserved4)] = 1;
    });
    let f = read(&b).expect("readable").state.findings;
    assert_eq!(
        f,
        [
            Finding::UnknownQueueType(9),
            Finding::UnknownFeatureBits(0x10),
            Finding::ReservedNonZero("reserved4"),
            Finding::ReservedPropertyBits(1 << 7),
            Finding::ReadPointerOffset(0),
        ]
    );
}

/// Guest memory where a producer (or a hostile guest) rewrites the first
/// byte of a range whenever the range is read, differently each time.
struct Changing<'a> {
    inner: ImageMemory<'a>,
    range: core::ops::Range<u64>,
    reads: Cell<u32>,
    /// Stop changing after this many reads of the range.
    until: u32,
}

impl GuestMemory for Changing<'_> {
    fn check(&self, what: &'static str, address: u64, len: u64) -> Result<(), ReadError> {
        self.inner.check(what, address, len)
    }

    fn read(&self, what: &'static str, address: u64, buf: &mut [u8]) -> Result<(), ReadError> {
        self.inner.read(what, address, buf)?;
        if address == self.range.start {
            let n = self.reads.get();
            self.reads.set(n + 1);
            if n < self.until {
                // A different value on every read.
                buf[0] ^= (n as u8).wrapping_add(1);
            }
        }
        Ok(())
    }
}

#[test]
fn a_packet_that_changes_while_read_is_reported() {
    let b = sample_image().bytes;
    // Packet 13 (barrier-AND) in slot 13.
    let slot = SAMPLE_BASE + 256 + 13 * 64;
    let mem = Changing {
        inner: ImageMemory::new(&b, SAMPLE_BASE),
        range: slot..slot + 64,
        reads: Cell::new(0),
        until: u32::MAX,
    };
    let s = read_queue(&mem, SAMPLE_BASE, 4096).expect("the queue reads");
    let p = s.packets.iter().find(|p| p.id == 13).expect("packet 13");
    assert_eq!(p.packet, Err(SlotProblem::Changed));
    assert_eq!(p.bytes, None);
    assert!(report::report(&s).contains(
        "packet 13 @ 0x800000440: ERROR the slot changed while it was read (3 attempts)"
    ));
    // A change that stops (the producer finished writing) is read through.
    let mem = Changing {
        inner: ImageMemory::new(&b, SAMPLE_BASE),
        range: slot..slot + 64,
        reads: Cell::new(0),
        until: 3,
    };
    let s = read_queue(&mem, SAMPLE_BASE, 4096).expect("the queue reads");
    assert!(
        s.packets
            .iter()
            .find(|p| p.id == 13)
            .expect("13")
            .packet
            .is_ok()
    );
}

#[test]
fn a_descriptor_that_changes_while_read_is_an_error_unless_only_the_indices_move() {
    let b = sample_image().bytes;
    let at = |off: usize| SAMPLE_BASE + off as u64;
    // `hsa_queue.type` (byte 0) changing under us.
    let mem = Changing {
        inner: ImageMemory::new(&b, SAMPLE_BASE),
        range: at(0)..at(256),
        reads: Cell::new(0),
        until: u32::MAX,
    };
    assert_eq!(
        read_queue(&mem, SAMPLE_BASE, 16).unwrap_err(),
        QueueError::DescriptorChanged { offset: 0 }
    );
    // Only the indices moving (a guest that keeps submitting): no error.
    struct MovingIndices<'a>(ImageMemory<'a>, Cell<u64>);
    impl GuestMemory for MovingIndices<'_> {
        fn check(&self, what: &'static str, address: u64, len: u64) -> Result<(), ReadError> {
            self.0.check(what, address, len)
        }
        fn read(&self, what: &'static str, address: u64, buf: &mut [u8]) -> Result<(), ReadError> {
            self.0.read(what, address, buf)?;
            if address == SAMPLE_BASE && buf.len() == 256 {
                let n = self.1.get();
                self.1.set(n + 1);
                buf[WRITE] = buf[WRITE].wrapping_add(n as u8 % 3);
            }
            Ok(())
        }
    }
    let mem = MovingIndices(ImageMemory::new(&b, SAMPLE_BASE), Cell::new(0));
    let s = read_queue(&mem, SAMPLE_BASE, 16).expect("only the indices moved");
    assert_eq!(s.state.write_dispatch_id, 21);
}

/// Guest memory whose read index advances after `after` reads: the guest's
/// packet processor consuming while we read.
struct Consuming<'a> {
    bytes: Vec<u8>,
    base: u64,
    reads: Cell<u32>,
    after: u32,
    _p: core::marker::PhantomData<&'a ()>,
}

impl GuestMemory for Consuming<'_> {
    fn check(&self, what: &'static str, address: u64, len: u64) -> Result<(), ReadError> {
        ImageMemory::new(&self.bytes, self.base).check(what, address, len)
    }

    fn read(&self, what: &'static str, address: u64, buf: &mut [u8]) -> Result<(), ReadError> {
        let n = self.reads.get();
        self.reads.set(n + 1);
        let mut bytes = self.bytes.clone();
        if n >= self.after {
            put_u64(&mut bytes, READ, 15);
        }
        ImageMemory::new(&bytes, self.base).read(what, address, buf)
    }
}

#[test]
fn packets_consumed_while_read_are_flagged() {
    let mem = Consuming {
        bytes: sample_image().bytes,
        base: SAMPLE_BASE,
        reads: Cell::new(0),
        after: 2,
        _p: Default::default(),
    };
    let s = read_queue(&mem, SAMPLE_BASE, 4096).expect("reads");
    assert_eq!(s.state.read_dispatch_id, 12);
    assert_eq!(s.read_index_after, 15);
    let flagged: Vec<u64> = s
        .packets
        .iter()
        .filter(|p| p.consumed_while_read)
        .map(|p| p.id)
        .collect();
    assert_eq!(flagged, [12, 13, 14]);
    let text = report::report(&s);
    assert!(
        text.contains("read_dispatch_id moved to 15 while the packets were read"),
        "{text}"
    );
}

#[test]
fn every_single_byte_corruption_of_the_image_is_handled() {
    let image = sample_image();
    for i in 0..image.bytes.len() {
        for v in [0x00u8, 0x01, 0x7f, 0x80, 0xff] {
            let mut b = image.bytes.clone();
            b[i] = v;
            if let Ok(s) = read(&b) {
                assert!(s.packets.len() <= s.state.hsa_queue.size as usize);
                let _ = report::report(&s);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_images_and_addresses_never_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..2048),
        base in any::<u64>(),
        queue in any::<u64>(),
        limit in 0usize..64,
    ) {
        let mem = ImageMemory::new(&bytes, base);
        if let Ok(s) = read_queue(&mem, queue, limit) {
            prop_assert!(s.packets.len() <= limit);
            for p in &s.packets {
                let ring = s.state.hsa_queue.base_address;
                prop_assert!(p.address >= ring && p.address - ring < u64::from(s.state.hsa_queue.size) * 64);
            }
            let _ = report::report(&s);
        }
    }

    #[test]
    fn mutated_sample_images_never_panic(
        edits in proptest::collection::vec((0usize..1280, any::<u8>()), 1..16),
    ) {
        let mut b = sample_image().bytes;
        for (i, v) in edits {
            b[i] = v;
        }
        if let Ok(s) = read(&b) {
            let _ = report::report(&s);
        }
    }
}
