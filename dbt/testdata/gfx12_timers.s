// A gfx950 guest reading both timers twice around some work and storing
// the four 64-bit values (s_memtime, s_memrealtime, then again).
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl ktime
.p2align 8
.type ktime,@function
ktime:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  s_cmp_lg_u32 s0, s0
  s_memtime s[2:3]
  s_memrealtime s[4:5]
  v_mov_b32 v1, 1
  v_add_u32 v1, v1, v1
  v_add_u32 v1, v1, v1
  s_memtime s[6:7]
  s_memrealtime s[8:9]
  s_cselect_b32 s10, 1, 2
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v0, 0
  v_mov_b32 v2, s2
  v_mov_b32 v3, s3
  v_mov_b32 v4, s4
  v_mov_b32 v5, s5
  v_mov_b32 v6, s6
  v_mov_b32 v7, s7
  v_mov_b32 v8, s8
  v_mov_b32 v9, s9
  v_mov_b32 v10, s10
  global_store_dwordx4 v0, v[2:5], s[0:1]
  global_store_dwordx4 v0, v[6:9], s[0:1] offset:16
  global_store_dword v0, v10, s[0:1] offset:32
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel ktime
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 12
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 12
.end_amdhsa_kernel
