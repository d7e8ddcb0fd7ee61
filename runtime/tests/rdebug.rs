//! Debugger support: the runtime tells the driver of its `r_debug` with
//! `AMDKFD_IOC_RUNTIME_ENABLE` at init (with TTMP_SAVE when
//! `HSA_ENABLE_DEBUG=1`, as ROCr's `KfdDriver::Init`) and disables it at
//! shutdown; the `r_debug` lists every code object of every frozen
//! executable as a debugger walks it (`l_name` the URI, `l_addr` the load
//! delta), calling `r_brk` around each change. One test: the runtimes it
//! opens one after another must not overlap.

use std::path::{Path, PathBuf};
use std::process::Command;

use runtime::executable::{CodeObjectReader, DefaultFloatRoundingMode, Profile};
use runtime::flags::Flags;
use runtime::rdebug::{self, RuntimeEnable};
use runtime::{InitOptions, Runtime, driver};

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/kernels/demo.co");
const FAULTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/kernels/faults.co");

fn trace_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("rdebug-{name}-{}.trace", std::process::id()))
}

/// Opens the runtime on a sim that traces its ioctls to `trace`, with
/// `HSA_ENABLE_DEBUG` as given.
fn open(trace: &Path, enable_debug: Option<&str>) -> Runtime {
    let _ = std::fs::remove_file(trace);
    let flags = Flags::from_lookup(|n| {
        (n == "HSA_ENABLE_DEBUG")
            .then(|| enable_debug.map(str::to_owned))
            .flatten()
    })
    .unwrap();
    let dev = sim::SimBuilder::new().trace(trace).build();
    Runtime::init_with_flags(
        || driver::open_sim_device(dev),
        InitOptions::default(),
        flags,
    )
    .unwrap()
}

/// The RUNTIME_ENABLE lines of a trace, and where each one is among the
/// trace's lines.
fn runtime_enables(trace: &Path) -> Vec<(usize, String)> {
    std::fs::read_to_string(trace)
        .unwrap()
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("AMDKFD_IOC_RUNTIME_ENABLE"))
        .map(|(i, l)| (i, l.to_string()))
        .collect()
}

fn first_line_with(trace: &Path, what: &str) -> Option<usize> {
    std::fs::read_to_string(trace)
        .unwrap()
        .lines()
        .position(|l| l.contains(what))
}

/// The symbol's value in `co` as llvm-readelf-19 reads it.
fn readelf_symbol(co: &str, name: &str) -> u64 {
    let out = Command::new("llvm-readelf-19")
        .args(["-s", "-W", co])
        .output()
        .expect("llvm-readelf-19 (apt-get install llvm-19)");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 8 && f[7] == name).then(|| u64::from_str_radix(f[1], 16).unwrap())
        })
        .unwrap_or_else(|| panic!("{name} not in {co}"))
}

/// The bytes a `file://PATH#offset=O&size=S` URI names.
fn file_uri_bytes(uri: &str) -> Vec<u8> {
    let rest = uri.strip_prefix("file://").expect("a file URI");
    let (path, range) = rest.split_once('#').unwrap_or((rest, ""));
    let bytes = std::fs::read(path).unwrap();
    let mut offset = 0usize;
    let mut size = bytes.len();
    for kv in range.split('&').filter(|s| !s.is_empty()) {
        let (k, v) = kv.split_once('=').unwrap();
        let v = v.parse::<usize>().unwrap();
        match k {
            "offset" => offset = v,
            "size" => size = v,
            _ => panic!("{uri}: {k}"),
        }
    }
    bytes[offset..offset + size].to_vec()
}

