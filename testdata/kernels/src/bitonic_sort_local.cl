// bitonic_sort_local: each 256-item group sorts its 256 u32 keys ascending
// in LDS with a full bitonic network (compare-exchange steps separated by
// barriers).
#include "common.h"

#define WG 256

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void bitonic_sort_local(__global uint *data) {
  __local uint s[WG];
  uint t = local_id_x();
  uint base = group_id_x() * WG;
  s[t] = data[base + t];
  group_barrier();
  for (uint k = 2; k <= WG; k <<= 1) {
    for (uint j = k >> 1; j > 0; j >>= 1) {
      uint p = t ^ j;
      if (p > t) {
        uint a = s[t], b = s[p];
        bool up = (t & k) == 0;
        if ((a > b) == up) {
          s[t] = b;
          s[p] = a;
        }
      }
      group_barrier();
    }
  }
  data[base + t] = s[t];
}
