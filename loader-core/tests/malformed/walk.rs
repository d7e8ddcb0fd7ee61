//! "Walk everything" drivers over `loader-core`, shared by the fuzz targets
//! (`fuzz/fuzz_targets/loader_*.rs` include this file) and the stable replay
//! test (`loader-core/tests/malformed.rs`). Each driver touches every part of
//! the API its input can reach and returns the first error; none may panic,
//! loop or allocate (the replay test counts allocations around them; the
//! only allocating call, bundle decompression, is kept out of the walks and
//! done by [`decompress`]).
#![allow(dead_code)]

use core::fmt::{self, Write as _};

use loader_core::bundle::{
    CompressedBundle, Container, FatbinBundles, OffloadBundle, hip_fatbin_section,
};
use loader_core::elf::{ElfFile, OsAbi};
use loader_core::kernel_descriptor::{GpuFamily, KernelDescriptor};
use loader_core::metadata::Metadata;
use loader_core::msgpack::{self, Position, Value, Visitor};
use loader_core::target::TargetId;
use loader_core::{Error, Result};

/// `STT_OBJECT`: the symbol type of kernel descriptors.
const STT_OBJECT: u8 = 1;
/// `PT_LOAD`: a loadable segment.
const PT_LOAD: u32 = 1;

/// Every GPU family, for the kernel-descriptor driver.
pub const FAMILIES: [GpuFamily; 9] = [
    GpuFamily::Gfx6,
    GpuFamily::Gfx7,
    GpuFamily::Gfx8,
    GpuFamily::Gfx9,
    GpuFamily::Gfx90a,
    GpuFamily::Gfx94x,
    GpuFamily::Gfx10,
    GpuFamily::Gfx11,
    GpuFamily::Gfx12,
];

/// What a walk saw (so the work cannot be optimised away, and tests can
/// check a valid input was really walked).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// Items visited: segments, sections, symbols, notes, values, kernels, args...
    pub items: u64,
    /// Kernel descriptors that decoded.
    pub descriptors: u64,
    /// Kernel descriptors the decoder rejected (not a walk failure: LLVM 19
    /// itself writes descriptors its disassembler rejects on gfx10+).
    pub rejected_descriptors: u64,
}

/// A `fmt::Write` sink that formats without allocating (a fixed buffer that
/// keeps the last bytes), to exercise the `Display` impls.
struct Sink {
    buf: [u8; 256],
    len: usize,
    total: usize,
}

impl Sink {
    const fn new() -> Self {
        Self {
            buf: [0; 256],
            len: 0,
            total: 0,
        }
    }
}

impl fmt::Write for Sink {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for &b in s.as_bytes() {
            if self.len == self.buf.len() {
                self.len = 0;
            }
            self.buf[self.len] = b;
            self.len += 1;
        }
        self.total += s.len();
        Ok(())
    }
}

struct Count<'s>(&'s mut Seen);

impl<'a> Visitor<'a> for Count<'_> {
    fn scalar(&mut self, _pos: Position, value: Value<'a>) -> Result<()> {
        self.0.items += 1;
        core::hint::black_box(value);
        Ok(())
    }
    fn begin_array(&mut self, _pos: Position, len: u32) -> Result<()> {
        self.0.items += u64::from(len.min(1));
        Ok(())
    }
    fn begin_map(&mut self, _pos: Position, len: u32) -> Result<()> {
        self.0.items += u64::from(len.min(1));
        Ok(())
    }
}

/// A MessagePack document: the generic walk, the lazy value API, and the
/// typed `NT_AMDGPU_METADATA` views (every kernel, argument, printf string
/// and global).
pub fn metadata(desc: &[u8]) -> Result<Seen> {
    let mut seen = Seen::default();
    msgpack::walk(desc, &mut Count(&mut seen))?;
    let doc = msgpack::read_document(desc)?;
    value(doc, &mut seen, 0)?;
    let md = Metadata::parse(desc)?;
    typed(&md, &mut seen)?;
    Ok(seen)
}

fn value(v: Value<'_>, seen: &mut Seen, depth: u32) -> Result<()> {
    // `msgpack::walk` above already refused documents nested deeper than
    // loader-core's limit; this bound only keeps the driver's own recursion
    // finite whatever the library does.
    if depth > 2 * msgpack::MAX_DEPTH as u32 {
        return Ok(());
    }
    seen.items += 1;
    let mut sink = Sink::new();
    let _ = write!(sink, "{v:?} {}", v.type_name());
    match v {
        Value::Array(a) => {
            for item in a.iter() {
                value(item?, seen, depth + 1)?;
            }
        }
        Value::Map(m) => {
            for pair in m.iter() {
                let (k, v) = pair?;
                value(k, seen, depth + 1)?;
                value(v, seen, depth + 1)?;
            }
            // Key lookup must also stay in bounds on hostile maps.
            core::hint::black_box(m.get(".name")?);
        }
        _ => {}
    }
    Ok(())
}

