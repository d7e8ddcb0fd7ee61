//! `tracing` spans of the runtime's API entry points (feature `tracing`,
//! on by default): each entry point runs in an `info` span named after its
//! HSA call (`hsa_queue_create`, ...) with its main arguments as fields,
//! and a call that fails also emits a `warn` event in that span with the
//! status (`HSA_STATUS_ERROR_...`) and the error's message. Without a
//! subscriber a span costs `tracing`'s level check: one relaxed atomic load
//! of the global max level, which stays `OFF`. Without the feature the
//! macro is the plain body.

/// Runs `$body` (a method's whole body: `?` and `return` leave it) in the
/// span `$name` with `$field = $value`s; an `Err` result is also an event.
macro_rules! api_call {
    ($name:literal, $($field:ident = $value:expr,)* $body:block) => {{
        #[cfg(feature = "tracing")]
        let _span = tracing::info_span!($name $(, $field = $value)*).entered();
        #[cfg(not(feature = "tracing"))]
        let _ = ($($value,)*);
        #[allow(clippy::redundant_closure_call)]
        let r = (|| $body)();
        #[cfg(feature = "tracing")]
        $crate::trace::outcome(&r);
        r
    }};
}

pub(crate) use api_call;

/// The `warn` event of a failed call (in the call's span).
#[cfg(feature = "tracing")]
pub(crate) fn outcome<T>(r: &crate::status::Result<T>) {
    if let Err(e) = r {
        tracing::warn!(status = e.status.c_name(), error = %e.message, "failed");
    }
}
