package rules

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

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
//
// The constants (1/4, then the mask 0x7f7f7f7f) live in one scratch VGPR
// when one is free, so the VALU operations need no literal. Two facts
// about the block around the MFMA shrink the expansion further
// (FP8MFMAShapeAt, asked by the pair with its pair.Site):
//
//   - chains: consecutive FP8 MFMAs of a block accumulating into the same
//     registers, with nothing between naming them or writing EXEC, keep
//     the accumulator scaled by 1/4 from the first to the last (step 2 on
//     entry, step 4 on exit only);
//   - operands whose value nothing but FP8 MFMA A/B operands reads in the
//     kernel scope (fp8ScopeReads) are cleared in the guest registers
//     themselves (for those readers 0x80 and 0x00 are both zero), once
//     per definition in a block: by the first FP8 MFMA after the last
//     write (fp8PlanBlock), ahead of the later MFMAs reading them, which
//     then clear nothing. A VALU write of an MFMA's SrcA/B registers
//     after it issued is no hazard on gfx942 (only SrcC reads are).

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

// fp8MFMAPrefix starts the name of every fp8MFMA operation
// (TestFP8MFMAPrefix).
const fp8MFMAPrefix = "v_mfma_f32_"

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
	op3AndOrB32  = 0x201 // VOP3 v_and_or_b32
	srcF4        = 246   // inline 4.0
	f32Quarter   = 0x3e800000
)

func accRead(vdst, agpr uint16) [2]uint32 {
	return [2]uint32{0xd3800000 | op3PAccRead<<16 | 0x4000 | uint32(vdst&0xff), 0x18000000 | uint32(srcVGPR+agpr)}
}

func accWrite(agpr, vsrc uint16) [2]uint32 {
	return [2]uint32{0xd3800000 | op3PAccWrite<<16 | 0x4000 | uint32(agpr&0xff), 0x18000000 | uint32(srcVGPR+vsrc)}
}

func sNop(n uint32) uint32 { return 0xbf800000 | n&0xf }

// xdlVALUWaits returns the s_nops (at most 8 wait states each) that a VALU
// read or write of the D of a gfx942 FP8 MFMA with cd result registers
// needs after it issues: an N-pass XDL write needs N+3 wait states before
// VALU touches its registers (the GFX940 XDL write -> VALU read/write
// rule), and the gfx942 FP8 MFMAs take 4 passes for 16x16x32 (cd 4) and 8
// for 32x32x16 (cd 16): 16 and 32 cycles, 16384 and 32768 operations at
// the CDNA3 rate of 1024 FP8 operations per SIMD cycle.
func xdlVALUWaits(cd int) []uint32 {
	passes := 4
	if cd > 4 {
		passes = 8
	}
	var w []uint32
	for n := passes + 3; n > 0; n -= 8 {
		w = append(w, sNop(uint32(min(n, 8)-1)))
	}
	return w
}

// FP8MFMAForm shapes one FP8 MFMA expansion.
type FP8MFMAForm struct {
	// K is a scratch VGPR that holds the expansion's constants (1/4, then
	// the byte mask 0x7f7f7f7f) so that its VALU operations need no
	// literal, or -1 to encode the constants as literals.
	K int
	// ScaledIn says C is already in the scaled domain: it is the D of the
	// previous FP8 MFMA of a chain, left unscaled by 4 (the 1/4 scaling
	// is skipped; C must then be D).
	ScaledIn bool
	// ScaledOut leaves D in the scaled domain for the next FP8 MFMA of a
	// chain (the scaling by 4 and the wait for it are skipped).
	ScaledOut bool
	// A and B say how each operand's -0 bytes are cleared.
	A, B OperandMode
	// Spare, when HasSpare, is a second scratch VGPR: the -0 clearing of
	// a register then takes three VALU operations instead of four.
	Spare    uint16
	HasSpare bool
	// TailFree drops the wait after the scaling of D by 4: the next two
	// instructions do not name D (see FP8MFMAShape.TailFree).
	TailFree bool
	// Ahead are registers this expansion clears in place, before its
	// own, for later FP8 MFMAs of the block (FP8MFMAShape.Ahead).
	Ahead []FP8Regs
	// DScratch says D may be written before the host MFMA writes it
	// (FP8MFMAShape.DScratch): register pairs are then cleared with D
	// as scratch (fp8PairScratch).
	DScratch bool
}

// FP8Regs are consecutive VGPRs or AGPRs.
type FP8Regs struct {
	AGPR bool   // AGPRs, else VGPRs
	Reg  uint16 // the first register
	N    uint8  // how many
}

// OperandMode says how an FP8 MFMA expansion clears an operand's -0 bytes.
type OperandMode uint8

// Operand modes.
const (
	// Copy clears them in scratch copies the host MFMA reads (the guest
	// registers keep their bytes).
	Copy OperandMode = iota
	// InPlace clears them in the guest registers, which only FP8 MFMA A/B
	// operands read (for them 0x80 and 0x00 are both zero).
	InPlace
	// Clean skips the clearing: an earlier FP8 MFMA of the block cleared
	// the same registers in place and nothing wrote them since.
	Clean
)

// FP8MFMACode returns the expansion of the FP8 MFMA (w0, w1) with C/D of
// cd registers, using scratch pairs ta and tb (even) and scratch u, with
// literal constants and no chaining.
func FP8MFMACode(w0, w1 uint32, hostOp uint32, cd, parts int, ta, tb, u uint16) ([]byte, error) {
	return FP8MFMAFormCode(w0, w1, hostOp, cd, parts, ta, tb, u, FP8MFMAForm{K: -1})
}

// vmovLit encodes v_mov_b32 vdst, lit (VOP1 with a literal).
func vmovLit(vdst uint16, lit uint32) []uint32 {
	return []uint32{0x7e000000 | uint32(vdst&0xff)<<17 | 1<<9 | srcLit, lit}
}

// FP8MFMAFormCode is FP8MFMACode in the given form.
func FP8MFMAFormCode(w0, w1 uint32, hostOp uint32, cd, parts int, ta, tb, u uint16, form FP8MFMAForm) ([]byte, error) {
	code, _, err := fp8MFMAFormCode(w0, w1, hostOp, cd, parts, ta, tb, u, form)
	return code, err
}

// fp8MFMAFormCode is FP8MFMAFormCode that also returns the length in
// bytes of the expansion's head: the scaling of C, the constant and the
// in-place -0 clearing (ahead and own operands) before the first copy,
// wait or host MFMA; straight-line VALU code that a subroutine body may
// run as a separate call (Shared.Head).
func fp8MFMAFormCode(w0, w1 uint32, hostOp uint32, cd, parts int, ta, tb, u uint16, form FP8MFMAForm) ([]byte, int, error) {
	code, head, err := fp8MFMAFormWords(w0, w1, hostOp, cd, parts, ta, tb, u, form)
	if err != nil {
		return nil, 0, err
	}
	return appendWords(nil, code...), 4 * head, nil
}

