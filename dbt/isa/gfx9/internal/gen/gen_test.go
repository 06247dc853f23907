package main

import (
	"reflect"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9/internal/enc"
)

func TestSplitOperands(t *testing.T) {
	cases := []struct {
		mnem, rest string
		ops        []string
		mods       string
	}{
		{"v_add_f32_e64", "v1, -|v2|, s3 clamp mul:2", []string{"v1", "-|v2|", "s3"}, "clamp mul:2"},
		{"s_getreg_b32", "s1, hwreg(HW_REG_MODE, 0, 9)", []string{"s1", "hwreg(HW_REG_MODE, 0, 9)"}, ""},
		{"s_waitcnt", "vmcnt(0) lgkmcnt(0)", []string{"vmcnt(0) lgkmcnt(0)"}, ""},
		{"buffer_load_dword", "v1, v2, s[4:7], 0 offen offset:4", []string{"v1", "v2", "s[4:7]", "0"}, "offen offset:4"},
		{"s_endpgm", "", nil, ""},
	}
	for _, c := range cases {
		ops, mods := splitOperands(c.mnem, c.rest)
		if !reflect.DeepEqual(ops, c.ops) || mods != c.mods {
			t.Errorf("%s %s: got %q %q", c.mnem, c.rest, ops, mods)
		}
	}
}

func TestParseEntry(t *testing.T) {
	// v_add_co_u32_e64 v10, s[0:1], v20, v30 (VOP3b)
	e := parseEntry(enc.VOP3, 0x119, 0, []uint32{0xD119000A, 256 + 20 | (256+30)<<9}, "v_add_co_u32_e64 v10, s[0:1], v20, v30")
	want := []enc.FieldID{enc.FVDst, enc.FSDstV, enc.FSrc0, enc.FSrc1}
	if len(e.ops) != len(want) {
		t.Fatalf("ops %+v", e.ops)
	}
	for i, f := range want {
		if e.ops[i].field != f {
			t.Errorf("operand %d: field %v want %v", i, e.ops[i].field, f)
		}
	}
	if e.ops[1].role != "isa.Def" || e.ops[2].role != "isa.Use" || e.ops[1].width != 2 {
		t.Errorf("roles/widths %+v", e.ops)
	}
	s, ok := ParseMCLine("# GFX950: v_prng_b32_e32 v5, v1 ; encoding: [0x01,0xb1,0x0a,0x7e]")
	if !ok || s.text != "v_prng_b32_e32 v5, v1" || len(s.bytes) != 4 {
		t.Errorf("ParseMCLine: %+v %v", s, ok)
	}
}
