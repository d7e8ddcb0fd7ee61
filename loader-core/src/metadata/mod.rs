//! Typed, zero-copy views of code-object metadata.
//!
//! - Code object v3 and later: the `NT_AMDGPU_METADATA` note (owner
//!   `"AMDGPU"`, type 32) is one MessagePack map (AMDGPUUsage "Code Object
//!   V3 Metadata", and the V4, V5 and V6 sections that extend it).
//!   [`Metadata::parse`] reads the top-level keys (`amdhsa.version`,
//!   `amdhsa.target`, `amdhsa.printf`, `amdhsa.kernels`, `amdhsa.globals`);
//!   [`Metadata::kernels`] yields one [`Kernel`] per kernel map, each field
//!   read in one pass over the map, and [`Kernel::args`] yields the
//!   [`KernelArg`]s. Strings borrow the note; nothing is allocated.
//! - Code object v2: the `NT_AMD_HSA_*` notes and `amd_kernel_code_t`, in
//!   [`v2`].
//!
//! Keys the reader does not know are skipped, so metadata from a newer
//! LLVM still reads. Known keys are checked as LLVM's own verifier checks
//! them (`llvm/lib/BinaryFormat/AMDGPUMetadataVerifier.cpp`): types, the
//! allowed strings of `.value_kind`, `.address_space`, `.access`,
//! `.language`, array lengths, and required keys. A duplicated known key is
//! an error. Every error names the kernel or argument and the key.
//!
//! For tools that want the map exactly as written (e.g. JSON output with the
//! MessagePack keys), [`Metadata::map`] gives the raw map for
//! [`crate::msgpack::walk`]-style visiting.
//!
//! ```
//! use loader_core::metadata::{Metadata, ValueKind};
//! // A minimal map, as MessagePack: {"amdhsa.version": [1, 2],
//! //   "amdhsa.kernels": [{".name": "k", ".symbol": "k.kd", ...}]}
//! # let mut doc = vec![0x82, 0xae];
//! # doc.extend_from_slice(b"amdhsa.version");
//! # doc.extend_from_slice(&[0x92, 1, 2, 0xae]);
//! # doc.extend_from_slice(b"amdhsa.kernels");
//! # doc.extend_from_slice(&[0x91, 0x8a]);
//! # for (k, v) in [(".kernarg_segment_size", 8u8), (".kernarg_segment_align", 8),
//! #     (".group_segment_fixed_size", 0), (".private_segment_fixed_size", 0),
//! #     (".wavefront_size", 64), (".sgpr_count", 10), (".vgpr_count", 4),
//! #     (".max_flat_workgroup_size", 64)] {
//! #     doc.push(0xa0 | k.len() as u8);
//! #     doc.extend_from_slice(k.as_bytes());
//! #     doc.push(v);
//! # }
//! # doc.extend_from_slice(&[0xa5]); doc.extend_from_slice(b".name");
//! # doc.extend_from_slice(&[0xa1, b'k']);
//! # doc.extend_from_slice(&[0xa7]); doc.extend_from_slice(b".symbol");
//! # doc.extend_from_slice(&[0xa4]); doc.extend_from_slice(b"k.kd");
//! let md = Metadata::parse(&doc)?;
//! assert_eq!(md.version(), [1, 2]);
//! for kernel in md.kernels() {
//!     let kernel = kernel?;
//!     assert_eq!((kernel.name, kernel.symbol), ("k", "k.kd"));
//!     assert_eq!(kernel.kernarg_segment_size, 8);
//!     for arg in kernel.args() {
//!         let arg = arg?;
//!         let _hidden = arg.value_kind.is_hidden();
//!         let _ = ValueKind::ALL;
//!     }
//! }
//! # Ok::<(), loader_core::Error>(())
//! ```

mod kernel;
pub mod v2;

pub use kernel::{
    Access, AddressSpace, Kernel, KernelArg, KernelArgs, KernelKind, Language, ValueKind, ValueType,
};

use crate::elf::ElfFile;
use crate::error::{Error, Location, Result};
use crate::msgpack::{self, Array, ArrayIter, Map, Value};

/// The v3+ metadata map of one code object.
#[derive(Debug, Clone, Copy)]
pub struct Metadata<'a> {
    map: Map<'a>,
    version: [u32; 2],
    target: Option<&'a str>,
    printf: Option<Array<'a>>,
    kernels: Option<Array<'a>>,
    globals: Option<Array<'a>>,
}

