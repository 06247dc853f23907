// fp64_arith: double add, subtract, multiply, fused multiply-add
// (__builtin_fma), min/max and compare; three results per item in
// out[3*i .. 3*i+2]. Inputs are finite, no NaN.
#include "common.h"

__kernel void fp64_arith(__global const double *a, __global const double *b,
                         __global double *out, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  double x = a[i], y = b[i];
  out[3 * i + 0] = (x + y) * (x - y);
  out[3 * i + 1] = __builtin_fma(x, y, 0.5 * x);
  out[3 * i + 2] = (x < y ? __builtin_fmin(x, y) * 3.0 : __builtin_fmax(x, y) - 1.25) + (double)i;
}
