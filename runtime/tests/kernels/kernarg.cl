// Kernels whose kernarg layouts runtime/tests/kernarg.rs checks (built by build.sh).
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

typedef struct { int a; char b; double c; } pod;

// Stores what the device library reads from the hidden arguments (COv5) or the
// dispatch packet (COv4): a hidden-argument probe for an end-to-end dispatch.
__kernel void probe(__global ulong *out) {
    if (get_global_id(0) != get_global_offset(0) || get_global_id(1) != get_global_offset(1) ||
        get_global_id(2) != get_global_offset(2))
        return;
    out[0] = get_work_dim();
    for (uint d = 0; d < 3; d++) {
        out[1 + d] = get_global_offset(d);
        out[4 + d] = get_num_groups(d);
        out[7 + d] = get_local_size(d);
        out[10 + d] = get_global_size(d);
        out[13 + d] = get_enqueued_local_size(d);
    }
}

// Every by-value size and alignment OpenCL C has, two __local pointers with
// different pointee alignments, a struct and a half.
__kernel void mixed(__global float *a, uint n, __local float *tmp, char c, short s,
                    double d, float4 v, __global const int *restrict b,
                    __local int2 *tmp2, pod p, half h) {
    size_t i = get_global_id(0);
    tmp[get_local_id(0)] = a[i] + n + c + s + d + v.x + b[i] + p.a + p.c + (float)h;
    tmp2[0].x = p.b;
    barrier(CLK_LOCAL_MEM_FENCE);
    a[i] = tmp[0] + tmp2[0].y;
}

__kernel void with_printf(__global int *a) {
    printf("%d\n", a[get_global_id(0)]);
}

// Argument kinds the kernarg builder represents but cannot fill.
__kernel void with_image(read_only image2d_t img, sampler_t smp, __global float4 *out) {
    out[0] = read_imagef(img, smp, (int2)(0, 0));
}

__kernel void with_pipe_queue(read_only pipe int p, queue_t q, __global int *out) {
    out[0] = 1;
}
