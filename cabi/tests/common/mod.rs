//! Helpers of the library's tests: the library under test as a drop-in
//! directory, C programs built with gcc against Debian's ROCr 5.2.3
//! headers, and the test kernels built with clang-19.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// Debian's ROCr 5.2.3 library (`libhsa-runtime-dev`), the reference.
pub const DEBIAN_LIB: &str = "/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1";

/// The C sources of the tests.
pub fn c_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c")
}

/// A scratch directory of this test binary.
pub fn work_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cabi")
        .join(name);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("mkdir {}: {e}", d.display()));
    d
}

/// The cdylib cargo built for this test (`deps/libhsa_runtime64.so`).
pub fn cdylib() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("deps dir");
    let lib = deps.join("libhsa_runtime64.so");
    assert!(
        lib.exists(),
        "{} is missing: cargo builds the cdylib with the tests of hsa-runtime64",
        lib.display()
    );
    lib
}

/// A directory holding `libhsa-runtime64.so.1` and `libhsa-runtime64.so`
/// (links to the cdylib), as `scripts/dropin` makes.
pub fn lib_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = work_dir("lib");
        for name in ["libhsa-runtime64.so.1", "libhsa-runtime64.so"] {
            // A new link renamed over the old one: never a moment without it.
            let tmp = d.join(format!("{name}.{}", std::process::id()));
            let _ = std::fs::remove_file(&tmp);
            std::os::unix::fs::symlink(cdylib(), &tmp)
                .unwrap_or_else(|e| panic!("symlink {}: {e}", tmp.display()));
            std::fs::rename(&tmp, d.join(name))
                .unwrap_or_else(|e| panic!("rename {}: {e}", tmp.display()));
        }
        d
    })
    .clone()
}

/// Runs a command; panics with its output unless it exits 0.
pub fn run_ok(cmd: &mut Command) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Compiles C `sources` (in `tests/c`) with gcc, `-Wall -Werror`, against
/// the system's `hsa/*.h`, linked against the library under test.
pub fn gcc(name: &str, sources: &[&str], extra: &[&str]) -> PathBuf {
    assert!(
        Path::new("/usr/include/hsa/hsa.h").exists(),
        "/usr/include/hsa/hsa.h is missing: install libhsa-runtime-dev"
    );
    let out = work_dir("bin").join(name);
    let mut cmd = Command::new("gcc");
    cmd.args(["-std=gnu11", "-Wall", "-Werror", "-O1", "-o"])
        .arg(&out)
        .arg("-I")
        .arg(c_dir());
    for s in sources {
        cmd.arg(c_dir().join(s));
    }
    cmd.arg("-L").arg(lib_dir()).arg("-lhsa-runtime64");
    cmd.args(extra);
    run_ok(&mut cmd);
    out
}

/// `tests/c/kernels.cl` built by clang-19 for gfx90a.
pub fn kernels() -> PathBuf {
    static CO: OnceLock<PathBuf> = OnceLock::new();
    CO.get_or_init(build_kernels).clone()
}

fn build_kernels() -> PathBuf {
    let out = work_dir("bin").join(format!("kernels-{}.co", std::process::id()));
    run_ok(
        Command::new("clang-19")
            .args([
                "-x",
                "cl",
                "-cl-std=CL2.0",
                "-target",
                "amdgcn-amd-amdhsa",
                "-mcpu=gfx90a",
                "-nogpulib",
                "-O2",
                "-o",
            ])
            .arg(&out)
            .arg(c_dir().join("kernels.cl")),
    );
    out
}

/// A command running `program` on the library under test.
pub fn on_ours(program: &Path) -> Command {
    let mut c = Command::new(program);
    c.env("LD_LIBRARY_PATH", lib_dir())
        .env("HSA_RS_CABI_LOG", "1")
        .env_remove("HSA_DRIVER");
    c
}
