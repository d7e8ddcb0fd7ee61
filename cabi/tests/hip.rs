//! HIP 5.2.3 (`libamdhip64`, Debian's build, unmodified) on the drop-in
//! library: hipcc-built programs find the software GPU, allocate, copy
//! (plain, 2D, async, from pageable and pinned memory), launch kernels on
//! streams, time them with events, and get the right results. The runtime's
//! notice on stderr shows that this library, not Debian's ROCr, ran.

mod common;

use std::process::Command;

use common::{c_dir, on_ours, run_ok, work_dir};

fn hipcc(name: &str, source: &str) -> std::path::PathBuf {
    assert!(
        std::path::Path::new("/usr/bin/hipcc").exists(),
        "/usr/bin/hipcc is missing: install hipcc"
    );
    let prog = work_dir("bin").join(name);
    run_ok(
        Command::new("hipcc")
            .args(["--offload-arch=gfx90a", "-O1", "-o"])
            .arg(&prog)
            .arg(c_dir().join(source)),
    );
    prog
}

#[test]
fn hip_streams_events_2d_copies_pageable_memory() {
    let prog = hipcc("streams-hip", "streams.hip");
    let out = run_ok(&mut on_ours(&prog));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.contains("streams: 0 bad, elapsed time ok"),
        "{stdout}\n{stderr}"
    );
    assert!(stderr.contains("using the software GPU"), "{stderr}");
}

#[test]
fn hip_vector_add_runs_on_the_drop_in() {
    let prog = hipcc("vadd-hip", "vadd.hip");
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
