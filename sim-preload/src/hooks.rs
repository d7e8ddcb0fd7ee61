//! The interposed libc symbols.
//!
//! Each is an `extern "C"` function with the C name and signature, so the
//! dynamic linker binds the process's calls to it ahead of libc's. Each
//! first asks whether the call concerns the sim (a routed path, a
//! descriptor in the table); if not, it tail-calls the real function,
//! found once with `dlsym(RTLD_NEXT, name)`. Nothing here panics across
//! the boundary: a failure is `-1` (or `NULL`, `MAP_FAILED`) with `errno`.
//!
//! No interposed function needs Rust's runtime to be set up: the first
//! calls may come from other libraries' constructors, before `main`; std's
//! pieces used here (`OnceLock`, `RwLock`, `Arc`) need no initialisation.
//! The internal I/O of the sim and of the preload (memfds, mmaps: raw
//! syscalls through rustix; the private directory's files: `std::fs`,
//! i.e. libc's `open` on paths no route matches) never re-enters a route,
//! so there is no recursion.

#![allow(unsafe_code)]
#![allow(clippy::missing_safety_doc)]

use std::ffi::{CStr, c_char, c_int, c_ulong, c_void};
use std::num::NonZeroUsize;
use std::os::fd::{AsFd, AsRawFd};
use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use kfd::DrmRenderNode;
use kfd::KfdDevice;
use libc::{mode_t, off_t, size_t};

use crate::state::{self, DRM_MAJOR, KFD_MAJOR, Obj, Route};

/// The real `name` (the next definition after this library), typed `ty`.
/// A symbol libc does not have aborts with a message: nothing sensible
/// can follow.
macro_rules! real {
    ($name:literal as $ty:ty) => {{
        static P: AtomicUsize = AtomicUsize::new(0);
        let mut p = P.load(Ordering::Relaxed);
        if p == 0 {
            // SAFETY: the name is NUL terminated; dlsym has no other
            // precondition.
            p = unsafe { libc::dlsym(libc::RTLD_NEXT, concat!($name, "\0").as_ptr().cast()) }
                as usize;
            if p == 0 {
                missing(concat!($name, "\n"));
            }
            P.store(p, Ordering::Relaxed);
        }
        // SAFETY: `p` is libc's definition of `$name`, whose C signature is
        // `$ty` (the same declaration as the function interposing it).
        unsafe { std::mem::transmute::<usize, $ty>(p) }
    }};
}

fn missing(name: &str) -> ! {
    let msg = b"sim-preload: libc has no ";
    // SAFETY: a write of a valid buffer to stderr.
    unsafe { libc::write(2, msg.as_ptr().cast(), msg.len()) };
    // SAFETY: as above.
    unsafe { libc::write(2, name.as_ptr().cast(), name.len()) };
    std::process::abort()
}

fn set_errno(e: c_int) {
    // SAFETY: glibc's thread-local errno: a valid, aligned int of this thread.
    let p = unsafe { libc::__errno_location() };
    // SAFETY: as above.
    unsafe { *p = e }
}

fn errno() -> c_int {
    // SAFETY: as above.
    let p = unsafe { libc::__errno_location() };
    // SAFETY: as above.
    unsafe { *p }
}

/// The path bytes of a C string argument (`None` for NULL).
///
/// # Safety
///
/// `p` is NULL or a NUL-terminated string.
unsafe fn bytes<'a>(p: *const c_char) -> Option<&'a [u8]> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller's contract.
    Some(unsafe { CStr::from_ptr(p) }.to_bytes())
}

/// Routes `path` (relative paths are never the sim's).
///
/// # Safety
///
/// As [`bytes`].
unsafe fn route_of(path: *const c_char) -> Option<Route> {
    // SAFETY: forwarded.
    let b = unsafe { bytes(path) }?;
    if b.first() != Some(&b'/') {
        return None;
    }
    state::route(b)
}

