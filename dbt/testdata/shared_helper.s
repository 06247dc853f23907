.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl k0
.p2align 8
.type k0,@function
k0:
  s_load_dwordx2 s[8:9], s[0:1], 0x0
  v_mov_b32 v1, 0x0f0f0f0f
  v_mov_b32 v2, 0x00ff00ff
  s_getpc_b64 s[4:5]
  s_add_u32 s4, s4, helper@rel32@lo+4
  s_addc_u32 s5, s5, helper@rel32@hi+12
  s_swappc_b64 s[30:31], s[4:5]
  v_mov_b32 v0, 0
  s_waitcnt lgkmcnt(0)
  global_store_dword v0, v5, s[8:9]
  s_endpgm

.globl k1
.p2align 8
.type k1,@function
k1:
  s_load_dwordx2 s[8:9], s[0:1], 0x0
  v_mov_b32 v1, 0x12345678
  v_mov_b32 v2, 0x0000ffff
  s_getpc_b64 s[4:5]
  s_add_u32 s4, s4, helper@rel32@lo+4
  s_addc_u32 s5, s5, helper@rel32@hi+12
  s_swappc_b64 s[30:31], s[4:5]
  v_mov_b32 v0, 0
  s_waitcnt lgkmcnt(0)
  global_store_dword v0, v5, s[8:9]
  s_endpgm

.p2align 2
.type helper,@function
helper:
  .long 0xd2340405, 0x340a0501
  s_setpc_b64 s[30:31]

.rodata
.p2align 6
.amdhsa_kernel k0
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 40
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
.p2align 6
.amdhsa_kernel k1
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 40
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
