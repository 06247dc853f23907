// A gfx950 guest (assembled for gfx942, e_flags patched) whose buffer
// resource descriptors are built with gfx9 word3 constants: two V#s, the
// second word3 a copy of the first; out[lane+1] = in[lane] + 7 for lanes
// 0..62 through raw offen accesses (lane 63's store is past NUM_RECORDS
// and dropped). klds: a buffer load to LDS at M0 + offset + lane * 4,
// read back with ds_read_b32: out[lane] = in[lane + 1] (lane 63's load is
// past NUM_RECORDS: 0).
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl kbuf
.p2align 8
.type kbuf,@function
kbuf:
  s_load_dwordx4 s[8:11], s[0:1], 0x0
  s_mov_b32 s6, 0x100
  s_mov_b32 s7, 0x20000
  s_mov_b32 s15, s7
  s_mov_b32 s14, 0x100
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s4, s8
  s_and_b32 s5, s9, 0xffff
  s_mov_b32 s12, s10
  s_and_b32 s13, s11, 0xffff
  v_lshlrev_b32 v1, 2, v0
  buffer_load_dword v2, v1, s[4:7], 0 offen
  s_waitcnt vmcnt(0)
  v_add_u32 v2, 7, v2
  buffer_store_dword v2, v1, s[12:15], 0 offen offset:4
  s_endpgm
.globl klds
.p2align 8
.type klds,@function
klds:
  s_load_dwordx4 s[8:11], s[0:1], 0x0
  s_mov_b32 s6, 0x100
  s_mov_b32 s7, 0x20000
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s4, s8
  s_and_b32 s5, s9, 0xffff
  s_mov_b32 m0, 0x40
  v_lshlrev_b32 v1, 2, v0
  buffer_load_dword v1, s[4:7], 0 offen offset:4 lds
  s_waitcnt vmcnt(0)
  ds_read_b32 v2, v1 offset:0x44
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[10:11]
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel kbuf
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
.amdhsa_kernel klds
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_group_segment_fixed_size 512
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
