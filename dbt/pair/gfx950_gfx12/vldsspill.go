package gfx950gfx12

import (
	"encoding/binary"
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/place"
	"github.com/rocjitsu/rocjitsu/dbt/vlds"
)

// Spill-per-use mode on gfx12 (see package vlds): virtual_lds_base lives
// in two per-lane private dwords written by the prologue for every lane,
// and each lowered access borrows an SGPR pair it does not name. The gfx12
// sequences use scratch_store_b32 / scratch_load_b32 through the
// architected flat scratch, s_wait_storecnt / s_wait_loadcnt, and
// s_wait_alu va_sdst(0) after v_readfirstlane_b32 before the SGPRs are
// read (conservative: it can only over-wait).

// checkSlots12 checks the persistent slots against the gfx12 scratch
// offset (24-bit signed).
func checkSlots12(s vlds.SpillSlots) error {
	for _, o := range []uint32{s.Base, s.Save} {
		if o%4 != 0 || o+8 >= 1<<23 {
			return fmt.Errorf("vlds: spill slot at %d is not a dword offset below the 24-bit scratch offset limit", o)
		}
	}
	if s.Base < s.Save+8 && s.Save < s.Base+8 {
		return fmt.Errorf("vlds: spill slots at %d and %d overlap", s.Base, s.Save)
	}
	return nil
}

func scratchStore(v uint16, at uint32) host {
	h := host{mnem: "scratch_store_b32", ops: []isa.Operand{off(), vr(v, 1), off()}}
	h.mod.Offset = int32(at)
	return h
}

func scratchLoad(v uint16, at uint32) host {
	h := host{mnem: "scratch_load_b32", ops: []isa.Operand{vr(v, 1), off(), off()}}
	h.mod.Offset = int32(at)
	return h
}

// SpillStoreBase implements pair.VirtualLDS: with EXEC saved in the pair
// execSave and set to all lanes, the base pair is written to slot Base of
// every lane through VGPR tmp, EXEC is restored, and the stores are waited
// for.
func (Pair) SpillStoreBase(base, execSave, tmp uint16, s vlds.SpillSlots) ([]byte, error) {
	if err := checkSlots12(s); err != nil {
		return nil, err
	}
	if base%2 != 0 || execSave%2 != 0 || base == execSave || base >= 104 || execSave >= 104 {
		return nil, fmt.Errorf("vlds: spill prologue: base s%d and EXEC save s%d must be distinct aligned pairs below s104", base, execSave)
	}
	exec := special(isa.RegEXECLo, 2)
	out, err := seq(
		host{mnem: "s_mov_b64", ops: []isa.Operand{sr(execSave, 2), exec}},
		host{mnem: "s_mov_b64", ops: []isa.Operand{exec, inl(-1)}},
		host{mnem: "v_mov_b32_e32", ops: []isa.Operand{vr(tmp, 1), sr(base, 1)}},
		scratchStore(tmp, s.Base),
		host{mnem: "v_mov_b32_e32", ops: []isa.Operand{vr(tmp, 1), sr(base+1, 1)}},
		scratchStore(tmp, s.Base+4),
		host{mnem: "s_mov_b64", ops: []isa.Operand{exec, sr(execSave, 2)}},
		host{mnem: "s_wait_storecnt", ops: []isa.Operand{imm(0)}},
	)
	if err != nil {
		return nil, fmt.Errorf("vlds: gfx12 spill prologue: %w", err)
	}
	return out, nil
}

// SpillAround implements pair.VirtualLDS: skip when EXEC is zero; save the
// borrowed pair's guest value to slot Save and load the base from slot
// Base into it (through VGPR tmp); the access; load the guest value back.
func (Pair) SpillAround(access []byte, borrow, tmp uint16, s vlds.SpillSlots) ([]byte, error) {
	if err := checkSlots12(s); err != nil {
		return nil, err
	}
	if borrow%2 != 0 || borrow >= 104 {
		return nil, fmt.Errorf("vlds: spill-per-use: borrowed pair s%d is not an aligned pair below s104", borrow)
	}
	if len(access)%4 != 0 {
		return nil, fmt.Errorf("vlds: spill-per-use: access code is %d bytes, not whole words", len(access))
	}
	alu := host{mnem: "s_wait_alu", ops: []isa.Operand{imm(waitVASDst)}}
	var hs []host
	for i := uint16(0); i < 2; i++ {
		hs = append(hs, host{mnem: "v_mov_b32_e32", ops: []isa.Operand{vr(tmp, 1), sr(borrow+i, 1)}}, scratchStore(tmp, s.Save+4*uint32(i)))
	}
	for i := uint16(0); i < 2; i++ {
		hs = append(hs, scratchLoad(tmp, s.Base+4*uint32(i)), host{mnem: "s_wait_loadcnt", ops: []isa.Operand{imm(0)}},
			host{mnem: "v_readfirstlane_b32", ops: []isa.Operand{sr(borrow+i, 1), vr(tmp, 1)}})
	}
	hs = append(hs, alu)
	pre, err := seq(hs...)
	if err != nil {
		return nil, fmt.Errorf("vlds: gfx12 spill-per-use: %w", err)
	}
	// The guest value is read back from the slot the sequence stored it
	// to: its store is complete first.
	hs = []host{{mnem: "s_wait_storecnt", ops: []isa.Operand{imm(0)}}}
	for i := uint16(0); i < 2; i++ {
		hs = append(hs, scratchLoad(tmp, s.Save+4*uint32(i)), host{mnem: "s_wait_loadcnt", ops: []isa.Operand{imm(0)}},
			host{mnem: "v_readfirstlane_b32", ops: []isa.Operand{sr(borrow+i, 1), vr(tmp, 1)}})
	}
	hs = append(hs, alu)
	post, err := seq(hs...)
	if err != nil {
		return nil, fmt.Errorf("vlds: gfx12 spill-per-use: %w", err)
	}
	skip := (len(pre) + len(access) + len(post)) / 4
	if skip > 32767 {
		return nil, fmt.Errorf("vlds: spill-per-use: %d-word access is too long to skip", skip)
	}
	br := place.GFX12.SOPP(place.OpCbranchEXECZ, int16(skip))
	out := binary.LittleEndian.AppendUint32(nil, br)
	out = append(out, pre...)
	out = append(out, access...)
	return append(out, post...), nil
}
