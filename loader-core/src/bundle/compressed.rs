//! Compressed offload bundles (`CCOB`), as `clang-offload-bundler --compress`
//! writes them (LLVM `CompressedOffloadBundle` in
//! `clang/lib/Driver/OffloadBundler.cpp`). All fields little-endian:
//!
//! | field | v1 | v2 | v3 |
//! |---|---|---|---|
//! | magic `CCOB` | 4 | 4 | 4 |
//! | version | 2 | 2 | 2 |
//! | compression method (`llvm::compression::Format`: 0 zlib, 1 zstd) | 2 | 2 | 2 |
//! | total file size, header included | - | 4 | 8 |
//! | uncompressed size | 4 | 4 | 8 |
//! | truncated MD5 of the uncompressed bundle (low 64 bits) | 8 | 8 | 8 |
//! | compressed data | rest | to total size | to total size |
//!
//! The header is always parsed; decompressing needs the `decompress`
//! feature (zlib through `miniz_oxide`, zstd through `ruzstd`).

use crate::bytes::{u16_at, u32_at, u64_at};
use crate::error::{Error, Location, Result};

/// The compression method of a compressed bundle
/// (`llvm::compression::Format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CompressionMethod {
    /// `Format::Zlib` (0): a zlib stream.
    Zlib,
    /// `Format::Zstd` (1): a zstd frame.
    Zstd,
}

impl CompressionMethod {
    /// The value stored in the header.
    pub const fn raw(self) -> u16 {
        match self {
            Self::Zlib => 0,
            Self::Zstd => 1,
        }
    }

    /// `"zlib"` or `"zstd"`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Zlib => "zlib",
            Self::Zstd => "zstd",
        }
    }
}

/// A compressed offload bundle whose header has been checked.
#[derive(Clone, Copy, Debug)]
pub struct CompressedBundle<'a> {
    version: u16,
    method: CompressionMethod,
    total_size: Option<u64>,
    uncompressed_size: u64,
    hash: u64,
    header_size: usize,
    payload: &'a [u8],
}

