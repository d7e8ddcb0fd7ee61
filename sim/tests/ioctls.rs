//! The ioctls beyond the basic life cycle, each with success and the
//! failures `kfd_chardev.c` documents (function named in each test).

#![allow(unsafe_code)]

mod support;

use std::os::fd::AsFd;
use std::sync::atomic::Ordering;

use kfd::Kfd;
use kfd::ioctl::consts::*;
use kfd::ioctl::raw;
use kfd::ioctl::*;
use kfd::topology::Topology;
use rustix::io::Errno;
use sim::{Board, DeviceMemory, SimBuilder, SimDevice};
use support::*;

/// `kfd_ioctl_update_queue` + `pqm_update_queue_properties`.
#[test]
fn update_queue_checks_the_new_ring_and_moves_the_reference() {
    let c = Client::default();
    let q = Queue::no_scratch(&c, false);
    let update = |id, base, size, pct| {
        // SAFETY: any ring passed is a live buffer mapped to the GPU (or null).
        errno(unsafe {
            c.kfd.update_queue(
                id,
                base,
                size,
                QueuePercentage::new(pct).unwrap(),
                QueuePriority::NORMAL,
            )
        })
    };
    // Unknown queue: -EFAULT.
    assert_eq!(update(77, q.ring.va, 4096, 100), Some(Errno::FAULT));
    // A ring that is not a whole GPU mapping of ring_size bytes: -EFAULT.
    let big = c.buffer(8192);
    assert_eq!(
        update(q.info.queue_id, big.va, 4096, 100),
        Some(Errno::FAULT)
    );
    assert_eq!(
        update(q.info.queue_id, big.va + 4096, 4096, 100),
        Some(Errno::FAULT)
    );
    // Percentage above 100 (the raw request; the wrapper type refuses it).
    let mut a = raw::UpdateQueueArgs {
        ring_base_address: q.ring.va,
        queue_id: q.info.queue_id,
        ring_size: 4096,
        queue_percentage: 101,
        queue_priority: 0,
    };
    // SAFETY: `a` is an UpdateQueueArgs, the code's size.
    let r = unsafe {
        c.kfd
            .device()
            .ioctl_raw(AMDKFD_IOC_UPDATE_QUEUE.code(), (&raw mut a).cast())
    };
    assert_eq!(r, Err(Errno::INVAL));
    // A new ring: the old one becomes free to unmap, the new one is held.
    let ring2 = c.buffer(8192);
    assert_eq!(update(q.info.queue_id, ring2.va, 8192, 100), None);
    assert_eq!(
        errno(c.kfd.unmap_memory_from_gpu(ring2.handle, &[c.gpu_id])),
        Some(Errno::BUSY)
    );
    c.kfd
        .unmap_memory_from_gpu(q.ring.handle, &[c.gpu_id])
        .unwrap();
    // A null ring disables the queue: its wave state can be read.
    assert_eq!(update(q.info.queue_id, 0, 0, 100), None);
    let mut ctl = vec![0u8; 0x8000];
    // SAFETY: `ctl` covers the queue's control stack size (0x7000).
    let w = unsafe { c.kfd.get_queue_wave_state(q.info.queue_id, &mut ctl) }.unwrap();
    assert_eq!((w.ctl_stack_used_size, w.save_area_used_size), (0, 0));
}

/// `kfd_ioctl_set_cu_mask` + `pqm_update_mqd`, `kfd_ioctl_get_queue_wave_state`.
#[test]
fn cu_mask_and_wave_state() {
    let c = Client::default();
    let q = Queue::no_scratch(&c, false);
    c.kfd.set_cu_mask(q.info.queue_id, &[!0; 4]).unwrap();
    // More than 1024 bits: the driver keeps the first 1024.
    c.kfd.set_cu_mask(q.info.queue_id, &[!0; 40]).unwrap();
    assert_eq!(
        errno(c.kfd.set_cu_mask(99, &[1])),
        Some(Errno::FAULT),
        "unknown queue"
    );
    let raw_mask = |num, ptr| {
        let mut a = raw::SetCuMaskArgs {
            queue_id: q.info.queue_id,
            num_cu_mask: num,
            cu_mask_ptr: ptr,
        };
        // SAFETY: `a` is the code's struct; `ptr` is null or our array.
        unsafe {
            c.kfd
                .device()
                .ioctl_raw(AMDKFD_IOC_SET_CU_MASK.code(), (&raw mut a).cast())
        }
    };
    let words = [1u32; 2];
    assert_eq!(raw_mask(33, words.as_ptr() as u64), Err(Errno::INVAL));
    assert_eq!(raw_mask(0, words.as_ptr() as u64), Err(Errno::INVAL));
    assert_eq!(raw_mask(64, 0), Err(Errno::FAULT), "memdup_user of null");

    let mut ctl = vec![0u8; 0x8000];
    // SAFETY: `ctl` covers the control stack.
    let r = unsafe { c.kfd.get_queue_wave_state(q.info.queue_id, &mut ctl) };
    assert_eq!(errno(r), Some(Errno::INVAL), "an active queue");
    // SAFETY: as above.
    let r = unsafe { c.kfd.get_queue_wave_state(1234, &mut ctl) };
    assert_eq!(errno(r), Some(Errno::FAULT), "unknown queue");
}

