package rules

import (
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/mfma"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// hostMFMAOp is the gfx942 VOP3P-MAI opcode of each host half-shape
// (checked against llvm-mc-19 in the tests).
var hostMFMAOp = map[string]uint32{
	"v_mfma_f32_16x16x16_f16":  0x4d,
	"v_mfma_f32_32x32x8_f16":   0x4c,
	"v_mfma_f32_16x16x16_bf16": 0x61,
	"v_mfma_f32_32x32x8_bf16":  0x60,
	"v_mfma_i32_16x16x32_i8":   0x57,
	"v_mfma_i32_32x32x16_i8":   0x56,
}

func init() {
	var exact, approx []string
	for _, s := range mfma.All() {
		if s.Exact() {
			exact = append(exact, s.Guest)
		} else {
			approx = append(approx, s.Guest)
		}
	}
	p := Pair{isa.GFX950, isa.GFX942}
	register(p, &Rule{Name: "mfma-split-int", Ops: exact, Fidelity: report.Exact, Emit: emitMFMASplit})
	register(p, &Rule{Name: "mfma-split", Ops: approx, Fidelity: report.Approximate,
		Bound: mfma.Split{}.Bound(), Emit: emitMFMASplit})
}

// MFMASplitCode returns the host MFMAs for a guest MAI instruction
// encoded as (w0, w1).
func MFMASplitCode(s mfma.Split, w0, w1 uint32) ([]byte, error) {
	op, ok := hostMFMAOp[s.Host]
	if !ok {
		return nil, fmt.Errorf("no host opcode for %s", s.Host)
	}
	if cbsz, abid, blgp := w0>>8&7, w0>>11&0xf, w1>>29; cbsz|abid|blgp != 0 {
		return nil, fmt.Errorf("%s with cbsz/abid/blgp broadcast (%d/%d/%d) has no split", s.Guest, cbsz, abid, blgp)
	}
	vdst := w0 & 0xff
	src0, src1, src2 := w1&0x1ff, w1>>9&0x1ff, w1>>18&0x1ff
	if src0 < srcVGPR || src1 < srcVGPR {
		return nil, fmt.Errorf("%s with a constant A or B operand has no split", s.Guest)
	}
	r := uint32(s.HostABRegs())
	// Part 0 writes D before later parts read their A/B slices: D must
	// not overlap them when they share a register file.
	accCD, accA, accB := w0>>15&1, w1>>27&1, w1>>28&1
	dLo, dHi := vdst, vdst+uint32(s.CDRegs())
	for _, o := range []struct{ code, acc uint32 }{{src0, accA}, {src1, accB}} {
		lo, hi := o.code-srcVGPR+r, o.code-srcVGPR+uint32(s.GuestABRegs())
		if o.acc == accCD && lo < dHi && dLo < hi {
			return nil, fmt.Errorf("%s: D overlaps a later part's A/B registers", s.Guest)
		}
	}
	var out []byte
	for p := uint32(0); p < uint32(s.Parts); p++ {
		a, b, c := src0+p*r, src1+p*r, src2
		if a > 0x1ff || b > 0x1ff {
			return nil, fmt.Errorf("%s operand registers run past v255", s.Guest)
		}
		if p > 0 {
			c = srcVGPR + vdst // chain through D (same register file as C)
		}
		nw0 := w0&^(0x7f<<16) | op<<16
		nw1 := w1&^0x7ffffff | a | b<<9 | c<<18
		out = appendWords(out, nw0, nw1)
	}
	return out, nil
}

func emitMFMASplit(_ Context, in *isa.Inst, raw []byte) ([]byte, error) {
	s, ok := mfma.Lookup(in.Name())
	if !ok || len(raw) != 8 {
		return nil, fieldErr(in, "shape", uint32(len(raw)))
	}
	w := words(raw)
	code, err := MFMASplitCode(s, w[0], w[1])
	if err != nil {
		return nil, fmt.Errorf("%s at %#x: %w", in.Name(), in.PC, err)
	}
	return code, nil
}
