//! The bytes-level parser of one KFD sysfs `properties` file.
//!
//! The kernel writes every topology attribute with `sysfs_show_32bit_prop` /
//! `sysfs_show_64bit_prop` (`drivers/gpu/drm/amd/amdkfd/kfd_topology.c`):
//! one `"%s %u\n"` / `"%s %llu\n"` line per key, in ASCII, each line ended by
//! a newline. The one exception is a cache's `sibling_map`, whose value is a
//! comma-separated list of `0`/`1`. This parser checks that shape and nothing
//! more; turning values into numbers is the typed layer's job, so keys a newer
//! kernel adds are kept as they are.
//!
//! It needs no filesystem: [`Properties::parse`] takes the bytes, so the fuzz
//! target and the tests call it directly.

use core::fmt;

/// Largest file accepted anywhere in the topology tree. sysfs attributes are
/// at most one page; anything bigger is not a KFD file.
pub const MAX_FILE_SIZE: usize = 64 * 1024;

/// One `key value` line of a properties file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Property {
    /// The key, e.g. `simd_count`.
    pub key: String,
    /// The value exactly as written, e.g. `304` or `1,0,0,0`.
    pub value: String,
    /// 1-based line number in the file.
    pub line: u32,
}

/// The lines of one properties file, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Properties {
    entries: Vec<Property>,
}

/// What is wrong with a line of a properties file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SyntaxErrorKind {
    /// The file is bigger than [`MAX_FILE_SIZE`].
    TooLarge,
    /// A byte outside printable ASCII (the kernel prints only ASCII).
    NotAscii,
    /// A line with nothing on it.
    EmptyLine,
    /// A line with a key but no space and value after it.
    MissingValue,
    /// A line starting with a space.
    EmptyKey,
    /// A key with a character other than `[A-Za-z0-9_]`.
    BadKey,
    /// A value holding a space, a tab or another control character.
    BadValue,
    /// The same key twice in one file.
    DuplicateKey,
    /// The last line has no newline: the file was cut short.
    Truncated,
}

impl SyntaxErrorKind {
    fn as_str(self) -> &'static str {
        match self {
            Self::TooLarge => "file larger than 64 KiB",
            Self::NotAscii => "byte outside printable ASCII",
            Self::EmptyLine => "empty line",
            Self::MissingValue => "key without a value",
            Self::EmptyKey => "line starts with a space (no key)",
            Self::BadKey => "key has a character other than [A-Za-z0-9_]",
            Self::BadValue => "value has a space or control character",
            Self::DuplicateKey => "key appears twice",
            Self::Truncated => "last line has no newline (file cut short)",
        }
    }
}

/// A syntax error in a properties file: what, and on which line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based line number.
    pub line: u32,
    /// What is wrong.
    pub kind: SyntaxErrorKind,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.kind.as_str())
    }
}

impl std::error::Error for SyntaxError {}

