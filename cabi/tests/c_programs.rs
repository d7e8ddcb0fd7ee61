//! C programs compiled with gcc against Debian's ROCr 5.2.3 headers (not
//! ours), linked against this library, running clang-built kernels on the
//! software GPU: `tests/c/dispatch.c` (vector add, a barrier-AND/OR chain
//! across two queues, interrupt signals, an async copy, an async handler,
//! handle validation), `tests/c/threads.c` (8 threads creating queues,
//! dispatching and destroying them concurrently) and `tests/c/extensions.c`
//! (the AMD loader extension 1.00..1.03 over a loaded executable, the
//! images, finalizer and aqlprofile tables) and `tests/c/amd_extras.c` (CU
//! masks, GPU-only signals, wait-any, dispatch profiling, rectangle
//! copies, pointer info with user data,
//! deallocation callbacks, locked memory, async functions) and
//! `tests/c/misc.c` (ISAs by name, compatibility, the deprecated code
//! object path, symbol iteration, signal groups and operations,
//! `hsa_memory_copy`, soft queues, queue error callbacks, init reference
//! counting) and `tests/c/ipc_events.c` (async-copy profiling, IPC memory
//! and an IPC signal shared with a second process, GPU memory faults to a
//! system event handler, and ROCr's message and abort without one).

mod common;

use common::{gcc, kernels, on_ours, run_ok};

