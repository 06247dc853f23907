package gfx9

import (
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

func TestNew(t *testing.T) {
	cases := []struct {
		mnem string
		set  func(in *isa.Inst)
		want string
	}{
		{"v_add_f32_e32", func(in *isa.Inst) {
			in.Operands[0].Reg, in.Operands[1].Reg, in.Operands[2].Reg = 1, 2, 3
		}, "v_add_f32_e32 v1, v2, v3"},
		{"s_waitcnt", func(in *isa.Inst) { in.Operands[0].Imm = 0xc07f }, "s_waitcnt lgkmcnt(0)"},
		{"global_load_dwordx4", func(in *isa.Inst) {
			in.Operands[0].Reg, in.Operands[1].Reg = 4, 8
			in.Mod.Offset = -16
		}, "global_load_dwordx4 v[4:7], v[8:9], off offset:-16"},
		{"s_mov_b32", func(in *isa.Inst) {
			in.Operands[0].Reg = 5
			in.Operands[1] = isa.Operand{Kind: isa.KindLiteral, Role: isa.Use, Field: in.Operands[1].Field}
			in.Literal, in.HasLiteral, in.Size = 0x12345678, true, 8
		}, "s_mov_b32 s5, 0x12345678"},
		{"v_pk_fma_f32", func(in *isa.Inst) {
			in.Operands[0].Reg, in.Operands[1].Reg, in.Operands[2].Reg, in.Operands[3].Reg = 0, 2, 4, 6
		}, "v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]"},
	}
	for _, c := range cases {
		in, err := New(c.mnem, isa.GFX942)
		if err != nil {
			t.Fatal(err)
		}
		c.set(&in)
		b, err := Encode(&in)
		if err != nil {
			t.Fatalf("%s: %v", c.mnem, err)
		}
		back, err := Decode(b, 0, isa.GFX942)
		if err != nil {
			t.Fatalf("%s: %x: %v", c.mnem, b, err)
		}
		if got := Print(&back); got != c.want {
			t.Errorf("%s: got %q want %q (%x)", c.mnem, got, c.want, b)
		}
	}
	if _, err := New("v_prng_b32_e32", isa.GFX942); err == nil {
		t.Error("gfx950-only mnemonic built for gfx942")
	}
	if _, err := New("v_prng_b32_e32", isa.GFX950); err != nil {
		t.Error(err)
	}
}

func TestEncodeRejects(t *testing.T) {
	in, err := New("v_add_f32_e32", isa.GFX942)
	if err != nil {
		t.Fatal(err)
	}
	in.Operands[2].Class = isa.SGPR // vsrc1 is a VGPR field
	if _, err := Encode(&in); err == nil {
		t.Error("SGPR in a VGPR-only field encoded")
	}
	in.Operands[2].Class = isa.VGPR
	in.Operands[0].Reg = 300
	if _, err := Encode(&in); err == nil {
		t.Error("v300 encoded")
	}
	in.Operands[0].Reg = 1
	in.Operands = in.Operands[:2]
	if _, err := Encode(&in); err == nil {
		t.Error("missing operand encoded")
	}
}
