//! ABI parity of the `kfd` crate with the kernel's `linux/kfd_ioctl.h`.
//!
//! The system header (Debian's `linux-libc-dev`) is KFD **1.11**. A C probe
//! compiled against it reports every struct's size, alignment and each
//! field's offset and size, every `AMDKFD_IOC_*` request code and every
//! constant; all are compared with the Rust mirror, which follows upstream
//! **1.18**. Where 1.18 differs from 1.11 (two fields appended to
//! `kfd_ioctl_create_queue_args`, a renamed pad, newer ioctls and
//! constants), the test says so and checks the difference exactly; what
//! 1.11 lacks is checked by compile-time asserts at the end of this file,
//! derived from the upstream header at 1.18.

#![allow(unsafe_code)] // One `set_var` before the probes, see `probe_env`.

use std::path::PathBuf;
use std::sync::Once;

use kfd::ioctl::consts::*;
use kfd::ioctl::raw::*;
use kfd::ioctl::*;
use tests::{
    StructLayout, compare_constants, compare_layouts, layout, require_header, run_c_probe,
};

const HEADER: &str = "/usr/include/linux/kfd_ioctl.h";
const INCLUDES: &[&str] = &["linux/kfd_ioctl.h"];

/// Debian ships `linux/kfd_ioctl.h` without the `drm/drm.h` it includes
/// (libdrm-dev has it as `libdrm/drm.h`, a path the header does not use).
/// `kfd_ioctl.h` needs nothing from it but the `__u32`/`__u64`/`__s32`
/// types of `<linux/types.h>` and the `_IOC` macros of `<linux/ioctl.h>`,
/// which the real `drm.h` includes; the probe gets a `drm/drm.h` that
/// includes exactly those two, through `CPATH`.
fn probe_env() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        require_header(HEADER, "linux-libc-dev");
        let dir: PathBuf =
            std::env::temp_dir().join(format!("rocr-rs-kfd-abi-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("drm")).expect("create stub include dir");
        std::fs::write(
            dir.join("drm/drm.h"),
            "#include <linux/types.h>\n#include <linux/ioctl.h>\n",
        )
        .expect("write drm/drm.h stub");
        // SAFETY: runs once, before any probe starts a compiler; the only
        // other readers of the environment in this binary go through std,
        // which serialises them with `set_var`.
        unsafe { std::env::set_var("CPATH", &dir) };
    });
}

fn assert_no_errors(what: &str, errors: &[String]) {
    assert!(
        errors.is_empty(),
        "{what}: {} mismatches:\n{}",
        errors.len(),
        errors.join("\n")
    );
}

