package rules

import (
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// BF16Bound is the documented difference of the bf16 conversion rule.
const BF16Bound = "round-to-nearest-even as with the default MODE; f32 denormal inputs are converted (not flushed); a NaN keeps its sign and upper payload with the quiet bit set"

func init() {
	register(Pair{isa.GFX950, isa.GFX942}, &Rule{
		Name:     "cvt-pk-bf16",
		Ops:      []string{"v_cvt_pk_bf16_f32"},
		Fidelity: report.Approximate,
		Bound:    BF16Bound,
		Emit:     emitCvtPkBF16,
		Shared:   cvtPkBF16Shared,
	})
}

// BF16 is the reference conversion the rule implements: f32 bits to bf16
// bits, round to nearest even, NaN quieted.
func BF16(x uint32) uint16 {
	if x&0x7fffffff > 0x7f800000 {
		return uint16((x | 0x400000) >> 16)
	}
	return uint16((x + 0x7fff + (x >> 16 & 1)) >> 16)
}

// cvtBF16Code converts the f32 at source code x into temp t (the bf16 in
// t's upper half), using q as a second temporary and SGPR pair p.
func cvtBF16Code(x, t, q, p uint16) []uint32 {
	var w []uint32
	b := vop3(op3BfeU32, t, x, inlineInt(16), inlineInt(1))
	w = append(w, b[0], b[1])
	w = append(w, vop2(op2AddU32, t, srcLit, t, 0x7fff)...)
	w = append(w, vop2(op2AddU32, t, x, t, 0)...)
	c := vop3(op3CmpUF32, p, x, x, 0)
	w = append(w, c[0], c[1])
	if x >= srcVGPR {
		w = append(w, vop2(op2OrB32, q, srcLit, x-srcVGPR, 0x400000)...)
	} else {
		m := vop3(opMovB32, q, x, 0, 0)
		w = append(w, m[0], m[1])
		w = append(w, vop2(op2OrB32, q, srcLit, q, 0x400000)...)
	}
	s := vop3(op3CndmaskB32, t, srcVGPR+t, srcVGPR+q, p)
	return append(w, s[0], s[1])
}

// CvtPkBF16Code returns host code for v_cvt_pk_bf16_f32 vdst, src0, src1
// with temporaries t0, t1, q and the SGPR pair p.
func CvtPkBF16Code(vdst, src0, src1 uint16, t0, t1, q, p uint16) []byte {
	w := cvtBF16Code(src0, t0, q, p)
	w = append(w, cvtBF16Code(src1, t1, q, p)...)
	w = append(w, vop2(op2AndB32, t1, srcLit, t1, 0xffff0000)...)
	w = append(w, vop2(op2LshrrevB32, t0, inlineInt(16), t0, 0)...)
	w = append(w, vop2(op2OrB32, vdst, srcVGPR+t0, t1, 0)...)
	return appendWords(nil, w...)
}

func emitCvtPkBF16(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	if len(raw) != 8 {
		return nil, fieldErr(in, "size", uint32(len(raw)))
	}
	w := words(raw)
	if err := noMods(in, w[0], w[1]); err != nil {
		return nil, err
	}
	src0, src1 := uint16(w[1]&0x1ff), uint16(w[1]>>9&0x1ff)
	if src0 == srcLit || src1 == srcLit {
		return nil, fieldErr(in, "literal source", srcLit)
	}
	t, err := ctx.TempVGPRs(3)
	if err != nil {
		return nil, err
	}
	p, err := ctx.TempSGPRPair()
	if err != nil {
		return nil, err
	}
	return CvtPkBF16Code(uint16(w[0]&0xff), src0, src1, t[0], t[1], t[2], p), nil
}
