package rules

import (
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// gfx950's scaled MFMAs v_mfma_scale_f32_{16x16x128,32x32x64}_f8f6f4 are a
// 16-byte pair: v_mfma_ld_scale_b32 picks one E8M0 byte per lane for A
// (src0, byte op_sel[0] | op_sel_hi[0]<<1) and one for B (src1, op_sel[1] |
// op_sel_hi[1]<<1), and the f8f6f4 MFMA multiplies every element a lane
// holds by its lane's scale. Each lane holds 32 elements of its row
// (column) l mod M at k = 32*(l/M) + e, packed contiguously in the format
// cbsz (A) or blgp (B) selects: E4M3 and E5M2 (OCP), E2M3, E3M2, E2M1.
//
// gfx942 has no such formats, so the expansion decodes the elements to
// bf16 and runs eight chained bf16 MFMAs (v_mfma_f32_16x16x16_bf16 or
// v_mfma_f32_32x32x8_bf16). Both host shapes hold 4 elements per lane at
// k = 4*(l/M) + e, so host part p takes the guest elements 4p..4p+3 of
// every lane of A and of B: the same permutation of K on both sides, and
// the eight parts together cover every k once.
//
// Per element: the magnitude bits become an f16 (mag << (10-M), with the
// code's exponent field in the low bits of the f16 exponent), the sign goes
// to bit 15, v_cvt_f32_f16 gives the element times 2^(B-15) exactly
// (subnormal codes are f16 subnormals), and v_ldexp_f32 by
// (s - 127) + (15 - B) applies the E8M0 scale and the bias. The f32 is exact
// and its upper half is the bf16 (every scaled element has at most 4
// significant bits) unless it leaves the normal f32 range. Pairs are packed
// with v_perm_b32, and a lane whose scale byte is 0xFF (NaN) ORs 0x7fc0
// into every bf16, making the whole lane NaN as on gfx950. E5M2 inf and
// NaN codes are f16 inf and NaN; E4M3 NaN codes (magnitude 0x7f) get f16
// bit 14 set, which makes them NaN.

// ScaleMFMABound documents the differences from gfx950.
const ScaleMFMABound = "products are exact; the f32 sum over K is rounded once per host part (8 chained bf16 MFMAs of 16 or 8 K each) instead of once: |D - D_gfx950| <= 9 * 2^-24 * (|C| + sum_k |a_k*b_k|); an element times its scale is exact when 0 or in [2^-126, 2^128), else it overflows to inf or is truncated to a bf16 subnormal (and flushed if the kernel's f32 denormal mode flushes); f16 subnormal codes need f16 denormals enabled (the default); lanes are converted under EXEC (full EXEC expected, as for any MFMA)"

// scaleFormat is one f8f6f4 element format: exponent and mantissa bits
// and exponent bias.
type scaleFormat struct{ e, m, bias int }

// bits is the element width.
func (f scaleFormat) bits() int { return 1 + f.e + f.m }

// scaleFormats are the formats cbsz and blgp select (0..4).
var scaleFormats = [5]scaleFormat{{4, 3, 7}, {5, 2, 15}, {2, 3, 1}, {3, 2, 3}, {2, 1, 1}}

// scaleMFMA describes a supported scaled MFMA: its host bf16 opcode and C/D
// register count.
var scaleMFMA = map[string]struct {
	op uint32
	cd int
}{
	"v_mfma_scale_f32_16x16x128_f8f6f4": {0x61, 4},  // v_mfma_f32_16x16x16_bf16
	"v_mfma_scale_f32_32x32x64_f8f6f4":  {0x60, 16}, // v_mfma_f32_32x32x8_bf16
}

func init() {
	var ops []string
	for n := range scaleMFMA {
		ops = append(ops, n)
	}
	register(Pair{isa.GFX950, isa.GFX942}, &Rule{Name: "mfma-scale-f8f6f4-bf16", Ops: ops,
		Fidelity: report.Approximate, Bound: ScaleMFMABound, Emit: emitScaleMFMA})
}

// Host opcodes the expansion uses (prefixed: other rules define their own).
const (
	smMovB32        = 0x01  // VOP1
	smCvtF32F16     = 0x0b  // VOP1
	smLshlrevB32    = 0x12  // VOP2
	smSubU32        = 0x35  // VOP2
	smAlignbitB32   = 0x1ce // VOP3
	smPermB32       = 0x1ed // VOP3
	smLshlOrB32     = 0x200 // VOP3
	smLdexpF32      = 0x288 // VOP3
	scaleNaNMask    = 0x7fc07fc0
	permUpperHalves = 0x07060302 // v_perm_b32 selector: {S0[31:16], S1[31:16]}
)

// smVOP1 encodes a VOP1 instruction; a literal follows when src0 is srcLit.
func smVOP1(op uint16, vdst uint16, src0 uint16, lit uint32) []uint32 {
	w := 0x7e000000 | uint32(vdst&0xff)<<17 | uint32(op&0xff)<<9 | uint32(src0&0x1ff)
	if src0 == srcLit {
		return []uint32{w, lit}
	}
	return []uint32{w}
}

// ScaleMFMAScratch are the scratch VGPRs of the expansion: two even
// 4-register windows (A pair then B pair) used alternately by the parts,
// four temporaries, and five per-instruction constants.
type ScaleMFMAScratch struct {
	Buf  [2]uint16 // each the first of 4 registers, even
	Tmp  [4]uint16
	Sel  uint16    // v_perm_b32 selector
	Exp  [2]uint16 // per-lane ldexp amount for A and B
	Mask [2]uint16 // per-lane NaN mask for A and B
}

// ScaleMFMACode returns the gfx942 expansion of the scaled MFMA whose
// v_mfma_ld_scale_b32 words are (l0, l1) and MFMA words (w0, w1), with C/D
// of cd registers and host bf16 MFMA opcode hostOp.
func ScaleMFMACode(l0, l1, w0, w1 uint32, hostOp uint32, cd int, s ScaleMFMAScratch) ([]byte, error) {
	if l0&0xffff0000 != 0xd3ac0000 {
		return nil, fmt.Errorf("first dword %#08x is not v_mfma_ld_scale_b32", l0)
	}
	cbsz, abid, blgp := w0>>8&7, w0>>11&0xf, w1>>29
	if cbsz > 4 || blgp > 4 {
		return nil, fmt.Errorf("cbsz %d / blgp %d select no format", cbsz, blgp)
	}
	if abid>>1 != 0 {
		return nil, fmt.Errorf("abid %d is not supported", abid)
	}
	fa, fb := scaleFormats[cbsz], scaleFormats[blgp]
	accCD := w0 >> 15 & 1
	vdst := w0 & 0xff
	src0, src1, src2 := w1&0x1ff, w1>>9&0x1ff, w1>>18&0x1ff
	if src0 < srcVGPR || src1 < srcVGPR {
		return nil, fmt.Errorf("constant A or B operand")
	}
	if w1>>27&3 != 0 {
		return nil, fmt.Errorf("A or B in AGPRs is not supported")
	}
	if src2 < srcVGPR && !(src2 >= 128 && src2 <= 208) && !(src2 >= 240 && src2 <= 248) {
		return nil, fmt.Errorf("accumulator operand code %d is not supported", src2)
	}
	aReg, bReg := uint16(src0-srcVGPR), uint16(src1-srcVGPR)
	nA, nB := uint16(fa.bits()), uint16(fb.bits()) // 32 elements: bits dwords
	if int(aReg)+int(nA) > 256 || int(bReg)+int(nB) > 256 {
		return nil, fmt.Errorf("operand registers run past v255")
	}
	if accCD == 0 {
		// Part 0 writes D before later parts decode A and B.
		for _, o := range [][2]uint32{{uint32(aReg), uint32(nA)}, {uint32(bReg), uint32(nB)}} {
			if o[0] < vdst+uint32(cd) && vdst < o[0]+o[1] {
				return nil, fmt.Errorf("D overlaps the A/B registers")
			}
		}
	}
	scaleSrc := [2]uint32{l1 & 0x1ff, l1 >> 9 & 0x1ff}
	for _, c := range scaleSrc {
		if c == srcLit {
			return nil, fmt.Errorf("literal scale operand")
		}
	}
	scaleByte := [2]uint32{l0>>11&1 | (l1>>27&1)<<1, l0>>12&1 | (l1>>28&1)<<1}

	var w []uint32
	put := func(ws ...uint32) { w = append(w, ws...) }
	v := func(r uint16) uint16 { return srcVGPR + r }
	// Earlier XDL writes of A, B or the scales must land before VALU reads.
	put(sNop(7), sNop(7), sNop(7))
	put(smVOP1(smMovB32, s.Sel, srcLit, permUpperHalves)...)
	fmts := [2]scaleFormat{fa, fb}
	for x := 0; x < 2; x++ {
		e, m := s.Exp[x], s.Mask[x]
		b := vop3(op3BfeU32, e, uint16(scaleSrc[x]), inlineInt(int(8*scaleByte[x])), inlineInt(8))
		put(b[0], b[1])
		put(vop2(op2AddU32, m, inlineInt(1), e, 0)...) // 256 iff the byte is 0xFF
		put(vop2(op2LshrrevB32, m, inlineInt(8), m, 0)...)
		put(vop2(smSubU32, m, srcZero, m, 0)...) // all ones iff NaN
		put(vop2(op2AndB32, m, srcLit, m, scaleNaNMask)...)
		put(vop2(op2AddU32, e, srcLit, e, uint32(int32(15-fmts[x].bias-127)))...)
	}
	t1, t2 := s.Tmp[0], s.Tmp[1]
	// elem writes the scaled f32 of element i of the operand at reg into dst.
	elem := func(dst, reg uint16, f scaleFormat, i int, exp uint16) {
		nb := f.bits()
		bit := i * nb
		r, off := uint16(bit/32), bit%32
		src := v(reg + r)
		if off+nb > 32 {
			a := vop3(smAlignbitB32, t1, v(reg+r+1), v(reg+r), inlineInt(off))
			put(a[0], a[1])
			src, off = v(t1), 0
		}
		a := vop3(op3BfeU32, t2, src, inlineInt(off+f.e+f.m), inlineInt(1))
		put(a[0], a[1])
		a = vop3(op3BfeU32, t1, src, inlineInt(off), inlineInt(f.e+f.m))
		put(a[0], a[1])
		if f.e == 4 {
			// E4M3: magnitude 0x7f is NaN. (mag+1)&0x80 is 0x80 only
			// there; shifted by 7 it sets f16 bit 14, turning 0x3f80
			// into the NaN 0x7f80. dst is free until the final ldexp.
			put(vop2(op2AddU32, dst, inlineInt(1), t1, 0)...)
			put(vop2(op2AndB32, dst, srcLit, dst, 0x80)...)
			put(vop2(smLshlrevB32, t1, inlineInt(10-f.m), t1, 0)...)
			a = vop3(smLshlOrB32, t1, v(dst), inlineInt(7), v(t1))
			put(a[0], a[1])
		} else {
			put(vop2(smLshlrevB32, t1, inlineInt(10-f.m), t1, 0)...)
		}
		a = vop3(smLshlOrB32, t1, v(t2), inlineInt(15), v(t1))
		put(a[0], a[1])
		put(smVOP1(smCvtF32F16, t1, v(t1), 0)...)
		a = vop3(smLdexpF32, dst, v(t1), v(exp), 0)
		put(a[0], a[1])
	}
	c := src2
	regs := [2]uint16{aReg, bReg}
	for p := 0; p < 8; p++ {
		buf := s.Buf[p%2]
		for x := 0; x < 2; x++ {
			for j := 0; j < 2; j++ {
				i := 4*p + 2*j
				elem(s.Tmp[2], regs[x], fmts[x], i, s.Exp[x])
				elem(s.Tmp[3], regs[x], fmts[x], i+1, s.Exp[x])
				d := buf + uint16(2*x+j)
				a := vop3(smPermB32, d, v(s.Tmp[3]), v(s.Tmp[2]), v(s.Sel))
				put(a[0], a[1])
				put(vop2(op2OrB32, d, v(s.Mask[x]), d, 0)...)
			}
		}
		// VALU writes of the operands before the MFMA reads them.
		put(sNop(4))
		put(0xd3800000|hostOp<<16|accCD<<15|vdst, uint32(v(buf))|uint32(v(buf+2))<<9|c<<18)
		c = srcVGPR + vdst
	}
	// The last part (8 or 16 passes) must finish before the guest's next
	// instructions, which waited only for the guest MFMA.
	put(sNop(7), sNop(7), sNop(7))
	return appendWords(nil, w...), nil
}

func emitScaleMFMA(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	m, ok := scaleMFMA[in.Name()]
	if !ok || len(raw) != 16 {
		return nil, fieldErr(in, "shape", uint32(len(raw)))
	}
	w := words(raw)
	var s ScaleMFMAScratch
	for i := range s.Buf {
		r, err := ctx.TempVGPRRange(4, 2)
		if err != nil {
			return nil, fmt.Errorf("%s at %#x: %w", in.Name(), in.PC, err)
		}
		s.Buf[i] = r
	}
	t, err := ctx.TempVGPRs(9)
	if err != nil {
		return nil, fmt.Errorf("%s at %#x: %w", in.Name(), in.PC, err)
	}
	copy(s.Tmp[:], t[:4])
	s.Sel, s.Exp[0], s.Exp[1], s.Mask[0], s.Mask[1] = t[4], t[5], t[6], t[7], t[8]
	code, err := ScaleMFMACode(w[0], w[1], w[2], w[3], m.op, m.cd, s)
	if err != nil {
		return nil, fmt.Errorf("%s at %#x: %w", in.Name(), in.PC, err)
	}
	return code, nil
}
