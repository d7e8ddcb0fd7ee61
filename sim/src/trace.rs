//! `SIM_TRACE=FILE`: one line per ioctl, mmap and render-node open the
//! device receives, appended to `FILE`, from any client: our runtime
//! (`Kfd<SimDevice>` in process) or AMD's ROCr under `sim-preload`
//! (`scripts/rocr-sim-trace`), so their sequences can be compared.
//!
//! A line is `kfd NAME key=value ... -> result` (or `-> -ERRNO`), `drm
//! NAME ...`, `mmap kfd|render len=... offset=... at=any|fixed -> ...` or
//! `open renderD<minor>`: the arguments that say what the call did (sizes,
//! flags, types, ids, handles), no user addresses. A request whose struct
//! size differs from the kfd crate's (a client built against an older or
//! newer `kfd_ioctl.h`) shows `code=... (ours ...)`.

#![allow(unsafe_code)]

use std::ffi::{c_int, c_void};
use std::fmt::Write as _;
use std::io::Write as _;
use std::num::NonZeroUsize;
use std::ptr::NonNull;
use std::sync::Mutex;

use kfd::ioctl::{self as kio, Opcode, raw};
use rustix::io::Errno;

/// Which file of the device a call is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Obj {
    /// `/dev/kfd`.
    Kfd,
    /// A render node.
    Render,
}

/// The trace file, if `SIM_TRACE` named one (shared by the device and its
/// render nodes).
#[derive(Debug, Default)]
pub(crate) struct Trace {
    sink: Option<Mutex<std::fs::File>>,
}

impl Trace {
    /// Appends to `path` (created if needed); a file that cannot be opened
    /// is reported once on stderr and nothing is traced.
    pub(crate) fn open(path: Option<&std::path::Path>) -> Self {
        let sink = path.and_then(|p| {
            match std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
            {
                Ok(f) => Some(Mutex::new(f)),
                Err(e) => {
                    eprintln!("sim: SIM_TRACE={}: {e}; not tracing", p.display());
                    None
                }
            }
        });
        Self { sink }
    }

    /// Whether lines are written.
    pub(crate) fn on(&self) -> bool {
        self.sink.is_some()
    }

    fn line(&self, s: &str) {
        if let Some(f) = &self.sink {
            let mut f = f.lock().unwrap_or_else(|e| e.into_inner());
            let _ = writeln!(f, "{s}");
        }
    }

    /// A render node opened.
    pub(crate) fn open_render_node(&self, minor: u32, r: Result<(), &Errno>) {
        if self.on() {
            self.line(&format!("open renderD{minor} -> {}", result(r.map(|()| 0))));
        }
    }

    /// An mmap of `/dev/kfd` or a render node.
    pub(crate) fn mmap(
        &self,
        obj: Obj,
        fixed: bool,
        len: NonZeroUsize,
        offset: u64,
        r: &Result<NonNull<u8>, Errno>,
    ) {
        if !self.on() {
            return;
        }
        let on = if obj == Obj::Kfd { "kfd" } else { "render" };
        let at = if fixed { "fixed" } else { "any" };
        self.line(&format!(
            "mmap {on} len={:#x} offset={offset:#x} at={at} -> {}",
            len.get(),
            result(r.as_ref().map(|_| 0))
        ));
    }
}

/// What the arguments were before the call (the in-fields are overwritten
/// by some ioctls).
pub(crate) struct Before(Vec<u8>);

fn size_of_code(code: Opcode) -> usize {
    ((code as u64 >> 16) & 0x3fff) as usize
}

/// Copies the argument struct before the call (`None` when not tracing).
///
/// # Safety
///
/// `arg` is NULL or holds `_IOC_SIZE(code)` readable bytes.
pub(crate) unsafe fn before(t: &Trace, code: Opcode, arg: *mut c_void) -> Option<Before> {
    if !t.on() {
        return None;
    }
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
    let names = [
        (Errno::PERM, "EPERM"),
        (Errno::NOENT, "ENOENT"),
        (Errno::INTR, "EINTR"),
        (Errno::IO, "EIO"),
        (Errno::BADF, "EBADF"),
        (Errno::AGAIN, "EAGAIN"),
        (Errno::NOMEM, "ENOMEM"),
        (Errno::ACCESS, "EACCES"),
        (Errno::FAULT, "EFAULT"),
        (Errno::BUSY, "EBUSY"),
        (Errno::EXIST, "EEXIST"),
        (Errno::NODEV, "ENODEV"),
        (Errno::INVAL, "EINVAL"),
        (Errno::NOSPC, "ENOSPC"),
        (Errno::NOTTY, "ENOTTY"),
        (Errno::TIME, "ETIME"),
        (Errno::OPNOTSUPP, "EOPNOTSUPP"),
    ];
    names.iter().find(|(n, _)| *n == e).map_or_else(
        || format!("E{}", e.raw_os_error()),
        |(_, s)| (*s).to_string(),
    )
}

fn result(r: Result<c_int, &Errno>) -> String {
    match r {
        Ok(v) => v.to_string(),
        Err(e) => format!("-{}", errno_name(*e)),
    }
}

/// Writes the line of an ioctl after it ran.
///
/// # Safety
///
/// As [`before`], for the same `arg`.
pub(crate) unsafe fn after(
    t: &Trace,
    obj: Obj,
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
        Obj::Render => {
            let _ = write!(s, "drm {}", drm_name(code, &input));
        }
    }
    let _ = write!(s, " -> {}", result(r.as_ref().copied()));
    t.line(&s);
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
        0x07 => {
            if let Some(a) = read::<raw::UpdateQueueArgs>(i) {
                let _ = write!(
                    w,
                    " queue_id={} ring_size={:#x} pct={} prio={}",
                    a.queue_id, a.ring_size, a.queue_percentage, a.queue_priority
                );
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
        0x25 => {
            if let Some(a) = read::<raw::RuntimeEnableArgs>(i) {
                // Whether an r_debug was given, not its address.
                let r_debug = if a.r_debug != 0 { "given" } else { "null" };
                let _ = write!(w, " mode_mask={:#x} r_debug={r_debug}", a.mode_mask);
            }
        }
        _ => {}
    }
}
