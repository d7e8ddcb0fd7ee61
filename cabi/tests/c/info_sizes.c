/* Every hsa_*_get_info / hsa_amd_*_get_info attribute writes exactly the
 * size Debian's ROCr 5.2.3 headers give it: the buffer is filled with a
 * canary (twice, two canaries), the call must leave every byte past the
 * size untouched and write every byte of the size (the same value under
 * both canaries), or, when it fails, write nothing at all.
 * Usage: info_sizes KERNELS.co */
#include "util.h"
#include <hsa/hsa_ven_amd_loader.h>

static int oks, fails;
static hsa_ven_amd_loader_1_03_pfn_t loader;

typedef hsa_status_t (*getter_t)(void *obj, int attr, void *buf);

#define BUF 512
static void probe(const char *what, getter_t g, void *obj, int attr, const char *name, size_t size,
                  int must, int is_volatile) {
    unsigned char b1[BUF], b2[BUF];
    memset(b1, 0xA5, BUF);
    memset(b2, 0x5A, BUF);
    hsa_status_t s1 = g(obj, attr, b1), s2 = g(obj, attr, b2);
    if (s1 != s2) {
        fprintf(stderr, "FAIL %s %s: status %#x then %#x\n", what, name, s1, s2);
        fails++;
        return;
    }
    if (s1 != HSA_STATUS_SUCCESS) {
        for (int i = 0; i < BUF; i++)
            if (b1[i] != 0xA5 || b2[i] != 0x5A) {
                fprintf(stderr, "FAIL %s %s: failed (%#x) but wrote byte %d\n", what, name, s1, i);
                fails++;
                return;
            }
        if (must) {
            fprintf(stderr, "FAIL %s %s: status %#x\n", what, name, s1);
            fails++;
        } else {
            printf("unsupported %s %s: %#x\n", what, name, s1);
        }
        return;
    }
    for (size_t i = size; i < BUF; i++)
        if (b1[i] != 0xA5 || b2[i] != 0x5A) {
            fprintf(stderr, "FAIL %s %s: wrote byte %zu past its %zu bytes\n", what, name, i, size);
            fails++;
            return;
        }
    if (!is_volatile)
        for (size_t i = 0; i < size; i++)
            if (b1[i] != b2[i]) {
                fprintf(stderr, "FAIL %s %s: byte %zu of %zu not written\n", what, name, i, size);
                fails++;
                return;
            }
    oks++;
}

#define P(what, g, obj, attr, size, must) probe(what, g, obj, attr, #attr, size, must, 0)

static hsa_status_t sys_get(void *o, int a, void *b) { (void)o; return hsa_system_get_info(a, b); }
static hsa_status_t agent_get(void *o, int a, void *b) { return hsa_agent_get_info(*(hsa_agent_t *)o, a, b); }
static hsa_status_t region_get(void *o, int a, void *b) { return hsa_region_get_info(*(hsa_region_t *)o, a, b); }
static hsa_status_t pool_get(void *o, int a, void *b) { return hsa_amd_memory_pool_get_info(*(hsa_amd_memory_pool_t *)o, a, b); }
typedef struct { hsa_agent_t agent; hsa_amd_memory_pool_t pool; } agent_pool_t;
static hsa_status_t agent_pool_get(void *o, int a, void *b) {
    agent_pool_t *ap = o;
    return hsa_amd_agent_memory_pool_get_info(ap->agent, ap->pool, a, b);
}
static hsa_status_t isa_get(void *o, int a, void *b) { return hsa_isa_get_info_alt(*(hsa_isa_t *)o, a, b); }
static hsa_status_t cache_get(void *o, int a, void *b) { return hsa_cache_get_info(*(hsa_cache_t *)o, a, b); }
static hsa_status_t wave_get(void *o, int a, void *b) { return hsa_wavefront_get_info(*(hsa_wavefront_t *)o, a, b); }
static hsa_status_t exe_get(void *o, int a, void *b) { return hsa_executable_get_info(*(hsa_executable_t *)o, a, b); }
static hsa_status_t sym_get(void *o, int a, void *b) { return hsa_executable_symbol_get_info(*(hsa_executable_symbol_t *)o, a, b); }
static hsa_status_t lco_get(void *o, int a, void *b) {
    return loader.hsa_ven_amd_loader_loaded_code_object_get_info(*(hsa_loaded_code_object_t *)o, a, b);
}

