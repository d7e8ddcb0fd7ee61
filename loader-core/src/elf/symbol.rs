//! Symbol tables (`.symtab`, `.dynsym`: `Elf64_Sym`) with their string tables.

use super::hash::HashTable;
use super::{
    ElfFile, SHT_DYNSYM, SHT_GNU_HASH, SHT_HASH, SHT_STRTAB, SHT_SYMTAB, SYM_SIZE, Section,
    StringTable,
};
use crate::bytes;
use crate::error::{Error, Location, Result};
use core::fmt;

/// `STB_LOCAL`.
pub const STB_LOCAL: u8 = 0;
/// `STB_GLOBAL`.
pub const STB_GLOBAL: u8 = 1;
/// `STB_WEAK`.
pub const STB_WEAK: u8 = 2;
/// `STT_NOTYPE`.
pub const STT_NOTYPE: u8 = 0;
/// `STT_OBJECT`: a variable, or (v3+) a kernel descriptor `<name>.kd`.
pub const STT_OBJECT: u8 = 1;
/// `STT_FUNC`: a function or kernel entry.
pub const STT_FUNC: u8 = 2;
/// `STT_SECTION`.
pub const STT_SECTION: u8 = 3;
/// `STT_AMDGPU_HSA_KERNEL`: a kernel's `amd_kernel_code_t` (code object v2).
pub const STT_AMDGPU_HSA_KERNEL: u8 = 10;
/// `STV_DEFAULT`.
pub const STV_DEFAULT: u8 = 0;
/// `STV_PROTECTED`.
pub const STV_PROTECTED: u8 = 3;

/// `Elf64_Sym`, read field by field (gABI "Symbol Table").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SymbolEntry {
    /// `st_name`.
    pub st_name: u32,
    /// `st_info`: binding (high nibble) and type (low nibble).
    pub st_info: u8,
    /// `st_other`: visibility (low two bits).
    pub st_other: u8,
    /// `st_shndx`.
    pub st_shndx: u16,
    /// `st_value`.
    pub st_value: u64,
    /// `st_size`.
    pub st_size: u64,
}

impl SymbolEntry {
    /// Reads a 24-byte entry (missing bytes read as 0).
    pub fn read(raw: &[u8]) -> Self {
        Self {
            st_name: bytes::u32_at(raw, 0).unwrap_or(0),
            st_info: bytes::u8_at(raw, 4).unwrap_or(0),
            st_other: bytes::u8_at(raw, 5).unwrap_or(0),
            st_shndx: bytes::u16_at(raw, 6).unwrap_or(0),
            st_value: bytes::u64_at(raw, 8).unwrap_or(0),
            st_size: bytes::u64_at(raw, 16).unwrap_or(0),
        }
    }
}

/// A symbol table and its string table.
#[derive(Clone, Copy)]
pub struct SymbolTable<'a> {
    section: usize,
    entries: &'a [u8],
    strings: StringTable<'a>,
    hash: Option<HashTable<'a>>,
}

impl fmt::Debug for SymbolTable<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SymbolTable")
            .field("section", &self.section)
            .field("len", &self.len())
            .finish()
    }
}

impl<'a> SymbolTable<'a> {
    pub(crate) fn new(file: &ElfFile<'a>, section: Section<'a>) -> Result<Self> {
        let at = Location::Item("section", crate::error::index(section.index()));
        let h = section.header();
        if h.sh_type != SHT_SYMTAB && h.sh_type != SHT_DYNSYM {
            return Err(Error::inconsistent("section is not a symbol table", at));
        }
        if h.sh_entsize != SYM_SIZE as u64 {
            return Err(Error::malformed("symbol table sh_entsize is not 24", at));
        }
        let data = section.data()?;
        if data.len() % SYM_SIZE != 0 {
            return Err(Error::malformed(
                "symbol table size is not a multiple of 24",
                at,
            ));
        }
        let link = file
            .section(h.sh_link as usize)
            .map_err(|_| Error::out_of_bounds("symbol table sh_link is not a section", at))?;
        if link.header().sh_type != SHT_STRTAB {
            return Err(Error::inconsistent(
                "symbol table sh_link is not a string table",
                at,
            ));
        }
        let strings = StringTable::new(link.data()?);
        // The hash table linked to this symbol table, GNU preferred; one that
        // cannot be read is ignored (lookups then scan), since the table is
        // an accelerator and not needed to read the symbols.
        let linked = |ty| {
            file.sections()
                .find(|s| {
                    s.header().sh_type == ty && s.header().sh_link as usize == section.index()
                })
                .and_then(|s| HashTable::from_section(&s).ok())
        };
        let hash = linked(SHT_GNU_HASH).or_else(|| linked(SHT_HASH));
        Ok(Self {
            section: section.index(),
            entries: data,
            strings,
            hash,
        })
    }

