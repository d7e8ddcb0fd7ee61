//! `hsa_status_t`: the status codes of `hsa.h` and `hsa_ext_amd.h`, and the
//! runtime's error type, which pairs a status with what went wrong.

use core::fmt;

macro_rules! statuses {
    ($($(#[$m:meta])* $name:ident = $value:expr, $c:literal;)*) => {
        /// An `hsa_status_t` value (`hsa.h`, `hsa_ext_amd.h`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u32)]
        pub enum Status {
            $($(#[$m])* $name = $value,)*
        }

        impl Status {
            /// Every status, in header order.
            pub const ALL: &'static [Status] = &[$(Status::$name),*];

            /// The C enumerator's name (`HSA_STATUS_ERROR_INVALID_ARGUMENT`).
            pub const fn c_name(self) -> &'static str {
                match self {
                    $(Status::$name => $c,)*
                }
            }

            /// The status with C value `value`, if it is one.
            pub fn from_raw(value: u32) -> Option<Self> {
                match value {
                    $(v if v == $value => Some(Status::$name),)*
                    _ => None,
                }
            }
        }
    };
}

statuses! {
    /// The function succeeded.
    Success = 0x0, "HSA_STATUS_SUCCESS";
    /// A traversal was stopped early by its callback.
    InfoBreak = 0x1, "HSA_STATUS_INFO_BREAK";
    /// A generic error.
    Error = 0x1000, "HSA_STATUS_ERROR";
    /// An argument is invalid.
    InvalidArgument = 0x1001, "HSA_STATUS_ERROR_INVALID_ARGUMENT";
    /// The queue could not be created as asked.
    InvalidQueueCreation = 0x1002, "HSA_STATUS_ERROR_INVALID_QUEUE_CREATION";
    /// The allocation is invalid.
    InvalidAllocation = 0x1003, "HSA_STATUS_ERROR_INVALID_ALLOCATION";
    /// The agent is invalid.
    InvalidAgent = 0x1004, "HSA_STATUS_ERROR_INVALID_AGENT";
    /// The memory region is invalid.
    InvalidRegion = 0x1005, "HSA_STATUS_ERROR_INVALID_REGION";
    /// The signal is invalid.
    InvalidSignal = 0x1006, "HSA_STATUS_ERROR_INVALID_SIGNAL";
    /// The queue is invalid.
    InvalidQueue = 0x1007, "HSA_STATUS_ERROR_INVALID_QUEUE";
    /// The runtime ran out of a resource.
    OutOfResources = 0x1008, "HSA_STATUS_ERROR_OUT_OF_RESOURCES";
    /// A packet is malformed.
    InvalidPacketFormat = 0x1009, "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT";
    /// A resource could not be freed.
    ResourceFree = 0x100A, "HSA_STATUS_ERROR_RESOURCE_FREE";
    /// The runtime is not initialised.
    NotInitialized = 0x100B, "HSA_STATUS_ERROR_NOT_INITIALIZED";
    /// A reference count would overflow.
    RefcountOverflow = 0x100C, "HSA_STATUS_ERROR_REFCOUNT_OVERFLOW";
    /// Arguments are individually valid but not together.
    IncompatibleArguments = 0x100D, "HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS";
    /// An index is out of range.
    InvalidIndex = 0x100E, "HSA_STATUS_ERROR_INVALID_INDEX";
    /// The ISA is invalid.
    InvalidIsa = 0x100F, "HSA_STATUS_ERROR_INVALID_ISA";
    /// The ISA name is invalid.
    InvalidIsaName = 0x1017, "HSA_STATUS_ERROR_INVALID_ISA_NAME";
    /// The code object is invalid.
    InvalidCodeObject = 0x1010, "HSA_STATUS_ERROR_INVALID_CODE_OBJECT";
    /// The executable is invalid.
    InvalidExecutable = 0x1011, "HSA_STATUS_ERROR_INVALID_EXECUTABLE";
    /// The executable is frozen.
    FrozenExecutable = 0x1012, "HSA_STATUS_ERROR_FROZEN_EXECUTABLE";
    /// No symbol has that name.
    InvalidSymbolName = 0x1013, "HSA_STATUS_ERROR_INVALID_SYMBOL_NAME";
    /// The variable is already defined.
    VariableAlreadyDefined = 0x1014, "HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED";
    /// The variable is undefined.
    VariableUndefined = 0x1015, "HSA_STATUS_ERROR_VARIABLE_UNDEFINED";
    /// An HSAIL exception was raised.
    Exception = 0x1016, "HSA_STATUS_ERROR_EXCEPTION";
    /// The code symbol is invalid.
    InvalidCodeSymbol = 0x1018, "HSA_STATUS_ERROR_INVALID_CODE_SYMBOL";
    /// The executable symbol is invalid.
    InvalidExecutableSymbol = 0x1019, "HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL";
    /// The file descriptor is invalid.
    InvalidFile = 0x1020, "HSA_STATUS_ERROR_INVALID_FILE";
    /// The code object reader is invalid.
    InvalidCodeObjectReader = 0x1021, "HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER";
    /// The cache is invalid.
    InvalidCache = 0x1022, "HSA_STATUS_ERROR_INVALID_CACHE";
    /// The wavefront is invalid.
    InvalidWavefront = 0x1023, "HSA_STATUS_ERROR_INVALID_WAVEFRONT";
    /// The signal group is invalid.
    InvalidSignalGroup = 0x1024, "HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP";
    /// The runtime is in an invalid state.
    InvalidRuntimeState = 0x1025, "HSA_STATUS_ERROR_INVALID_RUNTIME_STATE";
    /// A fatal error.
    Fatal = 0x1026, "HSA_STATUS_ERROR_FATAL";
    /// The memory pool is invalid (`hsa_ext_amd.h`).
    InvalidMemoryPool = 40, "HSA_STATUS_ERROR_INVALID_MEMORY_POOL";
    /// A memory aperture violation (`hsa_ext_amd.h`).
    MemoryApertureViolation = 41, "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION";
    /// An illegal instruction (`hsa_ext_amd.h`).
    IllegalInstruction = 42, "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION";
    /// A memory fault (`hsa_ext_amd.h`).
    MemoryFault = 43, "HSA_STATUS_ERROR_MEMORY_FAULT";
    /// The CU mask was reduced (`hsa_ext_amd.h`).
    CuMaskReduced = 44, "HSA_STATUS_CU_MASK_REDUCED";
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.c_name())
    }
}

/// A failed runtime call: the `hsa_status_t` the C API returns, and what
/// went wrong, for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The status code.
    pub status: Status,
    /// What went wrong and where.
    pub message: String,
}

impl Error {
    /// An error with `status` and `message`.
    pub fn new(status: Status, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }

    /// `HSA_STATUS_ERROR_INVALID_ARGUMENT` with `message`.
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(Status::InvalidArgument, message)
    }

    /// A driver call that failed: `HSA_STATUS_ERROR_OUT_OF_RESOURCES` for
    /// `ENOMEM`/`ENOSPC`, else `HSA_STATUS_ERROR`, with the driver's words.
    pub fn driver(context: &str, e: kfd::Error) -> Self {
        let status = match e.errno() {
            Some(rustix::io::Errno::NOMEM) | Some(rustix::io::Errno::NOSPC) => {
                Status::OutOfResources
            }
            _ => Status::Error,
        };
        Self::new(status, format!("{context}: {e}"))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.status, self.message)
    }
}

impl std::error::Error for Error {}

/// The runtime's result type.
pub type Result<T, E = Error> = core::result::Result<T, E>;