static void agent_attrs(hsa_agent_t a, int gpu) {
    const char *w = gpu ? "gpu agent" : "cpu agent";
    P(w, agent_get, &a, HSA_AGENT_INFO_NAME, 64, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_VENDOR_NAME, 64, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_FEATURE, 4, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_MACHINE_MODEL, 4, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_PROFILE, 4, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE, 4, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES, 4, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_FAST_F16_OPERATION, 1, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_WAVEFRONT_SIZE, 4, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_WORKGROUP_MAX_DIM, 6, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE, 4, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_GRID_MAX_DIM, sizeof(hsa_dim3_t), 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_GRID_MAX_SIZE, 4, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_FBARRIER_MAX_SIZE, 4, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_QUEUES_MAX, 4, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_QUEUE_MIN_SIZE, 4, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_QUEUE_MAX_SIZE, 4, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_QUEUE_TYPE, 4, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_NODE, 4, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_DEVICE, 4, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_CACHE_SIZE, 16, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_ISA, sizeof(hsa_isa_t), 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_EXTENSIONS, 128, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_VERSION_MAJOR, 2, 1);
    P(w, agent_get, &a, HSA_AGENT_INFO_VERSION_MINOR, 2, 1);
    P(w, agent_get, &a, HSA_AMD_AGENT_INFO_CHIP_ID, 4, 1);
    P(w, agent_get, &a, HSA_AMD_AGENT_INFO_CACHELINE_SIZE, 4, 1);
    P(w, agent_get, &a, HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, 4, 1);
    P(w, agent_get, &a, HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY, 4, 1);
    P(w, agent_get, &a, HSA_AMD_AGENT_INFO_DRIVER_NODE_ID, 4, 1);
    P(w, agent_get, &a, HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS, 4, 1);
    P(w, agent_get, &a, HSA_AMD_AGENT_INFO_BDFID, 4, 1);
    P(w, agent_get, &a, HSA_AMD_AGENT_INFO_MEMORY_WIDTH, 4, gpu);
    P(w, agent_get, &a, HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY, 4, gpu);
    P(w, agent_get, &a, HSA_AMD_AGENT_INFO_PRODUCT_NAME, 64, 1);
    P(w, agent_get, &a, HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU, 4, gpu);
    P(w, agent_get, &a, HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU, 4, gpu);
    P(w, agent_get, &a, HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES, 4, gpu);
    P(w, agent_get, &a, HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE, 4, gpu);
    P(w, agent_get, &a, HSA_AMD_AGENT_INFO_HDP_FLUSH, sizeof(hsa_amd_hdp_flush_t), gpu);
    P(w, agent_get, &a, HSA_AMD_AGENT_INFO_DOMAIN, 4, gpu);
    P(w, agent_get, &a, HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES, 1, gpu);
    /* UUID: "GPU-" and 16 hex digits, or "CPU-XX"/"GPU-XX", and the NUL. */
    char uuid[64];
    CHECK(hsa_agent_get_info(a, HSA_AMD_AGENT_INFO_UUID, uuid));
    EXPECT(strlen(uuid) == 20 || strlen(uuid) == 6);
    probe(w, agent_get, &a, HSA_AMD_AGENT_INFO_UUID, "HSA_AMD_AGENT_INFO_UUID", strlen(uuid) + 1, 1, 0);
    P(w, agent_get, &a, HSA_AMD_AGENT_INFO_ASIC_REVISION, 4, gpu);
    P(w, agent_get, &a, HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS, 1, gpu);
    P(w, agent_get, &a, HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT, 4, gpu);
}

static hsa_status_t each_region(hsa_region_t r, void *d) {
    (void)d;
    const char *w = "region";
    P(w, region_get, &r, HSA_REGION_INFO_SEGMENT, 4, 1);
    P(w, region_get, &r, HSA_REGION_INFO_GLOBAL_FLAGS, 4, 1);
    P(w, region_get, &r, HSA_REGION_INFO_SIZE, sizeof(size_t), 1);
    P(w, region_get, &r, HSA_REGION_INFO_ALLOC_MAX_SIZE, sizeof(size_t), 1);
    P(w, region_get, &r, HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE, 4, 0);
    P(w, region_get, &r, HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED, 1, 1);
    P(w, region_get, &r, HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE, sizeof(size_t), 1);
    P(w, region_get, &r, HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT, sizeof(size_t), 1);
    P(w, region_get, &r, HSA_AMD_REGION_INFO_HOST_ACCESSIBLE, 1, 1);
    P(w, region_get, &r, HSA_AMD_REGION_INFO_BASE, sizeof(void *), 1);
    P(w, region_get, &r, HSA_AMD_REGION_INFO_BUS_WIDTH, 4, 1);
    P(w, region_get, &r, HSA_AMD_REGION_INFO_MAX_CLOCK_FREQUENCY, 4, 1);
    return HSA_STATUS_SUCCESS;
}

static hsa_agent_t agents[2];

