//! Tests of `hsa inspect` over the loader-core corpus
//! (`loader-core/corpus/`): golden text and JSON reports, JSON validity for
//! every code object and bundle, the JSON metadata against what
//! `llvm-readelf-19 --notes` prints, and one-line errors for bad files.
//! Re-bless the golden files after an intended change of the output with
//! `BLESS=1 cargo test -p runtime --test inspect_golden` (that run fails on
//! purpose), then run it again without `BLESS`.

#[path = "support/golden.rs"]
mod golden;
use golden::Golden;

// The reader of llvm-readelf's YAML shared with the loader differential
// tests in the `tests` crate.
#[allow(dead_code)]
#[path = "../../tests/tests/loader_support/llvm.rs"]
mod llvm;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn corpus(path: &str) -> String {
    format!("../loader-core/corpus/{path}")
}

fn hsa(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hsa"))
        .args(args)
        .current_dir(manifest_dir())
        .output()
        .expect("run hsa")
}

/// Runs `hsa inspect ARGS`, which must succeed silently on stderr.
fn inspect_ok(args: &[&str]) -> String {
    let mut all = vec!["inspect"];
    all.extend_from_slice(args);
    let out = hsa(&all);
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "hsa {all:?}: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn golden_file(name: &str) -> PathBuf {
    manifest_dir().join("tests/inspect_golden").join(name)
}

/// Text reports: a code object per interesting shape, and a HIP host
/// binary (compressed bundle inside); uncompressed and compressed bundles
/// are compared with each other below.
const TEXT_CASES: &[(&str, &str)] = &[
    ("co/gfx90a-v5.co", "gfx90a-v5.txt"),
    ("co/gfx908-v4-sramecc+.co", "gfx908-v4-sramecc+.txt"),
    (
        "co/gfx942-v5-kernarg-preload.co",
        "gfx942-v5-kernarg-preload.txt",
    ),
    ("co/gfx11-generic-v6.co", "gfx11-generic-v6.txt"),
    (
        "relocations/globals-external-gfx90a-v5.co",
        "globals-external-gfx90a-v5.txt",
    ),
    ("bundle/fatbin-host.o", "fatbin-host.o.txt"),
];

#[test]
fn text_reports_match_golden_files() {
    let mut golden = Golden::default();
    for (input, file) in TEXT_CASES {
        golden.check(&golden_file(file), &inspect_ok(&[&corpus(input)]));
    }
    golden.finish();
}

#[test]
fn json_report_matches_golden_file() {
    let mut golden = Golden::default();
    golden.check(
        &golden_file("gfx90a-v5.json"),
        &inspect_ok(&[&corpus("co/gfx90a-v5.co"), "--json"]),
    );
    golden.finish();
}

#[test]
fn compressed_and_uncompressed_bundles_hold_the_same_code_objects() {
    let plain = inspect_ok(&[&corpus("bundle/three-targets.bundle"), "--json"]);
    let packed = inspect_ok(&[&corpus("bundle/three-targets-compressed.bundle"), "--json"]);
    let Json::Object(plain) = parse_json(&plain).unwrap() else {
        panic!()
    };
    let Json::Object(packed) = parse_json(&packed).unwrap() else {
        panic!()
    };
    let entries = |o: &[(String, Json)]| -> Json {
        let Some((_, Json::Array(bundles))) = o.iter().find(|(k, _)| k == "bundles") else {
            panic!("no bundles")
        };
        let Json::Object(b) = &bundles[0] else {
            panic!()
        };
        b.iter().find(|(k, _)| k == "entries").unwrap().1.clone()
    };
    assert_eq!(entries(&plain), entries(&packed));
}

// ---- JSON validity and content --------------------------------------------

/// A JSON value; objects keep their order and duplicate keys so the tests
/// can reject duplicates.
#[derive(Clone, Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    /// The number's text, as written (checked against RFC 8259's grammar).
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

