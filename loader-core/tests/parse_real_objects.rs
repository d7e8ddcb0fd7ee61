//! The parsing views over every real code object we have: the committed
//! corpus (`loader-core/corpus/co`, clang-19 builds of our OpenCL kernels
//! for many processors, code-object v4-v6 and generic targets) and the
//! rocRAND 5.3.3 code objects built by hipcc (`scripts/fetch-rocrand`, run
//! by `scripts/test`; set `ROCRAND_DIR` to use another location). For each:
//! e_flags decode, metadata agrees with e_flags and the ELF version, every
//! kernel and argument decodes, each kernel's `.symbol` is a 64-byte
//! `STT_OBJECT` in `.dynsym`, and the code object is compatible with an
//! agent of its own processor (or, for a generic one, every family member).

use loader_core::elf::{self, ElfFile};
use loader_core::metadata::Metadata;
use loader_core::processor::{FeatureSetting, Processor};
use loader_core::target::TargetId;
use std::path::{Path, PathBuf};

fn code_objects(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "co"))
        .collect();
    v.sort();
    v
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Concrete agent settings that a code object's own settings accept.
fn agent_for(p: &'static Processor, code: &TargetId) -> TargetId {
    let pick = |supported: bool, s: FeatureSetting| match (supported, s) {
        (false, _) => false,
        (true, FeatureSetting::On) => true,
        _ => false,
    };
    TargetId::for_agent(
        p.gfx_target_version,
        pick(p.xnack_supported, code.xnack),
        pick(p.sramecc_supported, code.sramecc),
    )
    .unwrap()
}

fn check(path: &Path) -> usize {
    let bytes = std::fs::read(path).unwrap();
    let name = path.display();
    let f = ElfFile::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let flags = f.flags().unwrap_or_else(|e| panic!("{name}: {e}"));
    let md = Metadata::from_elf(&f)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .expect("metadata");
    md.check_against(&f)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let dynsym = f.dynamic_symbols().unwrap().expect(".dynsym");
    let mut kernels = 0;
    for k in md.kernels() {
        let k = k.unwrap_or_else(|e| panic!("{name}: {e}"));
        for a in k.args() {
            a.unwrap_or_else(|e| panic!("{name}: kernel {}: {e}", k.name));
        }
        let sym = dynsym
            .find(k.symbol.as_bytes())
            .unwrap_or_else(|| panic!("{name}: no symbol {}", k.symbol));
        assert_eq!(
            (sym.kind(), sym.size()),
            (elf::STT_OBJECT, 64),
            "{name}: {}",
            k.symbol
        );
        kernels += 1;
    }
    for p in md.printf() {
        p.unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let code = TargetId::from_flags(&flags).unwrap();
    match code.processor.is_generic_of {
        None => {
            let agent = agent_for(code.processor, &code);
            code.check_compatible(flags.generic_version, &agent)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        Some(family) => {
            let members: Vec<_> = Processor::all()
                .iter()
                .filter(|p| p.generic_family == Some(family))
                .collect();
            assert!(!members.is_empty());
            for p in members {
                let agent = agent_for(p, &code);
                code.check_compatible(flags.generic_version, &agent)
                    .unwrap_or_else(|e| panic!("{name} on {}: {e}", p.name));
            }
        }
    }
    kernels
}

#[test]
fn committed_corpus() {
    let objects = code_objects(&workspace().join("loader-core/corpus/co"));
    assert!(
        objects.len() >= 20,
        "corpus has only {} code objects",
        objects.len()
    );
    let kernels: usize = objects.iter().map(|p| check(p)).sum();
    assert!(kernels > objects.len());
}

#[test]
fn rocrand_code_objects() {
    let dir = std::env::var_os("ROCRAND_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/rocrand"));
    let co = dir.join("co");
    assert!(
        co.is_dir(),
        "{} is missing: run scripts/fetch-rocrand (scripts/test does)",
        co.display()
    );
    let objects = code_objects(&co);
    assert!(!objects.is_empty());
    let kernels: usize = objects.iter().map(|p| check(p)).sum();
    assert!(kernels > 100, "only {kernels} kernels in rocRAND");
}

/// hipcc's bundle entry IDs (`scripts/fetch-rocrand` lists them in
/// `ENTRIES`) name the same target as the `e_flags` of the code object
/// each entry holds.
#[test]
fn rocrand_bundle_entry_ids_match_e_flags() {
    let dir = std::env::var_os("ROCRAND_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/rocrand"));
    let entries = std::fs::read_to_string(dir.join("ENTRIES")).unwrap_or_else(|e| {
        panic!(
            "{}/ENTRIES: {e}: run scripts/fetch-rocrand (scripts/test does)",
            dir.display()
        )
    });
    let mut n = 0;
    for line in entries.lines().filter(|l| !l.trim().is_empty()) {
        let (file, id) = line.rsplit_once(' ').unwrap();
        let file = Path::new(file);
        let path = if file.is_absolute() {
            file.to_path_buf()
        } else {
            dir.join("co").join(file.file_name().unwrap())
        };
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let f = ElfFile::parse(&bytes).unwrap();
        let from_flags = TargetId::from_flags(&f.flags().unwrap()).unwrap();
        let (kind, from_id) =
            TargetId::parse_bundle_entry_id(id).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert!(kind.starts_with("hip"), "{id}");
        assert_eq!(from_id, from_flags, "{id}");
        n += 1;
    }
    assert!(n > 0);
}
