//! Golden-output tests of `hsa info` on the software GPU (`SIM_BOARD`
//! mi210, mi250x (two GCDs in an XGMI hive) and mi300x). Re-bless after an intended change of the output with
//! `BLESS=1 cargo test -p runtime --test info_golden` (that run fails on
//! purpose), then run it again without `BLESS`.
//!
//! The only host-dependent values are the CPU agent's name and marketing
//! name (`/proc/cpuinfo`'s model name) and its cache sizes (from
//! `/sys/devices/system`), as libhsakmt reads them; they are masked. Everything else comes from the sim's generated topology.

#[path = "support/golden.rs"]
mod golden;
use golden::Golden;

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

const BOARDS: &[&str] = &["mi210", "mi250x", "mi300x"];
const CPU_NAME: &str = "<host CPU model name>";
const CPU_CACHE: &str = "<host CPU caches>";

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `hsa info` on the sim, with every variable that changes the answers
/// cleared.
fn hsa_info(board: &str, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_hsa"));
    c.arg("info").args(args).env("HSA_RS_DRIVER", "sim");
    c.env("SIM_BOARD", board);
    for v in [
        "SIM_GPUS",
        "SIM_VRAM_MIB",
        "ROCR_VISIBLE_DEVICES",
        "HSA_XNACK",
        "HSA_MAX_QUEUES",
        "HSA_COOP_CU_COUNT",
        "HSA_FORCE_FINE_GRAIN_PCIE",
    ] {
        c.env_remove(v);
    }
    c.output().expect("run hsa")
}

/// The CPU model name lines of the CPU agents' blocks, masked.
fn mask_text(text: &str) -> String {
    // Blocks: the header, then one per `Agent N` line.
    let mut blocks: Vec<Vec<&str>> = vec![Vec::new()];
    for line in text.split_inclusive('\n') {
        if line.starts_with("Agent ") {
            blocks.push(Vec::new());
        }
        blocks.last_mut().unwrap().push(line);
    }
    let mut out = String::new();
    for block in blocks {
        let cpu = block
            .iter()
            .any(|l| l.starts_with("  Device Type:") && l.contains(" CPU "));
        for line in block {
            let masked = line.starts_with("  Name:") || line.starts_with("  Marketing Name:");
            let cache = line.starts_with("    L") && line.as_bytes().get(6) == Some(&b':');
            if cpu && masked {
                let label = &line[..27];
                out.push_str(&format!("{label}{CPU_NAME:<35}\n"));
            } else if cpu && cache {
                // The host's CPU caches (libhsakmt reads them from sysfs):
                // none, or some, depending on the machine.
            } else {
                out.push_str(line);
                if cpu && line.starts_with("  Cache Info:") {
                    out.push_str(&format!("    {CPU_CACHE}\n"));
                }
            }
        }
    }
    out
}

fn mask_json(v: &mut Value) {
    for agent in v["agents"].as_array_mut().expect("agents") {
        let attrs = &mut agent["attributes"];
        if attrs["HSA_AGENT_INFO_DEVICE"] == 0 {
            attrs["HSA_AGENT_INFO_NAME"] = CPU_NAME.into();
            attrs["HSA_AMD_AGENT_INFO_PRODUCT_NAME"] = CPU_NAME.into();
            attrs["HSA_AGENT_INFO_CACHE_SIZE"] = CPU_CACHE.into();
        }
    }
}

