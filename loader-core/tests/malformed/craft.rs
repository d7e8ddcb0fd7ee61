//! Building crafted inputs, shared by the stable tests
//! (`loader-core/tests/malformed.rs`) and the structure-aware fuzz target
//! (`fuzz/fuzz_targets/loader_metadata_structured.rs`): a MessagePack
//! encoder that can write every integer encoding (minimal or not), and a
//! rewrite that gives a real code object another `NT_AMDGPU_METADATA` note.
#![allow(dead_code)]

/// `SHT_NOTE`.
const SHT_NOTE: u32 = 7;
/// `NT_AMDGPU_METADATA` (AMDGPUUsage "Code Object V3 Note Records").
pub const NT_AMDGPU_METADATA: u32 = 32;

/// A MessagePack writer (the msgpack spec's formats, written by hand so the
/// fuzz target needs no encoder crate and can pick non-minimal encodings).
#[derive(Default, Debug, Clone)]
pub struct Encoder {
    /// The document so far.
    pub out: Vec<u8>,
}

/// How to encode an unsigned integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UintForm {
    /// The shortest form the value fits.
    Minimal,
    /// `uint 8`/`16`/`32`/`64` (0xcc..0xcf) even where shorter fits; the
    /// value is truncated to the width (a fuzzer picks both).
    U8,
    /// `uint 16`.
    U16,
    /// `uint 32`.
    U32,
    /// `uint 64`.
    U64,
}

impl Encoder {
    /// An empty document.
    pub fn new() -> Self {
        Self::default()
    }

    /// An unsigned integer in its shortest form.
    pub fn uint(&mut self, v: u64) -> &mut Self {
        self.uint_as(v, UintForm::Minimal)
    }

    /// An unsigned integer in the form `form`.
    pub fn uint_as(&mut self, v: u64, form: UintForm) -> &mut Self {
        let form = match form {
            UintForm::Minimal if v < 0x80 => {
                self.out.push(v as u8);
                return self;
            }
            UintForm::Minimal if v <= 0xff => UintForm::U8,
            UintForm::Minimal if v <= 0xffff => UintForm::U16,
            UintForm::Minimal if v <= 0xffff_ffff => UintForm::U32,
            UintForm::Minimal => UintForm::U64,
            f => f,
        };
        match form {
            UintForm::U8 => self.out.extend_from_slice(&[0xcc, v as u8]),
            UintForm::U16 => {
                self.out.push(0xcd);
                self.out.extend_from_slice(&(v as u16).to_be_bytes());
            }
            UintForm::U32 => {
                self.out.push(0xce);
                self.out.extend_from_slice(&(v as u32).to_be_bytes());
            }
            _ => {
                self.out.push(0xcf);
                self.out.extend_from_slice(&v.to_be_bytes());
            }
        }
        self
    }

    /// A signed integer (negative ones as `int 64`, the rest minimal).
    pub fn int(&mut self, v: i64) -> &mut Self {
        if v >= 0 {
            return self.uint(v as u64);
        }
        if v >= -32 {
            self.out.push(v as u8);
        } else {
            self.out.push(0xd3);
            self.out.extend_from_slice(&v.to_be_bytes());
        }
        self
    }

    /// A `float 64`.
    pub fn f64(&mut self, v: f64) -> &mut Self {
        self.out.push(0xcb);
        self.out.extend_from_slice(&v.to_bits().to_be_bytes());
        self
    }

    /// `nil`.
    pub fn nil(&mut self) -> &mut Self {
        self.out.push(0xc0);
        self
    }

    /// A boolean.
    pub fn bool(&mut self, v: bool) -> &mut Self {
        self.out.push(if v { 0xc3 } else { 0xc2 });
        self
    }

    /// A string (fixstr, str 8, 16 or 32 by length).
    pub fn str(&mut self, s: &str) -> &mut Self {
        let n = s.len();
        if n < 32 {
            self.out.push(0xa0 | n as u8);
        } else if n <= 0xff {
            self.out.extend_from_slice(&[0xd9, n as u8]);
        } else if n <= 0xffff {
            self.out.push(0xda);
            self.out.extend_from_slice(&(n as u16).to_be_bytes());
        } else {
            self.out.push(0xdb);
            self.out.extend_from_slice(&(n as u32).to_be_bytes());
        }
        self.out.extend_from_slice(s.as_bytes());
        self
    }

