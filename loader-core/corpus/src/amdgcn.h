// Work-item functions of OpenCL C 2.0 section 6.13.1, written over clang's
// __builtin_amdgcn_* builtins because the corpus is built with -nogpulib
// (no ROCm device libraries). Sizes come from the AQL kernel dispatch packet
// (hsa.h hsa_kernel_dispatch_packet_t: workgroup_size_x at byte 4, grid_size_x
// at byte 12); the global offset from the implicit (hidden) kernel arguments,
// whose layout changed with code-object v5 (AMDGPUUsage, "Code Object V5
// Metadata", hidden kernel arguments).
#ifndef CORPUS_AMDGCN_H
#define CORPUS_AMDGCN_H

#ifndef COV
#error "build.sh passes -DCOV=<code-object version>"
#endif

typedef struct {
    ushort header;
    ushort setup;
    ushort workgroup_size[3];
    ushort reserved0;
    uint grid_size[3];
} dispatch_packet_prefix;

static inline __constant dispatch_packet_prefix *dispatch_packet(void) {
    return (__constant dispatch_packet_prefix *)__builtin_amdgcn_dispatch_ptr();
}

static inline size_t get_local_id(uint dim) {
    switch (dim) {
    case 0: return __builtin_amdgcn_workitem_id_x();
    case 1: return __builtin_amdgcn_workitem_id_y();
    case 2: return __builtin_amdgcn_workitem_id_z();
    default: return 0;
    }
}

static inline size_t get_group_id(uint dim) {
    switch (dim) {
    case 0: return __builtin_amdgcn_workgroup_id_x();
    case 1: return __builtin_amdgcn_workgroup_id_y();
    case 2: return __builtin_amdgcn_workgroup_id_z();
    default: return 0;
    }
}

static inline size_t get_local_size(uint dim) {
    return dim < 3 ? dispatch_packet()->workgroup_size[dim] : 1;
}

static inline size_t get_global_size(uint dim) {
    return dim < 3 ? dispatch_packet()->grid_size[dim] : 1;
}

static inline size_t get_num_groups(uint dim) {
    size_t group = get_local_size(dim);
    return (get_global_size(dim) + group - 1) / group;
}

static inline size_t get_global_offset(uint dim) {
    if (dim >= 3)
        return 0;
    __constant ulong *hidden = (__constant ulong *)__builtin_amdgcn_implicitarg_ptr();
#if COV >= 5
    return hidden[5 + dim]; // hidden_global_offset_x at byte 40
#else
    return hidden[dim];     // hidden_global_offset_x at byte 0
#endif
}

static inline size_t get_global_id(uint dim) {
    return get_group_id(dim) * get_local_size(dim) + get_local_id(dim) + get_global_offset(dim);
}

// Memory scopes of the __hip_atomic_* builtins (clang predefines these names
// only in HIP mode; the values are clang's SyncScope::HIP* numbering).
#ifndef __HIP_MEMORY_SCOPE_WORKGROUP
#define __HIP_MEMORY_SCOPE_WAVEFRONT 2
#define __HIP_MEMORY_SCOPE_WORKGROUP 3
#define __HIP_MEMORY_SCOPE_AGENT 4
#define __HIP_MEMORY_SCOPE_SYSTEM 5
#endif

static inline void barrier_local(void) {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

#endif
