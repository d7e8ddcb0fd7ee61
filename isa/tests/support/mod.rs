//! Shared by the oracle tests: where the code objects are, and how to run
//! LLVM 19's tools. Missing tools or objects fail the tests (never skip).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (this crate is `isa/`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn code_objects_in(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut v: Vec<PathBuf> = entries
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "co"))
        .collect();
    v.sort();
    v
}

/// Every code object of loader-core's corpus, of ours (`isa/corpus`) and
/// the sim's MFMA/dot and HIP conformance kernels.
pub fn corpus_code_objects() -> Vec<PathBuf> {
    let root = workspace_root();
    let mut files = Vec::new();
    for dir in [
        "loader-core/corpus/co",
        "loader-core/corpus/relocations",
        "isa/corpus/co",
    ] {
        files.extend(code_objects_in(&root.join(dir)));
    }
    for co in [
        "sim/tests/kernels/mfma.co",
        "sim/tests/kernels/hip.co",
        "sim/tests/kernels/tbuf.co",
        "sim/tests/kernels/lds_gfx942.co",
    ] {
        files.push(root.join(co));
    }
    assert!(
        files.len() >= 45,
        "only {} corpus code objects (loader-core/corpus/build.sh, isa/corpus/build.sh rebuild them)",
        files.len()
    );
    files
}

/// Every rocRAND code object `scripts/fetch-rocrand` extracted. Fails when
/// they are missing.
pub fn rocrand_code_objects() -> Vec<PathBuf> {
    let dir = std::env::var_os("ROCRAND_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/rocrand"));
    let entries = dir.join("ENTRIES");
    let text = std::fs::read_to_string(&entries).unwrap_or_else(|e| {
        panic!(
            "{}: {e}. The rocRAND code objects are downloaded, not committed: run scripts/fetch-rocrand",
            entries.display()
        )
    });
    let files: Vec<PathBuf> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(|f| dir.join(f))
        .collect();
    assert!(
        files.len() >= 7,
        "{}: expected 7 code objects",
        entries.display()
    );
    files
}

/// Runs an LLVM 19 tool, failing the test (never skipping) when it is missing.
pub fn run_tool(tool: &str, args: &[&str], stdin: Option<&str>) -> std::process::Output {
    use std::io::Write;
    let mut cmd = Command::new(tool);
    cmd.args(args);
    cmd.stdin(std::process::Stdio::piped());
    cmd.stdout(std::process::Stdio::piped());
    cmd.stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap_or_else(|e| {
        panic!("cannot run {tool} ({e}): install the Debian package llvm-19 (scripts/test does)")
    });
    let mut input = child.stdin.take().expect("stdin");
    let data = stdin.unwrap_or("").to_owned();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(data.as_bytes());
    });
    let out = child.wait_with_output().expect("tool output");
    writer.join().expect("stdin writer");
    out
}
