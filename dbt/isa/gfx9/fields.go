package gfx9

import (
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9/internal/enc"
)

// Special operand codes of GFX9 sources.
var specialByCode = map[uint32]isa.SpecialReg{
	102: isa.RegFlatScratchLo, 103: isa.RegFlatScratchHi, 104: isa.RegXnackMaskLo, 105: isa.RegXnackMaskHi,
	106: isa.RegVCCLo, 107: isa.RegVCCHi, 124: isa.RegM0, 125: isa.RegNull, 126: isa.RegEXECLo, 127: isa.RegEXECHi,
	235: isa.RegSharedBase, 236: isa.RegSharedLimit, 237: isa.RegPrivateBase, 238: isa.RegPrivateLimit,
	239: isa.RegPopsExitingWaveID, 251: isa.RegVCCZ, 252: isa.RegEXECZ, 253: isa.RegSCC, 254: isa.RegLDSDirect,
}

// specialTab is specialByCode as an array: 1 + the register, 0 for none.
var specialTab = func() (t [256]uint16) {
	for c, r := range specialByCode {
		t[c] = uint16(r) + 1
	}
	return t
}()

var codeBySpecial = func() map[isa.SpecialReg]uint32 {
	m := map[isa.SpecialReg]uint32{}
	for c, r := range specialByCode {
		m[r] = c
	}
	return m
}()

var specialByName = map[string]isa.SpecialReg{
	"vcc": isa.RegVCCLo, "vcc_lo": isa.RegVCCLo, "vcc_hi": isa.RegVCCHi, "exec": isa.RegEXECLo, "exec_lo": isa.RegEXECLo,
	"exec_hi": isa.RegEXECHi, "m0": isa.RegM0, "scc": isa.RegSCC, "src_scc": isa.RegSCC, "flat_scratch": isa.RegFlatScratchLo,
	"xnack_mask": isa.RegXnackMaskLo,
}

func align(n uint32, width uint8) uint32 {
	switch {
	case width >= 4:
		return n &^ 3
	case width == 2:
		return n &^ 1
	}
	return n
}

// srcOperand interprets an operand code of a scalar or vector source.
func srcOperand(code uint32, width uint8, agpr bool) (isa.Operand, uint32) {
	var o isa.Operand
	pad := srcOperandTo(&o, code, width, agpr)
	return o, pad
}

// srcOperandTo is srcOperand writing the operand to *op (which it
// overwrites) and returning the padding bits.
func srcOperandTo(op *isa.Operand, code uint32, width uint8, agpr bool) uint32 {
	*op = isa.Operand{Width: width}
	o := op
	var pad uint32
	switch {
	case code < 102:
		a := align(code, width)
		pad = code - a
		o.Kind, o.Class, o.Reg = isa.KindReg, isa.SGPR, uint16(a)
	case code >= 108 && code < 124:
		a := align(code-108, width)
		pad = code - 108 - a
		o.Kind, o.Class, o.Reg = isa.KindReg, isa.TTMP, uint16(a)
	case code >= 128 && code <= 208 || code >= 240 && code <= 248:
		o.Kind, o.Imm, o.Width = isa.KindInline, int64(code), 0
	case code == 255:
		o.Kind, o.Width = isa.KindLiteral, 0
	case code >= 256:
		o.Kind, o.Class, o.Reg = isa.KindReg, isa.VGPR, uint16(code-256)
		if agpr {
			o.Class = isa.AGPR
		}
	default:
		o.Kind, o.Class = isa.KindReg, isa.Special
		if code < uint32(len(specialTab)) && specialTab[code] != 0 {
			o.Reg = uint16(specialTab[code] - 1)
		} else {
			o.Reg, o.Imm = uint16(isa.RegEncoded), int64(code)
		}
	}
	return pad
}

// operandCode is the inverse of srcOperand.
func operandCode(o *isa.Operand) uint32 {
	switch o.Kind {
	case isa.KindInline:
		return uint32(o.Imm)
	case isa.KindLiteral:
		return 255
	case isa.KindOff:
		return 0x7f
	case isa.KindReg:
		switch o.Class {
		case isa.SGPR:
			return uint32(o.Reg)
		case isa.TTMP:
			return 108 + uint32(o.Reg)
		case isa.VGPR, isa.AGPR:
			return 256 + uint32(o.Reg)
		case isa.Special:
			if isa.SpecialReg(o.Reg) == isa.RegEncoded {
				return uint32(o.Imm)
			}
			return codeBySpecial[isa.SpecialReg(o.Reg)]
		}
	}
	return 0
}

