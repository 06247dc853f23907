// divergence: heavy per-lane control flow. Each item takes one of eight
// paths by in[i] % 8, several with data-dependent loops (a capped Collatz
// walk, a bit loop, a nested loop); out[i] is the path's u32 result.
#include "common.h"

__kernel void divergence(__global const uint *in, __global uint *out, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  uint v = in[i];
  uint r;
  switch (v % 8) {
  case 0: {
    uint x = v | 1, steps = 0;
    while (x != 1 && steps < 200) {
      x = (x & 1) ? 3 * x + 1 : x >> 1;
      steps++;
    }
    r = steps;
    break;
  }
  case 1:
    r = v * 2654435761u;
    break;
  case 2: {
    r = 0;
    for (uint b = v; b; b &= b - 1)
      r += 7;
    break;
  }
  case 3:
    r = (v & 0x100) ? v >> 3 : v << 3;
    break;
  case 4: {
    r = 1;
    for (uint a = 0; a < (v >> 4) % 9; a++)
      for (uint b = 0; b <= a; b++)
        r = r * 31 + a * b;
    break;
  }
  case 5:
    if (v > 0x80000000u)
      r = ~v;
    else if (v > 0x40000000u)
      r = v ^ 0x5a5a5a5au;
    else
      r = v + i;
    break;
  case 6: {
    uint x = v;
    do {
      x = x / 3 + (x & 5);
    } while (x > 1000);
    r = x;
    break;
  }
  default:
    r = i;
  }
  out[i] = r;
}
