// transcendental: f32 hardware transcendentals and division, checked with
// tolerances: sqrt (__builtin_sqrtf), exp2 (v_exp_f32), log2 (v_log_f32),
// rsq, rcp, sin and cos (v_sin/v_cos take revolutions, so the result is
// sin(2*pi*x)) and x / y. Inputs: x in [0.5, 4), y in [1, 2).
#include "common.h"

__kernel void transcendental(__global const float *x, __global const float *y,
                             __global float *o_sqrt, __global float *o_exp2,
                             __global float *o_log2, __global float *o_rsq,
                             __global float *o_rcp, __global float *o_sin,
                             __global float *o_cos, __global float *o_div, uint n) {
  uint i = global_id_x();
  if (i >= n)
    return;
  float a = x[i], b = y[i];
  o_sqrt[i] = __builtin_sqrtf(a);
  o_exp2[i] = __builtin_amdgcn_exp2f(a);
  o_log2[i] = __builtin_amdgcn_logf(a);
  o_rsq[i] = __builtin_amdgcn_rsqf(a);
  o_rcp[i] = __builtin_amdgcn_rcpf(a);
  o_sin[i] = __builtin_amdgcn_sinf(a - 2.0f);
  o_cos[i] = __builtin_amdgcn_cosf(a - 2.0f);
  o_div[i] = a / b;
}
