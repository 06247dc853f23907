// early_exit_loop: each item scans its row of L u32 values and stops at
// the first value >= threshold: out[i] = that index, or L when none;
// steps[i] = sum of the values skipped before it (mod 2^32).
#include "common.h"

__kernel void early_exit_loop(__global const uint *rows, __global uint *out,
                              __global uint *steps, uint L, uint threshold, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  uint j = 0, acc = 0;
  for (; j < L; j++) {
    uint v = rows[i * L + j];
    if (v >= threshold)
      break;
    acc += v;
  }
  out[i] = j;
  steps[i] = acc;
}
