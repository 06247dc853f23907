package rules

import (
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// gfx950's v_minimum3_f32 / v_maximum3_f32 (VOP3) and v_pk_minimum3_f16 /
// v_pk_maximum3_f16 (VOP3P) are IEEE 754-2019 minimum and maximum of three:
// any NaN operand gives a quiet NaN and -0 orders below +0. gfx942's
// v_min3_f32 / v_max3_f32 follow minNum/maxNum instead, so the expansion
// works on the bit patterns: each operand is mapped to a signed integer
// key that sorts like the float (negative patterns get their magnitude
// bits inverted: key = x ^ (ashr(x, 31) >> 1); -0 maps to -1, +0 to 0),
// v_min3_i32 / v_max3_i32 picks the key, the same involution maps it
// back, and a v_cmp_u test on the operands replaces the result by the
// canonical quiet NaN. No float arithmetic touches the chosen operand, so
// denormals and the MODE register cannot change it. The packed form does
// the same per 16-bit half on sign-extended halves (key = h ^ (ashr(h, 31)
// >> 17)).

func init() {
	register(Pair{isa.GFX950, isa.GFX942}, &Rule{
		Name:     "minmax3-f32",
		Ops:      []string{"v_minimum3_f32", "v_maximum3_f32"},
		Fidelity: report.Exact,
		Emit:     emitMinMax3F32,
	})
	register(Pair{isa.GFX950, isa.GFX942}, &Rule{
		Name:     "pk-minmax3-f16",
		Ops:      []string{"v_pk_minimum3_f16", "v_pk_maximum3_f16"},
		Fidelity: report.Exact,
		Emit:     emitPkMinMax3F16,
	})
}

// Host opcodes of the expansion (GFX9 VOP3 / VOP2 / VOP1 / VOPC numbers).
const (
	op3AshrrevI32 = 0x111
	op3Min3I32    = 0x1d1
	op3Max3I32    = 0x1d4
	op3CmpUF16    = 0x28
)

// Canonical quiet NaNs the expansion writes.
const (
	qNaNF32 = 0x7fc00000
	qNaNF16 = 0x7e00
)

// vop1l encodes a VOP1 instruction; a literal follows when src0 is srcLit.
func vop1l(op uint16, vdst uint16, src0 uint16, lit uint32) []uint32 {
	w := 0x7e000000 | uint32(vdst&0xff)<<17 | uint32(op&0xff)<<9 | uint32(src0&0x1ff)
	if src0 == srcLit {
		return []uint32{w, lit}
	}
	return []uint32{w}
}

// code collects host words.
type code []uint32

func (c *code) v3(op, vdst, s0, s1, s2 uint16) {
	w := vop3(op, vdst, s0, s1, s2)
	*c = append(*c, w[0], w[1])
}

// key maps the integer in register k (or source src, when src is not
// k's own code) to its sort key in k, using x as scratch; shift is 1 for
// f32 patterns and 17 for sign-extended f16 patterns.
func (c *code) key(k, src, x uint16, shift int) {
	c.v3(op3AshrrevI32, x, inlineInt(31), src, 0)
	*c = append(*c, vop2(op2LshrrevB32, x, inlineInt(shift), x, 0)...)
	*c = append(*c, vop2(op2XorB32, k, src, x, 0)...)
}

// MinMax3F32Code returns host code for v_minimum3_f32 (max false) or
// v_maximum3_f32 (max true) vdst, src0, src1, src2 with per-source abs
// and neg bits (bit i for source i). t holds four scratch VGPRs and sp an
// SGPR pair, none of them named by the instruction.
func MinMax3F32Code(max bool, vdst uint16, src [3]uint16, abs, neg uint32, t [4]uint16, sp uint16) []byte {
	var c code
	x := t[3]
	for i, s := range src {
		k := t[i]
		a, n := abs>>i&1 != 0, neg>>i&1 != 0
		if a || n {
			if a {
				c.v3(op3BfeU32, k, s, inlineInt(0), inlineInt(31))
			} else {
				c = append(c, vop1l(op1MovB32, k, s, 0)...)
			}
			if n {
				c = append(c, vop2(op2XorB32, k, srcLit, k, 0x80000000)...)
			}
			s = srcVGPR + k
		}
		c.key(k, s, x, 1)
	}
	op := uint16(op3Min3I32)
	if max {
		op = op3Max3I32
	}
	k0 := srcVGPR + t[0]
	c.v3(op, t[0], k0, srcVGPR+t[1], srcVGPR+t[2])
	c.key(t[0], k0, x, 1)
	c = append(c, vop1l(op1MovB32, x, srcLit, qNaNF32)...)
	// NaN-ness does not depend on abs/neg, so the raw sources are tested.
	c.v3(op3CmpUF32, sp, src[0], src[1], 0)
	c.v3(op3CndmaskB32, t[0], k0, srcVGPR+x, sp)
	c.v3(op3CmpUF32, sp, src[2], src[2], 0)
	c.v3(op3CndmaskB32, vdst, k0, srcVGPR+x, sp)
	return appendWords(nil, c...)
}

func emitMinMax3F32(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	if len(raw) != 8 {
		return nil, fieldErr(in, "size", uint32(len(raw)))
	}
	w := words(raw)
	if w[0]>>15&1 != 0 {
		return nil, fieldErr(in, "clamp", 1)
	}
	if m := w[0] >> 11 & 0xf; m != 0 {
		return nil, fieldErr(in, "op_sel", m)
	}
	if m := w[1] >> 27 & 3; m != 0 {
		return nil, fieldErr(in, "omod", m)
	}
	src := [3]uint16{uint16(w[1] & 0x1ff), uint16(w[1] >> 9 & 0x1ff), uint16(w[1] >> 18 & 0x1ff)}
	for _, s := range src {
		if s == srcLit {
			return nil, fieldErr(in, "literal source", srcLit)
		}
	}
	tv, err := ctx.TempVGPRs(4)
	if err != nil {
		return nil, err
	}
	sp, err := ctx.TempSGPRPair()
	if err != nil {
		return nil, err
	}
	return MinMax3F32Code(in.Name() == "v_maximum3_f32", uint16(w[0]&0xff), src, w[0]>>8&7, w[1]>>29, [4]uint16(tv), sp), nil
}

// PkMinMax3F16 describes one packed instruction: sources, the op_sel and
// op_sel_hi bits (bit i: source i reads its high half for the low or high
// result) and the neg_lo / neg_hi bits.
type PkMinMax3F16 struct {
	Max                        bool
	VDst                       uint16
	Src                        [3]uint16
	OpSel, OpSelHi, Neg, NegHi uint32
}

// Code returns host code for the instruction; t holds five scratch VGPRs
// and sp an SGPR pair, none of them named by the instruction.
func (p PkMinMax3F16) Code(t [5]uint16, sp uint16) []byte {
	var c code
	x := t[3]
	for h := 0; h < 2; h++ {
		sel, neg := p.OpSel, p.Neg
		if h == 1 {
			sel, neg = p.OpSelHi, p.NegHi
		}
		for i, s := range p.Src {
			c.v3(op3BfeI32, t[i], s, inlineInt(16*int(sel>>i&1)), inlineInt(16))
			if neg>>i&1 != 0 {
				// Flipping bit 15 of a sign-extended half flips its
				// upper bits with it.
				c = append(c, vop2(op2XorB32, t[i], srcLit, t[i], 0xffff8000)...)
			}
		}
		// sp = any NaN: a NaN in the first two replaces the third.
		c = append(c, vop1l(op1MovB32, x, srcLit, qNaNF16)...)
		c.v3(op3CmpUF16, sp, srcVGPR+t[0], srcVGPR+t[1], 0)
		c.v3(op3CndmaskB32, t[2], srcVGPR+t[2], srcVGPR+x, sp)
		c.v3(op3CmpUF16, sp, srcVGPR+t[2], srcVGPR+t[2], 0)
		for i := 0; i < 3; i++ {
			c.key(t[i], srcVGPR+t[i], x, 17)
		}
		op := uint16(op3Min3I32)
		if p.Max {
			op = op3Max3I32
		}
		k0 := srcVGPR + t[0]
		c.v3(op, t[0], k0, srcVGPR+t[1], srcVGPR+t[2])
		c.key(t[0], k0, x, 17)
		c = append(c, vop1l(op1MovB32, x, srcLit, qNaNF16)...)
		r := t[4]
		if h == 1 {
			r = t[0]
		}
		c.v3(op3CndmaskB32, r, k0, srcVGPR+x, sp)
	}
	c = append(c, vop2(op2AndB32, t[4], srcLit, t[4], 0xffff)...)
	c.v3(op3LshlOrB32, p.VDst, srcVGPR+t[0], inlineInt(16), srcVGPR+t[4])
	return appendWords(nil, c...)
}

func emitPkMinMax3F16(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	if len(raw) != 8 {
		return nil, fieldErr(in, "size", uint32(len(raw)))
	}
	w := words(raw)
	if w[0]>>15&1 != 0 {
		return nil, fieldErr(in, "clamp", 1)
	}
	p := PkMinMax3F16{
		Max:     in.Name() == "v_pk_maximum3_f16",
		VDst:    uint16(w[0] & 0xff),
		Src:     [3]uint16{uint16(w[1] & 0x1ff), uint16(w[1] >> 9 & 0x1ff), uint16(w[1] >> 18 & 0x1ff)},
		OpSel:   w[0] >> 11 & 7,
		OpSelHi: w[1]>>27&3 | (w[0]>>14&1)<<2,
		Neg:     w[1] >> 29,
		NegHi:   w[0] >> 8 & 7,
	}
	for _, s := range p.Src {
		if s >= 128 && s < srcVGPR {
			// Inline constants of packed f16 operations (and literals)
			// are not modelled here; fail closed.
			return nil, fieldErr(in, "constant source", uint32(s))
		}
	}
	tv, err := ctx.TempVGPRs(5)
	if err != nil {
		return nil, err
	}
	sp, err := ctx.TempSGPRPair()
	if err != nil {
		return nil, err
	}
	return p.Code([5]uint16(tv), sp), nil
}
