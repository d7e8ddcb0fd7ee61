//! System events through the public API on the sim: a kernel's store to
//! an address no allocation covers reaches the registered handler as
//! `HSA_AMD_GPU_MEMORY_FAULT_EVENT` (agent, page, reason); with no handler
//! that succeeds the runtime prints ROCr's message and, when asked (the C
//! drop-in), aborts as ROCr does. The unhandled cases run in a child
//! process (this test binary, re-executed): one aborts, and a handler
//! registered in one process must not hide the fault in another.

use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use runtime::system_events::{MEMORY_FAULT_PAGE_NOT_PRESENT, SystemEvent};
use runtime::{ArgValue, Geometry, QueueKind, Runtime, Status, driver};

const DEMO: &[u8] = include_bytes!("../kernels/demo.co");
const GENEROUS: Duration = Duration::from_secs(120);
/// An address no allocation covers.
const BAD: u64 = 0x7e00_0000_0000;

/// Dispatches `store_to(BAD)` and returns the dispatch's error status.
fn fault(rt: &Runtime) -> Status {
    let gpu = rt.gpu_agents().next().unwrap();
    let exe = rt.load_executable(gpu, DEMO).unwrap();
    let k = exe.kernel("store_to").unwrap().clone();
    let q = rt
        .create_queue(gpu, 64, QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    rt.dispatch(
        &q,
        &k,
        &[ArgValue::Pointer(BAD)],
        &Geometry::linear(64, 64),
        GENEROUS,
    )
    .unwrap_err()
    .status
}

#[test]
fn a_memory_fault_reaches_the_system_event_handler() {
    let rt = Runtime::init_with(driver::open_sim).unwrap();
    let gpu = rt.gpu_agents().next().unwrap();
    let (tx, rx) = mpsc::channel();
    rt.register_system_event_handler(Box::new(move |e| {
        let _ = tx.send(*e);
        Status::Success
    }));
    assert_eq!(fault(&rt), Status::MemoryFault, "the queue still stops");
    let SystemEvent::GpuMemoryFault(f) = rx.recv_timeout(GENEROUS).unwrap();
    assert_eq!(f.agent, gpu);
    assert_eq!(f.virtual_address, BAD & !4095);
    assert_eq!(f.fault_reason_mask, MEMORY_FAULT_PAGE_NOT_PRESENT);
    assert!(rx.try_recv().is_err(), "one event for one fault");
}

/// The child side: `ROCR_RS_SYSEV_CHILD` says what to do.
#[test]
fn child() {
    let Ok(what) = std::env::var("ROCR_RS_SYSEV_CHILD") else {
        return;
    };
    let rt = Runtime::init_with(driver::open_sim).unwrap();
    match what.as_str() {
        "abort" => rt.set_abort_on_unhandled_memory_fault(true),
        "failing-handler" => rt.register_system_event_handler(Box::new(|_| Status::Error)),
        other => panic!("unknown child mode {other}"),
    }
    let status = fault(&rt);
    println!("child went on: {status:?}");
}

fn run_child(mode: &str) -> std::process::Output {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child", "--nocapture", "--test-threads", "1"])
        .env("ROCR_RS_SYSEV_CHILD", mode)
        .env_remove("HSA_ENABLE_VM_FAULT_MESSAGE")
        .output()
        .unwrap()
}

const MESSAGE: &str = "Memory access fault by GPU node-1 (Agent handle: ";
const TAIL: &str = ") on address 0x7e0000000000. Reason: Page not present or supervisor privilege.";

#[test]
fn an_unhandled_fault_prints_rocrs_message_and_aborts_when_asked() {
    use std::os::unix::process::ExitStatusExt;
    let out = run_child("abort");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.signal(), Some(6), "SIGABRT: {stderr}");
    let line = stderr
        .lines()
        .find(|l| l.starts_with(MESSAGE))
        .unwrap_or_else(|| panic!("ROCr's message on stderr: {stderr}"));
    assert!(line.ends_with(TAIL), "{line}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("child went on"));
}

#[test]
fn a_failing_handler_leaves_the_fault_unhandled() {
    let out = run_child("failing-handler");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with(MESSAGE) && l.ends_with(TAIL)),
        "{stderr}"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("child went on: MemoryFault"),
        "without abort the dispatch reports the fault"
    );
}
