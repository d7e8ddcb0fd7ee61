//! Waking a sleeping engine on a doorbell store, with no help from the
//! client: userfaultfd write protection of the client's doorbell mappings.
//!
//! An unmodified client only stores to its doorbell page (MMIO on a real
//! GPU). A real CP sees the store at once; the sim's engines watch the page
//! by reading it, and an engine that found nothing for a while sleeps. So
//! that the first packet after an idle spell is not left waiting for the
//! next look, an engine about to sleep *arms* its GPU's doorbell page:
//! every client mapping of it is write-protected with userfaultfd
//! (`UFFDIO_WRITEPROTECT`, Linux 5.19+ for shared memory). The next client
//! store to the page faults; the watch thread (blocked in `poll` on the
//! userfaultfd) lifts the protection, which lets the store complete, and
//! kicks every engine of that GPU. While an engine is awake the page is not
//! protected and a store costs nothing extra. The engines' own view of the
//! page is a separate mapping, never registered, so their reads and their
//! `DOORBELL_IDLE` writes never fault.
//!
//! Where userfaultfd is not available (an older kernel, a seccomp filter,
//! `vm.unprivileged_userfaultfd = 0` on a kernel without
//! `UFFD_USER_MODE_ONLY`), or for a mapping that could not be registered,
//! arming reports failure and the engine sleeps with its bounded backoff
//! instead (`cp::MAX_SLEEP`). `SimBuilder::doorbell_watch(false)` (`SIM_DOORBELL_WATCH=0`)
//! turns the watch off.
//!
//! Safety of the client: a write-protected page blocks the storing thread
//! until the watch thread lifts the protection. The watch thread never
//! exits while the device lives, lifts the protection of every mapping of
//! the GPU on every fault it reads, and when the device is dropped the
//! userfaultfd is closed, which (as the kernel documents) unregisters every
//! range and wakes every thread blocked on it. A child made by `fork` keeps
//! no registration (no `UFFD_FEATURE_EVENT_FORK`), so its stores never
//! fault.
//!
//! Constants and layouts: `linux/userfaultfd.h` (`tests/tests/uffd_abi.rs`
//! checks them against the system header).

#![allow(unsafe_code)]

use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use rustix::io::Errno;
use rustix::ioctl::{Opcode, Updater, ioctl, opcode};

/// `struct uffdio_api` (`linux/userfaultfd.h`).
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct UffdioApi {
    /// `UFFD_API`.
    pub api: u64,
    /// Features asked for, then those the kernel has.
    pub features: u64,
    /// The ioctls the kernel supports on the descriptor.
    pub ioctls: u64,
}

/// `struct uffdio_range`.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct UffdioRange {
    /// Start address.
    pub start: u64,
    /// Length in bytes.
    pub len: u64,
}

/// `struct uffdio_register`.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct UffdioRegister {
    /// The range to register.
    pub range: UffdioRange,
    /// `UFFDIO_REGISTER_MODE_*`.
    pub mode: u64,
    /// The ioctls the range supports (written by the kernel).
    pub ioctls: u64,
}

/// `struct uffdio_writeprotect`.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct UffdioWriteprotect {
    /// The range to protect or unprotect.
    pub range: UffdioRange,
    /// `UFFDIO_WRITEPROTECT_MODE_*`.
    pub mode: u64,
}

/// `struct uffd_msg` (`__packed`), seen through the page-fault member of
/// its union.
#[repr(C, packed)]
#[derive(Debug, Default, Clone, Copy)]
pub struct UffdMsg {
    /// `UFFD_EVENT_*`.
    pub event: u8,
    /// Reserved.
    pub reserved1: u8,
    /// Reserved.
    pub reserved2: u16,
    /// Reserved.
    pub reserved3: u32,
    /// `arg.pagefault.flags`: `UFFD_PAGEFAULT_FLAG_*`.
    pub flags: u64,
    /// `arg.pagefault.address`.
    pub address: u64,
    /// `arg.reserved.reserved3`: the union's last 8 bytes, whose low 4 are
    /// `arg.pagefault.feat.ptid` (the thread id, with
    /// `UFFD_FEATURE_THREAD_ID`).
    pub tail: u64,
}

