// Conformance kernels for the sim's shader core (OpenCL C 2.0, clang-19,
// gfx90a, code object v5). Each kernel's result is compared with a Rust
// reference in sim/tests/conformance.rs.
#include "amdgcn.h"

// -nogpulib: no OpenCL builtin library, so the builtins used are clang's.
#define AT(op, p, v) __hip_atomic_##op((p), (v), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)
#define LAT(op, p, v) __hip_atomic_##op((p), (v), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP)
static inline int imin(int a, int b) { return a < b ? a : b; }
static inline int imax(int a, int b) { return a > b ? a : b; }
static inline uint umin(uint a, uint b) { return a < b ? a : b; }
static inline uint umax(uint a, uint b) { return a > b ? a : b; }

// LDS tree reduction with barriers: out[group] = sum of the group's 256 inputs.
__attribute__((reqd_work_group_size(256, 1, 1)))
kernel void lds_reduce(global const float *in, global float *out) {
    local float tmp[256];
    uint l = get_local_id(0);
    tmp[l] = in[get_global_id(0)];
    barrier_local();
    for (uint s = 128; s > 0; s >>= 1) {
        if (l < s)
            tmp[l] += tmp[l + s];
        barrier_local();
    }
    if (l == 0)
        out[get_group_id(0)] = tmp[0];
}

// 32-bit global atomics of every kind; old values returned to `ret`.
kernel void global_atomics(global int *c, global uint *u, global int *ret) {
    int i = (int)get_global_id(0);
    ret[i] = AT(fetch_add, &c[0], 1);
    AT(fetch_sub, &c[1], 2);
    AT(fetch_max, &c[2], i);
    AT(fetch_min, &c[3], -i);
    AT(fetch_or, &u[0], 1u << (i & 31));
    AT(fetch_and, &u[1], ~(1u << (i & 31)));
    AT(fetch_xor, &u[2], (uint)i * 2654435761u);
    AT(fetch_max, &u[3], (uint)i * 7u);
    AT(fetch_min, &u[4], (uint)i + 5u);
    __builtin_amdgcn_atomic_inc32(&u[5], 0xffffffffu, __ATOMIC_RELAXED, "agent");
    __builtin_amdgcn_atomic_dec32(&u[6], 0xffffffffu, __ATOMIC_RELAXED, "agent");
    // A CAS loop: multiply c[4] by 3 once per work-item (mod 2^32).
    int old = c[4];
    while (!__hip_atomic_compare_exchange_strong(&c[4], &old, old * 3, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                                 __HIP_MEMORY_SCOPE_AGENT))
        ;
    AT(exchange, &c[5], 77);
}

// 64-bit and float global atomics (OpenCL 2.0 generic atomics).
kernel void global_atomics_64(global ulong *a, global long *b, global float *f) {
    ulong i = get_global_id(0);
    AT(fetch_add, &a[0], i << 33);
    AT(fetch_max, &a[1], i * 0x100000001ul);
    AT(fetch_min, &b[0], -(long)i << 31);
    AT(fetch_xor, &a[2], i * 0x9e3779b97f4a7c15ul);
    // Exactly representable adds: the float sum is order independent
    // (global_atomic_add_f32 on gfx90a).
    AT(fetch_add, &f[0], 1.0f);
    AT(fetch_add, &f[1], (float)i);
}

// LDS atomics, then one work-item publishes the group's results.
__attribute__((reqd_work_group_size(128, 1, 1)))
kernel void local_atomics(global uint *out) {
    local uint s[8];
    uint l = get_local_id(0);
    if (l < 8)
        s[l] = l == 2 ? 0xffffffffu : 0;
    barrier_local();
    LAT(fetch_add, &s[0], l);
    LAT(fetch_max, &s[1], l * 3u);
    LAT(fetch_min, &s[2], l + 10u);
    LAT(fetch_or, &s[3], 1u << (l & 31));
    LAT(fetch_xor, &s[4], l * 0x01010101u);
    __builtin_amdgcn_atomic_inc32(&s[5], 0xffffffffu, __ATOMIC_RELAXED, "workgroup");
    uint old = LAT(exchange, &s[6], l + 1);
    LAT(fetch_add, &s[7], old == 0 ? 1u : 0u);
    barrier_local();
    if (l < 8)
        out[get_group_id(0) * 8 + l] = s[l];
}

// A private array indexed dynamically (scratch).
kernel void private_array(global const uint *in, global uint *out) {
    uint g = get_global_id(0);
    uint a[48];
    for (uint k = 0; k < 48; k++)
        a[k] = in[(g + k) % 64] ^ (k * 0x9e3779b9u);
    uint acc = 0;
    for (uint k = 0; k < 48; k++)
        acc = acc * 31u + a[(k * 7u + g) % 48u];
    out[g] = acc;
}

__attribute__((noinline)) uint fib(uint n) {
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) float mix3(float a, float b, float c) {
    return a * 0.25f + b * 0.5f + c;
}

// Function calls and recursion (s_swappc_b64 / s_setpc_b64, a stack in scratch).
kernel void calls(global uint *out, global float *fout) {
    uint g = get_global_id(0);
    out[g] = fib(g % 16);
    fout[g] = mix3((float)g, (float)(g * 3), 1.5f);
}

