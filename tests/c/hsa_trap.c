// hsa_trap: traps and wave exceptions reach the queue error callback with
// ROCr's statuses (plain C against ROCr 5.2.3's headers, with the helpers
// of tests/c/hsa_client.h). Run on
// AMD's ROCr over the software GPU (scripts/test-rocr-on-sim: ROCr's own
// trap handler on the sim's interpreter) and on our runtime's C ABI
// (cabi/tests/c_programs.rs: our trap handler).
//
//   hsa_trap CODE_OBJECT [debugtrap|default-handler]   (runtime/kernels/faults.co)
//
// With `default-handler`: trap_now on a queue created without an error
// callback. ROCr's Queue::DefaultErrorHandler then prints "Queue at %p
// inactivated due to async error:\n\t<status string>" and aborts (unless
// HSA_ENABLE_QUEUE_FAULT_MESSAGE=0: nothing, and this program exits 3
// once it has waited 2 s for the abort); the runner checks the SIGABRT
// and the message.
//
// Each on a queue of its own, with an error callback:
//   1. trap_now (s_trap 2)                 -> HSA_STATUS_ERROR_EXCEPTION
//   2. illegal (an undefined word)         -> HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION
//   3. store_at(0x800000000000), an address in no aperture
//                                          -> HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION
//   4. store_at(a buffer) on a fresh queue completes and stores 1 (the
//      process and the GPU survive the three stopped queues);
//   5. with `debugtrap`: debugtrap_then_store (s_trap 3) completes and stores
//      out[i] = i + 1 (our handler steps over s_trap 3; ROCr 5.2.3's parks
//      the wave for a debugger).
// Prints "hsa_trap: PASS" and exits 0, or names the failed check, exit 1.

#define CLIENT "hsa_trap"
#include "hsa_client.h"

#define N 256
#define WG 64

/* The CPU agent's pools (the kernarg pool). */
static hsa_status_t cpu_agent(hsa_agent_t a, void *data) {
    hsa_device_type_t t;
    CHECK(hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t), "agent device type");
    if (t == HSA_DEVICE_TYPE_CPU)
        return hsa_amd_agent_iterate_memory_pools(a, cpu_pools, data);
    return HSA_STATUS_SUCCESS;
}

static hsa_executable_t exe;

// What a queue's error callback heard: the status, once.
typedef struct {
    hsa_signal_t heard; // 1 until the callback ran
    hsa_status_t status;
    int calls;
} errors_t;

static void on_error(hsa_status_t status, hsa_queue_t *q, void *data) {
    (void)q;
    errors_t *e = data;
    e->status = status;
    __atomic_add_fetch(&e->calls, 1, __ATOMIC_SEQ_CST);
    hsa_signal_store_screlease(e->heard, 0);
}

// Dispatches `kernel` (N work-items) with `args` on `q`, completion `done`.
static void dispatch(const ctx_t *c, hsa_queue_t *q, const char *kernel, const void *args,
                     size_t args_size, hsa_signal_t done) {
    kernel_t k = kernel_of(exe, c->gpu, kernel);
    void *ka = kernargs_for(c, &k, args, args_size);
    uint16_t header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    uint64_t id = write_dispatch(q, &k, ka, N, WG, done, header);
    hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)id);
}

