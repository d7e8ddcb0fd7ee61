//! `hsa.h`: init, system, agents, caches, ISAs, regions, memory, queues and
//! the executable/code object API.

#![allow(unsafe_code)]
#![allow(non_camel_case_types)]
#![allow(clippy::missing_safety_doc)]
// Out-pointers of one C call are written under the one contract the call has.
#![allow(clippy::multiple_unsafe_ops_per_block)]

use core::ffi::{c_char, c_void};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use runtime::agent::Agent;
use runtime::executable::{
    CodeObjectReader, DefaultFloatRoundingMode, ExecutableInfo, ExecutableSymbol, Profile,
    SymbolInfo, SymbolInfoValue,
};
use runtime::info::Isa;
use runtime::{Error, MemoryPool, QueueKind, Status};

use crate::ffi::*;
use crate::state::{OK, QueueEntry, c_str, ctx, guard, lock, null, opt_c_str, put, put_bytes};

/// The agent of a C handle (`INVALID_AGENT` when it names none).
pub(crate) fn agent_of(c: &crate::state::Ctx, a: hsa_agent_t) -> Result<Agent, Error> {
    let agent = Agent::from_handle(a.handle).ok_or_else(|| {
        Error::new(
            Status::InvalidAgent,
            format!("hsa_agent_t {:#x} is no agent", a.handle),
        )
    })?;
    c.rt.agent(agent)?;
    Ok(agent)
}

/// The pool of a C handle (`status` when it names none).
pub(crate) fn pool_of(
    c: &crate::state::Ctx,
    handle: u64,
    status: Status,
) -> Result<MemoryPool, Error> {
    let bad = || Error::new(status, format!("{handle:#x} is no memory pool or region"));
    let p = MemoryPool::from_handle(handle).ok_or_else(bad)?;
    c.rt.pool(p).map_err(|_| bad())?;
    Ok(p)
}

fn isa_of(h: hsa_isa_t) -> Result<Isa, Error> {
    Isa::from_handle(h.handle).ok_or_else(|| {
        Error::new(
            Status::InvalidIsa,
            format!("hsa_isa_t {:#x} is no ISA", h.handle),
        )
    })
}

fn callback<F>(f: Option<F>) -> Result<F, Error> {
    f.ok_or_else(|| null("callback"))
}

/// Runs `cb` over `items` until it returns something else than success.
fn iterate<T>(
    items: impl IntoIterator<Item = T>,
    mut cb: impl FnMut(T) -> hsa_status_t,
) -> hsa_status_t {
    for i in items {
        let s = cb(i);
        if s != 0 {
            return s;
        }
    }
    0
}

// ---------------------------------------------------------------- init, system

/// `hsa_init`.
pub extern "C" fn hsa_init() -> hsa_status_t {
    guard("hsa_init", || {
        crate::trace::check()?;
        if crate::state::init()? {
            crate::tools::load(ctx()?.rt.flags());
        }
        OK
    })
}

/// `hsa_shut_down`.
pub extern "C" fn hsa_shut_down() -> hsa_status_t {
    guard("hsa_shut_down", || {
        if crate::state::shut_down()? {
            crate::tools::unload();
        }
        OK
    })
}

/// `hsa_system_get_info`.
pub unsafe extern "C" fn hsa_system_get_info(
    attribute: c_enum,
    value: *mut c_void,
) -> hsa_status_t {
    guard("hsa_system_get_info", || {
        let c = ctx()?;
        if value.is_null() {
            return Err(null("value"));
        }
        let v = c.rt.system_info_raw(attribute)?;
        // SAFETY: the caller's buffer holds the attribute's type.
        unsafe { put_bytes(value, &v.to_bytes()) }?;
        OK
    })
}

/// `hsa_iterate_agents`.
pub unsafe extern "C" fn hsa_iterate_agents(
    cb: iter_cb<hsa_agent_t>,
    data: *mut c_void,
) -> hsa_status_t {
    guard("hsa_iterate_agents", || {
        let c = ctx()?;
        let cb = callback(cb)?;
        let agents: Vec<Agent> = c.rt.agents().collect();
        drop(c);
        // SAFETY: the caller's callback, called as the header says.
        Ok(iterate(agents, |a| unsafe {
            cb(hsa_agent_t { handle: a.handle() }, data)
        }))
    })
}

/// `hsa_agent_get_info` (core and AMD attributes).
pub unsafe extern "C" fn hsa_agent_get_info(
    agent: hsa_agent_t,
    attribute: c_enum,
    value: *mut c_void,
) -> hsa_status_t {
    guard("hsa_agent_get_info", || {
        let c = ctx()?;
        if value.is_null() {
            return Err(null("value"));
        }
        let a = agent_of(&c, agent)?;
        let v = c.rt.agent_info_raw(a, attribute)?;
        // SAFETY: the caller's buffer holds the attribute's type.
        unsafe { put_bytes(value, &v.to_bytes()) }?;
        OK
    })
}

/// `hsa_agent_get_exception_policies`: no policies (ROCr's answer).
pub unsafe extern "C" fn hsa_agent_get_exception_policies(
    agent: hsa_agent_t,
    profile: c_enum,
    mask: *mut u16,
) -> hsa_status_t {
    guard("hsa_agent_get_exception_policies", || {
        let c = ctx()?;
        if mask.is_null() {
            return Err(null("mask"));
        }
        if profile > 1 {
            return Err(Error::invalid_argument(format!("profile {profile}")));
        }
        agent_of(&c, agent)?;
        // SAFETY: checked non-NULL.
        unsafe { put(mask, 0, "mask") }?;
        OK
    })
}

// ------------------------------------------------------------------- caches

/// The tag of cache handles: `CACH`, agent index, cache index.
const CACHE_TAG: u64 = 0x4341_4348 << 32;

/// The caches `hsa_agent_iterate_caches` lists, as ROCr's `InitCacheList`
/// keeps them: a GPU's HSA CU data caches, a CPU's CPU data caches (no
/// instruction cache), in topology order; each named `<agent name> L<level>`,
/// its size the topology's KiB figure (ROCr passes `CacheSize` through).
fn agent_caches(c: &crate::state::Ctx, a: Agent) -> Result<Vec<(String, u8, u32)>, Error> {
    use kfd::topology::CacheType;
    let r = c.rt.agent(a)?;
    let kind = if r.is_gpu() {
        CacheType::HSACU
    } else {
        CacheType::CPU
    };
    Ok(r.node
        .caches
        .iter()
        .filter(|k| k.cache_type.contains(kind) && !k.cache_type.contains(CacheType::INSTRUCTION))
        .map(|k| {
            (
                format!("{} L{}", r.name, k.level),
                k.level as u8,
                k.size_kib,
            )
        })
        .collect())
}

/// The agent of a cache handle's index field.
fn agent_at(c: &crate::state::Ctx, index: usize) -> Option<Agent> {
    c.rt.agents().nth(index)
}

/// `hsa_agent_iterate_caches`.
pub unsafe extern "C" fn hsa_agent_iterate_caches(
    agent: hsa_agent_t,
    cb: iter_cb<hsa_cache_t>,
    data: *mut c_void,
) -> hsa_status_t {
    guard("hsa_agent_iterate_caches", || {
        let c = ctx()?;
        let a = agent_of(&c, agent)?;
        let cb = callback(cb)?;
        let n = agent_caches(&c, a)?.len() as u64;
        drop(c);
        let h = |i: u64| CACHE_TAG | (a.index() as u64) << 16 | i;
        // SAFETY: the caller's callback.
        Ok(iterate(0..n, |i| unsafe {
            cb(hsa_cache_t { handle: h(i) }, data)
        }))
    })
}

/// Cache names live as long as the process (ROCr hands out a pointer to
/// its cache object's name).
static CACHE_NAMES: std::sync::Mutex<Vec<&'static core::ffi::CStr>> =
    std::sync::Mutex::new(Vec::new());

fn static_name(name: String) -> &'static core::ffi::CStr {
    let mut names = lock(&CACHE_NAMES);
    if let Some(n) = names.iter().find(|n| n.to_bytes() == name.as_bytes()) {
        return n;
    }
    let n: &'static core::ffi::CStr = Box::leak(
        std::ffi::CString::new(name)
            .unwrap_or_default()
            .into_boxed_c_str(),
    );
    names.push(n);
    n
}

