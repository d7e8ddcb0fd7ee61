//! HIP programs (`tests/hip/*.hip`, one per test) built with Debian's
//! `hipcc` for gfx90a and run unmodified on Debian's HIP 5.2.3
//! (`libamdhip64`) over the drop-in library and the software GPU. Each
//! program checks its own results and prints `NAME: ok`; the tests here
//! check that line and the exit status, plus what a program cannot judge
//! alone (device properties against the runtime's agent info, device
//! printf output, the abort of a failing assert or a memory fault).
//!
//! hipcc is slow (seconds per program): each binary is cached under the
//! target dir by a hash of its sources and flags, so a test run compiles
//! only what changed, and the tests (cargo's threads) compile in parallel.

mod common;

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex, OnceLock};

use common::{on_ours, run_ok, work_dir};
use runtime::Runtime;
use runtime::info::{AgentInfo, AmdAgentInfo, InfoValue, PoolInfo};
use sim::{Board, SimBuilder};

fn hip_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hip")
}

/// `tests/hip/NAME.hip` built by hipcc (`extra` flags, e.g. `--genco`)
/// into `out_name`, reusing the cached build of the same sources.
fn hipcc(name: &str, extra: &[&str], out_name: &str) -> PathBuf {
    // One build per output in this process, whichever tests want it.
    static BUILDS: Mutex<BTreeMap<String, Arc<OnceLock<PathBuf>>>> = Mutex::new(BTreeMap::new());
    let once = BUILDS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(out_name.to_string())
        .or_default()
        .clone();
    once.get_or_init(|| build(name, extra, out_name)).clone()
}

fn build(name: &str, extra: &[&str], out_name: &str) -> PathBuf {
    assert!(
        Path::new("/usr/bin/hipcc").exists(),
        "/usr/bin/hipcc is missing: install hipcc"
    );
    let src = hip_dir().join(format!("{name}.hip"));
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for f in [src.clone(), hip_dir().join("check.h")] {
        std::fs::read(&f)
            .unwrap_or_else(|e| panic!("read {}: {e}", f.display()))
            .hash(&mut h);
    }
    extra.hash(&mut h);
    let dir = work_dir("hip");
    let out = dir.join(format!("{out_name}-{:016x}", h.finish()));
    if out.exists() {
        return out;
    }
    // Built under a private name, renamed when complete: a concurrent or
    // interrupted build never leaves a half-written binary at `out`.
    let tmp = dir.join(format!("{out_name}.{}.tmp", std::process::id()));
    run_ok(
        Command::new("hipcc")
            .args(["--offload-arch=gfx90a", "-O1"])
            .args(extra)
            .arg("-o")
            .arg(&tmp)
            .arg(&src),
    );
    std::fs::rename(&tmp, &out).unwrap_or_else(|e| panic!("rename {}: {e}", tmp.display()));
    out
}

fn program(name: &str) -> PathBuf {
    hipcc(name, &[], name)
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `name` on the drop-in (with `env`) and checks its `NAME: ok` line
/// and exit status 0; returns its output.
fn run_passing(name: &str, env: &[(&str, &str)], args: &[&Path]) -> (String, String) {
    let prog = program(name);
    let mut cmd = on_ours(&prog);
    // Every failed call on stderr: none may be a function or feature this
    // library does not implement (ARCHITECTURE.md, "HIP 5.2.3 on the
    // drop-in": HIP's paths reach none).
    cmd.env("HSA_RS_CABI_LOG", "1");
    cmd.envs(env.iter().copied()).args(args);
    let (stdout, stderr) = text(&run_ok(&mut cmd));
    let unsupported: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("not implemented"))
        .collect();
    assert!(
        unsupported.is_empty(),
        "{name} reached what the library does not implement:\n{}",
        unsupported.join("\n")
    );
    assert!(
        stdout.lines().any(|l| l == format!("{name}: ok")),
        "{name} printed no ok line:\n{stdout}\n{stderr}"
    );
    assert!(
        stderr.contains("using the software GPU"),
        "not our runtime:\n{stderr}"
    );
    (stdout, stderr)
}

