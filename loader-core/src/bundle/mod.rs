//! Clang offload bundles: the containers HIP fat binaries put device code
//! objects in.
//!
//! Format (clang's `ClangOffloadBundler.rst`, "Binary Offload Bundle File
//! Format", and `clang/lib/Driver/OffloadBundler.cpp`), all little-endian:
//!
//! | field | size |
//! |---|---|
//! | magic `__CLANG_OFFLOAD_BUNDLE__` | 24 |
//! | number of entries | 8 |
//! | per entry: code-object offset from the bundle start, code-object size, entry-id length, entry id | 8, 8, 8, id length |
//!
//! An entry id is `<offload kind>-<target triple>[-<target id>]`, e.g.
//! `hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-` or `host-x86_64-unknown-linux--`.
//!
//! A bundle may be compressed ([`CompressedBundle`], magic `CCOB`), and a host
//! program or library carries its bundles in the `.hip_fatbin` section
//! ([`hip_fatbin_section`], [`FatbinBundles`]).
//!
//! Everything here is zero-copy and allocation-free; only
//! `CompressedBundle::decompress` (feature `decompress`) allocates.
//!
//! ```
//! use loader_core::bundle::{Container, FatbinBundles, hip_fatbin_section};
//!
//! /// The code object for `target_id` (`gfx90a:xnack-`) in the uncompressed
//! /// bundles of a HIP program's `.hip_fatbin`.
//! fn code_object_for<'a>(host_elf: &'a [u8], target_id: &str) -> loader_core::Result<Option<&'a [u8]>> {
//!     let Some(section) = hip_fatbin_section(host_elf)? else { return Ok(None) };
//!     for bundle in FatbinBundles::new(section) {
//!         if let (_, Container::Bundle(b)) = bundle? {
//!             // `find_target` skips entries that are bad on their own.
//!             if let Some(entry) = b.find_target(target_id) {
//!                 return Ok(Some(entry.data));
//!             }
//!         }
//!     }
//!     Ok(None)
//! }
//! ```

mod compressed;
pub mod md5;

pub use compressed::{CompressedBundle, CompressionMethod};

use crate::bytes::{slice, u16_at, u32_at, u64_at};
use crate::error::{Error, Location, Result, index};

/// Magic of an uncompressed bundle.
pub const OFFLOAD_BUNDLE_MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";
/// Magic of a compressed bundle.
pub const COMPRESSED_BUNDLE_MAGIC: &[u8; 4] = b"CCOB";

/// Bytes of the bundle header before the first entry.
const HEADER_SIZE: usize = 24 + 8;
/// Smallest entry record: offset, size, id length, and an empty id.
const ENTRY_MIN_SIZE: usize = 24;

/// An uncompressed offload bundle, checked: every entry's id and code object
/// lie inside the input.
#[derive(Clone, Copy, Debug)]
pub struct OffloadBundle<'a> {
    data: &'a [u8],
    count: u32,
    size: u64,
}

/// One entry of a bundle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BundleEntry<'a> {
    /// Position of the entry in the bundle's table.
    pub index: u32,
    /// The entry id, e.g. `hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-`.
    pub id: &'a str,
    /// Offset of the code object from the start of the bundle.
    pub offset: u64,
    /// The code object (empty for the host entry of a HIP fat binary).
    pub data: &'a [u8],
}

impl<'a> BundleEntry<'a> {
    /// The entry id split into offload kind, triple and target id.
    pub fn parsed_id(&self) -> BundleEntryId<'a> {
        BundleEntryId::parse(self.id)
    }
}

/// An entry id split as clang's `OffloadTargetInfo` splits it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BundleEntryId<'a> {
    /// Offload kind: `hip`, `hipv4`, `openmp`, `host`, ...
    pub kind: &'a str,
    /// Target triple, e.g. `amdgcn-amd-amdhsa-` (the environment may be empty).
    pub triple: &'a str,
    /// Target id, e.g. `gfx90a:xnack-`; empty when the id names no GPU.
    pub target_id: &'a str,
}

impl<'a> BundleEntryId<'a> {
    /// Splits `<kind>-<triple>[-<target id>]`. The target id is the last
    /// `-`-separated component before any `:` feature list when it names a
    /// GPU processor (`gfx...`, including the `gfxN-generic` names).
    pub fn parse(id: &'a str) -> Self {
        let (kind, rest) = id.split_once('-').unwrap_or((id, ""));
        let features_at = rest.find(':').unwrap_or(rest.len());
        let (before, _) = rest.split_at(features_at);
        // A generic processor name contains '-' itself: `gfx10-3-generic`.
        let gpu_at = before
            .find("-gfx")
            .map(|i| i + 1)
            .or_else(|| before.starts_with("gfx").then_some(0));
        match gpu_at {
            Some(at) => {
                let triple = rest[..at].strip_suffix('-').unwrap_or(&rest[..at]);
                BundleEntryId {
                    kind,
                    triple,
                    target_id: &rest[at..],
                }
            }
            None => BundleEntryId {
                kind,
                triple: rest,
                target_id: "",
            },
        }
    }

