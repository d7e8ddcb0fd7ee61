//! Executables through the runtime's public API on the software GPU
//! (a gfx90a): code object readers, loads from every container, ISA and
//! code-object errors, external variables, freeze, symbol lookup and
//! iteration, every `HSA_EXECUTABLE_SYMBOL_INFO_*` against what
//! `llvm-readelf-19` says of the same object, stale handles, and a dispatch
//! from an executable of two code objects.
//!
//! The objects are the repository's clang-19 builds: `runtime/kernels/demo.co`
//! (`runtime/kernels/build.sh`), the loader-core corpus
//! (`loader-core/corpus/build.sh`), and `runtime/tests/fatbin/newer-targets-host.o`
//! (`runtime/tests/fatbin/build.sh`).

#[allow(dead_code)]
#[path = "../../tests/tests/loader_support/llvm.rs"]
mod llvm;

use std::collections::BTreeMap;
use std::io::{Seek, SeekFrom};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::Duration;

use llvm::{Node, Scalar};
use runtime::driver;
use runtime::executable::{
    CodeObjectReader, DefaultFloatRoundingMode, ExecutableInfo, ExecutableState, ExecutableSymbol,
    Profile, SymbolInfo, SymbolInfoValue as V, SymbolKind, SymbolLinkage, VariableAllocation,
    VariableSegment,
};
use runtime::{Agent, ArgValue, Executable, Geometry, QueueKind, Runtime, Status};

/// The runtime is one process-wide instance: the tests take turns, so
/// that `allocation_count` sees only their own allocations.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

struct Rt {
    rt: Runtime,
    _turn: std::sync::MutexGuard<'static, ()>,
}

impl std::ops::Deref for Rt {
    type Target = Runtime;
    fn deref(&self) -> &Runtime {
        &self.rt
    }
}

fn rt() -> Rt {
    let turn = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    Rt {
        rt: Runtime::init_with(driver::open_sim).expect("runtime on the sim"),
        _turn: turn,
    }
}

fn gpu(rt: &Runtime) -> Agent {
    rt.gpu_agents().next().expect("a GPU agent")
}

fn path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn corpus(rel: &str) -> PathBuf {
    path(&format!("../loader-core/corpus/{rel}"))
}

const DEMO: &str = "kernels/demo.co";

fn reader(p: &Path) -> CodeObjectReader {
    CodeObjectReader::from_path(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn new_exe(rt: &Runtime) -> Executable {
    rt.create_executable(Profile::Full, DefaultFloatRoundingMode::Default)
        .unwrap()
}

fn load(rt: &Runtime, p: &Path) -> Executable {
    let exe = new_exe(rt);
    exe.load_agent_code_object(&reader(p), gpu(rt), None)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    exe
}

fn status<T: std::fmt::Debug>(r: runtime::Result<T>) -> Status {
    r.expect_err("an error").status
}

// ---- what llvm-readelf-19 says -------------------------------------------

/// One `.dynsym` entry as `llvm-readelf-19 --dyn-syms -W` prints it.
#[derive(Debug, Clone)]
struct ElfSym {
    value: u64,
    size: u64,
    kind: String,
    bind: String,
    ndx: String,
    name: String,
}

/// One section header as `llvm-readelf-19 -S -W` prints it.
#[derive(Debug, Clone)]
struct ElfSection {
    flags: String,
    align: u64,
}

fn readelf_dynsyms(p: &Path) -> Vec<ElfSym> {
    let text = llvm::run_llvm_tool("llvm-readelf-19", &["--dyn-syms", "-W"], p);
    let mut out = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 8 || !f[0].ends_with(':') || f[0] == "Num:" {
            continue;
        }
        out.push(ElfSym {
            value: u64::from_str_radix(f[1], 16).unwrap(),
            size: f[2].parse().unwrap(),
            kind: f[3].into(),
            bind: f[4].into(),
            ndx: f[6].into(),
            name: f[7].into(),
        });
    }
    assert!(!out.is_empty(), "{}: no dynamic symbols read", p.display());
    out
}

fn readelf_sections(p: &Path) -> BTreeMap<String, ElfSection> {
    let text = llvm::run_llvm_tool("llvm-readelf-19", &["-S", "-W"], p);
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim_start();
        let Some(rest) = line.strip_prefix('[') else {
            continue;
        };
        let Some((nr, rest)) = rest.split_once(']') else {
            continue;
        };
        let Ok(nr) = nr.trim().parse::<u32>() else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        // Name Type Address Off Size ES [Flg] Lk Inf Al
        let (flags, align) = match f.len() {
            10 => (f[6].to_string(), f[9]),
            9 => (String::new(), f[8]),
            _ => continue,
        };
        out.insert(
            nr.to_string(),
            ElfSection {
                flags,
                align: align.parse().unwrap(),
            },
        );
    }
    out
}

fn field<'a>(map: &'a [(String, Node)], key: &str) -> Option<&'a str> {
    map.iter().find(|(k, _)| k == key).map(|(_, v)| match v {
        Node::Scalar(Scalar::Plain(s) | Scalar::Quoted(s)) => s.as_str(),
        other => panic!("{key}: {other}"),
    })
}

/// The kernel maps of the object's `amdhsa.kernels`.
fn readelf_kernels(p: &Path) -> Vec<Vec<(String, Node)>> {
    let mut docs = llvm::readelf_metadata(p);
    assert_eq!(docs.len(), 1, "{}: one metadata note", p.display());
    let Node::Map(top) = docs.remove(0) else {
        panic!("metadata is not a map")
    };
    let Some((_, Node::Seq(kernels))) = top.into_iter().find(|(k, _)| k == "amdhsa.kernels") else {
        panic!("no amdhsa.kernels")
    };
    kernels
        .into_iter()
        .map(|k| match k {
            Node::Map(m) => m,
            other => panic!("kernel is {other}"),
        })
        .collect()
}

fn num(map: &[(String, Node)], key: &str) -> u32 {
    field(map, key)
        .unwrap_or_else(|| panic!("metadata has no {key}"))
        .parse()
        .unwrap()
}

