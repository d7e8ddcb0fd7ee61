// Device functions (non-inlined), recursion (a recursive Fibonacci and
// Ackermann-style depth on the private stack) and templates (one kernel
// template instantiated for int, float and double, a template functor).
#define TEST_NAME "functions"
#include "check.h"

__device__ __attribute__((noinline)) int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ __attribute__((noinline)) long depth_sum(int n, volatile long *scratch) {
    long local[4] = {n, n * 2, n * 3, n * 4};
    scratch[0] = local[n % 4];
    if (n == 0) return 0;
    return local[n % 4] + depth_sum(n - 1, scratch);
}

__global__ void recursion(int *fibs, long *depths, long *scratch) {
    int t = threadIdx.x;
    fibs[t] = fib(t % 16);
    depths[t] = depth_sum(t, scratch + t);
}

template <typename T> struct Axpy {
    T a;
    __device__ T operator()(T x, T y) const { return a * x + y; }
};

template <typename T, typename F> __global__ void apply(F f, const T *x, T *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = f(x[i], y[i]);
}

template <typename T> static void check_axpy(T a) {
    const int n = 1000;
    T hx[n], hy[n];
    for (int i = 0; i < n; i++) {
        hx[i] = (T)i;
        hy[i] = (T)(2 * i + 1);
    }
    T *x, *y;
    CHECK(hipMalloc(&x, sizeof hx));
    CHECK(hipMalloc(&y, sizeof hy));
    CHECK(hipMemcpy(x, hx, sizeof hx, hipMemcpyHostToDevice));
    CHECK(hipMemcpy(y, hy, sizeof hy, hipMemcpyHostToDevice));
    hipLaunchKernelGGL((apply<T, Axpy<T>>), dim3(4), dim3(256), 0, 0, Axpy<T>{a}, x, y, n);
    CHECK(hipGetLastError());
    CHECK(hipMemcpy(hy, y, sizeof hy, hipMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        EXPECT(hy[i] == a * (T)i + (T)(2 * i + 1), "axpy<%zu bytes> [%d] = %f", sizeof(T), i,
               (double)hy[i]);
    CHECK(hipFree(x));
    CHECK(hipFree(y));
}

int main() {
    int *f;
    long *dd, *scratch;
    CHECK(hipMalloc(&f, 128 * 4));
    CHECK(hipMalloc(&dd, 128 * 8));
    CHECK(hipMalloc(&scratch, 128 * 8));
    hipLaunchKernelGGL(recursion, dim3(1), dim3(128), 0, 0, f, dd, scratch);
    CHECK(hipGetLastError());
    int hf[128];
    long hd[128];
    CHECK(hipMemcpy(hf, f, sizeof hf, hipMemcpyDeviceToHost));
    CHECK(hipMemcpy(hd, dd, sizeof hd, hipMemcpyDeviceToHost));
    int fibs[16] = {0, 1};
    for (int i = 2; i < 16; i++) fibs[i] = fibs[i - 1] + fibs[i - 2];
    for (int t = 0; t < 128; t++) {
        EXPECT(hf[t] == fibs[t % 16], "fib(%d) = %d", t % 16, hf[t]);
        long want = 0;
        for (int k = t; k > 0; k--) want += (long)k * (k % 4 + 1);
        EXPECT(hd[t] == want, "depth_sum(%d) = %ld, want %ld", t, hd[t], want);
    }
    check_axpy<int>(3);
    check_axpy<float>(0.25f);
    check_axpy<double>(-1.5);
    CHECK(hipFree(f));
    CHECK(hipFree(dd));
    CHECK(hipFree(scratch));
    return pass();
}
