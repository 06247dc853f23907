// Package enc describes the bit layouts of the GFX12 (RDNA4) instruction
// encodings: how a first dword is classified, where the opcode lives, and
// where every operand and modifier field is. The gfx12 decoder and its table
// generator share it.
package enc

import (
	"github.com/rocjitsu/rocjitsu/dbt/isa/internal/bitfield"
	"github.com/rocjitsu/rocjitsu/dbt/isa/internal/enc32"
)

// Kind is an encoding as the decoder distinguishes it.
type Kind uint8

// Encodings of GFX12 (gfx1200, gfx1201).
const (
	Invalid Kind = iota
	SOP1
	SOP2
	SOPK
	SOPC
	SOPP
	SMEM
	VOP1
	VOP2
	VOPC
	VOP3
	VOP3P
	VOPD
	VINTERP
	DS
	FLAT
	GLOBAL
	SCRATCH
	VBUFFER
	VIMAGE
	VSAMPLE
	EXP
	NumKinds
)

var kindNames = [NumKinds]string{"invalid", "SOP1", "SOP2", "SOPK", "SOPC", "SOPP", "SMEM", "VOP1", "VOP2", "VOPC", "VOP3", "VOP3P", "VOPD", "VINTERP", "DS", "FLAT", "GLOBAL", "SCRATCH", "VBUFFER", "VIMAGE", "VSAMPLE", "EXP"}

// String returns the encoding's name.
func (k Kind) String() string {
	if k < NumKinds {
		return kindNames[k]
	}
	return "?"
}

// Variants of an encoding (the table's aux key).
const (
	AuxNone  = 0
	AuxDPP16 = 1 // VOP1/VOP2/VOPC/VOP3/VOP3P with a DPP16 dword (src0 = 250)
	AuxDPP8  = 2 // ... with a DPP8 dword (src0 = 233 or 234)
	// FLAT family address forms.
	AuxSAddr   = 0 // GLOBAL/SCRATCH with an SGPR base (saddr != null)
	AuxNoSAddr = 1 // saddr = null ("off")
	AuxSVE     = 2 // SCRATCH: vaddr present (sve) ...
)

// shortKinds maps the shared 32-bit encodings to this family's kinds.
var shortKinds = [...]Kind{
	enc32.SOP1: SOP1, enc32.SOP2: SOP2, enc32.SOPK: SOPK, enc32.SOPC: SOPC, enc32.SOPP: SOPP,
	enc32.VOP1: VOP1, enc32.VOP2: VOP2, enc32.VOPC: VOPC,
}

// Classify returns the encoding of an instruction from its first dword and
// its base size in bytes (without literal or DPP dword).
func Classify(w uint32) (Kind, int) {
	if s := enc32.Classify(w); s != enc32.None {
		return shortKinds[s], 4
	}
	switch w >> 26 {
	case 0x35:
		return VOP3, 8
	case 0x32:
		return VOPD, 8
	case 0x3d:
		return SMEM, 8
	case 0x36:
		return DS, 8
	case 0x3b:
		switch (w >> 24) & 3 {
		case 0:
			return FLAT, 12
		case 1:
			return SCRATCH, 12
		case 2:
			return GLOBAL, 12
		}
		return Invalid, 0
	case 0x31:
		return VBUFFER, 12
	case 0x34:
		return VIMAGE, 12
	case 0x39:
		return VSAMPLE, 12
	case 0x3e:
		return EXP, 8
	case 0x33:
		switch (w >> 24) & 3 {
		case 0:
			return VOP3P, 8
		case 1:
			return VINTERP, 8
		}
	}
	return Invalid, 0
}

