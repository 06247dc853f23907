package cost

import (
	"math"
	"testing"
)

func TestOf(t *testing.T) {
	for name, want := range map[string]Class{
		"v_mfma_f32_16x16x32_fp8_fp8": MFMA,
		"v_smfmac_f32_16x16x64_bf16":  MFMA,
		"v_wmma_f32_16x16x16_f16":     MFMA,
		"v_swmmac_f32_16x16x32_bf16":  MFMA,
		"v_add_f32_e32":               VALU,
		"v_cvt_pk_fp8_f32":            VALU,
		"global_load_dwordx4":         Memory,
		"ds_read_b64_tr_b16":          Memory,
		"buffer_load_dword":           Memory,
		"s_load_dwordx2":              Memory,
		"s_buffer_load_dword":         Memory,
		"scratch_store_dword":         Memory,
		"s_add_u32":                   SALU,
		"s_waitcnt":                   SALU,
		"s_cbranch_scc1":              SALU,
		"exp":                         Other,
		"":                            Other,
	} {
		if got := Of(name); got != want {
			t.Errorf("Of(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestRatio(t *testing.T) {
	var g, h Counts
	g.Add(MFMA, 10)
	g.Add(VALU, 30)
	h.Add(MFMA, 10)
	h.Add(VALU, 60)
	h.Add(SALU, 10) // the guest has none: charged to the total only
	per, tot := Ratio(g, h)
	if per[MFMA] != 1 || per[VALU] != 2 || per[SALU] != 0 {
		t.Errorf("per class %v", per)
	}
	if tot != 2 {
		t.Errorf("total %v, want 2", tot)
	}
	w := WeightedBy(g, h, DefaultWeights)
	want := (16*10 + 4*60 + 10.0) / (16*10 + 4*30)
	if math.Abs(w-want) > 1e-12 {
		t.Errorf("weighted %v, want %v", w, want)
	}
	if _, tot := Ratio(Counts{}, h); tot != 0 {
		t.Errorf("empty guest ratio %v", tot)
	}
	if WeightedBy(Counts{}, h, DefaultWeights) != 0 {
		t.Error("empty guest weighted ratio not 0")
	}
	if h.Total() != 80 {
		t.Errorf("total %d", h.Total())
	}
	var s Counts
	s.AddCounts(g)
	s.AddCounts(h)
	if s[VALU] != 90 {
		t.Errorf("AddCounts %v", s)
	}
	if MFMA.String() != "mfma" || Class(9).String() != "class(9)" {
		t.Error("String")
	}
}
