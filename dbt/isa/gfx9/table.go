package gfx9

import (
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9/internal/enc"
)

//go:generate go run ./internal/gen -o tables.go
//go:generate go test -run TestIndexTable . -args -update-index

// opnd is one operand of an encoding-table row.
type opnd struct {
	field enc.FieldID
	width uint8
	// class is the register file LLVM printed for the probe: 'v', 's', 'a',
	// 't'; 'n' an implicit named register; 'i' an immediate; 'o' "off".
	class byte
	role  isa.Role
	// typ is how constants print: 'f' 32-bit-like, 'h' 16-bit integer
	// (float constants as hex), 'd' 64-bit float.
	typ byte
	// lit is 'F' when a literal is the high half of a 64-bit float.
	lit byte
	// acc lists the operand kinds LLVM accepts in the field: s SGPR or
	// special, v VGPR, i inline constant, l literal; "" when not probed.
	acc  string
	text string // implicit register name or immediate style
}

// entry is one row of the encoding table.
type entry struct {
	kind   enc.Kind
	op     uint16
	aux    uint8
	mnem   string
	info   uint16
	flags  uint32
	opselN uint8
	ops    []opnd
}

// Entry flags.
const (
	fNeg0 uint32 = 1 << iota
	fNeg1
	fNeg2
	fAbs0
	fAbs1
	fAbs2
	fClamp
	fOMod
	fOpSelHi0
	fNegLo
	fNegHi
	fCBSZ
	fABID
	fBLGP
	fSext0
	fSext1
	fMAINeg
	fDstSel
	fDstUnused
	fSrc0Sel
	fSrc1Sel
	fVOP3DPP // VOP3 bound_ctrl (op_sel bit 1) and fi (op_sel bit 0)
	fBitOp3  // bitop3 LUT in omod, abs and neg
	fSext2   // VOP3 src2 neg bit prints as sext()
)
