// histogram: bins[in[i] % nbins] += 1 with relaxed device-scope global
// atomics; the result does not depend on the order of the atomics.
#include "common.h"

__kernel void histogram(__global const uint *in, __global uint *bins, uint n, uint nbins) {
  uint i = global_id_x();
  if (i < n)
    __scoped_atomic_fetch_add(&bins[in[i] % nbins], 1u, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
}
