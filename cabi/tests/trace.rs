//! `HSA_RS_API_TRACE` and the environment flags from C: `tests/c/trace.c`
//! run with tracing to a file gives one line per call (hsa_init,
//! hsa_iterate_agents and its callback's calls, hsa_queue_create, a
//! failing hsa_agent_get_info with its status and reason, hsa_queue_destroy,
//! hsa_shut_down), from an atexit handler, and from eight threads at once
//! (whole lines only); a malformed flag makes hsa_init fail with
//! HSA_STATUS_ERROR and a message naming it.

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use common::{gcc, kernels, on_ours, run_ok, work_dir};

/// `tests/c/trace.c`, built once for the tests of this binary.
fn program() -> PathBuf {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| gcc("trace", &["trace.c"], &[])).clone()
}

/// The trace lines of `function`.
fn lines_of<'a>(trace: &'a str, function: &str) -> Vec<&'a str> {
    let call = format!(" {function}(");
    trace.lines().filter(|l| l.contains(&call)).collect()
}

#[test]
fn every_call_is_traced_to_the_file_with_arguments_status_and_duration() {
    let prog = program();
    let file = work_dir("trace").join(format!("trace-{}.txt", std::process::id()));
    let _ = std::fs::remove_file(&file);
    let out = run_ok(on_ours(&prog).arg("trace").env("HSA_RS_API_TRACE", &file));
    assert!(String::from_utf8_lossy(&out.stdout).contains("trace: ok"));
    let trace = std::fs::read_to_string(&file).expect("the trace file");
    let _ = std::fs::remove_file(&file);

    for l in trace.lines() {
        let mut words = l.split(' ');
        assert_eq!(words.next(), Some("hsa-trace"), "{l}");
        let tid = words.next().unwrap_or("");
        assert!(tid.parse::<u32>().is_ok(), "no thread id: {l}");
        assert!(l.ends_with("us"), "no duration: {l}");
    }
    let one = |f: &str| -> String {
        let l = lines_of(&trace, f);
        assert_eq!(l.len(), 1, "{f}: {l:?}\n{trace}");
        l[0].to_owned()
    };
    assert!(one("hsa_init").contains("hsa_init() = HSA_STATUS_SUCCESS "));
    // The callback's return ends the iteration: that status is returned.
    let iterate = one("hsa_iterate_agents");
    assert!(iterate.contains(" = HSA_STATUS_INFO_BREAK "), "{iterate}");
    // The callback's own calls are traced too (before the iteration's line).
    assert!(lines_of(&trace, "hsa_agent_get_info").len() >= 2, "{trace}");
    // Handles in hex, the queue type by name, sizes in decimal, NULL
    // pointers by name.
    let create = one("hsa_queue_create");
    assert!(
        create.contains(", 4096, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, 4294967295, 4294967295, 0x"),
        "{create}"
    );
    assert!(create.contains(") = HSA_STATUS_SUCCESS "), "{create}");
    let failed: Vec<_> = lines_of(&trace, "hsa_agent_get_info")
        .into_iter()
        .filter(|l| l.contains("(0xdead0000, HSA_AGENT_INFO_QUEUES_MAX, 0x"))
        .collect();
    assert_eq!(failed.len(), 1, "{trace}");
    assert!(
        failed[0]
            .contains(" = HSA_STATUS_ERROR_INVALID_AGENT (hsa_agent_t 0xdead0000 is no agent) "),
        "{}",
        failed[0]
    );
    assert!(one("hsa_queue_destroy").contains(" = HSA_STATUS_SUCCESS "));
    let shut = one("hsa_shut_down");
    assert!(
        shut.contains("hsa_shut_down() = HSA_STATUS_SUCCESS "),
        "{shut}"
    );
    assert!(trace.lines().last().is_some_and(|l| l == shut), "{trace}");
}

