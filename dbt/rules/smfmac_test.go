package rules

import (
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// TestSMFMACCodeDisassembles: the splits decode under llvm-mc-19 for
// gfx942 as two gfx942 SMFMACs on consecutive A pairs and B quads with
// index sets 2*abid and 2*abid+1; OCP shapes run on sanitized copies
// between 1/4 and 4 scalings.
func TestSMFMACCodeDisassembles(t *testing.T) {
	// v_smfmac_f32_16x16x64_f16 v[30:33], v[10:13], v[14:21], v22 abid:1
	code, err := SMFMACCode(smfmacShapes["v_smfmac_f32_16x16x64_f16"], 0xd3da0000|1<<11|30, uint32(256+10)|(256+14)<<9|(256+22)<<18, 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	first := disasm(t, code)
	text := strings.Join(first, "\n")
	// Wait states between the chained parts (overlapped accumulator).
	if i := strings.Index(text, "abid:2"); i < 0 || strings.Count(text[i:strings.Index(text, "abid:3")], "s_nop 7") < 3 {
		t.Errorf("fewer than 3 s_nop 7 between the parts:\n%s", text)
	}
	for _, want := range []string{
		"v_smfmac_f32_16x16x32_f16 v[30:33], v[10:11], v[14:17], v22 abid:2",
		"v_smfmac_f32_16x16x32_f16 v[30:33], v[12:13], v[18:21], v22 abid:3",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	// v_smfmac_f32_16x16x128_fp8_fp8 a[0:3], v[10:13], v[14:21], v22
	code, err = SMFMACCode(smfmacShapes["v_smfmac_f32_16x16x128_fp8_fp8"], 0xd3c30000|1<<15, uint32(256+10)|(256+14)<<9|(256+22)<<18, 100, 104, 110)
	if err != nil {
		t.Fatal(err)
	}
	lines := disasm(t, code)
	text = strings.Join(lines, "\n")
	for _, want := range []string{
		"v_smfmac_f32_16x16x64_fp8_fp8 a[0:3], v[100:101], v[104:107], v22\n",
		"v_smfmac_f32_16x16x64_fp8_fp8 a[0:3], v[100:101], v[104:107], v22 abid:1",
		"v_mul_f32_e32 v110, 0x3e800000, v110",
		"v_mul_f32_e32 v110, 4.0, v110",
	} {
		if !strings.Contains(text+"\n", want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	// Rejections: broadcast, an abid with no index set, D overlapping B.
	s := smfmacShapes["v_smfmac_f32_16x16x128_fp8_fp8"]
	if _, err := SMFMACCode(s, 0xd3c30000|1<<8, uint32(256+10)|(256+14)<<9|(256+22)<<18, 100, 104, 110); err == nil {
		t.Error("cbsz accepted")
	}
	if _, err := SMFMACCode(s, 0xd3c30000|1<<11, uint32(256+10)|(256+14)<<9|(256+22)<<18, 100, 104, 110); err == nil {
		t.Error("abid 1 accepted for a one-set shape")
	}
	if _, err := SMFMACCode(s, 0xd3c30000|16, uint32(256+10)|(256+14)<<9|(256+22)<<18, 100, 104, 110); err == nil {
		t.Error("D overlapping B accepted")
	}
	for n, want := range map[string]string{
		"v_smfmac_f32_16x16x128_fp8_fp8": "approximate",
		"v_smfmac_i32_32x32x64_i8":       "exact",
		"v_smfmac_f32_32x32x32_bf16":     "approximate",
	} {
		if r := For(isa.GFX950, isa.GFX942, n); r == nil || string(r.Fidelity) != want {
			t.Errorf("%s: rule %+v, want %s", n, r, want)
		}
	}
}
