//! API tracing (`HSA_RS_API_TRACE`, parsed by `runtime::flags`): every
//! exported call is written as one line, its arguments, the status (or
//! value) it returned, the reason of a failure, and its duration, after
//! the calling thread's kernel id:
//!
//! ```text
//! hsa-trace 4242 hsa_queue_create(0x41474e5400000001, 4096, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, 4294967295, 4294967295, 0x7ffd2c0a58c8) = HSA_STATUS_SUCCESS 812.304us
//! ```
//!
//! One wrapper per exported function is generated from the export list
//! (`abi::exported_functions!`): a generic `extern "C"` function of the
//! function's own parameter and result types, which calls the real function
//! and writes the line. When the variable asks for tracing (read by a
//! library constructor, so the first call is traced too), every API table
//! slot that holds an exported function gets its wrapper instead; the
//! exports jump through the slots (`exports.rs`), so every call is traced,
//! and a tools library sees the wrappers as the runtime's functions. When
//! it does not, nothing is installed and a call costs nothing more.

#![allow(unsafe_code)]

use core::ffi::c_void;
use core::fmt::Write as _;
use core::sync::atomic::{AtomicBool, Ordering};
use std::cell::RefCell;
use std::io::Write as _;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use runtime::flags::ApiTrace;

use crate::ffi::*;

/// How a C argument is written.
pub trait Arg: Copy {
    /// Appends the argument.
    fn write_arg(&self, out: &mut String);

    /// The value, if the argument is a 32-bit integer (a C enum, maybe).
    fn as_u32(&self) -> Option<u32> {
        None
    }
}

/// How a C result is written.
pub trait Ret {
    /// Appends ` = <result>` (nothing for `void`) and whether it is a
    /// failure status.
    fn write_ret(&self, function: &str, out: &mut String) -> bool;
}

macro_rules! decimal_args {
    ($($t:ty),*) => {$(
        impl Arg for $t {
            fn write_arg(&self, out: &mut String) {
                let _ = write!(out, "{self}");
            }
        }
    )*};
}
decimal_args!(u8, u16, u64, i8, i16, i32, i64, usize, isize, bool);

impl Arg for u32 {
    fn write_arg(&self, out: &mut String) {
        let _ = write!(out, "{self}");
    }

    fn as_u32(&self) -> Option<u32> {
        Some(*self)
    }
}

/// The C name of an enum argument whose enum is known by its position: the
/// info getters' attributes, queue types and statuses (others: a number).
fn enum_name(function: &str, position: usize, value: u32) -> Option<&'static str> {
    use runtime::info::{
        AgentAttribute, AgentMemoryPoolInfo, IsaInfo, PoolInfo, RegionInfo, SystemInfo,
    };
    match (function, position) {
        ("hsa_system_get_info", 0) => SystemInfo::from_raw(value).map(SystemInfo::c_name),
        ("hsa_agent_get_info", 1) => AgentAttribute::from_raw(value).map(AgentAttribute::c_name),
        ("hsa_isa_get_info_alt", 1) => IsaInfo::from_raw(value).map(IsaInfo::c_name),
        ("hsa_region_get_info", 1) => RegionInfo::from_raw(value).map(RegionInfo::c_name),
        ("hsa_amd_memory_pool_get_info", 1) => PoolInfo::from_raw(value).map(PoolInfo::c_name),
        ("hsa_amd_agent_memory_pool_get_info", 2) => {
            AgentMemoryPoolInfo::from_raw(value).map(AgentMemoryPoolInfo::c_name)
        }
        ("hsa_queue_create" | "hsa_soft_queue_create", 2) => {
            use crate::ffi::consts::{
                HSA_QUEUE_TYPE_COOPERATIVE, HSA_QUEUE_TYPE_MULTI, HSA_QUEUE_TYPE_SINGLE,
            };
            [
                (HSA_QUEUE_TYPE_MULTI, "HSA_QUEUE_TYPE_MULTI"),
                (HSA_QUEUE_TYPE_SINGLE, "HSA_QUEUE_TYPE_SINGLE"),
                (HSA_QUEUE_TYPE_COOPERATIVE, "HSA_QUEUE_TYPE_COOPERATIVE"),
            ]
            .into_iter()
            .find_map(|(v, name)| (v == value).then_some(name))
        }
        ("hsa_status_string", 0) => runtime::Status::from_raw(value).map(runtime::Status::c_name),
        _ => None,
    }
}