/// Checks every symbol attribute of the executable `exe`, which holds the
/// one code object at `p` loaded for `agent`, against llvm-readelf-19's view
/// of that object; `defined` are the variables the program defined.
fn check_against_readelf(exe: &Executable, p: &Path, agent: Agent, defined: &[&str]) {
    let syms = readelf_dynsyms(p);
    let sections = readelf_sections(p);
    let loaded = exe.loaded_code_objects();
    assert_eq!(loaded.len(), 1);
    let delta = loaded[0].load_delta as u64;

    // Kernels: the metadata's, each with its `.kd` symbol.
    let kernels = readelf_kernels(p);
    assert!(!kernels.is_empty());
    for k in &kernels {
        let sym_name = field(k, ".symbol").unwrap();
        let es = syms.iter().find(|s| s.name == sym_name).unwrap();
        let s = exe.get_symbol_by_name(sym_name, Some(agent)).unwrap();
        let info = |a| exe.symbol_info(s, a).unwrap();
        assert_eq!(info(SymbolInfo::Type), V::Kind(SymbolKind::Kernel));
        assert_eq!(info(SymbolInfo::Name), V::Text(sym_name.into()));
        assert_eq!(info(SymbolInfo::NameLength), V::U32(sym_name.len() as u32));
        assert_eq!(info(SymbolInfo::ModuleName), V::Text(String::new()));
        assert_eq!(info(SymbolInfo::ModuleNameLength), V::U32(0));
        let linkage = if es.bind == "GLOBAL" {
            SymbolLinkage::Program
        } else {
            SymbolLinkage::Module
        };
        assert_eq!(info(SymbolInfo::Linkage), V::Linkage(linkage));
        assert_eq!(info(SymbolInfo::IsDefinition), V::Bool(true));
        assert_eq!(info(SymbolInfo::Agent), V::Agent(Some(agent)));
        assert_eq!(
            info(SymbolInfo::KernelObject),
            V::U64(delta + es.value),
            "{sym_name}"
        );
        assert_eq!(info(SymbolInfo::VariableAddress), V::U64(delta + es.value));
        assert_eq!(
            info(SymbolInfo::KernelKernargSegmentSize),
            V::U32(num(k, ".kernarg_segment_size"))
        );
        // ROCr reports at least the HSA minimum of 16.
        assert_eq!(
            info(SymbolInfo::KernelKernargSegmentAlignment),
            V::U32(num(k, ".kernarg_segment_align").max(16))
        );
        assert_eq!(
            info(SymbolInfo::KernelGroupSegmentSize),
            V::U32(num(k, ".group_segment_fixed_size"))
        );
        assert_eq!(
            info(SymbolInfo::KernelPrivateSegmentSize),
            V::U32(num(k, ".private_segment_fixed_size"))
        );
        assert_eq!(
            info(SymbolInfo::KernelDynamicCallstack),
            V::Bool(field(k, ".uses_dynamic_stack") == Some("true")),
            "{sym_name}"
        );
        assert_eq!(
            info(SymbolInfo::KernelWavefrontSize),
            V::U32(num(k, ".wavefront_size"))
        );
        assert_eq!(info(SymbolInfo::KernelCallConvention), V::U32(0));
        assert_eq!(info(SymbolInfo::KernelObjectSize), V::U32(es.size as u32));
        assert_eq!(info(SymbolInfo::KernelObjectAlign), V::U32(64));
        for a in [
            SymbolInfo::VariableAllocation,
            SymbolInfo::VariableSegment,
            SymbolInfo::VariableAlignment,
            SymbolInfo::VariableSize,
            SymbolInfo::VariableIsConst,
            SymbolInfo::IndirectFunctionObject,
            SymbolInfo::IndirectFunctionCallConvention,
        ] {
            assert_eq!(
                status(exe.symbol_info(s, a)),
                Status::InvalidArgument,
                "{sym_name} {a:?}"
            );
        }
        // The dispatch view agrees.
        let ks = exe.kernel_symbol(s).unwrap();
        assert_eq!(format!("{}.kd", ks.name), sym_name);
        assert_eq!(ks.kernel_object, delta + es.value);
    }

    // Variables: defined exported objects other than kernel descriptors.
    let vars: Vec<&ElfSym> = syms
        .iter()
        .filter(|s| {
            s.kind == "OBJECT" && s.bind != "LOCAL" && s.ndx != "UND" && !s.name.ends_with(".kd")
        })
        .collect();
    for v in &vars {
        let s = exe.get_symbol_by_name(&v.name, Some(agent)).unwrap();
        let info = |a| exe.symbol_info(s, a).unwrap();
        let sec = &sections[&v.ndx];
        assert_eq!(info(SymbolInfo::Type), V::Kind(SymbolKind::Variable));
        assert_eq!(info(SymbolInfo::Name), V::Text(v.name.clone()));
        assert_eq!(info(SymbolInfo::VariableAddress), V::U64(delta + v.value));
        assert_eq!(info(SymbolInfo::KernelObject), V::U64(delta + v.value));
        assert_eq!(info(SymbolInfo::VariableSize), V::U32(v.size as u32));
        assert_eq!(
            info(SymbolInfo::VariableAlignment),
            V::U32(sec.align as u32)
        );
        assert_eq!(
            info(SymbolInfo::VariableIsConst),
            V::Bool(!sec.flags.contains('W')),
            "{}",
            v.name
        );
        assert_eq!(
            info(SymbolInfo::VariableSegment),
            V::Segment(VariableSegment::Global)
        );
        assert_eq!(
            info(SymbolInfo::VariableAllocation),
            V::Allocation(VariableAllocation::Program)
        );
        assert_eq!(info(SymbolInfo::Agent), V::Agent(Some(agent)));
        assert_eq!(info(SymbolInfo::IsDefinition), V::Bool(true));
        for a in [
            SymbolInfo::KernelKernargSegmentSize,
            SymbolInfo::KernelKernargSegmentAlignment,
            SymbolInfo::KernelGroupSegmentSize,
            SymbolInfo::KernelPrivateSegmentSize,
            SymbolInfo::KernelDynamicCallstack,
            SymbolInfo::KernelWavefrontSize,
            SymbolInfo::KernelObjectSize,
        ] {
            assert_eq!(status(exe.symbol_info(s, a)), Status::InvalidArgument);
        }
        assert_eq!(status(exe.kernel_symbol(s)), Status::InvalidArgument);
    }

    // Iteration: exactly those symbols (and the program's), by name.
    let mut expected: Vec<String> = kernels
        .iter()
        .map(|k| field(k, ".symbol").unwrap().to_string())
        .chain(vars.iter().map(|v| v.name.clone()))
        .chain(defined.iter().map(|d| d.to_string()))
        .collect();
    expected.sort();
    let names = |list: Vec<ExecutableSymbol>| -> Vec<String> {
        list.into_iter()
            .map(|s| match exe.symbol_info(s, SymbolInfo::Name).unwrap() {
                V::Text(t) => t,
                other => panic!("{other:?}"),
            })
            .collect()
    };
    assert_eq!(names(exe.symbols()), expected);
    assert_eq!(names(exe.agent_symbols(agent)), expected);
}

// ---- tests ------------------------------------------------------------------

