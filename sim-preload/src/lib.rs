//! `libsim_preload.so`: the software GPU ([`sim`]) presented to an
//! unmodified process through `LD_PRELOAD`.
//!
//! AMD's own stack (ROCr over libhsakmt and libdrm_amdgpu) reaches a GPU
//! through a handful of libc calls: `open("/dev/kfd")` and its ioctls and
//! mmaps, `open("/dev/dri/renderD128")` and its DRM ioctls and mmaps, and
//! `fopen`/`opendir` of the KFD sysfs topology. This library interposes
//! those symbols and hands every call that concerns the GPU to one
//! [`sim::SimDevice`]; every other call goes to the real libc function
//! (found with `dlsym(RTLD_NEXT)`).
//!
//! The preload translates and emulates nothing of its own: ioctls go to
//! [`SimDevice::ioctl_raw`](sim::SimDevice::ioctl_raw) and the render
//! node's `ioctl`, mmaps to the device's `mmap`/`mmap_fixed`, and the
//! sysfs files are the sim's own topology written once to a private
//! directory. What it does own is the file-descriptor identity: a real
//! descriptor number per open (a memfd for `/dev/kfd`, a duplicate of the
//! render node's memfd for `renderD*`), a table from descriptor to sim
//! object so `close`, `dup` and `fcntl(F_DUPFD)` behave, and `stat`
//! answers that make those descriptors character devices as libdrm
//! expects. ARCHITECTURE.md "Running AMD's ROCr on the sim" lists every
//! interposed symbol and why.
//!
//! Environment: the sim's own (`SIM_BOARD`, `SIM_GPUS`, ..., and
//! `SIM_TRACE=FILE`, one line per KFD/DRM call the device receives).
#![deny(unsafe_code)]

mod hooks;
mod state;

pub use hooks::*;
