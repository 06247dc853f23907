// half_arith: IEEE binary16 add, multiply, subtract and fused multiply-add
// (each result rounded to half, round to nearest even); three results per
// item in out[3*i .. 3*i+2].
#include "common.h"

__kernel void half_arith(__global const half *a, __global const half *b,
                         __global half *out, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  half x = a[i], y = b[i];
  half s = x + y;
  out[3 * i + 0] = s;
  out[3 * i + 1] = x * y - s;
  out[3 * i + 2] = __builtin_fmaf16(x, y, (half)0.5f);
}
