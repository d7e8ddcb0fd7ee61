// Integer, vector, builtin, LDS and atomic conformance kernels for the
// sim's shader core, compared bit for bit with Rust in
// sim/tests/conformance_ints.rs. Most have the signature (a, b, c, out):
// three inputs and one output per work-item.
#include "amdgcn.h"

#define AT(op, p, v) __hip_atomic_##op((p), (v), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)
#define LAT(op, p, v) __hip_atomic_##op((p), (v), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP)

#define K3(name, T, expr)                                                                          \
    kernel void name(global const T *a, global const T *b, global const T *c, global T *out) {     \
        size_t i = get_global_id(0);                                                               \
        T x = a[i], y = b[i], z = c[i];                                                            \
        (void)y;                                                                                   \
        (void)z;                                                                                   \
        out[i] = (expr);                                                                           \
    }

// Division and remainder (the tests keep y != 0 and no INT_MIN / -1).
K3(u32_div, uint, x / y)
K3(u32_rem, uint, x % y)
K3(i32_div, int, x / y)
K3(i32_rem, int, x % y)
K3(u64_div, ulong, x / y)
K3(u64_rem, ulong, x % y)
K3(i64_div, long, x / y)
K3(i64_rem, long, x % y)

// Bit operations.
K3(u32_bits, uint,
   (uint)__builtin_popcount(x) | ((uint)__builtin_clzg(y, 32) << 8) | ((uint)__builtin_ctzg(z, 32) << 16))
K3(u64_bits, ulong,
   (ulong)__builtin_popcountll(x) | ((ulong)__builtin_clzg(y, 64) << 8) | ((ulong)__builtin_ctzg(z, 64) << 16))
K3(u32_rotate, uint, __builtin_rotateleft32(x, y) ^ __builtin_rotateright32(z, y & 7))
K3(u64_rotate, ulong, __builtin_rotateleft64(x, y) ^ __builtin_rotateright64(z, y & 7))
K3(u32_bitfield, uint, ((x >> (y & 15)) & 0xfffu) | (z << 20) | (x & ~y))

// mul_hi, mul24, mad24.
K3(u32_mul_hi, uint, (uint)(((ulong)x * y) >> 32))
K3(i32_mul_hi, int, (int)(((long)x * y) >> 32))
K3(u64_mul_hi, ulong, (ulong)(((unsigned __int128)x * y) >> 64))
K3(u32_mad24, uint, (x & 0xffffffu) * (y & 0xffffffu) + z)
K3(i32_mul24, int, ((x << 8) >> 8) * ((y << 8) >> 8) + z)
K3(u64_mul, ulong, x * y + z)

// min / max / clamp / select / compare.
K3(i32_min_max_clamp, int,
   (x < y ? x : y) ^ (y > z ? y : z) ^ (x < (y < z ? y : z) ? (y < z ? y : z) : x > (y < z ? z : y) ? (y < z ? z : y) : x))
K3(u32_min_max, uint, (x < y ? x : y) + (y > z ? y : z) * 3u)
K3(i64_min_max, long, (x < y ? x : y) - (y > z ? y : z))
K3(i32_select, int, (x == y ? 1 : 0) | (x != z ? 2 : 0) | (x < y ? 4 : 0) | (x <= z ? 8 : 0) | ((uint)x > (uint)y ? 16 : 0) | (x >= 0 ? z : y) << 5)
K3(f32_min_max_clamp, float,
   __builtin_fminf(x, y) + __builtin_fmaxf(y, z) * 2.0f + __builtin_fminf(__builtin_fmaxf(x, -1.0f), 1.0f) * 4.0f)
K3(f32_compare, float,
   (float)((x < y) | (x <= z) << 1 | (x == y) << 2 | (x != z) << 3 | (x > y) << 4 | (x >= z) << 5 |
           __builtin_isnan(x) << 6 | __builtin_isinf(y) << 7 | __builtin_isunordered(x, z) << 8 | __builtin_isfinite(z) << 9))
K3(f32_mad, float, x * y + z)

