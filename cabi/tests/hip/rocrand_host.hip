// rocRAND's host API (Debian's librocrand1, rocRAND 5.3: hipcc-built gfx90a
// kernels) on the drop-in: XORWOW, Philox4x32-10, MRG32k3a and Sobol32
// generators created with rocrand_create_generator, seeded and offset,
// generating unsigned ints (twice each, so the second call continues the
// state) into device memory. The words go to DIR/NAME.bin for the harness,
// which compares them with the published algorithms
// (sim/tests/support/rocrand_reference.rs).
#define TEST_NAME "rocrand_host"
#include "check.h"
#include <rocrand/rocrand.h>
#include <string>
#include <vector>

#define RCHECK(x)                                                                  \
    do {                                                                           \
        rocrand_status s_ = (x);                                                   \
        if (s_ != ROCRAND_STATUS_SUCCESS) {                                        \
            fprintf(stderr, "%s:%d: %s: rocrand status %d\n", __FILE__, __LINE__,  \
                    #x, (int)s_);                                                  \
            printf("%s: fail\n", TEST_NAME);                                       \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

static void run(const std::string &dir, const char *name, rocrand_rng_type type,
                unsigned long long seed, unsigned long long offset, size_t n1, size_t n2) {
    rocrand_generator g;
    RCHECK(rocrand_create_generator(&g, type));
    if (type == ROCRAND_RNG_QUASI_SOBOL32)
        RCHECK(rocrand_set_quasi_random_generator_dimensions(g, 1));
    else
        RCHECK(rocrand_set_seed(g, seed));
    RCHECK(rocrand_set_offset(g, offset));
    unsigned *d;
    CHECK(hipMalloc(&d, (n1 + n2) * 4));
    RCHECK(rocrand_generate(g, d, n1));
    RCHECK(rocrand_generate(g, d + n1, n2));
    CHECK(hipDeviceSynchronize());
    std::vector<unsigned> h(n1 + n2);
    CHECK(hipMemcpy(h.data(), d, h.size() * 4, hipMemcpyDeviceToHost));
    CHECK(hipFree(d));
    RCHECK(rocrand_destroy_generator(g));
    std::string path = dir + "/" + name + ".bin";
    FILE *f = fopen(path.c_str(), "wb");
    EXPECT(f && fwrite(h.data(), 4, h.size(), f) == h.size() && fclose(f) == 0, "write %s",
           path.c_str());
    printf("%s: %zu values, first %#x\n", name, h.size(), h[0]);
}

int main(int argc, char **argv) {
    EXPECT(argc == 2, "usage: rocrand_host DIR");
    int version = 0;
    RCHECK(rocrand_get_version(&version));
    printf("rocRAND %d\n", version);
    // Seeds, offsets and sizes: the harness computes the same.
    run(argv[1], "xorwow", ROCRAND_RNG_PSEUDO_XORWOW, 0x5eed, 0, 3000, 1000);
    run(argv[1], "philox", ROCRAND_RNG_PSEUDO_PHILOX4_32_10, 0xdeadbeefcafef00dull, 6, 4099, 517);
    run(argv[1], "mrg32k3a", ROCRAND_RNG_PSEUDO_MRG32K3A, 0xcafef00d, 0, 3000, 1000);
    run(argv[1], "sobol32", ROCRAND_RNG_QUASI_SOBOL32, 0, 77, 5000, 300);
    return pass();
}
