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
    // Advice and prefetch (hsa_amd_svm_attributes_set/_get,
    // hsa_amd_svm_prefetch_async underneath), then a third pass.
    CHECK(hipMemAdvise(p, n * sizeof(int), hipMemAdviseSetReadMostly, 0));
    int read_mostly = 0;
    CHECK(hipMemRangeGetAttribute(&read_mostly, sizeof read_mostly, hipMemRangeAttributeReadMostly, p,
                                  n * sizeof(int)));
    EXPECT(read_mostly != 0, "read mostly after the advice: %d", read_mostly);
    CHECK(hipMemAdvise(p, n * sizeof(int), hipMemAdviseSetPreferredLocation, 0));
    int preferred = -7;
    CHECK(hipMemRangeGetAttribute(&preferred, sizeof preferred, hipMemRangeAttributePreferredLocation,
                                  p, n * sizeof(int)));
    EXPECT(preferred == 0, "preferred location device 0: %d", preferred);
    CHECK(hipMemPrefetchAsync(p, n * sizeof(int), 0, 0));
    CHECK(hipDeviceSynchronize());
    int prefetched = -7;
    CHECK(hipMemRangeGetAttribute(&prefetched, sizeof prefetched, hipMemRangeAttributeLastPrefetchLocation,
                                  p, n * sizeof(int)));
    EXPECT(prefetched == 0, "last prefetch location device 0: %d", prefetched);
    hipLaunchKernelGGL(inc, dim3((n + 255) / 256), dim3(256), 0, 0, p, n);
    CHECK(hipDeviceSynchronize());
    for (int i = 0; i < n; i++) EXPECT(p[i] == 1000 + 3 * i, "third pass p[%d] = %d", i, p[i]);
    CHECK(hipFree(p));
    return pass();
}
