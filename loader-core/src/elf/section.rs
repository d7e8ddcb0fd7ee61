//! Section headers (`Elf64_Shdr`) and string tables.

use crate::bytes;
use crate::error::{Error, Location, Result};
use core::fmt;

/// `Elf64_Shdr`, read field by field (gABI "Sections").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SectionHeader {
    /// `sh_name`: offset of the name in `.shstrtab`.
    pub sh_name: u32,
    /// `sh_type` (`SHT_*`).
    pub sh_type: u32,
    /// `sh_flags` (`SHF_*`).
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

impl SectionHeader {
    /// Reads a header from a slice of at least 64 bytes (missing bytes read
    /// as zero; callers pass exact 64-byte table entries).
    pub fn read(raw: &[u8]) -> Self {
        let u32_ = |o| bytes::u32_at(raw, o).unwrap_or(0);
        let u64_ = |o| bytes::u64_at(raw, o).unwrap_or(0);
        Self {
            sh_name: u32_(0),
            sh_type: u32_(4),
            sh_flags: u64_(8),
            sh_addr: u64_(16),
            sh_offset: u64_(24),
            sh_size: u64_(32),
            sh_link: u32_(40),
            sh_info: u32_(44),
            sh_addralign: u64_(48),
            sh_entsize: u64_(56),
        }
    }
}

/// One section of an [`ElfFile`](super::ElfFile).
#[derive(Clone, Copy)]
pub struct Section<'a> {
    file: &'a [u8],
    index: usize,
    header: SectionHeader,
    names: Option<StringTable<'a>>,
}

impl fmt::Debug for Section<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Section")
            .field("index", &self.index)
            .field("header", &self.header)
            .finish()
    }
}

impl<'a> Section<'a> {
    pub(crate) fn new(
        file: &'a [u8],
        index: usize,
        raw: &[u8],
        names: Option<StringTable<'a>>,
    ) -> Self {
        Self {
            file,
            index,
            header: SectionHeader::read(raw),
            names,
        }
    }

    /// Index in the section header table.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The header.
    pub fn header(&self) -> &SectionHeader {
        &self.header
    }

    /// `sh_type`.
    pub fn sh_type(&self) -> u32 {
        self.header.sh_type
    }

    fn at(&self) -> Location {
        Location::Item("section", crate::error::index(self.index))
    }

    /// The name from `.shstrtab`.
    pub fn name(&self) -> Result<&'a [u8]> {
        let names = self
            .names
            .ok_or(Error::missing("no section-name string table", self.at()))?;
        names.get(self.header.sh_name).map_err(|e| e.at(self.at()))
    }

    /// The name as UTF-8.
    pub fn name_str(&self) -> Result<&'a str> {
        core::str::from_utf8(self.name()?)
            .map_err(|_| Error::malformed("section name is not UTF-8", self.at()))
    }

    /// The bytes of the section in the file (empty for `SHT_NOBITS`).
    pub fn data(&self) -> Result<&'a [u8]> {
        if self.header.sh_type == super::SHT_NOBITS || self.header.sh_type == super::SHT_NULL {
            return Ok(&[]);
        }
        bytes::slice(self.file, self.header.sh_offset, self.header.sh_size).ok_or(
            Error::out_of_bounds("section data runs past the end of the file", self.at()),
        )
    }
}

/// Iterator over the sections of a file.
#[derive(Clone)]
pub struct Sections<'a> {
    file: &'a [u8],
    table: &'a [u8],
    next: usize,
    names: Option<StringTable<'a>>,
}

impl<'a> Sections<'a> {
    pub(crate) fn new(file: &'a [u8], table: &'a [u8], names: Option<StringTable<'a>>) -> Self {
        Self {
            file,
            table,
            next: 0,
            names,
        }
    }
}

impl<'a> Iterator for Sections<'a> {
    type Item = Section<'a>;
    fn next(&mut self) -> Option<Section<'a>> {
        let start = self.next.checked_mul(super::SHDR_SIZE)?;
        let raw = self
            .table
            .get(start..start.checked_add(super::SHDR_SIZE)?)?;
        let s = Section::new(self.file, self.next, raw, self.names);
        self.next += 1;
        Some(s)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.table.len() / super::SHDR_SIZE).saturating_sub(self.next);
        (n, Some(n))
    }
}

/// A string table (`SHT_STRTAB`): NUL-terminated names at offsets.
#[derive(Clone, Copy)]
pub struct StringTable<'a> {
    data: &'a [u8],
}

impl fmt::Debug for StringTable<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StringTable")
            .field("len", &self.data.len())
            .finish()
    }
}

impl<'a> StringTable<'a> {
    /// A table over `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data }
    }

    /// The string at `offset`, without its NUL.
    pub fn get(&self, offset: u32) -> Result<&'a [u8]> {
        let off = offset as usize;
        if off >= self.data.len() {
            return Err(Error::out_of_bounds(
                "string offset is past the end of the string table",
                Location::Offset(offset.into()),
            ));
        }
        bytes::c_str(self.data, off).ok_or(Error::malformed(
            "string is not NUL-terminated inside its table",
            Location::Offset(offset.into()),
        ))
    }
}
