/* _amdgpu_r_debug as a debugger reads it: the glibc struct r_debug the
 * runtime library exports (<link.h>), whose r_map lists the code objects of
 * every frozen executable (l_name the code object's URI, l_addr its load
 * delta), consistent (RT_CONSISTENT) between changes, with an r_brk to
 * break on. Built by gcc against ROCr 5.2.3's headers; run on AMD's ROCr
 * over the software GPU (scripts/test-rocr-on-sim) and on our drop-in
 * library (cabi/tests/c_programs.rs).
 *
 * Usage: r_debug FILE.co OTHER.co: FILE.co is loaded from its file
 * (hsa_code_object_reader_create_from_file), OTHER.co from memory; each
 * entry's URI must name the code object's bytes and its l_addr must be the
 * loaded code object's LOAD_DELTA (the AMD loader extension); destroying an
 * executable removes its entry. */
#define CLIENT "r_debug"
#include "hsa_client.h"

#include <hsa/hsa_ven_amd_loader.h>
#include <link.h>

extern struct r_debug _amdgpu_r_debug;

static hsa_ven_amd_loader_1_01_pfn_t L;

/* The "offset" and "size" of a URI's fragment (#offset=..&size=..). */
static void fragment(const char *frag, unsigned long long *offset, unsigned long long *size) {
    for (const char *p = frag; p && *p;) {
        if (strncmp(p, "offset=", 7) == 0)
            *offset = strtoull(p + 7, NULL, 0);
        else if (strncmp(p, "size=", 5) == 0)
            *size = strtoull(p + 5, NULL, 0);
        p = strchr(p, '&');
        if (p)
            p++;
    }
}

/* Whether the bytes the URI names are want[0..n]. */
static int uri_names(const char *uri, const unsigned char *want, size_t n) {
    unsigned long long offset = 0, size = n;
    const char *hash = strchr(uri, '#');
    if (hash)
        fragment(hash + 1, &offset, &size);
    if (size != n)
        return 0;
    if (strncmp(uri, "file://", 7) == 0) {
        char path[4096];
        size_t len = hash ? (size_t)(hash - (uri + 7)) : strlen(uri + 7);
        if (len >= sizeof path)
            return 0;
        memcpy(path, uri + 7, len);
        path[len] = 0;
        size_t fn;
        unsigned char *b = read_file(path, &fn);
        int same = offset + size <= fn && memcmp(b + offset, want, n) == 0;
        free(b);
        return same;
    }
    if (strncmp(uri, "memory://", 9) == 0) {
        if (strtol(uri + 9, NULL, 10) != (long)getpid())
            return 0;
        return memcmp((const void *)(uintptr_t)offset, want, n) == 0;
    }
    return 0;
}

/* The list's entries, checking its back links; at most max. */
static int entries(struct link_map **out, int max) {
    int n = 0;
    struct link_map *prev = NULL;
    for (struct link_map *m = _amdgpu_r_debug.r_map; m; m = m->l_next) {
        EXPECT(m->l_prev == prev, "entry %d: l_prev is not the previous entry", n);
        if (n < max)
            out[n] = m;
        prev = m;
        if (++n > 1000) {
            EXPECT(0, "r_map runs past 1000 entries");
            break;
        }
    }
    return n;
}

static hsa_executable_t load(hsa_agent_t gpu, hsa_code_object_reader_t r, hsa_loaded_code_object_t *lco) {
    hsa_executable_t exe;
    CHECK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe),
          "executable create");
    CHECK(hsa_executable_load_agent_code_object(exe, gpu, r, NULL, lco), "load");
    CHECK(hsa_executable_freeze(exe, NULL), "freeze");
    CHECK(hsa_code_object_reader_destroy(r), "reader destroy");
    return exe;
}

