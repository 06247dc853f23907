// Package enc describes the bit layouts of the GFX9 instruction encodings:
// how to classify a first dword, where the opcode is, and where each operand
// and modifier field lives. The gfx9 decoder and its table generator share it.
package enc

import (
	"github.com/rocjitsu/rocjitsu/dbt/isa/internal/bitfield"
	"github.com/rocjitsu/rocjitsu/dbt/isa/internal/enc32"
)

// Kind is an encoding as the decoder distinguishes it.
type Kind uint8

// Encodings of GFX9 (gfx942, gfx950).
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
	MAI
	SDWA1 // VOP1 with an SDWA dword
	SDWA2
	SDWAC
	DPP1 // VOP1 with a DPP dword
	DPP2
	DPPC
	DS
	FLAT
	MUBUF
	MTBUF
	VOP3PX2
	NumKinds
)

var kindNames = [NumKinds]string{"invalid", "SOP1", "SOP2", "SOPK", "SOPC", "SOPP", "SMEM", "VOP1", "VOP2", "VOPC", "VOP3", "VOP3P", "MAI", "SDWA1", "SDWA2", "SDWAC", "DPP1", "DPP2", "DPPC", "DS", "FLAT", "MUBUF", "MTBUF", "VOP3PX2"}

// String returns the encoding's name.
func (k Kind) String() string {
	if k < NumKinds {
		return kindNames[k]
	}
	return "?"
}

// ParseKind returns the Kind named s, or Invalid.
func ParseKind(s string) Kind {
	for i, n := range kindNames {
		if n == s {
			return Kind(i)
		}
	}
	return Invalid
}

// shortKinds maps the shared 32-bit encodings to this family's kinds.
var shortKinds = [...]Kind{
	enc32.SOP1: SOP1, enc32.SOP2: SOP2, enc32.SOPK: SOPK, enc32.SOPC: SOPC, enc32.SOPP: SOPP,
	enc32.VOP1: VOP1, enc32.VOP2: VOP2, enc32.VOPC: VOPC,
}

// Classify returns the encoding of an instruction from its first dword and
// the base size in bytes (without a literal). For VOP1/VOP2/VOPC it does not
// look at src0; SDWA and DPP are chosen by Refine.
func Classify(w uint32) (Kind, int) {
	if s := enc32.Classify(w); s != enc32.None {
		return shortKinds[s], 4
	}
	switch w >> 26 {
	case 0x30:
		return SMEM, 8
	case 0x34:
		if w>>23 == 0x1a7 {
			if (w>>16)&0x7f >= 0x40 {
				return MAI, 8
			}
			return VOP3P, 8
		}
		return VOP3, 8
	case 0x36:
		return DS, 8
	case 0x37:
		return FLAT, 8
	case 0x38:
		return MUBUF, 8
	case 0x3a:
		return MTBUF, 8
	}
	return Invalid, 4
}

// Refine turns VOP1/VOP2/VOPC into their SDWA or DPP forms when src0 says
// so (249 SDWA, 250 DPP). It returns the kind and the size in bytes.
func Refine(k Kind, w uint32) (Kind, int) {
	src0 := w & 0x1ff
	switch k {
	case VOP1, VOP2, VOPC:
		if src0 == 249 {
			return k - VOP1 + SDWA1, 8
		}
		if src0 == 250 {
			return k - VOP1 + DPP1, 8
		}
	}
	return k, 0
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
		return int(w>>18) & 0xff
	case VOP1, SDWA1, DPP1:
		return int(w>>9) & 0xff
	case VOP2, SDWA2, DPP2:
		return int(w>>25) & 0x3f
	case VOPC, SDWAC, DPPC:
		return int(w>>17) & 0xff
	case VOP3:
		return int(w>>16) & 0x3ff
	case VOP3P, MAI:
		return int(w>>16) & 0x7f
	case VOP3PX2:
		return -1
	case DS:
		return int(w>>17) & 0xff
	case FLAT:
		return int(w>>18) & 0x7f
	case MUBUF:
		return int(w>>18) & 0x7f
	case MTBUF:
		return int(w>>15) & 0xf
	}
	return -1
}

