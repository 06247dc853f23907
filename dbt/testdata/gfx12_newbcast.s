// A gfx950 guest using DPP row_newbcast (gfx90a+): v2 = lane 5 of the
// lane's row; v3 = lane 15 of the row + the lane's own value in rows 0 and
// 2 (row_mask 0x5), 7 elsewhere; v4 = lane 0 of the row + the lane (f32).
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl knb
.p2align 8
.type knb,@function
knb:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_add_u32 v1, 100, v0
  v_mov_b32 v3, 7
  v_mov_b32_dpp v2, v1 row_newbcast:5 row_mask:0xf bank_mask:0xf
  v_add_u32_dpp v3, v1, v1 row_newbcast:15 row_mask:0x5 bank_mask:0xf
  v_cvt_f32_u32 v5, v1
  v_add_f32_dpp v4, v5, v5 row_newbcast:0 row_mask:0xf bank_mask:0xf
  v_lshlrev_b32 v6, 4, v0
  s_waitcnt lgkmcnt(0)
  global_store_dwordx3 v6, v[2:4], s[0:1]
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel knb
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
