/* What tests/c/hsa_smoke.c and tests/c/cu_mask_scratch.c share: plain C
 * over ROCr 5.2.3's headers, built alone by gcc and run both on AMD's ROCr
 * over the software GPU and on our drop-in library (scripts/test-rocr-on-sim,
 * cabi/tests/c_programs.rs). The including file defines CLIENT, the name
 * its messages start with. */
#ifndef HSA_CLIENT_H
#define HSA_CLIENT_H

#ifndef CLIENT
#error "define CLIENT (the program's name) before including hsa_client.h"
#endif

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;

#define CHECK(st, what)                                                        \
    do {                                                                       \
        hsa_status_t s_ = (st);                                                \
        if (s_ != HSA_STATUS_SUCCESS) {                                        \
            const char *m_ = "?";                                              \
            hsa_status_string(s_, &m_);                                        \
            fprintf(stderr, CLIENT ": %s: status 0x%x (%s)\n", what, s_, m_);    \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

#define EXPECT(cond, ...)                                                      \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, CLIENT ": FAIL: " __VA_ARGS__);                     \
            fputc('\n', stderr);                                               \
            failures++;                                                        \
        }                                                                      \
    } while (0)

typedef struct {
    hsa_agent_t gpu, cpu;
    int have_gpu, have_cpu;
    hsa_amd_memory_pool_t gpu_pool, cpu_fine, kernarg;
    int have_gpu_pool, have_cpu_fine, have_kernarg;
} ctx_t;

static __attribute__((unused)) hsa_status_t find_agents(hsa_agent_t a, void *data) {
    ctx_t *c = data;
    hsa_device_type_t t;
    CHECK(hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t), "agent device type");
    if (t == HSA_DEVICE_TYPE_GPU && !c->have_gpu) {
        c->gpu = a;
        c->have_gpu = 1;
    } else if (t == HSA_DEVICE_TYPE_CPU && !c->have_cpu) {
        c->cpu = a;
        c->have_cpu = 1;
    }
    return HSA_STATUS_SUCCESS;
}

static __attribute__((unused)) hsa_status_t gpu_pools(hsa_amd_memory_pool_t p, void *data) {
    ctx_t *c = data;
    hsa_amd_segment_t seg;
    uint32_t flags;
    CHECK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg), "pool segment");
    if (seg != HSA_AMD_SEGMENT_GLOBAL)
        return HSA_STATUS_SUCCESS;
    CHECK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags), "pool flags");
    if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) && !c->have_gpu_pool) {
        c->gpu_pool = p;
        c->have_gpu_pool = 1;
    }
    return HSA_STATUS_SUCCESS;
}

static __attribute__((unused)) hsa_status_t cpu_pools(hsa_amd_memory_pool_t p, void *data) {
    ctx_t *c = data;
    hsa_amd_segment_t seg;
    uint32_t flags;
    CHECK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg), "pool segment");
    if (seg != HSA_AMD_SEGMENT_GLOBAL)
        return HSA_STATUS_SUCCESS;
    CHECK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags), "pool flags");
    if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && !c->have_kernarg) {
        c->kernarg = p;
        c->have_kernarg = 1;
    }
    if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) && !c->have_cpu_fine) {
        c->cpu_fine = p;
        c->have_cpu_fine = 1;
    }
    return HSA_STATUS_SUCCESS;
}

static __attribute__((unused)) void *alloc_in(hsa_amd_memory_pool_t pool, size_t size, const ctx_t *c, const char *what) {
    void *p = NULL;
    CHECK(hsa_amd_memory_pool_allocate(pool, size, 0, &p), what);
    hsa_agent_t both[2] = {c->gpu, c->cpu};
    CHECK(hsa_amd_agents_allow_access(2, both, NULL, p), what);
    return p;
}

// Stores the header last, with release semantics: the packet processor may
// look at the slot at any time.
static __attribute__((unused)) void publish(void *slot, uint16_t header, uint16_t setup) {
    __atomic_store_n((uint32_t *)slot, (uint32_t)header | ((uint32_t)setup << 16), __ATOMIC_RELEASE);
}

