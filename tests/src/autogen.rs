//! An outside oracle for C layouts the system headers do not have: the
//! ctypes bindings `tinygrad` generates with clang from current upstream
//! headers (`tinygrad/runtime/autogen/kfd.py`, `amdgpu_drm.py`, `hsa.py` in
//! the `tinygrad` 0.14.0 wheel on PyPI).
//!
//! The files are read as data, never imported or run: this module parses
//! the few line shapes they consist of,
//!
//! ```text
//! class struct_kfd_ioctl_get_version_args(c.Struct):
//!   SIZE = 8
//! __u32: TypeAlias = ctypes.c_uint32
//! struct_kfd_ioctl_get_version_args.register_fields([('major_version', ctypes.c_uint32, 0), ...])
//! AMDKFD_IOCTL_BASE = 'K'
//! AMDKFD_IOC_GET_VERSION = AMDKFD_IOR(0x01, struct_kfd_ioctl_get_version_args)
//! DRM_IOCTL_AMDGPU_GEM_CREATE = DRM_IOWR(DRM_COMMAND_BASE + DRM_AMDGPU_GEM_CREATE, union_drm_amdgpu_gem_create)
//! ```
//!
//! into records (size, and each field's name, type, offset and size; the
//! members of an anonymous union or struct appear flattened into their
//! parent, at their own offsets), integer constants, and ioctl request
//! codes built with Linux's `_IOC` formula. The wheel is fetched with
//! `pip download` into the target directory (`scripts/test` does it first;
//! the tests do it themselves when it is missing) and opened with Python's
//! `zipfile`; a wheel that cannot be had fails the test.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use crate::StructLayout;

/// The wheel the oracle comes from.
pub const TINYGRAD_VERSION: &str = "0.14.0";

/// One field of an autogen record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutogenField {
    /// The C member name.
    pub name: String,
    /// The ctypes type as written (`ctypes.c_uint32`, `struct_x`, `c.Array[..]`).
    pub ty: String,
    /// Byte offset in the record.
    pub offset: usize,
    /// Size in bytes of the type (`None` when the type is opaque).
    pub size: Option<usize>,
    /// Bit width and bit offset, for a bit field.
    pub bits: Option<(u32, u32)>,
}

/// One struct or union of an autogen file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AutogenRecord {
    /// `SIZE`: the C `sizeof` (`None` for opaque records).
    pub size: Option<usize>,
    /// The fields, in file order.
    pub fields: Vec<AutogenField>,
}

/// An ioctl request code of an autogen file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutogenIoctl {
    /// `_IOC_DIR`: 0 none, 1 write, 2 read, 3 both.
    pub dir: u32,
    /// `_IOC_TYPE`, e.g. `b'K'`.
    pub ty: u32,
    /// `_IOC_NR`.
    pub nr: u32,
    /// The argument record's name (`struct_x` / `union_x`), if any.
    pub record: Option<String>,
    /// The full request code, when the argument's size is known.
    pub code: Option<u32>,
}

/// A parsed autogen file.
#[derive(Debug, Clone, Default)]
pub struct Autogen {
    /// Records by their autogen name (`struct_kfd_ioctl_get_version_args`).
    pub records: BTreeMap<String, AutogenRecord>,
    /// Integer constants by name.
    pub constants: BTreeMap<String, i128>,
    /// Ioctl request codes by name.
    pub ioctls: BTreeMap<String, AutogenIoctl>,
    /// Type aliases (`__u32` -> `ctypes.c_uint32`).
    pub aliases: BTreeMap<String, String>,
}

/// Splits `s` at top-level commas (outside brackets, parentheses and quotes).
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None, 0);
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '[' | '(' | '{') => depth += 1,
            (None, ']' | ')' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        out.push(s[start..].trim());
    }
    out
}

fn unquote(s: &str) -> Option<&str> {
    s.strip_prefix('\'')?.strip_suffix('\'')
}

/// A Python integer literal or a `+`-sum of literals and known constants.
fn eval(expr: &str, constants: &BTreeMap<String, i128>) -> Option<i128> {
    let mut total = 0i128;
    for term in expr.split('+') {
        let t = term.trim().trim_start_matches('(').trim_end_matches(')');
        let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            i128::from_str_radix(h, 16).ok()?
        } else if let Ok(v) = t.parse::<i128>() {
            v
        } else if let Some(c) = unquote(t).filter(|c| c.len() == 1) {
            i128::from(c.as_bytes()[0])
        } else {
            *constants.get(t)?
        };
        total = total.checked_add(v)?;
    }
    Some(total)
}

