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
	// fp8/bf8 (OCP on gfx950 and gfx12): the MFMA holds k = 8g..8g+7 of
	// lane group g in two registers (bytes), the wave64 WMMA one register
	// per step; registers 0 and 1 are two K-slices with the same k
	// assignment in A and B (research note §3.8, K-doubled shapes).
	"v_mfma_f32_16x16x32_fp8_fp8": {wmma: "v_wmma_f32_16x16x16_fp8_fp8", steps: 2, ab: 1},
	"v_mfma_f32_16x16x32_fp8_bf8": {wmma: "v_wmma_f32_16x16x16_fp8_bf8", steps: 2, ab: 1},
	"v_mfma_f32_16x16x32_bf8_fp8": {wmma: "v_wmma_f32_16x16x16_bf8_fp8", steps: 2, ab: 1},
	"v_mfma_f32_16x16x32_bf8_bf8": {wmma: "v_wmma_f32_16x16x16_bf8_bf8", steps: 2, ab: 1},
}

// wmmaBound is the approximation of the MFMA -> WMMA rules.
const wmmaBound = "f32 accumulation order of the dot products (and one extra rounding per chained K-slice) may differ from the MFMA's"

// addWMMARules adds its rules to m (handRules).
func addWMMARules(m map[string]*rule) {
	for n := range wmmaShapes {
		m[n] = &rule{name: "gfx12-mfma-wmma", fidelity: report.Approximate, bound: wmmaBound, emit: mfmaWMMA}
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
	hs := groupSwapAddr(t, u)
	cop := c
	if c.Kind == isa.KindReg {
		if c.Class != isa.VGPR || c.Width != 4 {
			return nil, fmt.Errorf("%s C operand", in.Name())
		}
		hs = append(hs, groupSwap(acc, c.Reg, t)...)
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
	hs = append(hs, groupSwap(d.Reg, acc, t)...)
	return seq(hs...)
}

// groupSwap moves the four registers src.. into dst.. through the lane-group
// swap whose ds_bpermute_b32 address groupSwapAddr left in VGPR t, and waits
// for them.
func groupSwap(dst, src, t uint16) []host {
	var hs []host
	for i := uint16(0); i < 4; i++ {
		hs = append(hs, host{mnem: "ds_bpermute_b32", ops: []isa.Operand{vr(dst+i, 1), vr(t, 1), vr(src+i, 1)}})
	}
	return append(hs, host{mnem: "s_wait_dscnt", ops: []isa.Operand{imm(0)}})
}

// groupSwapAddr sets VGPR t to the ds_bpermute_b32 byte address of the
// MFMA <-> WMMA C/D lane-group swap (lane ^ 48 for lanes 16-47), with u
// as scratch.
func groupSwapAddr(t, u uint16) []host {
	return []host{
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
}

// wmma32Shapes are the 32x32 f16/bf16 MFMAs (K = 8 per register pair;
// steps = 2 for the gfx950 K-doubled shapes, whose register pairs 0-1 and
// 2-3 are two 32x32x8 K-slices with one k assignment in A and B, as the
// gfx942 split rule uses them).
var wmma32Shapes = map[string]wmmaShape{
	"v_mfma_f32_32x32x8_f16":   {wmma: "v_wmma_f32_16x16x16_f16", steps: 1, ab: 2},
	"v_mfma_f32_32x32x8_bf16":  {wmma: "v_wmma_f32_16x16x16_bf16", steps: 1, ab: 2},
	"v_mfma_f32_32x32x16_f16":  {wmma: "v_wmma_f32_16x16x16_f16", steps: 2, ab: 2},
	"v_mfma_f32_32x32x16_bf16": {wmma: "v_wmma_f32_16x16x16_bf16", steps: 2, ab: 2},
}

// addWMMA32Rules adds its rules to m (handRules).
func addWMMA32Rules(m map[string]*rule) {
	for n := range wmma32Shapes {
		m[n] = &rule{name: "gfx12-mfma32-wmma", fidelity: report.Approximate, bound: wmmaBound, emit: mfma32WMMA}
	}
}

// mfma32WMMA lowers a 32x32 MFMA to four wave64 WMMA 16x16x16 tiles
// (I, J = row and column halves). Layouts (research note §3.8):
//
//   - MFMA 32x32x8 A[i][k]: lane 32*(k/4) + i, register (k/2)%2, half k%2
//     (B likewise with j); WMMA A[i'][k']: lane 32*(k'/8) + 16*((k'/4)%2)
//   - i'. So WMMA tile-I A lanes 0-31 read MFMA lane l5 + (l5&16) + 16I
//     (l5 = lane & 31); lanes 32-63 (k' >= 8) hold the second K-slice
//     permuted the same way, or zero for K = 8.
//   - MFMA D[i][j]: register 4*(i/8) + i%4, lane 32*((i/4)%2) + j; WMMA
//     D[i'][j']: register i'%4, lane 32*((i'/4)%2) + 16*(i'/8) + j'. So
//     tile (I,J) register r at lane L is MFMA register 8I + 4*bit4(L) + r
//     at lane (L & 0x2f) | 16J, and back.
//
// Lanes move through ds_bpermute_b32; a lane-bit blend x ^ ((x ^ y) & m)
// picks between two gathered values.
func mfma32WMMA(ctx rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	sh := wmma32Shapes[in.Name()]
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
	if d.Kind != isa.KindReg || d.Class != isa.VGPR || d.Width != 16 {
		return nil, fmt.Errorf("%s destination", in.Name())
	}
	for _, s := range []isa.Operand{a, b} {
		if s.Kind != isa.KindReg || s.Class != isa.VGPR || int(s.Width) != sh.steps*int(sh.ab) {
			return nil, fmt.Errorf("%s A/B must be VGPR tuples of %d registers", in.Name(), sh.steps*int(sh.ab))
		}
	}
	if c.Kind == isa.KindReg && (c.Class != isa.VGPR || c.Width != 16) || c.Kind != isa.KindReg && c.Kind != isa.KindInline {
		return nil, fmt.Errorf("%s C must be 16 VGPRs or an inline constant", in.Name())
	}
	tmp, err := ctx.TempVGPRs(11)
	if err != nil {
		return nil, err
	}
	lid, m4, m5, ad0, ad1, ca0, ca1, x, y, abt := tmp[0], tmp[1], tmp[2], tmp[3], tmp[4], tmp[5], tmp[6], tmp[7], tmp[8], tmp[9]
	_ = abt
	aT, err := ctx.TempVGPRRange(8, 1) // A tiles 0,1 then B tiles 0,1 (2 registers each)
	if err != nil {
		return nil, err
	}
	acc, err := ctx.TempVGPRRange(16, 1) // tile (I,J) at acc + 4*(2I+J)
	if err != nil {
		return nil, err
	}
	v := func(r uint16) isa.Operand { return vr(r, 1) }
	hs := []host{
		{mnem: "v_mbcnt_lo_u32_b32", ops: []isa.Operand{v(lid), inl(-1), inl(0)}},
		{mnem: "v_mbcnt_hi_u32_b32", ops: []isa.Operand{v(lid), inl(-1), v(lid)}},
		// m4 = -(bit 4), m5 = -(bit 5).
		{mnem: "v_bfe_u32", ops: []isa.Operand{v(m4), v(lid), inl(4), inl(1)}},
		{mnem: "v_sub_nc_u32_e32", ops: []isa.Operand{v(m4), inl(0), v(m4)}},
		{mnem: "v_bfe_u32", ops: []isa.Operand{v(m5), v(lid), inl(5), inl(1)}},
		{mnem: "v_sub_nc_u32_e32", ops: []isa.Operand{v(m5), inl(0), v(m5)}},
		// ad0 = 4*(l5 + (l5 & 16)), ad1 = ad0 + 64.
		{mnem: "v_and_b32_e32", ops: []isa.Operand{v(x), inl(31), v(lid)}},
		{mnem: "v_and_b32_e32", ops: []isa.Operand{v(y), inl(16), v(lid)}},
		{mnem: "v_add_nc_u32_e32", ops: []isa.Operand{v(ad0), v(x), v(y)}},
		{mnem: "v_lshlrev_b32_e32", ops: []isa.Operand{v(ad0), inl(2), v(ad0)}},
		{mnem: "v_add_nc_u32_e32", ops: []isa.Operand{v(ad1), inl(64), v(ad0)}},
		// ca0 = 4*(L & 0x2f), ca1 = ca0 + 64.
		{mnem: "v_and_b32_e32", ops: []isa.Operand{v(ca0), lit(0x2f), v(lid)}},
		{mnem: "v_lshlrev_b32_e32", ops: []isa.Operand{v(ca0), inl(2), v(ca0)}},
		{mnem: "v_add_nc_u32_e32", ops: []isa.Operand{v(ca1), inl(64), v(ca0)}},
	}
	bperm := func(dst, addr, src uint16) host {
		return host{mnem: "ds_bpermute_b32", ops: []isa.Operand{v(dst), v(addr), v(src)}}
	}
	wait := host{mnem: "s_wait_dscnt", ops: []isa.Operand{imm(0)}}
	// blend writes x ^ ((x ^ y) & mask) to dst.
	blend := func(dst, mask uint16) []host {
		return []host{
			{mnem: "v_xor_b32_e32", ops: []isa.Operand{v(y), v(x), v(y)}},
			{mnem: "v_and_b32_e32", ops: []isa.Operand{v(y), v(mask), v(y)}},
			{mnem: "v_xor_b32_e32", ops: []isa.Operand{v(dst), v(x), v(y)}},
		}
	}
	// A and B tiles.
	for op, src := range []isa.Operand{a, b} {
		for t := uint16(0); t < 2; t++ {
			addr := ad0
			if t == 1 {
				addr = ad1
			}
			for r := uint16(0); r < 2; r++ {
				dst := aT + uint16(op)*4 + 2*t + r
				if sh.steps == 2 {
					hs = append(hs, bperm(x, addr, src.Reg+r), bperm(y, addr, src.Reg+2+r), wait)
					hs = append(hs, blend(dst, m5)...)
				} else {
					hs = append(hs, bperm(x, addr, src.Reg+r), wait,
						host{mnem: "v_not_b32_e32", ops: []isa.Operand{v(y), v(m5)}},
						host{mnem: "v_and_b32_e32", ops: []isa.Operand{v(dst), v(x), v(y)}})
				}
			}
		}
	}
	// C tiles: tile (I,J) register r = blend4(C[8I+r], C[8I+4+r]) at ca_J.
	cop := c
	if c.Kind == isa.KindReg {
		for I := uint16(0); I < 2; I++ {
			for J := uint16(0); J < 2; J++ {
				addr := ca0
				if J == 1 {
					addr = ca1
				}
				for r := uint16(0); r < 4; r++ {
					hs = append(hs, bperm(x, addr, c.Reg+8*I+r), bperm(y, addr, c.Reg+8*I+4+r), wait)
					hs = append(hs, blend(acc+4*(2*I+J)+r, m4)...)
				}
			}
		}
	}
	for I := uint16(0); I < 2; I++ {
		for J := uint16(0); J < 2; J++ {
			t := acc + 4*(2*I+J)
			src2 := cop
			if c.Kind == isa.KindReg {
				src2 = vr(t, 4)
			}
			w := host{mnem: sh.wmma, ops: []isa.Operand{vr(t, 4), vr(aT+2*I, 2), vr(aT+4+2*J, 2), src2}}
			w.mod.OpSelHi = 7
			hs = append(hs, w)
		}
	}
	hs = append(hs, host{mnem: "v_nop"})
	// D register g = 8I + 4q + r: blend4(tile(I,0).r, tile(I,1).r) at ca_q.
	for g := uint16(0); g < 16; g++ {
		I, q, r := g/8, g/4%2, g%4
		addr := ca0
		if q == 1 {
			addr = ca1
		}
		hs = append(hs, bperm(x, addr, acc+4*(2*I)+r), bperm(y, addr, acc+4*(2*I+1)+r), wait)
		hs = append(hs, blend(d.Reg+g, m4)...)
	}
	return seq(hs...)
}

// addMFMAI8DotRules adds its rules to m (handRules).
func addMFMAI8DotRules(m map[string]*rule) {
	for _, n := range []string{"v_mfma_i32_16x16x32_i8", "v_mfma_i32_16x16x64_i8"} {
		m[n] = &rule{name: "gfx12-mfma-i8-dot4", fidelity: report.Exact, emit: mfmaI8Dot}
	}
}

// mfmaI8Dot computes a 16x16 i8 MFMA with VALU dot products (the iu8
// WMMA is not modelled by the gfx12 simulator, so this form is the one a
// test can prove). MFMA 16x16x32 i8 layouts (research note §3.8): A[i][k]
// in lane 16*(k/8) + i, register (k/4)%2, byte k%4 (B likewise with j);
// D[i][j] in register i%4 of lane 16*(i/4) + j. A lane (j = lane%16,
// g = lane/16) therefore needs, for each of its rows i = 4g + r, the A
// dwords of lanes i + 16m and the B dwords of lanes j + 16m (m = 0..3),
// fetched with ds_bpermute_b32. Signed bytes go through the unsigned
// v_dot4_u32_u8 as a' = a ^ 0x80 = a + 128: sum(a*b) = sum(a'*b') -
// 128*(sum(a') + sum(b')) + 128*128*K, exact modulo 2^32 like the MFMA.
// The gfx950 K-doubled shape is two K-slices on register pairs.
func mfmaI8Dot(ctx rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	m := in.Mod
	if m.CBSZ != 0 || m.ABID != 0 || m.BLGP != 0 || m.Clamp {
		return nil, fmt.Errorf("%s with cbsz/abid/blgp/clamp has no rule", in.Name())
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
	if a.Kind != isa.KindReg || b.Kind != isa.KindReg || a.Class != isa.VGPR || b.Class != isa.VGPR || a.Width != b.Width || a.Width%2 != 0 {
		return nil, fmt.Errorf("%s A/B must be VGPR tuples of equal even width", in.Name())
	}
	if c.Kind == isa.KindReg && (c.Class != isa.VGPR || c.Width != 4) || c.Kind != isa.KindReg && c.Kind != isa.KindInline {
		return nil, fmt.Errorf("%s C must be 4 VGPRs or an inline constant", in.Name())
	}
	slices := int(a.Width) / 2
	t, err := ctx.TempVGPRs(7)
	if err != nil {
		return nil, err
	}
	lid, jb, gb, addr, ta, tb, sumB := t[0], t[1], t[2], t[3], t[4], t[5], t[6]
	acc, err := ctx.TempVGPRRange(8, 1) // sum(a'b') for r = 0..3, then sum(a') for r = 0..3
	if err != nil {
		return nil, err
	}
	v := func(r uint16) isa.Operand { return vr(r, 1) }
	hs := []host{
		{mnem: "v_mbcnt_lo_u32_b32", ops: []isa.Operand{v(lid), inl(-1), inl(0)}},
		{mnem: "v_mbcnt_hi_u32_b32", ops: []isa.Operand{v(lid), inl(-1), v(lid)}},
		{mnem: "v_and_b32_e32", ops: []isa.Operand{v(jb), inl(15), v(lid)}},
		{mnem: "v_lshlrev_b32_e32", ops: []isa.Operand{v(jb), inl(2), v(jb)}}, // 4*j
		{mnem: "v_lshrrev_b32_e32", ops: []isa.Operand{v(gb), inl(4), v(lid)}},
		{mnem: "v_lshlrev_b32_e32", ops: []isa.Operand{v(gb), inl(4), v(gb)}}, // 4*(4g)
		{mnem: "v_mov_b32_e32", ops: []isa.Operand{v(sumB), inl(0)}},
	}
	for r := uint16(0); r < 8; r++ {
		hs = append(hs, host{mnem: "v_mov_b32_e32", ops: []isa.Operand{v(acc + r), inl(0)}})
	}
	wait := host{mnem: "s_wait_dscnt", ops: []isa.Operand{imm(0)}}
	flip := func(x uint16) host {
		return host{mnem: "v_xor_b32_e32", ops: []isa.Operand{v(x), lit(0x80808080), v(x)}}
	}
	dot := func(dst, x, y uint16) host {
		return host{mnem: "v_dot4_u32_u8", ops: []isa.Operand{v(dst), v(x), v(y), v(dst)}, mod: isa.Modifiers{OpSelHi: 7}}
	}
	dot1 := func(dst, x uint16) host {
		return host{mnem: "v_dot4_u32_u8", ops: []isa.Operand{v(dst), v(x), lit(0x01010101), v(dst)}, mod: isa.Modifiers{OpSelHi: 7}}
	}
	for s := uint16(0); s < uint16(slices); s++ {
		for grp := uint16(0); grp < 4; grp++ {
			for reg := uint16(0); reg < 2; reg++ {
				// B dword of lane j + 16*grp.
				hs = append(hs,
					host{mnem: "v_add_nc_u32_e32", ops: []isa.Operand{v(addr), lit(uint32(64 * grp)), v(jb)}},
					host{mnem: "ds_bpermute_b32", ops: []isa.Operand{v(tb), v(addr), v(b.Reg + 2*s + reg)}},
					wait, flip(tb), dot1(sumB, tb))
				for r := uint16(0); r < 4; r++ {
					// A dword of lane 4g + r + 16*grp.
					hs = append(hs,
						host{mnem: "v_add_nc_u32_e32", ops: []isa.Operand{v(addr), lit(uint32(64*grp + 4*r)), v(gb)}},
						host{mnem: "ds_bpermute_b32", ops: []isa.Operand{v(ta), v(addr), v(a.Reg + 2*s + reg)}},
						wait, flip(ta), dot(acc+r, ta, tb), dot1(acc+4+r, ta))
				}
			}
		}
	}
	k := uint32(32 * slices)
	for r := uint16(0); r < 4; r++ {
		cr := c
		if c.Kind == isa.KindReg {
			cr = v(c.Reg + r)
		}
		hs = append(hs,
			host{mnem: "v_add_nc_u32_e32", ops: []isa.Operand{v(acc + 4 + r), v(sumB), v(acc + 4 + r)}},
			host{mnem: "v_lshlrev_b32_e32", ops: []isa.Operand{v(acc + 4 + r), inl(7), v(acc + 4 + r)}},
			host{mnem: "v_sub_nc_u32_e32", ops: []isa.Operand{v(acc + r), v(acc + r), v(acc + 4 + r)}},
			host{mnem: "v_add_nc_u32_e32", ops: []isa.Operand{v(acc + r), lit(128 * 128 * k), v(acc + r)}},
			host{mnem: "v_add_nc_u32_e64", ops: []isa.Operand{v(acc + r), cr, v(acc + r)}})
	}
	for r := uint16(0); r < 4; r++ {
		hs = append(hs, host{mnem: "v_mov_b32_e32", ops: []isa.Operand{v(d.Reg + r), v(acc + r)}})
	}
	return seq(hs...)
}
