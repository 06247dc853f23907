package rules

import (
	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// The subroutine form of v_cvt_pk_bf16_f32: one body per kernel runs
// CvtPkBF16Code on fixed registers (two sources, the result, three
// temporaries; the NaN mask goes to the plan's SGPR pair). A call site
// copies the two sources (VGPR, SGPR or inline constant) into the fixed
// sources, calls the body and copies the result out: 4 instructions
// (16 bytes) instead of 15 (104 bytes), with identical results.

var cvtPkBF16Shared = &Shared{Key: cvtPkBF16Key, Site: cvtPkBF16Site, Body: cvtPkBF16Body, Names: cvtPkBF16Names, SGPRPair: true}

// cvtPkBF16Fields checks a v_cvt_pk_bf16_f32 and returns vdst, src0, src1.
func cvtPkBF16Fields(in *isa.Inst, raw []byte) (vdst, src0, src1 uint16, err error) {
	if len(raw) != 8 {
		return 0, 0, 0, fieldErr(in, "size", uint32(len(raw)))
	}
	w := words(raw)
	if err := noMods(in, w[0], w[1]); err != nil {
		return 0, 0, 0, err
	}
	src0, src1 = uint16(w[1]&0x1ff), uint16(w[1]>>9&0x1ff)
	if src0 == srcLit || src1 == srcLit {
		return 0, 0, 0, fieldErr(in, "literal source", srcLit)
	}
	return uint16(w[0] & 0xff), src0, src1, nil
}

func cvtPkBF16Key(in *isa.Inst, raw []byte) (string, bool) {
	_, _, _, err := cvtPkBF16Fields(in, raw)
	return "cvt-pk-bf16", err == nil
}

// cvtPkBF16Layout: sources, result, temporaries.
func cvtPkBF16Layout(regs []uint16) ([6]uint16, []uint16, error) {
	var r [6]uint16
	p := &regPool{free: append([]uint16(nil), regs...)}
	if err := p.ones(&r[0], &r[1], &r[2], &r[3], &r[4], &r[5]); err != nil {
		return r, nil, err
	}
	return r, p.used, nil
}

func cvtPkBF16Site(in *isa.Inst, raw []byte, regs SharedRegs) (SharedSite, error) {
	vdst, src0, src1, err := cvtPkBF16Fields(in, raw)
	if err != nil {
		return SharedSite{}, err
	}
	r, used, err := cvtPkBF16Layout(regs.V)
	if err != nil {
		return SharedSite{}, err
	}
	pre := append(smVOP1(smMovB32, r[0], src0, 0), smVOP1(smMovB32, r[1], src1, 0)...)
	post := smVOP1(smMovB32, vdst, srcVGPR+r[2], 0)
	return SharedSite{Pre: appendWords(nil, pre...), Post: appendWords(nil, post...), Used: used}, nil
}

func cvtPkBF16Body(in *isa.Inst, raw []byte, regs SharedRegs) ([]byte, error) {
	r, _, err := cvtPkBF16Layout(regs.V)
	if err != nil {
		return nil, err
	}
	return CvtPkBF16Code(r[2], srcVGPR+r[0], srcVGPR+r[1], r[3], r[4], r[5], regs.SPair), nil
}

// cvtPkBF16Names: VGPR sources and the destination.
func cvtPkBF16Names(in *isa.Inst, raw []byte) ([]uint16, bool) {
	vdst, src0, src1, err := cvtPkBF16Fields(in, raw)
	if err != nil {
		return nil, false
	}
	return vgprNames(vdst, src0, src1), true
}

// vgprNames is the VGPR vdst and the VGPRs among the 9-bit source operand
// codes srcs (SGPRs and constants are left out).
func vgprNames(vdst uint16, srcs ...uint16) []uint16 {
	out := []uint16{vdst}
	for _, s := range srcs {
		if s >= srcVGPR {
			out = append(out, s-srcVGPR)
		}
	}
	return out
}
