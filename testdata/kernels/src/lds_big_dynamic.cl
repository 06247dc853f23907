// targets: gfx950
// lds_big_dynamic: a group uses 96 KiB of dynamic LDS (a __local pointer
// argument sized at dispatch), more than gfx942 and gfx12 have (64 KiB) and
// within gfx950's 160 KiB, so on those hosts the dispatch needs virtual
// LDS. The code is portable; the dispatch is what is gfx950-only. Each
// group of 256 fills tmp[j] = in[g] * j + g for j < words, then item t
// sums tmp[(t * 97 + k * 389) % words] for k < 64 (mod 2^32) into
// out[g*256 + t].
#include "common.h"

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void lds_big_dynamic(__global const uint *in, __global uint *out, __local uint *tmp,
                     uint words) {
  uint t = local_id_x(), g = group_id_x();
  uint seed = in[g];
  for (uint j = t; j < words; j += 256)
    tmp[j] = seed * j + g;
  group_barrier();
  uint acc = 0;
  for (uint k = 0; k < 64; k++)
    acc += tmp[(t * 97u + k * 389u) % words];
  out[g * 256 + t] = acc;
}
