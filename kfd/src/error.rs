//! Errors: small, `Copy`, and saying what failed and why.

use core::fmt;

use rustix::io::Errno;

use crate::ioctl::KfdVersion;

/// The device file [`Kfd::open`](crate::Kfd::open) opens.
pub const KFD_DEVICE_PATH: &str = "/dev/kfd";

/// Everything that can go wrong in this crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// `/dev/kfd` does not exist or has no driver behind it.
    NoDevice {
        /// `ENOENT`, `ENODEV` or `ENXIO`.
        errno: Errno,
    },
    /// `/dev/kfd` exists but this user may not open it.
    PermissionDenied {
        /// `EACCES` or `EPERM`.
        errno: Errno,
    },
    /// Opening `/dev/kfd` failed for another reason.
    Open {
        /// What `open(2)` said.
        errno: Errno,
    },
    /// An ioctl failed.
    Ioctl {
        /// The C name, e.g. `AMDKFD_IOC_CREATE_QUEUE`.
        ioctl: &'static str,
        /// The sub-operation for multiplexed ioctls, e.g. `KFD_IOC_DBG_TRAP_SUSPEND_QUEUES`.
        op: Option<&'static str>,
        /// What the driver said.
        errno: Errno,
    },
    /// The driver speaks an interface major version this crate does not know.
    UnsupportedDriver {
        /// What `AMDKFD_IOC_GET_VERSION` reported.
        driver: KfdVersion,
    },
    /// A feature needs a newer driver than the one this handle talks to.
    NeedsVersion {
        /// The ioctl or flag, by its C name.
        feature: &'static str,
        /// The interface version that introduced it.
        needs: KfdVersion,
        /// The driver's version.
        driver: KfdVersion,
    },
    /// A slice is too long for the 32-bit count the driver takes.
    TooLong {
        /// The ioctl.
        ioctl: &'static str,
        /// The argument, by its C field name.
        what: &'static str,
        /// Its length.
        len: usize,
    },
    /// An argument is out of the range the header allows.
    InvalidArgument {
        /// The ioctl.
        ioctl: &'static str,
        /// What is wrong, e.g. `"ring_size is not a power of two"`.
        what: &'static str,
    },
    /// The driver answered with a value outside the header's range.
    BadReply {
        /// The ioctl.
        ioctl: &'static str,
        /// The field, by its C name.
        what: &'static str,
        /// The value.
        value: u64,
    },
    /// Mapping device memory failed.
    Mmap {
        /// What was mapped, e.g. `"doorbell page"`.
        what: &'static str,
        /// What `mmap(2)` said.
        errno: Errno,
    },
    /// Opening a GPU's DRM render node failed.
    OpenRenderNode {
        /// The render node's minor (`/dev/dri/renderD<minor>`).
        minor: u32,
        /// What `open(2)` said.
        errno: Errno,
    },
    /// Mapping a buffer through a DRM render node failed.
    RenderNodeMmap {
        /// The buffer's mmap offset.
        offset: u64,
        /// What `mmap(2)` said.
        errno: Errno,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;

impl Error {
    /// Classifies an `open(2)` failure of `/dev/kfd`.
    pub fn from_open_errno(errno: Errno) -> Self {
        match errno {
            Errno::NOENT | Errno::NODEV | Errno::NXIO => Self::NoDevice { errno },
            Errno::ACCESS | Errno::PERM => Self::PermissionDenied { errno },
            _ => Self::Open { errno },
        }
    }

    /// The errno behind this error, if one.
    pub fn errno(&self) -> Option<Errno> {
        match *self {
            Self::NoDevice { errno }
            | Self::PermissionDenied { errno }
            | Self::Open { errno }
            | Self::Ioctl { errno, .. }
            | Self::Mmap { errno, .. }
            | Self::OpenRenderNode { errno, .. }
            | Self::RenderNodeMmap { errno, .. } => Some(errno),
            _ => None,
        }
    }

    /// The C name of the ioctl that failed, if an ioctl failed.
    pub fn ioctl(&self) -> Option<&'static str> {
        match *self {
            Self::Ioctl { ioctl, .. }
            | Self::TooLong { ioctl, .. }
            | Self::InvalidArgument { ioctl, .. }
            | Self::BadReply { ioctl, .. } => Some(ioctl),
            _ => None,
        }
    }
}

