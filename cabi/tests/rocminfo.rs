//! Debian's unmodified `rocminfo` 5.2.3 (`/usr/bin/rocminfo`) on this
//! library: it prints the CPU agent and the software GPU (gfx90a) with
//! their pools, caches and ISA, exits 0, and every value it prints is the
//! one `hsa info --json` (the project's tool, built here by cargo) prints
//! for the same attribute.
//!
//! rocminfo's own pre-checks want an openable `/dev/kfd` and `amdgpu` in
//! `lsmod`: it runs in a private mount namespace (`unshare -m`) where a
//! tmpfs `/dev` holds a plain file bind-mounted at `/dev/kfd`, with an
//! `lsmod` script on `PATH` that lists amdgpu and a preload answering
//! `getlogin()` (NULL without a terminal, as in CI). The runtime sees that
//! this `/dev/kfd` is no KFD (`GET_VERSION` fails) and uses the software GPU.

mod common;

use std::collections::BTreeMap;
use std::process::Command;

use common::{lib_dir, run_ok, work_dir};

const SETUP: &str = r#"#!/bin/sh
set -e
T="$1"; LIB="$2"
mount --make-rprivate /
mkdir -p "$T/dev"
mount -t tmpfs tmpfs "$T/dev"
for n in null zero full random urandom tty; do
  if [ -e "/dev/$n" ]; then touch "$T/dev/$n"; mount --bind "/dev/$n" "$T/dev/$n"; fi
done
if [ -d /dev/shm ]; then mkdir -p "$T/dev/shm"; mount --bind /dev/shm "$T/dev/shm"; fi
ln -sf /proc/self/fd "$T/dev/fd"
: > "$T/not-a-kfd"
touch "$T/dev/kfd"
mount --bind "$T/not-a-kfd" "$T/dev/kfd"
mount --bind "$T/dev" /dev
PATH="$T/bin:$PATH" LD_PRELOAD="$T/getlogin.so" LD_LIBRARY_PATH="$LIB" exec /usr/bin/rocminfo
"#;

const LSMOD: &str = "#!/bin/sh\necho 'Module                  Size  Used by'\necho 'amdgpu               9437184  0'\n";

const GETLOGIN: &str = r#"#include <string.h>
#include <unistd.h>
char *getlogin(void) { return "hsa"; }
int getlogin_r(char *buf, size_t n) { if (n < 4) return 34; strcpy(buf, "hsa"); return 0; }
"#;

fn rocminfo() -> String {
    assert!(
        std::path::Path::new("/usr/bin/rocminfo").exists(),
        "/usr/bin/rocminfo is missing: install rocminfo"
    );
    let t = work_dir("rocminfo");
    std::fs::create_dir_all(t.join("bin")).unwrap();
    std::fs::write(t.join("setup.sh"), SETUP).unwrap();
    std::fs::write(t.join("bin/lsmod"), LSMOD).unwrap();
    std::fs::write(t.join("getlogin.c"), GETLOGIN).unwrap();
    run_ok(
        Command::new("chmod")
            .arg("+x")
            .arg(t.join("setup.sh"))
            .arg(t.join("bin/lsmod")),
    );
    run_ok(
        Command::new("gcc")
            .args(["-shared", "-fPIC", "-o"])
            .arg(t.join("getlogin.so"))
            .arg(t.join("getlogin.c")),
    );
    let root = rustix_is_root();
    let mut cmd = Command::new("unshare");
    cmd.arg(if root { "-m" } else { "-rm" })
        .arg("sh")
        .arg(t.join("setup.sh"))
        .arg(&t)
        .arg(lib_dir())
        .env_remove("HSA_DRIVER");
    let out = run_ok(&mut cmd);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("AMDKFD_IOC_GET_VERSION failed"),
        "the runtime did not notice the fake /dev/kfd:\n{stderr}"
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn rustix_is_root() -> bool {
    let out = Command::new("id").arg("-u").output().expect("id -u");
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

/// rocminfo's agents: each one's `Label: value` lines, first occurrence
/// wins, plus the lists of pool sizes and ISA names.
#[derive(Debug, Default)]
struct AgentText {
    fields: BTreeMap<String, String>,
    pool_sizes_kb: Vec<u64>,
    /// Per pool: `Allocatable`, `Alloc Granule`, `Alloc Alignment`,
    /// `Accessible by all`.
    pools: Vec<BTreeMap<String, String>>,
    caches_kb: Vec<(String, u64)>,
    isas: Vec<String>,
}

fn parse(out: &str) -> Vec<AgentText> {
    let mut agents = Vec::new();
    let mut cur: Option<AgentText> = None;
    let mut in_cache = false;
    for line in out.lines() {
        let t = line.trim();
        if t.starts_with("Agent ") && t[6..].chars().all(|c| c.is_ascii_digit()) {
            if let Some(a) = cur.take() {
                agents.push(a);
            }
            cur = Some(AgentText::default());
            continue;
        }
        let Some(a) = cur.as_mut() else { continue };
        if t.strip_prefix("Pool ")
            .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()))
        {
            a.pools.push(BTreeMap::new());
            continue;
        }
        let Some((k, v)) = t.split_once(':') else {
            continue;
        };
        let (k, v) = (k.trim(), v.trim());
        if k == "Cache Info" {
            in_cache = true;
            continue;
        }
        if in_cache && k.starts_with('L') && k[1..].chars().all(|c| c.is_ascii_digit()) {
            a.caches_kb.push((k.to_string(), number(v)));
            continue;
        }
        in_cache = false;
        if matches!(
            k,
            "Allocatable" | "Alloc Granule" | "Alloc Alignment" | "Accessible by all"
        ) {
            if let Some(p) = a.pools.last_mut() {
                p.insert(k.into(), v.into());
            }
            continue;
        }
        match k {
            "Size" => a.pool_sizes_kb.push(number(v)),
            "Name" if !a.fields.contains_key("Name") => {
                a.fields.insert(k.into(), v.into());
            }
            "Name" => a.isas.push(v.into()),
            _ => {
                a.fields.entry(k.into()).or_insert_with(|| v.into());
            }
        }
    }
    agents.extend(cur);
    agents
}

