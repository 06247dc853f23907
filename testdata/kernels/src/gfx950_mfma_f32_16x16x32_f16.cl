// targets: gfx950
// gfx950_mfma_f32_16x16x32_f16: gfx950-only v_mfma_f32_16x16x32_f16
// (VOP3P-MAI 0x54): one wave64 computes D = A * B + C for row-major A
// (16x32 f16), B (32x16 f16), C, D (16x16 f32). Lane l holds
// A[l%16][8*(l/16)+j] and B[8*(l/16)+j][l%16] (j = 0..7); accumulator
// register v of lane l is element [4*(l/16)+v][l%16].
#include "common.h"
#include "gfx950.h"

__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void gfx950_mfma_f32_16x16x32_f16(__global const half *A, __global const half *B,
                                  __global const float *C, __global float *D) {
  uint l = local_id_x();
  rj950_half8 a, b;
  for (uint j = 0; j < 8; j++) {
    a[j] = A[(l % 16) * 32 + 8 * (l / 16) + j];
    b[j] = B[(8 * (l / 16) + j) * 16 + l % 16];
  }
  rj950_float4 acc;
  for (uint v = 0; v < 4; v++)
    acc[v] = C[(4 * (l / 16) + v) * 16 + l % 16];
  MFMA_F32_16X16X32_F16(acc, a, b);
  for (uint v = 0; v < 4; v++)
    D[(4 * (l / 16) + v) * 16 + l % 16] = acc[v];
}
