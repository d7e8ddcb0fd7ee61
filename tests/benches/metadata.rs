//! Benchmark: extracting the whole `NT_AMDGPU_METADATA` map of a code object,
//! side by side in one run, with
//!
//! - `loader-core`: zero-copy ELF parse, note iterator, MessagePack walk;
//! - ROCm's `amd_comgr` (`libamd-comgr-dev`, ROCm 5.2):
//!   `amd_comgr_create_data` / `amd_comgr_set_data` /
//!   `amd_comgr_get_data_metadata`, then the whole tree walked with
//!   `amd_comgr_get_metadata_kind`, `amd_comgr_get_metadata_string`,
//!   `amd_comgr_iterate_map_metadata` and `amd_comgr_index_list_metadata`
//!   (what ROCr's loader and HIP's runtime do);
//! - goblin plus `rmpv`: goblin's allocating ELF parser for the notes, and
//!   `rmpv`, the schema-less `Value` tree of the `rmp` MessagePack family
//!   (the metadata map is open-ended, so a typed serde schema would drop
//!   keys; `rmpv` keeps every node, as comgr does).
//!
//! Inputs: rocRAND's gfx90a code object (`scripts/fetch-rocrand`) and a
//! synthetic code object with thousands of kernels compiled here by clang-19.
//! Every walk counts maps, lists, map entries and scalars; the counts of the
//! three must agree, so no contender can skip work.
//!
//! `cargo bench -p tests --bench metadata` measures; without `--bench`
//! (as `cargo test --all-targets` runs it) it only runs a small smoke pass.

use std::ffi::c_void;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// What a walk of the metadata tree saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    maps: u64,
    lists: u64,
    entries: u64,
    scalars: u64,
}

#[path = "metadata/comgr.rs"]
mod comgr;

/// State of one comgr walk: the counts and a reusable string buffer (the
/// string is really copied out, as a consumer of the metadata must).
struct ComgrWalk {
    counts: Counts,
    buf: Vec<u8>,
    failed: Option<&'static str>,
}

fn check(status: comgr::amd_comgr_status_t, what: &'static str) -> Result<(), &'static str> {
    if status == comgr::AMD_COMGR_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(what)
    }
}

impl ComgrWalk {
    fn node(&mut self, node: comgr::amd_comgr_metadata_node_t) -> Result<(), &'static str> {
        let mut kind = 0;
        // SAFETY: `node` is a live handle (from comgr, not yet destroyed) and
        // `kind` is a valid out-pointer.
        let status = unsafe { comgr::amd_comgr_get_metadata_kind(node, &mut kind) };
        check(status, "get_metadata_kind")?;
        match kind {
            comgr::AMD_COMGR_METADATA_KIND_STRING => {
                let mut size = 0usize;
                // SAFETY: a null string pointer asks only for the size (amd_comgr.h).
                let status = unsafe {
                    comgr::amd_comgr_get_metadata_string(node, &mut size, std::ptr::null_mut())
                };
                check(status, "get_metadata_string size")?;
                self.buf.resize(size, 0);
                // SAFETY: `buf` holds `size` bytes, the size comgr asked for.
                let status = unsafe {
                    comgr::amd_comgr_get_metadata_string(
                        node,
                        &mut size,
                        self.buf.as_mut_ptr().cast(),
                    )
                };
                check(status, "get_metadata_string")?;
                black_box(&self.buf);
                self.counts.scalars += 1;
            }
            comgr::AMD_COMGR_METADATA_KIND_MAP => {
                self.counts.maps += 1;
                // SAFETY: the callback gets `self` back as `user_data`, which
                // outlives the call; comgr calls it synchronously.
                let status = unsafe {
                    comgr::amd_comgr_iterate_map_metadata(
                        node,
                        map_entry,
                        (self as *mut Self).cast(),
                    )
                };
                check(status, "iterate_map_metadata")?;
                if let Some(e) = self.failed.take() {
                    return Err(e);
                }
            }
            comgr::AMD_COMGR_METADATA_KIND_LIST => {
                self.counts.lists += 1;
                let mut len = 0usize;
                // SAFETY: live handle, valid out-pointer.
                let status = unsafe { comgr::amd_comgr_get_metadata_list_size(node, &mut len) };
                check(status, "get_metadata_list_size")?;
                for i in 0..len {
                    let mut item = comgr::amd_comgr_metadata_node_t { handle: 0 };
                    // SAFETY: `i < len`; `item` is a valid out-pointer.
                    let status =
                        unsafe { comgr::amd_comgr_index_list_metadata(node, i, &mut item) };
                    check(status, "index_list_metadata")?;
                    let r = self.node(item);
                    // SAFETY: `item` came from index_list_metadata, which the
                    // header says the caller destroys; it is not used after.
                    unsafe { comgr::amd_comgr_destroy_metadata(item) };
                    r?;
                }
            }
            comgr::AMD_COMGR_METADATA_KIND_NULL => self.counts.scalars += 1,
            _ => return Err("unknown metadata kind"),
        }
        Ok(())
    }
}

