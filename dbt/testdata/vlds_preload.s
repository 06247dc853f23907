.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl k
.p2align 8
.type k,@function
k:
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  s_branch .Lpre
.p2align 8
.Lpre:
  v_lshlrev_b32 v1, 2, v0
  v_add_u32 v2, s4, v0
  ds_write_b32 v1, v2 offset:256
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v3, v1 offset:256
  s_waitcnt lgkmcnt(0)
  v_add_u32 v3, 7, v3
  s_lshl_b32 s5, s4, 8
  v_add_u32 v1, s5, v1
  global_store_dword v1, v3, s[2:3]
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_user_sgpr_kernarg_preload_length 2
  .amdhsa_group_segment_fixed_size 1024
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
