//! Kernarg layouts of real code objects (runtime/tests/kernels, built by its
//! build.sh with clang-19 and hipcc), checked against what llvm-readelf-19
//! says of the same metadata (the recorded `*.notes.txt`), and the bytes
//! `build` writes at the offsets readelf gives, against values computed from
//! the AMDGPUUsage definitions of each hidden argument.

use loader_core::elf::ElfFile;
use loader_core::metadata::Metadata;
use runtime::argspec::{ArgSpec, check_all};
use runtime::kernarg::{
    ArgKind, ArgValue, Geometry, HiddenValues, Kernarg, KernargError, KernargLayout, build,
};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/kernels")
}

/// One `.args` entry as llvm-readelf prints it.
#[derive(Debug, Clone, Default)]
struct ReadelfArg {
    fields: BTreeMap<String, String>,
}

impl ReadelfArg {
    fn get(&self, k: &str) -> Option<&str> {
        self.fields.get(k).map(String::as_str)
    }
    fn num(&self, k: &str) -> u32 {
        self.get(k)
            .unwrap_or_else(|| panic!("{k} missing"))
            .parse()
            .unwrap()
    }
}

#[derive(Debug, Clone, Default)]
struct ReadelfKernel {
    fields: BTreeMap<String, String>,
    args: Vec<ReadelfArg>,
}

impl ReadelfKernel {
    fn num(&self, k: &str) -> u32 {
        self.fields[k].parse().unwrap()
    }
    /// The offset readelf gives for the hidden argument of `kind`.
    fn hidden(&self, kind: &str) -> Option<usize> {
        self.args
            .iter()
            .find(|a| a.get(".value_kind") == Some(kind))
            .map(|a| a.num(".offset") as usize)
    }
    fn explicit(&self) -> Vec<&ReadelfArg> {
        self.args
            .iter()
            .filter(|a| !a.get(".value_kind").unwrap().starts_with("hidden_"))
            .collect()
    }
}

