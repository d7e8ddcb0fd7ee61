// cu_mask_scratch: ROCr 5.2.3 on the software GPU (scripts/test-rocr-on-sim)
// with the sim's CU model and use-once scratch: plain C against ROCr's
// headers.
//
//   cu_mask_scratch DEMO_CO CUMASK_CO plain|env|pool
//     DEMO_CO    runtime/kernels/demo.co (private_scratch)
//     CUMASK_CO  sim/tests/kernels/cumask.co (hw_id)
//     env        the caller set HSA_CU_MASK=0:5-9
//     pool       the caller set HSA_SCRATCH_MEM=64 HSA_MAX_QUEUES=1: a
//                13 MiB scratch pool, which 256 waves of private_scratch
//                do not fit (the runtime reduces the waves: ROCr's
//                occupancy reduction); only (1') runs
//
// Checks: (1) a dispatch whose scratch for every slot exceeds ROCr's
// HSA_SCRATCH_SINGLE_LIMIT runs on use-once scratch three times over with
// right results (ROCr's code-1 handshake, then the code-512 reclaim);
// (2) hsa_amd_queue_cu_set_mask / _get_mask statuses and masks (ROCr's
// SetCUMasking: bits past the CUs dropped silently, HSA_CU_MASK ANDed in
// and reported as CU_MASK_REDUCED), and workgroups of a one-CU mask all
// report that CU in HW_ID.

#define CLIENT "cu_mask_scratch"
#include "hsa_client.h"

static void load(const ctx_t *c, const char *path, const char *name, uint64_t *kobj, uint32_t *ksz, uint32_t *psz) {
    size_t n;
    void *co = read_file(path, &n);
    hsa_code_object_reader_t r;
    CHECK(hsa_code_object_reader_create_from_memory(co, n, &r), "reader");
    hsa_executable_t exe;
    CHECK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe), "exe");
    CHECK(hsa_executable_load_agent_code_object(exe, c->gpu, r, NULL, NULL), "load");
    CHECK(hsa_executable_freeze(exe, NULL), "freeze");
    hsa_executable_symbol_t sym;
    CHECK(hsa_executable_get_symbol_by_name(exe, name, &c->gpu, &sym), name);
    CHECK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, kobj), "kobj");
    CHECK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, ksz), "ksz");
    CHECK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, psz), "psz");
}

