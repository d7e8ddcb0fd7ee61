//! Differential test of `loader-core`'s kernel descriptors against
//! `llvm-objdump-19`, on every kernel of every code object of our corpus
//! (`loader-core/corpus/co`) and of rocRAND (`scripts/fetch-rocrand`): the
//! `.amdhsa_*` directives (and the `; NAME value` comment lines) that
//! `loader-core` derives from each `<kernel>.kd` equal, line by line, what
//! `llvm-objdump-19 -D --disassemble-symbols=<kernel>.kd` prints; and the
//! descriptors found are exactly the kernels the metadata names.

mod loader_support;

use loader_core::elf::ElfFile;
use loader_core::kernel_descriptor::{GpuFamily, KernelDescriptor};
use loader_core::metadata::Metadata;
use loader_support::llvm::objdump_kernel_descriptors;
use loader_support::{corpus_code_objects, read, rocrand_code_objects};
use std::collections::BTreeMap;
use std::path::PathBuf;

const STT_OBJECT: u8 = 1;

/// The message of LLVM 19's disassembler for the gfx10+ reserved SGPR field.
const GFX10_SGPR_QUIRK: &str =
    "GRANULATED_WAVEFRONT_SGPR_COUNT reserved bits in range (9:6) set, must be zero on gfx10+";

/// Directives of one descriptor, or why loader-core rejected it.
type Decoded = Result<Vec<(String, i128)>, String>;

/// Our view of every `<kernel>.kd` symbol: name -> (directives or
/// rejection, file offset of the descriptor).
fn our_descriptors(bytes: &[u8]) -> Result<BTreeMap<String, (Decoded, usize)>, String> {
    let elf = ElfFile::parse(bytes).map_err(|e| format!("ELF: {e}"))?;
    let cov = elf
        .code_object_version()
        .map_err(|e| format!("code-object version: {e}"))?
        .number();
    let flags = elf.flags().map_err(|e| format!("e_flags: {e}"))?;
    let processor = flags.processor.ok_or("e_flags names no processor")?;
    let family = GpuFamily::from_processor(processor.name)
        .ok_or_else(|| format!("no GPU family for {}", processor.name))?;
    let symbols = match elf.symbols().map_err(|e| format!(".symtab: {e}"))? {
        Some(t) => t,
        None => elf
            .dynamic_symbols()
            .map_err(|e| format!(".dynsym: {e}"))?
            .ok_or("no symbol table")?,
    };
    let mut out = BTreeMap::new();
    for sym in symbols.iter() {
        let sym = sym.map_err(|e| format!("symbol: {e}"))?;
        let name = sym.name_str().map_err(|e| format!("symbol name: {e}"))?;
        if sym.kind() != STT_OBJECT || !name.ends_with(".kd") {
            continue;
        }
        let section = elf
            .section(usize::from(sym.section_index()))
            .map_err(|e| format!("{name}: {e}"))?;
        let data = section
            .data()
            .map_err(|e| format!("{name}: section data: {e}"))?;
        let start = sym
            .value()
            .checked_sub(section.header().sh_addr)
            .and_then(|o| usize::try_from(o).ok())
            .ok_or_else(|| format!("{name}: value outside its section"))?;
        let kd_bytes = data
            .get(start..start + 64)
            .ok_or_else(|| format!("{name}: runs past its section"))?;
        let file_offset = section.header().sh_offset as usize + start;
        let decoded = KernelDescriptor::parse(kd_bytes)
            .and_then(|kd| kd.decode(family))
            .map(|kd| {
                kd.directives(cov as u8)
                    .map(|d| {
                        (
                            if d.comment {
                                format!("; {}", d.name)
                            } else {
                                d.name.to_owned()
                            },
                            i128::from(d.value),
                        )
                    })
                    .collect()
            });
        out.insert(
            name.to_owned(),
            (decoded.map_err(|e| e.to_string()), file_offset),
        );
    }
    Ok(out)
}

/// The `.symbol` of every kernel in the metadata, typed view.
fn metadata_symbols(bytes: &[u8]) -> Result<Vec<String>, String> {
    let elf = ElfFile::parse(bytes).map_err(|e| format!("ELF: {e}"))?;
    let md = Metadata::from_elf(&elf)
        .map_err(|e| format!("metadata: {e}"))?
        .ok_or("no metadata note")?;
    let mut names = Vec::new();
    for k in md.kernels() {
        let k = k.map_err(|e| format!("kernel: {e}"))?;
        names.push(k.symbol.to_owned());
    }
    names.sort();
    Ok(names)
}

