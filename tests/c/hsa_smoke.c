// hsa_smoke: a small HSA program against ROCr 5.2.3's headers (plain C,
// with the helpers of tests/c/hsa_client.h), run on AMD's ROCr over the software GPU
// (scripts/test-rocr-on-sim) and, the same binary, on our drop-in library.
//
//   hsa_smoke CODE_OBJECT   (a gfx90a code object with `vector_add` and
//                            `store_to`, e.g. runtime/kernels/demo.co)
//
// Checks, each against values computed here on the host:
//   1. vector add: c[i] = a[i] + b[i], kernel from CODE_OBJECT, fine-grained
//      host buffers, completion signal waited on with HSA_WAIT_STATE_BLOCKED
//      (an interrupt signal: the wait sleeps in the driver until the GPU's
//      end-of-kernel interrupt);
//   2. a barrier chain across two queues: queue 2's barrier-AND waits for
//      the kernel on queue 1, queue 1's barrier-OR waits for that AND or a
//      signal never set; the host waits for the OR;
//   3. hsa_amd_memory_async_copy host -> device -> host (SDMA, or ROCr's
//      blit kernels with HSA_ENABLE_SDMA=0), result compared;
//   4. hsa_amd_memory_fill of device memory, copied back: every filled dword
//      holds the value and the dwords around the range are untouched;
//   5. hsa_amd_memory_lock_to_pool of a malloc'ed buffer: a kernel stores
//      through the agent pointer it gives and the host sees every store in
//      its buffer, none past the grid.
// Prints "hsa_smoke: PASS" and exits 0, or names the failed check, exit 1.

#define CLIENT "hsa_smoke"
#include "hsa_client.h"

#define N 4096
#define WG 64