#[test]
fn text_output_matches_golden_files() {
    let mut golden = Golden::default();
    for board in BOARDS {
        let out = hsa_info(board, &[]);
        assert!(
            out.status.success(),
            "{board}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "{board}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = mask_text(&String::from_utf8(out.stdout).unwrap());
        golden.check(
            &manifest_dir().join(format!("tests/golden/info/{board}.txt")),
            &text,
        );
    }
    golden.finish();
}

#[test]
fn json_output_matches_golden_files() {
    let mut golden = Golden::default();
    for board in BOARDS {
        let out = hsa_info(board, &["--json"]);
        assert!(
            out.status.success(),
            "{board}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut v: Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
        assert_eq!(v["driver"], "sim");
        mask_json(&mut v);
        let text = serde_json::to_string_pretty(&v).unwrap() + "\n";
        golden.check(
            &manifest_dir().join(format!("tests/golden/info/{board}.json")),
            &text,
        );
    }
    golden.finish();
}

/// Every line of the text report is one rocminfo 5.2.3 prints: its labels
/// (from `strings /usr/bin/rocminfo`, where the binary is installed, and
/// rocminfo.cc), its column widths.
#[test]
fn text_uses_rocminfo_labels_and_columns() {
    let out = hsa_info("mi210", &[]);
    let text = String::from_utf8(out.stdout).unwrap();
    let rocminfo = std::fs::read("/usr/bin/rocminfo").ok();
    for line in text.lines() {
        let t = line.trim_start();
        let indent = line.len() - t.len();
        assert!(indent % 2 == 0 && indent <= 8, "{line:?}");
        let Some((label, rest)) = t.split_once(':') else {
            continue;
        };
        let label = format!("{label}:");
        if ["x", "y", "z"].contains(&label.trim_end_matches(':')) {
            continue;
        }
        if let Some(bin) = &rocminfo {
            let known = label.starts_with('L') && label.len() == 3
                || bin.windows(label.len()).any(|w| w == label.as_bytes());
            assert!(known, "rocminfo has no label {label:?}");
        }
        if !rest.trim().is_empty() && label.len() < 25 {
            // Values start in column 25 past the indentation.
            let column = indent + label.len() + (rest.len() - rest.trim_start().len());
            assert_eq!(column, indent + 25, "{line:?}");
        }
    }
    assert!(text.starts_with("=====================    \nHSA System Attributes    \n"));
    assert!(text.ends_with("*** Done ***             \n"));
}

#[test]
fn usage_errors_exit_2() {
    for args in [&["--frobnicate"][..], &["extra"]] {
        let out = hsa_info("mi210", args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.starts_with("error: "), "{err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn a_bad_device_choice_is_one_line_and_exit_1() {
    let out = Command::new(env!("CARGO_BIN_EXE_hsa"))
        .arg("info")
        .env("HSA_RS_DRIVER", "sim")
        .env("SIM_BOARD", "mi999")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("hsa: info: software GPU: "), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(out.stdout.is_empty());
}

/// `hsa info --json` on the MI250X board (two GPUs, nodes 1 and 2) with
/// `env` set: each agent's (`HSA_AGENT_INFO_NODE`, `QUEUES_MAX`).
fn agents_with(env: &[(&str, &str)]) -> Vec<(u64, u64)> {
    let mut c = Command::new(env!("CARGO_BIN_EXE_hsa"));
    c.args(["info", "--json"])
        .env("HSA_RS_DRIVER", "sim")
        .env("SIM_BOARD", "mi250x");
    for v in ["SIM_GPUS", "ROCR_VISIBLE_DEVICES", "HSA_MAX_QUEUES"] {
        c.env_remove(v);
    }
    c.envs(env.iter().copied());
    let out = c.output().expect("run hsa");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    v["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .map(|a| {
            let at = &a["attributes"];
            (
                at["HSA_AGENT_INFO_NODE"].as_u64().expect("node"),
                at["HSA_AGENT_INFO_QUEUES_MAX"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

/// ROCr's `ROCR_VISIBLE_DEVICES` and `HSA_MAX_QUEUES` end to end: the GPUs
/// a process sees and their order, by index or UUID, the list ending at
/// its first invalid entry; and the queue limit each GPU agent reports.
#[test]
fn rocr_visible_devices_and_hsa_max_queues_change_what_the_process_sees() {
    let nodes = |env: &[(&str, &str)]| -> Vec<u64> {
        agents_with(env).into_iter().map(|(n, _)| n).collect()
    };
    assert_eq!(nodes(&[]), [0, 1, 2], "the CPU and both GPUs");
    assert_eq!(nodes(&[("ROCR_VISIBLE_DEVICES", "1")]), [0, 2]);
    assert_eq!(
        nodes(&[("ROCR_VISIBLE_DEVICES", "1,0")]),
        [0, 2, 1],
        "in the list's order"
    );
    assert_eq!(
        nodes(&[("ROCR_VISIBLE_DEVICES", "GPU-000000005a5a0002")]),
        [0, 2],
        "by UUID"
    );
    assert_eq!(
        nodes(&[("ROCR_VISIBLE_DEVICES", "0,7,1")]),
        [0, 1],
        "stops at index 7"
    );
    assert_eq!(nodes(&[("ROCR_VISIBLE_DEVICES", "5")]), [0], "no GPU");
    let queues = agents_with(&[("HSA_MAX_QUEUES", "3")]);
    assert_eq!(queues[1..], [(1, 3), (2, 3)], "QUEUES_MAX of each GPU");
    assert_ne!(agents_with(&[])[1].1, 3, "the default is not 3");
}
