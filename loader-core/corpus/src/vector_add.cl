#include "amdgcn.h"

kernel void vector_add(global const float *restrict a, global const float *restrict b,
                       global float *restrict c, uint n) {
    size_t i = get_global_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}
