// call_noinline: out[i] = mix(in[i], i) computed by a device function that
// is kept out of line (a real s_swappc call), itself calling a second one.
#include "common.h"

__attribute__((noinline)) static uint rotl(uint x, uint r) {
  return (x << (r & 31)) | (x >> ((32 - r) & 31));
}

__attribute__((noinline)) static uint mix(uint x, uint i) {
  x ^= i * 0x9e3779b9u;
  x = rotl(x, i & 31) * 0x85ebca6bu;
  return x ^ (x >> 13);
}

__kernel void call_noinline(__global const uint *in, __global uint *out, uint n) {
  uint i = global_id_x();
  if (i < n)
    out[i] = mix(in[i], i);
}
