package wave

import (
	"fmt"
	"sync"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12"
)

// GFX12 reports whether t is gfx1200 or gfx1201 (either wave size).
func (t Target) GFX12() bool {
	b := t &^ Wave64
	return b == GFX1200 || b == GFX1201
}

func targetString(t Target) string {
	s := "gfx942"
	switch t &^ Wave64 {
	case GFX950:
		s = "gfx950"
	case GFX1200:
		s = "gfx1200"
	case GFX1201:
		s = "gfx1201"
	}
	if t&Wave64 != 0 {
		s += "-wave64"
	}
	return s
}

// codeNull is the internal operand code of the gfx12 null register: the
// inline constant 0, so reads give 0 and writes are dropped.
const codeNull = 128

// gfx12 internal scalar codes differ from the encoding only for m0 (125 on
// gfx12, RegM0 = 124 inside the interpreter) and null (124, codeNull).
func code12(o *isa.Operand) uint16 {
	switch o.Kind {
	case isa.KindReg:
		switch o.Class {
		case isa.SGPR:
			return o.Reg
		case isa.TTMP:
			return RegTTMP0 + o.Reg
		case isa.VGPR:
			return opVGPR + o.Reg
		case isa.Special:
			switch isa.SpecialReg(o.Reg) {
			case isa.RegVCCLo:
				return RegVCCLo
			case isa.RegVCCHi:
				return RegVCCHi
			case isa.RegEXECLo:
				return RegExecLo
			case isa.RegEXECHi:
				return RegExecHi
			case isa.RegM0:
				return RegM0
			case isa.RegSCC:
				return opSCC
			case isa.RegVCCZ:
				return opVCCZ
			case isa.RegEXECZ:
				return opEXECZ
			case isa.RegSharedBase:
				return 235
			case isa.RegSharedLimit:
				return 236
			case isa.RegPrivateBase:
				return 237
			case isa.RegPrivateLimit:
				return 238
			}
			return codeNull
		}
	case isa.KindInline:
		return uint16(o.Imm)
	case isa.KindLiteral:
		return opLiteral
	case isa.KindImm:
		return uint16(o.Imm)
	}
	return codeNull
}

// gfx12Formats maps the shared formats to the interpreter's; DPP forms keep
// Built on first use; every call returns the same map.
// their base encoding (the DPP fields go to Inst.DPP).
var gfx12Formats = sync.OnceValue(func() map[isa.Format]Format {
	return map[isa.Format]Format{
		isa.SOP1: FmtSOP1, isa.SOP2: FmtSOP2, isa.SOPK: FmtSOPK, isa.SOPC: FmtSOPC, isa.SOPP: FmtSOPP,
		isa.SMEM: FmtSMEM, isa.VOP1: FmtVOP1, isa.VOP2: FmtVOP2, isa.VOPC: FmtVOPC, isa.VOP3: FmtVOP3,
		isa.VOP3P: FmtVOP3P, isa.VOPD: FmtVOPD, isa.DS: FmtDS, isa.FLAT: FmtFLAT, isa.GLOBAL: FmtFLAT,
		isa.SCRATCH: FmtFLAT, isa.VBUFFER: FmtMUBUF,
	}
})

