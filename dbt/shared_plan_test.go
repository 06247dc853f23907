package dbt

import (
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// TestMappedAGPRs: the set of host VGPRs a subroutine plan skips
// (mappedAGPRs) is the registers mappedAGPR reports, for a pair without
// AGPRs on its host (gfx1201) and one with them (gfx942).
func TestMappedAGPRs(t *testing.T) {
	for _, host := range []isa.Target{isa.GFX942, isa.GFX1201} {
		pr, err := pairFor(isa.GFX950, host)
		if err != nil {
			t.Fatal(err)
		}
		for _, named := range [][2]int{{0, 0}, {8, 0}, {0, 4}, {64, 16}, {200, 100}, {250, 40}} {
			kt := &kernelT{pair: pr, namedArch: named[0], namedAGPRs: named[1]}
			set := kt.mappedAGPRs()
			for v := 0; v < 256; v++ {
				if set.Has(v) != kt.mappedAGPR(v) {
					t.Errorf("%s, %d arch VGPRs and %d AGPRs named: v%d in the set %v, mappedAGPR %v", host, named[0], named[1], v, set.Has(v), kt.mappedAGPR(v))
				}
			}
		}
	}
}

// TestSGPRsNamed: the SGPRs sgprsNamed collects from a plan's uses are
// those selfUsesSGPR finds in some use (VGPR and immediate operands add
// none).
func TestSGPRsNamed(t *testing.T) {
	sgpr := func(r uint16, w uint8) isa.Operand {
		return isa.Operand{Kind: isa.KindReg, Class: isa.SGPR, Reg: r, Width: w}
	}
	sites := []*isa.Inst{
		{Operands: []isa.Operand{sgpr(10, 2), {Kind: isa.KindReg, Class: isa.VGPR, Reg: 4, Width: 4}, {Kind: isa.KindImm, Imm: 30}}},
		{Operands: []isa.Operand{sgpr(96, 16), sgpr(3, 1), {Kind: isa.KindReg, Class: isa.VGPR, Reg: 40, Width: 1}}},
		{},
	}
	set := sgprsNamed(sites)
	kt := &kernelT{}
	for r := 0; r < 128; r++ {
		want := false
		for _, in := range sites {
			want = want || kt.selfUsesSGPR(in, r)
		}
		if set.Has(r) != want {
			t.Errorf("s%d: in the set %v, named by a use %v", r, set.Has(r), want)
		}
	}
	if set.Has(4) || set.Has(40) || set.Has(30) {
		t.Errorf("VGPR or immediate operands counted as SGPRs")
	}
}
