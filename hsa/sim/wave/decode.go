package wave

import (
	"fmt"
	"strings"
	"sync"
)

// Format is an instruction encoding of gfx9.
type Format uint8

// Encodings.
const (
	FmtUnknown Format = iota
	FmtSOP2
	FmtSOPK
	FmtSOP1
	FmtSOPC
	FmtSOPP
	FmtSMEM
	FmtVOP2
	FmtVOP1
	FmtVOPC
	FmtVOP3
	FmtVOP3P
	FmtDS
	FmtFLAT
	FmtMUBUF
	FmtVOPD // gfx12 dual issue (wave32)
)

var fmtNames = [...]string{"unknown", "SOP2", "SOPK", "SOP1", "SOPC", "SOPP", "SMEM", "VOP2", "VOP1", "VOPC", "VOP3", "VOP3P", "DS", "FLAT", "MUBUF", "VOPD"}

func (f Format) String() string { return fmtNames[f] }

// Operand codes of the 9-bit source fields.
const (
	opLiteral = 255
	opSDWA    = 249
	opDPP     = 250
	opVCCZ    = 251
	opEXECZ   = 252
	opSCC     = 253
	opVGPR    = 256
)

// Inst is one decoded instruction.
type Inst struct {
	// PC is the instruction's address.
	PC uint64
	// epoch is the Program epoch at which the words were last checked
	// against memory.
	epoch uint64
	// Words are the instruction's dwords, including any literal.
	Words []uint32
	// Size is the instruction's length in bytes.
	Size int
	// Fmt is the encoding and Op the opcode within it.
	Fmt Format
	Op  int
	// Name is the LLVM mnemonic without encoding suffix.
	Name string

	// Src are the source operand codes (0-255 scalar/constant, 256-511
	// VGPR, or AGPR 512-767 for AGPR-capable fields).
	Src [3]uint16
	// Dst is the destination operand code (SGPR code or 256+VGPR, 512+AGPR).
	Dst uint16
	// SDst is the scalar destination of VOP3B and VOPC-as-VOP3 forms.
	SDst uint16
	// Lit is the literal constant when an operand is 255.
	Lit uint32

	Abs, Neg, NegHi, Opsel, OpselHi uint8
	Clamp                           bool
	Omod                            uint8

	// Imm is the SOPK/SOPP 16-bit immediate (sign-extended) or a memory offset.
	Imm int32
	// Memory fields.
	Offset1         int32
	Saddr, Soffset  uint16
	Glc, Idxen, Off bool
	Lds, SVE, GDS   bool
	SImm            bool
	Seg             uint8
	// Ufmt is a gfx12 VBUFFER instruction's unified FORMAT field.
	Ufmt uint8
	// MFMA fields.
	Cbsz, Abid, Blgp uint8

	// SDWA and DPP forms.
	SDWA *SDWA
	DPP  *DPP

	exec func(w *Wave, in *Inst) error
	// class is the instruction's dbt/cost class and passes its weight in
	// the issue-cycle model (classify).
	class, passes uint8

	// gfx12 decoding (gfx12_decode.go): the instruction is gfx12 code; t16
	// marks a true16 .h operand run as VOP3 op_sel; dual holds the X and Y
	// halves of a VOPD; unsupported names a form the simulator rejects;
	// decodeErr is why an undefined encoding did not decode.
	gfx12, t16  bool
	dual        *[2]Inst
	unsupported string
	decodeErr   error
}

// SDWA holds the sub-dword addressing fields of a VOP1/VOP2/VOPC SDWA form.
type SDWA struct {
	DstSel, DstUnused, Src0Sel, Src1Sel uint8
	Src0Sext, Src1Sext                  bool
	Src0Neg, Src0Abs, Src1Neg, Src1Abs  bool
	Clamp                               bool
	Omod                                uint8
	SDst                                int // -1: VCC
}

// DPP holds the data-parallel-primitive fields of a VOP1/VOP2 DPP form.
type DPP struct {
	Ctrl              uint16
	RowMask, BankMask uint8
	BoundCtrl         bool
	Src0Neg, Src0Abs  bool
	Src1Neg, Src1Abs  bool
	// GFX12 selects the gfx10+ DPP16 controls (row_share, row_xmask);
	// FI lets lanes read inactive source lanes; DPP8 uses the 3-bit lane
	// selects Sel8 within groups of 8 lanes.
	GFX12, FI, DPP8 bool
	Sel8            uint32
}

