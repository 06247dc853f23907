package gfx9

import (
	"encoding/binary"
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9/internal/enc"
)

// baseWords returns the fixed bits (prefix and opcode) of an entry.
func baseWords(e *entry) [maxWords]uint32 {
	var w [maxWords]uint32
	op := uint32(e.op)
	switch e.kind {
	case enc.SOP1:
		w[0] = 0xBE800000 | op<<8
	case enc.SOP2:
		w[0] = 0x80000000 | op<<23
	case enc.SOPK:
		w[0] = 0xB0000000 | op<<23
	case enc.SOPC:
		w[0] = 0xBF000000 | op<<16
	case enc.SOPP:
		w[0] = 0xBF800000 | op<<16
	case enc.SMEM:
		w[0] = 0xC0000000 | op<<18
	case enc.VOP1, enc.SDWA1, enc.DPP1:
		w[0] = 0x7E000000 | op<<9
	case enc.VOP2, enc.SDWA2, enc.DPP2:
		w[0] = op << 25
	case enc.VOPC, enc.SDWAC, enc.DPPC:
		w[0] = 0x7C000000 | op<<17
	case enc.VOP3:
		w[0] = 0xD0000000 | op<<16
	case enc.VOP3P, enc.MAI:
		w[0] = 0xD3800000 | op<<16
	case enc.VOP3PX2:
		w[0] = 0xD3800000 | 0x2c<<16
		w[2] = 0xD3800000 | op<<16
	case enc.DS:
		w[0] = 0xD8000000 | op<<17
	case enc.FLAT:
		w[0] = 0xDC000000 | op<<18 | uint32(e.aux&3)<<14
	case enc.MUBUF:
		w[0] = 0xE0000000 | op<<18
	case enc.MTBUF:
		w[0] = 0xE8000000 | op<<15
	}
	switch e.kind {
	case enc.SDWA1, enc.SDWA2, enc.SDWAC:
		w[0] |= 249
	case enc.DPP1, enc.DPP2, enc.DPPC:
		w[0] |= 250
	}
	return w
}

