package cost

import "strings"

// The issue-cycle model. A matrix instruction holds the matrix unit for a
// number of passes (one pass is four cycles) that depends on its shape,
// its element type and the ISA; every other instruction is counted as one
// pass (a wave64 VALU instruction issues over four cycles on a 16-lane
// SIMD; scalar, memory and other instructions are given the same weight
// for want of a better figure). The model ignores latency, dual issue,
// memory bandwidth and waits: it is a relative cost for comparing a guest
// with its translation, not a cycle count.
//
// The pass counts are those of LLVM's AMDGPU scheduling model
// (llvm/lib/Target/AMDGPU/SISchedule.td: the Write2PassMAI,
// Write4PassMAI, Write8PassMAI, Write16PassMAI and Write*PassDGEMM writes
// of SIDPGFX942FullSpeedModel for gfx942 and SIDPGFX950FullSpeedModel for
// gfx950, and its WriteMFMAScale_16X16X128_F8F6F4 and
// WriteMFMAScale_32X32X64_F8F6F4 variants, which take twice the passes
// when either matrix format is FP8 or BF8).

// mfmaPasses gives, per MFMA or SMFMAC mnemonic, its passes on gfx942 and
// on gfx950 (0: the ISA has no such instruction). The scaled f8f6f4 forms
// are in f8f6f4Passes.
var mfmaPasses = map[string][2]uint8{
	// 4x4 shapes: 2 passes (f64: 4).
	"v_mfma_f32_4x4x1_16b_f32":  {2, 2},
	"v_mfma_f32_4x4x4_16b_f16":  {2, 2},
	"v_mfma_f32_4x4x4_16b_bf16": {2, 2},
	"v_mfma_i32_4x4x4_16b_i8":   {2, 2},
	"v_mfma_f64_4x4x4_4b_f64":   {4, 4},
	// 16x16 shapes with K of 1 or 4 (f32, the multi-block f16/bf16/i8): 8.
	"v_mfma_f32_16x16x1_4b_f32":  {8, 8},
	"v_mfma_f32_16x16x4_f32":     {8, 8},
	"v_mfma_f32_16x16x4_4b_f16":  {8, 8},
	"v_mfma_f32_16x16x4_4b_bf16": {8, 8},
	"v_mfma_i32_16x16x4_4b_i8":   {8, 8},
	// 16x16 dense shapes: 4 passes.
	"v_mfma_f32_16x16x8_xf32":     {4, 0},
	"v_mfma_f32_16x16x16_f16":     {4, 4},
	"v_mfma_f32_16x16x16_bf16":    {4, 4},
	"v_mfma_i32_16x16x32_i8":      {4, 4},
	"v_mfma_f32_16x16x32_fp8_fp8": {4, 4},
	"v_mfma_f32_16x16x32_fp8_bf8": {4, 4},
	"v_mfma_f32_16x16x32_bf8_fp8": {4, 4},
	"v_mfma_f32_16x16x32_bf8_bf8": {4, 4},
	"v_mfma_f32_16x16x32_f16":     {0, 4},
	"v_mfma_f32_16x16x32_bf16":    {0, 4},
	"v_mfma_i32_16x16x64_i8":      {0, 4},
	// f64 16x16: 8 passes on gfx942, 16 on gfx950.
	"v_mfma_f64_16x16x4_f64": {8, 16},
	// 32x32 shapes with K of 1, 2 or 4 (f32, multi-block): 16.
	"v_mfma_f32_32x32x1_2b_f32":  {16, 16},
	"v_mfma_f32_32x32x2_f32":     {16, 16},
	"v_mfma_f32_32x32x4_2b_f16":  {16, 16},
	"v_mfma_f32_32x32x4_2b_bf16": {16, 16},
	"v_mfma_i32_32x32x4_2b_i8":   {16, 16},
	// 32x32 dense shapes: 8 passes.
	"v_mfma_f32_32x32x4_xf32":     {8, 0},
	"v_mfma_f32_32x32x8_f16":      {8, 8},
	"v_mfma_f32_32x32x8_bf16":     {8, 8},
	"v_mfma_i32_32x32x16_i8":      {8, 8},
	"v_mfma_f32_32x32x16_fp8_fp8": {8, 8},
	"v_mfma_f32_32x32x16_fp8_bf8": {8, 8},
	"v_mfma_f32_32x32x16_bf8_fp8": {8, 8},
	"v_mfma_f32_32x32x16_bf8_bf8": {8, 8},
	"v_mfma_f32_32x32x16_f16":     {0, 8},
	"v_mfma_f32_32x32x16_bf16":    {0, 8},
	"v_mfma_i32_32x32x32_i8":      {0, 8},
}

