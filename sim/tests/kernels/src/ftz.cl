// f32 division and sqrt with -cl-denorms-are-zero (f32 denormals flushed:
// MODE.FP_DENORM[1:0] = 0; clang switches denormals on around the
// division's scaling steps). build.sh adds the flag for this file.
#include "amdgcn.h"

kernel void f32_div_ftz(global const float *a, global const float *b, global const float *c, global float *out) {
    size_t i = get_global_id(0);
    (void)c;
    out[i] = a[i] / b[i];
}

kernel void f32_sqrt_ftz(global const float *a, global const float *b, global const float *c, global float *out) {
    size_t i = get_global_id(0);
    (void)b;
    (void)c;
    out[i] = __builtin_sqrtf(a[i]);
}