/// An errno shown by its C name (`EINVAL`), or its number when unusual.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrnoName(pub Errno);

impl fmt::Display for ErrnoName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NAMES: &[(Errno, &str)] = &[
            (Errno::PERM, "EPERM"),
            (Errno::NOENT, "ENOENT"),
            (Errno::SRCH, "ESRCH"),
            (Errno::INTR, "EINTR"),
            (Errno::IO, "EIO"),
            (Errno::NXIO, "ENXIO"),
            (Errno::TOOBIG, "E2BIG"),
            (Errno::BADF, "EBADF"),
            (Errno::AGAIN, "EAGAIN"),
            (Errno::NOMEM, "ENOMEM"),
            (Errno::ACCESS, "EACCES"),
            (Errno::FAULT, "EFAULT"),
            (Errno::BUSY, "EBUSY"),
            (Errno::EXIST, "EEXIST"),
            (Errno::NODEV, "ENODEV"),
            (Errno::INVAL, "EINVAL"),
            (Errno::MFILE, "EMFILE"),
            (Errno::NOTTY, "ENOTTY"),
            (Errno::NOSPC, "ENOSPC"),
            (Errno::RANGE, "ERANGE"),
            (Errno::DEADLK, "EDEADLK"),
            (Errno::NOSYS, "ENOSYS"),
            (Errno::TIME, "ETIME"),
            (Errno::OVERFLOW, "EOVERFLOW"),
            (Errno::OPNOTSUPP, "EOPNOTSUPP"),
            (Errno::TIMEDOUT, "ETIMEDOUT"),
            (Errno::CANCELED, "ECANCELED"),
        ];
        match NAMES.iter().find(|(e, _)| *e == self.0) {
            Some((_, name)) => f.write_str(name),
            None => write!(f, "errno {}", self.0.raw_os_error()),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::NoDevice { errno } => write!(
                f,
                "cannot open {KFD_DEVICE_PATH} ({}): the amdgpu kernel driver is not loaded \
                 or this machine has no AMD GPU",
                ErrnoName(errno)
            ),
            Self::PermissionDenied { errno } => write!(
                f,
                "cannot open {KFD_DEVICE_PATH} ({}): permission denied; the user must be in \
                 the groups that own the GPU device files, `render` and `video` \
                 (e.g. `sudo usermod -aG render,video $USER`, then log in again)",
                ErrnoName(errno)
            ),
            Self::Open { errno } => {
                write!(f, "cannot open {KFD_DEVICE_PATH}: {}", ErrnoName(errno))
            }
            Self::Ioctl {
                ioctl,
                op: None,
                errno,
            } => {
                write!(f, "{ioctl} failed: {}", ErrnoName(errno))
            }
            Self::Ioctl {
                ioctl,
                op: Some(op),
                errno,
            } => {
                write!(f, "{ioctl} ({op}) failed: {}", ErrnoName(errno))
            }
            Self::UnsupportedDriver { driver } => write!(
                f,
                "the KFD driver speaks interface {driver}; this crate supports major version {}",
                KfdVersion::MIRRORED.major
            ),
            Self::NeedsVersion {
                feature,
                needs,
                driver,
            } => write!(
                f,
                "{feature} needs KFD interface {needs} or newer; the driver speaks {driver}"
            ),
            Self::TooLong { ioctl, what, len } => write!(
                f,
                "{ioctl}: {what} has {len} entries, more than the driver's 32-bit count holds"
            ),
            Self::InvalidArgument { ioctl, what } => write!(f, "{ioctl}: {what}"),
            Self::BadReply { ioctl, what, value } => {
                write!(
                    f,
                    "{ioctl} returned {what} = {value}, which the header does not define"
                )
            }
            Self::Mmap { what, errno } => {
                write!(
                    f,
                    "mapping the {what} of {KFD_DEVICE_PATH} failed: {}",
                    ErrnoName(errno)
                )
            }
            Self::OpenRenderNode { minor, errno } => {
                write!(
                    f,
                    "cannot open the render node /dev/dri/renderD{minor}: {}",
                    ErrnoName(errno)
                )
            }
            Self::RenderNodeMmap { offset, errno } => {
                write!(
                    f,
                    "mapping the buffer at mmap offset {offset:#x} of a render node failed: {}",
                    ErrnoName(errno)
                )
            }
        }
    }
}

