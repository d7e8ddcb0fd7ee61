// hipMallocManaged where HIP 5.2 supports it on this agent
// (hipDeviceAttributeManagedMemory): the host writes, a kernel updates in
// place, the host reads after hipDeviceSynchronize, without any copy.
#define TEST_NAME "managed"
#include "check.h"

__global__ void inc(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += i;
}

int main() {
    int managed = 0;
    CHECK(hipDeviceGetAttribute(&managed, hipDeviceAttributeManagedMemory, 0));
    printf("managed memory attribute: %d\n", managed);
    EXPECT(managed == 1, "managed memory supported");
    const int n = 3000;
    int *p;
    CHECK(hipMallocManaged(&p, n * sizeof(int), hipMemAttachGlobal));
    for (int i = 0; i < n; i++) p[i] = 1000;
    hipLaunchKernelGGL(inc, dim3((n + 255) / 256), dim3(256), 0, 0, p, n);
    CHECK(hipGetLastError());
    CHECK(hipDeviceSynchronize());
    for (int i = 0; i < n; i++) EXPECT(p[i] == 1000 + i, "p[%d] = %d", i, p[i]);
    hipLaunchKernelGGL(inc, dim3((n + 255) / 256), dim3(256), 0, 0, p, n);
    CHECK(hipDeviceSynchronize());
    for (int i = 0; i < n; i++) EXPECT(p[i] == 1000 + 2 * i, "second pass p[%d] = %d", i, p[i]);
    CHECK(hipFree(p));
    return pass();
}
