// VGPR indexing mode (s_set_gpr_idx_on/off, clang-19 gfx90a): a private
// array of 16 floats kept in VGPRs, written and read at a dynamic index.
// sim/tests/shader.rs compares with a Rust reference.
#include "amdgcn.h"

// Uniform indices: one s_set_gpr_idx_on (DST) for the write, one (SRC0)
// for the read.
kernel void gpridx_uniform(global float *out, int k, int j) {
    int i = get_global_id(0);
    float v[16];
    for (int t = 0; t < 16; t++)
        v[t] = (float)(i * 16 + t);
    v[j & 15] = -1.0f;
    out[i] = v[k & 15];
}