const _: () = {
    use core::mem::{offset_of, size_of};
    assert!(size_of::<UffdioApi>() == 24);
    assert!(size_of::<UffdioRange>() == 16);
    assert!(size_of::<UffdioRegister>() == 32);
    assert!(offset_of!(UffdioRegister, mode) == 16);
    assert!(size_of::<UffdioWriteprotect>() == 24);
    assert!(offset_of!(UffdioWriteprotect, mode) == 16);
    assert!(size_of::<UffdMsg>() == 32);
    assert!(core::mem::align_of::<UffdMsg>() == 1);
    assert!(offset_of!(UffdMsg, flags) == 8);
    assert!(offset_of!(UffdMsg, address) == 16);
};

/// `UFFD_API`.
pub const UFFD_API: u64 = 0xAA;
/// `UFFDIO`: the ioctl type of userfaultfd.
pub const UFFDIO: u8 = 0xAA;
/// `_UFFDIO_REGISTER`.
pub const UFFDIO_REGISTER_NR: u8 = 0x00;
/// `_UFFDIO_WRITEPROTECT`.
pub const UFFDIO_WRITEPROTECT_NR: u8 = 0x06;
/// `_UFFDIO_API`.
pub const UFFDIO_API_NR: u8 = 0x3F;
/// `UFFDIO_REGISTER_MODE_WP`.
pub const UFFDIO_REGISTER_MODE_WP: u64 = 1 << 1;
/// `UFFDIO_WRITEPROTECT_MODE_WP`.
pub const UFFDIO_WRITEPROTECT_MODE_WP: u64 = 1 << 0;
/// `UFFD_FEATURE_PAGEFAULT_FLAG_WP`.
pub const UFFD_FEATURE_PAGEFAULT_FLAG_WP: u64 = 1 << 0;
/// `UFFD_FEATURE_WP_HUGETLBFS_SHMEM`: write protection of shared memory
/// (the doorbell page is a memfd).
pub const UFFD_FEATURE_WP_HUGETLBFS_SHMEM: u64 = 1 << 12;
/// `UFFD_EVENT_PAGEFAULT`.
pub const UFFD_EVENT_PAGEFAULT: u8 = 0x12;

/// `UFFD_USER_MODE_ONLY`: a userfaultfd flag (not an `O_*` one).
pub const UFFD_USER_MODE_ONLY: u32 = 1;

/// `UFFDIO_API`.
pub const UFFDIO_API: Opcode = opcode::read_write::<UffdioApi>(UFFDIO, UFFDIO_API_NR);
/// `UFFDIO_REGISTER`.
pub const UFFDIO_REGISTER: Opcode =
    opcode::read_write::<UffdioRegister>(UFFDIO, UFFDIO_REGISTER_NR);
/// `UFFDIO_WRITEPROTECT`.
pub const UFFDIO_WRITEPROTECT: Opcode =
    opcode::read_write::<UffdioWriteprotect>(UFFDIO, UFFDIO_WRITEPROTECT_NR);