/// The `amdhsa.kernels` list of `llvm-readelf-19 --notes` YAML: kernels
/// start at indent 2 (`  - `), their keys are at indent 4, `.args` entries
/// start at indent 6 (`      - `) with keys at indent 8.
fn readelf_kernels(notes: &str) -> BTreeMap<String, ReadelfKernel> {
    let mut out = BTreeMap::new();
    let mut cur: Option<ReadelfKernel> = None;
    let mut in_kernels = false;
    // Whether the kernel key being read is `.args` (other keys, such as
    // `.language_version`, have list items at indent 6 too).
    let mut in_args = false;
    let finish = |k: Option<ReadelfKernel>, out: &mut BTreeMap<String, ReadelfKernel>| {
        if let Some(k) = k {
            out.insert(k.fields[".name"].clone(), k);
        }
    };
    for line in notes.lines() {
        if line.starts_with("amdhsa.kernels:") {
            in_kernels = true;
            continue;
        }
        if !line.starts_with(' ') {
            in_kernels = false;
            finish(cur.take(), &mut out);
            continue;
        }
        if !in_kernels {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let mut body = line.trim_start();
        let mut key_indent = indent;
        if let Some(rest) = body.strip_prefix("- ") {
            body = rest;
            key_indent += 2;
            if indent == 2 {
                finish(cur.take(), &mut out);
                cur = Some(ReadelfKernel::default());
            } else if indent == 6 {
                if !in_args {
                    continue;
                }
                cur.as_mut().unwrap().args.push(ReadelfArg::default());
            }
        }
        let Some((k, v)) = body.split_once(':') else {
            continue;
        };
        // readelf tags strings YAML would read as something else (`n` is a
        // YAML 1.1 boolean): `.name: !str n`.
        let v = v.trim();
        let v = v.strip_prefix("!str ").unwrap_or(v);
        let v = v.trim_matches('\'').to_owned();
        let k = k.to_owned();
        let kernel = cur.as_mut().unwrap();
        match key_indent {
            4 => {
                in_args = k == ".args";
                kernel.fields.insert(k, v);
            }
            8 => {
                kernel.args.last_mut().unwrap().fields.insert(k, v);
            }
            _ => {}
        }
    }
    finish(cur.take(), &mut out);
    out
}

struct CodeObject {
    data: Vec<u8>,
    readelf: BTreeMap<String, ReadelfKernel>,
}

fn code_object(name: &str) -> CodeObject {
    let data = std::fs::read(dir().join(format!("{name}.co"))).unwrap();
    let notes = std::fs::read_to_string(dir().join(format!("{name}.notes.txt"))).unwrap();
    CodeObject {
        data,
        readelf: readelf_kernels(&notes),
    }
}

impl CodeObject {
    fn layout(&self, kernel: &str) -> KernargLayout {
        let elf = ElfFile::parse(&self.data).unwrap();
        let md = Metadata::from_elf(&elf).unwrap().unwrap();
        let k = md.kernel(kernel).unwrap().unwrap();
        KernargLayout::from_metadata(&k).unwrap()
    }
}

const ALL: [&str; 5] = [
    "kernarg-gfx90a-v4",
    "kernarg-gfx90a-v5",
    "apertures-gfx803-v5",
    "hip-gfx90a-default",
    "hip-gfx90a-v5",
];

#[test]
fn layouts_match_readelf() {
    let mut kernels = 0;
    for name in ALL {
        let co = code_object(name);
        assert!(!co.readelf.is_empty(), "{name}: readelf lists no kernel");
        for (kname, rk) in &co.readelf {
            kernels += 1;
            let l = co.layout(kname);
            let at = format!("{name} {kname}");
            assert_eq!(l.kernel, *kname);
            assert_eq!(l.segment_size, rk.num(".kernarg_segment_size"), "{at}");
            assert_eq!(l.segment_align, rk.num(".kernarg_segment_align"), "{at}");
            assert_eq!(
                l.group_segment_fixed_size,
                rk.num(".group_segment_fixed_size"),
                "{at}"
            );
            let explicit = rk.explicit();
            assert_eq!(l.explicit.len(), explicit.len(), "{at}");
            for (i, (ours, theirs)) in l.explicit.iter().zip(&explicit).enumerate() {
                let at = format!("{at} explicit {i}");
                assert_eq!(ours.index as usize, i, "{at}");
                assert_eq!(ours.offset, theirs.num(".offset"), "{at}");
                assert_eq!(ours.size, theirs.num(".size"), "{at}");
                assert_eq!(
                    ours.kind.as_str(),
                    theirs.get(".value_kind").unwrap(),
                    "{at}"
                );
                assert_eq!(ours.name.as_deref(), theirs.get(".name"), "{at}");
                assert_eq!(ours.type_name.as_deref(), theirs.get(".type_name"), "{at}");
                assert_eq!(
                    ours.pointee_align.map(|a| a.to_string()).as_deref(),
                    theirs.get(".pointee_align"),
                    "{at}"
                );
            }
            let hidden: Vec<_> = rk
                .args
                .iter()
                .filter(|a| a.get(".value_kind").unwrap().starts_with("hidden_"))
                .collect();
            assert_eq!(l.hidden.len(), hidden.len(), "{at}");
            for (ours, theirs) in l.hidden.iter().zip(&hidden) {
                assert_eq!(
                    ours.kind.as_str(),
                    theirs.get(".value_kind").unwrap(),
                    "{at}"
                );
                assert_eq!(ours.offset, theirs.num(".offset"), "{at}");
                assert_eq!(ours.size, theirs.num(".size"), "{at}");
            }
        }
    }
    // probe, mixed, with_printf, with_image, with_pipe_queue twice;
    // apertures; hip_probe twice.
    assert_eq!(kernels, 13);
}

/// What the code objects are: the versions the brief asked to check.
#[test]
fn code_object_versions() {
    for (name, abi) in [
        ("kernarg-gfx90a-v4", 2),
        ("kernarg-gfx90a-v5", 3),
        ("apertures-gfx803-v5", 3),
        // hipcc (HIP 5.2.3) writes code object v4 by default.
        ("hip-gfx90a-default", 2),
        ("hip-gfx90a-v5", 3),
    ] {
        let co = code_object(name);
        // e_ident[EI_ABIVERSION]: 2 = ELFABIVERSION_AMDGPU_HSA_V4, 3 = V5.
        assert_eq!(co.data[8], abi, "{name}");
    }
}

fn u16_at(b: &[u8], off: usize) -> u16 {
    u16::from_le_bytes(b[off..off + 2].try_into().unwrap())
}
fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap())
}