// Opcode returns the opcode field of the first dword.
func Opcode(k Kind, w uint32) int {
	switch k {
	case SOP1:
		return int(w>>8) & 0xff
	case SOP2:
		return int(w>>23) & 0x7f
	case SOPK:
		return int(w>>23) & 0x1f
	case SOPC, SOPP:
		return int(w>>16) & 0x7f
	case SMEM:
		return int(w>>13) & 0xff
	case VOP1:
		return int(w>>9) & 0xff
	case VOP2:
		return int(w>>25) & 0x3f
	case VOPC:
		return int(w>>17) & 0xff
	case VOP3:
		return int(w>>16) & 0x3ff
	case VOP3P, VINTERP:
		return int(w>>16) & 0x7f
	case VOPD:
		return int(w>>22)&0xf<<5 | int(w>>17)&0x1f
	case DS:
		return int(w>>18) & 0xff
	case FLAT, GLOBAL, SCRATCH, VBUFFER, VIMAGE, VSAMPLE:
		return int(w>>14) & 0xff
	case EXP:
		return 0
	}
	return -1
}

// SetOpcode returns w with the opcode field of kind k set to op.
func SetOpcode(k Kind, w uint32, op int) uint32 {
	o := uint32(op)
	switch k {
	case SOP1:
		return w&^(0xff<<8) | o<<8
	case SOP2:
		return w&^(0x7f<<23) | o<<23
	case SOPK:
		return w&^(0x1f<<23) | o<<23
	case SOPC, SOPP:
		return w&^(0x7f<<16) | o<<16
	case SMEM:
		return w&^(0xff<<13) | o<<13
	case VOP1:
		return w&^(0xff<<9) | o<<9
	case VOP2:
		return w&^(0x3f<<25) | o<<25
	case VOPC:
		return w&^(0xff<<17) | o<<17
	case VOP3:
		return w&^(0x3ff<<16) | o<<16
	case VOP3P, VINTERP:
		return w&^(0x7f<<16) | o<<16
	case VOPD:
		return w&^(0x1ff<<17) | (o>>5)<<22 | (o&0x1f)<<17
	case DS:
		return w&^(0xff<<18) | o<<18
	case FLAT, GLOBAL, SCRATCH, VBUFFER, VIMAGE, VSAMPLE:
		return w&^(0xff<<14) | o<<14
	}
	return w
}

// Code says how a field's value names an operand.
type Code uint8

// Field codes.
const (
	CodeImm    Code = iota // an unsigned immediate
	CodeSImm               // a signed (two's complement) immediate
	CodeSrc9               // VALU source: 0..255 scalar codes, 256+ VGPRs
	CodeSrc8               // SALU source: scalar codes
	CodeSDst7              // scalar destination code
	CodeVGPR8              // VGPR number
	CodeSGPRx2             // SGPR number / 2 (SMEM sbase)
	CodeSGPR               // SGPR number
	CodeBit                // a one-bit flag
)

// FieldID names a field.
type FieldID uint8

// Fields.
const (
	FNone FieldID = iota
	// Scalar ALU.
	FSDst   // SOP1/SOP2/SOPK sdst [22:16]
	FSSrc0  // [7:0]
	FSSrc1  // [15:8]
	FSimm16 // [15:0]
	// SMEM.
	FSMBase
	FSMData
	FSMScope
	FSMTH
	FSMOff
	FSMSOff
	// VOP1/VOP2/VOPC.
	FVDst  // [24:17]
	FSrc0  // [8:0]
	FVSrc1 // [16:9]
	// VOP3 / VOP3P / VINTERP.
	F3VDst   // [7:0]
	F3SDst   // [14:8]
	F3Abs    // [10:8]
	F3OpSel  // [14:11]
	F3Clamp  // [15]
	F3Src0   // w1 [8:0]
	F3Src1   // w1 [17:9]
	F3Src2   // w1 [26:18]
	F3OMod   // w1 [28:27]
	F3Neg    // w1 [31:29]
	FPNegHi  // [10:8]
	FPOpSel  // [13:11]
	FPOpSelH // [14]: op_sel_hi bit 2
	FPOpSelL // w1 [28:27]: op_sel_hi bits 0..1
	FIWait   // VINTERP wait_exp [10:8]
	// DPP dword (the last dword).
	FDPPSrc0
	FDPPCtrl
	FDPPFI
	FDPPBC
	FDPPNeg0
	FDPPAbs0
	FDPPNeg1
	FDPPAbs1
	FDPPBank
	FDPPRow
	FDPP8Sel
	// VOPD.
	FDSrc0X
	FDVSrc1X
	FDSrc0Y
	FDVSrc1Y
	FDVDstY
	FDVDstX
	// DS.
	FDSOff0
	FDSOff1
	FDSAddr
	FDSData0
	FDSData1
	FDSVDst
	// FLAT / GLOBAL / SCRATCH.
	FFSAddr
	FFVDst
	FFSVE
	FFScope
	FFTH
	FFData
	FFVAddr
	FFOff
	// VBUFFER.
	FBSOff
	FBVData
	FBRsrc
	FBFormat
	FBOffen
	FBIdxen
	FBVAddr
	FBOff
	FBTFE
	// VIMAGE / VSAMPLE.
	FIDim
	FIDMask
	FIR128
	FIA16
	FID16
	FITFE
	FILWE
	FIVData
	FIRsrc
	FISamp
	FIVAddr0
	FIVAddr1
	FIVAddr2
	FIVAddr3
	FIVAddr4
	// EXP.
	FEEn
	FETgt
	FEDone
	FERow
	FEVSrc0
	FEVSrc1
	FEVSrc2
	FEVSrc3
	NumFields
)

