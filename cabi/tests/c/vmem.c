/* ROCr 6.x's virtual memory API (prototypes of vmem6.h): a reserved
 * range, a VRAM handle mapped into it, access for the GPU and the CPU, a
 * kernel writing through the mapping, the handle exported as a dma-buf
 * and imported again in this process, mapped a second time (the pages
 * alias), retain_alloc_handle, then unmap, release and free. */
#include "util.h"
#include "vmem6.h"

#include <unistd.h>

#define N 4096
#define SIZE (2u << 20)

int main(int argc, char **argv) {
    EXPECT(argc == 2);
    CHECK(hsa_init());
    env_t e;
    env_init(&e);
    kernel_t k;
    load_kernel(&e, argv[1], "vadd.kd", &k);

    void *va, *va2;
    CHECK(hsa_amd_vmem_address_reserve(&va, 2 * SIZE, 0, 0));
    CHECK(hsa_amd_vmem_address_reserve_align(&va2, SIZE, 0, SIZE, 0));
    EXPECT(((uintptr_t)va2 & (SIZE - 1)) == 0);
    EXPECT(hsa_amd_vmem_address_reserve(&va2, 0, 0, 0) == HSA_STATUS_ERROR_INVALID_ARGUMENT);

    hsa_amd_vmem_alloc_handle_t h;
    CHECK(hsa_amd_vmem_handle_create(e.vram, SIZE, MEMORY_TYPE_NONE, 0, &h));
    EXPECT(hsa_amd_vmem_handle_create(e.vram, SIZE, (hsa_amd_memory_type_t)7, 0, &h) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_amd_memory_pool_t pool;
    hsa_amd_memory_type_t type = MEMORY_TYPE_PINNED;
    CHECK(hsa_amd_vmem_get_alloc_properties_from_handle(h, &pool, &type));
    EXPECT(pool.handle == e.vram.handle && type == MEMORY_TYPE_NONE);

    /* Mapped in the second half of the reservation; nobody has access yet. */
    float *c = (float *)((char *)va + SIZE);
    CHECK(hsa_amd_vmem_map(c, SIZE, 0, h, 0));
    hsa_access_permission_t perm;
    CHECK(hsa_amd_vmem_get_access(c, &perm, e.gpu));
    EXPECT(perm == HSA_ACCESS_PERMISSION_NONE);
    hsa_amd_memory_access_desc_t rw[] = {
        {HSA_ACCESS_PERMISSION_RW, e.gpu},
        {HSA_ACCESS_PERMISSION_RW, e.cpu},
    };
    CHECK(hsa_amd_vmem_set_access(c, SIZE, rw, 2));
    CHECK(hsa_amd_vmem_get_access(c + 100, &perm, e.gpu));
    EXPECT(perm == HSA_ACCESS_PERMISSION_RW);
    CHECK(hsa_amd_vmem_get_access(c, &perm, e.cpu));
    EXPECT(perm == HSA_ACCESS_PERMISSION_RW);
    EXPECT(hsa_amd_vmem_set_access(c, SIZE, rw, 0) == HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* The GPU writes c through the mapping. */
    float *a;
    CHECK(hsa_amd_memory_pool_allocate(e.sys_fine, N * 4, 0, (void **)&a));
    CHECK(hsa_amd_agents_allow_access(1, &e.gpu, NULL, a));
    CHECK(hsa_amd_agents_allow_access(1, &e.gpu, NULL, a));
    for (int i = 0; i < N; i++) a[i] = (float)i;
    hsa_queue_t *q;
    CHECK(hsa_queue_create(e.gpu, 64, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
    vadd_args_t *args;
    CHECK(hsa_memory_allocate(e.kernarg, k.kernarg_size, (void **)&args));
    memset(args, 0, k.kernarg_size);
    args->a = a;
    args->b = a;
    args->c = c;
    args->n = N;
    hsa_signal_t done;
    CHECK(hsa_signal_create(1, 0, NULL, &done));
    dispatch(q, &k, args, N, done);
    EXPECT(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
    for (int i = 0; i < N; i++) EXPECT(c[i] == 2.0f * i);

    /* Shared as a dma-buf, imported in this same process, mapped again:
     * the same pages. */
    int fd = -1;
    CHECK(hsa_amd_vmem_export_shareable_handle(&fd, h, 0));
    EXPECT(fd >= 0);
    hsa_amd_vmem_alloc_handle_t imported;
    CHECK(hsa_amd_vmem_import_shareable_handle(fd, &imported));
    EXPECT(imported.handle != h.handle);
    EXPECT(hsa_amd_vmem_import_shareable_handle(-1, &imported) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_amd_vmem_get_alloc_properties_from_handle(imported, &pool, &type));
    EXPECT(pool.handle == 0 && type == MEMORY_TYPE_NONE);
    float *alias = va2;
    CHECK(hsa_amd_vmem_map(alias, SIZE, 0, imported, 0));
    hsa_amd_memory_access_desc_t ro = {HSA_ACCESS_PERMISSION_RO, e.cpu};
    CHECK(hsa_amd_vmem_set_access(alias, SIZE, &ro, 1));
    CHECK(hsa_amd_vmem_get_access(alias, &perm, e.cpu));
    EXPECT(perm == HSA_ACCESS_PERMISSION_RO);
    for (int i = 0; i < N; i++) EXPECT(alias[i] == 2.0f * i);
    c[7] = -1.0f;
    EXPECT(alias[7] == -1.0f);

    /* The handle behind a mapped address, with a reference of its own. */
    hsa_amd_vmem_alloc_handle_t again;
    CHECK(hsa_amd_vmem_retain_alloc_handle(&again, c + 5));
    EXPECT(again.handle == h.handle);
    CHECK(hsa_amd_vmem_handle_release(again));
    EXPECT(hsa_amd_vmem_retain_alloc_handle(&again, va) != HSA_STATUS_SUCCESS); /* not mapped */

    /* A reservation with mappings cannot go. */
    EXPECT(hsa_amd_vmem_address_free(va, 2 * SIZE) == HSA_STATUS_ERROR_RESOURCE_FREE);
    CHECK(hsa_amd_vmem_unmap(alias, SIZE));
    CHECK(hsa_amd_vmem_unmap(c, SIZE));
    EXPECT(hsa_amd_vmem_unmap(c, SIZE) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_amd_vmem_handle_release(imported));
    CHECK(hsa_amd_vmem_handle_release(h));
    close(fd);
    CHECK(hsa_amd_vmem_address_free(va, 2 * SIZE));
    CHECK(hsa_amd_vmem_address_free(va2, SIZE));
    CHECK(hsa_shut_down());
    printf("vmem: reserve, handle, map, access, kernel write, dma-buf export/import, retain, unmap, release, free: ok\n");
    return 0;
}
