/* The rest of hsa.h from C: ISAs by name and compatibility, wavefronts,
 * the deprecated code object path (deserialize, serialize, load, create),
 * symbol iteration, signal groups, hsa_memory_copy, exception policies.
 * Usage: misc KERNELS.co */
#include "util.h"

static int syms, agent_syms;
static hsa_status_t each_sym(hsa_executable_t e, hsa_executable_symbol_t s, void *d) {
    (void)e;
    (void)d;
    hsa_symbol_kind_t k;
    CHECK(hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &k));
    syms += k == HSA_SYMBOL_KIND_KERNEL;
    return HSA_STATUS_SUCCESS;
}
static hsa_status_t each_agent_sym(hsa_executable_t e, hsa_agent_t a, hsa_executable_symbol_t s, void *d) {
    (void)e;
    (void)s;
    agent_syms += a.handle == ((hsa_agent_t *)d)->handle;
    return HSA_STATUS_INFO_BREAK;
}
static hsa_status_t first_isa(hsa_isa_t isa, void *d) {
    *(hsa_isa_t *)d = isa;
    return HSA_STATUS_INFO_BREAK;
}
static volatile int q_errors;
static hsa_status_t q_status;
static hsa_queue_t *q_source;
static void *q_data;
static hsa_signal_t q_flag;
static void on_queue_error(hsa_status_t s, hsa_queue_t *q, void *d) {
    q_status = s;
    q_source = q;
    q_data = d;
    q_errors++;
    hsa_signal_store_screlease(q_flag, 0);
}

static hsa_status_t alloc_cb(size_t n, hsa_callback_data_t d, void **p) {
    (void)d;
    *p = malloc(n);
    return *p ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_OUT_OF_RESOURCES;
}

