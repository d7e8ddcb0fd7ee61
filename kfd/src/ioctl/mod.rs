//! The KFD ioctls: one descriptor per ioctl, their argument structs
//! ([`raw`]), constants ([`consts`]) and typed flags.
//!
//! Mirrors the upstream `include/uapi/linux/kfd_ioctl.h` at KFD interface
//! version **1.18** (commands `0x01..=0x26`). The deprecated debugger ioctls
//! `0x0D..=0x10` (`AMDKFD_IOC_DBG_REGISTER_DEPRECATED`,
//! `..._UNREGISTER_DEPRECATED`, `..._ADDRESS_WATCH_DEPRECATED`,
//! `..._WAVE_CONTROL_DEPRECATED`) are left out on purpose: no current driver
//! accepts them and `AMDKFD_IOC_DBG_TRAP` replaces them. Their argument
//! structs stay in [`raw`] for ABI completeness.
//!
//! Each descriptor carries the request code, computed at compile time from
//! direction, group `'K'`, number and the size of its argument struct (the
//! `_IOR`/`_IOW`/`_IOWR` macros, through `rustix::ioctl::opcode`), the C
//! name used in every error message, and the interface version that
//! introduced it. [`ALL_IOCTLS`] lists them all; [`by_request_code`] names
//! an ioctl from its request code.

pub mod consts;
pub mod raw;
mod types;

pub use types::*;

use core::fmt;
use core::marker::PhantomData;

pub use rustix::ioctl::Opcode;
use rustix::ioctl::opcode;

/// A KFD interface version, as `AMDKFD_IOC_GET_VERSION` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KfdVersion {
    /// `KFD_IOCTL_MAJOR_VERSION` (always 1 so far).
    pub major: u32,
    /// `KFD_IOCTL_MINOR_VERSION`.
    pub minor: u32,
}

impl KfdVersion {
    /// A version.
    pub const fn new(major: u32, minor: u32) -> Self {
        Self { major, minor }
    }

    /// The version of the header this crate mirrors (1.18).
    pub const MIRRORED: Self = Self::new(
        consts::KFD_IOCTL_MAJOR_VERSION,
        consts::KFD_IOCTL_MINOR_VERSION,
    );

    /// `self` is at least `needed` (same major, minor not older).
    pub const fn at_least(self, needed: Self) -> bool {
        self.major == needed.major && self.minor >= needed.minor
    }
}

impl fmt::Display for KfdVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Data direction of an ioctl, from user space's point of view (`_IOC_DIR`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// `_IOR`: the driver writes the argument.
    Read,
    /// `_IOW`: the driver reads the argument.
    Write,
    /// `_IOWR`: both.
    ReadWrite,
}

/// What a tool needs to know of an ioctl, without its argument type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoctlInfo {
    /// The C macro name, e.g. `AMDKFD_IOC_CREATE_QUEUE`.
    pub name: &'static str,
    /// The C argument struct, e.g. `struct kfd_ioctl_create_queue_args`.
    pub arg_type: &'static str,
    /// The ioctl number (`_IOC_NR`).
    pub nr: u8,
    /// The direction (`_IOC_DIR`).
    pub direction: Direction,
    /// Size of the argument struct (`_IOC_SIZE`).
    pub arg_size: usize,
    /// The full request code.
    pub code: Opcode,
    /// The interface version that introduced the ioctl. `1.0` means no
    /// version marks it: the ioctls of the 1.1 era were added over several
    /// kernel releases without a bump, and a kernel that lacks one answers
    /// `ENOTTY` or `EINVAL`.
    pub since: KfdVersion,
}

/// One KFD ioctl, typed by its argument struct `T`.
///
/// The descriptors are the `AMDKFD_IOC_*` constants of this module.
pub struct Ioctl<T> {
    info: IoctlInfo,
    _arg: PhantomData<fn(T) -> T>,
}

impl<T> Ioctl<T> {
    const fn new(
        name: &'static str,
        arg_type: &'static str,
        direction: Direction,
        nr: u8,
        since: KfdVersion,
    ) -> Self {
        let code = match direction {
            Direction::Read => opcode::read::<T>(consts::AMDKFD_IOCTL_BASE, nr),
            Direction::Write => opcode::write::<T>(consts::AMDKFD_IOCTL_BASE, nr),
            Direction::ReadWrite => opcode::read_write::<T>(consts::AMDKFD_IOCTL_BASE, nr),
        };
        Self {
            info: IoctlInfo {
                name,
                arg_type,
                nr,
                direction,
                arg_size: core::mem::size_of::<T>(),
                code,
                since,
            },
            _arg: PhantomData,
        }
    }

