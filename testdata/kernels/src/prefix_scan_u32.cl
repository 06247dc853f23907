// prefix_scan_u32: inclusive prefix sum of u32 within each 128-item group
// (Hillis-Steele in LDS, double-buffered, barriers between steps).
#include "common.h"

#define WG 128

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void prefix_scan_u32(__global const uint *in, __global uint *out) {
  __local uint buf[2][WG];
  uint t = local_id_x();
  uint base = group_id_x() * WG;
  uint cur = 0;
  buf[0][t] = in[base + t];
  group_barrier();
  for (uint off = 1; off < WG; off <<= 1) {
    uint v = buf[cur][t];
    if (t >= off)
      v += buf[cur][t - off];
    buf[cur ^ 1][t] = v;
    cur ^= 1;
    group_barrier();
  }
  out[base + t] = buf[cur][t];
}
