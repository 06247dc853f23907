package rules

import (
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// v_cvt_pk_fp8_f32 vdst, x0, x1 [op_sel:[0,0,1]] converts two f32 to
// E4M3 (OCP on gfx950, FNUZ on gfx942), byte 0 from x0 and byte 1 from x1,
// into the low (or, with op_sel[3], high) 16 bits of vdst, keeping the
// other half. The OCP code of x is the FNUZ code of x/2 for every x whose
// FNUZ result is a finite non-zero code (the grids differ by exactly a
// factor of two, so rounding to nearest even agrees). The expansion converts
// x/2 with the host instruction and repairs the codes whose magnitude
// is 0: the FNUZ NaN 0x80 (NaN input or overflow) becomes the OCP NaN
// 0x7f with x's sign, and zero gets x's sign (OCP has -0).

// FP8PackBound documents the differences.
const FP8PackBound = "round-to-nearest-even as the host converts x/2; overflow (|x| >= 464) and NaN give the OCP NaN 0x7f/0xff; f32 inputs below 2^-125 are halved into denormals first (they round to a signed zero either way)"

func init() {
	register(Pair{isa.GFX950, isa.GFX942}, &Rule{Name: "cvt-pk-fp8-ocp", Ops: []string{"v_cvt_pk_fp8_f32"}, Fidelity: report.Approximate, Bound: FP8PackBound, Emit: emitCvtPkFP8, Shared: cvtPkFP8Shared})
}

const (
	op3CvtPkFP8F32 = 0x2a2
	op3MulF32      = 0x105
	op3LshrrevB32  = 0x110
	op2MulU32U24   = 0x08
	op1MovB32      = 0x01
	srcHalf        = 240 // inline 0.5
)

// fnuzPairBits starts both v_cvt_pk_fp8_f32 expansions: the host's FNUZ
// conversion of x0/2 and x1/2 into p[15:0] (h0 and h1 hold the halves)
// and, in q, bit 7 of each of the two bytes set where its magnitude is
// non-zero.
func fnuzPairBits(x0, x1, h0, h1, p, q uint16) []uint32 {
	var w []uint32
	add3 := func(x [2]uint32) { w = append(w, x[0], x[1]) }
	add3(vop3(op3MulF32, h0, srcHalf, x0, 0))
	add3(vop3(op3MulF32, h1, srcHalf, x1, 0))
	add3(vop3(op3CvtPkFP8F32, p, srcVGPR+h0, srcVGPR+h1, 0)) // FNUZ codes in p[15:0]
	w = append(w, vop2(op2AndB32, q, srcLit, p, 0x7f7f)...)  // magnitudes
	w = append(w, vop2(op2AddU32, q, srcLit, q, 0x7f7f)...)  // bit 7 set where non-zero
	w = append(w, vop2(op2AndB32, q, srcLit, q, 0x8080)...)
	return w
}

// CvtPkFP8OCPCode returns host code for v_cvt_pk_fp8_f32 vdst, x0, x1 (9-bit
// source codes) writing the high half when hi, with temporaries t[0..4].
func CvtPkFP8OCPCode(vdst, x0, x1 uint16, hi bool, t [5]uint16) []byte {
	h0, h1, p, q, r := t[0], t[1], t[2], t[3], t[4]
	w := fnuzPairBits(x0, x1, h0, h1, p, q)
	add3 := func(x [2]uint32) { w = append(w, x[0], x[1]) }
	w = append(w, vop2(op2LshrrevB32, h0, inlineInt(7), q, 0)...)
	w = append(w, vop2(op2MulU32U24, h0, srcLit, h0, 0xff)...) // 0xff per non-zero byte
	w = append(w, vop2(op2AndB32, h1, srcLit, p, 0x8080)...)
	add3(vop3(opBfiB32, h1, srcVGPR+h0, srcZero, srcVGPR+h1)) // 0x80 where the code was NaN
	w = append(w, vop2(op2LshrrevB32, h1, inlineInt(7), h1, 0)...)
	w = append(w, vop2(op2MulU32U24, h1, srcLit, h1, 0x7f)...) // 0x7f for NaN
	return appendWords(nil, pkMergeOCP(w, vdst, x0, x1, hi, h0, h1, p, q, r)...)
}

// cvtPkFP8Code is the rule's expansion of v_cvt_pk_fp8_f32 vdst, x0, x1:
// CvtPkFP8OCPCode's result in 12 instructions (either half). The host
// converts |x0|/2 and |x1|/2 (VOP3 abs), so every code is a magnitude
// 0x00-0x7f or the FNUZ NaN 0x80 (NaN input, overflow); subtracting bit
// 7 turns 0x80 into the OCP NaN 0x7f (no borrow leaves a byte) and the
// inputs' sign bits, which one v_perm_b32 gathers (byte 3 of x0 and of
// x1), are ORed in: a zero becomes a signed zero, a NaN 0x7f or 0xff. A
// v_perm_b32 then merges the pair into the low or high half of vdst.
func cvtPkFP8Code(vdst, x0, x1 uint16, hi bool, t [5]uint16) []byte {
	h0, h1, p, q, r := t[0], t[1], t[2], t[3], t[4]
	var w []uint32
	add3 := func(x [2]uint32) { w = append(w, x[0], x[1]) }
	abs1 := func(x [2]uint32) [2]uint32 { return [2]uint32{x[0] | 2<<8, x[1]} } // |src1|
	add3(abs1(vop3(op3MulF32, h0, srcHalf, x0, 0)))
	add3(abs1(vop3(op3MulF32, h1, srcHalf, x1, 0)))
	add3(vop3(op3CvtPkFP8F32, p, srcVGPR+h0, srcVGPR+h1, 0)) // FNUZ magnitudes (or 0x80) in p[15:0]
	w = append(w, vop2(op2LshrrevB32, h0, inlineInt(7), p, 0)...)
	w = append(w, vop2(op2AndB32, h0, srcLit, h0, 0x0101)...) // 1 per NaN code
	w = append(w, vop2(op2SubU32, p, srcVGPR+p, h0, 0)...)    // 0x80 -> 0x7f
	// Byte 0 of q is byte 3 of x0, byte 1 byte 3 of x1 (bytes 2 and 3,
	// again x1's, are masked off).
	w = append(w, vop1(op1MovB32, r, srcLit), 0x07070703)
	add3(vop3(op3PermB32, q, x1, x0, srcVGPR+r))
	w = append(w, vop2(op2AndB32, q, srcLit, q, 0x8080)...) // sign bits
	w = append(w, vop2(op2OrB32, p, srcVGPR+p, q, 0)...)    // 16-bit OCP pair
	sel := uint32(0x07060100)                               // p's pair low, vdst's high half kept
	if hi {
		sel = 0x01000504 // vdst's low half kept, p's pair high
	}
	w = append(w, vop1(op1MovB32, r, srcLit), sel)
	add3(vop3(op3PermB32, vdst, srcVGPR+vdst, srcVGPR+p, srcVGPR+r))
	return appendWords(nil, w...)
}

func emitCvtPkFP8(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	if len(raw) != 8 {
		return nil, fieldErr(in, "size", uint32(len(raw)))
	}
	w := words(raw)
	opsel := w[0] >> 11 & 0xf
	if opsel&7 != 0 {
		return nil, fieldErr(in, "source op_sel", opsel)
	}
	if err := noMods(in, w[0]&^(0xf<<11), w[1]); err != nil {
		return nil, err
	}
	x0, x1 := uint16(w[1]&0x1ff), uint16(w[1]>>9&0x1ff)
	if x0 == srcLit || x1 == srcLit {
		return nil, fieldErr(in, "literal source", srcLit)
	}
	t, err := ctx.TempVGPRs(5)
	if err != nil {
		return nil, err
	}
	return cvtPkFP8Code(uint16(w[0]&0xff), x0, x1, opsel&8 != 0, [5]uint16(t)), nil
}

// pkMergeOCP ends an OCP 8-bit pack: p[15:0] holds the two host codes, h0
// a 0xff mask per byte that keeps its code and h1 the replacement bytes;
// the inputs' sign bits join the replacements, the pair is merged and
// written to the low or (hi) high half of vdst. q and r are temporaries.
func pkMergeOCP(w []uint32, vdst, x0, x1 uint16, hi bool, h0, h1, p, q, r uint16) []uint32 {
	add3 := func(x [2]uint32) { w = append(w, x[0], x[1]) }
	add3(vop3(op3LshrrevB32, q, inlineInt(24), x0, 0))
	w = append(w, vop2(op2AndB32, q, srcLit, q, 0x80)...)
	add3(vop3(op3LshrrevB32, r, inlineInt(16), x1, 0))
	w = append(w, vop2(op2AndB32, r, srcLit, r, 0x8000)...)
	w = append(w, vop2(op2OrB32, q, srcVGPR+q, r, 0)...)       // sign bits
	w = append(w, vop2(op2OrB32, h1, srcVGPR+h1, q, 0)...)     // replacement bytes
	add3(vop3(opBfiB32, p, srcVGPR+h0, srcVGPR+p, srcVGPR+h1)) // 16-bit OCP pair
	mask := uint32(0xffff)
	if hi {
		w = append(w, vop2(op2LshlrevB32, p, inlineInt(16), p, 0)...)
		mask = 0xffff0000
	}
	w = append(w, vop1(op1MovB32, h0, srcLit), mask)
	add3(vop3(opBfiB32, vdst, srcVGPR+h0, srcVGPR+p, srcVGPR+vdst))
	return w
}
