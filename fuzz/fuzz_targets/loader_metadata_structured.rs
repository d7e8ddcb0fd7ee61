//! Fuzz target, structure-aware: `NT_AMDGPU_METADATA` maps built from
//! `arbitrary` values (issue 17), so the numbers that break arithmetic —
//! 2^31, 2^32 - 1, 2^32, 2^63, u64::MAX, negatives, non-minimal encodings —
//! reach every numeric key of a well-formed map instead of being hoped for
//! from byte flips. Each map is encoded to MessagePack and
//!
//! 1. walked as a bare document (`walk::metadata`);
//! 2. put as the metadata note of a real code object (clang-19's
//!    `loader-core/corpus/co/small-gfx90a-v5.co`, whose kernel
//!    `vector_add` the generator names often, so the checks between
//!    metadata, symbols and the kernel descriptor run) and walked whole
//!    (`walk::code_object`) and loaded into fake agent memory
//!    (`walk::load`).
//!
//! Run: `cargo +nightly fuzz run loader_metadata_structured`. A crash
//! becomes a regression test: `cargo +nightly fuzz fmt` shows the map, and
//! its note goes under `loader-core/tests/malformed/`.
#![no_main]

#[path = "../../loader-core/tests/malformed/walk.rs"]
mod walk;

#[path = "../../loader-core/tests/malformed/craft.rs"]
mod craft;

use std::cell::RefCell;

use craft::{Encoder, UintForm};
use libfuzzer_sys::arbitrary::{self, Arbitrary};

/// The template object and its kernel's names.
const TEMPLATE: &[u8] = include_bytes!("../../loader-core/corpus/co/small-gfx90a-v5.co");
const KERNEL: &str = "vector_add";

/// Values at and around every width's limits.
const EDGES: &[u64] = &[
    0,
    1,
    2,
    3,
    4,
    8,
    16,
    31,
    32,
    63,
    64,
    65,
    127,
    128,
    255,
    256,
    257,
    288,
    1023,
    1024,
    1025,
    4095,
    4096,
    65535,
    65536,
    1 << 24,
    (1 << 31) - 1,
    1 << 31,
    (1 << 31) + 1,
    u32::MAX as u64 - 1,
    u32::MAX as u64,
    1 << 32,
    (1 << 32) + 1,
    1 << 53,
    i64::MAX as u64,
    1 << 63,
    u64::MAX - 1,
    u64::MAX,
];

/// A value where the map wants a number: mostly unsigned integers (edge
/// values weigh three times, as `arbitrary` picks variants uniformly),
/// sometimes another type.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Num {
    Edge(u8),
    Edge2(u8),
    Edge3(u8),
    Small(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    /// A value in a fixed (possibly non-minimal, possibly truncating) form.
    Form(u64, u8),
    Weird(Weird),
}

/// A value of the wrong type or sign.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Weird {
    Neg(i64),
    Float(f64),
    Bool(bool),
    Nil,
    Text(u8),
}

impl Num {
    fn value(self) -> Option<u64> {
        match self {
            Num::Edge(i) | Num::Edge2(i) | Num::Edge3(i) => {
                Some(EDGES[usize::from(i) % EDGES.len()])
            }
            Num::Small(v) => Some(u64::from(v)),
            Num::U16(v) => Some(u64::from(v)),
            Num::U32(v) => Some(u64::from(v)),
            Num::U64(v) | Num::Form(v, _) => Some(v),
            Num::Weird(_) => None,
        }
    }

    fn encode(self, e: &mut Encoder) {
        match self {
            Num::Form(v, f) => {
                let form =
                    [UintForm::U8, UintForm::U16, UintForm::U32, UintForm::U64][usize::from(f) % 4];
                e.uint_as(v, form);
            }
            Num::Weird(w) => match w {
                Weird::Neg(v) => {
                    e.int(v.min(-1));
                }
                Weird::Float(v) => {
                    e.f64(v);
                }
                Weird::Bool(b) => {
                    e.bool(b);
                }
                Weird::Nil => {
                    e.nil();
                }
                Weird::Text(i) => {
                    e.str(&EDGES[usize::from(i) % EDGES.len()].to_string());
                }
            },
            n => {
                e.uint(n.value().unwrap_or(0));
            }
        }
    }
}

/// A key whose few legal values gate every later check
/// (`.wavefront_size`, `.kernarg_segment_align`): usually legal.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Gate {
    First,
    Second,
    PowerOfTwo(u8),
    Any(Num),
}