// Bits is where a field lives: dword W (15 = the DPP dword, the last one),
// bits [Lo, Lo+N).
type Bits struct {
	W, Lo, N uint8
	Code     Code
}

// LastWord marks a field of the DPP dword.
const LastWord = 15

// Layout holds the bits of every field.
var Layout = [NumFields]Bits{
	FSDst: {0, 16, 7, CodeSDst7}, FSSrc0: {0, 0, 8, CodeSrc8}, FSSrc1: {0, 8, 8, CodeSrc8}, FSimm16: {0, 0, 16, CodeImm},
	FSMBase: {0, 0, 6, CodeSGPRx2}, FSMData: {0, 6, 7, CodeSDst7}, FSMScope: {0, 21, 2, CodeImm}, FSMTH: {0, 23, 2, CodeImm},
	FSMOff: {1, 0, 24, CodeSImm}, FSMSOff: {1, 25, 7, CodeSDst7},
	FVDst: {0, 17, 8, CodeVGPR8}, FSrc0: {0, 0, 9, CodeSrc9}, FVSrc1: {0, 9, 8, CodeVGPR8},
	F3VDst: {0, 0, 8, CodeVGPR8}, F3SDst: {0, 8, 7, CodeSDst7}, F3Abs: {0, 8, 3, CodeImm}, F3OpSel: {0, 11, 4, CodeImm},
	F3Clamp: {0, 15, 1, CodeBit}, F3Src0: {1, 0, 9, CodeSrc9}, F3Src1: {1, 9, 9, CodeSrc9}, F3Src2: {1, 18, 9, CodeSrc9},
	F3OMod: {1, 27, 2, CodeImm}, F3Neg: {1, 29, 3, CodeImm},
	FPNegHi: {0, 8, 3, CodeImm}, FPOpSel: {0, 11, 3, CodeImm}, FPOpSelH: {0, 14, 1, CodeBit}, FPOpSelL: {1, 27, 2, CodeImm},
	FIWait:   {0, 8, 3, CodeImm},
	FDPPSrc0: {LastWord, 0, 8, CodeVGPR8}, FDPPCtrl: {LastWord, 8, 9, CodeImm}, FDPPFI: {LastWord, 18, 1, CodeBit},
	FDPPBC: {LastWord, 19, 1, CodeBit}, FDPPNeg0: {LastWord, 20, 1, CodeBit}, FDPPAbs0: {LastWord, 21, 1, CodeBit},
	FDPPNeg1: {LastWord, 22, 1, CodeBit}, FDPPAbs1: {LastWord, 23, 1, CodeBit}, FDPPBank: {LastWord, 24, 4, CodeImm},
	FDPPRow: {LastWord, 28, 4, CodeImm}, FDPP8Sel: {LastWord, 8, 24, CodeImm},
	FDSrc0X: {0, 0, 9, CodeSrc9}, FDVSrc1X: {0, 9, 8, CodeVGPR8}, FDSrc0Y: {1, 0, 9, CodeSrc9}, FDVSrc1Y: {1, 9, 8, CodeVGPR8},
	FDVDstY: {1, 17, 7, CodeImm}, FDVDstX: {1, 24, 8, CodeVGPR8},
	FDSOff0: {0, 0, 8, CodeImm}, FDSOff1: {0, 8, 8, CodeImm}, FDSAddr: {1, 0, 8, CodeVGPR8}, FDSData0: {1, 8, 8, CodeVGPR8},
	FDSData1: {1, 16, 8, CodeVGPR8}, FDSVDst: {1, 24, 8, CodeVGPR8},
	FFSAddr: {0, 0, 7, CodeSDst7}, FFVDst: {1, 0, 8, CodeVGPR8}, FFSVE: {1, 17, 1, CodeBit}, FFScope: {1, 18, 2, CodeImm},
	FFTH: {1, 20, 3, CodeImm}, FFData: {1, 23, 8, CodeVGPR8}, FFVAddr: {2, 0, 8, CodeVGPR8}, FFOff: {2, 8, 24, CodeSImm},
	FBSOff: {0, 0, 7, CodeSDst7}, FBVData: {1, 0, 8, CodeVGPR8}, FBRsrc: {1, 9, 7, CodeSGPR}, FBFormat: {1, 23, 7, CodeImm},
	FBOffen: {1, 30, 1, CodeBit}, FBIdxen: {1, 31, 1, CodeBit}, FBVAddr: {2, 0, 8, CodeVGPR8}, FBOff: {2, 8, 24, CodeSImm},
	FBTFE: {0, 22, 1, CodeBit},
	FIDim: {0, 0, 3, CodeImm}, FIR128: {0, 4, 1, CodeBit}, FID16: {0, 5, 1, CodeBit}, FIA16: {0, 6, 1, CodeBit},
	FITFE: {0, 3, 1, CodeBit}, FILWE: {0, 7, 1, CodeBit}, FIDMask: {0, 22, 4, CodeImm},
	FIVData: {1, 0, 8, CodeVGPR8}, FIRsrc: {1, 9, 9, CodeSGPR}, FISamp: {1, 23, 9, CodeSGPR},
	FIVAddr0: {2, 0, 8, CodeVGPR8}, FIVAddr1: {2, 8, 8, CodeVGPR8}, FIVAddr2: {2, 16, 8, CodeVGPR8}, FIVAddr3: {2, 24, 8, CodeVGPR8},
	FIVAddr4: {1, 23, 8, CodeVGPR8},
	FEEn:     {0, 0, 4, CodeImm}, FETgt: {0, 4, 6, CodeImm}, FEDone: {0, 11, 1, CodeBit}, FERow: {0, 13, 1, CodeBit},
	FEVSrc0: {1, 0, 8, CodeVGPR8}, FEVSrc1: {1, 8, 8, CodeVGPR8}, FEVSrc2: {1, 16, 8, CodeVGPR8}, FEVSrc3: {1, 24, 8, CodeVGPR8},
}