// fp8MFMAFormWords returns the words of the expansion and how many of
// them are its head (fp8MFMAFormCode).
func fp8MFMAFormWords(w0, w1 uint32, hostOp uint32, cd, parts int, ta, tb, u uint16, form FP8MFMAForm) ([]uint32, int, error) {
	if cbsz, abid, blgp := w0>>8&7, w0>>11&0xf, w1>>29; cbsz|abid|blgp != 0 {
		return nil, 0, fmt.Errorf("cbsz/abid/blgp (%d/%d/%d: broadcast, or non-FP8 F8F6F4 formats) are not supported", cbsz, abid, blgp)
	}
	if form.K > 255 {
		return nil, 0, fmt.Errorf("constant register v%d out of range", form.K)
	}
	accCD := w0>>15&1 != 0
	vdst := uint16(w0 & 0xff)
	src0, src1, src2 := w1&0x1ff, w1>>9&0x1ff, w1>>18&0x1ff
	if src0 < srcVGPR || src1 < srcVGPR {
		return nil, 0, fmt.Errorf("constant A or B operand")
	}
	if form.ScaledIn && src2 != srcVGPR+uint32(vdst) {
		return nil, 0, fmt.Errorf("a chained MFMA must accumulate into its own D")
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
				return nil, 0, fmt.Errorf("D overlaps a later part's A/B registers")
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
				return nil, 0, fmt.Errorf("D overlaps the A/B registers")
			}
		}
	}
	k := uint16(form.K)
	// quarter returns the source code and literal of the constant 1/4.
	quarter := func() (uint16, uint32) {
		if form.K < 0 {
			return srcLit, f32Quarter
		}
		return srcVGPR + k, 0
	}
	var w []uint32
	// 2. Accumulator scaled by 1/4 into D (once).
	c := src2
	switch {
	case c == srcZero:
	case form.ScaledIn:
	case c >= srcVGPR:
		cr := uint16(c - srcVGPR)
		if cr != vdst && int(cr) < int(vdst)+cd && int(vdst) < int(cr)+cd {
			return nil, 0, fmt.Errorf("C and D overlap without being equal")
		}
		if form.K >= 0 {
			w = append(w, vmovLit(k, f32Quarter)...)
		}
		q, lit := quarter()
		for i := uint16(0); i < uint16(cd); i++ {
			if accCD {
				r := accRead(u, cr+i)
				w = append(w, r[0], r[1])
				w = append(w, vop2(op2MulF32, u, q, u, lit)...)
				a := accWrite(vdst+i, u)
				w = append(w, a[0], a[1])
			} else {
				w = append(w, vop2(op2MulF32, vdst+i, q, cr+i, lit)...)
			}
		}
		c = srcVGPR + uint32(vdst)
	default:
		return nil, 0, fmt.Errorf("accumulator operand code %d is not supported", c)
	}
	// mask is the source code and literal of the byte mask 0x7f7f7f7f.
	mask, maskLit := uint16(srcLit), uint32(0x7f7f7f7f)
	pairs := fp8PairScratch(w1, vdst, cd, accCD, parts, form)
	switch {
	case pairs:
		// D's first pair holds the mask for the 64-bit sums; its second
		// register is a copy of the first (v_mov_b32 without a literal:
		// 4 bytes instead of 8; a VALU write read by the next VALU
		// instruction needs no wait).
		w = append(w, vmovLit(vdst, 0x7f7f7f7f)...)
		w = append(w, vop1(op1MovB32VOP1, vdst+1, srcVGPR+vdst))
		mask, maskLit = srcVGPR+vdst, 0
	case form.K >= 0 && (form.A != Clean || form.B != Clean || len(form.Ahead) > 0):
		w = append(w, vmovLit(k, 0x7f7f7f7f)...)
		mask, maskLit = srcVGPR+k, 0
	}
	// clear appends the -0 clearing of register y (a VGPR) reading x (a
	// source code). Per byte b, t = b & 0x7f and s = t + 0x7f (no carry
	// leaves the byte) has bit 7 set exactly when t != 0, so
	// (b & s) | t keeps b except for the sign bit of 0x80: three
	// operations with the spare register, else b & (s | 0x7f) in four.
	clear := func(y uint16, xr uint16) {
		w = append(w, vop2(op2AndB32, u, mask, xr-srcVGPR, maskLit)...)
		if form.HasSpare {
			w = append(w, vop2(op2AddU32, form.Spare, mask, u, maskLit)...)
			a := vop3(op3AndOrB32, y, xr, srcVGPR+form.Spare, srcVGPR+u)
			w = append(w, a[0], a[1])
			return
		}
		w = append(w, vop2(op2AddU32, u, mask, u, maskLit)...)
		w = append(w, vop2(op2OrB32, u, mask, u, maskLit)...)
		w = append(w, vop2(op2AndB32, y, xr, u, 0)...)
	}
	ops := []struct {
		code uint32
		acc  bool
		dst  uint16
		mode OperandMode
	}{{src0, w1>>27&1 != 0, ta, form.A}, {src1, w1>>28&1 != 0, tb, form.B}}
	// clearReg clears register x (an AGPR through the scratch pair ta)
	// in place.
	clearReg := func(x uint16, acc bool) {
		if !acc {
			clear(x, srcVGPR+x)
			return
		}
		r := accRead(ta, x)
		w = append(w, r[0], r[1])
		clear(ta, srcVGPR+ta)
		a := accWrite(x, ta)
		w = append(w, a[0], a[1])
	}
	// clearPair clears the even register pair x, x+1 in place with one
	// 64-bit sum (v_lshl_add_u64 by 0: no carry leaves a byte) into D's
	// second pair: five VALU operations instead of six. An AGPR pair goes
	// through the scratch pair ta, its t through tb.
	clearPair := func(x uint16, acc bool) {
		y, t := x, ta
		if acc {
			r0, r1 := accRead(ta, x), accRead(ta+1, x+1)
			w = append(w, r0[0], r0[1], r1[0], r1[1])
			y, t = ta, tb
		}
		w = append(w, vop2(op2AndB32, t, mask, y, 0)...)
		w = append(w, vop2(op2AndB32, t+1, mask, y+1, 0)...)
		a := vop3(op3LshlAddU64, vdst+2, srcVGPR+t, inlineInt(0), srcVGPR+vdst)
		w = append(w, a[0], a[1])
		for i := uint16(0); i < 2; i++ {
			a := vop3(op3AndOrB32, y+i, srcVGPR+y+i, srcVGPR+vdst+2+i, srcVGPR+t+i)
			w = append(w, a[0], a[1])
		}
		if acc {
			a0, a1 := accWrite(x, ta), accWrite(x+1, ta+1)
			w = append(w, a0[0], a0[1], a1[0], a1[1])
		}
	}
	// clearRun clears n registers from x in place, by pairs when D is
	// the pairs' scratch and x is even.
	clearRun := func(x uint16, n int, acc bool) {
		i := 0
		if pairs && x%2 == 0 {
			for ; i+1 < n; i += 2 {
				clearPair(x+uint16(i), acc)
			}
		}
		for ; i < n; i++ {
			clearReg(x+uint16(i), acc)
		}
	}
	// 0. Registers of later MFMAs cleared ahead of them (first, so that
	// this expansion's own MFMA issues, or its s_nop, separate them from
	// a reader right after it).
	for _, g := range form.Ahead {
		if int(g.Reg)+int(g.N) > 256 {
			return nil, 0, fmt.Errorf("registers cleared ahead run past 255")
		}
		if g.AGPR == accCD && int(g.Reg) < int(vdst)+cd && int(vdst) < int(g.Reg)+int(g.N) {
			return nil, 0, fmt.Errorf("registers cleared ahead overlap D")
		}
		clearRun(g.Reg, int(g.N), g.AGPR)
	}
	// 1a. Operands cleared in place, all parts at once (an AGPR goes
	// through the scratch pair ta).
	for _, op := range ops {
		if op.mode != InPlace {
			continue
		}
		if op.code-srcVGPR+uint32(2*parts) > 256 {
			return nil, 0, fmt.Errorf("operand registers run past 255")
		}
		clearRun(uint16(op.code-srcVGPR), 2*parts, op.acc)
	}
	// The wait before the first host MFMA separates it from the VALU
	// writes of this expansion that it reads (the GFX940 rule in LLVM's
	// GCNHazardRecognizer::checkMAIHazards90A: a VALU write of a VGPR or
	// AGPR read by an MFMA as SrcA/B/C needs 2 wait states; each issued
	// instruction is one). It is needed when C is scaled or an operand
	// is copied (the VALU writes come just before), and for in-place
	// clearing of a single-part MFMA. A four-part MFMA whose operands
	// are cleared in place or clean needs none: the last registers
	// cleared are those of part 3, which three MFMA issues separate
	// from their reader, and the registers of the earlier parts were
	// cleared before them. With clean operands and C zero or already
	// scaled, the expansion writes nothing the MFMA reads: the waits
	// before it are the guest's own (the same rules hold on gfx950, and
	// the translation never shortens the code between the guest's
	// instructions).
	// Registers cleared ahead are written before this expansion's own
	// and read by a later MFMA, at the earliest right after this one: a
	// four-part expansion's MFMA issues are enough, a single part waits.
	head := len(w)
	leadWait := form.A == Copy || form.B == Copy || (src2 != srcZero && !form.ScaledIn) ||
		(parts == 1 && (form.A == InPlace || form.B == InPlace || len(form.Ahead) > 0))
	for p := 0; p < parts; p++ {
		// 1b. Sanitized copies of this part's A and B register pairs.
		for _, op := range ops {
			if op.mode != Copy {
				continue
			}
			for i := uint16(0); i < 2; i++ {
				x := uint16(op.code-srcVGPR) + uint16(2*p) + i
				if x > 255 {
					return nil, 0, fmt.Errorf("operand registers run past 255")
				}
				y := op.dst + i
				xr := srcVGPR + x
				if op.acc {
					r := accRead(y, x)
					w = append(w, r[0], r[1])
					xr = srcVGPR + y
				}
				clear(y, xr)
			}
		}
		// 3. The gfx942 MFMA on the sanitized operands (VGPRs: acc bits
		// clear), chained through D after the first part (leadWait
		// above says when the first waits). A later part needs no
		// s_nop unless it copied an operand just before: it reads as C
		// exactly the D the previous part's MFMA wrote (a full-register
		// SrcC dependency, which needs no wait states on gfx942 for these
		// 8- and 16-pass XDL MFMAs), and its A and B were written before
		// the first part's MFMA.
		if (p == 0 && leadWait) || form.A == Copy || form.B == Copy {
			w = append(w, sNop(4))
		}
		nw0 := w0&^(0x7f<<16) | hostOp<<16
		nw1 := w1&^0x7ffffff | c<<18
		for n, op := range ops {
			if op.mode == Copy {
				nw1 = nw1&^(1<<(27+n)) | uint32(srcVGPR+op.dst)<<(9*n)
			} else {
				nw1 |= (op.code + uint32(2*p)) << (9 * n)
			}
		}
		w = append(w, nw0, nw1)
		c = srcVGPR + uint32(vdst)
	}
	if form.ScaledOut {
		// D stays scaled; the next reader of D is the chain's next MFMA.
		return w, head, nil
	}
	w = append(w, fp8ScaleOut(vdst, cd, accCD, u, form.TailFree)...)
	return w, head, nil
}