/// `hsa_cache_get_info`, as ROCr's `Cache::GetInfo` answers: `NAME_LENGTH`
/// (`uint32_t`, without the NUL), `NAME` (ROCr writes a `const char*` to
/// the name, not the characters), `LEVEL` (`uint8_t`), `SIZE` (`uint32_t`).
pub unsafe extern "C" fn hsa_cache_get_info(
    cache: hsa_cache_t,
    attribute: c_enum,
    value: *mut c_void,
) -> hsa_status_t {
    guard("hsa_cache_get_info", || {
        let c = ctx()?;
        let bad = || {
            Error::new(
                Status::InvalidCache,
                format!("hsa_cache_t {:#x} is no cache", cache.handle),
            )
        };
        if cache.handle & !0xffff_ffff != CACHE_TAG {
            return Err(bad());
        }
        let agent = agent_at(&c, ((cache.handle >> 16) & 0xffff) as usize).ok_or_else(bad)?;
        let caches = agent_caches(&c, agent).map_err(|_| bad())?;
        let (name, level, size) = caches
            .into_iter()
            .nth((cache.handle & 0xffff) as usize)
            .ok_or_else(bad)?;
        if value.is_null() {
            return Err(null("value"));
        }
        let bytes: Vec<u8> = match attribute {
            0 => (name.len() as u32).to_ne_bytes().to_vec(),
            1 => (static_name(name).as_ptr() as u64).to_ne_bytes().to_vec(),
            2 => vec![level],
            3 => size.to_ne_bytes().to_vec(),
            _ => {
                return Err(Error::invalid_argument(format!(
                    "{attribute:#x} is no cache attribute"
                )));
            }
        };
        // SAFETY: the caller's buffer holds the attribute's type.
        unsafe { put_bytes(value, &bytes) }?;
        OK
    })
}

// ---------------------------------------------------------------- extensions

/// `HSA_EXTENSION_*` names.
fn extension_name(ext: u16) -> Option<&'static core::ffi::CStr> {
    Some(match ext {
        0 => c"HSA_EXTENSION_FINALIZER",
        1 => c"HSA_EXTENSION_IMAGES",
        2 => c"HSA_EXTENSION_PERFORMANCE_COUNTERS",
        3 => c"HSA_EXTENSION_PROFILING_EVENTS",
        0x200 => c"HSA_EXTENSION_AMD_PROFILER",
        0x201 => c"HSA_EXTENSION_AMD_LOADER",
        0x202 => c"HSA_EXTENSION_AMD_AQLPROFILE",
        _ => return None,
    })
}

/// Whether `ext` is in the ranges ROCr checks (`HSA_EXTENSION_STD_LAST` = 3,
/// AMD 0x200..=0x202).
fn extension_in_range(ext: u16) -> bool {
    ext <= 3 || (0x200..=0x202).contains(&ext)
}

/// `hsa_extension_get_name`.
pub unsafe extern "C" fn hsa_extension_get_name(
    extension: u16,
    name: *mut *const c_char,
) -> hsa_status_t {
    guard("hsa_extension_get_name", || {
        ctx()?;
        if name.is_null() {
            return Err(null("name"));
        }
        match extension_name(extension) {
            Some(n) => {
                // SAFETY: non-NULL.
                unsafe { put(name, n.as_ptr(), "name") }?;
                OK
            }
            None => {
                // SAFETY: non-NULL.
                unsafe { put(name, c"HSA_EXTENSION_INVALID".as_ptr(), "name") }?;
                Err(Error::invalid_argument(format!("extension {extension}")))
            }
        }
    })
}

/// `hsa_system_extension_supported`: ROCr's rule (a version not above 1.0).
pub unsafe extern "C" fn hsa_system_extension_supported(
    extension: u16,
    version_major: u16,
    version_minor: u16,
    result: *mut bool,
) -> hsa_status_t {
    guard("hsa_system_extension_supported", || {
        ctx()?;
        if !extension_in_range(extension) || result.is_null() {
            return Err(Error::invalid_argument(
                "extension out of range or result NULL",
            ));
        }
        let yes = !matches!(extension, 2 | 3) && version_major <= 1 && version_minor == 0;
        // SAFETY: non-NULL.
        unsafe { put(result, yes, "result") }?;
        OK
    })
}

/// `hsa_system_major_extension_supported`: images, finalizer, the AMD
/// loader and aqlprofile at major version 1 (ROCr's answers; images and
/// the finalizer then answer `NOT_INITIALIZED`, as ROCr without those
/// libraries).
pub unsafe extern "C" fn hsa_system_major_extension_supported(
    extension: u16,
    version_major: u16,
    version_minor: *mut u16,
    result: *mut bool,
) -> hsa_status_t {
    guard("hsa_system_major_extension_supported", || {
        ctx()?;
        if version_minor.is_null() || result.is_null() {
            return Err(null("version_minor or result"));
        }
        let yes = version_major == 1 && matches!(extension, 0 | 1 | 0x201 | 0x202);
        // SAFETY: both non-NULL.
        unsafe {
            if yes {
                put(version_minor, 0, "version_minor")?;
            }
            put(result, yes, "result")?;
        }
        OK
    })
}

/// `hsa_system_get_extension_table`: the table of `version_minor`'s size.
pub unsafe extern "C" fn hsa_system_get_extension_table(
    extension: u16,
    version_major: u16,
    version_minor: u16,
    table: *mut c_void,
) -> hsa_status_t {
    let len = crate::ext::table_length(extension, version_major, version_minor);
    // SAFETY: forwarded.
    unsafe { hsa_system_get_major_extension_table(extension, version_major, len, table) }
}

/// `hsa_system_get_major_extension_table`.
pub unsafe extern "C" fn hsa_system_get_major_extension_table(
    extension: u16,
    version_major: u16,
    table_length: usize,
    table: *mut c_void,
) -> hsa_status_t {
    guard("hsa_system_get_major_extension_table", || {
        ctx()?;
        if table.is_null() {
            return Err(null("table"));
        }
        if table_length == 0 {
            return Err(Error::invalid_argument("table_length 0"));
        }
        // SAFETY: the caller's table has table_length bytes.
        unsafe { crate::ext::copy_table(extension, version_major, table_length, table) }
    })
}

/// `hsa_agent_extension_supported`.
pub unsafe extern "C" fn hsa_agent_extension_supported(
    extension: u16,
    agent: hsa_agent_t,
    version_major: u16,
    version_minor: u16,
    result: *mut bool,
) -> hsa_status_t {
    guard("hsa_agent_extension_supported", || {
        let c = ctx()?;
        if !extension_in_range(extension) || result.is_null() {
            return Err(Error::invalid_argument(
                "extension out of range or result NULL",
            ));
        }
        // SAFETY: non-NULL.
        unsafe { put(result, false, "result") }?;
        let a = agent_of(&c, agent)?;
        let yes = c.rt.agent(a)?.is_gpu() && version_major <= 1 && version_minor == 0;
        // SAFETY: non-NULL.
        unsafe { put(result, yes, "result") }?;
        OK
    })
}

/// `hsa_agent_major_extension_supported`.
pub unsafe extern "C" fn hsa_agent_major_extension_supported(
    extension: u16,
    agent: hsa_agent_t,
    version_major: u16,
    version_minor: *mut u16,
    result: *mut bool,
) -> hsa_status_t {
    guard("hsa_agent_major_extension_supported", || {
        let c = ctx()?;
        if !extension_in_range(extension) || result.is_null() {
            return Err(Error::invalid_argument(
                "extension out of range or result NULL",
            ));
        }
        // SAFETY: non-NULL.
        unsafe { put(result, false, "result") }?;
        let a = agent_of(&c, agent)?;
        if c.rt.agent(a)?.is_gpu() && version_major <= 1 {
            // SAFETY: the caller's out-pointers.
            unsafe {
                put(version_minor, 0, "version_minor")?;
                put(result, true, "result")?;
            }
        }
        OK
    })
}

// -------------------------------------------------------------------- queues

