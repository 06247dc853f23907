package rules

import (
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// v_cvt_f32_bf16 widens the bf16 in the low half of its source (the high
// half with op_sel[0] in the VOP3 form) to f32: the bf16 bits become the
// upper half of the f32, which is exact for every input (NaNs included).

func init() {
	register(Pair{isa.GFX950, isa.GFX942}, &Rule{
		Name:     "cvt-f32-bf16",
		Ops:      []string{"v_cvt_f32_bf16"},
		Fidelity: report.Exact,
		Emit:     emitCvtF32BF16,
	})
}

const op3LshlrevB32 = 0x112

// CvtF32BF16Code returns host code for v_cvt_f32_bf16 vdst, src (src is a
// 9-bit source code); hi selects the source's upper half.
func CvtF32BF16Code(vdst, src uint16, hi bool) ([]byte, error) {
	switch {
	case hi && src >= srcVGPR:
		return appendWords(nil, vop2(op2AndB32, vdst, srcLit, src-srcVGPR, 0xffff0000)...), nil
	case hi:
		return nil, errHiNonVGPR
	case src >= srcVGPR:
		return appendWords(nil, vop2(op2LshlrevB32, vdst, inlineInt(16), src-srcVGPR, 0)...), nil
	}
	w := vop3(op3LshlrevB32, vdst, inlineInt(16), src, 0)
	return appendWords(nil, w[0], w[1]), nil
}

type ruleErr string

// Error implements error.
func (e ruleErr) Error() string { return string(e) }

const errHiNonVGPR = ruleErr("op_sel high half of a non-VGPR source is not supported")

func emitCvtF32BF16(_ Context, in *isa.Inst, raw []byte) ([]byte, error) {
	w := words(raw)
	switch {
	case len(raw) == 4 && w[0]>>25 == 0x3f: // VOP1
		return CvtF32BF16Code(uint16(w[0]>>17&0xff), uint16(w[0]&0x1ff), false)
	case len(raw) == 8 && w[0]>>26 == 0x34: // VOP3
		opsel := w[0] >> 11 & 0xf
		if err := noMods(in, w[0]&^(1<<11), w[1]); err != nil {
			return nil, err
		}
		return CvtF32BF16Code(uint16(w[0]&0xff), uint16(w[1]&0x1ff), opsel&1 != 0)
	}
	return nil, fieldErr(in, "encoding (SDWA/DPP)", uint32(len(raw)))
}