/// Checks the COv5 geometry arguments against AMDGPUUsage: block count =
/// full work-groups (grid / wg rounded down), group size = wg, remainder =
/// grid % wg, grid dims = dims.
fn check_v5_geometry(rk: &ReadelfKernel, k: &Kernarg, g: &Geometry) {
    let b = &k.bytes;
    for (d, axis) in ["x", "y", "z"].iter().enumerate() {
        let grid = g.grid[d];
        let wg = u32::from(g.workgroup[d]);
        let off = rk.hidden(&format!("hidden_block_count_{axis}")).unwrap();
        assert_eq!(u32_at(b, off), grid / wg, "block count {axis}");
        let off = rk.hidden(&format!("hidden_group_size_{axis}")).unwrap();
        assert_eq!(u32::from(u16_at(b, off)), wg, "group size {axis}");
        let off = rk.hidden(&format!("hidden_remainder_{axis}")).unwrap();
        assert_eq!(u32::from(u16_at(b, off)), grid % wg, "remainder {axis}");
        // What the device library derives (ockl.bc, ABI 500): num_groups =
        // block_count + (remainder != 0) = ceil(grid / wg).
        let num_groups = u32_at(b, rk.hidden(&format!("hidden_block_count_{axis}")).unwrap())
            + u32::from(u16_at(b, rk.hidden(&format!("hidden_remainder_{axis}")).unwrap()) != 0);
        assert_eq!(num_groups, grid.div_ceil(wg), "num groups {axis}");
    }
    let off = rk.hidden("hidden_grid_dims").unwrap();
    assert_eq!(u16_at(b, off), u16::from(g.dims));
}

fn hidden_values() -> HiddenValues {
    HiddenValues {
        queue_ptr: 0x7f00_0000_1000,
        private_base: 0x1000_0000_0000_0000,
        shared_base: 0x2000_0000_0000_0000,
        printf_buffer: 0x7f00_0000_2000,
        hostcall_buffer: 0x7f00_0000_3000,
        heap_v1: 0x7f00_0000_4000,
        default_queue: 0x7f00_0000_5000,
        completion_action: 0x7f00_0000_6000,
        multigrid_sync_arg: 0x7f00_0000_7000,
        global_offset: [11, 22, 33],
    }
}

