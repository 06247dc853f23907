// select_minmax: min, max and select on f32 and i32 (no NaN inputs, no
// zeros); four f32 and four i32 results per item.
#include "common.h"

__kernel void select_minmax(__global const float *fa, __global const float *fb,
                            __global const int *ia, __global const int *ib,
                            __global float *fo, __global int *io, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  float x = fa[i], y = fb[i];
  int p = ia[i], q = ib[i];
  fo[4 * i + 0] = __builtin_fminf(x, y);
  fo[4 * i + 1] = __builtin_fmaxf(x, y);
  fo[4 * i + 2] = p > q ? x : y;
  fo[4 * i + 3] = __builtin_fmaxf(__builtin_fminf(x, 1.0f), -1.0f);
  io[4 * i + 0] = p < q ? p : q;
  io[4 * i + 1] = (uint)p > (uint)q ? p : q;
  io[4 * i + 2] = x < y ? p : q;
  io[4 * i + 3] = p < 0 ? -p : p;
}
