package dbt

import (
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// TestGFX12ScaleCvtAgainstGFX950Simulator is the differential test of the
// gfx12 scaled conversions: every widening form (FP4 through the
// retargeted gfx942 rule, FP8/BF8 through gfx12's OCP decoders) and the
// FP4 narrowing forms run on the simulated gfx950 agent and, translated,
// on the simulated gfx1201 and gfx1200 agents over the lane inputs of
// scaleCvtCases (every float class, every element code, scales with
// mantissa noise); results must be equal, NaN matching NaN. The FP8/BF8
// narrowing forms, whose gfx942 expansion relies on gfx942's FNUZ
// conversions, must be rejected with that reason.
func TestGFX12ScaleCvtAgainstGFX950Simulator(t *testing.T) {
	var ok, refused []scaleCvtCase
	for _, c := range scaleCvtCases {
		if c.kind == "fp8" || c.kind == "bf8" {
			refused = append(refused, c)
		} else {
			ok = append(ok, c)
		}
	}
	if len(ok) < 15 || len(refused) < 8 {
		t.Fatalf("%d cases with a gfx12 rule, %d without: the case list changed", len(ok), len(refused))
	}
	guest := scaleCvtGuest(t, ok)
	size := 64 * 4 * scaleCvtDwords
	want := runKernelOn(t, guest, "gfx950", size)
	for _, host := range []isa.Target{isa.GFX1201, isa.GFX1200} {
		res, err := Translate(guest, Options{Name: "scalecvt", Host: host})
		if err != nil {
			var b strings.Builder
			res.Report.WriteText(&b)
			t.Fatalf("%s: %v\n%s", host, err, b.String())
		}
		verifyObject12(t, "scalecvt", host, guest, res.Object)
		got := runKernelOn(t, res.Object, host.String(), size)
		compareScaleCvt(t, ok, got, want)
	}
	res, err := Translate(scaleCvtGuest(t, refused), Options{Name: "scalecvt-fp8", Host: isa.GFX1201})
	if err == nil {
		t.Fatal("the FP8/BF8 narrowing conversions translated for gfx1201")
	}
	n := 0
	for _, k := range res.Report.Kernels {
		for _, r := range k.Rejections {
			if !strings.HasPrefix(r.Mnemonic, "v_cvt_scalef32_pk_") {
				t.Errorf("%s rejected: %s", r.Mnemonic, r.Reason)
				continue
			}
			if !strings.Contains(r.Reason, "FNUZ") && !strings.Contains(r.Reason, "has no gfx12 rule") {
				t.Errorf("%s rejected for another reason: %s", r.Mnemonic, r.Reason)
			}
			n++
		}
	}
	if n != len(refused) {
		t.Errorf("%d rejections for %d FP8/BF8 narrowing conversions", n, len(refused))
	}
}
