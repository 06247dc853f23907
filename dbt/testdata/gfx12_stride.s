// gfx950 guests (assembled for gfx942, e_flags patched) for the V# STRIDE
// analysis. kstride: word1 = (in.hi & 0xffff) | STRIDE 4, the base moved
// by 8 bytes with s_add_u32/s_addc_u32, NUM_RECORDS 16, raw offen loads at
// offset (lane & 1) * 2: gfx9 checks a STRIDE-4 V# as structured (index 0
// < 16, offset + 4 <= 4), so even lanes read in[2] and odd lanes 0;
// out[lane] gets the value.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl kstride
.p2align 8
.type kstride,@function
kstride:
  s_load_dwordx4 s[8:11], s[0:1], 0x0
  s_mov_b32 s6, 16
  s_mov_b32 s7, 0x20000
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s4, s8
  s_and_b32 s5, s9, 0xffff
  s_or_b32 s5, s5, 0x40000
  s_add_u32 s4, s4, 8
  s_addc_u32 s5, s5, 0
  v_and_b32 v1, 1, v0
  v_lshlrev_b32 v1, 1, v1
  buffer_load_dword v2, v1, s[4:7], 0 offen
  v_lshlrev_b32 v3, 2, v0
  s_waitcnt vmcnt(0)
  global_store_dword v3, v2, s[10:11]
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel kstride
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
