// Streams and events: four streams with their own work, hipStreamQuery,
// hipStreamSynchronize, hipStreamWaitEvent ordering one stream after
// another, hipEventRecord/Synchronize/Query/ElapsedTime (positive around
// kernels: the packet processor times HIP's barrier markers), stream callbacks
// (hipStreamAddCallback) running in order after the work before them, and
// hipDeviceSynchronize waiting for every stream.
#define TEST_NAME "streams_events"
#include "check.h"
#include <atomic>

__global__ void spin_add(int *p, int k, int n, int rounds) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        for (int r = 0; r < rounds; r++) p[i] += k;
}

__global__ void copy(const int *a, int *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = a[i];
}

static std::atomic<int> calls{0};
static int seen[4];

static void callback(hipStream_t, hipError_t status, void *user) {
    int k = (int)(size_t)user;
    seen[k] = status == hipSuccess ? calls.fetch_add(1) + 1 : -1;
}

int main() {
    const int n = 4096, S = 4;
    hipStream_t s[S];
    int *d[S];
    hipEvent_t start, mid, stop;
    CHECK(hipEventCreate(&start));
    CHECK(hipEventCreate(&mid));
    CHECK(hipEventCreate(&stop));
    for (int k = 0; k < S; k++) {
        CHECK(hipStreamCreate(&s[k]));
        CHECK(hipMalloc(&d[k], n * 4));
        CHECK(hipMemsetAsync(d[k], 0, n * 4, s[k]));
    }
    CHECK(hipEventRecord(start, s[0]));
    for (int k = 0; k < S; k++) {
        hipLaunchKernelGGL(spin_add, dim3(n / 256), dim3(256), 0, s[k], d[k], k + 1, n, 10);
        CHECK(hipGetLastError());
        CHECK(hipStreamAddCallback(s[k], callback, (void *)(size_t)k, 0));
        if (k == 0) {
            CHECK(hipEventRecord(mid, s[0]));
            hipLaunchKernelGGL(spin_add, dim3(n / 256), dim3(256), 0, s[0], d[0], 0, n, 100);
        }
    }
    CHECK(hipEventRecord(stop, s[0]));
    CHECK(hipEventSynchronize(stop));
    CHECK(hipEventQuery(stop));
    // Each interval holds a kernel: its time is positive, and the whole
    // is longer than its first part.
    float ms = -1, first = -1, second = -1;
    CHECK(hipEventElapsedTime(&ms, start, stop));
    CHECK(hipEventElapsedTime(&first, start, mid));
    CHECK(hipEventElapsedTime(&second, mid, stop));
    printf("elapsed %f ms = %f + %f\n", ms, first, second);
    EXPECT(first > 0.0f && second > 0.0f && ms > first && ms > second,
           "elapsed times %f = %f + %f", ms, first, second);
    for (int k = 0; k < S; k++) CHECK(hipStreamSynchronize(s[k]));
    for (int k = 0; k < S; k++) CHECK(hipStreamQuery(s[k]));
    for (int k = 0; k < S; k++) {
        int h[n];
        CHECK(hipMemcpy(h, d[k], sizeof h, hipMemcpyDeviceToHost));
        for (int i = 0; i < n; i++) EXPECT(h[i] == 10 * (k + 1), "stream %d [%d] = %d", k, i, h[i]);
        EXPECT(seen[k] >= 1 && seen[k] <= S, "callback %d ran as %d", k, seen[k]);
    }
    EXPECT(calls.load() == S, "%d callbacks", calls.load());

    // Stream 1 waits for an event of stream 0: the copy sees stream 0's result.
    hipEvent_t done;
    CHECK(hipEventCreateWithFlags(&done, hipEventDisableTiming));
    hipLaunchKernelGGL(spin_add, dim3(n / 256), dim3(256), 0, s[0], d[0], 1, n, 200);
    CHECK(hipEventRecord(done, s[0]));
    CHECK(hipStreamWaitEvent(s[1], done, 0));
    hipLaunchKernelGGL(copy, dim3(n / 256), dim3(256), 0, s[1], d[0], d[1], n);
    CHECK(hipGetLastError());
    hipLaunchKernelGGL(spin_add, dim3(n / 256), dim3(256), 0, s[2], d[2], 1, n, 5);
    CHECK(hipDeviceSynchronize());
    int h[n];
    CHECK(hipMemcpy(h, d[1], sizeof h, hipMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(h[i] == 10 + 200, "after wait [%d] = %d", i, h[i]);
    CHECK(hipMemcpy(h, d[2], sizeof h, hipMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(h[i] == 30 + 5, "stream 2 [%d] = %d", i, h[i]);
    float bad;
    EXPECT(hipEventElapsedTime(&bad, done, stop) != hipSuccess, "elapsed time of a no-timing event");
    for (int k = 0; k < S; k++) {
        CHECK(hipStreamDestroy(s[k]));
        CHECK(hipFree(d[k]));
    }
    CHECK(hipEventDestroy(start));
    CHECK(hipEventDestroy(mid));
    CHECK(hipEventDestroy(stop));
    CHECK(hipEventDestroy(done));
    return pass();
}
