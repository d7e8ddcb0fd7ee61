/* Vector add on one queue, a barrier-AND then a barrier-OR chain on a
 * second queue waiting for it, an async copy (device -> host) waiting for
 * the chain, an async handler, and checks of every result.
 * Usage: dispatch KERNELS.co */
#include "util.h"

#define N 4096

static hsa_signal_t handler_done;
static volatile int handler_saw = -1;

static bool on_chain_done(hsa_signal_value_t v, void *arg) {
    handler_saw = (int)v + (int)(intptr_t)arg;
    hsa_signal_store_screlease(handler_done, 0);
    return false;
}

int main(int argc, char **argv) {
    EXPECT(argc == 2);
    EXPECT(hsa_signal_create(1, 0, NULL, &handler_done) == HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK(hsa_init());
    env_t e;
    env_init(&e);
    kernel_t k;
    load_kernel(&e, argv[1], "vadd.kd", &k);
    EXPECT(k.kernarg_size >= 28);

    float *a, *b, *host_c, *dev_c;
    CHECK(hsa_amd_memory_pool_allocate(e.sys_fine, N * 4, 0, (void **)&a));
    CHECK(hsa_amd_memory_pool_allocate(e.sys_fine, N * 4, 0, (void **)&b));
    CHECK(hsa_amd_memory_pool_allocate(e.sys_fine, N * 4, 0, (void **)&host_c));
    CHECK(hsa_amd_memory_pool_allocate(e.vram, N * 4, 0, (void **)&dev_c));
    /* System-pool memory is DISALLOWED_BY_DEFAULT for a GPU: the GPU may
     * use it once it is given access (ROCr faults the kernel otherwise). */
    CHECK(hsa_amd_agents_allow_access(1, &e.gpu, NULL, a));
    CHECK(hsa_amd_agents_allow_access(1, &e.gpu, NULL, b));
    CHECK(hsa_amd_agents_allow_access(1, &e.gpu, NULL, host_c));
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i + 1.0f;
        host_c[i] = -1.0f;
    }
    vadd_args_t *args;
    CHECK(hsa_memory_allocate(e.kernarg, k.kernarg_size, (void **)&args));
    memset(args, 0, k.kernarg_size);
    args->a = a;
    args->b = b;
    args->c = dev_c;
    args->n = N;

    hsa_queue_t *q1, *q2;
    CHECK(hsa_queue_create(e.gpu, 128, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q1));
    CHECK(hsa_queue_create(e.gpu, 64, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX, &q2));
    EXPECT(q1->size == 128 && q2->size == 64 && q1->id != q2->id);

    /* Interrupt signals: the host may wait on them (no consumer list). */
    hsa_signal_t kernel_done, and_done, or_done, never, copy_done;
    CHECK(hsa_signal_create(1, 0, NULL, &kernel_done));
    CHECK(hsa_signal_create(1, 0, NULL, &and_done));
    CHECK(hsa_signal_create(1, 0, NULL, &or_done));
    CHECK(hsa_signal_create(1, 0, NULL, &never));
    CHECK(hsa_signal_create(1, 0, NULL, &copy_done));
    CHECK(hsa_signal_create(1, 0, NULL, &handler_done));
    CHECK(hsa_amd_signal_async_handler(or_done, HSA_SIGNAL_CONDITION_EQ, 0, on_chain_done, (void *)(intptr_t)7));

    /* q2 first: the chain waits for a kernel not yet submitted. */
    hsa_barrier_and_packet_t *ba;
    uint64_t id = reserve(q2, (void **)&ba);
    memset((char *)ba + 4, 0, 60);
    ba->dep_signal[0] = kernel_done;
    ba->completion_signal = and_done;
    publish(q2, id, ba, header(HSA_PACKET_TYPE_BARRIER_AND), 0);

    hsa_barrier_or_packet_t *bo;
    id = reserve(q2, (void **)&bo);
    memset((char *)bo + 4, 0, 60);
    bo->dep_signal[0] = never;
    bo->dep_signal[1] = and_done;
    bo->completion_signal = or_done;
    publish(q2, id, bo, header(HSA_PACKET_TYPE_BARRIER_OR), 0);

    /* The copy waits for the chain. */
    CHECK(hsa_amd_memory_async_copy(host_c, e.cpu, dev_c, e.gpu, N * 4, 1, &or_done, copy_done));

    EXPECT(hsa_signal_load_scacquire(or_done) == 1);
    EXPECT(hsa_signal_load_scacquire(copy_done) == 1);
    dispatch(q1, &k, args, N, kernel_done);

    hsa_signal_value_t v = hsa_signal_wait_scacquire(copy_done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
    EXPECT(v == 0);
    EXPECT(hsa_signal_load_scacquire(kernel_done) == 0);
    EXPECT(hsa_signal_load_scacquire(and_done) == 0);
    EXPECT(hsa_signal_load_scacquire(or_done) == 0);
    EXPECT(hsa_signal_load_scacquire(never) == 1);
    for (int i = 0; i < N; i++) {
        if (host_c[i] != a[i] + b[i]) {
            fprintf(stderr, "c[%d] = %f, expected %f\n", i, host_c[i], a[i] + b[i]);
            return 1;
        }
    }
    v = hsa_signal_wait_scacquire(handler_done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
    EXPECT(v == 0 && handler_saw == 7);

    /* Read and write indices: the packet processor consumed everything. */
    EXPECT(hsa_queue_load_read_index_scacquire(q1) == 1);
    EXPECT(hsa_queue_load_read_index_scacquire(q2) == 2);
    EXPECT(hsa_queue_load_write_index_relaxed(q2) == 2);

    /* Destroyed handles are rejected, never used. */
    CHECK(hsa_signal_destroy(never));
    EXPECT(hsa_signal_destroy(never) == HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK(hsa_queue_destroy(q2));
    EXPECT(hsa_queue_destroy(q2) == HSA_STATUS_ERROR_INVALID_QUEUE);
    CHECK(hsa_queue_destroy(q1));
    hsa_agent_t bogus = {0x1234};
    uint32_t x;
    EXPECT(hsa_agent_get_info(bogus, HSA_AGENT_INFO_NODE, &x) == HSA_STATUS_ERROR_INVALID_AGENT);
    EXPECT(hsa_agent_get_info(e.gpu, HSA_AGENT_INFO_NODE, NULL) == HSA_STATUS_ERROR_INVALID_ARGUMENT);

    CHECK(hsa_signal_destroy(kernel_done));
    CHECK(hsa_signal_destroy(and_done));
    CHECK(hsa_signal_destroy(or_done));
    CHECK(hsa_signal_destroy(copy_done));
    CHECK(hsa_signal_destroy(handler_done));
    CHECK(hsa_memory_free(args));
    CHECK(hsa_amd_memory_pool_free(a));
    CHECK(hsa_amd_memory_pool_free(b));
    CHECK(hsa_amd_memory_pool_free(host_c));
    CHECK(hsa_amd_memory_pool_free(dev_c));
    CHECK(hsa_executable_destroy(k.exe));
    CHECK(hsa_shut_down());
    EXPECT(hsa_shut_down() == HSA_STATUS_ERROR_NOT_INITIALIZED);
    printf("dispatch: vector add, barrier AND/OR chain, async copy, async handler: ok\n");
    return 0;
}
