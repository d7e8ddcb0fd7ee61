//! The KFD structs and request codes against an oracle nobody here wrote:
//! `tinygrad/runtime/autogen/kfd.py` of the `tinygrad` 0.14.0 wheel, which
//! clang generated from a current `kfd_ioctl.h` (issue 17). The C probes of
//! `kfd_abi.rs` can only check what Debian's header (KFD 1.11) has; this
//! test checks every struct `kfd::ioctl::raw` defines, 1.12-1.18 included
//! (debug trap and its sub-structs, queue snapshot, device info entry,
//! runtime enable, export dmabuf, context save area header and wave state):
//! sizes, every field's offset and size, both ways (a field of either side
//! that the other lacks is an error), and every request code. kfd.py is
//! ROCm's copy of the header at KFD 1.17 (it also has ROCm's out-of-tree
//! ioctls from 0x80); upstream 1.18 only renamed one field, which is
//! mapped by name below.
//!
//! The wheel is fetched by `pip download` (`scripts/test` first; the test
//! itself when missing) and read as data (`tests::autogen`); a wheel that
//! cannot be had fails the test.

use std::collections::BTreeSet;

use kfd::ioctl::raw::*;
use kfd::ioctl::*;
use tests::autogen::{Autogen, compare_with_autogen, tinygrad_autogen};
use tests::{FieldLayout, StructLayout, layout};

/// One struct of `kfd::ioctl::raw`: its autogen record, its Rust name and
/// fields (for the completeness checks against `raw.rs`), its layout.
struct Entry {
    record: &'static str,
    rust: &'static str,
    rust_fields: Vec<&'static str>,
    layout: StructLayout,
}

macro_rules! kfd {
    ($rec:literal, $rust:ident { $($rf:ident $(=> $cf:expr)?),* $(,)? }) => {
        Entry {
            record: $rec,
            rust: stringify!($rust),
            rust_fields: vec![$(stringify!($rf)),*],
            layout: layout!($rec, $rust { $($rf $(=> $cf)?),* }),
        }
    };
}

/// A union member flattened into its parent, as the autogen file writes
/// anonymous unions: `C name` at `offset` with `size`.
fn member(c_field: &'static str, offset: usize, size: usize) -> FieldLayout {
    FieldLayout {
        c_field,
        offset,
        size,
    }
}

