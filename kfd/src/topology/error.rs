//! Errors of the topology reader: which file, and what was wrong in it.

use core::fmt;

use super::properties::{SyntaxError, ValueFileError};

/// A file (or directory) of the KFD topology tree, relative to its root.
///
/// It is `Copy` and renders as the path the kernel uses, e.g.
/// `nodes/2/io_links/0/properties`, so every error can say where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SysfsFile {
    /// The topology root directory itself.
    Root,
    /// `generation_id`.
    GenerationId,
    /// `system_properties`.
    SystemProperties,
    /// The `nodes` directory.
    NodesDir,
    /// `nodes/N` (the directory).
    NodeDir {
        /// Node number.
        node: u32,
    },
    /// `nodes/N/gpu_id`.
    GpuId {
        /// Node number.
        node: u32,
    },
    /// `nodes/N/name`.
    Name {
        /// Node number.
        node: u32,
    },
    /// `nodes/N/properties`.
    NodeProperties {
        /// Node number.
        node: u32,
    },
    /// `nodes/N/mem_banks/I/properties`.
    MemBank {
        /// Node number.
        node: u32,
        /// Bank index.
        index: u32,
    },
    /// `nodes/N/caches/I/properties`.
    Cache {
        /// Node number.
        node: u32,
        /// Cache index.
        index: u32,
    },
    /// `nodes/N/io_links/I/properties`.
    IoLink {
        /// Node number.
        node: u32,
        /// Link index.
        index: u32,
    },
    /// `nodes/N/p2p_links/I/properties`.
    P2pLink {
        /// Node number.
        node: u32,
        /// Link index.
        index: u32,
    },
}

impl fmt::Display for SysfsFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Root => f.write_str("."),
            Self::GenerationId => f.write_str("generation_id"),
            Self::SystemProperties => f.write_str("system_properties"),
            Self::NodesDir => f.write_str("nodes"),
            Self::NodeDir { node } => write!(f, "nodes/{node}"),
            Self::GpuId { node } => write!(f, "nodes/{node}/gpu_id"),
            Self::Name { node } => write!(f, "nodes/{node}/name"),
            Self::NodeProperties { node } => write!(f, "nodes/{node}/properties"),
            Self::MemBank { node, index } => write!(f, "nodes/{node}/mem_banks/{index}/properties"),
            Self::Cache { node, index } => write!(f, "nodes/{node}/caches/{index}/properties"),
            Self::IoLink { node, index } => write!(f, "nodes/{node}/io_links/{index}/properties"),
            Self::P2pLink { node, index } => write!(f, "nodes/{node}/p2p_links/{index}/properties"),
        }
    }
}

/// Why a value of a known key was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValueProblem {
    /// Not an unsigned decimal.
    NotDecimal,
    /// Larger than the 32 bits the kernel prints this key with.
    OutOfRange,
    /// Digits only, but larger than any 64-bit value (`%llu` cannot print it).
    TooLarge,
    /// A number the kernel's uapi header (`linux/kfd_sysfs.h`) does not define
    /// for this key (e.g. a `heap_type` above 5).
    Undefined,
    /// A `sibling_map` entry other than `0` or `1`.
    BadSiblingMap,
}

impl ValueProblem {
    fn as_str(self) -> &'static str {
        match self {
            Self::NotDecimal => "is not an unsigned decimal",
            Self::OutOfRange => "does not fit in 32 bits",
            Self::TooLarge => "does not fit in 64 bits",
            Self::Undefined => "is not a value linux/kfd_sysfs.h defines",
            Self::BadSiblingMap => "is not a comma-separated list of 0 and 1",
        }
    }
}

/// What went wrong, without the file (see [`TopologyError`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TopologyErrorKind {
    /// Reading failed (missing file, permission, ...).
    Io(std::io::ErrorKind),
    /// A properties file is not `key value` lines.
    Syntax(SyntaxError),
    /// A one-value file (`generation_id`, `gpu_id`, `name`) is malformed.
    ValueFile(ValueFileError),
    /// A key every kernel prints in this file is missing.
    MissingKey(&'static str),
    /// A known key has a value that cannot be right.
    BadValue {
        /// 1-based line number.
        line: u32,
        /// The key.
        key: &'static str,
        /// What is wrong with its value.
        problem: ValueProblem,
    },
    /// A directory entry that is not a node number, or node numbers with a
    /// gap: the kernel numbers nodes 0, 1, 2, ... without holes.
    NodeNumbering {
        /// The first node number that is missing.
        missing: u32,
    },
    /// A directory entry under `nodes` that is not a decimal node number.
    UnexpectedEntry,
    /// A node lists more entries than any machine has (a node has at most
    /// [`MAX_ITEMS_PER_NODE`](super::MAX_ITEMS_PER_NODE) banks, caches or links).
    TooMany {
        /// The count key, e.g. `caches_count`.
        key: &'static str,
    },
    /// `generation_id` kept changing while the tree was read: the driver was
    /// adding or removing devices the whole time.
    GenerationUnstable {
        /// How many full reads were tried.
        attempts: u32,
    },
}

/// An error reading the KFD topology: the file it concerns and what was
/// wrong, e.g. `nodes/1/properties: line 4: simd_count is not an unsigned
/// decimal`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopologyError {
    /// The file, relative to the topology root.
    pub file: SysfsFile,
    /// What was wrong.
    pub kind: TopologyErrorKind,
}

impl TopologyError {
    pub(crate) fn new(file: SysfsFile, kind: TopologyErrorKind) -> Self {
        Self { file, kind }
    }

    /// Whether the topology root has no `generation_id`: there is no KFD
    /// topology there at all (no driver loaded, or a wrong directory).
    pub fn is_absent(&self) -> bool {
        matches!(
            (self.file, self.kind),
            (
                SysfsFile::GenerationId | SysfsFile::Root,
                TopologyErrorKind::Io(std::io::ErrorKind::NotFound)
            )
        )
    }
}

impl fmt::Display for TopologyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.file)?;
        match self.kind {
            TopologyErrorKind::Io(kind) => write!(f, "cannot read ({kind})"),
            TopologyErrorKind::Syntax(e) => write!(f, "{e}"),
            TopologyErrorKind::ValueFile(e) => write!(f, "{e}"),
            TopologyErrorKind::MissingKey(key) => write!(f, "missing key `{key}`"),
            TopologyErrorKind::BadValue { line, key, problem } => {
                write!(f, "line {line}: value of `{key}` {}", problem.as_str())
            }
            TopologyErrorKind::NodeNumbering { missing } => {
                write!(
                    f,
                    "node {missing} is missing (nodes are numbered without gaps)"
                )
            }
            TopologyErrorKind::UnexpectedEntry => f.write_str("entry that is not a node number"),
            TopologyErrorKind::TooMany { key } => write!(
                f,
                "`{key}` is larger than {} (no real node has that many)",
                super::MAX_ITEMS_PER_NODE
            ),
            TopologyErrorKind::GenerationUnstable { attempts } => {
                write!(f, "changed during each of {attempts} reads of the tree")
            }
        }
    }
}

impl std::error::Error for TopologyError {}
