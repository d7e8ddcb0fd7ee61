//! The seam: a simulated device behind `Kfd<D: KfdDevice>` receives the same
//! typed calls as the real driver. This one answers a handful of ioctls the
//! way the KFD documentation says, so the tests can check what the wrappers
//! send, what they decode, and what they refuse before calling at all.

#![allow(unsafe_code)]

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::any::TypeId;
use std::num::NonZeroUsize;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::ptr::NonNull;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use kfd::ioctl::raw;
use kfd::ioctl::*;
use kfd::{DrmRenderNode, Error, Kfd, KfdDevice, KfdVersion, QueueDesc};
use rustix::io::Errno;

const PAGE: usize = 4096;

#[derive(Debug, Default)]
struct SimDevice {
    version: (u32, u32),
    calls: Mutex<Vec<&'static str>>,
    interrupt_next_wait: AtomicBool,
    mapped: AtomicUsize,
    unmapped: AtomicUsize,
    svm_seen: Mutex<Vec<raw::SvmAttribute>>,
    acquired_drm_fd: Mutex<Option<u32>>,
}

/// A render node that exists only for minor 128: a memfd stands in for the
/// file, so its descriptor is a real number the device can recognise.
#[derive(Debug)]
struct FakeRenderNode {
    fd: OwnedFd,
}

impl AsFd for FakeRenderNode {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

// SAFETY: nothing is accessed and nothing is mapped: every call fails.
unsafe impl DrmRenderNode for FakeRenderNode {
    unsafe fn ioctl(
        &self,
        _code: rustix::ioctl::Opcode,
        _arg: *mut core::ffi::c_void,
    ) -> Result<core::ffi::c_int, Errno> {
        Err(Errno::NOTTY)
    }
    fn mmap(&self, _len: NonZeroUsize, _offset: u64) -> Result<NonNull<u8>, Errno> {
        Err(Errno::NODEV)
    }
    unsafe fn mmap_fixed(
        &self,
        _addr: NonNull<u8>,
        _len: NonZeroUsize,
        _offset: u64,
    ) -> Result<NonNull<u8>, Errno> {
        Err(Errno::NODEV)
    }
    unsafe fn munmap(&self, _addr: NonNull<u8>, _len: NonZeroUsize) -> Result<(), Errno> {
        Err(Errno::INVAL)
    }
}

impl SimDevice {
    fn new(major: u32, minor: u32) -> Self {
        Self {
            version: (major, minor),
            ..Self::default()
        }
    }

    fn calls(&self) -> Vec<&'static str> {
        self.calls.lock().unwrap().clone()
    }
}

fn is<T: 'static, U: 'static>() -> bool {
    TypeId::of::<T>() == TypeId::of::<U>()
}

