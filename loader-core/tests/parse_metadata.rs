//! The v3+ metadata views against `llvm-readelf-19 --notes`.
//!
//! OpenCL kernels that exercise most metadata keys (qualified pointers,
//! dynamic LDS, by-value structs, required / hinted work-group sizes, vector
//! type hints, images, samplers, pipes, printf, implicit arguments) are
//! compiled with clang-19 for code-object v4, v5 and v6 and several
//! processors. Our typed views are printed back as the YAML that
//! llvm-readelf prints (keys sorted, one line per scalar), and the two texts
//! must be equal line for line after whitespace and quotes are normalised.
//! A key LLVM emits that our views drop, or a value we decode differently,
//! fails the test.

use loader_core::ErrorKind;
use loader_core::elf::ElfFile;
use loader_core::metadata::{Kernel, KernelArg, Metadata, Printf, ValueKind};
use loader_core::msgpack::{self, Position, Value, Visitor};
use std::path::{Path, PathBuf};
use std::process::Command;

const CL2: &str = r#"
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
int printf(__constant const char *fmt, ...);
__global char *__printf_alloc(uint bytes) { return (__global char *)0; }
typedef struct { int a; float b; long c; } pod_t;
__kernel void vadd(__global const float *restrict a, __global volatile float *b, __global float *c, int n) {
  int i = __builtin_amdgcn_workitem_id_x() + __builtin_amdgcn_workgroup_id_x() * 64;
  if (i < n) c[i] = a[i] + b[i];
}
__attribute__((reqd_work_group_size(64, 1, 1))) __attribute__((vec_type_hint(float4)))
__kernel void lds(__global int *out, __local int *scratch, pod_t s) {
  int l = __builtin_amdgcn_workitem_id_x();
  scratch[l] = s.a + l;
  __builtin_amdgcn_s_barrier();
  out[l] = scratch[63 - l] + (int)s.c;
}
__attribute__((work_group_size_hint(32, 2, 1)))
__kernel void imgs(read_only image2d_t src, write_only image2d_t dst, sampler_t smp, __global int *o) { o[0] = 1; }
__kernel void pipes(read_only pipe int p, write_only pipe float4 q, __global int *o) { o[0] = 2; }
__kernel void pr(__global int *o, int x) { printf("x=%d y=%s:%f\n", x, "s", 1.5f); o[0] = x; }
__kernel void implicit(__global uint *o) {
  __constant uint *p = (__constant uint *)__builtin_amdgcn_implicitarg_ptr();
  o[0] = p[0] + p[1] + p[2] + p[6];
}
__kernel void many(char a0, uchar a1, short a2, ushort a3, int a4, uint a5, long a6, ulong a7, float a8,
                   double a9, float2 a10, int4 a11, double3 a12, half a13, __global char *a14,
                   __constant int *a15, __local float4 *a16, __local double *a17, char16 a18, long8 a19,
                   __global long *out) {
  out[0] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + (long)a8 + (long)a9 + a10.x + a11.y + a12.z + a14[0]
           + a15[0] + a18.s3 + a19.s7;
}
"#;

const CL12: &str = r#"
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void uniform(__global float *o, float k) { o[__builtin_amdgcn_workitem_id_x()] *= k; }
"#;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("loader-parse-md-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(cmd: &mut Command) -> Vec<u8> {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e} (install clang-19 / llvm-19)"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn build(name: &str, src: &str, std: &str, mcpu: &str, cov: u32) -> (Vec<u8>, PathBuf) {
    let d = tmp(name);
    let cl = d.join("k.cl");
    let obj = d.join("k.o");
    let so = d.join("k.so");
    std::fs::write(&cl, src).unwrap();
    run(Command::new("clang-19")
        .args([
            "-x",
            "cl",
            "-target",
            "amdgcn-amd-amdhsa",
            "-nogpulib",
            "-O2",
        ])
        .arg(format!("-cl-std={std}"))
        .arg(format!("-mcpu={mcpu}"))
        .arg(format!("-mcode-object-version={cov}"))
        .arg("-c")
        .arg(&cl)
        .arg("-o")
        .arg(&obj));
    run(Command::new("clang-19")
        .args(["-target", "amdgcn-amd-amdhsa"])
        .arg(format!("-mcpu={mcpu}"))
        .arg(&obj)
        .arg("-o")
        .arg(&so));
    (std::fs::read(&so).unwrap(), so)
}