/// The structs whose 1.11 layout is the 1.18 layout.
fn unchanged_layouts() -> Vec<StructLayout> {
    vec![
        layout!("struct kfd_ioctl_get_version_args", GetVersionArgs {
            major_version => "major_version", minor_version => "minor_version",
        }),
        layout!("struct kfd_ioctl_destroy_queue_args", DestroyQueueArgs { queue_id => "queue_id", pad => "pad" }),
        layout!("struct kfd_ioctl_update_queue_args", UpdateQueueArgs {
            ring_base_address => "ring_base_address", queue_id => "queue_id", ring_size => "ring_size",
            queue_percentage => "queue_percentage", queue_priority => "queue_priority",
        }),
        layout!("struct kfd_ioctl_set_cu_mask_args", SetCuMaskArgs {
            queue_id => "queue_id", num_cu_mask => "num_cu_mask", cu_mask_ptr => "cu_mask_ptr",
        }),
        layout!("struct kfd_ioctl_get_queue_wave_state_args", GetQueueWaveStateArgs {
            ctl_stack_address => "ctl_stack_address", ctl_stack_used_size => "ctl_stack_used_size",
            save_area_used_size => "save_area_used_size", queue_id => "queue_id", pad => "pad",
        }),
        layout!("struct kfd_ioctl_get_available_memory_args", GetAvailableMemoryArgs {
            available => "available", gpu_id => "gpu_id", pad => "pad",
        }),
        // 1.18 renamed `pad` to `misc_process_flag`; same place, same size.
        layout!("struct kfd_ioctl_set_memory_policy_args", SetMemoryPolicyArgs {
            alternate_aperture_base => "alternate_aperture_base",
            alternate_aperture_size => "alternate_aperture_size",
            gpu_id => "gpu_id", default_policy => "default_policy",
            alternate_policy => "alternate_policy", misc_process_flag => "pad",
        }),
        layout!("struct kfd_ioctl_get_clock_counters_args", GetClockCountersArgs {
            gpu_clock_counter => "gpu_clock_counter", cpu_clock_counter => "cpu_clock_counter",
            system_clock_counter => "system_clock_counter", system_clock_freq => "system_clock_freq",
            gpu_id => "gpu_id", pad => "pad",
        }),
        layout!("struct kfd_process_device_apertures", ProcessDeviceApertures {
            lds_base => "lds_base", lds_limit => "lds_limit", scratch_base => "scratch_base",
            scratch_limit => "scratch_limit", gpuvm_base => "gpuvm_base", gpuvm_limit => "gpuvm_limit",
            gpu_id => "gpu_id", pad => "pad",
        }),
        layout!("struct kfd_ioctl_get_process_apertures_args", GetProcessAperturesArgs {
            process_apertures => "process_apertures", num_of_nodes => "num_of_nodes", pad => "pad",
        }),
        layout!("struct kfd_ioctl_get_process_apertures_new_args", GetProcessAperturesNewArgs {
            kfd_process_device_apertures_ptr => "kfd_process_device_apertures_ptr",
            num_of_nodes => "num_of_nodes", pad => "pad",
        }),
        layout!("struct kfd_ioctl_dbg_register_args", DbgRegisterArgs { gpu_id => "gpu_id", pad => "pad" }),
        layout!("struct kfd_ioctl_dbg_unregister_args", DbgUnregisterArgs { gpu_id => "gpu_id", pad => "pad" }),
        layout!("struct kfd_ioctl_dbg_address_watch_args", DbgAddressWatchArgs {
            content_ptr => "content_ptr", gpu_id => "gpu_id", buf_size_in_bytes => "buf_size_in_bytes",
        }),
        layout!("struct kfd_ioctl_dbg_wave_control_args", DbgWaveControlArgs {
            content_ptr => "content_ptr", gpu_id => "gpu_id", buf_size_in_bytes => "buf_size_in_bytes",
        }),
        layout!("struct kfd_ioctl_create_event_args", CreateEventArgs {
            event_page_offset => "event_page_offset", event_trigger_data => "event_trigger_data",
            event_type => "event_type", auto_reset => "auto_reset", node_id => "node_id",
            event_id => "event_id", event_slot_index => "event_slot_index",
        }),
        layout!("struct kfd_ioctl_destroy_event_args", DestroyEventArgs { event_id => "event_id", pad => "pad" }),
        layout!("struct kfd_ioctl_set_event_args", SetEventArgs { event_id => "event_id", pad => "pad" }),
        layout!("struct kfd_ioctl_reset_event_args", ResetEventArgs { event_id => "event_id", pad => "pad" }),
        layout!("struct kfd_memory_exception_failure", MemoryExceptionFailure {
            not_present => "NotPresent", read_only => "ReadOnly", no_execute => "NoExecute",
            imprecise => "imprecise",
        }),
        layout!("struct kfd_hsa_memory_exception_data", HsaMemoryExceptionData {
            failure => "failure", va => "va", gpu_id => "gpu_id", error_type => "ErrorType",
        }),
        layout!("struct kfd_hsa_hw_exception_data", HsaHwExceptionData {
            reset_type => "reset_type", reset_cause => "reset_cause", memory_lost => "memory_lost",
            gpu_id => "gpu_id",
        }),
        // The anonymous union is reached through its largest member.
        layout!("struct kfd_event_data", EventData {
            payload => "memory_exception_data", kfd_event_data_ext => "kfd_event_data_ext",
            event_id => "event_id", pad => "pad",
        }),
        layout!("struct kfd_ioctl_wait_events_args", WaitEventsArgs {
            events_ptr => "events_ptr", num_events => "num_events", wait_for_all => "wait_for_all",
            timeout => "timeout", wait_result => "wait_result",
        }),
        layout!("struct kfd_ioctl_set_scratch_backing_va_args", SetScratchBackingVaArgs {
            va_addr => "va_addr", gpu_id => "gpu_id", pad => "pad",
        }),
        layout!("struct kfd_ioctl_get_tile_config_args", GetTileConfigArgs {
            tile_config_ptr => "tile_config_ptr", macro_tile_config_ptr => "macro_tile_config_ptr",
            num_tile_configs => "num_tile_configs", num_macro_tile_configs => "num_macro_tile_configs",
            gpu_id => "gpu_id", gb_addr_config => "gb_addr_config", num_banks => "num_banks",
            num_ranks => "num_ranks",
        }),
        layout!("struct kfd_ioctl_set_trap_handler_args", SetTrapHandlerArgs {
            tba_addr => "tba_addr", tma_addr => "tma_addr", gpu_id => "gpu_id", pad => "pad",
        }),
        layout!("struct kfd_ioctl_acquire_vm_args", AcquireVmArgs { drm_fd => "drm_fd", gpu_id => "gpu_id" }),
        layout!("struct kfd_ioctl_alloc_memory_of_gpu_args", AllocMemoryOfGpuArgs {
            va_addr => "va_addr", size => "size", handle => "handle", mmap_offset => "mmap_offset",
            gpu_id => "gpu_id", flags => "flags",
        }),
        layout!("struct kfd_ioctl_free_memory_of_gpu_args", FreeMemoryOfGpuArgs { handle => "handle" }),
        layout!("struct kfd_ioctl_map_memory_to_gpu_args", MapMemoryToGpuArgs {
            handle => "handle", device_ids_array_ptr => "device_ids_array_ptr",
            n_devices => "n_devices", n_success => "n_success",
        }),
        layout!("struct kfd_ioctl_unmap_memory_from_gpu_args", UnmapMemoryFromGpuArgs {
            handle => "handle", device_ids_array_ptr => "device_ids_array_ptr",
            n_devices => "n_devices", n_success => "n_success",
        }),
        layout!("struct kfd_ioctl_alloc_queue_gws_args", AllocQueueGwsArgs {
            queue_id => "queue_id", num_gws => "num_gws", first_gws => "first_gws", pad => "pad",
        }),
        layout!("struct kfd_ioctl_get_dmabuf_info_args", GetDmabufInfoArgs {
            size => "size", metadata_ptr => "metadata_ptr", metadata_size => "metadata_size",
            gpu_id => "gpu_id", flags => "flags", dmabuf_fd => "dmabuf_fd",
        }),
        layout!("struct kfd_ioctl_import_dmabuf_args", ImportDmabufArgs {
            va_addr => "va_addr", handle => "handle", gpu_id => "gpu_id", dmabuf_fd => "dmabuf_fd",
        }),
        layout!("struct kfd_ioctl_smi_events_args", SmiEventsArgs { gpuid => "gpuid", anon_fd => "anon_fd" }),
        layout!("struct kfd_criu_device_bucket", CriuDeviceBucket {
            user_gpu_id => "user_gpu_id", actual_gpu_id => "actual_gpu_id", drm_fd => "drm_fd", pad => "pad",
        }),
        layout!("struct kfd_criu_bo_bucket", CriuBoBucket {
            addr => "addr", size => "size", offset => "offset", restored_offset => "restored_offset",
            gpu_id => "gpu_id", alloc_flags => "alloc_flags", dmabuf_fd => "dmabuf_fd", pad => "pad",
        }),
        layout!("struct kfd_ioctl_svm_attribute", SvmAttribute { type_ => "type", value => "value" }),
        // `attrs[]`, the flexible array member, adds no bytes (and C cannot
        // take its size); the tiling check still covers every byte.
        layout!("struct kfd_ioctl_svm_args", SvmArgs {
            start_addr => "start_addr", size => "size", op => "op", nattr => "nattr",
        }),
        layout!("struct kfd_ioctl_set_xnack_mode_args", SetXnackModeArgs { xnack_enabled => "xnack_enabled" }),
    ]
}

