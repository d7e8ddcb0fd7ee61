//! Checked little-endian reads from untrusted byte slices.
//!
//! Every AMDGPU code object is little-endian ELF64, so the parser reads
//! fields with these helpers instead of casting the input to structs: no
//! alignment requirement, no `unsafe`, and each read is bounds-checked and
//! returns `None` rather than panicking. Callers attach the [`Error`]
//! (what and where) with `ok_or`.
//!
//! [`Error`]: crate::Error

/// Returns `data[offset..offset + len]`, or `None` if it is not all inside.
#[inline]
pub fn slice(data: &[u8], offset: u64, len: u64) -> Option<&[u8]> {
    let start = usize::try_from(offset).ok()?;
    let len = usize::try_from(len).ok()?;
    let end = start.checked_add(len)?;
    data.get(start..end)
}

/// Reads `N` bytes at `offset`.
#[inline]
pub fn array<const N: usize>(data: &[u8], offset: usize) -> Option<[u8; N]> {
    let end = offset.checked_add(N)?;
    let s = data.get(offset..end)?;
    let mut out = [0u8; N];
    out.copy_from_slice(s);
    Some(out)
}

/// Reads a little-endian `u8` at `offset`.
#[inline]
pub fn u8_at(data: &[u8], offset: usize) -> Option<u8> {
    data.get(offset).copied()
}

/// Reads a little-endian `u16` at `offset`.
#[inline]
pub fn u16_at(data: &[u8], offset: usize) -> Option<u16> {
    array(data, offset).map(u16::from_le_bytes)
}

/// Reads a little-endian `u32` at `offset`.
#[inline]
pub fn u32_at(data: &[u8], offset: usize) -> Option<u32> {
    array(data, offset).map(u32::from_le_bytes)
}

/// Reads a little-endian `u64` at `offset`.
#[inline]
pub fn u64_at(data: &[u8], offset: usize) -> Option<u64> {
    array(data, offset).map(u64::from_le_bytes)
}

/// Reads a little-endian `i64` at `offset`.
#[inline]
pub fn i64_at(data: &[u8], offset: usize) -> Option<i64> {
    array(data, offset).map(i64::from_le_bytes)
}

/// The NUL-terminated string starting at `offset` (without the NUL), or
/// `None` if `offset` is outside `data` or no NUL follows it.
#[inline]
pub fn c_str(data: &[u8], offset: usize) -> Option<&[u8]> {
    let rest = data.get(offset..)?;
    let nul = rest.iter().position(|&b| b == 0)?;
    rest.get(..nul)
}

/// Rounds `value` up to a multiple of `align` (a power of two, or 0/1 for
/// none); `None` on overflow.
#[inline]
pub fn align_up(value: u64, align: u64) -> Option<u64> {
    if align <= 1 {
        return Some(value);
    }
    let mask = align - 1;
    value.checked_add(mask).map(|v| v & !mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_checked() {
        let d = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
        assert_eq!(u16_at(&d, 0), Some(0x0201));
        assert_eq!(u32_at(&d, 5), Some(0x0908_0706));
        assert_eq!(u32_at(&d, 6), None);
        assert_eq!(u64_at(&d, usize::MAX), None);
        assert_eq!(slice(&d, 8, 1), Some(&d[8..]));
        assert_eq!(slice(&d, 8, 2), None);
        assert_eq!(slice(&d, u64::MAX, 2), None);
        assert_eq!(c_str(b"ab\0cd", 0), Some(&b"ab"[..]));
        assert_eq!(c_str(b"ab\0cd", 3), None);
        assert_eq!(align_up(5, 4), Some(8));
        assert_eq!(align_up(u64::MAX, 4), None);
    }
}
