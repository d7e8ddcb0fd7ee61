//! `hsa inspect FILE [--json]`: what an AMDGPU code object, a clang offload
//! bundle (compressed `CCOB` too) or a HIP host binary (`.hip_fatbin`) holds:
//! targets, kernels, arguments, resources and kernel descriptors, decoded by
//! `loader-core`.
//!
//! `--json` prints one object: the container and its bundle entries, and per
//! code object its ELF identification, the `NT_AMDGPU_METADATA` map with
//! exactly the MessagePack keys (`amdhsa.version`, `amdhsa.kernels`,
//! `.name`, `.args`, ...) and the kernel descriptors as the `.amdhsa_*`
//! directives `llvm-objdump` prints.
//!
//! Every bundle entry is listed, each with what it holds or with its own
//! error (`"error"` in JSON): one bad entry never hides the others. The exit
//! status is 1 when any entry or bundle failed (with a count on standard
//! error), 0 otherwise. A file that cannot be read at all is one line on
//! standard error saying what is wrong and where, and exit status 1.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use loader_core::bundle::{
    CompressedBundle, Container, FatbinBundles, OffloadBundle, hip_fatbin_section,
};
use loader_core::elf::{ElfFile, OsAbi};
use loader_core::kernel_descriptor::{GpuFamily, KernelDescriptor};
use loader_core::metadata::{Kernel, Metadata};
use loader_core::msgpack;
use loader_core::target::TargetId;
use serde::{Serialize, Serializer};

use crate::json;

/// `e_machine` of AMDGPU code objects (`EM_AMDGPU`).
const EM_AMDGPU: u16 = 224;
/// `SHT_RELA`: relocation entries with addends (24 bytes each in ELF64).
const SHT_RELA: u32 = 4;
/// `STT_OBJECT`: the symbol type of kernel descriptors.
const STT_OBJECT: u8 = 1;
/// Largest decompressed bundle accepted (its size is read from the input).
const MAX_DECOMPRESSED: usize = 1 << 30;

/// Arguments of `hsa inspect`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A code object (.co/.hsaco), a clang offload bundle (plain or
    /// compressed CCOB), or a host ELF (program, library, object) with a
    /// .hip_fatbin section.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Print one JSON object instead of text (metadata with its exact
    /// MessagePack keys; a failed entry has an "error" string).
    #[arg(long)]
    json: bool,
}

/// Runs the subcommand: the report on standard output; exit 0 when every
/// part was decoded, 1 when an entry or bundle failed (the report still
/// lists everything) or the file cannot be read at all (one line on
/// standard error).
pub fn run(args: &Args) -> ExitCode {
    let file = args.file.display().to_string();
    let bytes = match std::fs::read(&args.file) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("hsa: inspect {file}: cannot read: {e}");
            return ExitCode::FAILURE;
        }
    };
    if bytes.is_empty() {
        eprintln!("hsa: inspect {file}: empty file");
        return ExitCode::FAILURE;
    }
    let report = match inspect(&bytes) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("hsa: inspect {file}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let written = if args.json {
        json::print(&report.json(&file), false)
    } else {
        let text = report.to_text(&file);
        match std::io::stdout().lock().write_all(text.as_bytes()) {
            // A closed pipe (`hsa inspect F | head`) is not an error.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            other => other,
        }
    };
    if let Err(e) = written {
        eprintln!("hsa: inspect {file}: cannot write the report: {e}");
        return ExitCode::FAILURE;
    }
    let (failed, total) = report.failures();
    if failed > 0 {
        eprintln!("hsa: inspect {file}: {failed} of {total} bundle entries failed");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// What the file is, with everything decoded from it.
enum Report {
    CodeObject(CodeObject),
    /// A bundle file (uncompressed or compressed).
    Bundle(Bundle),
    /// A host ELF with `.hip_fatbin`: its bundles.
    HostFatbin(Vec<Bundle>),
}

#[derive(Serialize)]
struct Bundle {
    /// Offset in the `.hip_fatbin` section (0 for a bundle file).
    offset: u64,
    /// The `CCOB` header of a compressed bundle.
    compressed: Option<Compressed>,
    entries: Vec<Entry>,
    /// Why the bundle itself could not be read (a `.hip_fatbin` walk stops
    /// there: nothing after it can be located).
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Serialize)]
struct Compressed {
    version: u16,
    method: &'static str,
    size: usize,
    uncompressed_size: u64,
}

