//! Executables (`hsa.h` "Executable", ROCr `loader/executable.cpp`) over
//! `loader-core`.
//!
//! - A [`CodeObjectReader`] holds the bytes of a code object, read from
//!   memory or a file (`hsa_code_object_reader_create_from_*`).
//! - An [`Executable`] is created with a profile and a default float rounding
//!   mode, receives code objects for agents
//!   ([`load_agent_code_object`](Executable::load_agent_code_object)) and
//!   variables the program defines (`hsa_executable_*_variable_define`),
//!   and is then frozen. A code object is picked for the agent's ISA out of
//!   whatever container holds it (a code object, an offload bundle,
//!   compressed or not, or a HIP host binary's `.hip_fatbin`), loaded into
//!   the agent's memory by `loader-core` (allocate, copy, zero, relocate
//!   against the executable's symbols, check the kernel descriptors), and
//!   its kernels and variables become the executable's symbols.
//! - Symbols are named, kept and iterated as ROCr does: the ELF symbol
//!   name (kernels end in `.kd`), program symbols sorted by name, then agent
//!   symbols sorted by name and agent. [`ExecutableSymbol`] handles are plain
//!   `u64`s that are looked up, never dereferenced: once their executable is
//!   gone they are refused with `HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL`.

#![allow(unsafe_code)]

use std::collections::BTreeMap;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, RawFd};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};

use loader_core::ErrorKind;
use std::borrow::Cow;

use loader_core::bundle::{Container, FatbinBundles, OffloadBundle, hip_fatbin_section};
use loader_core::elf::{ElfFile, SHF_WRITE, STB_GLOBAL};
use loader_core::load::{AgentMemory, LoadError, MemoryError, MemoryOp};
use loader_core::target::TargetId;

use crate::agent::Agent;
use crate::kernarg::{KernargError, KernargLayout};
use crate::memory::PoolKind;
use crate::status::{Error, Result, Status};
use crate::system::{Core, Runtime};

/// Largest decompressed bundle accepted (1 GiB).
const MAX_DECOMPRESSED: usize = 1 << 30;

/// `SHF_AMDGPU_HSA_READONLY` (`amd_hsa_elf.h`): a section of the readonly
/// segment (finalizer code objects; LLVM never sets it).
const SHF_AMDGPU_HSA_READONLY: u64 = 0x0020_0000;
/// `SHF_AMDGPU_HSA_AGENT` (`amd_hsa_elf.h`): agent allocation.
const SHF_AMDGPU_HSA_AGENT: u64 = 0x0080_0000;

macro_rules! c_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $n:expr, $c:literal;)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u32)]
        pub enum $name {
            $($(#[$vm])* $v = $n,)*
        }

        impl $name {
            /// Every value, in header order.
            pub const ALL: &'static [$name] = &[$($name::$v),*];

            /// The value with C value `raw`, if it is one.
            pub fn from_raw(raw: u32) -> Option<Self> {
                match raw {
                    $(v if v == $n => Some($name::$v),)*
                    _ => None,
                }
            }

            /// The C enumerator's name.
            pub const fn c_name(self) -> &'static str {
                match self {
                    $($name::$v => $c,)*
                }
            }
        }
    };
}

c_enum! {
    /// `hsa_profile_t`.
    Profile {
        /// `HSA_PROFILE_BASE`.
        Base = 0, "HSA_PROFILE_BASE";
        /// `HSA_PROFILE_FULL`.
        Full = 1, "HSA_PROFILE_FULL";
    }
}

c_enum! {
    /// `hsa_default_float_rounding_mode_t`.
    DefaultFloatRoundingMode {
        /// `HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT`.
        Default = 0, "HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT";
        /// `HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO`.
        Zero = 1, "HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO";
        /// `HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR`.
        Near = 2, "HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR";
    }
}

c_enum! {
    /// `hsa_executable_state_t`.
    ExecutableState {
        /// `HSA_EXECUTABLE_STATE_UNFROZEN`: code objects may be loaded.
        Unfrozen = 0, "HSA_EXECUTABLE_STATE_UNFROZEN";
        /// `HSA_EXECUTABLE_STATE_FROZEN`: kernels may run, nothing is added.
        Frozen = 1, "HSA_EXECUTABLE_STATE_FROZEN";
    }
}

c_enum! {
    /// `hsa_symbol_kind_t`.
    SymbolKind {
        /// `HSA_SYMBOL_KIND_VARIABLE`.
        Variable = 0, "HSA_SYMBOL_KIND_VARIABLE";
        /// `HSA_SYMBOL_KIND_KERNEL`.
        Kernel = 1, "HSA_SYMBOL_KIND_KERNEL";
        /// `HSA_SYMBOL_KIND_INDIRECT_FUNCTION`.
        IndirectFunction = 2, "HSA_SYMBOL_KIND_INDIRECT_FUNCTION";
    }
}

c_enum! {
    /// `hsa_symbol_linkage_t`.
    SymbolLinkage {
        /// `HSA_SYMBOL_LINKAGE_MODULE`.
        Module = 0, "HSA_SYMBOL_LINKAGE_MODULE";
        /// `HSA_SYMBOL_LINKAGE_PROGRAM`.
        Program = 1, "HSA_SYMBOL_LINKAGE_PROGRAM";
    }
}

c_enum! {
    /// `hsa_variable_allocation_t`.
    VariableAllocation {
        /// `HSA_VARIABLE_ALLOCATION_AGENT`.
        Agent = 0, "HSA_VARIABLE_ALLOCATION_AGENT";
        /// `HSA_VARIABLE_ALLOCATION_PROGRAM`.
        Program = 1, "HSA_VARIABLE_ALLOCATION_PROGRAM";
    }
}

c_enum! {
    /// `hsa_variable_segment_t`.
    VariableSegment {
        /// `HSA_VARIABLE_SEGMENT_GLOBAL`.
        Global = 0, "HSA_VARIABLE_SEGMENT_GLOBAL";
        /// `HSA_VARIABLE_SEGMENT_READONLY`.
        Readonly = 1, "HSA_VARIABLE_SEGMENT_READONLY";
    }
}

c_enum! {
    /// `hsa_executable_info_t`.
    ExecutableInfo {
        /// `HSA_EXECUTABLE_INFO_PROFILE`.
        Profile = 1, "HSA_EXECUTABLE_INFO_PROFILE";
        /// `HSA_EXECUTABLE_INFO_STATE`.
        State = 2, "HSA_EXECUTABLE_INFO_STATE";
        /// `HSA_EXECUTABLE_INFO_DEFAULT_FLOAT_ROUNDING_MODE`.
        DefaultFloatRoundingMode = 3, "HSA_EXECUTABLE_INFO_DEFAULT_FLOAT_ROUNDING_MODE";
    }
}

