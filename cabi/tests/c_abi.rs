//! The C interface against Debian's ROCr 5.2.3 headers and library:
//! - every `hsa_*_get_info` / `hsa_amd_*_get_info` attribute (system,
//!   agents, regions, pools, agent-pool pairs, ISAs, wavefronts, caches,
//!   executables, symbols, loaded code objects) writes exactly the size the
//!   header gives it (`tests/c/info_sizes.c`, canary buffers);
//! - every exported function has the header's prototype: a C file assigns
//!   each one to a pointer of the header's type (`__typeof__`), built with
//!   `-Werror`, linked against this library;
//! - `hsa_status_string` answers as Debian's ROCr itself does, for every
//!   status value (both libraries loaded in one process);
//! - every export's Rust signature has the header prototype's arity, and
//!   each parameter and the result the same kind (integer, bool, pointer,
//!   struct by value) and size (`hsa_runtime64::abi`, against a C++ probe
//!   of the headers' declarations);
//! - every export called with all-zero arguments (NULL pointers, handle 0),
//!   before `hsa_init` (each status function answers
//!   `HSA_STATUS_ERROR_NOT_INITIALIZED`) and after (no crash; only the
//!   calls ROCr also lets succeed on NULL succeed).

mod common;

use std::fmt::Write as _;
use std::process::Command;

use common::{DEBIAN_LIB, cdylib, gcc, kernels, on_ours, run_ok, work_dir};

#[test]
fn every_get_info_attribute_writes_its_header_size() {
    let prog = gcc("info_sizes", &["info_sizes.c"], &[]);
    let out = run_ok(on_ours(&prog).arg(kernels()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("info sizes:"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.ends_with(", 0 failures"), "{stdout}");
    let checked: u32 = line
        .split_whitespace()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(
        checked > 250,
        "only {checked} attributes answered: {stdout}"
    );
}

/// The function names of Debian's export list.
fn debian_functions() -> Vec<String> {
    let out = run_ok(Command::new("nm").args(["-D", "--defined-only", DEBIAN_LIB]));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (_, kind, name) = (f.next()?, f.next()?, f.next()?);
            (kind == "T").then(|| name.split('@').next().unwrap_or(name).to_string())
        })
        .collect()
}

#[test]
fn every_export_has_the_header_prototype() {
    let names = debian_functions();
    assert_eq!(names.len(), 224);
    let mut c = String::from(
        "#include <hsa/hsa.h>\n#include <hsa/hsa_ext_amd.h>\n#include <hsa/hsa_ext_image.h>\n\
         #include <hsa/hsa_ext_finalize.h>\n#include <hsa/hsa_ven_amd_loader.h>\n#include <stdio.h>\n",
    );
    for n in &names {
        writeln!(c, "__typeof__({n}) *volatile p_{n} = {n};").unwrap();
    }
    c.push_str("int main(void) {\n    int n = 0;\n");
    for n in &names {
        writeln!(c, "    n += p_{n} != 0;").unwrap();
    }
    c.push_str("    printf(\"prototypes: %d functions\\n\", n);\n    return n != ");
    writeln!(c, "{};\n}}", names.len()).unwrap();
    let src = work_dir("prototypes").join("prototypes.c");
    std::fs::write(&src, c).unwrap();
    let prog = work_dir("prototypes").join("prototypes");
    run_ok(
        Command::new("gcc")
            .args(["-std=gnu11", "-Wall", "-Werror", "-o"])
            .arg(&prog)
            .arg(&src)
            .arg("-L")
            .arg(common::lib_dir())
            .arg("-lhsa-runtime64"),
    );
    // It runs on ours: every symbol resolved from this library.
    let out = run_ok(on_ours(&prog).env("LD_BIND_NOW", "1"));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("prototypes: 224 functions"),
        "{out:?}"
    );
}

#[test]
fn status_strings_are_rocr_strings() {
    let out = work_dir("bin").join("status_strings");
    run_ok(
        Command::new("gcc")
            .args(["-Wall", "-Werror", "-o"])
            .arg(&out)
            .arg(common::c_dir().join("status_strings.c"))
            .arg("-ldl"),
    );
    let r = run_ok(Command::new(&out).arg(cdylib()).arg(DEBIAN_LIB));
    let stdout = String::from_utf8_lossy(&r.stdout);
    assert!(
        stdout.contains("51 known statuses, 0 differences"),
        "{stdout}"
    );
}

