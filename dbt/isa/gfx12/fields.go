package gfx12

import (
	"strings"
	"sync"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12/internal/enc"
)

// Scalar operand codes of GFX12.
const (
	codeVCCLo  = 106
	codeVCCHi  = 107
	codeTTMP0  = 108
	codeNull   = 124
	codeM0     = 125
	codeEXECLo = 126
	codeEXECHi = 127
	codeLit    = 255
)

// specialByCode maps scalar operand codes to the special registers they
// name. Built on first use; every call returns the same map.
var specialByCode = sync.OnceValue(func() map[uint32]isa.SpecialReg {
	return map[uint32]isa.SpecialReg{
		codeVCCLo: isa.RegVCCLo, codeVCCHi: isa.RegVCCHi, codeNull: isa.RegNull, codeM0: isa.RegM0,
		codeEXECLo: isa.RegEXECLo, codeEXECHi: isa.RegEXECHi, 235: isa.RegSharedBase, 236: isa.RegSharedLimit,
		237: isa.RegPrivateBase, 238: isa.RegPrivateLimit, 239: isa.RegPopsExitingWaveID,
		251: isa.RegVCCZ, 252: isa.RegEXECZ, 253: isa.RegSCC, 254: isa.RegLDSDirect,
	}
})

// codeBySpecial is the inverse of specialByCode. Built on first use; every
// call returns the same map.
var codeBySpecial = sync.OnceValue(func() map[isa.SpecialReg]uint32 {
	m := map[isa.SpecialReg]uint32{}
	for c, r := range specialByCode() {
		m[r] = c
	}
	return m
})

// specialByName maps assembler names to special registers. Built on first
// use; every call returns the same map.
var specialByName = sync.OnceValue(func() map[string]isa.SpecialReg {
	return map[string]isa.SpecialReg{
		"vcc_lo": isa.RegVCCLo, "vcc": isa.RegVCCLo, "vcc_hi": isa.RegVCCHi, "exec_lo": isa.RegEXECLo, "exec": isa.RegEXECLo,
		"exec_hi": isa.RegEXECHi, "m0": isa.RegM0, "null": isa.RegNull, "scc": isa.RegSCC,
	}
})

// scalarOperand decodes a scalar (or VALU source) operand code.
func scalarOperand(code uint32, width uint8) isa.Operand {
	switch {
	case code < codeVCCLo:
		return isa.Operand{Kind: isa.KindReg, Class: isa.SGPR, Reg: uint16(code), Width: width}
	case code >= codeTTMP0 && code < codeTTMP0+16:
		return isa.Operand{Kind: isa.KindReg, Class: isa.TTMP, Reg: uint16(code - codeTTMP0), Width: width}
	case code >= 256:
		return isa.Operand{Kind: isa.KindReg, Class: isa.VGPR, Reg: uint16(code - 256), Width: width}
	case code == codeLit:
		return isa.Operand{Kind: isa.KindLiteral, Width: width}
	case enc.IsConst(code):
		return isa.Operand{Kind: isa.KindInline, Imm: int64(code), Width: width}
	}
	if r, ok := specialByCode()[code]; ok && r != isa.RegLDSDirect {
		return isa.Operand{Kind: isa.KindReg, Class: isa.Special, Reg: uint16(r), Width: width}
	}
	// 209..234, 249, 250, 254: no operand on GFX12 (LLVM rejects them).
	return isa.Operand{Kind: isa.KindNone, Imm: int64(code)}
}

// scalarCode is the inverse of scalarOperand.
func scalarCode(o *isa.Operand) (uint32, bool) {
	switch o.Kind {
	case isa.KindReg:
		switch o.Class {
		case isa.SGPR:
			return uint32(o.Reg), o.Reg < codeVCCLo
		case isa.TTMP:
			return codeTTMP0 + uint32(o.Reg), o.Reg < 16
		case isa.VGPR:
			return 256 + uint32(o.Reg), o.Reg < 256
		case isa.Special:
			if isa.SpecialReg(o.Reg) == isa.RegEncoded {
				return uint32(o.Imm), true
			}
			c, ok := codeBySpecial()[isa.SpecialReg(o.Reg)]
			return c, ok
		}
	case isa.KindInline:
		return uint32(o.Imm), true
	case isa.KindLiteral:
		return codeLit, true
	}
	return 0, false
}