// SAFETY: `ioctl` touches only the argument struct and the arrays its
// address/count fields describe; `mmap` hands out fresh zeroed page-aligned
// allocations of exactly `len` bytes that live until `munmap`.
unsafe impl KfdDevice for SimDevice {
    unsafe fn ioctl<T: 'static>(
        &self,
        ioctl: &Ioctl<T>,
        arg: *mut T,
    ) -> Result<core::ffi::c_int, Errno> {
        self.calls.lock().unwrap().push(ioctl.name());
        if is::<T, raw::GetVersionArgs>() {
            let a = arg.cast::<raw::GetVersionArgs>();
            // SAFETY: `T` is `GetVersionArgs`; the caller passes a valid pointer.
            unsafe {
                *a = raw::GetVersionArgs {
                    major_version: self.version.0,
                    minor_version: self.version.1,
                }
            };
            return Ok(0);
        }
        if is::<T, raw::CreateQueueArgs>() {
            // SAFETY: `T` is `CreateQueueArgs`.
            let a = unsafe { &mut *arg.cast::<raw::CreateQueueArgs>() };
            a.queue_id = 3;
            // Doorbell page of GPU 0x1002 at page offset 0x5000, doorbell 3.
            a.doorbell_offset = 0x1002_0000_5000 + 3 * 8;
            return Ok(0);
        }
        if is::<T, raw::WaitEventsArgs>() {
            if self.interrupt_next_wait.swap(false, Ordering::SeqCst) {
                return Err(Errno::INTR);
            }
            // SAFETY: `T` is `WaitEventsArgs`.
            let a = unsafe { &mut *arg.cast::<raw::WaitEventsArgs>() };
            let n = a.num_events as usize;
            // SAFETY: the caller vouches that `events_ptr` holds `num_events` entries.
            let events =
                unsafe { std::slice::from_raw_parts_mut(a.events_ptr as *mut raw::EventData, n) };
            for e in events {
                e.payload = raw::EventDataPayload::from_signal(raw::HsaSignalEventData {
                    last_event_age: u64::from(e.event_id) * 100,
                });
            }
            a.wait_result = consts::KFD_IOC_WAIT_RESULT_COMPLETE;
            return Ok(0);
        }
        if is::<T, raw::AcquireVmArgs>() {
            // SAFETY: `T` is `AcquireVmArgs`.
            let a = unsafe { &*arg.cast::<raw::AcquireVmArgs>() };
            *self.acquired_drm_fd.lock().unwrap() = Some(a.drm_fd);
            return Ok(0);
        }
        if is::<T, raw::GetTileConfigArgs>() {
            // SAFETY: `T` is `GetTileConfigArgs`.
            let a = unsafe { &mut *arg.cast::<raw::GetTileConfigArgs>() };
            // A misbehaving device: claims more entries than the buffer holds.
            a.num_tile_configs += 1;
            return Ok(0);
        }
        if is::<T, raw::SvmArgs>() {
            let header = arg.cast::<raw::SvmArgs>();
            // SAFETY: `T` is `SvmArgs`; the caller passes a valid pointer.
            let h = unsafe { *header };
            let n = h.nattr as usize;
            // SAFETY: the header is followed by `nattr` pairs in the same allocation.
            let first = unsafe { header.add(1) }.cast::<raw::SvmAttribute>();
            // SAFETY: as above; nothing else accesses them during the call.
            let pairs = unsafe { std::slice::from_raw_parts_mut(first, n) };
            self.svm_seen.lock().unwrap().extend_from_slice(pairs);
            if h.op == consts::KFD_IOCTL_SVM_OP_GET_ATTR {
                for p in pairs {
                    p.value = p.type_ * 10 + 1;
                }
            }
            return Ok(0);
        }
        if is::<T, raw::DbgTrapArgs>() {
            // SAFETY: `T` is `DbgTrapArgs`.
            let a = unsafe { &mut *arg.cast::<raw::DbgTrapArgs>() };
            if a.op == consts::KFD_IOC_DBG_TRAP_SUSPEND_QUEUES {
                // SAFETY: the wrapper built the union from `Default` and set this member.
                let s = unsafe { a.op_args.suspend_queues };
                // SAFETY: the caller vouches for the queue id array.
                let ids = unsafe {
                    std::slice::from_raw_parts_mut(
                        s.queue_array_ptr as *mut u32,
                        s.num_queues as usize,
                    )
                };
                let mut suspended = 0;
                for id in ids {
                    if *id == 2 {
                        *id |= consts::KFD_DBG_QUEUE_INVALID_MASK;
                    } else {
                        suspended += 1;
                    }
                }
                return Ok(suspended);
            }
            if a.op == consts::KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT {
                return Err(Errno::AGAIN);
            }
        }
        Err(Errno::NOTTY)
    }

    fn mmap(&self, len: NonZeroUsize, _offset: u64) -> Result<NonNull<u8>, Errno> {
        let layout = Layout::from_size_align(len.get(), PAGE).map_err(|_| Errno::INVAL)?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        self.mapped.fetch_add(1, Ordering::SeqCst);
        NonNull::new(ptr).ok_or(Errno::NOMEM)
    }

    unsafe fn munmap(&self, addr: NonNull<u8>, len: NonZeroUsize) -> Result<(), Errno> {
        let layout = Layout::from_size_align(len.get(), PAGE).map_err(|_| Errno::INVAL)?;
        // SAFETY: the caller returns a region our `mmap` allocated with this layout.
        unsafe { dealloc(addr.as_ptr(), layout) };
        self.unmapped.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    unsafe fn mmap_fixed(
        &self,
        _addr: NonNull<u8>,
        _len: NonZeroUsize,
        _offset: u64,
    ) -> Result<NonNull<u8>, Errno> {
        Err(Errno::NODEV)
    }

    type RenderNode = FakeRenderNode;

    fn open_render_node(&self, minor: u32) -> Result<FakeRenderNode, Errno> {
        if minor != 128 {
            return Err(Errno::NOENT);
        }
        let fd = rustix::fs::memfd_create("renderD128", rustix::fs::MemfdFlags::CLOEXEC)?;
        Ok(FakeRenderNode { fd })
    }
}

