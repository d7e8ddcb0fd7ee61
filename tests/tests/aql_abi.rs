//! ABI parity of the `aql` crate with ROCr 5.2.3's real headers
//! (`/usr/include/hsa/hsa.h`, `hsa_ext_amd.h`, `amd_hsa_queue.h`, Debian's
//! `libhsa-runtime-dev`): a C probe prints the size, alignment and every
//! field's offset and size of each packet and queue struct, and the values
//! of the constants; both are compared with the Rust definitions.

use aql::error::{
    HSA_STATUS_ERROR_INVALID_ARGUMENT, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT,
    HSA_STATUS_ERROR_OUT_OF_RESOURCES,
};
use aql::header::*;
use aql::packet::AmdVendorPacketHeader;
use aql::queue::{AmdQueue, AmdQueueProperties, HsaQueue, QueueFeatures, QueueType};
use aql::*;
use tests::{compare_constants, compare_layouts, layout, require_header};

const HEADERS: &[&str] = &["hsa/hsa.h", "hsa/hsa_ext_amd.h", "hsa/amd_hsa_queue.h"];

fn require_headers() {
    for h in HEADERS {
        require_header(&format!("/usr/include/{h}"), "libhsa-runtime-dev");
    }
}

#[test]
fn packet_and_queue_layouts_match_rocr_headers() {
    require_headers();
    let layouts = vec![
        layout!("hsa_signal_t", SignalHandle { handle => "handle" }),
        layout!("hsa_kernel_dispatch_packet_t", KernelDispatchPacket {
            header => "header",
            setup => "setup",
            workgroup_size_x => "workgroup_size_x",
            workgroup_size_y => "workgroup_size_y",
            workgroup_size_z => "workgroup_size_z",
            reserved0 => "reserved0",
            grid_size_x => "grid_size_x",
            grid_size_y => "grid_size_y",
            grid_size_z => "grid_size_z",
            private_segment_size => "private_segment_size",
            group_segment_size => "group_segment_size",
            kernel_object => "kernel_object",
            kernarg_address => "kernarg_address",
            reserved2 => "reserved2",
            completion_signal => "completion_signal",
        }),
        layout!("hsa_agent_dispatch_packet_t", AgentDispatchPacket {
            header => "header",
            type_ => "type",
            reserved0 => "reserved0",
            return_address => "return_address",
            arg => "arg",
            reserved2 => "reserved2",
            completion_signal => "completion_signal",
        }),
        layout!("hsa_barrier_and_packet_t", BarrierAndPacket {
            header => "header",
            reserved0 => "reserved0",
            reserved1 => "reserved1",
            dep_signal => "dep_signal",
            reserved2 => "reserved2",
            completion_signal => "completion_signal",
        }),
        layout!("hsa_barrier_or_packet_t", BarrierOrPacket {
            header => "header",
            reserved0 => "reserved0",
            reserved1 => "reserved1",
            dep_signal => "dep_signal",
            reserved2 => "reserved2",
            completion_signal => "completion_signal",
        }),
        layout!("hsa_amd_vendor_packet_header_t", AmdVendorPacketHeader {
            header => "header",
            amd_format => "AmdFormat",
            reserved => "reserved",
        }),
        layout!("hsa_amd_barrier_value_packet_t", AmdBarrierValuePacket {
            header => "header",
            reserved0 => "reserved0",
            signal => "signal",
            value => "value",
            mask => "mask",
            cond => "cond",
            reserved1 => "reserved1",
            reserved2 => "reserved2",
            reserved3 => "reserved3",
            completion_signal => "completion_signal",
        }),
        layout!("hsa_queue_t", HsaQueue {
            type_ => "type",
            features => "features",
            base_address => "base_address",
            doorbell_signal => "doorbell_signal",
            size => "size",
            reserved1 => "reserved1",
            id => "id",
        }),
        layout!("amd_queue_t", AmdQueue {
            hsa_queue => "hsa_queue",
            reserved1 => "reserved1",
            write_dispatch_id => "write_dispatch_id",
            group_segment_aperture_base_hi => "group_segment_aperture_base_hi",
            private_segment_aperture_base_hi => "private_segment_aperture_base_hi",
            max_cu_id => "max_cu_id",
            max_wave_id => "max_wave_id",
            max_legacy_doorbell_dispatch_id_plus_1 => "max_legacy_doorbell_dispatch_id_plus_1",
            legacy_doorbell_lock => "legacy_doorbell_lock",
            reserved2 => "reserved2",
            read_dispatch_id => "read_dispatch_id",
            read_dispatch_id_field_base_byte_offset => "read_dispatch_id_field_base_byte_offset",
            compute_tmpring_size => "compute_tmpring_size",
            scratch_resource_descriptor => "scratch_resource_descriptor",
            scratch_backing_memory_location => "scratch_backing_memory_location",
            scratch_backing_memory_byte_size => "scratch_backing_memory_byte_size",
            scratch_wave64_lane_byte_size => "scratch_wave64_lane_byte_size",
            queue_properties => "queue_properties",
            reserved3 => "reserved3",
            queue_inactive_signal => "queue_inactive_signal",
            reserved4 => "reserved4",
        }),
    ];
    let errors = compare_layouts("aql_layouts", HEADERS, &layouts);
    assert!(
        errors.is_empty(),
        "layout mismatches:\n{}",
        errors.join("\n")
    );
}

