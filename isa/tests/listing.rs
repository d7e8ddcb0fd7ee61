//! `isa::listing` (what `hsa disasm` prints) equals `llvm-objdump-19 -d`'s
//! listing of the same kernel, line for line, objdump's trailing
//! `// address: words` comment removed.

mod support;

use support::{run_tool, workspace_root};

/// objdump's instruction lines for one symbol, comment stripped.
fn objdump_kernel(path: &str, kernel: &str) -> Vec<String> {
    let out = run_tool(
        "llvm-objdump-19",
        &["-d", &format!("--disassemble-symbols={kernel}"), path],
        None,
    );
    assert!(
        out.status.success(),
        "llvm-objdump-19: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .filter(|l| l.starts_with('\t'))
        .map(|l| match l.split_once("//") {
            Some((insn, _)) => insn.trim_end().to_owned(),
            None => l.trim_end().to_owned(),
        })
        .collect()
}

fn check(object: &str, kernel: &str) {
    let path = workspace_root().join(object);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let ours = isa::listing::listing(&bytes, kernel)
        .unwrap_or_else(|e| panic!("{object} {kernel}: {e}"))
        .to_string();
    let ours: Vec<&str> = ours.lines().collect();
    let mut theirs = objdump_kernel(path.to_str().expect("path"), kernel);
    // objdump lists up to the next symbol: the zero padding after the
    // kernel's st_size bytes is its last `...` line, not part of the kernel.
    if theirs.last().is_some_and(|l| l == "\t\t...") && ours.last() != Some(&"\t\t...") {
        theirs.pop();
    }
    assert!(
        theirs.len() > 10,
        "{object} {kernel}: objdump listed {} lines",
        theirs.len()
    );
    for (i, (a, b)) in ours.iter().zip(theirs.iter()).enumerate() {
        assert_eq!(a, b, "{object} {kernel}: line {}", i + 1);
    }
    assert_eq!(
        ours.len(),
        theirs.len(),
        "{object} {kernel}: number of lines"
    );
}

#[test]
fn gfx90a_kernels_list_as_objdump_does() {
    for kernel in [
        "saxpy",
        "reduce_sum_static",
        "dispatch_geometry",
        "atomic_counters",
        "private_scratch",
    ] {
        check("loader-core/corpus/co/gfx90a-v5.co", kernel);
    }
}

#[test]
fn listing_of_a_missing_kernel_is_an_error() {
    let path = workspace_root().join("loader-core/corpus/co/gfx90a-v5.co");
    let bytes = std::fs::read(path).expect("corpus object");
    assert_eq!(
        isa::listing::listing(&bytes, "no_such_kernel").err(),
        Some(isa::listing::ListingError::NoSuchKernel)
    );
}
