// Matrix (MFMA) and dot-product conformance kernels for the sim's shader
// core (gfx90a), compared bit for bit with Rust references in
// sim/tests/conformance_mfma.rs.
//
// MFMA kernels run one wave of 64 work-items. Buffers hold one value per
// lane per register: `a` and `b` give each lane's A and B operand (one or
// two dwords per lane: a[l] or a[2l], a[2l+1]), `c` the accumulator,
// register r of lane l at c[r * 64 + l], and `out` D the same way (for
// f64 forms: one ulong per lane per register pair).
#include "amdgcn.h"
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

typedef float v4f __attribute__((ext_vector_type(4)));
typedef float v16f __attribute__((ext_vector_type(16)));
typedef float v32f __attribute__((ext_vector_type(32)));
typedef int v4i __attribute__((ext_vector_type(4)));
typedef int v16i __attribute__((ext_vector_type(16)));
typedef int v32i __attribute__((ext_vector_type(32)));
typedef half v4h __attribute__((ext_vector_type(4)));
typedef short v4s __attribute__((ext_vector_type(4)));
typedef short v2s __attribute__((ext_vector_type(2)));
typedef double v4d __attribute__((ext_vector_type(4)));

#define A1F(p) as_float(p[l])
#define A1I(p) ((int)p[l])
#define A1S2(p) as_short2(p[l])
#define A2H(p) as_half4((uint2)(p[2 * l], p[2 * l + 1]))
#define A2S(p) as_short4((uint2)(p[2 * l], p[2 * l + 1]))

// D = op(A, B, C): 32-bit results, N registers of vector type DT.
#define MF(name, DT, N, LOAD, CV, OUTV, call)                                                      \
    kernel void name(global const uint *a, global const uint *b, global const uint *c,           \
                     global uint *out) {                                                           \
        int l = get_local_id(0);                                                                   \
        DT acc;                                                                                    \
        for (int r = 0; r < N; r++)                                                                \
            acc[r] = CV(c[r * 64 + l]);                                                            \
        DT d = call(LOAD(a), LOAD(b), acc, 0, 0, 0);                                               \
        for (int r = 0; r < N; r++)                                                                \
            out[r * 64 + l] = OUTV(d[r]);                                                          \
    }

#define IDENT(x) (x)
#define F(name, DT, N, LOAD) MF(name, DT, N, LOAD, as_float, as_uint, __builtin_amdgcn_mfma_##name)
#define I(name, DT, N, LOAD) MF(name, DT, N, LOAD, (int), (uint), __builtin_amdgcn_mfma_##name)

F(f32_32x32x1f32, v32f, 32, A1F)
F(f32_16x16x1f32, v16f, 16, A1F)
F(f32_4x4x1f32, v4f, 4, A1F)
F(f32_32x32x2f32, v16f, 16, A1F)
F(f32_16x16x4f32, v4f, 4, A1F)
F(f32_32x32x4f16, v32f, 32, A2H)
F(f32_16x16x4f16, v16f, 16, A2H)
F(f32_4x4x4f16, v4f, 4, A2H)
F(f32_32x32x8f16, v16f, 16, A2H)
F(f32_16x16x16f16, v4f, 4, A2H)
I(i32_32x32x4i8, v32i, 32, A1I)
I(i32_16x16x4i8, v16i, 16, A1I)
I(i32_4x4x4i8, v4i, 4, A1I)
I(i32_32x32x8i8, v16i, 16, A1I)
I(i32_16x16x16i8, v4i, 4, A1I)
F(f32_32x32x4bf16_1k, v32f, 32, A2S)
F(f32_16x16x4bf16_1k, v16f, 16, A2S)
F(f32_4x4x4bf16_1k, v4f, 4, A2S)
F(f32_32x32x8bf16_1k, v16f, 16, A2S)
F(f32_16x16x16bf16_1k, v4f, 4, A2S)
F(f32_32x32x2bf16, v32f, 32, A1S2)
F(f32_16x16x2bf16, v16f, 16, A1S2)
F(f32_4x4x2bf16, v4f, 4, A1S2)
F(f32_32x32x4bf16, v16f, 16, A1S2)
F(f32_16x16x8bf16, v4f, 4, A1S2)

// f64: A, B one double per lane; C and D one ulong per lane per register pair.
#define A2D(p) as_double((uint2)(p[2 * l], p[2 * l + 1]))
kernel void f64_16x16x4f64(global const uint *a, global const uint *b, global const ulong *c,
                           global ulong *out) {
    int l = get_local_id(0);
    v4d acc;
    for (int r = 0; r < 4; r++)
        acc[r] = as_double(c[r * 64 + l]);
    v4d d = __builtin_amdgcn_mfma_f64_16x16x4f64(A2D(a), A2D(b), acc, 0, 0, 0);
    for (int r = 0; r < 4; r++)
        out[r * 64 + l] = as_ulong(d[r]);
}