// OpcodeMask returns the bits of dword 0 that hold the opcode and the
// encoding's fixed prefix.
func OpcodeMask(k Kind) uint32 {
	switch k {
	case SOP1:
		return 0xff80ff00
	case SOP2:
		return 0xff800000
	case SOPK:
		return 0xff800000
	case SOPC, SOPP:
		return 0xffff0000
	case SMEM:
		return 0xffc00000 | 0x3fc0000
	case VOP1, SDWA1, DPP1:
		return 0xfe01fe00
	case VOP2, SDWA2, DPP2:
		return 0xfe000000
	case VOPC, SDWAC, DPPC:
		return 0xfffe0000
	case VOP3:
		return 0xffff0000
	case VOP3P, MAI, VOP3PX2:
		return 0xffff0000
	case DS:
		return 0xfdfe0000
	case FLAT:
		return 0xfdfc0000 | 0xc000 // op, prefix and seg
	case MUBUF:
		return 0xfdfc0000
	case MTBUF:
		return 0xfc078000
	}
	return 0
}

// Code is how a field's value is interpreted.
type Code uint8

// Field interpretations.
const (
	CodeImm    Code = iota // plain bits
	CodeSrc9               // 9-bit VALU source: SGPR/special/constant/VGPR (256+n)
	CodeSrc8               // 8-bit scalar source (SGPR/special/constant)
	CodeSDst7              // 7-bit scalar destination
	CodeVGPR8              // 8-bit VGPR (or AGPR when the acc bit says so)
	CodeSBase6             // SMEM sbase: SGPR pair index (value*2)
	CodeSRsrc5             // buffer resource: SGPR quad index (value*4)
)

// FieldID names an operand field.
type FieldID uint8

// Operand fields. Their positions depend on the encoding; see Lookup.
const (
	FNone FieldID = iota
	FSDst
	FSSrc0
	FSSrc1
	FSImm16
	FSData
	FSBase
	FSOffset // SMEM soffset (word 1) or MUBUF soffset
	FSMOff   // SMEM offset (word 1 low bits)
	FVDst
	FSrc0
	FSrc1
	FSrc2
	FVSrc1
	FSDstV // VOP3b / VOPC-SDWA sdst
	FAddr
	FData0
	FData1
	FSAddr
	FVAddr
	FVData
	FSRsrc
	FLiteral // the literal dword
	FImplicit
	FScale0 // VOP3PX2 scale source A
	FScale1 // VOP3PX2 scale source B
	NumFields
)

var fieldNames = [NumFields]string{"", "sdst", "ssrc0", "ssrc1", "simm16", "sdata", "sbase", "soffset", "smoff", "vdst", "src0", "src1", "src2", "vsrc1", "sdstv", "addr", "data0", "data1", "saddr", "vaddr", "vdata", "srsrc", "literal", "implicit", "scale0", "scale1"}

// String returns the field's name.
func (f FieldID) String() string {
	if f < NumFields {
		return fieldNames[f]
	}
	return "?"
}

// ParseField returns the field named s.
func ParseField(s string) FieldID {
	for i, n := range fieldNames {
		if n == s && i > 0 {
			return FieldID(i)
		}
	}
	return FNone
}

// Bits is the position of a field: dword index, low bit, width.
type Bits struct {
	Word, Lo, Width uint8
	Code            Code
}

// Get extracts the field from words.
func (b Bits) Get(w []uint32) uint32 { return bitfield.Get(w[b.Word], b.Lo, b.Width) }

// Set stores v into the field of words.
func (b Bits) Set(w []uint32, v uint32) { w[b.Word] = bitfield.Set(w[b.Word], b.Lo, b.Width, v) }

