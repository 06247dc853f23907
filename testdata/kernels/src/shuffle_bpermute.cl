// shuffle_bpermute: cross-lane moves with ds_bpermute_b32 inside groups of
// 32 lanes, so the result is the same for wave32 and wave64.
// rot[i] = in[(i & ~31) | ((i + k) & 31)] (rotate by k within 32);
// sum[i] = sum of in over i's 32-lane group, by an xor butterfly
// (offsets 16, 8, 4, 2, 1), mod 2^32. Group size must be a multiple of 64.
#include "common.h"

static inline uint lane_read(uint v, uint src) {
  return (uint)__builtin_amdgcn_ds_bpermute((int)(src << 2), (int)v);
}

__kernel void shuffle_bpermute(__global const uint *in, __global uint *rot,
                               __global uint *sum, uint k) {
  uint i = global_id_x();
  uint l = local_id_x();
  uint v = in[i];
  rot[i] = lane_read(v, (l & ~31u) | ((l + k) & 31u));
  uint s = v;
  for (uint off = 16; off > 0; off >>= 1)
    s += lane_read(s, l ^ off);
  sum[i] = s;
}
