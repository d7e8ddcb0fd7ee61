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