    /// Name, number, code and version of this ioctl.
    pub const fn info(&self) -> &IoctlInfo {
        &self.info
    }

    /// The C macro name, e.g. `AMDKFD_IOC_CREATE_QUEUE`.
    pub const fn name(&self) -> &'static str {
        self.info.name
    }

    /// The request code passed to `ioctl(2)`.
    pub const fn code(&self) -> Opcode {
        self.info.code
    }

    /// The interface version that introduced the ioctl.
    pub const fn since(&self) -> KfdVersion {
        self.info.since
    }
}

impl<T> Clone for Ioctl<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Ioctl<T> {}

impl<T> fmt::Debug for Ioctl<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.info.fmt(f)
    }
}

/// Defines the descriptors and the table in one place, so neither can miss one.
macro_rules! kfd_ioctls {
    ($(
        $(#[$meta:meta])*
        $name:ident = $dir:ident($nr:literal, $arg:ident, $c_arg:literal), since($maj:literal, $min:literal);
    )*) => {
        $(
            $(#[$meta])*
            #[doc = concat!("\n\nArgument: `", $c_arg, "` ([`raw::", stringify!($arg), "`]).")]
            pub const $name: Ioctl<raw::$arg> = Ioctl::new(
                stringify!($name),
                $c_arg,
                Direction::$dir,
                $nr,
                KfdVersion::new($maj, $min),
            );
        )*

        /// Every ioctl this crate binds, in number order.
        pub static ALL_IOCTLS: &[IoctlInfo] = &[$($name.info),*];
    };
}

kfd_ioctls! {
    /// `AMDKFD_IOC_GET_VERSION`: the driver's interface version.
    AMDKFD_IOC_GET_VERSION = Read(0x01, GetVersionArgs, "struct kfd_ioctl_get_version_args"), since(1, 0);
    /// `AMDKFD_IOC_CREATE_QUEUE`: create a user-mode queue.
    AMDKFD_IOC_CREATE_QUEUE = ReadWrite(0x02, CreateQueueArgs, "struct kfd_ioctl_create_queue_args"), since(1, 0);
    /// `AMDKFD_IOC_DESTROY_QUEUE`.
    AMDKFD_IOC_DESTROY_QUEUE = ReadWrite(0x03, DestroyQueueArgs, "struct kfd_ioctl_destroy_queue_args"), since(1, 0);
    /// `AMDKFD_IOC_SET_MEMORY_POLICY`: cache policy of the default and alternate apertures.
    AMDKFD_IOC_SET_MEMORY_POLICY = Write(0x04, SetMemoryPolicyArgs, "struct kfd_ioctl_set_memory_policy_args"), since(1, 0);
    /// `AMDKFD_IOC_GET_CLOCK_COUNTERS`.
    AMDKFD_IOC_GET_CLOCK_COUNTERS = ReadWrite(0x05, GetClockCountersArgs, "struct kfd_ioctl_get_clock_counters_args"), since(1, 0);
    /// `AMDKFD_IOC_GET_PROCESS_APERTURES` (deprecated upstream: at most 7 GPUs).
    AMDKFD_IOC_GET_PROCESS_APERTURES = Read(0x06, GetProcessAperturesArgs, "struct kfd_ioctl_get_process_apertures_args"), since(1, 0);
    /// `AMDKFD_IOC_UPDATE_QUEUE`.
    AMDKFD_IOC_UPDATE_QUEUE = Write(0x07, UpdateQueueArgs, "struct kfd_ioctl_update_queue_args"), since(1, 0);
    /// `AMDKFD_IOC_CREATE_EVENT`.
    AMDKFD_IOC_CREATE_EVENT = ReadWrite(0x08, CreateEventArgs, "struct kfd_ioctl_create_event_args"), since(1, 0);
    /// `AMDKFD_IOC_DESTROY_EVENT`.
    AMDKFD_IOC_DESTROY_EVENT = Write(0x09, DestroyEventArgs, "struct kfd_ioctl_destroy_event_args"), since(1, 0);
    /// `AMDKFD_IOC_SET_EVENT`.
    AMDKFD_IOC_SET_EVENT = Write(0x0A, SetEventArgs, "struct kfd_ioctl_set_event_args"), since(1, 0);
    /// `AMDKFD_IOC_RESET_EVENT`.
    AMDKFD_IOC_RESET_EVENT = Write(0x0B, ResetEventArgs, "struct kfd_ioctl_reset_event_args"), since(1, 0);
    /// `AMDKFD_IOC_WAIT_EVENTS`.
    AMDKFD_IOC_WAIT_EVENTS = ReadWrite(0x0C, WaitEventsArgs, "struct kfd_ioctl_wait_events_args"), since(1, 0);
    /// `AMDKFD_IOC_SET_SCRATCH_BACKING_VA`.
    AMDKFD_IOC_SET_SCRATCH_BACKING_VA = ReadWrite(0x11, SetScratchBackingVaArgs, "struct kfd_ioctl_set_scratch_backing_va_args"), since(1, 0);
    /// `AMDKFD_IOC_GET_TILE_CONFIG`.
    AMDKFD_IOC_GET_TILE_CONFIG = ReadWrite(0x12, GetTileConfigArgs, "struct kfd_ioctl_get_tile_config_args"), since(1, 0);
    /// `AMDKFD_IOC_SET_TRAP_HANDLER`.
    AMDKFD_IOC_SET_TRAP_HANDLER = Write(0x13, SetTrapHandlerArgs, "struct kfd_ioctl_set_trap_handler_args"), since(1, 0);
    /// `AMDKFD_IOC_GET_PROCESS_APERTURES_NEW`.
    AMDKFD_IOC_GET_PROCESS_APERTURES_NEW = ReadWrite(0x14, GetProcessAperturesNewArgs, "struct kfd_ioctl_get_process_apertures_new_args"), since(1, 0);
    /// `AMDKFD_IOC_ACQUIRE_VM`: adopt the GPU VM of a DRM render-node fd.
    AMDKFD_IOC_ACQUIRE_VM = Write(0x15, AcquireVmArgs, "struct kfd_ioctl_acquire_vm_args"), since(1, 0);
    /// `AMDKFD_IOC_ALLOC_MEMORY_OF_GPU`.
    AMDKFD_IOC_ALLOC_MEMORY_OF_GPU = ReadWrite(0x16, AllocMemoryOfGpuArgs, "struct kfd_ioctl_alloc_memory_of_gpu_args"), since(1, 0);
    /// `AMDKFD_IOC_FREE_MEMORY_OF_GPU`.
    AMDKFD_IOC_FREE_MEMORY_OF_GPU = Write(0x17, FreeMemoryOfGpuArgs, "struct kfd_ioctl_free_memory_of_gpu_args"), since(1, 0);
    /// `AMDKFD_IOC_MAP_MEMORY_TO_GPU`.
    AMDKFD_IOC_MAP_MEMORY_TO_GPU = ReadWrite(0x18, MapMemoryToGpuArgs, "struct kfd_ioctl_map_memory_to_gpu_args"), since(1, 0);
    /// `AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU`.
    AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU = ReadWrite(0x19, UnmapMemoryFromGpuArgs, "struct kfd_ioctl_unmap_memory_from_gpu_args"), since(1, 0);
    /// `AMDKFD_IOC_SET_CU_MASK`.
    AMDKFD_IOC_SET_CU_MASK = Write(0x1A, SetCuMaskArgs, "struct kfd_ioctl_set_cu_mask_args"), since(1, 0);
    /// `AMDKFD_IOC_GET_QUEUE_WAVE_STATE`.
    AMDKFD_IOC_GET_QUEUE_WAVE_STATE = ReadWrite(0x1B, GetQueueWaveStateArgs, "struct kfd_ioctl_get_queue_wave_state_args"), since(1, 0);
    /// `AMDKFD_IOC_GET_DMABUF_INFO`.
    AMDKFD_IOC_GET_DMABUF_INFO = ReadWrite(0x1C, GetDmabufInfoArgs, "struct kfd_ioctl_get_dmabuf_info_args"), since(1, 0);
    /// `AMDKFD_IOC_IMPORT_DMABUF`.
    AMDKFD_IOC_IMPORT_DMABUF = ReadWrite(0x1D, ImportDmabufArgs, "struct kfd_ioctl_import_dmabuf_args"), since(1, 0);
    /// `AMDKFD_IOC_ALLOC_QUEUE_GWS`: global wave sync resources for a queue.
    AMDKFD_IOC_ALLOC_QUEUE_GWS = ReadWrite(0x1E, AllocQueueGwsArgs, "struct kfd_ioctl_alloc_queue_gws_args"), since(1, 0);
    /// `AMDKFD_IOC_SMI_EVENTS` (1.3): an fd that delivers system-management events.
    AMDKFD_IOC_SMI_EVENTS = ReadWrite(0x1F, SmiEventsArgs, "struct kfd_ioctl_smi_events_args"), since(1, 3);
    /// `AMDKFD_IOC_SVM` (1.5): shared-virtual-memory range attributes.
    AMDKFD_IOC_SVM = ReadWrite(0x20, SvmArgs, "struct kfd_ioctl_svm_args"), since(1, 5);
    /// `AMDKFD_IOC_SET_XNACK_MODE` (1.5).
    AMDKFD_IOC_SET_XNACK_MODE = ReadWrite(0x21, SetXnackModeArgs, "struct kfd_ioctl_set_xnack_mode_args"), since(1, 5);
    /// `AMDKFD_IOC_CRIU_OP` (1.7): checkpoint/restore in user space.
    AMDKFD_IOC_CRIU_OP = ReadWrite(0x22, CriuArgs, "struct kfd_ioctl_criu_args"), since(1, 7);
    /// `AMDKFD_IOC_AVAILABLE_MEMORY` (1.9).
    AMDKFD_IOC_AVAILABLE_MEMORY = ReadWrite(0x23, GetAvailableMemoryArgs, "struct kfd_ioctl_get_available_memory_args"), since(1, 9);
    /// `AMDKFD_IOC_EXPORT_DMABUF` (1.12).
    AMDKFD_IOC_EXPORT_DMABUF = ReadWrite(0x24, ExportDmabufArgs, "struct kfd_ioctl_export_dmabuf_args"), since(1, 12);
    /// `AMDKFD_IOC_RUNTIME_ENABLE` (1.13).
    AMDKFD_IOC_RUNTIME_ENABLE = ReadWrite(0x25, RuntimeEnableArgs, "struct kfd_ioctl_runtime_enable_args"), since(1, 13);
    /// `AMDKFD_IOC_DBG_TRAP` (1.13): the debugger interface, one `KFD_IOC_DBG_TRAP_*` operation per call.
    AMDKFD_IOC_DBG_TRAP = ReadWrite(0x26, DbgTrapArgs, "struct kfd_ioctl_dbg_trap_args"), since(1, 13);
}

/// The ioctl with this request code, if this crate binds it.
pub fn by_request_code(code: Opcode) -> Option<&'static IoctlInfo> {
    ALL_IOCTLS.iter().find(|i| i.code == code)
}

/// The ioctl with this number (`_IOC_NR`), whatever its size field says.
///
/// The driver dispatches on the number alone and accepts argument structs
/// of older or newer sizes, so a tool decoding a trace should use this.
pub fn by_number(nr: u8) -> Option<&'static IoctlInfo> {
    ALL_IOCTLS.iter().find(|i| i.nr == nr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_complete_and_unique() {
        // 0x01..=0x26 minus the four deprecated debugger ioctls 0x0D..=0x10.
        let expected: Vec<u8> = (consts::AMDKFD_COMMAND_START..consts::AMDKFD_COMMAND_END)
            .filter(|nr| !(0x0D..=0x10).contains(nr))
            .collect();
        let nrs: Vec<u8> = ALL_IOCTLS.iter().map(|i| i.nr).collect();
        assert_eq!(nrs, expected);
        for (i, a) in ALL_IOCTLS.iter().enumerate() {
            for b in &ALL_IOCTLS[i + 1..] {
                assert_ne!(a.code, b.code, "{} and {}", a.name, b.name);
                assert_ne!(a.name, b.name);
            }
        }
    }

    #[test]
    fn request_codes_decode_back() {
        for info in ALL_IOCTLS {
            let code = info.code;
            assert_eq!(code & 0xff, u32::from(info.nr), "{}", info.name);
            assert_eq!((code >> 8) & 0xff, u32::from(b'K'), "{}", info.name);
            assert_eq!(
                ((code >> 16) & 0x3fff) as usize,
                info.arg_size,
                "{}",
                info.name
            );
            let dir = match info.direction {
                Direction::Write => 1,
                Direction::Read => 2,
                Direction::ReadWrite => 3,
            };
            assert_eq!(code >> 30, dir, "{}", info.name);
            assert_eq!(by_request_code(code), Some(info));
            assert_eq!(by_number(info.nr), Some(info));
        }
        assert_eq!(by_request_code(0), None);
        assert_eq!(by_number(0x0D), None);
    }

    #[test]
    fn known_codes() {
        // `_IOC(dir, 'K', nr, size)` expanded by hand: dir << 30 | size << 16 | 'K' << 8 | nr.
        assert_eq!(AMDKFD_IOC_GET_VERSION.code(), 0x8008_4b01);
        assert_eq!(AMDKFD_IOC_CREATE_QUEUE.code(), 0xc060_4b02);
        assert_eq!(AMDKFD_IOC_DBG_TRAP.code(), 0xc020_4b26);
    }
}
