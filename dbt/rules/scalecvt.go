package rules

import (
	"fmt"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// gfx950's scaled conversions (v_cvt_scalef32_*) read only the exponent
// field E of their f32 scale operand, as the OCP MX shared scale 2^(E-127).
// Widening multiplies the element by it, narrowing divides by it; the
// scaled value is rounded once. gfx942 has no such instructions, but every
// step has an exact host form:
//
//   - widening: the element is decoded exactly to f32 (FP8/BF8 with the
//     OCP decode sequence of cvt-f32-fp8-ocp; FP4 through a nibble table
//     of twice its value and v_cvt_f32_u32), v_ldexp_f32 applies E-127
//     (exact: an element has at most four significant bits, so the
//     product is representable whenever it is in f32 range), and the f32
//     is narrowed once to bf16 or f16 when the result type asks for it;
//   - narrowing to FP4: v_ldexp_f32 divides |x| by the scale (a rounding
//     only happens below 2^-126, which becomes code 0 either way), the
//     value is clamped to [0, 6] (NaN and infinity saturate), rounded to
//     the FP4 grid by adding and subtracting 2^22 times the grid step
//     (the f32 adder rounds to nearest even), and the code is read from
//     the rounded sum's bits;
//   - narrowing to FP8 or BF8: v_ldexp_f32 scales both sources (f16/bf16
//     sources are widened exactly first), then the cvt-pk-fp8-ocp sequence
//     or its E5M2 counterpart (CvtPkBF8OCPCode) converts them.

// ScaleCvtBound documents what the scaled-conversion rules do not promise.
const ScaleCvtBound = "round-to-nearest-even with the default MODE; the f32 denormal mode is not applied (as in the simulator's gfx950 model); a NaN result may have a different payload; FP8 results as cvt-pk-fp8-ocp"

func init() {
	p := Pair{isa.GFX950, isa.GFX942}
	register(p, &Rule{Name: "cvt-scalef32-pk-fp4-f32", Ops: []string{"v_cvt_scalef32_pk_fp4_f32"}, Fidelity: report.Approximate, Bound: ScaleCvtBound, Emit: emitScaleCvtPkFP4F32})
	register(p, &Rule{Name: "cvt-scalef32-pk-fp8-f32", Ops: []string{"v_cvt_scalef32_pk_fp8_f32", "v_cvt_scalef32_pk_bf8_f32"}, Fidelity: report.Approximate, Bound: ScaleCvtBound, Emit: emitScaleCvtPkFP8F32})
	register(p, &Rule{Name: "cvt-scalef32-pk-narrow-16", Ops: []string{"v_cvt_scalef32_pk_fp4_f16", "v_cvt_scalef32_pk_fp4_bf16", "v_cvt_scalef32_pk_fp8_f16", "v_cvt_scalef32_pk_fp8_bf16", "v_cvt_scalef32_pk_bf8_f16", "v_cvt_scalef32_pk_bf8_bf16"}, Fidelity: report.Approximate, Bound: ScaleCvtBound, Emit: emitScaleCvtNarrow16})
	var widen []string
	for _, wide := range []string{"f32", "f16", "bf16"} {
		for _, f := range []string{"fp8", "bf8", "fp4"} {
			widen = append(widen, "v_cvt_scalef32_pk_"+wide+"_"+f)
		}
	}
	widen = append(widen, "v_cvt_scalef32_f32_fp8", "v_cvt_scalef32_f32_bf8")
	register(p, &Rule{Name: "cvt-scalef32-widen", Ops: widen, Fidelity: report.Approximate, Bound: ScaleCvtBound, Emit: emitScaleCvtWiden})
}

const (
	op3LdexpF32   = 0x288
	op2SubU32     = 0x35
	op2MinF32     = 0x0a
	op1CvtF32U32  = 0x06
	op1CvtF16F32  = 0x0a
	op1CvtF32F16  = 0x0b
	op3PackB32F16 = 0x2a0
)

// scaleVOP3 returns the two dwords of a VOP3 scaled conversion.
func scaleVOP3(in *isa.Inst, raw []byte) (w0, w1 uint32, err error) {
	if len(raw) != 8 {
		return 0, 0, fieldErr(in, "size", uint32(len(raw)))
	}
	w := words(raw)
	return w[0], w[1], nil
}

// scaleExpCode sets k to c - E (negate) or E + c, E the exponent field of
// the scale at source code s.
func scaleExpCode(k, s uint16, negate bool, c int32) []uint32 {
	x := vop3(op3BfeU32, k, s, inlineInt(23), inlineInt(8))
	w := []uint32{x[0], x[1]}
	if negate {
		return append(w, vop2(op2SubU32, k, srcLit, k, uint32(c))...)
	}
	return append(w, vop2(op2AddU32, k, srcLit, k, uint32(c))...)
}

// ScaleFP4Code returns host code for v_cvt_scalef32_pk_fp4_f32 vdst, x0,
// x1, s writing byte sel of vdst; abs and neg are the VOP3 modifier bits
// of x0 (bit 0) and x1 (bit 1); t are six temporaries.
func ScaleFP4Code(vdst, x0, x1, s uint16, sel int, abs, neg uint32, t [6]uint16) []byte {
	k, c, b, sg := t[0], t[1], t[2], t[3]
	w := scaleExpCode(k, s, true, 127) // k = 127 - E
	nib := [2]uint16{t[4], t[5]}
	for i, x := range []uint16{x0, x1} {
		a := nib[i]
		l := vop3(op3LdexpF32, a, x, srcVGPR+k, 0)
		l[0] |= 1 << 8 // |x|
		w = append(w, l[0], l[1])
		w = append(w, vop2(op2MinF32, a, srcLit, a, 0x40c00000)...)   // <= 6; NaN -> 6
		w = append(w, vop2(op2AndB32, b, srcLit, a, 0x7f800000)...)   // 2^e(a)
		w = append(w, vop2(op2AddU32, b, srcLit, b, 22<<23)...)       // 2^(e+22)
		w = append(w, vop2(op2MaxU32, b, srcLit, b, 0x4a800000)...)   // at least 2^22
		w = append(w, vop2(op2AddF32, c, srcVGPR+a, b, 0)...)         // round to the grid
		w = append(w, vop2(op2SubU32, c, srcVGPR+c, b, 0)...)         // steps of the grid
		w = append(w, vop2(op2LshrrevB32, b, inlineInt(22), b, 0)...) // 2*(e+149)
		w = append(w, vop2(op2AddU32, c, srcVGPR+c, b, 0)...)
		w = append(w, vop2(op2AddU32, a, srcLit, c, 0xffffffff-297)...) // minus 298: the code
		if abs>>i&1 == 0 {
			sb := vop3(op3BfeU32, sg, x, inlineInt(31), inlineInt(1))
			w = append(w, sb[0], sb[1])
			if neg>>i&1 != 0 {
				w = append(w, vop2(op2XorB32, sg, inlineInt(1), sg, 0)...)
			}
			lo := vop3(op3LshlOrB32, a, srcVGPR+sg, inlineInt(3), srcVGPR+a)
			w = append(w, lo[0], lo[1])
		} else if neg>>i&1 != 0 {
			w = append(w, vop2(op2OrB32, a, inlineInt(8), a, 0)...)
		}
	}
	lo := vop3(op3LshlOrB32, c, srcVGPR+nib[1], inlineInt(4), srcVGPR+nib[0])
	w = append(w, lo[0], lo[1])
	if sel != 0 {
		w = append(w, vop2(op2LshlrevB32, c, inlineInt(8*sel), c, 0)...)
	}
	w = append(w, vop1(op1MovB32, b, srcLit), 0xff<<(8*sel))
	bf := vop3(opBfiB32, vdst, srcVGPR+b, srcVGPR+c, srcVGPR+vdst)
	w = append(w, bf[0], bf[1])
	return appendWords(nil, w...)
}

func emitScaleCvtPkFP4F32(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	w0, w1, err := scaleVOP3(in, raw)
	if err != nil {
		return nil, err
	}
	opsel := w0 >> 11 & 0xf
	if opsel&3 != 0 {
		return nil, fieldErr(in, "source op_sel", opsel)
	}
	if w0>>15&1 != 0 || w1>>27&3 != 0 || w0>>10&1 != 0 || w1>>31 != 0 {
		return nil, fieldErr(in, "clamp/omod/src2 modifiers", w0>>8&0xff|w1>>27<<8)
	}
	x0, x1, s := uint16(w1&0x1ff), uint16(w1>>9&0x1ff), uint16(w1>>18&0x1ff)
	if x0 == srcLit || x1 == srcLit || s == srcLit {
		return nil, fieldErr(in, "literal source", srcLit)
	}
	t, err := ctx.TempVGPRs(6)
	if err != nil {
		return nil, err
	}
	return ScaleFP4Code(uint16(w0&0xff), x0, x1, s, int(opsel>>2), w0>>8&3, w1>>29&3, [6]uint16(t)), nil
}

func emitScaleCvtPkFP8F32(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	w0, w1, err := scaleVOP3(in, raw)
	if err != nil {
		return nil, err
	}
	opsel := w0 >> 11 & 0xf
	if opsel&7 != 0 {
		return nil, fieldErr(in, "source op_sel", opsel)
	}
	if w0>>8&7 != 0 || w0>>15&1 != 0 || w1>>27 != 0 {
		return nil, fieldErr(in, "clamp/omod/abs/neg", w0>>8&0xff|w1>>27<<8)
	}
	x0, x1, s := uint16(w1&0x1ff), uint16(w1>>9&0x1ff), uint16(w1>>18&0x1ff)
	if x0 == srcLit || x1 == srcLit || s == srcLit {
		return nil, fieldErr(in, "literal source", srcLit)
	}
	t, err := ctx.TempVGPRs(8)
	if err != nil {
		return nil, err
	}
	k, y0, y1 := t[5], t[6], t[7]
	w := scaleExpCode(k, s, true, 127)
	l0 := vop3(op3LdexpF32, y0, x0, srcVGPR+k, 0)
	l1 := vop3(op3LdexpF32, y1, x1, srcVGPR+k, 0)
	w = append(w, l0[0], l0[1], l1[0], l1[1])
	pk, err := pk8Code(in.Name(), uint16(w0&0xff), srcVGPR+y0, srcVGPR+y1, opsel&8 != 0, t[:5], ctx)
	if err != nil {
		return nil, err
	}
	return append(appendWords(nil, w...), pk...), nil
}

// pk8Code returns the OCP FP8 (or, for a bf8 mnemonic, BF8) pack of the
// f32 sources x0, x1 into the half hi of vdst; t are five temporaries
// (BF8 asks ctx for two more).
func pk8Code(name string, vdst, x0, x1 uint16, hi bool, t []uint16, ctx Context) ([]byte, error) {
	if strings.Contains(name, "_bf8_") {
		more, err := ctx.TempVGPRs(2)
		if err != nil {
			return nil, err
		}
		return CvtPkBF8OCPCode(vdst, x0, x1, hi, [7]uint16{t[0], t[1], t[2], t[3], t[4], more[0], more[1]}), nil
	}
	return CvtPkFP8OCPCode(vdst, x0, x1, hi, [5]uint16(t)), nil
}

const (
	op3CvtPkBF8F32 = 0x2a3
)

// CvtPkBF8OCPCode returns host code converting the f32 sources x0, x1 to
// OCP E5M2 (byte 0 from x0, byte 1 from x1) into the half hi of vdst,
// with temporaries t. The OCP code of x is the E5M2FNUZ code of x/2
// (the grids differ by exactly a factor of two, so rounding agrees) except
// where the OCP format has its infinities and NaNs: FNUZ codes with
// exponent 31 (x beyond the OCP range) and the FNUZ NaN 0x80 from an
// overflow become OCP infinity 0x7c with x's sign, a NaN input the OCP
// NaN 0x7f, and zero gets x's sign.
func CvtPkBF8OCPCode(vdst, x0, x1 uint16, hi bool, t [7]uint16) []byte {
	h0, h1, p, q, r, m, n := t[0], t[1], t[2], t[3], t[4], t[5], t[6]
	var w []uint32
	add3 := func(x [2]uint32) { w = append(w, x[0], x[1]) }
	add3(vop3(op3MulF32, h0, srcHalf, x0, 0))
	add3(vop3(op3MulF32, h1, srcHalf, x1, 0))
	add3(vop3(op3CvtPkBF8F32, p, srcVGPR+h0, srcVGPR+h1, 0)) // FNUZ codes in p[15:0]
	// Exponent 31 (magnitude >= 0x7c) is beyond the OCP range: infinity.
	w = append(w, vop2(op2AndB32, q, srcLit, p, 0x7f7f)...)
	w = append(w, vop2(op2AddU32, q, srcLit, q, 0x0404)...)
	w = append(w, vop2(op2AndB32, q, srcLit, q, 0x8080)...)
	w = append(w, vop2(op2LshrrevB32, q, inlineInt(7), q, 0)...)
	w = append(w, vop2(op2MulU32U24, q, srcLit, q, 0x7f)...)
	w = append(w, vop1(op1MovB32, r, srcLit), 0x7c7c)
	add3(vop3(opBfiB32, p, srcVGPR+q, srcVGPR+r, srcVGPR+p))
	// Bytes with a non-zero magnitude keep the FNUZ code.
	w = append(w, vop2(op2AndB32, q, srcLit, p, 0x7f7f)...)
	w = append(w, vop2(op2AddU32, q, srcLit, q, 0x7f7f)...)
	w = append(w, vop2(op2AndB32, q, srcLit, q, 0x8080)...)
	w = append(w, vop2(op2LshrrevB32, h0, inlineInt(7), q, 0)...)
	w = append(w, vop2(op2MulU32U24, h0, srcLit, h0, 0xff)...)
	// The FNUZ NaN (overflow or NaN input) becomes infinity ...
	w = append(w, vop2(op2AndB32, h1, srcLit, p, 0x8080)...)
	add3(vop3(opBfiB32, h1, srcVGPR+h0, srcZero, srcVGPR+h1))
	w = append(w, vop2(op2LshrrevB32, h1, inlineInt(7), h1, 0)...)
	w = append(w, vop2(op2MulU32U24, h1, srcLit, h1, 0x7c)...)
	// ... and a NaN input the NaN 0x7f: (|x| << 1) > 0xff000000.
	for i, x := range []uint16{x0, x1} {
		d := []uint16{m, n}[i]
		add3(vop3(op3LshlrevB32, d, inlineInt(1), x, 0))
		w = append(w, vop2(op2MaxU32, d, srcLit, d, 0xff000000)...)
		w = append(w, vop2(op2AddU32, d, srcLit, d, 0x01000000)...)
		w = append(w, vop2(op2MinU32, d, inlineInt(1), d, 0)...)
		w = append(w, vop2(op2MulU32U24, d, srcLit, d, 3<<(8*i))...)
		w = append(w, vop2(op2OrB32, h1, srcVGPR+h1, d, 0)...)
	}
	// Signs of the inputs for the replaced bytes, then the merge.
	return appendWords(nil, pkMergeOCP(w, vdst, x0, x1, hi, h0, h1, p, q, r)...)
}

// fp4Table holds twice the magnitude of every FP4 code, a nibble each.
const fp4Table = 0xc8643210

// scaleWidenElem decodes element i of source code src into f32 temporary
// r, multiplied by 2^(E-127) where k holds E-127 (E-128 for FP4, whose
// table holds doubled values). a, b, c are temporaries.
func scaleWidenElem(format string, src uint16, elem int, r, k, a, b, c uint16) []uint32 {
	var w []uint32
	if format == "fp4" {
		x := vop3(op3BfeU32, a, src, inlineInt(4*elem), inlineInt(3)) // magnitude
		w = append(w, x[0], x[1])
		w = append(w, vop2(op2LshlrevB32, a, inlineInt(2), a, 0)...)
		w = append(w, vop1(op1MovB32, b, srcLit), fp4Table)
		w = append(w, vop2(op2LshrrevB32, a, srcVGPR+a, b, 0)...)
		w = append(w, vop2(op2AndB32, a, inlineInt(15), a, 0)...)
		w = append(w, vop1(op1CvtF32U32, a, srcVGPR+a))
		x = vop3(op3BfeU32, b, src, inlineInt(4*elem+3), inlineInt(1)) // sign
		w = append(w, x[0], x[1])
		w = append(w, vop2(op2LshlrevB32, b, inlineInt(31), b, 0)...)
		w = append(w, vop2(op2OrB32, a, srcVGPR+a, b, 0)...)
	} else {
		w = append(w, words(CvtF32FP8OCPCode(format == "bf8", a, src, elem, b, c, r))...)
	}
	l := vop3(op3LdexpF32, r, srcVGPR+a, srcVGPR+k, 0)
	return append(w, l[0], l[1])
}

func emitScaleCvtWiden(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	w0, w1, err := scaleVOP3(in, raw)
	if err != nil {
		return nil, err
	}
	rest := strings.TrimPrefix(in.Name(), "v_cvt_scalef32_")
	pk := strings.HasPrefix(rest, "pk_")
	parts := strings.Split(strings.TrimPrefix(rest, "pk_"), "_")
	if len(parts) != 2 {
		return nil, fmt.Errorf("%s at %#x: unexpected mnemonic", in.Name(), in.PC)
	}
	wide, format := parts[0], parts[1]
	opsel := w0 >> 11 & 0xf
	if w0>>8&7 != 0 || w0>>15&1 != 0 || w1>>27 != 0 {
		return nil, fieldErr(in, "clamp/omod/abs/neg", w0>>8&0xff|w1>>27<<8)
	}
	var elems []int
	switch {
	case format == "fp4":
		if opsel&^3 != 0 {
			return nil, fieldErr(in, "op_sel", opsel)
		}
		b := int(opsel & 3)
		elems = []int{2 * b, 2*b + 1} // nibbles
	case pk:
		if opsel&^1 != 0 {
			return nil, fieldErr(in, "op_sel", opsel)
		}
		h := int(opsel & 1)
		elems = []int{2 * h, 2*h + 1} // bytes
	default:
		if opsel&^3 != 0 {
			return nil, fieldErr(in, "op_sel", opsel)
		}
		elems = []int{int(opsel & 3)}
	}
	vdst := uint16(w0 & 0xff)
	src, s := uint16(w1&0x1ff), uint16(w1>>9&0x1ff)
	if src == srcLit || s == srcLit {
		return nil, fieldErr(in, "literal source", srcLit)
	}
	t, err := ctx.TempVGPRs(6)
	if err != nil {
		return nil, err
	}
	k, r0, r1, a, b, c := t[0], t[1], t[2], t[3], t[4], t[5]
	bias := int32(-127)
	if format == "fp4" {
		bias = -128
	}
	w := scaleExpCode(k, s, false, bias) // k = E + bias
	r := []uint16{r0, r1}
	for i, e := range elems {
		w = append(w, scaleWidenElem(format, src, e, r[i], k, a, b, c)...)
	}
	switch {
	case wide == "f32" && !pk:
		w = append(w, vop1(op1MovB32, vdst, srcVGPR+r0))
	case wide == "f32":
		w = append(w, vop1(op1MovB32, vdst, srcVGPR+r0), vop1(op1MovB32, vdst+1, srcVGPR+r1))
	case wide == "f16":
		w = append(w, vop1(op1CvtF16F32, r0, srcVGPR+r0), vop1(op1CvtF16F32, r1, srcVGPR+r1))
		x := vop3(op3PackB32F16, vdst, srcVGPR+r0, srcVGPR+r1, 0)
		w = append(w, x[0], x[1])
	case wide == "bf16":
		p, err := ctx.TempSGPRPair()
		if err != nil {
			return nil, err
		}
		return append(appendWords(nil, w...), CvtPkBF16Code(vdst, srcVGPR+r0, srcVGPR+r1, a, b, c, p)...), nil
	default:
		return nil, fmt.Errorf("%s at %#x: unexpected result type %s", in.Name(), in.PC, wide)
	}
	return appendWords(nil, w...), nil
}

// emitScaleCvtNarrow16 handles v_cvt_scalef32_pk_{fp4,fp8}_{f16,bf16}
// vdst, src0 (two halves), scale: each half is widened to f32 exactly
// (v_cvt_f32_f16, or a shift for bf16), then converted as the f32 form.
func emitScaleCvtNarrow16(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	w0, w1, err := scaleVOP3(in, raw)
	if err != nil {
		return nil, err
	}
	name := in.Name()
	fp4 := strings.Contains(name, "_fp4_")
	bf := strings.HasSuffix(name, "_bf16")
	opsel := w0 >> 11 & 0xf
	if fp4 && opsel&3 != 0 || !fp4 && opsel&7 != 0 {
		return nil, fieldErr(in, "source op_sel", opsel)
	}
	if w0>>8&7 != 0 || w0>>15&1 != 0 || w1>>27 != 0 {
		return nil, fieldErr(in, "clamp/omod/abs/neg", w0>>8&0xff|w1>>27<<8)
	}
	src, s := uint16(w1&0x1ff), uint16(w1>>9&0x1ff)
	if src == srcLit || s == srcLit {
		return nil, fieldErr(in, "literal source", srcLit)
	}
	t, err := ctx.TempVGPRs(8)
	if err != nil {
		return nil, err
	}
	x0, x1 := t[6], t[7]
	var w []uint32
	if bf {
		a := vop3(op3LshlrevB32, x0, inlineInt(16), src, 0)
		w = append(w, a[0], a[1])
		if src >= srcVGPR {
			w = append(w, vop2(op2AndB32, x1, srcLit, src-srcVGPR, 0xffff0000)...)
		} else {
			w = append(w, vop1(op1MovB32, x1, src))
			w = append(w, vop2(op2AndB32, x1, srcLit, x1, 0xffff0000)...)
		}
	} else {
		w = append(w, vop1(op1CvtF32F16, x0, src))
		a := vop3(op3LshrrevB32, x1, inlineInt(16), src, 0)
		w = append(w, a[0], a[1], vop1(op1CvtF32F16, x1, srcVGPR+x1))
	}
	out := appendWords(nil, w...)
	vdst := uint16(w0 & 0xff)
	if fp4 {
		return append(out, ScaleFP4Code(vdst, srcVGPR+x0, srcVGPR+x1, s, int(opsel>>2), 0, 0, [6]uint16(t[:6]))...), nil
	}
	k := t[5]
	w = scaleExpCode(k, s, true, 127)
	l0 := vop3(op3LdexpF32, x0, srcVGPR+x0, srcVGPR+k, 0)
	l1 := vop3(op3LdexpF32, x1, srcVGPR+x1, srcVGPR+k, 0)
	w = append(w, l0[0], l0[1], l1[0], l1[1])
	out = appendWords(out, w...)
	pk, err := pk8Code(name, vdst, srcVGPR+x0, srcVGPR+x1, opsel&8 != 0, t[:5], ctx)
	if err != nil {
		return nil, err
	}
	return append(out, pk...), nil
}
