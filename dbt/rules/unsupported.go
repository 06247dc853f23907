package rules

import (
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// Why the gfx950-only operations without a rule have none: each entry is
// the reason a kernel using the operation is rejected for gfx942. A reason
// says either why no faithful gfx942 sequence exists or what fact a rule
// would have to be proven against and is missing; "not yet" entries are
// sequences that exist but have no proven rule. Keys are mnemonics (" lds"
// suffix for the load-to-LDS forms), as in the legalizer's table.
var unsupported = map[Pair]map[string]string{
	{isa.GFX950, isa.GFX942}: gfx950Unsupported(),
}

const (
	whySR  = "stochastic rounding: gfx950 adds bits of the seed operand below the result's precision before truncating; which seed bits and in which width is not stated by any source the project holds, and gfx942 has no stochastic-rounding conversion, so no sequence can be proven equal (the simulator does not model it either)"
	why6   = "FP6/BF6 32-element conversions: the packing of 32 six-bit elements over six dwords (element order and dword boundaries) is not stated by the sources the project holds and the simulator does not model it, so no expansion can be proven"
	whyDot = "bf16 dot products: how gfx950 rounds a0*b0 + a1*b1 + c (once, or per addition; denormals) is not stated by the sources the project holds, the simulator's model (float64 sum, one rounding) is an assumption, and gfx942 has no bf16 dot instruction; a sequence matching the model would not be proven faithful"
)

func gfx950Unsupported() map[string]string {
	m := map[string]string{
		"v_prng_b32":                    "v_prng_b32's generator (the LFSR taps and the bits it returns) is not stated by the sources the project holds and the simulator does not model it; without it no gfx942 sequence can be shown to give the same numbers",
		"ds_read_b96_tr_b6":             "ds_read_b96_tr_b6's lane/element transpose of 6-bit elements (which of 16 lanes' 96-bit rows each result element comes from) is not stated by the sources the project holds and the simulator does not model it",
		"buffer_load_dwordx3 lds":       "the per-lane LDS stride of the 12-byte load-to-LDS (12 or 16 bytes) is not settled: the simulator writes lane*12 and the buffer-load-lds-wide notes assume 16; no rule until a gfx950 source decides it",
		"global_load_lds_dwordx3":       "the per-lane LDS stride of the 12-byte load-to-LDS (12 or 16 bytes) is not settled: the simulator writes lane*12 and the buffer-load-lds-wide notes assume 16; no rule until a gfx950 source decides it",
		"v_mfma_ld_scale_b32":           "v_mfma_ld_scale_b32 only sets the scales of the next scaled MFMA; it is translated together with that MFMA (mfma-scale-f8f6f4-bf16) and alone has no gfx942 meaning",
		"v_cvt_sr_bf16_f32":             whySR,
		"v_cvt_sr_f16_f32":              whySR,
		"v_cvt_scalef32_f16_fp8":        "scalar scaled FP8->f16: which half of vdst is written and whether the other half is kept (op_sel[3]) is not modelled by the simulator; not yet",
		"v_cvt_scalef32_f16_bf8":        "scalar scaled BF8->f16: which half of vdst is written and whether the other half is kept (op_sel[3]) is not modelled by the simulator; not yet",
		"v_ashr_pk_i8_i32":              "not yet: the saturating pack of two arithmetic shifts has an exact gfx942 sequence (v_ashrrev_i32, v_med3_i32, v_perm_b32), but which the result's upper 16 bits are with op_sel[3] clear (zeroed or kept) is not stated by a gfx950 source (the simulator zeroes them and ignores op_sel), so no rule is proven",
		"v_ashr_pk_u8_i32":              "not yet: the saturating pack of two arithmetic shifts has an exact gfx942 sequence (v_ashrrev_i32, v_med3_i32, v_perm_b32), but which the result's upper 16 bits are with op_sel[3] clear (zeroed or kept) is not stated by a gfx950 source (the simulator zeroes them and ignores op_sel), so no rule is proven",
		"v_bitop3_b16":                  "not yet: the bitop3 rule covers the 32-bit form; the 16-bit form's op_sel and upper-half behaviour are not confirmed by a gfx950 source (the simulator ignores op_sel and zeroes the upper half), so the rule is not extended to it",
		"v_dot2_f32_bf16":               whyDot,
		"v_dot2c_f32_bf16":              whyDot,
		"v_cvt_scalef32_2xpk16_fp6_f32": why6,
		"v_cvt_scalef32_2xpk16_bf6_f32": why6,
		"v_cvt_scalef32_pk32_f32_fp6":   why6,
		"v_cvt_scalef32_pk32_f32_bf6":   why6,
		"v_cvt_scalef32_pk32_f16_fp6":   why6,
		"v_cvt_scalef32_pk32_f16_bf6":   why6,
		"v_cvt_scalef32_pk32_bf16_fp6":  why6,
		"v_cvt_scalef32_pk32_bf16_bf6":  why6,
		"v_cvt_scalef32_pk32_fp6_f16":   why6,
		"v_cvt_scalef32_pk32_fp6_bf16":  why6,
		"v_cvt_scalef32_pk32_bf6_f16":   why6,
		"v_cvt_scalef32_pk32_bf6_bf16":  why6,
	}
	for _, to := range []string{"fp8", "bf8"} {
		for _, from := range []string{"f32", "f16", "bf16"} {
			m["v_cvt_scalef32_sr_"+to+"_"+from] = whySR
		}
	}
	for _, from := range []string{"f32", "f16", "bf16"} {
		m["v_cvt_scalef32_sr_pk_fp4_"+from] = whySR
		m["v_cvt_scalef32_sr_pk32_fp6_"+from] = whySR + "; " + why6
		m["v_cvt_scalef32_sr_pk32_bf6_"+from] = whySR + "; " + why6
	}
	return m
}

// Unsupported returns the written reason why a guest operation (key: the
// mnemonic, with " lds" for load-to-LDS forms) has no rule for the pair,
// or "" when none is recorded.
func Unsupported(guest, host isa.Target, key string) string {
	return unsupported[Pair{guest, host}][strings.TrimSpace(key)]
}

// UnsupportedKeys returns the operations with a recorded reason.
func UnsupportedKeys(guest, host isa.Target) []string {
	var out []string
	for k := range unsupported[Pair{guest, host}] {
		out = append(out, k)
	}
	return out
}
