/* 8 threads, each creating queues, dispatching vector add and destroying
 * them, 4 rounds each, concurrently. Usage: threads KERNELS.co */
#include <pthread.h>
#include "util.h"

#define THREADS 8
#define ROUNDS 4
#define N 256

static env_t e;
static kernel_t k;

static void *worker(void *arg) {
    int t = (int)(intptr_t)arg;
    for (int r = 0; r < ROUNDS; r++) {
        hsa_queue_t *q;
        CHECK(hsa_queue_create(e.gpu, 64, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
        float *a, *b, *c;
        CHECK(hsa_amd_memory_pool_allocate(e.sys_fine, N * 4, 0, (void **)&a));
        CHECK(hsa_amd_agents_allow_access(1, &e.gpu, NULL, a));
        CHECK(hsa_amd_memory_pool_allocate(e.sys_fine, N * 4, 0, (void **)&b));
        CHECK(hsa_amd_agents_allow_access(1, &e.gpu, NULL, b));
        CHECK(hsa_amd_memory_pool_allocate(e.sys_fine, N * 4, 0, (void **)&c));
        CHECK(hsa_amd_agents_allow_access(1, &e.gpu, NULL, c));
        for (int i = 0; i < N; i++) {
            a[i] = (float)(t * 1000 + i);
            b[i] = (float)r;
            c[i] = 0;
        }
        vadd_args_t *args;
        CHECK(hsa_memory_allocate(e.kernarg, k.kernarg_size, (void **)&args));
        memset(args, 0, k.kernarg_size);
        args->a = a;
        args->b = b;
        args->c = c;
        args->n = N;
        hsa_signal_t done;
        CHECK(hsa_signal_create(1, 0, NULL, &done));
        dispatch(q, &k, args, N, done);
        EXPECT(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
        for (int i = 0; i < N; i++)
            EXPECT(c[i] == (float)(t * 1000 + i + r));
        CHECK(hsa_signal_destroy(done));
        CHECK(hsa_queue_destroy(q));
        CHECK(hsa_memory_free(args));
        CHECK(hsa_amd_memory_pool_free(a));
        CHECK(hsa_amd_memory_pool_free(b));
        CHECK(hsa_amd_memory_pool_free(c));
    }
    return NULL;
}

int main(int argc, char **argv) {
    EXPECT(argc == 2);
    CHECK(hsa_init());
    env_init(&e);
    load_kernel(&e, argv[1], "vadd.kd", &k);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        EXPECT(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < THREADS; t++)
        EXPECT(pthread_join(th[t], NULL) == 0);
    CHECK(hsa_executable_destroy(k.exe));
    CHECK(hsa_shut_down());
    printf("threads: %d threads x %d rounds of queue create, dispatch, destroy: ok\n", THREADS, ROUNDS);
    return 0;
}
