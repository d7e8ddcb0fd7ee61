//! `HSA_TOOLS_LIB` from C: a tools library built against Debian's
//! `hsa_api_trace.h` (`tests/c/tool.c`) gets the API table in `OnLoad`,
//! checks every table's version and size against the header, replaces
//! `hsa_queue_create`, and sees both queue creations of `tests/c/dispatch.c`;
//! its `OnUnload` runs at the last `hsa_shut_down`.

mod common;

use std::process::Command;

use common::{c_dir, gcc, kernels, on_ours, run_ok, work_dir};

#[test]
fn a_c_tools_library_intercepts_queue_create() {
    let tool = work_dir("bin").join("tool.so");
    run_ok(
        Command::new("g++")
            .args([
                "-x",
                "c++",
                "-DAMD_INTERNAL_BUILD",
                "-shared",
                "-fPIC",
                "-Wall",
                "-Werror",
                "-o",
            ])
            .arg(&tool)
            .arg(c_dir().join("tool.c")),
    );
    let prog = gcc("dispatch", &["dispatch.c"], &[]);
    let out = run_ok(on_ours(&prog).arg(kernels()).env("HSA_TOOLS_LIB", &tool));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("dispatch: vector add"), "{stdout}");
    assert!(stderr.contains("tool: loaded, 125 core slots"), "{stderr}");
    assert_eq!(
        stderr.matches("tool: hsa_queue_create intercepted").count(),
        2,
        "{stderr}"
    );
    assert!(
        stderr.contains("tool: unloaded after 2 queue creates"),
        "{stderr}"
    );
}
