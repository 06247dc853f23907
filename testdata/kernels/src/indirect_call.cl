// indirect_call: calls through a table of four device functions picked per
// item by data (in[i] & 3). The table lives in read-only data holding code
// addresses fixed up by R_AMDGPU_RELATIVE64 relocations, and the divergent
// call is a waterfall loop (v_readfirstlane + s_swappc_b64 per distinct
// target). out[i] = f_{in[i]&3}(in[i]).
#include "common.h"

#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable

__attribute__((noinline)) static uint f0(uint x) { return x * 3u + 1u; }
__attribute__((noinline)) static uint f1(uint x) { return x ^ 0xdeadbeefu; }
__attribute__((noinline)) static uint f2(uint x) { return (x << 5) | (x >> 27); }
__attribute__((noinline)) static uint f3(uint x) { return x / 7u; }

__kernel void indirect_call(__global const uint *in, __global uint *out, uint n) {
  uint (*const table[4])(uint) = {f0, f1, f2, f3};
  uint i = global_id_x();
  if (i < n) {
    uint v = in[i];
    out[i] = table[v & 3](v);
  }
}