#[test]
fn packet_and_queue_constants_match_rocr_headers() {
    require_headers();
    let c = |name: &'static str, v: i128| (name, v);
    let consts = [
        c(
            "HSA_PACKET_TYPE_VENDOR_SPECIFIC",
            PacketType::VendorSpecific as i128,
        ),
        c("HSA_PACKET_TYPE_INVALID", PacketType::Invalid as i128),
        c(
            "HSA_PACKET_TYPE_KERNEL_DISPATCH",
            PacketType::KernelDispatch as i128,
        ),
        c(
            "HSA_PACKET_TYPE_BARRIER_AND",
            PacketType::BarrierAnd as i128,
        ),
        c(
            "HSA_PACKET_TYPE_AGENT_DISPATCH",
            PacketType::AgentDispatch as i128,
        ),
        c("HSA_PACKET_TYPE_BARRIER_OR", PacketType::BarrierOr as i128),
        c("HSA_FENCE_SCOPE_NONE", FenceScope::None as i128),
        c("HSA_FENCE_SCOPE_AGENT", FenceScope::Agent as i128),
        c("HSA_FENCE_SCOPE_SYSTEM", FenceScope::System as i128),
        c("HSA_PACKET_HEADER_TYPE", HEADER_TYPE_SHIFT.into()),
        c("HSA_PACKET_HEADER_BARRIER", HEADER_BARRIER_SHIFT.into()),
        c(
            "HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE",
            HEADER_ACQUIRE_FENCE_SCOPE_SHIFT.into(),
        ),
        c(
            "HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE",
            HEADER_ACQUIRE_FENCE_SCOPE_SHIFT.into(),
        ),
        c(
            "HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE",
            HEADER_RELEASE_FENCE_SCOPE_SHIFT.into(),
        ),
        c(
            "HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE",
            HEADER_RELEASE_FENCE_SCOPE_SHIFT.into(),
        ),
        c("HSA_PACKET_HEADER_WIDTH_TYPE", HEADER_TYPE_WIDTH.into()),
        c(
            "HSA_PACKET_HEADER_WIDTH_BARRIER",
            HEADER_BARRIER_WIDTH.into(),
        ),
        c(
            "HSA_PACKET_HEADER_WIDTH_SCACQUIRE_FENCE_SCOPE",
            HEADER_ACQUIRE_FENCE_SCOPE_WIDTH.into(),
        ),
        c(
            "HSA_PACKET_HEADER_WIDTH_SCRELEASE_FENCE_SCOPE",
            HEADER_RELEASE_FENCE_SCOPE_WIDTH.into(),
        ),
        c(
            "HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS",
            SETUP_DIMENSIONS_SHIFT.into(),
        ),
        c(
            "HSA_KERNEL_DISPATCH_PACKET_SETUP_WIDTH_DIMENSIONS",
            SETUP_DIMENSIONS_WIDTH.into(),
        ),
        c(
            "HSA_AMD_PACKET_TYPE_BARRIER_VALUE",
            AmdPacketType::BarrierValue as i128,
        ),
        c("HSA_SIGNAL_CONDITION_EQ", SignalCondition::Eq as i128),
        c("HSA_SIGNAL_CONDITION_NE", SignalCondition::Ne as i128),
        c("HSA_SIGNAL_CONDITION_LT", SignalCondition::Lt as i128),
        c("HSA_SIGNAL_CONDITION_GTE", SignalCondition::Gte as i128),
        c("HSA_QUEUE_TYPE_MULTI", QueueType::Multi as i128),
        c("HSA_QUEUE_TYPE_SINGLE", QueueType::Single as i128),
        c("HSA_QUEUE_TYPE_COOPERATIVE", QueueType::Cooperative as i128),
        c(
            "HSA_QUEUE_FEATURE_KERNEL_DISPATCH",
            QueueFeatures::KERNEL_DISPATCH.bits().into(),
        ),
        c(
            "HSA_QUEUE_FEATURE_AGENT_DISPATCH",
            QueueFeatures::AGENT_DISPATCH.bits().into(),
        ),
        c(
            "AMD_QUEUE_PROPERTIES_ENABLE_TRAP_HANDLER",
            AmdQueueProperties::ENABLE_TRAP_HANDLER.bits().into(),
        ),
        c(
            "AMD_QUEUE_PROPERTIES_IS_PTR64",
            AmdQueueProperties::IS_PTR64.bits().into(),
        ),
        c(
            "AMD_QUEUE_PROPERTIES_ENABLE_TRAP_HANDLER_DEBUG_SGPRS",
            AmdQueueProperties::ENABLE_TRAP_HANDLER_DEBUG_SGPRS
                .bits()
                .into(),
        ),
        c(
            "AMD_QUEUE_PROPERTIES_ENABLE_PROFILING",
            AmdQueueProperties::ENABLE_PROFILING.bits().into(),
        ),
        c(
            "AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE",
            AmdQueueProperties::USE_SCRATCH_ONCE.bits().into(),
        ),
        c(
            "(unsigned)AMD_QUEUE_PROPERTIES_RESERVED1",
            aql::queue::AMD_QUEUE_PROPERTIES_RESERVED1.into(),
        ),
        c(
            "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT",
            HSA_STATUS_ERROR_INVALID_PACKET_FORMAT.into(),
        ),
        c(
            "HSA_STATUS_ERROR_INVALID_ARGUMENT",
            HSA_STATUS_ERROR_INVALID_ARGUMENT.into(),
        ),
        c(
            "HSA_STATUS_ERROR_OUT_OF_RESOURCES",
            HSA_STATUS_ERROR_OUT_OF_RESOURCES.into(),
        ),
        c("sizeof(hsa_signal_value_t)", 8),
    ];
    let errors = compare_constants("aql_constants", HEADERS, &consts);
    assert!(
        errors.is_empty(),
        "constant mismatches:\n{}",
        errors.join("\n")
    );
}
