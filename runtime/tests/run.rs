//! `hsa run`: kernels dispatched from the command line on the software GPU.
//!
//! - `--dump` outputs against Rust references (the computations the sim's
//!   conformance tests check, on inputs given through `file:`), for a code
//!   object, an offload bundle and a HIP fat binary;
//! - faults exit 1 and name the kind, the kernel and the address;
//! - usage errors exit 2 and name what was wrong (golden file);
//! - the `--json` report (golden file, addresses and times masked);
//! - every kernel of the conformance code objects (`sim/tests/kernels/*.co`)
//!   and of `runtime/kernels` whose arguments `--arg` can express, through
//!   `hsa run`, against the same dispatch through the runtime's Rust API in
//!   this process (same inputs, same geometry): the same exit (completed or
//!   faulted) and the same bytes in every buffer.
//!
//! Re-bless the golden files with `BLESS=1 cargo test -p runtime --test run`
//! (that run fails on purpose), then run again without `BLESS`.

#[path = "support/golden.rs"]
mod golden;
use golden::Golden;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use runtime::argspec::{ArgSpec, ScalarType};
use runtime::kernarg::{ArgKind, ExplicitArg, Geometry, KernargLayout};
use runtime::{ArgValue, QueueKind, Runtime, driver};

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn hsa(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hsa"))
        .args(args)
        .current_dir(repo_root())
        .env("HSA_RS_DRIVER", "sim")
        .output()
        .expect("run hsa")
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

fn scratch_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hsa-run-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

/// Runs `hsa run` with `args` plus `--dump DIR`; it must exit 0 silently on
/// standard error. Returns the dumped buffers by argument index.
fn run_and_dump(name: &str, args: &[String], buffers: &[usize]) -> Vec<Vec<u8>> {
    let dir = scratch_dir(name);
    let mut all = strings(&["run"]);
    all.extend_from_slice(args);
    all.push("--dump".into());
    all.push(dir.display().to_string());
    let out = hsa(&all);
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "hsa {}: {:?}\n{}",
        all.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let got = buffers
        .iter()
        .map(|k| std::fs::read(dir.join(format!("arg{k}.bin"))).unwrap())
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    got
}

fn write_input(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.display().to_string()
}

fn le<T: Copy, const N: usize>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(|&x| f(x)).collect()
}

fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn u64s(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// A three-input integer kernel of ints.co (`out[i] = f(a[i], b[i],
/// c[i])`) on random inputs, against `want`.
fn check_ints(
    kernel: &str,
    size: usize,
    fix: impl Fn(u64, u64) -> u64,
    want: impl Fn(u64, u64, u64) -> u64,
) {
    let n = 512usize;
    let dir = scratch_dir(&format!("in-{kernel}"));
    let mut r = xorshift(0x9e37_79b9 ^ kernel.len() as u64);
    let mask = if size == 8 {
        u64::MAX
    } else {
        (1u64 << (size * 8)) - 1
    };
    let a: Vec<u64> = (0..n).map(|_| r() & mask).collect();
    let b: Vec<u64> = (0..n).map(|k| fix(a[k], r() & mask) & mask).collect();
    let c: Vec<u64> = (0..n).map(|_| r() & mask).collect();
    let ty = if size == 8 { "u64" } else { "u32" };
    let bytes = |v: &[u64]| -> Vec<u8> {
        v.iter()
            .flat_map(|x| x.to_le_bytes()[..size].to_vec())
            .collect()
    };
    let fa = write_input(&dir, "a", &bytes(&a));
    let fb = write_input(&dir, "b", &bytes(&b));
    let fc = write_input(&dir, "c", &bytes(&c));
    let args = strings(&[
        "sim/tests/kernels/ints.co",
        kernel,
        "--grid",
        &n.to_string(),
        "--block",
        "64",
        "--arg",
        &format!("buf:{ty}:{n}=file:{fa}"),
        "--arg",
        &format!("buf:{ty}:{n}=file:{fb}"),
        "--arg",
        &format!("buf:{ty}:{n}=file:{fc}"),
        "--arg",
        &format!("buf:{ty}:{n}=zero"),
    ]);
    let out = &run_and_dump(kernel, &args, &[3])[0];
    let got: Vec<u64> = if size == 8 {
        u64s(out)
    } else {
        u32s(out).into_iter().map(u64::from).collect()
    };
    for k in 0..n {
        assert_eq!(
            got[k],
            want(a[k], b[k], c[k]) & mask,
            "{kernel}({:#x}, {:#x}, {:#x})",
            a[k],
            b[k],
            c[k]
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A three-input f64 kernel of math.co on random finite inputs, bit for bit
/// against `want` (IEEE 754 double arithmetic, as Rust's).
fn check_f64(kernel: &str, want: impl Fn(f64, f64, f64) -> f64) {
    let n = 256usize;
    let dir = scratch_dir(&format!("in-{kernel}"));
    let mut r = xorshift(77 + kernel.len() as u64);
    let mut f = || (r() >> 11) as f64 / (1u64 << 40) as f64 - 2000.0;
    let (a, b, c): (Vec<f64>, Vec<f64>, Vec<f64>) = (
        (0..n).map(|_| f()).collect(),
        (0..n).map(|_| f()).collect(),
        (0..n).map(|_| f()).collect(),
    );
    let fa = write_input(&dir, "a", &le(&a, f64::to_le_bytes));
    let fb = write_input(&dir, "b", &le(&b, f64::to_le_bytes));
    let fc = write_input(&dir, "c", &le(&c, f64::to_le_bytes));
    let args = strings(&[
        "sim/tests/kernels/math.co",
        kernel,
        "--grid",
        &n.to_string(),
        "--block",
        "64",
        "--arg",
        &format!("buf:f64:{n}=file:{fa}"),
        "--arg",
        &format!("buf:f64:{n}=file:{fb}"),
        "--arg",
        &format!("buf:f64:{n}=file:{fc}"),
        "--arg",
        &format!("buf:f64:{n}=zero"),
    ]);
    let got = u64s(&run_and_dump(kernel, &args, &[3])[0]);
    for k in 0..n {
        assert_eq!(
            got[k],
            want(a[k], b[k], c[k]).to_bits(),
            "{kernel}({}, {}, {})",
            a[k],
            b[k],
            c[k]
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dumps_match_rust_references() {
    // demo.co vector_add on iota + fill: c[i] = i + 0.5.
    let n = 1000;
    let out = run_and_dump(
        "vector_add",
        &strings(&[
            "runtime/kernels/demo.co",
            "vector_add",
            "--grid",
            "1024",
            "--block",
            "64",
            "--arg",
            "buf:f32:1000=iota",
            "--arg",
            "buf:f32:1000=fill:0.5",
            "--arg",
            "buf:f32:1000=zero",
            "--arg",
            "u32:1000",
        ]),
        &[0, 1, 2],
    );
    let c = u32s(&out[2]);
    assert_eq!(c.len(), n);
    for (i, &c) in c.iter().enumerate() {
        assert_eq!(f32::from_bits(c), i as f32 + 0.5, "c[{i}]");
    }
    assert_eq!(
        out[0],
        le(
            &(0..n).map(|i| i as f32).collect::<Vec<_>>(),
            f32::to_le_bytes
        )
    );

    // saxpy with a file input: y = a * x + y, in f32 (one rounding each).
    let dir = scratch_dir("saxpy-in");
    let mut r = xorshift(5);
    let x: Vec<f32> = (0..512).map(|_| (r() % 20000) as f32 / 7.0).collect();
    let y: Vec<f32> = (0..512).map(|_| (r() % 20000) as f32 / 3.0).collect();
    let fx = write_input(&dir, "x", &le(&x, f32::to_le_bytes));
    let fy = write_input(&dir, "y", &le(&y, f32::to_le_bytes));
    let out = run_and_dump(
        "saxpy",
        &strings(&[
            "runtime/kernels/demo.co",
            "saxpy",
            "--grid",
            "512",
            "--block",
            "128",
            "--arg",
            "f32:1.5",
            "--arg",
            &format!("buf:f32:512=file:{fx}"),
            "--arg",
            &format!("buf:f32:512=file:{fy}"),
            "--arg",
            "u32:512",
        ]),
        &[2],
    );
    let got = u32s(&out[0]);
    for i in 0..512 {
        let want = 1.5f32.mul_add(x[i], y[i]);
        let unfused = 1.5f32 * x[i] + y[i];
        assert!(
            got[i] == want.to_bits() || got[i] == unfused.to_bits(),
            "y[{i}] = {} (want {want})",
            f32::from_bits(got[i])
        );
    }
    let _ = std::fs::remove_dir_all(&dir);

    // local_sum: a __local pointer argument; one sum per work-group.
    let out = run_and_dump(
        "local_sum",
        &strings(&[
            "runtime/kernels/demo.co",
            "local_sum",
            "--grid",
            "256",
            "--block",
            "64",
            "--arg",
            "buf:u32:256=iota",
            "--arg",
            "buf:u32:4=zero",
            "--arg",
            "lds:256",
        ]),
        &[1],
    );
    let want: Vec<u32> = (0..4u32).map(|g| (g * 64..g * 64 + 64).sum()).collect();
    assert_eq!(u32s(&out[0]), want);

    // private_scratch: scratch granted on the packet processor's request.
    let out = run_and_dump(
        "private_scratch",
        &strings(&[
            "runtime/kernels/demo.co",
            "private_scratch",
            "--grid",
            "128",
            "--block",
            "64",
            "--arg",
            "buf:u32:128=iota",
            "--arg",
            "buf:u32:128=zero",
        ]),
        &[1],
    );
    let want: Vec<u32> = (0..128u32).map(|i| i.wrapping_mul(i & 255)).collect();
    assert_eq!(u32s(&out[0]), want);

    // The same kernel from an offload bundle and from a HIP fat binary.
    for file in [
        "loader-core/corpus/bundle/small.bundle",
        "loader-core/corpus/bundle/small-fatbin-host.o",
    ] {
        let out = run_and_dump(
            "bundle",
            &strings(&[
                file,
                "vector_add",
                "--grid",
                "256",
                "--block",
                "64",
                "--arg",
                "buf:f32:256=iota",
                "--arg",
                "buf:f32:256=fill:-2",
                "--arg",
                "buf:f32:256=zero",
                "--arg",
                "u32:256",
            ]),
            &[2],
        );
        let want: Vec<f32> = (0..256).map(|i| i as f32 - 2.0).collect();
        assert_eq!(out[0], le(&want, f32::to_le_bytes), "{file}");
    }

    // Integer and double kernels of the conformance objects.
    check_ints(
        "u32_div",
        4,
        |_, b| if b as u32 == 0 { 3 } else { b },
        |a, b, _| u64::from(a as u32 / b as u32),
    );
    check_ints(
        "u32_rem",
        4,
        |_, b| if b as u32 == 0 { 3 } else { b },
        |a, b, _| u64::from(a as u32 % b as u32),
    );
    check_ints(
        "i32_div",
        4,
        |a, b| {
            let b = if b as u32 == 0 { 3 } else { b };
            if a as u32 == 0x8000_0000 && b as u32 == u32::MAX {
                5
            } else {
                b
            }
        },
        |a, b, _| u64::from((a as u32 as i32 / b as u32 as i32) as u32),
    );
    check_ints(
        "u64_div",
        8,
        |_, b| if b == 0 { 3 } else { b },
        |a, b, _| a / b,
    );
    check_ints("u32_mul_hi", 4, |_, b| b, |a, b, _| (a * b) >> 32);
    check_f64("f64_add", |a, b, _| a + b);
    check_f64("f64_mul", |a, b, _| a * b);
    check_f64("f64_fma", |a, b, c| a.mul_add(b, c));
    check_f64("f64_div", |a, b, _| a / b);
}

#[test]
fn a_fault_exits_1_naming_kind_kernel_and_address() {
    let run = |args: &[&str]| {
        let mut all = strings(&["run", "runtime/kernels/faults.co"]);
        all.extend(strings(args));
        let out = hsa(&all);
        assert_eq!(out.status.code(), Some(1), "hsa {}", all.join(" "));
        (
            String::from_utf8(out.stderr).unwrap(),
            String::from_utf8(out.stdout).unwrap(),
        )
    };
    let (err, _) = run(&[
        "store_at",
        "--grid",
        "64",
        "--block",
        "64",
        "--arg",
        "u64:0x7e0000001234",
    ]);
    assert_eq!(
        err,
        "hsa: run: memory fault (HSA_STATUS_ERROR_MEMORY_FAULT) in kernel store_at at address 0x7e0000001000 (page not present)\n"
    );
    let (err, _) = run(&["trap_now", "--grid", "64", "--block", "64"]);
    assert!(
        err.starts_with(
            "hsa: run: trap (HSA_STATUS_ERROR_EXCEPTION) in kernel trap_now at kernel object 0x"
        ),
        "{err}"
    );
    let (err, json) = run(&["illegal", "--grid", "64", "--block", "64", "--json"]);
    assert!(
        err.starts_with(
            "hsa: run: illegal instruction (HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION) in kernel illegal"
        ),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["kernel"], "illegal");
    assert_eq!(v["fault"]["status"], "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION");
    assert_eq!(v["fault"]["kind"], "illegal instruction");
}

/// Usage errors: exit 2, one line on standard error naming what was wrong.
#[test]
fn usage_errors_exit_2_and_name_the_argument() {
    let dir = scratch_dir("usage");
    let short = write_input(&dir, "short.bin", &[0u8; 10]);
    let demo = "runtime/kernels/demo.co";
    let va = |extra: &[&str]| -> Vec<String> {
        let mut v = strings(&["run", demo, "vector_add", "--grid", "64", "--block", "64"]);
        v.extend(strings(extra));
        v
    };
    let four = [
        "--arg",
        "buf:f32:64=iota",
        "--arg",
        "buf:f32:64=iota",
        "--arg",
        "buf:f32:64=zero",
    ];
    let with = |last: &[&str]| {
        let mut a: Vec<&str> = four.to_vec();
        a.extend_from_slice(last);
        va(&a)
    };
    let short_spec = format!("buf:f32:4=file:{short}");
    let cases: Vec<(&str, Vec<String>)> = vec![
        (
            "a buffer for a by-value argument",
            with(&["--arg", "buf:u32:4=zero"]),
        ),
        ("a scalar of the wrong size", with(&["--arg", "u64:7"])),
        (
            "a scalar for a buffer",
            va(&[
                "--arg",
                "u32:1",
                "--arg",
                "buf:f32:64=iota",
                "--arg",
                "buf:f32:64=zero",
                "--arg",
                "u32:64",
            ]),
        ),
        (
            "lds for a buffer",
            va(&[
                "--arg",
                "lds:64",
                "--arg",
                "buf:f32:64=iota",
                "--arg",
                "buf:f32:64=zero",
                "--arg",
                "u32:64",
            ]),
        ),
        ("too few arguments", va(&["--arg", "buf:f32:64=iota"])),
        (
            "too many arguments",
            with(&["--arg", "u32:64", "--arg", "u32:1"]),
        ),
        ("a spec that does not parse", with(&["--arg", "u32:x"])),
        (
            "an unknown initializer",
            with(&["--arg", "u32:64"])
                .into_iter()
                .map(|s| {
                    if s == "buf:f32:64=zero" {
                        "buf:f32:64=ones".to_owned()
                    } else {
                        s
                    }
                })
                .collect(),
        ),
        (
            "a file of the wrong length",
            with(&["--arg", "u32:64"])
                .into_iter()
                .map(|s| {
                    if s == "buf:f32:64=zero" {
                        short_spec.clone()
                    } else {
                        s
                    }
                })
                .collect(),
        ),
        (
            "an unknown kernel",
            strings(&["run", demo, "nope", "--grid", "64", "--block", "64"]),
        ),
        (
            "a missing file",
            strings(&[
                "run",
                "runtime/kernels/missing.co",
                "empty",
                "--grid",
                "64",
                "--block",
                "64",
            ]),
        ),
        (
            "a work-group larger than the kernel allows",
            strings(&["run", demo, "empty", "--grid", "2048", "--block", "2048"]),
        ),
        (
            "a grid smaller than the work-group",
            strings(&["run", demo, "empty", "--grid", "32", "--block", "64"]),
        ),
        (
            "no such GPU agent",
            strings(&[
                "run", demo, "empty", "--grid", "64", "--block", "64", "--agent", "9",
            ]),
        ),
    ];
    let mut text = String::new();
    for (what, args) in &cases {
        let out = hsa(args);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert!(out.stdout.is_empty(), "{what}");
        assert_eq!(err.lines().count(), 1, "{what}: one line: {err}");
        let err = err.replace(&dir.display().to_string(), "$TMP");
        text.push_str(&format!("# {what}\n{err}\n"));
    }
    // Command-line syntax: clap's errors, exit 2.
    for args in [
        strings(&["run", demo, "empty", "--grid", "0", "--block", "64"]),
        strings(&["run", demo, "empty", "--grid", "64,x", "--block", "64"]),
        strings(&["run", demo, "empty", "--grid", "64", "--block", "70000"]),
        strings(&["run", demo, "empty", "--grid", "64", "--block", "1,1,1,1"]),
        strings(&["run", demo, "empty", "--block", "64"]),
        strings(&[
            "run", demo, "empty", "--grid", "64", "--block", "64", "--repeat", "0",
        ]),
    ] {
        let out = hsa(&args);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        text.push_str(&format!(
            "# {}\n{}\n",
            args[3..].join(" "),
            err.lines().next().unwrap()
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    let mut g = Golden::default();
    g.check(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/run/usage_errors.txt"),
        &text,
    );
    g.finish();
}

/// The `--json` report, with addresses and times masked.
#[test]
fn json_report() {
    let out = hsa(&strings(&[
        "run",
        "runtime/kernels/demo.co",
        "local_sum",
        "--grid",
        "128,1",
        "--block",
        "64",
        "--arg",
        "buf:u32:128=fill:3",
        "--arg",
        "buf:u32:2=zero",
        "--arg",
        "lds:256",
        "--repeat",
        "2",
        "--json",
    ]));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let each = v["dispatch_ns_each"].as_array().unwrap();
    assert_eq!(each.len(), 2);
    assert!(each.iter().all(|t| t.as_u64().unwrap() > 0));
    v["dispatch_ns"] = 0.into();
    v["dispatch_ns_each"] = serde_json::json!([0, 0]);
    for a in v["arguments"].as_array_mut().unwrap() {
        if a.get("address").is_some() {
            assert!(a["address"].as_str().unwrap().starts_with("0x"));
            a["address"] = "0x…".into();
        }
    }
    let mut g = Golden::default();
    g.check(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/run/local_sum.json"),
        &(serde_json::to_string_pretty(&v).unwrap() + "\n"),
    );
    g.finish();
}

/// The element type of a pointer argument's `.type_name` (`const float4*`
/// is f32, 4 a element), u32 when the metadata has none.
fn element_type(type_name: Option<&str>) -> ScalarType {
    let t = type_name.unwrap_or("");
    let base: String = t
        .replace(['*', '&'], " ")
        .split_whitespace()
        .filter(|w| {
            !matches!(
                *w,
                "const" | "restrict" | "volatile" | "global" | "unsigned"
            )
        })
        .collect::<Vec<_>>()
        .join(" ");
    let base = base.trim_end_matches(|c: char| c.is_ascii_digit());
    let unsigned = t.contains("unsigned");
    match base {
        "float" => ScalarType::F32,
        "double" => ScalarType::F64,
        "half" => ScalarType::F16,
        "char" if unsigned => ScalarType::U8,
        "char" => ScalarType::I8,
        "uchar" => ScalarType::U8,
        "short" if unsigned => ScalarType::U16,
        "short" => ScalarType::I16,
        "ushort" => ScalarType::U16,
        "int" if unsigned => ScalarType::U32,
        "int" => ScalarType::I32,
        "uint" => ScalarType::U32,
        "long" if unsigned => ScalarType::U64,
        "long" => ScalarType::I64,
        "ulong" => ScalarType::U64,
        _ => ScalarType::U32,
    }
}

/// The `--arg` for an explicit argument, or `None` when the syntax has no
/// form for its kind (images, samplers, pipes, queues).
fn spec_for(a: &ExplicitArg, items: u32) -> Option<String> {
    match a.kind {
        ArgKind::GlobalBuffer => {
            let ty = element_type(a.type_name.as_deref());
            // 64 KiB: room for every kernel's indexing at this grid size.
            Some(format!("buf:{ty}:{}=iota", 65536 / ty.size()))
        }
        ArgKind::ByValue => {
            let ty = element_type(a.type_name.as_deref());
            let ty = if ty.size() == a.size {
                ty
            } else {
                match a.size {
                    1 => ScalarType::U8,
                    2 => ScalarType::U16,
                    8 => ScalarType::U64,
                    _ => ScalarType::U32,
                }
            };
            Some(match ty {
                ScalarType::F16 | ScalarType::F32 | ScalarType::F64 => format!("{ty}:1.5"),
                ScalarType::I8 | ScalarType::U8 => format!("{ty}:7"),
                _ => format!("{ty}:{items}"),
            })
        }
        ArgKind::DynamicSharedPointer => Some("lds:1024".into()),
        ArgKind::Image | ArgKind::Sampler | ArgKind::Pipe | ArgKind::Queue => None,
    }
}

/// One kernel of the sweep.
struct Case {
    file: &'static str,
    kernel: String,
    grid: [u32; 3],
    block: [u16; 3],
    dynamic_lds: u32,
    private_segment_size: u32,
    specs: Vec<String>,
}

impl Case {
    fn cli_args(&self, dump: &Path) -> Vec<String> {
        let dims = |v: [u64; 3]| format!("{},{},{}", v[0], v[1], v[2]);
        let mut a = strings(&["run", self.file, &self.kernel]);
        a.push("--grid".into());
        a.push(dims(self.grid.map(u64::from)));
        a.push("--block".into());
        a.push(dims(self.block.map(u64::from)));
        a.push("--dynamic-lds".into());
        a.push(self.dynamic_lds.to_string());
        a.push("--private-segment-size".into());
        a.push(self.private_segment_size.to_string());
        for s in &self.specs {
            a.push("--arg".into());
            a.push(s.clone());
        }
        a.push("--dump".into());
        a.push(dump.display().to_string());
        a
    }
}

/// How one dispatch ended: completed with these buffers, or faulted.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Completed(Vec<(usize, Vec<u8>)>),
    Faulted,
}

/// Kernels whose outputs differ from one run to another by design (global
/// atomics whose returned values depend on the order the sim's worker
/// threads ran the work-groups in, clocks, pointers): their buffers are not
/// compared (the exit status still is). Every other kernel's buffers must
/// match byte for byte.
const PROCESS_DEPENDENT: &[(&str, &str, &str)] = &[
    (
        "sim/tests/kernels/basics.co",
        "clocks",
        "reads the GPU clock",
    ),
    (
        "sim/tests/kernels/hip.co",
        "global_atomics",
        "old_sum[i] is the atomicAdd's old value: it depends on the order in which the waves ran",
    ),
    (
        "sim/tests/kernels/hip.co",
        "implicit_args",
        "copies the implicit arguments, pointers into this process's memory included",
    ),
    (
        "sim/tests/kernels/basics.co",
        "global_atomics",
        "ret[i] is a fetch_add's old value across work-groups: wave order",
    ),
    (
        "sim/tests/kernels/ints.co",
        "global_atomics_64_more",
        "counts the exchanges that saw 0 and keeps the last exchanged value: wave order",
    ),
];

/// Kernels whose metadata understates their stack, with the private
/// segment bytes per work-item their dispatches give them: clang-19 sizes
/// `calls`' recursive `fib` for one 16-byte frame (`.uses_dynamic_stack:
/// false`) but fib(15) nests 15. With 16 bytes its frames run into the
/// next wave slots' scratch, on a GPU as in the sim, and two waves running
/// side by side overwrite each other's return addresses (a wave that never
/// ends). 1024 is HIP's default stack.
const STACKS: &[(&str, &str, u32)] = &[("sim/tests/kernels/basics.co", "calls", 1024)];

fn case_for(file: &'static str, layout: &KernargLayout, hip: bool) -> Option<Case> {
    let block = match layout.reqd_workgroup_size {
        Some(r) => r.map(|x| x as u16),
        None => [layout.max_flat_workgroup_size.clamp(1, 64) as u16, 1, 1],
    };
    let grid = [
        u32::from(block[0]) * 4,
        u32::from(block[1]),
        u32::from(block[2]),
    ];
    let items = grid[0] * grid[1] * grid[2];
    let specs = layout
        .explicit
        .iter()
        .map(|a| spec_for(a, items))
        .collect::<Option<Vec<_>>>()?;
    Some(Case {
        file,
        kernel: layout.kernel.clone(),
        grid,
        block,
        // HIP's extern __shared__ kernels take dynamic LDS; the metadata
        // does not say which, so every HIP kernel gets some.
        dynamic_lds: if hip { 1024 } else { 0 },
        private_segment_size: STACKS
            .iter()
            .find(|(f, k, _)| *f == file && *k == layout.kernel)
            .map_or(0, |s| s.2),
        specs,
    })
}

/// The same dispatch through the Rust API in this process.
fn reference(rt: &Runtime, exe: &runtime::Executable, case: &Case) -> Outcome {
    let gpu = rt.gpu_agents().next().unwrap();
    let k = exe.kernel(&case.kernel).unwrap();
    let q = rt
        .create_queue(gpu, 64, QueueKind::Single, None, 0)
        .unwrap();
    let pool = rt.kernarg_pool().unwrap();
    let specs: Vec<ArgSpec> = case
        .specs
        .iter()
        .map(|s| ArgSpec::parse(s).unwrap())
        .collect();
    let mut buffers = Vec::new();
    let mut values = Vec::new();
    for (i, s) in specs.iter().enumerate() {
        match s.buffer_contents().unwrap() {
            Some(data) => {
                let va = rt.allocate(pool, data.len() as u64).unwrap();
                // SAFETY: a fresh CPU-mapped allocation of data.len() bytes.
                unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), va as *mut u8, data.len()) };
                buffers.push((i, va, data.len()));
                values.push(ArgValue::Pointer(va));
            }
            None => values.push(s.arg_value(0)),
        }
    }
    let g = Geometry::new(case.grid, case.block)
        .with_dynamic_lds(case.dynamic_lds)
        .with_private_segment_size(case.private_segment_size);
    let r = rt.dispatch(&q, &k, &values, &g, Duration::from_secs(120));
    let outcome = match r {
        Ok(_) => Outcome::Completed(
            buffers
                .iter()
                .map(|&(i, va, len)| {
                    let mut d = vec![0u8; len];
                    // SAFETY: the buffer's allocation; the kernel completed.
                    unsafe { std::ptr::copy_nonoverlapping(va as *const u8, d.as_mut_ptr(), len) };
                    (i, d)
                })
                .collect(),
        ),
        Err(_) => Outcome::Faulted,
    };
    drop(q);
    for (_, va, _) in buffers {
        let _ = rt.free(va);
    }
    outcome
}

/// Runs `hsa run` for `case`, killed after `limit`.
fn through_cli(case: &Case, dir: &Path, limit: Duration) -> Result<Outcome, String> {
    let _ = std::fs::remove_dir_all(dir);
    let args = case.cli_args(dir);
    let mut child = Command::new(env!("CARGO_BIN_EXE_hsa"))
        .args(&args)
        .current_dir(repo_root())
        .env("HSA_RS_DRIVER", "sim")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("hsa {} ran past {limit:?}", args.join(" ")));
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        use std::io::Read as _;
        let _ = e.read_to_string(&mut err);
    }
    match status.code() {
        Some(0) => {
            let specs: Vec<ArgSpec> = case
                .specs
                .iter()
                .map(|s| ArgSpec::parse(s).unwrap())
                .collect();
            let mut out = Vec::new();
            for (i, s) in specs.iter().enumerate() {
                if s.buffer_size().is_some() {
                    let d = std::fs::read(dir.join(format!("arg{i}.bin")))
                        .map_err(|e| format!("{}: arg{i}.bin: {e}", case.kernel))?;
                    out.push((i, d));
                }
            }
            Ok(Outcome::Completed(out))
        }
        Some(1) if err.contains(&format!("in kernel {}", case.kernel)) => Ok(Outcome::Faulted),
        other => Err(format!("hsa {}: exit {other:?}: {err}", args.join(" "))),
    }
}

#[test]
fn every_conformance_kernel_through_hsa_run() {
    const FILES: &[&str] = &[
        "sim/tests/kernels/basics.co",
        "sim/tests/kernels/fastdiv.co",
        "sim/tests/kernels/ftz.co",
        "sim/tests/kernels/hip.co",
        "sim/tests/kernels/ints.co",
        "sim/tests/kernels/math.co",
        "sim/tests/kernels/mfma.co",
        "runtime/kernels/demo.co",
        "runtime/kernels/faults.co",
    ];
    let rt = Runtime::init_with(driver::open_sim).unwrap();
    let gpu = rt.gpu_agents().next().unwrap();
    let mut cases = Vec::new();
    let mut exes = Vec::new();
    let mut skipped = Vec::new();
    for &file in FILES {
        let bytes = std::fs::read(repo_root().join(file)).unwrap();
        let exe = rt.load_executable(gpu, &bytes).unwrap();
        let mut kernels = exe.kernels();
        kernels.sort_by(|a, b| a.name.cmp(&b.name));
        for k in kernels {
            let layout = k.layout.as_ref().unwrap();
            match case_for(file, layout, file.ends_with("hip.co")) {
                Some(c) => cases.push((exes.len(), c)),
                None => skipped.push(format!("{file} {}", k.name)),
            }
        }
        exes.push(exe);
    }
    assert!(cases.len() >= 150, "only {} kernels", cases.len());
    assert!(
        skipped.is_empty(),
        "kernels --arg cannot express: {skipped:?}"
    );

    // The CLI runs on two threads while this one runs the references.
    let base = scratch_dir("sweep");
    let next = Mutex::new(0usize);
    let cli: Vec<Mutex<Option<Result<Outcome, String>>>> =
        cases.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for t in 0..2 {
            let (cases, next, cli, base) = (&cases, &next, &cli, &base);
            s.spawn(move || {
                loop {
                    let i = {
                        let mut n = next.lock().unwrap();
                        let i = *n;
                        *n += 1;
                        i
                    };
                    let Some((_, case)) = cases.get(i) else { break };
                    let dir = base.join(format!("t{t}"));
                    *cli[i].lock().unwrap() =
                        Some(through_cli(case, &dir, Duration::from_secs(120)));
                }
            });
        }
        let mut failures = Vec::new();
        let mut completed = 0;
        for (i, (exe, case)) in cases.iter().enumerate() {
            let want = reference(&rt, &exes[*exe], case);
            // Wait for the CLI's run of this case.
            let got = loop {
                if let Some(r) = cli[i].lock().unwrap().take() {
                    break r;
                }
                std::thread::sleep(Duration::from_millis(5));
            };
            let compare = !PROCESS_DEPENDENT
                .iter()
                .any(|(f, k, _)| *f == case.file && *k == case.kernel);
            match (got, &want) {
                (Err(e), _) => failures.push(e),
                (Ok(Outcome::Completed(_)), Outcome::Completed(_)) if !compare => completed += 1,
                (Ok(got), want) if &got == want => {
                    if matches!(got, Outcome::Completed(_)) {
                        completed += 1;
                    }
                }
                (Ok(got), want) => failures.push(format!(
                    "{} {}: hsa run {} but the Rust API {}",
                    case.file,
                    case.kernel,
                    match got {
                        Outcome::Completed(_) => "completed",
                        Outcome::Faulted => "faulted",
                    },
                    match want {
                        Outcome::Completed(_) if matches!(got, Outcome::Completed(_)) =>
                            "wrote other bytes",
                        Outcome::Completed(_) => "completed",
                        Outcome::Faulted => "faulted",
                    }
                )),
            }
        }
        assert!(
            failures.is_empty(),
            "{} of {} kernels:\n{}",
            failures.len(),
            cases.len(),
            failures.join("\n")
        );
        assert!(completed >= 140, "only {completed} kernels completed");
    });
    let _ = std::fs::remove_dir_all(&base);
}

/// `--agent 1` runs on the second GPU (the MI250X board has two).
#[test]
fn agent_selects_the_gpu() {
    let dir = scratch_dir("agent");
    let out = Command::new(env!("CARGO_BIN_EXE_hsa"))
        .args(strings(&[
            "run",
            "runtime/kernels/demo.co",
            "vector_add",
            "--grid",
            "64",
            "--block",
            "64",
            "--arg",
            "buf:f32:64=iota",
            "--arg",
            "buf:f32:64=fill:1",
            "--arg",
            "buf:f32:64=zero",
            "--arg",
            "u32:64",
            "--agent",
            "1",
            "--json",
            "--dump",
            &dir.display().to_string(),
        ]))
        .current_dir(repo_root())
        .env("HSA_RS_DRIVER", "sim")
        .env("SIM_BOARD", "mi250x")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["agent"], 1);
    let c = std::fs::read(dir.join("arg2.bin")).unwrap();
    let want: Vec<f32> = (0..64).map(|i| i as f32 + 1.0).collect();
    assert_eq!(c, le(&want, f32::to_le_bytes));
    let _ = std::fs::remove_dir_all(&dir);
}
