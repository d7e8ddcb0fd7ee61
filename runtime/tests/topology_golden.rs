//! Golden-output tests of `hsa topology` over the fixture trees in
//! `kfd/fixtures/`. Re-bless after an intended change of the output with
//! `BLESS=1 cargo test -p runtime --test topology_golden` (that run fails on
//! purpose), then run it again without `BLESS`.

#[path = "support/golden.rs"]
mod golden;
use golden::Golden;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const FIXTURES: &[&str] = &[
    "cpu-only",
    "apu-renoir",
    "mi250x",
    "mi300x",
    "rdna3-7900xtx",
];

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn hsa(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hsa"))
        .args(args)
        .current_dir(manifest_dir())
        .output()
        .expect("run hsa")
}

fn fixture_arg(name: &str) -> String {
    format!("../kfd/fixtures/{name}/topology")
}

#[test]
fn text_output_matches_golden_files() {
    let mut golden = Golden::default();
    for name in FIXTURES {
        let out = hsa(&["topology", "--sysfs", &fixture_arg(name)]);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stderr.is_empty());
        let text = String::from_utf8(out.stdout).unwrap();
        golden.check(
            &manifest_dir().join(format!("tests/golden/topology/{name}.txt")),
            &text,
        );
    }
    golden.finish();
}

#[test]
fn json_output_matches_golden_files_and_is_valid_json() {
    let mut golden = Golden::default();
    for name in FIXTURES {
        let out = hsa(&["topology", "--sysfs", &fixture_arg(name), "--json"]);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        json_check::document(&text)
            .unwrap_or_else(|at| panic!("{name}: invalid JSON at byte {at}"));
        python_json_tool(name, &text);
        golden.check(
            &manifest_dir().join(format!("tests/golden/topology/{name}.json")),
            &text,
        );
    }
    golden.finish();
}