/// A strict RFC 8259 parser: one value, optional whitespace around it.
fn parse_json(text: &str) -> Result<Json, String> {
    let mut p = JsonParser {
        s: text.as_bytes(),
        i: 0,
    };
    let v = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("trailing text at byte {}", p.i));
    }
    Ok(v)
}

struct JsonParser<'a> {
    s: &'a [u8],
    i: usize,
}

impl JsonParser<'_> {
    fn ws(&mut self) {
        while matches!(self.s.get(self.i), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.i += 1;
        }
    }
    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} at byte {}", self.i))
    }
    fn eat(&mut self, lit: &str) -> bool {
        if self.s[self.i..].starts_with(lit.as_bytes()) {
            self.i += lit.len();
            true
        } else {
            false
        }
    }
    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > 64 {
            return self.err("nesting too deep");
        }
        self.ws();
        match self.s.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut entries: Vec<(String, Json)> = Vec::new();
                self.ws();
                if self.eat("}") {
                    return Ok(Json::Object(entries));
                }
                loop {
                    self.ws();
                    let Json::String(k) = self.string()? else {
                        unreachable!()
                    };
                    if entries.iter().any(|(e, _)| *e == k) {
                        return self.err(&format!("duplicate key {k:?}"));
                    }
                    self.ws();
                    if !self.eat(":") {
                        return self.err("expected ':'");
                    }
                    let v = self.value(depth + 1)?;
                    entries.push((k, v));
                    self.ws();
                    if self.eat("}") {
                        return Ok(Json::Object(entries));
                    }
                    if !self.eat(",") {
                        return self.err("expected ',' or '}'");
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.eat("]") {
                    return Ok(Json::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    if self.eat("]") {
                        return Ok(Json::Array(items));
                    }
                    if !self.eat(",") {
                        return self.err("expected ',' or ']'");
                    }
                }
            }
            Some(b'"') => self.string(),
            Some(b't') if self.eat("true") => Ok(Json::Bool(true)),
            Some(b'f') if self.eat("false") => Ok(Json::Bool(false)),
            Some(b'n') if self.eat("null") => Ok(Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => self.err("expected a value"),
        }
    }
    fn number(&mut self) -> Result<Json, String> {
        let start = self.i;
        self.eat("-");
        match self.s.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                    self.i += 1;
                }
            }
            _ => return self.err("bad number"),
        }
        if self.eat(".") {
            let digits = self.i;
            while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                self.i += 1;
            }
            if self.i == digits {
                return self.err("bad fraction");
            }
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            let digits = self.i;
            while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                self.i += 1;
            }
            if self.i == digits {
                return self.err("bad exponent");
            }
        }
        Ok(Json::Number(
            String::from_utf8(self.s[start..self.i].to_vec()).unwrap(),
        ))
    }
    fn string(&mut self) -> Result<Json, String> {
        if !self.eat("\"") {
            return self.err("expected a string");
        }
        let mut out = String::new();
        loop {
            let Some(&b) = self.s.get(self.i) else {
                return self.err("unterminated string");
            };
            match b {
                b'"' => {
                    self.i += 1;
                    return Ok(Json::String(out));
                }
                b'\\' => {
                    let Some(&e) = self.s.get(self.i + 1) else {
                        return self.err("bad escape");
                    };
                    self.i += 2;
                    out.push(match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\x08',
                        b'f' => '\x0c',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hex =
                                std::str::from_utf8(self.s.get(self.i..self.i + 4).unwrap_or(b""))
                                    .unwrap_or("");
                            let c = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32);
                            self.i += 4;
                            c.ok_or("bad \\u escape")?
                        }
                        _ => return self.err("bad escape"),
                    });
                }
                0..=0x1f => return self.err("control character in string"),
                _ => {
                    // Copy one UTF-8 character (its length from the lead byte).
                    let len = match b {
                        0x00..=0x7f => 1,
                        0xc0..=0xdf => 2,
                        0xe0..=0xef => 3,
                        _ => 4,
                    };
                    let bytes = self.s.get(self.i..self.i + len).unwrap_or(&[]);
                    let c = std::str::from_utf8(bytes).map_err(|_| "invalid UTF-8".to_string())?;
                    out.push_str(c);
                    self.i += len;
                }
            }
        }
    }
}

