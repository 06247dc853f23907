// stencil_lds: 1-D three-point stencil through LDS with a one-element halo
// on each side: out[i] = in[i-1] + 2*in[i] + in[i+1] (i32, wrapping), with
// in[-1] and in[n] read as in[0] and in[n-1] (clamped). n is a multiple
// of 128; groups of 128.
#include "common.h"

#define WG 128

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void stencil_lds(__global const int *in, __global int *out, uint n) {
  __local int s[WG + 2];
  uint t = local_id_x();
  uint i = group_id_x() * WG + t;
  s[t + 1] = in[i];
  if (t == 0)
    s[0] = in[i == 0 ? 0 : i - 1];
  if (t == WG - 1)
    s[WG + 1] = in[i + 1 >= n ? n - 1 : i + 1];
  group_barrier();
  out[i] = s[t] + 2 * s[t + 1] + s[t + 2];
}