// modBits lists the non-operand fields of each encoding: (word, lo, width).
type modField struct {
	word, lo, width uint8
}

func (m modField) get(w []uint32) uint32 { return (w[m.word] >> m.lo) & (1<<m.width - 1) }
func (m modField) mask() uint32          { return uint32(1<<m.width-1) << m.lo }

var (
	mVOP3Abs    = modField{0, 8, 3}
	mVOP3OpSel  = modField{0, 11, 4}
	mClamp15    = modField{0, 15, 1}
	mVOP3OMod   = modField{1, 27, 2}
	mVOP3Neg    = modField{1, 29, 3}
	mPNegHi     = modField{0, 8, 3}
	mPOpSel     = modField{0, 11, 3}
	mPOpSelHi2  = modField{0, 14, 1}
	mPOpSelHi   = modField{1, 27, 2}
	mMAICBSZ    = modField{0, 8, 3}
	mMAIABID    = modField{0, 11, 4}
	mMAIAccCD   = modField{0, 15, 1}
	mMAIAcc     = modField{1, 27, 2}
	mMAIBLGP    = modField{1, 29, 3}
	mDSOff0     = modField{0, 0, 8}
	mDSOff1     = modField{0, 8, 8}
	mDSGDS      = modField{0, 16, 1}
	mDSAcc      = modField{0, 25, 1}
	mFlatOff    = modField{0, 0, 13}
	mFlatSVE    = modField{0, 13, 1}
	mFlatSC0    = modField{0, 16, 1}
	mFlatNT     = modField{0, 17, 1}
	mFlatSC1    = modField{0, 25, 1}
	mFlatAcc    = modField{1, 23, 1}
	mBufOff     = modField{0, 0, 12}
	mBufOffen   = modField{0, 12, 1}
	mBufIdxen   = modField{0, 13, 1}
	mBufSC0     = modField{0, 14, 1}
	mBufSC1     = modField{0, 15, 1}
	mBufLDS     = modField{0, 16, 1}
	mBufNT      = modField{0, 17, 1}
	mBufAcc     = modField{1, 23, 1}
	mTBufFmt    = modField{0, 19, 7}
	mTBufSC1    = modField{1, 21, 1}
	mTBufNT     = modField{1, 22, 1}
	mSMemGLC    = modField{0, 16, 1}
	mSMemImm    = modField{0, 17, 1}
	mSMemSOE    = modField{0, 14, 1}
	mSMemNV     = modField{0, 15, 1}
	mSDWADstSel = modField{1, 8, 3}
	mSDWADstUn  = modField{1, 11, 2}
	mSDWAClamp  = modField{1, 13, 1}
	mSDWAOMod   = modField{1, 14, 2}
	mSDWAS0Sel  = modField{1, 16, 3}
	mSDWAS0Sext = modField{1, 19, 1}
	mSDWAS0Neg  = modField{1, 20, 1}
	mSDWAS0Abs  = modField{1, 21, 1}
	mSDWAS0     = modField{1, 23, 1}
	mSDWAS1Sel  = modField{1, 24, 3}
	mSDWAS1Sext = modField{1, 27, 1}
	mSDWAS1Neg  = modField{1, 28, 1}
	mSDWAS1Abs  = modField{1, 29, 1}
	mSDWAS1     = modField{1, 31, 1}
	mSDWASD     = modField{1, 15, 1}
	mDPPCtrl    = modField{1, 8, 9}
	mDPPBound   = modField{1, 19, 1}
	mDPPNeg0    = modField{1, 20, 1}
	mDPPAbs0    = modField{1, 21, 1}
	mDPPNeg1    = modField{1, 22, 1}
	mDPPAbs1    = modField{1, 23, 1}
	mDPPBank    = modField{1, 24, 4}
	mDPPRow     = modField{1, 28, 4}
)

// noPlainPath turns decodeFields' short paths for plain operands (the
// per-operand one and decodePlan) off (the tests compare both ways).
var noPlainPath bool