// Vector types.
K3(f32x4_ops, float4, x * y + z - (float4)(x.w, x.z, x.y, x.x))
K3(i32x4_ops, int4, ((x + y) * z) ^ (x >> 3) ^ (y << 2) ^ (x < y) ^ (x == z))
K3(u32x4_ops, uint4, (x / (y | 1u)) + (x % (z | 1u)) + x.yzwx)

// Inclusive prefix sum of each 256-element group (Hillis-Steele over LDS).
__attribute__((reqd_work_group_size(256, 1, 1)))
kernel void lds_scan(global const uint *a, global const uint *b, global const uint *c, global uint *out) {
    local uint t[2][256];
    uint l = get_local_id(0);
    size_t g = get_global_id(0);
    (void)b;
    (void)c;
    uint p = 0;
    t[0][l] = a[g];
    barrier_local();
    for (uint s = 1; s < 256; s <<= 1) {
        uint v = t[p][l];
        if (l >= s)
            v += t[p][l - s];
        t[p ^ 1][l] = v;
        p ^= 1;
        barrier_local();
    }
    out[g] = t[p][l];
}

// 64x64 u32 matrix transpose through a 16x16 LDS tile per group.
__attribute__((reqd_work_group_size(256, 1, 1)))
kernel void lds_transpose(global const uint *a, global const uint *b, global const uint *c, global uint *out) {
    local uint tile[16][17];
    (void)b;
    (void)c;
    uint l = get_local_id(0), grp = get_group_id(0);
    uint lx = l % 16, ly = l / 16, tx = grp % 4, ty = grp / 4;
    tile[ly][lx] = a[(ty * 16 + ly) * 64 + tx * 16 + lx];
    barrier_local();
    out[(tx * 16 + ly) * 64 + ty * 16 + lx] = tile[lx][ly];
}

// Every 32-bit atomic on LDS; one work-item per group publishes 12 words.
__attribute__((reqd_work_group_size(128, 1, 1)))
kernel void lds_atomics_all(global const uint *a, global const uint *b, global const uint *c, global uint *out) {
    local uint s[12];
    local int *si = (local int *)s;
    uint l = get_local_id(0);
    (void)b;
    (void)c;
    if (l < 12)
        s[l] = l == 2 ? 0xffffffffu : l == 3 ? 1000u : l == 5 ? 0x7fffffffu : l == 10 ? 50u : 0;
    barrier_local();
    uint v = a[get_global_id(0)];
    LAT(fetch_add, &s[0], v);
    LAT(fetch_and, &s[2], ~(1u << (l & 31)) | (v & 0x80000000u));
    LAT(fetch_sub, &s[3], l);
    LAT(fetch_or, &s[4], v & 0xffu);
    LAT(fetch_min, &si[5], (int)v);
    LAT(fetch_max, &si[6], (int)v);
    LAT(fetch_xor, &s[7], v);
    __builtin_amdgcn_atomic_inc32(&s[8], 15u, __ATOMIC_RELAXED, "workgroup");
    __builtin_amdgcn_atomic_dec32(&s[9], 7u, __ATOMIC_RELAXED, "workgroup");
    // CAS loop: s[10] += l + 1.
    uint old = s[10];
    while (!__hip_atomic_compare_exchange_strong(&s[10], &old, old + l + 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                                 __HIP_MEMORY_SCOPE_WORKGROUP))
        ;
    uint prev = LAT(exchange, &s[11], l + 1);
    LAT(fetch_add, &s[1], prev == 0 ? 1u : 0u);
    barrier_local();
    if (l < 12)
        out[get_group_id(0) * 12 + l] = s[l];
}