impl Autogen {
    /// Parses the text of an autogen file.
    pub fn parse(text: &str) -> Self {
        let mut a = Autogen::default();
        let mut class: Option<String> = None;
        let mut pending_fields: Vec<(String, String)> = Vec::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("class ") {
                let name = rest.split('(').next().unwrap_or("").to_owned();
                a.records.entry(name.clone()).or_default();
                class = Some(name);
                continue;
            }
            if let (Some(c), Some(size)) = (&class, line.trim().strip_prefix("SIZE = ")) {
                if line.starts_with("  ") {
                    a.records.get_mut(c).unwrap().size = size.trim().parse().ok();
                    continue;
                }
            }
            if !line.starts_with(' ') {
                class = None;
            }
            if let Some((rec, list)) = line.split_once(".register_fields(") {
                let list = list.trim_end().trim_end_matches(')');
                pending_fields.push((rec.to_owned(), list.to_owned()));
                continue;
            }
            if let Some((name, ty)) = line.split_once(": TypeAlias = ") {
                a.aliases
                    .insert(name.trim().to_owned(), ty.trim().to_owned());
                continue;
            }
            let Some((name, value)) = line.split_once(" = ") else {
                continue;
            };
            let name = name.trim();
            if name.contains(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                continue;
            }
            let value = value.split(" #").next().unwrap_or("").trim();
            if let Some(v) = eval(value, &a.constants) {
                a.constants.insert(name.to_owned(), v);
            } else if let Some((mac, args)) = value.split_once('(') {
                let dir = match mac.rsplit('_').next() {
                    Some("IO") => 0,
                    Some("IOW") => 1,
                    Some("IOR") => 2,
                    Some("IOWR") => 3,
                    _ => continue,
                };
                // `AMDKFD_IOWR` / `DRM_IOWR`: the base is `<PREFIX>_IOCTL_BASE`.
                let prefix = mac.rsplit_once('_').map_or("", |(p, _)| p);
                let Some(&ty) = a.constants.get(&format!("{prefix}_IOCTL_BASE")) else {
                    continue;
                };
                let args = split_top(args.trim_end().trim_end_matches(')'));
                let Some(nr) = args.first().and_then(|e| eval(e, &a.constants)) else {
                    continue;
                };
                a.ioctls.insert(
                    name.to_owned(),
                    AutogenIoctl {
                        dir,
                        ty: ty as u32,
                        nr: nr as u32,
                        record: args.get(1).map(|s| (*s).to_owned()),
                        code: None,
                    },
                );
            }
        }
        // Fields after every class and alias is known (records may refer to
        // records registered later).
        for (rec, list) in pending_fields {
            let inner = list.trim().trim_start_matches('[').trim_end_matches(']');
            let mut fields = Vec::new();
            for tuple in split_top(inner) {
                let parts = split_top(tuple.trim_start_matches('(').trim_end_matches(')'));
                let (Some(name), Some(ty), Some(off)) = (
                    parts.first().and_then(|p| unquote(p)),
                    parts.get(1),
                    parts.get(2).and_then(|p| p.parse().ok()),
                ) else {
                    panic!("{rec}: cannot read field tuple {tuple}");
                };
                let bits = match (parts.get(3), parts.get(4)) {
                    (Some(w), Some(o)) => Some((w.parse().unwrap(), o.parse().unwrap())),
                    _ => None,
                };
                fields.push(AutogenField {
                    name: name.to_owned(),
                    ty: (*ty).to_owned(),
                    offset: off,
                    size: None,
                    bits,
                });
            }
            a.records.entry(rec).or_default().fields = fields;
        }
        let sizes: Vec<(String, usize, Option<usize>)> = a
            .records
            .iter()
            .flat_map(|(r, rec)| {
                rec.fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| (r.clone(), i, a.size_of(&f.ty)))
                    .collect::<Vec<_>>()
            })
            .collect();
        for (r, i, size) in sizes {
            a.records.get_mut(&r).unwrap().fields[i].size = size;
        }
        let codes: Vec<(String, Option<u32>)> = a
            .ioctls
            .iter()
            .map(|(n, io)| {
                let size = match &io.record {
                    None => Some(0),
                    Some(r) => a.size_of(r),
                };
                let code = size.map(|s| (io.dir << 30) | ((s as u32) << 16) | (io.ty << 8) | io.nr);
                (n.clone(), code)
            })
            .collect();
        for (n, code) in codes {
            a.ioctls.get_mut(&n).unwrap().code = code;
        }
        a
    }

    /// `sizeof` of a ctypes type as the autogen files write them (x86-64).
    pub fn size_of(&self, ty: &str) -> Option<usize> {
        let ty = ty.trim();
        if let Some(inner) = ty
            .strip_prefix("c.Array[")
            .and_then(|t| t.strip_suffix(']'))
        {
            let parts = split_top(inner);
            let n: usize = parts
                .get(1)?
                .trim()
                .strip_prefix("Literal[")?
                .strip_suffix(']')?
                .parse()
                .ok()?;
            return Some(self.size_of(parts.first()?)? * n);
        }
        if ty.starts_with("c.POINTER[") || ty.starts_with("c.CFUNCTYPE[") {
            return Some(8);
        }
        let base = match ty.strip_prefix("ctypes.") {
            Some(b) => b,
            None => {
                if let Some(r) = self.records.get(ty) {
                    return r.size;
                }
                return self.size_of(self.aliases.get(ty)?);
            }
        };
        Some(match base {
            "c_int8" | "c_uint8" | "c_char" | "c_byte" | "c_ubyte" | "c_bool" => 1,
            "c_int16" | "c_uint16" | "c_short" | "c_ushort" => 2,
            "c_int32" | "c_uint32" | "c_int" | "c_uint" | "c_float" => 4,
            "c_int64" | "c_uint64" | "c_long" | "c_ulong" | "c_longlong" | "c_ulonglong"
            | "c_double" | "c_size_t" | "c_ssize_t" | "c_void_p" | "c_char_p" => 8,
            _ => return None,
        })
    }

    /// The record `name`, or a panic naming what is missing.
    pub fn record(&self, name: &str) -> &AutogenRecord {
        self.records
            .get(name)
            .unwrap_or_else(|| panic!("the autogen file has no {name}"))
    }
}

