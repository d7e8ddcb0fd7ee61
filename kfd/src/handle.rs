//! The [`Kfd`] handle and one safe wrapper per ioctl.

#![allow(unsafe_code)]

use core::ffi::c_int;
use core::num::NonZeroUsize;
use core::ptr::NonNull;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::sync::Arc;

use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;

use crate::device::{KfdDevice, RealDevice};
use crate::error::{Error, KFD_DEVICE_PATH, Result};
use crate::ioctl::consts::*;
use crate::ioctl::raw::{self, DbgTrapOpArgs};
use crate::ioctl::*;
use crate::mapping::{DoorbellPage, EVENT_PAGE_SIZE, EventPage, Mapping};

/// An open KFD device: the driver's interface version and the device behind
/// the [seam](crate::device).
///
/// Every wrapper names its ioctl in `#[doc(alias)]`, checks what can be
/// checked before the call (slice lengths, value ranges, the interface
/// version a feature needs) and returns [`Error::Ioctl`] with the ioctl's C
/// name and the errno when the driver refuses. Interrupted calls (`EINTR`)
/// are retried.
///
/// Memory safety: the wrappers fill every user address the driver reads or
/// writes from Rust slices and references. The few that hand the GPU
/// addresses it will access on its own ([`create_queue`](Self::create_queue),
/// [`update_queue`](Self::update_queue), user-pointer allocations, wave state)
/// are `unsafe fn`s. What shader code does once a queue runs is the
/// responsibility of whoever created the queue.
#[derive(Debug)]
pub struct Kfd<D: KfdDevice = RealDevice> {
    device: Arc<D>,
    version: KfdVersion,
}

/// What `AMDKFD_IOC_CREATE_QUEUE` needs (`struct kfd_ioctl_create_queue_args`, "to KFD" fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueDesc {
    /// The GPU, by topology `gpu_id`.
    pub gpu_id: u32,
    /// What the queue executes.
    pub queue_type: QueueType,
    /// Share of the GPU.
    pub percentage: QueuePercentage,
    /// Scheduling priority.
    pub priority: QueuePriority,
    /// GPU address of the ring buffer.
    pub ring_base_address: u64,
    /// Ring size in bytes: a power of two (the driver raises it to at least
    /// `KFD_MIN_QUEUE_RING_SIZE`).
    pub ring_size: u32,
    /// Where the packet processor reads the write index.
    pub write_pointer_address: u64,
    /// Where the packet processor writes the read index.
    pub read_pointer_address: u64,
    /// End-of-pipe buffer address (0 for none).
    pub eop_buffer_address: u64,
    /// End-of-pipe buffer size.
    pub eop_buffer_size: u64,
    /// Context save/restore area address (0 for none).
    pub ctx_save_restore_address: u64,
    /// Context save/restore area size.
    pub ctx_save_restore_size: u32,
    /// Control stack size inside the save area.
    pub ctl_stack_size: u32,
    /// SDMA engine, for [`QueueType::SdmaByEngId`] (1.17).
    pub sdma_engine_id: u32,
}

/// What `AMDKFD_IOC_CREATE_QUEUE` returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueInfo {
    /// The new queue's id.
    pub queue_id: u32,
    /// mmap offset of the doorbell, for [`Kfd::map_doorbell_page`].
    pub doorbell_offset: u64,
    /// The write pointer address as KFD records it.
    pub write_pointer_address: u64,
    /// The read pointer address as KFD records it.
    pub read_pointer_address: u64,
}

/// GPU and CPU clock counters (`AMDKFD_IOC_GET_CLOCK_COUNTERS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockCounters {
    /// GPU clock counter.
    pub gpu_clock_counter: u64,
    /// CPU clock counter.
    pub cpu_clock_counter: u64,
    /// System clock counter (ns, `CLOCK_BOOTTIME`).
    pub system_clock_counter: u64,
    /// System clock frequency in Hz.
    pub system_clock_freq: u64,
}

/// What `AMDKFD_IOC_CREATE_EVENT` needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventDesc {
    /// The event type.
    pub event_type: EventType,
    /// Reset automatically when a waiter wakes.
    pub auto_reset: bool,
    /// The node, for event types that concern one.
    pub node_id: u32,
    /// On dGPUs, the handle of the buffer the caller allocated for the event
    /// page, given with the first signal event; `None` elsewhere.
    pub event_page_handle: Option<u64>,
}

/// What `AMDKFD_IOC_CREATE_EVENT` returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventInfo {
    /// The event id.
    pub event_id: u32,
    /// Value to write to the mailbox to trigger the event (signal events).
    pub event_trigger_data: u32,
    /// mmap offset of the event page, for [`Kfd::map_event_page`].
    pub event_page_offset: u64,
    /// The event's slot in the event page.
    pub event_slot_index: u32,
}

/// Tile configuration (`AMDKFD_IOC_GET_TILE_CONFIG`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileConfig {
    /// Entries written to the tile array.
    pub num_tile_configs: u32,
    /// Entries written to the macro tile array.
    pub num_macro_tile_configs: u32,
    /// `GB_ADDR_CONFIG`.
    pub gb_addr_config: u32,
    /// Number of banks.
    pub num_banks: u32,
    /// Number of ranks.
    pub num_ranks: u32,
}

/// A buffer allocated by `AMDKFD_IOC_ALLOC_MEMORY_OF_GPU` or imported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allocation {
    /// The buffer handle.
    pub handle: u64,
    /// mmap offset on the GPU's DRM render node.
    pub mmap_offset: u64,
}

/// Wave state of a suspended queue (`AMDKFD_IOC_GET_QUEUE_WAVE_STATE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaveState {
    /// Bytes of control stack copied.
    pub ctl_stack_used_size: u32,
    /// Bytes of the save area in use.
    pub save_area_used_size: u32,
}

/// What `AMDKFD_IOC_GET_DMABUF_INFO` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DmabufInfo {
    /// Size in bytes.
    pub size: u64,
    /// The owning GPU.
    pub gpu_id: u32,
    /// Allocation flags (bits unknown to this crate kept).
    pub flags: AllocMemFlags,
    /// Size of the metadata (may exceed the buffer given).
    pub metadata_size: u32,
}

/// What `KFD_CRIU_OP_PROCESS_INFO` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CriuProcessInfo {
    /// GPUs the process uses.
    pub num_devices: u32,
    /// Buffer objects.
    pub num_bos: u32,
    /// Opaque objects (queues, events, SVM ranges).
    pub num_objects: u32,
    /// Bytes of private data.
    pub priv_data_size: u64,
    /// The process.
    pub pid: u32,
}

/// What `KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaveLaunchOverride {
    /// The overrides enabled before the call.
    pub previous: DbgTrapMask,
    /// The overrides the hardware supports.
    pub supported: DbgTrapMask,
}

/// A raised exception found by `KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DebugEvent {
    /// Raised exceptions (`KFD_EC_MASK` bits).
    pub exception_mask: u64,
    /// Source GPU.
    pub gpu_id: u32,
    /// Source queue.
    pub queue_id: u32,
}

/// Converts a slice length to the driver's `u32` count.
fn count(ioctl: &'static str, what: &'static str, len: usize) -> Result<u32> {
    u32::try_from(len).map_err(|_| Error::TooLong { ioctl, what, len })
}

/// The user address of a slice, as the driver's `u64` fields carry it.
fn addr<T>(slice: &[T]) -> u64 {
    slice.as_ptr() as usize as u64
}

/// Argument structs with no user address the driver dereferences: passing a
/// valid `&mut` of one is all an ioctl call needs to be sound.
trait PlainArgs: 'static {}
impl PlainArgs for raw::GetVersionArgs {}
impl PlainArgs for raw::DestroyQueueArgs {}
impl PlainArgs for raw::SetMemoryPolicyArgs {}
impl PlainArgs for raw::GetClockCountersArgs {}
impl PlainArgs for raw::GetProcessAperturesArgs {}
impl PlainArgs for raw::CreateEventArgs {}
impl PlainArgs for raw::DestroyEventArgs {}
impl PlainArgs for raw::SetEventArgs {}
impl PlainArgs for raw::ResetEventArgs {}
impl PlainArgs for raw::SetScratchBackingVaArgs {}
impl PlainArgs for raw::SetTrapHandlerArgs {}
impl PlainArgs for raw::AcquireVmArgs {}
impl PlainArgs for raw::FreeMemoryOfGpuArgs {}
impl PlainArgs for raw::AllocQueueGwsArgs {}
impl PlainArgs for raw::ImportDmabufArgs {}
impl PlainArgs for raw::SmiEventsArgs {}
impl PlainArgs for raw::SetXnackModeArgs {}
impl PlainArgs for raw::GetAvailableMemoryArgs {}
impl PlainArgs for raw::ExportDmabufArgs {}
impl PlainArgs for raw::RuntimeEnableArgs {}

