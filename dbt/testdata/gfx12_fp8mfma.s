// A gfx950 guest (assembled for gfx942, e_flags patched: OCP fp8 on
// gfx950) running v_mfma_f32_16x16x32_fp8_fp8 on lane-dependent powers of
// two (every product and sum exact in f32) with a register C.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl kfp8
.p2align 8
.type kfp8,@function
kfp8:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_and_b32 v1, 7, v0
  s_mov_b32 s2, 0x08080808
  s_mov_b32 s3, 0x08000808
  v_mul_lo_u32 v1, v1, s2
  v_add_u32 v4, 0x38383838, v1
  v_lshrrev_b32 v2, 3, v0
  v_and_b32 v2, 7, v2
  v_mul_lo_u32 v2, v2, s3
  v_add_u32 v5, 0x38383038, v2
  v_add_u32 v6, 0x30384038, v2
  v_add_u32 v7, 0x38303838, v1
  v_cvt_f32_u32 v8, v0
  v_add_f32 v9, 1.0, v8
  v_mul_f32 v10, 2.0, v8
  v_mov_b32 v11, 0.5
  v_mfma_f32_16x16x32_fp8_fp8 v[12:15], v[4:5], v[6:7], v[8:11]
  s_nop 7
  s_nop 7
  v_lshlrev_b32 v16, 4, v0
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v16, v[12:15], s[0:1]
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel kfp8
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 20
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 20
.end_amdhsa_kernel
