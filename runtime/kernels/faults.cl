// Kernels that stop their queue, for runtime/tests/queue_events.rs.
// Built by build-faults.sh (clang-19, gfx90a, code object v5); faults.co is
// committed with this source and that script.
#include "amdgcn.h"

// llvm.trap: s_trap 2. The queue stops with the trap code.
kernel void trap_now(void) { __builtin_trap(); }

// llvm.debugtrap: s_trap 3. With no debugger the trap handler steps over it
// and the kernel runs on: each work-item stores its id + 1 after the trap.
kernel void debugtrap_then_store(global uint *out) {
    uint i = get_global_id(0);
    __builtin_debugtrap();
    out[i] = i + 1;
}

// A word that is no GFX9 instruction (llvm-mc-19: "invalid instruction
// encoding"): the queue stops with the illegal-instruction code.
kernel void illegal(void) { __asm__ volatile(".long 0xffffffff"); }

// Stores to the address given by value (no buffer): an unmapped one is a
// memory fault at that address (`hsa run ... --arg u64:ADDRESS`).
kernel void store_at(ulong address) { *(global uint *)address = 1; }