#[test]
fn enumerators_match_hsa_h() {
    let header = std::fs::read_to_string("/usr/include/hsa/hsa.h").expect("/usr/include/hsa/hsa.h");
    let mut values = BTreeMap::new();
    for line in header.lines() {
        let l = line.trim().trim_end_matches(',');
        if let Some((name, value)) = l.split_once(" = ") {
            if let Ok(v) = value.trim().parse::<u32>() {
                values.insert(name.trim().to_string(), v);
            }
        }
    }
    let mut checked = 0;
    let mut check = |name: &str, v: u32, ext: bool| {
        match values.get(name) {
            Some(&h) => assert_eq!(h, v, "{name}"),
            None => assert!(ext, "{name} is not in hsa.h"),
        }
        checked += 1;
    };
    for a in SymbolInfo::ALL {
        let ext = matches!(
            a,
            SymbolInfo::KernelWavefrontSize
                | SymbolInfo::KernelObjectSize
                | SymbolInfo::KernelObjectAlign
        );
        check(a.c_name(), *a as u32, ext);
    }
    for x in Profile::ALL {
        check(x.c_name(), *x as u32, false);
    }
    for x in DefaultFloatRoundingMode::ALL {
        check(x.c_name(), *x as u32, false);
    }
    for x in ExecutableState::ALL {
        check(x.c_name(), *x as u32, false);
    }
    for x in ExecutableInfo::ALL {
        check(x.c_name(), *x as u32, false);
    }
    for x in SymbolKind::ALL {
        check(x.c_name(), *x as u32, false);
    }
    for x in SymbolLinkage::ALL {
        check(x.c_name(), *x as u32, false);
    }
    for x in VariableAllocation::ALL {
        check(x.c_name(), *x as u32, false);
    }
    for x in VariableSegment::ALL {
        check(x.c_name(), *x as u32, false);
    }
    // Every HSA_EXECUTABLE_SYMBOL_INFO_* of the header is ours.
    for name in values
        .keys()
        .filter(|n| n.starts_with("HSA_EXECUTABLE_SYMBOL_INFO_"))
    {
        assert!(
            SymbolInfo::ALL.iter().any(|a| a.c_name() == name),
            "{name} missing"
        );
    }
    assert_eq!(SymbolInfo::from_raw(24), None);
    assert_eq!(SymbolInfo::from_raw(22), Some(SymbolInfo::KernelObject));
    assert!(checked > 40);
}

#[test]
fn readers_from_memory_file_path_and_descriptor() {
    let p = path(DEMO);
    let bytes = std::fs::read(&p).unwrap();

    assert_eq!(
        status(CodeObjectReader::from_memory(Vec::new())),
        Status::InvalidArgument
    );
    let m = CodeObjectReader::from_memory(bytes.clone()).unwrap();
    assert_eq!(m.bytes(), &bytes[..]);
    assert!(m.uri().starts_with("memory://"), "{}", m.uri());

    // The whole file whatever the descriptor's offset (as ROCr), which is
    // left where it was.
    let mut f = std::fs::File::open(&p).unwrap();
    f.seek(SeekFrom::Start(100)).unwrap();
    let r = CodeObjectReader::from_file(&f).unwrap();
    assert_eq!(r.bytes(), &bytes[..]);
    assert_eq!(f.stream_position().unwrap(), 100);
    let canonical = std::fs::canonicalize(&p).unwrap();
    assert_eq!(r.uri(), format!("file://{}", canonical.display()));

    // SAFETY: `f` stays open during the call.
    let r = unsafe { CodeObjectReader::from_raw_fd(f.as_raw_fd()) }.unwrap();
    assert_eq!(r.bytes(), &bytes[..]);
    // SAFETY: -1 is never used as a descriptor.
    let minus_one = unsafe { CodeObjectReader::from_raw_fd(-1) };
    assert_eq!(status(minus_one), Status::InvalidArgument);
    {
        use std::os::fd::AsFd;
        let part = CodeObjectReader::from_fd_range(f.as_fd(), 64, 128).unwrap();
        assert_eq!(part.bytes(), &bytes[64..192]);
        assert!(
            part.uri().ends_with("#offset=64&size=128"),
            "{}",
            part.uri()
        );
        assert_eq!(
            status(CodeObjectReader::from_fd_range(
                f.as_fd(),
                64,
                bytes.len() as u64
            )),
            Status::InvalidCodeObject
        );
    }

    assert_eq!(
        status(CodeObjectReader::from_path("/nonexistent/x.co")),
        Status::InvalidFile
    );
    assert_eq!(
        status(CodeObjectReader::from_path("/")),
        Status::InvalidFile
    );
    let empty = std::env::temp_dir().join(format!("exec-empty-{}.co", std::process::id()));
    std::fs::write(&empty, b"").unwrap();
    assert_eq!(
        status(CodeObjectReader::from_path(&empty)),
        Status::InvalidCodeObject
    );
    std::fs::remove_file(&empty).unwrap();

    // Memory and file readers load the same executable.
    let rt = rt();
    let a = new_exe(&rt);
    a.load_agent_code_object(&m, gpu(&rt), None).unwrap();
    let b = new_exe(&rt);
    let lo = b.load_agent_code_object(&r, gpu(&rt), Some("")).unwrap();
    assert_eq!(lo.uri, format!("file://{}", canonical.display()));
    assert_eq!(lo.isa, "amdgcn-amd-amdhsa--gfx90a");
    let names = |e: &Executable| {
        e.symbols()
            .into_iter()
            .map(|s| e.symbol(s).unwrap().name.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&a), names(&b));
    // The reader may go before the executable.
    drop(m);
    assert!(a.kernel("vector_add").is_ok());
}

#[test]
fn symbol_info_of_demo_matches_readelf() {
    let rt = rt();
    let p = path(DEMO);
    let exe = load(&rt, &p);
    check_against_readelf(&exe, &p, gpu(&rt), &[]);
}

#[test]
fn symbol_info_of_the_corpus_object_matches_readelf() {
    // 13 kernels: LDS, scratch, a dynamic stack, printf, 64 arguments.
    let rt = rt();
    let p = corpus("co/gfx90a-v5.co");
    let exe = load(&rt, &p);
    check_against_readelf(&exe, &p, gpu(&rt), &[]);
    // The comparison covers non-zero sizes (LLVM 19 at -O2 turns the
    // corpus's recursion into a loop, so no kernel has a dynamic stack).
    let size = |k: &str, a| match exe
        .symbol_info(exe.get_symbol_by_name(k, Some(gpu(&rt))).unwrap(), a)
        .unwrap()
    {
        V::U32(v) => v,
        other => panic!("{other:?}"),
    };
    assert!(size("private_scratch.kd", SymbolInfo::KernelPrivateSegmentSize) > 0);
    assert!(size("reduce_sum_static.kd", SymbolInfo::KernelGroupSegmentSize) > 0);
}