/// Also has Python's `json` module parse the document: a second, outside
/// parser. python3 is one of the test packages (`scripts/lib.sh`), so its
/// absence fails the test rather than skipping the check.
fn python_json_tool(name: &str, text: &str) {
    use std::io::Write as _;
    let mut child = Command::new("python3")
        .args(["-m", "json.tool"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("python3 -m json.tool: {e} (install python3: scripts/test installs the test packages)")
        });
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{name}: python3 -m json.tool: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn missing_topology_is_one_line_and_exit_1() {
    let out = hsa(&["topology", "--sysfs", "/nonexistent/topology"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err,
        "hsa: no KFD topology at /nonexistent/topology (no generation_id there, nor in its topology/)\n"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn malformed_file_names_file_and_line() {
    let dir = std::env::temp_dir().join(format!("hsa-topology-test-{}", std::process::id()));
    let src = manifest_dir().join("../kfd/fixtures/rdna3-7900xtx/topology");
    copy_tree(&src, &dir);
    let props = dir.join("nodes/1/properties");
    let text = std::fs::read_to_string(&props)
        .unwrap()
        .replace("wave_front_size 32\n", "wave_front_size 3x2\n");
    std::fs::write(&props, text).unwrap();
    let out = hsa(&["topology", "--sysfs", dir.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err,
        format!(
            "hsa: {}/nodes/1/properties: line 13: value of `wave_front_size` is not an unsigned decimal\n",
            dir.display()
        )
    );
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["topology", "--sysfs"][..],
        &["topology", "--frobnicate"],
        &["topology", "extra-argument"],
    ] {
        let out = hsa(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        // clap names the problem and points to the usage or to `--help`.
        assert!(
            err.contains("Usage: hsa topology [--sysfs DIR] [--json]")
                || err.contains("For more information, try '--help'."),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn sysfs_takes_the_topology_directory_or_the_folder_holding_it() {
    // README: `hsa topology --sysfs kfd/fixtures/mi250x`.
    for name in FIXTURES {
        let nested = hsa(&["topology", "--sysfs", &fixture_arg(name), "--json"]);
        let parent = hsa(&[
            "topology",
            "--sysfs",
            &format!("../kfd/fixtures/{name}"),
            "--json",
        ]);
        assert!(nested.status.success() && parent.status.success(), "{name}");
        assert_eq!(nested.stdout, parent.stdout, "{name}");
        // The text report names the directory it read.
        let text = hsa(&["topology", "--sysfs", &format!("../kfd/fixtures/{name}")]);
        assert!(
            String::from_utf8(text.stdout)
                .unwrap()
                .starts_with(&format!(
                    "KFD topology at ../kfd/fixtures/{name}/topology: "
                )),
            "{name}"
        );
    }
    // A folder with neither is still an error that says so.
    let out = hsa(&["topology", "--sysfs", "../kfd/fixtures"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "hsa: no KFD topology at ../kfd/fixtures (no generation_id there, nor in its topology/)\n"
    );
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A strict RFC 8259 syntax checker (no values built): returns the byte
/// offset of the first error.
mod json_check {
    pub fn document(s: &str) -> Result<(), usize> {
        let b = s.as_bytes();
        let mut i = ws(b, 0);
        i = value(b, i, 0)?;
        i = ws(b, i);
        if i == b.len() { Ok(()) } else { Err(i) }
    }

    fn ws(b: &[u8], mut i: usize) -> usize {
        while matches!(b.get(i), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            i += 1;
        }
        i
    }

    fn value(b: &[u8], i: usize, depth: usize) -> Result<usize, usize> {
        if depth > 64 {
            return Err(i);
        }
        match b.get(i) {
            Some(b'{') => {
                let mut i = ws(b, i + 1);
                if b.get(i) == Some(&b'}') {
                    return Ok(i + 1);
                }
                loop {
                    i = string(b, i)?;
                    i = ws(b, i);
                    if b.get(i) != Some(&b':') {
                        return Err(i);
                    }
                    i = ws(b, i + 1);
                    i = value(b, i, depth + 1)?;
                    i = ws(b, i);
                    match b.get(i) {
                        Some(b',') => i = ws(b, i + 1),
                        Some(b'}') => return Ok(i + 1),
                        _ => return Err(i),
                    }
                }
            }
            Some(b'[') => {
                let mut i = ws(b, i + 1);
                if b.get(i) == Some(&b']') {
                    return Ok(i + 1);
                }
                loop {
                    i = value(b, i, depth + 1)?;
                    i = ws(b, i);
                    match b.get(i) {
                        Some(b',') => i = ws(b, i + 1),
                        Some(b']') => return Ok(i + 1),
                        _ => return Err(i),
                    }
                }
            }
            Some(b'"') => string(b, i),
            Some(b't') => literal(b, i, b"true"),
            Some(b'f') => literal(b, i, b"false"),
            Some(b'n') => literal(b, i, b"null"),
            Some(b'-' | b'0'..=b'9') => number(b, i),
            _ => Err(i),
        }
    }

    fn literal(b: &[u8], i: usize, lit: &[u8]) -> Result<usize, usize> {
        if b.get(i..i + lit.len()) == Some(lit) {
            Ok(i + lit.len())
        } else {
            Err(i)
        }
    }

    fn string(b: &[u8], i: usize) -> Result<usize, usize> {
        if b.get(i) != Some(&b'"') {
            return Err(i);
        }
        let mut i = i + 1;
        loop {
            match b.get(i) {
                Some(b'"') => return Ok(i + 1),
                Some(b'\\') => match b.get(i + 1) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                    Some(b'u')
                        if b.get(i + 2..i + 6)
                            .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) =>
                    {
                        i += 6
                    }
                    _ => return Err(i),
                },
                Some(c) if *c < 0x20 => return Err(i),
                Some(_) => i += 1,
                None => return Err(i),
            }
        }
    }

    fn number(b: &[u8], mut i: usize) -> Result<usize, usize> {
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
            _ => return Err(i),
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            let start = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == start {
                return Err(i);
            }
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let start = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == start {
                return Err(i);
            }
        }
        Ok(i)
    }

    #[test]
    fn rejects_what_json_rejects() {
        for bad in [
            "{",
            "[1,]",
            "{\"a\" 1}",
            "01",
            "\"\u{1}\"",
            "[1] x",
            "{\"a\":1,}",
        ] {
            assert!(document(bad).is_err(), "{bad:?}");
        }
        for good in ["{}", "[]", "{\"a\":[1,-2.5e3,null,true,\"x\\n\"]}"] {
            assert_eq!(document(good), Ok(()), "{good:?}");
        }
    }
}

#[test]
fn default_path_reads_the_running_kernel_or_says_there_is_none() {
    let out = hsa(&["topology"]);
    if Path::new(kfd::topology::SYSFS_TOPOLOGY)
        .join("generation_id")
        .exists()
    {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            String::from_utf8(out.stdout)
                .unwrap()
                .starts_with("KFD topology at /sys/")
        );
    } else {
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            "hsa: no KFD topology at /sys/devices/virtual/kfd/kfd/topology (the amdgpu kernel driver is not loaded)\n"
        );
    }
}
