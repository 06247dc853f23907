// atomic_cas: a compare-and-swap retry loop (global_atomic_cmpswap) that
// adds in[i] to counter[in[i] % nbuckets] with wrap-around at 2^32; the
// result is the same for any interleaving.
#include "common.h"

__kernel void atomic_cas(__global const uint *in, __global uint *counter,
                         uint nbuckets, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  uint v = in[i];
  __global uint *p = &counter[v % nbuckets];
  uint old = __scoped_atomic_load_n(p, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
  while (!__scoped_atomic_compare_exchange_n(p, &old, old + v, false, __ATOMIC_RELAXED,
                                             __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE))
    ;
}