#[derive(Serialize)]
struct Entry {
    /// Position in the bundle's table.
    #[serde(skip)]
    index: u32,
    /// `None` (JSON `null`) when the entry's own record is unreadable.
    id: Option<String>,
    offset: Option<u64>,
    size: Option<usize>,
    /// The decoded code object of a good `amdgcn-amd-amdhsa` entry.
    code_object: Option<CodeObject>,
    /// Why this entry could not be read or decoded.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// The whole report as serde sees it: `{"file", "kind", "code_object" |
/// "bundles"}`.
#[derive(Serialize)]
struct JsonReport<'a> {
    file: &'a str,
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    code_object: Option<&'a CodeObject>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bundles: Option<Vec<&'a Bundle>>,
}

/// A decoded kernel descriptor: `(.amdhsa_ directive, value, printed as a
/// comment)` in `llvm-objdump`'s order.
type DirectiveLines = Vec<(&'static str, u64, bool)>;

#[derive(Serialize)]
struct CodeObject {
    target: String,
    os_abi: String,
    #[serde(rename = "code_object_version")]
    version: Option<u32>,
    e_flags: u32,
    /// The metadata map as JSON, keys exactly as in the note.
    #[serde(rename = "metadata")]
    metadata_json: Option<serde_json::Value>,
    /// Entries of the `SHT_RELA` sections (`.rela.dyn`).
    #[serde(rename = "dynamic_relocations")]
    relocations: u64,
    /// Exported variables (`STT_OBJECT` in `.dynsym`, not `.kd`).
    variables: Vec<Variable>,
    /// Undefined dynamic symbols the loader must resolve.
    #[serde(rename = "undefined_symbols")]
    undefined: Vec<String>,
    #[serde(rename = "kernel_descriptors")]
    descriptors: Vec<Descriptor>,
    /// The typed summary the text report prints.
    #[serde(skip)]
    metadata: Option<MetadataSummary>,
}

#[derive(Serialize)]
struct Variable {
    name: String,
    size: u64,
}

/// A `.kd` symbol and its decoded directives, or why they could not be.
struct Descriptor {
    symbol: String,
    decoded: Result<DirectiveLines, String>,
}

impl Serialize for Descriptor {
    /// `{"symbol", "directives": {...}, "comments": {...}}` in
    /// `llvm-objdump`'s order, or `{"symbol", "error"}`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("symbol", &self.symbol)?;
        match &self.decoded {
            Ok(lines) => {
                let part = |comment: bool| -> serde_json::Map<String, serde_json::Value> {
                    lines
                        .iter()
                        .filter(|(_, _, c)| *c == comment)
                        .map(|(name, value, _)| ((*name).to_owned(), (*value).into()))
                        .collect()
                };
                m.serialize_entry("directives", &part(false))?;
                m.serialize_entry("comments", &part(true))?;
            }
            Err(e) => m.serialize_entry("error", e)?,
        }
        m.end()
    }
}

struct MetadataSummary {
    version: [u32; 2],
    target: Option<String>,
    printf: usize,
    kernels: Vec<KernelSummary>,
}

struct KernelSummary {
    name: String,
    symbol: String,
    language: Option<String>,
    kernarg_size: u32,
    kernarg_align: u32,
    group: u32,
    private: u32,
    dynamic_stack: Option<bool>,
    wavefront: u32,
    sgprs: u32,
    vgprs: u32,
    agprs: Option<u32>,
    spills: (Option<u32>, Option<u32>),
    max_flat_workgroup: u32,
    reqd_workgroup: Option<[u32; 3]>,
    args: Vec<ArgSummary>,
}

struct ArgSummary {
    offset: u32,
    size: u32,
    value_kind: String,
    address_space: Option<String>,
    type_name: Option<String>,
    name: Option<String>,
    qualifiers: Vec<&'static str>,
}