// decodeFields builds the operands, modifiers and padding of in, of row e
// (facts rowFacts(in.Enc)).
func decodeFields(in *isa.Inst, e *entry, facts *litCheck, k enc.Kind, w []uint32, pc uint64) error {
	var cov [maxWords]uint32
	cov[0] = enc.OpcodeMask(k)
	if k == enc.VOP3PX2 {
		cov[0] = 0xffff0000
		cov[2] = 0xffff0000
	}
	if k >= enc.SDWA1 && k <= enc.DPPC {
		cov[0] |= 0x1ff
	}
	take := func(m modField) uint32 {
		cov[m.word] |= m.mask()
		return m.get(w)
	}
	md := &in.Mod
	var negBits, absBits uint32
	var agpr [4]bool // vdst, src0, src1, src2 (MAI) or data (memory)
	vop3b := facts.vop3b
	switch k {
	case enc.VOP3:
		if !vop3b {
			absBits = take(mVOP3Abs)
			md.OpSel = uint8(take(mVOP3OpSel))
		}
		md.Clamp = take(mClamp15) != 0
		md.OMod = uint8(take(mVOP3OMod))
		negBits = take(mVOP3Neg)
	case enc.VOP3P:
		md.NegHi = uint8(take(mPNegHi))
		md.OpSel = uint8(take(mPOpSel))
		md.OpSelHi = uint8(take(mPOpSelHi) | take(mPOpSelHi2)<<2)
		md.Clamp = take(mClamp15) != 0
		md.NegLo = uint8(take(mVOP3Neg))
		if e.flags&(fNeg0|fNeg1|fNeg2|fAbs0|fAbs1|fAbs2) != 0 {
			// Mix ops: neg_lo is -x and neg_hi is |x| of each source.
			negBits, absBits = uint32(md.NegLo), uint32(md.NegHi)
			md.NegLo, md.NegHi = 0, 0
		}
	case enc.MAI, enc.VOP3PX2:
		off := uint8(0)
		if k == enc.VOP3PX2 {
			off = 2
			// Scale half: op_sel and op_sel_hi of the two scale sources.
			md.OpSel = uint8(take(modField{0, 11, 3}))
			md.OpSelHi = uint8(take(modField{1, 27, 2}) | take(modField{0, 14, 1})<<2)
			md.NegLo = uint8(take(modField{1, 29, 3}))
			md.NegHi = uint8(take(modField{0, 8, 3}))
		}
		md.CBSZ = uint8(take(modField{off, 8, 3}))
		md.ABID = uint8(take(modField{off, 11, 4}))
		md.AccCD = take(modField{off, 15, 1}) != 0
		acc := take(modField{off + 1, 27, 2})
		md.BLGP = uint8(take(modField{off + 1, 29, 3}))
		agpr = [4]bool{md.AccCD, acc&1 != 0, acc&2 != 0, md.AccCD}
	case enc.SDWA1, enc.SDWA2, enc.SDWAC:
		if k != enc.SDWAC {
			md.DstSel = uint8(take(mSDWADstSel))
			md.DstUnused = uint8(take(mSDWADstUn))
			md.Clamp = take(mSDWAClamp) != 0
			md.OMod = uint8(take(mSDWAOMod))
		} else {
			take(mSDWASD)
		}
		md.Src0Sel = uint8(take(mSDWAS0Sel))
		md.Src1Sel = uint8(take(mSDWAS1Sel))
		if take(mSDWAS0Neg) != 0 {
			negBits |= 1
		}
		if take(mSDWAS0Abs) != 0 {
			absBits |= 1
		}
		if take(mSDWAS1Neg) != 0 {
			negBits |= 2
		}
		if take(mSDWAS1Abs) != 0 {
			absBits |= 2
		}
		if take(mSDWAS0Sext) != 0 {
			absBits |= 0x10
		}
		if take(mSDWAS1Sext) != 0 {
			absBits |= 0x20
		}
	case enc.DPP1, enc.DPP2, enc.DPPC:
		md.DPPCtrl = uint16(take(mDPPCtrl))
		md.BoundCtrl = take(mDPPBound) != 0
		negBits = take(mDPPNeg0) | take(mDPPNeg1)<<1
		absBits = take(mDPPAbs0) | take(mDPPAbs1)<<1
		md.BankMask = uint8(take(mDPPBank))
		md.RowMask = uint8(take(mDPPRow))
	case enc.DS:
		md.Offset = int32(take(mDSOff0))
		md.Offset1 = uint8(take(mDSOff1))
		md.GDS = take(mDSGDS) != 0
		a := take(mDSAcc) != 0
		agpr = [4]bool{a, a, a, a}
	case enc.FLAT:
		off := take(mFlatOff)
		seg := (w[0] >> 14) & 3
		if seg != 0 {
			md.Offset = int32(off<<19) >> 19
		} else {
			md.Offset = int32(off)
		}
		if seg == 1 {
			md.LDS = take(mFlatSVE) != 0 // SVE: vaddr present
		} else {
			md.LDS = take(mFlatSVE) != 0
		}
		md.SC0 = take(mFlatSC0) != 0
		md.NT = take(mFlatNT) != 0
		md.SC1 = take(mFlatSC1) != 0
		a := take(mFlatAcc) != 0
		agpr = [4]bool{a, a, a, a}
		switch seg {
		case 1:
			in.Format = isa.SCRATCH
		case 2:
			in.Format = isa.GLOBAL
		}
		in.Base = in.Format
	case enc.MUBUF:
		md.Offset = int32(take(mBufOff))
		md.Offen = take(mBufOffen) != 0
		md.Idxen = take(mBufIdxen) != 0
		md.SC0 = take(mBufSC0) != 0
		md.SC1 = take(mBufSC1) != 0
		md.LDS = take(mBufLDS) != 0
		md.NT = take(mBufNT) != 0
		a := take(mBufAcc) != 0
		agpr = [4]bool{a, a, a, a}
	case enc.MTBUF:
		md.Offset = int32(take(mBufOff))
		md.Offen = take(mBufOffen) != 0
		md.Idxen = take(mBufIdxen) != 0
		md.SC0 = take(mBufSC0) != 0
		md.Format = uint8(take(mTBufFmt))
		md.SC1 = take(mTBufSC1) != 0
		md.NT = take(mTBufNT) != 0
		a := take(mBufAcc) != 0
		agpr = [4]bool{a, a, a, a}
	case enc.SMEM:
		md.SC0 = take(mSMemGLC) != 0
		md.NV = take(mSMemNV) != 0
		imm := take(mSMemImm) != 0
		soe := take(mSMemSOE) != 0
		md.SMemImm, md.SMemSOE = imm, soe
	}
	in.Operands = in.Operands[:0]
	if cap(in.Operands) < len(e.ops) {
		// At most one operand per row operand: one allocation, no growth.
		in.Operands = make([]isa.Operand, 0, len(e.ops))
	}
	consumed := uint32(0)
	if facts.plan != nil && k == e.kind && !noPlainPath {
		consumed = decodePlan(in, facts.plan, w, &cov, &agpr, negBits, absBits)
		finishFields(in, e, facts, k, w, &cov, negBits, absBits, consumed)
		return nil
	}
	for i := range e.ops {
		d := &e.ops[i]
		if f := &facts.ops[i]; f.plain != 0 && k == e.kind && !noPlainPath {
			// What the general path below does for such an operand.
			bb := f.bits
			cov[bb.Word] |= bb.Mask()
			v := bb.Get(w)
			o := isa.Operand{Role: d.role, Field: isa.Field(d.field), Width: d.width}
			switch f.plain {
			case plainSrc, plainSrcAcc:
				if pad := srcOperandTo(&o, v, d.width, f.plain == plainSrcAcc && agpr[f.acc]); pad != 0 {
					in.Pad[bb.Word] |= pad << bb.Lo
				}
				o.Role, o.Field = d.role, isa.Field(d.field)
			case plainVGPR:
				o.Kind, o.Class, o.Reg = isa.KindReg, isa.VGPR, uint16(v)
			case plainVGPRAcc:
				o.Kind, o.Class, o.Reg = isa.KindReg, isa.VGPR, uint16(v)
				if agpr[f.acc] {
					o.Class = isa.AGPR
				}
			case plainImm:
				o.Kind, o.Width, o.Imm = isa.KindImm, 0, int64(v)
			default: // plainLabel
				o.Kind, o.Width, o.Imm = isa.KindLabel, 0, int64(int16(v))
			}
			if s := f.src; s >= 0 {
				consumed |= 1 << s
				o.Mods |= srcMods(s, negBits, absBits)
			}
			o.Type = f.typ
			in.Operands = append(in.Operands, o)
			continue
		}
		o := isa.Operand{Role: d.role, Field: isa.Field(d.field), Width: d.width}
		switch d.field {
		case enc.FImplicit:
			if r := facts.ops[i].special; r != 0 {
				o.Kind, o.Class, o.Reg, o.Width = isa.KindReg, isa.Special, r-1, facts.ops[i].specialWidth
				if k == enc.SDWAC && d.text == "vcc" && mSDWASD.get(w) != 0 {
					code := (w[1] >> 8) & 0x7f
					var pad uint32
					o, pad = srcOperand(code, 2, false)
					o.Role, o.Field = d.role, isa.Field(enc.FSDstV)
					cov[1] |= 0x7f << 8
					in.Pad[1] |= pad << 8
				}
			} else {
				o.Kind = isa.KindImm
			}
			in.Operands = append(in.Operands, o)
			continue
		case enc.FLiteral:
			o.Kind, o.Width, o.Imm = isa.KindLiteral, 0, int64(in.Literal)
			in.Operands = append(in.Operands, o)
			continue
		}
		var bb enc.Bits
		var ok bool
		if k == e.kind {
			bb = facts.ops[i].bits
			ok = bb.Width != 0
		} else {
			bb, ok = enc.Lookup(k, d.field)
		}
		if !ok {
			return errAt(pc, d.field.String(), "%s: field not in %v", e.mnem, k)
		}
		cov[bb.Word] |= bb.Mask()
		v := bb.Get(w)
		var pad uint32
		srcIdx := int(facts.ops[i].src)
		switch bb.Code {
		case enc.CodeSrc9, enc.CodeSrc8, enc.CodeSDst7:
			if d.class == 'i' && d.text == "gpr_idx" {
				o.Kind, o.Width, o.Imm = isa.KindImm, 0, int64(v)
				break
			}
			ag := d.class == 'a'
			if (k == enc.MAI && facts.mfma) || k == enc.VOP3PX2 {
				if srcIdx >= 0 && d.class != 'a' {
					ag = agpr[srcIdx+1]
					if srcIdx == 2 && facts.smfmac {
						ag = false
					}
				}
			}
			if d.field == enc.FScale0 || d.field == enc.FScale1 {
				ag = false
			}
			role, field := o.Role, o.Field
			if d.field == enc.FSAddr && v == 0x7f {
				o = isa.Operand{Kind: isa.KindOff}
			} else {
				pad = srcOperandTo(&o, v, d.width, ag)
			}
			o.Role, o.Field = role, field
			if k == enc.MUBUF && d.field == enc.FVAddr && !md.Offen && !md.Idxen {
				o = isa.Operand{Kind: isa.KindOff, Role: o.Role, Field: o.Field}
			}
			if k == enc.SMEM && d.field == enc.FSOffset && !md.SMemSOE {
				// soffset is not used: keep the bits as padding.
				cov[bb.Word] &^= bb.Mask()
				continue
			}
		case enc.CodeVGPR8:
			if (k == enc.MUBUF || k == enc.MTBUF) && d.field == enc.FVAddr && !md.Offen && !md.Idxen {
				cov[bb.Word] &^= bb.Mask()
				in.Operands = append(in.Operands, isa.Operand{Kind: isa.KindOff, Role: o.Role, Field: o.Field})
				continue
			}
			if k == enc.FLAT && d.field == enc.FAddr && (w[0]>>14)&3 == 1 && mFlatSVE.get(w) == 0 {
				cov[bb.Word] &^= bb.Mask()
				in.Operands = append(in.Operands, isa.Operand{Kind: isa.KindOff, Role: o.Role, Field: o.Field})
				continue
			}
			if (k == enc.MUBUF || k == enc.MTBUF) && d.field == enc.FVAddr && md.Offen && md.Idxen {
				o.Width = 2
			}
			o.Kind, o.Class, o.Reg = isa.KindReg, isa.VGPR, uint16(v)
			switch {
			case d.class == 's':
				o2, p := srcOperand(v, d.width, false)
				o2.Role, o2.Field = o.Role, o.Field
				o, pad = o2, p
			case d.class == 'a':
				o.Class = isa.AGPR
			case k == enc.MAI || k == enc.VOP3PX2:
				if agpr[0] {
					o.Class = isa.AGPR
				}
			case k == enc.DS || k == enc.FLAT || k == enc.MUBUF || k == enc.MTBUF:
				if agpr[0] && d.field != enc.FAddr && d.field != enc.FVAddr {
					o.Class = isa.AGPR
				}
			}
			if k >= enc.SDWA1 && k <= enc.SDWAC && d.field == enc.FSrc0 {
				o.Reg = uint16(v)
			}
		case enc.CodeImm:
			if k >= enc.SDWA1 && k <= enc.SDWAC && (d.field == enc.FSrc0 || d.field == enc.FVSrc1) {
				s := mSDWAS0.get(w)
				cov[1] |= mSDWAS0.mask()
				if d.field == enc.FVSrc1 {
					s = mSDWAS1.get(w)
					cov[1] |= mSDWAS1.mask()
				}
				code := v + 256
				if s != 0 {
					code = v
				}
				o2, p := srcOperand(code, d.width, false)
				o2.Role, o2.Field = o.Role, o.Field
				o, pad = o2, p
			} else if k == enc.SMEM && d.field == enc.FSMOff && md.SMemSOE {
				// soffset from word 1 [31:25]; the immediate, if any, is
				// a modifier.
				cov[bb.Word] &^= bb.Mask()
				if md.SMemImm {
					cov[bb.Word] |= bb.Mask()
					md.Offset = int32(v<<11) >> 11
				}
				sb, _ := enc.Lookup(k, enc.FSOffset)
				cov[sb.Word] |= sb.Mask()
				o2, _ := srcOperand(sb.Get(w), 1, false)
				o2.Role, o2.Field = o.Role, isa.Field(enc.FSOffset)
				o = o2
			} else if k == enc.SMEM && d.field == enc.FSMOff && !md.SMemImm {
				o2, _ := srcOperand(v&0xff, 1, false)
				o2.Role, o2.Field = o.Role, o.Field
				o = o2
				cov[bb.Word] &^= bb.Mask() &^ 0xff
			} else if k == enc.SMEM && d.field == enc.FSMOff {
				o.Kind, o.Width, o.Imm = isa.KindImm, 0, int64(int32(v<<11)>>11)
			} else {
				o.Kind, o.Width, o.Imm = isa.KindImm, 0, int64(v)
				if br := opInfos[e.info].Branch; d.field == enc.FSImm16 && (br == isa.BranchJump || br == isa.BranchCond || br == isa.BranchCall) {
					o.Kind, o.Imm = isa.KindLabel, int64(int16(v))
				}
			}
		case enc.CodeSBase6, enc.CodeSRsrc5:
			code, wd := 2*v, uint8(2)
			if bb.Code == enc.CodeSRsrc5 {
				code, wd = 4*v, 4
			}
			if d.width > wd {
				wd = d.width
			}
			o2, p := srcOperand(code, wd, false)
			o2.Role, o2.Field = o.Role, o.Field
			o = o2
			if bb.Code == enc.CodeSRsrc5 {
				pad = p / 4
			} else {
				pad = p / 2
			}
		}
		if pad != 0 {
			in.Pad[bb.Word] |= pad << bb.Lo
		}
		if srcIdx >= 0 {
			consumed |= 1 << srcIdx
		}
		if srcIdx >= 0 && k != enc.MAI {
			if negBits>>srcIdx&1 != 0 {
				o.Mods |= isa.ModNeg
			}
			if absBits>>srcIdx&1 != 0 {
				o.Mods |= isa.ModAbs
			}
			if absBits>>(4+srcIdx)&1 != 0 {
				o.Mods |= isa.ModSext
			}
		}
		o.Type = facts.ops[i].typ
		if k >= enc.SDWA1 && k <= enc.SDWA2 && d.field == enc.FVDst && md.DstUnused == 2 {
			o.Role |= isa.Use // UNUSED_PRESERVE keeps the unselected bits
		}
		if k >= enc.DPP1 && k <= enc.DPP2 && d.field == enc.FVDst && (md.RowMask != 0xf || md.BankMask != 0xf || !md.BoundCtrl) {
			o.Role |= isa.Use // masked-off or unbound lanes keep their value
		}
		if k == enc.VOP3 && d.field == enc.FVDst && e.opselN > 0 && md.OpSel&8 != 0 {
			o.Role |= isa.Use // op_sel writes the high half and keeps the low
		}
		if k == enc.SMEM && d.field == enc.FSData && d.role == isa.UseDef && !md.SC0 {
			o.Role = isa.Use // an atomic without glc returns nothing
		}
		in.Operands = append(in.Operands, o)
	}
	finishFields(in, e, facts, k, w, &cov, negBits, absBits, consumed)
	return nil
}

