package rules

import (
	"fmt"
	"math"

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
// k = 4*(l/M) + e, so host part p takes four of the guest elements of
// every lane of A and of B (scaleOrder): the same permutation of K on both
// sides, and the eight parts together cover every k once.
//
// Per element: the magnitude bits become an f16 (mag << (10-M), with the
// code's exponent field in the low bits of the f16 exponent), the sign goes
// to bit 15 (the code is sign-extended with v_bfe_i32, shifted and masked;
// E4M3 extracts sign and magnitude apart), v_cvt_f32_f16 gives the
// element times 2^(B-15) exactly (subnormal codes are f16 subnormals), and
// v_ldexp_f32 by (s - 127) + (15 - B) applies the E8M0 scale and the bias.
// The f32 is exact and its upper half is the bf16 (every scaled element
// has at most 4 significant bits) unless it leaves the normal f32 range.
// Pairs are packed with v_perm_b32 whose selector, in a lane whose scale
// byte is 0xFF (NaN), is all ones: every bf16 is 0xffff (NaN), making the
// whole lane NaN as on gfx950. E5M2 inf and NaN codes are f16 inf and NaN;
// E4M3 NaN codes (magnitude 0x7f) get f16 bit 14 set, which makes them NaN.
//
// E2M1 operands (given the registers) use a table decode instead: the
// scaled value of each of the 7 non-zero magnitudes is one v_ldexp_f32 per
// lane (of the magnitude, by s - 127: the value the f16/ldexp path gives),
// and eight v_perm_b32 gather their bf16 bytes into byte tables; v_perm_b32
// then looks up 4 magnitudes at a time, the nibble signs are ORed into the
// high bytes, and each source dword yields the pairs of parts 2r (even
// elements) and 2r+1 (odd elements, kept in alternating hold pairs). A
// lane whose scale is NaN ORs 0x7fc0 into the table entries, so every bf16
// of the lane is NaN. 183 instead of 384 instructions for an E2M1 x E2M1
// MFMA, with the same bf16 operands.
//
// E4M3, E2M3 and E3M2 operands (given the hold registers) are decoded 4
// elements at a time as bytes of magnitudes: E4M3's with the NaN codes
// 0x7f turned into 0x80 (four byte-wise steps), FP6 codes spread to one a
// byte (two v_bfi_b32). v_cvt_f32_fp8 (E4M3, E2M3) or v_cvt_f32_bf8 (E3M2)
// with an SDWA byte select reads each byte as gfx942's FNUZ E4M3 (bias 8)
// or E5M2 (bias 16): exactly the value times 2^-1, 2^-7 or 2^-13 (the FP6
// exponent field lands in the low bits of the FNUZ one, subnormal codes
// included; 0x80 is the FNUZ NaN); v_ldexp_f32 scales, v_perm_b32 packs
// bytes 0 and 2 into the pair of part 2r and bytes 1 and 3 into the held
// pair of part 2r+1, and the code signs are ORed into the bf16 sign bits
// (which keeps -0). The bf16 operands are those of the per-element decode
// except for NaN payloads (0x7fc0 | sign for an E4M3 NaN code).

// ScaleMFMABound documents the differences from gfx950.
const ScaleMFMABound = "products are exact; the f32 sum over K is rounded once per host part (8 chained bf16 MFMAs of 16 or 8 K each) instead of once: |D - D_gfx950| <= 9 * 2^-24 * (|C| + sum_k |a_k*b_k|); an element times its scale is exact when 0 or in [2^-126, 2^128), else it overflows to inf or is truncated to a bf16 subnormal (and flushed if the kernel's f32 denormal mode flushes); f16 subnormal codes need f16 denormals enabled (the default); lanes are converted under EXEC (full EXEC expected, as for any MFMA)"

// scaleFormat is one f8f6f4 element format: exponent and mantissa bits
// and exponent bias.
type scaleFormat struct{ e, m, bias int }

// bits is the element width.
func (f scaleFormat) bits() int { return 1 + f.e + f.m }

// scaleFormats are the formats cbsz and blgp select (0..4).
var scaleFormats = [5]scaleFormat{{4, 3, 7}, {5, 2, 15}, {2, 3, 1}, {3, 2, 3}, {2, 1, 1}}

// F8F6F4Bits is the element width in bits of the f8f6f4 format that a cbsz
// or blgp value f (0..4) selects, which is also the number of registers an
// f8f6f4 MFMA's A or B operand of that format holds.
func F8F6F4Bits(f int) int { return scaleFormats[f].bits() }

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
		Fidelity: report.Approximate, Bound: ScaleMFMABound, Emit: emitScaleMFMA, Shared: scaleShared})
}

