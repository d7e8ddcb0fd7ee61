//! The export list against Debian's ROCr 5.2.3 `libhsa-runtime64.so.1`:
//! the same defined dynamic symbols (names, kinds, symbol version
//! `ROCR_1`) plus ROCr 6.x's `hsa_amd_vmem_*` calls and
//! `hsa_amd_agent_set_async_scratch_limit` (at `ROCR_1` too, as ROCr 6's
//! `hsacore.so.def` lists them), nothing else, and the same
//! SONAME.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use common::{DEBIAN_LIB, cdylib, run_ok};

/// `kind name@@version` of every defined dynamic symbol (`nm -D`).
fn exports(lib: &Path) -> BTreeSet<String> {
    let out = run_ok(Command::new("nm").args(["-D", "--defined-only"]).arg(lib));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (_addr, kind, name) = (f.next()?, f.next()?, f.next()?);
            Some(format!("{kind} {name}"))
        })
        .collect()
}

/// ROCr 6.x's virtual memory calls (`hsa_ext_amd.h` 1.6, `hsacore.so.def`
/// of ROCm/ROCR-Runtime) and ROCr 6.1's asynchronous scratch limit,
/// exported beyond 5.2.3's list.
const ROCR6: [&str; 14] = [
    "hsa_amd_agent_set_async_scratch_limit",
    "hsa_amd_vmem_address_reserve",
    "hsa_amd_vmem_address_reserve_align",
    "hsa_amd_vmem_address_free",
    "hsa_amd_vmem_handle_create",
    "hsa_amd_vmem_handle_release",
    "hsa_amd_vmem_map",
    "hsa_amd_vmem_unmap",
    "hsa_amd_vmem_set_access",
    "hsa_amd_vmem_get_access",
    "hsa_amd_vmem_export_shareable_handle",
    "hsa_amd_vmem_import_shareable_handle",
    "hsa_amd_vmem_retain_alloc_handle",
    "hsa_amd_vmem_get_alloc_properties_from_handle",
];

fn soname(lib: &Path) -> String {
    let out = run_ok(Command::new("readelf").arg("-d").arg(lib));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find(|l| l.contains("(SONAME)"))
        .map(|l| {
            l.split('[')
                .nth(1)
                .unwrap_or("")
                .trim_end_matches(']')
                .to_string()
        })
        .unwrap_or_default()
}

#[test]
fn export_list_matches_debian_rocr() {
    assert!(
        Path::new(DEBIAN_LIB).exists(),
        "{DEBIAN_LIB} is missing: install libhsa-runtime-dev"
    );
    let mut theirs = exports(Path::new(DEBIAN_LIB));
    let ours = exports(&cdylib());
    assert_eq!(theirs.len(), 226, "Debian's list changed: {theirs:#?}");
    theirs.extend(ROCR6.iter().map(|f| format!("T {f}@@ROCR_1")));
    let missing: Vec<_> = theirs.difference(&ours).collect();
    let extra: Vec<_> = ours.difference(&theirs).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing from ours: {missing:#?}\nonly in ours: {extra:#?}"
    );
    // Every function and the data object carry ROCR_1 as default version.
    for s in &ours {
        if s != "A ROCR_1" {
            assert!(s.ends_with("@@ROCR_1"), "{s} is not at version ROCR_1");
        }
    }
}

#[test]
fn soname_and_version_definition() {
    assert_eq!(soname(&cdylib()), "libhsa-runtime64.so.1");
    assert_eq!(soname(Path::new(DEBIAN_LIB)), "libhsa-runtime64.so.1");
    let out = run_ok(Command::new("readelf").arg("-V").arg(cdylib()));
    let text = String::from_utf8_lossy(&out.stdout);
    let defs = text
        .split("Version definition section")
        .nth(1)
        .expect("a version definition section");
    assert!(defs.contains("Name: ROCR_1"), "{defs}");
}