// op3LshlAddU64 is VOP3 v_lshl_add_u64 (gfx940: D = (S0 << S1) + S2, 64
// bits).
const op3LshlAddU64 = 0x208

// fp8PairScratch reports whether the expansion of the FP8 MFMA (w1, D =
// vdst of cd VGPRs) clears its register pairs with D as scratch: the
// shape allows it (no MFMA write of D may still be in flight, so a VALU
// write of D needs no wait: FP8MFMAShape.DScratch); C is an inline zero,
// so D's value is dead until the host MFMA writes it; D is
// even-aligned VGPRs that neither A nor B overlaps; no operand is copied
// after a host MFMA has written D (a four-part MFMA with a copied
// operand); and at least two even pairs are cleared in place, so that
// the saved operations pay for the second mask register.
func fp8PairScratch(w1 uint32, vdst uint16, cd int, accCD bool, parts int, form FP8MFMAForm) bool {
	if !form.DScratch || w1>>18&0x1ff != srcZero || accCD || cd < 4 || vdst%2 != 0 || int(vdst)+cd > 256 || form.ScaledIn {
		return false
	}
	if parts > 1 && (form.A == Copy || form.B == Copy) {
		return false
	}
	n := 0
	for k, mode := range []OperandMode{form.A, form.B} {
		code, acc := w1>>(9*k)&0x1ff, w1>>(27+k)&1 != 0
		if code < srcVGPR {
			return false
		}
		r := int(code - srcVGPR)
		if !acc && r < int(vdst)+cd && int(vdst) < r+2*parts {
			return false
		}
		if mode == InPlace && r%2 == 0 {
			n += parts
		}
	}
	for _, g := range form.Ahead {
		if g.Reg%2 == 0 {
			n += int(g.N) / 2
		}
	}
	return n >= 2
}

// fp8ScaleOut returns the end of an FP8 MFMA expansion that does not
// keep D scaled: the wait for the last host MFMA's result (an XDL write
// of D read and written by VALU), D scaled by 4 (an AGPR D through the
// scratch u) and, unless tailFree, the wait after it. It names no
// register but D and u, and is straight-line code without branches, so
// bodies ending in equal copies of it may share one (Shared.Tail).
func fp8ScaleOut(vdst uint16, cd int, accCD bool, u uint16, tailFree bool) []uint32 {
	w := xdlVALUWaits(cd)
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
	// A VALU write of D read by a following MFMA (as SrcA/B/C) or DPP
	// operation needs 2 wait states (GFX940 rules in LLVM's
	// GCNHazardRecognizer: checkMAIHazards90A, and the DPP VGPR rule);
	// none when the next two instructions do not name D.
	if !tailFree {
		w = append(w, sNop(4))
	}
	return w
}

func emitFP8MFMA(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	return emitFP8MFMAForm(ctx, in, raw, FP8MFMAShape{})
}

func emitFP8MFMAForm(ctx Context, in *isa.Inst, raw []byte, sh FP8MFMAShape) ([]byte, error) {
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
	form := FP8MFMAForm{K: -1, ScaledIn: sh.ScaledIn, ScaledOut: sh.ScaledOut, A: sh.A, B: sh.B, TailFree: sh.TailFree, Ahead: sh.Ahead, DScratch: sh.DScratch}
	u, err := ctx.TempVGPRs(3)
	if err == nil {
		form.K, form.Spare, form.HasSpare = int(u[1]), u[2], true
	} else if u, err = ctx.TempVGPRs(2); err == nil {
		form.K = int(u[1])
	} else if u, err = ctx.TempVGPRs(1); err != nil {
		return nil, err
	}
	code, err := FP8MFMAFormCode(w[0], w[1], m.op, m.cd, m.parts, ta, tb, u[0], form)
	if err != nil {
		return nil, fmt.Errorf("%s at %#x: %w", in.Name(), in.PC, err)
	}
	return code, nil
}

// FP8MFMARuleName is the name of the FP8 MFMA rule.
const FP8MFMARuleName = "mfma-fp8-ocp"

// FP8MFMAShape is what the block around an FP8 MFMA allows its expansion
// to skip: the accumulator scalings inside a chain, and the -0 clearing of
// operands only FP8 MFMAs read.
type FP8MFMAShape struct {
	ScaledIn, ScaledOut bool
	A, B                OperandMode
	// TailFree says the two instructions after the MFMA are in its block
	// and name none of D's registers: the wait after the VALU scaling of
	// D (for an MFMA or DPP reader of D) is not needed.
	TailFree bool
	// Ahead are A/B registers of later FP8 MFMAs of the block that this
	// expansion clears in place (they are Clean there).
	Ahead []FP8Regs
	// DScratch says no MFMA write of D's registers can still be pending
	// at the MFMA (fp8DScratchAt), so that its expansion may use a dead
	// D (C zero) as scratch without a wait for such a write.
	DScratch bool
}

// fp8Shaped are the rule's variants by shape (index 0 is unused: the
// registered rule).
var fp8Shaped [144]*Rule

func (sh FP8MFMAShape) index() int {
	i := int(sh.A)*3 + int(sh.B)
	if sh.ScaledIn {
		i += 9
	}
	if sh.ScaledOut {
		i += 18
	}
	if sh.TailFree {
		i += 36
	}
	if sh.DScratch {
		i += 72
	}
	return i
}

func init() {
	base := registry[Pair{isa.GFX950, isa.GFX942}]["v_mfma_f32_16x16x32_fp8_fp8"]
	base.Shared = fp8SharedForm(FP8MFMAShape{})
	fp8Shaped[0] = base
	for i := 1; i < len(fp8Shaped); i++ {
		sh := FP8MFMAShape{ScaledIn: i/9%2 != 0, ScaledOut: i/18%2 != 0, TailFree: i/36%2 != 0, DScratch: i/72 != 0, A: OperandMode(i % 9 / 3), B: OperandMode(i % 3)}
		if sh.index() != i {
			panic("rules: FP8 MFMA shape index")
		}
		r := *base
		r.Shared = fp8SharedForm(sh)
		r.Emit = func(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
			return emitFP8MFMAForm(ctx, in, raw, sh)
		}
		fp8Shaped[i] = &r
	}
}

// FP8MFMARule returns the FP8 MFMA rule in the given shape (the zero shape
// is the registered rule).
func FP8MFMARule(sh FP8MFMAShape) *Rule {
	if sh.A > Clean || sh.B > Clean {
		return fp8Shaped[0]
	}
	if len(sh.Ahead) == 0 {
		return fp8Shaped[sh.index()]
	}
	key := sh.key()
	fp8AheadRules.Lock()
	defer fp8AheadRules.Unlock()
	if r, ok := fp8AheadRules.m[key]; ok {
		return r
	}
	r := *fp8Shaped[0]
	sh.Ahead = append([]FP8Regs(nil), sh.Ahead...)
	r.Shared = fp8SharedForm(sh)
	r.Emit = func(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
		return emitFP8MFMAForm(ctx, in, raw, sh)
	}
	if fp8AheadRules.m == nil {
		fp8AheadRules.m = map[string]*Rule{}
	}
	fp8AheadRules.m[key] = &r
	return &r
}

// fp8AheadRules are the rule's variants with registers cleared ahead, by
// shape key (one rule per shape, so that equal shapes share plans and
// bodies).
var fp8AheadRules struct {
	sync.Mutex
	m map[string]*Rule
}

