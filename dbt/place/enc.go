package place

import "encoding/binary"

// Scalar control-flow encodings, the only host words this package writes
// itself: GFX9 (gfx942, gfx950) below, and the host-specific set a Body
// names through Words. Each is checked against llvm-mc-19 in the tests.

// Words are a host's scalar control-flow encodings. Branch opcodes are
// always given as the GFX9 SOPP opcodes below (the guest's); SOPP maps them
// to the host's.
type Words struct {
	// Name labels the set in errors.
	Name string
	// SOPP returns the branch word for a GFX9 SOPP opcode and simm16.
	SOPP func(op uint8, simm int16) uint32
	// Call is s_call_b64 s[sdst:sdst+1], simm16.
	Call func(sdst uint16, simm int16) uint32
	// Getpc, Setpc and Swappc are s_getpc_b64, s_setpc_b64 and
	// s_swappc_b64 on SGPR pairs.
	Getpc, Setpc func(r uint16) uint32
	Swappc       func(sdst, src uint16) uint32
	// AddLit is s_add_u32 (carry=false) or s_addc_u32 sdst, sdst, literal.
	AddLit func(sdst uint16, carry bool, lit uint32) [2]uint32
	// Cselect is s_cselect_b32 s[reg], 1, 0; CmpLg is s_cmp_lg_u32 s[reg], 0.
	Cselect, CmpLg func(reg uint16) uint32
}

// GFX9 are the gfx942/gfx950 words (the default of a Body).
var GFX9 = &Words{Name: "gfx9", SOPP: sopp, Call: callWord, Getpc: getpcWord, Setpc: setpcWord,
	Swappc: swappcWord, AddLit: addLit, Cselect: cselectWord, CmpLg: cmpLgWord}

// GFX12 are the gfx1200/gfx1201 words (SOPP branches 0x20-0x26, SOP1
// s_getpc/s_setpc/s_swappc 0x47-0x49, SOPK s_call_b64 0x14, SOP2
// s_cselect_b32 0x30; s_add_co_u32/s_add_co_ci_u32 and s_cmp_lg_u32 keep
// the GFX9 opcodes).
var GFX12 = &Words{Name: "gfx12",
	SOPP: func(op uint8, simm int16) uint32 {
		return 0xbf800000 | gfx12SOPP[op]<<16 | uint32(uint16(simm))
	},
	Call: func(sdst uint16, simm int16) uint32 {
		return 0xb0000000 | 0x14<<23 | uint32(sdst&0x7f)<<16 | uint32(uint16(simm))
	},
	Getpc:  func(r uint16) uint32 { return 0xbe800000 | uint32(r&0x7f)<<16 | 0x47<<8 },
	Setpc:  func(r uint16) uint32 { return 0xbe800000 | 0x48<<8 | uint32(r&0xff) },
	Swappc: func(sdst, src uint16) uint32 { return 0xbe800000 | uint32(sdst&0x7f)<<16 | 0x49<<8 | uint32(src&0xff) },
	AddLit: addLit,
	Cselect: func(reg uint16) uint32 {
		return 0x80000000 | 0x30<<23 | uint32(reg&0x7f)<<16 | 0x80<<8 | 0x81
	},
	CmpLg: cmpLgWord,
}

// SOPP opcodes.
const (
	OpNop           = 0x00
	OpEndpgm        = 0x01
	OpBranch        = 0x02
	OpCbranchSCC0   = 0x04
	OpCbranchSCC1   = 0x05
	OpCbranchVCCZ   = 0x06
	OpCbranchVCCNZ  = 0x07
	OpCbranchEXECZ  = 0x08
	OpCbranchEXECNZ = 0x09
)

// sopp returns the SOPP word for op and simm16.
func sopp(op uint8, simm int16) uint32 {
	return 0xbf800000 | uint32(op)<<16 | uint32(uint16(simm))
}

// gfx12SOPP maps the GFX9 branch opcodes to GFX12's.
var gfx12SOPP = map[uint8]uint32{OpNop: 0, OpEndpgm: 0x30, OpBranch: 0x20, OpCbranchSCC0: 0x21, OpCbranchSCC1: 0x22,
	OpCbranchVCCZ: 0x23, OpCbranchVCCNZ: 0x24, OpCbranchEXECZ: 0x25, OpCbranchEXECNZ: 0x26}

// HasBranch reports whether the words can express the GFX9 SOPP branch
// opcode op.
func (w *Words) HasBranch(op uint8) bool {
	if w != GFX12 {
		return true
	}
	_, ok := gfx12SOPP[op]
	return ok
}

// NopWord is s_nop 0 (on GFX9 and GFX12).
const NopWord = 0xbf800000

// Invert returns the conditional branch opcode with the opposite
// condition.
func Invert(op uint8) (uint8, bool) {
	switch op {
	case OpCbranchSCC0:
		return OpCbranchSCC1, true
	case OpCbranchSCC1:
		return OpCbranchSCC0, true
	case OpCbranchVCCZ:
		return OpCbranchVCCNZ, true
	case OpCbranchVCCNZ:
		return OpCbranchVCCZ, true
	case OpCbranchEXECZ:
		return OpCbranchEXECNZ, true
	case OpCbranchEXECNZ:
		return OpCbranchEXECZ, true
	}
	return 0, false
}

// callWord is s_call_b64 s[sdst:sdst+1], simm16 (SOPK op 0x15).
func callWord(sdst uint16, simm int16) uint32 {
	return 0xb0000000 | 0x15<<23 | uint32(sdst&0x7f)<<16 | uint32(uint16(simm))
}

// getpcWord is s_getpc_b64 s[sdst:sdst+1].
func getpcWord(sdst uint16) uint32 { return 0xbe800000 | uint32(sdst&0x7f)<<16 | 0x1c<<8 }

// setpcWord is s_setpc_b64 s[src:src+1].
func setpcWord(src uint16) uint32 { return 0xbe800000 | 0x1d<<8 | uint32(src&0xff) }

// swappcWord is s_swappc_b64 s[sdst:sdst+1], s[src:src+1].
func swappcWord(sdst, src uint16) uint32 {
	return 0xbe800000 | uint32(sdst&0x7f)<<16 | 0x1e<<8 | uint32(src&0xff)
}

// addLit returns s_add_u32 (carry=false) or s_addc_u32 (carry=true)
// sdst, sdst, literal as two words.
func addLit(sdst uint16, carry bool, lit uint32) [2]uint32 {
	op := uint32(0)
	if carry {
		op = 4
	}
	return [2]uint32{0x80000000 | op<<23 | uint32(sdst&0x7f)<<16 | 0xff<<8 | uint32(sdst&0xff), lit}
}

func put(b []byte, words ...uint32) {
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
}

// cselectWord is s_cselect_b32 s[reg], 1, 0 (saves SCC).
func cselectWord(reg uint16) uint32 {
	return 0x80000000 | 0x0a<<23 | uint32(reg&0x7f)<<16 | 0x80<<8 | 0x81
}

// cmpLgWord is s_cmp_lg_u32 s[reg], 0 (restores SCC from the saved value).
func cmpLgWord(reg uint16) uint32 { return 0xbf000000 | 0x07<<16 | 0x80<<8 | uint32(reg&0xff) }
