//! `_amdgpu_r_debug`: the list of loaded GPU code objects a debugger
//! reads, in glibc's `struct r_debug` / `struct link_map` form (`<link.h>`),
//! as ROCr's loader keeps it (`loader/executable.cpp`:
//! `AddCodeObjectInfoIntoDebugMap`, `FreezeExecutable`,
//! `DestroyExecutable`).
//!
//! Each code object of a frozen executable is one `link_map` entry:
//! `l_addr` its load delta (added to an ELF virtual address gives the
//! agent address), `l_name` its URI (`file://PATH#offset=..&size=..` or
//! `memory://PID#offset=0x..&size=..`), `l_ld` null. Freezing appends the
//! executable's code objects in load order, destroying it removes them;
//! around each change `r_state` goes to `RT_ADD` / `RT_DELETE`, the
//! function at `r_brk` is called (a debugger's breakpoint), the list
//! changes, `r_state` returns to `RT_CONSISTENT` and `r_brk` is called
//! again.
//!
//! The runtime hands the address of `_amdgpu_r_debug` to the driver with
//! `AMDKFD_IOC_RUNTIME_ENABLE` (ROCr's `KfdDriver::Init`), which gives it
//! to a debugger attaching with `KFD_IOC_DBG_TRAP_ENABLE`.
//!
//! `r_version` says which trap handler ABI the debugger may rely on
//! (ROCr's `r_version history` comment): 1, the initial protocol. The
//! runtime's trap handler (`runtime/trap/trap_handler.s`) records none of
//! what versions 2 and later add (the halt reason, trap id and PC in
//! `ttmp11`/`ttmp6`, parked waves), so it does not claim them; ROCr 6.x
//! publishes 11 with its own handler.
#![allow(unsafe_code)]

use core::ffi::{c_char, c_int, c_void};
use core::sync::atomic::{AtomicI32, AtomicPtr, AtomicU64, Ordering};
use std::ffi::CString;
use std::sync::Mutex;

/// glibc `struct link_map`'s public part (`<link.h>`): one loaded code
/// object.
#[repr(C)]
#[derive(Debug)]
pub struct LinkMap {
    /// The load delta.
    pub l_addr: usize,
    /// The code object's URI (NUL-terminated).
    pub l_name: *mut c_char,
    /// Its dynamic section: null (as in ROCr).
    pub l_ld: *mut c_void,
    /// The next entry, or null.
    pub l_next: *mut LinkMap,
    /// The previous entry, or null.
    pub l_prev: *mut LinkMap,
}

const _: () = {
    assert!(core::mem::size_of::<LinkMap>() == 40);
    assert!(core::mem::offset_of!(LinkMap, l_addr) == 0);
    assert!(core::mem::offset_of!(LinkMap, l_name) == 8);
    assert!(core::mem::offset_of!(LinkMap, l_ld) == 16);
    assert!(core::mem::offset_of!(LinkMap, l_next) == 24);
    assert!(core::mem::offset_of!(LinkMap, l_prev) == 32);
};

/// `r_state`: the list is consistent (`RT_CONSISTENT`).
pub const RT_CONSISTENT: c_int = 0;
/// `r_state`: entries are being added (`RT_ADD`).
pub const RT_ADD: c_int = 1;
/// `r_state`: entries are being removed (`RT_DELETE`).
pub const RT_DELETE: c_int = 2;

/// The `r_version` published ([module documentation](self)).
pub const R_VERSION: c_int = 1;

/// glibc `struct r_debug` (`<link.h>`). The fields the runtime changes
/// while a debugger may read them are atomics.
#[repr(C)]
#[derive(Debug)]
pub struct RDebug {
    /// `r_version`.
    pub r_version: c_int,
    /// `r_map`: the first entry, or null.
    pub r_map: AtomicPtr<LinkMap>,
    /// `r_brk`: called around every change of the list.
    pub r_brk: Option<extern "C" fn()>,
    /// `r_state`: [`RT_CONSISTENT`], [`RT_ADD`] or [`RT_DELETE`].
    pub r_state: AtomicI32,
    /// `r_ldbase`: 0.
    pub r_ldbase: usize,
}

const _: () = {
    assert!(core::mem::size_of::<RDebug>() == 40);
    assert!(core::mem::offset_of!(RDebug, r_version) == 0);
    assert!(core::mem::offset_of!(RDebug, r_map) == 8);
    assert!(core::mem::offset_of!(RDebug, r_brk) == 16);
    assert!(core::mem::offset_of!(RDebug, r_state) == 24);
    assert!(core::mem::offset_of!(RDebug, r_ldbase) == 32);
};

/// Counts the calls of [`loader_debug_state`] (its side effect, which
/// also keeps the call from being optimised away).
static BREAKPOINT_CALLS: AtomicU64 = AtomicU64::new(0);