// key names the shape: its index and the registers cleared ahead.
func (sh FP8MFMAShape) key() string {
	b := make([]byte, 0, 4+12*len(sh.Ahead))
	b = strconv.AppendInt(b, int64(sh.index()), 10)
	for _, g := range sh.Ahead {
		f := byte('v')
		if g.AGPR {
			f = 'a'
		}
		b = append(b, '/', f)
		b = strconv.AppendUint(b, uint64(g.Reg), 10)
		b = append(b, '+')
		b = strconv.AppendUint(b, uint64(g.N), 10)
	}
	return string(b)
}

// FP8MFMAShapeAt returns the shape of the FP8 MFMA block[i]: its chain
// links (FP8MFMAChain) and, when scope is given (the kernel scope's
// blocks and edges; the result is kept in memo), the
// clearing of its operands whose registers no other instruction of the
// scope reads (fp8PlanBlock): each is cleared once per definition, by the
// first FP8 MFMA of the block that may (Ahead of it), and Clean at the
// MFMAs after it.
func FP8MFMAShapeAt(block []*isa.Inst, i int, memo map[string]any, scope FP8ScopeFunc) FP8MFMAShape {
	var sh FP8MFMAShape
	if i < 0 || i >= len(block) {
		return sh
	}
	var st *fp8ScopeState
	var links [][2]bool
	if memo == nil {
		links = fp8ChainLinks(block)
	} else {
		st = fp8StateOf(memo)
		links = st.links(block)
	}
	sh.ScaledIn, sh.ScaledOut = links[i][0], links[i][1]
	in := block[i]
	if !sh.ScaledOut && fp8Folded(block, i, memo, scope) {
		// Its fma readers take the factor 4 in their scale (fp8fold.go).
		sh.ScaledOut = true
	}
	sh.TailFree = !sh.ScaledOut && tailFree(block, i)
	sh.DScratch = fp8DScratchAt(block, i, links, st, scope)
	if !fp8Eligible(in) || scope == nil || st == nil {
		return sh
	}
	if st.reads == nil {
		st.reads = fp8ScopeReads(scope)
	}
	bs := st.block(block)
	if bs.plan == nil || len(bs.plan.modes) != len(block) {
		bs.plan = fp8PlanBlock(block, st.reads)
	}
	sh.A, sh.B = bs.plan.modes[i][0], bs.plan.modes[i][1]
	sh.Ahead = bs.plan.ahead[i]
	return sh
}

// fp8ScopeState is the FP8 MFMA rule's state for one kernel scope, kept
// in the pair.Site memo under fp8StateKey: what it knows of each block
// (by the block's first instruction), the scope's wait states at block
// entries (fp8ScopeWaits, once waitsDone; only for scopes with an empty
// block, else fp8Graph answers), its fp8ReadSet (nil until asked), its
// fp8Graph and the VGPRs dead at each block's end (the scale folds').
type fp8ScopeState struct {
	blocks    map[*isa.Inst]*fp8BlockState
	waitsDone bool
	reads     *fp8ReadSet
	// graph is the scope's fp8Graph (nil until asked).
	graph *fp8Graph
	// deadExit is, per graph block, the VGPRs dead at its end
	// (fp8DeadAfter; nil until asked).
	deadExit []fp8VSet
}

// fp8BlockState is what fp8ScopeState knows of one block: its chain
// links (fp8ChainLinks; nil until asked), its wait states at entry
// (fp8ScopeWaits; nil: none computed), its plan (fp8PlanBlock; nil
// until asked) and its scale folds (fp8FoldBlock; nil until asked).
type fp8BlockState struct {
	links [][2]bool
	waits *fp8Waits
	plan  *fp8BlockPlan
	fold  *fp8FoldPlan
}

// fp8StateKey is the pair.Site memo key of fp8ScopeState.
const fp8StateKey = "rules.fp8-state"

// fp8StateOf returns memo's fp8ScopeState, adding an empty one.
func fp8StateOf(memo map[string]any) *fp8ScopeState {
	st, _ := memo[fp8StateKey].(*fp8ScopeState)
	if st == nil {
		st = &fp8ScopeState{blocks: map[*isa.Inst]*fp8BlockState{}}
		memo[fp8StateKey] = st
	}
	return st
}

// block returns the state of block (not empty), adding an empty one.
func (st *fp8ScopeState) block(block []*isa.Inst) *fp8BlockState {
	bs := st.blocks[block[0]]
	if bs == nil {
		bs = &fp8BlockState{}
		st.blocks[block[0]] = bs
	}
	return bs
}

// links returns the chain links of block (not empty), computing them on
// first use.
func (st *fp8ScopeState) links(block []*isa.Inst) [][2]bool {
	bs := st.block(block)
	if len(bs.links) != len(block) {
		bs.links = fp8ChainLinks(block)
	}
	return bs.links
}

// fp8DScratchWindow is the number of instructions after which no MFMA
// write of a VGPR can be in flight for a VALU write of it (GFX940: an
// N-pass XDL or SMFMA write needs at most N+3 wait states, 19 for 16
// passes; each instruction is at least one).
const fp8DScratchWindow = 19

// fp8DScratchAt reports whether, at the FP8 MFMA block[i] with C zero and
// D in VGPRs, a VALU write of D needs no wait for an earlier MFMA write of
// D (FP8MFMAShape.DScratch) or an earlier MFMA read of it: on every path
// of the scope to it, each register of D was, after the last MFMA that may
// have written or read it, named by an instruction that is not an MFMA
// (which came after that MFMA's wait states) or as D by an FP8 MFMA the
// rule expands that scales D by 4 after its wait (not a chain link), or
// fp8DScratchWindow instructions passed.
// Entries of the scope count as just written; an undescribed instruction
// writes every register. Without a scope only the block before i counts.
// links are the block's chain links (fp8ChainLinks).
func fp8DScratchAt(block []*isa.Inst, i int, links [][2]bool, st *fp8ScopeState, scope FP8ScopeFunc) bool {
	acc, zeroC, ok := chainAcc(block[i])
	if !ok || !zeroC || acc.class != isa.VGPR || len(links) != len(block) {
		return false
	}
	open := uint32(1)<<uint(acc.n) - 1 // registers of D whose last event is not found yet
	// A write more than fp8DScratchWindow instructions back needs no
	// wait, and from there on neither does an entry (i is at least the
	// window): the scan stops there.
	for k := i - 1; k >= max(0, i-fp8DScratchWindow) && open != 0; k-- {
		fail := false
		fp8WaitScan(block[k], links[k][1], func(r int, e fp8WaitEvent) {
			if r < acc.reg || r >= acc.reg+acc.n || open&(1<<uint(r-acc.reg)) == 0 {
				return
			}
			open &^= 1 << uint(r-acc.reg)
			if e == fp8WaitWrite && i-1-k < fp8DScratchWindow {
				fail = true
			}
		})
		if fail {
			return false
		}
	}
	if open == 0 || i >= fp8DScratchWindow {
		// The block's entry is not asked (its wait states are computed
		// only when some use needs them).
		return true
	}
	if scope == nil || st == nil {
		return false // the block start as a scope entry: everything just written
	}
	g := st.graphOf(scope)
	if g.empty {
		// Paths through empty blocks do not shorten: the whole scope's
		// fixpoint instead.
		var in *fp8Waits
		if !st.waitsDone {
			fp8ScopeWaits(scope, st)
			st.waitsDone = true
		}
		in = st.block(block).waits
		if in == nil {
			in = &fp8Waits{} // the block start as a scope entry
		}
		for r := acc.reg; r < acc.reg+acc.n; r++ {
			if open&(1<<uint(r-acc.reg)) != 0 && int(in[r])+i < fp8DScratchWindow {
				return false
			}
		}
		return true
	}
	b, ok := g.index[block[0]]
	if !ok {
		return false // not a block of the scope: its start as an entry
	}
	return g.recent(st, b, acc.reg, open, fp8DScratchWindow-i, nil) == 0
}

// fp8Graph is a kernel scope's blocks for the wait states at block
// entries: what fp8ScopeWaits computes for the whole scope, asked for the
// registers and distance one MFMA needs (fp8Graph.recent).
type fp8Graph struct {
	blocks [][]*isa.Inst
	succs  [][]int // as scopeBlocks gives them
	preds  [][]int
	// start marks the blocks whose entry counts as just written (scope
	// entries, blocks with an edge out of the listed ones, blocks without
	// predecessors).
	start []bool
	// index is each block's index by its first instruction.
	index map[*isa.Inst]int
	// empty says a block has no instruction.
	empty bool
}

