// Kernels of the C tests (cabi/tests/c_programs.rs builds them with
// clang-19 for gfx90a). Work-group size 64 is fixed by the dispatches, so
// the kernels need no hidden arguments.
kernel void vadd(global const float *a, global const float *b, global float *c, uint n) {
    uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
    if (i < n)
        c[i] = a[i] + b[i];
}