/// The function at `r_brk`: a debugger sets a breakpoint on it to learn
/// of every change of the list (ROCr's `_loader_debug_state`).
#[inline(never)]
pub extern "C" fn loader_debug_state() {
    BREAKPOINT_CALLS.fetch_add(1, Ordering::SeqCst);
}

/// How many times `r_brk` was called (two per change of the list).
pub fn breakpoint_calls() -> u64 {
    BREAKPOINT_CALLS.load(Ordering::SeqCst)
}

/// The runtime's own `r_debug`, used unless [`publish_at`] named another
/// first.
pub static R_DEBUG: RDebug = RDebug::new();

impl RDebug {
    /// An empty, consistent list at version [`R_VERSION`] whose `r_brk` is
    /// [`loader_debug_state`].
    pub const fn new() -> Self {
        Self {
            r_version: R_VERSION,
            r_map: AtomicPtr::new(core::ptr::null_mut()),
            r_brk: Some(loader_debug_state),
            r_state: AtomicI32::new(RT_CONSISTENT),
            r_ldbase: 0,
        }
    }
}

impl Default for RDebug {
    fn default() -> Self {
        Self::new()
    }
}

/// The `r_debug` the list is kept in, chosen at its first use.
static TARGET: std::sync::OnceLock<&'static RDebug> = std::sync::OnceLock::new();

/// The `r_debug` in use: the one [`publish_at`] gave, else [`R_DEBUG`].
pub fn r_debug() -> &'static RDebug {
    TARGET.get_or_init(|| &R_DEBUG)
}

/// Keeps the list in `r` (the C ABI library's exported
/// `_amdgpu_r_debug`) instead of [`R_DEBUG`]. Only before the first use
/// (the runtime's first open, the first executable): afterwards it
/// answers whether `r` is the one in use.
pub fn publish_at(r: &'static RDebug) -> bool {
    core::ptr::eq(*TARGET.get_or_init(|| r), r)
}

/// The address of the `r_debug` in use (what `RUNTIME_ENABLE` is given).
pub fn address() -> u64 {
    core::ptr::from_ref(r_debug()) as u64
}

/// One entry and what it owns.
struct Entry {
    /// The executable it belongs to.
    executable: u32,
    /// Boxed so its address stays put while the list grows.
    node: Box<LinkMap>,
    /// Owns `node.l_name`.
    _name: CString,
}

// SAFETY: an entry's raw pointers point into the entry itself (its name)
// and to other entries of the same list; they are read and written only
// under `LIST`'s lock.
unsafe impl Send for Entry {}

/// The entries in list order.
static LIST: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

fn list() -> std::sync::MutexGuard<'static, Vec<Entry>> {
    LIST.lock().unwrap_or_else(|p| p.into_inner())
}

/// Links `entries` in order and publishes the head.
fn relink(entries: &mut [Entry]) {
    let ptrs: Vec<*mut LinkMap> = entries
        .iter_mut()
        .map(|e| core::ptr::from_mut(&mut *e.node))
        .collect();
    for (i, e) in entries.iter_mut().enumerate() {
        e.node.l_prev = if i == 0 {
            core::ptr::null_mut()
        } else {
            ptrs[i - 1]
        };
        e.node.l_next = ptrs.get(i + 1).copied().unwrap_or(core::ptr::null_mut());
    }
    r_debug().r_map.store(
        ptrs.first().copied().unwrap_or(core::ptr::null_mut()),
        Ordering::Release,
    );
}

/// Runs `change` on the list between the `state` and `RT_CONSISTENT`
/// breakpoints.
fn changing(state: c_int, change: impl FnOnce(&mut Vec<Entry>)) {
    let mut l = list();
    r_debug().r_state.store(state, Ordering::Release);
    loader_debug_state();
    change(&mut l);
    relink(&mut l);
    r_debug().r_state.store(RT_CONSISTENT, Ordering::Release);
    loader_debug_state();
}

/// Executable `executable` was frozen with these code objects (load delta,
/// URI), in load order: they are appended. A URI with a NUL is cut there.
pub(crate) fn add(executable: u32, code_objects: &[(i64, &str)]) {
    changing(RT_ADD, |l| {
        for &(delta, uri) in code_objects {
            let name = CString::new(uri.split('\0').next().unwrap_or("")).unwrap_or_default();
            let node = Box::new(LinkMap {
                l_addr: delta as usize,
                l_name: name.as_ptr().cast_mut(),
                l_ld: core::ptr::null_mut(),
                l_next: core::ptr::null_mut(),
                l_prev: core::ptr::null_mut(),
            });
            l.push(Entry {
                executable,
                node,
                _name: name,
            });
        }
    });
}

/// Executable `executable` is destroyed: its entries go. Nothing happens
/// (no breakpoint) when it has none listed (it was never frozen).
pub(crate) fn remove(executable: u32) {
    if !list().iter().any(|e| e.executable == executable) {
        return;
    }
    changing(RT_DELETE, |l| l.retain(|e| e.executable != executable));
}