impl Properties {
    /// Parses the bytes of a properties file.
    ///
    /// An empty file gives no entries (whether that is acceptable is up to
    /// the caller, which knows which keys it needs).
    pub fn parse(bytes: &[u8]) -> Result<Self, SyntaxError> {
        if bytes.len() > MAX_FILE_SIZE {
            return Err(SyntaxError {
                line: 1,
                kind: SyntaxErrorKind::TooLarge,
            });
        }
        let mut entries: Vec<Property> = Vec::new();
        let mut line_no: u32 = 0;
        let mut rest = bytes;
        while !rest.is_empty() {
            line_no = line_no.saturating_add(1);
            let err = |kind| SyntaxError {
                line: line_no,
                kind,
            };
            let (line, after) = match rest.iter().position(|&b| b == b'\n') {
                Some(nl) => (
                    rest.get(..nl).unwrap_or(&[]),
                    rest.get(nl + 1..).unwrap_or(&[]),
                ),
                None => {
                    // Check the partial line's bytes first so the error names
                    // the worst problem, then report the cut.
                    check_line_bytes(rest).map_err(err)?;
                    return Err(err(SyntaxErrorKind::Truncated));
                }
            };
            rest = after;
            check_line_bytes(line).map_err(err)?;
            if line.is_empty() {
                return Err(err(SyntaxErrorKind::EmptyLine));
            }
            let Some(space) = line.iter().position(|&b| b == b' ') else {
                return Err(err(SyntaxErrorKind::MissingValue));
            };
            let key = line.get(..space).unwrap_or(&[]);
            let value = line.get(space + 1..).unwrap_or(&[]);
            if key.is_empty() {
                return Err(err(SyntaxErrorKind::EmptyKey));
            }
            if !key.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_') {
                return Err(err(SyntaxErrorKind::BadKey));
            }
            if value.is_empty() {
                return Err(err(SyntaxErrorKind::MissingValue));
            }
            if !value.iter().all(u8::is_ascii_graphic) {
                return Err(err(SyntaxErrorKind::BadValue));
            }
            // Both halves are checked ASCII, so the conversions cannot fail;
            // map a failure to the same error rather than unwrap.
            let key = core::str::from_utf8(key).map_err(|_| err(SyntaxErrorKind::NotAscii))?;
            let value = core::str::from_utf8(value).map_err(|_| err(SyntaxErrorKind::NotAscii))?;
            if entries.iter().any(|p| p.key == key) {
                return Err(err(SyntaxErrorKind::DuplicateKey));
            }
            entries.push(Property {
                key: key.to_owned(),
                value: value.to_owned(),
                line: line_no,
            });
        }
        Ok(Self { entries })
    }

    /// The entry for `key`, if the file has it.
    pub fn get(&self, key: &str) -> Option<&Property> {
        self.entries.iter().find(|p| p.key == key)
    }

    /// All entries in file order.
    pub fn iter(&self) -> core::slice::Iter<'_, Property> {
        self.entries.iter()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the file had no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl<'a> IntoIterator for &'a Properties {
    type Item = &'a Property;
    type IntoIter = core::slice::Iter<'a, Property>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter()
    }
}

/// Every byte of a line (newline excluded) must be printable ASCII or space.
fn check_line_bytes(line: &[u8]) -> Result<(), SyntaxErrorKind> {
    for &b in line {
        if !b.is_ascii() {
            return Err(SyntaxErrorKind::NotAscii);
        }
        if b != b' ' && !b.is_ascii_graphic() {
            return Err(SyntaxErrorKind::BadValue);
        }
    }
    Ok(())
}

/// Parses the bytes of a one-value file (`generation_id`, `gpu_id`): one
/// unsigned decimal and a newline, as `sysfs_show_32bit_val` prints it.
pub fn parse_u32_file(bytes: &[u8]) -> Result<u32, ValueFileError> {
    let text = one_line(bytes)?;
    parse_decimal(text)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or(ValueFileError::NotU32)
}

/// Parses the bytes of a node's `name` file: one line, the kernel's
/// `KFD_TOPOLOGY_PUBLIC_NAME_SIZE` (32 bytes with the NUL) bounds it to 31
/// printable ASCII characters. CPU nodes have an empty name.
pub fn parse_name_file(bytes: &[u8]) -> Result<String, ValueFileError> {
    let text = one_line(bytes)?;
    if text.len() > 31 {
        return Err(ValueFileError::NameTooLong);
    }
    if !text.bytes().all(|b| b == b' ' || b.is_ascii_graphic()) {
        return Err(ValueFileError::NotAscii);
    }
    Ok(text.to_owned())
}

/// What is wrong with a one-value file (`generation_id`, `gpu_id`, `name`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValueFileError {
    /// The file is bigger than [`MAX_FILE_SIZE`].
    TooLarge,
    /// No newline at the end: the file was cut short.
    Truncated,
    /// More than one line.
    ExtraLines,
    /// A byte outside printable ASCII.
    NotAscii,
    /// Not an unsigned decimal that fits 32 bits.
    NotU32,
    /// A name longer than the kernel's 31 characters.
    NameTooLong,
}