/// `kfd_ioctl_reset_event` (`kfd_reset_event`), and set/wait around it.
#[test]
fn reset_event_clears_a_signaled_event() {
    let c = Client::default();
    let page = c.buffer(kfd::EVENT_PAGE_SIZE);
    let ev = c
        .kfd
        .create_event(&kfd::EventDesc {
            event_type: EventType::Signal,
            auto_reset: false,
            node_id: 0,
            event_page_handle: Some(page.handle),
        })
        .unwrap();
    let mut wait = [raw::EventData::new(ev.event_id)];
    c.kfd.set_event(ev.event_id).unwrap();
    assert_eq!(
        c.kfd.wait_events(&mut wait, false, 0).unwrap(),
        WaitResult::Complete
    );
    // Manual reset: still signaled until RESET_EVENT.
    assert_eq!(
        c.kfd.wait_events(&mut wait, false, 0).unwrap(),
        WaitResult::Complete
    );
    c.kfd.reset_event(ev.event_id).unwrap();
    assert_eq!(
        c.kfd.wait_events(&mut wait, false, 0).unwrap(),
        WaitResult::Timeout
    );
    assert_eq!(errno(c.kfd.reset_event(0x1234)), Some(Errno::INVAL));
}

/// `kfd_ioctl_set_memory_policy`, `kfd_ioctl_set_scratch_backing_va`,
/// `kfd_ioctl_set_trap_handler`: unknown GPU -EINVAL; a GPU whose VM was
/// not acquired fails `kfd_bind_process_to_device` (-ENODEV), which the
/// first and third turn into -ESRCH.
#[test]
fn per_gpu_settings_and_their_bind_errors() {
    let kfd = Kfd::with_device(SimDevice::default()).unwrap();
    let topo = Topology::read(kfd.device().topology().reader()).unwrap();
    let gpu = topo.gpus().next().unwrap();
    let g = gpu.gpu_id;
    let policy = |gpu| {
        errno(kfd.set_memory_policy(
            gpu,
            CachePolicy::Coherent,
            CachePolicy::NonCoherent,
            0,
            0,
            ProcessFlags::empty(),
        ))
    };
    assert_eq!(policy(g), Some(Errno::SRCH));
    assert_eq!(
        errno(kfd.set_trap_handler(g, 0x1000, 0x2000)),
        Some(Errno::SRCH)
    );
    assert_eq!(
        errno(kfd.set_scratch_backing_va(g, 0x1000)),
        Some(Errno::NODEV)
    );
    let node = kfd
        .open_render_node(gpu.properties.drm_render_minor)
        .unwrap();
    kfd.acquire_vm(node.as_fd(), g).unwrap();
    assert_eq!(policy(g), None);
    assert_eq!(policy(7), Some(Errno::INVAL));
    kfd.set_trap_handler(g, 0x1000, 0x2000).unwrap();
    assert_eq!(errno(kfd.set_trap_handler(7, 0, 0)), Some(Errno::INVAL));
    kfd.set_scratch_backing_va(g, 0x1000).unwrap();
    assert_eq!(errno(kfd.set_scratch_backing_va(7, 0)), Some(Errno::INVAL));
    // A policy that is neither coherent nor non-coherent.
    let mut a = raw::SetMemoryPolicyArgs {
        gpu_id: g,
        default_policy: 7,
        ..Default::default()
    };
    // SAFETY: `a` is the code's struct.
    let r = unsafe {
        kfd.device()
            .ioctl_raw(AMDKFD_IOC_SET_MEMORY_POLICY.code(), (&raw mut a).cast())
    };
    assert_eq!(r, Err(Errno::INVAL));
}

/// `kfd_ioctl_get_tile_config`: GFX9 has 32 + 16 (zero) entries; a failed
/// copy zeroes its count.
#[test]
fn tile_config() {
    let c = Client::default();
    let mut tiles = [7u32; 40];
    let mut macros = [7u32; 20];
    let t = c
        .kfd
        .get_tile_config(c.gpu_id, &mut tiles, &mut macros)
        .unwrap();
    assert_eq!((t.num_tile_configs, t.num_macro_tile_configs), (32, 16));
    assert_eq!(t.gb_addr_config, 0x2a11_4042);
    assert!(tiles[..32].iter().all(|v| *v == 0) && tiles[32] == 7);
    assert_eq!(
        errno(c.kfd.get_tile_config(9, &mut tiles, &mut macros)),
        Some(Errno::INVAL)
    );
    let mut a = raw::GetTileConfigArgs {
        gpu_id: c.gpu_id,
        num_tile_configs: 4,
        ..Default::default()
    };
    // SAFETY: the struct of the code; the null array is the point.
    let r = unsafe {
        c.kfd
            .device()
            .ioctl_raw(AMDKFD_IOC_GET_TILE_CONFIG.code(), (&raw mut a).cast())
    };
    assert_eq!(r, Err(Errno::FAULT));
    assert_eq!(a.num_tile_configs, 0);
}

