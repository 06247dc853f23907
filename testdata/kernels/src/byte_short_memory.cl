// byte_short_memory: 8- and 16-bit loads (sign- and zero-extending) and
// stores: out[i] = c[i] + 3*s[i] + uc[i] + us[i] (i32);
// ob[i] = (uchar)(c[i] ^ i); os[i] = (short)(s[i] * 5 - i).
#include "common.h"

__kernel void byte_short_memory(__global const char *c, __global const uchar *uc,
                                __global const short *s, __global const ushort *us,
                                __global int *out, __global uchar *ob,
                                __global short *os, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  out[i] = (int)c[i] + 3 * (int)s[i] + (int)uc[i] + (int)us[i];
  ob[i] = (uchar)(c[i] ^ (char)i);
  os[i] = (short)(s[i] * 5 - (int)i);
}