/// Runs `name`, which must be killed by SIGABRT (HIP's queue error
/// handler, or for a memory fault the runtime's VM fault handler, aborts
/// the process, as on a real GPU); returns its output.
fn run_aborting(name: &str) -> (String, String) {
    let prog = program(name);
    let out = on_ours(&prog)
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", prog.display()));
    let (stdout, stderr) = text(&out);
    assert_eq!(
        out.status.signal(),
        Some(6),
        "{name} was not aborted ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(!stdout.contains(": fail"), "{stdout}\n{stderr}");
    (stdout, stderr)
}

/// `prop [DEVICE ]KEY=VALUE` lines of the devices program, keyed
/// `DEVICE.KEY` (or `KEY`).
fn props(stdout: &str) -> BTreeMap<String, String> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("prop "))
        .filter_map(|l| {
            let (dev, rest) = match l.split_once(' ') {
                Some((d, r)) if d.chars().all(|c| c.is_ascii_digit()) => (format!("{d}."), r),
                _ => (String::new(), l),
            };
            let (k, v) = rest.split_once('=')?;
            Some((format!("{dev}{k}"), v.to_string()))
        })
        .collect()
}

fn u64_of(v: InfoValue) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("{v:?} is not a number"))
}

/// hipGetDeviceProperties against the runtime's own agent and pool info
/// (what `hsa info --json` prints), on one GPU and on an MI250X's two GCDs.
fn devices_match_the_runtime(board: &str) {
    let (stdout, stderr) = run_passing("devices", &[("SIM_BOARD", board)], &[]);
    let p = props(&stdout);
    let get = |k: &str| {
        p.get(k)
            .unwrap_or_else(|| panic!("no {k} in\n{stdout}\n{stderr}"))
            .clone()
    };
    let num = |k: &str| -> u64 {
        get(k)
            .parse()
            .unwrap_or_else(|_| panic!("{k} is not a number: {}", get(k)))
    };
    // The same software GPU as the program's, built here from the board.
    let b = Board::from_name(board).expect("a board name");
    let rt =
        Runtime::init_with(|| runtime::driver::open_sim_device(SimBuilder::new().board(b).build()))
            .expect("the runtime on the software GPU");
    let gpus: Vec<_> = rt
        .agents()
        .filter(|&a| rt.agent(a).unwrap().is_gpu())
        .collect();
    assert_eq!(num("count"), gpus.len() as u64, "device count");
    for (d, &a) in gpus.iter().enumerate() {
        let k = |f: &str| format!("{d}.{f}");
        let info = |attr: AgentInfo| rt.agent_info(a, attr).unwrap();
        let amd = |attr: AmdAgentInfo| rt.agent_info(a, attr).unwrap();
        assert_eq!(
            get(&k("name")),
            amd(AmdAgentInfo::ProductName).as_str().unwrap()
        );
        let isa = rt.agent_isas(a).unwrap()[0].name();
        assert_eq!(
            Some(get(&k("gcnArchName")).as_str()),
            isa.strip_prefix("amdgcn-amd-amdhsa--"),
            "{stdout}"
        );
        assert!(get(&k("gcnArchName")).starts_with("gfx90a:"), "{stdout}");
        assert_eq!(
            num(&k("multiProcessorCount")),
            u64_of(amd(AmdAgentInfo::ComputeUnitCount))
        );
        assert_eq!(
            num(&k("clockRate")),
            1000 * u64_of(amd(AmdAgentInfo::MaxClockFrequency)),
            "clockRate is in kHz"
        );
        assert_eq!(
            num(&k("memoryClockRate")),
            1000 * u64_of(amd(AmdAgentInfo::MemoryMaxFrequency))
        );
        assert_eq!(
            num(&k("memoryBusWidth")),
            u64_of(amd(AmdAgentInfo::MemoryWidth))
        );
        assert_eq!(num(&k("warpSize")), u64_of(info(AgentInfo::WavefrontSize)));
        assert_eq!(
            num(&k("maxThreadsPerBlock")),
            u64_of(info(AgentInfo::WorkgroupMaxSize))
        );
        let InfoValue::U16x3(dims) = info(AgentInfo::WorkgroupMaxDim) else {
            panic!("workgroup max dim")
        };
        assert_eq!(
            get(&k("maxThreadsDim")),
            format!("{},{},{}", dims[0], dims[1], dims[2])
        );
        let InfoValue::U32x4(caches) = info(AgentInfo::CacheSize) else {
            panic!("cache sizes")
        };
        assert_eq!(num(&k("l2CacheSize")), u64::from(caches[1]));
        assert_eq!(
            num(&k("pciBusID")),
            u64_of(amd(AmdAgentInfo::Bdfid)) >> 8,
            "the bus of the BDF id"
        );
        assert_eq!(
            num(&k("maxThreadsPerMultiProcessor")),
            u64_of(amd(AmdAgentInfo::MaxWavesPerCu)) * u64_of(info(AgentInfo::WavefrontSize))
        );
        // totalGlobalMem is the coarse-grained global pool (VRAM),
        // sharedMemPerBlock the group segment pool.
        let pools = rt.pools(a).unwrap();
        let pool_num = |segment: u64, flags: Option<u64>| -> u64 {
            let p = pools
                .iter()
                .find(|&&p| {
                    u64_of(rt.pool_info(p, PoolInfo::Segment).unwrap()) == segment
                        && flags.is_none_or(|f| {
                            u64_of(rt.pool_info(p, PoolInfo::GlobalFlags).unwrap()) & f != 0
                        })
                })
                .unwrap_or_else(|| panic!("no pool of segment {segment}"));
            u64_of(rt.pool_info(*p, PoolInfo::Size).unwrap())
        };
        assert_eq!(num(&k("totalGlobalMem")), pool_num(0, Some(4)));
        assert_eq!(num(&k("sharedMemPerBlock")), pool_num(3, None));
    }
}