fn check(files: &[PathBuf]) {
    let mut failures = Vec::new();
    let mut kernels = 0usize;
    let mut lines = 0usize;
    let mut rejected = 0usize;
    let mut patched_count = 0usize;
    for path in files {
        let bytes = read(path);
        let mut ours = match our_descriptors(&bytes) {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{}: loader-core: {e}", path.display()));
                continue;
            }
        };
        match metadata_symbols(&bytes) {
            Ok(symbols) if symbols.iter().eq(ours.keys()) => {}
            Ok(symbols) => failures.push(format!(
                "{}: metadata kernels {symbols:?} but descriptors {:?}",
                path.display(),
                ours.keys().collect::<Vec<_>>()
            )),
            Err(e) => failures.push(format!("{}: loader-core: {e}", path.display())),
        }
        let names: Vec<String> = ours.keys().cloned().collect();
        let mut theirs = objdump_kernel_descriptors(path, &names);
        // LLVM 19's code generator writes GRANULATED_WAVEFRONT_SGPR_COUNT
        // into descriptors for gfx10+, where the field is reserved (the CP
        // ignores it; loader-core must accept it, as ROCr does), and LLVM
        // 19's disassembler then refuses them (llvm-project PR #154666 stops
        // writing the bits). For those, both decoders are given the same
        // copy with the reserved bits cleared, which is what a fixed LLVM
        // writes.
        let refused: Vec<&str> = theirs
            .iter()
            .filter(|k| {
                k.error
                    .as_deref()
                    .is_some_and(|e| e.contains(GFX10_SGPR_QUIRK))
            })
            .map(|k| k.name.as_str())
            .collect();
        if !refused.is_empty() {
            let mut copy = bytes.clone();
            let mut kds = Vec::new();
            for name in &refused {
                let kd = format!("{name}.kd");
                let (_, at) = ours[&kd];
                let rsrc1 = at + 48;
                let v =
                    u32::from_le_bytes(copy[rsrc1..rsrc1 + 4].try_into().unwrap()) & !(0xf << 6);
                copy[rsrc1..rsrc1 + 4].copy_from_slice(&v.to_le_bytes());
                kds.push(kd);
            }
            let patched = std::env::temp_dir().join(format!(
                "loader-objdump-{}-{}",
                std::process::id(),
                path.file_name().unwrap().to_string_lossy()
            ));
            std::fs::write(&patched, &copy).unwrap();
            let redone = objdump_kernel_descriptors(&patched, &kds);
            let _ = std::fs::remove_file(&patched);
            let ours_patched = our_descriptors(&copy).expect("patched copy parses");
            for kd in &kds {
                match (&ours[kd].0, &ours_patched[kd].0) {
                    (Err(e), _) => failures.push(format!(
                        "{}: {kd}: loader-core rejects an LLVM 19 gfx10+ descriptor ROCr loads: {e}",
                        path.display()
                    )),
                    // The reserved field must not change what we print.
                    (Ok(original), Ok(cleared)) if original != cleared => failures.push(format!(
                        "{}: {kd}: the reserved SGPR field changes loader-core's directives:\n{original:?}\nvs cleared\n{cleared:?}",
                        path.display()
                    )),
                    _ => {}
                }
                ours.insert(kd.clone(), ours_patched[kd].clone());
            }
            for k in redone {
                assert!(
                    k.error.is_none(),
                    "{}: {} still refused with the bits cleared: {:?}",
                    path.display(),
                    k.name,
                    k.error
                );
                patched_count += 1;
                let slot = theirs.iter_mut().find(|t| t.name == k.name).unwrap();
                *slot = k;
            }
        }
        if theirs.len() != ours.len() {
            failures.push(format!(
                "{}: llvm-objdump-19 printed {} descriptors, loader-core found {}",
                path.display(),
                theirs.len(),
                ours.len()
            ));
        }
        for k in &theirs {
            let Some((mine, _)) = ours.get(&format!("{}.kd", k.name)) else {
                failures.push(format!(
                    "{}: llvm-objdump-19 printed {}, loader-core has no such .kd",
                    path.display(),
                    k.name
                ));
                continue;
            };
            kernels += 1;
            match (mine, &k.error) {
                // Both refuse the descriptor: agreement.
                (Err(_), Some(_)) => rejected += 1,
                (Err(e), None) => failures.push(format!(
                    "{}: {}: loader-core rejects what llvm-objdump-19 decodes: {e}",
                    path.display(),
                    k.name
                )),
                (Ok(_), Some(why)) => failures.push(format!(
                    "{}: {}: loader-core accepts what llvm-objdump-19 rejects: {why}",
                    path.display(),
                    k.name
                )),
                (Ok(mine), None) => {
                    lines += k.directives.len();
                    if *mine != k.directives {
                        let diff: Vec<String> = k
                            .directives
                            .iter()
                            .zip(mine.iter().map(Some).chain(std::iter::repeat(None)))
                            .filter(|(t, o)| Some(*t) != *o)
                            .take(5)
                            .map(|(t, o)| format!("objdump {t:?} / loader-core {o:?}"))
                            .collect();
                        failures.push(format!(
                            "{}: {}: {} lines from objdump, {} from loader-core; first differences: {}",
                            path.display(),
                            k.name,
                            k.directives.len(),
                            mine.len(),
                            diff.join("; ")
                        ));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "kernel descriptors differ from llvm-objdump-19:\n{}",
        failures.join("\n")
    );
    assert!(kernels >= files.len(), "only {kernels} kernels compared");
    assert!(
        rejected * 2 < kernels,
        "{rejected} of {kernels} descriptors rejected by both: too few compared"
    );
    eprintln!(
        "{} code objects, {kernels} kernel descriptors: {} with {lines} directive lines equal to \
         llvm-objdump-19 ({patched_count} of them decoded by both from a copy without LLVM 19's \
         gfx10+ reserved SGPR bits), {rejected} rejected by both",
        files.len(),
        kernels - rejected
    );
}

#[test]
fn corpus_kernel_descriptors_equal_llvm_objdump() {
    check(&corpus_code_objects());
}

#[test]
fn rocrand_kernel_descriptors_equal_llvm_objdump() {
    check(&rocrand_code_objects());
}
