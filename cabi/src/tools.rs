//! `HSA_TOOLS_LIB`: tools libraries loaded at `hsa_init` (not implemented
//! yet: a set variable gets a one-line notice, and calls go straight to the
//! runtime).

#![allow(unsafe_code)]

use core::ffi::c_void;
use std::sync::Once;

use crate::ffi::*;

/// At the first `hsa_init`: tells that `HSA_TOOLS_LIB` is not honoured.
pub(crate) fn load_once() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if let Some(v) = std::env::var_os("HSA_TOOLS_LIB")
            && !v.is_empty()
        {
            eprintln!(
                "hsa-runtime64: HSA_TOOLS_LIB={} is not loaded: tools libraries are not implemented",
                v.to_string_lossy()
            );
        }
    });
}

/// `hsa_queue_create` through the API table.
///
/// # Safety
///
/// As `hsa_queue_create`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn queue_create(
    agent: hsa_agent_t,
    size: u32,
    type_: c_enum,
    cb: queue_error_cb,
    data: *mut c_void,
    private_segment_size: u32,
    group_segment_size: u32,
    queue: *mut *mut c_void,
) -> hsa_status_t {
    // SAFETY: forwarded.
    unsafe {
        crate::core_api::queue_create_impl(
            agent,
            size,
            type_,
            cb,
            data,
            private_segment_size,
            group_segment_size,
            queue,
        )
    }
}
