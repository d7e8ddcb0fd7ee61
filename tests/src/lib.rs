//! Helpers shared by the cross-crate and ABI tests in `tests/tests/`.
//!
//! The ABI tests compile small C programs against the real system headers
//! (ROCr's `hsa/*.h` from Debian's `libhsa-runtime-dev`, the kernel's
//! `linux/kfd_ioctl.h`) and compare what C reports with the Rust layouts.
//! A missing header is a test failure with a message naming the package,
//! never a skip: `scripts/test` installs the packages first.

pub mod autogen;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One field of a C struct and where the Rust mirror puts it.
#[derive(Debug, Clone)]
pub struct FieldLayout {
    /// The C member designator, e.g. `hsa_queue` or `dep_signal`.
    pub c_field: &'static str,
    /// `offset_of!` of the Rust field.
    pub offset: usize,
    /// `size_of` of the Rust field's type.
    pub size: usize,
}

/// A C struct (or union) and the size, alignment and fields of its Rust mirror.
#[derive(Debug, Clone)]
pub struct StructLayout {
    /// The C type name as written in the header, e.g. `hsa_queue_t` or `struct kfd_ioctl_get_version_args`.
    pub c_type: &'static str,
    /// `size_of` of the Rust type.
    pub size: usize,
    /// `align_of` of the Rust type.
    pub align: usize,
    /// Every field, in any order.
    pub fields: Vec<FieldLayout>,
    /// The C struct has implicit padding (glibc's `struct r_debug`): a gap
    /// is accepted where C's alignment of the next field (or of the struct,
    /// at the end) makes it, and only there. Off for the structs mirrored
    /// from headers that pad explicitly, where any gap is a forgotten field.
    pub implicit_padding: bool,
}

/// Size of the field a projection closure points at (helper for [`layout!`]).
pub fn field_size<T, F>(_project: fn(&T) -> &F) -> usize {
    core::mem::size_of::<F>()
}

/// Builds a [`StructLayout`] from a Rust type and the C names of its fields:
/// `layout!("hsa_queue_t", HsaQueue { type_ => "type", features => "features" })`.
#[macro_export]
macro_rules! layout {
    ($c_type:expr, $rust:ty { $($rf:ident $(=> $cf:expr)?),* $(,)? }) => {
        $crate::StructLayout {
            c_type: $c_type,
            size: ::core::mem::size_of::<$rust>(),
            align: ::core::mem::align_of::<$rust>(),
            fields: vec![$($crate::FieldLayout {
                c_field: $crate::c_name!($rf $(, $cf)?),
                offset: ::core::mem::offset_of!($rust, $rf),
                size: $crate::field_size::<$rust, _>(|s: &$rust| &s.$rf),
            }),*],
            implicit_padding: false,
        }
    };
}

/// The C name of a [`layout!`] field: the one given, else the Rust name.
#[macro_export]
#[doc(hidden)]
macro_rules! c_name {
    ($rf:ident) => {
        stringify!($rf)
    };
    ($rf:ident, $cf:expr) => {
        $cf
    };
}

/// Fails the test with a clear message when a system header is missing.
pub fn require_header(path: &str, debian_package: &str) {
    assert!(
        Path::new(path).exists(),
        "{path} is missing: install the Debian package `{debian_package}` \
         (`scripts/test` does this; by hand: apt-get install {debian_package})"
    );
}