// graphOf returns the scope's fp8Graph, made on first use.
func (st *fp8ScopeState) graphOf(scope FP8ScopeFunc) *fp8Graph {
	if st.graph != nil {
		return st.graph
	}
	blocks, succs, entry := scopeBlocks(scope)
	n := len(blocks)
	g := &fp8Graph{blocks: blocks, succs: succs, preds: make([][]int, n), index: make(map[*isa.Inst]int, n)}
	for b, ss := range succs {
		for _, t := range ss {
			if t < 0 || t >= n {
				entry[b] = true
				continue
			}
			g.preds[t] = append(g.preds[t], b)
		}
	}
	g.start = entry
	for b, blk := range blocks {
		g.start[b] = entry[b] || len(g.preds[b]) == 0
		if len(blk) == 0 {
			g.empty = true
			continue
		}
		g.index[blk[0]] = b
	}
	st.graph = g
	return g
}

// recent returns the registers of mask (bit k: VGPR reg+k) for which
// some path of the scope reaches the entry of block b fewer than budget
// (1 to fp8DScratchWindow) instructions after a possible MFMA write, or
// from a scope entry (where everything counts as just written) in fewer.
// That is fp8ScopeWaits' answer below budget: its fixpoint is the fewest
// instructions over the paths, capped at fp8DScratchWindow. Of each
// predecessor only the last budget instructions are read: a register's
// last event there decides it (a write is recent, an access is not); one
// without an event there is recent only through a predecessor's
// predecessors when the whole block was read (else its last write, if
// any, is at least budget back). Each block is at least one instruction
// (g.empty false), so the search ends; seen memoizes (block, budget)
// answers below the first call.
func (g *fp8Graph) recent(st *fp8ScopeState, b, reg int, mask uint32, budget int, seen map[[2]int]fp8Seen) uint32 {
	if g.start[b] {
		return mask
	}
	if seen != nil {
		if got, ok := seen[[2]int{b, budget}]; ok && mask&^got.mask == 0 {
			return got.found & mask
		}
	}
	var found uint32
	for _, p := range g.preds[b] {
		blk := g.blocks[p]
		var links [][2]bool
		left := mask &^ found // registers whose last event in blk is not found yet
		for k := len(blk) - 1; k >= max(0, len(blk)-budget) && left != 0; k-- {
			x := blk[k]
			linked := false
			if _, _, ok := chainAcc(x); ok {
				if links == nil {
					links = st.links(blk)
				}
				linked = links[k][1]
			}
			var write, access uint32
			fp8WaitScan(x, linked, func(r int, e fp8WaitEvent) {
				if r < reg || r >= reg+32 {
					return
				}
				if bit := uint32(1) << uint(r-reg); e == fp8WaitWrite {
					write |= bit
				} else {
					access |= bit
				}
			})
			// Within one instruction a write is the last event.
			found |= left & write
			left &^= write | access
		}
		if rest := budget - len(blk); left != 0 && rest > 0 {
			if seen == nil {
				seen = map[[2]int]fp8Seen{}
			}
			found |= g.recent(st, p, reg, left, rest, seen)
		}
		if found == mask {
			break
		}
	}
	if seen != nil {
		seen[[2]int{b, budget}] = fp8Seen{mask, found}
	}
	return found
}

// fp8Seen is a recent answer: the registers asked and those found.
type fp8Seen struct{ mask, found uint32 }

// fp8Waits are, for each VGPR, the instructions since an MFMA may have
// written it, up to fp8DScratchWindow (none pending).
type fp8Waits [256]uint8

// fp8WaitEvent is what an instruction does to a VGPR's pending MFMA write.
type fp8WaitEvent uint8

const (
	// fp8WaitAccess resolves it: a non-MFMA instruction names the register
	// (or an FP8 MFMA the rule expands scales its D by 4 after the wait).
	fp8WaitAccess fp8WaitEvent = iota + 1
	// fp8WaitWrite starts one: an MFMA writes or reads the register (or
	// an undescribed instruction may write it).
	fp8WaitWrite
)

// fp8WaitScan calls fn for each VGPR event of x (an undescribed x writes
// all 256); linked says x is an FP8 MFMA chain link (it leaves D scaled,
// so its D write stays pending). A register may be reported twice, a
// write last.
func fp8WaitScan(x *isa.Inst, linked bool, fn func(r int, e fp8WaitEvent)) {
	if x.Info == nil {
		for r := 0; r < 256; r++ {
			fn(r, fp8WaitWrite)
		}
		return
	}
	n := x.Name()
	mfma := strings.HasPrefix(n, "v_mfma") || strings.HasPrefix(n, "v_smfmac")
	scaledD := false
	if mfma {
		if _, _, fp8 := chainAcc(x); fp8 && !linked {
			scaledD = true
		}
	}
	wide := !x.Info.Targets.Has(isa.GFX942)
	var buf [8]isa.Operand // the writes, reported last
	writes := buf[:0]
	for j := range x.Operands {
		o := x.Operands[j]
		if o.Kind != isa.KindReg || o.Class != isa.VGPR {
			continue
		}
		if wide {
			o.Width = max(o.Width, 16)
		}
		e := fp8WaitAccess
		switch {
		case !mfma:
		case j == 0 && o.Role.Defines() && scaledD:
		default:
			// An MFMA's D, or a source: a VALU write after its read
			// needs wait states too (the GFX940 SrcC read -> VALU
			// write rule), so both count as a write.
			e = fp8WaitWrite
		}
		if e == fp8WaitWrite {
			writes = append(writes, o)
			continue
		}
		lo, hi := o.Regs()
		for r := lo; r <= hi && r < 256; r++ {
			fn(r, e)
		}
	}
	for _, o := range writes {
		lo, hi := o.Regs()
		for r := lo; r <= hi && r < 256; r++ {
			fn(r, fp8WaitWrite)
		}
	}
}

// scopeBlocks lists a scope's blocks, their successors (indexes into
// blocks) and whether each is an entry, in the order scope gives them.
func scopeBlocks(scope FP8ScopeFunc) (blocks [][]*isa.Inst, succs [][]int, entry []bool) {
	scope(func(b []*isa.Inst, ss []int, e bool) {
		blocks = append(blocks, b)
		succs = append(succs, ss)
		entry = append(entry, e)
	})
	return blocks, succs, entry
}

// fp8ScopeWaits computes fp8Waits at the entry of every block of a scope:
// the fewest instructions since a possible MFMA write over the paths
// from the scope's entries (where every register may have been written
// just before), by the block's first instruction. Only the registers of
// the D of zero-C FP8 MFMAs with VGPR D are tracked (the others stay
// 0). st holds the blocks' links (fp8ChainLinks) and gets those it
// lacks, and gets each block's fp8Waits (fp8BlockState.waits).
func fp8ScopeWaits(scope FP8ScopeFunc, st *fp8ScopeState) {
	blocks, succs, entry := scopeBlocks(scope)
	n := len(blocks)
	var tracked [256]bool
	var regs []int
	for _, blk := range blocks {
		for _, x := range blk {
			if acc, zeroC, ok := chainAcc(x); ok && zeroC && acc.class == isa.VGPR {
				for r := acc.reg; r < acc.reg+acc.n && r < 256; r++ {
					if !tracked[r] {
						tracked[r] = true
						regs = append(regs, r)
					}
				}
			}
		}
	}
	preds := make([][]int, n)
	for b, ss := range succs {
		for _, t := range ss {
			if t < 0 || t >= n {
				entry[b] = true
				continue
			}
			preds[t] = append(preds[t], b)
		}
	}
	// Each block's last event per tracked register: the waits it leaves
	// (a write at k: the instructions after it) or none.
	const none = fp8DScratchWindow + 1
	lasts := make([]fp8Waits, n)
	for b, blk := range blocks {
		l := &lasts[b]
		for _, r := range regs {
			l[r] = none
		}
		if len(blk) == 0 {
			continue
		}
		links := st.links(blk)
		for k, x := range blk {
			fp8WaitScan(x, links[k][1], func(r int, e fp8WaitEvent) {
				if !tracked[r] {
					return
				}
				if e == fp8WaitWrite {
					l[r] = uint8(min(len(blk)-1-k, fp8DScratchWindow))
				} else {
					l[r] = fp8DScratchWindow
				}
			})
		}
	}
	in := make([]fp8Waits, n)
	out := make([]fp8Waits, n)
	for b := range out {
		for _, r := range regs {
			out[b][r] = fp8DScratchWindow
		}
	}
	for changed := true; changed; {
		changed = false
		for b := 0; b < n; b++ {
			var k fp8Waits // an entry: everything just written
			if !entry[b] && len(preds[b]) > 0 {
				first := &out[preds[b][0]]
				for _, r := range regs {
					k[r] = first[r]
				}
				for _, p := range preds[b][1:] {
					for _, r := range regs {
						k[r] = min(k[r], out[p][r])
					}
				}
			}
			in[b] = k
			l := len(blocks[b])
			for _, r := range regs {
				o := lasts[b][r]
				if o == none {
					o = uint8(min(int(k[r])+l, fp8DScratchWindow))
				}
				if o != out[b][r] {
					out[b][r] = o
					changed = true
				}
			}
		}
	}
	for b := range blocks {
		if len(blocks[b]) > 0 {
			st.block(blocks[b]).waits = &in[b]
		}
	}
}