#[test]
fn every_export_survives_zero_arguments_before_and_after_init() {
    let names = debian_functions();
    // C++ only to spell "call f with value-initialised arguments of its
    // header types" once for all 224 prototypes.
    let mut c = String::from(
        "#include <hsa/hsa.h>\n#include <hsa/hsa_ext_amd.h>\n#include <hsa/hsa_ext_image.h>\n\
         #include <hsa/hsa_ext_finalize.h>\n#include <stdio.h>\n#include <string.h>\n\
         #include <type_traits>\n\
         static int bad;\n\
         template <typename R, typename... A>\n\
         static void zero_call(const char *name, R (*f)(A...), bool before_init) {\n\
           if constexpr (std::is_same_v<R, hsa_status_t>) {\n\
             hsa_status_t s = f(A{}...);\n\
             if (before_init && s != HSA_STATUS_ERROR_NOT_INITIALIZED &&\n\
                 strcmp(name, \"hsa_status_string\") != 0) {\n\
               fprintf(stderr, \"%s before hsa_init: %#x\\n\", name, s);\n\
               bad++;\n\
             }\n\
             if (!before_init && s == HSA_STATUS_SUCCESS) printf(\"succeeds: %s\\n\", name);\n\
           } else {\n\
             (void)f(A{}...);\n\
           }\n\
         }\n\
         int main() {\n",
    );
    for before in [true, false] {
        for n in names
            .iter()
            .filter(|n| *n != "hsa_init" && *n != "hsa_shut_down")
        {
            writeln!(c, "  zero_call(\"{n}\", {n}, {before});").unwrap();
        }
        if before {
            c.push_str("  if (hsa_init() != HSA_STATUS_SUCCESS) return 2;\n");
        }
    }
    c.push_str(
        "  if (hsa_shut_down() != HSA_STATUS_SUCCESS) return 3;\n\
         printf(\"zero calls: %d bad\\n\", bad);\n  return bad != 0;\n}\n",
    );
    let dir = work_dir("zero");
    let src = dir.join("zero.cpp");
    std::fs::write(&src, c).unwrap();
    let prog = dir.join("zero");
    run_ok(
        Command::new("g++")
            .args([
                "-std=c++17",
                "-DAMD_INTERNAL_BUILD",
                "-Wall",
                "-Werror",
                "-o",
            ])
            .arg(&prog)
            .arg(&src)
            .arg("-L")
            .arg(common::lib_dir())
            .arg("-lhsa-runtime64"),
    );
    let out = run_ok(&mut on_ours(&prog));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("zero calls: 0 bad"), "{stdout}");
    let succeeded: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("succeeds: "))
        .collect();
    // ROCr 5.2.3 answers success to these with NULL/0 too (hsa.cpp,
    // hsa_ext_amd.cpp): freeing NULL, unlocking NULL (MemoryRegion::Unlock;
    // tests/c/status_diff.c checks it against AMD's ROCr), registering
    // nothing, turning copy profiling off (`profiling_enabled(false)` on
    // every agent).
    assert_eq!(
        succeeded,
        [
            "hsa_amd_memory_pool_free",
            "hsa_amd_memory_unlock",
            "hsa_amd_profiling_async_copy_enable",
            "hsa_memory_deregister",
            "hsa_memory_free",
            "hsa_memory_register"
        ],
        "{stdout}"
    );
}

#[test]
fn every_rust_signature_matches_the_header_prototype() {
    let names = debian_functions();
    let mut c = String::from(
        "#include <hsa/hsa.h>\n#include <hsa/hsa_ext_amd.h>\n#include <hsa/hsa_ext_image.h>\n\
         #include <hsa/hsa_ext_finalize.h>\n#include <stdio.h>\n#include <type_traits>\n\
         template <typename T> static void kind() {\n\
           if constexpr (std::is_void_v<T>) printf(\" V0\");\n\
           else if constexpr (std::is_pointer_v<T>) printf(\" P%zu\", sizeof(T));\n\
           else if constexpr (std::is_same_v<T, bool>) printf(\" B%zu\", sizeof(T));\n\
           else if constexpr (std::is_enum_v<T> || std::is_integral_v<T>) printf(\" I%zu\", sizeof(T));\n\
           else if constexpr (std::is_class_v<T>) printf(\" S%zu\", sizeof(T));\n\
           else printf(\" ?%zu\", sizeof(T));\n\
         }\n\
         template <typename R, typename... A> static void sig(const char *name, R (*)(A...)) {\n\
           printf(\"%s %zu\", name, sizeof...(A));\n\
           kind<R>();\n\
           (kind<A>(), ...);\n\
           printf(\"\\n\");\n\
         }\n\
         int main() {\n",
    );
    for n in &names {
        writeln!(c, "  sig(\"{n}\", (decltype(&{n}))nullptr);").unwrap();
    }
    c.push_str("}\n");
    let dir = work_dir("signatures");
    let src = dir.join("sig.cpp");
    std::fs::write(&src, c).unwrap();
    let prog = dir.join("sig");
    run_ok(
        Command::new("g++")
            .args(["-std=c++17", "-Wall", "-Werror", "-o"])
            .arg(&prog)
            .arg(&src),
    );
    let out = run_ok(&mut Command::new(&prog));
    let header: std::collections::BTreeMap<String, String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            l.split_once(' ')
                .map(|(n, s)| (n.to_string(), s.to_string()))
        })
        .collect();
    let ours = hsa_runtime64::abi::signatures();
    assert_eq!(ours.len(), 224);
    assert_eq!(header.len(), 224);
    let mut bad = Vec::new();
    for (name, sig) in &ours {
        match header.get(*name) {
            Some(h) if h == sig => {}
            Some(h) => bad.push(format!("{name}: header `{h}`, ours `{sig}`")),
            None => bad.push(format!("{name}: not declared by the headers")),
        }
    }
    assert!(bad.is_empty(), "signature mismatches:\n{}", bad.join("\n"));
}

