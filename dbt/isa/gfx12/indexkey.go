package gfx12

import "strings"

// SWMMAC index_key: the op_sel field (word 0 bits 11-12) of a v_swmmac_*
// selects which window of the sparsity-index VGPR the instruction reads.
// How many windows there are depends on the instruction and the wave size
// (llvm-mc-19 -mcpu=gfx1201 accepts index_key up to 1 for every SWMMAC in
// wave32 but v_swmmac_i32_16x16x64_iu4, which takes none; up to 3 in wave64
// for the 16-bit and 8-bit inputs, up to 1 for the iu4 ones). The generated
// tables hold one row per instruction for both wave sizes, with the wave32
// mask, so bit 12 is relaxed here and the range checked instead.

// indexKeyBits is the op_sel part of word 0 that holds index_key.
const indexKeyBits = 3 << 11

// IndexKeyMax returns the largest index_key mnem accepts in the given wave
// size, and false if mnem is not an SWMMAC.
func IndexKeyMax(mnem string, wave64 bool) (int, bool) {
	if !strings.HasPrefix(mnem, "v_swmmac_") {
		return 0, false
	}
	iu4 := strings.HasSuffix(mnem, "_iu4")
	switch {
	case !wave64 && strings.Contains(mnem, "16x16x64_iu4"):
		return 0, true
	case !wave64, iu4:
		return 1, true
	}
	return 3, true
}
