package instrument

import (
	"encoding/binary"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/place"
)

// words are the scalar encodings a marker sequence needs on one family.
// Every word is checked against llvm-mc-19 in words_test.go.
type words struct {
	// m0 is M0's scalar operand number (124 on GFX9, 125 on GFX12).
	m0 uint32
	// sop2 opcodes.
	and, or, lshl, cselect uint32
	// sopp words (without simm16).
	ttrace, ttraceImm, cbrSCC0 uint32
	// hasImm reports whether s_ttracedata_imm exists.
	hasImm bool
	// place are the control-flow words for placement.
	place *place.Words
	// hwID lists the hwreg fields of the scope dimensions.
	hwID [4]hwField
}

// hwField is a bit field of a hardware register read by s_getreg_b32.
type hwField struct{ reg, off, size uint32 }

// Scope dimensions, in the order of Options.Scope.
const (
	dimWave = iota
	dimSIMD
	dimCU
	dimWG
)

// gfx9Words: HW_ID (hwreg 4) holds WAVE_ID 3:0, SIMD_ID 5:4, CU_ID 11:8,
// TG_ID 19:16.
var gfx9Words = &words{m0: 124, and: 0x0c, or: 0x0e, lshl: 0x1c, cselect: 0x0a,
	ttrace: 0xbf960000, cbrSCC0: 0xbf840000, place: place.GFX9,
	hwID: [4]hwField{{4, 0, 4}, {4, 4, 2}, {4, 8, 4}, {4, 16, 4}}}

// gfx12Words: HW_ID1 (hwreg 23) holds WAVE_ID 4:0, SIMD_ID 9:8, WGP_ID
// 13:10; HW_ID2 (hwreg 24) holds WG_ID 20:16.
var gfx12Words = &words{m0: 125, and: 0x16, or: 0x18, lshl: 0x08, cselect: 0x30,
	ttrace: 0xbfba0000, ttraceImm: 0xbfbb0000, cbrSCC0: 0xbfa10000, hasImm: true, place: place.GFX12,
	hwID: [4]hwField{{23, 0, 5}, {23, 8, 2}, {23, 10, 4}, {24, 16, 5}}}

func wordsFor(t isa.Target) *words {
	if isa.GFX9.Has(t) {
		return gfx9Words
	}
	return gfx12Words
}

// hwShaderCyclesLo is HW_REG_SHADER_CYCLES_LO on gfx1200/gfx1201.
const hwShaderCyclesLo = 29

const (
	opLiteral = 0xff
	nopWord   = 0xbf800000
)

func put(code []byte, ws ...uint32) []byte {
	for _, w := range ws {
		code = binary.LittleEndian.AppendUint32(code, w)
	}
	return code
}

// movToM0 is s_mov_b32 m0, src (src an SGPR number; literal when lit).
func (w *words) movToM0(src uint32) uint32 { return 0xbe800000 | w.m0<<16 | src }

// movFromM0 is s_mov_b32 sdst, m0.
func (w *words) movFromM0(sdst uint32) uint32 { return 0xbe800000 | sdst<<16 | w.m0 }

// sop2 is a SOP2 word.
func sop2(op, sdst, s0, s1 uint32) uint32 {
	return 0x80000000 | op<<23 | sdst<<16 | s1<<8 | s0
}

// getreg is s_getreg_b32 sdst, hwreg(f).
func getreg(sdst uint32, f hwField) uint32 {
	return 0xb8800000 | sdst<<16 | f.reg | f.off<<6 | (f.size-1)<<11
}

// cmpLg0 is s_cmp_lg_u32 sreg, 0.
func cmpLg0(r uint32) uint32 { return 0xbf078000 | r }

// inline returns the inline-constant operand for v, or the literal marker.
func inline(v uint32) (uint32, bool) {
	if v <= 64 {
		return 0x80 + v, true
	}
	return opLiteral, false
}
