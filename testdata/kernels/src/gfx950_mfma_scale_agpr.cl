// targets: gfx950
// gfx950_mfma_scale_agpr: gfx950-only v_mfma_ld_scale_b32 +
// v_mfma_scale_f32_16x16x128_f8f6f4 with A and B in AGPRs (a[4:11],
// a[12:19]), C in v[20:23], D in v[0:3], E4M3 (OCP FP8) elements, one
// wave64. Lane l holds 32 elements of A row (B column) l % 16 at
// k = 32*(l/16) + e (element e = byte e of its 8 dwords); every element is
// multiplied by 2^(s-127), s = byte 0 of the lane's scale dword (sa for A,
// sb for B). D[4*(l/16)+v][l%16] = C + sum over k of the scaled products.
#include "common.h"
#include "gfx950.h"

__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void gfx950_mfma_scale_agpr(__global const uint8 *a, __global const uint8 *b,
                            __global const float4 *c, __global const uint *sa,
                            __global const uint *sb, __global float4 *d) {
  uint l = global_id_x();
  uint8 x = a[l], y = b[l];
  float4 acc = c[l], r;
  uint s = sa[l], t = sb[l];
  MFMA_SCALE_F32_16X16X128_F8F6F4_AGPR(r, x, y, acc, s, t);
  d[l] = r;
}
