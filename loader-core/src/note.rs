//! ELF notes (`Elf64_Nhdr` + name + descriptor) and the AMDGPU note types.
//!
//! AMDGPU code objects carry their metadata in notes (AMDGPUUsage "Note
//! Records"): v2 uses owner `"AMD"` and the `NT_AMD_HSA_*` types; v3 and
//! later use owner `"AMDGPU"` and `NT_AMDGPU_METADATA` (a MessagePack map,
//! see [`crate::metadata`]). Name and descriptor are padded to 4 bytes,
//! which is what LLVM emits for every AMDGPU note section (`sh_addralign`
//! 4); a note section aligned to 8 is read with 8-byte padding, as the gABI
//! allows.

use crate::bytes;
use crate::elf::{ElfFile, PT_NOTE, SHT_NOTE};
use crate::error::{Error, Location, Result};
use core::fmt;

/// `NT_AMD_HSA_CODE_OBJECT_VERSION` (v2, owner `"AMD"`): major and minor.
pub const NT_AMD_HSA_CODE_OBJECT_VERSION: u32 = 1;
/// `NT_AMD_HSA_HSAIL` (v2): HSAIL version, profile, machine model, rounding.
pub const NT_AMD_HSA_HSAIL: u32 = 2;
/// `NT_AMD_HSA_ISA_VERSION` (v2): vendor, architecture, major/minor/stepping.
pub const NT_AMD_HSA_ISA_VERSION: u32 = 3;
/// `NT_AMD_HSA_PRODUCER` (v2, `amd_hsa_elf.h`).
pub const NT_AMD_HSA_PRODUCER: u32 = 4;
/// `NT_AMD_HSA_PRODUCER_OPTIONS` (v2, `amd_hsa_elf.h`).
pub const NT_AMD_HSA_PRODUCER_OPTIONS: u32 = 5;
/// `NT_AMD_HSA_EXTENSION` (v2, `amd_hsa_elf.h`).
pub const NT_AMD_HSA_EXTENSION: u32 = 6;
/// `NT_AMD_HSA_METADATA` (v2): runtime metadata as YAML text.
pub const NT_AMD_HSA_METADATA: u32 = 10;
/// `NT_AMD_HSA_ISA_NAME` (v2): the target ID as text.
pub const NT_AMD_HSA_ISA_NAME: u32 = 11;
/// `NT_AMD_PAL_METADATA` (PAL): register/value pairs.
pub const NT_AMD_PAL_METADATA: u32 = 12;
/// `NT_AMDGPU_METADATA` (v3+, owner `"AMDGPU"`): the MessagePack map.
pub const NT_AMDGPU_METADATA: u32 = 32;

/// Size of `Elf64_Nhdr` (`n_namesz`, `n_descsz`, `n_type`).
pub const NHDR_SIZE: usize = 12;

/// One note.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Note<'a> {
    /// The owner name without its terminating NUL (`"AMD"`, `"AMDGPU"`).
    pub name: &'a [u8],
    /// `n_type`.
    pub n_type: u32,
    /// The descriptor bytes (exactly `n_descsz`).
    pub desc: &'a [u8],
    /// Zero-based index of the note in its iteration.
    pub index: u32,
}

impl fmt::Debug for Note<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Note")
            .field(
                "name",
                &core::str::from_utf8(self.name).unwrap_or("<non-UTF-8>"),
            )
            .field("n_type", &self.n_type)
            .field("desc_len", &self.desc.len())
            .finish()
    }
}

impl Note<'_> {
    /// Whether this is the v3+ MessagePack metadata note (`"AMDGPU"`, 32).
    pub fn is_amdgpu_metadata(&self) -> bool {
        self.name == b"AMDGPU" && self.n_type == NT_AMDGPU_METADATA
    }

    /// Whether the owner is `"AMD"` (code object v2 and PAL notes).
    pub fn is_amd(&self) -> bool {
        self.name == b"AMD"
    }
}

