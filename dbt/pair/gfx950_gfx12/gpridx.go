package gfx950gfx12

import (
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/live"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

// gfx9 VGPR indexing mode (research note §3.1: removed on gfx12). While
// s_set_gpr_idx_on is in effect, a VALU instruction's VGPR operands in the
// slots the mode selects (simm4 bit 0 src0, 1 src1, 2 src2, 3 the
// destination) are offset by M0[7:0]; s_set_gpr_idx_on itself writes
// M0[7:0] = src[7:0] and M0[15:12] = the mode and keeps the other bits;
// s_set_gpr_idx_off only leaves the mode. gfx12 has M0-relative moves
// instead (v_movreld_b32: VGPR[vdst + M0] = src0 in the active lanes).
//
// The rule covers regions within one basic block: s_set_gpr_idx_on, then
// only the indexed instructions below (and s_nop), then
// s_set_gpr_idx_off. With the DST mode alone: v_writelane_b32 (the aiter
// topksoftmax kernels) and v_mov_b32 (LLVM's insertelement); SRC0 alone
// or SRC0|DST: v_mov_b32 of a VGPR (extractelement, a moved element). Any
// other mode, instruction, or a region not closed in its block rejects the
// kernel with the reason.
//
//	s_set_gpr_idx_on src, DST ->  M0 := M0 & 0xffff0f00 | src & 0xff | 8 << 12
//	                              (SCC saved in a scratch SGPR around it)
//	v_writelane_b32 vD, s, lane -> save EXEC (scratch pair) and M0 (a dead
//	                              SGPR), M0 := M0[7:0], EXEC := 1 <<
//	                              lane[5:0], v_movreld_b32 vD, s, M0 and
//	                              EXEC restored (SCC untouched)
//	v_mov_b32_e32 vD, s         -> M0 saved in a dead SGPR, M0 := M0[7:0],
//	                              v_movreld_b32 (DST), v_movrels_b32
//	                              (SRC0) or v_movrelsd_b32 (SRC0|DST),
//	                              M0 restored (the same EXEC semantics)
//	s_set_gpr_idx_off           -> s_nop 0
//
// No scratch VGPR is used: the indexed write may land on any VGPR from vD
// on, so one holding saved state (or restored from a spill afterwards)
// could be overwritten.

// s_set_gpr_idx_on mode bits.
const (
	gprIdxSrc0 = 1
	gprIdxDst  = 8
)

// movrel is the gfx12 M0-relative move of a v_mov_b32 by region mode.
var movrel = map[int64]string{gprIdxDst: "v_movreld_b32_e32", gprIdxSrc0: "v_movrels_b32_e32", gprIdxSrc0 | gprIdxDst: "v_movrelsd_b32_e32"}

// waitSALU is s_wait_alu depctr_va_sdst(0) depctr_sa_sdst(0): the SGPR
// hazards of §3.7 around the expansion's M0 and EXEC writes (it may
// over-wait).
const waitSALU = waitVASDst & waitSASDst

const gprIdxBound = "the index: vD + M0[7:0] must stay below the guest's VGPR allocation; past it, gfx9 and the translation (v_movreld_b32 on the host's VGPRs: mapped AGPRs, rule scratch) write different registers"

// gprIdxRule returns the rule for an instruction of a VGPR-indexing region
// (s_set_gpr_idx_on/off and the indexed instructions between them), or
// nil when in is not one.
func gprIdxRule(in *isa.Inst, site pair.Site) *rule {
	switch in.Name() {
	case "s_set_gpr_idx_on":
		return &rule{name: "gfx12-gpr-idx-on", fidelity: report.Exact, emit: gprIdxOn}
	case "s_set_gpr_idx_off":
		return &rule{name: "gfx12-gpr-idx-off", fidelity: report.Exact, emit: gprIdxOff}
	case "v_writelane_b32", "v_mov_b32":
		if !blockIndexes(site) {
			return nil
		}
		if _, _, _, err := gprIdxRegion(site.Block, site.Index); err != errNoRegion {
			if in.Name() == "v_mov_b32" {
				return &rule{name: "gfx12-gpr-idx-mov", fidelity: report.Approximate, bound: gprIdxBound, emit: gprIdxMov}
			}
			return &rule{name: "gfx12-gpr-idx-writelane", fidelity: report.Approximate, bound: gprIdxBound, emit: gprIdxWritelane}
		}
	}
	return nil
}

// blockIndexes reports whether the site's basic block has an
// s_set_gpr_idx_on (once per block: site.Memo), so that the frequent
// v_mov_b32 outside any region skips the region search.
func blockIndexes(site pair.Site) bool {
	if len(site.Block) == 0 {
		return false
	}
	scan := func() bool {
		for _, x := range site.Block {
			if x.Name() == "s_set_gpr_idx_on" {
				return true
			}
		}
		return false
	}
	if site.Memo == nil {
		return scan()
	}
	m, _ := site.Memo["gpridx blocks"].(map[*isa.Inst]bool)
	if m == nil {
		m = map[*isa.Inst]bool{}
		site.Memo["gpridx blocks"] = m
	}
	has, ok := m[site.Block[0]]
	if !ok {
		has = scan()
		m[site.Block[0]] = has
	}
	return has
}

// errNoRegion says an instruction lies outside any VGPR-indexing region.
var errNoRegion = fmt.Errorf("not in a VGPR-indexing region")

// gprIdxRegion returns the block indexes of the s_set_gpr_idx_on and
// s_set_gpr_idx_off around block[i] and checks the region's shape;
// errNoRegion when block[i] is not inside one (no s_set_gpr_idx_on before
// it in the block, or an s_set_gpr_idx_off closes it first).
func gprIdxRegion(block []*isa.Inst, i int) (on, off int, mode int64, err error) {
	if i < 0 || i >= len(block) {
		return 0, 0, 0, errNoRegion
	}
	on = -1
	for j := i; j >= 0; j-- {
		n := block[j].Name()
		if n == "s_set_gpr_idx_on" {
			on = j
			break
		}
		if n == "s_set_gpr_idx_off" && j != i || n == "s_set_gpr_idx_idx" || n == "s_set_gpr_idx_mode" {
			break
		}
	}
	if on < 0 {
		if block[i].Name() == "s_set_gpr_idx_off" {
			return 0, 0, 0, fmt.Errorf("s_set_gpr_idx_off without an s_set_gpr_idx_on in its basic block")
		}
		return 0, 0, 0, errNoRegion
	}
	o := block[on].Operands
	if len(o) != 2 || o[1].Kind != isa.KindImm {
		return 0, 0, 0, fmt.Errorf("s_set_gpr_idx_on at %#x: operands", block[on].PC)
	}
	mode = o[1].Imm & 15
	if movrel[mode] == "" {
		return 0, 0, 0, fmt.Errorf("s_set_gpr_idx_on at %#x: mode %#x has no rule (DST, SRC0 or SRC0|DST)", block[on].PC, mode)
	}
	for j := on + 1; j < len(block); j++ {
		b := block[j]
		ok := false
		switch b.Name() {
		case "s_set_gpr_idx_off":
			return on, j, mode, nil
		case "s_nop":
			ok = true
		case "v_writelane_b32":
			ok = mode == gprIdxDst
		case "v_mov_b32":
			ok = b.Format == isa.VOP1 && len(b.Operands) == 2 && (mode&gprIdxSrc0 == 0 || b.Operands[1].Kind == isa.KindReg && b.Operands[1].Class == isa.VGPR)
		}
		if !ok {
			return 0, 0, 0, fmt.Errorf("%s at %#x inside the VGPR-indexing region of %#x (mode %#x) has no indexed rule (DST: v_writelane_b32, v_mov_b32_e32; SRC0: v_mov_b32_e32 of a VGPR)", b.Name(), b.PC, block[on].PC, mode)
		}
	}
	return 0, 0, 0, fmt.Errorf("the VGPR-indexing region of %#x does not end with s_set_gpr_idx_off in its basic block", block[on].PC)
}

// gprIdxOn sets M0 as gfx9's s_set_gpr_idx_on does, after checking the
// region it opens.
func gprIdxOn(ctx rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	if _, _, _, err := gprIdxRegion(site.Block, site.Index); err != nil {
		return nil, err
	}
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	t, err := ctx.TempSGPRPair()
	if err != nil {
		return nil, err
	}
	m0 := special(isa.RegM0, 1)
	return seq(
		host{mnem: "s_cselect_b32", ops: []isa.Operand{sr(t, 1), inl(1), inl(0)}},
		host{mnem: "s_and_b32", ops: []isa.Operand{sr(t+1, 1), ops[0], lit(0xff)}},
		host{mnem: "s_and_b32", ops: []isa.Operand{m0, m0, lit(0xffff0f00)}},
		host{mnem: "s_or_b32", ops: []isa.Operand{m0, m0, sr(t+1, 1)}},
		host{mnem: "s_or_b32", ops: []isa.Operand{m0, m0, lit(uint32(ops[1].Imm&15) << 12)}},
		host{mnem: "s_cmp_lg_u32", ops: []isa.Operand{sr(t, 1), inl(0)}})
}

// gprIdxOff checks the region it closes; gfx9 only leaves the mode, so
// the host needs nothing (s_nop 0 keeps the instruction's place).
func gprIdxOff(_ rules.Context, _ *isa.Inst, site pair.Site) ([]byte, error) {
	if _, _, _, err := gprIdxRegion(site.Block, site.Index); err != nil {
		return nil, err
	}
	return seq(host{mnem: "s_nop", ops: []isa.Operand{imm(0)}})
}

// gprIdxWritelane writes lane `lane` of v[vD + M0[7:0]] through
// v_movreld_b32 under a one-lane EXEC. EXEC is saved in the scratch pair
// and M0 in a third SGPR no instruction reads after this one (the scope's
// liveness); M0 := M0[7:0] is (M0 * 2^24) * 2^8 >> 32, s_mul_i32 and
// s_mul_hi_u32, which leave SCC alone.
func gprIdxWritelane(ctx rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	if _, _, _, err := gprIdxRegion(site.Block, site.Index); err != nil {
		return nil, err
	}
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	if len(ops) != 3 || ops[0].Kind != isa.KindReg || ops[0].Class != isa.VGPR {
		return nil, fmt.Errorf("v_writelane_b32 operands")
	}
	for _, o := range ops[1:] {
		if o.Kind == isa.KindReg && o.Class == isa.Special {
			switch isa.SpecialReg(o.Reg) {
			case isa.RegM0, isa.RegEXECLo, isa.RegEXECHi:
				return nil, fmt.Errorf("an indexed v_writelane_b32 reading M0 or EXEC (the expansion changes them)")
			}
		}
	}
	vd, s, lane := ops[0], ops[1], ops[2]
	t, err := ctx.TempSGPRPair()
	if err != nil {
		return nil, err
	}
	u, err := deadSGPR(in, site, t)
	if err != nil {
		return nil, err
	}
	m0, exec := special(isa.RegM0, 1), special(isa.RegEXECLo, 2)
	wait := host{mnem: "s_wait_alu", ops: []isa.Operand{imm(waitSALU)}}
	return seq(
		wait, // the SGPR operands may come from a VALU just before
		host{mnem: "s_mov_b64", ops: []isa.Operand{sr(t, 2), exec}},
		host{mnem: "s_mov_b32", ops: []isa.Operand{sr(u, 1), m0}},
		host{mnem: "s_mul_i32", ops: []isa.Operand{m0, m0, lit(1 << 24)}},
		host{mnem: "s_mul_hi_u32", ops: []isa.Operand{m0, m0, lit(1 << 8)}},
		host{mnem: "s_mov_b64", ops: []isa.Operand{exec, inl(0)}},
		host{mnem: "s_bitset1_b64", ops: []isa.Operand{exec, lane}},
		wait,
		host{mnem: "v_movreld_b32_e32", ops: []isa.Operand{vd, s}},
		wait,
		host{mnem: "s_mov_b32", ops: []isa.Operand{m0, sr(u, 1)}},
		host{mnem: "s_mov_b64", ops: []isa.Operand{exec, sr(t, 2)}})
}

// gprIdxMov moves through v_movreld/v_movrels/v_movrelsd_b32 with M0 :=
// M0[7:0] (M0 saved in a dead SGPR): the same lanes as the v_mov_b32.
func gprIdxMov(_ rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	_, _, mode, err := gprIdxRegion(site.Block, site.Index)
	if err != nil {
		return nil, err
	}
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	if len(ops) != 2 || ops[0].Kind != isa.KindReg || ops[0].Class != isa.VGPR {
		return nil, fmt.Errorf("v_mov_b32 operands")
	}
	if o := ops[1]; o.Kind == isa.KindReg && o.Class == isa.Special && isa.SpecialReg(o.Reg) == isa.RegM0 {
		return nil, fmt.Errorf("an indexed v_mov_b32 of M0 (the expansion changes it)")
	}
	u, err := deadSGPR(in, site, 0xffff)
	if err != nil {
		return nil, err
	}
	m0 := special(isa.RegM0, 1)
	wait := host{mnem: "s_wait_alu", ops: []isa.Operand{imm(waitSALU)}}
	return seq(
		wait, // M0 or the source may come from a VALU just before
		host{mnem: "s_mov_b32", ops: []isa.Operand{sr(u, 1), m0}},
		host{mnem: "s_mul_i32", ops: []isa.Operand{m0, m0, lit(1 << 24)}},
		host{mnem: "s_mul_hi_u32", ops: []isa.Operand{m0, m0, lit(1 << 8)}},
		wait,
		host{mnem: movrel[mode], ops: []isa.Operand{ops[0], ops[1]}},
		wait,
		host{mnem: "s_mov_b32", ops: []isa.Operand{m0, sr(u, 1)}})
}

// deadSGPR returns an SGPR below the guest's SGPR count (less VCC,
// FLAT_SCRATCH and XNACK_MASK) that no instruction reachable after in
// reads, that in does not name, and that is not in the pair at t; the
// scope's liveness is computed once (site.Memo).
func deadSGPR(in *isa.Inst, site pair.Site, t uint16) (uint16, error) {
	if site.Graph == nil || site.Scope == nil || site.Kernel == nil {
		return 0, fmt.Errorf("no scope analysis for a scratch SGPR")
	}
	key := fmt.Sprintf("live %p", site.Scope)
	info, _ := site.Memo[key].(*live.Info)
	if info == nil {
		info = live.Analyze(site.Graph, site.Scope, nil)
		if site.Memo != nil {
			site.Memo[key] = info
		}
	}
	after := info.After(in.PC)
	if after == nil {
		return 0, fmt.Errorf("no liveness at %#x", in.PC)
	}
	limit := min(site.Kernel.Descriptor.NextFreeSGPR()-6, 102)
	for r := 0; r < limit; r++ {
		if r == int(t) || r == int(t)+1 || after.S.Has(r) || namesSGPR(in, r) {
			continue
		}
		return uint16(r), nil
	}
	return 0, fmt.Errorf("needs a third scratch SGPR (M0 save): none below s%d is dead here", limit)
}

// namesSGPR reports whether in names SGPR r.
func namesSGPR(in *isa.Inst, r int) bool {
	for _, o := range in.Operands {
		if o.Kind == isa.KindReg && o.Class == isa.SGPR && r >= int(o.Reg) && r < int(o.Reg)+int(o.Width) {
			return true
		}
	}
	return false
}