// Mask returns the field's mask in its dword.
func (b Bits) Mask() uint32 { return bitfield.Mask(b.Lo, b.Width) }

// Lookup returns where field f lives in encoding k.
func Lookup(k Kind, f FieldID) (Bits, bool) {
	if k >= NumKinds || f >= NumFields {
		return Bits{}, false
	}
	b := flat[k][f]
	return b, b.Width != 0
}

// Fields returns the operand fields of encoding k in canonical order.
func Fields(k Kind) []FieldID { return order[k] }

var order = [NumKinds][]FieldID{
	SOP1:    {FSDst, FSSrc0},
	SOP2:    {FSDst, FSSrc0, FSSrc1},
	SOPK:    {FSDst, FSImm16},
	SOPC:    {FSSrc0, FSSrc1},
	SOPP:    {FSImm16},
	SMEM:    {FSData, FSBase, FSMOff, FSOffset},
	VOP1:    {FVDst, FSrc0},
	VOP2:    {FVDst, FSrc0, FVSrc1},
	VOPC:    {FSrc0, FVSrc1},
	SDWA1:   {FVDst, FSrc0},
	SDWA2:   {FVDst, FSrc0, FVSrc1},
	SDWAC:   {FSDstV, FSrc0, FVSrc1},
	DPP1:    {FVDst, FSrc0},
	DPP2:    {FVDst, FSrc0, FVSrc1},
	DPPC:    {FSrc0, FVSrc1},
	VOP3:    {FVDst, FSDstV, FSrc0, FSrc1, FSrc2},
	VOP3P:   {FVDst, FSrc0, FSrc1, FSrc2},
	MAI:     {FVDst, FSrc0, FSrc1, FSrc2},
	DS:      {FVDst, FAddr, FData0, FData1},
	FLAT:    {FVDst, FAddr, FData0, FSAddr},
	MUBUF:   {FVData, FVAddr, FSRsrc, FSOffset},
	MTBUF:   {FVData, FVAddr, FSRsrc, FSOffset},
	VOP3PX2: {FVDst, FSrc0, FSrc1, FSrc2, FScale0, FScale1},
}

