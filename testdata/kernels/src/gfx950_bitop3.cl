// targets: gfx950
// gfx950_bitop3: gfx950-only v_bitop3_b32 (VOP3 0x234) with four truth
// tables; per bit the result is bit (a<<2 | b<<1 | c) of the table, a =
// src0. out[4i..4i+3] = tables 0x96 (a^b^c), 0xe8 (majority),
// 0xca (a ? b : c), 0xa1.
#include "common.h"
#include "gfx950.h"

__kernel void gfx950_bitop3(__global const uint *a, __global const uint *b,
                            __global const uint *c, __global uint *out, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  uint x = a[i], y = b[i], z = c[i], r;
  BITOP3_96(r, x, y, z);
  out[4 * i + 0] = r;
  BITOP3_E8(r, x, y, z);
  out[4 * i + 1] = r;
  BITOP3_CA(r, x, y, z);
  out[4 * i + 2] = r;
  BITOP3_A1(r, x, y, z);
  out[4 * i + 3] = r;
}
