//! Oracle test through the assembler: for every encoding class and every
//! processor, random instructions are built from our tables (a table
//! entry, its opcode and form bits, random valid registers and constants
//! in its operand fields, random modifier bits), printed with our
//! disassembler, assembled by `llvm-mc-19 --show-encoding`, and the
//! encodings llvm-mc produced are decoded again with ours: our text must
//! equal llvm-mc's canonical printing of every instruction.
//!
//! The generator is seeded (`ISA_MC_SEED`, default fixed), so a run is
//! reproducible; one llvm-mc invocation per processor. Lines llvm-mc
//! rejects (operand combinations the generator does not rule out, such as
//! the constant bus limit) are counted and shown, not compared; every
//! class must still reach its quota of compared instructions.

mod support;

use isa::table::{Field, Kind, OpInfo, entries};
use isa::{Decoder, Encoding, Processor};
use std::collections::BTreeMap;
use support::run_tool;

/// Instructions generated per class and processor.
const PER_CLASS: usize = 80;

/// Compared instructions required per class and processor (classes with
/// entries on that processor).
const QUOTA: usize = 20;

const CLASSES: [Encoding; 17] = [
    Encoding::Sop1,
    Encoding::Sop2,
    Encoding::Sopk,
    Encoding::Sopc,
    Encoding::Sopp,
    Encoding::Smem,
    Encoding::Vop1,
    Encoding::Vop2,
    Encoding::Vopc,
    Encoding::Vop3,
    Encoding::Vop3p,
    Encoding::Sdwa,
    Encoding::Dpp,
    Encoding::Ds,
    Encoding::Flat,
    Encoding::Mubuf,
    Encoding::Mtbuf,
];

/// xorshift64*: small, seeded, reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The fixed bits (value, mask), the opcode position and the encoding size
/// in dwords of a class, and where the entry's form variant goes.
fn class_base(enc: Encoding, e: &OpInfo) -> (u64, u64, u64) {
    let op = u64::from(e.code & 0x3FF);
    let v = u64::from(e.code >> 10);
    // (value, mask) of the fixed bits including the opcode; dwords.
    match enc {
        Encoding::Sop2 => (0x8000_0000 | op << 23, 0xFF80_0000, 1),
        Encoding::Sopk => (0xB000_0000 | op << 23, 0xFF80_0000, 1),
        Encoding::Sop1 => (0xBE80_0000 | op << 8, 0xFF80_FF00, 1),
        Encoding::Sopc => (0xBF00_0000 | op << 16, 0xFFFF_0000, 1),
        Encoding::Sopp => (0xBF80_0000 | op << 16, 0xFFFF_0000, 1),
        Encoding::Smem => (0xC000_0000 | op << 18, 0xFFFC_0000, 2),
        Encoding::Vop1 => (0x7E00_0000 | op << 9, 0xFE01_FE00, 1),
        Encoding::Vop2 => (op << 25, 0xFE00_0000, 1),
        Encoding::Vopc => (0x7C00_0000 | op << 17, 0xFFFE_0000, 1),
        Encoding::Vop3 => (0xD000_0000 | op << 16, 0xFFFF_0000, 2),
        Encoding::Vop3p => (0xD380_0000 | op << 16, 0xFFFF_0000, 2),
        Encoding::Ds => (0xD800_0000 | op << 17, 0xFDFE_0000, 2),
        Encoding::Flat => {
            let mut b = 0xDC00_0000 | op << 18 | (v & 3) << 14 | (v >> 2 & 1) << 13;
            b |= (v >> 4 & 1) << 16;
            let mut m = 0xFFFC_0000 | 0xE000 | 1 << 16;
            if v >> 3 & 1 != 0 {
                b |= 0x7F << 48;
                m |= 0x7F << 48;
            }
            (b, m, 2)
        }
        Encoding::Mubuf => {
            let b = 0xE000_0000 | op << 18 | (v & 1) << 12 | (v >> 1 & 1) << 13 | (v >> 2) << 16;
            (b, 0xFFFC_0000 | 0x3000 | 1 << 16, 2)
        }
        Encoding::Mtbuf => {
            let b = 0xE800_0000 | op << 15 | (v & 1) << 12 | (v >> 1 & 1) << 13;
            (b, 0xFC07_8000 | 0x3000, 2)
        }
        Encoding::Sdwa | Encoding::Dpp => {
            let ext = if enc == Encoding::Sdwa { 249 } else { 250 };
            let (b, m) = match v {
                0 => (0x7E00_0000 | op << 9, 0xFE01_FE00),
                1 => (op << 25, 0xFE00_0000),
                _ => (0x7C00_0000 | op << 17, 0xFFFE_0000),
            };
            (b | ext, m | 0x1FF, 2)
        }
        _ => (0, 0, 1),
    }
}