// Host opcodes the expansion uses (prefixed: other rules define their own).
const (
	smMovB32        = 0x01  // VOP1
	smCvtF32F16     = 0x0b  // VOP1
	smCvtF32FP8     = 0x54  // VOP1 (SDWA for a byte)
	smCvtF32BF8     = 0x55  // VOP1 (SDWA for a byte)
	smCvtPkF32FP8   = 0x56  // VOP1 (SDWA for the high word)
	smCvtPkF32BF8   = 0x57  // VOP1 (SDWA for the high word)
	smBfiB32        = 0x1ca // VOP3
	smLshlrevB32    = 0x12  // VOP2
	smAlignbitB32   = 0x1ce // VOP3
	smBfeI32        = 0x1c9 // VOP3
	smPermB32       = 0x1ed // VOP3
	smLshlOrB32     = 0x200 // VOP3
	smAndOrB32      = 0x201 // VOP3
	smLdexpF32      = 0x288 // VOP3
	inlineF05       = 240   // the inline constants 0.5, 1.0, 2.0, 4.0
	inlineF1        = 242
	inlineF2        = 244
	inlineF4        = 246
	permUpperHalves = 0x07060302 // v_perm_b32 selector: {S0[31:16], S1[31:16]}
)

// smCvtF32FP8Byte encodes the VOP1 conversion op (v_cvt_f32_fp8 or
// v_cvt_f32_bf8) as SDWA: vdst, vsrc src0_sel:BYTE_b (gfx942: the byte
// read as FNUZ E4M3 or E5M2).
func smCvtF32FP8Byte(op, vdst, vsrc uint16, b uint32) []uint32 {
	const sdwaDword = 6 // dst_sel:DWORD
	return []uint32{0x7e000000 | uint32(vdst&0xff)<<17 | uint32(op&0xff)<<9 | 0xf9, uint32(vsrc&0xff) | sdwaDword<<8 | (b&3)<<16}
}

// smCvtPkF32FP8Hi encodes the VOP1 conversion op (v_cvt_pk_f32_fp8 or
// v_cvt_pk_f32_bf8) as SDWA: v[vdst:vdst+1], vsrc src0_sel:WORD_1.
func smCvtPkF32FP8Hi(op, vdst, vsrc uint16) []uint32 {
	const sdwaDword, sdwaWord1 = 6, 5
	return []uint32{0x7e000000 | uint32(vdst&0xff)<<17 | uint32(op&0xff)<<9 | 0xf9, uint32(vsrc&0xff) | sdwaDword<<8 | sdwaWord1<<16}
}

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
	Sel  uint16    // the byte decode's sign mask 0x80008000
	Exp  [2]uint16 // per-lane ldexp amount for A and B
	Mask [2]uint16 // per-lane NaN mask for A and B
	// FP4[x] enables the table decode of an E2M1 operand x (A or B),
	// which needs Hold[x] (first of 4, even: the odd parts' operand
	// pairs), LUT[x] (the per-lane byte tables), and the shared Extra,
	// M80 and SelI registers. Bytes[x] enables the byte decode of an
	// E4M3, E2M3 or E3M2 operand x, which needs Hold[x].
	FP4   [2]bool
	Bytes [2]bool
	Hold  [2]uint16
	LUT   [2][4]uint16
	Extra [2]uint16
	M80   uint16
	SelI  [2]uint16
	// ScaleBytes says VGPR scale operands read at byte 0 hold the byte
	// alone (bits 31:8 zero, as the subroutine's call sites write them):
	// the expansion reads them without extracting it.
	ScaleBytes bool
	// CopiedOperands says VALU instructions wrote A, B and the scales
	// (a subroutine body's fixed registers): no leading waits for XDL
	// writes.
	CopiedOperands bool
}

