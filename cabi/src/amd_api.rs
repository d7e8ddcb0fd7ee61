//! `hsa_ext_amd.h`: memory pools, allocation and access, async copies and
//! fills, host memory locking, pointer info, and the AMD calls this runtime
//! does not implement (each returns the status listed in ARCHITECTURE.md,
//! "The C ABI library").

#![allow(unsafe_code)]
#![allow(clippy::missing_safety_doc)]
// Out-pointers of one C call are written under the one contract the call has.
#![allow(clippy::multiple_unsafe_ops_per_block)]

use core::ffi::{c_int, c_void};

use runtime::agent::Agent;
use runtime::{Error, PointerType, Signal, Status};

use crate::core_api::{agent_of, pool_of};
use crate::ffi::*;
use crate::state::{OK, ctx, guard, lock, null, put, put_bytes, slice};

/// `hsa_amd_memory_pool_get_info`.
pub unsafe extern "C" fn hsa_amd_memory_pool_get_info(
    pool: hsa_amd_memory_pool_t,
    attribute: c_enum,
    value: *mut c_void,
) -> hsa_status_t {
    guard("hsa_amd_memory_pool_get_info", || {
        let c = ctx()?;
        if value.is_null() {
            return Err(null("value"));
        }
        let p = pool_of(&c, pool.handle, Status::InvalidMemoryPool)?;
        let v = c.rt.pool_info_raw(p, attribute)?;
        // SAFETY: the caller's buffer holds the attribute's type.
        unsafe { put_bytes(value, &v.to_bytes()) }?;
        OK
    })
}

/// `hsa_amd_agent_iterate_memory_pools`.
pub unsafe extern "C" fn hsa_amd_agent_iterate_memory_pools(
    agent: hsa_agent_t,
    cb: iter_cb<hsa_amd_memory_pool_t>,
    data: *mut c_void,
) -> hsa_status_t {
    guard("hsa_amd_agent_iterate_memory_pools", || {
        let c = ctx()?;
        let a = agent_of(&c, agent)?;
        let cb = cb.ok_or_else(|| null("callback"))?;
        let pools = c.rt.pools(a)?;
        drop(c);
        for p in pools {
            // SAFETY: the caller's callback.
            let s = unsafe { cb(hsa_amd_memory_pool_t { handle: p.handle() }, data) };
            if s != 0 {
                return Ok(s);
            }
        }
        OK
    })
}

/// `hsa_amd_agent_memory_pool_get_info`.
pub unsafe extern "C" fn hsa_amd_agent_memory_pool_get_info(
    agent: hsa_agent_t,
    pool: hsa_amd_memory_pool_t,
    attribute: c_enum,
    value: *mut c_void,
) -> hsa_status_t {
    guard("hsa_amd_agent_memory_pool_get_info", || {
        let c = ctx()?;
        if value.is_null() {
            return Err(null("value"));
        }
        let a = agent_of(&c, agent)?;
        let p = pool_of(&c, pool.handle, Status::InvalidMemoryPool)?;
        let v = c.rt.agent_pool_info_raw(a, p, attribute)?;
        // SAFETY: the caller's buffer holds the attribute's type.
        unsafe { put_bytes(value, &v.to_bytes()) }?;
        OK
    })
}

/// `hsa_amd_memory_pool_allocate` (flags must be 0, as ROCr 5.2.3 checks).
pub unsafe extern "C" fn hsa_amd_memory_pool_allocate(
    pool: hsa_amd_memory_pool_t,
    size: usize,
    flags: u32,
    ptr: *mut *mut c_void,
) -> hsa_status_t {
    guard("hsa_amd_memory_pool_allocate", || {
        let c = ctx()?;
        if size == 0 || ptr.is_null() {
            return Err(Error::invalid_argument("size 0 or ptr NULL"));
        }
        let _ = flags;
        let p = pool_of(&c, pool.handle, Status::InvalidMemoryPool)?;
        // ROCr's AllocateRestrict: system memory for the CPU until
        // hsa_amd_agents_allow_access.
        let va = c.rt.allocate_restricted(p, size as u64)?;
        // SAFETY: non-NULL.
        unsafe { put(ptr, va as *mut c_void, "ptr") }?;
        OK
    })
}

/// `hsa_amd_memory_pool_free` (NULL: nothing).
pub unsafe extern "C" fn hsa_amd_memory_pool_free(ptr: *mut c_void) -> hsa_status_t {
    // SAFETY: the same call.
    unsafe { crate::core_api::hsa_memory_free(ptr) }
}

/// `hsa_amd_agents_allow_access`.
pub unsafe extern "C" fn hsa_amd_agents_allow_access(
    num_agents: u32,
    agents: *const hsa_agent_t,
    _flags: *const u32,
    ptr: *const c_void,
) -> hsa_status_t {
    guard("hsa_amd_agents_allow_access", || {
        let c = ctx()?;
        if num_agents == 0 || agents.is_null() || ptr.is_null() {
            return Err(Error::invalid_argument("no agents, or ptr NULL"));
        }
        // SAFETY: the caller's array.
        let list = unsafe { slice(agents, num_agents as usize, "agents") }?;
        let list: Vec<Agent> = list
            .iter()
            .map(|&a| agent_of(&c, a))
            .collect::<Result<_, _>>()?;
        c.rt.allow_access(&list, ptr as u64)?;
        OK
    })
}

fn signals(c: &crate::state::Ctx, n: u32, list: *const hsa_signal_t) -> Result<Vec<Signal>, Error> {
    // SAFETY: the caller's array of n signals.
    let hs = unsafe { slice(list, n as usize, "dep_signals") }?;
    hs.iter().map(|h| c.signal(h.handle)).collect()
}

/// `hsa_amd_memory_async_copy`.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hsa_amd_memory_async_copy(
    dst: *mut c_void,
    dst_agent: hsa_agent_t,
    src: *const c_void,
    src_agent: hsa_agent_t,
    size: usize,
    num_dep_signals: u32,
    dep_signals: *const hsa_signal_t,
    completion_signal: hsa_signal_t,
) -> hsa_status_t {
    guard("hsa_amd_memory_async_copy", || {
        let c = ctx()?;
        if dst.is_null() || src.is_null() {
            return Err(null("dst or src"));
        }
        let da = agent_of(&c, dst_agent)?;
        let sa = agent_of(&c, src_agent)?;
        let deps = signals(&c, num_dep_signals, dep_signals)?;
        let deps: Vec<&Signal> = deps.iter().collect();
        let done = c.signal(completion_signal.handle)?;
        let segs = split_at_blocks(&c, dst as u64, src as u64, size as u64);
        // SAFETY: the caller keeps the ranges for the copy until the
        // completion signal is decremented (the API's contract).
        unsafe { submit_segments(&c, &segs, da, sa, &deps, done) }?;
        OK
    })
}

