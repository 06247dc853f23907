// targets: gfx942
// mfma_f32_32x32x8f16: one wave64 computes D = A * B + C with
// v_mfma_f32_32x32x8_f16 for row-major A (32x8 f16), B (8x32 f16) and
// C, D (32x32 f32). Lane l holds A[l%32][4*(l/32)+j] and
// B[4*(l/32)+j][l%32] (j = 0..3); accumulator register v of lane l is
// element [8*(v/4) + 4*(l/32) + v%4][l%32].
#include "common.h"

typedef half half4 __attribute__((ext_vector_type(4)));
typedef float float16v __attribute__((ext_vector_type(16)));

__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void mfma_f32_32x32x8f16(__global const half *A, __global const half *B,
                         __global const float *C, __global float *D) {
  uint l = local_id_x();
  half4 a, b;
  for (uint j = 0; j < 4; j++) {
    a[j] = A[(l % 32) * 8 + 4 * (l / 32) + j];
    b[j] = B[(4 * (l / 32) + j) * 32 + l % 32];
  }
  float16v c;
  for (uint v = 0; v < 16; v++)
    c[v] = C[(8 * (v / 4) + 4 * (l / 32) + v % 4) * 32 + l % 32];
  float16v d = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, 0, 0, 0);
  for (uint v = 0; v < 16; v++)
    D[(8 * (v / 4) + 4 * (l / 32) + v % 4) * 32 + l % 32] = d[v];
}