// e2m1Values are the E2M1 magnitudes 0..7.
var e2m1Values = [8]float32{0, 0.5, 1, 1.5, 2, 3, 4, 6}

// scaleOrder is the guest element (of the lane's 32) in half h of dword j
// of host part p's operand pair. Any order serves if A and B share it;
// this one lets the E2M1 table decode turn each source dword (8 elements)
// into the pairs of parts 2r (even elements) and 2r+1 (odd elements).
func scaleOrder(p, j, h int) int { return 8*(p/2) + p%2 + 4*j + 2*h }

// scaleFields are the fields of a scaled MFMA pair the expansion reads.
type scaleFields struct {
	cbsz, blgp          uint32
	fa, fb              scaleFormat
	accCD, vdst, src2   uint32
	aReg, bReg, nA, nB  uint16 // A/B first register (VGPR or AGPR) and dwords
	scaleSrc, scaleByte [2]uint32
}

// parseScaleMFMA checks and splits the words of a scaled MFMA pair (A and
// B may name AGPRs: bits 27/28 of w1).
func parseScaleMFMA(l0, l1, w0, w1 uint32) (scaleFields, error) {
	var f scaleFields
	if l0&0xffff0000 != 0xd3ac0000 {
		return f, fmt.Errorf("first dword %#08x is not v_mfma_ld_scale_b32", l0)
	}
	cbsz, abid, blgp := w0>>8&7, w0>>11&0xf, w1>>29
	if cbsz > 4 || blgp > 4 {
		return f, fmt.Errorf("cbsz %d / blgp %d select no format", cbsz, blgp)
	}
	if abid>>1 != 0 {
		return f, fmt.Errorf("abid %d is not supported", abid)
	}
	src0, src1, src2 := w1&0x1ff, w1>>9&0x1ff, w1>>18&0x1ff
	if src0 < srcVGPR || src1 < srcVGPR {
		return f, fmt.Errorf("constant A or B operand")
	}
	if src2 < srcVGPR && !(src2 >= 128 && src2 <= 208) && !(src2 >= 240 && src2 <= 248) {
		return f, fmt.Errorf("accumulator operand code %d is not supported", src2)
	}
	f.cbsz, f.blgp, f.fa, f.fb = cbsz, blgp, scaleFormats[cbsz], scaleFormats[blgp]
	f.accCD, f.vdst, f.src2 = w0>>15&1, w0&0xff, src2
	f.aReg, f.bReg = uint16(src0-srcVGPR), uint16(src1-srcVGPR)
	f.nA, f.nB = uint16(f.fa.bits()), uint16(f.fb.bits()) // 32 elements: bits dwords
	if int(f.aReg)+int(f.nA) > 256 || int(f.bReg)+int(f.nB) > 256 {
		return f, fmt.Errorf("operand registers run past v255")
	}
	f.scaleSrc = [2]uint32{l1 & 0x1ff, l1 >> 9 & 0x1ff}
	for _, c := range f.scaleSrc {
		if c == srcLit {
			return f, fmt.Errorf("literal scale operand")
		}
	}
	f.scaleByte = [2]uint32{l0>>11&1 | (l1>>27&1)<<1, l0>>12&1 | (l1>>28&1)<<1}
	return f, nil
}