fn entries() -> Vec<Entry> {
    let mut v = vec![
        kfd!(
            "struct_kfd_ioctl_get_version_args",
            GetVersionArgs {
                major_version,
                minor_version
            }
        ),
        kfd!(
            "struct_kfd_ioctl_create_queue_args",
            CreateQueueArgs {
                ring_base_address,
                write_pointer_address,
                read_pointer_address,
                doorbell_offset,
                ring_size,
                gpu_id,
                queue_type,
                queue_percentage,
                queue_priority,
                queue_id,
                eop_buffer_address,
                eop_buffer_size,
                ctx_save_restore_address,
                ctx_save_restore_size,
                ctl_stack_size,
                sdma_engine_id,
                pad,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_destroy_queue_args",
            DestroyQueueArgs { queue_id, pad }
        ),
        kfd!(
            "struct_kfd_ioctl_update_queue_args",
            UpdateQueueArgs {
                ring_base_address,
                queue_id,
                ring_size,
                queue_percentage,
                queue_priority,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_set_cu_mask_args",
            SetCuMaskArgs {
                queue_id,
                num_cu_mask,
                cu_mask_ptr
            }
        ),
        kfd!(
            "struct_kfd_ioctl_get_queue_wave_state_args",
            GetQueueWaveStateArgs {
                ctl_stack_address,
                ctl_stack_used_size,
                save_area_used_size,
                queue_id,
                pad,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_get_available_memory_args",
            GetAvailableMemoryArgs {
                available,
                gpu_id,
                pad
            }
        ),
        kfd!(
            "struct_kfd_dbg_device_info_entry",
            DbgDeviceInfoEntry {
                exception_status,
                lds_base,
                lds_limit,
                scratch_base,
                scratch_limit,
                gpuvm_base,
                gpuvm_limit,
                gpu_id,
                location_id,
                vendor_id,
                device_id,
                revision_id,
                subsystem_vendor_id,
                subsystem_device_id,
                fw_version,
                gfx_target_version,
                simd_count,
                max_waves_per_simd,
                array_count,
                simd_arrays_per_engine,
                num_xcc,
                capability,
                debug_prop,
            }
        ),
        // Upstream 1.18 renamed `pad` to `misc_process_flag` (same place,
        // same size); kfd.py is ROCm's copy of the header at 1.17.
        kfd!(
            "struct_kfd_ioctl_set_memory_policy_args",
            SetMemoryPolicyArgs {
                alternate_aperture_base,
                alternate_aperture_size,
                gpu_id,
                default_policy,
                alternate_policy,
                misc_process_flag => "pad",
            }
        ),
        kfd!(
            "struct_kfd_ioctl_get_clock_counters_args",
            GetClockCountersArgs {
                gpu_clock_counter,
                cpu_clock_counter,
                system_clock_counter,
                system_clock_freq,
                gpu_id,
                pad,
            }
        ),
        kfd!(
            "struct_kfd_process_device_apertures",
            ProcessDeviceApertures {
                lds_base,
                lds_limit,
                scratch_base,
                scratch_limit,
                gpuvm_base,
                gpuvm_limit,
                gpu_id,
                pad,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_get_process_apertures_args",
            GetProcessAperturesArgs {
                process_apertures,
                num_of_nodes,
                pad,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_get_process_apertures_new_args",
            GetProcessAperturesNewArgs {
                kfd_process_device_apertures_ptr,
                num_of_nodes,
                pad,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_dbg_register_args",
            DbgRegisterArgs { gpu_id, pad }
        ),
        kfd!(
            "struct_kfd_ioctl_dbg_unregister_args",
            DbgUnregisterArgs { gpu_id, pad }
        ),
        kfd!(
            "struct_kfd_ioctl_dbg_address_watch_args",
            DbgAddressWatchArgs {
                content_ptr,
                gpu_id,
                buf_size_in_bytes
            }
        ),
        kfd!(
            "struct_kfd_ioctl_dbg_wave_control_args",
            DbgWaveControlArgs {
                content_ptr,
                gpu_id,
                buf_size_in_bytes
            }
        ),
        kfd!(
            "struct_kfd_ioctl_create_event_args",
            CreateEventArgs {
                event_page_offset,
                event_trigger_data,
                event_type,
                auto_reset,
                node_id,
                event_id,
                event_slot_index,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_destroy_event_args",
            DestroyEventArgs { event_id, pad }
        ),
        kfd!(
            "struct_kfd_ioctl_set_event_args",
            SetEventArgs { event_id, pad }
        ),
        kfd!(
            "struct_kfd_ioctl_reset_event_args",
            ResetEventArgs { event_id, pad }
        ),
        kfd!("struct_kfd_memory_exception_failure", MemoryExceptionFailure {
            not_present => "NotPresent", read_only => "ReadOnly", no_execute => "NoExecute", imprecise,
        }),
        kfd!("struct_kfd_hsa_memory_exception_data", HsaMemoryExceptionData {
            failure, va, gpu_id, error_type => "ErrorType",
        }),
        kfd!(
            "struct_kfd_hsa_hw_exception_data",
            HsaHwExceptionData {
                reset_type,
                reset_cause,
                memory_lost,
                gpu_id,
            }
        ),
        kfd!(
            "struct_kfd_hsa_signal_event_data",
            HsaSignalEventData { last_event_age }
        ),
        kfd!(
            "struct_kfd_event_data",
            EventData {
                kfd_event_data_ext,
                event_id,
                pad
            }
        ),
        kfd!(
            "struct_kfd_ioctl_wait_events_args",
            WaitEventsArgs {
                events_ptr,
                num_events,
                wait_for_all,
                timeout,
                wait_result,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_set_scratch_backing_va_args",
            SetScratchBackingVaArgs {
                va_addr,
                gpu_id,
                pad
            }
        ),
        kfd!(
            "struct_kfd_ioctl_get_tile_config_args",
            GetTileConfigArgs {
                tile_config_ptr,
                macro_tile_config_ptr,
                num_tile_configs,
                num_macro_tile_configs,
                gpu_id,
                gb_addr_config,
                num_banks,
                num_ranks,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_set_trap_handler_args",
            SetTrapHandlerArgs {
                tba_addr,
                tma_addr,
                gpu_id,
                pad
            }
        ),
        kfd!(
            "struct_kfd_ioctl_acquire_vm_args",
            AcquireVmArgs { drm_fd, gpu_id }
        ),
        kfd!(
            "struct_kfd_ioctl_alloc_memory_of_gpu_args",
            AllocMemoryOfGpuArgs {
                va_addr,
                size,
                handle,
                mmap_offset,
                gpu_id,
                flags,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_free_memory_of_gpu_args",
            FreeMemoryOfGpuArgs { handle }
        ),
        kfd!(
            "struct_kfd_ioctl_map_memory_to_gpu_args",
            MapMemoryToGpuArgs {
                handle,
                device_ids_array_ptr,
                n_devices,
                n_success,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_unmap_memory_from_gpu_args",
            UnmapMemoryFromGpuArgs {
                handle,
                device_ids_array_ptr,
                n_devices,
                n_success,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_alloc_queue_gws_args",
            AllocQueueGwsArgs {
                queue_id,
                num_gws,
                first_gws,
                pad
            }
        ),
        kfd!(
            "struct_kfd_ioctl_get_dmabuf_info_args",
            GetDmabufInfoArgs {
                size,
                metadata_ptr,
                metadata_size,
                gpu_id,
                flags,
                dmabuf_fd,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_import_dmabuf_args",
            ImportDmabufArgs {
                va_addr,
                handle,
                gpu_id,
                dmabuf_fd
            }
        ),
        kfd!(
            "struct_kfd_ioctl_export_dmabuf_args",
            ExportDmabufArgs {
                handle,
                flags,
                dmabuf_fd
            }
        ),
        kfd!(
            "struct_kfd_ioctl_smi_events_args",
            SmiEventsArgs { gpuid, anon_fd }
        ),
        kfd!(
            "struct_kfd_criu_device_bucket",
            CriuDeviceBucket {
                user_gpu_id,
                actual_gpu_id,
                drm_fd,
                pad
            }
        ),
        kfd!(
            "struct_kfd_criu_bo_bucket",
            CriuBoBucket {
                addr,
                size,
                offset,
                restored_offset,
                gpu_id,
                alloc_flags,
                dmabuf_fd,
                pad,
            }
        ),
        kfd!("struct_kfd_ioctl_svm_attribute", SvmAttribute { type_ => "type", value }),
        kfd!(
            "struct_kfd_ioctl_set_xnack_mode_args",
            SetXnackModeArgs { xnack_enabled }
        ),
        kfd!(
            "struct_kfd_runtime_info",
            RuntimeInfo {
                r_debug,
                runtime_state,
                ttmp_setup
            }
        ),
        kfd!(
            "struct_kfd_ioctl_runtime_enable_args",
            RuntimeEnableArgs {
                r_debug,
                mode_mask,
                capabilities_mask
            }
        ),
        kfd!(
            "struct_kfd_queue_snapshot_entry",
            QueueSnapshotEntry {
                exception_status,
                ring_base_address,
                write_pointer_address,
                read_pointer_address,
                ctx_save_restore_address,
                queue_id,
                gpu_id,
                ring_size,
                queue_type,
                ctx_save_restore_area_size,
                reserved,
            }
        ),
        kfd!(
            "struct_kfd_context_save_area_header_wave_state",
            ContextSaveAreaWaveState {
                control_stack_offset,
                control_stack_size,
                wave_state_offset,
                wave_state_size,
            }
        ),
        kfd!(
            "struct_kfd_context_save_area_header",
            ContextSaveAreaHeader {
                wave_state,
                debug_offset,
                debug_size,
                err_payload_addr,
                err_event_id,
                reserved1,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_dbg_trap_enable_args",
            DbgTrapEnableArgs {
                exception_mask,
                rinfo_ptr,
                rinfo_size,
                dbg_fd
            }
        ),
        kfd!(
            "struct_kfd_ioctl_dbg_trap_send_runtime_event_args",
            DbgTrapSendRuntimeEventArgs {
                exception_mask,
                gpu_id,
                queue_id,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_dbg_trap_set_exceptions_enabled_args",
            DbgTrapSetExceptionsEnabledArgs { exception_mask }
        ),
        kfd!(
            "struct_kfd_ioctl_dbg_trap_set_wave_launch_override_args",
            DbgTrapSetWaveLaunchOverrideArgs {
                override_mode,
                enable_mask,
                support_request_mask,
                pad,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_dbg_trap_set_wave_launch_mode_args",
            DbgTrapSetWaveLaunchModeArgs { launch_mode, pad }
        ),
        kfd!(
            "struct_kfd_ioctl_dbg_trap_suspend_queues_args",
            DbgTrapSuspendQueuesArgs {
                exception_mask,
                queue_array_ptr,
                num_queues,
                grace_period,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_dbg_trap_resume_queues_args",
            DbgTrapResumeQueuesArgs {
                queue_array_ptr,
                num_queues,
                pad
            }
        ),
        kfd!(
            "struct_kfd_ioctl_dbg_trap_set_node_address_watch_args",
            DbgTrapSetNodeAddressWatchArgs {
                address,
                mode,
                mask,
                gpu_id,
                id,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_dbg_trap_clear_node_address_watch_args",
            DbgTrapClearNodeAddressWatchArgs { gpu_id, id }
        ),
        kfd!(
            "struct_kfd_ioctl_dbg_trap_set_flags_args",
            DbgTrapSetFlagsArgs { flags, pad }
        ),
        kfd!(
            "struct_kfd_ioctl_dbg_trap_query_debug_event_args",
            DbgTrapQueryDebugEventArgs {
                exception_mask,
                gpu_id,
                queue_id,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_dbg_trap_query_exception_info_args",
            DbgTrapQueryExceptionInfoArgs {
                info_ptr,
                info_size,
                source_id,
                exception_code,
                clear_exception,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_dbg_trap_queue_snapshot_args",
            DbgTrapQueueSnapshotArgs {
                exception_mask,
                snapshot_buf_ptr,
                num_queues,
                entry_size,
            }
        ),
        kfd!(
            "struct_kfd_ioctl_dbg_trap_device_snapshot_args",
            DbgTrapDeviceSnapshotArgs {
                exception_mask,
                snapshot_buf_ptr,
                num_devices,
                entry_size,
            }
        ),
        kfd!("struct_kfd_ioctl_dbg_trap_args", DbgTrapArgs { pid, op }),
        // `attrs[]`, a flexible array member: zero bytes in both.
        kfd!(
            "struct_kfd_ioctl_svm_args",
            SvmArgs {
                start_addr,
                size,
                op,
                nattr
            }
        ),
        // C pads after `op`; the Rust mirror names those bytes.
        kfd!(
            "struct_kfd_ioctl_criu_args",
            CriuArgs {
                devices,
                bos,
                priv_data,
                priv_data_size,
                num_devices,
                num_bos,
                num_objects,
                pid,
                op,
            }
        ),
    ];

    // The anonymous unions, flattened as the autogen file writes them. A
    // `#[repr(C)]` union puts every member at its start.
    let find = |v: &mut Vec<Entry>, rust: &str| -> usize {
        v.iter().position(|e| e.rust == rust).unwrap()
    };
    let i = find(&mut v, "EventData");
    let at = core::mem::offset_of!(EventData, payload);
    v[i].rust_fields.push("payload");
    v[i].layout.fields.extend([
        member(
            "memory_exception_data",
            at,
            size_of::<HsaMemoryExceptionData>(),
        ),
        member("hw_exception_data", at, size_of::<HsaHwExceptionData>()),
        member("signal_event_data", at, size_of::<HsaSignalEventData>()),
    ]);
    let i = find(&mut v, "DbgTrapArgs");
    let at = core::mem::offset_of!(DbgTrapArgs, op_args);
    v[i].rust_fields.push("op_args");
    v[i].layout.fields.extend([
        member("enable", at, size_of::<DbgTrapEnableArgs>()),
        member(
            "send_runtime_event",
            at,
            size_of::<DbgTrapSendRuntimeEventArgs>(),
        ),
        member(
            "set_exceptions_enabled",
            at,
            size_of::<DbgTrapSetExceptionsEnabledArgs>(),
        ),
        member(
            "launch_override",
            at,
            size_of::<DbgTrapSetWaveLaunchOverrideArgs>(),
        ),
        member("launch_mode", at, size_of::<DbgTrapSetWaveLaunchModeArgs>()),
        member("suspend_queues", at, size_of::<DbgTrapSuspendQueuesArgs>()),
        member("resume_queues", at, size_of::<DbgTrapResumeQueuesArgs>()),
        member(
            "set_node_address_watch",
            at,
            size_of::<DbgTrapSetNodeAddressWatchArgs>(),
        ),
        member(
            "clear_node_address_watch",
            at,
            size_of::<DbgTrapClearNodeAddressWatchArgs>(),
        ),
        member("set_flags", at, size_of::<DbgTrapSetFlagsArgs>()),
        member(
            "query_debug_event",
            at,
            size_of::<DbgTrapQueryDebugEventArgs>(),
        ),
        member(
            "query_exception_info",
            at,
            size_of::<DbgTrapQueryExceptionInfoArgs>(),
        ),
        member("queue_snapshot", at, size_of::<DbgTrapQueueSnapshotArgs>()),
        member(
            "device_snapshot",
            at,
            size_of::<DbgTrapDeviceSnapshotArgs>(),
        ),
    ]);
    // `attrs[]`, the flexible array member, starts where the struct ends.
    let i = find(&mut v, "SvmArgs");
    v[i].layout
        .fields
        .push(member("attrs", size_of::<SvmArgs>(), 0));
    let i = find(&mut v, "CriuArgs");
    v[i].rust_fields.push("tail_padding");
    v
}

/// The unions whose members are flattened into a parent above, and the
/// struct whose unnamed C member they are.
const FLATTENED: &[(&str, &str)] = &[
    ("EventDataPayload", "EventData"),
    ("DbgTrapOpArgs", "DbgTrapArgs"),
];

fn kfd_py() -> Autogen {
    let ag = Autogen::parse(&tinygrad_autogen("kfd.py"));
    assert!(
        ag.records.len() > 60 && ag.ioctls.len() > 40,
        "kfd.py did not parse as expected: {} records, {} ioctls",
        ag.records.len(),
        ag.ioctls.len()
    );
    ag
}

/// `pub struct` / `pub union` names of `raw.rs` and each one's `pub` fields.
fn raw_rs_items() -> Vec<(String, Vec<String>)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../kfd/src/ioctl/raw.rs");
    let src = std::fs::read_to_string(path).expect("kfd/src/ioctl/raw.rs");
    let mut items = Vec::new();
    let mut current: Option<(String, Vec<String>)> = None;
    for line in src.lines() {
        let t = line.trim_start();
        if let Some(rest) = t
            .strip_prefix("pub struct ")
            .or_else(|| t.strip_prefix("pub union "))
        {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            current = Some((name, Vec::new()));
            continue;
        }
        if line == "}" {
            if let Some(item) = current.take() {
                items.push(item);
            }
            continue;
        }
        if let Some((_, fields)) = current.as_mut() {
            let decl = t.strip_prefix("pub ").unwrap_or(t);
            if let Some((name, _)) = decl.split_once(':') {
                if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    fields.push(name.to_owned());
                }
            }
        }
    }
    items
}

#[test]
fn every_kfd_struct_matches_tinygrad_field_by_field() {
    let ag = kfd_py();
    let entries = entries();
    let pairs: Vec<(&str, StructLayout)> = entries
        .iter()
        .map(|e| (e.record, e.layout.clone()))
        .collect();
    let mut errors = compare_with_autogen(&ag, &pairs);

    // `kfd_ioctl_criu_args`: C's tail padding is a named field in Rust,
    // right after C's last field.
    assert_eq!(
        core::mem::offset_of!(CriuArgs, tail_padding),
        ag.record("struct_kfd_ioctl_criu_args")
            .fields
            .last()
            .map_or(0, |f| f.offset + 4)
    );

    // Nothing of raw.rs escapes: every struct and union is compared, with
    // every field.
    let listed: BTreeSet<&str> = entries.iter().map(|e| e.rust).collect();
    for (name, fields) in raw_rs_items() {
        if let Some((_, parent)) = FLATTENED.iter().find(|(u, _)| *u == name) {
            assert!(
                listed.contains(parent),
                "{name}: its parent {parent} is not compared"
            );
            continue;
        }
        let Some(e) = entries.iter().find(|e| e.rust == name) else {
            errors.push(format!("raw::{name} is not compared with kfd.py"));
            continue;
        };
        for f in fields {
            if !e.rust_fields.contains(&f.as_str()) {
                errors.push(format!("raw::{name}.{f} is not compared with kfd.py"));
            }
        }
    }
    assert!(
        errors.is_empty(),
        "{} mismatches with tinygrad's kfd.py:\n{}",
        errors.len(),
        errors.join("\n")
    );
}

#[test]
fn every_request_code_matches_tinygrad() {
    let ag = kfd_py();
    let mut errors = Vec::new();
    for info in ALL_IOCTLS {
        let Some(io) = ag.ioctls.get(info.name) else {
            errors.push(format!("{}: not in kfd.py", info.name));
            continue;
        };
        let dir = match info.direction {
            Direction::Write => 1,
            Direction::Read => 2,
            Direction::ReadWrite => 3,
        };
        let record = format!("struct_{}", info.arg_type.trim_start_matches("struct "));
        if (io.dir, io.ty, io.nr, io.record.as_deref())
            != (
                dir,
                u32::from(b'K'),
                u32::from(info.nr),
                Some(record.as_str()),
            )
        {
            errors.push(format!(
                "{}: kfd.py {io:?}, Rust dir {dir} nr {:#x} {record}",
                info.name, info.nr
            ));
        }
        if io.code != Some(info.code) {
            errors.push(format!(
                "{}: code kfd.py {:x?} != Rust {:#x}",
                info.name, io.code, info.code
            ));
        }
    }
    // The upstream range: every kfd.py ioctl there is ours, except the four
    // deprecated debugger ioctls (0x0D..=0x10) this crate leaves out. The
    // 0x80.. range (AMDKFD_COMMAND_START_2) is ROCm's out-of-tree driver
    // only, and none of ours may sit there.
    let start = ag.constants["AMDKFD_COMMAND_START"];
    let end = ag.constants["AMDKFD_COMMAND_END"];
    assert_eq!((start, end), (1, 0x27), "kfd.py's upstream range moved");
    for (name, io) in &ag.ioctls {
        let nr = i128::from(io.nr);
        let ours = ALL_IOCTLS.iter().any(|i| i.name == name.as_str());
        if (start..end).contains(&nr) && !ours && !(0x0D..=0x10).contains(&nr) {
            errors.push(format!(
                "{name} ({nr:#x}) is in kfd.py but not in kfd::ioctl"
            ));
        }
    }
    assert!(ALL_IOCTLS.iter().all(|i| i128::from(i.nr) < end));
    assert_eq!(ALL_IOCTLS.len(), 0x26 - 4);
    assert!(
        errors.is_empty(),
        "{} mismatches with tinygrad's kfd.py:\n{}",
        errors.len(),
        errors.join("\n")
    );
}

/// The harness is ready for the amdgpu DRM structs (a sim or ROCr-on-sim
/// shim) and for ROCr structs beyond 5.2.3: the project defines none yet,
/// so this checks that `amdgpu_drm.py` and `hsa.py` read completely (every
/// record's fields sized and inside it, every AMDGPU DRM request code
/// built), and that a comparison reports a wrong offset and size.
#[test]
fn amdgpu_drm_and_hsa_autogen_read_completely() {
    for (file, min_records) in [("amdgpu_drm.py", 100), ("hsa.py", 80)] {
        let ag = Autogen::parse(&tinygrad_autogen(file));
        assert!(
            ag.records.len() >= min_records,
            "{file}: {} records",
            ag.records.len()
        );
        for (name, rec) in &ag.records {
            let Some(size) = rec.size else {
                assert!(
                    rec.fields.is_empty(),
                    "{file}: {name} has fields but no SIZE"
                );
                continue;
            };
            for f in &rec.fields {
                let fsize = f
                    .size
                    .unwrap_or_else(|| panic!("{file}: {name}.{}: type {} unsized", f.name, f.ty));
                // A bit field's offset is the byte its bits start in.
                let extent = f.bits.map_or(fsize, |(w, o)| (w + o).div_ceil(8) as usize);
                assert!(
                    f.offset + extent <= size,
                    "{file}: {name}.{} ({} at {}) runs past {size}",
                    f.name,
                    f.ty,
                    f.offset
                );
            }
        }
        if file == "amdgpu_drm.py" {
            let gem_create = &ag.ioctls["DRM_IOCTL_AMDGPU_GEM_CREATE"];
            // _IOWR('d', 0x40, union drm_amdgpu_gem_create): 32 bytes.
            assert_eq!(gem_create.code, Some(0xc020_6440));
            let amdgpu: Vec<_> = ag
                .ioctls
                .iter()
                .filter(|(n, _)| n.starts_with("DRM_IOCTL_AMDGPU_"))
                .collect();
            assert!(amdgpu.len() >= 15, "{amdgpu:?}");
            // Built for each, except where tinygrad left the argument
            // opaque (`union drm_amdgpu_sem`, ROCm's out-of-tree ioctl).
            for (n, io) in amdgpu {
                let opaque = io
                    .record
                    .as_ref()
                    .is_some_and(|r| ag.record(r).size.is_none());
                assert!(io.code.is_some() || opaque, "{n}: {io:?}");
            }
        }
    }
    // The comparison itself: a layout with a wrong offset and a missing
    // field is reported.
    let ag = kfd_py();
    let mut wrong = layout!(
        "struct_kfd_runtime_info",
        RuntimeInfo {
            r_debug,
            runtime_state
        }
    );
    wrong.fields[1].offset += 4;
    let errors = compare_with_autogen(&ag, &[("struct_kfd_runtime_info", wrong)]);
    assert_eq!(
        errors,
        [
            "struct_kfd_runtime_info.runtime_state: offset autogen 8 != Rust 12",
            "struct_kfd_runtime_info.ttmp_setup: autogen field (offset 12) has no Rust counterpart listed",
        ]
    );
}
