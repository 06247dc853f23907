// targets: gfx950
// gfx950_minmax3: gfx950-only v_minimum3_f32 / v_maximum3_f32 (VOP3 0x2a8,
// 0x2a9), IEEE 754-2019 minimum and maximum of three: a NaN operand gives
// NaN, -0 < +0. out[2i] = minimum3, out[2i+1] = maximum3; NaN results are
// written as the canonical 0x7fc00000.
#include "common.h"
#include "gfx950.h"

__kernel void gfx950_minmax3(__global const float *a, __global const float *b,
                             __global const float *c, __global float *out, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  float lo, hi;
  MINIMUM3_F32(lo, a[i], b[i], c[i]);
  MAXIMUM3_F32(hi, a[i], b[i], c[i]);
  out[2 * i] = lo != lo ? __builtin_nanf("") : lo;
  out[2 * i + 1] = hi != hi ? __builtin_nanf("") : hi;
}
