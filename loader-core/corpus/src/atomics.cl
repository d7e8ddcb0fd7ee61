#include "amdgcn.h"

kernel void histogram256(global const uchar *data, uint n, volatile global uint *bins) {
    local uint local_bins[256];
    size_t lid = get_local_id(0);
    for (size_t i = lid; i < 256; i += get_local_size(0))
        __atomic_store_n(&local_bins[i], 0u, __ATOMIC_RELAXED);
    barrier_local();
    size_t gid = get_global_id(0);
    if (gid < n)
        __hip_atomic_fetch_add(&local_bins[data[gid]], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
    barrier_local();
    for (size_t i = lid; i < 256; i += get_local_size(0))
        __hip_atomic_fetch_add(&bins[i], local_bins[i], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

kernel void atomic_counters(global ulong *counter64, global int *min_max, global float *fsum,
                            global uint *cas_slot) {
    size_t gid = get_global_id(0);
    __hip_atomic_fetch_add(counter64, 1ul, __ATOMIC_SEQ_CST, __HIP_MEMORY_SCOPE_SYSTEM);
    __hip_atomic_fetch_min(&min_max[0], (int)gid, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_max(&min_max[1], (int)gid, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_add(fsum, 1.0f, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    uint expected = 0;
    __hip_atomic_compare_exchange_strong(cas_slot, &expected, (uint)gid + 1, __ATOMIC_ACQ_REL,
                                         __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
