.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl k
.p2align 8
.type k,@function
k:
  s_load_dwordx2 s[8:9], s[0:1], 0x0
  v_mov_b32 v1, 0x0f0f0f0f
  v_mov_b32 v2, 0x00ff00ff
  .long 0xd2340405, 0x340a0501
  s_getpc_b64 s[4:5]
  s_add_u32 s4, s4, gvar@rel32@lo+4
  s_addc_u32 s5, s5, gvar@rel32@hi+12
  s_load_dword s6, s[4:5], 0x0
  v_mov_b32 v0, 0
  s_waitcnt lgkmcnt(0)
  v_xor_b32 v3, s6, v5
  global_store_dword v0, v3, s[8:9]
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
.data
.p2align 2
.protected gvar
.globl gvar
gvar:
  .long 0x12345678
