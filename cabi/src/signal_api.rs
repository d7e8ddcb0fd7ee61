//! Signals and signal groups (`hsa.h`), and the AMD signal calls
//! (`hsa_amd_signal_create`, `_value_pointer`, `_wait_any`,
//! `_async_handler`).

#![allow(unsafe_code)]
#![allow(clippy::missing_safety_doc)]
// Out-pointers of one C call are written under the one contract the call has.
#![allow(clippy::multiple_unsafe_ops_per_block)]

use core::ffi::c_void;

use runtime::agent::Agent;
use runtime::{Error, Signal, Status};
use signal_core::{Condition, LoadOrder, RmwOrder, StoreOrder, WaitState};

use crate::core_api::agent_of;
use crate::ffi::*;
use crate::state::{OK, ctx, guard, guard_value, lock, null, put, slice};

fn condition(c: c_enum) -> Result<Condition, Error> {
    Condition::try_from(c).map_err(|_| Error::invalid_argument(format!("condition {c}")))
}

fn wait_state(w: c_enum) -> Result<WaitState, Error> {
    WaitState::try_from(w).map_err(|_| Error::invalid_argument(format!("wait state {w}")))
}

fn consumers(c: &crate::state::Ctx, n: u32, list: *const hsa_agent_t) -> Result<Vec<Agent>, Error> {
    // SAFETY: the caller's array of n agents.
    let l = unsafe { slice(list, n as usize, "consumers") }?;
    l.iter().map(|&a| agent_of(c, a)).collect()
}

fn create(
    initial: hsa_signal_value_t,
    num_consumers: u32,
    list: *const hsa_agent_t,
    signal: *mut hsa_signal_t,
) -> Result<hsa_status_t, Error> {
    let c = ctx()?;
    if signal.is_null() {
        return Err(null("signal"));
    }
    let agents = consumers(&c, num_consumers, list)?;
    let s = c.rt.create_signal_for(initial, &agents)?;
    let h = s.handle();
    lock(&c.signals).insert(h, s);
    // SAFETY: non-NULL.
    unsafe { put(signal, hsa_signal_t { handle: h }, "signal") }?;
    OK
}

/// `hsa_signal_create`.
pub unsafe extern "C" fn hsa_signal_create(
    initial_value: hsa_signal_value_t,
    num_consumers: u32,
    consumers: *const hsa_agent_t,
    signal: *mut hsa_signal_t,
) -> hsa_status_t {
    guard("hsa_signal_create", || {
        create(initial_value, num_consumers, consumers, signal)
    })
}

/// `hsa_amd_signal_create`: `HSA_AMD_SIGNAL_AMD_GPU_ONLY` makes a default
/// signal (no interrupt event), as ROCr; `HSA_AMD_SIGNAL_IPC` a signal on a
/// page of its own that `hsa_amd_ipc_signal_create` can share
/// (`Runtime::create_ipc_signal`); no attribute is `hsa_signal_create`.
pub unsafe extern "C" fn hsa_amd_signal_create(
    initial_value: hsa_signal_value_t,
    num_consumers: u32,
    consumers: *const hsa_agent_t,
    attributes: u64,
    signal: *mut hsa_signal_t,
) -> hsa_status_t {
    guard("hsa_amd_signal_create", || {
        use crate::ffi::consts::{HSA_AMD_SIGNAL_AMD_GPU_ONLY, HSA_AMD_SIGNAL_IPC};
        if attributes & HSA_AMD_SIGNAL_IPC != 0 {
            let c = ctx()?;
            if signal.is_null() {
                return Err(null("signal"));
            }
            let s = c.rt.create_ipc_signal(initial_value)?;
            let h = s.handle();
            lock(&c.signals).insert(h, s);
            // SAFETY: non-NULL.
            unsafe { put(signal, hsa_signal_t { handle: h }, "signal") }?;
            return OK;
        }
        if attributes & HSA_AMD_SIGNAL_AMD_GPU_ONLY != 0 {
            // ROCr's rule: a default signal (no interrupt event), the
            // consumers not looked at.
            let c = ctx()?;
            if signal.is_null() {
                return Err(null("signal"));
            }
            let s =
                c.rt.create_signal_of_kind(initial_value, runtime::SignalKind::Default)?;
            let h = s.handle();
            lock(&c.signals).insert(h, s);
            // SAFETY: non-NULL.
            unsafe { put(signal, hsa_signal_t { handle: h }, "signal") }?;
            return OK;
        }
        create(initial_value, num_consumers, consumers, signal)
    })
}