/// `kfd_ioctl_svm`: alignment and non-zero checks, unmapped ranges
/// (`svm_range_is_valid` -> -EFAULT), attributes set then read back.
#[test]
fn svm_attributes_round_trip() {
    let c = Client::default();
    // SAFETY: a fresh anonymous mapping of ours.
    let va = unsafe {
        rustix::mm::mmap_anonymous(
            std::ptr::null_mut(),
            1 << 20,
            rustix::mm::ProtFlags::READ | rustix::mm::ProtFlags::WRITE,
            rustix::mm::MapFlags::PRIVATE,
        )
    }
    .unwrap() as u64;
    let at = |type_, value| raw::SvmAttribute { type_, value };
    assert_eq!(
        errno(c.kfd.svm_set_attr(va + 1, 4096, &[])),
        Some(Errno::INVAL)
    );
    assert_eq!(errno(c.kfd.svm_set_attr(va, 100, &[])), Some(Errno::INVAL));
    assert_eq!(errno(c.kfd.svm_set_attr(0, 4096, &[])), Some(Errno::INVAL));
    assert_eq!(
        errno(c.kfd.svm_set_attr(va, 4096, &[at(99, 0)])),
        Some(Errno::INVAL),
        "unknown attribute"
    );
    assert_eq!(
        errno(
            c.kfd
                .svm_set_attr(va, 4096, &[at(KFD_IOCTL_SVM_ATTR_ACCESS, 0xdead)])
        ),
        Some(Errno::INVAL),
        "unknown GPU"
    );
    c.kfd
        .svm_set_attr(
            va,
            1 << 20,
            &[
                at(KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, c.gpu_id),
                at(KFD_IOCTL_SVM_ATTR_ACCESS, c.gpu_id),
                at(KFD_IOCTL_SVM_ATTR_SET_FLAGS, KFD_IOCTL_SVM_FLAG_GPU_RO),
                at(KFD_IOCTL_SVM_ATTR_GRANULARITY, 4),
            ],
        )
        .unwrap();
    let mut q = [
        at(KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, 0),
        at(KFD_IOCTL_SVM_ATTR_ACCESS, c.gpu_id),
        at(KFD_IOCTL_SVM_ATTR_SET_FLAGS, 0),
        at(KFD_IOCTL_SVM_ATTR_GRANULARITY, 0),
    ];
    c.kfd.svm_get_attr(va, 1 << 20, &mut q).unwrap();
    assert_eq!(q[0].value, c.gpu_id);
    assert_eq!(q[1].type_, KFD_IOCTL_SVM_ATTR_ACCESS);
    assert_ne!(q[2].value & KFD_IOCTL_SVM_FLAG_GPU_RO, 0);
    assert_eq!(q[3].value, 4);
    // SAFETY: our mapping, no longer used.
    unsafe { rustix::mm::munmap(va as *mut _, 1 << 20) }.unwrap();
    assert_eq!(
        errno(c.kfd.svm_set_attr(va, 4096, &[])),
        Some(Errno::FAULT),
        "unmapped"
    );
}

/// Without XNACK an SVM range is mapped on the GPUs an `ACCESS` or
/// `ACCESS_IN_PLACE` attribute names, in place (the GPU reads and writes the
/// process's own pages at their address), and unmapped by `NO_ACCESS`.
#[test]
fn svm_access_maps_the_range_on_that_gpu() {
    let c = Client::default();
    let len = 2 * 4096;
    // SAFETY: a fresh anonymous mapping of ours.
    let va = unsafe {
        rustix::mm::mmap_anonymous(
            std::ptr::null_mut(),
            len,
            rustix::mm::ProtFlags::READ | rustix::mm::ProtFlags::WRITE,
            rustix::mm::MapFlags::PRIVATE,
        )
    }
    .unwrap() as u64;
    let at = |type_, value| raw::SvmAttribute { type_, value };
    let mem = c.kfd.device().gpu_memory(c.gpu_id).unwrap();
    c.kfd
        .svm_set_attr(va, len as u64, &[at(KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, 0)])
        .unwrap();
    assert!(!mem.is_mapped(va, 4), "no access attribute yet");
    c.kfd
        .svm_set_attr(va, len as u64, &[at(KFD_IOCTL_SVM_ATTR_ACCESS, c.gpu_id)])
        .unwrap();
    assert!(mem.is_mapped(va, len as u64));
    // SAFETY: our mapping.
    unsafe { ((va + 4100) as *mut u32).write_volatile(0x1234_5678) };
    assert_eq!(
        mem.load_u32(va + 4100, Ordering::Acquire).unwrap(),
        0x1234_5678
    );
    mem.store_u32(va + 8, 77, Ordering::Release).unwrap();
    // SAFETY: as above.
    assert_eq!(unsafe { ((va + 8) as *const u32).read_volatile() }, 77);
    // Setting access again is no change; NO_ACCESS unmaps.
    c.kfd
        .svm_set_attr(
            va,
            len as u64,
            &[at(KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE, c.gpu_id)],
        )
        .unwrap();
    assert!(mem.is_mapped(va, len as u64));
    c.kfd
        .svm_set_attr(
            va,
            len as u64,
            &[at(KFD_IOCTL_SVM_ATTR_NO_ACCESS, c.gpu_id)],
        )
        .unwrap();
    assert!(!mem.is_mapped(va, 4));
    // SAFETY: our mapping, no longer used.
    unsafe { rustix::mm::munmap(va as *mut _, len) }.unwrap();
}

