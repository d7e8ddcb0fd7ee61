// A kernel that traps and a trap handler for it, in GFX9 assembly (llvm-mc-19,
// gfx90a, code object v5; sim/tests/kernels/build.sh). sim/tests/shader.rs
// installs trap_handler with SET_TRAP_HANDLER (its TBA is the kernel's entry
// + 0x100, which build.sh checks) and checks what it recorded.
//
// trap_kernel: s4 = 0x1234, s_trap 2, then out[0] = s4 (the wave resumed
// after the s_trap with its registers intact).
.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
.amdhsa_code_object_version 5
.text
.globl trap_kernel
.p2align 8
.type trap_kernel,@function
trap_kernel:
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  s_mov_b32 s4, 0x1234
  s_waitcnt lgkmcnt(0)
  s_trap 2
  v_mov_b32 v1, s4
  v_mov_b32 v2, 0
  global_store_dword v2, v1, s[2:3]
  s_endpgm
.Lkernel_end:
.size trap_kernel, .Lkernel_end-trap_kernel

// The second-level trap handler as KFD's first level enters it on GFX9:
// ttmp1:ttmp0 = the s_trap's PC with the trap id in ttmp1[23:16],
// ttmp[14:15] = TMA. Records TMA[0] = ttmp1, TMA[1] = ttmp0 and counts the
// traps in TMA[2], then returns past the s_trap.
.p2align 8
.globl trap_handler
.type trap_handler,@function
trap_handler:
  s_store_dword ttmp1, ttmp[14:15], 0x0 glc
  s_store_dword ttmp0, ttmp[14:15], 0x4 glc
  s_mov_b32 ttmp4, 1
  s_atomic_add ttmp4, ttmp[14:15], 0x8
  s_waitcnt lgkmcnt(0)
  s_add_u32 ttmp0, ttmp0, 4
  s_addc_u32 ttmp1, ttmp1, 0
  s_and_b32 ttmp1, ttmp1, 0xffff
  s_rfe_b64 ttmp[0:1]
.Lhandler_end:
.size trap_handler, .Lhandler_end-trap_handler

// A second handler, for the trap temporaries the SPI sets up at wave
// launch (sim/tests/shader.rs installs it after enabling the runtime with or
// without KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK; it sits at trap_kernel's
// entry + 0x200, which build.sh checks): TMA[0] counts the traps; trap n
// (the count before it) records ttmp6, ttmp8, ttmp9, ttmp10 and ttmp11 at
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
.Lttmp_handler_end:
.size ttmp_handler, .Lttmp_handler_end-ttmp_handler

.rodata
.p2align 6
.amdhsa_kernel trap_kernel
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 3
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 4
  .amdhsa_kernarg_size 8
.end_amdhsa_kernel

.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: trap_kernel
    .symbol: trap_kernel.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 8
    .vgpr_count: 3
    .max_flat_workgroup_size: 256
    .args:
      - .name: out
        .offset: 0
        .size: 8
        .value_kind: global_buffer
        .address_space: global
...
.end_amdgpu_metadata
