#include "amdgcn.h"

int printf(__constant const char *restrict format, ...);

// The backend lowers OpenCL printf to a call of __printf_alloc (normally in
// the ROCm device libraries): reserve `bytes` in the printf buffer whose
// address is the hidden_printf_buffer argument (byte 24 of the hidden
// arguments before v5, byte 72 from v5). The buffer starts with the write
// offset and the capacity, both uint.
__global char *__printf_alloc(uint bytes) {
    __constant ulong *hidden = (__constant ulong *)__builtin_amdgcn_implicitarg_ptr();
#if COV >= 5
    __global uint *buffer = (__global uint *)hidden[9];
#else
    __global uint *buffer = (__global uint *)hidden[3];
#endif
    if (buffer == 0)
        return 0;
    uint offset = __hip_atomic_fetch_add(&buffer[0], bytes, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    if ((ulong)offset + bytes > buffer[1])
        return 0;
    return (__global char *)buffer + 8 + offset;
}

// Uses the grid geometry and global offsets (hidden arguments) and printf.
kernel void dispatch_geometry(global ulong *out) {
    size_t gid = get_global_id(0) + get_global_size(0) * (get_global_id(1) + get_global_size(1) * get_global_id(2));
    out[gid * 4 + 0] = get_global_size(0) * get_global_size(1) * get_global_size(2);
    out[gid * 4 + 1] = get_num_groups(0) * get_num_groups(1) * get_num_groups(2);
    out[gid * 4 + 2] = get_global_offset(0) + get_global_offset(1) + get_global_offset(2);
    out[gid * 4 + 3] = get_local_size(0) * get_local_size(1) * get_local_size(2);
    if (gid == 0)
        printf("grid %lu x %lu x %lu, %lu groups, offset %lu\n", get_global_size(0), get_global_size(1),
               get_global_size(2), out[1], out[2]);
}
