/* ROCr 6.1's hsa_amd_agent_set_async_scratch_limit through the C ABI
 * (prototype in rocr6.h). argv[1] "async": the GPU reclaims scratch
 * asynchronously (the sim's gfx942 board), so a limit within 4 GiB per XCC
 * is taken and a larger one refused; "none" (gfx90a, or
 * HSA_ENABLE_SCRATCH_ASYNC_RECLAIM=0): every limit is INVALID_ARGUMENT. A
 * CPU agent is INVALID_AGENT either way. */
#include <stdio.h>
#include <string.h>
#include "rocr6.h"

static hsa_status_t find(hsa_agent_t a, void *data) {
    hsa_device_type_t t;
    if (hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t) != HSA_STATUS_SUCCESS) return HSA_STATUS_ERROR;
    hsa_agent_t *out = data;
    out[t == HSA_DEVICE_TYPE_GPU ? 1 : 0] = a;
    return HSA_STATUS_SUCCESS;
}

#define EXPECT(call, want)                                                          \
    do {                                                                            \
        hsa_status_t s_ = (call);                                                   \
        if (s_ != (want)) {                                                         \
            fprintf(stderr, "%s: %#x, expected %#x\n", #call, s_, (unsigned)(want)); \
            return 1;                                                               \
        }                                                                           \
    } while (0)

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    int async = strcmp(argv[1], "async") == 0;
    EXPECT(hsa_amd_agent_set_async_scratch_limit((hsa_agent_t){0}, 1 << 20),
           HSA_STATUS_ERROR_NOT_INITIALIZED);
    EXPECT(hsa_init(), HSA_STATUS_SUCCESS);
    hsa_agent_t agents[2] = {{0}, {0}};
    EXPECT(hsa_iterate_agents(find, agents), HSA_STATUS_SUCCESS);
    if (agents[1].handle == 0) return 3;
    uint32_t xcc = 1;
    EXPECT(hsa_amd_agent_set_async_scratch_limit(agents[0], 1 << 20),
           HSA_STATUS_ERROR_INVALID_AGENT);
    hsa_status_t want = async ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_ARGUMENT;
    EXPECT(hsa_amd_agent_set_async_scratch_limit(agents[1], 1 << 20), want);
    EXPECT(hsa_amd_agent_set_async_scratch_limit(agents[1], (size_t)3 << 30), want);
    /* The MI300X has 8 XCCs: 32 GiB is the most its scratch can address. */
    if (async) xcc = 8;
    EXPECT(hsa_amd_agent_set_async_scratch_limit(agents[1], ((size_t)xcc << 32) + 1),
           HSA_STATUS_ERROR_INVALID_ARGUMENT);
    EXPECT(hsa_shut_down(), HSA_STATUS_SUCCESS);
    printf("scratch_limit %s: ok\n", argv[1]);
    return 0;
}
