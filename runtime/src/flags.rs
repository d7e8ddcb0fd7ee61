//! The environment flags: every user-facing variable of ROCr 5.2.3
//! (`src/core/util/flag.h` at `rocm-5.2.3`), the later ROCr and libhsakmt
//! ones users set today, and this runtime's own `HSA_RS_*`, in one table
//! ([`TABLE`]) read once when the runtime opens into a [`Flags`] value.
//!
//! Each row says what ROCr does with the variable and what this runtime
//! does: honours it (with the same meaning), accepts and ignores it (with
//! why: the knob is about hardware or a ROCr internal that has no
//! counterpart here and ignoring it changes no result), or refuses a value
//! that would promise behaviour this runtime does not have.
//!
//! ROCr compares its booleans with `"0"` / `"1"` and takes anything else as
//! the default, and reads numbers with `atoi` (garbage is 0). Here a value
//! outside what a row expects is an error naming the variable, the value
//! and what is expected, and `hsa_init` fails with it
//! ([`Status::Error`]: no formal argument of `hsa_init` is wrong, and
//! `hsa.h` names no status for a bad environment).

use crate::status::{Error, Result, Status};

/// Where a variable comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// ROCr 5.2.3's `flag.h`.
    Rocr,
    /// A later ROCr's `flag.h` (the version that added it).
    RocrLater(&'static str),
    /// libhsakmt (the thunk below ROCr).
    Thunk,
    /// This runtime's own.
    Ours,
}

/// What this runtime does with a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handling {
    /// Honoured with ROCr's meaning (the text says how).
    Honoured,
    /// Accepted (its syntax checked) and ignored (the text says why).
    Ignored,
    /// Its default accepted, any value asking for more refused (the text
    /// says what is missing).
    Refused,
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct FlagSpec {
    /// The variable.
    pub name: &'static str,
    /// The values accepted.
    pub values: &'static str,
    /// The value when unset.
    pub default: &'static str,
    /// What ROCr (or libhsakmt) does with it.
    pub rocr: &'static str,
    /// What this runtime does with it.
    pub handling: Handling,
    /// How (honoured), why (ignored) or what is missing (refused).
    pub here: &'static str,
    /// Where it comes from.
    pub origin: Origin,
}

/// Why a value was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseError {
    /// Not of the expected form (the expected form).
    Expected(&'static str),
    /// Well formed, but asks for what this runtime does not have.
    Refused,
}

/// A flag's parser: the variable's value (set) to its typed value.
pub type Parser<T> = fn(&str) -> core::result::Result<T, ParseError>;

/// `"0"` or `"1"`, as ROCr compares them (no spaces).
pub fn bool01(v: &str) -> core::result::Result<bool, ParseError> {
    match v {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err(ParseError::Expected("0 or 1")),
    }
}

/// A tri-state flag set: `"0"` or `"1"` (unset is the third state).
pub fn some_bool01(v: &str) -> core::result::Result<Option<bool>, ParseError> {
    bool01(v).map(Some)
}

/// `"0"` (the default) only: `"1"` asks for what the row says is missing.
pub fn zero_only(v: &str) -> core::result::Result<bool, ParseError> {
    match bool01(v)? {
        false => Ok(false),
        true => Err(ParseError::Refused),
    }
}

/// `"1"` (the default) only: `"0"` asks for what the row says is missing.
pub fn one_only(v: &str) -> core::result::Result<bool, ParseError> {
    match bool01(v)? {
        true => Ok(true),
        false => Err(ParseError::Refused),
    }
}

/// A decimal `u32` (digits only).
pub fn decimal_u32(v: &str) -> core::result::Result<u32, ParseError> {
    const WHAT: &str = "a decimal number below 2^32";
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ParseError::Expected(WHAT));
    }
    v.parse().map_err(|_| ParseError::Expected(WHAT))
}

/// A decimal `u64` (digits only).
pub fn decimal_u64(v: &str) -> core::result::Result<u64, ParseError> {
    const WHAT: &str = "a decimal number below 2^64";
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ParseError::Expected(WHAT));
    }
    v.parse().map_err(|_| ParseError::Expected(WHAT))
}

