// An out-of-bounds access in a kernel: a store far past a small
// allocation, into unmapped memory. The runtime reports a memory access
// fault and the process aborts, as on a real GPU; the harness checks it.
#define TEST_NAME "fault"
#include "check.h"

__global__ void overrun(int *p, size_t far) { p[threadIdx.x + far] = 1; }

int main() {
    int *d;
    CHECK(hipMalloc(&d, 4096));
    printf("launching the faulting kernel\n");
    fflush(stdout);
    hipLaunchKernelGGL(overrun, dim3(1), dim3(64), 0, 0, d, (size_t)1 << 36);
    hipError_t e = hipDeviceSynchronize();
    printf("fault: fail (hipDeviceSynchronize returned %s)\n", hipGetErrorString(e));
    return 1;
}