// flat holds the field layouts of each encoding, indexed by kind and
// field; a zero Width means the encoding has no such field. It is constant
// data (no code runs to build it at process start).
var flat = [NumKinds][NumFields]Bits{
	SOP1: {FSDst: {0, 16, 7, CodeSDst7}, FSSrc0: {0, 0, 8, CodeSrc8}},
	SOP2: {FSDst: {0, 16, 7, CodeSDst7}, FSSrc0: {0, 0, 8, CodeSrc8}, FSSrc1: {0, 8, 8, CodeSrc8}},
	SOPK: {FSDst: {0, 16, 7, CodeSDst7}, FSImm16: {0, 0, 16, CodeImm}},
	SOPC: {FSSrc0: {0, 0, 8, CodeSrc8}, FSSrc1: {0, 8, 8, CodeSrc8}},
	SOPP: {FSImm16: {0, 0, 16, CodeImm}},
	SMEM: {FSData: {0, 6, 7, CodeSDst7}, FSBase: {0, 0, 6, CodeSBase6}, FSMOff: {1, 0, 21, CodeImm}, FSOffset: {1, 25, 7, CodeSrc8}},
	VOP1: {FVDst: {0, 17, 8, CodeVGPR8}, FSrc0: {0, 0, 9, CodeSrc9}},
	VOP2: {FVDst: {0, 17, 8, CodeVGPR8}, FSrc0: {0, 0, 9, CodeSrc9}, FVSrc1: {0, 9, 8, CodeVGPR8}},
	VOPC: {FSrc0: {0, 0, 9, CodeSrc9}, FVSrc1: {0, 9, 8, CodeVGPR8}},
	// SDWA src0 is 8 bits plus the S0 flag (bit 23) choosing SGPR; src1's
	// S1 flag is bit 31. The decoder combines them.
	SDWA1:   {FVDst: {0, 17, 8, CodeVGPR8}, FSrc0: {1, 0, 8, CodeImm}},
	SDWA2:   {FVDst: {0, 17, 8, CodeVGPR8}, FSrc0: {1, 0, 8, CodeImm}, FVSrc1: {0, 9, 8, CodeImm}},
	SDWAC:   {FSDstV: {1, 8, 7, CodeSDst7}, FSrc0: {1, 0, 8, CodeImm}, FVSrc1: {0, 9, 8, CodeImm}},
	DPP1:    {FVDst: {0, 17, 8, CodeVGPR8}, FSrc0: {1, 0, 8, CodeVGPR8}},
	DPP2:    {FVDst: {0, 17, 8, CodeVGPR8}, FSrc0: {1, 0, 8, CodeVGPR8}, FVSrc1: {0, 9, 8, CodeVGPR8}},
	DPPC:    {FSrc0: {1, 0, 8, CodeVGPR8}, FVSrc1: {0, 9, 8, CodeVGPR8}},
	VOP3:    {FVDst: {0, 0, 8, CodeVGPR8}, FSDstV: {0, 8, 7, CodeSDst7}, FSrc0: {1, 0, 9, CodeSrc9}, FSrc1: {1, 9, 9, CodeSrc9}, FSrc2: {1, 18, 9, CodeSrc9}},
	VOP3P:   {FVDst: {0, 0, 8, CodeVGPR8}, FSrc0: {1, 0, 9, CodeSrc9}, FSrc1: {1, 9, 9, CodeSrc9}, FSrc2: {1, 18, 9, CodeSrc9}},
	MAI:     {FVDst: {0, 0, 8, CodeVGPR8}, FSrc0: {1, 0, 9, CodeSrc9}, FSrc1: {1, 9, 9, CodeSrc9}, FSrc2: {1, 18, 9, CodeSrc9}},
	DS:      {FVDst: {1, 24, 8, CodeVGPR8}, FAddr: {1, 0, 8, CodeVGPR8}, FData0: {1, 8, 8, CodeVGPR8}, FData1: {1, 16, 8, CodeVGPR8}},
	FLAT:    {FVDst: {1, 24, 8, CodeVGPR8}, FAddr: {1, 0, 8, CodeVGPR8}, FData0: {1, 8, 8, CodeVGPR8}, FSAddr: {1, 16, 7, CodeSDst7}},
	MUBUF:   {FVData: {1, 8, 8, CodeVGPR8}, FVAddr: {1, 0, 8, CodeVGPR8}, FSRsrc: {1, 16, 5, CodeSRsrc5}, FSOffset: {1, 24, 8, CodeSrc8}},
	MTBUF:   {FVData: {1, 8, 8, CodeVGPR8}, FVAddr: {1, 0, 8, CodeVGPR8}, FSRsrc: {1, 16, 5, CodeSRsrc5}, FSOffset: {1, 24, 8, CodeSrc8}},
	VOP3PX2: {FVDst: {2, 0, 8, CodeVGPR8}, FSrc0: {3, 0, 9, CodeSrc9}, FSrc1: {3, 9, 9, CodeSrc9}, FSrc2: {3, 18, 9, CodeSrc9}, FScale0: {1, 0, 9, CodeSrc9}, FScale1: {1, 9, 9, CodeSrc9}},
}

// Aux returns the table sub-key of an instruction: for FLAT the segment and
// sc0 (atomics print a destination only when returning), for MUBUF sc0 and
// lds.
func Aux(k Kind, w0 uint32) int {
	switch k {
	case FLAT:
		return int(w0>>14)&3 | int(w0>>16&1)<<2
	case MUBUF:
		return int(w0>>14&1) | int(w0>>16&1)<<1
	}
	return 0
}
