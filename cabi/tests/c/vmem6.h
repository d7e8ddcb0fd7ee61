/* ROCr 6.x's virtual memory API (hsa_ext_amd.h of ROCm/ROCR-Runtime 6.x),
 * declared here because Debian's ROCr 5.2.3 header has none of it: the
 * types and prototypes as ROCr 6 publishes them. */
#ifndef VMEM6_H
#define VMEM6_H
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ROCr 6's hsa.h adds HSA_ACCESS_PERMISSION_NONE = 0 to
 * hsa_access_permission_t (5.2.3 starts at RO = 1). */
#define HSA_ACCESS_PERMISSION_NONE ((hsa_access_permission_t)0)

typedef struct hsa_amd_vmem_alloc_handle_s {
    uint64_t handle;
} hsa_amd_vmem_alloc_handle_t;

typedef enum {
    MEMORY_TYPE_NONE,
    MEMORY_TYPE_PINNED,
} hsa_amd_memory_type_t;

typedef struct hsa_amd_memory_access_desc_s {
    hsa_access_permission_t permissions;
    hsa_agent_t agent_handle;
} hsa_amd_memory_access_desc_t;

hsa_status_t hsa_amd_vmem_address_reserve(void **va, size_t size, uint64_t address, uint64_t flags);
hsa_status_t hsa_amd_vmem_address_reserve_align(void **va, size_t size, uint64_t address,
                                                uint64_t alignment, uint64_t flags);
hsa_status_t hsa_amd_vmem_address_free(void *va, size_t size);
hsa_status_t hsa_amd_vmem_handle_create(hsa_amd_memory_pool_t pool, size_t size,
                                        hsa_amd_memory_type_t type, uint64_t flags,
                                        hsa_amd_vmem_alloc_handle_t *memory_handle);
hsa_status_t hsa_amd_vmem_handle_release(hsa_amd_vmem_alloc_handle_t memory_handle);
hsa_status_t hsa_amd_vmem_map(void *va, size_t size, size_t in_offset,
                              hsa_amd_vmem_alloc_handle_t memory_handle, uint64_t flags);
hsa_status_t hsa_amd_vmem_unmap(void *va, size_t size);
hsa_status_t hsa_amd_vmem_set_access(void *va, size_t size, const hsa_amd_memory_access_desc_t *desc,
                                     size_t desc_cnt);
hsa_status_t hsa_amd_vmem_get_access(void *va, hsa_access_permission_t *perms, hsa_agent_t agent_handle);
hsa_status_t hsa_amd_vmem_export_shareable_handle(int *dmabuf_fd, hsa_amd_vmem_alloc_handle_t handle,
                                                  uint64_t flags);
hsa_status_t hsa_amd_vmem_import_shareable_handle(int dmabuf_fd, hsa_amd_vmem_alloc_handle_t *handle);
hsa_status_t hsa_amd_vmem_retain_alloc_handle(hsa_amd_vmem_alloc_handle_t *memory_handle, void *addr);
hsa_status_t hsa_amd_vmem_get_alloc_properties_from_handle(hsa_amd_vmem_alloc_handle_t memory_handle,
                                                           hsa_amd_memory_pool_t *pool,
                                                           hsa_amd_memory_type_t *type);
#ifdef __cplusplus
}
#endif
#endif