fn queue_desc(queue_type: QueueType, ring_size: u32) -> QueueDesc {
    QueueDesc {
        gpu_id: 0x1002,
        queue_type,
        percentage: QueuePercentage::FULL,
        priority: QueuePriority::NORMAL,
        ring_base_address: 0x7000_0000,
        ring_size,
        write_pointer_address: 0x7100_0000,
        read_pointer_address: 0x7100_0008,
        eop_buffer_address: 0,
        eop_buffer_size: 0,
        ctx_save_restore_address: 0,
        ctx_save_restore_size: 0,
        ctl_stack_size: 0,
        sdma_engine_id: 0,
    }
}

#[test]
fn version_is_checked_and_features_name_the_version_they_need() {
    let kfd = Kfd::with_device(SimDevice::new(1, 4)).expect("1.4 is a supported driver");
    assert_eq!(kfd.version(), KfdVersion::new(1, 4));

    let err = kfd
        .svm_set_attr(0x1000, 0x1000, &[])
        .expect_err("SVM is 1.5");
    assert_eq!(
        err,
        Error::NeedsVersion {
            feature: "AMDKFD_IOC_SVM",
            needs: KfdVersion::new(1, 5),
            driver: KfdVersion::new(1, 4)
        }
    );
    assert_eq!(
        err.to_string(),
        "AMDKFD_IOC_SVM needs KFD interface 1.5 or newer; the driver speaks 1.4"
    );
    assert!(
        matches!(kfd.dbg_trap_disable(1), Err(Error::NeedsVersion { needs, .. }) if needs == KfdVersion::new(1, 13))
    );
    assert!(
        matches!(kfd.export_dmabuf(1), Err(Error::NeedsVersion { needs, .. }) if needs == KfdVersion::new(1, 12))
    );
    assert!(
        matches!(kfd.available_memory(1), Err(Error::NeedsVersion { needs, .. }) if needs == KfdVersion::new(1, 9))
    );
    // SAFETY: the simulated device never touches the addresses.
    let err = unsafe { kfd.create_queue(&queue_desc(QueueType::SdmaByEngId, 4096)) }
        .expect_err("1.17 queue type");
    assert!(
        matches!(
            err,
            Error::NeedsVersion {
                feature: "KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID",
                ..
            }
        ),
        "{err}"
    );
    let flags = AllocMemFlags::VRAM | AllocMemFlags::CONTIGUOUS;
    assert!(matches!(
        kfd.alloc_memory_of_gpu(1, 0, 4096, flags),
        Err(Error::NeedsVersion { .. })
    ));
    let r = kfd.set_memory_policy(
        1,
        CachePolicy::Coherent,
        CachePolicy::Coherent,
        0,
        0,
        ProcessFlags::MFMA_HIGH_PRECISION,
    );
    assert!(matches!(r, Err(Error::NeedsVersion { needs, .. }) if needs == KfdVersion::new(1, 18)));

    // None of the refused calls reached the device.
    assert_eq!(kfd.device().calls(), ["AMDKFD_IOC_GET_VERSION"]);
}

