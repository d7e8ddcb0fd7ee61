// Shared memory: a block reduction in static __shared__ memory with
// __syncthreads, a reversal through dynamic (extern) shared memory of the
// launch's size, and both kinds in one kernel.
#define TEST_NAME "shared"
#include "check.h"

__global__ void block_sum(const int *in, int *out) {
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 256 + t];
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void reverse(int *p, int n) {
    extern __shared__ int dyn[];
    int t = threadIdx.x;
    dyn[t] = p[blockIdx.x * n + t];
    __syncthreads();
    p[blockIdx.x * n + t] = dyn[n - 1 - t];
}

__global__ void both(int *out) {
    __shared__ int fixed[64];
    extern __shared__ int dyn[];
    int t = threadIdx.x;
    fixed[t] = t * 3;
    dyn[t] = t * 5;
    __syncthreads();
    out[t] = fixed[63 - t] + dyn[(t + 1) % 64];
}

int main() {
    const int blocks = 64, n = blocks * 256;
    int *h = (int *)malloc(n * 4), *d, *o;
    for (int i = 0; i < n; i++) h[i] = (i * 37) % 1001 - 500;
    CHECK(hipMalloc(&d, n * 4));
    CHECK(hipMalloc(&o, n * 4));
    CHECK(hipMemcpy(d, h, n * 4, hipMemcpyHostToDevice));
    hipLaunchKernelGGL(block_sum, dim3(blocks), dim3(256), 0, 0, d, o);
    CHECK(hipGetLastError());
    int sums[blocks];
    CHECK(hipMemcpy(sums, o, sizeof sums, hipMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++) {
        int want = 0;
        for (int t = 0; t < 256; t++) want += h[b * 256 + t];
        EXPECT(sums[b] == want, "block %d sum %d, want %d", b, sums[b], want);
    }
    const int len = 500;
    hipLaunchKernelGGL(reverse, dim3(n / len), dim3(len), len * sizeof(int), 0, d, len);
    CHECK(hipGetLastError());
    int *r = (int *)malloc(n * 4);
    CHECK(hipMemcpy(r, d, n * 4, hipMemcpyDeviceToHost));
    for (int b = 0; b < n / len; b++)
        for (int t = 0; t < len; t++)
            EXPECT(r[b * len + t] == h[b * len + len - 1 - t], "reverse block %d [%d] = %d", b, t,
                   r[b * len + t]);
    // 32 KiB of dynamic shared memory next to the static array.
    hipLaunchKernelGGL(both, dim3(1), dim3(64), 32768, 0, o);
    CHECK(hipGetLastError());
    CHECK(hipMemcpy(r, o, 64 * 4, hipMemcpyDeviceToHost));
    for (int t = 0; t < 64; t++)
        EXPECT(r[t] == (63 - t) * 3 + ((t + 1) % 64) * 5, "both [%d] = %d", t, r[t]);
    CHECK(hipFree(d));
    CHECK(hipFree(o));
    free(h);
    free(r);
    return pass();
}