/// `hsa_queue_create`.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hsa_queue_create(
    agent: hsa_agent_t,
    size: u32,
    type_: c_enum,
    cb: queue_error_cb,
    data: *mut c_void,
    private_segment_size: u32,
    _group_segment_size: u32,
    queue: *mut *mut c_void,
) -> hsa_status_t {
    guard("hsa_queue_create", || {
        let c = ctx()?;
        if queue.is_null() || size == 0 || !size.is_power_of_two() || type_ > 2 {
            return Err(Error::invalid_argument(
                "queue NULL, size not a power of two, or type unknown",
            ));
        }
        let kind = match type_ {
            0 => QueueKind::Multiple,
            1 => QueueKind::Single,
            _ => {
                return Err(Error::new(
                    Status::InvalidQueueCreation,
                    "HSA_QUEUE_TYPE_COOPERATIVE queues are not implemented",
                ));
            }
        };
        let a = agent_of(&c, agent)?;
        let addr = Arc::new(AtomicU64::new(0));
        let callback = match cb {
            Some(f) => {
                let addr = Arc::clone(&addr);
                let data = data as usize;
                Some(Box::new(move |status: Status, _id: u64| {
                    // SAFETY: the caller's callback with its data, as registered.
                    unsafe {
                        f(
                            status as hsa_status_t,
                            addr.load(Ordering::Acquire) as *mut c_void,
                            data as *mut c_void,
                        )
                    }
                }) as runtime::queue::ErrorCallback)
            }
            None if c.rt.flags().enable_queue_fault_message => {
                Some(default_error_handler(Arc::clone(&addr)))
            }
            None => None,
        };
        let q =
            c.rt.create_queue(a, size, kind, callback, private_segment_size)?;
        let va = q.address();
        addr.store(va, Ordering::Release);
        let doorbell = q.doorbell_signal();
        let entry = Arc::new(QueueEntry { queue: q });
        lock(&c.queues).insert(va, Arc::clone(&entry));
        lock(&c.doorbells).insert(doorbell, entry);
        // SAFETY: checked non-NULL.
        unsafe { put(queue, va as *mut c_void, "queue") }?;
        OK
    })
}

/// ROCr's `Queue::DefaultErrorHandler`, the error callback of a queue
/// created without one (while `HSA_ENABLE_QUEUE_FAULT_MESSAGE` is not 0):
/// "Queue at %p inactivated due to async error:\n\t<status string>\n" on
/// stderr, then `abort()`. A GPU memory fault or hardware exception, which
/// reaches a queue's callback here but never ROCr's, goes the system event
/// way instead (ROCr's message and abort there).
fn default_error_handler(addr: Arc<AtomicU64>) -> runtime::queue::ErrorCallback {
    Box::new(move |status: Status, _id: u64| {
        if status == runtime::events::FAULT_STATUS || status == runtime::events::HW_EXCEPTION_STATUS
        {
            return;
        }
        let text = crate::ext::status_text(status as hsa_status_t)
            .and_then(|s| s.to_str().ok())
            .unwrap_or("UNKNOWN ERROR");
        eprint!(
            "Queue at {:#x} inactivated due to async error:\n\t{text}\n",
            addr.load(Ordering::Acquire)
        );
        std::process::abort();
    })
}

/// `hsa_soft_queue_create` (ROCr's `HostQueue`): an `amd_queue_t` in host
/// memory whose ring of `size` packets comes from `region` and whose
/// doorbell is the caller's signal; nothing processes it but the caller
/// (agent dispatch).
pub unsafe extern "C" fn hsa_soft_queue_create(
    region: hsa_region_t,
    size: u32,
    type_: c_enum,
    features: u32,
    doorbell_signal: hsa_signal_t,
    queue: *mut *mut c_void,
) -> hsa_status_t {
    guard("hsa_soft_queue_create", || {
        let c = ctx()?;
        if queue.is_null()
            || region.handle == 0
            || doorbell_signal.handle == 0
            || !size.is_power_of_two()
            || type_ > 1
            || features == 0
        {
            return Err(Error::invalid_argument(
                "queue NULL, region or doorbell 0, size not a power of two, type or features invalid",
            ));
        }
        let r = pool_of(&c, region.handle, Status::InvalidRegion)?;
        c.signal(doorbell_signal.handle)?;
        let bytes = u64::from(size)
            .checked_mul(64)
            .ok_or_else(|| Error::invalid_argument("queue size overflows"))?;
        let ring = c.rt.allocate(r, bytes)?;
        let mut amd = Box::new(aql::queue::AmdQueue::zeroed());
        amd.hsa_queue.type_ = type_;
        amd.hsa_queue.features = features;
        amd.hsa_queue.base_address = ring;
        amd.hsa_queue.doorbell_signal = aql::SignalHandle {
            handle: doorbell_signal.handle,
        };
        amd.hsa_queue.size = size;
        amd.hsa_queue.id = c.new_handle() | 1 << 63;
        let addr = &*amd as *const aql::queue::AmdQueue as u64;
        lock(&c.soft_queues).insert(addr, Arc::new(crate::state::SoftQueue { amd, ring }));
        // SAFETY: checked non-NULL.
        unsafe { put(queue, addr as *mut c_void, "queue") }?;
        OK
    })
}

/// `hsa_queue_destroy`.
pub unsafe extern "C" fn hsa_queue_destroy(queue: *mut c_void) -> hsa_status_t {
    guard("hsa_queue_destroy", || {
        let c = ctx()?;
        if queue.is_null() {
            return Err(null("queue"));
        }
        if let Some(soft) = lock(&c.soft_queues).remove(&(queue as u64)) {
            c.rt.free(soft.ring)?;
            return OK;
        }
        let e = lock(&c.queues).remove(&(queue as u64)).ok_or_else(|| {
            Error::new(Status::InvalidQueue, format!("{queue:p} is no live queue"))
        })?;
        lock(&c.doorbells).remove(&e.queue.doorbell_signal());
        drop(e);
        OK
    })
}

/// `hsa_queue_inactivate`: the queue's packet processor stops
/// (`runtime::Queue::inactivate`); `hsa_queue_destroy` still frees it.
pub unsafe extern "C" fn hsa_queue_inactivate(queue: *mut c_void) -> hsa_status_t {
    guard("hsa_queue_inactivate", || {
        let c = ctx()?;
        if queue.is_null() {
            return Err(null("queue"));
        }
        c.queue(queue as u64)?.queue.inactivate()?;
        OK
    })
}

macro_rules! queue_index_fns {
    (load $($name:ident: $field:ident, $ord:expr;)*) => {$(
        #[doc = concat!("`", stringify!($name), "`.")]
        pub unsafe extern "C" fn $name(queue: *const c_void) -> u64 {
            crate::state::guard_value(stringify!($name), 0, || {
                let q = ctx()?.any_queue(queue as u64)?;
                Ok(q.amd().$field.load($ord))
            })
        }
    )*};
    (store $($name:ident: $ord:expr;)*) => {$(
        #[doc = concat!("`", stringify!($name), "`.")]
        pub unsafe extern "C" fn $name(queue: *const c_void, value: u64) {
            crate::state::guard_value(stringify!($name), (), || {
                let q = ctx()?.any_queue(queue as u64)?;
                q.amd().write_dispatch_id.store(value, $ord);
                Ok(())
            })
        }
    )*};
    (store_read $($name:ident: $ord:expr;)*) => {$(
        #[doc = concat!("`", stringify!($name), "`: on a soft queue the caller consumes the ",
            "packets and sets the read index; on an AQL queue the packet processor owns it ",
            "and, as in ROCr, the store is ignored.")]
        pub unsafe extern "C" fn $name(queue: *const c_void, value: u64) {
            crate::state::guard_value(stringify!($name), (), || {
                let q = ctx()?.any_queue(queue as u64)?;
                if let crate::state::AnyQueue::Soft(s) = &q {
                    s.amd.read_dispatch_id.store(value, $ord);
                }
                Ok(())
            })
        }
    )*};
    (cas $($name:ident: $ord:expr;)*) => {$(
        #[doc = concat!("`", stringify!($name), "`.")]
        pub unsafe extern "C" fn $name(queue: *const c_void, expected: u64, value: u64) -> u64 {
            crate::state::guard_value(stringify!($name), 0, || {
                let q = ctx()?.any_queue(queue as u64)?;
                let failure = match $ord {
                    Ordering::Release | Ordering::Relaxed => Ordering::Relaxed,
                    Ordering::AcqRel | Ordering::Acquire => Ordering::Acquire,
                    _ => Ordering::SeqCst,
                };
                match q.amd().write_dispatch_id.compare_exchange(expected, value, $ord, failure) {
                    Ok(v) | Err(v) => Ok(v),
                }
            })
        }
    )*};
    (add $($name:ident: $ord:expr;)*) => {$(
        #[doc = concat!("`", stringify!($name), "`.")]
        pub unsafe extern "C" fn $name(queue: *const c_void, value: u64) -> u64 {
            crate::state::guard_value(stringify!($name), 0, || {
                let q = ctx()?.any_queue(queue as u64)?;
                Ok(q.amd().write_dispatch_id.fetch_add(value, $ord))
            })
        }
    )*};
}