c_enum! {
    /// `hsa_executable_symbol_info_t` (`hsa.h`), with the two attributes
    /// ROCr adds: `HSA_CODE_SYMBOL_INFO_KERNEL_WAVEFRONT_SIZE` (19, in newer
    /// `hsa.h`) and `HSA_EXT_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT_SIZE` /
    /// `_ALIGN` (100, 101, ROCr `amd_hsa_loader.hpp`).
    SymbolInfo {
        /// `HSA_EXECUTABLE_SYMBOL_INFO_TYPE`: [`SymbolKind`].
        Type = 0, "HSA_EXECUTABLE_SYMBOL_INFO_TYPE";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH`: `uint32_t`.
        NameLength = 1, "HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_NAME`: the name's bytes, no NUL.
        Name = 2, "HSA_EXECUTABLE_SYMBOL_INFO_NAME";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME_LENGTH`: `uint32_t`.
        ModuleNameLength = 3, "HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME_LENGTH";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME`: bytes, no NUL.
        ModuleName = 4, "HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE`: [`SymbolLinkage`].
        Linkage = 5, "HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALLOCATION`.
        VariableAllocation = 6, "HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALLOCATION";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SEGMENT`.
        VariableSegment = 7, "HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SEGMENT";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALIGNMENT`: `uint32_t`.
        VariableAlignment = 8, "HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALIGNMENT";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE`: `uint32_t`.
        VariableSize = 9, "HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST`: `bool`.
        VariableIsConst = 10, "HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE`: `uint32_t`.
        KernelKernargSegmentSize = 11, "HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT`: `uint32_t`.
        KernelKernargSegmentAlignment = 12, "HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE`: `uint32_t`.
        KernelGroupSegmentSize = 13, "HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE`: `uint32_t`.
        KernelPrivateSegmentSize = 14, "HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK`: `bool`.
        KernelDynamicCallstack = 15, "HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_CALL_CONVENTION`.
        IndirectFunctionCallConvention = 16, "HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_CALL_CONVENTION";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION`: `bool`.
        IsDefinition = 17, "HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_CALL_CONVENTION`: `uint32_t`.
        KernelCallConvention = 18, "HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_CALL_CONVENTION";
        /// `HSA_CODE_SYMBOL_INFO_KERNEL_WAVEFRONT_SIZE` (ROCr): `uint32_t`.
        KernelWavefrontSize = 19, "HSA_CODE_SYMBOL_INFO_KERNEL_WAVEFRONT_SIZE";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_AGENT`: `hsa_agent_t`.
        Agent = 20, "HSA_EXECUTABLE_SYMBOL_INFO_AGENT";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS`: `uint64_t`.
        VariableAddress = 21, "HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT`: `uint64_t`.
        KernelObject = 22, "HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT";
        /// `HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_OBJECT`.
        IndirectFunctionObject = 23, "HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_OBJECT";
        /// `HSA_EXT_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT_SIZE` (ROCr): `uint32_t`.
        KernelObjectSize = 100, "HSA_EXT_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT_SIZE";
        /// `HSA_EXT_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT_ALIGN` (ROCr): `uint32_t`.
        KernelObjectAlign = 101, "HSA_EXT_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT_ALIGN";
    }
}

/// The value of one [`SymbolInfo`] attribute, typed as the C API writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SymbolInfoValue {
    /// A `uint32_t`.
    U32(u32),
    /// A `uint64_t` (addresses).
    U64(u64),
    /// A `bool`.
    Bool(bool),
    /// Name bytes (the C API writes them without a terminating NUL).
    Text(String),
    /// `hsa_symbol_kind_t`.
    Kind(SymbolKind),
    /// `hsa_symbol_linkage_t`.
    Linkage(SymbolLinkage),
    /// `hsa_variable_allocation_t`.
    Allocation(VariableAllocation),
    /// `hsa_variable_segment_t`.
    Segment(VariableSegment),
    /// `hsa_agent_t`: `None` (handle 0) for a program symbol.
    Agent(Option<Agent>),
}

/// A code object's bytes (`hsa_code_object_reader_t`). ROCr keeps the
/// caller's pointer (memory) or maps the file; this reader owns a copy,
/// so it has no lifetime to outlive. Destroying it (dropping) does not
/// affect executables loaded from it: an executable keeps the copy a
/// `memory://` URI names while it lives.
#[derive(Debug, Clone)]
pub struct CodeObjectReader {
    bytes: Arc<[u8]>,
    uri: String,
}

impl CodeObjectReader {
    /// `hsa_code_object_reader_create_from_memory`: `bytes` must not be
    /// empty (`HSA_STATUS_ERROR_INVALID_ARGUMENT`). The URI is ROCr's
    /// `memory://<pid>#offset=<address>&size=<size>`.
    pub fn from_memory(bytes: impl Into<Arc<[u8]>>) -> Result<Self> {
        let bytes: Arc<[u8]> = bytes.into();
        if bytes.is_empty() {
            return Err(Error::invalid_argument("an empty code object"));
        }
        let uri = format!(
            "memory://{}#offset={:#x}&size={}",
            std::process::id(),
            bytes.as_ptr() as usize,
            bytes.len()
        );
        Ok(Self { bytes, uri })
    }

    /// `hsa_code_object_reader_create_from_memory` for a C caller's
    /// memory, named as ROCr names it (`CodeObjectReaderImpl::SetMemory`,
    /// [`crate::uri`]): when `bytes` lie in a loaded ELF file (by default)
    /// or in any file mapping (`how` = [`MappedFile`](crate::uri::MemoryUri::MappedFile),
    /// `HSA_LOADER_ENABLE_MMAP_URI=1`), a `file://` URI of that file at
    /// their offset; else `memory://` of the reader's copy, as
    /// [`from_memory`](Self::from_memory).
    pub fn from_memory_in_place(bytes: &[u8], how: crate::uri::MemoryUri) -> Result<Self> {
        let mut r = Self::from_memory(bytes)?;
        if let Some(uri) = crate::uri::file_of_memory(bytes.as_ptr() as usize, bytes.len(), how) {
            r.uri = uri;
        }
        Ok(r)
    }

    /// `hsa_code_object_reader_create_from_file`: the whole file, from
    /// offset 0 whatever the file's current offset (ROCr maps the file
    /// from offset 0); the file's offset is left unchanged. An empty file
    /// is `HSA_STATUS_ERROR_INVALID_CODE_OBJECT`, a descriptor that cannot
    /// be read `HSA_STATUS_ERROR_INVALID_FILE`.
    pub fn from_file(file: &std::fs::File) -> Result<Self> {
        Self::from_fd_range(file.as_fd(), 0, 0)
    }

    /// Opens and reads the file at `path` (see [`from_file`](Self::from_file)).
    pub fn from_path(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let file = std::fs::File::open(path).map_err(|e| {
            Error::new(
                Status::InvalidFile,
                format!("opening {}: {e}", path.display()),
            )
        })?;
        Self::from_file(&file)
    }

    /// `hsa_code_object_reader_create_from_file` on a raw descriptor
    /// (`hsa_file_t`): -1 is `HSA_STATUS_ERROR_INVALID_ARGUMENT` (as ROCr),
    /// a descriptor that is not open `HSA_STATUS_ERROR_INVALID_FILE`.
    ///
    /// # Safety
    ///
    /// `fd` is -1, or a descriptor that nothing closes during the call (the
    /// reader does not keep it).
    pub unsafe fn from_raw_fd(fd: RawFd) -> Result<Self> {
        if fd == -1 {
            return Err(Error::invalid_argument("file descriptor -1"));
        }
        if fd < 0 {
            return Err(Error::new(
                Status::InvalidFile,
                format!("file descriptor {fd}"),
            ));
        }
        // SAFETY: the caller keeps `fd` open for the call; a number that is
        // not an open descriptor only makes the reads fail with EBADF.
        let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
        Self::from_fd_range(borrowed, 0, 0)
    }

    /// `hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size`:
    /// `size` bytes from `offset` (`size` 0: to the end of the file).
    pub fn from_fd_range(fd: BorrowedFd<'_>, offset: u64, size: u64) -> Result<Self> {
        let bad_file = |what: &str, e: io::Error| {
            Error::new(Status::InvalidFile, format!("file descriptor {what}: {e}"))
        };
        let file = std::fs::File::from(fd.try_clone_to_owned().map_err(|e| bad_file("dup", e))?);
        let meta = file.metadata().map_err(|e| bad_file("fstat", e))?;
        if !meta.is_file() {
            // ROCr's lseek and mmap fail on pipes, sockets and directories.
            return Err(Error::new(
                Status::InvalidFile,
                "the file descriptor is not a regular file",
            ));
        }
        let file_size = meta.len();
        if file_size <= offset {
            return Err(Error::new(
                Status::InvalidCodeObject,
                format!("the file has {file_size} bytes, nothing at offset {offset}"),
            ));
        }
        let size = if size == 0 { file_size - offset } else { size };
        let end = offset.checked_add(size).filter(|&e| e <= file_size).ok_or_else(|| {
            Error::new(
                Status::InvalidCodeObject,
                format!("{size} bytes at offset {offset} run past the end of the {file_size}-byte file"),
            )
        })?;
        let len = usize::try_from(size).map_err(|_| {
            Error::new(
                Status::OutOfResources,
                format!("{size} bytes do not fit in memory"),
            )
        })?;
        let mut bytes = vec![0u8; len];
        file.read_exact_at(&mut bytes, offset)
            .map_err(|e| bad_file("read", e))?;
        let path = std::fs::read_link(format!(
            "/proc/self/fd/{}",
            std::os::fd::AsRawFd::as_raw_fd(&fd)
        ))
        .ok();
        let uri = match path {
            Some(p) => crate::uri::file_uri(
                std::os::unix::ffi::OsStrExt::as_bytes(p.as_os_str()),
                offset,
                size,
                offset == 0 && end == file_size,
            ),
            None => format!(
                "memory://{}#offset={:#x}&size={}",
                std::process::id(),
                bytes.as_ptr() as usize,
                size
            ),
        };
        Ok(Self {
            bytes: bytes.into(),
            uri,
        })
    }