static void barrier(hsa_queue_t *q, uint16_t type, const hsa_signal_t *deps, int n, hsa_signal_t done) {
    uint64_t id = reserve(q);
    hsa_barrier_and_packet_t *p = slot_of(q, id);
    memset((char *)p + 4, 0, sizeof(*p) - 4);
    for (int i = 0; i < n; i++)
        p->dep_signal[i] = deps[i];
    p->completion_signal = done;
    uint16_t header = (uint16_t)(type << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    publish(p, header, 0);
    hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)id);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: hsa_smoke CODE_OBJECT\n");
        return 2;
    }
    CHECK(hsa_init(), "hsa_init");
    ctx_t c = {0};
    CHECK(hsa_iterate_agents(find_agents, &c), "hsa_iterate_agents");
    if (!c.have_gpu || !c.have_cpu) {
        fprintf(stderr, "hsa_smoke: no GPU or no CPU agent\n");
        return 1;
    }
    CHECK(hsa_amd_agent_iterate_memory_pools(c.gpu, gpu_pools, &c), "GPU pools");
    CHECK(hsa_amd_agent_iterate_memory_pools(c.cpu, cpu_pools, &c), "CPU pools");
    if (!c.have_gpu_pool || !c.have_cpu_fine || !c.have_kernarg) {
        fprintf(stderr, "hsa_smoke: missing a pool (gpu %d, fine %d, kernarg %d)\n", c.have_gpu_pool,
                c.have_cpu_fine, c.have_kernarg);
        return 1;
    }

    // The code object.
    size_t co_size;
    void *co = read_file(argv[1], &co_size);
    hsa_code_object_reader_t reader;
    CHECK(hsa_code_object_reader_create_from_memory(co, co_size, &reader), "code object reader");
    hsa_executable_t exe;
    CHECK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe),
          "executable create");
    CHECK(hsa_executable_load_agent_code_object(exe, c.gpu, reader, NULL, NULL), "load code object");
    CHECK(hsa_executable_freeze(exe, NULL), "freeze");
    kernel_t vadd = kernel_of(exe, c.gpu, "vector_add");

    // Buffers: a, b, c on the host (fine grained), d on the device.
    size_t bytes = N * sizeof(float);
    float *a = alloc_in(c.cpu_fine, bytes, &c, "alloc a");
    float *b = alloc_in(c.cpu_fine, bytes, &c, "alloc b");
    float *out = alloc_in(c.cpu_fine, bytes, &c, "alloc c");
    float *back = alloc_in(c.cpu_fine, bytes + 8, &c, "alloc back");
    void *dev = alloc_in(c.gpu_pool, bytes + 4096, &c, "alloc device");
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = (float)(3 * i) + 0.5f;
        out[i] = -1.0f;
    }

    // Kernel arguments: a, b, c, n, then the hidden arguments zeroed
    // (global offsets 0).
    struct {
        const float *a, *b;
        float *c;
        uint32_t n;
    } args = {a, b, out, N};
    void *ka = kernargs_for(&c, &vadd, &args, sizeof args);

    hsa_queue_t *q1, *q2;
    CHECK(hsa_queue_create(c.gpu, 256, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q1), "queue 1");
    CHECK(hsa_queue_create(c.gpu, 256, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q2), "queue 2");

    hsa_signal_t s_kern, s_and, s_or, s_never;
    CHECK(hsa_signal_create(1, 0, NULL, &s_kern), "signal");
    CHECK(hsa_signal_create(1, 0, NULL, &s_and), "signal");
    CHECK(hsa_signal_create(1, 0, NULL, &s_or), "signal");
    CHECK(hsa_signal_create(1, 0, NULL, &s_never), "signal");

    // 2. First the barrier-AND on queue 2, waiting for a kernel not yet
    // submitted.
    barrier(q2, HSA_PACKET_TYPE_BARRIER_AND, &s_kern, 1, s_and);

    // 1. The dispatch on queue 1.
    uint16_t header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                      (1 << HSA_PACKET_HEADER_BARRIER) |
                      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    uint64_t id = write_dispatch(q1, &vadd, ka, N, WG, s_kern, header);
    hsa_signal_store_screlease(q1->doorbell_signal, (hsa_signal_value_t)id);

    // Then queue 1's barrier-OR on the AND or a signal nobody sets.
    hsa_signal_t or_deps[2] = {s_never, s_and};
    barrier(q1, HSA_PACKET_TYPE_BARRIER_OR, or_deps, 2, s_or);

    if (wait_zero(s_or, "barrier-OR")) {
        EXPECT(hsa_signal_load_scacquire(s_and) == 0, "the OR completed before the AND it waited for");
        EXPECT(hsa_signal_load_scacquire(s_kern) == 0, "the AND completed before the kernel it waited for");
        EXPECT(hsa_signal_load_scacquire(s_never) == 1, "the signal nobody sets changed");
    }
    wait_zero(s_kern, "vector_add");
    int bad = 0;
    for (int i = 0; i < N; i++) {
        float want = (float)i + ((float)(3 * i) + 0.5f);
        if (out[i] != want && bad++ < 4)
            fprintf(stderr, "hsa_smoke: c[%d] = %g, want %g\n", i, out[i], want);
    }
    EXPECT(bad == 0, "vector_add: %d of %d results wrong", bad, N);

    // 3. Host -> device -> host.
    hsa_signal_t s_copy;
    CHECK(hsa_signal_create(1, 0, NULL, &s_copy), "signal");
    CHECK(hsa_amd_memory_async_copy(dev, c.gpu, out, c.cpu, bytes, 0, NULL, s_copy), "async copy to device");
    wait_zero(s_copy, "copy to device");
    memset(back, 0, bytes);
    hsa_signal_store_relaxed(s_copy, 1);
    CHECK(hsa_amd_memory_async_copy(back, c.cpu, dev, c.gpu, bytes, 0, NULL, s_copy), "async copy to host");
    wait_zero(s_copy, "copy to host");
    EXPECT(memcmp(back, out, bytes) == 0, "async copy: host -> device -> host changed the bytes");

    // 4. Fill the device buffer's dwords 1..n, with a sentinel on each side.
    uint32_t *words = (uint32_t *)back;
    size_t nw = N / 2;
    for (size_t i = 0; i < nw + 2; i++)
        words[i] = 0x5a5a5a5au;
    hsa_signal_store_relaxed(s_copy, 1);
    CHECK(hsa_amd_memory_async_copy(dev, c.gpu, words, c.cpu, (nw + 2) * 4, 0, NULL, s_copy), "sentinels");
    wait_zero(s_copy, "sentinels");
    CHECK(hsa_amd_memory_fill((uint32_t *)dev + 1, 0xc0ffee11u, nw), "hsa_amd_memory_fill");
    memset(words, 0, (nw + 2) * 4);
    hsa_signal_store_relaxed(s_copy, 1);
    CHECK(hsa_amd_memory_async_copy(words, c.cpu, dev, c.gpu, (nw + 2) * 4, 0, NULL, s_copy), "fill read back");
    wait_zero(s_copy, "fill read back");
    EXPECT(words[0] == 0x5a5a5a5au, "fill wrote before its start (%#x)", words[0]);
    size_t wrong = 0;
    for (size_t i = 1; i <= nw; i++)
        wrong += words[i] != 0xc0ffee11u;
    EXPECT(wrong == 0, "fill: %zu of %zu dwords wrong", wrong, nw);
    EXPECT(words[nw + 1] == 0x5a5a5a5au, "fill wrote past its end (%#x)", words[nw + 1]);

    /* 5. Host memory locked to a pool: a kernel (store_to, p[i] = 1)
     * writes through the agent pointer hsa_amd_memory_lock_to_pool gives,
     * and the host sees the stores in its own malloc'ed buffer. */
    {
        size_t lbytes = 2 * 4096;
        uint32_t *host = aligned_alloc(4096, lbytes);
        EXPECT(host != NULL, "aligned_alloc");
        for (size_t i = 0; i < lbytes / 4; i++)
            host[i] = 0xabababab;
        void *agent_ptr = NULL;
        CHECK(hsa_amd_memory_lock_to_pool(host, lbytes, &c.gpu, 1, c.cpu_fine, 0, &agent_ptr),
              "hsa_amd_memory_lock_to_pool");
        EXPECT(agent_ptr != NULL, "lock_to_pool gave no agent pointer");
        kernel_t store_to = kernel_of(exe, c.gpu, "store_to");
        void *ska = kernargs_for(&c, &store_to, &agent_ptr, sizeof agent_ptr);
        hsa_signal_t s_store;
        CHECK(hsa_signal_create(1, 0, NULL, &s_store), "signal");
        /* 1000 work-items: a partial last group. */
        uint64_t sid = write_dispatch(q1, &store_to, ska, 1000, WG, s_store, header);
        hsa_signal_store_screlease(q1->doorbell_signal, (hsa_signal_value_t)sid);
        wait_zero(s_store, "store_to through the locked pointer");
        size_t stored = 0, untouched = 0;
        for (size_t i = 0; i < lbytes / 4; i++) {
            stored += i < 1000 && host[i] == 1;
            untouched += i >= 1000 && host[i] == 0xabababab;
        }
        EXPECT(stored == 1000, "locked memory: %zu of 1000 stores seen by the host", stored);
        EXPECT(untouched == lbytes / 4 - 1000, "locked memory: stores past the grid");
        CHECK(hsa_amd_memory_unlock(host), "hsa_amd_memory_unlock");
        CHECK(hsa_signal_destroy(s_store), "signal destroy");
        CHECK(hsa_amd_memory_pool_free(ska), "free");
        free(host);
    }

    /* Coherency type: the answers cabi/tests/c/amd_extras.c expects of
     * our library, asked of ROCr's. */
    hsa_amd_coherency_type_t ct;
    CHECK(hsa_amd_coherency_get_type(c.gpu, &ct), "coherency get");
    EXPECT(ct == HSA_AMD_COHERENCY_TYPE_NONCOHERENT, "initial coherency type %d", (int)ct);
    CHECK(hsa_amd_coherency_set_type(c.gpu, HSA_AMD_COHERENCY_TYPE_COHERENT), "coherency set");
    CHECK(hsa_amd_coherency_get_type(c.gpu, &ct), "coherency get");
    EXPECT(ct == HSA_AMD_COHERENCY_TYPE_COHERENT, "coherency type after set %d", (int)ct);
    hsa_status_t st = hsa_amd_coherency_set_type(c.gpu, (hsa_amd_coherency_type_t)2);
    EXPECT(st == HSA_STATUS_ERROR_INVALID_ARGUMENT, "coherency set of 2: %#x", st);
    st = hsa_amd_coherency_set_type(c.cpu, (hsa_amd_coherency_type_t)2);
    EXPECT(st == HSA_STATUS_ERROR_INVALID_ARGUMENT, "coherency set of 2 on the CPU: %#x", st);
    st = hsa_amd_coherency_set_type(c.cpu, HSA_AMD_COHERENCY_TYPE_COHERENT);
    EXPECT(st == HSA_STATUS_ERROR_INVALID_AGENT, "coherency set on the CPU: %#x", st);
    st = hsa_amd_coherency_get_type(c.cpu, &ct);
    EXPECT(st == HSA_STATUS_ERROR_INVALID_AGENT, "coherency get on the CPU: %#x", st);
    CHECK(hsa_amd_coherency_set_type(c.gpu, HSA_AMD_COHERENCY_TYPE_NONCOHERENT), "coherency set");
    CHECK(hsa_amd_coherency_get_type(c.gpu, &ct), "coherency get");
    EXPECT(ct == HSA_AMD_COHERENCY_TYPE_NONCOHERENT, "coherency type after reset %d", (int)ct);

    CHECK(hsa_signal_destroy(s_copy), "signal destroy");
    CHECK(hsa_signal_destroy(s_kern), "signal destroy");
    CHECK(hsa_signal_destroy(s_and), "signal destroy");
    CHECK(hsa_signal_destroy(s_or), "signal destroy");
    CHECK(hsa_signal_destroy(s_never), "signal destroy");
    CHECK(hsa_queue_destroy(q2), "queue destroy");
    CHECK(hsa_queue_destroy(q1), "queue destroy");
    CHECK(hsa_amd_memory_pool_free(ka), "free");
    CHECK(hsa_amd_memory_pool_free(dev), "free");
    CHECK(hsa_amd_memory_pool_free(back), "free");
    CHECK(hsa_amd_memory_pool_free(out), "free");
    CHECK(hsa_amd_memory_pool_free(b), "free");
    CHECK(hsa_amd_memory_pool_free(a), "free");
    CHECK(hsa_executable_destroy(exe), "executable destroy");
    CHECK(hsa_code_object_reader_destroy(reader), "reader destroy");
    free(co);
    CHECK(hsa_shut_down(), "hsa_shut_down");
    if (failures) {
        fprintf(stderr, "hsa_smoke: %d check(s) failed\n", failures);
        return 1;
    }
    printf("hsa_smoke: PASS\n");
    return 0;
}