queue_index_fns! { load
    hsa_queue_load_read_index_acquire: read_dispatch_id, Ordering::Acquire;
    hsa_queue_load_read_index_scacquire: read_dispatch_id, Ordering::Acquire;
    hsa_queue_load_read_index_relaxed: read_dispatch_id, Ordering::Relaxed;
    hsa_queue_load_write_index_acquire: write_dispatch_id, Ordering::Acquire;
    hsa_queue_load_write_index_scacquire: write_dispatch_id, Ordering::Acquire;
    hsa_queue_load_write_index_relaxed: write_dispatch_id, Ordering::Relaxed;
}
queue_index_fns! { store
    hsa_queue_store_write_index_relaxed: Ordering::Relaxed;
    hsa_queue_store_write_index_release: Ordering::Release;
    hsa_queue_store_write_index_screlease: Ordering::Release;
}
queue_index_fns! { store_read
    hsa_queue_store_read_index_relaxed: Ordering::Relaxed;
    hsa_queue_store_read_index_release: Ordering::Release;
    hsa_queue_store_read_index_screlease: Ordering::Release;
}
queue_index_fns! { cas
    hsa_queue_cas_write_index_relaxed: Ordering::Relaxed;
    hsa_queue_cas_write_index_acquire: Ordering::Acquire;
    hsa_queue_cas_write_index_scacquire: Ordering::Acquire;
    hsa_queue_cas_write_index_release: Ordering::Release;
    hsa_queue_cas_write_index_screlease: Ordering::Release;
    hsa_queue_cas_write_index_acq_rel: Ordering::AcqRel;
    hsa_queue_cas_write_index_scacq_screl: Ordering::AcqRel;
}
queue_index_fns! { add
    hsa_queue_add_write_index_relaxed: Ordering::Relaxed;
    hsa_queue_add_write_index_acquire: Ordering::Acquire;
    hsa_queue_add_write_index_scacquire: Ordering::Acquire;
    hsa_queue_add_write_index_release: Ordering::Release;
    hsa_queue_add_write_index_screlease: Ordering::Release;
    hsa_queue_add_write_index_acq_rel: Ordering::AcqRel;
    hsa_queue_add_write_index_scacq_screl: Ordering::AcqRel;
}

// ------------------------------------------------------------ regions, memory

/// `hsa_agent_iterate_regions`.
pub unsafe extern "C" fn hsa_agent_iterate_regions(
    agent: hsa_agent_t,
    cb: iter_cb<hsa_region_t>,
    data: *mut c_void,
) -> hsa_status_t {
    guard("hsa_agent_iterate_regions", || {
        let c = ctx()?;
        let a = agent_of(&c, agent)?;
        let cb = callback(cb)?;
        let regions = c.rt.agent_regions(a)?;
        drop(c);
        // SAFETY: the caller's callback.
        Ok(iterate(regions, |r| unsafe {
            cb(hsa_region_t { handle: r.handle() }, data)
        }))
    })
}

/// `hsa_region_get_info`.
pub unsafe extern "C" fn hsa_region_get_info(
    region: hsa_region_t,
    attribute: c_enum,
    value: *mut c_void,
) -> hsa_status_t {
    guard("hsa_region_get_info", || {
        let c = ctx()?;
        if value.is_null() {
            return Err(null("value"));
        }
        let r = pool_of(&c, region.handle, Status::InvalidRegion)?;
        let v = c.rt.region_info_raw(r, attribute)?;
        // SAFETY: the caller's buffer holds the attribute's type.
        unsafe { put_bytes(value, &v.to_bytes()) }?;
        OK
    })
}

/// `hsa_memory_register`: nothing to do on a dGPU (ROCr's answer).
pub unsafe extern "C" fn hsa_memory_register(address: *mut c_void, size: usize) -> hsa_status_t {
    guard("hsa_memory_register", || {
        ctx()?;
        if size == 0 && !address.is_null() {
            return Err(Error::invalid_argument("size 0"));
        }
        OK
    })
}

/// `hsa_memory_deregister`: nothing to do (ROCr's answer).
pub unsafe extern "C" fn hsa_memory_deregister(
    _address: *mut c_void,
    _size: usize,
) -> hsa_status_t {
    guard("hsa_memory_deregister", || {
        ctx()?;
        OK
    })
}

/// `hsa_memory_allocate`.
pub unsafe extern "C" fn hsa_memory_allocate(
    region: hsa_region_t,
    size: usize,
    ptr: *mut *mut c_void,
) -> hsa_status_t {
    guard("hsa_memory_allocate", || {
        let c = ctx()?;
        if size == 0 || ptr.is_null() {
            return Err(Error::invalid_argument("size 0 or ptr NULL"));
        }
        let r = pool_of(&c, region.handle, Status::InvalidRegion)?;
        let va = c.rt.allocate(r, size as u64)?;
        // SAFETY: checked non-NULL.
        unsafe { put(ptr, va as *mut c_void, "ptr") }?;
        OK
    })
}

/// `hsa_memory_free` (NULL: nothing).
pub unsafe extern "C" fn hsa_memory_free(ptr: *mut c_void) -> hsa_status_t {
    guard("hsa_memory_free", || {
        let c = ctx()?;
        if ptr.is_null() {
            return OK;
        }
        crate::amd_api::before_free(&c, ptr as u64);
        c.rt.free(ptr as u64)?;
        OK
    })
}

/// `hsa_memory_copy`.
pub unsafe extern "C" fn hsa_memory_copy(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
) -> hsa_status_t {
    guard("hsa_memory_copy", || {
        let c = ctx()?;
        if dst.is_null() || src.is_null() {
            return Err(null("dst or src"));
        }
        if size == 0 {
            return OK;
        }
        // Cut where a range crosses runtime blocks (overlapping locks).
        for (to, from, n) in
            crate::amd_api::split_at_blocks(&c, dst as u64, src as u64, size as u64)
        {
            // SAFETY: the caller's ranges, as hsa_memory_copy requires.
            unsafe { c.rt.copy(to, from, n) }?;
        }
        OK
    })
}

/// `hsa_memory_assign_agent`: nothing to do (ROCr's answer, after its checks).
pub unsafe extern "C" fn hsa_memory_assign_agent(
    ptr: *mut c_void,
    agent: hsa_agent_t,
    access: c_enum,
) -> hsa_status_t {
    guard("hsa_memory_assign_agent", || {
        let c = ctx()?;
        if ptr.is_null() || !(1..=3).contains(&access) {
            return Err(Error::invalid_argument("ptr NULL or access unknown"));
        }
        agent_of(&c, agent)?;
        OK
    })
}

// ---------------------------------------------------------------------- ISAs

/// `hsa_isa_from_name`.
pub unsafe extern "C" fn hsa_isa_from_name(
    name: *const c_char,
    isa: *mut hsa_isa_t,
) -> hsa_status_t {
    guard("hsa_isa_from_name", || {
        let c = ctx()?;
        // SAFETY: the caller's string.
        let n = unsafe { c_str(name, "name") }?;
        if isa.is_null() {
            return Err(null("isa"));
        }
        let i = c.rt.isa_from_name(n)?;
        // SAFETY: checked non-NULL.
        unsafe { put(isa, hsa_isa_t { handle: i.handle() }, "isa") }?;
        OK
    })
}