// finishFields ends decodeFields on both paths: the source modifiers no
// operand consumed, the operand shapes, the acc bits, and the bits no
// field covered as padding.
func finishFields(in *isa.Inst, e *entry, facts *litCheck, k enc.Kind, w []uint32, cov *[maxWords]uint32, negBits, absBits, consumed uint32) {
	padSrcMods(in, k, negBits&^consumed, absBits&^consumed, (absBits>>4)&^consumed)
	fixShapes(in, facts, k, w)
	fixAccPad(in, e, k, w, agprBits(k, w))
	for i := range w {
		in.Pad[i] |= w[i] &^ cov[i]
	}
}

// decodePlan writes the operands of a row with an operand plan (plan) as
// the general loop of decodeFields does, marking their bits in cov and
// their padding in in.Pad, and returns the source indexes it consumed.
// in.Operands has room for every operand.
func decodePlan(in *isa.Inst, plan []opPlan, w []uint32, cov *[maxWords]uint32, agpr *[4]bool, negBits, absBits uint32) uint32 {
	consumed := uint32(0)
	ops := in.Operands[:len(plan)]
	for i := range plan {
		p := &plan[i]
		o := &ops[i]
		*o = p.tmpl
		switch p.plain {
		case planSpecial, planImplicitImm:
			continue
		case planLiteral:
			o.Imm = int64(in.Literal)
			continue
		}
		cov[p.word&(maxWords-1)] |= p.mask << p.lo
		v := (w[p.word] >> p.lo) & p.mask
		switch p.plain {
		case plainSrc, plainSrcAcc:
			switch {
			case v >= 256:
				// A VGPR (or AGPR) source, as srcOperandTo writes it.
				o.Reg = uint16(v - 256)
				if p.plain == plainSrcAcc && agpr[p.acc&3] {
					o.Class = isa.AGPR
				}
			case v < 102:
				// An SGPR, aligned as srcOperandTo aligns it.
				a := align(v, o.Width)
				o.Class, o.Reg = isa.SGPR, uint16(a)
				if a != v {
					in.Pad[p.word&(maxWords-1)] |= (v - a) << p.lo
				}
			case v >= 108 && v < 124:
				a := align(v-108, o.Width)
				o.Class, o.Reg = isa.TTMP, uint16(a)
				if a != v-108 {
					in.Pad[p.word&(maxWords-1)] |= (v - 108 - a) << p.lo
				}
			case v >= 128 && v <= 208 || v >= 240 && v <= 248:
				o.Kind, o.Class, o.Imm, o.Width = isa.KindInline, 0, int64(v), 0
			case v == 255:
				o.Kind, o.Class, o.Width = isa.KindLiteral, 0, 0
			default:
				// The rest of srcOperandTo's cases, written here so that
				// the loop makes no calls.
				o.Class = isa.Special
				if r := specialTab[v&0xff]; r != 0 {
					o.Reg = r - 1
				} else {
					o.Reg, o.Imm = uint16(isa.RegEncoded), int64(v)
				}
			}
		case plainVGPR:
			o.Reg = uint16(v)
		case plainVGPRAcc:
			o.Reg = uint16(v)
			if agpr[p.acc&3] {
				o.Class = isa.AGPR
			}
		case plainImm:
			o.Imm = int64(v)
		default: // plainLabel
			o.Imm = int64(int16(v))
		}
		if s := p.src; s >= 0 {
			consumed |= 1 << s
			o.Mods |= srcMods(s, negBits, absBits)
		}
	}
	in.Operands = ops
	return consumed
}

