//! Packet encoding, decoding and validation.

use aql::error::{Axis, FenceKind, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT};
use aql::packet::{AmdVendorPacketHeader, PACKET_WORDS};
use aql::*;
use proptest::prelude::*;

fn scope() -> impl Strategy<Value = FenceScope> {
    prop_oneof![
        Just(FenceScope::None),
        Just(FenceScope::Agent),
        Just(FenceScope::System)
    ]
}

fn packet_type() -> impl Strategy<Value = PacketType> {
    prop_oneof![
        Just(PacketType::VendorSpecific),
        Just(PacketType::Invalid),
        Just(PacketType::KernelDispatch),
        Just(PacketType::BarrierAnd),
        Just(PacketType::AgentDispatch),
        Just(PacketType::BarrierOr),
    ]
}

fn header(ty: PacketType) -> impl Strategy<Value = PacketHeader> {
    (any::<bool>(), scope(), scope()).prop_map(move |(b, a, r)| PacketHeader::with(ty, b, a, r))
}

/// A valid kernel dispatch: 1-3 dims, sizes consistent.
fn valid_dispatch() -> impl Strategy<Value = KernelDispatchPacket> {
    (
        1u8..=3,
        header(PacketType::KernelDispatch),
        [1u16..=1024, 1u16..=1024, 1u16..=1024],
        [0u32..1_000_000, 0u32..1_000_000, 0u32..1_000_000],
        any::<[u32; 2]>(),
        any::<[u64; 3]>(),
    )
        .prop_map(|(dims, header, wg, extra, seg, addrs)| {
            let d = usize::from(dims);
            let wg: [u16; 3] = core::array::from_fn(|i| if i < d { wg[i] } else { 1 });
            let grid: [u32; 3] = core::array::from_fn(|i| {
                if i < d {
                    u32::from(wg[i]) + extra[i]
                } else {
                    1
                }
            });
            KernelDispatchPacket {
                header,
                setup: KernelDispatchSetup::with_dimensions(dims),
                workgroup_size_x: wg[0],
                workgroup_size_y: wg[1],
                workgroup_size_z: wg[2],
                reserved0: 0,
                grid_size_x: grid[0],
                grid_size_y: grid[1],
                grid_size_z: grid[2],
                private_segment_size: seg[0],
                group_segment_size: seg[1],
                kernel_object: addrs[0],
                kernarg_address: addrs[1],
                reserved2: 0,
                completion_signal: SignalHandle { handle: addrs[2] },
            }
        })
}

fn signals() -> impl Strategy<Value = [SignalHandle; 5]> {
    any::<[u64; 5]>().prop_map(|h| h.map(|handle| SignalHandle { handle }))
}