fn typed(md: &Metadata<'_>, seen: &mut Seen) -> Result<()> {
    let mut sink = Sink::new();
    let _ = write!(sink, "{:?} {:?}", md.version(), md.target());
    for k in md.kernels() {
        let k = k?;
        seen.items += 1;
        let _ = write!(sink, "{k:?}");
        for a in k.args() {
            let a = a?;
            seen.items += 1;
            let _ = write!(sink, "{a:?} {}", a.value_kind);
        }
        core::hint::black_box(md.kernel(k.name)?);
    }
    for p in md.printf() {
        let p = p?;
        seen.items += 1;
        let _ = write!(sink, "{p:?}");
        for size in p.arg_sizes() {
            core::hint::black_box(size);
        }
    }
    for g in md.globals() {
        let g = g?;
        seen.items += 1;
        let _ = write!(sink, "{g:?}");
    }
    Ok(())
}

/// A whole code object: header, flags and target ID, every segment, section
/// (name and data), symbol of both tables, note, the metadata (generic and
/// typed), and every kernel descriptor (decoded for the object's family).
pub fn code_object(data: &[u8]) -> Result<Seen> {
    let mut seen = Seen::default();
    let mut sink = Sink::new();
    let elf = ElfFile::parse(data)?;
    let _ = write!(sink, "{:?} {:?}", elf.header(), elf.os_abi());
    // The code-object version is defined for the HSA OS ABI only.
    let version = match elf.os_abi() {
        OsAbi::Hsa => Some(elf.code_object_version()?),
        _ => None,
    };
    let flags = elf.flags()?;
    if let Ok(target) = TargetId::from_flags(&flags) {
        let _ = write!(sink, "{target} {}", target.without_triple());
    }
    for segment in elf.segments() {
        seen.items += 1;
        let _ = write!(sink, "{:?}", segment.header());
        core::hint::black_box(segment.data()?);
        if segment.p_type() == PT_LOAD {
            segment.check_loadable()?;
        }
    }
    for section in elf.sections() {
        seen.items += 1;
        core::hint::black_box(section.name()?);
        core::hint::black_box(section.data()?);
    }
    let mut kd_table = None;
    for table in [elf.symbols()?, elf.dynamic_symbols()?]
        .into_iter()
        .flatten()
    {
        for sym in table.iter() {
            let sym = sym?;
            seen.items += 1;
            core::hint::black_box(sym.name()?);
            core::hint::black_box((
                sym.kind(),
                sym.binding(),
                sym.visibility(),
                sym.is_undefined(),
            ));
        }
        kd_table.get_or_insert(table);
    }
    for note in elf.notes() {
        let note = note?;
        seen.items += 1;
        if note.is_amdgpu_metadata() {
            let more = metadata(note.desc).map_err(|e| e.within("metadata note", note.index))?;
            seen.items += more.items;
        }
    }
    core::hint::black_box(Metadata::from_elf(&elf)?);
    // Kernel descriptors need a family (from e_flags) and a version.
    let family = flags
        .processor
        .and_then(|p| GpuFamily::from_processor(p.name));
    if let (Some(table), Some(family), Some(version)) = (kd_table, family, version) {
        for sym in table.iter() {
            let sym = sym?;
            let name = sym.name()?;
            if sym.kind() != STT_OBJECT || !name.ends_with(b".kd") {
                continue;
            }
            let section = elf.section(usize::from(sym.section_index()))?;
            let bytes = section.data()?;
            let Some(kd) = sym
                .value()
                .checked_sub(section.header().sh_addr)
                .and_then(|o| usize::try_from(o).ok())
                .and_then(|o| bytes.get(o..o.checked_add(64)?))
            else {
                seen.rejected_descriptors += 1;
                continue;
            };
            match descriptor(kd, family, version.number() as u8) {
                Ok(n) => {
                    seen.descriptors += 1;
                    seen.items += n;
                }
                Err(_) => seen.rejected_descriptors += 1,
            }
        }
    }
    core::hint::black_box(sink.total);
    Ok(seen)
}

/// One 64-byte kernel descriptor for one family: parse, decode, directives,
/// re-encode. Returns the number of directive lines.
pub fn descriptor(
    bytes: &[u8],
    family: GpuFamily,
    version: u8,
) -> core::result::Result<u64, loader_core::kernel_descriptor::KdError> {
    let raw = KernelDescriptor::parse(bytes)?;
    core::hint::black_box(raw.to_bytes());
    let decoded = raw.decode(family)?;
    let mut sink = Sink::new();
    let mut lines = 0;
    for d in decoded.directives(version) {
        let _ = write!(sink, "{} {}", d.name, d.value);
        lines += 1;
    }
    Ok(lines)
}