#[test]
fn struct_layouts_match_the_system_header() {
    probe_env();
    assert_no_errors(
        "kfd_ioctl.h layouts",
        &compare_layouts("kfd_layouts", INCLUDES, &unchanged_layouts()),
    );
}

#[test]
fn grown_and_padded_structs_differ_from_1_11_exactly_as_upstream_says() {
    probe_env();
    let sizes = run_c_probe(
        "kfd_sizes",
        "#include <stdio.h>\n#include <linux/kfd_ioctl.h>\nint main(void) {\n\
         printf(\"create_queue %lld\\n\", (long long)sizeof(struct kfd_ioctl_create_queue_args));\n\
         printf(\"criu %lld\\n\", (long long)sizeof(struct kfd_ioctl_criu_args));\n\
         return 0;\n}\n",
    );

    // KFD 1.17 appended `sdma_engine_id` and `pad` to the 1.11 struct: every
    // 1.11 field is where C has it, and the two new ones start at C's end.
    let c_size = sizes["create_queue"];
    let cq = layout!("struct kfd_ioctl_create_queue_args", CreateQueueArgs {
        ring_base_address => "ring_base_address", write_pointer_address => "write_pointer_address",
        read_pointer_address => "read_pointer_address", doorbell_offset => "doorbell_offset",
        ring_size => "ring_size", gpu_id => "gpu_id", queue_type => "queue_type",
        queue_percentage => "queue_percentage", queue_priority => "queue_priority", queue_id => "queue_id",
        eop_buffer_address => "eop_buffer_address", eop_buffer_size => "eop_buffer_size",
        ctx_save_restore_address => "ctx_save_restore_address",
        ctx_save_restore_size => "ctx_save_restore_size", ctl_stack_size => "ctl_stack_size",
    });
    let rust_size = core::mem::size_of::<CreateQueueArgs>();
    let errors = compare_layouts("kfd_create_queue", INCLUDES, &[cq]);
    assert_eq!(
        errors,
        vec![format!(
            "struct kfd_ioctl_create_queue_args: size C {c_size} != Rust {rust_size}"
        )]
    );
    assert_eq!(
        core::mem::offset_of!(CreateQueueArgs, sdma_engine_id) as i128,
        c_size
    );
    assert_eq!(
        core::mem::offset_of!(CreateQueueArgs, pad) as i128,
        c_size + 4
    );
    assert_eq!(rust_size as i128, c_size + 8);

    // C pads `kfd_ioctl_criu_args` after `op`; the mirror names that tail
    // `tail_padding`, which C has no name for.
    let criu = layout!("struct kfd_ioctl_criu_args", CriuArgs {
        devices => "devices", bos => "bos", priv_data => "priv_data", priv_data_size => "priv_data_size",
        num_devices => "num_devices", num_bos => "num_bos", num_objects => "num_objects", pid => "pid",
        op => "op",
    });
    let tail = core::mem::offset_of!(CriuArgs, tail_padding);
    let c_criu = sizes["criu"];
    let errors = compare_layouts("kfd_criu", INCLUDES, &[criu]);
    assert_eq!(
        errors,
        vec![format!(
            "struct kfd_ioctl_criu_args: bytes {tail}..{c_criu} belong to no listed field"
        )]
    );
    assert_eq!(core::mem::size_of::<CriuArgs>() as i128, c_criu);
}