func put(w []uint32, m modField, v uint32) {
	w[m.word] = w[m.word]&^m.mask() | (v<<m.lo)&m.mask()
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// Encode returns the machine code of in: its encoding, operands, modifiers
// and padding bits, followed by its literal.
func Encode(in *isa.Inst) ([]byte, error) {
	return AppendEncode(nil, in)
}

// AppendEncode appends the machine code of in to dst.
func AppendEncode(dst []byte, in *isa.Inst) ([]byte, error) {
	if int(in.Enc) >= len(entries) {
		return dst, fmt.Errorf("gfx9: encode: instruction has no encoding-table row")
	}
	e := &entries[in.Enc]
	k := e.kind
	w := baseWords(e)
	nw := 2
	switch k {
	case enc.SOP1, enc.SOP2, enc.SOPK, enc.SOPC, enc.SOPP, enc.VOP1, enc.VOP2, enc.VOPC:
		nw = 1
	case enc.VOP3PX2:
		nw = 4
	}
	md := &in.Mod
	var negBits, absBits, sextBits uint32
	for i, o := range in.Operands {
		if i >= len(e.ops) {
			break
		}
		idx := -1
		switch e.ops[i].field {
		case enc.FSrc0:
			idx = 0
		case enc.FSrc1, enc.FVSrc1:
			idx = 1
		case enc.FSrc2:
			idx = 2
		}
		if idx >= 0 {
			if o.Mods&isa.ModNeg != 0 {
				negBits |= 1 << idx
			}
			if o.Mods&isa.ModAbs != 0 {
				absBits |= 1 << idx
			}
			if o.Mods&isa.ModSext != 0 {
				sextBits |= 1 << idx
			}
		}
	}
	ws := w[:]
	switch k {
	case enc.VOP3:
		if !hasField(e, enc.FSDstV) {
			put(ws, mVOP3Abs, absBits)
			put(ws, mVOP3OpSel, uint32(md.OpSel))
		}
		put(ws, mClamp15, b2u(md.Clamp))
		put(ws, mVOP3OMod, uint32(md.OMod))
		put(ws, mVOP3Neg, negBits)
	case enc.VOP3P:
		if e.flags&(fNeg0|fNeg1|fNeg2|fAbs0|fAbs1|fAbs2) != 0 {
			put(ws, mPNegHi, uint32(md.NegHi)|absBits)
			put(ws, mVOP3Neg, uint32(md.NegLo)|negBits)
			put(ws, mPOpSel, uint32(md.OpSel))
			put(ws, mPOpSelHi, uint32(md.OpSelHi))
			put(ws, mPOpSelHi2, uint32(md.OpSelHi>>2))
			put(ws, mClamp15, b2u(md.Clamp))
			break
		}
		put(ws, mPNegHi, uint32(md.NegHi))
		put(ws, mPOpSel, uint32(md.OpSel))
		put(ws, mPOpSelHi, uint32(md.OpSelHi))
		put(ws, mPOpSelHi2, uint32(md.OpSelHi>>2))
		put(ws, mClamp15, b2u(md.Clamp))
		put(ws, mVOP3Neg, uint32(md.NegLo))
	case enc.MAI, enc.VOP3PX2:
		off := uint8(0)
		if k == enc.VOP3PX2 {
			off = 2
			put(ws, modField{0, 11, 3}, uint32(md.OpSel))
			put(ws, modField{1, 27, 2}, uint32(md.OpSelHi))
			put(ws, modField{0, 14, 1}, uint32(md.OpSelHi>>2))
			put(ws, modField{1, 29, 3}, uint32(md.NegLo))
			put(ws, modField{0, 8, 3}, uint32(md.NegHi))
		}
		put(ws, modField{off, 8, 3}, uint32(md.CBSZ))
		put(ws, modField{off, 11, 4}, uint32(md.ABID))
		put(ws, modField{off, 15, 1}, b2u(md.AccCD))
		acc := uint32(0)
		for i, o := range in.Operands {
			if i < len(e.ops) && o.Kind == isa.KindReg && o.Class == isa.AGPR && e.ops[i].class != 'a' {
				switch e.ops[i].field {
				case enc.FSrc0:
					acc |= 1
				case enc.FSrc1:
					acc |= 2
				}
			}
		}
		put(ws, modField{off + 1, 27, 2}, acc)
		put(ws, modField{off + 1, 29, 3}, uint32(md.BLGP))
	case enc.SDWA1, enc.SDWA2, enc.SDWAC:
		if k != enc.SDWAC {
			put(ws, mSDWADstSel, uint32(md.DstSel))
			put(ws, mSDWADstUn, uint32(md.DstUnused))
			put(ws, mSDWAClamp, b2u(md.Clamp))
			put(ws, mSDWAOMod, uint32(md.OMod))
		}
		put(ws, mSDWAS0Sel, uint32(md.Src0Sel))
		put(ws, mSDWAS1Sel, uint32(md.Src1Sel))
		put(ws, mSDWAS0Neg, negBits&1)
		put(ws, mSDWAS0Abs, absBits&1)
		put(ws, mSDWAS1Neg, negBits>>1&1)
		put(ws, mSDWAS1Abs, absBits>>1&1)
		if k == enc.SDWAC {
			sd := uint32(0)
			for _, o := range in.Operands {
				if enc.FieldID(o.Field) == enc.FSDstV {
					sd = 1
				}
			}
			put(ws, mSDWASD, sd)
		}
		put(ws, mSDWAS0Sext, sextBits&1)
		put(ws, mSDWAS1Sext, sextBits>>1&1)
	case enc.DPP1, enc.DPP2, enc.DPPC:
		put(ws, mDPPCtrl, uint32(md.DPPCtrl))
		put(ws, mDPPBound, b2u(md.BoundCtrl))
		put(ws, mDPPNeg0, negBits&1)
		put(ws, mDPPNeg1, negBits>>1&1)
		put(ws, mDPPAbs0, absBits&1)
		put(ws, mDPPAbs1, absBits>>1&1)
		put(ws, mDPPBank, uint32(md.BankMask))
		put(ws, mDPPRow, uint32(md.RowMask))
	case enc.DS:
		put(ws, mDSOff0, uint32(md.Offset))
		put(ws, mDSOff1, uint32(md.Offset1))
		put(ws, mDSGDS, b2u(md.GDS))
		put(ws, mDSAcc, b2u(usesAGPRData(in, e)))
	case enc.FLAT:
		put(ws, mFlatOff, uint32(md.Offset))
		put(ws, mFlatSVE, b2u(md.LDS))
		put(ws, mFlatSC0, b2u(md.SC0))
		put(ws, mFlatNT, b2u(md.NT))
		put(ws, mFlatSC1, b2u(md.SC1))
		put(ws, mFlatAcc, b2u(usesAGPRData(in, e)))
	case enc.MUBUF:
		put(ws, mBufOff, uint32(md.Offset))
		put(ws, mBufOffen, b2u(md.Offen))
		put(ws, mBufIdxen, b2u(md.Idxen))
		put(ws, mBufSC0, b2u(md.SC0))
		put(ws, mBufSC1, b2u(md.SC1))
		put(ws, mBufLDS, b2u(md.LDS))
		put(ws, mBufNT, b2u(md.NT))
		put(ws, mBufAcc, b2u(usesAGPRData(in, e)))
	case enc.MTBUF:
		put(ws, mBufOff, uint32(md.Offset))
		put(ws, mBufOffen, b2u(md.Offen))
		put(ws, mBufIdxen, b2u(md.Idxen))
		put(ws, mBufSC0, b2u(md.SC0))
		put(ws, mTBufFmt, uint32(md.Format))
		put(ws, mTBufSC1, b2u(md.SC1))
		put(ws, mTBufNT, b2u(md.NT))
		put(ws, mBufAcc, b2u(usesAGPRData(in, e)))
	case enc.SMEM:
		if md.SMemSOE && md.SMemImm {
			put(ws, modField{1, 0, 21}, uint32(md.Offset))
		}
		put(ws, mSMemGLC, b2u(md.SC0))
		put(ws, mSMemNV, b2u(md.NV))
		put(ws, mSMemImm, b2u(md.SMemImm))
		put(ws, mSMemSOE, b2u(md.SMemSOE))
	}
	if len(in.Operands) != len(e.ops) {
		return dst, fmt.Errorf("gfx9: encode %s: %d operands, the encoding has %d", e.mnem, len(in.Operands), len(e.ops))
	}
	for i := range in.Operands {
		o := &in.Operands[i]
		f := enc.FieldID(o.Field)
		if f == enc.FImplicit || f == enc.FLiteral || f == enc.FNone {
			continue
		}
		if k == enc.SDWAC && f == enc.FSDstV {
			put(ws, modField{1, 8, 7}, operandCode(o))
			continue
		}
		bb, ok := enc.Lookup(k, f)
		if !ok {
			return dst, fmt.Errorf("gfx9: encode %s: field %v not in %v", e.mnem, f, k)
		}
		var v uint32
		switch bb.Code {
		case enc.CodeSrc9, enc.CodeSrc8, enc.CodeSDst7:
			v = operandCode(o)
			if o.Kind == isa.KindImm {
				v = uint32(o.Imm)
			}
			if o.Kind == isa.KindReg && (o.Class == isa.VGPR || o.Class == isa.AGPR) && o.Reg > 255 {
				return dst, fmt.Errorf("gfx9: encode %s: %v register %d out of range", e.mnem, f, o.Reg)
			}
			if o.Kind == isa.KindReg && (o.Class == isa.SGPR && o.Reg > 101 || o.Class == isa.TTMP && o.Reg > 15) {
				return dst, fmt.Errorf("gfx9: encode %s: %v scalar register %d out of range", e.mnem, f, o.Reg)
			}
			if o.Kind == isa.KindLiteral && !in.HasLiteral {
				return dst, fmt.Errorf("gfx9: encode %s: literal operand without Inst.HasLiteral", e.mnem)
			}
			if bb.Code != enc.CodeSrc9 && v >= 256 {
				return dst, fmt.Errorf("gfx9: encode %s: %v cannot hold a vector register", e.mnem, f)
			}
		case enc.CodeVGPR8:
			if o.Kind == isa.KindOff {
				continue
			}
			vec := o.Kind == isa.KindReg && (o.Class == isa.VGPR || o.Class == isa.AGPR)
			if vec {
				if o.Reg > 255 {
					return dst, fmt.Errorf("gfx9: encode %s: %v register %d out of range", e.mnem, f, o.Reg)
				}
				v = uint32(o.Reg)
			} else {
				if i < len(e.ops) && e.ops[i].class != 's' {
					return dst, fmt.Errorf("gfx9: encode %s: %v needs a vector register", e.mnem, f)
				}
				v = operandCode(o)
			}
		case enc.CodeImm:
			if k >= enc.SDWA1 && k <= enc.SDWAC && (f == enc.FSrc0 || f == enc.FVSrc1) {
				c := operandCode(o)
				s := modField{1, 23, 1}
				if f == enc.FVSrc1 {
					s = modField{1, 31, 1}
				}
				if c >= 256 {
					v = c - 256
					put(ws, s, 0)
				} else {
					v = c
					put(ws, s, 1)
				}
			} else {
				v = uint32(o.Imm)
			}
		case enc.CodeSBase6:
			v = operandCode(o) / 2
		case enc.CodeSRsrc5:
			v = operandCode(o) / 4
		}
		if o.Kind == isa.KindOff {
			v = 0x7f
			if f != enc.FSAddr {
				continue
			}
		}
		if k == enc.SMEM && f == enc.FSMOff {
			if o.Kind == isa.KindImm {
				v = uint32(o.Imm) & 0x1fffff
			} else {
				v = operandCode(o)
			}
		}
		// Keep padding bits (alignment remainders) that decode stored.
		pad := (in.Pad[bb.Word] >> bb.Lo) & (1<<bb.Width - 1)
		bb.Set(ws, v|pad)
	}
	for i := 0; i < nw; i++ {
		dst = binary.LittleEndian.AppendUint32(dst, w[i]|in.Pad[i])
	}
	if in.HasLiteral {
		dst = binary.LittleEndian.AppendUint32(dst, in.Literal)
	}
	return dst, nil
}

func hasField(e *entry, f enc.FieldID) bool {
	for _, o := range e.ops {
		if o.field == f {
			return true
		}
	}
	return false
}

// usesAGPRData reports whether the data or destination registers of a
// memory instruction are AGPRs.
func usesAGPRData(in *isa.Inst, e *entry) bool {
	for i, o := range in.Operands {
		if i < len(e.ops) && o.Kind == isa.KindReg && o.Class == isa.AGPR {
			return true
		}
	}
	return false
}