static void run(const ctx_t *c, hsa_queue_t *q, uint64_t kobj, uint32_t ksz, uint32_t psz, void *a0, void *a1, uint32_t n, uint16_t wg) {
    void *ka = NULL;
    CHECK(hsa_amd_memory_pool_allocate(c->kernarg, ksz, 0, &ka), "kernarg");
    CHECK(hsa_amd_agents_allow_access(1, &c->gpu, NULL, ka), "kernarg access");
    memset(ka, 0, ksz);
    void *args[2] = {a0, a1};
    memcpy(ka, args, 16);
    hsa_signal_t s;
    CHECK(hsa_signal_create(1, 0, NULL, &s), "signal");
    uint64_t id = reserve(q);
    hsa_kernel_dispatch_packet_t *p = slot_of(q, id);
    memset((char *)p + 4, 0, sizeof(*p) - 4);
    p->workgroup_size_x = wg; p->workgroup_size_y = 1; p->workgroup_size_z = 1;
    p->grid_size_x = n; p->grid_size_y = 1; p->grid_size_z = 1;
    p->private_segment_size = psz;
    p->kernel_object = kobj;
    p->kernarg_address = ka;
    p->completion_signal = s;
    uint16_t header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    publish(p, header, 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
    hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)id);
    wait_zero(s, "dispatch");
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: cu_mask_scratch DEMO_CO CUMASK_CO plain|env|pool\n");
        return 2;
    }
    int pool = strcmp(argv[3], "pool") == 0;
    // "env": run with HSA_CU_MASK=0:5-9 set by the caller.
    int env = strcmp(argv[3], "env") == 0;
    CHECK(hsa_init(), "hsa_init");
    ctx_t c = {0};
    CHECK(hsa_iterate_agents(find_agents, &c), "agents");
    CHECK(hsa_amd_agent_iterate_memory_pools(c.gpu, gpu_pools, &c), "GPU pools");
    CHECK(hsa_amd_agent_iterate_memory_pools(c.cpu, cpu_pools, &c), "CPU pools");
    uint32_t cus = 0;
    CHECK(hsa_agent_get_info(c.gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, &cus), "CUs");
    EXPECT(cus == 104, "an MI210 has 104 CUs, not %u", cus);
    uint64_t ks, kh;
    uint32_t kss, pss, ksh, psh;
    load(&c, argv[1], "private_scratch.kd", &ks, &kss, &pss);
    load(&c, argv[2], "hw_id.kd", &kh, &ksh, &psh);
    hsa_queue_t *q;
    CHECK(hsa_queue_create(c.gpu, 256, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q), "queue");

    // 1. Use-once scratch: every slot of the device would exceed the
    // single limit, so each dispatch gets scratch for its own 80 waves and
    // the packet processor hands it back (code 512) after it.
    uint32_t n = 40 * 128;
    if (pool) {
        // (1') 16384 work-items in groups of 64: 256 waves of scratch,
        // more than the small pool holds.
        n = 16384;
        uint32_t *in = alloc_in(c.cpu_fine, n * 4, &c, "in"), *out = alloc_in(c.cpu_fine, n * 4, &c, "out");
        for (uint32_t i = 0; i < n; i++) {
            in[i] = (i * 2654435761u) >> 5;
            out[i] = 0;
        }
        run(&c, q, ks, kss, pss, in, out, n, 64);
        for (uint32_t i = 0; i < n; i++)
            EXPECT(out[i] == in[i] * (in[i] & 255), "small pool: out[%u] = %u", i, out[i]);
        CHECK(hsa_queue_destroy(q), "queue destroy");
        CHECK(hsa_shut_down(), "hsa_shut_down");
        if (failures) {
            fprintf(stderr, "cu_mask_scratch: %d failures\n", failures);
            return 1;
        }
        printf("cu_mask_scratch: PASS\n");
        return 0;
    }
    uint32_t *in = alloc_in(c.cpu_fine, n * 4, &c, "in"), *out = alloc_in(c.cpu_fine, n * 4, &c, "out");
    for (uint32_t round = 0; round < 3; round++) {
        for (uint32_t i = 0; i < n; i++) {
            in[i] = ((i ^ round) * 2654435761u) >> 3;
            out[i] = 0;
        }
        run(&c, q, ks, kss, pss, in, out, n, 128);
        for (uint32_t i = 0; i < n; i++)
            EXPECT(out[i] == in[i] * (in[i] & 255), "round %u out[%u] = %u", round, i, out[i]);
    }

    // 2. CU masks: ROCr's statuses and masks; the workgroups' HW_IDs show
    // the CU of mask bit 5 only (SE 5, CU 0 on an MI210).
    uint32_t one[4] = {1u << 5, 0, 0, 0}, all[4] = {~0u, ~0u, ~0u, ~0u}, got[4];
    uint32_t env_mask = 0x3e0; // HSA_CU_MASK=0:5-9
    CHECK(hsa_amd_queue_cu_get_mask(q, 128, got), "get mask");
    if (env)
        EXPECT(got[0] == env_mask && got[1] == 0, "queue starts with HSA_CU_MASK's mask, not %08x %08x", got[0], got[1]);
    else
        EXPECT(got[0] == ~0u && got[3] == 0xff, "queue starts with every CU, not %08x .. %08x", got[0], got[3]);
    hsa_status_t st = hsa_amd_queue_cu_set_mask(q, 128, all);
    EXPECT(st == (env ? (hsa_status_t)HSA_STATUS_CU_MASK_REDUCED : HSA_STATUS_SUCCESS), "set all: status 0x%x", st);
    CHECK(hsa_amd_queue_cu_get_mask(q, 128, got), "get mask");
    if (env)
        EXPECT(got[0] == env_mask && got[1] == 0 && got[3] == 0, "set all under HSA_CU_MASK gives %08x %08x", got[0], got[1]);
    else
        EXPECT(got[0] == ~0u && got[2] == ~0u && got[3] == 0xff, "set all gives %08x .. %08x", got[0], got[3]);
    st = hsa_amd_queue_cu_set_mask(q, 128, one);
    EXPECT(st == HSA_STATUS_SUCCESS, "set one: status 0x%x", st);
    CHECK(hsa_amd_queue_cu_get_mask(q, 128, got), "get mask");
    EXPECT(got[0] == one[0] && got[1] == 0, "set one gives %08x", got[0]);
    uint32_t *ids = alloc_in(c.cpu_fine, 64 * 4, &c, "ids");
    run(&c, q, kh, ksh, psh, ids, NULL, 64 * 64, 64);
    for (int i = 0; i < 64; i++)
        EXPECT((ids[i] & 0xff00) == (5u << 13), "workgroup %d ran on HW_ID %08x", i, ids[i]);
    if (failures) {
        fprintf(stderr, "cu_mask_scratch: %d failures\n", failures);
        return 1;
    }
    printf("cu_mask_scratch: PASS\n");
    return 0;
}