    /// Index of the symbol-table section.
    pub fn section_index(&self) -> usize {
        self.section
    }

    /// Number of entries (including the null symbol 0).
    pub fn len(&self) -> usize {
        self.entries.len() / SYM_SIZE
    }

    /// Whether the table has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The string table linked to this symbol table.
    pub fn strings(&self) -> StringTable<'a> {
        self.strings
    }

    /// Symbol `index`.
    pub fn get(&self, index: usize) -> Result<Symbol<'a>> {
        let start = index.checked_mul(SYM_SIZE);
        let raw = start
            .and_then(|s| self.entries.get(s..s.checked_add(SYM_SIZE)?))
            .ok_or(Error::out_of_bounds(
                "symbol index is past the end of the table",
                Location::Item("symbol", crate::error::index(index)),
            ))?;
        Ok(Symbol {
            index,
            entry: SymbolEntry::read(raw),
            strings: self.strings,
        })
    }

    /// Every symbol, in order (the first is the null symbol).
    pub fn iter(&self) -> Symbols<'a> {
        Symbols {
            table: *self,
            next: 0,
        }
    }

    /// The first symbol called `name`, by a scan of the table. Symbols whose
    /// name cannot be read are skipped (they cannot be called `name`).
    pub fn find(&self, name: &[u8]) -> Option<Symbol<'a>> {
        self.iter()
            .filter_map(|s| s.ok())
            .find(|s| s.name().ok() == Some(name))
    }

    /// The hash table (`.gnu.hash` or `.hash`) linked to this table, if any.
    pub fn hash_table(&self) -> Option<HashTable<'a>> {
        self.hash
    }

    /// The symbol called `name`: through the linked hash table when there
    /// is one (a malformed table is an error), otherwise by [`find`].
    ///
    /// [`find`]: Self::find
    pub fn lookup(&self, name: &[u8]) -> Result<Option<Symbol<'a>>> {
        match &self.hash {
            Some(h) => h.lookup(self, name),
            None => Ok(self.find(name)),
        }
    }
}

/// Iterator over a [`SymbolTable`]; yields `Result` so a caller sees which
/// symbol failed (entries are always complete, so today it never fails).
#[derive(Clone)]
pub struct Symbols<'a> {
    table: SymbolTable<'a>,
    next: usize,
}

impl<'a> Iterator for Symbols<'a> {
    type Item = Result<Symbol<'a>>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.table.len() {
            return None;
        }
        let s = self.table.get(self.next);
        self.next += 1;
        Some(s)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.table.len().saturating_sub(self.next);
        (n, Some(n))
    }
}

/// One symbol.
#[derive(Clone, Copy)]
pub struct Symbol<'a> {
    index: usize,
    entry: SymbolEntry,
    strings: StringTable<'a>,
}

impl fmt::Debug for Symbol<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Symbol")
            .field("index", &self.index)
            .field("entry", &self.entry)
            .finish()
    }
}

impl<'a> Symbol<'a> {
    /// Index in its table.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The raw entry.
    pub fn entry(&self) -> &SymbolEntry {
        &self.entry
    }

    /// The name (empty for the null symbol).
    pub fn name(&self) -> Result<&'a [u8]> {
        self.strings
            .get(self.entry.st_name)
            .map_err(|e| e.at(Location::Item("symbol", crate::error::index(self.index))))
    }

    /// The name as UTF-8.
    pub fn name_str(&self) -> Result<&'a str> {
        core::str::from_utf8(self.name()?).map_err(|_| {
            Error::malformed(
                "symbol name is not UTF-8",
                Location::Item("symbol", crate::error::index(self.index)),
            )
        })
    }

    /// `ELF64_ST_TYPE(st_info)`.
    pub fn kind(&self) -> u8 {
        self.entry.st_info & 0xf
    }

    /// `ELF64_ST_BIND(st_info)`.
    pub fn binding(&self) -> u8 {
        self.entry.st_info >> 4
    }

    /// `ELF64_ST_VISIBILITY(st_other)`.
    pub fn visibility(&self) -> u8 {
        self.entry.st_other & 3
    }

    /// `st_shndx`.
    pub fn section_index(&self) -> u16 {
        self.entry.st_shndx
    }

    /// Whether the symbol is undefined (`SHN_UNDEF`), i.e. external.
    pub fn is_undefined(&self) -> bool {
        self.entry.st_shndx == super::SHN_UNDEF
    }

    /// `st_value`.
    pub fn value(&self) -> u64 {
        self.entry.st_value
    }

    /// `st_size`.
    pub fn size(&self) -> u64 {
        self.entry.st_size
    }
}
