// bitonic_step: one global compare-exchange step (j, k) of a bitonic sort
// over u32 keys; the host runs it for every (k, j) pair to sort.
#include "common.h"

__kernel void bitonic_step(__global uint *data, uint j, uint k) {
  uint t = global_id_x();
  uint p = t ^ j;
  if (p > t) {
    uint a = data[t], b = data[p];
    bool up = (t & k) == 0;
    if ((a > b) == up) {
      data[t] = b;
      data[p] = a;
    }
  }
}
