// int64_arith: 64-bit integer add, multiply, high multiply (by 32-bit
// halves), arithmetic and logical shifts, compares on pairs (a[i], b[i]);
// four results per item in out[4*i .. 4*i+3].
#include "common.h"

static inline ulong mulhi64(ulong x, ulong y) {
  ulong xl = x & 0xffffffffUL, xh = x >> 32;
  ulong yl = y & 0xffffffffUL, yh = y >> 32;
  ulong ll = xl * yl, lh = xl * yh, hl = xh * yl, hh = xh * yh;
  ulong mid = (ll >> 32) + (lh & 0xffffffffUL) + (hl & 0xffffffffUL);
  return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

__kernel void int64_arith(__global const ulong *a, __global const ulong *b,
                          __global ulong *out, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  ulong x = a[i], y = b[i];
  long sx = (long)x;
  out[4 * i + 0] = x * y + (x >> 7) - (y << 3);
  out[4 * i + 1] = mulhi64(x, y);
  out[4 * i + 2] = (ulong)(sx >> (y & 63)) ^ (x > y ? x - y : y - x);
  out[4 * i + 3] = (ulong)((long)x * (long)(y | 1)) + (ulong)(sx < (long)y);
}
