package rules

import (
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// gfx950 FP8 MFMAs keep their gfx942 opcodes but read OCP E4M3FN bytes,
// while gfx942 reads E4M3FNUZ. Every finite OCP code except 0x80 (-0, the
// FNUZ NaN) reads in FNUZ as exactly half its OCP value, so a gfx942 MFMA on
// the same bytes computes C' + (A/2)(B/2). The expansion therefore
//
//  1. copies A and B into scratch VGPRs with every 0x80 byte cleared to
//     0x00 (per byte: b & ((b&0x7f)+0x7f | 0x7f)),
//  2. scales the accumulator by 1/4 into D (skipped for an inline-zero C),
//  3. runs the gfx942 MFMA on the scratch operands with srcC = D,
//  4. waits for the result and scales D by 4.
//
// Scaling by powers of two is exact except for f32 accumulators below
// 2^-124 (subnormal after scaling) or above 2^126.

// FP8MFMABound documents the differences.
const FP8MFMABound = "products and sums as the gfx942 MFMA computes them; OCP NaN codes (0x7f, 0xff) are read as finite values; accumulators are scaled by 1/4 and 4, exact unless |C| < 2^-124 or |D| >= 2^126"

// fp8MFMA describes a supported FP8 MFMA: its opcode (the same on both
// targets) and its C/D register count.
//
// The F8F6F4 shapes with both formats FP8 (cbsz = blgp = 0) are the same
// operation with four times the K: they run as four chained gfx942 FP8
// MFMAs on consecutive register pairs of A and B (each pair holds the same
// permutation of K for A and B, as for the other MFMA splits).
var fp8MFMA = map[string]struct {
	op    uint32 // host opcode
	cd    int
	parts int
}{
	"v_mfma_f32_16x16x32_fp8_fp8": {0x73, 4, 1},
	"v_mfma_f32_32x32x16_fp8_fp8": {0x77, 16, 1},
	"v_mfma_f32_16x16x128_f8f6f4": {0x73, 4, 4},
	"v_mfma_f32_32x32x64_f8f6f4":  {0x77, 16, 4},
}

func init() {
	var ops []string
	for n := range fp8MFMA {
		ops = append(ops, n)
	}
	register(Pair{isa.GFX950, isa.GFX942}, &Rule{Name: "mfma-fp8-ocp", Ops: ops, Fidelity: report.Approximate, Bound: FP8MFMABound, Emit: emitFP8MFMA})
}

const (
	op3PAccRead  = 0x58 // VOP3P v_accvgpr_read_b32
	op3PAccWrite = 0x59 // VOP3P v_accvgpr_write_b32
	op2MulF32    = 0x05
	srcF4        = 246 // inline 4.0
	f32Quarter   = 0x3e800000
)

func accRead(vdst, agpr uint16) [2]uint32 {
	return [2]uint32{0xd3800000 | op3PAccRead<<16 | 0x4000 | uint32(vdst&0xff), 0x18000000 | uint32(srcVGPR+agpr)}
}

func accWrite(agpr, vsrc uint16) [2]uint32 {
	return [2]uint32{0xd3800000 | op3PAccWrite<<16 | 0x4000 | uint32(agpr&0xff), 0x18000000 | uint32(srcVGPR+vsrc)}
}

func sNop(n uint32) uint32 { return 0xbf800000 | n&0xf }

// FP8MFMACode returns the expansion of the FP8 MFMA (w0, w1) with C/D of
// cd registers, using scratch pairs ta and tb (even) and scratch u.
func FP8MFMACode(w0, w1 uint32, hostOp uint32, cd, parts int, ta, tb, u uint16) ([]byte, error) {
	if cbsz, abid, blgp := w0>>8&7, w0>>11&0xf, w1>>29; cbsz|abid|blgp != 0 {
		return nil, fmt.Errorf("cbsz/abid/blgp (%d/%d/%d: broadcast, or non-FP8 F8F6F4 formats) are not supported", cbsz, abid, blgp)
	}
	accCD := w0>>15&1 != 0
	vdst := uint16(w0 & 0xff)
	src0, src1, src2 := w1&0x1ff, w1>>9&0x1ff, w1>>18&0x1ff
	if src0 < srcVGPR || src1 < srcVGPR {
		return nil, fmt.Errorf("constant A or B operand")
	}
	if parts > 1 {
		// Part 0 writes D before later parts read their A/B pairs.
		dLo, dHi := uint32(vdst), uint32(vdst)+uint32(cd)
		for _, o := range []struct {
			code uint32
			acc  bool
		}{{src0, w1>>27&1 != 0}, {src1, w1>>28&1 != 0}} {
			lo, hi := o.code-srcVGPR+2, o.code-srcVGPR+uint32(2*parts)
			if o.acc == accCD && lo < dHi && dLo < hi {
				return nil, fmt.Errorf("D overlaps a later part's A/B registers")
			}
		}
	}
	if src2 != srcZero {
		// The scaled accumulator is written to D before A and B are read.
		dLo, dHi := uint32(vdst), uint32(vdst)+uint32(cd)
		for _, o := range []struct {
			code uint32
			acc  bool
		}{{src0, w1>>27&1 != 0}, {src1, w1>>28&1 != 0}} {
			lo, hi := o.code-srcVGPR, o.code-srcVGPR+uint32(2*parts)
			if o.acc == accCD && lo < dHi && dLo < hi {
				return nil, fmt.Errorf("D overlaps the A/B registers")
			}
		}
	}
	var w []uint32
	// 2. Accumulator scaled by 1/4 into D (once).
	c := src2
	switch {
	case c == srcZero:
	case c >= srcVGPR:
		cr := uint16(c - srcVGPR)
		if cr != vdst && int(cr) < int(vdst)+cd && int(vdst) < int(cr)+cd {
			return nil, fmt.Errorf("C and D overlap without being equal")
		}
		for i := uint16(0); i < uint16(cd); i++ {
			if accCD {
				r := accRead(u, cr+i)
				w = append(w, r[0], r[1])
				w = append(w, vop2(op2MulF32, u, srcLit, u, f32Quarter)...)
				a := accWrite(vdst+i, u)
				w = append(w, a[0], a[1])
			} else {
				w = append(w, vop2(op2MulF32, vdst+i, srcLit, cr+i, f32Quarter)...)
			}
		}
		c = srcVGPR + uint32(vdst)
	default:
		return nil, fmt.Errorf("accumulator operand code %d is not supported", c)
	}
	for p := 0; p < parts; p++ {
		// 1. Sanitized copies of this part's A and B register pairs.
		for _, op := range []struct {
			code uint32
			acc  bool
			dst  uint16
		}{{src0, w1>>27&1 != 0, ta}, {src1, w1>>28&1 != 0, tb}} {
			for i := uint16(0); i < 2; i++ {
				x := uint16(op.code-srcVGPR) + uint16(2*p) + i
				if x > 255 {
					return nil, fmt.Errorf("operand registers run past 255")
				}
				y := op.dst + i
				xr := srcVGPR + x
				if op.acc {
					r := accRead(y, x)
					w = append(w, r[0], r[1])
					xr = srcVGPR + y
				}
				w = append(w, vop2(op2AndB32, u, srcLit, xr-srcVGPR, 0x7f7f7f7f)...)
				w = append(w, vop2(op2AddU32, u, srcLit, u, 0x7f7f7f7f)...)
				w = append(w, vop2(op2OrB32, u, srcLit, u, 0x7f7f7f7f)...)
				w = append(w, vop2(op2AndB32, y, xr, u, 0)...)
			}
		}
		// 3. The gfx942 MFMA on the sanitized operands (VGPRs: acc bits
		// clear), chained through D after the first part.
		w = append(w, sNop(4))
		nw0 := w0&^(0x7f<<16) | hostOp<<16
		w = append(w, nw0, w1&^(3<<27)&^0x7ffffff|uint32(srcVGPR+ta)|uint32(srcVGPR+tb)<<9|c<<18)
		c = srcVGPR + uint32(vdst)
	}
	// 4. Wait for the result (an 8- or 16-pass XDL write read by VALU),
	// then scale D by 4.
	w = append(w, sNop(7), sNop(7), sNop(7))
	for i := uint16(0); i < uint16(cd); i++ {
		if accCD {
			r := accRead(u, vdst+i)
			w = append(w, r[0], r[1])
			w = append(w, vop2(op2MulF32, u, srcF4, u, 0)...)
			a := accWrite(vdst+i, u)
			w = append(w, a[0], a[1])
		} else {
			w = append(w, vop2(op2MulF32, vdst+i, srcF4, vdst+i, 0)...)
		}
	}
	w = append(w, sNop(4))
	return appendWords(nil, w...), nil
}

func emitFP8MFMA(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	m, ok := fp8MFMA[in.Name()]
	if !ok || len(raw) != 8 {
		return nil, fieldErr(in, "shape", uint32(len(raw)))
	}
	w := words(raw)
	ta, err := ctx.TempVGPRRange(2, 2)
	if err != nil {
		return nil, err
	}
	tb, err := ctx.TempVGPRRange(2, 2)
	if err != nil {
		return nil, err
	}
	u, err := ctx.TempVGPRs(1)
	if err != nil {
		return nil, err
	}
	code, err := FP8MFMACode(w[0], w[1], m.op, m.cd, m.parts, ta, tb, u[0])
	if err != nil {
		return nil, fmt.Errorf("%s at %#x: %w", in.Name(), in.PC, err)
	}
	return code, nil
}
