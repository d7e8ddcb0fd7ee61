//! The library's process state: the runtime opened by the first `hsa_init`,
//! the objects C holds by handle, and the call guard every exported
//! function runs in (initialised check, panics caught, errors mapped to
//! their `hsa_status_t`).

#![allow(unsafe_code)]

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use runtime::executable::CodeObjectReader;
use runtime::{Error, Executable, Queue, Runtime, Signal, SignalGroup, Status};

use crate::ffi::hsa_status_t;

/// A queue created through the C API, with the address C knows it by.
pub(crate) struct QueueEntry {
    pub(crate) queue: Queue,
}

/// A soft queue (`hsa_soft_queue_create`): its `amd_queue_t` (the
/// `hsa_queue_t *` C holds is its address) and its ring's allocation.
pub(crate) struct SoftQueue {
    pub(crate) amd: Box<aql::queue::AmdQueue>,
    pub(crate) ring: u64,
}

/// A queue of either kind, for the index operations.
pub(crate) enum AnyQueue {
    /// An AQL queue of the runtime.
    Hw(Arc<QueueEntry>),
    /// A soft queue.
    Soft(Arc<SoftQueue>),
}

impl AnyQueue {
    /// The queue's `amd_queue_t`.
    pub(crate) fn amd(&self) -> &aql::queue::AmdQueue {
        match self {
            // SAFETY: the runtime queue's amd_queue_t, CPU-mapped and
            // initialised while the queue (held by the entry) lives.
            AnyQueue::Hw(q) => unsafe { &*(q.queue.address() as *const aql::queue::AmdQueue) },
            AnyQueue::Soft(s) => &s.amd,
        }
    }
}

/// A deallocation callback (`hsa_amd_register_deallocation_callback`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Notifier {
    /// The pointer it was registered with (passed back to it).
    pub(crate) ptr: usize,
    /// The callback.
    pub(crate) callback: usize,
    /// Its user data.
    pub(crate) user_data: usize,
}

/// A code object loaded through the C API (`hsa_loaded_code_object_t`).
pub(crate) struct Loaded {
    /// The executable's handle.
    pub(crate) executable: u64,
    /// Its position in the executable's loaded code objects.
    pub(crate) index: usize,
    /// The bytes it was loaded from (the loader extension's storage).
    pub(crate) reader: CodeObjectReader,
}

/// Host memory locks. The runtime locks non-overlapping page ranges; ROCr
/// (libhsakmt) lets locks overlap. A C lock takes a reference on every
/// runtime block of its pages, locking the pages no block covers yet; a
/// block is unlocked in the runtime when its last reference goes.
#[derive(Default)]
pub(crate) struct Locks {
    /// Host pointer -> the blocks of each lock of it (most recent last).
    pub(crate) by_ptr: HashMap<u64, Vec<Vec<u64>>>,
    /// Runtime block start -> references.
    pub(crate) refs: HashMap<u64, u32>,
}

/// The objects of one `hsa_init` .. last `hsa_shut_down` span.
pub(crate) struct Ctx {
    pub(crate) rt: Runtime,
    /// Signals C created, by handle: the library holds them until
    /// `hsa_signal_destroy` (or the last shut-down).
    pub(crate) signals: Mutex<HashMap<u64, Signal>>,
    pub(crate) groups: Mutex<HashMap<u64, SignalGroup>>,
    /// Queues by `hsa_queue_t *`.
    pub(crate) queues: Mutex<HashMap<u64, Arc<QueueEntry>>>,
    /// The same queues by doorbell signal handle (a store rings the doorbell).
    pub(crate) doorbells: Mutex<HashMap<u64, Arc<QueueEntry>>>,
    /// Soft queues by `hsa_queue_t *`.
    pub(crate) soft_queues: Mutex<HashMap<u64, Arc<SoftQueue>>>,
    pub(crate) executables: Mutex<HashMap<u64, Arc<Executable>>>,
    pub(crate) readers: Mutex<HashMap<u64, CodeObjectReader>>,
    /// Deprecated `hsa_code_object_t`s (`hsa_code_object_deserialize`).
    pub(crate) code_objects: Mutex<HashMap<u64, CodeObjectReader>>,
    pub(crate) loaded: Mutex<HashMap<u64, Loaded>>,
    /// `hsa_amd_pointer_info_set_userdata`, by allocation start.
    pub(crate) user_data: Mutex<HashMap<u64, usize>>,
    /// Deallocation callbacks, by allocation start.
    pub(crate) notifiers: Mutex<HashMap<u64, Vec<Notifier>>>,
    /// `hsa_amd_memory_lock`s by host pointer (a stack: the same pointer
    /// may be locked again), each the runtime lock blocks it holds.
    pub(crate) locks: Mutex<Locks>,
    /// `hsa_amd_memory_type_t` of each `hsa_amd_vmem_handle_create` handle
    /// (ROCr 6's `hsa_amd_vmem_get_alloc_properties_from_handle` answers it).
    pub(crate) vmem_types: Mutex<HashMap<u64, u32>>,
    pub(crate) next_handle: AtomicU64,
}

