// Package isa is the instruction model shared by rocjitsu's AMDGPU ISA
// families. A family package (dbt/isa/gfx9 for gfx942 and gfx950) decodes
// machine code into an Inst, encodes an Inst back to bytes and prints it in
// LLVM's assembler syntax; the translator, the simulator and the SQTT
// instrumentation work on Inst values and never on raw bits.
//
// # Using it
//
// Decode one instruction, look at its facts and operands, print it:
//
//	inst, err := gfx9.Decode(code[off:], pc, isa.GFX950)
//	if err != nil { ... } // err names the offset and the field
//	info := inst.Info     // static facts of the operation (never nil after Decode)
//	if info.Branch != isa.BranchNone { target, _ := inst.BranchTarget() }
//	for _, o := range inst.Operands {
//		if o.Role.Defines() && o.Class == isa.VGPR { ... v[o.Reg : o.Reg+o.Width-1] ... }
//	}
//	text := gfx9.Print(&inst)           // "v_add_f32_e32 v1, v2, v3"
//	b, err := gfx9.Encode(&inst)        // same bytes as the input
//
// Operands carry their role (use or def), register class, first register and
// width in dwords, so that data-flow analyses need no per-opcode code. The
// per-operation facts (implicit reads and writes of SCC, VCC, EXEC and M0,
// branch kind, memory kind, wait counters, LDS access, the targets that have
// the operation, and whether its numerics differ between targets) are in
// OpInfo, generated from the LLVM oracles by the family's generator.
//
// Modifiers (clamp, omod, op_sel, DPP controls, SDWA selects, cache bits,
// offsets) are in Inst.Mod. Bits of an encoding that no operand and no
// modifier owns are kept in Inst.Pad so that Encode(Decode(x)) == x for every
// word Decode accepts.
package isa

import (
	"fmt"
	"strings"
)

// Target is a set of GPU targets (a bit mask). A single target is a set with
// one member.
type Target uint8

// The targets rocjitsu knows.
const (
	GFX942  Target = 1 << iota // CDNA3 (MI300), EF_AMDGPU_MACH 0x4c
	GFX950                     // CDNA4 (MI350/MI355), EF_AMDGPU_MACH 0x4f
	GFX1200                    // RDNA4, EF_AMDGPU_MACH 0x48
	GFX1201                    // RDNA4, EF_AMDGPU_MACH 0x4e

	// GFX9 is the set of GFX9 (CDNA) targets the gfx9 family decodes.
	GFX9 = GFX942 | GFX950
)

var targetNames = []struct {
	t    Target
	name string
	mach uint32
}{
	{GFX942, "gfx942", 0x4c},
	{GFX950, "gfx950", 0x4f},
	{GFX1200, "gfx1200", 0x48},
	{GFX1201, "gfx1201", 0x4e},
}

// Has reports whether every target of u is in t.
func (t Target) Has(u Target) bool { return u != 0 && t&u == u }

