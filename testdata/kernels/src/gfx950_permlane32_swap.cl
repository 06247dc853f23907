// targets: gfx950
// gfx950_permlane32_swap: gfx950-only v_permlane32_swap_b32 (VOP1 0x5a) on
// full waves: x = a[i], y = b[i]; for wave lane l < 32, x of lane l+32 and
// y of lane l trade values; then xo[i] = x, yo[i] = y. Groups of 128.
#include "common.h"
#include "gfx950.h"

__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void gfx950_permlane32_swap(__global const uint *a, __global const uint *b,
                            __global uint *xo, __global uint *yo) {
  uint i = global_id_x();
  uint x = a[i], y = b[i];
  PERMLANE32_SWAP(x, y);
  xo[i] = x;
  yo[i] = y;
}
