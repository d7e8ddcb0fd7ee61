//! Code object URIs as ROCr's loader names them (`amd_hsa_loader.cpp`:
//! `EncodePathname`, `GetUriFromMemoryAddress`,
//! `GetUriFromMemoryInExecutableFile`, `GetUriFromMemoryInMmapedFile`; the
//! URI syntax of AMDGPUUsage, "Code Object URI"):
//!
//! - `file://PATH[#offset=O&size=S]`: the path percent-encoded except for
//!   letters, digits and `/-_.~`; the fragment left out when the code
//!   object is the whole file.
//! - `memory://PID#offset=0xADDRESS&size=S`.
//!
//! A code object in the caller's memory is named by where that memory is:
//! by default ([`MemoryUri::LoadedElf`]) the file of the loaded ELF
//! (program or shared library: `dl_iterate_phdr`) whose `PT_LOAD` segment
//! holds it, at the matching file offset (a HIP program's embedded
//! fat binary names the program file); with `HSA_LOADER_ENABLE_MMAP_URI=1`
//! ([`MemoryUri::MappedFile`]) the file of whatever mapping holds it
//! (`/proc/self/maps`); else `memory://`.

#![allow(unsafe_code)]

use std::ffi::CStr;

/// How a code object in the caller's memory is named.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MemoryUri {
    /// ROCr's default: the file of a loaded ELF holding it.
    #[default]
    LoadedElf,
    /// `HSA_LOADER_ENABLE_MMAP_URI=1`: the file of any mapping holding it.
    MappedFile,
}

/// `EncodePathname`: `file://` and the path, percent-encoded (upper-case
/// hex) except for ASCII letters, digits and `/-_.~`.
pub fn encode_path(path: &[u8]) -> String {
    let mut s = String::from("file://");
    for &c in path {
        if c.is_ascii_alphanumeric() || matches!(c, b'/' | b'-' | b'_' | b'.' | b'~') {
            s.push(c as char);
        } else {
            s.push_str(&format!("%{c:02X}"));
        }
    }
    s
}

/// A `file://` URI of `size` bytes at `offset` of the file at `path`;
/// without the fragment when they are the whole file.
pub fn file_uri(path: &[u8], offset: u64, size: u64, whole: bool) -> String {
    let mut s = encode_path(path);
    if !whole {
        s.push_str(&format!("#offset={offset}&size={size}"));
    }
    s
}

/// `GetUriFromMemoryAddress`.
pub fn memory_uri(address: usize, size: usize) -> String {
    format!(
        "memory://{}#offset={address:#x}&size={size}",
        std::process::id()
    )
}

/// The URI of `size` bytes at `address` of this process, named as `how`
/// says.
pub fn of_memory(address: usize, size: usize, how: MemoryUri) -> String {
    file_of_memory(address, size, how).unwrap_or_else(|| memory_uri(address, size))
}

/// The `file://` URI `how` finds for `size` bytes at `address`, if any.
pub fn file_of_memory(address: usize, size: usize, how: MemoryUri) -> Option<String> {
    let (path, offset, whole) = match how {
        MemoryUri::LoadedElf => in_loaded_elf(address),
        MemoryUri::MappedFile => in_mapped_file(address, size),
    }?;
    Some(file_uri(&path, offset, size as u64, whole))
}

/// `GetUriFromMemoryInExecutableFile`: the loaded object whose `PT_LOAD`
/// segment holds `address` (its path: the program's from
/// `/proc/self/exe`), and the file offset of `address` there.
fn in_loaded_elf(address: usize) -> Option<(Vec<u8>, u64, bool)> {
    struct Search {
        address: usize,
        index: usize,
        found: Option<(Vec<u8>, u64)>,
    }
    unsafe extern "C" fn each(
        info: *mut libc::dl_phdr_info,
        _size: libc::size_t,
        data: *mut libc::c_void,
    ) -> libc::c_int {
        // SAFETY: `data` is the `Search` passed to dl_iterate_phdr below,
        // which calls us on its thread while it lives.
        let search = unsafe { &mut *data.cast::<Search>() };
        // SAFETY: glibc passes a valid dl_phdr_info for the call.
        let info = unsafe { &*info };
        let name: &[u8] = if info.dlpi_name.is_null() {
            b""
        } else {
            // SAFETY: dlpi_name is a NUL-terminated string of glibc's.
            unsafe { CStr::from_ptr(info.dlpi_name) }.to_bytes()
        };
        let index = search.index;
        search.index += 1;
        // The vDSO is no file (ROCr skips it).
        if name.windows(7).any(|w| w == b"vdso.so") || info.dlpi_phdr.is_null() {
            return 0;
        }
        let elf_address = (search.address as u64).wrapping_sub(info.dlpi_addr);
        // SAFETY: dlpi_phdr points to dlpi_phnum program headers.
        let phdrs = unsafe { std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum.into()) };
        for p in phdrs.iter().rev() {
            let inside = elf_address.wrapping_sub(p.p_vaddr) < p.p_memsz;
            if p.p_type == libc::PT_LOAD && inside {
                let path = if name.is_empty() && index == 0 {
                    // The program itself.
                    std::fs::read_link("/proc/self/exe")
                        .ok()
                        .map(|p| std::os::unix::ffi::OsStrExt::as_bytes(p.as_os_str()).to_vec())
                        .unwrap_or_default()
                } else {
                    name.to_vec()
                };
                // Wrapping: a callback of glibc's must not panic, whatever
                // the headers say.
                let offset = elf_address.wrapping_sub(p.p_vaddr).wrapping_add(p.p_offset);
                search.found = Some((path, offset));
                return 1;
            }
        }
        0
    }
    let mut search = Search {
        address,
        index: 0,
        found: None,
    };
    // SAFETY: `each` matches dl_iterate_phdr's callback type and reads
    // `search` only during the call.
    unsafe { libc::dl_iterate_phdr(Some(each), (&raw mut search).cast()) };
    match search.found {
        Some((path, offset)) if !path.is_empty() => Some((path, offset, false)),
        _ => None,
    }
}

