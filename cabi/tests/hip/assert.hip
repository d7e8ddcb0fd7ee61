// assert() failing in a kernel: the device prints the assertion, the wave
// traps, and HIP aborts the process as on a real GPU (the harness checks
// the message and the SIGABRT). Threads whose condition holds run on.
#define TEST_NAME "assert"
#include "check.h"
#include <assert.h>

__global__ void check_positive(const int *p) {
    int t = threadIdx.x;
    assert(p[t] > 0);
}

int main() {
    int h[64], *d;
    for (int i = 0; i < 64; i++) h[i] = i == 17 ? -5 : i + 1;
    CHECK(hipMalloc(&d, sizeof h));
    CHECK(hipMemcpy(d, h, sizeof h, hipMemcpyHostToDevice));
    printf("launching the failing kernel\n");
    fflush(stdout);
    hipLaunchKernelGGL(check_positive, dim3(1), dim3(64), 0, 0, d);
    hipError_t e = hipDeviceSynchronize();
    // Not reached on a GPU: HIP's queue error handler aborts first.
    printf("assert: fail (hipDeviceSynchronize returned %s)\n", hipGetErrorString(e));
    return 1;
}