/// `svm_range_set_attr` splits ranges where a set starts or ends inside
/// one; `svm_range_get_attr` folds the ranges a query overlaps (a location
/// only while all agree, flags the AND for SET_FLAGS and the complement of
/// the OR for CLR_FLAGS, the smallest granularity, access only where every
/// range gives it); granularity is clamped to 0x3f; a prefetch location is
/// recorded; query types other than ACCESS of the access family are EINVAL.
#[test]
fn svm_ranges_split_and_queries_fold_over_them() {
    let c = Client::default();
    let page = 4096u64;
    let len = 4 * page as usize;
    // SAFETY: a fresh anonymous mapping of ours.
    let va = unsafe {
        rustix::mm::mmap_anonymous(
            std::ptr::null_mut(),
            len,
            rustix::mm::ProtFlags::READ | rustix::mm::ProtFlags::WRITE,
            rustix::mm::MapFlags::PRIVATE,
        )
    }
    .unwrap() as u64;
    let at = |type_, value| raw::SvmAttribute { type_, value };
    let get = |start: u64, size: u64, q: &mut [raw::SvmAttribute]| {
        c.kfd.svm_get_attr(start, size, q).unwrap();
    };
    // Nothing set: the defaults (svm_range_set_default_attributes).
    let mut q = [
        at(KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, 0),
        at(KFD_IOCTL_SVM_ATTR_PREFETCH_LOC, 0),
        at(KFD_IOCTL_SVM_ATTR_SET_FLAGS, 0),
        at(KFD_IOCTL_SVM_ATTR_GRANULARITY, 0),
        at(KFD_IOCTL_SVM_ATTR_ACCESS, c.gpu_id),
    ];
    get(va, 4 * page, &mut q);
    assert_eq!(q[0].value, KFD_IOCTL_SVM_LOCATION_UNDEFINED);
    assert_eq!(q[1].value, KFD_IOCTL_SVM_LOCATION_UNDEFINED);
    assert_eq!(
        q[2].value,
        KFD_IOCTL_SVM_FLAG_HOST_ACCESS | KFD_IOCTL_SVM_FLAG_COHERENT
    );
    assert_eq!(q[3].value, 9);
    assert_eq!(q[4].type_, KFD_IOCTL_SVM_ATTR_NO_ACCESS);

    // Whole range: system memory preferred, granularity 100 -> 0x3f.
    c.kfd
        .svm_set_attr(
            va,
            4 * page,
            &[
                at(
                    KFD_IOCTL_SVM_ATTR_PREFERRED_LOC,
                    KFD_IOCTL_SVM_LOCATION_SYSMEM,
                ),
                at(KFD_IOCTL_SVM_ATTR_GRANULARITY, 100),
            ],
        )
        .unwrap();
    // Pages 1..3: the GPU preferred, read-mostly, access, granularity 4.
    c.kfd
        .svm_set_attr(
            va + page,
            2 * page,
            &[
                at(KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, c.gpu_id),
                at(
                    KFD_IOCTL_SVM_ATTR_SET_FLAGS,
                    KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY,
                ),
                at(KFD_IOCTL_SVM_ATTR_ACCESS, c.gpu_id),
                at(KFD_IOCTL_SVM_ATTR_GRANULARITY, 4),
            ],
        )
        .unwrap();
    let mem = c.kfd.device().gpu_memory(c.gpu_id).unwrap();
    assert!(!mem.is_mapped(va, 4), "page 0 has no access");
    assert!(mem.is_mapped(va + page, 2 * page), "pages 1..3 have");
    assert!(!mem.is_mapped(va + 3 * page, 4), "page 3 has none");

    // A query's ACCESS pair comes back retyped: each query starts anew.
    let query = || {
        [
            at(KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, 0),
            at(KFD_IOCTL_SVM_ATTR_SET_FLAGS, 0),
            at(KFD_IOCTL_SVM_ATTR_CLR_FLAGS, 0),
            at(KFD_IOCTL_SVM_ATTR_GRANULARITY, 0),
            at(KFD_IOCTL_SVM_ATTR_ACCESS, c.gpu_id),
        ]
    };
    let mut q = query();
    get(va + page, 2 * page, &mut q);
    assert_eq!(q[0].value, c.gpu_id);
    assert_ne!(q[1].value & KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY, 0);
    assert_eq!(q[1].value & q[2].value, 0);
    assert_eq!(q[3].value, 4);
    assert_eq!(q[4].type_, KFD_IOCTL_SVM_ATTR_ACCESS);
    let mut q = query();
    get(va, page, &mut q);
    assert_eq!(q[0].value, KFD_IOCTL_SVM_LOCATION_SYSMEM);
    assert_eq!(q[1].value & KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY, 0);
    assert_ne!(q[2].value & KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY, 0);
    assert_eq!(q[3].value, 0x3f, "clamped like svm_range_apply_attrs");
    assert_eq!(q[4].type_, KFD_IOCTL_SVM_ATTR_NO_ACCESS);
    // Across the split: mixed location -> undefined, read-mostly in neither
    // the AND nor the complement of the OR, the smaller granularity, access
    // only where every range has it.
    let mut q = query();
    get(va, 4 * page, &mut q);
    assert_eq!(q[0].value, KFD_IOCTL_SVM_LOCATION_UNDEFINED);
    assert_eq!(q[1].value & KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY, 0);
    assert_eq!(q[2].value & KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY, 0);
    assert_eq!(q[3].value, 4);
    assert_eq!(q[4].type_, KFD_IOCTL_SVM_ATTR_NO_ACCESS);

    // Splitting a mapped range keeps both halves mapped.
    c.kfd
        .svm_set_attr(
            va + 2 * page,
            page,
            &[at(KFD_IOCTL_SVM_ATTR_NO_ACCESS, c.gpu_id)],
        )
        .unwrap();
    assert!(mem.is_mapped(va + page, page));
    assert!(!mem.is_mapped(va + 2 * page, 4));

    // Prefetch: system memory or a GPU, recorded per range.
    c.kfd
        .svm_set_attr(
            va,
            2 * page,
            &[at(KFD_IOCTL_SVM_ATTR_PREFETCH_LOC, c.gpu_id)],
        )
        .unwrap();
    let mut p = [at(KFD_IOCTL_SVM_ATTR_PREFETCH_LOC, 0)];
    get(va, 2 * page, &mut p);
    assert_eq!(p[0].value, c.gpu_id);
    get(va, 4 * page, &mut p);
    assert_eq!(p[0].value, KFD_IOCTL_SVM_LOCATION_UNDEFINED);
    assert_eq!(
        errno(c.kfd.svm_set_attr(
            va,
            page,
            &[at(
                KFD_IOCTL_SVM_ATTR_PREFETCH_LOC,
                KFD_IOCTL_SVM_LOCATION_UNDEFINED
            )]
        )),
        Some(Errno::INVAL),
        "a prefetch needs a place"
    );
    for t in [
        KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE,
        KFD_IOCTL_SVM_ATTR_NO_ACCESS,
    ] {
        let mut q = [at(t, c.gpu_id)];
        assert_eq!(
            errno(c.kfd.svm_get_attr(va, page, &mut q)),
            Some(Errno::INVAL)
        );
    }
    let mut q = [at(KFD_IOCTL_SVM_ATTR_ACCESS, 0xdead)];
    assert_eq!(
        errno(c.kfd.svm_get_attr(va, page, &mut q)),
        Some(Errno::INVAL),
        "unknown GPU"
    );
    // Read-only for the GPU: the mapping refuses writes.
    c.kfd
        .svm_set_attr(
            va + page,
            page,
            &[at(KFD_IOCTL_SVM_ATTR_SET_FLAGS, KFD_IOCTL_SVM_FLAG_GPU_RO)],
        )
        .unwrap();
    assert!(mem.load_u32(va + page, Ordering::Acquire).is_ok());
    assert!(mem.store_u32(va + page, 1, Ordering::Release).is_err());
    // SAFETY: our mapping, no longer used.
    unsafe { rustix::mm::munmap(va as *mut _, len) }.unwrap();
}

