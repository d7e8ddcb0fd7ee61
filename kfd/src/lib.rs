//! Safe bindings for the Linux AMD KFD driver (`/dev/kfd`) and its sysfs
//! topology, usable on their own.
//!
//! - [`ioctl`]: every ioctl of the upstream `include/uapi/linux/kfd_ioctl.h`
//!   at KFD interface 1.18 (except the four deprecated debugger ioctls), as
//!   one descriptor each with its request code, C name and the version that
//!   introduced it; the `#[repr(C)]` argument structs in [`ioctl::raw`];
//!   constants and typed flags.
//! - [`Kfd`]: the device handle, with one safe wrapper per ioctl, which
//!   owns the pages it maps ([`DoorbellPage`], [`EventPage`]).
//! - [`device`]: the seam every ioctl and mapping goes through, so that a
//!   simulated device can stand in for `/dev/kfd` at no cost to the real
//!   path.
//!
//! - [`topology`]: the parser of `/sys/devices/virtual/kfd/kfd/topology`.
//!
//! This crate needs `std`. It knows nothing of HSA objects.
//!
//! ```no_run
//! let kfd = kfd::Kfd::open()?;
//! println!("KFD interface {}", kfd.version());
//! # Ok::<(), kfd::Error>(())
//! ```
#![deny(unsafe_code)]

pub mod device;
mod error;
mod handle;
pub mod ioctl;
mod mapping;
pub mod topology;

pub use device::{DrmRenderNode, KfdDevice, RealDevice, RealRenderNode};
pub use error::{ErrnoName, Error, KFD_DEVICE_PATH, Result, UnknownValue};
pub use handle::*;
pub use ioctl::KfdVersion;
pub use mapping::{BufferMapping, DoorbellPage, EVENT_PAGE_SIZE, EventPage, Mapping, RenderNode};