// Fields lists the operand fields of each kind (the modifier fields are
// handled by the decoder), in the order the generator matches them.
var Fields = [NumKinds][]FieldID{
	SOP1:    {FSDst, FSSrc0},
	SOP2:    {FSDst, FSSrc0, FSSrc1},
	SOPK:    {FSDst, FSimm16},
	SOPC:    {FSSrc0, FSSrc1},
	SOPP:    {FSimm16},
	SMEM:    {FSMData, FSMBase, FSMSOff, FSMOff},
	VOP1:    {FVDst, FSrc0},
	VOP2:    {FVDst, FSrc0, FVSrc1},
	VOPC:    {FSrc0, FVSrc1},
	VOP3:    {F3VDst, F3SDst, F3Src0, F3Src1, F3Src2},
	VOP3P:   {F3VDst, F3Src0, F3Src1, F3Src2},
	VINTERP: {F3VDst, F3Src0, F3Src1, F3Src2},
	VOPD:    {FDVDstX, FDSrc0X, FDVSrc1X, FDVDstY, FDSrc0Y, FDVSrc1Y},
	DS:      {FDSVDst, FDSAddr, FDSData0, FDSData1},
	FLAT:    {FFVDst, FFVAddr, FFData, FFSAddr},
	GLOBAL:  {FFVDst, FFVAddr, FFData, FFSAddr},
	SCRATCH: {FFVDst, FFVAddr, FFData, FFSAddr},
	VBUFFER: {FBVData, FBVAddr, FBRsrc, FBSOff},
	VIMAGE:  {FIVData, FIVAddr0, FIVAddr1, FIVAddr2, FIVAddr3, FIVAddr4, FIRsrc},
	VSAMPLE: {FIVData, FIVAddr0, FIVAddr1, FIVAddr2, FIVAddr3, FIRsrc, FISamp},
	EXP:     {FEVSrc0, FEVSrc1, FEVSrc2, FEVSrc3},
}

