// targets: gfx950
// gfx950_cvt_f32_bf16: gfx950-only v_cvt_f32_bf16 (VOP1 0x5b): out[i] =
// the bf16 in the low 16 bits of in[i], widened to f32 (exact).
#include "common.h"
#include "gfx950.h"

__kernel void gfx950_cvt_f32_bf16(__global const uint *in, __global float *out, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  float r;
  CVT_F32_BF16(r, in[i]);
  out[i] = r;
}
