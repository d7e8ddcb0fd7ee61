// A HIP program of the most ordinary kind, built by Debian's hipcc 5.2.3
// and run on Debian's HIP runtime (libamdhip64 5.2.3) over Debian's ROCr
// over the software GPU (scripts/test-rocr-on-sim): hipMalloc, hipMemcpy
// both ways, a kernel launch, results checked on the host.
#include <hip/hip_runtime.h>
#include <cstdio>

__global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

#define CHECK(x)                                                          \
    do {                                                                  \
        hipError_t e_ = (x);                                              \
        if (e_ != hipSuccess) {                                           \
            std::fprintf(stderr, "hip_vadd: %s: %s\n", #x, hipGetErrorString(e_)); \
            return 1;                                                     \
        }                                                                 \
    } while (0)

int main() {
    const int n = 1 << 14;
    static float ha[1 << 14], hb[1 << 14], hc[1 << 14];
    for (int i = 0; i < n; i++) {
        ha[i] = float(i);
        hb[i] = float(2 * i) + 0.25f;
        hc[i] = -1.0f;
    }
    float *a, *b, *c;
    CHECK(hipMalloc(&a, n * sizeof(float)));
    CHECK(hipMalloc(&b, n * sizeof(float)));
    CHECK(hipMalloc(&c, n * sizeof(float)));
    CHECK(hipMemcpy(a, ha, n * sizeof(float), hipMemcpyHostToDevice));
    CHECK(hipMemcpy(b, hb, n * sizeof(float), hipMemcpyHostToDevice));
    hipLaunchKernelGGL(vadd, dim3(n / 256), dim3(256), 0, 0, a, b, c, n);
    CHECK(hipGetLastError());
    CHECK(hipMemcpy(hc, c, n * sizeof(float), hipMemcpyDeviceToHost));
    CHECK(hipDeviceSynchronize());
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += hc[i] != ha[i] + hb[i];
    CHECK(hipFree(a));
    CHECK(hipFree(b));
    CHECK(hipFree(c));
    hipDeviceProp_t p;
    CHECK(hipGetDeviceProperties(&p, 0));
    if (bad) {
        std::fprintf(stderr, "hip_vadd: %d of %d wrong\n", bad, n);
        return 1;
    }
    std::printf("hip_vadd: PASS on %s (%s, %d CUs)\n", p.name, p.gcnArchName, p.multiProcessorCount);
    return 0;
}
