package wave

import (
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/cost"
)

// TestMFMAPassesCoverDecoder: every gfx9 matrix mnemonic the decoder
// knows has its passes in dbt/cost's table for gfx942 or gfx950, so no
// MFMA silently weighs one pass in the issue-cycle model
// (v_mfma_ld_scale_b32, the scale prefix of a scaled MFMA, is not a
// matrix operation and weighs one).
func TestMFMAPassesCoverDecoder(t *testing.T) {
	n := 0
	for _, tab := range [][]string{namesVOP3[:], namesVOP3P[:]} {
		for _, name := range tab {
			if name == "" || cost.Of(name) != cost.MFMA || name == "v_mfma_ld_scale_b32" {
				continue
			}
			n++
			_, a := cost.MFMAPasses("gfx942", name, true)
			_, b := cost.MFMAPasses("gfx950", name, true)
			if !a && !b {
				t.Errorf("%s: no passes for gfx942 or gfx950", name)
			}
		}
	}
	if n < 40 {
		t.Errorf("only %d matrix mnemonics in the decoder tables", n)
	}
}

// TestClassify: a decoded instruction carries its class and its weight
// on the decoding target.
func TestClassify(t *testing.T) {
	for _, c := range []struct {
		name   string
		target Target
		class  cost.Class
		passes uint8
	}{
		{"v_mfma_f64_16x16x4_f64", GFX942, cost.MFMA, 8},
		{"v_mfma_f64_16x16x4_f64", GFX950, cost.MFMA, 16},
		{"v_add_f32", GFX950, cost.VALU, 1},
		{"s_load_dwordx2", GFX942, cost.Memory, 1},
		{"v_mfma_f32_16x16x32_f16", GFX1201, cost.MFMA, 1},
	} {
		in := &Inst{Name: c.name}
		classify(in, c.target)
		if cost.Class(in.class) != c.class || in.passes != c.passes {
			t.Errorf("%s on %s: class %v passes %d, want %v %d", c.name, c.target, cost.Class(in.class), in.passes, c.class, c.passes)
		}
	}
	// f8f6f4: CBSZ/BLGP 0 or 1 is FP8/BF8 (twice the passes), 2-4 FP6/FP4.
	for _, c := range []struct {
		cbsz, blgp, passes uint8
	}{{0, 0, 8}, {4, 1, 8}, {2, 4, 4}, {4, 4, 4}} {
		in := &Inst{Name: "v_mfma_f32_16x16x128_f8f6f4", Cbsz: c.cbsz, Blgp: c.blgp}
		classify(in, GFX950)
		if in.passes != c.passes {
			t.Errorf("f8f6f4 cbsz %d blgp %d: %d passes, want %d", c.cbsz, c.blgp, in.passes, c.passes)
		}
	}
}