/// The kernel-descriptor fuzz input: byte 0 picks the family (low nibble,
/// an index into [`FAMILIES`]) and the code-object version (3 + high nibble
/// modulo 4); the next 64 bytes are the descriptor.
pub fn descriptor_input(
    data: &[u8],
) -> core::result::Result<u64, loader_core::kernel_descriptor::KdError> {
    let (&selector, rest) = data.split_first().unwrap_or((&0, &[]));
    let family = FAMILIES[usize::from(selector & 0x0f) % FAMILIES.len()];
    let version = 3 + (selector >> 4) % 4;
    descriptor(rest, family, version)
}

/// A bundle file, a compressed bundle's header, or a host ELF's
/// `.hip_fatbin` (every bundle in it): every entry and its parsed id, and
/// every `amdgcn-amd-amdhsa` entry walked as a code object. Compressed
/// payloads are not decompressed here (see [`decompress`]).
pub fn bundle(data: &[u8]) -> Result<Seen> {
    let mut seen = Seen::default();
    match Container::parse(data)? {
        Container::Bundle(b) => entries(&b, &mut seen)?,
        Container::Compressed(c) => compressed_header(&c, &mut seen),
        Container::Elf(elf) => {
            let Some(section) = hip_fatbin_section(elf)? else {
                return Err(Error::missing(
                    "no .hip_fatbin section",
                    loader_core::Location::Input,
                ));
            };
            for item in FatbinBundles::new(section) {
                let (_, container) = item?;
                match container {
                    Container::Bundle(b) => entries(&b, &mut seen)?,
                    Container::Compressed(c) => compressed_header(&c, &mut seen),
                    Container::Elf(_) => {}
                }
            }
        }
    }
    Ok(seen)
}

fn compressed_header(c: &CompressedBundle<'_>, seen: &mut Seen) {
    seen.items += 1;
    core::hint::black_box((
        c.version(),
        c.method(),
        c.total_size(),
        c.uncompressed_size(),
        c.hash(),
    ));
    core::hint::black_box(c.compressed_data());
}

fn entries(b: &OffloadBundle<'_>, seen: &mut Seen) -> Result<()> {
    // One bad entry does not stop the walk: every entry is visited, and the
    // first entry error is the result.
    let mut first_error = None;
    for entry in b.entries() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                first_error.get_or_insert(e);
                continue;
            }
        };
        seen.items += 1;
        let id = entry.parsed_id();
        core::hint::black_box((id.kind, id.triple, id.target_id, id.processor()));
        if id.is_amdhsa() && !entry.data.is_empty() {
            // A bad code object inside a good bundle is the code object's
            // error, not the bundle's: count it and go on.
            match code_object(entry.data) {
                Ok(s) => seen.items += s.items,
                Err(_) => seen.rejected_descriptors += 1,
            }
        }
        if !id.target_id.is_empty() {
            core::hint::black_box(b.find_target(id.target_id));
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// Decompresses a compressed bundle into `scratch` (when it fits) and walks
/// the result as a bundle. This is the only driver that may allocate (the
/// zstd decoder's state), and only with the `decompress` feature.
pub fn decompress(data: &[u8], scratch: &mut [u8]) -> Result<Seen> {
    let Container::Compressed(c) = Container::parse(data)? else {
        return Ok(Seen::default());
    };
    let n = c.decompress_into(scratch)?;
    bundle(&scratch[..n])
}

/// Agent address the fake memory is mapped at (high, so that relocated
/// addresses are not small integers).
pub const FAKE_MEMORY_BASE: u64 = 0x7f00_0000_0000;

/// Loads a code object into `memory` (host bytes standing in for agent
/// memory at [`FAKE_MEMORY_BASE`]), resolving every undefined symbol except
/// those whose name contains `missing` (so both paths run), then reads back
/// every kernel, variable and symbol address.
pub fn load<'a>(
    data: &'a [u8],
    memory: &mut [u8],
) -> core::result::Result<Seen, loader_core::load::LoadError<'a>> {
    use loader_core::load::SliceMemory;
    let mut seen = Seen::default();
    let mut mem = SliceMemory::new(memory, FAKE_MEMORY_BASE);
    let loaded = loader_core::load::load(data, &mut mem, |name: &str| {
        (!name.contains("missing")).then_some(FAKE_MEMORY_BASE.wrapping_sub(0x1000))
    })?;
    let mut sink = Sink::new();
    let _ = write!(
        sink,
        "{:?} {:#x} {:#x}",
        loaded.layout(),
        loaded.address(),
        loaded.bias()
    );
    for k in loaded.kernels() {
        let k = k?;
        seen.items += 1;
        seen.descriptors += 1;
        let _ = write!(sink, "{k:?}");
        core::hint::black_box(loaded.symbol(k.name));
    }
    for v in loaded.variables() {
        seen.items += 1;
        let _ = write!(sink, "{v:?}");
        core::hint::black_box(loaded.symbol(v.name));
    }
    Ok(seen)
}
