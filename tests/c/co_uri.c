/* The URI a code object loaded from memory gets (the AMD loader
 * extension's LOADED_CODE_OBJECT_INFO_URI), by where the memory is:
 *
 * - inside this program's file (a code object embedded with .incbin, as a
 *   HIP program embeds its fat binary): file://<this program>#offset=O&size=N,
 *   O the code object's offset in the program file;
 * - malloc'ed: memory://<pid>#offset=<address>&size=N;
 * - an mmap of a .co file: memory://... by default, and with
 *   HSA_LOADER_ENABLE_MMAP_URI=1 file://<that file>, without a fragment
 *   since it is the whole file.
 *
 * Paths are percent-encoded as ROCr's EncodePathname does (letters, digits
 * and /-_.~ kept). Built by gcc against ROCr 5.2.3's headers, with
 * -DEMBEDDED_CO="path of a .co" for the .incbin; run on AMD's ROCr over
 * the software GPU (scripts/test-rocr-on-sim) and on our drop-in library
 * (cabi/tests/c_programs.rs).
 *
 * Usage: co_uri MAPPED.co default|mmap-uri (the mode: how the runner set
 * HSA_LOADER_ENABLE_MMAP_URI). */
#define _DEFAULT_SOURCE
#define CLIENT "co_uri"
#include "hsa_client.h"

#include <ctype.h>
#include <hsa/hsa_ven_amd_loader.h>
#include <sys/mman.h>

#ifndef EMBEDDED_CO
#error "build with -DEMBEDDED_CO=\"path/of/a.co\""
#endif

__asm__(".section .rodata\n"
        ".balign 4096\n"
        ".globl embedded_co\n"
        "embedded_co:\n"
        ".incbin \"" EMBEDDED_CO "\"\n"
        ".globl embedded_co_end\n"
        "embedded_co_end:\n"
        ".previous\n");
extern const unsigned char embedded_co[], embedded_co_end[];

static hsa_ven_amd_loader_1_01_pfn_t L;

/* ROCr's EncodePathname. */
static void encode(const char *path, char *out, size_t n) {
    size_t o = (size_t)snprintf(out, n, "file://");
    for (const unsigned char *p = (const unsigned char *)path; *p && o + 4 < n; p++) {
        if (isalnum(*p) || *p == '/' || *p == '-' || *p == '_' || *p == '.' || *p == '~')
            out[o++] = (char)*p;
        else
            o += (size_t)snprintf(out + o, n - o, "%%%02X", *p);
    }
    out[o] = 0;
}

/* The URI of a code object loaded from `n` bytes at `bytes`. */
static void uri_of(hsa_agent_t gpu, const void *bytes, size_t n, char *uri, size_t cap) {
    hsa_code_object_reader_t r;
    CHECK(hsa_code_object_reader_create_from_memory(bytes, n, &r), "reader from memory");
    hsa_executable_t exe;
    CHECK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe),
          "executable create");
    hsa_loaded_code_object_t lco;
    CHECK(hsa_executable_load_agent_code_object(exe, gpu, r, NULL, &lco), "load");
    memset(uri, 0, cap);
    uint32_t len = 0;
    CHECK(L.hsa_ven_amd_loader_loaded_code_object_get_info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI_LENGTH,
                                                           &len),
          "URI_LENGTH");
    EXPECT(len < cap, "URI of %u bytes", len);
    if (len < cap)
        CHECK(L.hsa_ven_amd_loader_loaded_code_object_get_info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI,
                                                               uri),
              "URI");
    CHECK(hsa_executable_destroy(exe), "destroy");
    CHECK(hsa_code_object_reader_destroy(r), "reader destroy");
}

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[2], "default") != 0 && strcmp(argv[2], "mmap-uri") != 0)) {
        fprintf(stderr, "usage: co_uri MAPPED.co default|mmap-uri\n");
        return 2;
    }
    int mmap_uri = strcmp(argv[2], "mmap-uri") == 0;
    CHECK(hsa_init(), "hsa_init");
    ctx_t c;
    memset(&c, 0, sizeof c);
    CHECK(hsa_iterate_agents(find_agents, &c), "iterate agents");
    if (!c.have_gpu) {
        fprintf(stderr, CLIENT ": no GPU agent\n");
        return 1;
    }
    CHECK(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_LOADER, 1, sizeof L, &L), "loader table");
    char uri[8192], want[8192], exe[4096];

    /* Embedded in this program: its file, at the code object's offset. */
    size_t n = (size_t)(embedded_co_end - embedded_co);
    ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
    EXPECT(el > 0, "readlink /proc/self/exe");
    exe[el > 0 ? el : 0] = 0;
    uri_of(c.gpu, embedded_co, n, uri, sizeof uri);
    encode(exe, want, sizeof want);
    size_t wl = strlen(want);
    EXPECT(strncmp(uri, want, wl) == 0 && strncmp(uri + wl, "#offset=", 8) == 0, "embedded: %s, not %s#offset=...",
           uri, want);
    unsigned long long offset = strtoull(uri + wl + 8, NULL, 10);
    char size_part[64];
    snprintf(size_part, sizeof size_part, "&size=%zu", n);
    EXPECT(strstr(uri + wl, size_part) != NULL, "embedded: %s has no %s", uri, size_part);
    size_t fn;
    unsigned char *file = read_file(exe, &fn);
    EXPECT(offset + n <= fn && memcmp(file + offset, embedded_co, n) == 0,
           "embedded: the program file's bytes at %llu are not the code object", offset);
    free(file);
    printf(CLIENT ": embedded: file URI of the program at the code object's offset\n");

    /* malloc'ed. */
    unsigned char *copy = malloc(n);
    memcpy(copy, embedded_co, n);
    uri_of(c.gpu, copy, n, uri, sizeof uri);
    snprintf(want, sizeof want, "memory://%d#offset=0x%lx&size=%zu", (int)getpid(), (unsigned long)(uintptr_t)copy,
             n);
    /* Our runtime names its own copy's address: compare all but it. */
    EXPECT(strncmp(uri, want, (size_t)(strchr(want, '#') - want) + 8) == 0 && strstr(uri, size_part) != NULL,
           "malloc'ed: %s, not like %s", uri, want);
    free(copy);
    printf(CLIENT ": malloc'ed: memory URI\n");

    /* mmap of a whole .co file. */
    int fd = open(argv[1], O_RDONLY);
    EXPECT(fd >= 0, "open %s", argv[1]);
    off_t size = lseek(fd, 0, SEEK_END);
    void *m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
    EXPECT(m != MAP_FAILED, "mmap %s", argv[1]);
    close(fd);
    uri_of(c.gpu, m, (size_t)size, uri, sizeof uri);
    if (mmap_uri) {
        char real[4096];
        EXPECT(realpath(argv[1], real) != NULL, "realpath %s", argv[1]);
        encode(real, want, sizeof want);
        EXPECT(strcmp(uri, want) == 0, "mmap'ed with HSA_LOADER_ENABLE_MMAP_URI=1: %s, not %s", uri, want);
        printf(CLIENT ": mmap'ed: file URI of the whole file\n");
    } else {
        EXPECT(strncmp(uri, "memory://", 9) == 0, "mmap'ed by default: %s, not a memory URI", uri);
        printf(CLIENT ": mmap'ed: memory URI\n");
    }
    munmap(m, (size_t)size);

    CHECK(hsa_shut_down(), "hsa_shut_down");
    if (failures) {
        printf(CLIENT ": FAIL (%d)\n", failures);
        return 1;
    }
    printf(CLIENT ": PASS\n");
    return 0;
}
