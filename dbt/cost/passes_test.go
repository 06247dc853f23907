package cost

import "testing"

// TestMFMAPasses checks the table against figures of LLVM's scheduling
// model for gfx942 and gfx950 (SISchedule.td).
func TestMFMAPasses(t *testing.T) {
	for _, c := range []struct {
		target, name string
		f8           bool
		want         int // 0: not known on target
	}{
		{"gfx942", "v_mfma_f32_16x16x32_fp8_fp8", false, 4},
		{"gfx950", "v_mfma_f32_16x16x32_fp8_fp8", false, 4},
		{"gfx942", "v_mfma_f32_32x32x16_bf8_fp8", false, 8},
		{"gfx942", "v_mfma_f32_16x16x16_bf16", false, 4},
		{"gfx942", "v_mfma_f32_32x32x8_f16", false, 8},
		{"gfx942", "v_mfma_f32_32x32x2_f32", false, 16},
		{"gfx942", "v_mfma_f32_16x16x4_f32", false, 8},
		{"gfx942", "v_mfma_f32_4x4x4_16b_f16", false, 2},
		{"gfx942", "v_mfma_f64_16x16x4_f64", false, 8},
		{"gfx950", "v_mfma_f64_16x16x4_f64", false, 16},
		{"gfx942", "v_mfma_f32_16x16x8_xf32", false, 4},
		{"gfx950", "v_mfma_f32_16x16x8_xf32", false, 0}, // removed on gfx950
		{"gfx950", "v_mfma_f32_16x16x32_bf16", false, 4},
		{"gfx942", "v_mfma_f32_16x16x32_bf16", false, 0}, // gfx950 only
		{"gfx950", "v_mfma_f32_32x32x16_f16", false, 8},
		{"gfx950", "v_mfma_i32_16x16x64_i8", false, 4},
		{"gfx950", "v_mfma_f32_16x16x128_f8f6f4", true, 8},
		{"gfx950", "v_mfma_f32_16x16x128_f8f6f4", false, 4},
		{"gfx950", "v_mfma_scale_f32_32x32x64_f8f6f4", true, 16},
		{"gfx950", "v_mfma_f32_32x32x64_f8f6f4", false, 8},
		{"gfx942", "v_mfma_f32_16x16x128_f8f6f4", true, 0},
		{"gfx942", "v_smfmac_f32_16x16x64_fp8_fp8", false, 4},
		{"gfx942", "v_smfmac_f32_32x32x16_bf16", false, 8},
		{"gfx942", "v_smfmac_f32_16x16x128_fp8_fp8", false, 0}, // gfx950 only
		{"gfx950", "v_smfmac_f32_16x16x128_fp8_fp8", false, 4},
		{"gfx950", "v_smfmac_f32_32x32x64_bf8_bf8", false, 8},
		{"gfx950", "v_mfma_ld_scale_b32", false, 0},
		{"gfx1201", "v_mfma_f32_16x16x32_fp8_fp8", false, 0},
		{"gfx942", "v_add_f32", false, 0},
	} {
		got, ok := MFMAPasses(c.target, c.name, c.f8)
		if !ok {
			got = 0
		}
		if got != c.want {
			t.Errorf("MFMAPasses(%s, %s, f8=%v) = %d, %v; want %d", c.target, c.name, c.f8, got, ok, c.want)
		}
	}
}

// TestIssuePasses: matrix instructions weigh their passes, everything else
// (and a matrix instruction the table does not know) one.
func TestIssuePasses(t *testing.T) {
	if p := IssuePasses("gfx942", "v_mfma_f32_32x32x16_fp8_fp8", MFMA, false); p != 8 {
		t.Errorf("32x32x16 fp8 on gfx942: %d", p)
	}
	if p := IssuePasses("gfx942", "v_add_f32", VALU, false); p != 1 {
		t.Errorf("v_add_f32: %d", p)
	}
	if p := IssuePasses("gfx1201", "v_wmma_f32_16x16x16_f16", MFMA, false); p != 1 {
		t.Errorf("wmma on gfx1201: %d", p)
	}
	// The point of the model: the gfx950 FP8 16x16x128 MFMA (8 passes)
	// against the four gfx942 16x16x32 FP8 MFMAs of its translation.
	g := IssuePasses("gfx950", "v_mfma_f32_16x16x128_f8f6f4", MFMA, true)
	h := 4 * IssuePasses("gfx942", "v_mfma_f32_16x16x32_fp8_fp8", MFMA, false)
	if g != 8 || h != 16 {
		t.Errorf("16x16x128 fp8: guest %d passes, four host 16x16x32 %d", g, h)
	}
}

// TestPassesCoverNames: every name in the tables is a matrix instruction
// and no name is in both.
func TestPassesCoverNames(t *testing.T) {
	for name := range mfmaPasses {
		if Of(name) != MFMA {
			t.Errorf("%s is in the passes table but not of class MFMA", name)
		}
	}
	for name := range f8f6f4Passes {
		if _, ok := mfmaPasses[name]; ok {
			t.Errorf("%s is in both tables", name)
		}
	}
}
