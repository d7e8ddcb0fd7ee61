//! The error vocabulary shared by every part of the loader.
//!
//! An [`Error`] is small and `Copy`: a coarse [`ErrorKind`] to match on, a
//! static message that says *what* was wrong, and a [`Location`] that says
//! *where* ("note 3: descriptor runs past the end of the section"). The
//! pattern follows gimli-rs/object's `read_error` helper, which attaches a
//! static message to a failed read instead of formatting (and allocating)
//! one. Parsing never panics: every bad input ends up here.

use core::fmt;

/// The coarse class of an [`Error`], for callers that branch on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ends before a structure it must contain.
    Truncated,
    /// An offset, size or index points outside the input or its table.
    OutOfBounds,
    /// Arithmetic on values read from the input overflowed.
    Overflow,
    /// A value is not one the format allows (bad magic, bad enum tag, ...).
    Malformed,
    /// A well-formed value this implementation does not handle.
    Unsupported,
    /// A count or nesting depth passes a limit that protects the parser.
    LimitExceeded,
    /// A required item (section, symbol, note, key) is missing.
    Missing,
    /// Two parts of the input disagree with each other.
    Inconsistent,
    /// An optional crate feature that this input needs is compiled out.
    FeatureDisabled,
    /// Code object and agent are not compatible.
    Incompatible,
}

impl ErrorKind {
    /// A short lowercase name for messages.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Truncated => "truncated",
            Self::OutOfBounds => "out of bounds",
            Self::Overflow => "overflow",
            Self::Malformed => "malformed",
            Self::Unsupported => "unsupported",
            Self::LimitExceeded => "limit exceeded",
            Self::Missing => "missing",
            Self::Inconsistent => "inconsistent",
            Self::FeatureDisabled => "feature disabled",
            Self::Incompatible => "incompatible",
        }
    }
}

/// Where in the input an [`Error`] was found.
///
/// `Item` names the thing by a static noun and an index ("section 4",
/// "kernel 2", "bundle entry 1"); `Offset` is a byte offset into the input
/// the failing parser was given (the whole file for ELF structures, the note
/// descriptor for MessagePack); `ItemOffset` combines both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Location {
    /// No more precise place than the input as a whole.
    Input,
    /// A byte offset.
    Offset(u64),
    /// A numbered item: noun and zero-based index.
    Item(&'static str, u32),
    /// A byte offset inside a numbered item.
    ItemOffset(&'static str, u32, u64),
    /// A named field (e.g. a MessagePack key such as `.kernarg_segment_size`).
    Field(&'static str),
    /// A named field of a numbered item ("kernel 3 `.name`").
    ItemField(&'static str, u32, &'static str),
    /// A named field and the value found there, when the value is what was
    /// wrong ("e_flags EF_AMDGPU_MACH 0x70": a processor the table lacks).
    Value(&'static str, u64),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Input => f.write_str("input"),
            Self::Offset(o) => write!(f, "offset {o:#x}"),
            Self::Item(noun, i) => write!(f, "{noun} {i}"),
            Self::ItemOffset(noun, i, o) => write!(f, "{noun} {i} at offset {o:#x}"),
            Self::Field(name) => write!(f, "`{name}`"),
            Self::ItemField(noun, i, name) => write!(f, "{noun} {i} `{name}`"),
            Self::Value(name, v) => write!(f, "{name} {v:#x}"),
        }
    }
}

/// A parse, check or load failure: what went wrong, and where.
///
/// `Display` prints `"<where>: <what>"`, e.g.
/// `"note 3: descriptor runs past the end of the note data"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Error {
    kind: ErrorKind,
    what: &'static str,
    at: Location,
}

impl Error {
    /// An error of `kind` with the static message `what`, found at `at`.
    pub const fn new(kind: ErrorKind, what: &'static str, at: Location) -> Self {
        Self { kind, what, at }
    }

    /// The coarse class of the error.
    pub const fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The static message: what was wrong.
    pub const fn what(&self) -> &'static str {
        self.what
    }

    /// Where it was wrong.
    pub const fn location(&self) -> Location {
        self.at
    }

    /// The same error, placed at `at` (used by an outer parser that knows
    /// more precisely where the inner one was working).
    #[must_use]
    pub const fn at(self, at: Location) -> Self {
        Self { at, ..self }
    }

    /// Replaces a vague [`Location::Input`] or [`Location::Offset`] with an
    /// item location, keeping any offset: an outer parser uses this to say
    /// which note, section or kernel the inner error belongs to.
    #[must_use]
    pub const fn within(self, noun: &'static str, index: u32) -> Self {
        let at = match self.at {
            Location::Input => Location::Item(noun, index),
            Location::Offset(o) => Location::ItemOffset(noun, index, o),
            Location::Field(name) => Location::ItemField(noun, index, name),
            other => other,
        };
        Self { at, ..self }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.what)
    }
}

impl core::error::Error for Error {}

/// A `usize` index as the `u32` a [`Location`] holds (saturating: no code
/// object has four billion of anything, and an error must not fail).
pub fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// The result type of every fallible function in this crate.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// Shorthand constructors, one per [`ErrorKind`].
impl Error {
    /// [`ErrorKind::Truncated`] at `at`.
    pub const fn truncated(what: &'static str, at: Location) -> Self {
        Self::new(ErrorKind::Truncated, what, at)
    }
    /// [`ErrorKind::OutOfBounds`] at `at`.
    pub const fn out_of_bounds(what: &'static str, at: Location) -> Self {
        Self::new(ErrorKind::OutOfBounds, what, at)
    }
    /// [`ErrorKind::Overflow`] at `at`.
    pub const fn overflow(what: &'static str, at: Location) -> Self {
        Self::new(ErrorKind::Overflow, what, at)
    }
    /// [`ErrorKind::Malformed`] at `at`.
    pub const fn malformed(what: &'static str, at: Location) -> Self {
        Self::new(ErrorKind::Malformed, what, at)
    }
    /// [`ErrorKind::Unsupported`] at `at`.
    pub const fn unsupported(what: &'static str, at: Location) -> Self {
        Self::new(ErrorKind::Unsupported, what, at)
    }
    /// [`ErrorKind::LimitExceeded`] at `at`.
    pub const fn limit(what: &'static str, at: Location) -> Self {
        Self::new(ErrorKind::LimitExceeded, what, at)
    }
    /// [`ErrorKind::Missing`] at `at`.
    pub const fn missing(what: &'static str, at: Location) -> Self {
        Self::new(ErrorKind::Missing, what, at)
    }
    /// [`ErrorKind::Inconsistent`] at `at`.
    pub const fn inconsistent(what: &'static str, at: Location) -> Self {
        Self::new(ErrorKind::Inconsistent, what, at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_and_copy() {
        // Small enough to return by value everywhere.
        assert!(core::mem::size_of::<Error>() <= 64);
        let e = Error::truncated(
            "descriptor runs past the end of the note data",
            Location::Input,
        )
        .within("note", 3);
        let copy = e;
        assert_eq!(copy, e);
        assert_eq!(e.kind(), ErrorKind::Truncated);
        assert_eq!(e.location(), Location::Item("note", 3));
    }
}