int main(int argc, char **argv) {
    int debugtrap = argc == 3 && strcmp(argv[2], "debugtrap") == 0;
    int default_handler = argc == 3 && strcmp(argv[2], "default-handler") == 0;
    if (argc != 2 && !debugtrap && !default_handler) {
        fprintf(stderr, "usage: hsa_trap CODE_OBJECT [debugtrap|default-handler]\n");
        return 2;
    }
    CHECK(hsa_init(), "hsa_init");
    ctx_t c = {0};
    CHECK(hsa_iterate_agents(find_agents, &c), "hsa_iterate_agents");
    CHECK(hsa_iterate_agents(cpu_agent, &c), "CPU pools");
    if (!c.have_gpu || !c.have_kernarg) {
        fprintf(stderr, "hsa_trap: no GPU or no kernarg pool\n");
        return 1;
    }
    size_t co_size;
    void *co = read_file(argv[1], &co_size);
    hsa_code_object_reader_t reader;
    CHECK(hsa_code_object_reader_create_from_memory(co, co_size, &reader), "code object reader");
    CHECK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe),
          "executable create");
    CHECK(hsa_executable_load_agent_code_object(exe, c.gpu, reader, NULL, NULL), "load code object");
    CHECK(hsa_executable_freeze(exe, NULL), "freeze");

    if (default_handler) {
        hsa_queue_t *q;
        CHECK(hsa_queue_create(c.gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q), "queue");
        printf("hsa_trap: queue %p\n", (void *)q);
        fflush(stdout);
        hsa_signal_t done;
        CHECK(hsa_signal_create(1, 0, NULL, &done), "completion signal");
        dispatch(&c, q, "trap_now", NULL, 0, done);
        hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, 2000000000ull, HSA_WAIT_STATE_BLOCKED);
        sleep(2);
        printf("hsa_trap: no abort\n");
        return 3;
    }

    const uint64_t hole = 0x0000800000000000ull;
    struct {
        const char *kernel;
        const void *args;
        size_t args_size;
        hsa_status_t want;
    } cases[] = {
        {"trap_now", NULL, 0, HSA_STATUS_ERROR_EXCEPTION},
        {"illegal", NULL, 0, (hsa_status_t)HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION},
        {"store_at", &hole, sizeof(hole), (hsa_status_t)HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        errors_t *e = calloc(1, sizeof(*e));
        CHECK(hsa_signal_create(1, 0, NULL, &e->heard), "callback signal");
        hsa_queue_t *q;
        CHECK(hsa_queue_create(c.gpu, 64, HSA_QUEUE_TYPE_MULTI, on_error, e, UINT32_MAX, UINT32_MAX, &q),
              "queue");
        hsa_signal_t done;
        CHECK(hsa_signal_create(1, 0, NULL, &done), "completion signal");
        dispatch(&c, q, cases[i].kernel, cases[i].args, cases[i].args_size, done);
        if (!wait_zero(e->heard, "the error callback"))
            continue;
        const char *m = "?";
        hsa_status_string(e->status, &m);
        EXPECT(e->status == cases[i].want, "%s: callback status 0x%x (%s), want 0x%x", cases[i].kernel,
               e->status, m, cases[i].want);
        EXPECT(hsa_signal_load_scacquire(done) == 1, "%s: the dispatch completed", cases[i].kernel);
        // The stopped queue and its callback state stay: its waves are halted.
    }

    // The GPU runs on: a store on a fresh queue lands.
    uint32_t *out = NULL;
    CHECK(hsa_amd_memory_pool_allocate(c.kernarg, N * sizeof(uint32_t), 0, (void **)&out), "alloc out");
    CHECK(hsa_amd_agents_allow_access(1, &c.gpu, NULL, out), "out access");
    memset(out, 0, N * sizeof(uint32_t));
    hsa_queue_t *q;
    CHECK(hsa_queue_create(c.gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q), "queue");
    hsa_signal_t done;
    CHECK(hsa_signal_create(1, 0, NULL, &done), "completion signal");
    uint64_t at = (uint64_t)(uintptr_t)out;
    dispatch(&c, q, "store_at", &at, sizeof(at), done);
    wait_zero(done, "store_at on a fresh queue");
    EXPECT(out[0] == 1, "store_at on a fresh queue: out[0] = %u, want 1", out[0]);

    // s_trap 3 stepped over (our handler; ROCr 5.2.3's parks and halts the
    // wave for a debugger, so the dispatch never completes there).
    if (debugtrap) {
        memset(out, 0, N * sizeof(uint32_t));
        CHECK(hsa_signal_create(1, 0, NULL, &done), "completion signal");
        dispatch(&c, q, "debugtrap_then_store", &out, sizeof(out), done);
        if (wait_zero(done, "debugtrap_then_store")) {
            for (uint32_t i = 0; i < N; i++) {
                if (out[i] != i + 1) {
                    EXPECT(0, "debugtrap_then_store: out[%u] = %u, want %u", i, out[i], i + 1);
                    break;
                }
            }
        }
    }
    if (failures) {
        fprintf(stderr, "hsa_trap: %d check(s) failed\n", failures);
        return 1;
    }
    printf("hsa_trap: PASS\n");
    return 0;
}