impl fmt::Display for ValueFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::TooLarge => "file larger than 64 KiB",
            Self::Truncated => "line 1: no newline (file cut short)",
            Self::ExtraLines => "line 2: more than one line",
            Self::NotAscii => "line 1: byte outside printable ASCII",
            Self::NotU32 => "line 1: not an unsigned 32-bit decimal",
            Self::NameTooLong => "line 1: name longer than 31 characters",
        })
    }
}

impl std::error::Error for ValueFileError {}

fn one_line(bytes: &[u8]) -> Result<&str, ValueFileError> {
    if bytes.len() > MAX_FILE_SIZE {
        return Err(ValueFileError::TooLarge);
    }
    let Some((&b'\n', body)) = bytes.split_last() else {
        return Err(ValueFileError::Truncated);
    };
    if body.contains(&b'\n') {
        return Err(ValueFileError::ExtraLines);
    }
    if !body.is_ascii() {
        return Err(ValueFileError::NotAscii);
    }
    core::str::from_utf8(body).map_err(|_| ValueFileError::NotAscii)
}

/// An unsigned decimal without sign or spaces, as `%u` / `%llu` print it.
pub(crate) fn parse_decimal(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut v: u64 = 0;
    for b in text.bytes() {
        v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_kernel_lines_in_order() {
        let p = Properties::parse(b"cpu_cores_count 0\nsimd_count 304\nhive_id 0\n").unwrap();
        let keys: Vec<_> = p
            .iter()
            .map(|e| (e.key.as_str(), e.value.as_str(), e.line))
            .collect();
        assert_eq!(
            keys,
            [
                ("cpu_cores_count", "0", 1),
                ("simd_count", "304", 2),
                ("hive_id", "0", 3)
            ]
        );
    }

    #[test]
    fn each_malformation_names_its_line() {
        let cases: &[(&[u8], u32, SyntaxErrorKind)] = &[
            (b"a 1\nb\n", 2, SyntaxErrorKind::MissingValue),
            (b"a 1\nb \n", 2, SyntaxErrorKind::MissingValue),
            (b"a 1\n\n", 2, SyntaxErrorKind::EmptyLine),
            (b" 1\n", 1, SyntaxErrorKind::EmptyKey),
            (b"a-b 1\n", 1, SyntaxErrorKind::BadKey),
            (b"a 1 2\n", 1, SyntaxErrorKind::BadValue),
            (b"a 1\r\n", 1, SyntaxErrorKind::BadValue),
            (b"a 1\na 2\n", 2, SyntaxErrorKind::DuplicateKey),
            (b"a 1\nb 2", 2, SyntaxErrorKind::Truncated),
            (b"a \xff\n", 1, SyntaxErrorKind::NotAscii),
        ];
        for (bytes, line, kind) in cases {
            assert_eq!(
                Properties::parse(bytes),
                Err(SyntaxError {
                    line: *line,
                    kind: *kind
                }),
                "{bytes:?}"
            );
        }
    }

    #[test]
    fn value_files() {
        assert_eq!(parse_u32_file(b"17\n"), Ok(17));
        assert_eq!(parse_u32_file(b"4294967296\n"), Err(ValueFileError::NotU32));
        assert_eq!(parse_u32_file(b"17"), Err(ValueFileError::Truncated));
        assert_eq!(parse_u32_file(b"1\n2\n"), Err(ValueFileError::ExtraLines));
        assert_eq!(parse_u32_file(b"-1\n"), Err(ValueFileError::NotU32));
        assert_eq!(parse_name_file(b"gfx90a\n").as_deref(), Ok("gfx90a"));
        assert_eq!(parse_name_file(b"\n").as_deref(), Ok(""));
    }
}