static hsa_status_t each_pool(hsa_amd_memory_pool_t p, void *d) {
    (void)d;
    const char *w = "pool";
    P(w, pool_get, &p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, 4, 1);
    P(w, pool_get, &p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, 4, 1);
    P(w, pool_get, &p, HSA_AMD_MEMORY_POOL_INFO_SIZE, sizeof(size_t), 1);
    P(w, pool_get, &p, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, 1, 1);
    P(w, pool_get, &p, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, sizeof(size_t), 1);
    P(w, pool_get, &p, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT, sizeof(size_t), 1);
    P(w, pool_get, &p, HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL, 1, 1);
    P(w, pool_get, &p, HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE, sizeof(size_t), 1);
    for (int i = 0; i < 2; i++) {
        agent_pool_t ap = {agents[i], p};
        const char *v = "agent-pool";
        P(v, agent_pool_get, &ap, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, 4, 1);
        P(v, agent_pool_get, &ap, HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS, 4, 1);
        P(v, agent_pool_get, &ap, HSA_AMD_AGENT_MEMORY_POOL_INFO_LINK_INFO,
          sizeof(hsa_amd_memory_pool_link_info_t), 1);
    }
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t each_wave(hsa_wavefront_t wf, void *d) {
    (void)d;
    P("wavefront", wave_get, &wf, HSA_WAVEFRONT_INFO_SIZE, 4, 1);
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t each_isa(hsa_isa_t isa, void *d) {
    (void)d;
    const char *w = "isa";
    uint32_t len = 0;
    CHECK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &len));
    P(w, isa_get, &isa, HSA_ISA_INFO_NAME_LENGTH, 4, 1);
    P(w, isa_get, &isa, HSA_ISA_INFO_NAME, len, 1);
    P(w, isa_get, &isa, HSA_ISA_INFO_CALL_CONVENTION_COUNT, 4, 1);
    P(w, isa_get, &isa, HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE, 4, 1);
    P(w, isa_get, &isa, HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT, 4, 1);
    P(w, isa_get, &isa, HSA_ISA_INFO_MACHINE_MODELS, 2, 1);
    P(w, isa_get, &isa, HSA_ISA_INFO_PROFILES, 2, 1);
    P(w, isa_get, &isa, HSA_ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES, 3, 1);
    P(w, isa_get, &isa, HSA_ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES, 3, 1);
    P(w, isa_get, &isa, HSA_ISA_INFO_FAST_F16_OPERATION, 1, 1);
    P(w, isa_get, &isa, HSA_ISA_INFO_WORKGROUP_MAX_DIM, 6, 1);
    P(w, isa_get, &isa, HSA_ISA_INFO_WORKGROUP_MAX_SIZE, 4, 1);
    P(w, isa_get, &isa, HSA_ISA_INFO_GRID_MAX_DIM, sizeof(hsa_dim3_t), 1);
    P(w, isa_get, &isa, HSA_ISA_INFO_GRID_MAX_SIZE, 8, 1);
    P(w, isa_get, &isa, HSA_ISA_INFO_FBARRIER_MAX_SIZE, 4, 1);
    CHECK(hsa_isa_iterate_wavefronts(isa, each_wave, NULL));
    return HSA_STATUS_SUCCESS;
}