// ---------------------------------------------------------------------
// open, openat, close, dup, fcntl

/// Opens a descriptor for `/dev/kfd` or a render node.
fn open_sim(route: &Route, flags: c_int) -> c_int {
    let Some(s) = state::state() else {
        set_errno(libc::ENODEV);
        return -1;
    };
    let cloexec = flags & libc::O_CLOEXEC != 0;
    match route {
        Route::Kfd => {
            let fl = if cloexec { libc::MFD_CLOEXEC } else { 0 };
            // SAFETY: a NUL-terminated name; memfd_create has no other
            // precondition. A memfd reserves the number: it is never read.
            let fd = unsafe { libc::memfd_create(c"sim-kfd".as_ptr(), fl) };
            if fd >= 0 {
                state::insert(fd, Obj::Kfd);
            }
            fd
        }
        Route::Render(minor) => match s.dev.open_render_node(*minor) {
            Ok(node) => {
                // The client's descriptor is a duplicate of the node's
                // memfd, so AMDKFD_IOC_ACQUIRE_VM (which compares the file
                // behind drm_fd with the nodes the sim opened) recognises it.
                let cmd = if cloexec {
                    libc::F_DUPFD_CLOEXEC
                } else {
                    libc::F_DUPFD
                };
                let real_fcntl =
                    real!("fcntl" as unsafe extern "C" fn(c_int, c_int, c_int) -> c_int);
                // SAFETY: duplicating a descriptor the node owns.
                let fd = unsafe { real_fcntl(node.as_fd().as_raw_fd(), cmd, 0) };
                if fd >= 0 {
                    state::insert(
                        fd,
                        Obj::Render {
                            node: Arc::new(node),
                            minor: *minor,
                        },
                    );
                }
                fd
            }
            Err(e) => {
                set_errno(e.raw_os_error());
                -1
            }
        },
        Route::File(_) => unreachable_route(),
    }
}

fn unreachable_route() -> c_int {
    set_errno(libc::EINVAL);
    -1
}

/// `open(2)`: `/dev/kfd` and the render nodes are the sim's; sysfs paths
/// of the KFD topology and the DRM node are redirected to the sim's files.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn open(path: *const c_char, flags: c_int, mode: mode_t) -> c_int {
    // SAFETY: `path` is the caller's C string.
    match unsafe { route_of(path) } {
        Some(Route::File(p)) => {
            let f = real!("open" as unsafe extern "C" fn(*const c_char, c_int, mode_t) -> c_int);
            // SAFETY: a valid C string; the caller's flags and mode.
            unsafe { f(p.as_ptr(), flags, mode) }
        }
        Some(r) => open_sim(&r, flags),
        None => {
            let f = real!("open" as unsafe extern "C" fn(*const c_char, c_int, mode_t) -> c_int);
            // SAFETY: the caller's arguments, unchanged.
            unsafe { f(path, flags, mode) }
        }
    }
}

/// `open64`: as [`open`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn open64(path: *const c_char, flags: c_int, mode: mode_t) -> c_int {
    // SAFETY: forwarded.
    unsafe { open(path, flags | libc::O_LARGEFILE, mode) }
}

/// `openat(2)`: as [`open`] for absolute paths (the directory is then
/// ignored, as the kernel does).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openat(
    dir: c_int,
    path: *const c_char,
    flags: c_int,
    mode: mode_t,
) -> c_int {
    // SAFETY: `path` is the caller's C string.
    match unsafe { route_of(path) } {
        Some(Route::File(p)) => {
            let f = real!(
                "openat" as unsafe extern "C" fn(c_int, *const c_char, c_int, mode_t) -> c_int
            );
            // SAFETY: a valid C string; the caller's other arguments.
            unsafe { f(dir, p.as_ptr(), flags, mode) }
        }
        Some(r) => open_sim(&r, flags),
        None => {
            let f = real!(
                "openat" as unsafe extern "C" fn(c_int, *const c_char, c_int, mode_t) -> c_int
            );
            // SAFETY: the caller's arguments, unchanged.
            unsafe { f(dir, path, flags, mode) }
        }
    }
}