#[test]
fn request_codes_match_the_system_header() {
    probe_env();
    // Every descriptor up to 1.11's last ioctl (0x23) exists in the header.
    let in_1_11: Vec<&IoctlInfo> = ALL_IOCTLS.iter().filter(|i| i.nr < 0x24).collect();
    assert_eq!(
        in_1_11.len(),
        0x23 - 4,
        "0x01..=0x23 minus the 4 deprecated debugger ioctls"
    );
    let mut consts: Vec<(String, i128)> = Vec::new();
    for info in &in_1_11 {
        let n = info.name;
        let dir = match info.direction {
            Direction::Write => 1,
            Direction::Read => 2,
            Direction::ReadWrite => 3,
        };
        consts.push((format!("_IOC_DIR({n})"), dir));
        consts.push((format!("_IOC_TYPE({n})"), i128::from(b'K')));
        consts.push((format!("_IOC_NR({n})"), i128::from(info.nr)));
        if n == "AMDKFD_IOC_CREATE_QUEUE" {
            // The size field encodes the (grown) struct size, checked above;
            // the driver dispatches on the number and accepts both sizes.
            consts.push((format!("_IOC_SIZE({n}) + 8"), info.arg_size as i128));
        } else {
            consts.push((format!("_IOC_SIZE({n})"), info.arg_size as i128));
            consts.push((n.to_owned(), i128::from(info.code)));
        }
    }
    let refs: Vec<(&str, i128)> = consts.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_no_errors(
        "request codes",
        &compare_constants("kfd_codes", INCLUDES, &refs),
    );
}