/// One test for both boards: the runtime is one per process, so the two
/// comparisons must not overlap.
#[test]
fn devices() {
    devices_match_the_runtime("mi210");
    devices_match_the_runtime("mi250x");
}

#[test]
fn memory() {
    run_passing("memory", &[], &[]);
}

#[test]
fn managed() {
    run_passing("managed", &[], &[]);
}

#[test]
fn async_copy() {
    run_passing("async_copy", &[], &[]);
}

#[test]
fn peer() {
    run_passing("peer", &[("SIM_GPUS", "2")], &[]);
}

#[test]
fn grids() {
    run_passing("grids", &[], &[]);
}

#[test]
fn shared() {
    run_passing("shared", &[], &[]);
}

#[test]
fn atomics() {
    run_passing("atomics", &[], &[]);
}

#[test]
fn warp() {
    run_passing("warp", &[], &[]);
}

#[test]
fn functions() {
    run_passing("functions", &[], &[]);
}

#[test]
fn printf() {
    let (stdout, stderr) = run_passing("printf", &[], &[]);
    let mut lines: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("device line"))
        .collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "device line 0 of 7: hello 0.00 0",
            "device line 100 of 7: hello 50.00 12c",
            "device line 150 of 7: hello 75.00 1c2",
            "device line 50 of 7: hello 25.00 96",
        ],
        "{stdout}\n{stderr}"
    );
}

#[test]
fn assert_in_a_kernel_aborts() {
    let (stdout, stderr) = run_aborting("assert");
    assert!(stdout.contains("launching the failing kernel"), "{stdout}");
    assert!(
        stderr.contains("check_positive(const int *): Device-side assertion `p[t] > 0' failed."),
        "{stderr}"
    );
    assert!(
        stderr.contains("callbackQueue aborting with error : HSA_STATUS_ERROR_EXCEPTION"),
        "{stderr}"
    );
}

#[test]
fn out_of_bounds_access_is_a_memory_fault() {
    let (stdout, stderr) = run_aborting("fault");
    assert!(stdout.contains("launching the faulting kernel"), "{stdout}");
    // As ROCr on a real GPU: its VM fault handler prints this line and
    // aborts (no system event handler took the fault), before any queue
    // error callback of HIP's runs.
    assert!(
        stderr.lines().any(
            |l| l.starts_with("Memory access fault by GPU node-1 (Agent handle: ")
                && l.ends_with(
                    ") on address 0x1000. Reason: Page not present or supervisor privilege."
                )
        ),
        "{stderr}"
    );
}

#[test]
fn launch_errors() {
    run_passing("launch_errors", &[], &[]);
}

#[test]
fn streams_events() {
    run_passing("streams_events", &[], &[]);
}

