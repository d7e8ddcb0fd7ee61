// A store to memory no allocation covers: page 1, below Linux's
// mmap_min_addr, so mapped neither for the CPU nor for the GPU (whose
// buffers live at CPU addresses). The runtime reports a memory access
// fault and the process aborts, as on a real GPU; the harness checks it.
//
// (A store "far past" a hipMalloc buffer is not deterministic: buffers
// lie at mmap addresses just under 2^47, and an offset that leaves the
// 48-bit canonical range is an aperture violation, a different error.)
#define TEST_NAME "fault"
#include "check.h"

__global__ void overrun(int *p) { p[threadIdx.x] = 1; }

int main() {
    int *d;
    CHECK(hipMalloc(&d, 4096));
    printf("launching the faulting kernel\n");
    fflush(stdout);
    hipLaunchKernelGGL(overrun, dim3(1), dim3(64), 0, 0, (int *)0x1000);
    hipError_t e = hipDeviceSynchronize();
    printf("fault: fail (hipDeviceSynchronize returned %s)\n", hipGetErrorString(e));
    return 1;
}