// valueType reports what the oracle probes revealed about how a source
// reads constants: 16-bit integer, 16-bit float, or 64-bit float. Other
// sources are TypeAny (the probes cannot tell f32 from i32).
func valueType(d *opnd) isa.ValueType {
	switch {
	case d.typ == 'h':
		return isa.TypeI16
	case d.lit == 'H':
		return isa.TypeF16
	case d.lit == 'F':
		return isa.TypeF64
	}
	return isa.TypeAny
}

// fixShapes adjusts operands whose width or presence depends on modifier
// bits rather than on the opcode.
func fixShapes(in *isa.Inst, facts *litCheck, k enc.Kind, w []uint32) {
	switch k {
	case enc.MAI, enc.VOP3PX2:
		if facts.f8f6f4 {
			for i := range in.Operands {
				o := &in.Operands[i]
				switch enc.FieldID(o.Field) {
				case enc.FSrc0:
					o.Width = f8f6f4Width(in.Mod.CBSZ)
				case enc.FSrc1:
					o.Width = f8f6f4Width(in.Mod.BLGP)
				}
			}
		}
	case enc.FLAT:
		seg := (w[0] >> 14) & 3
		for i := range in.Operands {
			o := &in.Operands[i]
			if enc.FieldID(o.Field) == enc.FAddr {
				switch seg {
				case 2:
					if w[1]>>16&0x7f != 0x7f {
						o.Width = 1
					} else {
						o.Width = 2
					}
				case 1:
					o.Width = 1
				default:
					o.Width = 2
				}
			}
			if enc.FieldID(o.Field) == enc.FSAddr && o.Kind == isa.KindReg && (o.Class == isa.SGPR || o.Class == isa.TTMP || o.Class == isa.Special) {
				if seg == 1 {
					o.Width = 1
				} else {
					o.Width = 2
				}
				if o.Class == isa.Special {
					continue
				}
				a := uint16(align(uint32(o.Reg), o.Width))
				in.Pad[1] |= uint32(o.Reg-a) << 16
				o.Reg = a
			}
		}
	}
}

