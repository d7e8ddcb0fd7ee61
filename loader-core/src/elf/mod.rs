//! A zero-copy view of an ELF64 AMDGPU code object.
//!
//! [`ElfFile::parse`] checks the identification (`ELFCLASS64`,
//! `ELFDATA2LSB`, an AMDGPU OS ABI), `e_machine == EM_AMDGPU`, and that the
//! program and section header tables lie inside the input; everything else
//! is read lazily and every accessor returns a [`crate::Result`], so a
//! malformed table entry is reported when (and only when) it is used.
//! Layouts are the System V gABI's (`Elf64_Ehdr`, `Elf64_Phdr`,
//! `Elf64_Shdr`, `Elf64_Sym`, `Elf64_Rela`, `Elf64_Dyn`) with the AMDGPU
//! values of AMDGPUUsage "ELF Code Object".
//!
//! ```no_run
//! # fn f(bytes: &[u8]) -> loader_core::Result<()> {
//! let elf = loader_core::elf::ElfFile::parse(bytes)?;
//! let flags = elf.flags()?;
//! for note in elf.notes() {
//!     let note = note?;
//!     if note.is_amdgpu_metadata() { /* note.desc is MessagePack */ }
//! }
//! if let Some(symtab) = elf.dynamic_symbols()? {
//!     for sym in symtab.iter() {
//!         let sym = sym?;
//!         let _name: &[u8] = sym.name()?;
//!     }
//! }
//! # let _ = flags; Ok(()) }
//! ```

pub mod hash;
mod section;
mod segment;
mod symbol;

pub use section::{Section, SectionHeader, Sections, StringTable};
pub use segment::{ProgramHeader, Segment, Segments};
pub use symbol::{
    STB_GLOBAL, STB_LOCAL, STB_WEAK, STT_AMDGPU_HSA_KERNEL, STT_FUNC, STT_NOTYPE, STT_OBJECT,
    STT_SECTION, STV_DEFAULT, STV_PROTECTED, Symbol, SymbolEntry, SymbolTable, Symbols,
};

use crate::bytes;
use crate::error::{Error, Location, Result};
use crate::note::Notes;
use crate::processor::EFlags;
use core::fmt;

/// `ELFCLASS64`.
pub const ELFCLASS64: u8 = 2;
/// `ELFDATA2LSB`.
pub const ELFDATA2LSB: u8 = 1;
/// `EV_CURRENT`.
pub const EV_CURRENT: u8 = 1;
/// `EM_AMDGPU`.
pub const EM_AMDGPU: u16 = 224;
/// `ELFOSABI_AMDGPU_HSA`.
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;
/// `ELFOSABI_AMDGPU_PAL`.
pub const ELFOSABI_AMDGPU_PAL: u8 = 65;
/// `ELFOSABI_AMDGPU_MESA3D`.
pub const ELFOSABI_AMDGPU_MESA3D: u8 = 66;
/// `ET_REL`.
pub const ET_REL: u16 = 1;
/// `ET_EXEC`.
pub const ET_EXEC: u16 = 2;
/// `ET_DYN`: what the HSA loader loads.
pub const ET_DYN: u16 = 3;

/// `PT_NULL`.
pub const PT_NULL: u32 = 0;
/// `PT_LOAD`.
pub const PT_LOAD: u32 = 1;
/// `PT_DYNAMIC`.
pub const PT_DYNAMIC: u32 = 2;
/// `PT_NOTE`.
pub const PT_NOTE: u32 = 4;
/// `PT_PHDR`.
pub const PT_PHDR: u32 = 6;
/// `PT_GNU_STACK`.
pub const PT_GNU_STACK: u32 = 0x6474_e551;
/// `PT_GNU_RELRO`.
pub const PT_GNU_RELRO: u32 = 0x6474_e552;
/// `PF_X`.
pub const PF_X: u32 = 1;
/// `PF_W`.
pub const PF_W: u32 = 2;
/// `PF_R`.
pub const PF_R: u32 = 4;

