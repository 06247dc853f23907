// reduce_sum_f32: like reduce_sum_u32 in f32. The order is fixed by the
// tree: at stride s (128, 64, ..., 1) element t < s becomes s[t] + s[t+s],
// each addition rounded to f32.
#include "common.h"

#define WG 256

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void reduce_sum_f32(__global const float *in, __global float *out) {
  __local float s[WG];
  uint t = local_id_x();
  s[t] = in[group_id_x() * WG + t];
  group_barrier();
  for (uint stride = WG / 2; stride > 0; stride >>= 1) {
    if (t < stride)
      s[t] += s[t + stride];
    group_barrier();
  }
  if (t == 0)
    out[group_id_x()] = s[0];
}