#[test]
fn another_major_version_is_refused() {
    let err = Kfd::with_device(SimDevice::new(2, 0)).expect_err("major 2");
    assert_eq!(
        err,
        Error::UnsupportedDriver {
            driver: KfdVersion::new(2, 0)
        }
    );
}

#[test]
fn queue_and_doorbell_page() {
    let kfd = Kfd::with_device(SimDevice::new(1, 18)).unwrap();
    // SAFETY: the simulated device never touches the addresses.
    let bad = unsafe { kfd.create_queue(&queue_desc(QueueType::ComputeAql, 3000)) };
    assert!(matches!(
        bad,
        Err(Error::InvalidArgument {
            ioctl: "AMDKFD_IOC_CREATE_QUEUE",
            ..
        })
    ));
    // SAFETY: as above.
    let q = unsafe { kfd.create_queue(&queue_desc(QueueType::ComputeAql, 4096)) }.unwrap();
    assert_eq!(q.queue_id, 3);

    let page = kfd.map_doorbell_page(q.doorbell_offset, 8192).unwrap();
    assert_eq!(page.offset_in_page(), 0x1000 + 24);
    assert_eq!(page.mapping().len(), 8192);
    let base = page.mapping().as_ptr().as_ptr() as usize;
    assert_eq!(page.doorbell().as_ptr() as usize, base + 0x1000 + 24);
    // SAFETY: the doorbell lies inside the live mapping; volatile, as for MMIO.
    unsafe { page.doorbell().as_ptr().write_volatile(42) };
    assert_eq!(kfd.device().mapped.load(Ordering::SeqCst), 1);
    drop(page);
    assert_eq!(kfd.device().unmapped.load(Ordering::SeqCst), 1);

    assert!(matches!(
        kfd.map_doorbell_page(0x1004, 8192),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        kfd.map_doorbell_page(0x1000, 3000),
        Err(Error::InvalidArgument { .. })
    ));
}

#[test]
fn event_page_slots_are_bounded_and_unmapped_on_drop() {
    let kfd = Kfd::with_device(SimDevice::new(1, 18)).unwrap();
    let page = kfd.map_event_page(0x4000_0000).unwrap();
    assert_eq!(page.mapping().len(), kfd::EVENT_PAGE_SIZE);
    let base = page.mapping().as_ptr().as_ptr() as usize;
    assert_eq!(page.slot(0).unwrap().as_ptr() as usize, base);
    assert_eq!(page.slot(4095).unwrap().as_ptr() as usize, base + 4095 * 8);
    assert!(page.slot(4096).is_none());
    assert!(page.slot(u32::MAX).is_none());
    drop(page);
    assert_eq!(kfd.device().unmapped.load(Ordering::SeqCst), 1);
}

#[test]
fn wait_events_retries_eintr_and_decodes_the_payload() {
    let kfd = Kfd::with_device(SimDevice::new(1, 18)).unwrap();
    kfd.device()
        .interrupt_next_wait
        .store(true, Ordering::SeqCst);
    let mut events = [raw::EventData::new(5), raw::EventData::new(7)];
    assert_eq!(
        kfd.wait_events(&mut events, true, 1000).unwrap(),
        WaitResult::Complete
    );
    assert_eq!(events[0].payload.signal_event_data().last_event_age, 500);
    assert_eq!(events[1].payload.signal_event_data().last_event_age, 700);
    let calls = kfd.device().calls();
    assert_eq!(
        calls
            .iter()
            .filter(|c| **c == "AMDKFD_IOC_WAIT_EVENTS")
            .count(),
        2,
        "EINTR was retried"
    );
    assert!(matches!(
        kfd.wait_events(&mut [], false, 0),
        Err(Error::InvalidArgument { .. })
    ));
}