#[test]
fn dispatch_chain_copy_and_handler() {
    let prog = gcc("dispatch", &["dispatch.c"], &[]);
    let out = run_ok(on_ours(&prog).arg(kernels()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout
            .contains("dispatch: vector add, barrier AND/OR chain, async copy, async handler: ok"),
        "{stdout}"
    );
}

#[test]
fn eight_threads_create_dispatch_destroy() {
    let prog = gcc("threads", &["threads.c"], &["-lpthread"]);
    let out = run_ok(on_ours(&prog).arg(kernels()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("threads: 8 threads x 4 rounds"), "{stdout}");
}

#[test]
fn extension_tables_loader_images_finalizer() {
    let prog = gcc("extensions", &["extensions.c"], &[]);
    let out = run_ok(on_ours(&prog).arg(kernels()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("extensions: loader 1.00-1.03, images, finalizer, aqlprofile: ok"),
        "{stdout}"
    );
}

#[test]
fn amd_extras_cu_masks_pointer_info_deallocation_callbacks() {
    let prog = gcc("amd_extras", &["amd_extras.c"], &[]);
    let out = run_ok(on_ours(&prog).arg(kernels()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("amd extras: cu masks, gpu-only signal, wait any, profiling, rect copies, pointer info, deallocation callbacks, overlapping locks, async function: ok"), "{stdout}");
}

#[test]
fn misc_isas_code_objects_signal_groups_init_counting() {
    let prog = gcc("misc", &["misc.c"], &[]);
    let out = run_ok(on_ours(&prog).arg(kernels()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("misc: isas, code objects, symbols, signal groups, signal ops, memory copy, soft queues, queue errors, init counting: ok"),
        "{stdout}"
    );
}

/// `ipc_events.c`, built once for the three tests that run it (parallel
/// builds of one binary would write it while another test executes it).
fn ipc_events() -> std::path::PathBuf {
    static PROG: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    PROG.get_or_init(|| gcc("ipc_events", &["ipc_events.c"], &[]))
        .clone()
}

#[test]
fn copy_profiling_and_ipc_memory_and_signals_across_processes() {
    let prog = ipc_events();
    let out = run_ok(on_ours(&prog).arg(kernels()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("ipc child: ok"), "{stdout}");
    assert!(
        stdout.contains("ipc events: copy times, ipc memory and signal across processes: ok"),
        "{stdout}"
    );
}

#[test]
fn a_gpu_memory_fault_reaches_the_system_event_handler() {
    let prog = ipc_events();
    let out = run_ok(on_ours(&prog).arg(kernels()).arg("handled"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The page of the bad address; reason HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT.
    assert!(
        stdout.contains("handled fault at 0x7e0000000000 reasons 0x1"),
        "{stdout}"
    );
}

#[test]
fn an_unhandled_gpu_memory_fault_prints_rocrs_message_and_aborts() {
    use std::os::unix::process::ExitStatusExt;
    let prog = ipc_events();
    let out = on_ours(&prog)
        .arg(kernels())
        .arg("unhandled")
        .env_remove("HSA_ENABLE_VM_FAULT_MESSAGE")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.signal(), Some(6), "SIGABRT, as ROCr: {stderr}");
    assert!(
        stderr.lines().any(
            |l| l.starts_with("Memory access fault by GPU node-1 (Agent handle: ")
                && l.ends_with(
                    ") on address 0x7e0000000000. Reason: Page not present or supervisor privilege."
                )
        ),
        "{stderr}"
    );
}

/// `svm.c`, built once for the two tests that run it.
fn svm() -> std::path::PathBuf {
    static PROG: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    PROG.get_or_init(|| gcc("svm", &["svm.c"], &[])).clone()
}

#[test]
fn svm_attributes_prefetch_and_a_kernel_reading_malloced_memory() {
    let out = run_ok(on_ours(&svm()).arg(kernels()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("svm: attributes set and read back, prefetch after a dependency, kernel reading malloc'ed memory: ok"),
        "{stdout}"
    );
}

#[test]
fn svm_memory_without_gpu_access_faults() {
    let out = run_ok(on_ours(&svm()).arg(kernels()).arg("revoked"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("svm revoked: fault at the page of the malloc'ed input"),
        "{stdout}"
    );
}

/// `migrate.c`: `hsa_amd_memory_migrate` moves a buffer between VRAM and
/// system memory in place, its contents kept, kernels using it in each.
#[test]
fn memory_migrates_between_vram_and_system_memory_in_place() {
    let prog = gcc("migrate", &["migrate.c"], &[]);
    let out = run_ok(on_ours(&prog).arg(kernels()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("migrate: VRAM <-> system memory in place, contents and kernels: ok"),
        "{stdout}"
    );
}

#[test]
fn rocr6_vmem_calls_reserve_map_share_and_release() {
    let prog = gcc("vmem", &["vmem.c"], &[]);
    let out = run_ok(on_ours(&prog).arg(kernels()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("vmem: reserve, handle, map, access, kernel write, dma-buf export/import, retain, unmap, release, free: ok"),
        "{stdout}"
    );
}

/// `tests/c/scratch_limit.c`: ROCr 6.1's
/// `hsa_amd_agent_set_async_scratch_limit` takes a limit on the gfx942
/// board (asynchronous scratch reclaim) and refuses one beyond its XCCs;
/// on the MI210, and with `HSA_ENABLE_SCRATCH_ASYNC_RECLAIM=0`, it is
/// `INVALID_ARGUMENT`, as in ROCr.
#[test]
fn the_async_scratch_limit_call_where_reclaim_is_asynchronous_and_not() {
    let prog = gcc("scratch_limit", &["scratch_limit.c"], &[]);
    for (board, flag, mode) in [
        ("mi300x", None, "async"),
        ("mi210", None, "none"),
        ("mi300x", Some("0"), "none"),
    ] {
        let mut cmd = on_ours(&prog);
        cmd.arg(mode).env("SIM_BOARD", board);
        match flag {
            Some(v) => cmd.env("HSA_ENABLE_SCRATCH_ASYNC_RECLAIM", v),
            None => cmd.env_remove("HSA_ENABLE_SCRATCH_ASYNC_RECLAIM"),
        };
        let out = run_ok(&mut cmd);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains(&format!("scratch_limit {mode}: ok")),
            "{board}: {stdout}"
        );
    }
}

#[test]
fn with_xnack_a_kernel_reads_malloced_memory_without_attributes() {
    let out = run_ok(
        on_ours(&svm())
            .arg(kernels())
            .arg("xnack")
            .env("HSA_XNACK", "1"),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("svm xnack: kernel reading malloc'ed memory with no attributes: ok"),
        "{stdout}"
    );
}

/// `tests/c/hsa_trap.c` (also run on AMD's ROCr over the sim by
/// `scripts/test-rocr-on-sim`, with ROCr's own trap handler): `s_trap 2`,
/// an undefined instruction word and a store into the address-space hole
/// reach the queue error callback as `EXCEPTION`, `ILLEGAL_INSTRUCTION`
/// and `MEMORY_APERTURE_VIOLATION` through our trap handler; a fresh
/// queue then works, and `s_trap 3` is stepped over.
#[test]
fn traps_and_exceptions_reach_the_queue_error_callback() {
    let prog = gcc("hsa_trap", &["../../../tests/c/hsa_trap.c"], &[]);
    let faults =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/kernels/faults.co");
    let out = run_ok(on_ours(&prog).arg(&faults).arg("debugtrap"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("hsa_trap: PASS"), "{stdout}");

    // A queue created without a callback gets ROCr's default handler:
    // its message with the queue's address and the status string, then
    // SIGABRT; with HSA_ENABLE_QUEUE_FAULT_MESSAGE=0 nothing happens.
    use std::os::unix::process::ExitStatusExt;
    let out = on_ours(&prog)
        .arg(&faults)
        .arg("default-handler")
        .env_remove("HSA_ENABLE_QUEUE_FAULT_MESSAGE")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(
        out.status.signal(),
        Some(6),
        "SIGABRT, as ROCr: {stdout} {stderr}"
    );
    let queue = stdout
        .lines()
        .find_map(|l| l.strip_prefix("hsa_trap: queue "))
        .expect("the queue's address");
    let want = format!(
        "Queue at {queue} inactivated due to async error:\n\tHSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception.\n"
    );
    assert!(stderr.contains(&want), "{stderr}");
    let out = on_ours(&prog)
        .arg(&faults)
        .arg("default-handler")
        .env("HSA_ENABLE_QUEUE_FAULT_MESSAGE", "0")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "no abort with the message off");
}

/// `tests/c/cu_mask_scratch.c`, which `scripts/test-rocr-on-sim` runs on
/// AMD's ROCr over the sim, gives the same answers on ours: use-once
/// scratch, CU mask statuses and masks with and without `HSA_CU_MASK`,
/// HW_IDs of a one-CU mask, and a dispatch whose scratch a small pool
/// (`HSA_SCRATCH_MEM=64`, `HSA_MAX_QUEUES=1`) cannot hold in full.
#[test]
fn cu_masks_and_use_once_scratch_as_on_rocr() {
    let prog = gcc(
        "cu_mask_scratch",
        &["../../../tests/c/cu_mask_scratch.c"],
        &[],
    );
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (mode, mask) in [("plain", None), ("env", Some("0:5-9")), ("pool", None)] {
        let mut cmd = on_ours(&prog);
        cmd.arg(root.join("runtime/kernels/demo.co"))
            .arg(root.join("sim/tests/kernels/cumask.co"))
            .arg(mode);
        match mask {
            Some(m) => cmd.env("HSA_CU_MASK", m),
            None => cmd.env_remove("HSA_CU_MASK"),
        };
        if mode == "pool" {
            // A 13 MiB scratch pool, as scripts/test-rocr-on-sim runs it.
            cmd.env("HSA_SCRATCH_MEM", "64").env("HSA_MAX_QUEUES", "1");
        }
        let out = run_ok(&mut cmd);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("cu_mask_scratch: PASS"), "{mode}: {stdout}");
        if mode == "pool" {
            // The lines AMD's ROCr 5.2.3 prints for this dispatch over the
            // sim (scripts/test-rocr-on-sim greps the second).
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stderr.contains(
                    "Failed to map requested scratch (17039360) - reducing queue occupancy.\n  \
                     6922240 scratch mapped, 40.62% occupancy.\n"
                ),
                "{stderr}"
            );
        }
    }
}

/// `tests/c/co_uri.c`, which `scripts/test-rocr-on-sim` runs on AMD's
/// ROCr over the sim: a code object loaded from memory embedded in the
/// program gets the program file's URI at its offset, a malloc'ed one a
/// memory URI, an mmap'ed file a memory URI or, with
/// `HSA_LOADER_ENABLE_MMAP_URI=1`, the file's (percent-encoded: the copy's
/// name has a '+').
#[test]
fn code_objects_from_memory_get_rocrs_uris() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let embedded = format!(
        "-DEMBEDDED_CO=\"{}\"",
        root.join("runtime/kernels/faults.co").display()
    );
    let prog = gcc("co_uri", &["../../../tests/c/co_uri.c"], &[&embedded]);
    let mapped = common::work_dir("co_uri").join("demo+copy.co");
    std::fs::copy(root.join("runtime/kernels/demo.co"), &mapped).unwrap();
    for (mode, flag) in [("default", None), ("mmap-uri", Some("1"))] {
        let mut cmd = on_ours(&prog);
        cmd.arg(&mapped).arg(mode);
        match flag {
            Some(v) => cmd.env("HSA_LOADER_ENABLE_MMAP_URI", v),
            None => cmd.env_remove("HSA_LOADER_ENABLE_MMAP_URI"),
        };
        let out = run_ok(&mut cmd);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("co_uri: PASS"), "{mode}: {stdout}");
    }
}

/// `tests/c/r_debug.c`, which `scripts/test-rocr-on-sim` runs on AMD's
/// ROCr over the sim: the exported `_amdgpu_r_debug` lists the code objects
/// of frozen executables (URIs naming their bytes, from a file and from
/// memory, `l_addr` their load delta), consistent, and destroying an
/// executable removes its entry.
#[test]
fn the_exported_r_debug_lists_loaded_code_objects_as_on_rocr() {
    let prog = gcc("r_debug", &["../../../tests/c/r_debug.c"], &[]);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = run_ok(
        on_ours(&prog)
            .arg(root.join("runtime/kernels/demo.co"))
            .arg(root.join("runtime/kernels/faults.co")),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("r_debug: PASS"), "{stdout}");
    assert!(stdout.contains("r_debug: r_version 1\n"), "{stdout}");
}
