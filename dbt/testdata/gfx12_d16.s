// A gfx950 guest (assembled for gfx942, e_flags patched) for the d16 MUBUF
// renames: each of the six d16 loads writes one half of a VGPR preset to
// 0xa5a55a5a (the other half must survive), from a V# with NUM_RECORDS
// 0xfd so that lane 63's 16-bit loads and its byte load at offset 254 are
// out of range (they write 0 into their half); the two d16_hi stores write
// bits [31:16] and [23:16] of in[lane] to out + 1536 + lane * 4 (lane 63's
// dword load is out of range: 0). The six results go to
// out + k * 256 + lane * 4.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl kd16
.p2align 8
.type kd16,@function
kd16:
  s_load_dwordx4 s[8:11], s[0:1], 0x0
  s_mov_b32 s6, 0xfd
  s_mov_b32 s7, 0x20000
  s_mov_b32 s14, 0x800
  s_mov_b32 s15, s7
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s4, s8
  s_and_b32 s5, s9, 0xffff
  s_mov_b32 s12, s10
  s_and_b32 s13, s11, 0xffff
  v_lshlrev_b32 v1, 2, v0
  v_mov_b32 v2, 0xa5a55a5a
  v_mov_b32 v3, v2
  v_mov_b32 v4, v2
  v_mov_b32 v5, v2
  v_mov_b32 v6, v2
  v_mov_b32 v7, v2
  buffer_load_short_d16 v2, v1, s[4:7], 0 offen
  buffer_load_short_d16_hi v3, v1, s[4:7], 0 offen offset:2
  buffer_load_ubyte_d16 v4, v1, s[4:7], 0 offen offset:1
  buffer_load_ubyte_d16_hi v5, v1, s[4:7], 0 offen offset:3
  buffer_load_sbyte_d16 v6, v1, s[4:7], 0 offen
  buffer_load_sbyte_d16_hi v7, v1, s[4:7], 0 offen offset:2
  buffer_load_dword v8, v1, s[4:7], 0 offen
  s_waitcnt vmcnt(0)
  buffer_store_short_d16_hi v8, v1, s[12:15], 0 offen offset:1536
  buffer_store_byte_d16_hi v8, v1, s[12:15], 0 offen offset:1538
  global_store_dword v1, v2, s[10:11]
  global_store_dword v1, v3, s[10:11] offset:256
  global_store_dword v1, v4, s[10:11] offset:512
  global_store_dword v1, v5, s[10:11] offset:768
  global_store_dword v1, v6, s[10:11] offset:1024
  global_store_dword v1, v7, s[10:11] offset:1280
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel kd16
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 12
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 12
.end_amdhsa_kernel