/// `dst..dst + size` and `src..src + size` cut where either crosses from
/// one runtime allocation into the next (adjacent locked blocks: a C lock
/// may span several, see [`lock_pages`]); memory the runtime does not know
/// is not cut (the copy then reports it).
pub(crate) fn split_at_blocks(
    c: &crate::state::Ctx,
    dst: u64,
    src: u64,
    size: u64,
) -> Vec<(u64, u64, u64)> {
    let mut out = Vec::new();
    let mut done = 0;
    while done < size {
        let end_of = |a: u64| c.rt.pointer_info(a).map(|b| b.start + b.size - a);
        let left = size - done;
        let n = [end_of(dst + done), end_of(src + done)]
            .into_iter()
            .flatten()
            .filter(|&n| n > 0)
            .fold(left, u64::min);
        out.push((dst + done, src + done, n));
        done += n;
    }
    out
}

/// Submits one async copy per segment; `done` is decremented once, when
/// all are: directly for one segment, else from the handler thread when an
/// internal counter signal (one per segment) reaches 0.
///
/// # Safety
///
/// As `hsa_amd_memory_async_copy` for every segment.
unsafe fn submit_segments(
    c: &crate::state::Ctx,
    segs: &[(u64, u64, u64)],
    dst_agent: Agent,
    src_agent: Agent,
    deps: &[&Signal],
    done: Signal,
) -> Result<(), Error> {
    if let [(to, from, n)] = segs {
        // SAFETY: forwarded to our caller.
        unsafe {
            c.rt.memory_async_copy(*to, dst_agent, *from, src_agent, *n, deps, &done)
        }?;
        return Ok(());
    }
    let counter =
        c.rt.create_signal_of_kind(segs.len() as i64, runtime::SignalKind::Default)?;
    for &(to, from, n) in segs {
        // SAFETY: forwarded to our caller.
        unsafe {
            c.rt.memory_async_copy(to, dst_agent, from, src_agent, n, deps, &counter)
        }?;
    }
    c.rt.async_handler(&counter, signal_core::Condition::Eq, 0, move |_| {
        done.subtract(1, signal_core::RmwOrder::Release);
        false
    })?;
    Ok(())
}

/// `hsa_amd_memory_fill`.
pub unsafe extern "C" fn hsa_amd_memory_fill(
    ptr: *mut c_void,
    value: u32,
    count: usize,
) -> hsa_status_t {
    guard("hsa_amd_memory_fill", || {
        let c = ctx()?;
        if ptr.is_null() {
            return Err(null("ptr"));
        }
        // SAFETY: the caller's 4 * count bytes, unused meanwhile.
        unsafe { c.rt.memory_fill(ptr as u64, value, count as u64) }?;
        OK
    })
}

/// `hsa_amd_memory_lock` (the agent list is accepted; every GPU maps the range).
pub unsafe extern "C" fn hsa_amd_memory_lock(
    host_ptr: *mut c_void,
    size: usize,
    agents: *mut hsa_agent_t,
    num_agent: c_int,
    agent_ptr: *mut *mut c_void,
) -> hsa_status_t {
    guard("hsa_amd_memory_lock", || {
        let c = ctx()?;
        if host_ptr.is_null() || size == 0 || agent_ptr.is_null() || num_agent < 0 {
            return Err(Error::invalid_argument(
                "host_ptr NULL, size 0 or agent_ptr NULL",
            ));
        }
        // SAFETY: the caller's array.
        let list = unsafe { slice(agents.cast_const(), num_agent as usize, "agents") }?;
        for &a in list {
            agent_of(&c, a)?;
        }
        // SAFETY: the caller's memory stays mapped until hsa_amd_memory_unlock.
        let va = unsafe { lock_pages(&c, host_ptr as u64, size as u64) }?;
        // SAFETY: non-NULL.
        unsafe { put(agent_ptr, va as *mut c_void, "agent_ptr") }?;
        OK
    })
}

/// Page size of locked ranges.
const PAGE: u64 = 4096;

/// Locks `ptr..ptr + size` as ROCr does, overlapping earlier locks
/// allowed (see [`crate::state::Locks`]); returns the GPU address (the
/// host address: locked memory is mapped at the same address).
///
/// # Safety
///
/// The range stays mapped until it is unlocked.
unsafe fn lock_pages(c: &crate::state::Ctx, ptr: u64, size: u64) -> Result<u64, Error> {
    let start = ptr & !(PAGE - 1);
    let end = ptr
        .checked_add(size)
        .and_then(|e| e.checked_next_multiple_of(PAGE))
        .ok_or_else(|| Error::invalid_argument("the locked range overflows"))?;
    let mut locks = lock(&c.locks);
    let mut held: Vec<u64> = Vec::new();
    let mut made: Vec<u64> = Vec::new();
    let mut at = start;
    let undo = |c: &crate::state::Ctx, made: &[u64]| {
        for &b in made {
            let _ = c.rt.unlock_host(b);
        }
    };
    while at < end {
        match c.rt.pointer_info(at) {
            Some(b) if b.userptr => {
                held.push(b.start);
                at = b.start + b.size;
            }
            Some(_) => {
                undo(c, &made);
                return Err(Error::invalid_argument(format!(
                    "{ptr:#x}+{size} overlaps memory allocated from a pool"
                )));
            }
            None => {
                // The pages up to the next registered one.
                let mut next = at + PAGE;
                while next < end && c.rt.pointer_info(next).is_none() {
                    next += PAGE;
                }
                // SAFETY: forwarded to our caller.
                match unsafe { c.rt.lock_host(at, next - at) } {
                    Ok(_) => {
                        made.push(at);
                        held.push(at);
                    }
                    Err(e) => {
                        undo(c, &made);
                        return Err(e);
                    }
                }
                at = next;
            }
        }
    }
    for &b in &held {
        *locks.refs.entry(b).or_insert(0) += 1;
    }
    locks.by_ptr.entry(ptr).or_default().push(held);
    Ok(ptr)
}

/// `hsa_amd_memory_lock_to_pool`, with ROCr's checks in ROCr's order
/// (each answer equal to AMD's ROCr's in tests/c/status_diff.c): NULL
/// pointers, a zero size or `flags` not 0 are `INVALID_ARGUMENT`, so is an
/// agent list and count that disagree; a pool that is not a CPU agent's is
/// `INVALID_MEMORY_POOL`. Then the lock, as `hsa_amd_memory_lock`.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hsa_amd_memory_lock_to_pool(
    host_ptr: *mut c_void,
    size: usize,
    agents: *mut hsa_agent_t,
    num_agent: c_int,
    pool: hsa_amd_memory_pool_t,
    flags: u32,
    agent_ptr: *mut *mut c_void,
) -> hsa_status_t {
    guard("hsa_amd_memory_lock_to_pool", || {
        let c = ctx()?;
        if host_ptr.is_null() || size == 0 || agent_ptr.is_null() || flags != 0 {
            return Err(Error::invalid_argument(format!(
                "host_ptr {host_ptr:p}, size {size}, agent_ptr {agent_ptr:p} (none may be \
                 NULL or 0) or flags {flags:#x} (must be 0)"
            )));
        }
        // SAFETY: checked non-NULL.
        unsafe { put(agent_ptr, core::ptr::null_mut(), "agent_ptr") }?;
        if agents.is_null() != (num_agent == 0) {
            return Err(Error::invalid_argument(format!(
                "agents {agents:p} and num_agent {num_agent} disagree"
            )));
        }
        let p = pool_of(&c, pool.handle, Status::InvalidMemoryPool)?;
        if !c.rt.pool(p)?.is_system() {
            return Err(Error::new(
                Status::InvalidMemoryPool,
                format!("pool {:#x} is not a CPU agent's pool", pool.handle),
            ));
        }
        drop(c);
        // SAFETY: forwarded.
        Ok(unsafe { hsa_amd_memory_lock(host_ptr, size, agents, num_agent, agent_ptr) })
    })
}