/// With XNACK on, a new SVM range gives every GPU access
/// (`svm_range_new`): the GPU reaches it with no access attribute.
#[test]
fn with_xnack_a_new_svm_range_reaches_every_gpu() {
    let c = Client::default();
    c.kfd.set_xnack_mode(XnackMode::Enabled).unwrap();
    let len = 4096usize;
    // SAFETY: a fresh anonymous mapping of ours.
    let va = unsafe {
        rustix::mm::mmap_anonymous(
            std::ptr::null_mut(),
            len,
            rustix::mm::ProtFlags::READ | rustix::mm::ProtFlags::WRITE,
            rustix::mm::MapFlags::PRIVATE,
        )
    }
    .unwrap() as u64;
    let at = |type_, value| raw::SvmAttribute { type_, value };
    let mut q = [at(KFD_IOCTL_SVM_ATTR_ACCESS, c.gpu_id)];
    c.kfd.svm_get_attr(va, len as u64, &mut q).unwrap();
    assert_eq!(q[0].type_, KFD_IOCTL_SVM_ATTR_ACCESS);
    c.kfd
        .svm_set_attr(va, len as u64, &[at(KFD_IOCTL_SVM_ATTR_GRANULARITY, 0)])
        .unwrap();
    let mem = c.kfd.device().gpu_memory(c.gpu_id).unwrap();
    assert!(mem.is_mapped(va, len as u64));
    c.kfd
        .svm_set_attr(
            va,
            len as u64,
            &[at(KFD_IOCTL_SVM_ATTR_NO_ACCESS, c.gpu_id)],
        )
        .unwrap();
    assert!(!mem.is_mapped(va, 4));
    c.kfd.set_xnack_mode(XnackMode::Disabled).unwrap();
    // SAFETY: our mapping, no longer used.
    unsafe { rustix::mm::munmap(va as *mut _, len) }.unwrap();
}