    /// The code object's bytes (any container: code object, bundle, HIP
    /// host binary).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The URI the loaded code objects report (AMDGPUUsage "Loaded Code
    /// Object Path Uniform Resource Identifier").
    pub fn uri(&self) -> &str {
        &self.uri
    }
}

/// A kernel symbol of an executable (`HSA_EXECUTABLE_SYMBOL_INFO_*`).
#[derive(Debug, Clone)]
pub struct KernelSymbol {
    /// The kernel's name (without `.kd`).
    pub name: String,
    /// The agent it was loaded for.
    pub agent: Agent,
    /// `KERNEL_OBJECT`: the kernel descriptor's address.
    pub kernel_object: u64,
    /// `KERNEL_KERNARG_SEGMENT_SIZE`.
    pub kernarg_segment_size: u32,
    /// `KERNEL_KERNARG_SEGMENT_ALIGNMENT`.
    pub kernarg_segment_alignment: u32,
    /// `KERNEL_GROUP_SEGMENT_SIZE`.
    pub group_segment_size: u32,
    /// `KERNEL_PRIVATE_SEGMENT_SIZE`.
    pub private_segment_size: u32,
    /// `KERNEL_DYNAMIC_CALLSTACK`.
    pub dynamic_callstack: bool,
    /// Wavefront size.
    pub wavefront_size: u8,
    /// The kernarg layout read from the metadata at load time (explicit
    /// and hidden arguments, checked), or why it could not be read: a
    /// dispatch of the kernel then fails with that error. A kernel without
    /// metadata has no arguments.
    pub layout: core::result::Result<KernargLayout, KernargError>,
}

/// A variable symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariableSymbol {
    /// Name.
    pub name: String,
    /// Address in agent memory (or the address the program defined).
    pub address: u64,
    /// Size in bytes (`st_size`; 0 for a variable the program defined).
    pub size: u64,
    /// `VARIABLE_ALLOCATION`.
    pub allocation: VariableAllocation,
    /// `VARIABLE_SEGMENT`.
    pub segment: VariableSegment,
    /// `VARIABLE_ALIGNMENT`: the `sh_addralign` of its section, as ROCr
    /// reports it (0 for a variable the program defined).
    pub alignment: u32,
    /// `VARIABLE_IS_CONST`: its section is not writable.
    pub is_const: bool,
}

/// What kind of symbol, with its kind's attributes.
#[derive(Debug, Clone)]
pub enum SymbolDetail {
    /// A kernel (`HSA_SYMBOL_KIND_KERNEL`).
    Kernel(Arc<KernelSymbol>),
    /// A variable (`HSA_SYMBOL_KIND_VARIABLE`).
    Variable(VariableSymbol),
}

/// One symbol of an executable: everything `hsa_executable_symbol_get_info`
/// answers.
#[derive(Debug, Clone)]
pub struct SymbolRecord {
    /// `NAME`: the ELF symbol's name after the last `:` (kernels: `k.kd`).
    pub name: String,
    /// `MODULE_NAME`: the part before the first `:`, usually empty.
    pub module_name: String,
    /// The name the symbol is looked up by (`get_symbol_by_name`).
    pub full_name: String,
    /// `AGENT`: `None` for a program symbol.
    pub agent: Option<Agent>,
    /// `LINKAGE`: `STB_GLOBAL` symbols have program linkage, others
    /// (weak) module linkage, as ROCr decides.
    pub linkage: SymbolLinkage,
    /// `IS_DEFINITION`.
    pub is_definition: bool,
    /// The kind and its attributes.
    pub detail: SymbolDetail,
}

impl SymbolRecord {
    /// `TYPE`.
    pub fn kind(&self) -> SymbolKind {
        match self.detail {
            SymbolDetail::Kernel(_) => SymbolKind::Kernel,
            SymbolDetail::Variable(_) => SymbolKind::Variable,
        }
    }

    /// The kernel object or the variable's address.
    pub fn address(&self) -> u64 {
        match &self.detail {
            SymbolDetail::Kernel(k) => k.kernel_object,
            SymbolDetail::Variable(v) => v.address,
        }
    }

    /// The value of `attr`, as ROCr's `Symbol::GetInfo` answers it:
    /// `KERNEL_OBJECT` and `VARIABLE_ADDRESS` both give the symbol's
    /// address whatever its kind, `KERNEL_CALL_CONVENTION` is 0 for every
    /// symbol; a kernel attribute of a variable, a variable attribute of
    /// a kernel, and the indirect-function attributes (there are no such
    /// symbols) are `HSA_STATUS_ERROR_INVALID_ARGUMENT`.
    pub fn info(&self, attr: SymbolInfo) -> Result<SymbolInfoValue> {
        use SymbolInfoValue as V;
        let u32_of = |what: &str, v: u64| {
            u32::try_from(v).map_err(|_| {
                Error::invalid_argument(format!(
                    "{}: {what} {v} does not fit in uint32_t",
                    self.full_name
                ))
            })
        };
        let not_for = || {
            Error::invalid_argument(format!(
                "{} does not apply to {} symbol {}",
                attr.c_name(),
                match self.kind() {
                    SymbolKind::Kernel => "kernel",
                    _ => "variable",
                },
                self.full_name
            ))
        };
        let len = |s: &str| u32_of("name length", s.len() as u64);
        Ok(match (attr, &self.detail) {
            (SymbolInfo::Type, _) => V::Kind(self.kind()),
            (SymbolInfo::NameLength, _) => V::U32(len(&self.name)?),
            (SymbolInfo::Name, _) => V::Text(self.name.clone()),
            (SymbolInfo::ModuleNameLength, _) => V::U32(len(&self.module_name)?),
            (SymbolInfo::ModuleName, _) => V::Text(self.module_name.clone()),
            (SymbolInfo::Linkage, _) => V::Linkage(self.linkage),
            (SymbolInfo::IsDefinition, _) => V::Bool(self.is_definition),
            (SymbolInfo::KernelCallConvention, _) => V::U32(0),
            (SymbolInfo::Agent, _) => V::Agent(self.agent),
            (SymbolInfo::KernelObject | SymbolInfo::VariableAddress, _) => V::U64(self.address()),
            (SymbolInfo::VariableAllocation, SymbolDetail::Variable(v)) => {
                V::Allocation(v.allocation)
            }
            (SymbolInfo::VariableSegment, SymbolDetail::Variable(v)) => V::Segment(v.segment),
            (SymbolInfo::VariableAlignment, SymbolDetail::Variable(v)) => V::U32(v.alignment),
            (SymbolInfo::VariableSize, SymbolDetail::Variable(v)) => {
                V::U32(u32_of("size", v.size)?)
            }
            (SymbolInfo::VariableIsConst, SymbolDetail::Variable(v)) => V::Bool(v.is_const),
            (SymbolInfo::KernelKernargSegmentSize, SymbolDetail::Kernel(k)) => {
                V::U32(k.kernarg_segment_size)
            }
            (SymbolInfo::KernelKernargSegmentAlignment, SymbolDetail::Kernel(k)) => {
                V::U32(k.kernarg_segment_alignment)
            }
            (SymbolInfo::KernelGroupSegmentSize, SymbolDetail::Kernel(k)) => {
                V::U32(k.group_segment_size)
            }
            (SymbolInfo::KernelPrivateSegmentSize, SymbolDetail::Kernel(k)) => {
                V::U32(k.private_segment_size)
            }
            (SymbolInfo::KernelDynamicCallstack, SymbolDetail::Kernel(k)) => {
                V::Bool(k.dynamic_callstack)
            }
            (SymbolInfo::KernelWavefrontSize, SymbolDetail::Kernel(k)) => {
                V::U32(u32::from(k.wavefront_size))
            }
            (SymbolInfo::KernelObjectSize, SymbolDetail::Kernel(_)) => {
                V::U32(loader_core::kernel_descriptor::raw::KERNEL_DESCRIPTOR_SIZE as u32)
            }
            (SymbolInfo::KernelObjectAlign, SymbolDetail::Kernel(_)) => {
                V::U32(loader_core::kernel_descriptor::raw::KERNEL_DESCRIPTOR_ALIGN as u32)
            }
            _ => return Err(not_for()),
        })
    }
}