/// `hsa_signal_destroy`.
pub extern "C" fn hsa_signal_destroy(signal: hsa_signal_t) -> hsa_status_t {
    guard("hsa_signal_destroy", || {
        let c = ctx()?;
        if signal.handle == 0 {
            // ROCr's hsa_signal_destroy: the null handle is INVALID_ARGUMENT.
            return Err(Error::invalid_argument("the signal handle is 0"));
        }
        let s = lock(&c.signals).remove(&signal.handle).ok_or_else(|| {
            Error::new(
                Status::InvalidSignal,
                format!("hsa_signal_t {:#x} is no live signal", signal.handle),
            )
        })?;
        s.destroy();
        OK
    })
}

/// The signal of a handle, for the value operations.
fn sig(h: hsa_signal_t) -> Result<Signal, Error> {
    ctx()?.signal(h.handle)
}

macro_rules! signal_fns {
    (load $($name:ident: $ord:expr;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` (an unknown signal: 0).")]
        pub extern "C" fn $name(signal: hsa_signal_t) -> hsa_signal_value_t {
            guard_value(stringify!($name), 0, || Ok(sig(signal)?.load($ord)))
        }
    )*};
    (store $($name:ident: $method:ident, $ord:expr;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` (a queue's doorbell signal rings the doorbell).")]
        pub extern "C" fn $name(signal: hsa_signal_t, value: hsa_signal_value_t) {
            guard_value(stringify!($name), (), || {
                let c = ctx()?;
                match c.signal(signal.handle) {
                    Ok(s) => s.$method(value, $ord),
                    Err(e) => {
                        let q = lock(&c.doorbells).get(&signal.handle).cloned().ok_or(e)?;
                        q.queue.ring_doorbell(value as u64);
                    }
                }
                Ok(())
            })
        }
    )*};
    (rmw $($name:ident: $method:ident, $ord:expr;)*) => {$(
        #[doc = concat!("`", stringify!($name), "`.")]
        pub extern "C" fn $name(signal: hsa_signal_t, value: hsa_signal_value_t) {
            guard_value(stringify!($name), (), || {
                sig(signal)?.$method(value, $ord);
                Ok(())
            })
        }
    )*};
    (exchange $($name:ident: $ord:expr;)*) => {$(
        #[doc = concat!("`", stringify!($name), "`: the previous value.")]
        pub extern "C" fn $name(signal: hsa_signal_t, value: hsa_signal_value_t) -> hsa_signal_value_t {
            guard_value(stringify!($name), 0, || Ok(sig(signal)?.exchange(value, $ord)))
        }
    )*};
    (cas $($name:ident: $ord:expr;)*) => {$(
        #[doc = concat!("`", stringify!($name), "`: the previous value.")]
        pub extern "C" fn $name(
            signal: hsa_signal_t,
            expected: hsa_signal_value_t,
            value: hsa_signal_value_t,
        ) -> hsa_signal_value_t {
            guard_value(stringify!($name), 0, || Ok(sig(signal)?.cas(expected, value, $ord)))
        }
    )*};
    (wait $($name:ident: $ord:expr;)*) => {$(
        #[doc = concat!("`", stringify!($name), "`: the last value seen (an unknown signal: 0).")]
        pub extern "C" fn $name(
            signal: hsa_signal_t,
            cond: c_enum,
            compare_value: hsa_signal_value_t,
            timeout_hint: u64,
            wait_state_hint: c_enum,
        ) -> hsa_signal_value_t {
            guard_value(stringify!($name), 0, || {
                let s = sig(signal)?;
                s.wait(condition(cond)?, compare_value, timeout_hint, wait_state(wait_state_hint)?, $ord)
            })
        }
    )*};
}

signal_fns! { load
    hsa_signal_load_relaxed: LoadOrder::Relaxed;
    hsa_signal_load_acquire: LoadOrder::Acquire;
    hsa_signal_load_scacquire: LoadOrder::Acquire;
}
signal_fns! { store
    hsa_signal_store_relaxed: store, StoreOrder::Relaxed;
    hsa_signal_store_release: store, StoreOrder::Release;
    hsa_signal_store_screlease: store, StoreOrder::Release;
    hsa_signal_silent_store_relaxed: silent_store, StoreOrder::Relaxed;
    hsa_signal_silent_store_screlease: silent_store, StoreOrder::Release;
}
signal_fns! { exchange
    hsa_signal_exchange_relaxed: RmwOrder::Relaxed;
    hsa_signal_exchange_acquire: RmwOrder::Acquire;
    hsa_signal_exchange_scacquire: RmwOrder::Acquire;
    hsa_signal_exchange_release: RmwOrder::Release;
    hsa_signal_exchange_screlease: RmwOrder::Release;
    hsa_signal_exchange_acq_rel: RmwOrder::AcqRel;
    hsa_signal_exchange_scacq_screl: RmwOrder::AcqRel;
}
signal_fns! { cas
    hsa_signal_cas_relaxed: RmwOrder::Relaxed;
    hsa_signal_cas_acquire: RmwOrder::Acquire;
    hsa_signal_cas_scacquire: RmwOrder::Acquire;
    hsa_signal_cas_release: RmwOrder::Release;
    hsa_signal_cas_screlease: RmwOrder::Release;
    hsa_signal_cas_acq_rel: RmwOrder::AcqRel;
    hsa_signal_cas_scacq_screl: RmwOrder::AcqRel;
}
signal_fns! { rmw
    hsa_signal_add_relaxed: add, RmwOrder::Relaxed;
    hsa_signal_add_acquire: add, RmwOrder::Acquire;
    hsa_signal_add_scacquire: add, RmwOrder::Acquire;
    hsa_signal_add_release: add, RmwOrder::Release;
    hsa_signal_add_screlease: add, RmwOrder::Release;
    hsa_signal_add_acq_rel: add, RmwOrder::AcqRel;
    hsa_signal_add_scacq_screl: add, RmwOrder::AcqRel;
    hsa_signal_subtract_relaxed: subtract, RmwOrder::Relaxed;
    hsa_signal_subtract_acquire: subtract, RmwOrder::Acquire;
    hsa_signal_subtract_scacquire: subtract, RmwOrder::Acquire;
    hsa_signal_subtract_release: subtract, RmwOrder::Release;
    hsa_signal_subtract_screlease: subtract, RmwOrder::Release;
    hsa_signal_subtract_acq_rel: subtract, RmwOrder::AcqRel;
    hsa_signal_subtract_scacq_screl: subtract, RmwOrder::AcqRel;
    hsa_signal_and_relaxed: and, RmwOrder::Relaxed;
    hsa_signal_and_acquire: and, RmwOrder::Acquire;
    hsa_signal_and_scacquire: and, RmwOrder::Acquire;
    hsa_signal_and_release: and, RmwOrder::Release;
    hsa_signal_and_screlease: and, RmwOrder::Release;
    hsa_signal_and_acq_rel: and, RmwOrder::AcqRel;
    hsa_signal_and_scacq_screl: and, RmwOrder::AcqRel;
    hsa_signal_or_relaxed: or, RmwOrder::Relaxed;
    hsa_signal_or_acquire: or, RmwOrder::Acquire;
    hsa_signal_or_scacquire: or, RmwOrder::Acquire;
    hsa_signal_or_release: or, RmwOrder::Release;
    hsa_signal_or_screlease: or, RmwOrder::Release;
    hsa_signal_or_acq_rel: or, RmwOrder::AcqRel;
    hsa_signal_or_scacq_screl: or, RmwOrder::AcqRel;
    hsa_signal_xor_relaxed: xor, RmwOrder::Relaxed;
    hsa_signal_xor_acquire: xor, RmwOrder::Acquire;
    hsa_signal_xor_scacquire: xor, RmwOrder::Acquire;
    hsa_signal_xor_release: xor, RmwOrder::Release;
    hsa_signal_xor_screlease: xor, RmwOrder::Release;
    hsa_signal_xor_acq_rel: xor, RmwOrder::AcqRel;
    hsa_signal_xor_scacq_screl: xor, RmwOrder::AcqRel;
}
signal_fns! { wait
    hsa_signal_wait_relaxed: LoadOrder::Relaxed;
    hsa_signal_wait_acquire: LoadOrder::Acquire;
    hsa_signal_wait_scacquire: LoadOrder::Acquire;
}

/// `hsa_signal_group_create`.
pub unsafe extern "C" fn hsa_signal_group_create(
    num_signals: u32,
    signals: *const hsa_signal_t,
    num_consumers: u32,
    consumers_list: *const hsa_agent_t,
    group: *mut hsa_signal_group_t,
) -> hsa_status_t {
    guard("hsa_signal_group_create", || {
        let c = ctx()?;
        if group.is_null() {
            return Err(null("signal_group"));
        }
        if num_signals == 0 {
            return Err(Error::invalid_argument("no signals"));
        }
        // SAFETY: the caller's array.
        let hs = unsafe { slice(signals, num_signals as usize, "signals") }?;
        let list: Vec<Signal> = hs
            .iter()
            .map(|h| c.signal(h.handle))
            .collect::<Result<_, _>>()?;
        let refs: Vec<&Signal> = list.iter().collect();
        let agents = consumers(&c, num_consumers, consumers_list)?;
        let g = c.rt.create_signal_group(&refs, &agents)?;
        let h = g.handle();
        lock(&c.groups).insert(h, g);
        // SAFETY: non-NULL.
        unsafe { put(group, hsa_signal_group_t { handle: h }, "signal_group") }?;
        OK
    })
}

/// `hsa_signal_group_destroy`.
pub extern "C" fn hsa_signal_group_destroy(group: hsa_signal_group_t) -> hsa_status_t {
    guard("hsa_signal_group_destroy", || {
        let c = ctx()?;
        let g = lock(&c.groups)
            .remove(&group.handle)
            .ok_or_else(|| Error::new(Status::InvalidSignalGroup, "no such signal group"))?;
        g.destroy();
        OK
    })
}

unsafe fn group_wait(
    group: hsa_signal_group_t,
    conditions: *const c_enum,
    compare_values: *const hsa_signal_value_t,
    wait_state_hint: c_enum,
    signal: *mut hsa_signal_t,
    value: *mut hsa_signal_value_t,
    order: LoadOrder,
) -> Result<hsa_status_t, Error> {
    let c = ctx()?;
    if signal.is_null() || value.is_null() {
        return Err(null("signal or value"));
    }
    let g = lock(&c.groups)
        .get(&group.handle)
        .cloned()
        .ok_or_else(|| Error::new(Status::InvalidSignalGroup, "no such signal group"))?;
    drop(c);
    let n = g.signals().len();
    // SAFETY: one condition and one compare value per signal of the group.
    let (conds, values) = unsafe {
        (
            slice(conditions, n, "conditions")?,
            slice(compare_values, n, "compare_values")?,
        )
    };
    let conds: Vec<Condition> = conds
        .iter()
        .map(|&c| condition(c))
        .collect::<Result<_, _>>()?;
    let (i, v) = g.wait_any(&conds, values, wait_state(wait_state_hint)?, order)?;
    // SAFETY: both non-NULL.
    unsafe {
        put(
            signal,
            hsa_signal_t {
                handle: g.signals()[i].handle(),
            },
            "signal",
        )?;
        put(value, v, "value")?;
    }
    OK
}

/// `hsa_signal_group_wait_any_relaxed`.
pub unsafe extern "C" fn hsa_signal_group_wait_any_relaxed(
    group: hsa_signal_group_t,
    conditions: *const c_enum,
    compare_values: *const hsa_signal_value_t,
    wait_state_hint: c_enum,
    signal: *mut hsa_signal_t,
    value: *mut hsa_signal_value_t,
) -> hsa_status_t {
    guard("hsa_signal_group_wait_any_relaxed", || {
        // SAFETY: forwarded.
        unsafe {
            group_wait(
                group,
                conditions,
                compare_values,
                wait_state_hint,
                signal,
                value,
                LoadOrder::Relaxed,
            )
        }
    })
}

/// `hsa_signal_group_wait_any_scacquire`.
pub unsafe extern "C" fn hsa_signal_group_wait_any_scacquire(
    group: hsa_signal_group_t,
    conditions: *const c_enum,
    compare_values: *const hsa_signal_value_t,
    wait_state_hint: c_enum,
    signal: *mut hsa_signal_t,
    value: *mut hsa_signal_value_t,
) -> hsa_status_t {
    guard("hsa_signal_group_wait_any_scacquire", || {
        // SAFETY: forwarded.
        unsafe {
            group_wait(
                group,
                conditions,
                compare_values,
                wait_state_hint,
                signal,
                value,
                LoadOrder::Acquire,
            )
        }
    })
}

/// `hsa_amd_signal_value_pointer`: the `value` word of the `amd_signal_t`.
pub unsafe extern "C" fn hsa_amd_signal_value_pointer(
    signal: hsa_signal_t,
    value_ptr: *mut *mut hsa_signal_value_t,
) -> hsa_status_t {
    guard("hsa_amd_signal_value_pointer", || {
        let c = ctx()?;
        if value_ptr.is_null() {
            return Err(null("value_ptr"));
        }
        let s = c.signal(signal.handle)?;
        // `amd_signal_t.value` is at offset 8.
        // SAFETY: non-NULL.
        unsafe {
            put(
                value_ptr,
                (s.handle() + 8) as *mut hsa_signal_value_t,
                "value_ptr",
            )
        }?;
        OK
    })
}

/// `hsa_amd_signal_wait_any`: the index of a satisfied signal, or
/// `signal_count` on timeout (and on bad arguments, which ROCr asserts on).
pub unsafe extern "C" fn hsa_amd_signal_wait_any(
    signal_count: u32,
    signals: *mut hsa_signal_t,
    conds: *mut c_enum,
    values: *mut hsa_signal_value_t,
    timeout_hint: u64,
    wait_hint: c_enum,
    satisfying_value: *mut hsa_signal_value_t,
) -> u32 {
    guard_value("hsa_amd_signal_wait_any", signal_count, || {
        let c = ctx()?;
        let n = signal_count as usize;
        // SAFETY: the caller's arrays of signal_count elements.
        let (hs, cs, vs) = unsafe {
            (
                slice(signals.cast_const(), n, "signals")?,
                slice(conds.cast_const(), n, "conds")?,
                slice(values.cast_const(), n, "values")?,
            )
        };
        let sigs: Vec<Signal> = hs
            .iter()
            .map(|h| c.signal(h.handle))
            .collect::<Result<_, _>>()?;
        drop(c);
        let mut list = Vec::with_capacity(n);
        for i in 0..n {
            list.push((&sigs[i], condition(cs[i])?, vs[i]));
        }
        let out = ctx()?.rt.wait_any(
            &list,
            timeout_hint,
            wait_state(wait_hint)?,
            LoadOrder::Acquire,
        )?;
        Ok(match out {
            Some((i, v)) => {
                if !satisfying_value.is_null() {
                    // SAFETY: non-NULL.
                    unsafe { put(satisfying_value, v, "satisfying_value") }?;
                }
                i as u32
            }
            None => signal_count,
        })
    })
}

/// `hsa_amd_signal_async_handler`.
pub unsafe extern "C" fn hsa_amd_signal_async_handler(
    signal: hsa_signal_t,
    cond: c_enum,
    value: hsa_signal_value_t,
    handler: signal_handler,
    arg: *mut c_void,
) -> hsa_status_t {
    guard("hsa_amd_signal_async_handler", || {
        let c = ctx()?;
        let h = handler.ok_or_else(|| null("handler"))?;
        let s = c.signal(signal.handle)?;
        let cond = condition(cond)?;
        let arg = arg as usize;
        // SAFETY: the caller's handler with its argument, called on the
        // handler thread as ROCr calls it.
        c.rt.async_handler(&s, cond, value, move |v| unsafe {
            h(v, arg as *mut c_void)
        })?;
        OK
    })
}

/// `hsa_amd_async_function`: runs `callback(arg)` on a runtime thread.
pub unsafe extern "C" fn hsa_amd_async_function(
    callback: Option<unsafe extern "C" fn(*mut c_void)>,
    arg: *mut c_void,
) -> hsa_status_t {
    guard("hsa_amd_async_function", || {
        let c = ctx()?;
        let f = callback.ok_or_else(|| null("callback"))?;
        // A signal already at 0 fires the handler once, on the handler thread.
        let s =
            c.rt.create_signal_of_kind(0, runtime::SignalKind::Default)?;
        let arg = arg as usize;
        let keep = s.clone();
        c.rt.async_handler(&s, Condition::Eq, 0, move |_| {
            // SAFETY: the caller's function and argument.
            unsafe { f(arg as *mut c_void) };
            let _ = &keep;
            false
        })?;
        OK
    })
}
