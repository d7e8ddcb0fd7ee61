//! A richer, allocating view of a code object for tools, through goblin
//! (feature `loader`, the design's name for it).
//!
//! The zero-copy parser ([`crate::elf::ElfFile`]) is what the runtime loads
//! with; this view parses the same bytes with goblin as well and hands out
//! owned tables (sections with their names, both symbol tables, the
//! `_DYNAMIC` array, program headers, dynamic relocations with their types
//! and symbol names, kernel descriptors) in one go, which is what
//! inspection tools want. Both parsers must accept the file; the
//! `goblin_cross` test checks that they agree on every header field.

use alloc::vec::Vec;

use crate::elf::ElfFile;
use crate::error::{Error, Location, Result};
use crate::kernel_descriptor::{DecodedKernelDescriptor, GpuFamily, KdError, KernelDescriptor};
use crate::load::RelocationType;

/// A section header with its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectionInfo<'a> {
    /// Index in the section header table.
    pub index: usize,
    /// Name from the section-name string table (empty if it has none).
    pub name: &'a str,
    /// `sh_type`.
    pub sh_type: u32,
    /// `sh_flags`.
    pub sh_flags: u64,
    /// `sh_addr`.
    pub sh_addr: u64,
    /// `sh_offset`.
    pub sh_offset: u64,
    /// `sh_size`.
    pub sh_size: u64,
    /// `sh_link`.
    pub sh_link: u32,
    /// `sh_info`.
    pub sh_info: u32,
    /// `sh_addralign`.
    pub sh_addralign: u64,
    /// `sh_entsize`.
    pub sh_entsize: u64,
}

/// A symbol with its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymbolInfo<'a> {
    /// Index in its table.
    pub index: usize,
    /// Name (empty if none).
    pub name: &'a str,
    /// `st_info` (binding << 4 | type).
    pub st_info: u8,
    /// `st_other` (visibility).
    pub st_other: u8,
    /// `st_shndx`.
    pub st_shndx: usize,
    /// `st_value`.
    pub st_value: u64,
    /// `st_size`.
    pub st_size: u64,
}

/// One `_DYNAMIC` entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DynamicEntry {
    /// `d_tag` (`DT_*`).
    pub tag: u64,
    /// `d_val` / `d_ptr`.
    pub value: u64,
}

/// One dynamic relocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelocationInfo<'a> {
    /// `r_offset`.
    pub offset: u64,
    /// The type, if it is an `R_AMDGPU_*` type.
    pub kind: Option<RelocationType>,
    /// The raw `ELF64_R_TYPE`.
    pub raw_type: u32,
    /// `ELF64_R_SYM`.
    pub symbol_index: usize,
    /// The symbol's name (empty for index 0).
    pub symbol: &'a str,
    /// `r_addend`.
    pub addend: i64,
}

/// A kernel descriptor found through its `<name>.kd` symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelDescriptorInfo<'a> {
    /// The kernel name (symbol without `.kd`).
    pub name: &'a str,
    /// `st_value` of the descriptor.
    pub address: u64,
    /// The descriptor decoded for the object's family, or why it could not
    /// be (`WrongSize` when fewer than 64 file bytes back the symbol);
    /// `None` when the processor's family is unknown.
    pub descriptor: Option<core::result::Result<DecodedKernelDescriptor, KdError>>,
}

/// A code object parsed by both our zero-copy parser and goblin.
pub struct CodeObjectView<'a> {
    data: &'a [u8],
    ours: ElfFile<'a>,
    goblin: goblin::elf::Elf<'a>,
}

impl core::fmt::Debug for CodeObjectView<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CodeObjectView")
            .field("len", &self.data.len())
            .finish()
    }
}

fn str_or_empty(s: Option<&str>) -> &str {
    s.unwrap_or("")
}

