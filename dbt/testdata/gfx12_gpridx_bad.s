// gfx950 guests (assembled for gfx942, e_flags patched) with VGPR-indexing
// regions the gfx12 rule does not prove: a SRC1-indexed add (ksrc), a
// DST region with another VALU inside (kmixed), a region whose
// s_set_gpr_idx_off is a branch target, so in another block (kopen).
// Each must be rejected with its reason.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl ksrc
.p2align 8
.type ksrc,@function
ksrc:
  s_mov_b32 s4, 1
  s_set_gpr_idx_on s4, gpr_idx(SRC1)
  v_add_u32 v1, v3, v2
  s_set_gpr_idx_off
  s_endpgm
.globl kmixed
.p2align 8
.type kmixed,@function
kmixed:
  s_mov_b32 s4, 1
  s_set_gpr_idx_on s4, gpr_idx(DST)
  v_writelane_b32 v2, 0, 0
  v_add_u32 v1, 1, v2
  s_set_gpr_idx_off
  s_endpgm
.globl kopen
.p2align 8
.type kopen,@function
kopen:
  s_mov_b32 s4, 1
  s_cmp_eq_u32 s4, 0
  s_cbranch_scc1 .Lopen
  s_set_gpr_idx_on s4, gpr_idx(DST)
  v_writelane_b32 v2, 0, 0
.Lopen:
  s_set_gpr_idx_off
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel ksrc
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
.amdhsa_kernel kmixed
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
.amdhsa_kernel kopen
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
