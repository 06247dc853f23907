package legalize

import (
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

func decodeFor(tg isa.Target) DecodeFunc {
	return func(b []byte, pc uint64) (isa.Inst, error) { return gfx9.Decode(b, pc, tg) }
}

func TestDecide(t *testing.T) {
	cases := []struct {
		name  string
		bytes []byte
		want  report.Action
		rule  string
	}{
		{"v_add_u32 (shared)", []byte{0x02, 0x07, 0x02, 0x68}, report.Identity, ""},
		{"s_endpgm", []byte{0x00, 0x00, 0x81, 0xbf}, report.Identity, ""},
		// Same opcode, OCP on gfx950: never identity.
		{"v_cvt_f32_fp8", []byte{0x02, 0xa9, 0x02, 0x7e}, report.Expand, "cvt-f32-fp8-ocp"},
		// gfx950-only with a rule.
		{"v_bitop3_b32", []byte{0x05, 0x04, 0x34, 0xd2, 0x01, 0x05, 0x0e, 0x30}, report.Expand, "bitop3"},
		{"v_mfma_f32_16x16x32_bf16", []byte{0x00, 0x00, 0xb5, 0xd3, 0x00, 0x01, 0x02, 0x04}, report.Expand, "mfma-split"},
		{"ds_read_b64_tr_b16", []byte{0x00, 0x00, 0xc6, 0xd9, 0x01, 0x00, 0x00, 0x00}, report.Expand, "ds-read-tr"},
		{"buffer_load_dwordx4 lds", []byte{0x00, 0x00, 0x5d, 0xe0, 0x00, 0x00, 0x02, 0x03}, report.Expand, "buffer-load-lds-wide"},
		// gfx950-only without a rule: rejected with a reason.
		{"v_prng_b32", []byte{0x01, 0xb1, 0x0a, 0x7e}, report.Reject, ""},
		{"buffer_load_dwordx3 lds", []byte{0x00, 0x00, 0x59, 0xe0, 0x00, 0x00, 0x02, 0x03}, report.Reject, ""},
	}
	for _, c := range cases {
		in, err := gfx9.Decode(c.bytes, 0x100, isa.GFX950)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		d := Decide(&in, c.bytes, isa.GFX950, isa.GFX942, decodeFor(isa.GFX942))
		if d.Action != c.want {
			t.Fatalf("%s: action %s (%s), want %s", c.name, d.Action, d.Reason, c.want)
		}
		if c.rule != "" && (d.Rule == nil || d.Rule.Name != c.rule) {
			t.Fatalf("%s: rule %+v, want %s", c.name, d.Rule, c.rule)
		}
		if d.Action == report.Reject && d.Reason == "" {
			t.Fatalf("%s: rejection without a reason", c.name)
		}
		// gfx942 -> gfx942 is identity for everything gfx942 has.
		if in.Info.Targets.Has(isa.GFX942) {
			h, err := gfx9.Decode(c.bytes, 0x100, isa.GFX942)
			if err == nil {
				if d := Decide(&h, c.bytes, isa.GFX942, isa.GFX942, decodeFor(isa.GFX942)); d.Action != report.Identity {
					t.Fatalf("%s: gfx942 -> gfx942 action %s", c.name, d.Action)
				}
			}
		}
	}
}

// TestOracleTableOverridesModel: even if the instruction model claimed a
// gfx950-only or FP8 operation existed unchanged on gfx942, the
// oracle-generated table keeps it from passing through.
func TestOracleTableOverridesModel(t *testing.T) {
	if len(GFX950Only) < 90 {
		t.Fatalf("generated table has %d entries", len(GFX950Only))
	}
	names := []string{"v_cvt_pk_fp8_f32", "v_mfma_f32_16x16x32_bf8_fp8"}
	for n := range GFX950Only {
		names = append(names, n)
	}
	for _, n := range names {
		base, lds := n, false
		if len(n) > 4 && n[len(n)-4:] == " lds" {
			base, lds = n[:len(n)-4], true
		}
		in := isa.Inst{Info: &isa.OpInfo{Name: base, Targets: isa.GFX9}, Mod: isa.Modifiers{LDS: lds}}
		d := Decide(&in, []byte{0, 0, 0, 0}, isa.GFX950, isa.GFX942, func([]byte, uint64) (isa.Inst, error) { return in, nil })
		if d.Action == report.Identity {
			t.Fatalf("%s passed through as identity", n)
		}
	}
}

// TestEveryGFX950OnlyOpHasRuleOrReason checks the oracle table: every
// gfx950-only operation has a gfx950 -> gfx942 rule or a written reason in
// dbt/rules (never both), and the rejection carries the reason.
func TestEveryGFX950OnlyOpHasRuleOrReason(t *testing.T) {
	for key := range GFX950Only {
		k := strings.TrimSuffix(key, ")") // the oracle table spells one name with a stray parenthesis
		name := strings.TrimSuffix(k, " lds")
		has := rules.For(isa.GFX950, isa.GFX942, name) != nil
		why := rules.Unsupported(isa.GFX950, isa.GFX942, k)
		switch {
		case has && why != "":
			t.Errorf("%s has a rule and an unsupported reason", k)
		case !has && why == "":
			t.Errorf("%s has neither a rule nor a written reason", k)
		}
	}
	for _, k := range rules.UnsupportedKeys(isa.GFX950, isa.GFX942) {
		if _, ok := GFX950Only[k]; !ok {
			t.Errorf("unsupported reason for %q, which is not in the gfx950-only table", k)
		}
	}
	ops := 0
	all := rules.All(isa.GFX950, isa.GFX942)
	for _, r := range all {
		ops += len(r.Ops)
	}
	// The README's figures (go test -v -run TestEveryGFX950OnlyOpHasRuleOrReason ./dbt/legalize).
	t.Logf("gfx950 -> gfx942: %d rules over %d mnemonics; %d gfx950-only operations rejected with a written reason",
		len(all), ops, len(rules.UnsupportedKeys(isa.GFX950, isa.GFX942)))
	// The rejection names the reason.
	raw := []byte{0x01, 0xb1, 0x0a, 0x7e} // v_prng_b32 v5, v1
	in, err := gfx9.Decode(raw, 0, isa.GFX950)
	if err != nil {
		t.Fatal(err)
	}
	d := Decide(&in, raw, isa.GFX950, isa.GFX942, decodeFor(isa.GFX942))
	if d.Action != report.Reject || !strings.Contains(d.Reason, "LFSR") {
		t.Fatalf("v_prng_b32: %s %q", d.Action, d.Reason)
	}
}
