//! `loader_core::processor` against LLVM main's own processor table, kept as
//! data in `tests/data/llvm-amdgpu-processors.txt` (its header names the
//! LLVM files and revision): every `EF_AMDGPU_MACH_*` value, every
//! processor's ISA version (KFD's `gfx_target_version`) and its xnack and
//! sramecc features, in both directions. LLVM 19's own view (the processors
//! `llc-19` knows) is checked by `parse_target.rs` and the readelf tests.

use std::collections::BTreeMap;

use loader_core::elf::CodeObjectVersion;
use loader_core::processor::{EFlags, Processor};
use loader_core::{ErrorKind, Location};

/// What LLVM's table says about one processor.
#[derive(Debug, Default)]
struct Llvm {
    mach: Option<u8>,
    /// `(major, minor, stepping)` from `AMDGPUTargetParser.def`.
    isa: Option<(u32, u32, u32)>,
    /// The `FEATURE_*` names of the processor's row.
    features: Option<Vec<String>>,
}

/// The processor name of an `elf-header-flags-mach.ll` check line's
/// enumerator: `EF_AMDGPU_MACH_AMDGCN_GFX9_4_GENERIC` -> `gfx9-4-generic`.
fn name_of_enumerator(e: &str) -> String {
    let rest = e
        .strip_prefix("EF_AMDGPU_MACH_AMDGCN_")
        .or_else(|| e.strip_prefix("EF_AMDGPU_MACH_R600_"))
        .unwrap_or_else(|| panic!("not an EF_AMDGPU_MACH enumerator: {e}"));
    rest.to_ascii_lowercase().replace('_', "-")
}

fn llvm_table() -> BTreeMap<String, Llvm> {
    let text = include_str!("data/llvm-amdgpu-processors.txt");
    let mut table: BTreeMap<String, Llvm> = BTreeMap::new();
    let mut section = "";
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with('[') {
            section = line;
            continue;
        }
        match section {
            "[processors]" => {
                // R600_GPU ("r600", GK_R600, FEATURE_NONE)
                // AMDGCN_GPU ("gfx90a", GK_GFX90A, ( 9, 0, 10), FEATURE_A|FEATURE_B)
                let open = line.find('(').expect("row has '('");
                let body = line[open + 1..].strip_suffix(')').expect("row ends in ')'");
                let name = body.split('"').nth(1).expect("quoted name").to_owned();
                let isa = body.find('(').map(|i| {
                    let close = body[i..].find(')').unwrap() + i;
                    let v: Vec<u32> = body[i + 1..close]
                        .split(',')
                        .map(|n| n.trim().parse().expect("ISA version number"))
                        .collect();
                    (v[0], v[1], v[2])
                });
                let features = body
                    .rsplit(',')
                    .next()
                    .unwrap()
                    .split('|')
                    .map(|f| f.trim().to_owned())
                    .collect();
                let e = table.entry(name).or_default();
                e.isa = isa;
                e.features = Some(features);
            }
            "[mach]" => {
                // ; GFX90A:        EF_AMDGPU_MACH_AMDGCN_GFX90A (0x3F)
                let mut words = line.split_whitespace().skip(2);
                let enumerator = words.next().expect("enumerator");
                let value = words.next().expect("value");
                let hex = value
                    .strip_prefix("(0x")
                    .and_then(|v| v.strip_suffix(')'))
                    .expect("(0x..) value");
                let mach = u8::from_str_radix(hex, 16).expect("hex value");
                let e = table.entry(name_of_enumerator(enumerator)).or_default();
                assert!(e.mach.is_none(), "{enumerator} listed twice");
                e.mach = Some(mach);
            }
            other => panic!("line outside a section ({other:?}): {line}"),
        }
    }
    assert!(
        table.len() >= 75,
        "LLVM table has {} processors",
        table.len()
    );
    table
}

/// LLVM 19 still writes these; LLVM main has reserved their numbers.
const LLVM19_ONLY: &[(&str, u8)] = &[("gfx940", 0x40), ("gfx941", 0x4b)];

#[test]
fn every_llvm_processor_has_its_mach_value() {
    let llvm = llvm_table();
    for (name, l) in &llvm {
        let mach = l
            .mach
            .unwrap_or_else(|| panic!("{name}: LLVM table gives no EF_AMDGPU_MACH value"));
        let ours = Processor::from_name(name)
            .unwrap_or_else(|| panic!("{name} (EF_AMDGPU_MACH {mach:#x}) is not in our table"));
        assert_eq!(ours.mach, mach, "{name}: EF_AMDGPU_MACH");
        assert_eq!(
            Processor::from_mach(mach).map(|p| p.name),
            Some(name.as_str()),
            "EF_AMDGPU_MACH {mach:#x}"
        );
    }
    // And nothing of ours that LLVM main does not have, but LLVM 19's two.
    for p in Processor::all() {
        if LLVM19_ONLY.contains(&(p.name, p.mach)) {
            assert!(
                !llvm.values().any(|l| l.mach == Some(p.mach)),
                "{}: LLVM main reuses {:#x}",
                p.name,
                p.mach
            );
            continue;
        }
        assert!(
            llvm.contains_key(p.name),
            "{} ({:#x}) is in our table but not in LLVM's",
            p.name,
            p.mach
        );
    }
}