unsafe extern "C" fn map_entry(
    key: comgr::amd_comgr_metadata_node_t,
    value: comgr::amd_comgr_metadata_node_t,
    user_data: *mut c_void,
) -> comgr::amd_comgr_status_t {
    // SAFETY: `user_data` is the `&mut ComgrWalk` that `ComgrWalk::node`
    // passed to `amd_comgr_iterate_map_metadata`, alive and not otherwise
    // borrowed during the synchronous iteration.
    let walk = unsafe { &mut *user_data.cast::<ComgrWalk>() };
    walk.counts.entries += 1;
    if let Err(e) = walk.node(key).and_then(|()| walk.node(value)) {
        walk.failed = Some(e);
        return 1; // AMD_COMGR_STATUS_ERROR: stops the iteration.
    }
    comgr::AMD_COMGR_STATUS_SUCCESS
}

/// comgr: copy the object into a data object, decode its metadata, walk it.
fn walk_comgr(code_object: &[u8]) -> Result<Counts, &'static str> {
    let mut data = comgr::amd_comgr_data_t { handle: 0 };
    // SAFETY: valid out-pointer.
    let status =
        unsafe { comgr::amd_comgr_create_data(comgr::AMD_COMGR_DATA_KIND_EXECUTABLE, &mut data) };
    check(status, "create_data")?;
    let result = (|| {
        // SAFETY: `data` is live; the pointer and length describe `code_object`,
        // which comgr copies.
        let status = unsafe {
            comgr::amd_comgr_set_data(data, code_object.len(), code_object.as_ptr().cast())
        };
        check(status, "set_data")?;
        let mut root = comgr::amd_comgr_metadata_node_t { handle: 0 };
        // SAFETY: live data handle, valid out-pointer.
        let status = unsafe { comgr::amd_comgr_get_data_metadata(data, &mut root) };
        check(status, "get_data_metadata")?;
        let mut walk = ComgrWalk {
            counts: Counts::default(),
            buf: Vec::new(),
            failed: None,
        };
        let r = walk.node(root);
        // SAFETY: `root` came from get_data_metadata and is not used after.
        unsafe { comgr::amd_comgr_destroy_metadata(root) };
        r.map(|()| walk.counts)
    })();
    // SAFETY: `data` came from create_data and is not used after.
    unsafe { comgr::amd_comgr_release_data(data) };
    result
}

/// goblin + rmpv: parse the ELF with goblin, decode the metadata note into
/// an `rmpv::Value` tree, walk it.
fn walk_goblin_rmpv(code_object: &[u8]) -> Result<Counts, String> {
    fn walk(v: &rmpv::Value, c: &mut Counts) {
        match v {
            rmpv::Value::Map(entries) => {
                c.maps += 1;
                for (k, v) in entries {
                    c.entries += 1;
                    walk(k, c);
                    walk(v, c);
                }
            }
            rmpv::Value::Array(items) => {
                c.lists += 1;
                for v in items {
                    walk(v, c);
                }
            }
            other => {
                black_box(other);
                c.scalars += 1;
            }
        }
    }
    let elf = goblin::elf::Elf::parse(code_object).map_err(|e| e.to_string())?;
    let mut counts = Counts::default();
    let notes = elf.iter_note_headers(code_object).ok_or("no PT_NOTE")?;
    for note in notes {
        let note = note.map_err(|e| e.to_string())?;
        // NT_AMDGPU_METADATA, owner "AMDGPU" (AMDGPUUsage, "Code Object V3
        // and Above Note Records").
        if note.n_type == 32 && note.name == "AMDGPU" {
            let value = rmpv::decode::read_value(&mut &note.desc[..]).map_err(|e| e.to_string())?;
            walk(&value, &mut counts);
        }
    }
    Ok(counts)
}

