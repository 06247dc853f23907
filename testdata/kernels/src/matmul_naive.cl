// matmul_naive: C = A * B for row-major f32 matrices A (M x K), B (K x N),
// C (M x N), one work-item per element on a 2-D grid (x = column,
// y = row); the sum runs k = 0 .. K-1, each step rounded (mul then add).
#include "common.h"

__kernel void matmul_naive(__global const float *A, __global const float *B,
                           __global float *C, uint M, uint N, uint K) {
  uint col = global_id_x();
  uint row = global_id_y();
  if (row >= M || col >= N)
    return;
  float acc = 0.0f;
  for (uint k = 0; k < K; k++)
    acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}
