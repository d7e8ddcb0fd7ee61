// gfx942's loads to LDS (llvm-mc-19 -mcpu=gfx942, code object v5;
// sim/tests/kernels/build.sh), checked by sim/tests/typed_buffer.rs.
//
// global_lds(in, out): a 1 KiB LDS first filled with 0xdeadbeef, then
// copied to out (lane i's dwords at i*4 + 0, 256, 512, 768). Lane i:
//   LDS[0x000 + 4i] = global_load_lds_dword, M0 0, in + 4i;
//   LDS[0x100 + 4i] = global_load_lds_ubyte, M0 0xf8, offset 8 (both
//                     addresses), in + 4i + 8, lanes 16..31 disabled;
//   LDS[0x200 + 4i] = global_load_lds_sshort, M0 0x200, in + 2i;
//   LDS[0x340 + 4i] = global_load_lds_ushort, M0 0x340, in + 2i (lanes
//                     48..63 are past the LDS).
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.amdhsa_code_object_version 5
.text
.globl global_lds
.p2align 8
.type global_lds,@function
global_lds:
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  v_mov_b32 v2, 0xdeadbeef
  ds_write_b32 v1, v2
  ds_write_b32 v1, v2 offset:256
  ds_write_b32 v1, v2 offset:512
  ds_write_b32 v1, v2 offset:768
  s_waitcnt lgkmcnt(0)
  s_mov_b32 m0, 0
  global_load_lds_dword v1, s[4:5]
  s_mov_b32 m0, 0xf8
  s_mov_b64 s[20:21], exec
  s_mov_b32 exec_lo, 0xffff
  global_load_lds_ubyte v1, s[4:5] offset:8
  s_mov_b64 exec, s[20:21]
  v_lshlrev_b32 v3, 1, v0
  s_mov_b32 m0, 0x200
  global_load_lds_sshort v3, s[4:5]
  s_mov_b32 m0, 0x340
  global_load_lds_ushort v3, s[4:5]
  s_waitcnt vmcnt(0)
  ds_read_b32 v4, v1
  ds_read_b32 v5, v1 offset:256
  ds_read_b32 v6, v1 offset:512
  ds_read_b32 v7, v1 offset:768
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v4, s[6:7]
  global_store_dword v1, v5, s[6:7] offset:256
  global_store_dword v1, v6, s[6:7] offset:512
  global_store_dword v1, v7, s[6:7] offset:768
  s_waitcnt vmcnt(0)
  s_endpgm
.Lend:
.size global_lds, .Lend-global_lds

.rodata
.p2align 6
.amdhsa_kernel global_lds
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 24
  .amdhsa_accum_offset 8
  .amdhsa_kernarg_size 16
  .amdhsa_group_segment_fixed_size 1024
.end_amdhsa_kernel

.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: global_lds
    .symbol: global_lds.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 1024
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 24
    .vgpr_count: 8
    .max_flat_workgroup_size: 64
    .args:
      - { .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
...
.end_amdgpu_metadata
