// private_scratch: a 64-entry private array indexed by data-dependent
// values, so it lives in scratch memory. out[i] = sum over r of
// arr[(in[i] >> (r%4*8)) % 64] after arr[j] = j*j ^ in[i].
#include "common.h"

__kernel void private_scratch(__global const uint *in, __global uint *out, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  uint arr[64];
  uint v = in[i];
  for (uint j = 0; j < 64; j++)
    arr[j] = (j * j) ^ v;
  for (uint r = 0; r < 16; r++) {
    uint idx = (v >> ((r % 4) * 8)) % 64;
    arr[(idx + r) % 64] += arr[idx];
  }
  uint acc = 0;
  for (uint r = 0; r < 8; r++)
    acc += arr[(v >> r) % 64] * (r + 1);
  out[i] = acc;
}
