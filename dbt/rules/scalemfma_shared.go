package rules

import (
	"fmt"
	"strconv"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// The subroutine form of the scaled MFMA rule (issue 15: the FP4 GEMM's
// 256 inline expansions of ~274 instructions made its .text 53x the
// guest's). One body per kernel and key (host shape, A and B formats, the
// accumulator when it is an inline constant, and whether C/D are AGPRs)
// runs ScaleMFMACode on fixed registers: A, B, C/D and the two scale
// bytes. A 16x16x128 call site
//
//	s_nop 7 (x3)                 earlier XDL writes of the operands land
//	                             (dropped when no MFMA is that close)
//	v_mov / v_accvgpr_read       A, B (VGPRs or AGPRs) into the fixed A, B
//	v_bfe_u32                    each scale byte into its fixed register
//	v_mov / v_accvgpr_*          C into the fixed C/D (unless C is a constant)
//	s_call_b64                   the body (ends with s_nop 7 x3, s_setpc_b64;
//	                             it reads only the copies: no leading waits)
//	v_mov / v_accvgpr_*          the fixed C/D into the guest's D
//	s_nop 4                      the writes of D before an MFMA reads them
//
// is 20-23 instructions for a 16x16x128 E2M1 MFMA. When the guest's C/D
// are AGPRs and AGPRs are free at every use, the fixed C/D are AGPRs and
// the copies are 4-byte v_accvgpr_mov_b32. A 32x32x64 body is keyed by the
// guest's D and C as well and reads and writes them itself (no C/D
// copies: 12-15 instructions for E2M1 x E2M1 instead of 44-47; aiter's
// fmha_v4 kernels use 11 D/C/format combinations). The body computes
// exactly what the inline expansion computes on copies of the same
// values, so the results are identical.

// smAccMov is v_accvgpr_mov_b32 (VOP1; the source AGPR coded as 256+a).
const smAccMov = 0x52

// scaleSharedLayout are the fixed registers of one key.
type scaleSharedLayout struct {
	a, b, cd uint16    // first registers of A, B, C/D
	cdAGPR   bool      // C/D in AGPRs (cd an AGPR)
	ownCD    bool      // the guest's C/D (no fixed C/D, no copies)
	sc       [2]uint16 // the A and B scale bytes
	s        ScaleMFMAScratch
	used     []uint16
}

// scaleShared is the Shared form of the scaled MFMA rule.
var scaleShared = &Shared{Key: scaleSharedKey, Site: scaleSharedSite, Body: scaleSharedBody, Names: scaleSharedNames, LeadWaits: 24, MemorySaves: 64}

// scaleSharedWords splits a scaled MFMA's guest bytes.
func scaleSharedWords(in *isa.Inst, raw []byte) (l0, l1, w0, w1 uint32, op uint32, cd int, err error) {
	m, ok := scaleMFMA[in.Name()]
	if !ok || len(raw) != 16 {
		return 0, 0, 0, 0, 0, 0, fieldErr(in, "shape", uint32(len(raw)))
	}
	w := words(raw)
	return w[0], w[1], w[2], w[3], m.op, m.cd, nil
}

// scaleSharedKey is the body key: host opcode, formats, constant C; for
// the 32x32x64 shape also D and C (its body reads and writes the guest's
// C/D: 32 copies less per use).
func scaleSharedKey(in *isa.Inst, raw []byte) (string, bool) {
	l0, l1, w0, w1, op, cd, err := scaleSharedWords(in, raw)
	if err != nil {
		return "", false
	}
	f, err := parseScaleMFMA(l0, l1, w0, w1)
	if err != nil {
		return "", false
	}
	if scaleSharedOwnCD(cd) {
		return scaleKey(op, f.cbsz, f.blgp, scaleKeyPart{"/acc", f.accCD}, scaleKeyPart{"/d", f.vdst}, scaleKeyPart{"/c", f.src2}), true
	}
	c := uint32(srcVGPR)
	if f.src2 < srcVGPR {
		c = f.src2
	}
	return scaleKey(op, f.cbsz, f.blgp, scaleKeyPart{"/", c}, scaleKeyPart{"/acc", f.accCD}), true
}

// scaleKey formats a scale-MFMA key without fmt: "scale-mfma/", op in
// hex with 0x, "/cbsz/blgp", then each of parts (a text and a number, in
// decimal).
func scaleKey(op, cbsz, blgp uint32, parts ...scaleKeyPart) string {
	b := make([]byte, 0, 64)
	b = append(b, "scale-mfma/0x"...)
	b = strconv.AppendUint(b, uint64(op), 16)
	b = append(b, '/')
	b = strconv.AppendUint(b, uint64(cbsz), 10)
	b = append(b, '/')
	b = strconv.AppendUint(b, uint64(blgp), 10)
	for _, p := range parts {
		b = append(b, p.text...)
		b = strconv.AppendUint(b, uint64(p.n), 10)
	}
	return string(b)
}

// scaleKeyPart is a text and a number of a scale-MFMA key.
type scaleKeyPart struct {
	text string
	n    uint32
}

// scaleSharedOwnCD tells whether a body of C/D size cd uses the guest's
// C/D registers (keyed by them) instead of fixed ones.
func scaleSharedOwnCD(cd int) bool { return cd == 16 }

// layoutScaleShared lays out the fixed registers of a key from regs:
// aligned runs first (C/D, A, B, the part windows, the E2M1 and byte-decode
// hold pairs), then single registers.
func layoutScaleShared(f scaleFields, cd int, regs, aregs []uint16) (scaleSharedLayout, error) {
	var l scaleSharedLayout
	p := newRegPool(regs)
	var err error
	l.ownCD = scaleSharedOwnCD(cd)
	if f.accCD == 1 && !l.ownCD {
		// Guest C/D in AGPRs: fixed AGPRs when there are (4-byte
		// v_accvgpr_mov copies instead of 8-byte reads and writes).
		ap := newRegPool(aregs)
		if r, err := ap.run(cd, 2); err == nil {
			l.cd, l.cdAGPR = r, true
		}
	}
	if !l.cdAGPR && !l.ownCD {
		if l.cd, err = p.run(cd, 2); err != nil {
			return l, err
		}
	}
	if l.a, err = p.run(int(f.nA), 2); err != nil {
		return l, err
	}
	if l.b, err = p.run(int(f.nB), 2); err != nil {
		return l, err
	}
	for i := range l.s.Buf {
		if l.s.Buf[i], err = p.run(4, 2); err != nil {
			return l, err
		}
	}
	fp4 := [2]bool{f.cbsz == 4, f.blgp == 4}
	bytes := [2]bool{f.cbsz != 1 && f.cbsz != 4, f.blgp != 1 && f.blgp != 4}
	for x := range fp4 {
		if fp4[x] || bytes[x] {
			if l.s.Hold[x], err = p.run(4, 2); err != nil {
				return l, err
			}
		}
	}
	l.s.Bytes = bytes
	s := &l.s
	if err := p.ones(&l.sc[0], &l.sc[1], &s.Tmp[0], &s.Tmp[1], &s.Tmp[2], &s.Tmp[3], &s.Sel, &s.Exp[0], &s.Exp[1], &s.Mask[0], &s.Mask[1]); err != nil {
		return l, err
	}
	for x := range fp4 {
		if fp4[x] {
			s.FP4[x] = true
			if err := p.ones(&s.LUT[x][0], &s.LUT[x][1], &s.LUT[x][2], &s.LUT[x][3]); err != nil {
				return l, err
			}
		}
	}
	if fp4[0] || fp4[1] {
		if err := p.ones(&s.Extra[0], &s.Extra[1], &s.M80, &s.SelI[0], &s.SelI[1]); err != nil {
			return l, err
		}
	}
	l.used = p.used
	return l, nil
}

// scaleSharedParse reads in and lays out its key's registers.
func scaleSharedParse(in *isa.Inst, raw []byte, regs SharedRegs) (f scaleFields, l scaleSharedLayout, w0, w1, op uint32, cd int, err error) {
	l0, l1, w0, w1, op, cd, err := scaleSharedWords(in, raw)
	if err != nil {
		return f, l, 0, 0, 0, 0, err
	}
	if f, err = parseScaleMFMA(l0, l1, w0, w1); err != nil {
		return f, l, 0, 0, 0, 0, err
	}
	if int(f.vdst)+cd > 256 || (f.src2 >= srcVGPR && int(f.src2-srcVGPR)+cd > 256) {
		return f, l, 0, 0, 0, 0, fmt.Errorf("C/D registers run past 255")
	}
	l, err = layoutScaleShared(f, cd, regs.V, regs.A)
	return f, l, w0, w1, op, cd, err
}

func scaleSharedSite(in *isa.Inst, raw []byte, regs SharedRegs) (SharedSite, error) {
	f, l, _, w1, _, cd, err := scaleSharedParse(in, raw, regs)
	if err != nil {
		return SharedSite{}, err
	}
	var pre []uint32
	copyIn := func(dst, src uint16, n int, agpr bool) {
		for i := uint16(0); i < uint16(n); i++ {
			if agpr {
				a := accRead(dst+i, src+i)
				pre = append(pre, a[0], a[1])
			} else {
				pre = append(pre, smVOP1(smMovB32, dst+i, srcVGPR+src+i, 0)...)
			}
		}
	}
	copyIn(l.a, f.aReg, int(f.nA), w1>>27&1 == 1)
	copyIn(l.b, f.bReg, int(f.nB), w1>>28&1 == 1)
	for x := 0; x < 2; x++ {
		b := vop3(op3BfeU32, l.sc[x], uint16(f.scaleSrc[x]), inlineInt(int(8*f.scaleByte[x])), inlineInt(8))
		pre = append(pre, b[0], b[1])
	}
	if f.src2 >= srcVGPR && !l.ownCD {
		if l.cdAGPR {
			for i := uint16(0); i < uint16(cd); i++ {
				pre = append(pre, smVOP1(smAccMov, l.cd+i, srcVGPR+uint16(f.src2-srcVGPR)+i, 0)...)
			}
		} else {
			copyIn(l.cd, uint16(f.src2-srcVGPR), cd, f.accCD == 1)
		}
	}
	var post []uint32
	for i := uint16(0); i < uint16(cd) && !l.ownCD; i++ {
		if l.cdAGPR {
			post = append(post, smVOP1(smAccMov, uint16(f.vdst)+i, srcVGPR+l.cd+i, 0)...)
		} else if f.accCD == 1 {
			a := accWrite(uint16(f.vdst)+i, l.cd+i)
			post = append(post, a[0], a[1])
		} else {
			post = append(post, smVOP1(smMovB32, uint16(f.vdst)+i, srcVGPR+l.cd+i, 0)...)
		}
	}
	return SharedSite{Lead: appendWords(nil, sNop(7), sNop(7), sNop(7)), Pre: appendWords(nil, pre...),
		Post: appendWords(nil, post...), Tail: appendWords(nil, sNop(4)), Used: l.used}, nil
}

func scaleSharedBody(in *isa.Inst, raw []byte, regs SharedRegs) ([]byte, error) {
	f, l, w0, _, op, cd, err := scaleSharedParse(in, raw, regs)
	if err != nil {
		return nil, err
	}
	// The body's pair: the fixed registers, scale byte 0 of each fixed
	// scale register, C/D in VGPRs (the accumulator constant kept).
	src2 := f.src2
	if src2 >= srcVGPR && !l.ownCD {
		src2 = srcVGPR + uint32(l.cd)
	}
	bw0 := w0&^(0xff|1<<15|0xf<<11) | uint32(l.cd)
	if l.cdAGPR {
		bw0 |= 1 << 15 // C and D name AGPRs
	}
	if l.ownCD {
		bw0 = w0&^(0xff|0xf<<11) | f.vdst // the guest's C/D (and acc bit)
	}
	bw1 := (srcVGPR + uint32(l.a)) | (srcVGPR+uint32(l.b))<<9 | src2<<18 | f.blgp<<29
	bl1 := (srcVGPR + uint32(l.sc[0])) | (srcVGPR+uint32(l.sc[1]))<<9
	s := l.s
	s.ScaleBytes = true     // the site's v_bfe_u32 wrote the bytes
	s.CopiedOperands = true // and its copies A and B
	return ScaleMFMACode(0xd3ac0000, bl1, bw0, bw1, op, cd, s)
}

// scaleSharedNames lists the registers a use reads or writes (AGPRs as
// 256+a): A, B, C, D and VGPR scale operands.
func scaleSharedNames(in *isa.Inst, raw []byte) ([]uint16, bool) {
	l0, l1, w0, w1, _, cd, err := scaleSharedWords(in, raw)
	if err != nil {
		return nil, false
	}
	f, err := parseScaleMFMA(l0, l1, w0, w1)
	if err != nil || int(f.vdst)+cd > 256 || (f.src2 >= srcVGPR && int(f.src2-srcVGPR)+cd > 256) {
		return nil, false
	}
	var out []uint16
	span := func(first uint16, n int) {
		for i := 0; i < n; i++ {
			out = append(out, first+uint16(i))
		}
	}
	agpr := func(in bool) uint16 {
		if in {
			return 256
		}
		return 0
	}
	span(agpr(w1>>27&1 == 1)+f.aReg, int(f.nA))
	span(agpr(w1>>28&1 == 1)+f.bReg, int(f.nB))
	span(agpr(f.accCD == 1)+uint16(f.vdst), cd)
	if f.src2 >= srcVGPR {
		span(agpr(f.accCD == 1)+uint16(f.src2-srcVGPR), cd)
	}
	for _, c := range f.scaleSrc {
		if c >= srcVGPR {
			out = append(out, uint16(c-srcVGPR))
		}
	}
	return out, true
}
