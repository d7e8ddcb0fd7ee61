// A kernel that runs until the host lets it go: every work-item raises
// flags[0], then spins until flags[1] is not 0. Tests destroy its queue
// while it runs (DESTROY_QUEUE preempts it) or release it.
#include "amdgcn.h"

kernel void spin_until_released(global uint *flags) {
    __hip_atomic_store(&flags[0], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    while (__hip_atomic_load(&flags[1], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT) == 0)
        ;
}