/// An executable symbol handle (`hsa_executable_symbol_t`): the
/// executable's id in the upper 32 bits, the symbol's index plus one in
/// the lower.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExecutableSymbol(u64);

impl ExecutableSymbol {
    /// The `hsa_executable_symbol_t.handle` value.
    pub fn handle(self) -> u64 {
        self.0
    }

    /// The symbol of a handle value (checked when used).
    pub fn from_handle(handle: u64) -> Self {
        Self(handle)
    }

    fn executable_id(self) -> u32 {
        (self.0 >> 32) as u32
    }

    fn index(self) -> Option<usize> {
        (self.0 as u32).checked_sub(1).map(|i| i as usize)
    }
}

/// A code object loaded into an executable (ROCr's
/// `hsa_ven_amd_loader_loaded_code_object_get_info`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedCodeObject {
    /// The agent it was loaded for.
    pub agent: Agent,
    /// The target ID of the code object (from its `e_flags`).
    pub isa: String,
    /// `LOAD_BASE`: agent address of the image.
    pub load_base: u64,
    /// `LOAD_SIZE`: bytes of the image.
    pub load_size: u64,
    /// `LOAD_DELTA`: added to an ELF virtual address to get an agent address.
    pub load_delta: i64,
    /// `URI`: the reader's URI.
    pub uri: String,
}

/// Picks the code object for `target` out of `bytes` (see the module
/// documentation); the result owns its bytes.
pub fn code_object_for(bytes: &[u8], target: &TargetId) -> Result<Vec<u8>> {
    pick_code_object(bytes, target).map(|p| match p {
        Picked::In(r) => bytes[r].to_vec(),
        Picked::Decompressed(v) => v,
    })
}

/// Where the code object [`pick_code_object`] chose is.
enum Picked {
    /// These bytes of the container (all of them for a plain code object).
    In(std::ops::Range<usize>),
    /// Out of a compressed bundle: in no byte range of the container.
    Decompressed(Vec<u8>),
}

/// The range of `part`, a subslice of `whole`.
fn range_in(whole: &[u8], part: &[u8]) -> std::ops::Range<usize> {
    let start = (part.as_ptr() as usize).wrapping_sub(whole.as_ptr() as usize);
    start..start + part.len()
}

/// A loaded code object's URI when it is `range` of what `uri` names (a
/// bundle's entry): the fragment's offset moves by its start and the size
/// becomes its length; all of it keeps `uri`.
fn part_uri(uri: &str, whole: usize, range: &std::ops::Range<usize>) -> String {
    if range.start == 0 && range.len() == whole {
        return uri.to_string();
    }
    let (base, frag) = uri.split_once('#').unwrap_or((uri, ""));
    let offset = frag
        .split('&')
        .find_map(|kv| kv.strip_prefix("offset="))
        .and_then(|o| match o.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16).ok(),
            None => o.parse().ok(),
        })
        .unwrap_or(0);
    let start = offset + range.start as u64;
    if base.starts_with("memory://") {
        format!("{base}#offset={start:#x}&size={}", range.len())
    } else {
        format!("{base}#offset={start}&size={}", range.len())
    }
}

/// [`code_object_for`], saying where the code object is.
fn pick_code_object(bytes: &[u8], target: &TargetId) -> Result<Picked> {
    let bad = |m: String| Error::new(Status::InvalidCodeObject, m);
    let found = |c: Found<'_>| match c {
        Found::In(part) => Picked::In(range_in(bytes, part)),
        Found::Decompressed(v) => Picked::Decompressed(v),
    };
    match Container::parse(bytes).map_err(|e| bad(e.to_string()))? {
        Container::Elf(data) => {
            let machine = data.get(18..20).map(|m| u16::from_le_bytes([m[0], m[1]]));
            if machine == Some(224) {
                return Ok(Picked::In(range_in(bytes, data)));
            }
            let section = hip_fatbin_section(data)
                .map_err(|e| bad(format!("host ELF: {e}")))?
                .ok_or_else(|| bad("an ELF file that is neither an AMDGPU code object nor a host binary with .hip_fatbin".into()))?;
            let mut seen = Vec::new();
            for item in FatbinBundles::new(section) {
                let (_, container) = item.map_err(|e| bad(format!(".hip_fatbin: {e}")))?;
                match from_container(container, target, &mut seen)? {
                    Some(co) => return Ok(found(co)),
                    None => continue,
                }
            }
            Err(no_match(target, &seen))
        }
        c => {
            let mut seen = Vec::new();
            from_container(c, target, &mut seen)?
                .map(found)
                .ok_or_else(|| no_match(target, &seen))
        }
    }
}

/// A bundle's entry: borrowed from the container, or decompressed.
enum Found<'a> {
    In(&'a [u8]),
    Decompressed(Vec<u8>),
}

fn no_match(target: &TargetId, seen: &[String]) -> Error {
    Error::new(
        Status::IncompatibleArguments,
        format!(
            "no code object for {target} (the file has: {})",
            if seen.is_empty() {
                "none".to_string()
            } else {
                seen.join(", ")
            }
        ),
    )
}

fn from_container<'a>(
    c: Container<'a>,
    target: &TargetId,
    seen: &mut Vec<String>,
) -> Result<Option<Found<'a>>> {
    let bad = |m: String| Error::new(Status::InvalidCodeObject, m);
    match c {
        Container::Bundle(b) => Ok(from_bundle(&b, target, seen)?.map(Found::In)),
        Container::Compressed(cb) => {
            let data = cb
                .decompress(MAX_DECOMPRESSED)
                .map_err(|e| bad(format!("compressed bundle: {e}")))?;
            let b = OffloadBundle::parse(&data)
                .map_err(|e| bad(format!("decompressed bundle: {e}")))?;
            Ok(from_bundle(&b, target, seen)?.map(|co| Found::Decompressed(co.to_vec())))
        }
        Container::Elf(_) => Err(bad("an ELF file where a bundle was expected".into())),
    }
}

fn from_bundle<'a>(
    b: &OffloadBundle<'a>,
    target: &TargetId,
    seen: &mut Vec<String>,
) -> Result<Option<&'a [u8]>> {
    for entry in b.entries() {
        let Ok(entry) = entry else { continue };
        if !entry.parsed_id().is_amdhsa() || entry.data.is_empty() {
            continue;
        }
        seen.push(entry.id.to_string());
        let Ok(elf) = loader_core::elf::ElfFile::parse(entry.data) else {
            continue;
        };
        let Ok(flags) = elf.flags() else { continue };
        let Ok(tid) = TargetId::from_flags(&flags) else {
            continue;
        };
        if tid.is_compatible(flags.generic_version, target) {
            return Ok(Some(entry.data));
        }
    }
    Ok(None)
}

/// Agent memory for the loader: allocations in the agent's VRAM, written
/// through their CPU mapping.
struct LoaderMemory<'c> {
    core: &'c Core,
    gpu_id: u32,
    blocks: Vec<(u64, u64)>,
}

impl LoaderMemory<'_> {
    fn find(&self, address: u64, len: u64, op: MemoryOp) -> Result<(), MemoryError> {
        let ok = self.blocks.iter().any(|&(va, size)| {
            address >= va && address.checked_add(len).is_some_and(|e| e <= va + size)
        });
        if ok {
            Ok(())
        } else {
            Err(MemoryError { op, address, len })
        }
    }
}