/// `hsa_amd_memory_unlock`.
pub unsafe extern "C" fn hsa_amd_memory_unlock(host_ptr: *mut c_void) -> hsa_status_t {
    guard("hsa_amd_memory_unlock", || {
        let c = ctx()?;
        let mut locks = lock(&c.locks);
        let key = host_ptr as u64;
        // Memory that is not locked: nothing to undo, and ROCr's
        // MemoryRegion::Unlock answers HSA_STATUS_SUCCESS (AMD's ROCr does so
        // on the sim: tests/c/status_diff.c).
        let Some(list) = locks.by_ptr.get_mut(&key) else {
            return OK;
        };
        let blocks = list.pop().unwrap_or_default();
        if locks.by_ptr.get(&key).is_some_and(Vec::is_empty) {
            locks.by_ptr.remove(&key);
        }
        for b in blocks {
            let r = locks.refs.entry(b).or_insert(1);
            *r -= 1;
            if *r == 0 {
                locks.refs.remove(&b);
                c.rt.unlock_host(b)?;
            }
        }
        OK
    })
}

/// `hsa_amd_pointer_info`: fills the first `info->size` bytes; the
/// accessible agents (GPUs it is mapped on, and the CPU when host
/// accessible) in memory from `alloc`.
pub unsafe extern "C" fn hsa_amd_pointer_info(
    ptr: *const c_void,
    info: *mut hsa_amd_pointer_info_t,
    alloc: alloc_fn,
    num_agents_accessible: *mut u32,
    accessible: *mut *mut hsa_agent_t,
) -> hsa_status_t {
    guard("hsa_amd_pointer_info", || {
        let c = ctx()?;
        if ptr.is_null() || info.is_null() {
            return Err(null("ptr or info"));
        }
        let pi = c.rt.amd_pointer_info(ptr as u64);
        // SAFETY: the caller's struct; its `size` says how much it holds.
        let size = unsafe { core::ptr::addr_of!((*info).size).read_unaligned() } as usize;
        let full = hsa_amd_pointer_info_t {
            size: size.min(core::mem::size_of::<hsa_amd_pointer_info_t>()) as u32,
            type_: pi.kind as u32,
            agentBaseAddress: pi.agent_base_address as *mut c_void,
            hostBaseAddress: pi.host_base_address as *mut c_void,
            sizeInBytes: pi.size_in_bytes as usize,
            userData: user_data_of(&c, ptr as u64) as *mut c_void,
            agentOwner: hsa_agent_t {
                handle: pi.agent_owner.map_or(0, Agent::handle),
            },
            global_flags: pi.global_flags,
        };
        let n = size.min(core::mem::size_of::<hsa_amd_pointer_info_t>());
        // SAFETY: `full` is a plain C struct; the caller's struct holds `n` bytes.
        unsafe {
            core::ptr::copy_nonoverlapping(
                (&full as *const hsa_amd_pointer_info_t).cast::<u8>(),
                info.cast::<u8>(),
                n,
            )
        };
        if pi.kind != PointerType::Unknown
            && let (Some(alloc), false, false) =
                (alloc, num_agents_accessible.is_null(), accessible.is_null())
        {
            let block = c.rt.pointer_info(ptr as u64);
            let mut list = Vec::new();
            for a in c.rt.agents() {
                let r = c.rt.agent(a)?;
                let reaches = match &block {
                    Some(b) if r.is_gpu() => b.mapped_on.contains(&r.gpu_id),
                    Some(b) => b.host_accessible,
                    None => false,
                };
                if reaches {
                    list.push(hsa_agent_t { handle: a.handle() });
                }
            }
            // SAFETY: the caller's allocator.
            let out = unsafe { alloc(list.len() * core::mem::size_of::<hsa_agent_t>()) }
                .cast::<hsa_agent_t>();
            if out.is_null() && !list.is_empty() {
                return Err(Error::new(Status::OutOfResources, "alloc returned NULL"));
            }
            // SAFETY: `out` holds list.len() agents; the out-pointers are non-NULL.
            unsafe {
                core::ptr::copy_nonoverlapping(list.as_ptr(), out, list.len());
                put(
                    num_agents_accessible,
                    list.len() as u32,
                    "num_agents_accessible",
                )?;
                put(accessible, out, "accessible")?;
            }
        }
        OK
    })
}

/// `hsa_amd_coherency_get_type`: the GPU agent's recorded type
/// (`runtime::coherency`; initially `HSA_AMD_COHERENCY_TYPE_NONCOHERENT`
/// on a discrete GPU, as ROCr; CPU agents: `INVALID_AGENT`).
pub unsafe extern "C" fn hsa_amd_coherency_get_type(
    agent: hsa_agent_t,
    type_: *mut c_enum,
) -> hsa_status_t {
    guard("hsa_amd_coherency_get_type", || {
        let c = ctx()?;
        let a = agent_of(&c, agent)?;
        if type_.is_null() {
            return Err(null("type"));
        }
        let ty = c.rt.coherency_type(a)?;
        // SAFETY: non-NULL.
        unsafe { put(type_, ty as c_enum, "type") }?;
        OK
    })
}

/// `hsa_amd_coherency_set_type`: records the type for the GPU agent, as
/// ROCr does on every GPU but Kaveri (`runtime::coherency`). The checks
/// in ROCr's order: the agent, the type (`INVALID_ARGUMENT`), then that
/// it is a GPU (`INVALID_AGENT`).
pub unsafe extern "C" fn hsa_amd_coherency_set_type(
    agent: hsa_agent_t,
    type_: c_enum,
) -> hsa_status_t {
    guard("hsa_amd_coherency_set_type", || {
        let c = ctx()?;
        let a = agent_of(&c, agent)?;
        let ty = runtime::coherency::CoherencyType::from_raw(type_)?;
        c.rt.set_coherency_type(a, ty)?;
        OK
    })
}

/// `hsa_amd_memory_pool_can_migrate`: ROCr's argument checks (`result`
/// NULL: `INVALID_ARGUMENT`; either pool invalid: `INVALID_MEMORY_POOL`,
/// each equal to AMD's ROCr's answer in tests/c/status_diff.c), then
/// whether [`hsa_amd_memory_migrate`] moves allocations between the two
/// (`runtime::Runtime::can_migrate`; ROCr answers `OUT_OF_RESOURCES`, its
/// migration being "not implemented yet").
pub unsafe extern "C" fn hsa_amd_memory_pool_can_migrate(
    src: hsa_amd_memory_pool_t,
    dst: hsa_amd_memory_pool_t,
    result: *mut bool,
) -> hsa_status_t {
    guard("hsa_amd_memory_pool_can_migrate", || {
        let c = ctx()?;
        if result.is_null() {
            return Err(null("result"));
        }
        let s = pool_of(&c, src.handle, Status::InvalidMemoryPool)?;
        let d = pool_of(&c, dst.handle, Status::InvalidMemoryPool)?;
        let yes = c.rt.can_migrate(s, d)?;
        // SAFETY: non-NULL.
        unsafe { put(result, yes, "result") }?;
        OK
    })
}