func signExtend(v uint32, n uint8) int64 {
	s := 64 - uint(n)
	return int64(uint64(v)<<s) >> s
}

// srcIndex returns the source index (0..2) of a VOP3-style source field.
func srcIndex(f enc.FieldID) int {
	switch f {
	case enc.F3Src0, enc.FSrc0, enc.FDPPSrc0:
		return 0
	case enc.F3Src1, enc.FVSrc1:
		return 1
	case enc.F3Src2:
		return 2
	}
	return -1
}

// owned returns the masks of the fields an entry's operands and modifiers
// own; the remaining bits go to Inst.Pad.
func ownedMask(e *entry, k enc.Kind, aux int, nw int) [maxWords]uint32 {
	var m [maxWords]uint32
	own := func(f enc.FieldID) {
		b := enc.Layout[f]
		i := int(b.W)
		if b.W == enc.LastWord {
			i = nw - 1
		}
		m[i] |= b.Mask()
	}
	for i := range e.ops {
		if f := e.ops[i].field; f != enc.FNone && f != fLit && e.ops[i].class != 'o' {
			own(f)
		}
	}
	hasSDst := false
	for i := range e.ops {
		if e.ops[i].field == enc.F3SDst {
			hasSDst = true
		}
	}
	switch k {
	case enc.VOP3:
		own(enc.F3Clamp)
		own(enc.F3OMod)
		own(enc.F3Neg)
		if !hasSDst {
			own(enc.F3OpSel)
			own(enc.F3Abs)
		}
	case enc.VOP3P:
		own(enc.F3Clamp)
		own(enc.FPOpSel)
		own(enc.FPOpSelH)
		own(enc.FPOpSelL)
		own(enc.F3Neg)
		own(enc.FPNegHi)
	case enc.VINTERP:
		own(enc.F3Clamp)
		own(enc.F3OpSel)
		own(enc.F3Neg)
	case enc.SMEM:
		own(enc.FSMOff)
	case enc.DS:
		own(enc.FDSOff0)
		own(enc.FDSOff1)
	case enc.FLAT, enc.GLOBAL, enc.SCRATCH:
		own(enc.FFOff)
	case enc.VBUFFER:
		own(enc.FBOff)
		own(enc.FBOffen)
		own(enc.FBIdxen)
		own(enc.FBFormat)
	}
	if isVALU(k) && aux == enc.AuxDPP16 {
		for _, f := range []enc.FieldID{enc.FDPPCtrl, enc.FDPPFI, enc.FDPPBC, enc.FDPPBank, enc.FDPPRow} {
			own(f)
		}
		if k == enc.VOP1 || k == enc.VOP2 || k == enc.VOPC {
			for _, f := range []enc.FieldID{enc.FDPPNeg0, enc.FDPPAbs0, enc.FDPPNeg1, enc.FDPPAbs1} {
				own(f)
			}
		}
	}
	return m
}

func width(o *opnd, wave64 bool) uint8 {
	if wave64 {
		return o.w64
	}
	return o.w32
}

