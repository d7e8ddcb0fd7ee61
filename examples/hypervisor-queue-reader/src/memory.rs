//! Guest memory: bounds-checked copies out of it, never references into it.

use core::fmt;

/// A read that guest memory cannot serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadError {
    /// `address + len` overflows 64 bits.
    AddressOverflow {
        /// What was read.
        what: &'static str,
        /// Guest address.
        address: u64,
        /// Bytes.
        len: u64,
    },
    /// The range is not (wholly) inside guest memory.
    OutOfImage {
        /// What was read.
        what: &'static str,
        /// Guest address.
        address: u64,
        /// Bytes.
        len: u64,
        /// First guest address of the memory.
        base: u64,
        /// Bytes of guest memory.
        size: u64,
    },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::AddressOverflow { what, address, len } => write!(
                f,
                "{what}: {len} bytes at guest address {address:#x} run past the end of the 64-bit address space"
            ),
            Self::OutOfImage {
                what,
                address,
                len,
                base,
                size,
            } => write!(
                f,
                "{what}: {len} bytes at guest address {address:#x} are outside guest memory {base:#x}..{:#x}",
                u128::from(base) + u128::from(size)
            ),
        }
    }
}

impl std::error::Error for ReadError {}

/// Guest memory as a hypervisor sees it.
pub trait GuestMemory {
    /// Copies `buf.len()` bytes at guest address `address` into `buf`, or
    /// says why not (`what` names the read in the error). A live
    /// implementation copies with atomic or volatile loads, so a guest
    /// writing concurrently yields some bytes, never undefined behaviour.
    fn read(&self, what: &'static str, address: u64, buf: &mut [u8]) -> Result<(), ReadError>;

    /// Checks that `len` bytes at `address` are guest memory, without
    /// reading them.
    fn check(&self, what: &'static str, address: u64, len: u64) -> Result<(), ReadError>;

    /// A little-endian `u64` at `address`.
    fn read_u64(&self, what: &'static str, address: u64) -> Result<u64, ReadError> {
        let mut b = [0u8; 8];
        self.read(what, address, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }
}

/// A guest memory image: `bytes` hold guest addresses `base..base + len`.
#[derive(Debug, Clone, Copy)]
pub struct ImageMemory<'a> {
    bytes: &'a [u8],
    base: u64,
}

impl<'a> ImageMemory<'a> {
    /// The image `bytes`, whose first byte is guest address `base`.
    pub fn new(bytes: &'a [u8], base: u64) -> Self {
        Self { bytes, base }
    }

    /// First guest address.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Bytes of guest memory.
    pub fn size(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// The image offset of `len` bytes at `address`, if they are inside.
    pub fn offset_of(
        &self,
        what: &'static str,
        address: u64,
        len: u64,
    ) -> Result<usize, ReadError> {
        let end =
            address
                .checked_add(len)
                .ok_or(ReadError::AddressOverflow { what, address, len })?;
        let outside = ReadError::OutOfImage {
            what,
            address,
            len,
            base: self.base,
            size: self.size(),
        };
        let start = address.checked_sub(self.base).ok_or(outside)?;
        let end = end.checked_sub(self.base).ok_or(outside)?;
        if end > self.size() {
            return Err(outside);
        }
        usize::try_from(start).map_err(|_| outside)
    }
}

impl GuestMemory for ImageMemory<'_> {
    fn check(&self, what: &'static str, address: u64, len: u64) -> Result<(), ReadError> {
        self.offset_of(what, address, len).map(drop)
    }

    fn read(&self, what: &'static str, address: u64, buf: &mut [u8]) -> Result<(), ReadError> {
        let start = self.offset_of(what, address, buf.len() as u64)?;
        // `offset_of` checked start + len <= size, so this cannot fail.
        let src = start
            .checked_add(buf.len())
            .and_then(|end| self.bytes.get(start..end))
            .ok_or(ReadError::OutOfImage {
                what,
                address,
                len: buf.len() as u64,
                base: self.base,
                size: self.size(),
            })?;
        buf.copy_from_slice(src);
        Ok(())
    }
}
