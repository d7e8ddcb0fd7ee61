// HIP conformance kernels for the sim's shader core, built by build.sh with
// Debian's hipcc (HIP 5.2.3, --offload-arch=gfx90a --genco, code object
// v4) and compared bit for bit with Rust references in
// sim/tests/conformance_hip.rs. extern "C" keeps the symbol names plain.
#include <hip/hip_runtime.h>

// Warp shuffles: per thread four results.
extern "C" __global__ void shuffles(const int *in, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = in[i];
    int lane = threadIdx.x % 64;
    out[4 * i + 0] = __shfl(x, (lane * 5 + 3) % 64);
    out[4 * i + 1] = __shfl_xor(x, 5);
    out[4 * i + 2] = __shfl_down(x, 3);
    out[4 * i + 3] = __shfl_up(x, 7, 16);
}

// Votes: per wave the ballot of (in & 1), and any/all of (in > t).
extern "C" __global__ void votes(const int *in, int t, unsigned long long *ballots, int *flags) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = in[i];
    unsigned long long b = __ballot(x & 1);
    int any = __any(x > t);
    int all = __all(x > t);
    if (threadIdx.x % 64 == 0) {
        int w = i / 64;
        ballots[w] = b;
        flags[2 * w] = any;
        flags[2 * w + 1] = all;
    }
}

// Global atomics: sum, max, min, or, and a CAS loop that adds i * i.
extern "C" __global__ void global_atomics(const int *in, int *acc, unsigned int *old_sum) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = in[i];
    old_sum[i] = atomicAdd((unsigned int *)&acc[0], (unsigned int)x);
    atomicMax(&acc[1], x);
    atomicMin(&acc[2], x);
    atomicOr(&acc[3], 1 << (i % 31));
    int seen = acc[4];
    for (;;) {
        int prev = atomicCAS(&acc[4], seen, seen + i * i);
        if (prev == seen)
            break;
        seen = prev;
    }
}

// __shared__ atomics: per block sum, max and a CAS-built xor; thread 0 writes.
extern "C" __global__ void shared_atomics(const int *in, int *out) {
    __shared__ int s[3];
    if (threadIdx.x == 0) {
        s[0] = 0;
        s[1] = -2147483647 - 1;
        s[2] = 0;
    }
    __syncthreads();
    int x = in[blockIdx.x * blockDim.x + threadIdx.x];
    atomicAdd(&s[0], x);
    atomicMax(&s[1], x);
    int seen = s[2];
    for (;;) {
        int prev = atomicCAS(&s[2], seen, seen ^ x);
        if (prev == seen)
            break;
        seen = prev;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        out[3 * blockIdx.x + 0] = s[0];
        out[3 * blockIdx.x + 1] = s[1];
        out[3 * blockIdx.x + 2] = s[2];
    }
}

// Dynamic shared memory: reverse each block's elements.
extern "C" __global__ void dyn_reverse(const float *in, float *out) {
    extern __shared__ float buf[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = buf[blockDim.x - 1 - threadIdx.x];
}

// Tree reduction in __shared__ with __syncthreads: per block sum (blockDim 256).
extern "C" __global__ void block_sum(const unsigned int *in, unsigned int *out) {
    __shared__ unsigned int s[256];
    unsigned int t = threadIdx.x;
    s[t] = in[blockIdx.x * 256 + t];
    __syncthreads();
    for (unsigned int w = 128; w > 0; w >>= 1) {
        if (t < w)
            s[t] += s[t + w];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}

// A recursive device function (on the private stack).
// Not a tail call: each level adds its own term after the callee returns.
__device__ __attribute__((noinline)) unsigned int collatz(unsigned int n, unsigned int depth) {
    if (n <= 1 || depth >= 200)
        return n;
    unsigned int below = collatz((n & 1) ? 3 * n + 1 : n / 2, depth + 1);
    return below * 31u + n;
}

extern "C" __global__ void recursion(const unsigned int *in, unsigned int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = collatz(in[i], 0);
}

// 2D grid with a bounds check (partial blocks at the right and bottom edges).
extern "C" __global__ void grid2d(int w, int h, unsigned int *out) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h)
        out[y * w + x] = (unsigned int)(x * 65536 + y) ^ (blockIdx.x << 24) ^ (blockIdx.y << 28) ^
                         (gridDim.x << 20) ^ (gridDim.y << 12) ^ (blockDim.x * blockDim.y);
}

