// The code object of the module test (`hipcc --genco`): an extern "C"
// kernel and a device global that the host reads and writes through
// hipModuleGetGlobal.
#include <hip/hip_runtime.h>

__device__ int scale = 3;
__device__ int hits;

extern "C" __global__ void scaled(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * scale;
        atomicAdd(&hits, 1);
    }
}