static __attribute__((unused)) uint64_t reserve(hsa_queue_t *q) {
    uint64_t id = hsa_queue_add_write_index_relaxed(q, 1);
    while (id - hsa_queue_load_read_index_scacquire(q) >= q->size)
        ;
    return id;
}

static __attribute__((unused)) void *slot_of(hsa_queue_t *q, uint64_t id) {
    return (char *)q->base_address + (id & (q->size - 1)) * 64;
}

/* A kernel of an executable: its object and segment sizes. */
typedef struct {
    uint64_t object;
    uint32_t kernarg_size, group_size, private_size;
} kernel_t;

/* The kernel `name` (without ".kd") of `exe` for `gpu`. */
static __attribute__((unused)) kernel_t kernel_of(hsa_executable_t exe, hsa_agent_t gpu, const char *name) {
    char kd[128];
    snprintf(kd, sizeof kd, "%s.kd", name);
    hsa_executable_symbol_t sym;
    CHECK(hsa_executable_get_symbol_by_name(exe, kd, &gpu, &sym), kd);
    kernel_t k;
    CHECK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &k.object), "kernel object");
    CHECK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &k.kernarg_size),
          "kernarg size");
    CHECK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &k.group_size),
          "group size");
    CHECK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
                                         &k.private_size),
          "private size");
    return k;
}

/* A kernarg segment for `k` in the kernarg pool, the GPU given access:
 * `args` (n bytes) first, the rest (hidden arguments) zero. */
static __attribute__((unused)) void *kernargs_for(const ctx_t *c, const kernel_t *k, const void *args, size_t n) {
    size_t size = k->kernarg_size ? k->kernarg_size : 16;
    void *ka = NULL;
    CHECK(hsa_amd_memory_pool_allocate(c->kernarg, size, 0, &ka), "alloc kernarg");
    CHECK(hsa_amd_agents_allow_access(1, &c->gpu, NULL, ka), "kernarg access");
    memset(ka, 0, size);
    memcpy(ka, args, n < size ? n : size);
    return ka;
}

/* Writes a 1D dispatch of `k` (grid x work-groups of wg) at `q`'s next
 * slot, completion `done`, and publishes it with `header`; returns its id
 * (the caller rings the doorbell). */
static __attribute__((unused)) uint64_t write_dispatch(hsa_queue_t *q, const kernel_t *k, void *kernarg, uint32_t grid,
                                                       uint16_t wg, hsa_signal_t done, uint16_t header) {
    uint64_t id = reserve(q);
    hsa_kernel_dispatch_packet_t *p = slot_of(q, id);
    memset((char *)p + 4, 0, sizeof(*p) - 4);
    p->workgroup_size_x = wg;
    p->workgroup_size_y = 1;
    p->workgroup_size_z = 1;
    p->grid_size_x = grid;
    p->grid_size_y = 1;
    p->grid_size_z = 1;
    p->private_segment_size = k->private_size;
    p->group_segment_size = k->group_size;
    p->kernel_object = k->object;
    p->kernarg_address = kernarg;
    p->completion_signal = done;
    publish(p, header, 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
    return id;
}

static __attribute__((unused)) int wait_zero(hsa_signal_t s, const char *what) {
    // A bounded wait (60 s) so a lost completion fails instead of hanging.
    for (int i = 0; i < 600; i++) {
        if (hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, 100000000ull,
                                      HSA_WAIT_STATE_BLOCKED) == 0)
            return 1;
    }
    fprintf(stderr, CLIENT ": FAIL: %s never completed\n", what);
    failures++;
    return 0;
}

static __attribute__((unused)) void *read_file(const char *path, size_t *size) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        perror(path);
        exit(1);
    }
    off_t n = lseek(fd, 0, SEEK_END);
    lseek(fd, 0, SEEK_SET);
    char *buf = malloc((size_t)n);
    size_t got = 0;
    while (buf && got < (size_t)n) {
        ssize_t r = read(fd, buf + got, (size_t)n - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (!buf || got != (size_t)n) {
        fprintf(stderr, CLIENT ": cannot read %s\n", path);
        exit(1);
    }
    *size = got;
    return buf;
}

#endif
