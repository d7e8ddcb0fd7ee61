//! Parsing and loading allocate nothing: a counting global allocator counts
//! the allocations this thread makes while every view of every code object
//! is walked (ELF headers, segments, sections, symbols, notes, the metadata
//! MessagePack map through the visitor and the typed kernel and argument
//! views, target IDs), every kernel descriptor is decoded and printed as
//! directives, every bundle and `.hip_fatbin` is listed, compressed bundle
//! headers are read, and every code object is loaded into caller memory with
//! its relocations, kernels and variables. The count must stay zero.
//!
//! Inputs are read from disk before counting starts. The `loader` (goblin)
//! and `decompress` features allocate by design, only in their own entry
//! points, none of which is called here.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use loader_core::bundle::{
    CompressedBundle, Container, FatbinBundles, OffloadBundle, hip_fatbin_section,
};
use loader_core::elf::ElfFile;
use loader_core::kernel_descriptor::GpuFamily;
use loader_core::load::{ImageLayout, SliceMemory, dynamic_relocations, load};
use loader_core::metadata::Metadata;
use loader_core::msgpack::{self, Position, Value, Visitor};
use loader_core::target::TargetId;

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn note() {
    if COUNTING.with(Cell::get) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: forwards every call to the system allocator unchanged; counting
// only touches an atomic and a const-initialised thread-local, neither of
// which allocates.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Counts the allocations `f` makes on this thread.
fn allocations_in(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.load(Ordering::Relaxed) - before
}

/// Visits every MessagePack item, keeping a checksum so nothing is optimised away.
struct Sum(u64);
impl<'a> Visitor<'a> for Sum {
    fn scalar(&mut self, _: Position, value: Value<'a>) -> loader_core::Result<()> {
        self.0 = self.0.wrapping_add(
            value.as_u64().unwrap_or(1) + value.as_str().map_or(0, |s| s.len() as u64),
        );
        Ok(())
    }
    fn begin_map(&mut self, _: Position, len: u32) -> loader_core::Result<()> {
        self.0 = self.0.wrapping_add(u64::from(len));
        Ok(())
    }
}

/// Walks everything the zero-copy parser offers; returns a checksum.
fn walk_object(data: &[u8]) -> u64 {
    let mut sum = 0u64;
    let elf = ElfFile::parse(data).unwrap();
    let version = elf.code_object_version().unwrap();
    let flags = elf.flags().unwrap();
    sum += u64::from(flags.raw);
    let target = TargetId::from_flags(&flags).unwrap();
    sum += target.processor.name.len() as u64;
    for seg in elf.segments() {
        sum += seg.data().map_or(0, |d| d.len() as u64);
    }
    for sec in elf.sections() {
        sum += sec.name().map_or(0, |n| n.len() as u64) + sec.header().sh_size;
    }
    for table in [elf.symbols().unwrap(), elf.dynamic_symbols().unwrap()]
        .into_iter()
        .flatten()
    {
        for sym in table.iter() {
            let sym = sym.unwrap();
            sum += sym.name().map_or(0, |n| n.len() as u64) + sym.value();
        }
    }
    for n in elf.notes() {
        let n = n.unwrap();
        sum += n.desc.len() as u64;
        if n.is_amdgpu_metadata() {
            let mut v = Sum(0);
            msgpack::walk(n.desc, &mut v).unwrap();
            sum += v.0;
        }
    }
    let md = Metadata::from_elf(&elf).unwrap().unwrap();
    sum += md.target().map_or(0, |t| t.len() as u64);
    for k in md.kernels() {
        let k = k.unwrap();
        sum += u64::from(k.kernarg_segment_size) + k.name.len() as u64;
        for a in k.args() {
            let a = a.unwrap();
            sum += u64::from(a.size) + u64::from(a.offset);
        }
    }
    for g in md.globals() {
        sum += g.unwrap().size;
    }
    // Kernel descriptors straight from the file, with their directives.
    let family = GpuFamily::from_processor(flags.processor.unwrap().name).unwrap();
    for fkd in loader_core::kernel_descriptor::descriptors(&elf) {
        let kd = fkd.unwrap().descriptor.decode(family).unwrap();
        for d in kd.directives(version.number() as u8) {
            sum += d.value + d.name.len() as u64;
        }
    }
    for r in dynamic_relocations(&elf) {
        sum += r.unwrap().offset;
    }
    sum
}

fn load_object(data: &[u8], memory: &mut [u8]) -> u64 {
    let mut mem = SliceMemory::new(memory, 0x7f00_0000_0000);
    let loaded = load(data, &mut mem, |_| Some(0x1000)).unwrap();
    let mut sum = loaded.address();
    for k in loaded.kernels() {
        let k = k.unwrap();
        sum += k.kernel_object
            + u64::from(k.kernarg_segment_size)
            + u64::from(k.kernarg_segment_align);
    }
    for v in loaded.variables() {
        sum += v.address + v.size;
    }
    sum
}

fn walk_bundles(data: &[u8]) -> u64 {
    let mut sum = 0;
    match Container::parse(data).unwrap() {
        Container::Bundle(b) => {
            for e in b.entries() {
                let e = e.expect("corpus bundle entry");
                sum += e.data.len() as u64 + e.parsed_id().target_id.len() as u64;
            }
            sum += b.find_target("gfx1030").map_or(0, |e| e.offset);
        }
        Container::Compressed(c) => {
            sum += c.uncompressed_size() + c.hash() + c.compressed_data().len() as u64;
            // Too small an output (or no `decompress` feature): a typed error,
            // still no allocation.
            assert!(c.decompress_into(&mut []).is_err());
        }
        Container::Elf(host) => {
            let section = hip_fatbin_section(host).unwrap().unwrap();
            for b in FatbinBundles::new(section) {
                let (at, c) = b.unwrap();
                sum += at + c.size().unwrap_or(0);
            }
        }
    }
    sum
}

/// Code objects (path, bytes) and bundle files.
type Inputs = (Vec<(PathBuf, Vec<u8>)>, Vec<Vec<u8>>);

fn inputs() -> Inputs {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read_dir = |d: PathBuf| {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
            .map(|e| e.unwrap().path())
            .collect();
        v.sort();
        v
    };
    let mut objects: Vec<(PathBuf, Vec<u8>)> = read_dir(root.join("corpus/co"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "co"))
        .map(|p| {
            let d = std::fs::read(&p).unwrap();
            (p, d)
        })
        .collect();
    let rocrand = std::env::var_os("ROCRAND_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../target/rocrand"))
        .join("co");
    assert!(
        rocrand.is_dir(),
        "{} is missing: run scripts/fetch-rocrand (scripts/test does)",
        rocrand.display()
    );
    for p in read_dir(rocrand) {
        let d = std::fs::read(&p).unwrap();
        objects.push((p, d));
    }
    let bundles = read_dir(root.join("corpus/bundle"))
        .into_iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    (objects, bundles)
}

