package rules

import (
	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// The subroutine form of v_cvt_pk_fp8_f32 (OCP): one body per kernel and
// destination half runs the rule's expansion (cvtPkFP8Code) on fixed
// registers (two sources, the destination, five temporaries). A call site
// copies the two sources (VGPR, SGPR or inline constant) and the
// destination's old value (the body keeps its other half) into the fixed
// registers, calls the body and copies the destination out: 5
// instructions (20 bytes) instead of 12 (92 bytes), with identical
// results. The uses stay inline (Inline: the call, its moves and the
// return run 6 more instructions a use) unless the translator is told to
// share.

var cvtPkFP8Shared = &Shared{Key: cvtPkFP8Key, Site: cvtPkFP8Site, Body: cvtPkFP8Body, Names: cvtPkFP8Names, Inline: true}

// cvtPkFP8Fields checks a v_cvt_pk_fp8_f32 and returns its operands and
// whether it writes the high half.
func cvtPkFP8Fields(in *isa.Inst, raw []byte) (vdst, x0, x1 uint16, hi bool, err error) {
	if len(raw) != 8 {
		return 0, 0, 0, false, fieldErr(in, "size", uint32(len(raw)))
	}
	w := words(raw)
	opsel := w[0] >> 11 & 0xf
	if opsel&7 != 0 {
		return 0, 0, 0, false, fieldErr(in, "source op_sel", opsel)
	}
	if err := noMods(in, w[0]&^(0xf<<11), w[1]); err != nil {
		return 0, 0, 0, false, err
	}
	x0, x1 = uint16(w[1]&0x1ff), uint16(w[1]>>9&0x1ff)
	if x0 == srcLit || x1 == srcLit {
		return 0, 0, 0, false, fieldErr(in, "literal source", srcLit)
	}
	return uint16(w[0] & 0xff), x0, x1, opsel&8 != 0, nil
}

func cvtPkFP8Key(in *isa.Inst, raw []byte) (string, bool) {
	_, _, _, hi, err := cvtPkFP8Fields(in, raw)
	if hi {
		return "cvt-pk-fp8/hitrue", err == nil
	}
	return "cvt-pk-fp8/hifalse", err == nil
}

// cvtPkFP8Layout: sources, destination, temporaries.
func cvtPkFP8Layout(regs []uint16) (x0, x1, d uint16, t [5]uint16, used []uint16, err error) {
	p := newRegPool(regs)
	err = p.ones(&x0, &x1, &d, &t[0], &t[1], &t[2], &t[3], &t[4])
	return x0, x1, d, t, p.used, err
}

func cvtPkFP8Site(in *isa.Inst, raw []byte, regs SharedRegs) (SharedSite, error) {
	vdst, s0, s1, _, err := cvtPkFP8Fields(in, raw)
	if err != nil {
		return SharedSite{}, err
	}
	x0, x1, d, _, used, err := cvtPkFP8Layout(regs.V)
	if err != nil {
		return SharedSite{}, err
	}
	pre := append(smVOP1(smMovB32, x0, s0, 0), smVOP1(smMovB32, x1, s1, 0)...)
	pre = append(pre, smVOP1(smMovB32, d, srcVGPR+vdst, 0)...)
	post := smVOP1(smMovB32, vdst, srcVGPR+d, 0)
	return SharedSite{Pre: appendWords(nil, pre...), Post: appendWords(nil, post...), Used: used}, nil
}

func cvtPkFP8Body(in *isa.Inst, raw []byte, regs SharedRegs) ([]byte, error) {
	_, _, _, hi, err := cvtPkFP8Fields(in, raw)
	if err != nil {
		return nil, err
	}
	x0, x1, d, t, _, err := cvtPkFP8Layout(regs.V)
	if err != nil {
		return nil, err
	}
	return cvtPkFP8Code(d, srcVGPR+x0, srcVGPR+x1, hi, t), nil
}

// cvtPkFP8Names: VGPR sources and the destination.
func cvtPkFP8Names(in *isa.Inst, raw []byte) ([]uint16, bool) {
	vdst, s0, s1, _, err := cvtPkFP8Fields(in, raw)
	if err != nil {
		return nil, false
	}
	return vgprNames(vdst, s0, s1), true
}
