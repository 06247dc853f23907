// targets: gfx942
// mfma_f32_16x16x16f16: each wave64 of the group computes one
// D = A * B + C (16x16x16, f16 inputs, f32 accumulate) with
// v_mfma_f32_16x16x16_f16; wave w uses matrices at index w of the arrays.
// Lane l holds A[l%16][4*(l/16)+j] and B[4*(l/16)+j][l%16] (j = 0..3);
// accumulator register v of lane l is element [4*(l/16)+v][l%16].
#include "common.h"

typedef half half4 __attribute__((ext_vector_type(4)));
typedef float float4v __attribute__((ext_vector_type(4)));

__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void mfma_f32_16x16x16f16(__global const half *A, __global const half *B,
                          __global const float *C, __global float *D) {
  uint w = group_id_x() * 2 + local_id_x() / 64;
  uint l = local_id_x() % 64;
  A += w * 256; B += w * 256; C += w * 256; D += w * 256;
  half4 a, b;
  for (uint j = 0; j < 4; j++) {
    a[j] = A[(l % 16) * 16 + 4 * (l / 16) + j];
    b[j] = B[(4 * (l / 16) + j) * 16 + l % 16];
  }
  float4v c;
  for (uint v = 0; v < 4; v++)
    c[v] = C[(4 * (l / 16) + v) * 16 + l % 16];
  float4v d = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c, 0, 0, 0);
  for (uint v = 0; v < 4; v++)
    D[(4 * (l / 16) + v) * 16 + l % 16] = d[v];
}