impl Kfd<RealDevice> {
    /// Opens `/dev/kfd` read-write with close-on-exec and checks the
    /// driver's interface version.
    ///
    /// Fails with [`Error::NoDevice`] when there is no driver or GPU and
    /// [`Error::PermissionDenied`] when the user is not in the `render` and
    /// `video` groups.
    pub fn open() -> Result<Self> {
        Self::open_path(KFD_DEVICE_PATH)
    }

    /// [`open`](Self::open) for a KFD device node at another path (a
    /// container's bind mount, or a test's path that does not exist). The
    /// errors are `open`'s, classified the same way; their messages name
    /// `/dev/kfd`, the node `path` stands for.
    pub fn open_path(path: impl AsRef<std::path::Path>) -> Result<Self> {
        let fd = rustix::fs::open(path.as_ref(), OFlags::RDWR | OFlags::CLOEXEC, Mode::empty())
            .map_err(Error::from_open_errno)?;
        Self::from_fd(fd)
    }

    /// Takes an open `/dev/kfd` descriptor and checks the interface version.
    pub fn from_fd(fd: OwnedFd) -> Result<Self> {
        Self::with_device(RealDevice::new(fd))
    }

    /// Takes a descriptor **without** asking the driver its version: the
    /// handle assumes the version this crate mirrors
    /// ([`KfdVersion::MIRRORED`]), so no feature check will stop a call the
    /// driver may not know (it then fails with `EINVAL` or `ENOTTY`). Meant
    /// for tests and for callers that checked the version themselves.
    pub fn from_fd_unchecked(fd: OwnedFd) -> Self {
        Self::with_device_unchecked(RealDevice::new(fd), KfdVersion::MIRRORED)
    }
}

impl<D: KfdDevice> Kfd<D> {
    /// A handle over any device; asks its interface version and refuses a
    /// major version other than 1.
    pub fn with_device(device: D) -> Result<Self> {
        let mut kfd = Self::with_device_unchecked(device, KfdVersion::MIRRORED);
        let version = kfd.get_version()?;
        if version.major != KfdVersion::MIRRORED.major {
            return Err(Error::UnsupportedDriver { driver: version });
        }
        kfd.version = version;
        Ok(kfd)
    }

    /// A handle over any device that trusts `version` without asking.
    pub fn with_device_unchecked(device: D, version: KfdVersion) -> Self {
        Self {
            device: Arc::new(device),
            version,
        }
    }

    /// The driver's interface version (as checked at open).
    pub fn version(&self) -> KfdVersion {
        self.version
    }

    /// Whether the driver speaks at least `needed`.
    pub fn supports(&self, needed: KfdVersion) -> bool {
        self.version.at_least(needed)
    }

    /// The device behind the handle.
    pub fn device(&self) -> &D {
        &self.device
    }

    fn require(&self, feature: &'static str, needs: KfdVersion) -> Result<()> {
        if self.supports(needs) {
            Ok(())
        } else {
            Err(Error::NeedsVersion {
                feature,
                needs,
                driver: self.version,
            })
        }
    }