// fp8Eligible reports whether in is an FP8 MFMA the rule expands with the
// operand modes (FP8 formats, no broadcast).
func fp8Eligible(in *isa.Inst) bool {
	if len(in.Operands) != 4 || !strings.HasPrefix(in.Name(), fp8MFMAPrefix) {
		return false
	}
	_, ok := fp8MFMA[in.Name()]
	return ok && in.Mod.CBSZ|in.Mod.ABID|in.Mod.BLGP == 0 && len(in.Operands) == 4
}

// fp8BlockPlan is the -0 clearing of one block's FP8 MFMA operands: the
// mode of each MFMA's A and B, and the registers each clears ahead of
// later MFMAs.
type fp8BlockPlan struct {
	modes [][2]OperandMode
	ahead [][]FP8Regs
}

// fp8PlanBlock plans the clearing of the A and B operands of the FP8
// MFMAs of block whose registers nothing but FP8 MFMA A/B operands reads
// in the scope (not in rs; for those readers 0x80 and 0x00 are both
// zero). Walking the block, such an operand is
//
//   - Clean when each of its registers was cleared earlier in the block
//     and nothing wrote it since;
//   - cleared Ahead by the first FP8 MFMA (the anchor) after both its
//     last write in the block and the last instruction that waits for
//     memory (s_waitcnt: a load may still be writing it before), writes
//     EXEC, indexes VGPRs or is not described; Clean at the MFMA itself;
//   - cleared InPlace by the MFMA itself when it is its own anchor (an
//     AGPR only when a later MFMA of the block reads it again: else a
//     copy costs two moves less);
//
// and Copy otherwise. Writes end a register's clean state; EXEC writes,
// VGPR indexing and undescribed instructions end all.
func fp8PlanBlock(block []*isa.Inst, rs *fp8ReadSet) *fp8BlockPlan {
	pl := &fp8BlockPlan{modes: make([][2]OperandMode, len(block)), ahead: make([][]FP8Regs, len(block))}
	var cleared [2][256]bool
	var lastWrite [2][256]int // index+1 of the last writer in the block
	var anchors []int
	file := func(c isa.RegClass) int {
		if c == isa.AGPR {
			return 1
		}
		return 0
	}
	var p int
	// forget records that instruction p reads or writes y's registers
	// other than as an FP8 MFMA operand: they are no longer cleared and
	// p is their last writer. wide widens a gfx950-only instruction's
	// operand, whose decoded width may be narrower than what it touches.
	forget := func(y isa.Operand, wide bool) {
		if wide {
			y.Width = max(y.Width, 16)
		}
		f := file(y.Class)
		for r := int(y.Reg); r < int(y.Reg)+int(y.Width) && r < 256; r++ {
			cleared[f][r] = false
			lastWrite[f][r] = p + 1
		}
	}
	for p = range block {
		x := block[p]
		if fp8Eligible(x) {
			anchors = append(anchors, p)
			m := fp8MFMA[x.Name()]
			for n := 0; n < 2; n++ {
				o := &x.Operands[1+n]
				// The decoded width must be what the expansion clears.
				if o.Kind != isa.KindReg || (o.Class != isa.VGPR && o.Class != isa.AGPR) || int(o.Width) != 2*m.parts || int(o.Reg)+int(o.Width) > 256 || rs.has(o) {
					continue
				}
				f := file(o.Class)
				clean, lw := true, 0
				for r := int(o.Reg); r < int(o.Reg)+int(o.Width); r++ {
					clean = clean && cleared[f][r]
					lw = max(lw, lastWrite[f][r])
				}
				if clean {
					pl.modes[p][n] = Clean
					continue
				}
				a := p
				for _, q := range anchors {
					if q >= lw {
						a = q
						break
					}
				}
				if a == p {
					if o.Class == isa.AGPR && !reusedAfter(block, p, o) {
						continue
					}
					pl.modes[p][n] = InPlace
				} else {
					pl.modes[p][n] = Clean
					pl.ahead[a] = append(pl.ahead[a], FP8Regs{AGPR: o.Class == isa.AGPR, Reg: uint16(o.Reg), N: uint8(o.Width)})
				}
				for r := int(o.Reg); r < int(o.Reg)+int(o.Width); r++ {
					cleared[f][r] = true
				}
			}
		}
		if x.Info != nil {
			// A read other than as FP8 MFMA A/B (one that fp8ScopeReads
			// let pass, after an MFMA wrote the register): nothing is
			// cleared ahead across it.
			eligible := fp8Eligible(x)
			wide := !x.Info.Targets.Has(isa.GFX942) && !eligible
			for k := range x.Operands {
				y := x.Operands[k]
				if y.Kind != isa.KindReg || !y.Role.Uses() || (y.Class != isa.VGPR && y.Class != isa.AGPR) || (eligible && (k == 1 || k == 2)) {
					continue
				}
				forget(y, wide)
			}
		}
		all := x.Info == nil || x.Info.ImplicitWrites&isa.ImpEXEC != 0
		if n := x.Name(); strings.HasPrefix(n, "s_set_gpr_idx") || strings.HasPrefix(n, "v_movrel") || strings.HasPrefix(n, "v_swaprel") {
			all = true
		}
		if x.Info != nil {
			wide := !x.Info.Targets.Has(isa.GFX942)
			for k := range x.Operands {
				y := x.Operands[k]
				if y.Kind != isa.KindReg || !y.Role.Defines() {
					continue
				}
				if y.Class == isa.Special {
					if r := isa.SpecialReg(y.Reg); r == isa.RegEXECLo || r == isa.RegEXECHi {
						all = true
					}
				}
				if y.Class != isa.VGPR && y.Class != isa.AGPR {
					continue
				}
				forget(y, wide)
			}
		}
		if all {
			cleared = [2][256]bool{}
		}
		if all || x.Info.Branch != isa.BranchNone || x.Info.Flags&isa.FlagWaitcnt != 0 {
			anchors = anchors[:0]
		}
	}
	return pl
}

// tailFree reports whether the two instructions after the FP8 MFMA
// block[i] are in the block, are described and name none of the
// registers of its D.
func tailFree(block []*isa.Inst, i int) bool {
	acc, _, ok := chainAcc(block[i])
	if !ok || i+2 >= len(block) {
		return false
	}
	for _, x := range block[i+1 : i+3] {
		if x.Info == nil {
			return false
		}
		wide := !x.Info.Targets.Has(isa.GFX942)
		for k := range x.Operands {
			o := x.Operands[k]
			if wide {
				// Its decoded operands may be narrower than what it names.
				o.Width = max(o.Width, 16)
			}
			if acc.overlaps(&o) {
				return false
			}
		}
	}
	return true
}

// reusedAfter reports whether a later FP8 MFMA of block, after block[i],
// reads exactly the registers of o as A or B with nothing between
// writing them, writing EXEC or indexing VGPRs.
func reusedAfter(block []*isa.Inst, i int, o *isa.Operand) bool {
	for p := i + 1; p < len(block); p++ {
		if found, stop := reuseStep(block[p], o); found || stop {
			return found
		}
	}
	return false
}

// reuseStep looks at one instruction x between two FP8 MFMAs that read
// the registers of o: found when x is such an MFMA, stop when x writes
// them (or may), writes EXEC or indexes VGPRs.
func reuseStep(x *isa.Inst, o *isa.Operand) (found, stop bool) {
	same := func(y *isa.Operand) bool {
		return y.Kind == isa.KindReg && y.Class == o.Class && y.Reg == o.Reg && y.Width == o.Width
	}
	r := fp8Acc{o.Class, int(o.Reg), int(o.Width)}
	if x.Info == nil || x.Info.Branch != isa.BranchNone || x.Info.ImplicitWrites&isa.ImpEXEC != 0 {
		return false, true
	}
	if n := x.Name(); strings.HasPrefix(n, "s_set_gpr_idx") || strings.HasPrefix(n, "v_movrel") || strings.HasPrefix(n, "v_swaprel") {
		return false, true
	}
	if _, fp8 := fp8MFMA[x.Name()]; fp8 && x.Mod.CBSZ|x.Mod.ABID|x.Mod.BLGP == 0 && len(x.Operands) == 4 {
		if d := &x.Operands[0]; r.overlaps(d) {
			return false, true
		}
		if same(&x.Operands[1]) || same(&x.Operands[2]) {
			return true, false
		}
	}
	wide := !x.Info.Targets.Has(isa.GFX942)
	for k := range x.Operands {
		y := x.Operands[k]
		if y.Kind != isa.KindReg || !y.Role.Defines() {
			continue
		}
		if y.Class == isa.Special {
			if s := isa.SpecialReg(y.Reg); s == isa.RegEXECLo || s == isa.RegEXECHi {
				return false, true
			}
		}
		if wide {
			// Its decoded operands may be narrower than what it writes.
			y.Width = max(y.Width, 16)
		}
		if r.overlaps(&y) {
			return false, true
		}
	}
	return false, false
}

