package rules

import (
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// v_cvt_pk_f16_f32 (gfx950) packs two f32 converted to f16 with the MODE
// rounding (round to nearest even by default) — not gfx942's
// v_cvt_pkrtz_f16_f32, which truncates. The expansion converts each source
// with v_cvt_f16_f32 (the same MODE-controlled conversion) and packs.

// CvtPkF16Bound documents the assumption.
const CvtPkF16Bound = "each half is v_cvt_f16_f32 of its source, which follows the MODE register's f16 rounding and denormal settings as gfx950's packed conversion is expected to"

func init() {
	register(Pair{isa.GFX950, isa.GFX942}, &Rule{
		Name:     "cvt-pk-f16",
		Ops:      []string{"v_cvt_pk_f16_f32"},
		Fidelity: report.Approximate,
		Bound:    CvtPkF16Bound,
		Emit:     emitCvtPkF16,
	})
}

const (
	op3CvtF16F32 = 0x14a
	op3LshlOrB32 = 0x200
)

// CvtPkF16Code returns host code for v_cvt_pk_f16_f32 vdst, src0, src1.
func CvtPkF16Code(vdst, src0, src1, t0, t1 uint16) []byte {
	var w []uint32
	a := vop3(op3CvtF16F32, t0, src0, 0, 0)
	b := vop3(op3CvtF16F32, t1, src1, 0, 0)
	w = append(w, a[0], a[1], b[0], b[1])
	w = append(w, vop2(op2AndB32, t0, srcLit, t0, 0xffff)...)
	c := vop3(op3LshlOrB32, vdst, srcVGPR+t1, inlineInt(16), srcVGPR+t0)
	w = append(w, c[0], c[1])
	return appendWords(nil, w...)
}

func emitCvtPkF16(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
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
	t, err := ctx.TempVGPRs(2)
	if err != nil {
		return nil, err
	}
	return CvtPkF16Code(uint16(w[0]&0xff), src0, src1, t[0], t[1]), nil
}