    /// The processor part of the target id (`gfx90a` of `gfx90a:xnack-`).
    pub fn processor(&self) -> &'a str {
        self.target_id.split(':').next().unwrap_or("")
    }

    /// Whether this is an AMDGPU HSA code object (`amdgcn-amd-amdhsa`).
    pub fn is_amdhsa(&self) -> bool {
        self.triple.trim_end_matches('-') == "amdgcn-amd-amdhsa"
    }
}

fn at_entry(what: &'static str, i: u32, offset: usize) -> Error {
    Error::out_of_bounds(what, Location::ItemOffset("bundle entry", i, offset as u64))
}

/// One record of the entry table, as read: the table's structure only.
struct Record<'a> {
    /// Where the record starts.
    pos: usize,
    offset: u64,
    size: u64,
    id: &'a [u8],
}

/// Reads the record at `pos`; returns it and the position of the next. A
/// failure here damages the table itself: no later record can be found.
fn read_record(data: &[u8], pos: usize, i: u32) -> Result<(Record<'_>, usize)> {
    let short = || at_entry("entry record runs past the end of the bundle", i, pos);
    let offset = u64_at(data, pos).ok_or_else(short)?;
    let size = u64_at(data, pos + 8).ok_or_else(short)?;
    let id_len = u64_at(data, pos + 16).ok_or_else(short)?;
    let id_at = pos + ENTRY_MIN_SIZE;
    let id = slice(data, id_at as u64, id_len).ok_or(at_entry(
        "entry id runs past the end of the bundle",
        i,
        id_at,
    ))?;
    // id_len fits: `slice` checked id_at + id_len <= data.len().
    let next = id_at + id_len as usize;
    Ok((
        Record {
            pos,
            offset,
            size,
            id,
        },
        next,
    ))
}

/// The entry a record describes, or what is wrong with it alone (an id
/// that is not UTF-8, a code object outside the bundle): the other entries
/// are not affected.
fn entry_of<'a>(data: &'a [u8], r: &Record<'a>, i: u32) -> Result<BundleEntry<'a>> {
    let id_at = (r.pos + ENTRY_MIN_SIZE) as u64;
    let id = core::str::from_utf8(r.id).map_err(|_| {
        Error::malformed(
            "entry id is not UTF-8",
            Location::ItemOffset("bundle entry", i, id_at),
        )
    })?;
    let code = slice(data, r.offset, r.size).ok_or(at_entry(
        "code object runs past the end of the bundle",
        i,
        r.pos,
    ))?;
    Ok(BundleEntry {
        index: i,
        id,
        offset: r.offset,
        data: code,
    })
}

impl<'a> OffloadBundle<'a> {
    /// Parses a bundle that starts at `data[0]`; `data` may extend past the
    /// bundle's end (as in a `.hip_fatbin` section).
    ///
    /// The header and the entry table must be whole (each record and its id
    /// inside the input), since a record is found only after the previous
    /// one. What an entry points to is checked per entry, when
    /// [`entries`](Self::entries) yields it: one bad entry does not hide the
    /// others.
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        if data.len() < OFFLOAD_BUNDLE_MAGIC.len() || data[..24] != *OFFLOAD_BUNDLE_MAGIC {
            return Err(Error::malformed(
                "not a clang offload bundle (bad magic)",
                Location::Offset(0),
            ));
        }
        let count = u64_at(data, 24).ok_or(Error::truncated(
            "bundle header runs past the end",
            Location::Offset(24),
        ))?;
        let room = (data.len() - HEADER_SIZE.min(data.len())) / ENTRY_MIN_SIZE;
        if count > room as u64 {
            return Err(Error::limit(
                "entry count exceeds what the bundle can hold",
                Location::Offset(24),
            ));
        }
        let count = u32::try_from(count).map_err(|_| {
            Error::limit(
                "entry count exceeds what the bundle can hold",
                Location::Offset(24),
            )
        })?;
        let mut pos = HEADER_SIZE;
        let mut size = HEADER_SIZE as u64;
        for i in 0..count {
            let (record, next) = read_record(data, pos, i)?;
            pos = next;
            size = size.max(pos as u64);
            // A bad entry's code object does not count toward the size.
            if let Some(end) = record.offset.checked_add(record.size) {
                if end <= data.len() as u64 {
                    size = size.max(end);
                }
            }
        }
        trace!("bundle: {} entries, {} bytes", count, size);
        Ok(Self { data, count, size })
    }

    /// Number of entries.
    pub fn len(&self) -> u32 {
        self.count
    }

    /// Whether the bundle has no entries.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Bytes from the bundle start to the end of its last header or code
    /// object (where a following bundle in a `.hip_fatbin` may begin).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The entries, in table order: exactly [`len`](Self::len) results, each
    /// the entry or what is wrong with it.
    pub fn entries(&self) -> BundleEntries<'a> {
        BundleEntries {
            data: self.data,
            pos: HEADER_SIZE,
            next: 0,
            count: self.count,
        }
    }

    /// The good entry whose id is exactly `id`.
    pub fn find(&self, id: &str) -> Option<BundleEntry<'a>> {
        self.entries().filter_map(Result::ok).find(|e| e.id == id)
    }

    /// The good AMDGPU HSA entry whose target id is exactly `target_id`
    /// (`gfx90a:xnack-`), whatever its offload kind.
    pub fn find_target(&self, target_id: &str) -> Option<BundleEntry<'a>> {
        self.entries().filter_map(Result::ok).find(|e| {
            let id = e.parsed_id();
            id.is_amdhsa() && id.target_id == target_id
        })
    }
}