// f8f6f4Passes gives the gfx950 passes of the f8f6f4 shapes (scaled or
// not) when neither format is FP8/BF8 (FP6, BF6 or FP4); with an FP8 or
// BF8 operand they take twice as many.
var f8f6f4Passes = map[string]uint8{
	"v_mfma_f32_16x16x128_f8f6f4":       4,
	"v_mfma_scale_f32_16x16x128_f8f6f4": 4,
	"v_mfma_f32_32x32x64_f8f6f4":        8,
	"v_mfma_scale_f32_32x32x64_f8f6f4":  8,
}

// MFMAPasses returns the passes of the matrix instruction name (an LLVM
// mnemonic) on target ("gfx942" or "gfx950") in the issue-cycle model
// above. f8 says whether either matrix format of an f8f6f4 instruction is
// FP8 or BF8 (it does not matter for the others). ok is false when the
// table does not know the instruction on that target (any other target,
// v_mfma_ld_scale_b32, non-matrix instructions).
func MFMAPasses(target, name string, f8 bool) (passes int, ok bool) {
	col := 0
	switch target {
	case "gfx942":
	case "gfx950":
		col = 1
	default:
		return 0, false
	}
	if strings.HasPrefix(name, "v_smfmac_") {
		// Sparse MFMAs: 4 passes for 16x16, 8 for 32x32 on both ISAs.
		switch {
		case strings.HasPrefix(name, "v_smfmac_f32_16x16x"), strings.HasPrefix(name, "v_smfmac_i32_16x16x"):
			passes = 4
		case strings.HasPrefix(name, "v_smfmac_f32_32x32x"), strings.HasPrefix(name, "v_smfmac_i32_32x32x"):
			passes = 8
		default:
			return 0, false
		}
		if col == 0 && !smfmacOnGFX942(name) {
			return 0, false
		}
		return passes, true
	}
	if p, found := f8f6f4Passes[name]; found {
		if col == 0 {
			return 0, false
		}
		if f8 {
			return 2 * int(p), true
		}
		return int(p), true
	}
	p, found := mfmaPasses[name]
	if !found || p[col] == 0 {
		return 0, false
	}
	return int(p[col]), true
}

// smfmacOnGFX942 reports whether the sparse MFMA name exists on gfx942
// (gfx950 added the 16x16x64 f16/bf16, 16x16x128 FP8/i8, 32x32x32
// f16/bf16 and 32x32x64 FP8/i8 shapes).
func smfmacOnGFX942(name string) bool {
	for _, s := range []string{"_16x16x32_f16", "_16x16x32_bf16", "_16x16x64_i8", "_16x16x64_fp8", "_16x16x64_bf8",
		"_32x32x16_f16", "_32x32x16_bf16", "_32x32x32_i8", "_32x32x32_fp8", "_32x32x32_bf8"} {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}

// IssuePasses is the issue-cycle model's weight of one executed
// instruction of class c named name on target: its MFMA passes when the
// table knows it, 1 otherwise (every non-matrix instruction, and a matrix
// instruction the table does not know, such as v_mfma_ld_scale_b32 or a
// gfx12 WMMA).
func IssuePasses(target, name string, c Class, f8 bool) int {
	if c == MFMA {
		if p, ok := MFMAPasses(target, name, f8); ok {
			return p
		}
	}
	return 1
}