#[test]
fn containers_pick_the_agents_entry() {
    let rt = rt();
    let g = gpu(&rt);
    // Each holds the small gfx90a object (xnack any) among others.
    let inner = corpus("co/small-gfx90a-v5.co");
    let kd = readelf_dynsyms(&inner)
        .into_iter()
        .find(|s| s.name == "vector_add.kd")
        .unwrap();
    for c in [
        corpus("bundle/small.bundle"),
        corpus("bundle/small-compressed.bundle"),
        corpus("bundle/small-fatbin-host.o"),
        inner.clone(),
    ] {
        let exe = load(&rt, &c);
        let lo = &exe.loaded_code_objects()[0];
        assert_eq!(lo.agent, g);
        let s = exe.get_symbol_by_name("vector_add.kd", Some(g)).unwrap();
        assert_eq!(
            exe.symbol_info(s, SymbolInfo::KernelObject).unwrap(),
            V::U64(lo.load_delta as u64 + kd.value),
            "{}",
            c.display()
        );
    }
    // A CCOB v3 (zlib) bundle in a HIP host object (gfx90a, gfx1201, ...).
    let exe = load(&rt, &path("tests/fatbin/newer-targets-host.o"));
    assert!(exe.get_symbol_by_name("vector_add.kd", Some(g)).is_ok());

    // gfx90a:xnack+, gfx1030, gfx11-generic: nothing for an xnack- gfx90a.
    for c in [
        corpus("bundle/three-targets.bundle"),
        corpus("bundle/three-targets-compressed.bundle"),
        corpus("bundle/fatbin-host.o"),
    ] {
        let exe = new_exe(&rt);
        let e = exe
            .load_agent_code_object(&reader(&c), g, None)
            .unwrap_err();
        assert_eq!(e.status, Status::IncompatibleArguments, "{}", c.display());
        assert!(
            e.message.contains("gfx90a:xnack+") && e.message.contains("gfx1030"),
            "{e}"
        );
        assert!(exe.symbols().is_empty() && exe.loaded_code_objects().is_empty());
    }
}

#[test]
fn isa_and_code_object_errors() {
    let rt = rt();
    let g = gpu(&rt);
    let before = rt.allocation_count();
    let exe = new_exe(&rt);
    for (obj, why) in [
        ("co/gfx908-v5.co", "processor differs"),
        ("co/gfx1030-v5.co", "processor differs"),
        ("co/gfx1100-v6.co", "processor differs"),
        ("co/gfx10-3-generic-v6.co", "generic family"),
        ("co/gfx90a-v5-xnack+.co", "xnack"),
        // gfx9-generic is gfx900-gfx90c without gfx90a.
        ("co/gfx9-generic-v6.co", "generic family"),
    ] {
        let e = exe
            .load_agent_code_object(&reader(&corpus(obj)), g, None)
            .unwrap_err();
        assert_eq!(e.status, Status::IncompatibleArguments, "{obj}: {e}");
        assert!(e.message.contains(why), "{obj}: {e}");
    }
    assert!(exe.symbols().is_empty() && exe.loaded_code_objects().is_empty());
    drop(exe);
    assert_eq!(
        rt.allocation_count(),
        before,
        "failed loads leave no memory"
    );

    let small = std::fs::read(corpus("co/small-gfx90a-v5.co")).unwrap();
    let exe = new_exe(&rt);
    let try_load = |bytes: Vec<u8>| {
        exe.load_agent_code_object(&CodeObjectReader::from_memory(bytes).unwrap(), g, None)
            .unwrap_err()
    };
    // An EF_AMDGPU_MACH no LLVM assigns (0x70).
    let mut unknown = small.clone();
    unknown[48] = 0x70;
    let e = try_load(unknown);
    assert_eq!(e.status, Status::InvalidIsaName, "{e}");
    assert!(e.message.contains("unknown processor"), "{e}");
    // Truncated: loader-core says what and where.
    let e = try_load(small[..small.len() / 2].to_vec());
    assert_eq!(e.status, Status::InvalidCodeObject, "{e}");
    assert!(!e.message.is_empty());
    let e = try_load(b"not a code object".to_vec());
    assert_eq!(e.status, Status::InvalidCodeObject, "{e}");
    // A CPU agent has no ISA.
    let cpu = rt
        .agents()
        .find(|&a| !rt.agent(a).unwrap().is_gpu())
        .unwrap();
    let e = exe
        .load_agent_code_object(
            &CodeObjectReader::from_memory(small.clone()).unwrap(),
            cpu,
            None,
        )
        .unwrap_err();
    assert_eq!(e.status, Status::IncompatibleArguments, "{e}");
    // Unknown loader options, as ROCr: HSA_STATUS_ERROR; its own are accepted.
    let r = CodeObjectReader::from_memory(small.clone()).unwrap();
    assert_eq!(
        status(exe.load_agent_code_object(&r, g, Some("-bogus"))),
        Status::Error
    );
    assert!(exe.symbols().is_empty());
    exe.load_agent_code_object(&r, g, Some("-dump-code -dump-dir=/tmp"))
        .unwrap();
    // Program code objects: every AMDGPU code object is agent-specific.
    assert_eq!(
        status(exe.load_program_code_object(&r, None)),
        Status::IncompatibleArguments
    );
    let bad = CodeObjectReader::from_memory(b"\x7fELF garbage".to_vec()).unwrap();
    assert_eq!(
        status(exe.load_program_code_object(&bad, None)),
        Status::InvalidCodeObject
    );
}