// 64-bit global atomics not covered by basics.cl: sub, and, or, signed max,
// unsigned min, exchange, compare-exchange.
kernel void global_atomics_64_more(global const ulong *a, global const ulong *b, global const ulong *c,
                                   global ulong *out) {
    size_t i = get_global_id(0);
    (void)b;
    (void)c;
    ulong v = a[i];
    global long *sl = (global long *)out;
    AT(fetch_sub, &out[0], v);
    AT(fetch_and, &out[1], ~(1ul << (i & 63)));
    AT(fetch_or, &out[2], 1ul << (i & 63));
    AT(fetch_max, &sl[3], (long)v);
    AT(fetch_min, &out[4], v);
    ulong prev = AT(exchange, &out[5], i + 1);
    AT(fetch_add, &out[6], prev == 0 ? 1ul : 0ul);
    ulong old = out[7];
    while (!__hip_atomic_compare_exchange_strong(&out[7], &old, old * 3 + 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                                 __HIP_MEMORY_SCOPE_AGENT))
        ;
}

// DPP lane moves (__builtin_amdgcn_update_dpp: v_mov_b32_dpp over `old`);
// 8 results per work-item.
kernel void dpp_moves(global const uint *a, global const uint *b, global const uint *c, global uint *out) {
    size_t i = get_global_id(0);
    (void)b;
    (void)c;
    int x = (int)a[i];
    int o = (int)i * 1000 + 7;
    global int *d = (global int *)out + i * 8;
    d[0] = __builtin_amdgcn_update_dpp(o, x, 0x1b, 0xf, 0xf, false);  // quad_perm:[3,2,1,0]
    d[1] = __builtin_amdgcn_update_dpp(o, x, 0x101, 0xf, 0xf, false); // row_shl:1
    d[2] = __builtin_amdgcn_update_dpp(o, x, 0x111, 0xf, 0xf, true);  // row_shr:1 bound_ctrl:0
    d[3] = __builtin_amdgcn_update_dpp(o, x, 0x124, 0xf, 0xf, false); // row_ror:4
    d[4] = __builtin_amdgcn_update_dpp(o, x, 0x140, 0xf, 0xf, false); // row_mirror
    d[5] = __builtin_amdgcn_update_dpp(o, x, 0x141, 0xf, 0x5, false); // row_half_mirror, banks 0 and 2
    d[6] = __builtin_amdgcn_update_dpp(o, x, 0x142, 0xa, 0xf, false); // row_bcast:15, rows 1 and 3
    d[7] = __builtin_amdgcn_update_dpp(o, x, 0x138, 0xf, 0xf, false); // wave_shr:1
}

// Byte and short arithmetic (SDWA selects with sign extension).
K3(i8_i16_mix, int,
   (int)(char)(x >> 8) * (int)(short)(y >> 16) + (int)(uchar)(z >> 24) - (int)(short)x + ((x & 0xff00) >> 8) * (y >> 24))
K3(u16_pack, uint, (uint)(ushort)((ushort)x + (ushort)(y >> 16)) | ((uint)(uchar)((uchar)(x >> 8) * (uchar)z) << 16))

// 64-bit float atomics on global memory and LDS (gfx90a global_atomic_add_f64, ds_add_f64).
kernel void f64_atomics(global const double *a, global const double *b, global const double *c, global double *out) {
    local double s[2];
    size_t i = get_global_id(0);
    uint l = get_local_id(0);
    (void)b;
    (void)c;
    if (l == 0) {
        s[0] = 0.0;
        s[1] = 0.0;
    }
    barrier_local();
    AT(fetch_add, &out[0], a[i]);
    AT(fetch_min, &out[1], a[i]);
    AT(fetch_max, &out[2], a[i]);
    LAT(fetch_add, &s[0], a[i]);
    barrier_local();
    if (l == 0)
        AT(fetch_add, &out[3], s[0]);
}

// 8- and 16-bit vectors (SDWA byte/word selects and destinations).
K3(u8x4_ops, uchar4, x + y * z - (x >> (uchar4)(1, 2, 3, 4)))
K3(i16x2_ops, short2, x * y + (z >> (short2)(3, 1)) - (x > z ? x : z))
K3(u16_ops, ushort, (ushort)(x * y + z) ^ (ushort)(x >> (y & 15)) ^ (ushort)(z << (x & 15)) ^ (x > y ? x : y))
K3(i16_ops, short, (short)(x * y - z) ^ (short)(x >> (y & 15)) ^ (x < z ? x : z))