/// One `_IOWR` userfaultfd request on `fd`.
///
/// # Safety
/// `CODE` must be a userfaultfd request whose argument is a `T`.
unsafe fn uffd_ioctl<const CODE: Opcode, T>(fd: &OwnedFd, arg: &mut T) -> Result<(), Errno> {
    // SAFETY: the caller names a request whose argument is `T`.
    let request = unsafe { Updater::<'_, CODE, T>::new(arg) };
    // SAFETY: `request` borrows a valid, exclusive `T` for the call.
    unsafe { ioctl(fd, request) }
}

/// Kicks one engine (its `cp::CommandProcessor::kick`).
pub(crate) type Waker = Box<dyn Fn() + Send + Sync>;

/// A client mapping of a GPU's doorbell page, registered for write
/// protection.
#[derive(Debug, Clone, Copy)]
struct Mapping {
    start: u64,
    len: u64,
    gpu: usize,
}

#[derive(Default)]
struct State {
    mappings: Vec<Mapping>,
    /// Per GPU: its mappings are write-protected now.
    armed: Vec<bool>,
    /// Per GPU: a client mapping could not be registered, so stores to it
    /// cannot fault and the engines must poll.
    unwatchable: Vec<bool>,
    /// Per GPU: the engines to kick after a doorbell fault.
    wakers: Vec<Vec<Waker>>,
}

struct Shared {
    uffd: OwnedFd,
    state: Mutex<State>,
    /// Doorbell stores that faulted and woke the engines.
    wakes: AtomicU64,
}

fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    /// Write-protects (`wp`) or releases every mapping of `gpu`; false if
    /// any mapping could not be protected (then none stays protected).
    fn protect(&self, s: &mut State, gpu: usize, wp: bool) -> bool {
        let mut ok = true;
        let mut gone = Vec::new();
        for (i, m) in s.mappings.iter().enumerate().filter(|(_, m)| m.gpu == gpu) {
            let mut a = UffdioWriteprotect {
                range: UffdioRange {
                    start: m.start,
                    len: m.len,
                },
                mode: if wp { UFFDIO_WRITEPROTECT_MODE_WP } else { 0 },
            };
            // SAFETY: UFFDIO_WRITEPROTECT takes a `uffdio_writeprotect`.
            match unsafe { uffd_ioctl::<UFFDIO_WRITEPROTECT, _>(&self.uffd, &mut a) } {
                Ok(()) => {}
                // The client unmapped it behind our back (ENOENT: no
                // registered range there any more).
                Err(Errno::NOENT) => gone.push(i),
                Err(_) => ok = false,
            }
        }
        for i in gone.into_iter().rev() {
            s.mappings.remove(i);
        }
        if wp && !ok {
            // Never leave a page protected that the engines do not count
            // on: release what was protected.
            self.protect(s, gpu, false);
        }
        ok
    }

    /// A fault at `address`: release the GPU's page, wake its engines.
    fn fault(&self, address: u64) {
        let mut s = lock(&self.state);
        let gpu = s
            .mappings
            .iter()
            .find(|m| (m.start..m.start + m.len).contains(&address))
            .map(|m| m.gpu);
        match gpu {
            Some(g) => {
                // Counted and disarmed before the release lets the store
                // (and its thread) go on.
                if let Some(a) = s.armed.get_mut(g) {
                    *a = false;
                }
                self.wakes.fetch_add(1, Ordering::Release);
                self.protect(&mut s, g, false);
                for w in s.wakers.get(g).into_iter().flatten() {
                    w();
                }
            }
            None => {
                // Not a mapping we know (it was just unregistered): release
                // the page anyway so the storing thread goes on.
                let page = address & !4095;
                let mut a = UffdioWriteprotect {
                    range: UffdioRange {
                        start: page,
                        len: 4096,
                    },
                    mode: 0,
                };
                // SAFETY: UFFDIO_WRITEPROTECT takes a `uffdio_writeprotect`.
                let _ = unsafe { uffd_ioctl::<UFFDIO_WRITEPROTECT, _>(&self.uffd, &mut a) };
            }
        }
    }
}

/// The device's doorbell watch: one userfaultfd and one thread.
pub(crate) struct DoorbellWatch {
    shared: Option<Arc<Shared>>,
    stop: Option<OwnedFd>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for DoorbellWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DoorbellWatch")
            .field("active", &self.shared.is_some())
            .finish_non_exhaustive()
    }
}

