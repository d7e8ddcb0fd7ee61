#include "amdgcn.h"

__attribute__((reqd_work_group_size(256, 1, 1)))
kernel void saxpy(float a, global const float *x, global float *y, int n) {
    int i = (int)get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}

__attribute__((work_group_size_hint(64, 4, 1))) __attribute__((vec_type_hint(double2)))
kernel void daxpy2(double2 a, global const double2 *x, global double2 *y) {
    size_t i = get_global_id(0) + get_global_id(1) * get_global_size(0);
    y[i] = a * x[i] + y[i];
}
