//! `hsa inspect FILE [--json]`: what an AMDGPU code object, a clang offload
//! bundle (compressed `CCOB` too) or a HIP host binary (`.hip_fatbin`) holds:
//! targets, kernels, arguments, resources and kernel descriptors, decoded by
//! `loader-core`.
//!
//! `--json` prints one object: the container and its bundle entries, and per
//! code object its ELF identification, the `NT_AMDGPU_METADATA` map with
//! exactly the MessagePack keys (`amdhsa.version`, `amdhsa.kernels`,
//! `.name`, `.args`, ...) and the kernel descriptors as the `.amdhsa_*`
//! directives `llvm-objdump` prints. A bad file is one line on standard
//! error saying what is wrong and where.

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;

use loader_core::bundle::{
    CompressedBundle, Container, FatbinBundles, OffloadBundle, hip_fatbin_section,
};
use loader_core::elf::{ElfFile, OsAbi};
use loader_core::kernel_descriptor::{GpuFamily, KernelDescriptor};
use loader_core::metadata::{Kernel, Metadata};
use loader_core::msgpack::{self, Value};
use loader_core::target::TargetId;

const USAGE: &str = "usage: hsa inspect FILE [--json]";

/// `e_machine` of AMDGPU code objects (`EM_AMDGPU`).
const EM_AMDGPU: u16 = 224;
/// `SHT_RELA`: relocation entries with addends (24 bytes each in ELF64).
const SHT_RELA: u32 = 4;
/// `STT_OBJECT`: the symbol type of kernel descriptors.
const STT_OBJECT: u8 = 1;
/// Largest decompressed bundle accepted (its size is read from the input).
const MAX_DECOMPRESSED: usize = 1 << 30;

/// Runs the subcommand: exit 0 with the report on standard output, 1 with
/// one line on standard error for a bad file, 2 on a usage error.
pub fn main(args: &[String]) -> ExitCode {
    let mut file = None;
    let mut json = false;
    for arg in args {
        match arg.as_str() {
            "--json" => json = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other if other.starts_with('-') => {
                return usage_error(&format!("unknown option `{other}`"));
            }
            other if file.is_none() => file = Some(other),
            other => return usage_error(&format!("unexpected argument `{other}`")),
        }
    }
    let Some(file) = file else {
        return usage_error("no FILE given");
    };
    let bytes = match std::fs::read(file) {
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
    match inspect(&bytes) {
        Ok(report) => {
            let text = if json {
                report.to_json(file)
            } else {
                report.to_text(file)
            };
            match std::io::stdout().lock().write_all(text.as_bytes()) {
                // A closed pipe (`hsa inspect F | head`) is not an error.
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    eprintln!("hsa: inspect {file}: cannot write the report: {e}");
                    ExitCode::FAILURE
                }
                _ => ExitCode::SUCCESS,
            }
        }
        Err(e) => {
            eprintln!("hsa: inspect {file}: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usage_error(msg: &str) -> ExitCode {
    eprintln!("hsa inspect: {msg}\n{USAGE}");
    ExitCode::from(2)
}

/// What the file is, with everything decoded from it.
enum Report {
    CodeObject(CodeObject),
    /// A bundle file (uncompressed or compressed).
    Bundle(Bundle),
    /// A host ELF with `.hip_fatbin`: its bundles.
    HostFatbin(Vec<Bundle>),
}

struct Bundle {
    /// Offset in the `.hip_fatbin` section (0 for a bundle file).
    offset: u64,
    /// `(version, method, compressed size, uncompressed size)` of a `CCOB`.
    compressed: Option<(u16, &'static str, usize, u64)>,
    entries: Vec<Entry>,
}

struct Entry {
    id: String,
    offset: u64,
    size: usize,
    /// The decoded code object of an `amdgcn-amd-amdhsa` entry.
    code_object: Option<CodeObject>,
}

/// A decoded kernel descriptor: `(.amdhsa_ directive, value, printed as a
/// comment)` in `llvm-objdump`'s order.
type DirectiveLines = Vec<(&'static str, u64, bool)>;

struct CodeObject {
    os_abi: String,
    version: Option<u32>,
    e_flags: u32,
    target: String,
    /// The metadata map rendered as JSON, and its typed summary.
    metadata_json: Option<String>,
    metadata: Option<MetadataSummary>,
    descriptors: Vec<(String, Result<DirectiveLines, String>)>,
    /// Entries of the `SHT_RELA` sections (`.rela.dyn`).
    relocations: u64,
    /// Exported variables (`STT_OBJECT` in `.dynsym`, not `.kd`): name, size.
    variables: Vec<(String, u64)>,
    /// Undefined dynamic symbols the loader must resolve.
    undefined: Vec<String>,
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

/// Decodes whatever `bytes` holds; the first error ends it, with where.
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
                let (offset, container) = item.map_err(|e| format!(".hip_fatbin: {e}"))?;
                bundles.push(
                    bundle(container, offset)
                        .map_err(|e| format!(".hip_fatbin bundle {i}: {e}"))?,
                );
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
            entries: entries(&b)?,
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
        compressed: Some((c.version(), c.method().name(), size, c.uncompressed_size())),
        entries: entries(&inner)?,
    })
}

fn entries(b: &OffloadBundle<'_>) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    for entry in b.entries() {
        let code_object = if entry.parsed_id().is_amdhsa() && !entry.data.is_empty() {
            Some(
                code_object(entry.data)
                    .map_err(|e| format!("entry {} ({}): {e}", entry.index, entry.id))?,
            )
        } else {
            None
        };
        out.push(Entry {
            id: entry.id.to_owned(),
            offset: entry.offset,
            size: entry.data.len(),
            code_object,
        });
    }
    Ok(out)
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
            let mut s = String::new();
            value_json(&mut s, doc, 0).map_err(|e| format!("metadata note {}: {e}", note.index))?;
            metadata_json = Some(s);
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
        descriptors.push((name.to_owned(), decoded));
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
                variables.push((name.to_owned(), sym.size()));
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
                    let _ = writeln!(out, "  bundle {i} at .hip_fatbin+{:#x}", b.offset);
                    b.text(&mut out, "    ");
                }
            }
        }
        out
    }

    fn to_json(&self, file: &str) -> String {
        let mut out = String::from("{\n  \"file\": ");
        json_string(&mut out, file);
        match self {
            Report::CodeObject(co) => {
                out.push_str(",\n  \"kind\": \"code object\",\n  \"code_object\": ");
                co.json(&mut out, 1);
            }
            Report::Bundle(b) => {
                out.push_str(",\n  \"kind\": \"offload bundle\",\n  \"bundles\": [\n    ");
                b.json(&mut out, 2);
                out.push_str("\n  ]");
            }
            Report::HostFatbin(bundles) => {
                out.push_str(",\n  \"kind\": \"host ELF with .hip_fatbin\",\n  \"bundles\": [");
                for (i, b) in bundles.iter().enumerate() {
                    out.push_str(if i == 0 { "\n    " } else { ",\n    " });
                    b.json(&mut out, 2);
                }
                out.push_str("\n  ]");
            }
        }
        out.push_str("\n}\n");
        out
    }
}