/// `openat64`: as [`openat`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openat64(
    dir: c_int,
    path: *const c_char,
    flags: c_int,
    mode: mode_t,
) -> c_int {
    // SAFETY: forwarded.
    unsafe { openat(dir, path, flags | libc::O_LARGEFILE, mode) }
}

/// `close(2)`: forgets a descriptor of ours (the render node is released
/// with its last descriptor), then closes the number.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn close(fd: c_int) -> c_int {
    state::remove(fd);
    let f = real!("close" as unsafe extern "C" fn(c_int) -> c_int);
    // SAFETY: the caller's descriptor.
    unsafe { f(fd) }
}

/// After a successful duplication `old` -> `new`: `new` names what `old`
/// did (and no longer what it named before).
fn dup_done(old: c_int, new: c_int) {
    if new < 0 || old == new {
        return;
    }
    state::remove(new);
    if let Some(o) = state::lookup(old) {
        state::insert(new, o);
    }
}

/// `dup(2)`: the copy names the same sim object.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dup(fd: c_int) -> c_int {
    let f = real!("dup" as unsafe extern "C" fn(c_int) -> c_int);
    // SAFETY: the caller's descriptor.
    let r = unsafe { f(fd) };
    dup_done(fd, r);
    r
}

/// `dup2(2)`: as [`dup`]; `new` stops naming what it named.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dup2(old: c_int, new: c_int) -> c_int {
    let f = real!("dup2" as unsafe extern "C" fn(c_int, c_int) -> c_int);
    // SAFETY: the caller's descriptors.
    let r = unsafe { f(old, new) };
    dup_done(old, r);
    r
}

/// `dup3(2)`: as [`dup2`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dup3(old: c_int, new: c_int, flags: c_int) -> c_int {
    let f = real!("dup3" as unsafe extern "C" fn(c_int, c_int, c_int) -> c_int);
    // SAFETY: the caller's descriptors.
    let r = unsafe { f(old, new, flags) };
    dup_done(old, r);
    r
}

/// `fcntl(2)`: `F_DUPFD` and `F_DUPFD_CLOEXEC` duplicate as [`dup`]
/// (libdrm_amdgpu keeps its own duplicate of the render node); every other
/// command is the real one. The variadic argument is passed on as a
/// register-sized word, which is how the x86-64 ABI passes any of them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fcntl(fd: c_int, cmd: c_int, arg: c_ulong) -> c_int {
    let f = real!("fcntl" as unsafe extern "C" fn(c_int, c_int, c_ulong) -> c_int);
    // SAFETY: the caller's arguments, unchanged.
    let r = unsafe { f(fd, cmd, arg) };
    if cmd == libc::F_DUPFD || cmd == libc::F_DUPFD_CLOEXEC {
        dup_done(fd, r);
    }
    r
}

/// `fcntl64`: as [`fcntl`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fcntl64(fd: c_int, cmd: c_int, arg: c_ulong) -> c_int {
    // SAFETY: forwarded.
    unsafe { fcntl(fd, cmd, arg) }
}

// ---------------------------------------------------------------------
// ioctl, mmap

