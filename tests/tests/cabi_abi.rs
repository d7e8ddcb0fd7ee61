//! ABI parity of the C library (`cabi`, `libhsa-runtime64.so.1`) with
//! ROCr 5.2.3's real headers (`hsa.h`, `hsa_ext_amd.h`,
//! `hsa_ven_amd_loader.h`, `hsa_ext_image.h`, `hsa_ext_finalize.h`):
//! every struct the library's functions take or return (size, alignment,
//! each field's offset and size; the packets and `hsa_queue_t` are
//! `aql_abi.rs`'s), the extension tables, and every enumerator the
//! library or the runtime's attribute enums use (`hsa_status_t`, every
//! `*_info_t`, the symbol and executable enums, segments, flags, link
//! types, fault reasons, SVM attributes). Every enumerator of the four
//! headers is either compared by value or listed in `UNUSED` with why no
//! code of ours reads or writes it.

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

/// The enumerators the library and the runtime use, with their Rust
/// values.
fn cabi_constants() -> Vec<(&'static str, i128)> {
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
        (
            "HSA_EXT_POINTER_TYPE_GRAPHICS",
            runtime::PointerType::Graphics as i128,
        ),
        (
            "HSA_EXT_POINTER_TYPE_IPC",
            runtime::PointerType::Ipc as i128,
        ),
        (
            "HSA_ACCESS_PERMISSION_WO",
            runtime::vmem::AccessPermission::WriteOnly as i128,
        ),
    ]);
    // Segments, pool and region flags, link types: the values info and
    // pointer-info answers are made of.
    use runtime::memory::{self as m, Segment};
    for (amd, region, seg) in [
        (
            "HSA_AMD_SEGMENT_GLOBAL",
            "HSA_REGION_SEGMENT_GLOBAL",
            Segment::Global,
        ),
        (
            "HSA_AMD_SEGMENT_READONLY",
            "HSA_REGION_SEGMENT_READONLY",
            Segment::ReadOnly,
        ),
        (
            "HSA_AMD_SEGMENT_PRIVATE",
            "HSA_REGION_SEGMENT_PRIVATE",
            Segment::Private,
        ),
        (
            "HSA_AMD_SEGMENT_GROUP",
            "HSA_REGION_SEGMENT_GROUP",
            Segment::Group,
        ),
    ] {
        consts.extend([(amd, seg as i128), (region, seg as i128)]);
    }
    for (amd, region, flag) in [
        (
            "HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT",
            "HSA_REGION_GLOBAL_FLAG_KERNARG",
            m::GLOBAL_FLAG_KERNARG,
        ),
        (
            "HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED",
            "HSA_REGION_GLOBAL_FLAG_FINE_GRAINED",
            m::GLOBAL_FLAG_FINE_GRAINED,
        ),
        (
            "HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED",
            "HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED",
            m::GLOBAL_FLAG_COARSE_GRAINED,
        ),
    ] {
        consts.extend([(amd, flag.into()), (region, flag.into())]);
    }
    consts.extend([
        (
            "HSA_AMD_LINK_INFO_TYPE_HYPERTRANSPORT",
            i::LINK_INFO_TYPE_HYPERTRANSPORT.into(),
        ),
        ("HSA_AMD_LINK_INFO_TYPE_QPI", i::LINK_INFO_TYPE_QPI.into()),
        ("HSA_AMD_LINK_INFO_TYPE_PCIE", i::LINK_INFO_TYPE_PCIE.into()),
        (
            "HSA_AMD_LINK_INFO_TYPE_INFINBAND",
            i::LINK_INFO_TYPE_INFINIBAND.into(),
        ),
        ("HSA_AMD_LINK_INFO_TYPE_XGMI", i::LINK_INFO_TYPE_XGMI.into()),
    ]);
    // The memory fault reasons of HSA_AMD_GPU_MEMORY_FAULT_EVENT.
    use runtime::system_events as se;
    consts.extend([
        (
            "HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT",
            se::MEMORY_FAULT_PAGE_NOT_PRESENT.into(),
        ),
        (
            "HSA_AMD_MEMORY_FAULT_READ_ONLY",
            se::MEMORY_FAULT_READ_ONLY.into(),
        ),
        ("HSA_AMD_MEMORY_FAULT_NX", se::MEMORY_FAULT_NX.into()),
        (
            "HSA_AMD_MEMORY_FAULT_HOST_ONLY",
            se::MEMORY_FAULT_HOST_ONLY.into(),
        ),
        (
            "HSA_AMD_MEMORY_FAULT_DRAMECC",
            se::MEMORY_FAULT_DRAMECC.into(),
        ),
        (
            "HSA_AMD_MEMORY_FAULT_IMPRECISE",
            se::MEMORY_FAULT_IMPRECISE.into(),
        ),
        (
            "HSA_AMD_MEMORY_FAULT_SRAMECC",
            se::MEMORY_FAULT_SRAMECC.into(),
        ),
        // 1 << 31 in a C enum is an int: INT_MIN, the same bits.
        (
            "HSA_AMD_MEMORY_FAULT_HANG",
            (se::MEMORY_FAULT_HANG as i32).into(),
        ),
    ]);
    // hsa.h's pre-1.1 names of the fence-scope widths.
    consts.extend([
        (
            "HSA_PACKET_HEADER_WIDTH_ACQUIRE_FENCE_SCOPE",
            aql::header::HEADER_ACQUIRE_FENCE_SCOPE_WIDTH.into(),
        ),
        (
            "HSA_PACKET_HEADER_WIDTH_RELEASE_FENCE_SCOPE",
            aql::header::HEADER_RELEASE_FENCE_SCOPE_WIDTH.into(),
        ),
    ]);
    // Symbol attributes: ROCr's additions are not in the 5.2.3 headers.
    consts.extend(
        SymbolInfo::ALL
            .iter()
            .filter(|a| a.c_name().starts_with("HSA_EXECUTABLE_SYMBOL_INFO_"))
            .map(|a| (a.c_name(), *a as u32 as i128)),
    );
    consts
}

