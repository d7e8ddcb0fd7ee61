//! ABI parity of the C library (`cabi`, `libhsa-runtime64.so.1`) with
//! ROCr 5.2.3's real headers (`hsa.h`, `hsa_ext_amd.h`,
//! `hsa_ven_amd_loader.h`, `hsa_ext_image.h`, `hsa_ext_finalize.h`):
//! every struct the library's functions take or return (size, alignment,
//! each field's offset and size; the packets and `hsa_queue_t` are
//! `aql_abi.rs`'s), the extension tables, and every enumerator the
//! library or the runtime's attribute enums use (`hsa_status_t`, every
//! `*_info_t`, the symbol and executable enums).

use hsa_runtime64::ffi::consts;
use hsa_runtime64::ffi::*;
use runtime::Status;
use runtime::executable::{
    DefaultFloatRoundingMode, ExecutableInfo, ExecutableState, Profile, SymbolInfo, SymbolKind,
    SymbolLinkage, VariableAllocation, VariableSegment,
};
use runtime::info::{
    AgentInfo, AgentMemoryPoolInfo, AmdAgentInfo, IsaInfo, LinkInfo, PoolInfo, RegionInfo,
    SystemInfo,
};
use tests::{StructLayout, compare_constants, compare_layouts, layout, require_header};

const HEADERS: &[&str] = &[
    "hsa/hsa.h",
    "hsa/hsa_ext_amd.h",
    "hsa/hsa_ven_amd_loader.h",
    "hsa/hsa_ext_image.h",
    "hsa/hsa_ext_finalize.h",
];

fn require_headers() {
    for h in HEADERS {
        require_header(&format!("/usr/include/{h}"), "libhsa-runtime-dev");
    }
}

/// Drops the "belongs to no listed field" reports for bytes that are
/// padding in the Rust struct too (no Rust field covers them: the offsets
/// and sizes, checked separately, agree, so it is the same padding).
fn without_shared_padding(errors: Vec<String>, layouts: &[StructLayout]) -> Vec<String> {
    errors
        .into_iter()
        .filter(|e| {
            let Some((t, r)) = e.split_once(": bytes ") else {
                return true;
            };
            let Some(l) = layouts.iter().find(|l| l.c_type == t) else {
                return true;
            };
            let range: Vec<usize> = r
                .split_whitespace()
                .next()
                .unwrap_or("")
                .split("..")
                .filter_map(|n| n.parse().ok())
                .collect();
            let [a, b] = range[..] else { return true };
            l.fields
                .iter()
                .any(|f| f.offset < b && a < f.offset + f.size)
        })
        .collect()
}