/// `ioctl(2)`: on `/dev/kfd`, the sim's KFD dispatch
/// ([`SimDevice::ioctl_raw`](sim::SimDevice::ioctl_raw)); on a render node,
/// the sim's DRM ioctls.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ioctl(fd: c_int, req: c_ulong, arg: *mut c_void) -> c_int {
    let Some(obj) = state::lookup(fd) else {
        let f = real!("ioctl" as unsafe extern "C" fn(c_int, c_ulong, *mut c_void) -> c_int);
        // SAFETY: the caller's arguments, unchanged.
        return unsafe { f(fd, req, arg) };
    };
    let Some(s) = state::state() else {
        set_errno(libc::ENODEV);
        return -1;
    };
    let code = req as kfd::ioctl::Opcode;
    let r = match &obj {
        // SAFETY: the caller passes the argument of request `req`, as it
        // would to the driver; the sim accesses only what that request's
        // ABI describes.
        Obj::Kfd => unsafe { s.dev.ioctl_raw(code, arg) },
        // SAFETY: as above, for the DRM request.
        Obj::Render { node, .. } => unsafe { node.ioctl(code, arg) },
    };
    match r {
        Ok(v) => v,
        Err(e) => {
            set_errno(e.raw_os_error());
            -1
        }
    }
}

/// `mmap(2)`: of `/dev/kfd` (doorbells, events, MMIO page) or of a render
/// node (a buffer's `mmap_offset`), the sim's mapping, at `addr` if
/// `MAP_FIXED`; then the caller's protection if it is not read-write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mmap(
    addr: *mut c_void,
    len: size_t,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    off: off_t,
) -> *mut c_void {
    let obj = if flags & libc::MAP_ANONYMOUS != 0 {
        None
    } else {
        state::lookup(fd)
    };
    let Some(obj) = obj else {
        let f = real!(
            "mmap"
                as unsafe extern "C" fn(
                    *mut c_void,
                    size_t,
                    c_int,
                    c_int,
                    c_int,
                    off_t,
                ) -> *mut c_void
        );
        // SAFETY: the caller's arguments, unchanged.
        return unsafe { f(addr, len, prot, flags, fd, off) };
    };
    let Some(s) = state::state() else {
        set_errno(libc::ENODEV);
        return libc::MAP_FAILED;
    };
    let Some(n) = NonZeroUsize::new(len) else {
        set_errno(libc::EINVAL);
        return libc::MAP_FAILED;
    };
    let offset = off as u64;
    let fixed = if flags & libc::MAP_FIXED != 0 {
        NonNull::new(addr.cast::<u8>())
    } else {
        None
    };
    let r = match (&obj, fixed) {
        (Obj::Kfd, None) => s.dev.mmap(n, offset),
        // SAFETY: MAP_FIXED: the caller gives up `addr..addr+len`, as it
        // would to the kernel.
        (Obj::Kfd, Some(a)) => unsafe { s.dev.mmap_fixed(a, n, offset) },
        (Obj::Render { node, .. }, None) => node.mmap(n, offset),
        // SAFETY: as above.
        (Obj::Render { node, .. }, Some(a)) => unsafe { node.mmap_fixed(a, n, offset) },
    };
    match r {
        Ok(p) => {
            let rw = libc::PROT_READ | libc::PROT_WRITE;
            if prot != rw {
                // SAFETY: the mapping just made, `len` bytes.
                unsafe { libc::mprotect(p.as_ptr().cast(), len, prot) };
            }
            p.as_ptr().cast()
        }
        Err(e) => {
            set_errno(e.raw_os_error());
            libc::MAP_FAILED
        }
    }
}

/// `mmap64`: as [`mmap`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mmap64(
    addr: *mut c_void,
    len: size_t,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    off: off_t,
) -> *mut c_void {
    // SAFETY: forwarded.
    unsafe { mmap(addr, len, prot, flags, fd, off) }
}

// ---------------------------------------------------------------------
// Paths: fopen, opendir, stat, access, readlink, realpath

/// `fopen(3)`: glibc's opens the file with an internal `open`, which no
/// preload sees, so the topology's paths are redirected here too.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fopen(path: *const c_char, mode: *const c_char) -> *mut libc::FILE {
    let f = real!("fopen" as unsafe extern "C" fn(*const c_char, *const c_char) -> *mut libc::FILE);
    // SAFETY: the caller's C strings.
    match unsafe { route_of(path) } {
        // SAFETY: a valid C string and the caller's mode.
        Some(Route::File(p)) => unsafe { f(p.as_ptr(), mode) },
        // SAFETY: the caller's arguments, unchanged.
        _ => unsafe { f(path, mode) },
    }
}

