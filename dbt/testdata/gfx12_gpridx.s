// A gfx950 guest (assembled for gfx942, e_flags patched) with gfx9
// VGPR-indexing regions: three of the DST-indexed v_writelane_b32 shape
// the aiter topksoftmax kernels use (index and lane from SGPRs with bits
// above the ones used set, inline index/lane/source operands, two writes
// in one region under a partial EXEC: v_writelane_b32 ignores EXEC; SCC
// set and clear across the regions; M0's unused bits set), then indexed
// v_mov_b32 with SRC0 (v11 = v4), DST under a partial EXEC (v5 = s11 in
// lanes 8-15) and SRC0|DST (v13 = v7). v2..v9 start as lane + 100 * (n -
// 2); the kernel stores them to out + (n - 2) * 256 + lane * 4, SCC and M0
// after the first regions to out + 2048, 2304, 2560, 2816, 3072, and
// v11..v13 to out + 3328, 3584, 3840.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl kidx
.p2align 8
.type kidx,@function
kidx:
  s_load_dwordx2 s[8:9], s[0:1], 0x0
  v_mov_b32 v2, v0
  v_add_u32 v3, 0x64, v0
  v_add_u32 v4, 0xc8, v0
  v_add_u32 v5, 0x12c, v0
  v_add_u32 v6, 0x190, v0
  v_add_u32 v7, 0x1f4, v0
  v_add_u32 v8, 0x258, v0
  v_add_u32 v9, 0x2bc, v0
  s_mov_b32 m0, 0xabcdf7ff
  s_mov_b32 s10, 0x103
  s_mov_b32 s11, 0x11111111
  s_mov_b32 s12, 0x45
  s_mov_b32 s14, 0x2222
  s_cmp_eq_u32 s10, s10
  s_set_gpr_idx_on s10, gpr_idx(DST)
  v_writelane_b32 v2, -5, s12
  s_set_gpr_idx_off
  s_cselect_b32 s20, 1, 0
  s_mov_b32 s21, m0
  s_mov_b64 exec, 15
  s_mov_b32 s13, 1
  s_cmp_eq_u32 s13, 0
  s_set_gpr_idx_on s13, gpr_idx(DST)
  v_writelane_b32 v6, 7, 63
  s_nop 0
  v_writelane_b32 v3, s14, 6
  s_set_gpr_idx_off
  s_cselect_b32 s22, 1, 0
  s_mov_b64 exec, -1
  s_mov_b32 s23, m0
  s_set_gpr_idx_on 0, gpr_idx(DST)
  v_writelane_b32 v9, s11, 0
  s_set_gpr_idx_off
  s_mov_b32 s24, m0
  v_mov_b32 v11, 0
  v_mov_b32 v12, 0
  v_mov_b32 v13, 0
  s_mov_b32 s15, 2
  s_set_gpr_idx_on s15, gpr_idx(SRC0)
  v_mov_b32 v11, v2
  s_set_gpr_idx_off
  s_mov_b64 exec, 0xff00
  s_set_gpr_idx_on s15, gpr_idx(DST)
  v_mov_b32 v3, s11
  s_set_gpr_idx_off
  s_mov_b64 exec, -1
  s_mov_b32 s16, 1
  s_set_gpr_idx_on s16, gpr_idx(SRC0,DST)
  v_mov_b32 v12, v6
  s_set_gpr_idx_off
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[8:9]
  global_store_dword v1, v3, s[8:9] offset:256
  global_store_dword v1, v4, s[8:9] offset:512
  global_store_dword v1, v5, s[8:9] offset:768
  global_store_dword v1, v6, s[8:9] offset:1024
  global_store_dword v1, v7, s[8:9] offset:1280
  global_store_dword v1, v8, s[8:9] offset:1536
  global_store_dword v1, v9, s[8:9] offset:1792
  v_mov_b32 v10, s20
  global_store_dword v1, v10, s[8:9] offset:2048
  v_mov_b32 v10, s21
  global_store_dword v1, v10, s[8:9] offset:2304
  v_mov_b32 v10, s22
  global_store_dword v1, v10, s[8:9] offset:2560
  v_mov_b32 v10, s23
  global_store_dword v1, v10, s[8:9] offset:2816
  v_mov_b32 v10, s24
  global_store_dword v1, v10, s[8:9] offset:3072
  global_store_dword v1, v11, s[8:9] offset:3328
  global_store_dword v1, v12, s[8:9] offset:3584
  global_store_dword v1, v13, s[8:9] offset:3840
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel kidx
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 16
  .amdhsa_next_free_sgpr 32
  .amdhsa_accum_offset 16
.end_amdhsa_kernel