/// Where an operand field lies (low bit, width) in a class.
fn field_bits(enc: Encoding, field: Field) -> Option<(u32, u32)> {
    use Encoding as E;
    use Field as F;
    Some(match (enc, field) {
        (E::Sop2 | E::Sop1 | E::Sopk, F::Sdst) => (16, 7),
        (E::Sop2 | E::Sop1 | E::Sopc, F::Ssrc0) => (0, 8),
        (E::Sop2 | E::Sopc, F::Ssrc1) => (8, 8),
        (E::Smem, F::Sdata) => (6, 7),
        (E::Vop1 | E::Vop2, F::Vdst) => (17, 8),
        (E::Vop1 | E::Vop2 | E::Vopc, F::Src0) => (0, 9),
        (E::Vop2 | E::Vopc | E::Sdwa | E::Dpp, F::Vsrc1) => (9, 8),
        (E::Vop3 | E::Vop3p, F::Vdst) => (0, 8),
        (E::Vop3, F::Sdst) => (8, 7),
        (E::Vop3 | E::Vop3p, F::Src0) => (32, 9),
        (E::Vop3 | E::Vop3p, F::Src1) => (41, 9),
        (E::Vop3 | E::Vop3p, F::Src2) => (50, 9),
        (E::Ds, F::Addr) => (32, 8),
        (E::Ds, F::Data0) => (40, 8),
        (E::Ds, F::Data1) => (48, 8),
        (E::Ds | E::Flat, F::Vdst) => (56, 8),
        (E::Flat | E::Mubuf | E::Mtbuf, F::Vaddr) => (32, 8),
        (E::Flat | E::Mubuf | E::Mtbuf, F::Vdata) => (40, 8),
        (E::Flat, F::Saddr) => (48, 7),
        (E::Mubuf | E::Mtbuf, F::Soffset) => (56, 8),
        (E::Sdwa | E::Dpp, F::Vdst) => (17, 8),
        (E::Sdwa | E::Dpp, F::Src0) => (32, 8),
        (E::Sdwa, F::Sdst) => (40, 7),
        _ => return None,
    })
}

/// A register index for `width` dwords, aligned as the assembler requires.
fn reg_index(rng: &mut Rng, limit: u64, width: u8) -> u64 {
    let w = u64::from(width.max(1));
    let align = if w == 1 {
        1
    } else if w == 2 {
        2
    } else {
        4
    };
    (rng.below(limit.saturating_sub(w) + 1) / align) * align
}

/// A source operand code: mostly VGPRs, then SGPRs, inline constants and
/// (where allowed) the literal. `sgpr_ok` is false once the constant bus
/// has its one SGPR.
fn source_code(
    rng: &mut Rng,
    width: u8,
    vgpr_only: bool,
    sgpr_ok: &mut bool,
    nine_bits: bool,
) -> u64 {
    let r = rng.below(10);
    if vgpr_only || r < 5 || !nine_bits && r < 7 {
        let v = reg_index(rng, 256, width);
        return if nine_bits { 256 + v } else { v };
    }
    match r {
        5 | 6 if *sgpr_ok => {
            *sgpr_ok = false;
            reg_index(rng, 100, width)
        }
        5..=8 => 128 + rng.below(81),
        _ => 240 + rng.below(9),
    }
}