#[test]
fn cabi_struct_layouts_match_rocr_headers() {
    require_headers();
    let mut layouts = vec![
        layout!("hsa_dim3_t", hsa_dim3_t { x, y, z }),
        layout!(
            "hsa_pitched_ptr_t",
            hsa_pitched_ptr_t { base, pitch, slice }
        ),
        layout!("hsa_amd_pointer_info_t", hsa_amd_pointer_info_t {
            size, type_ => "type", agentBaseAddress, hostBaseAddress, sizeInBytes, userData,
            agentOwner, global_flags,
        }),
        layout!(
            "hsa_amd_profiling_dispatch_time_t",
            hsa_amd_profiling_dispatch_time_t { start, end }
        ),
        layout!(
            "hsa_amd_profiling_async_copy_time_t",
            hsa_amd_profiling_async_copy_time_t { start, end }
        ),
        layout!("hsa_amd_ipc_memory_t", hsa_amd_ipc_memory_t { handle }),
        layout!("hsa_amd_ipc_signal_t", hsa_amd_ipc_signal_t { handle }),
        layout!(
            "hsa_amd_svm_attribute_pair_t",
            hsa_amd_svm_attribute_pair_t { attribute, value }
        ),
        layout!(
            "hsa_amd_hdp_flush_t",
            hsa_amd_hdp_flush_t {
                HDP_MEM_FLUSH_CNTL,
                HDP_REG_FLUSH_CNTL
            }
        ),
        layout!(
            "hsa_amd_image_descriptor_t",
            hsa_amd_image_descriptor_t {
                version,
                deviceID,
                data
            }
        ),
        layout!(
            "hsa_amd_gpu_memory_fault_info_t",
            hsa_amd_gpu_memory_fault_info_t {
                agent,
                virtual_address,
                fault_reason_mask,
            }
        ),
        layout!(
            "hsa_amd_event_t",
            hsa_amd_event_t {
                event_type,
                memory_fault
            }
        ),
        layout!(
            "hsa_amd_memory_pool_link_info_t",
            LinkInfo {
                min_latency,
                max_latency,
                min_bandwidth,
                max_bandwidth,
                atomic_support_32bit,
                atomic_support_64bit,
                coherent_support,
                link_type,
                numa_distance,
            }
        ),
        layout!(
            "hsa_ven_amd_loader_segment_descriptor_t",
            hsa_ven_amd_loader_segment_descriptor_t {
                agent,
                executable,
                code_object_storage_type,
                code_object_storage_base,
                code_object_storage_size,
                code_object_storage_offset,
                segment_base,
                segment_size,
            }
        ),
        layout!(
            "hsa_ext_image_format_t",
            hsa_ext_image_format_t {
                channel_type,
                channel_order
            }
        ),
        layout!(
            "hsa_ext_image_descriptor_t",
            hsa_ext_image_descriptor_t {
                geometry,
                width,
                height,
                depth,
                array_size,
                format,
            }
        ),
        layout!(
            "hsa_ext_image_data_info_t",
            hsa_ext_image_data_info_t { size, alignment }
        ),
        layout!(
            "hsa_ext_image_region_t",
            hsa_ext_image_region_t { offset, range }
        ),
        layout!(
            "hsa_ext_sampler_descriptor_t",
            hsa_ext_sampler_descriptor_t {
                coordinate_mode,
                filter_mode,
                address_mode,
            }
        ),
        layout!(
            "hsa_ven_amd_loader_1_00_pfn_t",
            hsa_ven_amd_loader_1_00_pfn_t {
                hsa_ven_amd_loader_query_host_address,
                hsa_ven_amd_loader_query_segment_descriptors,
                hsa_ven_amd_loader_query_executable,
            }
        ),
        layout!(
            "hsa_ven_amd_loader_1_01_pfn_t",
            hsa_ven_amd_loader_1_01_pfn_t {
                hsa_ven_amd_loader_query_host_address,
                hsa_ven_amd_loader_query_segment_descriptors,
                hsa_ven_amd_loader_query_executable,
                hsa_ven_amd_loader_executable_iterate_loaded_code_objects,
                hsa_ven_amd_loader_loaded_code_object_get_info,
            }
        ),
        layout!(
            "hsa_ven_amd_loader_1_02_pfn_t",
            hsa_ven_amd_loader_1_02_pfn_t {
                hsa_ven_amd_loader_query_host_address,
                hsa_ven_amd_loader_query_segment_descriptors,
                hsa_ven_amd_loader_query_executable,
                hsa_ven_amd_loader_executable_iterate_loaded_code_objects,
                hsa_ven_amd_loader_loaded_code_object_get_info,
                hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size,
            }
        ),
        layout!(
            "hsa_ven_amd_loader_1_03_pfn_t",
            hsa_ven_amd_loader_1_03_pfn_t {
                hsa_ven_amd_loader_query_host_address,
                hsa_ven_amd_loader_query_segment_descriptors,
                hsa_ven_amd_loader_query_executable,
                hsa_ven_amd_loader_executable_iterate_loaded_code_objects,
                hsa_ven_amd_loader_loaded_code_object_get_info,
                hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size,
                hsa_ven_amd_loader_iterate_executables,
            }
        ),
        layout!(
            "hsa_ext_images_1_00_pfn_t",
            hsa_ext_images_1_00_pfn_t {
                hsa_ext_image_get_capability,
                hsa_ext_image_data_get_info,
                hsa_ext_image_create,
                hsa_ext_image_destroy,
                hsa_ext_image_copy,
                hsa_ext_image_import,
                hsa_ext_image_export,
                hsa_ext_image_clear,
                hsa_ext_sampler_create,
                hsa_ext_sampler_destroy,
            }
        ),
        layout!(
            "hsa_ext_images_1_pfn_t",
            hsa_ext_images_1_pfn_t {
                hsa_ext_image_get_capability,
                hsa_ext_image_data_get_info,
                hsa_ext_image_create,
                hsa_ext_image_destroy,
                hsa_ext_image_copy,
                hsa_ext_image_import,
                hsa_ext_image_export,
                hsa_ext_image_clear,
                hsa_ext_sampler_create,
                hsa_ext_sampler_destroy,
                hsa_ext_image_get_capability_with_layout,
                hsa_ext_image_data_get_info_with_layout,
                hsa_ext_image_create_with_layout,
            }
        ),
        layout!(
            "hsa_ext_finalizer_1_00_pfn_t",
            hsa_ext_finalizer_1_00_pfn_t {
                hsa_ext_program_create,
                hsa_ext_program_destroy,
                hsa_ext_program_add_module,
                hsa_ext_program_iterate_modules,
                hsa_ext_program_get_info,
                hsa_ext_program_finalize,
            }
        ),
    ];
    macro_rules! handles {
        ($($t:ident),*) => {$( layouts.push(layout!(stringify!($t), $t { handle })); )*};
    }
    handles!(
        hsa_agent_t,
        hsa_signal_t,
        hsa_signal_group_t,
        hsa_region_t,
        hsa_cache_t,
        hsa_isa_t,
        hsa_wavefront_t,
        hsa_code_object_reader_t,
        hsa_executable_t,
        hsa_loaded_code_object_t,
        hsa_executable_symbol_t,
        hsa_code_object_t,
        hsa_callback_data_t,
        hsa_code_symbol_t,
        hsa_amd_memory_pool_t,
        hsa_ext_image_t,
        hsa_ext_sampler_t,
        hsa_ext_program_t
    );
    let errors =
        without_shared_padding(compare_layouts("cabi_layouts", HEADERS, &layouts), &layouts);
    assert!(
        errors.is_empty(),
        "layout mismatches:\n{}",
        errors.join("\n")
    );
}

