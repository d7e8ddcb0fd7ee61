// CU placement kernels for sim/tests/cu_mask.rs and the runtime's CU mask
// tests (OpenCL C 2.0, clang-19, gfx90a, code object v5).
#include "amdgcn.h"

// Each workgroup's HW_REG_HW_ID (hwreg 4, all 32 bits), written by its
// first work-item, as rocrtst's cu_masking test reads it.
kernel void hw_id(global uint *out) {
    if (get_local_id(0) == 0)
        out[get_group_id(0)] = __builtin_amdgcn_s_getreg((31 << 11) | 4);
}