    /// The header of an array of `n` items (the items follow).
    pub fn array(&mut self, n: u32) -> &mut Self {
        self.container(n, 0x90, 0xdc)
    }

    /// The header of a map of `n` pairs (keys and values follow).
    pub fn map(&mut self, n: u32) -> &mut Self {
        self.container(n, 0x80, 0xde)
    }

    fn container(&mut self, n: u32, fix: u8, wide: u8) -> &mut Self {
        if n < 16 {
            self.out.push(fix | n as u8);
        } else if n <= 0xffff {
            self.out.push(wide);
            self.out.extend_from_slice(&(n as u16).to_be_bytes());
        } else {
            self.out.push(wide + 1);
            self.out.extend_from_slice(&n.to_be_bytes());
        }
        self
    }

    /// Raw bytes (an already encoded value).
    pub fn raw(&mut self, b: &[u8]) -> &mut Self {
        self.out.extend_from_slice(b);
        self
    }
}

/// One ELF note record, `AMDGPU` owner, 4-byte padding (AMDGPUUsage "Note
/// Records").
pub fn amdgpu_note(n_type: u32, desc: &[u8]) -> Vec<u8> {
    let name = b"AMDGPU\0";
    let mut n = Vec::with_capacity(12 + 8 + desc.len() + 3);
    n.extend_from_slice(&(name.len() as u32).to_le_bytes());
    n.extend_from_slice(&(desc.len() as u32).to_le_bytes());
    n.extend_from_slice(&n_type.to_le_bytes());
    n.extend_from_slice(name);
    n.resize(n.len().next_multiple_of(4), 0);
    n.extend_from_slice(desc);
    n.resize(n.len().next_multiple_of(4), 0);
    n
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}
fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}
fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// `elf` (a valid ELF64 code object) with its first `SHT_NOTE` section
/// replaced by one holding only an `NT_AMDGPU_METADATA` note of `desc`: the
/// note is appended at the end of the file (8-aligned) and the section
/// header points there, so nothing else moves. `None` if `elf` has no note
/// section.
pub fn with_metadata(elf: &[u8], desc: &[u8]) -> Option<Vec<u8>> {
    let shoff = usize::try_from(u64_at(elf, 40)?).ok()?;
    let shentsize = usize::from(u16_at(elf, 58)?);
    let shnum = usize::from(u16_at(elf, 60)?);
    let header = (0..shnum)
        .map(|i| shoff + i * shentsize)
        .find(|&h| u32_at(elf, h + 4) == Some(SHT_NOTE))?;
    let mut out = elf.to_vec();
    out.resize(out.len().next_multiple_of(8), 0);
    let at = out.len() as u64;
    let note = amdgpu_note(NT_AMDGPU_METADATA, desc);
    out.extend_from_slice(&note);
    out[header + 24..header + 32].copy_from_slice(&at.to_le_bytes());
    out[header + 32..header + 40].copy_from_slice(&(note.len() as u64).to_le_bytes());
    out[header + 48..header + 56].copy_from_slice(&4u64.to_le_bytes());
    Some(out)
}

/// The descriptor of the first `NT_AMDGPU_METADATA` note in the first
/// `SHT_NOTE` section of `elf`.
pub fn metadata_of(elf: &[u8]) -> Option<&[u8]> {
    let shoff = usize::try_from(u64_at(elf, 40)?).ok()?;
    let shentsize = usize::from(u16_at(elf, 58)?);
    let shnum = usize::from(u16_at(elf, 60)?);
    let header = (0..shnum)
        .map(|i| shoff + i * shentsize)
        .find(|&h| u32_at(elf, h + 4) == Some(SHT_NOTE))?;
    let off = usize::try_from(u64_at(elf, header + 24)?).ok()?;
    let namesz = usize::try_from(u32_at(elf, off)?).ok()?;
    let descsz = usize::try_from(u32_at(elf, off + 4)?).ok()?;
    let start = off + 12 + namesz.next_multiple_of(4);
    elf.get(start..start + descsz)
}
