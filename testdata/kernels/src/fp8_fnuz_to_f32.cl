// targets: gfx942
// retarget: none
// fp8_fnuz_to_f32: every one of the 256 FP8 and BF8 byte values decoded by
// the gfx942 v_cvt_f32_fp8 / v_cvt_f32_bf8, whose formats are FNUZ
// (E4M3 bias 8, E5M2 bias 16, 0x80 = NaN, no infinity, no -0). Built for
// gfx942 only: the same code on gfx950 decodes OCP formats
// (fp8_ocp_to_f32), so it gets no gfx950 copy.
#include "common.h"
#include "fp8_to_f32.h"

FP8_TO_F32_KERNEL(fp8_fnuz_to_f32)