/// Locks a table, whatever a panicking holder left (the tables stay
/// consistent: every update is one insert or remove).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Ctx {
    fn new(rt: Runtime) -> Self {
        // A C program sees a fault no handler took as on ROCr: its message,
        // then abort().
        rt.set_abort_on_unhandled_memory_fault(true);
        Self {
            rt,
            signals: Mutex::default(),
            groups: Mutex::default(),
            queues: Mutex::default(),
            doorbells: Mutex::default(),
            soft_queues: Mutex::default(),
            executables: Mutex::default(),
            readers: Mutex::default(),
            code_objects: Mutex::default(),
            loaded: Mutex::default(),
            user_data: Mutex::default(),
            notifiers: Mutex::default(),
            locks: Mutex::default(),
            vmem_types: Mutex::default(),
            next_handle: AtomicU64::new(1),
        }
    }

    /// A fresh handle value for the library's own tables (never 0, never reused).
    pub(crate) fn new_handle(&self) -> u64 {
        self.next_handle.fetch_add(1, Ordering::Relaxed)
    }

    /// The live signal of a handle.
    pub(crate) fn signal(&self, handle: u64) -> Result<Signal, Error> {
        // The null handle is an argument error in ROCr's entry points
        // (hsa_signal_destroy, async copies, profiling, IPC signals: AMD's
        // ROCr answers INVALID_ARGUMENT on the sim, tests/c/status_diff.c);
        // a handle that is no signal is INVALID_SIGNAL.
        if handle == 0 {
            return Err(Error::invalid_argument("the signal handle is 0"));
        }
        if let Some(s) = lock(&self.signals).get(&handle) {
            return Ok(s.clone());
        }
        // Signals the runtime made itself (queue inactive signals, ...).
        self.rt.signal_from_handle(handle)
    }

    /// The queue of an `hsa_queue_t *`.
    pub(crate) fn queue(&self, addr: u64) -> Result<Arc<QueueEntry>, Error> {
        lock(&self.queues).get(&addr).cloned().ok_or_else(|| {
            Error::new(
                Status::InvalidQueue,
                format!("hsa_queue_t {addr:#x} is no live queue of this runtime"),
            )
        })
    }

    /// The queue (AQL or soft) of an `hsa_queue_t *`.
    pub(crate) fn any_queue(&self, addr: u64) -> Result<AnyQueue, Error> {
        if let Some(s) = lock(&self.soft_queues).get(&addr) {
            return Ok(AnyQueue::Soft(Arc::clone(s)));
        }
        self.queue(addr).map(AnyQueue::Hw)
    }

    /// The executable of a handle.
    pub(crate) fn executable(&self, handle: u64) -> Result<Arc<Executable>, Error> {
        lock(&self.executables)
            .get(&handle)
            .cloned()
            .ok_or_else(|| {
                Error::new(
                    Status::InvalidExecutable,
                    format!("hsa_executable_t {handle:#x} is no live executable"),
                )
            })
    }

    /// Releases everything C still holds (the last `hsa_shut_down`).
    fn tear_down(&self) {
        let queues: Vec<_> = lock(&self.queues).drain().collect();
        lock(&self.doorbells).clear();
        for (_, s) in lock(&self.soft_queues).drain() {
            let _ = self.rt.free(s.ring);
        }
        drop(queues);
        lock(&self.executables).clear();
        lock(&self.readers).clear();
        lock(&self.code_objects).clear();
        lock(&self.loaded).clear();
        lock(&self.groups).clear();
        let signals: Vec<_> = lock(&self.signals).drain().collect();
        for (_, s) in signals {
            s.destroy();
        }
    }
}