impl std::error::Error for Error {}

impl From<Error> for std::io::Error {
    /// Keeps the errno when there is one (so `raw_os_error` still works) and
    /// the message otherwise.
    fn from(e: Error) -> Self {
        let kind = match e {
            Error::BadReply { .. } => std::io::ErrorKind::InvalidData,
            Error::NeedsVersion { .. } | Error::UnsupportedDriver { .. } => {
                std::io::ErrorKind::Unsupported
            }
            Error::TooLong { .. } | Error::InvalidArgument { .. } => {
                std::io::ErrorKind::InvalidInput
            }
            _ => std::io::ErrorKind::Other,
        };
        match e.errno() {
            Some(errno) => {
                let os = std::io::Error::from_raw_os_error(errno.raw_os_error());
                std::io::Error::new(os.kind(), e)
            }
            None => std::io::Error::new(kind, e),
        }
    }
}

/// A raw value that is not one of the constants a typed enum accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownValue {
    /// What was being decoded, e.g. `"queue type"`.
    pub what: &'static str,
    /// The value.
    pub value: u64,
}

impl fmt::Display for UnknownValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} {}", self.what, self.value)
    }
}

impl std::error::Error for UnknownValue {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_errors_are_classified_and_explained() {
        let e = Error::from_open_errno(Errno::NOENT);
        assert_eq!(
            e,
            Error::NoDevice {
                errno: Errno::NOENT
            }
        );
        assert!(
            e.to_string().contains("amdgpu kernel driver is not loaded"),
            "{e}"
        );
        assert!(e.to_string().contains("no AMD GPU"), "{e}");

        let e = Error::from_open_errno(Errno::ACCESS);
        assert_eq!(
            e,
            Error::PermissionDenied {
                errno: Errno::ACCESS
            }
        );
        let msg = e.to_string();
        assert!(msg.contains("`render`") && msg.contains("`video`"), "{msg}");

        assert!(matches!(
            Error::from_open_errno(Errno::NXIO),
            Error::NoDevice { .. }
        ));
        assert!(matches!(
            Error::from_open_errno(Errno::MFILE),
            Error::Open { .. }
        ));
    }

    #[test]
    fn ioctl_errors_name_the_ioctl_and_errno() {
        let e = Error::Ioctl {
            ioctl: "AMDKFD_IOC_CREATE_QUEUE",
            op: None,
            errno: Errno::INVAL,
        };
        assert_eq!(e.to_string(), "AMDKFD_IOC_CREATE_QUEUE failed: EINVAL");
        let e = Error::Ioctl {
            ioctl: "AMDKFD_IOC_DBG_TRAP",
            op: Some("KFD_IOC_DBG_TRAP_ENABLE"),
            errno: Errno::PERM,
        };
        assert_eq!(
            e.to_string(),
            "AMDKFD_IOC_DBG_TRAP (KFD_IOC_DBG_TRAP_ENABLE) failed: EPERM"
        );
        assert_eq!(
            ErrnoName(Errno::from_raw_os_error(4095)).to_string(),
            "errno 4095"
        );
    }
}