#[test]
fn runtime_enable_and_the_code_object_list() {
    // HSA_ENABLE_DEBUG unset: RUNTIME_ENABLE with ENABLE only, before any
    // queue (ROCr always calls it); disabled again at shutdown.
    let t = trace_path("default");
    let rt = open(&t, None);
    assert!(
        matches!(
            rt.runtime_enable(),
            RuntimeEnable::Enabled {
                ttmp_setup: false,
                ..
            }
        ),
        "{:?}",
        rt.runtime_enable()
    );
    let gpu = rt.gpu_agents().next().unwrap();
    let q = rt
        .create_queue(gpu, 64, runtime::QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    drop(q);
    drop(rt);
    let lines = runtime_enables(&t);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].1.contains("mode_mask=0x1 r_debug=given -> 0"),
        "{lines:?}"
    );
    let first_queue = first_line_with(&t, "AMDKFD_IOC_CREATE_QUEUE").unwrap();
    assert!(lines[0].0 < first_queue, "enabled before the first queue");
    assert!(lines[1].1.contains("mode_mask=0x0"), "{lines:?}");
    let _ = std::fs::remove_file(&t);

    // HSA_ENABLE_DEBUG=1: ENABLE | TTMP_SAVE.
    let t = trace_path("debug");
    let rt = open(&t, Some("1"));
    assert_eq!(
        rt.runtime_enable(),
        RuntimeEnable::Enabled {
            ttmp_setup: true,
            capabilities: 0
        }
    );
    drop(rt);
    let lines = runtime_enables(&t);
    assert!(
        lines[0].1.contains("mode_mask=0x3 r_debug=given -> 0"),
        "{lines:?}"
    );
    let _ = std::fs::remove_file(&t);

    // The code object list.
    let t = trace_path("list");
    let rt = open(&t, None);
    let gpu = rt.gpu_agents().next().unwrap();
    let r = rdebug::r_debug();
    assert_eq!(r.r_version, rdebug::R_VERSION);
    assert!(r.r_brk.is_some());
    let before = rdebug::code_objects();
    let calls = rdebug::breakpoint_calls();

    // One executable with a code object read from its file, one from memory.
    let from_file = rt
        .create_executable(Profile::Full, DefaultFloatRoundingMode::Default)
        .unwrap();
    from_file
        .load_agent_code_object(&CodeObjectReader::from_path(DEMO).unwrap(), gpu, None)
        .unwrap();
    // Not frozen: not listed.
    assert_eq!(rdebug::code_objects(), before);
    from_file.freeze(None).unwrap();
    assert_eq!(
        rdebug::breakpoint_calls(),
        calls + 2,
        "RT_ADD, RT_CONSISTENT"
    );
    let faults = std::fs::read(FAULTS).unwrap();
    let from_memory = rt.load_executable(gpu, &faults).unwrap();
    assert_eq!(rdebug::breakpoint_calls(), calls + 4);
    assert_eq!(
        r.r_state.load(std::sync::atomic::Ordering::Acquire),
        rdebug::RT_CONSISTENT
    );

    let listed = rdebug::code_objects();
    assert_eq!(listed.len(), before.len() + 2, "{listed:?}");
    let new = &listed[before.len()..];
    for (entry, exe) in new.iter().zip([&from_file, &from_memory]) {
        let lco = &exe.loaded_code_objects()[0];
        assert_eq!(entry.l_name, lco.uri);
        assert_eq!(entry.l_addr, lco.load_delta as u64);
    }
    // The file URI names the code object's bytes, and l_addr plus the
    // kernel descriptor's ELF address (llvm-readelf) is where the runtime
    // put the kernel.
    assert_eq!(file_uri_bytes(&new[0].l_name), std::fs::read(DEMO).unwrap());
    let kd = readelf_symbol(DEMO, "vector_add.kd");
    let k = from_file.kernel("vector_add").unwrap();
    assert_eq!(new[0].l_addr.wrapping_add(kd), k.kernel_object);
    // The memory URI names this process and the address and size of the
    // bytes the runtime loaded (its copy, kept while the executable lives):
    // they are the code object's.
    let rest = new[1]
        .l_name
        .strip_prefix(&format!("memory://{}#offset=0x", std::process::id()))
        .unwrap_or_else(|| panic!("{}", new[1].l_name));
    let (addr, size) = rest.split_once("&size=").unwrap();
    let (addr, size) = (
        usize::from_str_radix(addr, 16).unwrap(),
        size.parse::<usize>().unwrap(),
    );
    assert_eq!(size, faults.len());
    // SAFETY: the executable keeps the bytes its URI names alive.
    let named = unsafe { std::slice::from_raw_parts(addr as *const u8, size) };
    assert_eq!(named, &faults[..]);
    let kd = readelf_symbol(FAULTS, "store_at.kd");
    let k = from_memory.kernel("store_at").unwrap();
    assert_eq!(new[1].l_addr.wrapping_add(kd), k.kernel_object);

    // Destroying one removes its entry, around two more breakpoints.
    drop(from_file);
    assert_eq!(
        rdebug::breakpoint_calls(),
        calls + 6,
        "RT_DELETE, RT_CONSISTENT"
    );
    let listed = rdebug::code_objects();
    assert_eq!(listed.len(), before.len() + 1);
    assert_eq!(listed[before.len()], new[1]);
    drop(from_memory);
    assert_eq!(rdebug::code_objects(), before);
    drop(rt);
    let _ = std::fs::remove_file(&t);

    an_init_that_fails_after_runtime_enable_disables_it_again();
}

/// An init that fails after RUNTIME_ENABLE succeeded (here: a malformed
/// `HSA_CU_MASK`, checked once the agents are known) disables the runtime
/// again before it returns: amdkfd keeps one process per address space, so
/// a runtime left enabled would make the process's next `hsa_init` fail
/// with the driver's EBUSY.
fn an_init_that_fails_after_runtime_enable_disables_it_again() {
    let trace = trace_path("failed-init");
    let _ = std::fs::remove_file(&trace);
    let bad = Flags::from_lookup(|n| (n == "HSA_CU_MASK").then(|| "0:zz".to_owned())).unwrap();
    let dev = sim::SimBuilder::new().trace(&trace).build();
    let e = Runtime::init_with_flags(|| driver::open_sim_device(dev), InitOptions::default(), bad)
        .expect_err("a malformed HSA_CU_MASK fails hsa_init");
    assert!(e.to_string().contains("HSA_CU_MASK"), "{e}");
    let enables = runtime_enables(&trace);
    assert_eq!(enables.len(), 2, "{enables:#?}");
    assert!(enables[0].1.contains("mode_mask=0x1"), "{}", enables[0].1);
    assert!(enables[1].1.contains("mode_mask=0x0"), "{}", enables[1].1);
    let _ = std::fs::remove_file(&trace);
}
