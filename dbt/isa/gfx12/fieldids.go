package gfx12

import (
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12/internal/enc"
)

// Operand fields of the GFX12 encodings, as isa.Operand.Field reports them,
// for clients (the simulator) that need to know which encoding field an
// operand came from.
const (
	FieldNone    = isa.Field(enc.FNone)    // implicit operand (vcc, exec, ...)
	FieldSDst    = isa.Field(enc.FSDst)    // SOP1/SOP2/SOPK sdst
	FieldSSrc0   = isa.Field(enc.FSSrc0)   // SOP1/SOP2/SOPC ssrc0
	FieldSSrc1   = isa.Field(enc.FSSrc1)   // SOP2/SOPC ssrc1
	FieldSimm16  = isa.Field(enc.FSimm16)  // SOPK/SOPP simm16
	FieldSMBase  = isa.Field(enc.FSMBase)  // SMEM sbase
	FieldSMData  = isa.Field(enc.FSMData)  // SMEM sdata
	FieldSMSOff  = isa.Field(enc.FSMSOff)  // SMEM soffset
	FieldSMOff   = isa.Field(enc.FSMOff)   // SMEM immediate offset
	FieldVDst    = isa.Field(enc.FVDst)    // VOP1/VOP2 vdst
	FieldSrc0    = isa.Field(enc.FSrc0)    // VOP1/VOP2/VOPC src0
	FieldVSrc1   = isa.Field(enc.FVSrc1)   // VOP2/VOPC vsrc1
	Field3VDst   = isa.Field(enc.F3VDst)   // VOP3/VOP3P vdst (an SGPR code for VOPC and readlane)
	Field3SDst   = isa.Field(enc.F3SDst)   // VOP3 sdst (carry-out, VOP3B)
	Field3Src0   = isa.Field(enc.F3Src0)   // VOP3/VOP3P src0
	Field3Src1   = isa.Field(enc.F3Src1)   // VOP3/VOP3P src1
	Field3Src2   = isa.Field(enc.F3Src2)   // VOP3/VOP3P src2
	FieldDPPSrc0 = isa.Field(enc.FDPPSrc0) // src0 VGPR of a DPP16/DPP8 dword
	FieldDPP8Sel = isa.Field(enc.FDPP8Sel) // DPP8 lane selects
	FieldDSrc0X  = isa.Field(enc.FDSrc0X)  // VOPD X src0
	FieldDVSrc1X = isa.Field(enc.FDVSrc1X) // VOPD X vsrc1
	FieldDVDstX  = isa.Field(enc.FDVDstX)  // VOPD X vdst
	FieldDSrc0Y  = isa.Field(enc.FDSrc0Y)  // VOPD Y src0
	FieldDVSrc1Y = isa.Field(enc.FDVSrc1Y) // VOPD Y vsrc1
	FieldDVDstY  = isa.Field(enc.FDVDstY)  // VOPD Y vdst
	FieldDSAddr  = isa.Field(enc.FDSAddr)  // DS addr
	FieldDSData0 = isa.Field(enc.FDSData0) // DS data0
	FieldDSData1 = isa.Field(enc.FDSData1) // DS data1
	FieldDSVDst  = isa.Field(enc.FDSVDst)  // DS vdst
	FieldFSAddr  = isa.Field(enc.FFSAddr)  // FLAT/GLOBAL/SCRATCH saddr
	FieldFVDst   = isa.Field(enc.FFVDst)   // FLAT/GLOBAL/SCRATCH vdst
	FieldFData   = isa.Field(enc.FFData)   // FLAT/GLOBAL/SCRATCH vdata
	FieldFVAddr  = isa.Field(enc.FFVAddr)  // FLAT/GLOBAL/SCRATCH vaddr
	FieldBVData  = isa.Field(enc.FBVData)  // VBUFFER vdata
	FieldBVAddr  = isa.Field(enc.FBVAddr)  // VBUFFER vaddr
	FieldBRsrc   = isa.Field(enc.FBRsrc)   // VBUFFER rsrc
	FieldBSOff   = isa.Field(enc.FBSOff)   // VBUFFER soffset
	FieldLiteral = isa.Field(fLit)         // a literal operand that is not a source code (v_fmamk_f32's K)
)

// VOPDNames returns the mnemonics of a VOPD instruction's X and Y halves
// ("v_dual_mul_f32", "v_dual_add_f32"); ok is false for other instructions.
func VOPDNames(in *isa.Inst) (x, y string, ok bool) {
	if in.Format != isa.VOPD || int(in.Enc) >= len(table()) {
		return "", "", false
	}
	e := &table()[in.Enc]
	return e.mnem, e.mnemY, true
}

// Mnemonics returns every operation name of the GFX12 tables (both
// targets, both wave sizes), in table order without duplicates.
func Mnemonics() []string {
	seen := map[string]bool{}
	var out []string
	for i := range opInfos {
		if n := opInfos[i].Name; n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
