//! Debian's unmodified `rocminfo` 5.2.3 (`/usr/bin/rocminfo`) on this
//! library: it prints the CPU agent and the software GPU (gfx90a) with
//! their pools, caches and ISA, exits 0, and every value it prints is the
//! runtime's (read here through the Rust API, as `hsa info --json` prints
//! them).
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
use runtime::Runtime;
use runtime::info::{AgentInfo, AmdAgentInfo, IsaInfo, PoolInfo};

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

#[test]
fn debian_rocminfo_runs_on_the_drop_in() {
    let out = rocminfo();
    assert!(out.contains("HSA System Attributes"), "{out}");
    assert!(out.contains("*** Done ***"), "{out}");
    assert!(out.contains("Runtime Version:         1.1"), "{out}");
    let agents = parse(&out);

    let rt = Runtime::init().expect("the runtime on the software GPU");
    let ours: Vec<_> = rt.agents().collect();
    assert_eq!(agents.len(), ours.len(), "{out}");
    let mut gpus = 0;
    for (text, &a) in agents.iter().zip(&ours) {
        let f = |k: &str| {
            text.fields
                .get(k)
                .unwrap_or_else(|| panic!("rocminfo printed no {k:?}: {text:#?}"))
                .clone()
        };
        let num = |k: &str| number(&f(k));
        let info = |attr: AgentInfo| rt.agent_info(a, attr).unwrap();
        let amd = |attr: AmdAgentInfo| rt.agent_info(a, attr).unwrap();
        let gpu = rt.agent(a).unwrap().is_gpu();
        assert_eq!(f("Name"), info(AgentInfo::Name).as_str().unwrap());
        assert_eq!(
            f("Vendor Name"),
            info(AgentInfo::VendorName).as_str().unwrap()
        );
        assert_eq!(
            f("Marketing Name"),
            amd(AmdAgentInfo::ProductName).as_str().unwrap()
        );
        assert_eq!(f("Uuid"), amd(AmdAgentInfo::Uuid).as_str().unwrap());
        assert_eq!(f("Device Type"), if gpu { "GPU" } else { "CPU" });
        assert_eq!(num("Node"), info(AgentInfo::Node).as_u64().unwrap());
        assert_eq!(
            num("Max Queue Number"),
            info(AgentInfo::QueuesMax).as_u64().unwrap()
        );
        assert_eq!(
            num("Queue Min Size"),
            info(AgentInfo::QueueMinSize).as_u64().unwrap()
        );
        assert_eq!(
            num("Queue Max Size"),
            info(AgentInfo::QueueMaxSize).as_u64().unwrap()
        );
        assert_eq!(num("Chip ID"), amd(AmdAgentInfo::ChipId).as_u64().unwrap());
        assert_eq!(
            num("Cacheline Size"),
            amd(AmdAgentInfo::CachelineSize).as_u64().unwrap()
        );
        assert_eq!(
            num("Max Clock Freq. (MHz)"),
            amd(AmdAgentInfo::MaxClockFrequency).as_u64().unwrap()
        );
        assert_eq!(num("BDFID"), amd(AmdAgentInfo::Bdfid).as_u64().unwrap());
        assert_eq!(
            num("Internal Node ID"),
            amd(AmdAgentInfo::DriverNodeId).as_u64().unwrap()
        );
        assert_eq!(
            num("Compute Unit"),
            amd(AmdAgentInfo::ComputeUnitCount).as_u64().unwrap()
        );
        assert_eq!(
            num("SIMDs per CU"),
            amd(AmdAgentInfo::NumSimdsPerCu).as_u64().unwrap()
        );
        assert_eq!(
            num("Shader Engines"),
            amd(AmdAgentInfo::NumShaderEngines).as_u64().unwrap()
        );
        // Caches: rocminfo prints each nonzero HSA_AGENT_INFO_CACHE_SIZE / 1024.
        let runtime::InfoValue::U32x4(sizes) = info(AgentInfo::CacheSize) else {
            panic!("CACHE_SIZE is uint32_t[4]")
        };
        let want: Vec<(String, u64)> = sizes
            .iter()
            .enumerate()
            .filter(|(_, s)| **s > 0)
            .map(|(i, s)| (format!("L{}", i + 1), u64::from(*s) / 1024))
            .collect();
        assert_eq!(text.caches_kb, want, "{text:#?}");
        // Pools: every pool's size in KB, in iteration order.
        let want: Vec<u64> = rt
            .pools(a)
            .unwrap()
            .into_iter()
            .map(|p| rt.pool_info(p, PoolInfo::Size).unwrap().as_u64().unwrap() / 1024)
            .collect();
        assert_eq!(text.pool_sizes_kb, want, "{text:#?}");
        assert!(!want.is_empty());
        assert_eq!(text.pools.len(), want.len(), "{text:#?}");
        for (p, fields) in rt.pools(a).unwrap().into_iter().zip(&text.pools) {
            let v = |attr: PoolInfo| rt.pool_info(p, attr).unwrap().as_u64().unwrap();
            let tf = |b: u64| if b != 0 { "TRUE" } else { "FALSE" };
            assert_eq!(fields["Allocatable"], tf(v(PoolInfo::RuntimeAllocAllowed)));
            assert_eq!(
                fields["Accessible by all"],
                tf(v(PoolInfo::AccessibleByAll))
            );
            assert_eq!(
                fields["Alloc Granule"],
                format!("{}KB", v(PoolInfo::RuntimeAllocGranule) / 1024)
            );
            assert_eq!(
                fields["Alloc Alignment"],
                format!("{}KB", v(PoolInfo::RuntimeAllocAlignment) / 1024)
            );
        }
        // ISAs.
        let want: Vec<String> = rt
            .agent_isas(a)
            .unwrap()
            .into_iter()
            .map(|i| {
                rt.isa_info(i, IsaInfo::Name)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(text.isas, want);
        if gpu {
            gpus += 1;
            assert_eq!(f("Name"), "gfx90a");
            assert_eq!(
                num("Wavefront Size"),
                info(AgentInfo::WavefrontSize).as_u64().unwrap()
            );
            assert_eq!(
                num("Max Waves Per CU"),
                amd(AmdAgentInfo::MaxWavesPerCu).as_u64().unwrap()
            );
            assert_eq!(text.isas, ["amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"]);
            assert!(!text.caches_kb.is_empty());
        }
    }
    assert_eq!(gpus, 1, "{out}");
    assert!(
        !rt.agent(ours[0]).unwrap().is_gpu(),
        "the CPU agent comes first"
    );
}