#[test]
fn calls_from_exit_handlers_are_traced_too() {
    // exit() destroys the main thread's locals before it runs the atexit
    // handlers: the trace must not need them (HIP's module destructor).
    let file = work_dir("trace").join(format!("atexit-{}.txt", std::process::id()));
    let _ = std::fs::remove_file(&file);
    run_ok(
        on_ours(&program())
            .arg("atexit")
            .env("HSA_RS_API_TRACE", &file),
    );
    let trace = std::fs::read_to_string(&file).expect("the trace file");
    let _ = std::fs::remove_file(&file);
    let failed = lines_of(&trace, "hsa_agent_get_info");
    assert_eq!(failed.len(), 1, "{trace}");
    assert!(
        failed[0].contains("(0xdead0001, HSA_AGENT_INFO_QUEUES_MAX, 0x"),
        "{}",
        failed[0]
    );
    assert!(
        failed[0].contains(" = HSA_STATUS_ERROR_INVALID_AGENT "),
        "{}",
        failed[0]
    );
    assert_eq!(lines_of(&trace, "hsa_shut_down").len(), 1, "{trace}");
}

#[test]
fn lines_of_eight_threads_never_interleave() {
    let prog = gcc("threads-traced", &["threads.c"], &["-lpthread"]);
    let file = work_dir("trace").join(format!("threads-{}.txt", std::process::id()));
    let _ = std::fs::remove_file(&file);
    let out = run_ok(on_ours(&prog).arg(kernels()).env("HSA_RS_API_TRACE", &file));
    assert!(String::from_utf8_lossy(&out.stdout).contains("threads: 8 threads x 4 rounds"));
    let trace = std::fs::read_to_string(&file).expect("the trace file");
    let _ = std::fs::remove_file(&file);
    let mut tids = std::collections::BTreeSet::new();
    for l in trace.lines() {
        // Each line whole: one prefix, one call, one result, one duration.
        assert_eq!(l.matches("hsa-trace ").count(), 1, "{l}");
        let mut words = l.splitn(4, ' ');
        assert_eq!(words.next(), Some("hsa-trace"), "{l}");
        let tid = words.next().unwrap_or("");
        assert!(tid.parse::<u32>().is_ok(), "{l}");
        let name = words.next().unwrap_or("").split('(').next().unwrap_or("");
        assert!(name.starts_with("hsa_"), "{l}");
        let duration = l.rsplit(' ').next().unwrap_or("");
        let micros = duration.strip_suffix("us").map(str::parse::<f64>);
        assert!(matches!(micros, Some(Ok(_))), "{l}");
        tids.insert(tid.to_owned());
    }
    assert!(tids.len() > 8, "the main thread and 8 workers: {tids:?}");
    assert!(lines_of(&trace, "hsa_queue_create").len() >= 32, "{trace}");
}

#[test]
fn without_the_variable_nothing_is_traced() {
    let prog = program();
    let out = run_ok(on_ours(&prog).arg("trace").env_remove("HSA_RS_API_TRACE"));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("hsa-trace"));
}

#[test]
fn tracing_to_stderr() {
    let prog = program();
    let out = run_ok(on_ours(&prog).arg("trace").env("HSA_RS_API_TRACE", "1"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(lines_of(&stderr, "hsa_queue_create").len(), 1, "{stderr}");
}

#[test]
fn a_malformed_flag_fails_hsa_init_naming_it() {
    let prog = program();
    for (var, value) in [
        ("HSA_MAX_QUEUES", "abc"),
        ("HSA_ENABLE_SDMA", "maybe"),
        ("HSA_RS_API_TRACE", "yes"),
        ("HSA_ENABLE_DEBUG", "2"),
    ] {
        let out = run_ok(on_ours(&prog).arg("init-status").env(var, value));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        // HSA_STATUS_ERROR.
        assert!(
            stdout.contains("hsa_init: 0x1000"),
            "{var}={value}: {stdout}"
        );
        assert!(
            stderr.contains("hsa_init: HSA_STATUS_ERROR: environment: ")
                && stderr.contains(&format!("{var}=\"{value}\"")),
            "{var}={value}: {stderr}"
        );
    }
}