#[test]
fn external_variables_are_resolved_at_load() {
    let rt = rt();
    let g = gpu(&rt);
    let ext = corpus("relocations/globals-external-gfx90a-v5.co");
    let before = rt.allocation_count();

    // Undefined: VARIABLE_UNDEFINED, nothing added, nothing kept.
    let exe = new_exe(&rt);
    let e = exe
        .load_agent_code_object(&reader(&ext), g, None)
        .unwrap_err();
    assert_eq!(e.status, Status::VariableUndefined, "{e}");
    assert!(e.message.contains("runtime_provided_flag"), "{e}");
    assert!(exe.symbols().is_empty());
    assert_eq!(rt.allocation_count(), before);

    // An agent definition.
    exe.define_agent_external_variable("runtime_provided_flag", g, 0x1234_5000)
        .unwrap();
    assert_eq!(
        status(exe.define_agent_external_variable("runtime_provided_flag", g, 0x1)),
        Status::VariableAlreadyDefined
    );
    exe.load_agent_code_object(&reader(&ext), g, None).unwrap();
    check_against_readelf(&exe, &ext, g, &["runtime_provided_flag"]);
    let s = exe
        .get_symbol_by_name("runtime_provided_flag", Some(g))
        .unwrap();
    let info = |a| exe.symbol_info(s, a).unwrap();
    assert_eq!(info(SymbolInfo::VariableAddress), V::U64(0x1234_5000));
    assert_eq!(
        info(SymbolInfo::VariableAllocation),
        V::Allocation(VariableAllocation::Agent)
    );
    assert_eq!(
        info(SymbolInfo::Linkage),
        V::Linkage(SymbolLinkage::Program)
    );
    assert_eq!(info(SymbolInfo::Agent), V::Agent(Some(g)));

    // The same object again: its symbols exist for the agent.
    let e = exe
        .load_agent_code_object(&reader(&ext), g, None)
        .unwrap_err();
    assert_eq!(e.status, Status::VariableAlreadyDefined, "{e}");
    assert!(e.message.contains("launch_counter") || e.message.contains("use_globals"));
    // A definition that collides with a loaded variable.
    assert_eq!(
        status(exe.define_agent_external_variable("launch_counter", g, 8)),
        Status::VariableAlreadyDefined
    );

    // A program definition serves every agent; readonly definitions.
    let exe2 = new_exe(&rt);
    exe2.define_program_external_variable("runtime_provided_flag", 0x4000)
        .unwrap();
    assert_eq!(
        status(exe2.define_program_external_variable("runtime_provided_flag", 0x4000)),
        Status::VariableAlreadyDefined
    );
    exe2.readonly_variable_define("table", g, 0x5000).unwrap();
    exe2.load_agent_code_object(&reader(&ext), g, None).unwrap();
    let p = exe2
        .get_symbol_by_name("runtime_provided_flag", None)
        .unwrap();
    assert_eq!(exe2.program_symbols(), vec![p]);
    assert_eq!(
        exe2.symbol_info(p, SymbolInfo::Agent).unwrap(),
        V::Agent(None)
    );
    assert_eq!(
        exe2.symbol_info(p, SymbolInfo::VariableAllocation).unwrap(),
        V::Allocation(VariableAllocation::Program)
    );
    let t = exe2.get_symbol_by_name("table", Some(g)).unwrap();
    assert_eq!(
        exe2.symbol_info(t, SymbolInfo::VariableSegment).unwrap(),
        V::Segment(VariableSegment::Readonly)
    );
    // Program symbols come first when iterating everything.
    assert_eq!(exe2.symbols()[0], p);
    assert!(!exe2.agent_symbols(g).contains(&p));
}

#[test]
fn freeze_then_nothing_can_be_added() {
    let rt = rt();
    let g = gpu(&rt);
    let exe = rt
        .create_executable(Profile::Base, DefaultFloatRoundingMode::Near)
        .unwrap();
    assert_eq!(exe.profile(), Profile::Base);
    assert_eq!(
        exe.default_float_rounding_mode(),
        DefaultFloatRoundingMode::Near
    );
    assert_eq!(exe.info(ExecutableInfo::Profile), 0);
    assert_eq!(exe.info(ExecutableInfo::DefaultFloatRoundingMode), 2);
    assert_eq!(exe.state(), ExecutableState::Unfrozen);
    assert_eq!(exe.info(ExecutableInfo::State), 0);
    assert_eq!(exe.validate().unwrap(), 0);

    let demo = reader(&path(DEMO));
    exe.load_agent_code_object(&demo, g, None).unwrap();
    exe.freeze(None).unwrap();
    assert_eq!(exe.state(), ExecutableState::Frozen);
    assert_eq!(exe.info(ExecutableInfo::State), 1);
    assert_eq!(exe.validate().unwrap(), 0);

    let small = reader(&corpus("co/small-gfx90a-v5.co"));
    assert_eq!(
        status(exe.load_agent_code_object(&small, g, None)),
        Status::FrozenExecutable
    );
    assert_eq!(
        status(exe.load_program_code_object(&small, None)),
        Status::FrozenExecutable
    );
    assert_eq!(
        status(exe.define_program_external_variable("x", 1)),
        Status::FrozenExecutable
    );
    assert_eq!(
        status(exe.define_agent_external_variable("x", g, 1)),
        Status::FrozenExecutable
    );
    assert_eq!(
        status(exe.readonly_variable_define("x", g, 1)),
        Status::FrozenExecutable
    );
    assert_eq!(status(exe.freeze(None)), Status::FrozenExecutable);
    // Lookups still work.
    assert!(exe.get_symbol_by_name("vector_add.kd", Some(g)).is_ok());
}

#[test]
fn lookup_by_name_and_iteration() {
    let rt = rt();
    let g = gpu(&rt);
    let exe = load(&rt, &path(DEMO));
    let s = exe.get_symbol_by_name("vector_add.kd", Some(g)).unwrap();
    assert_eq!(exe.symbol(s).unwrap().full_name, "vector_add.kd");
    // As ROCr: the exact ELF name only.
    let e = exe.get_symbol_by_name("vector_add", Some(g)).unwrap_err();
    assert_eq!(e.status, Status::InvalidSymbolName);
    assert!(e.message.contains("vector_add.kd"), "{e}");
    assert_eq!(
        status(exe.get_symbol_by_name("vector_add.kd", None)),
        Status::InvalidSymbolName
    );
    assert_eq!(
        status(exe.get_symbol_by_name("", Some(g))),
        Status::InvalidSymbolName
    );
    let cpu = rt
        .agents()
        .find(|&a| !rt.agent(a).unwrap().is_gpu())
        .unwrap();
    assert_eq!(
        status(exe.get_symbol_by_name("vector_add.kd", Some(cpu))),
        Status::InvalidSymbolName
    );
    assert!(exe.agent_symbols(cpu).is_empty());
    assert!(exe.program_symbols().is_empty());

    // Callbacks: all visited, or stopped by a status that is returned.
    let mut seen = Vec::new();
    assert_eq!(
        exe.iterate_symbols(|s| {
            seen.push(s);
            Status::Success
        }),
        Status::Success
    );
    assert_eq!(seen, exe.symbols());
    let mut n = 0;
    assert_eq!(
        exe.iterate_agent_symbols(g, |s| {
            n += 1;
            // Calling back into the executable is allowed.
            assert!(exe.symbol(s).is_ok());
            if n == 2 {
                Status::InfoBreak
            } else {
                Status::Success
            }
        }),
        Status::InfoBreak
    );
    assert_eq!(n, 2);
    assert_eq!(
        exe.iterate_program_symbols(|_| Status::Error),
        Status::Success
    );

    // The convenience lookup takes either name.
    assert_eq!(exe.kernel("vector_add").unwrap().name, "vector_add");
    assert_eq!(exe.kernel("vector_add.kd").unwrap().name, "vector_add");
    assert_eq!(
        exe.kernel("nope").unwrap_err().status,
        Status::InvalidSymbolName
    );
}