/// `SHT_NULL`.
pub const SHT_NULL: u32 = 0;
/// `SHT_PROGBITS`.
pub const SHT_PROGBITS: u32 = 1;
/// `SHT_SYMTAB`.
pub const SHT_SYMTAB: u32 = 2;
/// `SHT_STRTAB`.
pub const SHT_STRTAB: u32 = 3;
/// `SHT_RELA`.
pub const SHT_RELA: u32 = 4;
/// `SHT_HASH`.
pub const SHT_HASH: u32 = 5;
/// `SHT_DYNAMIC`.
pub const SHT_DYNAMIC: u32 = 6;
/// `SHT_NOTE`.
pub const SHT_NOTE: u32 = 7;
/// `SHT_NOBITS`.
pub const SHT_NOBITS: u32 = 8;
/// `SHT_REL`.
pub const SHT_REL: u32 = 9;
/// `SHT_DYNSYM`.
pub const SHT_DYNSYM: u32 = 11;
/// `SHT_GNU_HASH`.
pub const SHT_GNU_HASH: u32 = 0x6fff_fff6;
/// `SHF_WRITE`.
pub const SHF_WRITE: u64 = 1;
/// `SHF_ALLOC`.
pub const SHF_ALLOC: u64 = 2;
/// `SHF_EXECINSTR`.
pub const SHF_EXECINSTR: u64 = 4;
/// `SHN_UNDEF`.
pub const SHN_UNDEF: u16 = 0;
/// `SHN_LORESERVE`.
pub const SHN_LORESERVE: u16 = 0xff00;
/// `SHN_AMDGPU_LDS`: symbols of LDS (group segment) variables.
pub const SHN_AMDGPU_LDS: u16 = 0xff00;
/// `SHN_ABS`.
pub const SHN_ABS: u16 = 0xfff1;
/// `SHN_COMMON`.
pub const SHN_COMMON: u16 = 0xfff2;
/// `SHN_XINDEX`.
pub const SHN_XINDEX: u16 = 0xffff;

/// Size of `Elf64_Ehdr`.
pub const EHDR_SIZE: usize = 64;
/// Size of `Elf64_Phdr`.
pub const PHDR_SIZE: usize = 56;
/// Size of `Elf64_Shdr`.
pub const SHDR_SIZE: usize = 64;
/// Size of `Elf64_Sym`.
pub const SYM_SIZE: usize = 24;
/// Size of `Elf64_Rela`.
pub const RELA_SIZE: usize = 24;
/// Size of `Elf64_Dyn`.
pub const DYN_SIZE: usize = 16;

/// The AMDGPU OS ABI of `e_ident[EI_OSABI]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum OsAbi {
    /// `ELFOSABI_AMDGPU_HSA` (64): code objects for the HSA runtime.
    Hsa,
    /// `ELFOSABI_AMDGPU_PAL` (65): AMD's platform abstraction library.
    Pal,
    /// `ELFOSABI_AMDGPU_MESA3D` (66): Mesa.
    Mesa3d,
}

impl OsAbi {
    /// Decodes `e_ident[EI_OSABI]`.
    pub const fn from_u8(v: u8) -> Option<Self> {
        match v {
            ELFOSABI_AMDGPU_HSA => Some(Self::Hsa),
            ELFOSABI_AMDGPU_PAL => Some(Self::Pal),
            ELFOSABI_AMDGPU_MESA3D => Some(Self::Mesa3d),
            _ => None,
        }
    }
}

/// The code-object version, given for the HSA OS ABI by
/// `e_ident[EI_ABIVERSION]` (`ELFABIVERSION_AMDGPU_HSA_V2` = 0 ... `_V6` = 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CodeObjectVersion {
    /// v2: `NT_AMD_HSA_*` notes, `amd_kernel_code_t`.
    V2,
    /// v3: MessagePack metadata, kernel descriptors, one-bit xnack/sramecc.
    V3,
    /// v4: four-state xnack/sramecc in `e_flags`.
    V4,
    /// v5: hidden kernel arguments reworked, `.uses_dynamic_stack`.
    V5,
    /// v6: generic processors and `EF_AMDGPU_GENERIC_VERSION`.
    V6,
}

impl CodeObjectVersion {
    /// From the HSA `e_ident[EI_ABIVERSION]` value.
    pub const fn from_abi_version(v: u8) -> Option<Self> {
        match v {
            0 => Some(Self::V2),
            1 => Some(Self::V3),
            2 => Some(Self::V4),
            3 => Some(Self::V5),
            4 => Some(Self::V6),
            _ => None,
        }
    }

    /// The version number (2 to 6).
    pub const fn number(self) -> u32 {
        match self {
            Self::V2 => 2,
            Self::V3 => 3,
            Self::V4 => 4,
            Self::V5 => 5,
            Self::V6 => 6,
        }
    }

    /// The `e_ident[EI_ABIVERSION]` value.
    pub const fn abi_version(self) -> u8 {
        (self.number() - 2) as u8
    }
}