#[test]
fn cabi_enumerators_match_rocr_headers() {
    require_headers();
    let mut consts: Vec<(&str, i128)> = consts::ALL.to_vec();
    macro_rules! all {
        ($($e:ty),*) => {$(
            consts.extend(<$e>::ALL.iter().map(|a| (a.c_name(), *a as u32 as i128)));
        )*};
    }
    all!(
        SystemInfo,
        AgentInfo,
        AmdAgentInfo,
        IsaInfo,
        PoolInfo,
        RegionInfo,
        AgentMemoryPoolInfo,
        Profile,
        DefaultFloatRoundingMode,
        ExecutableState,
        ExecutableInfo,
        SymbolKind,
        SymbolLinkage,
        VariableAllocation,
        VariableSegment
    );
    consts.extend(Status::ALL.iter().map(|s| (s.c_name(), *s as u32 as i128)));
    // The runtime's C-value constants the library writes through.
    use runtime::info as i;
    consts.extend([
        (
            "HSA_AGENT_FEATURE_KERNEL_DISPATCH",
            i::AGENT_FEATURE_KERNEL_DISPATCH.into(),
        ),
        (
            "HSA_AGENT_FEATURE_AGENT_DISPATCH",
            i::AGENT_FEATURE_AGENT_DISPATCH.into(),
        ),
        ("HSA_MACHINE_MODEL_SMALL", i::MACHINE_MODEL_SMALL.into()),
        ("HSA_MACHINE_MODEL_LARGE", i::MACHINE_MODEL_LARGE.into()),
        ("HSA_PROFILE_BASE", i::PROFILE_BASE.into()),
        ("HSA_PROFILE_FULL", i::PROFILE_FULL.into()),
        (
            "HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR",
            i::FLOAT_ROUNDING_MODE_NEAR.into(),
        ),
        ("HSA_QUEUE_TYPE_MULTI", i::QUEUE_TYPE_MULTI.into()),
        ("HSA_ENDIANNESS_LITTLE", i::ENDIANNESS_LITTLE.into()),
        ("HSA_ENDIANNESS_BIG", i::ENDIANNESS_BIG.into()),
        (
            "HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED",
            i::ACCESS_NEVER_ALLOWED.into(),
        ),
        (
            "HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT",
            i::ACCESS_ALLOWED_BY_DEFAULT.into(),
        ),
        (
            "HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT",
            i::ACCESS_DISALLOWED_BY_DEFAULT.into(),
        ),
        (
            "HSA_EXT_POINTER_TYPE_UNKNOWN",
            runtime::PointerType::Unknown as i128,
        ),
        (
            "HSA_EXT_POINTER_TYPE_HSA",
            runtime::PointerType::Hsa as i128,
        ),
        (
            "HSA_EXT_POINTER_TYPE_LOCKED",
            runtime::PointerType::Locked as i128,
        ),
        ("HSA_DEVICE_TYPE_CPU", runtime::DeviceType::Cpu as i128),
        ("HSA_DEVICE_TYPE_GPU", runtime::DeviceType::Gpu as i128),
        ("HSA_DEVICE_TYPE_DSP", runtime::DeviceType::Dsp as i128),
        ("HSA_QUEUE_TYPE_SINGLE", runtime::QueueKind::Single as i128),
    ]);
    // Symbol attributes: ROCr's additions are not in the 5.2.3 headers.
    consts.extend(
        SymbolInfo::ALL
            .iter()
            .filter(|a| a.c_name().starts_with("HSA_EXECUTABLE_SYMBOL_INFO_"))
            .map(|a| (a.c_name(), *a as u32 as i128)),
    );
    let errors = compare_constants("cabi_constants", HEADERS, &consts);
    assert!(
        errors.is_empty(),
        "constant mismatches:\n{}",
        errors.join("\n")
    );
}