#[test]
fn v5_probe_geometries() {
    let co = code_object("kernarg-gfx90a-v5");
    let rk = &co.readelf["probe"];
    let l = co.layout("probe");
    let h = hidden_values();
    for g in [
        // 1D, partial last group.
        Geometry::new([1000, 1, 1], [64, 1, 1]),
        // 1D, exact.
        Geometry::new([1024, 1, 1], [256, 1, 1]),
        // One full group and a partial one of 1 work-item.
        Geometry::new([65, 1, 1], [64, 1, 1]),
        // 2D, partial in both.
        Geometry::new([100, 7, 1], [16, 4, 1]),
        // 3D, partial in every dimension.
        Geometry::new([100, 7, 3], [8, 4, 2]),
        // 2D by request although Y is 1 (an OpenCL 2D range of height 1).
        Geometry::new([64, 1, 1], [64, 1, 1]).with_dims(2),
    ] {
        let k = build(&l, &[ArgValue::Pointer(0xdead_0000)], &g, &h, 0).unwrap();
        assert_eq!(k.bytes.len(), 264);
        assert_eq!(u64_at(&k.bytes, 0), 0xdead_0000);
        check_v5_geometry(rk, &k, &g);
        for (d, axis) in ["x", "y", "z"].iter().enumerate() {
            let off = rk.hidden(&format!("hidden_global_offset_{axis}")).unwrap();
            assert_eq!(u64_at(&k.bytes, off), h.global_offset[d]);
        }
        for (kind, want) in [
            ("hidden_hostcall_buffer", h.hostcall_buffer),
            ("hidden_multigrid_sync_arg", h.multigrid_sync_arg),
            ("hidden_heap_v1", h.heap_v1),
            ("hidden_default_queue", h.default_queue),
            ("hidden_completion_action", h.completion_action),
            ("hidden_queue_ptr", h.queue_ptr),
        ] {
            assert_eq!(u64_at(&k.bytes, rk.hidden(kind).unwrap()), want, "{kind}");
        }
        assert_eq!(k.group_segment_size, 0);
    }
    // Spot values, written out: grid 100x7x3, wg 8x4x2.
    let g = Geometry::new([100, 7, 3], [8, 4, 2]);
    let k = build(&l, &[ArgValue::Pointer(0)], &g, &h, 0).unwrap();
    assert_eq!(&k.bytes[8..20], &[12, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]);
    assert_eq!(&k.bytes[20..26], &[8, 0, 4, 0, 2, 0]);
    assert_eq!(&k.bytes[26..32], &[4, 0, 3, 0, 1, 0]);
    assert_eq!(&k.bytes[72..74], &[3, 0]);
    // Bytes no argument covers stay zero.
    assert!(k.bytes[32..48].iter().all(|&b| b == 0));
    assert!(k.bytes[216..].iter().all(|&b| b == 0));
}

#[test]
fn v4_probe_hidden_arguments() {
    let co = code_object("kernarg-gfx90a-v4");
    let rk = &co.readelf["probe"];
    let l = co.layout("probe");
    let h = hidden_values();
    let k = build(
        &l,
        &[ArgValue::Pointer(0x1234_5678_9abc)],
        &Geometry::new([100, 7, 3], [8, 4, 2]),
        &h,
        0,
    )
    .unwrap();
    assert_eq!(k.bytes.len(), 64);
    assert_eq!(u64_at(&k.bytes, 0), 0x1234_5678_9abc);
    for (d, axis) in ["x", "y", "z"].iter().enumerate() {
        let off = rk.hidden(&format!("hidden_global_offset_{axis}")).unwrap();
        assert_eq!(u64_at(&k.bytes, off), h.global_offset[d]);
    }
    // hidden_none: reserved, zero.
    let none: Vec<usize> = rk
        .args
        .iter()
        .filter(|a| a.get(".value_kind") == Some("hidden_none"))
        .map(|a| a.num(".offset") as usize)
        .collect();
    assert_eq!(none.len(), 4);
    for off in none {
        assert_eq!(u64_at(&k.bytes, off), 0);
    }
    // COv4 printf kernel: hostcall, default queue, completion action, multigrid.
    let rk = &co.readelf["with_printf"];
    let l = co.layout("with_printf");
    let k = build(
        &l,
        &[ArgValue::Pointer(8)],
        &Geometry::new([1, 1, 1], [1, 1, 1]),
        &h,
        0,
    )
    .unwrap();
    for (kind, want) in [
        ("hidden_hostcall_buffer", h.hostcall_buffer),
        ("hidden_default_queue", h.default_queue),
        ("hidden_completion_action", h.completion_action),
        ("hidden_multigrid_sync_arg", h.multigrid_sync_arg),
    ] {
        assert_eq!(u64_at(&k.bytes, rk.hidden(kind).unwrap()), want, "{kind}");
    }
}