// Integer operators over edge values: in[] holds pairs (a, b).
kernel void int_ops(global const int *in, global int *out) {
    uint g = get_global_id(0);
    int a = in[2 * g], b = in[2 * g + 1];
    uint ua = (uint)a, ub = (uint)b;
    global int *o = out + 24 * g;
    o[0] = (int)(ua + ub);
    o[1] = (int)(ua - ub);
    o[2] = (int)(ua * ub);
    o[3] = b != 0 && !(a == INT_MIN && b == -1) ? a / b : 0;
    o[4] = b != 0 && !(a == INT_MIN && b == -1) ? a % b : 0;
    o[5] = ub != 0 ? (int)(ua / ub) : 0;
    o[6] = ub != 0 ? (int)(ua % ub) : 0;
    o[7] = (int)(ua << (ub & 31));
    o[8] = a >> (b & 31);
    o[9] = (int)(ua >> (ub & 31));
    o[10] = (int)(((long)a * b) >> 32);
    o[11] = (int)(((ulong)ua * ub) >> 32);
    o[12] = imin(a, b);
    o[13] = imax(a, b);
    o[14] = (int)umin(ua, ub);
    o[15] = (int)umax(ua, ub);
    o[16] = ua == 0 ? 32 : __builtin_clz(ua);
    o[17] = __builtin_popcount(ua);
    o[18] = (int)((ua << (ub & 31)) | (ua >> ((32 - ub) & 31)));
    long s = (long)a + b, d = (long)a - b;
    o[19] = s > 2147483647 ? 2147483647 : s < INT_MIN ? INT_MIN : (int)s;
    o[20] = d > 2147483647 ? 2147483647 : d < INT_MIN ? INT_MIN : (int)d;
    o[21] = (int)(a < 0 ? 0u - ua : ua);
    o[22] = (a < b) | ((a == b) << 1) | ((ua < ub) << 2);
    o[23] = (int)(((ulong)ua * ub) >> 7) ^ (int)(((long)a * b) >> 40);
}

// Float operators (IEEE-exact ones): in[] holds pairs (a, b).
kernel void float_ops(global const float *in, global float *out) {
    uint g = get_global_id(0);
    float a = in[2 * g], b = in[2 * g + 1];
    global float *o = out + 16 * g;
    o[0] = a + b;
    o[1] = a - b;
    o[2] = a * b;
    o[3] = __builtin_fmaf(a, b, 1.0f);
    o[4] = __builtin_fminf(a, b);
    o[5] = __builtin_fmaxf(a, b);
    o[6] = __builtin_floorf(a);
    o[7] = __builtin_ceilf(a);
    o[8] = __builtin_truncf(a);
    o[9] = __builtin_rintf(a);
    o[10] = __builtin_fabsf(a) * -b;
    o[11] = __builtin_copysignf(a, b);
    o[12] = (float)(int)b;
    o[13] = (float)(uint)(int)b;
    o[14] = a < b ? a : b;
    o[15] = __builtin_ldexpf(a, (int)b % 64);
}

// Conversions between f32 and 32-bit integers (in range: out-of-range
// conversions are undefined in C).
kernel void conversions(global const float *in, global int *out) {
    uint g = get_global_id(0);
    float a = in[g];
    global int *o = out + 4 * g;
    o[0] = (int)a;
    o[1] = (int)(uint)__builtin_fabsf(a);
    o[2] = (int)__builtin_floorf(a);
    o[3] = as_int((float)((int)(a * 1000.0f) >> 3)) ^ as_int((float)((uint)(g * 2654435761u)));
}

// Cross-lane builtins.
kernel void lanes(global const uint *in, global uint *out) {
    uint g = get_global_id(0);
    uint v = in[g];
    global uint *o = out + 6 * g;
    o[0] = __builtin_amdgcn_readfirstlane(v);
    o[1] = __builtin_amdgcn_ds_bpermute((int)((g ^ 5) & 63) * 4, (int)v);
    o[2] = __builtin_amdgcn_ds_swizzle((int)v, 0x041f); // xor 1 within 32 lanes
    o[3] = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
    o[4] = __builtin_amdgcn_ds_permute((int)((g + 1) & 63) * 4, (int)v);
    o[5] = __builtin_amdgcn_readlane(v, 17);
}

// 2D grid with partial work-groups: each work-item writes its coordinates.
kernel void grid2d(global uint *out, uint width) {
    uint x = get_global_id(0), y = get_global_id(1);
    out[y * width + x] = (y << 16) | x | (get_local_id(1) << 28);
}

// Clocks and hardware registers.
kernel void clocks(global ulong *out) {
    ulong t0 = __builtin_amdgcn_s_memtime();
    ulong r0 = __builtin_amdgcn_s_memrealtime();
    ulong t1 = __builtin_amdgcn_s_memtime();
    uint hwid = __builtin_amdgcn_s_getreg((4 << 0) | (0 << 6) | (31 << 11)); // HW_ID, all 32 bits
    uint mode = __builtin_amdgcn_s_getreg((1 << 0) | (0 << 6) | (31 << 11)); // MODE
    if (get_global_id(0) == 0) {
        out[0] = t0;
        out[1] = t1;
        out[2] = r0;
        out[3] = hwid;
        out[4] = mode;
    }
}

// Faults.
kernel void trap(global uint *out) {
    out[0] = 1;
    __builtin_trap();
}

kernel void store_to(global uint *p) {
    p[get_global_id(0) * 1024] = 7;
}
