/* AMD extension calls beyond the basics: CU masks on a queue, pointer info
 * with user data and accessible agents, deallocation callbacks, GPU-only
 * signals completing a dispatch, hsa_amd_signal_wait_any, async functions,
 * memory lock, fill, coherency type. Usage: amd_extras KERNELS.co */
#include "util.h"

static int freed;
static void *freed_ptr;
static void on_free(void *ptr, void *ud) {
    freed += (int)(intptr_t)ud;
    freed_ptr = ptr;
}

static hsa_signal_t async_done;
static void async_fn(void *arg) { hsa_signal_store_screlease(async_done, (hsa_signal_value_t)(intptr_t)arg); }

static void *alloc(size_t n) { return malloc(n); }

int main(int argc, char **argv) {
    EXPECT(argc == 2);
    CHECK(hsa_init());
    env_t e;
    env_init(&e);
    kernel_t k;
    load_kernel(&e, argv[1], "vadd.kd", &k);

    /* CU masks. */
    uint32_t cus = 0;
    CHECK(hsa_agent_get_info(e.gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, &cus));
    EXPECT(cus > 0 && cus <= 128);
    hsa_queue_t *q;
    CHECK(hsa_queue_create(e.gpu, 64, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
    uint32_t mask[4];
    CHECK(hsa_amd_queue_cu_get_mask(q, 128, mask));
    int bits = 0;
    for (int i = 0; i < 4; i++) bits += __builtin_popcount(mask[i]);
    EXPECT(bits == (int)cus);
    uint32_t one[4] = {0x5, 0, 0, 0};
    CHECK(hsa_amd_queue_cu_set_mask(q, 128, one));
    memset(mask, 0xff, sizeof mask);
    CHECK(hsa_amd_queue_cu_get_mask(q, 128, mask));
    EXPECT(mask[0] == 0x5 && mask[1] == 0 && mask[2] == 0 && mask[3] == 0);
    uint32_t all[4] = {~0u, ~0u, ~0u, ~0u};
    /* Bits past the agent's CUs are dropped without CU_MASK_REDUCED (ROCr's
       SetCUMasking reports only CUs HSA_CU_MASK disables). */
    CHECK(hsa_amd_queue_cu_set_mask(q, 128, all));
    CHECK(hsa_amd_queue_cu_get_mask(q, 128, mask));
    bits = 0;
    for (int i = 0; i < 4; i++) bits += __builtin_popcount(mask[i]);
    EXPECT(bits == (int)cus);
    EXPECT(hsa_amd_queue_cu_set_mask(q, 31, one) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    EXPECT(hsa_amd_queue_cu_get_mask(q, 0, mask) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_amd_queue_cu_set_mask(q, 0, NULL));

    /* Queue priorities (UPDATE_QUEUE), then a dispatch still runs. */
    CHECK(hsa_amd_queue_set_priority(q, HSA_AMD_QUEUE_PRIORITY_HIGH));
    CHECK(hsa_amd_queue_set_priority(q, HSA_AMD_QUEUE_PRIORITY_LOW));
    CHECK(hsa_amd_queue_set_priority(q, HSA_AMD_QUEUE_PRIORITY_NORMAL));
    EXPECT(hsa_amd_queue_set_priority(q, (hsa_amd_queue_priority_t)7) == HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* A GPU-only signal completes a dispatch on the masked queue. */
    CHECK(hsa_amd_queue_cu_set_mask(q, 32, one));
    float *a, *b, *c;
    CHECK(hsa_amd_memory_pool_allocate(e.sys_fine, 256 * 4, 0, (void **)&a));
    CHECK(hsa_amd_agents_allow_access(1, &e.gpu, NULL, a));
    CHECK(hsa_amd_memory_pool_allocate(e.sys_fine, 256 * 4, 0, (void **)&b));
    CHECK(hsa_amd_agents_allow_access(1, &e.gpu, NULL, b));
    CHECK(hsa_amd_memory_pool_allocate(e.sys_fine, 256 * 4, 0, (void **)&c));
    CHECK(hsa_amd_agents_allow_access(1, &e.gpu, NULL, c));
    CHECK(hsa_amd_memory_fill(a, 0x3f800000u, 256)); /* 1.0f */
    CHECK(hsa_amd_memory_fill(b, 0x40000000u, 256)); /* 2.0f */
    vadd_args_t *args;
    CHECK(hsa_memory_allocate(e.kernarg, k.kernarg_size, (void **)&args));
    memset(args, 0, k.kernarg_size);
    args->a = a;
    args->b = b;
    args->c = c;
    args->n = 256;
    hsa_signal_t gpu_only, other;
    CHECK(hsa_amd_signal_create(1, 0, NULL, HSA_AMD_SIGNAL_AMD_GPU_ONLY, &gpu_only));
    CHECK(hsa_signal_create(5, 0, NULL, &other));
    dispatch(q, &k, args, 256, gpu_only);
    hsa_signal_t both[2] = {other, gpu_only};
    hsa_signal_condition_t conds[2] = {HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_EQ};
    hsa_signal_value_t vals[2] = {0, 0};
    hsa_signal_value_t seen = -1;
    uint32_t idx = hsa_amd_signal_wait_any(2, both, conds, vals, UINT64_MAX, HSA_WAIT_STATE_BLOCKED, &seen);
    EXPECT(idx == 1 && seen == 0);
    for (int i = 0; i < 256; i++) EXPECT(c[i] == 3.0f);

    /* Profiling: the packet processor stamps the completion signal; the
     * stamps translate to the system clock between the host's readings
     * around the dispatch (10 ms of slack for the translation). */
    hsa_signal_t prof;
    CHECK(hsa_signal_create(1, 0, NULL, &prof));
    CHECK(hsa_amd_profiling_set_profiler_enabled(q, 1));
    uint64_t before, after;
    CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &before));
    dispatch(q, &k, args, 256, prof);
    EXPECT(hsa_signal_wait_scacquire(prof, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
    CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &after));
    hsa_amd_profiling_dispatch_time_t dt;
    CHECK(hsa_amd_profiling_get_dispatch_time(e.gpu, prof, &dt));
    const uint64_t slack = 10000000;
    EXPECT(dt.start != 0 && dt.start <= dt.end);
    EXPECT(dt.start + slack >= before && dt.end <= after + slack);
    uint64_t s1, s2;
    CHECK(hsa_amd_profiling_convert_tick_to_system_domain(e.gpu, 1000000, &s1));
    CHECK(hsa_amd_profiling_convert_tick_to_system_domain(e.gpu, 2000000, &s2));
    EXPECT(s2 > s1);
    EXPECT(hsa_amd_profiling_get_dispatch_time(e.cpu, prof, &dt) == HSA_STATUS_ERROR_INVALID_AGENT);
    /* A barrier-AND on the profiled queue is stamped too (HIP's event markers). */
    hsa_signal_store_relaxed(prof, 1);
    hsa_barrier_and_packet_t *ba;
    uint64_t bid = reserve(q, (void **)&ba);
    memset((char *)ba + 4, 0, 60);
    ba->completion_signal = prof;
    CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &before));
    publish(q, bid, ba, header(HSA_PACKET_TYPE_BARRIER_AND), 0);
    EXPECT(hsa_signal_wait_scacquire(prof, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
    CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &after));
    CHECK(hsa_amd_profiling_get_dispatch_time(e.gpu, prof, &dt));
    EXPECT(dt.start <= dt.end && dt.start + slack >= before && dt.end <= after + slack);
    CHECK(hsa_amd_profiling_set_profiler_enabled(q, 0));
    CHECK(hsa_signal_destroy(prof));
    /* An IPC-capable signal (tests/c/ipc_events.c shares one). */
    hsa_signal_t ipc;
    CHECK(hsa_amd_signal_create(1, 0, NULL, HSA_AMD_SIGNAL_IPC, &ipc));
    EXPECT(hsa_signal_load_relaxed(ipc) == 1);
    CHECK(hsa_signal_destroy(ipc));
    hsa_signal_value_t *vp = NULL;
    CHECK(hsa_amd_signal_value_pointer(other, (volatile hsa_signal_value_t **)&vp));
    EXPECT(*vp == 5);
    hsa_signal_store_relaxed(other, 9);
    EXPECT(*vp == 9);

    /* Rectangle copies: host -> VRAM -> host, a 2-slice box at offsets. */
    {
        enum { SP = 256, SROWS = 16, SSLICE = SP * SROWS, DP = 512, DROWS = 20, DSLICE = DP * DROWS };
        unsigned char *h1, *h2, *dev;
        CHECK(hsa_amd_memory_pool_allocate(e.sys_fine, 2 * SSLICE, 0, (void **)&h1));
        CHECK(hsa_amd_agents_allow_access(1, &e.gpu, NULL, h1));
        CHECK(hsa_amd_memory_pool_allocate(e.sys_fine, 2 * SSLICE, 0, (void **)&h2));
        CHECK(hsa_amd_agents_allow_access(1, &e.gpu, NULL, h2));
        CHECK(hsa_amd_memory_pool_allocate(e.vram, 3 * DSLICE, 0, (void **)&dev));
        for (int i = 0; i < 2 * SSLICE; i++) {
            h1[i] = (unsigned char)(i * 7 + 3);
            h2[i] = 0;
        }
        hsa_pitched_ptr_t hp1 = {h1, SP, SSLICE}, hp2 = {h2, SP, SSLICE}, dp = {dev, DP, DSLICE};
        hsa_dim3_t hoff = {5, 2, 0}, doff = {100, 3, 1}, box = {100, 10, 2};
        hsa_signal_t up, down;
        CHECK(hsa_signal_create(1, 0, NULL, &up));
        CHECK(hsa_signal_create(1, 0, NULL, &down));
        CHECK(hsa_amd_memory_async_copy_rect(&dp, &doff, &hp1, &hoff, &box, e.gpu, hsaHostToDevice, 0, NULL, up));
        CHECK(hsa_amd_memory_async_copy_rect(&hp2, &hoff, &dp, &doff, &box, e.gpu, hsaDeviceToHost, 1, &up, down));
        EXPECT(hsa_signal_wait_scacquire(down, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
        EXPECT(hsa_signal_load_scacquire(up) == 0);
        for (int z = 0; z < 2; z++)
            for (int y = 0; y < SROWS; y++)
                for (int x = 0; x < SP; x++) {
                    int i = z * SSLICE + y * SP + x;
                    int in = y >= 2 && y < 12 && x >= 5 && x < 105;
                    EXPECT(h2[i] == (in ? h1[i] : 0));
                }
        hsa_dim3_t empty = {0, 1, 1};
        CHECK(hsa_amd_memory_async_copy_rect(&dp, &doff, &hp1, &hoff, &empty, e.gpu, hsaHostToDevice, 0, NULL, up));
        EXPECT(hsa_amd_memory_async_copy_rect(&hp2, &hoff, &hp1, &hoff, &box, e.gpu, hsaHostToHost, 0, NULL, up) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
        EXPECT(hsa_amd_memory_async_copy_rect(&dp, &doff, &hp1, &hoff, &box, e.cpu, hsaHostToDevice, 0, NULL, up) == HSA_STATUS_ERROR_INVALID_AGENT);
        CHECK(hsa_signal_destroy(up));
        CHECK(hsa_signal_destroy(down));
        CHECK(hsa_amd_memory_pool_free(h1));
        CHECK(hsa_amd_memory_pool_free(h2));
        CHECK(hsa_amd_memory_pool_free(dev));
    }

    /* Pointer info, user data, accessible agents. */
    hsa_amd_pointer_info_t pi;
    memset(&pi, 0, sizeof pi);
    pi.size = sizeof pi;
    uint32_t n_acc = 0;
    hsa_agent_t *acc = NULL;
    CHECK(hsa_amd_pointer_info_set_userdata(c, (void *)0x1234));
    CHECK(hsa_amd_pointer_info((char *)c + 100, &pi, alloc, &n_acc, &acc));
    EXPECT(pi.type == HSA_EXT_POINTER_TYPE_HSA && pi.agentBaseAddress == c && pi.sizeInBytes == 256 * 4);
    EXPECT(pi.userData == (void *)0x1234 && pi.agentOwner.handle == e.cpu.handle);
    int has_cpu = 0, has_gpu = 0;
    for (uint32_t i = 0; i < n_acc; i++) {
        has_cpu |= acc[i].handle == e.cpu.handle;
        has_gpu |= acc[i].handle == e.gpu.handle;
    }
    EXPECT(has_cpu && has_gpu);
    free(acc);
    EXPECT(hsa_amd_pointer_info_set_userdata((char *)c + 4, NULL) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    int stack_var;
    CHECK(hsa_amd_pointer_info(&stack_var, &pi, NULL, NULL, NULL));
    EXPECT(pi.type == HSA_EXT_POINTER_TYPE_UNKNOWN);

    /* Deallocation callbacks run at free, once, with their pointer. */
    CHECK(hsa_amd_register_deallocation_callback((char *)c + 8, on_free, (void *)3));
    CHECK(hsa_amd_register_deallocation_callback(c, on_free, (void *)10));
    CHECK(hsa_amd_deregister_deallocation_callback(c, on_free));
    EXPECT(hsa_amd_deregister_deallocation_callback(c, on_free) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    EXPECT(hsa_amd_register_deallocation_callback(&stack_var, on_free, NULL) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK(hsa_amd_memory_pool_free(c));
    EXPECT(freed == 3 && freed_ptr == (char *)c + 8);

    /* Locked host memory. */
    static char host[8192] __attribute__((aligned(4096)));
    void *gpu_ptr = NULL;
    CHECK(hsa_amd_memory_lock(host, sizeof host, NULL, 0, &gpu_ptr));
    EXPECT(gpu_ptr != NULL);
    CHECK(hsa_amd_pointer_info(host, &pi, NULL, NULL, NULL));
    EXPECT(pi.type == HSA_EXT_POINTER_TYPE_LOCKED);
    CHECK(hsa_amd_memory_unlock(host));
    /* Overlapping locks (ROCr allows them): the second outlives the first. */
    void *p1, *p2;
    CHECK(hsa_amd_memory_lock(host, 4096, NULL, 0, &p1));
    CHECK(hsa_amd_memory_lock(host + 100, 8000, NULL, 0, &p2));
    CHECK(hsa_amd_memory_lock(host, 4096, NULL, 0, &p1));
    CHECK(hsa_amd_memory_unlock(host));
    CHECK(hsa_amd_memory_unlock(host));
    {
        /* A copy across both pages of the second lock, through the GPU. */
        unsigned char *dev;
        CHECK(hsa_amd_memory_pool_allocate(e.vram, 8192, 0, (void **)&dev));
        for (int i = 0; i < 8000; i++) host[100 + i] = (unsigned char)(i * 13);
        hsa_signal_t s1;
        CHECK(hsa_signal_create(1, 0, NULL, &s1));
        CHECK(hsa_amd_memory_async_copy(dev, e.gpu, host + 100, e.cpu, 8000, 0, NULL, s1));
        EXPECT(hsa_signal_wait_scacquire(s1, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
        memset(host + 100, 0, 8000);
        hsa_signal_store_relaxed(s1, 1);
        CHECK(hsa_amd_memory_async_copy(host + 100, e.cpu, dev, e.gpu, 8000, 0, NULL, s1));
        EXPECT(hsa_signal_wait_scacquire(s1, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
        for (int i = 0; i < 8000; i++) EXPECT((unsigned char)host[100 + i] == (unsigned char)(i * 13));
        CHECK(hsa_signal_destroy(s1));
        CHECK(hsa_amd_memory_pool_free(dev));
    }
    CHECK(hsa_amd_memory_unlock(host + 100));
    /* Unlocking memory that is not locked does nothing and succeeds, as in
     * ROCr (tests/c/status_diff.c checks it against AMD's ROCr). */
    EXPECT(hsa_amd_memory_unlock(host + 100) == HSA_STATUS_SUCCESS);

    /* An async function runs on a runtime thread. */
    CHECK(hsa_signal_create(0, 0, NULL, &async_done));
    CHECK(hsa_amd_async_function(async_fn, (void *)(intptr_t)42));
    EXPECT(hsa_signal_wait_scacquire(async_done, HSA_SIGNAL_CONDITION_EQ, 42, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 42);

    hsa_amd_coherency_type_t ct;
    /* A discrete GPU starts non-coherent (ROCr's answer on the sim, checked
     * by tests/c/hsa_smoke.c in scripts/test-rocr-on-sim). */
    CHECK(hsa_amd_coherency_get_type(e.gpu, &ct));
    EXPECT(ct == HSA_AMD_COHERENCY_TYPE_NONCOHERENT);
    EXPECT(hsa_amd_coherency_get_type(e.cpu, &ct) == HSA_STATUS_ERROR_INVALID_AGENT);
    /* Set records the type (ROCr on every GPU but Kaveri); the checks in
     * ROCr's order: the type, then that the agent is a GPU. */
    CHECK(hsa_amd_coherency_set_type(e.gpu, HSA_AMD_COHERENCY_TYPE_COHERENT));
    CHECK(hsa_amd_coherency_get_type(e.gpu, &ct));
    EXPECT(ct == HSA_AMD_COHERENCY_TYPE_COHERENT);
    EXPECT(hsa_amd_coherency_set_type(e.gpu, (hsa_amd_coherency_type_t)2) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    EXPECT(hsa_amd_coherency_set_type(e.cpu, (hsa_amd_coherency_type_t)2) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    EXPECT(hsa_amd_coherency_set_type(e.cpu, HSA_AMD_COHERENCY_TYPE_COHERENT) == HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK(hsa_amd_coherency_set_type(e.gpu, HSA_AMD_COHERENCY_TYPE_NONCOHERENT));
    CHECK(hsa_amd_coherency_get_type(e.gpu, &ct));
    EXPECT(ct == HSA_AMD_COHERENCY_TYPE_NONCOHERENT);

    CHECK(hsa_signal_destroy(async_done));
    CHECK(hsa_signal_destroy(gpu_only));
    CHECK(hsa_signal_destroy(other));
    CHECK(hsa_queue_destroy(q));
    CHECK(hsa_memory_free(args));
    CHECK(hsa_amd_memory_pool_free(a));
    CHECK(hsa_amd_memory_pool_free(b));
    CHECK(hsa_executable_destroy(k.exe));
    CHECK(hsa_shut_down());
    printf("amd extras: cu masks, gpu-only signal, wait any, profiling, rect copies, pointer info, deallocation callbacks, overlapping locks, async function: ok\n");
    return 0;
}
