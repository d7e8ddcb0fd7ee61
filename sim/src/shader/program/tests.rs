//! [`Inst::whole`] against the ordinary handlers. For every VOP1, VOP2
//! and VOP3 entry of the decoder's gfx90a table, random encodings (random
//! VGPRs among the first 64, SGPRs, constants, literals, modifier bits)
//! are decoded and lowered; where the instruction claims VGPRs it
//! overwrites whole, it runs twice with EXEC full on waves that differ
//! only in those VGPRs' old lanes: both runs must end in the same state
//! (every VGPR, the scalar file, SCC), or the claim would let the
//! scheduler skip writing out a value the handler reads.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use isa::table::{Field, Kind, OpInfo, entries};
use isa::{Decoder, Encoding, Operand, Processor, SpecialReg};

use super::super::Fault;
use super::super::testing::{Rng, in_context};
use super::super::wave::{LANES, Wave};
use super::{EXEC, Program};

/// VGPRs in the test waves (every VGPR operand lies below).
const VGPRS: u64 = 64;

/// The fixed bits (value, mask) of entry `e`'s class, and where its
/// operand fields lie (low bit, width): AMDGPUAsmGFX90a / SIInstrFormats'
/// VOP1, VOP2 and VOP3 layouts.
fn layout(enc: Encoding, e: &OpInfo) -> (u64, u64) {
    let op = u64::from(e.code & 0x3ff);
    match enc {
        Encoding::Vop1 => (0x7e00_0000 | op << 9, 0xfe01_fe00),
        Encoding::Vop2 => (op << 25, 0xfe00_0000),
        _ => (0xd000_0000 | op << 16, 0xffff_0000),
    }
}

fn field_bits(enc: Encoding, f: Field) -> Option<(u32, u32)> {
    Some(match (enc, f) {
        (Encoding::Vop1 | Encoding::Vop2, Field::Vdst) => (17, 8),
        (Encoding::Vop1 | Encoding::Vop2, Field::Src0) => (0, 9),
        (Encoding::Vop2, Field::Vsrc1) => (9, 8),
        (Encoding::Vop3, Field::Vdst) => (0, 8),
        (Encoding::Vop3, Field::Sdst) => (8, 7),
        (Encoding::Vop3, Field::Src0) => (32, 9),
        (Encoding::Vop3, Field::Src1) => (41, 9),
        (Encoding::Vop3, Field::Src2) => (50, 9),
        _ => return None,
    })
}

/// A random instruction of `e`: its bytes (a literal dword appended).
fn build(rng: &mut Rng, enc: Encoding, e: &OpInfo) -> [u8; 12] {
    let (base, mask) = layout(enc, e);
    let width = if enc == Encoding::Vop3 {
        u64::MAX
    } else {
        0xffff_ffff
    };
    let mut raw = base | (rng.next() & !mask & !e.must_zero & width);
    let mut sgpr = true;
    for slot in e.slots {
        let Some((lo, bits)) = field_bits(enc, slot.field) else {
            continue;
        };
        let w = u64::from(slot.width.max(1));
        let vgpr = |rng: &mut Rng| (rng.below(VGPRS - w + 1) / w.min(2)) * w.min(2);
        let v = match slot.kind {
            Kind::Vgpr => vgpr(rng),
            Kind::Src(_) => match rng.below(10) {
                0..=5 => 256 + vgpr(rng),
                6 if sgpr => {
                    sgpr = false;
                    rng.below(100 - w) & !(w.min(2) - 1)
                }
                7 if enc != Encoding::Vop3 => 255,
                6..=8 => 128 + rng.below(81),
                _ => 240 + rng.below(9),
            },
            // A VOP3b carry-out: VCC, an SGPR pair, or now and then EXEC.
            Kind::Sgpr if slot.field == Field::Sdst => [106, 4, 126][rng.below(3) as usize],
            _ => continue,
        };
        let v = if bits == 8 { v & 0xff } else { v };
        raw = (raw & !(((1u64 << bits) - 1) << lo)) | (v & ((1 << bits) - 1)) << lo;
    }
    let mut bytes = [0u8; 12];
    bytes[..8].copy_from_slice(&raw.to_le_bytes());
    if enc != Encoding::Vop3 {
        // The literal right after a 32-bit encoding.
        bytes[4..8].copy_from_slice(&(rng.next() as u32).to_le_bytes());
    }
    bytes[8..].copy_from_slice(&(rng.next() as u32).to_le_bytes());
    bytes
}

/// A wave of random lanes and scalars, EXEC full, no shapes.
fn random_wave(rng: &mut Rng) -> Wave {
    let mut w = Wave::new(VGPRS as usize);
    w.materialize_all();
    for r in &mut w.v {
        *r = std::array::from_fn(|_| rng.next() as u32);
    }
    for s in w.s.iter_mut() {
        *s = rng.next() as u32;
    }
    w.set_s64(EXEC, u64::MAX);
    w
}

