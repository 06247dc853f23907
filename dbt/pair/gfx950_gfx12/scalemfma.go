package gfx950gfx12

import (
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

// gfx950's f8f6f4 MFMAs v_mfma_[scale_]f32_{16x16x128,32x32x64}_f8f6f4 on
// gfx12 WMMA (there is no scaled WMMA on gfx1200/gfx1201).
//
// Guest semantics (the simulator's gfx950 model, hsa/sim/wave mfma.go,
// which the gfx942 rule dbt/rules scalemfma.go also follows): lane l holds
// 32 elements of row (A) or column (B) l mod M at k = 32*(l/M) + e,
// packed contiguously in the format cbsz (A) or blgp (B) selects (E4M3,
// E5M2, E2M3, E3M2, E2M1); the scaled form multiplies every element of
// lane l by its E8M0 byte 2^(s-127) (NaN for 0xFF), byte op_sel[0] |
// op_sel_hi[0]<<1 of the scaleA operand for A, op_sel[1] | op_sel_hi[1]<<1
// of scaleB for B. So the lane's 32 elements are one K block with one
// scale: D[i][j] = C + sum over blocks g of sA(i,g)*sB(j,g) * P_g[i][j],
// P_g the unscaled dot product over block g, with g = 0..3 (16x16) or 0..1
// (32x32).
//
// Host form: every element value is exact as an OCP FP8 (E4M3) or BF8
// (E5M2) byte up to a power of two: E4M3 and E5M2 are those bytes, and an
// FP6/FP4 code's magnitude placed in the low bits of a byte (sign to bit
// 7) is an E4M3 (E2M3 codes) or E5M2 (E3M2, E2M1) value 2^-6, 2^-12 or
// 2^-14 times the element, subnormal codes on subnormal bytes, never inf
// or NaN (byteFormat). So the unscaled block products are the fp8/bf8
// WMMAs (exact products, f32 sums), on the guest registers themselves for
// E4M3/E5M2, one converted register per step otherwise. A wave64 WMMA
// 16x16x16 holds a K quad in lane group G (lanes 16G..16G+15) of A and B
// alike (quad p(G), p = 0, 2, 1, 3), row/column = lane mod 16, so WMMA
// step s on the elements 4s..4s+3 of every lane adds, in lane group G, the
// products of guest block G. To keep the blocks apart (their scales
// differ), each step runs once per block with A or B masked to the
// block's lane group (v_and with a lane mask; the operand whose format has
// inf/NaN codes, both when both have them, since zero times a finite
// element is zero), into a per-block accumulator; 32x32 tiles (I, J) take
// A rows 16I.. from lane group I+2b and B columns 16J.. from group J+2b,
// moved to I+2b (ds_bpermute, lane ^ 16) when I != J. The block sums are
// then scaled in f32 by one v_ldexp_f32 with the exponent sA + sB - 254
// (+ the byte offsets of the formats), the scale bytes fetched for each
// accumulator lane's row and column with ds_bpermute; a NaN scale byte
// ORs a quiet NaN in; the blocks are added, and the sum is permuted back
// to the MFMA C/D layout (the lane-group swap of wmma.go, or the 32x32
// regrouping of mfma32WMMA) and added to C. The unscaled forms sum all
// blocks in one WMMA chain (the plain 16x16 form: eight fp8 WMMAs on the
// guest registers).

// scaleMFMABound is the approximation of the f8f6f4 rules.
const scaleMFMABound = "products are exact; the f32 sum over K is rounded once per WMMA step (8 per block) and once per block and for C when the blocks are scaled and added, instead of once: |D - D_gfx950| <= 14 * 2^-24 * (|C| + sum_k |a_k*b_k|) + 5 * 2^-149 (a scaled block sum below 2^-126 is rounded to an f32 subnormal; one whose scaled value overflows is infinite even when other blocks would cancel it); subnormal E4M3/E5M2 inputs of the fp8/bf8 WMMAs (guest subnormals, small FP6/FP4 codes) must not be flushed; full EXEC expected, as for any MFMA"

// byteFormat is the WMMA input type ("fp8": E4M3, "bf8": E5M2) an element
// format is carried in, and byteOffset log2 of the factor its byte form
// carries: the FP6/FP4 codes are placed in the bits of an E4M3 or E5M2
// byte (sign to bit 7, the magnitude's exponent field in the low bits of
// the byte's), which scales them by 2^(bias-7) or 2^(bias-15) exactly,
// subnormal codes onto subnormal bytes, and never makes inf or NaN: E2M3
// as E4M3 (2^-6), E3M2 and E2M1 as E5M2 (2^-12, 2^-14).
var (
	byteFormat = [5]string{"fp8", "bf8", "fp8", "bf8", "bf8"}
	byteOffset = [5]int{0, 0, 6, 12, 14}
)

// f8f6f4Shape is one guest f8f6f4 MFMA.
type f8f6f4Shape struct {
	m      int  // 16 or 32
	scaled bool // v_mfma_scale_*: the v_mfma_ld_scale_b32 operands follow C
}

// f8f6f4Shapes are the guest operations of the rule.
var f8f6f4Shapes = map[string]f8f6f4Shape{
	"v_mfma_f32_16x16x128_f8f6f4":       {m: 16},
	"v_mfma_f32_32x32x64_f8f6f4":        {m: 32},
	"v_mfma_scale_f32_16x16x128_f8f6f4": {m: 16, scaled: true},
	"v_mfma_scale_f32_32x32x64_f8f6f4":  {m: 32, scaled: true},
}

// addScaleMFMARules adds its rules to m (handRules).
func addScaleMFMARules(m map[string]*rule) {
	for n := range f8f6f4Shapes {
		m[n] = &rule{name: "gfx12-mfma-f8f6f4-wmma", fidelity: report.Approximate, bound: scaleMFMABound, emit: mfmaF8F6F4}
	}
}

// f8f6f4Operands are the checked host operands of an f8f6f4 MFMA.
type f8f6f4Operands struct {
	d, a, b, c isa.Operand
	sa, sb     isa.Operand // scale sources (scaled forms)
	selA, selB int         // scale bytes
}

// f8f6f4Check returns the host operands of in, or the reason its form has
// no WMMA expansion (formats, abid, neg/clamp, operand kinds and widths, D
// partly overlapping C: D is written register by register from the sums
// and C).
func f8f6f4Check(in *isa.Inst, site pair.Site, sh f8f6f4Shape) (f8f6f4Operands, error) {
	var o f8f6f4Operands
	name := in.Name()
	m := in.Mod
	if m.CBSZ > 4 || m.BLGP > 4 {
		return o, fmt.Errorf("%s at %#x: cbsz %d / blgp %d select no format", name, in.PC, m.CBSZ, m.BLGP)
	}
	if m.ABID > 1 || m.NegLo != 0 || m.NegHi != 0 || m.Clamp {
		return o, fmt.Errorf("%s at %#x: abid %d / neg / clamp has no WMMA form", name, in.PC, m.ABID)
	}
	ops, err := hostOperands(in, site)
	if err != nil {
		return o, err
	}
	want := 4
	if sh.scaled {
		want = 6
	}
	if len(ops) != want {
		return o, fmt.Errorf("%s at %#x: %d operands", name, in.PC, len(ops))
	}
	cd := uint8(sh.m * sh.m / 64)
	o.d, o.a, o.b, o.c = ops[0], ops[1], ops[2], ops[3]
	if o.d.Kind != isa.KindReg || o.d.Class != isa.VGPR || o.d.Width != cd {
		return o, fmt.Errorf("%s at %#x: destination must be %d VGPRs", name, in.PC, cd)
	}
	for x, s := range []isa.Operand{o.a, o.b} {
		f := []uint8{m.CBSZ, m.BLGP}[x]
		if s.Kind != isa.KindReg || s.Class != isa.VGPR || int(s.Width) != rules.F8F6F4Bits(int(f)) || s.Mods != 0 {
			return o, fmt.Errorf("%s at %#x: %c must be a tuple of %d VGPRs", name, in.PC, "AB"[x], rules.F8F6F4Bits(int(f)))
		}
	}
	switch {
	case o.c.Kind == isa.KindReg && o.c.Class == isa.VGPR && o.c.Width == cd && o.c.Mods == 0:
		if o.c.Reg != o.d.Reg && o.c.Reg < o.d.Reg+uint16(cd) && o.d.Reg < o.c.Reg+uint16(cd) {
			return o, fmt.Errorf("%s at %#x: D partly overlaps C", name, in.PC)
		}
	case o.c.Kind == isa.KindInline && o.c.Mods == 0:
	default:
		return o, fmt.Errorf("%s at %#x: C must be %d VGPRs or an inline constant", name, in.PC, cd)
	}
	if sh.scaled {
		o.sa, o.sb = ops[4], ops[5]
		for _, s := range []isa.Operand{o.sa, o.sb} {
			if s.Mods != 0 || s.Kind == isa.KindReg && s.Width != 1 {
				return o, fmt.Errorf("%s at %#x: scale operand", name, in.PC)
			}
		}
		o.selA = int(m.OpSel&1 | (m.OpSelHi&1)<<1)
		o.selB = int(m.OpSel>>1&1 | (m.OpSelHi>>1&1)<<1)
	}
	return o, nil
}

// mfmaF8F6F4 emits the WMMA form of an f8f6f4 MFMA (see the file comment).
func mfmaF8F6F4(ctx rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	sh := f8f6f4Shapes[in.Name()]
	o, err := f8f6f4Check(in, site, sh)
	if err != nil {
		return nil, err
	}
	g := newF8F6F4Gen(ctx, in, sh, o)
	if err := g.emit(); err != nil {
		return nil, err
	}
	return seq(g.hs...)
}

// f8f6f4Gen builds one expansion.
type f8f6f4Gen struct {
	ctx   rules.Context
	sh    f8f6f4Shape
	o     f8f6f4Operands
	fmt   [2]uint8 // cbsz, blgp
	wmma  string   // the fp8/bf8 WMMA of the two byte formats
	tiles int      // tile rows/columns (1 or 2)
	parts int      // separately scaled blocks per accumulator
	hs    []host
	// lane constants
	lid, rb, jb4, sw uint16
	mask             [4]uint16
	// conversion state
	conv   [2]uint16 // converted step operands (FP6/FP4)
	eo     [2]uint16 // FP4 even/odd byte spreads (2 registers each)
	t6     [2]uint16 // FP6 temporaries
	accs   []uint16  // accumulators (4 registers each): (I, J, part) at (I*tiles+J)*parts+part
	masked [2]uint16 // masked A and B
	bsw    uint16    // B moved to the other tile's lane groups (32x32)
	// maskOp says which operands are masked to a lane group: only A when
	// B's format is finite (FP6/FP4: zero times B is zero), only B when
	// A's is, both for FP8/BF8 (inf and NaN codes).
	maskOp [2]bool
	// pool are the conversion registers, free once the products are
	// done, which the scaling and the store reuse (take).
	pool []uint16
}

// take returns n scratch registers for the phases after the products:
// pool registers first, then new ones.
func (g *f8f6f4Gen) take(n int) ([]uint16, error) {
	if n <= len(g.pool) {
		return g.pool[:n], nil
	}
	more, err := g.ctx.TempVGPRs(n - len(g.pool))
	if err != nil {
		return nil, err
	}
	g.pool = append(g.pool, more...)
	return g.pool[:n], nil
}

func newF8F6F4Gen(ctx rules.Context, in *isa.Inst, sh f8f6f4Shape, o f8f6f4Operands) *f8f6f4Gen {
	g := &f8f6f4Gen{ctx: ctx, sh: sh, o: o, fmt: [2]uint8{in.Mod.CBSZ, in.Mod.BLGP}, tiles: sh.m / 16, parts: 1}
	g.wmma = "v_wmma_f32_16x16x16_" + byteFormat[g.fmt[0]] + "_" + byteFormat[g.fmt[1]]
	if sh.scaled {
		g.parts = 64 / sh.m
	}
	if sh.scaled || g.tiles == 2 {
		aFinite, bFinite := g.fmt[0] >= 2, g.fmt[1] >= 2
		g.maskOp = [2]bool{bFinite || !aFinite, !bFinite}
	}
	return g
}

func (g *f8f6f4Gen) add(h ...host) { g.hs = append(g.hs, h...) }

func v1(r uint16) isa.Operand { return vr(r, 1) }

// group returns the lane group holding A of tile row I, part b (scaled),
// or -1 when the unscaled 32x32 tile takes groups I and I+2.
func (g *f8f6f4Gen) group(I, b int) int {
	switch {
	case g.sh.scaled && g.sh.m == 16:
		return b
	case g.sh.scaled:
		return I + 2*b
	}
	return -1
}

func (g *f8f6f4Gen) emit() error {
	ctx := g.ctx
	nt := g.tiles * g.tiles
	var err error
	g.accs = make([]uint16, nt*g.parts)
	for i := range g.accs {
		if g.accs[i], err = ctx.TempVGPRRange(4, 1); err != nil {
			return err
		}
	}
	lc, err := ctx.TempVGPRs(4)
	if err != nil {
		return err
	}
	g.lid, g.rb, g.jb4, g.sw = lc[0], lc[1], lc[2], lc[3]
	masks := 0
	switch {
	case g.sh.scaled:
		masks = 4
	case g.sh.m == 32:
		masks = 2
	}
	if masks > 0 {
		mk, err := ctx.TempVGPRs(masks)
		if err != nil {
			return err
		}
		copy(g.mask[:], mk)
	}
	// Conversion-phase registers, recorded in the pool for the phases
	// after the products.
	rng := func(n int) (uint16, error) {
		r, err := ctx.TempVGPRRange(n, 1)
		for i := 0; err == nil && i < n; i++ {
			g.pool = append(g.pool, r+uint16(i))
		}
		return r, err
	}
	have6 := false
	for x := 0; x < 2; x++ {
		switch f := g.fmt[x]; {
		case f == 4:
			if g.conv[x], err = rng(1); err != nil {
				return err
			}
			if g.eo[x], err = rng(2); err != nil {
				return err
			}
		case f >= 2:
			if g.conv[x], err = rng(1); err != nil {
				return err
			}
			if !have6 {
				for i := range g.t6 {
					if g.t6[i], err = rng(1); err != nil {
						return err
					}
				}
				have6 = true
			}
		}
	}
	for x := 0; x < 2; x++ {
		if g.maskOp[x] {
			if g.masked[x], err = rng(1); err != nil {
				return err
			}
		}
	}
	if g.tiles == 2 {
		if g.bsw, err = rng(1); err != nil {
			return err
		}
	}
	// The MFMA keeps denormals whatever MODE says (as the simulator's
	// model does); the VALU steps of the expansion run with f32 and
	// f16/f64 denormals kept, and the guest's MODE.FP_DENORM comes back
	// after them.
	sp, err := ctx.TempSGPRPair()
	if err != nil {
		return err
	}
	g.add(host{mnem: "s_getreg_b32", ops: []isa.Operand{sr(sp, 1), imm(modeDenorm)}},
		host{mnem: "s_setreg_imm32_b32", ops: []isa.Operand{imm(modeDenorm), lit(0xf)}})
	g.laneConstants(masks)
	g.products()
	if err := g.scale(); err != nil {
		return err
	}
	if err := g.store(); err != nil {
		return err
	}
	g.add(host{mnem: "s_setreg_b32", ops: []isa.Operand{imm(modeDenorm), sr(sp, 1)}})
	return nil
}

// modeDenorm is hwreg(HW_REG_MODE, 4, 4): FP_DENORM, the same id and
// field on gfx9 and gfx12.
const modeDenorm = 1 | 4<<6 | (4-1)<<11

// laneConstants computes the lane id, the lane-group masks, and the byte
// addresses of the permutations.
func (g *f8f6f4Gen) laneConstants(masks int) {
	lid := v1(g.lid)
	g.add(host{mnem: "v_mbcnt_lo_u32_b32", ops: []isa.Operand{lid, inl(-1), inl(0)}},
		host{mnem: "v_mbcnt_hi_u32_b32", ops: []isa.Operand{lid, inl(-1), lid}})
	switch masks {
	case 4: // mask[G] = -(lane/16 == G): ((lane/16 ^ G) - 1) >> 2, arithmetic
		g.add(host{mnem: "v_lshrrev_b32_e32", ops: []isa.Operand{v1(g.mask[3]), inl(4), lid}})
		for G := 0; G < 4; G++ {
			m := v1(g.mask[G])
			g.add(host{mnem: "v_xor_b32_e32", ops: []isa.Operand{m, inl(G), v1(g.mask[3])}},
				host{mnem: "v_add_nc_u32_e32", ops: []isa.Operand{m, inl(-1), m}},
				host{mnem: "v_ashrrev_i32_e32", ops: []isa.Operand{m, inl(2), m}})
		}
	case 2: // mask[I] = -(bit 4 of the lane == I)
		g.add(host{mnem: "v_bfe_i32", ops: []isa.Operand{v1(g.mask[1]), lid, inl(4), inl(1)}},
			host{mnem: "v_not_b32_e32", ops: []isa.Operand{v1(g.mask[0]), v1(g.mask[1])}})
	}
	// rb = 16*p(lane/16), p = (0, 2, 1, 3): the byte address of lane
	// 4*p(G), the first row a WMMA accumulator lane of group G holds;
	// jb4 = 4*(lane & 15); sw = 4*(lane ^ 16).
	rb, jb4, sw := v1(g.rb), v1(g.jb4), v1(g.sw)
	g.add(host{mnem: "v_and_b32_e32", ops: []isa.Operand{rb, inl(16), lid}},
		host{mnem: "v_lshlrev_b32_e32", ops: []isa.Operand{rb, inl(1), rb}},
		host{mnem: "v_and_b32_e32", ops: []isa.Operand{jb4, inl(32), lid}},
		host{mnem: "v_lshrrev_b32_e32", ops: []isa.Operand{jb4, inl(1), jb4}},
		host{mnem: "v_or_b32_e32", ops: []isa.Operand{rb, rb, jb4}},
		host{mnem: "v_and_b32_e32", ops: []isa.Operand{jb4, inl(15), lid}},
		host{mnem: "v_lshlrev_b32_e32", ops: []isa.Operand{jb4, inl(2), jb4}},
		host{mnem: "v_xor_b32_e32", ops: []isa.Operand{sw, inl(16), lid}},
		host{mnem: "v_lshlrev_b32_e32", ops: []isa.Operand{sw, inl(2), sw}})
}

// step returns the register of operand x's WMMA data for step s
// (elements 4s..4s+3 of every lane, one byte each): the guest register for
// E4M3/E5M2, else the FP6/FP4 codes converted to their byte form.
func (g *f8f6f4Gen) step(x, s int) uint16 {
	src := g.o.a
	if x == 1 {
		src = g.o.b
	}
	reg := func(r int) isa.Operand { return v1(src.Reg + uint16(r)) }
	dst := v1(g.conv[x])
	switch f := g.fmt[x]; f {
	case 0, 1:
		return src.Reg + uint16(s)
	case 4: // E2M1: E5M2 bytes mag << 1 | sign << 7, spread from the nibble pairs
		e, od := g.eo[x], g.eo[x]+1
		if s%2 == 0 {
			// Byte q of e is element 2q of the dword, of od element 2q+1.
			w := reg(s / 2)
			g.add(host{mnem: "v_lshlrev_b32_e32", ops: []isa.Operand{v1(e), inl(1), w}},
				host{mnem: "v_and_b32_e32", ops: []isa.Operand{v1(e), lit(0x0e0e0e0e), v1(e)}},
				host{mnem: "v_lshlrev_b32_e32", ops: []isa.Operand{v1(od), inl(4), w}},
				host{mnem: "v_and_or_b32", ops: []isa.Operand{v1(e), v1(od), lit(0x80808080), v1(e)}},
				host{mnem: "v_lshrrev_b32_e32", ops: []isa.Operand{v1(od), inl(3), w}},
				host{mnem: "v_and_b32_e32", ops: []isa.Operand{v1(od), lit(0x0e0e0e0e), v1(od)}},
				host{mnem: "v_and_or_b32", ops: []isa.Operand{v1(od), w, lit(0x80808080), v1(od)}})
		}
		sel := uint32(0x05010400) // elements 0..3 of the dword
		if s%2 == 1 {
			sel = 0x07030602 // elements 4..7
		}
		g.add(host{mnem: "v_perm_b32", ops: []isa.Operand{dst, v1(od), v1(e), lit(sel)}})
	default: // E2M3 as E4M3 bytes, E3M2 as E5M2 bytes: mag | sign << 7
		bit := 24 * s
		r, off := bit/32, bit%32
		xr, u := v1(g.t6[1]), v1(g.t6[0])
		switch {
		case off == 0:
			xr = reg(r)
		case off <= 8:
			g.add(host{mnem: "v_lshrrev_b32_e32", ops: []isa.Operand{xr, inl(off), reg(r)}})
		default:
			g.add(host{mnem: "v_alignbit_b32", ops: []isa.Operand{xr, reg(r + 1), reg(r), inl(off)}})
		}
		// Code t (bits 6t..6t+5) goes to byte t: terms (shift, mask).
		// The magnitude (bits 0-4) moves by 2t, the sign (bit 5) by 2t+2.
		terms := [][2]uint32{{0, 0x1f}, {2, 0x1f80}, {4, 0x1f8000}, {6, 0x1f800000}, {8, 0x80000000}}
		for k, t := range terms {
			v := xr
			if t[0] != 0 {
				g.add(host{mnem: "v_lshlrev_b32_e32", ops: []isa.Operand{u, inl(int(t[0])), xr}})
				v = u
			}
			if k == 0 {
				g.add(host{mnem: "v_and_b32_e32", ops: []isa.Operand{dst, lit(t[1]), v}})
			} else {
				g.add(host{mnem: "v_and_or_b32", ops: []isa.Operand{dst, v, lit(t[1]), dst}})
			}
		}
	}
	return g.conv[x]
}

// products runs the WMMA steps into the accumulators.
func (g *f8f6f4Gen) products() {
	zero := inl(0)
	first := make([]bool, g.tiles*g.tiles*g.parts)
	lastAcc := -1
	andMask := func(dst, src uint16, mask uint16) {
		g.add(host{mnem: "v_and_b32_e32", ops: []isa.Operand{v1(dst), v1(mask), v1(src)}})
	}
	for s := 0; s < 8; s++ {
		a, b := g.step(0, s), g.step(1, s)
		if g.tiles == 2 {
			g.add(host{mnem: "ds_bpermute_b32", ops: []isa.Operand{v1(g.bsw), v1(g.sw), v1(b)}})
			g.add(host{mnem: "s_wait_dscnt", ops: []isa.Operand{imm(0)}})
		}
		for part := 0; part < g.parts; part++ {
			for I := 0; I < g.tiles; I++ {
				aop := a
				var mask uint16
				if g.maskOp[0] || g.maskOp[1] {
					if G := g.group(I, part); G >= 0 {
						mask = g.mask[G]
					} else {
						mask = g.mask[I]
					}
				}
				if g.maskOp[0] {
					andMask(g.masked[0], a, mask)
					aop = g.masked[0]
				}
				for J := 0; J < g.tiles; J++ {
					bop := b
					if J != I {
						bop = g.bsw
					}
					if g.maskOp[1] {
						andMask(g.masked[1], bop, mask)
						bop = g.masked[1]
					}
					n := (I*g.tiles+J)*g.parts + part
					acc := g.accs[n]
					c := vr(acc, 4)
					if !first[n] {
						c, first[n] = zero, true
					}
					if lastAcc == n {
						g.add(host{mnem: "v_nop"})
					}
					w := host{mnem: g.wmma, ops: []isa.Operand{vr(acc, 4), v1(aop), v1(bop), c}}
					w.mod.OpSelHi = 7 // LLVM's canonical encoding
					g.add(w)
					lastAcc = n
				}
			}
		}
	}
	g.add(host{mnem: "v_nop"})
}

// accReg returns accumulator register r of tile (I, J), part b.
func (g *f8f6f4Gen) accReg(I, J, b, r int) uint16 {
	return g.accs[(I*g.tiles+J)*g.parts+b] + uint16(r)
}

// scale applies the block scales (or the f16 offsets alone) and adds the
// blocks into part 0 of every tile.
func (g *f8f6f4Gen) scale() error {
	off := byteOffset[g.fmt[0]] + byteOffset[g.fmt[1]]
	if !g.sh.scaled {
		if off == 0 {
			return nil
		}
		for _, a := range g.accs {
			for n := uint16(0); n < 4; n++ {
				r := v1(a + n)
				g.add(host{mnem: "v_ldexp_f32", ops: []isa.Operand{r, r, inl(off)}})
			}
		}
		return nil
	}
	t, err := g.take(8 + g.tiles)
	if err != nil {
		return err
	}
	sA, sB, ex, nan := t[0], t[1], t[2], t[3]
	ea, eb := t[4:8], t[8:]
	// The scale bytes of every lane, with the quiet-NaN bits 0x7fc00000
	// ORed in when the byte is 0xFF (E8M0 NaN): the exponent sum is then
	// meaningless, and the OR of the two words' NaN bits into the scaled
	// sum makes it NaN.
	for x, s := range []uint16{sA, sB} {
		src, sel := g.o.sa, g.o.selA
		if x == 1 {
			src, sel = g.o.sb, g.o.selB
		}
		g.add(host{mnem: "v_bfe_u32", ops: []isa.Operand{v1(s), src, inl(8 * sel), inl(8)}},
			host{mnem: "v_add_nc_u32_e32", ops: []isa.Operand{v1(nan), inl(1), v1(s)}},
			host{mnem: "v_bfe_i32", ops: []isa.Operand{v1(nan), v1(nan), inl(8), inl(1)}},
			host{mnem: "v_and_or_b32", ops: []isa.Operand{v1(s), v1(nan), lit(0x7fc00000), v1(s)}})
	}
	stride := 4 * g.sh.m // bytes between the lanes of consecutive blocks
	bperm := func(dst, addr, src uint16, offset int) host {
		h := host{mnem: "ds_bpermute_b32", ops: []isa.Operand{v1(dst), v1(addr), v1(src)}}
		h.mod.Offset, h.mod.Offset1 = int32(offset), uint8(offset>>8)
		return h
	}
	wait := host{mnem: "s_wait_dscnt", ops: []isa.Operand{imm(0)}}
	for b := 0; b < g.parts; b++ {
		for J := 0; J < g.tiles; J++ {
			g.add(bperm(eb[J], g.jb4, sB, 64*J+stride*b))
		}
		for I := 0; I < g.tiles; I++ {
			// The A scale of the row of accumulator register r.
			for r := 0; r < 4; r++ {
				g.add(bperm(ea[r], g.rb, sA, 64*I+4*r+stride*b))
			}
			g.add(wait)
			for r := 0; r < 4; r++ {
				for J := 0; J < g.tiles; J++ {
					p := v1(g.accReg(I, J, b, r))
					g.add(host{mnem: "v_add3_u32", ops: []isa.Operand{v1(ex), v1(ea[r]), v1(eb[J]), lit(uint32(int32(off - 254)))}},
						host{mnem: "v_ldexp_f32", ops: []isa.Operand{p, p, v1(ex)}},
						host{mnem: "v_or_b32_e32", ops: []isa.Operand{v1(nan), v1(ea[r]), v1(eb[J])}},
						host{mnem: "v_and_or_b32", ops: []isa.Operand{p, v1(nan), lit(0x7fc00000), p}})
					if b > 0 {
						s := v1(g.accReg(I, J, 0, r))
						g.add(host{mnem: "v_add_f32_e32", ops: []isa.Operand{s, s, p}})
					}
				}
			}
		}
	}
	return nil
}

// store permutes the sums to the MFMA C/D layout and writes D = sum + C.
func (g *f8f6f4Gen) store() error {
	d, c := g.o.d, g.o.c
	cOf := func(r int) isa.Operand {
		if c.Kind == isa.KindReg {
			return v1(c.Reg + uint16(r))
		}
		return c
	}
	wait := host{mnem: "s_wait_dscnt", ops: []isa.Operand{imm(0)}}
	t, err := g.take(3)
	if err != nil {
		return err
	}
	if g.tiles == 1 {
		// MFMA lane 16G + j, register r is WMMA lane 16p(G) + j.
		pa, x := t[0], t[1:]
		g.add(host{mnem: "v_lshl_add_u32", ops: []isa.Operand{v1(pa), v1(g.rb), inl(2), v1(g.jb4)}})
		for r := 0; r < 4; r += 2 {
			g.add(host{mnem: "ds_bpermute_b32", ops: []isa.Operand{v1(x[0]), v1(pa), v1(g.accReg(0, 0, 0, r))}},
				host{mnem: "ds_bpermute_b32", ops: []isa.Operand{v1(x[1]), v1(pa), v1(g.accReg(0, 0, 0, r+1))}}, wait,
				host{mnem: "v_add_f32_e64", ops: []isa.Operand{v1(d.Reg + uint16(r)), cOf(r), v1(x[0])}},
				host{mnem: "v_add_f32_e64", ops: []isa.Operand{v1(d.Reg + uint16(r+1)), cOf(r + 1), v1(x[1])}})
		}
		return nil
	}
	// MFMA register R = 4a + r at lane L is tile (a/2, bit 4 of L)
	// register r at lane (L & 0x2f) | 16*(a%2).
	ca, x, y := t[0], t[1], t[2]
	m4 := g.rb // no longer needed: reused for -(bit 4 of the lane)
	g.add(host{mnem: "v_bfe_i32", ops: []isa.Operand{v1(m4), v1(g.lid), inl(4), inl(1)}})
	for a := 0; a < 4; a++ {
		I := a / 2
		g.add(host{mnem: "v_and_b32_e32", ops: []isa.Operand{v1(ca), lit(0x2f), v1(g.lid)}},
			host{mnem: "v_lshlrev_b32_e32", ops: []isa.Operand{v1(ca), inl(2), v1(ca)}})
		if a%2 == 1 {
			g.add(host{mnem: "v_add_nc_u32_e32", ops: []isa.Operand{v1(ca), inl(64), v1(ca)}})
		}
		for r := 0; r < 4; r++ {
			R := 4*a + r
			g.add(host{mnem: "ds_bpermute_b32", ops: []isa.Operand{v1(x), v1(ca), v1(g.accReg(I, 0, 0, r))}},
				host{mnem: "ds_bpermute_b32", ops: []isa.Operand{v1(y), v1(ca), v1(g.accReg(I, 1, 0, r))}}, wait,
				host{mnem: "v_bfi_b32", ops: []isa.Operand{v1(x), v1(m4), v1(y), v1(x)}},
				host{mnem: "v_add_f32_e64", ops: []isa.Operand{v1(d.Reg + uint16(R)), cOf(R), v1(x)}})
		}
	}
	return nil
}