proptest! {
    #[test]
    fn header_round_trips(ty in packet_type(), b in any::<bool>(), a in scope(), r in scope()) {
        let h = PacketHeader::with(ty, b, a, r);
        prop_assert_eq!(h.packet_type(), Ok(ty));
        prop_assert_eq!(h.barrier(), b);
        prop_assert_eq!(h.acquire_fence_scope(), Ok(a));
        prop_assert_eq!(h.release_fence_scope(), Ok(r));
        prop_assert_eq!(h.validate(), Ok(ty));
        // Field placement per hsa_packet_header_t.
        prop_assert_eq!(h.0, ty as u16 | (b as u16) << 8 | (a as u16) << 9 | (r as u16) << 11);
    }

    #[test]
    fn any_header_decodes_without_panicking(raw in any::<u16>()) {
        let h = PacketHeader(raw);
        let ok = h.validate().is_ok();
        let expect = (raw & 0xff) <= 5 && (raw >> 9) & 3 != 3 && (raw >> 11) & 3 != 3 && raw & 0xe000 == 0;
        prop_assert_eq!(ok, expect);
    }

    #[test]
    fn kernel_dispatch_round_trips(p in valid_dispatch()) {
        prop_assert_eq!(p.validate(), Ok(()));
        let words = p.to_words();
        prop_assert_eq!(KernelDispatchPacket::from_words_unchecked(&words), p);
        prop_assert_eq!(Packet::decode(&words), Ok(Packet::KernelDispatch(p)));
        prop_assert_eq!(Packet::decode_bytes(&p.to_bytes()), Ok(Packet::KernelDispatch(p)));
        // Word 0 is the header and the setup, little-endian, as published.
        prop_assert_eq!(words[0], u32::from(p.header.0) | u32::from(p.setup.0) << 16);
        prop_assert_eq!(words[8] as u64 | (words[9] as u64) << 32, p.kernel_object);
    }

    #[test]
    fn agent_dispatch_round_trips(h in header(PacketType::AgentDispatch), ty in any::<u16>(), arg in any::<[u64; 4]>(), ret in any::<u64>(), sig in any::<u64>()) {
        let mut p = AgentDispatchPacket::new(ty, arg, ret);
        p.header = h;
        p.completion_signal = SignalHandle { handle: sig };
        let words = p.to_words();
        prop_assert_eq!(Packet::decode(&words), Ok(Packet::AgentDispatch(p)));
        prop_assert_eq!(words[0] >> 16, u32::from(ty));
    }

    #[test]
    fn barriers_round_trip(ha in header(PacketType::BarrierAnd), ho in header(PacketType::BarrierOr), deps in signals(), sig in any::<u64>()) {
        let mut a = BarrierAndPacket::new(deps, SignalHandle { handle: sig });
        a.header = ha;
        prop_assert_eq!(Packet::decode(&a.to_words()), Ok(Packet::BarrierAnd(a)));
        let mut o = BarrierOrPacket::new(deps, SignalHandle { handle: sig });
        o.header = ho;
        prop_assert_eq!(Packet::decode(&o.to_words()), Ok(Packet::BarrierOr(o)));
        prop_assert_eq!(a.dependencies().count(), deps.iter().filter(|d| d.handle != 0).count());
    }

    #[test]
    fn barrier_value_round_trips(h in header(PacketType::VendorSpecific), sig in any::<u64>(), value in any::<i64>(), mask in any::<i64>(), cond in 0u32..4) {
        let cond = SignalCondition::try_from(cond).unwrap();
        let mut p = AmdBarrierValuePacket::new(SignalHandle { handle: sig }, cond, value, mask, SignalHandle::NULL);
        p.header.header = h;
        let words = p.to_words();
        prop_assert_eq!(Packet::decode(&words), Ok(Packet::AmdBarrierValue(p)));
        prop_assert_eq!((words[0] >> 16) & 0xff, 2, "AmdFormat is HSA_AMD_PACKET_TYPE_BARRIER_VALUE");
    }

    #[test]
    fn arbitrary_words_never_panic(words in any::<[u32; PACKET_WORDS]>()) {
        match Packet::decode(&words) {
            Ok(p) => prop_assert_eq!(p.to_words(), words),
            Err(e) => prop_assert_eq!(e.hsa_status(), HSA_STATUS_ERROR_INVALID_PACKET_FORMAT),
        }
    }
}

fn dispatch() -> KernelDispatchPacket {
    KernelDispatchPacket::new(0x1000, 0x2000, [256, 4, 1], [64, 2, 1])
}

#[test]
fn new_dispatch_infers_dimensions() {
    assert_eq!(dispatch().setup.dimensions(), Ok(2));
    assert_eq!(
        KernelDispatchPacket::new(1, 2, [7, 1, 1], [7, 1, 1])
            .setup
            .dimensions(),
        Ok(1)
    );
    assert_eq!(
        KernelDispatchPacket::new(1, 2, [8, 1, 2], [8, 1, 1])
            .setup
            .dimensions(),
        Ok(3)
    );
    assert_eq!(dispatch().workgroup_count(), [4, 2, 1]);
    assert_eq!(
        KernelDispatchPacket::new(1, 2, [100, 1, 1], [64, 1, 1]).workgroup_count(),
        [2, 1, 1]
    );
}

