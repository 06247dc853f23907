// targets: gfx1200 gfx1201
// wmma_f32_16x16x16f16: one wave32 computes D = A * B + C with the gfx12
// v_wmma_f32_16x16x16_f16 for row-major A, B (16x16 f16) and C, D
// (16x16 f32). Lane l holds A[l%16][8*(l/16)+j] and B[8*(l/16)+j][l%16]
// (j = 0..7); accumulator register v of lane l is element
// [8*(l/16)+v][l%16].
#include "common.h"

typedef half half8 __attribute__((ext_vector_type(8)));
typedef float float8v __attribute__((ext_vector_type(8)));

__kernel __attribute__((reqd_work_group_size(32, 1, 1)))
void wmma_f32_16x16x16f16(__global const half *A, __global const half *B,
                          __global const float *C, __global float *D) {
  uint l = local_id_x();
  half8 a, b;
  for (uint j = 0; j < 8; j++) {
    a[j] = A[(l % 16) * 16 + 8 * (l / 16) + j];
    b[j] = B[(8 * (l / 16) + j) * 16 + l % 16];
  }
  float8v c;
  for (uint v = 0; v < 8; v++)
    c[v] = C[(8 * (l / 16) + v) * 16 + l % 16];
  float8v d = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(a, b, c);
  for (uint v = 0; v < 8; v++)
    D[(8 * (l / 16) + v) * 16 + l % 16] = d[v];
}
