/* Info differential: every attribute id of the system, agents, ISAs,
 * regions, memory pools and agent-pool pairs in the header's ranges (and
 * the ids around them), one line each with the status and the bytes the
 * runtime wrote. scripts/test-rocr-on-sim runs the same binary on AMD's
 * ROCr 5.2.3 over the sim and on our drop-in library and compares the
 * outputs line by line. Bytes written are found with two canaries (a byte
 * is written when it is the same after a call into a buffer of 0xa5 and
 * one into a buffer of 0x5a); trailing zero bytes are not printed (a
 * string may be copied with or without its padding). Values that are
 * addresses or handles of this process, or clocks, are masked.
 * Usage: info_diff */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define BUF 4096

typedef hsa_status_t (*getter)(const void *obj, uint32_t attr, void *value);

static int masked(const char *kind, uint32_t attr) {
    /* The system timestamp; the build version (a pointer to each
     * implementation's own name); a region's base address; an agent's ISA
     * (a handle) and the HDP flush registers' addresses. */
    if (!strcmp(kind, "system") && (attr == HSA_SYSTEM_INFO_TIMESTAMP || attr == HSA_AMD_SYSTEM_INFO_BUILD_VERSION))
        return 1;
    if (!strcmp(kind, "region") && attr == HSA_AMD_REGION_INFO_BASE)
        return 1;
    if (!strcmp(kind, "agent") && (attr == HSA_AGENT_INFO_ISA || attr == HSA_AMD_AGENT_INFO_HDP_FLUSH))
        return 1;
    return 0;
}

/* The extension masks without HSA_EXTENSION_IMAGES: ROCr 5.2.3 has image
 * support built in and claims it; this library has none (ARCHITECTURE.md,
 * "What is not implemented") and does not. */
static void drop_images(const char *kind, uint32_t attr, unsigned char *mask) {
    if ((!strcmp(kind, "system") && attr == HSA_SYSTEM_INFO_EXTENSIONS) ||
        (!strcmp(kind, "agent") && attr == HSA_AGENT_INFO_EXTENSIONS))
        mask[HSA_EXTENSION_IMAGES / 8] &= (unsigned char)~(1u << (HSA_EXTENSION_IMAGES % 8));
}

static void show(const char *kind, int index, uint32_t attr, getter get, const void *obj) {
    static unsigned char a[BUF], b[BUF];
    memset(a, 0xa5, BUF);
    memset(b, 0x5a, BUF);
    hsa_status_t sa = get(obj, attr, a);
    hsa_status_t sb = get(obj, attr, b);
    printf("%s %d attr %#x -> %#x", kind, index, attr, (unsigned)sa);
    if (sa != sb)
        printf(" (then %#x)", (unsigned)sb);
    if (sa == HSA_STATUS_SUCCESS) {
        if (masked(kind, attr)) {
            printf(" (value masked)\n");
            return;
        }
        drop_images(kind, attr, a);
        drop_images(kind, attr, b);
        int last = -1;
        for (int i = 0; i < BUF; i++)
            if (a[i] == b[i] && a[i] != 0)
                last = i;
        printf(" :");
        for (int i = 0; i <= last; i++)
            printf(a[i] == b[i] ? " %02x" : " --", a[i]);
    }
    printf("\n");
}

static hsa_status_t get_system(const void *o, uint32_t attr, void *v) {
    (void)o;
    return hsa_system_get_info((hsa_system_info_t)attr, v);
}
static hsa_status_t get_agent(const void *o, uint32_t attr, void *v) {
    return hsa_agent_get_info(*(const hsa_agent_t *)o, (hsa_agent_info_t)attr, v);
}
static hsa_status_t get_isa(const void *o, uint32_t attr, void *v) {
    return hsa_isa_get_info_alt(*(const hsa_isa_t *)o, (hsa_isa_info_t)attr, v);
}
static hsa_status_t get_region(const void *o, uint32_t attr, void *v) {
    return hsa_region_get_info(*(const hsa_region_t *)o, (hsa_region_info_t)attr, v);
}
static hsa_status_t get_pool(const void *o, uint32_t attr, void *v) {
    return hsa_amd_memory_pool_get_info(*(const hsa_amd_memory_pool_t *)o, (hsa_amd_memory_pool_info_t)attr, v);
}
struct agent_pool {
    hsa_agent_t agent;
    hsa_amd_memory_pool_t pool;
};
static hsa_status_t get_agent_pool(const void *o, uint32_t attr, void *v) {
    const struct agent_pool *ap = o;
    return hsa_amd_agent_memory_pool_get_info(ap->agent, ap->pool, (hsa_amd_agent_memory_pool_info_t)attr, v);
}

