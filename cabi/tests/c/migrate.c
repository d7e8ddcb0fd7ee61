/* hsa_amd_memory_migrate and hsa_amd_memory_pool_can_migrate from C: a
 * VRAM buffer a kernel wrote moves to system memory and back at the same
 * address with its contents, pointer info follows it, and the kernel
 * reads and writes it in each place. (ROCr answers OUT_OF_RESOURCES to
 * both calls, "not implemented yet"; their argument checks are compared
 * with ROCr's in tests/c/status_diff.c.) Usage: migrate KERNELS.co */
#include "util.h"

#define N 2048

static void vadd(env_t *e, hsa_queue_t *q, kernel_t *k, float *a, float *b, float *c) {
    vadd_args_t *args;
    CHECK(hsa_memory_allocate(e->kernarg, sizeof *args, (void **)&args));
    args->a = a;
    args->b = b;
    args->c = c;
    args->n = N;
    hsa_signal_t done;
    CHECK(hsa_signal_create(1, 0, NULL, &done));
    dispatch(q, k, args, N, done);
    EXPECT(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX,
                                     HSA_WAIT_STATE_BLOCKED) == 0);
    CHECK(hsa_signal_destroy(done));
    CHECK(hsa_memory_free(args));
}

static void expect_sums(env_t *e, float *c, const float *a, const float *b) {
    static float host[N];
    CHECK(hsa_memory_copy(host, c, sizeof host));
    for (int i = 0; i < N; i++)
        EXPECT(host[i] == a[i] + b[i]);
    (void)e;
}

static void expect_pool(void *p, hsa_amd_pointer_type_t type, hsa_agent_t owner) {
    hsa_amd_pointer_info_t info = {.size = sizeof info};
    CHECK(hsa_amd_pointer_info(p, &info, NULL, NULL, NULL));
    EXPECT(info.type == type);
    EXPECT(info.agentBaseAddress == p);
    EXPECT(info.agentOwner.handle == owner.handle);
}

int main(int argc, char **argv) {
    EXPECT(argc == 2);
    CHECK(hsa_init());
    env_t e;
    env_init(&e);
    kernel_t k;
    load_kernel(&e, argv[1], "vadd.kd", &k);
    hsa_queue_t *q;
    CHECK(hsa_queue_create(e.gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));

    bool can = false;
    CHECK(hsa_amd_memory_pool_can_migrate(e.vram, e.sys_fine, &can));
    EXPECT(can);
    CHECK(hsa_amd_memory_pool_can_migrate(e.sys_fine, e.vram, &can));
    EXPECT(can);

    float *a, *b, *c;
    CHECK(hsa_amd_memory_pool_allocate(e.sys_fine, N * 4, 0, (void **)&a));
    CHECK(hsa_amd_agents_allow_access(1, &e.gpu, NULL, a));
    CHECK(hsa_amd_memory_pool_allocate(e.sys_fine, N * 4, 0, (void **)&b));
    CHECK(hsa_amd_agents_allow_access(1, &e.gpu, NULL, b));
    CHECK(hsa_amd_memory_pool_allocate(e.vram, N * 4, 0, (void **)&c));
    hsa_agent_t both[2] = {e.gpu, e.cpu};
    CHECK(hsa_amd_agents_allow_access(2, both, NULL, a));
    CHECK(hsa_amd_agents_allow_access(2, both, NULL, b));
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i;
    }

    vadd(&e, q, &k, a, b, c);
    expect_pool(c, HSA_EXT_POINTER_TYPE_HSA, e.gpu);
    expect_sums(&e, c, a, b);

    /* VRAM -> system memory: the same pointer, the kernel's sums kept. */
    CHECK(hsa_amd_memory_migrate(c, e.sys_fine, 0));
    expect_pool(c, HSA_EXT_POINTER_TYPE_HSA, e.cpu);
    expect_sums(&e, c, a, b);
    memset(c, 0, N * 4); /* system memory: the CPU writes it directly */
    vadd(&e, q, &k, a, b, c);
    expect_sums(&e, c, a, b);

    /* And a, an input, to VRAM: the kernel reads it there. */
    CHECK(hsa_amd_memory_migrate(a, e.vram, 0));
    expect_pool(a, HSA_EXT_POINTER_TYPE_HSA, e.gpu);
    CHECK(hsa_amd_memory_migrate(c, e.vram, 0));
    CHECK(hsa_amd_memory_fill(c, 0, N));
    static float host_a[N];
    CHECK(hsa_memory_copy(host_a, a, sizeof host_a));
    for (int i = 0; i < N; i++)
        EXPECT(host_a[i] == (float)i);
    vadd(&e, q, &k, a, b, c);
    for (int i = 0; i < N; i++)
        b[i] -= (float)i; /* b becomes -i/2: a + b = i/2 from here on */
    vadd(&e, q, &k, a, b, c);
    static float host[N];
    CHECK(hsa_memory_copy(host, c, sizeof host));
    for (int i = 0; i < N; i++)
        EXPECT(host[i] == 0.5f * (float)i);

    /* Not an allocation's start: INVALID_ARGUMENT, nothing moves. */
    EXPECT(hsa_amd_memory_migrate((char *)c + 4096, e.sys_fine, 0) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    expect_pool(c, HSA_EXT_POINTER_TYPE_HSA, e.gpu);

    CHECK(hsa_amd_memory_pool_free(a));
    CHECK(hsa_amd_memory_pool_free(b));
    CHECK(hsa_amd_memory_pool_free(c));
    CHECK(hsa_queue_destroy(q));
    CHECK(hsa_executable_destroy(k.exe));
    CHECK(hsa_shut_down());
    printf("migrate: VRAM <-> system memory in place, contents and kernels: ok\n");
    return 0;
}
