// targets: gfx950
// gfx950_cvt_pk_f16_f32: gfx950-only v_cvt_pk_f16_f32 (VOP3 0x267):
// out[i] = f16(b[i]) << 16 | f16(a[i]), round to nearest even (gfx942's
// v_cvt_pkrtz_f16_f32 rounds toward zero); inputs include f16 ties,
// overflow to infinity and f16 denormal results.
#include "common.h"
#include "gfx950.h"

__kernel void gfx950_cvt_pk_f16_f32(__global const float *a, __global const float *b,
                                    __global uint *out, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  uint r;
  CVT_PK_F16_F32(r, a[i], b[i]);
  out[i] = r;
}