/// Iterator over the notes of one block (a note section or segment).
///
/// Yields `Err` for the first malformed note and then `None` for ever: after
/// a bad length nothing that follows can be trusted (the same rule as
/// gimli-rs/object's `NoteIterator`).
#[derive(Clone, Debug)]
pub struct NoteIter<'a> {
    data: &'a [u8],
    pos: usize,
    align: usize,
    index: u32,
    base: u64,
    done: bool,
}

impl<'a> NoteIter<'a> {
    /// Notes in `data`, padded to `align` (4 or 8; anything else reads as 4).
    /// `base` is the file offset of `data`, used in error locations.
    pub fn new(data: &'a [u8], align: u64, base: u64) -> Self {
        let align = if align == 8 { 8 } else { 4 };
        Self {
            data,
            pos: 0,
            align,
            index: 0,
            base,
            done: false,
        }
    }

    fn fail(&mut self, e: Error) -> Option<Result<Note<'a>>> {
        self.done = true;
        Some(Err(e))
    }

    fn padded(&self, n: usize) -> Option<usize> {
        bytes::align_up(n as u64, self.align as u64).and_then(|v| usize::try_from(v).ok())
    }
}

impl<'a> Iterator for NoteIter<'a> {
    type Item = Result<Note<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.pos >= self.data.len() {
            self.done = true;
            return None;
        }
        let index = self.index;
        let at = Location::ItemOffset("note", index, self.base.saturating_add(self.pos as u64));
        let rest = &self.data[self.pos..];
        let (Some(namesz), Some(descsz), Some(n_type)) = (
            bytes::u32_at(rest, 0),
            bytes::u32_at(rest, 4),
            bytes::u32_at(rest, 8),
        ) else {
            return self.fail(Error::truncated(
                "note header runs past the end of the note data",
                at,
            ));
        };
        let name_start = NHDR_SIZE;
        let Some(name_end) = name_start.checked_add(namesz as usize) else {
            return self.fail(Error::overflow("note name size overflows", at));
        };
        let Some(name) = rest.get(name_start..name_end) else {
            return self.fail(Error::out_of_bounds(
                "note name runs past the end of the note data",
                at,
            ));
        };
        let Some(desc_start) = self.padded(name_end) else {
            return self.fail(Error::overflow("note name padding overflows", at));
        };
        let Some(desc_end) = desc_start.checked_add(descsz as usize) else {
            return self.fail(Error::overflow("note descriptor size overflows", at));
        };
        let Some(desc) = rest.get(desc_start..desc_end) else {
            return self.fail(Error::out_of_bounds(
                "note descriptor runs past the end of the note data",
                at,
            ));
        };
        // The name includes its NUL when namesz > 0; be lenient about a
        // missing NUL (some producers omit it) but strip one that is there.
        let name = match name.split_last() {
            Some((0, head)) => head,
            _ => name,
        };
        // The final padding may be absent after the last note.
        let next = self.padded(desc_end).unwrap_or(usize::MAX);
        self.pos = match self.pos.checked_add(next) {
            Some(p) if p <= self.data.len() => p,
            _ => self.data.len(),
        };
        self.index = self.index.saturating_add(1);
        Some(Ok(Note {
            name,
            n_type,
            desc,
            index,
        }))
    }
}

impl core::iter::FusedIterator for NoteIter<'_> {}

/// Every note of a file: all `SHT_NOTE` sections in order, or when the
/// file has no sections, all `PT_NOTE` segments. Stops for good after the
/// first error. Note indices count across the whole file.
#[derive(Clone, Debug)]
pub struct Notes<'a> {
    file: ElfFile<'a>,
    use_sections: bool,
    next_header: usize,
    current: Option<NoteIter<'a>>,
    index: u32,
    done: bool,
}

impl<'a> Notes<'a> {
    pub(crate) fn of_file(file: ElfFile<'a>) -> Self {
        Self {
            file,
            use_sections: file.section_count() > 0,
            next_header: 0,
            current: None,
            index: 0,
            done: false,
        }
    }

