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
// The other kernels are described where they start.
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

// typed_d16(rin, rout, rst, rsrc): the d16 forms. Work-item i:
//   out[i*8 + 0..2] = buffer_load_format_d16_xyzw at index i through rin;
//   out[i*8 + 2]    = buffer_load_format_d16_hi_x over 0x1234 (low kept);
//   out[i*8 + 3]    = buffer_load_format_d16_x over 0xabcd0000 (high kept);
//   out[i*8 + 4..6] = buffer_load_format_d16_xyz, v7 was 0x77770000;
//   out[i*8 + 6]    = tbuffer_load_format_d16_xy, format 16_16 FLOAT;
//   the two dwords at src[i*8] are stored with buffer_store_format_d16_xyzw
//   at index i through rst, and the high half of the first with
//   buffer_store_format_d16_hi_x at index i + 64.
.globl typed_d16
.p2align 8
.type typed_d16,@function
typed_d16:
  s_load_dwordx16 s[4:19], s[0:1], 0x0
  v_mov_b32 v4, 0x1234
  v_mov_b32 v5, 0xabcd0000
  v_mov_b32 v7, 0x77770000
  s_waitcnt lgkmcnt(0)
  buffer_load_format_d16_xyzw v[2:3], v0, s[4:7], 0 idxen
  buffer_load_format_d16_hi_x v4, v0, s[4:7], 0 idxen
  buffer_load_format_d16_x v5, v0, s[4:7], 0 idxen
  buffer_load_format_d16_xyz v[6:7], v0, s[4:7], 0 idxen
  tbuffer_load_format_d16_xy v8, v0, s[4:7], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_FLOAT] idxen
  v_lshlrev_b32 v9, 5, v0
  s_waitcnt vmcnt(0)
  buffer_store_dwordx4 v[2:5], v9, s[8:11], 0 offen
  buffer_store_dwordx3 v[6:8], v9, s[8:11], 0 offen offset:16
  v_lshlrev_b32 v10, 3, v0
  buffer_load_dwordx2 v[12:13], v10, s[16:19], 0 offen
  s_waitcnt vmcnt(0)
  buffer_store_format_d16_xyzw v[12:13], v0, s[12:15], 0 idxen
  v_add_u32 v14, 64, v0
  buffer_store_format_d16_hi_x v12, v14, s[12:15], 0 idxen
  s_waitcnt vmcnt(0)
  s_endpgm
.Lend2:
.size typed_d16, .Lend2-typed_d16

// lds_forms(rin, rout, rfmt): the MUBUF lds forms into a 1 KiB LDS first
// filled with 0xdeadbeef, then copied to rout (lane i's dwords at i*4 +
// 0, 256, 512, 768). Lane i:
//   LDS[0x000 + 4i] = buffer_load_dword lds, M0 0, offset 4i through rin;
//   LDS[0x100 + 4i] = buffer_load_ubyte lds, M0 0xf8, instruction offset 8
//                     (both addresses), offset 4i, lanes 16..31 disabled;
//   LDS[0x200 + 4i] = buffer_load_sshort lds, M0 0x200, offset 2i;
//   LDS[0x340 + 4i] = buffer_load_format_x lds at index i through rfmt
//                     (lanes 48..63 are past the LDS).
.globl lds_forms
.p2align 8
.type lds_forms,@function
lds_forms:
  s_load_dwordx8 s[4:11], s[0:1], 0x0
  s_load_dwordx4 s[12:15], s[0:1], 0x20
  v_lshlrev_b32 v1, 2, v0
  v_mov_b32 v2, 0xdeadbeef
  ds_write_b32 v1, v2
  ds_write_b32 v1, v2 offset:256
  ds_write_b32 v1, v2 offset:512
  ds_write_b32 v1, v2 offset:768
  s_waitcnt lgkmcnt(0)
  s_mov_b32 m0, 0
  buffer_load_dword v1, s[4:7], 0 offen lds
  s_mov_b32 m0, 0xf8
  s_mov_b64 s[20:21], exec
  s_mov_b32 exec_lo, 0xffff
  buffer_load_ubyte v1, s[4:7], 0 offen offset:8 lds
  s_mov_b64 exec, s[20:21]
  v_lshlrev_b32 v3, 1, v0
  s_mov_b32 m0, 0x200
  buffer_load_sshort v3, s[4:7], 0 offen lds
  s_mov_b32 m0, 0x340
  buffer_load_format_x v0, s[12:15], 0 idxen lds
  s_waitcnt vmcnt(0)
  ds_read_b32 v4, v1
  ds_read_b32 v5, v1 offset:256
  ds_read_b32 v6, v1 offset:512
  ds_read_b32 v7, v1 offset:768
  s_waitcnt lgkmcnt(0)
  buffer_store_dword v4, v1, s[8:11], 0 offen
  buffer_store_dword v5, v1, s[8:11], 0 offen offset:256
  buffer_store_dword v6, v1, s[8:11], 0 offen offset:512
  buffer_store_dword v7, v1, s[8:11], 0 offen offset:768
  s_waitcnt vmcnt(0)
  s_endpgm
