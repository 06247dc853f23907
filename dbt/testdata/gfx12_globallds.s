// A gfx950 guest with global_load_lds_dword (saddr form, positive offset,
// and vaddr-only form with a negative offset): each lane reads its LDS
// slots back and stores them.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl kglds
.p2align 8
.type kglds,@function
kglds:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  v_add_u32 v3, 1000, v0
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v3, s[0:1]
  s_waitcnt vmcnt(0)
  s_mov_b32 m0, 0x100
  global_load_lds_dword v1, s[0:1] offset:4
  v_mov_b32 v5, s1
  v_add_co_u32 v4, vcc, s0, v1
  v_addc_co_u32 v5, vcc, 0, v5, vcc
  v_add_co_u32 v4, vcc, 0x10, v4
  v_addc_co_u32 v5, vcc, 0, v5, vcc
  s_mov_b32 m0, 0x300
  global_load_lds_dword v[4:5], off offset:-8
  s_waitcnt vmcnt(0)
  ds_read_b32 v6, v1 offset:0x104
  ds_read_b32 v7, v1 offset:0x2f8
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v8, 3, v0
  v_add_u32 v8, 0x400, v8
  global_store_dwordx2 v8, v[6:7], s[0:1]
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel kglds
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_group_segment_fixed_size 1024
  .amdhsa_next_free_vgpr 12
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 12
.end_amdhsa_kernel