impl Gate {
    fn num(self, first: u64, second: u64) -> Num {
        match self {
            Gate::First => Num::U64(first),
            Gate::Second => Num::U64(second),
            Gate::PowerOfTwo(s) => Num::U64(1u64 << (s % 64)),
            Gate::Any(n) => n,
        }
    }
}

/// A fixed-length numeric array, or one of another length.
#[derive(Arbitrary, Debug)]
enum Dims<const N: usize> {
    Exact([Num; N]),
    Other(Vec<Num>),
    NotArray(Num),
}

impl<const N: usize> Dims<N> {
    fn encode(&self, e: &mut Encoder) {
        match self {
            Dims::Exact(v) => {
                e.array(N as u32);
                v.iter().for_each(|n| n.encode(e));
            }
            Dims::Other(v) => {
                e.array(v.len() as u32);
                v.iter().for_each(|n| n.encode(e));
            }
            Dims::NotArray(n) => n.encode(e),
        }
    }
}

/// A string the format defines (by index), or any string.
#[derive(Arbitrary, Debug)]
enum Pick {
    Known(u8),
    Any(String),
}

impl Pick {
    fn encode(&self, e: &mut Encoder, known: &[&str]) {
        match self {
            Pick::Known(i) => e.str(known[usize::from(*i) % known.len()]),
            Pick::Any(s) => e.str(s),
        };
    }
}

const LANGUAGES: &[&str] = &[
    "OpenCL C",
    "OpenCL C++",
    "HCC",
    "HIP",
    "OpenMP",
    "Assembler",
];
const KINDS: &[&str] = &["normal", "init", "fini"];
const NAMES: &[&str] = &[KERNEL, "k", "vector_add.kd", ""];
const SYMBOLS: &[&str] = &["vector_add.kd", "k.kd", KERNEL, ""];
const VALUE_KINDS: &[&str] = &[
    "by_value",
    "global_buffer",
    "dynamic_shared_pointer",
    "sampler",
    "image",
    "pipe",
    "queue",
    "hidden_global_offset_x",
    "hidden_none",
    "hidden_printf_buffer",
    "hidden_hostcall_buffer",
    "hidden_multigrid_sync_arg",
    "hidden_block_count_x",
    "hidden_group_size_x",
    "hidden_remainder_x",
    "hidden_grid_dims",
    "hidden_heap_v1",
    "hidden_dynamic_lds_size",
    "hidden_private_base",
    "hidden_queue_ptr",
];
const VALUE_TYPES: &[&str] = &["struct", "i8", "u32", "f64"];
const ADDRESS_SPACES: &[&str] = &[
    "private", "global", "constant", "local", "generic", "region",
];
const ACCESS: &[&str] = &["read_only", "write_only", "read_write"];

/// One `.args` entry: every key optional, so both missing and present
/// required keys are generated.
#[derive(Arbitrary, Debug)]
struct Arg {
    size: Option<Num>,
    offset: Option<Num>,
    value_kind: Option<Pick>,
    value_type: Option<Pick>,
    pointee_align: Option<Num>,
    address_space: Option<Pick>,
    access: Option<Pick>,
    actual_access: Option<Pick>,
    name: Option<String>,
    is_const: Option<Num>,
    /// Write `.offset` a second time.
    duplicate_offset: bool,
}

