/* The ROCr 6.x calls our library exports beyond Debian's ROCr 5.2.3
 * header: the virtual memory API (vmem6.h) and ROCr 6.1's asynchronous
 * scratch limit, with the prototypes ROCr 6's hsa_ext_amd.h gives them. */
#ifndef ROCR6_H
#define ROCR6_H
#include <stddef.h>
#include "vmem6.h"

#ifdef __cplusplus
extern "C" {
#endif

hsa_status_t hsa_amd_agent_set_async_scratch_limit(hsa_agent_t agent, size_t threshold);

#ifdef __cplusplus
}
#endif
#endif
