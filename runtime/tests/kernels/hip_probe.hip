// A HIP kernel: hipcc (HIP 5.2.3, clang-15) emits code object v4 by default,
// which has no hidden arguments for this kernel; at -mcode-object-version=5
// gridDim/blockDim come from the hidden block counts and group sizes.
#include <hip/hip_runtime.h>
extern "C" __global__ void hip_probe(unsigned long long *out, int n, float scale) {
    extern __shared__ float dyn[];
    if (threadIdx.x == 0 && blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0) {
        out[0] = gridDim.x; out[1] = gridDim.y; out[2] = gridDim.z;
        out[3] = blockDim.x; out[4] = blockDim.y; out[5] = blockDim.z;
        dyn[0] = scale * n;
        out[6] = (unsigned long long)dyn[0];
    }
}