// fp8Acc is the accumulator of a chainable FP8 MFMA: D's register file,
// first register and count.
type fp8Acc struct {
	class isa.RegClass
	reg   int
	n     int
}

// chainAcc returns the accumulator of in when in is an FP8 MFMA the rule
// expands whose C is an inline zero or its own D (zeroC tells which), and
// ok false otherwise.
func chainAcc(in *isa.Inst) (acc fp8Acc, zeroC, ok bool) {
	if len(in.Operands) != 4 || !strings.HasPrefix(in.Name(), fp8MFMAPrefix) {
		return acc, false, false // not an fp8MFMA operation: no map lookup
	}
	m, known := fp8MFMA[in.Name()]
	if !known || in.Mod.CBSZ|in.Mod.ABID|in.Mod.BLGP != 0 || len(in.Operands) != 4 {
		return acc, false, false
	}
	d, a, b, c := &in.Operands[0], &in.Operands[1], &in.Operands[2], &in.Operands[3]
	if d.Kind != isa.KindReg || (d.Class != isa.VGPR && d.Class != isa.AGPR) || int(d.Width) != m.cd {
		return acc, false, false
	}
	acc = fp8Acc{d.Class, int(d.Reg), m.cd}
	for _, o := range []*isa.Operand{a, b} {
		if o.Kind != isa.KindReg || (o.Class != isa.VGPR && o.Class != isa.AGPR) {
			return acc, false, false
		}
		if acc.overlaps(o) {
			return acc, false, false
		}
	}
	switch {
	case c.Kind == isa.KindReg && c.Class == d.Class && c.Reg == d.Reg && c.Width == d.Width:
		return acc, false, true
	case c.Kind == isa.KindInline && c.Imm == srcZero:
		return acc, true, true
	}
	return acc, false, false
}

func (a fp8Acc) overlaps(o *isa.Operand) bool {
	if o.Kind != isa.KindReg || o.Class != a.class {
		return false
	}
	lo, hi := o.Regs()
	return lo < a.reg+a.n && a.reg <= hi
}

// chainBlocker reports whether x, between two FP8 MFMAs of a chain on acc,
// may observe or change the scaled accumulator or the lanes its scaling
// covers: it names a register of acc, writes EXEC, indexes VGPRs through
// M0, or is not described.
func chainBlocker(x *isa.Inst, acc fp8Acc) bool {
	if x.Info == nil || x.Info.Branch != isa.BranchNone || x.Info.ImplicitWrites&isa.ImpEXEC != 0 {
		return true
	}
	name := x.Name()
	if strings.HasPrefix(name, "s_set_gpr_idx") || strings.HasPrefix(name, "v_movrel") || strings.HasPrefix(name, "v_swaprel") {
		return true
	}
	for i := range x.Operands {
		o := &x.Operands[i]
		if o.Kind != isa.KindReg {
			continue
		}
		if acc.overlaps(o) {
			return true
		}
		if o.Class == isa.Special && o.Role.Defines() {
			if r := isa.SpecialReg(o.Reg); r == isa.RegEXECLo || r == isa.RegEXECHi {
				return true
			}
		}
	}
	return false
}

// chainNext returns the index of the FP8 MFMA that continues a chain from
// block[i] (it accumulates into block[i]'s D with nothing in between
// touching D or EXEC), or -1.
func chainNext(block []*isa.Inst, i int) int {
	acc, _, ok := chainAcc(block[i])
	if !ok {
		return -1
	}
	for j := i + 1; j < len(block); j++ {
		x := block[j]
		if nacc, zeroC, ok := chainAcc(x); ok && nacc == acc {
			if zeroC {
				return -1
			}
			return j
		}
		if chainBlocker(x, acc) {
			return -1
		}
	}
	return -1
}

// fp8ChainLinks returns FP8MFMAChain(block, i) for every i in one walk of
// the block: the chains whose accumulator may still continue are kept
// open, and each instruction closes those it continues (a link, unless
// its C is zero) or blocks.
func fp8ChainLinks(block []*isa.Inst) [][2]bool {
	links := make([][2]bool, len(block))
	for _, x := range block {
		if x.Info == nil {
			return links
		}
		if n := x.Name(); strings.HasPrefix(n, "s_set_gpr_idx") || strings.HasPrefix(n, "v_movrel") {
			return links
		}
	}
	type open struct {
		i   int
		acc fp8Acc
	}
	var opens []open
	for j, x := range block {
		xacc, zeroC, xok := chainAcc(x)
		k := 0
		for _, o := range opens {
			if xok && xacc == o.acc {
				if !zeroC {
					links[o.i][1], links[j][0] = true, true
				}
				continue
			}
			if chainBlocker(x, o.acc) {
				continue
			}
			opens[k] = o
			k++
		}
		opens = opens[:k]
		if xok {
			opens = append(opens, open{j, xacc})
		}
	}
	return links
}

// FP8MFMAChain tells how the FP8 MFMA block[i] is expanded in a chain of
// FP8 MFMAs of one basic block that accumulate into the same registers:
// scaledIn when the previous instruction that touches its D is a chain
// MFMA (C arrives scaled by 1/4), scaledOut when the next one is (D leaves
// scaled). Both ends of a link see the same instructions, so the link is
// dropped or kept on both. A block that indexes VGPRs through M0 has no
// chains.
func FP8MFMAChain(block []*isa.Inst, i int) (scaledIn, scaledOut bool) {
	if i < 0 || i >= len(block) {
		return false, false
	}
	for _, x := range block {
		if x.Info == nil {
			return false, false
		}
		if n := x.Name(); strings.HasPrefix(n, "s_set_gpr_idx") || strings.HasPrefix(n, "v_movrel") {
			return false, false
		}
	}
	scaledOut = chainNext(block, i) >= 0
	acc, _, ok := chainAcc(block[i])
	if !ok {
		return false, scaledOut
	}
	// The previous chain MFMA on the same accumulator, if nothing that
	// blocks a chain comes between; chainNext decides the link.
	for p := i - 1; p >= 0; p-- {
		if pacc, _, ok := chainAcc(block[p]); ok && pacc == acc {
			return chainNext(block, p) == i, scaledOut
		}
		if chainBlocker(block[p], acc) {
			break
		}
	}
	return false, scaledOut
}

// fp8ReadSet is, for one kernel scope, the VGPRs and AGPRs that something
// other than an FP8 MFMA's A or B operand may read: every other register
// operand, widened to 16 registers for operations the host does not have
// (whose decoded widths may be narrower than what they read). all is set
// when the scope has an undescribed instruction or indexes VGPRs through
// M0.
type fp8ReadSet struct {
	v, a [512]bool
	all  bool
}

// fp8FullWrite returns the registers x writes whole in every lane it
// writes, for the writes fp8ScopeReads lets hide an earlier value: the D
// of an FP8 MFMA the rule expands (C zero or D), and the destination of
// the operations of fp8WholeWriter (not in DPP or SDWA form: those may
// write some rows or bytes only).
func fp8FullWrite(x *isa.Inst) (fp8Acc, bool) {
	if acc, _, ok := chainAcc(x); ok {
		return acc, true
	}
	n := fp8WholeWriter(x.Name())
	if n == 0 || x.Format == isa.SDWA || x.Format == isa.DPP || len(x.Operands) == 0 {
		return fp8Acc{}, false
	}
	d := &x.Operands[0]
	if d.Kind != isa.KindReg || !d.Role.Defines() || (d.Class != isa.VGPR && d.Class != isa.AGPR) || int(d.Width) != n {
		return fp8Acc{}, false
	}
	return fp8Acc{d.Class, int(d.Reg), n}, true
}