func f8f6f4Width(f uint8) uint8 {
	switch f {
	case 2, 3:
		return 6
	case 4:
		return 4
	}
	return 8
}

// agprBits returns the raw acc bits of MAI (src0/src1) and memory encodings.
func agprBits(k enc.Kind, w []uint32) uint32 {
	switch k {
	case enc.MAI:
		return mMAIAcc.get(w)
	case enc.VOP3PX2:
		return modField{3, 27, 2}.get(w)
	case enc.DS:
		return mDSAcc.get(w)
	case enc.FLAT:
		return mFlatAcc.get(w)
	case enc.MUBUF, enc.MTBUF:
		return mBufAcc.get(w)
	}
	return 0
}

// fixAccPad moves acc bits that no operand accounts for into Pad, so that
// Encode, which derives acc bits from AGPR operands, reproduces them.
func fixAccPad(in *isa.Inst, e *entry, k enc.Kind, w []uint32, acc uint32) {
	if acc == 0 {
		return
	}
	used := uint32(0)
	for i := range in.Operands {
		o := &in.Operands[i]
		if o.Kind != isa.KindReg || o.Class != isa.AGPR || i >= len(e.ops) || e.ops[i].class == 'a' {
			continue
		}
		switch k {
		case enc.MAI, enc.VOP3PX2:
			switch enc.FieldID(o.Field) {
			case enc.FSrc0:
				used |= 1
			case enc.FSrc1:
				used |= 2
			}
		default:
			used = 1
		}
	}
	rest := acc &^ used
	switch k {
	case enc.MAI:
		in.Pad[1] |= rest << 27
	case enc.VOP3PX2:
		in.Pad[3] |= rest << 27
	case enc.DS:
		in.Pad[0] |= rest << 25
	case enc.FLAT, enc.MUBUF, enc.MTBUF:
		in.Pad[1] |= rest << 23
	}
}

