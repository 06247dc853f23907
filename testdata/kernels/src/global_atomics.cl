// global_atomics: order-independent device-scope atomics on global memory.
// acc[0] += v, acc[1] = max, acc[2] = min, acc[3] |= , acc[4] &= , acc[5]
// ^= (u32, with v = in[i]); wide[0] += (u64)v * (i+1) (64-bit add).
#include "common.h"

__kernel void global_atomics(__global const uint *in, __global uint *acc,
                             __global ulong *wide, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  uint v = in[i];
  __scoped_atomic_fetch_add(&acc[0], v, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
  __scoped_atomic_fetch_max(&acc[1], v, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
  __scoped_atomic_fetch_min(&acc[2], v, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
  __scoped_atomic_fetch_or(&acc[3], v, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
  __scoped_atomic_fetch_and(&acc[4], v | 0xff000000u, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
  __scoped_atomic_fetch_xor(&acc[5], v, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
  __scoped_atomic_fetch_add(&wide[0], (ulong)v * (i + 1), __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
}
