// HIP on the drop-in library beyond one kernel: pageable host memory
// (HIP locks it, overlapping locks), hipMemcpy2D/2DAsync (rectangle
// copies), a stream, events and their elapsed time (dispatch profiling),
// hipMemset, pinned host memory (hipHostMalloc).
#include <hip/hip_runtime.h>
#include <stdio.h>
#define C(x) do { hipError_t e_ = (x); if (e_) { printf("%s:%d %s -> %s\n", __FILE__, __LINE__, #x, hipGetErrorString(e_)); return 1; } } while (0)
__global__ void scale(float* p, float s, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] *= s; }
int main() {
  const int W = 64, H = 32;
  float h[W*H], r[W*H];
  for (int i = 0; i < W*H; i++) h[i] = i;
  float* d; size_t pitch;
  pitch = 512; C(hipMalloc((void**)&d, pitch*H));
  C(hipMemcpy2D(d, pitch, h, W*4, W*4, H, hipMemcpyHostToDevice));
  hipStream_t s; C(hipStreamCreate(&s));
  hipEvent_t a, b; C(hipEventCreate(&a)); C(hipEventCreate(&b));
  C(hipEventRecord(a, s));
  for (int y = 0; y < H; y++) hipLaunchKernelGGL(scale, dim3(1), dim3(64), 0, s, (float*)((char*)d + y*pitch), 2.0f, W);
  C(hipEventRecord(b, s));
  C(hipStreamSynchronize(s));
  float ms = -1; C(hipEventElapsedTime(&ms, a, b));
  C(hipMemcpy2DAsync(r, W*4, d, pitch, W*4, H, hipMemcpyDeviceToHost, s));
  C(hipStreamSynchronize(s));
  int bad = 0; for (int i = 0; i < W*H; i++) if (r[i] != 2.0f*i) bad++;
  float* m; C(hipMalloc(&m, 4096)); C(hipMemset(m, 0, 4096)); unsigned z[1024]; C(hipMemcpy(z, m, 4096, hipMemcpyDeviceToHost));
  for (int i = 0; i < 1024; i++) if (z[i]) bad++;
  float* pinned; C(hipHostMalloc(&pinned, 4096)); C(hipMemcpy(pinned, m, 4096, hipMemcpyDeviceToHost));
  printf("streams: %d bad, elapsed time %s\n", bad, ms >= 0 ? "ok" : "negative");
  if (ms < 0) return 1;
  return bad != 0;
}