    /// Issues one ioctl through the device, retrying `EINTR`.
    ///
    /// # Safety
    ///
    /// As [`KfdDevice::ioctl`].
    #[inline]
    unsafe fn call_raw<T: 'static>(
        &self,
        ioctl: &Ioctl<T>,
        op: Option<&'static str>,
        arg: *mut T,
    ) -> Result<c_int> {
        self.require(ioctl.name(), ioctl.since())?;
        loop {
            // SAFETY: forwarded to our caller.
            match unsafe { self.device.ioctl(ioctl, arg) } {
                Ok(r) => return Ok(r),
                Err(Errno::INTR) => continue,
                Err(errno) => {
                    return Err(Error::Ioctl {
                        ioctl: ioctl.name(),
                        op,
                        errno,
                    });
                }
            }
        }
    }

    /// Issues any bound ioctl with a caller-built argument struct: the
    /// version check, `EINTR` retry and error naming of the wrappers, without
    /// their argument checks. For what the wrappers do not cover (for
    /// example a `raw` struct filled field by field).
    ///
    /// # Safety
    ///
    /// Every user address in `arg`, with its count, describes memory valid
    /// for the accesses the ioctl makes (see the header comment of the
    /// argument struct), and the addresses it gives the GPU stay valid for
    /// as long as the GPU may use them. For `AMDKFD_IOC_SVM` use
    /// [`svm_set_attr`](Self::svm_set_attr) / [`svm_get_attr`](Self::svm_get_attr):
    /// its attributes follow the struct.
    pub unsafe fn raw_ioctl<T: 'static>(&self, ioctl: &Ioctl<T>, arg: &mut T) -> Result<c_int> {
        // SAFETY: forwarded to our caller; `arg` is a valid exclusive reference.
        unsafe { self.call_raw(ioctl, None, arg) }
    }

    #[inline]
    fn call<T: PlainArgs>(&self, ioctl: &Ioctl<T>, arg: &mut T) -> Result<c_int> {
        // SAFETY: `arg` is a valid exclusive reference and `T: PlainArgs`
        // carries no user address for the driver to follow.
        unsafe { self.call_raw(ioctl, None, arg) }
    }

    /// Asks the driver its interface version.
    #[doc(alias = "AMDKFD_IOC_GET_VERSION")]
    pub fn get_version(&self) -> Result<KfdVersion> {
        let mut a = raw::GetVersionArgs::default();
        self.call(&AMDKFD_IOC_GET_VERSION, &mut a)?;
        Ok(KfdVersion::new(a.major_version, a.minor_version))
    }

    /// Creates a user-mode queue.
    ///
    /// # Safety
    ///
    /// The packet processor reads the ring and the write pointer and writes
    /// the read pointer, the EOP buffer and the context save area at the
    /// addresses in `desc`, on its own, from now until the queue is
    /// destroyed: they must be GPU-accessible memory of the right sizes that
    /// the caller keeps alive and does not use for anything else meanwhile.
    #[doc(alias = "AMDKFD_IOC_CREATE_QUEUE")]
    pub unsafe fn create_queue(&self, desc: &QueueDesc) -> Result<QueueInfo> {
        let name = AMDKFD_IOC_CREATE_QUEUE.name();
        if desc.ring_size != 0 && !desc.ring_size.is_power_of_two() {
            return Err(Error::InvalidArgument {
                ioctl: name,
                what: "ring_size is not a power of two",
            });
        }
        if desc.queue_type == QueueType::SdmaByEngId {
            self.require("KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID", desc.queue_type.since())?;
        }
        let mut a = raw::CreateQueueArgs {
            ring_base_address: desc.ring_base_address,
            write_pointer_address: desc.write_pointer_address,
            read_pointer_address: desc.read_pointer_address,
            ring_size: desc.ring_size,
            gpu_id: desc.gpu_id,
            queue_type: desc.queue_type.into(),
            queue_percentage: desc.percentage.get(),
            queue_priority: desc.priority.get(),
            eop_buffer_address: desc.eop_buffer_address,
            eop_buffer_size: desc.eop_buffer_size,
            ctx_save_restore_address: desc.ctx_save_restore_address,
            ctx_save_restore_size: desc.ctx_save_restore_size,
            ctl_stack_size: desc.ctl_stack_size,
            sdma_engine_id: desc.sdma_engine_id,
            ..Default::default()
        };
        // SAFETY: `a` is valid; the addresses in it are the caller's promise.
        unsafe { self.call_raw(&AMDKFD_IOC_CREATE_QUEUE, None, &mut a) }?;
        Ok(QueueInfo {
            queue_id: a.queue_id,
            doorbell_offset: a.doorbell_offset,
            write_pointer_address: a.write_pointer_address,
            read_pointer_address: a.read_pointer_address,
        })
    }

    /// Destroys a queue.
    #[doc(alias = "AMDKFD_IOC_DESTROY_QUEUE")]
    pub fn destroy_queue(&self, queue_id: u32) -> Result<()> {
        let mut a = raw::DestroyQueueArgs { queue_id, pad: 0 };
        self.call(&AMDKFD_IOC_DESTROY_QUEUE, &mut a).map(drop)
    }

    /// Sets the cache policy of the default and alternate apertures and,
    /// from 1.18, the per-process flags.
    #[doc(alias = "AMDKFD_IOC_SET_MEMORY_POLICY")]
    pub fn set_memory_policy(
        &self,
        gpu_id: u32,
        default_policy: CachePolicy,
        alternate_policy: CachePolicy,
        alternate_aperture_base: u64,
        alternate_aperture_size: u64,
        flags: ProcessFlags,
    ) -> Result<()> {
        if !flags.is_empty() {
            self.require(
                "misc_process_flag of AMDKFD_IOC_SET_MEMORY_POLICY",
                KfdVersion::new(1, 18),
            )?;
        }
        let mut a = raw::SetMemoryPolicyArgs {
            alternate_aperture_base,
            alternate_aperture_size,
            gpu_id,
            default_policy: default_policy.into(),
            alternate_policy: alternate_policy.into(),
            misc_process_flag: flags.bits(),
        };
        self.call(&AMDKFD_IOC_SET_MEMORY_POLICY, &mut a).map(drop)
    }

    /// Reads the GPU and CPU clock counters together.
    #[doc(alias = "AMDKFD_IOC_GET_CLOCK_COUNTERS")]
    pub fn get_clock_counters(&self, gpu_id: u32) -> Result<ClockCounters> {
        let mut a = raw::GetClockCountersArgs {
            gpu_id,
            ..Default::default()
        };
        self.call(&AMDKFD_IOC_GET_CLOCK_COUNTERS, &mut a)?;
        Ok(ClockCounters {
            gpu_clock_counter: a.gpu_clock_counter,
            cpu_clock_counter: a.cpu_clock_counter,
            system_clock_counter: a.system_clock_counter,
            system_clock_freq: a.system_clock_freq,
        })
    }

    /// The apertures of up to `NUM_OF_SUPPORTED_GPUS` GPUs (the deprecated
    /// form; prefer [`process_apertures`](Self::process_apertures)).
    #[doc(alias = "AMDKFD_IOC_GET_PROCESS_APERTURES")]
    pub fn get_process_apertures(&self) -> Result<Vec<raw::ProcessDeviceApertures>> {
        let mut a = raw::GetProcessAperturesArgs::default();
        self.call(&AMDKFD_IOC_GET_PROCESS_APERTURES, &mut a)?;
        let n = usize::try_from(a.num_of_nodes).unwrap_or(usize::MAX);
        match a.process_apertures.get(..n) {
            Some(list) => Ok(list.to_vec()),
            None => Err(Error::BadReply {
                ioctl: AMDKFD_IOC_GET_PROCESS_APERTURES.name(),
                what: "num_of_nodes",
                value: u64::from(a.num_of_nodes),
            }),
        }
    }

    /// Changes a queue's ring, percentage and priority.
    ///
    /// # Safety
    ///
    /// As for [`create_queue`](Self::create_queue), for the new ring.
    #[doc(alias = "AMDKFD_IOC_UPDATE_QUEUE")]
    pub unsafe fn update_queue(
        &self,
        queue_id: u32,
        ring_base_address: u64,
        ring_size: u32,
        percentage: QueuePercentage,
        priority: QueuePriority,
    ) -> Result<()> {
        if ring_size != 0 && !ring_size.is_power_of_two() {
            return Err(Error::InvalidArgument {
                ioctl: AMDKFD_IOC_UPDATE_QUEUE.name(),
                what: "ring_size is not a power of two",
            });
        }
        let mut a = raw::UpdateQueueArgs {
            ring_base_address,
            queue_id,
            ring_size,
            queue_percentage: percentage.get(),
            queue_priority: priority.get(),
        };
        // SAFETY: `a` is valid; the ring is the caller's promise.
        unsafe { self.call_raw(&AMDKFD_IOC_UPDATE_QUEUE, None, &mut a) }.map(drop)
    }

    /// Creates an event.
    #[doc(alias = "AMDKFD_IOC_CREATE_EVENT")]
    pub fn create_event(&self, desc: &EventDesc) -> Result<EventInfo> {
        let mut a = raw::CreateEventArgs {
            event_page_offset: desc.event_page_handle.unwrap_or(0),
            event_type: desc.event_type.into(),
            auto_reset: u32::from(desc.auto_reset),
            node_id: desc.node_id,
            ..Default::default()
        };
        self.call(&AMDKFD_IOC_CREATE_EVENT, &mut a)?;
        Ok(EventInfo {
            event_id: a.event_id,
            event_trigger_data: a.event_trigger_data,
            event_page_offset: a.event_page_offset,
            event_slot_index: a.event_slot_index,
        })
    }

    /// Destroys an event.
    #[doc(alias = "AMDKFD_IOC_DESTROY_EVENT")]
    pub fn destroy_event(&self, event_id: u32) -> Result<()> {
        let mut a = raw::DestroyEventArgs { event_id, pad: 0 };
        self.call(&AMDKFD_IOC_DESTROY_EVENT, &mut a).map(drop)
    }

    /// Signals an event.
    #[doc(alias = "AMDKFD_IOC_SET_EVENT")]
    pub fn set_event(&self, event_id: u32) -> Result<()> {
        let mut a = raw::SetEventArgs { event_id, pad: 0 };
        self.call(&AMDKFD_IOC_SET_EVENT, &mut a).map(drop)
    }

    /// Resets an event.
    #[doc(alias = "AMDKFD_IOC_RESET_EVENT")]
    pub fn reset_event(&self, event_id: u32) -> Result<()> {
        let mut a = raw::ResetEventArgs { event_id, pad: 0 };
        self.call(&AMDKFD_IOC_RESET_EVENT, &mut a).map(drop)
    }

    /// Waits for any (or all) of `events` for up to `timeout_ms`
    /// milliseconds (`u32::MAX`: forever). The driver fills each entry's
    /// payload (exception data; the last signal age since 1.14).
    #[doc(alias = "AMDKFD_IOC_WAIT_EVENTS")]
    pub fn wait_events(
        &self,
        events: &mut [raw::EventData],
        wait_for_all: bool,
        timeout_ms: u32,
    ) -> Result<WaitResult> {
        let name = AMDKFD_IOC_WAIT_EVENTS.name();
        if events.is_empty() {
            return Err(Error::InvalidArgument {
                ioctl: name,
                what: "the event list is empty",
            });
        }
        let mut a = raw::WaitEventsArgs {
            events_ptr: addr(events),
            num_events: count(name, "events_ptr", events.len())?,
            wait_for_all: u32::from(wait_for_all),
            timeout: timeout_ms,
            wait_result: 0,
        };
        // SAFETY: `events_ptr`/`num_events` describe `events`, an exclusive
        // slice the driver reads and writes during the call.
        unsafe { self.call_raw(&AMDKFD_IOC_WAIT_EVENTS, None, &mut a) }?;
        WaitResult::try_from(a.wait_result).map_err(|e| Error::BadReply {
            ioctl: name,
            what: "wait_result",
            value: e.value,
        })
    }

    /// Sets the scratch backing address of a GPU (GFX8 and older; newer
    /// GPUs ignore it). The GPU uses it only for shaders run on this
    /// process's queues.
    #[doc(alias = "AMDKFD_IOC_SET_SCRATCH_BACKING_VA")]
    pub fn set_scratch_backing_va(&self, gpu_id: u32, va_addr: u64) -> Result<()> {
        let mut a = raw::SetScratchBackingVaArgs {
            va_addr,
            gpu_id,
            pad: 0,
        };
        self.call(&AMDKFD_IOC_SET_SCRATCH_BACKING_VA, &mut a)
            .map(drop)
    }

    /// Reads the tile configuration into the two arrays.
    #[doc(alias = "AMDKFD_IOC_GET_TILE_CONFIG")]
    pub fn get_tile_config(
        &self,
        gpu_id: u32,
        tile_config: &mut [u32],
        macro_tile_config: &mut [u32],
    ) -> Result<TileConfig> {
        let name = AMDKFD_IOC_GET_TILE_CONFIG.name();
        let mut a = raw::GetTileConfigArgs {
            tile_config_ptr: addr(tile_config),
            macro_tile_config_ptr: addr(macro_tile_config),
            num_tile_configs: count(name, "tile_config_ptr", tile_config.len())?,
            num_macro_tile_configs: count(name, "macro_tile_config_ptr", macro_tile_config.len())?,
            gpu_id,
            ..Default::default()
        };
        // SAFETY: both pointer/count pairs describe exclusive slices.
        unsafe { self.call_raw(&AMDKFD_IOC_GET_TILE_CONFIG, None, &mut a) }?;
        for (what, n, len) in [
            ("num_tile_configs", a.num_tile_configs, tile_config.len()),
            (
                "num_macro_tile_configs",
                a.num_macro_tile_configs,
                macro_tile_config.len(),
            ),
        ] {
            if usize::try_from(n).map_or(true, |n| n > len) {
                return Err(Error::BadReply {
                    ioctl: name,
                    what,
                    value: u64::from(n),
                });
            }
        }
        Ok(TileConfig {
            num_tile_configs: a.num_tile_configs,
            num_macro_tile_configs: a.num_macro_tile_configs,
            gb_addr_config: a.gb_addr_config,
            num_banks: a.num_banks,
            num_ranks: a.num_ranks,
        })
    }

    /// Installs a trap handler (trap base and trap memory addresses) for the
    /// process's waves on a GPU.
    #[doc(alias = "AMDKFD_IOC_SET_TRAP_HANDLER")]
    pub fn set_trap_handler(&self, gpu_id: u32, tba_addr: u64, tma_addr: u64) -> Result<()> {
        let mut a = raw::SetTrapHandlerArgs {
            tba_addr,
            tma_addr,
            gpu_id,
            pad: 0,
        };
        self.call(&AMDKFD_IOC_SET_TRAP_HANDLER, &mut a).map(drop)
    }

    /// Fills `apertures` with the process's apertures, one per GPU, and
    /// returns how many the driver wrote. With an empty slice, returns how
    /// many GPUs there are.
    #[doc(alias = "AMDKFD_IOC_GET_PROCESS_APERTURES_NEW")]
    pub fn get_process_apertures_new(
        &self,
        apertures: &mut [raw::ProcessDeviceApertures],
    ) -> Result<usize> {
        let name = AMDKFD_IOC_GET_PROCESS_APERTURES_NEW.name();
        let mut a = raw::GetProcessAperturesNewArgs {
            kfd_process_device_apertures_ptr: addr(apertures),
            num_of_nodes: count(name, "kfd_process_device_apertures_ptr", apertures.len())?,
            pad: 0,
        };
        // SAFETY: pointer and count describe the exclusive slice.
        unsafe { self.call_raw(&AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, None, &mut a) }?;
        let n = usize::try_from(a.num_of_nodes).unwrap_or(usize::MAX);
        if !apertures.is_empty() && n > apertures.len() {
            return Err(Error::BadReply {
                ioctl: name,
                what: "num_of_nodes",
                value: u64::from(a.num_of_nodes),
            });
        }
        Ok(n)
    }

    /// The apertures of every GPU of the process.
    #[doc(alias = "AMDKFD_IOC_GET_PROCESS_APERTURES_NEW")]
    pub fn process_apertures(&self) -> Result<Vec<raw::ProcessDeviceApertures>> {
        // A machine has at most a few dozen GPUs; refuse a count that would
        // make us allocate without bound.
        const MAX_NODES: usize = 1024;
        let n = self.get_process_apertures_new(&mut [])?;
        if n > MAX_NODES {
            return Err(Error::BadReply {
                ioctl: AMDKFD_IOC_GET_PROCESS_APERTURES_NEW.name(),
                what: "num_of_nodes",
                value: n as u64,
            });
        }
        if n == 0 {
            return Ok(Vec::new());
        }
        let mut list = vec![raw::ProcessDeviceApertures::default(); n];
        let filled = self.get_process_apertures_new(&mut list)?;
        list.truncate(filled);
        Ok(list)
    }

    /// Makes the GPU VM of a DRM render-node fd this process's VM on `gpu_id`.
    #[doc(alias = "AMDKFD_IOC_ACQUIRE_VM")]
    pub fn acquire_vm(&self, drm_fd: BorrowedFd<'_>, gpu_id: u32) -> Result<()> {
        let mut a = raw::AcquireVmArgs {
            drm_fd: fd_u32(drm_fd),
            gpu_id,
        };
        self.call(&AMDKFD_IOC_ACQUIRE_VM, &mut a).map(drop)
    }

    /// Allocates device memory (VRAM, GTT, doorbell or MMIO-remap) at GPU
    /// virtual address `va_addr`. User-pointer allocations go through
    /// [`alloc_userptr_memory_of_gpu`](Self::alloc_userptr_memory_of_gpu).
    #[doc(alias = "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU")]
    pub fn alloc_memory_of_gpu(
        &self,
        gpu_id: u32,
        va_addr: u64,
        size: u64,
        flags: AllocMemFlags,
    ) -> Result<Allocation> {
        if flags.contains(AllocMemFlags::USERPTR) {
            return Err(Error::InvalidArgument {
                ioctl: AMDKFD_IOC_ALLOC_MEMORY_OF_GPU.name(),
                what: "USERPTR allocations need alloc_userptr_memory_of_gpu",
            });
        }
        // SAFETY: without USERPTR the struct carries no CPU address for the
        // driver to follow.
        unsafe { self.alloc_raw(gpu_id, va_addr, size, 0, flags) }
    }

    /// Lets the GPU access `size` bytes of this process's memory at `cpu`
    /// through GPU virtual address `va_addr` (`KFD_IOC_ALLOC_MEM_FLAGS_USERPTR`).
    ///
    /// # Safety
    ///
    /// `cpu..cpu + size` is memory of this process that stays mapped, and
    /// that the caller lets the GPU read and write, until the allocation
    /// is freed.
    #[doc(alias = "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU")]
    pub unsafe fn alloc_userptr_memory_of_gpu(
        &self,
        gpu_id: u32,
        va_addr: u64,
        cpu: NonNull<u8>,
        size: u64,
        flags: AllocMemFlags,
    ) -> Result<Allocation> {
        let cpu = cpu.as_ptr() as usize as u64;
        // SAFETY: the caller vouches for the user range.
        unsafe { self.alloc_raw(gpu_id, va_addr, size, cpu, flags | AllocMemFlags::USERPTR) }
    }

    /// # Safety
    ///
    /// With USERPTR, `mmap_offset..+size` is a user range as above.
    unsafe fn alloc_raw(
        &self,
        gpu_id: u32,
        va_addr: u64,
        size: u64,
        mmap_offset: u64,
        flags: AllocMemFlags,
    ) -> Result<Allocation> {
        if flags.contains(AllocMemFlags::CONTIGUOUS) {
            self.require("KFD_IOC_ALLOC_MEM_FLAGS_CONTIGUOUS", KfdVersion::new(1, 16))?;
        }
        let mut a = raw::AllocMemoryOfGpuArgs {
            va_addr,
            size,
            handle: 0,
            mmap_offset,
            gpu_id,
            flags: flags.bits(),
        };
        // SAFETY: `a` is valid; a user range is the caller's promise.
        unsafe { self.call_raw(&AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, None, &mut a) }?;
        Ok(Allocation {
            handle: a.handle,
            mmap_offset: a.mmap_offset,
        })
    }

    /// Frees a buffer.
    #[doc(alias = "AMDKFD_IOC_FREE_MEMORY_OF_GPU")]
    pub fn free_memory_of_gpu(&self, handle: u64) -> Result<()> {
        let mut a = raw::FreeMemoryOfGpuArgs { handle };
        self.call(&AMDKFD_IOC_FREE_MEMORY_OF_GPU, &mut a).map(drop)
    }

    /// Maps a buffer into the GPU VMs of `gpu_ids`.
    #[doc(alias = "AMDKFD_IOC_MAP_MEMORY_TO_GPU")]
    pub fn map_memory_to_gpu(&self, handle: u64, gpu_ids: &[u32]) -> Result<()> {
        let name = AMDKFD_IOC_MAP_MEMORY_TO_GPU.name();
        let mut a = raw::MapMemoryToGpuArgs {
            handle,
            device_ids_array_ptr: addr(gpu_ids),
            n_devices: count(name, "device_ids_array_ptr", gpu_ids.len())?,
            n_success: 0,
        };
        // SAFETY: pointer and count describe `gpu_ids`, which the driver only reads.
        unsafe { self.call_raw(&AMDKFD_IOC_MAP_MEMORY_TO_GPU, None, &mut a) }.map(drop)
    }

    /// Unmaps a buffer from the GPU VMs of `gpu_ids`.
    #[doc(alias = "AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU")]
    pub fn unmap_memory_from_gpu(&self, handle: u64, gpu_ids: &[u32]) -> Result<()> {
        let name = AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU.name();
        let mut a = raw::UnmapMemoryFromGpuArgs {
            handle,
            device_ids_array_ptr: addr(gpu_ids),
            n_devices: count(name, "device_ids_array_ptr", gpu_ids.len())?,
            n_success: 0,
        };
        // SAFETY: pointer and count describe `gpu_ids`, which the driver only reads.
        unsafe { self.call_raw(&AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, None, &mut a) }.map(drop)
    }

    /// Restricts a queue to the compute units whose bits are set in `mask`
    /// (32 CUs per word).
    #[doc(alias = "AMDKFD_IOC_SET_CU_MASK")]
    pub fn set_cu_mask(&self, queue_id: u32, mask: &[u32]) -> Result<()> {
        let name = AMDKFD_IOC_SET_CU_MASK.name();
        if mask.is_empty() {
            return Err(Error::InvalidArgument {
                ioctl: name,
                what: "the CU mask is empty",
            });
        }
        let bits = count(name, "cu_mask_ptr", mask.len())?
            .checked_mul(32)
            .ok_or(Error::TooLong {
                ioctl: name,
                what: "cu_mask_ptr",
                len: mask.len(),
            })?;
        let mut a = raw::SetCuMaskArgs {
            queue_id,
            num_cu_mask: bits,
            cu_mask_ptr: addr(mask),
        };
        // SAFETY: `num_cu_mask / 32` words at `cu_mask_ptr` are `mask`, read only.
        unsafe { self.call_raw(&AMDKFD_IOC_SET_CU_MASK, None, &mut a) }.map(drop)
    }

    /// Copies a suspended queue's control stack into `ctl_stack`.
    ///
    /// # Safety
    ///
    /// `ctl_stack` is at least as long as the `ctl_stack_size` the queue was
    /// created with: the driver copies up to that many bytes.
    #[doc(alias = "AMDKFD_IOC_GET_QUEUE_WAVE_STATE")]
    pub unsafe fn get_queue_wave_state(
        &self,
        queue_id: u32,
        ctl_stack: &mut [u8],
    ) -> Result<WaveState> {
        let mut a = raw::GetQueueWaveStateArgs {
            ctl_stack_address: addr(ctl_stack),
            queue_id,
            ..Default::default()
        };
        // SAFETY: the caller guarantees the buffer covers the queue's control stack.
        unsafe { self.call_raw(&AMDKFD_IOC_GET_QUEUE_WAVE_STATE, None, &mut a) }?;
        Ok(WaveState {
            ctl_stack_used_size: a.ctl_stack_used_size,
            save_area_used_size: a.save_area_used_size,
        })
    }

    /// Describes a dmabuf and copies its metadata into `metadata`.
    #[doc(alias = "AMDKFD_IOC_GET_DMABUF_INFO")]
    pub fn get_dmabuf_info(
        &self,
        dmabuf: BorrowedFd<'_>,
        metadata: &mut [u8],
    ) -> Result<DmabufInfo> {
        let name = AMDKFD_IOC_GET_DMABUF_INFO.name();
        let mut a = raw::GetDmabufInfoArgs {
            metadata_ptr: if metadata.is_empty() {
                0
            } else {
                addr(metadata)
            },
            metadata_size: count(name, "metadata_ptr", metadata.len())?,
            dmabuf_fd: fd_u32(dmabuf),
            ..Default::default()
        };
        // SAFETY: pointer and size describe `metadata`, exclusively borrowed.
        unsafe { self.call_raw(&AMDKFD_IOC_GET_DMABUF_INFO, None, &mut a) }?;
        Ok(DmabufInfo {
            size: a.size,
            gpu_id: a.gpu_id,
            flags: AllocMemFlags::from_bits_retain(a.flags),
            metadata_size: a.metadata_size,
        })
    }

    /// Imports a dmabuf at GPU virtual address `va_addr` of `gpu_id`.
    #[doc(alias = "AMDKFD_IOC_IMPORT_DMABUF")]
    pub fn import_dmabuf(&self, dmabuf: BorrowedFd<'_>, gpu_id: u32, va_addr: u64) -> Result<u64> {
        let mut a = raw::ImportDmabufArgs {
            va_addr,
            handle: 0,
            gpu_id,
            dmabuf_fd: fd_u32(dmabuf),
        };
        self.call(&AMDKFD_IOC_IMPORT_DMABUF, &mut a)?;
        Ok(a.handle)
    }

    /// Gives a queue `num_gws` global wave sync entries; returns the first.
    #[doc(alias = "AMDKFD_IOC_ALLOC_QUEUE_GWS")]
    pub fn alloc_queue_gws(&self, queue_id: u32, num_gws: u32) -> Result<u32> {
        let mut a = raw::AllocQueueGwsArgs {
            queue_id,
            num_gws,
            ..Default::default()
        };
        self.call(&AMDKFD_IOC_ALLOC_QUEUE_GWS, &mut a)?;
        Ok(a.first_gws)
    }

    /// Opens the system-management event stream of a GPU (1.3): write a
    /// mask of [`SmiEvent::mask`] bits to the fd, then read event lines.
    #[doc(alias = "AMDKFD_IOC_SMI_EVENTS")]
    pub fn smi_events(&self, gpu_id: u32) -> Result<OwnedFd> {
        let mut a = raw::SmiEventsArgs {
            gpuid: gpu_id,
            anon_fd: KFD_INVALID_FD,
        };
        self.call(&AMDKFD_IOC_SMI_EVENTS, &mut a)?;
        self.adopt_fd(AMDKFD_IOC_SMI_EVENTS.name(), "anon_fd", a.anon_fd)
    }

    /// Takes ownership of a descriptor the driver just created for us.
    fn adopt_fd(&self, ioctl: &'static str, what: &'static str, fd: u32) -> Result<OwnedFd> {
        match i32::try_from(fd) {
            // SAFETY: on success the ioctl installed a new descriptor in our
            // table (a `KfdDevice` must do the same) that nothing else owns.
            Ok(raw_fd) if raw_fd >= 0 => Ok(unsafe { OwnedFd::from_raw_fd(raw_fd) }),
            _ => Err(Error::BadReply {
                ioctl,
                what,
                value: u64::from(fd),
            }),
        }
    }

    /// Sets attributes of the shared-virtual-memory range `start..start + size` (1.5).
    #[doc(alias = "AMDKFD_IOC_SVM")]
    #[doc(alias = "KFD_IOCTL_SVM_OP_SET_ATTR")]
    pub fn svm_set_attr(&self, start: u64, size: u64, attrs: &[raw::SvmAttribute]) -> Result<()> {
        let mut copy = attrs.to_vec();
        self.svm(
            KFD_IOCTL_SVM_OP_SET_ATTR,
            "KFD_IOCTL_SVM_OP_SET_ATTR",
            start,
            size,
            &mut copy,
        )
    }

    /// Queries attributes of the range; the driver overwrites each pair (1.5;
    /// `ClrFlags` queries need 1.6).
    #[doc(alias = "AMDKFD_IOC_SVM")]
    #[doc(alias = "KFD_IOCTL_SVM_OP_GET_ATTR")]
    pub fn svm_get_attr(
        &self,
        start: u64,
        size: u64,
        attrs: &mut [raw::SvmAttribute],
    ) -> Result<()> {
        self.svm(
            KFD_IOCTL_SVM_OP_GET_ATTR,
            "KFD_IOCTL_SVM_OP_GET_ATTR",
            start,
            size,
            attrs,
        )
    }

    fn svm(
        &self,
        op: u32,
        op_name: &'static str,
        start: u64,
        size: u64,
        attrs: &mut [raw::SvmAttribute],
    ) -> Result<()> {
        const HEADER_WORDS: usize = core::mem::size_of::<raw::SvmArgs>() / 8;
        const _: () = assert!(core::mem::size_of::<raw::SvmArgs>() % 8 == 0);
        const _: () = assert!(core::mem::align_of::<raw::SvmArgs>() <= 8);
        let name = AMDKFD_IOC_SVM.name();
        let nattr = count(name, "nattr", attrs.len())?;
        // The header and the attribute array must be one allocation: the
        // driver reads `nattr` pairs right after the header. `u64` words
        // give the header its alignment; the length is the caller's slice.
        // One `u64` word per 8-byte attribute pair.
        const _: () = assert!(core::mem::size_of::<raw::SvmAttribute>() == 8);
        let words = attrs
            .len()
            .checked_add(HEADER_WORDS)
            .ok_or(Error::TooLong {
                ioctl: name,
                what: "nattr",
                len: attrs.len(),
            })?;
        let mut buf = vec![0u64; words];
        let header = buf.as_mut_ptr().cast::<raw::SvmArgs>();
        // SAFETY: `buf` holds `HEADER_WORDS` words (the header's size, at
        // 8-byte alignment) followed by room for `attrs.len()` pairs.
        let pairs = unsafe { header.add(1) }.cast::<raw::SvmAttribute>();
        // SAFETY: the header fits at the start of `buf`, 8-byte aligned.
        unsafe {
            header.write(raw::SvmArgs {
                start_addr: start,
                size,
                op,
                nattr,
            })
        };
        // SAFETY: `attrs.len()` pairs fit after the header inside `buf`; the
        // caller's slice does not overlap our fresh buffer.
        unsafe { core::ptr::copy_nonoverlapping(attrs.as_ptr(), pairs, attrs.len()) };
        // SAFETY: `header` is followed by `nattr` pairs in the same allocation.
        unsafe { self.call_raw(&AMDKFD_IOC_SVM, Some(op_name), header) }?;
        // SAFETY: the same pairs, read back into the caller's slice.
        unsafe { core::ptr::copy_nonoverlapping(pairs, attrs.as_mut_ptr(), attrs.len()) };
        Ok(())
    }

    /// Sets the process's XNACK mode (1.5); only allowed while it has no queues.
    #[doc(alias = "AMDKFD_IOC_SET_XNACK_MODE")]
    pub fn set_xnack_mode(&self, mode: XnackMode) -> Result<()> {
        let xnack_enabled = match mode {
            XnackMode::Disabled => 0,
            XnackMode::Enabled => 1,
        };
        let mut a = raw::SetXnackModeArgs { xnack_enabled };
        self.call(&AMDKFD_IOC_SET_XNACK_MODE, &mut a).map(drop)
    }

    /// The process's XNACK mode (1.5), queried without changing it.
    #[doc(alias = "AMDKFD_IOC_SET_XNACK_MODE")]
    pub fn xnack_mode(&self) -> Result<XnackMode> {
        let mut a = raw::SetXnackModeArgs { xnack_enabled: -1 };
        self.call(&AMDKFD_IOC_SET_XNACK_MODE, &mut a)?;
        match a.xnack_enabled {
            0 => Ok(XnackMode::Disabled),
            v if v > 0 => Ok(XnackMode::Enabled),
            v => Err(Error::BadReply {
                ioctl: AMDKFD_IOC_SET_XNACK_MODE.name(),
                what: "xnack_enabled",
                value: u64::from(v.unsigned_abs()),
            }),
        }
    }

    /// # Safety
    ///
    /// The addresses in `a` describe memory valid for the operation.
    unsafe fn criu(&self, op: CriuOp, op_name: &'static str, a: &mut raw::CriuArgs) -> Result<()> {
        a.op = op.into();
        // SAFETY: forwarded to our caller.
        unsafe { self.call_raw(&AMDKFD_IOC_CRIU_OP, Some(op_name), a) }.map(drop)
    }

    /// CRIU step 1 (1.7): pauses the process's queues and reports what a
    /// checkpoint needs.
    #[doc(alias = "AMDKFD_IOC_CRIU_OP")]
    #[doc(alias = "KFD_CRIU_OP_PROCESS_INFO")]
    pub fn criu_process_info(&self) -> Result<CriuProcessInfo> {
        let mut a = raw::CriuArgs::default();
        // SAFETY: no addresses are passed for this operation.
        unsafe { self.criu(CriuOp::ProcessInfo, "KFD_CRIU_OP_PROCESS_INFO", &mut a) }?;
        Ok(CriuProcessInfo {
            num_devices: a.num_devices,
            num_bos: a.num_bos,
            num_objects: a.num_objects,
            priv_data_size: a.priv_data_size,
            pid: a.pid,
        })
    }

    /// CRIU step 2 (1.7): fills the device and buffer buckets and the
    /// private data, sized from [`criu_process_info`](Self::criu_process_info).
    #[doc(alias = "AMDKFD_IOC_CRIU_OP")]
    #[doc(alias = "KFD_CRIU_OP_CHECKPOINT")]
    pub fn criu_checkpoint(
        &self,
        devices: &mut [raw::CriuDeviceBucket],
        bos: &mut [raw::CriuBoBucket],
        priv_data: &mut [u8],
        num_objects: u32,
    ) -> Result<()> {
        let mut a = self.criu_args(devices, bos, priv_data, num_objects)?;
        // SAFETY: the addresses and counts describe the exclusive slices.
        unsafe { self.criu(CriuOp::Checkpoint, "KFD_CRIU_OP_CHECKPOINT", &mut a) }
    }

    /// CRIU step 3 (1.7): resumes the queues paused by `criu_process_info`.
    #[doc(alias = "AMDKFD_IOC_CRIU_OP")]
    #[doc(alias = "KFD_CRIU_OP_UNPAUSE")]
    pub fn criu_unpause(&self) -> Result<()> {
        let mut a = raw::CriuArgs::default();
        // SAFETY: no addresses are passed for this operation.
        unsafe { self.criu(CriuOp::Unpause, "KFD_CRIU_OP_UNPAUSE", &mut a) }
    }

    /// CRIU restore (1.7): recreates the checkpointed objects.
    #[doc(alias = "AMDKFD_IOC_CRIU_OP")]
    #[doc(alias = "KFD_CRIU_OP_RESTORE")]
    pub fn criu_restore(
        &self,
        devices: &mut [raw::CriuDeviceBucket],
        bos: &mut [raw::CriuBoBucket],
        priv_data: &mut [u8],
        num_objects: u32,
    ) -> Result<()> {
        let mut a = self.criu_args(devices, bos, priv_data, num_objects)?;
        // SAFETY: the addresses and counts describe the exclusive slices.
        unsafe { self.criu(CriuOp::Restore, "KFD_CRIU_OP_RESTORE", &mut a) }
    }

    /// CRIU resume (1.7): starts the restored process `pid`.
    #[doc(alias = "AMDKFD_IOC_CRIU_OP")]
    #[doc(alias = "KFD_CRIU_OP_RESUME")]
    pub fn criu_resume(&self, pid: u32) -> Result<()> {
        let mut a = raw::CriuArgs {
            pid,
            ..Default::default()
        };
        // SAFETY: no addresses are passed for this operation.
        unsafe { self.criu(CriuOp::Resume, "KFD_CRIU_OP_RESUME", &mut a) }
    }

    fn criu_args(
        &self,
        devices: &mut [raw::CriuDeviceBucket],
        bos: &mut [raw::CriuBoBucket],
        priv_data: &mut [u8],
        num_objects: u32,
    ) -> Result<raw::CriuArgs> {
        let name = AMDKFD_IOC_CRIU_OP.name();
        Ok(raw::CriuArgs {
            devices: addr(devices),
            bos: addr(bos),
            priv_data: addr(priv_data),
            priv_data_size: priv_data.len() as u64,
            num_devices: count(name, "num_devices", devices.len())?,
            num_bos: count(name, "num_bos", bos.len())?,
            num_objects,
            ..Default::default()
        })
    }

    /// Bytes of VRAM still available to this process on `gpu_id` (1.9).
    #[doc(alias = "AMDKFD_IOC_AVAILABLE_MEMORY")]
    pub fn available_memory(&self, gpu_id: u32) -> Result<u64> {
        let mut a = raw::GetAvailableMemoryArgs {
            gpu_id,
            ..Default::default()
        };
        self.call(&AMDKFD_IOC_AVAILABLE_MEMORY, &mut a)?;
        Ok(a.available)
    }

    /// Exports a buffer as a dmabuf fd (close-on-exec) (1.12).
    #[doc(alias = "AMDKFD_IOC_EXPORT_DMABUF")]
    pub fn export_dmabuf(&self, handle: u64) -> Result<OwnedFd> {
        let mut a = raw::ExportDmabufArgs {
            handle,
            flags: OFlags::CLOEXEC.bits(),
            dmabuf_fd: KFD_INVALID_FD,
        };
        self.call(&AMDKFD_IOC_EXPORT_DMABUF, &mut a)?;
        self.adopt_fd(AMDKFD_IOC_EXPORT_DMABUF.name(), "dmabuf_fd", a.dmabuf_fd)
    }

    /// Tells the driver the runtime is up (or down, with an empty `mode`)
    /// for the debugger (1.13); returns the driver's capability mask.
    /// `r_debug` is the address of the runtime's `r_debug`, which the driver
    /// only passes on to the debugger.
    #[doc(alias = "AMDKFD_IOC_RUNTIME_ENABLE")]
    pub fn runtime_enable(&self, r_debug: u64, mode: RuntimeEnableMode) -> Result<u32> {
        let mut a = raw::RuntimeEnableArgs {
            r_debug,
            mode_mask: mode.bits(),
            capabilities_mask: 0,
        };
        self.call(&AMDKFD_IOC_RUNTIME_ENABLE, &mut a)?;
        Ok(a.capabilities_mask)
    }

    /// # Safety
    ///
    /// The addresses in `op_args` describe memory valid for the operation.
    unsafe fn dbg_trap(
        &self,
        pid: u32,
        op: u32,
        op_name: &'static str,
        op_args: DbgTrapOpArgs,
    ) -> Result<(c_int, DbgTrapOpArgs)> {
        let mut a = raw::DbgTrapArgs { pid, op, op_args };
        // SAFETY: forwarded to our caller.
        let r = unsafe { self.call_raw(&AMDKFD_IOC_DBG_TRAP, Some(op_name), &mut a) }?;
        Ok((r, a.op_args))
    }

    /// Starts debugging process `pid` (1.13); the driver fills `rinfo` and
    /// notifies `dbg_fd` of raised exceptions in `exception_mask`. Returns
    /// the size of the runtime info the driver saved.
    #[doc(alias = "AMDKFD_IOC_DBG_TRAP")]
    #[doc(alias = "KFD_IOC_DBG_TRAP_ENABLE")]
    pub fn dbg_trap_enable(
        &self,
        pid: u32,
        exception_mask: u64,
        dbg_fd: BorrowedFd<'_>,
        rinfo: &mut raw::RuntimeInfo,
    ) -> Result<u32> {
        let mut o = DbgTrapOpArgs::default();
        o.enable = raw::DbgTrapEnableArgs {
            exception_mask,
            rinfo_ptr: core::ptr::from_mut(rinfo) as usize as u64,
            rinfo_size: core::mem::size_of::<raw::RuntimeInfo>() as u32,
            dbg_fd: fd_u32(dbg_fd),
        };
        // SAFETY: `rinfo_ptr`/`rinfo_size` describe `rinfo`, exclusively borrowed.
        let (_, o) =
            unsafe { self.dbg_trap(pid, KFD_IOC_DBG_TRAP_ENABLE, "KFD_IOC_DBG_TRAP_ENABLE", o) }?;
        // SAFETY: `o` started as `Default` (all 24 bytes initialised); the
        // member is plain integers.
        Ok(unsafe { o.enable }.rinfo_size)
    }

    /// Stops debugging process `pid` (1.13).
    #[doc(alias = "AMDKFD_IOC_DBG_TRAP")]
    #[doc(alias = "KFD_IOC_DBG_TRAP_DISABLE")]
    pub fn dbg_trap_disable(&self, pid: u32) -> Result<()> {
        // SAFETY: no addresses are passed for this operation.
        unsafe {
            self.dbg_trap(
                pid,
                KFD_IOC_DBG_TRAP_DISABLE,
                "KFD_IOC_DBG_TRAP_DISABLE",
                DbgTrapOpArgs::default(),
            )
        }
        .map(drop)
    }

    /// Raises exceptions to the runtime of `pid` (1.13).
    #[doc(alias = "AMDKFD_IOC_DBG_TRAP")]
    #[doc(alias = "KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT")]
    pub fn dbg_trap_send_runtime_event(
        &self,
        pid: u32,
        exception_mask: u64,
        gpu_id: u32,
        queue_id: u32,
    ) -> Result<()> {
        let mut o = DbgTrapOpArgs::default();
        o.send_runtime_event = raw::DbgTrapSendRuntimeEventArgs {
            exception_mask,
            gpu_id,
            queue_id,
        };
        // SAFETY: no addresses are passed for this operation.
        unsafe {
            self.dbg_trap(
                pid,
                KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT,
                "KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT",
                o,
            )
        }
        .map(drop)
    }

    /// Chooses the exceptions raised to the debugger (1.13).
    #[doc(alias = "AMDKFD_IOC_DBG_TRAP")]
    #[doc(alias = "KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED")]
    pub fn dbg_trap_set_exceptions_enabled(&self, pid: u32, exception_mask: u64) -> Result<()> {
        let mut o = DbgTrapOpArgs::default();
        o.set_exceptions_enabled = raw::DbgTrapSetExceptionsEnabledArgs { exception_mask };
        // SAFETY: no addresses are passed for this operation.
        unsafe {
            self.dbg_trap(
                pid,
                KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED,
                "KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED",
                o,
            )
        }
        .map(drop)
    }

    /// Enables hardware exceptions that trap waves (1.13).
    #[doc(alias = "AMDKFD_IOC_DBG_TRAP")]
    #[doc(alias = "KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE")]
    pub fn dbg_trap_set_wave_launch_override(
        &self,
        pid: u32,
        mode: WaveLaunchOverrideMode,
        enable: DbgTrapMask,
        support_request: DbgTrapMask,
    ) -> Result<WaveLaunchOverride> {
        let mut o = DbgTrapOpArgs::default();
        o.launch_override = raw::DbgTrapSetWaveLaunchOverrideArgs {
            override_mode: mode.into(),
            enable_mask: enable.bits(),
            support_request_mask: support_request.bits(),
            pad: 0,
        };
        // SAFETY: no addresses are passed for this operation.
        let (_, o) = unsafe {
            self.dbg_trap(
                pid,
                KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE,
                "KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE",
                o,
            )
        }?;
        // SAFETY: `o` started as `Default`; the member is plain integers.
        let r = unsafe { o.launch_override };
        Ok(WaveLaunchOverride {
            previous: DbgTrapMask::from_bits_retain(r.enable_mask),
            supported: DbgTrapMask::from_bits_retain(r.support_request_mask),
        })
    }

    /// Sets how new waves launch (1.13).
    #[doc(alias = "AMDKFD_IOC_DBG_TRAP")]
    #[doc(alias = "KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE")]
    pub fn dbg_trap_set_wave_launch_mode(&self, pid: u32, mode: WaveLaunchMode) -> Result<()> {
        let mut o = DbgTrapOpArgs::default();
        o.launch_mode = raw::DbgTrapSetWaveLaunchModeArgs {
            launch_mode: mode.into(),
            pad: 0,
        };
        // SAFETY: no addresses are passed for this operation.
        unsafe {
            self.dbg_trap(
                pid,
                KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE,
                "KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE",
                o,
            )
        }
        .map(drop)
    }

    /// Suspends the queues in `queue_ids` (1.13); the driver ORs
    /// [`DbgQueueStatus`] bits into entries it could not suspend. Returns how
    /// many were suspended.
    #[doc(alias = "AMDKFD_IOC_DBG_TRAP")]
    #[doc(alias = "KFD_IOC_DBG_TRAP_SUSPEND_QUEUES")]
    pub fn dbg_trap_suspend_queues(
        &self,
        pid: u32,
        queue_ids: &mut [u32],
        grace_period: u32,
        clear_exceptions: u64,
    ) -> Result<u32> {
        let num_queues = count(AMDKFD_IOC_DBG_TRAP.name(), "num_queues", queue_ids.len())?;
        let mut o = DbgTrapOpArgs::default();
        o.suspend_queues = raw::DbgTrapSuspendQueuesArgs {
            exception_mask: clear_exceptions,
            queue_array_ptr: addr(queue_ids),
            num_queues,
            grace_period,
        };
        // SAFETY: pointer and count describe `queue_ids`, exclusively borrowed.
        let (r, _) = unsafe {
            self.dbg_trap(
                pid,
                KFD_IOC_DBG_TRAP_SUSPEND_QUEUES,
                "KFD_IOC_DBG_TRAP_SUSPEND_QUEUES",
                o,
            )
        }?;
        Ok(r.unsigned_abs())
    }

    /// Resumes the queues in `queue_ids` (1.13); returns how many resumed.
    #[doc(alias = "AMDKFD_IOC_DBG_TRAP")]
    #[doc(alias = "KFD_IOC_DBG_TRAP_RESUME_QUEUES")]
    pub fn dbg_trap_resume_queues(&self, pid: u32, queue_ids: &mut [u32]) -> Result<u32> {
        let num_queues = count(AMDKFD_IOC_DBG_TRAP.name(), "num_queues", queue_ids.len())?;
        let mut o = DbgTrapOpArgs::default();
        o.resume_queues = raw::DbgTrapResumeQueuesArgs {
            queue_array_ptr: addr(queue_ids),
            num_queues,
            pad: 0,
        };
        // SAFETY: pointer and count describe `queue_ids`, exclusively borrowed.
        let (r, _) = unsafe {
            self.dbg_trap(
                pid,
                KFD_IOC_DBG_TRAP_RESUME_QUEUES,
                "KFD_IOC_DBG_TRAP_RESUME_QUEUES",
                o,
            )
        }?;
        Ok(r.unsigned_abs())
    }

    /// Sets an address watch point on a GPU (1.13); returns its id.
    #[doc(alias = "AMDKFD_IOC_DBG_TRAP")]
    #[doc(alias = "KFD_IOC_DBG_TRAP_SET_NODE_ADDRESS_WATCH")]
    pub fn dbg_trap_set_node_address_watch(
        &self,
        pid: u32,
        gpu_id: u32,
        address: u64,
        mask: u32,
        mode: AddressWatchMode,
    ) -> Result<u32> {
        let mut o = DbgTrapOpArgs::default();
        o.set_node_address_watch = raw::DbgTrapSetNodeAddressWatchArgs {
            address,
            mode: mode.into(),
            mask,
            gpu_id,
            id: 0,
        };
        // SAFETY: no addresses are passed for this operation (`address` is watched, not read).
        let (_, o) = unsafe {
            self.dbg_trap(
                pid,
                KFD_IOC_DBG_TRAP_SET_NODE_ADDRESS_WATCH,
                "KFD_IOC_DBG_TRAP_SET_NODE_ADDRESS_WATCH",
                o,
            )
        }?;
        // SAFETY: `o` started as `Default`; the member is plain integers.
        Ok(unsafe { o.set_node_address_watch }.id)
    }

    /// Clears an address watch point (1.13).
    #[doc(alias = "AMDKFD_IOC_DBG_TRAP")]
    #[doc(alias = "KFD_IOC_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH")]
    pub fn dbg_trap_clear_node_address_watch(&self, pid: u32, gpu_id: u32, id: u32) -> Result<()> {
        let mut o = DbgTrapOpArgs::default();
        o.clear_node_address_watch = raw::DbgTrapClearNodeAddressWatchArgs { gpu_id, id };
        // SAFETY: no addresses are passed for this operation.
        unsafe {
            self.dbg_trap(
                pid,
                KFD_IOC_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH,
                "KFD_IOC_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH",
                o,
            )
        }
        .map(drop)
    }

    /// Sets wave behaviour flags (1.13); returns the previous flags.
    #[doc(alias = "AMDKFD_IOC_DBG_TRAP")]
    #[doc(alias = "KFD_IOC_DBG_TRAP_SET_FLAGS")]
    pub fn dbg_trap_set_flags(&self, pid: u32, flags: DbgTrapFlags) -> Result<DbgTrapFlags> {
        let mut o = DbgTrapOpArgs::default();
        o.set_flags = raw::DbgTrapSetFlagsArgs {
            flags: flags.bits(),
            pad: 0,
        };
        // SAFETY: no addresses are passed for this operation.
        let (_, o) = unsafe {
            self.dbg_trap(
                pid,
                KFD_IOC_DBG_TRAP_SET_FLAGS,
                "KFD_IOC_DBG_TRAP_SET_FLAGS",
                o,
            )
        }?;
        // SAFETY: `o` started as `Default`; the member is plain integers.
        Ok(DbgTrapFlags::from_bits_retain(unsafe { o.set_flags }.flags))
    }

    /// Finds one raised exception (1.13), clearing those in `clear_mask`;
    /// `None` when nothing is raised (the driver's `EAGAIN`).
    #[doc(alias = "AMDKFD_IOC_DBG_TRAP")]
    #[doc(alias = "KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT")]
    pub fn dbg_trap_query_debug_event(
        &self,
        pid: u32,
        clear_mask: u64,
    ) -> Result<Option<DebugEvent>> {
        let mut o = DbgTrapOpArgs::default();
        o.query_debug_event = raw::DbgTrapQueryDebugEventArgs {
            exception_mask: clear_mask,
            gpu_id: 0,
            queue_id: 0,
        };
        // SAFETY: no addresses are passed for this operation.
        match unsafe {
            self.dbg_trap(
                pid,
                KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT,
                "KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT",
                o,
            )
        } {
            Ok((_, o)) => {
                // SAFETY: `o` started as `Default`; the member is plain integers.
                let r = unsafe { o.query_debug_event };
                Ok(Some(DebugEvent {
                    exception_mask: r.exception_mask,
                    gpu_id: r.gpu_id,
                    queue_id: r.queue_id,
                }))
            }
            Err(Error::Ioctl {
                errno: Errno::AGAIN,
                ..
            }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Copies extra information on a raised exception into `info` (1.13);
    /// returns the size the driver has (may exceed `info.len()`).
    #[doc(alias = "AMDKFD_IOC_DBG_TRAP")]
    #[doc(alias = "KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO")]
    pub fn dbg_trap_query_exception_info(
        &self,
        pid: u32,
        source_id: u32,
        exception: ExceptionCode,
        clear: bool,
        info: &mut [u8],
    ) -> Result<u32> {
        let info_size = count(AMDKFD_IOC_DBG_TRAP.name(), "info_size", info.len())?;
        let mut o = DbgTrapOpArgs::default();
        o.query_exception_info = raw::DbgTrapQueryExceptionInfoArgs {
            info_ptr: addr(info),
            info_size,
            source_id,
            exception_code: exception.into(),
            clear_exception: u32::from(clear),
        };
        // SAFETY: pointer and size describe `info`, exclusively borrowed.
        let (_, o) = unsafe {
            self.dbg_trap(
                pid,
                KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO,
                "KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO",
                o,
            )
        }?;
        // SAFETY: `o` started as `Default`; the member is plain integers.
        Ok(unsafe { o.query_exception_info }.info_size)
    }

    /// Fills `entries` with the queues of `pid` (1.13); returns how many
    /// queues exist (may exceed `entries.len()`).
    #[doc(alias = "AMDKFD_IOC_DBG_TRAP")]
    #[doc(alias = "KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT")]
    pub fn dbg_trap_get_queue_snapshot(
        &self,
        pid: u32,
        clear_exceptions: u64,
        entries: &mut [raw::QueueSnapshotEntry],
    ) -> Result<u32> {
        let num_queues = count(AMDKFD_IOC_DBG_TRAP.name(), "num_queues", entries.len())?;
        let mut o = DbgTrapOpArgs::default();
        o.queue_snapshot = raw::DbgTrapQueueSnapshotArgs {
            exception_mask: clear_exceptions,
            snapshot_buf_ptr: addr(entries),
            num_queues,
            entry_size: core::mem::size_of::<raw::QueueSnapshotEntry>() as u32,
        };
        // SAFETY: pointer, count and entry size describe `entries`, exclusively borrowed.
        let (_, o) = unsafe {
            self.dbg_trap(
                pid,
                KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT,
                "KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT",
                o,
            )
        }?;
        // SAFETY: `o` started as `Default`; the member is plain integers.
        Ok(unsafe { o.queue_snapshot }.num_queues)
    }

    /// Fills `entries` with the debug devices of `pid` (1.13); returns how
    /// many exist (may exceed `entries.len()`).
    #[doc(alias = "AMDKFD_IOC_DBG_TRAP")]
    #[doc(alias = "KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT")]
    pub fn dbg_trap_get_device_snapshot(
        &self,
        pid: u32,
        clear_exceptions: u64,
        entries: &mut [raw::DbgDeviceInfoEntry],
    ) -> Result<u32> {
        let num_devices = count(AMDKFD_IOC_DBG_TRAP.name(), "num_devices", entries.len())?;
        let mut o = DbgTrapOpArgs::default();
        o.device_snapshot = raw::DbgTrapDeviceSnapshotArgs {
            exception_mask: clear_exceptions,
            snapshot_buf_ptr: addr(entries),
            num_devices,
            entry_size: core::mem::size_of::<raw::DbgDeviceInfoEntry>() as u32,
        };
        // SAFETY: pointer, count and entry size describe `entries`, exclusively borrowed.
        let (_, o) = unsafe {
            self.dbg_trap(
                pid,
                KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT,
                "KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT",
                o,
            )
        }?;
        // SAFETY: `o` started as `Default`; the member is plain integers.
        Ok(unsafe { o.device_snapshot }.num_devices)
    }

    /// Maps `len` bytes of the device at mmap `offset`, shared, read-write
    /// (for example the MMIO-remap page of an `MMIO_REMAP` allocation).
    pub fn map(&self, offset: u64, len: usize, what: &'static str) -> Result<Mapping<D>> {
        let len = NonZeroUsize::new(len).ok_or(Error::InvalidArgument {
            ioctl: "mmap",
            what: "length is zero",
        })?;
        let ptr = self
            .device
            .mmap(len, offset)
            .map_err(|errno| Error::Mmap { what, errno })?;
        Ok(Mapping::new(ptr, len, Arc::clone(&self.device)))
    }

    /// Maps the doorbell page that holds the doorbell at `doorbell_offset`
    /// (from [`create_queue`](Self::create_queue)). `page_size` is the
    /// GPU's doorbell page size: 8 KiB (1024 64-bit doorbells) on GFX9 and
    /// newer, 4 KiB before.
    pub fn map_doorbell_page(
        &self,
        doorbell_offset: u64,
        page_size: usize,
    ) -> Result<DoorbellPage<D>> {
        let bad = |what| Error::InvalidArgument {
            ioctl: "mmap",
            what,
        };
        if !page_size.is_power_of_two() || page_size < 8 {
            return Err(bad(
                "doorbell page size is not a power of two of at least 8 bytes",
            ));
        }
        let mask = page_size as u64 - 1;
        let offset_in_page =
            usize::try_from(doorbell_offset & mask).map_err(|_| bad("doorbell offset"))?;
        if offset_in_page % 8 != 0 {
            return Err(bad("doorbell offset is not 8-byte aligned"));
        }
        // `offset_in_page <= page_size - 8` holds: it is below `page_size` and a multiple of 8.
        let mapping = self.map(doorbell_offset & !mask, page_size, "doorbell page")?;
        Ok(DoorbellPage {
            mapping,
            offset_in_page,
        })
    }

    /// Maps the signal-event page at `event_page_offset` (from the first
    /// signal [`create_event`](Self::create_event)).
    pub fn map_event_page(&self, event_page_offset: u64) -> Result<EventPage<D>> {
        let mapping = self.map(event_page_offset, EVENT_PAGE_SIZE, "event page")?;
        Ok(EventPage { mapping })
    }
}

/// A borrowed descriptor as the driver's `u32` field.
fn fd_u32(fd: BorrowedFd<'_>) -> u32 {
    // A borrowed descriptor is never negative.
    fd.as_raw_fd().unsigned_abs()
}

// The handle and its mappings may move to and be shared between threads.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Kfd>();
    send_sync::<Mapping>();
    send_sync::<DoorbellPage>();
    send_sync::<EventPage>();
};
