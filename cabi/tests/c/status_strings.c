/* hsa_status_string of this library against Debian's ROCr 5.2.3 itself:
 * both are dlopen'ed (RTLD_LOCAL) and asked for every value 0..0x4000;
 * the statuses and the strings must be the same. ROCr answers without
 * hsa_init, and so must we. Usage: status_strings OURS.so DEBIAN.so */
#include <dlfcn.h>
#include <hsa/hsa.h>
#include <stdio.h>
#include <string.h>

typedef hsa_status_t (*fn_t)(hsa_status_t, const char **);

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    void *ours = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    void *theirs = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (!ours || !theirs) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 2;
    }
    fn_t a = (fn_t)dlsym(ours, "hsa_status_string");
    fn_t b = (fn_t)dlsym(theirs, "hsa_status_string");
    if (!a || !b || a == b) return 2;
    int known = 0, bad = 0;
    for (unsigned v = 0; v <= 0x4000; v++) {
        const char *sa = NULL, *sb = NULL;
        hsa_status_t ra = a((hsa_status_t)v, &sa), rb = b((hsa_status_t)v, &sb);
        if (ra != rb) {
            fprintf(stderr, "status %#x: ours returns %#x, ROCr %#x\n", v, ra, rb);
            bad++;
        } else if (ra == HSA_STATUS_SUCCESS) {
            known++;
            if (strcmp(sa, sb) != 0) {
                fprintf(stderr, "status %#x:\n  ours: %s\n  ROCr: %s\n", v, sa, sb);
                bad++;
            }
        }
    }
    if (a(HSA_STATUS_SUCCESS, NULL) != HSA_STATUS_ERROR_INVALID_ARGUMENT) bad++;
    printf("status strings: %d known statuses, %d differences\n", known, bad);
    return bad != 0;
}