fn mixed_args(tmp: u32, tmp2: u32) -> Vec<ArgValue> {
    vec![
        ArgValue::Pointer(0x1000),
        ArgValue::Bytes(7u32.to_le_bytes().to_vec()),
        ArgValue::Lds(tmp),
        ArgValue::Bytes(vec![0xc5]),
        ArgValue::Bytes((-2i16).to_le_bytes().to_vec()),
        ArgValue::Bytes(1.5f64.to_le_bytes().to_vec()),
        ArgValue::Bytes((1..=16).collect()),
        ArgValue::Pointer(0x2000),
        ArgValue::Lds(tmp2),
        ArgValue::Bytes(vec![0xaa; 16]),
        ArgValue::Bytes(0x3c00u16.to_le_bytes().to_vec()),
    ]
}

#[test]
fn mixed_explicit_arguments_and_lds() {
    for name in ["kernarg-gfx90a-v4", "kernarg-gfx90a-v5"] {
        let co = code_object(name);
        let rk = &co.readelf["mixed"];
        let l = co.layout("mixed");
        let ex = rk.explicit();
        let kinds: Vec<ArgKind> = l.explicit.iter().map(|a| a.kind).collect();
        assert_eq!(kinds[2], ArgKind::DynamicSharedPointer);
        assert_eq!(kinds[8], ArgKind::DynamicSharedPointer);
        let g = Geometry::new([1000, 1, 1], [64, 1, 1]).with_dynamic_lds(24);
        // A static size that is not a multiple of 16, to see the alignment.
        let k = build(&l, &mixed_args(100, 12), &g, &HiddenValues::default(), 40).unwrap();
        let b = &k.bytes;
        let off = |i: usize| ex[i].num(".offset") as usize;
        assert_eq!(u64_at(b, off(0)), 0x1000);
        assert_eq!(u32_at(b, off(1)), 7);
        // tmp: pointee_align 4, aligned to 16 after 40 static bytes: 48.
        assert_eq!(u32_at(b, off(2)), 48);
        assert_eq!(b[off(3)], 0xc5);
        assert_eq!(u16_at(b, off(4)), (-2i16) as u16);
        assert_eq!(u64_at(b, off(5)), 1.5f64.to_bits());
        assert_eq!(&b[off(6)..off(6) + 16], &(1..=16).collect::<Vec<u8>>()[..]);
        assert_eq!(u64_at(b, off(7)), 0x2000);
        // tmp2: after tmp's 100 bytes (48..148), aligned to 16: 160.
        assert_eq!(u32_at(b, off(8)), 160);
        assert_eq!(&b[off(9)..off(9) + 16], &[0xaa; 16]);
        assert_eq!(u16_at(b, off(10)), 0x3c00);
        // Static 40, LDS args up to 172, dynamic 24.
        assert_eq!(k.group_segment_size, 196);
        if name.ends_with("v5") {
            check_v5_geometry(rk, &k, &g);
            let off = rk.hidden("hidden_dynamic_lds_size").unwrap();
            assert_eq!(u32_at(b, off), 196 - 40);
        }
    }
}

#[test]
fn apertures_high_halves() {
    let co = code_object("apertures-gfx803-v5");
    let rk = &co.readelf["apertures"];
    let l = co.layout("apertures");
    let h = hidden_values();
    let k = build(
        &l,
        &[ArgValue::Pointer(0x10), ArgValue::Lds(64)],
        &Geometry::new([64, 1, 1], [64, 1, 1]),
        &h,
        0,
    )
    .unwrap();
    assert_eq!(
        u32_at(&k.bytes, rk.hidden("hidden_private_base").unwrap()),
        0x1000_0000
    );
    assert_eq!(
        u32_at(&k.bytes, rk.hidden("hidden_shared_base").unwrap()),
        0x2000_0000
    );
    assert_eq!(
        u32_at(&k.bytes, rk.hidden("hidden_dynamic_lds_size").unwrap()),
        64
    );
    assert_eq!(k.group_segment_size, 64);
    // Unnamed arguments (no -cl-kernel-arg-info) are named by index.
    let e = build(
        &l,
        &[ArgValue::Lds(4), ArgValue::Lds(64)],
        &Geometry::new([64, 1, 1], [64, 1, 1]),
        &h,
        0,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "kernel argument 0 is global_buffer ulong*, got 4 bytes of LDS"
    );
}

