// targets: gfx1200 gfx1201
// wmma_i32_16x16x16iu8: D = A * B + C with the gfx12
// v_wmma_i32_16x16x16_iu8, A signed and B unsigned 8-bit (16x16, row-major),
// C and D 32-bit (wrapping). Built for wave32 and, with -mwavefrontsize64,
// for wave64; every wave of the 64-lane group computes the whole product
// (identical stores). Layouts (AMD's matrix instruction calculator, RDNA4):
// wave32: byte c of VGPR v in lane l is A[l%16][8*(l/16)+4*v+c] (B with
// row and column swapped), accumulator VGPR v is D[8*(l/16)+v][l%16];
// wave64: one VGPR, byte c is A[l%16][8*((l/16)%2)+4*(l/32)+c],
// accumulator VGPR v is D[8*((l/16)%2)+4*(l/32)+v][l%16].
#include "common.h"

#if __AMDGCN_WAVEFRONT_SIZE__ == 64
#define NV 1
#define NC 4
#define KBASE(l) (8 * (((l) / 16) % 2) + 4 * ((l) / 32))
#define ROW(l, v) (8 * (((l) / 16) % 2) + 4 * ((l) / 32) + (v))
typedef int accv __attribute__((ext_vector_type(4)));
#else
#define NV 2
#define NC 8
#define KBASE(l) (8 * ((l) / 16))
#define ROW(l, v) (8 * ((l) / 16) + (v))
typedef int accv __attribute__((ext_vector_type(8)));
typedef int int2v __attribute__((ext_vector_type(2)));
#endif

__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void wmma_i32_16x16x16iu8(__global const char *A, __global const uchar *B,
                          __global const int *C, __global int *D) {
  uint l = local_id_x() % __AMDGCN_WAVEFRONT_SIZE__;
  uint av[NV], bv[NV];
  for (uint v = 0; v < NV; v++) {
    uint a = 0, b = 0;
    for (uint c = 0; c < 4; c++) {
      uint k = KBASE(l) + 4 * v + c;
      a |= (uint)(uchar)A[(l % 16) * 16 + k] << (8 * c);
      b |= (uint)B[k * 16 + l % 16] << (8 * c);
    }
    av[v] = a;
    bv[v] = b;
  }
  accv acc;
  for (uint v = 0; v < NC; v++)
    acc[v] = C[ROW(l, v) * 16 + l % 16];
#if __AMDGCN_WAVEFRONT_SIZE__ == 64
  accv d = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w64_gfx12(true, (int)av[0], false, (int)bv[0], acc, false);
#else
  int2v a2 = {(int)av[0], (int)av[1]}, b2 = {(int)bv[0], (int)bv[1]};
  accv d = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12(true, a2, false, b2, acc, false);
#endif
  for (uint v = 0; v < NC; v++)
    D[ROW(l, v) * 16 + l % 16] = d[v];
}
