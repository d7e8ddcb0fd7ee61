//! `SIM_PRELOAD_TRACE=FILE`: one line per open, close, mmap and ioctl of
//! the sim's files, appended to `FILE`, so the ioctl sequence of a client
//! (AMD's ROCr, ours) can be recorded and compared
//! (`scripts/rocr-sim-trace`).
//!
//! A line is `kfd NAME key=value ... -> result` (or `-> -ERRNO`), with the
//! arguments that identify what the call did (sizes, flags, types, ids),
//! never raw pointers that change from run to run: addresses are kept only
//! where they matter (`va`), and a reader strips them to compare runs.

#![allow(unsafe_code)]

use std::ffi::{c_int, c_void};
use std::fmt::Write as _;
use std::io::Write as _;
use std::num::NonZeroUsize;
use std::ptr::NonNull;
use std::sync::{Mutex, OnceLock};

use kfd::ioctl::{self as kio, Opcode, raw};
use rustix::io::Errno;

use crate::state::Obj;

fn sink() -> Option<&'static Mutex<std::fs::File>> {
    static SINK: OnceLock<Option<Mutex<std::fs::File>>> = OnceLock::new();
    SINK.get_or_init(|| {
        let path = std::env::var_os("SIM_PRELOAD_TRACE")?;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .ok()
            .map(Mutex::new)
    })
    .as_ref()
}

fn line(s: &str) {
    if let Some(f) = sink() {
        let mut f = f.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(f, "{s}");
    }
}

/// An open of `/dev/kfd` or a render node.
pub(crate) fn open(path: &str, fd: c_int) {
    if sink().is_some() {
        line(&format!("open {path} -> fd{fd}"));
    }
}

/// A close of a descriptor of ours.
pub(crate) fn close(fd: c_int) {
    if sink().is_some() {
        line(&format!("close fd{fd}"));
    }
}

/// An mmap of one of our descriptors.
pub(crate) fn mmap(
    fd: c_int,
    addr: *mut c_void,
    len: usize,
    offset: u64,
    r: &Result<NonNull<u8>, Errno>,
) {
    if sink().is_none() {
        return;
    }
    let at = if addr.is_null() { "any" } else { "fixed" };
    let res = match r {
        Ok(_) => "0".to_string(),
        Err(e) => format!("-{}", errno_name(*e)),
    };
    let _ = NonZeroUsize::new(len);
    line(&format!(
        "mmap fd{fd} len={len:#x} offset={offset:#x} at={at} -> {res}"
    ));
}

/// What the arguments were before the call (the in-fields are overwritten
/// by some ioctls).
pub(crate) struct Before(Vec<u8>);

fn size_of_code(code: Opcode) -> usize {
    ((code as u64 >> 16) & 0x3fff) as usize
}

/// Copies the argument struct before the call.
pub(crate) fn before(_obj: &Obj, code: Opcode, arg: *mut c_void) -> Option<Before> {
    sink()?;
    let n = size_of_code(code);
    if arg.is_null() || n == 0 {
        return Some(Before(Vec::new()));
    }
    let mut v = vec![0u8; n];
    // SAFETY: the caller passes `_IOC_SIZE(code)` readable bytes at `arg`
    // (what the driver copies in).
    unsafe { std::ptr::copy_nonoverlapping(arg.cast::<u8>(), v.as_mut_ptr(), n) };
    Some(Before(v))
}

/// The struct at the start of `b`, zero-extended as the driver does when
/// the client's struct is shorter than ours.
fn read<T: Copy>(b: &[u8]) -> Option<T> {
    if b.is_empty() {
        return None;
    }
    let mut v = std::mem::MaybeUninit::<T>::zeroed();
    let n = b.len().min(size_of::<T>());
    // SAFETY: `n` bytes into a zeroed `T`; `T` is a plain C struct of
    // integers (any bits, zero included, are a value).
    unsafe {
        std::ptr::copy_nonoverlapping(b.as_ptr(), v.as_mut_ptr().cast::<u8>(), n);
    }
    // SAFETY: as above: fully initialised.
    Some(unsafe { v.assume_init() })
}

fn errno_name(e: Errno) -> String {
    let n = e.raw_os_error();
    let name = match n {
        libc::EPERM => "EPERM",
        libc::ENOENT => "ENOENT",
        libc::EINTR => "EINTR",
        libc::EIO => "EIO",
        libc::EBADF => "EBADF",
        libc::EAGAIN => "EAGAIN",
        libc::ENOMEM => "ENOMEM",
        libc::EACCES => "EACCES",
        libc::EFAULT => "EFAULT",
        libc::EBUSY => "EBUSY",
        libc::EEXIST => "EEXIST",
        libc::ENODEV => "ENODEV",
        libc::EINVAL => "EINVAL",
        libc::ENOSPC => "ENOSPC",
        libc::ENOTTY => "ENOTTY",
        libc::ETIME => "ETIME",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        _ => return format!("E{n}"),
    };
    name.to_string()
}

