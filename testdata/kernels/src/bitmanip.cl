// bitmanip: bit operations on u32 and u64 inputs; eight u32 results per
// item in out[8*i .. 8*i+7]: popcount, count leading zeros (32 for 0),
// count trailing zeros (32 for 0), bit reverse, rotate left, a 64-bit
// popcount, byte swap and an unsigned bit-field extract.
#include "common.h"

__kernel void bitmanip(__global const uint *a, __global const ulong *b,
                       __global uint *out, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  uint x = a[i];
  ulong y = b[i];
  uint r = i & 31;
  out[8 * i + 0] = __builtin_popcount(x);
  out[8 * i + 1] = x ? __builtin_clz(x) : 32;
  out[8 * i + 2] = x ? __builtin_ctz(x) : 32;
  out[8 * i + 3] = __builtin_bitreverse32(x);
  out[8 * i + 4] = (x << r) | (x >> ((32 - r) & 31));
  out[8 * i + 5] = __builtin_popcountl(y);
  out[8 * i + 6] = __builtin_bswap32(x);
  out[8 * i + 7] = (x >> (i % 24)) & ((1u << ((y & 7) + 1)) - 1);
}
