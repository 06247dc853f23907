// targets: gfx950
// gfx950_mfma_f32_32x32x16_f16: gfx950-only v_mfma_f32_32x32x16_f16
// (VOP3P-MAI 0x55): one wave64 computes D = A * B + C for row-major A
// (32x16 f16), B (16x32 f16), C, D (32x32 f32). Lane l holds
// A[l%32][8*(l/32)+j] and B[8*(l/32)+j][l%32] (j = 0..7); accumulator
// register v of lane l is element [8*(v/4) + 4*(l/32) + v%4][l%32].
#include "common.h"
#include "gfx950.h"

__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void gfx950_mfma_f32_32x32x16_f16(__global const half *A, __global const half *B,
                                  __global const float *C, __global float *D) {
  uint l = local_id_x();
  rj950_half8 a, b;
  for (uint j = 0; j < 8; j++) {
    a[j] = A[(l % 32) * 16 + 8 * (l / 32) + j];
    b[j] = B[(8 * (l / 32) + j) * 32 + l % 32];
  }
  rj950_float16 acc;
  for (uint v = 0; v < 16; v++)
    acc[v] = C[(8 * (v / 4) + 4 * (l / 32) + v % 4) * 32 + l % 32];
  MFMA_F32_32X32X16_F16(acc, a, b);
  for (uint v = 0; v < 16; v++)
    D[(8 * (v / 4) + 4 * (l / 32) + v % 4) * 32 + l % 32] = acc[v];
}