// ScaleMFMACode returns the gfx942 expansion of the scaled MFMA whose
// v_mfma_ld_scale_b32 words are (l0, l1) and MFMA words (w0, w1), with C/D
// of cd registers and host bf16 MFMA opcode hostOp.
func ScaleMFMACode(l0, l1, w0, w1 uint32, hostOp uint32, cd int, s ScaleMFMAScratch) ([]byte, error) {
	f, err := parseScaleMFMA(l0, l1, w0, w1)
	if err != nil {
		return nil, err
	}
	if w1>>27&3 != 0 {
		return nil, fmt.Errorf("A or B in AGPRs is not supported")
	}
	cbsz, blgp, fa, fb := f.cbsz, f.blgp, f.fa, f.fb
	accCD, vdst, src2 := f.accCD, f.vdst, f.src2
	aReg, bReg, nA, nB := f.aReg, f.bReg, f.nA, f.nB
	if accCD == 0 {
		// Part 0 writes D before later parts decode A and B.
		for _, o := range [][2]uint32{{uint32(aReg), uint32(nA)}, {uint32(bReg), uint32(nB)}} {
			if o[0] < vdst+uint32(cd) && vdst < o[0]+o[1] {
				return nil, fmt.Errorf("D overlaps the A/B registers")
			}
		}
	}
	scaleSrc, scaleByte := f.scaleSrc, f.scaleByte

	var w []uint32
	put := func(ws ...uint32) { w = append(w, ws...) }
	v := func(r uint16) uint16 { return srcVGPR + r }
	// Earlier XDL writes of A, B or the scales must land before VALU reads
	// (a subroutine body reads only its call site's VALU copies).
	if !s.CopiedOperands {
		put(sNop(7), sNop(7), sNop(7))
	}
	fmts := [2]scaleFormat{fa, fb}
	table := [2]bool{s.FP4[0] && cbsz == 4, s.FP4[1] && blgp == 4}
	byteDecode := [2]bool{s.Bytes[0] && cbsz != 1 && cbsz != 4, s.Bytes[1] && blgp != 1 && blgp != 4}
	for x := 0; x < 2; x++ {
		e, m := s.Exp[x], s.Mask[x]
		sc := e // the scale byte
		if s.ScaleBytes && scaleSrc[x] >= srcVGPR && scaleByte[x] == 0 {
			sc = uint16(scaleSrc[x] - srcVGPR)
		} else {
			b := vop3(op3BfeU32, e, uint16(scaleSrc[x]), inlineInt(int(8*scaleByte[x])), inlineInt(8))
			put(b[0], b[1])
		}
		put(vop2(op2AddU32, m, inlineInt(1), sc, 0)...) // 256 iff the byte is 0xFF
		a := vop3(smBfeI32, m, v(m), inlineInt(8), inlineInt(1))
		put(a[0], a[1]) // bit 8 sign-extended: all ones iff NaN
		adj := 15 - fmts[x].bias - 127
		if byteDecode[x] {
			// v_cvt_f32_fp8/bf8 read the magnitude bytes as gfx942's
			// FNUZ E4M3 (bias 8) or E5M2 (bias 16): the value times
			// 2^-1 (E4M3), 2^-7 (E2M3 as E4M3) or 2^-13 (E3M2 as
			// E5M2).
			adj = 1 - 127
			switch fmts[x].e {
			case 2:
				adj = 7 - 127
			case 3:
				adj = 13 - 127
			}
		}
		if table[x] {
			// The table operand keeps the all-ones mask (it selects
			// the NaN bits ORed into the table entries) and folds the
			// 2^-14 of the f16 step into the ldexp amount.
			adj -= 14
		} else {
			// The per-element operand's pair selector: the upper
			// halves, or all ones (0xff bytes: the bf16 NaN 0xffff)
			// in a lane whose scale is NaN.
			put(vop2(op2OrB32, m, srcLit, m, permUpperHalves)...)
		}
		put(vop2(op2AddU32, e, srcLit, sc, uint32(int32(adj)))...)
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
		if f.e != 4 {
			// The code sign-extended, shifted so that the magnitude
			// sits at bit 10-M, and masked to the magnitude and bit 15
			// (a copy of the sign). v_cvt_f32_f16 reads bits 15:0.
			a := vop3(smBfeI32, t1, src, inlineInt(off), inlineInt(nb))
			put(a[0], a[1])
			put(vop2(smLshlrevB32, t1, inlineInt(10-f.m), t1, 0)...)
			put(vop2(op2AndB32, t1, srcLit, t1, 0x8000|(1<<(f.e+f.m)-1)<<(10-f.m))...)
			put(smVOP1(smCvtF32F16, t1, v(t1), 0)...)
			a = vop3(smLdexpF32, dst, v(t1), v(exp), 0)
			put(a[0], a[1])
			return
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
	regs := [2]uint16{aReg, bReg}
	if table[0] || table[1] {
		put(smVOP1(smMovB32, s.M80, srcLit, 0x80808080)...)
		put(smVOP1(smMovB32, s.SelI[0], srcLit, 0x05010400)...) // {S0.b1,S1.b1,S0.b0,S1.b0}
		put(smVOP1(smMovB32, s.SelI[1], srcLit, 0x07030602)...) // {S0.b3,S1.b3,S0.b2,S1.b2}
	}
	// The table build's registers: the E2M1 magnitudes 1..7 (four are
	// inline constants, three literals kept in the first window, which
	// the parts write only later), the NaN bits (in the window too), and
	// the seven scaled values in the hold pair and Tmp.
	mags := [7]uint16{inlineF05, inlineF1, v(s.Buf[0]), inlineF2, v(s.Buf[0] + 1), inlineF4, v(s.Buf[0] + 2)}
	nanBits := s.Buf[0] + 3
	if table[0] || table[1] {
		for i, m := range []int{3, 5, 7} {
			put(smVOP1(smMovB32, s.Buf[0]+uint16(i), srcLit, math.Float32bits(e2m1Values[m]))...)
		}
		put(smVOP1(smMovB32, nanBits, srcLit, 0x7f7fc0c0)...)
	}
	for x := 0; x < 2; x++ {
		if !table[x] {
			continue
		}
		// The scaled value of each E2M1 magnitude 1..7 (tv[m-1], the
		// value times 2^(s-127) exactly as the f16 -> ldexp path of
		// the per-element decode gives it), then byte tables:
		// LUT[x][0..1] the bf16 high bytes of magnitudes 0..3 and
		// 4..7, LUT[x][2..3] the low bytes. Magnitude 0's bytes are 0.
		tv := [7]uint16{s.Hold[x], s.Hold[x] + 1, s.Hold[x] + 2, s.Hold[x] + 3, s.Tmp[0], s.Tmp[1], s.Tmp[2]}
		for i, m := range mags {
			a := vop3(smLdexpF32, tv[i], m, v(s.Exp[x]), 0)
			put(a[0], a[1])
		}
		// The bf16 bytes of magnitudes (a, b) gathered as {Hb, Ha, Lb,
		// La} (SelI[1]): g02 (magnitude 0 is 0), g13, g46, g57.
		g02, g13, g46, g57 := tv[1], tv[2], tv[5], tv[6]
		for _, q := range [][3]uint16{{g02, v(tv[1]), srcZero}, {g13, v(tv[2]), v(tv[0])}, {g46, v(tv[5]), v(tv[3])}, {g57, v(tv[6]), v(tv[4])}} {
			a := vop3(smPermB32, q[0], q[1], q[2], v(s.SelI[1]))
			put(a[0], a[1])
		}
		// A lane whose scale is NaN ORs 0x7fc0 into every bf16 (the
		// per-element decode's NaN), making the whole lane NaN as on
		// gfx950; the sign ORed in later keeps it NaN.
		for _, q := range []uint16{g02, g13, g46, g57} {
			a := vop3(smAndOrB32, q, v(s.Mask[x]), v(nanBits), v(q))
			put(a[0], a[1])
		}
		// The tables: SelI[1] takes the high bytes, SelI[0] the low.
		for _, q := range [][4]uint16{{s.LUT[x][0], g13, g02, s.SelI[1]}, {s.LUT[x][1], g57, g46, s.SelI[1]}, {s.LUT[x][2], g13, g02, s.SelI[0]}, {s.LUT[x][3], g57, g46, s.SelI[0]}} {
			a := vop3(smPermB32, q[0], v(q[1]), v(q[2]), v(q[3]))
			put(a[0], a[1])
		}
	}
	if byteDecode[0] || byteDecode[1] {
		put(smVOP1(smMovB32, s.Sel, srcLit, 0x80008000)...)
	}
	// pair returns the register pair of operand x for part p, writing it
	// first when needed.
	pair := func(x, p int, buf uint16) uint16 {
		d := buf + uint16(2*x)
		if byteDecode[x] {
			// Dword (or FP6 group of 4 elements) 2r+j holds the
			// elements of pair j of part 2r in bytes 0 and 2 and of
			// part 2r+1 in bytes 1 and 3 (scaleOrder).
			r := p / 2
			hold := s.Hold[x] + uint16(2*(r%2))
			if p%2 == 1 {
				return hold
			}
			f := fmts[x]
			t0, t1, t2, t3 := s.Tmp[0], s.Tmp[1], s.Tmp[2], s.Tmp[3]
			// FP6 spreading masks, in this operand's unused half of the
			// odd window.
			m12, m6 := s.Buf[1]+uint16(2*x), s.Buf[1]+uint16(2*x)+1
			if f.bits() == 6 && p == 0 {
				put(smVOP1(smMovB32, m12, srcLit, 0x00000fff)...)
				put(smVOP1(smMovB32, m6, srcLit, 0x003f003f)...)
			}
			cvt, cvtPk := uint16(smCvtF32FP8), uint16(smCvtPkF32FP8)
			if f.e == 3 {
				cvt, cvtPk = smCvtF32BF8, smCvtPkF32BF8
			}
			// Group 2r+1 first: its four values fit the aligned pairs
			// at d and hold (v_cvt_pk_f32_*); group 2r's then go to
			// single registers.
			for _, j := range []uint16{1, 0} {
				g := uint16(2*r) + j
				mags := d + j // free until its pair is packed
				if j == 1 {
					mags = t0
					if f.bits() == 6 {
						mags = t1
					}
				}
				var signs uint16
				var shEven, shOdd int
				if f.bits() == 8 {
					// E4M3: the magnitudes, with the NaN codes (0x7f)
					// made the FNUZ NaN 0x80 (bit 7 of mag+1 added to
					// bit 0); the signs are bits 7, 15, 23, 31.
					src := regs[x] + g
					put(vop2(op2AndB32, t0, srcLit, src, 0x7f7f7f7f)...)
					put(vop2(op2AddU32, t1, srcLit, t0, 0x01010101)...)
					put(vop2(op2LshrrevB32, t1, inlineInt(7), t1, 0)...)
					put(vop2(op2AndB32, t1, srcLit, t1, 0x01010101)...)
					put(vop2(op2AddU32, mags, v(t1), t0, 0)...)
					signs, shEven, shOdd = src, 8, 0
				} else {
					// FP6: the 24 bits of the group, spread to one
					// code per byte (12-bit halves to 16-bit lanes,
					// then 6-bit fields to bytes); the magnitudes are
					// bits 4:0 of each byte, the signs bits 5, 13, 21,
					// 29.
					bit := 24 * int(g)
					w, off := uint16(bit/32), bit%32
					xr := regs[x] + w
					switch {
					case off == 0:
					case off+24 <= 32:
						put(vop2(op2LshrrevB32, t0, inlineInt(off), xr, 0)...)
						xr = t0
					default:
						a := vop3(smAlignbitB32, t0, v(xr+1), v(xr), inlineInt(off))
						put(a[0], a[1])
						xr = t0
					}
					put(vop2(smLshlrevB32, t1, inlineInt(4), xr, 0)...)
					a := vop3(smBfiB32, t0, v(m12), v(xr), v(t1))
					put(a[0], a[1])
					put(vop2(smLshlrevB32, t1, inlineInt(2), t0, 0)...)
					a = vop3(smBfiB32, t0, v(m6), v(t0), v(t1))
					put(a[0], a[1])
					put(vop2(op2AndB32, mags, srcLit, t0, 0x1f1f1f1f)...)
					signs, shEven, shOdd = t0, 10, 2
				}
				// Bytes 0, 2, 1, 3 as f32 (exact, the value times
				// 2^-1, 2^-7 or 2^-13 as FNUZ E4M3 or E5M2 reads them),
				// scaled by ldexp and packed: group 2r+1's into the
				// pairs d and hold, group 2r's into t1, t2, t3 and
				// hold.
				f0, f2, f1, f3 := t1, t2, t3, hold+j
				if j == 1 {
					f0, f1, f2, f3 = d, d+1, hold, hold+1
					put(smVOP1(cvtPk, d, v(mags), 0)...)
					put(smCvtPkF32FP8Hi(cvtPk, hold, mags)...)
				} else {
					for k, dst := range []uint16{f0, f2, f1, f3} {
						put(smCvtF32FP8Byte(cvt, dst, mags, []uint32{0, 2, 1, 3}[k])...)
					}
				}
				for _, q := range []uint16{f0, f2, f1, f3} {
					a := vop3(smLdexpF32, q, v(q), v(s.Exp[x]), 0)
					put(a[0], a[1])
				}
				a := vop3(smPermB32, hold+j, v(f3), v(f1), v(s.Mask[x]))
				put(a[0], a[1])
				a = vop3(smPermB32, d+j, v(f2), v(f0), v(s.Mask[x]))
				put(a[0], a[1])
				// The code signs (bytes 0, 2 and 1, 3) shifted to the
				// bf16 sign bits 15 and 31 and ORed in (-0 stays -0).
				for _, q := range [][2]int{{int(d + j), shEven}, {int(hold + j), shOdd}} {
					src := signs
					if q[1] != 0 {
						put(vop2(smLshlrevB32, t1, inlineInt(q[1]), signs, 0)...)
						src = t1
					}
					a := vop3(smAndOrB32, uint16(q[0]), v(src), v(s.Sel), v(uint16(q[0])))
					put(a[0], a[1])
				}
			}
			return d
		}
		if table[x] {
			r := p / 2
			hold := s.Hold[x] + uint16(2*(r%2))
			if p%2 == 1 {
				return hold
			}
			src := v(regs[x] + uint16(r))
			selE, selO, hiE, loE, hiO, loO := s.Tmp[0], s.Tmp[1], s.Tmp[2], s.Tmp[3], s.Extra[0], s.Extra[1]
			put(vop2(op2AndB32, selE, srcLit, src-srcVGPR, 0x07070707)...)
			put(vop2(op2LshrrevB32, selO, inlineInt(4), src-srcVGPR, 0)...)
			put(vop2(op2AndB32, selO, srcLit, selO, 0x07070707)...)
			for _, q := range [][3]uint16{{hiE, 0, selE}, {loE, 2, selE}, {hiO, 0, selO}, {loO, 2, selO}} {
				a := vop3(smPermB32, q[0], v(s.LUT[x][q[1]+1]), v(s.LUT[x][q[1]]), v(q[2]))
				put(a[0], a[1])
			}
			// Signs: bit 3 of each even nibble and bit 7 of each odd
			// one go to bit 7 of the high bytes.
			put(vop2(smLshlrevB32, selE, inlineInt(4), src-srcVGPR, 0)...)
			a := vop3(smAndOrB32, hiE, v(selE), v(s.M80), v(hiE))
			put(a[0], a[1])
			a = vop3(smAndOrB32, hiO, src, v(s.M80), v(hiO))
			put(a[0], a[1])
			for _, q := range [][3]uint16{{d, hiE, loE}, {hold, hiO, loO}} {
				for j := uint16(0); j < 2; j++ {
					a := vop3(smPermB32, q[0]+j, v(q[1]), v(q[2]), v(s.SelI[j]))
					put(a[0], a[1])
				}
			}
			return d
		}
		for j := 0; j < 2; j++ {
			elem(s.Tmp[2], regs[x], fmts[x], scaleOrder(p, j, 0), s.Exp[x])
			elem(s.Tmp[3], regs[x], fmts[x], scaleOrder(p, j, 1), s.Exp[x])
			a := vop3(smPermB32, d+uint16(j), v(s.Tmp[3]), v(s.Tmp[2]), v(s.Mask[x]))
			put(a[0], a[1])
		}
		return d
	}
	c := src2
	for p := 0; p < 8; p++ {
		buf := s.Buf[p%2]
		n := len(w)
		pa, pb := pair(0, p, buf), pair(1, p, buf)
		// VALU writes of the operands before the MFMA reads them. A
		// part whose pairs were both written before the previous part's
		// MFMA (held pairs) needs no wait: it reads as C exactly the D
		// that MFMA wrote, a full-register SrcC dependency, which needs
		// no wait states on gfx942 for these 8- and 16-pass MFMAs.
		if p == 0 || len(w) > n {
			put(sNop(4))
		}
		put(0xd3800000|hostOp<<16|accCD<<15|vdst, uint32(v(pa))|uint32(v(pb))<<9|c<<18)
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
	for x, f := range []uint32{w[2] >> 8 & 7, w[3] >> 29} {
		if f == 1 {
			continue
		}
		if s.Hold[x], err = ctx.TempVGPRRange(4, 2); err != nil {
			return nil, fmt.Errorf("%s at %#x: %w", in.Name(), in.PC, err)
		}
		if f != 4 {
			s.Bytes[x] = true
			continue
		}
		lut, err := ctx.TempVGPRs(4)
		if err != nil {
			return nil, fmt.Errorf("%s at %#x: %w", in.Name(), in.PC, err)
		}
		copy(s.LUT[x][:], lut)
		s.FP4[x] = true
	}
	if s.FP4[0] || s.FP4[1] {
		t, err := ctx.TempVGPRs(5)
		if err != nil {
			return nil, fmt.Errorf("%s at %#x: %w", in.Name(), in.PC, err)
		}
		s.Extra[0], s.Extra[1], s.M80, s.SelI[0], s.SelI[1] = t[0], t[1], t[2], t[3], t[4]
	}
	// A or B in AGPRs: copy the operand to scratch VGPRs first (the
	// element decode is VALU code) and point the MFMA words at the copy.
	pre, w3, err := scaleMFMAFromAGPRs(ctx, w[2], w[3])
	if err != nil {
		return nil, fmt.Errorf("%s at %#x: %w", in.Name(), in.PC, err)
	}
	code, err := ScaleMFMACode(w[0], w[1], w[2], w3, m.op, m.cd, s)
	if err != nil {
		return nil, fmt.Errorf("%s at %#x: %w", in.Name(), in.PC, err)
	}
	return append(pre, code...), nil
}

// scaleMFMAFromAGPRs returns code copying each AGPR operand (A: acc bit
// 27 of the second MFMA word, B: bit 28) to scratch VGPRs, and the second
// word rewritten to read the copies.
func scaleMFMAFromAGPRs(ctx Context, w2, w3 uint32) ([]byte, uint32, error) {
	if w3>>27&3 == 0 {
		return nil, w3, nil
	}
	cbsz, blgp := w2>>8&7, w3>>29
	if cbsz > 4 || blgp > 4 {
		return nil, 0, fmt.Errorf("cbsz %d / blgp %d select no format", cbsz, blgp)
	}
	// Earlier MFMA writes of the AGPRs must land before they are read.
	ws := []uint32{sNop(7), sNop(7), sNop(7)}
	for x, f := range []uint32{cbsz, blgp} {
		if w3>>(27+x)&1 == 0 {
			continue
		}
		shift := 9 * x
		code := w3 >> shift & 0x1ff
		if code < srcVGPR {
			return nil, 0, fmt.Errorf("constant AGPR operand %d", code)
		}
		n := scaleFormats[f].bits()
		if int(code-srcVGPR)+n > 256 {
			return nil, 0, fmt.Errorf("operand registers run past a255")
		}
		r, err := ctx.TempVGPRRange(n, 2)
		if err != nil {
			return nil, 0, err
		}
		for i := 0; i < n; i++ {
			a := accRead(r+uint16(i), uint16(code-srcVGPR)+uint16(i))
			ws = append(ws, a[0], a[1])
		}
		w3 = w3&^(0x1ff<<shift|1<<(27+x)) | (srcVGPR+uint32(r))<<shift
	}
	return appendWords(nil, ws...), w3, nil
}