#define MAX 16
static hsa_agent_t agents[MAX];
static int n_agents;
static hsa_amd_memory_pool_t pools[MAX * MAX];
static int n_pools;

static hsa_status_t add_agent(hsa_agent_t a, void *d) {
    (void)d;
    if (n_agents < MAX)
        agents[n_agents++] = a;
    return HSA_STATUS_SUCCESS;
}
static hsa_status_t add_pool(hsa_amd_memory_pool_t p, void *d) {
    (void)d;
    if (n_pools < MAX * MAX)
        pools[n_pools++] = p;
    return HSA_STATUS_SUCCESS;
}
static int region_index;
static hsa_status_t show_region(hsa_region_t r, void *d) {
    (void)d;
    for (uint32_t attr = 0; attr < 12; attr++)
        show("region", region_index, attr, get_region, &r);
    for (uint32_t attr = 0xa000; attr < 0xa008; attr++)
        show("region", region_index, attr, get_region, &r);
    region_index++;
    return HSA_STATUS_SUCCESS;
}
static int isa_index;
static hsa_status_t show_isa(hsa_isa_t isa, void *d) {
    (void)d;
    for (uint32_t attr = 0; attr < 20; attr++)
        show("isa", isa_index, attr, get_isa, &isa);
    isa_index++;
    return HSA_STATUS_SUCCESS;
}

int main(void) {
    setvbuf(stdout, NULL, _IONBF, 0);
    if (hsa_init() != HSA_STATUS_SUCCESS) {
        fprintf(stderr, "info_diff: hsa_init failed\n");
        return 1;
    }
    for (uint32_t attr = 0; attr < 12; attr++)
        show("system", 0, attr, get_system, NULL);
    for (uint32_t attr = 0x200; attr < 0x206; attr++)
        show("system", 0, attr, get_system, NULL);
    if (hsa_iterate_agents(add_agent, NULL) != HSA_STATUS_SUCCESS)
        return 1;
    for (int i = 0; i < n_agents; i++) {
        for (uint32_t attr = 0; attr < 28; attr++)
            show("agent", i, attr, get_agent, &agents[i]);
        for (uint32_t attr = 0xa000; attr < 0xa018; attr++)
            show("agent", i, attr, get_agent, &agents[i]);
        if (hsa_agent_iterate_isas(agents[i], show_isa, NULL) != HSA_STATUS_SUCCESS)
            return 1;
        if (hsa_agent_iterate_regions(agents[i], show_region, NULL) != HSA_STATUS_SUCCESS)
            return 1;
        int first = n_pools;
        if (hsa_amd_agent_iterate_memory_pools(agents[i], add_pool, NULL) != HSA_STATUS_SUCCESS)
            return 1;
        for (int p = first; p < n_pools; p++)
            for (uint32_t attr = 0; attr < 20; attr++)
                show("pool", p, attr, get_pool, &pools[p]);
    }
    for (int i = 0; i < n_agents; i++)
        for (int p = 0; p < n_pools; p++) {
            struct agent_pool ap = {agents[i], pools[p]};
            char kind[32];
            snprintf(kind, sizeof kind, "agent %d pool", i);
            for (uint32_t attr = 0; attr < 5; attr++)
                show(kind, p, attr, get_agent_pool, &ap);
        }
    hsa_shut_down();
    return 0;
}