impl DoorbellWatch {
    /// A watch for `gpus` GPUs; inactive (every `arm` false) when not
    /// `enabled` or when userfaultfd write protection of shared memory is
    /// not available.
    pub(crate) fn new(gpus: usize, enabled: bool) -> Self {
        let shared = if enabled { open(gpus) } else { None };
        let Some(shared) = shared else {
            return Self {
                shared: None,
                stop: None,
                thread: None,
            };
        };
        let Ok(stop) = rustix::event::eventfd(
            0,
            rustix::event::EventfdFlags::CLOEXEC | rustix::event::EventfdFlags::NONBLOCK,
        ) else {
            return Self {
                shared: None,
                stop: None,
                thread: None,
            };
        };
        let (s, stop_fd) = (Arc::clone(&shared), stop.try_clone());
        let thread = stop_fd.ok().and_then(|stop_fd| {
            std::thread::Builder::new()
                .name("sim-doorbells".into())
                .spawn(move || watch(&s, &stop_fd))
                .ok()
        });
        match thread {
            Some(t) => Self {
                shared: Some(shared),
                stop: Some(stop),
                thread: Some(t),
            },
            None => Self {
                shared: None,
                stop: None,
                thread: None,
            },
        }
    }

    /// Adds an engine of `gpu` to wake after a doorbell fault.
    pub(crate) fn add_waker(&self, gpu: usize, w: Waker) {
        if let Some(sh) = &self.shared {
            let mut s = lock(&sh.state);
            if let Some(v) = s.wakers.get_mut(gpu) {
                v.push(w);
            }
        }
    }

    /// Registers a client mapping of `gpu`'s doorbell page. A mapping that
    /// cannot be registered makes every later `arm` of that GPU fail (the
    /// engines then poll), so no store goes unseen.
    pub(crate) fn register(&self, gpu: usize, start: u64, len: u64) {
        let Some(sh) = &self.shared else { return };
        let mut r = UffdioRegister {
            range: UffdioRange { start, len },
            mode: UFFDIO_REGISTER_MODE_WP,
            ioctls: 0,
        };
        // SAFETY: UFFDIO_REGISTER takes a `uffdio_register`.
        let ok = unsafe { uffd_ioctl::<UFFDIO_REGISTER, _>(&sh.uffd, &mut r) }.is_ok();
        let mut s = lock(&sh.state);
        if ok {
            s.mappings.push(Mapping { start, len, gpu });
            if s.armed.get(gpu).copied().unwrap_or(false) {
                // A GPU already armed protects its new mapping too.
                if !sh.protect(&mut s, gpu, true) {
                    s.armed[gpu] = false;
                }
            } else {
                // An engine that found nothing to arm (CREATE_QUEUE comes
                // before the client maps its doorbells) sleeps unarmed:
                // have it announce its sleep again, and arm.
                for w in s.wakers.get(gpu).into_iter().flatten() {
                    w();
                }
            }
        } else if let Some(u) = s.unwatchable.get_mut(gpu) {
            // This GPU polls from now on.
            *u = true;
            if s.armed[gpu] {
                sh.protect(&mut s, gpu, false);
                s.armed[gpu] = false;
            }
        }
    }

    /// Forgets a client mapping the client unmaps (through the device).
    pub(crate) fn unregister(&self, start: u64) {
        if let Some(sh) = &self.shared {
            lock(&sh.state).mappings.retain(|m| m.start != start);
        }
    }

    /// Write-protects `gpu`'s doorbell page so the next client store wakes
    /// its engines; false if the engines must poll instead.
    pub(crate) fn arm(&self, gpu: usize) -> bool {
        let Some(sh) = &self.shared else { return false };
        let mut s = lock(&sh.state);
        if s.unwatchable.get(gpu).copied().unwrap_or(true) {
            return false;
        }
        if !s.mappings.iter().any(|m| m.gpu == gpu) {
            // No client mapping: nobody can ring (a queue of a client that
            // maps its doorbells later still gets CREATE_QUEUE's kick).
            return false;
        }
        if s.armed.get(gpu).copied().unwrap_or(false) {
            return true;
        }
        let ok = sh.protect(&mut s, gpu, true);
        if let Some(a) = s.armed.get_mut(gpu) {
            *a = ok;
        }
        ok
    }

    /// Whether `gpu`'s doorbell page is write-protected now.
    pub(crate) fn is_armed(&self, gpu: usize) -> bool {
        self.shared
            .as_ref()
            .is_some_and(|sh| lock(&sh.state).armed.get(gpu).copied().unwrap_or(false))
    }

