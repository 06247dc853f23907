// saxpy: y[i] = a * x[i] + y[i] (f32, separately rounded multiply and add;
// the corpus is built with -ffp-contract=off).
#include "common.h"

__kernel void saxpy(float a, __global const float *x, __global float *y, uint n) {
  uint i = global_id_x();
  if (i < n)
    y[i] = a * x[i] + y[i];
}