int main(int argc, char **argv) {
    EXPECT(argc == 2);
    CHECK(hsa_init());
    CHECK(hsa_init()); /* reference counted */
    env_t e;
    env_init(&e);

    hsa_isa_t isa = {0}, named, wrong;
    EXPECT(hsa_agent_iterate_isas(e.gpu, first_isa, &isa) == HSA_STATUS_INFO_BREAK);
    char name[128];
    CHECK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, name));
    CHECK(hsa_isa_from_name(name, &named));
    EXPECT(named.handle == isa.handle);
    EXPECT(hsa_isa_from_name("amdgcn-amd-amdhsa--gfx1234", &wrong) == HSA_STATUS_ERROR_INVALID_ISA_NAME);
    hsa_isa_t any;
    CHECK(hsa_isa_from_name("amdgcn-amd-amdhsa--gfx90a", &any));
    bool ok = false;
    CHECK(hsa_isa_compatible(any, isa, &ok));
    EXPECT(ok);
    hsa_isa_t gfx908;
    CHECK(hsa_isa_from_name("amdgcn-amd-amdhsa--gfx908", &gfx908));
    CHECK(hsa_isa_compatible(gfx908, isa, &ok));
    EXPECT(!ok);
    uint16_t mask = 7;
    CHECK(hsa_isa_get_exception_policies(isa, HSA_PROFILE_BASE, &mask));
    EXPECT(mask == 0);
    CHECK(hsa_agent_get_exception_policies(e.gpu, HSA_PROFILE_BASE, &mask));
    hsa_round_method_t rm;
    CHECK(hsa_isa_get_round_method(isa, HSA_FP_TYPE_32, HSA_FLUSH_MODE_FTZ, &rm));
    EXPECT(rm == HSA_ROUND_METHOD_SINGLE);
    uint32_t ws = 0;
    CHECK(hsa_isa_get_info(isa, HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE, 0, &ws));
    EXPECT(ws == 64);
    EXPECT(hsa_isa_get_info(isa, HSA_ISA_INFO_NAME, 1, name) == HSA_STATUS_ERROR_INVALID_INDEX);

    /* Deprecated code objects: deserialize, serialize back, load. */
    FILE *f = fopen(argv[1], "rb");
    EXPECT(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *bytes = malloc(n);
    EXPECT(fread(bytes, 1, n, f) == (size_t)n);
    fclose(f);
    hsa_code_object_t co;
    CHECK(hsa_code_object_deserialize(bytes, n, NULL, &co));
    void *back = NULL;
    size_t back_n = 0;
    hsa_callback_data_t cbd = {0};
    CHECK(hsa_code_object_serialize(co, alloc_cb, cbd, NULL, &back, &back_n));
    EXPECT(back_n == (size_t)n && memcmp(back, bytes, n) == 0);
    free(back);
    /* ROCr 5.2.3's answers for a v3+ code object. */
    hsa_isa_t co_isa;
    char version[64];
    EXPECT(hsa_code_object_get_info(co, HSA_CODE_OBJECT_INFO_ISA, &co_isa) == HSA_STATUS_ERROR_INVALID_ISA_NAME);
    EXPECT(hsa_code_object_get_info(co, HSA_CODE_OBJECT_INFO_VERSION, version) == HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
    EXPECT(hsa_code_object_get_info(co, HSA_CODE_OBJECT_INFO_PROFILE, version) == HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
    EXPECT(hsa_code_object_get_info(co, HSA_CODE_OBJECT_INFO_TYPE, version) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_executable_t exe;
    CHECK(hsa_executable_create(HSA_PROFILE_FULL, HSA_EXECUTABLE_STATE_UNFROZEN, NULL, &exe));
    CHECK(hsa_executable_load_code_object(exe, e.gpu, co, NULL));
    CHECK(hsa_executable_freeze(exe, NULL));
    EXPECT(hsa_executable_freeze(exe, NULL) == HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
    hsa_executable_state_t st;
    CHECK(hsa_executable_get_info(exe, HSA_EXECUTABLE_INFO_STATE, &st));
    EXPECT(st == HSA_EXECUTABLE_STATE_FROZEN);
    uint32_t valid = 9;
    CHECK(hsa_executable_validate_alt(exe, NULL, &valid));
    EXPECT(valid == 0);
    CHECK(hsa_executable_iterate_symbols(exe, each_sym, NULL));
    EXPECT(syms == 1);
    EXPECT(hsa_executable_iterate_agent_symbols(exe, e.gpu, each_agent_sym, &e.gpu) == HSA_STATUS_INFO_BREAK);
    EXPECT(agent_syms == 1);
    hsa_executable_symbol_t sym;
    CHECK(hsa_executable_get_symbol(exe, NULL, "vadd.kd", e.gpu, 0, &sym));
    EXPECT(hsa_executable_get_symbol_by_name(exe, "nope", &e.gpu, &sym) == HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
    CHECK(hsa_code_object_destroy(co));
    EXPECT(hsa_code_object_destroy(co) == HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
    CHECK(hsa_executable_destroy(exe));
    EXPECT(hsa_executable_destroy(exe) == HSA_STATUS_ERROR_INVALID_EXECUTABLE);
    EXPECT(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &st) == HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL);
    free(bytes);

    /* Signal groups. */
    hsa_signal_t s[3];
    for (int i = 0; i < 3; i++) CHECK(hsa_signal_create(1, 0, NULL, &s[i]));
    hsa_signal_group_t g;
    CHECK(hsa_signal_group_create(3, s, 1, &e.cpu, &g));
    hsa_signal_store_screlease(s[2], 0);
    hsa_signal_condition_t conds[3] = {HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_EQ};
    hsa_signal_value_t vals[3] = {0, 0, 0};
    hsa_signal_t hit;
    hsa_signal_value_t v;
    CHECK(hsa_signal_group_wait_any_scacquire(g, conds, vals, HSA_WAIT_STATE_BLOCKED, &hit, &v));
    EXPECT(hit.handle == s[2].handle && v == 0);
    CHECK(hsa_signal_group_destroy(g));
    EXPECT(hsa_signal_group_wait_any_relaxed(g, conds, vals, HSA_WAIT_STATE_ACTIVE, &hit, &v) == HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP);
    /* Signal arithmetic through the C ABI. */
    hsa_signal_store_relaxed(s[0], 10);
    hsa_signal_add_scacq_screl(s[0], 5);
    hsa_signal_subtract_relaxed(s[0], 3);
    hsa_signal_and_acquire(s[0], 0xe);
    hsa_signal_or_release(s[0], 0x10);
    hsa_signal_xor_screlease(s[0], 0x1);
    EXPECT(hsa_signal_load_acquire(s[0]) == ((((10 + 5 - 3) & 0xe) | 0x10) ^ 0x1));
    EXPECT(hsa_signal_exchange_scacquire(s[0], 7) == 0x1d);
    EXPECT(hsa_signal_cas_acq_rel(s[0], 7, 8) == 7 && hsa_signal_load_relaxed(s[0]) == 8);
    EXPECT(hsa_signal_wait_relaxed(s[0], HSA_SIGNAL_CONDITION_GTE, 8, 0, HSA_WAIT_STATE_ACTIVE) == 8);
    EXPECT(hsa_signal_wait_acquire(s[1], HSA_SIGNAL_CONDITION_EQ, 0, 1000, HSA_WAIT_STATE_ACTIVE) == 1);
    for (int i = 0; i < 3; i++) CHECK(hsa_signal_destroy(s[i]));

    /* hsa_memory_copy both ways through VRAM. */
    char *dev, src[300], dst[300];
    CHECK(hsa_amd_memory_pool_allocate(e.vram, 4096, 0, (void **)&dev));
    for (int i = 0; i < 300; i++) src[i] = (char)i;
    void *lsrc, *ldst;
    CHECK(hsa_amd_memory_lock(src, sizeof src, NULL, 0, &lsrc));
    CHECK(hsa_amd_memory_lock(dst, sizeof dst, NULL, 0, &ldst));
    CHECK(hsa_memory_copy(dev, lsrc, sizeof src));
    CHECK(hsa_memory_copy(ldst, dev, sizeof dst));
    EXPECT(memcmp(src, dst, sizeof src) == 0);
    CHECK(hsa_amd_memory_unlock(src));
    CHECK(hsa_amd_memory_unlock(dst));
    CHECK(hsa_memory_assign_agent(dev, e.gpu, HSA_ACCESS_PERMISSION_RW));
    CHECK(hsa_amd_agents_allow_access(1, &e.cpu, NULL, dev));
    CHECK(hsa_amd_memory_pool_free(dev));

    const char *ename;
    CHECK(hsa_extension_get_name(HSA_EXTENSION_IMAGES, &ename));
    EXPECT(strcmp(ename, "HSA_EXTENSION_IMAGES") == 0);
    EXPECT(hsa_extension_get_name(77, &ename) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    bool sup = true;
    CHECK(hsa_system_extension_supported(HSA_EXTENSION_AMD_LOADER, 1, 0, &sup));
    EXPECT(sup);
    CHECK(hsa_agent_extension_supported(HSA_EXTENSION_AMD_LOADER, e.cpu, 1, 0, &sup));
    EXPECT(!sup);

    /* A soft queue (agent dispatch): the caller is the packet processor. */
    {
        hsa_signal_t bell;
        CHECK(hsa_signal_create(0, 0, NULL, &bell));
        hsa_queue_t *sq;
        CHECK(hsa_soft_queue_create(e.kernarg, 16, HSA_QUEUE_TYPE_SINGLE, HSA_QUEUE_FEATURE_AGENT_DISPATCH, bell, &sq));
        EXPECT(sq->size == 16 && sq->type == HSA_QUEUE_TYPE_SINGLE && sq->doorbell_signal.handle == bell.handle);
        EXPECT(sq->features == HSA_QUEUE_FEATURE_AGENT_DISPATCH && sq->base_address != NULL);
        uint64_t id = hsa_queue_add_write_index_relaxed(sq, 1);
        EXPECT(id == 0);
        hsa_agent_dispatch_packet_t *p = (hsa_agent_dispatch_packet_t *)sq->base_address;
        memset(p, 0, sizeof *p);
        p->type = 0x8000;
        p->arg[0] = 42;
        __atomic_store_n(&p->header, (uint16_t)(HSA_PACKET_TYPE_AGENT_DISPATCH << HSA_PACKET_HEADER_TYPE), __ATOMIC_RELEASE);
        hsa_signal_store_screlease(sq->doorbell_signal, (hsa_signal_value_t)id);
        /* The consumer side. */
        EXPECT(hsa_signal_wait_scacquire(bell, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_ACTIVE) == 0);
        EXPECT(hsa_queue_load_read_index_scacquire(sq) == 0 && hsa_queue_load_write_index_scacquire(sq) == 1);
        EXPECT(p->arg[0] == 42 && p->type == 0x8000);
        hsa_queue_store_read_index_screlease(sq, 1);
        EXPECT(hsa_queue_load_read_index_relaxed(sq) == 1);
        EXPECT(hsa_queue_cas_write_index_scacq_screl(sq, 1, 3) == 1 && hsa_queue_load_write_index_relaxed(sq) == 3);
        hsa_queue_store_write_index_screlease(sq, 1);
        EXPECT(hsa_soft_queue_create(e.kernarg, 12, HSA_QUEUE_TYPE_SINGLE, 2, bell, &sq) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
        CHECK(hsa_queue_destroy(sq));
        EXPECT(hsa_queue_destroy(sq) == HSA_STATUS_ERROR_INVALID_QUEUE);
        CHECK(hsa_signal_destroy(bell));
    }

    /* A queue error reaches the queue's callback with its status, the
     * queue and the data: a dispatch of no kernel object. */
    CHECK(hsa_signal_create(1, 0, NULL, &q_flag));
    hsa_queue_t *q;
    CHECK(hsa_queue_create(e.gpu, 64, HSA_QUEUE_TYPE_MULTI, on_queue_error, (void *)0x77, UINT32_MAX, UINT32_MAX, &q));
    kernel_t none;
    memset(&none, 0, sizeof none);
    hsa_signal_t never_done;
    CHECK(hsa_signal_create(1, 0, NULL, &never_done));
    dispatch(q, &none, NULL, 64, never_done);
    EXPECT(hsa_signal_wait_scacquire(q_flag, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
    EXPECT(q_errors == 1 && q_source == q && q_data == (void *)0x77);
    EXPECT(q_status == HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
    CHECK(hsa_queue_destroy(q));
    CHECK(hsa_signal_destroy(q_flag));
    CHECK(hsa_signal_destroy(never_done));

    CHECK(hsa_shut_down());
    /* Still open after one of two shut-downs. */
    uint16_t major = 0;
    CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major));
    EXPECT(major == 1);
    CHECK(hsa_shut_down());
    EXPECT(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major) == HSA_STATUS_ERROR_NOT_INITIALIZED);
    /* And a new init after the last shut-down starts afresh. */
    CHECK(hsa_init());
    env_init(&e);
    CHECK(hsa_shut_down());
    printf("misc: isas, code objects, symbols, signal groups, signal ops, memory copy, soft queues, queue errors, init counting: ok\n");
    return 0;
}