/// A decimal count of `0` only (libhsakmt's default is 1; 0 is what this
/// runtime does).
pub fn zero_count(v: &str) -> core::result::Result<u32, ParseError> {
    match decimal_u32(v)? {
        0 => Ok(0),
        _ => Err(ParseError::Refused),
    }
}

/// Any text (a list the consumer splits).
pub fn text(v: &str) -> core::result::Result<String, ParseError> {
    Ok(v.to_owned())
}

/// A non-empty text (its consumer parses it further).
pub fn non_empty(v: &str) -> core::result::Result<String, ParseError> {
    if v.trim().is_empty() {
        return Err(ParseError::Expected("a non-empty value"));
    }
    Ok(v.to_owned())
}

/// `ROCR_VISIBLE_DEVICES`: comma-separated GPU indices (decimal) or
/// `GPU-<hex unique id>`s; empty: no GPU. An entry naming no GPU ends the
/// list (ROCr's rule, applied at discovery); an entry of neither form is
/// an error here.
pub fn visible_devices(v: &str) -> core::result::Result<String, ParseError> {
    const WHAT: &str = "comma-separated GPU indices or GPU-<hex uuid>s";
    if v.trim().is_empty() {
        return Ok(String::new());
    }
    for item in v.split(',').map(str::trim) {
        let ok = match item.strip_prefix("GPU-") {
            Some(uuid) => !uuid.is_empty() && uuid.bytes().all(|b| b.is_ascii_hexdigit()),
            None => !item.is_empty() && item.bytes().all(|b| b.is_ascii_digit()),
        };
        if !ok {
            return Err(ParseError::Expected(WHAT));
        }
    }
    Ok(v.to_owned())
}

/// Where `HSA_RS_API_TRACE` sends its lines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ApiTrace {
    /// No tracing.
    #[default]
    Off,
    /// One line per call on stderr.
    Stderr,
    /// One line per call appended to this file.
    File(std::path::PathBuf),
}

/// `HSA_RS_API_TRACE`: `0` off, `1` stderr, a path (containing `/`) a file.
pub fn api_trace(v: &str) -> core::result::Result<ApiTrace, ParseError> {
    match v {
        "0" => Ok(ApiTrace::Off),
        "1" => Ok(ApiTrace::Stderr),
        p if p.contains('/') => Ok(ApiTrace::File(p.into())),
        _ => Err(ParseError::Expected(
            "0, 1 (stderr) or a file path containing '/'",
        )),
    }
}

/// `HSA_RS_DRIVER`'s choice of device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriverChoice {
    /// `/dev/kfd`.
    Kfd,
    /// The software GPU.
    Sim,
}

/// `HSA_RS_DRIVER`: `kfd` or `sim`.
pub fn driver_choice(v: &str) -> core::result::Result<Option<DriverChoice>, ParseError> {
    match v {
        "kfd" => Ok(Some(DriverChoice::Kfd)),
        "sim" => Ok(Some(DriverChoice::Sim)),
        _ => Err(ParseError::Expected("kfd or sim")),
    }
}

