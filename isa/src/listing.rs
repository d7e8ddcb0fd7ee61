//! A code object's kernel as `llvm-objdump-19 -d` lists it: one
//! instruction a line, in LLVM's syntax (without objdump's trailing
//! `// address: words` comment).

use core::fmt;

use loader_core::elf::ElfFile;

use crate::decode::Decoder;
use crate::processor::Processor;

const STT_FUNC: u8 = 2;

/// Why a kernel cannot be listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ListingError {
    /// The ELF does not parse (loader-core's message).
    Elf(&'static str),
    /// The code object's processor is not GFX9.
    NotGfx9,
    /// No function symbol of that name.
    NoSuchKernel,
    /// The symbol's range is not inside its section.
    BadSymbol,
}

impl fmt::Display for ListingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ListingError::Elf(m) => write!(f, "code object: {m}"),
            ListingError::NotGfx9 => f.write_str("the code object's processor is not GFX9"),
            ListingError::NoSuchKernel => f.write_str("no function symbol of that name"),
            ListingError::BadSymbol => f.write_str("the symbol's range lies outside its section"),
        }
    }
}

/// One kernel's machine code: its bytes, address and processor.
#[derive(Clone, Copy, Debug)]
pub struct KernelCode<'a> {
    /// The code bytes (the symbol's `st_size` bytes).
    pub code: &'a [u8],
    /// The virtual address of the first byte.
    pub address: u64,
    /// The processor the code object is built for.
    pub processor: Processor,
}

/// The processor a code object is built for.
pub fn processor_of(elf: &ElfFile<'_>) -> Result<Processor, ListingError> {
    let flags = elf.flags().map_err(|_| ListingError::Elf("bad e_flags"))?;
    let p = flags.processor.ok_or(ListingError::NotGfx9)?;
    Processor::from_name(p.name).ok_or(ListingError::NotGfx9)
}

/// The code of the function symbol `name` (a kernel's entry symbol).
pub fn kernel_code<'a>(bytes: &'a [u8], name: &str) -> Result<KernelCode<'a>, ListingError> {
    let elf = ElfFile::parse(bytes).map_err(|_| ListingError::Elf("not an AMDGPU ELF"))?;
    let processor = processor_of(&elf)?;
    let symbols = match elf
        .symbols()
        .map_err(|_| ListingError::Elf("bad .symtab"))?
    {
        Some(t) => t,
        None => elf
            .dynamic_symbols()
            .map_err(|_| ListingError::Elf("bad .dynsym"))?
            .ok_or(ListingError::Elf("no symbol table"))?,
    };
    for sym in symbols.iter() {
        let sym = sym.map_err(|_| ListingError::Elf("bad symbol"))?;
        if sym.kind() != STT_FUNC || sym.name_str().ok() != Some(name) {
            continue;
        }
        let section = elf
            .section(usize::from(sym.section_index()))
            .map_err(|_| ListingError::BadSymbol)?;
        let data = section.data().map_err(|_| ListingError::BadSymbol)?;
        let start = sym
            .value()
            .checked_sub(section.header().sh_addr)
            .and_then(|o| usize::try_from(o).ok())
            .ok_or(ListingError::BadSymbol)?;
        let end = usize::try_from(sym.size())
            .ok()
            .and_then(|s| start.checked_add(s))
            .ok_or(ListingError::BadSymbol)?;
        let code = data.get(start..end).ok_or(ListingError::BadSymbol)?;
        return Ok(KernelCode {
            code,
            address: sym.value(),
            processor,
        });
    }
    Err(ListingError::NoSuchKernel)
}

/// A printable listing of a kernel: `format!("{}", listing(...)?)` gives
/// one line per instruction, each `\t<instruction>` as objdump indents it,
/// `\t\t...` for a run of 8 or more zero bytes (objdump skips them too),
/// and `\t<invalid: ...>` for a word that does not decode.
#[derive(Clone, Copy, Debug)]
pub struct Listing<'a> {
    kernel: KernelCode<'a>,
}

/// The listing of kernel `name` in the code object `bytes`.
pub fn listing<'a>(bytes: &'a [u8], name: &str) -> Result<Listing<'a>, ListingError> {
    Ok(Listing {
        kernel: kernel_code(bytes, name)?,
    })
}

/// Zero bytes at the start of `code` that objdump skips: a run of at least
/// 8, in whole dwords (llvm-objdump's `countSkippableZeroBytes`).
fn skippable_zeros(code: &[u8]) -> usize {
    let n = code.iter().take_while(|b| **b == 0).count();
    if n < 8 { 0 } else { n & !3 }
}

impl fmt::Display for Listing<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let decoder = Decoder::new(self.kernel.processor);
        let code = self.kernel.code;
        let mut at = 0;
        while let Some(rest) = code.get(at..).filter(|r| !r.is_empty()) {
            let zeros = skippable_zeros(rest);
            if zeros != 0 {
                writeln!(f, "\t\t...")?;
                at += zeros;
                continue;
            }
            match decoder.decode(rest) {
                Ok(i) => {
                    writeln!(f, "\t{i}")?;
                    at += i.len();
                }
                Err(e) => {
                    writeln!(f, "\t<invalid: {e}>")?;
                    at += 4;
                }
            }
        }
        Ok(())
    }
}