impl AgentMemory for LoaderMemory<'_> {
    fn allocate(&mut self, size: u64, align: u64) -> Result<u64, MemoryError> {
        let err = MemoryError {
            op: MemoryOp::Allocate,
            address: 0,
            len: size,
        };
        let va = self
            .core
            .allocations
            .allocate(
                &*self.core.driver,
                None,
                PoolKind::Vram,
                Some(self.gpu_id),
                &[],
                size.max(1),
                align,
            )
            .map_err(|_| err)?;
        if self
            .core
            .allocations
            .find(va)
            .is_none_or(|b| !b.host_accessible)
        {
            let _ = self.core.free(va);
            return Err(err);
        }
        self.blocks.push((va, size.max(1).next_multiple_of(4096)));
        Ok(va)
    }

    fn write(&mut self, address: u64, bytes: &[u8]) -> Result<(), MemoryError> {
        self.find(address, bytes.len() as u64, MemoryOp::Write)?;
        // SAFETY: inside one of our CPU-mapped allocations (checked); no
        // kernel runs from it before the load returns.
        unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), address as *mut u8, bytes.len()) };
        Ok(())
    }

    fn zero(&mut self, address: u64, len: u64) -> Result<(), MemoryError> {
        self.find(address, len, MemoryOp::Zero)?;
        // SAFETY: as for `write`.
        unsafe { core::ptr::write_bytes(address as *mut u8, 0, len as usize) };
        Ok(())
    }

    fn read(&mut self, address: u64, out: &mut [u8]) -> Result<(), MemoryError> {
        self.find(address, out.len() as u64, MemoryOp::Read)?;
        // SAFETY: as for `write`.
        unsafe {
            core::ptr::copy_nonoverlapping(address as *const u8, out.as_mut_ptr(), out.len())
        };
        Ok(())
    }
}

/// Every executable alive, by id: symbol handles are looked up here, so a
/// handle of a destroyed executable finds nothing.
static EXECUTABLES: Mutex<BTreeMap<u32, Weak<Shared>>> = Mutex::new(BTreeMap::new());
static NEXT_ID: AtomicU32 = AtomicU32::new(1);

/// The tag in the upper half of an executable handle.
const EXECUTABLE_TAG: u64 = 0x4558_4543 << 32;

fn registry() -> std::sync::MutexGuard<'static, BTreeMap<u32, Weak<Shared>>> {
    EXECUTABLES.lock().unwrap_or_else(|p| p.into_inner())
}

fn invalid_symbol(sym: ExecutableSymbol, why: &str) -> Error {
    Error::new(
        Status::InvalidExecutableSymbol,
        format!("executable symbol {:#x}: {why}", sym.handle()),
    )
}

#[derive(Default)]
struct State {
    frozen: bool,
    symbols: Vec<Arc<SymbolRecord>>,
    /// Program symbols by name.
    program: BTreeMap<String, usize>,
    /// Agent symbols by name and agent.
    agent: BTreeMap<(String, Agent), usize>,
    loaded: Vec<LoadedCodeObject>,
    /// Agent memory of the loaded code objects.
    memory: Vec<u64>,
    /// The bytes of the code objects loaded from memory, which their
    /// `memory://` URIs name: kept while the executable lives, so that a
    /// debugger reading them (`_amdgpu_r_debug`, [`crate::rdebug`]) finds
    /// the code object there after its reader is gone.
    sources: Vec<Arc<[u8]>>,
}

impl State {
    fn add(&mut self, record: SymbolRecord) {
        let i = self.symbols.len();
        match record.agent {
            Some(a) => self.agent.insert((record.full_name.clone(), a), i),
            None => self.program.insert(record.full_name.clone(), i),
        };
        self.symbols.push(Arc::new(record));
    }

    fn frozen_error(&self, what: &str) -> Result<()> {
        if self.frozen {
            Err(Error::new(
                Status::FrozenExecutable,
                format!("{what}: the executable is frozen"),
            ))
        } else {
            Ok(())
        }
    }
}

struct Shared {
    id: u32,
    core: Arc<Core>,
    profile: Profile,
    rounding: DefaultFloatRoundingMode,
    state: RwLock<State>,
}

impl Shared {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|p| p.into_inner())
    }

    fn record(&self, sym: ExecutableSymbol) -> Result<Arc<SymbolRecord>> {
        if sym.executable_id() != self.id {
            return Err(invalid_symbol(sym, "not a symbol of this executable"));
        }
        sym.index()
            .and_then(|i| self.read().symbols.get(i).cloned())
            .ok_or_else(|| invalid_symbol(sym, "no such symbol"))
    }

    fn handle_of(&self, index: usize) -> ExecutableSymbol {
        ExecutableSymbol((u64::from(self.id) << 32) | (index as u64 + 1))
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|p| p.into_inner());
        for &va in &state.memory {
            let _ = self.core.free(va);
        }
    }
}

/// An executable (`hsa_executable_t`). Dropping it is
/// `hsa_executable_destroy`: its code objects' memory is freed and its
/// symbol handles become invalid.
pub struct Executable {
    shared: Arc<Shared>,
}

impl core::fmt::Debug for Executable {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let s = self.shared.read();
        f.debug_struct("Executable")
            .field("id", &self.shared.id)
            .field("profile", &self.shared.profile)
            .field("symbols", &s.symbols.len())
            .field("code_objects", &s.loaded.len())
            .field("frozen", &s.frozen)
            .finish_non_exhaustive()
    }
}

impl Drop for Executable {
    fn drop(&mut self) {
        registry().remove(&self.shared.id);
        // ROCr's DestroyExecutable: its code objects leave the debugger's
        // list.
        crate::rdebug::remove(self.shared.id);
    }
}

/// Accepts what ROCr's loader options parser accepts (`-help`, the
/// `-dump-*` options, `-substitute=`), all without effect here.
fn check_options(options: Option<&str>) -> Result<()> {
    for opt in options.unwrap_or("").split_whitespace() {
        let name = opt.split_once('=').map_or(opt, |(n, _)| n);
        let known = matches!(
            name,
            "-help" | "-dump-code" | "-dump-isa" | "-dump-exec" | "-dump-all"
        ) && !opt.contains('=')
            || matches!(name, "-dump-dir" | "-substitute") && opt.contains('=');
        if !known {
            return Err(Error::new(
                Status::Error,
                format!("unknown loader option {opt:?}"),
            ));
        }
    }
    Ok(())
}

/// ROCr's split of a symbol name into module and name (`module::name`).
fn split_name(full: &str) -> (String, String) {
    match (full.find(':'), full.rfind(':')) {
        (Some(first), Some(last)) => (full[..first].to_string(), full[last + 1..].to_string()),
        _ => (String::new(), full.to_string()),
    }
}

fn load_error(e: LoadError<'_>) -> Error {
    let status = match e {
        LoadError::Memory(_) => Status::OutOfResources,
        LoadError::UnresolvedSymbol { .. } => Status::VariableUndefined,
        LoadError::Object(o) if o.kind() == ErrorKind::Incompatible => {
            Status::IncompatibleArguments
        }
        _ => Status::InvalidCodeObject,
    };
    Error::new(status, format!("loading the code object: {e}"))
}

/// Checks that the code object `co` names a processor this runtime knows
/// (else `HSA_STATUS_ERROR_INVALID_ISA_NAME`, as ROCr) and can run on
/// `target` (else `HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS`, as ROCr).
fn check_isa(co: &[u8], target: &TargetId, agent: Agent) -> Result<TargetId> {
    let bad =
        |e: loader_core::Error| Error::new(Status::InvalidCodeObject, format!("code object: {e}"));
    let elf = ElfFile::parse(co).map_err(bad)?;
    let flags = elf.flags().map_err(|e| {
        if e.kind() == ErrorKind::Unsupported || e.kind() == ErrorKind::Missing {
            Error::new(
                Status::InvalidIsaName,
                format!("the code object's ISA is not one this runtime knows: {e}"),
            )
        } else {
            bad(e)
        }
    })?;
    let tid = TargetId::from_flags(&flags).map_err(|e| {
        Error::new(
            Status::InvalidIsaName,
            format!("the code object's ISA is not one this runtime knows: {e}"),
        )
    })?;
    tid.check_compatible(flags.generic_version, target)
        .map_err(|e| {
            Error::new(
                Status::IncompatibleArguments,
                format!(
                    "a code object for {tid} cannot run on agent {} ({target}): {}",
                    agent.index(),
                    e.what()
                ),
            )
        })?;
    Ok(tid)
}

/// What one load produced, before it joins the executable.
struct Loaded {
    symbols: Vec<SymbolRecord>,
    object: LoadedCodeObject,
}