macro_rules! flags {
    ($(
        $(#[$m:meta])*
        $field:ident: $ty:ty = $default:expr;
        $name:literal, $parse:path, values $values:literal, default $default_text:literal,
        $origin:expr, rocr $rocr:literal, $handling:ident $here:literal;
    )*) => {
        /// The flags of one runtime opening (see [`TABLE`] for each).
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct Flags {
            $( $(#[$m])* pub $field: $ty, )*
        }

        impl Default for Flags {
            /// Every variable unset.
            fn default() -> Self {
                Self { $( $field: $default, )* }
            }
        }

        /// Every variable of [`Flags`], in its order.
        pub const TABLE: &[FlagSpec] = &[$(
            FlagSpec {
                name: $name,
                values: $values,
                default: $default_text,
                rocr: $rocr,
                handling: Handling::$handling,
                here: $here,
                origin: $origin,
            },
        )*];

        impl Flags {
            /// The flags `get` gives (`get(name)`: the variable's value, if set).
            pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Self> {
                Ok(Self {$(
                    $field: match get($name) {
                        None => $default,
                        Some(v) => {
                            let p: Parser<$ty> = $parse;
                            p(&v).map_err(|e| bad($name, &v, e))?
                        }
                    },
                )*})
            }
        }
    };
}

/// The error of a value a row does not take.
fn bad(name: &str, value: &str, e: ParseError) -> Error {
    let (here, values) = TABLE
        .iter()
        .find(|s| s.name == name)
        .map_or(("", ""), |s| (s.here, s.values));
    match e {
        ParseError::Expected(what) => Error::new(
            Status::Error,
            format!("environment: {name}={value:?} is not valid: expected {what}"),
        ),
        ParseError::Refused => Error::new(
            Status::Error,
            format!("environment: {name}={value:?} is refused: {here}; unset it or set {values}"),
        ),
    }
}

flags! {
    /// `HSA_ENABLE_SDMA`: `None` (unset) the default, SDMA on.
    enable_sdma: Option<bool> = None;
    "HSA_ENABLE_SDMA", some_bool01, values "0 or 1", default "unset: SDMA on", Origin::Rocr,
    rocr "0: copies use blit kernels instead of the SDMA engines; 1: SDMA; unset: the ASIC's default",
    Honoured "0 runs every copy and fill as a blit kernel on an internal AQL queue; 1 or unset uses the SDMA queues";

    /// `HSA_ENABLE_INTERRUPT`.
    enable_interrupt: bool = true;
    "HSA_ENABLE_INTERRUPT", bool01, values "0 or 1", default "1", Origin::Rocr,
    rocr "0: signals get no KFD event (DefaultSignal), waits poll instead of sleeping on interrupts",
    Honoured "0 creates every signal as a default signal: no KFD event, blocked waits poll the value";

    /// `ROCR_VISIBLE_DEVICES` (`None`: unset, every GPU).
    visible_devices: Option<String> = None;
    "ROCR_VISIBLE_DEVICES", visible_devices_opt,
    values "comma-separated GPU indices or GPU-UUID (hex)", default "unset: every GPU", Origin::Rocr,
    rocr "the GPUs the process sees, in this order; an entry naming no GPU ends the list; empty: none",
    Honoured "the same filter and order at agent discovery; an entry of neither form is an error";

    /// `HSA_MAX_QUEUES` (0: the default).
    max_queues: u32 = 0;
    "HSA_MAX_QUEUES", decimal_u32, values "a decimal number", default "0: 128", Origin::Rocr,
    rocr "the most queues per GPU agent (HSA_AGENT_INFO_QUEUES_MAX); 0: the default",
    Honoured "HSA_AGENT_INFO_QUEUES_MAX reports it, capped at 128 (0: 128)";

    /// `HSA_XNACK` (`None`: unset).
    xnack: Option<bool> = None;
    "HSA_XNACK", some_bool01, values "0 or 1", default "unset: the driver's mode", Origin::Rocr,
    rocr "requests XNACK (retry on page fault) on or off for the process; unset: unchanged",
    Honoured "asked of the driver at init (SET_XNACK_MODE, as ROCr's BindXnackMode; unset: its mode is queried); the GPU ISAs carry the bound mode (xnack+/xnack-) and with it on the GPUs fault in memory no SVM range covers";

    /// `HSA_FORCE_FINE_GRAIN_PCIE`.
    force_fine_grain_pcie: bool = false;
    "HSA_FORCE_FINE_GRAIN_PCIE", bool01, values "0 or 1", default "0", Origin::Rocr,
    rocr "1: fine-grained VRAM is accessible from other GPUs over PCIe (not only XGMI)",
    Honoured "1 exposes fine-grained VRAM pools to peers over PCIe as well";

    /// `HSA_ENABLE_VM_FAULT_MESSAGE`.
    enable_vm_fault_message: bool = true;
    "HSA_ENABLE_VM_FAULT_MESSAGE", bool01, values "0 or 1", default "1", Origin::Rocr,
    rocr "0: no message on stderr for a GPU memory fault no handler took",
    Honoured "0 silences the memory fault message";

    /// `HSA_COOP_CU_COUNT`.
    coop_cu_count: bool = false;
    "HSA_COOP_CU_COUNT", bool01, values "0 or 1", default "0", Origin::Rocr,
    rocr "1: HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT reports the corrected (gfx90a) count",
    Honoured "1 reports the CU count less the reserved CUs on gfx90a, as ROCr";

    /// `HSA_TOOLS_LIB` (`None`: unset).
    tools_lib: Option<String> = None;
    "HSA_TOOLS_LIB", text_opt, values "space-separated library names", default "unset", Origin::Rocr,
    rocr "tools libraries loaded at hsa_init, each OnLoad given the API table",
    Honoured "dlopen'd at the first hsa_init, OnLoad called with the API table, OnUnload at the last hsa_shut_down";

    /// `HSA_TOOLS_REPORT_LOAD_FAILURE`.
    tools_report_load_failure: bool = true;
    "HSA_TOOLS_REPORT_LOAD_FAILURE", bool01, values "0 or 1", default "1", Origin::Rocr,
    rocr "0: a tools library that fails to load is not reported on stderr (release builds report by default)",
    Honoured "a library of HSA_TOOLS_LIB that dlopen refuses is named on stderr unless 0";

    /// `HSA_CU_MASK` (its text; the CU mask parser takes it further).
    cu_mask: Option<String> = None;
    "HSA_CU_MASK", non_empty_opt, values "GPUS:CUS[;GPUS:CUS...], each a list or range, CUS also a 0x hex mask",
    default "unset: every CU", Origin::Rocr,
    rocr "the CU mask each queue of the listed GPUs starts with (and hsa_amd_queue_cu_set_mask is limited to)",
    Honoured "the listed GPUs' queues start with that mask; set masks are intersected with it";

    /// `HSA_NO_SCRATCH_RECLAIM`.
    no_scratch_reclaim: bool = false;
    "HSA_NO_SCRATCH_RECLAIM", bool01, values "0 or 1", default "0", Origin::Rocr,
    rocr "1: scratch memory a dispatch grew a queue's scratch to is kept, not released after the dispatch",
    Honoured "1 keeps a queue's grown scratch until the queue is destroyed";

    /// `HSA_SCRATCH_SINGLE_LIMIT` (bytes; `None`: ROCr's default).
    scratch_single_limit: Option<u64> = None;
    "HSA_SCRATCH_SINGLE_LIMIT", decimal_u64_opt, values "a decimal byte count",
    default "unset: 140 MiB", Origin::RocrLater("5.6"),
    rocr "scratch larger than this for one dispatch is given for that dispatch only and reclaimed after it",
    Honoured "scratch grants above it are released when their dispatch completes";

    /// `HSA_ENABLE_SCRATCH_ASYNC_RECLAIM`.
    enable_scratch_async_reclaim: bool = true;
    "HSA_ENABLE_SCRATCH_ASYNC_RECLAIM", bool01, values "0 or 1", default "1",
    Origin::RocrLater("6.1"),
    rocr "0: scratch is reclaimed only at queue idle, not asynchronously while queues run",
    Honoured "on gfx94x/gfx95x with CP firmware 177/24 or later (the sim's gfx942 board), as ROCr: queues set AMD_QUEUE_CAPS_SW_ASYNC_RECLAIM, hsa_amd_agent_set_async_scratch_limit, a trim and a failed VRAM allocation take running queues' scratch back (the amd_queue_v2 scratch_max_use_index handshake), and use-once scratch is only above HSA_SCRATCH_SINGLE_LIMIT_ASYNC; 0 turns that off; gfx900-gfx90a have no asynchronous reclaim, as in ROCr";

    /// `HSA_SCRATCH_SINGLE_LIMIT_ASYNC` (bytes; `None` or 0: ROCr's
    /// default of 3 GiB per XCC).
    scratch_single_limit_async: Option<u64> = None;
    "HSA_SCRATCH_SINGLE_LIMIT_ASYNC", decimal_u64_opt, values "a decimal byte count",
    default "unset: 3 GiB per XCC", Origin::RocrLater("6.1"),
    rocr "where scratch is reclaimed asynchronously: scratch larger than this for one dispatch is given for that dispatch only",
    Honoured "on GPUs with asynchronous reclaim, the initial use-once threshold (hsa_amd_agent_set_async_scratch_limit changes it)";

    /// `HSA_ENABLE_QUEUE_FAULT_MESSAGE`.
    enable_queue_fault_message: bool = true;
    "HSA_ENABLE_QUEUE_FAULT_MESSAGE", bool01, values "0 or 1", default "1", Origin::Rocr,
    rocr "0: a queue error on a queue created without a callback is not printed (and does not abort), nor are the scratch limiter's debug messages",
    Honoured "a C queue created without an error callback gets ROCr's default handler (\"Queue at %p inactivated due to async error:\" and the status string on stderr, then abort), none with 0; a Rust queue's errors go to its callback and Queue::error either way; the wave limiter prints ROCr's lines (\"Failed to map requested scratch ...\") unless 0";

    /// `HSA_CHECK_FLAT_SCRATCH`.
    check_flat_scratch: bool = false;
    "HSA_CHECK_FLAT_SCRATCH", bool01, values "0 or 1", default "0", Origin::Rocr,
    rocr "1: a ROCr self-check that queue scratch is set up for flat scratch access",
    Ignored "a check of ROCr's own queue setup; this runtime's scratch setup is its own and tested";

    /// `HSA_RUNNING_UNDER_VALGRIND`.
    running_under_valgrind: bool = false;
    "HSA_RUNNING_UNDER_VALGRIND", bool01, values "0 or 1", default "0", Origin::Rocr,
    rocr "1: extension libraries are not dlclose'd (so valgrind can name their frames)",
    Ignored "this runtime loads no extension library (images and the finalizer answer as ROCr without them)";

    /// `HSA_SDMA_WAIT_IDLE`.
    sdma_wait_idle: bool = false;
    "HSA_SDMA_WAIT_IDLE", bool01, values "0 or 1", default "0", Origin::Rocr,
    rocr "1: each SDMA copy waits for the engine to go idle (a hardware workaround)",
    Ignored "a workaround for an SDMA erratum; a copy's completion signal is written only after the engine finished it anyway";

    /// `HSA_SCRATCH_MEM` (bytes per work-item; 0: ROCr's 2048).
    scratch_mem: u64 = 0;
    "HSA_SCRATCH_MEM", decimal_u64, values "a decimal byte count", default "0: 2048", Origin::Rocr,
    rocr "scratch bytes per work-item the GPU's scratch pool is sized for (32 waves of 64 lanes a CU, for HSA_MAX_QUEUES queues, at most 4 GiB per XCC): all queue scratch comes from that pool",
    Honoured "a GPU's queue scratch, in use or cached, stays within that pool (32 x 64 x CUs x this, 64 KiB aligned, x HSA_MAX_QUEUES, at most 4 GiB per XCC); past it the cache is trimmed, then the wave limiter gives a dispatch less";

    /// `HSA_DISABLE_FRAGMENT_ALLOCATOR`.
    disable_fragment_allocator: bool = false;
    "HSA_DISABLE_FRAGMENT_ALLOCATOR", bool01, values "0 or 1", default "0", Origin::Rocr,
    rocr "1: small allocations are not sub-allocated from larger blocks",
    Ignored "this runtime has no fragment allocator: every allocation is its own KFD block, what 1 asks for";

    /// `HSA_ENABLE_SDMA_HDP_FLUSH`.
    enable_sdma_hdp_flush: bool = true;
    "HSA_ENABLE_SDMA_HDP_FLUSH", bool01, values "0 or 1", default "1", Origin::Rocr,
    rocr "0: SDMA copies skip the HDP flush of their fence",
    Ignored "about the HDP write cache of a PCIe BAR, which the software GPU does not have";

    /// `HSA_REV_COPY_DIR`.
    rev_copy_dir: bool = false;
    "HSA_REV_COPY_DIR", bool01, values "0 or 1", default "0", Origin::Rocr,
    rocr "1: a device-to-device copy runs on the other GPU's engine (a tuning knob)",
    Ignored "only which engine runs a copy changes, never its result";

    /// `HSA_NO_SCRATCH_THREAD_LIMITER`.
    no_scratch_thread_limiter: bool = false;
    "HSA_NO_SCRATCH_THREAD_LIMITER", bool01, values "0 or 1", default "0", Origin::Rocr,
    rocr "1: when scratch is short, waves are not limited to what the scratch given can hold",
    Honoured "0: scratch a dispatch cannot have in full (pool or VRAM) is reduced as ROCr does, whole work-groups a CU at a time, and the CP runs only the waves it holds; 1: the dispatch fails (OUT_OF_RESOURCES)";

    /// `HSA_DISABLE_IMAGE`.
    disable_image: bool = false;
    "HSA_DISABLE_IMAGE", bool01, values "0 or 1", default "0", Origin::Rocr,
    rocr "1: the image library is not loaded (the image functions answer HSA_STATUS_ERROR_NOT_INITIALIZED)",
    Ignored "there is no image library: the image functions always answer as ROCr's without it, what 1 asks";

    /// `HSA_LOADER_ENABLE_MMAP_URI`.
    loader_enable_mmap_uri: bool = false;
    "HSA_LOADER_ENABLE_MMAP_URI", bool01, values "0 or 1", default "0", Origin::Rocr,
    rocr "1: code objects loaded from memory get a file:// URI of the mapped file when there is one",
    Honoured "a C caller's code object in memory is named file:// (path percent-encoded, offset and size unless it is the whole file) when it lies in a loaded ELF file (0, ROCr's default: an embedded fat binary names the program) or, with 1, in any file mapping; else memory://";

    /// `HSA_FORCE_SDMA_SIZE` (bytes; only its syntax is checked).
    force_sdma_size: Option<u64> = None;
    "HSA_FORCE_SDMA_SIZE", decimal_u64_opt, values "a decimal byte count", default "1048576",
    Origin::Rocr,
    rocr "host-device copies smaller than this use a blit kernel instead of SDMA",
    Ignored "only which engine runs a copy changes, never its result: SDMA (when on) takes every size";

    /// `HSA_IGNORE_SRAMECC_MISREPORT`.
    ignore_sramecc_misreport: bool = false;
    "HSA_IGNORE_SRAMECC_MISREPORT", bool01, values "0 or 1", default "0", Origin::Rocr,
    rocr "1: skip the check that old firmware reported SRAM ECC correctly",
    Ignored "sramecc is taken from the node's HSA_CAP_SRAM_EDCSUPPORTED without ROCr's firmware check";

    /// `HSA_ENABLE_DEBUG`.
    enable_debug: bool = false;
    "HSA_ENABLE_DEBUG", bool01, values "0 or 1", default "0", Origin::Rocr,
    rocr "1: the process is enabled for the GPU debugger (hsaKmtRuntimeEnable with debug)",
    Honoured "at init the driver gets _amdgpu_r_debug (the loaded code objects) with RUNTIME_ENABLE either way, and with 1 also TTMP_SAVE: every wave launches with its trap temporaries set up for a debugger (dispatch packet index, work-group id, position in the group); a driver without RUNTIME_ENABLE (before KFD 1.13, or no HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED) is not asked, as in ROCr, and 1 then prints a notice";

    /// `HSA_CU_MASK_SKIP_INIT`.
    cu_mask_skip_init: bool = false;
    "HSA_CU_MASK_SKIP_INIT", bool01, values "0 or 1", default "0", Origin::Rocr,
    rocr "1: queues are created without setting their initial CU mask",
    Honoured "1: a new queue gets no SET_CU_MASK (it runs on every CU, HSA_CU_MASK not applied until a mask is set) and its mask reads as 0s until one is";

    /// `HSA_SVM_GUARD_PAGES` (`None`: unset, libhsakmt's 1).
    svm_guard_pages: Option<u32> = None;
    "HSA_SVM_GUARD_PAGES", count_opt, values "a decimal number", default "unset: 1", Origin::Thunk,
    rocr "libhsakmt: the guard pages between allocations of the SVM apertures (default 1)",
    Honoured "each allocation is followed by that many pages of reserved address space no CPU or GPU mapping covers (unset: 1): an access running past its end faults";

    /// `HSA_RS_DRIVER` (`None`: `/dev/kfd` if usable, else the software GPU).
    driver: Option<DriverChoice> = None;
    "HSA_RS_DRIVER", driver_choice, values "kfd or sim", default "unset", Origin::Ours,
    rocr "(none)",
    Honoured "kfd: /dev/kfd only; sim: the software GPU; unset: /dev/kfd when usable, else the software GPU";

    /// `HSA_RS_CABI_LOG`.
    cabi_log: bool = false;
    "HSA_RS_CABI_LOG", bool01, values "0 or 1", default "0", Origin::Ours,
    rocr "(none)",
    Honoured "1: the C library prints the reason of every failed call on stderr";

    /// `HSA_RS_API_TRACE`.
    api_trace: ApiTrace = ApiTrace::Off;
    "HSA_RS_API_TRACE", api_trace, values "0, 1 or a path containing '/'", default "0", Origin::Ours,
    rocr "(none)",
    Honoured "the C library writes one line per API call (arguments, status, duration) to stderr (1) or appends it to the file";
}

fn visible_devices_opt(v: &str) -> core::result::Result<Option<String>, ParseError> {
    visible_devices(v).map(Some)
}

fn text_opt(v: &str) -> core::result::Result<Option<String>, ParseError> {
    text(v).map(Some)
}

fn non_empty_opt(v: &str) -> core::result::Result<Option<String>, ParseError> {
    non_empty(v).map(Some)
}

fn decimal_u64_opt(v: &str) -> core::result::Result<Option<u64>, ParseError> {
    decimal_u64(v).map(Some)
}

fn count_opt(v: &str) -> core::result::Result<Option<u32>, ParseError> {
    decimal_u32(v).map(Some)
}

impl Flags {
    /// The flags of the process environment (a variable that is not UTF-8
    /// is an error naming it).
    pub fn from_env() -> Result<Self> {
        for spec in TABLE {
            if let Some(v) = std::env::var_os(spec.name)
                && v.to_str().is_none()
            {
                return Err(Error::new(
                    Status::Error,
                    format!("environment: {} is not UTF-8", spec.name),
                ));
            }
        }
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// `HSA_ENABLE_SDMA`: whether copies may use SDMA queues.
    pub fn sdma(&self) -> bool {
        self.enable_sdma.unwrap_or(true)
    }

    /// `HSA_AGENT_INFO_QUEUES_MAX` under `HSA_MAX_QUEUES`.
    pub fn queues_max(&self) -> u32 {
        match self.max_queues {
            0 => crate::system::QUEUES_MAX,
            v => v.min(crate::system::QUEUES_MAX),
        }
    }
}

/// The Markdown table of [`TABLE`] (the README's, checked by a test).
pub fn markdown_table() -> String {
    let mut s = String::from(
        "| variable | values | default | ROCr's meaning | here |\n|---|---|---|---|---|\n",
    );
    for f in TABLE {
        let origin = match f.origin {
            Origin::Rocr => String::new(),
            Origin::RocrLater(v) => format!(" (ROCr {v})"),
            Origin::Thunk => " (libhsakmt)".into(),
            Origin::Ours => " (this runtime)".into(),
        };
        let handling = match f.handling {
            Handling::Honoured => "honoured",
            Handling::Ignored => "accepted, ignored",
            Handling::Refused => "refused if set otherwise",
        };
        s += &format!(
            "| `{}`{origin} | {} | {} | {} | {handling}: {} |\n",
            f.name, f.values, f.default, f.rocr, f.here
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(vars: &[(&str, &str)]) -> Result<Flags> {
        Flags::from_lookup(|n| {
            vars.iter()
                .find(|(k, _)| *k == n)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn unset_is_every_default() {
        assert_eq!(with(&[]).unwrap(), Flags::default());
        let f = Flags::default();
        assert!(f.sdma() && f.enable_interrupt && f.tools_report_load_failure);
        assert_eq!(f.queues_max(), 128);
    }

    #[test]
    fn well_formed_values_are_taken() {
        let f = with(&[
            ("HSA_ENABLE_SDMA", "0"),
            ("HSA_ENABLE_INTERRUPT", "0"),
            ("HSA_MAX_QUEUES", "7"),
            ("ROCR_VISIBLE_DEVICES", "1, GPU-0a1b"),
            ("HSA_XNACK", "1"),
            ("HSA_RS_API_TRACE", "/tmp/t"),
        ])
        .unwrap();
        assert!(!f.sdma());
        assert!(!f.enable_interrupt);
        assert_eq!(f.queues_max(), 7);
        assert_eq!(f.visible_devices.as_deref(), Some("1, GPU-0a1b"));
        assert_eq!(f.xnack, Some(true));
        assert_eq!(f.api_trace, ApiTrace::File("/tmp/t".into()));
        assert_eq!(
            with(&[("HSA_MAX_QUEUES", "1000")]).unwrap().queues_max(),
            128
        );
        assert_eq!(
            with(&[("ROCR_VISIBLE_DEVICES", "")])
                .unwrap()
                .visible_devices
                .as_deref(),
            Some("")
        );
    }

    #[test]
    fn a_malformed_value_is_an_error_naming_variable_value_and_form() {
        for (var, value, expected) in [
            ("HSA_MAX_QUEUES", "abc", "a decimal number"),
            ("HSA_MAX_QUEUES", "-1", "a decimal number"),
            ("HSA_ENABLE_SDMA", "maybe", "0 or 1"),
            ("HSA_ENABLE_INTERRUPT", "yes", "0 or 1"),
            ("ROCR_VISIBLE_DEVICES", "0,gpu1", "GPU indices"),
            ("HSA_RS_API_TRACE", "on", "a file path"),
            ("HSA_RS_DRIVER", "amd", "kfd or sim"),
        ] {
            let e = with(&[(var, value)]).unwrap_err();
            assert_eq!(e.status, Status::Error);
            assert!(e.message.contains(var), "{e}");
            assert!(e.message.contains(&format!("{value:?}")), "{e}");
            assert!(e.message.contains(expected), "{e}");
        }
    }

    #[test]
    fn a_malformed_value_names_the_variable() {
        let e = with(&[("HSA_CHECK_FLAT_SCRATCH", "2")]).unwrap_err();
        assert!(e.message.contains("HSA_CHECK_FLAT_SCRATCH"), "{e}");
        // HSA_ENABLE_DEBUG is honoured: 0 and 1, nothing else.
        assert!(!with(&[("HSA_ENABLE_DEBUG", "0")]).unwrap().enable_debug);
        assert!(with(&[("HSA_ENABLE_DEBUG", "1")]).unwrap().enable_debug);
        assert!(with(&[("HSA_ENABLE_DEBUG", "2")]).is_err());
        assert_eq!(
            with(&[("HSA_SVM_GUARD_PAGES", "0")])
                .unwrap()
                .svm_guard_pages,
            Some(0)
        );
        assert_eq!(
            with(&[("HSA_SVM_GUARD_PAGES", "2")])
                .unwrap()
                .svm_guard_pages,
            Some(2)
        );
        assert!(with(&[("HSA_SVM_GUARD_PAGES", "two")]).is_err());
    }

    #[test]
    fn every_row_has_its_texts_and_a_unique_name() {
        for (i, f) in TABLE.iter().enumerate() {
            assert!(!f.here.is_empty() && !f.rocr.is_empty() && !f.values.is_empty());
            assert!(
                TABLE[..i].iter().all(|g| g.name != f.name),
                "{} twice",
                f.name
            );
        }
    }

    #[test]
    fn the_readme_table_is_this_table() {
        let readme = include_str!("../../README.md");
        assert!(
            readme.contains(&markdown_table()),
            "README.md's flags table differs from runtime/src/flags.rs; paste:\n{}",
            markdown_table()
        );
    }
}