// String prints the mnemonic and raw words of in.
func (in *Inst) String() string {
	var b strings.Builder
	if in.Name != "" {
		b.WriteString(in.Name)
	} else if in.decodeErr != nil {
		fmt.Fprintf(&b, "undefined instruction (%v)", in.decodeErr)
	} else {
		fmt.Fprintf(&b, "unknown %s opcode %d", in.Fmt, in.Op)
	}
	if in.SDWA != nil {
		b.WriteString("_sdwa")
	}
	if in.DPP != nil {
		b.WriteString("_dpp")
	}
	b.WriteString(" [")
	for i, w := range in.Words {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%08x", w)
	}
	b.WriteString("]")
	return b.String()
}

// unknownOp is the semantics of instructions the interpreter does not have.
func unknownOp(w *Wave, in *Inst) error {
	if in.decodeErr != nil {
		return fmt.Errorf("undefined instruction: %w", in.decodeErr)
	}
	if in.Name == "" {
		return fmt.Errorf("unknown instruction")
	}
	return fmt.Errorf("instruction not supported by the simulator")
}

func sext(v uint32, bits uint) int32 { return int32(v<<(32-bits)) >> (32 - bits) }

// Decode decodes the instruction at the start of words (which may hold
// trailing words of later instructions) for target.
func Decode(words []uint32, target Target) (*Inst, error) {
	if len(words) == 0 {
		return nil, fmt.Errorf("decode: no instruction words")
	}
	if target.GFX12() {
		return decodeGFX12(words, target)
	}
	w0 := words[0]
	in := &Inst{Size: 4}
	need := func(n int) error {
		if len(words) < n {
			return fmt.Errorf("decode: %s instruction at word %#08x needs %d dwords, %d available", in.Fmt, w0, n, len(words))
		}
		return nil
	}
	var w1 uint32
	hasLit := false
	switch {
	case w0>>30 == 2:
		switch {
		case w0>>23 == 0x17d:
			in.Fmt, in.Op = FmtSOP1, int(w0>>8&0xff)
			in.Dst, in.Src[0] = uint16(w0>>16&0x7f), uint16(w0&0xff)
			hasLit = in.Src[0] == opLiteral
			in.Name = namesSOP1[in.Op]
		case w0>>23 == 0x17e:
			in.Fmt, in.Op = FmtSOPC, int(w0>>16&0x7f)
			in.Src[0], in.Src[1] = uint16(w0&0xff), uint16(w0>>8&0xff)
			hasLit = in.Src[0] == opLiteral || in.Src[1] == opLiteral
			in.Name = namesSOPC[in.Op]
		case w0>>23 == 0x17f:
			in.Fmt, in.Op = FmtSOPP, int(w0>>16&0x7f)
			in.Imm = int32(int16(w0))
			in.Name = namesSOPP[in.Op]
		case w0>>28 == 0xb:
			in.Fmt, in.Op = FmtSOPK, int(w0>>23&0x1f)
			in.Dst = uint16(w0 >> 16 & 0x7f)
			in.Imm = int32(int16(w0))
			if in.Op < len(namesSOPK) {
				in.Name = namesSOPK[in.Op]
			}
			hasLit = in.Name == "s_setreg_imm32_b32"
		default:
			in.Fmt, in.Op = FmtSOP2, int(w0>>23&0x7f)
			in.Dst, in.Src[0], in.Src[1] = uint16(w0>>16&0x7f), uint16(w0&0xff), uint16(w0>>8&0xff)
			hasLit = in.Src[0] == opLiteral || in.Src[1] == opLiteral
			if in.Op < len(namesSOP2) {
				in.Name = namesSOP2[in.Op]
			}
		}
	case w0>>26 == 0x30:
		in.Fmt, in.Op = FmtSMEM, int(w0>>18&0xff)
		if err := need(2); err != nil {
			return nil, err
		}
		w1 = words[1]
		in.Size = 8
		in.Name = namesSMEM[in.Op]
		in.Src[0] = uint16(w0&0x3f) << 1 // sbase
		in.Dst = uint16(w0 >> 6 & 0x7f)  // sdata
		in.Glc = w0>>16&1 != 0
		in.SImm = w0>>17&1 != 0
		soe := w0>>14&1 != 0
		in.Soffset = 0xffff
		if in.SImm {
			in.Imm = sext(w1&0x1fffff, 21)
			if soe {
				in.Soffset = uint16(w1 >> 25)
			}
		} else {
			in.Soffset = uint16(w1 & 0x7f)
		}
	case w0>>31 == 0:
		switch w0 >> 25 {
		case 0x3f:
			in.Fmt, in.Op = FmtVOP1, int(w0>>9&0xff)
			in.Dst = opVGPR + uint16(w0>>17&0xff)
			in.Src[0] = uint16(w0 & 0x1ff)
			in.Name = namesVOP1[in.Op]
		case 0x3e:
			in.Fmt, in.Op = FmtVOPC, int(w0>>17&0xff)
			in.Src[0], in.Src[1] = uint16(w0&0x1ff), opVGPR+uint16(w0>>9&0xff)
			in.Name = namesVOPC[in.Op]
			in.SDst = RegVCCLo
		default:
			in.Fmt, in.Op = FmtVOP2, int(w0>>25&0x3f)
			in.Dst = opVGPR + uint16(w0>>17&0xff)
			in.Src[0], in.Src[1] = uint16(w0&0x1ff), opVGPR+uint16(w0>>9&0xff)
			in.Name = namesVOP2[in.Op]
			switch in.Name {
			case "v_madmk_f32", "v_madak_f32", "v_fmamk_f32", "v_fmaak_f32", "v_madmk_f16", "v_madak_f16":
				hasLit = true
			}
		}
		hasLit = hasLit || in.Src[0] == opLiteral
		switch in.Src[0] {
		case opSDWA:
			if err := need(2); err != nil {
				return nil, err
			}
			w1 = words[1]
			in.Size = 8
			s := &SDWA{DstSel: uint8(w1 >> 8 & 7), DstUnused: uint8(w1 >> 11 & 3), Clamp: w1>>13&1 != 0, Omod: uint8(w1 >> 14 & 3),
				Src0Sel: uint8(w1 >> 16 & 7), Src0Sext: w1>>19&1 != 0, Src0Neg: w1>>20&1 != 0, Src0Abs: w1>>21&1 != 0,
				Src1Sel: uint8(w1 >> 24 & 7), Src1Sext: w1>>27&1 != 0, Src1Neg: w1>>28&1 != 0, Src1Abs: w1>>29&1 != 0, SDst: -1}
			in.Src[0] = uint16(w1 & 0xff)
			if w1>>23&1 == 0 {
				in.Src[0] += opVGPR
			}
			if w1>>31&1 != 0 {
				in.Src[1] -= opVGPR
			}
			if in.Fmt == FmtVOPC {
				s.DstSel, s.DstUnused, s.Clamp, s.Omod = 6, 0, false, 0
				if w1>>15&1 != 0 {
					s.SDst = int(w1 >> 8 & 0x7f)
					in.SDst = uint16(s.SDst)
				}
			}
			in.SDWA = s
		case opDPP:
			if err := need(2); err != nil {
				return nil, err
			}
			w1 = words[1]
			in.Size = 8
			in.DPP = &DPP{Ctrl: uint16(w1 >> 8 & 0x1ff), BoundCtrl: w1>>19&1 != 0,
				Src0Neg: w1>>20&1 != 0, Src0Abs: w1>>21&1 != 0, Src1Neg: w1>>22&1 != 0, Src1Abs: w1>>23&1 != 0,
				BankMask: uint8(w1 >> 24 & 0xf), RowMask: uint8(w1 >> 28)}
			in.Src[0] = opVGPR + uint16(w1&0xff)
			if !dppDefined(in.DPP.Ctrl) {
				// Executing it faults as an undefined instruction
				// (lookup finds no semantics for an empty name).
				in.decodeErr = fmt.Errorf("dpp_ctrl %#x (word 1 bits 16:8) is not a DPP control", in.DPP.Ctrl)
			}
		}
	case w0>>26 == 0x34:
		if err := need(2); err != nil {
			return nil, err
		}
		w1 = words[1]
		in.Size = 8
		in.Dst = uint16(w0 & 0xff)
		in.Src[0], in.Src[1], in.Src[2] = uint16(w1&0x1ff), uint16(w1>>9&0x1ff), uint16(w1>>18&0x1ff)
		in.Neg = uint8(w1 >> 29 & 7)
		if w0>>23 == 0x1a7 {
			in.Fmt, in.Op = FmtVOP3P, int(w0>>16&0x7f)
			in.Name = namesVOP3P[in.Op]
			in.NegHi = uint8(w0 >> 8 & 7)
			in.Opsel = uint8(w0 >> 11 & 7)
			in.OpselHi = uint8(w1>>27&3) | uint8(w0>>14&1)<<2
			in.Clamp = w0>>15&1 != 0
			if isMFMA(in.Name) {
				in.Cbsz, in.Abid, in.Blgp = uint8(w0>>8&7), uint8(w0>>11&0xf), uint8(w1>>29&7)
				in.Neg, in.NegHi, in.Opsel, in.OpselHi = 0, 0, 0, 0
				in.Clamp = false
				if w0>>15&1 != 0 { // acc_cd
					in.Dst += 512
					if !strings.HasPrefix(in.Name, "v_smfmac") { // src2 is the index VGPR there
						in.Src[2] += 256
					}
				} else {
					in.Dst += opVGPR
				}
				if w1>>27&1 != 0 {
					in.Src[0] += 256
				}
				if w1>>28&1 != 0 {
					in.Src[1] += 256
				}
			} else {
				in.Dst += opVGPR
			}
			switch in.Name {
			case "v_accvgpr_read_b32":
				in.Src[0] += 256
			case "v_accvgpr_write_b32":
				in.Dst += 256
			}
		} else {
			in.Fmt, in.Op = FmtVOP3, int(w0>>16&0x3ff)
			in.Name = namesVOP3[in.Op]
			in.Clamp = w0>>15&1 != 0
			in.Omod = uint8(w1 >> 27 & 3)
			in.Abs = uint8(w0 >> 8 & 7)
			in.Opsel = uint8(w0 >> 11 & 0xf)
			switch {
			case in.Op < 256: // VOPC promoted: dst is an SGPR pair
				in.SDst = in.Dst
			case isVOP3B(in.Name):
				in.SDst = uint16(w0 >> 8 & 0x7f)
				in.Abs, in.Opsel = 0, 0
				in.Dst += opVGPR
			case isScalarDst(in.Name):
			default:
				in.Dst += opVGPR
			}
		}
	case w0>>26 == 0x36:
		in.Fmt, in.Op = FmtDS, int(w0>>17&0xff)
		if err := need(2); err != nil {
			return nil, err
		}
		w1 = words[1]
		in.Size = 8
		in.Name = namesDS[in.Op]
		in.Imm = int32(w0 & 0xff)
		in.Offset1 = int32(w0 >> 8 & 0xff)
		in.GDS = w0>>16&1 != 0
		acc := uint16(0)
		if w0>>25&1 != 0 {
			acc = 256
		}
		in.Src[0] = opVGPR + uint16(w1&0xff)           // addr
		in.Src[1] = opVGPR + acc + uint16(w1>>8&0xff)  // data0
		in.Src[2] = opVGPR + acc + uint16(w1>>16&0xff) // data1
		in.Dst = opVGPR + acc + uint16(w1>>24&0xff)    // vdst
	case w0>>26 == 0x37:
		in.Fmt, in.Op = FmtFLAT, int(w0>>18&0x7f)
		if err := need(2); err != nil {
			return nil, err
		}
		w1 = words[1]
		in.Size = 8
		in.Seg = uint8(w0 >> 14 & 3)
		switch in.Seg {
		case 0:
			in.Name = namesFLAT[in.Op]
			in.Imm = int32(w0 & 0xfff)
		case 1:
			in.Name = namesSCRATCH[in.Op]
			in.Imm = sext(w0&0x1fff, 13)
		case 2:
			in.Name = namesGLOBAL[in.Op]
			in.Imm = sext(w0&0x1fff, 13)
		}
		in.Glc = w0>>16&1 != 0
		in.Lds = w0>>13&1 != 0 && in.Seg != 1
		in.SVE = w0>>13&1 != 0 && in.Seg == 1
		acc := uint16(0)
		if w1>>23&1 != 0 {
			acc = 256
		}
		in.Src[0] = opVGPR + uint16(w1&0xff)
		in.Src[1] = opVGPR + acc + uint16(w1>>8&0xff)
		in.Saddr = uint16(w1 >> 16 & 0x7f)
		in.Dst = opVGPR + acc + uint16(w1>>24&0xff)
	case w0>>26 == 0x38:
		in.Fmt, in.Op = FmtMUBUF, int(w0>>18&0x7f)
		if err := need(2); err != nil {
			return nil, err
		}
		w1 = words[1]
		in.Size = 8
		in.Name = namesMUBUF[in.Op]
		in.Imm = int32(w0 & 0xfff)
		in.Off = w0>>12&1 != 0
		in.Idxen = w0>>13&1 != 0
		in.Glc = w0>>14&1 != 0
		in.Lds = w0>>16&1 != 0
		acc := uint16(0)
		if w1>>23&1 != 0 {
			acc = 256
		}
		in.Src[0] = opVGPR + uint16(w1&0xff)
		in.Src[1] = opVGPR + acc + uint16(w1>>8&0xff)
		in.Src[2] = uint16(w1>>16&0x1f) << 2 // srsrc
		in.Soffset = uint16(w1 >> 24)
		in.Dst = in.Src[1]
	default:
		in.Fmt = FmtUnknown
	}
	if hasLit {
		if err := need(in.Size/4 + 1); err != nil {
			return nil, err
		}
		in.Lit = words[in.Size/4]
		in.Size += 4
	}
	in.Words = append([]uint32(nil), words[:in.Size/4]...)
	if in.Name != "" && target == GFX942 && gfx950Only(in) {
		in.Name = ""
	}
	if target == GFX950 && gfx942Only[in.Name] {
		in.Name = ""
	}
	if in.decodeErr != nil {
		in.Name = ""
	}
	in.exec = lookup(in)
	return in, nil
}