impl<'a> CompressedBundle<'a> {
    /// Parses the header of a compressed bundle starting at `data[0]`. For
    /// versions 2 and 3 `data` may extend past the bundle's total size.
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        if !data.starts_with(super::COMPRESSED_BUNDLE_MAGIC) {
            return Err(Error::malformed(
                "not a compressed offload bundle (bad magic)",
                Location::Offset(0),
            ));
        }
        let trunc = |at| {
            Error::truncated(
                "compressed bundle header runs past the end",
                Location::Offset(at),
            )
        };
        let version = u16_at(data, 4).ok_or(trunc(4))?;
        let raw_method = u16_at(data, 6).ok_or(trunc(6))?;
        let (total_size, uncompressed_size, hash_at) = match version {
            1 => (None, u64::from(u32_at(data, 8).ok_or(trunc(8))?), 12),
            2 => (
                Some(u64::from(u32_at(data, 8).ok_or(trunc(8))?)),
                u64::from(u32_at(data, 12).ok_or(trunc(12))?),
                16,
            ),
            3 => (
                Some(u64_at(data, 8).ok_or(trunc(8))?),
                u64_at(data, 16).ok_or(trunc(16))?,
                24,
            ),
            _ => {
                return Err(Error::unsupported(
                    "compressed bundle version is not 1, 2 or 3",
                    Location::Offset(4),
                ));
            }
        };
        let hash = u64_at(data, hash_at).ok_or(trunc(hash_at as u64))?;
        let header_size = hash_at + 8;
        let method = match raw_method {
            0 => CompressionMethod::Zlib,
            1 => CompressionMethod::Zstd,
            _ => {
                return Err(Error::unsupported(
                    "compression method is neither zlib (0) nor zstd (1)",
                    Location::Offset(6),
                ));
            }
        };
        let payload = match total_size {
            None => &data[header_size..],
            Some(total) => {
                if total < header_size as u64 {
                    return Err(Error::malformed(
                        "total size is smaller than the header",
                        Location::Offset(8),
                    ));
                }
                let end = usize::try_from(total)
                    .ok()
                    .filter(|&t| t <= data.len())
                    .ok_or(Error::out_of_bounds(
                        "total size runs past the end of the input",
                        Location::Offset(8),
                    ))?;
                &data[header_size..end]
            }
        };
        trace!(
            "compressed bundle v{}: {} -> {} bytes",
            version,
            payload.len(),
            uncompressed_size
        );
        Ok(Self {
            version,
            method,
            total_size,
            uncompressed_size,
            hash,
            header_size,
            payload,
        })
    }

    /// Format version (1, 2 or 3).
    pub fn version(&self) -> u16 {
        self.version
    }

    /// Compression method.
    pub fn method(&self) -> CompressionMethod {
        self.method
    }

    /// Total size of the compressed bundle, header included (versions 2, 3).
    pub fn total_size(&self) -> Option<u64> {
        self.total_size
    }

    /// Size of the bundle once decompressed.
    pub fn uncompressed_size(&self) -> u64 {
        self.uncompressed_size
    }

    /// The low 64 bits of the MD5 of the uncompressed bundle.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Header bytes (24, 28 or 32).
    pub fn header_size(&self) -> usize {
        self.header_size
    }

    /// The compressed stream.
    pub fn compressed_data(&self) -> &'a [u8] {
        self.payload
    }

    fn check_output(&self, out_len: usize) -> Result<usize> {
        let want = usize::try_from(self.uncompressed_size).map_err(|_| {
            Error::limit(
                "uncompressed size does not fit in memory",
                Location::Offset(8),
            )
        })?;
        if want > out_len {
            return Err(Error::limit(
                "uncompressed size exceeds the output buffer",
                Location::Offset(8),
            ));
        }
        Ok(want)
    }

    /// Whether `uncompressed` has the MD5 the header records (LLVM's
    /// truncated hash: the first 8 digest bytes, little-endian).
    pub fn hash_matches(&self, uncompressed: &[u8]) -> bool {
        super::md5::truncated(uncompressed) == self.hash
    }

    /// Decompresses into `out`, which must hold at least
    /// [`uncompressed_size`](Self::uncompressed_size) bytes; returns the
    /// number of bytes written. The result must have the header's size and
    /// MD5 hash. Without the `decompress` feature this returns an
    /// [`ErrorKind::FeatureDisabled`](crate::ErrorKind::FeatureDisabled) error.
    pub fn decompress_into(&self, out: &mut [u8]) -> Result<usize> {
        let want = self.check_output(out.len())?;
        let n = decompress_impl(self.method, self.payload, &mut out[..want])?;
        if n != want {
            return Err(Error::inconsistent(
                "decompressed size differs from the header's uncompressed size",
                Location::Offset(self.header_size as u64),
            ));
        }
        if !self.hash_matches(&out[..n]) {
            return Err(Error::inconsistent(
                "decompressed bundle does not match the header's MD5 hash",
                Location::Offset(self.header_size as u64 - 8),
            ));
        }
        Ok(n)
    }

    /// Decompresses into a new buffer, refusing bundles whose declared
    /// uncompressed size exceeds `max_size` (the size comes from untrusted
    /// input and is allocated up front).
    #[cfg(feature = "decompress")]
    pub fn decompress(&self, max_size: usize) -> Result<alloc::vec::Vec<u8>> {
        let want = self.check_output(max_size)?;
        let mut out = alloc::vec![0u8; want];
        let n = self.decompress_into(&mut out)?;
        out.truncate(n);
        Ok(out)
    }
}

#[cfg(not(feature = "decompress"))]
fn decompress_impl(method: CompressionMethod, _input: &[u8], _out: &mut [u8]) -> Result<usize> {
    let what = match method {
        CompressionMethod::Zlib => {
            "zlib-compressed bundle: loader-core was built without feature `decompress`"
        }
        CompressionMethod::Zstd => {
            "zstd-compressed bundle: loader-core was built without feature `decompress`"
        }
    };
    Err(Error::new(
        crate::ErrorKind::FeatureDisabled,
        what,
        Location::Offset(6),
    ))
}

#[cfg(feature = "decompress")]
fn decompress_impl(method: CompressionMethod, input: &[u8], out: &mut [u8]) -> Result<usize> {
    let bad = |what| Error::malformed(what, Location::Input);
    match method {
        CompressionMethod::Zlib => {
            use miniz_oxide::inflate::TINFLStatus;
            use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};
            let mut state = DecompressorOxide::new();
            let flags = inflate_flags::TINFL_FLAG_PARSE_ZLIB_HEADER
                | inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
            let (status, _, written) = decompress(&mut state, input, out, 0, flags);
            match status {
                TINFLStatus::Done => Ok(written),
                TINFLStatus::HasMoreOutput => Err(bad(
                    "zlib stream is longer than the declared uncompressed size",
                )),
                _ => Err(bad("zlib stream is corrupt or truncated")),
            }
        }
        CompressionMethod::Zstd => {
            use ruzstd::decoding::FrameDecoder;
            use ruzstd::decoding::errors::FrameDecoderError;
            match FrameDecoder::new().decode_all(input, out) {
                Ok(n) => Ok(n),
                Err(FrameDecoderError::TargetTooSmall) => Err(bad(
                    "zstd frame is longer than the declared uncompressed size",
                )),
                Err(_) => Err(bad("zstd frame is corrupt or truncated")),
            }
        }
    }
}