/// `GetUriFromMemoryInMmapedFile`: the first mapping of
/// `/proc/self/maps` that holds all `size` bytes at `address`; a file
/// mapping (an inode and a path) gives the file and the offset there
/// (and whether the bytes are the whole file), anything else none.
fn in_mapped_file(address: usize, size: usize) -> Option<(Vec<u8>, u64, bool)> {
    let maps = std::fs::read("/proc/self/maps").ok()?;
    let (offset, path) = mapping_of(&maps, address as u64, size as u64)?;
    let file = <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(&path);
    let whole = offset == 0 && std::fs::metadata(file).is_ok_and(|m| m.len() == size as u64);
    Some((path, offset, whole))
}

/// In `/proc/self/maps` text, the mapping holding `[address, address +
/// size)`: the file offset of `address` and the file's path, if it is a
/// file mapping (`None` for the first holding mapping that is not).
pub fn mapping_of(maps: &[u8], address: u64, size: u64) -> Option<(u64, Vec<u8>)> {
    for line in maps.split(|&b| b == b'\n') {
        let text = String::from_utf8_lossy(line);
        let mut f = text.split_ascii_whitespace();
        let Some((lo, hi)) = f.next().and_then(|r| r.split_once('-')) else {
            continue;
        };
        let (Ok(lo), Ok(hi)) = (u64::from_str_radix(lo, 16), u64::from_str_radix(hi, 16)) else {
            continue;
        };
        if !(address >= lo && address.saturating_add(size) <= hi) {
            continue;
        }
        let _perms = f.next()?;
        let offset = u64::from_str_radix(f.next()?, 16).ok()?;
        let _dev = f.next()?;
        let inode: u64 = f.next()?.parse().ok()?;
        // The path is the rest of the line (it may hold spaces); ROCr
        // reads one word, so a path with a space is cut there: keep the
        // whole path, the file it names.
        let start = line
            .iter()
            .position(|&b| b == b'/')
            .filter(|_| inode != 0)?;
        let path = line[start..].to_vec();
        return Some((offset.checked_add(address - lo)?, path));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_percent_encoded_as_rocr() {
        assert_eq!(encode_path(b"/a/b-c_d.e~f9"), "file:///a/b-c_d.e~f9");
        assert_eq!(encode_path(b"/x y/%z+"), "file:///x%20y/%25z%2B");
        assert_eq!(
            file_uri(b"/f", 4096, 100, false),
            "file:///f#offset=4096&size=100"
        );
        assert_eq!(file_uri(b"/f", 0, 100, true), "file:///f");
    }

    #[test]
    fn the_mapping_holding_an_address() {
        let maps = b"55d0c0000000-55d0c0002000 r--p 00000000 fe:01 123 /usr/bin/prog\n\
                     55d0c0002000-55d0c0005000 r-xp 00002000 fe:01 123 /usr/bin/prog\n\
                     7f0000000000-7f0000100000 rw-p 00000000 00:00 0 \n\
                     7f1000000000-7f1000004000 r--p 00010000 fe:01 77 /tmp/a b.co\n";
        assert_eq!(
            mapping_of(maps, 0x55d0c0002100, 16),
            Some((0x2100, b"/usr/bin/prog".to_vec()))
        );
        // Anonymous memory: no file.
        assert_eq!(mapping_of(maps, 0x7f0000000010, 16), None);
        // The path keeps its space; the offset adds the mapping's.
        assert_eq!(
            mapping_of(maps, 0x7f1000001000, 0x100),
            Some((0x11000, b"/tmp/a b.co".to_vec()))
        );
        // Not held whole by one mapping.
        assert_eq!(mapping_of(maps, 0x55d0c0001f00, 0x200), None);
    }

    #[test]
    fn memory_of_this_program_names_its_file() {
        static EMBEDDED: [u8; 64] = [7; 64];
        let uri = of_memory(EMBEDDED.as_ptr() as usize, 64, MemoryUri::LoadedElf);
        let exe = std::fs::read_link("/proc/self/exe").unwrap();
        let prefix = encode_path(std::os::unix::ffi::OsStrExt::as_bytes(exe.as_os_str()));
        let rest = uri.strip_prefix(&prefix).expect(&uri);
        let offset: u64 = rest
            .strip_prefix("#offset=")
            .and_then(|r| r.strip_suffix("&size=64"))
            .unwrap()
            .parse()
            .unwrap();
        let bytes = std::fs::read(&exe).unwrap();
        assert_eq!(&bytes[offset as usize..offset as usize + 64], &[7u8; 64]);
        // Heap memory is in no loaded file.
        let heap: Vec<u8> = std::iter::repeat_n(1u8, 64).collect();
        let uri = of_memory(heap.as_ptr() as usize, 64, MemoryUri::LoadedElf);
        assert!(uri.starts_with("memory://"), "{uri}");
    }
}