// padSrcMods keeps source-modifier bits of sources the opcode does not have.
func padSrcMods(in *isa.Inst, k enc.Kind, neg, abs, sext uint32) {
	if neg|abs|sext == 0 {
		return
	}
	for i := uint32(0); i < 3; i++ {
		n, a, x := neg>>i&1, abs>>i&1, sext>>i&1
		switch k {
		case enc.VOP3:
			in.Pad[1] |= n << (29 + i)
			in.Pad[0] |= a << (8 + i)
		case enc.SDWA1, enc.SDWA2, enc.SDWAC:
			if i < 2 {
				in.Pad[1] |= n<<(20+8*i) | a<<(21+8*i) | x<<(19+8*i)
			}
		case enc.DPP1, enc.DPP2, enc.DPPC:
			if i < 2 {
				in.Pad[1] |= n<<(20+2*i) | a<<(21+2*i)
			}
		case enc.VOP3P:
			in.Pad[1] |= n << (29 + i)
			in.Pad[0] |= a << (8 + i)
		}
	}
}

// srcMods returns the modifiers of source s from the neg and abs bits
// (neg and abs at bit s, sext at abs bit 4+s).
func srcMods(s int8, negBits, absBits uint32) isa.SrcMods {
	var m isa.SrcMods
	if negBits>>s&1 != 0 {
		m |= isa.ModNeg
	}
	if absBits>>s&1 != 0 {
		m |= isa.ModAbs
	}
	if absBits>>(4+s)&1 != 0 {
		m |= isa.ModSext
	}
	return m
}
