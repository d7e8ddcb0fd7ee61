//! Parsing allocates nothing: a counting global allocator watches this
//! thread while a real clang-19 code object is parsed and walked end to end
//! (header, e_flags, sections, segments, symbols, notes, the whole metadata
//! map with every kernel and argument, the target ID, a MessagePack walk).
//! The object is built and read before counting starts.

use loader_core::elf::ElfFile;
use loader_core::metadata::Metadata;
use loader_core::msgpack::{self, Visitor};
use loader_core::target::TargetId;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static WATCHING: Cell<bool> = const { Cell::new(false) };
}

// SAFETY: forwards every call unchanged to `System`, which upholds the
// `GlobalAlloc` contract; the counter has no effect on the memory returned.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if WATCHING.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if WATCHING.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const SRC: &str = r#"
__kernel void vadd(__global const float *a, __global float *c, int n) {
  int i = __builtin_amdgcn_workitem_id_x();
  if (i < n) c[i] = a[i];
}
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void lds(__global int *out, __local int *scratch) {
  __constant uint *p = (__constant uint *)__builtin_amdgcn_implicitarg_ptr();
  scratch[0] = p[0];
  out[0] = scratch[1];
}
"#;

fn build() -> Vec<u8> {
    let d = std::env::temp_dir().join(format!("loader-parse-noalloc-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("k.cl"), SRC).unwrap();
    for args in [
        &[
            "-x",
            "cl",
            "-target",
            "amdgcn-amd-amdhsa",
            "-nogpulib",
            "-mcpu=gfx90a",
            "-c",
            "k.cl",
            "-o",
            "k.o",
        ][..],
        &[
            "-target",
            "amdgcn-amd-amdhsa",
            "-mcpu=gfx90a",
            "k.o",
            "-o",
            "k.so",
        ][..],
    ] {
        let out = Command::new("clang-19")
            .args(args)
            .current_dir(&d)
            .output()
            .expect("clang-19 (install clang-19)");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::read(d.join("k.so")).unwrap()
}

struct Sum(u64);
impl<'a> Visitor<'a> for Sum {
    fn scalar(&mut self, _: msgpack::Position, v: msgpack::Value<'a>) -> loader_core::Result<()> {
        if let Some(n) = v.as_u64() {
            self.0 = self.0.wrapping_add(n);
        }
        Ok(())
    }
}

/// Touches everything; returns a checksum so nothing is optimised away.
fn walk_everything(bytes: &[u8]) -> loader_core::Result<u64> {
    let f = ElfFile::parse(bytes)?;
    let mut sum = u64::from(f.flags()?.raw);
    for s in f.sections() {
        sum += s.name()?.len() as u64 + s.data()?.len() as u64;
    }
    for s in f.segments() {
        s.check_loadable()?;
        sum += s.header().p_memsz;
    }
    for t in [f.symbols()?, f.dynamic_symbols()?].into_iter().flatten() {
        for s in t.iter() {
            let s = s?;
            sum += s.name()?.len() as u64 + s.value();
            // By-name lookup through the hash table (for .dynsym).
            if let Some(found) = t.lookup(s.name()?)? {
                sum += found.index() as u64;
            }
        }
    }
    for n in f.notes() {
        let n = n?;
        sum += n.desc.len() as u64;
        if n.is_amdgpu_metadata() {
            let mut v = Sum(0);
            msgpack::walk(n.desc, &mut v)?;
            sum += v.0;
        }
    }
    let md = Metadata::from_elf(&f)?.expect("metadata note");
    for k in md.kernels() {
        let k = k?;
        sum += u64::from(k.kernarg_segment_size) + u64::from(k.sgpr_count);
        for a in k.args() {
            let a = a?;
            sum += u64::from(a.offset) + u64::from(a.size);
        }
    }
    let t = TargetId::parse(md.target().unwrap_or_default())?;
    sum += u64::from(t.processor.mach);
    Ok(sum)
}

#[test]
fn parsing_allocates_nothing() {
    let bytes = build();
    // Warm up (and check it works) outside the watched region.
    let expected = walk_everything(&bytes).unwrap();
    assert!(expected > 0);

    ALLOCATIONS.store(0, Ordering::Relaxed);
    WATCHING.with(|w| w.set(true));
    let got = walk_everything(&bytes);
    // Error paths allocate nothing either.
    let truncated = walk_everything(&bytes[..bytes.len() / 2]);
    WATCHING.with(|w| w.set(false));

    assert_eq!(got.unwrap(), expected);
    assert!(truncated.is_err());
    assert_eq!(ALLOCATIONS.load(Ordering::Relaxed), 0, "parsing allocated");
}
