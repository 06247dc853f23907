package isa

import "testing"

func TestTargets(t *testing.T) {
	for _, c := range []struct {
		name string
		mach uint32
		want Target
	}{{"gfx942", 0x4c, GFX942}, {"amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-", 0x4f, GFX950}, {"gfx1200", 0x48, GFX1200}, {"gfx1201", 0x4e, GFX1201}} {
		got, err := ParseTarget(c.name)
		if err != nil || got != c.want {
			t.Errorf("ParseTarget(%q) = %v, %v; want %v", c.name, got, err, c.want)
		}
		got, err = TargetFromMach(c.mach)
		if err != nil || got != c.want {
			t.Errorf("TargetFromMach(%#x) = %v, %v; want %v", c.mach, got, err, c.want)
		}
		if c.want.Mach() != c.mach {
			t.Errorf("%v.Mach() = %#x", c.want, c.want.Mach())
		}
	}
	if _, err := ParseTarget("gfx90a"); err == nil {
		t.Error("ParseTarget(gfx90a) succeeded")
	}
	if !GFX9.Has(GFX950) || GFX942.Has(GFX950) || GFX9.String() != "gfx942|gfx950" {
		t.Errorf("target set operations wrong: %v", GFX9)
	}
}

func TestInstHelpers(t *testing.T) {
	in := Inst{PC: 0x100, Operands: []Operand{
		{Kind: KindReg, Role: Def, Class: VGPR, Reg: 4, Width: 2},
		{Kind: KindReg, Role: Use, Class: SGPR, Reg: 8, Width: 1},
		{Kind: KindLabel, Imm: -2},
	}}
	if d := in.Defs(nil); len(d) != 1 || d[0].Reg != 4 {
		t.Errorf("Defs = %v", d)
	}
	if u := in.Uses(nil); len(u) != 1 || u[0].Class != SGPR {
		t.Errorf("Uses = %v", u)
	}
	if f, l := in.Operands[0].Regs(); f != 4 || l != 5 {
		t.Errorf("Regs = %d,%d", f, l)
	}
	if tgt, ok := in.BranchTarget(); !ok || tgt != 0x100+4-8 {
		t.Errorf("BranchTarget = %#x %v", tgt, ok)
	}
	if (ImpSCC | ImpEXEC).String() != "scc|exec" {
		t.Error("ImplicitRegs.String")
	}
}