// decodeFields fills the operands and modifiers of in from the dwords.
func decodeFields(in *isa.Inst, e *entry, k enc.Kind, aux int, w []uint32, wave64 bool, pc uint64) error {
	get := func(f enc.FieldID) uint32 { return enc.Layout[f].Get(w) }
	var dropBits [8]uint32
	for i := range e.ops {
		d := &e.ops[i]
		wd := width(d, wave64)
		var o isa.Operand
		v := uint32(0)
		if d.field == fLit {
			v = in.Literal
		} else if d.field != enc.FNone {
			v = get(d.field)
		}
		switch d.class {
		case 'c', 'd', 'S':
			o = scalarOperand(v, wd)
			if d.mods&8 != 0 && o.Class == isa.VGPR {
				o.Reg, o.Imm = uint16((v-256)&0x7f), int64((v-256)>>7) // true16 half
			}
			if o.Kind == isa.KindNone {
				return errAt(pc, "src", "%s: operand code %d is not defined on GFX12", e.mnem, v)
			}
			if o.Class == isa.SGPR && int(o.Reg)+int(wd) > codeVCCLo {
				return errAt(pc, "src", "%s: s[%d:%d] is beyond s105", e.mnem, o.Reg, int(o.Reg)+int(wd)-1)
			}
			if d.field == enc.FSMData && o.Class == isa.Special && (isa.SpecialReg(o.Reg) == isa.RegEXECLo || isa.SpecialReg(o.Reg) == isa.RegEXECHi) {
				return errAt(pc, "sdata", "%s: exec is not a scalar load destination", e.mnem)
			}
			if d.class == 'd' && wd >= 3 && o.Class == isa.Special && isa.SpecialReg(o.Reg) != isa.RegNull {
				return errAt(pc, "sdst", "%s: destination code %d is not a register tuple", e.mnem, v)
			}
			if d.class != 'c' && (o.Kind == isa.KindInline || o.Kind == isa.KindLiteral) && k != enc.SMEM {
				return errAt(pc, "sdst", "%s: destination code %d is not a register", e.mnem, v)
			}
		case 'v':
			o = isa.Operand{Kind: isa.KindReg, Class: isa.VGPR, Reg: uint16(v), Width: wd}
			if d.mods&8 != 0 {
				o.Reg, o.Imm = uint16(v&0x7f), int64(v>>7) // true16 half
			}
			if k == enc.EXP && get(enc.FEEn)>>i&1 == 0 {
				o = isa.Operand{Kind: isa.KindOff}
				dropBits[i] = v // the unused vsrc stays in Pad
			}
		case 'Y':
			x := get(enc.FDVDstX)
			o = isa.Operand{Kind: isa.KindReg, Class: isa.VGPR, Reg: uint16(v<<1 | (x&1 ^ 1)), Width: wd}
		case 'b':
			o = scalarOperand(2*v, wd)
			if o.Class == isa.SGPR && int(o.Reg&^3)+int(wd) > codeVCCLo {
				return errAt(pc, "sbase", "%s: s[%d:%d] is beyond s105", e.mnem, o.Reg, int(o.Reg)+int(wd)-1)
			}
		case 'r':
			o = scalarOperand(v, wd)
		case 'i':
			if d.field == enc.FSMData && v >= 32 {
				return errAt(pc, "sdata", "%s: immediate %d does not fit 5 bits", e.mnem, v)
			}
			o = isa.Operand{Kind: isa.KindImm, Imm: int64(v)}
			if enc.Layout[d.field].Code == enc.CodeSImm {
				o.Imm = signExtend(v, enc.Layout[d.field].N)
			}
			if in.Info.Branch == isa.BranchJump || in.Info.Branch == isa.BranchCond || strings.HasPrefix(e.mnem, "s_call") {
				o.Kind = isa.KindLabel
				o.Imm = int64(int16(v))
			}
		case 'o':
			o = isa.Operand{Kind: isa.KindOff}
		case 'n':
			name := d.n32
			if wave64 {
				name = d.n64
			}
			o = isa.Operand{Kind: isa.KindReg, Class: isa.Special, Reg: uint16(specialByName()[name]), Width: 1}
			if name == "vcc" || name == "exec" {
				o.Width = 2
			}
		case 'k':
			o = isa.Operand{Kind: isa.KindLiteral, Width: 1}
		}
		// LLVM aligns SGPR tuples down (s[18:19] for code 19, s[32:34]
		// for code 34); the dropped low bits stay in Pad.
		if o.Kind == isa.KindReg && (o.Class == isa.SGPR || o.Class == isa.TTMP) && o.Width >= 2 {
			al := uint16(1)
			if o.Width >= 3 {
				al = 3
			}
			if drop := o.Reg & al; drop != 0 {
				o.Reg &^= al
				if d.class == 'b' {
					drop >>= 1 // the field holds the register number / 2
				}
				dropBits[i] = uint32(drop)
			}
		}
		o.Role = d.role
		o.Field = isa.Field(d.field)
		if o.Kind == isa.KindLiteral {
			o.Imm = int64(in.Literal)
		}
		if d.allowed != 0 && (d.class == 'c' || d.class == 'v') && d.allowed&enc.Category(v, d.class) == 0 {
			return errAt(pc, "src", "%s: operand %d (code %d) is not accepted by this operation", e.mnem, i, v)
		}
		// Source modifiers.
		if si := srcIndex(d.field); si >= 0 {
			switch {
			case k == enc.VOP3P:
				// Mix operations print neg_lo/neg_hi as -x and |x|.
				if get(enc.F3Neg)>>si&1 != 0 {
					o.Mods |= isa.ModNeg
				}
				if get(enc.FPNegHi)>>si&1 != 0 {
					o.Mods |= isa.ModAbs
				}
			case k == enc.VOP3 || k == enc.VINTERP:
				if get(enc.F3Neg)>>si&1 != 0 {
					o.Mods |= isa.ModNeg
				}
				if k == enc.VOP3 && !hasSDst(e) && get(enc.F3Abs)>>si&1 != 0 {
					o.Mods |= isa.ModAbs
				}
			case (k == enc.VOP1 || k == enc.VOP2 || k == enc.VOPC) && aux == enc.AuxDPP16 && si < 2:
				if get(enc.FDPPNeg0+enc.FieldID(2*si)) != 0 {
					o.Mods |= isa.ModNeg
				}
				if get(enc.FDPPAbs0+enc.FieldID(2*si)) != 0 {
					o.Mods |= isa.ModAbs
				}
			}
		}
		in.Operands = append(in.Operands, o)
	}
	m := &in.Mod
	switch k {
	case enc.VOP3:
		m.Clamp = get(enc.F3Clamp) != 0
		m.OMod = uint8(get(enc.F3OMod))
		if !hasSDst(e) {
			m.OpSel = uint8(get(enc.F3OpSel))
		}
	case enc.VOP3P:
		m.Clamp = get(enc.F3Clamp) != 0
		m.OpSel = uint8(get(enc.FPOpSel))
		m.OpSelHi = uint8(get(enc.FPOpSelL) | get(enc.FPOpSelH)<<2)
		m.NegLo = uint8(get(enc.F3Neg))
		m.NegHi = uint8(get(enc.FPNegHi))
	case enc.VINTERP:
		m.Clamp = get(enc.F3Clamp) != 0
		m.OpSel = uint8(get(enc.F3OpSel))
	case enc.SMEM:
		m.Offset = int32(signExtend(get(enc.FSMOff), 24))
	case enc.DS:
		m.Offset = int32(get(enc.FDSOff0) | get(enc.FDSOff1)<<8)
		m.Offset1 = uint8(get(enc.FDSOff1))
	case enc.FLAT, enc.GLOBAL, enc.SCRATCH:
		m.Offset = int32(signExtend(get(enc.FFOff), 24))
	case enc.VBUFFER:
		m.Offset = int32(signExtend(get(enc.FBOff), 24))
		m.Offen = get(enc.FBOffen) != 0
		m.Idxen = get(enc.FBIdxen) != 0
		m.Format = uint8(get(enc.FBFormat))
	}
	if isVALU(k) && aux == enc.AuxDPP16 {
		m.DPPCtrl = uint16(get(enc.FDPPCtrl))
		m.RowMask = uint8(get(enc.FDPPRow))
		m.BankMask = uint8(get(enc.FDPPBank))
		m.BoundCtrl = get(enc.FDPPBC) != 0
		m.FI = get(enc.FDPPFI) != 0
	}
	own := ownedMask(e, k, aux, len(w))
	for i := range w {
		in.Pad[i] = w[i] &^ own[i]
	}
	// Source-modifier bits of absent sources are not owned by any operand.
	present := uint32(0)
	for i := range e.ops {
		if si := srcIndex(e.ops[i].field); si >= 0 {
			present |= 1 << si
		}
	}
	switch {
	case k == enc.VOP3 || k == enc.VINTERP:
		in.Pad[1] |= get(enc.F3Neg) &^ present << 29
		if k == enc.VOP3 && !hasSDst(e) {
			in.Pad[0] |= get(enc.F3Abs) &^ present << 8
		}
	case (k == enc.VOP1 || k == enc.VOP2 || k == enc.VOPC) && aux == enc.AuxDPP16:
		for si := uint32(0); si < 2; si++ {
			if present>>si&1 == 0 {
				in.Pad[len(w)-1] |= w[len(w)-1] & (3 << (20 + 2*si))
			}
		}
	}
	for i, d := range dropBits {
		if d != 0 {
			b := enc.Layout[e.ops[i].field]
			wi := int(b.W)
			if b.W == enc.LastWord {
				wi = len(w) - 1
			}
			in.Pad[wi] |= d << b.Lo
		}
	}
	return nil
}

func hasSDst(e *entry) bool {
	for i := range e.ops {
		if e.ops[i].field == enc.F3SDst {
			return true
		}
	}
	return false
}
