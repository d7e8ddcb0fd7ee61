// HIP kernels for runtime/tests/executable.rs, built by build.sh with
// Debian's hipcc (HIP 5.2, clang 15) into a host object whose .hip_fatbin
// holds an offload bundle for gfx90a and gfx1030, as a HIP program has it.
#include <hip/hip_runtime.h>

// Program-scope device variables: symbols of the code object.
__device__ int device_counter = 5;
__constant__ float scale_by[2] = {2.0f, 3.0f};

// An unmangled kernel.
extern "C" __global__ void add_counter(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += device_counter;
}

// A C++ (mangled) template kernel with static LDS.
template <typename T>
__global__ void scale_lds(T *p, int n) {
    __shared__ T tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? p[i] : T(0);
    __syncthreads();
    if (i < n)
        p[i] = tile[threadIdx.x] * T(scale_by[i & 1]);
}

template __global__ void scale_lds<float>(float *, int);
