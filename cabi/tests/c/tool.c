/* A tools library (HSA_TOOLS_LIB) in C, built as C++ only because
 * hsa_api_trace.h uses decltype: its OnLoad checks the tables' versions and
 * sizes against the header and replaces hsa_queue_create, which counts and
 * forwards; OnUnload reports the count. */
#include <hsa/hsa.h>
#include <hsa/hsa_api_trace.h>
#include <stdio.h>

static decltype(hsa_queue_create) *next_queue_create;
static int creates;

static hsa_status_t counting_queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                                          void (*cb)(hsa_status_t, hsa_queue_t *, void *), void *data,
                                          uint32_t private_segment_size, uint32_t group_segment_size,
                                          hsa_queue_t **queue) {
    creates++;
    hsa_status_t s = next_queue_create(agent, size, type, cb, data, private_segment_size,
                                       group_segment_size, queue);
    fprintf(stderr, "tool: hsa_queue_create intercepted (size %u, status %#x)\n", size, s);
    return s;
}

extern "C" bool OnLoad(HsaApiTable *table, uint64_t runtime_version, uint64_t failed_tool_count,
                       const char *const *failed_tool_names) {
    (void)failed_tool_names;
    if (runtime_version != HSA_API_TABLE_MAJOR_VERSION || failed_tool_count != 0 ||
        table->version.major_id != HSA_API_TABLE_MAJOR_VERSION ||
        table->version.minor_id != sizeof(HsaApiTable) ||
        table->core_->version.minor_id != sizeof(CoreApiTable) ||
        table->amd_ext_->version.minor_id != sizeof(AmdExtTable) ||
        table->finalizer_ext_->version.minor_id != sizeof(FinalizerExtTable) ||
        table->image_ext_->version.minor_id != sizeof(ImageExtTable)) {
        fprintf(stderr, "tool: table versions or sizes differ from hsa_api_trace.h\n");
        return false;
    }
    void **slots = (void **)((char *)table->core_ + sizeof(ApiTableVersion));
    size_t n = (sizeof(CoreApiTable) - sizeof(ApiTableVersion)) / sizeof(void *);
    for (size_t i = 0; i < n; i++)
        if (!slots[i]) {
            fprintf(stderr, "tool: core slot %zu is NULL\n", i);
            return false;
        }
    next_queue_create = table->core_->hsa_queue_create_fn;
    table->core_->hsa_queue_create_fn = counting_queue_create;
    fprintf(stderr, "tool: loaded, %zu core slots\n", n);
    return true;
}

extern "C" void OnUnload(void) { fprintf(stderr, "tool: unloaded after %d queue creates\n", creates); }