/// Appends argument `position` of `function`.
fn write_arg_of(function: &str, position: usize, arg: &impl Arg, out: &mut String) {
    if !out.is_empty() {
        out.push_str(", ");
    }
    match arg.as_u32().and_then(|v| enum_name(function, position, v)) {
        Some(name) => out.push_str(name),
        None => arg.write_arg(out),
    }
}

macro_rules! handle_args {
    ($($t:ty),*) => {$(
        impl Arg for $t {
            fn write_arg(&self, out: &mut String) {
                let _ = write!(out, "{:#x}", self.handle);
            }
        }
    )*};
}
handle_args!(
    hsa_agent_t,
    hsa_signal_t,
    hsa_signal_group_t,
    hsa_region_t,
    hsa_cache_t,
    hsa_isa_t,
    hsa_wavefront_t,
    hsa_code_object_reader_t,
    hsa_executable_t,
    hsa_loaded_code_object_t,
    hsa_executable_symbol_t,
    hsa_code_object_t,
    hsa_callback_data_t,
    hsa_code_symbol_t,
    hsa_amd_memory_pool_t,
    hsa_ext_image_t,
    hsa_ext_sampler_t,
    hsa_ext_program_t
);

impl Arg for hsa_ext_control_directives_t {
    fn write_arg(&self, out: &mut String) {
        out.push_str("{control directives}");
    }
}

fn pointer(p: *const (), out: &mut String) {
    if p.is_null() {
        out.push_str("NULL");
    } else {
        let _ = write!(out, "{p:p}");
    }
}

impl<T> Arg for *const T {
    fn write_arg(&self, out: &mut String) {
        pointer(self.cast(), out);
    }
}

impl<T> Arg for *mut T {
    fn write_arg(&self, out: &mut String) {
        pointer(self.cast_const().cast(), out);
    }
}

macro_rules! callback_args {
    ($($a:ident),*) => {
        impl<R $(, $a)*> Arg for Option<unsafe extern "C" fn($($a),*) -> R> {
            fn write_arg(&self, out: &mut String) {
                pointer(self.map_or(core::ptr::null(), |f| f as *const ()), out);
            }
        }
    };
}
callback_args!();
callback_args!(A);
callback_args!(A, B);
callback_args!(A, B, C);
callback_args!(A, B, C, D);
callback_args!(A, B, C, D, E);

impl Ret for () {
    fn write_ret(&self, _: &str, _: &mut String) -> bool {
        false
    }
}

/// `hsa_status_t`, except for the one export returning another `uint32_t`.
impl Ret for u32 {
    fn write_ret(&self, function: &str, out: &mut String) -> bool {
        if function == "hsa_amd_signal_wait_any" {
            let _ = write!(out, " = {self}");
            return false;
        }
        match runtime::Status::from_raw(*self) {
            Some(s) => {
                let _ = write!(out, " = {}", s.c_name());
            }
            None => {
                let _ = write!(out, " = {self:#x}");
            }
        }
        *self >= runtime::Status::Error as u32
    }
}

macro_rules! value_rets {
    ($($t:ty),*) => {$(
        impl Ret for $t {
            fn write_ret(&self, _: &str, out: &mut String) -> bool {
                let _ = write!(out, " = {self}");
                false
            }
        }
    )*};
}
value_rets!(u64, i64, bool);

/// A generated wrapper of a function pointer type, for table index `I`.
pub trait Traced<const I: usize> {
    /// The wrapper's address.
    fn wrapper() -> *mut c_void;
}

/// A function's address, shareable (it is code, never written).
struct Real(*const ());
// SAFETY: a function's address; nothing is reached through it but calls.
unsafe impl Sync for Real {}

