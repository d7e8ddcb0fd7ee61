// Kernels of the runtime's own tests, its benchmarks and `scripts/demo`.
// Built by build.sh (clang-19, gfx90a, code object v5); the .co is committed.
// -nogpulib: the work-item functions come from amdgcn.h (loader-core's corpus).
#include "amdgcn.h"

// c[i] = a[i] + b[i] for i < n.
kernel void vector_add(global const float *a, global const float *b,
                       global float *c, uint n) {
    uint i = get_global_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}

// y[i] = a * x[i] + y[i] for i < n.
kernel void saxpy(float a, global const float *x, global float *y, uint n) {
    uint i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}

// Does nothing: the dispatch round trip alone.
kernel void empty(void) {}

// Sums in[] into out[group] with group memory given as a __local pointer.
kernel void local_sum(global const uint *in, global uint *out, local uint *tmp) {
    uint l = get_local_id(0);
    tmp[l] = in[get_global_id(0)];
    barrier_local();
    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (l < s)
            tmp[l] += tmp[l + s];
        barrier_local();
    }
    if (l == 0)
        out[get_group_id(0)] = tmp[0];
}

// A private array indexed at run time: needs scratch.
kernel void private_scratch(global const uint *in, global uint *out) {
    uint buf[256];
    uint i = get_global_id(0);
    for (uint k = 0; k < 256; k++)
        buf[k] = in[i] * k;
    out[i] = buf[in[i] & 255];
}

// Stores to an address the caller gives: a bad one is a memory fault.
kernel void store_to(global uint *p) {
    p[get_global_id(0)] = 1;
}
