// Guests for the gfx950 -> gfx12 rule differential tests (dbt/gfx12_test.go):
// each kernel takes one output pointer and writes per-lane results that the
// test compares between the guest on the simulated gfx950 agent and its
// translation on the simulated gfx1201 agent.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text

// ds_cmpst_rtn_b32 (data0 = compare, data1 = new on gfx9): even lanes
// match, odd lanes do not.
.globl k_cmpst
.p2align 8
.type k_cmpst,@function
k_cmpst:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  ds_write_b32 v1, v0
  v_and_b32 v2, 1, v0
  v_mov_b32 v3, 999
  v_cmp_eq_u32 vcc, 0, v2
  v_cndmask_b32 v3, v3, v0, vcc
  v_add_u32 v4, 100, v0
  s_waitcnt lgkmcnt(0)
  ds_cmpst_rtn_b32 v6, v1, v3, v4
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v7, v1
  v_lshlrev_b32 v8, 3, v0
  s_waitcnt lgkmcnt(0)
  global_store_dwordx2 v8, v[6:7], s[0:1]
  s_endpgm

// Packed f32 with op_sel / op_sel_hi / neg_lo and a destination that is
// also a source.
.globl k_pk
.p2align 8
.type k_pk,@function
k_pk:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_cvt_f32_u32 v2, v0
  v_add_f32 v3, 0.5, v2
  v_mul_f32 v4, 2.0, v2
  v_sub_f32 v5, 1.0, v2
  v_mov_b32 v6, 1.0
  v_mov_b32 v7, -2.0
  v_pk_fma_f32 v[8:9], v[2:3], v[4:5], v[6:7]
  v_pk_mul_f32 v[10:11], v[2:3], v[4:5] op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[1,0]
  v_pk_add_f32 v[2:3], v[2:3], v[4:5] op_sel_hi:[1,0]
  v_lshlrev_b32 v12, 5, v0
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v12, v[8:11], s[0:1]
  global_store_dwordx2 v12, v[2:3], s[0:1] offset:16
  s_endpgm

// v_mov_b64, s_cmpk compares
// (unsigned and signed immediates), AGPR moves.
.globl k_mov
.p2align 8
.type k_mov,@function
k_mov:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_add_u32 v1, 7, v0
  v_add_u32 v2, 9, v0
  v_mov_b64 v[2:3], v[0:1]
  s_movk_i32 s4, 0x7fff
  s_cmpk_gt_u32 s4, 0x10
  s_cselect_b32 s5, 5, 6
  s_cmpk_lt_i32 s4, 0xfffb
  s_cselect_b32 s6, 7, 8
  v_mov_b32 v4, s5
  v_mov_b32 v5, s6
  v_accvgpr_write_b32 a0, v0
  v_accvgpr_mov_b32 a1, a0
  v_accvgpr_read_b32 v6, a1
  v_add_u32 v5, v5, v6
  v_lshlrev_b32 v7, 4, v0
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v7, v[2:5], s[0:1]
  s_endpgm

// A bf16 MFMA with register C (small integers: exact in any order).
.globl k_mfma
.p2align 8
.type k_mfma,@function
k_mfma:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_and_b32 v10, 7, v0
  v_cvt_f32_u32 v10, v10
  v_and_b32 v2, 0xffff0000, v10
  v_lshrrev_b32 v11, 16, v10
  v_or_b32 v2, v2, v11
  v_mov_b32 v3, 0x3f803f80
  v_mov_b32 v4, 0x40004000
  v_mov_b32 v5, v2
  v_cvt_f32_u32 v6, v0
  v_add_f32 v7, 1.0, v6
  v_add_f32 v8, 2.0, v6
  v_add_f32 v9, 4.0, v6
  v_accvgpr_write_b32 a0, v6
  v_accvgpr_write_b32 a1, v7
  v_accvgpr_write_b32 a2, v8
  v_accvgpr_write_b32 a3, v9
  s_nop 2
  v_mfma_f32_16x16x16_bf16 a[4:7], v[2:3], v[4:5], a[0:3]
  s_nop 7
  s_nop 3
  v_lshlrev_b32 v12, 4, v0
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v12, a[4:7], s[0:1]
  s_endpgm