impl<'a> Metadata<'a> {
    /// Reads the descriptor of an `NT_AMDGPU_METADATA` note.
    pub fn parse(desc: &'a [u8]) -> Result<Self> {
        let map = match msgpack::read_document(desc)? {
            Value::Map(m) => m,
            _ => {
                return Err(Error::malformed(
                    "metadata is not a MessagePack map",
                    Location::Offset(0),
                ));
            }
        };
        let mut version = None;
        let mut target = None;
        let mut printf = None;
        let mut kernels = None;
        let mut globals = None;
        for entry in map.iter() {
            let (k, v) = entry?;
            let Value::Str(key) = k else { continue };
            match key {
                "amdhsa.version" => set(
                    &mut version,
                    int_array::<2>(v, Location::Field("amdhsa.version"))?,
                    "amdhsa.version",
                )?,
                "amdhsa.target" => set(
                    &mut target,
                    string(v, Location::Field("amdhsa.target"))?,
                    "amdhsa.target",
                )?,
                "amdhsa.printf" => set(
                    &mut printf,
                    array(v, Location::Field("amdhsa.printf"))?,
                    "amdhsa.printf",
                )?,
                "amdhsa.kernels" => set(
                    &mut kernels,
                    array(v, Location::Field("amdhsa.kernels"))?,
                    "amdhsa.kernels",
                )?,
                "amdhsa.globals" => set(
                    &mut globals,
                    array(v, Location::Field("amdhsa.globals"))?,
                    "amdhsa.globals",
                )?,
                _ => {}
            }
        }
        let version = version.ok_or(Error::missing(
            "required key is missing",
            Location::Field("amdhsa.version"),
        ))?;
        if kernels.is_none() {
            return Err(Error::missing(
                "required key is missing",
                Location::Field("amdhsa.kernels"),
            ));
        }
        Ok(Self {
            map,
            version,
            target,
            printf,
            kernels,
            globals,
        })
    }

    /// Finds the `NT_AMDGPU_METADATA` note of `file` and reads it; `None`
    /// when the file has no such note (code object v2, or stripped).
    pub fn from_elf(file: &ElfFile<'a>) -> Result<Option<Self>> {
        for note in file.notes() {
            let note = note?;
            if note.is_amdgpu_metadata() {
                return Self::parse(note.desc)
                    .map(Some)
                    .map_err(|e| match e.location() {
                        Location::Offset(o) => {
                            e.at(Location::ItemOffset("metadata note", note.index, o))
                        }
                        _ => e,
                    });
            }
        }
        Ok(None)
    }

    /// The raw top-level map.
    pub fn map(&self) -> Map<'a> {
        self.map
    }

    /// `amdhsa.version`: major, minor (LLVM writes 1.0 for v3, 1.1 for v4,
    /// 1.2 for v5 and, in LLVM 19, 1.2 for v6).
    pub fn version(&self) -> [u32; 2] {
        self.version
    }

    /// Checks the map against the ELF file it came from: `amdhsa.version`
    /// must fit the code-object version (major 1; minor 0 for v3, 1 for v4,
    /// 2 for v5, at least 2 for v6), and `amdhsa.target`, when present,
    /// must name the same target as `e_flags`.
    pub fn check_against(&self, file: &ElfFile<'_>) -> Result<()> {
        use crate::elf::CodeObjectVersion as V;
        let at = Location::Field("amdhsa.version");
        let [major, minor] = self.version;
        let ok = major == 1
            && match file.code_object_version()? {
                V::V2 => false,
                V::V3 => minor == 0,
                V::V4 => minor == 1,
                V::V5 => minor == 2,
                V::V6 => minor >= 2,
            };
        if !ok {
            return Err(Error::inconsistent(
                "metadata version does not fit the ELF code-object version",
                at,
            ));
        }
        if let Some(text) = self.target {
            let at = Location::Field("amdhsa.target");
            let named = crate::target::TargetId::parse(text).map_err(|e| e.at(at))?;
            let flags = crate::target::TargetId::from_flags(&file.flags()?)?;
            if named != flags {
                return Err(Error::inconsistent(
                    "target differs from the one e_flags give",
                    at,
                ));
            }
        }
        Ok(())
    }

    /// `amdhsa.target`: the target ID (v4+).
    pub fn target(&self) -> Option<&'a str> {
        self.target
    }

    /// `amdhsa.printf`: the printf format descriptors.
    pub fn printf(&self) -> PrintfIter<'a> {
        PrintfIter {
            entries: Entries::new(self.printf),
        }
    }

    /// Number of kernels in `amdhsa.kernels`.
    pub fn kernel_count(&self) -> u32 {
        self.kernels.map_or(0, |a| a.len())
    }

    /// The kernels, in order. Fused after the first error.
    pub fn kernels(&self) -> Kernels<'a> {
        Kernels {
            entries: Entries::new(self.kernels),
        }
    }

    /// The kernel whose `.name` is `name`.
    pub fn kernel(&self, name: &str) -> Result<Option<Kernel<'a>>> {
        for k in self.kernels() {
            let k = k?;
            if k.name == name {
                return Ok(Some(k));
            }
        }
        Ok(None)
    }

    /// The kernel whose `.symbol` (kernel-descriptor symbol, `<name>.kd`)
    /// is `symbol`.
    pub fn kernel_by_symbol(&self, symbol: &str) -> Result<Option<Kernel<'a>>> {
        for k in self.kernels() {
            let k = k?;
            if k.symbol == symbol {
                return Ok(Some(k));
            }
        }
        Ok(None)
    }

    /// `amdhsa.globals`: each `.name` and `.size`.
    pub fn globals(&self) -> Globals<'a> {
        Globals {
            entries: Entries::new(self.globals),
        }
    }
}

