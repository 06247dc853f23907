package rules

import (
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// CvtPkBF16RuleName is the v_cvt_pk_bf16_f32 rule's name.
const CvtPkBF16RuleName = "cvt-pk-bf16"

// BF16Bound is the documented difference of the bf16 conversion rule.
const BF16Bound = "round-to-nearest-even as with the default MODE; f32 denormal inputs are converted (not flushed); a NaN keeps its sign and upper payload with the quiet bit set"

func init() {
	register(Pair{isa.GFX950, isa.GFX942}, &Rule{
		Name:     CvtPkBF16RuleName,
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

// Host opcodes of the conversion.
const (
	op3Add3U32  = 0x1ff
	op3PermB32  = 0x1ed
	sopkMovkI32 = 0xb0000000 // s_movk_i32 sdst, simm16
	// bf16PackSel is the v_perm_b32 selector taking the upper halves of
	// src1 (bytes 2, 3) and src0 (bytes 6, 7), in that order.
	bf16PackSel = 0x07060302
)

// isVGPRSrc says a 9-bit source code names a VGPR.
func isVGPRSrc(x uint16) bool { return x >= srcVGPR }

// isSGPRSrc says a 9-bit source code other than a literal reads the
// constant bus (an SGPR, VCC, M0, EXEC...: neither a VGPR nor an inline
// constant).
func isSGPRSrc(x uint16) bool {
	inline := x >= 128 && x <= 208 || x >= 240 && x <= 248
	return !isVGPRSrc(x) && !inline
}

// cvtBF16Round rounds the f32 at source code x to nearest even in place
// of its upper half, into t: t = x + 0x7fff + bit 16 of x (NaNs are fixed
// afterwards). k is the SGPR holding 0x7fff.
func cvtBF16Round(x, t, k uint16) []uint32 {
	b := vop3(op3BfeU32, t, x, inlineInt(16), inlineInt(1))
	w := []uint32{b[0], b[1]}
	if isSGPRSrc(x) {
		// One constant-bus read per VALU instruction on gfx9.
		w = append(w, vop2(op2AddU32, t, k, t, 0)...)
		return append(w, vop2(op2AddU32, t, x, t, 0)...)
	}
	a := vop3(op3Add3U32, t, x, srcVGPR+t, k)
	return append(w, a[0], a[1])
}

// cvtBF16NaN writes to d the rounded t, or, where x is a NaN, x with the
// quiet bit set (q a temporary, p the SGPR pair for the NaN mask).
func cvtBF16NaN(x, t, d, q, p uint16) []uint32 {
	c := vop3(op3CmpUF32, p, x, x, 0)
	w := []uint32{c[0], c[1]}
	if isVGPRSrc(x) {
		w = append(w, vop2(op2OrB32, q, srcLit, x-srcVGPR, 0x400000)...)
	} else {
		m := vop3(opMovB32, q, x, 0, 0)
		w = append(w, m[0], m[1])
		w = append(w, vop2(op2OrB32, q, srcLit, q, 0x400000)...)
	}
	s := vop3(op3CndmaskB32, d, srcVGPR+t, srcVGPR+q, p)
	return append(w, s[0], s[1])
}

// CvtPkBF16Code returns host code for v_cvt_pk_bf16_f32 vdst, src0, src1
// with temporaries t0, t1, q and the SGPR pair p: 0x7fff in p's low SGPR
// (s_movk_i32), both values rounded (v_bfe_u32, v_add3_u32), the NaN
// lanes of each replaced (v_cmp_u_f32 into p, v_or_b32, v_cndmask_b32;
// the second straight into vdst, whose upper half is then bf16(src1)) and
// the two upper halves packed by v_perm_b32 with its selector in p's low
// SGPR: 13 instructions (100 bytes) for VGPR sources, instead of 15 (104).
// vdst may be a source: it is written after both are last read. (An SDWA
// move of the lower half would save the selector, but the gfx12 pair
// lowers this code and takes SDWA with whole-dword selects only.)
func CvtPkBF16Code(vdst, src0, src1 uint16, t0, t1, q, p uint16) []byte {
	w := []uint32{sopkMovkI32 | uint32(p&0x7f)<<16 | 0x7fff}
	w = append(w, cvtBF16Round(src0, t0, p)...)
	w = append(w, cvtBF16Round(src1, t1, p)...)
	w = append(w, cvtBF16NaN(src0, t0, t0, q, p)...)
	w = append(w, cvtBF16NaN(src1, t1, vdst, q, p)...)
	w = append(w, sMovLit(p, bf16PackSel)...)
	m := vop3(op3PermB32, vdst, srcVGPR+vdst, srcVGPR+t0, p)
	return appendWords(nil, append(w, m[0], m[1])...)
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
