/* HSA_RS_API_TRACE and the environment flags, seen from C (cabi/tests/trace.rs).
 *
 *   trace         init, find the GPU, create and destroy a queue, one call
 *                 that fails (an agent handle that names no agent), shut down
 *   init-status   print hsa_init's status in hex and exit 0
 *   atexit        init, then a failing call and the shut-down in an atexit
 *                 handler (after the main thread's thread-locals are
 *                 destroyed, as HIP's module destructor calls the runtime) */
#include <hsa/hsa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hsa_status_t find_gpu(hsa_agent_t agent, void *data) {
  hsa_device_type_t type;
  if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS)
    return HSA_STATUS_ERROR;
  if (type == HSA_DEVICE_TYPE_GPU) {
    *(hsa_agent_t *)data = agent;
    return HSA_STATUS_INFO_BREAK;
  }
  return HSA_STATUS_SUCCESS;
}

static void at_exit(void) {
  uint32_t dummy;
  hsa_agent_t bogus = {0xdead0001};
  if (hsa_agent_get_info(bogus, HSA_AGENT_INFO_QUEUES_MAX, &dummy) !=
      HSA_STATUS_ERROR_INVALID_AGENT)
    _Exit(3);
  if (hsa_shut_down() != HSA_STATUS_SUCCESS) _Exit(4);
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "atexit") == 0) {
    if (hsa_init() != HSA_STATUS_SUCCESS) return 1;
    if (atexit(at_exit) != 0) return 1;
    printf("atexit: registered\n");
    return 0;
  }
  if (argc == 2 && strcmp(argv[1], "init-status") == 0) {
    hsa_status_t s = hsa_init();
    printf("hsa_init: 0x%x\n", (unsigned)s);
    if (s == HSA_STATUS_SUCCESS) hsa_shut_down();
    return 0;
  }
  if (argc != 2 || strcmp(argv[1], "trace") != 0) {
    fprintf(stderr, "usage: trace trace|init-status|atexit\n");
    return 2;
  }
  if (hsa_init() != HSA_STATUS_SUCCESS) return 1;
  hsa_agent_t gpu = {0};
  if (hsa_iterate_agents(find_gpu, &gpu) != HSA_STATUS_INFO_BREAK) return 1;
  hsa_queue_t *q = NULL;
  if (hsa_queue_create(gpu, 4096, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX,
                       &q) != HSA_STATUS_SUCCESS)
    return 1;
  uint32_t dummy;
  hsa_agent_t bogus = {0xdead0000};
  if (hsa_agent_get_info(bogus, HSA_AGENT_INFO_QUEUES_MAX, &dummy) !=
      HSA_STATUS_ERROR_INVALID_AGENT)
    return 1;
  if (hsa_queue_destroy(q) != HSA_STATUS_SUCCESS) return 1;
  if (hsa_shut_down() != HSA_STATUS_SUCCESS) return 1;
  printf("trace: ok\n");
  return 0;
}