/// `fopen64`: as [`fopen`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fopen64(path: *const c_char, mode: *const c_char) -> *mut libc::FILE {
    let f =
        real!("fopen64" as unsafe extern "C" fn(*const c_char, *const c_char) -> *mut libc::FILE);
    // SAFETY: the caller's C strings.
    match unsafe { route_of(path) } {
        // SAFETY: a valid C string and the caller's mode.
        Some(Route::File(p)) => unsafe { f(p.as_ptr(), mode) },
        // SAFETY: the caller's arguments, unchanged.
        _ => unsafe { f(path, mode) },
    }
}

/// `opendir(3)`: libhsakmt counts the topology's nodes with it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn opendir(path: *const c_char) -> *mut libc::DIR {
    let f = real!("opendir" as unsafe extern "C" fn(*const c_char) -> *mut libc::DIR);
    // SAFETY: the caller's C string.
    match unsafe { route_of(path) } {
        // SAFETY: a valid C string.
        Some(Route::File(p)) => unsafe { f(p.as_ptr()) },
        // SAFETY: the caller's argument, unchanged.
        _ => unsafe { f(path) },
    }
}

/// A character device's `stat`: `/dev/kfd` or a render node.
fn char_stat(buf: *mut libc::stat, major: u32, minor: u32) -> c_int {
    // SAFETY: the caller's `struct stat` buffer; all-zero is a valid value.
    let st = unsafe { &mut *buf };
    // SAFETY: as above.
    *st = unsafe { std::mem::zeroed() };
    st.st_mode = libc::S_IFCHR | 0o666;
    st.st_rdev = libc::makedev(major, minor);
    st.st_nlink = 1;
    st.st_blksize = 4096;
    // SAFETY: no preconditions.
    st.st_uid = unsafe { libc::getuid() };
    // SAFETY: no preconditions.
    st.st_gid = unsafe { libc::getgid() };
    0
}

fn route_stat(r: &Route, buf: *mut libc::stat) -> c_int {
    match r {
        Route::Kfd => char_stat(buf, KFD_MAJOR, 0),
        Route::Render(m) => char_stat(buf, DRM_MAJOR, *m),
        Route::File(_) => unreachable_route(),
    }
}

/// The `stat` family's one body: a redirected sysfs path is stat'ed at its
/// file, a device file of the sim answers `route_stat`, anything else goes
/// to libc's `f`.
///
/// # Safety
///
/// `path` is a C string and `buf` a `struct stat` to write, as for
/// `stat(2)`; `f` is libc's function of the caller's name.
unsafe fn stat_routed(
    f: unsafe extern "C" fn(*const c_char, *mut libc::stat) -> c_int,
    path: *const c_char,
    buf: *mut libc::stat,
) -> c_int {
    // SAFETY: the caller's C string.
    match unsafe { route_of(path) } {
        // SAFETY: a valid C string and the caller's buffer.
        Some(Route::File(p)) => unsafe { f(p.as_ptr(), buf) },
        Some(r) => route_stat(&r, buf),
        // SAFETY: the caller's arguments, unchanged.
        None => unsafe { f(path, buf) },
    }
}

/// `stat(2)`: the device files are character devices (libdrm checks the
/// render node's major); the sysfs paths are redirected.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn stat(path: *const c_char, buf: *mut libc::stat) -> c_int {
    let f = real!("stat" as unsafe extern "C" fn(*const c_char, *mut libc::stat) -> c_int);
    // SAFETY: the caller's arguments, with libc's function of that name.
    unsafe { stat_routed(f, path, buf) }
}

