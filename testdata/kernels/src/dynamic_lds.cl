// dynamic_lds: a __local pointer kernel argument (metadata value kind
// dynamic_shared_pointer): the LDS it points to is sized at dispatch time
// (group_segment_size) and the kernarg holds its offset in the group
// segment (0: the kernel has no static LDS). Each group reverses its slice
// through it: out[base+t] = in[base + size-1-t] * 2 + t.
#include "common.h"

__kernel void dynamic_lds(__global const uint *in, __global uint *out, __local uint *tmp) {
  uint t = local_id_x(), size = local_size_x();
  uint base = group_id_x() * size;
  tmp[t] = in[base + t];
  group_barrier();
  out[base + t] = tmp[size - 1 - t] * 2u + t;
}