/// `hsa_amd_memory_migrate`: ROCr's argument checks (`ptr` NULL or `flags`
/// not 0: `INVALID_ARGUMENT`; the pool invalid: `INVALID_MEMORY_POOL`),
/// then the move itself (`runtime::Runtime::migrate`: same address, same
/// contents, the agents' access kept; ROCr answers `OUT_OF_RESOURCES`).
pub unsafe extern "C" fn hsa_amd_memory_migrate(
    ptr: *const c_void,
    pool: hsa_amd_memory_pool_t,
    flags: u32,
) -> hsa_status_t {
    guard("hsa_amd_memory_migrate", || {
        let c = ctx()?;
        if ptr.is_null() || flags != 0 {
            return Err(Error::invalid_argument(format!(
                "ptr {ptr:p} (must not be NULL) or flags {flags:#x} (must be 0)"
            )));
        }
        let p = pool_of(&c, pool.handle, Status::InvalidMemoryPool)?;
        c.rt.migrate(ptr as u64, p)?;
        OK
    })
}

/// The allocation start `ptr` belongs to, if it is memory of the runtime.
fn block_start(c: &crate::state::Ctx, ptr: u64) -> Option<u64> {
    c.rt.pointer_info(ptr).map(|b| {
        if b.userptr && b.user_ptr != 0 {
            b.user_ptr
        } else {
            b.start
        }
    })
}

fn user_data_of(c: &crate::state::Ctx, ptr: u64) -> usize {
    block_start(c, ptr)
        .and_then(|s| lock(&c.user_data).get(&s).copied())
        .unwrap_or(0)
}

/// Runs the deallocation callbacks of the allocation starting at `ptr`
/// (ROCr calls them before it releases the memory) and forgets its user
/// data.
pub(crate) fn before_free(c: &crate::state::Ctx, ptr: u64) {
    let Some(start) = block_start(c, ptr) else {
        return;
    };
    if start != ptr {
        return;
    }
    lock(&c.user_data).remove(&start);
    let list = lock(&c.notifiers).remove(&start).unwrap_or_default();
    for n in list {
        // SAFETY: a callback registered for this allocation, with its data,
        // called once as ROCr calls it (no lock held).
        unsafe {
            let f: unsafe extern "C" fn(*mut c_void, *mut c_void) = core::mem::transmute::<
                usize,
                unsafe extern "C" fn(*mut c_void, *mut c_void),
            >(n.callback);
            f(n.ptr as *mut c_void, n.user_data as *mut c_void);
        }
    }
}

/// `hsa_amd_pointer_info_set_userdata`: `ptr` must start an allocation
/// (or a locked range); `hsa_amd_pointer_info` reports it.
pub unsafe extern "C" fn hsa_amd_pointer_info_set_userdata(
    ptr: *const c_void,
    userdata: *mut c_void,
) -> hsa_status_t {
    guard("hsa_amd_pointer_info_set_userdata", || {
        let c = ctx()?;
        if ptr.is_null() {
            return Err(null("ptr"));
        }
        match block_start(&c, ptr as u64) {
            Some(s) if s == ptr as u64 => {
                lock(&c.user_data).insert(s, userdata as usize);
                OK
            }
            _ => Err(Error::invalid_argument(format!(
                "{ptr:p} starts no allocation of this runtime"
            ))),
        }
    })
}

/// `hsa_amd_register_deallocation_callback`: `callback(ptr, user_data)`
/// runs when the allocation holding `ptr` is freed.
pub unsafe extern "C" fn hsa_amd_register_deallocation_callback(
    ptr: *mut c_void,
    callback: deallocation_cb,
    user_data: *mut c_void,
) -> hsa_status_t {
    guard("hsa_amd_register_deallocation_callback", || {
        let c = ctx()?;
        if ptr.is_null() {
            return Err(null("ptr"));
        }
        let cb = callback.ok_or_else(|| null("callback"))?;
        let block = c.rt.pointer_info(ptr as u64).filter(|b| b.pool.is_some());
        let Some(b) = block else {
            return Err(Error::new(
                Status::InvalidAllocation,
                format!("{ptr:p} is in no pool allocation"),
            ));
        };
        lock(&c.notifiers)
            .entry(b.start)
            .or_default()
            .push(crate::state::Notifier {
                ptr: ptr as usize,
                callback: cb as usize,
                user_data: user_data as usize,
            });
        OK
    })
}

/// `hsa_amd_deregister_deallocation_callback`: removes every registration
/// of `callback` with `ptr` (none: `INVALID_ARGUMENT`, as ROCr).
pub unsafe extern "C" fn hsa_amd_deregister_deallocation_callback(
    ptr: *mut c_void,
    callback: deallocation_cb,
) -> hsa_status_t {
    guard("hsa_amd_deregister_deallocation_callback", || {
        let c = ctx()?;
        if ptr.is_null() {
            return Err(null("ptr"));
        }
        let cb = callback.ok_or_else(|| null("callback"))?;
        let Some(b) = c.rt.pointer_info(ptr as u64) else {
            return Err(Error::invalid_argument(format!(
                "{ptr:p} is in no allocation"
            )));
        };
        let mut all = lock(&c.notifiers);
        let list = all.entry(b.start).or_default();
        let before = list.len();
        list.retain(|n| !(n.ptr == ptr as usize && n.callback == cb as usize));
        if list.len() == before {
            return Err(Error::invalid_argument("no such deallocation callback"));
        }
        OK
    })
}

/// `hsa_amd_agent_set_async_scratch_limit` (ROCr 6.1, beyond 5.2.3's
/// header): the use-once threshold of a GPU that reclaims scratch
/// asynchronously; queues holding more give it back, waiting for a
/// dispatch running on it (`Runtime::set_async_scratch_limit`).
/// `INVALID_AGENT` for a handle that is no GPU agent, `INVALID_ARGUMENT`
/// where the GPU has no asynchronous reclaim or above what it can address.
pub unsafe extern "C" fn hsa_amd_agent_set_async_scratch_limit(
    agent: hsa_agent_t,
    threshold: usize,
) -> hsa_status_t {
    guard("hsa_amd_agent_set_async_scratch_limit", || {
        let c = ctx()?;
        let a = agent_of(&c, agent)?;
        c.rt.set_async_scratch_limit(a, threshold as u64)?;
        OK
    })
}