/// Decodes whatever `bytes` holds. An error here means nothing could be
/// listed (not a container, a bad code object, a bad lone bundle); errors
/// of single bundle entries, and of a bundle inside `.hip_fatbin`, are kept
/// in the report beside everything else.
fn inspect(bytes: &[u8]) -> Result<Report, String> {
    match Container::parse(bytes).map_err(|e| e.to_string())? {
        Container::Elf(data) => {
            let machine = data.get(18..20).map(|m| u16::from_le_bytes([m[0], m[1]]));
            if machine == Some(EM_AMDGPU) {
                return code_object(data).map(Report::CodeObject);
            }
            let section = hip_fatbin_section(data)
                .map_err(|e| format!("host ELF: {e}"))?
                .ok_or_else(|| {
                    format!(
                        "offset 0x12: e_machine {} is not EM_AMDGPU (224) and there is no .hip_fatbin section",
                        machine.unwrap_or(0)
                    )
                })?;
            let mut bundles = Vec::new();
            for (i, item) in FatbinBundles::new(section).enumerate() {
                let (offset, result) = match item {
                    Ok((offset, container)) => (offset, bundle(container, offset)),
                    // The walk stops after this: no later bundle can be found.
                    Err(e) => (0, Err(e.to_string())),
                };
                bundles.push(result.unwrap_or_else(|e| Bundle {
                    offset,
                    compressed: None,
                    entries: Vec::new(),
                    error: Some(format!(".hip_fatbin bundle {i}: {e}")),
                }));
            }
            if bundles.is_empty() {
                return Err(".hip_fatbin: empty section, no bundle".into());
            }
            Ok(Report::HostFatbin(bundles))
        }
        container => bundle(container, 0).map(Report::Bundle),
    }
}

fn bundle(container: Container<'_>, offset: u64) -> Result<Bundle, String> {
    match container {
        Container::Bundle(b) => Ok(Bundle {
            offset,
            compressed: None,
            entries: entries(&b),
            error: None,
        }),
        Container::Compressed(c) => compressed(&c, offset),
        Container::Elf(_) => Err("an ELF file where a bundle was expected".into()),
    }
}

fn compressed(c: &CompressedBundle<'_>, offset: u64) -> Result<Bundle, String> {
    let data = c
        .decompress(MAX_DECOMPRESSED)
        .map_err(|e| format!("compressed bundle: {e}"))?;
    let inner = OffloadBundle::parse(&data).map_err(|e| format!("decompressed bundle: {e}"))?;
    let size = c
        .total_size()
        .map_or(c.header_size() + c.compressed_data().len(), |s| s as usize);
    Ok(Bundle {
        offset,
        compressed: Some(Compressed {
            version: c.version(),
            method: c.method().name(),
            size,
            uncompressed_size: c.uncompressed_size(),
        }),
        entries: entries(&inner),
        error: None,
    })
}

/// Every entry of `b`, each with its code object or its own error.
fn entries(b: &OffloadBundle<'_>) -> Vec<Entry> {
    b.entries()
        .zip(0u32..)
        .map(|(entry, index)| match entry {
            Ok(entry) => {
                let decoded = (entry.parsed_id().is_amdhsa() && !entry.data.is_empty())
                    .then(|| code_object(entry.data));
                let (code_object, error) = match decoded {
                    Some(Ok(co)) => (Some(co), None),
                    Some(Err(e)) => (None, Some(e)),
                    None => (None, None),
                };
                Entry {
                    index,
                    id: Some(entry.id.to_owned()),
                    offset: Some(entry.offset),
                    size: Some(entry.data.len()),
                    code_object,
                    error,
                }
            }
            Err(e) => Entry {
                index,
                id: None,
                offset: None,
                size: None,
                code_object: None,
                error: Some(e.to_string()),
            },
        })
        .collect()
}

