//! HIP 5.2.3 (`libamdhip64`, Debian's build, unmodified) on the drop-in
//! library: a hipcc-built program finds the software GPU, allocates,
//! copies, launches a kernel and gets the right results. The runtime's
//! notice on stderr shows that this library, not Debian's ROCr, ran.

mod common;

use std::process::Command;

use common::{c_dir, on_ours, run_ok, work_dir};

#[test]
fn hip_vector_add_runs_on_the_drop_in() {
    assert!(
        std::path::Path::new("/usr/bin/hipcc").exists(),
        "/usr/bin/hipcc is missing: install hipcc"
    );
    let prog = work_dir("bin").join("vadd-hip");
    run_ok(
        Command::new("hipcc")
            .args(["--offload-arch=gfx90a", "-O1", "-o"])
            .arg(&prog)
            .arg(c_dir().join("vadd.hip")),
    );
    let out = run_ok(&mut on_ours(&prog));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("device: gfx90a"), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("hip: vector add of 16384 elements: ok"),
        "{stdout}\n{stderr}"
    );
    assert!(stderr.contains("using the software GPU"), "{stderr}");
}