/// The leading decimal number of `123(0x7b) KB`.
fn number(v: &str) -> u64 {
    let d: String = v.chars().take_while(char::is_ascii_digit).collect();
    d.parse().unwrap_or_else(|_| panic!("no number in {v:?}"))
}

/// `hsa info --json` (the project's own `rocminfo`), built by cargo into
/// this test's target directory and profile and run on the same device.
fn hsa_info_json() -> serde_json::Value {
    let exe = std::env::current_exe().expect("test executable path");
    let profile_dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("target/<profile>");
    let target = profile_dir.parent().expect("target dir");
    let profile = profile_dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("debug");
    let mut build = Command::new(env!("CARGO"));
    build
        .args([
            "build",
            "--quiet",
            "--locked",
            "-p",
            "runtime",
            "--bin",
            "hsa",
            "--profile",
        ])
        .arg(if profile == "debug" { "dev" } else { profile })
        .env("CARGO_TARGET_DIR", target);
    run_ok(&mut build);
    let out = run_ok(
        Command::new(profile_dir.join("hsa"))
            .args(["info", "--json"])
            .env_remove("HSA_DRIVER"),
    );
    serde_json::from_slice(&out.stdout).expect("hsa info --json prints JSON")
}

#[test]
fn debian_rocminfo_runs_on_the_drop_in() {
    let out = rocminfo();
    assert!(out.contains("HSA System Attributes"), "{out}");
    assert!(out.contains("*** Done ***"), "{out}");
    assert!(out.contains("Runtime Version:         1.1"), "{out}");
    let agents = parse(&out);

    let json = hsa_info_json();
    assert_eq!(
        json["driver"], "sim",
        "hsa info ran on the software GPU too"
    );
    let ours = json["agents"].as_array().expect("agents");
    assert_eq!(agents.len(), ours.len(), "{out}");
    let mut gpus = 0;
    for (i, (text, agent)) in agents.iter().zip(ours).enumerate() {
        let attrs = &agent["attributes"];
        let f = |k: &str| {
            text.fields
                .get(k)
                .unwrap_or_else(|| panic!("rocminfo printed no {k:?}: {text:#?}"))
                .clone()
        };
        let num = |k: &str| number(&f(k));
        let s = |c: &str| {
            attrs[c]
                .as_str()
                .unwrap_or_else(|| panic!("{c} of agent {i}"))
                .to_string()
        };
        // An attribute the runtime refuses for this agent is left out of the
        // JSON; rocminfo then prints the 0 it started with.
        let n = |c: &str| attrs[c].as_u64().unwrap_or(0);
        let gpu = n("HSA_AGENT_INFO_DEVICE") == 1;
        assert_eq!(f("Name"), s("HSA_AGENT_INFO_NAME"));
        assert_eq!(f("Vendor Name"), s("HSA_AGENT_INFO_VENDOR_NAME"));
        assert_eq!(f("Marketing Name"), s("HSA_AMD_AGENT_INFO_PRODUCT_NAME"));
        assert_eq!(f("Uuid"), s("HSA_AMD_AGENT_INFO_UUID"));
        assert_eq!(f("Device Type"), if gpu { "GPU" } else { "CPU" });
        for (label, c) in [
            ("Node", "HSA_AGENT_INFO_NODE"),
            ("Max Queue Number", "HSA_AGENT_INFO_QUEUES_MAX"),
            ("Queue Min Size", "HSA_AGENT_INFO_QUEUE_MIN_SIZE"),
            ("Queue Max Size", "HSA_AGENT_INFO_QUEUE_MAX_SIZE"),
            ("Chip ID", "HSA_AMD_AGENT_INFO_CHIP_ID"),
            ("Cacheline Size", "HSA_AMD_AGENT_INFO_CACHELINE_SIZE"),
            (
                "Max Clock Freq. (MHz)",
                "HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY",
            ),
            ("BDFID", "HSA_AMD_AGENT_INFO_BDFID"),
            ("Internal Node ID", "HSA_AMD_AGENT_INFO_DRIVER_NODE_ID"),
            ("Compute Unit", "HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT"),
            ("SIMDs per CU", "HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU"),
            ("Shader Engines", "HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES"),
            (
                "Shader Arrs. per Eng.",
                "HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE",
            ),
            (
                "WatchPts on Addr. Ranges",
                "HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS",
            ),
        ] {
            assert_eq!(num(label), n(c), "agent {i}: {label} / {c}");
        }
        // Caches: rocminfo prints each nonzero HSA_AGENT_INFO_CACHE_SIZE / 1024.
        let want: Vec<(String, u64)> = attrs["HSA_AGENT_INFO_CACHE_SIZE"]
            .as_array()
            .expect("uint32_t[4]")
            .iter()
            .enumerate()
            .filter_map(|(l, v)| {
                let v = v.as_u64()?;
                (v > 0).then(|| (format!("L{}", l + 1), v / 1024))
            })
            .collect();
        assert_eq!(text.caches_kb, want, "{text:#?}");
        // Pools, in iteration order.
        let pools = agent["pools"].as_array().expect("pools");
        assert!(!pools.is_empty());
        assert_eq!(text.pools.len(), pools.len(), "{text:#?}");
        let tf = |v: &serde_json::Value| {
            if v.as_bool() == Some(true) {
                "TRUE"
            } else {
                "FALSE"
            }
        };
        for ((size_kb, fields), p) in text.pool_sizes_kb.iter().zip(&text.pools).zip(pools) {
            let a = &p["attributes"];
            let kb = |c: &str| a[c].as_u64().expect(c) / 1024;
            assert_eq!(*size_kb, kb("HSA_AMD_MEMORY_POOL_INFO_SIZE"));
            assert_eq!(
                fields["Allocatable"],
                tf(&a["HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED"])
            );
            assert_eq!(
                fields["Accessible by all"],
                tf(&a["HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL"])
            );
            assert_eq!(
                fields["Alloc Granule"],
                format!("{}KB", kb("HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE"))
            );
            assert_eq!(
                fields["Alloc Alignment"],
                format!(
                    "{}KB",
                    kb("HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT")
                )
            );
        }
        assert_eq!(text.pool_sizes_kb.len(), pools.len());
        // ISAs.
        let want: Vec<String> = agent["isas"]
            .as_array()
            .expect("isas")
            .iter()
            .map(|isa| {
                isa["attributes"]["HSA_ISA_INFO_NAME"]
                    .as_str()
                    .expect("name")
                    .to_string()
            })
            .collect();
        assert_eq!(text.isas, want);
        if gpu {
            gpus += 1;
            assert_eq!(f("Name"), "gfx90a");
            assert_eq!(num("Wavefront Size"), n("HSA_AGENT_INFO_WAVEFRONT_SIZE"));
            assert_eq!(
                num("Max Waves Per CU"),
                n("HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU")
            );
            assert_eq!(
                num("Workgroup Max Size"),
                n("HSA_AGENT_INFO_WORKGROUP_MAX_SIZE")
            );
            assert_eq!(num("Grid Max Size"), n("HSA_AGENT_INFO_GRID_MAX_SIZE"));
            assert_eq!(
                f("Fast F16 Operation"),
                tf(&attrs["HSA_AGENT_INFO_FAST_F16_OPERATION"])
            );
            assert_eq!(f("Features"), "KERNEL_DISPATCH");
            assert_eq!(text.isas, ["amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"]);
            assert!(!text.caches_kb.is_empty());
        }
    }
    assert_eq!(gpus, 1, "{out}");
    assert_eq!(
        ours[0]["attributes"]["HSA_AGENT_INFO_DEVICE"], 0,
        "the CPU agent comes first"
    );
}