fn code_object(data: &[u8]) -> Result<CodeObject, String> {
    let elf = ElfFile::parse(data).map_err(|e| e.to_string())?;
    let version = elf.code_object_version().ok().map(|v| v.number());
    let flags = elf.flags().map_err(|e| e.to_string())?;
    let target = TargetId::from_flags(&flags).map_err(|e| e.to_string())?;
    let family = flags
        .processor
        .and_then(|p| GpuFamily::from_processor(p.name));

    let mut metadata_json = None;
    for note in elf.notes() {
        let note = note.map_err(|e| e.to_string())?;
        if note.is_amdgpu_metadata() {
            let doc = msgpack::read_document(note.desc)
                .map_err(|e| format!("metadata note {}: {e}", note.index))?;
            let value = json::from_msgpack(doc)
                .map_err(|e| format!("metadata note {}: {e}", note.index))?;
            metadata_json = Some(value);
            break;
        }
    }
    let metadata = Metadata::from_elf(&elf)
        .map_err(|e| e.to_string())?
        .map(summary)
        .transpose()?;

    let mut descriptors = Vec::new();
    let symbols = match elf.symbols().map_err(|e| e.to_string())? {
        Some(t) => Some(t),
        None => elf.dynamic_symbols().map_err(|e| e.to_string())?,
    };
    for sym in symbols.iter().flat_map(|t| t.iter()) {
        let sym = sym.map_err(|e| e.to_string())?;
        let name = sym.name_str().map_err(|e| e.to_string())?;
        if sym.kind() != STT_OBJECT || !name.ends_with(".kd") {
            continue;
        }
        let decoded = descriptor(
            &elf,
            sym.section_index(),
            sym.value(),
            family,
            version.unwrap_or(0),
        );
        descriptors.push(Descriptor {
            symbol: name.to_owned(),
            decoded,
        });
    }
    let mut variables = Vec::new();
    let mut undefined = Vec::new();
    if let Some(dynsym) = elf.dynamic_symbols().map_err(|e| e.to_string())? {
        for sym in dynsym.iter() {
            let sym = sym.map_err(|e| e.to_string())?;
            let name = sym.name_str().map_err(|e| e.to_string())?;
            if name.is_empty() {
                continue;
            }
            if sym.is_undefined() {
                undefined.push(name.to_owned());
            } else if sym.kind() == STT_OBJECT && !name.ends_with(".kd") {
                variables.push(Variable {
                    name: name.to_owned(),
                    size: sym.size(),
                });
            }
        }
    }
    let relocations = elf
        .sections()
        .filter(|s| s.sh_type() == SHT_RELA)
        .map(|s| s.header().sh_size / 24)
        .sum();
    Ok(CodeObject {
        relocations,
        variables,
        undefined,
        os_abi: match elf.os_abi() {
            OsAbi::Hsa => "HSA",
            OsAbi::Pal => "PAL",
            OsAbi::Mesa3d => "Mesa3D",
        }
        .to_owned(),
        version,
        e_flags: flags.raw,
        target: target.to_string(),
        metadata_json,
        metadata,
        descriptors,
    })
}

/// The `.amdhsa_*` directives of the descriptor at `value` in section
/// `shndx`, or why it cannot be decoded.
fn descriptor(
    elf: &ElfFile<'_>,
    shndx: u16,
    value: u64,
    family: Option<GpuFamily>,
    version: u32,
) -> Result<DirectiveLines, String> {
    let family = family.ok_or("no kernel-descriptor layout for this processor")?;
    let section = elf.section(usize::from(shndx)).map_err(|e| e.to_string())?;
    let data = section.data().map_err(|e| e.to_string())?;
    let start = value
        .checked_sub(section.header().sh_addr)
        .and_then(|o| usize::try_from(o).ok())
        .ok_or("symbol value is outside its section")?;
    let bytes = start
        .checked_add(64)
        .and_then(|end| data.get(start..end))
        .ok_or("runs past the end of its section")?;
    let kd = KernelDescriptor::parse(bytes)
        .and_then(|kd| kd.decode(family))
        .map_err(|e| e.to_string())?;
    Ok(kd
        .directives(version as u8)
        .map(|d| (d.name, d.value, d.comment))
        .collect())
}

fn summary(md: Metadata<'_>) -> Result<MetadataSummary, String> {
    let mut kernels = Vec::new();
    for k in md.kernels() {
        kernels.push(kernel_summary(k.map_err(|e| e.to_string())?)?);
    }
    Ok(MetadataSummary {
        version: md.version(),
        target: md.target().map(str::to_owned),
        printf: md.printf().count(),
        kernels,
    })
}

fn kernel_summary(k: Kernel<'_>) -> Result<KernelSummary, String> {
    let mut args = Vec::new();
    for a in k.args() {
        let a = a.map_err(|e| format!("kernel {}: {e}", k.name))?;
        let mut qualifiers = Vec::new();
        for (flag, word) in [
            (a.is_const, "const"),
            (a.is_restrict, "restrict"),
            (a.is_volatile, "volatile"),
            (a.is_pipe, "pipe"),
        ] {
            if flag == Some(true) {
                qualifiers.push(word);
            }
        }
        args.push(ArgSummary {
            offset: a.offset,
            size: a.size,
            value_kind: a.value_kind.to_string(),
            address_space: a.address_space.map(|s| s.to_string()),
            type_name: a.type_name.map(str::to_owned),
            name: a.name.map(str::to_owned),
            qualifiers,
        });
    }
    Ok(KernelSummary {
        name: k.name.to_owned(),
        symbol: k.symbol.to_owned(),
        language: k.language.map(|l| l.to_string()),
        kernarg_size: k.kernarg_segment_size,
        kernarg_align: k.kernarg_segment_align,
        group: k.group_segment_fixed_size,
        private: k.private_segment_fixed_size,
        dynamic_stack: k.uses_dynamic_stack,
        wavefront: k.wavefront_size,
        sgprs: k.sgpr_count,
        vgprs: k.vgpr_count,
        agprs: k.agpr_count,
        spills: (k.sgpr_spill_count, k.vgpr_spill_count),
        max_flat_workgroup: k.max_flat_workgroup_size,
        reqd_workgroup: k.reqd_workgroup_size,
        args,
    })
}

