package gfx12

import (
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12/internal/enc"
)

//go:generate go run ./internal/gen -o tables.go

// fLit is the pseudo field of a literal operand (v_fmamk_f32's K).
const fLit enc.FieldID = 255

// opnd is one operand of an encoding-table row.
type opnd struct {
	field enc.FieldID
	// class: 'c' source code (register, constant or literal), 'd' scalar
	// destination code, 'v' VGPR, 'S' SGPR code in a VGPR field, 'Y' VOPD
	// vdsty, 'b' SMEM sbase, 'r' SGPR, 'i' immediate, 'o' "off", 'n'
	// implicit register, 'k' literal.
	class    byte
	w32, w64 uint8
	role     isa.Role
	style    enc.Style
	ifmt     string // immediate format
	mods     uint8  // 1: neg allowed, 2: abs allowed
	n32, n64 string // implicit register names
	// allowed is the set of operand categories LLVM accepts in a 'c' or
	// 'v' field (0: not checked); see category.
	allowed uint8
}

// entry is one row of the encoding table.
type entry struct {
	kind           enc.Kind
	op             uint16
	aux            uint8
	mnem, mnemY    string
	nx             uint8
	info, infoY    uint16
	flags          uint16
	strict         [4]uint32 // bits LLVM requires to be zero
	opselIdx       [4]uint8  // 1 + op_sel list position of each bit (VOP3, VINTERP)
	opselMask      uint8
	opselN         uint8
	opselHiN       uint8
	opselHiDef     uint8
	negLoN, negHiN uint8
	byteSel        [4]uint8
	ops            []opnd
	id             uint16
}

// Entry flags.
const (
	eClamp uint16 = 1 << iota
	eOMod
	eWave32
	eWave64
	eLit
)
