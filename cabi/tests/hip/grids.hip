// Launch geometry: 1D, 2D and 3D grids with partial edge blocks; every
// thread writes its global linear index and its block/thread coordinates.
#define TEST_NAME "grids"
#include "check.h"

__global__ void where(unsigned *out, int nx, int ny, int nz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < nx && y < ny && z < nz) {
        unsigned i = (z * ny + y) * nx + x;
        out[2 * i] = i;
        out[2 * i + 1] = (gridDim.x << 24) | (gridDim.y << 16) | (gridDim.z << 8) |
                         (blockDim.x * blockDim.y * blockDim.z == 0 ? 0 : threadIdx.z);
    }
}

static void run(dim3 grid, dim3 block, int nx, int ny, int nz) {
    size_t n = (size_t)nx * ny * nz;
    unsigned *d;
    CHECK(hipMalloc(&d, 2 * n * 4));
    CHECK(hipMemset(d, 0xff, 2 * n * 4));
    hipLaunchKernelGGL(where, grid, block, 0, 0, d, nx, ny, nz);
    CHECK(hipGetLastError());
    unsigned *h = (unsigned *)malloc(2 * n * 4);
    CHECK(hipMemcpy(h, d, 2 * n * 4, hipMemcpyDeviceToHost));
    for (int z = 0; z < nz; z++)
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++) {
                unsigned i = (z * ny + y) * nx + x;
                unsigned want = (grid.x << 24) | (grid.y << 16) | (grid.z << 8) | (z % block.z);
                EXPECT(h[2 * i] == i && h[2 * i + 1] == want,
                       "grid %ux%ux%u block %ux%ux%u: (%d,%d,%d) wrote %u/%#x, want %u/%#x", grid.x,
                       grid.y, grid.z, block.x, block.y, block.z, x, y, z, h[2 * i], h[2 * i + 1],
                       i, want);
            }
    free(h);
    CHECK(hipFree(d));
}

int main() {
    run(dim3(40), dim3(256), 10000, 1, 1);
    run(dim3(7, 5), dim3(16, 16), 100, 70, 1);
    run(dim3(3, 4, 5), dim3(8, 4, 4), 20, 13, 17);
    run(dim3(2, 2, 9), dim3(4, 4, 2), 8, 8, 17);
    run(dim3(1), dim3(1024), 1000, 1, 1);
    return pass();
}
