// A gfx950 guest (assembled for gfx942, e_flags patched) whose V# word1
// comes straight from memory, so its STRIDE is unknown: rejected.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl kunknown
.p2align 8
.type kunknown,@function
kunknown:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_mov_b32 s6, 16
  s_mov_b32 s7, 0x20000
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v1, 2, v0
  buffer_load_dword v2, v1, s[4:7], 0 offen
  s_waitcnt vmcnt(0)
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel kunknown
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
