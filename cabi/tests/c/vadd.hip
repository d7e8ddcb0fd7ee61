// A HIP program (hipcc, HIP 5.2.3's libamdhip64) on the drop-in library:
// device count and properties, device memory, copies both ways, a kernel
// launch, synchronisation, and every result checked.
#include <hip/hip_runtime.h>
#include <stdio.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

#define CHECK(x)                                                                   \
    do {                                                                           \
        hipError_t e_ = (x);                                                       \
        if (e_ != hipSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,             \
                    hipGetErrorString(e_));                                        \
            return 1;                                                              \
        }                                                                          \
    } while (0)

int main() {
    const int n = 1 << 14;
    int count = 0;
    CHECK(hipGetDeviceCount(&count));
    if (count != 1) return 1;
    hipDeviceProp_t p;
    CHECK(hipGetDeviceProperties(&p, 0));
    printf("device: %s, %d CUs\n", p.gcnArchName, p.multiProcessorCount);
    static float ha[1 << 14], hb[1 << 14], hc[1 << 14];
    for (int i = 0; i < n; i++) {
        ha[i] = (float)i;
        hb[i] = 2.0f * (float)i + 1.0f;
    }
    float *a, *b, *c;
    CHECK(hipMalloc(&a, n * 4));
    CHECK(hipMalloc(&b, n * 4));
    CHECK(hipMalloc(&c, n * 4));
    CHECK(hipMemcpy(a, ha, n * 4, hipMemcpyHostToDevice));
    CHECK(hipMemcpy(b, hb, n * 4, hipMemcpyHostToDevice));
    hipLaunchKernelGGL(add, dim3(n / 256), dim3(256), 0, 0, a, b, c, n);
    CHECK(hipGetLastError());
    CHECK(hipDeviceSynchronize());
    CHECK(hipMemcpy(hc, c, n * 4, hipMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        if (hc[i] != ha[i] + hb[i]) {
            fprintf(stderr, "c[%d] = %f\n", i, hc[i]);
            return 1;
        }
    CHECK(hipFree(a));
    CHECK(hipFree(b));
    CHECK(hipFree(c));
    printf("hip: vector add of %d elements: ok\n", n);
    return 0;
}
