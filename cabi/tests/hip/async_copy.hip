// hipMemcpyAsync and hipMemsetAsync on two streams (pinned host memory),
// each stream's copies, memset and kernel ordered, both synchronised.
#define TEST_NAME "async_copy"
#include "check.h"

__global__ void addk(int *p, int k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += k;
}

int main() {
    const int n = 1 << 16;
    const size_t bytes = n * sizeof(int);
    hipStream_t s[2];
    int *h[2], *d[2];
    for (int k = 0; k < 2; k++) {
        CHECK(hipStreamCreate(&s[k]));
        CHECK(hipHostMalloc(&h[k], bytes, hipHostMallocDefault));
        CHECK(hipMalloc(&d[k], bytes));
        for (int i = 0; i < n; i++) h[k][i] = i + k * 100000;
    }
    for (int k = 0; k < 2; k++) {
        CHECK(hipMemsetAsync(d[k], 0xff, bytes, s[k]));
        CHECK(hipMemcpyAsync(d[k], h[k], bytes / 2, hipMemcpyHostToDevice, s[k]));
        hipLaunchKernelGGL(addk, dim3(n / 256), dim3(256), 0, s[k], d[k], k + 1, n);
        CHECK(hipGetLastError());
        CHECK(hipMemcpyAsync(h[k], d[k], bytes, hipMemcpyDeviceToHost, s[k]));
    }
    for (int k = 0; k < 2; k++) CHECK(hipStreamSynchronize(s[k]));
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < n; i++) {
            int want = i < n / 2 ? i + k * 100000 + k + 1 : -1 + k + 1;
            EXPECT(h[k][i] == want, "stream %d: h[%d] = %d, want %d", k, i, h[k][i], want);
        }
    // Pageable host memory through an async copy and the null stream.
    int *pageable = (int *)malloc(bytes);
    for (int i = 0; i < n; i++) pageable[i] = 3 * i;
    CHECK(hipMemcpyAsync(d[0], pageable, bytes, hipMemcpyHostToDevice, 0));
    CHECK(hipMemcpyAsync(d[1], d[0], bytes, hipMemcpyDeviceToDevice, 0));
    for (int i = 0; i < n; i++) pageable[i] = 0;
    CHECK(hipMemcpyAsync(pageable, d[1], bytes, hipMemcpyDeviceToHost, 0));
    CHECK(hipStreamSynchronize(0));
    for (int i = 0; i < n; i++) EXPECT(pageable[i] == 3 * i, "pageable[%d] = %d", i, pageable[i]);
    for (int k = 0; k < 2; k++) {
        CHECK(hipStreamDestroy(s[k]));
        CHECK(hipHostFree(h[k]));
        CHECK(hipFree(d[k]));
    }
    free(pageable);
    return pass();
}
