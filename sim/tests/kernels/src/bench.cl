// The shader core's figures (sim/benches/shader.rs): streaming kernels and
// a compute-bound one, each with a native Rust loop of the same work.
#include "amdgcn.h"

// c[i] = a[i] + b[i].
kernel void bench_vadd(global const float *a, global const float *b, global float *c, uint n) {
    uint i = get_global_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}

// y[i] = alpha * x[i] + y[i] (fused: v_fmac_f32).
kernel void bench_saxpy(float alpha, global const float *x, global float *y, uint n) {
    uint i = get_global_id(0);
    if (i < n)
        y[i] = __builtin_fmaf(alpha, x[i], y[i]);
}

// 256 dependent FMAs per work-item: x = x * a + b, 256 times.
kernel void bench_fma256(global float *x, float a, float b, uint n) {
    uint i = get_global_id(0);
    if (i >= n)
        return;
    float v = x[i];
#pragma unroll
    for (int k = 0; k < 256; k++)
        v = __builtin_fmaf(v, a, b);
    x[i] = v;
}