impl Executable {
    fn new(core: &Arc<Core>, profile: Profile, rounding: DefaultFloatRoundingMode) -> Self {
        let mut reg = registry();
        let mut id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        // Skip 0 and ids still in use after the counter wraps.
        while id == 0 || reg.contains_key(&id) {
            id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        }
        let shared = Arc::new(Shared {
            id,
            core: Arc::clone(core),
            profile,
            rounding,
            state: RwLock::new(State::default()),
        });
        reg.insert(id, Arc::downgrade(&shared));
        Self { shared }
    }

    /// The `hsa_executable_t.handle` value.
    pub fn handle(&self) -> u64 {
        EXECUTABLE_TAG | u64::from(self.shared.id)
    }

    /// `HSA_EXECUTABLE_INFO_PROFILE`.
    pub fn profile(&self) -> Profile {
        self.shared.profile
    }

    /// `HSA_EXECUTABLE_INFO_DEFAULT_FLOAT_ROUNDING_MODE`.
    pub fn default_float_rounding_mode(&self) -> DefaultFloatRoundingMode {
        self.shared.rounding
    }

    /// `HSA_EXECUTABLE_INFO_STATE`.
    pub fn state(&self) -> ExecutableState {
        if self.shared.read().frozen {
            ExecutableState::Frozen
        } else {
            ExecutableState::Unfrozen
        }
    }

    /// `hsa_executable_get_info`, as the C value of the answer (every
    /// attribute is an enum).
    pub fn info(&self, attr: ExecutableInfo) -> u32 {
        match attr {
            ExecutableInfo::Profile => self.profile() as u32,
            ExecutableInfo::State => self.state() as u32,
            ExecutableInfo::DefaultFloatRoundingMode => self.default_float_rounding_mode() as u32,
        }
    }

    /// `hsa_executable_load_agent_code_object`: loads the code object that
    /// `reader` holds (a code object, or the entry for `agent`'s ISA of a
    /// bundle or HIP fat binary) for `agent`. Its undefined symbols are
    /// resolved against the executable's symbols for `agent`, then its
    /// program symbols. Errors (nothing is added to the executable, and
    /// its memory is freed):
    /// - `FROZEN_EXECUTABLE` after [`freeze`](Self::freeze);
    /// - `INVALID_AGENT` for an agent that is not the runtime's;
    /// - `INCOMPATIBLE_ARGUMENTS` when the code object cannot run on the
    ///   agent's ISA (ROCr's status), or a container has no entry for it,
    ///   or the agent has no ISA (a CPU);
    /// - `INVALID_ISA_NAME` for a processor this runtime does not know;
    /// - `INVALID_CODE_OBJECT` for a malformed one, with loader-core's
    ///   message;
    /// - `VARIABLE_UNDEFINED` when an external symbol is not defined;
    /// - `VARIABLE_ALREADY_DEFINED` when a symbol exists for the agent;
    /// - `ERROR` for an option ROCr's loader does not know.
    pub fn load_agent_code_object(
        &self,
        reader: &CodeObjectReader,
        agent: Agent,
        options: Option<&str>,
    ) -> Result<LoadedCodeObject> {
        crate::trace::api_call!(
            "hsa_executable_load_agent_code_object",
            agent = agent.handle(),
            {
                let core = &self.shared.core;
                let mut state = self.shared.write();
                // ROCr's order: the state, then the options.
                state.frozen_error("loading a code object")?;
                check_options(options)?;
                let rec = core.agent(agent)?;
                let target = rec.isa.ok_or_else(|| {
                    Error::new(
                        Status::IncompatibleArguments,
                        format!(
                            "agent {} has no ISA (a CPU agent) to load code objects for",
                            agent.index()
                        ),
                    )
                })?;
                // The loaded code object's URI names its own bytes: a
                // bundle entry's part of what the reader's URI names, or,
                // out of a compressed bundle, the decompressed copy (kept
                // with the executable, as a memory reader's bytes are).
                let (co, uri, keep) = match pick_code_object(reader.bytes(), &target)? {
                    Picked::In(r) => {
                        let uri = part_uri(reader.uri(), reader.bytes().len(), &r);
                        let keep = reader
                            .uri
                            .starts_with("memory://")
                            .then(|| Arc::clone(&reader.bytes));
                        (Cow::Borrowed(&reader.bytes()[r]), uri, keep)
                    }
                    Picked::Decompressed(v) => {
                        let bytes: Arc<[u8]> = v.into();
                        let uri = crate::uri::memory_uri(bytes.as_ptr() as usize, bytes.len());
                        (Cow::Owned(bytes.to_vec()), uri, Some(bytes))
                    }
                };
                let tid = check_isa(&co, &target, agent)?;
                let mut mem = LoaderMemory {
                    core,
                    gpu_id: rec.gpu_id,
                    blocks: Vec::new(),
                };
                let result = Self::load_into(&co, &target, agent, &state, &mut mem).and_then(|mut l| {
            for s in &l.symbols {
                if let Some(&i) = state.agent.get(&(s.full_name.clone(), agent)) {
                    let what = match state.symbols[i].detail {
                        SymbolDetail::Kernel(_) => "a kernel",
                        SymbolDetail::Variable(_) => "a variable",
                    };
                    return Err(Error::new(
                        Status::VariableAlreadyDefined,
                        format!(
                            "symbol {} is already defined for agent {} ({what} of the executable)",
                            s.full_name,
                            agent.index()
                        ),
                    ));
                }
            }
            l.object.isa = tid.to_string();
            l.object.uri = uri;
            Ok(l)
        });
                let blocks: Vec<u64> = mem.blocks.iter().map(|b| b.0).collect();
                match result {
                    Ok(l) => {
                        state.memory.extend(blocks);
                        for s in l.symbols {
                            state.add(s);
                        }
                        state.loaded.push(l.object.clone());
                        if let Some(bytes) = keep {
                            state.sources.push(bytes);
                        }
                        Ok(l.object)
                    }
                    Err(e) => {
                        for va in blocks {
                            let _ = core.free(va);
                        }
                        Err(e)
                    }
                }
            }
        )
    }

    /// `hsa_executable_load_program_code_object`: a code object not tied to
    /// an agent. Every AMDGPU code object names its processor (`e_flags`),
    /// so none is a program code object: a valid one is
    /// `HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS` (the code object "is not
    /// compatible with the implementation", hsa.h), a malformed one
    /// `HSA_STATUS_ERROR_INVALID_CODE_OBJECT`. (ROCr accepts the call, then
    /// fails to allocate agent segments with no agent.)
    pub fn load_program_code_object(
        &self,
        reader: &CodeObjectReader,
        options: Option<&str>,
    ) -> Result<LoadedCodeObject> {
        self.shared.read().frozen_error("loading a code object")?;
        check_options(options)?;
        let bad = |m: String| Error::new(Status::InvalidCodeObject, m);
        let what = match Container::parse(reader.bytes()).map_err(|e| bad(e.to_string()))? {
            Container::Elf(data) => {
                let elf = ElfFile::parse(data).map_err(|e| bad(format!("code object: {e}")))?;
                match elf.flags() {
                    Ok(f) => match TargetId::from_flags(&f) {
                        Ok(t) => format!("a code object for {t}"),
                        Err(_) => "a code object without a processor".to_string(),
                    },
                    Err(e) => return Err(bad(format!("code object: {e}"))),
                }
            }
            _ => "an offload bundle".to_string(),
        };
        Err(Error::new(
            Status::IncompatibleArguments,
            format!("{what} is agent-specific: load it with load_agent_code_object"),
        ))
    }

