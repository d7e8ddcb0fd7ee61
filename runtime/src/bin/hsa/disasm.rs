//! `hsa disasm FILE [--kernel NAME]`: the machine code of a GFX9 code
//! object's functions as `llvm-objdump-19 -d` lists it, one instruction a
//! line in LLVM's syntax (without objdump's trailing `// address: words`
//! comment), decoded by the `isa` crate.
//!
//! FILE is a code object, or a bundle / compressed bundle / HIP host binary,
//! whose GFX9 entries are each listed under a `; entry N: ID` line. Every
//! function symbol (`STT_FUNC`: kernels and device functions) is listed in
//! address order under `ADDRESS <name>:`, as objdump heads it. The exit
//! status is 1 when anything could not be listed (a non-GFX9 code object
//! given directly, a kernel that does not exist, an entry that does not
//! parse), 0 otherwise; a word that does not decode is listed as
//! `<invalid: ...>` and also makes the status 1.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use loader_core::bundle::{Container, FatbinBundles, OffloadBundle, hip_fatbin_section};
use loader_core::elf::ElfFile;

/// `e_machine` of AMDGPU code objects (`EM_AMDGPU`).
const EM_AMDGPU: u16 = 224;
/// `STT_FUNC`: the symbol type of kernel entry points and functions.
const STT_FUNC: u8 = 2;
/// Largest decompressed bundle accepted (its size is read from the input).
const MAX_DECOMPRESSED: usize = 1 << 30;

/// Arguments of `hsa disasm`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A GFX9 code object (.co/.hsaco), a clang offload bundle (plain or
    /// compressed CCOB), or a host ELF with a .hip_fatbin section.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// List only this function (a kernel's symbol name, without `.kd`).
    #[arg(long, value_name = "NAME")]
    kernel: Option<String>,
}

/// Runs the subcommand (see the module documentation for the exit status).
pub fn run(args: &Args) -> ExitCode {
    let file = args.file.display().to_string();
    let bytes = match std::fs::read(&args.file) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("hsa: disasm {file}: cannot read: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut out = Output::default();
    if let Err(e) = disasm_file(&bytes, args.kernel.as_deref(), &mut out) {
        out.fail(e);
    }
    let written = match std::io::stdout().lock().write_all(out.text.as_bytes()) {
        // A closed pipe (`hsa disasm F | head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    };
    if let Err(e) = written {
        eprintln!("hsa: disasm {file}: cannot write the listing: {e}");
        return ExitCode::FAILURE;
    }
    for e in &out.errors {
        eprintln!("hsa: disasm {file}: {e}");
    }
    if out.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The listing being built and what went wrong on the way.
#[derive(Default)]
struct Output {
    text: String,
    errors: Vec<String>,
    /// Functions listed: `--kernel NAME` that lists none is an error.
    listed: usize,
}

impl Output {
    fn fail(&mut self, e: String) {
        self.errors.push(e);
    }
}

fn disasm_file(bytes: &[u8], kernel: Option<&str>, out: &mut Output) -> Result<(), String> {
    match Container::parse(bytes).map_err(|e| e.to_string())? {
        Container::Elf(data) => {
            let machine = data.get(18..20).map(|m| u16::from_le_bytes([m[0], m[1]]));
            if machine == Some(EM_AMDGPU) {
                disasm_code_object(data, kernel, out)?;
            } else {
                let section = hip_fatbin_section(data)
                    .map_err(|e| format!("host ELF: {e}"))?
                    .ok_or("not an AMDGPU code object and no .hip_fatbin section")?;
                for (i, item) in FatbinBundles::new(section).enumerate() {
                    match item {
                        Ok((_, container)) => bundle(container, kernel, out)
                            .unwrap_or_else(|e| out.fail(format!(".hip_fatbin bundle {i}: {e}"))),
                        Err(e) => out.fail(format!(".hip_fatbin bundle {i}: {e}")),
                    }
                }
            }
        }
        container => bundle(container, kernel, out)?,
    }
    match kernel {
        Some(name) if out.listed == 0 => {
            out.fail(format!("no function `{name}` in any GFX9 code object"));
        }
        _ => {}
    }
    Ok(())
}

fn bundle(container: Container<'_>, kernel: Option<&str>, out: &mut Output) -> Result<(), String> {
    match container {
        Container::Bundle(b) => entries(&b, kernel, out),
        Container::Compressed(c) => {
            let data = c
                .decompress(MAX_DECOMPRESSED)
                .map_err(|e| format!("compressed bundle: {e}"))?;
            let inner =
                OffloadBundle::parse(&data).map_err(|e| format!("decompressed bundle: {e}"))?;
            entries(&inner, kernel, out)
        }
        Container::Elf(_) => Err("an ELF file where a bundle was expected".into()),
    }
}

/// The GFX9 entries of a bundle; other targets (host, gfx10+) are skipped.
fn entries(b: &OffloadBundle<'_>, kernel: Option<&str>, out: &mut Output) -> Result<(), String> {
    for (index, entry) in b.entries().enumerate() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                out.fail(format!("bundle entry {index}: {e}"));
                continue;
            }
        };
        let id = entry.parsed_id();
        if !id.is_amdhsa() || isa::Processor::from_name(id.processor()).is_none() {
            continue;
        }
        let _ = writeln!(out.text, "; entry {index}: {}", entry.id);
        disasm_code_object(entry.data, kernel, out)
            .unwrap_or_else(|e| out.fail(format!("bundle entry {index} ({}): {e}", entry.id)));
    }
    Ok(())
}

/// Every function symbol of one code object, in address order.
fn disasm_code_object(data: &[u8], kernel: Option<&str>, out: &mut Output) -> Result<(), String> {
    let elf = ElfFile::parse(data).map_err(|e| e.to_string())?;
    isa::listing::processor_of(&elf).map_err(|e| e.to_string())?;
    let table = match elf.symbols().map_err(|e| e.to_string())? {
        Some(t) => t,
        None => elf
            .dynamic_symbols()
            .map_err(|e| e.to_string())?
            .ok_or("no symbol table")?,
    };
    let mut functions = Vec::new();
    for sym in table.iter() {
        let sym = sym.map_err(|e| e.to_string())?;
        if sym.kind() != STT_FUNC || sym.is_undefined() {
            continue;
        }
        let name = sym.name_str().map_err(|e| e.to_string())?;
        if kernel.is_none_or(|k| k == name) {
            functions.push((sym.value(), name));
        }
    }
    functions.sort_unstable();
    functions.dedup();
    for (address, name) in functions {
        let listing = isa::listing::listing(data, name).map_err(|e| format!("`{name}`: {e}"))?;
        let text = listing.to_string();
        let _ = writeln!(out.text, "\n{address:016x} <{name}>:");
        out.text.push_str(&text);
        out.listed += 1;
        let invalid = text.lines().filter(|l| l.starts_with("\t<invalid")).count();
        if invalid > 0 {
            out.fail(format!("`{name}`: {invalid} words do not decode"));
        }
    }
    Ok(())
}
