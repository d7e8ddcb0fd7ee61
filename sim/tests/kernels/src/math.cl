// Floating-point conformance kernels (f32 division and sqrt, f64, f16) for
// the sim's shader core; built like basics.cl with
// -cl-fp32-correctly-rounded-divide-sqrt, so f32 `/` and sqrt are the
// correctly rounded expansions (v_div_scale / v_div_fmas / v_div_fixup).
// Each is compared bit for bit with Rust in sim/tests/conformance_math.rs.
// Every kernel has the same signature: three inputs, one output, one
// work-item per element.
#include "amdgcn.h"
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define K3(name, T, expr)                                                                          \
    kernel void name(global const T *a, global const T *b, global const T *c, global T *out) {     \
        size_t i = get_global_id(0);                                                               \
        T x = a[i], y = b[i], z = c[i];                                                            \
        (void)y;                                                                                   \
        (void)z;                                                                                   \
        out[i] = (expr);                                                                           \
    }

K3(f32_div, float, x / y)
K3(f32_sqrt, float, __builtin_sqrtf(x))
K3(f64_add, double, x + y)
K3(f64_sub, double, x - y)
K3(f64_mul, double, x * y)
K3(f64_fma, double, __builtin_fma(x, y, z))
K3(f64_div, double, x / y)
K3(f64_sqrt, double, __builtin_sqrt(x))
K3(f64_minmax, double, __builtin_fmin(x, y) + __builtin_fmax(y, z))
K3(f64_round, double, __builtin_floor(x) + __builtin_ceil(y) * 4.0 + __builtin_trunc(z) * 16.0)
K3(f64_rint, double, __builtin_rint(x))
K3(f64_ldexp, double, __builtin_ldexp(x, (int)y))
K3(f64_frexp_mant, double, ({ int e; __builtin_frexp(x, &e); }))
K3(f64_frexp_exp, double, ({ int e; __builtin_frexp(x, &e); (double)e; }))
K3(f64_to_f32_and_back, double, (double)(float)x)
K3(f64_i32_round_trip, double, (double)(int)x + (double)(uint)y)
K3(h_add, half, x + y)
K3(h_mul, half, x * y)
K3(h_fma, half, __builtin_fmaf16(x, y, z))
K3(h_mad, half, x * y + z)
K3(h_minmax, half, __builtin_fminf16(x, y))
K3(h_sub, half, x - y)

// One input type, another output type (conversions).
#define KC(name, TI, TO, expr)                                                                     \
    kernel void name(global const TI *a, global const TI *b, global const TI *c, global TO *out) { \
        size_t i = get_global_id(0);                                                               \
        TI x = a[i], y = b[i];                                                                     \
        (void)y;                                                                                   \
        (void)c;                                                                                   \
        out[i] = (expr);                                                                           \
    }

K3(h_floor, half, __builtin_floorf16(x))
K3(h_ceil, half, __builtin_ceilf16(x))
K3(h_trunc, half, __builtin_truncf16(x))
K3(h_rint, half, __builtin_rintf16(x))
K3(h_sqrt, half, __builtin_sqrtf16(x))
K3(h_ldexp, half, __builtin_ldexpf16(x, (int)y))
KC(h_to_f32, half, float, (float)x)
KC(f32_to_h, float, half, (half)x)
K3(f32_floor, float, __builtin_floorf(x))
K3(f32_ceil, float, __builtin_ceilf(x))
K3(f32_trunc, float, __builtin_truncf(x))
K3(f32_rint, float, __builtin_rintf(x))
K3(f32_ldexp, float, __builtin_ldexpf(x, (int)y))
KC(f32_to_i32, float, int, (int)x)
KC(f32_to_u32, float, uint, (uint)x)
KC(i32_to_f32, int, float, (float)x)
KC(u32_to_f32, uint, float, (float)x)
KC(i64_to_f32, long, float, (float)x)
KC(u64_to_f32, ulong, float, (float)x)
KC(i64_to_f64, long, double, (double)x)
KC(u64_to_f64, ulong, double, (double)x)
KC(f64_to_i64, double, long, (long)x)
KC(f64_to_u64, double, ulong, (ulong)x)
KC(f32_to_f64, float, double, (double)x)
K3(h_div, half, x / y)
