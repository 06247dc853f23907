package rules

import (
	"fmt"
	"sort"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/mfma"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// The gfx950 sparse MFMAs (v_smfmac_*) have twice the K of the gfx942 ones
// of the same M x N and types. A lane's A operand holds the stored
// (non-zero) half of its K segment, two values per group of four K
// positions, whose 2-bit positions come from an index set in the src2
// VGPR (2 bits per stored value, lowest first; the sets are the 8-, 16- or
// 32-bit fields of the VGPR, chosen by abid); B holds the lane's dense K
// segment; D is both accumulator and result.
//
// As for the dense MFMA split, a gfx950 lane's K segment is twice a gfx942
// lane's, and splitting it in halves permutes K identically for A, B and
// the index set: part p (0, 1) runs the gfx942 SMFMAC on A registers
// src0+2p.., B registers src1+4p.. and index set 2*s+p of the same index
// VGPR (s = the guest's set), chaining the accumulator through D.
//
// The FP8/BF8 shapes read OCP codes on gfx950 and FNUZ codes on gfx942;
// they use the same scaling as the dense FP8 MFMA rule: sanitized copies of
// each part's A and B (0x80 bytes cleared), D scaled by 1/4 before and by 4
// after.
//
// The sparse layout is the one documented for MLIR's amdgpu.sparse_mfma,
// which the simulator implements for both targets; it has not been checked
// against hardware, but the split relies only on the index sets being
// consecutive fields, as on both targets.

// smfmacShape is a supported gfx950 SMFMAC.
type smfmacShape struct {
	host  uint32 // gfx942 opcode of the half-K operation
	cd    int    // D registers
	ocp   bool   // FP8/BF8 operands (OCP on gfx950, FNUZ on gfx942)
	sets  int    // index sets in the guest's src2 VGPR
	exact bool   // integer accumulation
}

var smfmacShapes = map[string]smfmacShape{
	"v_smfmac_f32_16x16x64_f16":      {0x62, 4, false, 2, false},
	"v_smfmac_f32_16x16x64_bf16":     {0x66, 4, false, 2, false},
	"v_smfmac_f32_32x32x32_f16":      {0x64, 16, false, 2, false},
	"v_smfmac_f32_32x32x32_bf16":     {0x68, 16, false, 2, false},
	"v_smfmac_i32_16x16x128_i8":      {0x6a, 4, false, 1, true},
	"v_smfmac_i32_32x32x64_i8":       {0x6c, 16, false, 1, true},
	"v_smfmac_f32_16x16x128_bf8_bf8": {0x78, 4, true, 1, false},
	"v_smfmac_f32_16x16x128_bf8_fp8": {0x79, 4, true, 1, false},
	"v_smfmac_f32_16x16x128_fp8_bf8": {0x7a, 4, true, 1, false},
	"v_smfmac_f32_16x16x128_fp8_fp8": {0x7b, 4, true, 1, false},
	"v_smfmac_f32_32x32x64_bf8_bf8":  {0x7c, 16, true, 1, false},
	"v_smfmac_f32_32x32x64_bf8_fp8":  {0x7d, 16, true, 1, false},
	"v_smfmac_f32_32x32x64_fp8_bf8":  {0x7e, 16, true, 1, false},
	"v_smfmac_f32_32x32x64_fp8_fp8":  {0x7f, 16, true, 1, false},
}

// SMFMACOCPBound documents the FP8/BF8 shapes.
const SMFMACOCPBound = "split into two chained gfx942 SMFMACs (one extra f32 rounding of the partial sum); products as the gfx942 FNUZ SMFMAC computes them on OCP codes read at half value: OCP NaN and infinity codes (E4M3 0x7f/0xff, E5M2 exponent 31) are read as finite values; D is scaled by 1/4 and 4, exact unless |D| < 2^-124 or |D| >= 2^126"

func init() {
	p := Pair{isa.GFX950, isa.GFX942}
	var flt, integer, ocp []string
	for n, s := range smfmacShapes {
		switch {
		case s.ocp:
			ocp = append(ocp, n)
		case s.exact:
			integer = append(integer, n)
		default:
			flt = append(flt, n)
		}
	}
	for _, l := range [][]string{flt, integer, ocp} {
		sort.Strings(l)
	}
	register(p, &Rule{Name: "smfmac-split", Ops: flt, Fidelity: report.Approximate, Bound: mfma.Split{}.Bound(), Emit: emitSMFMAC})
	register(p, &Rule{Name: "smfmac-split-int", Ops: integer, Fidelity: report.Exact, Emit: emitSMFMAC})
	register(p, &Rule{Name: "smfmac-fp8-ocp", Ops: ocp, Fidelity: report.Approximate, Bound: SMFMACOCPBound, Emit: emitSMFMAC})
}

// SMFMACCode returns the expansion of the gfx950 SMFMAC (w0, w1) of shape
// s. For OCP shapes ta (2 registers) and tb (4 registers) are even scratch
// ranges and u a scratch VGPR; the other shapes use none.
func SMFMACCode(s smfmacShape, w0, w1 uint32, ta, tb, u uint16) ([]byte, error) {
	if cbsz, blgp := w0>>8&7, w1>>29; cbsz|blgp != 0 {
		return nil, fmt.Errorf("cbsz/blgp (%d/%d) are not supported", cbsz, blgp)
	}
	abid := w0 >> 11 & 0xf
	if int(abid) >= s.sets {
		return nil, fmt.Errorf("abid %d selects no index set (%d sets)", abid, s.sets)
	}
	accCD := w0>>15&1 != 0
	vdst := uint16(w0 & 0xff)
	src0, src1, src2 := w1&0x1ff, w1>>9&0x1ff, w1>>18&0x1ff
	if src0 < srcVGPR || src1 < srcVGPR || src2 < srcVGPR {
		return nil, fmt.Errorf("constant or scalar operand")
	}
	a0, b0, idx := uint16(src0-srcVGPR), uint16(src1-srcVGPR), uint16(src2-srcVGPR)
	if int(a0)+4 > 256 || int(b0)+8 > 256 || int(vdst)+s.cd > 256 {
		return nil, fmt.Errorf("operand registers run past 255")
	}
	// D is written (part 0, or the 1/4 scaling) before later reads of A,
	// B and the index: they may not overlap it in the same file.
	dLo, dHi := int(vdst), int(vdst)+s.cd
	for _, o := range []struct {
		lo, n int
		acc   bool
	}{{int(a0), 4, w1>>27&1 != 0}, {int(b0), 8, w1>>28&1 != 0}, {int(idx), 1, false}} {
		if o.acc == accCD && o.lo < dHi && dLo < o.lo+o.n {
			return nil, fmt.Errorf("D overlaps the A, B or index registers")
		}
	}
	var w []uint32
	scale := func(k uint32) {
		for i := uint16(0); i < uint16(s.cd); i++ {
			if accCD {
				r := accRead(u, vdst+i)
				w = append(w, r[0], r[1])
				w = append(w, vop2(op2MulF32, u, srcLit, u, k)...)
				a := accWrite(vdst+i, u)
				w = append(w, a[0], a[1])
			} else {
				w = append(w, vop2(op2MulF32, vdst+i, srcLit, vdst+i, k)...)
			}
		}
	}
	if s.ocp {
		scale(f32Quarter)
	}
	for p := 0; p < 2; p++ {
		pa, pb := a0+uint16(2*p), b0+uint16(4*p)
		nw1 := w1
		if s.ocp {
			for _, op := range []struct {
				src, dst uint16
				n        int
				acc      bool
			}{{pa, ta, 2, w1>>27&1 != 0}, {pb, tb, 4, w1>>28&1 != 0}} {
				for i := uint16(0); i < uint16(op.n); i++ {
					x, y := op.src+i, op.dst+i
					if op.acc {
						r := accRead(y, x)
						w = append(w, r[0], r[1])
						x = y
					}
					w = append(w, vop2(op2AndB32, u, srcLit, x, 0x7f7f7f7f)...)
					w = append(w, vop2(op2AddU32, u, srcLit, u, 0x7f7f7f7f)...)
					w = append(w, vop2(op2OrB32, u, srcLit, u, 0x7f7f7f7f)...)
					w = append(w, vop2(op2AndB32, y, srcVGPR+x, u, 0)...)
				}
			}
			w = append(w, sNop(4))
			pa, pb = ta, tb
			nw1 &^= 3 << 27 // the copies are VGPRs
		}
		nw1 = nw1&^0x3ffff | uint32(srcVGPR+pa) | uint32(srcVGPR+pb)<<9
		nw0 := w0&^(0x7f<<16)&^(0xf<<11) | s.host<<16 | (2*abid+uint32(p))<<11
		w = append(w, nw0, nw1)
		if p == 0 {
			// The second part reads D, which this one writes, as its
			// accumulator: an SMFMAC reading an overlapped accumulator
			// after an XDL write needs passes+2 wait states (up to 18 for
			// the 16-pass 32x32 shapes); the wait also lets this part read
			// the copies the next one rewrites.
			w = append(w, sNop(7), sNop(7), sNop(7))
		}
	}
	// Wait for the result (an XDL write read by VALU or the next
	// instruction), then undo the scaling.
	w = append(w, sNop(7), sNop(7), sNop(7))
	if s.ocp {
		scale(0x40800000) // 4.0
		w = append(w, sNop(4))
	}
	return appendWords(nil, w...), nil
}

func emitSMFMAC(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	s, ok := smfmacShapes[in.Name()]
	if !ok || len(raw) != 8 {
		return nil, fieldErr(in, "shape", uint32(len(raw)))
	}
	w := words(raw)
	var ta, tb, u uint16
	if s.ocp {
		var err error
		if ta, err = ctx.TempVGPRRange(2, 2); err != nil {
			return nil, err
		}
		if tb, err = ctx.TempVGPRRange(4, 2); err != nil {
			return nil, err
		}
		t, err := ctx.TempVGPRs(1)
		if err != nil {
			return nil, err
		}
		u = t[0]
		if u >= ta && u < ta+2 || u >= tb && u < tb+4 || ta >= tb && ta < tb+4 || tb >= ta && tb < ta+2 {
			return nil, fieldErr(in, "scratch overlap", uint32(u))
		}
	}
	out, err := SMFMACCode(s, w[0], w[1], ta, tb, u)
	if err != nil {
		return nil, fmt.Errorf("%s at %#x: %w", in.Name(), in.PC, err)
	}
	return out, nil
}
