/* Async-copy profiling, IPC memory and signals across two processes, and
 * GPU memory faults through hsa_amd_register_system_event_handler (or, with
 * no handler, ROCr's message and abort()), on the library under test.
 *
 *   ipc_events KERNELS            parent: copy times; shares memory and a
 *                                 signal with a child (this program, exec'd)
 *   ipc_events KERNELS child M S  the child: attaches, checks, writes back
 *   ipc_events KERNELS handled    a fault a registered handler takes
 *   ipc_events KERNELS unhandled  a fault no handler takes (aborts)
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "util.h"

#define N 1024
#define BAD ((float *)0x7e0000000000ull)

static void hex(const uint32_t w[8], char out[65]) {
    for (int i = 0; i < 8; i++) sprintf(out + 8 * i, "%08x", w[i]);
}

static void unhex(const char *s, uint32_t w[8]) {
    EXPECT(strlen(s) == 64);
    for (int i = 0; i < 8; i++) {
        char b[9];
        memcpy(b, s + 8 * i, 8);
        b[8] = 0;
        w[i] = (uint32_t)strtoul(b, NULL, 16);
    }
}

static volatile int faults;
static uint64_t fault_address;
static uint32_t fault_reasons;

static hsa_status_t on_event(const hsa_amd_event_t *ev, void *data) {
    EXPECT(data == (void *)&faults);
    EXPECT(ev->event_type == HSA_AMD_GPU_MEMORY_FAULT_EVENT);
    fault_address = ev->memory_fault.virtual_address;
    fault_reasons = ev->memory_fault.fault_reason_mask;
    __atomic_store_n(&faults, 1, __ATOMIC_RELEASE);
    return HSA_STATUS_SUCCESS;
}

/* vadd writing to an address no allocation covers. */
static void fault(env_t *e, kernel_t *k) {
    hsa_queue_t *q;
    CHECK(hsa_queue_create(e->gpu, 64, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
    float *a;
    CHECK(hsa_amd_memory_pool_allocate(e->sys_fine, N * 4, 0, (void **)&a));
    CHECK(hsa_amd_agents_allow_access(1, &e->gpu, NULL, a));
    vadd_args_t *args;
    CHECK(hsa_memory_allocate(e->kernarg, k->kernarg_size, (void **)&args));
    memset(args, 0, k->kernarg_size);
    args->a = a;
    args->b = a;
    args->c = BAD;
    args->n = 64;
    hsa_signal_t done;
    CHECK(hsa_signal_create(1, 0, NULL, &done));
    dispatch(q, k, args, 64, done);
}

static int child(env_t *e, const char *mh, const char *sh) {
    hsa_amd_ipc_memory_t m;
    unhex(mh, m.handle);
    float *p;
    CHECK(hsa_amd_ipc_memory_attach(&m, N * 4, 1, &e->gpu, (void **)&p));
    for (int i = 0; i < N; i++) EXPECT(p[i] == (float)i);
    for (int i = 0; i < N; i++) p[i] = -1.0f;
    CHECK(hsa_amd_ipc_memory_detach(p));
    hsa_amd_ipc_signal_t s;
    unhex(sh, s.handle);
    hsa_signal_t sig;
    CHECK(hsa_amd_ipc_signal_attach(&s, &sig));
    EXPECT(hsa_signal_load_scacquire(sig) == 1);
    hsa_signal_store_screlease(sig, 0);
    CHECK(hsa_signal_destroy(sig));
    CHECK(hsa_shut_down());
    printf("ipc child: ok\n");
    return 0;
}

int main(int argc, char **argv) {
    EXPECT(argc >= 2);
    CHECK(hsa_init());
    env_t e;
    env_init(&e);
    kernel_t k;
    load_kernel(&e, argv[1], "vadd.kd", &k);
    if (argc == 5 && !strcmp(argv[2], "child")) return child(&e, argv[3], argv[4]);
    if (argc == 3 && !strcmp(argv[2], "unhandled")) {
        fault(&e, &k);
        sleep(60); /* the runtime aborts first */
        return 3;
    }
    if (argc == 3 && !strcmp(argv[2], "handled")) {
        CHECK(hsa_amd_register_system_event_handler(on_event, (void *)&faults));
        EXPECT(hsa_amd_register_system_event_handler(NULL, NULL) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
        fault(&e, &k);
        for (int i = 0; i < 60000 && !__atomic_load_n(&faults, __ATOMIC_ACQUIRE); i++) usleep(1000);
        EXPECT(faults == 1);
        printf("handled fault at %#llx reasons %#x\n", (unsigned long long)fault_address, fault_reasons);
        return 0;
    }
    EXPECT(argc == 2);

    /* Async-copy profiling: host -> device. */
    float *h, *d;
    CHECK(hsa_amd_memory_pool_allocate(e.sys_fine, N * 4, 0, (void **)&h));
    CHECK(hsa_amd_memory_pool_allocate(e.vram, N * 4, 0, (void **)&d));
    for (int i = 0; i < N; i++) h[i] = (float)i;
    CHECK(hsa_amd_agents_allow_access(1, &e.gpu, NULL, h));
    hsa_signal_t done;
    CHECK(hsa_signal_create(1, 0, NULL, &done));
    hsa_amd_profiling_async_copy_time_t t;
    CHECK(hsa_amd_profiling_async_copy_enable(true));
    uint64_t before, after;
    CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &before));
    CHECK(hsa_amd_memory_async_copy(d, e.gpu, h, e.cpu, N * 4, 0, NULL, done));
    EXPECT(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
    CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &after));
    CHECK(hsa_amd_profiling_get_async_copy_time(done, &t));
    EXPECT(before <= t.start && t.start <= t.end && t.end <= after);
    CHECK(hsa_amd_profiling_async_copy_enable(false));
    hsa_signal_t never;
    CHECK(hsa_signal_create(0, 0, NULL, &never));
    EXPECT(hsa_amd_profiling_get_async_copy_time(never, &t) == HSA_STATUS_ERROR);

    /* IPC: the device buffer and a signal, to a child process. */
    hsa_amd_ipc_memory_t m;
    CHECK(hsa_amd_ipc_memory_create(d, N * 4, &m));
    hsa_signal_t sig;
    CHECK(hsa_amd_signal_create(1, 0, NULL, HSA_AMD_SIGNAL_IPC, &sig));
    hsa_amd_ipc_signal_t s;
    CHECK(hsa_amd_ipc_signal_create(sig, &s));
    EXPECT(hsa_amd_ipc_signal_create(done, &s) == HSA_STATUS_ERROR_INVALID_SIGNAL);
    hsa_amd_ipc_memory_t forged = m;
    forged.handle[1] ^= 1;
    void *nowhere;
    EXPECT(hsa_amd_ipc_memory_attach(&forged, 16, 1, &e.gpu, &nowhere) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    char mh[65], sh[65];
    hex(m.handle, mh);
    hex(s.handle, sh);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execl(argv[0], argv[0], argv[1], "child", mh, sh, (char *)NULL);
        _exit(127);
    }
    EXPECT(pid > 0);
    EXPECT(hsa_signal_wait_scacquire(sig, HSA_SIGNAL_CONDITION_EQ, 0, 60000000000ull, HSA_WAIT_STATE_BLOCKED) == 0);
    int status;
    EXPECT(waitpid(pid, &status, 0) == pid);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    for (int i = 0; i < N; i++) EXPECT(d[i] == -1.0f);
    CHECK(hsa_signal_destroy(sig));
    CHECK(hsa_amd_memory_pool_free(d));
    EXPECT(hsa_amd_ipc_memory_attach(&m, 16, 1, &e.gpu, &nowhere) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_shut_down());
    printf("ipc events: copy times, ipc memory and signal across processes: ok\n");
    return 0;
}