// A 32x32x8 bf16 MFMA with C in AGPRs (small integers).
.globl k_mfma32
.p2align 8
.type k_mfma32,@function
k_mfma32:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_and_b32 v10, 7, v0
  v_cvt_f32_u32 v10, v10
  v_and_b32 v2, 0xffff0000, v10
  v_lshrrev_b32 v11, 16, v10
  v_or_b32 v2, v2, v11
  v_mov_b32 v3, 0x3f804000
  v_mov_b32 v4, 0x40003f80
  v_mov_b32 v5, v2
  v_cvt_f32_u32 v6, v0
  v_accvgpr_write_b32 a0, v6
  v_accvgpr_write_b32 a1, 1.0
  v_accvgpr_write_b32 a2, 2.0
  v_accvgpr_write_b32 a3, v6
  v_accvgpr_write_b32 a4, 4.0
  v_accvgpr_write_b32 a5, v6
  v_accvgpr_write_b32 a6, 0.5
  v_accvgpr_write_b32 a7, v6
  v_accvgpr_write_b32 a8, v6
  v_accvgpr_write_b32 a9, -1.0
  v_accvgpr_write_b32 a10, v6
  v_accvgpr_write_b32 a11, 1.0
  v_accvgpr_write_b32 a12, v6
  v_accvgpr_write_b32 a13, v6
  v_accvgpr_write_b32 a14, -2.0
  v_accvgpr_write_b32 a15, v6
  s_nop 2
  v_mfma_f32_32x32x8_bf16 a[0:15], v[2:3], v[4:5], a[0:15]
  s_nop 7
  s_nop 7
  s_nop 3
  v_lshlrev_b32 v12, 6, v0
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v12, a[0:3], s[0:1]
  global_store_dwordx4 v12, a[4:7], s[0:1] offset:16
  global_store_dwordx4 v12, a[8:11], s[0:1] offset:32
  global_store_dwordx4 v12, a[12:15], s[0:1] offset:48
  s_endpgm

// v_cmpx (EXEC and VCC / SGPR destination on gfx9) in e32 and e64 forms.
.globl k_cmpx
.p2align 8
.type k_cmpx,@function
k_cmpx:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_mov_b32 v1, 5
  v_lshlrev_b32 v2, 2, v0
  v_and_b32 v3, 3, v0
  s_mov_b64 s[4:5], exec
  v_cmpx_gt_u32_e32 vcc, 2, v3
  v_mov_b32 v1, 7
  v_cmpx_eq_u32_e64 s[6:7], 0, v3
  v_mov_b32 v1, 9
  s_mov_b64 exec, s[4:5]
  v_cndmask_b32_e64 v4, 0, 1, vcc
  v_cndmask_b32_e64 v5, 0, 1, s[6:7]
  s_waitcnt lgkmcnt(0)
  global_store_dword v2, v1, s[0:1]
  global_store_dword v2, v4, s[0:1] offset:256
  global_store_dword v2, v5, s[0:1] offset:512
  s_endpgm

// HW_REG_MODE round/denorm fields: read, then flush f32 denormals.
.globl k_mode
.p2align 8
.type k_mode,@function
k_mode:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  s_getreg_b32 s2, hwreg(HW_REG_MODE, 0, 8)
  v_mov_b32 v1, s2
  v_lshlrev_b32 v2, 2, v0
  v_mov_b32 v3, 0x00400000
  v_add_f32 v4, v3, v3
  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0
  v_add_f32 v5, v3, v3
  s_waitcnt lgkmcnt(0)
  global_store_dword v2, v1, s[0:1]
  global_store_dword v2, v4, s[0:1] offset:256
  global_store_dword v2, v5, s[0:1] offset:512
  s_endpgm

