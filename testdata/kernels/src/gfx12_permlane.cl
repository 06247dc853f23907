// targets: gfx1200 gfx1201
// gfx12_permlane: v_permlane16_b32 and v_permlanex16_b32 (gfx10+ lane
// gathers inside rows of 16 lanes) with the lane selects in kernel
// arguments (SGPRs). sel(n) is nibble n of the 64-bit select sel_hi:sel_lo.
// p16[i] = in[(i & ~15) | sel(i & 15)] (same row);
// px16[i] = in[(i & ~31) | (~i & 16) | sel(i & 15)] (the other row of the
// 32-lane pair), the same in wave32 and wave64. Every lane is active. On
// the host (RJ_HOST) the gathers read the input directly.
#include "common.h"

static inline uint sel(uint n, uint lo, uint hi) {
  return (n < 8 ? lo >> (4 * n) : hi >> (4 * (n - 8))) & 15u;
}

__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void gfx12_permlane(__global const uint *in, __global uint *p16, __global uint *px16, uint sel_lo, uint sel_hi) {
  uint i = global_id_x();
#ifdef RJ_HOST
  uint s = sel(i & 15u, sel_lo, sel_hi);
  p16[i] = in[(i & ~15u) | s];
  px16[i] = in[(i & ~31u) | (~i & 16u) | s];
#else
  uint v = in[i];
  p16[i] = __builtin_amdgcn_permlane16(v, v, sel_lo, sel_hi, false, false);
  px16[i] = __builtin_amdgcn_permlanex16(v, v, sel_lo, sel_hi, false, false);
#endif
}