// decodeGFX12 decodes a gfx1200/gfx1201 instruction with dbt/isa/gfx12 (the
// tables generated from LLVM) and lays its operands out as the gfx9 decoder
// does, in internal operand codes, so that semantics can be shared.
func decodeGFX12(words []uint32, target Target) (*Inst, error) {
	var buf [16]byte
	n := min(len(words), 4)
	for i := 0; i < n; i++ {
		le.PutUint32(buf[4*i:], words[i])
	}
	t := isa.GFX1200
	if target&^Wave64 == GFX1201 {
		t = isa.GFX1201
	}
	if target&Wave64 != 0 {
		t |= isa.Wave64
	}
	var d isa.Inst
	if err := gfx12.DecodeInto(&d, buf[:4*n], 0, t); err != nil {
		var de *isa.DecodeError
		if asDecodeError(err, &de) && de.Field == "length" {
			return nil, fmt.Errorf("decode: %w", err)
		}
		// An undefined encoding: executing it faults as an unknown
		// instruction naming its first word.
		in := &Inst{Size: 4, Words: []uint32{words[0]}, Fmt: FmtUnknown, Op: -1}
		in.exec = unknownOp
		in.decodeErr = err
		return in, nil
	}
	in := &Inst{Size: int(d.Size), Op: int(d.Opcode), Name: d.Name(), Lit: d.Literal, gfx12: true}
	in.Words = append([]uint32(nil), words[:in.Size/4]...)
	in.Fmt = gfx12Formats()[d.Base]
	in.Soffset, in.Saddr = 0xffff, 0x7f
	in.SImm = d.Format == isa.SMEM
	switch d.Format {
	case isa.GLOBAL:
		in.Seg = 2
	case isa.SCRATCH:
		in.Seg = 1
	}
	var hi16 uint8 // true16 .h operands of VOP1/VOP2/VOPC (bit i: source i, bit 3: dst)
	var dual [2]Inst
	for i := range d.Operands {
		o := &d.Operands[i]
		c := code12(o)
		si := -1
		switch o.Field {
		case gfx12.FieldSDst, gfx12.FieldSMData, gfx12.FieldDSVDst, gfx12.FieldFVDst, gfx12.FieldBVData:
			in.Dst = c
		case gfx12.FieldVDst:
			in.Dst = c
			if o.Class == isa.VGPR && o.Imm == 1 {
				hi16 |= 8
			}
		case gfx12.Field3VDst:
			in.Dst = c
			if o.Class != isa.VGPR {
				in.SDst = c // VOPC as VOP3, v_readlane
			}
		case gfx12.FieldSSrc0, gfx12.FieldSMBase, gfx12.FieldDSAddr, gfx12.FieldFVAddr, gfx12.FieldBVAddr:
			in.Src[0] = c
			if o.Field == gfx12.FieldFVAddr && o.Kind == isa.KindReg {
				in.SVE = true
			}
		case gfx12.FieldSrc0, gfx12.Field3Src0, gfx12.FieldDPPSrc0:
			in.Src[0], si = c, 0
		case gfx12.FieldSSrc1, gfx12.FieldDSData0, gfx12.FieldFData:
			in.Src[1] = c
		case gfx12.FieldVSrc1, gfx12.Field3Src1:
			in.Src[1], si = c, 1
		case gfx12.Field3Src2:
			in.Src[2], si = c, 2
		case gfx12.FieldDSData1:
			in.Src[2] = c
		case gfx12.FieldBRsrc:
			in.Src[2] = c
		case gfx12.Field3SDst:
			in.SDst = c
		case gfx12.FieldSimm16:
			in.Imm = int32(o.Imm)
		case gfx12.FieldSMSOff, gfx12.FieldBSOff:
			if c != codeNull {
				in.Soffset = c
			}
		case gfx12.FieldFSAddr:
			if o.Kind == isa.KindReg && c != codeNull {
				in.Saddr = c
			}
		case gfx12.FieldDVDstX:
			dual[0].Dst = c
		case gfx12.FieldDSrc0X:
			dual[0].Src[0] = c
		case gfx12.FieldDVSrc1X:
			dual[0].Src[1] = c
		case gfx12.FieldDVDstY:
			dual[1].Dst = c
		case gfx12.FieldDSrc0Y:
			dual[1].Src[0] = c
		case gfx12.FieldDVSrc1Y:
			dual[1].Src[1] = c
		}
		if si >= 0 {
			if o.Mods&isa.ModNeg != 0 {
				in.Neg |= 1 << si
			}
			if o.Mods&isa.ModAbs != 0 {
				in.Abs |= 1 << si
			}
			if o.Class == isa.VGPR && o.Imm == 1 && (d.Base == isa.VOP1 || d.Base == isa.VOP2 || d.Base == isa.VOPC) {
				hi16 |= 1 << si
			}
		}
	}
	m := &d.Mod
	switch d.Base {
	case isa.VOP3:
		in.Clamp, in.Omod, in.Opsel = m.Clamp, m.OMod, m.OpSel
	case isa.VOP3P:
		// neg_lo/neg_hi come from the modifier fields, not the printing mods.
		in.Clamp, in.Opsel, in.OpselHi, in.Neg, in.NegHi, in.Abs = m.Clamp, m.OpSel, m.OpSelHi, m.NegLo, m.NegHi, 0
	case isa.VOPC:
		in.SDst = RegVCCLo
	case isa.DS:
		in.Imm, in.Offset1 = m.Offset&0xff, int32(m.Offset1)
	case isa.SMEM, isa.FLAT, isa.GLOBAL, isa.SCRATCH:
		in.Imm = m.Offset
	case isa.VBUFFER:
		in.Imm, in.Off, in.Idxen, in.Ufmt = m.Offset, m.Offen, m.Idxen, m.Format&127
	}
	switch d.Format {
	case isa.FLAT, isa.GLOBAL, isa.SCRATCH, isa.VBUFFER:
		th, _ := gfx12.CachePolicy(&d)
		in.Glc = th&1 != 0 // atomics: TH_ATOMIC_RETURN writes the pre-op value
	}
	if hi16 != 0 {
		// A true16 .h operand of a 32-bit encoding: run it as the VOP3 form
		// with the same op_sel bits.
		in.Fmt = FmtVOP3
		in.Opsel |= hi16
		in.t16 = true
	}
	switch d.Format {
	case isa.DPP:
		dpp := &DPP{Ctrl: m.DPPCtrl, RowMask: m.RowMask, BankMask: m.BankMask, BoundCtrl: m.BoundCtrl, FI: m.FI, GFX12: true}
		dpp.Src0Neg, dpp.Src0Abs = in.Neg&1 != 0, in.Abs&1 != 0
		dpp.Src1Neg, dpp.Src1Abs = in.Neg&2 != 0, in.Abs&2 != 0
		in.DPP = dpp
	case isa.DPP8:
		if in.DPP == nil {
			in.DPP = &DPP{DPP8: true}
		}
		in.DPP.GFX12, in.DPP.RowMask, in.DPP.BankMask = true, 0xf, 0xf
		in.DPP.Sel8 = in.Words[len(in.Words)-1] >> 8 // the DPP8 dword's lane selects
		in.DPP.FI = in.Words[0]&0x1ff == 234 || (d.Base == isa.VOP3 || d.Base == isa.VOP3P) && in.Words[1]&0x1ff == 234
		in.DPP.Src0Neg, in.DPP.Src0Abs = in.Neg&1 != 0, in.Abs&1 != 0
		in.DPP.Src1Neg, in.DPP.Src1Abs = in.Neg&2 != 0, in.Abs&2 != 0
	}
	if in.DPP != nil && d.Base == isa.VOP3 {
		// VOP3 DPP: the abs/neg of src0/src1 apply through the DPP fields.
		in.Fmt = FmtVOP3
		if in.Abs&4 != 0 || in.Neg&4 != 0 || in.Opsel != 0 {
			in.unsupported = "VOP3 DPP with src2 modifiers or op_sel"
		}
		in.Abs, in.Neg = 0, 0
	}
	if d.Format == isa.VOPD {
		x, y, _ := gfx12.VOPDNames(&d)
		for i, name := range []string{x, y} {
			s := &dual[i]
			s.Name, s.Fmt, s.Lit, s.PC, s.Size, s.Words, s.gfx12 = name, FmtVOP2, in.Lit, in.PC, in.Size, in.Words, true
			s.Src[2] = s.Dst
			s.exec = lookup12(s)
		}
		in.Name = x + "::" + y
		in.dual = &dual
		in.exec = vopd
		return in, nil
	}
	fixGFX12(in)
	in.exec = lookup12(in)
	return in, nil
}

func asDecodeError(err error, de **isa.DecodeError) bool {
	e, ok := err.(*isa.DecodeError)
	if ok {
		*de = e
	}
	return ok
}

// fixGFX12 adjusts decoded operands where gfx12 differs from the gfx9
// operand layout the shared semantics expect.
func fixGFX12(in *Inst) {
	if len(in.Name) > 6 && in.Name[:7] == "v_cmpx_" {
		// gfx12 v_cmpx writes only EXEC: the compare's lane-mask
		// destination is dropped.
		in.Fmt, in.SDst = FmtVOP3, codeNull
	}
}