/// `hsa_agent_iterate_isas`.
pub unsafe extern "C" fn hsa_agent_iterate_isas(
    agent: hsa_agent_t,
    cb: iter_cb<hsa_isa_t>,
    data: *mut c_void,
) -> hsa_status_t {
    guard("hsa_agent_iterate_isas", || {
        let c = ctx()?;
        let cb = callback(cb)?;
        let a = agent_of(&c, agent)?;
        let isas = c.rt.agent_isas(a)?;
        drop(c);
        // SAFETY: the caller's callback.
        Ok(iterate(isas, |i| unsafe {
            cb(hsa_isa_t { handle: i.handle() }, data)
        }))
    })
}

/// `hsa_isa_get_info_alt`.
pub unsafe extern "C" fn hsa_isa_get_info_alt(
    isa: hsa_isa_t,
    attribute: c_enum,
    value: *mut c_void,
) -> hsa_status_t {
    guard("hsa_isa_get_info_alt", || {
        let c = ctx()?;
        if value.is_null() {
            return Err(null("value"));
        }
        let v = c.rt.isa_info_raw(isa.handle, attribute)?;
        // SAFETY: the caller's buffer holds the attribute's type.
        unsafe { put_bytes(value, &v.to_bytes()) }?;
        OK
    })
}

/// `hsa_isa_get_info` (deprecated): index 0 only.
pub unsafe extern "C" fn hsa_isa_get_info(
    isa: hsa_isa_t,
    attribute: c_enum,
    index: u32,
    value: *mut c_void,
) -> hsa_status_t {
    guard("hsa_isa_get_info", || {
        ctx()?;
        if value.is_null() {
            return Err(null("value"));
        }
        if index != 0 {
            return Err(Error::new(Status::InvalidIndex, format!("index {index}")));
        }
        // SAFETY: forwarded.
        Ok(unsafe { hsa_isa_get_info_alt(isa, attribute, value) })
    })
}

/// `hsa_isa_get_exception_policies`: none (ROCr's answer).
pub unsafe extern "C" fn hsa_isa_get_exception_policies(
    isa: hsa_isa_t,
    profile: c_enum,
    mask: *mut u16,
) -> hsa_status_t {
    guard("hsa_isa_get_exception_policies", || {
        ctx()?;
        if profile > 1 {
            return Err(Error::invalid_argument(format!("profile {profile}")));
        }
        if mask.is_null() {
            return Err(null("mask"));
        }
        isa_of(isa)?;
        // SAFETY: non-NULL.
        unsafe { put(mask, 0, "mask") }?;
        OK
    })
}

/// `hsa_isa_get_round_method`: `HSA_ROUND_METHOD_SINGLE` (1), as every
/// ROCr ISA answers.
pub unsafe extern "C" fn hsa_isa_get_round_method(
    isa: hsa_isa_t,
    fp_type: c_enum,
    flush_mode: c_enum,
    round_method: *mut c_enum,
) -> hsa_status_t {
    guard("hsa_isa_get_round_method", || {
        ctx()?;
        use crate::ffi::consts::{
            HSA_FLUSH_MODE_FTZ, HSA_FLUSH_MODE_NON_FTZ, HSA_FP_TYPE_16, HSA_FP_TYPE_64,
        };
        if !(HSA_FP_TYPE_16..=HSA_FP_TYPE_64).contains(&fp_type)
            || !(HSA_FLUSH_MODE_FTZ..=HSA_FLUSH_MODE_NON_FTZ).contains(&flush_mode)
        {
            return Err(Error::invalid_argument("fp_type or flush_mode unknown"));
        }
        if round_method.is_null() {
            return Err(null("round_method"));
        }
        isa_of(isa)?;
        // SAFETY: non-NULL.
        unsafe { put(round_method, 1, "round_method") }?;
        OK
    })
}

/// The tag of wavefront handles (the ISA handle with this bit).
const WAVEFRONT_BIT: u64 = 1 << 63;

/// `hsa_isa_iterate_wavefronts`: one wavefront, of 64 lanes.
pub unsafe extern "C" fn hsa_isa_iterate_wavefronts(
    isa: hsa_isa_t,
    cb: iter_cb<hsa_wavefront_t>,
    data: *mut c_void,
) -> hsa_status_t {
    guard("hsa_isa_iterate_wavefronts", || {
        ctx()?;
        let cb = callback(cb)?;
        isa_of(isa)?;
        // SAFETY: the caller's callback.
        Ok(unsafe {
            cb(
                hsa_wavefront_t {
                    handle: isa.handle | WAVEFRONT_BIT,
                },
                data,
            )
        })
    })
}

/// `hsa_wavefront_get_info`: `HSA_WAVEFRONT_INFO_SIZE` (64).
pub unsafe extern "C" fn hsa_wavefront_get_info(
    wavefront: hsa_wavefront_t,
    attribute: c_enum,
    value: *mut c_void,
) -> hsa_status_t {
    guard("hsa_wavefront_get_info", || {
        ctx()?;
        if value.is_null() {
            return Err(null("value"));
        }
        if wavefront.handle & WAVEFRONT_BIT == 0
            || Isa::from_handle(wavefront.handle & !WAVEFRONT_BIT).is_none()
        {
            return Err(Error::new(Status::InvalidWavefront, "no such wavefront"));
        }
        if attribute != 0 {
            return Err(Error::invalid_argument(format!(
                "{attribute:#x} is no wavefront attribute"
            )));
        }
        // SAFETY: a uint32_t.
        unsafe { put_bytes(value, &64u32.to_ne_bytes()) }?;
        OK
    })
}

/// `hsa_isa_compatible`: same processor, and every feature the code object
/// sets matches the agent's.
pub unsafe extern "C" fn hsa_isa_compatible(
    code_object_isa: hsa_isa_t,
    agent_isa: hsa_isa_t,
    result: *mut bool,
) -> hsa_status_t {
    guard("hsa_isa_compatible", || {
        ctx()?;
        if result.is_null() {
            return Err(null("result"));
        }
        let co = isa_of(code_object_isa)?.target();
        let ag = isa_of(agent_isa)?.target();
        use loader_core::processor::FeatureSetting;
        let fits = |c: FeatureSetting, a: FeatureSetting| c == FeatureSetting::Any || c == a;
        let ok = co.processor.name == ag.processor.name
            && fits(co.sramecc, ag.sramecc)
            && fits(co.xnack, ag.xnack);
        // SAFETY: non-NULL.
        unsafe { put(result, ok, "result") }?;
        OK
    })
}

// --------------------------------------------------------------- executables

/// Allocation callback of `hsa_code_object_serialize`.
pub type serialize_alloc =
    Option<unsafe extern "C" fn(usize, hsa_callback_data_t, *mut *mut c_void) -> hsa_status_t>;

/// `hsa_code_object_serialize`: copies the deserialized bytes back.
pub unsafe extern "C" fn hsa_code_object_serialize(
    code_object: hsa_code_object_t,
    alloc: serialize_alloc,
    callback_data: hsa_callback_data_t,
    _options: *const c_char,
    serialized: *mut *mut c_void,
    size: *mut usize,
) -> hsa_status_t {
    guard("hsa_code_object_serialize", || {
        let c = ctx()?;
        let alloc = alloc.ok_or_else(|| null("alloc_callback"))?;
        if serialized.is_null() || size.is_null() {
            return Err(null(
                "serialized_code_object or serialized_code_object_size",
            ));
        }
        let r = code_object_of(&c, code_object)?;
        let bytes = r.bytes();
        let mut p: *mut c_void = core::ptr::null_mut();
        // SAFETY: the caller's allocator.
        let s = unsafe { alloc(bytes.len(), callback_data, &mut p) };
        if s != 0 || p.is_null() {
            return Err(Error::new(Status::OutOfResources, "alloc_callback failed"));
        }
        // SAFETY: the allocator gave bytes.len() bytes at p.
        unsafe {
            core::ptr::copy_nonoverlapping(bytes.as_ptr(), p.cast::<u8>(), bytes.len());
            put(serialized, p, "serialized")?;
            put(size, bytes.len(), "size")?;
        }
        OK
    })
}