/// Iterator over the entries of an [`OffloadBundle`]: one result per entry.
#[derive(Clone, Debug)]
pub struct BundleEntries<'a> {
    data: &'a [u8],
    pos: usize,
    next: u32,
    count: u32,
}

impl<'a> Iterator for BundleEntries<'a> {
    type Item = Result<BundleEntry<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.count {
            return None;
        }
        let i = self.next;
        match read_record(self.data, self.pos, i) {
            Ok((record, next)) => {
                self.pos = next;
                self.next += 1;
                Some(entry_of(self.data, &record, i))
            }
            // The table was checked when parsed, so this cannot happen; if it
            // did, no later record could be found.
            Err(e) => {
                self.next = self.count;
                Some(Err(e))
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.count - self.next) as usize;
        (n, Some(n))
    }
}

/// What a byte buffer holds, by its magic.
#[derive(Clone, Copy, Debug)]
pub enum Container<'a> {
    /// An uncompressed offload bundle.
    Bundle(OffloadBundle<'a>),
    /// A compressed offload bundle.
    Compressed(CompressedBundle<'a>),
    /// An ELF file (a code object, or a host binary with `.hip_fatbin`).
    Elf(&'a [u8]),
}

impl<'a> Container<'a> {
    /// Identifies and parses `data` by its magic.
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        if data.starts_with(OFFLOAD_BUNDLE_MAGIC) {
            OffloadBundle::parse(data).map(Self::Bundle)
        } else if data.starts_with(COMPRESSED_BUNDLE_MAGIC) {
            CompressedBundle::parse(data).map(Self::Compressed)
        } else if data.starts_with(b"\x7fELF") {
            Ok(Self::Elf(data))
        } else {
            Err(Error::malformed(
                "neither an ELF file nor a clang offload bundle (unknown magic)",
                Location::Offset(0),
            ))
        }
    }

    /// Bytes the container spans from its start, when known (a version 1
    /// compressed bundle and an ELF file do not record it: `None`).
    pub fn size(&self) -> Option<u64> {
        match self {
            Self::Bundle(b) => Some(b.size()),
            Self::Compressed(c) => c.total_size(),
            Self::Elf(_) => None,
        }
    }
}

/// The contents of the `.hip_fatbin` section of a little-endian ELF64 host
/// file (a HIP program, shared library or object), or `None` if it has no
/// such section. Only the section headers and their string table are read.
pub fn hip_fatbin_section(host: &[u8]) -> Result<Option<&[u8]>> {
    let bad = |what, at| Err(Error::malformed(what, Location::Offset(at)));
    if !host.starts_with(b"\x7fELF") {
        return bad("not an ELF file (bad magic)", 0);
    }
    if host.get(4) != Some(&2) || host.get(5) != Some(&1) {
        return Err(Error::unsupported(
            "not a little-endian ELF64 file",
            Location::Offset(4),
        ));
    }
    let trunc = Error::truncated(
        "ELF header runs past the end of the file",
        Location::Offset(0),
    );
    let shoff = u64_at(host, 40).ok_or(trunc)?;
    let shentsize = u16_at(host, 58).ok_or(trunc)?;
    let mut shnum = u64::from(u16_at(host, 60).ok_or(trunc)?);
    let mut shstrndx = u32::from(u16_at(host, 62).ok_or(trunc)?);
    if shoff == 0 {
        return Ok(None);
    }
    if shentsize != 64 {
        return bad("e_shentsize is not 64", 58);
    }
    let oob = Error::out_of_bounds(
        "section header table runs past the end of the file",
        Location::Offset(40),
    );
    let header = |i: u64| -> Result<&[u8]> {
        let at = i
            .checked_mul(64)
            .and_then(|o| o.checked_add(shoff))
            .ok_or(oob)?;
        slice(host, at, 64).ok_or(oob)
    };
    if shnum == 0 || shstrndx == 0xffff {
        let sh0 = header(0)?;
        if shnum == 0 {
            shnum = u64_at(sh0, 32).ok_or(oob)?;
        }
        if shstrndx == 0xffff {
            shstrndx = u32_at(sh0, 40).ok_or(oob)?;
        }
    }
    if shnum > (host.len() as u64) / 64 {
        return Err(Error::limit(
            "section count exceeds what the file can hold",
            Location::Offset(60),
        ));
    }
    let section_data = |sh: &[u8], i: u64| -> Result<&[u8]> {
        let at = Location::Item("section", index(i as usize));
        let sh_type = u32_at(sh, 4).ok_or(oob)?;
        let off = u64_at(sh, 24).ok_or(oob)?;
        let size = u64_at(sh, 32).ok_or(oob)?;
        if sh_type == 8 {
            return Ok(&[]); // SHT_NOBITS
        }
        slice(host, off, size).ok_or(Error::out_of_bounds(
            "section data runs past the end of the file",
            at,
        ))
    };
    if u64::from(shstrndx) >= shnum {
        return bad("e_shstrndx is not a section", 62);
    }
    let strtab = section_data(header(u64::from(shstrndx))?, u64::from(shstrndx))?;
    for i in 1..shnum {
        let sh = header(i)?;
        let name_at = u32_at(sh, 0).ok_or(oob)? as usize;
        let name = strtab.get(name_at..).unwrap_or(&[]);
        if name.starts_with(b".hip_fatbin\0") {
            return section_data(sh, i).map(Some);
        }
    }
    Ok(None)
}

/// The bundles packed one after another in a `.hip_fatbin` section (the
/// linker concatenates one per translation unit, padding with zeros to each
/// bundle's alignment). Stops for good after the first error.
#[derive(Clone, Debug)]
pub struct FatbinBundles<'a> {
    data: &'a [u8],
    pos: usize,
    index: u32,
    done: bool,
}