impl Arg {
    fn encode(&self, e: &mut Encoder) {
        let mut pairs: Vec<(&str, Box<dyn Fn(&mut Encoder) + '_>)> = Vec::new();
        if let Some(n) = self.size {
            pairs.push((".size", Box::new(move |e| n.encode(e))));
        }
        if let Some(n) = self.offset {
            pairs.push((".offset", Box::new(move |e| n.encode(e))));
            if self.duplicate_offset {
                pairs.push((".offset", Box::new(move |e| n.encode(e))));
            }
        }
        if let Some(p) = &self.value_kind {
            pairs.push((".value_kind", Box::new(move |e| p.encode(e, VALUE_KINDS))));
        }
        if let Some(p) = &self.value_type {
            pairs.push((".value_type", Box::new(move |e| p.encode(e, VALUE_TYPES))));
        }
        if let Some(n) = self.pointee_align {
            pairs.push((".pointee_align", Box::new(move |e| n.encode(e))));
        }
        if let Some(p) = &self.address_space {
            pairs.push((
                ".address_space",
                Box::new(move |e| p.encode(e, ADDRESS_SPACES)),
            ));
        }
        if let Some(p) = &self.access {
            pairs.push((".access", Box::new(move |e| p.encode(e, ACCESS))));
        }
        if let Some(p) = &self.actual_access {
            pairs.push((".actual_access", Box::new(move |e| p.encode(e, ACCESS))));
        }
        if let Some(s) = &self.name {
            pairs.push((
                ".name",
                Box::new(move |e| {
                    e.str(s);
                }),
            ));
        }
        if let Some(n) = self.is_const {
            pairs.push((".is_const", Box::new(move |e| n.encode(e))));
        }
        e.map(pairs.len() as u32);
        for (k, v) in &pairs {
            e.str(k);
            v(e);
        }
    }
}

/// One kernel map: the required numeric keys always have a value (so the
/// cross-key checks run), and `omit` can drop one of them.
#[derive(Arbitrary, Debug)]
struct Kernel {
    name: Pick,
    symbol: Pick,
    kernarg_segment_size: Num,
    kernarg_segment_align: Gate,
    group_segment_fixed_size: Num,
    private_segment_fixed_size: Num,
    wavefront_size: Gate,
    sgpr_count: Num,
    vgpr_count: Num,
    max_flat_workgroup_size: Num,
    agpr_count: Option<Num>,
    sgpr_spill_count: Option<Num>,
    vgpr_spill_count: Option<Num>,
    reqd_workgroup_size: Option<Dims<3>>,
    workgroup_size_hint: Option<Dims<3>>,
    language: Option<Pick>,
    language_version: Option<Dims<2>>,
    uses_dynamic_stack: Option<Num>,
    workgroup_processor_mode: Option<Num>,
    uniform_work_group_size: Option<Num>,
    kind: Option<Pick>,
    max_num_workgroups: [Option<Num>; 3],
    cluster_dims: Option<Dims<3>>,
    args: Option<Vec<Arg>>,
    /// Index of a key to leave out (beyond the count: none).
    omit: u8,
}

impl Kernel {
    fn encode(&self, e: &mut Encoder) {
        let mut pairs: Vec<(&str, Box<dyn Fn(&mut Encoder) + '_>)> = vec![
            (".name", Box::new(|e| self.name.encode(e, NAMES))),
            (".symbol", Box::new(|e| self.symbol.encode(e, SYMBOLS))),
        ];
        for (key, n) in [
            (".kernarg_segment_size", self.kernarg_segment_size),
            (
                ".kernarg_segment_align",
                self.kernarg_segment_align.num(8, 16),
            ),
            (".group_segment_fixed_size", self.group_segment_fixed_size),
            (
                ".private_segment_fixed_size",
                self.private_segment_fixed_size,
            ),
            (".wavefront_size", self.wavefront_size.num(64, 32)),
            (".sgpr_count", self.sgpr_count),
            (".vgpr_count", self.vgpr_count),
            (".max_flat_workgroup_size", self.max_flat_workgroup_size),
        ] {
            pairs.push((key, Box::new(move |e| n.encode(e))));
        }
        for (key, n) in [
            (".agpr_count", self.agpr_count),
            (".sgpr_spill_count", self.sgpr_spill_count),
            (".vgpr_spill_count", self.vgpr_spill_count),
            (".uses_dynamic_stack", self.uses_dynamic_stack),
            (".workgroup_processor_mode", self.workgroup_processor_mode),
            (".uniform_work_group_size", self.uniform_work_group_size),
            (".max_num_workgroups_x", self.max_num_workgroups[0]),
            (".max_num_workgroups_y", self.max_num_workgroups[1]),
            (".max_num_workgroups_z", self.max_num_workgroups[2]),
        ] {
            if let Some(n) = n {
                pairs.push((key, Box::new(move |e| n.encode(e))));
            }
        }
        for (key, d) in [
            (".reqd_workgroup_size", &self.reqd_workgroup_size),
            (".workgroup_size_hint", &self.workgroup_size_hint),
            (".cluster_dims", &self.cluster_dims),
        ] {
            if let Some(d) = d {
                pairs.push((key, Box::new(move |e| d.encode(e))));
            }
        }
        if let Some(d) = &self.language_version {
            pairs.push((".language_version", Box::new(move |e| d.encode(e))));
        }
        if let Some(p) = &self.language {
            pairs.push((".language", Box::new(move |e| p.encode(e, LANGUAGES))));
        }
        if let Some(p) = &self.kind {
            pairs.push((".kind", Box::new(move |e| p.encode(e, KINDS))));
        }
        if let Some(args) = &self.args {
            pairs.push((
                ".args",
                Box::new(move |e| {
                    e.array(args.len() as u32);
                    args.iter().for_each(|a| a.encode(e));
                }),
            ));
        }
        let omit = usize::from(self.omit);
        if omit < pairs.len() {
            let _omitted = pairs.remove(omit);
        }
        e.map(pairs.len() as u32);
        for (k, v) in &pairs {
            e.str(k);
            v(e);
        }
    }
}

/// An `amdhsa.printf` entry: `ID:N:S0:...:format`, its numbers generated.
#[derive(Arbitrary, Debug)]
enum Printf {
    Parts {
        id: Num,
        count: Num,
        sizes: Vec<Num>,
        format: String,
    },
    Raw(String),
}

fn num_text(n: Num) -> String {
    match n {
        Num::Weird(Weird::Neg(v)) => v.to_string(),
        Num::Weird(Weird::Float(v)) => v.to_string(),
        Num::Weird(Weird::Bool(b)) => b.to_string(),
        Num::Weird(Weird::Nil) => String::new(),
        Num::Weird(Weird::Text(_)) => "x".to_string(),
        n => n.value().unwrap_or(0).to_string(),
    }
}

/// The whole map.
#[derive(Arbitrary, Debug)]
struct Doc {
    version: Option<Dims<2>>,
    /// Write the version LLVM writes for code object v5 ([1, 2]) instead.
    valid_version: bool,
    target: Option<Pick>,
    printf: Option<Vec<Printf>>,
    globals: Option<Vec<(Pick, Num)>>,
    kernels: Option<Vec<Kernel>>,
}

impl Doc {
    fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::new();
        let n = [
            self.version.is_some() || self.valid_version,
            self.target.is_some(),
            self.printf.is_some(),
            self.globals.is_some(),
            self.kernels.is_some(),
        ]
        .iter()
        .filter(|&&b| b)
        .count();
        e.map(n as u32);
        if self.valid_version {
            e.str("amdhsa.version").array(2).uint(1).uint(2);
        } else if let Some(v) = &self.version {
            e.str("amdhsa.version");
            v.encode(&mut e);
        }
        if let Some(t) = &self.target {
            e.str("amdhsa.target");
            t.encode(
                &mut e,
                &["amdgcn-amd-amdhsa--gfx90a", "amdgcn-amd-amdhsa--gfx900"],
            );
        }
        if let Some(p) = &self.printf {
            e.str("amdhsa.printf").array(p.len() as u32);
            for p in p {
                match p {
                    Printf::Parts {
                        id,
                        count,
                        sizes,
                        format,
                    } => {
                        let mut s = format!("{}:{}", num_text(*id), num_text(*count));
                        for size in sizes {
                            s.push(':');
                            s.push_str(&num_text(*size));
                        }
                        s.push(':');
                        s.push_str(format);
                        e.str(&s);
                    }
                    Printf::Raw(s) => {
                        e.str(s);
                    }
                }
            }
        }
        if let Some(g) = &self.globals {
            e.str("amdhsa.globals").array(g.len() as u32);
            for (name, size) in g {
                e.map(2).str(".name");
                name.encode(&mut e, &["runtime_provided_flag", "g"]);
                e.str(".size");
                size.encode(&mut e);
            }
        }
        if let Some(k) = &self.kernels {
            e.str("amdhsa.kernels").array(k.len() as u32);
            for k in k {
                k.encode(&mut e);
            }
        }
        e.out
    }
}

thread_local! {
    /// The load driver's fake agent memory, allocated once.
    static MEMORY: RefCell<Vec<u8>> = RefCell::new(vec![0; 1 << 20]);
}

/// `ROCR_FUZZ_DUMP=<dir>`: write each encoded map there as
/// `<n>.msgpack` (to turn a crash input into a replayable note).
fn dump(desc: &[u8]) {
    static DIR: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    if let Some(dir) = DIR.get_or_init(|| std::env::var_os("ROCR_FUZZ_DUMP").map(Into::into)) {
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let _ = std::fs::write(dir.join(format!("{n}.msgpack")), desc);
    }
}

libfuzzer_sys::fuzz_target!(|doc: Doc| {
    let desc = doc.encode();
    dump(&desc);
    let _ = walk::metadata(&desc);
    if let Some(elf) = craft::with_metadata(TEMPLATE, &desc) {
        let _ = walk::code_object(&elf);
        MEMORY.with(|m| {
            let _ = walk::load(&elf, &mut m.borrow_mut());
        });
    }
});