// String returns the LLVM processor names of the targets, joined by "|".
func (t Target) String() string {
	var parts []string
	for _, n := range targetNames {
		if t&n.t != 0 {
			parts = append(parts, n.name)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "|")
}

// ParseTarget returns the target named by an LLVM processor name such as
// "gfx942" (a "amdgcn-amd-amdhsa--" prefix and ":feature" suffixes are
// ignored).
func ParseTarget(s string) (Target, error) {
	s = strings.TrimPrefix(s, "amdgcn-amd-amdhsa--")
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	for _, n := range targetNames {
		if n.name == s {
			return n.t, nil
		}
	}
	return 0, fmt.Errorf("isa: unknown target %q", s)
}

// TargetFromMach returns the target for an ELF EF_AMDGPU_MACH value
// (e_flags & 0xff).
func TargetFromMach(mach uint32) (Target, error) {
	for _, n := range targetNames {
		if n.mach == mach {
			return n.t, nil
		}
	}
	return 0, fmt.Errorf("isa: unsupported EF_AMDGPU_MACH 0x%x", mach)
}

// Mach returns the ELF EF_AMDGPU_MACH value of a single target, or 0.
func (t Target) Mach() uint32 {
	for _, n := range targetNames {
		if n.t == t {
			return n.mach
		}
	}
	return 0
}

// Format is an instruction encoding, named as in the ISA manuals and LLVM.
type Format uint8

// Encodings. SDWA and DPP are the VOP1/VOP2/VOPC forms with an SDWA or DPP
// control dword; Inst.Base names the underlying VOP encoding.
const (
	FormatInvalid Format = iota
	SOP1
	SOP2
	SOPK
	SOPC
	SOPP
	SMEM
	VOP1
	VOP2
	VOPC
	VOP3    // VOP3a and VOP3b (64-bit VALU)
	VOP3P   // packed math (non-MAI ops of the VOP3P space)
	MAI     // VOP3P-MAI: MFMA, SMFMAC, ACCVGPR moves
	VOP3PX2 // gfx950 128-bit scaled MFMA (v_mfma_ld_scale_b32 + MFMA pair)
	SDWA
	DPP
	DS
	FLAT
	GLOBAL
	SCRATCH
	MUBUF
	MTBUF
	MIMG
	EXP
	VINTRP
	numFormats
)

var formatNames = [numFormats]string{
	FormatInvalid: "invalid", SOP1: "SOP1", SOP2: "SOP2", SOPK: "SOPK", SOPC: "SOPC",
	SOPP: "SOPP", SMEM: "SMEM", VOP1: "VOP1", VOP2: "VOP2", VOPC: "VOPC", VOP3: "VOP3",
	VOP3P: "VOP3P", MAI: "VOP3P-MAI", VOP3PX2: "VOP3PX2", SDWA: "SDWA", DPP: "DPP",
	DS: "DS", FLAT: "FLAT", GLOBAL: "GLOBAL", SCRATCH: "SCRATCH", MUBUF: "MUBUF",
	MTBUF: "MTBUF", MIMG: "MIMG", EXP: "EXP", VINTRP: "VINTRP",
}

// String returns the encoding's name.
func (f Format) String() string {
	if f < numFormats {
		return formatNames[f]
	}
	if f >= DPP8 && f <= VSAMPLE {
		return GFX12FormatName(f)
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// RegClass is the register file of a register operand.
type RegClass uint8

// Register classes.
const (
	RegNone RegClass = iota
	SGPR             // scalar registers s0..
	VGPR             // vector registers v0..
	AGPR             // accumulation registers a0.. (CDNA)
	TTMP             // trap temporaries ttmp0..
	Special          // a named scalar register; Operand.Reg holds a SpecialReg
)

var regClassNames = []string{"none", "sgpr", "vgpr", "agpr", "ttmp", "special"}

// String returns a short lower-case name of the class.
func (c RegClass) String() string {
	if int(c) < len(regClassNames) {
		return regClassNames[c]
	}
	return fmt.Sprintf("RegClass(%d)", uint8(c))
}

// SpecialReg names a special scalar register or source. The encoded operand
// code differs between families (M0 is 124 on GFX9 and 125 on GFX12); the
// family packages map between codes and these names.
type SpecialReg uint16

// Special registers and sources. A 64-bit pair (vcc, exec, flat_scratch,
// xnack_mask) is the low half with Operand.Width 2.
const (
	RegInvalid SpecialReg = iota
	RegVCCLo
	RegVCCHi
	RegEXECLo
	RegEXECHi
	RegM0
	RegFlatScratchLo
	RegFlatScratchHi
	RegXnackMaskLo
	RegXnackMaskHi
	RegSCC          // src_scc
	RegVCCZ         // src_vccz
	RegEXECZ        // src_execz
	RegLDSDirect    // src_lds_direct
	RegSharedBase   // src_shared_base
	RegSharedLimit  // src_shared_limit
	RegPrivateBase  // src_private_base
	RegPrivateLimit // src_private_limit
	RegPopsExitingWaveID
	RegNull // GFX10+ null
	// RegEncoded is a source code with no name on the family (reserved); the
	// code is in Operand.Imm.
	RegEncoded
)

// Role says whether an instruction reads or writes an operand. A written
// operand whose old value partly survives (d16 loads, byte-packing
// conversions, SDWA UNUSED_PRESERVE, masked DPP lanes, op_sel high-half
// writes, accumulators) is UseDef, so that liveness stays conservative.
type Role uint8

// Operand roles (a bit set).
const (
	Use Role = 1 << iota
	Def
	UseDef = Use | Def
)

// Uses reports whether the operand is read.
func (r Role) Uses() bool { return r&Use != 0 }

// Defines reports whether the operand is written.
func (r Role) Defines() bool { return r&Def != 0 }

// OperandKind is what an operand holds.
type OperandKind uint8

// Operand kinds.
const (
	KindNone    OperandKind = iota
	KindReg                 // a register range: Class, Reg, Width
	KindInline              // an inline constant; Imm holds its encoded code (128..208, 240..248)
	KindLiteral             // a 32-bit literal dword following the instruction; Imm holds it
	KindImm                 // an immediate field (offsets, simm16, hwreg, waitcnt, ...); Imm
	KindLabel               // a PC-relative branch target; Imm holds the signed dword offset
	KindOff                 // the "off" operand (no saddr / no address)
)

// ValueType is the type an operand is read or written as.
type ValueType uint8

// Value types.
const (
	TypeAny ValueType = iota // untyped bits (moves, logic)
	TypeI16
	TypeF16
	TypeBF16
	TypeI32
	TypeF32
	TypeI64
	TypeF64
	TypeV2F16 // packed
	TypeV2I16
)

// SrcMods are the per-source modifiers of VOP3, VOP3P, DPP and SDWA.
type SrcMods uint8

// Source modifier bits.
const (
	ModNeg   SrcMods = 1 << iota // -x (neg_lo for VOP3P)
	ModAbs                       // |x|
	ModSext                      // SDWA sign extension
	ModNegHi                     // VOP3P neg_hi
)

// Field identifies the encoding field an operand lives in. Its values are
// defined by the family package.
type Field uint8

// Operand is one operand of an instruction.
type Operand struct {
	Kind  OperandKind
	Role  Role
	Class RegClass // for KindReg
	// Reg is the first register number of a register operand (for Special,
	// a SpecialReg).
	Reg uint16
	// Width is the number of dwords a register operand spans (1 for a
	// 32-bit register, 2 for s[0:1], 4 for v[0:3], ...).
	Width uint8
	// Imm is the value of a non-register operand (see OperandKind).
	Imm  int64
	Mods SrcMods
	// Type is how the source reads constants when the family knows it
	// (16-bit integer or float, 64-bit float); TypeAny otherwise.
	Type ValueType
	// Field is the encoding field the operand is encoded in.
	Field Field
}

// IsReg reports whether o is a register operand of class c.
func (o *Operand) IsReg(c RegClass) bool { return o.Kind == KindReg && o.Class == c }

// Regs returns the first and last register number of a register operand.
func (o *Operand) Regs() (first, last int) {
	return int(o.Reg), int(o.Reg) + int(o.Width) - 1
}

// ImplicitRegs is a set of registers an instruction reads or writes without
// naming them as operands.
type ImplicitRegs uint8

// Implicit registers.
const (
	ImpSCC ImplicitRegs = 1 << iota
	ImpVCC
	ImpEXEC
	ImpM0
)

// String lists the registers, e.g. "scc|exec".
func (r ImplicitRegs) String() string {
	var p []string
	for i, n := range []string{"scc", "vcc", "exec", "m0"} {
		if r&(1<<i) != 0 {
			p = append(p, n)
		}
	}
	return strings.Join(p, "|")
}

// BranchKind classifies control flow.
type BranchKind uint8

// Branch kinds.
const (
	BranchNone     BranchKind = iota
	BranchJump                // unconditional PC-relative (s_branch)
	BranchCond                // conditional PC-relative (s_cbranch_*)
	BranchIndirect            // jump to a register address (s_setpc_b64)
	BranchCall                // call: s_call_b64, s_swappc_b64
	BranchEnd                 // ends the wave (s_endpgm*)
	BranchTrap                // s_trap, s_rfe_b64 and similar
)

// IsTerminator reports whether the kind ends a basic block.
func (k BranchKind) IsTerminator() bool { return k != BranchNone }

// MemKind is the memory an instruction accesses.
type MemKind uint8

// Memory kinds.
const (
	MemNone    MemKind = iota
	MemScalar          // SMEM
	MemLDS             // DS (LDS)
	MemGDS             // DS with gds
	MemGlobal          // GLOBAL
	MemFlat            // FLAT (generic address)
	MemScratch         // SCRATCH
	MemBuffer          // MUBUF/MTBUF
	MemImage           // MIMG
)

// MemOp is how memory is accessed (a bit set).
type MemOp uint8

// Memory operations.
const (
	MemLoad MemOp = 1 << iota
	MemStore
	MemAtomic
	MemReturn // an atomic that returns the old value
)

// WaitCounter is a set of wait counters an instruction increments.
type WaitCounter uint8

// Wait counters.
const (
	WaitVM   WaitCounter = 1 << iota // vmcnt: vector memory loads and stores (GFX9)
	WaitLGKM                         // lgkmcnt: LDS, GDS, SMEM, messages
	WaitEXP                          // expcnt
	WaitVS                           // vscnt (GFX10+ stores)
)

// OpFlags are further facts of an operation.
type OpFlags uint32

// Operation flags.
const (
	// FlagNumericsDiffer marks operations whose encoding is the same on the
	// targets that have it but whose numerics are not: FP8/BF8 are FNUZ on
	// gfx942 and OCP on gfx950.
	FlagNumericsDiffer     OpFlags = 1 << iota
	FlagMFMA                       // matrix multiply (MFMA, SMFMAC, scaled MFMA)
	FlagSALU                       // scalar ALU
	FlagVALU                       // vector ALU
	FlagWritesSGPRFromVALU         // VALU that writes an SGPR (readlane, v_cmp e64, ...)
	FlagLDS                        // accesses LDS (DS, buffer/global loads to LDS)
	FlagBarrier                    // s_barrier
	FlagWaitcnt                    // s_waitcnt family
	FlagNop                        // s_nop, v_nop
	FlagMessage                    // s_sendmsg, s_sendmsghalt
)

// OpInfo is the static description of an operation. One OpInfo is shared by
// all encodings of the operation (e32, e64, DPP, SDWA forms).
type OpInfo struct {
	// Name is the operation's LLVM mnemonic without an encoding suffix
	// (_e32, _e64, _dpp, _sdwa).
	Name string
	// Targets is the set of targets that have the operation.
	Targets Target
	// ImplicitReads and ImplicitWrites are the special registers the
	// operation reads or writes without naming them.
	ImplicitReads, ImplicitWrites ImplicitRegs
	Branch                        BranchKind
	Mem                           MemKind
	MemOp                         MemOp
	Wait                          WaitCounter
	Flags                         OpFlags
}

// Has reports whether all flags f are set.
func (i *OpInfo) Has(f OpFlags) bool { return i.Flags&f == f }

// Modifiers are the non-operand fields of an instruction. Only those of the
// instruction's encoding are meaningful.
type Modifiers struct {
	Clamp   bool
	OMod    uint8 // output modifier: 0 none, 1 *2, 2 *4, 3 /2
	OpSel   uint8 // VOP3/VOP3P op_sel bits (bit i = operand i; bit 3 = dst)
	OpSelHi uint8 // VOP3P op_sel_hi bits
	NegLo   uint8 // VOP3P neg_lo bits
	NegHi   uint8 // VOP3P neg_hi bits; MAI: see CBSZ/ABID/BLGP

	// MAI.
	CBSZ, ABID, BLGP uint8
	AccCD            bool // MFMA C/D are AGPRs

	// Memory.
	Offset  int32 // SMEM, FLAT, MUBUF, MTBUF, DS (offset / offset0)
	Offset1 uint8 // DS offset1
	GDS     bool
	SC0     bool // glc on older targets
	SC1     bool
	NT      bool // slc on older targets
	LDS     bool // MUBUF/FLAT load to LDS
	Offen   bool
	Idxen   bool
	Addr64  bool
	TFE     bool
	Format  uint8 // MTBUF combined dfmt | nfmt<<4
	NV      bool  // SMEM nv bit
	SMemImm bool  // SMEM: the offset field is an immediate
	SMemSOE bool  // SMEM: soffset field is used

	// DPP.
	DPPCtrl   uint16
	RowMask   uint8
	BankMask  uint8
	BoundCtrl bool
	FI        bool

	// SDWA.
	DstSel, DstUnused, Src0Sel, Src1Sel uint8
}

// Inst is a decoded instruction.
type Inst struct {
	// Info is the operation's static description.
	Info *OpInfo
	// Format is the encoding; Base is the underlying VOP encoding for SDWA
	// and DPP (VOP1, VOP2 or VOPC) and equals Format otherwise.
	Format, Base Format
	// Opcode is the value of the encoding's opcode field.
	Opcode uint16
	// Size is the instruction's length in bytes, including a literal.
	Size uint8
	// PC is the address the instruction was decoded at.
	PC uint64
	// Operands in LLVM's printing order: definitions first.
	Operands []Operand
	// Mod holds modifiers and other non-operand fields.
	Mod Modifiers
	// Literal is the 32-bit literal dword when HasLiteral.
	Literal    uint32
	HasLiteral bool
	// Pad holds encoding bits, by dword, that no operand or modifier owns.
	Pad [4]uint32
	// Enc is the family's encoding-table index (private to the family).
	Enc uint16
}

// Name returns the operation's mnemonic without encoding suffix.
func (in *Inst) Name() string {
	if in.Info == nil {
		return ""
	}
	return in.Info.Name
}

// Defs appends the register operands the instruction writes to dst.
func (in *Inst) Defs(dst []Operand) []Operand {
	for _, o := range in.Operands {
		if o.Kind == KindReg && o.Role.Defines() {
			dst = append(dst, o)
		}
	}
	return dst
}

// Uses appends the register operands the instruction reads to dst.
func (in *Inst) Uses(dst []Operand) []Operand {
	for _, o := range in.Operands {
		if o.Kind == KindReg && o.Role.Uses() {
			dst = append(dst, o)
		}
	}
	return dst
}

// BranchTarget returns the target address of a PC-relative branch.
func (in *Inst) BranchTarget() (uint64, bool) {
	for _, o := range in.Operands {
		if o.Kind == KindLabel {
			return uint64(int64(in.PC) + 4 + 4*o.Imm), true
		}
	}
	return 0, false
}

// DecodeError reports bytes that do not decode.
type DecodeError struct {
	Offset uint64 // byte offset or PC of the instruction
	Field  string // the field that failed (e.g. "opcode", "literal")
	Msg    string
}

// Error formats the offset, the field and the reason.
func (e *DecodeError) Error() string {
	return fmt.Sprintf("isa: decode at 0x%x: %s: %s", e.Offset, e.Field, e.Msg)
}
