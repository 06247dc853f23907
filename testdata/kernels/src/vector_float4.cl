// vector_float4: 128-bit loads and stores of float4 with a swizzle:
// out[i] = in[i].wzyx * s + (float4)(i, 2i, 3i, 4i) (each op rounded).
#include "common.h"

__kernel void vector_float4(__global const float4 *in, __global float4 *out,
                            float s, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  float fi = (float)i;
  out[i] = in[i].wzyx * s + (float4)(fi, 2.0f * fi, 3.0f * fi, 4.0f * fi);
}