func gfx950Only(in *Inst) bool {
	switch in.Fmt {
	case FmtVOP1:
		return gfx950OnlyVOP1[in.Op]
	case FmtVOP2:
		return gfx950OnlyVOP2[in.Op]
	case FmtVOP3:
		return gfx950OnlyVOP3[in.Op]
	case FmtVOP3P:
		return gfx950OnlyVOP3P[in.Op]
	case FmtDS:
		return gfx950OnlyDS[in.Op]
	case FmtMUBUF:
		return gfx950OnlyMUBUF[in.Op]
	case FmtFLAT:
		return in.Seg == 2 && gfx950OnlyGLOBAL[in.Op]
	}
	return false
}

// gfx942Only lists the gfx942 instructions gfx950 removed (the XF32
// MFMAs of FeatureXF32Insts).
var gfx942Only = map[string]bool{"v_mfma_f32_16x16x8_xf32": true, "v_mfma_f32_32x32x4_xf32": true}

func isMFMA(name string) bool {
	if name == "v_mfma_ld_scale_b32" { // an ordinary VOP3P operand layout
		return false
	}
	return strings.HasPrefix(name, "v_mfma") || strings.HasPrefix(name, "v_smfmac")
}

func isVOP3B(name string) bool {
	switch name {
	case "v_add_co_u32", "v_sub_co_u32", "v_subrev_co_u32", "v_addc_co_u32", "v_subb_co_u32", "v_subbrev_co_u32",
		"v_div_scale_f32", "v_div_scale_f64", "v_mad_u64_u32", "v_mad_i64_i32":
		return true
	}
	return false
}