/// Writes the line of an ioctl after it ran.
pub(crate) fn after(
    obj: &Obj,
    code: Opcode,
    arg: *mut c_void,
    pre: Option<Before>,
    r: &Result<c_int, Errno>,
) {
    let Some(Before(input)) = pre else { return };
    let n = input.len();
    let mut out = vec![0u8; n];
    if n > 0 {
        // SAFETY: as in `before`: the same `n` bytes, now written back.
        unsafe { std::ptr::copy_nonoverlapping(arg.cast::<u8>(), out.as_mut_ptr(), n) };
    }
    let mut s = String::new();
    match obj {
        Obj::Kfd => {
            let nr = ((code as u64) & 0xff) as u8;
            match kio::by_number(nr) {
                Some(i) if i.code == code => {
                    let _ = write!(s, "kfd {}", i.name);
                }
                // The number of a known ioctl with another size or direction
                // (a client built against an older or newer kfd_ioctl.h).
                Some(i) => {
                    let _ = write!(s, "kfd {} code={code:#x} (ours {:#x})", i.name, i.code);
                }
                None => {
                    let _ = write!(s, "kfd AMDKFD_IOC_? nr={nr:#x} size={}", size_of_code(code));
                }
            }
            kfd_fields(&mut s, code, &input, &out);
        }
        Obj::Render { .. } => {
            let _ = write!(s, "drm {}", drm_name(code, &input));
        }
    }
    match r {
        Ok(v) => {
            let _ = write!(s, " -> {v}");
        }
        Err(e) => {
            let _ = write!(s, " -> -{}", errno_name(*e));
        }
    }
    line(&s);
}

fn drm_name(code: Opcode, input: &[u8]) -> String {
    let nr = (code as u64) & 0xff;
    match nr {
        0x00 => "DRM_IOCTL_VERSION".into(),
        0x0c => "DRM_IOCTL_GET_CAP".into(),
        0x45 => {
            let q = read::<[u32; 4]>(input).map_or(0, |w| w[3]);
            format!("DRM_IOCTL_AMDGPU_INFO query={q:#x}")
        }
        _ => format!("DRM nr={nr:#x} size={}", size_of_code(code)),
    }
}

fn kfd_fields(s: &mut String, code: Opcode, i: &[u8], o: &[u8]) {
    let nr = ((code as u64) & 0xff) as u8;
    let w = &mut *s;
    match nr {
        0x01 => {
            if let Some(a) = read::<raw::GetVersionArgs>(o) {
                let _ = write!(w, " version={}.{}", a.major_version, a.minor_version);
            }
        }
        0x02 => {
            if let (Some(a), Some(b)) = (
                read::<raw::CreateQueueArgs>(i),
                read::<raw::CreateQueueArgs>(o),
            ) {
                let _ = write!(
                    w,
                    " gpu={:#x} type={} ring_size={:#x} pct={} prio={} eop_size={:#x} ctx_save_size={:#x} ctl_stack={:#x} -> queue_id={}",
                    a.gpu_id,
                    a.queue_type,
                    a.ring_size,
                    a.queue_percentage,
                    a.queue_priority,
                    a.eop_buffer_size,
                    a.ctx_save_restore_size,
                    a.ctl_stack_size,
                    b.queue_id
                );
            }
        }
        0x03 => {
            if let Some(a) = read::<raw::DestroyQueueArgs>(i) {
                let _ = write!(w, " queue_id={}", a.queue_id);
            }
        }
        0x08 => {
            if let (Some(a), Some(b)) = (
                read::<raw::CreateEventArgs>(i),
                read::<raw::CreateEventArgs>(o),
            ) {
                let _ = write!(
                    w,
                    " type={} auto_reset={} page_offset={} -> id={} slot={}",
                    a.event_type,
                    a.auto_reset,
                    u8::from(a.event_page_offset != 0),
                    b.event_id,
                    b.event_slot_index
                );
            }
        }
        0x09..=0x0b => {
            if let Some(a) = read::<raw::SetEventArgs>(i) {
                let _ = write!(w, " id={}", a.event_id);
            }
        }
        0x0c => {
            if let (Some(a), Some(b)) = (
                read::<raw::WaitEventsArgs>(i),
                read::<raw::WaitEventsArgs>(o),
            ) {
                let _ = write!(
                    w,
                    " n={} all={} timeout={} -> result={}",
                    a.num_events, a.wait_for_all, a.timeout, b.wait_result
                );
            }
        }
        0x11 => {
            if let Some(a) = read::<raw::SetScratchBackingVaArgs>(i) {
                let _ = write!(w, " gpu={:#x}", a.gpu_id);
            }
        }
        0x13 => {
            if let Some(a) = read::<raw::SetTrapHandlerArgs>(i) {
                let _ = write!(
                    w,
                    " gpu={:#x} tba={} tma={}",
                    a.gpu_id,
                    u8::from(a.tba_addr != 0),
                    u8::from(a.tma_addr != 0)
                );
            }
        }
        0x15 => {
            if let Some(a) = read::<raw::AcquireVmArgs>(i) {
                let _ = write!(w, " gpu={:#x}", a.gpu_id);
            }
        }
        0x16 => {
            if let (Some(a), Some(b)) = (
                read::<raw::AllocMemoryOfGpuArgs>(i),
                read::<raw::AllocMemoryOfGpuArgs>(o),
            ) {
                let _ = write!(
                    w,
                    " gpu={:#x} size={:#x} flags={:#010x} -> handle={:#x}",
                    a.gpu_id, a.size, a.flags, b.handle
                );
            }
        }
        0x17 => {
            if let Some(a) = read::<raw::FreeMemoryOfGpuArgs>(i) {
                let _ = write!(w, " handle={:#x}", a.handle);
            }
        }
        0x18 | 0x19 => {
            if let (Some(a), Some(b)) = (
                read::<raw::MapMemoryToGpuArgs>(i),
                read::<raw::MapMemoryToGpuArgs>(o),
            ) {
                let _ = write!(
                    w,
                    " handle={:#x} n_devices={} -> n_success={}",
                    a.handle, a.n_devices, b.n_success
                );
            }
        }
        0x20 => {
            if let Some(a) = read::<raw::SvmArgs>(i) {
                let _ = write!(w, " op={} size={:#x} nattr={}", a.op, a.size, a.nattr);
            }
        }
        0x21 => {
            if let Some(a) = read::<raw::SetXnackModeArgs>(i) {
                let _ = write!(w, " xnack={}", a.xnack_enabled);
            }
        }
        _ => {}
    }
}