#[test]
fn handles_of_a_destroyed_executable_are_refused() {
    let rt = rt();
    let g = gpu(&rt);
    let before = rt.allocation_count();
    let a = load(&rt, &path(DEMO));
    let b = load(&rt, &path(DEMO));
    assert!(rt.allocation_count() > before);
    let s = a.get_symbol_by_name("saxpy.kd", Some(g)).unwrap();
    let raw = s.handle();
    let again = ExecutableSymbol::from_handle(raw);
    assert_eq!(
        rt.executable_symbol_info(again, SymbolInfo::Name).unwrap(),
        V::Text("saxpy.kd".into())
    );
    // Another executable's symbol.
    assert_eq!(
        status(b.symbol_info(again, SymbolInfo::Name)),
        Status::InvalidExecutableSymbol
    );
    // Forged handles.
    for h in [0, raw + 1000, raw & !0xffff_ffff, u64::MAX] {
        assert_eq!(
            status(rt.executable_symbol_info(ExecutableSymbol::from_handle(h), SymbolInfo::Type)),
            Status::InvalidExecutableSymbol,
            "{h:#x}"
        );
    }
    assert_ne!(a.handle(), b.handle());
    let base = a.loaded_code_objects()[0].load_base;
    assert!(rt.pointer_info(base).is_some());
    drop(a);
    assert!(
        rt.pointer_info(base).is_none(),
        "destroy frees the code object"
    );
    assert_eq!(
        status(rt.executable_symbol_info(again, SymbolInfo::KernelObject)),
        Status::InvalidExecutableSymbol
    );
    assert_eq!(
        status(rt.executable_symbol(again)),
        Status::InvalidExecutableSymbol
    );
    drop(b);
    assert_eq!(
        rt.allocation_count(),
        before,
        "destroy frees the code objects"
    );
}

fn f32s_at(p: u64, n: usize) -> Vec<f32> {
    let mut out = vec![0f32; n];
    // SAFETY: a CPU-mapped allocation of at least n f32s, kernels done.
    unsafe { std::ptr::copy_nonoverlapping(p as *const f32, out.as_mut_ptr(), n) };
    out
}