/// `hsa_amd_queue_set_priority`, as ROCr: LOW, NORMAL, HIGH are
/// libhsakmt's minimum, normal and maximum priorities (KFD 0, 7, 15),
/// set with `UPDATE_QUEUE` on the unchanged ring at full percentage (a
/// driver failure is `HSA_STATUS_ERROR_OUT_OF_RESOURCES`, ROCr's answer).
pub unsafe extern "C" fn hsa_amd_queue_set_priority(
    queue: *mut c_void,
    priority: c_enum,
) -> hsa_status_t {
    guard("hsa_amd_queue_set_priority", || {
        use kfd::ioctl::QueuePriority;
        let c = ctx()?;
        if queue.is_null() {
            return Err(null("queue"));
        }
        let q = c.queue(queue as u64)?;
        let prio = match priority {
            crate::ffi::consts::HSA_AMD_QUEUE_PRIORITY_LOW => QueuePriority::MIN,
            crate::ffi::consts::HSA_AMD_QUEUE_PRIORITY_NORMAL => QueuePriority::NORMAL,
            crate::ffi::consts::HSA_AMD_QUEUE_PRIORITY_HIGH => QueuePriority::MAX,
            _ => {
                return Err(Error::invalid_argument(format!(
                    "queue priority {priority}"
                )));
            }
        };
        q.queue.set_priority(prio)?;
        OK
    })
}

/// `hsa_amd_queue_cu_set_mask`: the runtime's `Queue::set_cu_mask` (ROCr's
/// `SetCUMasking`: cut to the agent's CUs, ANDed with `HSA_CU_MASK`,
/// `HSA_STATUS_CU_MASK_REDUCED` when that disabled a requested CU); an
/// empty mask restores every CU.
pub unsafe extern "C" fn hsa_amd_queue_cu_set_mask(
    queue: *const c_void,
    num_cu_mask_count: u32,
    cu_mask: *const u32,
) -> hsa_status_t {
    guard("hsa_amd_queue_cu_set_mask", || {
        let c = ctx()?;
        let q = c.queue(queue as u64)?;
        if num_cu_mask_count != 0 && cu_mask.is_null() {
            return Err(null("cu_mask"));
        }
        if num_cu_mask_count % 32 != 0 {
            return Err(Error::invalid_argument(
                "num_cu_mask_count is no multiple of 32",
            ));
        }
        // SAFETY: the caller's num_cu_mask_count / 32 words.
        let given = unsafe { slice(cu_mask, (num_cu_mask_count / 32) as usize, "cu_mask") }?;
        let reduced = q.queue.set_cu_mask(given)?;
        Ok(if reduced {
            Status::CuMaskReduced as hsa_status_t
        } else {
            0
        })
    })
}

/// `hsa_amd_queue_cu_get_mask`: the mask in effect, `num_cu_mask_count /
/// 32` words (0 past its end).
pub unsafe extern "C" fn hsa_amd_queue_cu_get_mask(
    queue: *const c_void,
    num_cu_mask_count: u32,
    cu_mask: *mut u32,
) -> hsa_status_t {
    guard("hsa_amd_queue_cu_get_mask", || {
        let c = ctx()?;
        if cu_mask.is_null() {
            return Err(null("cu_mask"));
        }
        let q = c.queue(queue as u64)?;
        if num_cu_mask_count == 0 || num_cu_mask_count % 32 != 0 {
            return Err(Error::invalid_argument(
                "num_cu_mask_count is 0 or no multiple of 32",
            ));
        }
        let current = q.queue.cu_mask((num_cu_mask_count / 32) as usize);
        for (i, w) in current.into_iter().enumerate() {
            // SAFETY: the caller's num_cu_mask_count / 32 words.
            unsafe { cu_mask.add(i).write_unaligned(w) };
        }
        OK
    })
}

/// `hsa_amd_memory_async_copy_rect`: one async copy per row (the runtime's
/// SDMA or blit copies), all decrementing an internal signal set to the
/// row count; when it reaches 0 the handler thread decrements
/// `completion_signal` once. Offsets and range carry x in bytes, y and z in
/// rows and slices. An empty range copies nothing and, as in ROCr, leaves
/// the completion signal alone.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hsa_amd_memory_async_copy_rect(
    dst: *const hsa_pitched_ptr_t,
    dst_offset: *const hsa_dim3_t,
    src: *const hsa_pitched_ptr_t,
    src_offset: *const hsa_dim3_t,
    range: *const hsa_dim3_t,
    copy_agent: hsa_agent_t,
    dir: c_enum,
    num_dep_signals: u32,
    dep_signals: *const hsa_signal_t,
    completion_signal: hsa_signal_t,
) -> hsa_status_t {
    guard("hsa_amd_memory_async_copy_rect", || {
        let c = ctx()?;
        if dst.is_null()
            || src.is_null()
            || dst_offset.is_null()
            || src_offset.is_null()
            || range.is_null()
        {
            return Err(null("dst, src, an offset or range"));
        }
        if (num_dep_signals == 0) != dep_signals.is_null() {
            return Err(Error::invalid_argument(
                "num_dep_signals and dep_signals disagree",
            ));
        }
        use crate::ffi::consts::{
            HSA_DEVICE_TO_DEVICE, HSA_DEVICE_TO_HOST, HSA_HOST_TO_DEVICE, HSA_HOST_TO_HOST,
        };
        if dir == HSA_HOST_TO_HOST || dir > HSA_DEVICE_TO_DEVICE {
            return Err(Error::invalid_argument(format!("copy direction {dir}")));
        }
        let gpu = agent_of(&c, copy_agent)?;
        if !c.rt.agent(gpu)?.is_gpu() {
            return Err(Error::new(
                Status::InvalidAgent,
                "the copy agent is not a GPU",
            ));
        }
        let deps = signals(&c, num_dep_signals, dep_signals)?;
        let done = c.signal(completion_signal.handle)?;
        // SAFETY: non-NULL pointers to the caller's structs.
        let (d, doff, s, soff, r) = unsafe {
            (
                dst.read_unaligned(),
                dst_offset.read_unaligned(),
                src.read_unaligned(),
                src_offset.read_unaligned(),
                range.read_unaligned(),
            )
        };
        if r.x == 0 || r.y == 0 || r.z == 0 {
            return OK;
        }
        let cpu =
            c.rt.agents()
                .find(|&a| c.rt.agent(a).is_ok_and(|r| !r.is_gpu()))
                .ok_or_else(|| Error::new(Status::Error, "no CPU agent"))?;
        let (dst_agent, src_agent) = match dir {
            HSA_HOST_TO_DEVICE => (gpu, cpu),
            HSA_DEVICE_TO_HOST => (cpu, gpu),
            _ => (gpu, gpu),
        };
        let addr = |p: &hsa_pitched_ptr_t, o: &hsa_dim3_t, y: u32, z: u32| -> Result<u64, Error> {
            let off = (u64::from(o.z) + u64::from(z))
                .checked_mul(p.slice as u64)
                .and_then(|a| {
                    (u64::from(o.y) + u64::from(y))
                        .checked_mul(p.pitch as u64)
                        .and_then(|b| a.checked_add(b))
                })
                .and_then(|a| a.checked_add(u64::from(o.x)))
                .ok_or_else(|| {
                    Error::invalid_argument("the rectangle overflows the address space")
                })?;
            (p.base as u64)
                .checked_add(off)
                .ok_or_else(|| Error::invalid_argument("the rectangle overflows the address space"))
        };
        if u64::from(r.x) > d.pitch as u64 || u64::from(r.x) > s.pitch as u64 {
            return Err(Error::invalid_argument("range.x exceeds a pitch"));
        }
        let deps: Vec<&Signal> = deps.iter().collect();
        let mut segs = Vec::new();
        for z in 0..r.z {
            for y in 0..r.y {
                let to = addr(&d, &doff, y, z)?;
                let from = addr(&s, &soff, y, z)?;
                segs.extend(split_at_blocks(&c, to, from, u64::from(r.x)));
            }
        }
        // SAFETY: the caller keeps both rectangles for the copy until the
        // completion signal is decremented (the API's contract).
        unsafe { submit_segments(&c, &segs, dst_agent, src_agent, &deps, done) }?;
        OK
    })
}

