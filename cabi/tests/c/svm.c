/* Shared virtual memory on plain malloc'ed memory:
 *   svm KERNELS          attributes set and read back (split ranges too),
 *                        a prefetch waiting for a dependency signal, and
 *                        vadd reading malloc'ed inputs the GPU was given
 *                        access to;
 *   svm KERNELS revoked  the same inputs after AGENT_NO_ACCESS: the
 *                        kernel's read faults, and the system event
 *                        handler is told the page;
 *   svm KERNELS xnack    (run with HSA_XNACK=1) vadd reading malloc'ed
 *                        inputs no one set attributes on: the GPU faults
 *                        them in. */
#include "util.h"

#include <unistd.h>

#define N 4096

static volatile int faults;
static uint64_t fault_address;

static hsa_status_t on_event(const hsa_amd_event_t *ev, void *data) {
    (void)data;
    EXPECT(ev->event_type == HSA_AMD_GPU_MEMORY_FAULT_EVENT);
    fault_address = ev->memory_fault.virtual_address;
    __atomic_store_n(&faults, 1, __ATOMIC_RELEASE);
    return HSA_STATUS_SUCCESS;
}

static void set1(void *p, size_t n, uint64_t attribute, uint64_t value) {
    hsa_amd_svm_attribute_pair_t a = {attribute, value};
    CHECK(hsa_amd_svm_attributes_set(p, n, &a, 1));
}

static uint64_t get1(void *p, size_t n, uint64_t attribute, uint64_t value) {
    hsa_amd_svm_attribute_pair_t a = {attribute, value};
    CHECK(hsa_amd_svm_attributes_get(p, n, &a, 1));
    return a.value;
}

/* The attribute an ACCESS_QUERY of agent is rewritten to. */
static uint64_t access_of(void *p, size_t n, hsa_agent_t agent) {
    hsa_amd_svm_attribute_pair_t a = {HSA_AMD_SVM_ATTRIB_ACCESS_QUERY, agent.handle};
    CHECK(hsa_amd_svm_attributes_get(p, n, &a, 1));
    return a.attribute;
}

