package rules

import (
	"github.com/rocjitsu/rocjitsu/dbt/bitop3"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

func init() {
	register(Pair{isa.GFX950, isa.GFX942}, &Rule{
		Name:     "bitop3",
		Ops:      []string{"v_bitop3_b32"},
		Fidelity: report.Exact,
		Emit:     emitBitop3,
	})
}

// Bitop3Code returns host code computing truth table lut of src codes
// (a, b, c) into VGPR vdst, using the given temporaries (as many as
// bitop3.Lower(lut) needs, minus one when vdst is not a source).
func Bitop3Code(lut uint8, vdst uint16, src [3]uint16, temps []uint16) ([]byte, error) {
	p := bitop3.Lower(lut)
	dcode := srcVGPR + vdst
	dFree := dcode != src[0] && dcode != src[1] && dcode != src[2]
	need := p.Temps()
	regs := map[bitop3.Val]uint16{}
	ti := 0
	for _, t := range []bitop3.Val{bitop3.T0, bitop3.T1} {
		if int(t-bitop3.T0) >= need {
			break
		}
		if t == bitop3.T0 && dFree {
			regs[t] = vdst
			continue
		}
		if ti >= len(temps) {
			return nil, errTemps
		}
		regs[t] = temps[ti]
		ti++
	}
	regs[bitop3.D] = vdst
	code := func(v bitop3.Val) uint16 {
		switch v {
		case bitop3.A, bitop3.B, bitop3.C:
			return src[v]
		case bitop3.Zero:
			return srcZero
		case bitop3.Ones:
			return srcOnes
		}
		return srcVGPR + regs[v]
	}
	var out []byte
	for _, in := range p {
		var op uint16
		switch in.Op {
		case bitop3.Mov:
			op = opMovB32
		case bitop3.Not:
			op = opNotB32
		case bitop3.And:
			op = opAndB32
		case bitop3.Or:
			op = opOrB32
		case bitop3.Xor:
			op = opXorB32
		case bitop3.Bfi:
			op = opBfiB32
		}
		var s [3]uint16
		for i := 0; i < in.Op.Arity(); i++ {
			s[i] = code(in.Src[i])
		}
		w := vop3(op, regs[in.Dst], s[0], s[1], s[2])
		out = appendWords(out, w[0], w[1])
	}
	return out, nil
}

// Bitop3Temps is the number of scratch VGPRs Bitop3Code needs.
func Bitop3Temps(lut uint8, vdst uint16, src [3]uint16) int {
	n := bitop3.Lower(lut).Temps()
	dcode := srcVGPR + vdst
	if n > 0 && dcode != src[0] && dcode != src[1] && dcode != src[2] {
		n--
	}
	return n
}

type tempErr struct{}

func (tempErr) Error() string { return "not enough scratch VGPRs" }

var errTemps error = tempErr{}

func emitBitop3(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	if len(raw) != 8 {
		return nil, fieldErr(in, "size", uint32(len(raw)))
	}
	w := words(raw)
	if clamp := w[0] >> 15 & 1; clamp != 0 {
		return nil, fieldErr(in, "clamp", clamp)
	}
	if opsel := w[0] >> 11 & 0xf; opsel != 0 {
		return nil, fieldErr(in, "op_sel", opsel)
	}
	lut := bitop3.LUT(uint8(w[1]>>29), uint8(w[0]>>8&7), uint8(w[1]>>27&3))
	vdst := uint16(w[0] & 0xff)
	src := [3]uint16{uint16(w[1] & 0x1ff), uint16(w[1] >> 9 & 0x1ff), uint16(w[1] >> 18 & 0x1ff)}
	for _, s := range src {
		if s == srcLit {
			return nil, fieldErr(in, "literal source", uint32(s))
		}
	}
	var temps []uint16
	if n := Bitop3Temps(lut, vdst, src); n > 0 {
		var err error
		if temps, err = ctx.TempVGPRs(n); err != nil {
			return nil, err
		}
	}
	return Bitop3Code(lut, vdst, src, temps)
}
