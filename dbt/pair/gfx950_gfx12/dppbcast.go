package gfx950gfx12

import (
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

// gfx9 DPP row_bcast:15 (0x142) and row_bcast:31 (0x143) have no gfx12
// control. Their meaning (and the gfx9 simulator's): a lane of row r reads
// src0 from the last lane of row r-1 (row_bcast:15, rows 1-3) or from lane
// 31 (row_bcast:31, rows 2-3); a lane of a row without a source, or whose
// source lane is inactive, is not written (bound_ctrl off); row_mask and
// bank_mask select the lanes written.
//
// The rule needs one scratch SGPR pair and three VGPRs; every SALU is a
// move (SCC is kept) and VCC is untouched:
//
//	s_mov_b64 sx, exec; s_mov_b64 exec, -1
//	v_cndmask_b32_e64 tf, 0, 1, sx   ; tf = the guest's active lanes
//	v_mov_b32 ts, 0                  ; ts = the lane's source is active
//	per row r with a source: exec := row r; tt := exec word >> source
//	  lane; ts := tt & tf & 1 (the lane and its source are active)
//	per row r with a source, last row first (a row's source lies in an
//	earlier row, which is not written yet):
//	  v_readlane_b32 sx, src0, source lane; s_wait_alu va_sdst(0)
//	  exec := row r's lanes in row_mask/bank_mask; v_cmpx_ne_u32 0, ts
//	  v_<op>_e64 vdst, sx, src1      ; src0 modifiers kept
//	s_mov_b64 exec, -1; v_cmpx_ne_u32 0, tf   ; the guest's EXEC again
//	s_wait_alu sa_sdst(0)

// gfx12 SGPR hazard waits (research note §3.7): depctr_va_sdst(0) before
// a VALU reads an SGPR a VALU wrote (the v_readlane result), and
// depctr_sa_sdst(0) at the end so a following SALU write of the scratch
// pair does not overtake the expansion's VALU reads of it.
const (
	waitVASDst = 0xf19f
	waitSASDst = 0xff9e
)

// bcastOps are the VOP1/VOP2 operations the rule expands: their result
// depends only on src0 and src1 (no VCC, no read of vdst).
var bcastOps = map[string]bool{
	"v_mov_b32": true, "v_add_f32": true, "v_sub_f32": true, "v_subrev_f32": true, "v_mul_f32": true,
	"v_max_f32": true, "v_min_f32": true, "v_add_u32": true, "v_sub_u32": true, "v_subrev_u32": true,
	"v_max_i32": true, "v_max_u32": true, "v_min_i32": true, "v_min_u32": true,
	"v_and_b32": true, "v_or_b32": true, "v_xor_b32": true,
}

// rowBcast reports whether a DPP control is row_bcast:15 or :31.
func rowBcast(c uint16) bool { return c == 0x142 || c == 0x143 }

// dppRowBcast expands a DPP row_bcast instruction.
func dppRowBcast(ctx rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	m := in.Mod
	if m.BoundCtrl {
		return nil, fmt.Errorf("row_bcast with bound_ctrl (zero for rows without a source) has no rule")
	}
	if !bcastOps[in.Name()] {
		return nil, fmt.Errorf("row_bcast on %s (only VOP1/VOP2 operations of src0 and src1 alone)", in.Name())
	}
	op, ok := hostOps()[in.Name()]
	if !ok {
		return nil, fmt.Errorf("no gfx12 counterpart")
	}
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	if len(ops) < 2 || ops[0].Kind != isa.KindReg || ops[0].Class != isa.VGPR || ops[1].Kind != isa.KindReg || ops[1].Class != isa.VGPR {
		return nil, fmt.Errorf("row_bcast operands")
	}
	dst, src0 := ops[0], ops[1]
	sx, err := ctx.TempSGPRPair()
	if err != nil {
		return nil, err
	}
	t, err := ctx.TempVGPRRange(3, 1)
	if err != nil {
		return nil, err
	}
	tf, ts, tt := t, t+1, t+2
	execPair := special(isa.RegEXECLo, 2)
	setExec := func(lanes uint64) []host {
		return []host{
			{mnem: "s_mov_b32", ops: []isa.Operand{special(isa.RegEXECLo, 1), lit(uint32(lanes))}},
			{mnem: "s_mov_b32", ops: []isa.Operand{special(isa.RegEXECHi, 1), lit(uint32(lanes >> 32))}},
		}
	}
	// Rows with a source, last first, and the lane each reads.
	type row struct{ r, src int }
	rows := []row{{3, 47}, {2, 31}, {1, 15}}
	if in.Mod.DPPCtrl == 0x143 {
		rows = []row{{3, 31}, {2, 31}}
	}
	hs := []host{
		{mnem: "s_mov_b64", ops: []isa.Operand{sr(sx, 2), execPair}},
		{mnem: "s_mov_b64", ops: []isa.Operand{execPair, inl(-1)}},
		{mnem: "v_cndmask_b32_e64", ops: []isa.Operand{vr(tf, 1), inl(0), inl(1), sr(sx, 2)}},
		{mnem: "v_mov_b32_e32", ops: []isa.Operand{vr(ts, 1), inl(0)}},
	}
	for _, rw := range rows {
		word := sr(sx, 1)
		if rw.src >= 32 {
			word = sr(sx+1, 1)
		}
		hs = append(hs, setExec(0xffff<<(16*rw.r))...)
		hs = append(hs,
			host{mnem: "v_lshrrev_b32_e64", ops: []isa.Operand{vr(tt, 1), inl(rw.src % 32), word}},
			host{mnem: "v_and_b32_e32", ops: []isa.Operand{vr(tt, 1), vr(tt, 1), vr(tf, 1)}},
			host{mnem: "v_and_b32_e32", ops: []isa.Operand{vr(ts, 1), inl(1), vr(tt, 1)}})
	}
	var bank uint64
	for b := 0; b < 4; b++ {
		if m.BankMask>>b&1 != 0 {
			bank |= 0xf << (4 * b)
		}
	}
	for _, rw := range rows {
		if m.RowMask>>rw.r&1 == 0 || bank == 0 {
			continue
		}
		s0 := src0
		s0.Mods = 0
		val := sr(sx, 1)
		val.Mods = src0.Mods
		o := append([]isa.Operand{dst, val}, ops[2:]...)
		var opH *host
		for _, mn := range candidates(op.to, "_e64") {
			h := host{mnem: mn, ops: o}
			h.mod.Clamp, h.mod.OMod = m.Clamp, m.OMod
			if _, err := h.encode(); err == nil {
				opH = &h
				break
			}
		}
		if opH == nil {
			return nil, fmt.Errorf("%s has no gfx12 VOP3 form with an SGPR src0", op.to)
		}
		hs = append(hs, host{mnem: "v_readlane_b32", ops: []isa.Operand{sr(sx, 1), s0, inl(rw.src)}},
			host{mnem: "s_wait_alu", ops: []isa.Operand{imm(waitVASDst)}})
		hs = append(hs, setExec(bank<<(16*rw.r))...)
		hs = append(hs, host{mnem: "v_cmpx_ne_u32_e64", ops: []isa.Operand{inl(0), vr(ts, 1)}}, *opH)
	}
	hs = append(hs, host{mnem: "s_mov_b64", ops: []isa.Operand{execPair, inl(-1)}},
		host{mnem: "v_cmpx_ne_u32_e64", ops: []isa.Operand{inl(0), vr(tf, 1)}},
		host{mnem: "s_wait_alu", ops: []isa.Operand{imm(waitSASDst)}})
	return seq(hs...)
}
