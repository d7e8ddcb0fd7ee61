// The trap temporaries the SPI sets up at wave launch, read by a trap
// handler (GFX9 assembly, llvm-mc-19, gfx90a, code object v5;
// sim/tests/kernels/build.sh). sim/tests/shader.rs installs ttmp_handler
// with SET_TRAP_HANDLER (its TBA is ttmp_kernel's entry + 0x100, which
// build.sh checks) after enabling the runtime with or without
// KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK, and checks what it recorded.
//
// ttmp_kernel: every wave executes s_trap 3 (llvm.debugtrap) and ends.
.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
.amdhsa_code_object_version 5
.text
.globl ttmp_kernel
.p2align 8
.type ttmp_kernel,@function
ttmp_kernel:
  s_trap 3
  s_endpgm
.Lkernel_end:
.size ttmp_kernel, .Lkernel_end-ttmp_kernel

// The second-level trap handler: TMA[0] counts the traps; trap n (the
// count before it) records ttmp6, ttmp8, ttmp9, ttmp10 and ttmp11 at
// TMA + 16 + 20 * n, then the wave returns past its s_trap.
.p2align 8
.globl ttmp_handler
.type ttmp_handler,@function
ttmp_handler:
  s_mov_b32 ttmp4, 1
  s_atomic_add ttmp4, ttmp[14:15], 0x0 glc
  s_waitcnt lgkmcnt(0)
  s_mul_i32 ttmp4, ttmp4, 20
  s_add_u32 ttmp2, ttmp14, ttmp4
  s_addc_u32 ttmp3, ttmp15, 0
  s_store_dword ttmp6, ttmp[2:3], 0x10 glc
  s_store_dword ttmp8, ttmp[2:3], 0x14 glc
  s_store_dword ttmp9, ttmp[2:3], 0x18 glc
  s_store_dword ttmp10, ttmp[2:3], 0x1c glc
  s_store_dword ttmp11, ttmp[2:3], 0x20 glc
  s_waitcnt lgkmcnt(0)
  s_add_u32 ttmp0, ttmp0, 4
  s_addc_u32 ttmp1, ttmp1, 0
  s_and_b32 ttmp1, ttmp1, 0xffff
  s_rfe_b64 ttmp[0:1]
.Lhandler_end:
.size ttmp_handler, .Lhandler_end-ttmp_handler

.rodata
.p2align 6
.amdhsa_kernel ttmp_kernel
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 1
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 4
  .amdhsa_kernarg_size 8
.end_amdhsa_kernel

.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: ttmp_kernel
    .symbol: ttmp_kernel.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 8
    .vgpr_count: 1
    .max_flat_workgroup_size: 256
    .args:
      - .name: unused
        .offset: 0
        .size: 8
        .value_kind: global_buffer
        .address_space: global
...
.end_amdgpu_metadata