static int caches_seen;
static hsa_status_t each_cache(hsa_cache_t c, void *d) {
    (void)d;
    const char *w = "cache";
    caches_seen++;
    P(w, cache_get, &c, HSA_CACHE_INFO_NAME_LENGTH, 4, 1);
    /* ROCr writes a const char * to the name, not the characters. */
    P(w, cache_get, &c, HSA_CACHE_INFO_NAME, sizeof(const char *), 1);
    P(w, cache_get, &c, HSA_CACHE_INFO_LEVEL, 1, 1);
    P(w, cache_get, &c, HSA_CACHE_INFO_SIZE, 4, 1);
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t each_lco(hsa_executable_t e, hsa_loaded_code_object_t l, void *d) {
    (void)e;
    (void)d;
    const char *w = "loaded code object";
    uint32_t uri_len = 0;
    CHECK(loader.hsa_ven_amd_loader_loaded_code_object_get_info(l, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI_LENGTH, &uri_len));
    P(w, lco_get, &l, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_EXECUTABLE, sizeof(hsa_executable_t), 1);
    P(w, lco_get, &l, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_KIND, 4, 1);
    P(w, lco_get, &l, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_AGENT, sizeof(hsa_agent_t), 1);
    P(w, lco_get, &l, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_TYPE, 4, 1);
    P(w, lco_get, &l, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_BASE, 8, 1);
    P(w, lco_get, &l, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_SIZE, 8, 1);
    P(w, lco_get, &l, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_FILE, 4, 0);
    P(w, lco_get, &l, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_DELTA, 8, 1);
    P(w, lco_get, &l, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_BASE, 8, 1);
    P(w, lco_get, &l, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_SIZE, 8, 1);
    P(w, lco_get, &l, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI_LENGTH, 4, 1);
    P(w, lco_get, &l, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI, uri_len, 1);
    return HSA_STATUS_SUCCESS;
}

int main(int argc, char **argv) {
    EXPECT(argc == 2);
    CHECK(hsa_init());
    env_t e;
    env_init(&e);
    agents[0] = e.cpu;
    agents[1] = e.gpu;

    const char *w = "system";
    P(w, sys_get, NULL, HSA_SYSTEM_INFO_VERSION_MAJOR, 2, 1);
    P(w, sys_get, NULL, HSA_SYSTEM_INFO_VERSION_MINOR, 2, 1);
    probe(w, sys_get, NULL, HSA_SYSTEM_INFO_TIMESTAMP, "HSA_SYSTEM_INFO_TIMESTAMP", 8, 1, 1);
    P(w, sys_get, NULL, HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, 8, 1);
    P(w, sys_get, NULL, HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT, 8, 1);
    P(w, sys_get, NULL, HSA_SYSTEM_INFO_ENDIANNESS, 4, 1);
    P(w, sys_get, NULL, HSA_SYSTEM_INFO_MACHINE_MODEL, 4, 1);
    P(w, sys_get, NULL, HSA_SYSTEM_INFO_EXTENSIONS, 128, 1);
    P(w, sys_get, NULL, HSA_AMD_SYSTEM_INFO_BUILD_VERSION, sizeof(const char *), 1);
    P(w, sys_get, NULL, HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED, 1, 1);
    P(w, sys_get, NULL, HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT, 1, 1);

    for (int i = 0; i < 2; i++) {
        agent_attrs(agents[i], i);
        CHECK(hsa_agent_iterate_regions(agents[i], each_region, NULL));
        CHECK(hsa_amd_agent_iterate_memory_pools(agents[i], each_pool, NULL));
        CHECK(hsa_agent_iterate_isas(agents[i], each_isa, NULL));
        CHECK(hsa_agent_iterate_caches(agents[i], each_cache, NULL));
    }
    EXPECT(caches_seen > 0);

    kernel_t k;
    load_kernel(&e, argv[1], "vadd.kd", &k);
    w = "executable";
    P(w, exe_get, &k.exe, HSA_EXECUTABLE_INFO_PROFILE, 4, 1);
    P(w, exe_get, &k.exe, HSA_EXECUTABLE_INFO_STATE, 4, 1);
    P(w, exe_get, &k.exe, HSA_EXECUTABLE_INFO_DEFAULT_FLOAT_ROUNDING_MODE, 4, 1);

    hsa_executable_symbol_t sym;
    CHECK(hsa_executable_get_symbol_by_name(k.exe, "vadd.kd", &e.gpu, &sym));
    uint32_t name_len = 0;
    CHECK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH, &name_len));
    EXPECT(name_len == strlen("vadd.kd"));
    w = "kernel symbol";
    P(w, sym_get, &sym, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, 4, 1);
    P(w, sym_get, &sym, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH, 4, 1);
    P(w, sym_get, &sym, HSA_EXECUTABLE_SYMBOL_INFO_NAME, name_len, 1);
    P(w, sym_get, &sym, HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME_LENGTH, 4, 0);
    P(w, sym_get, &sym, HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE, 4, 1);
    P(w, sym_get, &sym, HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION, 1, 1);
    P(w, sym_get, &sym, HSA_EXECUTABLE_SYMBOL_INFO_AGENT, sizeof(hsa_agent_t), 1);
    P(w, sym_get, &sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, 8, 1);
    P(w, sym_get, &sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, 4, 1);
    P(w, sym_get, &sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT, 4, 1);
    P(w, sym_get, &sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, 4, 1);
    P(w, sym_get, &sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, 4, 1);
    P(w, sym_get, &sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK, 1, 1);
    P(w, sym_get, &sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_CALL_CONVENTION, 4, 1);
    P(w, sym_get, &sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, 8, 0);
    P(w, sym_get, &sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALLOCATION, 4, 0);
    P(w, sym_get, &sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SEGMENT, 4, 0);
    P(w, sym_get, &sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALIGNMENT, 4, 0);
    P(w, sym_get, &sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE, 4, 0);
    P(w, sym_get, &sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST, 1, 0);

    CHECK(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_LOADER, 1, sizeof(loader), &loader));
    int seen = 0;
    CHECK(loader.hsa_ven_amd_loader_executable_iterate_loaded_code_objects(k.exe, each_lco, &seen));

    CHECK(hsa_executable_destroy(k.exe));
    CHECK(hsa_shut_down());
    printf("info sizes: %d attributes checked, %d failures\n", oks, fails);
    return fails != 0;
}
