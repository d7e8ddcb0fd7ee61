/* The extension tables: the AMD loader extension (hsa_ven_amd_loader
 * 1.00..1.03) over a loaded executable, the images and finalizer tables
 * (present; their functions answer NOT_INITIALIZED as ROCr without those
 * libraries), aqlprofile (HSA_STATUS_ERROR: no library), bad arguments.
 * Usage: extensions KERNELS.co */
#include "util.h"
#include <fcntl.h>
#include <hsa/hsa_ext_finalize.h>
#include <hsa/hsa_ext_image.h>
#include <hsa/hsa_ven_amd_loader.h>
#include <unistd.h>

static hsa_ven_amd_loader_1_03_pfn_t L;
static hsa_executable_t the_exe;
static int exes, lcos;
static hsa_loaded_code_object_t the_lco;

static hsa_status_t each_exe(hsa_executable_t e, void *d) {
    (void)d;
    if (e.handle == the_exe.handle) exes++;
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t each_lco(hsa_executable_t e, hsa_loaded_code_object_t l, void *d) {
    (void)d;
    EXPECT(e.handle == the_exe.handle);
    the_lco = l;
    lcos++;
    return HSA_STATUS_SUCCESS;
}

int main(int argc, char **argv) {
    EXPECT(argc == 2);
    uint16_t minor = 9;
    bool ok = false;
    EXPECT(hsa_system_major_extension_supported(HSA_EXTENSION_AMD_LOADER, 1, &minor, &ok) == HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK(hsa_init());
    env_t e;
    env_init(&e);
    CHECK(hsa_system_major_extension_supported(HSA_EXTENSION_AMD_LOADER, 1, &minor, &ok));
    EXPECT(ok && minor == 0);
    const char *name = NULL;
    CHECK(hsa_extension_get_name(HSA_EXTENSION_AMD_LOADER, &name));
    EXPECT(strcmp(name, "HSA_EXTENSION_AMD_LOADER") == 0);

    /* Every loader table version is a prefix of 1.03. */
    hsa_ven_amd_loader_1_00_pfn_t t100;
    hsa_ven_amd_loader_1_01_pfn_t t101;
    hsa_ven_amd_loader_1_02_pfn_t t102;
    memset(&L, 0, sizeof L);
    CHECK(hsa_system_get_extension_table(HSA_EXTENSION_AMD_LOADER, 1, 0, &t100));
    CHECK(hsa_system_get_extension_table(HSA_EXTENSION_AMD_LOADER, 1, 1, &t101));
    CHECK(hsa_system_get_extension_table(HSA_EXTENSION_AMD_LOADER, 1, 2, &t102));
    CHECK(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_LOADER, 1, sizeof L, &L));
    EXPECT(t100.hsa_ven_amd_loader_query_host_address == L.hsa_ven_amd_loader_query_host_address);
    EXPECT(t101.hsa_ven_amd_loader_loaded_code_object_get_info == L.hsa_ven_amd_loader_loaded_code_object_get_info);
    EXPECT(t102.hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size ==
           L.hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size);
    EXPECT(L.hsa_ven_amd_loader_iterate_executables != NULL);

    /* A reader from a file range (offset 0, the whole file), loaded. */
    int fd = open(argv[1], O_RDONLY);
    EXPECT(fd >= 0);
    off_t size = lseek(fd, 0, SEEK_END);
    hsa_code_object_reader_t r;
    CHECK(L.hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size(fd, 0, size, &r));
    close(fd);
    CHECK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &the_exe));
    hsa_loaded_code_object_t lco;
    CHECK(hsa_executable_load_agent_code_object(the_exe, e.gpu, r, NULL, &lco));
    CHECK(hsa_executable_freeze(the_exe, NULL));

    CHECK(L.hsa_ven_amd_loader_iterate_executables(each_exe, NULL));
    EXPECT(exes == 1);
    CHECK(L.hsa_ven_amd_loader_executable_iterate_loaded_code_objects(the_exe, each_lco, NULL));
    EXPECT(lcos == 1 && the_lco.handle == lco.handle);

    hsa_executable_t ex;
    hsa_agent_t ag;
    uint32_t kind, storage;
    uint64_t base, lsize, mem_base, mem_size;
    int64_t delta;
    uint32_t uri_len;
    hsa_status_t (*info)(hsa_loaded_code_object_t, hsa_ven_amd_loader_loaded_code_object_info_t, void *) =
        L.hsa_ven_amd_loader_loaded_code_object_get_info;
    CHECK(info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_EXECUTABLE, &ex));
    CHECK(info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_KIND, &kind));
    CHECK(info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_AGENT, &ag));
    CHECK(info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_TYPE, &storage));
    CHECK(info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_BASE, &mem_base));
    CHECK(info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_SIZE, &mem_size));
    CHECK(info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_BASE, &base));
    CHECK(info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_SIZE, &lsize));
    CHECK(info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_DELTA, &delta));
    CHECK(info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI_LENGTH, &uri_len));
    EXPECT(ex.handle == the_exe.handle && ag.handle == e.gpu.handle);
    EXPECT(kind == HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_KIND_AGENT);
    EXPECT(storage == HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY);
    EXPECT(mem_size == (uint64_t)size && memcmp((void *)mem_base, "\177ELF", 4) == 0);
    EXPECT(base != 0 && lsize > 0 && uri_len > 0 && uri_len < 4096);
    char uri[4096];
    memset(uri, 0, sizeof uri);
    CHECK(info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI, uri));
    EXPECT(strlen(uri) == uri_len);
    printf("loaded code object: base %#lx size %#lx delta %ld uri %s\n", (unsigned long)base,
           (unsigned long)lsize, (long)delta, uri);

    /* Segment descriptors: the count, then the descriptor. */
    size_t n = 0;
    CHECK(L.hsa_ven_amd_loader_query_segment_descriptors(NULL, &n));
    EXPECT(n == 1);
    hsa_ven_amd_loader_segment_descriptor_t seg[2];
    n = 2;
    CHECK(L.hsa_ven_amd_loader_query_segment_descriptors(seg, &n));
    EXPECT(n == 1);
    EXPECT(seg[0].agent.handle == e.gpu.handle && seg[0].executable.handle == the_exe.handle);
    EXPECT((uint64_t)(uintptr_t)seg[0].segment_base == base && seg[0].segment_size == lsize);
    EXPECT(seg[0].code_object_storage_type == HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY);

    /* The kernel descriptor lies in the segment: its executable. */
    hsa_executable_symbol_t sym;
    uint64_t kobj;
    CHECK(hsa_executable_get_symbol_by_name(the_exe, "vadd.kd", &e.gpu, &sym));
    CHECK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kobj));
    EXPECT(kobj >= base && kobj < base + lsize);
    CHECK(L.hsa_ven_amd_loader_query_executable((void *)(uintptr_t)kobj, &ex));
    EXPECT(ex.handle == the_exe.handle);
    const void *host = NULL;
    hsa_status_t s = L.hsa_ven_amd_loader_query_host_address((void *)(uintptr_t)kobj, &host);
    CHECK(s);
    /* The kernel descriptor through the host address: its kernarg size
     * (offset 8) is the symbol's. */
    uint32_t kernarg_size, kd_kernarg_size;
    CHECK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &kernarg_size));
    memcpy(&kd_kernarg_size, (const char *)host + 8, 4);
    EXPECT(host != NULL && kd_kernarg_size == kernarg_size);
    EXPECT(L.hsa_ven_amd_loader_query_executable((void *)16, &ex) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    EXPECT(L.hsa_ven_amd_loader_query_host_address((void *)16, &host) == HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* Images and the finalizer: the tables exist; nothing is loaded behind them. */
    CHECK(hsa_system_major_extension_supported(HSA_EXTENSION_IMAGES, 1, &minor, &ok));
    EXPECT(ok);
    hsa_ext_images_1_pfn_t img;
    CHECK(hsa_system_get_major_extension_table(HSA_EXTENSION_IMAGES, 1, sizeof img, &img));
    hsa_ext_image_t image;
    hsa_ext_image_descriptor_t desc;
    memset(&desc, 0, sizeof desc);
    EXPECT(img.hsa_ext_image_create(e.gpu, &desc, NULL, HSA_ACCESS_PERMISSION_RW, &image) == HSA_STATUS_ERROR_NOT_INITIALIZED);
    EXPECT(img.hsa_ext_image_create_with_layout != NULL);
    uint32_t caps;
    hsa_ext_image_format_t fmt = {HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8, HSA_EXT_IMAGE_CHANNEL_ORDER_RGBA};
    EXPECT(hsa_ext_image_get_capability(e.gpu, HSA_EXT_IMAGE_GEOMETRY_2D, &fmt, &caps) == HSA_STATUS_ERROR_NOT_INITIALIZED);
    hsa_ext_finalizer_1_00_pfn_t fin;
    CHECK(hsa_system_get_extension_table(HSA_EXTENSION_FINALIZER, 1, 0, &fin));
    hsa_ext_program_t prog;
    EXPECT(fin.hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &prog) == HSA_STATUS_ERROR_NOT_INITIALIZED);
    char big[256];
    EXPECT(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_AQLPROFILE, 1, sizeof big, big) == HSA_STATUS_ERROR);
    EXPECT(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_LOADER, 1, sizeof L, NULL) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    EXPECT(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_LOADER, 1, 0, &L) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    EXPECT(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_LOADER, 2, sizeof L, &L) == HSA_STATUS_ERROR);
    EXPECT(hsa_system_get_major_extension_table(0x1234, 1, sizeof L, &L) == HSA_STATUS_ERROR);

    CHECK(hsa_executable_destroy(the_exe));
    EXPECT(L.hsa_ven_amd_loader_executable_iterate_loaded_code_objects(the_exe, each_lco, NULL) == HSA_STATUS_ERROR_INVALID_EXECUTABLE);
    n = 0;
    CHECK(L.hsa_ven_amd_loader_query_segment_descriptors(NULL, &n));
    EXPECT(n == 0);
    CHECK(hsa_code_object_reader_destroy(r));
    CHECK(hsa_shut_down());
    printf("extensions: loader 1.00-1.03, images, finalizer, aqlprofile: ok\n");
    return 0;
}