macro_rules! wrappers {
    ($($a:ident),*) => {
        impl<const I: usize, R: Ret $(, $a: Arg)*> Traced<I> for unsafe extern "C" fn($($a),*) -> R {
            fn wrapper() -> *mut c_void {
                #[allow(non_snake_case, unused_assignments)]
                unsafe extern "C" fn traced<const I: usize, R: Ret $(, $a: Arg)*>($($a: $a),*) -> R {
                    // SAFETY: `REAL[I]` is the function whose pointer type
                    // chose this impl (the same `traced!` entry made both).
                    let f = unsafe {
                        core::mem::transmute::<*const (), unsafe extern "C" fn($($a),*) -> R>(REAL[I].0)
                    };
                    take_error();
                    let start = Instant::now();
                    // SAFETY: the caller's arguments, under the contract
                    // of the function they called.
                    let r = unsafe { f($($a),*) };
                    let elapsed = start.elapsed();
                    #[allow(unused_mut, unused_variables)]
                    let (mut args, mut position) = (String::new(), 0usize);
                    $(
                        write_arg_of(NAMES[I], position, &$a, &mut args);
                        position += 1;
                    )*
                    line(NAMES[I], &args, &r, elapsed);
                    r
                }
                traced::<I, R $(, $a)*> as *mut c_void
            }
        }
    };
}
wrappers!();
wrappers!(A);
wrappers!(A, B);
wrappers!(A, B, C);
wrappers!(A, B, C, D);
wrappers!(A, B, C, D, E);
wrappers!(A, B, C, D, E, F);
wrappers!(A, B, C, D, E, F, G);
wrappers!(A, B, C, D, E, F, G, H);
wrappers!(A, B, C, D, E, F, G, H, I2);
wrappers!(A, B, C, D, E, F, G, H, I2, J);

fn wrapper_of<const I: usize, F: Traced<I>>(_: F) -> *mut c_void {
    F::wrapper()
}

macro_rules! traced {
    ($($module:ident :: $name:ident / [$($p:tt)*];)*) => {
        /// Index of every exported function in [`NAMES`] and [`REAL`].
        #[allow(non_camel_case_types, dead_code)]
        #[repr(usize)]
        enum Id { $($name,)* }

        /// The exported functions' names.
        static NAMES: &[&str] = &[$(stringify!($name)),*];

        /// The exported functions.
        static REAL: &[Real] = &[$(Real(crate::$module::$name as *const ())),*];

        /// Each function's wrapper, in [`NAMES`]' order.
        fn wrappers() -> Vec<*mut c_void> {
            vec![$(
                wrapper_of::<{ Id::$name as usize }, _>(
                    crate::$module::$name as unsafe extern "C" fn($($p)*) -> _,
                ),
            )*]
        }
    };
}

crate::abi::exported_functions!(traced);

/// Where the lines go. Neither touches thread-local storage: calls come
/// also from exit handlers (HIP unregisters its code objects in a
/// destructor), after the calling thread's locals are gone.
enum Sink {
    /// File descriptor 2, whatever it is at the time of the call.
    Stderr(Mutex<()>),
    File(Mutex<std::fs::File>),
}

/// Whether tracing is on (set once, by the constructor).
static ON: AtomicBool = AtomicBool::new(false);
static SINK: OnceLock<Sink> = OnceLock::new();
/// Why tracing could not start (the trace file could not be opened):
/// `hsa_init` fails with it.
static FAILED: OnceLock<String> = OnceLock::new();