/// `hsa_amd_profiling_set_profiler_enabled`: the queue's
/// `AMD_QUEUE_PROPERTIES_ENABLE_PROFILING` bit; the packet processor then
/// writes each completion signal's `start_ts` / `end_ts`.
pub unsafe extern "C" fn hsa_amd_profiling_set_profiler_enabled(
    queue: *mut c_void,
    enable: c_int,
) -> hsa_status_t {
    guard("hsa_amd_profiling_set_profiler_enabled", || {
        let c = ctx()?;
        let q = c.queue(queue as u64)?;
        c.rt.set_profiler_enabled(&q.queue, enable != 0)?;
        OK
    })
}

/// `hsa_amd_profiling_get_dispatch_time`: the completion signal's
/// `start_ts` / `end_ts`, in the system domain.
pub unsafe extern "C" fn hsa_amd_profiling_get_dispatch_time(
    agent: hsa_agent_t,
    signal: hsa_signal_t,
    time: *mut hsa_amd_profiling_dispatch_time_t,
) -> hsa_status_t {
    guard("hsa_amd_profiling_get_dispatch_time", || {
        let c = ctx()?;
        if time.is_null() {
            return Err(null("time"));
        }
        let a = agent_of(&c, agent)?;
        let s = c.signal(signal.handle)?;
        let t = c.rt.dispatch_time(a, &s)?;
        let t = hsa_amd_profiling_dispatch_time_t {
            start: t.start,
            end: t.end,
        };
        // SAFETY: non-NULL.
        unsafe { put(time, t, "time") }?;
        OK
    })
}

/// `hsa_amd_profiling_convert_tick_to_system_domain`.
pub unsafe extern "C" fn hsa_amd_profiling_convert_tick_to_system_domain(
    agent: hsa_agent_t,
    agent_tick: u64,
    system_tick: *mut u64,
) -> hsa_status_t {
    guard("hsa_amd_profiling_convert_tick_to_system_domain", || {
        let c = ctx()?;
        if system_tick.is_null() {
            return Err(null("system_tick"));
        }
        let a = agent_of(&c, agent)?;
        let t = c.rt.tick_to_system(a, agent_tick)?;
        // SAFETY: non-NULL.
        unsafe { put(system_tick, t, "system_tick") }?;
        OK
    })
}

/// `hsa_amd_profiling_async_copy_enable`: later async copies record their
/// start and end in their completion signal.
pub unsafe extern "C" fn hsa_amd_profiling_async_copy_enable(enable: bool) -> hsa_status_t {
    guard("hsa_amd_profiling_async_copy_enable", || {
        ctx()?.rt.set_async_copy_profiling(enable);
        OK
    })
}

/// `hsa_amd_profiling_get_async_copy_time`.
pub unsafe extern "C" fn hsa_amd_profiling_get_async_copy_time(
    signal: hsa_signal_t,
    time: *mut hsa_amd_profiling_async_copy_time_t,
) -> hsa_status_t {
    guard("hsa_amd_profiling_get_async_copy_time", || {
        let c = ctx()?;
        if time.is_null() {
            return Err(null("time"));
        }
        let s = c.signal(signal.handle)?;
        let t = c.rt.async_copy_time(&s)?;
        let t = hsa_amd_profiling_async_copy_time_t {
            start: t.start,
            end: t.end,
        };
        // SAFETY: non-NULL.
        unsafe { put(time, t, "time") }?;
        OK
    })
}

/// `hsa_amd_ipc_memory_create`: a dma-buf of the allocation, kept open for
/// importers (`runtime::ipc`).
pub unsafe extern "C" fn hsa_amd_ipc_memory_create(
    ptr: *mut c_void,
    len: usize,
    handle: *mut hsa_amd_ipc_memory_t,
) -> hsa_status_t {
    guard("hsa_amd_ipc_memory_create", || {
        let c = ctx()?;
        if handle.is_null() {
            return Err(null("handle"));
        }
        let h = c.rt.ipc_memory_create(ptr as u64, len as u64)?;
        // SAFETY: non-NULL.
        unsafe { put(handle, hsa_amd_ipc_memory_t { handle: h.0 }, "handle") }?;
        OK
    })
}

/// `hsa_amd_ipc_memory_attach`.
pub unsafe extern "C" fn hsa_amd_ipc_memory_attach(
    handle: *const hsa_amd_ipc_memory_t,
    len: usize,
    num_agents: u32,
    mapping_agents: *const hsa_agent_t,
    mapped_ptr: *mut *mut c_void,
) -> hsa_status_t {
    guard("hsa_amd_ipc_memory_attach", || {
        let c = ctx()?;
        if handle.is_null() {
            return Err(null("handle"));
        }
        if mapped_ptr.is_null() {
            return Err(null("mapped_ptr"));
        }
        // SAFETY: the caller's array of num_agents agents.
        let list =
            unsafe { crate::state::slice(mapping_agents, num_agents as usize, "mapping_agents") }?;
        let agents = list
            .iter()
            .map(|&a| agent_of(&c, a))
            .collect::<Result<Vec<_>, _>>()?;
        // SAFETY: non-NULL, the caller's handle.
        let h = runtime::ipc::IpcMemoryHandle(unsafe { (*handle).handle });
        let p = c.rt.ipc_memory_attach(&h, len as u64, &agents)?;
        // SAFETY: non-NULL.
        unsafe { put(mapped_ptr, p as *mut c_void, "mapped_ptr") }?;
        OK
    })
}

/// `hsa_amd_ipc_memory_detach`.
pub unsafe extern "C" fn hsa_amd_ipc_memory_detach(mapped_ptr: *mut c_void) -> hsa_status_t {
    guard("hsa_amd_ipc_memory_detach", || {
        ctx()?.rt.ipc_memory_detach(mapped_ptr as u64)?;
        OK
    })
}

/// `hsa_amd_ipc_signal_create`: shares a signal made with
/// `HSA_AMD_SIGNAL_IPC`.
pub unsafe extern "C" fn hsa_amd_ipc_signal_create(
    signal: hsa_signal_t,
    handle: *mut hsa_amd_ipc_signal_t,
) -> hsa_status_t {
    guard("hsa_amd_ipc_signal_create", || {
        let c = ctx()?;
        if handle.is_null() {
            return Err(null("handle"));
        }
        let s = c.signal(signal.handle)?;
        let h = c.rt.ipc_signal_create(&s)?;
        // SAFETY: non-NULL.
        unsafe { put(handle, hsa_amd_ipc_signal_t { handle: h.0 }, "handle") }?;
        OK
    })
}

