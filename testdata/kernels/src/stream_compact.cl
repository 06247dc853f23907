// stream_compact: each 256-item group keeps the values divisible by 3, in
// order, at the front of its output slice; count[g] = how many. Per wave a
// ballot (v_cmp into an SGPR mask) and v_mbcnt_lo/hi give each kept lane
// its rank, per-wave totals go through LDS. Written for the target's wave
// size (__AMDGCN_WAVEFRONT_SIZE__: 64 on gfx9, 32 on gfx12); the result
// does not depend on it. Output past count[g] keeps its initial zeros.
#include "common.h"

#define WG 256

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void stream_compact(__global const uint *in, __global uint *out, __global uint *count) {
  __local uint wave_total[WG / 32];
  uint t = local_id_x(), g = group_id_x();
  uint v = in[g * WG + t];
  bool keep = v % 3 == 0;
#if __AMDGCN_WAVEFRONT_SIZE__ == 64
  const uint W = 64;
  ulong mask = __builtin_amdgcn_ballot_w64(keep);
  uint lane = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
  uint before = __builtin_amdgcn_mbcnt_hi((uint)(mask >> 32), __builtin_amdgcn_mbcnt_lo((uint)mask, 0u));
  uint total = __builtin_popcountl(mask);
#else
  const uint W = 32;
  uint mask = __builtin_amdgcn_ballot_w32(keep);
  uint lane = __builtin_amdgcn_mbcnt_lo(~0u, 0u);
  uint before = __builtin_amdgcn_mbcnt_lo(mask, 0u);
  uint total = __builtin_popcount(mask);
#endif
  uint wave = t / W;
  if (lane == 0)
    wave_total[wave] = total;
  group_barrier();
  uint base = 0;
  for (uint w = 0; w < wave; w++)
    base += wave_total[w];
  if (keep)
    out[g * WG + base + before] = v;
  if (t == 0) {
    uint s = 0;
    for (uint w = 0; w < WG / W; w++)
      s += wave_total[w];
    count[g] = s;
  }
}
