// Bad launch configurations get HIP 5.2.3's error codes (its checks
// against the device's limits) before anything runs: too many threads per
// block (hipErrorInvalidConfiguration), a zero grid (hipErrorInvalidValue),
// more dynamic shared memory than the device has (hipErrorOutOfMemory); a
// good launch still works afterwards.
#define TEST_NAME "launch_errors"
#include "check.h"

__global__ void one(int *p) { p[threadIdx.x] = 1; }

int main() {
    int *d;
    CHECK(hipMalloc(&d, 4096 * 4));
    hipLaunchKernelGGL(one, dim3(1), dim3(2048), 0, 0, d);
    hipError_t e = hipGetLastError();
    printf("2048 threads per block: %s (%d)\n", hipGetErrorName(e), (int)e);
    EXPECT(e == hipErrorInvalidConfiguration, "2048 threads: %s", hipGetErrorName(e));
    hipLaunchKernelGGL(one, dim3(1), dim3(32, 32, 2), 0, 0, d);
    e = hipGetLastError();
    printf("32x32x2 threads per block: %s (%d)\n", hipGetErrorName(e), (int)e);
    EXPECT(e == hipErrorInvalidConfiguration, "32x32x2 threads: %s", hipGetErrorName(e));
    hipLaunchKernelGGL(one, dim3(0), dim3(64), 0, 0, d);
    e = hipGetLastError();
    printf("empty grid: %s (%d)\n", hipGetErrorName(e), (int)e);
    EXPECT(e == hipErrorInvalidValue, "empty grid: %s", hipGetErrorName(e));
    hipLaunchKernelGGL(one, dim3(1), dim3(64), 1 << 20, 0, d);
    e = hipGetLastError();
    printf("1 MiB dynamic shared memory: %s (%d)\n", hipGetErrorName(e), (int)e);
    EXPECT(e == hipErrorOutOfMemory, "1 MiB of LDS: %s", hipGetErrorName(e));
    EXPECT(hipGetLastError() == hipSuccess, "hipGetLastError clears the error");
    CHECK(hipMemset(d, 0, 64 * 4));
    hipLaunchKernelGGL(one, dim3(1), dim3(64), 0, 0, d);
    CHECK(hipGetLastError());
    int h[64];
    CHECK(hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost));
    for (int i = 0; i < 64; i++) EXPECT(h[i] == 1, "good launch [%d] = %d", i, h[i]);
    CHECK(hipFree(d));
    return pass();
}