/// `svm_range_restore_pages`: with XNACK on, a GPU access to a page of the
/// process that no SVM range covers faults it in (a new range every GPU
/// reaches) and retries; without XNACK, or where a range gives the GPU no
/// access, the fault stands.
#[test]
fn with_xnack_a_gpu_fault_on_plain_memory_maps_it() {
    let c = Client::default();
    let len = 3 * 4096usize;
    // SAFETY: a fresh anonymous mapping of ours.
    let va = unsafe {
        rustix::mm::mmap_anonymous(
            std::ptr::null_mut(),
            len,
            rustix::mm::ProtFlags::READ | rustix::mm::ProtFlags::WRITE,
            rustix::mm::MapFlags::PRIVATE,
        )
    }
    .unwrap() as u64;
    // SAFETY: our mapping.
    unsafe { ((va + 4104) as *mut u32).write_volatile(0xfeed) };
    let mem = c.kfd.device().gpu_memory(c.gpu_id).unwrap();
    assert!(
        mem.load_u32(va + 4104, Ordering::Acquire).is_err(),
        "no XNACK"
    );
    c.kfd.set_xnack_mode(XnackMode::Enabled).unwrap();
    assert_eq!(mem.load_u32(va + 4104, Ordering::Acquire).unwrap(), 0xfeed);
    assert!(mem.is_mapped(va + 4096, 4096), "the page");
    assert!(!mem.is_mapped(va, 4), "only the page");
    let at = |type_, value| raw::SvmAttribute { type_, value };
    let mut q = [at(KFD_IOCTL_SVM_ATTR_ACCESS, c.gpu_id)];
    c.kfd.svm_get_attr(va + 4096, 4096, &mut q).unwrap();
    assert_eq!(q[0].type_, KFD_IOCTL_SVM_ATTR_ACCESS, "a range now");
    // A range that denies the GPU: the fault stands.
    c.kfd
        .svm_set_attr(
            va + 2 * 4096,
            4096,
            &[at(KFD_IOCTL_SVM_ATTR_NO_ACCESS, c.gpu_id)],
        )
        .unwrap();
    assert!(mem.load_u32(va + 2 * 4096, Ordering::Acquire).is_err());
    c.kfd.set_xnack_mode(XnackMode::Disabled).unwrap();
    // SAFETY: our mapping, no longer used.
    unsafe { rustix::mm::munmap(va as *mut _, len) }.unwrap();
}

/// `kfd_ioctl_set_xnack_mode`, `kfd_ioctl_runtime_enable`: both refuse a
/// process that has queues (-EBUSY, -EEXIST).
#[test]
fn xnack_and_runtime_enable_refuse_a_process_with_queues() {
    let c = Client::default();
    assert_eq!(c.kfd.xnack_mode().unwrap(), XnackMode::Disabled);
    c.kfd.set_xnack_mode(XnackMode::Enabled).unwrap();
    assert_eq!(c.kfd.xnack_mode().unwrap(), XnackMode::Enabled);
    c.kfd.set_xnack_mode(XnackMode::Disabled).unwrap();
    c.kfd.runtime_enable(0, RuntimeEnableMode::ENABLE).unwrap();
    assert_eq!(
        errno(c.kfd.runtime_enable(0, RuntimeEnableMode::ENABLE)),
        Some(Errno::BUSY)
    );
    c.kfd.runtime_enable(0, RuntimeEnableMode::empty()).unwrap();
    let q = Queue::no_scratch(&c, false);
    assert_eq!(
        errno(c.kfd.set_xnack_mode(XnackMode::Enabled)),
        Some(Errno::BUSY)
    );
    assert_eq!(
        errno(c.kfd.runtime_enable(0, RuntimeEnableMode::ENABLE)),
        Some(Errno::EXIST)
    );
    c.kfd.destroy_queue(q.info.queue_id).unwrap();
    c.kfd.runtime_enable(0, RuntimeEnableMode::ENABLE).unwrap();
}

