/* Status differential: calls with bad arguments, one line each with the
 * status the runtime returned. scripts/test-rocr-on-sim runs the same
 * binary on AMD's ROCr 5.2.3 over the sim and on our drop-in library and
 * compares the two outputs line by line: each bad-argument answer of ours
 * is ROCr's. Only calls ROCr answers with a status (rather than crashing
 * on, e.g., a NULL it does not check) are here.
 * Usage: status_diff KERNELS.co */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *name_of(hsa_status_t st) {
    const char *s = NULL;
    if (hsa_status_string(st, &s) != HSA_STATUS_SUCCESS || !s)
        return "?";
    return s;
}

#define SHOW(call)                                                             \
    do {                                                                       \
        hsa_status_t st_ = (call);                                             \
        printf("%s -> %#x %s\n", #call, (unsigned)st_, name_of(st_));          \
    } while (0)

struct agents {
    hsa_agent_t gpu, cpu;
    int have_gpu, have_cpu;
};

static hsa_status_t find(hsa_agent_t a, void *data) {
    struct agents *c = data;
    hsa_device_type_t t;
    if (hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t) != HSA_STATUS_SUCCESS)
        return HSA_STATUS_ERROR;
    if (t == HSA_DEVICE_TYPE_GPU && !c->have_gpu) {
        c->gpu = a;
        c->have_gpu = 1;
    } else if (t == HSA_DEVICE_TYPE_CPU && !c->have_cpu) {
        c->cpu = a;
        c->have_cpu = 1;
    }
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t first_pool(hsa_amd_memory_pool_t p, void *data) {
    hsa_amd_segment_t seg;
    if (hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg) != HSA_STATUS_SUCCESS)
        return HSA_STATUS_ERROR;
    if (seg != HSA_AMD_SEGMENT_GLOBAL)
        return HSA_STATUS_SUCCESS;
    *(hsa_amd_memory_pool_t *)data = p;
    return HSA_STATUS_INFO_BREAK;
}

static hsa_status_t stop_at_first(hsa_agent_t a, void *data) {
    (void)a;
    (void)data;
    return HSA_STATUS_INFO_BREAK;
}