/// loader-core: zero-copy ELF parse, notes, MessagePack walk.
fn walk_loader_core(code_object: &[u8]) -> Result<Counts, loader_core::Error> {
    use loader_core::msgpack::{Position, Value, Visitor};
    struct Count(Counts);
    impl<'a> Visitor<'a> for Count {
        fn scalar(&mut self, pos: Position, value: Value<'a>) -> loader_core::Result<()> {
            if let Position::Key(_) = pos {
                self.0.entries += 1;
            }
            black_box(value);
            self.0.scalars += 1;
            Ok(())
        }
        fn begin_array(&mut self, pos: Position, _len: u32) -> loader_core::Result<()> {
            if let Position::Key(_) = pos {
                self.0.entries += 1;
            }
            self.0.lists += 1;
            Ok(())
        }
        fn begin_map(&mut self, pos: Position, _len: u32) -> loader_core::Result<()> {
            if let Position::Key(_) = pos {
                self.0.entries += 1;
            }
            self.0.maps += 1;
            Ok(())
        }
    }
    let elf = loader_core::elf::ElfFile::parse(code_object)?;
    let mut count = Count(Counts::default());
    for note in elf.notes() {
        let note = note?;
        if note.is_amdgpu_metadata() {
            loader_core::msgpack::walk(note.desc, &mut count)?;
        }
    }
    Ok(count.0)
}

/// loader-core's typed views (`metadata::Metadata`): every kernel with all
/// its fields and every argument, as a runtime reads them. Returns (kernels,
/// arguments); not comparable node for node with the generic walks, so it is
/// checked against the generic tree's counts of kernel and argument maps.
fn typed_loader_core(code_object: &[u8]) -> Result<(u64, u64), loader_core::Error> {
    let elf = loader_core::elf::ElfFile::parse(code_object)?;
    let Some(md) = loader_core::metadata::Metadata::from_elf(&elf)? else {
        return Ok((0, 0));
    };
    let (mut kernels, mut args) = (0, 0);
    for k in md.kernels() {
        let k = black_box(k?);
        kernels += 1;
        for a in k.args() {
            black_box(a?);
            args += 1;
        }
    }
    Ok((kernels, args))
}

/// The workspace root (this crate is `tests/`).
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn rocrand_gfx90a() -> PathBuf {
    let dir = std::env::var_os("ROCRAND_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/rocrand"));
    let path = dir.join("co/0-gfx90a_xnack-.co");
    assert!(
        path.exists(),
        "{} is missing: run scripts/fetch-rocrand (scripts/test does) to download rocRAND's code objects",
        path.display()
    );
    path
}

/// OpenCL C with `kernels` kernels of four shapes (pointer, LDS, by-value
/// vector and atomic arguments), so the metadata map has thousands of
/// kernel maps with several arguments each.
fn synthetic_source(kernels: usize) -> String {
    let mut s = String::from("#define COV 5\n#include \"amdgcn.h\"\n");
    for i in 0..kernels {
        let k = match i % 4 {
            0 => format!(
                "kernel void k{i}(global float *a, global const float *b, float s, uint n) \
                 {{ size_t g = get_global_id(0); if (g < n) a[g] = b[g] * s + {i}; }}\n"
            ),
            1 => format!(
                "kernel void k{i}(global int *a, local int *t, int v) {{ size_t l = get_local_id(0); \
                 t[l] = a[l] + v; barrier_local(); a[l] = t[get_local_size(0) - 1 - l] + {i}; }}\n"
            ),
            2 => format!(
                "__attribute__((reqd_work_group_size(64, 1, 1))) kernel void k{i}(global double2 *a, \
                 double2 b, constant int *c) {{ a[get_global_id(0)] += b * c[{}]; }}\n",
                i % 7
            ),
            _ => format!(
                "kernel void k{i}(global uint *h, global const uchar *d, uint n) {{ size_t g = get_global_id(0); \
                 if (g < n) __hip_atomic_fetch_add(&h[d[g]], {i}u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); }}\n"
            ),
        };
        s.push_str(&k);
    }
    s
}

