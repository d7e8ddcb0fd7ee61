//! `kfd-info` as a user runs it: on this machine (no GPU: the typed error
//! and its documented status), on the fixture topology trees (their GPUs,
//! read independently from the fixture files), and its dependency graph
//! (only `kfd` from this workspace).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn kfd_info(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kfd-info"))
        .args(args)
        .current_dir(repo_root())
        .output()
        .expect("run kfd-info")
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8 output")
}

#[test]
fn without_a_gpu_it_prints_the_typed_error_and_exits_3() {
    let o = kfd_info(&[]);
    let out = stdout(&o);
    if Path::new("/dev/kfd").exists() {
        // A machine with the driver: the version line or a permission error.
        assert!(
            out.contains("/dev/kfd: KFD interface version 1.") || o.status.code() == Some(4),
            "{out}"
        );
        return;
    }
    assert_eq!(o.status.code(), Some(3), "{out}");
    assert!(
        out.contains("/dev/kfd: typed error: kfd::Error::NoDevice {"),
        "{out}"
    );
    assert!(
        out.contains("the amdgpu kernel driver is not loaded or this machine has no AMD GPU"),
        "{out}"
    );
}

/// The non-zero `gpu_id`s of a fixture tree, read from its files.
fn fixture_gpu_ids(topology: &Path) -> BTreeSet<u32> {
    let mut ids = BTreeSet::new();
    for node in std::fs::read_dir(topology.join("nodes")).expect("nodes/") {
        let file = node.expect("node").path().join("gpu_id");
        let text = std::fs::read_to_string(&file).expect("gpu_id");
        let id: u32 = text.trim().parse().expect("a number");
        if id != 0 {
            ids.insert(id);
        }
    }
    ids
}

#[test]
fn lists_the_gpus_of_every_fixture_tree() {
    let fixtures = repo_root().join("kfd/fixtures");
    let mut trees = 0;
    for entry in std::fs::read_dir(&fixtures).expect("kfd/fixtures") {
        let dir = entry.expect("entry").path();
        if !dir.join("topology/generation_id").exists() {
            continue;
        }
        trees += 1;
        let rel = dir.strip_prefix(repo_root()).unwrap_or(&dir).to_owned();
        let o = kfd_info(&["--sysfs", rel.to_str().expect("UTF-8 path")]);
        let out = stdout(&o);
        assert_eq!(o.status.code(), Some(0), "{}: {out}", rel.display());
        let ids = fixture_gpu_ids(&dir.join("topology"));
        assert!(
            out.lines()
                .next()
                .is_some_and(|l| l.ends_with(&format!(", {} GPUs", ids.len()))),
            "{}: {out}",
            rel.display()
        );
        let listed: BTreeSet<u32> = out
            .lines()
            .filter_map(|l| l.split("gpu_id 0x").nth(1))
            .map(|rest| {
                let hex = rest.split(' ').next().expect("hex id");
                u32::from_str_radix(hex, 16).expect("hex gpu_id")
            })
            .collect();
        assert_eq!(listed, ids, "{}", rel.display());
    }
    assert!(trees >= 5, "only {trees} fixture trees found");
}

#[test]
fn a_bad_argument_is_a_usage_error() {
    let o = kfd_info(&["--frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("usage: kfd-info"));
}

#[test]
fn its_only_workspace_dependency_is_kfd() {
    let o = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--locked",
            "--offline",
            "-p",
            "kfd-info",
            "-e",
            "normal,build",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .current_dir(repo_root())
        .output()
        .expect("cargo tree");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let tree = stdout(&o);
    // Crates of this repository are the ones with a local path.
    let root = repo_root().canonicalize().expect("root");
    let local: BTreeSet<&str> = tree
        .lines()
        .filter(|l| l.contains(&format!("({}", root.display())))
        .filter_map(|l| l.split(' ').next())
        .collect();
    assert_eq!(
        local,
        BTreeSet::from(["kfd", "kfd-info"]),
        "cargo tree -p kfd-info:\n{tree}"
    );
}