    /// Doorbell stores that faulted and woke the engines so far.
    pub(crate) fn wakes(&self) -> u64 {
        self.shared
            .as_ref()
            .map_or(0, |s| s.wakes.load(Ordering::Acquire))
    }

    /// Whether the watch works (userfaultfd write protection available).
    pub(crate) fn is_active(&self) -> bool {
        self.shared.is_some()
    }

    /// Stops the thread and closes the userfaultfd (which releases every
    /// protected page).
    pub(crate) fn stop(&mut self) {
        if let Some(stop) = &self.stop {
            let _ = rustix::io::write(stop, &1u64.to_ne_bytes());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        if let Some(sh) = self.shared.take() {
            lock(&sh.state).wakers.clear();
        }
    }
}

impl Drop for DoorbellWatch {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A userfaultfd with write protection of shared memory, or None.
fn open(gpus: usize) -> Option<Arc<Shared>> {
    use rustix::mm::UserfaultfdFlags;
    let flags = UserfaultfdFlags::CLOEXEC | UserfaultfdFlags::NONBLOCK;
    // UFFD_USER_MODE_ONLY (Linux 5.11+) is allowed for unprivileged
    // processes even with vm.unprivileged_userfaultfd = 0; the doorbell is
    // only ever stored to from user mode.
    let user_mode_only = UserfaultfdFlags::from_bits_retain(UFFD_USER_MODE_ONLY);
    // SAFETY: creating a userfaultfd has no memory effects by itself.
    let uffd = unsafe { rustix::mm::userfaultfd(flags | user_mode_only) }
        // SAFETY: as above.
        .or_else(|_| unsafe { rustix::mm::userfaultfd(flags) })
        .ok()?;
    let mut api = UffdioApi {
        api: UFFD_API,
        features: UFFD_FEATURE_PAGEFAULT_FLAG_WP | UFFD_FEATURE_WP_HUGETLBFS_SHMEM,
        ioctls: 0,
    };
    // SAFETY: UFFDIO_API takes a `uffdio_api`.
    unsafe { uffd_ioctl::<UFFDIO_API, _>(&uffd, &mut api) }.ok()?;
    if api.ioctls & (1 << UFFDIO_REGISTER_NR) == 0 {
        return None;
    }
    Some(Arc::new(Shared {
        uffd,
        state: Mutex::new(State {
            mappings: Vec::new(),
            armed: vec![false; gpus],
            unwatchable: vec![false; gpus],
            wakers: (0..gpus).map(|_| Vec::new()).collect(),
        }),
        wakes: AtomicU64::new(0),
    }))
}

/// The watch thread: reads faults until the stop eventfd is written.
fn watch(sh: &Shared, stop: &OwnedFd) {
    use rustix::event::{PollFd, PollFlags, poll};
    let mut buf = [UffdMsg::default(); 16];
    loop {
        let mut fds = [
            PollFd::new(&sh.uffd, PollFlags::IN),
            PollFd::new(stop, PollFlags::IN),
        ];
        match poll(&mut fds, None) {
            Ok(_) | Err(Errno::INTR) => {}
            Err(_) => return,
        }
        if !fds[1].revents().is_empty() {
            return;
        }
        loop {
            // SAFETY: `UffdMsg` is plain old data of the kernel's 32-byte
            // message; the slice covers exactly `buf`.
            let bytes = unsafe {
                std::slice::from_raw_parts_mut(
                    buf.as_mut_ptr().cast::<u8>(),
                    core::mem::size_of_val(&buf),
                )
            };
            let n = match rustix::io::read(sh.uffd.as_fd(), bytes) {
                Ok(n) => n,
                Err(Errno::INTR) => continue,
                Err(_) => break,
            };
            for m in &buf[..n / core::mem::size_of::<UffdMsg>()] {
                if m.event == UFFD_EVENT_PAGEFAULT {
                    sh.fault(m.address);
                }
            }
            if n < core::mem::size_of_val(&buf) {
                break;
            }
        }
    }
}