#[test]
fn dispatch_validation_names_the_field() {
    let check = |f: &dyn Fn(&mut KernelDispatchPacket), want: PacketError| {
        let mut p = dispatch();
        f(&mut p);
        assert_eq!(p.validate(), Err(want));
        assert_eq!(Packet::decode(&p.to_words()), Err(want));
    };
    check(
        &|p| p.setup = KernelDispatchSetup(0),
        PacketError::InvalidDimensions(0),
    );
    check(
        &|p| p.setup = KernelDispatchSetup(2 | 0x100),
        PacketError::ReservedSetupBits(0x100),
    );
    check(
        &|p| p.workgroup_size_y = 0,
        PacketError::ZeroWorkgroupSize(Axis::Y),
    );
    check(&|p| p.grid_size_x = 0, PacketError::ZeroGridSize(Axis::X));
    check(
        &|p| p.workgroup_size_z = 2,
        PacketError::UnusedWorkgroupDimension {
            axis: Axis::Z,
            size: 2,
        },
    );
    check(
        &|p| p.grid_size_z = 0,
        PacketError::UnusedGridDimension {
            axis: Axis::Z,
            size: 0,
        },
    );
    check(
        &|p| p.grid_size_x = 32,
        PacketError::GridSmallerThanWorkgroup {
            axis: Axis::X,
            grid: 32,
            workgroup: 64,
        },
    );
    check(
        &|p| p.reserved0 = 1,
        PacketError::ReservedField {
            packet: "hsa_kernel_dispatch_packet_t",
            field: "reserved0",
        },
    );
    check(
        &|p| p.reserved2 = 1,
        PacketError::ReservedField {
            packet: "hsa_kernel_dispatch_packet_t",
            field: "reserved2",
        },
    );
    check(
        &|p| p.header = PacketHeader(p.header.0 | 3 << 9),
        PacketError::InvalidFenceScope {
            which: FenceKind::Acquire,
            raw: 3,
        },
    );
    check(
        &|p| p.header = PacketHeader(p.header.0 | 3 << 11),
        PacketError::InvalidFenceScope {
            which: FenceKind::Release,
            raw: 3,
        },
    );
    check(
        &|p| p.header = PacketHeader(p.header.0 | 0x8000),
        PacketError::ReservedHeaderBits(0x8000),
    );
}

#[test]
fn decode_rejects_unknown_types_and_formats() {
    let mut words = dispatch().to_words();
    words[0] = (words[0] & !0xff) | 9;
    assert_eq!(
        Packet::decode(&words),
        Err(PacketError::UnknownPacketType(9))
    );
    words[0] = (words[0] & !0xff) | PacketType::Invalid as u32;
    assert!(matches!(
        Packet::decode(&words),
        Err(PacketError::UnexpectedPacketType { .. })
    ));

    let mut v = AmdBarrierValuePacket::new(
        SignalHandle::NULL,
        SignalCondition::Eq,
        0,
        -1,
        SignalHandle::NULL,
    );
    v.header.amd_format = 7;
    assert_eq!(
        Packet::decode(&v.to_words()),
        Err(PacketError::UnknownVendorFormat(7))
    );
    v.header.amd_format = 2;
    v.cond = 4;
    assert_eq!(
        Packet::decode(&v.to_words()),
        Err(PacketError::InvalidSignalCondition(4))
    );
    v.cond = 0;
    v.header = AmdVendorPacketHeader {
        reserved: 1,
        ..v.header
    };
    assert_eq!(
        Packet::decode(&v.to_words()),
        Err(PacketError::ReservedField {
            packet: "hsa_amd_vendor_packet_header_t",
            field: "reserved"
        })
    );

    let mut b = BarrierOrPacket::new([SignalHandle::NULL; 5], SignalHandle::NULL);
    b.reserved1 = 5;
    assert_eq!(
        Packet::decode(&b.to_words()),
        Err(PacketError::ReservedField {
            packet: "hsa_barrier_or_packet_t",
            field: "reserved1"
        })
    );

    // A dispatch body decoded as another type is refused by type.
    assert_eq!(
        <BarrierAndPacket as AqlPacket>::decode(&dispatch().to_words()),
        Err(PacketError::UnexpectedPacketType {
            expected: PacketType::BarrierAnd,
            found: 2
        })
    );
}

