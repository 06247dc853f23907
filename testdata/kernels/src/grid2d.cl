// grid2d: a 2-D grid over a W x H u32 image (group size from the dispatch
// packet): out[y*W + x] = in[y*W + x] * 3 + x * 1000 + y, for x < W, y < H.
#include "common.h"

__kernel void grid2d(__global const uint *in, __global uint *out, uint W, uint H) {
  uint x = global_id_x(), y = global_id_y();
  if (x < W && y < H)
    out[y * W + x] = in[y * W + x] * 3u + x * 1000u + y;
}