#[test]
fn json_parser_is_strict() {
    for bad in [
        "{\"a\":1,}",
        "[1,]",
        "{\"a\":1,\"a\":2}",
        "01",
        "1.",
        "\"\\x\"",
        "{a:1}",
        "[1] 2",
        "\"\u{1}\"",
    ] {
        assert!(parse_json(bad).is_err(), "accepted {bad:?}");
    }
    assert_eq!(
        parse_json(" {\"a\": [1, -2.5e3, true, null, \"\\u0041\"]} ").unwrap(),
        Json::Object(vec![(
            "a".into(),
            Json::Array(vec![
                Json::Number("1".into()),
                Json::Number("-2.5e3".into()),
                Json::Bool(true),
                Json::Null,
                Json::String("A".into())
            ])
        )])
    );
}

fn corpus_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["co", "relocations", "bundle"] {
        for e in std::fs::read_dir(manifest_dir().join(corpus(dir))).expect("corpus directory") {
            files.push(e.unwrap().path());
        }
    }
    files.sort();
    assert!(files.len() >= 53, "corpus has {} files", files.len());
    files
}

/// Compares the JSON metadata with llvm-readelf's YAML, every key and value.
fn compare(json: &Json, yaml: &llvm::Node, path: &str, diffs: &mut Vec<String>) {
    use llvm::{Node, Scalar};
    match (json, yaml) {
        (Json::Object(o), Node::Map(m)) => {
            let mut a: Vec<&str> = o.iter().map(|e| e.0.as_str()).collect();
            let mut b: Vec<&str> = m.iter().map(|e| e.0.as_str()).collect();
            a.sort();
            b.sort();
            if a != b {
                return diffs.push(format!("{path}: keys {a:?} in JSON, {b:?} in llvm-readelf"));
            }
            for (k, v) in o {
                let node = &m.iter().find(|e| e.0 == *k).unwrap().1;
                compare(v, node, &format!("{path}/{k}"), diffs);
            }
        }
        (Json::Array(a), Node::Seq(s)) if a.len() == s.len() => {
            for (i, (v, n)) in a.iter().zip(s).enumerate() {
                compare(v, n, &format!("{path}[{i}]"), diffs);
            }
        }
        (Json::String(s), Node::Scalar(Scalar::Quoted(t) | Scalar::Plain(t))) if s == t => {}
        (Json::Number(n), Node::Scalar(Scalar::Plain(t))) if n == t => {}
        (Json::Bool(b), Node::Scalar(Scalar::Plain(t))) if b.to_string() == *t => {}
        (j, y) => diffs.push(format!("{path}: {j:?} in JSON, {y} in llvm-readelf")),
    }
}

#[test]
fn json_is_valid_and_its_metadata_equals_llvm_readelf() {
    let mut compared = 0;
    for file in corpus_files() {
        let arg = file.to_str().unwrap();
        let text = inspect_ok(&[arg, "--json"]);
        let json =
            parse_json(&text).unwrap_or_else(|e| panic!("{}: invalid JSON: {e}", file.display()));
        if file.extension().is_some_and(|e| e == "co") {
            let Json::Object(top) = &json else {
                panic!("{}: not an object", file.display())
            };
            let Some((_, Json::Object(co))) = top.iter().find(|(k, _)| k == "code_object") else {
                panic!("{}: no code_object", file.display())
            };
            let md = &co
                .iter()
                .find(|(k, _)| k == "metadata")
                .expect("metadata key")
                .1;
            let yaml = llvm::readelf_metadata(Path::new(arg));
            let mut diffs = Vec::new();
            compare(md, &yaml[0], "metadata", &mut diffs);
            assert!(
                diffs.is_empty(),
                "{}:\n{}",
                file.display(),
                diffs.join("\n")
            );
            compared += 1;
        }
    }
    assert!(compared >= 47);
}

