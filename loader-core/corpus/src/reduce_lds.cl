#include "amdgcn.h"

// Tree reduction in a static LDS array with work-group barriers.
__attribute__((reqd_work_group_size(128, 1, 1)))
kernel void reduce_sum_static(global const float *in, global float *partial, uint n) {
    local float scratch[128];
    size_t lid = get_local_id(0);
    size_t gid = get_global_id(0);
    scratch[lid] = gid < n ? in[gid] : 0.0f;
    barrier_local();
    for (uint stride = 64; stride > 0; stride >>= 1) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        barrier_local();
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}

// Same with LDS passed as a `local` pointer argument (dynamic group segment).
kernel void reduce_sum_dynamic(global const float *in, global float *partial, local float *scratch,
                               uint n) {
    size_t lid = get_local_id(0);
    size_t gid = get_global_id(0);
    size_t size = get_local_size(0);
    scratch[lid] = gid < n ? in[gid] : 0.0f;
    barrier_local();
    for (size_t stride = size / 2; stride > 0; stride >>= 1) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        barrier_local();
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