kernel void f64_4x4x4f64(global const uint *a, global const uint *b, global const ulong *c,
                         global ulong *out) {
    int l = get_local_id(0);
    double d = __builtin_amdgcn_mfma_f64_4x4x4f64(A2D(a), A2D(b), as_double(c[l]), 0, 0, 0);
    out[l] = as_ulong(d);
}

// Accumulation across two MFMAs (the accumulator stays in AGPRs): D = (C + AB) + BA.
kernel void chain_f32_32x32x2f32(global const uint *a, global const uint *b,
                                 global const uint *c, global uint *out) {
    int l = get_local_id(0);
    v16f acc;
    for (int r = 0; r < 16; r++)
        acc[r] = as_float(c[r * 64 + l]);
    acc = __builtin_amdgcn_mfma_f32_32x32x2f32(A1F(a), A1F(b), acc, 0, 0, 0);
    acc = __builtin_amdgcn_mfma_f32_32x32x2f32(A1F(b), A1F(a), acc, 0, 0, 0);
    for (int r = 0; r < 16; r++)
        out[r * 64 + l] = as_uint(acc[r]);
}

// C = 0 (an inline constant as src2).
kernel void zero_f32_16x16x4f32(global const uint *a, global const uint *b,
                                global const uint *c, global uint *out) {
    int l = get_local_id(0);
    v4f d = __builtin_amdgcn_mfma_f32_16x16x4f32(A1F(a), A1F(b), (v4f)(0.0f), 0, 0, 0);
    for (int r = 0; r < 4; r++)
        out[r * 64 + l] = as_uint(d[r]);
}

// The broadcast (cbsz/abid) and B lane-pattern (blgp) modifiers.
#define MFM(name, DT, N, LOAD, CV, OUTV, call, cbsz, abid, blgp)                                    \
    kernel void name(global const uint *a, global const uint *b, global const uint *c,           \
                     global uint *out) {                                                           \
        int l = get_local_id(0);                                                                   \
        DT acc;                                                                                    \
        for (int r = 0; r < N; r++)                                                                \
            acc[r] = CV(c[r * 64 + l]);                                                            \
        DT d = call(LOAD(a), LOAD(b), acc, cbsz, abid, blgp);                                      \
        for (int r = 0; r < N; r++)                                                                \
            out[r * 64 + l] = OUTV(d[r]);                                                          \
    }