func isScalarDst(name string) bool {
	switch name {
	case "v_readlane_b32", "v_readfirstlane_b32":
		return true
	}
	return false
}

// lookup finds the semantics of in.
func lookup(in *Inst) func(*Wave, *Inst) error {
	if in.Name == "" {
		return unknownOp
	}
	registerSemantics()
	if f, ok := semantics[in.Name]; ok {
		return f
	}
	return unknownOp
}

// semantics maps mnemonics to their implementations; filled on first use
// (registerSemantics) by the register functions of the files that
// implement instruction groups.
var semantics = map[string]func(*Wave, *Inst) error{}

// registerSemantics fills semantics, semantics12 and the gfx12 tables the
// first time an instruction is looked up, in the order the package's init
// functions ran before (file order): a process that never simulates (the
// rocjitsu CLI's disasm and translate) does not pay for building them.
// The package has no init functions (TestNoInitFunctions): a new group
// adds its register function here.
var registerSemantics = sync.OnceFunc(func() {
	registerDs()
	registerExtra1()
	registerExtra2()
	registerGfx12Barrier()
	registerGfx12Buffer()
	registerGfx12Bufformat()
	registerGfx12Ds()
	registerGfx12Int16()
	registerGfx12Movrel()
	registerGfx12Ops1()
	registerGfx12Ops2()
	registerGfx12Wmma()
	registerMemops()
	registerMfma()
	registerSalu()
	registerScalecvt()
	registerValuops()
	registerVop3P1()
	registerVop3P2()
})

func def(name string, f func(*Wave, *Inst) error) {
	if _, dup := semantics[name]; dup {
		panic("wave: semantics defined twice: " + name)
	}
	semantics[name] = f
}

// Supported reports whether the interpreter implements mnemonic.
func Supported(mnemonic string) bool {
	registerSemantics()
	_, ok := semantics[mnemonic]
	return ok
}

// AllNames returns every mnemonic of the gfx9 opcode tables (gfx942 and
// gfx950), for coverage reports.
func AllNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range [][]string{namesSOP2[:], namesSOPK[:], namesSOP1[:], namesSOPC[:], namesSOPP[:], namesSMEM[:],
		namesVOP2[:], namesVOP1[:], namesVOPC[:], namesVOP3[:], namesVOP3P[:], namesDS[:], namesFLAT[:],
		namesSCRATCH[:], namesGLOBAL[:], namesMUBUF[:]} {
		for _, n := range t {
			if n != "" && !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}
