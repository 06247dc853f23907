// reduce_sum_u32: each 256-work-item group sums its 256 u32 inputs in LDS
// with a halving tree and barriers; out[group] = sum (mod 2^32).
#include "common.h"

#define WG 256

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void reduce_sum_u32(__global const uint *in, __global uint *out) {
  __local uint s[WG];
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