#[test]
fn constants_match_the_system_header() {
    probe_env();
    macro_rules! c {
        ($($name:ident),* $(,)?) => { vec![$((concat!("(__u32)(", stringify!($name), ")"), i128::from($name))),*] };
    }
    let mut list: Vec<(&str, i128)> = c![
        KFD_IOCTL_MAJOR_VERSION,
        KFD_IOC_QUEUE_TYPE_COMPUTE,
        KFD_IOC_QUEUE_TYPE_SDMA,
        KFD_IOC_QUEUE_TYPE_COMPUTE_AQL,
        KFD_IOC_QUEUE_TYPE_SDMA_XGMI,
        KFD_MAX_QUEUE_PERCENTAGE,
        KFD_MAX_QUEUE_PRIORITY,
        KFD_MIN_QUEUE_RING_SIZE,
        KFD_IOC_CACHE_POLICY_COHERENT,
        KFD_IOC_CACHE_POLICY_NONCOHERENT,
        NUM_OF_SUPPORTED_GPUS,
        KFD_INVALID_FD,
        KFD_IOC_EVENT_SIGNAL,
        KFD_IOC_EVENT_NODECHANGE,
        KFD_IOC_EVENT_DEVICESTATECHANGE,
        KFD_IOC_EVENT_HW_EXCEPTION,
        KFD_IOC_EVENT_SYSTEM_EVENT,
        KFD_IOC_EVENT_DEBUG_EVENT,
        KFD_IOC_EVENT_PROFILE_EVENT,
        KFD_IOC_EVENT_QUEUE_EVENT,
        KFD_IOC_EVENT_MEMORY,
        KFD_IOC_WAIT_RESULT_COMPLETE,
        KFD_IOC_WAIT_RESULT_TIMEOUT,
        KFD_IOC_WAIT_RESULT_FAIL,
        KFD_SIGNAL_EVENT_LIMIT,
        KFD_HW_EXCEPTION_WHOLE_GPU_RESET,
        KFD_HW_EXCEPTION_PER_ENGINE_RESET,
        KFD_HW_EXCEPTION_GPU_HANG,
        KFD_HW_EXCEPTION_ECC,
        KFD_MEM_ERR_NO_RAS,
        KFD_MEM_ERR_SRAM_ECC,
        KFD_MEM_ERR_POISON_CONSUMED,
        KFD_MEM_ERR_GPU_HANG,
        KFD_IOC_ALLOC_MEM_FLAGS_VRAM,
        KFD_IOC_ALLOC_MEM_FLAGS_GTT,
        KFD_IOC_ALLOC_MEM_FLAGS_USERPTR,
        KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL,
        KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP,
        KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE,
        KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE,
        KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC,
        KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE,
        KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM,
        KFD_IOC_ALLOC_MEM_FLAGS_COHERENT,
        KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED,
        KFD_SMI_EVENT_NONE,
        KFD_SMI_EVENT_VMFAULT,
        KFD_SMI_EVENT_THERMAL_THROTTLE,
        KFD_SMI_EVENT_GPU_PRE_RESET,
        KFD_SMI_EVENT_GPU_POST_RESET,
        KFD_SMI_EVENT_MIGRATE_START,
        KFD_SMI_EVENT_MIGRATE_END,
        KFD_SMI_EVENT_PAGE_FAULT_START,
        KFD_SMI_EVENT_PAGE_FAULT_END,
        KFD_SMI_EVENT_QUEUE_EVICTION,
        KFD_SMI_EVENT_QUEUE_RESTORE,
        KFD_SMI_EVENT_UNMAP_FROM_GPU,
        KFD_SMI_EVENT_ALL_PROCESS,
        KFD_MIGRATE_TRIGGER_PREFETCH,
        KFD_MIGRATE_TRIGGER_PAGEFAULT_GPU,
        KFD_MIGRATE_TRIGGER_PAGEFAULT_CPU,
        KFD_MIGRATE_TRIGGER_TTM_EVICTION,
        KFD_QUEUE_EVICTION_TRIGGER_SVM,
        KFD_QUEUE_EVICTION_TRIGGER_USERPTR,
        KFD_QUEUE_EVICTION_TRIGGER_TTM,
        KFD_QUEUE_EVICTION_TRIGGER_SUSPEND,
        KFD_QUEUE_EVICTION_CRIU_CHECKPOINT,
        KFD_QUEUE_EVICTION_CRIU_RESTORE,
        KFD_SVM_UNMAP_TRIGGER_MMU_NOTIFY,
        KFD_SVM_UNMAP_TRIGGER_MMU_NOTIFY_MIGRATE,
        KFD_SVM_UNMAP_TRIGGER_UNMAP_FROM_CPU,
        KFD_SMI_EVENT_MSG_SIZE,
        KFD_CRIU_OP_PROCESS_INFO,
        KFD_CRIU_OP_CHECKPOINT,
        KFD_CRIU_OP_UNPAUSE,
        KFD_CRIU_OP_RESTORE,
        KFD_CRIU_OP_RESUME,
        KFD_MMIO_REMAP_HDP_MEM_FLUSH_CNTL,
        KFD_MMIO_REMAP_HDP_REG_FLUSH_CNTL,
        KFD_IOCTL_SVM_FLAG_HOST_ACCESS,
        KFD_IOCTL_SVM_FLAG_COHERENT,
        KFD_IOCTL_SVM_FLAG_HIVE_LOCAL,
        KFD_IOCTL_SVM_FLAG_GPU_RO,
        KFD_IOCTL_SVM_FLAG_GPU_EXEC,
        KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY,
        KFD_IOCTL_SVM_FLAG_GPU_ALWAYS_MAPPED,
        KFD_IOCTL_SVM_OP_SET_ATTR,
        KFD_IOCTL_SVM_OP_GET_ATTR,
        KFD_IOCTL_SVM_LOCATION_SYSMEM,
        KFD_IOCTL_SVM_LOCATION_UNDEFINED,
        KFD_IOCTL_SVM_ATTR_PREFERRED_LOC,
        KFD_IOCTL_SVM_ATTR_PREFETCH_LOC,
        KFD_IOCTL_SVM_ATTR_ACCESS,
        KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE,
        KFD_IOCTL_SVM_ATTR_NO_ACCESS,
        KFD_IOCTL_SVM_ATTR_SET_FLAGS,
        KFD_IOCTL_SVM_ATTR_CLR_FLAGS,
        KFD_IOCTL_SVM_ATTR_GRANULARITY,
        AMDKFD_IOCTL_BASE,
        AMDKFD_COMMAND_START,
    ];
    // The typed views carry the same values.
    let typed: Vec<(&str, i128)> = vec![
        (
            "KFD_IOC_QUEUE_TYPE_COMPUTE_AQL",
            i128::from(u32::from(QueueType::ComputeAql)),
        ),
        (
            "KFD_IOC_QUEUE_TYPE_SDMA_XGMI",
            i128::from(u32::from(QueueType::SdmaXgmi)),
        ),
        (
            "KFD_IOC_EVENT_MEMORY",
            i128::from(u32::from(EventType::Memory)),
        ),
        (
            "KFD_IOC_WAIT_RESULT_TIMEOUT",
            i128::from(u32::from(WaitResult::Timeout)),
        ),
        (
            "(__u32)KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE",
            i128::from(AllocMemFlags::WRITABLE.bits()),
        ),
        (
            "KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED",
            i128::from(AllocMemFlags::UNCACHED.bits()),
        ),
        (
            "KFD_IOCTL_SVM_FLAG_GPU_ALWAYS_MAPPED",
            i128::from(SvmFlags::GPU_ALWAYS_MAPPED.bits()),
        ),
        (
            "KFD_IOCTL_SVM_ATTR_GRANULARITY",
            i128::from(u32::from(SvmAttrType::Granularity)),
        ),
        ("KFD_CRIU_OP_RESUME", i128::from(u32::from(CriuOp::Resume))),
        (
            "KFD_SMI_EVENT_MASK_FROM_INDEX(KFD_SMI_EVENT_VMFAULT)",
            i128::from(SmiEvent::VmFault.mask()),
        ),
        (
            "KFD_SMI_EVENT_MASK_FROM_INDEX(KFD_SMI_EVENT_UNMAP_FROM_GPU)",
            i128::from(SmiEvent::UnmapFromGpu.mask()),
        ),
        // Bit 63: the probe prints it through `long long`, so compare the bit pattern.
        (
            "KFD_SMI_EVENT_MASK_FROM_INDEX(KFD_SMI_EVENT_ALL_PROCESS)",
            i128::from(SmiEvent::AllProcess.mask() as i64),
        ),
    ];
    list.extend(typed);
    assert_no_errors(
        "constants",
        &compare_constants("kfd_consts", INCLUDES, &list),
    );

    // 1.18 is newer than the system header: the version and the end of the
    // command range moved forward, nothing else.
    let newer = run_c_probe(
        "kfd_newer",
        "#include <stdio.h>\n#include <linux/kfd_ioctl.h>\nint main(void) {\n\
         printf(\"minor %lld\\n\", (long long)KFD_IOCTL_MINOR_VERSION);\n\
         printf(\"end %lld\\n\", (long long)AMDKFD_COMMAND_END);\n\
         return 0;\n}\n",
    );
    assert!(i128::from(KFD_IOCTL_MINOR_VERSION) > newer["minor"]);
    assert!(i128::from(AMDKFD_COMMAND_END) > newer["end"]);
    // Every ioctl past the header's last is one this crate adds for a newer driver.
    for info in ALL_IOCTLS
        .iter()
        .filter(|i| i128::from(i.nr) >= newer["end"])
    {
        assert!(
            i128::from(info.since.minor) > newer["minor"],
            "{}",
            info.name
        );
    }
}

