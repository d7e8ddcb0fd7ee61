//! `hsa disasm` lists every function of a GFX9 code object exactly as
//! `llvm-objdump-19 -d` does: the same `ADDRESS <name>:` heads and, under
//! each, the same instruction lines (objdump's trailing `// address: words`
//! comment removed). Checked on every GFX9 object of the loader corpus, all
//! functions; bundles list their GFX9 entries; errors exit 1.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn hsa(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hsa"))
        .args(args)
        .current_dir(repo_root())
        .output()
        .expect("run hsa")
}

/// `name -> instruction lines` of a listing in objdump's shape: a block
/// starts at a `ADDRESS <name>:` line and holds the tab-indented lines after
/// it, each cut before its `//` comment.
fn blocks(text: &str) -> BTreeMap<String, (String, Vec<String>)> {
    let mut out = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(head) = line.strip_suffix(">:") {
            let (address, name) = head.split_once(" <").expect("ADDRESS <name>:");
            current = Some(name.to_owned());
            out.insert(name.to_owned(), (address.to_owned(), Vec::new()));
        } else if line.starts_with('\t') {
            let insn = match line.split_once("//") {
                Some((insn, _)) => insn.trim_end(),
                None => line.trim_end(),
            };
            if let Some(name) = &current {
                out.get_mut(name).expect("block").1.push(insn.to_owned());
            }
        } else if line.is_empty() || line.starts_with("Disassembly") || line.contains("file format")
        {
            continue;
        } else {
            current = None;
        }
    }
    out
}

fn objdump(path: &Path) -> String {
    let out = Command::new("llvm-objdump-19")
        .arg("-d")
        .arg(path)
        .output()
        .expect("llvm-objdump-19 must be installed (scripts/test installs llvm-19)");
    assert!(
        out.status.success(),
        "llvm-objdump-19 -d {}",
        path.display()
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

fn gfx9_corpus() -> Vec<PathBuf> {
    let dir = repo_root().join("loader-core/corpus/co");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("loader-core/corpus/co")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            n.ends_with(".co") && (n.starts_with("gfx9") || n.starts_with("small-gfx9"))
        })
        .collect();
    v.sort();
    v
}

#[test]
fn every_function_of_every_gfx9_corpus_object_lists_as_objdump_does() {
    let objects = gfx9_corpus();
    assert!(
        objects.len() >= 25,
        "GFX9 corpus objects: {}",
        objects.len()
    );
    let mut functions = 0;
    let mut lines = 0;
    for path in &objects {
        let rel = path.strip_prefix(repo_root()).unwrap().to_str().unwrap();
        let out = hsa(&["disasm", rel]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "hsa disasm {rel}: {stderr}");
        let ours = blocks(&String::from_utf8(out.stdout).expect("utf-8"));
        let mut theirs = blocks(&objdump(path));
        // objdump's `<.text>` block is the padding before the first symbol.
        theirs.retain(|name, _| !name.starts_with('.'));
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            theirs.keys().collect::<Vec<_>>(),
            "{rel}: functions"
        );
        for (name, (address, ours)) in &ours {
            let (their_address, theirs) = &theirs[name];
            assert_eq!(address, their_address, "{rel} <{name}>: address");
            // objdump lists up to the next symbol or the section end: what
            // follows the function's st_size bytes is padding (`s_nop 0`
            // words, or a `...` run of zeros) that is not the function's.
            assert!(
                ours.len() <= theirs.len(),
                "{rel} <{name}>: number of lines"
            );
            let (theirs, padding) = theirs.split_at(ours.len());
            assert!(
                padding.iter().all(|l| l == "\ts_nop 0" || l == "\t\t..."),
                "{rel} <{name}>: objdump lists more than padding after the function: {padding:?}"
            );
            for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
                assert_eq!(a, b, "{rel} <{name}>: line {}", i + 1);
            }
            functions += 1;
            lines += ours.len();
        }
    }
    assert!(
        functions > 300 && lines > 40_000,
        "{functions} functions, {lines} lines"
    );
}

#[test]
fn one_kernel_by_name() {
    let out = hsa(&[
        "disasm",
        "loader-core/corpus/co/gfx90a-v5.co",
        "--kernel",
        "saxpy",
    ]);
    assert!(out.status.success());
    let ours = blocks(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(ours.keys().collect::<Vec<_>>(), ["saxpy"]);
}

#[test]
fn a_missing_kernel_or_a_non_gfx9_object_exits_1_with_a_reason() {
    let out = hsa(&[
        "disasm",
        "loader-core/corpus/co/gfx90a-v5.co",
        "--kernel",
        "nope",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no function `nope`"));
    let out = hsa(&["disasm", "loader-core/corpus/co/gfx1100-v5.co"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not GFX9"));
}

#[test]
fn a_bundle_lists_its_gfx9_entries() {
    let out = hsa(&[
        "disasm",
        "loader-core/corpus/bundle/three-targets-compressed.bundle",
    ]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let entries: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("; entry "))
        .collect();
    assert!(!entries.is_empty(), "{stdout}");
    for e in &entries {
        assert!(e.contains("gfx9"), "{e}");
    }
    assert!(!blocks(&stdout).is_empty());
}