/// Compares Rust layouts with the autogen records, field by field: for
/// each layout, `record` is the autogen name (`struct_x`) of the C type, the
/// sizes must be equal, each listed field must exist there with the same
/// offset and size, and every autogen field must be listed (an anonymous
/// union or struct appears flattened, so its members are listed one by
/// one). Returns one line per mismatch.
pub fn compare_with_autogen(ag: &Autogen, layouts: &[(&str, StructLayout)]) -> Vec<String> {
    let mut errors = Vec::new();
    for (record, l) in layouts {
        let Some(rec) = ag.records.get(*record) else {
            errors.push(format!("{}: {record} is not in the autogen file", l.c_type));
            continue;
        };
        match rec.size {
            Some(s) if s == l.size => {}
            s => errors.push(format!(
                "{}: size autogen {s:?} != Rust {}",
                l.c_type, l.size
            )),
        }
        for f in &l.fields {
            match rec.fields.iter().find(|a| a.name == f.c_field) {
                None => errors.push(format!(
                    "{}.{}: no such field in {record}",
                    l.c_type, f.c_field
                )),
                Some(a) => {
                    if a.offset != f.offset {
                        errors.push(format!(
                            "{}.{}: offset autogen {} != Rust {}",
                            l.c_type, f.c_field, a.offset, f.offset
                        ));
                    }
                    if a.size != Some(f.size) {
                        errors.push(format!(
                            "{}.{}: size autogen {:?} != Rust {}",
                            l.c_type, f.c_field, a.size, f.size
                        ));
                    }
                }
            }
        }
        for a in &rec.fields {
            if !l.fields.iter().any(|f| f.c_field == a.name) {
                errors.push(format!(
                    "{}.{}: autogen field (offset {}) has no Rust counterpart listed",
                    l.c_type, a.name, a.offset
                ));
            }
        }
    }
    errors
}

/// Where the wheel is kept: `$ROCR_TINYGRAD_WHEEL_DIR`, else
/// `<workspace>/target/tinygrad-wheel` (or under `$CARGO_TARGET_DIR`).
pub fn wheel_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("ROCR_TINYGRAD_WHEEL_DIR") {
        return PathBuf::from(d);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("tinygrad-wheel")
}

/// The path of the `tinygrad` wheel, downloaded with `pip download
/// --no-deps` if it is not there yet. Panics (a test failure) when it
/// cannot be had, saying how to get it.
pub fn tinygrad_wheel() -> PathBuf {
    let dir = wheel_dir();
    let wheel = dir.join(format!("tinygrad-{TINYGRAD_VERSION}-py3-none-any.whl"));
    if wheel.is_file() {
        return wheel;
    }
    let status = Command::new("python3")
        .args(["-m", "pip", "download", "--no-deps", "--quiet"])
        .arg(format!("tinygrad=={TINYGRAD_VERSION}"))
        .arg("-d")
        .arg(&dir)
        .status();
    assert!(
        matches!(status, Ok(s) if s.success()) && wheel.is_file(),
        "cannot get the tinygrad {TINYGRAD_VERSION} wheel (the outside oracle of the \
         newer KFD structs) into {}: `python3 -m pip download --no-deps \
         tinygrad=={TINYGRAD_VERSION} -d {}` failed ({status:?}); scripts/test fetches it, \
         and needs python3 with pip and access to PyPI",
        dir.display(),
        dir.display()
    );
    wheel
}

/// The text of `tinygrad/runtime/autogen/<file>` in the wheel, read with
/// Python's `zipfile` (tinygrad itself is never imported).
pub fn tinygrad_autogen(file: &str) -> String {
    let wheel = tinygrad_wheel();
    let member = format!("tinygrad/runtime/autogen/{file}");
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())",
        ])
        .arg(&wheel)
        .arg(&member)
        .output()
        .expect("run python3 (scripts/lib.sh installs it)");
    assert!(
        out.status.success(),
        "reading {member} from {}: {}",
        wheel.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("autogen file is UTF-8")
}
