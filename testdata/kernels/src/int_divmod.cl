// int_divmod: unsigned and signed 32-bit division and remainder (C
// semantics: truncation toward zero, remainder takes the dividend's sign);
// divisors are never zero and never -1 with INT_MIN.
#include "common.h"

__kernel void int_divmod(__global const int *a, __global const int *b,
                         __global int *q, __global int *r,
                         __global uint *uq, __global uint *ur, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  int x = a[i], y = b[i];
  q[i] = x / y;
  r[i] = x % y;
  uint ux = (uint)x, uy = (uint)y;
  uq[i] = ux / uy;
  ur[i] = ux % uy;
}