// DPP controls shared by gfx9 and gfx12 (quad_perm, row_shr with and
// without bound_ctrl, row_mirror, row_half_mirror with row/bank masks)
// under a partial EXEC.
.globl k_dpp
.p2align 8
.type k_dpp,@function
k_dpp:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_lshlrev_b32 v7, 4, v0
  v_add_u32 v1, 100, v0
  v_mov_b32 v2, 7
  v_mov_b32 v3, 7
  v_mov_b32 v4, 7
  v_mov_b32 v5, 7
  v_mul_u32_u24 v6, 0xaaab, v0
  v_lshrrev_b32 v6, 17, v6
  v_mul_u32_u24 v6, 3, v6
  v_cmp_ne_u32 vcc, v6, v0
  s_and_saveexec_b64 s[4:5], vcc
  v_add_u32_dpp v2, v1, v1 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf
  v_mov_b32_dpp v3, v1 row_shr:1 row_mask:0xf bank_mask:0xf
  v_mov_b32_dpp v4, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0
  v_mov_b32_dpp v5, v1 row_mirror row_mask:0xf bank_mask:0xf
  v_add_f32_dpp v4, v1, v4 row_half_mirror row_mask:0xa bank_mask:0x5
  s_or_b64 exec, exec, s[4:5]
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v7, v[2:5], s[0:1]
  s_endpgm

// f64 atomic add (no gfx12 opcode): contended slots (lane % 4; integer
// sums are exact in any order), per-lane slots added twice, the second
// add returning the first one's result.
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

// f64 atomic min/max (no gfx12 opcodes): contended slots and a returning
// form; the values straddle zero.
.globl k_amm64
.p2align 8
.type k_amm64,@function
k_amm64:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_subrev_u32 v1, 20, v0
  v_cvt_f64_i32 v[2:3], v1
  v_and_b32 v4, 3, v0
  v_lshlrev_b32 v4, 3, v4
  v_add_u32 v5, 32, v4
  v_lshlrev_b32 v8, 3, v0
  v_add_u32 v8, 64, v8
  s_waitcnt lgkmcnt(0)
  global_atomic_min_f64 v4, v[2:3], s[0:1]
  global_atomic_max_f64 v5, v[2:3], s[0:1]
  global_atomic_max_f64 v[6:7], v8, v[2:3], s[0:1] sc0
  s_waitcnt vmcnt(0)
  v_add_u32 v8, 0x200, v8
  global_store_dwordx2 v8, v[6:7], s[0:1]
  s_endpgm

.globl k_af64
.p2align 8
.type k_af64,@function
k_af64:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_cvt_f64_u32 v[2:3], v0
  v_and_b32 v4, 3, v0
  v_lshlrev_b32 v4, 3, v4
  v_lshlrev_b32 v5, 3, v0
  v_add_u32 v5, 64, v5
  v_add_u32 v8, 0x240, v5
  s_waitcnt lgkmcnt(0)
  global_atomic_add_f64 v4, v[2:3], s[0:1]
  global_atomic_add_f64 v5, v[2:3], s[0:1]
  global_atomic_add_f64 v[6:7], v5, v[2:3], s[0:1] sc0
  s_waitcnt vmcnt(0)
  global_store_dwordx2 v8, v[6:7], s[0:1]
  s_endpgm

// LDS f64 atomic add (no gfx12 opcode): contended and returning.
.globl k_dsf64
.p2align 8
.type k_dsf64,@function
k_dsf64:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_mov_b32 v6, 0
  v_mov_b32 v7, 0
  v_lshlrev_b32 v5, 3, v0
  ds_write_b64 v5, v[6:7]
  v_cvt_f64_u32 v[2:3], v0
  v_and_b32 v4, 3, v0
  v_lshlrev_b32 v4, 3, v4
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_add_f64 v4, v[2:3] offset:512
  ds_add_f64 v5, v[2:3]
  ds_add_rtn_f64 v[6:7], v5, v[2:3]
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_read_b64 v[8:9], v4 offset:512
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v10, 4, v0
  global_store_dwordx4 v10, v[6:9], s[0:1]
  s_endpgm