/// Compiles the synthetic source for gfx90a, code-object v5 (cached in the
/// target directory).
fn synthetic_code_object(kernels: usize) -> PathBuf {
    let dir = std::env::var_os("CARGO_TARGET_TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
        .join("metadata-bench");
    std::fs::create_dir_all(&dir).expect("create bench dir");
    let source = synthetic_source(kernels);
    let cl = dir.join(format!("synthetic-{kernels}.cl"));
    let co = dir.join(format!("synthetic-{kernels}.co"));
    if co.exists() && std::fs::read_to_string(&cl).ok().as_deref() == Some(source.as_str()) {
        return co;
    }
    std::fs::write(&cl, &source).expect("write synthetic source");
    let include = workspace_root().join("loader-core/corpus/src");
    let status = Command::new("clang-19")
        .args([
            "-x",
            "cl",
            "-cl-std=CL2.0",
            "-target",
            "amdgcn-amd-amdhsa",
            "-mcpu=gfx90a",
            "-nogpulib",
        ])
        .args(["-mcode-object-version=5", "-O2", "-I"])
        .arg(&include)
        .arg(&cl)
        .arg("-o")
        .arg(&co)
        .status()
        .unwrap_or_else(|e| {
            panic!("cannot run clang-19 ({e}): apt-get install clang-19 lld-19 (scripts/test does)")
        });
    assert!(status.success(), "clang-19 failed on {}", cl.display());
    co
}

/// Median time of one call, from `batches` batches sized to last about
/// `target` each.
fn measure(mut f: impl FnMut(), batches: usize, target: Duration) -> Duration {
    let start = Instant::now();
    f();
    let once = start.elapsed().max(Duration::from_nanos(1));
    let per_batch = ((target.as_nanos() / once.as_nanos()) as usize).clamp(1, 1_000_000);
    let mut times: Vec<Duration> = (0..batches)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..per_batch {
                f();
            }
            t.elapsed() / per_batch as u32
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let inputs = [
        (
            "rocRAND 5.3.3 gfx90a:xnack- (Debian librocrand1)",
            rocrand_gfx90a(),
        ),
        (
            if bench {
                "synthetic, 4096 kernels (clang-19, gfx90a, v5)"
            } else {
                "synthetic, 16 kernels (smoke)"
            },
            synthetic_code_object(if bench { 4096 } else { 16 }),
        ),
    ];
    let (batches, target) = if bench {
        (11, Duration::from_millis(300))
    } else {
        (1, Duration::ZERO)
    };
    println!("metadata extraction: median time per code object (lower is better)");
    for (label, path) in &inputs {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let ours = walk_loader_core(&bytes)
            .unwrap_or_else(|e| panic!("loader-core on {}: {e}", path.display()));
        let theirs =
            walk_comgr(&bytes).unwrap_or_else(|e| panic!("amd_comgr on {}: {e}", path.display()));
        let goblin = walk_goblin_rmpv(&bytes)
            .unwrap_or_else(|e| panic!("goblin+rmpv on {}: {e}", path.display()));
        assert_eq!(
            ours,
            theirs,
            "loader-core and amd_comgr saw different trees in {}",
            path.display()
        );
        assert_eq!(
            ours,
            goblin,
            "loader-core and goblin+rmpv saw different trees in {}",
            path.display()
        );
        assert!(ours.scalars > 0, "{}: no metadata", path.display());
        // Typed views: the top map, one map per kernel, one per argument.
        let (kernels, args) = typed_loader_core(&bytes)
            .unwrap_or_else(|e| panic!("loader-core typed views on {}: {e}", path.display()));
        assert_eq!(
            1 + kernels + args,
            ours.maps,
            "typed views missed maps in {}",
            path.display()
        );

        let t_ours = measure(
            || {
                let _ = black_box(walk_loader_core(black_box(&bytes)));
            },
            batches,
            target,
        );
        let t_typed = measure(
            || {
                let _ = black_box(typed_loader_core(black_box(&bytes)));
            },
            batches,
            target,
        );
        let t_comgr = measure(
            || {
                let _ = black_box(walk_comgr(black_box(&bytes)));
            },
            batches,
            target,
        );
        let t_goblin = measure(
            || {
                let _ = black_box(walk_goblin_rmpv(black_box(&bytes)));
            },
            batches,
            target,
        );
        println!(
            "\n{label}: {} KiB, {} maps, {} lists, {} scalars",
            bytes.len() / 1024,
            ours.maps,
            ours.lists,
            ours.scalars
        );
        for (name, t) in [
            ("loader-core", t_ours),
            ("loader-core typed views", t_typed),
            ("amd_comgr 2.4", t_comgr),
            ("goblin 0.10 + rmpv 1.3", t_goblin),
        ] {
            println!(
                "  {name:<26} {:>12.1} us   {:>7.1}x loader-core",
                t.as_secs_f64() * 1e6,
                t.as_secs_f64() / t_ours.as_secs_f64()
            );
        }
    }
    if !bench {
        println!("(smoke pass; run `cargo bench -p tests --bench metadata` to measure)");
    }
}