#[test]
fn cabi_enumerators_match_rocr_headers() {
    require_headers();
    let consts = cabi_constants();
    let errors = compare_constants("cabi_constants", HEADERS, &consts);
    assert!(
        errors.is_empty(),
        "constant mismatches:\n{}",
        errors.join("\n")
    );
}

/// Every enumerator declared in `text` (a C header): the names in each
/// `enum { ... }` body, comments removed.
fn header_enumerators(text: &str) -> Vec<String> {
    let mut plain = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['/']) {
        plain.push_str(&rest[..i]);
        let after = &rest[i..];
        if let Some(body) = after.strip_prefix("/*") {
            rest = body.find("*/").map_or("", |e| &body[e + 2..]);
        } else if after.starts_with("//") {
            rest = after.find('\n').map_or("", |e| &after[e..]);
        } else {
            plain.push('/');
            rest = &after[1..];
        }
    }
    plain.push_str(rest);
    let mut names = Vec::new();
    let mut at = 0;
    while let Some(k) = plain[at..].find("enum") {
        let start = at + k;
        at = start + 4;
        let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
        if plain[..start].ends_with(word) || plain[at..].starts_with(word) {
            continue;
        }
        // `enum NAME {` or `enum {`; `enum NAME x;` has no body.
        let Some(open) = plain[at..].find(['{', ';']) else {
            break;
        };
        if !plain[at + open..].starts_with('{') {
            continue;
        }
        let body_start = at + open + 1;
        let Some(close) = plain[body_start..].find('}') else {
            break;
        };
        for item in plain[body_start..body_start + close].split(',') {
            let name: String = item.trim().chars().take_while(|&c| word(c)).collect();
            if !name.is_empty() {
                names.push(name);
            }
        }
        at = body_start + close;
    }
    names
}

