// fp8_to_f32.h: the body shared by fp8_fnuz_to_f32 and fp8_ocp_to_f32.
// Item i converts byte i%4 of in[i/4] with v_cvt_f32_fp8 and
// v_cvt_f32_bf8 (byte selected by SDWA on gfx9, byte_sel on gfx12); a NaN
// result is written as the canonical 0x7fc00000. The same instructions mean
// FNUZ formats on gfx942 and OCP formats on gfx950 and gfx12, so the two
// kernels have identical code and different expected results.
#define FP8_TO_F32_KERNEL(NAME)                                                   \
  __kernel void NAME(__global const uint *in, __global float *fp8,               \
                     __global float *bf8) {                                      \
    uint i = global_id_x();                                                      \
    uint w = in[i / 4];                                                          \
    float a, b;                                                                  \
    switch (i % 4) {                                                             \
    case 0:                                                                      \
      a = __builtin_amdgcn_cvt_f32_fp8(w, 0);                                    \
      b = __builtin_amdgcn_cvt_f32_bf8(w, 0);                                    \
      break;                                                                     \
    case 1:                                                                      \
      a = __builtin_amdgcn_cvt_f32_fp8(w, 1);                                    \
      b = __builtin_amdgcn_cvt_f32_bf8(w, 1);                                    \
      break;                                                                     \
    case 2:                                                                      \
      a = __builtin_amdgcn_cvt_f32_fp8(w, 2);                                    \
      b = __builtin_amdgcn_cvt_f32_bf8(w, 2);                                    \
      break;                                                                     \
    default:                                                                     \
      a = __builtin_amdgcn_cvt_f32_fp8(w, 3);                                    \
      b = __builtin_amdgcn_cvt_f32_bf8(w, 3);                                    \
      break;                                                                     \
    }                                                                            \
    fp8[i] = a != a ? __builtin_nanf("") : a;                                    \
    bf8[i] = b != b ? __builtin_nanf("") : b;                                    \
  }