/// `hsa_amd_ipc_signal_attach`: a signal of this process on another's.
pub unsafe extern "C" fn hsa_amd_ipc_signal_attach(
    handle: *const hsa_amd_ipc_signal_t,
    signal: *mut hsa_signal_t,
) -> hsa_status_t {
    guard("hsa_amd_ipc_signal_attach", || {
        let c = ctx()?;
        if handle.is_null() {
            return Err(null("handle"));
        }
        if signal.is_null() {
            return Err(null("signal"));
        }
        // SAFETY: non-NULL, the caller's handle.
        let h = runtime::ipc::IpcMemoryHandle(unsafe { (*handle).handle });
        let s = c.rt.ipc_signal_attach(&h)?;
        let sh = s.handle();
        lock(&c.signals).insert(sh, s);
        // SAFETY: non-NULL.
        unsafe { put(signal, hsa_signal_t { handle: sh }, "signal") }?;
        OK
    })
}

/// `hsa_amd_register_system_event_handler`: `callback` gets every GPU
/// memory fault (`HSA_AMD_GPU_MEMORY_FAULT_EVENT`), on the runtime's event
/// thread; without one that returns success the fault is ROCr's message and
/// `abort()` (`runtime::system_events`).
pub unsafe extern "C" fn hsa_amd_register_system_event_handler(
    callback: system_event_cb,
    data: *mut c_void,
) -> hsa_status_t {
    guard("hsa_amd_register_system_event_handler", || {
        let c = ctx()?;
        let Some(cb) = callback else {
            return Err(null("callback"));
        };
        let data = data as usize;
        c.rt.register_system_event_handler(Box::new(move |e| {
            let runtime::system_events::SystemEvent::GpuMemoryFault(f) = e;
            let ev = hsa_amd_event_t {
                event_type: crate::ffi::consts::HSA_AMD_GPU_MEMORY_FAULT_EVENT,
                memory_fault: hsa_amd_gpu_memory_fault_info_t {
                    agent: hsa_agent_t {
                        handle: f.agent.handle(),
                    },
                    virtual_address: f.virtual_address,
                    fault_reason_mask: f.fault_reason_mask,
                },
            };
            // SAFETY: the C caller's callback with its own data pointer,
            // and an event that lives for the call.
            let status = unsafe { cb((&raw const ev).cast(), data as *mut c_void) };
            Status::from_raw(status).unwrap_or(Status::Error)
        }));
        OK
    })
}

/// A call this runtime does not implement: the context check, then `status`.
fn unimplemented(name: &str, status: Status) -> Result<hsa_status_t, Error> {
    ctx()?;
    Err(Error::new(status, format!("{name} is not implemented")))
}