#[test]
fn parsing_and_loading_allocate_nothing() {
    let (objects, bundles) = inputs();
    assert!(objects.len() > 35 && bundles.len() >= 3);
    let biggest = objects
        .iter()
        .map(|(_, d)| ImageLayout::of(&ElfFile::parse(d).unwrap()).unwrap().size as usize)
        .max()
        .unwrap();
    let mut memory = vec![0u8; biggest + (1 << 16)];

    // Warm-up outside the count: the test harness' first print or lazy init
    // must not be charged to the parser.
    let _ = walk_object(&objects[0].1);

    let mut sum = 0u64;
    let n = allocations_in(|| {
        for (_, data) in &objects {
            sum = sum.wrapping_add(walk_object(data));
            sum = sum.wrapping_add(load_object(data, &mut memory));
        }
        for b in &bundles {
            sum = sum.wrapping_add(walk_bundles(b));
        }
        // Errors are allocation-free too.
        assert!(ElfFile::parse(&objects[0].1[..100]).is_err());
        assert!(OffloadBundle::parse(&bundles[0][..40]).is_err());
        assert!(CompressedBundle::parse(b"CCOB\x09\x00").is_err());
    });
    assert_ne!(sum, 0);
    assert_eq!(n, 0, "parsing and loading made {n} allocations");

    // The counter works: a Vec is seen.
    let seen = allocations_in(|| {
        let v: Vec<u8> = Vec::with_capacity(std::hint::black_box(16));
        std::hint::black_box(v);
    });
    assert_eq!(seen, 1);
}
