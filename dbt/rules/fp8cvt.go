package rules

import (
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// v_cvt_f32_fp8 and v_cvt_f32_bf8 keep their opcodes on gfx950 but read the
// OCP formats (E4M3FN bias 7, E5M2 bias 15) where gfx942 reads FNUZ
// (E4M3FNUZ bias 8, E5M2FNUZ bias 16). For every finite code other than
// 0x80 the FNUZ reading is exactly half the OCP value, so the expansion
// converts the magnitude code with the host instruction, doubles it
// (exact), turns the OCP special codes (E4M3FN 0x7f; E5M2 0x7c infinity,
// 0x7d..0x7f NaN) into infinity/NaN by OR-ing the exponent mask, and puts
// the sign back (so 0x80 is -0.0 as in OCP, not the FNUZ NaN).

// FP8Bound documents the NaN difference.
const FP8Bound = "exact for every finite, zero and infinite input; a NaN input gives a NaN whose payload may differ from gfx950's"

func init() {
	p := Pair{isa.GFX950, isa.GFX942}
	register(p, &Rule{Name: "cvt-f32-fp8-ocp", Ops: []string{"v_cvt_f32_fp8", "v_cvt_f32_bf8"}, Fidelity: report.Approximate, Bound: FP8Bound, Emit: emitCvtF32FP8})
	register(p, &Rule{Name: "cvt-pk-f32-fp8-ocp", Ops: []string{"v_cvt_pk_f32_fp8", "v_cvt_pk_f32_bf8"}, Fidelity: report.Approximate, Bound: FP8Bound, Emit: emitCvtPkF32FP8})
}

// emitCvtPkF32FP8 handles v_cvt_pk_f32_fp8/bf8 v[d:d+1], src: bytes 0 and 1
// (2 and 3 with SDWA src0_sel:WORD_1) to two f32, each converted as
// v_cvt_f32_fp8/bf8 is.
func emitCvtPkF32FP8(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	w := words(raw)
	bf8 := in.Name() == "v_cvt_pk_f32_bf8"
	var vdst, src uint16
	word := 0
	switch {
	case len(raw) == 4 && w[0]>>25 == 0x3f && w[0]&0x1ff != 0xf9:
		vdst, src = uint16(w[0]>>17&0xff), uint16(w[0]&0x1ff)
		if src == srcLit {
			return nil, fieldErr(in, "literal source", srcLit)
		}
	case len(raw) == 8 && w[0]>>25 == 0x3f && w[0]&0x1ff == 0xf9:
		s := w[1]
		if s>>8&7 != 6 || s>>11&3 != 0 || s>>13&7 != 0 || s>>19&7 != 0 {
			return nil, fieldErr(in, "SDWA dst_sel/dst_unused/clamp/omod/src modifiers", s)
		}
		vdst, src = uint16(w[0]>>17&0xff), uint16(s&0xff)
		if s>>23&1 == 0 {
			src += srcVGPR
		}
		switch sel := s >> 16 & 7; sel {
		case 4, 6: // WORD_0, DWORD
		case 5: // WORD_1
			word = 1
		default:
			return nil, fieldErr(in, "SDWA src0_sel", sel)
		}
	default:
		return nil, fieldErr(in, "encoding (VOP3/DPP)", uint32(len(raw)))
	}
	if src >= srcVGPR && (src-srcVGPR == vdst || src-srcVGPR == vdst+1) {
		// The first result would overwrite the source before the second
		// byte is read: convert the second byte first when that is safe.
		if src-srcVGPR == vdst+1 {
			return nil, fieldErr(in, "source overlapping the second result", uint32(src))
		}
		t, err := ctx.TempVGPRs(3)
		if err != nil {
			return nil, err
		}
		out := CvtF32FP8OCPCode(bf8, vdst+1, src, 2*word+1, t[0], t[1], t[2])
		return append(out, CvtF32FP8OCPCode(bf8, vdst, src, 2*word, t[0], t[1], t[2])...), nil
	}
	t, err := ctx.TempVGPRs(3)
	if err != nil {
		return nil, err
	}
	out := CvtF32FP8OCPCode(bf8, vdst, src, 2*word, t[0], t[1], t[2])
	return append(out, CvtF32FP8OCPCode(bf8, vdst+1, src, 2*word+1, t[0], t[1], t[2])...), nil
}

const (
	op1CvtF32FP8 = 0x54
	op1CvtF32BF8 = 0x55
	op2AddF32    = 0x01
	op3BfeI32    = 0x1c9
)

func vop1(op, vdst, src0 uint16) uint32 {
	return 0x7e000000 | uint32(vdst&0xff)<<17 | uint32(op&0xff)<<9 | uint32(src0&0x1ff)
}

// CvtF32FP8OCPCode converts byte sel of source code src (an OCP E4M3FN
// code, or E5M2 when bf8) to f32 in vdst, with temporaries a, r, t.
func CvtF32FP8OCPCode(bf8 bool, vdst, src uint16, sel int, a, r, t uint16) []byte {
	op, special := uint16(op1CvtF32FP8), 1 // a+1 carries into bit 7 only for 0x7f
	if bf8 {
		op, special = op1CvtF32BF8, 4 // a+4 carries for 0x7c..0x7f
	}
	var w []uint32
	x := vop3(op3BfeU32, a, src, inlineInt(8*sel), inlineInt(7)) // magnitude code
	w = append(w, x[0], x[1])
	w = append(w, vop1(op, r, srcVGPR+a))                 // FNUZ reading: half the OCP value
	w = append(w, vop2(op2AddF32, r, srcVGPR+r, r, 0)...) // exact doubling
	w = append(w, vop2(op2AddU32, t, inlineInt(special), a, 0)...)
	x = vop3(op3BfeI32, t, srcVGPR+t, inlineInt(7), inlineInt(1)) // -1 for the special codes
	w = append(w, x[0], x[1])
	w = append(w, vop2(op2AndB32, t, srcLit, t, 0x7f800000)...)
	w = append(w, vop2(op2OrB32, r, srcVGPR+r, t, 0)...)
	x = vop3(op3BfeU32, t, src, inlineInt(8*sel+7), inlineInt(1)) // sign
	w = append(w, x[0], x[1])
	w = append(w, vop2(op2LshlrevB32, t, inlineInt(31), t, 0)...)
	w = append(w, vop2(op2OrB32, vdst, srcVGPR+r, t, 0)...)
	return appendWords(nil, w...)
}

func emitCvtF32FP8(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	w := words(raw)
	bf8 := in.Name() == "v_cvt_f32_bf8"
	var vdst, src uint16
	sel := 0
	switch {
	case len(raw) == 4 && w[0]>>25 == 0x3f && w[0]&0x1ff != 0xf9: // VOP1 e32: byte 0
		vdst, src = uint16(w[0]>>17&0xff), uint16(w[0]&0x1ff)
		if src == srcLit {
			return nil, fieldErr(in, "literal source", srcLit)
		}
	case len(raw) == 8 && w[0]>>25 == 0x3f && w[0]&0x1ff == 0xf9: // SDWA
		s := w[1]
		if s>>8&7 != 6 || s>>11&3 != 0 || s>>13&7 != 0 || s>>19&7 != 0 {
			return nil, fieldErr(in, "SDWA dst_sel/dst_unused/clamp/omod/src modifiers", s)
		}
		vdst = uint16(w[0] >> 17 & 0xff)
		src = uint16(s & 0xff)
		if s>>23&1 == 0 {
			src += srcVGPR
		}
		sel = int(s >> 16 & 7)
		if sel > 3 {
			return nil, fieldErr(in, "SDWA src0_sel", uint32(sel))
		}
	default:
		return nil, fieldErr(in, "encoding (VOP3/DPP)", uint32(len(raw)))
	}
	t, err := ctx.TempVGPRs(3)
	if err != nil {
		return nil, err
	}
	return CvtF32FP8OCPCode(bf8, vdst, src, sel, t[0], t[1], t[2]), nil
}
