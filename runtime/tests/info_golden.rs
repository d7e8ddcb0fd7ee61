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