/// ROCr 6.x's exports beyond Debian's header (`hsa_amd_vmem_*`,
/// `hsa_amd_agent_set_async_scratch_limit`): each Rust signature against
/// the prototypes of ROCr 6's header (`tests/c/rocr6.h`, the same C++
/// probe as above), and each called with
/// all-zero arguments before `hsa_init` (`NOT_INITIALIZED`) and after (an
/// error, no crash).
#[test]
fn rocr6_exports_have_rocr6_prototypes_and_survive_zero_arguments() {
    let ours = hsa_runtime64::abi::rocr6_signatures();
    assert_eq!(ours.len(), 14);
    let mut c = String::from(
        "#include \"rocr6.h\"\n#include <stdio.h>\n#include <type_traits>\n\
         static int bad;\n\
         template <typename T> static void kind() {\n\
           if constexpr (std::is_void_v<T>) printf(\" V0\");\n\
           else if constexpr (std::is_pointer_v<T>) printf(\" P%zu\", sizeof(T));\n\
           else if constexpr (std::is_same_v<T, bool>) printf(\" B%zu\", sizeof(T));\n\
           else if constexpr (std::is_enum_v<T> || std::is_integral_v<T>) printf(\" I%zu\", sizeof(T));\n\
           else if constexpr (std::is_class_v<T>) printf(\" S%zu\", sizeof(T));\n\
           else printf(\" ?%zu\", sizeof(T));\n\
         }\n\
         template <typename R, typename... A> static void sig(const char *name, R (*)(A...)) {\n\
           printf(\"sig %s %zu\", name, sizeof...(A));\n\
           kind<R>();\n\
           (kind<A>(), ...);\n\
           printf(\"\\n\");\n\
         }\n\
         template <typename... A>\n\
         static void zero_call(const char *name, hsa_status_t (*f)(A...), bool before_init) {\n\
           hsa_status_t s = f(A{}...);\n\
           if (before_init ? s != HSA_STATUS_ERROR_NOT_INITIALIZED : s == HSA_STATUS_SUCCESS) {\n\
             fprintf(stderr, \"%s %s hsa_init: %#x\\n\", name, before_init ? \"before\" : \"after\", s);\n\
             bad++;\n\
           }\n\
         }\n\
         int main() {\n",
    );
    for (n, _) in &ours {
        writeln!(c, "  sig(\"{n}\", &{n});").unwrap();
    }
    for before in [true, false] {
        for (n, _) in &ours {
            writeln!(c, "  zero_call(\"{n}\", {n}, {before});").unwrap();
        }
        if before {
            c.push_str("  if (hsa_init() != HSA_STATUS_SUCCESS) return 2;\n");
        }
    }
    c.push_str(
        "  if (hsa_shut_down() != HSA_STATUS_SUCCESS) return 3;\n\
         printf(\"zero calls: %d bad\\n\", bad);\n  return bad != 0;\n}\n",
    );
    let dir = work_dir("rocr6");
    let src = dir.join("rocr6.cpp");
    std::fs::write(&src, c).unwrap();
    let prog = dir.join("rocr6");
    run_ok(
        Command::new("g++")
            .args(["-std=c++17", "-Wall", "-Werror", "-I"])
            .arg(common::c_dir())
            .arg("-o")
            .arg(&prog)
            .arg(&src)
            .arg("-L")
            .arg(common::lib_dir())
            .arg("-lhsa-runtime64"),
    );
    let out = run_ok(&mut on_ours(&prog));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("zero calls: 0 bad"), "{stdout}");
    let header: std::collections::BTreeMap<&str, &str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("sig ")?.split_once(' '))
        .collect();
    assert_eq!(header.len(), 14, "{stdout}");
    for (name, sig) in &ours {
        assert_eq!(header.get(name), Some(&sig.as_str()), "{name}");
    }
}