impl Report {
    /// `(failed, total)`: bundle entries (and whole bundles) that failed,
    /// of all.
    fn failures(&self) -> (usize, usize) {
        let bundles: &[Bundle] = match self {
            Report::CodeObject(_) => &[],
            Report::Bundle(b) => std::slice::from_ref(b),
            Report::HostFatbin(b) => b,
        };
        bundles.iter().fold((0, 0), |(failed, total), b| {
            let bad = b.entries.iter().filter(|e| e.error.is_some()).count()
                + usize::from(b.error.is_some());
            (
                failed + bad,
                total + b.entries.len() + usize::from(b.error.is_some()),
            )
        })
    }

    fn to_text(&self, file: &str) -> String {
        let mut out = String::new();
        match self {
            Report::CodeObject(co) => {
                let _ = writeln!(out, "{file}: AMDGPU code object");
                co.text(&mut out, "  ");
            }
            Report::Bundle(b) => {
                let _ = writeln!(out, "{file}: clang offload bundle");
                b.text(&mut out, "  ");
            }
            Report::HostFatbin(bundles) => {
                let _ = writeln!(
                    out,
                    "{file}: host ELF with .hip_fatbin ({} bundle(s))",
                    bundles.len()
                );
                for (i, b) in bundles.iter().enumerate() {
                    if let Some(e) = &b.error {
                        let _ = writeln!(out, "  bundle {i}: error: {e}");
                        continue;
                    }
                    let _ = writeln!(out, "  bundle {i} at .hip_fatbin+{:#x}", b.offset);
                    b.text(&mut out, "    ");
                }
            }
        }
        out
    }

    fn json<'a>(&'a self, file: &'a str) -> JsonReport<'a> {
        let (kind, code_object, bundles) = match self {
            Report::CodeObject(co) => ("code object", Some(co), None),
            Report::Bundle(b) => ("offload bundle", None, Some(vec![b])),
            Report::HostFatbin(b) => ("host ELF with .hip_fatbin", None, Some(b.iter().collect())),
        };
        JsonReport {
            file,
            kind,
            code_object,
            bundles,
        }
    }
}

impl Bundle {
    fn text(&self, out: &mut String, indent: &str) {
        if let Some(c) = &self.compressed {
            let _ = writeln!(
                out,
                "{indent}compressed (CCOB v{}, {}): {} bytes, {} uncompressed",
                c.version, c.method, c.size, c.uncompressed_size
            );
        }
        let _ = writeln!(out, "{indent}{} entries", self.entries.len());
        for e in &self.entries {
            match (&e.id, e.offset, e.size) {
                (Some(id), Some(offset), Some(size)) => {
                    let _ = writeln!(out, "{indent}entry {id} at {offset:#x}, {size} bytes");
                }
                _ => {
                    let _ = writeln!(out, "{indent}entry {}", e.index);
                }
            }
            if let Some(co) = &e.code_object {
                co.text(out, &format!("{indent}  "));
            }
            if let Some(err) = &e.error {
                let _ = writeln!(out, "{indent}  error: {err}");
            }
        }
    }
}

