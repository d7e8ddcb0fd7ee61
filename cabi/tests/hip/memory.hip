// Memory: hipMalloc/hipFree, hipHostMalloc (host memory a kernel reads and
// writes), hipMemcpy in every direction (host<->device, device->device,
// host->host, hipMemcpyDefault), hipMemset/D8/D16/D32, hipMemGetInfo.
#define TEST_NAME "memory"
#include "check.h"
#include <string.h>

__global__ void twice(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2 * in[i];
}

int main() {
    const int n = 4096;
    const size_t bytes = n * sizeof(int);
    size_t free0 = 0, total = 0;
    CHECK(hipMemGetInfo(&free0, &total));
    EXPECT(total > 0 && free0 <= total, "free %zu total %zu", free0, total);
    size_t totalmem = 0;
    CHECK(hipDeviceTotalMem(&totalmem, 0));
    EXPECT(total == totalmem, "hipMemGetInfo total %zu vs %zu", total, totalmem);

    int *h = (int *)malloc(bytes), *h2 = (int *)malloc(bytes);
    for (int i = 0; i < n; i++) h[i] = i * 7 - 3;
    int *d1, *d2;
    CHECK(hipMalloc(&d1, bytes));
    CHECK(hipMalloc(&d2, bytes));
    size_t free1 = 0;
    CHECK(hipMemGetInfo(&free1, &total));
    EXPECT(free1 <= free0 - 2 * bytes, "free %zu after allocating 2x%zu from %zu", free1, bytes, free0);
    CHECK(hipMemcpy(d1, h, bytes, hipMemcpyHostToDevice));
    CHECK(hipMemcpy(d2, d1, bytes, hipMemcpyDeviceToDevice));
    memset(h2, 0, bytes);
    CHECK(hipMemcpy(h2, d2, bytes, hipMemcpyDeviceToHost));
    EXPECT(memcmp(h, h2, bytes) == 0, "host->device->device->host round trip");
    memset(h2, 0, bytes);
    CHECK(hipMemcpy(h2, h, bytes, hipMemcpyHostToHost));
    EXPECT(memcmp(h, h2, bytes) == 0, "host->host");
    memset(h2, 0, bytes);
    CHECK(hipMemcpy(d2, h, bytes / 2, hipMemcpyDefault));
    CHECK(hipMemcpy(h2, d2, bytes / 2, hipMemcpyDefault));
    EXPECT(memcmp(h, h2, bytes / 2) == 0, "hipMemcpyDefault");

    // Pinned host memory, read and written by a kernel directly.
    int *hin, *hout;
    CHECK(hipHostMalloc(&hin, bytes, hipHostMallocDefault));
    CHECK(hipHostMalloc(&hout, bytes, hipHostMallocDefault));
    for (int i = 0; i < n; i++) { hin[i] = i; hout[i] = -1; }
    hipLaunchKernelGGL(twice, dim3(n / 256), dim3(256), 0, 0, hin, hout, n);
    CHECK(hipGetLastError());
    CHECK(hipDeviceSynchronize());
    for (int i = 0; i < n; i++) EXPECT(hout[i] == 2 * i, "pinned out[%d] = %d", i, hout[i]);
    hipPointerAttribute_t attr;
    CHECK(hipPointerGetAttributes(&attr, d1));
    EXPECT(attr.memoryType == hipMemoryTypeDevice, "d1 memory type %d", attr.memoryType);
    CHECK(hipPointerGetAttributes(&attr, hin));
    EXPECT(attr.memoryType == hipMemoryTypeHost, "hin memory type %d", attr.memoryType);
    // Pinned -> device -> pinned.
    CHECK(hipMemcpy(d1, hin, bytes, hipMemcpyHostToDevice));
    CHECK(hipMemcpy(hout, d1, bytes, hipMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(hout[i] == i, "pinned copy out[%d] = %d", i, hout[i]);

    // Memsets of each width, at an offset so that the edges show.
    unsigned char *b;
    CHECK(hipMalloc(&b, 1024));
    CHECK(hipMemset(b, 0, 1024));
    CHECK(hipMemset(b + 3, 0xab, 501));
    unsigned char hb[1024];
    CHECK(hipMemcpy(hb, b, 1024, hipMemcpyDeviceToHost));
    for (int i = 0; i < 1024; i++)
        EXPECT(hb[i] == (i >= 3 && i < 504 ? 0xab : 0), "memset byte %d = %#x", i, hb[i]);
    CHECK(hipMemsetD8((hipDeviceptr_t)b, 0x5a, 17));
    CHECK(hipMemsetD16((hipDeviceptr_t)(b + 32), 0xbeef, 33));
    CHECK(hipMemsetD32((hipDeviceptr_t)(b + 128), 0x12345678, 100));
    CHECK(hipMemcpy(hb, b, 1024, hipMemcpyDeviceToHost));
    for (int i = 0; i < 17; i++) EXPECT(hb[i] == 0x5a, "D8 byte %d = %#x", i, hb[i]);
    for (int i = 0; i < 33; i++) {
        unsigned short v;
        memcpy(&v, hb + 32 + 2 * i, 2);
        EXPECT(v == 0xbeef, "D16 %d = %#x", i, v);
    }
    for (int i = 0; i < 100; i++) {
        unsigned v;
        memcpy(&v, hb + 128 + 4 * i, 4);
        EXPECT(v == 0x12345678u, "D32 %d = %#x", i, v);
    }
    EXPECT(hb[128 + 400] == (128 + 400 < 504 ? 0xab : 0), "byte after D32");

    CHECK(hipFree(b));
    CHECK(hipHostFree(hin));
    CHECK(hipHostFree(hout));
    CHECK(hipFree(d1));
    CHECK(hipFree(d2));
    EXPECT(hipFree((void *)0x1234) != hipSuccess, "hipFree of a bad pointer refused");
    free(h);
    free(h2);
    return pass();
}