#[test]
fn module() {
    let co = hipcc("module_kernels", &["--genco"], "module_kernels.co");
    run_passing("module", &[], &[&co]);
}

#[path = "../../sim/tests/support/rocrand_reference.rs"]
mod reference;

/// The words `rocrand_host` wrote to `dir/name.bin`.
fn words(dir: &Path, name: &str) -> Vec<u32> {
    let p = dir.join(format!("{name}.bin"));
    std::fs::read(&p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn assert_same(what: &str, got: &[u32], want: &[u32]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!(
            "{what}: first difference at {i}: rocRAND {:#010x}, reference {:#010x} ({} of {} differ)",
            got[i],
            want[i],
            (0..got.len()).filter(|&i| got[i] != want[i]).count(),
            got.len()
        );
    }
}

/// Debian's librocrand1 through its host API (`rocrand_create_generator`,
/// `rocrand_set_seed`/`_offset`, two `rocrand_generate` calls) on the
/// drop-in, equal to the published algorithms (the references of
/// `sim/tests/rocrand.rs`, checked there against Random123's known answers
/// and the published jump matrices). rocRAND's host code launches its own
/// grids: 131072 XORWOW and MRG32k3a engines (512 blocks of 256), whose
/// init kernels take minutes in a debug build of the software GPU, so this
/// runs in release builds (`scripts/test` runs
/// `cargo test --release -p hsa-runtime64 --test hip_programs rocrand`).
#[test]
#[cfg_attr(debug_assertions, ignore = "needs release speed")]
fn rocrand_host_api_matches_the_reference_algorithms() {
    use reference::*;
    assert!(
        Path::new("/usr/include/rocrand/rocrand.h").exists(),
        "/usr/include/rocrand/rocrand.h is missing: install librocrand-dev"
    );
    let prog = hipcc("rocrand_host", &["-lrocrand"], "rocrand_host");
    let dir = work_dir("rocrand");
    let mut cmd = on_ours(&prog);
    cmd.arg(&dir);
    let (stdout, stderr) = text(&run_ok(&mut cmd));
    assert!(
        stdout.lines().any(|l| l == "rocrand_host: ok"),
        "{stdout}\n{stderr}"
    );
    assert!(stderr.contains("using the software GPU"), "{stderr}");
    // The seeds, offsets and sizes of rocrand_host.hip.
    const ENGINES: u64 = 512 * 256;

    let mut jump67 = Gf2Map::step();
    for _ in 0..67 {
        jump67 = jump67.squared();
    }
    let want = interleaved_reference(
        ENGINES,
        0,
        4000,
        Xorwow::seeded(0x5eed),
        |g| g.x = jump67.apply(g.x),
        |mut g, n| (0..n).map(|_| g.next()).collect(),
    );
    assert_same("XORWOW seed 0x5eed", &words(&dir, "xorwow"), &want);

    let seed = 0xdead_beef_cafe_f00du64;
    let key = [seed as u32, (seed >> 32) as u32];
    let want: Vec<u32> = (0..4099 + 517)
        .map(|i| philox_stream(key, 0, 6 + i))
        .collect();
    assert_same(
        "Philox4x32-10 seed 0xdeadbeefcafef00d offset 6",
        &words(&dir, "philox"),
        &want,
    );

    let j1 = mat_pow2(&A1, 76, M1);
    let j2 = mat_pow2(&A2, 76, M2);
    let want: Vec<u32> = interleaved_reference(
        ENGINES,
        0,
        4000,
        Mrg32k3a::seeded(0xcafe_f00d),
        |g| {
            g.g1 = mat_vec(&j1, g.g1, M1);
            g.g2 = mat_vec(&j2, g.g2, M2);
        },
        |mut g, n| (0..n).map(|_| g.next()).collect(),
    )
    .into_iter()
    .map(mrg_uniform_uint)
    .collect();
    assert_same("MRG32k3a seed 0xcafef00d", &words(&dir, "mrg32k3a"), &want);

    let v = sobol_directions(0);
    let want: Vec<u32> = (0..5300).map(|j| sobol_point(&v, 77 + j)).collect();
    assert_same("Sobol32 offset 77", &words(&dir, "sobol32"), &want);
}
