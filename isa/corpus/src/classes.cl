/* Work-item id without device libraries (code shape only). */
static size_t gid(void) { return __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x(); }

typedef float v4f __attribute__((ext_vector_type(4)));
typedef float v16f __attribute__((ext_vector_type(16)));
typedef half v4h __attribute__((ext_vector_type(4)));

__kernel void mfma_f32(__global v16f *out, __global const float *a, __global const float *b) {
    size_t i = gid();
    v16f acc = out[i];
    acc = __builtin_amdgcn_mfma_f32_16x16x1f32(a[i], b[i], acc, 0, 0, 0);
    out[i] = acc;
}

__kernel void mfma_f16(__global v4f *out, __global const v4h *a, __global const v4h *b) {
    size_t i = gid();
    out[i] = __builtin_amdgcn_mfma_f32_4x4x4f16(a[i], b[i], out[i], 1, 2, 3);
}

__kernel void dpp(__global int *out, __global const int *in) {
    size_t i = gid();
    int x = in[i];
    int y = __builtin_amdgcn_update_dpp(0, x, 0x111, 0xf, 0xf, false);
    int z = __builtin_amdgcn_mov_dpp(x, 0x142, 0xa, 0xf, true);
    out[i] = x + y + __builtin_amdgcn_update_dpp(z, y, 0x1b, 0xf, 0x3, true);
}

__kernel void bytes(__global uchar *out, __global const uchar *a, __global const short *b) {
    size_t i = gid();
    uchar4 v = ((__global const uchar4 *)a)[i];
    short s = b[i];
    out[i] = (uchar)((v.x * v.y + v.z) ^ (v.w >> 1) ^ (uchar)(s >> 8));
}

__kernel void scratch(__global int *out, __global const int *idx) {
    int arr[64];
    size_t i = gid();
    for (int k = 0; k < 64; k++) arr[k] = idx[(i + k) & 255] * k;
    out[i] = arr[idx[i] & 63] + arr[(idx[i] >> 6) & 63];
}
