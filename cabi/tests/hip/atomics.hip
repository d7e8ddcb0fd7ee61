// Atomics from many threads: atomicAdd (int, unsigned long long, float),
// atomicSub, atomicMax/Min, atomicAnd/Or/Xor, atomicExch, atomicInc and an
// atomicCAS loop; on global memory and in shared memory.
#define TEST_NAME "atomics"
#include "check.h"

struct Counters {
    int add, sub, max, min;
    unsigned and_, or_, xor_, inc;
    unsigned long long add64;
    float fadd;
    int cas_sum;
    int exch;
    int shared_total;
};

__global__ void hammer(Counters *c, int n) {
    __shared__ int local;
    if (threadIdx.x == 0) local = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&c->add, i);
        atomicSub(&c->sub, 2);
        atomicMax(&c->max, (i * 7919) % n);
        atomicMin(&c->min, n - i);
        atomicAnd(&c->and_, ~(1u << (i % 32)));
        atomicOr(&c->or_, 1u << (i % 31));
        atomicXor(&c->xor_, (unsigned)i);
        atomicInc(&c->inc, 1000000u);
        atomicAdd(&c->add64, (unsigned long long)i << 20);
        atomicAdd(&c->fadd, 0.5f);
        int old = c->cas_sum, assumed;
        do {
            assumed = old;
            old = atomicCAS(&c->cas_sum, assumed, assumed + 3);
        } while (old != assumed);
        atomicExch(&c->exch, 77);
        atomicAdd(&local, 1);
    }
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(&c->shared_total, local);
}

int main() {
    const int n = 10000;
    Counters h = {0, 0, -1, 1 << 30, 0xffffffffu, 0, 0, 0, 0, 0.0f, 0, 0, 0};
    Counters *d;
    CHECK(hipMalloc(&d, sizeof h));
    CHECK(hipMemcpy(d, &h, sizeof h, hipMemcpyHostToDevice));
    hipLaunchKernelGGL(hammer, dim3((n + 255) / 256), dim3(256), 0, 0, d, n);
    CHECK(hipGetLastError());
    CHECK(hipMemcpy(&h, d, sizeof h, hipMemcpyDeviceToHost));
    unsigned x = 0;
    unsigned long long a64 = 0;
    for (int i = 0; i < n; i++) {
        x ^= (unsigned)i;
        a64 += (unsigned long long)i << 20;
    }
    EXPECT(h.add == n * (n - 1) / 2, "add %d", h.add);
    EXPECT(h.sub == -2 * n, "sub %d", h.sub);
    EXPECT(h.max == n - 1, "max %d", h.max);
    EXPECT(h.min == 1, "min %d", h.min);
    EXPECT(h.and_ == 0, "and %#x", h.and_);
    EXPECT(h.or_ == 0x7fffffffu, "or %#x", h.or_);
    EXPECT(h.xor_ == x, "xor %#x want %#x", h.xor_, x);
    EXPECT(h.inc == (unsigned)n, "inc %u", h.inc);
    EXPECT(h.add64 == a64, "add64 %llu want %llu", h.add64, a64);
    EXPECT(h.fadd == 0.5f * n, "fadd %f", h.fadd);
    EXPECT(h.cas_sum == 3 * n, "cas %d", h.cas_sum);
    EXPECT(h.exch == 77, "exch %d", h.exch);
    EXPECT(h.shared_total == n, "shared %d", h.shared_total);
    CHECK(hipFree(d));
    return pass();
}