/// llvm-readelf's YAML for the metadata note, normalised.
fn llvm_yaml(path: &Path) -> Vec<String> {
    let text = String::from_utf8(run(Command::new("llvm-readelf-19")
        .arg("--notes")
        .arg(path)))
    .unwrap();
    let start = text
        .find("AMDGPU Metadata:")
        .expect("no AMDGPU Metadata in llvm-readelf output");
    text[start..]
        .lines()
        .skip(1)
        .map(normalise)
        .filter(|l| !l.is_empty() && l != "---")
        .take_while(|l| l != "...")
        .collect()
}

fn normalise(l: &str) -> String {
    l.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('\'', "")
}

type Entry = (&'static str, Vec<String>);

fn scalar(out: &mut Vec<Entry>, key: &'static str, v: impl ToString) {
    out.push((key, vec![format!("{key}: {}", v.to_string())]));
}

fn list(out: &mut Vec<Entry>, key: &'static str, vs: &[u32]) {
    let mut lines = vec![format!("{key}:")];
    lines.extend(vs.iter().map(|v| format!("- {v}")));
    out.push((key, lines));
}

/// Sorted map entries as list-item lines: the first gets the `- ` prefix.
fn item(mut entries: Vec<Entry>) -> Vec<String> {
    entries.sort_by(|a, b| a.0.cmp(b.0));
    let mut lines: Vec<String> = entries.into_iter().flat_map(|e| e.1).collect();
    if let Some(first) = lines.first_mut() {
        *first = format!("- {first}");
    }
    lines
}

fn arg_yaml(a: &KernelArg) -> Vec<String> {
    let mut e = Vec::new();
    if let Some(v) = a.name {
        scalar(&mut e, ".name", v);
    }
    if let Some(v) = a.type_name {
        scalar(&mut e, ".type_name", v);
    }
    scalar(&mut e, ".size", a.size);
    scalar(&mut e, ".offset", a.offset);
    scalar(&mut e, ".value_kind", a.value_kind);
    if let Some(v) = a.value_type {
        scalar(&mut e, ".value_type", v);
    }
    if let Some(v) = a.pointee_align {
        scalar(&mut e, ".pointee_align", v);
    }
    if let Some(v) = a.address_space {
        scalar(&mut e, ".address_space", v);
    }
    if let Some(v) = a.access {
        scalar(&mut e, ".access", v);
    }
    if let Some(v) = a.actual_access {
        scalar(&mut e, ".actual_access", v);
    }
    for (k, v) in [
        (".is_const", a.is_const),
        (".is_restrict", a.is_restrict),
        (".is_volatile", a.is_volatile),
        (".is_pipe", a.is_pipe),
    ] {
        if let Some(v) = v {
            scalar(&mut e, k, v);
        }
    }
    item(e)
}

fn kernel_yaml(k: &Kernel) -> Vec<String> {
    let mut e = Vec::new();
    scalar(&mut e, ".name", k.name);
    scalar(&mut e, ".symbol", k.symbol);
    if let Some(v) = k.language {
        scalar(&mut e, ".language", v);
    }
    if let Some(v) = k.language_version {
        list(&mut e, ".language_version", &v);
    }
    if k.arg_count() > 0 {
        let mut lines = vec![".args:".to_owned()];
        for a in k.args() {
            lines.extend(arg_yaml(&a.unwrap()));
        }
        e.push((".args", lines));
    }
    scalar(&mut e, ".kernarg_segment_size", k.kernarg_segment_size);
    scalar(&mut e, ".kernarg_segment_align", k.kernarg_segment_align);
    scalar(
        &mut e,
        ".group_segment_fixed_size",
        k.group_segment_fixed_size,
    );
    scalar(
        &mut e,
        ".private_segment_fixed_size",
        k.private_segment_fixed_size,
    );
    if let Some(v) = k.uses_dynamic_stack {
        scalar(&mut e, ".uses_dynamic_stack", v);
    }
    if let Some(v) = k.workgroup_processor_mode {
        scalar(&mut e, ".workgroup_processor_mode", v);
    }
    scalar(&mut e, ".wavefront_size", k.wavefront_size);
    scalar(&mut e, ".sgpr_count", k.sgpr_count);
    scalar(&mut e, ".vgpr_count", k.vgpr_count);
    if let Some(v) = k.agpr_count {
        scalar(&mut e, ".agpr_count", v);
    }
    if let Some(v) = k.sgpr_spill_count {
        scalar(&mut e, ".sgpr_spill_count", v);
    }
    if let Some(v) = k.vgpr_spill_count {
        scalar(&mut e, ".vgpr_spill_count", v);
    }
    scalar(
        &mut e,
        ".max_flat_workgroup_size",
        k.max_flat_workgroup_size,
    );
    if let Some(v) = k.reqd_workgroup_size {
        list(&mut e, ".reqd_workgroup_size", &v);
    }
    if let Some(v) = k.workgroup_size_hint {
        list(&mut e, ".workgroup_size_hint", &v);
    }
    if let Some(v) = k.vec_type_hint {
        scalar(&mut e, ".vec_type_hint", v);
    }
    if let Some(v) = k.device_enqueue_symbol {
        scalar(&mut e, ".device_enqueue_symbol", v);
    }
    if let Some(v) = k.kind {
        scalar(&mut e, ".kind", v);
    }
    if let Some(v) = k.uniform_work_group_size {
        scalar(&mut e, ".uniform_work_group_size", v);
    }
    if let Some(v) = k.max_num_workgroups {
        // LLVM writes only the non-zero dimensions.
        for (key, v) in [
            (".max_num_workgroups_x", v[0]),
            (".max_num_workgroups_y", v[1]),
            (".max_num_workgroups_z", v[2]),
        ] {
            if v != 0 {
                scalar(&mut e, key, v);
            }
        }
    }
    if let Some(v) = k.cluster_dims {
        list(&mut e, ".cluster_dims", &v);
    }
    item(e)
}

fn our_yaml(md: &Metadata, raw_printf: &[String]) -> Vec<String> {
    let mut top: Vec<Entry> = Vec::new();
    let mut lines = vec!["amdhsa.kernels:".to_owned()];
    for k in md.kernels() {
        lines.extend(kernel_yaml(&k.unwrap()));
    }
    top.push(("amdhsa.kernels", lines));
    if !raw_printf.is_empty() {
        let mut lines = vec!["amdhsa.printf:".to_owned()];
        lines.extend(raw_printf.iter().map(|s| format!("- {s}")));
        top.push(("amdhsa.printf", lines));
    }
    if let Some(t) = md.target() {
        scalar(&mut top, "amdhsa.target", t);
    }
    list(&mut top, "amdhsa.version", &md.version());
    top.sort_by(|a, b| a.0.cmp(b.0));
    top.into_iter()
        .flat_map(|e| e.1)
        .map(|l| normalise(&l))
        .collect()
}

fn metadata_of(bytes: &[u8]) -> Metadata<'_> {
    let f = ElfFile::parse(bytes).unwrap();
    Metadata::from_elf(&f)
        .unwrap()
        .expect("no NT_AMDGPU_METADATA note")
}

