// Wavefront intrinsics on 64-lane waves: __shfl, __shfl_up, __shfl_down,
// __shfl_xor (a butterfly sum), __ballot, __any, __all, __popcll, and the
// lane id.
#define TEST_NAME "warp"
#include "check.h"

__global__ void lanes(int *out, unsigned long long *ballots, int *votes) {
    int t = threadIdx.x;
    int lane = t % warpSize;
    int v = t * 10;
    out[0 * 256 + t] = __shfl(v, (lane + 5) % 64);
    out[1 * 256 + t] = __shfl_up(v, 3);
    out[2 * 256 + t] = __shfl_down(v, 7);
    out[3 * 256 + t] = __shfl_xor(v, 1);
    int s = t;
    for (int m = 32; m > 0; m >>= 1) s += __shfl_xor(s, m);
    out[4 * 256 + t] = s;
    out[5 * 256 + t] = __shfl(v, 2, 16);
    unsigned long long b = __ballot(t % 3 == 0);
    if (lane == 0) ballots[t / 64] = b;
    if (lane == 0) {
        votes[(t / 64) * 4 + 0] = __popcll(b);
    }
    int any = __any(t == 130);
    int all = __all(t < 192);
    int all_even = __all(t % 2 == 0);
    if (lane == 1) {
        votes[(t / 64) * 4 + 1] = any;
        votes[(t / 64) * 4 + 2] = all;
        votes[(t / 64) * 4 + 3] = all_even;
    }
    out[6 * 256 + t] = __lane_id();
}

int main() {
    int *d, h[7 * 256], *dv, hv[16];
    unsigned long long *db, hb[4];
    CHECK(hipMalloc(&d, sizeof h));
    CHECK(hipMalloc(&db, sizeof hb));
    CHECK(hipMalloc(&dv, sizeof hv));
    hipLaunchKernelGGL(lanes, dim3(1), dim3(256), 0, 0, d, db, dv);
    CHECK(hipGetLastError());
    CHECK(hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost));
    CHECK(hipMemcpy(hb, db, sizeof hb, hipMemcpyDeviceToHost));
    CHECK(hipMemcpy(hv, dv, sizeof hv, hipMemcpyDeviceToHost));
    for (int t = 0; t < 256; t++) {
        int w = t / 64 * 64, lane = t % 64;
        EXPECT(h[t] == (w + (lane + 5) % 64) * 10, "shfl [%d] = %d", t, h[t]);
        EXPECT(h[256 + t] == (lane >= 3 ? t - 3 : t) * 10, "shfl_up [%d] = %d", t, h[256 + t]);
        EXPECT(h[512 + t] == (lane + 7 < 64 ? t + 7 : t) * 10, "shfl_down [%d] = %d", t, h[512 + t]);
        EXPECT(h[768 + t] == (t ^ 1) * 10, "shfl_xor [%d] = %d", t, h[768 + t]);
        int sum = 0;
        for (int k = 0; k < 64; k++) sum += w + k;
        EXPECT(h[1024 + t] == sum, "butterfly [%d] = %d, want %d", t, h[1024 + t], sum);
        EXPECT(h[1280 + t] == (w + lane / 16 * 16 + 2) * 10, "shfl width 16 [%d] = %d", t,
               h[1280 + t]);
        EXPECT(h[1536 + t] == lane, "lane id [%d] = %d", t, h[1536 + t]);
    }
    for (int wv = 0; wv < 4; wv++) {
        unsigned long long want = 0;
        for (int k = 0; k < 64; k++)
            if ((wv * 64 + k) % 3 == 0) want |= 1ull << k;
        EXPECT(hb[wv] == want, "ballot wave %d = %#llx, want %#llx", wv, hb[wv], want);
        EXPECT(hv[wv * 4] == __builtin_popcountll(want), "popcll wave %d = %d", wv, hv[wv * 4]);
        EXPECT(hv[wv * 4 + 1] == (wv == 2), "any wave %d = %d", wv, hv[wv * 4 + 1]);
        EXPECT(hv[wv * 4 + 2] == (wv < 3), "all wave %d = %d", wv, hv[wv * 4 + 2]);
        EXPECT(hv[wv * 4 + 3] == 0, "all even wave %d = %d", wv, hv[wv * 4 + 3]);
    }
    CHECK(hipFree(d));
    CHECK(hipFree(db));
    CHECK(hipFree(dv));
    return pass();
}
