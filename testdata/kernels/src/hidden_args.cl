// hidden_args: reads the code-object-v5 implicit (hidden) kernel arguments
// after the explicit ones, as OpenCL's get_global_id, get_local_size,
// get_num_groups and get_work_dim do: block counts (u32), group sizes and
// remainders (u16), global offsets (u64), grid dims (u16). The grid has a
// partial last group. For i < n: out[4i..4i+3] = global id with offset,
// this group's size, number of groups, grid dims.
#include "common.h"

typedef struct {
  uint block_count[3];     // 0: full groups per dimension
  ushort group_size[3];    // 12
  ushort remainder[3];     // 18: items in the partial last group
  ulong reserved[2];       // 24
  ulong global_offset[3];  // 40
  ushort grid_dims;        // 64
} implicit_args;

__kernel void hidden_args(__global uint *out, uint n) {
  __constant implicit_args *ia = (__constant implicit_args *)__builtin_amdgcn_implicitarg_ptr();
  uint g = group_id_x();
  uint i = g * ia->group_size[0] + local_id_x();
  if (i >= n)
    return;
  out[4 * i + 0] = i + (uint)ia->global_offset[0];
  out[4 * i + 1] = g < ia->block_count[0] ? ia->group_size[0] : ia->remainder[0];
  out[4 * i + 2] = ia->block_count[0] + (ia->remainder[0] != 0);
  out[4 * i + 3] = ia->grid_dims;
}
