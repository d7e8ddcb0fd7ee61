// Typed buffer accesses in GFX9 assembly (llvm-mc-19, gfx90a, code object
// v5; sim/tests/kernels/build.sh), checked by sim/tests/shader.rs against a
// Rust reference of the formats.
//
// typed_buffer(rin, rout, rst, rsrc): four V#s by value (64 bytes of
// kernarg). Work-item i (one wave):
//   out[i*32 +  0..16] = buffer_load_format_xyzw at index i through rin
//                        (format from rin's DATA_FORMAT / NUM_FORMAT);
//   out[i*32 + 16..24] = tbuffer_load_format_xy at index i through rin,
//                        format 16_16 FLOAT (from the instruction);
//   the four dwords at src[i*16] (through rsrc, raw) are stored with
//   buffer_store_format_xyzw at index i through rst (its format).
.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
.amdhsa_code_object_version 5
.text
.globl typed_buffer
.p2align 8
.type typed_buffer,@function
typed_buffer:
  s_load_dwordx16 s[4:19], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  buffer_load_format_xyzw v[2:5], v0, s[4:7], 0 idxen
  tbuffer_load_format_xy v[6:7], v0, s[4:7], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_FLOAT] idxen
  v_lshlrev_b32 v9, 5, v0
  s_waitcnt vmcnt(0)
  buffer_store_dwordx4 v[2:5], v9, s[8:11], 0 offen
  buffer_store_dwordx2 v[6:7], v9, s[8:11], 0 offen offset:16
  v_lshlrev_b32 v10, 4, v0
  buffer_load_dwordx4 v[12:15], v10, s[16:19], 0 offen
  s_waitcnt vmcnt(0)
  buffer_store_format_xyzw v[12:15], v0, s[12:15], 0 idxen
  s_waitcnt vmcnt(0)
  s_endpgm
.Lend:
.size typed_buffer, .Lend-typed_buffer

// lds_load(rin): buffer_load_dword's lds form (not implemented by the sim:
// an illegal-instruction fault, never the plain load).
.globl lds_load
.p2align 8
.type lds_load,@function
lds_load:
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  s_mov_b32 m0, 0
  s_waitcnt lgkmcnt(0)
  buffer_load_dword v1, s[4:7], 0 offen lds
  s_waitcnt vmcnt(0)
  s_endpgm
.Lend2:
.size lds_load, .Lend2-lds_load

.rodata
.p2align 6
.amdhsa_kernel typed_buffer
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 16
  .amdhsa_next_free_sgpr 20
  .amdhsa_accum_offset 16
  .amdhsa_kernarg_size 64
.end_amdhsa_kernel

.p2align 6
.amdhsa_kernel lds_load
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 2
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 4
  .amdhsa_kernarg_size 16
  .amdhsa_group_segment_fixed_size 256
.end_amdhsa_kernel

.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: typed_buffer
    .symbol: typed_buffer.kd
    .kernarg_segment_size: 64
    .kernarg_segment_align: 16
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 20
    .vgpr_count: 16
    .max_flat_workgroup_size: 64
    .args:
      - { .name: rin, .offset: 0, .size: 16, .value_kind: by_value }
      - { .name: rout, .offset: 16, .size: 16, .value_kind: by_value }
      - { .name: rst, .offset: 32, .size: 16, .value_kind: by_value }
      - { .name: rsrc, .offset: 48, .size: 16, .value_kind: by_value }
  - .name: lds_load
    .symbol: lds_load.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 16
    .group_segment_fixed_size: 256
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 8
    .vgpr_count: 2
    .max_flat_workgroup_size: 64
    .args:
      - { .name: rin, .offset: 0, .size: 16, .value_kind: by_value }
...
.end_amdgpu_metadata