/// The walk every metadata array iterator shares (`amdhsa.kernels`,
/// `amdhsa.globals`, `amdhsa.printf`, `.args`): numbers the entries, names
/// the entry in an error, and stops for good after the first error.
#[derive(Debug, Clone)]
pub(crate) struct Entries<'a> {
    inner: Option<ArrayIter<'a>>,
    index: u32,
    done: bool,
}

impl<'a> Entries<'a> {
    pub(crate) fn new(array: Option<Array<'a>>) -> Self {
        Self {
            inner: array.map(|a| a.iter()),
            index: 0,
            done: false,
        }
    }

    /// Parses the next entry with `parse(value, index)`; an error is
    /// wrapped as `what` number `index` and ends the walk.
    pub(crate) fn next_with<T>(
        &mut self,
        what: &'static str,
        parse: impl FnOnce(Value<'a>, u32) -> Result<T>,
    ) -> Option<Result<T>> {
        if self.done {
            return None;
        }
        let v = self.inner.as_mut()?.next()?;
        let i = self.index;
        self.index = self.index.saturating_add(1);
        let r = v.and_then(|v| parse(v, i)).map_err(|e| e.within(what, i));
        self.done = r.is_err();
        Some(r)
    }
}

/// Iterator over [`Metadata::kernels`].
#[derive(Debug, Clone)]
pub struct Kernels<'a> {
    entries: Entries<'a>,
}

impl<'a> Iterator for Kernels<'a> {
    type Item = Result<Kernel<'a>>;
    fn next(&mut self) -> Option<Self::Item> {
        self.entries.next_with("kernel", Kernel::parse)
    }
}

/// One entry of `amdhsa.globals` (name and size of a global variable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Global<'a> {
    /// `.name`.
    pub name: &'a str,
    /// `.size`.
    pub size: u64,
}

/// Iterator over [`Metadata::globals`].
#[derive(Debug, Clone)]
pub struct Globals<'a> {
    entries: Entries<'a>,
}

impl<'a> Iterator for Globals<'a> {
    type Item = Result<Global<'a>>;
    fn next(&mut self) -> Option<Self::Item> {
        self.entries.next_with("global", |v, _| {
            let m = map(v, Location::Input)?;
            let mut name = None;
            let mut size = None;
            for e in m.iter() {
                let (k, v) = e?;
                match k {
                    Value::Str(".name") => {
                        set(&mut name, string(v, Location::Field(".name"))?, ".name")?
                    }
                    Value::Str(".size") => {
                        set(&mut size, uint(v, Location::Field(".size"))?, ".size")?
                    }
                    _ => {}
                }
            }
            Ok(Global {
                name: name.ok_or(Error::missing(
                    "required key is missing",
                    Location::Field(".name"),
                ))?,
                size: size.ok_or(Error::missing(
                    "required key is missing",
                    Location::Field(".size"),
                ))?,
            })
        })
    }
}

