/* The test kernel of the shim's end-to-end tests, compiled with
 * clang-19 -x cl -target amdgcn-amd-amdhsa -mcpu=gfx942 -nogpulib. Its
 * kernarg segment (24 bytes) carries the dispatch tag of hiplike.c. */
__kernel void scale(__global float *out, __global const float *in, float k, int n) {
  int i = __builtin_amdgcn_workitem_id_x() + __builtin_amdgcn_workgroup_id_x() * 256;
  __local float tmp[256];
  tmp[__builtin_amdgcn_workitem_id_x()] = in[i] * k;
  __builtin_amdgcn_s_barrier();
  if (i < n) out[i] = tmp[__builtin_amdgcn_workitem_id_x()];
}
