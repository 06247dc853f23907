// matmul_tiled: the same product as matmul_naive through 16x16 LDS tiles
// (M, N, K multiples of 16, 16x16 groups). Summation order per element is
// k = 0 .. K-1 as in matmul_naive, so the results are bit-identical.
#include "common.h"

#define T 16

__kernel __attribute__((reqd_work_group_size(T, T, 1)))
void matmul_tiled(__global const float *A, __global const float *B,
                  __global float *C, uint M, uint N, uint K) {
  __local float As[T][T];
  __local float Bs[T][T];
  uint tx = local_id_x(), ty = local_id_y();
  uint col = group_id_x() * T + tx;
  uint row = group_id_y() * T + ty;
  float acc = 0.0f;
  for (uint k0 = 0; k0 < K; k0 += T) {
    As[ty][tx] = A[row * K + k0 + tx];
    Bs[ty][tx] = B[(k0 + ty) * N + col];
    group_barrier();
    for (uint k = 0; k < T; k++)
      acc += As[ty][k] * Bs[k][tx];
    group_barrier();
  }
  C[row * N + col] = acc;
}
