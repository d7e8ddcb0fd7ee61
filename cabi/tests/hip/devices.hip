// Device discovery: hipGetDeviceCount, hipGetDeviceProperties (printed as
// `prop NAME=VALUE` lines that the harness compares with the runtime's
// agent info), hipDeviceGetAttribute agreeing with the properties,
// hipSetDevice/hipGetDevice on every device and an invalid one refused.
#define TEST_NAME "devices"
#include "check.h"
#include <string.h>

int main() {
    int count = 0;
    CHECK(hipGetDeviceCount(&count));
    EXPECT(count >= 1, "count %d", count);
    printf("prop count=%d\n", count);
    for (int d = 0; d < count; d++) {
        CHECK(hipSetDevice(d));
        int cur = -1;
        CHECK(hipGetDevice(&cur));
        EXPECT(cur == d, "hipGetDevice %d after hipSetDevice %d", cur, d);
        hipDeviceProp_t p;
        CHECK(hipGetDeviceProperties(&p, d));
        printf("prop %d name=%s\n", d, p.name);
        printf("prop %d gcnArchName=%s\n", d, p.gcnArchName);
        printf("prop %d gcnArch=%d\n", d, p.gcnArch);
        printf("prop %d multiProcessorCount=%d\n", d, p.multiProcessorCount);
        printf("prop %d clockRate=%d\n", d, p.clockRate);
        printf("prop %d memoryClockRate=%d\n", d, p.memoryClockRate);
        printf("prop %d memoryBusWidth=%d\n", d, p.memoryBusWidth);
        printf("prop %d totalGlobalMem=%zu\n", d, p.totalGlobalMem);
        printf("prop %d sharedMemPerBlock=%zu\n", d, p.sharedMemPerBlock);
        printf("prop %d maxSharedMemoryPerMultiProcessor=%zu\n", d,
               p.maxSharedMemoryPerMultiProcessor);
        printf("prop %d warpSize=%d\n", d, p.warpSize);
        printf("prop %d maxThreadsPerBlock=%d\n", d, p.maxThreadsPerBlock);
        printf("prop %d maxThreadsDim=%d,%d,%d\n", d, p.maxThreadsDim[0], p.maxThreadsDim[1],
               p.maxThreadsDim[2]);
        printf("prop %d maxGridSize=%d,%d,%d\n", d, p.maxGridSize[0], p.maxGridSize[1],
               p.maxGridSize[2]);
        printf("prop %d l2CacheSize=%d\n", d, p.l2CacheSize);
        printf("prop %d maxThreadsPerMultiProcessor=%d\n", d, p.maxThreadsPerMultiProcessor);
        printf("prop %d pciBusID=%d\n", d, p.pciBusID);
        printf("prop %d pciDeviceID=%d\n", d, p.pciDeviceID);
        printf("prop %d major=%d\n", d, p.major);
        printf("prop %d minor=%d\n", d, p.minor);
        printf("prop %d isMultiGpuBoard=%d\n", d, p.isMultiGpuBoard);
        printf("prop %d managedMemory=%d\n", d, p.managedMemory);
        printf("prop %d canMapHostMemory=%d\n", d, p.canMapHostMemory);
        EXPECT(strncmp(p.gcnArchName, "gfx90a:", 7) == 0 || strncmp(p.gcnArchName, "gfx942", 6) == 0,
               "gcnArchName %s", p.gcnArchName);
        EXPECT(p.multiProcessorCount > 0, "%d CUs", p.multiProcessorCount);
        EXPECT(p.clockRate > 0, "clockRate %d", p.clockRate);
        EXPECT(p.totalGlobalMem > 0, "totalGlobalMem %zu", p.totalGlobalMem);
        EXPECT(p.warpSize == 64, "warpSize %d", p.warpSize);
        EXPECT(p.maxThreadsPerBlock == 1024, "maxThreadsPerBlock %d", p.maxThreadsPerBlock);
        EXPECT(p.sharedMemPerBlock == 65536, "sharedMemPerBlock %zu", p.sharedMemPerBlock);
        int v = 0;
        CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeMultiprocessorCount, d));
        EXPECT(v == p.multiProcessorCount, "attribute CUs %d", v);
        CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, d));
        EXPECT(v == p.warpSize, "attribute warp size %d", v);
        CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeMaxThreadsPerBlock, d));
        EXPECT(v == p.maxThreadsPerBlock, "attribute max threads %d", v);
        char name[256];
        CHECK(hipDeviceGetName(name, sizeof name, d));
        EXPECT(strcmp(name, p.name) == 0, "hipDeviceGetName %s vs %s", name, p.name);
        size_t total = 0;
        CHECK(hipDeviceTotalMem(&total, d));
        EXPECT(total == p.totalGlobalMem, "hipDeviceTotalMem %zu", total);
    }
    EXPECT(hipSetDevice(count) == hipErrorInvalidDevice, "hipSetDevice(%d) refused", count);
    hipDeviceProp_t p;
    EXPECT(hipGetDeviceProperties(&p, count) == hipErrorInvalidDevice, "properties of %d", count);
    return pass();
}