macro_rules! not_implemented {
    ($($(#[$m:meta])* fn $name:ident($($a:ident: $t:ty),* $(,)?) => $status:ident;)*) => {$(
        $(#[$m])*
        pub unsafe extern "C" fn $name($($a: $t),*) -> hsa_status_t {
            $(let _ = $a;)*
            guard(stringify!($name), || unimplemented(stringify!($name), Status::$status))
        }
    )*};
}

not_implemented! {
    /// `hsa_amd_interop_map_buffer`: no graphics interop (`HSA_STATUS_ERROR`).
    fn hsa_amd_interop_map_buffer(num_agents: u32, agents: *mut hsa_agent_t, interop_handle: c_int, flags: u32, size: *mut usize, ptr: *mut *mut c_void, metadata_size: *mut usize, metadata: *mut *const c_void) => Error;
    /// `hsa_amd_interop_unmap_buffer`: no graphics interop (`HSA_STATUS_ERROR`).
    fn hsa_amd_interop_unmap_buffer(ptr: *mut c_void) => Error;
    /// `hsa_amd_queue_intercept_create` (API table only, not exported by ROCr 5.2.3): not implemented (`HSA_STATUS_ERROR`).
    fn hsa_amd_queue_intercept_create(agent: hsa_agent_t, size: u32, type_: c_enum, callback: queue_error_cb, data: *mut c_void, private_segment_size: u32, group_segment_size: u32, queue: *mut *mut c_void) => Error;
    /// `hsa_amd_queue_intercept_register` (API table only): not implemented (`HSA_STATUS_ERROR`).
    fn hsa_amd_queue_intercept_register(queue: *mut c_void, callback: *const c_void, user_data: *mut c_void) => Error;
    /// `hsa_amd_runtime_queue_create_register` (API table only): not implemented (`HSA_STATUS_ERROR`).
    fn hsa_amd_runtime_queue_create_register(callback: *const c_void, user_data: *mut c_void) => Error;
}

// hsa_amd_svm_attribute_t (hsa_ext_amd.h).
use crate::ffi::consts::{
    HSA_AMD_SVM_ATTRIB_ACCESS_QUERY as SVM_ATTRIB_ACCESS_QUERY,
    HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE as SVM_ATTRIB_AGENT_ACCESSIBLE,
    HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE as SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE,
    HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS as SVM_ATTRIB_AGENT_NO_ACCESS,
    HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG as SVM_ATTRIB_GLOBAL_FLAG,
    HSA_AMD_SVM_ATTRIB_HIVE_LOCAL as SVM_ATTRIB_HIVE_LOCAL,
    HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY as SVM_ATTRIB_MIGRATION_GRANULARITY,
    HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION as SVM_ATTRIB_PREFERRED_LOCATION,
    HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION as SVM_ATTRIB_PREFETCH_LOCATION,
    HSA_AMD_SVM_ATTRIB_READ_MOSTLY as SVM_ATTRIB_READ_MOSTLY,
    HSA_AMD_SVM_ATTRIB_READ_ONLY as SVM_ATTRIB_READ_ONLY, HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED,
    HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED, HSA_AMD_SVM_GLOBAL_FLAG_INDETERMINATE,
};

/// `hsa_amd_svm_attributes_set`: the attributes as ROCr's `SetSvmAttrib`
/// hands them to KFD (`runtime::svm`); HIP's `hipMallocManaged` gives the
/// device access this way. `PREFETCH_LOCATION`, `ACCESS_QUERY`, an unknown
/// attribute and a `GLOBAL_FLAG` other than fine or coarse are
/// `INVALID_ARGUMENT` (the header: "may not be used with this API"); a
/// null agent as the preferred location is no preference.
pub unsafe extern "C" fn hsa_amd_svm_attributes_set(
    ptr: *mut c_void,
    size: usize,
    attribute_list: *mut hsa_amd_svm_attribute_pair_t,
    attribute_count: usize,
) -> hsa_status_t {
    guard("hsa_amd_svm_attributes_set", || {
        use runtime::svm::SvmAttribute as A;
        let c = ctx()?;
        // SAFETY: the caller's array of attribute_count pairs.
        let list = unsafe { slice(attribute_list, attribute_count, "attribute_list") }?;
        let agent = |v: u64| agent_of(&c, hsa_agent_t { handle: v });
        let mut attrs = Vec::with_capacity(list.len());
        for (i, p) in list.iter().enumerate() {
            attrs.push(match p.attribute {
                // HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED 0, COARSE_GRAINED 1.
                SVM_ATTRIB_GLOBAL_FLAG
                    if p.value == HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED
                        || p.value == HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED =>
                {
                    A::GlobalFlag {
                        fine: p.value == HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED,
                    }
                }
                SVM_ATTRIB_READ_ONLY => A::ReadOnly(p.value != 0),
                SVM_ATTRIB_HIVE_LOCAL => A::HiveLocal(p.value != 0),
                SVM_ATTRIB_MIGRATION_GRANULARITY => A::MigrationGranularity(p.value),
                SVM_ATTRIB_PREFERRED_LOCATION if p.value == 0 => A::PreferredLocation(None),
                SVM_ATTRIB_PREFERRED_LOCATION => A::PreferredLocation(Some(agent(p.value)?)),
                SVM_ATTRIB_READ_MOSTLY => A::ReadMostly(p.value != 0),
                SVM_ATTRIB_AGENT_ACCESSIBLE => A::Accessible(agent(p.value)?),
                SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE => A::AccessibleInPlace(agent(p.value)?),
                SVM_ATTRIB_AGENT_NO_ACCESS => A::NoAccess(agent(p.value)?),
                _ => {
                    return Err(Error::invalid_argument(format!(
                        "hsa_amd_svm_attributes_set: attribute {i} ({:#x} = {:#x}) cannot be set",
                        p.attribute, p.value
                    )));
                }
            });
        }
        // SAFETY: the caller's memory: HIP keeps a managed allocation mapped
        // until it frees it, after the GPU's last use.
        unsafe { c.rt.svm_set_attributes(ptr as u64, size as u64, &attrs) }?;
        OK
    })
}

/// `hsa_amd_svm_attributes_get`: each pair's value (and, for
/// `ACCESS_QUERY`, its attribute) overwritten as ROCr's `GetSvmAttrib`
/// does: flags as the KFD flag bit (`READ_ONLY` answers
/// `KFD_IOCTL_SVM_FLAG_GPU_RO`, 8, when set), locations as agent handles
/// (0: none, or parts differ), an `ACCESS_QUERY` rewritten to
/// `AGENT_ACCESSIBLE`, `_IN_PLACE` or `AGENT_NO_ACCESS` (left as it is for
/// a CPU without host access). The access attributes of `_set` and unknown
/// ones are `INVALID_ARGUMENT`.
pub unsafe extern "C" fn hsa_amd_svm_attributes_get(
    ptr: *mut c_void,
    size: usize,
    attribute_list: *mut hsa_amd_svm_attribute_pair_t,
    attribute_count: usize,
) -> hsa_status_t {
    guard("hsa_amd_svm_attributes_get", || {
        use runtime::svm::{SvmAccess, SvmModel, SvmQuery as Q, SvmValue as V};
        let c = ctx()?;
        if attribute_count != 0 && attribute_list.is_null() {
            return Err(null("attribute_list"));
        }
        let list: &mut [hsa_amd_svm_attribute_pair_t] = if attribute_count == 0 {
            &mut []
        } else {
            // SAFETY: the caller's array of attribute_count pairs, which
            // this call overwrites (checked non-null above).
            unsafe { std::slice::from_raw_parts_mut(attribute_list, attribute_count) }
        };
        let mut queries = Vec::with_capacity(list.len());
        for (i, p) in list.iter().enumerate() {
            queries.push(match p.attribute {
                SVM_ATTRIB_GLOBAL_FLAG => Q::GlobalFlag,
                SVM_ATTRIB_READ_ONLY => Q::ReadOnly,
                SVM_ATTRIB_HIVE_LOCAL => Q::HiveLocal,
                SVM_ATTRIB_MIGRATION_GRANULARITY => Q::MigrationGranularity,
                SVM_ATTRIB_PREFERRED_LOCATION => Q::PreferredLocation,
                SVM_ATTRIB_PREFETCH_LOCATION => Q::PrefetchLocation,
                SVM_ATTRIB_READ_MOSTLY => Q::ReadMostly,
                SVM_ATTRIB_ACCESS_QUERY => {
                    Q::Access(agent_of(&c, hsa_agent_t { handle: p.value })?)
                }
                _ => {
                    return Err(Error::invalid_argument(format!(
                        "hsa_amd_svm_attributes_get: attribute {i} ({:#x}) cannot be queried",
                        p.attribute
                    )));
                }
            });
        }
        let answers = c.rt.svm_get_attributes(ptr as u64, size as u64, &queries)?;
        for ((p, q), a) in list.iter_mut().zip(&queries).zip(answers) {
            match a {
                V::Model(m) => {
                    p.value = match m {
                        SvmModel::FineGrained => HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED,
                        SvmModel::CoarseGrained => HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED,
                        SvmModel::Indeterminate => HSA_AMD_SVM_GLOBAL_FLAG_INDETERMINATE,
                    }
                }
                V::Flag(on) => {
                    use kfd::ioctl::consts::*;
                    let bit = match q {
                        Q::ReadOnly => KFD_IOCTL_SVM_FLAG_GPU_RO,
                        Q::HiveLocal => KFD_IOCTL_SVM_FLAG_HIVE_LOCAL,
                        _ => KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY,
                    };
                    p.value = if on { u64::from(bit) } else { 0 };
                }
                V::Granularity(g) => p.value = u64::from(g),
                V::Location(agent) => p.value = agent.map_or(0, |a| a.handle()),
                V::Access(access) => {
                    p.attribute = match access {
                        SvmAccess::Accessible => SVM_ATTRIB_AGENT_ACCESSIBLE,
                        SvmAccess::AccessibleInPlace => SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE,
                        SvmAccess::NoAccess => SVM_ATTRIB_AGENT_NO_ACCESS,
                        SvmAccess::Unreported => SVM_ATTRIB_ACCESS_QUERY,
                    }
                }
            }
        }
        OK
    })
}

/// `hsa_amd_svm_prefetch_async`: the range moves to `agent` once every
/// dependency signal is 0, then `completion_signal` (if not the null
/// handle) is decremented; returns at once (`runtime::svm`).
pub unsafe extern "C" fn hsa_amd_svm_prefetch_async(
    ptr: *mut c_void,
    size: usize,
    agent: hsa_agent_t,
    num_dep_signals: u32,
    dep_signals: *const hsa_signal_t,
    completion_signal: hsa_signal_t,
) -> hsa_status_t {
    guard("hsa_amd_svm_prefetch_async", || {
        let c = ctx()?;
        let a = agent_of(&c, agent)?;
        // SAFETY: the caller's array of num_dep_signals handles.
        let deps = unsafe { slice(dep_signals, num_dep_signals as usize, "dep_signals") }?;
        let deps = deps
            .iter()
            .map(|s| c.signal(s.handle))
            .collect::<Result<Vec<_>, _>>()?;
        let completion = match completion_signal.handle {
            0 => None,
            h => Some(c.signal(h)?),
        };
        c.rt.svm_prefetch_async(ptr as u64, size as u64, a, &deps, completion)?;
        OK
    })
}