    fn next_block(&mut self) -> Option<Result<NoteIter<'a>>> {
        loop {
            let i = self.next_header;
            self.next_header = i.checked_add(1)?;
            if self.use_sections {
                if i >= self.file.section_count() {
                    return None;
                }
                let s = match self.file.section(i) {
                    Ok(s) => s,
                    Err(e) => return Some(Err(e)),
                };
                if s.header().sh_type != SHT_NOTE {
                    continue;
                }
                return Some(
                    s.data()
                        .map(|d| NoteIter::new(d, s.header().sh_addralign, s.header().sh_offset)),
                );
            }
            if i >= self.file.segment_count() {
                return None;
            }
            let p = match self.file.segment(i) {
                Ok(p) => p,
                Err(e) => return Some(Err(e)),
            };
            if p.header().p_type != PT_NOTE {
                continue;
            }
            return Some(
                p.data()
                    .map(|d| NoteIter::new(d, p.header().p_align, p.header().p_offset)),
            );
        }
    }
}

impl<'a> Iterator for Notes<'a> {
    type Item = Result<Note<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            if let Some(cur) = self.current.as_mut() {
                match cur.next() {
                    Some(Ok(mut n)) => {
                        n.index = self.index;
                        self.index = self.index.saturating_add(1);
                        return Some(Ok(n));
                    }
                    Some(Err(e)) => {
                        self.done = true;
                        let e = match e.location() {
                            Location::ItemOffset(noun, _, off) => {
                                e.at(Location::ItemOffset(noun, self.index, off))
                            }
                            _ => e,
                        };
                        return Some(Err(e));
                    }
                    None => self.current = None,
                }
            }
            match self.next_block() {
                Some(Ok(it)) => self.current = Some(it),
                Some(Err(e)) => {
                    self.done = true;
                    return Some(Err(e));
                }
                None => self.done = true,
            }
        }
        None
    }
}

impl core::iter::FusedIterator for Notes<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(out: &mut [u8], pos: &mut usize, name: &[u8], ty: u32, desc: &[u8]) {
        let mut put = |b: &[u8]| {
            out[*pos..*pos + b.len()].copy_from_slice(b);
            *pos += b.len();
        };
        put(&(name.len() as u32).to_le_bytes());
        put(&(desc.len() as u32).to_le_bytes());
        put(&ty.to_le_bytes());
        put(name);
        *pos = (*pos + 3) & !3;
        out[*pos..*pos + desc.len()].copy_from_slice(desc);
        *pos += desc.len();
        *pos = (*pos + 3) & !3;
    }

    #[test]
    fn iterates_and_strips_nul() {
        let mut buf = [0u8; 128];
        let mut pos = 0;
        note(&mut buf, &mut pos, b"AMDGPU\0", NT_AMDGPU_METADATA, &[0x80]);
        note(&mut buf, &mut pos, b"AMD\0", NT_AMD_HSA_ISA_NAME, b"gfx900");
        let mut it = NoteIter::new(&buf[..pos], 4, 0);
        let a = it.next().unwrap().unwrap();
        assert!(a.is_amdgpu_metadata());
        assert_eq!(a.desc, &[0x80]);
        let b = it.next().unwrap().unwrap();
        assert!(b.is_amd());
        assert_eq!(b.desc, b"gfx900");
        assert!(it.next().is_none());
    }

    #[test]
    fn stops_after_first_error() {
        let mut buf = [0u8; 64];
        let mut pos = 0;
        note(&mut buf, &mut pos, b"AMD\0", 1, &[1, 2, 3, 4]);
        // A second note whose descriptor claims far more than there is.
        buf[pos..pos + 4].copy_from_slice(&4u32.to_le_bytes());
        buf[pos + 4..pos + 8].copy_from_slice(&0xffff_fff0u32.to_le_bytes());
        let mut it = NoteIter::new(&buf[..pos + 20], 4, 0x100);
        assert!(it.next().unwrap().is_ok());
        let e = it.next().unwrap().unwrap_err();
        assert_eq!(e.location(), Location::ItemOffset("note", 1, 0x100 + 20));
        assert!(it.next().is_none());
        assert!(it.next().is_none());
    }
}
