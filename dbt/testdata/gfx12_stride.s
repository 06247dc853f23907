// A gfx950 guest (assembled for gfx942, e_flags patched) whose raw V# sets
// STRIDE 4 in word1, as the aiter topksoftmax kernels do: word1 = (in.hi
// & 0xffff) | 0x40000, the base moved by 8 bytes with s_add_u32/
// s_addc_u32, NUM_RECORDS 16, offen loads at lane * 4. gfx9 range-checks
// an offen-only access by its byte offset whatever STRIDE is, so lanes 0-3
// read in[2 + lane] and the others 0; out[lane] gets the value.
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
  v_lshlrev_b32 v1, 2, v0
  buffer_load_dword v2, v1, s[4:7], 0 offen
  s_waitcnt vmcnt(0)
  global_store_dword v1, v2, s[10:11]
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel kstride
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
