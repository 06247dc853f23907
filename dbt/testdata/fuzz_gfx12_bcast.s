// Seed for FuzzTranslateGFX12 (dbt/gfx12_buffer_test.go): k_bcast of
// gfx12_rules.s alone, so the fuzzer mutates a 2 KB object with DPP
// row_bcast rather than the whole rule suite.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
// DPP row_bcast:15 and row_bcast:31 (no gfx12 control): every third lane
// inactive (so some broadcast sources are inactive), row and bank masks.
.globl k_bcast
.p2align 8
.type k_bcast,@function
k_bcast:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_lshlrev_b32 v7, 4, v0
  v_add_u32 v1, 100, v0
  v_cvt_f32_u32 v6, v1
  v_mov_b32 v2, 7
  v_mov_b32 v3, 7
  v_mov_b32 v4, 7
  v_mov_b32 v5, 7
  v_mul_u32_u24 v8, 0xaaab, v0
  v_lshrrev_b32 v8, 17, v8
  v_mul_u32_u24 v8, 3, v8
  v_cmp_ne_u32 vcc, v8, v0
  s_and_saveexec_b64 s[4:5], vcc
  v_add_u32_dpp v2, v1, v1 row_bcast:15 row_mask:0xf bank_mask:0xf
  v_mov_b32_dpp v3, v1 row_bcast:31 row_mask:0xf bank_mask:0xf
  v_max_f32_dpp v4, v6, v6 row_bcast:15 row_mask:0xa bank_mask:0x5
  v_add_f32_dpp v5, -v6, v6 row_bcast:31 row_mask:0xc bank_mask:0xe
  v_add_u32_dpp v1, v1, v1 row_bcast:15 row_mask:0xf bank_mask:0xf
  s_or_b64 exec, exec, s[4:5]
  v_add_u32 v2, v2, v1
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v7, v[2:5], s[0:1]
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel k_bcast
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 9
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 12
.end_amdhsa_kernel
