//! Symbol hash tables: SysV `.hash` (gABI "Hash Table") and GNU
//! `.gnu.hash`, both of which ld.lld writes for AMDGPU code objects. They
//! turn a by-name symbol lookup from a scan of `.dynsym` into a few probes,
//! which matters for code objects with thousands of kernels.
//!
//! Both tables come from the input, so every index is range-checked and
//! every chain walk is bounded by the number of symbols: a cyclic chain is
//! an error, not an endless loop.

use super::{Section, Symbol, SymbolTable};
use crate::bytes;
use crate::error::{Error, Location, Result, index};

/// The SysV ELF hash of `name` (gABI "Hash Table").
pub fn elf_hash(name: &[u8]) -> u32 {
    let mut h: u32 = 0;
    for &c in name {
        h = (h << 4).wrapping_add(u32::from(c));
        let g = h & 0xf000_0000;
        if g != 0 {
            h ^= g >> 24;
        }
        h &= !g;
    }
    h
}

/// The GNU hash of `name` (Bernstein's `h * 33 + c`, seed 5381).
pub fn gnu_hash(name: &[u8]) -> u32 {
    name.iter().fold(5381u32, |h, &c| {
        h.wrapping_mul(33).wrapping_add(u32::from(c))
    })
}

/// A symbol hash table attached to a symbol table.
#[derive(Debug, Clone, Copy)]
pub enum HashTable<'a> {
    /// `SHT_HASH`.
    Sysv {
        /// Section index, for error locations.
        section: u32,
        /// The section data.
        data: &'a [u8],
    },
    /// `SHT_GNU_HASH`.
    Gnu {
        /// Section index, for error locations.
        section: u32,
        /// The section data.
        data: &'a [u8],
    },
}

impl<'a> HashTable<'a> {
    /// The table of `section` (which must be `SHT_HASH` or `SHT_GNU_HASH`).
    pub fn from_section(section: &Section<'a>) -> Result<Self> {
        let i = index(section.index());
        match section.header().sh_type {
            super::SHT_HASH => Ok(Self::Sysv {
                section: i,
                data: section.data()?,
            }),
            super::SHT_GNU_HASH => Ok(Self::Gnu {
                section: i,
                data: section.data()?,
            }),
            _ => Err(Error::inconsistent(
                "not a hash section",
                Location::Item("section", i),
            )),
        }
    }

    /// Looks `name` up in `symbols` through this table.
    pub fn lookup(&self, symbols: &SymbolTable<'a>, name: &[u8]) -> Result<Option<Symbol<'a>>> {
        match *self {
            Self::Sysv { section, data } => {
                sysv_lookup(data, symbols, name).map_err(|e| e.within("section", section))
            }
            Self::Gnu { section, data } => {
                gnu_lookup(data, symbols, name).map_err(|e| e.within("section", section))
            }
        }
    }
}

fn word(data: &[u8], i: u64, what: &'static str) -> Result<u32> {
    let off = i.checked_mul(4).and_then(|o| usize::try_from(o).ok());
    off.and_then(|o| bytes::u32_at(data, o))
        .ok_or(Error::out_of_bounds(
            what,
            Location::Offset(i.saturating_mul(4)),
        ))
}

fn matches<'a>(symbols: &SymbolTable<'a>, idx: usize, name: &[u8]) -> Result<Option<Symbol<'a>>> {
    let s = symbols.get(idx)?;
    Ok((s.name()? == name).then_some(s))
}

fn sysv_lookup<'a>(
    data: &[u8],
    symbols: &SymbolTable<'a>,
    name: &[u8],
) -> Result<Option<Symbol<'a>>> {
    let nbucket = word(data, 0, "hash table header is truncated")?;
    let nchain = word(data, 1, "hash table header is truncated")?;
    if nbucket == 0 {
        return Ok(None);
    }
    if nchain as usize != symbols.len() {
        return Err(Error::inconsistent(
            "hash table nchain differs from the symbol count",
            Location::Offset(4),
        ));
    }
    let h = elf_hash(name);
    let mut idx = word(
        data,
        2 + u64::from(h % nbucket),
        "hash bucket is past the end of the table",
    )?;
    // A well-formed chain visits each symbol at most once.
    for _ in 0..=nchain {
        if idx == 0 {
            return Ok(None);
        }
        if idx >= nchain {
            return Err(Error::out_of_bounds(
                "hash chain names a symbol past the table",
                Location::Input,
            ));
        }
        if let Some(s) = matches(symbols, idx as usize, name)? {
            return Ok(Some(s));
        }
        idx = word(
            data,
            2 + u64::from(nbucket) + u64::from(idx),
            "hash chain is past the end of the table",
        )?;
    }
    Err(Error::malformed("hash chain is cyclic", Location::Input))
}

fn gnu_lookup<'a>(
    data: &[u8],
    symbols: &SymbolTable<'a>,
    name: &[u8],
) -> Result<Option<Symbol<'a>>> {
    let trunc = "GNU hash header is truncated";
    let nbuckets = word(data, 0, trunc)?;
    let symoffset = word(data, 1, trunc)?;
    let bloom_size = word(data, 2, trunc)?;
    let bloom_shift = word(data, 3, trunc)?;
    if nbuckets == 0 {
        return Ok(None);
    }
    let h = gnu_hash(name);
    if bloom_size != 0 {
        let i = (h / 64) % bloom_size;
        let at = 4u64 + u64::from(i) * 2;
        let lo = word(data, at, "bloom filter is past the end of the table")?;
        let hi = word(data, at + 1, "bloom filter is past the end of the table")?;
        let bloom = u64::from(lo) | (u64::from(hi) << 32);
        let mask = (1u64 << (h % 64)) | (1u64 << ((h >> (bloom_shift % 32)) % 64));
        if bloom & mask != mask {
            return Ok(None);
        }
    }
    let buckets = 4 + u64::from(bloom_size) * 2;
    let chains = buckets + u64::from(nbuckets);
    let mut idx = word(
        data,
        buckets + u64::from(h % nbuckets),
        "hash bucket is past the end of the table",
    )?;
    if idx == 0 {
        return Ok(None);
    }
    if idx < symoffset {
        return Err(Error::malformed(
            "GNU hash bucket points below symoffset",
            Location::Input,
        ));
    }
    // Chains run upwards through the symbol table and end at a set low bit.
    while (idx as usize) < symbols.len() {
        let ch = word(
            data,
            chains + u64::from(idx - symoffset),
            "hash chain is past the end of the table",
        )?;
        if (ch | 1) == (h | 1) {
            if let Some(s) = matches(symbols, idx as usize, name)? {
                return Ok(Some(s));
            }
        }
        if ch & 1 != 0 {
            return Ok(None);
        }
        // The loop bound keeps idx below the symbol count; checked anyway
        // so a table of 2^32 symbols cannot wrap it.
        let Some(next) = idx.checked_add(1) else {
            break;
        };
        idx = next;
    }
    Err(Error::malformed(
        "GNU hash chain runs past the symbol table",
        Location::Input,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_functions() {
        // Reference values from the gABI and glibc's dl-hash / dl-new-hash.
        assert_eq!(elf_hash(b""), 0);
        assert_eq!(elf_hash(b"printf"), 0x077905a6);
        assert_eq!(elf_hash(b"exit"), 0x0006cf04);
        assert_eq!(gnu_hash(b""), 0x0000_1505);
        assert_eq!(gnu_hash(b"printf"), 0x156b_2bb8);
        assert_eq!(gnu_hash(b"exit"), 0x7c96_7e3f);
    }
}
