//! Program headers (`Elf64_Phdr`).

use crate::bytes;
use crate::error::{Error, Location, Result};
use core::fmt;

/// `Elf64_Phdr`, read field by field (gABI "Program Header").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ProgramHeader {
    /// `p_type` (`PT_*`).
    pub p_type: u32,
    /// `p_flags` (`PF_*`).
    pub p_flags: u32,
    /// `p_offset`.
    pub p_offset: u64,
    /// `p_vaddr`.
    pub p_vaddr: u64,
    /// `p_paddr`.
    pub p_paddr: u64,
    /// `p_filesz`.
    pub p_filesz: u64,
    /// `p_memsz`.
    pub p_memsz: u64,
    /// `p_align`.
    pub p_align: u64,
}

impl ProgramHeader {
    /// Reads a header from a 56-byte table entry (missing bytes read as 0).
    pub fn read(raw: &[u8]) -> Self {
        let u32_ = |o| bytes::u32_at(raw, o).unwrap_or(0);
        let u64_ = |o| bytes::u64_at(raw, o).unwrap_or(0);
        Self {
            p_type: u32_(0),
            p_flags: u32_(4),
            p_offset: u64_(8),
            p_vaddr: u64_(16),
            p_paddr: u64_(24),
            p_filesz: u64_(32),
            p_memsz: u64_(40),
            p_align: u64_(48),
        }
    }
}

/// One program header of an [`ElfFile`](super::ElfFile).
#[derive(Clone, Copy)]
pub struct Segment<'a> {
    file: &'a [u8],
    index: usize,
    header: ProgramHeader,
}

impl fmt::Debug for Segment<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Segment")
            .field("index", &self.index)
            .field("header", &self.header)
            .finish()
    }
}

impl<'a> Segment<'a> {
    pub(crate) fn new(file: &'a [u8], index: usize, raw: &[u8]) -> Self {
        Self {
            file,
            index,
            header: ProgramHeader::read(raw),
        }
    }

    /// Index in the program header table.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The header.
    pub fn header(&self) -> &ProgramHeader {
        &self.header
    }

    /// `p_type`.
    pub fn p_type(&self) -> u32 {
        self.header.p_type
    }

    /// The `p_filesz` bytes at `p_offset`.
    pub fn data(&self) -> Result<&'a [u8]> {
        bytes::slice(self.file, self.header.p_offset, self.header.p_filesz).ok_or(
            Error::out_of_bounds(
                "segment file data runs past the end of the file",
                Location::Item("segment", crate::error::index(self.index)),
            ),
        )
    }

    /// Checks what a loader relies on: `p_filesz <= p_memsz`, the memory
    /// range does not wrap, and `p_align` is 0 or a power of two with
    /// `p_vaddr` and `p_offset` congruent modulo it (gABI "Program Header").
    pub fn check_loadable(&self) -> Result<()> {
        let h = &self.header;
        let at = Location::Item("segment", crate::error::index(self.index));
        if h.p_filesz > h.p_memsz {
            return Err(Error::inconsistent("p_filesz is larger than p_memsz", at));
        }
        h.p_vaddr
            .checked_add(h.p_memsz)
            .ok_or(Error::overflow("p_vaddr + p_memsz overflows", at))?;
        if h.p_align > 1 {
            if !h.p_align.is_power_of_two() {
                return Err(Error::malformed("p_align is not a power of two", at));
            }
            if h.p_vaddr % h.p_align != h.p_offset % h.p_align {
                return Err(Error::inconsistent(
                    "p_vaddr and p_offset differ modulo p_align",
                    at,
                ));
            }
        }
        self.data().map(|_| ())
    }
}

/// Iterator over the program headers of a file.
#[derive(Clone)]
pub struct Segments<'a> {
    file: &'a [u8],
    table: &'a [u8],
    next: usize,
}

impl<'a> Segments<'a> {
    pub(crate) fn new(file: &'a [u8], table: &'a [u8]) -> Self {
        Self {
            file,
            table,
            next: 0,
        }
    }
}

impl<'a> Iterator for Segments<'a> {
    type Item = Segment<'a>;
    fn next(&mut self) -> Option<Segment<'a>> {
        let start = self.next.checked_mul(super::PHDR_SIZE)?;
        let raw = self
            .table
            .get(start..start.checked_add(super::PHDR_SIZE)?)?;
        let s = Segment::new(self.file, self.next, raw);
        self.next += 1;
        Some(s)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.table.len() / super::PHDR_SIZE).saturating_sub(self.next);
        (n, Some(n))
    }
}
