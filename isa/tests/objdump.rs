//! Oracle test: our text equals `llvm-objdump-19 -d`'s, line by line
//! (objdump's trailing `// address: words` comment stripped), for every
//! instruction of every function symbol of every GFX9 code object in the
//! corpora (loader-core's, ours in isa/corpus, and rocRAND's gfx900, gfx906,
//! gfx908 and gfx90a objects from scripts/fetch-rocrand).

mod support;

use isa::listing::processor_of;
use isa::{Decoder, Encoding};
use loader_core::elf::ElfFile;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use support::{corpus_code_objects, rocrand_code_objects, run_tool};

const STT_FUNC: u8 = 2;

/// objdump's text of every instruction it printed, by address.
fn objdump_lines(path: &Path) -> HashMap<u64, String> {
    let out = run_tool("llvm-objdump-19", &["-d", path.to_str().unwrap()], None);
    assert!(
        out.status.success(),
        "llvm-objdump-19 -d {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let mut lines = HashMap::new();
    for line in text.lines() {
        let Some(body) = line.strip_prefix('\t') else {
            continue;
        };
        let Some((insn, comment)) = body.split_once("//") else {
            continue;
        };
        let Some((addr, _)) = comment.trim_start().split_once(':') else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr, 16) else {
            continue;
        };
        lines.insert(addr, insn.trim_end().to_owned());
    }
    lines
}

#[derive(Default)]
struct Stats {
    files: usize,
    functions: usize,
    compared: usize,
    by_class: BTreeMap<String, usize>,
    mismatches: Vec<String>,
}

fn check_file(path: &Path, stats: &mut Stats) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let elf = ElfFile::parse(&bytes).expect("ELF");
    let Ok(processor) = processor_of(&elf) else {
        return; // not GFX9
    };
    stats.files += 1;
    let theirs = objdump_lines(path);
    let decoder = Decoder::new(processor);
    let symbols = match elf.symbols().expect(".symtab") {
        Some(t) => t,
        None => elf.dynamic_symbols().expect(".dynsym").expect("symbols"),
    };
    let mut seen = std::collections::HashSet::new();
    for sym in symbols.iter() {
        let sym = sym.expect("symbol");
        if sym.kind() != STT_FUNC || sym.size() == 0 || !seen.insert(sym.value()) {
            continue;
        }
        let name = sym.name_str().unwrap_or("?").to_owned();
        let section = elf
            .section(usize::from(sym.section_index()))
            .expect("section");
        let data = section.data().expect("section data");
        let start = (sym.value() - section.header().sh_addr) as usize;
        let code = &data[start..start + sym.size() as usize];
        stats.functions += 1;
        let mut covered = 0usize;
        for (off, r) in decoder.decode_all(code) {
            let addr = sym.value() + off as u64;
            let Some(want) = theirs.get(&addr) else {
                // objdump skips runs of zero words ("...").
                if code[off..].iter().take(4).all(|b| *b == 0) {
                    continue;
                }
                stats.mismatches.push(format!(
                    "{} {name}+{off:#x}: objdump printed no instruction here (ours: {})",
                    path.display(),
                    match &r {
                        Ok(i) => i.to_string(),
                        Err(e) => e.to_string(),
                    }
                ));
                continue;
            };
            covered += 1;
            let words: Vec<String> = code[off..]
                .chunks(4)
                .take(3)
                .map(|c| format!("{:08X}", u32::from_le_bytes(c.try_into().unwrap_or([0; 4]))))
                .collect();
            match r {
                Ok(i) => {
                    stats.compared += 1;
                    *stats
                        .by_class
                        .entry(format!("{:?}", i.encoding()))
                        .or_default() += 1;
                    let ours = i.to_string();
                    if &ours != want {
                        stats.mismatches.push(format!(
                            "{} {name}+{off:#x} [{}]:\n    objdump: {want}\n    ours:    {ours}",
                            path.display(),
                            words.join(" ")
                        ));
                    }
                }
                Err(e) => {
                    if want != "<unknown>" {
                        *stats
                            .by_class
                            .entry(format!("error {:?}", e.encoding))
                            .or_default() += 1;
                        stats.mismatches.push(format!(
                            "{} {name}+{off:#x} [{}]:\n    objdump: {want}\n    ours:    error {e}",
                            path.display(),
                            words.join(" ")
                        ));
                    }
                }
            }
        }
        let theirs_in_range = theirs
            .keys()
            .filter(|a| **a >= sym.value() && **a < sym.value() + sym.size())
            .count();
        if theirs_in_range != covered {
            stats.mismatches.push(format!(
                "{} {name}: objdump printed {theirs_in_range} instructions, we matched {covered} (out of step)",
                path.display()
            ));
        }
    }
    let _ = Encoding::Vop3;
}

fn run(files: &[PathBuf], what: &str) {
    let mut stats = Stats::default();
    for f in files {
        check_file(f, &mut stats);
    }
    eprintln!(
        "{what}: {} GFX9 code objects, {} functions, {} instructions compared; by class: {:?}",
        stats.files, stats.functions, stats.compared, stats.by_class
    );
    let n = stats.mismatches.len();
    for m in stats
        .mismatches
        .iter()
        .filter(|m| !m.contains("not supported") && !m.contains("printed no instruction"))
        .take(60)
    {
        eprintln!("{m}");
    }
    assert!(stats.files > 0, "{what}: no GFX9 code object");
    assert_eq!(n, 0, "{what}: {n} instructions differ from llvm-objdump-19");
}

#[test]
fn corpus_matches_objdump() {
    run(&corpus_code_objects(), "corpus");
}

#[test]
fn rocrand_matches_objdump() {
    let files = rocrand_code_objects();
    run(&files, "rocRAND");
}