.Lend3:
.size lds_forms, .Lend3-lds_forms

// gds_add: ds_add_u32 v1, v2 gds as gfx900 encodes it (word 0 bit 16);
// llvm-mc-19 has no gds bit for gfx90a, and gfx90a has no GDS memory.
.globl gds_add
.p2align 8
.type gds_add,@function
gds_add:
  v_mov_b32 v1, 0
  v_mov_b32 v2, 1
  .long 0xd8010000, 0x00000201
  s_endpgm
.Lend4:
.size gds_add, .Lend4-gds_add

// gws_init: a global wave sync operation.
.globl gws_init
.p2align 8
.type gws_init,@function
gws_init:
  v_mov_b32 v2, 0
  s_mov_b32 m0, 0
  ds_gws_init v2 gds
  s_endpgm
.Lend5:
.size gws_init, .Lend5-gws_init

// lds_store(rout): LDS dword k = k * 3 + 7 (the first 128), then
// buffer_store_lds_dword with M0 0x40 and offset 4 through rout (a V# with
// ADD_TID_ENABLE, stride 4): lane i stores LDS[0x44 + 4i] at rout + 4i + 4.
.globl lds_store
.p2align 8
.type lds_store,@function
lds_store:
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  v_mad_u32_u24 v2, v0, 3, 7
  ds_write_b32 v1, v2
  v_add_u32 v3, 64, v0
  v_mad_u32_u24 v2, v3, 3, 7
  ds_write_b32 v1, v2 offset:256
  s_waitcnt lgkmcnt(0)
  s_mov_b32 m0, 0x40
  buffer_store_lds_dword s[4:7], 0 offset:4 lds
  s_waitcnt vmcnt(0)
  s_endpgm
.Lend6:
.size lds_store, .Lend6-lds_store

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
.amdhsa_kernel typed_d16
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 16
  .amdhsa_next_free_sgpr 20
  .amdhsa_accum_offset 16
  .amdhsa_kernarg_size 64
.end_amdhsa_kernel

.p2align 6
.amdhsa_kernel lds_forms
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 24
  .amdhsa_accum_offset 8
  .amdhsa_kernarg_size 48
  .amdhsa_group_segment_fixed_size 1024
.end_amdhsa_kernel

.p2align 6
.amdhsa_kernel gds_add
  .amdhsa_next_free_vgpr 4
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 4
.end_amdhsa_kernel

.p2align 6
.amdhsa_kernel gws_init
  .amdhsa_next_free_vgpr 4
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 4
.end_amdhsa_kernel

.p2align 6
.amdhsa_kernel lds_store
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 4
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 4
  .amdhsa_kernarg_size 16
  .amdhsa_group_segment_fixed_size 512
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
  - .name: typed_d16
    .symbol: typed_d16.kd
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
  - .name: lds_forms
    .symbol: lds_forms.kd
    .kernarg_segment_size: 48
    .kernarg_segment_align: 16
    .group_segment_fixed_size: 1024
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 24
    .vgpr_count: 8
    .max_flat_workgroup_size: 64
    .args:
      - { .name: rin, .offset: 0, .size: 16, .value_kind: by_value }
      - { .name: rout, .offset: 16, .size: 16, .value_kind: by_value }
      - { .name: rfmt, .offset: 32, .size: 16, .value_kind: by_value }
  - .name: gds_add
    .symbol: gds_add.kd
    .kernarg_segment_size: 0
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 8
    .vgpr_count: 4
    .max_flat_workgroup_size: 64
  - .name: gws_init
    .symbol: gws_init.kd
    .kernarg_segment_size: 0
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 8
    .vgpr_count: 4
    .max_flat_workgroup_size: 64
  - .name: lds_store
    .symbol: lds_store.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 16
    .group_segment_fixed_size: 512
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 8
    .vgpr_count: 4
    .max_flat_workgroup_size: 64
    .args:
      - { .name: rout, .offset: 0, .size: 16, .value_kind: by_value }
...
.end_amdgpu_metadata
