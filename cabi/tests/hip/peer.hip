// Two software GPUs (SIM_GPUS=2): peer access queries, hipMemcpyPeer and
// hipMemcpyPeerAsync both ways, and a kernel on each device.
#define TEST_NAME "peer"
#include "check.h"

__global__ void fill(int *p, int base, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = base + i;
}

int main() {
    int count = 0;
    CHECK(hipGetDeviceCount(&count));
    EXPECT(count == 2, "two devices, found %d", count);
    int can01 = -1, can10 = -1;
    CHECK(hipDeviceCanAccessPeer(&can01, 0, 1));
    CHECK(hipDeviceCanAccessPeer(&can10, 1, 0));
    printf("peer access 0->1 %d, 1->0 %d\n", can01, can10);
    const int n = 1 << 15;
    const size_t bytes = n * sizeof(int);
    int *d0, *d1;
    CHECK(hipSetDevice(0));
    CHECK(hipMalloc(&d0, bytes));
    hipLaunchKernelGGL(fill, dim3(n / 256), dim3(256), 0, 0, d0, 7, n);
    CHECK(hipDeviceSynchronize());
    CHECK(hipSetDevice(1));
    CHECK(hipMalloc(&d1, bytes));
    hipLaunchKernelGGL(fill, dim3(n / 256), dim3(256), 0, 0, d1, 1 << 20, n);
    CHECK(hipDeviceSynchronize());
    int *h = (int *)malloc(bytes);
    // Device 0 -> device 1, read back from device 1.
    CHECK(hipMemcpyPeer(d1, 1, d0, 0, bytes / 2));
    CHECK(hipMemcpy(h, d1, bytes, hipMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        int want = i < n / 2 ? 7 + i : (1 << 20) + i;
        EXPECT(h[i] == want, "device 1 after peer copy: [%d] = %d, want %d", i, h[i], want);
    }
    // Device 1 -> device 0, asynchronously on a stream of device 0.
    CHECK(hipSetDevice(0));
    hipStream_t s;
    CHECK(hipStreamCreate(&s));
    CHECK(hipMemcpyPeerAsync(d0, 0, (char *)d1 + bytes / 2, 1, bytes / 2, s));
    CHECK(hipStreamSynchronize(s));
    CHECK(hipMemcpy(h, d0, bytes, hipMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        int want = i < n / 2 ? (1 << 20) + n / 2 + i : 7 + i;
        EXPECT(h[i] == want, "device 0 after peer copy: [%d] = %d, want %d", i, h[i], want);
    }
    if (can01) {
        CHECK(hipDeviceEnablePeerAccess(1, 0));
        CHECK(hipMemcpy(d0, d1, bytes, hipMemcpyDeviceToDevice));
        CHECK(hipMemcpy(h, d0, bytes, hipMemcpyDeviceToHost));
        for (int i = 0; i < n; i++) {
            int want = i < n / 2 ? 7 + i : (1 << 20) + i;
            EXPECT(h[i] == want, "peer-enabled copy: [%d] = %d", i, h[i]);
        }
    }
    CHECK(hipStreamDestroy(s));
    CHECK(hipFree(d0));
    CHECK(hipSetDevice(1));
    CHECK(hipFree(d1));
    free(h);
    return pass();
}