/// One entry as a debugger reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeObjectEntry {
    /// `l_addr`: the load delta.
    pub l_addr: u64,
    /// `l_name`: the URI.
    pub l_name: String,
}

/// Walks the `r_map` of [`r_debug`] as a debugger does: every entry from the
/// head along `l_next`.
pub fn code_objects() -> Vec<CodeObjectEntry> {
    let l = list();
    let mut out = Vec::with_capacity(l.len());
    let mut p = r_debug().r_map.load(Ordering::Acquire);
    while !p.is_null() && out.len() < l.len() {
        // SAFETY: the list's pointers are those of `l`'s boxed nodes
        // (`relink`), alive while its lock is held.
        let n = unsafe { &*p };
        // SAFETY: `l_name` points to the entry's own NUL-terminated name,
        // owned by the entry as long as the node.
        let name = unsafe { std::ffi::CStr::from_ptr(n.l_name) };
        let (addr, name, next) = (
            n.l_addr as u64,
            name.to_string_lossy().into_owned(),
            n.l_next,
        );
        out.push(CodeObjectEntry {
            l_addr: addr,
            l_name: name,
        });
        p = next;
    }
    out
}

/// `HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED` (`linux/kfd_sysfs.h` of KFD
/// 1.13 and later; libhsakmt's `DebugSupportedFirmware`): the node's
/// firmware supports the debugger.
pub const CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED: u32 = 0x2000_0000;

/// The first KFD with `AMDKFD_IOC_RUNTIME_ENABLE` (libhsakmt
/// `HSA_RUNTIME_ENABLE_MIN_MINOR`).
pub const RUNTIME_ENABLE_SINCE: kfd::ioctl::KfdVersion = kfd::ioctl::KfdVersion::new(1, 13);

/// What `AMDKFD_IOC_RUNTIME_ENABLE` did when the runtime opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuntimeEnable {
    /// The driver took `_amdgpu_r_debug`; with `ttmp_setup` (HSA_ENABLE_DEBUG=1)
    /// it sets up every wave's trap temporaries for the debugger.
    Enabled {
        /// `KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK` was asked for.
        ttmp_setup: bool,
        /// The driver's `capabilities_mask`
        /// (`HSA_RUNTIME_ENABLE_CAPS_SUPPORTS_CORE_DUMP_MASK`).
        capabilities: u32,
    },
    /// Not called: the driver cannot (libhsakmt's
    /// `hsaKmtCheckRuntimeDebugSupport` answers `HSAKMT_STATUS_NOT_SUPPORTED`,
    /// which ROCr accepts); the reason.
    NotSupported(&'static str),
}

/// ROCr's `KfdDriver::Init`: `hsaKmtRuntimeEnable(&_amdgpu_r_debug,
/// HSA_ENABLE_DEBUG)`, before any queue. libhsakmt asks only a driver that
/// supports it (KFD 1.13 or later, and every GPU node's
/// [`CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED`]); its refusal fails `hsa_init`
/// (`-EBUSY`: the process is already enabled).
pub(crate) fn enable(
    driver: &dyn crate::driver::Driver,
    debug: bool,
) -> crate::status::Result<RuntimeEnable> {
    use kfd::ioctl::RuntimeEnableMode;
    if driver.version() < RUNTIME_ENABLE_SINCE {
        return Ok(RuntimeEnable::NotSupported(
            "the driver's KFD interface is older than 1.13",
        ));
    }
    let firmware = driver
        .topology()
        .nodes
        .iter()
        .filter(|n| n.is_gpu())
        .all(|n| {
            n.properties
                .capability
                .is_some_and(|c| c.contains(CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED))
        });
    if !firmware {
        return Ok(RuntimeEnable::NotSupported(
            "a GPU node's firmware does not support the debugger (no HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED)",
        ));
    }
    let mut mode = RuntimeEnableMode::ENABLE;
    if debug {
        mode |= RuntimeEnableMode::TTMP_SAVE;
    }
    let capabilities = driver
        .runtime_enable(address(), mode)
        .map_err(|e| crate::status::Error::driver("RUNTIME_ENABLE", e))?;
    Ok(RuntimeEnable::Enabled {
        ttmp_setup: debug,
        capabilities,
    })
}

/// ROCr's `KfdDriver::ShutDown`: `hsaKmtRuntimeDisable` (errors ignored,
/// as the process's queues are gone and nothing else depends on it).
pub(crate) fn disable(driver: &dyn crate::driver::Driver, state: RuntimeEnable) {
    if matches!(state, RuntimeEnable::Enabled { .. }) {
        let _ = driver.runtime_enable(0, kfd::ioctl::RuntimeEnableMode::empty());
    }
}
