// targets: gfx950
// gfx950_scalecvt: gfx950-only scaled conversions (OCP MX formats, scale =
// 2^(E-127) from the f32 scale's exponent field; the inputs use exact
// powers of two). Per item i, with x = a[i], y = b[i], s = sc[i], c =
// codes[i]:
//   out[4i+0] = the bits of x with byte 0 replaced by the FP4 pair
//               (x/s, y/s) and byte 2 by the pair (y/s, x/s):
//               v_cvt_scalef32_pk_fp4_f32, round to nearest even, saturating;
//   out[4i+1], out[4i+2] = the FP4 codes in byte 0 of c times s, as f32:
//               v_cvt_scalef32_pk_f32_fp4;
//   out[4i+3] = the E4M3 codes in bytes 0 and 1 of c times s, as packed
//               bf16: v_cvt_scalef32_pk_bf16_fp8.
#include "common.h"
#include "gfx950.h"

__kernel void gfx950_scalecvt(__global const float *a, __global const float *b,
                              __global const float *sc, __global const uint *codes,
                              __global uint *out, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  float x = a[i], y = b[i], s = sc[i];
  uint c = codes[i];
  uint r = as_uint(x), p;
  CVT_SCALEF32_PK_FP4_F32_B0(r, y, s);
  CVT_SCALEF32_PK_FP4_F32_B2(r, y, s, x);
  uint2 t = (uint2)(c, as_uint(s));
  CVT_SCALEF32_PK_F32_FP4(t);
  CVT_SCALEF32_PK_BF16_FP8(p, c, s);
  out[4 * i + 0] = r;
  out[4 * i + 1] = t.x;
  out[4 * i + 2] = t.y;
  out[4 * i + 3] = p;
}