// ---- Errors ----------------------------------------------------------------

/// Writes a bad input into the test's own temporary directory.
fn bad_file(name: &str, bytes: &[u8]) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("inspect-bad");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn bad_files_get_one_line_saying_what_and_where() {
    let co = std::fs::read(manifest_dir().join(corpus("co/gfx90a-v5.co"))).unwrap();
    let bundle = std::fs::read(manifest_dir().join(corpus("bundle/three-targets.bundle"))).unwrap();
    let ccob = std::fs::read(manifest_dir().join(corpus("bundle/three-targets-compressed.bundle")))
        .unwrap();
    let mut bad_phoff = co.clone();
    bad_phoff[32..40].copy_from_slice(&u64::MAX.to_le_bytes());
    let mut bad_count = bundle.clone();
    bad_count[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
    let mut bad_payload = ccob.clone();
    let last = bad_payload.len() - 40;
    bad_payload[last..].fill(0x55);
    let mut not_amdgpu = co.clone();
    not_amdgpu[18] = 62; // EM_X86_64, and no .hip_fatbin
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("text", b"not a code object\n".to_vec()),
        ("elf-header-only", co[..40].to_vec()),
        ("truncated-code-object", co[..co.len() / 2].to_vec()),
        ("program-headers-far-away", bad_phoff),
        ("x86-elf-without-fatbin", not_amdgpu),
        ("truncated-bundle", bundle[..100].to_vec()),
        ("bundle-huge-entry-count", bad_count),
        ("truncated-compressed-bundle", ccob[..30].to_vec()),
        ("compressed-bundle-bad-payload", bad_payload),
    ];
    let mut transcript = String::new();
    for (name, bytes) in cases {
        let path = bad_file(name, &bytes);
        for json in [false, true] {
            let mut args = vec!["inspect", path.as_str()];
            if json {
                args.push("--json");
            }
            let out = hsa(&args);
            let stderr = String::from_utf8(out.stderr).unwrap();
            assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
            assert!(out.stdout.is_empty(), "{name}: printed a report");
            assert_eq!(stderr.lines().count(), 1, "{name}: not one line: {stderr}");
            let prefix = format!("hsa: inspect {path}: ");
            let msg = stderr
                .trim_end()
                .strip_prefix(&prefix)
                .unwrap_or_else(|| panic!("{name}: {stderr}"));
            assert!(!msg.is_empty(), "{name}: no message");
            if !json {
                transcript.push_str(&format!("{name}: {msg}\n"));
            }
        }
    }
    let mut golden = Golden::default();
    golden.check(&golden_file("errors.txt"), &transcript);
    golden.finish();
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["inspect"][..],
        &["inspect", "a", "b"],
        &["inspect", "--yaml", "a"],
    ] {
        let out = hsa(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(
            err.contains("Usage: hsa inspect FILE [--json]"),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty());
    }
    let out = hsa(&["inspect", "/nonexistent/file.co"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .starts_with("hsa: inspect /nonexistent/file.co: cannot read")
    );
}

/// Runs an LLVM 19 tool, which must succeed; returns its standard output.
fn llvm_tool(tool: &str, args: &[&str]) -> String {
    let out = Command::new(tool)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{tool}: {e} (scripts/test installs llvm-19 and clang-19)"));
    assert!(
        out.status.success(),
        "{tool} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 tool output")
}

#[test]
fn rocrand_library_is_inspected_with_every_code_object() {
    // A real HIP library (scripts/fetch-rocrand downloads it). What it holds
    // is taken from LLVM's tools, not from `hsa inspect`: the bundle entries
    // clang-offload-bundler-19 lists in its .hip_fatbin (as
    // llvm-objcopy-19 cuts it out), and per entry the kernel descriptors
    // (`.kd` OBJECT symbols) llvm-readelf-19 finds in what the bundler
    // unbundles. `hsa inspect` must list exactly those, each decoded.
    let dir = std::env::var_os("ROCRAND_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest_dir().join("../target/rocrand"));
    let so = dir.join("root/usr/lib/x86_64-linux-gnu/librocrand.so.1.1");
    assert!(
        so.exists(),
        "{} is missing: run scripts/fetch-rocrand (scripts/test does)",
        so.display()
    );
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rocrand-llvm");
    std::fs::create_dir_all(&tmp).unwrap();
    let fatbin = tmp.join("hip_fatbin.bin");
    let so_arg = so.to_str().unwrap();
    llvm_tool(
        "llvm-objcopy-19",
        &[
            &format!("--dump-section=.hip_fatbin={}", fatbin.display()),
            so_arg,
            "/dev/null",
        ],
    );
    let fatbin_arg = format!("--input={}", fatbin.display());
    let listed = llvm_tool(
        "clang-offload-bundler-19",
        &["--list", "--type=o", &fatbin_arg],
    );
    let mut expected: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for id in listed.lines().filter(|id| !id.starts_with("host-")) {
        let co = tmp.join("entry.co");
        llvm_tool(
            "clang-offload-bundler-19",
            &[
                "--unbundle",
                "--type=o",
                &fatbin_arg,
                &format!("--targets={id}"),
                &format!("--output={}", co.display()),
            ],
        );
        let syms = llvm_tool(
            "llvm-readelf-19",
            &["--dyn-syms", "--wide", co.to_str().unwrap()],
        );
        let mut kds: Vec<String> = syms
            .lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                (f.len() == 8 && f[3] == "OBJECT" && f[7].ends_with(".kd")).then(|| f[7].to_owned())
            })
            .collect();
        kds.sort();
        expected.insert(id.to_owned(), kds);
    }
    assert!(
        !expected.is_empty(),
        "clang-offload-bundler-19 listed no device entry"
    );

    let text = inspect_ok(&[so_arg, "--json"]);
    let json = parse_json(&text).expect("valid JSON");
    let Json::Object(top) = json else {
        panic!("not an object")
    };
    let Some((_, Json::Array(bundles))) = top.iter().find(|(k, _)| k == "bundles") else {
        panic!("no bundles")
    };
    let mut ours: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for b in bundles {
        let Json::Object(b) = b else { panic!() };
        let Some((_, Json::Array(entries))) = b.iter().find(|(k, _)| k == "entries") else {
            panic!()
        };
        for e in entries {
            let Json::Object(e) = e else { panic!() };
            assert!(!e.iter().any(|(k, _)| k == "error"), "entry failed: {e:?}");
            let Some((_, Json::Object(co))) = e.iter().find(|(k, _)| k == "code_object") else {
                continue;
            };
            let Some((_, Json::String(id))) = e.iter().find(|(k, _)| k == "id") else {
                panic!("entry without id: {e:?}")
            };
            let Some((_, Json::Array(kds))) = co.iter().find(|(k, _)| k == "kernel_descriptors")
            else {
                panic!()
            };
            let mut names = Vec::new();
            for kd in kds {
                let Json::Object(kd) = kd else { panic!() };
                assert!(
                    kd.iter().any(|(k, _)| k == "directives"),
                    "descriptor not decoded: {kd:?}"
                );
                let Some((_, Json::String(symbol))) = kd.iter().find(|(k, _)| k == "symbol") else {
                    panic!()
                };
                names.push(symbol.clone());
            }
            names.sort();
            assert!(ours.insert(id.clone(), names).is_none(), "{id} twice");
        }
    }
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "code objects: hsa inspect vs clang-offload-bundler-19 --list"
    );
    for (id, kds) in &expected {
        assert_eq!(
            &ours[id], kds,
            "{id}: kernel descriptors vs llvm-readelf-19"
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

// ---- One bad entry never hides the others -----------------------------------

/// A field of a JSON object, if present.
fn field<'a>(o: &'a [(String, Json)], key: &str) -> Option<&'a Json> {
    o.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// The entries of every bundle of an `hsa inspect --json` report.
fn report_entries(json: &Json) -> Vec<Vec<(String, Json)>> {
    let Json::Object(top) = json else {
        panic!("not an object")
    };
    let Some(Json::Array(bundles)) = field(top, "bundles") else {
        panic!("no bundles")
    };
    let mut out = Vec::new();
    for b in bundles {
        let Json::Object(b) = b else { panic!() };
        let Some(Json::Array(entries)) = field(b, "entries") else {
            panic!("bundle without entries: {b:?}")
        };
        for e in entries {
            let Json::Object(e) = e else { panic!() };
            out.push(e.clone());
        }
    }
    out
}

const NEWER_TARGETS: &str = "tests/fatbin/newer-targets-host.o";

#[test]
fn fat_binary_with_gfx1250_and_an_unknown_processor_is_listed_whole() {
    // tests/fatbin/build.sh: a .hip_fatbin with one CCOB v3 bundle of five
    // entries: host, gfx90a, gfx1201, gfx1250 (e_flags as LLVM main writes
    // them) and EF_AMDGPU_MACH 0x70 (no processor at all).
    let mut golden = Golden::default();
    for json in [false, true] {
        let mut args = vec!["inspect", NEWER_TARGETS];
        if json {
            args.push("--json");
        }
        let out = hsa(&args);
        assert_eq!(out.status.code(), Some(1), "one entry failed: exit 1");
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            format!("hsa: inspect {NEWER_TARGETS}: 1 of 5 bundle entries failed\n")
        );
        let stdout = String::from_utf8(out.stdout).unwrap();
        if !json {
            assert_eq!(stdout.matches("\n    entry ").count(), 5, "{stdout}");
            golden.check(&golden_file("newer-targets-host.o.txt"), &stdout);
            continue;
        }
        let report = parse_json(&stdout).expect("strict JSON");
        let Json::Object(top) = &report else { panic!() };
        let Some(Json::Array(bundles)) = field(top, "bundles") else {
            panic!()
        };
        let Json::Object(b) = &bundles[0] else {
            panic!()
        };
        let Some(Json::Object(c)) = field(b, "compressed") else {
            panic!("not compressed")
        };
        assert_eq!(field(c, "version"), Some(&Json::Number("3".into())));
        let entries = report_entries(&report);
        let ids: Vec<&Json> = entries.iter().map(|e| field(e, "id").unwrap()).collect();
        assert_eq!(
            ids,
            [
                "host-x86_64-unknown-linux--",
                "hipv4-amdgcn-amd-amdhsa--gfx90a",
                "hipv4-amdgcn-amd-amdhsa--gfx1201",
                "hipv4-amdgcn-amd-amdhsa--gfx1250",
                "hipv4-amdgcn-amd-amdhsa--gfx1299",
            ]
            .map(|s| Json::String(s.into()))
            .iter()
            .collect::<Vec<_>>()
        );
        for e in &entries[..4] {
            assert!(field(e, "error").is_none(), "{e:?}");
        }
        // gfx1250: known, decoded whole (metadata and kernels), xnack any.
        let Some(Json::Object(co)) = field(&entries[3], "code_object") else {
            panic!("gfx1250 not decoded: {:?}", entries[3])
        };
        assert_eq!(
            field(co, "target"),
            Some(&Json::String("amdgcn-amd-amdhsa--gfx1250".into()))
        );
        assert_eq!(field(co, "e_flags"), Some(&Json::Number("1353".into()))); // 0x549
        let Some(Json::Object(md)) = field(co, "metadata") else {
            panic!()
        };
        let Some(Json::Array(kernels)) = field(md, "amdhsa.kernels") else {
            panic!()
        };
        assert_eq!(kernels.len(), 1);
        // The unknown processor: its own error, with its number; not xnack.
        let unknown = &entries[4];
        assert_eq!(field(unknown, "code_object"), Some(&Json::Null));
        let Some(Json::String(err)) = field(unknown, "error") else {
            panic!("no error string: {unknown:?}")
        };
        assert_eq!(
            err,
            "e_flags EF_AMDGPU_MACH 0x70: unknown processor (not in this EF_AMDGPU_MACH table)"
        );
    }
    golden.finish();
}