/// One `amdhsa.printf` entry, `ID:N:S[0]:...:S[N-1]:FormatString`
/// (AMDGPUUsage "Code Object V3 Metadata").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Printf<'a> {
    /// The unique id of the printf call.
    pub id: u32,
    /// The number of arguments (after the format string).
    pub arg_count: u32,
    sizes: &'a str,
    /// The format string (may itself contain `:`).
    pub format: &'a str,
}

impl<'a> Printf<'a> {
    /// Parses one descriptor string.
    pub fn parse(s: &'a str) -> Result<Self> {
        let bad = |what| Error::malformed(what, Location::Field("amdhsa.printf"));
        let (id, rest) = s
            .split_once(':')
            .ok_or(bad("printf descriptor has no ID field"))?;
        let (n, mut rest) = rest
            .split_once(':')
            .ok_or(bad("printf descriptor has no argument count"))?;
        let id: u32 = id
            .parse()
            .map_err(|_| bad("printf ID is not a 32-bit integer"))?;
        let arg_count: u32 = n
            .parse()
            .map_err(|_| bad("printf argument count is not a 32-bit integer"))?;
        let sizes_start = rest;
        let mut sizes_len = 0usize;
        for _ in 0..arg_count {
            let (size, tail) = rest
                .split_once(':')
                .ok_or(bad("printf descriptor has fewer sizes than arguments"))?;
            size.parse::<u32>()
                .map_err(|_| bad("printf argument size is not a 32-bit integer"))?;
            sizes_len = sizes_len.saturating_add(size.len() + 1);
            rest = tail;
        }
        let sizes = sizes_start.get(..sizes_len.saturating_sub(1)).unwrap_or("");
        Ok(Self {
            id,
            arg_count,
            sizes,
            format: rest,
        })
    }

    /// The size in bytes of each argument, in order.
    pub fn arg_sizes(&self) -> impl Iterator<Item = u32> + 'a {
        let s = self.sizes;
        s.split(':')
            .filter(move |_| !s.is_empty())
            .map(|v| v.parse().unwrap_or(0))
    }
}

/// Iterator over [`Metadata::printf`].
#[derive(Debug, Clone)]
pub struct PrintfIter<'a> {
    entries: Entries<'a>,
}

impl<'a> Iterator for PrintfIter<'a> {
    type Item = Result<Printf<'a>>;
    fn next(&mut self) -> Option<Self::Item> {
        self.entries.next_with("printf", |v, _| {
            string(v, Location::Field("amdhsa.printf")).and_then(Printf::parse)
        })
    }
}

// Typed field readers shared with `kernel`: each says which key was wrong.

pub(crate) fn set<T>(slot: &mut Option<T>, v: T, key: &'static str) -> Result<()> {
    if slot.is_some() {
        return Err(Error::malformed("key appears twice", Location::Field(key)));
    }
    *slot = Some(v);
    Ok(())
}

pub(crate) fn string<'a>(v: Value<'a>, at: Location) -> Result<&'a str> {
    v.as_str().ok_or(Error::malformed("expected a string", at))
}

pub(crate) fn uint(v: Value<'_>, at: Location) -> Result<u64> {
    match v {
        Value::UInt(u) => Ok(u),
        Value::Int(_) => Err(Error::malformed("expected a non-negative integer", at)),
        _ => Err(Error::malformed("expected an integer", at)),
    }
}

pub(crate) fn u32_(v: Value<'_>, at: Location) -> Result<u32> {
    u32::try_from(uint(v, at)?).map_err(|_| Error::overflow("integer does not fit in 32 bits", at))
}

pub(crate) fn boolean(v: Value<'_>, at: Location) -> Result<bool> {
    v.as_bool()
        .ok_or(Error::malformed("expected a boolean", at))
}

pub(crate) fn array<'a>(v: Value<'a>, at: Location) -> Result<Array<'a>> {
    v.as_array()
        .ok_or(Error::malformed("expected an array", at))
}

pub(crate) fn map<'a>(v: Value<'a>, at: Location) -> Result<Map<'a>> {
    v.as_map().ok_or(Error::malformed("expected a map", at))
}

/// An array of exactly `N` unsigned 32-bit integers.
pub(crate) fn int_array<const N: usize>(v: Value<'_>, at: Location) -> Result<[u32; N]> {
    let a = array(v, at)?;
    if a.len() as usize != N {
        return Err(Error::malformed(
            "array has the wrong number of elements",
            at,
        ));
    }
    let mut out = [0u32; N];
    for (slot, e) in out.iter_mut().zip(a.iter()) {
        *slot = u32_(e?, at)?;
    }
    Ok(out)
}
