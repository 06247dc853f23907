package vlds

import "fmt"

// Spill-per-use mode. When no SGPR pair is free in the whole scope for
// virtual_lds_base, the sidecar keeps the base in a persistent private
// (scratch) slot, written once by the prologue for all 64 lanes, and
// borrows an SGPR pair around each lowered access: the pair's guest value
// is saved to a second private slot, the base is loaded into it, the
// access runs, and the guest value is loaded back. Loads into SGPRs go
// through a scratch VGPR and v_readfirstlane_b32, so the sequence needs at
// least one active lane: it is skipped (s_cbranch_execz) when EXEC is zero,
// where the access does nothing either. The borrowed pair, SCC, EXEC, VCC
// and M0 hold their guest values again after the sequence; the scratch
// VGPR is the caller's (a dead register, or a live one it saves).

// SpillSlots is the layout of the persistent private slots (byte offsets
// into the private segment, each two dwords): Base holds
// virtual_lds_base, Save the borrowed pair's guest value.
type SpillSlots struct {
	Base, Save uint32
}

// SpillSlotBytes is the private memory the persistent slots take.
const SpillSlotBytes = 16

// GFX9 words of the spill sequences.
const (
	nop4       = 0xbf800004 // s_nop 4: VALU SGPR write -> VMEM SGPR read needs 5 wait states
	execLo     = 126
	inlineNeg1 = 0xc1
)

// vmovFromS is v_mov_b32 v[vdst], s[src].
func vmovFromS(vdst, src uint16) uint32 {
	return 0x7e000000 | uint32(vdst&0xff)<<17 | 1<<9 | uint32(src&0xff)
}

// readfirstlane is v_readfirstlane_b32 s[sdst], v[vsrc].
func readfirstlane(sdst, vsrc uint16) uint32 {
	return 0x7e000000 | uint32(sdst&0x7f)<<17 | 2<<9 | (256 + uint32(vsrc&0xff))
}

// scratchStore is scratch_store_dword off, v[v], off offset:off.
func scratchStore(v uint16, off uint32) []uint32 {
	return []uint32{0xdc704000 | off&0x1fff, 0x007f0000 | uint32(v&0xff)<<8}
}

// scratchLoad is scratch_load_dword v[v], off, off offset:off.
func scratchLoad(v uint16, off uint32) []uint32 {
	return []uint32{0xdc504000 | off&0x1fff, 0x007f0000 | uint32(v&0xff)<<24}
}

// smovB64 is s_mov_b64 s[sdst:sdst+1], src (an SGPR/special operand code).
func smovB64(sdst uint16, src uint32) uint32 {
	return 0xbe800000 | uint32(sdst&0x7f)<<16 | 1<<8 | src&0xff
}

func checkSlots(s SpillSlots) error {
	for _, o := range []uint32{s.Base, s.Save} {
		if o%4 != 0 || o+8 > 4096 {
			return fmt.Errorf("vlds: spill slot at %d is not a dword offset below the 13-bit scratch offset limit", o)
		}
	}
	if s.Base < s.Save+8 && s.Save < s.Base+8 {
		return fmt.Errorf("vlds: spill slots at %d and %d overlap", s.Base, s.Save)
	}
	return nil
}

// StoreBase returns the code the spill-per-use prologue appends: with
// EXEC saved in execSave (an SGPR pair free at the entry) and set to all
// lanes, virtual_lds_base (in base) is written to slot Base of every lane
// through VGPR tmp (undefined at the entry), then EXEC is restored and the
// stores are waited for.
func StoreBase(base, execSave, tmp uint16, s SpillSlots) ([]byte, error) {
	if err := checkSlots(s); err != nil {
		return nil, err
	}
	if base%2 != 0 || execSave%2 != 0 || base == execSave || base >= 102 || execSave >= 102 {
		return nil, fmt.Errorf("vlds: spill prologue: base s%d and EXEC save s%d must be distinct aligned pairs below s102", base, execSave)
	}
	out := []uint32{smovB64(execSave, execLo), smovB64(execLo, inlineNeg1), vmovFromS(tmp, base)}
	out = append(out, scratchStore(tmp, s.Base)...)
	out = append(out, vmovFromS(tmp, base+1))
	out = append(out, scratchStore(tmp, s.Base+4)...)
	out = append(out, smovB64(execLo, uint32(execSave)), waitVM0)
	return appendWords(nil, out...), nil
}

// AroundAccess wraps a lowered access (whose global accesses use the
// SGPR pair borrow as their base) in the spill-per-use sequence: skip when
// EXEC is zero; save the pair's guest value to slot Save and load the base
// from slot Base into it (through VGPR tmp); the access; load the guest
// value back.
func AroundAccess(access []byte, borrow, tmp uint16, s SpillSlots) ([]byte, error) {
	if err := checkSlots(s); err != nil {
		return nil, err
	}
	if borrow%2 != 0 || borrow >= 102 {
		return nil, fmt.Errorf("vlds: spill-per-use: borrowed pair s%d is not an aligned pair below s102", borrow)
	}
	if len(access)%4 != 0 {
		return nil, fmt.Errorf("vlds: spill-per-use: access code is %d bytes, not whole words", len(access))
	}
	var pre []uint32
	for i := uint16(0); i < 2; i++ {
		pre = append(pre, vmovFromS(tmp, borrow+i))
		pre = append(pre, scratchStore(tmp, s.Save+4*uint32(i))...)
	}
	for i := uint16(0); i < 2; i++ {
		pre = append(pre, scratchLoad(tmp, s.Base+4*uint32(i))...)
		pre = append(pre, waitVM0, readfirstlane(borrow+i, tmp))
	}
	pre = append(pre, nop4)
	var post []uint32
	for i := uint16(0); i < 2; i++ {
		post = append(post, scratchLoad(tmp, s.Save+4*uint32(i))...)
		post = append(post, waitVM0, readfirstlane(borrow+i, tmp))
	}
	post = append(post, nop4)
	skip := len(pre) + len(access)/4 + len(post)
	if skip > 32767 {
		return nil, fmt.Errorf("vlds: spill-per-use: %d-word access is too long to skip", skip)
	}
	out := appendWords(nil, 0xbf880000|uint32(skip)) // s_cbranch_execz over the sequence
	out = appendWords(out, pre...)
	out = append(out, access...)
	return appendWords(out, post...), nil
}