// blockDim/gridDim as each work-item sees them, at its position in a grid
// of nominal 16x8 blocks: in a partial work-group (a grid that is not a
// multiple of the work-group size) blockDim is the partial size.
extern "C" __global__ void block_dims(int w, int h, unsigned int *out) {
    int x = blockIdx.x * 16 + threadIdx.x;
    int y = blockIdx.y * 8 + threadIdx.y;
    if (x < w && y < h)
        out[y * w + x] = blockDim.x | (blockDim.y << 8) | (gridDim.x << 16) | (gridDim.y << 24);
}

typedef float v4f __attribute__((ext_vector_type(4)));
typedef float v32f __attribute__((ext_vector_type(32)));

// One wave: C (16x16) = A (16x16) B (16x16), row-major, with four
// v_mfma_f32_16x16x4f32 steps along K.
extern "C" __global__ void sgemm16(const float *a, const float *b, float *c) {
    int l = threadIdx.x;
    v4f d = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int s = 0; s < 4; s++) {
        int k = 4 * s + l / 16;
        d = __builtin_amdgcn_mfma_f32_16x16x4f32(a[(l % 16) * 16 + k], b[k * 16 + l % 16], d, 0, 0,
                                                 0);
    }
    for (int r = 0; r < 4; r++)
        c[(4 * (l / 16) + r) * 16 + l % 16] = d[r];
}

// One wave: two 32x32 outer products x y^T + C (v_mfma_f32_32x32x1f32, two
// blocks); x, y hold 64 values (block b: x[32b..32b+32]); D is stored per
// register: out[r * 64 + lane].
extern "C" __global__ void outer32(const float *x, const float *y, const float *cin, float *out) {
    int l = threadIdx.x;
    v32f acc;
    for (int r = 0; r < 32; r++)
        acc[r] = cin[r * 64 + l];
    v32f d = __builtin_amdgcn_mfma_f32_32x32x1f32(x[l], y[l], acc, 0, 0, 0);
    for (int r = 0; r < 32; r++)
        out[r * 64 + l] = d[r];
}

// Dot products: sdot4, udot4, sdot2, fdot2 (with clamp on udot4).
typedef short v2s __attribute__((ext_vector_type(2)));
typedef _Float16 v2h __attribute__((ext_vector_type(2)));
extern "C" __global__ void dots(const unsigned int *a, const unsigned int *b, const unsigned int *c,
                                unsigned int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int x = a[i], y = b[i], z = c[i];
    out[4 * i + 0] = (unsigned int)__builtin_amdgcn_sdot4((int)x, (int)y, (int)z, false);
    out[4 * i + 1] = __builtin_amdgcn_udot4(x, y, z, true);
    v2s xs, ys;
    __builtin_memcpy(&xs, &x, 4);
    __builtin_memcpy(&ys, &y, 4);
    out[4 * i + 2] = (unsigned int)__builtin_amdgcn_sdot2(xs, ys, (int)z, false);
    v2h xh, yh;
    __builtin_memcpy(&xh, &x, 4);
    __builtin_memcpy(&yh, &y, 4);
    float f;
    __builtin_memcpy(&f, &z, 4);
    float r = __builtin_amdgcn_fdot2(xh, yh, f, false);
    __builtin_memcpy(&out[4 * i + 3], &r, 4);
}

// The implicit (hidden) kernel arguments of code object v4 as the kernel
// sees them: the first 8 u64 after the explicit ones (hidden_global_offset_x/y/z,
// then the other hidden_* words), and out[8] the explicit argument just
// before them (the pointer `out` itself).
extern "C" __global__ void implicit_args(unsigned long long *out) {
    const unsigned long long *p = (const unsigned long long *)__builtin_amdgcn_implicitarg_ptr();
    if (threadIdx.x < 8)
        out[threadIdx.x] = p[threadIdx.x];
    if (threadIdx.x == 8)
        out[8] = p[-1];
}
