#include "amdgcn.h"

// Program-scope variables (OpenCL C 2.0 section 6.5.1) and pointers to them
// stored in device memory: the linker turns each stored address into a
// dynamic relocation (R_AMDGPU_ABS64 against our exported variables), so
// the loader has relocations to apply. With -DEXTERNAL_SYMBOL (the objects
// in external/), one pointer is to a variable the runtime must provide:
// an undefined symbol for the loader's resolver.
// Exported (default visibility), so they appear in .dynsym as variables.
global int launch_counter __attribute__((visibility("default"))) = 7;
global float scale_table[4] __attribute__((visibility("default"))) = {1.0f, 2.0f, 4.0f, 8.0f};
global int *global counter_ptr = &launch_counter;
global float *global scale_ptrs[2] = {&scale_table[0], &scale_table[2]};

#ifdef EXTERNAL_SYMBOL
// Default visibility: an undefined hidden symbol could not be left to the
// loader (amdgcn defaults to hidden).
extern global int runtime_provided_flag __attribute__((visibility("default")));
global int *global flag_ptr = &runtime_provided_flag;
#else
global int local_flag = 1;
global int *global flag_ptr = &local_flag;
#endif

kernel void use_globals(global float *out) {
    size_t i = get_global_id(0);
    __hip_atomic_fetch_add(counter_ptr, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    out[i] = scale_ptrs[i & 1][i & 1] * (float)*flag_ptr;
}
