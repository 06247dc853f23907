// A gfx950 guest whose scope writes SGPRs through M0 (s_movreld_b32): the
// V# analysis cannot follow definitions, so the buffer load is rejected.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl kmovrel
.p2align 8
.type kmovrel,@function
kmovrel:
  s_load_dwordx4 s[8:11], s[0:1], 0x0
  s_mov_b32 s6, 0x100
  s_mov_b32 s7, 0x20000
  s_mov_b32 m0, 1
  s_movreld_b32 s6, s12
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s4, s8
  s_and_b32 s5, s9, 0xffff
  v_lshlrev_b32 v1, 2, v0
  buffer_load_dword v2, v1, s[4:7], 0 offen
  s_waitcnt vmcnt(0)
  global_store_dword v1, v2, s[10:11]
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel kmovrel
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
