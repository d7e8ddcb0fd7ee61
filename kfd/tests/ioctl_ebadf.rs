//! Every wrapper on a descriptor the kernel refuses ioctls on returns
//! `EBADF` with the right ioctl name; opening a device node that does not
//! exist gives the typed "no device" error; and `/dev/kfd` itself is either
//! absent (the same error) or answers read-only calls.
//!
//! The handle is built over an `O_PATH` descriptor: a real, open, owned
//! file descriptor on which `ioctl(2)` and `mmap(2)` fail with `EBADF`
//! before the kernel looks at the argument (open(2), "O_PATH"). So no
//! undefined behaviour is possible, and no `OwnedFd` invariant is broken.

use std::collections::BTreeSet;
use std::os::fd::{AsFd, OwnedFd};

use kfd::ioctl::raw;
use kfd::ioctl::*;
use kfd::{Error, EventDesc, Kfd, QueueDesc};
use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;

fn o_path_fd() -> OwnedFd {
    rustix::fs::open("/", OFlags::PATH | OFlags::CLOEXEC, Mode::empty())
        .expect("open / with O_PATH")
}

/// Asserts `r` is the `EBADF` failure of `ioctl` (optionally a sub-operation)
/// and records the ioctl as covered.
fn expect_ebadf<T: std::fmt::Debug>(
    covered: &mut BTreeSet<&'static str>,
    ioctl: &'static str,
    op: Option<&'static str>,
    r: kfd::Result<T>,
) {
    match r {
        Err(Error::Ioctl {
            ioctl: name,
            op: got_op,
            errno,
        }) => {
            assert_eq!(name, ioctl);
            assert_eq!(got_op, op, "{ioctl}");
            assert_eq!(errno, Errno::BADF, "{ioctl}");
            let msg = Error::Ioctl {
                ioctl: name,
                op: got_op,
                errno,
            }
            .to_string();
            assert!(
                msg.starts_with(ioctl) && msg.ends_with("failed: EBADF"),
                "{msg}"
            );
            covered.insert(name);
        }
        other => panic!("{ioctl}: expected EBADF, got {other:?}"),
    }
}

