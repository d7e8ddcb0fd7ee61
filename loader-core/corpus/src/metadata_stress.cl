#include "amdgcn.h"

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

typedef struct {
    float4 position;
    int id;
    char tag;
    double weight;
} particle;

typedef struct {
    uchar bytes[3];
} odd_sized;

// Structs by value (different sizes and alignments), vectors and every
// scalar width: each becomes a `by_value` argument with its own offset.
kernel void by_value_mix(particle p, odd_sized o, char c, uchar uc, short s, ushort us, int i, uint ui,
                         long l, ulong ul, half h, float f, double d, char3 c3, short8 s8, float16 f16,
                         double4 d4, global float *out) {
    out[get_global_id(0)] = p.position.x + p.id + p.tag + p.weight + o.bytes[0] + o.bytes[2] + c + uc + s +
                            us + i + ui + l + ul + (float)h + f + d + c3.z + s8.s7 + f16.sf + d4.w;
}

// Every address space and qualifier a pointer argument can carry.
kernel void qualifiers(global const int *restrict ro, global volatile int *vol, constant float *table,
                       local int *scratch_a, local double *scratch_b, global int *restrict const rc,
                       global void *untyped) {
    size_t lid = get_local_id(0);
    scratch_a[lid] = ro[lid];
    scratch_b[lid] = table[lid];
    barrier_local();
    vol[lid] = scratch_a[get_local_size(0) - 1 - lid] + (int)scratch_b[0] + rc[0];
    ((global char *)untyped)[lid] = 1;
}

// OpenCL 2.0 object types: images, samplers, pipes, device queues, events.
kernel void opaque_objects(read_only image2d_t src, write_only image2d_t dst, read_write image3d_t vol,
                           read_only image1d_buffer_t buf, read_only image2d_array_t arr, sampler_t smp,
                           read_only pipe int in_pipe, write_only pipe float4 out_pipe, queue_t q,
                           clk_event_t ev, global int *out) {
    out[get_global_id(0)] = (int)get_global_size(0);
}

// Sixty-four arguments: long kernarg segments and argument lists.
#define ARGS8(p) global float *p##0, float p##1, int p##2, global int *p##3, uint p##4, double p##5, \
                 constant int *p##6, ulong p##7
kernel void many_arguments(ARGS8(a), ARGS8(b), ARGS8(c), ARGS8(d), ARGS8(e), ARGS8(f), ARGS8(g),
                           ARGS8(h)) {
    size_t i = get_global_id(0);
#define USE8(p) p##0[i] = p##1 + p##2 + p##3[i] + p##4 + p##5 + p##6[i] + p##7;
    USE8(a) USE8(b) USE8(c) USE8(d) USE8(e) USE8(f) USE8(g) USE8(h)
}

// A large private array indexed dynamically: private segment (scratch).
kernel void private_scratch(global const int *idx, global int *out) {
    int table[512];
    size_t lid = get_local_id(0);
    for (int k = 0; k < 512; ++k)
        table[k] = k * (int)lid;
    out[get_global_id(0)] = table[idx[get_global_id(0)] & 511];
}

// Recursion: the backend cannot bound the stack, so the kernel reports a
// dynamic stack (.uses_dynamic_stack) and a private segment.
int __attribute__((noinline)) collatz_depth(long n, int depth) {
    if (n <= 1 || depth > 1000)
        return depth;
    return collatz_depth((n & 1) ? 3 * n + 1 : n / 2, depth + 1);
}

kernel void dynamic_stack(global int *out) {
    out[get_global_id(0)] = collatz_depth((long)get_global_id(0) + 1, 0);
}
