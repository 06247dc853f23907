// targets: gfx1200 gfx1201
// gfx12_buffer_oob: VBUFFER loads and stores through gfx12 buffer
// resources built with __builtin_amdgcn_make_buffer_rsrc (raw: STRIDE 0,
// word 3 0x31004000 = FORMAT 4, OOB_SELECT 3, as CK uses for gfx12).
// out[i] = in[i] + 1 where 4*i + 4 <= nbytes (NUM_RECORDS of the load
// resource), else 1 (the out-of-range load read 0); the store resource
// covers the first 128 elements of st, so only st[0..127] = in[i] * 3 and
// the rest keep their initial values. On the host (RJ_HOST) the same range
// rules are written out.
#include "common.h"

__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void gfx12_buffer_oob(__global const int *in, uint nbytes, __global int *out, __global int *st) {
  uint i = global_id_x();
#ifdef RJ_HOST
  int v = 4 * i + 4 <= nbytes ? in[i] : 0;
  out[i] = v + 1;
  if (i < 128)
    st[i] = v * 3;
#else
  __amdgpu_buffer_rsrc_t r = __builtin_amdgcn_make_buffer_rsrc((__global void *)in, 0, nbytes, 0x31004000);
  __amdgpu_buffer_rsrc_t o = __builtin_amdgcn_make_buffer_rsrc(st, 0, 128 * 4, 0x31004000);
  int v = __builtin_amdgcn_raw_buffer_load_b32(r, 4 * i, 0, 0);
  out[i] = v + 1;
  __builtin_amdgcn_raw_buffer_store_b32(v * 3, o, 4 * i, 0, 0);
#endif
}
