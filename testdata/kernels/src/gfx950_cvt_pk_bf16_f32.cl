// targets: gfx950
// gfx950_cvt_pk_bf16_f32: gfx950-only v_cvt_pk_bf16_f32 (VOP3 0x268):
// out[i] = bf16(b[i]) << 16 | bf16(a[i]), round to nearest even; inputs
// include exact ties, infinities and values that round up to infinity.
#include "common.h"
#include "gfx950.h"

__kernel void gfx950_cvt_pk_bf16_f32(__global const float *a, __global const float *b,
                                     __global uint *out, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  uint r;
  CVT_PK_BF16_F32(r, a[i], b[i]);
  out[i] = r;
}