/// `stat64`: as [`stat`] (the same struct on x86-64).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn stat64(path: *const c_char, buf: *mut libc::stat) -> c_int {
    let f = real!("stat64" as unsafe extern "C" fn(*const c_char, *mut libc::stat) -> c_int);
    // SAFETY: the caller's arguments, with libc's function of that name.
    unsafe { stat_routed(f, path, buf) }
}

/// `lstat(2)`: as [`stat`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lstat(path: *const c_char, buf: *mut libc::stat) -> c_int {
    let f = real!("lstat" as unsafe extern "C" fn(*const c_char, *mut libc::stat) -> c_int);
    // SAFETY: the caller's arguments, with libc's function of that name.
    unsafe { stat_routed(f, path, buf) }
}

/// `lstat64`: as [`stat`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lstat64(path: *const c_char, buf: *mut libc::stat) -> c_int {
    // SAFETY: forwarded.
    unsafe { lstat(path, buf) }
}

/// After the real `fstat` of a descriptor of ours: make it the character
/// device it stands for.
fn fix_fstat(fd: c_int, r: c_int, buf: *mut libc::stat) -> c_int {
    if r != 0 {
        return r;
    }
    match state::lookup(fd) {
        Some(Obj::Kfd) => char_stat(buf, KFD_MAJOR, 0),
        Some(Obj::Render { minor, .. }) => char_stat(buf, DRM_MAJOR, minor),
        None => r,
    }
}

/// `fstat(2)`: a descriptor of ours is a character device (libdrm's
/// `drmGetNodeTypeFromFd` reads the render node's major and minor).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fstat(fd: c_int, buf: *mut libc::stat) -> c_int {
    let f = real!("fstat" as unsafe extern "C" fn(c_int, *mut libc::stat) -> c_int);
    // SAFETY: the caller's arguments.
    let r = unsafe { f(fd, buf) };
    fix_fstat(fd, r, buf)
}

/// `fstat64`: as [`fstat`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fstat64(fd: c_int, buf: *mut libc::stat) -> c_int {
    let f = real!("fstat64" as unsafe extern "C" fn(c_int, *mut libc::stat) -> c_int);
    // SAFETY: the caller's arguments.
    let r = unsafe { f(fd, buf) };
    fix_fstat(fd, r, buf)
}

/// `fstatat(2)`: an absolute path as [`stat`], `AT_EMPTY_PATH` as
/// [`fstat`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fstatat(
    dir: c_int,
    path: *const c_char,
    buf: *mut libc::stat,
    flags: c_int,
) -> c_int {
    let f = real!(
        "fstatat" as unsafe extern "C" fn(c_int, *const c_char, *mut libc::stat, c_int) -> c_int
    );
    // SAFETY: the caller's C string.
    match unsafe { route_of(path) } {
        // SAFETY: a valid C string and the caller's other arguments.
        Some(Route::File(p)) => unsafe { f(dir, p.as_ptr(), buf, flags) },
        Some(r) => route_stat(&r, buf),
        None => {
            // SAFETY: the caller's arguments, unchanged.
            let r = unsafe { f(dir, path, buf, flags) };
            // SAFETY: the caller's C string.
            let empty = unsafe { bytes(path) }.is_some_and(<[u8]>::is_empty);
            if flags & libc::AT_EMPTY_PATH != 0 && empty {
                fix_fstat(dir, r, buf)
            } else {
                r
            }
        }
    }
}

/// `fstatat64`: as [`fstatat`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fstatat64(
    dir: c_int,
    path: *const c_char,
    buf: *mut libc::stat,
    flags: c_int,
) -> c_int {
    // SAFETY: forwarded.
    unsafe { fstatat(dir, path, buf, flags) }
}