// ---------------------------------------------------------------------------
// What KFD 1.11 does not define: compile-time asserts taken from the upstream
// `include/uapi/linux/kfd_ioctl.h` at KFD_IOCTL_MINOR_VERSION 18 (Linux,
// "1.18 - Rename pad in set_memory_policy_args to misc_process_flag").
// Request codes are rebuilt here with the `_IOC` formula of
// `include/uapi/asm-generic/ioctl.h`, independently of rustix.

const fn ioc(dir: u32, nr: u32, size: usize) -> u32 {
    (dir << 30) | ((size as u32) << 16) | ((b'K' as u32) << 8) | nr
}
const IOWR: u32 = 3;

const _: () = {
    // 0x24..=0x26: AMDKFD_IOC_EXPORT_DMABUF (1.12), RUNTIME_ENABLE and DBG_TRAP (1.13).
    assert!(AMDKFD_IOC_EXPORT_DMABUF.code() == ioc(IOWR, 0x24, 16));
    assert!(AMDKFD_IOC_RUNTIME_ENABLE.code() == ioc(IOWR, 0x25, 16));
    assert!(AMDKFD_IOC_DBG_TRAP.code() == ioc(IOWR, 0x26, 32));
    // 1.17: the grown create-queue struct.
    assert!(AMDKFD_IOC_CREATE_QUEUE.code() == ioc(IOWR, 0x02, 96));

    assert!(size_of::<ExportDmabufArgs>() == 16);
    assert!(size_of::<RuntimeEnableArgs>() == 16 && size_of::<RuntimeInfo>() == 16);
    assert!(size_of::<DbgTrapArgs>() == 32 && core::mem::offset_of!(DbgTrapArgs, op_args) == 8);
    assert!(size_of::<DbgTrapOpArgs>() == 24 && align_of::<DbgTrapOpArgs>() == 8);
    assert!(size_of::<DbgTrapEnableArgs>() == 24);
    assert!(size_of::<DbgTrapSendRuntimeEventArgs>() == 16);
    assert!(size_of::<DbgTrapSetExceptionsEnabledArgs>() == 8);
    assert!(size_of::<DbgTrapSetWaveLaunchOverrideArgs>() == 16);
    assert!(size_of::<DbgTrapSetWaveLaunchModeArgs>() == 8);
    assert!(size_of::<DbgTrapSuspendQueuesArgs>() == 24);
    assert!(size_of::<DbgTrapResumeQueuesArgs>() == 16);
    assert!(size_of::<DbgTrapSetNodeAddressWatchArgs>() == 24);
    assert!(size_of::<DbgTrapClearNodeAddressWatchArgs>() == 8);
    assert!(size_of::<DbgTrapSetFlagsArgs>() == 8);
    assert!(size_of::<DbgTrapQueryDebugEventArgs>() == 16);
    assert!(size_of::<DbgTrapQueryExceptionInfoArgs>() == 24);
    assert!(size_of::<DbgTrapQueueSnapshotArgs>() == 24);
    assert!(size_of::<DbgTrapDeviceSnapshotArgs>() == 24);
    assert!(size_of::<QueueSnapshotEntry>() == 64);
    assert!(size_of::<DbgDeviceInfoEntry>() == 120);
    assert!(size_of::<ContextSaveAreaHeader>() == 40);
    // 1.14: the signal member of kfd_event_data's union fits its 32 bytes.
    assert!(size_of::<HsaSignalEventData>() == 8 && size_of::<EventDataPayload>() == 32);

    // Constants added after 1.11.
    assert!(KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID == 0x4);
    assert!(KFD_PROC_FLAG_MFMA_HIGH_PRECISION == 1);
    assert!(KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT == 1 << 24);
    assert!(KFD_IOC_ALLOC_MEM_FLAGS_CONTIGUOUS == 1 << 23);
    assert!(KFD_IOCTL_SVM_FLAG_EXT_COHERENT == 0x80);
    assert!(KFD_SMI_EVENT_PROCESS_START == 12 && KFD_SMI_EVENT_PROCESS_END == 13);
    assert!(KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT == 14);
    assert!(
        EC_QUEUE_NEW == 31 && EC_DEVICE_NEW == 36 && EC_PROCESS_DEVICE_REMOVE == 49 && EC_MAX == 50
    );
    assert!(KFD_DBG_TRAP_MASK_TRAP_ON_WAVE_END == 1 << 31);
    assert!(KFD_DBG_TRAP_WAVE_LAUNCH_MODE_DEBUG == 3);
    assert!(KFD_DBG_QUEUE_INVALID_MASK == 1 << 31 && KFD_DBG_QUEUE_ERROR_MASK == 1 << 30);
    assert!(KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK == 2);
    assert!(KFD_EC_MASK_PROCESS == (1 << 47) | (1 << 48));
};