impl fmt::Display for CodeObjectVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.number())
    }
}

/// `Elf64_Ehdr`, read field by field (System V gABI "ELF Header").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FileHeader {
    /// `e_ident` (16 bytes).
    pub e_ident: [u8; 16],
    /// `e_type` (`ET_REL`, `ET_DYN`, ...).
    pub e_type: u16,
    /// `e_machine` (`EM_AMDGPU`).
    pub e_machine: u16,
    /// `e_version`.
    pub e_version: u32,
    /// `e_entry`.
    pub e_entry: u64,
    /// `e_phoff`.
    pub e_phoff: u64,
    /// `e_shoff`.
    pub e_shoff: u64,
    /// `e_flags`: see [`EFlags`].
    pub e_flags: u32,
    /// `e_ehsize`.
    pub e_ehsize: u16,
    /// `e_phentsize`.
    pub e_phentsize: u16,
    /// `e_phnum`.
    pub e_phnum: u16,
    /// `e_shentsize`.
    pub e_shentsize: u16,
    /// `e_shnum`.
    pub e_shnum: u16,
    /// `e_shstrndx`.
    pub e_shstrndx: u16,
}

impl FileHeader {
    /// Reads the 64-byte header from the start of `data` (no checks of the
    /// values beyond the length).
    pub fn read(data: &[u8]) -> Result<Self> {
        let h = data.get(..EHDR_SIZE).ok_or(Error::truncated(
            "shorter than the 64-byte ELF64 header",
            Location::Input,
        ))?;
        let mut e_ident = [0u8; 16];
        e_ident.copy_from_slice(&h[..16]);
        // The slice is exactly 64 bytes, so these reads cannot fail.
        let u16_ = |o| bytes::u16_at(h, o).unwrap_or(0);
        let u32_ = |o| bytes::u32_at(h, o).unwrap_or(0);
        let u64_ = |o| bytes::u64_at(h, o).unwrap_or(0);
        Ok(Self {
            e_ident,
            e_type: u16_(16),
            e_machine: u16_(18),
            e_version: u32_(20),
            e_entry: u64_(24),
            e_phoff: u64_(32),
            e_shoff: u64_(40),
            e_flags: u32_(48),
            e_ehsize: u16_(52),
            e_phentsize: u16_(54),
            e_phnum: u16_(56),
            e_shentsize: u16_(58),
            e_shnum: u16_(60),
            e_shstrndx: u16_(62),
        })
    }

    /// `e_ident[EI_OSABI]`.
    pub const fn os_abi_raw(&self) -> u8 {
        self.e_ident[7]
    }

    /// `e_ident[EI_ABIVERSION]`.
    pub const fn abi_version(&self) -> u8 {
        self.e_ident[8]
    }
}

/// A parsed, checked view of an AMDGPU ELF64 code object.
#[derive(Clone, Copy)]
pub struct ElfFile<'a> {
    data: &'a [u8],
    header: FileHeader,
    os_abi: OsAbi,
    phdrs: &'a [u8],
    phnum: usize,
    shdrs: &'a [u8],
    shnum: usize,
    shstrndx: usize,
}

impl fmt::Debug for ElfFile<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ElfFile")
            .field("len", &self.data.len())
            .field("header", &self.header)
            .field("os_abi", &self.os_abi)
            .finish()
    }
}

impl<'a> ElfFile<'a> {
    /// Parses and checks the header of a code object, and locates its
    /// program and section header tables (including the extended numbering
    /// of `e_shnum == 0` / `e_shstrndx == SHN_XINDEX`).
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        let header = FileHeader::read(data)?;
        let id = &header.e_ident;
        if id[..4] != *b"\x7fELF" {
            return Err(Error::malformed(
                "not an ELF file (bad magic)",
                Location::Offset(0),
            ));
        }
        if id[4] != ELFCLASS64 {
            return Err(Error::unsupported("not ELFCLASS64", Location::Offset(4)));
        }
        if id[5] != ELFDATA2LSB {
            return Err(Error::unsupported(
                "not little-endian (ELFDATA2LSB)",
                Location::Offset(5),
            ));
        }
        if id[6] != EV_CURRENT || header.e_version != u32::from(EV_CURRENT) {
            return Err(Error::unsupported(
                "ELF version is not EV_CURRENT",
                Location::Offset(6),
            ));
        }
        let os_abi = OsAbi::from_u8(id[7]).ok_or(Error::unsupported(
            "OS ABI is not AMDGPU HSA, PAL or Mesa3D",
            Location::Offset(7),
        ))?;
        if header.e_machine != EM_AMDGPU {
            return Err(Error::unsupported(
                "e_machine is not EM_AMDGPU",
                Location::Offset(18),
            ));
        }
        if usize::from(header.e_ehsize) != EHDR_SIZE {
            return Err(Error::malformed("e_ehsize is not 64", Location::Offset(52)));
        }