/// Enumerators no code of the library or the runtime reads or writes, by
/// group, with why: nothing of ours can disagree with the header about
/// them. Any other enumerator of the four headers must be checked by
/// value (`cabi_enumerators_match_rocr_headers`, or `aql_abi.rs` and
/// `signal_abi.rs` for the packet, queue and signal ones).
const UNUSED: &[(&str, &str)] = &[
    (
        "HSA_REGION_SEGMENT_KERNARG",
        "no region is in the kernarg segment, ROCr's or ours: the kernarg region is GLOBAL with the KERNARG flag",
    ),
    (
        "HSA_EXCEPTION_POLICY_",
        "the exception-policy masks answer 0 (no policy), as ROCr's",
    ),
    (
        "HSA_ROUND_METHOD_DOUBLE",
        "hsa_isa_get_round_method answers SINGLE for every type, as ROCr's",
    ),
    (
        "HSA_CODE_OBJECT_TYPE_",
        "the pre-1.1 code object API is not implemented (HSA_STATUS_ERROR; ARCHITECTURE.md, \"The C ABI library\")",
    ),
    (
        "HSA_CODE_SYMBOL_INFO_",
        "the pre-1.1 code object API is not implemented (hsa_code_symbol_get_info: HSA_STATUS_ERROR)",
    ),
    (
        "HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_NONE",
        "every loaded code object is reported stored in memory (STORAGE_TYPE_MEMORY: the loader copies files into memory)",
    ),
    (
        "HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_FILE",
        "every loaded code object is reported stored in memory",
    ),
    (
        "HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_KIND_PROGRAM",
        "program (agent-less) code objects are not loaded: every loaded code object is KIND_AGENT",
    ),
    (
        "HSA_EXT_AGENT_INFO_MAX_IMAGE",
        "the images extension's agent attributes",
    ),
    (
        "HSA_EXT_IMAGE_",
        "the images extension: its table's functions answer NOT_INITIALIZED, as ROCr's without the image library",
    ),
    ("HSA_EXT_SAMPLER_", "the images extension (samplers)"),
    (
        "HSA_EXT_AGENT_INFO_IMAGE",
        "the images extension's agent attributes: get_info refuses them as ROCr without images",
    ),
    (
        "HSA_EXT_AGENT_INFO_MAX_SAMPLER",
        "the images extension's agent attributes",
    ),
    (
        "HSA_EXT_STATUS_ERROR_IMAGE",
        "the images extension's statuses",
    ),
    (
        "HSA_EXT_STATUS_ERROR_SAMPLER",
        "the images extension's statuses",
    ),
];

#[test]
fn every_enumerator_of_the_headers_is_checked_or_unused() {
    require_headers();
    let mut checked: std::collections::BTreeSet<String> = cabi_constants()
        .iter()
        .map(|(n, _)| (*n).to_owned())
        .collect();
    // The names aql_abi.rs and signal_abi.rs compare by value.
    for src in [include_str!("aql_abi.rs"), include_str!("signal_abi.rs")] {
        for part in src.split('"').skip(1).step_by(2) {
            checked.insert(part.to_owned());
        }
    }
    let mut missing = Vec::new();
    let mut total = 0;
    for h in &HEADERS[..4] {
        let text = std::fs::read_to_string(format!("/usr/include/{h}")).unwrap();
        for name in header_enumerators(&text) {
            total += 1;
            if !checked.contains(&name) && !UNUSED.iter().any(|(p, _)| name.starts_with(p)) {
                missing.push(format!("{h}: {name}"));
            }
        }
    }
    assert!(
        total > 400,
        "only {total} enumerators read from the headers"
    );
    assert!(
        missing.is_empty(),
        "{} enumerators neither checked by value nor listed as unused:\n{}",
        missing.len(),
        missing.join("\n")
    );
}
