// lds_atomics: per-group 32-bin histogram and maximum built with LDS
// atomics (ds_add_u32, ds_max_u32) at work-group scope. For group g:
// out[g*33 + b] = count of in values with (v % 32) == b in the group,
// out[g*33 + 32] = max of the group's values.
#include "common.h"

#define NB 32

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void lds_atomics(__global const uint *in, __global uint *out) {
  __local uint bins[NB];
  __local uint vmax;
  uint t = local_id_x();
  if (t < NB)
    bins[t] = 0;
  if (t == 0)
    vmax = 0;
  group_barrier();
  uint v = in[group_id_x() * 256 + t];
  __scoped_atomic_fetch_add(&bins[v % NB], 1u, __ATOMIC_RELAXED, __MEMORY_SCOPE_WRKGRP);
  __scoped_atomic_fetch_max(&vmax, v, __ATOMIC_RELAXED, __MEMORY_SCOPE_WRKGRP);
  group_barrier();
  if (t < NB)
    out[group_id_x() * (NB + 1) + t] = bins[t];
  if (t == 0)
    out[group_id_x() * (NB + 1) + NB] = vmax;
}