/// One random instruction of entry `e`, or `None` if our decoder rejects
/// what was built (then the caller tries again).
fn build(
    rng: &mut Rng,
    enc: Encoding,
    e: &'static OpInfo,
    processor: Processor,
) -> Option<Vec<u8>> {
    let (base, mask, dwords) = class_base(enc, e);
    let free = !mask & !e.must_zero & if dwords == 1 { 0xFFFF_FFFF } else { u64::MAX };
    let mut raw = base | (rng.next() & rng.next() & free);
    let mut sgpr_ok = true;
    let mut literal = None;
    let nine = matches!(
        enc,
        Encoding::Vop1 | Encoding::Vop2 | Encoding::Vopc | Encoding::Vop3 | Encoding::Vop3p
    );
    for slot in e.slots {
        let Some((lo, bits)) = field_bits(enc, slot.field) else {
            continue;
        };
        let v = match slot.kind {
            Kind::Vgpr | Kind::Agpr => {
                let v = reg_index(rng, 256, slot.width);
                if bits == 9 { 256 + v } else { v }
            }
            Kind::Sgpr => reg_index(rng, 100, slot.width),
            Kind::Src(_) => {
                // MAI A/B sources are registers of the VGPR/AGPR file.
                let mai = e.mods & isa::table::mods::CBSZ != 0;
                let vgpr_only = matches!(enc, Encoding::Dpp)
                    || mai
                    || (enc == Encoding::Sdwa
                        && raw >> (if slot.field == Field::Src0 { 55 } else { 63 }) & 1 == 0);
                if enc == Encoding::Sdwa && !vgpr_only {
                    // s0/s1 set: an SGPR or an inline constant.
                    if rng.below(2) == 0 {
                        reg_index(rng, 100, 1)
                    } else {
                        128 + rng.below(81)
                    }
                } else if enc == Encoding::Mubuf || enc == Encoding::Mtbuf {
                    if rng.below(3) == 0 {
                        128 + rng.below(65)
                    } else {
                        reg_index(rng, 100, 1)
                    }
                } else if matches!(enc, Encoding::Vop1 | Encoding::Vop2 | Encoding::Vopc)
                    && rng.below(8) == 0
                {
                    literal = Some(rng.next() as u32);
                    255
                } else {
                    source_code(rng, slot.width, vgpr_only, &mut sgpr_ok, nine)
                }
            }
            _ => continue,
        };
        raw = (raw & !(((1u64 << bits) - 1) << lo)) | (v & ((1 << bits) - 1)) << lo;
    }
    // Fields whose every value the disassembler prints but the assembler
    // does not take back: keep them to the assembler's ranges.
    match enc {
        // A valid DPP control (quad_perm, row_shl/shr/ror, wave_*, mirrors,
        // broadcasts; row_newbcast on gfx90a+).
        Encoding::Dpp => {
            let mut ctrls: Vec<u64> = vec![0x140, 0x141, 0x142, 0x143, 0x130, 0x134, 0x138, 0x13c];
            ctrls.push(rng.below(0x100));
            ctrls.push(0x101 + rng.below(15));
            ctrls.push(0x111 + rng.below(15));
            ctrls.push(0x121 + rng.below(15));
            let dp_alu = e
                .slots
                .iter()
                .any(|s| s.width == 2 && matches!(s.field, Field::Vdst | Field::Src0));
            if matches!(processor, Processor::Gfx90a | Processor::Gfx942) {
                ctrls.push(0x150 + rng.below(16));
                if dp_alu {
                    ctrls = vec![0x150 + rng.below(16)];
                }
            }
            let c = ctrls[rng.below(ctrls.len() as u64) as usize];
            raw = (raw & !(0x1FF << 40)) | c << 40;
        }
        // SMEM: a non-negative offset.
        Encoding::Smem => raw &= !(1 << 52),
        // tfe has no meaning for stores.
        Encoding::Mubuf | Encoding::Mtbuf if e.name.contains("store") => raw &= !(1 << 55),
        _ => {}
    }
    // MUBUF/MTBUF resource: four aligned SGPRs.
    if matches!(enc, Encoding::Mubuf | Encoding::Mtbuf) {
        raw = (raw & !(0x1F << 48)) | rng.below(24) << 48;
    }
    if enc == Encoding::Flat && e.code >> 13 & 1 == 0 {
        // saddr is an SGPR (pair) when the form has one.
        let w = e
            .slots
            .iter()
            .find(|s| s.field == Field::Saddr)
            .map_or(2, |s| s.width);
        raw = (raw & !(0x7F << 48)) | reg_index(rng, 100, w) << 48;
    }
    let mut bytes = Vec::new();
    for i in 0..dwords {
        bytes.extend_from_slice(&((raw >> (32 * i)) as u32).to_le_bytes());
    }
    if let Some(l) = literal {
        bytes.extend_from_slice(&l.to_le_bytes());
    }
    let inst = Decoder::new(processor).decode(&bytes).ok()?;
    (inst.len() == bytes.len()).then_some(bytes)
}

/// What llvm-mc printed for each accepted line: its text and encoding.
type Assembled = Vec<(String, Vec<u8>)>;