#[test]
fn fat_binary_inner_bundle_is_what_clang_offload_bundler_lists() {
    // The CCOB v3 header is ours (LLVM 19 writes v2); the bundle inside must
    // be one LLVM 19 reads, with the entries `hsa inspect` lists.
    use loader_core::bundle::{Container, FatbinBundles, hip_fatbin_section};
    let host = std::fs::read(manifest_dir().join(NEWER_TARGETS)).unwrap();
    let section = hip_fatbin_section(&host).unwrap().unwrap();
    let mut bundles = FatbinBundles::new(section);
    let Some(Ok((0, Container::Compressed(c)))) = bundles.next() else {
        panic!("not one compressed bundle")
    };
    assert!(bundles.next().is_none());
    assert_eq!(c.version(), 3);
    let inner = c.decompress(1 << 20).unwrap();
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("newer-targets-inner.bundle");
    std::fs::write(&path, &inner).unwrap();
    let listed = llvm_tool(
        "clang-offload-bundler-19",
        &["--list", "--type=o", &format!("--input={}", path.display())],
    );
    let mut theirs: Vec<&str> = listed.lines().collect();
    theirs.sort();
    let report = parse_json(&hsa_stdout(&["inspect", NEWER_TARGETS, "--json"])).unwrap();
    let mut ours: Vec<String> = report_entries(&report)
        .iter()
        .map(|e| match field(e, "id") {
            Some(Json::String(s)) => s.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    ours.sort();
    // LLVM 19 prints ids of processors it does not know with a trailing '-'.
    let theirs: Vec<String> = theirs
        .iter()
        .map(|id| {
            id.strip_suffix('-')
                .filter(|s| s.contains("--gfx"))
                .unwrap_or(id)
                .to_owned()
        })
        .collect();
    assert_eq!(ours, theirs);
}

/// Standard output of `hsa ARGS`, whatever the exit status.
fn hsa_stdout(args: &[&str]) -> String {
    String::from_utf8(hsa(args).stdout).unwrap()
}

#[test]
fn a_bad_entry_record_is_that_entrys_error_only() {
    // Entry 1's code object is moved past the end of the bundle: entries 0,
    // 2 and 3 are listed as before, entry 1 with its error and no id.
    let mut bundle =
        std::fs::read(manifest_dir().join(corpus("bundle/three-targets.bundle"))).unwrap();
    let good = parse_json(&inspect_ok(&[
        &corpus("bundle/three-targets.bundle"),
        "--json",
    ]))
    .unwrap();
    // Record 0 starts at 32: 24 bytes and its id; record 1 follows.
    let id0 = u64::from_le_bytes(bundle[48..56].try_into().unwrap()) as usize;
    let rec1 = 32 + 24 + id0;
    bundle[rec1..rec1 + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let path = bad_file("entry-1-past-end.bundle", &bundle);
    let out = hsa(&["inspect", &path, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!("hsa: inspect {path}: 1 of 4 bundle entries failed\n")
    );
    let bad = parse_json(&String::from_utf8(out.stdout).unwrap()).unwrap();
    let (good, bad) = (report_entries(&good), report_entries(&bad));
    assert_eq!(bad.len(), 4);
    for i in [0, 2, 3] {
        assert_eq!(bad[i], good[i], "entry {i}");
    }
    assert_eq!(field(&bad[1], "id"), Some(&Json::Null));
    assert_eq!(
        field(&bad[1], "error"),
        Some(&Json::String(format!(
            "bundle entry 1 at offset {rec1:#x}: code object runs past the end of the bundle"
        )))
    );
    // The text report lists it too.
    let text = hsa_stdout(&["inspect", &path]);
    assert!(
        text.contains("  entry 1\n    error: bundle entry 1 at offset"),
        "{text}"
    );
    assert_eq!(text.matches("\n  entry ").count(), 4, "{text}");
}