#[test]
fn dispatch_from_an_executable_of_two_code_objects() {
    let rt = rt();
    let g = gpu(&rt);
    let pool = rt.kernarg_pool().unwrap();
    // The variable the runtime provides: an int in system memory.
    let flag = rt.allocate(pool, 4).unwrap();
    // SAFETY: a fresh CPU-mapped allocation of 4 bytes.
    unsafe { (flag as *mut i32).write(3) };

    let exe = new_exe(&rt);
    exe.load_agent_code_object(&reader(&path(DEMO)), g, None)
        .unwrap();
    exe.define_agent_external_variable("runtime_provided_flag", g, flag)
        .unwrap();
    exe.load_agent_code_object(
        &reader(&corpus("relocations/globals-external-gfx90a-v5.co")),
        g,
        None,
    )
    .unwrap();
    exe.freeze(None).unwrap();
    assert_eq!(exe.loaded_code_objects().len(), 2);

    let q = rt
        .create_queue(g, 256, QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    let n = 256u32;

    // vector_add from the first code object.
    let va = exe
        .kernel_symbol(exe.get_symbol_by_name("vector_add.kd", Some(g)).unwrap())
        .unwrap();
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let pa = rt.allocate(pool, u64::from(n) * 4).unwrap();
    let pc = rt.allocate(pool, u64::from(n) * 4).unwrap();
    // SAFETY: fresh CPU-mapped allocations of n f32s.
    unsafe { std::ptr::copy_nonoverlapping(a.as_ptr(), pa as *mut f32, a.len()) };
    rt.dispatch(
        &q,
        &va,
        &[
            ArgValue::Pointer(pa),
            ArgValue::Pointer(pa),
            ArgValue::Pointer(pc),
            ArgValue::Bytes(n.to_le_bytes().to_vec()),
        ],
        &Geometry::linear(n, 64),
        Duration::from_secs(60),
    )
    .unwrap();
    let c = f32s_at(pc, n as usize);
    for i in 0..n as usize {
        assert_eq!(c[i], 2.0 * a[i], "vector_add c[{i}]");
    }

    // use_globals from the second: reads the runtime's flag through a
    // relocated pointer, the scale table through relocated pointers, and
    // counts launches in launch_counter (initially 7).
    let ug = exe
        .kernel_symbol(exe.get_symbol_by_name("use_globals.kd", Some(g)).unwrap())
        .unwrap();
    let out = rt.allocate(pool, u64::from(n) * 4).unwrap();
    rt.dispatch(
        &q,
        &ug,
        &[ArgValue::Pointer(out)],
        &Geometry::linear(n, 64),
        Duration::from_secs(60),
    )
    .unwrap();
    let o = f32s_at(out, n as usize);
    for (i, v) in o.iter().enumerate() {
        // scale_ptrs[i & 1][i & 1]: scale_table[0] = 1 or scale_table[3] = 8.
        let scale = if i & 1 == 0 { 1.0 } else { 8.0 };
        assert_eq!(*v, scale * 3.0, "use_globals out[{i}]");
    }
    let counter = match exe
        .symbol_info(
            exe.get_symbol_by_name("launch_counter", Some(g)).unwrap(),
            SymbolInfo::VariableAddress,
        )
        .unwrap()
    {
        V::U64(a) => a,
        other => panic!("{other:?}"),
    };
    // SAFETY: the variable's agent memory is CPU-mapped (the loader wrote
    // it), and the kernel is done.
    let count = unsafe { (counter as *const i32).read_volatile() };
    assert_eq!(count, 7 + n as i32);
}

/// The gfx90a code object of `host`'s `.hip_fatbin`, as
/// `clang-offload-bundler-19` extracts it (the oracle's view of the entry).
fn unbundle_gfx90a(host: &Path, tag: &str) -> PathBuf {
    let dir = std::env::temp_dir();
    let fatbin = dir.join(format!("exec-{tag}-{}.fatbin", std::process::id()));
    let co = dir.join(format!("exec-{tag}-{}.co", std::process::id()));
    let run = |cmd: &str, args: &[&str]| {
        let out = std::process::Command::new(cmd)
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {cmd} ({e}): apt-get install llvm-19 clang-19"));
        assert!(
            out.status.success(),
            "{cmd} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(
        "llvm-objcopy-19",
        &[
            &format!("--dump-section=.hip_fatbin={}", fatbin.display()),
            host.to_str().unwrap(),
        ],
    );
    run(
        "clang-offload-bundler-19",
        &[
            "--unbundle",
            "--type=o",
            &format!("--input={}", fatbin.display()),
            "--targets=hipv4-amdgcn-amd-amdhsa--gfx90a",
            &format!("--output={}", co.display()),
        ],
    );
    std::fs::remove_file(&fatbin).unwrap();
    co
}

#[test]
fn hip_fat_binary_from_hipcc() {
    // hipcc (HIP 5.2) output: gfx1030 and gfx90a entries, code object v4,
    // a mangled template kernel with LDS, weak HIP built-in variables
    // (module linkage), a .rodata variable (constant) and .data variables.
    let rt = rt();
    let g = gpu(&rt);
    let host = path("tests/hip/kernels-host.o");
    let exe = load(&rt, &host);
    let co = unbundle_gfx90a(&host, "hip");
    check_against_readelf(&exe, &co, g, &[]);
    std::fs::remove_file(&co).unwrap();
    let weak = exe
        .get_symbol_by_name("_ZN17__HIP_CoordinatesI14__HIP_BlockIdxE1xE", Some(g))
        .unwrap();
    assert_eq!(
        exe.symbol_info(weak, SymbolInfo::Linkage).unwrap(),
        V::Linkage(SymbolLinkage::Module)
    );
    exe.freeze(None).unwrap();

    let q = rt
        .create_queue(g, 256, QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    let n = 200u32;
    let pool = rt.kernarg_pool().unwrap();
    let p = rt.allocate(pool, u64::from(n) * 4).unwrap();
    let init: Vec<i32> = (0..n as i32).collect();
    // SAFETY: a fresh CPU-mapped allocation of n i32s.
    unsafe { std::ptr::copy_nonoverlapping(init.as_ptr(), p as *mut i32, init.len()) };
    let k = exe
        .kernel_symbol(exe.get_symbol_by_name("add_counter.kd", Some(g)).unwrap())
        .unwrap();
    let args = [
        ArgValue::Pointer(p),
        ArgValue::Bytes((n as i32).to_le_bytes().to_vec()),
    ];
    rt.dispatch(
        &q,
        &k,
        &args,
        &Geometry::linear(256, 64),
        Duration::from_secs(60),
    )
    .unwrap();
    let mut out = vec![0i32; n as usize];
    // SAFETY: n i32s, the kernel is done.
    unsafe { std::ptr::copy_nonoverlapping(p as *const i32, out.as_mut_ptr(), out.len()) };
    for (i, v) in out.iter().enumerate() {
        assert_eq!(*v, i as i32 + 5, "add_counter p[{i}]");
    }

    let f: Vec<f32> = (0..n).map(|i| i as f32 + 0.5).collect();
    // SAFETY: the same allocation, n f32s.
    unsafe { std::ptr::copy_nonoverlapping(f.as_ptr(), p as *mut f32, f.len()) };
    let k = exe
        .kernel_symbol(
            exe.get_symbol_by_name("_Z9scale_ldsIfEvPT_i.kd", Some(g))
                .unwrap(),
        )
        .unwrap();
    assert_eq!(k.group_segment_size, 1024);
    rt.dispatch(
        &q,
        &k,
        &args,
        &Geometry::linear(256, 256),
        Duration::from_secs(60),
    )
    .unwrap();
    let out = f32s_at(p, n as usize);
    for (i, v) in out.iter().enumerate() {
        let scale = if i & 1 == 0 { 2.0 } else { 3.0 };
        assert_eq!(*v, f[i] * scale, "scale_lds p[{i}]");
    }
}

#[test]
fn one_executable_for_two_agents() {
    // An MI250X module: two gfx90a GCDs.
    let _turn = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let rt = Runtime::init_with(|| {
        driver::open_sim_device(
            sim::SimBuilder::new()
                .board(sim::Board::Mi250x)
                .gpus(2)
                .vram(1 << 30)
                .build(),
        )
    })
    .unwrap();
    let gpus: Vec<Agent> = rt.gpu_agents().collect();
    assert_eq!(gpus.len(), 2, "a runtime left open by another test?");
    let (g0, g1) = (gpus[0], gpus[1]);

    let exe = new_exe(&rt);
    let demo = reader(&path(DEMO));
    exe.load_agent_code_object(&demo, g0, None).unwrap();
    // The same code object for another agent: its own symbols.
    exe.load_agent_code_object(&demo, g1, None).unwrap();
    let s0 = exe.get_symbol_by_name("vector_add.kd", Some(g0)).unwrap();
    let s1 = exe.get_symbol_by_name("vector_add.kd", Some(g1)).unwrap();
    assert_ne!(s0, s1);
    assert_eq!(
        exe.symbol_info(s1, SymbolInfo::Agent).unwrap(),
        V::Agent(Some(g1))
    );
    let loaded = exe.loaded_code_objects();
    assert_eq!(loaded.len(), 2);
    for (s, lo) in [(s0, &loaded[0]), (s1, &loaded[1])] {
        let V::U64(ko) = exe.symbol_info(s, SymbolInfo::KernelObject).unwrap() else {
            panic!()
        };
        assert!(ko >= lo.load_base && ko < lo.load_base + lo.load_size);
    }
    let per_agent = exe.agent_symbols(g0).len();
    assert_eq!(exe.agent_symbols(g1).len(), per_agent);
    // All symbols by name, then agent.
    let all = exe.symbols();
    assert_eq!(all.len(), 2 * per_agent);
    let keys: Vec<(String, Option<Agent>)> = all
        .iter()
        .map(|&s| {
            let r = exe.symbol(s).unwrap();
            (r.full_name.clone(), r.agent)
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    // The deprecated lookup: no module, agent symbol.
    assert_eq!(exe.get_symbol(None, "vector_add.kd", g1).unwrap(), s1);
    assert_eq!(exe.get_symbol(Some(""), "vector_add.kd", g0).unwrap(), s0);
    assert_eq!(
        status(exe.get_symbol(Some("m"), "vector_add.kd", g0)),
        Status::InvalidSymbolName
    );

    // An agent definition serves that agent only.
    let ext = reader(&corpus("relocations/globals-external-gfx90a-v5.co"));
    exe.define_agent_external_variable("runtime_provided_flag", g0, 0x1000)
        .unwrap();
    assert_eq!(
        status(exe.load_agent_code_object(&ext, g1, None)),
        Status::VariableUndefined
    );
    exe.load_agent_code_object(&ext, g0, None).unwrap();
    exe.freeze(None).unwrap();

    // Dispatch on the second GPU with its own kernel object.
    let k1 = exe.kernel_symbol(s1).unwrap();
    assert_eq!(k1.agent, g1);
    let q = rt
        .create_queue(g1, 256, QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    let pool = rt.kernarg_pool().unwrap();
    let n = 64u32;
    let a = rt.allocate(pool, u64::from(n) * 4).unwrap();
    let c = rt.allocate(pool, u64::from(n) * 4).unwrap();
    let v: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    // SAFETY: a fresh CPU-mapped allocation of n f32s.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), a as *mut f32, v.len()) };
    rt.dispatch(
        &q,
        &k1,
        &[
            ArgValue::Pointer(a),
            ArgValue::Pointer(a),
            ArgValue::Pointer(c),
            ArgValue::Bytes(n.to_le_bytes().to_vec()),
        ],
        &Geometry::linear(n, 64),
        Duration::from_secs(60),
    )
    .unwrap();
    let out = f32s_at(c, n as usize);
    for i in 0..n as usize {
        assert_eq!(out[i], 2.0 * v[i], "c[{i}]");
    }
}

#[test]
fn executables_and_readers_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Executable>();
    send_sync::<CodeObjectReader>();
    send_sync::<ExecutableSymbol>();
}

#[test]
fn corrupted_code_objects_fail_cleanly() {
    // Single-byte corruptions of the small gfx90a object after its program
    // headers (which decide the allocation: loader-core's fuzzers cover
    // them): every load succeeds or fails with a code-object status, and
    // leaves no memory behind.
    let rt = rt();
    let g = gpu(&rt);
    let before = rt.allocation_count();
    let small = std::fs::read(corpus("co/small-gfx90a-v5.co")).unwrap();
    let phnum = usize::from(u16::from_le_bytes([small[56], small[57]]));
    let first = 64 + 56 * phnum;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut ok, mut failed) = (0, 0);
    for _ in 0..400 {
        let mut bytes = small.clone();
        let at = first + (next() as usize) % (bytes.len() - first);
        bytes[at] ^= (next() as u8) | 1;
        let exe = new_exe(&rt);
        match exe.load_agent_code_object(&CodeObjectReader::from_memory(bytes).unwrap(), g, None) {
            Ok(_) => ok += 1,
            Err(e) => {
                failed += 1;
                assert!(
                    matches!(
                        e.status,
                        Status::InvalidCodeObject
                            | Status::IncompatibleArguments
                            | Status::InvalidIsaName
                            | Status::VariableUndefined
                    ),
                    "byte {at}: {e}"
                );
                assert!(exe.symbols().is_empty());
            }
        }
    }
    assert_eq!(rt.allocation_count(), before);
    assert!(ok > 0 && failed > 0, "{ok} loaded, {failed} refused");
}

#[test]
fn concurrent_loads_into_one_executable() {
    let rt = rt();
    let g = gpu(&rt);
    let exe = new_exe(&rt);
    let objects = [path(DEMO), corpus("relocations/globals-gfx90a-v5.co")];
    std::thread::scope(|s| {
        for p in &objects {
            let exe = &exe;
            s.spawn(move || exe.load_agent_code_object(&reader(p), g, None).unwrap());
        }
    });
    assert_eq!(exe.loaded_code_objects().len(), 2);
    assert!(exe.get_symbol_by_name("vector_add.kd", Some(g)).is_ok());
    assert!(exe.get_symbol_by_name("use_globals.kd", Some(g)).is_ok());
}

/// The bytes a loaded code object's URI names: a file's part, or this
/// process's memory.
fn bytes_named_by(uri: &str) -> Vec<u8> {
    let (base, frag) = uri.split_once('#').unwrap_or((uri, ""));
    let field = |k: &str| {
        frag.split('&')
            .find_map(|kv| kv.strip_prefix(k))
            .map(|v| match v.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16).unwrap(),
                None => v.parse().unwrap(),
            })
    };
    let size = field("size=").expect("a size") as usize;
    let offset = field("offset=").unwrap_or(0) as usize;
    if let Some(path) = base.strip_prefix("file://") {
        std::fs::read(path).unwrap()[offset..offset + size].to_vec()
    } else {
        assert!(
            base.starts_with(&format!("memory://{}", std::process::id())),
            "{uri}"
        );
        // SAFETY: the executable keeps the bytes its memory URI names.
        unsafe { std::slice::from_raw_parts(offset as *const u8, size) }.to_vec()
    }
}

/// A code object loaded out of an offload bundle (made by
/// clang-offload-bundler-19 around demo.co, after a host entry) gets a URI
/// naming that code object, not the bundle: the bundle file's part, the
/// bundle's part in memory, and for a compressed bundle the decompressed
/// code object the executable keeps. Each named range holds demo.co's bytes.
#[test]
fn a_code_object_from_a_bundle_gets_a_uri_of_its_own_bytes() {
    let demo = std::fs::read(path(DEMO)).unwrap();
    let dir = std::env::temp_dir().join(format!("exec-bundle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("host.o");
    std::fs::write(&empty, b"").unwrap();
    let bundle = |compress: bool| {
        let out = dir.join(if compress { "demo.ccob" } else { "demo.bundle" });
        let mut cmd = std::process::Command::new("clang-offload-bundler-19");
        cmd.arg("-type=o")
            .arg("-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx90a")
            .arg(format!("-input={}", empty.display()))
            .arg(format!("-input={}", path(DEMO).display()))
            .arg(format!("-output={}", out.display()));
        if compress {
            cmd.arg("-compress");
        }
        let st = cmd
            .status()
            .expect("clang-offload-bundler-19 (apt-get install clang-19)");
        assert!(st.success());
        out
    };
    let rt = rt();
    for compress in [false, true] {
        let file = bundle(compress);
        let bytes = std::fs::read(&file).unwrap();
        assert!(bytes.len() > demo.len() || compress);
        let from_file = CodeObjectReader::from_path(&file).unwrap();
        let from_memory = CodeObjectReader::from_memory(bytes).unwrap();
        for r in [&from_file, &from_memory] {
            let e = new_exe(&rt);
            let lo = e.load_agent_code_object(r, gpu(&rt), None).unwrap();
            if compress {
                assert!(lo.uri.starts_with("memory://"), "{}", lo.uri);
            } else {
                assert_ne!(lo.uri, r.uri(), "the entry's URI, not the bundle's");
            }
            assert!(bytes_named_by(&lo.uri) == demo, "{} names demo.co", lo.uri);
            e.freeze(None).unwrap();
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
