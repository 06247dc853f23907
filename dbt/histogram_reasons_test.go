package dbt

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

// TestGFX950HistogramHasOnlyWrittenReasons is what `rocjitsu translate
// --histogram` over the aiter gfx950 corpus and the gfx950 test kernels
// must show for gfx942: every guest instruction the host cannot run as it
// is has a rule, or is rejected with a reason written in dbt/rules
// (unsupported.go). It also counts the rows so the README's figure can be
// checked.
func TestGFX950HistogramHasOnlyWrittenReasons(t *testing.T) {
	files := append(corpus(t, "gfx950"), testKernels(t, "gfx950")...)
	total := map[string]Count{}
	for _, f := range files {
		obj, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h, err := GuestOnly(obj, isa.GFX942)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(f), err)
		}
		for k, c := range h {
			if c.Action == report.Reject && rules.Unsupported(isa.GFX950, isa.GFX942, k) == "" {
				t.Errorf("%s: %s (x%d) is rejected without a written reason", filepath.Base(f), k, c.Count)
			}
			s := total[k]
			s.Mnemonic, s.Action, s.Rule = k, c.Action, c.Rule
			s.Count += c.Count
			total[k] = s
		}
	}
	rejected := 0
	for _, c := range total {
		if c.Action == report.Reject {
			rejected++
		}
	}
	t.Logf("%d objects: %d guest-only mnemonics, %d rejected (each with a written reason)", len(files), len(total), rejected)
}
