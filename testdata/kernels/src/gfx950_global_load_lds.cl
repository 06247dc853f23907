// targets: gfx950
// gfx950_global_load_lds: gfx950-only global_load_lds_dwordx4 (LDS DMA of
// 16 bytes per lane, FLAT op 0x7d): each wave loads its 64 uint4 of the
// group's slice straight into LDS at M0 + lane*16, then the group reads
// them back reversed: out[g*128 + t] = in[g*128 + 127 - t]. Groups of 128.
#include "common.h"
#include "gfx950.h"

// The asm names M0 as clobbered, which clang reports as a reserved
// register; nothing else in the kernel uses M0.
#pragma clang diagnostic ignored "-Winline-asm"

__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void gfx950_global_load_lds(__global const uint4 *in, __global uint4 *out) {
  __local uint4 buf[128];
  uint t = local_id_x();
  uint base = group_id_x() * 128;
  GLOBAL_LOAD_LDS_DWORDX4(in + base + t, &buf[t / 64 * 64]);
  group_barrier();
  out[base + t] = buf[127 - t];
}