thread_local! {
    /// The reason of this thread's last failed call (while tracing).
    static LAST_ERROR: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Whether calls are traced.
pub(crate) fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Keeps a failed call's reason for its trace line (the call guard).
/// After the thread's locals are destroyed (exit handlers) the reason is
/// not kept.
pub(crate) fn note_error(message: &str) {
    if on() {
        let _ = LAST_ERROR.try_with(|l| *l.borrow_mut() = Some(message.to_owned()));
    }
}

fn take_error() -> Option<String> {
    LAST_ERROR
        .try_with(|l| l.borrow_mut().take())
        .ok()
        .flatten()
}

/// Writes all of `bytes` to file descriptor 2 (retrying short writes and
/// interruptions; any other error drops the rest of the line).
fn write_stderr(mut bytes: &[u8]) {
    while !bytes.is_empty() {
        match rustix::io::write(rustix::stdio::stderr(), bytes) {
            Ok(0) => return,
            Ok(n) => bytes = &bytes[n.min(bytes.len())..],
            Err(rustix::io::Errno::INTR) => {}
            Err(_) => return,
        }
    }
}

/// `hsa_init`'s check: an error if `HSA_RS_API_TRACE` names a file that
/// could not be opened.
pub(crate) fn check() -> Result<(), runtime::Error> {
    match FAILED.get() {
        Some(m) => Err(runtime::Error::new(runtime::Status::Error, m.clone())),
        None => Ok(()),
    }
}

fn line(name: &str, args: &str, r: &impl Ret, elapsed: Duration) {
    let tid = rustix::thread::gettid().as_raw_nonzero();
    let mut s = format!("hsa-trace {tid} {name}({args})");
    let failed = r.write_ret(name, &mut s);
    if let Some(e) = take_error().filter(|_| failed) {
        let _ = write!(s, " ({e})");
    }
    let _ = writeln!(s, " {:.3}us", elapsed.as_secs_f64() * 1e6);
    // One write of the whole line: lines of threads never interleave.
    match SINK.get() {
        Some(Sink::Stderr(lock)) => {
            let _g = crate::state::lock(lock);
            write_stderr(s.as_bytes());
        }
        Some(Sink::File(f)) => {
            let _ = crate::state::lock(f).write_all(s.as_bytes());
        }
        None => {}
    }
}

/// Puts each wrapper into every API table slot that holds its function
/// (at load, and again after the last `hsa_shut_down` reset the tables).
pub(crate) fn install() {
    if !on() {
        return;
    }
    let wrappers = wrappers();
    for slot in crate::tools::slots() {
        let current = slot.0.load(Ordering::Acquire).cast_const().cast::<()>();
        if let Some(i) = REAL.iter().position(|r| r.0 == current) {
            slot.0.store(wrappers[i], Ordering::Release);
        }
    }
}

/// Reads `HSA_RS_API_TRACE` when the library is loaded. A malformed value
/// leaves tracing off; `hsa_init` then fails naming it (`runtime::flags`).
extern "C" fn start() {
    let Some(trace) = std::env::var("HSA_RS_API_TRACE")
        .ok()
        .and_then(|v| runtime::flags::api_trace(&v).ok())
    else {
        return;
    };
    let sink = match trace {
        ApiTrace::Off => return,
        ApiTrace::Stderr => Sink::Stderr(Mutex::new(())),
        ApiTrace::File(path) => {
            match std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
            {
                Ok(f) => Sink::File(Mutex::new(f)),
                Err(e) => {
                    let _ = FAILED.set(format!(
                        "HSA_RS_API_TRACE: cannot open {}: {e}",
                        path.display()
                    ));
                    return;
                }
            }
        }
    };
    let _ = SINK.set(sink);
    ON.store(true, Ordering::Relaxed);
    install();
}

/// The constructor: the dynamic loader runs it when the library is loaded,
/// before any exported function can be called.
#[used]
// SAFETY: `.init_array` holds `void (*)(void)` entries; `start` is one,
// and runs only std code that needs no more than a loaded libc.
#[unsafe(link_section = ".init_array")]
static START: extern "C" fn() = start;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_export_has_a_wrapper_of_its_own() {
        let w = wrappers();
        assert_eq!(w.len(), NAMES.len());
        assert_eq!(REAL.len(), NAMES.len());
        assert_eq!(NAMES.len(), 224);
        for (i, p) in w.iter().enumerate() {
            assert!(
                w[..i].iter().all(|q| q != p),
                "{} shares a wrapper",
                NAMES[i]
            );
        }
    }

    #[test]
    fn arguments_and_results_are_written_as_the_line_shows() {
        let mut s = String::new();
        hsa_agent_t { handle: 0x2a }.write_arg(&mut s);
        s.push(' ');
        core::ptr::null::<u8>().write_arg(&mut s);
        s.push(' ');
        4096u32.write_arg(&mut s);
        assert_eq!(s, "0x2a NULL 4096");
        let mut s = String::new();
        assert!((runtime::Status::InvalidAgent as u32).write_ret("hsa_agent_get_info", &mut s));
        assert_eq!(s, " = HSA_STATUS_ERROR_INVALID_AGENT");
        let mut s = String::new();
        write_arg_of("hsa_queue_create", 2, &1u32, &mut s);
        write_arg_of("hsa_queue_create", 3, &1u32, &mut s);
        write_arg_of("hsa_agent_get_info", 1, &0xffff_fff0u32, &mut s);
        assert_eq!(s, "HSA_QUEUE_TYPE_SINGLE, 1, 4294967280");
        let mut s = String::new();
        assert!(!1u32.write_ret("hsa_amd_signal_wait_any", &mut s));
        assert_eq!(s, " = 1");
    }
}
