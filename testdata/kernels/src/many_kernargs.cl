// many_kernargs: a kernel whose arguments have mixed sizes and alignments
// (char, uchar, short, ushort, int, uint, long, ulong, float, double,
// half, float4, pointers). Item i writes 16 u64 words to out[16*i ..]:
// each argument widened to 64 bits (floats as their f64 value's bits,
// scaled by i+1 where noted in the Go reference).
#include "common.h"

__kernel void many_kernargs(char c, uchar uc, short s, __global ulong *out,
                            ushort us, int k, uint u, long l, ulong ul,
                            float f, double d, half h, float4 v,
                            __global const uint *in, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  __global ulong *o = out + 16 * i;
  ulong m = i + 1;
  o[0] = (ulong)(long)c * m;
  o[1] = (ulong)uc * m;
  o[2] = (ulong)(long)s * m;
  o[3] = (ulong)us * m;
  o[4] = (ulong)(long)k * m;
  o[5] = (ulong)u * m;
  o[6] = (ulong)l * m;
  o[7] = ul * m;
  o[8] = as_ulong((double)f * (double)m);
  o[9] = as_ulong(d * (double)m);
  o[10] = as_ulong((double)(float)h);
  o[11] = as_ulong((double)v.x);
  o[12] = as_ulong((double)v.y);
  o[13] = as_ulong((double)(v.z + v.w));
  o[14] = (ulong)in[i] * m;
  o[15] = (ulong)n;
}