fn check(name: &str, src: &str, std: &str, mcpu: &str, cov: u32) -> (Vec<u8>, PathBuf) {
    let (bytes, path) = build(name, src, std, mcpu, cov);
    let md = metadata_of(&bytes);
    md.check_against(&ElfFile::parse(&bytes).unwrap()).unwrap();
    // printf strings are compared as written; their parse is checked below.
    let printf: Vec<String> = md
        .map()
        .get("amdhsa.printf")
        .unwrap()
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .map(|v| v.unwrap().as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default();
    for (p, raw) in md.printf().zip(&printf) {
        let p = p.unwrap();
        assert!(raw.starts_with(&format!("{}:{}:", p.id, p.arg_count)));
        assert_eq!(p.arg_sizes().count() as u32, p.arg_count);
        assert!(raw.ends_with(p.format));
    }
    let ours = our_yaml(&md, &printf);
    let llvm = llvm_yaml(&path);
    if ours != llvm {
        let first = ours
            .iter()
            .zip(&llvm)
            .position(|(a, b)| a != b)
            .unwrap_or(ours.len().min(llvm.len()));
        panic!(
            "{name}: metadata differs from llvm-readelf at line {first}:\n ours: {:?}\n llvm: {:?}",
            &ours[first.saturating_sub(3)..(first + 3).min(ours.len())],
            &llvm[first.saturating_sub(3)..(first + 3).min(llvm.len())]
        );
    }
    (bytes, path)
}

#[test]
fn metadata_equals_llvm_readelf() {
    for (mcpu, cov) in [
        ("gfx90a", 4),
        ("gfx90a", 5),
        ("gfx942", 5),
        ("gfx1030", 5),
        ("gfx1100", 6),
        ("gfx900", 4),
    ] {
        check(&format!("cl2-{mcpu}-{cov}"), CL2, "CL2.0", mcpu, cov);
        check(&format!("cl12-{mcpu}-{cov}"), CL12, "CL1.2", mcpu, cov);
    }
    // A generic target (v6).
    check("generic", CL12, "CL1.2", "gfx10-3-generic", 6);
}

#[test]
fn typed_values() {
    let (bytes, _) = build("typed", CL2, "CL2.0", "gfx90a", 5);
    let md = metadata_of(&bytes);
    assert_eq!(md.version(), [1, 2]);
    assert_eq!(md.target(), Some("amdgcn-amd-amdhsa--gfx90a"));
    let lds = md.kernel("lds").unwrap().unwrap();
    assert_eq!(md.kernel_by_symbol("lds.kd").unwrap().unwrap().name, "lds");
    assert!(md.kernel_by_symbol("lds").unwrap().is_none());
    assert_eq!(lds.reqd_workgroup_size, Some([64, 1, 1]));
    assert_eq!(lds.vec_type_hint, Some("float4"));
    let scratch = lds.args().nth(1).unwrap().unwrap();
    assert_eq!(scratch.value_kind, ValueKind::DynamicSharedPointer);
    assert_eq!(scratch.pointee_align, Some(4));
    let imp = md.kernel("implicit").unwrap().unwrap();
    let hidden: Vec<ValueKind> = imp
        .args()
        .map(|a| a.unwrap().value_kind)
        .filter(|k| k.is_hidden())
        .collect();
    assert!(hidden.contains(&ValueKind::HiddenBlockCountX), "{hidden:?}");
    assert!(hidden.contains(&ValueKind::HiddenGroupSizeX), "{hidden:?}");
    let pr: Vec<Printf> = md.printf().map(Result::unwrap).collect();
    assert_eq!(pr.len(), 1);
    assert_eq!(pr[0].arg_sizes().collect::<Vec<_>>(), [4, 4, 4]);
    assert_eq!(md.kernels().count(), 7);
}

/// A visitor that prints the map as JSON with the exact MessagePack keys,
/// as a tool would; its output is checked against the typed views.
struct Json(String);
impl<'a> Visitor<'a> for Json {
    fn scalar(&mut self, pos: Position, v: Value<'a>) -> loader_core::Result<()> {
        self.sep(pos);
        match v {
            Value::Str(s) => self.0.push_str(&format!("{s:?}")),
            Value::UInt(u) => self.0.push_str(&u.to_string()),
            Value::Int(i) => self.0.push_str(&i.to_string()),
            Value::Bool(b) => self.0.push_str(&b.to_string()),
            other => self.0.push_str(&format!("\"{other:?}\"")),
        }
        if matches!(pos, Position::Key(_)) {
            self.0.push(':');
        }
        Ok(())
    }
    fn begin_array(&mut self, pos: Position, _: u32) -> loader_core::Result<()> {
        self.sep(pos);
        self.0.push('[');
        Ok(())
    }
    fn end_array(&mut self) -> loader_core::Result<()> {
        self.0.push(']');
        Ok(())
    }
    fn begin_map(&mut self, pos: Position, _: u32) -> loader_core::Result<()> {
        self.sep(pos);
        self.0.push('{');
        Ok(())
    }
    fn end_map(&mut self) -> loader_core::Result<()> {
        self.0.push('}');
        Ok(())
    }
}
impl Json {
    fn sep(&mut self, pos: Position) {
        match pos {
            Position::Element(i) | Position::Key(i) if i > 0 => self.0.push(','),
            _ => {}
        }
    }
}

#[test]
fn visitor_walks_the_whole_map() {
    let (bytes, _) = build("walk", CL2, "CL2.0", "gfx90a", 5);
    let f = ElfFile::parse(&bytes).unwrap();
    let note = f
        .notes()
        .map(Result::unwrap)
        .find(|n| n.is_amdgpu_metadata())
        .unwrap();
    let mut j = Json(String::new());
    msgpack::walk(note.desc, &mut j).unwrap();
    let json = j.0;
    assert!(json.starts_with("{\"amdhsa.kernels\":[{"), "{json}");
    assert!(json.contains("\".name\":\"vadd\""));
    assert!(json.contains("\"amdhsa.version\":[1,2]"));
    assert_eq!(json.matches('{').count(), json.matches('}').count());
}

#[test]
fn malformed_metadata_is_a_typed_error_at_the_key() {
    // {"amdhsa.version": [1, 2], "amdhsa.kernels": [{".name": 5}]}
    let mut doc = vec![0x82];
    doc.push(0xae);
    doc.extend_from_slice(b"amdhsa.version");
    doc.extend_from_slice(&[0x92, 1, 2]);
    doc.push(0xae);
    doc.extend_from_slice(b"amdhsa.kernels");
    doc.extend_from_slice(&[0x91, 0x81, 0xa5]);
    doc.extend_from_slice(b".name");
    doc.push(5);
    let md = Metadata::parse(&doc).unwrap();
    let e = md.kernels().next().unwrap().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Malformed);
    assert_eq!(e.to_string(), "kernel 0 `.name`: expected a string");
    // Missing amdhsa.kernels.
    let e = Metadata::parse(&doc[..19]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Truncated);
    let mut only_version = doc[..19].to_vec();
    only_version[0] = 0x81;
    let e = Metadata::parse(&only_version).unwrap_err();
    assert_eq!(e.to_string(), "`amdhsa.kernels`: required key is missing");
    // Every truncation of a real note fails cleanly or parses.
    let (bytes, _) = build("trunc", CL2, "CL2.0", "gfx90a", 5);
    let f = ElfFile::parse(&bytes).unwrap();
    let note = f
        .notes()
        .map(Result::unwrap)
        .find(|n| n.is_amdgpu_metadata())
        .unwrap();
    for n in 0..note.desc.len() {
        assert!(
            Metadata::parse(&note.desc[..n]).is_err(),
            "prefix {n} parsed"
        );
    }
}