#[test]
fn svm_attributes_travel_after_the_header() {
    let kfd = Kfd::with_device(SimDevice::new(1, 18)).unwrap();
    let set = [
        raw::SvmAttribute::new(SvmAttrType::PreferredLoc, 0x1002),
        raw::SvmAttribute::new(
            SvmAttrType::SetFlags,
            (SvmFlags::COHERENT | SvmFlags::GPU_EXEC).bits(),
        ),
        raw::SvmAttribute::new(SvmAttrType::Granularity, 9),
    ];
    kfd.svm_set_attr(0x10_0000, 0x20_0000, &set).unwrap();
    assert_eq!(*kfd.device().svm_seen.lock().unwrap(), set);

    let mut get = [
        raw::SvmAttribute::new(SvmAttrType::Access, 0x1002),
        raw::SvmAttribute::new(SvmAttrType::ClrFlags, 0),
    ];
    kfd.svm_get_attr(0x10_0000, 0x20_0000, &mut get).unwrap();
    assert_eq!(get[0].value, consts::KFD_IOCTL_SVM_ATTR_ACCESS * 10 + 1);
    assert_eq!(get[1].value, consts::KFD_IOCTL_SVM_ATTR_CLR_FLAGS * 10 + 1);
}

#[test]
fn dbg_trap_results_and_status_bits() {
    let kfd = Kfd::with_device(SimDevice::new(1, 18)).unwrap();
    let mut ids = [1u32, 2, 3];
    assert_eq!(kfd.dbg_trap_suspend_queues(42, &mut ids, 10, 0).unwrap(), 2);
    assert_eq!(ids[0], 1);
    assert_eq!(
        DbgQueueStatus::from_bits_truncate(ids[1]),
        DbgQueueStatus::INVALID
    );
    // EAGAIN means "nothing raised", not an error.
    assert_eq!(kfd.dbg_trap_query_debug_event(42, 0).unwrap(), None);
    // Anything the device does not implement comes back named.
    let err = kfd.dbg_trap_disable(42).unwrap_err();
    assert_eq!(
        err.to_string(),
        "AMDKFD_IOC_DBG_TRAP (KFD_IOC_DBG_TRAP_DISABLE) failed: ENOTTY"
    );
}

#[test]
fn replies_outside_the_buffers_are_refused() {
    let kfd = Kfd::with_device(SimDevice::new(1, 18)).unwrap();
    let (mut tiles, mut macro_tiles) = ([0u32; 4], [0u32; 4]);
    let err = kfd
        .get_tile_config(1, &mut tiles, &mut macro_tiles)
        .unwrap_err();
    assert_eq!(
        err,
        Error::BadReply {
            ioctl: "AMDKFD_IOC_GET_TILE_CONFIG",
            what: "num_tile_configs",
            value: 5
        }
    );
}

#[test]
fn unknown_events_are_refused_by_the_typed_enums() {
    assert_eq!(EventType::try_from(8), Ok(EventType::Memory));
    let e = EventType::try_from(9).unwrap_err();
    assert_eq!(e.to_string(), "unknown event type 9");
    assert!(QueuePriority::new(16).is_none() && QueuePercentage::new(101).is_none());
}

#[test]
fn render_nodes_open_through_the_device_and_their_fd_reaches_acquire_vm() {
    let kfd = Kfd::with_device(SimDevice::new(1, 18)).unwrap();
    let err = kfd.open_render_node(129).unwrap_err();
    assert_eq!(
        err,
        Error::OpenRenderNode {
            minor: 129,
            errno: Errno::NOENT
        }
    );
    assert_eq!(
        err.to_string(),
        "cannot open the render node /dev/dri/renderD129: ENOENT"
    );
    let node = kfd.open_render_node(128).unwrap();
    assert_eq!(node.minor(), 128);
    kfd.acquire_vm(node.as_fd(), 0x1002).unwrap();
    assert_eq!(
        *kfd.device().acquired_drm_fd.lock().unwrap(),
        Some(node.as_fd().as_raw_fd() as u32)
    );
    let err = node.map(0x1000, 4096).unwrap_err();
    assert_eq!(
        err,
        Error::RenderNodeMmap {
            offset: 0x1000,
            errno: Errno::NODEV
        }
    );
    assert!(matches!(
        node.map(0x1000, 0),
        Err(Error::InvalidArgument { .. })
    ));
}
