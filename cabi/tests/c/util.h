/* Helpers of the C tests: compiled with gcc against Debian's ROCr 5.2.3
 * headers (/usr/include/hsa), linked against the library under test. */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                            \
    do {                                                                       \
        hsa_status_t s_ = (call);                                              \
        if (s_ != HSA_STATUS_SUCCESS) {                                        \
            const char *m_ = "?";                                              \
            hsa_status_string(s_, &m_);                                        \
            fprintf(stderr, "%s:%d: %s -> 0x%x %s\n", __FILE__, __LINE__,      \
                    #call, s_, m_);                                            \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

#define EXPECT(cond)                                                           \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

typedef struct {
    hsa_agent_t cpu, gpu;
    hsa_region_t kernarg;
    hsa_amd_memory_pool_t sys_fine, vram;
} env_t;

static hsa_status_t find_agent(hsa_agent_t a, void *d) {
    env_t *e = d;
    hsa_device_type_t t;
    CHECK(hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t));
    if (t == HSA_DEVICE_TYPE_CPU && !e->cpu.handle) e->cpu = a;
    if (t == HSA_DEVICE_TYPE_GPU && !e->gpu.handle) e->gpu = a;
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_kernarg(hsa_region_t r, void *d) {
    uint32_t flags;
    hsa_region_segment_t seg;
    CHECK(hsa_region_get_info(r, HSA_REGION_INFO_SEGMENT, &seg));
    CHECK(hsa_region_get_info(r, HSA_REGION_INFO_GLOBAL_FLAGS, &flags));
    if (seg == HSA_REGION_SEGMENT_GLOBAL && (flags & HSA_REGION_GLOBAL_FLAG_KERNARG)) {
        *(hsa_region_t *)d = r;
        return HSA_STATUS_INFO_BREAK;
    }
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_pool(hsa_amd_memory_pool_t p, void *d) {
    hsa_amd_memory_pool_t *out = d;
    hsa_amd_segment_t seg;
    uint32_t flags;
    bool alloc;
    CHECK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
    CHECK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
    CHECK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &alloc));
    if (seg == HSA_AMD_SEGMENT_GLOBAL && alloc && !out->handle) {
        *out = p;
        return HSA_STATUS_INFO_BREAK;
    }
    return HSA_STATUS_SUCCESS;
}

static void env_init(env_t *e) {
    memset(e, 0, sizeof *e);
    CHECK(hsa_iterate_agents(find_agent, e));
    EXPECT(e->cpu.handle && e->gpu.handle);
    hsa_status_t s = hsa_agent_iterate_regions(e->cpu, find_kernarg, &e->kernarg);
    EXPECT(s == HSA_STATUS_INFO_BREAK);
    s = hsa_amd_agent_iterate_memory_pools(e->cpu, find_pool, &e->sys_fine);
    EXPECT(s == HSA_STATUS_INFO_BREAK);
    s = hsa_amd_agent_iterate_memory_pools(e->gpu, find_pool, &e->vram);
    EXPECT(s == HSA_STATUS_INFO_BREAK);
}

typedef struct {
    hsa_executable_t exe;
    uint64_t object;
    uint32_t kernarg_size, group_size, private_size;
} kernel_t;

static __attribute__((unused)) void load_kernel(env_t *e, const char *path, const char *name, kernel_t *k) {
    FILE *f = fopen(path, "rb");
    EXPECT(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *bytes = malloc(n);
    EXPECT(fread(bytes, 1, n, f) == (size_t)n);
    fclose(f);
    hsa_code_object_reader_t r;
    CHECK(hsa_code_object_reader_create_from_memory(bytes, n, &r));
    CHECK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &k->exe));
    CHECK(hsa_executable_load_agent_code_object(k->exe, e->gpu, r, NULL, NULL));
    CHECK(hsa_executable_freeze(k->exe, NULL));
    uint32_t valid = 1;
    CHECK(hsa_executable_validate(k->exe, &valid));
    EXPECT(valid == 0);
    hsa_executable_symbol_t sym;
    CHECK(hsa_executable_get_symbol_by_name(k->exe, name, &e->gpu, &sym));
    CHECK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &k->object));
    CHECK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &k->kernarg_size));
    CHECK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &k->group_size));
    CHECK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, &k->private_size));
    CHECK(hsa_code_object_reader_destroy(r));
    free(bytes);
}

/* Reserves a slot, waits for room; returns the packet id. */
static uint64_t reserve(hsa_queue_t *q, void **slot) {
    uint64_t id = hsa_queue_add_write_index_scacq_screl(q, 1);
    while (id - hsa_queue_load_read_index_scacquire(q) >= q->size)
        ;
    *slot = (char *)q->base_address + (id & (q->size - 1)) * 64;
    return id;
}

static uint16_t header(hsa_packet_type_t t) {
    return (uint16_t)((t << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
}

static void publish(hsa_queue_t *q, uint64_t id, void *slot, uint16_t hdr, uint16_t setup) {
    __atomic_store_n((uint32_t *)slot, (uint32_t)hdr | ((uint32_t)setup << 16), __ATOMIC_RELEASE);
    hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)id);
}

/* Dispatches k over n work-items (groups of 64) with kernarg at args. */
static __attribute__((unused)) void dispatch(hsa_queue_t *q, kernel_t *k, void *args, uint32_t n, hsa_signal_t done) {
    hsa_kernel_dispatch_packet_t *p;
    uint64_t id = reserve(q, (void **)&p);
    memset((char *)p + 4, 0, 60);
    p->workgroup_size_x = 64;
    p->workgroup_size_y = 1;
    p->workgroup_size_z = 1;
    p->grid_size_x = n;
    p->grid_size_y = 1;
    p->grid_size_z = 1;
    p->private_segment_size = k->private_size;
    p->group_segment_size = k->group_size;
    p->kernel_object = k->object;
    p->kernarg_address = args;
    p->completion_signal = done;
    publish(q, id, p, header(HSA_PACKET_TYPE_KERNEL_DISPATCH),
            1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
}

typedef struct {
    const float *a, *b;
    float *c;
    uint32_t n;
} vadd_args_t;