#[test]
fn hip_kernels() {
    // Code object v4 (hipcc's default): gridDim/blockDim come from the
    // dispatch packet, so the kernel has no hidden arguments.
    let co = code_object("hip-gfx90a-default");
    let l = co.layout("hip_probe");
    assert!(l.hidden.is_empty());
    assert_eq!(l.segment_size, 16);
    let args = [
        ArgValue::Pointer(0xabc0),
        ArgValue::Bytes(5i32.to_le_bytes().to_vec()),
        ArgValue::Bytes(2.0f32.to_le_bytes().to_vec()),
    ];
    let g = Geometry::new([256, 4, 1], [64, 2, 1]).with_dynamic_lds(256);
    let k = build(&l, &args, &g, &HiddenValues::default(), 0).unwrap();
    assert_eq!(k.bytes.len(), 16);
    assert_eq!(u64_at(&k.bytes, 0), 0xabc0);
    assert_eq!(u32_at(&k.bytes, 8), 5);
    assert_eq!(u32_at(&k.bytes, 12), 2.0f32.to_bits());
    assert_eq!(k.group_segment_size, 256);

    let co = code_object("hip-gfx90a-v5");
    let rk = &co.readelf["hip_probe"];
    let l = co.layout("hip_probe");
    let k = build(&l, &args, &g, &hidden_values(), 0).unwrap();
    check_v5_geometry(rk, &k, &g);
    assert_eq!(k.bytes.len(), 272);
}

#[test]
fn errors_name_the_argument() {
    let co = code_object("kernarg-gfx90a-v5");
    let l = co.layout("mixed");
    let g = Geometry::new([64, 1, 1], [64, 1, 1]);
    let h = HiddenValues::default();
    let err = |args: &[ArgValue]| build(&l, args, &g, &h, 0).unwrap_err().to_string();
    let mut args = mixed_args(4, 4);
    args[1] = ArgValue::Pointer(0);
    assert_eq!(
        err(&args),
        "kernel argument 1 (n) is by_value uint, got buffer"
    );
    let mut args = mixed_args(4, 4);
    args[0] = ArgValue::Bytes(vec![0; 8]);
    assert_eq!(
        err(&args),
        "kernel argument 0 (a) is global_buffer float*, got 8 bytes by value"
    );
    let mut args = mixed_args(4, 4);
    args[4] = ArgValue::Bytes(vec![0; 4]);
    assert_eq!(
        err(&args),
        "kernel argument 4 (s) is by_value short of 2 bytes, got 4 bytes"
    );
    let mut args = mixed_args(4, 4);
    args[2] = ArgValue::Pointer(0);
    assert_eq!(
        err(&args),
        "kernel argument 2 (tmp) is dynamic_shared_pointer float*, got buffer"
    );
    assert_eq!(
        err(&mixed_args(0, 4)),
        "kernel argument 2 (tmp): a __local argument needs at least 1 byte"
    );
    assert_eq!(
        err(&mixed_args(4, 4)[..10]),
        "kernel takes 11 explicit arguments, got 10"
    );
    assert!(matches!(
        build(&l, &mixed_args(4, 4)[..2], &g, &h, 0),
        Err(KernargError::ArgCount {
            expected: 11,
            got: 2
        })
    ));

    // Geometry: only zero sizes, bad dims and the kernel's own limits.
    let geo = |g: Geometry| build(&l, &mixed_args(4, 4), &g, &h, 0).map(|_| ());
    assert_eq!(
        geo(Geometry::new([0, 1, 1], [64, 1, 1]))
            .unwrap_err()
            .to_string(),
        "grid size x is 0"
    );
    assert_eq!(
        geo(Geometry::new([64, 4, 1], [64, 0, 1]))
            .unwrap_err()
            .to_string(),
        "work-group size y is 0"
    );
    assert_eq!(
        geo(Geometry::new([64, 4, 1], [64, 1, 1]).with_dims(1))
            .unwrap_err()
            .to_string(),
        "a 1-dimensional dispatch needs grid and work-group size y of 1, got 4 and 1"
    );
    assert!(geo(Geometry::new([64, 1, 1], [64, 1, 1]).with_dims(4)).is_err());
    // .max_flat_workgroup_size is 256 for these kernels.
    assert_eq!(
        geo(Geometry::new([1024, 1, 1], [512, 1, 1]))
            .unwrap_err()
            .to_string(),
        "work-group 512x1x1 exceeds the kernel's .max_flat_workgroup_size 256"
    );
    // hsa.h: a grid size "Must not be smaller than" the work-group size.
    assert_eq!(
        geo(Geometry::new([64, 3, 1], [16, 4, 1]))
            .unwrap_err()
            .to_string(),
        "grid size y (3) is smaller than the work-group size (4)"
    );
    // Partial groups are fine.
    geo(Geometry::new([13, 9, 17], [4, 8, 8])).unwrap();

    // Images, samplers, pipes and queues are represented, not built.
    let l = co.layout("with_image");
    assert_eq!(l.explicit[0].kind, ArgKind::Image);
    assert_eq!(l.explicit[1].kind, ArgKind::Sampler);
    let e = build(
        &l,
        &[
            ArgValue::Pointer(1),
            ArgValue::Pointer(2),
            ArgValue::Pointer(3),
        ],
        &g,
        &h,
        0,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "kernel argument 0 (img) is image image2d_t: unsupported argument kind image"
    );
    let l = co.layout("with_pipe_queue");
    assert_eq!(l.explicit[0].kind, ArgKind::Pipe);
    assert_eq!(l.explicit[1].kind, ArgKind::Queue);
}