static void run_vadd(env_t *e, kernel_t *k, const float *a, const float *b, float *c, hsa_signal_t done) {
    hsa_queue_t *q;
    CHECK(hsa_queue_create(e->gpu, 64, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
    vadd_args_t *args;
    CHECK(hsa_memory_allocate(e->kernarg, k->kernarg_size, (void **)&args));
    memset(args, 0, k->kernarg_size);
    args->a = a;
    args->b = b;
    args->c = c;
    args->n = N;
    dispatch(q, k, args, N, done);
}

int main(int argc, char **argv) {
    EXPECT(argc == 2 || argc == 3);
    CHECK(hsa_init());
    env_t e;
    env_init(&e);
    kernel_t k;
    load_kernel(&e, argv[1], "vadd.kd", &k);
    long page = sysconf(_SC_PAGESIZE);
    float *a = aligned_alloc(page, N * 4), *b = malloc(N * 4);
    EXPECT(a && b);
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 0.5f;
    }
    float *c;
    CHECK(hsa_amd_memory_pool_allocate(e.sys_fine, N * 4, 0, (void **)&c));
    CHECK(hsa_amd_agents_allow_access(1, &e.gpu, NULL, c));

    if (argc == 3 && !strcmp(argv[2], "revoked")) {
        CHECK(hsa_amd_register_system_event_handler(on_event, NULL));
        set1(a, N * 4, HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE, e.gpu.handle);
        EXPECT(access_of(a, N * 4, e.gpu) == HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE);
        set1(a, N * 4, HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS, e.gpu.handle);
        EXPECT(access_of(a, N * 4, e.gpu) == HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS);
        hsa_signal_t done;
        CHECK(hsa_signal_create(1, 0, NULL, &done));
        run_vadd(&e, &k, a, a, c, done);
        for (int i = 0; i < 60000 && !__atomic_load_n(&faults, __ATOMIC_ACQUIRE); i++) usleep(1000);
        EXPECT(faults == 1);
        EXPECT(fault_address == ((uint64_t)(uintptr_t)a & ~(uint64_t)(page - 1)));
        printf("svm revoked: fault at the page of the malloc'ed input\n");
        return 0;
    }
    if (argc == 3 && !strcmp(argv[2], "xnack")) {
        bool xnack = false;
        CHECK(hsa_system_get_info(HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT, &xnack));
        EXPECT(xnack);
        char isa[64] = {0};
        hsa_isa_t i;
        CHECK(hsa_agent_get_info(e.gpu, HSA_AGENT_INFO_ISA, &i));
        CHECK(hsa_isa_get_info_alt(i, HSA_ISA_INFO_NAME, isa));
        EXPECT(strstr(isa, ":xnack+") != NULL);
        EXPECT(access_of(a, N * 4, e.gpu) == HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE);
        hsa_signal_t done;
        CHECK(hsa_signal_create(1, 0, NULL, &done));
        run_vadd(&e, &k, a, b, c, done);
        EXPECT(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
        for (int i = 0; i < N; i++) EXPECT(c[i] == (float)i + 0.5f);
        CHECK(hsa_shut_down());
        printf("svm xnack: kernel reading malloc'ed memory with no attributes: ok\n");
        return 0;
    }
    EXPECT(argc == 2);

    /* Defaults of memory no one set: coherent, no preferred location,
     * granularity 9, host access, no GPU access. */
    EXPECT(get1(a, N * 4, HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, 7) == HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED);
    EXPECT(get1(a, N * 4, HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION, 7) == 0);
    EXPECT(get1(a, N * 4, HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY, 0) == 9);
    EXPECT(access_of(a, N * 4, e.cpu) == HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE);
    EXPECT(access_of(a, N * 4, e.gpu) == HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS);

    /* Everything settable, in one call. */
    hsa_amd_svm_attribute_pair_t set[] = {
        {HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED},
        {HSA_AMD_SVM_ATTRIB_READ_ONLY, 1},
        {HSA_AMD_SVM_ATTRIB_HIVE_LOCAL, 1},
        {HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY, 30}, /* ROCr caps it at 18 */
        {HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION, e.gpu.handle},
        {HSA_AMD_SVM_ATTRIB_READ_MOSTLY, 1},
        {HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE, e.gpu.handle},
        {HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE, e.cpu.handle},
    };
    CHECK(hsa_amd_svm_attributes_set(a, N * 4, set, sizeof set / sizeof set[0]));
    hsa_amd_svm_attribute_pair_t get[] = {
        {HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, 0},
        {HSA_AMD_SVM_ATTRIB_READ_ONLY, 0},
        {HSA_AMD_SVM_ATTRIB_HIVE_LOCAL, 0},
        {HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY, 0},
        {HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION, 0},
        {HSA_AMD_SVM_ATTRIB_READ_MOSTLY, 0},
        {HSA_AMD_SVM_ATTRIB_ACCESS_QUERY, e.gpu.handle},
        {HSA_AMD_SVM_ATTRIB_ACCESS_QUERY, e.cpu.handle},
        {HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION, 0},
    };
    CHECK(hsa_amd_svm_attributes_get(a, N * 4, get, sizeof get / sizeof get[0]));
    EXPECT(get[0].value == HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED);
    EXPECT(get[1].value != 0 && get[2].value != 0 && get[5].value != 0);
    EXPECT(get[3].value == 18);
    EXPECT(get[4].value == e.gpu.handle);
    EXPECT(get[6].attribute == HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE);
    EXPECT(get[7].attribute == HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE);
    EXPECT(get[8].value == 0); /* never prefetched */

    /* Half the range back to fine grained: the whole is indeterminate,
     * the preferred location too once one half prefers the CPU. */
    set1(a, N * 2, HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED);
    set1(a, N * 2, HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION, e.cpu.handle);
    EXPECT(get1(a, N * 2, HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, 0) == HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED);
    EXPECT(get1(a, N * 2, HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION, 0) == e.cpu.handle);
    EXPECT(get1(a, N * 4, HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, 0) == HSA_AMD_SVM_GLOBAL_FLAG_INDETERMINATE);
    EXPECT(get1(a, N * 4, HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION, 7) == 0);

    /* What the header forbids or ROCr refuses. */
    hsa_amd_svm_attribute_pair_t bad = {HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION, e.gpu.handle};
    EXPECT(hsa_amd_svm_attributes_set(a, N * 4, &bad, 1) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    bad.attribute = HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE;
    EXPECT(hsa_amd_svm_attributes_get(a, N * 4, &bad, 1) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_amd_svm_attribute_pair_t twice[] = {
        {HSA_AMD_SVM_ATTRIB_READ_ONLY, 0},
        {HSA_AMD_SVM_ATTRIB_READ_ONLY, 1},
    };
    EXPECT(hsa_amd_svm_attributes_set(a, N * 4, twice, 2) == HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
    hsa_amd_svm_attribute_pair_t one = {HSA_AMD_SVM_ATTRIB_READ_ONLY, 0};
    /* ROCr hands these to KFD, which refuses them. */
    EXPECT(hsa_amd_svm_attributes_set(a, 0, &one, 1) == HSA_STATUS_ERROR);
    EXPECT(hsa_amd_svm_attributes_set(NULL, N * 4, &one, 1) == HSA_STATUS_ERROR);
    /* (A forged agent handle is INVALID_AGENT here; ROCr dereferences it.) */

    /* The GPU reads a and b where they are; a is read-only to it, b
     * read-write (both in place). */
    set1(a, N * 4, HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE, e.gpu.handle);
    set1(b, N * 4, HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE, e.gpu.handle);

    /* A prefetch of b to the GPU, after a dependency signal. */
    hsa_signal_t dep, prefetched;
    CHECK(hsa_signal_create(1, 0, NULL, &dep));
    CHECK(hsa_signal_create(1, 0, NULL, &prefetched));
    CHECK(hsa_amd_svm_prefetch_async(b, N * 4, e.gpu, 1, &dep, prefetched));
    /* Pending: the query answers the prefetch's destination already. */
    EXPECT(get1(b, N * 4, HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION, 0) == e.gpu.handle);
    usleep(20000);
    EXPECT(hsa_signal_load_scacquire(prefetched) == 1); /* waits for dep */
    hsa_signal_store_screlease(dep, 0);
    EXPECT(hsa_signal_wait_scacquire(prefetched, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
    EXPECT(get1(b, N * 4, HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION, 0) == e.gpu.handle);
    /* No dependencies: to system memory. */
    hsa_signal_store_screlease(prefetched, 1);
    CHECK(hsa_amd_svm_prefetch_async(b, N * 4, e.cpu, 0, NULL, prefetched));
    EXPECT(hsa_signal_wait_scacquire(prefetched, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
    EXPECT(get1(b, N * 4, HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION, 0) == e.cpu.handle);

    hsa_signal_t done;
    CHECK(hsa_signal_create(1, 0, NULL, &done));
    run_vadd(&e, &k, a, b, c, done);
    EXPECT(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
    for (int i = 0; i < N; i++) EXPECT(c[i] == (float)i + 0.5f);
    CHECK(hsa_shut_down());
    printf("svm: attributes set and read back, prefetch after a dependency, kernel reading malloc'ed memory: ok\n");
    return 0;
}