/// llvm-mc's `--show-encoding` output: (text, bytes) per accepted line and
/// the rejected line numbers (1-based) with llvm-mc's message.
fn assemble(processor: Processor, text: &str) -> (Assembled, BTreeMap<usize, String>) {
    let out = run_tool(
        "llvm-mc-19",
        &[
            "-triple",
            "amdgcn-amd-amdhsa",
            &format!("-mcpu={}", processor.name()),
            "--show-encoding",
        ],
        Some(text),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut rejected = BTreeMap::new();
    for line in stderr.lines() {
        if let Some(rest) = line.strip_prefix("<stdin>:") {
            let mut it = rest.splitn(3, ':');
            if let (Some(n), Some(_), Some(msg)) = (it.next(), it.next(), it.next()) {
                if let Ok(n) = n.parse::<usize>() {
                    rejected.entry(n).or_insert_with(|| msg.trim().to_owned());
                }
            }
        }
    }
    let mut accepted = Vec::new();
    for line in stdout.lines() {
        let Some((insn, enc)) = line.split_once("; encoding: [") else {
            continue;
        };
        let bytes = enc
            .trim_end_matches(']')
            .split(',')
            .filter_map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).ok())
            .collect();
        accepted.push((insn.trim().to_owned(), bytes));
    }
    (accepted, rejected)
}

fn words(bytes: &[u8]) -> String {
    bytes
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            format!("{:08X}", u32::from_le_bytes(w))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn random_instructions_match_llvm_mc() {
    let seed = std::env::var("ISA_MC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_1234_abcd_0001u64);
    let mut rng = Rng(seed);
    let mut failures = Vec::new();
    let mut total = 0usize;
    for processor in Processor::ALL {
        // (class, our text, our bytes) per generated line.
        let mut lines: Vec<(Encoding, String, Vec<u8>)> = Vec::new();
        for enc in CLASSES {
            let ents: Vec<&'static OpInfo> =
                entries(enc).iter().filter(|e| e.on(processor)).collect();
            if ents.is_empty() {
                continue;
            }
            let mut made = 0;
            let mut tries = 0;
            while made < PER_CLASS && tries < PER_CLASS * 50 {
                tries += 1;
                let e = ents[rng.below(ents.len() as u64) as usize];
                let Some(bytes) = build(&mut rng, enc, e, processor) else {
                    continue;
                };
                let Ok(inst) = Decoder::new(processor).decode(&bytes) else {
                    continue;
                };
                lines.push((enc, inst.to_string(), bytes));
                made += 1;
            }
        }
        let text: String = lines.iter().map(|(_, t, _)| format!("{t}\n")).collect();
        let (accepted, rejected) = assemble(processor, &text);
        let kept: Vec<&(Encoding, String, Vec<u8>)> = lines
            .iter()
            .enumerate()
            .filter(|(i, _)| !rejected.contains_key(&(i + 1)))
            .map(|(_, l)| l)
            .collect();
        assert_eq!(
            kept.len(),
            accepted.len(),
            "{}: llvm-mc printed {} instructions for {} accepted lines",
            processor.name(),
            accepted.len(),
            kept.len()
        );
        let mut compared: BTreeMap<String, usize> = BTreeMap::new();
        let mut refused: BTreeMap<String, usize> = BTreeMap::new();
        for (i, (enc, ours, bytes)) in lines.iter().enumerate() {
            if let Some(msg) = rejected.get(&(i + 1)) {
                *refused.entry(format!("{enc:?}")).or_default() += 1;
                if std::env::var_os("ISA_MC_VERBOSE").is_some() {
                    eprintln!(
                        "{} rejected [{}] {ours}: {msg}",
                        processor.name(),
                        words(bytes)
                    );
                }
            }
        }
        for ((enc, ours, our_bytes), (theirs, bytes)) in kept.iter().zip(accepted.iter()) {
            *compared.entry(format!("{enc:?}")).or_default() += 1;
            total += 1;
            let again = match Decoder::new(processor).decode(bytes) {
                Ok(i) if i.len() == bytes.len() => i.to_string(),
                Ok(i) => format!("{i} (length {} of {})", i.len(), bytes.len()),
                Err(e) => format!("error {e}"),
            };
            if &again != theirs {
                failures.push(format!(
                    "{} {enc:?}: generated [{}] {ours}\n    llvm-mc [{}]: {theirs}\n    ours of that:   {again}",
                    processor.name(),
                    words(our_bytes),
                    words(bytes)
                ));
            }
        }
        eprintln!(
            "{}: {} generated, compared per class {compared:?}, rejected by llvm-mc {refused:?}",
            processor.name(),
            lines.len()
        );
        for enc in CLASSES {
            let any = entries(enc).iter().any(|e| e.on(processor));
            let n = compared.get(&format!("{enc:?}")).copied().unwrap_or(0);
            if any && n < QUOTA {
                failures.push(format!(
                    "{} {enc:?}: only {n} instructions compared (quota {QUOTA})",
                    processor.name()
                ));
            }
        }
    }
    for f in failures.iter().take(80) {
        eprintln!("{f}");
    }
    eprintln!("{total} instructions compared, {} failures", failures.len());
    assert!(failures.is_empty(), "{} failures", failures.len());
}
