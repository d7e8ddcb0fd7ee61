//! Safe bindings for the Linux AMD KFD driver (`/dev/kfd`) and its sysfs
//! topology, usable on their own.
//!
//! This crate needs `std`. It will hold one descriptor and one safe wrapper
//! per ioctl of `include/uapi/linux/kfd_ioctl.h`, the `Kfd` handle that owns
//! the device file and the pages it maps, and the parser of
//! `/sys/devices/virtual/kfd/kfd/topology`. It knows nothing of HSA objects.
#![deny(unsafe_code)]
pub mod topology;
