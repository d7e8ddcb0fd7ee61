//! Shared by the `loader_*` differential tests: where the code objects are,
//! and readers for LLVM's own tools (the oracle).
#![allow(dead_code)]

pub mod llvm;

use std::path::{Path, PathBuf};

/// The workspace root (this crate is `tests/`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// Every code object of our corpus (`loader-core/corpus/co/*.co` and
/// `loader-core/corpus/relocations/*.co`), sorted.
pub fn corpus_code_objects() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for sub in ["co", "relocations"] {
        let dir = workspace_root().join("loader-core/corpus").join(sub);
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (the corpus is committed; loader-core/corpus/build.sh rebuilds it)",
                dir.display()
            )
        });
        files.extend(
            entries
                .map(|e| e.expect("corpus entry").path())
                .filter(|p| p.extension().is_some_and(|e| e == "co")),
        );
    }
    files.sort();
    assert!(
        files.len() >= 47,
        "only {} corpus code objects; run loader-core/corpus/build.sh",
        files.len()
    );
    files
}

/// Every rocRAND code object `scripts/fetch-rocrand` extracted (from its
/// `ENTRIES` list), sorted. Fails, never skips, when they are missing.
pub fn rocrand_code_objects() -> Vec<PathBuf> {
    let dir = std::env::var_os("ROCRAND_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/rocrand"));
    let entries = dir.join("ENTRIES");
    let text = std::fs::read_to_string(&entries).unwrap_or_else(|e| {
        panic!(
            "{}: {e}. The rocRAND code objects are downloaded, not committed: run scripts/fetch-rocrand \
             (scripts/test runs it; it needs apt-get access to Debian bookworm's main archive)",
            entries.display()
        )
    });
    let mut files: Vec<PathBuf> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(|f| {
            let p = PathBuf::from(f);
            let p = if p.is_absolute() { p } else { dir.join(p) };
            assert!(
                p.exists(),
                "{} listed in {} is missing: run scripts/fetch-rocrand again",
                p.display(),
                entries.display()
            );
            p
        })
        .collect();
    files.sort();
    assert!(
        files.len() >= 7,
        "{}: expected rocRAND's 7 device code objects, found {}",
        entries.display(),
        files.len()
    );
    files
}

/// Reads a file, failing the test with its path.
pub fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