#define FM(kname, op, DT, N, LOAD, cbsz, abid, blgp)                                               \
    MFM(kname, DT, N, LOAD, as_float, as_uint, __builtin_amdgcn_mfma_##op, cbsz, abid, blgp)

FM(mods_f32_16x16x1f32, f32_16x16x1f32, v16f, 16, A1F, 2, 3, 3)
FM(mods_f32_4x4x1f32, f32_4x4x1f32, v4f, 4, A1F, 3, 5, 4)
FM(mods_f32_4x4x4f16, f32_4x4x4f16, v4f, 4, A2H, 4, 9, 5)
FM(mods_f32_32x32x8f16, f32_32x32x8f16, v16f, 16, A2H, 0, 0, 1)
FM(mods_f32_16x16x16bf16_1k, f32_16x16x16bf16_1k, v4f, 4, A2S, 0, 0, 7)
FM(mods_f32_4x4x2bf16, f32_4x4x2bf16, v4f, 4, A1S2, 0, 0, 6)
MFM(mods_i32_32x32x4i8, v32i, 32, A1I, (int), (uint), __builtin_amdgcn_mfma_i32_32x32x4i8, 1, 0, 2)

// cbsz on a single-block form (the calculator: not supported): must fault.
FM(bad_cbsz_f32_32x32x8f16, f32_32x32x8f16, v16f, 16, A2H, 1, 0, 0)

// Dot products: one lane per element; out[i] = dot(a[i], b[i]) + c[i].
#define DOT(name, expr)                                                                            \
    kernel void name(global const uint *a, global const uint *b, global const uint *c,           \
                     global uint *out) {                                                           \
        size_t i = get_global_id(0);                                                               \
        uint x = a[i], y = b[i], z = c[i];                                                         \
        out[i] = (expr);                                                                           \
    }

DOT(fdot2, as_uint(__builtin_amdgcn_fdot2(as_half2(x), as_half2(y), as_float(z), false)))
DOT(fdot2_clamp, as_uint(__builtin_amdgcn_fdot2(as_half2(x), as_half2(y), as_float(z), true)))
DOT(sdot2, (uint)__builtin_amdgcn_sdot2(as_short2(x), as_short2(y), (int)z, false))
DOT(sdot2_clamp, (uint)__builtin_amdgcn_sdot2(as_short2(x), as_short2(y), (int)z, true))
DOT(udot2, __builtin_amdgcn_udot2(as_ushort2(x), as_ushort2(y), z, false))
DOT(udot2_clamp, __builtin_amdgcn_udot2(as_ushort2(x), as_ushort2(y), z, true))
DOT(sdot4, (uint)__builtin_amdgcn_sdot4((int)x, (int)y, (int)z, false))
DOT(sdot4_clamp, (uint)__builtin_amdgcn_sdot4((int)x, (int)y, (int)z, true))
DOT(udot4, __builtin_amdgcn_udot4(x, y, z, false))
DOT(udot4_clamp, __builtin_amdgcn_udot4(x, y, z, true))
DOT(sdot8, (uint)__builtin_amdgcn_sdot8((int)x, (int)y, (int)z, false))
DOT(sdot8_clamp, (uint)__builtin_amdgcn_sdot8((int)x, (int)y, (int)z, true))
DOT(udot8, __builtin_amdgcn_udot8(x, y, z, false))
DOT(udot8_clamp, __builtin_amdgcn_udot8(x, y, z, true))

// The VOP2 accumulating forms, by inline assembly: z += dot(x, y).
#define DOTC(name, insn)                                                                           \
    kernel void name(global const uint *a, global const uint *b, global const uint *c,           \
                     global uint *out) {                                                           \
        size_t i = get_global_id(0);                                                               \
        uint x = a[i], y = b[i], z = c[i];                                                         \
        __asm__ volatile(insn " %0, %1, %2" : "+v"(z) : "v"(x), "v"(y));                          \
        out[i] = z;                                                                                \
    }

DOTC(dot2c_f32_f16, "v_dot2c_f32_f16")
DOTC(dot2c_i32_i16, "v_dot2c_i32_i16")
DOTC(dot4c_i32_i8, "v_dot4c_i32_i8")
DOTC(dot8c_i32_i4, "v_dot8c_i32_i4")

// The VOP3 (_e64) encodings of the accumulating forms, with clamp.
#define DOTC3(name, insn)                                                                          \
    kernel void name(global const uint *a, global const uint *b, global const uint *c,           \
                     global uint *out) {                                                           \
        size_t i = get_global_id(0);                                                               \
        uint x = a[i], y = b[i], z = c[i];                                                         \
        __asm__ volatile(insn " %0, %1, %2 clamp" : "+v"(z) : "v"(x), "v"(y));                    \
        out[i] = z;                                                                                \
    }

DOTC3(dot4c_e64_clamp, "v_dot4c_i32_i8_e64")
DOTC3(dot2c_e64_clamp, "v_dot2c_f32_f16_e64")

// DPP form: source 0 from the neighbour lane of the quad (quad_perm:[1,0,3,2]).
kernel void dot4c_dpp(global const uint *a, global const uint *b, global const uint *c,
                      global uint *out) {
    size_t i = get_global_id(0);
    uint x = a[i], y = b[i], z = c[i];
    __asm__ volatile("s_nop 1\n\tv_dot4c_i32_i8_dpp %0, %1, %2 quad_perm:[1,0,3,2] row_mask:0xf "
                     "bank_mask:0xf"
                     : "+v"(z)
                     : "v"(x), "v"(y));
    out[i] = z;
}

// VOP3P op_sel / neg on v_dot2_f32_f16 by inline assembly:
// elements (x.hi, x.lo) . (-y.lo, y.hi) + z.
kernel void fdot2_mods(global const uint *a, global const uint *b, global const uint *c,
                       global uint *out) {
    size_t i = get_global_id(0);
    uint x = a[i], y = b[i], z = c[i], d;
    __asm__ volatile("v_dot2_f32_f16 %0, %1, %2, %3 op_sel:[1,0,0] op_sel_hi:[0,1,0] "
                     "neg_lo:[0,1,0]"
                     : "=v"(d)
                     : "v"(x), "v"(y), "v"(z));
    out[i] = d;
}

// AGPRs by inline assembly: A in a VGPR, B (v_accvgpr_write_b32) and C in
// AGPRs, D in AGPRs; D[0] copied AGPR to AGPR (v_accvgpr_mov_b32) and read
// back (v_accvgpr_read_b32) into out[4 * 64 + l].
kernel void agpr_f32_16x16x4f32(global const uint *a, global const uint *b,
                                global const uint *c, global uint *out) {
    int l = get_local_id(0);
    v4f acc, d;
    for (int r = 0; r < 4; r++)
        acc[r] = as_float(c[r * 64 + l]);
    float y, e, ev;
    __asm__ volatile("v_accvgpr_write_b32 %0, %1" : "=a"(y) : "v"(A1F(b)));
    __asm__ volatile("v_mfma_f32_16x16x4f32 %0, %1, %2, %3\n\ts_nop 15\n\ts_nop 2"
                     : "=&a"(d)
                     : "v"(A1F(a)), "a"(y), "a"(acc));
    __asm__ volatile("v_accvgpr_mov_b32 %0, %1" : "=a"(e) : "a"(d[0]));
    __asm__ volatile("v_accvgpr_read_b32 %0, %1" : "=v"(ev) : "a"(e));
    for (int r = 0; r < 4; r++)
        out[r * 64 + l] = as_uint(d[r]);
    out[4 * 64 + l] = as_uint(ev);
}