// Get returns the field's value from the instruction's dwords (w[len-1] is
// the DPP dword when W is LastWord).
func (b Bits) Get(w []uint32) uint32 {
	i := int(b.W)
	if b.W == LastWord {
		i = len(w) - 1
	}
	if i >= len(w) {
		return 0
	}
	return bitfield.Get(w[i], b.Lo, b.N)
}

// Set stores v into the field.
func (b Bits) Set(w []uint32, v uint32) {
	i := int(b.W)
	if b.W == LastWord {
		i = len(w) - 1
	}
	if i >= len(w) {
		return
	}
	w[i] = bitfield.Set(w[i], b.Lo, b.N, v)
}

// Mask returns the field's bit mask within its dword.
func (b Bits) Mask() uint32 { return bitfield.Mask(b.Lo, b.N) }

// DPPKind returns AuxDPP16 or AuxDPP8 when a src0 code selects a DPP dword.
func DPPKind(src0 uint32) int {
	switch src0 {
	case 250:
		return AuxDPP16
	case 233, 234:
		return AuxDPP8
	}
	return AuxNone
}

// Aux returns the variant key of an instruction from its dwords (without
// the DPP dword).
func Aux(k Kind, w []uint32) int {
	switch k {
	case VOP1, VOP2, VOPC:
		return DPPKind(w[0] & 0x1ff)
	case VOP3, VOP3P:
		if len(w) > 1 {
			return DPPKind(w[1] & 0x1ff)
		}
	case SMEM:
		if len(w) > 1 && w[1]>>25 == 124 {
			return AuxNoSAddr
		}
	case VBUFFER:
		if len(w) > 1 {
			return int(w[1]>>30) & 3
		}
	case GLOBAL:
		if w[0]&0x7f == 124 {
			return AuxNoSAddr
		}
	case SCRATCH:
		a := 0
		if w[0]&0x7f == 124 {
			a |= AuxNoSAddr
		}
		if len(w) > 1 && w[1]>>17&1 != 0 {
			a |= AuxSVE
		}
		return a
	}
	return AuxNone
}

// String returns a short name of the field.
func (f FieldID) String() string { return "field" + itoa(int(f)) }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// Operand categories: the bits of a table row's set of what LLVM accepts in
// a source field. The generator records them from its probes and the
// decoder checks field values against them, both through Category.
const (
	CatSGPR    = 1
	CatVGPR    = 2
	CatVGPRHi  = 4 // v128..v255
	CatInt     = 8
	CatFloat   = 16
	CatLit     = 32
	CatSpecial = 64  // vcc, exec, src_*
	CatNull    = 128 // null, m0
)

// Category classifies the value v of a source field of class 'v' (a VGPR
// field) or 'c' (a 9-bit source operand field).
func Category(v uint32, class byte) uint8 {
	if class == 'v' {
		if v >= 128 {
			return CatVGPRHi
		}
		return CatVGPR
	}
	switch {
	case v >= 384:
		return CatVGPRHi
	case v >= 256:
		return CatVGPR
	case v == 255:
		return CatLit
	case v >= 240 && v <= 248:
		return CatFloat
	case v >= 128 && v <= 208:
		return CatInt
	case v < 106 || v >= 108 && v < 124:
		return CatSGPR
	case v == 124 || v == 125:
		return CatNull
	}
	return CatSpecial
}