static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: status_diff KERNELS.co\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    char buf[256];
    uint32_t u32 = 0;
    hsa_agent_t none = {0};
    hsa_signal_t no_signal = {0};

    /* Before hsa_init. */
    SHOW(hsa_agent_get_info(none, HSA_AGENT_INFO_NAME, buf));
    SHOW(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &u32));
    SHOW(hsa_shut_down());
    SHOW(hsa_iterate_agents(find, NULL));

    if (hsa_init() != HSA_STATUS_SUCCESS) {
        fprintf(stderr, "status_diff: hsa_init failed\n");
        return 1;
    }
    struct agents c = {0};
    if (hsa_iterate_agents(find, &c) != HSA_STATUS_SUCCESS || !c.have_gpu || !c.have_cpu) {
        fprintf(stderr, "status_diff: no GPU and CPU agent\n");
        return 1;
    }

    /* System and agents. */
    SHOW(hsa_iterate_agents(NULL, NULL));
    SHOW(hsa_iterate_agents(stop_at_first, NULL));
    SHOW(hsa_system_get_info((hsa_system_info_t)0x7fff, &u32));
    SHOW(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, NULL));
    SHOW(hsa_agent_get_info(c.gpu, (hsa_agent_info_t)0x7fff, buf));
    SHOW(hsa_agent_get_info(c.gpu, HSA_AGENT_INFO_NAME, NULL));
    SHOW(hsa_agent_get_info(c.cpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_CHIP_ID, &u32));
    SHOW(hsa_system_extension_supported(0x7fff, 1, 0, (bool *)buf));
    SHOW(hsa_system_extension_supported(HSA_EXTENSION_AMD_PROFILER, 1, 0, NULL));
    SHOW(hsa_extension_get_name(0x7fff, (const char **)buf));
    SHOW(hsa_status_string((hsa_status_t)0x7fff, (const char **)buf));
    SHOW(hsa_status_string(HSA_STATUS_SUCCESS, NULL));
    SHOW(hsa_agent_iterate_regions(c.gpu, NULL, NULL));
    SHOW(hsa_amd_agent_iterate_memory_pools(c.gpu, NULL, NULL));
    SHOW(hsa_agent_iterate_isas(c.gpu, NULL, NULL));
    SHOW(hsa_agent_iterate_caches(c.gpu, NULL, NULL));
    SHOW(hsa_agent_get_exception_policies(c.gpu, (hsa_profile_t)7, (uint16_t *)buf));

    /* ISAs. */
    hsa_isa_t isa;
    SHOW(hsa_isa_from_name("amdgcn-amd-amdhsa--gfx9999", &isa));
    SHOW(hsa_isa_from_name(NULL, &isa));
    SHOW(hsa_isa_from_name("amdgcn-amd-amdhsa--gfx90a", NULL));
    SHOW(hsa_isa_get_info_alt(isa, (hsa_isa_info_t)0x7fff, buf));

    /* Signals. */
    hsa_signal_t s;
    SHOW(hsa_signal_create(0, 0, NULL, NULL));
    SHOW(hsa_signal_create(0, 1, NULL, &s));
    SHOW(hsa_signal_destroy(no_signal));
    SHOW(hsa_amd_signal_create(0, 0, NULL, 0x7fff, &s));
    SHOW(hsa_amd_signal_async_handler(no_signal, HSA_SIGNAL_CONDITION_EQ, 0, NULL, NULL));
    SHOW(hsa_signal_group_create(0, NULL, 0, NULL, (hsa_signal_group_t *)buf));
    SHOW(hsa_signal_group_destroy((hsa_signal_group_t){0}));

    /* Queues. */
    hsa_queue_t *q = NULL;
    SHOW(hsa_queue_create(c.gpu, 3, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
    SHOW(hsa_queue_create(c.gpu, 0, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
    SHOW(hsa_queue_create(c.gpu, 1u << 31, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
    SHOW(hsa_queue_create(c.gpu, 64, (hsa_queue_type32_t)7, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
    SHOW(hsa_queue_create(c.gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, NULL));
    SHOW(hsa_queue_create(c.cpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
    SHOW(hsa_queue_create(none, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
    SHOW(hsa_queue_create(c.gpu, 32, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
    if (q)
        SHOW(hsa_queue_destroy(q));
    q = NULL;
    SHOW(hsa_queue_create(c.gpu, 1u << 18, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
    SHOW(hsa_queue_create(c.gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 1u << 20, UINT32_MAX, &q));
    SHOW(hsa_queue_create(c.gpu, 1u << 17, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
    SHOW(hsa_queue_destroy(q));
    SHOW(hsa_queue_destroy(NULL));
    SHOW(hsa_queue_inactivate(NULL));
    SHOW(hsa_queue_create(c.gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
    uint32_t mask[2] = {1, 0};
    SHOW(hsa_amd_queue_cu_set_mask(q, 0, mask));
    SHOW(hsa_amd_queue_cu_set_mask(q, 33, mask));
    SHOW(hsa_amd_queue_cu_set_mask(q, 32, NULL));
    SHOW(hsa_amd_queue_cu_set_mask(NULL, 32, mask));
    SHOW(hsa_amd_queue_cu_get_mask(q, 0, mask));
    SHOW(hsa_amd_queue_set_priority(q, (hsa_amd_queue_priority_t)7));
    SHOW(hsa_amd_profiling_set_profiler_enabled(NULL, 1));
    SHOW(hsa_amd_profiling_get_dispatch_time(c.gpu, no_signal, (hsa_amd_profiling_dispatch_time_t *)buf));
    SHOW(hsa_amd_profiling_get_dispatch_time(c.cpu, no_signal, (hsa_amd_profiling_dispatch_time_t *)buf));
    SHOW(hsa_queue_destroy(q));

    /* Memory. */
    hsa_amd_memory_pool_t pool = {0};
    if (hsa_amd_agent_iterate_memory_pools(c.gpu, first_pool, &pool) != HSA_STATUS_INFO_BREAK) {
        fprintf(stderr, "status_diff: no global pool on the GPU\n");
        return 1;
    }
    void *p = NULL;
    SHOW(hsa_amd_memory_pool_allocate(pool, 0, 0, &p));
    SHOW(hsa_amd_memory_pool_allocate(pool, 4096, 0, NULL));
    SHOW(hsa_amd_memory_pool_allocate(pool, (size_t)1 << 60, 0, &p));
    SHOW(hsa_amd_memory_pool_allocate((hsa_amd_memory_pool_t){0}, 4096, 0, &p));
    SHOW(hsa_amd_memory_pool_get_info(pool, (hsa_amd_memory_pool_info_t)0x7fff, buf));
    SHOW(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, NULL));
    SHOW(hsa_amd_agent_memory_pool_get_info(c.cpu, pool, (hsa_amd_agent_memory_pool_info_t)0x7fff, buf));
    /* Migration's argument checks. (ROCr's MemoryRegion::Migrate and
     * CanMigrate then answer OUT_OF_RESOURCES, "not implemented yet"; ours
     * migrate: cabi/tests/c/migrate.c.) */
    bool can = false;
    SHOW(hsa_amd_memory_pool_can_migrate((hsa_amd_memory_pool_t){0}, pool, &can));
    SHOW(hsa_amd_memory_pool_can_migrate(pool, (hsa_amd_memory_pool_t){0}, &can));
    SHOW(hsa_amd_memory_pool_can_migrate(pool, pool, NULL));
    SHOW(hsa_amd_memory_migrate(NULL, pool, 0));
    SHOW(hsa_amd_memory_migrate(buf, pool, 1));
    SHOW(hsa_amd_memory_migrate(buf, (hsa_amd_memory_pool_t){0}, 0));
    SHOW(hsa_amd_memory_pool_free(NULL));
    SHOW(hsa_memory_free(NULL));
    SHOW(hsa_memory_allocate((hsa_region_t){0}, 4096, &p));
    SHOW(hsa_amd_agents_allow_access(0, NULL, NULL, buf));
    SHOW(hsa_amd_memory_lock(NULL, 4096, NULL, 0, &p));
    SHOW(hsa_amd_memory_lock(buf, 0, NULL, 0, &p));
    SHOW(hsa_amd_memory_unlock(buf));
    SHOW(hsa_amd_memory_unlock(NULL));
    /* hsa_amd_memory_lock_to_pool: a CPU pool only, flags 0. */
    hsa_amd_memory_pool_t cpu_pool = {0};
    if (hsa_amd_agent_iterate_memory_pools(c.cpu, first_pool, &cpu_pool) != HSA_STATUS_INFO_BREAK) {
        fprintf(stderr, "status_diff: no global pool on the CPU\n");
        return 1;
    }
    void *host = aligned_alloc(4096, 8192);
    void *agent_ptr = NULL;
    SHOW(hsa_amd_memory_lock_to_pool(host, 8192, &c.gpu, 1, pool, 0, &agent_ptr));
    SHOW(hsa_amd_memory_lock_to_pool(host, 8192, &c.gpu, 1, cpu_pool, 1, &agent_ptr));
    SHOW(hsa_amd_memory_lock_to_pool(host, 0, &c.gpu, 1, cpu_pool, 0, &agent_ptr));
    SHOW(hsa_amd_memory_lock_to_pool(host, 8192, &c.gpu, 0, cpu_pool, 0, &agent_ptr));
    SHOW(hsa_amd_memory_lock_to_pool(host, 8192, &c.gpu, 1, cpu_pool, 0, NULL));
    SHOW(hsa_amd_memory_lock_to_pool(host, 8192, &c.gpu, 1, cpu_pool, 0, &agent_ptr));
    printf("lock_to_pool gave a pointer: %d\n", agent_ptr != NULL);
    SHOW(hsa_amd_memory_unlock(host));
    free(host);
    SHOW(hsa_memory_register(NULL, 4096));
    SHOW(hsa_memory_register(buf, 0));
    SHOW(hsa_memory_deregister(buf, sizeof buf));
    SHOW(hsa_amd_memory_async_copy(buf, c.cpu, buf, c.cpu, 16, 0, NULL, no_signal));
    SHOW(hsa_amd_memory_fill(NULL, 0, 16));
    SHOW(hsa_amd_memory_fill(buf + 1, 0, 16));
    hsa_amd_pointer_info_t info = {.size = sizeof info};
    SHOW(hsa_amd_pointer_info(buf, &info, NULL, NULL, NULL));
    printf("pointer_info(stack).type = %d\n", (int)info.type);
    SHOW(hsa_amd_pointer_info(buf, NULL, NULL, NULL, NULL));
    SHOW(hsa_amd_register_deallocation_callback(buf, NULL, NULL));
    SHOW(hsa_amd_deregister_deallocation_callback(buf, NULL));
    SHOW(hsa_amd_ipc_memory_create(buf, 16, NULL));
    SHOW(hsa_amd_ipc_memory_detach(buf));
    SHOW(hsa_amd_ipc_signal_create(no_signal, (hsa_amd_ipc_signal_t *)buf));

    /* Code objects and executables. */
    size_t co_size = 0;
    unsigned char *co = read_file(argv[1], &co_size);
    if (!co) {
        fprintf(stderr, "status_diff: cannot read %s\n", argv[1]);
        return 1;
    }
    hsa_code_object_reader_t r;
    hsa_executable_t exe;
    SHOW(hsa_code_object_reader_create_from_memory(NULL, 16, &r));
    SHOW(hsa_code_object_reader_create_from_memory(co, 0, &r));
    SHOW(hsa_code_object_reader_create_from_memory(co, co_size, NULL));
    SHOW(hsa_code_object_reader_create_from_file(-1, &r));
    SHOW(hsa_code_object_reader_destroy((hsa_code_object_reader_t){0}));
    SHOW(hsa_executable_create_alt((hsa_profile_t)7, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
    SHOW(hsa_executable_create_alt(HSA_PROFILE_FULL, (hsa_default_float_rounding_mode_t)9, NULL, &exe));
    SHOW(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, NULL));
    SHOW(hsa_executable_destroy((hsa_executable_t){0}));
    SHOW(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
    unsigned char garbage[256];
    for (size_t i = 0; i < sizeof garbage; i++)
        garbage[i] = (unsigned char)(i * 37 + 11);
    hsa_code_object_reader_t bad;
    SHOW(hsa_code_object_reader_create_from_memory(garbage, sizeof garbage, &bad));
    SHOW(hsa_executable_load_agent_code_object(exe, c.gpu, bad, NULL, NULL));
    SHOW(hsa_code_object_reader_destroy(bad));
    SHOW(hsa_code_object_reader_create_from_memory(co, co_size, &r));
    SHOW(hsa_executable_load_agent_code_object(exe, c.cpu, r, NULL, NULL));
    SHOW(hsa_executable_load_agent_code_object(exe, c.gpu, r, NULL, NULL));
    hsa_executable_symbol_t sym;
    SHOW(hsa_executable_get_symbol_by_name(exe, "no_such_kernel.kd", &c.gpu, &sym));
    SHOW(hsa_executable_get_symbol_by_name(exe, NULL, &c.gpu, &sym));
    SHOW(hsa_executable_freeze(exe, NULL));
    SHOW(hsa_executable_freeze(exe, NULL));
    SHOW(hsa_executable_load_agent_code_object(exe, c.gpu, r, NULL, NULL));
    SHOW(hsa_executable_global_variable_define(exe, "x", buf));
    SHOW(hsa_executable_get_info(exe, (hsa_executable_info_t)0x7fff, buf));
    SHOW(hsa_executable_validate(exe, NULL));
    SHOW(hsa_executable_iterate_symbols(exe, NULL, NULL));
    SHOW(hsa_executable_destroy(exe));
    SHOW(hsa_code_object_reader_destroy(r));
    free(co);

    /* A forged signal handle: zeroed memory that is no signal. */
    static uint64_t forged_words[16];
    hsa_signal_t forged = {(uint64_t)(uintptr_t)forged_words};
    SHOW(hsa_signal_destroy(forged));
    SHOW(hsa_amd_signal_async_handler(forged, HSA_SIGNAL_CONDITION_EQ, 0, NULL, NULL));

    SHOW(hsa_shut_down());
    SHOW(hsa_shut_down());
    return 0;
}
