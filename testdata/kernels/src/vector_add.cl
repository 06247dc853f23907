// vector_add: c[i] = a[i] + b[i] for i < n (f32). Group size from the
// dispatch packet; the grid may be larger than n.
#include "common.h"

__kernel void vector_add(__global const float *a, __global const float *b,
                         __global float *c, uint n) {
  uint i = global_id_x();
  if (i < n)
    c[i] = a[i] + b[i];
}