impl CodeObject {
    fn text(&self, out: &mut String, indent: &str) {
        let version = self
            .version
            .map_or_else(|| "unknown".to_owned(), |v| format!("v{v}"));
        let _ = writeln!(
            out,
            "{indent}target {}, code object {version}, OS ABI {}, e_flags {:#x}",
            self.target, self.os_abi, self.e_flags
        );
        if self.relocations > 0 || !self.variables.is_empty() || !self.undefined.is_empty() {
            let vars: Vec<String> = self
                .variables
                .iter()
                .map(|v| format!("{} ({} bytes)", v.name, v.size))
                .collect();
            let _ = writeln!(
                out,
                "{indent}dynamic relocations {}; variables: {}; undefined symbols: {}",
                self.relocations,
                if vars.is_empty() {
                    "none".to_owned()
                } else {
                    vars.join(", ")
                },
                if self.undefined.is_empty() {
                    "none".to_owned()
                } else {
                    self.undefined.join(", ")
                }
            );
        }
        let Some(md) = &self.metadata else {
            let _ = writeln!(out, "{indent}no NT_AMDGPU_METADATA note");
            return;
        };
        let _ = writeln!(
            out,
            "{indent}metadata: amdhsa.version {}.{}, amdhsa.target {}, {} kernel(s), {} printf format(s)",
            md.version[0],
            md.version[1],
            md.target.as_deref().unwrap_or("(none)"),
            md.kernels.len(),
            md.printf
        );
        for k in &md.kernels {
            let _ = writeln!(
                out,
                "{indent}kernel {} ({}{})",
                k.name,
                k.symbol,
                k.language
                    .as_deref()
                    .map(|l| format!(", {l}"))
                    .unwrap_or_default()
            );
            let dynamic = match k.dynamic_stack {
                Some(true) => ", dynamic stack",
                _ => "",
            };
            let _ = writeln!(
                out,
                "{indent}  segments: kernarg {} bytes (align {}), group {} bytes, private {} bytes{dynamic}",
                k.kernarg_size, k.kernarg_align, k.group, k.private
            );
            let agprs = k.agprs.map(|a| format!(", {a} AGPRs")).unwrap_or_default();
            let spills = match k.spills {
                (None, None) => String::new(),
                (s, v) => format!(", spills {} SGPR / {} VGPR", s.unwrap_or(0), v.unwrap_or(0)),
            };
            let reqd = k
                .reqd_workgroup
                .map(|[x, y, z]| format!(", required workgroup {x}x{y}x{z}"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{indent}  resources: {} SGPRs, {} VGPRs{agprs}{spills}; wavefront {}, max flat workgroup {}{reqd}",
                k.sgprs, k.vgprs, k.wavefront, k.max_flat_workgroup
            );
            match self
                .descriptors
                .iter()
                .find(|d| d.symbol == k.symbol)
                .map(|d| &d.decoded)
            {
                Some(Ok(d)) => {
                    let mut line = format!("{indent}  descriptor:");
                    let mut sep = " ";
                    for (directive, value, _) in d {
                        let label = match *directive {
                            ".amdhsa_next_free_vgpr" => "next_free_vgpr",
                            ".amdhsa_next_free_sgpr" => "next_free_sgpr",
                            ".amdhsa_accum_offset" => "accum_offset",
                            ".amdhsa_wavefront_size32" => "wavefront_size32",
                            ".amdhsa_user_sgpr_kernarg_preload_length" if *value > 0 => {
                                "kernarg_preload_length"
                            }
                            _ => continue,
                        };
                        let _ = write!(line, "{sep}{label} {value}");
                        sep = ", ";
                    }
                    let user: Vec<&str> = d
                        .iter()
                        .filter(|(name, value, comment)| {
                            !comment && *value == 1 && !name.ends_with("_count")
                        })
                        .filter_map(|(name, _, _)| name.strip_prefix(".amdhsa_user_sgpr_"))
                        .collect();
                    if !user.is_empty() {
                        let _ = write!(line, "; user SGPRs: {}", user.join(", "));
                    }
                    let _ = writeln!(out, "{line}");
                }
                Some(Err(e)) => {
                    let _ = writeln!(out, "{indent}  descriptor: not decoded: {e}");
                }
                None => {
                    let _ = writeln!(out, "{indent}  descriptor: no {} symbol", k.symbol);
                }
            }
            for (i, a) in k.args.iter().enumerate() {
                let mut line = format!(
                    "{indent}  arg {i}: offset {} size {} {}",
                    a.offset, a.size, a.value_kind
                );
                if let Some(s) = &a.address_space {
                    let _ = write!(line, " {s}");
                }
                for q in &a.qualifiers {
                    let _ = write!(line, " {q}");
                }
                if let Some(t) = &a.type_name {
                    let _ = write!(line, " {t}");
                }
                if let Some(n) = &a.name {
                    let _ = write!(line, " {n}");
                }
                let _ = writeln!(out, "{line}");
            }
        }
    }
}