#[test]
fn barrier_value_condition_semantics() {
    let p = |cond, value, mask| {
        AmdBarrierValuePacket::new(SignalHandle::NULL, cond, value, mask, SignalHandle::NULL)
    };
    assert_eq!(
        p(SignalCondition::Eq, 0, 0xff).satisfied_by(0x100),
        Ok(true)
    );
    assert_eq!(
        p(SignalCondition::Ne, 0, 0xff).satisfied_by(0x100),
        Ok(false)
    );
    assert_eq!(p(SignalCondition::Lt, 5, -1).satisfied_by(4), Ok(true));
    assert_eq!(p(SignalCondition::Gte, 5, -1).satisfied_by(4), Ok(false));
}

#[test]
fn errors_display_what_and_where() {
    let e = PacketError::GridSmallerThanWorkgroup {
        axis: Axis::Y,
        grid: 3,
        workgroup: 4,
    };
    assert_eq!(
        e.to_string(),
        "grid_size_y (3) is smaller than workgroup_size_y (4)"
    );
    let e = PacketError::ReservedField {
        packet: "hsa_barrier_and_packet_t",
        field: "reserved2",
    };
    assert_eq!(
        e.to_string(),
        "hsa_barrier_and_packet_t.reserved2 is reserved and not 0"
    );
}

/// ROCr 5.2.3's `AqlQueue::ExecutePM4` on gfx9, byte for byte: the vendor
/// header (`HSA_PACKET_TYPE_VENDOR_SPECIFIC`, no barrier, no fences;
/// `ven_hdr = AMD_AQL_FORMAT_PM4_IB`), `PM4_HDR(IT_INDIRECT_BUFFER, 4, 9)`,
/// the IB address as `IB_BASE_LO(addr >> 2)` / `IB_BASE_HI(addr >> 32)`,
/// `IB_SIZE(7) | IB_VALID(1)`, `dw_cnt_remain = 0xA`, no completion signal.
#[test]
fn pm4_ib_packet_as_rocr_writes_it() {
    let ib: u64 = 0x7f12_3456_7000;
    let mut words = [0u32; 16];
    words[0] = 1 << 16;
    words[1] = (3 << 30) | (2 << 16) | (0x3f << 8);
    words[2] = (((ib >> 2) as u32) & 0x3fff_ffff) << 2;
    words[3] = ((ib >> 32) as u32) & 0xffff;
    words[4] = 7 | (1 << 23);
    words[5] = 0xa;
    let p = match Packet::decode(&words) {
        Ok(Packet::AmdPm4Ib(p)) => p,
        other => panic!("not a PM4-IB packet: {other:?}"),
    };
    assert_eq!(p.indirect_buffer(), Some((ib, 7)));
    assert_eq!(p.dw_cnt_remain, 0xa);
    assert!(p.completion_signal.is_null());
    assert_eq!(Packet::AmdPm4Ib(p).to_words(), words);
    // Without the valid bit, or with another opcode, there is no IB.
    let mut w = words;
    w[4] = 7;
    let Ok(Packet::AmdPm4Ib(p)) = Packet::decode(&w) else {
        panic!("still a PM4-IB packet")
    };
    assert_eq!(p.indirect_buffer(), None);
    let mut w = words;
    w[1] = (3 << 30) | (2 << 16) | (0x10 << 8);
    let Ok(Packet::AmdPm4Ib(p)) = Packet::decode(&w) else {
        panic!("still a PM4-IB packet")
    };
    assert_eq!(p.indirect_buffer(), None);
}