impl<'a> FatbinBundles<'a> {
    /// Iterates the bundles in `section` (see [`hip_fatbin_section`]).
    pub fn new(section: &'a [u8]) -> Self {
        Self {
            data: section,
            pos: 0,
            index: 0,
            done: false,
        }
    }

    fn fail(&mut self, e: Error) -> Option<Result<(u64, Container<'a>)>> {
        self.done = true;
        Some(Err(e))
    }
}

impl<'a> Iterator for FatbinBundles<'a> {
    /// The bundle's offset in the section, and the bundle.
    type Item = Result<(u64, Container<'a>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        // Skip the zero padding between bundles.
        let rest = self.data.get(self.pos..).unwrap_or(&[]);
        let skip = rest.iter().position(|&b| b != 0).unwrap_or(rest.len());
        self.pos += skip;
        let rest = &rest[skip..];
        if rest.is_empty() {
            self.done = true;
            return None;
        }
        let at = self.pos as u64;
        let i = self.index;
        let container = if rest.starts_with(OFFLOAD_BUNDLE_MAGIC) {
            OffloadBundle::parse(rest).map(Container::Bundle)
        } else if rest.starts_with(COMPRESSED_BUNDLE_MAGIC) {
            CompressedBundle::parse(rest).map(Container::Compressed)
        } else {
            Err(Error::malformed(
                "bytes between bundles are neither padding nor a bundle",
                Location::Offset(at),
            ))
        };
        let container = match container {
            Ok(c) => c,
            Err(e) => return self.fail(e.within("bundle", i)),
        };
        // A version 1 compressed bundle does not record its size: it runs to
        // the end of the section.
        let size = container.size().unwrap_or(rest.len() as u64);
        match usize::try_from(size)
            .ok()
            .and_then(|s| self.pos.checked_add(s))
        {
            Some(next) if size > 0 => self.pos = next,
            _ => {
                return self.fail(Error::malformed(
                    "bundle of size zero",
                    Location::Item("bundle", i),
                ));
            }
        }
        self.index += 1;
        Some(Ok((at, container)))
    }
}