fn code_object_of(c: &crate::state::Ctx, h: hsa_code_object_t) -> Result<CodeObjectReader, Error> {
    lock(&c.code_objects)
        .get(&h.handle)
        .cloned()
        .ok_or_else(|| {
            Error::new(
                Status::InvalidCodeObject,
                format!("hsa_code_object_t {:#x} is no code object", h.handle),
            )
        })
}

/// `hsa_code_object_deserialize`: keeps a copy of the code object.
pub unsafe extern "C" fn hsa_code_object_deserialize(
    serialized: *mut c_void,
    size: usize,
    _options: *const c_char,
    code_object: *mut hsa_code_object_t,
) -> hsa_status_t {
    guard("hsa_code_object_deserialize", || {
        let c = ctx()?;
        if serialized.is_null() || size == 0 || code_object.is_null() {
            return Err(Error::invalid_argument("NULL or empty code object"));
        }
        // SAFETY: the caller's size bytes at serialized.
        let bytes = unsafe { core::slice::from_raw_parts(serialized.cast::<u8>(), size) };
        let r = CodeObjectReader::from_memory(bytes)?;
        let h = c.new_handle();
        lock(&c.code_objects).insert(h, r);
        // SAFETY: non-NULL.
        unsafe { put(code_object, hsa_code_object_t { handle: h }, "code_object") }?;
        OK
    })
}

/// `hsa_code_object_destroy`.
pub unsafe extern "C" fn hsa_code_object_destroy(code_object: hsa_code_object_t) -> hsa_status_t {
    guard("hsa_code_object_destroy", || {
        let c = ctx()?;
        lock(&c.code_objects)
            .remove(&code_object.handle)
            .ok_or_else(|| Error::new(Status::InvalidCodeObject, "no such code object"))?;
        OK
    })
}