/// EXPORT_DMABUF, GET_DMABUF_INFO, IMPORT_DMABUF: the imported buffer is
/// the same memory at another GPU address.
#[test]
fn dmabuf_export_info_import() {
    let c = Client::default();
    let b = c.buffer(8192);
    let fd = c.kfd.export_dmabuf(b.handle).unwrap();
    let mut meta = [];
    let info = c.kfd.get_dmabuf_info(fd.as_fd(), &mut meta).unwrap();
    assert_eq!((info.size, info.gpu_id), (8192, c.gpu_id));
    assert!(info.flags.contains(AllocMemFlags::GTT));
    let va2 = 0x7000_0000_0000;
    let h = c.kfd.import_dmabuf(fd.as_fd(), c.gpu_id, va2).unwrap();
    c.kfd.map_memory_to_gpu(h, &[c.gpu_id]).unwrap();
    b.u32_at(100).store(0xfeed, Ordering::Release);
    let mem = c.kfd.device().gpu_memory(c.gpu_id).unwrap();
    use sim::DeviceMemory;
    assert_eq!(mem.load_u32(va2 + 100, Ordering::Acquire), Ok(0xfeed));

    assert_eq!(
        errno(c.kfd.export_dmabuf(b.handle | 0xfff)),
        Some(Errno::INVAL)
    );
    assert_eq!(
        errno(c.kfd.import_dmabuf(fd.as_fd(), 0x77, va2)),
        Some(Errno::INVAL),
        "unknown GPU"
    );
    // A descriptor that is no dma-buf, and one that is not open.
    let r = std::fs::File::open("/dev/null").unwrap();
    assert_eq!(
        errno(c.kfd.get_dmabuf_info(r.as_fd(), &mut meta)),
        Some(Errno::INVAL)
    );
    let mut a = raw::GetDmabufInfoArgs {
        dmabuf_fd: 999_999,
        ..Default::default()
    };
    // SAFETY: the code's struct.
    let e = unsafe {
        c.kfd
            .device()
            .ioctl_raw(AMDKFD_IOC_GET_DMABUF_INFO.code(), (&raw mut a).cast())
    };
    assert_eq!(e, Err(Errno::BADF));
    // amdgpu_gem_prime_export: a userptr BO is -EPERM.
    let mut host = vec![0u8; 8192 + 4096];
    let aligned = (host.as_mut_ptr() as u64).next_multiple_of(4096);
    // SAFETY: `host` outlives the BO, which we free below.
    let u = unsafe {
        c.kfd.alloc_userptr_memory_of_gpu(
            c.gpu_id,
            0x7100_0000_0000,
            std::ptr::NonNull::new(aligned as *mut u8).unwrap(),
            8192,
            AllocMemFlags::WRITABLE,
        )
    }
    .unwrap();
    assert_eq!(errno(c.kfd.export_dmabuf(u.handle)), Some(Errno::PERM));
    c.kfd.free_memory_of_gpu(u.handle).unwrap();
    drop(host);
}

/// `kfd_ioctl_smi_events`: a descriptor per open; unknown GPU -EINVAL.
#[test]
fn smi_events() {
    let c = Client::default();
    let fd = c.kfd.smi_events(c.gpu_id).unwrap();
    assert!(rustix::fs::fstat(fd.as_fd()).is_ok());
    assert_eq!(errno(c.kfd.smi_events(0x99)), Some(Errno::INVAL));
}

/// `kfd_ioctl_acquire_vm`: the driver does not check whose render node it
/// is given (`amdgpu_file_to_fpriv`), but a file whose VM already became
/// a compute VM for another GPU is -EINVAL.
#[test]
fn acquire_vm_across_gpus() {
    let kfd = Kfd::with_device(SimBuilder::new().board(Board::Mi250x).build()).unwrap();
    let topo = Topology::read(kfd.device().topology().reader()).unwrap();
    let g: Vec<_> = topo.gpus().collect();
    assert_eq!(g.len(), 2);
    let n0 = kfd
        .open_render_node(g[0].properties.drm_render_minor)
        .unwrap();
    let n0b = kfd
        .open_render_node(g[0].properties.drm_render_minor)
        .unwrap();
    kfd.acquire_vm(n0.as_fd(), g[0].gpu_id).unwrap();
    assert_eq!(
        errno(kfd.acquire_vm(n0.as_fd(), g[1].gpu_id)),
        Some(Errno::INVAL),
        "already a compute VM"
    );
    kfd.acquire_vm(n0b.as_fd(), g[1].gpu_id)
        .expect("a fresh file of another GPU's node is accepted, as by amdkfd");
}