#[test]
fn isa_versions_and_features_equal_llvm() {
    let llvm = llvm_table();
    let mut checked = 0;
    for (name, l) in &llvm {
        let ours = Processor::from_name(name).unwrap();
        let Some(features) = &l.features else {
            continue;
        };
        let has = |f: &str| features.iter().any(|x| x == f);
        assert_eq!(ours.xnack_supported, has("FEATURE_XNACK"), "{name}: xnack");
        assert_eq!(
            ours.xnack_on_off,
            has("FEATURE_XNACK_ON_OFF_MODES"),
            "{name}: xnack on/off modes"
        );
        assert_eq!(
            ours.sramecc_supported,
            has("FEATURE_SRAMECC"),
            "{name}: sramecc"
        );
        if ours.is_r600() {
            assert_eq!(l.isa, None, "{name}");
        } else if !ours.is_generic() {
            // KFD's gfx_target_version is LLVM's major.minor.stepping.
            let (major, minor, stepping) = l.isa.expect("AMDGCN row has an ISA version");
            assert_eq!(
                ours.isa_version(),
                Some((major, minor, stepping)),
                "{name}: ISA version"
            );
        }
        checked += 1;
    }
    assert!(checked >= 70, "{checked} rows checked");
}

#[test]
fn generic_targets_without_a_feature_row_take_their_members_features() {
    // gfx11-7-generic and gfx13-generic came to LLVM main after the
    // TargetParser revision in the data file: their features must be what
    // every member of the family has (LLVM: the lowest common denominator).
    let llvm = llvm_table();
    for (name, l) in &llvm {
        if l.features.is_some() {
            continue;
        }
        let ours = Processor::from_name(name).unwrap();
        let family = ours
            .is_generic_of
            .unwrap_or_else(|| panic!("{name}: no feature row in the data and not generic"));
        let members: Vec<&Processor> = Processor::all()
            .iter()
            .filter(|p| p.generic_family == Some(family))
            .collect();
        assert!(!members.is_empty(), "{name}: no members");
        assert_eq!(
            ours.xnack_supported,
            members.iter().all(|p| p.xnack_supported),
            "{name}"
        );
        assert_eq!(
            ours.sramecc_supported,
            members.iter().all(|p| p.sramecc_supported),
            "{name}"
        );
    }
}

#[test]
fn every_llvm_mach_decodes_with_the_default_feature_bits() {
    // What LLVM main writes for `-mcpu=NAME` in code object v5 (v6 for the
    // generic processors, with generic version 1): xnack and sramecc `any`
    // where supported. None of these may be an error, gfx1250's 0x549 included.
    for (name, l) in llvm_table() {
        let p = Processor::from_name(&name).unwrap();
        if p.is_r600() {
            continue;
        }
        let mut raw = u32::from(l.mach.unwrap());
        if p.xnack_supported {
            raw |= 0x100;
        }
        if p.sramecc_supported {
            raw |= 0x400;
        }
        let version = if p.is_generic() {
            raw |= 1 << 24;
            CodeObjectVersion::V6
        } else {
            CodeObjectVersion::V5
        };
        let f = EFlags::decode(raw, version).unwrap_or_else(|e| panic!("{name} {raw:#x}: {e}"));
        assert_eq!(f.processor.map(|p| p.name), Some(name.as_str()));
    }
    assert_eq!(
        EFlags::decode(0x549, CodeObjectVersion::V5)
            .unwrap()
            .processor
            .unwrap()
            .name,
        "gfx1250"
    );
}

#[test]
fn a_processor_newer_than_the_table_is_unknown_with_its_number() {
    let llvm = llvm_table();
    let used: Vec<u8> = llvm
        .values()
        .filter_map(|l| l.mach)
        .chain(LLVM19_ONLY.iter().map(|&(_, m)| m))
        .collect();
    for mach in 1..=0xffu8 {
        let decoded = EFlags::decode(u32::from(mach) | 0x100, CodeObjectVersion::V5);
        if used.contains(&mach) {
            continue;
        }
        if mach <= 3 {
            continue; // R600 numbers; r600..rs880 are known
        }
        let e = decoded.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported, "{mach:#x}: {e}");
        assert_eq!(
            e.location(),
            Location::Value("e_flags EF_AMDGPU_MACH", u64::from(mach)),
            "{mach:#x}: {e}"
        );
        // Whatever the feature bits say: the machine is what is unknown.
        assert!(!e.what().contains("xnack"), "{mach:#x}: {e}");
    }
    let e = EFlags::decode(0x70 | 0x300, CodeObjectVersion::V5).unwrap_err();
    assert_eq!(
        e.to_string(),
        "e_flags EF_AMDGPU_MACH 0x70: unknown processor (not in this EF_AMDGPU_MACH table)"
    );
}