/// The `hsa_init` count and the open context.
static STATE: Mutex<Option<(u32, Arc<Ctx>)>> = Mutex::new(None);

/// `hsa_init`: whether this call opened the runtime.
pub(crate) fn init() -> Result<bool, Error> {
    let mut g = lock(&STATE);
    if let Some((count, _)) = g.as_mut() {
        *count = count
            .checked_add(1)
            .ok_or_else(|| Error::new(Status::RefcountOverflow, "hsa_init called 2^32 times"))?;
        return Ok(false);
    }
    // The list of loaded code objects lives in the exported
    // _amdgpu_r_debug, as in ROCr's library.
    runtime::rdebug::publish_at(crate::exports::r_debug());
    let rt = Runtime::init()?;
    *g = Some((1, Arc::new(Ctx::new(rt))));
    Ok(true)
}

/// `hsa_shut_down`: whether this call closed the runtime.
pub(crate) fn shut_down() -> Result<bool, Error> {
    let mut g = lock(&STATE);
    let Some((count, _)) = g.as_mut() else {
        return Err(not_initialized());
    };
    *count -= 1;
    if *count > 0 {
        return Ok(false);
    }
    let (_, ctx) = g.take().expect("checked above");
    drop(g);
    ctx.tear_down();
    Ok(true)
}

fn not_initialized() -> Error {
    Error::new(
        Status::NotInitialized,
        "the runtime is not initialised (hsa_init)",
    )
}

/// The open context (`HSA_STATUS_ERROR_NOT_INITIALIZED` before `hsa_init`).
pub(crate) fn ctx() -> Result<Arc<Ctx>, Error> {
    lock(&STATE)
        .as_ref()
        .map(|(_, c)| Arc::clone(c))
        .ok_or_else(not_initialized)
}

/// Whether `HSA_RS_CABI_LOG` asks for every failed call on stderr (read
/// at the first failure, which may come before `hsa_init`; a malformed
/// value logs, so that `hsa_init`'s error naming it is seen).
fn log_errors() -> bool {
    static LOG: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *LOG.get_or_init(|| {
        std::env::var("HSA_RS_CABI_LOG")
            .ok()
            .is_some_and(|v| runtime::flags::bool01(&v).unwrap_or(true))
    })
}

/// Runs one C API call: `f`'s `Ok` is the raw status returned (a callback's
/// status passes through), an `Err` its status; a panic is
/// `HSA_STATUS_ERROR` and never unwinds into C.
pub(crate) fn guard(name: &str, f: impl FnOnce() -> Result<hsa_status_t, Error>) -> hsa_status_t {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => {
            crate::trace::note_error(&e.message);
            if log_errors() {
                eprintln!("{name}: {e}");
            }
            e.status as hsa_status_t
        }
        Err(_) => {
            if log_errors() {
                eprintln!("{name}: panicked (HSA_STATUS_ERROR)");
            }
            Status::Error as hsa_status_t
        }
    }
}

/// Runs a call that returns a value, not a status (signal and queue
/// operations): `fallback` when it fails or panics.
pub(crate) fn guard_value<T>(name: &str, fallback: T, f: impl FnOnce() -> Result<T, Error>) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => {
            crate::trace::note_error(&e.message);
            if log_errors() {
                eprintln!("{name}: {e}");
            }
            fallback
        }
        Err(_) => {
            if log_errors() {
                eprintln!("{name}: panicked");
            }
            fallback
        }
    }
}

/// `HSA_STATUS_SUCCESS`.
pub(crate) const OK: Result<hsa_status_t, Error> = Ok(0);