/// `kfd_mmap`: doorbell and MMIO offsets of an unknown GPU are -ENODEV.
#[test]
fn mmap_of_an_unknown_gpu_is_enodev() {
    let c = Client::default();
    let doorbell = KFD_MMAP_TYPE_DOORBELL_OFFSET | (0x77 << 46);
    assert_eq!(
        errno(c.kfd.map(doorbell, 8192, "doorbell")),
        Some(Errno::NODEV)
    );
    let mmio = 0x77 << 46;
    assert_eq!(errno(c.kfd.map(mmio, 4096, "mmio")), Some(Errno::NODEV));
}

const KFD_MMAP_TYPE_DOORBELL_OFFSET: u64 = 0x3 << 62;

/// `kfd_queue_acquire_buffers`: each buffer must be a whole GPU mapping of
/// the size the driver expects; compute queues need the node's control
/// stack and CWSR sizes and a CWSR area.
#[test]
fn create_queue_checks_every_buffer_like_kfd_queue_acquire_buffers() {
    let c = Client::default();
    let ring = c.buffer(4096);
    let amd = c.buffer(4096);
    let eop = c.buffer(4096);
    let (ctl, cwsr_size, area) = c.kfd.device().cwsr_sizes(c.gpu_id).unwrap();
    let cwsr = c.buffer(area as usize);
    let two_pages = c.buffer(8192);
    let good = kfd::QueueDesc {
        gpu_id: c.gpu_id,
        queue_type: QueueType::ComputeAql,
        percentage: QueuePercentage::FULL,
        priority: QueuePriority::NORMAL,
        ring_base_address: ring.va,
        ring_size: 4096,
        write_pointer_address: amd.va + 56,
        read_pointer_address: amd.va + 128,
        eop_buffer_address: eop.va,
        eop_buffer_size: 4096,
        ctx_save_restore_address: cwsr.va,
        ctx_save_restore_size: cwsr_size,
        ctl_stack_size: ctl,
        sdma_engine_id: 0,
    };
    let create = |d: kfd::QueueDesc| {
        // SAFETY: every address is a live buffer (or refused by the sim).
        unsafe { c.kfd.create_queue(&d) }
    };
    let bad: [(&str, kfd::QueueDesc); 9] = [
        (
            "wptr in a two-page BO",
            kfd::QueueDesc {
                write_pointer_address: two_pages.va + 56,
                ..good
            },
        ),
        (
            "rptr not mapped",
            kfd::QueueDesc {
                read_pointer_address: 0x5000_0000,
                ..good
            },
        ),
        (
            "ring smaller than its BO",
            kfd::QueueDesc {
                ring_base_address: two_pages.va,
                ..good
            },
        ),
        (
            "ring inside a BO",
            kfd::QueueDesc {
                ring_base_address: cwsr.va + 4096,
                ..good
            },
        ),
        (
            "EOP size",
            kfd::QueueDesc {
                eop_buffer_size: 8192,
                ..good
            },
        ),
        (
            "control stack size",
            kfd::QueueDesc {
                ctl_stack_size: ctl + 4096,
                ..good
            },
        ),
        (
            "CWSR size",
            kfd::QueueDesc {
                ctx_save_restore_size: cwsr_size - 4096,
                ..good
            },
        ),
        (
            "no CWSR area",
            kfd::QueueDesc {
                ctx_save_restore_address: 0,
                ..good
            },
        ),
        (
            "CWSR area too small",
            kfd::QueueDesc {
                ctx_save_restore_address: two_pages.va,
                ..good
            },
        ),
    ];
    for (what, d) in bad {
        assert_eq!(errno(create(d)), Some(Errno::INVAL), "{what}");
    }
    assert_eq!(
        errno(create(kfd::QueueDesc {
            gpu_id: 0x99,
            ..good
        })),
        Some(Errno::INVAL),
        "unknown GPU"
    );
    let q = create(good).unwrap();
    // An SDMA queue needs no EOP or CWSR.
    let sdma_ring = c.buffer(4096);
    let sdma_ptrs = c.buffer(4096);
    let s = create(kfd::QueueDesc {
        queue_type: QueueType::Sdma,
        ring_base_address: sdma_ring.va,
        write_pointer_address: sdma_ptrs.va,
        read_pointer_address: sdma_ptrs.va + 8,
        eop_buffer_address: 0,
        ctx_save_restore_address: 0,
        ctx_save_restore_size: 0,
        ctl_stack_size: 0,
        ..good
    })
    .unwrap();
    assert_ne!(q.queue_id, s.queue_id);
    // A mapped BO cannot be freed (amdgpu_amdkfd_gpuvm_free_memory_of_gpu).
    assert_eq!(
        errno(c.kfd.free_memory_of_gpu(two_pages.handle)),
        Some(Errno::BUSY)
    );
    c.release(two_pages);
}