#[test]
fn argspecs_against_real_layouts() {
    let co = code_object("kernarg-gfx90a-v5");
    let l = co.layout("mixed");
    let spec = |s: &str| ArgSpec::parse(s).unwrap();
    let good: Vec<ArgSpec> = [
        "buf:f32:64=iota",
        "u32:7",
        "lds:256",
        "i8:-3",
        "i16:0x7fff",
        "f64:2.5",
        // float4 is 16 bytes: no scalar fits it.
        "u64:1",
        "buf:i32:64=fill:-1",
        "lds:8",
        "u64:1",
        "f16:1.0",
    ]
    .iter()
    .map(|s| spec(s))
    .collect();
    let e = check_all(&good, &l).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--arg 6: kernel argument 6 (v) is by_value float4 of 16 bytes, got u64:1 of 8 bytes \
         (no --arg form fits: a 16-byte value, and the scalar types are 1, 2, 4 or 8 bytes)"
    );
    for (i, s) in good.iter().enumerate() {
        if i != 6 && i != 9 {
            s.check_against(&l, i).unwrap();
        }
    }
    assert_eq!(
        spec("buf:u32:16=zero")
            .check_against(&l, 1)
            .unwrap_err()
            .to_string(),
        "--arg 1: kernel argument 1 (n) is by_value uint, got buf:u32:16=zero (give u32:VALUE)"
    );
    assert_eq!(
        spec("u32:1").check_against(&l, 2).unwrap_err().to_string(),
        "--arg 2: kernel argument 2 (tmp) is dynamic_shared_pointer float*, got u32:1 (give lds:BYTES)"
    );
    assert_eq!(
        spec("lds:4").check_against(&l, 0).unwrap_err().to_string(),
        "--arg 0: kernel argument 0 (a) is global_buffer float*, got lds:4 (give buf:f32:COUNT=INIT)"
    );
    assert_eq!(
        check_all(&good[..3], &l).unwrap_err().to_string(),
        "kernel takes 11 explicit arguments, got 3"
    );
    // A spec's bytes build the segment.
    let s = spec("i16:-2");
    assert_eq!(s.scalar_bytes().unwrap(), vec![0xfe, 0xff]);
    // Specs that fit all build the segment (float4 and the struct given as
    // raw bytes: no scalar spec is 16 bytes).
    let mut values: Vec<ArgValue> = good.iter().map(|s| s.arg_value(0x4000)).collect();
    values[6] = ArgValue::Bytes(vec![0; 16]);
    values[9] = ArgValue::Bytes(vec![0; 16]);
    let k = build(
        &l,
        &values,
        &Geometry::new([64, 1, 1], [64, 1, 1]),
        &HiddenValues::default(),
        0,
    )
    .unwrap();
    assert_eq!(k.bytes[0..8], 0x4000u64.to_le_bytes());
    assert_eq!(k.bytes[8..12], 7u32.to_le_bytes());
    // lds:256 at 0, lds:8 after it at 256.
    assert_eq!(k.bytes[12..16], 0u32.to_le_bytes());
    assert_eq!(k.bytes[56..60], 256u32.to_le_bytes());
    assert_eq!(k.group_segment_size, 264);
    assert_eq!(k.bytes[80..82], 0x3c00u16.to_le_bytes());
}

