// Modules: hipModuleLoad of a code object built by `hipcc --genco` (its
// path is argv[1]), hipModuleGetFunction, hipModuleLaunchKernel with
// kernel parameters and with HIP_LAUNCH_PARAM_BUFFER, hipModuleGetGlobal
// read and written, unknown names refused, hipModuleUnload.
#define TEST_NAME "module"
#include "check.h"

int main(int argc, char **argv) {
    EXPECT(argc == 2, "usage: module CODE_OBJECT");
    CHECK(hipInit(0));
    hipModule_t m;
    CHECK(hipModuleLoad(&m, argv[1]));
    hipFunction_t f;
    CHECK(hipModuleGetFunction(&f, m, "scaled"));
    hipFunction_t none;
    EXPECT(hipModuleGetFunction(&none, m, "no_such_kernel") != hipSuccess, "unknown kernel found");
    hipDeviceptr_t scale, hits;
    size_t size = 0;
    CHECK(hipModuleGetGlobal(&scale, &size, m, "scale"));
    EXPECT(size == sizeof(int), "scale is %zu bytes", size);
    CHECK(hipModuleGetGlobal(&hits, &size, m, "hits"));
    int v = 0;
    CHECK(hipMemcpyDtoH(&v, scale, sizeof v));
    EXPECT(v == 3, "initial scale %d", v);
    const int n = 1000;
    int hin[n], hout[n];
    for (int i = 0; i < n; i++) hin[i] = i - 400;
    int *in, *out;
    CHECK(hipMalloc(&in, sizeof hin));
    CHECK(hipMalloc(&out, sizeof hout));
    CHECK(hipMemcpy(in, hin, sizeof hin, hipMemcpyHostToDevice));
    int nn = n;
    void *args[] = {&in, &out, &nn};
    CHECK(hipModuleLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, 0, args, 0));
    CHECK(hipDeviceSynchronize());
    CHECK(hipMemcpy(hout, out, sizeof hout, hipMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(hout[i] == 3 * hin[i], "out[%d] = %d", i, hout[i]);
    // A new scale through the global, then a launch with a packed buffer.
    v = -7;
    CHECK(hipMemcpyHtoD(scale, &v, sizeof v));
    struct {
        int *in, *out;
        int n;
    } packed = {in, out, n};
    size_t psize = sizeof packed;
    void *config[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &packed, HIP_LAUNCH_PARAM_BUFFER_SIZE,
                      &psize, HIP_LAUNCH_PARAM_END};
    CHECK(hipModuleLaunchKernel(f, 2, 1, 1, 512, 1, 1, 0, 0, NULL, config));
    CHECK(hipDeviceSynchronize());
    CHECK(hipMemcpy(hout, out, sizeof hout, hipMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(hout[i] == -7 * hin[i], "rescaled out[%d] = %d", i, hout[i]);
    CHECK(hipMemcpyDtoH(&v, hits, sizeof v));
    EXPECT(v == 2 * n, "hits %d", v);
    CHECK(hipFree(in));
    CHECK(hipFree(out));
    CHECK(hipModuleUnload(m));
    return pass();
}