/// `access(2)`: the device files exist and are read-write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn access(path: *const c_char, mode: c_int) -> c_int {
    let f = real!("access" as unsafe extern "C" fn(*const c_char, c_int) -> c_int);
    // SAFETY: the caller's C string.
    match unsafe { route_of(path) } {
        // SAFETY: a valid C string.
        Some(Route::File(p)) => unsafe { f(p.as_ptr(), mode) },
        Some(_) => 0,
        // SAFETY: the caller's arguments, unchanged.
        None => unsafe { f(path, mode) },
    }
}

/// `readlink(2)`: redirected for the sysfs paths.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn readlink(path: *const c_char, buf: *mut c_char, size: size_t) -> isize {
    let f = real!("readlink" as unsafe extern "C" fn(*const c_char, *mut c_char, size_t) -> isize);
    // SAFETY: the caller's C string.
    match unsafe { route_of(path) } {
        // SAFETY: a valid C string and the caller's buffer.
        Some(Route::File(p)) => unsafe { f(p.as_ptr(), buf, size) },
        Some(_) => {
            set_errno(libc::EINVAL);
            -1
        }
        // SAFETY: the caller's arguments, unchanged.
        None => unsafe { f(path, buf, size) },
    }
}

// ---------------------------------------------------------------------
// getlogin

/// Fills `buf` with the name of the real user (from the password file),
/// for `getlogin` without a controlling terminal.
fn login_name(buf: &mut [u8]) -> Result<usize, c_int> {
    // SAFETY: no preconditions.
    let uid = unsafe { libc::getuid() };
    // SAFETY: getpwuid returns NULL or a pointer to static storage with a
    // NUL-terminated name.
    let pw = unsafe { libc::getpwuid(uid) };
    if pw.is_null() {
        return Err(libc::ENOENT);
    }
    // SAFETY: as above: a valid `struct passwd`.
    let name = unsafe { (*pw).pw_name };
    // SAFETY: its name is a NUL-terminated string.
    let name = unsafe { CStr::from_ptr(name) }.to_bytes_with_nul();
    if name.len() > buf.len() {
        return Err(libc::ERANGE);
    }
    buf[..name.len()].copy_from_slice(name);
    Ok(name.len())
}

/// `getlogin_r(3)`: the real answer, or without a terminal (the real one
/// fails) the real user's name. rocminfo checks the user is in the
/// `video` group with it before anything else.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn getlogin_r(buf: *mut c_char, size: size_t) -> c_int {
    let f = real!("getlogin_r" as unsafe extern "C" fn(*mut c_char, size_t) -> c_int);
    // SAFETY: the caller's buffer.
    let r = unsafe { f(buf, size) };
    if r == 0 || buf.is_null() {
        return r;
    }
    // SAFETY: the caller's buffer of `size` bytes.
    let b = unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), size) };
    match login_name(b) {
        Ok(_) => 0,
        Err(e) => e,
    }
}

/// `getlogin(3)`: as [`getlogin_r`], into static storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn getlogin() -> *mut c_char {
    static NAME: std::sync::Mutex<[u8; 256]> = std::sync::Mutex::new([0; 256]);
    let f = real!("getlogin" as unsafe extern "C" fn() -> *mut c_char);
    // SAFETY: no arguments.
    let r = unsafe { f() };
    if !r.is_null() {
        return r;
    }
    let saved = errno();
    let mut n = NAME.lock().unwrap_or_else(|e| e.into_inner());
    match login_name(&mut n[..]) {
        Ok(_) => n.as_mut_ptr().cast(),
        Err(_) => {
            set_errno(saved);
            std::ptr::null_mut()
        }
    }
}

// ---------------------------------------------------------------------
// Exit

/// Removes the private sysfs directory when the process exits.
extern "C" fn at_exit() {
    state::cleanup();
}

/// Registers [`at_exit`] when the library is loaded.
#[used]
#[unsafe(link_section = ".init_array")]
static INIT: extern "C" fn() = {
    extern "C" fn init() {
        // SAFETY: registering a function with no preconditions.
        unsafe { libc::atexit(at_exit) };
    }
    init
};
