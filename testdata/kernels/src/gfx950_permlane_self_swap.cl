// targets: gfx950
// gfx950_permlane_self_swap: gfx950-only v_permlane16_swap_b32 and
// v_permlane32_swap_b32 with vdst == vsrc (VOP1 0x59 / 0x5a, both operands
// v1) on full waves: every swapped pair exchanges its two lanes, so wave
// lane l takes lane l ^ 16 (16) or l ^ 32 (32). xo[i] = a after the 16-row
// swap, yo[i] = b after the 32 swap, zo[i] = c after both.
#include "common.h"
#include "gfx950.h"

__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void gfx950_permlane_self_swap(__global const uint *a, __global const uint *b,
                               __global const uint *c, __global uint *xo,
                               __global uint *yo, __global uint *zo) {
  uint i = global_id_x();
  uint x = a[i], y = b[i], z = c[i];
  PERMLANE16_SWAP_SELF(x);
  PERMLANE32_SWAP_SELF(y);
  PERMLANE16_SWAP_SELF(z);
  PERMLANE32_SWAP_SELF(z);
  xo[i] = x;
  yo[i] = y;
  zo[i] = z;
}
