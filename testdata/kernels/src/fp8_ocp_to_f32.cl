// targets: gfx950 gfx1200 gfx1201
// fp8_ocp_to_f32: every one of the 256 FP8 and BF8 byte values decoded by
// v_cvt_f32_fp8 / v_cvt_f32_bf8 on gfx950 and gfx12, whose formats are OCP
// (E4M3FN bias 7 with only S.1111.111 NaN and no infinity; E5M2 bias 15
// with IEEE infinities and NaNs). The gfx950 object is the gfx942 build
// retargeted: identical code to fp8_fnuz_to_f32, different meaning.
#include "common.h"
#include "fp8_to_f32.h"

FP8_TO_F32_KERNEL(fp8_ocp_to_f32)