        let phnum = usize::from(header.e_phnum);
        let phdrs = if phnum == 0 {
            &[][..]
        } else {
            if usize::from(header.e_phentsize) != PHDR_SIZE {
                return Err(Error::malformed(
                    "e_phentsize is not 56",
                    Location::Offset(54),
                ));
            }
            table(data, header.e_phoff, phnum, PHDR_SIZE).ok_or(Error::out_of_bounds(
                "program header table runs past the end of the file",
                Location::Offset(32),
            ))?
        };

        let mut file = Self {
            data,
            header,
            os_abi,
            phdrs,
            phnum,
            shdrs: &[],
            shnum: 0,
            shstrndx: 0,
        };
        if header.e_shoff != 0 {
            if usize::from(header.e_shentsize) != SHDR_SIZE {
                return Err(Error::malformed(
                    "e_shentsize is not 64",
                    Location::Offset(58),
                ));
            }
            // Section 0 holds the real count and string-table index when they
            // do not fit the header (gABI "Sections", extended numbering).
            let first = table(data, header.e_shoff, 1, SHDR_SIZE).ok_or(Error::out_of_bounds(
                "section header table runs past the end of the file",
                Location::Offset(40),
            ))?;
            let sh0 = section::SectionHeader::read(first);
            let shnum = if header.e_shnum == 0 {
                usize::try_from(sh0.sh_size).map_err(|_| {
                    Error::overflow(
                        "extended section count does not fit",
                        Location::Item("section", 0),
                    )
                })?
            } else {
                usize::from(header.e_shnum)
            };
            let shdrs =
                table(data, header.e_shoff, shnum, SHDR_SIZE).ok_or(Error::out_of_bounds(
                    "section header table runs past the end of the file",
                    Location::Offset(40),
                ))?;
            let shstrndx = if header.e_shstrndx == SHN_XINDEX {
                sh0.sh_link as usize
            } else {
                usize::from(header.e_shstrndx)
            };
            if shstrndx >= shnum && shstrndx != 0 {
                return Err(Error::out_of_bounds(
                    "e_shstrndx is not a section",
                    Location::Offset(62),
                ));
            }
            file.shdrs = shdrs;
            file.shnum = shnum;
            file.shstrndx = shstrndx;
        } else if header.e_shnum != 0 {
            return Err(Error::inconsistent(
                "e_shnum is set but e_shoff is 0",
                Location::Offset(60),
            ));
        }
        debug!(
            "elf: {} bytes, {} segments, {} sections",
            data.len(),
            file.phnum,
            file.shnum
        );
        Ok(file)
    }

    /// The whole input.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The file header.
    pub fn header(&self) -> &FileHeader {
        &self.header
    }

    /// The OS ABI.
    pub fn os_abi(&self) -> OsAbi {
        self.os_abi
    }

    /// The code-object version (HSA OS ABI only: PAL and Mesa code objects
    /// have no HSA ABI version and give an error).
    pub fn code_object_version(&self) -> Result<CodeObjectVersion> {
        if self.os_abi != OsAbi::Hsa {
            return Err(Error::unsupported(
                "code-object version is defined for the HSA OS ABI only",
                Location::Offset(7),
            ));
        }
        CodeObjectVersion::from_abi_version(self.header.abi_version()).ok_or(Error::unsupported(
            "unknown ELFABIVERSION_AMDGPU_HSA (code object v2 to v6 known)",
            Location::Offset(8),
        ))
    }

    /// `e_flags` decoded for the code-object version. PAL and Mesa code
    /// objects use the v3 layout (one bit each for xnack and sramecc), as
    /// LLVM writes them (`getEFlagsAMDPAL` / `getEFlagsMesa3D` call
    /// `getEFlagsV3`) and llvm-readelf decodes them.
    pub fn flags(&self) -> Result<EFlags> {
        let version = match self.os_abi {
            OsAbi::Hsa => self.code_object_version()?,
            OsAbi::Pal | OsAbi::Mesa3d => CodeObjectVersion::V3,
        };
        let flags = EFlags::decode(self.header.e_flags, version)?;
        if self.os_abi == OsAbi::Hsa && flags.processor.is_some_and(|p| p.is_r600()) {
            return Err(Error::unsupported(
                "R600 processors have no HSA code objects",
                Location::Field("e_flags"),
            ));
        }
        Ok(flags)
    }

    /// Number of program headers.
    pub fn segment_count(&self) -> usize {
        self.phnum
    }

    /// Program header `index`.
    pub fn segment(&self, index: usize) -> Result<Segment<'a>> {
        let off = index.checked_mul(PHDR_SIZE).filter(|_| index < self.phnum);
        let raw =
            off.and_then(|o| self.phdrs.get(o..o + PHDR_SIZE))
                .ok_or(Error::out_of_bounds(
                    "no such program header",
                    Location::Item("segment", crate::error::index(index)),
                ))?;
        Ok(Segment::new(self.data, index, raw))
    }

    /// Every program header, in order.
    pub fn segments(&self) -> Segments<'a> {
        Segments::new(self.data, self.phdrs)
    }

    /// Number of section headers (including the null section 0).
    pub fn section_count(&self) -> usize {
        self.shnum
    }

    /// Section header `index`.
    pub fn section(&self, index: usize) -> Result<Section<'a>> {
        let off = index.checked_mul(SHDR_SIZE).filter(|_| index < self.shnum);
        let raw =
            off.and_then(|o| self.shdrs.get(o..o + SHDR_SIZE))
                .ok_or(Error::out_of_bounds(
                    "no such section",
                    Location::Item("section", crate::error::index(index)),
                ))?;
        Ok(Section::new(self.data, index, raw, self.section_names()))
    }

    /// Every section header, in order.
    pub fn sections(&self) -> Sections<'a> {
        Sections::new(self.data, self.shdrs, self.section_names())
    }

    /// The section-name string table (`.shstrtab`), if there is one and it
    /// lies inside the file.
    pub fn section_names(&self) -> Option<StringTable<'a>> {
        if self.shstrndx == 0 || self.shstrndx >= self.shnum {
            return None;
        }
        let off = self.shstrndx.checked_mul(SHDR_SIZE)?;
        let raw = self.shdrs.get(off..off.checked_add(SHDR_SIZE)?)?;
        let h = section::SectionHeader::read(raw);
        if h.sh_type != SHT_STRTAB {
            return None;
        }
        bytes::slice(self.data, h.sh_offset, h.sh_size).map(StringTable::new)
    }

    /// The first section called `name` (`.text`, `.rodata`, ...).
    pub fn section_by_name(&self, name: &[u8]) -> Option<Section<'a>> {
        self.sections().find(|s| s.name().ok() == Some(name))
    }

    /// The first section of type `sh_type`.
    pub fn section_by_type(&self, sh_type: u32) -> Option<Section<'a>> {
        self.sections().find(|s| s.header().sh_type == sh_type)
    }

    /// The symbol table of the section at `index` (which must be
    /// `SHT_SYMTAB` or `SHT_DYNSYM`), with its linked string table.
    pub fn symbol_table_at(&self, index: usize) -> Result<SymbolTable<'a>> {
        let sec = self.section(index)?;
        SymbolTable::new(self, sec)
    }

    /// `.symtab` (the static symbol table), if present.
    pub fn symbols(&self) -> Result<Option<SymbolTable<'a>>> {
        match self.section_by_type(SHT_SYMTAB) {
            Some(s) => SymbolTable::new(self, s).map(Some),
            None => Ok(None),
        }
    }

    /// `.dynsym` (the dynamic symbol table the HSA loader resolves
    /// kernels and variables through), if present.
    pub fn dynamic_symbols(&self) -> Result<Option<SymbolTable<'a>>> {
        match self.section_by_type(SHT_DYNSYM) {
            Some(s) => SymbolTable::new(self, s).map(Some),
            None => Ok(None),
        }
    }

    /// Every note of the file: those of `SHT_NOTE` sections when the file
    /// has section headers, otherwise those of `PT_NOTE` segments. The
    /// iterator yields `Err` once and then stops for good.
    pub fn notes(&self) -> Notes<'a> {
        Notes::of_file(*self)
    }
}

/// `count` entries of `entsize` bytes at `offset`, all inside `data`.
fn table(data: &[u8], offset: u64, count: usize, entsize: usize) -> Option<&[u8]> {
    let len = count.checked_mul(entsize)?;
    bytes::slice(data, offset, len as u64)
}
