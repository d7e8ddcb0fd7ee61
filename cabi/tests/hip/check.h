// Shared by the HIP test programs: every HIP call is checked, a failure
// prints the call, its line and HIP's error string, and the program exits 1.
#pragma once
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(x)                                                                   \
    do {                                                                           \
        hipError_t e_ = (x);                                                       \
        if (e_ != hipSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s: %s (%d)\n", __FILE__, __LINE__, #x,        \
                    hipGetErrorString(e_), (int)e_);                               \
            printf("%s: fail\n", TEST_NAME);                                       \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

// A result check: prints what was wrong and fails the program.
#define EXPECT(cond, ...)                                                          \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "%s:%d: expected %s: ", __FILE__, __LINE__, #cond);    \
            fprintf(stderr, __VA_ARGS__);                                          \
            fprintf(stderr, "\n");                                                 \
            printf("%s: fail\n", TEST_NAME);                                       \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

static inline int pass() {
    printf("%s: ok\n", TEST_NAME);
    return 0;
}