/// A directory of this test's own under the system temporary directory,
/// removed on drop.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let path = std::env::temp_dir().join(format!(
            "kfd-{tag}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir(&path).expect("create the test's temporary directory");
        Self(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn opening_a_missing_device_node_is_a_typed_no_device_error() {
    // A path this test controls, so the result does not depend on whether
    // this machine has an AMD GPU.
    let dir = TempDir::new("missing");
    let node = dir.0.join("kfd");
    let err = Kfd::open_path(&node).expect_err("the node does not exist");
    assert_eq!(
        err,
        Error::NoDevice {
            errno: Errno::NOENT
        }
    );
    let msg = err.to_string();
    assert!(
        msg.contains("/dev/kfd") && msg.contains("amdgpu") && msg.contains("no AMD GPU"),
        "{msg}"
    );
}

#[test]
fn opening_a_file_that_is_no_kfd_fails_at_get_version() {
    // The open succeeds; the version check is what refuses the file.
    let dir = TempDir::new("plain");
    let node = dir.0.join("kfd");
    std::fs::write(&node, b"").unwrap();
    let err = Kfd::open_path(&node).expect_err("a regular file has no KFD behind it");
    assert_eq!(
        err,
        Error::Ioctl {
            ioctl: "AMDKFD_IOC_GET_VERSION",
            op: None,
            errno: Errno::NOTTY
        }
    );
}

/// `/dev/kfd` itself: without it, the typed "no device" error; with a GPU
/// whose node opens, read-only calls on the real driver (the interface
/// version, the process apertures against the sysfs topology), so the suite
/// passes, and checks something, on both kinds of machine.
#[test]
fn the_real_device_is_absent_or_answers_read_only_calls() {
    let present = std::path::Path::new(kfd::KFD_DEVICE_PATH).exists();
    let kfd = match Kfd::open() {
        Ok(kfd) => kfd,
        Err(err @ Error::NoDevice { errno }) => {
            if !present {
                assert_eq!(errno, Errno::NOENT, "{err}");
            }
            eprintln!("no KFD driver here ({err}); the real-device checks did not run");
            return;
        }
        Err(err @ Error::PermissionDenied { .. }) if present => {
            eprintln!("{err}; the real-device checks did not run");
            return;
        }
        Err(other) => panic!("opening {}: {other}", kfd::KFD_DEVICE_PATH),
    };
    assert!(present);

    // AMDKFD_IOC_GET_VERSION: the open checked major 1; asking again agrees.
    let version = kfd.get_version().expect("AMDKFD_IOC_GET_VERSION");
    assert_eq!(version, kfd.version());
    assert_eq!(version.major, KfdVersion::MIRRORED.major);

    // The topology the driver publishes, read through our parser.
    let topology = kfd::topology::Topology::read_system().expect("read the KFD sysfs topology");
    let gpu_ids: BTreeSet<u32> = topology.gpus().map(|n| n.gpu_id).collect();

    // AMDKFD_IOC_GET_PROCESS_APERTURES{,_NEW}: the driver gives a process
    // one aperture set per GPU it may use (`kfd_init_apertures`, which skips
    // GPUs outside the device cgroup, as the topology hides their nodes);
    // libhsakmt looks each topology GPU up in this list by `gpu_id`.
    let apertures = kfd
        .process_apertures()
        .expect("AMDKFD_IOC_GET_PROCESS_APERTURES_NEW");
    let listed: BTreeSet<u32> = apertures.iter().map(|a| a.gpu_id).collect();
    assert_eq!(
        listed.len(),
        apertures.len(),
        "one entry per GPU: {apertures:?}"
    );
    assert!(
        listed.is_subset(&gpu_ids),
        "{listed:?} not in the topology's {gpu_ids:?}"
    );
    if topology.inaccessible.is_empty() {
        assert_eq!(listed, gpu_ids, "every topology GPU has apertures");
    }
    for a in &apertures {
        assert!(a.gpuvm_base <= a.gpuvm_limit, "{a:?}");
        assert!(a.lds_base <= a.lds_limit, "{a:?}");
        assert!(a.scratch_base <= a.scratch_limit, "{a:?}");
    }
    // The old ioctl holds at most 7 nodes (NUM_OF_SUPPORTED_GPUS) and must
    // list the same apertures as far as it goes.
    let old = kfd
        .get_process_apertures()
        .expect("AMDKFD_IOC_GET_PROCESS_APERTURES");
    assert_eq!(old.len(), apertures.len().min(7));
    for a in &old {
        assert!(apertures.contains(a), "{a:?} only in the old ioctl");
    }
}

#[test]
fn checked_constructor_reports_get_version_failure() {
    let err = Kfd::from_fd(o_path_fd()).expect_err("O_PATH fd has no driver");
    assert_eq!(
        err,
        Error::Ioctl {
            ioctl: "AMDKFD_IOC_GET_VERSION",
            op: None,
            errno: Errno::BADF
        }
    );
    assert_eq!(err.to_string(), "AMDKFD_IOC_GET_VERSION failed: EBADF");
}

#[test]
fn every_wrapper_returns_ebadf_with_its_ioctl_name() {
    let kfd = Kfd::from_fd_unchecked(o_path_fd());
    let other = o_path_fd();
    let c = &mut BTreeSet::new();
    let gpu = 0x1002;

    expect_ebadf(c, "AMDKFD_IOC_GET_VERSION", None, kfd.get_version());

    // Real, live buffers for the addresses, though the kernel never reaches them.
    let mut ring = vec![0u64; 512];
    let mut ptrs = [0u64; 2];
    let desc = QueueDesc {
        gpu_id: gpu,
        queue_type: QueueType::ComputeAql,
        percentage: QueuePercentage::FULL,
        priority: QueuePriority::NORMAL,
        ring_base_address: ring.as_mut_ptr() as u64,
        ring_size: 4096,
        write_pointer_address: core::ptr::from_mut(&mut ptrs[0]) as u64,
        read_pointer_address: core::ptr::from_mut(&mut ptrs[1]) as u64,
        eop_buffer_address: 0,
        eop_buffer_size: 0,
        ctx_save_restore_address: 0,
        ctx_save_restore_size: 0,
        ctl_stack_size: 0,
        sdma_engine_id: 0,
    };
    // SAFETY: the descriptor is O_PATH, so the kernel fails the call with
    // EBADF before any queue exists; the buffers outlive the call anyway.
    expect_ebadf(c, "AMDKFD_IOC_CREATE_QUEUE", None, unsafe {
        kfd.create_queue(&desc)
    });
    expect_ebadf(c, "AMDKFD_IOC_DESTROY_QUEUE", None, kfd.destroy_queue(1));
    expect_ebadf(
        c,
        "AMDKFD_IOC_SET_MEMORY_POLICY",
        None,
        kfd.set_memory_policy(
            gpu,
            CachePolicy::Coherent,
            CachePolicy::NonCoherent,
            0,
            0,
            ProcessFlags::MFMA_HIGH_PRECISION,
        ),
    );
    expect_ebadf(
        c,
        "AMDKFD_IOC_GET_CLOCK_COUNTERS",
        None,
        kfd.get_clock_counters(gpu),
    );
    expect_ebadf(
        c,
        "AMDKFD_IOC_GET_PROCESS_APERTURES",
        None,
        kfd.get_process_apertures(),
    );
    // SAFETY: as for create_queue.
    let r = unsafe {
        kfd.update_queue(
            1,
            ring.as_mut_ptr() as u64,
            4096,
            QueuePercentage::FULL,
            QueuePriority::MAX,
        )
    };
    expect_ebadf(c, "AMDKFD_IOC_UPDATE_QUEUE", None, r);
    let ev = EventDesc {
        event_type: EventType::Signal,
        auto_reset: true,
        node_id: 0,
        event_page_handle: None,
    };
    expect_ebadf(c, "AMDKFD_IOC_CREATE_EVENT", None, kfd.create_event(&ev));
    expect_ebadf(c, "AMDKFD_IOC_DESTROY_EVENT", None, kfd.destroy_event(1));
    expect_ebadf(c, "AMDKFD_IOC_SET_EVENT", None, kfd.set_event(1));
    expect_ebadf(c, "AMDKFD_IOC_RESET_EVENT", None, kfd.reset_event(1));
    let mut events = [raw::EventData::new(1), raw::EventData::new(2)];
    expect_ebadf(
        c,
        "AMDKFD_IOC_WAIT_EVENTS",
        None,
        kfd.wait_events(&mut events, false, 10),
    );
    expect_ebadf(
        c,
        "AMDKFD_IOC_SET_SCRATCH_BACKING_VA",
        None,
        kfd.set_scratch_backing_va(gpu, 0x1000_0000),
    );
    let (mut tiles, mut macro_tiles) = ([0u32; 32], [0u32; 16]);
    expect_ebadf(
        c,
        "AMDKFD_IOC_GET_TILE_CONFIG",
        None,
        kfd.get_tile_config(gpu, &mut tiles, &mut macro_tiles),
    );
    expect_ebadf(
        c,
        "AMDKFD_IOC_SET_TRAP_HANDLER",
        None,
        kfd.set_trap_handler(gpu, 0x1000, 0x2000),
    );
    let mut apertures = [raw::ProcessDeviceApertures::default(); 4];
    expect_ebadf(
        c,
        "AMDKFD_IOC_GET_PROCESS_APERTURES_NEW",
        None,
        kfd.get_process_apertures_new(&mut apertures),
    );
    expect_ebadf(
        c,
        "AMDKFD_IOC_GET_PROCESS_APERTURES_NEW",
        None,
        kfd.process_apertures(),
    );
    expect_ebadf(
        c,
        "AMDKFD_IOC_ACQUIRE_VM",
        None,
        kfd.acquire_vm(other.as_fd(), gpu),
    );
    let flags = AllocMemFlags::VRAM | AllocMemFlags::WRITABLE | AllocMemFlags::CONTIGUOUS;
    expect_ebadf(
        c,
        "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU",
        None,
        kfd.alloc_memory_of_gpu(gpu, 0x10_0000, 4096, flags),
    );
    let mut host = vec![0u8; 4096];
    let host_ptr = core::ptr::NonNull::new(host.as_mut_ptr()).expect("vec pointer");
    // SAFETY: O_PATH descriptor: nothing is mapped for the GPU; `host` lives on anyway.
    let r = unsafe {
        kfd.alloc_userptr_memory_of_gpu(gpu, 0x20_0000, host_ptr, 4096, AllocMemFlags::WRITABLE)
    };
    expect_ebadf(c, "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU", None, r);
    expect_ebadf(
        c,
        "AMDKFD_IOC_FREE_MEMORY_OF_GPU",
        None,
        kfd.free_memory_of_gpu(7),
    );
    expect_ebadf(
        c,
        "AMDKFD_IOC_MAP_MEMORY_TO_GPU",
        None,
        kfd.map_memory_to_gpu(7, &[gpu, gpu + 1]),
    );
    expect_ebadf(
        c,
        "AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU",
        None,
        kfd.unmap_memory_from_gpu(7, &[gpu]),
    );
    expect_ebadf(
        c,
        "AMDKFD_IOC_SET_CU_MASK",
        None,
        kfd.set_cu_mask(1, &[u32::MAX, 0xff]),
    );
    let mut ctl_stack = vec![0u8; 4096];
    // SAFETY: O_PATH descriptor: nothing is copied; the buffer is large anyway.
    let r = unsafe { kfd.get_queue_wave_state(1, &mut ctl_stack) };
    expect_ebadf(c, "AMDKFD_IOC_GET_QUEUE_WAVE_STATE", None, r);
    let mut metadata = [0u8; 64];
    expect_ebadf(
        c,
        "AMDKFD_IOC_GET_DMABUF_INFO",
        None,
        kfd.get_dmabuf_info(other.as_fd(), &mut metadata),
    );
    expect_ebadf(
        c,
        "AMDKFD_IOC_IMPORT_DMABUF",
        None,
        kfd.import_dmabuf(other.as_fd(), gpu, 0x30_0000),
    );
    expect_ebadf(
        c,
        "AMDKFD_IOC_ALLOC_QUEUE_GWS",
        None,
        kfd.alloc_queue_gws(1, 1),
    );
    expect_ebadf(c, "AMDKFD_IOC_SMI_EVENTS", None, kfd.smi_events(gpu));
    let attrs = [
        raw::SvmAttribute::new(SvmAttrType::PreferredLoc, gpu),
        raw::SvmAttribute::new(SvmAttrType::SetFlags, SvmFlags::COHERENT.bits()),
        raw::SvmAttribute::new(SvmAttrType::Granularity, 9),
    ];
    expect_ebadf(
        c,
        "AMDKFD_IOC_SVM",
        Some("KFD_IOCTL_SVM_OP_SET_ATTR"),
        kfd.svm_set_attr(0x40_0000, 0x1000, &attrs),
    );
    let mut query = [raw::SvmAttribute::new(SvmAttrType::Access, gpu)];
    expect_ebadf(
        c,
        "AMDKFD_IOC_SVM",
        Some("KFD_IOCTL_SVM_OP_GET_ATTR"),
        kfd.svm_get_attr(0x40_0000, 0x1000, &mut query),
    );
    expect_ebadf(
        c,
        "AMDKFD_IOC_SET_XNACK_MODE",
        None,
        kfd.set_xnack_mode(XnackMode::Enabled),
    );
    expect_ebadf(c, "AMDKFD_IOC_SET_XNACK_MODE", None, kfd.xnack_mode());
    let crit = "AMDKFD_IOC_CRIU_OP";
    expect_ebadf(
        c,
        crit,
        Some("KFD_CRIU_OP_PROCESS_INFO"),
        kfd.criu_process_info(),
    );
    let mut devices = [raw::CriuDeviceBucket::default(); 2];
    let mut bos = [raw::CriuBoBucket::default(); 3];
    let mut priv_data = vec![0u8; 256];
    let r = kfd.criu_checkpoint(&mut devices, &mut bos, &mut priv_data, 4);
    expect_ebadf(c, crit, Some("KFD_CRIU_OP_CHECKPOINT"), r);
    expect_ebadf(c, crit, Some("KFD_CRIU_OP_UNPAUSE"), kfd.criu_unpause());
    let r = kfd.criu_restore(&mut devices, &mut bos, &mut priv_data, 4);
    expect_ebadf(c, crit, Some("KFD_CRIU_OP_RESTORE"), r);
    expect_ebadf(c, crit, Some("KFD_CRIU_OP_RESUME"), kfd.criu_resume(1234));
    expect_ebadf(
        c,
        "AMDKFD_IOC_AVAILABLE_MEMORY",
        None,
        kfd.available_memory(gpu),
    );
    expect_ebadf(c, "AMDKFD_IOC_EXPORT_DMABUF", None, kfd.export_dmabuf(7));
    let r_debug = 0x7000_0000;
    expect_ebadf(
        c,
        "AMDKFD_IOC_RUNTIME_ENABLE",
        None,
        kfd.runtime_enable(r_debug, RuntimeEnableMode::ENABLE),
    );

    let dbg = "AMDKFD_IOC_DBG_TRAP";
    let pid = std::process::id();
    let mut rinfo = raw::RuntimeInfo::default();
    let r = kfd.dbg_trap_enable(pid, u64::MAX, other.as_fd(), &mut rinfo);
    expect_ebadf(c, dbg, Some("KFD_IOC_DBG_TRAP_ENABLE"), r);
    expect_ebadf(
        c,
        dbg,
        Some("KFD_IOC_DBG_TRAP_DISABLE"),
        kfd.dbg_trap_disable(pid),
    );
    let r = kfd.dbg_trap_send_runtime_event(pid, ExceptionCode::ProcessRuntime.mask(), gpu, 0);
    expect_ebadf(c, dbg, Some("KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT"), r);
    let r = kfd.dbg_trap_set_exceptions_enabled(pid, consts::KFD_EC_MASK_QUEUE);
    expect_ebadf(c, dbg, Some("KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED"), r);
    let r = kfd.dbg_trap_set_wave_launch_override(
        pid,
        WaveLaunchOverrideMode::Or,
        DbgTrapMask::FP_INVALID,
        DbgTrapMask::all(),
    );
    expect_ebadf(c, dbg, Some("KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE"), r);
    let r = kfd.dbg_trap_set_wave_launch_mode(pid, WaveLaunchMode::Halt);
    expect_ebadf(c, dbg, Some("KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE"), r);
    let mut queue_ids = [1u32, 2, 3];
    let r = kfd.dbg_trap_suspend_queues(pid, &mut queue_ids, 100, 0);
    expect_ebadf(c, dbg, Some("KFD_IOC_DBG_TRAP_SUSPEND_QUEUES"), r);
    let r = kfd.dbg_trap_resume_queues(pid, &mut queue_ids);
    expect_ebadf(c, dbg, Some("KFD_IOC_DBG_TRAP_RESUME_QUEUES"), r);
    let r = kfd.dbg_trap_set_node_address_watch(pid, gpu, 0x5000, 0xfff, AddressWatchMode::All);
    expect_ebadf(c, dbg, Some("KFD_IOC_DBG_TRAP_SET_NODE_ADDRESS_WATCH"), r);
    let r = kfd.dbg_trap_clear_node_address_watch(pid, gpu, 0);
    expect_ebadf(c, dbg, Some("KFD_IOC_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH"), r);
    let r = kfd.dbg_trap_set_flags(pid, DbgTrapFlags::SINGLE_MEM_OP);
    expect_ebadf(c, dbg, Some("KFD_IOC_DBG_TRAP_SET_FLAGS"), r);
    let r = kfd.dbg_trap_query_debug_event(pid, 0);
    expect_ebadf(c, dbg, Some("KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT"), r);
    let mut info = [0u8; 64];
    let r = kfd.dbg_trap_query_exception_info(
        pid,
        gpu,
        ExceptionCode::DeviceMemoryViolation,
        false,
        &mut info,
    );
    expect_ebadf(c, dbg, Some("KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO"), r);
    let mut queues = [raw::QueueSnapshotEntry::default(); 4];
    let r = kfd.dbg_trap_get_queue_snapshot(pid, 0, &mut queues);
    expect_ebadf(c, dbg, Some("KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT"), r);
    let mut devs = [raw::DbgDeviceInfoEntry::default(); 2];
    let r = kfd.dbg_trap_get_device_snapshot(pid, 0, &mut devs);
    expect_ebadf(c, dbg, Some("KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT"), r);

    // The raw escape hatch goes through the same path.
    let mut args = raw::GetAvailableMemoryArgs::default();
    // SAFETY: the struct carries no user address.
    let r = unsafe { kfd.raw_ioctl(&AMDKFD_IOC_AVAILABLE_MEMORY, &mut args) };
    expect_ebadf(c, "AMDKFD_IOC_AVAILABLE_MEMORY", None, r);

    // Every descriptor in the table was exercised by at least one wrapper.
    let all: BTreeSet<&str> = ALL_IOCTLS.iter().map(|i| i.name).collect();
    assert_eq!(
        *c,
        all,
        "wrappers not exercised: {:?}",
        all.difference(c).collect::<Vec<_>>()
    );
}

#[test]
fn mappings_on_a_bad_fd_fail_with_ebadf() {
    let kfd = Kfd::from_fd_unchecked(o_path_fd());
    let err = kfd
        .map_doorbell_page(0x1_0000_0008, 8192)
        .expect_err("O_PATH fd cannot be mapped");
    assert_eq!(
        err,
        Error::Mmap {
            what: "doorbell page",
            errno: Errno::BADF
        }
    );
    let err = kfd
        .map_event_page(0x2_0000_0000)
        .expect_err("O_PATH fd cannot be mapped");
    assert_eq!(
        err,
        Error::Mmap {
            what: "event page",
            errno: Errno::BADF
        }
    );
    assert_eq!(
        err.to_string(),
        "mapping the event page of /dev/kfd failed: EBADF"
    );
}