// gfx950 v_mfma_i32_16x16x64_i8 (raw words from LLVM's gfx950 MC tests:
// v[12:15], v[4:7], v[8:11], v[16:19]) with signed bytes of every range.
.globl k_mfmai8
.p2align 8
.type k_mfmai8,@function
k_mfmai8:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  s_mov_b32 s2, 0x01030507
  v_mul_lo_u32 v4, v0, s2
  v_xor_b32 v4, 0x80c0e0f0, v4
  v_not_b32 v5, v4
  s_mov_b32 s2, 0x11111111
  v_mul_lo_u32 v6, v0, s2
  v_mov_b32 v7, 0x7f80ff01
  s_mov_b32 s2, 0x0f1e2d3c
  v_mul_lo_u32 v8, v0, s2
  v_xor_b32 v9, v4, v6
  v_mov_b32 v10, 0x81818181
  v_xor_b32 v11, 0x55aa55aa, v0
  v_mul_u32_u24 v16, 7, v0
  v_mul_i32_i24 v17, -3, v0
  v_mov_b32 v18, 1000
  v_sub_u32 v19, 0, v0
  s_nop 4
  .long 0xd3b6000c, 0x04421104
  s_nop 7
  s_nop 7
  v_lshlrev_b32 v20, 4, v0
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v20, v[12:15], s[0:1]
  s_endpgm

// Kernarg preload (the pointer in s[2:3]) with no loading code at the
// entry, and workgroup ids X (s4) and Y (s5).
.globl k_pre
.p2align 8
.type k_pre,@function
k_pre:
  s_branch .Lpre
.p2align 8
.Lpre:
  s_mul_i32 s6, s4, 1000
  s_mul_i32 s7, s5, 7
  s_add_u32 s6, s6, s7
  v_add_u32 v1, s6, v0
  s_lshl_b32 s8, s5, 1
  s_add_u32 s8, s8, s4
  s_lshl_b32 s8, s8, 8
  v_lshlrev_b32 v2, 2, v0
  v_add_u32 v2, s8, v2
  global_store_dword v2, v1, s[2:3]
  s_endpgm

.rodata
.p2align 6
.amdhsa_kernel k_cmpst
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_group_segment_fixed_size 256
  .amdhsa_next_free_vgpr 12
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 12
.end_amdhsa_kernel
.amdhsa_kernel k_pk
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 16
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 16
.end_amdhsa_kernel
.amdhsa_kernel k_mov
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 16
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
.amdhsa_kernel k_mfma
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 24
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 16
.end_amdhsa_kernel
.amdhsa_kernel k_mfma32
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 32
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 16
.end_amdhsa_kernel
.amdhsa_kernel k_cmpx
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
.amdhsa_kernel k_mode
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
.amdhsa_kernel k_dpp
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
.amdhsa_kernel k_bcast
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 9
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 12
.end_amdhsa_kernel
.amdhsa_kernel k_amm64
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 10
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 12
.end_amdhsa_kernel
.amdhsa_kernel k_af64
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 10
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 12
.end_amdhsa_kernel
.amdhsa_kernel k_dsf64
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_group_segment_fixed_size 1024
  .amdhsa_next_free_vgpr 12
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 12
.end_amdhsa_kernel
.amdhsa_kernel k_mfmai8
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 24
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 24
.end_amdhsa_kernel
.amdhsa_kernel k_pre
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_user_sgpr_kernarg_preload_length 2
  .amdhsa_system_sgpr_workgroup_id_y 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