    fn load_into(
        co: &[u8],
        target: &TargetId,
        agent: Agent,
        state: &State,
        mem: &mut LoaderMemory<'_>,
    ) -> Result<Loaded> {
        let resolve = |name: &str| {
            state
                .agent
                .get(&(name.to_string(), agent))
                .or_else(|| state.program.get(name))
                .map(|&i| state.symbols[i].address())
        };
        let loaded =
            loader_core::load::load_for_agent(co, target, mem, resolve).map_err(load_error)?;
        let elf = loaded.elf();
        let dynsym = elf
            .dynamic_symbols()
            .map_err(|e| Error::new(Status::InvalidCodeObject, format!(".dynsym: {e}")))?;
        let linkage_of = |name: &str| {
            let binding = dynsym
                .as_ref()
                .and_then(|t| t.find(name.as_bytes()))
                .map(|s| s.binding());
            if binding == Some(STB_GLOBAL) {
                SymbolLinkage::Program
            } else {
                SymbolLinkage::Module
            }
        };
        let md = loaded.metadata();
        let mut symbols = Vec::new();
        for k in loaded.kernels() {
            let k = k.map_err(|e| {
                Error::new(Status::InvalidCodeObject, format!("kernel symbol: {e}"))
            })?;
            let layout = match md {
                Some(md) => match md.kernel(k.name) {
                    Ok(Some(mk)) => KernargLayout::from_metadata(&mk),
                    Ok(None) => Ok(KernargLayout::without_metadata(
                        k.name,
                        k.kernarg_segment_size,
                        k.kernarg_segment_align,
                        k.group_segment_size,
                    )),
                    Err(e) => Err(KernargError::Metadata(e)),
                },
                None => Ok(KernargLayout::without_metadata(
                    k.name,
                    k.kernarg_segment_size,
                    k.kernarg_segment_align,
                    k.group_segment_size,
                )),
            };
            let full_name = format!("{}.kd", k.name);
            let (module_name, name) = split_name(&full_name);
            symbols.push(SymbolRecord {
                linkage: linkage_of(&full_name),
                name,
                module_name,
                full_name,
                agent: Some(agent),
                is_definition: true,
                detail: SymbolDetail::Kernel(Arc::new(KernelSymbol {
                    name: k.name.to_string(),
                    agent,
                    kernel_object: k.kernel_object,
                    kernarg_segment_size: k.kernarg_segment_size,
                    kernarg_segment_alignment: k.kernarg_segment_align,
                    group_segment_size: k.group_segment_size,
                    private_segment_size: k.private_segment_size,
                    dynamic_callstack: k.uses_dynamic_stack,
                    wavefront_size: k.wavefront_size,
                    layout,
                })),
            });
        }
        for v in loaded.variables() {
            let section = dynsym
                .as_ref()
                .and_then(|t| t.find(v.name.as_bytes()))
                .and_then(|s| elf.section(usize::from(s.section_index())).ok())
                .map(|s| *s.header());
            let (flags, align) = section.map_or((0, 0), |h| (h.sh_flags, h.sh_addralign));
            let (module_name, name) = split_name(v.name);
            symbols.push(SymbolRecord {
                linkage: linkage_of(v.name),
                name,
                module_name,
                full_name: v.name.to_string(),
                agent: Some(agent),
                is_definition: true,
                detail: SymbolDetail::Variable(VariableSymbol {
                    name: v.name.to_string(),
                    address: v.address,
                    size: v.size,
                    allocation: if flags & SHF_AMDGPU_HSA_AGENT != 0 {
                        VariableAllocation::Agent
                    } else {
                        VariableAllocation::Program
                    },
                    segment: if flags & SHF_AMDGPU_HSA_READONLY != 0 {
                        VariableSegment::Readonly
                    } else {
                        VariableSegment::Global
                    },
                    alignment: u32::try_from(align).unwrap_or(u32::MAX),
                    is_const: flags & SHF_WRITE == 0,
                }),
            });
        }
        let layout = loaded.layout();
        Ok(Loaded {
            symbols,
            object: LoadedCodeObject {
                agent,
                isa: String::new(),
                load_base: loaded.address(),
                load_size: layout.size,
                load_delta: loaded.bias() as i64,
                uri: String::new(),
            },
        })
    }

    fn define(
        &self,
        name: &str,
        agent: Option<Agent>,
        segment: VariableSegment,
        address: u64,
    ) -> Result<()> {
        if let Some(a) = agent {
            self.shared.core.agent(a)?;
        }
        let mut state = self.shared.write();
        state.frozen_error(&format!("defining variable {name}"))?;
        let exists = match agent {
            Some(a) => state.agent.contains_key(&(name.to_string(), a)),
            None => state.program.contains_key(name),
        };
        if exists {
            return Err(Error::new(
                Status::VariableAlreadyDefined,
                format!(
                    "variable {name} is already defined{}",
                    agent.map_or(String::new(), |a| format!(" for agent {}", a.index()))
                ),
            ));
        }
        // ROCr: the name as given, program linkage, size and alignment 0,
        // not constant.
        state.add(SymbolRecord {
            name: name.to_string(),
            module_name: String::new(),
            full_name: name.to_string(),
            agent,
            linkage: SymbolLinkage::Program,
            is_definition: true,
            detail: SymbolDetail::Variable(VariableSymbol {
                name: name.to_string(),
                address,
                size: 0,
                allocation: if agent.is_some() {
                    VariableAllocation::Agent
                } else {
                    VariableAllocation::Program
                },
                segment,
                alignment: 0,
                is_const: false,
            }),
        });
        Ok(())
    }

    /// `hsa_executable_global_variable_define`: a program variable at
    /// `address`, visible to the code objects loaded afterwards for every
    /// agent (when no agent variable of that name exists).
    /// `FROZEN_EXECUTABLE` after freeze, `VARIABLE_ALREADY_DEFINED` for a
    /// second definition.
    pub fn define_program_external_variable(&self, name: &str, address: u64) -> Result<()> {
        self.define(name, None, VariableSegment::Global, address)
    }

    /// `hsa_executable_agent_global_variable_define`: a variable at
    /// `address` for the code objects loaded afterwards for `agent`.
    pub fn define_agent_external_variable(
        &self,
        name: &str,
        agent: Agent,
        address: u64,
    ) -> Result<()> {
        self.define(name, Some(agent), VariableSegment::Global, address)
    }

    /// `hsa_executable_readonly_variable_define`: as
    /// [`define_agent_external_variable`](Self::define_agent_external_variable),
    /// in the readonly segment.
    pub fn readonly_variable_define(&self, name: &str, agent: Agent, address: u64) -> Result<()> {
        self.define(name, Some(agent), VariableSegment::Readonly, address)
    }

    /// `hsa_executable_freeze`: no code object or variable can be added
    /// afterwards. Freezing twice is `FROZEN_EXECUTABLE` (as ROCr).
    pub fn freeze(&self, options: Option<&str>) -> Result<()> {
        crate::trace::api_call!("hsa_executable_freeze", {
            let _ = options; // ROCr ignores them too.
            let mut state = self.shared.write();
            state.frozen_error("freezing")?;
            state.frozen = true;
            // ROCr's FreezeExecutable: the code objects join the list a
            // debugger reads (_amdgpu_r_debug).
            let objects: Vec<(i64, &str)> = state
                .loaded
                .iter()
                .map(|o| (o.load_delta, o.uri.as_str()))
                .collect();
            crate::rdebug::add(self.shared.id, &objects);
            Ok(())
        })
    }

    /// `hsa_executable_validate`: 0 when the executable is valid. Every
    /// check the specification lists (declarations defined, profiles and
    /// ISAs matching) is made when a code object is loaded, which fails
    /// otherwise, so a loaded executable is always valid (ROCr also
    /// answers 0).
    pub fn validate(&self) -> Result<u32> {
        let state = self.shared.read();
        let missing_agent = state
            .loaded
            .iter()
            .any(|l| self.shared.core.agent(l.agent).is_err());
        Ok(u32::from(missing_agent))
    }

    /// `hsa_executable_get_symbol_by_name`: the symbol named exactly `name`
    /// (kernels are `<kernel>.kd`, as in ROCr), for `agent`, or a program
    /// symbol when `agent` is `None`. `INVALID_SYMBOL_NAME` when there is
    /// none.
    pub fn get_symbol_by_name(&self, name: &str, agent: Option<Agent>) -> Result<ExecutableSymbol> {
        let state = self.shared.read();
        let found = match agent {
            Some(a) => state.agent.get(&(name.to_string(), a)),
            None => state.program.get(name),
        };
        if let Some(&i) = found {
            return Ok(self.shared.handle_of(i));
        }
        let hint = match agent {
            Some(a) if state.agent.contains_key(&(format!("{name}.kd"), a)) => {
                format!(" (the kernel's symbol is {name}.kd)")
            }
            Some(_) if state.program.contains_key(name) => {
                " (a program symbol has that name)".into()
            }
            None if state.agent.keys().any(|(n, _)| n == name) => {
                " (an agent symbol has that name)".into()
            }
            _ => String::new(),
        };
        Err(Error::new(
            Status::InvalidSymbolName,
            format!(
                "no symbol {name:?}{} in the executable{hint}",
                agent.map_or(String::new(), |a| format!(" for agent {}", a.index()))
            ),
        ))
    }