static void check_entry(const char *what, struct link_map *m, hsa_loaded_code_object_t lco,
                        const unsigned char *bytes, size_t n) {
    int64_t delta = 0;
    CHECK(L.hsa_ven_amd_loader_loaded_code_object_get_info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_DELTA,
                                                           &delta),
          "LOAD_DELTA");
    char uri[4096];
    memset(uri, 0, sizeof uri);
    CHECK(L.hsa_ven_amd_loader_loaded_code_object_get_info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI, uri),
          "URI");
    EXPECT(m->l_addr == (ElfW(Addr))delta, "%s: l_addr %#lx, LOAD_DELTA %#lx", what, (unsigned long)m->l_addr,
           (unsigned long)delta);
    EXPECT(m->l_name && strcmp(m->l_name, uri) == 0, "%s: l_name %s, URI %s", what, m->l_name ? m->l_name : "(null)",
           uri);
    EXPECT(m->l_name && uri_names(m->l_name, bytes, n), "%s: %s does not name the code object's bytes", what,
           m->l_name ? m->l_name : "(null)");
    /* The scheme, for the log (the rest differs by path, pid and address). */
    printf(CLIENT ": %s: %.*s\n", what, (int)(strchr(m->l_name, ':') - m->l_name), m->l_name);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: r_debug FILE.co OTHER.co\n");
        return 2;
    }
    CHECK(hsa_init(), "hsa_init");
    ctx_t c;
    memset(&c, 0, sizeof c);
    CHECK(hsa_iterate_agents(find_agents, &c), "iterate agents");
    if (!c.have_gpu) {
        fprintf(stderr, CLIENT ": no GPU agent\n");
        return 1;
    }
    CHECK(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_LOADER, 1, sizeof L, &L), "loader table");

    printf(CLIENT ": r_version %d\n", _amdgpu_r_debug.r_version);
    EXPECT(_amdgpu_r_debug.r_version >= 1, "r_version %d", _amdgpu_r_debug.r_version);
    EXPECT(_amdgpu_r_debug.r_brk != 0, "no r_brk");
    EXPECT(_amdgpu_r_debug.r_state == RT_CONSISTENT, "r_state %d", (int)_amdgpu_r_debug.r_state);
    struct link_map *e[64];
    /* The runtime's own executables (blit kernels), if any, come first. */
    int base = entries(e, 64);

    size_t fn, mn;
    unsigned char *file_bytes = read_file(argv[1], &fn);
    unsigned char *mem_bytes = read_file(argv[2], &mn);
    int fd = open(argv[1], O_RDONLY);
    EXPECT(fd >= 0, "open %s", argv[1]);
    hsa_code_object_reader_t r;
    CHECK(hsa_code_object_reader_create_from_file(fd, &r), "reader from file");
    hsa_loaded_code_object_t file_lco, mem_lco;
    hsa_executable_t from_file = load(c.gpu, r, &file_lco);
    close(fd);
    CHECK(hsa_code_object_reader_create_from_memory(mem_bytes, mn, &r), "reader from memory");
    hsa_executable_t from_memory = load(c.gpu, r, &mem_lco);

    EXPECT(_amdgpu_r_debug.r_state == RT_CONSISTENT, "r_state %d", (int)_amdgpu_r_debug.r_state);
    int n = entries(e, 64);
    EXPECT(n == base + 2, "%d entries after two loads, %d before", n, base);
    if (n == base + 2 && n <= 64) {
        check_entry("file", e[base], file_lco, file_bytes, fn);
        check_entry("memory", e[base + 1], mem_lco, mem_bytes, mn);
    }

    CHECK(hsa_executable_destroy(from_file), "destroy");
    n = entries(e, 64);
    EXPECT(n == base + 1, "%d entries after a destroy, %d before the loads", n, base);
    if (n == base + 1 && n <= 64)
        check_entry("memory, after the other's destroy", e[base], mem_lco, mem_bytes, mn);
    CHECK(hsa_executable_destroy(from_memory), "destroy");
    EXPECT(entries(e, 64) == base, "entries left after both destroys");
    EXPECT(_amdgpu_r_debug.r_state == RT_CONSISTENT, "r_state %d", (int)_amdgpu_r_debug.r_state);

    CHECK(hsa_shut_down(), "hsa_shut_down");
    free(file_bytes);
    free(mem_bytes);
    if (failures) {
        printf(CLIENT ": FAIL (%d)\n", failures);
        return 1;
    }
    printf(CLIENT ": PASS\n");
    return 0;
}