/// An `INVALID_ARGUMENT` error for a NULL pointer argument.
pub(crate) fn null(what: &str) -> Error {
    Error::invalid_argument(format!("{what} is NULL"))
}

/// Writes `value` through the out-pointer `p` (`INVALID_ARGUMENT` if NULL).
///
/// # Safety
///
/// A non-NULL `p` points to writable memory for a `T` (the C caller's
/// contract).
pub(crate) unsafe fn put<T>(p: *mut T, value: T, what: &str) -> Result<(), Error> {
    if p.is_null() {
        return Err(null(what));
    }
    // SAFETY: non-NULL, writable for a T by the caller's contract;
    // unaligned writes are accepted (C may pass packed buffers).
    unsafe { p.write_unaligned(value) };
    Ok(())
}

/// Copies `bytes` to the caller's attribute buffer `value` (`INVALID_ARGUMENT` if NULL).
///
/// # Safety
///
/// A non-NULL `value` points to at least `bytes.len()` writable bytes: the
/// attribute's size in the header.
pub(crate) unsafe fn put_bytes(value: *mut core::ffi::c_void, bytes: &[u8]) -> Result<(), Error> {
    if value.is_null() {
        return Err(null("value"));
    }
    // SAFETY: see the function's contract.
    unsafe {
        core::ptr::copy_nonoverlapping(bytes.as_ptr(), value.cast::<u8>(), bytes.len());
    }
    Ok(())
}

/// A C string argument (`INVALID_ARGUMENT` if NULL or not UTF-8).
///
/// # Safety
///
/// A non-NULL `s` is a NUL-terminated string.
pub(crate) unsafe fn c_str<'a>(s: *const core::ffi::c_char, what: &str) -> Result<&'a str, Error> {
    if s.is_null() {
        return Err(null(what));
    }
    // SAFETY: NUL-terminated by the caller's contract.
    unsafe { core::ffi::CStr::from_ptr(s) }
        .to_str()
        .map_err(|_| Error::invalid_argument(format!("{what} is not UTF-8")))
}

/// An optional C string (NULL: none).
///
/// # Safety
///
/// As [`c_str`].
pub(crate) unsafe fn opt_c_str<'a>(
    s: *const core::ffi::c_char,
    what: &str,
) -> Result<Option<&'a str>, Error> {
    if s.is_null() {
        Ok(None)
    } else {
        // SAFETY: forwarded.
        unsafe { c_str(s, what) }.map(Some)
    }
}

/// A C array argument of `n` elements (NULL allowed only when `n` is 0).
///
/// # Safety
///
/// A non-NULL `p` points to `n` readable `T`s.
pub(crate) unsafe fn slice<'a, T>(p: *const T, n: usize, what: &str) -> Result<&'a [T], Error> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(null(what));
    }
    // SAFETY: see the contract.
    Ok(unsafe { core::slice::from_raw_parts(p, n) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_hsa_status_error_and_an_error_its_status() {
        let s = guard("test", || -> Result<hsa_status_t, Error> { panic!("boom") });
        assert_eq!(s, Status::Error as hsa_status_t);
        let s = guard_value("test", 7u64, || -> Result<u64, Error> { panic!("boom") });
        assert_eq!(s, 7);
        let s = guard("test", || Err(Error::new(Status::InvalidQueue, "x")));
        assert_eq!(s, Status::InvalidQueue as hsa_status_t);
        // A callback's status passes through.
        assert_eq!(guard("test", || Ok(0x1)), 0x1);
    }

    #[test]
    fn null_out_pointers_are_invalid_argument() {
        // SAFETY: NULL is checked before any write.
        let e = unsafe { put(core::ptr::null_mut::<u32>(), 1, "value") }.unwrap_err();
        assert_eq!(e.status, Status::InvalidArgument);
        // SAFETY: as above.
        let e = unsafe { put_bytes(core::ptr::null_mut(), &[1, 2]) }.unwrap_err();
        assert_eq!(e.status, Status::InvalidArgument);
        // SAFETY: as above.
        let e = unsafe { c_str(core::ptr::null(), "name") }.unwrap_err();
        assert_eq!(e.status, Status::InvalidArgument);
    }
}
