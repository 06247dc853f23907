package rules

import (
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
)

// TestFP8MFMASharedKeys checks which FP8 MFMA forms get a subroutine key:
// every shaped variant has its own form, a full expansion has a key naming
// its encoding and shape, a chained 16x16x32 MFMA whose operands are
// already cleared (the MFMA alone, 8 bytes) has none, and the use's
// registers are A, B, C and D.
func TestFP8MFMASharedKeys(t *testing.T) {
	// v_mfma_f32_16x16x32_fp8_fp8 v[40:43], v[10:11], a[12:13], v[40:43]
	w := []uint32{0xd3800000 | 0x73<<16 | 40, (256 + 10) | (256+12)<<9 | (256+40)<<18 | 1<<28}
	raw := appendWords(nil, w...)
	in, err := gfx9.Decode(raw, 0, isa.GFX950)
	if err != nil {
		t.Fatal(err)
	}
	full := FP8MFMARule(FP8MFMAShape{})
	short := FP8MFMARule(FP8MFMAShape{ScaledIn: true, ScaledOut: true, A: Clean, B: Clean})
	if full.Shared == nil || short.Shared == nil || full.Shared == short.Shared {
		t.Fatalf("shaped rules' forms: %p, %p", full.Shared, short.Shared)
	}
	key, ok := full.Shared.Key(&in, raw)
	if !ok || !strings.HasSuffix(key, "/0") {
		t.Fatalf("full expansion key %q, %v", key, ok)
	}
	if key, ok := short.Shared.Key(&in, raw); ok {
		t.Fatalf("the 12-byte chained form has key %q", key)
	}
	names, ok := full.Shared.Names(&in, raw)
	want := []uint16{10, 11, 256 + 12, 256 + 13, 40, 41, 42, 43, 40, 41, 42, 43}
	if !ok || len(names) != len(want) {
		t.Fatalf("names %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("names %v, want %v", names, want)
		}
	}
	// The body is the inline expansion on the fixed registers.
	regs := SharedRegs{V: []uint16{100, 101, 102, 103, 104, 105}}
	body, err := full.Shared.Body(&in, raw, regs)
	if err != nil {
		t.Fatal(err)
	}
	m := fp8MFMA[in.Name()]
	inline, err := FP8MFMAFormCode(w[0], w[1], m.op, m.cd, m.parts, 100, 102, 104, FP8MFMAForm{K: 105})
	if err != nil || string(body) != string(inline) {
		t.Fatalf("body %x (%v), inline %x", body, err, inline)
	}
	site, err := full.Shared.Site(&in, raw, regs)
	if err != nil || len(site.Used) != 6 || len(site.Pre)+len(site.Post)+len(site.Lead)+len(site.Tail) != 0 {
		t.Fatalf("site %+v, %v", site, err)
	}
	if _, err := full.Shared.Site(&in, raw, SharedRegs{V: regs.V[:5]}); err == nil {
		t.Fatal("5 fixed registers laid out")
	}
}
