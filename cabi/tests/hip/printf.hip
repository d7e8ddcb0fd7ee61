// printf from device code (HIP's hostcall/printf service): integers,
// floats, strings, pointers-free formats, from several threads and blocks;
// the harness compares the lines the host printed.
#define TEST_NAME "printf"
#include "check.h"

__global__ void say(int k) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t % 50 == 0) printf("device line %d of %d: %s %.2f %x\n", t, k, "hello", t * 0.5, t * 3);
}

int main() {
    hipLaunchKernelGGL(say, dim3(2), dim3(100), 0, 0, 7);
    CHECK(hipGetLastError());
    CHECK(hipDeviceSynchronize());
    fflush(stdout);
    return pass();
}