/// Compiles `source` with the system C compiler and runs it; its standard
/// output must be lines of `key value` (value a signed decimal integer).
pub fn run_c_probe(name: &str, source: &str) -> BTreeMap<String, i128> {
    let dir = probe_dir(name);
    let c = dir.join(format!("{name}.c"));
    let exe = dir.join(name);
    std::fs::write(&c, source).expect("write C probe");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let out = Command::new(&cc)
        .args(["-std=gnu11", "-Wall", "-Werror", "-o"])
        .arg(&exe)
        .arg(&c)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}`: {e}"));
    assert!(
        out.status.success(),
        "C probe {name} did not compile:\n{}\nsource:\n{source}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().expect("run C probe");
    assert!(run.status.success(), "C probe {name} failed: {run:?}");
    let text = String::from_utf8(run.stdout).expect("probe output is UTF-8");
    let mut map = BTreeMap::new();
    for line in text.lines() {
        let (k, v) = line
            .rsplit_once(' ')
            .unwrap_or_else(|| panic!("bad probe line {line:?}"));
        let v: i128 = v
            .parse()
            .unwrap_or_else(|_| panic!("bad probe value in {line:?}"));
        map.insert(k.to_owned(), v);
    }
    map
}

fn probe_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rocr-rs-probe-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create probe dir");
    dir
}

/// Compares the Rust layouts with what the C compiler reports for the same
/// types under `includes`, and returns every mismatch as a readable line.
///
/// Besides size, alignment and each field's offset and size, it checks that
/// the listed fields tile the C struct with no gap, so a C field missing from
/// the Rust mirror is reported too.
pub fn compare_layouts(probe: &str, includes: &[&str], layouts: &[StructLayout]) -> Vec<String> {
    let mut src = String::from("#include <stdio.h>\n#include <stddef.h>\n#include <stdalign.h>\n");
    for inc in includes {
        let _ = writeln!(src, "#include <{inc}>");
    }
    src.push_str("int main(void) {\n");
    for l in layouts {
        let t = l.c_type;
        let _ = writeln!(
            src,
            "  printf(\"{t}|size %lld\\n\", (long long)sizeof({t}));"
        );
        let _ = writeln!(
            src,
            "  printf(\"{t}|align %lld\\n\", (long long)alignof({t}));"
        );
        for f in &l.fields {
            let m = f.c_field;
            let _ = writeln!(
                src,
                "  printf(\"{t}|{m}|offset %lld\\n\", (long long)offsetof({t}, {m}));"
            );
            let _ = writeln!(
                src,
                "  printf(\"{t}|{m}|size %lld\\n\", (long long)sizeof((({t}*)0)->{m}));"
            );
            if l.implicit_padding {
                let _ = writeln!(
                    src,
                    "  printf(\"{t}|{m}|align %lld\\n\", (long long)alignof(__typeof__((({t}*)0)->{m})));"
                );
            }
        }
    }
    src.push_str("  return 0;\n}\n");
    let c = run_c_probe(probe, &src);

    let mut errors = Vec::new();
    for l in layouts {
        let t = l.c_type;
        let get = |k: String| c.get(&k).copied().unwrap_or(-1);
        let c_size = get(format!("{t}|size"));
        if c_size != l.size as i128 {
            errors.push(format!("{t}: size C {c_size} != Rust {}", l.size));
        }
        let c_align = get(format!("{t}|align"));
        if c_align != l.align as i128 {
            errors.push(format!("{t}: align C {c_align} != Rust {}", l.align));
        }
        let mut spans = Vec::new();
        for f in &l.fields {
            let m = f.c_field;
            let co = get(format!("{t}|{m}|offset"));
            let cs = get(format!("{t}|{m}|size"));
            if co != f.offset as i128 {
                errors.push(format!("{t}.{m}: offset C {co} != Rust {}", f.offset));
            }
            if cs != f.size as i128 {
                errors.push(format!("{t}.{m}: size C {cs} != Rust {}", f.size));
            }
            let ca = if l.implicit_padding {
                get(format!("{t}|{m}|align")).max(1)
            } else {
                1
            };
            spans.push((co, co + cs, m, ca));
        }
        // Every byte of the C struct must belong to a listed field (the
        // structs mirrored here have no implicit padding), so a field we
        // forgot shows up as a hole.
        spans.sort();
        let mut at = 0i128;
        let round_up = |x: i128, a: i128| (x + a - 1) / a * a;
        for (start, end, m, align) in &spans {
            if *start > at && !(l.implicit_padding && *start == round_up(at, *align)) {
                errors.push(format!(
                    "{t}: bytes {at}..{start} (before `{m}`) belong to no listed field"
                ));
            }
            at = at.max(*end);
        }
        if at < c_size && !(l.implicit_padding && c_size == round_up(at, c_align)) {
            errors.push(format!(
                "{t}: bytes {at}..{c_size} belong to no listed field"
            ));
        }
    }
    errors
}

/// Compares integer constants (macros or enumerators) with their Rust values.
pub fn compare_constants(probe: &str, includes: &[&str], consts: &[(&str, i128)]) -> Vec<String> {
    let mut src = String::from("#include <stdio.h>\n");
    for inc in includes {
        let _ = writeln!(src, "#include <{inc}>");
    }
    src.push_str("int main(void) {\n");
    for (name, _) in consts {
        let _ = writeln!(src, "  printf(\"{name} %lld\\n\", (long long)({name}));");
    }
    src.push_str("  return 0;\n}\n");
    let c = run_c_probe(probe, &src);
    consts
        .iter()
        .filter_map(|(name, rust)| {
            let cv = c.get(*name).copied();
            (cv != Some(*rust)).then(|| format!("{name}: C {cv:?} != Rust {rust}"))
        })
        .collect()
}
