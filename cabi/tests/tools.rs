//! `HSA_TOOLS_LIB` from C: a tools library built against Debian's
//! `hsa_api_trace.h` (`tests/c/tool.c`) gets the API table in `OnLoad`,
//! checks every table's version and size against the header, replaces
//! `hsa_queue_create`, and sees both queue creations of `tests/c/dispatch.c`;
//! its `OnUnload` runs at the last `hsa_shut_down`. With
//! `HSA_RS_API_TRACE` as well, the trace sees the calls the tool passes on.

mod common;

use std::process::Command;

use common::{c_dir, gcc, kernels, on_ours, run_ok, work_dir};

/// `tests/c/tool.c` built as a tools library (once per test binary).
fn tool() -> std::path::PathBuf {
    static TOOL: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    TOOL.get_or_init(build_tool).clone()
}

fn build_tool() -> std::path::PathBuf {
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
    tool
}

#[test]
fn a_c_tools_library_intercepts_queue_create() {
    let tool = tool();
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

#[test]
fn a_tool_intercepts_and_the_api_trace_sees_its_calls_reach_the_runtime() {
    // With HSA_RS_API_TRACE the slots hold the trace wrappers when OnLoad
    // runs: the tool's replacement calls the wrapper it saved, so both the
    // interception and the trace see each queue creation.
    let tool = tool();
    let prog = gcc("dispatch-traced", &["dispatch.c"], &[]);
    let file = work_dir("trace").join(format!("tools-{}.txt", std::process::id()));
    let _ = std::fs::remove_file(&file);
    let out = run_ok(
        on_ours(&prog)
            .arg(kernels())
            .env("HSA_TOOLS_LIB", &tool)
            .env("HSA_RS_API_TRACE", &file),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.matches("tool: hsa_queue_create intercepted").count(),
        2,
        "{stderr}"
    );
    let trace = std::fs::read_to_string(&file).expect("the trace file");
    let _ = std::fs::remove_file(&file);
    let created: Vec<_> = trace
        .lines()
        .filter(|l| l.contains(" hsa_queue_create("))
        .collect();
    assert_eq!(created.len(), 2, "{trace}");
    assert!(
        created
            .iter()
            .all(|l| l.contains(") = HSA_STATUS_SUCCESS ")),
        "{created:?}"
    );
}