impl<'a> CodeObjectView<'a> {
    /// Parses `data` with both parsers.
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        let ours = ElfFile::parse(data)?;
        let goblin = goblin::elf::Elf::parse(data)
            .map_err(|_| Error::malformed("goblin cannot parse the ELF file", Location::Input))?;
        Ok(Self { data, ours, goblin })
    }

    /// The zero-copy view.
    pub fn elf(&self) -> &ElfFile<'a> {
        &self.ours
    }

    /// goblin's view, for everything this type does not summarise.
    pub fn goblin(&self) -> &goblin::elf::Elf<'a> {
        &self.goblin
    }

    /// Every section header, with names.
    pub fn sections(&self) -> Vec<SectionInfo<'a>> {
        let g = &self.goblin;
        g.section_headers
            .iter()
            .enumerate()
            .map(|(index, s)| SectionInfo {
                index,
                name: str_or_empty(g.shdr_strtab.get_at(s.sh_name)),
                sh_type: s.sh_type,
                sh_flags: s.sh_flags,
                sh_addr: s.sh_addr,
                sh_offset: s.sh_offset,
                sh_size: s.sh_size,
                sh_link: s.sh_link,
                sh_info: s.sh_info,
                sh_addralign: s.sh_addralign,
                sh_entsize: s.sh_entsize,
            })
            .collect()
    }

    fn table(
        syms: &goblin::elf::Symtab<'a>,
        strtab: &goblin::strtab::Strtab<'a>,
    ) -> Vec<SymbolInfo<'a>> {
        syms.iter()
            .enumerate()
            .map(|(index, s)| SymbolInfo {
                index,
                name: str_or_empty(strtab.get_at(s.st_name)),
                st_info: s.st_info,
                st_other: s.st_other,
                st_shndx: s.st_shndx,
                st_value: s.st_value,
                st_size: s.st_size,
            })
            .collect()
    }

    /// `.symtab`, with names (empty if stripped).
    pub fn symbols(&self) -> Vec<SymbolInfo<'a>> {
        Self::table(&self.goblin.syms, &self.goblin.strtab)
    }

    /// `.dynsym`, with names.
    pub fn dynamic_symbols(&self) -> Vec<SymbolInfo<'a>> {
        Self::table(&self.goblin.dynsyms, &self.goblin.dynstrtab)
    }

    /// The `_DYNAMIC` array (empty if the object has none).
    pub fn dynamic(&self) -> Vec<DynamicEntry> {
        self.goblin
            .dynamic
            .as_ref()
            .map(|d| {
                d.dyns
                    .iter()
                    .map(|e| DynamicEntry {
                        tag: e.d_tag,
                        value: e.d_val,
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The program headers.
    pub fn program_headers(&self) -> Vec<crate::elf::ProgramHeader> {
        self.goblin
            .program_headers
            .iter()
            .map(|p| crate::elf::ProgramHeader {
                p_type: p.p_type,
                p_flags: p.p_flags,
                p_offset: p.p_offset,
                p_vaddr: p.p_vaddr,
                p_paddr: p.p_paddr,
                p_filesz: p.p_filesz,
                p_memsz: p.p_memsz,
                p_align: p.p_align,
            })
            .collect()
    }

    /// The dynamic relocations (`DT_RELA`), with types and symbol names.
    pub fn relocations(&self) -> Vec<RelocationInfo<'a>> {
        let g = &self.goblin;
        g.dynrelas
            .iter()
            .map(|r| RelocationInfo {
                offset: r.r_offset,
                kind: RelocationType::from_raw(r.r_type),
                raw_type: r.r_type,
                symbol_index: r.r_sym,
                symbol: g
                    .dynsyms
                    .get(r.r_sym)
                    .and_then(|s| g.dynstrtab.get_at(s.st_name))
                    .unwrap_or(""),
                addend: r.r_addend.unwrap_or(0),
            })
            .collect()
    }

    /// Every `<name>.kd` object symbol of `.dynsym`, its 64 bytes decoded for
    /// the object's GPU family.
    pub fn kernel_descriptors(&self) -> Vec<KernelDescriptorInfo<'a>> {
        let family = self
            .ours
            .flags()
            .ok()
            .and_then(|f| f.processor)
            .and_then(|p| GpuFamily::from_processor(p.name));
        let phdrs = self.program_headers();
        self.dynamic_symbols()
            .into_iter()
            .filter(|s| s.st_info & 0xf == crate::elf::STT_OBJECT && s.st_shndx != 0)
            .filter_map(|s| {
                let name = s.name.strip_suffix(".kd")?;
                let bytes = phdrs
                    .iter()
                    .filter(|p| p.p_type == crate::elf::PT_LOAD)
                    .find(|p| s.st_value >= p.p_vaddr && s.st_value - p.p_vaddr < p.p_filesz)
                    .and_then(|p| {
                        let off = p.p_offset.checked_add(s.st_value - p.p_vaddr)?;
                        crate::bytes::slice(self.data, off, 64)
                    });
                let descriptor = family.map(|f| {
                    bytes
                        .ok_or(KdError::WrongSize { len: 0 })
                        .and_then(KernelDescriptor::parse)
                        .and_then(|kd| kd.decode(f))
                });
                Some(KernelDescriptorInfo {
                    name,
                    address: s.st_value,
                    descriptor,
                })
            })
            .collect()
    }
}
