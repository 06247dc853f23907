// targets: gfx942
// mfma_i32_16x16x32i8: one wave64 computes D = A * B + C with
// v_mfma_i32_16x16x32_i8 for row-major A (16x32 i8), B (32x16 i8),
// C, D (16x16 i32). Lane l holds A[l%16][8*(l/16)+j] and
// B[8*(l/16)+j][l%16] (j = 0..7, byte j of the 64-bit operand);
// accumulator register v of lane l is element [4*(l/16)+v][l%16].
#include "common.h"

typedef int int4v __attribute__((ext_vector_type(4)));

__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void mfma_i32_16x16x32i8(__global const char *A, __global const char *B,
                         __global const int *C, __global int *D) {
  uint l = local_id_x();
  ulong a = 0, b = 0;
  for (uint j = 0; j < 8; j++) {
    a |= (ulong)(uchar)A[(l % 16) * 32 + 8 * (l / 16) + j] << (8 * j);
    b |= (ulong)(uchar)B[(8 * (l / 16) + j) * 16 + l % 16] << (8 * j);
  }
  int4v c;
  for (uint v = 0; v < 4; v++)
    c[v] = C[(4 * (l / 16) + v) * 16 + l % 16];
  int4v d = __builtin_amdgcn_mfma_i32_16x16x32_i8((long)a, (long)b, c, 0, 0, 0);
  for (uint v = 0; v < 4; v++)
    D[(4 * (l / 16) + v) * 16 + l % 16] = d[v];
}