/// Random values, geometries and static sizes against every real layout:
/// `build` returns a value or an error, never panics, and a value is always
/// the segment's size.
#[test]
fn random_inputs_never_panic() {
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        s.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let mut layouts = Vec::new();
    for name in ALL {
        let co = code_object(name);
        for k in co.readelf.keys() {
            layouts.push(co.layout(k));
        }
    }
    let (mut ok, mut err) = (0, 0);
    for _ in 0..20_000 {
        let l = &layouts[next() as usize % layouts.len()];
        let n = if next() % 8 == 0 {
            next() as usize % 14
        } else {
            l.explicit.len()
        };
        let args: Vec<ArgValue> = (0..n)
            .map(|i| {
                let want = l.explicit.get(i);
                match (next() % 4, want.map(|a| a.kind)) {
                    (0, _) => ArgValue::Bytes(vec![0x5a; next() as usize % 20]),
                    (1, _) => ArgValue::Lds(next() as u32),
                    (2, _) => ArgValue::Pointer(next()),
                    (_, Some(ArgKind::ByValue)) => {
                        ArgValue::Bytes(vec![1; want.unwrap().size as usize])
                    }
                    (_, Some(ArgKind::DynamicSharedPointer)) => {
                        ArgValue::Lds(next() as u32 % 4096 + 1)
                    }
                    _ => ArgValue::Pointer(next()),
                }
            })
            .collect();
        let pick32 = |r: u64| match r % 4 {
            0 => 0,
            1 => u32::MAX,
            _ => (r >> 8) as u32 % 5000,
        };
        let pick16 = |r: u64| match r % 4 {
            0 => 0,
            1 => u16::MAX,
            _ => (r >> 8) as u16 % 300,
        };
        let g = if next() % 2 == 0 {
            Geometry {
                dims: (next() % 5) as u8,
                grid: [pick32(next()), pick32(next()), pick32(next())],
                workgroup: [pick16(next()), pick16(next()), pick16(next())],
                dynamic_lds: pick32(next()),
                private_segment_size: pick32(next()),
            }
        } else {
            // Valid: 3 dimensions, each grid at least its work-group.
            let wg = [1 + next() % 8, 1 + next() % 4, 1 + next() % 4];
            let grid = wg.map(|w| (w * (1 + next() % 10) + next() % w) as u32);
            Geometry::new(grid, wg.map(|w| w as u16))
                .with_dims(3)
                .with_dynamic_lds((next() % 1024) as u32)
        };
        let static_lds = if next() % 8 == 0 {
            pick32(next())
        } else {
            (next() % 4096) as u32
        };
        match build(l, &args, &g, &hidden_values(), static_lds) {
            Ok(k) => {
                ok += 1;
                assert_eq!(k.bytes.len(), l.segment_size as usize);
            }
            Err(e) => {
                err += 1;
                assert!(!e.to_string().is_empty());
            }
        }
    }
    assert!(ok > 100 && err > 100, "ok {ok} err {err}");
}
