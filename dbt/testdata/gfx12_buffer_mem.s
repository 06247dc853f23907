// A gfx950 guest whose V# word3 comes from memory: the gfx12 pair cannot
// convert it and rejects the buffer load.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl kmem
.p2align 8
.type kmem,@function
kmem:
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v1, 2, v0
  buffer_load_dword v2, v1, s[4:7], 0 offen
  s_waitcnt vmcnt(0)
  global_store_dword v1, v2, s[4:5]
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel kmem
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