#[test]
fn what_an_instruction_overwrites_whole_it_does_not_read() {
    in_context(|ctx| {
        let decoder = Decoder::new(Processor::Gfx90a);
        let program = Program::new(decoder, ctx.launch.resolve, Arc::new(AtomicU64::new(0)));
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut checked = BTreeSet::new();
        let mut never = BTreeSet::new();
        let mut claimers = BTreeSet::new();
        let mut illegal = BTreeSet::new();
        let mut carry_into_exec = 0;
        let mut runs = 0usize;
        for enc in [Encoding::Vop1, Encoding::Vop2, Encoding::Vop3] {
            for e in entries(enc).iter().filter(|e| e.on(Processor::Gfx90a)) {
                let mut claimed = false;
                for _ in 0..60 {
                    let bytes = build(&mut rng, enc, e);
                    let Ok(i) = decoder.decode(&bytes) else {
                        continue;
                    };
                    if i.opcode() != e.op || i.encoding() != enc {
                        continue;
                    }
                    let into_exec = matches!(
                        i.operand(Field::Sdst),
                        Some(Operand::Special {
                            reg: SpecialReg::ExecLo,
                            ..
                        })
                    );
                    let inst = program.lower(0, i);
                    if into_exec {
                        // Its carry-out would change the lanes it writes.
                        assert_eq!(inst.whole, 0, "{}: carry-out into EXEC", inst.mnemonic());
                        carry_into_exec += 1;
                    }
                    if inst.whole == 0 {
                        continue;
                    }
                    claimed = true;
                    claimers.insert(e.name);
                    let a0 = random_wave(&mut rng);
                    let mut b0 = a0.clone();
                    let mut bits = inst.whole;
                    while bits != 0 {
                        let r = bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        b0.v[r] = std::array::from_fn(|_| rng.next() as u32);
                    }
                    let (mut a, mut b) = (a0.clone(), b0);
                    let ra = (inst.exec)(&mut a, &inst, ctx);
                    let rb = (inst.exec)(&mut b, &inst, ctx);
                    let text = inst.mnemonic();
                    assert_eq!(ra.is_ok(), rb.is_ok(), "{text}: {bytes:02x?}");
                    if let Err(f) = ra {
                        // Only an operation the interpreter does not
                        // implement fails on random operands.
                        assert!(matches!(*f, Fault::Illegal { .. }), "{text}: {f:?}");
                        illegal.insert(e.name);
                        continue;
                    }
                    runs += 1;
                    checked.insert(e.name);
                    for (k, (x, y)) in a.v.iter().zip(&b.v).enumerate() {
                        if x != y {
                            let lane = (0..LANES).find(|&l| x[l] != y[l]);
                            panic!(
                                "{text} ({bytes:02x?}, whole {:#x}): v{k} lane {lane:?} depends on \
                                 the old value of what it claims to overwrite",
                                inst.whole
                            );
                        }
                    }
                    assert_eq!(a.s, b.s, "{text}: scalar file");
                    assert_eq!(a.scc, b.scc, "{text}: SCC");
                }
                if !claimed {
                    never.insert(e.name);
                }
            }
        }
        eprintln!(
            "{} entries checked over {runs} runs; {} not implemented: {illegal:?}",
            checked.len(),
            illegal.len()
        );
        // Every entry that claims a destination and that the interpreter
        // implements ran and was checked.
        let unchecked: Vec<_> = claimers
            .difference(&checked)
            .filter(|n| !illegal.contains(*n))
            .collect();
        assert!(unchecked.is_empty(), "claimed, never run: {unchecked:?}");
        assert!(checked.is_disjoint(&illegal));
        assert!(
            carry_into_exec > 0,
            "no VOP3b carry-out into EXEC was generated"
        );
        // Exactly these never claim one: those with no VGPR destination
        // (compares write SGPRs), and those that read theirs.
        let never: BTreeSet<&str> = never
            .into_iter()
            .filter(|n| !n.starts_with("v_cmp"))
            .collect();
        let want: BTreeSet<&str> = [
            "v_nop",
            "v_clrexcp",
            "v_readfirstlane_b32",
            "v_readlane_b32",
            "v_writelane_b32",
            "v_swap_b32",
            "v_cvt_pkaccum_u8_f32",
            "v_mac_f16_e32",
            "v_mac_f16_e64",
            "v_mac_f32_e32",
            "v_mac_f32_e64",
            "v_fmac_f32_e32",
            "v_fmac_f32_e64",
            "v_fmac_f64_e32",
            "v_fmac_f64_e64",
            "v_pk_fmac_f16_e32",
            "v_dot2c_f32_f16_e32",
            "v_dot2c_f32_f16_e64",
            "v_dot2c_i32_i16_e32",
            "v_dot2c_i32_i16_e64",
            "v_dot4c_i32_i8_e32",
            "v_dot4c_i32_i8_e64",
            "v_dot8c_i32_i4_e32",
            "v_dot8c_i32_i4_e64",
        ]
        .into_iter()
        .collect();
        assert_eq!(never, want);
    });
}
