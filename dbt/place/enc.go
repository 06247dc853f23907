package place

import "encoding/binary"

// Scalar control-flow encodings of GFX9 (gfx942, gfx950), the only host
// words this package writes itself. Each is checked against llvm-mc-19 in
// the tests.

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

// NopWord is s_nop 0.
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
