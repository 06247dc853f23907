package gfx950gfx12

import (
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

// wmmaShape is one MFMA with a wave64 WMMA lowering.
type wmmaShape struct {
	wmma string
	// steps is the number of chained WMMAs (K-doubled shapes: step n
	// takes registers [n*ab, (n+1)*ab) of A and B).
	steps int
	// ab is the A/B registers per WMMA step (wave64).
	ab uint8
}

// wmmaShapes: gfx942/gfx950 16x16 f16/bf16 MFMAs. Their A/B layouts equal
// the wave64 WMMA 16x16x16 layouts (lane group g holds k = 4g..4g+3 in two
// registers); the K-doubled gfx950 shapes hold k = 8g..8g+7 in four
// registers, so registers 0-1 and 2-3 are two WMMA K-slices with the same
// k assignment in A and B. C and D differ in the lane groups: WMMA holds
// MFMA rows 4-7 in lanes 32-47 and rows 8-11 in lanes 16-31 (research note
// §3.8, [V] AMD matrix calculator), so C is permuted in and D out (lanes
// 16-31 <-> 32-47).
var wmmaShapes = map[string]wmmaShape{
	"v_mfma_f32_16x16x16_f16":  {wmma: "v_wmma_f32_16x16x16_f16", steps: 1, ab: 2},
	"v_mfma_f32_16x16x16_bf16": {wmma: "v_wmma_f32_16x16x16_bf16", steps: 1, ab: 2},
	"v_mfma_f32_16x16x32_f16":  {wmma: "v_wmma_f32_16x16x16_f16", steps: 2, ab: 2},
	"v_mfma_f32_16x16x32_bf16": {wmma: "v_wmma_f32_16x16x16_bf16", steps: 2, ab: 2},
}

// wmmaBound is the approximation of the MFMA -> WMMA rules.
const wmmaBound = "f32 accumulation order of the dot products (and one extra rounding per chained K-slice) may differ from the MFMA's"

func init() {
	for n := range wmmaShapes {
		handRules[n] = &rule{name: "gfx12-mfma-wmma", fidelity: report.Approximate, bound: wmmaBound, emit: mfmaWMMA}
	}
}

// mfmaWMMA lowers a 16x16 f16/bf16 MFMA to wave64 WMMA: lane addresses
// for the group swap (lane ^ 48 for lanes 16-47, through ds_bpermute_b32),
// C permuted into WMMA layout (an inline-constant C is used as it is), the
// chained WMMAs with a v_nop between dependent ones, D permuted back.
// MFMA broadcast controls (cbsz/abid/blgp) are rejected.
func mfmaWMMA(ctx rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	sh := wmmaShapes[in.Name()]
	m := in.Mod
	if m.CBSZ != 0 || m.ABID != 0 || m.BLGP != 0 || m.NegLo != 0 || m.NegHi != 0 || m.Clamp {
		return nil, fmt.Errorf("%s with cbsz/abid/blgp/neg/clamp has no WMMA form", in.Name())
	}
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	if len(ops) != 4 {
		return nil, fmt.Errorf("%s operands", in.Name())
	}
	d, a, b, c := ops[0], ops[1], ops[2], ops[3]
	if d.Kind != isa.KindReg || d.Class != isa.VGPR || d.Width != 4 {
		return nil, fmt.Errorf("%s destination", in.Name())
	}
	for _, s := range []isa.Operand{a, b} {
		if s.Kind != isa.KindReg || s.Class != isa.VGPR || int(s.Width) != sh.steps*int(sh.ab) {
			return nil, fmt.Errorf("%s A/B must be VGPR tuples of %d registers", in.Name(), sh.steps*int(sh.ab))
		}
	}
	addr, err := ctx.TempVGPRs(2)
	if err != nil {
		return nil, err
	}
	acc, err := ctx.TempVGPRRange(4, 1)
	if err != nil {
		return nil, err
	}
	t, u := addr[0], addr[1]
	hs := []host{
		{mnem: "v_mbcnt_lo_u32_b32", ops: []isa.Operand{vr(t, 1), inl(-1), inl(0)}},
		{mnem: "v_mbcnt_hi_u32_b32", ops: []isa.Operand{vr(t, 1), inl(-1), vr(t, 1)}},
		// x = ((lane+16) & 32) * 3/2: 48 for lanes 16-47, else 0.
		{mnem: "v_add_nc_u32_e32", ops: []isa.Operand{vr(u, 1), inl(16), vr(t, 1)}},
		{mnem: "v_and_b32_e32", ops: []isa.Operand{vr(u, 1), inl(32), vr(u, 1)}},
		{mnem: "v_xor_b32_e32", ops: []isa.Operand{vr(t, 1), vr(u, 1), vr(t, 1)}},
		{mnem: "v_lshrrev_b32_e32", ops: []isa.Operand{vr(u, 1), inl(1), vr(u, 1)}},
		{mnem: "v_xor_b32_e32", ops: []isa.Operand{vr(t, 1), vr(u, 1), vr(t, 1)}},
		{mnem: "v_lshlrev_b32_e32", ops: []isa.Operand{vr(t, 1), inl(2), vr(t, 1)}},
	}
	cop := c
	if c.Kind == isa.KindReg {
		if c.Class != isa.VGPR || c.Width != 4 {
			return nil, fmt.Errorf("%s C operand", in.Name())
		}
		for i := uint16(0); i < 4; i++ {
			hs = append(hs, host{mnem: "ds_bpermute_b32", ops: []isa.Operand{vr(acc+i, 1), vr(t, 1), vr(c.Reg+i, 1)}})
		}
		hs = append(hs, host{mnem: "s_wait_dscnt", ops: []isa.Operand{imm(0)}})
		cop = vr(acc, 4)
	} else if c.Kind != isa.KindInline {
		return nil, fmt.Errorf("%s C must be registers or an inline constant", in.Name())
	}
	for n := 0; n < sh.steps; n++ {
		w := host{mnem: sh.wmma, ops: []isa.Operand{vr(acc, 4), vr(a.Reg+uint16(n)*uint16(sh.ab), sh.ab), vr(b.Reg+uint16(n)*uint16(sh.ab), sh.ab), cop}}
		w.mod.OpSelHi = 7 // LLVM's canonical encoding
		if n > 0 {
			hs = append(hs, host{mnem: "v_nop"})
		}
		hs = append(hs, w)
		cop = vr(acc, 4)
	}
	hs = append(hs, host{mnem: "v_nop"})
	for i := uint16(0); i < 4; i++ {
		hs = append(hs, host{mnem: "ds_bpermute_b32", ops: []isa.Operand{vr(d.Reg+i, 1), vr(t, 1), vr(acc+i, 1)}})
	}
	hs = append(hs, host{mnem: "s_wait_dscnt", ops: []isa.Operand{imm(0)}})
	return seq(hs...)
}
