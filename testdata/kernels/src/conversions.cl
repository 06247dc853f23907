// conversions: numeric conversions; for each item, from f32 x = a[i],
// i32 k = b[i] and f64 d = c[i]:
// oi[2i] = (int)x (truncate), oi[2i+1] = (int)d (truncate),
// of[4i] = (float)k, of[4i+1] = (float)(uint)k, of[4i+2] = (float)d,
// of[4i+3] = (float)(half)x, oh[i] = (half)x, od[2i] = (double)x,
// od[2i+1] = (double)(long)k * 1.5, ob[i] = x clamped to 0..255 as uchar.
// All float conversions round to nearest even; inputs keep (int) in range.
#include "common.h"

__kernel void conversions(__global const float *a, __global const int *b,
                          __global const double *c, __global int *oi,
                          __global float *of, __global half *oh,
                          __global double *od, __global uchar *ob, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  float x = a[i];
  int k = b[i];
  double d = c[i];
  oi[2 * i] = (int)x;
  oi[2 * i + 1] = (int)d;
  of[4 * i] = (float)k;
  of[4 * i + 1] = (float)(uint)k;
  of[4 * i + 2] = (float)d;
  half h = (half)x;
  of[4 * i + 3] = (float)h;
  oh[i] = h;
  od[2 * i] = (double)x;
  od[2 * i + 1] = (double)(long)k * 1.5;
  ob[i] = (uchar)(x < 0.0f ? 0.0f : (x > 255.0f ? 255.0f : x));
}
