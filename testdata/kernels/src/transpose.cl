// transpose: out (W x H) = transpose of in (H x W), u32, through a padded
// 16x17 LDS tile; W and H multiples of 16, 16x16 groups, 2-D grid over in.
#include "common.h"

#define T 16

__kernel __attribute__((reqd_work_group_size(T, T, 1)))
void transpose(__global const uint *in, __global uint *out, uint W, uint H) {
  __local uint tile[T][T + 1];
  uint tx = local_id_x(), ty = local_id_y();
  uint bx = group_id_x() * T, by = group_id_y() * T;
  tile[ty][tx] = in[(by + ty) * W + bx + tx];
  group_barrier();
  out[(bx + ty) * H + by + tx] = tile[tx][ty];
}