// fp8WholeWriter returns the size of the destination of an operation that
// writes it whole, 32 bits a register, in every active lane (moves, the
// byte permutation and the packed f32 operations), 0 for other
// operations. A switch: every instruction of a scope with FP8 MFMAs asks,
// twice, and hashing its name cost more than comparing it.
func fp8WholeWriter(name string) int {
	switch name {
	case "v_mov_b32", "v_accvgpr_write_b32", "v_perm_b32":
		return 1
	case "v_pk_mul_f32", "v_pk_fma_f32", "v_pk_add_f32", "v_pk_mov_b32":
		return 2
	}
	return 0
}

// addUnless adds the registers of o (widened to 16 with wide) that
// killed does not hold.
func (s *fp8ReadSet) addUnless(o *isa.Operand, wide bool, killed *fp8Killed) {
	f, file := &s.v, 0
	switch o.Class {
	case isa.VGPR:
	case isa.AGPR:
		f, file = &s.a, 1
	default:
		return
	}
	n := int(o.Width)
	if wide {
		n = max(n, 16)
	}
	for r := int(o.Reg); r < int(o.Reg)+n && r < 512; r++ {
		if r < 256 && killed.has(file, r) {
			continue
		}
		f[r] = true
	}
}

// has reports whether any register of o is in the set.
func (s *fp8ReadSet) has(o *isa.Operand) bool {
	if s.all {
		return true
	}
	f := &s.v
	if o.Class == isa.AGPR {
		f = &s.a
	}
	for r := int(o.Reg); r < int(o.Reg)+int(o.Width) && r < 512; r++ {
		if f[r] {
			return true
		}
	}
	return false
}

// FP8ScopeFunc calls fn for every block of a kernel scope, in order,
// with the indexes (in that order) of its successors in the scope and
// whether it may be entered other than through those edges (a root, a
// call target, a return point, or with unknown predecessors).
type FP8ScopeFunc func(fn func(block []*isa.Inst, succs []int, entry bool))

// fp8Killed are the registers (VGPRs, AGPRs) whose value a whole write
// has replaced since the last EXEC write (fp8ScopeReads): bit 256*f+r is
// register r of file f (0 VGPRs, 1 AGPRs).
type fp8Killed [8]uint64

// fp8KilledAll holds every register.
var fp8KilledAll = fp8Killed{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}

func (k *fp8Killed) has(f, r int) bool { i := f<<8 | r; return k[i>>6]>>(i&63)&1 != 0 }
func (k *fp8Killed) set(f, r int)      { i := f<<8 | r; k[i>>6] |= 1 << (i & 63) }
func (k *fp8Killed) unset(f, r int)    { i := f<<8 | r; k[i>>6] &^= 1 << (i & 63) }

// fp8Transfer is what a block does to the killed set: out = (in & keep)
// | gen (fp8WalkBlock's effect, summarized once per block).
type fp8Transfer struct{ keep, gen fp8Killed }

// apply returns the killed set after the block for k before it.
func (t *fp8Transfer) apply(k fp8Killed) fp8Killed {
	for i := range k {
		k[i] = k[i]&t.keep[i] | t.gen[i]
	}
	return k
}

// fp8ScopeReads computes the read set of a scope's blocks. A read does
// not count when, on every path to it, an instruction wrote the whole
// register (fp8FullWrite: an FP8 MFMA's D, a move, a permutation) with no
// EXEC write and no FP8 MFMA A/B read of it after: in the lanes it reads,
// the value is that write's, not one that a clearing could have changed
// (the D of a zero-C MFMA, which the next MFMAs of a chain read as C and
// other instructions read after it; an accumulator zeroed by moves). The
// paths are followed over the scope's edges (a must analysis: entry
// blocks start with nothing written). fp8PlanBlock never clears ahead
// across such a read.
func fp8ScopeReads(scope FP8ScopeFunc) *fp8ReadSet {
	blocks, succs, entry := scopeBlocks(scope)
	n := len(blocks)
	preds := make([][]int, n)
	for b, ss := range succs {
		for _, t := range ss {
			if t < 0 || t >= n {
				entry[b] = true // an edge out of the listed blocks: be safe
				continue
			}
			preds[t] = append(preds[t], b)
		}
	}
	// Each block's effect, walked once; the fixpoint runs on these.
	tf := make([]fp8Transfer, n)
	for b := range blocks {
		tf[b] = fp8BlockTransfer(blocks[b])
	}
	// Must analysis: out starts full (except at entries) and shrinks.
	in := make([]fp8Killed, n)
	out := make([]fp8Killed, n)
	for b := range out {
		out[b] = fp8KilledAll
	}
	s := &fp8ReadSet{}
	for changed := true; changed; {
		changed = false
		for b := 0; b < n; b++ {
			k := fp8Killed{}
			if !entry[b] && len(preds[b]) > 0 {
				k = out[preds[b][0]]
				for _, p := range preds[b][1:] {
					for i := range k {
						k[i] &= out[p][i]
					}
				}
			}
			in[b] = k
			if k = tf[b].apply(k); k != out[b] {
				out[b] = k
				changed = true
			}
		}
	}
	for b := 0; b < n; b++ {
		k := in[b]
		fp8WalkBlock(blocks[b], &k, s)
	}
	return s
}

// fp8BlockTransfer summarizes fp8WalkBlock over block: the registers whose
// killed state survives the block (keep) and those it leaves killed
// whatever came before (gen).
func fp8BlockTransfer(block []*isa.Inst) fp8Transfer {
	t := fp8Transfer{keep: fp8KilledAll}
	fp8Walk(block, func(f, r int, killed bool) {
		if killed {
			t.gen.set(f, r)
		} else {
			t.keep.unset(f, r)
			t.gen.unset(f, r)
		}
	}, func(bool) { t = fp8Transfer{} }, nil)
	return t
}

// fp8WalkBlock runs block over killed (fp8ScopeReads) and, when s is
// given, adds the reads that count to it.
func fp8WalkBlock(block []*isa.Inst, killed *fp8Killed, s *fp8ReadSet) {
	var read func(o *isa.Operand, wide bool)
	if s != nil {
		read = func(o *isa.Operand, wide bool) { s.addUnless(o, wide, killed) }
	}
	fp8Walk(block, func(f, r int, k bool) {
		if k {
			killed.set(f, r)
		} else {
			killed.unset(f, r)
		}
	}, func(stop bool) {
		*killed = fp8Killed{}
		if stop && s != nil {
			s.all = true
		}
	}, read)
}

// fp8WalkStop reports whether x ends the walk of its block (fp8Walk).
func fp8WalkStop(x *isa.Inst) bool {
	if x.Info == nil {
		return true
	}
	n := x.Name()
	return strings.HasPrefix(n, "s_set_gpr_idx") || strings.HasPrefix(n, "v_movrel") || strings.HasPrefix(n, "v_swaprel")
}

// fp8Walk runs the killed-set effects of block in order: mark(f, r, k)
// sets (k) or clears the killed state of register r of file f, reset
// clears them all, and read, when given, is called for each register
// read that may count (before the instruction's own writes). An
// undescribed instruction or VGPR indexing resets (stop set) and ends
// the walk: the scope's read set then holds every register.
func fp8Walk(block []*isa.Inst, mark func(f, r int, k bool), reset func(stop bool), read func(o *isa.Operand, wide bool)) {
	for _, x := range block {
		if fp8WalkStop(x) {
			reset(true)
			return
		}
		fp8 := fp8Eligible(x)
		wide := !x.Info.Targets.Has(isa.GFX942) && !fp8
		for i := range x.Operands {
			o := &x.Operands[i]
			if o.Kind != isa.KindReg || !o.Role.Uses() {
				continue
			}
			if fp8 && (i == 1 || i == 2) {
				// It may clear them: later reads see what it left.
				if o.Class == isa.VGPR || o.Class == isa.AGPR {
					f := 0
					if o.Class == isa.AGPR {
						f = 1
					}
					for r := int(o.Reg); r < int(o.Reg)+int(o.Width) && r < 256; r++ {
						mark(f, r, false)
					}
				}
				continue
			}
			if read != nil {
				read(o, wide)
			}
		}
		if x.Info.ImplicitWrites&isa.ImpEXEC != 0 {
			reset(false)
		}
		for i := range x.Operands {
			o := &x.Operands[i]
			if o.Kind != isa.KindReg || !o.Role.Defines() || o.Class != isa.Special {
				continue
			}
			if r := isa.SpecialReg(o.Reg); r == isa.RegEXECLo || r == isa.RegEXECHi {
				reset(false)
			}
		}
		if acc, ok := fp8FullWrite(x); ok {
			f := 0
			if acc.class == isa.AGPR {
				f = 1
			}
			for r := acc.reg; r < acc.reg+acc.n && r < 256; r++ {
				mark(f, r, true)
			}
		}
	}
}
