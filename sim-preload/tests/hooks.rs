//! The interposed functions called directly (the rlib): descriptor
//! identity (`dup`, `fcntl(F_DUPFD)`, `close`), `fstat` of a sim
//! descriptor, the routes of the sysfs paths, and errors passed through.
//! `scripts/test-rocr-on-sim` runs AMD's stack under the real preload.

#![allow(unsafe_code)]

use std::ffi::{CStr, CString, c_void};
use std::io::Read;

use kfd::ioctl::{AMDKFD_IOC_GET_VERSION, raw};

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

fn open(path: &CStr) -> i32 {
    // SAFETY: a valid C string.
    unsafe { sim_preload::open(path.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC, 0) }
}

fn version(fd: i32) -> Result<(u32, u32), i32> {
    let mut a = raw::GetVersionArgs::default();
    let arg = (&mut a as *mut raw::GetVersionArgs).cast::<c_void>();
    // SAFETY: GET_VERSION's argument struct.
    let r = unsafe { sim_preload::ioctl(fd, AMDKFD_IOC_GET_VERSION.code() as libc::c_ulong, arg) };
    if r == 0 {
        Ok((a.major_version, a.minor_version))
    } else {
        Err(errno())
    }
}

fn zeroed_stat() -> libc::stat {
    // SAFETY: all-zero is a valid `struct stat`.
    unsafe { std::mem::zeroed() }
}

fn fstat(fd: i32) -> libc::stat {
    let mut st = zeroed_stat();
    // SAFETY: our buffer.
    assert_eq!(unsafe { sim_preload::fstat(fd, &mut st) }, 0);
    st
}

fn close(fd: i32) -> i32 {
    // SAFETY: closing a descriptor this test opened.
    unsafe { sim_preload::close(fd) }
}

#[test]
fn kfd_descriptors_follow_dup_and_close() {
    let fd = open(c"/dev/kfd");
    assert!(fd >= 0, "open /dev/kfd: errno {}", errno());
    assert_eq!(version(fd).map(|v| v.0), Ok(1));
    let st = fstat(fd);
    assert_eq!(st.st_mode & libc::S_IFMT, libc::S_IFCHR);
    // SAFETY: duplicating our descriptor.
    let d = unsafe { sim_preload::dup(fd) };
    // SAFETY: as above.
    let f = unsafe { sim_preload::fcntl(fd, libc::F_DUPFD_CLOEXEC, 100) };
    assert!(d >= 0 && f >= 100, "dup {d}, F_DUPFD {f}");
    assert_eq!(close(fd), 0);
    assert!(version(d).is_ok(), "a dup outlives the original");
    assert!(version(f).is_ok(), "an F_DUPFD copy outlives the original");
    assert_eq!(close(d), 0);
    assert_eq!(close(f), 0);
    // Closed: the number is nobody's, and the real ioctl says so.
    assert_eq!(version(f), Err(libc::EBADF));
}

#[test]
fn render_node_is_drm_char_device_226_128() {
    let fd = open(c"/dev/dri/renderD128");
    assert!(fd >= 0, "open renderD128: errno {}", errno());
    let st = fstat(fd);
    assert_eq!(st.st_mode & libc::S_IFMT, libc::S_IFCHR);
    assert_eq!(
        (libc::major(st.st_rdev), libc::minor(st.st_rdev)),
        (226, 128)
    );
    // DRM_IOCTL_VERSION through the preload reaches the sim's render node.
    let mut v = [0u8; 64];
    // SAFETY: a struct drm_version without buffers.
    let r = unsafe { sim_preload::ioctl(fd, 0xc040_6400, v.as_mut_ptr().cast()) };
    assert_eq!(r, 0);
    assert_eq!(i32::from_ne_bytes(v[0..4].try_into().unwrap()), 3);
    // A minor the sim does not have is the real open's (no such file).
    assert!(open(c"/dev/dri/renderD200") < 0);
    assert_eq!(close(fd), 0);
}

#[test]
fn sysfs_topology_is_the_sims() {
    let read = |p: &str| {
        let c = CString::new(p).unwrap();
        let fd = open(&c);
        assert!(fd >= 0, "open {p}: errno {}", errno());
        let mut s = String::new();
        // SAFETY: `fd` is a fresh descriptor the File owns from here.
        let mut f = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fd) };
        f.read_to_string(&mut s).unwrap();
        s
    };
    let id = read("/sys/devices/virtual/kfd/kfd/topology/nodes/1/gpu_id");
    assert_eq!(id, read("/sys/class/kfd/kfd/topology/nodes/1/gpu_id"));
    let dev = sim::SimDevice::new(sim::SimBuilder::new().without_shader_core());
    let topo = kfd::topology::Topology::read(dev.topology().reader()).unwrap();
    let want = topo.gpus().next().unwrap().gpu_id;
    assert_eq!(id.trim().parse::<u32>().unwrap(), want);
    // fopen and opendir go the same way.
    let gen_id = c"/sys/devices/virtual/kfd/kfd/topology/generation_id";
    // SAFETY: valid C strings.
    let f = unsafe { sim_preload::fopen(gen_id.as_ptr(), c"r".as_ptr()) };
    assert!(!f.is_null());
    // SAFETY: the FILE opened above.
    unsafe { libc::fclose(f) };
    let nodes = c"/sys/devices/virtual/kfd/kfd/topology/nodes";
    // SAFETY: a valid C string.
    let d = unsafe { sim_preload::opendir(nodes.as_ptr()) };
    assert!(!d.is_null());
    // SAFETY: the DIR opened above.
    unsafe { libc::closedir(d) };
    // What libdrm's drmNodeIsDRM stats.
    let mut st = zeroed_stat();
    let drm = c"/sys/dev/char/226:128/device/drm";
    // SAFETY: a valid C string and our buffer.
    assert_eq!(unsafe { sim_preload::stat(drm.as_ptr(), &mut st) }, 0);
    assert_eq!(st.st_mode & libc::S_IFMT, libc::S_IFDIR);
}
