// f32 division as OpenCL builds it by default (no
// -cl-fp32-correctly-rounded-divide-sqrt: 2.5 ulp allowed, OpenCL 2.0
// section 7.4). build.sh compiles this file without that flag.
#include "amdgcn.h"

kernel void f32_div_default(global const float *a, global const float *b, global const float *c,
                            global float *out) {
    size_t i = get_global_id(0);
    (void)c;
    out[i] = a[i] / b[i];
}