    /// `hsa_executable_get_symbol` (deprecated): the symbol
    /// `module_name::name` (just `name` without a module name), a program
    /// symbol when one has that name, else `agent`'s (as ROCr).
    pub fn get_symbol(
        &self,
        module_name: Option<&str>,
        name: &str,
        agent: Agent,
    ) -> Result<ExecutableSymbol> {
        if name.is_empty() {
            return Err(Error::new(
                Status::InvalidSymbolName,
                "an empty symbol name",
            ));
        }
        let full = match module_name {
            Some(m) if !m.is_empty() => format!("{m}::{name}"),
            _ => name.to_string(),
        };
        let program = self.shared.read().program.contains_key(&full);
        self.get_symbol_by_name(&full, if program { None } else { Some(agent) })
    }

    /// Every symbol (`hsa_executable_iterate_symbols` order): program
    /// symbols by name, then agent symbols by name and agent.
    pub fn symbols(&self) -> Vec<ExecutableSymbol> {
        let state = self.shared.read();
        let program = state.program.values();
        let agent = state.agent.values();
        program
            .chain(agent)
            .map(|&i| self.shared.handle_of(i))
            .collect()
    }

    /// The symbols of `agent`, by name (`hsa_executable_iterate_agent_symbols`).
    pub fn agent_symbols(&self, agent: Agent) -> Vec<ExecutableSymbol> {
        let state = self.shared.read();
        state
            .agent
            .iter()
            .filter(|((_, a), _)| *a == agent)
            .map(|(_, &i)| self.shared.handle_of(i))
            .collect()
    }

    /// The program symbols, by name (`hsa_executable_iterate_program_symbols`).
    pub fn program_symbols(&self) -> Vec<ExecutableSymbol> {
        let state = self.shared.read();
        state
            .program
            .values()
            .map(|&i| self.shared.handle_of(i))
            .collect()
    }

    /// `hsa_executable_iterate_symbols`: calls `f` for each symbol of
    /// [`symbols`](Self::symbols) until it returns other than
    /// `Status::Success`, and returns that status (`Success` when all were
    /// visited). `f` may call back into the executable.
    pub fn iterate_symbols(&self, f: impl FnMut(ExecutableSymbol) -> Status) -> Status {
        iterate(self.symbols(), f)
    }

    /// `hsa_executable_iterate_agent_symbols` (see
    /// [`iterate_symbols`](Self::iterate_symbols)).
    pub fn iterate_agent_symbols(
        &self,
        agent: Agent,
        f: impl FnMut(ExecutableSymbol) -> Status,
    ) -> Status {
        iterate(self.agent_symbols(agent), f)
    }

    /// `hsa_executable_iterate_program_symbols` (see
    /// [`iterate_symbols`](Self::iterate_symbols)).
    pub fn iterate_program_symbols(&self, f: impl FnMut(ExecutableSymbol) -> Status) -> Status {
        iterate(self.program_symbols(), f)
    }

    /// Everything about `sym`; `INVALID_EXECUTABLE_SYMBOL` for a symbol of
    /// another executable.
    pub fn symbol(&self, sym: ExecutableSymbol) -> Result<Arc<SymbolRecord>> {
        self.shared.record(sym)
    }

    /// `hsa_executable_symbol_get_info` (see [`SymbolRecord::info`]).
    pub fn symbol_info(&self, sym: ExecutableSymbol, attr: SymbolInfo) -> Result<SymbolInfoValue> {
        self.symbol(sym)?.info(attr)
    }

    /// The kernel of `sym`, to dispatch (`INVALID_ARGUMENT` for a variable).
    pub fn kernel_symbol(&self, sym: ExecutableSymbol) -> Result<Arc<KernelSymbol>> {
        let r = self.symbol(sym)?;
        match &r.detail {
            SymbolDetail::Kernel(k) => Ok(Arc::clone(k)),
            SymbolDetail::Variable(_) => Err(Error::invalid_argument(format!(
                "symbol {} is a variable, not a kernel",
                r.full_name
            ))),
        }
    }

    /// The kernel named `name`, with or without the `.kd` suffix, for any
    /// agent (the first by agent): a convenience over
    /// [`get_symbol_by_name`](Self::get_symbol_by_name).
    pub fn kernel(&self, name: &str) -> Result<Arc<KernelSymbol>> {
        let name = name.strip_suffix(".kd").unwrap_or(name);
        let kernels = self.kernels();
        kernels
            .iter()
            .find(|k| k.name == name)
            .cloned()
            .ok_or_else(|| {
                Error::new(
                    Status::InvalidSymbolName,
                    format!(
                        "no kernel {name:?} in the executable (it has: {})",
                        kernels
                            .iter()
                            .map(|k| k.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            })
    }

    /// Every kernel, in symbol order.
    pub fn kernels(&self) -> Vec<Arc<KernelSymbol>> {
        let state = self.shared.read();
        state
            .agent
            .values()
            .filter_map(|&i| match &state.symbols[i].detail {
                SymbolDetail::Kernel(k) => Some(Arc::clone(k)),
                SymbolDetail::Variable(_) => None,
            })
            .collect()
    }

    /// Every variable (loaded or defined), in symbol order.
    pub fn variables(&self) -> Vec<VariableSymbol> {
        let state = self.shared.read();
        state
            .program
            .values()
            .chain(state.agent.values())
            .filter_map(|&i| match &state.symbols[i].detail {
                SymbolDetail::Variable(v) => Some(v.clone()),
                SymbolDetail::Kernel(_) => None,
            })
            .collect()
    }

    /// The loaded code objects, in load order
    /// (`hsa_ven_amd_loader_executable_iterate_loaded_code_objects`).
    pub fn loaded_code_objects(&self) -> Vec<LoadedCodeObject> {
        self.shared.read().loaded.clone()
    }
}

fn iterate(
    symbols: Vec<ExecutableSymbol>,
    mut f: impl FnMut(ExecutableSymbol) -> Status,
) -> Status {
    for s in symbols {
        let status = f(s);
        if status != Status::Success {
            return status;
        }
    }
    Status::Success
}

impl Runtime {
    /// `hsa_executable_create_alt`: an empty, unfrozen executable.
    pub fn create_executable(
        &self,
        profile: Profile,
        rounding: DefaultFloatRoundingMode,
    ) -> Result<Executable> {
        Ok(Executable::new(&self.core, profile, rounding))
    }

    /// Loads the code object in `bytes` (a code object, bundle, or HIP
    /// fat binary) for `agent` into a new full-profile executable, frozen.
    pub fn load_executable(&self, agent: Agent, bytes: &[u8]) -> Result<Executable> {
        let exe = self.create_executable(Profile::Full, DefaultFloatRoundingMode::Default)?;
        exe.load_agent_code_object(&CodeObjectReader::from_memory(bytes)?, agent, None)?;
        exe.freeze(None)?;
        Ok(exe)
    }

    /// The symbol of a handle, whatever executable it belongs to:
    /// `INVALID_EXECUTABLE_SYMBOL` when that executable was destroyed (or
    /// the handle was never given out).
    pub fn executable_symbol(&self, sym: ExecutableSymbol) -> Result<Arc<SymbolRecord>> {
        let shared = registry()
            .get(&sym.executable_id())
            .and_then(Weak::upgrade)
            .ok_or_else(|| invalid_symbol(sym, "its executable does not exist (destroyed?)"))?;
        shared.record(sym)
    }

    /// `hsa_executable_symbol_get_info` on a bare handle.
    pub fn executable_symbol_info(
        &self,
        sym: ExecutableSymbol,
        attr: SymbolInfo,
    ) -> Result<SymbolInfoValue> {
        self.executable_symbol(sym)?.info(attr)
    }
}