macro_rules! code_object_v1_unimplemented {
    ($($(#[$m:meta])* fn $name:ident($($a:ident: $t:ty),*);)*) => {$(
        $(#[$m])*
        pub unsafe extern "C" fn $name($($a: $t),*) -> hsa_status_t {
            guard(stringify!($name), || {
                ctx()?;
                $(let _ = $a;)*
                Err(Error::new(Status::Error, concat!(stringify!($name),
                    " (deprecated code object v1 API) is not implemented")))
            })
        }
    )*};
}

code_object_v1_unimplemented! {
    /// `hsa_code_object_get_symbol`: not implemented (`HSA_STATUS_ERROR`).
    fn hsa_code_object_get_symbol(code_object: hsa_code_object_t, symbol_name: *const c_char, symbol: *mut hsa_code_symbol_t);
    /// `hsa_code_object_get_symbol_from_name`: not implemented (`HSA_STATUS_ERROR`).
    fn hsa_code_object_get_symbol_from_name(code_object: hsa_code_object_t, module_name: *const c_char, symbol_name: *const c_char, symbol: *mut hsa_code_symbol_t);
    /// `hsa_code_symbol_get_info`: not implemented (`HSA_STATUS_ERROR`).
    fn hsa_code_symbol_get_info(code_symbol: hsa_code_symbol_t, attribute: c_enum, value: *mut c_void);
    /// `hsa_code_object_iterate_symbols`: not implemented (`HSA_STATUS_ERROR`).
    fn hsa_code_object_iterate_symbols(code_object: hsa_code_object_t, callback: *const c_void, data: *mut c_void);
}

/// Whether `bytes` is a code object v3 or later (`EI_OSABI` AMDGPU HSA,
/// `EI_ABIVERSION` 1 or more).
fn is_v3_or_later(bytes: &[u8]) -> bool {
    bytes.len() > 8 && bytes.starts_with(b"\x7fELF") && bytes[7] == 64 && bytes[8] >= 1
}

/// `hsa_code_object_get_info` (deprecated), answering as ROCr 5.2.3 does
/// for the code objects this runtime loads (v3 and later): their
/// `VERSION`, `MACHINE_MODEL`, `PROFILE` and `DEFAULT_FLOAT_ROUNDING_MODE`
/// come from v2 notes they do not have (`INVALID_CODE_OBJECT`), and `ISA`
/// goes through ROCr's v2 name conversion, which knows no v3 target
/// (`INVALID_ISA_NAME`); `TYPE` is `INVALID_ARGUMENT` there. Other code
/// objects (v2, not loaded here either): `HSA_STATUS_ERROR`.
pub unsafe extern "C" fn hsa_code_object_get_info(
    code_object: hsa_code_object_t,
    attribute: c_enum,
    value: *mut c_void,
) -> hsa_status_t {
    guard("hsa_code_object_get_info", || {
        let c = ctx()?;
        if value.is_null() {
            return Err(null("value"));
        }
        let r = code_object_of(&c, code_object)?;
        if !is_v3_or_later(r.bytes()) {
            return Err(Error::new(
                Status::Error,
                "hsa_code_object_get_info of a code object before v3 is not implemented",
            ));
        }
        use crate::ffi::consts::*;
        Err(match attribute {
            HSA_CODE_OBJECT_INFO_VERSION
            | HSA_CODE_OBJECT_INFO_MACHINE_MODEL
            | HSA_CODE_OBJECT_INFO_PROFILE
            | HSA_CODE_OBJECT_INFO_DEFAULT_FLOAT_ROUNDING_MODE => Error::new(
                Status::InvalidCodeObject,
                "a v3+ code object has no v2 version or HSAIL note",
            ),
            HSA_CODE_OBJECT_INFO_ISA => Error::new(
                Status::InvalidIsaName,
                "ROCr's v2 target name conversion knows no v3+ target",
            ),
            _ => Error::invalid_argument(format!("{attribute:#x} is no code object attribute")),
        })
    })
}

/// `hsa_code_object_reader_create_from_file`.
pub unsafe extern "C" fn hsa_code_object_reader_create_from_file(
    file: hsa_file_t,
    reader: *mut hsa_code_object_reader_t,
) -> hsa_status_t {
    guard("hsa_code_object_reader_create_from_file", || {
        let c = ctx()?;
        if reader.is_null() {
            return Err(null("code_object_reader"));
        }
        // SAFETY: the caller's open file descriptor (checked by the reader).
        let r = unsafe { CodeObjectReader::from_raw_fd(file) }?;
        let h = c.new_handle();
        lock(&c.readers).insert(h, r);
        // SAFETY: non-NULL.
        unsafe { put(reader, hsa_code_object_reader_t { handle: h }, "reader") }?;
        OK
    })
}

/// `hsa_code_object_reader_create_from_memory`.
pub unsafe extern "C" fn hsa_code_object_reader_create_from_memory(
    code_object: *const c_void,
    size: usize,
    reader: *mut hsa_code_object_reader_t,
) -> hsa_status_t {
    guard("hsa_code_object_reader_create_from_memory", || {
        let c = ctx()?;
        if code_object.is_null() || size == 0 || reader.is_null() {
            return Err(Error::invalid_argument("NULL or empty code object"));
        }
        // SAFETY: the caller's size bytes.
        let bytes = unsafe { core::slice::from_raw_parts(code_object.cast::<u8>(), size) };
        // Named by where the caller's bytes are, as ROCr: a loaded ELF's
        // file, or with HSA_LOADER_ENABLE_MMAP_URI=1 any mapped file.
        let how = if c.rt.flags().loader_enable_mmap_uri {
            runtime::uri::MemoryUri::MappedFile
        } else {
            runtime::uri::MemoryUri::LoadedElf
        };
        let r = CodeObjectReader::from_memory_in_place(bytes, how)?;
        let h = c.new_handle();
        lock(&c.readers).insert(h, r);
        // SAFETY: non-NULL.
        unsafe { put(reader, hsa_code_object_reader_t { handle: h }, "reader") }?;
        OK
    })
}

/// `hsa_code_object_reader_destroy`.
pub unsafe extern "C" fn hsa_code_object_reader_destroy(
    reader: hsa_code_object_reader_t,
) -> hsa_status_t {
    guard("hsa_code_object_reader_destroy", || {
        let c = ctx()?;
        lock(&c.readers).remove(&reader.handle).ok_or_else(|| {
            Error::new(
                Status::InvalidCodeObjectReader,
                "no such code object reader",
            )
        })?;
        OK
    })
}

fn reader_of(
    c: &crate::state::Ctx,
    r: hsa_code_object_reader_t,
) -> Result<CodeObjectReader, Error> {
    lock(&c.readers).get(&r.handle).cloned().ok_or_else(|| {
        Error::new(
            Status::InvalidCodeObjectReader,
            format!("hsa_code_object_reader_t {:#x} is no reader", r.handle),
        )
    })
}

fn profile_of(p: c_enum) -> Result<Profile, Error> {
    Profile::from_raw(p).ok_or_else(|| Error::invalid_argument(format!("profile {p}")))
}

/// `hsa_executable_create_alt`.
pub unsafe extern "C" fn hsa_executable_create_alt(
    profile: c_enum,
    rounding: c_enum,
    _options: *const c_char,
    executable: *mut hsa_executable_t,
) -> hsa_status_t {
    guard("hsa_executable_create_alt", || {
        let c = ctx()?;
        let p = profile_of(profile)?;
        let r = DefaultFloatRoundingMode::from_raw(rounding)
            .ok_or_else(|| Error::invalid_argument(format!("rounding mode {rounding}")))?;
        if executable.is_null() {
            return Err(null("executable"));
        }
        let exe = c.rt.create_executable(p, r)?;
        let h = exe.handle();
        lock(&c.executables).insert(h, Arc::new(exe));
        // SAFETY: non-NULL.
        unsafe { put(executable, hsa_executable_t { handle: h }, "executable") }?;
        OK
    })
}

/// `hsa_executable_create` (deprecated): the default rounding mode.
pub unsafe extern "C" fn hsa_executable_create(
    profile: c_enum,
    _state: c_enum,
    options: *const c_char,
    executable: *mut hsa_executable_t,
) -> hsa_status_t {
    // SAFETY: forwarded.
    unsafe { hsa_executable_create_alt(profile, 0, options, executable) }
}

/// `hsa_executable_destroy`.
pub unsafe extern "C" fn hsa_executable_destroy(executable: hsa_executable_t) -> hsa_status_t {
    guard("hsa_executable_destroy", || {
        let c = ctx()?;
        lock(&c.executables)
            .remove(&executable.handle)
            .ok_or_else(|| Error::new(Status::InvalidExecutable, "no such executable"))?;
        lock(&c.loaded).retain(|_, l| l.executable != executable.handle);
        OK
    })
}

fn record_loaded(
    c: &crate::state::Ctx,
    exe: u64,
    reader: &CodeObjectReader,
    out: *mut hsa_loaded_code_object_t,
) -> Result<(), Error> {
    let e = c.executable(exe)?;
    let index = e.loaded_code_objects().len().saturating_sub(1);
    let h = c.new_handle();
    lock(&c.loaded).insert(
        h,
        crate::state::Loaded {
            executable: exe,
            index,
            reader: reader.clone(),
        },
    );
    if !out.is_null() {
        // SAFETY: non-NULL out-pointer of the caller.
        unsafe {
            put(
                out,
                hsa_loaded_code_object_t { handle: h },
                "loaded_code_object",
            )
        }?;
    }
    Ok(())
}

/// `hsa_executable_load_agent_code_object`.
pub unsafe extern "C" fn hsa_executable_load_agent_code_object(
    executable: hsa_executable_t,
    agent: hsa_agent_t,
    reader: hsa_code_object_reader_t,
    options: *const c_char,
    loaded: *mut hsa_loaded_code_object_t,
) -> hsa_status_t {
    guard("hsa_executable_load_agent_code_object", || {
        let c = ctx()?;
        let e = c.executable(executable.handle)?;
        let r = reader_of(&c, reader)?;
        let a = agent_of(&c, agent)?;
        // SAFETY: the caller's string.
        let o = unsafe { opt_c_str(options, "options") }?;
        e.load_agent_code_object(&r, a, o)?;
        record_loaded(&c, executable.handle, &r, loaded)?;
        OK
    })
}

/// `hsa_executable_load_program_code_object`.
pub unsafe extern "C" fn hsa_executable_load_program_code_object(
    executable: hsa_executable_t,
    reader: hsa_code_object_reader_t,
    options: *const c_char,
    loaded: *mut hsa_loaded_code_object_t,
) -> hsa_status_t {
    guard("hsa_executable_load_program_code_object", || {
        let c = ctx()?;
        let e = c.executable(executable.handle)?;
        let r = reader_of(&c, reader)?;
        // SAFETY: the caller's string.
        let o = unsafe { opt_c_str(options, "options") }?;
        e.load_program_code_object(&r, o)?;
        record_loaded(&c, executable.handle, &r, loaded)?;
        OK
    })
}

/// `hsa_executable_load_code_object` (deprecated): a code object of
/// `hsa_code_object_deserialize`.
pub unsafe extern "C" fn hsa_executable_load_code_object(
    executable: hsa_executable_t,
    agent: hsa_agent_t,
    code_object: hsa_code_object_t,
    options: *const c_char,
) -> hsa_status_t {
    guard("hsa_executable_load_code_object", || {
        let c = ctx()?;
        let e = c.executable(executable.handle)?;
        let r = code_object_of(&c, code_object)?;
        let a = agent_of(&c, agent)?;
        // SAFETY: the caller's string.
        let o = unsafe { opt_c_str(options, "options") }?;
        e.load_agent_code_object(&r, a, o)?;
        record_loaded(&c, executable.handle, &r, core::ptr::null_mut())?;
        OK
    })
}

/// `hsa_executable_freeze`.
pub unsafe extern "C" fn hsa_executable_freeze(
    executable: hsa_executable_t,
    options: *const c_char,
) -> hsa_status_t {
    guard("hsa_executable_freeze", || {
        let c = ctx()?;
        let e = c.executable(executable.handle)?;
        // SAFETY: the caller's string.
        let o = unsafe { opt_c_str(options, "options") }?;
        e.freeze(o)?;
        OK
    })
}

/// `hsa_executable_get_info`.
pub unsafe extern "C" fn hsa_executable_get_info(
    executable: hsa_executable_t,
    attribute: c_enum,
    value: *mut c_void,
) -> hsa_status_t {
    guard("hsa_executable_get_info", || {
        let c = ctx()?;
        if value.is_null() {
            return Err(null("value"));
        }
        let e = c.executable(executable.handle)?;
        let a = ExecutableInfo::from_raw(attribute).ok_or_else(|| {
            Error::invalid_argument(format!("{attribute:#x} is no executable attribute"))
        })?;
        // SAFETY: every executable attribute is a 32-bit enum.
        unsafe { put_bytes(value, &e.info(a).to_ne_bytes()) }?;
        OK
    })
}

/// `hsa_executable_global_variable_define`.
pub unsafe extern "C" fn hsa_executable_global_variable_define(
    executable: hsa_executable_t,
    name: *const c_char,
    address: *mut c_void,
) -> hsa_status_t {
    guard("hsa_executable_global_variable_define", || {
        let c = ctx()?;
        let e = c.executable(executable.handle)?;
        // SAFETY: the caller's string.
        let n = unsafe { c_str(name, "variable_name") }?;
        e.define_program_external_variable(n, address as u64)?;
        OK
    })
}

/// `hsa_executable_agent_global_variable_define`.
pub unsafe extern "C" fn hsa_executable_agent_global_variable_define(
    executable: hsa_executable_t,
    agent: hsa_agent_t,
    name: *const c_char,
    address: *mut c_void,
) -> hsa_status_t {
    guard("hsa_executable_agent_global_variable_define", || {
        let c = ctx()?;
        let e = c.executable(executable.handle)?;
        let a = agent_of(&c, agent)?;
        // SAFETY: the caller's string.
        let n = unsafe { c_str(name, "variable_name") }?;
        e.define_agent_external_variable(n, a, address as u64)?;
        OK
    })
}

/// `hsa_executable_readonly_variable_define`.
pub unsafe extern "C" fn hsa_executable_readonly_variable_define(
    executable: hsa_executable_t,
    agent: hsa_agent_t,
    name: *const c_char,
    address: *mut c_void,
) -> hsa_status_t {
    guard("hsa_executable_readonly_variable_define", || {
        let c = ctx()?;
        let e = c.executable(executable.handle)?;
        let a = agent_of(&c, agent)?;
        // SAFETY: the caller's string.
        let n = unsafe { c_str(name, "variable_name") }?;
        e.readonly_variable_define(n, a, address as u64)?;
        OK
    })
}

/// `hsa_executable_validate`.
pub unsafe extern "C" fn hsa_executable_validate(
    executable: hsa_executable_t,
    result: *mut u32,
) -> hsa_status_t {
    guard("hsa_executable_validate", || {
        let c = ctx()?;
        if result.is_null() {
            return Err(null("result"));
        }
        let e = c.executable(executable.handle)?;
        let v = e.validate()?;
        // SAFETY: non-NULL.
        unsafe { put(result, v, "result") }?;
        OK
    })
}

/// `hsa_executable_validate_alt`.
pub unsafe extern "C" fn hsa_executable_validate_alt(
    executable: hsa_executable_t,
    _options: *const c_char,
    result: *mut u32,
) -> hsa_status_t {
    // SAFETY: forwarded.
    unsafe { hsa_executable_validate(executable, result) }
}

/// `hsa_executable_get_symbol` (deprecated), as ROCr forwards it: the name
/// `module::symbol` when a module name is given, the agent's symbol, else
/// the program symbol of that name.
pub unsafe extern "C" fn hsa_executable_get_symbol(
    executable: hsa_executable_t,
    module_name: *const c_char,
    symbol_name: *const c_char,
    agent: hsa_agent_t,
    _call_convention: i32,
    symbol: *mut hsa_executable_symbol_t,
) -> hsa_status_t {
    guard("hsa_executable_get_symbol", || {
        let c = ctx()?;
        let e = c.executable(executable.handle)?;
        // SAFETY: the caller's strings.
        let (m, n) = unsafe {
            (
                opt_c_str(module_name, "module_name")?,
                c_str(symbol_name, "symbol_name")?,
            )
        };
        if n.is_empty() {
            return Err(Error::new(Status::InvalidSymbolName, "empty symbol name"));
        }
        if symbol.is_null() {
            return Err(null("symbol"));
        }
        let name = match m {
            Some(m) if !m.is_empty() => format!("{m}::{n}"),
            _ => n.to_string(),
        };
        let a = agent_of(&c, agent)?;
        let s = e
            .get_symbol_by_name(&name, Some(a))
            .or_else(|_| e.get_symbol_by_name(&name, None))?;
        // SAFETY: non-NULL.
        unsafe {
            put(
                symbol,
                hsa_executable_symbol_t { handle: s.handle() },
                "symbol",
            )
        }?;
        OK
    })
}

/// `hsa_executable_get_symbol_by_name` (agent NULL: a program symbol).
pub unsafe extern "C" fn hsa_executable_get_symbol_by_name(
    executable: hsa_executable_t,
    symbol_name: *const c_char,
    agent: *const hsa_agent_t,
    symbol: *mut hsa_executable_symbol_t,
) -> hsa_status_t {
    guard("hsa_executable_get_symbol_by_name", || {
        let c = ctx()?;
        let e = c.executable(executable.handle)?;
        // SAFETY: the caller's string.
        let n = unsafe { c_str(symbol_name, "symbol_name") }?;
        if symbol.is_null() {
            return Err(null("symbol"));
        }
        let a = if agent.is_null() {
            None
        } else {
            // SAFETY: non-NULL pointer to an hsa_agent_t.
            Some(agent_of(&c, unsafe { agent.read_unaligned() })?)
        };
        let s = e.get_symbol_by_name(n, a)?;
        // SAFETY: non-NULL.
        unsafe {
            put(
                symbol,
                hsa_executable_symbol_t { handle: s.handle() },
                "symbol",
            )
        }?;
        OK
    })
}

/// The bytes of a symbol attribute as the C API writes them.
fn symbol_value_bytes(v: SymbolInfoValue) -> Vec<u8> {
    match v {
        SymbolInfoValue::U32(x) => x.to_ne_bytes().to_vec(),
        SymbolInfoValue::U64(x) => x.to_ne_bytes().to_vec(),
        SymbolInfoValue::Bool(b) => vec![u8::from(b)],
        SymbolInfoValue::Text(t) => t.into_bytes(),
        SymbolInfoValue::Kind(k) => (k as u32).to_ne_bytes().to_vec(),
        SymbolInfoValue::Linkage(k) => (k as u32).to_ne_bytes().to_vec(),
        SymbolInfoValue::Allocation(k) => (k as u32).to_ne_bytes().to_vec(),
        SymbolInfoValue::Segment(k) => (k as u32).to_ne_bytes().to_vec(),
        SymbolInfoValue::Agent(a) => a.map_or(0, Agent::handle).to_ne_bytes().to_vec(),
    }
}

/// `hsa_executable_symbol_get_info`.
pub unsafe extern "C" fn hsa_executable_symbol_get_info(
    symbol: hsa_executable_symbol_t,
    attribute: c_enum,
    value: *mut c_void,
) -> hsa_status_t {
    guard("hsa_executable_symbol_get_info", || {
        let c = ctx()?;
        if value.is_null() {
            return Err(null("value"));
        }
        let a = SymbolInfo::from_raw(attribute).ok_or_else(|| {
            Error::invalid_argument(format!("{attribute:#x} is no symbol attribute"))
        })?;
        let v =
            c.rt.executable_symbol_info(ExecutableSymbol::from_handle(symbol.handle), a)?;
        // SAFETY: the caller's buffer holds the attribute's type (names:
        // NAME_LENGTH bytes).
        unsafe { put_bytes(value, &symbol_value_bytes(v)) }?;
        OK
    })
}

/// `hsa_executable_iterate_symbols` callback.
pub type exe_symbol_cb = Option<
    unsafe extern "C" fn(hsa_executable_t, hsa_executable_symbol_t, *mut c_void) -> hsa_status_t,
>;
/// `hsa_executable_iterate_agent_symbols` callback.
pub type exe_agent_symbol_cb = Option<
    unsafe extern "C" fn(
        hsa_executable_t,
        hsa_agent_t,
        hsa_executable_symbol_t,
        *mut c_void,
    ) -> hsa_status_t,
>;

/// `hsa_executable_iterate_symbols`.
pub unsafe extern "C" fn hsa_executable_iterate_symbols(
    executable: hsa_executable_t,
    cb: exe_symbol_cb,
    data: *mut c_void,
) -> hsa_status_t {
    guard("hsa_executable_iterate_symbols", || {
        let c = ctx()?;
        let e = c.executable(executable.handle)?;
        let cb = callback(cb)?;
        let syms = e.symbols();
        drop(c);
        Ok(iterate(syms, |s| {
            // SAFETY: the caller's callback.
            unsafe {
                cb(
                    executable,
                    hsa_executable_symbol_t { handle: s.handle() },
                    data,
                )
            }
        }))
    })
}

/// `hsa_executable_iterate_program_symbols`.
pub unsafe extern "C" fn hsa_executable_iterate_program_symbols(
    executable: hsa_executable_t,
    cb: exe_symbol_cb,
    data: *mut c_void,
) -> hsa_status_t {
    guard("hsa_executable_iterate_program_symbols", || {
        let c = ctx()?;
        let e = c.executable(executable.handle)?;
        let cb = callback(cb)?;
        let syms = e.program_symbols();
        drop(c);
        Ok(iterate(syms, |s| {
            // SAFETY: the caller's callback.
            unsafe {
                cb(
                    executable,
                    hsa_executable_symbol_t { handle: s.handle() },
                    data,
                )
            }
        }))
    })
}

/// `hsa_executable_iterate_agent_symbols`.
pub unsafe extern "C" fn hsa_executable_iterate_agent_symbols(
    executable: hsa_executable_t,
    agent: hsa_agent_t,
    cb: exe_agent_symbol_cb,
    data: *mut c_void,
) -> hsa_status_t {
    guard("hsa_executable_iterate_agent_symbols", || {
        let c = ctx()?;
        let e = c.executable(executable.handle)?;
        let a = agent_of(&c, agent)?;
        let cb = callback(cb)?;
        let syms = e.agent_symbols(a);
        drop(c);
        Ok(iterate(syms, |s| {
            // SAFETY: the caller's callback.
            unsafe {
                cb(
                    executable,
                    agent,
                    hsa_executable_symbol_t { handle: s.handle() },
                    data,
                )
            }
        }))
    })
}