impl Bundle {
    fn text(&self, out: &mut String, indent: &str) {
        if let Some((version, method, size, uncompressed)) = self.compressed {
            let _ = writeln!(
                out,
                "{indent}compressed (CCOB v{version}, {method}): {size} bytes, {uncompressed} uncompressed"
            );
        }
        let _ = writeln!(out, "{indent}{} entries", self.entries.len());
        for e in &self.entries {
            let _ = writeln!(
                out,
                "{indent}entry {} at {:#x}, {} bytes",
                e.id, e.offset, e.size
            );
            if let Some(co) = &e.code_object {
                co.text(out, &format!("{indent}  "));
            }
        }
    }

    fn json(&self, out: &mut String, level: usize) {
        let pad = "  ".repeat(level + 1);
        let _ = write!(
            out,
            "{{\n{pad}\"offset\": {},\n{pad}\"compressed\": ",
            self.offset
        );
        match self.compressed {
            Some((version, method, size, uncompressed)) => {
                let _ = write!(
                    out,
                    "{{\"version\": {version}, \"method\": \"{method}\", \"size\": {size}, \"uncompressed_size\": {uncompressed}}}"
                );
            }
            None => out.push_str("null"),
        }
        let _ = write!(out, ",\n{pad}\"entries\": [");
        for (i, e) in self.entries.iter().enumerate() {
            let inner = "  ".repeat(level + 2);
            let _ = write!(out, "{}\n{inner}{{\"id\": ", if i == 0 { "" } else { "," });
            json_string(out, &e.id);
            let _ = write!(
                out,
                ", \"offset\": {}, \"size\": {}, \"code_object\": ",
                e.offset, e.size
            );
            match &e.code_object {
                Some(co) => co.json(out, level + 2),
                None => out.push_str("null"),
            }
            out.push('}');
        }
        let _ = write!(out, "\n{pad}]\n{}}}", "  ".repeat(level));
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
                .map(|(n, size)| format!("{n} ({size} bytes)"))
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
            match self.descriptors.iter().find(|(name, _)| *name == k.symbol) {
                Some((_, Ok(d))) => {
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
                Some((_, Err(e))) => {
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

    fn json(&self, out: &mut String, level: usize) {
        let pad = "  ".repeat(level + 1);
        let _ = write!(out, "{{\n{pad}\"target\": ");
        json_string(out, &self.target);
        let _ = write!(out, ",\n{pad}\"os_abi\": ");
        json_string(out, &self.os_abi);
        match self.version {
            Some(v) => {
                let _ = write!(out, ",\n{pad}\"code_object_version\": {v}");
            }
            None => {
                let _ = write!(out, ",\n{pad}\"code_object_version\": null");
            }
        }
        let _ = write!(
            out,
            ",\n{pad}\"e_flags\": {},\n{pad}\"metadata\": ",
            self.e_flags
        );
        match &self.metadata_json {
            // Indent the metadata block (written at column 0) to this depth.
            Some(m) => out.push_str(&m.replace('\n', &format!("\n{pad}"))),
            None => out.push_str("null"),
        }
        let _ = write!(
            out,
            ",\n{pad}\"dynamic_relocations\": {},\n{pad}\"variables\": [",
            self.relocations
        );
        for (i, (name, size)) in self.variables.iter().enumerate() {
            out.push_str(if i == 0 { "" } else { ", " });
            out.push_str("{\"name\": ");
            json_string(out, name);
            let _ = write!(out, ", \"size\": {size}}}");
        }
        let _ = write!(out, "],\n{pad}\"undefined_symbols\": [");
        for (i, name) in self.undefined.iter().enumerate() {
            out.push_str(if i == 0 { "" } else { ", " });
            json_string(out, name);
        }
        out.push(']');
        let _ = write!(out, ",\n{pad}\"kernel_descriptors\": [");
        for (i, (name, d)) in self.descriptors.iter().enumerate() {
            let inner = "  ".repeat(level + 2);
            let _ = write!(
                out,
                "{}\n{inner}{{\"symbol\": ",
                if i == 0 { "" } else { "," }
            );
            json_string(out, name);
            match d {
                Ok(lines) => {
                    out.push_str(", \"directives\": {");
                    let mut first = true;
                    for (directive, value, comment) in lines {
                        if *comment {
                            continue;
                        }
                        let _ = write!(
                            out,
                            "{}\"{directive}\": {value}",
                            if first { "" } else { ", " }
                        );
                        first = false;
                    }
                    out.push_str("}, \"comments\": {");
                    let mut first = true;
                    for (name, value, comment) in lines {
                        if !*comment {
                            continue;
                        }
                        let _ = write!(out, "{}\"{name}\": {value}", if first { "" } else { ", " });
                        first = false;
                    }
                    out.push_str("}}");
                }
                Err(e) => {
                    out.push_str(", \"error\": ");
                    json_string(out, e);
                    out.push('}');
                }
            }
        }
        let _ = write!(out, "\n{pad}]\n{}}}", "  ".repeat(level));
    }
}

/// Appends `s` as a JSON string (RFC 8259 section 7 escapes).
fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends a MessagePack value as JSON, keys exactly as in the document.
/// Maps are written one entry per line at `indent` spaces; arrays of
/// scalars stay on one line.
fn value_json(out: &mut String, v: Value<'_>, indent: usize) -> loader_core::Result<()> {
    match v {
        Value::Nil => out.push_str("null"),
        Value::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        Value::UInt(n) => {
            let _ = write!(out, "{n}");
        }
        Value::Int(n) => {
            let _ = write!(out, "{n}");
        }
        Value::F32(x) => float_json(out, f64::from(x)),
        Value::F64(x) => float_json(out, x),
        Value::Str(s) => json_string(out, s),
        Value::Bin(b) | Value::Ext(_, b) => {
            // JSON has no bytes: a hex string.
            out.push('"');
            for byte in b {
                let _ = write!(out, "{byte:02x}");
            }
            out.push('"');
        }
        Value::Array(a) => {
            let scalars = a
                .iter()
                .all(|v| !matches!(v, Ok(Value::Array(_) | Value::Map(_)) | Err(_)));
            if a.is_empty() {
                out.push_str("[]");
            } else if scalars {
                out.push('[');
                for (i, item) in a.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    value_json(out, item?, indent)?;
                }
                out.push(']');
            } else {
                out.push('[');
                for (i, item) in a.iter().enumerate() {
                    out.push_str(if i == 0 { "\n" } else { ",\n" });
                    out.push_str(&" ".repeat(indent + 2));
                    value_json(out, item?, indent + 2)?;
                }
                let _ = write!(out, "\n{}]", " ".repeat(indent));
            }
        }
        Value::Map(m) => {
            if m.is_empty() {
                out.push_str("{}");
                return Ok(());
            }
            out.push('{');
            for (i, pair) in m.iter().enumerate() {
                let (k, v) = pair?;
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                out.push_str(&" ".repeat(indent + 2));
                match k {
                    Value::Str(s) => json_string(out, s),
                    // JSON keys are strings: other key types are printed.
                    other => json_string(out, &format!("{other:?}")),
                }
                out.push_str(": ");
                value_json(out, v, indent + 2)?;
            }
            let _ = write!(out, "\n{}}}", " ".repeat(indent));
        }
    }
    Ok(())
}

fn float_json(out: &mut String, x: f64) {
    if x.is_finite() {
        let _ = write!(out, "{x:?}");
    } else {
        // JSON has no NaN or infinity.
        json_string(out, &format!("{x}"));
    }
}
